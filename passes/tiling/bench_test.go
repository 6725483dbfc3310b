package tiling_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// BenchmarkSundaSizeTiling_StraightLine1M: the pass on a module without
// macro operations (bir.GenStraightLine, 1,000,000 instructions): the
// detection walk every compile pays. Per instruction.
func BenchmarkSundaSizeTiling_StraightLine1M(b *testing.B) {
	m := bir.GenStraightLine(1_000_000)
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	opt := tiling.Defaults(model)
	b.ReportAllocs()
	c0, cpuOK := cputime.Now()
	for b.Loop() {
		st, err := tiling.SundaSizeTiling(m, model, opt)
		if err != nil || st.Tiled != 0 {
			b.Fatalf("%v, %d tiled", err, st.Tiled)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/inst")
	if c1, _ := cputime.Now(); cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/1e6, "cpu-ns/inst")
	}
}

// BenchmarkSundaSizeTiling_Macro: tiling the default macro kernels (a
// fresh module per iteration, its build excluded), per macro instruction.
func BenchmarkSundaSizeTiling_Macro(b *testing.B) {
	for _, spec := range []string{"macro_matmul", "macro_softmax", "macro_rmsnorm", "macro_elementwise"} {
		b.Run(spec, func(b *testing.B) {
			n := int64(0)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				m, err := kernels.Build(spec)
				if err != nil {
					b.Fatal(err)
				}
				model, _ := arch.ForModule(m)
				n = m.NumInsts()
				b.StartTimer()
				if _, err := tiling.SundaSizeTiling(m, model, tiling.Defaults(model)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/macro-inst")
		})
	}
}

// BenchmarkSundaSizeTilingPerf: performance tiling on tensor_add lowered
// to the code it sees (after alloc), at 1,000 and 20,000 instructions (a
// fresh module per iteration, its preparation excluded); per instruction
// of the function, every judgement's schedule included.
func BenchmarkSundaSizeTilingPerf(b *testing.B) {
	p, _ := pipeline.Table.Lookup("sunda_size_tiling_perf")
	for _, rows := range []int64{32_000, 640_000} {
		spec := fmt.Sprintf("tensor_add:rows=%d,cols=64", rows)
		b.Run(spec, func(b *testing.B) {
			var n int64
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				m, err := kernels.Build(spec)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := schedtest.Lower(m, "sunda_size_tiling_perf"); err != nil {
					b.Fatal(err)
				}
				n = m.Main().NumInsts()
				tbl := pass.Table{Passes: []pass.Pass{*p}}
				c0, _ := cputime.Now()
				b.StartTimer()
				if _, err := tbl.Run(m, pass.Config{NoVerify: true}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				c1, _ := cputime.Now()
				cpu += c1 - c0
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/inst")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/inst")
		})
	}
}
