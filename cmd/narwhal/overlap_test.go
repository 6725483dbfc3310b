package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// addCorruptingPass adds a default pass "test_corrupt" at the end of the
// pipeline table that gives the first two instructions of main the same
// name (which the verifier after the last pass rejects, and which the
// writers still print), and returns the function that removes it.
func addCorruptingPass() func() {
	saved := pipeline.Table.Passes
	pipeline.Table.Passes = append(append([]pass.Pass(nil), saved...), pass.Pass{Name: "test_corrupt", Default: true, Run: func(ctx *pass.Context) error {
		f := ctx.Module.Funcs[0]
		var first []bir.InstID
		f.Walk(func(i bir.InstID) bool {
			first = append(first, i)
			return len(first) < 2
		})
		f.Rename(first[1], ctx.Module.Str(f.Inst(first[0]).Name))
		return nil
	}})
	return func() { pipeline.Table.Passes = saved }
}

// dirNames lists a directory's entries (temporary files included).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestCompile_SaveBesideLastVerify: compile -o writes its output while the
// module is verified after the last pass (driver.StartSave), and --stats
// runs the two one after the other. The overlapped path must write the
// same bytes as the sequential one; when the verification fails it must
// fail with the same message and leave no file (an existing output kept
// as it was, no temporary file). Run it under -race: the verifier and the
// writers read the same module at once.
func TestCompile_SaveBesideLastVerify(t *testing.T) {
	cases := []struct{ kernel, ext string }{
		{"builtin:tensor_add", ".bir"},
		{"builtin:tensor_add", ".json"},
		{"builtin:matmul", ".bir"},
		{"builtin:matmul", ".json"},
		{"builtin:attention", ".bir"},
		// 25,000 instructions: outputs larger than the 4 MiB from which
		// outfile writes from a goroutine of its own.
		{"builtin:tensor_add:rows=800000,cols=64", ".bir"},
		{"builtin:tensor_add:rows=800000,cols=64", ".json"},
	}
	for _, c := range cases {
		t.Run(c.kernel+c.ext, func(t *testing.T) {
			dir := t.TempDir()
			overlapped, sequential := filepath.Join(dir, "a"+c.ext), filepath.Join(dir, "b"+c.ext)
			stats := filepath.Join(dir, "stats.json")
			before := overlappedSaves.Load()
			if code, _, stderr := narwhal(t, "compile", c.kernel, "-o", overlapped); code != 0 {
				t.Fatalf("compile -o: exit %d: %s", code, stderr)
			}
			if got := overlappedSaves.Load() - before; got != 1 {
				t.Fatalf("compile -o wrote %d outputs beside the last verification, want 1", got)
			}
			if code, _, stderr := narwhal(t, "compile", c.kernel, "-o", sequential, "--stats", stats); code != 0 {
				t.Fatalf("compile -o --stats: exit %d: %s", code, stderr)
			}
			if got := overlappedSaves.Load() - before; got != 1 {
				t.Fatalf("compile --stats wrote its output beside the last verification")
			}
			a, err := os.ReadFile(overlapped)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(sequential)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Fatalf("the overlapped save wrote %d bytes, the sequential one %d: they differ", len(a), len(b))
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"a" + c.ext, "b" + c.ext, "stats.json"}) {
				t.Fatalf("directory after the compiles: %v, want the two outputs and the stats only", names)
			}

			// The verification after the last pass fails.
			defer addCorruptingPass()()
			old := []byte("the output of an earlier compile\n")
			for _, p := range []string{overlapped, sequential} {
				if err := os.WriteFile(p, old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			os.Remove(stats)
			before = overlappedSaves.Load()
			codeA, stdoutA, stderrA := narwhal(t, "compile", c.kernel, "-o", overlapped)
			if got := overlappedSaves.Load() - before; got != 1 {
				t.Fatalf("the failing compile -o wrote %d outputs beside the last verification, want 1", got)
			}
			codeB, stdoutB, stderrB := narwhal(t, "compile", c.kernel, "-o", sequential, "--stats", stats)
			if codeA == 0 || !strings.Contains(stderrA, "verifier after pass test_corrupt") {
				t.Fatalf("a module the last verification rejects: exit %d, stderr %q; want the verifier's error", codeA, stderrA)
			}
			// The messages name the command (which differs by --stats and
			// the output's name): compare what comes before it.
			stderrA, _, _ = strings.Cut(stderrA, "please report it")
			stderrB, _, _ = strings.Cut(stderrB, "please report it")
			if codeA != codeB || stdoutA != stdoutB || stderrA != stderrB {
				t.Fatalf("overlapped: exit %d, stdout %q, stderr %q\nsequential: exit %d, stdout %q, stderr %q", codeA, stdoutA, stderrA, codeB, stdoutB, stderrB)
			}
			for _, p := range []string{overlapped, sequential} {
				if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, old) {
					t.Fatalf("%s after the failing compile: %d bytes (%v), want the earlier output unchanged", p, len(got), err)
				}
			}
			if names := dirNames(t, dir); !slices.Equal(names, []string{"a" + c.ext, "b" + c.ext}) {
				t.Fatalf("directory after the failing compiles: %v, want the two earlier outputs only (no temporary file)", names)
			}
		})
	}
}
