package sched_test

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/passes/sched"
)

// BenchmarkDepsAndSchedule measures what this issue adds to the pipeline
// on bir.GenStraightLine(n) with its tiles placed: the dependency
// analysis (written into the IR), engine/DGE/queue assignment and the
// scheduler (list order, simulation with the default window, program-
// order makespan, linearization), per instruction, in wall and CPU time.
// The reuse-cost schedule is off (its default above 1M instructions).
func BenchmarkDepsAndSchedule(b *testing.B) {
	n := schedtest.BenchSize()
	model, _ := arch.Lookup("trn2")
	var cpuDeps, cpuSched int64
	var makespan int64
	for b.Loop() {
		b.StopTimer()
		m := bir.GenStraightLine(n)
		schedtest.Place(m, model, schedtest.Distinct, 1)
		f := m.Main()
		b.StartTimer()
		c0, _ := schedtest.CPUTime()
		g, err := depgraph.Analyze(f, depgraph.Options{})
		if err != nil {
			b.Fatal(err)
		}
		g.Write(f)
		c1, _ := schedtest.CPUTime()
		if _, err := sched.AssignEngines(f, model); err != nil {
			b.Fatal(err)
		}
		sched.AssignHWDGEEngine(f, model)
		if _, err := sched.AllocQueues(f, model, sched.QueuesAtIssue); err != nil {
			b.Fatal(err)
		}
		rep, err := sched.Schedule(f, model, sched.Options{Window: sched.DefaultWindow})
		if err != nil {
			b.Fatal(err)
		}
		c2, _ := schedtest.CPUTime()
		cpuDeps += (c1 - c0).Nanoseconds()
		cpuSched += (c2 - c1).Nanoseconds()
		makespan = rep.Makespan
	}
	per := float64(b.N) * float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/inst")
	b.ReportMetric(float64(cpuDeps)/per, "deps-cpu-ns/inst")
	b.ReportMetric(float64(cpuSched)/per, "sched-cpu-ns/inst")
	b.ReportMetric(float64(makespan)/1e6, "makespan-us")
}
