package depgraph

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// The allocation's live intervals (design.md: "StageAllocated: ... no two
// simultaneously live allocations overlap"; the scheduler "respects every
// dependency and the allocation's live intervals").
//
// The byte-level edges order the accesses whose bytes conflict. An
// allocation says more: a location that reuses bytes of another is live
// only after the other is dead, whatever parts of them each access
// touches (the verifier's overlap rule checks live ranges of whole
// locations, in program order). When two accesses of two such locations
// touch disjoint parts (a partition piece of a tiled load, say), no byte
// conflict orders them, and a reordering would make both locations live
// at once. So, in physical mode, every access of an allocated SB or PSUM
// location also touches the location's whole rectangle (partitions x
// bytes; a PSUM location a start_tensor_calc matmul writes: whole banks,
// as its accumulation group owns them) in a lifetime space per memory,
// whose entries record an owning location and its touches:
//
//   - an access of location L to a range owned by another location M
//     depends (ORDERED) on every touch of M, and L takes the range over
//     (M's touches become the range's previous-owner list);
//   - an access of L to a range L owns depends on the previous owner's
//     touches, and joins L's;
//
// so every access of L follows every access of the location it reuses,
// in any order the scheduler picks. Accesses of one location are not
// ordered among themselves by it. Edges are candidates like any other
// (transitively reduced). In logical mode there is no sharing and no
// lifetime access.
//
// The previous owner's touches are not listed again for an access of L
// that already has a candidate edge on one of L's recent touches of the
// range (followsTouch): that touch follows every touch of the previous
// owner, so the reduction would drop them all. Without this an
// accumulation group of k matmuls (each reads and writes its PSUM
// location, so each has a FLOW edge on the one before) enumerated the
// previous group's k+1 touches k times: k^2 candidates per group, and past
// MaxReduceVisits the reduction gave up and kept them (a matmul with
// K = 32768, 256 matmuls per group, had 18 redundant ORDERED edges per
// instruction). The transitive reduction is unique, so where the bounded
// search reached its result before, the edges are the same.

// lifeInit records which PSUM locations a start_tensor_calc matmul writes
// (their lifetime rectangle is rounded to whole banks).
func (a *analyzer) lifeInit() {
	if a.opt.Mode != Physical {
		return
	}
	f := a.f
	a.bankOwner = make([]bool, f.NumLocs())
	a.lifeSeen = make([]int32, f.NumLocs())
	for k := range a.lifeSeen {
		a.lifeSeen[k] = -1
	}
	for _, i := range a.g.Insts {
		if !f.Inst(i).Op.IsMatmul() || !a.attrs(i).start {
			continue
		}
		for _, o := range f.Outs(i) {
			if o.Kind == bir.OpdPhysAP && int(o.Loc()) < f.NumLocs() {
				a.bankOwner[o.Loc()] = true
			}
		}
	}
}

// lifeAccesses appends the lifetime accesses of instruction i: one per
// allocated on-chip location it touches.
func (a *analyzer) lifeAccesses(i bir.InstID) {
	if a.lifeSeen == nil {
		return
	}
	f := a.f
	for _, o := range f.Operands(i) {
		if o.Kind != bir.OpdPhysAP || int(o.Loc()) >= f.NumLocs() {
			continue
		}
		l := o.Loc()
		lc := f.Loc(l)
		if !lc.Allocated || !lc.Type.IsOnChip() || a.lifeSeen[l] == int32(i) {
			continue
		}
		a.lifeSeen[l] = int32(i)
		key, r0, lo := spLifeSB, lc.Base, lc.Addr
		hi := lo + max(lc.Bytes, 1)
		if lc.Type == bir.MemPSUM {
			key = spLifePSUM
			lo = lc.Bank*a.bankBytes + lc.Addr
			hi = lo + max(lc.Bytes, 1)
			if a.bankOwner[l] {
				lo = lo / a.bankBytes * a.bankBytes
				hi = (hi + a.bankBytes - 1) / a.bankBytes * a.bankBytes
			}
		}
		a.accs = append(a.accs, access{key: key, r0: r0, r1: r0 + max(lc.Partitions, 1) - 1, lo: lo, hi: hi, loc: l})
	}
}

// life records a lifetime access of location l over [lo, hi) of one
// segment by position p (see the file comment).
func (a *analyzer) life(p int32, m *imap, lo, hi int64, l bir.LocID) {
	i, j := m.splitRange(lo, hi)
	ne := a.newEnts[:0]
	at := lo
	owner := int32(l)
	for k := i; k < j; k++ {
		e := m.ents[k]
		if e.lo > at {
			ne = append(ne, entry{lo: at, hi: e.lo, writer: owner, readers: a.push(-1, p), prev: -1})
		}
		if e.writer != owner {
			// Take over from the previous owner: after all its touches.
			for r := e.readers; r >= 0; r = a.cons[r].next {
				a.hazard(p, a.cons[r].pos, bir.DepOrdered)
			}
			e.writer, e.prev, e.readers = owner, e.readers, a.push(-1, p)
		} else {
			if !a.followsTouch(p, e.readers) {
				for r := e.prev; r >= 0; r = a.cons[r].next {
					a.hazard(p, a.cons[r].pos, bir.DepOrdered)
				}
			}
			e.readers = a.push(e.readers, p)
		}
		ne = append(ne, e)
		at = e.hi
	}
	if at < hi {
		ne = append(ne, entry{lo: at, hi: hi, writer: owner, readers: a.push(-1, p), prev: -1})
	}
	m.ents = slices.Replace(m.ents, i, j, ne...)
	a.newEnts = ne
}

// followsTouchDepth is how many of a range's most recent touches
// followsTouch looks at.
const followsTouchDepth = 8

// followsTouch reports whether the instruction at position p already has
// a candidate edge on one of the followsTouchDepth most recent touches in
// list r (the current owner's touches of a range since it took the range
// over, each ordered after every touch of the previous owner).
func (a *analyzer) followsTouch(p int32, r int32) bool {
	for k := 0; r >= 0 && k < followsTouchDepth; k++ {
		if q := a.cons[r].pos; q != p && a.stamp[q] == p {
			return true
		}
		r = a.cons[r].next
	}
	return false
}
