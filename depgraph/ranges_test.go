package depgraph

import (
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestFootprint_CollectAccessPatternRanges checks the footprint of
// typical and awkward patterns on a location of 64 elements per row and
// 8 rows (and flat).
func TestFootprint_CollectAccessPatternRanges(t *testing.T) {
	const e, rows = 64, 8
	p := func(pairs ...[2]int64) bir.Pattern {
		var out bir.Pattern
		for _, q := range pairs {
			out = append(out, bir.APPair{Step: q[0], Num: q[1]})
		}
		return out
	}
	tests := []struct {
		name          string
		off           int64
		pat           bir.Pattern
		e             int64
		r0, r1        int64
		runs          []run
		whole, inv, z bool
	}{
		{name: "whole tile", pat: p([2]int64{e, rows}, [2]int64{1, e}), e: e, r0: 0, r1: 7, runs: []run{{0, 64}}},
		{name: "column tile", off: 2*e + 16, pat: p([2]int64{e, 4}, [2]int64{1, 8}), e: e, r0: 2, r1: 5, runs: []run{{16, 24}}},
		{name: "strided free", off: 0, pat: p([2]int64{e, 2}, [2]int64{2, 4}), e: e, r0: 0, r1: 1, runs: []run{{0, 1}, {2, 3}, {4, 5}, {6, 7}}},
		{name: "two free dims merge", off: 0, pat: p([2]int64{e, 1}, [2]int64{8, 4}, [2]int64{1, 8}), e: e, r0: 0, r1: 0, runs: []run{{0, 32}}},
		{name: "negative free step", off: 9, pat: p([2]int64{e, 3}, [2]int64{-1, 10}), e: e, r0: 0, r1: 2, runs: []run{{0, 10}}},
		{name: "every other row (hull)", off: 0, pat: p([2]int64{2 * e, 3}, [2]int64{1, 4}), e: e, r0: 0, r1: 4, runs: []run{{0, 4}}},
		{name: "free pair leaves the row", off: 60, pat: p([2]int64{e, 2}, [2]int64{1, 8}), e: e, r0: 0, r1: 2, whole: true},
		{name: "many runs: hull", off: 0, pat: p([2]int64{3, 40}), e: 0, r0: 0, r1: 0, runs: []run{{0, 118}}},
		{name: "32 runs: exact", off: 0, pat: p([2]int64{e, 1}, [2]int64{2, 32}), e: e, r0: 0, r1: 0, runs: func() []run {
			var rs []run
			for k := int64(0); k < 32; k++ {
				rs = append(rs, run{2 * k, 2*k + 1})
			}
			return rs
		}()},
		{name: "step 0 re-reads", off: 5, pat: p([2]int64{e, 2}, [2]int64{0, 7}, [2]int64{1, 3}), e: e, r0: 0, r1: 1, runs: []run{{5, 8}}},
		{name: "flat", off: 100, pat: p([2]int64{10, 3}, [2]int64{1, 4}), e: 0, r0: 0, r1: 0, runs: []run{{100, 104}, {110, 114}, {120, 124}}},
		{name: "empty", pat: p([2]int64{1, 0}), e: e, z: true},
		{name: "negative start", off: 2, pat: p([2]int64{-1, 4}), e: e, inv: true},
		{name: "beyond the rows", off: 7 * e, pat: p([2]int64{e, 2}, [2]int64{1, 4}), e: e, inv: true},
		{name: "scalar", off: 3*e + 5, pat: nil, e: e, r0: 3, r1: 3, runs: []run{{5, 6}}},
	}
	var fp footprint
	for _, tc := range tests {
		r := int64(rows)
		if tc.e == 0 {
			r = 0
		}
		fp.collectAccessPatternRanges(tc.off, tc.pat, tc.e, r)
		switch {
		case tc.z || tc.inv:
			if fp.empty != tc.z || fp.invalid != tc.inv {
				t.Errorf("%s: empty %v invalid %v, want %v %v", tc.name, fp.empty, fp.invalid, tc.z, tc.inv)
			}
			continue
		case fp.empty || fp.invalid:
			t.Errorf("%s: empty %v invalid %v", tc.name, fp.empty, fp.invalid)
			continue
		}
		if fp.r0 != tc.r0 || fp.r1 != tc.r1 || fp.whole != tc.whole || !tc.whole && !slices.Equal(fp.runs, tc.runs) {
			t.Errorf("%s: rows [%d, %d] whole %v runs %v, want [%d, %d] %v %v", tc.name, fp.r0, fp.r1, fp.whole, fp.runs, tc.r0, tc.r1, tc.whole, tc.runs)
		}
	}
}

// TestFootprint_NoAllocation: computing a footprint allocates nothing once
// the scratch has grown.
func TestFootprint_NoAllocation(t *testing.T) {
	var fp footprint
	pat := bir.Pattern{{Step: 64, Num: 8}, {Step: 16, Num: 3}, {Step: 1, Num: 4}}
	fp.collectAccessPatternRanges(3, pat, 64, 8)
	if n := testing.AllocsPerRun(100, func() { fp.collectAccessPatternRanges(3, pat, 64, 8) }); n != 0 {
		t.Errorf("%v allocations per footprint", n)
	}
}
