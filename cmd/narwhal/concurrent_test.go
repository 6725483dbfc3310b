package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRun_Concurrent: narwhal run --concurrent on a compiled kernel under
// each policy reports no race and outputs equal to the sequential run's;
// the same file with one wait removed exits 1 with a race naming both
// instructions and the bytes; a bad policy or engine is an error.
func TestRun_Concurrent(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ta.json")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=128", "-o", out); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	for _, p := range []string{"random", "late-dma", "starve:Vector", "starve:queue0"} {
		code, stdout, stderr := narwhal(t, "run", out, "--concurrent", "--interleave", p, "--seed", "3", "--outputs", filepath.Join(dir, "o"))
		if code != 0 || !strings.Contains(stdout, "no race, no deadlock, outputs bit-identical to the sequential run") {
			t.Errorf("--interleave %s: exit %d\n%s%s", p, code, stdout, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Remove the first wait of a two-wait instruction.
	re := regexp.MustCompile(`"waits":\[\[(\d+),(\d+)\],`)
	loc := re.FindIndex(data)
	if loc == nil {
		t.Fatal("no instruction with two waits in the compiled kernel")
	}
	cut := append(append([]byte{}, data[:loc[0]]...), append([]byte(`"waits":[`), data[loc[1]:]...)...)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := narwhal(t, "run", bad, "--concurrent", "--no-verify", "--outputs", filepath.Join(dir, "o2"))
	if code != 1 || !regexp.MustCompile(`race: function main, instruction \S+ \(\w+ on [\w ]+\) (reads|writes) and function main, instruction \S+ \(\w+ on [\w ]+\) (reads|writes) (SBUF|DRAM|PSUM) .*bytes \[\d+, \d+\)`).MatchString(stdout) {
		t.Errorf("one wait removed: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr := narwhal(t, "run", out, "--concurrent", "--interleave", "starve:Nowhere"); code != 1 || !strings.Contains(stderr, "unknown engine or queue") {
		t.Errorf("bad engine: exit %d: %s", code, stderr)
	}
}

// TestCompile_Streams: --streams writes one listing per engine and per DMA
// queue used, with waits, updates and DMA triggers.
func TestCompile_Streams(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "streams")
	code, stdout, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=256,cols=128", "--streams", dir)
	if code != 0 || !strings.Contains(stdout, "listings (one per engine and DMA queue)") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, name := range []string{"main.tensor.txt", "main.vector.txt", "main.scalar.txt", "main.gpsimd.txt", "main.sync.txt", "main.queue0.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	all := ""
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		all += string(b)
	}
	for _, want := range []string{"$S[", "]>=", "++@complete", "fire ", "fired by ", "= Halt on"} {
		if !strings.Contains(all, want) {
			t.Errorf("the listings lack %q", want)
		}
	}
	v, _ := os.ReadFile(filepath.Join(dir, "main.vector.txt"))
	if !regexp.MustCompile(`(?m)^\s+\d+\s+\d+\s+\$S\[\d+\]>=\d+.* = TensorTensor on DVE .*\$S\[\d+\]\+\+@complete$`).Match(v) {
		t.Errorf("main.vector.txt: want lines 'pos start waits instruction updates':\n%s", v)
	}
}
