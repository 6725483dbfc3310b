// ShrinkDN (seed 004 §3.1-3.3): trim each SB/PSUM location to the bytes
// per partition its accesses actually reach.
//
//	ShrinkDN::run:  for each memory location: skip reinterpret-cast nodes;
//	                analyze; shrinkDN
//	analyze:        over the writers (then the readers): bail on a
//	                shifted-partition or non-contiguous access
//	                (isShiftedPartitionAccess, isShrinkable =
//	                isPartitionContiguous); the live window is the
//	                in-partition element range they reach
//	                (getElementRangeInPartition)
//	shrinkDN:       per access, updateChannelStep (the partition pair's step
//	                becomes the new partition size, the offset is re-packed
//	                newStep * partition + in-partition offset) and shrinkPAP
//	                (the pattern rewritten for the new size); then
//	                updateDimensions writes the new bytes per partition back
//
// Decisions where the seed is silent:
//
//   - The window is [lowest, highest] in-partition element over every
//     access, writers and readers alike (the seed reads the writers in
//     analyze and the "matching readers" in shrinkDN; a reader reaching
//     outside the writers' window would otherwise be left out of bounds).
//     Both ends are trimmed: an access at in-partition element x moves to
//     x - lowest. In-partition pairs keep their steps (they stay inside the
//     window by construction); only pairs that move whole partitions are
//     rescaled, including num-1 pairs, so a compute-engine access keeps
//     pair-0 step = elements per partition.
//   - Left untouched (logged): locations of kernel interfaces, allocated
//     or pinned ones, block templates, tensors still accessed symbolically
//     or through registers, tensors marked with a splitShape (FullUnroll's
//     cut needs the declared layout), locations read as another element
//     size (reinterpret casts), and locations accessed by opcodes whose
//     effect narwhal does not follow (indirect DMA, collectives, calls,
//     DMA descriptors, DMACopy modes other than Copy/CCE, opcodes kept
//     verbatim).
//   - updateDimensions: the location's bytes per partition become the
//     window's; the tensor's shape becomes [partitions, window] when every
//     live location of the tensor shrank (the largest window among them),
//     and its shrink record, if any, keeps a dim of the new shape.
package shrink

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// shrinkDN is ShrinkDN for one function.
type shrinkDN struct {
	f   *bir.Function
	m   *bir.Module
	st  *Stats
	log func(format string, args ...any)
	// uses is the use index of the function before any rewrite.
	uses *bir.UseIndex
}

// run is ShrinkDN::run for one function.
func (s *shrinkDN) run() {
	f := s.f
	n := f.NumLocs()
	// Analyze every location against one use index, then rewrite: the
	// rewrites of different locations touch different operands, and
	// rebuilding the index after each would make the pass quadratic.
	s.uses = f.Uses()
	type window struct {
		l      bir.LocID
		lo, hi int64
	}
	var ws []window
	for l := bir.LocID(0); int(l) < n; l++ {
		lc := f.Loc(l)
		if lc.Dead || !lc.Type.IsOnChip() {
			continue
		}
		s.st.Examined++
		if lo, hi, ok := s.analyze(l); ok {
			ws = append(ws, window{l, lo, hi})
		}
	}
	var shrunk []bir.TensorID
	for _, w := range ws {
		if s.shrinkDN(w.l, w.lo, w.hi) {
			shrunk = append(shrunk, f.Loc(w.l).Tensor)
		}
	}
	slices.Sort(shrunk)
	for _, t := range slices.Compact(shrunk) {
		s.updateTensor(t)
	}
}

func (s *shrinkDN) skip(l bir.LocID, format string, args ...any) (int64, int64, bool) {
	s.st.Skipped++
	if s.log != nil {
		s.log("ShrinkDN: %s left as declared: %s", s.f.Loc(l).Name, fmt.Sprintf(format, args...))
	}
	return 0, 0, false
}

// analyze is ShrinkDN::analyze: the live window [lo, hi] of location l,
// in elements of a partition.
func (s *shrinkDN) analyze(l bir.LocID) (lo, hi int64, ok bool) {
	f, m := s.f, s.m
	lc := f.Loc(l)
	ts := f.Tensor(lc.Tensor)
	uses := s.uses
	switch {
	case ts.Kind != bir.KindInternal:
		return s.skip(l, "a %s tensor (kernel interface)", ts.Kind)
	case lc.Allocated || lc.Pinned:
		return s.skip(l, "already allocated")
	case lc.RawDims != nil:
		return s.skip(l, "dims %v are not [partitions, bytes]", lc.RawDims)
	case ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1:
		return s.skip(l, "the template of %d blocks", ts.NBlocks)
	case markedForCut(ts):
		return s.skip(l, "tensor %s is marked with splitShape %v for FullUnroll's cut", ts.Name, ts.SplitShape)
	}
	if u := uses.Tensor(lc.Tensor); len(u) > 0 {
		return s.skip(l, "instruction %s accesses tensor %s through a %s", f.InstName(u[0].Inst), ts.Name, f.Operands(u[0].Inst)[u[0].Operand].Kind)
	}
	ds := ts.Dtype.Size()
	if ds == 0 || lc.Bytes%ds != 0 || lc.Bytes == 0 {
		return s.skip(l, "%d bytes per partition of %s", lc.Bytes, ts.Dtype)
	}
	e := lc.Bytes / ds
	lu := uses.Loc(l)
	if len(lu) == 0 {
		return 0, 0, false // unused: nothing says what is live
	}
	// Reinterpret casts first (ShrinkDN::run skips such nodes), then the
	// writers, then the readers.
	for _, u := range lu {
		if o := f.Operands(u.Inst)[u.Operand]; o.Dtype.Size() != ds {
			return s.skip(l, "instruction %s reinterprets it as %s", f.InstName(u.Inst), o.Dtype)
		}
		if why := opaque(f, u.Inst); why != "" {
			return s.skip(l, "instruction %s (%s) %s", f.InstName(u.Inst), f.OpName(u.Inst), why)
		}
	}
	lo, hi = e, -1
	for pass := 0; pass < 2; pass++ {
		wantOut := pass == 0
		for _, u := range lu {
			if u.Out != wantOut {
				continue
			}
			o := f.Operands(u.Inst)[u.Operand]
			lay := bir.OnChipLayout(o.Offset, m.Pattern(o.Pattern), e)
			switch lay.Class {
			case bir.APContiguous:
			case bir.APShifted:
				return s.skip(l, "instruction %s, operand %d: a shifted-partition access", f.InstName(u.Inst), u.Operand)
			default:
				return s.skip(l, "instruction %s, operand %d: a %s access (not shrinkable)", f.InstName(u.Inst), u.Operand, lay.Class)
			}
			if lay.PartMin() < 0 || lay.PartMax() >= lc.Partitions {
				return s.skip(l, "instruction %s, operand %d leaves its %d partitions", f.InstName(u.Inst), u.Operand, lc.Partitions)
			}
			lo = min(lo, lay.ElemLo)
			hi = max(hi, lay.ElemHi)
		}
	}
	if hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}

// markedForCut reports whether a tensor carries a splitShape with a cut.
func markedForCut(ts *bir.Tensor) bool {
	for _, b := range ts.SplitShape {
		if b {
			return true
		}
	}
	return false
}

// opaque says why instruction i's effect on its access patterns is not
// one ShrinkDN can follow ("" when it can).
func opaque(f *bir.Function, i bir.InstID) string {
	op := f.Inst(i).Op
	info := op.Info()
	switch {
	case !op.Known() || info.Has(bir.FlagNoSemantics):
		return "is kept verbatim (no modelled semantics)"
	case info.Has(bir.FlagCall), info.Has(bir.FlagCollective), info.Has(bir.FlagDescriptor):
		return "is a call, collective or DMA descriptor"
	}
	switch op {
	case bir.OpGenericIndirectLoad, bir.OpGenericIndirectSave, bir.OpIndirectLoad, bir.OpIndirectSave,
		bir.OpIndirectSaveAccumulate, bir.OpReadVarAddr:
		return "is an indirect access"
	case bir.OpDMACopy:
		if mode := f.Attrs(i).Str("mode", "Copy"); mode != "Copy" && mode != "CCE" {
			return "moves data in mode " + mode
		}
	}
	return ""
}

// shrinkDN is ShrinkDN::shrinkDN: rewrite every access of l for the
// window [lo, hi] and the location's size. It reports whether l shrank.
func (s *shrinkDN) shrinkDN(l bir.LocID, lo, hi int64) bool {
	f, m := s.f, s.m
	lc := f.Loc(l)
	ds := f.Tensor(lc.Tensor).Dtype.Size()
	e := lc.Bytes / ds
	ne := hi - lo + 1
	if ne >= e {
		return false
	}
	for _, u := range s.uses.Loc(l) {
		o := f.Operands(u.Inst)[u.Operand]
		o = updateChannelStep(o, e, ne, lo)
		o.Pattern = m.InternPattern(shrinkPAP(m.Pattern(o.Pattern), e, ne))
		f.SetOperand(u.Inst, int(u.Operand), o)
	}
	old := lc.Bytes
	f.Loc(l).Bytes = ne * ds // updateDimensions
	s.st.Shrunk++
	s.st.BytesSaved += (old - ne*ds) * lc.Partitions
	if s.log != nil {
		s.log("ShrinkDN: %s: %d -> %d bytes per partition (elements %d..%d of %d live)", lc.Name, old, ne*ds, lo, hi, e)
	}
	return true
}

// updateChannelStep re-packs an access's offset for partitions of ne
// elements: partition p, in-partition element x becomes p*ne + (x - lo).
// (The partition pair's step is rescaled by shrinkPAP.)
func updateChannelStep(o bir.Operand, e, ne, lo int64) bir.Operand {
	p, x := o.Offset/e, o.Offset%e
	o.Offset = p*ne + (x - lo)
	return o
}

// shrinkPAP rewrites a pattern for partitions of ne elements instead of
// e: a pair moving whole partitions keeps moving as many partitions (its
// step scaled to ne); in-partition pairs are unchanged.
func shrinkPAP(pat bir.Pattern, e, ne int64) bir.Pattern {
	out := make(bir.Pattern, len(pat))
	for i, q := range pat {
		out[i] = q
		if q.Step != 0 && q.Step%e == 0 {
			out[i].Step = q.Step / e * ne
		}
	}
	return out
}

// updateTensor is updateDimensions at the tensor: when every live
// location of t shrank below the shape's elements per partition, the
// shape becomes [partitions, largest window].
func (s *shrinkDN) updateTensor(t bir.TensorID) {
	f := s.f
	ts := f.Tensor(t)
	if ts.PartitionDim != 0 || len(ts.Shape) == 0 {
		return
	}
	free := int64(1)
	for _, x := range ts.Shape[1:] {
		free *= x
	}
	ds := ts.Dtype.Size()
	var maxE int64
	for _, l := range ts.Locs {
		lc := f.Loc(l)
		if lc.Dead {
			continue
		}
		ne := lc.Bytes / ds
		if ne >= free {
			return
		}
		maxE = max(maxE, ne)
	}
	if maxE == 0 {
		return
	}
	ts.Shape = []int64{ts.Shape[0], maxE}
	ts.SplitShape = nil
	if ts.LiveN != 0 && ts.ShrinkDim >= int64(len(ts.Shape)) {
		ts.ShrinkDim = 1
	}
}
