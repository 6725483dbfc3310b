package dma

import (
	"errors"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/numeric"
	"github.com/narwhal-compiler/narwhal/verify"
)

// trn2 returns a fresh copy of the trn2 model, changed by fns.
func trn2(t testing.TB, fns ...func(*arch.Model)) *arch.Model {
	t.Helper()
	a, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	a = a.Clone()
	for _, fn := range fns {
		fn(a)
	}
	return a
}

func newB(t testing.TB) (*bir.Module, *bir.Builder) {
	t.Helper()
	m := bir.NewModule("trn2")
	return m, bir.NewBuilder(m, "main")
}

func done(t testing.TB, b *bir.Builder) {
	t.Helper()
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
}

// tensorOf builds an interpreter tensor from per-element values (floats
// rounded to dt, integers wrapped).
func tensorOf(name string, dt bir.Dtype, shape []int64, val func(k int64) float64) *interp.Tensor {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	s := dt.Size()
	data := make([]byte, n*s)
	for k := int64(0); k < n; k++ {
		var bits uint64
		if dt.IsFloat() {
			bits, _ = numeric.FromFloat32(dt, float32(val(k)))
		} else {
			bits, _ = numeric.WrapInt(dt, int64(val(k)))
		}
		numeric.StoreBits(dt, data[k*s:], bits)
	}
	return &interp.Tensor{Name: name, Dtype: dt, Shape: append([]int64(nil), shape...), Data: data}
}

// exactInputs fills every input with multiples of 1/64 in [-1, 1) (integer
// inputs get small integers): sums of up to 2^16 such values are exact in
// fp32, in any order.
func exactInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	out := map[string]*interp.Tensor{}
	for _, s := range interp.InputSpecs(m) {
		h := int64(len(s.Name)) * 7919
		out[s.Name] = tensorOf(s.Name, s.Dtype, s.Shape, func(k int64) float64 {
			v := (k*37 + seed*11 + h) % 128
			return float64(v-64) / 64
		})
	}
	return out
}

// opCount counts the live instructions of opcode op in every function.
func opCount(m *bir.Module, op bir.Opcode) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == op {
				n++
			}
			return true
		})
	}
	return n
}

// inst finds an instruction of main by name.
func inst(t testing.TB, m *bir.Module, name string) bir.InstID {
	t.Helper()
	f := m.Main()
	var found = bir.NoInst
	f.Walk(func(i bir.InstID) bool {
		if f.InstName(i) == name {
			found = i
			return false
		}
		return true
	})
	if found == bir.NoInst {
		t.Fatalf("no instruction %s in:\n%s", name, bir.Format(m))
	}
	return found
}

// names returns main's instruction names in program order.
func names(m *bir.Module) []string {
	f := m.Main()
	var out []string
	f.Walk(func(i bir.InstID) bool {
		out = append(out, f.InstName(i))
		return true
	})
	return out
}

// wantError checks that err is a pass *Error whose message holds every
// fragment.
func wantError(t testing.TB, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", fragments)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *dma.Error", err, err)
	}
	for _, fr := range fragments {
		if !strings.Contains(err.Error(), fr) {
			t.Fatalf("error %q does not contain %q", err, fr)
		}
	}
}

func mustVerify(t testing.TB, m *bir.Module, a *arch.Model, st verify.Stage) {
	t.Helper()
	if err := verify.Module(m, verify.Options{Arch: a, Stage: st}); err != nil {
		t.Fatalf("verify (stage %v): %v\n%s", st, err, bir.Format(m))
	}
}
