package deps

import (
	"cmp"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Logical mode after the memory planner.
//
// The logical mode makes every location its own address space: the
// dependencies a program has with unlimited memory. Before the memory
// planner that is every dependency there is. After it, two locations the
// planner placed on the same bytes are ordered by nothing but the
// physical mode's WAR/WAW and live-interval edges, so a schedule from the
// logical dependencies may run them at once: the verifier's overlap rule
// then rejects the program, and one that ran would be wrong. The mode is
// therefore refused (NW103, naming two locations that share bytes) on a
// function whose allocation reuses bytes, and kept where it does not
// (there the two modes give the same edges). The makespan with unlimited
// memory of an allocated program is the report's "reuse cost" line
// (time_aware_scheduler --report), which schedules the logical
// dependencies as a measurement and keeps the physical schedule.

// sharedPlacement returns two allocated on-chip locations of f whose
// placements share a byte of SBUF or PSUM (partitions and bytes; a PSUM
// location at its bank), ok false when no two do. It sorts the
// placements by their first byte and sweeps: O(n log n + overlapping
// pairs).
func sharedPlacement(f *bir.Function, bankBytes int64) (a, b bir.LocID, ok bool) {
	type rect struct {
		l      bir.LocID
		psum   bool
		r0, r1 int64 // partitions [r0, r1)
		lo, hi int64 // bytes [lo, hi)
	}
	var rs []rect
	for l := bir.LocID(0); int(l) < f.NumLocs(); l++ {
		lc := f.Loc(l)
		if !lc.Allocated || !lc.Type.IsOnChip() || lc.Bytes <= 0 {
			continue
		}
		r := rect{l: l, r0: lc.Base, r1: lc.Base + max(lc.Partitions, 1), lo: lc.Addr, hi: lc.Addr + lc.Bytes}
		if lc.Type == bir.MemPSUM {
			r.psum = true
			r.lo += lc.Bank * bankBytes
			r.hi += lc.Bank * bankBytes
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(x, y rect) int {
		if x.psum != y.psum {
			if x.psum {
				return 1
			}
			return -1
		}
		return cmp.Compare(x.lo, y.lo)
	})
	var active []rect
	for _, r := range rs {
		kept := active[:0]
		for _, q := range active {
			if q.psum == r.psum && q.hi > r.lo {
				kept = append(kept, q)
			}
		}
		active = kept
		for _, q := range active {
			if q.r0 < r.r1 && r.r0 < q.r1 {
				return q.l, r.l, true
			}
		}
		active = append(active, r)
	}
	return 0, 0, false
}

// refuseLogicalReuse is the NW103 error of mode=logical on function f
// whose allocation reuses bytes, or nil.
func refuseLogicalReuse(f *bir.Function, bankBytes int64) error {
	a, b, ok := sharedPlacement(f, bankBytes)
	if !ok {
		return nil
	}
	return diag.Errorf(diag.PassOption, "option mode=logical: the allocation places %s and %s on shared bytes, which only the physical dependencies order, so a logical schedule could overlap them; use mode=physical (the default) and read the makespan with unlimited memory from --report's \"reuse cost\" line",
		f.Loc(a).Name, f.Loc(b).Name)
}
