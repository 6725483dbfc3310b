package lower

// NKI type promotion (nki.api.shared, "NKI Type Promotion"):
//
//	(float, integer): the float type;
//	(float, float): the wider, or a new widened type that holds both
//	  ranges: (float16, bfloat16) -> float32, (float8_e4m3, float8_e5m2)
//	  -> bfloat16, (float8_*, float16) -> float16, (float32, tfloat32) ->
//	  float32;
//	(int, int): the wider, or a new widened type: (int8, uint8) -> int16,
//	  (int8, uint16) -> int32, (uint16, int32) -> int32, (int32, uint32)
//	  -> float32 ("int64 isn't supported on the hardware").
//
// Weakly typed scalars (a Python number in an arithmetic operation) count
// as the widest type of their kind: bool -> uint8, int -> int32, float ->
// float32 (so (float16 tile, 1.2) -> float32, as the documentation's
// example says).

import "github.com/narwhal-compiler/narwhal/bir"

// Weak scalar types.
const (
	WeakBool  = bir.Uint8
	WeakInt   = bir.Int32
	WeakFloat = bir.Float32
)

func floatRank(d bir.Dtype) int {
	switch d {
	case bir.Float8E4M3, bir.Float8E5, bir.Float8E4M3FN, bir.Float8E3, bir.Float8E4:
		return 1
	case bir.Float16, bir.BFloat16:
		return 2
	case bir.Float32R:
		return 3
	case bir.Float32:
		return 4
	}
	return 0
}

func intInfo(d bir.Dtype) (bits int, signed bool) {
	switch d {
	case bir.Int8:
		return 8, true
	case bir.Uint8:
		return 8, false
	case bir.Int16:
		return 16, true
	case bir.Uint16:
		return 16, false
	case bir.Int32:
		return 32, true
	case bir.Uint32:
		return 32, false
	}
	return 0, false
}

// Promote returns the dtype of an arithmetic operation on a and b.
func Promote(a, b bir.Dtype) bir.Dtype {
	if a == b {
		return a
	}
	fa, fb := a.IsFloat(), b.IsFloat()
	switch {
	case fa && !fb:
		return a
	case fb && !fa:
		return b
	case fa && fb:
		ra, rb := floatRank(a), floatRank(b)
		switch {
		case ra == rb && ra == 2: // float16 and bfloat16
			return bir.Float32
		case ra == rb && ra == 1: // two fp8 formats
			return bir.BFloat16
		case ra > rb:
			return a
		default:
			return b
		}
	}
	ba, sa := intInfo(a)
	bb, sb := intInfo(b)
	if sa == sb {
		if ba >= bb {
			return a
		}
		return b
	}
	// Mixed signedness: a signed type wider than the unsigned one, else
	// the next wider signed type; past 32 bits float32.
	ub, sbits := ba, bb
	if sa {
		ub, sbits = bb, ba
	}
	switch {
	case sbits > ub:
		if sa {
			return a
		}
		return b
	case ub == 8:
		return bir.Int16
	case ub == 16:
		return bir.Int32
	}
	return bir.Float32
}
