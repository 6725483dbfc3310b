package dma

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// goldenRuns are the passes a golden input's "// run: <pass>" line names.
var goldenRuns = map[string]struct {
	run   func(m *bir.Module) error
	stage verify.Stage
}{
	IndirectName: {func(m *bir.Module) error { _, err := LowerGenericIndirect(m, Options{}); return err }, verify.StageIndirectLowered},
	StridedName:  {func(m *bir.Module) error { _, err := LegalizeStridedDMA(m, Options{}); return err }, 0},
	CCEName:      {func(m *bir.Module) error { _, err := LegalizeCCEDMA(m, Options{}); return err }, verify.StageCCELegal},
}

func goldenInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	in := exactInputs(m, seed)
	for _, s := range interp.InputSpecs(m) {
		if s.Name == "idx" {
			V := int64(1)
			if f := m.Main(); f != nil {
				if t, ok := f.TensorByName("t_set"); ok {
					V = f.Tensor(t).Shape[0]
				}
			}
			in["idx"] = indices(s.Shape[0], V, -1)["idx"]
		}
	}
	return in
}

// TestGolden runs the pass each testdata/golden/*.bir names on it, with
// translation validation, and compares the text form of the result with
// the .golden file next to it (go test ./passes/dma -update rewrites them).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.bir"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs (%v)", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(src), "\n")
			name, ok := strings.CutPrefix(first, "// run: ")
			g, known := goldenRuns[strings.TrimSpace(name)]
			if !ok || !known {
				t.Fatalf("%s: first line %q: want \"// run: <pass>\" naming one of the three passes", file, first)
			}
			m, err := bir.Parse(file, src)
			if err != nil {
				t.Fatal(err)
			}
			passtest.Check(t, m, g.run, passtest.InputsFunc(goldenInputs), passtest.Stage(g.stage))
			got := []byte(bir.Format(m))
			want := strings.TrimSuffix(file, ".bir") + ".golden"
			if *update {
				if err := os.WriteFile(want, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatalf("%v (run go test ./passes/dma -update to create it)", err)
			}
			if !bytes.Equal(got, exp) {
				t.Fatalf("%s differs from %s:\n--- got\n%s\n--- want\n%s", file, want, got, exp)
			}
			// The expected output reads back to the same text.
			back, err := bir.Parse(want, exp)
			if err != nil {
				t.Fatalf("%s does not parse: %v", want, err)
			}
			if bir.Format(back) != string(exp) {
				t.Fatalf("%s does not round-trip through bir.Parse", want)
			}
		})
	}
}
