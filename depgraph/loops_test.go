package depgraph_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// instanceGraph is the dependence graph of an expansion's instances, read
// from their IR dependencies.
func instanceGraph(fx *bir.FuncExpansion) *depgraph.Graph {
	f := fx.F
	g := &depgraph.Graph{Insts: fx.Instances, Pos: make([]int32, f.NumInstSlots())}
	for i := range g.Pos {
		g.Pos[i] = -1
	}
	for k, i := range g.Insts {
		g.Pos[i] = int32(k)
	}
	g.PredStart = []int32{0}
	for _, i := range g.Insts {
		var ps []int32
		var ks []bir.DepKind
		for _, d := range f.Deps(i) {
			ps, ks = append(ps, g.Pos[d.On]), append(ks, d.Kind)
		}
		// ascending positions, as Graph promises
		for a := 1; a < len(ps); a++ {
			for b := a; b > 0 && ps[b] < ps[b-1]; b-- {
				ps[b], ps[b-1], ks[b], ks[b-1] = ps[b-1], ps[b], ks[b-1], ks[b]
			}
		}
		g.Pred, g.Kind = append(g.Pred, ps...), append(g.Kind, ks...)
		g.PredStart = append(g.PredStart, int32(len(g.Pred)))
	}
	return g
}

// TestAnalyzeLoops_Oracle: on every loop program, after the memory planner
// (loop-local tiles share their addresses across iterations, PSUM tiles
// rotate), the folded dependencies, mapped back onto the instances,
// order every pair of instances whose bytes conflict (the brute-force
// oracle of oracle_test.go, on the straight-line expansion), in both
// modes; the folded graph has carried dependencies wherever tiles are
// reused across iterations.
func TestAnalyzeLoops_Oracle(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	for _, lp := range schedtest.LoopPrograms() {
		t.Run(lp.Name, func(t *testing.T) {
			m, _, err := lp.Build()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("anti_dependency_analyzer"), Options: lp.Options}); err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			if !bir.HasLoops(f) {
				t.Fatal("the program lost its loops")
			}
			for _, mode := range []depgraph.Mode{depgraph.Physical, depgraph.Logical} {
				lg, err := depgraph.AnalyzeLoops(f, depgraph.Options{Mode: mode, Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes})
				if err != nil {
					t.Fatal(err)
				}
				lg.Write(f)
				x, err := bir.Expand(m, bir.ExpandOptions{})
				if err != nil {
					t.Fatal(err)
				}
				fx := x.Funcs[0]
				red, unj := checkOracle(t, fx.F, instanceGraph(fx), mode, model.PSUMBankBytes)
				t.Logf("%s: %d instances, %d folded carried dependencies (%d over the inner loops), %d redundant and %d unjustified instance edges", mode, lg.Instances, lg.Carried, lg.CarryAll, red, unj)
				if mode == depgraph.Physical && lg.Carried == 0 {
					t.Errorf("no carried dependency: the loop-local tiles reuse their bytes every iteration")
				}
			}
		})
	}
}

// TestAnalyzeLoops_Carried: tensor_add at level 0 keeps its tiles in one
// location each, so the next iteration's loads wait for this one's add
// (ANTI carried by i at distance 1) and its add for this one's store.
func TestAnalyzeLoops_Carried(t *testing.T) {
	lp := schedtest.LoopPrograms()[0]
	m, _, err := lp.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Table.Run(m, pass.Config{Passes: append(schedtest.Before("anti_dependency_analyzer"), "anti_dependency_analyzer"), Options: lp.Options}); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	got := map[string]string{}
	f.Walk(func(i bir.InstID) bool {
		for _, d := range f.Deps(i) {
			if d.CarryAxis != bir.NoAxis {
				got[f.InstName(i)] += d.Kind.String() + " " + f.InstName(d.On) + " " + m.AxisName(d.CarryAxis) + " " + string(rune('0'+d.CarryDist)) + ";"
			}
		}
		return true
	})
	want := map[string]string{"load_x": "ANTI add i 1;", "load_y": "ANTI add i 1;", "add": "ANTI store_z i 1;"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s carried dependencies %q, want %q", k, got[k], w)
		}
	}
}

// TestAnalyzeLoops_RunTimeTripCount: a loop whose trip count is known only
// at run time is refused with NW410.
func TestAnalyzeLoops_RunTimeTripCount(t *testing.T) {
	src := "module arch=trn2\n\nfunc @main {\nBlock1:\n  w = DoWhile on SP d in [0, 1) {\n  Block_d:\n    a = Halt on PE\n  }\n}\n"
	m, err := bir.Parse("d.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = depgraph.AnalyzeLoops(m.Main(), depgraph.Options{})
	if err == nil || diagCode(err) != "NW410" {
		t.Errorf("err %v: want NW410", err)
	}
}

func diagCode(err error) string { return diag.CodeOf(err) }
