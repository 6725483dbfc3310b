// AllocateBlocks' createLocalTensors (seed 002 §4.1: "Allocate blocks for
// local tensors"), for functions that still have loops: the blocks of a
// block tensor share addresses by the liveN record that
// sb_size_legalization and shrink_ml write (only liveN blocks are live at
// once along shrinkDim).
//
// An allocated template location (one location standing for every block)
// gives all its blocks one address (the interpreter aliases them: docs/
// semantics-choices.md). That is right exactly when at most one block is
// live at a time, so, per on-chip block tensor with NBlocks > 1:
//
//   - liveN == 1 and a template: kept; one address serves every block.
//   - liveN == 1 and per-block locations (FullUnroll level 0's memloc
//     generation), reached only by symbolic access patterns and none of
//     them placed: they are folded back into one template location (the
//     local tensor), so the blocks share one address instead of each
//     taking its own for the whole loop nest.
//   - liveN != 1 (or no record) and a template: the template is given its
//     per-block locations (block b at tensor id b), each placed on its own:
//     never aliased. Rotating liveN slots would need the order in which
//     blocks die, which the record does not give; per-block space is
//     always right. A tensor of more than maxLocalBlocks blocks is an
//     error (unroll further, or let the footprint passes shrink it).
//
// Straight-line code (after FullUnroll level 2) has per-block locations
// only, each with its own interval: nothing to do.
package alloc

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// maxLocalBlocks bounds the per-block locations createLocalTensors makes
// for one template whose blocks cannot share an address.
const maxLocalBlocks = 4096

// blockStats count createLocalTensors' changes.
type blockStats struct {
	Folded    int // per-block tensors folded into one local template
	Split     int // templates given per-block locations
	NewLocs   int
	DeadLocs  int
	Templates int // templates kept (liveN == 1)
}

// createLocalTensors applies the rules above to the on-chip block tensors
// of f.
func createLocalTensors(f *bir.Function, st *blockStats) error {
	symOnly := symbolicOnly(f)
	for t := 0; t < f.NumTensors(); t++ {
		tid := bir.TensorID(t)
		ts := f.Tensor(tid)
		if ts.Dead || !ts.IsBlock || ts.NBlocks <= 1 || len(ts.Locs) == 0 {
			continue
		}
		l0 := f.Loc(ts.Locs[0])
		if !l0.Type.IsOnChip() {
			continue
		}
		placed := false
		for _, l := range ts.Locs {
			placed = placed || f.Loc(l).Allocated || f.Loc(l).Pinned
		}
		if placed {
			continue
		}
		switch {
		case ts.LiveN == 1 && len(ts.Locs) == 1:
			st.Templates++
		case ts.LiveN == 1 && symOnly[t] && sameShape(f, ts.Locs):
			keep := ts.Locs[0]
			for _, l := range append([]bir.LocID(nil), ts.Locs[1:]...) {
				f.RemoveLoc(l)
				st.DeadLocs++
			}
			f.Loc(keep).TensorIdx = 0
			st.Folded++
		case ts.LiveN != 1 && len(ts.Locs) == 1:
			if ts.NBlocks > maxLocalBlocks {
				return diag.Wrap(diag.DoesNotFit, f.TensorErrorf(tid, "%d blocks of which %d are live at once (liveN) in a loop: each needs its own space and more than %d cannot be placed this way; unroll the loop (full_unroll.unrollLevel=2)",
					ts.NBlocks, ts.LiveN, maxLocalBlocks))
			}
			tmpl := *f.Loc(ts.Locs[0])
			f.Loc(ts.Locs[0]).TensorIdx = 0
			for b := int64(1); b < ts.NBlocks; b++ {
				nl := tmpl
				nl.Name = f.UniqueTensorLocName(fmt.Sprintf("%s_blk%d", tmpl.Name, b))
				nl.TensorIdx = b
				nl.RawDims = append([]int64(nil), tmpl.RawDims...)
				if _, err := f.AddLoc(tid, nl); err != nil {
					// The name is unique (UniqueTensorLocName).
					return diag.Wrap(diag.Internal, f.TensorErrorf(tid, "block %d: %v", b, err))
				}
				ts = f.Tensor(tid)
				st.NewLocs++
			}
			st.Split++
		}
	}
	return nil
}

// symbolicOnly reports, per tensor, whether no physical access pattern
// names one of its locations.
func symbolicOnly(f *bir.Function) []bool {
	out := fill(make([]bool, f.NumTensors()), true)
	f.Walk(func(i bir.InstID) bool {
		for _, o := range f.Operands(i) {
			if o.Kind == bir.OpdPhysAP {
				out[f.Loc(o.Loc()).Tensor] = false
			}
		}
		return true
	})
	return out
}

// sameShape reports whether the locations have one memory type and one
// geometry.
func sameShape(f *bir.Function, locs []bir.LocID) bool {
	a := f.Loc(locs[0])
	for _, l := range locs[1:] {
		b := f.Loc(l)
		if b.Type != a.Type || b.Partitions != a.Partitions || b.Bytes != a.Bytes || b.RawDims != nil || a.RawDims != nil {
			return false
		}
	}
	return true
}
