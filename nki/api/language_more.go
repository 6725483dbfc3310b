package api

// nki.language functions with no single instruction, lowered to short
// sequences of instructions whose results are exactly the function's
// (shared by both APIs; docs/nki.md lists the sequences):
//
//   - nl.floor(x) = x - mod(x, 1), the ALU's mod being floored (a result
//     in [0, 1): semantics-choices "mod (fp32 path)"); nl.ceil(x) =
//     x + mod(-x, 1); nl.trunc(x) = sign(x) * floor(|x|), |x| = x *
//     sign(x); nl.fmod(x, y) = sign(x) * mod(|x|, |y|), the C remainder
//     (the floored mod of non-negative operands is the C one); integer
//     inputs of floor/ceil/trunc are copied;
//   - nl.var(x, axis) over all free axes: nisa.bn_stats per 512-element
//     chunk (nl.tile_size.bn_stats_fmax) and nisa.bn_aggr, the variance
//     column of its result (population variance, numpy's ddof=0);
//   - nl.all(x, axis): (x != 0) then a min reduction.
//
// Every intermediate tile is float32 (the engines compute in fp32), the
// last instruction casts to the result dtype.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// seq is a sequence of instructions into fresh tiles.
type seq struct {
	k    *lower.Kernel
	what string
	mask lower.Mask
}

func (s *seq) tile(r *lower.Result, err error) (lower.Access, error) {
	if err != nil {
		return lower.Access{}, convert(err)
	}
	a, err := r.Access()
	return a, convert(err)
}

func (s *seq) ts(x lower.Access, op0 string, c0 float64, op1 string, c1 float64, dt bir.Dtype) (*lower.Result, error) {
	s1 := lower.NoScalar
	if op1 != "" {
		s1 = lower.Const(c1)
	}
	return s.k.TensorScalar(s.what, x, op0, lower.Const(c0), false, op1, s1, false, bir.EngDVE, dt, s.mask)
}

func (s *seq) tt(op string, x, y lower.Access, dt bir.Dtype) (*lower.Result, error) {
	return s.k.TensorTensor(s.what, op, x, y, bir.EngDVE, dt, s.mask)
}

// absSign returns |x| and sign(x) of a float tile.
func (s *seq) absSign(x lower.Access) (abs, sign lower.Access, err error) {
	if sign, err = s.tile(s.k.Activation(s.what, "Sign", x, nil, lower.Const(1), bir.Float32, s.mask)); err != nil {
		return
	}
	abs, err = s.tile(s.tt("mult", x, sign, bir.Float32))
	return
}

func roundingFn(name string) builtinFn {
	what := "nl." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x, dtype, mask tracer.Value
		if err := isaUnpack(what, args, kwargs, "x", &x, "dtype?", &dtype, "mask?", &mask); err != nil {
			return nil, err
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		a, m, err := onChipOf(x, what, "x")
		if err != nil {
			return nil, err
		}
		msk, err := maskOf(mask)
		if err != nil {
			return nil, err
		}
		dt, err := optDtype(dtype, a.Dtype)
		if err != nil {
			return nil, err
		}
		s := &seq{k: st.k, what: what, mask: mergeMasks(msk, m)}
		var r *lower.Result
		switch {
		case !a.Dtype.IsFloat():
			r, err = st.k.Copy(a, bir.EngDVE, dt, s.mask)
		case name == "floor":
			var frac lower.Access
			if frac, err = s.tile(s.ts(a, "mod", 1, "", 0, bir.Float32)); err == nil {
				r, err = s.tt("subtract", a, frac, dt)
			}
		case name == "ceil":
			var up lower.Access
			if up, err = s.tile(s.ts(a, "mult", -1, "mod", 1, bir.Float32)); err == nil {
				r, err = s.tt("add", a, up, dt)
			}
		case name == "trunc":
			var abs, sign, frac, fl lower.Access
			if abs, sign, err = s.absSign(a); err != nil {
				return nil, err
			}
			if frac, err = s.tile(s.ts(abs, "mod", 1, "", 0, bir.Float32)); err != nil {
				return nil, err
			}
			if fl, err = s.tile(s.tt("subtract", abs, frac, bir.Float32)); err != nil {
				return nil, err
			}
			r, err = s.tt("mult", fl, sign, dt)
		}
		if err != nil {
			return nil, convert(err)
		}
		return newResult(st, r, th.CallPos()), nil
	}
}

func nlFmod(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.fmod"
	var x, y, dtype, mask tracer.Value
	if err := isaUnpack(what, args, kwargs, "x", &x, "y", &y, "dtype?", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, what, "x")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	s := &seq{k: st.k, what: what, mask: mergeMasks(msk, m)}
	abs, sign, err := s.absSign(a)
	if err != nil {
		return nil, err
	}
	var rem lower.Access
	if f, _, ok := number(y); ok {
		if f < 0 {
			f = -f
		}
		rem, err = s.tile(s.ts(abs, "mod", f, "", 0, bir.Float32))
	} else {
		b, mb, err2 := onChipOf(y, what, "y")
		if err2 != nil {
			return nil, err2
		}
		s.mask = mergeMasks(s.mask, mb)
		babs, _, err2 := s.absSign(b)
		if err2 != nil {
			return nil, err2
		}
		rem, err = s.tile(s.tt("mod", abs, babs, bir.Float32))
	}
	if err != nil {
		return nil, err
	}
	r, err := s.tt("mult", rem, sign, dt)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func nlVar(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.var"
	var x, axis, dtype, mask tracer.Value
	keepdims := false
	if err := isaUnpack(what, args, kwargs, "x", &x, "axis", &axis, "dtype?", &dtype, "mask?", &mask, "keepdims?", &keepdims); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, what, "x")
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	nd := len(a.Dims)
	seen := map[int]bool{}
	for _, ax := range axes {
		if ax < 0 {
			ax += nd
		}
		seen[ax] = true
	}
	for d := 1; d < nd; d++ {
		if !seen[d] || seen[0] {
			return nil, notSupportedf("%s over axis=%v of a tile of shape %s: narwhal computes the variance over all free axes (nisa.bn_stats / bn_aggr reduce a whole partition)", what, axes, shapeText(a.Shape()))
		}
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	def := a.Dtype
	if !def.IsFloat() {
		def = bir.Float32
	}
	dt, err := optDtype(dtype, def)
	if err != nil {
		return nil, err
	}
	k := st.k
	P, F := a.Partitions(), a.FreeElems()
	flat, err := a.Reshape([]int64{P, F})
	if err != nil {
		return nil, notSupportedf("%s of a strided view: %v", what, err)
	}
	nch := (F + lower.BNStatsFMax - 1) / lower.BNStatsFMax
	statsT, err := k.NewTile("var_stats", lower.SBUF, bir.Float32, []int64{P, 6 * nch}, 0, nil)
	if err != nil {
		return nil, convert(err)
	}
	stats, err := statsT.Whole()
	if err != nil {
		return nil, convert(err)
	}
	mm := mergeMasks(msk, m)
	for c := int64(0); c < nch; c++ {
		n := min(lower.BNStatsFMax, F-c*lower.BNStatsFMax)
		chunk, err := flat.Index([]lower.Elem{lower.All(), lower.Slice(lower.ConstIndex(c*lower.BNStatsFMax), lower.ConstIndex(c*lower.BNStatsFMax+n), 1)})
		if err != nil {
			return nil, convert(err)
		}
		r, err := k.BNStats(chunk, bir.Float32, mm)
		if err != nil {
			return nil, convert(err)
		}
		col, err := stats.Index([]lower.Elem{lower.All(), lower.Slice(lower.ConstIndex(6*c), lower.ConstIndex(6*c+6), 1)})
		if err != nil {
			return nil, convert(err)
		}
		if err := r.Write(col); err != nil {
			return nil, convert(err)
		}
	}
	agg, err := k.BNAggr(stats, bir.Float32, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	ma, err := agg.Access()
	if err != nil {
		return nil, convert(err)
	}
	v, err := ma.Index([]lower.Elem{lower.All(), lower.Slice(lower.ConstIndex(1), lower.ConstIndex(2), 1)})
	if err != nil {
		return nil, convert(err)
	}
	if keepdims {
		shape := make([]int64, nd)
		shape[0] = P
		for i := 1; i < nd; i++ {
			shape[i] = 1
		}
		if v, err = v.Reshape(shape); err != nil {
			return nil, convert(err)
		}
	}
	r, err := k.Copy(v, bir.EngDVE, dt, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func nlAll(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.all"
	var x, axis, dtype, mask tracer.Value
	keepdims := false
	if err := isaUnpack(what, args, kwargs, "x", &x, "axis", &axis, "dtype?", &dtype, "mask?", &mask, "keepdims?", &keepdims); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, what, "x")
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, bir.Uint8)
	if err != nil {
		return nil, err
	}
	s := &seq{k: st.k, what: what, mask: mergeMasks(msk, m)}
	nz, err := s.tile(s.ts(a, "not_equal", 0, "", 0, bir.Float32))
	if err != nil {
		return nil, err
	}
	r, err := st.k.Reduce(what, "min", nz, axes, keepdims, false, bir.EngDVE, dt, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func init() {
	for _, n := range []string{"floor", "ceil", "trunc"} {
		register(&Op{name: "nl." + n, fn: roundingFn(n)})
	}
	register(&Op{name: "nl.fmod", fn: nlFmod})
	register(&Op{name: "nl.var", fn: nlVar})
	register(&Op{name: "nl.all", fn: nlAll})
	register(&Op{name: "nl.shared_constant", fn: nlSharedConstant})
	register(&Op{name: "nl.shared_identity_matrix", fn: nlSharedIdentity})
}

// The legacy forms of instructions the current API's binding lowers: the
// result is a new SBUF tile, then the current function writes it.

// legacyTensorScalarReduce is the legacy nisa.tensor_scalar_reduce(data,
// op0, operand0, reduce_op, reduce_res, reverse0=False, dtype=None): the
// tensor_scalar result as a new tile, reduce_res written in place.
func legacyTensorScalarReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_scalar_reduce"
	var data, op0, operand0, reduceOp, reduceRes, dtype, mask tracer.Value
	var rev0 bool
	if err := isaUnpack(what, args, kwargs, "data", &data, "op0", &op0, "operand0", &operand0, "reduce_op", &reduceOp, "reduce_res", &reduceRes,
		"reverse0?", &rev0, "dtype?", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	if !isNone(mask) {
		return nil, notSupportedf("%s(mask=...): the accumulating instruction is emitted without a mask", what)
	}
	dst, err := legacyDst(th, what, data, dtype, nil)
	if err != nil {
		return nil, err
	}
	kw := []tracer.Kwarg{{Name: "dst", Value: dst}, {Name: "data", Value: data}, {Name: "op0", Value: op0}, {Name: "operand0", Value: operand0},
		{Name: "reduce_op", Value: reduceOp}, {Name: "reduce_res", Value: reduceRes}, {Name: "reverse0", Value: tracer.Bool(rev0)}}
	if _, err := curTensorScalarReduce(th, nil, kw); err != nil {
		return nil, err
	}
	return dst, nil
}

// legacyLocalGather is the legacy nisa.local_gather(src_buffer, index,
// num_elem_per_idx=1, num_valid_indices=None): a new tile of num_valid
// (or every index of a 16-partition slice) times num_elem_per_idx
// elements per partition.
func legacyLocalGather(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.local_gather"
	var src, index, validV, mask tracer.Value
	var perIdx int64 = 1
	if err := isaUnpack(what, args, kwargs, "src_buffer", &src, "index", &index, "num_elem_per_idx?", &perIdx, "num_valid_indices?", &validV, "mask?", &mask); err != nil {
		return nil, err
	}
	if !isNone(mask) {
		return nil, notSupportedf("%s(mask=...): the gather is emitted without a mask", what)
	}
	ix, _, err := onChipOf(index, what, "index")
	if err != nil {
		return nil, err
	}
	n := 16 * ix.FreeElems()
	if !isNone(validV) {
		if n, err = tracer.AsInt64(th, validV); err != nil {
			return nil, err
		}
	}
	s, _, err := onChipOf(src, what, "src_buffer")
	if err != nil {
		return nil, err
	}
	dst, err := legacyDst(th, what, src, nil, []int64{s.Partitions(), n * perIdx})
	if err != nil {
		return nil, err
	}
	kw := []tracer.Kwarg{{Name: "dst", Value: dst}, {Name: "src_buffer", Value: src}, {Name: "index", Value: index},
		{Name: "num_elem_per_idx", Value: tracer.MakeInt(perIdx)}}
	if !isNone(validV) {
		kw = append(kw, tracer.Kwarg{Name: "num_valid_indices", Value: validV})
	}
	if _, err := curLocalGather(th, nil, kw); err != nil {
		return nil, err
	}
	return dst, nil
}

// legacyDst makes a legacy instruction's result tile: like's shape (or
// shape) and dtype (or dtype=) in SBUF.
func legacyDst(th *tracer.Thread, what string, like, dtype tracer.Value, shape []int64) (*Tensor, error) {
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, _, err := onChipOf(like, what, "the input")
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	if shape == nil {
		shape = a.Shape()
	}
	t, err := st.k.NewTile("", lower.SBUF, dt, shape, 0, nil)
	if err != nil {
		return nil, convert(err)
	}
	return newWhole(st, t, th.CallPos()), nil
}

// nlStaticCast is nl.static_cast(x, dtype): a TensorCopy into dtype.
func nlStaticCast(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x, dtype, mask tracer.Value
	if err := isaUnpack("nl.static_cast", args, kwargs, "x", &x, "dtype", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	return copyLike(th, "nl.static_cast", x, mask, dtype, bir.EngDVE)
}

// nlFinfo is nl.finfo(dtype): the float dtype's limits as trace-time
// numbers (bits, eps, max, min, tiny).
func nlFinfo(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var dtype tracer.Value
	if err := isaUnpack("nl.finfo", args, kwargs, "dtype", &dtype); err != nil {
		return nil, err
	}
	dt, err := dtypeOf(dtype)
	if err != nil {
		return nil, err
	}
	lim, ok := floatLimits[dt]
	if !ok {
		return nil, typeErrorf("nl.finfo: %s is not a float dtype", dtypeValue(dt))
	}
	f := func(x float64) tracer.Value { return tracer.Float(x) }
	return &attrObject{name: "finfo", attrs: map[string]tracer.Value{
		"bits": tracer.MakeInt(dt.Size() * 8), "eps": f(lim[0]), "max": f(lim[1]), "min": f(-lim[1]), "tiny": f(lim[2]),
		"dtype": dtypeValue(dt),
	}}, nil
}

// floatLimits are eps, max and the smallest normal of the float dtypes.
var floatLimits = map[bir.Dtype][3]float64{
	bir.Float32:      {1.1920928955078125e-07, 3.4028234663852886e38, 1.1754943508222875e-38},
	bir.Float32R:     {9.765625e-04, 3.4028234663852886e38, 1.1754943508222875e-38},
	bir.Float16:      {9.765625e-04, 65504, 6.103515625e-05},
	bir.BFloat16:     {7.8125e-03, 3.3895313892515355e38, 1.1754943508222875e-38},
	bir.Float8E4M3:   {0.125, 240, 0.015625},
	bir.Float8E4M3FN: {0.125, 448, 0.015625},
	bir.Float8E5:     {0.25, 57344, 6.103515625e-05},
}

func init() {
	register(&Op{name: "nisa.tensor_scalar_reduce", fn: legacyTensorScalarReduce})
	register(&Op{name: "nisa.local_gather", fn: legacyLocalGather})
	register(&Op{name: "nl.static_cast", fn: nlStaticCast})
	register(&Op{name: "nl.finfo", fn: nlFinfo})
}
