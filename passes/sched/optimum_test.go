package sched_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// smallKernels are built-in kernel instances of at most 15 instructions
// after lowering, one or more per kernel.
var smallKernels = []string{
	"tensor_add:rows=384,cols=256",
	"matmul:m=128,k=256,n=128,tile_n=128",
	"softmax:rows=256,cols=128",
	"rmsnorm:rows=128,d=512",
	"attention:seq=128,d=32",
	"transpose2d:rows=128,cols=128",
	"transpose2d:mode=dma,rows=128,cols=256,dtype=int16",
	"average_pool2d:c=64,h=9,w=9,pool=3,dtype=bfloat16",
	"embedding:vocab=50,d=96,tokens=128,dtype=bfloat16",
	"cce_reduce:sources=4,rows=128,cols=64",
	"oversized:case=vn",
}

// TestSchedule_ExhaustiveOptimum compares the scheduler with the optimum
// found by exhaustive search on every built-in kernel at a size of at
// most 15 instructions, allocated by the memory planner and with
// locations reusing bytes as soon as they can (placed=true): the
// schedule is never shorter than the optimum (which would be a bug in one
// of them) nor than the lower bound, and the test reports the ratio.
func TestSchedule_ExhaustiveOptimum(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	for _, spec := range smallKernels {
		for _, place := range []bool{false, true} {
			inst, err := kernels.Instantiate(spec)
			if err != nil {
				t.Fatal(err)
			}
			m := inst.Module
			placement := "planner"
			if place {
				placement = "roundrobin"
			}
			if err := schedtest.Prepare(m, model, placement, 1); err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"anti_dependency_analyzer", "assign_engines", "assign_hwdge_engine", "alloc_queues"}}); err != nil {
				t.Fatal(err)
			}
			f := largest(m)
			if n := f.NumInsts(); n > 15 {
				t.Fatalf("%s: %d instructions, want at most 15", spec, n)
			}
			opt, ok, err := sched.ExhaustiveOptimum(f, model, 20_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("%s: the search did not finish", spec)
				continue
			}
			rep, err := sched.Schedule(f, model, sched.Options{Window: sched.DefaultWindow})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Makespan < opt || opt < rep.LowerBound {
				t.Errorf("%s (placed %v): makespan %d, optimum %d, lower bound %d: want bound <= optimum <= makespan", spec, place, rep.Makespan, opt, rep.LowerBound)
			}
			t.Logf("%-52s placed=%-5v n=%2d makespan %9.3f us, optimum %9.3f us (x%.4f), lower bound %9.3f us",
				spec, place, rep.Insts, float64(rep.Makespan)/1e6, float64(opt)/1e6, float64(rep.Makespan)/float64(opt), float64(rep.LowerBound)/1e6)
		}
	}
}

// largest returns the function of m with the most instructions.
func largest(m *bir.Module) *bir.Function {
	f := m.Funcs[0]
	for _, g := range m.Funcs {
		if g.NumInsts() > f.NumInsts() {
			f = g
		}
	}
	return f
}
