package main

// NKI kernels straight from their Python source (../shared/docs/nki-frontend.md).
//
// compile, run, print and verify take a kernel file (a FILE ending in .py)
// and trace it with package nki/frontend before anything else:
//
//	--kernel NAME               the function to trace (default: the file's only @nki.jit one)
//	--input NAME=DTYPE[D0,...]  a tensor parameter's dtype and shape (repeatable)
//	--inputs FILE.npz|DIR       tensor parameters' dtypes and shapes from an archive or a
//	                            directory of NAME.npy (run also reads their data)
//	--arg NAME=EXPR             any other parameter: a Python literal or a dotted name
//	                            of the kernel file's module namespace (repeatable)
//	--grid A[,B...]             the SPMD launch grid kernel[A, B](...)
//	--path DIR                  where imported helper modules are found, after the
//	                            kernel file's directory (repeatable)
//	--open-placements           the kernel's direct allocations ignored, every tile
//	                            placed by the memory planner
//
// run's outputs are then named as the contract says: a returned tensor is
// `return`, the items of a returned tuple `return0`, `return1`, ..., and
// every tensor parameter the kernel wrote keeps its parameter name.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/nki/golden"
	"github.com/narwhal-compiler/narwhal/npy"
)

// nkiFlags are the flags that bind a kernel file's parameters.
type nkiFlags struct {
	kernel *string
	input  multiFlag
	args   multiFlag
	grid   *string
	path   multiFlag
	open   *bool
	// inputs is the --inputs flag: run's own (which also supplies data),
	// or one added for compile, print and verify.
	inputs *string
	// extra are tensor specs from elsewhere (run --check: the reference
	// case's inputs).
	extra []frontend.TensorSpec
}

// addNKIFlags registers the kernel-file flags on fs. inputs is run's
// --inputs flag; nil adds one (for the commands without it).
func addNKIFlags(fs *flag.FlagSet, inputs *string) *nkiFlags {
	nf := &nkiFlags{}
	nf.kernel = fs.String("kernel", "", "a kernel file (.py): the `NAME` of the function to trace (default: the file's only @nki.jit function)")
	fs.Var(&nf.input, "input", "a kernel file's tensor parameter `NAME=DTYPE[D0,D1,...]` (repeatable; data random from --seed)")
	fs.Var(&nf.args, "arg", "a kernel file's other parameter `NAME=EXPR`: a Python literal or a dotted name of the file's namespace (repeatable)")
	nf.grid = fs.String("grid", "", "a kernel file's SPMD launch grid `A[,B...]` (kernel[A, B](...))")
	fs.Var(&nf.path, "path", "a `DIR` searched for modules a kernel file imports, after the file's own directory (repeatable)")
	nf.open = fs.Bool("open-placements", false, "a kernel file's direct allocations (address=, ncc.sbuf/psum.mod_alloc) ignored: every tile placed by the memory planner (compile both ways to compare)")
	if inputs == nil {
		inputs = fs.String("inputs", "", "a kernel file's tensor parameters' dtypes and shapes from `FILE.npz` (keys = parameter names) or a directory of NAME.npy")
	}
	nf.inputs = inputs
	return nf
}

// isKernelFile reports whether an input names an NKI kernel's Python source.
func isKernelFile(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".py") && !strings.HasPrefix(path, driver.BuiltinPrefix)
}

// used reports whether any kernel-file flag was given (an error for an
// input that is not a kernel file: the flag would be ignored).
func (nf *nkiFlags) used(fs *flag.FlagSet) string {
	name := ""
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "kernel", "input", "arg", "grid", "path", "open-placements":
			if name == "" {
				name = f.Name
			}
		}
	})
	return name
}

// loadModule loads any input: a kernel file is traced with the flags, any
// other input goes to driver.Load (and a kernel-file flag with it is an
// error). k is nil for inputs that are not kernel files.
func loadModule(fs *flag.FlagSet, input string, nf *nkiFlags, archName string, log io.Writer) (*bir.Module, *frontend.Kernel, error) {
	if !isKernelFile(input) {
		if nf != nil {
			if name := nf.used(fs); name != "" {
				return nil, nil, diag.Errorf(diag.Usage, "--%s applies to a kernel file (.py), and %s is not one", name, input)
			}
		}
		m, err := driver.Load(input)
		return m, nil, err
	}
	outfile.NoteInput(input)
	src, err := os.ReadFile(input)
	if err != nil {
		return nil, nil, diag.Wrap(diag.ReadInput, err)
	}
	opts, err := nf.options(archName, log)
	if err != nil {
		return nil, nil, err
	}
	return frontend.Load(input, src, opts)
}

// options turns the flags into the frontend's options.
func (nf *nkiFlags) options(archName string, log io.Writer) (frontend.Options, error) {
	opts := frontend.Options{Kernel: *nf.kernel, Arch: archName, Path: nf.path, Log: log, OpenPlacements: *nf.open}
	seen := map[string]string{}
	for _, s := range nf.input {
		spec, err := parseTensorSpec(s)
		if err != nil {
			return opts, err
		}
		if prev, dup := seen[spec.Name]; dup {
			return opts, diag.Errorf(diag.KernelBind, "--input %s: parameter %s is already given by %s", s, spec.Name, prev)
		}
		seen[spec.Name] = "--input " + s
		opts.Tensors = append(opts.Tensors, spec)
	}
	if *nf.inputs != "" {
		specs, err := specsFromInputs(*nf.inputs)
		if err != nil {
			return opts, err
		}
		for _, spec := range specs {
			if _, dup := seen[spec.Name]; dup {
				continue // --input wins over the archive's array of the same name
			}
			seen[spec.Name] = "--inputs " + *nf.inputs
			spec.FromArchive = true
			opts.Tensors = append(opts.Tensors, spec)
		}
	}
	for _, spec := range nf.extra {
		if _, dup := seen[spec.Name]; !dup {
			seen[spec.Name] = "the reference"
			opts.Tensors = append(opts.Tensors, spec)
		}
	}
	for _, a := range nf.args {
		name, expr, ok := strings.Cut(a, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.TrimSpace(expr) == "" {
			return opts, diag.Errorf(diag.KernelBind, "--arg %q: want NAME=EXPR (a Python literal such as 3, 1e-5, (3, 4), True, None, 'x', or a dotted name such as nl.add)", a)
		}
		if prev, dup := seen[name]; dup {
			return opts, diag.Errorf(diag.KernelBind, "--arg %s: parameter %s is already given by %s", a, name, prev)
		}
		seen[name] = "--arg " + a
		opts.Args = append(opts.Args, frontend.Arg{Name: name, Expr: strings.TrimSpace(expr)})
	}
	if *nf.grid != "" {
		g, err := parseGrid(*nf.grid)
		if err != nil {
			return opts, err
		}
		opts.Grid = g
	}
	return opts, nil
}

// parseTensorSpec reads NAME=DTYPE[D0,D1,...].
func parseTensorSpec(s string) (frontend.TensorSpec, error) {
	bad := func(why string) (frontend.TensorSpec, error) {
		return frontend.TensorSpec{}, diag.Errorf(diag.KernelBind, "--input %q: %s (want NAME=DTYPE[D0,D1,...], e.g. a=bfloat16[128,512])", s, why)
	}
	name, rest, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return bad("no NAME=")
	}
	open := strings.IndexByte(rest, '[')
	if open < 0 || !strings.HasSuffix(strings.TrimSpace(rest), "]") {
		return bad("no [shape]")
	}
	dt, err := bir.ParseDtype(strings.TrimSpace(rest[:open]))
	if err != nil {
		if alias, ok := dtypeAliases[strings.TrimSpace(rest[:open])]; ok {
			dt, err = alias, nil
		}
	}
	if err != nil {
		return bad(err.Error())
	}
	dims := strings.TrimSuffix(strings.TrimSpace(rest[open+1:]), "]")
	var shape []int64
	for _, d := range strings.Split(dims, ",") {
		d = strings.TrimSpace(d)
		if d == "" {
			return bad("an empty dimension")
		}
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil || n <= 0 {
			return bad(fmt.Sprintf("dimension %q is not a positive integer", d))
		}
		shape = append(shape, n)
	}
	return frontend.TensorSpec{Name: name, Dtype: dt, Shape: shape}, nil
}

// dtypeAliases are numpy's and NKI's spellings that are not names of the
// dtype table.
var dtypeAliases = map[string]bir.Dtype{
	"bf16": bir.BFloat16, "fp16": bir.Float16, "half": bir.Float16, "fp32": bir.Float32, "f32": bir.Float32,
	"float": bir.Float32, "tfloat32": bir.Float32R, "bool": bir.Uint8, "bool_": bir.Uint8,
	"float8_e5m2": bir.Float8E5, "float8_e4m3": bir.Float8E4,
}

// parseGrid reads A[,B...] (positive integers).
func parseGrid(s string) ([]int64, error) {
	var g []int64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n <= 0 {
			return nil, diag.Errorf(diag.KernelBind, "--grid %q: %q is not a positive integer (want A[,B...], e.g. 2,2)", s, f)
		}
		g = append(g, n)
	}
	if len(g) > 3 {
		return nil, diag.Errorf(diag.KernelBind, "--grid %q: %d dimensions; an SPMD grid has at most 3", s, len(g))
	}
	return g, nil
}

// specsFromInputs reads the dtypes and shapes of an archive's arrays or a
// directory's NAME.npy files.
func specsFromInputs(path string) ([]frontend.TensorSpec, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, diag.Errorf(diag.RunInput, "--inputs: %w", err)
	}
	var specs []frontend.TensorSpec
	if !st.IsDir() {
		a, err := npy.OpenNPZ(path)
		if err != nil {
			return nil, diag.Errorf(diag.RunInput, "--inputs: %w", err)
		}
		defer a.Close()
		for _, n := range a.Names() {
			t, err := a.Read(n)
			if err != nil {
				return nil, diag.Errorf(diag.RunInput, "--inputs: %w", err)
			}
			specs = append(specs, frontend.TensorSpec{Name: n, Dtype: t.Dtype, Shape: t.Shape})
		}
		return specs, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, diag.Errorf(diag.RunInput, "--inputs: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), npy.Ext)
		if !ok || e.IsDir() {
			continue
		}
		t, err := npy.ReadFile(filepath.Join(path, e.Name()))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, diag.Errorf(diag.RunInput, "--inputs: %w", err)
		}
		specs = append(specs, frontend.TensorSpec{Name: name, Dtype: t.Dtype, Shape: t.Shape})
	}
	return specs, nil
}

// renameOutputs names a kernel file's run outputs as the contract says:
// return / returnN for returned tensors, the parameter name for a written
// parameter. Outputs of main that are neither keep their tensor name.
func renameOutputs(outs map[string]*interp.Tensor, k *frontend.Kernel) map[string]*interp.Tensor {
	if k == nil {
		return outs
	}
	named := map[string]*interp.Tensor{}
	taken := map[string]bool{}
	for _, o := range slices.Concat(k.Returns, k.Written) {
		if t, ok := outs[o.Tensor]; ok {
			c := *t
			c.Name = o.Key
			named[o.Key] = &c
			taken[o.Tensor] = true
		}
	}
	for name, t := range outs {
		if !taken[name] {
			if _, clash := named[name]; !clash {
				named[name] = t
			}
		}
	}
	return named
}

// reference is a kernel file's golden reference for run --check: the case
// of a golden manifest (package nki/golden) that matches the kernel, its
// --arg values, the grid and the input shapes.
type reference struct {
	m    *golden.Manifest
	c    *golden.Case
	g    *golden.Golden
	file string
}

// findReference locates the case before the kernel is traced: when no
// tensors are given, the case's inputs supply the shapes (and run uses its
// data).
func findReference(fs *flag.FlagSet, file string, nf *nkiFlags) (*reference, error) {
	man, err := golden.Locate(file)
	if err != nil {
		return nil, diag.Errorf(diag.KernelBind, "--check: %w", err)
	}
	if man == nil {
		return nil, diag.Errorf(diag.KernelBind, "--check: %s has no reference: no golden/manifest.json beside it or above it lists it (narwhal compares a kernel file with the goldens kernels/nki/refgen.py writes)", file)
	}
	opts, err := nf.options("", nil)
	if err != nil {
		return nil, err
	}
	args := map[string]string{}
	for _, a := range opts.Args {
		args[a.Name] = a.Expr
	}
	var shapes map[string][]int64
	if len(opts.Tensors) > 0 {
		shapes = map[string][]int64{}
		for _, s := range opts.Tensors {
			shapes[s.Name] = s.Shape
		}
	}
	var cases []*golden.Case
	kernels := map[string]bool{}
	for i := range man.Cases {
		c := &man.Cases[i]
		if opts.Kernel != "" && c.Kernel != opts.Kernel {
			continue
		}
		for _, m := range man.Match(file, c.Kernel, args, opts.Grid, shapes) {
			if m == c {
				cases = append(cases, c)
				kernels[c.Kernel] = true
			}
		}
	}
	switch {
	case len(cases) == 0:
		return nil, diag.Errorf(diag.KernelBind, "--check: the golden manifest of %s has no case for kernel %q with these --arg values, grid and input shapes", file, opts.Kernel)
	case len(kernels) > 1:
		return nil, diag.Errorf(diag.KernelBind, "--check: the golden manifest has cases for several kernels of %s (%s): pick one with --kernel", file, strings.Join(slices.Sorted(maps.Keys(kernels)), ", "))
	}
	c := cases[0]
	g, err := man.Load(c)
	if err != nil {
		return nil, diag.Errorf(diag.RunInput, "--check: case %s: %w", c.Name, err)
	}
	if len(opts.Tensors) == 0 {
		for _, in := range c.Inputs {
			t := g.Inputs[in.Name]
			nf.extra = append(nf.extra, frontend.TensorSpec{Name: in.Name, Dtype: t.Dtype, Shape: t.Shape})
		}
	}
	if *nf.kernel == "" {
		*nf.kernel = c.Kernel
	}
	return &reference{m: man, c: c, g: g, file: file}, nil
}

// bindInputs replaces the drawn inputs by the case's.
func (r *reference) bindInputs(inputs map[string]*interp.Tensor, origin map[string]string) {
	for name := range inputs {
		if t, ok := r.g.Inputs[name]; ok {
			inputs[name] = t
			origin[name] = r.m.Dir + "/" + r.c.Golden + ":in." + name
		}
	}
}

// check compares the outputs (named by run's keys) with the case.
func (r *reference) check(inputs, outs map[string]*interp.Tensor, stdout io.Writer) error {
	for name, t := range r.g.Inputs {
		if in, ok := inputs[name]; ok && !bytes.Equal(in.Data, t.Data) {
			return diag.Errorf(diag.RunInput, "--check: input %s is not the reference case %s's input: the reference holds only for its own inputs (leave out --inputs and --input)", name, r.c.Name)
		}
	}
	lines, err := golden.Check(r.c, r.g, outs)
	if err != nil {
		return diag.Errorf(diag.RunFault, "--check: %s differs from its reference: %w", r.file, err)
	}
	for _, l := range lines {
		fmt.Fprintf(stdout, "check  %s\n", l)
	}
	return nil
}
