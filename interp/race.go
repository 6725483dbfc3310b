package interp

// The race checker's shadow memory (RunConcurrent).
//
// Every storage an instruction touches has a shadow: a sorted list of
// byte segments, each with the last write to its bytes and the reads since
// that write (at most one per stream: a later read by the same stream is
// ordered after an earlier one, so it stands for both). An access is an
// access record: the instruction, its core and global stream, and the
// epoch it completes as. Access a happens before an access of stream g
// with vector clock vc when a is g's own or vc[a.stream] >= a.epoch: the
// FastTrack test, exact for the happens-before of the stream model (stream
// order, DMA triggers, semaphore waits on updates, Drain, barriers, calls,
// CoreBarriers), which the concurrent run computes as it goes.
//
// A write races with the segment's last write and with every read since
// that it does not follow; a read races with the last write it does not
// follow. Each racing pair is reported once, with the bytes of the first
// segment it was found on.

import (
	"fmt"
	"slices"
	"sort"
)

type accessRec struct {
	inst  int32 // bir.InstID
	core  int16
	fn    int32 // function index
	g     int32 // global stream
	epoch int32
}

type seg struct {
	lo, hi int64
	w      int32   // last write record, -1 none
	r      []int32 // reads since the last write
}

// shadowStore is one storage's segments, sorted and disjoint, kept in
// chunks of at most maxChunk segments so that an access rewrites only the
// chunks its bytes fall in: a flat list rewritten whole on every access
// made the checker quadratic (8,199 instructions took 38 s, issue 27
// item 7). Every chunk is non-empty; chunks are in byte order.
type shadowStore struct {
	name   string // for messages
	st     *storage
	chunks [][]seg
}

// maxChunk bounds a chunk's segments; a rewritten range is redistributed
// into chunks of about half of it, so a chunk splits again only after
// many insertions and the chunk list moves rarely.
const maxChunk = 128

// chunkRange returns the chunks [c0, c1) that can hold bytes of
// [lo, hi): the last chunk starting at or before lo through the last
// starting before hi.
func (ss *shadowStore) chunkRange(lo, hi int64) (int, int) {
	n := len(ss.chunks)
	// first chunk whose first segment starts after lo, minus one
	c0 := sort.Search(n, func(k int) bool { return ss.chunks[k][0].lo > lo }) - 1
	c0 = max(c0, 0)
	c1 := sort.Search(n, func(k int) bool { return ss.chunks[k][0].lo >= hi })
	return c0, max(c1, min(c0+1, n))
}

// replace puts segs (sorted, disjoint, possibly empty) in place of chunks
// [c0, c1), split into chunks of at most maxChunk.
func (ss *shadowStore) replace(c0, c1 int, segs []seg) {
	k := 0
	if len(segs) > 0 {
		k = max(c1-c0, 1)
		if len(segs) > k*maxChunk {
			k = (len(segs) + maxChunk/2 - 1) / (maxChunk / 2)
		}
		k = min(k, len(segs))
	}
	if k == c1-c0 {
		// The same chunks: rewrite them in place (their segments were
		// copied out before the merge), reusing their storage.
		for j := 0; j < k; j++ {
			a, b := j*len(segs)/k, (j+1)*len(segs)/k
			ss.chunks[c0+j] = append(ss.chunks[c0+j][:0], segs[a:b]...)
		}
		return
	}
	repl := make([][]seg, 0, k)
	for j := 0; j < k; j++ {
		a, b := j*len(segs)/k, (j+1)*len(segs)/k
		repl = append(repl, append(make([]seg, 0, maxChunk), segs[a:b]...))
	}
	ss.chunks = slices.Replace(ss.chunks, c0, c1, repl...)
}

type shadow struct {
	stores map[*storage]*shadowStore
	recs   []accessRec
	tmp    []seg // scratch of access: the rewritten segments
	old    []seg // scratch of access: the chunks' segments before it
	// reporting
	seen  map[[3]int32]bool
	races []Race
	found int
	max   int
	// describe names an access record's instruction and stream.
	describe func(rec accessRec) RaceAccess
}

func newShadow(max int, describe func(accessRec) RaceAccess) *shadow {
	return &shadow{stores: map[*storage]*shadowStore{}, seen: map[[3]int32]bool{}, max: max, describe: describe}
}

// record adds an access record and returns its id.
func (sh *shadow) record(r accessRec) int32 {
	sh.recs = append(sh.recs, r)
	return int32(len(sh.recs) - 1)
}

// hb reports whether record a happens before an access of stream g with
// clock vc.
func (sh *shadow) hb(a int32, g int32, vc []int32) bool {
	r := &sh.recs[a]
	return r.g == g || vc[r.g] >= r.epoch
}

// run is a byte range [lo, hi) of a storage.
type run struct{ lo, hi int64 }

// access checks and records the byte runs of st (sorted, disjoint) read
// or written by record rec (stream g, clock vc), each run merged with the
// segments of the chunks it falls in (access1): the cost of an access is
// its runs times a chunk, not the storage's whole segment list.
func (sh *shadow) access(st *storage, name string, runs []run, rec int32, write bool, vc []int32) {
	if len(runs) == 0 {
		return
	}
	ss := sh.stores[st]
	if ss == nil {
		ss = &shadowStore{name: name, st: st}
		sh.stores[st] = ss
	}
	for _, r := range runs {
		sh.access1(ss, r, rec, write, vc)
	}
}

// access1 checks and records one byte run against the segments of the
// chunks it falls in, in one merge, and puts the result in their place.
func (sh *shadow) access1(ss *shadowStore, r run, rec int32, write bool, vc []int32) {
	g := sh.recs[rec].g
	c0, c1 := ss.chunkRange(r.lo, r.hi)
	old := sh.old[:0]
	for _, c := range ss.chunks[c0:c1] {
		old = append(old, c...)
	}
	out := sh.tmp[:0]
	i := 0
	fresh := func(lo, hi int64) {
		cur := seg{lo: lo, hi: hi, w: -1}
		sh.check(ss, &cur, rec, g, write, vc)
		out = append(out, cur)
	}
	for i < len(old) && old[i].hi <= r.lo {
		out = append(out, old[i])
		i++
	}
	pos := r.lo
	for pos < r.hi {
		if i >= len(old) || old[i].lo >= r.hi {
			fresh(pos, r.hi)
			break
		}
		s := old[i]
		if s.lo > pos {
			fresh(pos, s.lo)
			pos = s.lo
			continue
		}
		if s.lo < pos {
			out = append(out, seg{lo: s.lo, hi: pos, w: s.w, r: s.r})
		}
		end := min(s.hi, r.hi)
		cur := seg{lo: pos, hi: end, w: s.w, r: s.r}
		sh.check(ss, &cur, rec, g, write, vc)
		out = append(out, cur)
		if s.hi > end {
			old[i] = seg{lo: end, hi: s.hi, w: s.w, r: s.r}
		} else {
			i++
		}
		pos = end
	}
	out = append(out, old[i:]...)
	// Merge neighbours with the same state.
	merged := out[:1]
	for _, s := range out[1:] {
		if n := len(merged); merged[n-1].hi == s.lo && merged[n-1].w == s.w && slices.Equal(merged[n-1].r, s.r) {
			merged[n-1].hi = s.hi
			continue
		}
		merged = append(merged, s)
	}
	ss.replace(c0, c1, merged)
	sh.tmp, sh.old = merged[:0], old[:0]
}

// check tests one segment against an access and updates it.
func (sh *shadow) check(ss *shadowStore, s *seg, rec, g int32, write bool, vc []int32) {
	if s.w >= 0 && !sh.hb(s.w, g, vc) {
		sh.race(ss, s, s.w, true, rec, write)
	}
	if write {
		for _, r := range s.r {
			if !sh.hb(r, g, vc) {
				sh.race(ss, s, r, false, rec, true)
			}
		}
		s.w, s.r = rec, nil
		return
	}
	// A read: replace the stream's earlier read, if any.
	if len(s.r) == 1 && s.r[0] == rec {
		return
	}
	nr := make([]int32, 0, len(s.r)+1)
	for _, r := range s.r {
		if sh.recs[r].g != g {
			nr = append(nr, r)
		}
	}
	s.r = append(nr, rec)
}

func (sh *shadow) race(ss *shadowStore, s *seg, a int32, aWrite bool, b int32, bWrite bool) {
	ra, rb := sh.recs[a], sh.recs[b]
	key := [3]int32{ra.inst + ra.fn<<20 + int32(ra.core)<<28, rb.inst + rb.fn<<20 + int32(rb.core)<<28, 0}
	if aWrite {
		key[2] |= 1
	}
	if bWrite {
		key[2] |= 2
	}
	if sh.seen[key] {
		return
	}
	sh.seen[key] = true
	sh.found++
	if len(sh.races) >= sh.max {
		return
	}
	A, B := sh.describe(ra), sh.describe(rb)
	A.Write, B.Write = aWrite, bWrite
	sh.races = append(sh.races, Race{A: A, B: B, Where: ss.where(s.lo, s.hi)})
}

// where names bytes [lo, hi) of a store: a DRAM location by its name and
// byte range, on-chip memory by partition and byte range.
func (ss *shadowStore) where(lo, hi int64) string {
	st := ss.st
	if st.kind == memDRAM {
		return fmt.Sprintf("DRAM %s bytes [%d, %d)", ss.name, lo, hi)
	}
	if st.rowBytes <= 0 {
		return fmt.Sprintf("%s bytes [%d, %d)", st.kind, lo, hi)
	}
	p0, p1 := lo/st.rowBytes, (hi-1)/st.rowBytes
	if p0 == p1 {
		return fmt.Sprintf("%s partition %d bytes [%d, %d)", st.kind, p0, lo%st.rowBytes, (hi-1)%st.rowBytes+1)
	}
	return fmt.Sprintf("%s partitions %d..%d (from byte %d of partition %d to byte %d of partition %d)", st.kind, p0, p1, lo%st.rowBytes, p0, (hi-1)%st.rowBytes+1, p1)
}

// RaceAccess is one side of a race: the instruction, where it ran, and
// whether it wrote.
type RaceAccess struct {
	Core   int
	Func   string
	Inst   string
	Op     string
	Stream string
	Write  bool
}

func (a RaceAccess) String() string {
	verb := "reads"
	if a.Write {
		verb = "writes"
	}
	core := ""
	if a.Core > 0 {
		core = fmt.Sprintf("core %d ", a.Core)
	}
	return fmt.Sprintf("%sfunction %s, instruction %s (%s on %s) %s", core, a.Func, a.Inst, a.Op, a.Stream, verb)
}

// Race is two conflicting accesses that no happens-before chain orders.
type Race struct {
	A, B  RaceAccess
	Where string
}

func (r Race) String() string {
	return fmt.Sprintf("race: %s and %s %s, and no chain of stream order, triggers and semaphores orders them", r.A, r.B, r.Where)
}
