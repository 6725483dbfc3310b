package depgraph_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
)

// benchModule is bir.GenStraightLine(n) with its SBUF tiles placed at
// distinct addresses (the physical path).
func benchModule(b *testing.B, n int) *bir.Module {
	b.Helper()
	m := bir.GenStraightLine(n)
	model, _ := arch.Lookup("trn2")
	schedtest.Place(m, model, schedtest.Distinct, 1)
	return m
}

// BenchmarkAnalyze measures the dependency analysis (physical mode) of a
// straight-line module: ns per instruction and edges per instruction.
func BenchmarkAnalyze(b *testing.B) {
	n := schedtest.BenchSize()
	m := benchModule(b, n)
	f := m.Main()
	b.ResetTimer()
	var edges int
	var unreduced int64
	c0, ok := schedtest.CPUTime()
	for b.Loop() {
		g, err := depgraph.Analyze(f, depgraph.Options{})
		if err != nil {
			b.Fatal(err)
		}
		edges, unreduced = g.NumEdges(), g.Stats.Unreduced
	}
	c1, _ := schedtest.CPUTime()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/inst")
	if ok {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/inst")
	}
	b.ReportMetric(float64(edges)/float64(n), "edges/inst")
	b.ReportMetric(float64(unreduced)/float64(n), "unreduced/inst")
}
