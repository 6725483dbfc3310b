package numeric

// Element-level conversions between the BIR dtypes and fp32 / integers.
//
// Bits are always carried in a uint64 holding the element's little-endian
// code in its low Size*8 bits (a float32's IEEE bits, an int8's two's
// complement byte, ...). LoadBits and StoreBits move them to and from memory.

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Format returns the small-float format of dt, or nil for fp32, float32r,
// the integers and the x4-packed types (fp32 and float32r have fast paths
// of their own; the packed types are not numbers, see Packed).
func Format(dt bir.Dtype) *FloatFormat {
	switch dt {
	case bir.BFloat16:
		return &FmtBF16
	case bir.Float16:
		return &FmtF16
	case bir.Float8E5:
		return &FmtE5M2
	case bir.Float8E4M3, bir.Float8E4:
		return &FmtE4M3
	case bir.Float8E4M3FN:
		return &FmtE4M3FN
	case bir.Float8E3:
		return &FmtE3M4
	}
	return nil
}

// Packed reports whether dt packs several values into one element (the x4
// types). The interpreter moves them only by raw copy or memset 0
// (semantics.md §4.10 "x4-packed types only 0").
func Packed(dt bir.Dtype) bool {
	return dt == bir.Float4E2M1FNx4 || dt == bir.Float8E5M2x4 || dt == bir.Float8E4M3FNx4
}

// PackedLane returns the format and count of the values packed in dt.
func PackedLane(dt bir.Dtype) (*FloatFormat, int) {
	switch dt {
	case bir.Float4E2M1FNx4:
		return &FmtE2M1FN, 4
	case bir.Float8E5M2x4:
		return &FmtE5M2, 4
	case bir.Float8E4M3FNx4:
		return &FmtE4M3FN, 4
	}
	return nil, 0
}

// IsInt reports whether dt is an integer dtype.
func IsInt(dt bir.Dtype) bool {
	switch dt {
	case bir.Int8, bir.Uint8, bir.Int16, bir.Uint16, bir.Int32, bir.Uint32, bir.Int64, bir.Uint64:
		return true
	}
	return false
}

// LoadBits reads one element of dtype dt from b (little-endian).
func LoadBits(dt bir.Dtype, b []byte) uint64 {
	switch dt.Size() {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	case 8:
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// StoreBits writes one element of dtype dt to b (little-endian).
func StoreBits(dt bir.Dtype, b []byte, v uint64) {
	switch dt.Size() {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		binary.LittleEndian.PutUint64(b, v)
	}
}

// Int64Of returns the integer value of integer bits: sign-extended for the
// signed types, zero-extended for the unsigned ones (a uint64 above 2^63-1
// wraps to a negative int64; callers that care use Uint64 arithmetic).
func Int64Of(dt bir.Dtype, bits uint64) int64 {
	switch dt {
	case bir.Int8:
		return int64(int8(bits))
	case bir.Int16:
		return int64(int16(bits))
	case bir.Int32:
		return int64(int32(bits))
	case bir.Uint8:
		return int64(uint8(bits))
	case bir.Uint16:
		return int64(uint16(bits))
	case bir.Uint32:
		return int64(uint32(bits))
	}
	return int64(bits)
}

// table8 holds the exact fp32 value of every code of the 8-bit float
// formats, indexed by dtype.
var table8 [bir.NumDtypes]*[256]float32

func init() {
	for _, dt := range []bir.Dtype{bir.Float8E3, bir.Float8E4, bir.Float8E5, bir.Float8E4M3, bir.Float8E4M3FN} {
		f := Format(dt)
		t := new([256]float32)
		for c := range 256 {
			t[c] = float32(f.Decode(uint64(c)))
			if math.IsNaN(float64(t[c])) {
				t[c] = nanF32(f, uint64(c))
			}
		}
		table8[dt] = t
	}
}

// nanF32 widens a NaN code of format f to an fp32 NaN keeping sign and
// payload (the payload bits move to the top of the fp32 mantissa).
func nanF32(f *FloatFormat, code uint64) float32 {
	sign := uint32(0)
	if code&f.signBit() != 0 {
		sign = 1 << 31
	}
	m := uint32(code&f.manMask()) << (23 - f.ManBits)
	if m == 0 {
		m = 1 << 22
	}
	return math.Float32frombits(sign | 0x7f800000 | m)
}

// Table8 returns the decode table of an 8-bit float dtype (nil otherwise).
// Do not modify it.
func Table8(dt bir.Dtype) *[256]float32 {
	if dt.Valid() {
		return table8[dt]
	}
	return nil
}

// ToFloat32 returns the fp32 value of an element (semantics.md §2 "Read ->
// fp32"): exact for every float format and the 8/16-bit integers,
// IntToFloat32 for the 32/64-bit integers. ok is false for the x4-packed
// types and invalid dtypes.
func ToFloat32(dt bir.Dtype, bits uint64) (float32, bool) {
	switch dt {
	case bir.Float32, bir.Float32R:
		return math.Float32frombits(uint32(bits)), true
	case bir.BFloat16:
		return BF16ToF32(uint16(bits)), true
	case bir.Float16:
		return F16ToF32(uint16(bits)), true
	case bir.Float8E3, bir.Float8E4, bir.Float8E5, bir.Float8E4M3, bir.Float8E4M3FN:
		return table8[dt][uint8(bits)], true
	case bir.Int8, bir.Uint8, bir.Int16, bir.Uint16, bir.Int32, bir.Uint32, bir.Int64:
		return IntToFloat32(Int64Of(dt, bits)), true
	case bir.Uint64:
		return Uint64ToFloat32(bits), true
	}
	return float32(math.NaN()), false
}

// FromFloat32 converts an fp32 value to dtype dt (semantics.md §2): RNE to
// the float formats with the format's overflow rule, FloatToInt for the
// integers. ok is false for the x4-packed types and invalid dtypes.
func FromFloat32(dt bir.Dtype, f float32) (uint64, bool) {
	switch dt {
	case bir.Float32:
		return uint64(math.Float32bits(f)), true
	case bir.Float32R:
		return uint64(F32ToTF32(f)), true
	case bir.BFloat16:
		return uint64(F32ToBF16(f)), true
	case bir.Float16:
		return uint64(F32ToF16(f)), true
	case bir.Float8E3, bir.Float8E4, bir.Float8E5, bir.Float8E4M3, bir.Float8E4M3FN:
		return Format(dt).Encode(float64(f), DefaultSaturate), true
	case bir.Int8, bir.Uint8, bir.Int16, bir.Uint16, bir.Int32, bir.Uint32, bir.Int64, bir.Uint64:
		return FloatToInt(dt, f), true
	}
	return 0, false
}

// IntToFloat32 converts an integer to fp32.
//
// CHOICE (semantics.md §2): round to nearest even beyond 2^24 (the docs only
// warn that int32 "cannot be precisely cast to FP32"). Go's int64 -> float32
// conversion is a single IEEE round-to-nearest-even.
func IntToFloat32(v int64) float32 { return float32(v) }

// Uint64ToFloat32 is IntToFloat32 for uint64 values above 2^63-1 (same
// rule: one round-to-nearest-even).
func Uint64ToFloat32(v uint64) float32 { return float32(v) }

// FloatToInt converts an fp32 value to integer dtype dt and returns the bits.
//
// CHOICE (semantics.md §2 "float -> int: not documented"): round to nearest
// even, saturate to the dtype's range, NaN -> 0 (the alternative would be
// NumPy's truncation; this is the top item of the device checks of §5).
// Integer -> narrower integer conversions on the fp32 path go through fp32
// and then this rule.
func FloatToInt(dt bir.Dtype, f float32) uint64 {
	if f != f {
		return 0
	}
	r := math.RoundToEven(float64(f))
	switch dt {
	case bir.Uint64:
		if r <= 0 {
			return 0
		}
		if r >= 18446744073709551616.0 { // 2^64
			return math.MaxUint64
		}
		return uint64(r)
	case bir.Int64:
		if r >= 9223372036854775808.0 { // 2^63
			return uint64(math.MaxInt64)
		}
		if r <= -9223372036854775808.0 {
			return 1 << 63
		}
		return uint64(int64(r))
	}
	lo, hi := IntRange(dt)
	v := int64(0)
	switch {
	case r <= float64(lo):
		v = lo
	case r >= float64(hi):
		v = hi
	default:
		v = int64(r)
	}
	return uint64(v) & sizeMask(dt)
}

// IntRange returns the range of a signed or unsigned integer dtype of at
// most 32 bits (and of int64; uint64's upper bound does not fit an int64:
// it is reported as math.MaxInt64).
func IntRange(dt bir.Dtype) (lo, hi int64) {
	switch dt {
	case bir.Int8:
		return math.MinInt8, math.MaxInt8
	case bir.Uint8:
		return 0, math.MaxUint8
	case bir.Int16:
		return math.MinInt16, math.MaxInt16
	case bir.Uint16:
		return 0, math.MaxUint16
	case bir.Int32:
		return math.MinInt32, math.MaxInt32
	case bir.Uint32:
		return 0, math.MaxUint32
	case bir.Int64:
		return math.MinInt64, math.MaxInt64
	case bir.Uint64:
		return 0, math.MaxInt64
	}
	return 0, 0
}

func sizeMask(dt bir.Dtype) uint64 {
	s := dt.Size()
	if s >= 8 {
		return math.MaxUint64
	}
	return 1<<(8*uint(s)) - 1
}

// WrapInt converts an integer to dtype dt.
//
// CHOICE (semantics.md §4.10 and §4.11): for an integer dtype the value is
// truncated to the dtype's width (two's complement wrap), as a memset of an
// integer immediate and iota's int32 results do; for a float dtype it is
// converted numerically (IntToFloat32, then RNE to the format). Packed
// dtypes: ok is false.
func WrapInt(dt bir.Dtype, v int64) (uint64, bool) {
	if IsInt(dt) {
		return uint64(v) & sizeMask(dt), true
	}
	return FromFloat32(dt, IntToFloat32(v))
}

// Convert casts the elements of src (dtype st) into dst (dtype dt), the DMA
// rule of semantics.md §4.1: a raw copy when the dtypes are equal, else each
// element goes src -> fp32 -> dst. len(src)/st.Size() elements are
// converted; dst must hold as many elements of dt. Packed dtypes convert
// only to themselves.
func Convert(dst []byte, dt bir.Dtype, src []byte, st bir.Dtype) error {
	if !dt.Valid() || !st.Valid() {
		return fmt.Errorf("numeric: convert %s to %s: invalid dtype", st, dt)
	}
	ss, ds := int(st.Size()), int(dt.Size())
	if len(src)%ss != 0 {
		return fmt.Errorf("numeric: convert %s to %s: source length %d is not a multiple of %d", st, dt, len(src), ss)
	}
	n := len(src) / ss
	if len(dst) < n*ds {
		return fmt.Errorf("numeric: convert %d %s elements to %s: destination holds %d bytes, want %d", n, st, dt, len(dst), n*ds)
	}
	if st == dt {
		copy(dst, src)
		return nil
	}
	if Packed(st) || Packed(dt) {
		return fmt.Errorf("numeric: convert %s to %s: x4-packed dtypes are only copied raw", st, dt)
	}
	for i := range n {
		f, _ := ToFloat32(st, LoadBits(st, src[i*ss:]))
		v, _ := FromFloat32(dt, f)
		StoreBits(dt, dst[i*ds:], v)
	}
	return nil
}

// PackLanes packs four values of the lane format of a packed dtype into one
// element (lane 0 in the lowest bits), rounding each with the format's
// rules. It is how host code builds x4-packed data (RandomInputs).
func PackLanes(dt bir.Dtype, vals [4]float32) (uint64, bool) {
	f, n := PackedLane(dt)
	if f == nil {
		return 0, false
	}
	w := f.Bits()
	var out uint64
	for i := range n {
		out |= f.Encode(float64(vals[i]), DefaultSaturate) << (uint(i) * w)
	}
	return out, true
}

// UnpackLanes returns the four values packed in an element of a packed
// dtype.
func UnpackLanes(dt bir.Dtype, bits uint64) ([4]float64, bool) {
	var out [4]float64
	f, n := PackedLane(dt)
	if f == nil {
		return out, false
	}
	w := f.Bits()
	for i := range n {
		out[i] = f.Decode(bits >> (uint(i) * w) & (1<<w - 1))
	}
	return out, true
}
