package tiling_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
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
	b.ResetTimer()
	for b.Loop() {
		st, err := tiling.SundaSizeTiling(m, model, opt)
		if err != nil || st.Tiled != 0 {
			b.Fatalf("%v, %d tiled", err, st.Tiled)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/inst")
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
