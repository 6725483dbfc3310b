package api

// Access patterns (tensor.ap) and the DMA instructions of the current API
// (nisa.dma_copy, nisa.dma_compute).
//
// t.ap(pattern, offset=0, scalar_offset=None, vector_offset=None,
// indirect_dim=0, dtype=None) is a view of t (the deep dive "NKI Access
// Patterns"): view[i0, i1, ...] = t.flatten()[offset + i0*step0 +
// i1*step1 + ...]; on an SBUF or PSUM tensor the first pair walks the
// partitions ("the step of the leading dimension must be the element count
// of the entire free dimension"). It is allowed on a tensor only, not on a
// view ("cannot specify an access pattern on an already indexed tensor").
//
// The dynamic forms (the migration guide, "Dynamic Access Pattern"):
//
//   - scalar_offset (a one-element SBUF tensor, or a register): the access
//     starts at offset + value * prod(t.shape[indirect_dim+1:]) ("the
//     dimension is relative to the base tensor, not relative to the
//     pattern"): the value is loaded into a register (TensorLoad), scaled
//     (RegisterAlu mult) and the view becomes a register access pattern;
//     any instruction can read or write it;
//   - vector_offset (an on-chip [P, 1] integer tensor; indirect_dim 0
//     only, "Currently, only indirect_dim=0 is supported"): partition p of
//     the view is row vector_offset[p] of t, the pattern's other pairs
//     walking within it ("the stride specified in the leading dimension of
//     the pattern in the .ap() is currently ignored"). nisa.dma_copy reads
//     it as a gather (GenericIndirectLoad: src is the view, dst on chip)
//     and writes it as a scatter (GenericIndirectSave in the dataflow
//     layout: dst is the view); oob_mode=nisa.oob_mode.skip skips rows
//     whose index is outside t (attribute oob_is_err false). The indexed
//     tensor is in HBM (the DMA's indirect forms address DRAM).

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// indirect is a vector_offset view's index: one row of the base tensor per
// partition of the view.
type indirect struct {
	index lower.Access // [P, 1] on chip
	dim   int
}

// apView implements t.ap(...).
func (v *Tensor) apView(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = ".ap()"
	var pattern, offV, scalarV, vectorV, dtV tracer.Value
	var dim int64
	if err := isaUnpack(what, args, kwargs, "pattern", &pattern, "offset?", &offV, "scalar_offset?", &scalarV,
		"vector_offset?", &vectorV, "indirect_dim?", &dim, "dtype?", &dtV); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	if v.res != nil || v.view != nil || v.ind != nil {
		return nil, nkiErrorf(".ap() of %s, a view: an access pattern is specified on a tensor made by nl.ndarray (\"cannot specify an access pattern on an already indexed tensor\")", v.describe())
	}
	t := v.t
	pat, err := patternOf(th, pattern, what)
	if err != nil {
		return nil, err
	}
	off := affine.Const(0)
	if !isNone(offV) {
		x, ok, err := toIndex(th, offV)
		if err != nil {
			return nil, err
		}
		if !ok || !x.IsScalar() {
			return nil, typeErrorf("%s: offset= takes an int (or a loop iterator), not %s", what, offV.Type())
		}
		off = x.Sym
	}
	dt, err := optDtype(dtV, t.Dtype)
	if err != nil {
		return nil, err
	}
	if !isNone(scalarV) && !isNone(vectorV) {
		return nil, nkiErrorf("%s: at most one of scalar_offset and vector_offset (\"At most one of the scalar_offset and vector_offset can be specified\")", what)
	}
	if dim < 0 || int(dim) >= len(t.Shape) {
		return nil, nkiErrorf("%s: indirect_dim %d is not a dimension of %s (shape %s)", what, dim, t.Describe(), shapeText(t.Shape))
	}
	rowElems := int64(1)
	for _, d := range t.Shape[dim+1:] {
		rowElems *= d
	}
	if !isNone(vectorV) {
		return v.vectorView(th, st, pat, off, dt, vectorV, int(dim))
	}
	a, err := t.APView(pat, off, dt)
	if err != nil {
		return nil, convert(err)
	}
	if !isNone(scalarV) {
		val, err := scalarOffsetValue(th, st, scalarV, what)
		if err != nil {
			return nil, err
		}
		if a, err = st.k.RegOffset("the scalar_offset of .ap()", a, val, rowElems); err != nil {
			return nil, convert(err)
		}
	}
	return newView(st, a, th.CallPos()), nil
}

// scalarOffsetValue converts scalar_offset=: a register, or a one-element
// tensor whose value is loaded into a fresh register.
func scalarOffsetValue(th *tracer.Thread, st *state, x tracer.Value, what string) (lower.RegValue, error) {
	switch s := x.(type) {
	case *VirtualRegister:
		return s.val, nil
	case *Tensor:
		a, err := s.access()
		if err != nil {
			return lower.RegValue{}, err
		}
		r, err := st.k.NewRegister(nil)
		if err != nil {
			return lower.RegValue{}, convert(err)
		}
		if err := st.k.RegLoad(r, a); err != nil {
			return lower.RegValue{}, convert(err)
		}
		return lower.RegValue{Reg: r}, nil
	}
	return lower.RegValue{}, typeErrorf("%s: scalar_offset= takes a one-element tensor or a register, not %s", what, x.Type())
}

// vectorView builds a vector_offset view.
func (v *Tensor) vectorView(th *tracer.Thread, st *state, pat [][2]int64, off affine.Expr, dt bir.Dtype, idxV tracer.Value, dim int) (tracer.Value, error) {
	const what = ".ap(vector_offset=...)"
	t := v.t
	if dim != 0 {
		return nil, notSupportedf("%s with indirect_dim=%d: only indirect_dim=0 is supported (\"Currently, only indirect_dim=0 is supported\")", what, dim)
	}
	if t.IsOnChip() {
		return nil, notSupportedf("%s of %s in %s: narwhal's indirect DMAs index HBM tensors", what, t.Describe(), t.Mem)
	}
	idx, ok := idxV.(*Tensor)
	if !ok {
		return nil, typeErrorf("%s: vector_offset= takes an on-chip [P, 1] integer tensor, not %s", what, idxV.Type())
	}
	ia, err := idx.access()
	if err != nil {
		return nil, err
	}
	if !ia.T.IsOnChip() || ia.FreeElems() != 1 || ia.Dtype.IsFloat() {
		return nil, nkiErrorf("%s: vector_offset must be an SBUF [P, 1] integer tensor, have %s %s %s", what, ia.T.Describe(), shapeText(ia.Shape()), ia.Dtype)
	}
	if len(pat) == 0 || pat[0][1] != ia.Partitions() {
		return nil, nkiErrorf("%s: the pattern's first pair must count the %d rows vector_offset gives, have %v", what, ia.Partitions(), pat)
	}
	// The view's pattern walks within the row from offset; the index picks
	// the row, so the leading pair's step is left to the index (0).
	p := [][2]int64{{0, pat[0][1]}}
	p = append(p, pat[1:]...)
	a, err := t.APView(p, off, dt)
	if err != nil {
		return nil, convert(err)
	}
	w := newView(st, a, th.CallPos())
	w.ind = &indirect{index: ia, dim: dim}
	return w, nil
}

// dmaArg converts a dma_copy operand: its access and, for a vector_offset
// view, its index.
func dmaArg(v tracer.Value, what, param string) (lower.Access, *indirect, error) {
	t, ok := v.(*Tensor)
	if !ok {
		return lower.Access{}, nil, typeErrorf("%s: %s must be a tensor or a view of one, not %s", what, param, v.Type())
	}
	if t.res != nil && !t.res.Done() {
		return lower.Access{}, nil, nkiErrorf("%s: %s is the result of another operation; give a tensor made with nl.ndarray", what, param)
	}
	ind := t.ind
	w := *t
	w.ind = nil
	a, err := w.access()
	return a, ind, err
}

func curDMACopy(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.dma_copy"
	var dst, src, rmw, oob, dge, uniq, eng, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "dst_rmw_op?", &rmw, "oob_mode?", &oob, "dge_mode?", &dge,
		"unique_indices?", &uniq, "engine?", &eng, "name?", &name); err != nil {
		return nil, err
	}
	oobMode, err := enumArg(oob, enumOOBMode, "error", what, "oob_mode")
	if err != nil {
		return nil, err
	}
	if _, err := enumArg(dge, enumDGEMode, "unknown", what, "dge_mode"); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, dind, err := dmaArg(dst, what, "dst")
	if err != nil {
		return nil, err
	}
	s, sind, err := dmaArg(src, what, "src")
	if err != nil {
		return nil, err
	}
	if d.T.Mem == lower.PSUM || s.T.Mem == lower.PSUM {
		return nil, nkiErrorf("%s cannot access PSUM (%s -> %s): copy PSUM to SBUF with nisa.tensor_copy first (NKI 0.3: \"nisa.dma_copy no longer supports reading directly from PSUM\")", what, s.T.Describe(), d.T.Describe())
	}
	if !isNone(rmw) {
		alu, err := opArg(rmw, what)
		if err != nil {
			return nil, err
		}
		if alu != "add" || dind != nil || sind != nil {
			return nil, notSupportedf("%s(dst_rmw_op=%s) on %s: narwhal adds into a destination with a static access (\"only np.add is supported\")", what, tracer.Repr(rmw), d.T.Describe())
		}
		return tracer.None, convert(dmaCompute(st, d, []lower.Access{s, d}, []float64{1, 1}))
	}
	k := st.k
	switch {
	case sind != nil && dind != nil:
		return nil, notSupportedf("%s with a vector_offset on both src and dst", what)
	case sind != nil:
		if !d.T.IsOnChip() {
			return nil, notSupportedf("%s gathering into %s in HBM: narwhal's gather writes SBUF", what, d.T.Describe())
		}
		return tracer.None, convert(k.IndirectDMA(d, s, sind.index, false, oobMode == "skip"))
	case dind != nil:
		if !s.T.IsOnChip() {
			return nil, notSupportedf("%s scattering from %s in HBM: narwhal's scatter reads SBUF", what, s.T.Describe())
		}
		return tracer.None, convert(k.IndirectDMA(d, s, dind.index, true, oobMode == "skip"))
	}
	return tracer.None, convert(k.DMA(d, s, lower.Mask{}))
}

// dmaCompute is dst = sum_i scales[i] * srcs[i] on the DMA engines
// (DMACopy mode CCE: bir.Builder.DMACompute).
func dmaCompute(st *state, d lower.Access, srcs []lower.Access, scales []float64) error {
	const what = "nisa.dma_compute"
	k := st.k
	for _, s := range srcs {
		if s.Elems() != d.Elems() {
			return nkiErrorf("%s: %s has %d elements, dst %s %d (\"The element count of each tensor in srcs and dst must match exactly\")", what, s.T.Describe(), s.Elems(), d.T.Describe(), d.Elems())
		}
		if s.T.Mem == lower.PSUM {
			return nkiErrorf("%s reads HBM or SBUF; %s is in PSUM", what, s.T.Describe())
		}
	}
	if d.T.Mem == lower.PSUM {
		return nkiErrorf("%s writes HBM or SBUF; %s is in PSUM", what, d.T.Describe())
	}
	if len(srcs) == 0 || len(srcs) > 16 {
		return nkiErrorf("%s takes 1 to 16 sources (\"The max number of source tensors in srcs is 16\"), have %d", what, len(srcs))
	}
	return k.Build(what, srcs, []lower.Access{d}, func(b *bir.Builder) error {
		ops := make([]bir.Operand, len(srcs))
		for i, s := range srcs {
			ops[i] = k.Operand(s)
		}
		b.DMACompute(k.InstName("dma_compute"), k.Operand(d), ops, scales, "add")
		return nil
	})
}

func curDMACompute(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.dma_compute"
	// NKI 0.2: (dst, srcs, scales, reduce_op); NKI 0.3: (dst, srcs,
	// reduce_op, scales=None, unique_indices=True). A positional third
	// argument is read by its type (a list of scales, or an operator).
	var dst, srcs, a3, a4, scalesK, reduceK, uniq, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "srcs", &srcs, "_3?", &a3, "_4?", &a4, "scales?", &scalesK,
		"reduce_op?", &reduceK, "unique_indices?", &uniq, "name?", &name); err != nil {
		return nil, err
	}
	scalesV, reduceV := scalesK, reduceK
	for _, x := range []tracer.Value{a3, a4} {
		if isNone(x) {
			continue
		}
		if _, ok := x.(*Op); ok {
			reduceV = x
		} else {
			scalesV = x
		}
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	if isNone(reduceV) {
		return nil, typeErrorf("%s() missing reduce_op (nl.add)", what)
	}
	alu, err := opArg(reduceV, what)
	if err != nil {
		return nil, err
	}
	if alu != "add" {
		return nil, nkiErrorf("%s: reduce_op must be nl.add (\"currently only nl.add is supported\"), not %s", what, tracer.Repr(reduceV))
	}
	d, dind, err := dmaArg(dst, what, "dst")
	if err != nil {
		return nil, err
	}
	var ss []lower.Access
	err = tracer.Iterate(th, srcs, func(x tracer.Value) error {
		a, ind, err := dmaArg(x, what, "srcs")
		if err == nil && ind != nil {
			err = notSupportedf("%s with a vector_offset source: narwhal's DMA compute reads static accesses", what)
		}
		ss = append(ss, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	if dind != nil {
		return nil, notSupportedf("%s with a vector_offset destination (a scatter-add): narwhal's DMA compute writes static accesses", what)
	}
	scales := make([]float64, len(ss))
	for i := range scales {
		scales[i] = 1
	}
	if !isNone(scalesV) {
		i := 0
		if err := tracer.Iterate(th, scalesV, func(x tracer.Value) error {
			f, err := tracer.AsFloat64(th, x)
			if i < len(scales) {
				scales[i] = f
			}
			i++
			return err
		}); err != nil {
			return nil, err
		}
		if i != len(ss) {
			return nil, nkiErrorf("%s: %d scales for %d sources", what, i, len(ss))
		}
	}
	return tracer.None, convert(dmaCompute(st, d, ss, scales))
}

func init() {
	cur("dma_copy", curDMACopy)
	cur("dma_compute", curDMACompute)
}
