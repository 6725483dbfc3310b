package depgraph

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// The byte footprint of one access pattern (seed 002 §6.3:
// AntiDependencyAnalyzer::collectAccessPatternRanges, getSBPartitionRange,
// getPSUMPartitionRange).
//
// An access pattern names the elements off + sum_d(i_d * step_d) of its
// location (design.md's addressing model). On a location of E elements per
// partition, element e lives in row e / E at element e % E of the row; a
// DRAM location is flat (one row). The footprint is a partition (row) range
// times a set of byte runs inside each of those rows:
//
//   - The pairs are normalized first: a pair with num 1 or step 0 does not
//     move (a step-0 pair re-reads the same elements) and is dropped; a
//     negative step is turned positive by moving the base to its last
//     element (the element set is the same); pairs are sorted by step and a
//     pair whose step equals the span of the one inside it is merged with
//     it ([[2048,128],[1,2048]] becomes one run of 262144 elements).
//   - On-chip, the pairs whose step is a whole number of rows walk
//     partitions (getSBPartitionRange / getPSUMPartitionRange: the rows
//     walked are the hull of the first and last row); the others must stay
//     inside the row they start in, and give the byte runs. A pattern that
//     does not decompose so (an in-row pair crossing a row boundary, a
//     transposed walk) touches, conservatively, the whole of every row in
//     its hull.
//   - The runs of the in-row pairs: the innermost pair of step 1 is a run;
//     each combination of the outer pairs starts one. At most MaxRuns runs
//     are kept exactly; beyond that the hull of the runs stands for them
//     (conservative). Runs are sorted and merged when they touch.
//
// The result is always a superset of the bytes the interpreter touches
// (the dependency oracle test enumerates every element to check it), exact
// for partition-contiguous patterns with few runs, which is what engines
// and DMAs use.

// MaxRuns bounds the byte runs kept exactly per access pattern.
const MaxRuns = 32

// run is a half-open element (or byte) range.
type run struct{ lo, hi int64 }

type pair struct{ step, num int64 }

// footprint is the footprint of one pattern: rows [r0, r1] (the location's
// rows, inclusive) and element runs inside each of those rows (flat runs
// for a DRAM location, whose only row is 0). It is also the scratch space
// collectAccessPatternRanges works in, so that computing a footprint does
// not allocate once the buffers have grown.
type footprint struct {
	empty   bool  // the pattern walks no element
	whole   bool  // every element of every row in [r0, r1]
	invalid bool  // the pattern leaves the location (the caller takes the whole location)
	r0, r1  int64 // rows walked (hull)
	runs    []run // element runs within a row, sorted, disjoint (whole == false)

	ps, free, sorted []pair
	idx              []int64
}

// collectAccessPatternRanges computes the footprint of pattern pat at
// element offset off on a location of e elements per row (e == 0: flat)
// and rows rows (0: unchecked).
func (fp *footprint) collectAccessPatternRanges(off int64, pat bir.Pattern, e, rows int64) {
	fp.empty, fp.whole, fp.invalid = false, false, false
	fp.runs = fp.runs[:0]
	fp.ps = fp.ps[:0]
	lo, hi := off, off
	for _, q := range pat {
		if q.Num <= 0 {
			fp.empty = true
			return
		}
		if q.Num == 1 || q.Step == 0 {
			continue
		}
		st, span := q.Step, q.Step*(q.Num-1)
		if st < 0 {
			st = -st
			lo += span
		} else {
			hi += span
		}
		fp.ps = append(fp.ps, pair{st, q.Num})
	}
	if lo < 0 {
		fp.invalid = true
		return
	}
	if e <= 0 {
		fp.r0, fp.r1 = 0, 0
		fp.elemRuns(lo, fp.ps)
		return
	}
	fp.r0, fp.r1 = lo/e, hi/e
	if rows > 0 && fp.r1 >= rows {
		fp.invalid = true
		return
	}
	if fp.r0 == fp.r1 {
		fp.elemRuns(lo-fp.r0*e, fp.ps)
		return
	}
	// Split the pairs into partition pairs (whole rows) and in-row pairs.
	// c0 is the lowest in-row element: the offset's position in its row
	// plus the spans of the negative in-row pairs.
	fp.free = fp.free[:0]
	var fhi int64
	c0 := off % e
	for _, q := range pat {
		if q.Num > 1 && q.Step != 0 && q.Step%e != 0 {
			span := q.Step * (q.Num - 1)
			if span < 0 {
				c0 += span
				span = -span
			}
			fhi += span
			fp.free = append(fp.free, pair{max(q.Step, -q.Step), q.Num})
		}
	}
	if c0 < 0 || c0+fhi >= e {
		fp.whole = true
		return
	}
	fp.elemRuns(c0, fp.free)
}

// elemRuns sets fp.runs to the element runs of base + sum(i_d * step_d)
// over the pairs ps (positive steps), sorted and merged, or their hull when
// there are more than MaxRuns.
func (fp *footprint) elemRuns(base int64, ps []pair) {
	if len(ps) == 0 {
		fp.runs = append(fp.runs, run{base, base + 1})
		return
	}
	// Sort by step (insertion sort: at most a handful of pairs) and merge
	// pairs whose step is the inner pair's span.
	q := append(fp.sorted[:0], ps...)
	for i := 1; i < len(q); i++ {
		for j := i; j > 0 && q[j].step < q[j-1].step; j-- {
			q[j], q[j-1] = q[j-1], q[j]
		}
	}
	m := q[:1]
	for _, p := range q[1:] {
		last := &m[len(m)-1]
		if p.step == last.step*last.num {
			last.num *= p.num
			continue
		}
		m = append(m, p)
	}
	fp.sorted = q
	runLen := int64(1)
	outer := m
	if m[0].step == 1 {
		runLen = m[0].num
		outer = m[1:]
	}
	count := int64(1)
	var span int64
	for _, p := range outer {
		span += p.step * (p.num - 1)
		if count <= MaxRuns {
			count *= p.num
		}
	}
	if count > MaxRuns {
		fp.runs = append(fp.runs, run{base, base + span + runLen})
		return
	}
	idx := fp.idx[:0]
	for range outer {
		idx = append(idx, 0)
	}
	fp.idx = idx
	for {
		s := base
		for d, p := range outer {
			s += idx[d] * p.step
		}
		fp.runs = append(fp.runs, run{s, s + runLen})
		d := len(outer) - 1
		for d >= 0 {
			idx[d]++
			if idx[d] < outer[d].num {
				break
			}
			idx[d] = 0
			d--
		}
		if d < 0 {
			break
		}
	}
	rs := fp.runs
	slices.SortFunc(rs, func(a, b run) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	k := 0
	for _, r := range rs {
		if k > 0 && r.lo <= rs[k-1].hi {
			rs[k-1].hi = max(rs[k-1].hi, r.hi)
			continue
		}
		rs[k] = r
		k++
	}
	fp.runs = rs[:k]
}
