package vnsplit_test

// Benchmarks of vn_splitter (split and fold) on 1,000,000-instruction
// workloads, reported per instruction (wall and CPU time; see cpuTime):
//
//	StraightLine1M      bir.GenStraightLine(1e6): 24 SBUF tiles of 128
//	                    partitions, each accessed ~100,000 times (whole
//	                    and in halves): 2.5 access patterns per instruction
//	                    decomposed and grouped
//	TensorAddUnrolled1M builtin tensor_add (rows=32000000, cols=8) after
//	                    full_unroll level 2: 1,000,000 instructions,
//	                    750,000 per-block SBUF locations analyzed
//
// Nothing splits or folds on these inputs (every location's accesses
// cover all its partitions; there are no copies), so one module is reused
// across iterations, after a check that a run leaves it unchanged.

import (
	"sync"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
)

const bench1M = 1_000_000

var (
	straight1M    = sync.OnceValue(func() *bir.Module { return bir.GenStraightLine(bench1M) })
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

func benchPass(b *testing.B, m *bir.Module, run func(m *bir.Module, model *arch.Model) error) {
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	if err := run(m, model); err != nil { // reach the fixpoint
		b.Fatal(err)
	}
	insts := m.NumInsts()
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

func runVN(m *bir.Module, model *arch.Model) error {
	_, err := vnsplit.VNSplitter(m, model, vnsplit.DefaultOptions())
	return err
}

func BenchmarkVNSplitter_StraightLine1M(b *testing.B) { benchPass(b, straight1M(), runVN) }

func BenchmarkVNSplitter_TensorAddUnrolled1M(b *testing.B) { benchPass(b, addUnrolled1M(), runVN) }
