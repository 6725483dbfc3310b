package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// TestPipeline_PositionsSurvive is the source-position rule of package bir
// ("every instruction a pass creates takes the position of the instruction
// it came from") checked over the whole default pipeline, gen-stride-dma
// on, on every built-in kernel: every instruction gets a distinct position
// first, and after the run every live instruction still has one of those
// positions. The per-pass counts of new instructions show the check is not
// vacuous: the unrollers clone, the DMA passes split, translate adds calls.
func TestPipeline_PositionsSurvive(t *testing.T) {
	created := 0
	passtest.ForEachKernelAsBuilt(t, func(t *testing.T, kernel string, m *bir.Module) {
		m.Config.Options["gen-stride-dma"] = "true"
		stamped := map[bir.PosID]bool{}
		slots := map[*bir.Function]int{}
		for _, f := range m.Funcs {
			slots[f] = f.NumInstSlots()
			for i := 0; i < f.NumInstSlots(); i++ {
				f.SetPos(bir.InstID(i), bir.Pos{File: kernel + ".py", Line: int32(i + 1), Col: 1})
				stamped[f.Inst(bir.InstID(i)).Pos] = true
			}
		}
		if _, err := Table.Run(m, pass.Config{VerifyEach: true}); err != nil {
			t.Fatal(err)
		}
		for _, f := range m.Funcs {
			f.Walk(func(i bir.InstID) bool {
				if p := f.Inst(i).Pos; !stamped[p] {
					t.Errorf("function %s, instruction %s (%s): position %q (#%d) is not one of the input's", f.Name, f.InstName(i), f.OpName(i), f.InstPos(i), p)
				}
				if n, ok := slots[f]; !ok || int(i) >= n {
					created++
				}
				return true
			})
		}
	})
	if created == 0 {
		t.Error("no pass created an instruction on any kernel: the check proved nothing")
	}
	t.Logf("%d live instructions created by passes kept a source position", created)
}
