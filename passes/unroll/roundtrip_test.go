package unroll

import (
	"github.com/narwhal-compiler/narwhal/passtest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
)

// What the unrollers produce survives BIR-JSON: the register form of
// dynamic loops, the heuristic_unroll mark on loops, per-block locations,
// split tensors (each golden output re-encoded and decoded prints the
// same).
func TestGolden_BIRJSONRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.golden")
	if len(files) == 0 {
		t.Fatal("no golden outputs")
	}
	for _, g := range files {
		t.Run(filepath.Base(g), func(t *testing.T) {
			src, err := os.ReadFile(g)
			if err != nil {
				t.Fatal(err)
			}
			m, err := bir.Parse(g, src)
			if err != nil {
				t.Fatal(err)
			}
			data, err := birjson.Encode(m)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			m2, err := birjson.Decode(data, g+".json")
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if a, b := bir.Format(m), bir.Format(m2); a != b {
				t.Errorf("BIR-JSON round trip changed the module:\n%s", passtest.LineDiff(a, b))
			}
		})
	}
	// The heuristic mark on a loop instruction.
	m := parse(t, heuristicSrc)
	if _, err := HeuristicUnroll(m, HeuristicOptions{Enabled: true}); err != nil {
		t.Fatal(err)
	}
	data, err := birjson.Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := birjson.Decode(data, "h.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(marked(m2), ","); got != "inner,a,b" {
		t.Errorf("marks after BIR-JSON: %s", got)
	}
}
