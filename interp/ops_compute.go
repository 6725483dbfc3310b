package interp

// Elementwise compute: TensorTensor (semantics.md §4.4), TensorScalar and
// TensorScalarPtr (§4.5), Activation and ReadActivationAccumulator (§4.6),
// Reciprocal.
//
// Operand roles (builder.go conventions):
//
//	TensorTensor      ins [in0 (lhs), in1 (rhs)]  outs [dst]   attrs op, acc
//	TensorScalar      ins [src]                   outs [dst]   attrs op0 const0 reverse0 op1 const1 reverse1
//	TensorScalarPtr   ins [src, s0, s1?]          outs [dst]   attrs op0 reverse0 op1 reverse1
//	Activation        ins [src, bias?, scale?]    outs [dst]   attrs func scale alpha acc (reduce_op)
//	Reciprocal        ins [src]                   outs [dst]
//
// TensorScalarPtr's s0/s1 are [P,1] access patterns (one scalar per
// partition, broadcast along the free axis) or immediates. Activation's bias
// and scale operands are [P,1] access patterns or immediates; with a scale
// operand the "scale" attribute is ignored.

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// readInts reads every element of v as an exact integer: integer dtypes
// sign- or zero-extended, float dtypes rounded to nearest even (the
// float->int rule without saturation beyond int64).
func (mc *machine) readInts(v *view, out []int64) error {
	if err := rejectPacked(v); err != nil {
		return err
	}
	bits := mc.u64buf(3, v.n)
	if err := mc.gatherBits(v, bits); err != nil {
		return err
	}
	if numeric.IsInt(v.dt) {
		for i, b := range bits {
			out[i] = numeric.Int64Of(v.dt, b)
		}
		return nil
	}
	for i, b := range bits {
		f, _ := numeric.ToFloat32(v.dt, b)
		out[i] = numeric.Int64Of(bir.Int64, numeric.FloatToInt(bir.Int64, f))
	}
	return nil
}

// writeInts writes exact integers to v: wrapped to an integer dtype,
// converted (int -> fp32 -> format) for a float dtype (numeric.WrapInt).
func (mc *machine) writeInts(v *view, in []int64) error {
	if err := rejectPacked(v); err != nil {
		return err
	}
	bits := mc.u64buf(3, v.n)
	for i, x := range in {
		bits[i], _ = numeric.WrapInt(v.dt, x)
	}
	scatterBits(v, bits)
	return nil
}

// i64buf returns scratch integer slot i with n elements.
func (mc *machine) i64buf(i int, n int64) []int64 {
	if int64(cap(mc.i64s[i])) < n {
		mc.chargeScratch(n+n/4-int64(cap(mc.i64s[i])), 8, n)
		mc.i64s[i] = make([]int64, n, n+n/4)
	}
	return mc.i64s[i][:n]
}

func requireInts(vs ...*view) error {
	for _, v := range vs {
		if !numeric.IsInt(v.dt) {
			return errf(ErrOperand, "%s has dtype %s; bitwise and shift operations take integer dtypes only", v.what, v.dt)
		}
	}
	return nil
}

func allUnsigned(vs ...*view) bool {
	for _, v := range vs {
		if v.dt.IsSigned() {
			return false
		}
	}
	return true
}

func width64(vs ...*view) int {
	for _, v := range vs {
		if v.dt == bir.Int64 || v.dt == bir.Uint64 {
			return 64
		}
	}
	return 32
}

// accIdleOnly rejects accumulation on instructions that do not model it.
func accIdleOnly(attrs bir.AttrSet) error {
	if s := attrs.Str("acc", "Idle"); s != "Idle" && s != "" {
		return errf(ErrNoSemantics, "acc=%s: narwhal models engine accumulation only on Activation", s)
	}
	return nil
}

func (mc *machine) aluAttr(attrs bir.AttrSet, key string, required bool) (aluOp, error) {
	v, ok := attrs.Get(key)
	if !ok || v.Kind == bir.ValNull {
		if required {
			return aluInvalid, errf(ErrOperand, "missing attribute %s (an AluOp)", key)
		}
		return aluBypass, nil
	}
	s, _ := v.AsString()
	op, ok := parseAluOp(s)
	if !ok {
		return aluInvalid, errf(ErrOperand, "attribute %s=%s is not an AluOp", key, v.JSON())
	}
	return op, nil
}

// opTensorTensor: dst = in0 op in1.
func (mc *machine) opTensorTensor(x *instCtx) error {
	op, err := mc.aluAttr(x.attrs, "op", true)
	if err != nil {
		return err
	}
	if err := accIdleOnly(x.attrs); err != nil {
		return err
	}
	a, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	b, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, a, b, d); err != nil {
		return err
	}
	if err := notBothPSUM(a, b); err != nil {
		return err
	}
	if err := sameShape(a, d); err != nil {
		return err
	}
	if err := sameShape(b, d); err != nil {
		return err
	}
	n := d.n
	width := intPathChoice(x.eng, a.dt, b.dt, d.dt)
	if op.isBitvec() {
		if err := requireInts(a, b, d); err != nil {
			return err
		}
		width = width64(a, b, d)
	}
	if width != 0 {
		va, vb := mc.i64buf(0, n), mc.i64buf(1, n)
		if err := mc.readInts(a, va); err != nil {
			return err
		}
		if err := mc.readInts(b, vb); err != nil {
			return err
		}
		uns := allUnsigned(a, b, d)
		for k := range va {
			r, ok := aluInt(op, va[k], vb[k], width, uns)
			if !ok {
				return intFailure(op, k, vb[k])
			}
			va[k] = r
		}
		return mc.writeInts(d, va)
	}
	fa, fb := mc.f32buf(0, n), mc.f32buf(1, n)
	if err := mc.gatherF32(a, fa); err != nil {
		return err
	}
	if err := mc.gatherF32(b, fb); err != nil {
		return err
	}
	aluF32Vec(op, fa, fa, fb, false)
	return mc.scatterF32(d, fa)
}

func intFailure(op aluOp, k int, b int64) error {
	if op == aluDivide || op == aluMod {
		return errf(ErrDomain, "integer %s by zero at element %d", op, k)
	}
	return errf(ErrNoSemantics, "AluOp %s has no integer form", op)
}

// scalarOperand is one TensorScalar(Ptr) scalar: an immediate (same for
// every partition) or a [P,1] access pattern (one value per partition).
type scalarOperand struct {
	imm   bool
	f     float32 // immediate as fp32
	i     int64   // immediate as integer
	rowsF []float32
	rowsI []int64
}

// loadScalar evaluates scalar operand k of x for a source of P partitions.
func (mc *machine) loadScalar(x *instCtx, k int, P int64, slot int, ints bool) (scalarOperand, error) {
	o := &x.ins[k]
	if o.Kind == bir.OpdImm || o.Kind == bir.OpdRegister || o.Kind == bir.OpdSymImm {
		f, err := mc.scalarF32(x.fr, o, k)
		if err != nil {
			return scalarOperand{}, err
		}
		s := scalarOperand{imm: true, f: f}
		if o.Kind == bir.OpdImm {
			s.i = int64(math.RoundToEven(o.ImmFloat()))
			if o.Flags&bir.OpdFlagFloat == 0 {
				s.i = o.ImmInt()
			}
		} else {
			s.i, _ = mc.scalarInt(x.fr, o, k)
		}
		return s, nil
	}
	v, err := mc.in(x, k)
	if err != nil {
		return scalarOperand{}, err
	}
	if err := engineRule(x.eng, v); err != nil {
		return scalarOperand{}, err
	}
	if v.n != P {
		return scalarOperand{}, errf(ErrCountMismatch, "scalar %s has %d elements (pattern %v); want one per partition of the source (%d)", mc.label(k), v.n, v.pat.Shape(), P)
	}
	var s scalarOperand
	if ints {
		s.rowsI = mc.i64buf(2+slot, P)
		err = mc.readInts(v, s.rowsI)
	} else {
		s.rowsF = mc.f32buf(4+slot, P)
		err = mc.gatherF32(v, s.rowsF)
	}
	return s, err
}

// broadcastF32 fills out[k] with the scalar of row k/F.
func (s *scalarOperand) broadcastF32(out []float32, F int64) {
	if s.imm {
		for k := range out {
			out[k] = s.f
		}
		return
	}
	k := 0
	for _, v := range s.rowsF {
		for j := int64(0); j < F; j++ {
			out[k] = v
			k++
		}
	}
}

func (s *scalarOperand) intAt(k int, F int64) int64 {
	if s.imm {
		return s.i
	}
	return s.rowsI[int64(k)/F]
}

// opTensorScalar: t = reverse0 ? (s0 op0 x) : (x op0 s0);
// out = reverse1 ? (s1 op1 t) : (t op1 s1) (semantics.md §4.5).
//
// op1 absent, "None" or "bypass" gives out = t (reverse1 ignored); op0
// bypass follows the literal rule (t = reverse0 ? s0 : x). op0 and op1 are both bit
// vector ops or both arithmetic (bypass goes with either). Bit-vector
// immediates are the integer value of the constant (semantics.md: "uint32
// bits"; a non-integral constant is an error).
func (mc *machine) opTensorScalar(x *instCtx, ptr bool) error {
	op0, err := mc.aluAttr(x.attrs, "op0", true)
	if err != nil {
		return err
	}
	op1, err := mc.aluAttr(x.attrs, "op1", false)
	if err != nil {
		return err
	}
	rev0, rev1 := x.attrs.Bool("reverse0", false), x.attrs.Bool("reverse1", false)
	// On TensorScalarPtr the two variant flags are ops_isa.go's (dispatch
	// sends them there); TensorScalar has no such variant.
	for _, flag := range []string{"apply_transpose", bir.AttrScalarTensorTensor, bir.AttrTensorTensorScan} {
		if x.attrs.Bool(flag, false) {
			return errf(ErrNoSemantics, "%s=true: narwhal has no semantics for this TensorScalarPtr variant", flag)
		}
	}
	if err := accIdleOnly(x.attrs); err != nil {
		return err
	}
	if len(x.outs) > 1 {
		return errf(ErrNoSemantics, "%d destination operands: narwhal models TensorScalarPtr's single output only", len(x.outs))
	}
	bv0, bv1 := op0.isBitvec(), op1.isBitvec()
	if (bv0 && !bv1 && op1 != aluBypass) || (bv1 && !bv0 && op0 != aluBypass) {
		return errf(ErrOperand, "op0 %s and op1 %s mix bit-vector and arithmetic operations", op0, op1)
	}
	bitv := bv0 || bv1
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	n, F, P := d.n, max(src.F, 1), src.P
	// The scalars (an absent s1 reads as the immediate 0; op1 is then
	// bypass).
	s0, s1 := scalarOperand{imm: true}, scalarOperand{imm: true}
	width := 0
	if bitv {
		if err := requireInts(src, d); err != nil {
			return err
		}
		width = width64(src, d)
	}
	if width == 0 && intPath64(src.dt, d.dt) {
		width = 64
	}
	for k := 1; ptr && width == 0 && k < len(x.ins); k++ {
		if x.ins[k].Kind.IsAP() && intPath64(x.ins[k].Dtype) {
			width = 64
		}
	}
	ints := width != 0
	if ptr {
		if len(x.ins) < 2 {
			return errf(ErrOperand, "TensorScalarPtr needs the scalar operand s0 (ins[1])")
		}
		if s0, err = mc.loadScalar(x, 1, P, 0, ints); err != nil {
			return err
		}
		switch {
		case len(x.ins) >= 3:
			if s1, err = mc.loadScalar(x, 2, P, 1, ints); err != nil {
				return err
			}
		case op1 != aluBypass:
			return errf(ErrOperand, "op1 is %s but there is no scalar operand s1 (ins[2])", op1)
		}
	} else {
		c0, c1 := x.attrs.Float("const0", 0), x.attrs.Float("const1", 0)
		s0 = scalarOperand{imm: true, f: float32(c0), i: int64(math.RoundToEven(c0))}
		s1 = scalarOperand{imm: true, f: float32(c1), i: int64(math.RoundToEven(c1))}
		if bitv && (c0 != math.Trunc(c0) || c1 != math.Trunc(c1)) {
			return errf(ErrOperand, "bit-vector constants must be integers, have const0=%g const1=%g", c0, c1)
		}
	}
	if ints {
		vx := mc.i64buf(0, n)
		if err := mc.readInts(src, vx); err != nil {
			return err
		}
		uns := allUnsigned(src, d)
		for k := range vx {
			a, b := vx[k], s0.intAt(k, F)
			if rev0 {
				a, b = b, a
			}
			t, ok := aluInt(op0, a, b, width, uns)
			if !ok {
				return intFailure(op0, k, b)
			}
			if op1 == aluBypass {
				vx[k] = t
				continue
			}
			a, b = t, s1.intAt(k, F)
			if rev1 {
				a, b = b, a
			}
			r, ok := aluInt(op1, a, b, width, uns)
			if !ok {
				return intFailure(op1, k, b)
			}
			vx[k] = r
		}
		return mc.writeInts(d, vx)
	}
	fx := mc.f32buf(0, n)
	if err := mc.gatherF32(src, fx); err != nil {
		return err
	}
	sv := mc.f32buf(1, n)
	s0.broadcastF32(sv, F)
	aluF32Vec(op0, fx, fx, sv, rev0)
	if op1 != aluBypass { // op1 bypass: out = t, whatever reverse1 says (semantics.md §4.5)
		s1.broadcastF32(sv, F)
		aluF32Vec(op1, fx, fx, sv, rev1)
	}
	return mc.scatterF32(d, fx)
}

// intPath64 is the 64-bit part of intPathChoice (TensorScalar has no
// GpSimd int32 rule in semantics.md).
func intPath64(dts ...bir.Dtype) bool {
	for _, d := range dts {
		if d == bir.Int64 || d == bir.Uint64 {
			return true
		}
	}
	return false
}

// opReciprocal: dst = 1/src in fp32.
func (mc *machine) opReciprocal(x *instCtx) error {
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	f := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, f); err != nil {
		return err
	}
	for k, v := range f {
		f[k] = 1 / v
	}
	return mc.scatterF32(d, f)
}

// ---- Activation ----

// activationScaleDefault is the scale of an Activation without a "scale"
// attribute or operand.
//
// CHOICE: 1.0. BIR-JSON's emitter defaults the field to 0 (bir-json.md §8
// lists it as an encoding doubt); a default that zeroes every input would
// make the attribute mandatory in practice, so narwhal reads a missing
// scale as the identity.
const activationScaleDefault = 1.0

// opActivation: y[p,f] = func(fp32(x[p,f])*scale[p] + bias[p], alpha), cast
// to dst; with acc != Idle the row reduction updates the accumulator lane of
// the source partition (semantics.md §4.6).
func (mc *machine) opActivation(x *instCtx) error {
	name := x.attrs.Str("func", "")
	fn, ok := parseActFunc(name)
	if !ok {
		return errf(ErrOperand, "attribute func=%q is not an ActivationFunctionType with semantics", name)
	}
	mode, ok := parseAccMode(x.attrs.Str("acc", "Idle"))
	if !ok {
		return errf(ErrOperand, "attribute acc=%q is not an EngineAccumulationType", x.attrs.Str("acc", ""))
	}
	redOp := aluAdd
	if s := x.attrs.Str("reduce_op", ""); s != "" {
		if redOp, ok = parseAluOp(s); !ok || (redOp != aluAdd && redOp != aluMax && redOp != aluMin) {
			return errf(ErrOperand, "attribute reduce_op=%q: want add, max or min", s)
		}
	}
	alpha := float32(x.attrs.Float("alpha", 0))
	if bir.IsActivate2(bir.OpActivation, x.attrs) {
		return mc.opActivate2(x, fn, mode, redOp, alpha)
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	n, P, F := d.n, src.P, max(src.F, 1)
	bias := scalarOperand{imm: true}
	scale := scalarOperand{imm: true, f: float32(x.attrs.Float("scale", activationScaleDefault))}
	if len(x.ins) >= 2 {
		if bias, err = mc.loadScalar(x, 1, P, 0, false); err != nil {
			return err
		}
	}
	if len(x.ins) >= 3 {
		if scale, err = mc.loadScalar(x, 2, P, 1, false); err != nil {
			return err
		}
	}
	y := mc.f32buf(0, n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	sc, bi := mc.f32buf(1, n), mc.f32buf(2, n)
	scale.broadcastF32(sc, F)
	bias.broadcastF32(bi, F)
	for k, v := range y {
		t := float32(v * sc[k])
		y[k] = actEval(fn, float32(t+bi[k]), alpha)
	}
	if err := mc.actAccumulate(mode, redOp, alpha, src, y); err != nil {
		return err
	}
	return mc.scatterF32(d, y)
}

// actAccumulate applies Activation's acc mode to the Scalar engine's
// accumulator lanes of src's rows with the rows' fp32 results y
// (semantics.md §4.6; alpha is LoadAccumulate's value).
func (mc *machine) actAccumulate(mode accMode, redOp aluOp, alpha float32, src *view, y []float32) error {
	P, F := src.P, max(src.F, 1)
	if mode == accIdle || src.n == 0 {
		return nil
	}
	for p := int64(0); p < P; p++ {
		lane := src.physPartition(src.offs[p*F]) % mc.geo.partitions
		row := y[p*F : (p+1)*F]
		red := row[0]
		for _, v := range row[1:] {
			red = accCombine(redOp, red, v)
		}
		switch mode {
		case accZero:
			mc.actAcc[lane] = reduceIdentity(redOp)
		case accZeroAccumulate:
			mc.actAcc[lane] = red
		case accAccumulate:
			if !mc.actInit[lane] && !mc.allowUninit {
				return errf(ErrUninitRead, "acc=Accumulate reads the never-written activation accumulator of lane %d (partition of source row %d); start the accumulation with Zero or ZeroAccumulate", lane, p)
			}
			mc.actAcc[lane] = accCombine(redOp, mc.actAcc[lane], red)
		case accLoadAccumulate:
			mc.actAcc[lane] = accCombine(redOp, alpha, red)
		}
		mc.actInit[lane] = true
	}
	return nil
}

// opReadActAcc: dst[p, *] = R[lane of dst row p], fp32 then cast
// (semantics.md §4.6, [U1]: a plain overwrite of dst).
func (mc *machine) opReadActAcc(x *instCtx) error {
	if len(x.outs) != 1 {
		return errf(ErrOperand, "%d destination operands; want 1", len(x.outs))
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, d); err != nil {
		return err
	}
	y := mc.f32buf(0, d.n)
	F := max(d.F, 1)
	for p := int64(0); p < d.P && d.n > 0; p++ {
		lane := d.physPartition(d.offs[p*F]) % mc.geo.partitions
		if !mc.actInit[lane] && !mc.allowUninit {
			return errf(ErrUninitRead, "read of the never-written activation accumulator of lane %d (destination row %d)", lane, p)
		}
		for j := int64(0); j < F; j++ {
			y[p*F+j] = mc.actAcc[lane]
		}
	}
	return mc.scatterF32(d, y)
}
