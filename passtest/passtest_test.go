package passtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// recorder is a testing.TB that records a fatal failure instead of
// failing the real test, so the harness's own failures can be asserted.
type recorder struct {
	testing.TB
	msg string
}

type fatal struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	panic(fatal{})
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

// run calls fn with a recorder and returns the recorded failure ("" when
// the check passed).
func run(t *testing.T, fn func(tb testing.TB)) (msg string) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(fatal); !ok {
				panic(v)
			}
			msg = r.msg
		}
	}()
	fn(r)
	return r.msg
}

func build(t *testing.T, spec string) *bir.Module {
	t.Helper()
	m, err := kernels.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// setAttr returns a "pass" that changes one attribute of the instruction
// named inst.
func setAttr(inst, key string, v bir.Value) func(*bir.Module) error {
	return func(m *bir.Module) error {
		f := m.Main()
		i, ok := f.InstByName(inst)
		if !ok {
			return fmt.Errorf("no instruction %s", inst)
		}
		f.SetAttr(i, key, v)
		return nil
	}
}

// TestForEachKernel_Identity: the identity pass validates on every kernel
// instance (the interpreter runs each one before and after).
func TestForEachKernel_Identity(t *testing.T) {
	n := 0
	ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		n++
		Check(t, m, func(*bir.Module) error { return nil })
	})
	want := len(KernelSpecs())
	if n != want || n < len(kernels.All()) {
		t.Errorf("visited %d instances, want %d (at least one per kernel)", n, want)
	}
}

func TestCheck_CatchesWrongPass(t *testing.T) {
	m := build(t, "tensor_add:rows=128,cols=16")
	msg := run(t, func(tb testing.TB) {
		Check(tb, m, setAttr("add", "op", bir.String("subtract")))
	})
	for _, want := range []string{"the pass changed the outputs", "output z, element 0 [0 0]: before", ", after "} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure %q lacks %q", msg, want)
		}
	}
}

func TestCheck_Tolerance(t *testing.T) {
	// Scaling the window sum by 0.25*(1+2^-20) instead of 0.25 moves each
	// output by about one part in a million.
	wrong := setAttr("scale", "const0", bir.Float(0.25*(1+1.0/(1<<20))))
	m := build(t, "average_pool2d:c=128,h=4,w=4,pool=2")
	if msg := run(t, func(tb testing.TB) { Check(tb, m, wrong) }); !strings.Contains(msg, "changed the outputs") {
		t.Errorf("bit-exact check passed a perturbed pass: %q", msg)
	}
	m = build(t, "average_pool2d:c=128,h=4,w=4,pool=2")
	if msg := run(t, func(tb testing.TB) { Check(tb, m, wrong, Tolerance(0, 1e-5, "test")) }); msg != "" {
		t.Errorf("within tolerance, the check failed: %s", msg)
	}
	m = build(t, "average_pool2d:c=128,h=4,w=4,pool=2")
	if msg := run(t, func(tb testing.TB) { Check(tb, m, wrong, TensorTolerance("other", 0, 0, ""), Tolerance(0, 1e-5, "")) }); msg != "" {
		t.Errorf("a tolerance for another tensor changed this one's: %s", msg)
	}
}

func TestCheck_PassError(t *testing.T) {
	m := build(t, "tensor_add:rows=128,cols=16")
	msg := run(t, func(tb testing.TB) {
		Check(tb, m, func(*bir.Module) error { return fmt.Errorf("boom") })
	})
	if !strings.Contains(msg, "the pass failed: boom") {
		t.Errorf("failure = %q", msg)
	}
}

func TestCheck_VerifierAfter(t *testing.T) {
	m := build(t, "tensor_add:rows=128,cols=16")
	// The module keeps its loop, so it does not satisfy StageUnrolled.
	msg := run(t, func(tb testing.TB) {
		Check(tb, m, func(*bir.Module) error { return nil }, Stage(verify.StageUnrolled))
	})
	if !strings.Contains(msg, "does not verify after the pass (stage unrolled)") {
		t.Errorf("failure = %q", msg)
	}
}

// TestCheck_InputsOverride: with y overridden to zeros, x + y and x - y
// are the same, so turning the add into a subtract goes unnoticed: the
// override reached both interpreter runs.
func TestCheck_InputsOverride(t *testing.T) {
	m := build(t, "tensor_add:rows=128,cols=4")
	y := &interp.Tensor{Name: "y", Dtype: bir.Float32, Shape: []int64{128, 4}, Data: make([]byte, 128*4*4)}
	msg := run(t, func(tb testing.TB) {
		Check(tb, m, setAttr("add", "op", bir.String("subtract")), Inputs(map[string]*interp.Tensor{"y": y}))
	})
	if msg != "" {
		t.Errorf("x - 0 == x + 0, yet the check failed: %s", msg)
	}
}

func TestCheckPass(t *testing.T) {
	renamed := 0
	p := &pass.Pass{
		Name:     "test_rename",
		Gate:     "never-set", // CheckPass runs a pass whatever its gate
		Requires: 0,
		Produces: 0,
		Doc:      "renames every instruction (changes no value)",
		Run: func(ctx *pass.Context) error {
			return ctx.ForEachFunction(func(f *bir.Function) error {
				var ids []bir.InstID
				f.Walk(func(i bir.InstID) bool { ids = append(ids, i); return true })
				for _, i := range ids {
					f.Rename(i, f.InstName(i)+"_r")
					renamed++
				}
				return nil
			})
		},
	}
	ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if !strings.HasPrefix(name, "embedding") {
			return
		}
		CheckPass(t, m, p)
	})
	if renamed == 0 {
		t.Error("the pass never ran")
	}
	bad := *p
	bad.Run = func(ctx *pass.Context) error { return fmt.Errorf("nope") }
	m := build(t, "tensor_add:rows=128,cols=16")
	if msg := run(t, func(tb testing.TB) { CheckPass(tb, m, &bad) }); !strings.Contains(msg, "pass test_rename failed") || !strings.Contains(msg, "nope") {
		t.Errorf("failure = %q", msg)
	}
}

// TestForEachKernel_KernelInputs: a module from ForEachKernel gets its
// kernel's inputs (embedding indices in range), which random inputs would
// not give.
func TestForEachKernel_KernelInputs(t *testing.T) {
	ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if !strings.HasPrefix(name, "embedding") {
			return
		}
		c := newConfig(nil)
		in := c.inputsFor(m)
		want := kernels.InputsFor(mustLookup(t, "embedding"), m, 1)
		if string(in["indices"].Data) != string(want["indices"].Data) {
			t.Error("Check does not use the embedding kernel's inputs")
		}
	})
}

func mustLookup(t *testing.T, name string) *kernels.Kernel {
	k, ok := kernels.Lookup(name)
	if !ok {
		t.Fatalf("no kernel %s", name)
	}
	return k
}
