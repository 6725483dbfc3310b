// The force-unroll fallback (seed 000, pick_unroll_loop and
// force_unroll_update): a tensor that needs a cut (or vn_splitter, or
// shrink_ml) but is still accessed through symbolic access patterns inside
// loops cannot be repaired until FullUnroll has made those accesses
// physical. pick_unroll_loop says whether any such tensor exists; each
// force_unroll_update round marks, for every such access, the innermost
// enclosing static loop not yet marked (the instruction attribute
// heuristic_unroll = true, which FullUnroll level 1 unrolls; a symbolic
// access outside every loop marks its function need_unroll), logs the
// tensor's unroll factor before and after, and returns how many tensors
// still have unmarked loops. The pass loops until it returns 0. The loop
// cloning itself is FullUnroll's.
package sbsize

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir/affine"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// repairable reports whether the tensor is repaired by a later pass.
func (ti *tensorInfo) repairable() bool {
	return ti.fix == fixSplit || ti.fix == fixVN || ti.fix == fixShrink
}

// loopMarked reports whether loop l is marked for FullUnroll.
func (fs *funcState) loopMarked(l bir.InstID) bool {
	return fs.f.HasAttribute(footprint.NeedUnrollAttr) || fs.f.Attrs(l).Bool(footprint.HeuristicAttr, false)
}

// pending returns, for each symbolic access of t not fully forced, the
// unit to mark next, or NoInst for the function: the innermost unmarked
// enclosing loop that moves the access along t's shrink dim (the record
// shrink_tensor wrote, getShrinkDim; see shrinkAxes), else the innermost
// unmarked enclosing loop. ok is false when nothing is left to force.
func (fs *funcState) pending(t bir.TensorID) (loops []bir.InstID, function bool) {
	f := fs.f
	for ai := range fs.info[t].accs {
		a := &fs.info[t].accs[ai]
		if !a.sym() {
			continue
		}
		nest := f.Loopnest(a.inst)
		if len(nest) == 0 {
			if !f.HasAttribute(footprint.NeedUnrollAttr) {
				function = true
			}
			continue
		}
		along := fs.shrinkAxes(t, a)
		pick := bir.NoInst
		for k := len(nest) - 1; k >= 0; k-- {
			if fs.loopMarked(nest[k]) {
				continue
			}
			if pick == bir.NoInst {
				pick = nest[k] // the innermost unmarked
			}
			if slices.Contains(along, f.Loop(nest[k]).Axis) {
				pick = nest[k]
				break
			}
		}
		if pick != bir.NoInst && !slices.Contains(loops, pick) {
			loops = append(loops, pick)
		}
	}
	return loops, function
}

// shrinkAxes returns the loop axes that move access a along t's shrink
// dim — force_unroll_update's reading of getShrinkDim (seed 000: "from =
// getShrinkDim(...) / current unroll factor"): the unrolling the pass
// forces proceeds along the dim shrink_tensor recorded first. For a block
// tensor with a record (liveN set) the shrink dim is the one its blocks
// stack along, so the axes are those of the access's block index; for
// another tensor they are the axes whose coefficient in the element offset
// moves along its shrink dim (footprint.ShrinkDimOf: the outermost free
// dim).
func (fs *funcState) shrinkAxes(t bir.TensorID, a *access) []affine.Axis {
	f, m := fs.f, fs.m
	ts := f.Tensor(t)
	o := f.Operands(a.inst)[a.opd]
	if ts.LiveN != 0 && ts.IsBlock && ts.NBlocks > 1 {
		return m.Expr(o.BlockExpr()).Axes(nil)
	}
	sd := int(footprint.ShrinkDimOf(ts))
	if sd < 0 || sd >= len(ts.Shape) {
		return nil
	}
	var out []affine.Axis
	for _, tm := range m.Expr(o.OffsetExpr()).Terms {
		if tm.Atom.Kind != affine.AtomAxis {
			continue
		}
		c := tm.Coeff
		if c < 0 {
			c = -c
		}
		if digit(c, ts.Shape, sd) != 0 {
			out = append(out, tm.Atom.Axis)
		}
	}
	return out
}

// factor is the tensor's largest unroll factor: over its symbolic
// accesses, the product of the trip counts of the marked enclosing loops.
func (fs *funcState) factor(t bir.TensorID) int64 {
	f, m := fs.f, fs.m
	var best int64 = 1
	for _, a := range fs.info[t].accs {
		if !a.sym() {
			continue
		}
		p := int64(1)
		for _, l := range f.Loopnest(a.inst) {
			if fs.loopMarked(l) {
				p *= max(m.Axis(f.Loop(l).Axis).TripCount(), 1)
			}
		}
		best = max(best, p)
	}
	return best
}

// pickUnrollLoop is pick_unroll_loop: is a repairable tensor still
// reached from a loop that is not marked for unrolling?
func (lz *legalizer) pickUnrollLoop() bool {
	found := false
	for _, fs := range lz.funcs {
		lz.enter(fs.f.Name)
		for t := range fs.info {
			if !fs.info[t].repairable() {
				continue
			}
			loops, fn := fs.pending(bir.TensorID(t))
			for _, l := range loops {
				ax := fs.m.Axis(fs.f.Loop(l).Axis)
				lz.logf("(unroll) %s: loop %s (trip count %d) must be unrolled", fs.f.Tensor(bir.TensorID(t)).Name, fs.f.InstName(l), ax.TripCount())
				found = true
			}
			if fn {
				lz.logf("(unroll) %s: function %s must be unrolled", fs.f.Tensor(bir.TensorID(t)).Name, fs.f.Name)
				found = true
			}
		}
	}
	lz.enter("")
	return found
}

// forceUnrollUpdate is one force_unroll_update round; it returns the
// number of tensors that still need forcing.
func (lz *legalizer) forceUnrollUpdate() int {
	lz.round++
	lz.st.ForceRounds++
	lz.logf("force loop round %d", lz.round)
	left := 0
	for _, fs := range lz.funcs {
		lz.enter(fs.f.Name)
		f := fs.f
		for t := range fs.info {
			ti := &fs.info[t]
			if !ti.repairable() || ti.forced {
				continue
			}
			tid := bir.TensorID(t)
			loops, fn := fs.pending(tid)
			if len(loops) == 0 && !fn {
				ti.forced = true
				continue
			}
			from := fs.factor(tid)
			for _, l := range loops {
				if !fs.loopMarked(l) {
					f.SetAttr(l, footprint.HeuristicAttr, bir.Bool(true))
					lz.st.LoopsForced++
					lz.st.TripCountUnrolled += fs.m.Axis(f.Loop(l).Axis).TripCount()
				}
			}
			if fn && !f.HasAttribute(footprint.NeedUnrollAttr) {
				f.AddAttribute(footprint.NeedUnrollAttr)
				lz.st.FunctionsForced++
			}
			to := fs.factor(tid)
			lz.logf("%s forced to unroll more from %d to %d", f.Tensor(tid).Name, from, to)
			if l2, fn2 := fs.pending(tid); len(l2) > 0 || fn2 {
				left++
			} else {
				ti.forced = true
			}
		}
	}
	lz.enter("")
	return left
}
