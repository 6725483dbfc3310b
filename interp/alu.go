package interp

// AluOp semantics (semantics.md §3), in three numeric paths:
//
//   - fp32 (the default, §1): both operands are fp32, the result is fp32
//     (then cast once to the destination dtype). Computed exactly in float64
//     where a Go float32 expression could be fused or double-rounded, and
//     rounded once.
//   - integer (GpSimd TensorTensor with all-int32/uint32 operands, §4.4, and
//     narwhal's 64-bit path for int64/uint64 operands, see intPathChoice):
//     exact integer arithmetic, wrapped to the width.
//   - bit vector (shifts and bitwise ops, §3): raw integer bits widened to
//     32 bits (64 for 64-bit dtypes), the result truncated to the
//     destination width.
//
// Each CHOICE of §3 is a named function below.

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
)

type aluOp uint8

const (
	aluInvalid aluOp = iota
	aluAbs
	aluAdd
	aluArithShl
	aluArithShr
	aluAverage
	aluBitAnd
	aluBitNot
	aluBitOr
	aluBitXor
	aluBypass
	aluDivide
	aluIsEq
	aluIsGe
	aluIsGt
	aluIsLe
	aluIsLt
	aluLogAnd
	aluLogOr
	aluLogShl
	aluLogShr
	aluLogXor
	aluMax
	aluMin
	aluMod
	aluMult
	aluNotEq
	aluPow
	aluRsqrt
	aluSubtract
	numAluOps
)

var aluNames = [numAluOps]string{"invalid", "abs", "add", "arith_shift_left", "arith_shift_right", "average",
	"bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "bypass", "divide", "is_equal", "is_ge", "is_gt",
	"is_le", "is_lt", "logical_and", "logical_or", "logical_shift_left", "logical_shift_right", "logical_xor",
	"max", "min", "mod", "mult", "not_equal", "pow", "rsqrt", "subtract"}

func (op aluOp) String() string { return aluNames[op] }

// parseAluOp reads an AluOp name; "" and "None" read as bypass (an absent
// second stage of TensorScalar).
func parseAluOp(s string) (aluOp, bool) {
	switch s {
	case "", "None", "none":
		return aluBypass, true
	case "subtract", "sub":
		return aluSubtract, true
	case "mult", "multiply", "mul":
		return aluMult, true
	}
	for i, n := range aluNames {
		if i > 0 && n == s {
			return aluOp(i), true
		}
	}
	return aluInvalid, false
}

// isBitvec reports the bit-vector class (shifts and bitwise ops; bypass is
// neutral and belongs to both classes, §3 "Bitwise class = shifts,
// bitwise_*, bypass").
func (op aluOp) isBitvec() bool {
	switch op {
	case aluArithShl, aluArithShr, aluLogShl, aluLogShr, aluBitAnd, aluBitOr, aluBitXor, aluBitNot:
		return true
	}
	return false
}

// isUnary reports ops that ignore their right operand.
func (op aluOp) isUnary() bool {
	return op == aluAbs || op == aluRsqrt || op == aluBitNot || op == aluBypass
}

// aluF32 is one fp32 AluOp: a is the left operand, b the right.
func aluF32(op aluOp, a, b float32) float32 {
	switch op {
	case aluAdd:
		return a + b
	case aluSubtract:
		return a - b
	case aluMult:
		return a * b
	case aluDivide:
		return a / b // IEEE: x/0 = +-Inf, 0/0 = NaN (semantics.md §3 CHOICE)
	case aluMax:
		return maxNaN(a, b)
	case aluMin:
		return minNaN(a, b)
	case aluAbs:
		return math.Float32frombits(math.Float32bits(a) &^ (1 << 31))
	case aluRsqrt:
		return float32(1 / math.Sqrt(float64(a)))
	case aluPow:
		return float32(math.Pow(float64(a), float64(b)))
	case aluMod:
		return float32(floorModF(float64(a), float64(b)))
	case aluAverage:
		return averageF32(a, b)
	case aluBypass:
		return a
	case aluIsEq:
		return b2f(a == b)
	case aluNotEq:
		return b2f(a != b) // NaN != x is true
	case aluIsGt:
		return b2f(a > b)
	case aluIsGe:
		return b2f(a >= b)
	case aluIsLt:
		return b2f(a < b)
	case aluIsLe:
		return b2f(a <= b)
	case aluLogAnd:
		return b2f(a != 0 && b != 0)
	case aluLogOr:
		return b2f(a != 0 || b != 0)
	case aluLogXor:
		return b2f((a != 0) != (b != 0))
	}
	return float32(math.NaN())
}

func b2f(c bool) float32 {
	if c {
		return 1
	}
	return 0
}

// maxNaN is the max AluOp on fp32.
//
// CHOICE (semantics.md §3): NaN propagates (NumPy maximum): a NaN operand
// gives that NaN (the left one when both are). Between equal values the
// left operand is kept (so max(-0, +0) = -0, as NumPy).
func maxNaN(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a >= b:
		return a
	}
	return b
}

// minNaN is the min AluOp on fp32; the same CHOICE as maxNaN.
func minNaN(a, b float32) float32 {
	switch {
	case a != a:
		return a
	case b != b:
		return b
	case a <= b:
		return a
	}
	return b
}

// floorModF is the mod AluOp on floats.
//
// CHOICE (semantics.md §3): floored modulus a - b*floor(a/b), the result
// has the sign of the divisor (Python's %, nl.mod). Computed exactly with
// math.Mod (C fmod) and corrected; b = 0 gives NaN.
func floorModF(a, b float64) float64 {
	r := math.Mod(a, b)
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r
}

// averageF32 is the average AluOp.
//
// CHOICE (semantics.md §3): (a+b)/2, exact sum then one rounding to fp32
// (so it does not overflow when a+b exceeds fp32's range).
func averageF32(a, b float32) float32 { return float32((float64(a) + float64(b)) / 2) }

// aluF32Vec computes out[i] = a[i] op b[i] (or b[i] op a[i] when rev). The
// common ops have their own loops; out may alias a or b.
func aluF32Vec(op aluOp, out, a, b []float32, rev bool) {
	if rev && !op.isUnary() {
		a, b = b, a
	} else if rev && op.isUnary() {
		a = b
	}
	switch op {
	case aluAdd:
		for i := range out {
			out[i] = a[i] + b[i]
		}
	case aluSubtract:
		for i := range out {
			out[i] = a[i] - b[i]
		}
	case aluMult:
		for i := range out {
			out[i] = a[i] * b[i]
		}
	case aluBypass:
		copy(out, a)
	case aluMax:
		for i := range out {
			out[i] = maxNaN(a[i], b[i])
		}
	default:
		for i := range out {
			out[i] = aluF32(op, a[i], b[i])
		}
	}
}

// ---- integer paths ----

// intPathChoice: when an elementwise AluOp runs on exact integers.
//
// CHOICE: semantics.md §4.4 makes GpSimd TensorTensor with all-int32/uint32
// operands native integer math (wrap mod 2^32, truncating divide). narwhal
// adds a 64-bit path: an arithmetic op with any int64/uint64 operand
// (source or destination) computes in 64-bit integers, because fp32 cannot
// hold such values and they appear as DRAM addresses (ReadVarAddr ->
// TensorScalarPtr address arithmetic, indirect.go). Returns the width (32
// or 64) or 0 for the fp32 path.
func intPathChoice(eng bir.Engine, dts ...bir.Dtype) int {
	all32 := true
	for _, d := range dts {
		if d == bir.Int64 || d == bir.Uint64 {
			return 64
		}
		if d != bir.Int32 && d != bir.Uint32 {
			all32 = false
		}
	}
	if all32 && eng == bir.EngPool {
		return 32
	}
	return 0
}

// aluInt is one AluOp on integers of the given width (32 or 64), signed
// unless unsigned is set. ok is false for an integer division by zero or an
// op without integer form (rsqrt).
//
// CHOICE (semantics.md §4.4): results wrap to the width; divide truncates
// towards zero; mod is floored like the fp32 mod (the AluOp's definition,
// semantics.md §3), so it pairs with floor division, not with the
// truncating divide; average is floor((a+b)/2) without overflow; pow is
// repeated multiplication with wrap, a negative exponent giving 0 (1 and -1
// bases excepted); comparisons and logical ops give 1/0.
func aluInt(op aluOp, a, b int64, width int, unsigned bool) (int64, bool) {
	wrap := func(x int64) int64 {
		if width == 32 {
			if unsigned {
				return int64(uint32(x))
			}
			return int64(int32(x))
		}
		return x
	}
	ua, ub := uint64(a), uint64(b)
	if width == 32 && unsigned {
		ua, ub = uint64(uint32(a)), uint64(uint32(b))
	}
	less := func() bool {
		if unsigned {
			return ua < ub
		}
		return a < b
	}
	switch op {
	case aluAdd:
		return wrap(a + b), true
	case aluSubtract:
		return wrap(a - b), true
	case aluMult:
		return wrap(a * b), true
	case aluDivide:
		if b == 0 {
			return 0, false
		}
		if unsigned {
			return wrap(int64(ua / ub)), true
		}
		if a == math.MinInt64 && b == -1 {
			return a, true
		}
		return wrap(a / b), true
	case aluMod:
		if b == 0 {
			return 0, false
		}
		if unsigned {
			return wrap(int64(ua % ub)), true
		}
		if b == -1 {
			return 0, true
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return wrap(r), true
	case aluMax:
		if less() {
			return wrap(b), true
		}
		return wrap(a), true
	case aluMin:
		if less() {
			return wrap(a), true
		}
		return wrap(b), true
	case aluAbs:
		if unsigned || a >= 0 {
			return a, true
		}
		return wrap(-a), true
	case aluAverage:
		if unsigned {
			return wrap(int64(ua>>1 + ub>>1 + ua&ub&1)), true
		}
		return wrap(a>>1 + b>>1 + a&b&1), true
	case aluPow:
		return wrap(intPow(a, b)), true
	case aluBypass:
		return wrap(a), true
	case aluIsEq:
		return b2i(a == b), true
	case aluNotEq:
		return b2i(a != b), true
	case aluIsGt:
		return b2i(!less() && a != b), true
	case aluIsGe:
		return b2i(!less()), true
	case aluIsLt:
		return b2i(less()), true
	case aluIsLe:
		return b2i(less() || a == b), true
	case aluLogAnd:
		return b2i(a != 0 && b != 0), true
	case aluLogOr:
		return b2i(a != 0 || b != 0), true
	case aluLogXor:
		return b2i((a != 0) != (b != 0)), true
	}
	if op.isBitvec() {
		return int64(bitvec(op, uint64(a), uint64(b), width)), true
	}
	return 0, false
}

func b2i(c bool) int64 {
	if c {
		return 1
	}
	return 0
}

func intPow(a, b int64) int64 {
	if b < 0 {
		switch a {
		case 1:
			return 1
		case -1:
			if b%2 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for b > 0 {
		if b&1 != 0 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r
}

// bitvec is one bit-vector AluOp on width-bit values (32 or 64); the
// result is masked to the width.
//
// CHOICE (semantics.md §3): the shift count is the right operand taken as
// unsigned; a count >= width gives 0 for the logical shifts and the
// sign fill for arith_shift_right; arith_shift_left is the logical left
// shift; bitwise_not is XOR with all ones.
func bitvec(op aluOp, a, b uint64, width int) uint64 {
	mask := uint64(math.MaxUint64)
	if width == 32 {
		mask = math.MaxUint32
	}
	a &= mask
	cnt := b & mask
	w := uint64(width)
	var r uint64
	switch op {
	case aluBitAnd:
		r = a & b
	case aluBitOr:
		r = a | b
	case aluBitXor:
		r = a ^ b
	case aluBitNot:
		r = ^a
	case aluLogShl, aluArithShl:
		if cnt >= w {
			return 0
		}
		r = a << cnt
	case aluLogShr:
		if cnt >= w {
			return 0
		}
		r = a >> cnt
	case aluArithShr:
		neg := a>>(w-1)&1 == 1
		if cnt >= w {
			if neg {
				return mask
			}
			return 0
		}
		r = a >> cnt
		if neg && cnt > 0 {
			r |= mask &^ (mask >> cnt)
		}
	case aluBypass:
		r = a
	}
	return r & mask
}
