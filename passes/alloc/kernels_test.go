package alloc_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// plannerSpecs are, per built-in kernel, its default size and two larger
// parameterizations (for oversized, which has no size, its other cases),
// plus the planner's own workloads: two kernels within 10% of trn2's SBUF
// budget and one over it (spills), and the staged tensor_add the
// pre-schedule must reorder.
var plannerSpecs = []string{
	"attention", "attention:seq=512,d=64", "attention:seq=1024,d=128",
	"average_pool2d", "average_pool2d:c=512,h=32,w=32", "average_pool2d:c=1024,h=32,w=64",
	"cce_reduce", "cce_reduce:sources=8,rows=1024,cols=512", "cce_reduce:sources=20,rows=512,cols=1024",
	"embedding", "embedding:vocab=4000,d=512,tokens=512", "embedding:vocab=8000,d=1024,tokens=1024",
	"exchange", "exchange:rows=1024,cols=1024", "exchange:rows=2048,cols=1024",
	"macro_elementwise", "macro_elementwise:rows=1024,cols=4096", "macro_elementwise:rows=2048,cols=4096",
	"macro_matmul", "macro_matmul:m=512,k=512,n=1024", "macro_matmul:m=512,k=1024,n=1024",
	"macro_rmsnorm", "macro_rmsnorm:rows=1024,d=1024", "macro_rmsnorm:rows=2048,d=1024",
	"macro_softmax", "macro_softmax:rows=1024,cols=2048", "macro_softmax:rows=2048,cols=2048",
	"matmul", "matmul:m=512,k=512,n=1024", "matmul:m=1024,k=512,n=1024",
	"oversized", "oversized:case=cut", "oversized:case=vn",
	"residual", "residual:rows=1024,cols=4096", "residual:rows=128,cols=12800", "residual:rows=256,cols=16384",
	"rmsnorm", "rmsnorm:rows=1024,d=1024", "rmsnorm:rows=2048,d=2048",
	"softmax", "softmax:rows=1024,cols=2048", "softmax:rows=2048,cols=4096",
	"tensor_add", "tensor_add:rows=2048,cols=4096", "tensor_add:rows=128,cols=16896", "tensor_add:rows=2048,cols=4096,order=staged",
	"transpose2d", "transpose2d:rows=1024,cols=1024", "transpose2d:rows=2048,cols=1536",
}

// plannerPasses is the memory planner as one transformation.
var plannerPasses = []string{"infer_psum_tensor", "pre_schedule", "alloc"}

// TestMemoryPlanner_Kernels: every spec compiles through the default
// pipeline up to the scheduler with allocation; across the planner's
// passes (infer_psum_tensor, pre_schedule, alloc) the interpreter's
// outputs are bit-identical, and the verifier's allocated stage (overlap
// rule included) holds after. The kernels are interpreted at their full
// size: NARWHAL_SHORT=1 keeps only the default sizes.
func TestMemoryPlanner_Kernels(t *testing.T) {
	for _, spec := range plannerSpecs {
		if os.Getenv("NARWHAL_SHORT") != "" && strings.Contains(spec, ":") {
			continue
		}
		t.Run(spec, func(t *testing.T) {
			inst, err := kernels.Instantiate(spec)
			if err != nil {
				t.Fatal(err)
			}
			m := inst.Module
			prefix(t, m, 2, "infer_psum_tensor")
			run := func(m *bir.Module) error {
				_, err := pipeline.Table.Run(m, pass.Config{Passes: plannerPasses})
				return err
			}
			passtest.Check(t, m, run, passtest.InputsFunc(inst.Kernel.Inputs), passtest.StageBefore(verify.StageSBLegal|verify.StageUnrolled),
				passtest.Stage(verify.StageSBLegal|verify.StageUnrolled|verify.StageAllocated))
		})
	}
}

// TestMemoryPlanner_Table prints, with NARWHAL_ALLOC_TABLE=1, the table of
// the closing note: per spec, SBUF peak / max-live and PSUM peak and banks,
// for pack and for the seed's linear scan.
func TestMemoryPlanner_Table(t *testing.T) {
	if os.Getenv("NARWHAL_ALLOC_TABLE") == "" {
		t.Skip("set NARWHAL_ALLOC_TABLE=1 to print the allocation table")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| kernel | SBUF max-live | pack packed peak (/ max-live) | pack placed peak (spread) | linear-scan peak (/ max-live) | PSUM max-live | pack packed peak (banks) | pack placed peak (banks) | linear-scan peak (banks) | spills pack / linear-scan |\n|---|---|---|---|---|---|---|---|---|---|\n")
	type result struct {
		sbMax, sbPacked, sbPeak, psMax, psPacked, psPeak int64
		spills                                           string
	}
	banks := func(v int64) int64 { return (v + 2047) / 2048 }
	ratio := func(a, b int64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", float64(a)/float64(b))
	}
	for _, spec := range plannerSpecs {
		var row [2]result
		for k, allocator := range []string{"pack", "linear-scan"} {
			m, err := kernels.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("anti_dependency_analyzer"), Options: map[string]map[string]string{"alloc": {"allocator": allocator, "baseline": "false"}}})
			if err != nil {
				row[k].spills = "does not fit"
				continue
			}
			r := rep.Result("alloc")
			row[k] = result{r.Counter("sbuf_max_live"), r.Counter("sbuf_packed_peak"), r.Counter("sbuf_peak"),
				r.Counter("psum_max_live"), r.Counter("psum_packed_peak"), r.Counter("psum_peak"),
				fmt.Sprint(r.Counter("MaxLiveSpiller.spills") + r.Counter("SpillPSum.spills"))}
		}
		p, l := row[0], row[1]
		ls, lps := fmt.Sprintf("%d (%s)", l.sbPeak, ratio(l.sbPeak, l.sbMax)), fmt.Sprintf("%d (%d)", l.psPeak, banks(l.psPeak))
		if l.spills == "does not fit" {
			ls, lps = "does not fit", "-"
		}
		fmt.Fprintf(&b, "| %s | %d | %d (%s) | %d | %s | %d | %d (%d) | %d (%d) | %s | %s / %s |\n", spec, p.sbMax, p.sbPacked, ratio(p.sbPacked, p.sbMax), p.sbPeak, ls,
			p.psMax, p.psPacked, banks(p.psPacked), p.psPeak, banks(p.psPeak), lps, p.spills, l.spills)
	}
	fmt.Print(b.String())
}

// TestPlannerCounters_Act: the planner's mechanisms act on the workloads
// written for them, by their report counters, at the default options;
// TestMemoryPlanner_Kernels checks the same specs by execution.
func TestPlannerCounters_Act(t *testing.T) {
	tests := []struct {
		spec    string
		level   string
		pass    string
		counter string
		want    func(v int64) bool
	}{
		// The staged order keeps every tile live: the pre-schedule
		// interleaves it, and no spill is needed.
		{"tensor_add:rows=2048,cols=4096,order=staged", "2", "pre_schedule", "reordered", func(v int64) bool { return v == 1 }},
		{"tensor_add:rows=2048,cols=4096,order=staged", "2", "alloc", "MaxLiveSpiller.spills", func(v int64) bool { return v == 0 }},
		{"residual:rows=256,cols=16384", "2", "alloc", "MaxLiveSpiller.spills", func(v int64) bool { return v > 0 }},
		{"matmul", "2", "infer_psum_tensor", "to_psum", func(v int64) bool { return v == 1 }},
		// FullUnroll level 0's per-block locations of a liveN == 1 tensor
		// fold into one local template; level 1's template with liveN 2
		// (attention's v_tile) gets per-block locations.
		{"attention:seq=384,d=48,dtype=bfloat16", "0", "alloc", "createLocalTensors.folded", func(v int64) bool { return v > 0 }},
		{"attention:seq=256,d=32", "1", "alloc", "createLocalTensors.split", func(v int64) bool { return v > 0 }},
		{"attention:seq=256,d=32", "1", "alloc", "ModuloAllocation.tensors", func(v int64) bool { return v > 0 }},
	}
	for _, tc := range tests {
		t.Run(tc.spec+"/"+tc.counter, func(t *testing.T) {
			m, err := kernels.Build(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("anti_dependency_analyzer"), VerifyEach: true,
				Options: map[string]map[string]string{"full_unroll": {"unrollLevel": tc.level}}})
			if err != nil {
				t.Fatal(err)
			}
			r := rep.Result(tc.pass)
			if r == nil {
				t.Fatalf("pass %s did not run", tc.pass)
			}
			if v := r.Counter(tc.counter); !tc.want(v) {
				t.Errorf("%s.%s = %d", tc.pass, tc.counter, v)
			}
		})
	}
}
