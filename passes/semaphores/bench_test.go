package semaphores_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/semaphores"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// benchModule returns a scheduled straight-line module of n instructions:
// bir.GenStraightLine (loads, adds and multiplies on Vector and GpSimd,
// saves) with its SBUF tiles placed side by side, through the dependency
// analysis and the scheduler.
func benchModule(b *testing.B, n int) *bir.Module {
	b.Helper()
	m := bir.GenStraightLine(n)
	f := m.Main()
	var addr int64
	for l := 0; l < f.NumLocs(); l++ {
		lc := f.Loc(bir.LocID(l))
		if lc.Type == bir.MemSB {
			lc.Allocated, lc.Addr = true, addr
			addr += lc.Bytes
		}
	}
	passes := []string{"anti_dependency_analyzer", "assign_engines", "assign_hwdge_engine", "alloc_queues", "time_aware_scheduler"}
	cfg := pass.Config{Passes: passes, NoVerify: true, Options: map[string]map[string]string{"time_aware_scheduler": {"reuse-cost": "false"}}}
	if _, err := pipeline.Table.Run(m, cfg); err != nil {
		b.Fatal(err)
	}
	return m
}

// benchN is the module size: 1M instructions, or NARWHAL_BENCH_N (the
// issue's figure is measured at 5M: NARWHAL_BENCH_N=5000000).
func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("NARWHAL_BENCH_N")); err == nil && n > 0 {
		return n
	}
	return 1_000_000
}

// BenchmarkAllocSemaphores measures synchronization (AllocSemaphores: the
// stream layout, the happens-before walk choosing minimal waits, the
// numbering, carriers, stream endings and the sync-latency simulation of
// the report) per instruction of a scheduled straight-line module.
func BenchmarkAllocSemaphores(b *testing.B) {
	n := benchN()
	m := benchModule(b, n)
	model, _ := arch.ForModule(m)
	f := m.Main()
	b.ReportAllocs()
	b.ResetTimer()
	var st *semaphores.Stats
	cpu0, cpuOK := cputime.Now()
	for b.Loop() {
		var err error
		if st, err = semaphores.AllocSemaphores(f, model, true); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := cputime.Now(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/inst")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/inst")
	b.ReportMetric(float64(st.Waits)/float64(n), "waits/inst")
	b.ReportMetric(float64(st.Carriers), "carriers")
	b.ReportMetric(float64(st.Rotations), "rotations")
}

// BenchmarkVerify_Synchronized measures the verifier on the synchronized
// module at the stages the default pipeline ends with (its last
// verification): the instruction rules, the allocation's overlap rule,
// the schedule's rules and the exact happens-before check of the
// synchronization, per instruction.
func BenchmarkVerify_Synchronized(b *testing.B) {
	n := benchN()
	m := benchModule(b, n)
	model, _ := arch.ForModule(m)
	if _, err := semaphores.AllocSemaphores(m.Main(), model, true); err != nil {
		b.Fatal(err)
	}
	stage := verify.StageUnrolled | verify.StageAllocated | verify.StageEnginesAssigned | verify.StageScheduled | verify.StageSynchronized
	if err := verify.Module(m, verify.Options{Arch: model, Stage: stage}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, cpuOK := cputime.Now()
	for b.Loop() {
		if err := verify.Module(m, verify.Options{Arch: model, Stage: stage}); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := cputime.Now(); cpuOK {
		b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/inst")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/inst")
}
