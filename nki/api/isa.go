package api

// neuronxcc.nki.isa (nisa): one BIR instruction per call, on the engine
// the NKI documentation names.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

var (
	engTensor  = &Engine{name: "tensor_engine", eng: bir.EngPE, set: true}
	engVector  = &Engine{name: "vector_engine", eng: bir.EngDVE, set: true}
	engScalar  = &Engine{name: "scalar_engine", eng: bir.EngAct, set: true}
	engGpSimd  = &Engine{name: "gpsimd_engine", eng: bir.EngPool, set: true}
	engDMA     = &Engine{name: "dma_engine", eng: bir.EngUnassigned, set: true}
	engUnknown = &Engine{name: "unknown_engine"}
)

// engineArg converts engine= (None, 0 or unknown_engine: def).
func engineArg(v tracer.Value, def bir.Engine, what string, allowed ...bir.Engine) (bir.Engine, error) {
	if m, ok := v.(*EnumMember); ok && m.eng != nil {
		v = m.eng
	}
	switch e := v.(type) {
	case nil, tracer.NoneType:
		return def, nil
	case tracer.Int:
		if n, _ := e.Int64(); n == 0 {
			return def, nil
		}
	case *Engine:
		if !e.set {
			return def, nil
		}
		for _, a := range allowed {
			if a == e.eng {
				return a, nil
			}
		}
		return 0, nkiErrorf("%s cannot run on the %s", what, e.name)
	}
	return 0, typeErrorf("%s: engine= takes an nki.isa engine, not %s", what, v.Type())
}

// opArg converts op= (an nl or numpy function) to its ALU operation.
func opArg(v tracer.Value, what string) (string, error) {
	if isNone(v) {
		return "bypass", nil
	}
	o, ok := v.(*Op)
	if !ok || o.alu == "" {
		return "", nkiErrorf("%s: op=%s is not an ALU operator (nl.add, np.multiply, nl.maximum, ...)", what, tracer.Repr(v))
	}
	return o.alu, nil
}

func isaUnpack(what string, args []tracer.Value, kwargs []tracer.Kwarg, pairs ...any) error {
	var rest []tracer.Kwarg
	pairs = append(pairs, "**kwargs", &rest)
	if err := tracer.UnpackArgs(what, args, kwargs, pairs...); err != nil {
		return err
	}
	return rejectKwargs(what, rest)
}

func isaNcMatmul(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var stat, mov, mask tracer.Value
	var sOne, mOne, isT bool
	if err := isaUnpack("nisa.nc_matmul", args, kwargs, "stationary", &stat, "moving", &mov, "is_stationary_onezero?", &sOne,
		"is_moving_onezero?", &mOne, "is_transpose?", &isT, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.nc_matmul")
	if err != nil {
		return nil, err
	}
	a, ma, err := onChipOf(stat, "nisa.nc_matmul", "stationary")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(mov, "nisa.nc_matmul", "moving")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	// The one-zero and transpose flags are performance hints: the
	// product is the same.
	r, err := st.k.Matmul("nisa.nc_matmul", a, b, mergeMasks(msk, ma, mb))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaNcTranspose(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var data, mask, dtype, engine tracer.Value
	if err := isaUnpack("nisa.nc_transpose", args, kwargs, "data", &data, "mask?", &mask, "dtype?", &dtype, "engine?", &engine); err != nil {
		return nil, err
	}
	eng, err := engineArg(engine, bir.EngPE, "nisa.nc_transpose", bir.EngPE, bir.EngDVE)
	if err != nil {
		return nil, err
	}
	e := engTensor
	if eng == bir.EngDVE {
		e = engVector
	}
	return transposeLike(th, "nisa.nc_transpose", data, dtype, mask, e)
}

func isaActivation(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var op, data, bias, mask, dtype tracer.Value
	var scale tracer.Value = tracer.Float(1)
	if err := isaUnpack("nisa.activation", args, kwargs, "op", &op, "data", &data, "bias?", &bias, "scale?", &scale, "mask?", &mask, "dtype?", &dtype); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.activation")
	if err != nil {
		return nil, err
	}
	o, ok := op.(*Op)
	if !ok || o.act == "" {
		return nil, nkiErrorf("nisa.activation: op=%s is not an activation function (nl.exp, np.tanh, nl.gelu, ...)", tracer.Repr(op))
	}
	a, m, err := onChipOf(data, "nisa.activation", "data")
	if err != nil {
		return nil, err
	}
	var b *lower.Access
	if !isNone(bias) {
		ba, _, err := onChipOf(bias, "nisa.activation", "bias")
		if err != nil {
			return nil, err
		}
		b = &ba
	}
	sc, err := scalarOf(scale, "nisa.activation", "scale")
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
	r, err := st.k.Activation("nisa.activation", o.act, a, b, sc, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaTensorTensor(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var d1, d2, op, dtype, mask tracer.Value
	if err := isaUnpack("nisa.tensor_tensor", args, kwargs, "data1", &d1, "data2", &d2, "op", &op, "dtype?", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.tensor_tensor")
	if err != nil {
		return nil, err
	}
	alu, err := opArg(op, "nisa.tensor_tensor")
	if err != nil {
		return nil, err
	}
	a, ma, err := onChipOf(d1, "nisa.tensor_tensor", "data1")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(d2, "nisa.tensor_tensor", "data2")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, lower.Promote(a.Dtype, b.Dtype))
	if err != nil {
		return nil, err
	}
	eng := bir.EngDVE
	if alu == "pow" {
		eng = bir.EngPool
	}
	r, err := st.k.TensorTensor("nisa.tensor_tensor", alu, a, b, eng, dt, mergeMasks(msk, ma, mb))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaTensorScalar(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var data, op0, operand0, op1, operand1, dtype, mask, engine tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack("nisa.tensor_scalar", args, kwargs, "data", &data, "op0", &op0, "operand0", &operand0, "reverse0?", &rev0,
		"op1?", &op1, "operand1?", &operand1, "reverse1?", &rev1, "dtype?", &dtype, "mask?", &mask, "engine?", &engine); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.tensor_scalar")
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(data, "nisa.tensor_scalar", "data")
	if err != nil {
		return nil, err
	}
	alu0, err := opArg(op0, "nisa.tensor_scalar")
	if err != nil {
		return nil, err
	}
	alu1 := ""
	if !isNone(op1) {
		if alu1, err = opArg(op1, "nisa.tensor_scalar"); err != nil {
			return nil, err
		}
	}
	s0, err := scalarOf(operand0, "nisa.tensor_scalar", "operand0")
	if err != nil {
		return nil, err
	}
	s1 := lower.NoScalar
	if alu1 != "" {
		if s1, err = scalarOf(operand1, "nisa.tensor_scalar", "operand1"); err != nil {
			return nil, err
		}
	}
	eng, err := engineArg(engine, bir.EngDVE, "nisa.tensor_scalar", bir.EngDVE, bir.EngAct)
	if err != nil {
		return nil, err
	}
	if eng == bir.EngAct && !(alu0 == "mult" && (alu1 == "" || alu1 == "add") || alu0 == "add" && alu1 == "") {
		return nil, nkiErrorf("nisa.tensor_scalar on the Scalar engine supports op0=multiply with op1=add or None, and op0=add with op1=None; have %s, %s", alu0, alu1)
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	r, err := st.k.TensorScalar("nisa.tensor_scalar", a, alu0, s0, rev0, alu1, s1, rev1, eng, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaTensorReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var op, data, axis, mask, dtype tracer.Value
	var negate, keepdims bool
	if err := isaUnpack("nisa.tensor_reduce", args, kwargs, "op", &op, "data", &data, "axis", &axis, "mask?", &mask, "dtype?", &dtype,
		"negate?", &negate, "keepdims?", &keepdims); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.tensor_reduce")
	if err != nil {
		return nil, err
	}
	alu, err := opArg(op, "nisa.tensor_reduce")
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(data, "nisa.tensor_reduce", "data")
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
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	r, err := st.k.Reduce("nisa.tensor_reduce", alu, a, axes, keepdims, negate, bir.EngDVE, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaTensorCopy(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var src, mask, dtype, engine tracer.Value
	if err := isaUnpack("nisa.tensor_copy", args, kwargs, "src", &src, "mask?", &mask, "dtype?", &dtype, "engine?", &engine); err != nil {
		return nil, err
	}
	eng, err := engineArg(engine, bir.EngDVE, "nisa.tensor_copy", bir.EngDVE, bir.EngAct, bir.EngPool)
	if err != nil {
		return nil, err
	}
	return copyLike(th, "nisa.tensor_copy", src, mask, dtype, eng)
}

func isaMemset(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var shapeV, value, dtype, mask, engine tracer.Value
	if err := isaUnpack("nisa.memset", args, kwargs, "shape", &shapeV, "value", &value, "dtype", &dtype, "mask?", &mask, "engine?", &engine); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.memset")
	if err != nil {
		return nil, err
	}
	shape, _, err := shapeOf(th, shapeV, "nisa.memset")
	if err != nil {
		return nil, err
	}
	v, _, ok := number(value)
	if !ok {
		return nil, typeErrorf("nisa.memset: value must be a number, not %s", value.Type())
	}
	dt, err := dtypeOf(dtype)
	if err != nil {
		return nil, err
	}
	eng, err := engineArg(engine, bir.EngDVE, "nisa.memset", bir.EngDVE, bir.EngPool)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	r, err := st.k.NewMemset(shape, v, dt, eng, msk)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaIota(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var expr, dtype, mask tracer.Value
	if err := isaUnpack("nisa.iota", args, kwargs, "expr", &expr, "dtype", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.iota")
	if err != nil {
		return nil, err
	}
	x, ok, err := toIndex(th, expr)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, typeErrorf("nisa.iota: expr must be an affine expression of nl.arange grids, not %s", expr.Type())
	}
	dt, err := dtypeOf(dtype)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	r, err := st.k.Iota(x, dt, msk)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaAffineSelect(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var pred, onTrue, onFalse, mask, dtype tracer.Value
	if err := isaUnpack("nisa.affine_select", args, kwargs, "pred", &pred, "on_true_tile", &onTrue, "on_false_value", &onFalse, "mask?", &mask, "dtype?", &dtype); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.affine_select")
	if err != nil {
		return nil, err
	}
	// pred: an affine expression (selected where > 0), or a comparison of
	// one (i_p >= i_f).
	var x lower.Index
	cmp := "is_gt"
	switch p := pred.(type) {
	case *Mask:
		if len(p.m.Cons) != 1 {
			return nil, notSupportedf("nisa.affine_select with the predicate %s: narwhal selects on one affine comparison", p)
		}
		c := p.m.Cons[0]
		x = c.X
		cmp = map[affine.CmpKind]string{affine.GE0: "is_ge", affine.EQ0: "is_equal", affine.NE0: "not_equal"}[c.Op]
	default:
		var ok bool
		if x, ok, err = toIndex(th, pred); err != nil {
			return nil, err
		} else if !ok {
			return nil, typeErrorf("nisa.affine_select: pred must be an affine expression of nl.arange grids, not %s", pred.Type())
		}
	}
	a, _, err := onChipOf(onTrue, "nisa.affine_select", "on_true_tile")
	if err != nil {
		return nil, err
	}
	fill, _, ok := number(onFalse)
	if !ok {
		return nil, typeErrorf("nisa.affine_select: on_false_value must be a number, not %s", onFalse.Type())
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	r, err := st.k.AffineSelect(x, cmp, a, fill, dt, msk)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaBN(name string) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	what := "nisa." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var data, mask, dtype tracer.Value
		if err := isaUnpack(what, args, kwargs, "data", &data, "mask?", &mask, "dtype?", &dtype); err != nil {
			return nil, err
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		a, m, err := onChipOf(data, what, "data")
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
		var r *lower.Result
		if name == "bn_stats" {
			r, err = st.k.BNStats(a, dt, mergeMasks(msk, m))
		} else {
			r, err = st.k.BNAggr(a, dt, mergeMasks(msk, m))
		}
		if err != nil {
			return nil, convert(err)
		}
		return newResult(st, r, th.CallPos()), nil
	}
}

func isaReciprocal(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var data, dtype, mask, engine tracer.Value
	if err := isaUnpack("nisa.reciprocal", args, kwargs, "data", &data, "dtype?", &dtype, "mask?", &mask, "engine?", &engine); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.reciprocal")
	if err != nil {
		return nil, err
	}
	eng, err := engineArg(engine, bir.EngDVE, "nisa.reciprocal", bir.EngDVE, bir.EngAct)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(data, "nisa.reciprocal", "data")
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
	r, err := st.k.Reciprocal("nisa.reciprocal", a, eng, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaDMACopy(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var src, dst, mask tracer.Value
	if err := isaUnpack("nisa.dma_copy", args, kwargs, "src", &src, "dst", &dst, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.dma_copy")
	if err != nil {
		return nil, err
	}
	s, ms, err := tileOf(src, "nisa.dma_copy", "src")
	if err != nil {
		return nil, err
	}
	d, md, err := tileOf(dst, "nisa.dma_copy", "dst")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.DMA(d, s, mergeMasks(msk, ms, md)))
}

func isaDMATranspose(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var src, mask, dtype tracer.Value
	if err := isaUnpack("nisa.dma_transpose", args, kwargs, "src", &src, "mask?", &mask, "dtype?", &dtype); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nisa.dma_transpose")
	if err != nil {
		return nil, err
	}
	a, m, err := tileOf(src, "nisa.dma_transpose", "src")
	if err != nil {
		return nil, err
	}
	if !isNone(dtype) {
		if dt, err := dtypeOf(dtype); err != nil {
			return nil, err
		} else if dt != a.Dtype {
			return nil, notSupportedf("nisa.dma_transpose with dtype=%s of a %s tile: the DMA transpose moves elements unchanged", dtypeValue(dt), a.Dtype)
		}
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	r, err := st.k.DMATranspose(a, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func init() {
	register(&Op{name: "nisa.nc_matmul", fn: isaNcMatmul})
	register(&Op{name: "nisa.nc_transpose", fn: isaNcTranspose})
	register(&Op{name: "nisa.activation", fn: isaActivation})
	register(&Op{name: "nisa.tensor_tensor", fn: isaTensorTensor})
	register(&Op{name: "nisa.tensor_scalar", fn: isaTensorScalar})
	register(&Op{name: "nisa.tensor_reduce", fn: isaTensorReduce})
	register(&Op{name: "nisa.tensor_copy", fn: isaTensorCopy})
	register(&Op{name: "nisa.memset", fn: isaMemset})
	register(&Op{name: "nisa.iota", fn: isaIota})
	register(&Op{name: "nisa.affine_select", fn: isaAffineSelect})
	register(&Op{name: "nisa.bn_stats", fn: isaBN("bn_stats")})
	register(&Op{name: "nisa.bn_aggr", fn: isaBN("bn_aggr")})
	register(&Op{name: "nisa.reciprocal", fn: isaReciprocal})
	register(&Op{name: "nisa.dma_copy", fn: isaDMACopy})
	register(&Op{name: "nisa.dma_transpose", fn: isaDMATranspose})
	register(&Op{name: "nisa.get_nc_version", fn: func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		if err := tracer.UnpackArgs("nisa.get_nc_version", args, kwargs); err != nil {
			return nil, err
		}
		if st := current(th); st != nil {
			return tracer.MakeInt(int64(st.k.NCVersion())), nil
		}
		return tracer.MakeInt(3), nil
	}})
	register(&Op{name: "nisa.tensor_tensor_scan", fn: isaTensorTensorScan})
	register(&Op{name: "nisa.tensor_partition_reduce", fn: isaTensorPartitionReduce})
	register(&Op{name: "nisa.scalar_tensor_tensor", fn: isaScalarTensorTensor})
	register(&Op{name: "nisa.activation_reduce", fn: isaActivationReduce})
	unsupported := map[string]string{
		"dropout":                 "random numbers are not modelled by the compile pipeline",
		"tensor_copy_dynamic_src": "its source is indexed with a tile (a subscript that is only known when the kernel runs), which the legacy binding does not trace; the current API's nisa.tensor_copy with .ap(scalar_offset=...) does",
		"builtin_custom_op":       "custom GpSimd operators cannot be run",
	}
	for name, why := range unsupported {
		register(&Op{name: "nisa." + name, why: why})
	}
}

// isaModule builds neuronxcc.nki.isa.
func isaModule(name string) *tracer.Module {
	m := members("nisa.")
	m["tensor_engine"], m["vector_engine"], m["scalar_engine"] = engTensor, engVector, engScalar
	m["gpsimd_engine"], m["dma_engine"], m["unknown_engine"] = engGpSimd, engDMA, engUnknown
	m["nc_version"] = &attrObject{name: "nc_version", attrs: map[string]tracer.Value{"gen2": tracer.MakeInt(2), "gen3": tracer.MakeInt(3), "gen4": tracer.MakeInt(4)}}
	return tracer.NewModule(name, m)
}

func isaTensorTensorScan(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_tensor_scan"
	var d0, d1, initial, op0, op1, dtype, mask tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack(what, args, kwargs, "data0", &d0, "data1", &d1, "initial", &initial, "op0", &op0, "op1", &op1,
		"reverse0?", &rev0, "reverse1?", &rev1, "dtype?", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, ma, err := onChipOf(d0, what, "data0")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(d1, what, "data1")
	if err != nil {
		return nil, err
	}
	init, err := scalarOf(initial, what, "initial")
	if err != nil {
		return nil, err
	}
	alu0, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	alu1, err := opArg(op1, what)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, lower.Promote(a.Dtype, b.Dtype))
	if err != nil {
		return nil, err
	}
	r, err := st.k.TensorTensorScan(a, b, init, alu0, alu1, rev0, rev1, dt, mergeMasks(msk, ma, mb))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaTensorPartitionReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_partition_reduce"
	var op, data, mask, dtype tracer.Value
	if err := isaUnpack(what, args, kwargs, "op", &op, "data", &data, "mask?", &mask, "dtype?", &dtype); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	alu, err := opArg(op, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(data, what, "data")
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
	r, err := st.k.TensorPartitionReduce(alu, a, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaScalarTensorTensor(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.scalar_tensor_tensor"
	var data, op0, operand0, op1, operand1, dtype, mask tracer.Value
	var rev0, rev1 bool
	var extra []tracer.Value
	if err := isaUnpack(what, args, kwargs, "*", &extra, "data", &data, "op0", &op0, "operand0", &operand0, "op1", &op1, "operand1", &operand1,
		"reverse0?", &rev0, "reverse1?", &rev1, "dtype?", &dtype, "mask?", &mask); err != nil {
		return nil, err
	}
	if len(extra) > 0 {
		return nil, typeErrorf("%s takes keyword arguments only", what)
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, ma, err := onChipOf(data, what, "data")
	if err != nil {
		return nil, err
	}
	s0, err := scalarOf(operand0, what, "operand0")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(operand1, what, "operand1")
	if err != nil {
		return nil, err
	}
	alu0, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	alu1, err := opArg(op1, what)
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
	r, err := st.k.ScalarTensorTensor(a, alu0, s0, rev0, alu1, b, rev1, dt, mergeMasks(msk, ma, mb))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func isaActivationReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.activation_reduce"
	var op, data, reduceOp, reduceRes, bias, mask, dtype tracer.Value
	var scale tracer.Value = tracer.Float(1)
	if err := isaUnpack(what, args, kwargs, "op", &op, "data", &data, "reduce_op", &reduceOp, "reduce_res", &reduceRes,
		"bias?", &bias, "scale?", &scale, "mask?", &mask, "dtype?", &dtype); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	o, ok := op.(*Op)
	if !ok || o.act == "" {
		return nil, nkiErrorf("%s: op=%s is not an activation function", what, tracer.Repr(op))
	}
	red, err := opArg(reduceOp, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(data, what, "data")
	if err != nil {
		return nil, err
	}
	rr, _, err := onChipOf(reduceRes, what, "reduce_res")
	if err != nil {
		return nil, err
	}
	var b *lower.Access
	if !isNone(bias) {
		ba, _, err := onChipOf(bias, what, "bias")
		if err != nil {
			return nil, err
		}
		b = &ba
	}
	sc, _, ok := number(scale)
	if !ok {
		return nil, notSupportedf("%s with a tile scale: narwhal takes a constant scale here", what)
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	out, err := st.k.ActivationReduce(o.act, a, b, sc, red, rr, dt, mergeMasks(msk, m), nil)
	if err != nil {
		return nil, convert(err)
	}
	return newView(st, out, th.CallPos()), nil
}
