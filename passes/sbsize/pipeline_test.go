package sbsize_test

// The footprint pipeline: sb_size_legalization, full_unroll,
// vn_splitter, shrink_ml, run through one pass.Table in that order (the
// order the lead's table uses), on every built-in kernel and on the
// crafted cases of testdata/golden.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/shrink"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// footprintTable is the pipeline with FullUnroll at the given level.
func footprintTable(level int) pass.Table {
	return pass.Table{
		Passes: []pass.Pass{sbsize.SBSizeLegalizationPass, unroll.FullUnrollPassAt(level), vnsplit.VNSplitterPass, shrink.ShrinkMLPass},
		Constraints: []pass.Constraint{
			{Before: "sb_size_legalization", After: "full_unroll", Why: "full_unroll's tensorSplit performs the cut sb_size_legalization marks and unrolls the loops it forces"},
			{Before: "full_unroll", After: "vn_splitter", Why: "vn_splitter needs physical access patterns and must see the pieces of the cut"},
			{Before: "vn_splitter", After: "shrink_ml", Why: "each _VN_ piece is trimmed on its own, and shrink_ml checks the final footprint"},
		},
	}
}

func runTable(tbl pass.Table, m *bir.Module, rep **pass.Report) error {
	r, err := tbl.Run(m, pass.Config{Passes: tbl.Names(), VerifyEach: true})
	*rep = r
	return err
}

func TestFootprintTable_Check(t *testing.T) {
	for _, level := range []int{0, 1, 2} {
		tbl := footprintTable(level)
		if err := tbl.Check(); err != nil {
			t.Errorf("level %d: %v", level, err)
		}
	}
	// The orders are the seed's: vn_splitter 24, shrink_ml 25.
	if vnsplit.VNSplitterPass.Order != 24 || shrink.ShrinkMLPass.Order != 25 {
		t.Errorf("orders %d, %d: want 24, 25", vnsplit.VNSplitterPass.Order, shrink.ShrinkMLPass.Order)
	}
	if shrink.ShrinkMLPass.Produces&verify.StageSBLegal == 0 {
		t.Errorf("shrink_ml does not produce the sb-legal stage")
	}
	if sbsize.SBSizeLegalizationPass.Produces != 0 {
		t.Errorf("sb_size_legalization produces %v: the locations fit only after the cut", sbsize.SBSizeLegalizationPass.Produces)
	}
}

// TestSBSizeLegalizationPass_Kernels: translation validation of the pass
// on every built-in kernel, planning for the default pipeline after it
// (DefaultLater): it only marks and records, so the outputs must not
// change. It marks or leaves a tensor to a later pass exactly on the
// oversized kernels.
func TestSBSizeLegalizationPass_Kernels(t *testing.T) {
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		var st sbsize.Stats
		passtest.Check(t, m, func(m *bir.Module) error {
			model, err := arch.ForModule(m)
			if err != nil {
				return err
			}
			st, err = sbsize.SBSizeLegalization(m, model, sbsize.Options{})
			return err
		})
		decided := st.Marked + st.LeftToVN + st.LeftToShrink
		if oversized := strings.HasPrefix(name, "oversized"); oversized != (decided > 0) {
			t.Errorf("%d tensors marked, %d left to vn_splitter, %d to shrink_ml; want some exactly on the oversized kernels", st.Marked, st.LeftToVN, st.LeftToShrink)
		}
	})
}

// acted names, per oversized test kernel, the counters ("pass/counter")
// that show its footprint mechanism acted.
var acted = map[string][]string{
	"oversized:case=cut":    {"sb_size_legalization/" + sbsize.CounterTotalSplit, "full_unroll/sub_locations"},
	"oversized":             {"sb_size_legalization/" + sbsize.CounterForceRounds, "sb_size_legalization/" + sbsize.CounterLoopsForced, "full_unroll/sub_locations"},
	"oversized:case=vn":     {"sb_size_legalization/" + sbsize.CounterLeftToVN, "vn_splitter/" + vnsplit.CounterDeadNodes, "vn_splitter/vertical_fusion.folded"},
	"oversized:case=shrink": {"sb_size_legalization/" + sbsize.CounterLeftToShrink, "shrink_ml/ShrinkDN.shrunk"},
}

// TestFootprintPipeline_Kernels: on every built-in kernel, with FullUnroll
// at level 1 and at the default pipeline's auto level, the four passes
// keep the outputs bit-identical and verify at the sb-legal stage; on the
// oversized kernels the counters of acted show the mechanism acted.
func TestFootprintPipeline_Kernels(t *testing.T) {
	for _, level := range []int{1, unroll.LevelAuto} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			tbl := footprintTable(level)
			seen := map[string]bool{}
			passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
				var rep *pass.Report
				passtest.Check(t, m, func(m *bir.Module) error { return runTable(tbl, m, &rep) }, passtest.Stage(verify.StageSBLegal))
				for _, c := range acted[name] {
					seen[name] = true
					p, counter, _ := strings.Cut(c, "/")
					if v := rep.Result(p).Counter(counter); v <= 0 {
						t.Errorf("%s: %s = %d: the mechanism did not act", p, counter, v)
					}
				}
				if strings.HasPrefix(name, "oversized") && acted[name] == nil {
					t.Errorf("no counters named for %s in acted", name)
				}
			})
			for name := range acted {
				if !seen[name] {
					t.Errorf("%s is not a kernel test spec", name)
				}
			}
		})
	}
}

// TestFootprintPipeline_Report checks the report text a user sees with
// `narwhal compile --report`: the statistic block with the seed's labels
// and the VNSplitter lines.
func TestFootprintPipeline_Report(t *testing.T) {
	src, err := os.ReadFile("testdata/golden/big_straight.bir")
	if err != nil {
		t.Fatal(err)
	}
	m, err := bir.Parse("big_straight.bir", src)
	if err != nil {
		t.Fatal(err)
	}
	var rep *pass.Report
	if err := runTable(footprintTable(2), m, &rep); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"[sb_size_legalization]\n",
		"  " + sbsize.CounterCanSplit + " = 1\n",
		"  " + sbsize.CounterTotalSplit + " = 1\n",
		"  " + sbsize.CounterShrunk + " = 0\n",
		"SB Legalization Statistic:\n" +
			" Total trip count unrolled: 0\n" +
			" Number of memory location split: 1\n" +
			" Number of sub memory location created due to unroll: 16\n" +
			" Total size of memory location split (in bytes): 39321600\n" +
			" Total number of illegal memory locations : 0 (0.00% of 1 SB/PSUM memory locations)\n",
		"[vn_splitter]\n",
		"  " + vnsplit.CounterDeadNodes + " = 0\n",
		"VNSplitter:\nINFO (VNSplitter): Split 0 nodes (of 16 analyzed) into 0 pieces.\n" +
			"(SplitSB) total_sb_nodes = 16, can_sb_nodes = 0, total dead nodes = 0, vn_limit = 1048576, foldIntoPredecessor = true\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	// And a split: the 256-partition tensor vn_splitter carves in two.
	src, err = os.ReadFile("testdata/golden/partitions_vn.bir")
	if err != nil {
		t.Fatal(err)
	}
	if m, err = bir.Parse("partitions_vn.bir", src); err != nil {
		t.Fatal(err)
	}
	if err := runTable(footprintTable(2), m, &rep); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	rep.Write(&buf)
	for _, want := range []string{"INFO (VNSplitter): Split 1 nodes (of 1 analyzed) into 2 pieces.", "total dead nodes = 1", "  " + vnsplit.CounterDeadNodes + " = 1\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestFootprintPipeline_Unfittable: the error names the tensor, its bytes
// per partition and the budget, and the report still shows the block.
func TestFootprintPipeline_Unfittable(t *testing.T) {
	src, err := os.ReadFile("testdata/golden/unfittable.bir")
	if err != nil {
		t.Fatal(err)
	}
	m, err := bir.Parse("unfittable.bir", src)
	if err != nil {
		t.Fatal(err)
	}
	var rep *pass.Report
	err = runTable(footprintTable(2), m, &rep)
	var ue *sbsize.UnfittableError
	if !errors.As(err, &ue) || len(ue.Tensors) != 1 {
		t.Fatalf("want an UnfittableError for one tensor, have %v", err)
	}
	for _, want := range []string{"function main, tensor huge_set", "240064 bytes per partition", "want <= 212992"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	var buf bytes.Buffer
	rep.Write(&buf)
	if !strings.Contains(buf.String(), sbsize.LabelIllegalLocs+"1 (100.00% of 1 ") {
		t.Errorf("the report does not count the illegal location:\n%s", buf.String())
	}
}

// TestFootprintPipeline_BigTensorFits: the 128 x 300 KiB tensor cannot fit,
// is marked, is cut by FullUnroll into pieces, and every piece fits — in
// straight-line code and, through the force-unroll fallback, in a loop at
// unroll level 1 (which unrolls only what is marked).
func TestFootprintPipeline_BigTensorFits(t *testing.T) {
	for _, c := range []struct {
		file  string
		level int
	}{{"big_straight.bir", 2}, {"big_loop_level1.bir", 1}, {"big_loop_level1.bir", 2}} {
		t.Run(fmt.Sprintf("%s/level%d", c.file, c.level), func(t *testing.T) {
			src, err := os.ReadFile("testdata/golden/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := bir.Parse(c.file, src)
			if err != nil {
				t.Fatal(err)
			}
			model, _ := arch.ForModule(m)
			geo, _ := footprint.GeometryFor(model)
			before := geo.IllegalLocations(m)
			if len(before) != 1 || before[0].Loc != "big" {
				t.Fatalf("before: illegal %v, want big", before)
			}
			// sb_size_legalization alone marks without cutting.
			st, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			tid, _ := f.TensorByName("big_set")
			mask := f.Tensor(tid).SplitShape
			if st.Marked != 1 || len(mask) < 2 || mask[0] || !mask[1] {
				t.Fatalf("mask %v, marked %d: want the free dim marked", mask, st.Marked)
			}
			if len(f.Tensor(tid).Locs) != 1 {
				t.Fatalf("sb_size_legalization cloned the tensor: %d locations", len(f.Tensor(tid).Locs))
			}
			var rep *pass.Report
			tbl := pass.Table{Passes: footprintTable(c.level).Passes[1:]}
			passtest.Check(t, m, func(m *bir.Module) error { return runTable(tbl, m, &rep) }, passtest.Stage(verify.StageSBLegal))
			pieces := 0
			for l := bir.LocID(0); int(l) < f.NumLocs(); l++ {
				if lc := f.Loc(l); !lc.Dead && strings.HasPrefix(lc.Name, "big_split") {
					pieces++
					if lc.Bytes != 4800*4 || lc.Partitions != 128 {
						t.Errorf("piece %s: %d x %d bytes, want 128 x 19200", lc.Name, lc.Partitions, lc.Bytes)
					}
				}
			}
			if pieces != 16 {
				t.Errorf("%d pieces, want 16", pieces)
			}
		})
	}
}
