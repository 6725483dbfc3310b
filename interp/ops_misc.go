package interp

// Memset (semantics.md §4.10), Iota (§4.11), TensorScalarAffineSelect
// (affine_select, §4.12), CopyPredicated (§4.12), TensorReduce (§4.13),
// BNStats and BNStatsAggregate (§4.14).
//
// Operand roles:
//
//	Memset                    outs [dst]            attrs mode, constant (constant_bits)
//	Iota                      outs [dst]            attrs base, pattern, channel_multiplier
//	TensorScalarAffineSelect  ins [on_true] outs [dst]  the Iota attrs + compare_op, fill_value
//	CopyPredicated            ins [src, predicate] outs [dst]  attr reverse_pred
//	TensorReduce              ins [src] outs [dst]  attrs op, axis, negate, apply_transpose
//	BNStats                   ins [src [P,F]] outs [dst [P,6]]
//	BNStatsAggregate          ins [src [P,3G]] outs [dst [P,2]]

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// memsetBits returns the element bits a Memset writes.
//
// CHOICE (semantics.md §4.10): a float "constant" is an fp32 immediate
// converted to the destination dtype (§2 rules); an integer "constant" is
// truncated two's-complement for an integer destination and converted
// numerically for a float one (numeric.WrapInt); the narwhal attribute
// "constant_bits" gives raw bits (the uint32 of BIR's C++ class),
// reinterpreted for 32-bit dtypes and truncated to the width otherwise.
// x4-packed destinations accept only zero.
func memsetBits(dt bir.Dtype, attrs bir.AttrSet) (uint64, error) {
	if v, ok := attrs.Get("constant_bits"); ok && v.Kind != bir.ValNull {
		b, ok := v.AsInt()
		if !ok {
			return 0, errf(ErrOperand, "attribute constant_bits=%s is not an integer", v.JSON())
		}
		bits := uint64(b)
		if s := dt.Size(); s < 8 {
			bits &= 1<<(8*uint(s)) - 1
		}
		if numeric.Packed(dt) && bits != 0 {
			return 0, errf(ErrOperand, "memset of the x4-packed dtype %s to bits %#x: packed data can only be set to 0", dt, bits)
		}
		return bits, nil
	}
	v, ok := attrs.Get("constant")
	if !ok || v.Kind == bir.ValNull {
		return 0, errf(ErrOperand, "Memset has no constant attribute")
	}
	isZero := false
	var bits uint64
	switch v.Kind {
	case bir.ValInt, bir.ValBool:
		isZero = v.I == 0
		if !numeric.Packed(dt) {
			bits, _ = numeric.WrapInt(dt, v.I)
		}
	default:
		f, ok := v.AsFloat()
		if !ok {
			return 0, errf(ErrOperand, "attribute constant=%s is not a number", v.JSON())
		}
		isZero = f == 0 && !math.Signbit(f)
		if !numeric.Packed(dt) {
			bits, _ = numeric.FromFloat32(dt, float32(f))
		}
	}
	if numeric.Packed(dt) {
		if !isZero {
			return 0, errf(ErrOperand, "memset of the x4-packed dtype %s to %s: packed data can only be set to 0", dt, v.JSON())
		}
		return 0, nil
	}
	return bits, nil
}

// opMemset fills dst. Mode Random fills each element with the low bits of
// a 64-bit PRNG word.
//
// CHOICE (semantics.md §4.10 "Mode Random: undocumented"): the PRNG is
// splitmix64 seeded once per Run and advanced in execution order; it is
// deterministic for a given module and inputs but not bit-exact with the
// hardware (and a pass that reorders random memsets changes the values).
func (mc *machine) opMemset(x *instCtx) error {
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, d); err != nil {
		return err
	}
	out := mc.u64buf(0, d.n)
	switch mode := x.attrs.Str("mode", "Const"); mode {
	case "Const":
		bits, err := memsetBits(d.dt, x.attrs)
		if err != nil {
			return err
		}
		for k := range out {
			out[k] = bits
		}
	case "Random":
		if numeric.Packed(d.dt) {
			return errf(ErrOperand, "random memset of the x4-packed dtype %s", d.dt)
		}
		for k := range out {
			out[k] = mc.nextRand()
		}
	default:
		return errf(ErrOperand, "Memset mode %q: want Const or Random", mode)
	}
	scatterBits(d, out)
	return nil
}

func (mc *machine) nextRand() uint64 {
	mc.rng += 0x9e3779b97f4a7c15
	z := mc.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// iotaPattern reads Iota's "pattern" attribute: a list of {step, num}
// objects (or [step, num] pairs), at most 4, padded to 4 with num 1.
func iotaPattern(attrs bir.AttrSet) ([4][2]int64, error) {
	pat := [4][2]int64{{0, 1}, {0, 1}, {0, 1}, {0, 1}}
	v, ok := attrs.Get("pattern")
	if !ok || v.Kind == bir.ValNull {
		return pat, errf(ErrOperand, "missing attribute pattern (a list of {step, num})")
	}
	if v.Kind != bir.ValList || len(v.L) > 4 {
		return pat, errf(ErrOperand, "attribute pattern=%s: want a list of at most 4 {step, num}", v.JSON())
	}
	for i, e := range v.L {
		var step, num int64
		var ok1, ok2 bool
		switch e.Kind {
		case bir.ValObject:
			s, _ := e.Get("step")
			n, _ := e.Get("num")
			step, ok1 = s.AsInt()
			num, ok2 = n.AsInt()
		case bir.ValList:
			if len(e.L) == 2 {
				step, ok1 = e.L[0].AsInt()
				num, ok2 = e.L[1].AsInt()
			}
		}
		if !ok1 || !ok2 || num < 0 {
			return pat, errf(ErrOperand, "attribute pattern[%d]=%s: want {step, num} with num >= 0", i, e.JSON())
		}
		pat[i] = [2]int64{step, num}
	}
	return pat, nil
}

// iotaValues computes, for a destination of P partitions x F elements,
// v = base + c*channel_multiplier + sum_k(i_k*step_k) in int32 (wrapping),
// c the destination row (CHOICE §4.11: relative to the destination's first
// partition), the pattern iterated row-major.
func (mc *machine) iotaValues(x *instCtx, P, F int64) ([]int64, error) {
	pat, err := iotaPattern(x.attrs)
	if err != nil {
		return nil, err
	}
	// The product of the nums, checked for overflow (a wrapped product
	// could match F and drive the loops below past the buffer).
	n := int64(1)
	for _, q := range pat {
		if q[1] == 0 {
			n = 0
			break
		}
		var ok bool
		if n, ok = checked.Mul(n, q[1]); !ok {
			return nil, errf(ErrCountMismatch, "the iota pattern %v walks more than 2^63 elements per partition; the destination has %d", pat, F)
		}
	}
	if n != F {
		return nil, errf(ErrCountMismatch, "the iota pattern walks %d elements per partition; the destination has %d", n, F)
	}
	if n == 0 {
		return nil, nil // nothing to write (and no loop over the other nums)
	}
	base := x.attrs.Int("base", 0)
	cm := x.attrs.Int("channel_multiplier", 0)
	out := mc.i64buf(0, P*F)
	k := 0
	for c := int64(0); c < P; c++ {
		for a := int64(0); a < pat[0][1]; a++ {
			for b := int64(0); b < pat[1][1]; b++ {
				for e := int64(0); e < pat[2][1]; e++ {
					for g := int64(0); g < pat[3][1]; g++ {
						v := base + c*cm + a*pat[0][0] + b*pat[1][0] + e*pat[2][0] + g*pat[3][0]
						out[k] = int64(int32(v))
						k++
					}
				}
			}
		}
	}
	return out, nil
}

// opIota is Iota (select=false) and TensorScalarAffineSelect (select=true):
// out = cmp(v, 0) ? on_true : fill_value, on_true copied raw for equal
// dtypes and through fp32 otherwise, fill_value an fp32 immediate.
func (mc *machine) opIota(x *instCtx, sel bool) error {
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, d); err != nil {
		return err
	}
	F := d.F
	if d.n == 0 {
		F = 0
	}
	vals, err := mc.iotaValues(x, d.P, F)
	if err != nil {
		return err
	}
	if !sel {
		return mc.writeInts(d, vals)
	}
	cmp, err := mc.aluAttr(x.attrs, "compare_op", true)
	if err != nil {
		return err
	}
	switch cmp {
	case aluIsEq, aluNotEq, aluIsGt, aluIsGe, aluIsLt, aluIsLe:
	default:
		return errf(ErrOperand, "compare_op %s is not a comparison", cmp)
	}
	src, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src); err != nil {
		return err
	}
	if err := sameShape(src, d); err != nil {
		return err
	}
	fill := float32(x.attrs.Float("fill_value", 0))
	if src.dt == d.dt {
		bits := mc.u64buf(0, d.n)
		if err := mc.gatherBits(src, bits); err != nil {
			return err
		}
		if err := rejectPacked(d); err != nil {
			return err
		}
		fb, _ := numeric.FromFloat32(d.dt, fill)
		for k, v := range vals {
			if r, _ := aluInt(cmp, v, 0, 64, false); r == 0 {
				bits[k] = fb
			}
		}
		scatterBits(d, bits)
		return nil
	}
	f := mc.f32buf(0, d.n)
	if err := mc.gatherF32(src, f); err != nil {
		return err
	}
	for k, v := range vals {
		if r, _ := aluInt(cmp, v, 0, 64, false); r == 0 {
			f[k] = fill
		}
	}
	return mc.scatterF32(d, f)
}

// opCopyPredicated: where predicate != 0 (reverse_pred flips it), dst =
// src (same dtype, bit-exact); elsewhere dst is left unchanged and src is
// not read.
//
// CHOICE: operand order [src, predicate] follows KLR's CopyPredicated
// {dst, src, predicate}; an integer predicate is tested on its raw bits, a
// float one on its value (so -0.0 is false).
func (mc *machine) opCopyPredicated(x *instCtx) error {
	if !x.ins[0].Kind.IsAP() {
		return mc.opCopyPredicatedScalar(x)
	}
	src, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	pred, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, pred, d); err != nil {
		return err
	}
	if err := sameShape(src, d); err != nil {
		return err
	}
	if err := sameShape(pred, d); err != nil {
		return err
	}
	if src.dt != d.dt {
		return errf(ErrOperand, "source dtype %s differs from destination dtype %s; CopyPredicated copies raw", src.dt, d.dt)
	}
	sel, err := mc.predicateMask(x, pred, d.n)
	if err != nil {
		return err
	}
	sst, dst := src.reg.st, d.reg.st
	n := src.ds
	// Read every selected source element, then write (the source and the
	// destination may overlap).
	bits := mc.u64buf(1, d.n)
	for k, on := range sel {
		if !on {
			continue
		}
		so := src.offs[k]
		if !mc.allowUninit && !sst.isInit(so, n) {
			return errf(ErrUninitRead, "read of never-written %s (%s, element %d)", src.reg.describe(so), src.what, k)
		}
		bits[k] = numeric.LoadBits(src.dt, sst.data[so:])
	}
	for k, on := range sel {
		if on {
			do := d.offs[k]
			numeric.StoreBits(d.dt, dst.data[do:], bits[k])
			dst.setInit(do, n, true)
		}
	}
	return nil
}

// predicateMask evaluates CopyPredicated's predicate (reverse_pred flips
// it): an integer predicate is tested on its raw bits, a float one on its
// value (-0.0 is false).
func (mc *machine) predicateMask(x *instCtx, pred *view, n int64) ([]bool, error) {
	rev := x.attrs.Bool("reverse_pred", false)
	sel := mc.boolbuf(n)
	if pred.dt.IsFloat() {
		f := mc.f32buf(0, pred.n)
		if err := mc.gatherF32(pred, f); err != nil {
			return nil, err
		}
		for k, v := range f {
			sel[k] = (v != 0) != rev
		}
		return sel, nil
	}
	b := mc.u64buf(0, pred.n)
	if err := mc.gatherBits(pred, b); err != nil {
		return nil, err
	}
	for k, v := range b {
		sel[k] = (v != 0) != rev
	}
	return sel, nil
}

// opCopyPredicatedScalar is CopyPredicated with an immediate source
// (nki.isa.tensor_copy_predicated: "If src is a scalar, the scalar is
// copied to the dst tile"): where the predicate holds, dst = the value.
//
// CHOICE: the immediate is converted to dst's dtype as Memset converts its
// constant (an integer immediate wraps to an integer dtype, a float one
// rounds by §2; a float immediate into an integer dtype by the float->int
// rule).
func (mc *machine) opCopyPredicatedScalar(x *instCtx) error {
	o := &x.ins[0]
	if o.Kind != bir.OpdImm {
		return errf(ErrOperand, "source 0 is a %s: want an access pattern or an immediate", o.Kind)
	}
	pred, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, pred, d); err != nil {
		return err
	}
	if err := sameShape(pred, d); err != nil {
		return err
	}
	if err := rejectPacked(d); err != nil {
		return err
	}
	var bits uint64
	switch {
	case o.Flags&bir.OpdFlagFloat == 0 && numeric.IsInt(d.dt):
		bits, _ = numeric.WrapInt(d.dt, o.ImmInt())
	case numeric.IsInt(d.dt):
		bits = numeric.FloatToInt(d.dt, float32(o.ImmFloat()))
	default:
		bits, _ = numeric.FromFloat32(d.dt, float32(o.ImmFloat()))
	}
	sel, err := mc.predicateMask(x, pred, d.n)
	if err != nil {
		return err
	}
	dst := d.reg.st
	for k, on := range sel {
		if on {
			do := d.offs[k]
			numeric.StoreBits(d.dt, dst.data[do:], bits)
			dst.setInit(do, d.ds, true)
		}
	}
	return nil
}

// reduceAxes maps an AxisListType to the number of trailing free dims it
// reduces (semantics.md §4.13: X innermost, XY, XYZ, XYZW; never C).
func reduceAxes(s string) (int, bool) {
	switch s {
	case "X":
		return 1, true
	case "XY":
		return 2, true
	case "XYZ":
		return 3, true
	case "XYZW":
		return 4, true
	}
	return 0, false
}

// opTensorReduce: dst[p, kept] = fold_op(src[p, kept, reduced]) over the
// trailing free dims of the source pattern.
//
// CHOICE (semantics.md §4.13): each fold starts from the op's identity and
// runs in row-major order (add 0, mult 1, max -Inf, min +Inf, bitwise_and
// all ones, bitwise_or/xor 0); average is the mean (fp32 sum / count);
// negate multiplies the result by -1 (arithmetic ops only);
// apply_transpose=true is rejected. Bitwise ops run on raw integer bits.
func (mc *machine) opTensorReduce(x *instCtx) error {
	op, err := mc.aluAttr(x.attrs, "op", true)
	if err != nil {
		return err
	}
	axis := x.attrs.Str("axis", "")
	if axis == bir.AxisPartition {
		if x.attrs.Bool("apply_transpose", false) {
			return errf(ErrNoSemantics, "apply_transpose=true: narwhal has no semantics for a transposing reduction")
		}
		return mc.opPartitionReduce(x, op, x.attrs.Bool("negate", false))
	}
	r, ok := reduceAxes(axis)
	if !ok {
		return errf(ErrOperand, "axis=%q: TensorReduce reduces trailing free dims (X, XY, XYZ or XYZW) or the partitions (C)", axis)
	}
	if x.attrs.Bool("apply_transpose", false) {
		return errf(ErrNoSemantics, "apply_transpose=true: narwhal has no semantics for a transposing reduction")
	}
	negate := x.attrs.Bool("negate", false)
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	free := len(src.pat) - 1
	if free < r {
		return errf(ErrOperand, "axis=%s reduces %d free dims; the source pattern %v has %d", axis, r, src.pat.Shape(), max(free, 0))
	}
	R := int64(1)
	for _, q := range src.pat[len(src.pat)-r:] {
		R *= q.Num
	}
	var kept int64
	if R > 0 {
		kept = src.F / R
	}
	if d.P != src.P || d.F != kept {
		return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); reducing %s of the %v source leaves %d x %d", d.P, d.F, d.pat.Shape(), axis, src.pat.Shape(), src.P, kept)
	}
	groups := src.P * kept
	switch op {
	case aluBitAnd, aluBitOr, aluBitXor:
		if negate {
			return errf(ErrOperand, "negate applies to arithmetic reductions only, not %s", op)
		}
		if err := requireInts(src, d); err != nil {
			return err
		}
		vals := mc.i64buf(0, src.n)
		if err := mc.readInts(src, vals); err != nil {
			return err
		}
		w := width64(src, d)
		out := mc.i64buf(1, groups)
		for g := int64(0); g < groups; g++ {
			acc := reduceIdentityBits(op)
			for _, v := range vals[g*R : (g+1)*R] {
				acc = int64(bitvec(op, uint64(acc), uint64(v), w))
			}
			out[g] = acc
		}
		return mc.writeInts(d, out)
	case aluAdd, aluMult, aluMax, aluMin, aluAverage:
	default:
		return errf(ErrNoSemantics, "TensorReduce op %s: narwhal reduces with add, mult, max, min, average, bitwise_and, bitwise_or and bitwise_xor", op)
	}
	vals := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, vals); err != nil {
		return err
	}
	out := mc.f32buf(1, groups)
	for g := int64(0); g < groups; g++ {
		row := vals[g*R : (g+1)*R]
		acc := reduceIdentity(op)
		switch op {
		case aluAdd, aluAverage:
			for _, v := range row {
				acc += v
			}
			if op == aluAverage {
				acc /= float32(R)
			}
		case aluMult:
			for _, v := range row {
				acc *= v
			}
		case aluMax:
			for _, v := range row {
				acc = maxNaN(acc, v)
			}
		case aluMin:
			for _, v := range row {
				acc = minNaN(acc, v)
			}
		}
		if negate {
			acc = -acc
		}
		out[g] = acc
	}
	return mc.scatterF32(d, out)
}

// bnStatsFMax is the largest free size of BNStats (hardware.md
// bn_stats_fmax, semantics.md §4.14).
const bnStatsFMax = 512

// opBNStats: dst[p] = [n_e, mean_e, M2_e, n_o, mean_o, M2_o] over the even
// and odd positions of row p (M2 = sum of squared deviations), computed in
// float64 and rounded once to fp32.
func (mc *machine) opBNStats(x *instCtx) error {
	if x.attrs.Bool("apply_transpose", false) {
		return errf(ErrNoSemantics, "apply_transpose=true: narwhal has no semantics for a transposing BNStats")
	}
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	if src.F > bnStatsFMax {
		return errf(ErrOperand, "BNStats reads %d elements per partition; at most %d (bn_stats_fmax)", src.F, bnStatsFMax)
	}
	if d.P != src.P || d.F != 6 {
		return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); BNStats of %d partitions writes %d x 6", d.P, d.F, d.pat.Shape(), src.P, src.P)
	}
	vals := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, vals); err != nil {
		return err
	}
	out := mc.f32buf(1, d.n)
	F := src.F
	for p := int64(0); p < src.P; p++ {
		row := vals[p*F : (p+1)*F]
		for par := int64(0); par < 2; par++ {
			var n, sum float64
			for j := par; j < F; j += 2 {
				sum += float64(row[j])
				n++
			}
			mean, m2 := 0.0, 0.0
			if n > 0 {
				mean = sum / n
				for j := par; j < F; j += 2 {
					dv := float64(row[j]) - mean
					m2 += dv * dv
				}
			}
			out[p*6+par*3] = float32(n)
			out[p*6+par*3+1] = float32(mean)
			out[p*6+par*3+2] = float32(m2)
		}
	}
	return mc.scatterF32(d, out)
}

// opBNAggregate: G triples (n, mean, M2) per partition -> [mean, var] with
// N = sum n_g, mean = sum n_g mean_g / N, var = (sum M2_g + sum n_g
// (mean_g - mean)^2) / N (population variance).
//
// CHOICE (semantics.md §4.14): groups with n_g = 0 are skipped; a row with
// N = 0 gives [0, 0]. Computed in float64, rounded once to fp32.
func (mc *machine) opBNAggregate(x *instCtx) error {
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	if src.F%3 != 0 || src.F == 0 {
		return errf(ErrCountMismatch, "BNStatsAggregate reads (n, mean, M2) triples; the source has %d elements per partition", src.F)
	}
	if d.P != src.P || d.F != 2 {
		return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); BNStatsAggregate of %d partitions writes %d x 2", d.P, d.F, d.pat.Shape(), src.P, src.P)
	}
	vals := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, vals); err != nil {
		return err
	}
	out := mc.f32buf(1, d.n)
	F := src.F
	for p := int64(0); p < src.P; p++ {
		row := vals[p*F : (p+1)*F]
		var N, s float64
		for g := int64(0); g < F; g += 3 {
			if n := float64(row[g]); n != 0 {
				N += n
				s += n * float64(row[g+1])
			}
		}
		mean, variance := 0.0, 0.0
		if N != 0 {
			mean = s / N
			var m2 float64
			for g := int64(0); g < F; g += 3 {
				if n := float64(row[g]); n != 0 {
					dm := float64(row[g+1]) - mean
					m2 += float64(row[g+2]) + n*dm*dm
				}
			}
			variance = m2 / N
		}
		out[p*2] = float32(mean)
		out[p*2+1] = float32(variance)
	}
	return mc.scatterF32(d, out)
}
