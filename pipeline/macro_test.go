package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestPipeline_MacroKernelsMatchReference: every macro kernel (its test
// parameter sets) compiles through the default pipeline, verifies at every
// stage the pipeline produces (stage tiled included: no macro operation
// is left), and computes what its Go reference computes: bit-identical for
// the elementwise chain (the reference holds it exact), within the
// reference's stated tolerance for the reductions and the matmul (K
// accumulated over K tiles in PSUM). The tiler's own tests show that
// tiling changes no bit where it splits only M, N or rows.
func TestPipeline_MacroKernelsMatchReference(t *testing.T) {
	seen := 0
	for _, k := range kernels.All() {
		if !k.Macro {
			continue
		}
		for _, spec := range k.TestSpecs() {
			t.Run(spec, func(t *testing.T) {
				inst, err := kernels.Instantiate(spec)
				if err != nil {
					t.Fatal(err)
				}
				m := inst.Module
				rep, err := Table.Run(m, pass.Config{})
				if err != nil {
					t.Fatal(err)
				}
				if rep.Result("sunda_size_tiling").Counter("sunda_size_tiling.tiled") == 0 {
					t.Fatalf("sunda_size_tiling did not act")
				}
				var stage verify.Stage
				for _, p := range Table.Passes {
					if p.Default && p.Gate == "" {
						stage |= p.Produces
					}
				}
				if err := verify.Module(m, verify.Options{Stage: stage}); err != nil {
					t.Fatalf("stage %v: %v", stage, err)
				}
				in := inst.Inputs(3)
				got, err := interp.Run(m, in, interp.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want, tol, err := inst.Expected(in)
				if err != nil {
					t.Fatal(err)
				}
				if err := ref.CompareSets(got, want, tol); err != nil {
					t.Fatal(err)
				}
				for name, w := range want {
					tl := tol[name]
					t.Logf("%s: max |error| %.3g, tolerance %s", name, ref.MaxError(got[name], w), tl)
				}
				seen++
			})
		}
	}
	if seen < 4 {
		t.Errorf("%d macro kernel instances compiled; want the four macro kernels", seen)
	}
}
