package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/dma"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// The DMA legalization passes in the real pass table and through the CLI:
// the seed's order 10 -> 18 -> 19 and the gen-stride-dma gate (seed 001).

// TestPipeline_DMAOrderAndGate checks pipeline.Table itself: the three
// passes carry the seed's order numbers, run in that order, and only
// legalize_strided_dma is gated, on gen-stride-dma.
func TestPipeline_DMAOrderAndGate(t *testing.T) {
	want := []struct {
		name  string
		order int
		gate  string
	}{
		{dma.IndirectName, 10, ""},
		{dma.StridedName, 18, "gen-stride-dma"},
		{dma.CCEName, 19, ""},
	}
	pos := map[string]int{}
	for k, p := range pipeline.Table.Passes {
		pos[p.Name] = k
	}
	last := -1
	for _, w := range want {
		k, ok := pos[w.name]
		if !ok {
			t.Fatalf("pipeline.Table has no pass %s", w.name)
		}
		p := pipeline.Table.Passes[k]
		if p.Order != w.order || p.Gate != w.gate || !p.Default {
			t.Errorf("%s: order %d, gate %q, default %v; want order %d, gate %q, in the default pipeline", w.name, p.Order, p.Gate, p.Default, w.order, w.gate)
		}
		if k <= last {
			t.Errorf("%s is at position %d of pipeline.Table, before the pass it must follow (position %d)", w.name, k, last)
		}
		last = k
	}

	// Run the default pipeline on a kernel with a partition-strided load,
	// with and without the gate.
	for _, gate := range []bool{false, true} {
		m, err := kernels.Build("transpose2d:mode=dma")
		if err != nil {
			t.Fatal(err)
		}
		if gate {
			m.Config.Options["gen-stride-dma"] = "true"
		}
		rep, err := pipeline.Table.Run(m, pass.Config{})
		if err != nil {
			t.Fatalf("gen-stride-dma=%v: %v", gate, err)
		}
		var ran []string
		for _, r := range rep.Passes {
			if r.Skipped == "" && (r.Name == dma.IndirectName || r.Name == dma.StridedName || r.Name == dma.CCEName) {
				ran = append(ran, r.Name)
			}
		}
		wantRan := dma.IndirectName + " " + dma.CCEName
		if gate {
			wantRan = dma.IndirectName + " " + dma.StridedName + " " + dma.CCEName
		}
		if got := strings.Join(ran, " "); got != wantRan {
			t.Errorf("gen-stride-dma=%v: ran %s, want %s", gate, got, wantRan)
		}
		r := rep.Result(dma.StridedName)
		switch {
		case r == nil:
			t.Errorf("gen-stride-dma=%v: no report entry for %s", gate, dma.StridedName)
		case !gate && !strings.Contains(r.Skipped, "gen-stride-dma"):
			t.Errorf("gate off: %s skipped %q, want the gate named", dma.StridedName, r.Skipped)
		case gate && r.Counter("rewritten") != 1:
			t.Errorf("gate on: %s rewrote %d loads, want 1", dma.StridedName, r.Counter("rewritten"))
		}
		if got, want := opCountIn(m, bir.OpTensorCopy) > 0, gate; got != want {
			t.Errorf("gen-stride-dma=%v: TensorCopy present %v, want %v", gate, got, want)
		}
	}
}

func opCountIn(m *bir.Module, op bir.Opcode) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == op {
				n++
			}
			return true
		})
	}
	return n
}

var outputHash = regexp.MustCompile(`(?m)^output .*sha256:[0-9a-f]+`)

// TestCompile_GenStrideDMAFlag: the CLI flag --gen-stride-dma turns
// legalize_strided_dma on (off by default, as in the original), and the
// compiled module computes what the kernel computes.
func TestCompile_GenStrideDMAFlag(t *testing.T) {
	const kernel = "builtin:transpose2d:mode=dma"
	dir := t.TempDir()
	code, ref, stderr := narwhal(t, "run", kernel, "--outputs", filepath.Join(dir, "ref"))
	if code != 0 {
		t.Fatalf("run %s: exit %d: %s", kernel, code, stderr)
	}
	want := outputHash.FindAllString(ref, -1)
	if len(want) == 0 {
		t.Fatalf("run %s printed no output hash:\n%s", kernel, ref)
	}
	for _, tc := range []struct {
		name   string
		flags  []string
		line   *regexp.Regexp // in the report
		copies bool
	}{
		{"default", nil, regexp.MustCompile(`legalize_strided_dma +18 .*skipped: gate gen-stride-dma is off`), false},
		{"--gen-stride-dma", []string{"--gen-stride-dma"}, regexp.MustCompile(`(?s)\[legalize_strided_dma\]\s+loads = 1\s+rewritten = 1`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".bir")
			args := append([]string{"compile", kernel, "--report", "-o", out}, tc.flags...)
			code, stdout, stderr := narwhal(t, args...)
			if code != 0 {
				t.Fatalf("compile: exit %d: %s", code, stderr)
			}
			if !tc.line.MatchString(stdout) {
				t.Errorf("report lacks %q:\n%s", tc.line, stdout)
			}
			// The order in the report: 10, 18, 19.
			i10, i18, i19 := strings.Index(stdout, "lower_generic_indirect"), strings.Index(stdout, "legalize_strided_dma"), strings.Index(stdout, "legalize_cce_dma")
			if i10 < 0 || i18 < i10 || i19 < i18 {
				t.Errorf("report order: lower_generic_indirect at %d, legalize_strided_dma at %d, legalize_cce_dma at %d", i10, i18, i19)
			}
			m, err := driver.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			if got := opCountIn(m, bir.OpTensorCopy) > 0; got != tc.copies {
				t.Errorf("TensorCopy in the output %v, want %v", got, tc.copies)
			}
			code, run, stderr := narwhal(t, "run", out, "--outputs", filepath.Join(dir, tc.name+"-out"))
			if code != 0 {
				t.Fatalf("run %s: exit %d: %s", out, code, stderr)
			}
			if got := outputHash.FindAllString(run, -1); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("outputs of the compiled module %v, want the kernel's %v", got, want)
			}
		})
	}
}

// TestCompile_CCEReduceSeedChunks: `narwhal compile
// builtin:cce_reduce:sources=20 --passes legalize_cce_dma` gives seed 001's
// chunks: the loop "while (count(I.sources) > archMax)" moves
// MaxCceDmaSource = 16 sources (with their scales) into one clone, and the
// remainder keeps 4 sources + the partial: two CCE DMACopys, verified
// after the pass (--verify-each) and computing the kernel's reference.
func TestCompile_CCEReduceSeedChunks(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cce20.bir")
	code, stdout, stderr := narwhal(t, "compile", "builtin:cce_reduce:sources=20", "--passes", "legalize_cce_dma", "--verify-each", "--report", "-o", out)
	if code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`(?s)\[legalize_cce_dma\]\s+cce_dma = 1\s+split = 1\s+partials = 1`).MatchString(stdout) {
		t.Errorf("report lacks one split into one partial:\n%s", stdout)
	}
	var got []string
	for _, c := range cceCopies(t, out) {
		got = append(got, fmt.Sprintf("%s:%d sources,%d constants", c.name, c.sources, c.constants))
	}
	want := []string{"cce_sum_imm_output_0:16 sources,16 constants", "cce_sum:5 sources,5 constants"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("CCE DMACopys %v, want the seed's %v", got, want)
	}
	code, run, stderr := narwhal(t, "run", out, "--check", "--outputs", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(run, "bit-exact") {
		t.Fatalf("run --check: exit %d: %s%s", code, run, stderr)
	}
}
