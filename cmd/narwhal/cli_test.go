package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/npy"
)

// The foundation's must-shows, end to end through the CLI.

func TestCompile_DefaultKernelPrintsReport(t *testing.T) {
	code, stdout, stderr := narwhal(t, "compile")
	if code != 0 {
		t.Fatalf("narwhal compile: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "narwhal pass report") || !strings.Contains(stdout, "total") {
		t.Errorf("no report in the output:\n%s", stdout)
	}
	for _, p := range passTableNames() {
		if !strings.Contains(stdout, p) {
			t.Errorf("report does not name pass %s:\n%s", p, stdout)
		}
	}
}

func TestPrint_RoundTripIsByteStable(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			code, first, stderr := narwhal(t, "print", "builtin:tensor_add", "--format", format)
			if code != 0 {
				t.Fatalf("print builtin: exit %d: %s", code, stderr)
			}
			path := filepath.Join(dir, "a."+format)
			if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
				t.Fatal(err)
			}
			code, second, stderr := narwhal(t, "print", path, "--format", format)
			if code != 0 {
				t.Fatalf("print %s: exit %d: %s", path, code, stderr)
			}
			if first != second {
				t.Errorf("print of the printed %s differs (%d vs %d bytes)", format, len(first), len(second))
			}
		})
	}
}

func TestCompile_WritesOutputByExtension(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"out.json", "out.bir"} {
		path := filepath.Join(dir, name)
		code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "-o", path)
		if code != 0 {
			t.Fatalf("compile -o %s: exit %d: %s", name, code, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		isJSON := strings.HasPrefix(strings.TrimSpace(string(data)), "{")
		if isJSON != strings.HasSuffix(name, ".json") {
			t.Errorf("%s: JSON = %v", name, isJSON)
		}
		// The output reads back and verifies.
		if code, _, stderr := narwhal(t, "verify", path); code != 0 {
			t.Errorf("verify %s: exit %d: %s", name, code, stderr)
		}
	}
}

func TestBadInput_ExitOneWithOneLine(t *testing.T) {
	tests := []struct {
		file string
		want string // a substring of the message
	}{
		{"malformed.json", "malformed.json:"},
		{"dangling.json", `"no_such_tensor"`},
		{"oob.json", "want 0 <= index < 65536"},
		{"dtype_name.json", `unknown dtype "float33"`},
		{"dtype_number.json", "unknown dtype number 20"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"verify", "compile", "print"} {
			if cmd == "print" && tt.file == "oob.json" {
				continue // print does not verify: an out-of-bounds pattern is printable
			}
			code, _, stderr := narwhal(t, cmd, filepath.Join("testdata", "bad", tt.file))
			if code != 1 {
				t.Errorf("%s %s: exit %d, want 1", cmd, tt.file, code)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("%s %s: message is not one line: %q", cmd, tt.file, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("%s %s: message %q does not contain %q", cmd, tt.file, stderr, tt.want)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("%s %s: panic trace: %q", cmd, tt.file, stderr)
			}
		}
	}
}

func TestCLI_UsageErrors(t *testing.T) {
	tests := [][]string{
		{"nosuchcommand"},
		{"compile", "a", "b"},
		{"compile", "--passes", "no_such_pass"},
		{"compile", "--option", "nodot=1"},
		{"compile", "--arch", "trn9"},
		{"print", "builtin:no_such_kernel"},
		{"print", "/nonexistent/file.json"},
	}
	for _, args := range tests {
		code, _, stderr := narwhal(t, args...)
		if code != 1 || stderr == "" {
			t.Errorf("narwhal %v: exit %d, stderr %q; want exit 1 and a message", args, code, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := narwhal(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "narwhal ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// TestRun_KLRFile goes from an NKI kernel file to a simulated result in one
// command (issue 7): the loader wraps the kernel, run materializes it and
// the interpreter computes out = a + b exactly.
func TestRun_KLRFile(t *testing.T) {
	klrPath := filepath.Join("..", "..", "..", "shared", "fixtures", "klr", "tensor_add.klr")
	if _, err := os.Stat(klrPath); err != nil {
		t.Skipf("KLR fixtures not available (%v): they live in ../shared/fixtures/klr", err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, 128*512), make([]float32, 128*512)
	for i := range a {
		a[i], b[i] = float32(i%1000)*0.25, float32(i%7)-3.5
	}
	for name, v := range map[string][]float32{"a": a, "b": b} {
		tn, err := ref.FromFloat32s(name, bir.Float32, []int64{128, 512}, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := npy.WriteFile(filepath.Join(in, name+".npy"), tn); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"run", klrPath, "--inputs", in, "--outputs", out},
		{"compile", klrPath, "-o", filepath.Join(dir, "out.json")},
	} {
		if code, _, stderr := narwhal(t, args...); code != 0 {
			t.Fatalf("narwhal %v: exit %d: %s", args, code, stderr)
		}
	}
	res, err := npy.ReadFile(filepath.Join(out, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ref.Float32s(res)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != a[i]+b[i] {
			t.Fatalf("out[%d] = %v, want %v", i, got[i], a[i]+b[i])
		}
	}
}

func TestAlloc_MiniMallocFile(t *testing.T) {
	csv := filepath.Join("..", "..", "..", "shared", "bench", "minimalloc", "A.1048576.csv")
	if _, err := os.Stat(csv); err != nil {
		t.Skipf("MiniMalloc benchmarks not available (%v): they live in ../shared/bench/minimalloc", err)
	}
	out := filepath.Join(t.TempDir(), "a.csv")
	code, stdout, stderr := narwhal(t, "alloc", csv, "--capacity=1048576", "-o", out)
	if code != 0 {
		t.Fatalf("alloc: exit %d: %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no output file: %v", err)
	}
	if code, _, _ := narwhal(t, "alloc", csv, "--capacity=1000"); code != 1 {
		t.Errorf("alloc into 1000 bytes: exit %d, want 1", code)
	}
}
