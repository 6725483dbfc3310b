package sched

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// ExhaustiveOptimum returns the shortest makespan (ps) of any schedule of
// f on model that respects f's dependencies, engines and DMA queues (the
// same problem time_aware_scheduler solves heuristically), found by
// branch and bound: a yardstick for small functions (tests compare the
// scheduler with it on kernels of at most 15 instructions). ok is false
// when the search visits more than maxNodes states.
func ExhaustiveOptimum(f *bir.Function, model *arch.Model, maxNodes int) (ps int64, ok bool, err error) {
	p, err := newProblem(f, model, nil)
	if err != nil {
		return 0, false, err
	}
	if err := p.graphFromIR(); err != nil {
		return 0, false, err
	}
	if len(p.insts) > 64 {
		return 0, false, fmt.Errorf("function %s: %d instructions; the exhaustive search is for small functions", f.Name, len(p.insts))
	}
	orders, _ := ParseOrders("auto", len(p.insts))
	t, _ := p.schedule(DefaultWindow, orders)
	ps, ok = p.optimum(t.makespan+1, maxNodes)
	return ps, ok, nil
}

// optimum finds the shortest makespan of any schedule of p by branch and
// bound over issue orders (see ExhaustiveOptimum). Every semi-active schedule (each instruction as
// early as its predecessors and its resource's earlier instructions allow)
// is the in-order simulation of some topological order, and an optimal
// schedule is semi-active, so the minimum over all orders is the optimum.
// It returns false when the search exceeds maxNodes.
func (p *problem) optimum(upper int64, maxNodes int) (int64, bool) {
	n := len(p.insts)
	bl := p.bottomLevels()
	npred := make([]int32, n)
	for k := range n {
		npred[k] = p.predStart[k+1] - p.predStart[k]
	}
	readyAt := make([]int64, n)
	free := make([]int64, p.nRes)
	done := make([]bool, n)
	best := upper
	nodes := 0
	var dfs func(left int, span int64) bool
	dfs = func(left int, span int64) bool {
		if nodes++; nodes > maxNodes {
			return false
		}
		if left == 0 {
			best = min(best, span)
			return true
		}
		// Bound: every unscheduled instruction's chain to the end, from
		// the earliest it can start.
		lb := span
		for k := range n {
			if !done[k] {
				lb = max(lb, readyAt[k]+bl[k])
				if r := p.res[k]; r >= 0 {
					lb = max(lb, free[r]+bl[k])
				}
			}
		}
		if lb >= best {
			return true
		}
		for k := range n {
			if done[k] || npred[k] > 0 {
				continue
			}
			s := p.earliest(int32(k), readyAt[k], free)
			e := s + p.dur[k]
			// A DMA bound at issue may take any queue free by s; queues
			// with the same free time are interchangeable, so one branch
			// per distinct free time covers every choice (starting later
			// on a busier queue is never better on identical queues).
			choices := []int32{-1}
			if p.res[k] == resQueue {
				choices = choices[:0]
				lo, hi := p.queueRange(int32(k))
				for x := lo; x < hi; x++ {
					dup := false
					for _, c := range choices {
						dup = dup || free[c] == free[x]
					}
					if free[x] <= s && !dup {
						choices = append(choices, x)
					}
				}
			}
			for _, q := range choices {
				saved := append([]int64(nil), free...)
				savedReady := make([]int64, 0, 8)
				if q >= 0 {
					free[q] = e
				} else {
					p.occupy(int32(k), s, e, free)
				}
				done[k] = true
				for _, sc := range p.succs(int32(k)) {
					npred[sc]--
					savedReady = append(savedReady, readyAt[sc])
					readyAt[sc] = max(readyAt[sc], e)
				}
				ok := dfs(left-1, max(span, e))
				for j, sc := range p.succs(int32(k)) {
					npred[sc]++
					readyAt[sc] = savedReady[j]
				}
				done[k] = false
				copy(free, saved)
				if !ok {
					return false
				}
			}
		}
		return true
	}
	if !dfs(n, 0) {
		return 0, false
	}
	return best, true
}
