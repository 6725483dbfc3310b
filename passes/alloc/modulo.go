// ModuloAllocation (seed 002 §4.3): "It assigns successive iterations of a
// pipelined loop to different PSUM banks (modulo the 8-bank count) so
// producer and consumer overlap — a double/triple-buffer across the 8
// banks" (build_modulo_alloc_bank_and_block, calculateMaxInterleaveFactor,
// enableModuloAllocationForCompute); "When the interleave factor needs more
// than 8 banks the allocator errors — the runtime-built message fragment is
// ") exceeded PSUM bank limit "". Modulo allocation is PSUM-only (the
// seed's QUIRK: SBUF has no bank-index address kind).
//
// narwhal's reading, for functions that still have loops:
//
//   - enableModuloAllocationForCompute: a PSUM tensor qualifies when its
//     single (template) location is local to a loop L (decision.go: every
//     iteration writes it whole before reading it, so no value crosses
//     iterations), L is a parallel loop (block_is_parallel_loop: no
//     dependency carried by its axis) of at least two iterations, and the
//     tensor is reached only by symbolic access patterns.
//   - calculateMaxInterleaveFactor: the PSUM banks free beside the loop,
//     8 less the banks of every other PSUM location live at some point of
//     L's range (a sum: conservative), divided by the banks one iteration
//     of L's qualifying tensors takes; the factor is the least of that,
//     L's trip count and the option psum_interleave (default 2: double
//     buffering; "auto" is the default, a number asks for exactly that
//     factor and fails with the seed's message when it cannot have it).
//   - build_modulo_alloc_bank_and_block: each qualifying tensor becomes a
//     block tensor of `factor` blocks, one location each, and every access
//     picks block ((axis - lb) floordiv stride) mod factor of L's axis: the
//     iterations rotate over the slots, which the allocator places in
//     distinct banks (a slot is a matmul destination or a location of at
//     most a bank). The slots are live over the loop nest (the verifier's
//     locality rule sees a non-constant block, hence every slot, at each
//     access).
//
// Outputs are unchanged: a local tensor's value never crosses iterations,
// so which slot holds it does not matter.
package alloc

import (
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// ModuloStats count ModuloAllocation's rotations.
type ModuloStats struct {
	Loops   int // loops whose PSUM tensors rotate
	Tensors int // tensors rotated
	Banks   int // banks the rotations take beyond one slot each
}

// interleaveAuto is the default factor of option psum_interleave.
const interleaveAuto = 2

// moduloAllocation rotates the qualifying PSUM tensors of f (md is f's
// model with intervals). interleave is the option: 0 for auto, else the
// factor wanted. It reports whether it changed f.
func moduloAllocation(f *bir.Function, md *model, g [numMems]geometry, interleave int, st *ModuloStats) (bool, error) {
	gp := g[memPSUM]
	if gp.bank <= 0 {
		return false, nil
	}
	symOnly := symbolicOnly(f)
	banksOf := func(l bir.LocID) int64 {
		size := f.Loc(l).Bytes
		return (size + gp.bank - 1) / gp.bank
	}
	byLoop := map[bir.InstID][]bir.LocID{}
	var loops []bir.InstID
	for l := 0; l < len(md.flags); l++ {
		lid := bir.LocID(l)
		L := md.scope[l]
		if md.flags[l]&lfUsed == 0 || md.flags[l]&lfFixed != 0 || L == bir.NoInst {
			continue
		}
		lc := f.Loc(lid)
		ts := f.Tensor(lc.Tensor)
		if lc.Type != bir.MemPSUM || len(ts.Locs) != 1 || !symOnly[lc.Tensor] || banksOf(lid) > gp.banks {
			continue
		}
		ax := f.Module().Axis(f.Loop(L).Axis)
		if ax.TripCount() < 2 || !md.parallelLoop(L) {
			continue
		}
		if _, seen := byLoop[L]; !seen {
			loops = append(loops, L)
		}
		byLoop[L] = append(byLoop[L], lid)
	}
	if len(loops) == 0 {
		return false, nil
	}
	slices.Sort(loops)
	changed := false
	for _, L := range loops {
		cands := byLoop[L]
		lo, hi := md.loopRange(L)
		var slot, other int64
		in := map[bir.LocID]bool{}
		for _, l := range cands {
			slot += banksOf(l)
			in[l] = true
		}
		for l := 0; l < len(md.flags); l++ {
			lid := bir.LocID(l)
			if md.flags[l]&(lfUsed|lfFixed) == 0 || in[lid] || f.Loc(lid).Dead || f.Loc(lid).Type != bir.MemPSUM {
				continue
			}
			if md.flags[l]&lfFixed != 0 || md.lo[l] <= hi && lo <= md.hi[l] {
				other += banksOf(lid)
			}
		}
		trip := f.Module().Axis(f.Loop(L).Axis).TripCount()
		maxFactor := (gp.banks - other) / slot
		factor := int64(interleave)
		if interleave <= 0 {
			factor = min(int64(interleaveAuto), trip, maxFactor)
		} else if factor > maxFactor {
			names := ""
			for k, l := range cands {
				if k > 0 {
					names += ", "
				}
				names += f.Tensor(f.Loc(l).Tensor).Name
			}
			return changed, diag.Wrap(diag.DoesNotFit, f.Errorf(L, "ModuloAllocation: interleave factor %d x %d bank(s) for %s (+ %d bank(s) live beside them = %d) exceeded PSUM bank limit %d (option psum_interleave)",
				factor, slot, names, other, factor*slot+other, gp.banks))
		}
		if factor < 2 {
			continue
		}
		factor = min(factor, trip)
		for _, l := range cands {
			if err := rotate(f, l, L, factor); err != nil {
				return changed, err
			}
			st.Tensors++
			st.Banks += int((factor - 1) * banksOf(l))
		}
		st.Loops++
		changed = true
	}
	return changed, nil
}

// rotate makes location l's tensor a block tensor of factor blocks (one
// location each) chosen by loop L's iteration modulo factor.
func rotate(f *bir.Function, l bir.LocID, L bir.InstID, factor int64) error {
	m := f.Module()
	lc := *f.Loc(l)
	t := lc.Tensor
	axID := f.Loop(L).Axis
	ax := m.Axis(axID)
	iter := affine.FloorDiv(affine.Sub(affine.Var(axID), affine.Const(ax.Lb)), max(ax.Stride, 1))
	block := m.InternExpr(affine.Mod(iter, factor))
	f.Loc(l).TensorIdx = 0
	for b := int64(1); b < factor; b++ {
		nl := lc
		nl.Name = f.UniqueTensorLocName(lc.Name + "_bank" + strconv.FormatInt(b, 10))
		nl.TensorIdx = b
		nl.RawDims = append([]int64(nil), lc.RawDims...)
		if _, err := f.AddLoc(t, nl); err != nil {
			// The name is unique (UniqueTensorLocName).
			return diag.Wrap(diag.Internal, f.TensorErrorf(t, "%v", err))
		}
	}
	ts := f.Tensor(t)
	ts.IsBlock, ts.NBlocks = true, factor
	f.Walk(func(i bir.InstID) bool {
		for k, o := range f.Operands(i) {
			if o.Kind == bir.OpdSymAP && o.TensorRef() == t {
				o.Expr = block
				f.SetOperand(i, k, o)
			}
		}
		return true
	})
	return nil
}
