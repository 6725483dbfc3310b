package numeric

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func f32(b uint32) float32 { return math.Float32frombits(b) }

func TestF32ToBF16_Boundaries(t *testing.T) {
	cases := []struct {
		name string
		in   uint32
		want uint16
	}{
		{"one", 0x3f800000, 0x3f80},
		{"tie to even (down)", 0x3f808000, 0x3f80},
		{"tie to even (up)", 0x3f818000, 0x3f82},
		{"above tie", 0x3f808001, 0x3f81},
		{"-0", 0x80000000, 0x8000},
		{"+0", 0, 0},
		{"max fp32 overflows to inf", 0x7f7fffff, 0x7f80},
		{"tie at the top rounds to inf", 0x7f7f8000, 0x7f80},
		{"just below the top tie", 0x7f7f7fff, 0x7f7f},
		{"-inf", 0xff800000, 0xff80},
		{"subnormal exact", 0x00010000, 0x0001},
		{"subnormal tie to even zero", 0x00008000, 0x0000},
		{"subnormal tie to even up", 0x00018000, 0x0002},
		{"quiet NaN", 0x7fc00000, 0x7fc0},
		{"negative NaN", 0xffc00001, 0xffc0},
		{"signalling NaN keeps payload, quiet forced", 0x7fa00001, 0x7fe0},
		{"NaN whose payload truncates to zero stays NaN", 0x7f800001, 0x7fc0},
	}
	for _, c := range cases {
		if got := F32ToBF16(f32(c.in)); got != c.want {
			t.Errorf("%s: F32ToBF16(%#08x) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
}

func TestF32ToF16_Boundaries(t *testing.T) {
	cases := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3c00},
		{"max finite", 65504, 0x7bff},
		{"below overflow tie", 65519, 0x7bff},
		{"overflow tie rounds to inf", 65520, 0x7c00},
		{"-overflow", -1e6, 0xfc00},
		{"smallest subnormal", float32(math.Ldexp(1, -24)), 0x0001},
		{"half the smallest subnormal ties to zero", float32(math.Ldexp(1, -25)), 0x0000},
		{"1.5 smallest subnormal ties to 2", float32(math.Ldexp(3, -25)), 0x0002},
		{"above half the smallest subnormal", float32(math.Ldexp(1.5, -25)), 0x0001},
		{"largest subnormal tie rounds to smallest normal", float32(math.Ldexp(2047, -25)), 0x0400},
		{"largest subnormal", float32(math.Ldexp(1023, -24)), 0x03ff},
		{"tie to even at one", float32(1 + math.Ldexp(1, -11)), 0x3c00},
		{"tie to even up", float32(1 + math.Ldexp(3, -11)), 0x3c02},
		{"-0", float32(math.Copysign(0, -1)), 0x8000},
		{"tiny to zero", 1e-30, 0},
		{"-tiny to -0", -1e-30, 0x8000},
		{"inf", float32(math.Inf(1)), 0x7c00},
		{"NaN", f32(0x7fc00000), 0x7e00},
		{"NaN payload", f32(0x7fa02000), 0x7f01},
		{"-NaN", f32(0xff800001), 0xfe00},
	}
	for _, c := range cases {
		if got := F32ToF16(c.in); got != c.want {
			t.Errorf("%s: F32ToF16(%g) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
}

// The fast bf16/fp16 paths agree with the generic encoder on random and
// structured inputs (both round half to even; the generic path is the
// readable definition).
func TestFastPaths_MatchGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(b uint32) {
		x := f32(b)
		if x != x {
			return
		}
		if got, want := F32ToBF16(x), uint16(FmtBF16.Encode(float64(x), false)); got != want {
			t.Fatalf("bf16 of %#08x: fast %#04x, generic %#04x", b, got, want)
		}
		if got, want := F32ToF16(x), uint16(FmtF16.Encode(float64(x), false)); got != want {
			t.Fatalf("f16 of %#08x (%g): fast %#04x, generic %#04x", b, x, got, want)
		}
	}
	for range 200000 {
		check(r.Uint32())
	}
	// Every fp16 code, its neighbours and midpoints.
	for c := range 0x10000 {
		v := F16ToF32(uint16(c))
		b := math.Float32bits(v)
		for d := uint32(0); d < 3; d++ {
			check(b + d<<12)
			check(b - d<<12)
		}
		check(b + 1<<12) // midpoint for normals
	}
}

func TestRoundTrip_AllCodes(t *testing.T) {
	for _, f := range allFormats {
		n := uint64(1) << f.Bits()
		for c := range n {
			v := f.Decode(c)
			got := f.Encode(v, false)
			if math.IsNaN(v) {
				if !math.IsNaN(f.Decode(got)) {
					t.Errorf("%s: NaN code %#x re-encodes to non-NaN %#x", f.Name, c, got)
				}
				continue
			}
			if got != c {
				t.Errorf("%s: code %#x (%g) re-encodes to %#x", f.Name, c, v, got)
			}
		}
	}
	for c := range 0x10000 {
		h := uint16(c)
		if v := BF16ToF32(h); v == v {
			if got := F32ToBF16(v); got != h {
				t.Errorf("bf16 %#04x round trip -> %#04x", h, got)
			}
		}
		if v := F16ToF32(h); v == v {
			if got := F32ToF16(v); got != h {
				t.Errorf("f16 %#04x round trip -> %#04x", h, got)
			}
		}
	}
}

func TestFP8_Boundaries(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		f    *FloatFormat
		in   float64
		sat  bool
		want uint64
	}{
		// float8_e4m3fn: max 448, no Inf, NaN = S.1111.111.
		{&FmtE4M3FN, 448, false, 0x7e},
		{&FmtE4M3FN, 464, false, 0x7e}, // tie between 448 and the NaN code: even
		{&FmtE4M3FN, 465, false, 0x7f}, // overflow -> NaN
		{&FmtE4M3FN, inf, false, 0x7f},
		{&FmtE4M3FN, -inf, false, 0xff},
		{&FmtE4M3FN, 1000, true, 0x7e}, // saturate
		{&FmtE4M3FN, -inf, true, 0xfe},
		{&FmtE4M3FN, math.Ldexp(1, -9), false, 0x01}, // smallest subnormal
		{&FmtE4M3FN, math.Ldexp(1, -10), false, 0x00},
		{&FmtE4M3FN, math.Ldexp(3, -10), false, 0x02},
		{&FmtE4M3FN, math.Copysign(0, -1), false, 0x80},
		{&FmtE4M3FN, math.NaN(), false, 0x7f},
		{&FmtE4M3FN, math.NaN(), true, 0x7f},
		// float8_e4m3 (IEEE style): max 240, Inf 0x78.
		{&FmtE4M3, 240, false, 0x77},
		{&FmtE4M3, 247, false, 0x77},
		{&FmtE4M3, 248, false, 0x78}, // tie between 240 (odd) and 256 -> Inf
		{&FmtE4M3, inf, false, 0x78},
		{&FmtE4M3, 248, true, 0x77},
		{&FmtE4M3, math.NaN(), false, 0x7c},
		{&FmtE4M3, 1.0625, false, 0x38}, // tie 1.0/1.125 -> 1.0 (even)
		{&FmtE4M3, 1.1875, false, 0x3a}, // tie 1.125/1.25 -> 1.25 (even)
		// float8e5 (e5m2): max 57344.
		{&FmtE5M2, 57344, false, 0x7b},
		{&FmtE5M2, 61440, false, 0x7c}, // tie -> Inf
		{&FmtE5M2, 61439, false, 0x7b},
		{&FmtE5M2, math.Ldexp(1, -16), false, 0x01},
		{&FmtE5M2, math.NaN(), false, 0x7e},
		{&FmtE5M2, -1e9, true, 0xfb},
		// float8e3 (e3m4): bias 3, max 15.5.
		{&FmtE3M4, 15.5, false, 0x6f},
		{&FmtE3M4, 15.75, false, 0x70}, // tie -> Inf
		{&FmtE3M4, math.Ldexp(1, -6), false, 0x01},
		{&FmtE3M4, 1, false, 0x30},
		// fp4 e2m1fn: 0 .5 1 1.5 2 3 4 6, saturating.
		{&FmtE2M1FN, 5, false, 0x6}, // tie 4/6 -> 4
		{&FmtE2M1FN, 7, false, 0x7},
		{&FmtE2M1FN, -100, false, 0xf},
		{&FmtE2M1FN, 0.25, false, 0x0}, // tie 0/0.5 -> 0
		{&FmtE2M1FN, 0.75, false, 0x2}, // tie 0.5/1 -> 1
	}
	for _, c := range cases {
		if got := c.f.Encode(c.in, c.sat); got != c.want {
			t.Errorf("%s.Encode(%g, sat=%v) = %#x, want %#x", c.f.Name, c.in, c.sat, got, c.want)
		}
	}
	if got := FmtE4M3FN.MaxFinite(); got != 448 {
		t.Errorf("e4m3fn max = %g", got)
	}
	if got := FmtE4M3.MaxFinite(); got != 240 {
		t.Errorf("e4m3 max = %g", got)
	}
	if got := FmtE5M2.MaxFinite(); got != 57344 {
		t.Errorf("e5m2 max = %g", got)
	}
	if got := FmtE2M1FN.MaxFinite(); got != 6 {
		t.Errorf("e2m1fn max = %g", got)
	}
}

func TestFP8_NaNPayloadWidens(t *testing.T) {
	// e5m2 NaN 0x7d (signalling payload 01) reads as an fp32 NaN; the sign is kept.
	v, ok := ToFloat32(bir.Float8E5, 0xfd)
	if !ok || v == v || math.Float32bits(v)>>31 != 1 {
		t.Fatalf("e5m2 0xfd -> %#08x", math.Float32bits(v))
	}
	bits, _ := FromFloat32(bir.Float8E5, v)
	if bits != 0xff { // payload 01 with the quiet bit forced: 11
		t.Errorf("e5m2 NaN round trip: %#x, want 0xff", bits)
	}
}

func TestF32ToTF32(t *testing.T) {
	cases := []struct {
		in   float32
		want uint32
	}{
		{1, 0x3f800000},
		{float32(1 + math.Ldexp(1, -11)), 0x3f800000}, // tie -> even
		{float32(1 + math.Ldexp(3, -11)), 0x3f804000}, // tie -> even (up)
		{float32(1 + math.Ldexp(1, -10)), 0x3f802000}, // exact
		{f32(0x7f7fffff), 0x7f800000},                 // overflow -> Inf
		{f32(0x7fa00001), 0x7fe00000},                 // NaN: quiet forced, low bits cleared
		{f32(0x80000000), 0x80000000},                 // -0
		{f32(0x00001000), 0x00000000},                 // subnormal tie -> 0
		{f32(0x00003000), 0x00004000},                 // subnormal tie -> even
	}
	for _, c := range cases {
		if got := F32ToTF32(c.in); got != c.want {
			t.Errorf("F32ToTF32(%#08x) = %#08x, want %#08x", math.Float32bits(c.in), got, c.want)
		}
	}
}

func TestFloatToInt(t *testing.T) {
	cases := []struct {
		dt   bir.Dtype
		in   float32
		want int64
	}{
		{bir.Int32, 2.5, 2},
		{bir.Int32, 3.5, 4},
		{bir.Int32, -2.5, -2},
		{bir.Int32, -3.5, -4},
		{bir.Int8, 300, 127},
		{bir.Int8, -300, -128},
		{bir.Int8, 127.5, 127},
		{bir.Uint8, -1, 0},
		{bir.Uint8, 255.5, 255},
		{bir.Uint8, 254.5, 254},
		{bir.Int16, 40000, 32767},
		{bir.Uint16, 70000, 65535},
		{bir.Int32, 2147483648, 2147483647},
		{bir.Int32, -2147483648, -2147483648},
		{bir.Int32, float32(math.NaN()), 0},
		{bir.Int32, float32(math.Inf(1)), 2147483647},
		{bir.Int32, float32(math.Inf(-1)), -2147483648},
		{bir.Uint32, 4294967296, 4294967295},
		{bir.Int64, 1e19, math.MaxInt64},
		{bir.Int64, -1e19, math.MinInt64},
		{bir.Int32, float32(math.Copysign(0, -1)), 0},
	}
	for _, c := range cases {
		got := Int64Of(c.dt, FloatToInt(c.dt, c.in))
		if got != c.want {
			t.Errorf("FloatToInt(%s, %g) = %d, want %d", c.dt, c.in, got, c.want)
		}
	}
	if got := FloatToInt(bir.Uint64, 2e19); got != math.MaxUint64 {
		t.Errorf("uint64 saturation: %d", got)
	}
	if got := FloatToInt(bir.Uint64, 1e19); got != 9999999980506447872 { // float32(1e19)
		t.Errorf("uint64 1e19: %d", got)
	}
}

func TestIntToFloat32(t *testing.T) {
	cases := []struct {
		in   int64
		want float32
	}{
		{16777216, 16777216},
		{16777217, 16777216}, // tie -> even
		{16777219, 16777220}, // tie -> even
		{16777218, 16777218},
		{-16777217, -16777216},
		{math.MaxInt32, 2147483648},
		{math.MinInt64, -9223372036854775808},
	}
	for _, c := range cases {
		if got := IntToFloat32(c.in); got != c.want {
			t.Errorf("IntToFloat32(%d) = %g, want %g", c.in, got, c.want)
		}
	}
	if got := Uint64ToFloat32(math.MaxUint64); got != 18446744073709551616 {
		t.Errorf("Uint64ToFloat32(max) = %g", got)
	}
	// int32 read -> fp32 goes through the same rule.
	if v, _ := ToFloat32(bir.Int32, uint64(uint32(16777217))); v != 16777216 {
		t.Errorf("int32 16777217 reads as %g", v)
	}
	if v, _ := ToFloat32(bir.Uint32, 0xffffffff); v != 4294967296 {
		t.Errorf("uint32 max reads as %g", v)
	}
	if v, _ := ToFloat32(bir.Int8, 0xff); v != -1 {
		t.Errorf("int8 0xff reads as %g", v)
	}
}

func TestWrapInt(t *testing.T) {
	cases := []struct {
		dt   bir.Dtype
		in   int64
		want uint64
	}{
		{bir.Int8, 300, 44},
		{bir.Int8, -1, 0xff},
		{bir.Uint8, -1, 0xff},
		{bir.Uint16, 65537, 1},
		{bir.Int32, 1 << 32, 0},
		{bir.Float32, 16777217, uint64(math.Float32bits(16777216))},
		{bir.BFloat16, 3, 0x4040},
	}
	for _, c := range cases {
		got, ok := WrapInt(c.dt, c.in)
		if !ok || got != c.want {
			t.Errorf("WrapInt(%s, %d) = %#x, %v; want %#x", c.dt, c.in, got, ok, c.want)
		}
	}
	if _, ok := WrapInt(bir.Float8E5M2x4, 0); ok {
		t.Error("WrapInt on a packed dtype succeeded")
	}
}

func TestConvert(t *testing.T) {
	src := make([]byte, 8)
	StoreBits(bir.Float32, src, uint64(math.Float32bits(1.00390625))) // 1 + 2^-8: bf16 tie
	StoreBits(bir.Float32, src[4:], uint64(math.Float32bits(-3)))
	dst := make([]byte, 4)
	if err := Convert(dst, bir.BFloat16, src, bir.Float32); err != nil {
		t.Fatal(err)
	}
	if a, b := LoadBits(bir.BFloat16, dst), LoadBits(bir.BFloat16, dst[2:]); a != 0x3f80 || b != 0xc040 {
		t.Errorf("fp32->bf16: %#x %#x", a, b)
	}
	raw := []byte{1, 2, 3, 4}
	out := make([]byte, 4)
	if err := Convert(out, bir.Float8E5M2x4, raw, bir.Float8E5M2x4); err != nil || string(out) != string(raw) {
		t.Errorf("packed raw copy: %v %v", out, err)
	}
	if err := Convert(out, bir.Float32, raw, bir.Float8E5M2x4); err == nil {
		t.Error("packed -> fp32 conversion succeeded")
	}
	if err := Convert(out[:1], bir.Float32, src, bir.Float32); err == nil {
		t.Error("short destination accepted")
	}
}

func TestPackLanes(t *testing.T) {
	bits, ok := PackLanes(bir.Float4E2M1FNx4, [4]float32{0.5, 1, -6, 3})
	if !ok || bits != 0x5f21 {
		t.Fatalf("PackLanes fp4 = %#x, %v", bits, ok)
	}
	vals, _ := UnpackLanes(bir.Float4E2M1FNx4, bits)
	if vals != [4]float64{0.5, 1, -6, 3} {
		t.Errorf("UnpackLanes = %v", vals)
	}
}

func TestFromFloat32_AllDtypes(t *testing.T) {
	for d := bir.Dtype(0); d < bir.NumDtypes; d++ {
		bits, ok := FromFloat32(d, 1)
		if Packed(d) {
			if ok {
				t.Errorf("%s: packed dtype converted", d)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: not converted", d)
			continue
		}
		if v, _ := ToFloat32(d, bits); v != 1 {
			t.Errorf("%s: 1 round trips to %g", d, v)
		}
	}
}
