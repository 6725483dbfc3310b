package sbsize_test

// Benchmarks of sb_size_legalization on 1,000,000-instruction workloads,
// reported per instruction (wall and CPU time; see cpuTime):
//
//	StraightLine1M      bir.GenStraightLine(1e6): 24 SBUF tiles, no loops
//	TensorAddLoops1M    builtin tensor_add (rows=32000000, cols=8) as built:
//	                    one loop of 250,000 iterations over three block
//	                    tensors of 250,000 blocks, which FullUnroll turns
//	                    into 1,000,000 instructions; per unrolled
//	                    instruction (shrink_tensor executes every block
//	                    access abstractly)
//	TensorAddUnrolled1M the same after full_unroll level 2: 1,000,000
//	                    instructions, 750,000 per-block SBUF locations
//
// The pass is idempotent on these inputs (nothing is oversized; the liveN
// records are rewritten with the same values), so one module is reused
// across iterations, after a check that a run leaves it unchanged.

import (
	"sync"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
)

const bench1M = 1_000_000

var (
	straight1M = sync.OnceValue(func() *bir.Module { return bir.GenStraightLine(bench1M) })
	addLoops1M = sync.OnceValue(func() *bir.Module {
		m, err := kernels.Build("tensor_add:rows=32000000,cols=8")
		if err != nil {
			panic(err)
		}
		return m
	})
	addUnrolled1M = sync.OnceValue(func() *bir.Module {
		m, err := kernels.Build("tensor_add:rows=32000000,cols=8")
		if err != nil {
			panic(err)
		}
		if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: 2}); err != nil {
			panic(err)
		}
		return m
	})
)

func benchPass(b *testing.B, m *bir.Module, insts int64, run func(m *bir.Module, model *arch.Model) error) {
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	if err := run(m, model); err != nil { // reach the fixpoint
		b.Fatal(err)
	}
	n0, l0 := m.NumInsts(), m.Main().NumLocs()
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cpuTime()
	t0 := time.Now()
	iters := 0
	for b.Loop() {
		if err := run(m, model); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	wall := time.Since(t0)
	c1, _ := cpuTime()
	b.StopTimer()
	if m.NumInsts() != n0 || m.Main().NumLocs() != l0 {
		b.Fatalf("the pass changed the module between runs")
	}
	b.ReportMetric(float64(wall.Nanoseconds())/float64(iters)/float64(insts), "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(iters)/float64(insts), "cpu-ns/inst")
	}
}

func runSB(m *bir.Module, model *arch.Model) error {
	_, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{})
	return err
}

func BenchmarkSBSizeLegalization_StraightLine1M(b *testing.B) {
	m := straight1M()
	benchPass(b, m, m.NumInsts(), runSB)
}

func BenchmarkSBSizeLegalization_TensorAddLoops1M(b *testing.B) {
	benchPass(b, addLoops1M(), bench1M, runSB)
}

func BenchmarkSBSizeLegalization_TensorAddUnrolled1M(b *testing.B) {
	m := addUnrolled1M()
	benchPass(b, m, m.NumInsts(), runSB)
}
