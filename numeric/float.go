// Package numeric holds narwhal's exact element conversions: every dtype of
// the BIR dtype table to and from fp32 (the pipeline every Vector, Scalar and
// GpSimd computation runs through, ../shared/docs/semantics.md §1), the
// integer rules, and whole-buffer casts. The reference interpreter (package
// interp) and the .npy reader/writer share it, so a value means the same
// thing on the host and in the interpreter.
//
// Encodings (semantics.md §2; each CHOICE is one named function below so it
// can be changed in one place when hardware evidence arrives):
//
//	dtype            layout          bias  Inf  NaN                 overflow (default)
//	bfloat16         1.8.7           127   yes  exp=all-ones, m!=0  -> +-Inf
//	float16          1.5.10          15    yes  exp=all-ones, m!=0  -> +-Inf
//	float32r (tf32)  fp32 layout, low 13 mantissa bits zero        -> +-Inf
//	float8e5         1.5.2 (=e5m2)   15    yes  exp=all-ones, m!=0  -> +-Inf
//	float8_e4m3      1.4.3 IEEE      7     yes  exp=all-ones, m!=0  -> +-Inf
//	float8e4         1.4.3 IEEE      7     yes  (same as float8_e4m3)  -> +-Inf
//	float8_e4m3fn    1.4.3 fn        7     no   S.1111.111 only     -> NaN
//	float8e3         1.3.4 IEEE      3     yes  exp=all-ones, m!=0  -> +-Inf
//	fp4 e2m1fn       1.2.1 fn        1     no   none                saturate
//
// The IEEE-style fp8 formats follow ml_dtypes (float8_e5m2, float8_e4m3,
// float8_e3m4), the library the official NKI simulator stores low-precision
// data with (semantics.md §2 CHOICE). The legacy BIR names float8e4 and
// float8e3 have no public encoding: narwhal reads float8e4 as the IEEE-style
// e4m3 (semantics.md: "CHOICE IEEE-style (bias 7, Inf) as
// ml_dtypes.float8_e4m3") and float8e3 as ml_dtypes' float8_e3m4 (three
// exponent bits are what the name says; four mantissa bits fill the byte).
//
// Rounding is round-to-nearest-even everywhere, computed as if the exponent
// range were unbounded; a result whose magnitude exceeds the largest finite
// value of the format is an overflow and takes the format's overflow rule.
// So for e4m3fn 464 (the tie between 448 and the NaN code) rounds to 448 and
// anything above 464 overflows. Subnormals are produced and read exactly.
// Signed zeros are kept. NaN payloads: see QuietNaNPayload.
//
// Saturation: the QuantizeMx path of the hardware saturates ([U1]); the
// encoders take a saturate flag (overflow and +-Inf become the largest finite
// value of the right sign, NaN stays NaN). The interpreter's casts do not
// saturate (DefaultSaturate).
package numeric

import (
	"math"
)

// FloatFormat describes a small binary floating-point format.
type FloatFormat struct {
	Name    string
	ExpBits uint
	ManBits uint
	Bias    int
	// HasInf: the all-ones exponent with a zero mantissa is Inf and every
	// other all-ones-exponent code is NaN (IEEE style). Without Inf the
	// all-ones exponent is an ordinary binade, except for the NaN code of
	// an "fn" format (all-ones exponent and mantissa), if HasNaN.
	HasInf bool
	HasNaN bool
}

// The formats narwhal knows (see the package comment for the choices).
var (
	FmtBF16    = FloatFormat{Name: "bfloat16", ExpBits: 8, ManBits: 7, Bias: 127, HasInf: true, HasNaN: true}
	FmtF16     = FloatFormat{Name: "float16", ExpBits: 5, ManBits: 10, Bias: 15, HasInf: true, HasNaN: true}
	FmtE5M2    = FloatFormat{Name: "float8_e5m2", ExpBits: 5, ManBits: 2, Bias: 15, HasInf: true, HasNaN: true}
	FmtE4M3    = FloatFormat{Name: "float8_e4m3", ExpBits: 4, ManBits: 3, Bias: 7, HasInf: true, HasNaN: true}
	FmtE4M3FN  = FloatFormat{Name: "float8_e4m3fn", ExpBits: 4, ManBits: 3, Bias: 7, HasInf: false, HasNaN: true}
	FmtE3M4    = FloatFormat{Name: "float8_e3m4", ExpBits: 3, ManBits: 4, Bias: 3, HasInf: true, HasNaN: true}
	FmtE2M1FN  = FloatFormat{Name: "float4_e2m1fn", ExpBits: 2, ManBits: 1, Bias: 1, HasInf: false, HasNaN: false}
	allFormats = []*FloatFormat{&FmtBF16, &FmtF16, &FmtE5M2, &FmtE4M3, &FmtE4M3FN, &FmtE3M4, &FmtE2M1FN}
)

// Bits returns the total width of the format.
func (f *FloatFormat) Bits() uint { return 1 + f.ExpBits + f.ManBits }

func (f *FloatFormat) expMax() uint64  { return 1<<f.ExpBits - 1 }
func (f *FloatFormat) manMask() uint64 { return 1<<f.ManBits - 1 }
func (f *FloatFormat) signBit() uint64 { return 1 << (f.ExpBits + f.ManBits) }

// emin is the exponent of the smallest normal binade.
func (f *FloatFormat) emin() int { return 1 - f.Bias }

// emax is the exponent of the largest finite binade.
func (f *FloatFormat) emax() int {
	if f.HasInf {
		return int(f.expMax()) - 1 - f.Bias
	}
	return int(f.expMax()) - f.Bias
}

// MaxFinite returns the largest finite value of the format.
func (f *FloatFormat) MaxFinite() float64 {
	m := f.manMask()
	if !f.HasInf && f.HasNaN {
		m-- // the all-ones mantissa of the top binade is the NaN code
	}
	return math.Ldexp(1+float64(m)/float64(uint64(1)<<f.ManBits), f.emax())
}

// maxFiniteBits returns the code of +MaxFinite.
func (f *FloatFormat) maxFiniteBits() uint64 {
	if f.HasInf {
		return (f.expMax()-1)<<f.ManBits | f.manMask()
	}
	if f.HasNaN {
		return f.expMax()<<f.ManBits | (f.manMask() - 1)
	}
	return f.expMax()<<f.ManBits | f.manMask()
}

// Decode returns the exact value of code bits (bits above the format's width
// are ignored).
func (f *FloatFormat) Decode(bits uint64) float64 {
	neg := bits&f.signBit() != 0
	e := (bits >> f.ManBits) & f.expMax()
	m := bits & f.manMask()
	var v float64
	switch {
	case e == f.expMax() && f.HasInf:
		if m == 0 {
			v = math.Inf(1)
		} else {
			v = math.NaN()
		}
	case e == f.expMax() && !f.HasInf && f.HasNaN && m == f.manMask():
		v = math.NaN()
	case e == 0:
		v = math.Ldexp(float64(m), f.emin()-int(f.ManBits))
	default:
		v = math.Ldexp(float64(m|1<<f.ManBits), int(e)-f.Bias-int(f.ManBits))
	}
	if neg {
		v = -v
	}
	return v
}

// Encode rounds x (any float64; callers pass fp32 values) to the format with
// round-to-nearest-even and returns the code. Overflow, Inf and NaN follow
// the format's rules (see the package comment); saturate turns overflow and
// Inf into +-MaxFinite.
func (f *FloatFormat) Encode(x float64, saturate bool) uint64 {
	var sign uint64
	if math.Signbit(x) {
		sign = f.signBit()
		x = -x
	}
	if math.IsNaN(x) {
		return f.nanCode(sign, math.Float64bits(x))
	}
	if x == 0 {
		return sign
	}
	if math.IsInf(x, 1) {
		return sign | f.overflowCode(saturate)
	}
	// Quantum of x's binade (or of the subnormal range).
	_, exp := math.Frexp(x) // x = frac * 2^exp, frac in [0.5, 1)
	e := exp - 1            // x in [2^e, 2^(e+1))
	if e < f.emin() {
		e = f.emin()
	}
	qexp := e - int(f.ManBits)
	q := math.RoundToEven(math.Ldexp(x, -qexp)) // exact: scaling by a power of two
	r := math.Ldexp(q, qexp)
	if r > f.MaxFinite() {
		return sign | f.overflowCode(saturate)
	}
	if r == 0 {
		return sign
	}
	// Encode r exactly.
	_, exp = math.Frexp(r)
	e = exp - 1
	if e < f.emin() {
		return sign | uint64(math.Ldexp(r, int(f.ManBits)-f.emin())) // subnormal
	}
	m := uint64(math.Ldexp(r, int(f.ManBits)-e)) &^ (1 << f.ManBits)
	return sign | uint64(e+f.Bias)<<f.ManBits | m
}

// overflowCode is the code (without sign) of an overflowing or infinite
// value: FormatOverflow decides, per format.
func (f *FloatFormat) overflowCode(saturate bool) uint64 {
	switch FormatOverflow(f, saturate) {
	case OverflowToInf:
		return f.expMax() << f.ManBits
	case OverflowToNaN:
		return f.expMax()<<f.ManBits | f.manMask()
	default:
		return f.maxFiniteBits()
	}
}

// nanCode is the code of a NaN with the given sign and float64 bits.
func (f *FloatFormat) nanCode(sign uint64, x64 uint64) uint64 {
	if !f.HasNaN {
		return NaNWithoutCode(f, sign)
	}
	if !f.HasInf {
		return sign | f.expMax()<<f.ManBits | f.manMask() // the single fn NaN code
	}
	m := QuietNaNPayload(x64>>(52-f.ManBits)&f.manMask(), f.ManBits)
	return sign | f.expMax()<<f.ManBits | m
}

// OverflowRule is what a cast does with a value beyond the largest finite.
type OverflowRule uint8

const (
	OverflowToInf       OverflowRule = iota // +-Inf
	OverflowToNaN                           // the NaN code (formats without Inf)
	OverflowToMaxFinite                     // saturate to +-MaxFinite
)

// DefaultSaturate is whether the interpreter's casts saturate.
//
// CHOICE (semantics.md §2): casts do not saturate (ml_dtypes behaviour, what
// the NKI simulator stores with); only the QuantizeMx path saturates ([U1]),
// and narwhal has no instruction for it yet.
const DefaultSaturate = false

// FormatOverflow returns the overflow rule of format f.
//
// CHOICE (semantics.md §2, ml_dtypes behaviour): formats with Inf overflow
// to +-Inf (bf16, fp16, e5m2, e4m3, e3m4); float8_e4m3fn, which has no Inf,
// overflows to its NaN code S.1111.111; fp4 e2m1fn, which has neither Inf
// nor NaN, saturates. With saturate set every format saturates.
func FormatOverflow(f *FloatFormat, saturate bool) OverflowRule {
	switch {
	case saturate:
		return OverflowToMaxFinite
	case f.HasInf:
		return OverflowToInf
	case f.HasNaN:
		return OverflowToNaN
	}
	return OverflowToMaxFinite
}

// QuietNaNPayload returns the mantissa of a converted NaN from the top
// manBits bits of the source mantissa.
//
// CHOICE (semantics.md §2 "NaN kept"): the payload is truncated to the
// destination's mantissa width and the quiet bit (the top mantissa bit) is
// forced, so a NaN stays a NaN (a truncated signalling payload could
// otherwise become Inf) and as much of the payload as fits survives. The
// sign is kept. (Eigen/ml_dtypes instead squash bf16 NaNs to the canonical
// 0x7fc0; narwhal keeps the payload, which x86 BF16 conversions also do.)
func QuietNaNPayload(top uint64, manBits uint) uint64 {
	return top | 1<<(manBits-1)
}

// NaNWithoutCode returns the code a NaN converts to in a format that has
// no NaN (fp4 e2m1fn).
//
// CHOICE: +-0 with the NaN's sign. The x4-packed fp4 type is only ever raw
// copied or memset to zero by the interpreter (semantics.md §4.10), so this
// rule is reached only by host-side conversions.
func NaNWithoutCode(f *FloatFormat, sign uint64) uint64 { return sign }

// ---- fast paths for the 16- and 32-bit formats ----

// F32ToBF16 rounds an fp32 value to bfloat16 (RNE; overflow -> Inf; NaN
// payload truncated with the quiet bit forced).
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN
		return uint16(b>>16)&0xff80 | uint16(QuietNaNPayload(uint64(b>>16)&0x7f, 7))
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToF32 widens a bfloat16 code exactly.
func BF16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// F32ToF16 rounds an fp32 value to IEEE half precision (RNE; overflow ->
// Inf; subnormals produced; NaN payload truncated with the quiet bit forced).
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	e := int((b >> 23) & 0xff)
	m := b & 0x7fffff
	if e == 0xff {
		if m == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7c00 | uint16(QuietNaNPayload(uint64(m>>13), 10))
	}
	// Unbiased exponent; fp32 subnormals are far below fp16's range.
	ue := e - 127
	if e == 0 {
		return sign // |f| < 2^-126: rounds to zero in fp16
	}
	full := m | 0x800000 // 24-bit significand, value = full * 2^(ue-23)
	if ue >= -14 {
		// Normal range: keep 10 mantissa bits, drop 13.
		r := full >> 13
		rem := full & 0x1fff
		if rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
			r++
		}
		// r is in [1024, 2048]; 2048 carries into the exponent.
		he := ue + 15
		if r == 2048 {
			r = 1024
			he++
		}
		if he >= 31 {
			return sign | 0x7c00
		}
		return sign | uint16(he)<<10 | uint16(r&0x3ff)
	}
	// Subnormal range: value = r * 2^-24.
	shift := uint(-14-ue) + 13 // bits to drop from full
	if shift > 24 {
		return sign // below half the smallest subnormal
	}
	r := full >> shift
	rem := full & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && r&1 == 1) {
		r++
	}
	return sign | uint16(r) // r == 1024 becomes the smallest normal, correctly
}

// F16ToF32 widens an IEEE half code exactly.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	e := uint32(h>>10) & 0x1f
	m := uint32(h & 0x3ff)
	switch {
	case e == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | m<<13)
	case e == 0:
		if m == 0 {
			return math.Float32frombits(sign)
		}
		v := float32(m) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (e+112)<<23 | m<<13)
}

// F32ToTF32 rounds an fp32 value to tfloat32 (float32r): RNE to 10 mantissa
// bits, the low 13 bits zero, stored in the fp32 layout.
//
// CHOICE (semantics.md §2): RNE; overflow -> Inf; NaN keeps the top 10
// payload bits with the quiet bit forced.
func F32ToTF32(f float32) uint32 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return b&0xff800000 | uint32(QuietNaNPayload(uint64(b>>13)&0x3ff, 10))<<13
	}
	b += 0xfff + (b>>13)&1
	return b &^ 0x1fff
}
