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
//   - isMx (analyze's pre-filter; the seed's "special / skip" is not
//     traced): MX (block-scaled) locations are left as declared — a
//     tensor of an x4-packed dtype, or a location some access reads or
//     writes as one (footprint.IsMx, the rule vn_splitter and
//     sb_size_legalization's prediction share). narwhal's IR has no MX
//     instruction whose layout rules it could check (packed data is only
//     copied raw or set to 0) and does not link MX data to its scales (a
//     separate tensor: one scale per 8 partitions x 4 values,
//     nki.isa.quantize_mx), so it cannot tell whether a trimmed MX tile
//     still has the layout its consumers expect; it takes the
//     conservative reading of the seed's skip.
//   - Left untouched (logged): locations of kernel interfaces, allocated
//     or pinned ones, MX data, block templates, tensors still accessed
//     symbolically or through registers, tensors marked with a splitShape
//     (FullUnroll's cut needs the declared layout), locations read as
//     another element size (reinterpret casts), and locations accessed by
//     opcodes whose effect narwhal does not follow (footprint.ReachOf:
//     indirect DMA, collectives, calls, DMA descriptors, DMACopy modes
//     other than Copy, CCE and the 2-D Transpose, opcodes kept verbatim).
//   - updateDimensions and getShrinkDim: the location's bytes per
//     partition become the window's. When every live location of the
//     tensor shrank, the tensor's shape shrinks along its shrink dim — the
//     dim shrinkTensor recorded (it runs first, the seed's order), or for a
//     tensor without a record footprint.ShrinkDimOf, the same rule: the
//     outermost free dim — to the largest window among its locations, when
//     that window is a whole number of rows of the dims inside the shrink
//     dim ([128, 16, 4800] trimmed to 3 x 4800 elements becomes [128, 3,
//     4800]); otherwise the shape becomes [partitions, window]. The shrink
//     record keeps naming a dim of the new shape.
package shrink

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// shrinkDN is ShrinkDN for one function. It works in two sweeps over the
// instruction stream in program order — the analysis, then the rewrite of
// the shrunk locations' accesses — with a small state per location, so a
// large module's operands are visited sequentially rather than location
// by location.
type shrinkDN struct {
	f   *bir.Function
	m   *bir.Module
	st  *Stats
	log func(format string, args ...any)

	win     []window // per location
	symUse  []int32  // per tensor: first symbolic or register use + 1
	reasons []string // skip reasons found by the sweep
	lc      footprint.LayoutCache
}

// window is ShrinkDN's state for one location.
type window struct {
	e      int64 // elements per partition
	lo, hi int64 // live window (hi < lo: no access yet)
	parts  int64
	ds     int32
	why    int32 // skip reason index + 1 (0: none)
	cand   bool
	pre    bool // why is a pre-filter reason
}

// run is ShrinkDN::run for one function.
func (s *shrinkDN) run() {
	f := s.f
	n := f.NumLocs()
	s.win = make([]window, n)
	s.symUse = make([]int32, f.NumTensors())
	var locs []bir.LocID
	for l := bir.LocID(0); int(l) < n; l++ {
		lc := f.Loc(l)
		if lc.Dead || !lc.Type.IsOnChip() {
			continue
		}
		s.st.Examined++
		locs = append(locs, l)
		s.prefilter(l)
	}
	s.sweep()
	var shrunk []bir.TensorID
	found := false
	for _, l := range locs {
		w := &s.win[l]
		if w.pre {
			s.skipf(l, "%s", s.reasons[w.why-1])
			continue
		}
		if !w.cand {
			continue
		}
		lc := f.Loc(l)
		if u := s.symUse[lc.Tensor]; u != 0 {
			i := bir.InstID(u - 1)
			s.skipf(l, "instruction %s accesses tensor %s through a %s", f.InstName(i), f.Tensor(lc.Tensor).Name, symKind(f, i, lc.Tensor))
			continue
		}
		if w.why != 0 {
			s.skipf(l, "%s", s.reasons[w.why-1])
			continue
		}
		if w.hi < w.lo || w.hi-w.lo+1 >= w.e {
			w.cand = false // unused, or nothing to trim
			continue
		}
		found = true
		shrunk = append(shrunk, lc.Tensor)
	}
	if !found {
		return
	}
	s.rewrite()
	slices.Sort(shrunk)
	for _, t := range slices.Compact(shrunk) {
		s.updateTensor(t)
	}
}

func symKind(f *bir.Function, i bir.InstID, t bir.TensorID) bir.OperandKind {
	for _, o := range f.Operands(i) {
		if (o.Kind == bir.OpdSymAP || o.Kind == bir.OpdRegAP) && o.TensorRef() == t {
			return o.Kind
		}
	}
	return bir.OpdSymAP
}

// prefilterf records a pre-filter reason, logged in location order.
func (s *shrinkDN) prefilterf(l bir.LocID, format string, args ...any) {
	s.reasons = append(s.reasons, fmt.Sprintf(format, args...))
	s.win[l] = window{why: int32(len(s.reasons)), pre: true}
}

func (s *shrinkDN) skipf(l bir.LocID, format string, args ...any) {
	s.st.Skipped++
	s.win[l].cand = false
	if s.log != nil {
		s.log("ShrinkDN: %s left as declared: %s", s.f.Loc(l).Name, fmt.Sprintf(format, args...))
	}
}

// prefilter marks location l a candidate unless its tensor or placement
// rules it out (logged).
func (s *shrinkDN) prefilter(l bir.LocID) {
	f := s.f
	lc := f.Loc(l)
	ts := f.Tensor(lc.Tensor)
	ds := ts.Dtype.Size()
	switch {
	case ts.Kind != bir.KindInternal:
		s.prefilterf(l, "a %s tensor (kernel interface)", ts.Kind)
	case lc.Allocated || lc.Pinned:
		s.prefilterf(l, "already allocated")
	case footprint.IsMx(ts.Dtype):
		s.prefilterf(l, "MX (block-scaled) data (a %s tensor)", ts.Dtype)
	case lc.RawDims != nil:
		s.prefilterf(l, "dims %v are not [partitions, bytes]", lc.RawDims)
	case ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1:
		s.prefilterf(l, "the template of %d blocks", ts.NBlocks)
	case markedForCut(ts):
		s.prefilterf(l, "tensor %s is marked with splitShape %v for FullUnroll's cut", ts.Name, ts.SplitShape)
	case ds == 0 || lc.Bytes%ds != 0 || lc.Bytes == 0:
		s.prefilterf(l, "%d bytes per partition of %s", lc.Bytes, ts.Dtype)
	default:
		e := lc.Bytes / ds
		s.win[l] = window{e: e, lo: e, hi: -1, parts: lc.Partitions, ds: int32(ds), cand: true}
	}
}

// opReason returns why the effect of instruction i on its access patterns
// is not one ShrinkDN follows ("" when it is): footprint.ReachOf, the
// description the footprint passes share.
func (s *shrinkDN) opReason(i bir.InstID) string {
	return footprint.ReachOf(s.f, i).Why(s.f, i)
}

func (s *shrinkDN) bad(w *window, format string, args ...any) {
	if w.why == 0 {
		s.reasons = append(s.reasons, fmt.Sprintf(format, args...))
		w.why = int32(len(s.reasons))
	}
}

// sweep is ShrinkDN::analyze over every location at once: the live
// window of each candidate and the first reason to leave it alone
// (reinterpret cast, shifted-partition or non-contiguous access, an
// opcode whose effect is not followed). The reason reported is the first
// in program order.
func (s *shrinkDN) sweep() {
	f, m := s.f, s.m
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		checked, opWhy := false, ""
		for k, o := range f.Operands(i) {
			switch o.Kind {
			case bir.OpdSymAP, bir.OpdRegAP:
				if t := o.TensorRef(); int(t) >= 0 && int(t) < len(s.symUse) && s.symUse[t] == 0 {
					s.symUse[t] = int32(i) + 1
				}
				continue
			case bir.OpdPhysAP:
			default:
				continue
			}
			l := o.Loc()
			if int(l) < 0 || int(l) >= len(s.win) {
				continue
			}
			w := &s.win[l]
			if !w.cand || w.why != 0 {
				continue
			}
			if !checked {
				checked, opWhy = true, s.opReason(i)
			}
			if opWhy != "" {
				s.bad(w, "instruction %s (%s) %s", f.InstName(i), f.OpName(i), opWhy)
				continue
			}
			if footprint.IsMx(o.Dtype) {
				s.bad(w, "MX (block-scaled) data (instruction %s accesses it as %s)", f.InstName(i), o.Dtype)
				continue
			}
			if o.Dtype.Size() != int64(w.ds) {
				s.bad(w, "instruction %s reinterprets it as %s", f.InstName(i), o.Dtype)
				continue
			}
			lay := s.lc.Layout(m, o.Offset, o.Pattern, w.e)
			switch lay.Class {
			case footprint.APContiguous:
			case footprint.APShifted:
				s.bad(w, "instruction %s, operand %d: a shifted-partition access", f.InstName(i), k)
				continue
			default:
				s.bad(w, "instruction %s, operand %d: a %s access (not shrinkable)", f.InstName(i), k, lay.Class)
				continue
			}
			if lay.PartMin() < 0 || lay.PartMax() >= w.parts {
				s.bad(w, "instruction %s, operand %d leaves its %d partitions", f.InstName(i), k, w.parts)
				continue
			}
			w.lo = min(w.lo, lay.ElemLo)
			w.hi = max(w.hi, lay.ElemHi)
		}
		return true
	})
}

// rewrite is ShrinkDN::shrinkDN for every shrunk location: each access
// rewritten for the window (updateChannelStep, shrinkPAP), then the
// location's size (updateDimensions).
func (s *shrinkDN) rewrite() {
	f, m := s.f, s.m
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		n := int(in.NIns) + int(in.NOuts)
		for k := 0; k < n; k++ {
			o := f.Operands(i)[k]
			if o.Kind != bir.OpdPhysAP || int(o.Loc()) < 0 || int(o.Loc()) >= len(s.win) || !s.win[o.Loc()].cand {
				continue
			}
			w := &s.win[o.Loc()]
			ne := w.hi - w.lo + 1
			o = updateChannelStep(o, w.e, ne, w.lo)
			o.Pattern = m.InternPattern(shrinkPAP(m.Pattern(o.Pattern), w.e, ne))
			f.SetOperand(i, k, o)
		}
		return true
	})
	for l := range s.win {
		w := &s.win[l]
		if !w.cand {
			continue
		}
		lc := f.Loc(bir.LocID(l))
		ne := w.hi - w.lo + 1
		old := lc.Bytes
		lc.Bytes = ne * int64(w.ds) // updateDimensions
		s.st.Shrunk++
		s.st.BytesSaved += (old - lc.Bytes) * lc.Partitions
		if s.log != nil {
			s.log("ShrinkDN: %s: %d -> %d bytes per partition (elements %d..%d of %d live)", lc.Name, old, lc.Bytes, w.lo, w.hi, w.e)
		}
	}
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
	sd := footprint.ShrinkDimOf(ts)
	if ts.LiveN != 0 {
		sd = ts.ShrinkDim // getShrinkDim: shrinkTensor's record
	}
	inner := int64(1)
	if sd >= 1 && sd < int64(len(ts.Shape)) {
		for _, x := range ts.Shape[sd+1:] {
			inner *= x
		}
	}
	if sd == 1 && inner > 0 && maxE%inner == 0 {
		shape := slices.Clone(ts.Shape)
		shape[sd] = maxE / inner
		ts.Shape = shape
	} else {
		ts.Shape = []int64{ts.Shape[0], maxE}
		if ts.LiveN != 0 && ts.ShrinkDim >= int64(len(ts.Shape)) {
			ts.ShrinkDim = 1
		}
	}
	ts.SplitShape = nil
}
