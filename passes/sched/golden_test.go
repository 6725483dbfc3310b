package sched_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/sched"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden")

// goldenKernels are small kernels whose schedules the golden files hold,
// with the memory planner's allocation.
var goldenKernels = []string{
	"tensor_add:rows=256,cols=512",
	"matmul:m=128,k=256,n=128,tile_n=128",
	"attention:seq=128,d=32",
	"embedding:vocab=50,d=96,tokens=128,dtype=bfloat16",
}

// scheduleListing prints a scheduled function: each instruction in
// linearized order with its engine or queue, interval and dependencies,
// then the report.
func scheduleListing(f *bir.Function, rep *sched.Report) string {
	var b strings.Builder
	tab := f.Sched
	f.Walk(func(i bir.InstID) bool {
		where := sched.EngineName(f.Inst(i).Engine)
		if q := tab.Queue[i]; q >= 0 {
			where = fmt.Sprintf("DMA queue %d", q)
			if d := tab.DGE[i]; d >= 0 {
				where += fmt.Sprintf(" (hardware DGE %d)", d)
			}
		}
		fmt.Fprintf(&b, "%12.3f %12.3f us  %-26s %-24s #%d", float64(tab.Start[i])/1e6, float64(tab.End[i])/1e6, f.InstName(i), where, tab.Order[i])
		for _, d := range f.Deps(i) {
			fmt.Fprintf(&b, " %s:%s", d.Kind, f.InstName(d.On))
		}
		b.WriteString("\n")
		return true
	})
	b.WriteString(rep.String())
	return b.String()
}

// TestSchedule_Golden compares the schedules of a few kernels with
// testdata/golden (go test ./passes/sched -run Golden -update rewrites
// them).
func TestSchedule_Golden(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	for _, spec := range goldenKernels {
		t.Run(spec, func(t *testing.T) {
			inst, err := kernels.Instantiate(spec)
			if err != nil {
				t.Fatal(err)
			}
			m := inst.Module
			if _, err := schedtest.Lower(m, "time_aware_scheduler"); err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			rep, err := sched.Schedule(f, model, sched.Options{Window: sched.DefaultWindow, ReuseCost: true})
			if err != nil {
				t.Fatal(err)
			}
			got := scheduleListing(f, rep)
			path := filepath.Join("testdata", "golden", strings.NewReplacer(":", "_", ",", "_", "=", "").Replace(spec)+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the schedule (run with -update to accept):\n%s", path, got)
			}
		})
	}
}
