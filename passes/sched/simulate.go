package sched

import "slices"

// timeline is the result of a simulation: the interval of every position,
// the order in which they were issued, and the makespan.
type timeline struct {
	start, end []int64
	issue      []int32 // positions in issue order
	makespan   int64
	// bind is, for each position, the predecessor whose end decided its
	// start (-1: its resource or nothing did): the source of a stall.
	bind []int32
}

// simulate is TimeAwareScheduler::linearize_insts_by_simulation: it walks
// the list order, keeping each resource's timeline, and issues one
// instruction at a time (pick_candidate): among the first window
// instructions of the list not issued yet whose predecessors are all
// issued, the one that can start earliest (ties: list order). An
// instruction starts when its predecessors have ended and its resource
// (and shared ports) are free, never before an instruction of an earlier
// block started. window <= 1 issues strictly in list order (the reorder
// window is off).
func (p *problem) simulate(list []int32, window int) *timeline {
	n := len(p.insts)
	t := &timeline{start: make([]int64, n), end: make([]int64, n), issue: make([]int32, 0, n), bind: make([]int32, n)}
	readyAt := make([]int64, n)
	npred := make([]int32, n)
	for k := range n {
		npred[k] = p.predStart[k+1] - p.predStart[k]
		t.bind[k] = -1
	}
	free := make([]int64, p.nRes)
	done := make([]bool, n)
	window = max(window, 1)
	scanLimit := 4 * window
	var floor, blockMax int64
	curBlock := int32(-1)
	est := func(k int32) int64 {
		s := max(readyAt[k], floor)
		switch r := p.res[k]; {
		case r >= 0:
			s = max(s, free[r])
		case r == resAll:
			for _, x := range free {
				s = max(s, x)
			}
		}
		if m := p.ports[k]; m != 0 {
			if m&portSBUF != 0 {
				s = max(s, free[p.portR[0]])
			}
			if m&portPSUM != 0 {
				s = max(s, free[p.portR[1]])
			}
		}
		return s
	}
	head := 0
	for len(t.issue) < n {
		for done[list[head]] {
			head++
		}
		hb := p.block[list[head]]
		if hb != curBlock {
			floor = max(floor, blockMax)
			curBlock = hb
		}
		best, bestEst := int32(-1), int64(0)
		seen := 0
		for j := head; j < n && seen < window && j-head < scanLimit; j++ {
			k := list[j]
			if done[k] {
				continue
			}
			if p.block[k] != hb {
				break
			}
			seen++
			if npred[k] > 0 {
				continue
			}
			e := est(k)
			if best < 0 || e < bestEst {
				best, bestEst = k, e
			}
		}
		k := best
		s := bestEst
		e := s + p.dur[k]
		t.start[k], t.end[k] = s, e
		t.makespan = max(t.makespan, e)
		blockMax = max(blockMax, s)
		switch r := p.res[k]; {
		case r >= 0:
			free[r] = e
		case r == resAll:
			for x := range free {
				free[x] = e
			}
		}
		if m := p.ports[k]; m != 0 {
			if m&portSBUF != 0 {
				free[p.portR[0]] = e
			}
			if m&portPSUM != 0 {
				free[p.portR[1]] = e
			}
		}
		done[k] = true
		t.issue = append(t.issue, k)
		for _, sc := range p.succs(k) {
			npred[sc]--
			if e >= readyAt[sc] {
				readyAt[sc] = e
				t.bind[sc] = k
			}
		}
	}
	// A binding predecessor only matters when it, not the resource,
	// decided the start.
	for k := range n {
		if b := t.bind[k]; b >= 0 && t.end[b] != t.start[k] {
			t.bind[k] = -1
		}
	}
	return t
}

// linear returns each block's positions sorted by start (ties in issue
// order), blocks in order: the linearized schedule.
func (p *problem) linear(t *timeline) []int32 {
	n := len(p.insts)
	rank := make([]int32, n)
	for r, k := range t.issue {
		rank[k] = int32(r)
	}
	out := make([]int32, n)
	for k := range n {
		out[k] = int32(k)
	}
	slices.SortStableFunc(out, func(x, y int32) int {
		switch {
		case p.block[x] != p.block[y]:
			return int(p.block[x] - p.block[y])
		case t.start[x] != t.start[y]:
			if t.start[x] < t.start[y] {
				return -1
			}
			return 1
		}
		return int(rank[x] - rank[y])
	})
	return out
}
