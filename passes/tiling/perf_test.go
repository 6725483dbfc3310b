package tiling_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// stagesBefore are the stages the default pipeline establishes before
// pass name.
func stagesBefore(name string) verify.Stage {
	var s verify.Stage
	for _, p := range pipeline.Table.Passes {
		if p.Name == name {
			break
		}
		if p.Default && p.Gate == "" {
			s |= p.Produces
		}
	}
	return s
}

// TestSundaSizeTilingPerf_Kernels: translation validation of performance
// tiling on every built-in kernel lowered by the default pipeline up to
// it (unrolled, SB-legal, allocated): outputs bit-identical, the module
// verifies at every stage reached; the pass keeps splits on most kernels
// (counter sunda_size_tiling_perf.kept) and never reports a makespan
// above the one it started from.
func TestSundaSizeTilingPerf_Kernels(t *testing.T) {
	p, ok := pipeline.Table.Lookup("sunda_size_tiling_perf")
	if !ok {
		t.Fatal("sunda_size_tiling_perf is not in the pipeline")
	}
	stage := stagesBefore("sunda_size_tiling_perf")
	var acted []string
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if _, err := schedtest.Lower(m, "sunda_size_tiling_perf"); err != nil {
			t.Fatal(err)
		}
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error {
			tbl := pass.Table{Passes: []pass.Pass{*p}}
			var err error
			rep, err = tbl.Run(m, pass.Config{})
			return err
		}, passtest.StageBefore(stage), passtest.Stage(stage))
		r := rep.Result("sunda_size_tiling_perf")
		before, after := r.Counter("sunda_size_tiling_perf.makespan_before_ns"), r.Counter("sunda_size_tiling_perf.makespan_after_ns")
		if after > before {
			t.Errorf("makespan %d ns after, %d before: a split that lengthens the schedule was kept", after, before)
		}
		if r.Counter("sunda_size_tiling_perf.kept") > 0 {
			if after >= before {
				t.Errorf("splits kept with no gain: %d -> %d ns", before, after)
			}
			acted = append(acted, name)
		}
	})
	if len(acted) < 3 {
		t.Errorf("performance tiling acted on %d kernels (%v), want at least 3", len(acted), acted)
	}
	t.Logf("acted on %d kernel instances: %s", len(acted), strings.Join(acted, ", "))
}

// TestSundaSizeTilingPerf_Off: with enable=false the pass changes
// nothing, and the makespan function is required when it is on.
func TestSundaSizeTilingPerf_Off(t *testing.T) {
	m := mustBuild(t, "tensor_add")
	if _, err := schedtest.Lower(m, "sunda_size_tiling_perf"); err != nil {
		t.Fatal(err)
	}
	before := bir.Format(m)
	rep, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"sunda_size_tiling_perf"}, Options: map[string]map[string]string{"sunda_size_tiling_perf": {"enable": "false"}}})
	if err != nil {
		t.Fatal(err)
	}
	if bir.Format(m) != before {
		t.Error("enable=false changed the module")
	}
	if !slices.Contains(rep.Result("sunda_size_tiling_perf").Log, "performance tiling is off (enable=false)") {
		t.Error("no log line saying performance tiling is off")
	}
	model, _ := arch.Lookup("trn2")
	if _, err := tiling.PerformanceTiling(m, model, tiling.PerfOptions{}); err == nil || !strings.Contains(err.Error(), "makespan") {
		t.Errorf("no makespan function: err = %v", err)
	}
}

func mustBuild(t *testing.T, spec string) *bir.Module {
	t.Helper()
	inst, err := kernelsInstantiate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

func kernelsInstantiate(spec string) (*bir.Module, error) {
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		return nil, err
	}
	return inst.Module, nil
}

// TestSundaSizeTilingPerf_Pipeline: where a DMA cannot be cut along its
// partitions (32 rows: one quadrant), the producer -> consumer
// pipelining along the free axis acts: loads and the add, then the scale
// and the store, split into free pieces, each consumer piece starting on
// its producers' piece; outputs bit-identical, makespan lower.
func TestSundaSizeTilingPerf_Pipeline(t *testing.T) {
	p, _ := pipeline.Table.Lookup("sunda_size_tiling_perf")
	m := mustBuild(t, "macro_elementwise:rows=32,cols=16384,chain=add+scale")
	if _, err := schedtest.Lower(m, "sunda_size_tiling_perf"); err != nil {
		t.Fatal(err)
	}
	stage := stagesBefore("sunda_size_tiling_perf")
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error {
		tbl := pass.Table{Passes: []pass.Pass{*p}}
		var err error
		rep, err = tbl.Run(m, pass.Config{})
		return err
	}, passtest.StageBefore(stage), passtest.Stage(stage))
	r := rep.Result("sunda_size_tiling_perf")
	kept := 0
	for _, l := range r.Log {
		if strings.Contains(l, ": pipeline-free ") && strings.Contains(l, " -> ") {
			kept++
		}
	}
	if kept == 0 {
		t.Errorf("no pipeline-free split kept; log:\n%s", strings.Join(r.Log, "\n"))
	}
	if b, a := r.Counter("sunda_size_tiling_perf.makespan_before_ns"), r.Counter("sunda_size_tiling_perf.makespan_after_ns"); a >= b {
		t.Errorf("makespan %d -> %d ns: want lower", b, a)
	}
}
