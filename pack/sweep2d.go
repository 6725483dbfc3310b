// Sweep2D: the time-ordered 2-D allocator for very large SBUF and PSUM
// problems (millions of tiles of an unrolled kernel), with a reuse policy.
//
// Tensors are visited by the start of their interval (ties by index);
// before each, the tensors whose interval ended are freed. A tensor's
// choices are its legal start partitions (the quadrant rule: one lane run
// per start, as in the exact model) and, for each, the free regions of the
// byte range common to the lanes it covers, at the lowest legal offset of
// the region (alignment, the PSUM bank rule, and the fixed tensors live at
// any instant of its interval); under ReuseOldestFreed also at the start
// and end of every stretch of the region freed at one time. Among the
// positions that fit below the current peak (the highest byte any placed
// tensor reaches, over all lanes), the policy chooses:
//
//   - ReuseOldestFreed (default): the region whose previous occupants were
//     freed longest ago (never-used bytes first). Reusing an address
//     orders the new tensor's first write after the old occupant's last
//     access (a write-after-read or write-after-write edge for the
//     scheduler); the longer ago that access, the less the edge constrains
//     a schedule.
//   - ReuseBestFit: the smallest region (a classic best-fit free list),
//     which packs tightest.
//   - ReuseSpread: next fit on a ring over the capacity (placeNextFit):
//     memory is handed out in address order and reused in the order it
//     was handed out, so nothing is reused before the whole capacity was
//     used once, and then the bytes handed out (in the common case freed)
//     longest ago come first: fewest reuse hazards, highest peak.
//
// Ties go to the lower offset, then the lower start partition. When no
// region fits below the peak, the tensor goes where it raises the peak
// least. The sweep never refuses: it returns the peak, which may exceed
// the capacity (the caller decides what then: the exact search, spills).
//
// Cost: O(n log n) for the order and the expiry heap, plus, per tensor,
// work linear in the tensors live in its lanes (their sorted lists are
// merged) and in the pieces of the lanes' free-time maps it touches. In
// an unrolled kernel a few dozen tiles are live at once, so this is near
// linear; it degrades to O(n x live) when thousands of tiny tensors are
// live together. No allocation per tensor beyond amortized slice growth.
package pack

import (
	"math"
	"slices"
)

// ReusePolicy chooses among free regions that fit (Sweep2D).
type ReusePolicy uint8

const (
	// ReuseOldestFreed prefers the region freed longest ago.
	ReuseOldestFreed ReusePolicy = iota
	// ReuseBestFit prefers the smallest region.
	ReuseBestFit
	// ReuseSpread is ReuseOldestFreed with the capacity in place of the
	// current peak: never-used bytes up to the capacity come first, so the
	// peak grows toward the capacity and reuse waits until memory runs out.
	ReuseSpread
)

func (r ReusePolicy) String() string {
	switch r {
	case ReuseBestFit:
		return "best-fit"
	case ReuseSpread:
		return "spread"
	}
	return "oldest-freed"
}

// SweepResult is Sweep2D's answer.
type SweepResult struct {
	Placements []Placement2D // indexed like Problem2D.Tensors
	Peak       int64         // max(offset + size)
	MaxLive    int64         // MaxLive2D of the tensors
}

// laneEntry is a live tensor in one lane: bytes [off, end).
type laneEntry struct {
	off, end int64
}

// freePiece of a lane's free-time map: bytes [lo, hi) were last occupied by a
// tensor whose interval ended at t.
type freePiece struct {
	lo, hi, t int64
}

// sweepState is the sweep's working set.
type sweepState struct {
	p      Problem2D
	policy ReusePolicy
	lanes  [numQuadrants][]laneEntry // live tensors per lane, by offset
	freed  [numQuadrants][]freePiece // free-time map per lane, by offset
	merged []laneEntry               // scratch: occupied intervals of a lane run
	peak   int64
	ring   int64 // ReuseSpread: where the next-fit search starts
}

// Sweep2D places every tensor of p with the time-ordered sweep (see the
// file comment), ignoring p.Capacity. Malformed input is an *InputError.
func Sweep2D(p Problem2D, policy ReusePolicy) (*SweepResult, error) {
	if err := validate2D(p); err != nil {
		return nil, err
	}
	n := len(p.Tensors)
	res := &SweepResult{Placements: make([]Placement2D, n)}
	order := make([]int32, 0, n)
	var fixed []int32
	sorted := true
	for i, t := range p.Tensors {
		switch {
		case t.Fixed != nil:
			res.Placements[i] = *t.Fixed
			if t.Size > 0 {
				fixed = append(fixed, int32(i))
			}
		case t.Size > 0:
			if k := len(order); k > 0 && p.Tensors[order[k-1]].Lower > t.Lower {
				sorted = false
			}
			order = append(order, int32(i))
		}
	}
	if !sorted {
		slices.SortFunc(order, func(a, b int32) int {
			if c := compareInt64(p.Tensors[a].Lower, p.Tensors[b].Lower); c != 0 {
				return c
			}
			return int(a - b)
		})
	}
	slices.SortFunc(fixed, func(a, b int32) int {
		if c := compareInt64(p.Tensors[a].Lower, p.Tensors[b].Lower); c != 0 {
			return c
		}
		return int(a - b)
	})
	s := &sweepState{p: p, policy: policy}
	ends := &endHeap{}
	var lb liveBound
	lb.init(n)
	expire := func(now int64) {
		for ends.Len() > 0 && ends.minUpper() <= now {
			j := ends.pop()
			s.release(j, res.Placements[j])
			lb.end(p.Tensors[j], int32(j))
		}
	}
	fi := 0
	admitFixed := func(now int64) {
		for ; fi < len(fixed) && p.Tensors[fixed[fi]].Lower <= now; fi++ {
			j := int(fixed[fi])
			expire(p.Tensors[j].Lower)
			s.occupy(j, res.Placements[j])
			ends.push(j, p.Tensors[j].Upper)
			lb.start(p.Tensors[j], int32(j))
		}
	}
	for _, i32 := range order {
		i := int(i32)
		t := p.Tensors[i]
		admitFixed(t.Lower)
		expire(t.Lower)
		pl := s.place(i, fixed[fi:])
		res.Placements[i] = pl
		s.occupy(i, pl)
		ends.push(i, t.Upper)
		lb.start(t, int32(i))
	}
	admitFixed(math.MaxInt64)
	for i, t := range p.Tensors {
		if t.Size > 0 {
			res.Peak = max(res.Peak, res.Placements[i].Offset+t.Size)
		}
	}
	res.MaxLive = lb.best
	return res, nil
}

// laneRun returns the lanes [q0, q1) of a tensor at start partition sp.
func laneRun(sp, partitions int) (int, int) {
	q0 := sp / QuadrantPartitions
	return q0, q0 + int(quadrantsSpanned(partitions))
}

// occupy inserts tensor i's bytes into its lanes and raises the peak.
func (s *sweepState) occupy(i int, pl Placement2D) {
	t := s.p.Tensors[i]
	e := laneEntry{pl.Offset, pl.Offset + t.Size}
	q0, q1 := laneRun(pl.StartPartition, t.Partitions)
	for q := q0; q < q1; q++ {
		l := s.lanes[q]
		k, _ := slices.BinarySearchFunc(l, e.off, func(x laneEntry, off int64) int { return compareInt64(x.off, off) })
		s.lanes[q] = slices.Insert(l, k, e)
	}
	s.peak = max(s.peak, e.end)
}

// release removes tensor i from its lanes and records when its bytes were
// freed (the policy's free-time map).
func (s *sweepState) release(i int, pl Placement2D) {
	t := s.p.Tensors[i]
	off, end := pl.Offset, pl.Offset+t.Size
	q0, q1 := laneRun(pl.StartPartition, t.Partitions)
	for q := q0; q < q1; q++ {
		l := s.lanes[q]
		k, _ := slices.BinarySearchFunc(l, off, func(x laneEntry, o int64) int { return compareInt64(x.off, o) })
		for k < len(l) && !(l[k].off == off && l[k].end == end) {
			k++
		}
		if k < len(l) {
			s.lanes[q] = slices.Delete(l, k, k+1)
		}
		if s.policy == ReuseOldestFreed {
			s.freed[q] = assignPiece(s.freed[q], off, end, t.Upper)
		}
	}
}

// assignPiece sets the free-time map to t over [lo, hi).
func assignPiece(m []freePiece, lo, hi, t int64) []freePiece {
	a := firstEndingAfter(m, lo)
	if a < len(m) && m[a].lo == lo && m[a].hi == hi {
		m[a].t = t // the common case: a tile freed where one was freed before
		return m
	}
	b := a
	for b < len(m) && m[b].lo < hi {
		b++
	}
	var buf [3]freePiece
	repl := buf[:0]
	if a < b && m[a].lo < lo {
		repl = append(repl, freePiece{m[a].lo, lo, m[a].t})
	}
	repl = append(repl, freePiece{lo, hi, t})
	if a < b && m[b-1].hi > hi {
		repl = append(repl, freePiece{hi, m[b-1].hi, m[b-1].t})
	}
	return slices.Replace(m, a, b, repl...)
}

// firstEndingAfter returns the index of the first piece with hi > x.
func firstEndingAfter(m []freePiece, x int64) int {
	lo, hi := 0, len(m)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m[mid].hi > x {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// lastFreed returns the latest time any byte of [lo, hi) was freed in
// lanes [q0, q1) (math.MinInt64: never used).
func (s *sweepState) lastFreed(q0, q1 int, lo, hi int64) int64 {
	best := int64(math.MinInt64)
	for q := q0; q < q1; q++ {
		m := s.freed[q]
		for k := firstEndingAfter(m, lo); k < len(m) && m[k].lo < hi; k++ {
			best = max(best, m[k].t)
		}
	}
	return best
}

// candidate is one legal position of the tensor being placed.
type candidate struct {
	sp       int
	off      int64
	gap      int64 // length of the free region it sits in
	freedAt  int64
	belowTop bool
}

// better reports whether candidate a beats b under the policy.
func (s *sweepState) better(a, b candidate) bool {
	if a.belowTop != b.belowTop {
		return a.belowTop
	}
	if !a.belowTop {
		if a.off != b.off {
			return a.off < b.off // raise the peak least
		}
		return a.sp < b.sp
	}
	switch s.policy {
	case ReuseBestFit:
		if a.gap != b.gap {
			return a.gap < b.gap
		}
	default:
		if a.freedAt != b.freedAt {
			return a.freedAt < b.freedAt
		}
	}
	if a.off != b.off {
		return a.off < b.off
	}
	return a.sp < b.sp
}

// place chooses tensor i's position; future are the fixed tensors not yet
// admitted (by Lower), obstacles where they start before i ends.
func (s *sweepState) place(i int, future []int32) Placement2D {
	t := s.p.Tensors[i]
	align := max(t.Align, 1)
	bank := s.p.BankSize
	if s.policy == ReuseSpread {
		if pl, ok := s.placeNextFit(i, future); ok {
			return pl
		}
	}
	var best candidate
	have := false
	top := s.peak // positions at or below top are free choices
	var buf [numQuadrants]int
	for _, sp := range s.p.startsOf(i, &buf) {
		q0, q1 := laneRun(sp, t.Partitions)
		occ := s.mergeLanes(q0, q1, future, t.Upper)
		cursor := int64(0)
		try := func(y, lo, hi int64) {
			y = legalOffset(y, t.Size, align, bank)
			if y+t.Size > hi {
				return
			}
			c := candidate{sp: sp, off: y, gap: hi - lo, belowTop: y+t.Size <= top}
			if c.belowTop && s.policy != ReuseBestFit {
				c.freedAt = s.lastFreed(q0, q1, y, y+t.Size)
			}
			if !have || s.better(c, best) {
				best, have = c, true
			}
		}
		consider := func(lo, hi int64) {
			try(lo, lo, hi)
			if s.policy == ReuseBestFit {
				return
			}
			// Inside a free region, the bytes freed at different times
			// are the free-time map's pieces: each piece's start (and
			// the never-used bytes above the last piece) is a candidate.
			for q := q0; q < q1; q++ {
				m := s.freed[q]
				for k, n := firstEndingAfter(m, lo), 0; k < len(m) && m[k].lo < min(hi, top) && n < maxPieceCandidates; k, n = k+1, n+1 {
					if m[k].lo > lo {
						try(m[k].lo, lo, hi)
					}
					if m[k].hi < hi {
						try(m[k].hi, lo, hi)
					}
				}
			}
		}
		for _, o := range occ {
			if o.off > cursor {
				consider(cursor, o.off)
			}
			cursor = max(cursor, o.end)
		}
		consider(cursor, math.MaxInt64/4)
	}
	return Placement2D{StartPartition: best.sp, Offset: best.off}
}

// maxPieceCandidates bounds the free-time pieces of one free region
// examined as positions (ReuseOldestFreed): the lowest ones, so a region
// freed piece by piece over a long time does not make a placement scan
// all of its history.
const maxPieceCandidates = 16

// placeNextFit is ReuseSpread: next fit on a ring over [0, capacity). From
// the ring position (where the previous tensor ended) the first legal free
// position that fits below the capacity, wrapping to 0 once: memory is
// reused in the order it was handed out, so the bytes reused are those
// handed out (and so, in the common case, freed) longest ago, and never
// before the whole capacity was used once. When nothing fits below the
// capacity it reports false (the caller places the tensor as the compact
// policy would, raising the peak past the capacity).
func (s *sweepState) placeNextFit(i int, future []int32) (Placement2D, bool) {
	t := s.p.Tensors[i]
	align := max(t.Align, 1)
	bank := s.p.BankSize
	limit := s.p.Capacity
	ring := s.ring
	bestDist, found := int64(math.MaxInt64), false
	var best Placement2D
	var buf [numQuadrants]int
	for _, sp := range s.p.startsOf(i, &buf) {
		q0, q1 := laneRun(sp, t.Partitions)
		occ := s.mergeLanes(q0, q1, future, t.Upper)
		// The first fit at or after from, below the capacity.
		first := func(from int64) (int64, bool) {
			cursor := int64(0)
			for k := 0; k <= len(occ); k++ {
				hi := limit
				if k < len(occ) {
					hi = min(occ[k].off, limit)
				}
				if lo := max(cursor, from); hi > lo {
					if y := legalOffset(lo, t.Size, align, bank); y+t.Size <= hi {
						return y, true
					}
				}
				if k < len(occ) {
					cursor = max(cursor, occ[k].end)
				}
			}
			return 0, false
		}
		y, ok := first(ring)
		dist := y - ring
		if !ok {
			if y, ok = first(0); !ok {
				continue
			}
			dist = limit - ring + y
		}
		if dist < bestDist {
			bestDist, best, found = dist, Placement2D{StartPartition: sp, Offset: y}, true
		}
	}
	if found {
		s.ring = best.Offset + t.Size
		if s.ring >= limit {
			s.ring = 0
		}
	}
	return best, found
}

// legalOffset is the lowest offset >= x that is aligned and keeps the
// tensor in one bank (or, larger than a bank, at a bank start).
func legalOffset(x, size, align, bank int64) int64 {
	y := alignUp(x, align)
	if !bankLegal(y, size, bank) {
		y = alignUp(y-y%bank+bank, align)
	}
	return y
}

// mergeLanes returns the occupied intervals of lanes [q0, q1), plus the
// future fixed tensors in those lanes starting before upper, by offset
// (overlapping intervals are not merged; the gap walk tolerates them).
func (s *sweepState) mergeLanes(q0, q1 int, future []int32, upper int64) []laneEntry {
	out := s.merged[:0]
	if q1-q0 == 1 && len(future) == 0 {
		s.merged = out
		return s.lanes[q0]
	}
	for q := q0; q < q1; q++ {
		out = append(out, s.lanes[q]...)
	}
	for _, f := range future {
		ft := s.p.Tensors[f]
		if ft.Lower >= upper {
			break
		}
		f0, f1 := laneRun(ft.Fixed.StartPartition, ft.Partitions)
		if f0 < q1 && q0 < f1 {
			out = append(out, laneEntry{ft.Fixed.Offset, ft.Fixed.Offset + ft.Size})
		}
	}
	slices.SortFunc(out, func(a, b laneEntry) int { return compareInt64(a.off, b.off) })
	s.merged = out
	return out
}
