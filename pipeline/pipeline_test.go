package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
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
			passtest.ForEachKernel(t, func(t *testing.T, kernel string, m *bir.Module) {
				if gate {
					m.Config.Options["gen-stride-dma"] = "true"
				}
				var stage verify.Stage
				for _, p := range Table.Passes {
					if p.Default && (p.Gate == "" || gate) {
						stage |= p.Produces
					}
				}
				passtest.Check(t, m, func(m *bir.Module) error {
					_, err := Table.Run(m, pass.Config{VerifyEach: true})
					return err
				}, passtest.Stage(stage))
			})
		})
	}
}
