package dma

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/verify"
)

// FuzzPasses runs each DMA pass on mutations of the golden inputs that
// parse and verify. A pass may refuse a module with an error, but it must
// not panic, and when it succeeds the result must verify at the stage
// the pass produces and compute the same outputs on the same inputs (bit
// for bit; within rounding for a CCE split).
func FuzzPasses(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.bir"))
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 8192 {
			return
		}
		m, err := bir.Parse("fuzz.bir", src)
		if err != nil || verify.Module(m, verify.Options{}) != nil || m.NumInsts() > 256 || m.NumAxes() > 0 {
			return
		}
		inputs := goldenInputs(m, 1)
		before, err := interp.Run(m, cloneInputs(inputs), interp.Options{})
		if err != nil {
			return
		}
		for _, name := range []string{IndirectName, StridedName, CCEName} {
			m, err := bir.Parse("fuzz.bir", src)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			g := goldenRuns[name]
			if err := g.run(m); err != nil {
				continue
			}
			if err := verify.Module(m, verify.Options{Stage: g.stage}); err != nil {
				t.Fatalf("%s: the result does not verify: %v\ninput:\n%s", name, err, src)
			}
			after, err := interp.Run(m, cloneInputs(inputs), interp.Options{})
			if err != nil {
				t.Fatalf("%s: the result does not run: %v\ninput:\n%s", name, err, src)
			}
			// Bit for bit, except that a CCE split regroups a sum: exact
			// only when every partial sum is (legalize_cce_dma's header),
			// which mutated scales need not keep.
			tol := ref.Exact
			if name == CCEName {
				tol = ref.Tolerance{Abs: 1e-6, Rel: 1e-2, Why: "a CCE split re-associates the sum"}
			}
			for out, x := range before {
				y, ok := after[out]
				if !ok {
					t.Fatalf("%s: output %s disappeared\ninput:\n%s", name, out, src)
				}
				if mm := ref.Compare(y, x, tol); mm != nil {
					t.Fatalf("%s: output %s changed: %+v\ninput:\n%s", name, out, *mm, src)
				}
			}
		}
	})
}

func cloneInputs(in map[string]*interp.Tensor) map[string]*interp.Tensor {
	out := make(map[string]*interp.Tensor, len(in))
	for k, v := range in {
		c := *v
		c.Data = bytes.Clone(v.Data)
		c.Shape = append([]int64(nil), v.Shape...)
		out[k] = &c
	}
	return out
}
