package depgraph

import "slices"

// The interval structure of the AntiDependencyAnalyzer (seed 002 §6.3:
// "The analyzer uses boost::icl interval sets over the physical
// access-pattern ranges, so the hazard test is an interval-overlap, not a
// whole-tensor compare").
//
// A space is one address space (the shared SBUF, the shared PSUM, a
// location of its own, ...): rows (partitions) times bytes. Its rows are
// cut into segments, a split_interval_set over the partitions: every
// partition boundary an access has used is a cut, and each segment keeps
// one interval map over the bytes of its rows. A segment is therefore
// accessed as a whole by every access that touches it, and the byte maps
// of its rows are identical.
//
// An interval map is a sorted list of disjoint byte ranges, each with the
// last instruction that wrote it and the instructions that read it since
// (a persistent list: splitting a range shares the list, appending to one
// half does not change the other). Untouched bytes have no entry.

// entry is one byte range of an interval map.
type entry struct {
	lo, hi  int64
	writer  int32 // position of the last writer, -1 none (lifetime spaces: the owning location)
	readers int32 // head of the readers list in the cons pool, -1 none (lifetime: the owner's touches)
	prev    int32 // lifetime spaces: the previous owner's touches, -1 none
}

// imap is an interval map over bytes.
type imap struct {
	ents []entry
}

// cons is a cell of a persistent readers list.
type cons struct {
	pos  int32
	next int32
}

// space is one address space.
type space struct {
	cuts []int64 // segment k covers rows [cuts[k], cuts[k+1]); the last ends at the space's rows
	segs []imap
}

func (s *space) reset() {
	s.cuts = append(s.cuts[:0], 0)
	for k := range s.segs {
		s.segs[k].ents = s.segs[k].ents[:0]
	}
	if len(s.segs) == 0 {
		s.segs = append(s.segs, imap{})
	}
	s.segs = s.segs[:1]
}

// split makes row r a segment boundary (r > 0), copying the byte map of
// the segment it falls in.
func (s *space) split(r int64) {
	k, found := s.search(r)
	if found || r <= 0 {
		return
	}
	// Row r falls in segment k-1.
	src := s.segs[k-1].ents
	cp := imap{ents: append(make([]entry, 0, len(src)), src...)}
	s.cuts = slices.Insert(s.cuts, k, r)
	s.segs = slices.Insert(s.segs, k, cp)
}

// segments returns the segment index range [a, b) covering rows [r0, r1]
// after cutting at r0 and r1+1.
func (s *space) segments(r0, r1 int64) (int, int) {
	s.split(r0)
	s.split(r1 + 1)
	a, _ := s.search(r0)
	b, found := s.search(r1 + 1)
	if !found {
		b = len(s.cuts)
	}
	return a, b
}

// search is slices.BinarySearch(s.cuts, r) with the answer for a row at
// or after the last cut first: a program that walks a tensor tile by tile
// cuts it in increasing rows, and a binary search over millions of cuts
// misses the cache at every step.
func (s *space) search(r int64) (int, bool) {
	n := len(s.cuts)
	if n > 0 && r >= s.cuts[n-1] {
		if r == s.cuts[n-1] {
			return n - 1, true
		}
		return n, false
	}
	return slices.BinarySearch(s.cuts, r)
}

// find returns the index of the first entry with hi > lo. The end of the
// map is tried first (see space.search: accesses in increasing bytes).
func (m *imap) find(lo int64) int {
	ents := m.ents
	if n := len(ents); n == 0 || ents[n-1].hi <= lo {
		return n
	}
	return firstAfter(ents, lo, 0, len(ents))
}

// firstAfter returns the index of the first entry of ents[a:b] with
// hi > x (b when none), the entries before a having hi <= x.
func firstAfter(ents []entry, x int64, a, b int) int {
	for a < b {
		h := int(uint(a+b) >> 1)
		if ents[h].hi <= x {
			a = h + 1
		} else {
			b = h
		}
	}
	return a
}

// splitAt makes byte x an entry boundary (entries crossing x are cut in
// two, sharing writer and readers). It returns the index of the first
// entry at or after x.
func (m *imap) splitAt(x int64) int {
	return m.cutAt(x, m.find(x))
}

// splitRange makes lo and hi (lo <= hi) entry boundaries and returns the
// indexes of the first entries at or after each. The search for hi starts
// from lo's entry and gallops (an access covers a few entries: two binary
// searches over a map of the whole SBUF were most of the analyzer's
// searching).
func (m *imap) splitRange(lo, hi int64) (int, int) {
	i := m.splitAt(lo)
	ents := m.ents
	// The first entry with hi' > hi lies in [i, len): gallop from i.
	a, step := i, 1
	for a+step <= len(ents) && ents[a+step-1].hi <= hi {
		a += step
		step <<= 1
	}
	// ents[a-1].hi <= hi (or a == i); the answer is in [a, min(a+step, len)].
	return i, m.cutAt(hi, firstAfter(ents, hi, a, min(a+step, len(ents))))
}

// cutAt splits entry i, the first with hi > x, at x if it starts before x,
// and returns the index of the first entry at or after x.
func (m *imap) cutAt(x int64, i int) int {
	if i < len(m.ents) && m.ents[i].lo < x {
		e := m.ents[i]
		left := e
		left.hi = x
		e.lo = x
		m.ents[i] = left
		m.ents = slices.Insert(m.ents, i+1, e)
		return i + 1
	}
	return i
}
