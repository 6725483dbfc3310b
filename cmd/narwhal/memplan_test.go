package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestVerify_Stage: `narwhal verify --stage allocated` accepts a compiled
// module, rejects one that stopped before allocation, names an unknown
// stage, and catches an address corrupted so that two live tiles overlap
// (the overlap rule, which also runs without --stage on allocated input).
func TestVerify_Stage(t *testing.T) {
	dir := t.TempDir()
	done := filepath.Join(dir, "done.bir")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=512", "-o", done); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := narwhal(t, "verify", done, "--stage", "allocated"); code != 0 || !strings.Contains(stdout, "ok at stage allocated") {
		t.Fatalf("verify --stage allocated: exit %d, %q, %q", code, stdout, stderr)
	}
	early := filepath.Join(dir, "early.bir")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=512", "--passes", "full_unroll", "-o", early); code != 0 {
		t.Fatalf("compile --passes full_unroll: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", early); code != 0 {
		t.Fatalf("verify without a stage: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", early, "--stage", "allocated"); code != 1 || !strings.Contains(stderr, "[allocated]") {
		t.Fatalf("an unallocated module at stage allocated: exit %d, %q", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", done, "--stage", "alocated"); code != 1 || !strings.Contains(stderr, "unknown verifier stage") {
		t.Fatalf("unknown stage: exit %d, %q", code, stderr)
	}
	// Move the second x tile onto the first one's bytes: both are live
	// at once (loaded before the first add).
	text, err := os.ReadFile(done)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?m)^(    loc %y_tile_set_sub0: SB 128x2048) addr=\d+ allocated$`)
	if !re.Match(text) {
		t.Fatalf("no placed y_tile_set_sub0 in:\n%s", text)
	}
	bad := filepath.Join(dir, "bad.bir")
	if err := os.WriteFile(bad, re.ReplaceAll(text, []byte("$1 allocated")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := narwhal(t, "verify", bad)
	if code != 1 || !strings.Contains(stderr, "[overlap]") || !strings.Contains(stderr, "y_tile_set_sub0") {
		t.Fatalf("overlapping placement: exit %d, %q", code, stderr)
	}
}
