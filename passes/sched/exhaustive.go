package sched

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// The exhaustive optimum: a yardstick for the scheduler and its lower
// bound on small functions, written apart from the scheduler's problem
// code (problem.go, simulate.go) so that a mistake in one is not repeated
// in the other: it reads the IR and the cost model (arch) itself into its
// own task list (exTask) and simulates with its own state.
//
// The machine it optimizes over is the scheduler's (arch/cost.go; the
// file comments of problem.go and simulate.go): a compute instruction
// holds its engine (and, on NC-v2, the SBUF or PSUM port it shares) from
// its start to its end, starts no earlier than its inputs are ready and
// its engine is free, and its work starts no earlier than its readiness
// latency after its inputs were ready; a DMA holds its queue from its
// start, pays its fixed latency, then holds every DMA engine of its set
// for its transfer; a DMA without a queue takes any; blocks run in order,
// an instruction of a later block starting no earlier than every
// instruction of the earlier blocks started.
//
// Search. Every schedule of that machine is dominated by the in-order
// simulation of some issue order (take the instructions by the start of
// their work on their engines, a DMA by its transfer's start: issuing them
// in that order, each as early as its predecessors and the resources'
// earlier occupants allow, starts none later, because every end is
// monotone in the start, the readiness and the resources' free times), so
// the minimum over topological orders, block by block, is the optimum. A
// DMA without a queue takes, among the queues free by its start, the one
// freed last: any other choice leaves the queues' free times no earlier,
// so it is dominated and not branched on. The branch and bound prunes by
// the longest remaining chain (durations and readiness latencies) from
// each instruction's earliest start.

// exTask is one instruction of the exhaustive search.
type exTask struct {
	dma    bool
	engine int    // compute: the engine (bir.Engine), -1: none
	queue  int    // DMA: its queue, -1: any
	dur    int64  // compute: least occupancy; DMA: fixed + transfer
	lat    int64  // compute: readiness latency
	fix    int64  // DMA: fixed latency
	mask   uint64 // DMA: its DMA engines
	ports  uint8  // NC-v2 shared ports: 1 SBUF, 2 PSUM
	preds  []int
	block  int
}

// exSpec is an exhaustive-search problem.
type exSpec struct {
	tasks   []exTask
	queues  int
	engines int // DMA engines
}

// ExhaustiveOptimum returns the shortest makespan (ps) of any schedule of
// f on model that respects f's dependencies, engines, DMA queues and DMA
// engines (the machine time_aware_scheduler schedules on; see above),
// found by branch and bound: a yardstick for small functions. ok is false
// when the search visits more than maxNodes states.
func ExhaustiveOptimum(f *bir.Function, model *arch.Model, maxNodes int) (ps int64, ok bool, err error) {
	sp, err := exSpecOf(f, model)
	if err != nil {
		return 0, false, err
	}
	if len(sp.tasks) > 64 {
		return 0, false, fmt.Errorf("function %s: %d instructions; the exhaustive search is for small functions", f.Name, len(sp.tasks))
	}
	ps, ok = sp.solve(maxNodes)
	return ps, ok, nil
}

// exSpecOf reads f into an exhaustive-search problem.
func exSpecOf(f *bir.Function, model *arch.Model) (*exSpec, error) {
	sp := &exSpec{queues: int(max(model.DMAQueues, 1)), engines: int(max(model.DMAEngines, 1))}
	index := map[bir.InstID]int{}
	var err error
	for bi, b := range f.Top {
		f.WalkBlock(b, func(i bir.InstID) bool {
			in := f.Inst(i)
			info := in.Op.Info()
			t := exTask{engine: -1, queue: -1, block: bi}
			switch {
			case in.Op.IsLoop() || info.Has(bir.FlagCall):
				err = fmt.Errorf("function %s: %s: the exhaustive search takes straight-line code without calls", f.Name, f.InstName(i))
				return false
			case info.Has(bir.FlagDMA):
				t.dma = true
				hw := false
				if tab := f.Sched; tab != nil && int(i) < tab.Len() {
					t.queue, hw = int(tab.Queue[i]), tab.DGE[i] >= 0
				}
				est, e := model.InstructionCost(f, i, bir.EngDMA, hw)
				if e != nil {
					err = e
					return false
				}
				t.fix, t.dur, t.mask = est.FixedPs(), est.FixedPs()+est.XferPs(), est.Engines
			default:
				eng := in.Engine
				est, e := model.InstructionCost(f, i, eng, false)
				if e != nil {
					err = e
					return false
				}
				t.dur, t.lat = est.Ps(), est.LatencyPs()
				if eng != bir.EngUnassigned && eng < bir.NumEngines {
					t.engine = int(eng)
					t.ports = exPorts(f, i, eng, model)
				}
			}
			for d := in.Deps; d >= 0; {
				dep, next, ok := f.DepRecord(d)
				if !ok {
					break
				}
				d = next
				q, ok := index[dep.On]
				if !ok {
					err = fmt.Errorf("function %s: %s depends on %s, which does not precede it", f.Name, f.InstName(i), f.InstName(dep.On))
					return false
				}
				t.preds = append(t.preds, q)
			}
			index[i] = len(sp.tasks)
			sp.tasks = append(sp.tasks, t)
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// exPorts returns the NC-v2 shared ports instruction i holds on eng.
func exPorts(f *bir.Function, i bir.InstID, eng bir.Engine, model *arch.Model) uint8 {
	var sb, ps bool
	for _, o := range f.Operands(i) {
		if o.Kind == bir.OpdPhysAP && int(o.Loc()) < f.NumLocs() {
			switch f.Loc(o.Loc()).Type {
			case bir.MemSB:
				sb = true
			case bir.MemPSUM:
				ps = true
			}
		}
	}
	var m uint8
	if sb && !model.DVEPoolShareSBUF && (eng == bir.EngDVE || eng == bir.EngPool) {
		m |= 1
	}
	if ps && !model.DVEActSharePSUM && (eng == bir.EngDVE || eng == bir.EngAct) {
		m |= 2
	}
	return m
}

// exState is the search's machine state.
type exState struct {
	engine [bir.NumEngines]int64
	queue  []int64
	dmaEng []int64
	port   [2]int64
}

// place returns task t's start and end issued now, with inputs ready at
// ready and the block floor floor, and the queue it takes (-1: none); it
// does not change st.
func (sp *exSpec) place(t *exTask, st *exState, ready, floor int64) (s, e int64, q int) {
	s = max(ready, floor)
	q = -1
	if t.dma {
		switch {
		case t.queue >= 0:
			q = t.queue
			s = max(s, st.queue[q])
		default:
			// The queue free first bounds the start; among the queues free
			// by then, the one freed last (dominant: see above).
			m := int64(math.MaxInt64)
			for _, f := range st.queue {
				m = min(m, f)
			}
			s = max(s, m)
			for x, f := range st.queue {
				if f <= s && (q < 0 || f > st.queue[q]) {
					q = x
				}
			}
		}
		tr := s + t.fix
		for m := t.mask; m != 0; m &= m - 1 {
			tr = max(tr, st.dmaEng[bits.TrailingZeros64(m)])
		}
		return s, tr + t.dur - t.fix, q
	}
	if t.engine >= 0 {
		s = max(s, st.engine[t.engine])
	}
	if t.ports&1 != 0 {
		s = max(s, st.port[0])
	}
	if t.ports&2 != 0 {
		s = max(s, st.port[1])
	}
	w := s
	if t.lat > 0 {
		w = max(w, ready+t.lat)
	}
	return s, w + t.dur, q
}

// take marks task t's resources busy until e.
func (sp *exSpec) take(t *exTask, st *exState, e int64, q int) {
	if t.dma {
		st.queue[q] = e
		for m := t.mask; m != 0; m &= m - 1 {
			st.dmaEng[bits.TrailingZeros64(m)] = e
		}
		return
	}
	if t.engine >= 0 {
		st.engine[t.engine] = e
	}
	if t.ports&1 != 0 {
		st.port[0] = e
	}
	if t.ports&2 != 0 {
		st.port[1] = e
	}
}

// solve returns the optimum makespan, or false past maxNodes states.
func (sp *exSpec) solve(maxNodes int) (int64, bool) {
	n := len(sp.tasks)
	if n == 0 {
		return 0, true
	}
	succs := make([][]int, n)
	npred := make([]int, n)
	for k := range sp.tasks {
		for _, q := range sp.tasks[k].preds {
			succs[q] = append(succs[q], k)
		}
		npred[k] = len(sp.tasks[k].preds)
	}
	// Bottom levels: durations and readiness latencies.
	bl := make([]int64, n)
	for k := n - 1; k >= 0; k-- {
		var m int64
		for _, s := range succs[k] {
			m = max(m, bl[s])
		}
		bl[k] = sp.tasks[k].dur + sp.tasks[k].lat + m
	}
	nq := max(sp.queues, 1)
	for _, t := range sp.tasks {
		if t.dma && t.queue >= nq {
			return 0, false
		}
	}
	st := &exState{queue: make([]int64, nq), dmaEng: make([]int64, max(sp.engines, 1))}
	ready := make([]int64, n)
	done := make([]bool, n)
	// The first upper bound: program order.
	best := sp.programOrder()
	nodes := 0
	var dfs func(left int, span, floor, blockMax int64, block int) bool
	dfs = func(left int, span, floor, blockMax int64, block int) bool {
		if nodes++; nodes > maxNodes {
			return false
		}
		if left == 0 {
			best = min(best, span)
			return true
		}
		// The current block: the first with an unscheduled task.
		cur := -1
		for k := range n {
			if !done[k] {
				cur = sp.tasks[k].block
				break
			}
		}
		if cur != block {
			floor, block = max(floor, blockMax), cur
		}
		lb := span
		for k := range n {
			if !done[k] {
				lb = max(lb, max(ready[k], floor)+bl[k])
				if e := sp.tasks[k].engine; e >= 0 && !sp.tasks[k].dma {
					// From its engine's free time the work need not wait
					// for the readiness latency.
					lb = max(lb, st.engine[e]+bl[k]-sp.tasks[k].lat)
				}
			}
		}
		if lb >= best {
			return true
		}
		for k := range n {
			t := &sp.tasks[k]
			if done[k] || npred[k] > 0 || t.block != cur {
				continue
			}
			s, e, q := sp.place(t, st, ready[k], floor)
			saved := exState{engine: st.engine, port: st.port, queue: append([]int64(nil), st.queue...), dmaEng: append([]int64(nil), st.dmaEng...)}
			sp.take(t, st, e, q)
			done[k] = true
			savedReady := make([]int64, len(succs[k]))
			for j, sc := range succs[k] {
				npred[sc]--
				savedReady[j] = ready[sc]
				ready[sc] = max(ready[sc], e)
			}
			ok := dfs(left-1, max(span, e), floor, max(blockMax, s), block)
			// In reverse: a successor listed twice restores its first value.
			for j := len(succs[k]) - 1; j >= 0; j-- {
				sc := succs[k][j]
				npred[sc]++
				ready[sc] = savedReady[j]
			}
			done[k] = false
			st.engine, st.port = saved.engine, saved.port
			copy(st.queue, saved.queue)
			copy(st.dmaEng, saved.dmaEng)
			if !ok {
				return false
			}
		}
		return true
	}
	if !dfs(n, 0, 0, 0, -1) {
		return 0, false
	}
	return best, true
}

// programOrder returns the makespan of issuing in program order.
func (sp *exSpec) programOrder() int64 {
	n := len(sp.tasks)
	st := &exState{queue: make([]int64, max(sp.queues, 1)), dmaEng: make([]int64, max(sp.engines, 1))}
	end := make([]int64, n)
	var span, floor, blockMax int64
	block := -1
	for k := range sp.tasks {
		t := &sp.tasks[k]
		if t.block != block {
			floor, block = max(floor, blockMax), t.block
		}
		var ready int64
		for _, q := range t.preds {
			ready = max(ready, end[q])
		}
		s, e, q := sp.place(t, st, ready, floor)
		sp.take(t, st, e, q)
		end[k] = e
		span, blockMax = max(span, e), max(blockMax, s)
	}
	return span + 1
}
