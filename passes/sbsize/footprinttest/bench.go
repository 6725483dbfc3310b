package footprinttest

import (
	"sync"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
)

// Bench1M is the instruction count of the benchmark workloads.
const Bench1M = 1_000_000

// addSpec is builtin tensor_add at the size whose full unroll has
// 1,000,000 instructions: one loop of 250,000 iterations over three block
// tensors of 250,000 blocks.
const addSpec = "tensor_add:rows=32000000,cols=8"

// The benchmark workloads, built once per test binary:
//
//	StraightLine1M   bir.GenStraightLine(1e6): 24 SBUF tiles of 128
//	                 partitions, each accessed ~100,000 times (whole and
//	                 in halves), no loops
//	AddLoops1M       addSpec as built: the loop and its block tensors
//	AddUnrolled1M    addSpec after full_unroll level 2: 1,000,000
//	                 instructions, 750,000 per-block SBUF locations
var (
	StraightLine1M = sync.OnceValue(func() *bir.Module { return bir.GenStraightLine(Bench1M) })
	AddLoops1M     = sync.OnceValue(func() *bir.Module {
		m, err := kernels.Build(addSpec)
		if err != nil {
			panic(err)
		}
		return m
	})
	AddUnrolled1M = sync.OnceValue(func() *bir.Module {
		m, err := kernels.Build(addSpec)
		if err != nil {
			panic(err)
		}
		if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: 2}); err != nil {
			panic(err)
		}
		return m
	})
)

// Bench runs a footprint pass on m in a benchmark loop and reports wall
// and CPU nanoseconds per instruction (insts instructions; <= 0: the
// module's own count after a first run). The first run reaches the pass's
// fixpoint; the module must then stay unchanged between runs, so one
// module serves every iteration.
func Bench(b *testing.B, m *bir.Module, insts int64, run func(m *bir.Module, model *arch.Model) error) {
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	if err := run(m, model); err != nil { // reach the fixpoint
		b.Fatal(err)
	}
	if insts <= 0 {
		insts = m.NumInsts()
	}
	n0, l0 := m.NumInsts(), m.Main().NumLocs()
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	t0 := time.Now()
	iters := 0
	for b.Loop() {
		if err := run(m, model); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	wall := time.Since(t0)
	c1, _ := cputime.Now()
	b.StopTimer()
	if m.NumInsts() != n0 || m.Main().NumLocs() != l0 {
		b.Fatalf("the pass changed the module between runs")
	}
	b.ReportMetric(float64(wall.Nanoseconds())/float64(iters)/float64(insts), "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(iters)/float64(insts), "cpu-ns/inst")
	}
}
