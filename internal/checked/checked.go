// Package checked is narwhal's one home for overflow-safe integer
// arithmetic on counts, sizes, offsets and loop bounds: every product of
// dimensions, every trip count and every running total that input can
// drive goes through it, so that a hostile module (a tensor of 2^62 rows,
// a loop of stride 2^62) fails with an error instead of wrapping around
// into a small, wrong, in-bounds-looking number.
//
// Two families:
//
//   - Mul, Add, Sub, Product: the exact result and whether it fits in an
//     int64 (callers turn false into a one-line error naming what
//     overflowed).
//   - SatMul, SatAdd: for non-negative projections (instruction counts,
//     element counts) that are compared with a ceiling; they saturate at
//     math.MaxInt64 so that "too many" stays "too many".
//
// TripCount is the exact iteration count of a counted loop, computed
// without forming ub-lb+stride-1 (which overflows for large bounds), and
// Last the value of its last iteration; loops that iterate should count
// iterations rather than step a value past ub (which wraps at 2^63).
package checked

import (
	"math"
	"math/bits"
)

// Mul returns a*b and whether the product fits in an int64.
func Mul(a, b int64) (int64, bool) {
	hi, lo := bits.Mul64(uabs(a), uabs(b))
	neg := (a < 0) != (b < 0)
	if hi != 0 {
		return 0, false
	}
	if neg {
		if lo > 1<<63 {
			return 0, false
		}
		return int64(-lo), true // -(1<<63) wraps to MinInt64, which is right
	}
	if lo > math.MaxInt64 {
		return 0, false
	}
	return int64(lo), true
}

// Add returns a+b and whether the sum fits in an int64.
func Add(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// Sub returns a-b and whether the difference fits in an int64.
func Sub(a, b int64) (int64, bool) {
	d := a - b
	if (b < 0 && d < a) || (b > 0 && d > a) {
		return 0, false
	}
	return d, true
}

// Product returns the product of xs (1 for none) and whether it fits in
// an int64. A zero factor makes the product 0 even when other factors
// would overflow together.
func Product(xs ...int64) (int64, bool) {
	p, ok := int64(1), true
	for _, x := range xs {
		if x == 0 {
			return 0, true
		}
		if ok {
			p, ok = Mul(p, x)
		}
	}
	return p, ok
}

// SatMul multiplies two non-negative numbers, saturating at
// math.MaxInt64 (a negative factor is treated as 0).
func SatMul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// SatAdd adds two non-negative numbers, saturating at math.MaxInt64 (a
// negative term is treated as 0).
func SatAdd(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// TripCount returns the number of iterations of a counted loop whose
// variable takes lb, lb+stride, lb+2*stride, ... while it is < ub
// (stride > 0) or > ub (stride < 0); 0 when the loop does not run or
// stride is 0. It is exact for every int64 bound, saturating at
// math.MaxInt64 (only a loop over more than 2^63 values reaches it).
func TripCount(lb, ub, stride int64) int64 {
	var span, step uint64
	switch {
	case stride > 0 && ub > lb:
		span, step = uint64(ub)-uint64(lb), uint64(stride)
	case stride < 0 && ub < lb:
		span, step = uint64(lb)-uint64(ub), uabs(stride)
	default:
		return 0
	}
	n := (span-1)/step + 1
	if n > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(n)
}

// Last returns the value of the last iteration of a loop of trips > 0
// iterations from lb by stride: lb + (trips-1)*stride, which lies between
// lb and ub and so cannot overflow when trips is TripCount(lb, ub,
// stride). ok is false when it does not fit (trips not from TripCount).
func Last(lb, stride, trips int64) (int64, bool) {
	if trips <= 0 {
		return 0, false
	}
	hi, d := bits.Mul64(uint64(trips-1), uabs(stride))
	if hi != 0 {
		return 0, false
	}
	// lb + d (stride > 0) or lb - d, in modular arithmetic; the room
	// above (below) lb is computed the same way and fits a uint64.
	if stride >= 0 {
		if d > uint64(math.MaxInt64)-uint64(lb) {
			return 0, false
		}
		return int64(uint64(lb) + d), true
	}
	if d > uint64(lb)-(1<<63) { // lb - MinInt64
		return 0, false
	}
	return int64(uint64(lb) - d), true
}

func uabs(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // MinInt64 maps to 1<<63, which is right
	}
	return uint64(a)
}

// Iteration returns the iteration number of value v of a loop from lb by
// stride > 0: (v - lb) / stride, computed in uint64 so that the
// difference of two values of a loop spanning more than 2^63 does not
// wrap. v must be a value of the loop (v >= lb).
func Iteration(v, lb, stride int64) int64 {
	return int64((uint64(v) - uint64(lb)) / uint64(stride))
}
