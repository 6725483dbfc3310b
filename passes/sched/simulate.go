package sched

import "slices"

// timeline is the result of a simulation: the interval of every position,
// the rank at which each was issued, and the makespan.
type timeline struct {
	start, end []int64
	res        []int32 // the resource each position ran on (a DMA's queue chosen at issue)
	rank       []int32 // issue order: rank[k] is the k-th position's turn
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
//
// The window. The candidates are the first window instructions not issued
// yet from the list's first unissued one (head), of head's block, among
// the list positions [head, head+4*window). Only a window instruction is
// ever issued, so every list position past the last one taken into the
// window (the frontier) is unissued and the window is exactly the
// unissued positions in [head, frontier): it is kept as a small array of
// candidates (their list index, ready time, unissued predecessors,
// resource and ports) that grows at the frontier and loses the issued
// one, and a step reads that array instead of the instruction tables
// (the choice is the smallest (start, list index), as the scan in list
// order keeping the first strictly earlier start chose).
//
// Memory: 28 bytes per instruction for the result plus 4 of scratch; an
// instruction not issued yet keeps its ready time in start, -1 in end and
// its index in the window (or -1) in rank.
func (p *problem) simulate(list []int32, window int) *timeline {
	n := len(p.insts)
	t := &timeline{start: make([]int64, n), end: make([]int64, n), rank: make([]int32, n), bind: make([]int32, n), res: make([]int32, n)}
	npred := make([]int32, n)
	for k := range n {
		npred[k] = p.predStart[k+1] - p.predStart[k]
		t.bind[k] = -1
		t.end[k] = -1
		t.rank[k] = -1
	}
	readyAt := t.start // until issued
	slot := t.rank     // until issued
	free := make([]int64, p.nRes)
	window = max(window, 1)
	scanLimit := 4 * window
	win := make([]simCand, 0, window)
	var floor, blockMax int64
	curBlock, hb := int32(-1), int32(-1)
	head, frontier := 0, 0
	for issued := 0; issued < n; issued++ {
		if len(win) == 0 {
			head = frontier
			hb = p.block[list[head]]
			if hb != curBlock {
				floor = max(floor, blockMax)
				curBlock = hb
			}
		}
		for len(win) < window && frontier < n && frontier-head < scanLimit {
			k := list[frontier]
			if p.block[k] != hb {
				break
			}
			slot[k] = int32(len(win))
			win = append(win, simCand{ready: readyAt[k], j: int32(frontier), k: k, npred: npred[k], res: p.res[k], ports: p.ports[k]})
			frontier++
		}
		best, bestEst := -1, int64(0)
		qmin := int64(-1)
		for x := range win {
			c := &win[x]
			if c.npred > 0 {
				continue
			}
			// earliest(c.k, max(ready, floor), free), reading the
			// candidate instead of the tables.
			e := max(c.ready, floor)
			switch {
			case c.res >= 0:
				e = max(e, free[c.res])
			case c.res == resQueue && p.core == nil:
				// The first queue free: the same for every DMA of the
				// step, so computed once.
				if qmin < 0 {
					lo, hi := p.queueRange(c.k)
					qmin = slices.Min(free[lo:hi])
				}
				e = max(e, qmin)
			default:
				e = p.resFree(c.k, e, free)
			}
			if c.ports != 0 {
				e = p.portsFree(c.k, c.ports, e, free)
			}
			if best < 0 || e < bestEst || e == bestEst && c.j < win[best].j {
				best, bestEst = x, e
			}
		}
		k, j := win[best].k, int(win[best].j)
		// Take k out of the window (the last candidate moves to its slot).
		last := len(win) - 1
		if best != last {
			win[best] = win[last]
			slot[win[best].k] = int32(best)
		}
		win = win[:last]
		if j == head && len(win) > 0 {
			head = int(win[0].j)
			for x := 1; x < len(win); x++ {
				head = min(head, int(win[x].j))
			}
		}
		s := bestEst
		e := s + p.dur[k]
		t.start[k], t.end[k] = s, e
		t.rank[k] = int32(issued)
		t.makespan = max(t.makespan, e)
		blockMax = max(blockMax, s)
		t.res[k] = p.occupy(k, s, e, free)
		for _, sc := range p.succs(k) {
			npred[sc]--
			if e >= readyAt[sc] {
				readyAt[sc] = e
				t.bind[sc] = k
			}
			if x := slot[sc]; x >= 0 {
				win[x].npred--
				win[x].ready = readyAt[sc]
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

// simCand is one candidate of simulate's reorder window.
type simCand struct {
	ready int64 // when its predecessors have ended (so far)
	j     int32 // list index
	k     int32 // position
	npred int32 // predecessors not issued yet
	res   int32
	ports uint8
}

// earliest returns when position k can start at or after ready, given the
// resources' free times.
func (p *problem) earliest(k int32, ready int64, free []int64) int64 {
	return p.portsFree(k, p.ports[k], p.resFree(k, ready, free), free)
}

// resFree returns when position k's resource (engine, queue, or every
// resource for a call) is free, at or after s.
func (p *problem) resFree(k int32, s int64, free []int64) int64 {
	switch r := p.res[k]; {
	case r >= 0:
		s = max(s, free[r])
	case r == resAll:
		lo, hi := p.allRange(k)
		for _, x := range free[lo:hi] {
			s = max(s, x)
		}
	case r == resQueue:
		lo, hi := p.queueRange(k)
		m := free[lo]
		for _, x := range free[lo+1 : hi] {
			m = min(m, x)
		}
		s = max(s, m)
	}
	return s
}

// portsFree returns when the shared ports m of position k are free, at or
// after s.
func (p *problem) portsFree(k int32, m uint8, s int64, free []int64) int64 {
	if m&portSBUF != 0 {
		s = max(s, free[p.portOf(k, 0)])
	}
	if m&portPSUM != 0 {
		s = max(s, free[p.portOf(k, 1)])
	}
	return s
}

// occupy marks position k's resources busy from s until e and returns the
// resource it ran on: a DMA without a queue takes, among the queues free
// by s, the one that became free last (the others stay free longer for
// DMAs that are ready earlier), the lowest such on a tie.
func (p *problem) occupy(k int32, s, e int64, free []int64) int32 {
	r := p.res[k]
	switch {
	case r >= 0:
		free[r] = e
	case r == resAll:
		lo, hi := p.allRange(k)
		for x := lo; x < hi; x++ {
			free[x] = e
		}
	case r == resQueue:
		lo, hi := p.queueRange(k)
		best := int32(-1)
		for x := lo; x < hi; x++ {
			if free[x] <= s && (best < 0 || free[x] > free[best]) {
				best = x
			}
		}
		free[best] = e
		r = best
	}
	if m := p.ports[k]; m != 0 {
		if m&portSBUF != 0 {
			free[p.portOf(k, 0)] = e
		}
		if m&portPSUM != 0 {
			free[p.portOf(k, 1)] = e
		}
	}
	return r
}

// queueRange returns the DMA queues of position k's core.
func (p *problem) queueRange(k int32) (int32, int32) {
	lo := firstQueue
	if p.core != nil {
		lo += int32(p.core[k]) * p.stride
	}
	return lo, lo + int32(max(p.model.DMAQueues, 1))
}

// allRange returns the resources a call at position k occupies: every
// resource of its core.
func (p *problem) allRange(k int32) (int32, int32) {
	if p.core == nil {
		return 0, p.nRes
	}
	c := int32(p.core[k])
	return c * p.stride, (c + 1) * p.stride
}

// portOf returns the resource of shared port b (0: SBUF, 1: PSUM) of
// position k's core.
func (p *problem) portOf(k int32, b int) int32 {
	r := p.portR[b]
	if p.core != nil {
		r += int32(p.core[k]) * p.stride
	}
	return r
}

// programOrderMakespan is simulate(program order, window 1) keeping only
// the makespan (8 bytes per instruction).
func (p *problem) programOrderMakespan() int64 {
	n := len(p.insts)
	readyAt := make([]int64, n)
	free := make([]int64, p.nRes)
	var floor, blockMax, makespan int64
	curBlock := int32(-1)
	for k := range int32(n) {
		if hb := p.block[k]; hb != curBlock {
			floor = max(floor, blockMax)
			curBlock = hb
		}
		s := p.earliest(k, max(readyAt[k], floor), free)
		e := s + p.dur[k]
		blockMax = max(blockMax, s)
		makespan = max(makespan, e)
		p.occupy(k, s, e, free)
		for _, sc := range p.succs(k) {
			readyAt[sc] = max(readyAt[sc], e)
		}
	}
	return makespan
}

// linear returns each block's positions sorted by start (ties in issue
// order), blocks in order: the linearized schedule.
func (p *problem) linear(t *timeline) []int32 {
	n := len(p.insts)
	rank := t.rank
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
