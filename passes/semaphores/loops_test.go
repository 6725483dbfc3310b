package semaphores_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// compileLoop compiles a loop program with the default pipeline
// (verifying after every pass) and returns it with its inputs and the
// sequential run's outputs.
func compileLoop(t *testing.T, lp schedtest.LoopProgram) (*bir.Module, map[string]*interp.Tensor, map[string]*interp.Tensor, *pass.Report) {
	t.Helper()
	m, k, err := lp.Build()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true, Options: lp.Options})
	if err != nil {
		t.Fatal(err)
	}
	in := interp.RandomInputs(m, 1)
	if k != nil {
		in = kernels.InputsFor(k, m, 1)
	}
	want, err := interp.Run(m, in, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, in, want, rep
}

// TestLoops_Programs: every loop program (a level-0 tensor_add and
// matmul, oversized's DynamicForLoop, matmul with a dynamic M loop,
// attention at level 1, the loop pipeline with one and two PSUM slots)
// keeps its loops through the whole default pipeline, verifies at stage
// synchronized, runs in the concurrent interpreter under every policy (10
// interleavings each, every engine and a queue starved) with no race, no
// deadlock, no DMA after Halt and the sequential run's outputs, and every
// one of its waits is needed:
// removed, the race checker (or, for an ORDERED dependency, the
// verifier's happens-before rule) catches it.
func TestLoops_Programs(t *testing.T) {
	// Half the kernels' sweep: 10 seeds still starve every engine and a
	// queue (policies cycles through them).
	seeds := max(sweepSeeds()/2, 1)
	var total, byRace, byRule, runs int
	for _, lp := range schedtest.LoopPrograms() {
		t.Run(lp.Name, func(t *testing.T) {
			m, in, want, _ := compileLoop(t, lp)
			f := m.Main()
			if !bir.HasLoops(f) || f.Sync == nil {
				t.Fatalf("loops %v, synchronized %v: want both", bir.HasLoops(f), f.Sync != nil)
			}
			model, err := arch.ForModule(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Module(m, verify.Options{Arch: model, Stage: verify.StageSynchronized}); err != nil {
				t.Fatal(err)
			}
			if f.Sync.HasIters() != (lp.Spec != "oversized:case=force,dynamic=1") {
				// oversized's dynamic loop is all on Vector: its only
				// waits are on the load before it.
				t.Errorf("waits with iteration terms: %v", f.Sync.HasIters())
			}
			runs += sweep(t, []*bir.Module{m}, in, want, seeds)
			w, r, h, nv := mutate(t, mutationCase{lp.Name, []*bir.Module{m}, in})
			t.Logf("%d waits: %d caught by the race checker, %d by the happens-before rule, %d never", w, r, h, nv)
			if w == 0 || nv > 0 {
				t.Errorf("%d waits, %d caught by nothing", w, nv)
			}
			total, byRace, byRule = total+w, byRace+r, byRule+h
		})
	}
	t.Logf("loop programs: %d concurrent runs; %d waits, %d caught by the race checker, %d by the rule", runs, total, byRace, byRule)
}

// loopTimes returns the period and span of the first loop of f.
func loopTimes(f *bir.Function) (ii, span int64) {
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsLoop() {
			ii, span = f.Sched.PeriodOf(i), f.Sched.End[i]-f.Sched.Start[i]
			return false
		}
		return true
	})
	return ii, span
}

// TestLoops_ModuloOverlap: the overlap ModuloAllocation buys. In the loop
// pipeline (a dynamic loop: matmul into PSUM, Exp out of it, no DMA in
// the body) one PSUM slot makes each matmul wait for the previous
// iteration's Exp (initiation interval = matmul + Exp); two slots let the
// Tensor and Scalar engines overlap (the interval drops to the matmul's,
// the Tensor engine's work per iteration), and the loop's span with it.
func TestLoops_ModuloOverlap(t *testing.T) {
	var ii, span [2]int64
	for k, lp := range schedtest.LoopPrograms()[5:7] {
		m, _, _, rep := compileLoop(t, lp)
		ii[k], span[k] = loopTimes(m.Main())
		if n := rep.Result("alloc").Counter("ModuloAllocation.tensors"); (k == 0) != (n > 0) {
			t.Errorf("%s: ModuloAllocation rotated %d tensors", lp.Name, n)
		}
	}
	t.Logf("loop pipeline, 4 iterations: per iteration %.3f us with one PSUM slot, %.3f us with two; the loop %.3f us and %.3f us (x%.2f)",
		float64(ii[1])/1e6, float64(ii[0])/1e6, float64(span[1])/1e6, float64(span[0])/1e6, float64(span[1])/float64(span[0]))
	if !(ii[0] < ii[1] && span[0] < span[1]) {
		t.Errorf("two PSUM slots: interval %d ps, span %d ps; one: %d, %d: want both shorter with two", ii[0], span[0], ii[1], span[1])
	}
}

// TestLoops_RunTimeTripCount: a loop whose trip count is known only at run
// time (a DynamicForLoop with register bounds) is an error of the
// pipeline (NW410), never "compiled".
func TestLoops_RunTimeTripCount(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	in := b.Input("in", bir.Float32, 128, 64)
	out := b.Output("out", bir.Float32, 128, 64)
	sb := b.SBUF("t", bir.Float32, 128, 64)
	l, _ := b.F.NewLoop(bir.OpDynamicForLoop, "dl", "d", 0, 4, 1)
	reg := bir.RegOpd(b.F.RegByName("n"), bir.Int32)
	b.F.SetArgs(l, []bir.Operand{reg, reg, reg}, nil)
	b.F.Append(b.Block(), l)
	bb := bir.BuilderFor(b.F, b.F.NewBlock("body", l))
	bb.Load("ld", sb.All(), in.All())
	bb.Save("st", out.All(), sb.All())
	_ = affine.Const(0)
	if err := bb.Err(); err != nil {
		t.Fatal(err)
	}
	_, err := pipeline.Table.Run(m, pass.Config{})
	if err == nil || diag.CodeOf(err) != diag.LoopNotHandled {
		t.Fatalf("err %v (code %s): want %s", err, diag.CodeOf(err), diag.LoopNotHandled)
	}
	t.Log(err)
}
