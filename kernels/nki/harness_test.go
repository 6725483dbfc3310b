// The harness checked on modules that exist today: a built-in Go kernel
// (package kernels) stands in for a traced NKI kernel, with goldens from
// its Go reference, so checkCase's steps (binding inputs by name, output
// keys, the traced run, the pipeline with per-pass translation validation,
// the compiled run, the concurrent runs) are exercised before the front
// end exists, and shown to fail where they should.

package nki_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/pass"
)

// builtinCase makes a case of a built-in kernel: its module, a kernel
// description returning its only output as "return", inputs drawn by the
// kernel's own generator, and goldens from its Go reference.
func builtinCase(t *testing.T, spec string) (*testCase, *golden, *frontend.Kernel, *kernels.Instance) {
	t.Helper()
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	c := &testCase{Name: "builtin:" + spec, Kernel: inst.Kernel.Name,
		Tolerance: tolerance{Reason: "the Go reference of the built-in kernel"}}
	g := &golden{inputs: kernels.InputsFor(inst.Kernel, m, 1), want: map[string][]float64{}}
	for _, s := range interp.InputSpecs(m) {
		c.Inputs = append(c.Inputs, tensorDesc{Name: s.Name, Dtype: s.Dtype.String(), Shape: s.Shape})
	}
	want, tols, err := inst.Expected(cloneInputs(g.inputs))
	if err != nil {
		t.Fatal(err)
	}
	outs := interp.OutputSpecs(m)
	if len(outs) != 1 {
		t.Fatalf("%s has %d outputs; the self-test wants one", spec, len(outs))
	}
	k := &frontend.Kernel{Name: inst.Kernel.Name, Returns: []frontend.Output{{Key: "return", Tensor: outs[0].Name}}}
	o := outs[0]
	c.Outputs = []outputDesc{{Key: "return", Dtype: o.Dtype.String(), Shape: o.Shape}}
	vals, err := ref.Floats(want[o.Name])
	if err != nil {
		t.Fatal(err)
	}
	g.want["return"] = vals
	c.Tolerance.Abs, c.Tolerance.Rel = tols[o.Name].Abs, tols[o.Name].Rel
	return c, g, k, inst
}

// TestCheckCase_BuiltinKernels: the harness passes a correct module.
func TestCheckCase_BuiltinKernels(t *testing.T) {
	for _, spec := range []string{"tensor_add:rows=256,cols=512", "matmul"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			c, g, k, inst := builtinCase(t, spec)
			if err := checkCase(c, g, inst.Module, k, true, t.Logf); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckCase_Failures: the harness names what is wrong when a golden
// value, an output key or an input name does not match.
func TestCheckCase_Failures(t *testing.T) {
	for _, tc := range []struct {
		name   string
		breaks func(c *testCase, g *golden, k *frontend.Kernel)
		want   string
	}{
		{"wrong golden value", func(c *testCase, g *golden, k *frontend.Kernel) { g.want["return"][7] += 1 },
			"the traced module, before any pass: output return: 1 elements outside"},
		{"unknown output key", func(c *testCase, g *golden, k *frontend.Kernel) { k.Returns[0].Key = "return0" },
			`the kernel has no output "return"`},
		{"missing input", func(c *testCase, g *golden, k *frontend.Kernel) {
			for name := range g.inputs {
				delete(g.inputs, name)
				break
			}
		}, "that is no tensor parameter of the case"},
		{"wrong output dtype", func(c *testCase, g *golden, k *frontend.Kernel) { c.Outputs[0].Dtype = "bfloat16" },
			"output return: dtype float32, want bfloat16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, g, k, inst := builtinCase(t, "tensor_add:rows=256,cols=512")
			tc.breaks(c, g, k)
			err := checkCase(c, g, inst.Module, k, true, t.Logf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestValidator_CatchesAChangedOutput: translation validation fails a
// pass that changes the outputs.
func TestValidator_CatchesAChangedOutput(t *testing.T) {
	c, g, _, inst := builtinCase(t, "tensor_add:rows=256,cols=512")
	inputs := g.inputs
	before, err := interp.Run(inst.Module, cloneInputs(inputs), interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The previous pass "produced" different outputs than the module does.
	for _, tt := range before {
		tt.Data[0] ^= 1
	}
	v := &validator{c: c, g: g, inputs: inputs, prev: before}
	v.PassEnd(&passForTest, nil, inst.Module, nil)
	if v.err == nil || !strings.Contains(v.err.Error(), "pass fake_pass changed the outputs") {
		t.Fatalf("validator error %v, want a changed output of fake_pass", v.err)
	}
}

var passForTest = pass.Pass{Name: "fake_pass"}
