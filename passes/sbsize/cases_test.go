package sbsize_test

// The two cases issue 15 found where sb_size_legalization's prediction
// disagreed with the pass it predicted: both now compile through the four
// footprint passes, verify SB-legal and keep their outputs.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// groups255 is a 255-partition SB tensor used in 17 separate groups of 15
// partitions: vn_splitter would make 17 pieces, more than its
// perSplitLimit (16), so the plan must take the cut it found (255 = 15 x
// 17 partitions: 15 pieces, the loads and saves split where a group
// straddles two pieces).
func groups255(t *testing.T) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 255, 64)
	z := b.Output("z", bir.Float32, 255, 64)
	w := b.SBUF("w", bir.Float32, 255, 64)
	for g := int64(0); g < 17; g++ {
		b.Load(fmt.Sprintf("ld%d", g), w.Tile(15*g, 15, 0, 64), x.Tile(15*g, 15, 0, 64))
	}
	for g := int64(0); g < 17; g++ {
		b.Save(fmt.Sprintf("st%d", g), z.Tile(15*g, 15, 0, 64), w.Tile(15*g, 15, 0, 64))
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// transposed is a 128 x n SB tensor of dt touched only at elements 0..63
// of each partition and read by a 2-D DMA transpose: shrink_ml follows
// the transpose (footprint.ReachOf) and trims the tensor to 64 elements.
func transposed(t *testing.T, dt bir.Dtype, n int64) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, 128, 64)
	z := b.Output("z", dt, 64, 128)
	big := b.SBUF("big", dt, 128, n)
	tr := b.SBUF("tr", dt, 64, 128)
	b.Load("ld", big.Tile(0, 128, 0, 64), x.All())
	b.Inst(bir.OpDMACopy, "transpose", bir.EngUnassigned, []bir.Operand{big.Tile(0, 128, 0, 64)}, []bir.Operand{tr.All()}, bir.Attrs("mode", "Transpose"))
	b.Save("st", z.All(), tr.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFootprintPipeline_IssueCases(t *testing.T) {
	stage := passtest.Stage(verify.StageSBLegal | verify.StageUnrolled)
	t.Run("255 partitions in 17 groups", func(t *testing.T) {
		m := groups255(t)
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(2), m, &rep) }, stage)
		sb := rep.Result("sb_size_legalization")
		if sb.Counter("backend::TotalSplitSbNodesCount") != 1 {
			t.Errorf("the tensor was not marked for the cut:\n%s", strings.Join(sb.Log, "\n"))
		}
		if !strings.Contains(strings.Join(sb.Log, "\n"), "w_set: splitShape [true false]") {
			t.Errorf("log:\n%s", strings.Join(sb.Log, "\n"))
		}
	})
	t.Run("a 2-D DMA transpose reads the live window (bf16, validated)", func(t *testing.T) {
		m := transposed(t, bir.BFloat16, 120011)
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(2), m, &rep) }, stage)
		f := m.Main()
		l, _ := f.LocByName("big")
		if lc := f.Loc(l); lc.Bytes != 64*2 {
			t.Errorf("big: %d bytes per partition, want 128 (trimmed to 64 elements)", lc.Bytes)
		}
	})
	t.Run("the issue's 128 x 80021 fp32 tensor", func(t *testing.T) {
		// The interpreter models the DMA transpose of 2-byte dtypes only
		// (semantics.md 4.8), so this one is compiled and verified, not
		// executed.
		m := transposed(t, bir.Float32, 80021)
		var rep *pass.Report
		if err := runTable(footprintTable(2), m, &rep); err != nil {
			t.Fatal(err)
		}
		if err := verify.Module(m, verify.Options{Stage: verify.StageSBLegal | verify.StageUnrolled}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(rep.Result("sb_size_legalization").Log, "\n"), "big_set: left to shrink_ml: its accesses touch elements 0..63") {
			t.Errorf("log:\n%s", strings.Join(rep.Result("sb_size_legalization").Log, "\n"))
		}
	})
}
