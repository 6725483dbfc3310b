package sched

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// HandMakespan is the makespan of a hand-built schedule of f: queues[q]
// lists the DMAs (by instruction name) queue q runs, in order; every DMA
// of f must be listed once. The DMAs are bound to their queues and the
// instructions issued strictly in the order of their planned starts (a
// DMA's: the durations before it on its queue, at least its
// predecessors' planned ends; another instruction's: its predecessors'),
// simulated as the scheduler simulates (window 1): a schedule that
// respects every dependency, engine and queue.
func HandMakespan(f *bir.Function, model *arch.Model, queues [][]string) (int64, error) {
	p, err := newProblem(f, model, nil)
	if err != nil {
		return 0, err
	}
	if err := p.graphFromIR(); err != nil {
		return 0, err
	}
	n := len(p.insts)
	byName := map[string]int32{}
	for k, i := range p.insts {
		byName[f.InstName(i)] = int32(k)
	}
	planned := make([]int64, n)
	onQueue := make([]bool, n)
	for q, list := range queues {
		for _, name := range list {
			k, ok := byName[name]
			if !ok || p.res[k] != resQueue && p.res[k] < firstQueue || onQueue[k] {
				return 0, fmt.Errorf("queue %d: %q is not a DMA of %s listed once", q, name, f.Name)
			}
			onQueue[k] = true
			p.res[k] = firstQueue + int32(q)
		}
	}
	for k := range n {
		if p.res[k] == resQueue {
			return 0, fmt.Errorf("DMA %s is on no queue", f.InstName(p.insts[k]))
		}
	}
	// Planned starts: predecessors first (program order is topological),
	// then the queue's earlier DMAs, repeated until nothing moves.
	for changed := true; changed; {
		changed = false
		for k := range n {
			for _, q := range p.preds(int32(k)) {
				if e := planned[q] + p.dur[q]; e > planned[k] {
					planned[k], changed = e, true
				}
			}
		}
		for _, list := range queues {
			var t int64
			for _, name := range list {
				k := byName[name]
				if t > planned[k] {
					planned[k], changed = t, true
				}
				t = planned[k] + p.dur[k]
			}
		}
	}
	pr := &priority{bl: make([]int64, n), netFree: make([]int64, n)}
	for k := range n {
		pr.bl[k] = -planned[k]
	}
	return p.simulate(p.listSchedule(pr), 1).makespan, nil
}
