// The exact search: lowest-point branching over canonical placements.
//
// Canonical placements (the insight of MiniMalloc, Moffitt, ASPLOS 2023):
// any feasible placement can be "dropped": move any buffer that can go lower
// to a lower legal offset until none can. In the result every buffer rests
// at legal(0) or at legal(top of a buffer or fixed obstacle it overlaps in
// time). Building such a placement bottom-up, in non-decreasing offset
// order, each buffer goes exactly at its "minOffset": the lowest legal
// offset above the tops of the already placed buffers it overlaps. So a
// search that only ever places buffers at their minOffset, at the lowest
// level first, is complete.
//
// How this search branches (our design, differing from MiniMalloc's):
//
//   - Level: L is the lowest minOffset of any unplaced choice. Every cell
//     (time section x lane) where some choice sits at L is an open "point".
//   - Point: in a canonical placement, point (cell, L) is either covered by
//     a buffer whose offset is exactly L (a choice at L covering the cell:
//     a "filler"), or it stays empty. The search picks one point and
//     branches over its fillers, then over "leave it empty". This is a
//     partition of the canonical placements, so nothing is explored twice.
//   - Empty: if the point stays empty, each filler must rest higher, on
//     the top of an unplaced overlapping choice (or a fixed obstacle), so
//     its minOffset rises to legal(min over those of minOffset+size). When
//     the cell has no slack (its remaining demand equals capacity - L) the
//     empty branch is skipped outright.
//   - Which point: first a forced one (a single filler and no slack: no
//     branching at all); otherwise, in "point" mode, the point with the
//     fewest alternatives (first-fail); in "hybrid" mode, the most
//     constrained cell of the best-ranked choice at level L (the buffer a
//     static preorder says matters most, as MiniMalloc's dynamic ordering
//     would place next). Fillers are tried in static preorder.
//
// Inference (prunes a node): every cell keeps the demand of the unplaced
// buffers that surely cover it (total) and the count of alive choices
// covering it whose minOffset <= capacity - total (cellOK). If a cell has
// demand but cellOK drops to 0, the lowest anything can start there is too
// high for the demand to fit: prune. This is MiniMalloc's cross-section
// inference with its "unallocated floor", maintained by counting instead of
// rescanning the cells (a raise only compares against the cell's threshold;
// only the placed buffer's own cells are rescanned when their threshold
// moves). A choice whose minOffset+size exceeds the capacity dies; an item
// with no alive choice prunes.
//
// Symmetry (ours): identical buffers (same live range, size, alignment and
// choices) are interchangeable, so a buffer is placed only after its
// identical predecessor; with placements in non-decreasing offset order
// this keeps one of the k! equivalent arrangements of k twins.
//
// Decomposition (MiniMalloc's dynamic decomposition): when no unplaced
// buffer spans a section boundary any more, the sections on either side
// are independent. The search then solves the parts one after the other,
// smallest first, and fails as soon as one fails.
//
// Memo of failures (ours): the subtree under a node depends only on the
// alive choices and their minOffsets, so exhausted states are remembered by
// a Zobrist hash and never searched again. Inside a part of a decomposition
// the key is the part's own state (its items only), so a part that failed
// is refuted at once when it reappears under a different placement of
// unrelated buffers elsewhere: this cuts the thrashing of depth-first
// search between independent regions.
//
// The search is deterministic; it stops at its node limit, the deadline,
// cancellation of the context, or a portfolio stop flag.
package pack

import (
	"math"
	"slices"
	"sync/atomic"
	"time"
)

type searchOutcome int

const (
	outcomeFound     searchOutcome = iota // a placement was found
	outcomeExhausted                      // proven: no placement exists
	outcomeAborted                        // gave up (limit, deadline, stop)
)

type undoKind uint8

const (
	undoMinOffset undoKind = iota
	undoKill
	undoCellOK
	undoTotal
	undoPlace
)

type undoEntry struct {
	kind  undoKind
	index int32
	count int32
	value int64
}

// piece is an independent part of the remaining problem: sections
// [lo, hi), the items inside, and the hash of the state outside the piece
// (XORed away to key the memo by the piece's own state).
type piece struct {
	lo, hi  int32
	items   []int32
	outside uint64
}

const unreachable = math.MaxInt64 / 4

type searchMode uint8

const (
	modePoint  searchMode = iota // first-fail point
	modeHybrid                   // best-ranked choice's most constrained cell
)

type pointSearch struct {
	m    *exactModel
	rank []int32 // item -> position in the static preorder
	mode searchMode

	offset   []int64 // per item, -1 while unplaced
	solution []int64 // per item, written at every placement
	chosen   []int32 // per item, the choice used

	minOffset  []int64 // per choice
	alive      []bool
	aliveCount []int32 // per item

	cellTotal []int64 // per cell: sizes of unplaced items surely covering it
	cellOK    []int32 // per cell: alive choices with minOffset <= capacity-total
	cut       []int32 // per boundary k|k+1: unplaced items spanning it

	undo     []undoEntry
	zeroCuts []int32
	failed   bool

	hash  uint64
	memo  *failMemo
	stop  *atomic.Bool
	nodes int64
	limit int64

	deadline time.Time
	done     <-chan struct{}
	stopped  bool
	// pause, when set, is called at the node limit: it returns true when
	// the search may go on (the limit was raised), false to give up.
	pause func() bool

	// Scratch.
	atLevel  []int32
	cellMark []int32
	touched  []int32
	fillers  [][]int32
	rests    []int64
}

func mix64(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

func choiceKey(c int32, off int64) uint64 {
	return mix64(uint64(c)*0x9E3779B97F4A7C15 ^ uint64(off)*0xD6E8FEB86659FD93 ^ 0x5851F42D4C957F2D)
}

func newPointSearch(m *exactModel, rank []int32, mode searchMode, memo *failMemo) *pointSearch {
	ni, nc, ncell := m.numItems(), m.numChoices(), m.numCells()
	e := &pointSearch{
		m: m, rank: rank, mode: mode, memo: memo,
		offset:     make([]int64, ni),
		solution:   make([]int64, ni),
		chosen:     make([]int32, ni),
		minOffset:  make([]int64, nc),
		alive:      make([]bool, nc),
		aliveCount: make([]int32, ni),
		cellTotal:  make([]int64, ncell),
		cellOK:     make([]int32, ncell),
		cut:        make([]int32, max(m.numSections-1, 0)),
		cellMark:   make([]int32, ncell),
		limit:      math.MaxInt64,
	}
	for i := range e.offset {
		e.offset[i] = -1
		e.solution[i] = -1
	}
	for it := 0; it < ni; it++ {
		for l := m.sureLane0[it]; l < m.sureLane1[it]; l++ {
			for s := m.s0[it]; s < m.s1[it]; s++ {
				e.cellTotal[int(l)*m.numSections+int(s)] += m.size[it]
			}
		}
		for k := m.s0[it]; k+1 < m.s1[it]; k++ {
			e.cut[k]++
		}
	}
	for c := 0; c < nc; c++ {
		it := m.choiceItem[c]
		off := m.legal(int32(c), 0)
		e.minOffset[c] = off
		if off+m.size[it] <= m.capacity {
			e.alive[c] = true
			e.aliveCount[it]++
			e.hash ^= choiceKey(int32(c), off)
		}
	}
	for cell := 0; cell < ncell; cell++ {
		e.cellOK[cell] = e.countBetween(cell, -1, m.capacity-e.cellTotal[cell])
	}
	return e
}

// countBetween counts alive choices covering cell with lo < minOffset <= hi.
func (e *pointSearch) countBetween(cell int, lo, hi int64) int32 {
	m := e.m
	var n int32
	for _, c := range m.cellChoices[m.cellStart[cell]:m.cellStart[cell+1]] {
		if e.alive[c] {
			if off := e.minOffset[c]; off > lo && off <= hi {
				n++
			}
		}
	}
	return n
}

// leave updates cellOK after choice c moved from minOffset old to now
// (unreachable when it died).
func (e *pointSearch) leave(c int32, old, now int64) {
	m := e.m
	it := m.choiceItem[c]
	for l := m.lane0[c]; l < m.lane1[c]; l++ {
		base := int(l) * m.numSections
		for s := m.s0[it]; s < m.s1[it]; s++ {
			cell := base + int(s)
			need := m.capacity - e.cellTotal[cell]
			if old <= need && now > need {
				e.undo = append(e.undo, undoEntry{kind: undoCellOK, index: int32(cell), count: e.cellOK[cell]})
				e.cellOK[cell]--
				if e.cellOK[cell] == 0 && e.cellTotal[cell] > 0 {
					e.failed = true
				}
			}
		}
	}
}

func (e *pointSearch) kill(c int32) {
	it := e.m.choiceItem[c]
	e.alive[c] = false
	e.aliveCount[it]--
	e.hash ^= choiceKey(c, e.minOffset[c])
	e.undo = append(e.undo, undoEntry{kind: undoKill, index: c})
	e.leave(c, e.minOffset[c], unreachable)
	if e.aliveCount[it] == 0 && e.offset[it] < 0 {
		e.failed = true
	}
}

// raise lifts choice c to the lowest legal offset >= x (killing it when
// that no longer fits).
func (e *pointSearch) raise(c int32, x int64) {
	m := e.m
	old := e.minOffset[c]
	if x <= old {
		return
	}
	now := int64(unreachable)
	if x < unreachable {
		now = m.legal(c, x)
	}
	if now+m.size[m.choiceItem[c]] > m.capacity {
		e.kill(c)
		return
	}
	e.undo = append(e.undo, undoEntry{kind: undoMinOffset, index: c, value: old})
	e.minOffset[c] = now
	e.hash ^= choiceKey(c, old) ^ choiceKey(c, now)
	e.leave(c, old, now)
}

// place puts choice c at offset off (its minOffset) and propagates.
func (e *pointSearch) place(c int32, off int64) {
	m := e.m
	it := m.choiceItem[c]
	sz := m.size[it]
	e.offset[it] = off
	e.solution[it] = off
	e.chosen[it] = c
	e.undo = append(e.undo, undoEntry{kind: undoPlace, index: it})
	// The demand leaves the item's sure cells first (so that the item's own
	// choices leaving below do not count against those cells): each cell's
	// threshold rises by sz, admitting choices in (old, old+sz].
	for l := m.sureLane0[it]; l < m.sureLane1[it]; l++ {
		base := int(l) * m.numSections
		for s := m.s0[it]; s < m.s1[it]; s++ {
			cell := base + int(s)
			old := m.capacity - e.cellTotal[cell]
			e.undo = append(e.undo, undoEntry{kind: undoTotal, index: int32(cell), count: e.cellOK[cell], value: e.cellTotal[cell]})
			e.cellTotal[cell] -= sz
			e.cellOK[cell] += e.countBetween(cell, old, old+sz)
		}
	}
	for d := m.firstChoice[it]; d < m.firstChoice[it+1]; d++ {
		if e.alive[d] {
			e.kill(d)
		}
	}
	e.zeroCuts = e.zeroCuts[:0]
	for k := m.s0[it]; k+1 < m.s1[it]; k++ {
		e.cut[k]--
		if e.cut[k] == 0 {
			e.zeroCuts = append(e.zeroCuts, k)
		}
	}
	top := off + sz
	for _, d := range m.neighbors[m.neighborStart[c]:m.neighborStart[c+1]] {
		if e.alive[d] && e.minOffset[d] < top {
			e.raise(d, top)
		}
	}
}

func (e *pointSearch) rollback(mark int) {
	m := e.m
	for k := len(e.undo) - 1; k >= mark; k-- {
		u := e.undo[k]
		switch u.kind {
		case undoMinOffset:
			e.minOffset[u.index] = u.value
		case undoKill:
			e.alive[u.index] = true
			e.aliveCount[m.choiceItem[u.index]]++
		case undoCellOK:
			e.cellOK[u.index] = u.count
		case undoTotal:
			e.cellTotal[u.index], e.cellOK[u.index] = u.value, u.count
		case undoPlace:
			it := u.index
			e.offset[it] = -1
			for k := m.s0[it]; k+1 < m.s1[it]; k++ {
				e.cut[k]++
			}
		}
	}
	e.undo = e.undo[:mark]
}

func (e *pointSearch) expired() bool {
	if e.stopped {
		return true
	}
	if e.nodes&255 == 0 {
		if e.stop != nil && e.stop.Load() {
			e.stopped = true
		}
		if !e.deadline.IsZero() && !time.Now().Before(e.deadline) {
			e.stopped = true
		}
		if e.done != nil {
			select {
			case <-e.done:
				e.stopped = true
			default:
			}
		}
	}
	return e.stopped
}

// restAbove is the lowest offset above level at which choice c could rest
// if it is not placed at level: on an unplaced overlapping choice or on a
// fixed obstacle.
func (e *pointSearch) restAbove(c int32, level int64) int64 {
	m := e.m
	best := int64(unreachable)
	for _, d := range m.neighbors[m.neighborStart[c]:m.neighborStart[c+1]] {
		if e.alive[d] {
			best = min(best, e.minOffset[d]+m.size[m.choiceItem[d]])
		}
	}
	if m.choiceObstacles != nil {
		for _, o := range m.choiceObstacles[c] {
			if o.hi > level {
				best = min(best, o.hi)
			}
		}
	}
	return best
}

// pointScore is the number of ways point (cell, level) can be settled.
func (e *pointSearch) pointScore(cell int32, level int64) (score int32, slack int64) {
	score = e.cellMark[cell]
	slack = e.m.capacity - e.cellTotal[cell] - level
	if slack > 0 {
		score++ // leaving it empty is an option
	}
	return score, slack
}

func betterPoint(score int32, slack int64, cell int32, bestScore int32, bestSlack int64, bestCell int32) bool {
	if score != bestScore {
		return score < bestScore
	}
	if slack != bestSlack {
		return slack < bestSlack
	}
	return cell < bestCell
}

func (e *pointSearch) search(p *piece, depth int) searchOutcome {
	e.nodes++
	if e.nodes > e.limit && (e.pause == nil || !e.pause()) {
		return outcomeAborted
	}
	if e.expired() {
		return outcomeAborted
	}
	if e.memo != nil && e.memo.contains(e.hash^p.outside) {
		return outcomeExhausted
	}
	m := e.m
	level := int64(unreachable)
	remaining := false
	for _, it := range p.items {
		if e.offset[it] >= 0 {
			continue
		}
		remaining = true
		for c := m.firstChoice[it]; c < m.firstChoice[it+1]; c++ {
			if e.alive[c] {
				level = min(level, e.minOffset[c])
			}
		}
	}
	if !remaining {
		return outcomeFound
	}
	atLevel := e.atLevel[:0]
	for _, it := range p.items {
		if e.offset[it] >= 0 {
			continue
		}
		for c := m.firstChoice[it]; c < m.firstChoice[it+1]; c++ {
			if e.alive[c] && e.minOffset[c] == level {
				atLevel = append(atLevel, int32(c))
			}
		}
	}
	e.atLevel = atLevel
	if len(atLevel) == 0 {
		return outcomeExhausted
	}
	touched := e.touched[:0]
	for _, c := range atLevel {
		it := m.choiceItem[c]
		for l := m.lane0[c]; l < m.lane1[c]; l++ {
			base := int(l) * m.numSections
			for s := m.s0[it]; s < m.s1[it]; s++ {
				cell := base + int(s)
				if e.cellMark[cell] == 0 {
					touched = append(touched, int32(cell))
				}
				e.cellMark[cell]++
			}
		}
	}
	e.touched = touched
	bestCell, bestScore, bestSlack := int32(-1), int32(math.MaxInt32), int64(unreachable)
	for _, cell := range touched {
		score, slack := e.pointScore(cell, level)
		if betterPoint(score, slack, cell, bestScore, bestSlack, bestCell) {
			bestCell, bestScore, bestSlack = cell, score, slack
		}
	}
	if bestScore > 1 && e.mode == modeHybrid {
		lead := atLevel[0]
		for _, c := range atLevel[1:] {
			if e.rank[m.choiceItem[c]] < e.rank[m.choiceItem[lead]] {
				lead = c
			}
		}
		it := m.choiceItem[lead]
		bestCell, bestScore, bestSlack = -1, math.MaxInt32, unreachable
		for l := m.lane0[lead]; l < m.lane1[lead]; l++ {
			for s := m.s0[it]; s < m.s1[it]; s++ {
				cell := int32(int(l)*m.numSections + int(s))
				score, slack := e.pointScore(cell, level)
				if betterPoint(score, slack, cell, bestScore, bestSlack, bestCell) {
					bestCell, bestScore, bestSlack = cell, score, slack
				}
			}
		}
	}
	for _, cell := range touched {
		e.cellMark[cell] = 0
	}
	for len(e.fillers) <= depth {
		e.fillers = append(e.fillers, nil)
	}
	lane, sec := bestCell/int32(m.numSections), bestCell%int32(m.numSections)
	fillers := e.fillers[depth][:0]
	for _, c := range atLevel {
		it := m.choiceItem[c]
		if m.lane0[c] <= lane && lane < m.lane1[c] && m.s0[it] <= sec && sec < m.s1[it] {
			fillers = append(fillers, c)
		}
	}
	slices.SortFunc(fillers, func(a, b int32) int {
		if ra, rb := e.rank[m.choiceItem[a]], e.rank[m.choiceItem[b]]; ra != rb {
			return int(ra - rb)
		}
		return int(a - b)
	})
	e.fillers[depth] = fillers
	hash := e.hash
	for k := range fillers {
		c := e.fillers[depth][k]
		if twin := m.twinBefore[m.choiceItem[c]]; twin >= 0 && e.offset[twin] < 0 {
			continue // an identical twin still waits: it goes first
		}
		mark := len(e.undo)
		e.failed = false
		e.place(c, level)
		outcome := outcomeExhausted
		if !e.failed {
			if len(e.zeroCuts) == 0 {
				outcome = e.search(p, depth+1)
			} else {
				outcome = e.decompose(p, depth+1)
			}
		}
		e.rollback(mark)
		e.hash = hash
		if outcome != outcomeExhausted {
			return outcome
		}
	}
	if bestSlack > 0 {
		// Leave the point empty: every filler rests higher.
		fillers = e.fillers[depth]
		mark := len(e.undo)
		e.failed = false
		rests := e.rests[:0]
		for _, c := range fillers {
			rests = append(rests, e.restAbove(c, level))
		}
		e.rests = rests
		for k, c := range fillers {
			if e.alive[c] {
				e.raise(c, rests[k])
			}
		}
		outcome := outcomeExhausted
		if !e.failed {
			outcome = e.search(p, depth+1)
		}
		e.rollback(mark)
		e.hash = hash
		if outcome != outcomeExhausted {
			return outcome
		}
	}
	if e.memo != nil {
		e.memo.insert(hash ^ p.outside)
	}
	return outcomeExhausted
}

// decompose splits p at the boundaries whose cut just dropped to zero and
// solves the parts (smallest first); the whole succeeds iff every part does.
func (e *pointSearch) decompose(p *piece, depth int) searchOutcome {
	m := e.m
	cuts := slices.Clone(e.zeroCuts)
	slices.Sort(cuts)
	bounds := make([]int32, 0, len(cuts)+1)
	for _, k := range cuts {
		if k+1 > p.lo && k+1 < p.hi {
			bounds = append(bounds, k+1)
		}
	}
	bounds = append(bounds, p.hi)
	var parts []piece
	lo := p.lo
	for _, hi := range bounds {
		part := piece{lo: lo, hi: hi}
		var local uint64
		for _, it := range p.items {
			if e.offset[it] >= 0 || m.s0[it] < lo || m.s1[it] > hi {
				continue
			}
			part.items = append(part.items, it)
			for c := m.firstChoice[it]; c < m.firstChoice[it+1]; c++ {
				if e.alive[c] {
					local ^= choiceKey(c, e.minOffset[c])
				}
			}
		}
		lo = hi
		if len(part.items) == 0 {
			continue
		}
		part.outside = e.hash ^ local ^ mix64(uint64(part.lo)<<32|uint64(part.hi))
		parts = append(parts, part)
	}
	slices.SortStableFunc(parts, func(a, b piece) int { return len(a.items) - len(b.items) })
	for k := range parts {
		if out := e.search(&parts[k], depth); out != outcomeFound {
			return out
		}
	}
	return outcomeFound
}

// run searches from the empty placement.
func (e *pointSearch) run() searchOutcome {
	m := e.m
	for it := 0; it < m.numItems(); it++ {
		if e.aliveCount[it] == 0 {
			return outcomeExhausted
		}
	}
	for cell := 0; cell < m.numCells(); cell++ {
		if e.cellTotal[cell] > 0 && e.cellOK[cell] == 0 {
			return outcomeExhausted
		}
	}
	root := piece{lo: 0, hi: int32(m.numSections), items: make([]int32, m.numItems())}
	for i := range root.items {
		root.items[i] = int32(i)
	}
	return e.search(&root, 0)
}

// failMemo is a table of hashes of states proven to have no completion
// (two-way set associative; a newer entry evicts when both ways are taken).
// It starts small and doubles, up to 2^maxLog entries, when three quarters
// of its slots are taken, so that its memory follows the work done. A false
// match needs a 64-bit hash collision.
type failMemo struct {
	keys   []uint64
	mask   uint64
	used   int
	maxLog int
}

func newFailMemo(logSize, maxLog int) *failMemo {
	logSize = min(logSize, maxLog)
	return &failMemo{keys: make([]uint64, 1<<logSize), mask: 1<<logSize - 1, maxLog: maxLog}
}

func (t *failMemo) contains(h uint64) bool {
	h |= 1 // 0 marks an empty slot
	i := h & t.mask
	return t.keys[i] == h || t.keys[i^1] == h
}

func (t *failMemo) insert(h uint64) {
	if 4*t.used >= 3*len(t.keys) && len(t.keys) < 1<<t.maxLog {
		old := t.keys
		t.keys, t.mask, t.used = make([]uint64, 2*len(old)), uint64(2*len(old)-1), 0
		for _, k := range old {
			if k != 0 {
				t.put(k)
			}
		}
	}
	t.put(h | 1)
}

func (t *failMemo) put(h uint64) {
	i := h & t.mask
	switch {
	case t.keys[i] == 0:
		t.keys[i] = h
		t.used++
	case t.keys[i] == h:
	case t.keys[i^1] == 0:
		t.keys[i^1] = h
		t.used++
	case t.keys[i^1] == h:
	default:
		t.keys[i^1], t.keys[i] = t.keys[i], h
	}
}
