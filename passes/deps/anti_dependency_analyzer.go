// Package deps holds the pass anti_dependency_analyzer (seed 002 §6.3:
// AntiDependencyAnalyzer-SB, AntiDependencyAnalyzer-PSUM, and narwhal's
// -DRAM and engine-state instances; §6.4: build_flow_deps'
// make_accumulation_sequence).
//
// What it does: for every function, the dependence graph of package
// depgraph (byte footprints per memory class in interval maps, FLOW / ANTI
// / OUTPUT / ORDERED edges, transitively reduced; see its package comment
// for the algorithm and the decisions) replaces the instructions'
// dependencies in the IR. It reports the edges by kind, the candidates
// found and removed by the reduction, and each memory class's hazards
// ("AntiDependencyAnalyzer-SB: N hazards"), and logs the seed's strings
// ("Added ordered dependency from ", "Avoided Dependency Reduction due to
// too_many_spills attribute").
//
// A function that still has loops (FullUnroll level 0 or 1 keeps them,
// and an NKI kernel's dynamic_range loop) gets loop-carried dependencies
// (depgraph.AnalyzeLoops: the analysis on the function's instances, each
// instance edge folded into a dependency with a carry axis and distance);
// a loop whose trip count is known only at run time is an error
// (NW410): the expansion the analysis needs has no fixed size.
//
// Pre-conditions: none beyond the verifier's. Post-conditions: every
// pair of instructions (of instances, in a function with loops) whose byte
// footprints conflict is ordered by the transitive closure of the
// dependencies, which all point backwards in program order or are carried
// (depgraph's oracle test checks it on every built-in kernel and on
// random modules); instructions, operands and order are unchanged.
//
// Options: mode (physical, the default: allocated locations at their
// placement, so reused bytes give WAR/WAW edges; logical: every location
// its own space), keep-existing (false, the default: the dependencies are
// recomputed from the accesses, replacing what the instructions had, so
// the pass is idempotent; true: the input's dependencies stay as
// constraints; mode=logical is refused on a function whose allocation
// reuses bytes, reuse.go) and max-reduce-visits (the transitive reduction's search
// bound).
package deps

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
)

// AntiDependencyAnalyzerPass is the pass table entry.
var AntiDependencyAnalyzerPass = pass.Pass{
	Name:    "anti_dependency_analyzer",
	Default: true,
	Options: []pass.Option{
		{Name: "mode", Default: "physical", Doc: "physical (allocated locations at their placement) or logical (every location its own space)"},
		{Name: "keep-existing", Default: "false", Doc: "keep the dependencies the instructions already have as constraints (true) or recompute them from the accesses alone"},
		{Name: "max-reduce-visits", Default: strconv.Itoa(depgraph.DefaultMaxReduceVisits), Doc: "instructions the transitive reduction visits per instruction"},
	},
	Doc: "dependencies from physical byte footprints: FLOW/ANTI/OUTPUT/ORDERED, transitively reduced (seed 002 §6.3 AntiDependencyAnalyzer)",
	Run: runPass,
}

func runPass(ctx *pass.Context) error {
	opt := depgraph.Options{
		Partitions:    ctx.Arch.Partitions,
		PSUMBankBytes: ctx.Arch.PSUMBankBytes,
		Log:           func(s string) { ctx.Logf("%s", s) },
	}
	switch v := ctx.Option("mode"); v {
	case "physical":
	case "logical":
		opt.Mode = depgraph.Logical
	default:
		return diag.Errorf(diag.PassOption, "option mode=%q: want physical or logical", v)
	}
	n, err := ctx.IntOption("max-reduce-visits")
	if err != nil {
		return err
	}
	if n <= 0 {
		return diag.Errorf(diag.PassOption, "option max-reduce-visits=%d: want a positive number", n)
	}
	opt.MaxReduceVisits = int(n)
	if opt.KeepExisting, err = ctx.BoolOption("keep-existing"); err != nil {
		return err
	}
	var total depgraph.Stats
	err = ctx.ForEachFunction(func(f *bir.Function) error {
		if opt.Mode == depgraph.Logical {
			if err := refuseLogicalReuse(f, ctx.Arch.PSUMBankBytes); err != nil {
				return err
			}
		}
		if depgraph.HasLoops(f) {
			lg, err := depgraph.AnalyzeLoops(f, opt)
			if err != nil {
				return err
			}
			lg.Write(f)
			ctx.Count("functions_with_loops", 1)
			ctx.Count("loop_instances", int64(lg.Instances))
			ctx.Count("edges.carried", int64(lg.Carried))
			ctx.Count("edges.carry_all", int64(lg.CarryAll))
			ctx.Logf("function %s keeps loops: dependencies of its %d instances folded into %d carried edges", f.Name, lg.Instances, lg.Carried)
			add(&total, &lg.Stats)
			return nil
		}
		g, err := depgraph.Analyze(f, opt)
		if err != nil {
			return err
		}
		g.Write(f)
		add(&total, &g.Stats)
		return nil
	})
	if err != nil {
		return err
	}
	for k := bir.DepKind(0); k < bir.NumDepKinds; k++ {
		ctx.Count("edges."+strings.ToLower(k.String()), total.ByKind[k])
	}
	ctx.Count("candidates", total.Candidates)
	ctx.Count("redundant_removed", total.Redundant)
	ctx.Count("unreduced_instructions", total.Unreduced)
	ctx.Count("barriers", int64(total.Barriers))
	var sb strings.Builder
	for c := depgraph.Class(0); c < depgraph.NumClasses; c++ {
		fmt.Fprintf(&sb, "AntiDependencyAnalyzer-%s: %d hazards\n", c, total.Hazards[c])
	}
	ctx.AddReport("", sb.String())
	return nil
}

func add(s, o *depgraph.Stats) {
	s.Insts += o.Insts
	s.Barriers += o.Barriers
	s.Candidates += o.Candidates
	s.Redundant += o.Redundant
	s.Unreduced += o.Unreduced
	s.NoReduce += o.NoReduce
	s.Spaces += o.Spaces
	for k := range s.ByKind {
		s.ByKind[k] += o.ByKind[k]
	}
	for k := range s.Hazards {
		s.Hazards[k] += o.Hazards[k]
	}
}
