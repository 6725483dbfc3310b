package interp

// The NKI ISA instructions encoded as variants of BIR opcodes (bir/isa.go,
// docs/isa.md): tensor_tensor_scan and scalar_tensor_tensor
// (TensorScalarPtr with is_tensor_tensor_scan / is_scalar_tensor_tensor)
// and tensor_partition_reduce (TensorReduce over axis C).
//
// Operand roles:
//
//	tensor_tensor_scan       ins [data0, initial, data1]  outs [dst]  attrs op0 reverse0 op1 reverse1
//	scalar_tensor_tensor     ins [data, operand0, data1]  outs [dst]  attrs op0 reverse0 op1 reverse1
//	tensor_partition_reduce  ins [data [P, F]]            outs [dst [1, F]]  attrs op axis=C negate
//
// initial is a [P,1] access pattern (one starting state per partition) or
// an immediate (the same for every partition).

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// aluF32Rev is aluF32 with the operands swapped when rev (the reverseN
// flags of TensorScalar-shaped instructions), rounded to fp32 explicitly so
// that no two stages are fused.
func aluF32Rev(op aluOp, a, b float32, rev bool) float32 {
	if rev {
		a, b = b, a
	}
	return float32(aluF32(op, a, b))
}

// scanOps reads op0 and op1 of a scan and rejects bit-vector ops: the NKI
// reference allows "any binary arithmetic operator" for both.
func (mc *machine) scanOps(x *instCtx, what string) (op0, op1 aluOp, err error) {
	if op0, err = mc.aluAttr(x.attrs, "op0", true); err != nil {
		return
	}
	if op1, err = mc.aluAttr(x.attrs, "op1", true); err != nil {
		return
	}
	for _, op := range []aluOp{op0, op1} {
		if op.isBitvec() {
			return 0, 0, errf(ErrOperand, "%s takes arithmetic AluOps, have %s (a bit-vector op)", what, op)
		}
	}
	return op0, op1, nil
}

// variantFlags rejects the TensorScalarPtr fields a variant does not model.
func variantFlags(x *instCtx, what string) error {
	if x.attrs.Bool(bir.AttrTensorTensorScan, false) && x.attrs.Bool(bir.AttrScalarTensorTensor, false) {
		return errf(ErrOperand, "both %s and %s are set: an instruction is one of them", bir.AttrTensorTensorScan, bir.AttrScalarTensorTensor)
	}
	for _, flag := range []string{"apply_transpose", "is_tensor_scalar_addr", "negate_second_output"} {
		if x.attrs.Bool(flag, false) {
			return errf(ErrNoSemantics, "%s=true: narwhal has no semantics for it on %s", flag, what)
		}
	}
	if len(x.outs) != 1 {
		return errf(ErrOperand, "%d destination operands: %s writes one", len(x.outs), what)
	}
	return accIdleOnly(x.attrs)
}

// opTensorTensorScan: per partition p, state = initial[p]; for each free
// element j in row-major order, t = data0[j] op0 state (state op0 data0[j]
// when reverse0), state = t op1 data1[j] (data1[j] op1 t when reverse1),
// dst[j] = state (semantics.md §4.5's TensorScalar rule with s0 = the
// running state and s1 = data1; the NKI reference's pseudocode and KLR's
// TensorTensorScan agree).
//
// CHOICE: the state is carried in fp32 (the engine's internal register,
// KLR's internal_state), not re-read from dst's dtype; with an fp32
// destination the two are the same. The scan runs along every free
// element of a partition, row-major over the free pattern (KLR: over the
// packed source patterns), so a [P, A, B] operand scans A*B elements.
func (mc *machine) opTensorTensorScan(x *instCtx) error {
	return mc.opTensorScalarPtrVariant(x, true)
}

// opScalarTensorTensor: dst = (data op0 s0[p]) op1 data1, each stage with
// its reverse flag (nki.isa.scalar_tensor_tensor: "equivalent to running
// two operations back-to-back: tensor_scalar then tensor_tensor"), in
// fp32 with one cast; s0 is a [P,1] AP or an immediate, data1 a whole
// tensor of data's shape.
func (mc *machine) opScalarTensorTensor(x *instCtx) error {
	return mc.opTensorScalarPtrVariant(x, false)
}

// opTensorScalarPtrVariant is tensor_tensor_scan (scan) and
// scalar_tensor_tensor: the same operands, [data, s0, data1], with s0 the
// running state (started from initial) or a per-partition scalar.
func (mc *machine) opTensorScalarPtrVariant(x *instCtx, scan bool) error {
	what, s0name := "tensor_tensor_scan", "initial"
	if !scan {
		what, s0name = "scalar_tensor_tensor", "operand0"
	}
	op0, op1, err := mc.scanOps(x, what)
	if err != nil {
		return err
	}
	if err := variantFlags(x, what); err != nil {
		return err
	}
	if len(x.ins) != 3 {
		return errf(ErrOperand, "%d source operands: %s reads [data0, %s, data1]", len(x.ins), what, s0name)
	}
	rev0, rev1 := x.attrs.Bool("reverse0", false), x.attrs.Bool("reverse1", false)
	a, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	b, err := mc.in(x, 2)
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
	P, F := d.P, max(d.F, 1)
	init, err := mc.loadScalar(x, 1, P, 0, false)
	if err != nil {
		return err
	}
	fa, fb := mc.f32buf(0, a.n), mc.f32buf(1, b.n)
	if err := mc.gatherF32(a, fa); err != nil {
		return err
	}
	if err := mc.gatherF32(b, fb); err != nil {
		return err
	}
	for p := int64(0); p < P && d.n > 0; p++ {
		s0 := init.f
		if !init.imm {
			s0 = init.rowsF[p]
		}
		state := s0
		for k := p * F; k < (p+1)*F; k++ {
			if !scan {
				state = s0
			}
			t := aluF32Rev(op0, fa[k], state, rev0)
			state = aluF32Rev(op1, t, fb[k], rev1)
			fa[k] = state
		}
	}
	return mc.scatterF32(d, fa)
}

// partitionReduceOps are the reductions of tensor_partition_reduce: the
// NKI reference's list (add, max, bitwise_or, bitwise_and) plus average,
// which semantics.md §3 reads as allowed by the reference ("as reduction =
// mean (tensor_partition_reduce allows it)").
func partitionReduceOp(op aluOp) bool {
	switch op {
	case aluAdd, aluMax, aluAverage, aluBitOr, aluBitAnd:
		return true
	}
	return false
}

// opPartitionReduce: dst[0, j] = fold op over p = 0..P-1 of src[p, j]
// (TensorReduce axis C, nki.isa.tensor_partition_reduce).
//
// CHOICE: the fold starts at the op's identity and runs in partition order;
// arithmetic ops compute in fp32 (average: the fp32 sum / P), except on
// GpSimd with int32/uint32 source and destination, which folds in exact
// 32-bit integers (semantics.md §4.4's GpSimd integer path, the engine's
// native arithmetic; an int32 max across partitions, as nki-library uses
// it, stays exact above 2^24); bitwise ops fold raw integer bits. negate
// multiplies an arithmetic result by -1, as on TensorReduce.
func (mc *machine) opPartitionReduce(x *instCtx, op aluOp, negate bool) error {
	if !partitionReduceOp(op) {
		return errf(ErrNoSemantics, "tensor_partition_reduce op %s: narwhal reduces across partitions with add, max, average, bitwise_or and bitwise_and (the NKI reference's list)", op)
	}
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	if d.P != 1 || d.F != src.F {
		return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); reducing the partitions of the %d x %d source (pattern %v) leaves 1 x %d", d.P, d.F, d.pat.Shape(), src.P, src.F, src.pat.Shape(), src.F)
	}
	P, F := src.P, src.F
	if src.n == 0 {
		return errf(ErrCountMismatch, "the source walks no element: tensor_partition_reduce folds at least one partition")
	}
	if op.isBitvec() {
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
		out := mc.i64buf(1, F)
		for j := int64(0); j < F; j++ {
			acc := reduceIdentityBits(op)
			for p := int64(0); p < P; p++ {
				acc = int64(bitvec(op, uint64(acc), uint64(vals[p*F+j]), w))
			}
			out[j] = acc
		}
		return mc.writeInts(d, out)
	}
	if width := intPathChoice(x.eng, src.dt, d.dt); width != 0 {
		vals := mc.i64buf(0, src.n)
		if err := mc.readInts(src, vals); err != nil {
			return err
		}
		uns := allUnsigned(src, d)
		out := mc.i64buf(1, F)
		for j := int64(0); j < F; j++ {
			acc := vals[j]
			for p := int64(1); p < P; p++ {
				step := op
				if op == aluAverage {
					step = aluAdd
				}
				acc, _ = aluInt(step, acc, vals[p*F+j], width, uns)
			}
			if op == aluAverage {
				acc, _ = aluInt(aluDivide, acc, P, width, uns) // P >= 1: no division by zero
			}
			if negate {
				acc, _ = aluInt(aluMult, acc, -1, width, uns)
			}
			out[j] = acc
		}
		return mc.writeInts(d, out)
	}
	vals := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, vals); err != nil {
		return err
	}
	out := mc.f32buf(1, F)
	for j := int64(0); j < F; j++ {
		acc := reduceIdentity(op)
		for p := int64(0); p < P; p++ {
			v := vals[p*F+j]
			switch op {
			case aluMax:
				acc = maxNaN(acc, v)
			default: // add, average
				acc = float32(acc + v)
			}
		}
		if op == aluAverage {
			acc = float32(acc / float32(P))
		}
		if negate {
			acc = -acc
		}
		out[j] = acc
	}
	return mc.scatterF32(d, out)
}

// ---- max8, nc_find_index8, nc_match_replace8 (Max, MaxIndex, MatchReplace) ----

// max8Lo and max8Hi bound the elements per partition these instructions
// search (the NKI reference: "between 8 and 16,384 inclusive").
const (
	max8Lo = 8
	max8Hi = 16384
)

// searchRows evaluates the [P, n] data operand (source 0) of max8,
// nc_find_index8 and nc_match_replace8, checks its size, and reads it as
// fp32 (the reference: "converts them to fp32 internally").
func (mc *machine) searchRows(x *instCtx, what string) (*view, []float32, error) {
	src, err := mc.in(x, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := engineRule(x.eng, src); err != nil {
		return nil, nil, err
	}
	if src.F < max8Lo || src.F > max8Hi {
		return nil, nil, errf(ErrCountMismatch, "%s searches %d elements per partition (pattern %v); want %d to %d", what, src.F, src.pat.Shape(), max8Lo, max8Hi)
	}
	vals := mc.f32buf(0, src.n)
	return src, vals, mc.gatherF32(src, vals)
}

// eightPerPartition evaluates operand v as [P, 8].
func eightPerPartition(v *view, P int64, what string) error {
	if v.P != P || v.F != 8 {
		return errf(ErrCountMismatch, "%s is %d x %d (pattern %v); want %d x 8", v.what, v.P, v.F, v.pat.Shape(), P)
	}
	return nil
}

// ranksAbove reports whether a ranks before b in max8's descending order.
//
// CHOICE: NaN ranks above every number (max propagates NaN, semantics.md
// §3); -0 and +0 are equal (a stable order keeps the earlier first).
func ranksAbove(a, b float32) bool {
	if a != a {
		return b == b
	}
	return a > b
}

// sameValue is the match of nc_find_index8 and nc_match_replace8.
//
// CHOICE: fp32 equality, with NaN matching NaN (max8's NaN output is then
// found again) and -0 matching +0.
func sameValue(a, b float32) bool { return a == b || (a != a && b != b) }

// opMax8: dst[p, 0..7] = the 8 largest values of row p in descending order
// (duplicates repeated), fp32, cast to dst's dtype.
func (mc *machine) opMax8(x *instCtx) error {
	src, vals, err := mc.searchRows(x, "max8")
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, d); err != nil {
		return err
	}
	if err := eightPerPartition(d, src.P, "max8"); err != nil {
		return err
	}
	out := mc.f32buf(1, d.n)
	F := src.F
	for p := int64(0); p < src.P; p++ {
		top := out[p*8 : p*8+8]
		n := 0
		for _, v := range vals[p*F : (p+1)*F] {
			// Insert v into the sorted top list (stable: equal values keep
			// their order of appearance).
			k := n
			for k > 0 && ranksAbove(v, top[k-1]) {
				k--
			}
			if k >= 8 {
				continue
			}
			if n < 8 {
				n++
			}
			copy(top[k+1:n], top[k:n-1])
			top[k] = v
		}
	}
	return mc.scatterF32(d, out)
}

// findFirst returns the index of the first element of row equal to v
// (sameValue) whose taken flag is clear, or -1.
func findFirst(row []float32, taken []bool, v float32) int64 {
	for j, e := range row {
		if (taken == nil || !taken[j]) && sameValue(e, v) {
			return int64(j)
		}
	}
	return -1
}

// opFindIndex8: dst[p, k] = the index (from 0) of the first element of
// row p of data equal to vals[p, k].
//
// CHOICE: a value absent from its row ("behavior is undefined", the NKI
// reference) is an error of kind domain naming the partition and value.
func (mc *machine) opFindIndex8(x *instCtx) error {
	src, data, err := mc.searchRows(x, "nc_find_index8")
	if err != nil {
		return err
	}
	vv, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, vv, d); err != nil {
		return err
	}
	if err := eightPerPartition(vv, src.P, "nc_find_index8"); err != nil {
		return err
	}
	if err := eightPerPartition(d, src.P, "nc_find_index8"); err != nil {
		return err
	}
	if !numeric.IsInt(d.dt) {
		return errf(ErrOperand, "destination dtype %s: nc_find_index8 writes uint16 or uint32 indices", d.dt)
	}
	want := mc.f32buf(1, vv.n)
	if err := mc.gatherF32(vv, want); err != nil {
		return err
	}
	idx := mc.i64buf(0, d.n)
	F := src.F
	for p := int64(0); p < src.P; p++ {
		for k := int64(0); k < 8; k++ {
			j := findFirst(data[p*F:(p+1)*F], nil, want[p*8+k])
			if j < 0 {
				return errf(ErrDomain, "nc_find_index8: value %v (vals[%d, %d]) is not in partition %d of the data (the NKI reference leaves this undefined)", want[p*8+k], p, k, p)
			}
			idx[p*8+k] = j
		}
	}
	return mc.writeInts(d, idx)
}

// opMatchReplace8: dst = data with, for k = 0..7 in order, the first
// element of row p equal to vals[p, k] and not yet replaced set to the
// immediate imm_value (fp32, cast to dst's dtype); dst_idx (outs[1], when
// present) receives those indices as nc_find_index8 gives them.
//
// CHOICE: repeated values in vals replace successive occurrences (the
// "not yet replaced" rule: max8's output with a repeated maximum then
// clears each copy); a value absent from its row is a domain error, as
// for nc_find_index8; the elements not replaced pass through fp32 (exact
// for every float dtype).
func (mc *machine) opMatchReplace8(x *instCtx) error {
	const what = "nc_match_replace8"
	src, data, err := mc.searchRows(x, what)
	if err != nil {
		return err
	}
	vv, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, vv, d); err != nil {
		return err
	}
	if err := eightPerPartition(vv, src.P, what); err != nil {
		return err
	}
	if err := sameShape(src, d); err != nil {
		return err
	}
	var di *view
	if len(x.outs) > 1 {
		if di, err = mc.out(x, 1); err != nil {
			return err
		}
		if err := engineRule(x.eng, di); err != nil {
			return err
		}
		if err := eightPerPartition(di, src.P, what); err != nil {
			return err
		}
		if !numeric.IsInt(di.dt) {
			return errf(ErrOperand, "dst_idx dtype %s: %s writes integer indices", di.dt, what)
		}
	}
	v, ok := x.attrs.Get("imm_value")
	imm, isNum := v.AsFloat()
	if !ok || !isNum {
		return errf(ErrOperand, "attribute imm_value: want the replacement value (a number)")
	}
	want := mc.f32buf(1, vv.n)
	if err := mc.gatherF32(vv, want); err != nil {
		return err
	}
	F := src.F
	taken := mc.boolbuf(F)
	idx := mc.i64buf(0, src.P*8)
	for p := int64(0); p < src.P; p++ {
		row := data[p*F : (p+1)*F]
		clear(taken)
		for k := int64(0); k < 8; k++ {
			j := findFirst(row, taken, want[p*8+k])
			if j < 0 {
				return errf(ErrDomain, "%s: value %v (vals[%d, %d]) is not in partition %d of the data (the NKI reference leaves this undefined)", what, want[p*8+k], p, k, p)
			}
			taken[j] = true
			idx[p*8+k] = j
		}
		for j := range row {
			if taken[j] {
				row[j] = float32(imm)
			}
		}
	}
	if err := mc.scatterF32(d, data); err != nil {
		return err
	}
	if di != nil {
		return mc.writeInts(di, idx)
	}
	return nil
}

// activate2Ops are activate2's (op0, op1) combinations (the reference:
// "The tensor-scalar stage supports six (op0, op1) combinations").
var activate2Ops = map[[2]aluOp]bool{
	{aluMult, aluAdd}: true, {aluMult, aluSubtract}: true, {aluMult, aluBypass}: true,
	{aluAdd, aluBypass}: true, {aluSubtract, aluBypass}: true, {aluBypass, aluBypass}: true,
}

// opActivate2 (Activation with is_activate2): val = data op0 imm0[p]
// (imm0 op0 data with reverse0; bypass skips the stage), val = val op1
// imm1[p] likewise, dst = fn(val, alpha) with alpha = relu_param; the
// accumulator as Activation's (semantics.md §4.6) with reduce_op add, max
// or min.
//
// CHOICE: each stage rounds to fp32; reduce_op abs_max and abs_min (the
// reference names them but gives no formula) and LoadAccumulate (not in
// activate2's list) are errors.
func (mc *machine) opActivate2(x *instCtx, fn actFunc, mode accMode, redOp aluOp, alpha float32) error {
	op0, err := mc.aluAttr(x.attrs, "op0", false)
	if err != nil {
		return err
	}
	op1, err := mc.aluAttr(x.attrs, "op1", false)
	if err != nil {
		return err
	}
	if !activate2Ops[[2]aluOp{op0, op1}] {
		return errf(ErrOperand, "activate2 (op0, op1) = (%s, %s): want one of the reference's six combinations (mult add, mult subtract, mult bypass, add bypass, subtract bypass, bypass bypass)", op0, op1)
	}
	if mode == accLoadAccumulate {
		return errf(ErrNoSemantics, "activate2 with acc LoadAccumulate: the reference defines idle, reset, reduce and reset_reduce")
	}
	if len(x.ins) != 3 {
		return errf(ErrOperand, "%d source operands: activate2 reads [data, imm0, imm1]", len(x.ins))
	}
	src, d, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	n, P, F := d.n, src.P, max(src.F, 1)
	imm0, err := mc.loadScalar(x, 1, P, 0, false)
	if err != nil {
		return err
	}
	imm1, err := mc.loadScalar(x, 2, P, 1, false)
	if err != nil {
		return err
	}
	y := mc.f32buf(0, n)
	if err := mc.gatherF32(src, y); err != nil {
		return err
	}
	s0, s1 := mc.f32buf(1, n), mc.f32buf(2, n)
	imm0.broadcastF32(s0, F)
	imm1.broadcastF32(s1, F)
	rev0, rev1 := x.attrs.Bool("reverse0", false), x.attrs.Bool("reverse1", false)
	for k, v := range y {
		if op0 != aluBypass {
			v = aluF32Rev(op0, v, s0[k], rev0)
		}
		if op1 != aluBypass {
			v = aluF32Rev(op1, v, s1[k], rev1)
		}
		y[k] = actEval(fn, v, alpha)
	}
	if err := mc.actAccumulate(mode, redOp, alpha, src, y); err != nil {
		return err
	}
	return mc.scatterF32(d, y)
}
