// Structure of traced kernels (issue 24, "Must show", third bullet): the
// tutorial-style fully blocked matmul at its full shape traces into a
// small module whose loops are kept, and compiles through the whole
// default pipeline; a loop with a Python `if` on its iterator is unrolled
// at trace time, one without is kept.

package nki_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// maxTracedFullyBlocked bounds the traced fully blocked matmul at the
// tutorial shape (issue 24: "fewer than 300 instructions before
// full_unroll"): its loops must stay loops, since unrolled it has tens of
// thousands of instructions.
const maxTracedFullyBlocked = 300

// countLoops counts the loop instructions of every function of m.
func countLoops(m *bir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				n++
			}
			return true
		})
	}
	return n
}

// TestStructure_FullyBlockedMatmul traces legacy/matmul.py's
// matmul_fully_blocked with its default blocking at the tutorial shape,
// [4096, 8192] x [8192, 8192] in bfloat16 (lhsT [8192, 4096], rhs
// [8192, 8192]), counts the traced instructions and loops, and (except
// under -short) compiles it through the whole default pipeline, logging
// the time, memory and instruction counts.
func TestStructure_FullyBlockedMatmul(t *testing.T) {
	specs := []frontend.TensorSpec{
		{Name: "lhsT", Dtype: bir.BFloat16, Shape: []int64{8192, 4096}},
		{Name: "rhs", Dtype: bir.BFloat16, Shape: []int64{8192, 8192}},
	}
	start := time.Now()
	m, _ := loadKernel(t, "legacy/matmul.py", "matmul_fully_blocked", specs, nil, nil, nil)
	traceTime := time.Since(start)
	traced, loops := m.NumInsts(), countLoops(m)
	t.Logf("traced in %v: %d instructions, %d loops", traceTime, traced, loops)
	if traced >= maxTracedFullyBlocked {
		t.Errorf("the traced module has %d instructions, want fewer than %d (are its nl.affine_range/sequential_range loops kept?)", traced, maxTracedFullyBlocked)
	}
	if loops == 0 {
		t.Errorf("the traced module has no loop instruction: its loops were unrolled at trace time")
	}
	if testing.Short() {
		t.Skip("-short: not compiling the full-shape matmul")
	}
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	rep, err := pipeline.Table.Run(m, pass.Config{Stats: true})
	if err != nil {
		t.Fatalf("the default pipeline: %v", err)
	}
	runtime.ReadMemStats(&ms1)
	var peak uint64
	for _, r := range rep.Passes {
		peak = max(peak, r.PeakHeap, r.VerifyPeakHeap)
	}
	fu := rep.Result("full_unroll")
	if fu == nil || fu.Skipped != "" {
		t.Fatalf("full_unroll did not run (%+v)", fu)
	}
	t.Logf("compiled in %v (input verified in %v): full_unroll %d -> %d instructions, %d after the last pass; peak Go heap %s, %s allocated in all",
		rep.Total, rep.InputVerify.Wall, fu.InstsBefore, fu.InstsAfter, rep.Insts, mib(peak), mib(ms1.TotalAlloc-ms0.TotalAlloc))
	for _, r := range rep.Passes {
		if r.Skipped == "" {
			t.Logf("  %-32s %8.3fs  %9d -> %9d instructions  peak heap %s", r.Name, r.Wall.Seconds(), r.InstsBefore, r.InstsAfter, mib(max(r.PeakHeap, r.VerifyPeakHeap)))
		}
	}
	if fu.InstsBefore > int64(maxTracedFullyBlocked) {
		t.Errorf("%d instructions reach full_unroll, want fewer than %d (did a pass before it unroll?)", fu.InstsBefore, maxTracedFullyBlocked)
	}
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// TestStructure_LoopKeptOrUnrolled: legacy/tensor_add.py's add_rows_loop
// (an nl.affine_range whose body does not depend on the iterator through
// Python control flow) traces with its loop kept, and
// add_first_tile_doubled (the same loop with a Python `if` on the
// iterator) traces unrolled: no loop instruction, one load pair per row
// tile.
func TestStructure_LoopKeptOrUnrolled(t *testing.T) {
	f32 := func(name string, rows int64) frontend.TensorSpec {
		return frontend.TensorSpec{Name: name, Dtype: bir.Float32, Shape: []int64{rows, 512}}
	}
	for _, tc := range []struct {
		kernel   string
		rows     int64
		wantLoop bool
	}{
		{"add_rows_loop", 384, true},
		{"add_first_tile_doubled", 384, false},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			m, _ := loadKernel(t, "legacy/tensor_add.py", tc.kernel, []frontend.TensorSpec{f32("a", tc.rows), f32("b", tc.rows)}, nil, nil, nil)
			loops := countLoops(m)
			t.Logf("%s: %d instructions, %d loops", tc.kernel, m.NumInsts(), loops)
			if tc.wantLoop && loops == 0 {
				t.Errorf("the loop was unrolled at trace time; nothing in its body needs that")
			}
			if !tc.wantLoop && loops != 0 {
				t.Errorf("%d loops kept; the Python `if` on the iterator needs the loop unrolled at trace time", loops)
			}
		})
	}
}
