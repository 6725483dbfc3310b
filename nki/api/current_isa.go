package api

// nki.isa of the current API: every instruction writes the destination
// given first (dst=) and returns None (the NKI 0.2 migration guide: "all
// of the ISA functions now require a dst parameter instead of returning a
// result"). Each function lowers to the instruction the legacy binding
// emits for the same operation (lower.Result written straight into dst:
// Result.Write, which refuses a destination the engine cannot write
// rather than adding a copy), or, for the instructions only the current
// API has, to the bir.Builder method of its ISA encoding (docs/isa.md).
//
// Argument names and order follow the nki.isa stubs (aws-neuron-sdk
// nki/api/nki/isa/__init__.py); where NKI 0.3 changed a signature the
// calls of both versions are accepted when they cannot be confused
// (affine_select's offset, nc_matmul's accumulate= beside
// psum_accumulate_flag=, dma_compute's scales and reduce_op).

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

type builtinFn = func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error)

// cur registers a current-API nisa function.
func cur(name string, fn builtinFn) {
	currentISA[name] = &Op{name: "nisa." + name, fn: fn}
}

// curUnsupported registers a current-API nisa function narwhal refuses,
// with the reason.
func curUnsupported(name, why string) {
	currentISA[name] = &Op{name: "nisa." + name, why: why}
}

// dstOf converts a destination argument: a tensor, a tile or a view of
// one (never the pending result of a legacy-style call).
func dstOf(v tracer.Value, what string) (lower.Access, error) {
	t, ok := v.(*Tensor)
	if !ok {
		return lower.Access{}, typeErrorf("%s: dst must be a tensor or a view of one, not %s", what, v.Type())
	}
	if t.res != nil && !t.res.Done() {
		return lower.Access{}, nkiErrorf("%s: dst is the result of another operation; give a tensor made with nl.ndarray", what)
	}
	return t.access()
}

// onChipDst is dstOf for an instruction that writes SBUF or PSUM.
func onChipDst(v tracer.Value, what string) (lower.Access, error) {
	d, err := dstOf(v, what)
	if err != nil {
		return d, err
	}
	if !d.T.IsOnChip() {
		return d, nkiErrorf("%s writes SBUF or PSUM; dst %s is in HBM (copy it out with nisa.dma_copy)", what, d.T.Describe())
	}
	return d, nil
}

// curTile converts an input tile argument (on chip).
func curTile(v tracer.Value, what, param string) (lower.Access, error) {
	a, _, err := tileOf(v, what, param)
	if err != nil {
		return a, err
	}
	if !a.T.IsOnChip() {
		return a, nkiErrorf("%s reads SBUF or PSUM; %s %s is in HBM (copy it in with nisa.dma_copy)", what, param, a.T.Describe())
	}
	return a, nil
}

// write places r into d (Result.Write) and converts the error.
func write(r *lower.Result, d lower.Access, what string) (tracer.Value, error) {
	r.SetWhat(what)
	if err := r.Write(d); err != nil {
		return nil, convert(err)
	}
	return tracer.None, nil
}

func curNcMatmul(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_matmul"
	var dst, stat, mov, tpos, tsize, flag, acc, perf, name tracer.Value
	var sOne, mOne, isT bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "stationary", &stat, "moving", &mov, "is_stationary_onezero?", &sOne,
		"is_moving_onezero?", &mOne, "is_transpose?", &isT, "tile_position?", &tpos, "tile_size?", &tsize,
		"psum_accumulate_flag?", &flag, "accumulate?", &acc, "perf_mode?", &perf, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	if !isNone(perf) {
		if s, ok := perf.(tracer.String); !ok || s != "none" {
			return nil, notSupportedf("%s(perf_mode=%s): the FP8 double-row mode is not modelled", what, tracer.Repr(perf))
		}
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	if d.T.Mem != lower.PSUM {
		return nil, nkiErrorf("%s writes PSUM (\"dst tile must be a PSUM tile\"); %s is in %s", what, d.T.Describe(), d.T.Mem)
	}
	a, err := curTile(stat, what, "stationary")
	if err != nil {
		return nil, err
	}
	b, err := curTile(mov, what, "moving")
	if err != nil {
		return nil, err
	}
	// accumulate=None (NKI 0.3's default, NKI 0.2's behaviour): "the
	// first write to a PSUM location overwrites, and subsequent writes
	// accumulate" -- the accumulation group of the PSUM region (lower's
	// accum.go). accumulate=False, or a psum_accumulate_flag with bit 0
	// ("the first instruction in the accumulation group ... should
	// overwrite"), starts a new group.
	overwrite := false
	switch v := acc.(type) {
	case tracer.Bool:
		overwrite = !bool(v)
	case nil, tracer.NoneType:
		if !isNone(flag) {
			n, err := tracer.AsInt64(th, flag)
			if err != nil {
				return nil, err
			}
			overwrite = n&1 != 0
		}
	default:
		return nil, typeErrorf("%s: accumulate= takes True, False or None, not %s", what, acc.Type())
	}
	r, err := st.k.Matmul(what, a, b, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	r.SetWhat(what)
	if overwrite {
		err = r.Write(d)
	} else {
		err = r.Accumulate(d)
	}
	return tracer.None, convert(err)
}

func curNcTranspose(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_transpose"
	var dst, data, engine, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "engine?", &engine, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	// engine unknown: "the best engine will be selected for the given
	// input tile shape" -- narwhal: the Tensor engine when dst is in PSUM
	// (where it writes), else the Vector engine.
	def := bir.EngDVE
	if d.T.Mem == lower.PSUM {
		def = bir.EngPE
	}
	eng, err := engineArg(engine, def, what, bir.EngPE, bir.EngDVE)
	if err != nil {
		return nil, err
	}
	r, err := st.k.Transpose(what, a, eng, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curActivation(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.activation"
	var dst, op, data, bias, reduceOp, reduceRes, reduceCmd, name tracer.Value
	var scale tracer.Value = tracer.Float(1)
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "op", &op, "data", &data, "bias?", &bias, "scale?", &scale,
		"reduce_op?", &reduceOp, "reduce_res?", &reduceRes, "reduce_cmd?", &reduceCmd, "name?", &name); err != nil {
		return nil, err
	}
	cmd, err := enumArg(reduceCmd, enumReduceCmd, "idle", what, "reduce_cmd")
	if err != nil {
		return nil, err
	}
	_, _, constBias := number(bias)
	if cmd != "idle" || !isNone(reduceRes) || constBias {
		// The general form: the Scalar engine's accumulator, an
		// immediate bias (NeuronCore-v3 and later).
		return curActivationISA(th, what, dst, op, data, bias, scale, reduceOp, reduceRes, reduceCmd)
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	o, ok := op.(*Op)
	if !ok || o.act == "" {
		return nil, nkiErrorf("%s: op=%s is not an activation function (nl.exp, nl.tanh, nl.gelu, ...)", what, tracer.Repr(op))
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	var b *lower.Access
	if !isNone(bias) {
		ba, err := curTile(bias, what, "bias")
		if err != nil {
			return nil, err
		}
		b = &ba
	}
	sc, err := scalarOf(scale, what, "scale")
	if err != nil {
		return nil, err
	}
	r, err := st.k.Activation(what, o.act, a, b, sc, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curActivationReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.activation_reduce"
	var dst, op, data, reduceOp, reduceRes, bias, name tracer.Value
	var scale tracer.Value = tracer.Float(1)
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "op", &op, "data", &data, "reduce_op", &reduceOp, "reduce_res", &reduceRes,
		"bias?", &bias, "scale?", &scale, "name?", &name); err != nil {
		return nil, err
	}
	return activationReduce(th, what, dst, op, data, reduceOp, reduceRes, bias, scale)
}

// activationReduce is activation_reduce, and activation with
// reduce_cmd=reset_reduce and a reduce_res ("This API is equivalent to
// calling nisa.activation with reduce_cmd=nisa.reduce_cmd.reset_reduce and
// passing in reduce_res").
func activationReduce(th *tracer.Thread, what string, dst, op, data, reduceOp, reduceRes, bias, scale tracer.Value) (tracer.Value, error) {
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
	if isNone(reduceOp) {
		red = "add"
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	rr, err := onChipDst(reduceRes, what)
	if err != nil {
		return nil, err
	}
	var b *lower.Access
	if !isNone(bias) {
		if _, _, isNum := number(bias); isNum {
			return nil, notSupportedf("%s with a constant bias: narwhal takes a [P, 1] bias tile", what)
		}
		ba, err := curTile(bias, what, "bias")
		if err != nil {
			return nil, err
		}
		b = &ba
	}
	sc, _, ok := number(scale)
	if !ok {
		return nil, notSupportedf("%s with a tile scale: narwhal takes a constant scale here", what)
	}
	if _, err := st.k.ActivationReduce(o.act, a, b, sc, red, rr, d.Dtype, lower.Mask{}, &d); err != nil {
		return nil, convert(err)
	}
	return tracer.None, nil
}

// ttEngine is tensor_tensor's engine: Vector, or GpSimd for power (the
// reference) or engine=gpsimd.
func ttEngine(engine tracer.Value, alu, what string) (bir.Engine, error) {
	def := bir.EngDVE
	if alu == "pow" {
		def = bir.EngPool
	}
	return engineArg(engine, def, what, bir.EngDVE, bir.EngPool)
}

func curTensorTensor(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_tensor"
	var dst, d1, d2, op, engine, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data1", &d1, "data2", &d2, "op", &op, "engine?", &engine, "name?", &name); err != nil {
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
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(d1, what, "data1")
	if err != nil {
		return nil, err
	}
	b, err := curTile(d2, what, "data2")
	if err != nil {
		return nil, err
	}
	eng, err := ttEngine(engine, alu, what)
	if err != nil {
		return nil, err
	}
	r, err := st.k.TensorTensor(what, alu, a, b, eng, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorScalar(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_scalar"
	var dst, data, op0, operand0, op1, operand1, engine, name tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "op0", &op0, "operand0", &operand0, "reverse0?", &rev0,
		"op1?", &op1, "operand1?", &operand1, "reverse1?", &rev1, "engine?", &engine, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	alu0, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	alu1 := ""
	if !isNone(op1) {
		if alu1, err = opArg(op1, what); err != nil {
			return nil, err
		}
	}
	s0, err := scalarOf(operand0, what, "operand0")
	if err != nil {
		return nil, err
	}
	s1 := lower.NoScalar
	if alu1 != "" {
		if s1, err = scalarOf(operand1, what, "operand1"); err != nil {
			return nil, err
		}
	}
	eng, err := engineArg(engine, bir.EngDVE, what, bir.EngDVE, bir.EngAct)
	if err != nil {
		return nil, err
	}
	if eng == bir.EngAct && !(alu0 == "mult" && (alu1 == "" || alu1 == "add") || alu0 == "add" && alu1 == "") {
		return nil, nkiErrorf("%s on the Scalar engine supports op0=multiply with op1=add or None, and op0=add with op1=None; have %s, %s", what, alu0, alu1)
	}
	r, err := st.k.TensorScalar(what, a, alu0, s0, rev0, alu1, s1, rev1, eng, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_reduce"
	var dst, op, data, axis, name tracer.Value
	var negate, keepdims bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "op", &op, "data", &data, "axis", &axis, "negate?", &negate,
		"keepdims?", &keepdims, "name?", &name); err != nil {
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
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	r, err := st.k.Reduce(what, alu, a, axes, keepdims, negate, bir.EngDVE, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorPartitionReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_partition_reduce"
	var dst, op, data, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "op", &op, "data", &data, "name?", &name); err != nil {
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
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	r, err := st.k.TensorPartitionReduce(alu, a, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorTensorScan(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_tensor_scan"
	var dst, d0, d1, initial, op0, op1, name tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data0", &d0, "data1", &d1, "initial", &initial, "op0", &op0, "op1", &op1,
		"reverse0?", &rev0, "reverse1?", &rev1, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(d0, what, "data0")
	if err != nil {
		return nil, err
	}
	b, err := curTile(d1, what, "data1")
	if err != nil {
		return nil, err
	}
	init, err := scalarOf(initial, what, "initial")
	if err != nil {
		return nil, err
	}
	a0, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	a1, err := opArg(op1, what)
	if err != nil {
		return nil, err
	}
	r, err := st.k.TensorTensorScan(a, b, init, a0, a1, rev0, rev1, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curScalarTensorTensor(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.scalar_tensor_tensor"
	var dst, data, op0, operand0, op1, operand1, name tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "op0", &op0, "operand0", &operand0, "op1", &op1, "operand1", &operand1,
		"reverse0?", &rev0, "reverse1?", &rev1, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	s0, err := scalarOf(operand0, what, "operand0")
	if err != nil {
		return nil, err
	}
	o1, err := curTile(operand1, what, "operand1")
	if err != nil {
		return nil, err
	}
	a0, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	a1, err := opArg(op1, what)
	if err != nil {
		return nil, err
	}
	r, err := st.k.ScalarTensorTensor(a, a0, s0, rev0, a1, o1, rev1, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorCopy(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_copy"
	var dst, src, engine, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "engine?", &engine, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(src, what, "src")
	if err != nil {
		return nil, err
	}
	eng, err := engineArg(engine, bir.EngDVE, what, bir.EngDVE, bir.EngAct, bir.EngPool)
	if err != nil {
		return nil, err
	}
	if eng == bir.EngPool && d.T.Mem == lower.PSUM {
		return nil, nkiErrorf("%s on the GpSimd engine cannot write PSUM (%s)", what, d.T.Describe())
	}
	r, err := st.k.Copy(a, eng, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curTensorCopyPredicated(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_copy_predicated"
	var dst, src, pred, name tracer.Value
	var rev bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "predicate", &pred, "reverse_pred?", &rev, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	p, err := curTile(pred, what, "predicate")
	if err != nil {
		return nil, err
	}
	var reads []lower.Access
	var srcOpd *lower.Access
	imm, _, isNum := number(src)
	if !isNum {
		s, err := curTile(src, what, "src")
		if err != nil {
			return nil, err
		}
		if s.Dtype != d.Dtype {
			return nil, nkiErrorf("%s: src and dst must share one dtype (\"src and dst must share the same data type\"); have %s and %s", what, s.Dtype, d.Dtype)
		}
		srcOpd = &s
		reads = append(reads, s)
	}
	if err := checkLockstep(what, d, p, "predicate"); err != nil {
		return nil, err
	}
	if srcOpd != nil {
		if err := checkLockstep(what, d, *srcOpd, "src"); err != nil {
			return nil, err
		}
		if srcOpd.T.Mem == lower.PSUM && p.T.Mem == lower.PSUM {
			return nil, nkiErrorf("%s: src and predicate cannot both be in PSUM", what)
		}
	}
	switch p.Dtype {
	case bir.Uint8, bir.Uint16, bir.Uint32:
	default:
		return nil, nkiErrorf("%s: the predicate must be uint8, uint16 or uint32, not %s", what, p.Dtype)
	}
	reads = append(reads, p)
	k := st.k
	return tracer.None, convert(k.Build(what, reads, []lower.Access{d}, func(b *bir.Builder) error {
		so := bir.Imm(imm)
		if srcOpd != nil {
			so = k.Operand(*srcOpd)
		}
		b.TensorCopyPredicated(k.InstName("copy_predicated"), k.Operand(d), so, k.Operand(p), rev)
		return nil
	}))
}

// checkLockstep checks that a and dst occupy the same partitions count and
// elements per partition (the engines' lockstep rule).
func checkLockstep(what string, dst, a lower.Access, param string) error {
	if a.Partitions() != dst.Partitions() || a.FreeElems() != dst.FreeElems() {
		return nkiErrorf("%s: %s %s must have dst's %d partitions and %d elements per partition, has %d and %d", what, param, a.T.Describe(),
			dst.Partitions(), dst.FreeElems(), a.Partitions(), a.FreeElems())
	}
	return nil
}

func curMemset(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.memset"
	var dst, value, engine, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "value", &value, "engine?", &engine, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	v, _, ok := number(value)
	if !ok {
		return nil, typeErrorf("%s: value must be a number, not %s", what, value.Type())
	}
	if !d.Dtype.IsFloat() && v != math.Trunc(v) {
		return nil, nkiErrorf("%s: value %v does not fit dst's integer dtype %s (NKI 0.3: \"the value argument must match the destination tensor's dtype\")", what, v, d.Dtype)
	}
	eng, err := engineArg(engine, bir.EngDVE, what, bir.EngDVE, bir.EngPool)
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.Memset(d, v, eng, lower.Mask{}))
}

// patternOf converts an iota / affine_select / .ap() pattern: a list of
// [step, num] pairs.
func patternOf(th *tracer.Thread, v tracer.Value, what string) ([][2]int64, error) {
	var out [][2]int64
	err := tracer.Iterate(th, v, func(p tracer.Value) error {
		var pair []int64
		if err := tracer.Iterate(th, p, func(x tracer.Value) error {
			n, err := tracer.AsInt64(th, x)
			pair = append(pair, n)
			return err
		}); err != nil {
			return err
		}
		if len(pair) != 2 {
			return typeErrorf("%s: a pattern is a list of [step, num] pairs, have %s", what, tracer.Repr(p))
		}
		out = append(out, [2]int64{pair[0], pair[1]})
		return nil
	})
	if err != nil {
		if _, ok := tracer.AsNeedConcrete(err); ok {
			return nil, err
		}
		if _, ok := err.(*tracer.Error); ok {
			return nil, err
		}
		return nil, typeErrorf("%s: a pattern is a list of [step, num] pairs, not %s", what, v.Type())
	}
	return out, nil
}

func curIota(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.iota"
	var dst, pattern, name tracer.Value
	var offset, cm int64
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "pattern", &pattern, "offset", &offset, "channel_multiplier?", &cm, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	pat, err := patternOf(th, pattern, what)
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.IotaPattern(d, pat, offset, cm))
}

// cmpALU are the comparisons affine_select's cmp_op takes.
var cmpALU = map[string]bool{"is_equal": true, "not_equal": true, "is_gt": true, "is_ge": true, "is_lt": true, "is_le": true}

func curAffineSelect(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.affine_select"
	// NKI 0.2: (dst, pattern, offset, channel_multiplier, on_true_tile,
	// on_false_value, cmp_op); NKI 0.3 moved offset to a keyword argument
	// after cmp_op. A positional call is read by where its tile is.
	names := []string{"dst", "pattern", "channel_multiplier", "on_true_tile", "on_false_value", "cmp_op", "offset"}
	if len(args) >= 5 {
		if _, ok := args[4].(*Tensor); ok {
			names = []string{"dst", "pattern", "offset", "channel_multiplier", "on_true_tile", "on_false_value", "cmp_op"}
		}
	}
	vals := map[string]*tracer.Value{}
	var dst, pattern, cmV, onTrue, onFalse, cmpOp, offV, name tracer.Value
	for n, p := range map[string]*tracer.Value{"dst": &dst, "pattern": &pattern, "channel_multiplier": &cmV, "on_true_tile": &onTrue,
		"on_false_value": &onFalse, "cmp_op": &cmpOp, "offset": &offV} {
		vals[n] = p
	}
	pairs := []any{}
	for i, n := range names {
		spec := n
		if n == "cmp_op" || n == "offset" || i >= 5 {
			spec = n + "?"
		}
		pairs = append(pairs, spec, vals[n])
	}
	pairs = append(pairs, "name?", &name)
	if err := isaUnpack(what, args, kwargs, pairs...); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(onTrue, what, "on_true_tile")
	if err != nil {
		return nil, err
	}
	pat, err := patternOf(th, pattern, what)
	if err != nil {
		return nil, err
	}
	var offset, cm int64
	if !isNone(offV) {
		if offset, err = tracer.AsInt64(th, offV); err != nil {
			return nil, err
		}
	}
	if !isNone(cmV) {
		if cm, err = tracer.AsInt64(th, cmV); err != nil {
			return nil, err
		}
	}
	fill, _, ok := number(onFalse)
	if !ok {
		return nil, typeErrorf("%s: on_false_value must be a number, not %s", what, onFalse.Type())
	}
	cmp := "is_equal"
	if !isNone(cmpOp) {
		if cmp, err = opArg(cmpOp, what); err != nil {
			return nil, err
		}
		if !cmpALU[cmp] {
			return nil, nkiErrorf("%s: cmp_op=%s is not a comparison (np.equal, nl.greater_equal, ...)", what, tracer.Repr(cmpOp))
		}
	}
	return tracer.None, convert(st.k.AffineSelectPattern(d, a, pat, offset, cm, cmp, fill))
}

func curBN(name string) builtinFn {
	what := "nisa." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var dst, data, nm tracer.Value
		if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "name?", &nm); err != nil {
			return nil, err
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		d, err := onChipDst(dst, what)
		if err != nil {
			return nil, err
		}
		a, err := curTile(data, what, "data")
		if err != nil {
			return nil, err
		}
		var r *lower.Result
		if name == "bn_stats" {
			r, err = st.k.BNStats(a, d.Dtype, lower.Mask{})
		} else {
			r, err = st.k.BNAggr(a, d.Dtype, lower.Mask{})
		}
		if err != nil {
			return nil, convert(err)
		}
		return write(r, d, what)
	}
}

func curReciprocal(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.reciprocal"
	var dst, data, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	r, err := st.k.Reciprocal(what, a, bir.EngDVE, d.Dtype, lower.Mask{})
	if err != nil {
		return nil, convert(err)
	}
	return write(r, d, what)
}

func curDMATranspose(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.dma_transpose"
	var dst, src, axes, dge, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "axes?", &axes, "dge_mode?", &dge, "name?", &name); err != nil {
		return nil, err
	}
	if _, err := enumArg(dge, enumDGEMode, "unknown", what, "dge_mode"); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := dstOf(dst, what)
	if err != nil {
		return nil, err
	}
	a, _, err := tileOf(src, what, "src")
	if err != nil {
		return nil, err
	}
	rank := len(a.Dims)
	// The permutations (the reference): 2-D [1, 0], 3-D [2, 1, 0], 4-D
	// [3, 1, 2, 0].
	perms := map[int][]int64{2: {1, 0}, 3: {2, 1, 0}, 4: {3, 1, 2, 0}}
	perm, ok := perms[rank]
	if !ok {
		return nil, nkiErrorf("%s of a %d-D source: the DMA transposes 2-D, 3-D and 4-D tiles", what, rank)
	}
	if !isNone(axes) {
		ax, err := tupleInts(th, axes)
		if err != nil {
			return nil, err
		}
		if !equalShape(ax, perm) {
			return nil, nkiErrorf("%s(axes=%v) of a %d-D source: supported axes are (1, 0), (2, 1, 0) and (3, 1, 2, 0)", what, ax, rank)
		}
	}
	if rank == 2 {
		r, err := st.k.DMATranspose(a, lower.Mask{})
		if err != nil {
			return nil, convert(err)
		}
		return write(r, d, what)
	}
	shape := a.Shape()
	want := make([]int64, rank)
	for i, p := range perm {
		want[i] = shape[p]
	}
	if d.Elems() != a.Elems() || d.Partitions() != want[0] {
		return nil, nkiErrorf("%s: a source of shape %s transposes to %s; dst %s has shape %s", what, shapeText(shape), shapeText(want), d.T.Describe(), shapeText(d.Shape()))
	}
	if a.Dtype != d.Dtype || a.Dtype.Size() != 2 {
		return nil, notSupportedf("%s of a %d-D %s source into %s: the DMA transposes 2-byte elements and keeps the dtype", what, rank, a.Dtype, d.Dtype)
	}
	if d.T.Mem != lower.SBUF || a.T.Mem == lower.PSUM {
		return nil, nkiErrorf("%s reads HBM or SBUF and writes SBUF; have %s -> %s", what, a.T.Describe(), d.T.Describe())
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a}, []lower.Access{d}, func(b *bir.Builder) error {
		b.DMATranspose(k.InstName("dma_transpose"), k.Operand(d), k.Operand(a), rank)
		return nil
	}))
}

func curGetNCVersion(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if err := tracer.UnpackArgs("nisa.get_nc_version", args, kwargs); err != nil {
		return nil, err
	}
	v := 3
	if st := current(th); st != nil {
		v = st.k.NCVersion()
	}
	switch v {
	case 2:
		return enumNCVersion.get("gen2"), nil
	case 4:
		return enumNCVersion.get("gen4"), nil
	}
	return enumNCVersion.get("gen3"), nil
}

func init() {
	cur("nc_matmul", curNcMatmul)
	cur("nc_transpose", curNcTranspose)
	cur("activation", curActivation)
	cur("activation_reduce", curActivationReduce)
	cur("tensor_tensor", curTensorTensor)
	cur("tensor_scalar", curTensorScalar)
	cur("tensor_reduce", curTensorReduce)
	cur("tensor_partition_reduce", curTensorPartitionReduce)
	cur("tensor_tensor_scan", curTensorTensorScan)
	cur("scalar_tensor_tensor", curScalarTensorTensor)
	cur("tensor_copy", curTensorCopy)
	cur("tensor_copy_predicated", curTensorCopyPredicated)
	cur("memset", curMemset)
	cur("iota", curIota)
	cur("affine_select", curAffineSelect)
	cur("bn_stats", curBN("bn_stats"))
	cur("bn_aggr", curBN("bn_aggr"))
	cur("reciprocal", curReciprocal)
	cur("dma_transpose", curDMATranspose)
	cur("get_nc_version", curGetNCVersion)
}
