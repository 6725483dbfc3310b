// The numpy side of the suite, rerun where a python3 with numpy exists
// (NARWHAL_PYTHON, python3 on PATH, /usr/bin/python3, the first that
// imports numpy), skipped with a message elsewhere so that `go test ./...`
// passes with Go alone:
//
//   - refgen.py rerun into a temporary directory must reproduce the
//     committed goldens: manifest.json byte for byte, every .npz array with
//     the same name, dtype, shape and bytes (the archives themselves differ
//     in their zip timestamps);
//   - npmodel/run.py must pass every case: the suites' kernels, executed
//     in numpy models of the documented APIs (legacy and current), equal
//     the goldens, and every current-API twin equals its legacy case.

package nki_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/narwhal-compiler/narwhal/npy"
)

var (
	numpyOnce sync.Once
	numpyPath string
	numpyWhy  string
)

// pythonWithNumpy returns an interpreter that imports numpy, or "" and why
// there is none.
func pythonWithNumpy() (string, string) {
	numpyOnce.Do(func() {
		var cands []string
		if p := os.Getenv("NARWHAL_PYTHON"); p != "" {
			cands = append(cands, p)
		}
		if p, err := exec.LookPath("python3"); err == nil {
			cands = append(cands, p)
		}
		cands = append(cands, "/usr/bin/python3")
		var tried []string
		for _, c := range cands {
			if err := exec.Command(c, "-c", "import numpy").Run(); err == nil {
				numpyPath = c
				return
			}
			tried = append(tried, c)
		}
		numpyWhy = "no python3 with numpy (tried NARWHAL_PYTHON, python3 on PATH, /usr/bin/python3: " + strings.Join(tried, ", ") + ")"
	})
	return numpyPath, numpyWhy
}

// TestRefgen_GoldensUpToDate reruns refgen.py and compares its output with
// the committed golden/ directory.
func TestRefgen_GoldensUpToDate(t *testing.T) {
	py, why := pythonWithNumpy()
	if py == "" {
		t.Skip(why)
	}
	dir := t.TempDir()
	out, err := exec.Command(py, "refgen.py", "--out", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%s refgen.py: %v\n%s", py, err, out)
	}
	fresh, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("golden", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Errorf("golden/manifest.json differs from what refgen.py writes: rerun `%s kernels/nki/refgen.py` and commit golden/", py)
	}
	freshFiles, _ := filepath.Glob(filepath.Join(dir, "*.npz"))
	committedFiles, _ := filepath.Glob(filepath.Join("golden", "*.npz"))
	base := func(list []string) []string {
		var b []string
		for _, f := range list {
			b = append(b, filepath.Base(f))
		}
		slices.Sort(b)
		return b
	}
	if !slices.Equal(base(freshFiles), base(committedFiles)) {
		t.Fatalf("refgen.py writes %v, golden/ holds %v", base(freshFiles), base(committedFiles))
	}
	for _, name := range base(freshFiles) {
		if err := sameArchive(filepath.Join(dir, name), filepath.Join("golden", name)); err != "" {
			t.Errorf("golden/%s: %s", name, err)
		}
	}
}

// sameArchive compares two .npz archives array by array ("" when equal).
func sameArchive(fresh, committed string) string {
	a, err := npy.OpenNPZ(fresh)
	if err != nil {
		return err.Error()
	}
	defer a.Close()
	b, err := npy.OpenNPZ(committed)
	if err != nil {
		return err.Error()
	}
	defer b.Close()
	if !slices.Equal(a.Names(), b.Names()) {
		return "arrays " + strings.Join(b.Names(), ",") + ", refgen.py writes " + strings.Join(a.Names(), ",")
	}
	for _, n := range a.Names() {
		x, err := a.Read(n)
		if err != nil {
			return err.Error()
		}
		y, err := b.Read(n)
		if err != nil {
			return err.Error()
		}
		if x.Dtype != y.Dtype || !slices.Equal(x.Shape, y.Shape) || !bytes.Equal(x.Data, y.Data) {
			return "array " + n + " differs from what refgen.py writes"
		}
	}
	return ""
}

// TestNumpyModel_Cases runs npmodel/run.py: every case's kernel, executed
// in the numpy model of its API, must equal its goldens, every twin its
// legacy case, and the README's case and coverage tables must be current.
func TestNumpyModel_Cases(t *testing.T) {
	py, why := pythonWithNumpy()
	if py == "" {
		t.Skip(why)
	}
	out, err := exec.Command(py, filepath.Join("npmodel", "run.py"), "--readme", "check").CombinedOutput()
	if err != nil {
		t.Fatalf("%s npmodel/run.py: %v\n%s", py, err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	t.Log(lines[len(lines)-1])
}
