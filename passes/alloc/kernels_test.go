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
	fmt.Fprintf(&b, "| kernel | SBUF max-live | pack peak | pack peak/max-live | linear-scan peak | ls/max-live | PSUM max-live | pack PSUM peak (banks) | linear-scan PSUM peak (banks) | spills pack / linear-scan |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, spec := range plannerSpecs {
		var row [2]struct {
			peak, maxLive, ppeak, pmax int64
			banks                      int
			spills                     string
		}
		for k, allocator := range []string{"pack", "linear-scan"} {
			m, err := kernels.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("anti_dependency_analyzer"), Options: map[string]map[string]string{"alloc": {"allocator": allocator, "baseline": "false"}}})
			if err != nil {
				row[k].spills = "error: " + strings.SplitN(err.Error(), "\n", 2)[0]
				continue
			}
			r := rep.Result("alloc")
			row[k].peak, row[k].maxLive = r.Counter("sbuf_peak"), r.Counter("sbuf_max_live")
			row[k].ppeak, row[k].pmax = r.Counter("psum_peak"), r.Counter("psum_max_live")
			row[k].banks = int((row[k].ppeak + 2047) / 2048)
			row[k].spills = fmt.Sprint(r.Counter("MaxLiveSpiller.spills") + r.Counter("SpillPSum.spills"))
		}
		ratio := func(a, b int64) string {
			if b == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", float64(a)/float64(b))
		}
		p, l := row[0], row[1]
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %s | %d | %d (%d) | %d (%d) | %s / %s |\n", spec, p.maxLive, p.peak, ratio(p.peak, p.maxLive), l.peak, ratio(l.peak, l.maxLive),
			p.pmax, p.ppeak, p.banks, l.ppeak, l.banks, p.spills, l.spills)
	}
	fmt.Print(b.String())
}
