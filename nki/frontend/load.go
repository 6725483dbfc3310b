package frontend

import (
	"fmt"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/nki/api"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// Load traces the kernel in the Python source src (the file's content;
// path names it in positions and errors) and returns the module and what
// it holds. Errors carry their position (file, line, column) and a diag
// code.
//
// The steps, each a place an error can come from:
//
//  1. parse: a SyntaxError is NW206 with the line and column CPython gives;
//  2. run the module's top level, as `import` would (the module is named
//     after the file, so an `if __name__ == "__main__":` block does not
//     run): imports of the NKI modules, numpy and helper files, constants,
//     decorators; a Python exception is NW420;
//  3. pick the kernel (Options.Kernel, else the only @nki.jit function)
//     and bind its parameters (NW107 when a flag names no parameter or a
//     parameter has no value);
//  4. trace it (package nki/api): NW420 to NW422 with the kernel's line.
func Load(path string, src []byte, opts Options) (m *bir.Module, k *Kernel, err error) {
	f, err := syntax.Parse(path, src)
	if err != nil {
		return nil, nil, err
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	modName, root := moduleName(path)
	im := newImporter(path, root, opts.Path)
	th := tracer.NewThread(tracer.ThreadOptions{Print: log, Importer: im})
	im.byFile[filepath.Clean(path)] = modName
	im.loading = append(im.loading, modName)
	mod, err := tracer.ExecFile(th, f, modName)
	im.loading = im.loading[:0]
	if err != nil {
		return nil, nil, err
	}
	im.mods[modName] = mod
	name, fn, err := pickKernel(path, mod, opts.Kernel)
	if err != nil {
		return nil, nil, err
	}
	call, desc, err := bind(th, path, mod, name, fn, opts)
	if err != nil {
		return nil, nil, err
	}
	m, res, err := api.TraceKernel(th, call)
	if err != nil {
		return nil, nil, err
	}
	desc.Returns = toOutputs(res.Returns)
	desc.Written = toOutputs(res.Written)
	return m, desc, nil
}

// moduleName is the dotted name the kernel file's module gets, as
// `python -m` would name it from the directory above its package (never
// "__main__"): its file name without .py, prefixed by the packages
// (directories with an __init__.py) that contain it, so that its relative
// imports resolve. root is the directory above the outermost package ("" when
// the file is in no package).
func moduleName(path string) (name, root string) {
	name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if name == "" || name == "__main__" {
		name = "kernel"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return name, ""
	}
	dir := filepath.Dir(abs)
	for range maxImportDepth {
		if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
			break
		}
		name = filepath.Base(dir) + "." + name
		root = filepath.Dir(dir)
		dir = root
	}
	return name, root
}

// pickKernel finds the function to trace.
func pickKernel(path string, mod *tracer.Module, want string) (string, tracer.Value, error) {
	var jitted, plain []string
	fns := map[string]tracer.Value{}
	for _, n := range mod.Names() {
		v, _ := mod.Get(n)
		fn, isJit := api.KernelOf(v)
		if fn == nil {
			continue
		}
		// A function imported from elsewhere (from helpers import f) is
		// not this file's kernel unless asked for by name.
		if pf, ok := fn.(*tracer.Function); ok && pf.Module() != mod && want == "" {
			continue
		}
		fns[n] = fn
		if isJit {
			jitted = append(jitted, n)
		} else {
			plain = append(plain, n)
		}
	}
	if want != "" {
		if fn, ok := fns[want]; ok {
			return want, fn, nil
		}
		v, ok := mod.Get(want)
		if ok {
			return "", nil, bindErrorf(path, "--kernel %s: %s is a %s, not a function", want, want, v.Type())
		}
		return "", nil, bindErrorf(path, "--kernel %s: the file defines no function %s (functions: %s)", want, want, listOr(append(jitted, plain...)))
	}
	switch {
	case len(jitted) == 1:
		return jitted[0], fns[jitted[0]], nil
	case len(jitted) > 1:
		return "", nil, bindErrorf(path, "the file has %d @nki.jit kernels (%s): pick one with --kernel NAME", len(jitted), strings.Join(jitted, ", "))
	case len(plain) == 1:
		return plain[0], fns[plain[0]], nil
	case len(plain) > 1:
		return "", nil, bindErrorf(path, "the file has no @nki.jit kernel and %d functions (%s): pick one with --kernel NAME", len(plain), strings.Join(plain, ", "))
	}
	return "", nil, bindErrorf(path, "the file defines no function to trace")
}

func listOr(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// bind matches the options to the kernel's parameters.
func bind(th *tracer.Thread, path string, mod *tracer.Module, name string, fn tracer.Value, opts Options) (api.KernelCall, *Kernel, error) {
	call := api.KernelCall{File: path, Name: name, Fn: fn, Grid: opts.Grid, Arch: opts.Arch, OpenPlacements: opts.OpenPlacements}
	desc := &Kernel{Name: name, File: path}
	pf, ok := fn.(*tracer.Function)
	if !ok {
		return call, nil, bindErrorf(path, "kernel %s: a %s, not a Python function", name, fn.Type())
	}
	tensors := map[string]TensorSpec{}
	for _, s := range opts.Tensors {
		tensors[s.Name] = s
	}
	args := map[string]string{}
	for _, a := range opts.Args {
		args[a.Name] = a.Expr
	}
	known := map[string]bool{}
	var names []string
	for _, p := range pf.Params() {
		if p.Kind != tracer.ParamVarPositional && p.Kind != tracer.ParamVarKeyword {
			known[p.Name] = true
			names = append(names, p.Name)
		}
	}
	var unknown []string
	for n, s := range tensors {
		if !known[n] && !s.FromArchive {
			unknown = append(unknown, "--input "+n)
		}
	}
	for n := range args {
		if !known[n] {
			unknown = append(unknown, "--arg "+n)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return call, nil, bindErrorf(path, "kernel %s has no parameter %s (parameters: %s)", name, strings.Join(unknown, ", "), listOr(names))
	}
	for _, p := range pf.Params() {
		if p.Kind == tracer.ParamVarPositional || p.Kind == tracer.ParamVarKeyword {
			continue
		}
		b := api.Binding{Name: p.Name}
		if p.Kind == tracer.ParamKeywordOnly {
			_, isTensor := tensors[p.Name]
			_, isArg := args[p.Name]
			if p.Default == nil || isTensor || isArg {
				return call, nil, bindErrorf(path, "kernel %s: keyword-only parameter %s: narwhal passes a kernel's parameters by position, so a keyword-only one keeps its default", name, p.Name)
			}
		}
		if s, ok := tensors[p.Name]; ok {
			b.Tensor = &api.TensorArg{Dtype: s.Dtype, Shape: s.Shape}
			desc.Params = append(desc.Params, Param{Name: p.Name, Tensor: true})
		} else if e, ok := args[p.Name]; ok {
			v, err := tracer.EvalExpr(th, mod, e)
			if err != nil {
				return call, nil, bindErrorf(path, "--arg %s=%s: %v", p.Name, e, err)
			}
			b.Value = v
			desc.Params = append(desc.Params, Param{Name: p.Name, Value: tracer.Repr(v)})
		} else if p.Default != nil {
			if p.Kind == tracer.ParamKeywordOnly {
				desc.Params = append(desc.Params, Param{Name: p.Name, Value: tracer.Repr(p.Default)})
				continue // the function's own default applies
			}
			b.Value = p.Default
			desc.Params = append(desc.Params, Param{Name: p.Name, Value: tracer.Repr(p.Default)})
		} else {
			return call, nil, bindErrorf(path, "kernel %s: parameter %s has no value: give a tensor with --input %s=DTYPE[D0,...] (or --inputs FILE.npz), or another value with --arg %s=EXPR", name, p.Name, p.Name, p.Name)
		}
		call.Args = append(call.Args, b)
	}
	return call, desc, nil
}

func toOutputs(ios []api.IO) []Output {
	var out []Output
	for _, o := range ios {
		out = append(out, Output{Key: o.Key, Tensor: o.Tensor})
	}
	return out
}

// BindError is a kernel file's options that do not fit its kernel.
type BindError struct {
	File string
	Msg  string
}

func (e *BindError) Error() string     { return e.File + ": " + e.Msg }
func (e *BindError) ErrorCode() string { return diag.KernelBind }

func bindErrorf(path, format string, args ...any) error {
	return &BindError{File: path, Msg: fmt.Sprintf(format, args...)}
}

// maxImportDepth bounds nested imports of helper files.
const maxImportDepth = 64

// importer resolves the imports of a kernel file: the NKI modules and
// numpy (package nki/api), then Python files found from the kernel
// file's directory and the --path directories, as CPython's path-based
// finder would find them (a module a.b.c is a/b/c.py or a/b/c/__init__.py;
// a directory without __init__.py is a namespace package).
type importer struct {
	dirs   []string
	mods   map[string]*tracer.Module // loaded modules by dotted name
	byFile map[string]string         // a loaded file's path -> its module's dotted name
	isPkg  map[string]bool           // dotted names that are packages
	// loading lists the modules whose top level is running, innermost
	// last: importing one of them again is a circular import.
	loading []string
}

func newImporter(kernelPath, root string, path []string) *importer {
	dirs := []string{filepath.Dir(kernelPath)}
	if root != "" {
		dirs = append(dirs, root)
	}
	dirs = append(dirs, path...)
	return &importer{dirs: dirs, mods: map[string]*tracer.Module{}, byFile: map[string]string{}, isPkg: map[string]bool{}}
}

func (im *importer) Import(th *tracer.Thread, name string, level int, from tracer.Pos) (tracer.Value, error) {
	full := name
	if level == 0 {
		if v, ok := api.Import(name); ok {
			return v, nil
		}
	} else {
		importer, ok := im.byFile[filepath.Clean(from.File)]
		if !ok {
			return nil, tracer.Errorf("ImportError", "attempted relative import with no known parent package")
		}
		pkg := importer
		if !im.isPkg[importer] {
			pkg = parentOf(importer)
		}
		for i := 1; i < level; i++ {
			pkg = parentOf(pkg)
		}
		if pkg == "" {
			return nil, tracer.Errorf("ImportError", "attempted relative import beyond top-level package")
		}
		if name != "" {
			full = pkg + "." + name
		} else {
			full = pkg
		}
	}
	return im.load(th, full)
}

func parentOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

// load imports full and every package above it.
func (im *importer) load(th *tracer.Thread, full string) (tracer.Value, error) {
	parts := strings.Split(full, ".")
	var parent *tracer.Module
	var dirs = im.dirs
	for i := range parts {
		n := strings.Join(parts[:i+1], ".")
		m, ok := im.mods[n]
		if !ok {
			var err error
			m, dirs, err = im.find(th, n, parts[i], dirs)
			if err != nil {
				return nil, err
			}
		} else {
			dirs = im.subdirs(n, dirs, parts[i])
		}
		if parent != nil {
			parent.Set(parts[i], m)
		}
		parent = m
	}
	return parent, nil
}

// subdirs returns where the submodules of package n (last component
// base) are searched.
func (im *importer) subdirs(n string, dirs []string, base string) []string {
	var out []string
	for _, d := range dirs {
		p := filepath.Join(d, base)
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

// find loads module n (last component base) from dirs and returns it with
// the directories its submodules live in.
func (im *importer) find(th *tracer.Thread, n, base string, dirs []string) (*tracer.Module, []string, error) {
	var nsDirs []string
	for _, d := range dirs {
		pkgDir := filepath.Join(d, base)
		if st, err := os.Stat(pkgDir); err == nil && st.IsDir() {
			initFile := filepath.Join(pkgDir, "__init__.py")
			if _, err := os.Stat(initFile); err == nil {
				im.isPkg[n] = true
				m, err := im.exec(th, initFile, n)
				return m, []string{pkgDir}, err
			}
			nsDirs = append(nsDirs, pkgDir)
			continue
		}
		file := filepath.Join(d, base+".py")
		if _, err := os.Stat(file); err == nil && len(nsDirs) == 0 {
			m, err := im.exec(th, file, n)
			return m, nil, err
		}
	}
	if len(nsDirs) > 0 {
		// A namespace package: a directory without __init__.py.
		im.isPkg[n] = true
		m := tracer.NewModule(n, nil)
		im.mods[n] = m
		return m, nsDirs, nil
	}
	return nil, nil, tracer.Errorf("ModuleNotFoundError", "No module named '%s'", n)
}

// exec runs a module file's top level and caches the module (before it
// runs, so that a circular import finds the partial module, as in CPython).
func (im *importer) exec(th *tracer.Thread, file, n string) (*tracer.Module, error) {
	outfile.NoteInput(file)
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, tracer.Errorf("ImportError", "%s: %v", file, err)
	}
	f, err := syntax.Parse(file, src)
	if err != nil {
		return nil, err
	}
	// A module being imported is in the tracer's module table (CPython's
	// sys.modules) from the start of its top level, so a circular import
	// finds the partial module, as in CPython, and never comes here; the
	// depth bound is a last guard.
	if len(im.loading) >= maxImportDepth {
		return nil, tracer.Errorf("RecursionError", "imports nest more than %d deep", maxImportDepth)
	}
	im.byFile[filepath.Clean(file)] = n
	im.loading = append(im.loading, n)
	m, err := tracer.ExecFile(th, f, n)
	im.loading = im.loading[:len(im.loading)-1]
	if err != nil {
		return nil, err
	}
	im.mods[n] = m
	return m, nil
}
