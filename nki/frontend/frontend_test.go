package frontend

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/nki/golden"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// copyKernel is a kernel body (after the imports) that copies a and returns it.
const copyBody = `
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(a))
    return out
`

const imports = "import neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\n"

// writeTree writes files (path -> content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var a128 = []TensorSpec{{Name: "a", Dtype: bir.Float32, Shape: []int64{128, 64}}}

func load(t *testing.T, path string, opts Options) (*bir.Module, *Kernel, error) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Load(path, src, opts)
}

func TestLoad_PicksKernel(t *testing.T) {
	for _, c := range []struct {
		name, src, kernel string
		want              string // the kernel traced, or the error's text
	}{
		{"the only jit kernel", imports + "def helper(x):\n    return x\n\n@nki.jit\ndef k(a):" + copyBody, "", "k"},
		{"the nki.jit(f) form", imports + "def k_impl(a):" + copyBody + "k = nki.jit(k_impl)\n", "", "k"},
		{"a plain function alone", imports + "def k(a):" + copyBody, "", "k"},
		{"by name among several", imports + "@nki.jit\ndef k1(a):" + copyBody + "@nki.jit\ndef k2(a):" + copyBody, "k2", "k2"},
		{"several jit kernels", imports + "@nki.jit\ndef k1(a):" + copyBody + "@nki.jit\ndef k2(a):" + copyBody, "", "the file has 2 @nki.jit kernels (k1, k2): pick one with --kernel NAME"},
		{"several plain functions", imports + "def k1(a):" + copyBody + "def k2(a):" + copyBody, "", "the file has no @nki.jit kernel and 2 functions (k1, k2)"},
		{"no such name", imports + "def k(a):" + copyBody, "nope", "--kernel nope: the file defines no function nope (functions: k)"},
		{"not a function", imports + "X = 3\ndef k(a):" + copyBody, "X", "--kernel X: X is a int, not a function"},
		{"nothing to trace", imports + "X = 3\n", "", "the file defines no function to trace"},
		{"an imported function is not the file's kernel", imports + "from helpers import k\n\ndef mine(a):" + copyBody, "", "mine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{"k.py": c.src, "helpers.py": imports + "def k(a):" + copyBody})
			_, k, err := load(t, filepath.Join(dir, "k.py"), Options{Kernel: c.kernel, Tensors: a128})
			if err != nil {
				if !strings.Contains(err.Error(), c.want) || diag.CodeOf(err) != diag.KernelBind {
					t.Fatalf("error %v (code %s), want %q (NW107)", err, diag.CodeOf(err), c.want)
				}
				return
			}
			if k.Name != c.want {
				t.Fatalf("traced %s, want %s", k.Name, c.want)
			}
		})
	}
}

func TestLoad_Imports(t *testing.T) {
	helper := imports + "def copy_tile(a):" + copyBody
	user := func(imp, call string) string {
		return imports + imp + "\n\n@nki.jit\ndef k(a):\n    return " + call + "(a)\n"
	}
	for _, c := range []struct {
		name   string
		files  map[string]string
		kernel string   // the kernel file
		path   []string // --path, relative to the tree
		want   string   // "" for success, else the error's text
	}{
		{"a helper beside the kernel", map[string]string{"k.py": user("import helpers", "helpers.copy_tile"), "helpers.py": helper}, "k.py", nil, ""},
		{"from a package", map[string]string{"k.py": user("from pkg.util import copy_tile", "copy_tile"), "pkg/__init__.py": "", "pkg/util.py": helper}, "k.py", nil, ""},
		{"a submodule by import a.b", map[string]string{"k.py": user("import pkg.util", "pkg.util.copy_tile"), "pkg/__init__.py": "", "pkg/util.py": helper}, "k.py", nil, ""},
		{"a namespace package", map[string]string{"k.py": user("from ns.util import copy_tile", "copy_tile"), "ns/util.py": helper}, "k.py", nil, ""},
		{"relative, from a kernel inside a package", map[string]string{
			"lib/__init__.py": "", "lib/kernels/__init__.py": "", "lib/kernels/k.py": user("from ..util import copy_tile", "copy_tile"), "lib/util.py": helper,
		}, "lib/kernels/k.py", nil, ""},
		{"relative, in a helper", map[string]string{
			"k.py": user("from lib.a import copy_tile", "copy_tile"), "lib/__init__.py": "", "lib/a.py": "from .b import copy_tile\n", "lib/b.py": helper,
		}, "k.py", nil, ""},
		{"found through --path", map[string]string{"kern/k.py": user("from util import copy_tile", "copy_tile"), "libs/util.py": helper}, "kern/k.py", []string{"libs"}, ""},
		{"a package's __init__ runs once", map[string]string{
			"k.py": user("import pkg.a\nimport pkg.b", "pkg.a.copy_tile"), "pkg/__init__.py": "COUNT = [0]\nCOUNT[0] += 1\nassert COUNT[0] == 1\n", "pkg/a.py": helper, "pkg/b.py": "X = 1\n",
		}, "k.py", nil, ""},
		{"a missing module", map[string]string{"k.py": user("import nowhere", "nowhere.copy_tile")}, "k.py", nil, "k.py:3:8: ModuleNotFoundError: No module named 'nowhere'"},
		{"a circular import, as CPython allows it", map[string]string{"k.py": user("import m1", "m1.copy_tile"), "m1.py": "import m2\n" + helper, "m2.py": "import m1\n"}, "k.py", nil, ""},
		{"a circular from-import, as CPython refuses it", map[string]string{"k.py": user("import m1", "m1.copy_tile"), "m1.py": "import m2\n" + helper, "m2.py": "from m1 import copy_tile\n"}, "k.py", nil, "m2.py:1:16: ImportError: cannot import name 'copy_tile' from"},
		{"the kernel file imported back", map[string]string{"k.py": user("import m1", "m1.copy_tile"), "m1.py": "import k\nassert k.__name__ == 'k'\n" + helper}, "k.py", nil, ""},
		{"a syntax error in a helper", map[string]string{"k.py": user("import helpers", "helpers.copy_tile"), "helpers.py": "def f(:\n"}, "k.py", nil, "helpers.py:1:7: invalid syntax"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, c.files)
			var path []string
			for _, p := range c.path {
				path = append(path, filepath.Join(dir, p))
			}
			_, _, err := load(t, filepath.Join(dir, c.kernel), Options{Tensors: a128, Path: path})
			switch {
			case c.want == "" && err != nil:
				t.Fatal(err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestLoad_MainBlockDoesNotRun: the kernel file is imported, not run as a
// script, so its `if __name__ == "__main__":` block (where NKI users call
// the simulator) does not run.
func TestLoad_MainBlockDoesNotRun(t *testing.T) {
	dir := writeTree(t, map[string]string{"k.py": imports + "@nki.jit\ndef k(a):" + copyBody +
		"\nif __name__ == \"__main__\":\n    raise RuntimeError('ran as a script')\nprint('module', __name__)\n"})
	var log bytes.Buffer
	if _, _, err := load(t, filepath.Join(dir, "k.py"), Options{Tensors: a128, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); got != "module k\n" {
		t.Errorf("print output %q, want %q", got, "module k\n")
	}
}

func TestLoad_Binding(t *testing.T) {
	src := imports + "@nki.jit\ndef k(a, scale=2.0, *, flag=False):\n    assert isinstance(scale, float), type(scale)\n" +
		"    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)\n    nl.store(out, value=nl.multiply(nl.load(a), scale))\n    return out\n"
	dir := writeTree(t, map[string]string{"k.py": src})
	path := filepath.Join(dir, "k.py")
	for _, c := range []struct {
		name string
		opts Options
		want string // "" or the error
		code string
	}{
		{"defaults", Options{Tensors: a128}, "", ""},
		{"a literal", Options{Tensors: a128, Args: []Arg{{"scale", "0.5"}}}, "", ""},
		{"a wrong type reaches the kernel's assert", Options{Tensors: a128, Args: []Arg{{"scale", "'x'"}}}, "AssertionError: <class 'str'>", diag.KernelRaised},
		{"an unknown name", Options{Tensors: a128, Args: []Arg{{"scale", "nl.nope"}}}, "--arg scale=nl.nope", diag.KernelBind},
		{"a bad expression", Options{Tensors: a128, Args: []Arg{{"scale", "1 +"}}}, "--arg scale=1 +", diag.KernelBind},
		{"a keyword-only parameter", Options{Tensors: a128, Args: []Arg{{"flag", "True"}}}, "keyword-only", diag.KernelBind},
		{"no value", Options{}, "parameter a has no value", diag.KernelBind},
		{"an archive's extra array is ignored", Options{Tensors: append([]TensorSpec{{Name: "zz", Dtype: bir.Float32, Shape: []int64{1}, FromArchive: true}}, a128...)}, "", ""},
		{"an unknown --input is not", Options{Tensors: append([]TensorSpec{{Name: "zz", Dtype: bir.Float32, Shape: []int64{1}}}, a128...)}, "kernel k has no parameter --input zz (parameters: a, scale, flag)", diag.KernelBind},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, k, err := load(t, path, c.opts)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(k.Returns) != 1 || k.Returns[0].Key != "return" {
					t.Errorf("returns %v, want one return", k.Returns)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || diag.CodeOf(err) != c.code {
				t.Fatalf("error %v (code %s), want %q (%s)", err, diag.CodeOf(err), c.want, c.code)
			}
		})
	}
}

func TestLoad_ErrorsCarryPositions(t *testing.T) {
	dir := writeTree(t, map[string]string{"k.py": imports + "@nki.jit\ndef k(a):\n    x = undefined_name\n"})
	_, _, err := load(t, filepath.Join(dir, "k.py"), Options{Tensors: a128})
	var te *tracer.Error
	if !errors.As(err, &te) || te.Kind != "NameError" || te.Pos.Line != 5 || te.Pos.Col != 9 || !strings.HasSuffix(te.Pos.File, "k.py") {
		t.Fatalf("error %#v, want a NameError at k.py:5:9", err)
	}
}

// BenchmarkLoad_Suite traces every case of the kernel suite's manifest
// (kernels/nki): parse, the module's top level and the trace, per kernel
// and per line of the kernel file.
func BenchmarkLoad_Suite(b *testing.B) {
	man, err := golden.Read(filepath.Join("..", "..", "kernels", "nki", "golden", "manifest.json"))
	if err != nil {
		b.Skip(err)
	}
	type job struct {
		path string
		src  []byte
		opts Options
	}
	var jobs []job
	lines := 0
	for _, c := range man.Cases {
		p := filepath.Join(man.Dir, c.File)
		src, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		opts := Options{Kernel: c.Kernel, Grid: c.Grid}
		for _, in := range c.Inputs {
			dt, err := bir.ParseDtype(in.Dtype)
			if err != nil {
				b.Fatal(err)
			}
			opts.Tensors = append(opts.Tensors, TensorSpec{Name: in.Name, Dtype: dt, Shape: in.Shape})
		}
		for n, e := range c.Args {
			opts.Args = append(opts.Args, Arg{n, e})
		}
		for _, d := range c.Path {
			opts.Path = append(opts.Path, filepath.Join(man.Dir, d))
		}
		if _, _, err := Load(p, src, opts); err != nil {
			continue // a case the front end does not trace yet is not timed
		}
		jobs = append(jobs, job{p, src, opts})
		lines += bytes.Count(src, []byte("\n"))
	}
	b.ResetTimer()
	for range b.N {
		for _, j := range jobs {
			if _, _, err := Load(j.path, j.src, j.opts); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(jobs)), "ns/kernel")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines)*1000, "ns/1000lines")
	b.ReportMetric(float64(len(jobs)), "kernels")
}

// TestLoad_OpenPlacements: --open-placements traces a kernel's direct
// allocations as placement-open tiles.
func TestLoad_OpenPlacements(t *testing.T) {
	src := `import nki
import nki.language as nl
import nki.isa as nisa

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf, address=(0, 1024))
    nisa.dma_copy(dst=t, src=a)
    nisa.dma_copy(dst=out, src=t)
    return out
`
	dir := writeTree(t, map[string]string{"k.py": src})
	for _, open := range []bool{false, true} {
		m, _, err := load(t, filepath.Join(dir, "k.py"), Options{Tensors: a128, OpenPlacements: open})
		if err != nil {
			t.Fatal(err)
		}
		fixed := 0
		for _, f := range m.Funcs {
			for l := range f.NumLocs() {
				if lc := f.Loc(bir.LocID(l)); lc.Allocated && (lc.Type == bir.MemSB || lc.Type == bir.MemPSUM) {
					fixed++
				}
			}
		}
		if (fixed > 0) == open {
			t.Errorf("OpenPlacements %v: %d fixed on-chip locations", open, fixed)
		}
	}
}
