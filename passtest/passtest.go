// Package passtest is the translation-validation harness for narwhal's
// passes (design.md, "Correctness is checked three ways"): it runs a pass
// on a module between two verifications and two interpreter runs on the
// same inputs, and fails the test unless every output tensor is
// unchanged. A pass test is then one loop:
//
//	func TestLowerGenericIndirect_Kernels(t *testing.T) {
//		p, _ := pipeline.Table.Lookup("lower_generic_indirect")
//		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
//			passtest.CheckPass(t, m, p)
//		})
//	}
//
// Check, step by step:
//
//  1. verify.Module with the stage the module is in (StageBefore; for
//     CheckPass the pass's Requires);
//  2. inputs: for a module built by ForEachKernel, the kernel's own inputs
//     (kernels.Kernel.Inputs: in-range embedding indices, exactly summable
//     CCE values) else interp.RandomInputs, from the seed (Seed, default 1);
//     InputsFunc replaces them, Inputs overrides single entries;
//  3. interp.Run before the pass;
//  4. the pass;
//  5. verify.Module with the stage after the pass (Stage; for CheckPass
//     its Requires | Produces);
//  6. interp.Run after the pass on copies of the same inputs;
//  7. every output tensor compared bit for bit, or within the Tolerance
//     the pass declares where it legitimately reorders arithmetic; the
//     failure names the first mismatching tensor, its element index (flat
//     and per dimension) and both values, decoded and as raw bits.
//
// A module that ForEachKernel did not hand out (a copy, or one built by
// the test) gets interp.RandomInputs unless InputsFunc says otherwise; for
// a copy of a kernel with constrained inputs pass
// InputsFunc(kernel.Inputs).
//
// Decisions. The module is changed in place (the pass's result is what a
// test may inspect afterwards); the harness never modifies the inputs it
// hands to the interpreter (each run gets its own copy). A module the
// interpreter cannot run before the pass is a test failure, not a skip:
// every built-in kernel runs. The set of output tensors must be the same
// before and after (a pass may not drop or invent an output).
package passtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Option configures Check and CheckPass.
type Option func(*config)

type config struct {
	seed        int64
	inputs      map[string]*interp.Tensor
	inputsFunc  func(m *bir.Module, seed int64) map[string]*interp.Tensor
	before      verify.Stage
	beforeSet   bool
	after       verify.Stage
	afterSet    bool
	tol         ref.Tolerance
	tensorTol   map[string]ref.Tolerance
	interp      interp.Options
	arch        *arch.Model
	passOptions map[string]string
	refTol      bool
}

// Seed sets the seed of the random inputs (default 1).
func Seed(n int64) Option { return func(c *config) { c.seed = n } }

// Inputs overrides input tensors by name (the others stay random).
func Inputs(in map[string]*interp.Tensor) Option {
	return func(c *config) {
		if c.inputs == nil {
			c.inputs = map[string]*interp.Tensor{}
		}
		maps.Copy(c.inputs, in)
	}
}

// InputsFunc replaces the input generator (the kernel's or
// interp.RandomInputs); it must depend only on the seed and the module's
// input specs.
func InputsFunc(fn func(m *bir.Module, seed int64) map[string]*interp.Tensor) Option {
	return func(c *config) { c.inputsFunc = fn }
}

// StageBefore is the verifier stage the module is in before the pass
// (default 0; CheckPass: the pass's Requires).
func StageBefore(s verify.Stage) Option { return func(c *config) { c.before, c.beforeSet = s, true } }

// Stage is the verifier stage the module must satisfy after the pass
// (default: the stage before; CheckPass: before | the pass's Produces).
func Stage(s verify.Stage) Option { return func(c *config) { c.after, c.afterSet = s, true } }

// Tolerance lets every output differ by |after-before| <= abs +
// rel*|before|, for a pass that legitimately reorders floating-point
// arithmetic; why is printed with a mismatch. The default is bit-exact.
func Tolerance(abs, rel float64, why string) Option {
	return func(c *config) { c.tol = ref.Tolerance{Abs: abs, Rel: rel, Why: why} }
}

// TensorTolerance sets the tolerance of one output tensor (abs = rel = 0:
// bit-exact), overriding Tolerance for it.
func TensorTolerance(name string, abs, rel float64, why string) Option {
	return func(c *config) {
		if c.tensorTol == nil {
			c.tensorTol = map[string]ref.Tolerance{}
		}
		c.tensorTol[name] = ref.Tolerance{Abs: abs, Rel: rel, Why: why}
	}
}

// ReferenceTolerance holds each output of a module ForEachKernel handed
// out to twice its kernel's reference tolerance over the drawn inputs
// (both runs are within the reference's bound of the exact result), for a
// pass that legitimately reorders a kernel's arithmetic, such as
// sunda_size_tiling splitting a matmul's K. Outputs the reference holds
// bit-exact stay bit-exact.
func ReferenceTolerance() Option { return func(c *config) { c.refTol = true } }

// InterpOptions sets the interpreter's options for both runs.
func InterpOptions(o interp.Options) Option { return func(c *config) { c.interp = o } }

// Arch sets the machine model of the verifier and of CheckPass's pass run
// (default: arch.ForModule).
func Arch(m *arch.Model) Option { return func(c *config) { c.arch = m } }

// PassOptions sets CheckPass's pass options (--option PASS.KEY=VALUE).
func PassOptions(kv map[string]string) Option {
	return func(c *config) { c.passOptions = maps.Clone(kv) }
}

func newConfig(opts []Option) *config {
	c := &config{seed: 1}
	for _, o := range opts {
		o(c)
	}
	return c
}

// instances maps modules built by ForEachKernel to their kernel instance,
// so that Check finds the kernel's constrained inputs without the test
// passing them along.
var instances sync.Map // *bir.Module -> *kernels.Instance

// Check validates run as a transformation of m: see the package comment.
func Check(t testing.TB, m *bir.Module, run func(*bir.Module) error, opts ...Option) {
	t.Helper()
	check(t, m, run, newConfig(opts), "the pass")
}

// CheckPass is Check for an entry of a pass table: it runs p alone
// through pass.Table{Passes: []pass.Pass{*p}}.Run (whatever its Default,
// Gate and Needs: the caller ran what p needs), verifies before with p.Requires and after with p.Requires |
// p.Produces unless StageBefore/Stage say otherwise.
func CheckPass(t testing.TB, m *bir.Module, p *pass.Pass, opts ...Option) {
	t.Helper()
	c := newConfig(opts)
	if !c.beforeSet {
		c.before = p.Requires
	}
	if !c.afterSet {
		c.after, c.afterSet = c.before|p.Produces, true
	}
	run := func(m *bir.Module) error {
		cfg := pass.Config{Arch: c.arch, Passes: []string{p.Name}}
		if c.passOptions != nil {
			cfg.Options = map[string]map[string]string{p.Name: c.passOptions}
		}
		// The caller drives the sequence and ran p's prerequisites
		// before it (a test that runs the table pass by pass), so p's
		// Needs, which refuse a --passes selection without them, are not
		// checked against this one-pass table.
		alone := *p
		alone.Needs = nil
		tbl := pass.Table{Passes: []pass.Pass{alone}}
		_, err := tbl.Run(m, cfg)
		return err
	}
	check(t, m, run, c, "pass "+p.Name)
}

func check(t testing.TB, m *bir.Module, run func(*bir.Module) error, c *config, what string) {
	t.Helper()
	if m == nil {
		t.Fatalf("passtest: nil module")
	}
	if !c.afterSet {
		c.after = c.before
	}
	if err := verify.Module(m, verify.Options{Arch: c.arch, Stage: c.before}); err != nil {
		t.Fatalf("passtest: the module does not verify before %s (stage %v): %v", what, c.before, err)
	}
	if v, ok := instances.Load(m); ok && v.(*kernels.Instance).Kernel.Macro {
		c.interp.Macro = true // a macro kernel's whole-tensor operations span PSUM banks
	}
	inputs := c.inputsFor(m)
	if c.refTol {
		v, ok := instances.Load(m)
		if !ok {
			t.Fatalf("passtest: ReferenceTolerance on a module ForEachKernel did not hand out")
		}
		_, tols, err := v.(*kernels.Instance).Expected(cloneAll(inputs))
		if err != nil {
			t.Fatalf("passtest: %v", err)
		}
		for name, tl := range tols {
			if c.tensorTol == nil {
				c.tensorTol = map[string]ref.Tolerance{}
			}
			if _, set := c.tensorTol[name]; !set && !tl.IsExact() {
				c.tensorTol[name] = ref.Tolerance{Abs: 2 * tl.Abs, Rel: 2 * tl.Rel, Why: "twice the kernel reference's tolerance (" + tl.Why + ")"}
			}
		}
	}
	before, err := interp.Run(m, cloneAll(inputs), c.interp)
	if err != nil {
		t.Fatalf("passtest: interpreter before %s: %v", what, err)
	}
	if err := run(m); err != nil {
		t.Fatalf("passtest: %s failed: %v", what, err)
	}
	if err := verify.Module(m, verify.Options{Arch: c.arch, Stage: c.after}); err != nil {
		t.Fatalf("passtest: the module does not verify after %s (stage %v): %v", what, c.after, err)
	}
	after, err := interp.Run(m, cloneAll(inputs), c.interp)
	if err != nil {
		t.Fatalf("passtest: interpreter after %s (it ran before): %v", what, err)
	}
	if err := c.compare(before, after); err != nil {
		t.Fatalf("passtest: %s changed the outputs: %v", what, err)
	}
}

// inputsFor builds the inputs of m: the kernel's, the InputsFunc's or
// random, then the overrides.
func (c *config) inputsFor(m *bir.Module) map[string]*interp.Tensor {
	var in map[string]*interp.Tensor
	switch {
	case c.inputsFunc != nil:
		in = c.inputsFunc(m, c.seed)
	default:
		var k *kernels.Kernel
		if v, ok := instances.Load(m); ok {
			k = v.(*kernels.Instance).Kernel
		}
		in = kernels.InputsFor(k, m, c.seed)
	}
	if in == nil {
		in = map[string]*interp.Tensor{}
	}
	maps.Copy(in, c.inputs)
	return in
}

// compare checks that after holds the same tensors as before, each equal
// within its tolerance.
func (c *config) compare(before, after map[string]*interp.Tensor) error {
	names := slices.Sorted(maps.Keys(before))
	for _, n := range slices.Sorted(maps.Keys(after)) {
		if _, ok := before[n]; !ok {
			return fmt.Errorf("output %s appeared (before: %s)", n, strings.Join(names, ", "))
		}
	}
	for _, n := range names {
		a, ok := after[n]
		if !ok {
			return fmt.Errorf("output %s disappeared", n)
		}
		tol := c.tol
		if tt, ok := c.tensorTol[n]; ok {
			tol = tt
		}
		if mm := ref.Compare(a, before[n], tol); mm != nil {
			return describe(mm)
		}
	}
	return nil
}

// describe phrases a mismatch as before/after.
func describe(mm *ref.Mismatch) error {
	if mm.Index < 0 {
		return fmt.Errorf("output %s: after the pass: %s", mm.Tensor, mm.Detail)
	}
	return fmt.Errorf("output %s, element %d %v: before %s, after %s%s", mm.Tensor, mm.Index, mm.Coord, mm.Want, mm.Got, mm.Extent("difference"))
}

func cloneAll(in map[string]*interp.Tensor) map[string]*interp.Tensor {
	out := make(map[string]*interp.Tensor, len(in))
	for k, t := range in {
		if t == nil {
			out[k] = nil
			continue
		}
		out[k] = &interp.Tensor{Name: t.Name, Dtype: t.Dtype, Shape: slices.Clone(t.Shape), Data: slices.Clone(t.Data)}
	}
	return out
}

// ForEachKernel calls fn in a subtest for every built-in kernel at each of
// its small test parameter sets (kernels.Kernel.Tests), with a freshly
// built module; name is the instance's spec ("matmul:m=256,k=384,...").
// Check and CheckPass called on that module use the kernel's own inputs.
//
// A macro kernel (kernels.Kernel.Macro: whole-tensor operations) is handed
// out tiled by sunda_size_tiling with its default options: the form every
// pass after it in the pipeline receives, so that each pass's validation
// runs over the loops the tiler makes. ForEachKernelAsBuilt hands out the
// modules as built (for the tiler's own tests and whole-pipeline runs).
func ForEachKernel(t *testing.T, fn func(t *testing.T, name string, m *bir.Module)) {
	t.Helper()
	forEachKernel(t, true, fn)
}

// ForEachKernelAsBuilt is ForEachKernel with every module as its kernel
// builds it (macro kernels untiled).
func ForEachKernelAsBuilt(t *testing.T, fn func(t *testing.T, name string, m *bir.Module)) {
	t.Helper()
	forEachKernel(t, false, fn)
}

func forEachKernel(t *testing.T, tile bool, fn func(t *testing.T, name string, m *bir.Module)) {
	t.Helper()
	for _, k := range kernels.All() {
		for _, spec := range k.TestSpecs() {
			t.Run(spec, func(t *testing.T) {
				inst, err := kernels.Instantiate(spec)
				if err != nil {
					t.Fatalf("passtest: building %s: %v", spec, err)
				}
				if tile && k.Macro {
					if err := TileMacro(inst.Module); err != nil {
						t.Fatalf("passtest: tiling %s: %v", spec, err)
					}
				}
				instances.Store(inst.Module, inst)
				t.Cleanup(func() { instances.Delete(inst.Module) })
				fn(t, spec, inst.Module)
			})
		}
	}
}

// TileMacro runs sunda_size_tiling with its default options on m.
func TileMacro(m *bir.Module) error {
	model, err := arch.ForModule(m)
	if err != nil {
		return err
	}
	_, err = tiling.SundaSizeTiling(m, model, tiling.Defaults(model))
	return err
}

// KernelSpecs returns the specs ForEachKernel visits, in its order (for
// benchmarks and table tests that want the list itself).
func KernelSpecs() []string {
	var out []string
	for _, k := range kernels.All() {
		out = append(out, k.TestSpecs()...)
	}
	return out
}
