package tiling_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestSundaSizeTiling_Kernels validates sunda_size_tiling on every built-in
// kernel as built: the hand-tiled kernels are left alone, the macro
// kernels are tiled (a counter shows the pass acted) and compute what they
// computed before, bit for bit except a matmul whose K is split.
func TestSundaSizeTiling_Kernels(t *testing.T) {
	acted := 0
	passtest.ForEachKernelAsBuilt(t, func(t *testing.T, name string, m *bir.Module) {
		k, _, _ := kernels.ParseSpec(name)
		opts := []passtest.Option{passtest.Stage(verify.StageTiled)}
		if tiling.SplitsK(m, model(t, m), tiling.Defaults(model(t, m))) {
			opts = append(opts, passtest.ReferenceTolerance())
		}
		if err := verify.Module(m, verify.Options{Stage: verify.StageTiled}); (err != nil) != k.Macro {
			t.Fatalf("before tiling, at stage tiled: %v (a macro kernel must fail, a hand-tiled one pass)", err)
		}
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error {
			var err error
			tbl := pass.Table{Passes: []pass.Pass{tiling.Pass}}
			rep, err = tbl.Run(m, pass.Config{})
			return err
		}, opts...)
		tiled := rep.Result("sunda_size_tiling").Counter("sunda_size_tiling.tiled")
		if k.Macro != (tiled > 0) {
			t.Errorf("sunda_size_tiling.tiled = %d on a kernel with macro operations %v", tiled, k.Macro)
		}
		if k.Macro {
			acted++
		}
	})
	if acted == 0 {
		t.Error("no macro kernel")
	}
}

func model(t *testing.T, m *bir.Module) *arch.Model {
	t.Helper()
	md, err := arch.ForModule(m)
	if err != nil {
		t.Fatal(err)
	}
	return md
}
