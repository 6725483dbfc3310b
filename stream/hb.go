package stream

import (
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
type Tracker struct {
	L    *Layout
	NS   int
	vc   []int32 // NS x NS
	trig []int32 // NS x NS: [e][q] DMAs of queue q triggered by engine stream e so far
	pool []int32
}

// NewTracker returns a tracker at the start of L's function (nothing
// known).
func NewTracker(L *Layout) *Tracker {
	ns := L.NumStreams
	return &Tracker{L: L, NS: ns, vc: make([]int32, ns*ns), trig: make([]int32, ns*ns)}
}

// Row returns stream s's knowledge (a view).
func (t *Tracker) Row(s ID) []int32 { return t.vc[int(s)*t.NS : int(s+1)*t.NS] }

// Snapshot stores stream s's current row and returns its handle.
func (t *Tracker) Snapshot(s ID) int32 {
	k := int32(len(t.pool) / t.NS)
	t.pool = append(t.pool, t.Row(s)...)
	return k
}

// Snap returns snapshot k (a view).
func (t *Tracker) Snap(k int32) []int32 { return t.pool[int(k)*t.NS : int(k+1)*t.NS] }

// NumSnapshots returns the snapshots taken.
func (t *Tracker) NumSnapshots() int { return len(t.pool) / t.NS }

// Acquire joins snapshot k into stream s's row.
func (t *Tracker) Acquire(s ID, k int32) { join(t.Row(s), t.Snap(k)) }

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
		join(t.Row(q), re)
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
	r := t.Row(e)
	tr := t.trig[int(e)*t.NS : int(e+1)*t.NS]
	join(r, tr)
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
		}
	}
}

// Call performs call number k of the layout (a barrier at its positions).
func (t *Tracker) Call(k int) { t.Barrier(t.L.CallPos[k]) }
