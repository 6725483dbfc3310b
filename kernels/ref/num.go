// Package ref holds the host-side numerics that narwhal's plain-Go
// reference implementations, the pass-test harness and `narwhal run
// --check` share: decoding an element of any narwhal dtype to a float,
// encoding a float into a dtype with the rounding rules of
// ../shared/docs/semantics.md §2, and comparing two tensors bit for bit or
// within a stated tolerance, reporting the first mismatch.
//
// It is deliberately independent of package interp: a reference kernel that
// used the interpreter's own conversions would share its bugs. Only the
// interp.Tensor container type is shared.
//
// Conversions (semantics.md §2, the CHOICEs made there):
//
//   - float -> narrower float: round to nearest, ties to even (RNE);
//     overflow goes to ±Inf for formats with an infinity and to NaN for
//     float8_e4m3fn (no infinity, ml_dtypes behaviour); subnormals are kept;
//     NaN stays NaN (the quiet NaN with the sign of the input).
//   - float -> integer: RNE, saturating to the type's range, NaN -> 0.
//   - float32r (tfloat32): RNE to 10 mantissa bits, stored as an fp32 bit
//     pattern whose low 13 bits are zero.
//   - float8e3 and float8e4 (the seeds' older spellings) and the packed x4
//     formats have no documented encoding; Float reports them as not
//     decodable and callers fall back to comparing raw bits.
package ref

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
)

// miniFloat describes a binary floating-point format narrower than fp64.
type miniFloat struct {
	ebits, mbits int
	bias         int
	hasInf       bool // the all-ones exponent with zero mantissa is ±Inf
	fnNaN        bool // e4m3fn: no Inf; only S.1111.111 is NaN, all-ones exponent otherwise finite
}

var (
	fmtF16   = miniFloat{ebits: 5, mbits: 10, bias: 15, hasInf: true}
	fmtBF16  = miniFloat{ebits: 8, mbits: 7, bias: 127, hasInf: true}
	fmtTF32  = miniFloat{ebits: 8, mbits: 10, bias: 127, hasInf: true}
	fmtE4M3  = miniFloat{ebits: 4, mbits: 3, bias: 7, hasInf: true}
	fmtE4M3F = miniFloat{ebits: 4, mbits: 3, bias: 7, fnNaN: true}
	fmtE5M2  = miniFloat{ebits: 5, mbits: 2, bias: 15, hasInf: true}
)

// maxFinite returns the largest finite value of the format.
func (f miniFloat) maxFinite() float64 {
	emax := (1 << f.ebits) - 1 - f.bias // all-ones exponent field
	if f.hasInf {
		emax-- // all-ones is Inf/NaN
		return (2 - math.Ldexp(1, -f.mbits)) * math.Ldexp(1, emax)
	}
	// fn formats: all-ones exponent is finite except mantissa all ones (NaN).
	return (2 - math.Ldexp(1, 1-f.mbits)) * math.Ldexp(1, emax)
}

// decode converts the format's bits (right-aligned) to a float64.
func (f miniFloat) decode(bits uint32) float64 {
	sign := bits >> (f.ebits + f.mbits) & 1
	e := int(bits>>f.mbits) & (1<<f.ebits - 1)
	m := bits & (1<<f.mbits - 1)
	var v float64
	switch {
	case e == 1<<f.ebits-1 && f.hasInf:
		if m == 0 {
			v = math.Inf(1)
		} else {
			v = math.NaN()
		}
	case e == 1<<f.ebits-1 && f.fnNaN && m == 1<<f.mbits-1:
		v = math.NaN()
	case e == 0:
		v = math.Ldexp(float64(m), 1-f.bias-f.mbits)
	default:
		v = math.Ldexp(float64(m|1<<f.mbits), e-f.bias-f.mbits)
	}
	if sign != 0 {
		v = -v
	}
	return v
}

// encode rounds v to the format (RNE) and returns its bits, right-aligned.
func (f miniFloat) encode(v float64) uint32 {
	signBit := uint32(1) << (f.ebits + f.mbits)
	var sign uint32
	if math.Signbit(v) {
		sign = signBit
	}
	expAll := uint32(1<<f.ebits-1) << f.mbits
	manAll := uint32(1<<f.mbits - 1)
	nan := sign | expAll | manAll // quiet NaN (all mantissa bits) for both families
	if math.IsNaN(v) {
		return nan
	}
	a := math.Abs(v)
	overflow := func() uint32 {
		if f.hasInf {
			return sign | expAll
		}
		return nan
	}
	if math.IsInf(a, 0) {
		return overflow()
	}
	if a == 0 {
		return sign
	}
	emin := 1 - f.bias
	_, exp := math.Frexp(a) // a = fr * 2^exp, fr in [0.5, 1)
	e := exp - 1
	if e < emin {
		e = emin // subnormal range: fixed quantum
	}
	quantum := math.Ldexp(1, e-f.mbits)
	r := math.RoundToEven(a / quantum) // a/quantum is exact (power-of-two scaling)
	val := r * quantum
	if val > f.maxFinite() {
		return overflow()
	}
	if val < math.Ldexp(1, emin) {
		return sign | uint32(r) // subnormal (or rounded to zero): mantissa only
	}
	_, exp2 := math.Frexp(val)
	e2 := exp2 - 1
	man := uint32(math.Ldexp(val, f.mbits-e2)) - 1<<f.mbits
	return sign | uint32(e2+f.bias)<<f.mbits | man
}

// format returns the float format of dt, if it is one narwhal decodes.
func format(dt bir.Dtype) (miniFloat, bool) {
	switch dt {
	case bir.Float16:
		return fmtF16, true
	case bir.BFloat16:
		return fmtBF16, true
	case bir.Float8E4M3:
		return fmtE4M3, true
	case bir.Float8E4M3FN:
		return fmtE4M3F, true
	case bir.Float8E5:
		return fmtE5M2, true
	}
	return miniFloat{}, false
}

// Decodable reports whether Float can decode elements of dt.
func Decodable(dt bir.Dtype) bool {
	switch dt {
	case bir.Float32, bir.Float32R, bir.Int8, bir.Uint8, bir.Int16, bir.Uint16,
		bir.Int32, bir.Uint32, bir.Int64, bir.Uint64:
		return true
	}
	_, ok := format(dt)
	return ok
}

// Float decodes the element of dtype dt at the start of b. ok is false for
// dtypes without a documented encoding (see the package comment) or when b
// is too short.
func Float(dt bir.Dtype, b []byte) (v float64, ok bool) {
	if int64(len(b)) < dt.Size() || dt.Size() == 0 {
		return 0, false
	}
	le := binary.LittleEndian
	switch dt {
	case bir.Float32, bir.Float32R:
		return float64(math.Float32frombits(le.Uint32(b))), true
	case bir.Int8:
		return float64(int8(b[0])), true
	case bir.Uint8:
		return float64(b[0]), true
	case bir.Int16:
		return float64(int16(le.Uint16(b))), true
	case bir.Uint16:
		return float64(le.Uint16(b)), true
	case bir.Int32:
		return float64(int32(le.Uint32(b))), true
	case bir.Uint32:
		return float64(le.Uint32(b)), true
	case bir.Int64:
		return float64(int64(le.Uint64(b))), true
	case bir.Uint64:
		return float64(le.Uint64(b)), true
	}
	f, ok := format(dt)
	if !ok {
		return 0, false
	}
	if dt.Size() == 1 {
		return f.decode(uint32(b[0])), true
	}
	return f.decode(uint32(le.Uint16(b))), true
}

// Float32 decodes an element as the fp32 value the engines compute with
// (semantics.md §1: every input is converted to fp32 first; 8- and 16-bit
// formats convert exactly, 32-bit integers round to nearest even).
func Float32(dt bir.Dtype, b []byte) (float32, bool) {
	if dt == bir.Float32 || dt == bir.Float32R {
		if len(b) < 4 {
			return 0, false
		}
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), true
	}
	v, ok := Float(dt, b)
	return float32(v), ok
}

// Put encodes v into the element of dtype dt at the start of b (which must
// hold dt.Size() bytes) with the conversion rules of the package comment.
func Put(dt bir.Dtype, b []byte, v float64) error {
	if int64(len(b)) < dt.Size() {
		return fmt.Errorf("ref.Put: %d bytes for a %s element", len(b), dt)
	}
	le := binary.LittleEndian
	switch dt {
	case bir.Float32:
		le.PutUint32(b, math.Float32bits(float32(v)))
		return nil
	case bir.Float32R:
		le.PutUint32(b, fmtTF32.encode(v)<<13)
		return nil
	case bir.Int8:
		b[0] = byte(int8(toInt(v, math.MinInt8, math.MaxInt8)))
		return nil
	case bir.Uint8:
		b[0] = byte(toInt(v, 0, math.MaxUint8))
		return nil
	case bir.Int16:
		le.PutUint16(b, uint16(int16(toInt(v, math.MinInt16, math.MaxInt16))))
		return nil
	case bir.Uint16:
		le.PutUint16(b, uint16(toInt(v, 0, math.MaxUint16)))
		return nil
	case bir.Int32:
		le.PutUint32(b, uint32(int32(toInt(v, math.MinInt32, math.MaxInt32))))
		return nil
	case bir.Uint32:
		le.PutUint32(b, uint32(toInt(v, 0, math.MaxUint32)))
		return nil
	case bir.Int64:
		le.PutUint64(b, uint64(toInt(v, math.MinInt64, math.MaxInt64)))
		return nil
	case bir.Uint64:
		switch {
		case math.IsNaN(v) || v <= 0:
			le.PutUint64(b, 0)
		case v >= 1<<64:
			le.PutUint64(b, math.MaxUint64)
		default:
			le.PutUint64(b, uint64(math.RoundToEven(v)))
		}
		return nil
	}
	f, ok := format(dt)
	if !ok {
		return fmt.Errorf("ref.Put: dtype %s has no documented encoding", dt)
	}
	if dt.Size() == 1 {
		b[0] = byte(f.encode(v))
	} else {
		le.PutUint16(b, uint16(f.encode(v)))
	}
	return nil
}

// toInt rounds to nearest even and saturates to [lo, hi]; NaN gives 0.
func toInt(v float64, lo, hi int64) int64 {
	if math.IsNaN(v) {
		return 0
	}
	r := math.RoundToEven(v)
	if r <= float64(lo) {
		return lo
	}
	if r >= float64(hi) {
		return hi
	}
	return int64(r)
}

// Round returns v rounded to dtype dt and decoded back: the value an
// element of dt holds after Put(v).
func Round(dt bir.Dtype, v float64) float64 {
	var b [8]byte
	if Put(dt, b[:], v) != nil {
		return v
	}
	r, _ := Float(dt, b[:])
	return r
}

// Floats decodes every element of t.
func Floats(t *interp.Tensor) ([]float64, error) { return decodeAll(t, Float) }

// decodeAll decodes every element of t with dec (Float or Float32).
func decodeAll[T float32 | float64](t *interp.Tensor, dec func(bir.Dtype, []byte) (T, bool)) ([]T, error) {
	if !Decodable(t.Dtype) {
		return nil, fmt.Errorf("tensor %s: dtype %s cannot be decoded to numbers", t.Name, t.Dtype)
	}
	n := t.NumElements()
	sz := t.Dtype.Size()
	if int64(len(t.Data)) != n*sz {
		return nil, fmt.Errorf("tensor %s: %d data bytes, want %d (%d elements of %s)", t.Name, len(t.Data), n*sz, n, t.Dtype)
	}
	out := make([]T, n)
	for i := range out {
		out[i], _ = dec(t.Dtype, t.Data[int64(i)*sz:])
	}
	return out, nil
}

// FromFloats builds a tensor of dtype dt holding vals rounded with Put.
func FromFloats(name string, dt bir.Dtype, shape []int64, vals []float64) (*interp.Tensor, error) {
	t := &interp.Tensor{Name: name, Dtype: dt, Shape: append([]int64(nil), shape...)}
	if int64(len(vals)) != t.NumElements() {
		return nil, fmt.Errorf("tensor %s: %d values for shape %v", name, len(vals), shape)
	}
	sz := dt.Size()
	t.Data = make([]byte, int64(len(vals))*sz)
	for i, v := range vals {
		if err := Put(dt, t.Data[int64(i)*sz:], v); err != nil {
			return nil, fmt.Errorf("tensor %s: %w", name, err)
		}
	}
	return t, nil
}

// FromFloat32s is FromFloats for fp32 results of an fp32 pipeline: each
// value is cast once to dt (exact for float32).
func FromFloat32s(name string, dt bir.Dtype, shape []int64, vals []float32) (*interp.Tensor, error) {
	f := make([]float64, len(vals))
	for i, v := range vals {
		f[i] = float64(v)
	}
	return FromFloats(name, dt, shape, f)
}

// Float32s decodes every element of t to the fp32 value the engines
// compute with.
func Float32s(t *interp.Tensor) ([]float32, error) { return decodeAll(t, Float32) }

// UnitRoundoff returns the relative spacing of dt's values (one ulp at 1.0,
// 2^-p+1 for a p-bit significand): the most two correctly rounded results of
// nearby exact values can differ by, relative to their magnitude. 0 for
// integer and undecodable dtypes.
func UnitRoundoff(dt bir.Dtype) float64 {
	switch dt {
	case bir.Float32:
		return math.Ldexp(1, -23)
	case bir.Float32R:
		return math.Ldexp(1, -10)
	}
	if f, ok := format(dt); ok {
		return math.Ldexp(1, -f.mbits)
	}
	return 0
}
