package ref

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/numeric"
)

func TestRound_KnownValues(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		dt   bir.Dtype
		in   float64
		want float64
	}{
		{bir.BFloat16, 1, 1},
		{bir.BFloat16, 1 + math.Ldexp(1, -8), 1},                       // tie -> even (mantissa 0)
		{bir.BFloat16, 1 + 3*math.Ldexp(1, -8), 1 + math.Ldexp(1, -6)}, // tie -> even (mantissa 2)
		{bir.BFloat16, 3.39e38, 3.3895313892515355e38},                 // max finite (2-2^-7)*2^127
		{bir.BFloat16, 3.4e38, inf},                                    // above the max-to-2^128 midpoint
		{bir.BFloat16, 3.5e38, inf},
		{bir.Float16, 65504, 65504},
		{bir.Float16, 65519, 65504},
		{bir.Float16, 65520, inf}, // tie between 65504 and 65536 (overflow) -> even -> Inf
		{bir.Float16, -1e6, -inf},
		{bir.Float16, math.Ldexp(1, -24), math.Ldexp(1, -24)}, // smallest subnormal
		{bir.Float16, math.Ldexp(1, -25), 0},                  // tie -> even (0)
		{bir.Float16, 3 * math.Ldexp(1, -26), math.Ldexp(1, -24)},
		{bir.Float16, 0.1, 0.0999755859375},
		{bir.Float8E4M3FN, 448, 448},
		{bir.Float8E4M3FN, 464, 448}, // tie between 448 (even) and the NaN slot
		{bir.Float8E4M3FN, 470, nan}, // overflow -> NaN (no Inf)
		{bir.Float8E4M3, 240, 240},
		{bir.Float8E4M3, 248, inf}, // tie -> 256 -> overflow
		{bir.Float8E5, 57344, 57344},
		{bir.Float8E5, 1e6, inf},
		{bir.Float32R, 1 + math.Ldexp(1, -11), 1}, // tie -> even
		{bir.Float32R, 1 + 3*math.Ldexp(1, -11), 1 + math.Ldexp(1, -9)},
		{bir.Int8, 127.6, 127},
		{bir.Int8, -300, -128},
		{bir.Int8, 2.5, 2}, // RNE
		{bir.Uint8, -1, 0},
		{bir.Int32, nan, 0},
		{bir.Uint16, 70000, 65535},
	}
	for _, tt := range tests {
		got := Round(tt.dt, tt.in)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("Round(%s, %v) = %v, want %v", tt.dt, tt.in, got, tt.want)
		}
	}
}

// TestMiniFloat_Exhaustive decodes every bit pattern of the 8- and 16-bit
// float formats and checks that encoding gives the same bits back (NaNs
// only need to stay NaN) and that decoding is monotonic over the positive
// patterns.
func TestMiniFloat_Exhaustive(t *testing.T) {
	for _, dt := range []bir.Dtype{bir.Float16, bir.BFloat16, bir.Float8E4M3, bir.Float8E4M3FN, bir.Float8E5} {
		f, _ := format(dt)
		bits := 1 + f.ebits + f.mbits
		prev := math.Inf(-1)
		for x := uint32(0); x < 1<<bits; x++ {
			v := f.decode(x)
			if math.IsNaN(v) {
				if !math.IsNaN(f.decode(f.encode(v))) {
					t.Errorf("%s: NaN %#x does not round-trip as NaN", dt, x)
				}
				continue
			}
			if got := f.encode(v); got != x {
				t.Errorf("%s: bits %#x decode to %v which encodes to %#x", dt, x, v, got)
			}
			if x < 1<<(bits-1) {
				if v <= prev && !(x == 0) {
					t.Errorf("%s: %#x decodes to %v, not above the previous %v", dt, x, v, prev)
				}
				prev = v
			}
		}
	}
}

// TestBFloat16_MatchesBitTrick checks the generic RNE encoder against the
// classic fp32 -> bf16 rounding (add 0x7fff plus the lsb, truncate) on
// random fp32 values.
func TestBFloat16_MatchesBitTrick(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		u := r.Uint32()
		f := math.Float32frombits(u)
		if f != f {
			continue
		}
		want := (u + 0x7fff + (u>>16)&1) >> 16
		if got := fmtBF16.encode(float64(f)); got != want {
			t.Fatalf("bf16(%g = %#x) = %#x, want %#x", f, u, got, want)
		}
	}
}

func TestCompare(t *testing.T) {
	mk := func(vals ...float64) *interp.Tensor {
		tn, err := FromFloats("z", bir.Float32, []int64{2, int64(len(vals)) / 2}, vals)
		if err != nil {
			t.Fatal(err)
		}
		return tn
	}
	a := mk(1, 2, 3, 4)
	if m := Compare(a, mk(1, 2, 3, 4), Exact); m != nil {
		t.Errorf("equal tensors: %v", m)
	}
	m := Compare(mk(1, 2, 3.0000005, 5), a, Exact)
	if m == nil || m.Index != 2 || m.Count != 2 || !strings.Contains(m.Error(), "element 2 [1 0]") {
		t.Errorf("Compare = %v, want the first mismatch at element 2 [1 0] of 2", m)
	}
	if m := Compare(mk(1, 2, 3.0000005, 4), a, Tolerance{Rel: 1e-6}); m != nil {
		t.Errorf("within tolerance: %v", m)
	}
	if m := Compare(mk(1, 2, 3, 4, 5, 6), a, Exact); m == nil || m.Index != -1 {
		t.Errorf("shape mismatch not reported: %v", m)
	}
	nan := mk(math.NaN(), 2, 3, 4)
	if m := Compare(nan, mk(math.NaN(), 2, 3, 4), Tolerance{Abs: 1}); m != nil {
		t.Errorf("NaN vs NaN within tolerance: %v", m)
	}
	if m := Compare(nan, a, Tolerance{Abs: 1}); m == nil {
		t.Error("NaN vs 1 accepted")
	}
}

// TestConversions_AgreeWithNumeric cross-checks the interpreter's
// conversions (package numeric) against this package's independent
// implementation (a different algorithm: float64 quantum rounding here,
// bit manipulation there) on every code of the 8- and 16-bit formats with
// its neighbours and midpoints, on every format's overflow boundary and
// on random fp32 values: encoding fp32 -> dtype (RNE, overflow to Inf or
// to the e4m3fn NaN, subnormals, float -> int saturation) and decoding
// dtype -> value must give the same bits. NaN inputs only need to stay
// NaN (the two keep different payloads).
func TestConversions_AgreeWithNumeric(t *testing.T) {
	dts := []bir.Dtype{bir.BFloat16, bir.Float16, bir.Float8E4M3, bir.Float8E4M3FN, bir.Float8E5, bir.Float32R,
		bir.Int8, bir.Uint8, bir.Int16, bir.Uint16, bir.Int32, bir.Uint32, bir.Int64, bir.Uint64}
	var inputs []float32
	add := func(v float64) {
		f := float32(v)
		b := math.Float32bits(f)
		for d := -1; d <= 1; d++ {
			inputs = append(inputs, math.Float32frombits(b+uint32(d)), -math.Float32frombits(b+uint32(d)))
		}
	}
	// Every code of each small format, and the midpoints between
	// neighbouring codes (the RNE ties).
	for _, dt := range []bir.Dtype{bir.BFloat16, bir.Float16, bir.Float8E4M3, bir.Float8E4M3FN, bir.Float8E5} {
		f, _ := format(dt)
		n := uint32(1) << (1 + f.ebits + f.mbits - 1) // the positive codes
		for c := uint32(0); c+1 < n; c++ {
			a, b := f.decode(c), f.decode(c+1)
			if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(b, 0) {
				continue
			}
			add(a)
			add((a + b) / 2)
		}
		// The overflow boundary: half a quantum above the largest finite.
		mx := f.maxFinite()
		q := mx - f.decode(f.encode(mx)-1)
		add(mx + q/2)
		add(mx + q)
	}
	intStart := len(inputs) // the integer targets need only what follows
	for _, v := range []float64{0.5, 1.5, 2.5, -2.5, 127.5, 128.5, 255.5, 32767.5, 65535.5, 2147483648, 4294967296, 9.3e18, 1.9e19, 3e38} {
		add(v)
	}
	inputs = append(inputs, float32(math.Inf(1)), float32(math.Inf(-1)))
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		inputs = append(inputs, math.Float32frombits(r.Uint32()))
	}
	intInputs := inputs[intStart:]
	var buf [8]byte
	for _, dt := range dts {
		bad := 0
		in := inputs
		if numeric.IsInt(dt) {
			in = intInputs
		}
		for _, f := range in {
			nb, ok := numeric.FromFloat32(dt, f)
			if !ok {
				t.Fatalf("numeric.FromFloat32(%s) not ok", dt)
			}
			if err := Put(dt, buf[:], float64(f)); err != nil {
				t.Fatal(err)
			}
			rb := numeric.LoadBits(dt, buf[:])
			if f != f {
				rv, _ := Float(dt, buf[:])
				nv, _ := numeric.ToFloat32(dt, nb)
				if numeric.IsInt(dt) {
					if rb != nb {
						t.Errorf("%s: NaN -> %#x (ref) vs %#x (numeric)", dt, rb, nb)
					}
				} else if rv == rv || nv == nv {
					t.Errorf("%s: NaN %#08x -> %v (ref) vs %v (numeric)", dt, math.Float32bits(f), rv, nv)
				}
				continue
			}
			if rb != nb {
				if bad++; bad <= 5 {
					t.Errorf("%s: %g (%#08x) encodes to %#x in ref, %#x in numeric", dt, f, math.Float32bits(f), rb, nb)
				}
			}
		}
	}
	// Decoding: every code of the 8- and 16-bit formats.
	for _, dt := range []bir.Dtype{bir.BFloat16, bir.Float16, bir.Float8E4M3, bir.Float8E4M3FN, bir.Float8E5, bir.Int8, bir.Uint8, bir.Int16, bir.Uint16} {
		for c := uint64(0); c < 1<<(8*dt.Size()); c++ {
			numeric.StoreBits(dt, buf[:], c)
			rv, _ := Float(dt, buf[:])
			nv, _ := numeric.ToFloat32(dt, c)
			if float64(nv) != rv && !(rv != rv && nv != nv) {
				t.Errorf("%s: code %#x decodes to %v in ref, %v in numeric", dt, c, rv, nv)
			}
		}
	}
}
