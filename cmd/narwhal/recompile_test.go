package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/kernels"
)

// TestCompile_CompiledInput: recompiling narwhal's own output (issue 27
// item 4) keeps it. For every built-in kernel, in both formats, the
// compiled module compiles again to the same bytes (verified at the
// stages its compile produced, no pass rerun), its report says so, it
// still runs correctly (--check), and --passes on it, or --lnc, is
// refused with NW313 instead of the internal error of before
// ("verifier after pass alloc_semaphores: ... depends on instruction
// add.0_sync2: want a live instruction").
func TestCompile_CompiledInput(t *testing.T) {
	dir := t.TempDir()
	for _, k := range kernels.All() {
		for _, ext := range []string{".json", ".bir"} {
			t.Run(k.Name+ext, func(t *testing.T) {
				first := filepath.Join(dir, k.Name+ext)
				again := filepath.Join(dir, k.Name+".again"+ext)
				if code, _, stderr := narwhal(t, "compile", "builtin:"+k.Name, "-o", first); code != 0 {
					t.Fatalf("builtin:%s does not compile with its defaults: %s", k.Name, stderr)
				}
				code, stdout, stderr := narwhal(t, "compile", first, "-o", again, "--report")
				if code != 0 {
					t.Fatalf("compile %s: exit %d: %s", first, code, stderr)
				}
				if !strings.Contains(stdout, "the input is compiled: verified at stage") {
					t.Errorf("the report does not say the input was kept: %.400s", stdout)
				}
				a, _ := os.ReadFile(first)
				b, _ := os.ReadFile(again)
				if !bytes.Equal(a, b) {
					t.Errorf("recompiling %s changed it (%d -> %d bytes)", first, len(a), len(b))
				}
				if code, _, stderr := narwhal(t, "run", again, "--check", "--outputs", filepath.Join(dir, "out")); code != 0 {
					t.Errorf("run %s --check: exit %d: %s", again, code, stderr)
				}
				code, _, stderr = narwhal(t, "compile", first, "--passes", "alloc")
				if code != 1 || !strings.Contains(stderr, "error[NW313]") {
					t.Errorf("compile %s --passes alloc: exit %d, %q, want NW313", first, code, stderr)
				}
			})
		}
	}
	t.Run("lnc", func(t *testing.T) {
		out := filepath.Join(dir, "lnc.json")
		if code, _, stderr := narwhal(t, "compile", "builtin:exchange", "--lnc", "2", "-o", out); code != 0 {
			t.Fatalf("compile --lnc 2: %s", stderr)
		}
		core0 := filepath.Join(dir, "lnc.core0.json")
		code, _, stderr := narwhal(t, "compile", core0, "--lnc", "2")
		if code != 1 || !strings.Contains(stderr, "error[NW313]") || !strings.Contains(stderr, "one core's program") {
			t.Errorf("compile %s --lnc 2: exit %d, %q, want NW313 naming its stage", core0, code, stderr)
		}
	})
}
