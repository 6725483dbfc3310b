package semaphores_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
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

// runtimeRepeatSrc sums x into acc once per iteration of a DynamicForLoop
// whose bounds are registers loaded from the input tensor bounds (lo, hi)
// with stride 2: out = T * x, T = the number of r in range(lo, hi, 2),
// known only when the program runs.
const runtimeRepeatSrc = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 64] kind=Input
    loc %x: Input 128x256
  tensor %bounds_set: i32[1, 2] kind=Input
    loc %bounds: Input 1x8
  tensor %b_set: i32[1, 2] class=NeuronSBTensor
    loc %b: SB 1x8
  tensor %xt_set: f32[128, 64] class=NeuronSBTensor
    loc %xt: SB 128x256
  tensor %acc_set: f32[128, 64] class=NeuronSBTensor
    loc %acc: SB 128x256
  tensor %out_set: f32[128, 64] kind=Output
    loc %out: Output 128x256
  reg $lo
  reg $hi
Block1:
  ldb = Load %bounds[ap=[[2,1],[1,2]]] i32 -> %b[ap=[[2,1],[1,2]]] i32
  ldx = Load %x[ap=[[64,128],[1,64]]] f32 -> %xt[ap=[[64,128],[1,64]]] f32
  zero = Memset on DVE -> %acc[ap=[[64,128],[1,64]]] f32 {mode="Const", constant=0.0}
  rlo = TensorLoad %b[ap=[[2,1],[1,1]]] i32 -> $lo i32
  rhi = TensorLoad %b[offset=1, ap=[[2,1],[1,1]]] i32 -> $hi i32
  loop_r = DynamicForLoop r in [0, 1) $lo i32, $hi i32, 2 i32 {
  Block_r:
    add = TensorTensor on DVE %acc[ap=[[64,128],[1,64]]] f32, %xt[ap=[[64,128],[1,64]]] f32 -> %acc[ap=[[64,128],[1,64]]] f32 {op="add", acc="Idle"}
  }
  st = Save %acc[ap=[[64,128],[1,64]]] f32 -> %out[ap=[[64,128],[1,64]]] f32
}
`

// TestLoops_RuntimeTripCountOverflow: a loop whose trip count is known
// only at run time and whose body loads what it adds counts the queue's
// completions per iteration; the counts a run reaches are bounded by the
// counter only at run time. With 4-bit counters (arch.semaphore-bits=4,
// largest value 15) the program compiles (the windows hold) and runs
// right at 7 iterations, every wait needed (those with an iteration term
// included); at 32 the concurrent interpreter reports the
// count past the counter (the hardware's would wrap), never a silent
// success.
func TestLoops_RuntimeTripCountOverflow(t *testing.T) {
	src := strings.Replace(runtimeRepeatSrc, "  Block_r:\n", "  Block_r:\n    ldx2 = Load %x[ap=[[64,128],[1,64]]] f32 -> %xt[ap=[[64,128],[1,64]]] f32\n", 1)
	m, err := bir.Parse("runtime.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m.Config.Options["arch.semaphore-bits"] = "4"
	if _, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	x := interp.RandomInputs(m, 1)["x"]
	for _, c := range []struct {
		hi       int32
		overflow bool
	}{{14, false}, {64, true}} {
		in := map[string]*interp.Tensor{"x": x, "bounds": {Name: "bounds", Dtype: bir.Int32, Shape: []int64{1, 2}, Data: binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 0), uint32(c.hi))}}
		res, err := interp.RunConcurrent(m, in, interp.ConcurrentOptions{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(res.Overflows) > 0; got != c.overflow || res.OK() == c.overflow {
			t.Errorf("bounds (0, %d): overflows %v, ok %v: want overflow %v", c.hi, res.Overflows, res.OK(), c.overflow)
		}
		t.Logf("bounds (0, %d): %v", c.hi, res.Overflows)
		if !c.overflow {
			// Its waits advance per iteration (the load of iteration k
			// completes the queue's k-th count): each one is needed.
			if !m.Main().Sync.HasIters() {
				t.Errorf("no wait with an iteration term")
			}
			w, r, h, nv := mutate(t, mutationCase{"runtime loop with a load", []*bir.Module{m}, in})
			t.Logf("%d waits: %d caught by the race checker, %d by the happens-before rule, %d never", w, r, h, nv)
			if w == 0 || nv > 0 {
				t.Errorf("%d waits, %d caught by nothing", w, nv)
			}
		}
	}
}

// TestLoops_RuntimeLoopTwoEngines: a runtime loop whose body needs two
// engines (instructions pinned on Vector and on GpSimd) is refused with
// NW410 naming the instruction, never compiled.
func TestLoops_RuntimeLoopTwoEngines(t *testing.T) {
	src := strings.Replace(runtimeRepeatSrc, "  Block_r:\n", "  Block_r:\n    fill = Memset on Pool -> %xt[ap=[[64,128],[1,64]]] f32 {mode=\"Const\", constant=1.0}\n", 1)
	m, err := bir.Parse("runtime.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Table.Run(m, pass.Config{})
	if err == nil || diag.CodeOf(err) != diag.LoopNotHandled || !strings.Contains(err.Error(), "instruction add") {
		t.Fatalf("err %v: want %s naming add", err, diag.LoopNotHandled)
	}
	t.Log(err)
}

// TestLoops_RuntimeTripCount: a loop whose trip count is known only at
// run time compiles once and is right for every trip count the run
// computes: the same compiled module, run with bounds (0, 64), (3, 17)
// and (5, 5) (32, 7 and 0 iterations: nothing at compile time knows
// them), gives out = T * x sequentially and in the concurrent interpreter
// under random, late-dma and starving interleavings, race-free; and every
// wait of the synchronized program is needed: removed, the race checker
// (or the happens-before rule) catches it.
func TestLoops_RuntimeTripCount(t *testing.T) {
	m, err := bir.Parse("runtime.bir", []byte(runtimeRepeatSrc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = pipeline.Table.Run(m, pass.Config{VerifyEach: true})
	if err != nil {
		t.Fatal(err)
	}
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
	var waits []string
	inLoop := 0
	f.Walk(func(i bir.InstID) bool {
		if ws := f.Sync.Waits(i); len(ws) > 0 {
			waits = append(waits, fmt.Sprintf("%s%v", f.InstName(i), ws))
			if len(f.Loopnest(i)) > 0 {
				inLoop++
			}
		}
		return true
	})
	t.Logf("waits: %v", waits)
	if inLoop == 0 {
		t.Errorf("no wait in the loop body: the mutation below would prove nothing there")
	}
	base := interp.RandomInputs(m, 1)
	x := base["x"]
	runs := 0
	var mutIn map[string]*interp.Tensor
	for _, b := range [][2]int32{{0, 64}, {3, 17}, {5, 5}} {
		in := map[string]*interp.Tensor{"x": x, "bounds": {Name: "bounds", Dtype: bir.Int32, Shape: []int64{1, 2}, Data: binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(b[0])), uint32(b[1]))}}
		trips := int64(0)
		for r := b[0]; r < b[1]; r += 2 {
			trips++
		}
		got, err := interp.Run(m, in, interp.Options{})
		if err != nil {
			t.Fatalf("bounds %v: %v", b, err)
		}
		out := got["out"]
		for k := 0; k+4 <= len(x.Data); k += 4 {
			xv := math.Float32frombits(binary.LittleEndian.Uint32(x.Data[k:]))
			ov := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[k:]))
			want := float32(0)
			for range trips {
				want += xv
			}
			if ov != want {
				t.Fatalf("bounds %v (%d iterations): out[%d] = %v, want %v", b, trips, k/4, ov, want)
			}
		}
		runs += sweep(t, []*bir.Module{m}, in, got, 2)
		if trips == 7 {
			mutIn = in
		}
	}
	w, r, h, nv := mutate(t, mutationCase{"runtime loop", []*bir.Module{m}, mutIn})
	t.Logf("%d concurrent runs; %d waits: %d caught by the race checker, %d by the happens-before rule, %d never", runs, w, r, h, nv)
	if w == 0 || nv > 0 {
		t.Errorf("%d waits, %d caught by nothing", w, nv)
	}
}
