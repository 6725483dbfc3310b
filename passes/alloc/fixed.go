package alloc

// The fixed placements a kernel chose, beside the planner's (issue 25 item
// 4: "narwhal compile of a kernel that uses fixed addresses ... reports
// what the planner would have chosen beside them").
//
// A kernel places tiles itself with NKI's direct allocation
// (nl.ndarray(..., address=(partition, byte)), ncc.sbuf.mod_alloc,
// ncc.psum.mod_alloc): the NKI front end makes those locations allocated
// and pinned, and the planner works around them as fixed obstacles (live
// over the whole function, assign.go). After a function's allocation
// fits, compareFixed solves the same problem a second time with every
// pinned location released: placed by the same allocator over its own
// live interval (the model's, not the whole function). The report lists,
// per pinned location, the placement the kernel gave and the one the
// planner chose when free, and, per memory, the peak of both plans (the
// highest byte used per partition). The second plan is only reported: the
// kernel's placements stand. Cost: one more solve per function with
// pinned locations.
//
// The live-range checks of the kernel's placements (two fixed tiles live
// at once must not overlap) are the verifier's overlap rule, which the
// front end runs on the traced module; the capacity and partition rules
// are checked where the kernel places the tile (nki/api/lower).

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// FixedPlacement is one pinned location: the kernel's placement and the
// planner's when the location is free.
type FixedPlacement struct {
	Loc   string
	Pos   bir.Pos // the location's first use in the kernel
	Mem   string  // "SBUF" or "PSUM"
	Parts int
	Bytes int64 // per partition
	// Given and Planner are (start partition, byte offset); PSUM byte
	// offsets count from bank 0 (bank * bank bytes + address).
	Given, Planner [2]int64
	Used           bool // touched by an instruction (an unused one is not placed again)
}

// FixedStats compare one function's fixed placements with the planner's.
type FixedStats struct {
	Func  string
	Items []FixedPlacement
	// GivenPeak and OpenPeak are, per memory, the highest byte per
	// partition of the allocation with the kernel's placements and of the
	// planner's own.
	GivenPeak, OpenPeak [numMems]int64
	OpenFits            [numMems]bool
}

// compareFixed builds f's comparison, or nil when f has no pinned
// location.
func compareFixed(f *bir.Function, md *model, items [numMems][]item, res [numMems]solveResult, g [numMems]geometry, allocator string, opt Options) *FixedStats {
	fs := &FixedStats{Func: f.Name}
	pinned := false
	for mem := range items {
		for _, it := range items[mem] {
			if it.fixed && f.Loc(it.loc).Pinned {
				pinned = true
			}
		}
	}
	if !pinned {
		return nil
	}
	for mem := 0; mem < numMems; mem++ {
		if len(items[mem]) == 0 {
			continue
		}
		fs.GivenPeak[mem] = res[mem].peak
		var open []item
		idx := map[bir.LocID]int{}
		for _, it := range items[mem] {
			if it.fixed && f.Loc(it.loc).Pinned {
				if md.flags[it.loc]&lfUsed == 0 {
					continue
				}
				it.fixed = false
				it.lo, it.hi = md.lo[it.loc], md.hi[it.loc]
				it.starts = md.startMask(it.loc)
			}
			idx[it.loc] = len(open)
			open = append(open, it)
		}
		r, err := solve(allocator, open, g[mem], opt)
		if err == nil {
			fs.OpenPeak[mem], fs.OpenFits[mem] = r.peak, r.fits
		}
		for _, it := range items[mem] {
			if !it.fixed || !f.Loc(it.loc).Pinned {
				continue
			}
			lc := f.Loc(it.loc)
			p := FixedPlacement{Loc: lc.Name, Pos: f.LocPos(it.loc), Mem: memNames[mem], Parts: it.parts, Bytes: lc.Bytes,
				Given: [2]int64{int64(it.base), it.off}}
			if k, ok := idx[it.loc]; ok && err == nil && r.fits {
				p.Used = true
				p.Planner = [2]int64{int64(open[k].base), open[k].off}
			}
			fs.Items = append(fs.Items, p)
		}
	}
	return fs
}

// fixedText renders the comparison of every function with pinned
// locations.
func fixedText(fss []FixedStats) string {
	var b strings.Builder
	for _, fs := range fss {
		fmt.Fprintf(&b, "function %s: %d placed by the kernel\n", fs.Func, len(fs.Items))
		fmt.Fprintf(&b, "  %-24s %-5s %-10s %-18s %-18s %s\n", "location", "mem", "size", "kernel (p, byte)", "planner (p, byte)", "first use")
		for _, p := range fs.Items {
			planner := "(unused)"
			if p.Used {
				planner = fmt.Sprintf("(%d, %d)", p.Planner[0], p.Planner[1])
			}
			fmt.Fprintf(&b, "  %-24s %-5s %-10s %-18s %-18s %s\n", p.Loc, p.Mem, fmt.Sprintf("%dx%d", p.Parts, p.Bytes),
				fmt.Sprintf("(%d, %d)", p.Given[0], p.Given[1]), planner, p.Pos)
		}
		for mem := 0; mem < numMems; mem++ {
			if fs.GivenPeak[mem] == 0 && fs.OpenPeak[mem] == 0 {
				continue
			}
			open := fmt.Sprintf("%d", fs.OpenPeak[mem])
			if !fs.OpenFits[mem] {
				open += " (does not fit)"
			}
			fmt.Fprintf(&b, "  %s peak per partition: %d bytes with the kernel's placements, %s with the planner's\n", memNames[mem], fs.GivenPeak[mem], open)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
