package verify

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// allocatedStraightLine returns bir.GenStraightLine(n) with its SBUF tiles
// allocated and engines assigned, so that every stage's rules run.
func allocatedStraightLine(n int) *bir.Module {
	m := bir.GenStraightLine(n)
	f := m.Main()
	addr := int64(0)
	for l := 0; l < f.NumLocs(); l++ {
		lc := f.Loc(bir.LocID(l))
		if lc.Type == bir.MemSB {
			lc.Allocated, lc.Addr = true, addr
			addr += lc.Bytes
		}
	}
	return m
}

func TestStraightLine_Clean(t *testing.T) {
	m := allocatedStraightLine(4000)
	for _, d := range diags(t, Module(m, Options{Stage: unscheduled})) {
		t.Fatal(d)
	}
}

// TestModule_NoPerInstructionAllocs: the verifier's allocations do not
// grow with the number of instructions (tables are allocated once per
// function, never per instruction).
func TestModule_NoPerInstructionAllocs(t *testing.T) {
	small, large := allocatedStraightLine(1000), allocatedStraightLine(50000)
	opt := Options{Stage: unscheduled}
	a1 := testing.AllocsPerRun(5, func() { _ = Module(small, opt) })
	a2 := testing.AllocsPerRun(5, func() { _ = Module(large, opt) })
	if a2 > a1+4 {
		t.Errorf("allocations grow with the module: %v for 1000 instructions, %v for 50000", a1, a2)
	}
}

// BenchmarkVerify1M verifies a 1,000,000-instruction straight-line module
// at every stage and reports the cost per instruction.
func BenchmarkVerify1M(b *testing.B) {
	const n = 1_000_000
	m := allocatedStraightLine(n)
	opt := Options{Stage: unscheduled}
	if err := Module(m, opt); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cpuTime()
	for b.Loop() {
		if err := Module(m, opt); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cpuTime()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	if cpuOK {
		// The verifier is single-threaded; CPU time also counts the GC's
		// background work, which is small here (5 allocations per run).
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/n, "cpu-ns/inst")
	}
}

// BenchmarkVerify1MCachedTables is BenchmarkVerify1M with the function's
// lazily built tables present (a cached use index and the
// instruction-name table), so that the tables rule (bir.CheckTables)
// compares them on every verification: its worst case.
func BenchmarkVerify1MCachedTables(b *testing.B) {
	const n = 1_000_000
	m := allocatedStraightLine(n)
	f := m.Main()
	f.Uses()
	f.InstByName("")
	opt := Options{Stage: unscheduled}
	if err := Module(m, opt); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cpuTime()
	for b.Loop() {
		if err := Module(m, opt); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cpuTime()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/n, "cpu-ns/inst")
	}
}

// BenchmarkWalk1M is the floor BenchmarkVerify1M is measured against: a
// bare walk over the same module that reads every instruction's operands
// and name, and checks nothing. The ratio of the two is stable on loaded
// machines where absolute figures are not.
func BenchmarkWalk1M(b *testing.B) {
	const n = 1_000_000
	m := allocatedStraightLine(n)
	f := m.Main()
	var sink int64
	b.ResetTimer()
	c0, cpuOK := cpuTime()
	for b.Loop() {
		f.Walk(func(i bir.InstID) bool {
			for _, o := range f.Operands(i) {
				sink += o.Offset + int64(o.Pattern)
			}
			sink += int64(len(m.StrBytes(f.Inst(i).Name)))
			return true
		})
	}
	c1, _ := cpuTime()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(b.N)/n, "cpu-ns/inst")
	}
	if sink == 42 {
		b.Log(sink)
	}
}
