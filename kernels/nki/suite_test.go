// The harness of narwhal's own legacy-API NKI kernel suite (issue 24, "Must
// show", second bullet; kernels/nki/README.md).
//
// Every case of golden/manifest.json (written by refgen.py: a kernel of
// legacy/*.py, its inputs, --arg values, SPMD grid, expected outputs and
// tolerance) runs as a parallel subtest of TestSuite_Cases:
//
//  1. frontend.Load traces the kernel (dtypes and shapes from the
//     manifest, args as Python expressions, the grid) into a module;
//  2. the traced module runs in the interpreter on the golden inputs and
//     its outputs must equal the goldens within the case's tolerance (a
//     failure here is the front end's, before any pass);
//  3. the default pipeline (pipeline.Table) compiles it with the verifier
//     after every pass, and (except under -short) translation validation
//     after every pass: the
//     interpreter runs the module the pass produced and its outputs must be
//     bit-identical to the previous pass's, except where sunda_size_tiling
//     splits a matmul's K (the one reordering the pipeline tests allow):
//     there they must still be within the case's tolerance of the goldens;
//  4. the compiled module's outputs must equal the goldens within the
//     tolerance; the log line gives the max abs and rel error per output;
//  5. interp.RunConcurrent runs the compiled module under two interleaving
//     policies: no race, no deadlock, no DMA in flight after Halt, outputs
//     bit-identical to the sequential run.
//
// The manifest holds both suites: the legacy neuronxcc.nki kernels
// (legacy/*.py, issue 24) and the current nki kernels (current/*.py and the
// package pkg/narwhal_kernels, issue 25), told apart by "api". A package
// case lists its import roots in "path" (frontend.Options.Path, the CLI's
// --path). A current case with "twin" is the current form of the legacy
// case it names, sharing its inputs and goldens: TestSuite_Twins compiles
// both and requires their outputs bit-identical.
//
// Output naming follows the interface contract (../shared/docs/
// nki-frontend.md): the manifest's output keys are "return", "return0",
// ... and written parameter names, mapped to the module's I/O tensors by
// frontend.Kernel.Returns and .Written. Input tensors are bound by the
// module's input names, which are the kernel's parameter names.
//
// Golden value format (refgen.py): float arrays hold values (float16 where
// that is exact, else float32) and are converted to the manifest's dtype;
// integer arrays are their own dtype.
package nki_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/npy"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// manifest is golden/manifest.json.
type manifest struct {
	Comment     string     `json:"comment"`
	ValueFormat string     `json:"value_format"`
	Cases       []testCase `json:"cases"`
}

// testCase is one case of the manifest.
type testCase struct {
	Name      string            `json:"name"`
	File      string            `json:"file"`
	Kernel    string            `json:"kernel"`
	Inputs    []tensorDesc      `json:"inputs"`
	Args      map[string]string `json:"args"`
	Grid      []int64           `json:"grid"`
	Outputs   []outputDesc      `json:"outputs"`
	Tolerance tolerance         `json:"tolerance"`
	Golden    string            `json:"golden"`
	// API is "legacy" (neuronxcc.nki) or "current" (nki).
	API string `json:"api"`
	// Path lists the directories, relative to kernels/nki, searched for
	// the kernel's imports (a package's root), in order.
	Path []string `json:"path"`
	// Twin names the legacy case this current case must agree with bit for
	// bit ("" for none).
	Twin string `json:"twin"`
}

type tensorDesc struct {
	Name  string  `json:"name"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

type outputDesc struct {
	Key   string  `json:"key"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

type tolerance struct {
	Abs    float64 `json:"abs"`
	Rel    float64 `json:"rel"`
	Reason string  `json:"reason"`
}

// readManifest reads golden/manifest.json.
func readManifest(t testing.TB) *manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("golden", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("golden/manifest.json: %v", err)
	}
	if m.ValueFormat != "float16-or-float32-values" {
		t.Fatalf("golden/manifest.json: value_format %q, want float16-or-float32-values (refgen.py and this harness disagree)", m.ValueFormat)
	}
	return &m
}

// golden is a case's inputs (by parameter name, in the kernel's dtypes)
// and expected outputs (by output key, as float64 values).
type golden struct {
	inputs map[string]*interp.Tensor
	want   map[string][]float64
}

// readGolden reads the case's .npz.
func readGolden(c *testCase) (*golden, error) {
	a, err := npy.OpenNPZ(c.Golden)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	g := &golden{inputs: map[string]*interp.Tensor{}, want: map[string][]float64{}}
	for _, in := range c.Inputs {
		dt, err := bir.ParseDtype(in.Dtype)
		if err != nil {
			return nil, fmt.Errorf("input %s: %v", in.Name, err)
		}
		vals, err := readValues(a, "in."+in.Name, in.Shape)
		if err != nil {
			return nil, err
		}
		tt, err := ref.FromFloats(in.Name, dt, in.Shape, vals)
		if err != nil {
			return nil, err
		}
		// The values are exact in the dtype (refgen.py checks it): the
		// conversion must not have rounded.
		back, _ := ref.Floats(tt)
		for i := range vals {
			if back[i] != vals[i] {
				return nil, fmt.Errorf("input %s element %d: %v is not exact in %s", in.Name, i, vals[i], dt)
			}
		}
		g.inputs[in.Name] = tt
	}
	for _, o := range c.Outputs {
		vals, err := readValues(a, "out."+o.Key, o.Shape)
		if err != nil {
			return nil, err
		}
		g.want[o.Key] = vals
	}
	return g, nil
}

// readValues reads an array of the archive as float64 values.
func readValues(a *npy.Archive, name string, shape []int64) ([]float64, error) {
	t, err := a.Read(name)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(t.Shape, shape) {
		return nil, fmt.Errorf("%s: shape %v, the manifest says %v", name, t.Shape, shape)
	}
	return ref.Floats(t)
}

// loadKernel traces case c's kernel. A panic fails the test: a front end
// must return errors, never panic.
func loadKernel(t testing.TB, file, kernel string, tensors []frontend.TensorSpec, args map[string]string, grid []int64, path []string) (m *bir.Module, k *frontend.Kernel) {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := frontend.Options{Kernel: kernel, Tensors: tensors, Grid: grid, Path: path, Log: testLog{t}}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		opts.Args = append(opts.Args, frontend.Arg{Name: name, Expr: args[name]})
	}
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("frontend.Load panicked on %s --kernel %s (a front end must return errors): %v", file, kernel, p)
			}
		}()
		m, k, err = frontend.Load(file, src, opts)
	}()
	if err != nil {
		t.Fatalf("frontend.Load %s --kernel %s: %v", file, kernel, err)
	}
	if m == nil || k == nil {
		t.Fatalf("frontend.Load %s --kernel %s: nil module or kernel without an error", file, kernel)
	}
	return m, k
}

// testLog sends the kernel's print() output to the test log.
type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("kernel print: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// tensorSpecs gives the front end every tensor parameter's dtype and shape.
func tensorSpecs(c *testCase) ([]frontend.TensorSpec, error) {
	var specs []frontend.TensorSpec
	for _, in := range c.Inputs {
		dt, err := bir.ParseDtype(in.Dtype)
		if err != nil {
			return nil, err
		}
		specs = append(specs, frontend.TensorSpec{Name: in.Name, Dtype: dt, Shape: in.Shape})
	}
	return specs, nil
}

// bindInputs selects the module's inputs from the golden inputs: the
// module's input names are parameter names. Written parameters the module
// does not read are not its inputs, and are left out.
func bindInputs(m *bir.Module, g *golden) (map[string]*interp.Tensor, error) {
	in := map[string]*interp.Tensor{}
	for _, s := range interp.InputSpecs(m) {
		tt, ok := g.inputs[s.Name]
		if !ok {
			return nil, fmt.Errorf("the module has an input %s that is no tensor parameter of the case (parameters: %s)", s.Name, strings.Join(slices.Sorted(maps.Keys(g.inputs)), ", "))
		}
		if tt.Dtype != s.Dtype || !slices.Equal(tt.Shape, s.Shape) {
			return nil, fmt.Errorf("module input %s is %s %v, the case gives %s %v", s.Name, s.Dtype, s.Shape, tt.Dtype, tt.Shape)
		}
		in[s.Name] = tt
	}
	return in, nil
}

func cloneInputs(in map[string]*interp.Tensor) map[string]*interp.Tensor {
	out := make(map[string]*interp.Tensor, len(in))
	for k, t := range in {
		c := *t
		c.Shape = slices.Clone(t.Shape)
		c.Data = slices.Clone(t.Data)
		out[k] = &c
	}
	return out
}

// outputNames maps each manifest output key to the module's output tensor
// name through the kernel description.
func outputNames(c *testCase, k *frontend.Kernel) (map[string]string, error) {
	byKey := map[string]string{}
	for _, o := range append(slices.Clone(k.Returns), k.Written...) {
		byKey[o.Key] = o.Tensor
	}
	names := map[string]string{}
	for _, o := range c.Outputs {
		tn, ok := byKey[o.Key]
		if !ok {
			return nil, fmt.Errorf("the kernel has no output %q (returns %v, written %v)", o.Key, k.Returns, k.Written)
		}
		names[o.Key] = tn
	}
	if len(byKey) != len(c.Outputs) {
		return nil, fmt.Errorf("the kernel has outputs %v, the case expects %d (%v)", slices.Sorted(maps.Keys(byKey)), len(c.Outputs), c.Outputs)
	}
	return names, nil
}

// checkOutputs compares run outputs with the goldens; it returns one
// summary line and the first failure.
func checkOutputs(c *testCase, names map[string]string, got map[string]*interp.Tensor, g *golden) (string, error) {
	var summary []string
	for _, o := range c.Outputs {
		tt := got[names[o.Key]]
		if tt == nil {
			return "", fmt.Errorf("output %s (tensor %s) missing from the run (have %s)", o.Key, names[o.Key], strings.Join(slices.Sorted(maps.Keys(got)), ", "))
		}
		if tt.Dtype.String() != o.Dtype {
			return "", fmt.Errorf("output %s: dtype %s, want %s", o.Key, tt.Dtype, o.Dtype)
		}
		if !slices.Equal(tt.Shape, o.Shape) {
			return "", fmt.Errorf("output %s: shape %v, want %v", o.Key, tt.Shape, o.Shape)
		}
		vals, err := ref.Floats(tt)
		if err != nil {
			return "", fmt.Errorf("output %s: %v", o.Key, err)
		}
		e := compareValues(vals, g.want[o.Key], c.Tolerance)
		summary = append(summary, fmt.Sprintf("%s max abs %.3g rel %.3g", o.Key, e.maxAbs, e.maxRel))
		if e.bad > 0 {
			return strings.Join(summary, "; "), fmt.Errorf("output %s: %d elements outside abs %g + rel %g (%s); the first, element %d %v: got %v, want %v",
				o.Key, e.bad, c.Tolerance.Abs, c.Tolerance.Rel, c.Tolerance.Reason, e.first, ref.Coord(o.Shape, int64(e.first)), vals[e.first], g.want[o.Key][e.first])
		}
	}
	return strings.Join(summary, "; "), nil
}

type valueErrors struct {
	maxAbs, maxRel float64
	bad, first     int
}

// compareValues checks |got - want| <= abs + rel*|want| element by element.
func compareValues(got, want []float64, tol tolerance) valueErrors {
	e := valueErrors{first: -1}
	for i := range want {
		g, w := got[i], want[i]
		d := math.Abs(g - w)
		if math.IsNaN(g) != math.IsNaN(w) {
			d = math.Inf(1)
		} else if math.IsNaN(g) || g == w {
			d = 0
		}
		e.maxAbs = max(e.maxAbs, d)
		if w != 0 {
			e.maxRel = max(e.maxRel, d/math.Abs(w))
		} else if d > 0 {
			e.maxRel = math.Inf(1)
		}
		if d > tol.Abs+tol.Rel*math.Abs(w) {
			if e.bad == 0 {
				e.first = i
			}
			e.bad++
		}
	}
	return e
}

// sameOutputs reports the first output whose bytes differ between two runs.
func sameOutputs(a, b map[string]*interp.Tensor) error {
	for _, n := range slices.Sorted(maps.Keys(a)) {
		bt := b[n]
		if bt == nil {
			return fmt.Errorf("output %s disappeared", n)
		}
		at := a[n]
		if at.Dtype != bt.Dtype || !slices.Equal(at.Shape, bt.Shape) {
			return fmt.Errorf("output %s changed from %s %v to %s %v", n, at.Dtype, at.Shape, bt.Dtype, bt.Shape)
		}
		if string(at.Data) != string(bt.Data) {
			sz := int(at.Dtype.Size())
			for i := 0; i+sz <= len(at.Data); i += sz {
				if string(at.Data[i:i+sz]) != string(bt.Data[i:i+sz]) {
					return fmt.Errorf("output %s differs first at element %d %v: %s before, %s after",
						n, i/sz, ref.Coord(at.Shape, int64(i/sz)), ref.FormatElem(at, int64(i/sz)), ref.FormatElem(bt, int64(i/sz)))
				}
			}
		}
	}
	for n := range b {
		if a[n] == nil {
			return fmt.Errorf("output %s appeared", n)
		}
	}
	return nil
}

// validator is the pass.Observer of translation validation: after every
// pass that ran, the interpreter runs the module on the case's inputs and
// the outputs must be bit-identical to the previous pass's (or, where the
// pipeline splits a matmul's K, within the tolerance of the goldens).
type validator struct {
	c      *testCase
	g      *golden
	inputs map[string]*interp.Tensor
	names  map[string]string
	splitK bool
	prev   map[string]*interp.Tensor
	passes int
	tolUse []string // passes whose outputs were accepted by tolerance only
	err    error    // the first failure
}

func (v *validator) Start(*bir.Module)                 {}
func (v *validator) PassStart(*pass.Pass, *bir.Module) {}
func (v *validator) Log(*pass.Pass, string)            {}
func (v *validator) PassEnd(p *pass.Pass, _ *pass.PassResult, m *bir.Module, err error) {
	if err != nil || v.err != nil {
		return
	}
	v.passes++
	out, err := interp.Run(m, cloneInputs(v.inputs), interp.Options{})
	if err != nil {
		v.err = fmt.Errorf("translation validation: the interpreter fails after pass %s (it ran before): %v", p.Name, err)
		return
	}
	if diff := sameOutputs(v.prev, out); diff != nil {
		if !v.splitK {
			v.err = fmt.Errorf("translation validation: pass %s changed the outputs: %v", p.Name, diff)
			return
		}
		if _, err := checkOutputs(v.c, v.names, out, v.g); err != nil {
			v.err = fmt.Errorf("translation validation: pass %s (K split: tolerance allowed) changed the outputs beyond the case's tolerance: %v (first bit difference: %v)", p.Name, err, diff)
			return
		}
		v.tolUse = append(v.tolUse, p.Name)
	}
	v.prev = out
}

// TestSuite_Cases runs every manifest case through the front end, the
// default pipeline with per-pass verification and translation validation,
// the interpreter against the goldens and the concurrent interpreter.
func TestSuite_Cases(t *testing.T) {
	man := readManifest(t)
	for api, n := range kernelsByAPI(man) {
		if n < 40 {
			t.Fatalf("the manifest has %d %s kernels; issues 24 and 25 ask for at least 40 per API", n, api)
		}
	}
	for i := range man.Cases {
		c := &man.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			runCase(t, c)
		})
	}
}

// concurrentPolicies are the interleavings each compiled case runs under.
var concurrentPolicies = []string{"random", "late-dma"}

func runCase(t *testing.T, c *testCase) {
	g, err := readGolden(c)
	if err != nil {
		t.Fatalf("%s: %v", c.Golden, err)
	}
	specs, err := tensorSpecs(c)
	if err != nil {
		t.Fatal(err)
	}
	m, k := loadKernel(t, c.File, c.Kernel, specs, c.Args, c.Grid, c.Path)
	if err := checkCase(c, g, m, k, !testing.Short(), t.Logf); err != nil {
		t.Fatalf("%s --kernel %s (%s API%s): %v", c.File, c.Kernel, c.API, twinNote(c), err)
	}
}

func twinNote(c *testCase) string {
	if c.Twin == "" {
		return ""
	}
	return ", twin of " + c.Twin
}

// kernelsByAPI counts the distinct kernels (file and function) of each API.
func kernelsByAPI(man *manifest) map[string]int {
	seen := map[string]map[string]bool{}
	for _, c := range man.Cases {
		if seen[c.API] == nil {
			seen[c.API] = map[string]bool{}
		}
		seen[c.API][c.File+":"+c.Kernel] = true
	}
	counts := map[string]int{}
	for api, ks := range seen {
		counts[api] = len(ks)
	}
	return counts
}

// compiledOutputs traces case c's kernel, compiles it through the default
// pipeline (verified after every pass) and runs it on g's inputs; it
// returns the outputs by manifest key.
func compiledOutputs(t *testing.T, c *testCase, g *golden) map[string]*interp.Tensor {
	t.Helper()
	specs, err := tensorSpecs(c)
	if err != nil {
		t.Fatal(err)
	}
	m, k := loadKernel(t, c.File, c.Kernel, specs, c.Args, c.Grid, c.Path)
	names, err := outputNames(c, k)
	if err != nil {
		t.Fatalf("%s --kernel %s: %v", c.File, c.Kernel, err)
	}
	inputs, err := bindInputs(m, g)
	if err != nil {
		t.Fatalf("%s --kernel %s: %v", c.File, c.Kernel, err)
	}
	if _, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true}); err != nil {
		t.Fatalf("%s --kernel %s: the default pipeline: %v", c.File, c.Kernel, err)
	}
	out, err := interp.Run(m, cloneInputs(inputs), interp.Options{})
	if err != nil {
		t.Fatalf("%s --kernel %s: the compiled module does not run: %v", c.File, c.Kernel, err)
	}
	byKey := map[string]*interp.Tensor{}
	for key, name := range names {
		if out[name] == nil {
			t.Fatalf("%s --kernel %s: output %s (tensor %s) missing from the run", c.File, c.Kernel, key, name)
		}
		byKey[key] = out[name]
	}
	return byKey
}

// TestSuite_Twins compiles each current-API kernel that has a legacy twin
// and the twin itself, runs both on the twin pair's shared inputs and
// requires every output bit-identical (dtype, shape and bytes).
func TestSuite_Twins(t *testing.T) {
	man := readManifest(t)
	byName := map[string]*testCase{}
	for i := range man.Cases {
		byName[man.Cases[i].Name] = &man.Cases[i]
	}
	pairs := 0
	for i := range man.Cases {
		c := &man.Cases[i]
		if c.Twin == "" {
			continue
		}
		pairs++
		legacy := byName[c.Twin]
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			if legacy == nil || legacy.API != "legacy" {
				t.Fatalf("twin %q is no legacy case of the manifest", c.Twin)
			}
			g, err := readGolden(c)
			if err != nil {
				t.Fatalf("%s: %v", c.Golden, err)
			}
			cur := compiledOutputs(t, c, g)
			leg := compiledOutputs(t, legacy, g)
			if diff := sameOutputs(leg, cur); diff != nil {
				t.Fatalf("%s --kernel %s against its legacy twin %s (%s --kernel %s): %v", c.File, c.Kernel, legacy.Name, legacy.File, legacy.Kernel, diff)
			}
			t.Logf("%s: %d outputs bit-identical to the legacy twin %s", c.Name, len(cur), legacy.Name)
		})
	}
	if pairs == 0 {
		t.Fatal("the manifest has no twin pairs")
	}
}

// checkCase runs steps 2-5 of the file comment on the traced module m of
// case c (k describes it) and returns the first failure. Without
// perPass (go test -short) the interpreter does not run after every pass:
// the verifier still does, and the compiled module is still checked.
func checkCase(c *testCase, g *golden, m *bir.Module, k *frontend.Kernel, perPass bool, logf func(string, ...any)) error {
	names, err := outputNames(c, k)
	if err != nil {
		return err
	}
	inputs, err := bindInputs(m, g)
	if err != nil {
		return err
	}
	traced := m.NumInsts()

	// The traced module, before any pass.
	before, err := interp.Run(m, cloneInputs(inputs), interp.Options{})
	if err != nil {
		return fmt.Errorf("the traced module (%d instructions) does not run: %v", traced, err)
	}
	if sum, err := checkOutputs(c, names, before, g); err != nil {
		return fmt.Errorf("the traced module, before any pass: %v [%s]", err, sum)
	}

	// The default pipeline, verified and validated after every pass.
	model, err := arch.ForModule(m)
	if err != nil {
		return err
	}
	v := &validator{c: c, g: g, inputs: inputs, names: names, prev: before,
		splitK: tiling.SplitsK(m, model, tiling.Defaults(model))}
	cfg := pass.Config{VerifyEach: true}
	if perPass {
		cfg.Observer = v
	}
	rep, err := pipeline.Table.Run(m, cfg)
	if err != nil {
		return fmt.Errorf("the default pipeline: %v", err)
	}
	if v.err != nil {
		return v.err
	}
	final, err := interp.Run(m, cloneInputs(inputs), interp.Options{})
	if err != nil {
		return fmt.Errorf("the compiled module does not run: %v", err)
	}
	sum, err := checkOutputs(c, names, final, g)
	if err != nil {
		return fmt.Errorf("the compiled module: %v [%s]", err, sum)
	}
	note := ""
	if len(v.tolUse) > 0 {
		note = fmt.Sprintf("; outputs changed within tolerance by %s (K split)", strings.Join(v.tolUse, ", "))
	}
	logf("%s: traced %d instructions, compiled %d; %d passes validated%s; %s", c.Name, traced, rep.Insts, v.passes, note, sum)

	// The concurrent interpreter: race-free, same outputs.
	for i, policy := range concurrentPolicies {
		pol, starve, err := interp.ParsePolicy(policy)
		if err != nil {
			return err
		}
		res, err := interp.RunConcurrent(m, cloneInputs(inputs), interp.ConcurrentOptions{Policy: pol, Starve: starve, Seed: uint64(i + 1)})
		if err != nil {
			return fmt.Errorf("concurrent run (--interleave %s): %v", policy, err)
		}
		if !res.OK() {
			var lines []string
			for _, r := range res.Races {
				lines = append(lines, fmt.Sprint(r))
			}
			if res.Deadlock != nil {
				lines = append(lines, res.Deadlock.String())
			}
			lines = append(lines, res.Late...)
			lines = append(lines, res.Overflows...)
			return fmt.Errorf("concurrent run (--interleave %s): %d races, deadlock %v, %d DMAs late:\n%s", policy, res.RacesFound, res.Deadlock != nil, len(res.Late), strings.Join(lines, "\n"))
		}
		if diff := sameOutputs(final, res.Outputs); diff != nil {
			return fmt.Errorf("concurrent run (--interleave %s): the outputs differ from the sequential run's: %v", policy, diff)
		}
	}
	return nil
}

// TestManifest_Consistent checks the committed manifest without the front
// end: every case names an existing kernel file and function of its API's
// directory, its golden archive holds exactly the inputs and outputs listed
// (values exact in their dtypes), every output dtype parses, the case
// names are unique, a package case's path roots exist and hold its file, a
// twin's legacy case exists and shares its inputs, --args, grid, outputs,
// tolerance and archive, and every archive of golden/ belongs to a case.
// It runs today, before the front end exists.
func TestManifest_Consistent(t *testing.T) {
	man := readManifest(t)
	seen := map[string]bool{}
	byName := map[string]*testCase{}
	for i := range man.Cases {
		byName[man.Cases[i].Name] = &man.Cases[i]
	}
	goldens := map[string]bool{}
	for i := range man.Cases {
		c := &man.Cases[i]
		if seen[c.Name] {
			t.Errorf("case %s appears twice", c.Name)
		}
		seen[c.Name] = true
		goldens[c.Golden] = true
		t.Run(c.Name, func(t *testing.T) {
			checkCaseLayout(t, c, byName)
			src, err := os.ReadFile(c.File)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), "def "+c.Kernel+"(") {
				t.Errorf("%s defines no function %s", c.File, c.Kernel)
			}
			if _, err := readGolden(c); err != nil {
				t.Fatalf("%s: %v", c.Golden, err)
			}
			a, err := npy.OpenNPZ(c.Golden)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			want := []string{}
			for _, in := range c.Inputs {
				want = append(want, "in."+in.Name)
			}
			for _, o := range c.Outputs {
				if _, err := bir.ParseDtype(o.Dtype); err != nil {
					t.Errorf("output %s: %v", o.Key, err)
				}
				want = append(want, "out."+o.Key)
			}
			if got := a.Names(); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
				t.Errorf("%s holds %v, the manifest lists %v", c.Golden, got, slices.Sorted(slices.Values(want)))
			}
			if c.Tolerance.Reason == "" || c.Tolerance.Abs < 0 || c.Tolerance.Rel < 0 {
				t.Errorf("tolerance %+v: want non-negative bounds and a reason", c.Tolerance)
			}
		})
	}
	counts := kernelsByAPI(man)
	for _, api := range []string{"legacy", "current"} {
		if counts[api] < 40 {
			t.Errorf("%d distinct %s kernels; issues 24 and 25 ask for at least 40", counts[api], api)
		}
	}
	var total int64
	files, _ := filepath.Glob(filepath.Join("golden", "*"))
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			total += st.Size()
		}
		if strings.HasSuffix(f, ".npz") && !goldens[filepath.ToSlash(f)] {
			t.Errorf("%s belongs to no case of the manifest (rerun refgen.py into a clean directory)", f)
		}
	}
	if total > maxGoldenBytes {
		t.Errorf("golden/ holds %d bytes; keep it under %d (smaller shapes, lower-entropy inputs)", total, maxGoldenBytes)
	}
	t.Logf("%d cases, %d legacy and %d current kernels, golden/ %d bytes", len(man.Cases), counts["legacy"], counts["current"], total)
}

// maxGoldenBytes bounds the golden directory (15 MB).
const maxGoldenBytes = 15_000_000

// checkCaseLayout checks case c's API, directory, path roots and twin.
func checkCaseLayout(t *testing.T, c *testCase, byName map[string]*testCase) {
	t.Helper()
	switch c.API {
	case "legacy":
		if !strings.HasPrefix(c.File, "legacy/") || len(c.Path) > 0 || c.Twin != "" {
			t.Errorf("a legacy case lives in legacy/ with no path and no twin: file %s, path %v, twin %q", c.File, c.Path, c.Twin)
		}
	case "current":
		if !strings.HasPrefix(c.File, "current/") && !strings.HasPrefix(c.File, "pkg/") {
			t.Errorf("a current case lives in current/ or pkg/: file %s", c.File)
		}
	default:
		t.Errorf("api %q: want legacy or current", c.API)
	}
	if strings.HasPrefix(c.File, "pkg/") && len(c.Path) == 0 {
		t.Errorf("package case %s has no path: its imports would not resolve", c.File)
	}
	if len(c.Path) > 0 {
		under := false
		for _, root := range c.Path {
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				t.Errorf("path %q is not a directory", root)
			}
			if rel, err := filepath.Rel(root, c.File); err == nil && !strings.HasPrefix(rel, "..") {
				under = true
			}
		}
		if !under {
			t.Errorf("%s lies under none of its path roots %v", c.File, c.Path)
		}
	}
	if c.Twin == "" {
		return
	}
	tw := byName[c.Twin]
	switch {
	case tw == nil:
		t.Errorf("twin %q is not a case", c.Twin)
	case tw.API != "legacy" || c.API != "current":
		t.Errorf("twin %q: a current case's twin must be a legacy case (api %q)", c.Twin, tw.API)
	case !slices.EqualFunc(tw.Inputs, c.Inputs, func(a, b tensorDesc) bool {
		return a.Name == b.Name && a.Dtype == b.Dtype && slices.Equal(a.Shape, b.Shape)
	}):
		t.Errorf("twin %s takes inputs %v, this case %v", tw.Name, tw.Inputs, c.Inputs)
	case !slices.EqualFunc(tw.Outputs, c.Outputs, func(a, b outputDesc) bool {
		return a.Key == b.Key && a.Dtype == b.Dtype && slices.Equal(a.Shape, b.Shape)
	}):
		t.Errorf("twin %s gives outputs %v, this case %v", tw.Name, tw.Outputs, c.Outputs)
	case tw.Golden != c.Golden || !maps.Equal(tw.Args, c.Args) || !slices.Equal(tw.Grid, c.Grid) || tw.Tolerance != c.Tolerance:
		t.Errorf("twin %s: golden %s args %v grid %v tolerance %+v, this case %s %v %v %+v",
			tw.Name, tw.Golden, tw.Args, tw.Grid, tw.Tolerance, c.Golden, c.Args, c.Grid, c.Tolerance)
	}
}
