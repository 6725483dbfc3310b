package pipeline

import (
	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
)

// Makespan schedules a copy of f as the default pipeline's last passes do
// - anti_dependency_analyzer (physical addresses), assign_engines,
// assign_hwdge_engine, alloc_queues, time_aware_scheduler with its default
// reorder window - and returns the makespan and the scheduler's lower
// bound; f is not modified. It is the judge sunda_size_tiling_perf
// (passes/tiling) decides by: passes never import each other, so the
// pipeline, which imports both, hands it over.
func Makespan(f *bir.Function, model *arch.Model) (tiling.Schedule, error) {
	s := bir.NewModule(f.Module().Arch)
	s.Config = f.Module().Config
	g, err := bir.CopyFunction(s, f, f.Name)
	if err != nil {
		return tiling.Schedule{}, err
	}
	dg, err := depgraph.Analyze(g, depgraph.Options{Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes})
	if err != nil {
		return tiling.Schedule{}, err
	}
	dg.Write(g)
	if _, err := sched.AssignEngines(g, model); err != nil {
		return tiling.Schedule{}, err
	}
	sched.AssignHWDGEEngine(g, model)
	if _, err := sched.AllocQueues(g, model, sched.QueuesAtIssue); err != nil {
		return tiling.Schedule{}, err
	}
	rep, err := sched.Schedule(g, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		return tiling.Schedule{}, err
	}
	return tiling.Schedule{Makespan: rep.Makespan, LowerBound: rep.LowerBound}, nil
}
