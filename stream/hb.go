package stream

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Tracker computes happens-before on a Layout, walking the instructions in
// program order, with vector clocks: row s holds, for every stream t, how
// many entries of t stream s knows to be complete (an engine entry that
// is a DMA trigger completes when the trigger fires; a queue entry when
// the transfer lands). The walk is in program order, which every wait
// must respect (a wait is satisfied by updates earlier in program order),
// so when an instruction is reached, everything it can have learnt is
// known.
//
// The caller drives it instruction by instruction: Issue (after acquiring
// the waits' knowledge with Acquire), then Complete; calls, barrier
// groups and Drain have their own steps. Snapshots of a row (taken at an
// update) are kept in one pool and joined into another row by Acquire.
//
// Snapshots are compressed: a snapshot is a stored row plus the stream's
// own entry, and a stream whose row changed only in its own entry since
// its last snapshot (no wait, join or barrier taught it anything) shares
// the stored row, so a long run of instructions that signal without
// waiting costs 8 bytes per snapshot, not a row.
//
// Snapshots are forgotten at a barrier: a barrier makes every present row
// the join of all rows, and rows only grow, so every snapshot taken before
// it is included in every row after it; acquiring one then teaches
// nothing. Their handles stay valid (Snap returns an empty row for them),
// and the stored rows and references are dropped, so the tracker holds
// the snapshots since the last barrier (a semaphore rotation or a call),
// not one per update of the whole function.
type Tracker struct {
	L    *Layout
	NS   int
	vc   []int32 // NS x NS
	trig []int32 // NS x NS: [e][q] DMAs of queue q triggered by engine stream e so far
	pool []int32 // stored rows
	snap []snapRef
	// dirty[s]: row s changed beyond its own entry since its last stored
	// row; last[s] is that row (-1 none).
	dirty []bool
	last  []int32
	buf   []int32
	// base is the handle of snap[0]: snapshots below it were taken before
	// the last barrier (forgotten).
	base int32
}

// snapRef is a snapshot: stored row, the stream and its own entry.
type snapRef struct {
	row int32
	s   int32
	own int32
}

// NewTracker returns a tracker at the start of L's function (nothing
// known).
func NewTracker(L *Layout) *Tracker {
	ns := L.NumStreams
	t := &Tracker{L: L, NS: ns, vc: make([]int32, ns*ns), trig: make([]int32, ns*ns), dirty: make([]bool, ns), last: make([]int32, ns), buf: make([]int32, ns)}
	for s := range t.last {
		t.last[s] = -1
	}
	return t
}

// Row returns stream s's knowledge (a view).
func (t *Tracker) Row(s ID) []int32 { return t.vc[int(s)*t.NS : int(s+1)*t.NS] }

// Snapshot records stream s's current row and returns its handle.
func (t *Tracker) Snapshot(s ID) int32 {
	r := t.last[s]
	if r < 0 || t.dirty[s] {
		r = int32(len(t.pool) / t.NS)
		t.pool = append(t.pool, t.Row(s)...)
		t.last[s], t.dirty[s] = r, false
	}
	t.snap = append(t.snap, snapRef{row: r, s: int32(s), own: t.Row(s)[s]})
	return t.base + int32(len(t.snap)-1)
}

// forget drops every snapshot (see the type comment: after a barrier).
func (t *Tracker) forget() {
	t.base += int32(len(t.snap))
	t.snap, t.pool = t.snap[:0], t.pool[:0]
	for s := range t.last {
		t.last[s], t.dirty[s] = -1, false
	}
}

// Reserve makes room for n snapshots (and as many stored rows).
func (t *Tracker) Reserve(n int) {
	t.snap = slices.Grow(t.snap, n)
	t.pool = slices.Grow(t.pool, n*t.NS)
}

// Snap returns snapshot k (a view valid until the next Snap); a snapshot
// taken before the last barrier is returned empty (every row includes it).
func (t *Tracker) Snap(k int32) []int32 {
	if k < t.base {
		clear(t.buf)
		return t.buf
	}
	ref := t.snap[k-t.base]
	copy(t.buf, t.pool[int(ref.row)*t.NS:int(ref.row+1)*t.NS])
	t.buf[ref.s] = ref.own
	return t.buf
}

// SnapKnows reports whether snapshot k includes entry pos of stream s
// (that is, knows more than pos entries of s).
// A snapshot taken before the last barrier answers false (its row is
// gone; every row now knows at least what it knew).
func (t *Tracker) SnapKnows(k int32, s ID, pos int32) bool {
	if k < t.base {
		return false
	}
	ref := t.snap[k-t.base]
	if ID(ref.s) == s {
		return ref.own > pos
	}
	return t.pool[int(ref.row)*t.NS+int(s)] > pos
}

// NumSnapshots returns the snapshots taken; StoredRows the rows held (for
// the snapshots since the last barrier).
func (t *Tracker) NumSnapshots() int { return int(t.base) + len(t.snap) }
func (t *Tracker) StoredRows() int   { return len(t.pool) / t.NS }

// Acquire joins snapshot k into stream s's row.
func (t *Tracker) Acquire(s ID, k int32) {
	if t.join(s, t.Snap(k)) {
		t.dirty[s] = true
	}
}

// join joins src into row s and reports whether an entry other than s's
// own grew.
func (t *Tracker) join(s ID, src []int32) bool {
	dst := t.Row(s)
	grew := false
	for j, v := range src {
		if v > dst[j] {
			dst[j] = v
			if j != int(s) {
				grew = true
			}
		}
	}
	return grew
}

func join(dst, src []int32) {
	for j, v := range src {
		if v > dst[j] {
			dst[j] = v
		}
	}
}

// KnowsIn reports whether knowledge row r includes the completion of
// instruction p.
func (t *Tracker) KnowsIn(r []int32, p bir.InstID) bool {
	s := t.L.DoneStream(p)
	if s == None {
		return true
	}
	return r[s] > t.L.DonePos(p)
}

// Issue performs the steps before instruction x reads its sources, once
// its waits have been acquired into its wait stream, and returns the
// stream whose row is x's knowledge at issue: an engine instruction's
// engine; for a DMA, the trigger fires (the trigger engine's entry
// completes) and the queue learns what the trigger engine knew. Calls and
// barriers have their own steps (Call, Barrier).
func (t *Tracker) Issue(x bir.InstID) ID {
	L := t.L
	e := L.Eng[x]
	q := L.Q[x]
	if q == None {
		return e
	}
	if e != None {
		re := t.Row(e)
		re[e] = L.EPos[x] + 1
		if t.join(q, re) {
			t.dirty[q] = true
		}
		t.trig[int(e)*t.NS+int(q)] = L.QPos[x] + 1
	}
	return q
}

// Complete records the completion of instruction x on its DoneStream.
func (t *Tracker) Complete(x bir.InstID) {
	s := t.L.DoneStream(x)
	if s == None {
		return
	}
	t.Row(s)[s] = t.L.DonePos(x) + 1
}

// Drain gives engine stream e the knowledge that every DMA it triggered
// so far has completed (their queue positions only: a sound
// under-approximation of what the DMAs knew).
func (t *Tracker) Drain(e ID) {
	if t.join(e, t.trig[int(e)*t.NS:int(e+1)*t.NS]) {
		t.dirty[e] = true
	}
}

// Barrier is an all-stream synchronization at which every engine stream
// completes the entry at pos[s] (pos[s] < 0: the stream takes no part
// but still learns) and every queue has completed what was triggered:
// every present row becomes the join of all rows.
func (t *Tracker) Barrier(pos []int32) {
	L := t.L
	for s := 0; s < t.NS; s++ {
		if L.Present[s] && s < len(pos) && pos[s] >= 0 {
			t.Row(ID(s))[s] = pos[s] + 1
		}
	}
	all := make([]int32, t.NS)
	for s := 0; s < t.NS; s++ {
		if L.Present[s] {
			join(all, t.Row(ID(s)))
		}
	}
	for s := 0; s < t.NS; s++ {
		if L.Present[s] {
			copy(t.Row(ID(s)), all)
			t.dirty[s] = true
		}
	}
	t.forget()
}

// Call performs call number k of the layout (a barrier at its positions).
func (t *Tracker) Call(k int) { t.Barrier(t.L.CallPos[k]) }
