package sched_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// ours are the passes of this issue, in table order.
var ours = []string{"anti_dependency_analyzer", "assign_engines", "assign_hwdge_engine", "alloc_queues", "time_aware_scheduler"}

// afterLowering is the verifier stage of a kernel lowered to the passes
// before ours (the default pipeline's stages up to shrink_ml).
func afterLowering(m *bir.Module) verify.Stage {
	s := verify.StageUnrolled | verify.StageIndirectLowered | verify.StageCCELegal | verify.StageSBLegal
	for _, f := range m.Funcs {
		if depgraph.HasLoops(f) {
			s &^= verify.StageUnrolled
		}
	}
	return s
}

func runOurs(m *bir.Module) (*pass.Report, error) {
	return pipeline.Table.Run(m, pass.Config{Passes: ours, VerifyEach: true})
}

// TestSchedule_Kernels is the translation validation of the scheduled
// order: every built-in kernel, lowered, placed four ways (the memory
// planner's allocation, unplaced, each location its own bytes, locations
// reusing bytes as soon as they can: schedtest.Placements), is
// verified, interpreted, run through dependency analysis and scheduling,
// verified at StageScheduled and interpreted again in the scheduled
// order: the outputs must be bit-identical. The scheduler must have
// reordered instructions on some kernel (it acts).
func TestSchedule_Kernels(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	reordered := 0
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		for _, place := range schedtest.Placements {
			t.Run(place, func(t *testing.T) {
				mm := cloneModule(t, m)
				if err := schedtest.Prepare(mm, model, place, 1); err != nil {
					t.Fatal(err)
				}
				st := afterLowering(mm)
				if st&verify.StageUnrolled == 0 {
					t.Skip("the kernel keeps loops: not scheduled")
				}
				if place == "planner" {
					st |= verify.StageAllocated
				}
				var rep *pass.Report
				passtest.Check(t, mm, func(m *bir.Module) error {
					var err error
					rep, err = runOurs(m)
					return err
				}, passtest.StageBefore(st), passtest.Stage(st|verify.StageEnginesAssigned|verify.StageScheduled), passtest.InputsFunc(kernelInputs(name)))
				res := rep.Result("time_aware_scheduler")
				reordered += int(res.Counter("reordered"))
				if ms, lb := res.Counter("makespan_ns"), res.Counter("lower_bound_ns"); ms < lb || lb <= 0 {
					t.Errorf("makespan %d ns, lower bound %d ns: want 0 < bound <= makespan", ms, lb)
				}
			})
		}
	})
	if reordered == 0 {
		t.Error("the scheduler reordered no instruction of any kernel")
	}
	t.Logf("%d instructions moved in all", reordered)
}

// kernelInputs returns the kernel's own input generator for a copy of its
// module (passtest only knows the module ForEachKernel handed out).
func kernelInputs(spec string) func(m *bir.Module, seed int64) map[string]*interp.Tensor {
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		panic(err)
	}
	return func(m *bir.Module, seed int64) map[string]*interp.Tensor {
		return kernels.InputsFor(inst.Kernel, m, seed)
	}
}

func cloneModule(t *testing.T, m *bir.Module) *bir.Module {
	t.Helper()
	c, err := bir.Parse("clone", []byte(bir.Format(m)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDependencies_RandomTopologicalOrders is the dynamic check of the
// dependencies: on every kernel, with locations reusing bytes round robin
// (so the WAR/WAW edges of reuse matter), the instructions are put in
// random topological orders of the dependence graph and interpreted; every
// order must give the program order's outputs bit for bit. A missing edge
// shows as a changed output or a read of never-written memory.
func TestDependencies_RandomTopologicalOrders(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if err := schedtest.Prepare(m, model, "roundrobin", 3); err != nil {
			t.Fatal(err)
		}
		if afterLowering(m)&verify.StageUnrolled == 0 {
			t.Skip("the kernel keeps loops")
		}
		f := m.Main()
		for _, g := range m.Funcs {
			if g.NumInsts() > f.NumInsts() {
				f = g
			}
		}
		gr, err := depgraph.Analyze(f, depgraph.Options{Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes})
		if err != nil {
			t.Fatal(err)
		}
		gr.Write(f)
		if len(f.Top) != 1 {
			t.Skipf("%d top-level blocks", len(f.Top))
		}
		rng := rand.New(rand.NewPCG(uint64(len(name)), 9))
		for trial := range 4 {
			order := randomTopo(gr, rng)
			passtest.Check(t, m, func(m *bir.Module) error {
				list := make([]bir.InstID, len(order))
				for k, p := range order {
					list[k] = gr.Insts[p]
				}
				f.ReplaceBlockInsts(f.Top[0], list)
				return nil
			}, passtest.StageBefore(afterLowering(m)), passtest.InputsFunc(kernelInputs(name)), passtest.Seed(int64(trial+1)))
		}
	})
}

// randomTopo returns a uniformly chosen ready instruction at each step.
func randomTopo(g *depgraph.Graph, rng *rand.Rand) []int32 {
	n := len(g.Insts)
	npred := make([]int32, n)
	succ := make([][]int32, n)
	for k := range n {
		preds, _ := g.Preds(k)
		npred[k] = int32(len(preds))
		for _, q := range preds {
			succ[q] = append(succ[q], int32(k))
		}
	}
	var ready, out []int32
	for k := range n {
		if npred[k] == 0 {
			ready = append(ready, int32(k))
		}
	}
	for len(ready) > 0 {
		j := rng.IntN(len(ready))
		k := ready[j]
		ready = slices.Delete(ready, j, j+1)
		out = append(out, k)
		for _, s := range succ[k] {
			if npred[s]--; npred[s] == 0 {
				ready = append(ready, s)
			}
		}
	}
	return out
}

// TestTimeAwareScheduler_WindowOff: reorder-window=0 logs the seed's
// line and issues in list order. The two schedules are of one program:
// performance tiling is off (it judges with the run's window, so it could
// keep different splits).
func TestTimeAwareScheduler_WindowOff(t *testing.T) {
	inst, err := kernels.Instantiate("attention")
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	noPerf := map[string]string{"enable": "false"}
	rep, err := pipeline.Table.Run(m, pass.Config{Options: map[string]map[string]string{"time_aware_scheduler": {"reorder-window": "0"}, "sunda_size_tiling_perf": noPerf}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Result("time_aware_scheduler").Log, "Disabling reorder window optimization.") {
		t.Errorf("log: %q", rep.Result("time_aware_scheduler").Log)
	}
	on, err := kernels.Instantiate("attention")
	if err != nil {
		t.Fatal(err)
	}
	rep2, err := pipeline.Table.Run(on.Module, pass.Config{Options: map[string]map[string]string{"sunda_size_tiling_perf": noPerf}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Result("time_aware_scheduler").Counter("makespan_ns"), rep2.Result("time_aware_scheduler").Counter("makespan_ns")
	t.Logf("attention makespan: window off %d ns, on %d ns", a, b)
	if b > a {
		t.Errorf("the reorder window made the schedule longer: %d ns with, %d ns without", b, a)
	}
}

// TestSchedule_ReportLines: the report names every quantity the issue
// asks for.
func TestSchedule_ReportLines(t *testing.T) {
	inst, err := kernels.Instantiate("matmul")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := pipeline.Table.Run(inst.Module, pass.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	if err := rep.Write(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"makespan ", " Tensor-engine cycles", "lower bound ", "bound by the ", "gap ", "program order ", "utilization:", "largest stalls:", "waited ", "reuse cost: ", "AntiDependencyAnalyzer-SB: ", "AntiDependencyAnalyzer-PSUM: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	_ = sched.CheckpointName
}

// TestSchedule_BIRJSONRoundTrip: a scheduled module written as BIR-JSON
// and read back has the same schedule table (the "schedule" extension
// fields), verifies at StageScheduled, and is written back byte for byte.
func TestSchedule_BIRJSONRoundTrip(t *testing.T) {
	for _, spec := range []string{"attention", "embedding", "matmul:m=128,k=256,n=128,tile_n=128"} {
		inst, err := kernels.Instantiate(spec)
		if err != nil {
			t.Fatal(err)
		}
		m := inst.Module
		if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
			t.Fatal(err)
		}
		data, err := birjson.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		back, err := birjson.Decode(data, spec+".json")
		if err != nil {
			t.Fatal(err)
		}
		for k, f := range m.Funcs {
			g := back.Funcs[k]
			if f.Sched == nil || g.Sched == nil {
				t.Fatalf("%s %s: schedule table %v before, %v after", spec, f.Name, f.Sched != nil, g.Sched != nil)
			}
			n := 0
			f.Walk(func(i bir.InstID) bool {
				j, ok := g.InstByName(f.InstName(i))
				if !ok {
					t.Fatalf("%s: instruction %s lost", spec, f.InstName(i))
				}
				a, b := f.Sched, g.Sched
				if a.Start[i] != b.Start[j] || a.End[i] != b.End[j] || a.Queue[i] != b.Queue[j] || a.DGE[i] != b.DGE[j] || a.Order[i] != b.Order[j] {
					t.Errorf("%s %s: entry (%d %d %d %d %d) read back as (%d %d %d %d %d)", spec, f.InstName(i),
						a.Start[i], a.End[i], a.Queue[i], a.DGE[i], a.Order[i], b.Start[j], b.End[j], b.Queue[j], b.DGE[j], b.Order[j])
				}
				n++
				return true
			})
			if n == 0 {
				t.Errorf("%s %s: no instruction compared", spec, f.Name)
			}
		}
		if err := verify.Module(back, verify.Options{Stage: verify.StageUnrolled | verify.StageScheduled}); err != nil {
			t.Errorf("%s: read back: %v", spec, err)
		}
		again, err := birjson.Encode(back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(data) {
			t.Errorf("%s: written again, the file differs", spec)
		}
		if !strings.Contains(string(data), `"schedule":{"start_ps":`) {
			t.Errorf("%s: no schedule field written", spec)
		}
	}
}
