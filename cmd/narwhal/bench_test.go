package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/passes/unroll"
)

// TestBenchKernels: each benchmark kernel, sized by benchKernels, unrolls
// through the default pipeline to exactly the count benchKernels states,
// and --stats records every phase with the instruction counts.
func TestBenchKernels(t *testing.T) {
	dir := t.TempDir()
	sizes := map[string][]int64{"tensor_add": {1000, 30000}, "matmul": {20480, 60000}} // matmul: m = n = 16384, at least one k tile
	for _, kernel := range []string{"tensor_add", "matmul"} {
		for _, n := range sizes[kernel] {
			spec, want := benchKernels[kernel](n)
			if want < n/2 || want > 2*n {
				t.Errorf("%s(%d): %d instructions, far from the size asked", kernel, n, want)
			}
			stats := filepath.Join(dir, "stats.json")
			code, _, stderr := narwhal(t, "compile", spec, "-o", filepath.Join(dir, "out.bir"), "--stats", stats)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", spec, code, stderr)
			}
			data, err := os.ReadFile(stats)
			if err != nil {
				t.Fatal(err)
			}
			var st cmdStats
			if err := json.Unmarshal(data, &st); err != nil {
				t.Fatal(err)
			}
			// benchKernels counts the unrolled instructions; synchronization
			// (alloc_semaphores) adds carriers and stream endings after, and
			// performance tiling (sunda_size_tiling_perf) may split some.
			var names []string
			unrolled := int64(-1)
			for _, p := range st.Phases {
				names = append(names, p.Name)
				if p.Name == "full_unroll" {
					unrolled = p.Insts
				}
			}
			if unrolled != want || st.Insts < want {
				t.Errorf("%s: %d instructions after full_unroll (%d after compile), benchKernels says %d", spec, unrolled, st.Insts, want)
			}
			joined := strings.Join(names, ",")
			for _, phase := range []string{"load", "verify input", "full_unroll", "save"} {
				if !strings.Contains(joined, phase) {
					t.Errorf("%s: phases %s lack %s", spec, joined, phase)
				}
			}
			last := st.Phases[len(st.Phases)-1]
			if last.Name != "save" || last.Insts != st.Insts || last.LiveHeap == 0 || st.PeakRSS <= 0 {
				t.Errorf("%s: last phase %+v, peak RSS %d", spec, last, st.PeakRSS)
			}
		}
	}
}

// TestBenchKernels_Ceiling: "25M" sizes every kernel below FullUnroll's
// ceiling of 24,999,999 instructions, close to it.
func TestBenchKernels_Ceiling(t *testing.T) {
	for name, size := range benchKernels {
		spec, n := size(25_000_000)
		if n >= unroll.MaxTotalCount || n < unroll.MaxTotalCount-100_000 {
			t.Errorf("%s: %s unrolls to %d instructions", name, spec, n)
		}
	}
}

func TestParseCount(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"25M", 25_000_000, true}, {"5m", 5_000_000, true}, {"500k", 500_000, true}, {"1000", 1000, true},
		{"0", 0, false}, {"-1M", 0, false}, {"M", 0, false}, {"1.5M", 0, false}, {"99999999999999M", 0, false},
	}
	for _, tt := range tests {
		got, err := parseCount(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseCount(%q) = %d, %v; want %d, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// TestBench_BadArguments: bench refuses unknown kernels, commands and
// sizes before running anything.
func TestBench_BadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--runs", "nosuch:compile"},
		{"bench", "--runs", "tensor_add:nosuch"},
		{"bench", "--sizes", "x"},
		{"bench", "extra"},
	} {
		if code, _, stderr := narwhal(t, args...); code != 1 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestFullUnroll_Stats: full-unroll --stats records its four phases, the
// instruction count after each, and the peak RSS.
func TestFullUnroll_Stats(t *testing.T) {
	dir := t.TempDir()
	stats := filepath.Join(dir, "stats.json")
	spec, want := benchKernels["tensor_add"](4000)
	if code, _, stderr := narwhal(t, "full-unroll", "-unrollLevel=2", spec, "-o", filepath.Join(dir, "out.json"), "--stats", stats); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		t.Fatal(err)
	}
	var st cmdStats
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range st.Phases {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "load,verify input,full_unroll,save" {
		t.Errorf("phases %s", got)
	}
	if st.Command != "full-unroll" || st.Insts != want || st.Phases[0].Insts >= want || st.Phases[2].Insts != want || st.Phases[2].Alloc == 0 {
		t.Errorf("stats %+v", st)
	}
}
