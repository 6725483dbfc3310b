// Package kernels holds narwhal's built-in example kernels: the embedded
// default that `narwhal compile` runs with no input, and the workloads of
// tests and benchmarks. Each kernel is built with the bir.Builder API and is
// parameterized (sizes, dtype); `builtin:NAME` with optional parameters,
// e.g. `builtin:tensor_add:rows=1024,cols=512,dtype=bf16`, names one
// wherever a FILE is accepted.
//
// The kernels are modelled on the public NKI tutorials (aws-neuron
// nki-samples): tensor_add, matmul, softmax, rmsnorm, transpose2d,
// average_pool2d, attention, embedding and cce_reduce. Each one is written
// the way the NKI front end hands a kernel to the backend: loops stay
// loops (Loop instructions with symbolic access patterns), and a tile
// allocated inside a loop is a block tensor with one block per iteration,
// so that the unroller, the SBUF footprint passes and the DMA legalization
// passes all have real work.
//
// Every kernel carries an independent plain-Go reference implementation
// (Reference, in the kernel's _ref.go file; it never calls the
// interpreter) and the tolerance its outputs are held to: bit-exact for
// integer and copy kernels and for kernels whose arithmetic is a single
// fp32 operation per element, a bound derived from the kernel's
// floating-point error for reductions (each kernel documents its bound).
// Tests lists small parameter sets: passtest.ForEachKernel runs every pass
// test on each of them, so they are kept cheap for the interpreter.
package kernels

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// Param declares one kernel parameter.
type Param struct {
	Name    string
	Default string
	Doc     string
}

// Kernel is a registered built-in kernel.
type Kernel struct {
	Name   string
	Doc    string
	Params []Param
	// Build constructs the module for the given (complete) parameters.
	Build func(p Params) (*bir.Module, error)

	// Inputs, when set, returns the complete input tensors for a module
	// built by this kernel, for kernels whose inputs need constraints that
	// interp.RandomInputs cannot know (embedding indices within the table,
	// exactly summable values). It must depend only on the seed and the
	// module's input specs (names, dtypes, shapes), so that a module before
	// and after a pass gets the same inputs. nil: interp.RandomInputs.
	Inputs func(m *bir.Module, seed int64) map[string]*interp.Tensor

	// Reference computes the expected outputs from the inputs in plain Go
	// (never through the interpreter), with the tolerance each output is
	// held to (a missing entry means bit-exact).
	Reference func(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error)

	// Macro marks a kernel written at tensor granularity: its module holds
	// macro operations (docs/bir-json.md) that only sunda_size_tiling
	// (passes/tiling) makes single hardware instructions; the interpreter
	// runs it with interp.Options.Macro.
	Macro bool

	// Tests are small parameter sets ("k=v,k=v"; "" means the defaults)
	// that tests and passtest.ForEachKernel instantiate: cheap enough to
	// interpret in milliseconds, and together covering the kernel's code
	// paths (tiling, predicates, dtypes, modes).
	Tests []string
}

// Params are resolved kernel parameters (defaults filled in).
type Params map[string]string

// Int returns an integer parameter.
func (p Params) Int(name string) (int64, error) {
	v, err := strconv.ParseInt(p[name], 0, 64)
	if err != nil {
		return 0, fmt.Errorf("parameter %s=%q: want an integer", name, p[name])
	}
	return v, nil
}

// Dtype returns a dtype parameter.
func (p Params) Dtype(name string) (bir.Dtype, error) {
	d, err := bir.ParseDtype(p[name])
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %w", name, err)
	}
	return d, nil
}

// Float returns a floating-point parameter.
func (p Params) Float(name string) (float64, error) {
	v, err := strconv.ParseFloat(p[name], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("parameter %s=%q: want a finite number", name, p[name])
	}
	return v, nil
}

// Str returns a string parameter.
func (p Params) Str(name string) string { return p[name] }

var registry = map[string]*Kernel{}

// Register adds a kernel; it panics on a duplicate name (init-time error).
func Register(k *Kernel) {
	if _, dup := registry[k.Name]; dup {
		panic("kernels: duplicate kernel " + k.Name)
	}
	registry[k.Name] = k
}

// All returns the registered kernels sorted by name.
func All() []*Kernel {
	out := make([]*Kernel, 0, len(registry))
	for _, k := range registry {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the kernel named name.
func Lookup(name string) (*Kernel, bool) {
	k, ok := registry[name]
	return k, ok
}

// DefaultKernel is the kernel `narwhal compile` runs with no input.
const DefaultKernel = "tensor_add"

// ParseSpec splits "NAME[:k=v,k=v]" (the part after "builtin:") and
// resolves the parameters against the kernel's declarations.
func ParseSpec(spec string) (*Kernel, Params, error) {
	name, args, _ := strings.Cut(spec, ":")
	k, ok := registry[name]
	if !ok {
		var names []string
		for _, k := range All() {
			names = append(names, k.Name)
		}
		return nil, nil, fmt.Errorf("unknown built-in kernel %q (known: %s)", name, strings.Join(names, ", "))
	}
	p := Params{}
	for _, d := range k.Params {
		p[d.Name] = d.Default
	}
	if args != "" {
		seen := map[string]bool{}
		for _, kv := range strings.Split(args, ",") {
			key, val, ok := strings.Cut(kv, "=")
			if !ok || key == "" {
				return nil, nil, fmt.Errorf("builtin:%s: parameter %q: want key=value", name, kv)
			}
			if seen[key] {
				return nil, nil, fmt.Errorf("builtin:%s: parameter %s is given twice: give it once", name, key)
			}
			seen[key] = true
			if _, known := p[key]; !known {
				var known []string
				for _, d := range k.Params {
					known = append(known, d.Name)
				}
				return nil, nil, fmt.Errorf("builtin:%s: unknown parameter %q (known: %s)", name, key, strings.Join(known, ", "))
			}
			p[key] = val
		}
	}
	return k, p, nil
}

// Spec returns the spec string "NAME[:k=v,...]" of a kernel instance,
// listing the parameters that differ from the defaults in declaration
// order (the defaults alone give "NAME").
func (k *Kernel) Spec(p Params) string {
	var kv []string
	for _, d := range k.Params {
		if v, ok := p[d.Name]; ok && v != d.Default {
			kv = append(kv, d.Name+"="+v)
		}
	}
	if len(kv) == 0 {
		return k.Name
	}
	return k.Name + ":" + strings.Join(kv, ",")
}

// TestSpecs returns the specs of the kernel's Tests ("NAME" for the
// defaults, "NAME:k=v,..." otherwise); a kernel without Tests gives its
// defaults.
func (k *Kernel) TestSpecs() []string {
	if len(k.Tests) == 0 {
		return []string{k.Name}
	}
	out := make([]string, len(k.Tests))
	for i, t := range k.Tests {
		if t == "" {
			out[i] = k.Name
		} else {
			out[i] = k.Name + ":" + t
		}
	}
	return out
}

// Instance is a kernel built for a spec: the kernel, its resolved
// parameters and the module.
type Instance struct {
	Kernel *Kernel
	Params Params
	Spec   string
	Module *bir.Module
}

// Instantiate builds the module named by a spec "NAME[:k=v,...]" and keeps
// the kernel and parameters with it (for Inputs and Reference).
func Instantiate(spec string) (*Instance, error) {
	k, p, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	m, err := k.Build(p)
	if err != nil {
		return nil, fmt.Errorf("builtin:%s: %w", k.Spec(p), err)
	}
	m.Config.Options[SpecOption] = k.Spec(p)
	return &Instance{Kernel: k, Params: p, Spec: k.Spec(p), Module: m}, nil
}

// SpecOption is the module option in which Instantiate and Build record
// the kernel a module was built from ("NAME:k=v,..."). It travels with the
// module through the text and BIR-JSON forms and through every pass, so
// `narwhal run` on a saved or compiled copy draws the kernel's own inputs
// (an embedding's indices in range, say) and can --check it against the
// kernel's Go reference, exactly as for builtin:NAME.
const SpecOption = "narwhal.kernel"

// Recorded returns the instance recorded in m by SpecOption, with m as its
// module; ok is false when m records none. An unknown or malformed spec is
// an error (a file edited by hand, or written by another narwhal version).
func Recorded(m *bir.Module) (in *Instance, ok bool, err error) {
	spec, ok := m.Config.Options[SpecOption]
	if !ok {
		return nil, false, nil
	}
	k, p, err := ParseSpec(spec)
	if err != nil {
		return nil, true, fmt.Errorf("module option %s=%q: %w", SpecOption, spec, err)
	}
	// The record must describe this module: a module whose option names
	// another kernel (a hand edit, a copied option) would get that
	// kernel's inputs and fail --check only after running. The kernel is
	// rebuilt (a loop nest: cheap) and its interface compared.
	built, err := k.Build(p)
	if err != nil {
		return nil, true, fmt.Errorf("module option %s=%q: %w", SpecOption, spec, err)
	}
	for _, side := range []struct {
		what       string
		want, have []interp.Spec
	}{{"inputs", interp.InputSpecs(built), interp.InputSpecs(m)}, {"outputs", interp.OutputSpecs(built), interp.OutputSpecs(m)}} {
		if !sameSpecs(side.want, side.have) {
			return nil, true, fmt.Errorf("module option %s=%q names builtin:%s, whose %s are %s, but the module's are %s: the option does not describe this module (remove it to run with random inputs)",
				SpecOption, spec, k.Spec(p), side.what, specList(side.want), specList(side.have))
		}
	}
	return &Instance{Kernel: k, Params: p, Spec: k.Spec(p), Module: m}, true, nil
}

// sameSpecs reports whether two interfaces have the same names, dtypes
// and shapes in the same order.
func sameSpecs(a, b []interp.Spec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Dtype != b[i].Dtype || !slices.Equal(a[i].Shape, b[i].Shape) {
			return false
		}
	}
	return true
}

// specList renders an interface for messages: "x float32 [512 2048], y ...".
func specList(ss []interp.Spec) string {
	if len(ss) == 0 {
		return "none"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = fmt.Sprintf("%s %s %v", s.Name, s.Dtype, s.Shape)
	}
	return strings.Join(parts, ", ")
}

// Inputs returns the instance's inputs for a seed: the kernel's Inputs
// when it has them, interp.RandomInputs otherwise.
func (in *Instance) Inputs(seed int64) map[string]*interp.Tensor {
	return InputsFor(in.Kernel, in.Module, seed)
}

// InputsFor returns inputs for module m built by kernel k (nil k: a module
// of unknown origin): k.Inputs when set, else interp.RandomInputs.
func InputsFor(k *Kernel, m *bir.Module, seed int64) map[string]*interp.Tensor {
	if k != nil && k.Inputs != nil {
		return k.Inputs(m, seed)
	}
	return interp.RandomInputs(m, seed)
}

// Expected runs the kernel's reference on inputs.
func (in *Instance) Expected(inputs map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	if in.Kernel.Reference == nil {
		return nil, nil, fmt.Errorf("builtin:%s has no reference implementation", in.Kernel.Name)
	}
	out, tol, err := in.Kernel.Reference(in.Params, inputs)
	if err != nil {
		return nil, nil, fmt.Errorf("builtin:%s reference: %w", in.Spec, err)
	}
	return out, tol, nil
}

// Build constructs the module named by a spec "NAME[:k=v,...]".
func Build(spec string) (*bir.Module, error) {
	k, p, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	m, err := k.Build(p)
	if err != nil {
		return nil, fmt.Errorf("builtin:%s: %w", k.Name, err)
	}
	m.Config.Options[SpecOption] = k.Spec(p)
	return m, nil
}

// Describe returns "name  k=default k=default  doc" for listings.
func (k *Kernel) Describe() string {
	var sb strings.Builder
	sb.WriteString(k.Name)
	for _, p := range k.Params {
		sb.WriteString(" ")
		sb.WriteString(p.Name)
		sb.WriteString("=")
		sb.WriteString(p.Default)
	}
	if k.Doc != "" {
		sb.WriteString("  # ")
		sb.WriteString(k.Doc)
	}
	return sb.String()
}
