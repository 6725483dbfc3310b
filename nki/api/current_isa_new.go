package api

// The nki.isa instructions only the current API has (issue 25 item 1),
// each lowered with the bir.Builder method of its ISA encoding
// (docs/isa.md). An instruction whose encoding narwhal does not have is a
// NotSupported error naming it and the reason (curUnsupported), never an
// instruction the interpreter cannot run.

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// top8 checks the max8 family's shapes: src/data with 8..16384 elements
// per partition, a [P, 8] vals or dst.
func top8(what string, data, eight lower.Access, param string) error {
	if n := data.FreeElems(); n < 8 || n > 16384 {
		return nkiErrorf("%s: %s has %d elements per partition; the instruction reads 8 to 16,384", what, data.T.Describe(), n)
	}
	if eight.FreeElems() != 8 || eight.Partitions() != data.Partitions() {
		return nkiErrorf("%s: %s must be [%d, 8], has shape %s", what, param, data.Partitions(), shapeText(eight.Shape()))
	}
	return nil
}

func curMax8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.max8"
	var dst, src, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "name?", &name); err != nil {
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
	s, err := curTile(src, what, "src")
	if err != nil {
		return nil, err
	}
	if err := top8(what, s, d, "dst"); err != nil {
		return nil, err
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s}, []lower.Access{d}, func(b *bir.Builder) error {
		b.Max8(k.InstName("max8"), k.Operand(d), k.Operand(s))
		return nil
	}))
}

func curFindIndex8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_find_index8"
	var dst, data, vals, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "vals", &vals, "name?", &name); err != nil {
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
	v, err := curTile(vals, what, "vals")
	if err != nil {
		return nil, err
	}
	if err := top8(what, a, v, "vals"); err != nil {
		return nil, err
	}
	if err := top8(what, a, d, "dst"); err != nil {
		return nil, err
	}
	if d.Dtype != bir.Uint16 && d.Dtype != bir.Uint32 {
		return nil, nkiErrorf("%s: dst holds indices, uint16 or uint32, not %s", what, d.Dtype)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a, v}, []lower.Access{d}, func(b *bir.Builder) error {
		b.FindIndex8(k.InstName("find_index8"), k.Operand(d), k.Operand(a), k.Operand(v))
		return nil
	}))
}

func curMatchReplace8(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_match_replace8"
	var dst, data, vals, imm, dstIdx, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "vals", &vals, "imm", &imm, "dst_idx?", &dstIdx, "name?", &name); err != nil {
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
	v, err := curTile(vals, what, "vals")
	if err != nil {
		return nil, err
	}
	if err := top8(what, a, v, "vals"); err != nil {
		return nil, err
	}
	if err := checkLockstep(what, d, a, "data"); err != nil {
		return nil, err
	}
	f, _, ok := number(imm)
	if !ok {
		return nil, typeErrorf("%s: imm must be a number, not %s", what, imm.Type())
	}
	writes := []lower.Access{d}
	var idx *lower.Access
	if !isNone(dstIdx) {
		ia, err := onChipDst(dstIdx, what)
		if err != nil {
			return nil, err
		}
		if err := top8(what, a, ia, "dst_idx"); err != nil {
			return nil, err
		}
		idx = &ia
		writes = append(writes, ia)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a, v}, writes, func(b *bir.Builder) error {
		var io bir.Operand
		if idx != nil {
			io = k.Operand(*idx)
		}
		b.MatchReplace8(k.InstName("match_replace8"), k.Operand(d), k.Operand(a), k.Operand(v), f, io)
		return nil
	}))
}

// scalarOpd is an operand documented "a scalar or a [P, 1] tile": an
// immediate, or an on-chip access.
type scalarOpd struct {
	acc *lower.Access
	imm float64
	set bool
}

func scalarOperand(v tracer.Value, what, param string) (scalarOpd, error) {
	if isNone(v) {
		return scalarOpd{}, nil
	}
	if f, _, ok := number(v); ok {
		return scalarOpd{imm: f, set: true}, nil
	}
	a, err := curTile(v, what, param)
	if err != nil {
		return scalarOpd{}, err
	}
	if a.FreeElems() != 1 {
		return scalarOpd{}, nkiErrorf("%s: %s must be a number or a [P, 1] tile, has shape %s", what, param, shapeText(a.Shape()))
	}
	return scalarOpd{acc: &a, set: true}, nil
}

// operand returns the BIR operand (the zero Operand when unset).
func (s scalarOpd) operand(k *lower.Kernel) bir.Operand {
	switch {
	case s.acc != nil:
		return k.Operand(*s.acc)
	case s.set:
		return bir.Imm(s.imm)
	}
	return bir.Operand{}
}

func (s scalarOpd) reads() []lower.Access {
	if s.acc != nil {
		return []lower.Access{*s.acc}
	}
	return nil
}

// reduceCmdOf reads reduce_cmd= for an instruction with an optional
// reduce_res: when the command is not given and a reduce_res is, the
// instruction's documented result ("storing the reduction result in
// reduce_res") is reset_reduce's; def otherwise. Reading reduce_res after
// an explicit idle is an error (the accumulator is undefined).
func reduceCmdOf(v tracer.Value, hasRes bool, def, what string) (string, error) {
	if isNone(v) {
		if hasRes {
			return "reset_reduce", nil
		}
		return def, nil
	}
	cmd, err := enumArg(v, enumReduceCmd, def, what, "reduce_cmd")
	if err != nil {
		return "", err
	}
	if cmd == "idle" && hasRes {
		return "", nkiErrorf("%s: reduce_res with reduce_cmd=idle reads accumulator registers the instruction did not set (\"Even when reduce_cmd is set to idle, the accumulator state may still be modified\")", what)
	}
	return cmd, nil
}

// reduceRes converts an optional [P, 1] reduce_res= destination.
func reduceRes(v tracer.Value, what string, rows int64) (*lower.Access, error) {
	if isNone(v) {
		return nil, nil
	}
	r, err := onChipDst(v, what)
	if err != nil {
		return nil, err
	}
	if r.FreeElems() != 1 || r.Partitions() != rows {
		return nil, nkiErrorf("%s: reduce_res must have shape (%d, 1), has %s", what, rows, shapeText(r.Shape()))
	}
	return &r, nil
}

func optOperand(k *lower.Kernel, a *lower.Access) bir.Operand {
	if a == nil {
		return bir.Operand{}
	}
	return k.Operand(*a)
}

func appendOpt(as []lower.Access, a *lower.Access) []lower.Access {
	if a != nil {
		return append(as, *a)
	}
	return as
}

// curActivationISA is nisa.activation's general form (an immediate bias, a
// vector scale, the reduce commands): Builder.ActivationISA.
func curActivationISA(th *tracer.Thread, what string, dst, op, data, bias, scale, reduceOp, reduceResV, reduceCmdV tracer.Value) (tracer.Value, error) {
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
	if err := checkLockstep(what, d, a, "data"); err != nil {
		return nil, err
	}
	b, err := scalarOperand(bias, what, "bias")
	if err != nil {
		return nil, err
	}
	sc, err := scalarOperand(scale, what, "scale")
	if err != nil {
		return nil, err
	}
	rr, err := reduceRes(reduceResV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(reduceCmdV, rr != nil, "idle", what)
	if err != nil {
		return nil, err
	}
	red := "add"
	if !isNone(reduceOp) {
		if red, err = opArg(reduceOp, what); err != nil {
			return nil, err
		}
	}
	k := st.k
	reads := append(append([]lower.Access{a}, b.reads()...), sc.reads()...)
	writes := appendOpt([]lower.Access{d}, rr)
	return tracer.None, convert(k.Build(what, reads, writes, func(bb *bir.Builder) error {
		sco := sc.operand(k)
		if !sc.set {
			sco = bir.Imm(1)
		}
		bb.ActivationISA(k.InstName("activation"), o.act, k.Operand(d), k.Operand(a), b.operand(k), sco, red, optOperand(k, rr), cmd)
		return nil
	}))
}

func curTensorScalarReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_scalar_reduce"
	var dst, data, op0, operand0, reduceOp, reduceResV, cmdV, initV, negate, name tracer.Value
	var rev0 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "op0", &op0, "operand0", &operand0, "reduce_op", &reduceOp,
		"reduce_res?", &reduceResV, "reverse0?", &rev0, "reduce_cmd?", &cmdV, "reduce_init?", &initV, "reduce_res_negate?", &negate, "name?", &name); err != nil {
		return nil, err
	}
	if b, ok := negate.(tracer.Bool); ok && bool(b) {
		return nil, notSupportedf("%s(reduce_res_negate=True): the negated readout is not in narwhal's encoding", what)
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
	if err := checkLockstep(what, d, a, "data"); err != nil {
		return nil, err
	}
	alu, err := opArg(op0, what)
	if err != nil {
		return nil, err
	}
	red, err := opArg(reduceOp, what)
	if err != nil {
		return nil, err
	}
	o0, err := scalarOperand(operand0, what, "operand0")
	if err != nil {
		return nil, err
	}
	rr, err := reduceRes(reduceResV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(cmdV, true, "reset_reduce", what)
	if err != nil {
		return nil, err
	}
	init, err := scalarOperand(initV, what, "reduce_init")
	if err != nil {
		return nil, err
	}
	if init.set != (cmd == "load_reduce") {
		return nil, nkiErrorf("%s: reduce_init is given exactly with reduce_cmd=load_reduce", what)
	}
	k := st.k
	reads := append(append([]lower.Access{a}, o0.reads()...), init.reads()...)
	return tracer.None, convert(k.Build(what, reads, appendOpt([]lower.Access{d}, rr), func(b *bir.Builder) error {
		b.TensorScalarReduce(k.InstName("tensor_scalar_reduce"), k.Operand(d), k.Operand(a), o0.operand(k), alu, rev0, red, optOperand(k, rr), cmd, init.operand(k))
		return nil
	}))
}

func curTensorScalarCumulative(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.tensor_scalar_cumulative"
	var dst, src, op0, op1, imm0, imm1, cmdV, name tracer.Value
	var rev0 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "op0", &op0, "op1", &op1, "imm0", &imm0, "imm1?", &imm1,
		"reduce_cmd?", &cmdV, "reverse0?", &rev0, "name?", &name); err != nil {
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
	if err := checkLockstep(what, d, a, "src"); err != nil {
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
	i0, err := scalarOperand(imm0, what, "imm0")
	if err != nil {
		return nil, err
	}
	i1, err := scalarOperand(imm1, what, "imm1")
	if err != nil {
		return nil, err
	}
	// NKI 0.2's default (the 2.27/2.29 stubs: reduce_cmd=reset_reduce).
	cmd, err := enumArg(cmdV, enumReduceCmd, "reset_reduce", what, "reduce_cmd")
	if err != nil {
		return nil, err
	}
	if i1.set != (cmd == "load_reduce") {
		return nil, nkiErrorf("%s: imm1 is given exactly with reduce_cmd=load_reduce (\"load_reduce: Initialize accumulator with imm1 value\")", what)
	}
	k := st.k
	reads := append(append([]lower.Access{a}, i0.reads()...), i1.reads()...)
	return tracer.None, convert(k.Build(what, reads, []lower.Access{d}, func(b *bir.Builder) error {
		b.TensorScalarCumulative(k.InstName("tensor_scalar_cumulative"), k.Operand(d), k.Operand(a), a0, i0.operand(k), a1, i1.operand(k), cmd, rev0)
		return nil
	}))
}

// fp32Min is FP32_MIN, range_select's fill ("Due to HW constraints, this
// must be FP32_MIN FP32 bit pattern").
const fp32Min = -3.4028234663852886e38

func curRangeSelect(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.range_select"
	var dst, onTrue, c0, c1, b0, b1, cmdV, rrV, redV, startV, falseV, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "on_true_tile", &onTrue, "comp_op0", &c0, "comp_op1", &c1, "bound0", &b0, "bound1", &b1,
		"reduce_cmd?", &cmdV, "reduce_res?", &rrV, "reduce_op?", &redV, "range_start?", &startV, "on_false_value?", &falseV, "name?", &name); err != nil {
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
	if err := checkLockstep(what, d, a, "on_true_tile"); err != nil {
		return nil, err
	}
	var cmps [2]string
	for i, c := range []tracer.Value{c0, c1} {
		alu, err := opArg(c, what)
		if err != nil {
			return nil, err
		}
		if !cmpALU[alu] || alu == "not_equal" {
			return nil, nkiErrorf("%s: comp_op%d must be np.equal, np.less, np.less_equal, np.greater or np.greater_equal, not %s", what, i, tracer.Repr(c))
		}
		cmps[i] = alu
	}
	bd0, err := scalarOperand(b0, what, "bound0")
	if err != nil {
		return nil, err
	}
	bd1, err := scalarOperand(b1, what, "bound1")
	if err != nil {
		return nil, err
	}
	rr, err := reduceRes(rrV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(cmdV, rr != nil, "idle", what)
	if err != nil {
		return nil, err
	}
	red := "max"
	if !isNone(redV) {
		if red, err = opArg(redV, what); err != nil {
			return nil, err
		}
	}
	var start int64
	if !isNone(startV) {
		f, err := tracer.AsFloat64(th, startV)
		if err != nil {
			return nil, err
		}
		if f != math.Trunc(f) {
			return nil, nkiErrorf("%s: range_start must be a compile-time integer, not %v", what, f)
		}
		start = int64(f)
	}
	fill := fp32Min
	if !isNone(falseV) {
		f, _, ok := number(falseV)
		if !ok || float64(float32(f)) != float64(float32(fp32Min)) {
			return nil, nkiErrorf("%s: on_false_value must be FP32_MIN (-3.4028235e38: \"Due to HW constraints, this must be FP32_MIN FP32 bit pattern\"), not %s", what, tracer.Repr(falseV))
		}
	}
	k := st.k
	reads := append(append([]lower.Access{a}, bd0.reads()...), bd1.reads()...)
	return tracer.None, convert(k.Build(what, reads, appendOpt([]lower.Access{d}, rr), func(b *bir.Builder) error {
		b.RangeSelect(k.InstName("range_select"), k.Operand(d), k.Operand(a), cmps[0], cmps[1], bd0.operand(k), bd1.operand(k), cmd, optOperand(k, rr), red, start, fill)
		return nil
	}))
}

func curSelectReduce(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.select_reduce"
	var dst, pred, onTrue, onFalse, rrV, cmdV, redV, name tracer.Value
	var rev bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "predicate", &pred, "on_true", &onTrue, "on_false", &onFalse, "reduce_res?", &rrV,
		"reduce_cmd?", &cmdV, "reduce_op?", &redV, "reverse_pred?", &rev, "name?", &name); err != nil {
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
	a, err := curTile(onTrue, what, "on_true")
	if err != nil {
		return nil, err
	}
	for _, x := range []struct {
		acc   lower.Access
		param string
	}{{p, "predicate"}, {a, "on_true"}} {
		if err := checkLockstep(what, d, x.acc, x.param); err != nil {
			return nil, err
		}
	}
	f, err := scalarOperand(onFalse, what, "on_false")
	if err != nil {
		return nil, err
	}
	rr, err := reduceRes(rrV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(cmdV, rr != nil, "idle", what)
	if err != nil {
		return nil, err
	}
	red := "max"
	if !isNone(redV) {
		if red, err = opArg(redV, what); err != nil {
			return nil, err
		}
	}
	k := st.k
	reads := append([]lower.Access{a, p}, f.reads()...)
	return tracer.None, convert(k.Build(what, reads, appendOpt([]lower.Access{d}, rr), func(b *bir.Builder) error {
		b.SelectReduce(k.InstName("select_reduce"), k.Operand(d), k.Operand(p), k.Operand(a), f.operand(k), optOperand(k, rr), cmd, red, rev)
		return nil
	}))
}

func curExponential(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.exponential"
	var dst, src, maxV, rrV, cmdV, initV, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "max_value?", &maxV, "reduce_res?", &rrV, "reduce_cmd?", &cmdV,
		"reduce_init?", &initV, "name?", &name); err != nil {
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
	if err := checkLockstep(what, d, a, "src"); err != nil {
		return nil, err
	}
	mv, err := scalarOperand(maxV, what, "max_value")
	if err != nil {
		return nil, err
	}
	rr, err := reduceRes(rrV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(cmdV, rr != nil, "idle", what)
	if err != nil {
		return nil, err
	}
	init := 0.0
	if !isNone(initV) {
		f, _, ok := number(initV)
		if !ok {
			return nil, typeErrorf("%s: reduce_init must be a number, not %s", what, initV.Type())
		}
		init = f
	}
	k := st.k
	reads := append([]lower.Access{a}, mv.reads()...)
	return tracer.None, convert(k.Build(what, reads, appendOpt([]lower.Access{d}, rr), func(b *bir.Builder) error {
		b.Exponential(k.InstName("exponential"), k.Operand(d), k.Operand(a), mv.operand(k), optOperand(k, rr), cmd, init)
		return nil
	}))
}

func curActivate2(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.activate2"
	var dst, op, data, op0, imm0, op1, imm1, relu, rrV, cmdV, redV, name tracer.Value
	var rev0, rev1 bool
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "op", &op, "data", &data, "op0?", &op0, "imm0?", &imm0, "op1?", &op1, "imm1?", &imm1,
		"relu_param?", &relu, "reverse0?", &rev0, "reverse1?", &rev1, "reduce_op?", &redV, "reduce_res?", &rrV, "reduce_cmd?", &cmdV, "name?", &name); err != nil {
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
	d, err := onChipDst(dst, what)
	if err != nil {
		return nil, err
	}
	a, err := curTile(data, what, "data")
	if err != nil {
		return nil, err
	}
	ops := [2]string{"bypass", "bypass"}
	for i, x := range []tracer.Value{op0, op1} {
		if !isNone(x) {
			if ops[i], err = opArg(x, what); err != nil {
				return nil, err
			}
		}
	}
	i0, err := scalarOperand(imm0, what, "imm0")
	if err != nil {
		return nil, err
	}
	i1, err := scalarOperand(imm1, what, "imm1")
	if err != nil {
		return nil, err
	}
	if !i0.set {
		i0 = scalarOpd{set: true}
	}
	if !i1.set {
		i1 = scalarOpd{set: true}
	}
	rp := 0.0
	if !isNone(relu) {
		if rp, _, ok = number(relu); !ok {
			return nil, typeErrorf("%s: relu_param must be a number", what)
		}
	}
	rr, err := reduceRes(rrV, what, a.Partitions())
	if err != nil {
		return nil, err
	}
	cmd, err := reduceCmdOf(cmdV, rr != nil, "idle", what)
	if err != nil {
		return nil, err
	}
	red := ""
	if !isNone(redV) {
		if red, err = opArg(redV, what); err != nil {
			return nil, err
		}
	}
	k := st.k
	reads := append(append([]lower.Access{a}, i0.reads()...), i1.reads()...)
	return tracer.None, convert(k.Build(what, reads, appendOpt([]lower.Access{d}, rr), func(b *bir.Builder) error {
		b.Activate2(k.InstName("activate2"), o.act, k.Operand(d), k.Operand(a), i0.operand(k), i1.operand(k), ops[0], ops[1], rp, rev0, rev1, red, optOperand(k, rr), cmd)
		return nil
	}))
}

func curLocalGather(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.local_gather"
	var dst, src, index, name tracer.Value
	var perIdx int64 = 1
	var validV tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src_buffer", &src, "index", &index, "num_elem_per_idx?", &perIdx,
		"num_valid_indices?", &validV, "name?", &name); err != nil {
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
	s, err := curTile(src, what, "src_buffer")
	if err != nil {
		return nil, err
	}
	ix, err := curTile(index, what, "index")
	if err != nil {
		return nil, err
	}
	var valid int64
	if !isNone(validV) {
		if valid, err = tracer.AsInt64(th, validV); err != nil {
			return nil, err
		}
	}
	if s.Partitions() != ix.Partitions() || s.Partitions()%16 != 0 {
		return nil, nkiErrorf("%s: src_buffer and index must have the same partitions, a multiple of 16 (\"src_buffer.shape[0] == index.shape[0] and src_buffer.shape[0] %% 16 == 0\"), have %d and %d", what, s.Partitions(), ix.Partitions())
	}
	if ix.Dtype != bir.Uint16 {
		return nil, nkiErrorf("%s: the indices must be uint16, not %s", what, ix.Dtype)
	}
	if d.Dtype != s.Dtype {
		return nil, nkiErrorf("%s preserves the source dtype (\"no data type casting is allowed\"): src %s, dst %s", what, s.Dtype, d.Dtype)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s, ix}, []lower.Access{d}, func(b *bir.Builder) error {
		b.LocalGather(k.InstName("local_gather"), k.Operand(d), k.Operand(s), k.Operand(ix), perIdx, valid)
		return nil
	}))
}

// simple3 builds an instruction of (dst, a, b) tiles with a Builder call.
func curNGather(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_n_gather"
	var dst, data, indices, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "data", &data, "indices", &indices, "name?", &name); err != nil {
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
	ix, err := curTile(indices, what, "indices")
	if err != nil {
		return nil, err
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{a, ix}, []lower.Access{d}, func(b *bir.Builder) error {
		b.NGather(k.InstName("n_gather"), k.Operand(d), k.Operand(a), k.Operand(ix))
		return nil
	}))
}

func curStreamShuffle(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nc_stream_shuffle"
	var dst, src, maskV, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "shuffle_mask", &maskV, "name?", &name); err != nil {
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
	s, err := curTile(src, what, "src")
	if err != nil {
		return nil, err
	}
	mask, err := tupleInts(th, maskV)
	if err != nil {
		return nil, err
	}
	if len(mask) != 32 {
		return nil, nkiErrorf("%s: shuffle_mask has 32 entries, not %d", what, len(mask))
	}
	for i, m := range mask {
		if (m < 0 || m >= 32) && m != 255 {
			return nil, nkiErrorf("%s: shuffle_mask[%d] = %d: a partition of the quadrant (0..31) or 255 (unmodified)", what, i, m)
		}
	}
	if d.Dtype != s.Dtype || d.FreeElems() != s.FreeElems() {
		return nil, nkiErrorf("%s: dst must have src's dtype and elements per partition (\"dst must have same data type as src\")", what)
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s}, []lower.Access{d}, func(b *bir.Builder) error {
		b.StreamShuffle(k.InstName("stream_shuffle"), k.Operand(d), k.Operand(s), mask)
		return nil
	}))
}

func curSequenceBounds(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.sequence_bounds"
	var dst, seg, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "segment_ids", &seg, "name?", &name); err != nil {
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
	s, err := curTile(seg, what, "segment_ids")
	if err != nil {
		return nil, err
	}
	if s.Partitions() != 1 || d.Partitions() != 1 || d.FreeElems() != 2*s.FreeElems() {
		return nil, nkiErrorf("%s: segment_ids is [1, n] and dst [1, 2, n] (\"The partition dimension must always be 1\"), have %s and %s", what, shapeText(s.Shape()), shapeText(d.Shape()))
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s}, []lower.Access{d}, func(b *bir.Builder) error {
		b.SequenceBounds(k.InstName("sequence_bounds"), k.Operand(d), k.Operand(s))
		return nil
	}))
}

func curNonzeroWithCount(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.nonzero_with_count"
	var dst, src, name tracer.Value
	var off int64
	var pad int64 = -1
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "index_offset?", &off, "padding_val?", &pad, "name?", &name); err != nil {
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
	s, err := curTile(src, what, "src")
	if err != nil {
		return nil, err
	}
	if d.Partitions() != s.Partitions() || d.FreeElems() != s.FreeElems()+1 {
		return nil, nkiErrorf("%s: dst is [P, T + 1] for src [P, T], have %s and %s", what, shapeText(d.Shape()), shapeText(s.Shape()))
	}
	k := st.k
	return tracer.None, convert(k.Build(what, []lower.Access{s}, []lower.Access{d}, func(b *bir.Builder) error {
		b.NonzeroWithCount(k.InstName("nonzero_with_count"), k.Operand(d), k.Operand(s), off, pad)
		return nil
	}))
}

func init() {
	cur("max8", curMax8)
	cur("nc_find_index8", curFindIndex8)
	cur("nc_match_replace8", curMatchReplace8)
	cur("tensor_scalar_reduce", curTensorScalarReduce)
	cur("tensor_scalar_cumulative", curTensorScalarCumulative)
	cur("range_select", curRangeSelect)
	cur("select_reduce", curSelectReduce)
	cur("exponential", curExponential)
	cur("activate2", curActivate2)
	cur("local_gather", curLocalGather)
	cur("nc_n_gather", curNGather)
	cur("nc_stream_shuffle", curStreamShuffle)
	cur("sequence_bounds", curSequenceBounds)
	cur("nonzero_with_count", curNonzeroWithCount)
	for n, why := range map[string]string{
		"quantize_mx":             "the reference does not give the scale tensor's layout nor how the shared exponent is rounded (docs/isa.md)",
		"nc_matmul_mx":            "the reference does not give the scale tensor's layout nor how the shared exponent is rounded (docs/isa.md)",
		"dropout":                 "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"rng":                     "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"rand2":                   "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"rand_get_state":          "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"rand_set_state":          "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"set_rng_seed":            "random numbers: the reference names the generator but not its state layout nor which lane takes which number (docs/isa.md)",
		"sendrecv":                "it exchanges data between two NeuronCores (LNC=2); narwhal runs one core",
		"core_barrier":            "it synchronizes two NeuronCores (LNC=2); narwhal traces one core's kernel",
		"tensor_copy_dynamic_src": "deprecated in NKI 0.3 and removed in 0.4: use nisa.tensor_copy with .ap(..., scalar_offset=...)",
		"tensor_copy_dynamic_dst": "deprecated in NKI 0.3 and removed in 0.4: use nisa.tensor_copy with .ap(..., scalar_offset=...)",
		"builtin_custom_op":       "custom GpSimd code cannot be run",
	} {
		curUnsupported(n, why)
	}
}
