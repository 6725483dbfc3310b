package interp

// Test helpers: small modules built with bir.Builder, host tensors from
// Go values, and error assertions.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

func newB(t *testing.T) (*bir.Module, *bir.Builder) {
	t.Helper()
	m := bir.NewModule("trn2")
	return m, bir.NewBuilder(m, "main")
}

// tensorOf encodes float64 values as a tensor of dtype dt (RNE).
func tensorOf(name string, dt bir.Dtype, shape []int64, vals ...float64) *Tensor {
	size := dt.Size()
	t := &Tensor{Name: name, Dtype: dt, Shape: shape, Data: make([]byte, int64(len(vals))*size)}
	for i, v := range vals {
		var bits uint64
		if numeric.IsInt(dt) {
			bits, _ = numeric.WrapInt(dt, int64(v))
		} else {
			bits, _ = numeric.FromFloat32(dt, float32(v))
		}
		numeric.StoreBits(dt, t.Data[int64(i)*size:], bits)
	}
	return t
}

func f32Tensor(name string, shape []int64, vals ...float64) *Tensor {
	return tensorOf(name, bir.Float32, shape, vals...)
}

// values decodes a tensor to float64 (integers exactly).
func values(t *Tensor) []float64 {
	size := t.Dtype.Size()
	out := make([]float64, int64(len(t.Data))/size)
	for i := range out {
		bits := numeric.LoadBits(t.Dtype, t.Data[int64(i)*size:])
		if numeric.IsInt(t.Dtype) {
			out[i] = float64(numeric.Int64Of(t.Dtype, bits))
			continue
		}
		f, _ := numeric.ToFloat32(t.Dtype, bits)
		out[i] = float64(f)
	}
	return out
}

func seq(n int, f func(i int) float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func mustRun(t *testing.T, m *bir.Module, in map[string]*Tensor, opt Options) map[string]*Tensor {
	t.Helper()
	out, err := Run(m, in, opt)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return out
}

// wantValues compares decoded output values exactly (NaN equals NaN).
func wantValues(t *testing.T, what string, got []float64, want ...float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d: %v", what, len(got), len(want), got)
	}
	for i := range got {
		// Zeros compare with their sign: -0 and +0 are different results.
		if (got[i] != want[i] || math.Signbit(got[i]) != math.Signbit(want[i])) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s: element %d = %v, want %v (all: %v)", what, i, signed(got[i]), signed(want[i]), got)
		}
	}
}

// negZero is -0 (the Go literal -0.0 is +0).
var negZero = math.Copysign(0, -1)

// signed formats a value so that -0 shows its sign.
func signed(v float64) string {
	if v == 0 && math.Signbit(v) {
		return "-0"
	}
	return fmt.Sprint(v)
}

// wantErr asserts err is an *Error of the given kind whose message names
// the instruction and contains every fragment.
func wantErr(t *testing.T, err error, kind ErrorKind, inst string, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want a %s error naming instruction %s", kind, inst)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *interp.Error", err)
	}
	if e.Kind != kind {
		t.Fatalf("error kind %s, want %s: %v", e.Kind, kind, err)
	}
	msg := err.Error()
	if inst != "" && !strings.Contains(msg, "instruction "+inst+" ") {
		t.Fatalf("error does not name instruction %s: %v", inst, msg)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Fatalf("error does not mention %q: %v", f, msg)
		}
	}
}

func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }

// oneIn builds the common shape of a test module: input x (DRAM) loaded
// into SBUF tile a, an instruction built by body from a, stored from tile d
// to output z. P x F everywhere, dtype dt for x/a and odt for d/z.
func oneIn(t *testing.T, dt, odt bir.Dtype, P, F int64, body func(b *bir.Builder, a, d bir.T)) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, P, F)
	z := b.Output("z", odt, P, F)
	a := b.SBUF("a", dt, P, F)
	d := b.SBUF("d", odt, P, F)
	b.Load("ld", a.All(), x.All())
	body(b, a, d)
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// twoIn is oneIn with a second input y loaded into tile c.
func twoIn(t *testing.T, dt, odt bir.Dtype, P, F int64, body func(b *bir.Builder, a, c, d bir.T)) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, P, F)
	y := b.Input("y", dt, P, F)
	z := b.Output("z", odt, P, F)
	a := b.SBUF("a", dt, P, F)
	c := b.SBUF("c", dt, P, F)
	d := b.SBUF("d", odt, P, F)
	b.Load("ldx", a.All(), x.All())
	b.Load("ldy", c.All(), y.All())
	body(b, a, c, d)
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}
