package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/dma"
)

// cceFile writes cce_reduce with 20 sources (one CCE DMACopy per tile)
// carrying the module option arch.max-cce-dma-source=moduleMax ("": none).
func cceFile(t *testing.T, moduleMax string) string {
	t.Helper()
	m, err := kernels.Build("cce_reduce:sources=20")
	if err != nil {
		t.Fatal(err)
	}
	if moduleMax != "" {
		m.Config.Options[arch.OptionPrefix+"max-cce-dma-source"] = moduleMax
	}
	p := filepath.Join(t.TempDir(), "cce.bir")
	if err := driver.Save(p, m); err != nil {
		t.Fatal(err)
	}
	return p
}

// cceCopy is one CCE DMACopy of a saved module.
type cceCopy struct {
	name               string
	sources, constants int
}

// cceCopies returns the CCE DMACopys of a saved module's main, in program
// order.
func cceCopies(t *testing.T, path string) []cceCopy {
	t.Helper()
	m, err := driver.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	var out []cceCopy
	f.Walk(func(i bir.InstID) bool {
		if dma.IsCCEDMA(f, i) {
			v, _ := f.Attrs(i).Get("constants")
			out = append(out, cceCopy{f.InstName(i), int(f.Inst(i).NIns), len(v.L)})
		}
		return true
	})
	return out
}

// TestCompile_ArchParameters: machine parameters come from the module's
// arch.* options and from --option arch.NAME=VALUE, the command line
// winning; --arch keeps the module's options (it used to drop them), and
// the output records what it was compiled with. MaxCceDmaSource shows it:
// 20 sources split by 16 (default) give pieces 16, 5; by 8: 8, 8, 6 (each
// round takes MaxCceDmaSource sources and adds one partial).
func TestCompile_ArchParameters(t *testing.T) {
	for _, tc := range []struct {
		name      string
		moduleMax string
		flags     []string
		want      string // source counts of the CCE chain
		arch      string // arch string of the output
	}{
		{"default", "", nil, "16 5", "trn2"},
		{"module option", "8", nil, "8 8 6", "trn2"},
		{"--arch keeps the module option", "8", []string{"--arch", "trn1"}, "8 8 6", "trn1"},
		{"--option", "", []string{"--option", "arch.max-cce-dma-source=8"}, "8 8 6", "trn2"},
		{"--option wins over the module", "4", []string{"--arch", "trn3", "--option", "arch.max-cce-dma-source=8"}, "8 8 6", "trn3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := cceFile(t, tc.moduleMax)
			out := filepath.Join(t.TempDir(), "out.bir")
			args := append([]string{"compile", in, "--passes", "legalize_cce_dma", "-o", out}, tc.flags...)
			if code, _, stderr := narwhal(t, args...); code != 0 {
				t.Fatalf("compile: exit %d: %s", code, stderr)
			}
			var n []int
			for _, c := range cceCopies(t, out) {
				n = append(n, c.sources)
			}
			got := strings.Trim(fmt.Sprint(n), "[]")
			if got != tc.want {
				t.Errorf("CCE chain sources %s, want %s", got, tc.want)
			}
			m, err := driver.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if m.Arch != tc.arch {
				t.Errorf("output arch %q, want %q", m.Arch, tc.arch)
			}
			// The output verifies under the model it records (the split is
			// legal for the MaxCceDmaSource it was made for).
			if code, _, stderr := narwhal(t, "verify", out); code != 0 {
				t.Errorf("verify the output: exit %d: %s", code, stderr)
			}
		})
	}
}

// TestVerify_ArchOption: verify takes --option arch.NAME=VALUE too: the
// split made for MaxCceDmaSource 16 breaks checkCCEDMALegality under 8.
func TestVerify_ArchOption(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.bir")
	if code, _, stderr := narwhal(t, "compile", cceFile(t, ""), "--passes", "legalize_cce_dma", "-o", out); code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "verify", out); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	code, _, stderr := narwhal(t, "verify", out, "--option", "arch.max-cce-dma-source=8")
	if code != 1 || !strings.Contains(stderr, "16 arguments: want <= MaxCceDmaSource = 8") {
		t.Errorf("verify --option arch.max-cce-dma-source=8: exit %d: %s", code, stderr)
	}
	code, _, stderr = narwhal(t, "verify", out, "--option", "full_unroll.unrollLevel=1")
	if code != 1 || !strings.Contains(stderr, "accepts machine parameters arch.NAME=VALUE only") {
		t.Errorf("verify with a pass option: exit %d: %s", code, stderr)
	}
}

// TestCompile_Inf1SpecialPath: `--arch inf1` reaches seed 000's ArchLevel
// 10 special path of sb_size_legalization once the unpublished NC-v1
// geometry is given with --option arch.*; without it the error names the
// options to set, and those options are accepted.
func TestCompile_Inf1SpecialPath(t *testing.T) {
	code, _, stderr := narwhal(t, "compile", "--arch", "inf1")
	if code != 1 || !strings.Contains(stderr, "--option arch.sbuf-bytes-per-partition=N") {
		t.Fatalf("compile --arch inf1: exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "inf1.bir")
	code, _, stderr = narwhal(t, "compile", "--arch", "inf1", "-v", "-o", out,
		"--option", "arch.sbuf-bytes-per-partition=196608", "--option", "arch.psum-banks=8", "--option", "arch.psum-bank-bytes=2048")
	if code != 0 {
		t.Fatalf("compile --arch inf1 with the geometry: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "SBSizeLegalization: ArchLevel 10 (inf1): special path, full legalization") {
		t.Errorf("no special-path line in the log:\n%s", stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module arch=inf1", `option arch.sbuf-bytes-per-partition = "196608"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The saved output runs under the model it records.
	if code, _, stderr := narwhal(t, "run", out, "--outputs", filepath.Join(t.TempDir(), "o")); code != 0 {
		t.Errorf("run the inf1 output: exit %d: %s", code, stderr)
	}
}

// TestPasses_ListsMachineParameters: `narwhal passes` documents the
// machine parameters with the way to set them.
func TestPasses_ListsMachineParameters(t *testing.T) {
	code, stdout, stderr := narwhal(t, "passes")
	if code != 0 {
		t.Fatalf("passes: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"machine parameters (--option arch.NAME=VALUE", "--option arch.max-cce-dma-source", "--option arch.arch-level", "--option arch.pe-clock-ghz"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("narwhal passes lacks %q", want)
		}
	}
}
