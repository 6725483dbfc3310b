package sched

import (
	"math/bits"
	"slices"
)

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
// unissued positions in [head, frontier): it is kept as a small array
// (win) that grows at the frontier and loses the issued instruction.
//
// The choice. A candidate's earliest start is max(its ready time, T)
// where T, the time its resource and ports are free (and the block
// floor), is the same for every candidate of its class: the same
// resource, ports and core. So the ready candidates are kept per class
// in two heaps: those ready by T (the class's start is T: the first in
// list order wins, a heap by list index) and those ready later (a heap by
// ready time, then list index); T only grows, so candidates move from
// the second heap to the first. A step compares one candidate per class,
// not every candidate of the window: the smallest (start, list index),
// as the scan in list order keeping the first strictly earlier start
// chose.
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
	win := make([]int32, 0, window) // positions
	winJ := make([]int32, 0, window)
	// inWin marks the list indices in the window, modulo its span
	// (frontier - head < scanLimit): the next head is the first mark after
	// the old one, found word by word.
	span := 64
	for span < scanLimit {
		span <<= 1
	}
	inWin := make([]uint64, span/64)
	cls := newSimClasses(p)
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
			win, winJ = append(win, k), append(winJ, int32(frontier))
			inWin[(frontier&(span-1))>>6] |= 1 << (frontier & 63)
			if npred[k] == 0 {
				cls.add(simCand{ready: readyAt[k], j: int32(frontier), k: k})
			}
			frontier++
		}
		c := cls.pick(floor, free)
		k, s := c.k, c.ready
		// Take k out of the window (the last entry moves to its slot).
		x, last := slot[k], len(win)-1
		if int(x) != last {
			win[x], winJ[x] = win[last], winJ[last]
			slot[win[x]] = x
		}
		win, winJ = win[:last], winJ[:last]
		inWin[(int(c.j)&(span-1))>>6] &^= 1 << (c.j & 63)
		if int(c.j) == head && len(win) > 0 {
			head = nextMark(inWin, head, span)
		}
		e := p.endOf(k, s, readyAt[k], free)
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
			if npred[sc] == 0 && slot[sc] >= 0 {
				cls.add(simCand{ready: readyAt[sc], j: winJ[slot[sc]], k: sc})
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

// nextMark returns the smallest list index after head whose mark is set
// in inWin (marks modulo span; one is set within span of head).
func nextMark(inWin []uint64, head, span int) int {
	from := (head + 1) & (span - 1)
	w := from >> 6
	word := inWin[w] &^ (1<<(from&63) - 1)
	for word == 0 {
		w = (w + 1) % len(inWin)
		word = inWin[w]
	}
	at := w<<6 | bits.TrailingZeros64(word)
	return head + 1 + (at-from+span)&(span-1)
}

// simCand is a ready candidate of simulate's reorder window: when its
// predecessors have all ended, its list index, its position.
type simCand struct {
	ready int64
	j     int32
	k     int32
}

// simClass is the ready candidates of one class (resource, ports, core):
// byJ those ready by the class's last threshold, byReady the others.
type simClass struct {
	rep     int32 // a position of the class (for its resource and ports)
	byJ     []simCand
	byReady []simCand
}

// simClasses is simulate's candidates by class.
type simClasses struct {
	p      *problem
	index  []int32 // class key -> index in all, -1 none yet
	all    []simClass
	ncores int32
}

func newSimClasses(p *problem) *simClasses {
	nc := int32(1)
	for _, c := range p.core {
		nc = max(nc, int32(c)+1)
	}
	idx := make([]int32, int(p.nRes+3)*4*int(nc))
	for k := range idx {
		idx[k] = -1
	}
	return &simClasses{p: p, index: idx, ncores: nc}
}

// add makes c a candidate (first into byReady: pick moves it).
func (cs *simClasses) add(c simCand) {
	p := cs.p
	key := (p.res[c.k]+3)*4 + int32(p.ports[c.k])
	key *= cs.ncores
	if p.core != nil {
		key += int32(p.core[c.k])
	}
	x := cs.index[key]
	if x < 0 {
		x = int32(len(cs.all))
		cs.index[key] = x
		cs.all = append(cs.all, simClass{rep: c.k})
	}
	cl := &cs.all[x]
	cl.byReady = heapPush(cl.byReady, c, readyLess)
}

// pick removes and returns the candidate that starts first (ties: the
// smallest list index), with its start in ready.
func (cs *simClasses) pick(floor int64, free []int64) simCand {
	best, bestX, bestA := simCand{k: -1}, -1, false
	for x := range cs.all {
		cl := &cs.all[x]
		if len(cl.byJ) == 0 && len(cl.byReady) == 0 {
			continue
		}
		th := cs.p.earliest(cl.rep, floor, free)
		for len(cl.byReady) > 0 && cl.byReady[0].ready <= th {
			var c simCand
			cl.byReady, c = heapPop(cl.byReady, readyLess)
			cl.byJ = heapPush(cl.byJ, c, jLess)
		}
		var c simCand
		inA := len(cl.byJ) > 0
		if inA {
			c = cl.byJ[0]
			c.ready = th
		} else {
			c = cl.byReady[0]
		}
		if best.k < 0 || c.ready < best.ready || c.ready == best.ready && c.j < best.j {
			best, bestX, bestA = c, x, inA
		}
	}
	cl := &cs.all[bestX]
	if bestA {
		cl.byJ, _ = heapPop(cl.byJ, jLess)
	} else {
		cl.byReady, _ = heapPop(cl.byReady, readyLess)
	}
	return best
}

func jLess(a, b *simCand) bool { return a.j < b.j }
func readyLess(a, b *simCand) bool {
	return a.ready < b.ready || a.ready == b.ready && a.j < b.j
}

// heapPush and heapPop keep a binary min-heap under less.
func heapPush(h []simCand, c simCand, less func(a, b *simCand) bool) []simCand {
	h = append(h, c)
	for k := len(h) - 1; k > 0; {
		p := (k - 1) / 2
		if !less(&h[k], &h[p]) {
			break
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
	return h
}

func heapPop(h []simCand, less func(a, b *simCand) bool) ([]simCand, simCand) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for k := 0; ; {
		l := 2*k + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			c = r
		}
		if !less(&h[c], &h[k]) {
			break
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
	return h, top
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

// endOf returns when position k, started at s with its inputs ready at
// ready, ends: a compute instruction's work starts at s, or at ready plus
// its readiness latency if that is later (the latency of a dependent or
// idle-start instruction; arch/cost.go); a DMA's transfer starts after
// its fixed latency, once every DMA engine it needs is free, and lasts
// its duration less the fixed latency. Monotone in s, ready and the free
// times, as the exhaustive search's left-shift argument needs.
func (p *problem) endOf(k int32, s, ready int64, free []int64) int64 {
	pre := p.preOf(k)
	if p.isDMA(k) {
		t := s + pre
		for m := p.maskOf(k); m != 0; m &= m - 1 {
			t = max(t, free[p.dmaEngineRes(k, bits.TrailingZeros64(m))])
		}
		return t + p.dur[k] - pre
	}
	if pre > 0 {
		s = max(s, ready+pre)
	}
	return s + p.dur[k]
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
	for m := p.maskOf(k); m != 0; m &= m - 1 {
		free[p.dmaEngineRes(k, bits.TrailingZeros64(m))] = e
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
		e := p.endOf(k, s, readyAt[k], free)
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
