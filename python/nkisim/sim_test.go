// Package nkisim holds the Go side of the drop-in NKI simulator module
// (python/nkisim, docs/nki-simulator.md): its tests. The module itself is
// Python: packages neuronxcc and nki that a user puts on PYTHONPATH in
// place of NKI's, whose @nki.jit kernels run through `narwhal run`.
//
// The tests (issue 25, "Must show", the drop-in module):
//
//   - TestUnit_FakeNarwhal runs the module's own unit tests
//     (tests/unit, unittest style, numpy only) against a fake narwhal:
//     argument marshalling, the dotted-name search, output naming, in-place
//     writes, error mapping, finding and building narwhal, the dtype
//     stand-in.
//   - TestEndToEnd_TestFiles builds narwhal and runs the project's own NKI
//     test files (tests/nki: legacy and current API kernels, in kernel
//     modules of their own and inside the test files; pytest and unittest
//     styles; output parameters, returns, tuples, grids, --arg scalars and
//     nl.* ops, bfloat16 through the stand-in) unchanged with `python3 -m pytest` and
//     `python3 -m unittest`, PYTHONPATH set to this directory and NARWHAL
//     to the binary, and requires every test to pass.
//   - TestEndToEnd_BrokenKernel copies the test files, breaks one kernel
//     of each API (an add becomes a subtract) and requires the test of
//     that kernel to fail on its value assertion (numpy's "Mismatched
//     elements"), not on an error raised by narwhal or nkisim, under both
//     runners.
//
// Python: NARWHAL_PYTHON, then python3 on PATH, then /usr/bin/python3,
// the first that imports numpy (and pytest, for the pytest runs); none
// skips with a message, so `go test ./...` passes with only Go installed.

package nkisim

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// python returns an interpreter that imports all of mods, or skips.
func python(t *testing.T, mods ...string) string {
	t.Helper()
	var candidates []string
	if p := os.Getenv("NARWHAL_PYTHON"); p != "" {
		candidates = append(candidates, p)
	}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/bin/python3")
	probe := "import " + strings.Join(mods, ", ")
	for _, c := range candidates {
		if err := exec.Command(c, "-c", probe).Run(); err == nil {
			return c
		}
	}
	t.Skipf("no python3 that can %q (tried %s; set NARWHAL_PYTHON)", probe, strings.Join(candidates, ", "))
	return ""
}

var (
	buildOnce sync.Once
	buildDir  string
	binary    string
	buildErr  error
	buildOut  []byte
)

// TestMain removes the narwhal binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// narwhal builds cmd/narwhal once per test binary.
func narwhal(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nkisim-narwhal-")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		binary = filepath.Join(dir, "narwhal")
		cmd := exec.Command("go", "build", "-o", binary, "github.com/narwhal-compiler/narwhal/cmd/narwhal")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("go build ./cmd/narwhal: %v\n%s", buildErr, buildOut)
	}
	return binary
}

// moduleDir is this directory: what PYTHONPATH names.
func moduleDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runPython runs py with args in dir, the module on PYTHONPATH and
// NARWHAL set (when bin is not empty); it returns the exit status and the
// combined output.
func runPython(t *testing.T, py, dir, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(py, args...)
	cmd.Dir = dir
	env := []string{"PYTHONPATH=" + moduleDir(t), "PYTHONDONTWRITEBYTECODE=1"}
	if bin != "" {
		env = append(env, "NARWHAL="+bin)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "NARWHAL", "NKISIM_FLAGS", "NKISIM_KEEP",
			"NEURON_PLATFORM_TARGET_OVERRIDE", "NEURON_CC_FLAGS":
			continue
		}
		env = append(env, kv)
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String()
		}
		t.Fatalf("%s %v: %v", py, args, err)
	}
	return 0, out.String()
}

var (
	pytestPassed   = regexp.MustCompile(`(\d+) passed`)
	pytestFailed   = regexp.MustCompile(`(\d+) failed`)
	unittestRan    = regexp.MustCompile(`(?m)^Ran (\d+) tests?`)
	unittestFailed = regexp.MustCompile(`(?m)^FAILED \((.*)\)$`)
)

func count(t *testing.T, re *regexp.Regexp, out string) int {
	t.Helper()
	m := re.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestUnit_FakeNarwhal(t *testing.T) {
	py := python(t, "numpy")
	code, out := runPython(t, py, moduleDir(t), "", "-m", "unittest", "discover", "-s", "tests/unit", "-t", "tests/unit")
	if code != 0 || !strings.Contains(out, "\nOK") {
		t.Fatalf("unit tests: exit %d\n%s", code, out)
	}
	if n := count(t, unittestRan, out); n < 30 {
		t.Errorf("unit tests: ran %d, want at least 30\n%s", n, out)
	}
	t.Logf("unit tests: %s", strings.TrimSpace(unittestRan.FindString(out)))
}

// The project's NKI test files and the number of tests each holds.
var testFiles = []struct {
	file   string
	runner string // "pytest" or "unittest"
	tests  int
}{
	{"test_legacy_pytest.py", "pytest", 13},
	{"test_legacy_unittest.py", "unittest", 6},
	{"test_current_pytest.py", "pytest", 9},
	{"test_current_unittest.py", "unittest", 5},
	{"test_inline_unittest.py", "unittest", 3},
	{"test_inline_pytest.py", "pytest", 2},
}

func runTestFile(t *testing.T, py, bin, dir, file, runner string, extra ...string) (int, string) {
	t.Helper()
	if runner == "pytest" {
		args := append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-q", "-rN", file}, extra...)
		return runPython(t, py, dir, bin, args...)
	}
	args := append([]string{"-m", "unittest", "-v", strings.TrimSuffix(file, ".py")}, extra...)
	return runPython(t, py, dir, bin, args...)
}

func TestEndToEnd_TestFiles(t *testing.T) {
	py := python(t, "numpy", "pytest")
	bin := narwhal(t)
	dir := filepath.Join(moduleDir(t), "tests", "nki")
	for _, tf := range testFiles {
		t.Run(tf.file, func(t *testing.T) {
			code, out := runTestFile(t, py, bin, dir, tf.file, tf.runner)
			if code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", tf.runner, tf.file, code, out)
			}
			switch tf.runner {
			case "pytest":
				if n := count(t, pytestPassed, out); n != tf.tests {
					t.Errorf("%s: %d passed, want %d\n%s", tf.file, n, tf.tests, out)
				}
			case "unittest":
				if n := count(t, unittestRan, out); n != tf.tests || !strings.Contains(out, "\nOK") {
					t.Errorf("%s: ran %d, want %d, all OK\n%s", tf.file, n, tf.tests, out)
				}
			}
		})
	}
}

// copyDir copies the regular files of src (one level) into a new
// temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// breakKernel replaces the one occurrence of old in dir/file by new.
func breakKernel(t *testing.T, dir, file, old, new string) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want once (the kernel changed: update this test)", file, old, n)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestEndToEnd_BrokenKernel(t *testing.T) {
	py := python(t, "numpy", "pytest")
	bin := narwhal(t)
	src := filepath.Join(moduleDir(t), "tests", "nki")
	cases := []struct {
		name     string
		kernels  string
		old, new string
		file     string
		runner   string
		selector []string // the tests of the broken kernel
		failing  int
	}{
		{"legacy add_into, pytest", "legacy_kernels.py",
			"value=nl.add(a_tile, b_tile)", "value=nl.subtract(a_tile, b_tile)",
			"test_legacy_pytest.py", "pytest", []string{"-k", "add_into"}, 3},
		{"legacy add_into, unittest", "legacy_kernels.py",
			"value=nl.add(a_tile, b_tile)", "value=nl.subtract(a_tile, b_tile)",
			"test_legacy_unittest.py", "unittest", []string{"-k", "add_into"}, 1},
		{"current add, pytest", "current_kernels.py",
			"nisa.tensor_tensor(dst=c_t, data1=a_t, data2=b_t, op=nl.add)",
			"nisa.tensor_tensor(dst=c_t, data1=a_t, data2=b_t, op=nl.subtract)",
			"test_current_pytest.py", "pytest", []string{"-k", "test_add and not blocks and not rejects"}, 2},
		{"current add, unittest", "current_kernels.py",
			"nisa.tensor_tensor(dst=c_t, data1=a_t, data2=b_t, op=nl.add)",
			"nisa.tensor_tensor(dst=c_t, data1=a_t, data2=b_t, op=nl.subtract)",
			"test_current_unittest.py", "unittest", []string{"-k", "*.test_add"}, 1},
		{"inline exp_rows, unittest", "test_inline_unittest.py",
			"nisa.activation(op=nl.exp,", "nisa.activation(op=nl.sigmoid,",
			"test_inline_unittest.py", "unittest", []string{"-k", "exp_rows"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyDir(t, src)
			// The same selection passes before the break ...
			code, out := runTestFile(t, py, bin, dir, c.file, c.runner, c.selector...)
			if code != 0 {
				t.Fatalf("before the break: exit %d\n%s", code, out)
			}
			// ... and fails after it, on the value assertion.
			breakKernel(t, dir, c.kernels, c.old, c.new)
			code, out = runTestFile(t, py, bin, dir, c.file, c.runner, c.selector...)
			if code != 1 {
				t.Fatalf("after the break: exit %d, want 1 (tests failed)\n%s", code, out)
			}
			if !strings.Contains(out, "Mismatched elements") || !strings.Contains(out, "AssertionError") {
				t.Errorf("the failure is not numpy's value assertion\n%s", out)
			}
			for _, wrong := range []string{"NarwhalError", "NarwhalInternalError", "OutputError", "KernelOnlyError"} {
				if strings.Contains(out, wrong) {
					t.Errorf("the failure mentions %s: it is not (only) the value assertion\n%s", wrong, out)
				}
			}
			switch c.runner {
			case "pytest":
				if n := count(t, pytestFailed, out); n != c.failing {
					t.Errorf("%d failed, want %d\n%s", n, c.failing, out)
				}
			case "unittest":
				m := unittestFailed.FindStringSubmatch(out)
				if m == nil || m[1] != "failures="+strconv.Itoa(c.failing) {
					t.Errorf("want FAILED (failures=%d), no errors\n%s", c.failing, out)
				}
			}
		})
	}
}
