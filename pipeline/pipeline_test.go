package pipeline

import (
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

func TestTable_Check(t *testing.T) {
	if err := Table.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestPipeline_Kernels validates the whole default pipeline, end to end, on
// every built-in kernel: the outputs after all passes equal the outputs of
// the input module on the same inputs, with the verifier after every pass.
// With gen-stride-dma on, legalize_strided_dma joins the pipeline.
func TestPipeline_Kernels(t *testing.T) {
	for _, gate := range []bool{false, true} {
		name := "default"
		if gate {
			name = "gen-stride-dma"
		}
		t.Run(name, func(t *testing.T) {
			passtest.ForEachKernelAsBuilt(t, func(t *testing.T, kernel string, m *bir.Module) {
				if gate {
					m.Config.Options["gen-stride-dma"] = "true"
				}
				var stage verify.Stage
				for _, p := range Table.Passes {
					if p.Default && (p.Gate == "" || gate) {
						stage |= p.Produces
					}
				}
				opts := []passtest.Option{passtest.Stage(stage)}
				if model, err := arch.ForModule(m); err == nil && tiling.SplitsK(m, model, tiling.Defaults(model)) {
					opts = append(opts, passtest.ReferenceTolerance()) // the one reordering: a matmul's K split
				}
				passtest.Check(t, m, func(m *bir.Module) error {
					_, err := Table.Run(m, pass.Config{VerifyEach: true})
					return err
				}, opts...)
			})
		})
	}
}

// TestPipeline_DynamicLoops: a kernel with a DynamicForLoop compiles with
// the default pipeline (full_unroll's level is chosen per function: level
// 1 for this one, which level 2 would refuse), keeps its outputs, and
// heuristic_unroll's mark decides which static loop of that function is
// unrolled: the marked inner loop and the loop sb_size_legalization forced
// are unrolled, the dynamic loop stays.
func TestPipeline_DynamicLoops(t *testing.T) {
	inst, err := kernels.Instantiate("oversized:case=force,dynamic=1")
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error {
		var err error
		rep, err = Table.Run(m, pass.Config{VerifyEach: true})
		return err
	}, passtest.Stage(verify.StageSBLegal))
	if v := rep.Result("heuristic_unroll").Counter("heuristic_unroll.marked"); v != 1 {
		t.Errorf("heuristic_unroll marked %d loops, want 1", v)
	}
	if !slices.Contains(rep.Result("full_unroll").Log, "INFO (FullUnroll) function main: unrollLevel 1") {
		t.Errorf("full_unroll log:\n%s", strings.Join(rep.Result("full_unroll").Log, "\n"))
	}
	var loops []string
	f := m.Main()
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsLoop() {
			loops = append(loops, f.OpName(i)+" "+f.InstName(i))
		}
		return true
	})
	if !slices.Equal(loops, []string{"DynamicForLoop repeat"}) {
		t.Errorf("loops left: %v, want only the dynamic loop", loops)
	}
}
