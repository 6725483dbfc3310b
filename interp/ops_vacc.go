package interp

// The Vector engine's accumulator registers and the nki.isa instructions
// that use them (docs/isa.md, bir/isa.go's InstAccumulator):
//
//	tensor_scalar_reduce      TensorScalarPtr acc=cmd  ins [data, operand0, reduce_init?]  outs [dst, reduce_res?]
//	tensor_scalar_cumulative  TensorScalarCache        ins [src, imm0, imm1?]              outs [dst]
//	range_select              RangeSelect              ins [on_true, bound0, bound1]       outs [dst, reduce_res?]
//	select_reduce             CopyPredicated acc=cmd   ins [on_true, predicate, on_false]  outs [dst, reduce_res?]
//	exponential               Exponential              ins [src, max_value, reduce_init?]  outs [dst, reduce_res?]
//
// The state (CHOICE, the NKI reference's "The Vector Engine maintains
// internal accumulator registers ... shared across Vector Engine
// accumulation instructions", modelled as the Activation engine's are,
// semantics-choices §4.6): one fp32 register per lane, 128 lanes, shared
// by every instruction of the run in execution order; lane = the physical
// partition of the instruction's first source row (mod partitions). The
// reduce command (EngineAccumulationType; nisa.reduce_cmd) of an
// instruction, for each of its rows with the row's fp32 results (before
// the cast to dst's dtype) folded by the reduce op in element order:
//
//	Idle            no fold; the lanes become undefined (the reference: "Even when
//	                reduce_cmd is set to idle, the accumulator state may still be
//	                modified"); a later Accumulate or read of them is an error
//	Zero            R = identity of the reduce op (no fold)
//	ZeroAccumulate  R = fold from the identity (reset_reduce)
//	Accumulate      R = fold from R (reduce; an error if R is undefined)
//	LoadAccumulate  R = fold from the load value (load_reduce)
//
// Identities: add and subtract 0, mult 1, max -Inf, min +Inf (the
// reference's tensor_scalar_cumulative pseudocode; "reset accumulators to
// 0" of tensor_scalar_reduce and exponential is add's identity, "reset
// accumulators to -inf" of select_reduce max's). A reduce_res destination
// ([P,1]) receives R of its row's lane after the update, cast to its
// dtype (the reference: "a tile of shape (data.shape[0], 1) to hold the
// final state").

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// fp32Min is range_select's on_false_value ("Due to hardware constraints,
// this must be FP32_MIN (-3.4028235e+38)"), its default when fill_value
// is absent.
const fp32Min = -math.MaxFloat32

// vaccIdentity is the register value a reset gives for op.
func vaccIdentity(op aluOp) float32 {
	if op == aluSubtract {
		return 0
	}
	return reduceIdentity(op)
}

// vaccMode reads the reduce command of an instruction of the family.
func vaccMode(op bir.Opcode, attrs bir.AttrSet) (accMode, error) {
	s := bir.AccCmd(op, attrs)
	mode, ok := parseAccMode(s)
	if !ok {
		return 0, errf(ErrOperand, "reduce command %q is not an EngineAccumulationType", s)
	}
	return mode, nil
}

// vaccReduceOp reads attribute reduce_op (default def) and checks it is
// one of allowed.
func (mc *machine) vaccReduceOp(x *instCtx, def aluOp, allowed ...aluOp) (aluOp, error) {
	op := def
	if v, ok := x.attrs.Get("reduce_op"); ok && v.Kind != bir.ValNull {
		s, _ := v.AsString()
		var good bool
		if op, good = parseAluOp(s); !good {
			return 0, errf(ErrOperand, "attribute reduce_op=%s is not an AluOp", v.JSON())
		}
	}
	for _, a := range allowed {
		if op == a {
			return op, nil
		}
	}
	return 0, errf(ErrNoSemantics, "reduce_op %s: narwhal models %v for this instruction (the NKI reference's list)", op, allowed)
}

// vaccLanes fills lanes[p] with the accumulator lane of row p of v.
func (mc *machine) vaccLanes(v *view) []int64 {
	F := max(v.F, 1)
	lanes := mc.i64buf(5, v.P)
	for p := range lanes {
		if v.n == 0 {
			lanes[p] = int64(p) % mc.geo.partitions
			continue
		}
		lanes[p] = v.physPartition(v.offs[int64(p)*F]) % mc.geo.partitions
	}
	return lanes
}

// vaccStart returns the register value row p's fold starts from.
func (mc *machine) vaccStart(mode accMode, op aluOp, lane int64, load *scalarOperand, p int64) (float32, error) {
	switch mode {
	case accAccumulate:
		if !mc.dveInit[lane] && !mc.allowUninit {
			return 0, errf(ErrUninitRead, "reduce command Accumulate reads the Vector accumulator of lane %d (row %d), which no instruction defined (never written, or left undefined by an Idle command); start with reset_reduce or load_reduce", lane, p)
		}
		return mc.dveAcc[lane], nil
	case accLoadAccumulate:
		if load == nil {
			return 0, errf(ErrOperand, "reduce command LoadAccumulate without a load value")
		}
		if load.imm {
			return load.f, nil
		}
		return load.rowsF[p], nil
	}
	return vaccIdentity(op), nil
}

// vaccFold applies the reduce command to the lanes of rows y ([P, F] fp32
// results, row-major) and writes the readout destination k (if the
// instruction has it).
func (mc *machine) vaccFold(mode accMode, op aluOp, lanes []int64, y []float32, F int64, load *scalarOperand) error {
	for p, lane := range lanes {
		switch mode {
		case accIdle:
			mc.dveInit[lane] = false
			continue
		case accZero:
			mc.dveAcc[lane], mc.dveInit[lane] = vaccIdentity(op), true
			continue
		}
		r, err := mc.vaccStart(mode, op, lane, load, int64(p))
		if err != nil {
			return err
		}
		for _, v := range y[int64(p)*F : int64(p+1)*F] {
			r = aluF32(op, r, v)
		}
		mc.dveAcc[lane], mc.dveInit[lane] = r, true
	}
	return nil
}

// vaccReadout writes R of each row's lane into destination 1 (reduce_res)
// when the instruction has one.
func (mc *machine) vaccReadout(x *instCtx, lanes []int64) error {
	if len(x.outs) < 2 {
		return nil
	}
	rr, err := mc.out(x, 1)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, rr); err != nil {
		return err
	}
	P := int64(len(lanes))
	if rr.P != P || max(rr.F, 1) != 1 || rr.n != P {
		return errf(ErrCountMismatch, "reduce_res is %d x %d (pattern %v): want one element per row of the source (%d x 1)", rr.P, rr.F, rr.pat.Shape(), P)
	}
	vals := mc.f32buf(3, P)
	for p, lane := range lanes {
		if !mc.dveInit[lane] && !mc.allowUninit {
			return errf(ErrUninitRead, "reduce_res reads the Vector accumulator of lane %d (row %d), which no instruction defined (an Idle command leaves it undefined)", lane, p)
		}
		vals[p] = mc.dveAcc[lane]
	}
	return mc.scatterF32(rr, vals)
}

// rejectFlags fails on TensorScalarPtr fields tensor_scalar_reduce does not
// model.
func rejectFlags(x *instCtx, what string, flags ...string) error {
	for _, flag := range flags {
		if x.attrs.Bool(flag, false) {
			return errf(ErrNoSemantics, "%s=true: narwhal has no semantics for it on %s", flag, what)
		}
	}
	return nil
}

// opTensorScalarReduce: t = data op0 operand0[p] (operand0 op0 data with
// reverse0), dst = cast(t); the reduce_op (add, mult, max, min) fold of
// each row of t updates the Vector accumulator; reduce_res = R.
//
// CHOICE: reverse0 is honoured (the reference marks it "not supported
// yet"; KLR's TensorScalarReduce carries it); op1 must be bypass; the
// load value of LoadAccumulate is source 2 (reduce_init, a [P,1] AP or an
// immediate), which no other command may have.
func (mc *machine) opTensorScalarReduce(x *instCtx) error {
	const what = "tensor_scalar_reduce"
	op0, err := mc.aluAttr(x.attrs, "op0", true)
	if err != nil {
		return err
	}
	if op0.isBitvec() {
		return errf(ErrOperand, "%s op0 %s: want an arithmetic AluOp (the reference: \"Bitvec operators are not supported\")", what, op0)
	}
	if op1, err := mc.aluAttr(x.attrs, "op1", false); err != nil || op1 != aluBypass {
		if err != nil {
			return err
		}
		return errf(ErrOperand, "%s op1 %s: want bypass (one operator)", what, op1)
	}
	if err := rejectFlags(x, what, "apply_transpose", "is_tensor_scalar_addr", "negate_second_output"); err != nil {
		return err
	}
	mode, err := vaccMode(bir.OpTensorScalarPtr, x.attrs)
	if err != nil {
		return err
	}
	redOp, err := mc.vaccReduceOp(x, aluAdd, aluAdd, aluMult, aluMax, aluMin)
	if err != nil {
		return err
	}
	if (mode == accLoadAccumulate) != (len(x.ins) == 3) {
		return errf(ErrOperand, "%s with acc %s has %d sources: reduce_init (source 2) goes with LoadAccumulate and only with it", what, x.attrs.Str("acc", ""), len(x.ins))
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	s0, err := mc.loadScalar(x, 1, P, 0, false)
	if err != nil {
		return err
	}
	var load *scalarOperand
	if mode == accLoadAccumulate {
		l, err := mc.loadScalar(x, 2, P, 1, false)
		if err != nil {
			return err
		}
		load = &l
	}
	y := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	sv := mc.f32buf(1, d.n)
	s0.broadcastF32(sv, F)
	aluF32Vec(op0, y, y, sv, x.attrs.Bool("reverse0", false))
	lanes := mc.vaccLanes(src)
	if err := mc.vaccFold(mode, redOp, lanes, y, F, load); err != nil {
		return err
	}
	if err := mc.scatterF32(d, y); err != nil {
		return err
	}
	return mc.vaccReadout(x, lanes)
}

// opTensorScalarCumulative (TensorScalarCache): per row, reg starts as
// the reduce command says, then along the free elements in row-major order
// reg = op1(x op0 imm0, reg) (imm0 op0 x with reverse0), dst = reg; the
// final reg stays in the lane's Vector accumulator register (the
// reference's pseudocode: the register is the accumulator).
//
// CHOICE: op1's left operand is the new term and its right the register,
// as the pseudocode writes op1(op0(x, imm0), reg) (so subtract gives
// t - reg); commands ZeroAccumulate, Accumulate and LoadAccumulate (imm1,
// source 2) only, the reference's three.
func (mc *machine) opTensorScalarCumulative(x *instCtx) error {
	const what = "tensor_scalar_cumulative"
	op0, err := mc.aluAttr(x.attrs, "op0", true)
	if err != nil {
		return err
	}
	op1, err := mc.aluAttr(x.attrs, "op1", true)
	if err != nil {
		return err
	}
	if op0.isBitvec() {
		return errf(ErrOperand, "%s op0 %s: want an arithmetic AluOp", what, op0)
	}
	switch op1 {
	case aluAdd, aluSubtract, aluMult, aluMax, aluMin:
	default:
		return errf(ErrOperand, "%s op1 %s: want add, subtract, mult, max or min (the reference's cumulative operations)", what, op1)
	}
	mode, err := vaccMode(bir.OpTensorScalarCache, x.attrs)
	if err != nil {
		return err
	}
	switch mode {
	case accZeroAccumulate, accAccumulate, accLoadAccumulate:
	default:
		return errf(ErrNoSemantics, "%s with acc %s: the reference defines reset_reduce, reduce and load_reduce", what, x.attrs.Str("acc", ""))
	}
	if (mode == accLoadAccumulate) != (len(x.ins) == 3) {
		return errf(ErrOperand, "%s with acc %s has %d sources: imm1 (source 2) goes with LoadAccumulate and only with it", what, x.attrs.Str("acc", ""), len(x.ins))
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	imm0, err := mc.loadScalar(x, 1, P, 0, false)
	if err != nil {
		return err
	}
	var load *scalarOperand
	if mode == accLoadAccumulate {
		l, err := mc.loadScalar(x, 2, P, 1, false)
		if err != nil {
			return err
		}
		load = &l
	}
	y := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	rev0 := x.attrs.Bool("reverse0", false)
	lanes := mc.vaccLanes(src)
	for p, lane := range lanes {
		reg, err := mc.vaccStart(mode, op1, lane, load, int64(p))
		if err != nil {
			return err
		}
		s := imm0.f
		if !imm0.imm {
			s = imm0.rowsF[p]
		}
		row := y[int64(p)*F : int64(p+1)*F]
		for j, v := range row {
			reg = aluF32(op1, aluF32Rev(op0, v, s, rev0), reg)
			row[j] = reg
		}
		mc.dveAcc[lane], mc.dveInit[lane] = reg, true
	}
	return mc.scatterF32(d, y)
}

// rangeCompare reports whether op is one of range_select's comparisons.
func rangeCompare(op aluOp) bool {
	switch op {
	case aluIsEq, aluIsLt, aluIsLe, aluIsGt, aluIsGe:
		return true
	}
	return false
}

// opRangeSelect: idx = fp32(base + j) for the free index j of each row
// (row-major), dst = compare_op0(idx, bound0[p]) && compare_op1(idx,
// bound1[p]) ? on_true : fill_value, in fp32 then cast; the reduce_op
// (max) fold of each row of the fp32 results updates the Vector
// accumulator by reduce_cmd; reduce_res = R.
//
// CHOICE: base is the NKI range_start (BIR-JSON's Int field; a float is
// used as given); fill_value absent or null is FP32_MIN, the only value
// the reference allows; reduce_cmd LoadAccumulate has no load operand in
// BIR-JSON's RangeSelect and is an error.
func (mc *machine) opRangeSelect(x *instCtx) error {
	const what = "range_select"
	cmp0, err := mc.aluAttr(x.attrs, "compare_op0", true)
	if err != nil {
		return err
	}
	cmp1, err := mc.aluAttr(x.attrs, "compare_op1", true)
	if err != nil {
		return err
	}
	if !rangeCompare(cmp0) || !rangeCompare(cmp1) {
		return errf(ErrOperand, "%s compares with %s and %s: want is_equal, is_lt, is_le, is_gt or is_ge", what, cmp0, cmp1)
	}
	mode, err := vaccMode(bir.OpRangeSelect, x.attrs)
	if err != nil {
		return err
	}
	if mode == accLoadAccumulate {
		return errf(ErrNoSemantics, "%s with reduce_cmd LoadAccumulate: RangeSelect has no load value", what)
	}
	redOp, err := mc.vaccReduceOp(x, aluMax, aluMax, aluMin, aluAdd)
	if err != nil {
		return err
	}
	base := x.attrs.Float("base", 0)
	fill := float32(fp32Min)
	if v, ok := x.attrs.Get("fill_value"); ok && v.Kind != bir.ValNull {
		f, num := v.AsFloat()
		if !num {
			return errf(ErrOperand, "attribute fill_value=%s is not a number", v.JSON())
		}
		fill = float32(f)
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	b0, err := mc.loadScalar(x, 1, P, 0, false)
	if err != nil {
		return err
	}
	b1, err := mc.loadScalar(x, 2, P, 1, false)
	if err != nil {
		return err
	}
	y := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	for p := int64(0); p < P && d.n > 0; p++ {
		lo, hi := b0.f, b1.f
		if !b0.imm {
			lo = b0.rowsF[p]
		}
		if !b1.imm {
			hi = b1.rowsF[p]
		}
		for j := int64(0); j < F; j++ {
			idx := float32(base + float64(j))
			if aluF32(cmp0, idx, lo) == 0 || aluF32(cmp1, idx, hi) == 0 {
				y[p*F+j] = fill
			}
		}
	}
	lanes := mc.vaccLanes(src)
	if err := mc.vaccFold(mode, redOp, lanes, y, F, nil); err != nil {
		return err
	}
	if err := mc.scatterF32(d, y); err != nil {
		return err
	}
	return mc.vaccReadout(x, lanes)
}

// opSelectReduce (CopyPredicated with acc): dst = predicate ? on_true :
// on_false[p] (reverse_pred flips the predicate; an integer predicate is
// tested on its raw bits), every element written, in fp32 then cast; the
// reduce_op (max) fold of each row updates the Vector accumulator;
// reduce_res = R.
//
// CHOICE: on_true goes through fp32 (the reference: "on_true can be any
// supported dtype except tfloat32, int32, uint32", all exact in fp32) and
// on_false is a [P,1] AP or an fp32 immediate.
func (mc *machine) opSelectReduce(x *instCtx) error {
	const what = "select_reduce"
	if len(x.ins) != 3 {
		return errf(ErrOperand, "%s has %d sources: want [on_true, predicate, on_false]", what, len(x.ins))
	}
	mode, err := vaccMode(bir.OpCopyPredicated, x.attrs)
	if err != nil {
		return err
	}
	if mode == accLoadAccumulate {
		return errf(ErrNoSemantics, "%s with acc LoadAccumulate: the reference defines idle, reset_reduce and reduce", what)
	}
	redOp, err := mc.vaccReduceOp(x, aluMax, aluMax, aluMin, aluAdd)
	if err != nil {
		return err
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	pred, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, pred); err != nil {
		return err
	}
	if err := sameShape(pred, d); err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	onFalse, err := mc.loadScalar(x, 2, P, 0, false)
	if err != nil {
		return err
	}
	sel, err := mc.predicateMask(x, pred, d.n)
	if err != nil {
		return err
	}
	if err := rejectPacked(src); err != nil {
		return err
	}
	y := mc.f32buf(1, d.n)
	st := src.reg.st
	// Only the selected elements of on_true are read.
	for k, on := range sel {
		if on {
			off := src.offs[k]
			if !mc.allowUninit && !st.isInit(off, src.ds) {
				return errf(ErrUninitRead, "read of never-written %s (%s, element %d)", src.reg.describe(off), src.what, k)
			}
			y[k], _ = numeric.ToFloat32(src.dt, numeric.LoadBits(src.dt, st.data[off:]))
			continue
		}
		if onFalse.imm {
			y[k] = onFalse.f
		} else {
			y[k] = onFalse.rowsF[int64(k)/F]
		}
	}
	lanes := mc.vaccLanes(src)
	if err := mc.vaccFold(mode, redOp, lanes, y, F, nil); err != nil {
		return err
	}
	if err := mc.scatterF32(d, y); err != nil {
		return err
	}
	return mc.vaccReadout(x, lanes)
}

// opExponential: dst = exp(src - max_value[p]) (the fp32 difference, the
// exponential in float64 rounded once, as Activation's Exp), the row sums
// into the Vector accumulator by acc (Idle: no sum, the lanes undefined;
// LoadAccumulate: from reduce_init, source 2); reduce_res = R.
func (mc *machine) opExponential(x *instCtx) error {
	const what = "exponential"
	mode, err := vaccMode(bir.OpExponential, x.attrs)
	if err != nil {
		return err
	}
	if mode == accZero {
		return errf(ErrNoSemantics, "%s with acc Zero: the reference defines idle, reset_reduce, reduce and load_reduce", what)
	}
	if (mode == accLoadAccumulate) != (len(x.ins) == 3) {
		return errf(ErrOperand, "%s with acc %s has %d sources: reduce_init (source 2) goes with LoadAccumulate and only with it", what, x.attrs.Str("acc", ""), len(x.ins))
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	m := scalarOperand{imm: true}
	if len(x.ins) >= 2 {
		if m, err = mc.loadScalar(x, 1, P, 0, false); err != nil {
			return err
		}
	}
	var load *scalarOperand
	if mode == accLoadAccumulate {
		l, err := mc.loadScalar(x, 2, P, 1, false)
		if err != nil {
			return err
		}
		load = &l
	}
	y := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	mv := mc.f32buf(1, d.n)
	m.broadcastF32(mv, F)
	for k, v := range y {
		y[k] = actEval(actExp, v-mv[k], 0)
	}
	lanes := mc.vaccLanes(src)
	if err := mc.vaccFold(mode, aluAdd, lanes, y, F, load); err != nil {
		return err
	}
	if err := mc.scatterF32(d, y); err != nil {
		return err
	}
	return mc.vaccReadout(x, lanes)
}
