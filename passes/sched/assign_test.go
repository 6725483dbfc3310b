package sched_test

import (
	"fmt"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestAssignEngines_Kernels: assign_engines validated on every kernel (the
// outputs do not change) and the verifier's engine-assigned rule holds
// after it; on the embedding kernel, whose lowered gather leaves
// TensorScalarPtr and Memset Unassigned, it acts.
func TestAssignEngines_Kernels(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	p, _ := pipeline.Table.Lookup("assign_engines")
	acted := map[string]int64{}
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if err := schedtest.Prepare(m, model, "planner", 1); err != nil {
			t.Fatal(err)
		}
		before := afterLowering(m) | verify.StageAllocated
		passtest.CheckPass(t, m, p, passtest.StageBefore(before), passtest.Stage(before|verify.StageEnginesAssigned), passtest.InputsFunc(kernelInputs(name)))
		var n int64
		for _, f := range m.Funcs {
			k, err := sched.AssignEngines(f, model) // idempotent: nothing left to assign
			if err != nil || k != 0 {
				t.Errorf("second run assigned %d, %v", k, err)
			}
			n += k
		}
		acted[name] = n
	})
	// The pass's own counter, on the kernel where it acts.
	inst, err := kernels.Instantiate("embedding")
	if err != nil {
		t.Fatal(err)
	}
	if err := schedtest.Prepare(inst.Module, model, "planner", 1); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range inst.Module.Funcs {
		k, err := sched.AssignEngines(f, model)
		if err != nil {
			t.Fatal(err)
		}
		n += k
		f.Walk(func(i bir.InstID) bool {
			if e := f.Inst(i).Engine; f.Inst(i).Op == bir.OpTensorScalarPtr && e != bir.EngDVE && e != bir.EngAct {
				t.Errorf("%s on %s: want Vector or Scalar", f.InstName(i), e)
			}
			return true
		})
	}
	if n == 0 {
		t.Error("assign_engines assigned nothing on the embedding kernel")
	}
}

// TestAssignHWDGEEngine_ByGeneration: NC-v3 issues static DMAs through
// its two hardware DGEs in turn and keeps the indirect gather on the
// software DGE (as ReadVarAddr); NC-v2 has none.
func TestAssignHWDGEEngine_ByGeneration(t *testing.T) {
	for _, tc := range []struct {
		arch   string
		hw, sw int64
	}{{"trn2", 4, 4}, {"trn1", 0, 8}} {
		model, _ := arch.Lookup(tc.arch)
		inst, err := kernels.Instantiate("embedding:vocab=300,d=64,tokens=256")
		if err != nil {
			t.Fatal(err)
		}
		if err := schedtest.Prepare(inst.Module, model, "unplaced", 1); err != nil {
			t.Fatal(err)
		}
		f := inst.Module.Main()
		hw, sw := sched.AssignHWDGEEngine(f, model)
		if hw != tc.hw || sw != tc.sw {
			t.Errorf("%s: %d hardware, %d software DGE DMAs; want %d, %d", tc.arch, hw, sw, tc.hw, tc.sw)
		}
		seen := map[int8]int{}
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == bir.OpIndirectLoad && f.Sched.DGE[i] != -1 {
				t.Errorf("%s: the indirect gather %s on hardware DGE %d", tc.arch, f.InstName(i), f.Sched.DGE[i])
			}
			if d := f.Sched.DGE[i]; d >= 0 {
				seen[d]++
			}
			return true
		})
		if tc.hw > 0 && (seen[0] != seen[1] || seen[0] == 0) {
			t.Errorf("%s: DMAs per hardware DGE %v: want them alternated", tc.arch, seen)
		}
	}
}

// TestAllocQueues_Balance: 40 DMAs of two sizes over 16 queues: every DMA
// gets a queue, a DMA keeps one it has, and the greedy balance leaves no
// queue with more than one DMA's worth of time above another.
func TestAllocQueues_Balance(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 4096)
	var dmas []bir.InstID
	for k := range 40 {
		cols := int64(4096)
		if k%3 == 0 {
			cols = 1024
		}
		s := b.SBUF(fmt.Sprintf("s%d", k), bir.Float32, 128, cols)
		dmas = append(dmas, b.Load(fmt.Sprintf("ld%d", k), s.All(), x.Tile(0, 128, 0, cols)))
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	sched.AssignHWDGEEngine(f, model)
	f.Sched.Queue[dmas[5]] = 9
	n, err := sched.AllocQueues(f, model, sched.QueuesBalanced)
	if err != nil || n != 40 {
		t.Fatalf("%d DMAs, %v", n, err)
	}
	if f.Sched.Queue[dmas[5]] != 9 {
		t.Errorf("a preset queue was changed to %d", f.Sched.Queue[dmas[5]])
	}
	load := make([]int64, model.DMAQueues)
	var big int64
	for _, i := range dmas {
		q := f.Sched.Queue[i]
		if q < 0 || int64(q) >= model.DMAQueues {
			t.Fatalf("%s: queue %d", f.InstName(i), q)
		}
		e, _ := model.InstructionCost(f, i, bir.EngDMA, f.Sched.DGE[i] >= 0)
		load[q] += e.Ps()
		big = max(big, e.Ps())
	}
	lo, hi := load[0], load[0]
	for _, l := range load {
		lo, hi = min(lo, l), max(hi, l)
	}
	if hi-lo > big {
		t.Errorf("queue loads %v: spread %d ps, more than the largest DMA (%d ps)", load, hi-lo, big)
	}
}
