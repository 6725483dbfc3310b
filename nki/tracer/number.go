// number.go: Python's int and float arithmetic. Ints are exact (int64
// with overflow detected, *big.Int beyond); // and % floor as Python's
// do; true division of ints is correctly rounded; ** of an int by a
// negative int is a float; float // and % follow CPython's float_divmod
// (fmod-based, the remainder taking the divisor's sign). Error messages
// are CPython 3.11's.
package tracer

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// numeric normalizes a number operand: bools become ints; ok false for
// non-numbers.
func numeric(v Value) (Value, bool) {
	switch x := v.(type) {
	case Int, Float:
		return v, true
	case Bool:
		return boolToInt(x), true
	case *Instance:
		if x.base != nil {
			return numeric(x.base)
		}
	}
	return nil, false
}

// numberBinary applies a binary operator to two numbers (nil, nil when
// the operator does not apply).
func numberBinary(th *Thread, op syntax.Operator, x, y Value) (Value, error) {
	if xi, ok := x.(Int); ok {
		if yi, ok := y.(Int); ok {
			return intBinary(th, op, xi, yi)
		}
	}
	// Mixed or float arithmetic.
	switch op {
	case syntax.LShift, syntax.RShift, syntax.BitAnd, syntax.BitOr, syntax.BitXor, syntax.MatMult:
		return nil, nil
	}
	a, err := AsFloat64(th, x)
	if err != nil {
		return nil, err
	}
	b, err := AsFloat64(th, y)
	if err != nil {
		return nil, err
	}
	return floatBinary(op, a, b)
}

func floatBinary(op syntax.Operator, a, b float64) (Value, error) {
	switch op {
	case syntax.Add:
		return Float(a + b), nil
	case syntax.Sub:
		return Float(a - b), nil
	case syntax.Mult:
		return Float(a * b), nil
	case syntax.Div:
		if b == 0 {
			return nil, Errorf("ZeroDivisionError", "float division by zero")
		}
		return Float(a / b), nil
	case syntax.FloorDiv:
		if b == 0 {
			return nil, Errorf("ZeroDivisionError", "float floor division by zero")
		}
		q, _ := floatDivmod(a, b)
		return Float(q), nil
	case syntax.Mod:
		if b == 0 {
			return nil, Errorf("ZeroDivisionError", "float modulo")
		}
		_, m := floatDivmod(a, b)
		return Float(m), nil
	case syntax.Pow:
		return floatPow(a, b)
	}
	return nil, nil
}

// floatDivmod is CPython's float divmod.
func floatDivmod(vx, wx float64) (float64, float64) {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 {
		if (wx < 0) != (mod < 0) {
			mod += wx
			div -= 1.0
		}
	} else {
		mod = math.Copysign(0, wx)
	}
	var floordiv float64
	if div != 0 {
		floordiv = math.Floor(div)
		if div-floordiv > 0.5 {
			floordiv += 1.0
		}
	} else {
		floordiv = math.Copysign(0, vx/wx)
	}
	return floordiv, mod
}

func floatPow(a, b float64) (Value, error) {
	if a == 0 && b < 0 {
		return nil, Errorf("ZeroDivisionError", "0.0 cannot be raised to a negative power")
	}
	if a < 0 && b != math.Trunc(b) && !math.IsInf(b, 0) {
		return nil, Errorf("NotSupported", "complex numbers are not supported (a negative number raised to a fractional power)")
	}
	r := math.Pow(a, b)
	if math.IsInf(r, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return nil, Errorf("OverflowError", "(34, 'Numerical result out of range')")
	}
	return Float(r), nil
}

func intBinary(th *Thread, op syntax.Operator, x, y Int) (Value, error) {
	if x.big == nil && y.big == nil {
		a, b := x.small, y.small
		switch op {
		case syntax.Add:
			s := a + b
			if (s > a) == (b > 0) {
				return intValue(s), nil
			}
		case syntax.Sub:
			s := a - b
			if (s < a) == (b > 0) {
				return intValue(s), nil
			}
		case syntax.Mult:
			hi, lo := bits.Mul64(uint64(absI(a)), uint64(absI(b)))
			if hi == 0 && lo <= math.MaxInt64 && a != math.MinInt64 && b != math.MinInt64 {
				r := int64(lo)
				if (a < 0) != (b < 0) {
					r = -r
				}
				return intValue(r), nil
			}
		case syntax.FloorDiv:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
			}
			if !(a == math.MinInt64 && b == -1) {
				q := a / b
				if (a%b != 0) && ((a < 0) != (b < 0)) {
					q--
				}
				return intValue(q), nil
			}
		case syntax.Mod:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "integer modulo by zero")
			}
			if b == -1 {
				return intValue(0), nil
			}
			m := a % b
			if m != 0 && ((m < 0) != (b < 0)) {
				m += b
			}
			return intValue(m), nil
		case syntax.Div:
			if b == 0 {
				return nil, Errorf("ZeroDivisionError", "division by zero")
			}
			if absI(a) <= 1<<53 && absI(b) <= 1<<53 {
				return Float(float64(a) / float64(b)), nil
			}
		case syntax.BitAnd:
			return intValue(a & b), nil
		case syntax.BitOr:
			return intValue(a | b), nil
		case syntax.BitXor:
			return intValue(a ^ b), nil
		case syntax.RShift:
			if b < 0 {
				return nil, Errorf("ValueError", "negative shift count")
			}
			if b > 63 {
				b = 63
			}
			return intValue(a >> uint(b)), nil
		case syntax.LShift:
			if b < 0 {
				return nil, Errorf("ValueError", "negative shift count")
			}
			if b < 62 && a < 1<<(62-b) && a > -(1<<(62-b)) {
				return intValue(a << uint(b)), nil
			}
		case syntax.Pow:
			if b < 0 {
				fa, _ := intToFloat(x)
				return floatPow(fa, float64(b))
			}
			if r, ok := smallPow(a, b); ok {
				return intValue(r), nil
			}
		case syntax.MatMult:
			return nil, nil
		}
	}
	return bigBinary(th, op, x, y)
}

func absI(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// smallPow returns a**b when it fits an int64.
func smallPow(a, b int64) (int64, bool) {
	r := int64(1)
	for b > 0 {
		if b&1 == 1 {
			hi, lo := bits.Mul64(uint64(absI(r)), uint64(absI(a)))
			if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 {
				return 0, false
			}
			neg := (r < 0) != (a < 0)
			r = int64(lo)
			if neg {
				r = -r
			}
		}
		b >>= 1
		if b > 0 {
			hi, lo := bits.Mul64(uint64(absI(a)), uint64(absI(a)))
			if hi != 0 || lo > math.MaxInt64 || a == math.MinInt64 {
				return 0, false
			}
			a = int64(lo)
		}
	}
	return r, true
}

// bitLimit is the largest int, in bits, an operation may make: the
// Thread's MaxSize, at most 1<<20 bits (315,653 digits), so that one
// multiplication or power stays fast.
func (th *Thread) bitLimit() int {
	if th == nil || th.maxSize <= 0 || th.maxSize > 1<<20 {
		return 1 << 20
	}
	return th.maxSize
}

// maxStrDigits is CPython's default limit on int-to-decimal conversion
// (sys.get_int_max_str_digits()).
const maxStrDigits = 4300

// checkIntDigits returns CPython's ValueError for an int too long to
// print in decimal.
func checkIntDigits(v Value) error {
	if i, ok := v.(Int); ok && i.big != nil && i.big.BitLen() > 14000 {
		if len(i.big.String()) > maxStrDigits+1 || len(i.big.String()) == maxStrDigits+1 && i.big.Sign() > 0 {
			return Errorf("ValueError", "Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", maxStrDigits)
		}
	}
	return nil
}

func bigBinary(th *Thread, op syntax.Operator, x, y Int) (Value, error) {
	a, b := x.bigView(), y.bigView()
	z := new(big.Int)
	switch op {
	case syntax.Add:
		z.Add(a, b)
	case syntax.Sub:
		z.Sub(a, b)
	case syntax.Mult:
		if a.BitLen()+b.BitLen() > th.bitLimit() {
			return nil, bigLimit(th)
		}
		z.Mul(a, b)
	case syntax.FloorDiv, syntax.Mod:
		if b.Sign() == 0 {
			if op == syntax.Mod {
				return nil, Errorf("ZeroDivisionError", "integer modulo by zero")
			}
			return nil, Errorf("ZeroDivisionError", "integer division or modulo by zero")
		}
		q, m := new(big.Int), new(big.Int)
		q.QuoRem(a, b, m)
		if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
			m.Add(m, b)
		}
		if op == syntax.Mod {
			return makeBigOwned(m), nil
		}
		return makeBigOwned(q), nil
	case syntax.Div:
		if b.Sign() == 0 {
			return nil, Errorf("ZeroDivisionError", "division by zero")
		}
		f, _ := new(big.Rat).SetFrac(a, b).Float64()
		if math.IsInf(f, 0) {
			return nil, Errorf("OverflowError", "integer division result too large for a float")
		}
		return Float(f), nil
	case syntax.BitAnd:
		z.And(a, b)
	case syntax.BitOr:
		z.Or(a, b)
	case syntax.BitXor:
		z.Xor(a, b)
	case syntax.LShift, syntax.RShift:
		if b.Sign() < 0 {
			return nil, Errorf("ValueError", "negative shift count")
		}
		if op == syntax.RShift {
			if !b.IsInt64() || b.Int64() > int64(a.BitLen()) {
				if a.Sign() < 0 {
					return intValue(-1), nil
				}
				return intValue(0), nil
			}
			z.Rsh(a, uint(b.Int64()))
		} else {
			if a.Sign() == 0 {
				return intValue(0), nil
			}
			if !b.IsInt64() || b.Int64()+int64(a.BitLen()) > int64(th.bitLimit()) {
				return nil, bigLimit(th)
			}
			z.Lsh(a, uint(b.Int64()))
		}
	case syntax.Pow:
		if b.Sign() < 0 {
			fa, err := intToFloat(x)
			if err != nil {
				return nil, err
			}
			fb, err := intToFloat(y)
			if err != nil {
				return nil, err
			}
			return floatPow(fa, fb)
		}
		if a.CmpAbs(big.NewInt(1)) <= 0 {
			// 0, 1, -1 to any power.
			if a.Sign() == 0 {
				if b.Sign() == 0 {
					return intValue(1), nil
				}
				return intValue(0), nil
			}
			if a.Sign() < 0 && b.Bit(0) == 1 {
				return intValue(-1), nil
			}
			return intValue(1), nil
		}
		if !b.IsInt64() || float64(a.BitLen()-1)*float64(b.Int64()) > float64(th.bitLimit()) {
			return nil, bigLimit(th)
		}
		z.Exp(a, b, nil)
	default:
		return nil, nil
	}
	return makeBigOwned(z), nil
}

func bigLimit(th *Thread) error {
	return Errorf("MemoryError", "the result would exceed narwhal's limit of %d bits for an int", th.bitLimit())
}

// intCompare compares two ints (-1, 0, +1).
func intCompare(x, y Int) int {
	if x.big == nil && y.big == nil {
		switch {
		case x.small < y.small:
			return -1
		case x.small > y.small:
			return 1
		}
		return 0
	}
	return x.bigView().Cmp(y.bigView())
}

// numberCompare compares two numbers exactly (int against float without
// rounding); ok false when either is NaN.
func numberCompare(x, y Value) (c int, ok bool) {
	xi, xInt := x.(Int)
	yi, yInt := y.(Int)
	if xInt && yInt {
		return intCompare(xi, yi), true
	}
	if !xInt && !yInt {
		a, b := float64(x.(Float)), float64(y.(Float))
		switch {
		case a < b:
			return -1, true
		case a > b:
			return 1, true
		case a == b:
			return 0, true
		}
		return 0, false
	}
	// int against float.
	var i Int
	var f float64
	sign := 1
	if xInt {
		i, f = xi, float64(y.(Float))
	} else {
		i, f = yi, float64(x.(Float))
		sign = -1
	}
	if math.IsNaN(f) {
		return 0, false
	}
	if math.IsInf(f, 0) {
		if f > 0 {
			return -sign, true
		}
		return sign, true
	}
	var r int
	if i.big == nil && absI(i.small) <= 1<<53 {
		a := float64(i.small)
		switch {
		case a < f:
			r = -1
		case a > f:
			r = 1
		}
	} else {
		r = new(big.Float).SetInt(i.bigView()).Cmp(big.NewFloat(f))
	}
	return r * sign, true
}

// floatToInt converts a float to an int (truncating), with CPython's
// errors for infinities and NaN.
func floatToInt(f float64) (Int, error) {
	if math.IsInf(f, 0) {
		return Int{}, Errorf("OverflowError", "cannot convert float infinity to integer")
	}
	if math.IsNaN(f) {
		return Int{}, Errorf("ValueError", "cannot convert float NaN to integer")
	}
	t := math.Trunc(f)
	if t >= -(1<<63) && t < 1<<63 {
		return MakeInt(int64(t)), nil
	}
	b, _ := new(big.Float).SetFloat64(t).Int(nil)
	return makeBigOwned(b), nil
}

// intUnary is -x, +x, ~x of an int.
func intUnary(op syntax.UnaryOpKind, x Int) Value {
	switch op {
	case syntax.USub:
		if x.big == nil && x.small != math.MinInt64 {
			return intValue(-x.small)
		}
		return makeBigOwned(new(big.Int).Neg(x.bigView()))
	case syntax.UAdd:
		return x
	case syntax.Invert:
		if x.big == nil {
			return intValue(^x.small)
		}
		return makeBigOwned(new(big.Int).Not(x.big))
	}
	return nil
}
