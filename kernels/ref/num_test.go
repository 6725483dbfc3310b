package ref

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
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
