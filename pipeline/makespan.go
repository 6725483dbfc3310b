package pipeline

import (
	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
)

// Makespan schedules a copy of f as the pipeline's last passes do -
// anti_dependency_analyzer, assign_engines, assign_hwdge_engine,
// alloc_queues, time_aware_scheduler, configured as the run configures
// them (judge: the dependency mode and reduction bound, the queue policy,
// the reorder window and the orders) - and returns the makespan and the
// scheduler's lower bound; f is not modified. It is the judge
// sunda_size_tiling_perf (passes/tiling) decides by: passes never import
// each other, so the pipeline, which imports both, hands it over.
func Makespan(f *bir.Function, model *arch.Model, judge tiling.Judge) (tiling.Schedule, error) {
	s := bir.NewModule(f.Module().Arch)
	s.Config = f.Module().Config
	g, err := bir.CopyFunction(s, f, f.Name)
	if err != nil {
		return tiling.Schedule{}, err
	}
	dopt := depgraph.Options{Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes, MaxReduceVisits: judge.MaxReduceVisits}
	if judge.DepsMode == "logical" {
		dopt.Mode = depgraph.Logical
	}
	dg, err := depgraph.Analyze(g, dopt)
	if err != nil {
		return tiling.Schedule{}, err
	}
	dg.Write(g)
	if _, err := sched.AssignEngines(g, model); err != nil {
		return tiling.Schedule{}, err
	}
	sched.AssignHWDGEEngine(g, model)
	policy := sched.QueuesAtIssue
	if judge.QueuePolicy != "" {
		policy = judge.QueuePolicy
	}
	if _, err := sched.AllocQueues(g, model, policy); err != nil {
		return tiling.Schedule{}, err
	}
	window := sched.DefaultWindow
	if judge.Window > 0 {
		window = judge.Window
	}
	rep, err := sched.Schedule(g, model, sched.Options{Window: window, Orders: judge.Orders})
	if err != nil {
		return tiling.Schedule{}, err
	}
	return tiling.Schedule{Makespan: rep.Makespan, LowerBound: rep.LowerBound}, nil
}
