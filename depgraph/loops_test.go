package depgraph_test

import (
	"fmt"
	"slices"
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

// runtimeLoopSrc is a DynamicForLoop over registers copying rows through
// a register access pattern (the body's offset register advances per
// iteration), at the top level or (nested) inside a static loop of trip
// outer.
func runtimeLoopSrc(body string, outer int) string {
	loop := "  loop_r = DynamicForLoop r in [0, 1) $lo i32, $hi i32, 1 i32 {\n  Block_r:\n" + body + "  }\n"
	if outer > 0 {
		loop = fmt.Sprintf("  loop_o = Loop o in [0, %d) {\n  Block_o:\n%s  }\n", outer, loop)
	}
	return "module arch=trn2\n\nfunc @main {\n  tensor %x_set: f32[16, 8] kind=Input\n    loc %x: Input 16x32\n" +
		"  tensor %out_set: f32[16, 8] kind=Output\n    loc %out: Output 16x32\n  reg $lo\n  reg $hi\n  reg $off\nBlock1:\n" +
		"  m1 = RegisterMove on Activation 0 i32 -> $lo i32\n  m2 = RegisterMove on Activation 16 i32 -> $hi i32\n" +
		"  m3 = RegisterMove on Activation 0 i32 -> $off i32\n" + loop + "}\n"
}

const runtimeCopyBody = "    cp = DMACopy %x_set[reg=$off, ap=[[8,1],[1,8]]] f32 -> %out_set[reg=$off, ap=[[8,1],[1,8]]] f32 {mode=\"Copy\"}\n" +
	"    nx = RegisterAlu on Activation $off i32, 8 i32 -> $off i32 {op=\"add\"}\n"

// TestAnalyzeLoops_RuntimeLoop: a loop whose trip count is known only at
// run time is analyzed through its two-iteration window: the copy of
// iteration k+1 depends on the offset's advance in iteration k (FLOW at
// distance 1; its write after the previous copy, OUTPUT on the whole
// tensor the register access pattern stands for, is implied through it),
// the advance on the copy's read of the offset (ANTI), and every body
// instruction on the writers of the loop's bound registers (its control).
func TestAnalyzeLoops_RuntimeLoop(t *testing.T) {
	m, err := bir.Parse("r.bir", []byte(runtimeLoopSrc(runtimeCopyBody, 0)))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	lg, err := depgraph.AnalyzeLoops(f, depgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lg.Write(f)
	got := map[string][]string{}
	f.Walk(func(i bir.InstID) bool {
		for _, d := range f.Deps(i) {
			s := d.Kind.String() + " " + f.InstName(d.On)
			if d.CarryAxis != bir.NoAxis {
				s += fmt.Sprintf(" carry %d", d.CarryDist)
			}
			got[f.InstName(i)] = append(got[f.InstName(i)], s)
		}
		return true
	})
	want := map[string][]string{
		"cp": {"FLOW m1", "FLOW m2", "FLOW m3", "FLOW nx carry 1"},
		"nx": {"FLOW m1", "FLOW m2", "ANTI cp"},
	}
	for k, w := range want {
		for _, d := range w {
			if !slices.Contains(got[k], d) {
				t.Errorf("%s: dependencies %v, want %q among them", k, got[k], d)
			}
		}
	}
}

// TestAnalyzeLoops_RuntimeLoopRefusals: what the window cannot stand for is
// refused with NW410: a runtime loop inside a loop of two iterations (the
// outer loop's counts would multiply a run-time count), and an operand
// over the runtime loop's axis (its value is a register's).
func TestAnalyzeLoops_RuntimeLoopRefusals(t *testing.T) {
	for name, src := range map[string]string{
		"nested":       runtimeLoopSrc(runtimeCopyBody, 2),
		"axis operand": runtimeLoopSrc("    mv = RegisterMove on Activation symimm(r, []) i32 -> $off i32\n", 0),
	} {
		t.Run(name, func(t *testing.T) {
			m, err := bir.Parse("r.bir", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = depgraph.AnalyzeLoops(m.Main(), depgraph.Options{})
			if err == nil || diagCode(err) != "NW410" {
				t.Errorf("err %v: want NW410", err)
			}
		})
	}
}

func diagCode(err error) string { return diag.CodeOf(err) }
