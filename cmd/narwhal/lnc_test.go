package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
)

// TestCompile_LNC: compile --lnc 2 compiles a two-core kernel's programs
// together: the report shows the joint schedule (LncAwareScheduler, with
// the exchange kernel's cross-core edges), each core's result verifies at
// stage synchronized, and run --concurrent runs the two at once and
// matches the kernel's reference; so does the two-core KLR fixture. A
// kernel with another core count, a flag that names one core's output, or
// several inputs is refused (NW101).
func TestCompile_LNC(t *testing.T) {
	klrDir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "fixtures", "klr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	code, stdout, stderr := narwhal(t, "compile", "builtin:exchange:rows=128,cols=64", "--lnc", "2", "-o", "ex.json", "--report")
	if code != 0 {
		t.Fatalf("compile --lnc 2: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"core 0 of 2", "core 1 of 2", "LncAwareScheduler (the 2 cores scheduled jointly)", "core_barriers = 2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report has no %q", want)
		}
	}
	if m := regexp.MustCompile(`(\d+) cross-core edges`).FindStringSubmatch(stdout); m == nil || m[1] == "0" {
		t.Errorf("the joint schedule has no cross-core edge (each core reads what the other wrote): %v", m)
	}
	for _, f := range []string{"ex.core0.json", "ex.core1.json"} {
		if code, _, stderr := narwhal(t, "verify", f, "--stage", "synchronized"); code != 0 {
			t.Errorf("verify %s: exit %d: %s", f, code, stderr)
		}
	}
	code, stdout, stderr = narwhal(t, "run", "ex.core0.json", "ex.core1.json", "--concurrent", "--check", "--outputs", "out")
	if code != 0 || !strings.Contains(stdout, "2 cores: no race, no deadlock") || strings.Count(stdout, "matches the Go reference") != 2 {
		t.Errorf("run --concurrent of the two cores: exit %d, %s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compile", "builtin:tensor_add", "--lnc", "2"}, "builtin:tensor_add has no core parameter"},
		{[]string{"compile", "builtin:exchange", "--lnc", "2", "--trace", "t.json"}, "--trace does not apply to --lnc"},
		{[]string{"compile", "builtin:exchange", "builtin:exchange", "--lnc", "2", "--out-dir", "o"}, "--lnc compiles one kernel's cores together"},
		{[]string{"compile", "builtin:exchange", "--lnc", "0"}, "--lnc 0: want 1..8"},
		{[]string{"run", "ex.core1.json", "ex.core0.json", "--concurrent"}, "give the cores' programs in core order"},
		{[]string{"run", "ex.core0.json", "ex.core1.json"}, "which run together with --concurrent"},
	} {
		code, _, stderr := narwhal(t, tc.args...)
		if code != 1 || !strings.Contains(stderr, "error[NW101]") || !strings.Contains(stderr, tc.want) {
			t.Errorf("narwhal %s: exit %d, %q; want NW101 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}

	if sharedtest.KLRNames(t, klrDir) == nil {
		return
	}
	if code, _, stderr := narwhal(t, "compile", filepath.Join(klrDir, "tensor_add_lnc2.klr"), "--lnc", "2", "-o", "k.json"); code != 0 {
		t.Fatalf("compile tensor_add_lnc2.klr --lnc 2: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := narwhal(t, "run", "k.core0.json", "k.core1.json", "--concurrent", "--outputs", "kout"); code != 0 || !strings.Contains(stdout, "no race, no deadlock") {
		t.Errorf("run --concurrent of the KLR fixture's cores: exit %d, %s%s", code, stdout, stderr)
	}
	if code, _, stderr := narwhal(t, "compile", filepath.Join(klrDir, "tensor_add.klr"), "--lnc", "2"); code != 1 || !strings.Contains(stderr, "the kernel runs on 1 logical core(s)") {
		t.Errorf("a one-core KLR kernel with --lnc 2: exit %d, %q", code, stderr)
	}
}
