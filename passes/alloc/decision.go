// AllocationDecision and the stack-discipline live intervals, for
// functions that still have loops (FullUnroll levels 0 and 1). Seed 002
// §4.1: AllocationDecision "Allocation decision based on the loopnest
// structure" (block_is_parallel_loop, block_is_distributed_loop,
// checkMatmultAccLoop) decides "per loop-nest, which tensors are top-level
// (allocated once, resident) vs local (re-allocated per iteration). A
// matmul accumulation loop keeps its PSUM accumulator resident across the
// K-loop (checkMatmultAccLoop)." AllocateBlocks "Allocate blocks for local
// tensors and build live interval analysis", with static tensors excluded
// (_exclude_static_tensors_from_live_interval). NeuronStackLiveInterval:
// "each tensor expand their live interval to the range of the parent loop
// that [contains it]".
//
// narwhal's reading, per on-chip location:
//
//   - Local to loop L (the seed's "local"): every touch is inside L, and
//     the first touch in program order is a definite write of the whole
//     location, done in every iteration of L before any other touch: the
//     instruction writes the location without reading it (a Matmult without
//     start_tensor_calc accumulates, so it reads), its destination pattern
//     is contiguous row-major over all the location's bytes at offset 0,
//     every loop between L and it runs at least once, and its predicate is
//     true or depends only on the axes of those loops and holds at their
//     lower bounds. The value then never crosses from one iteration of L to
//     the next, nor leaves L. Its interval is L's range (the stack
//     discipline: push at L's entry, pop at its exit) and the location is
//     re-used by every iteration.
//   - checkMatmultAccLoop is that rule's predicate clause: a PSUM
//     accumulator started at k == 0 and stopped at k == KT-1 inside the K
//     loop is not local to the K loop (the predicate reads k), but is local
//     to the loop around it, so it stays resident across the whole K loop.
//   - The innermost loop a location is local to is its scope. A location
//     local to no loop is top-level: each touch inside a loop is widened to
//     the range of its outermost loop, and the interval is the hull.
//   - Static tensors (locations that arrive allocated or pinned) are not
//     in the analysis: they are fixed obstacles over the whole function.
//   - block_is_parallel_loop: no dependency of the loop's body is carried
//     by its axis. It decides which loops ModuloAllocation pipelines
//     (modulo.go). block_is_distributed_loop: narwhal has no loop
//     distributed across cores (an LNC kernel is one body per core), so no
//     loop is one.
//
// The verifier's rule "overlap" computes live ranges with the same rules,
// independently (verify/overlap.go): an allocation made here passes it.
package alloc

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// loopInterval returns location l's interval and scope in a function with
// loops.
func (m *model) loopInterval(l bir.LocID) (int32, int32, bir.InstID) {
	lo, hi := m.first[l], m.last[l]
	first := m.firstInst[l]
	// The innermost loop holding every touch.
	L := m.enclosingLoop(first)
	for L != bir.NoInst {
		if _, h := m.loopRange(L); hi <= h {
			break
		}
		L = m.enclosingLoop(L)
	}
	for ; L != bir.NoInst; L = m.enclosingLoop(L) {
		if m.definiteWrite(first, l, L) {
			a, b := m.loopRange(L)
			return a, b, L
		}
	}
	if o := m.outermost(first); o != bir.NoInst {
		a, _ := m.loopRange(o)
		lo = min(lo, a)
	}
	if o := m.outermost(m.lastInst[l]); o != bir.NoInst {
		_, b := m.loopRange(o)
		hi = max(hi, b)
	}
	return lo, hi, bir.NoInst
}

func (m *model) outermost(i bir.InstID) bir.InstID {
	o := bir.NoInst
	for L := m.enclosingLoop(i); L != bir.NoInst; L = m.enclosingLoop(L) {
		o = L
	}
	return o
}

// definiteWrite reports whether instruction i writes all of l, without
// reading it, in every iteration of L before any other touch of l (i is
// l's first touch).
func (m *model) definiteWrite(i bir.InstID, l bir.LocID, L bir.InstID) bool {
	f := m.f
	in := f.Inst(i)
	nIn := int(in.NIns)
	ops := f.Operands(i)
	for k := 0; k < nIn; k++ {
		for _, x := range m.resolve(&ops[k]) {
			if x == l {
				return false
			}
		}
	}
	if in.Op.IsMatmul() && !f.Attrs(i).Bool("start_tensor_calc", false) {
		return false
	}
	whole := false
	for k := nIn; k < len(ops) && !whole; k++ {
		whole = m.writesWhole(&ops[k], l)
	}
	if !whole {
		return false
	}
	var env affine.Values
	mod := f.Module()
	for J := m.enclosingLoop(i); J != L; J = m.enclosingLoop(J) {
		if J == bir.NoInst {
			return false
		}
		ax := mod.Axis(f.Loop(J).Axis)
		if ax.TripCount() < 1 {
			return false
		}
		env.Bind(f.Loop(J).Axis, ax.Lb)
	}
	if in.Pred == 0 {
		return true
	}
	ok, err := mod.Pred(in.Pred).Eval(&env)
	return err == nil && ok
}

// writesWhole reports whether destination o writes every byte of l: it
// resolves to l alone, at offset 0, with a contiguous row-major pattern
// over all of l's bytes.
func (m *model) writesWhole(o *bir.Operand, l bir.LocID) bool {
	f := m.f
	mod := f.Module()
	lc := f.Loc(l)
	switch o.Kind {
	case bir.OpdPhysAP:
		if o.Loc() != l || o.Offset != 0 {
			return false
		}
	case bir.OpdSymAP:
		if o.TensorRef() != lc.Tensor {
			return false
		}
		if oe := mod.Expr(o.OffsetExpr()); !oe.IsConst() || oe.Const != 0 {
			return false
		}
		if be := mod.Expr(o.BlockExpr()); be.IsConst() {
			if x, ok := f.LocForBlock(lc.Tensor, be.Const); !ok || x != l {
				return false
			}
		} else if len(f.Tensor(lc.Tensor).Locs) != 1 {
			return false
		}
	default:
		return false
	}
	p := mod.Pattern(o.Pattern)
	n := int64(1)
	for k := len(p) - 1; k >= 0; k-- {
		if p[k].Step != n {
			return false
		}
		n *= p[k].Num
	}
	return n*o.Dtype.Size() == lc.Partitions*lc.Bytes
}
