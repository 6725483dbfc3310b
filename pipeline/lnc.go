package pipeline

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/verify"
)

// RunCores compiles the programs of one LNC kernel's logical cores
// together: mods[c] is core c's program (its neuron core id c). Each goes
// through the selected passes as Table.Run would take it, with one
// difference: after time_aware_scheduler has scheduled every core alone,
// the cores' entry functions are scheduled jointly by
// sched.LncAwareSchedule (seed 002 §6.4: "Then LncAwareScheduler::
// schedule() (+ get_lnc_sync_candidates()) orders across NeuronCores"),
// so each core's schedule counts the time it waits for the others at
// their CoreBarriers and for the shared-HBM data they write, and the
// synchronization after it sees that schedule. The passes after the
// scheduler then run on each core.
//
// The cores must be the kernel's: after the passes up to the scheduler,
// every module's logical core count (bir.OptionLNC, which the translator
// and the LNC kernels record) must be len(mods). When the selection has no
// time_aware_scheduler, or a core's entry function keeps loops (which
// insert_core_barrier refuses in a multi-core kernel: NW410, unless the
// selection skips it), the cores are compiled alone and the joint report
// is nil.
//
// The reports are per core (the passes of both halves of the run, in table
// order); the result is verified after the last pass at every stage the
// passes produced. A failure names its core.
func RunCores(mods []*bir.Module, cfg pass.Config) ([]*pass.Report, *sched.LncReport, error) {
	reps := make([]*pass.Report, len(mods))
	if len(mods) == 0 {
		return reps, nil, nil
	}
	run, skipped, err := Table.Select(mods[0], &cfg)
	if err != nil {
		return reps, nil, err
	}
	var first, rest []string
	split := false
	for _, p := range run {
		switch {
		case split:
			rest = append(rest, p.Name)
		default:
			first = append(first, p.Name)
			split = p.Name == sched.TimeAwareSchedulerPass.Name
		}
	}
	if !split || len(mods) == 1 {
		for c, m := range mods {
			if reps[c], err = Table.Run(m, cfg); err != nil {
				return reps, nil, coreErr(c, err)
			}
		}
		return reps, nil, nil
	}
	var stage verify.Stage
	for _, p := range run {
		stage |= p.Produces
	}
	half := func(names []string) pass.Config {
		c := cfg
		c.Passes = names
		if len(names) == 0 {
			c.Passes = []string{}
		}
		return c
	}
	fs := make([]*bir.Function, len(mods))
	joint := true
	for c, m := range mods {
		rep, err := Table.Run(m, half(first))
		reps[c] = rep
		if err != nil {
			return reps, nil, coreErr(c, err)
		}
		if n := m.LNC(); n != len(mods) {
			return reps, nil, coreErr(c, diag.Errorf(diag.Usage, "the kernel runs on %d logical core(s) (module option %s), compiled as %d", n, bir.OptionLNC, len(mods)))
		}
		fs[c] = m.Main()
		if fs[c] == nil || depgraph.HasLoops(fs[c]) {
			joint = false
		}
	}
	if err := sched.CheckCoreBarriers(mods); err != nil {
		return reps, nil, err
	}
	var lrep *sched.LncReport
	if joint {
		model := cfg.Arch
		if model == nil {
			if model, err = arch.ForModule(mods[0]); err != nil {
				return reps, nil, err
			}
		}
		window := sched.DefaultWindow
		if v, ok := cfg.Options[sched.TimeAwareSchedulerPass.Name]["reorder-window"]; ok {
			if window, err = strconv.Atoi(v); err != nil {
				return reps, nil, diag.Errorf(diag.PassOption, "--option time_aware_scheduler.reorder-window=%s: want an integer", v)
			}
		}
		orders := cfg.Options[sched.TimeAwareSchedulerPass.Name]["orders"]
		if lrep, err = sched.LncAwareSchedule(fs, model, sched.Options{Window: window, Orders: orders}); err != nil {
			return reps, nil, fmt.Errorf("LncAwareSchedule: %w", err)
		}
	}
	for c, m := range mods {
		rep2, err := Table.Run(m, half(rest))
		reps[c] = merge(reps[c], rep2, skipped)
		if err != nil {
			return reps, lrep, coreErr(c, err)
		}
		if !cfg.NoVerify {
			if err := verify.Module(m, verify.Options{Arch: cfg.Arch, Stage: stage}); err != nil {
				return reps, lrep, coreErr(c, &pass.VerifierError{Pass: "LncAwareSchedule and the passes after it", Err: err})
			}
		}
	}
	return reps, lrep, nil
}

// coreErr names the core an error is about.
func coreErr(c int, err error) error { return fmt.Errorf("core %d: %w", c, err) }

// merge joins the reports of the two halves of a run, with the skipped
// passes of the selection in table order.
func merge(a, b *pass.Report, skipped map[string]string) *pass.Report {
	out := &pass.Report{Arch: a.Arch, Total: a.Total + b.Total, Insts: b.Insts, InputVerify: a.InputVerify}
	byName := map[string]pass.PassResult{}
	for _, r := range slices.Concat(a.Passes, b.Passes) {
		byName[r.Name] = r
	}
	for _, p := range Table.Passes {
		if r, ok := byName[p.Name]; ok {
			out.Passes = append(out.Passes, r)
		} else if why, ok := skipped[p.Name]; ok && p.Default {
			out.Passes = append(out.Passes, pass.PassResult{Name: p.Name, Order: p.Order, Skipped: why})
		}
	}
	return out
}
