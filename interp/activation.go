package interp

// Activation functions (semantics.md §4.6) and the Scalar engine's per-lane
// accumulator registers.
//
// CHOICE (semantics.md §4.6 "Functions"): exact mathematics. The hardware
// evaluates undocumented piecewise polynomials; narwhal computes each
// function in float64 from the fp32 argument and rounds once to fp32, and
// does not model the valid input ranges (sin without range reduction,
// ...). Comparisons with a device need tolerances; comparisons between two
// narwhal runs are bit-exact.

import (
	"math"
)

type actFunc uint8

const (
	actInvalid actFunc = iota
	actAbs
	actAbsRecipSqrt
	actArctan
	actCopy
	actDerivErf
	actDerivGelu
	actDerivSilu
	actDsqrt
	actErf
	actExp
	actGelu
	actGeluSigmoid
	actGeluTanh
	actIdentity
	actIsFinite
	actLn
	actLnPrime
	actLrelu
	actMemsetZero
	actMish
	actPrelu
	actReciprocal
	actRelu
	actRsqrt
	actSigmoid
	actSign
	actSilu
	actSin
	actSoftplus
	actSqrt
	actSquare
	actTanh
	numActFuncs
)

var actNames = [numActFuncs]string{"invalid", "Abs", "Abs_reciprocal_sqrt", "Arctan", "Copy", "Derivative_Erf",
	"Derivative_Gelu", "Derivative_silu", "Dsqrt", "Erf", "Exp", "Gelu", "Gelu_apprx_sigmoid", "Gelu_apprx_tanh",
	"Identity", "Is_finite", "Ln", "Ln_prime", "Lrelu", "MemsetZero", "Mish", "Prelu", "Reciprocal", "Relu",
	"Rsqrt", "Sigmoid", "Sign", "Silu", "Sin", "Softplus", "Sqrt", "Square", "Tanh"}

func (a actFunc) String() string { return actNames[a] }

// parseActFunc reads an ActivationFunctionType name (bir-json.md §4.3);
// lower-case spellings are accepted too.
func parseActFunc(s string) (actFunc, bool) {
	for i, n := range actNames {
		if i > 0 && (n == s || lower(n) == s) {
			return actFunc(i), true
		}
	}
	return actInvalid, false
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// actEval evaluates activation function fn at z (fp32 argument, computed in
// float64) with parameter alpha.
func actEval(fn actFunc, z float32, alpha float32) float32 {
	x := float64(z)
	var y float64
	switch fn {
	case actIdentity, actCopy:
		return z
	case actAbs:
		return math.Float32frombits(math.Float32bits(z) &^ (1 << 31))
	case actSign:
		switch {
		case x > 0:
			y = 1
		case x < 0:
			y = -1
		default:
			return z // +-0 and NaN pass through
		}
	case actSquare:
		y = x * x
	case actExp:
		y = math.Exp(x)
	case actLn:
		y = math.Log(x)
	case actSqrt:
		y = math.Sqrt(x)
	case actRsqrt:
		y = 1 / math.Sqrt(x)
	case actReciprocal:
		y = 1 / x
	case actSin:
		y = math.Sin(x)
	case actArctan:
		y = math.Atan(x)
	case actTanh:
		y = math.Tanh(x)
	case actRelu:
		if x != x {
			return z
		}
		y = math.Max(x, 0)
	case actSigmoid:
		y = sigmoid(x)
	case actGelu:
		y = 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
	case actGeluTanh:
		y = 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	case actGeluSigmoid:
		y = x * sigmoid(1.702*x)
	case actDerivGelu:
		// Phi(z) + z*phi(z)
		y = 0.5*(1+math.Erf(x/math.Sqrt2)) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
	case actSilu:
		y = x * sigmoid(x)
	case actDerivSilu:
		s := sigmoid(x)
		y = s * (1 + x*(1-s))
	case actSoftplus:
		y = softplus(x)
	case actMish:
		y = x * math.Tanh(softplus(x))
	case actErf:
		y = math.Erf(x)
	case actDerivErf:
		y = 2 / math.Sqrt(math.Pi) * math.Exp(-x*x)
	case actIsFinite:
		// CHOICE (not in NKI): 1 for finite z, 0 for +-Inf and NaN.
		y = float64(b2f(!math.IsInf(x, 0) && x == x))
	case actLnPrime:
		// CHOICE (not in NKI): the derivative of ln, 1/z.
		y = 1 / x
	case actDsqrt:
		// CHOICE (not in NKI): the derivative of sqrt, 0.5/sqrt(z).
		y = 0.5 / math.Sqrt(x)
	case actAbsRecipSqrt:
		// CHOICE (not in NKI): 1/sqrt(|z|).
		y = 1 / math.Sqrt(math.Abs(x))
	case actMemsetZero:
		// CHOICE (not in NKI): 0 whatever z.
		return 0
	case actLrelu, actPrelu:
		// alpha is the multiplier for negative values (semantics.md §4.6).
		if x >= 0 || x != x {
			return z
		}
		return float32(float64(alpha) * x)
	default:
		return float32(math.NaN())
	}
	return float32(y)
}

// accMode is the EngineAccumulationType of an Activation (semantics.md
// §4.6 "acc / reduce").
type accMode uint8

const (
	accIdle           accMode = iota // R unchanged
	accZero                          // R = identity
	accZeroAccumulate                // R = RED
	accAccumulate                    // R = R (+) RED
	accLoadAccumulate                // R = alpha (+) RED
)

// parseAccMode reads an EngineAccumulationType.
//
// CHOICE: AddAccumulate (in BIR-JSON's enum, not described anywhere) is
// read as Accumulate (R = R (+) RED); LoadAccumulate (KLR's load_reduce) is
// R = imm (+) RED with imm = the alpha attribute, as semantics.md §4.6
// prescribes (its pseudocode double-counts; this does not).
func parseAccMode(s string) (accMode, bool) {
	switch s {
	case "", "Idle", "idle":
		return accIdle, true
	case "Zero", "reset":
		return accZero, true
	case "ZeroAccumulate", "reset_reduce":
		return accZeroAccumulate, true
	case "Accumulate", "AddAccumulate", "reduce":
		return accAccumulate, true
	case "LoadAccumulate", "load_reduce":
		return accLoadAccumulate, true
	}
	return accIdle, false
}

// reduceOp is the accumulator's combining operation.
//
// CHOICE: add (the only one on NC-v2, semantics.md §4.6); the narwhal
// attribute "reduce_op" selects max or min (activate2's operations), with
// identities -Inf / +Inf. The reduction RED of a row is folded in fp32, in
// element order, from the first element, over the pre-cast fp32 results.
func accCombine(op aluOp, r, x float32) float32 {
	switch op {
	case aluMax:
		return maxNaN(r, x)
	case aluMin:
		return minNaN(r, x)
	}
	return r + x
}

// reduceIdentity is the value a reduction with op starts from (TensorReduce
// and the Activation accumulator's Zero mode).
//
// CHOICE (semantics.md §3 "Reduction identities"): add (and average) 0,
// mult 1, max -Inf, min +Inf (documented); bitwise_and all ones,
// bitwise_or and bitwise_xor 0 (bitwise reductions run on integer bits:
// see reduceIdentityBits).
func reduceIdentity(op aluOp) float32 {
	switch op {
	case aluMult:
		return 1
	case aluMax:
		return float32(math.Inf(-1))
	case aluMin:
		return float32(math.Inf(1))
	}
	return 0
}

// reduceIdentityBits is reduceIdentity for the bitwise reductions.
func reduceIdentityBits(op aluOp) int64 {
	if op == aluBitAnd {
		return -1
	}
	return 0
}
