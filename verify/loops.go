package verify

import (
	"github.com/narwhal-compiler/narwhal/bir"
)

// The schedule and synchronization rules on a function that keeps loops.
//
// Such a function's schedule is periodic (bir.Schedule.Period: iteration
// k of a loop body runs k*Period after iteration 0) and its waits may
// advance per iteration (bir.Sync.SetWaitsIter); the machine runs the
// instances of its instructions, each stream in program order
// (bir/expand.go). The rules are checked where they mean something:
//
//   - on the loop form (rule "scheduled"): every live instruction, loops
//     included, has an entry with 0 <= Start <= End; a loop of at least
//     two iterations has a period; each block is in start order (its
//     iteration-0 starts do not decrease); a DMA names a queue;
//   - on the instances (bir.Expand): the straight-line rules "scheduled"
//     (every instance dependency respected, no two instances overlap on an
//     engine, queue or shared port, Order numbering each resource in
//     program order, which on the instances is their start order; only
//     "starts never decrease in program order" is dropped: iteration k+1's
//     loads may start before iteration k's store) and "synchronized" (the
//     exact happens-before check: every instance dependency ordered by
//     stream order, triggers, waits and updates; counters within their
//     width; the entry function's stream endings). The table rules
//     ("schedule", "sync": ids in range, the wire limit) run on the loop
//     form. A diagnostic of the instances names the instance
//     ("ld@i=2").
//
// The check is exact for the trip counts the loops have, at the cost of
// the expansion (its instances, bounded by bir.DefaultMaxInstances). A
// loop whose trip count is known only at run time (bir/runtime_loops.go)
// is checked through windows: the instances with every such loop at 0, 1
// and 2 iterations (capped by its proven bound), which covers the
// boundaries (no iteration, one) and a pair of iterations, from which
// every later pair follows by the iteration invariance the file comment
// of bir/runtime_loops.go argues; bir.Function.CheckRuntimeLoops' nesting
// rule is checked on the loop form (rule "scheduled"), and so is the
// rule the synchronization relies on for the loop's control: every
// instruction of a runtime loop's body, and every writer of a register its
// control reads (bounds, a DoWhile's condition), issues on one engine
// stream (rule "synchronized": the loop's engine, whose sequencer holds
// the registers, semantics.md §4.15, and iterates; its DMAs are
// triggered there).

// loopFunc reports whether the current function has a live loop.
func (c *checker) loopFunc() bool {
	f := c.f
	for i := 0; i < c.nInsts; i++ {
		in := f.Inst(bir.InstID(i))
		if !in.Dead() && in.Op.IsLoop() && in.Block != bir.NoBlock {
			return true
		}
	}
	return false
}

// scheduledLoops is rule "scheduled" on a function with loops.
func (c *checker) scheduledLoops(tab *bir.Schedule) {
	f := c.f
	errs := 0
	diag := func(i bir.InstID, format string, args ...any) {
		if errs++; errs <= 20 {
			c.instDiag(i, "scheduled", format, args...)
		}
	}
	var block func(b bir.BlockID)
	block = func(b bir.BlockID) {
		prev, prevStart := bir.NoInst, int64(-1)
		for _, i := range f.Block(b).Insts {
			in := f.Inst(i)
			if in.Dead() {
				continue
			}
			if !tab.Has(i) {
				diag(i, "has no schedule entry: want every instruction scheduled (a loop: its span)")
				continue
			}
			s, e := tab.Start[i], tab.End[i]
			if e < s {
				diag(i, "ends at %d ps before it starts at %d ps: want end >= start", e, s)
			}
			if s < prevStart {
				diag(i, "starts at %d ps, before %s (earlier in its block) at %d ps: want each block in start order", s, c.instName(prev), prevStart)
			}
			prev, prevStart = i, s
			if in.Op.IsLoop() {
				if n, ok := f.StaticTripCount(i); ok && n >= 2 {
					if _, has := tab.Period[i]; !has {
						diag(i, "a loop of %d iterations without a period: want its initiation interval (sched(period=...))", n)
					}
				} else if !ok {
					if b, bounded := f.RuntimeTripBound(i); !bounded || b >= 2 {
						if _, has := tab.Period[i]; !has {
							diag(i, "a loop whose trip count is known only at run time without a period: want its initiation interval (sched(period=...))")
						}
					}
				}
				for _, bb := range f.Loop(i).Body {
					block(bb)
				}
				continue
			}
			if in.Op.Info().Has(bir.FlagDMA) && tab.Queue[i] < 0 {
				diag(i, "DMA without a queue: want one of the arch's queues")
			}
		}
	}
	for _, b := range f.Top {
		block(b)
	}
	if err := f.CheckRuntimeLoops(); err != nil {
		c.funcDiag("scheduled", "%v", err)
		return
	}
	if errs > 0 {
		return
	}
	c.onInstances(func(sub *checker) { sub.scheduled(sub.f.Sched) })
}

// synchronizedLoops is rule "synchronized" on a function with loops.
func (c *checker) synchronizedLoops() {
	c.runtimeLoopStreams()
	c.onInstances(func(sub *checker) { sub.synchronized() })
}

// onInstances runs check on the instances of the current function and
// adds its diagnostics: once, or, with loops whose trip count is known
// only at run time, on the windows of 0, 1 and 2 iterations (the first
// that has diagnostics is reported).
func (c *checker) onInstances(check func(sub *checker)) {
	runtime := false
	c.f.Walk(func(i bir.InstID) bool {
		runtime = c.f.IsRuntimeLoop(i)
		return !runtime
	})
	if !runtime {
		c.onExpansion(bir.ExpandOptions{Only: c.f.Name}, check)
		return
	}
	for n := int64(0); n <= bir.RuntimeLoopWindow; n++ {
		before := c.errs.total
		c.onExpansion(bir.ExpandOptions{Only: c.f.Name, RuntimeTrips: bir.AnalysisTrips(n)}, check)
		if c.errs.total > before {
			return
		}
	}
}

// onExpansion runs check on the instances of one expansion.
func (c *checker) onExpansion(opt bir.ExpandOptions, check func(sub *checker)) {
	x, err := bir.Expand(c.m, opt)
	if err != nil {
		c.funcDiag("scheduled", "its loops have no instances to check: %v", err)
		return
	}
	fx := x.Func(c.f.Name)
	if fx == nil {
		return
	}
	sub := newChecker(x.M, Options{Arch: c.arch, Stage: c.stage, MaxDiags: c.opt.MaxDiags})
	defer sub.release()
	sub.arch = c.arch
	g := fx.F
	sub.f, sub.fname = g, c.fname
	sub.nInsts, sub.nLocs, sub.nTensors = g.NumInstSlots(), g.NumLocs(), g.NumTensors()
	sub.nBlocks, sub.nRegs, sub.nLoops = g.NumBlocks(), g.NumRegs(), g.NumLoops()
	sub.nOpnds, sub.nDeps = g.NumOperandSlots(), g.NumDepRecords()
	sub.instances = true
	check(sub)
	for _, d := range sub.errs.diags {
		c.add(d)
	}
	if extra := sub.errs.total - len(sub.errs.diags); extra > 0 {
		c.errs.total += extra
	}
}

// runtimeLoopStreams checks that each runtime loop's body and the writers
// of its control registers issue on one engine stream (see the file
// comment).
func (c *checker) runtimeLoopStreams() {
	f := c.f
	if f.Sync == nil {
		return
	}
	f.Walk(func(l bir.InstID) bool {
		if !f.IsRuntimeLoop(l) || len(f.Loopnest(l)) > 0 && f.IsRuntimeLoop(f.Loopnest(l)[0]) {
			return true
		}
		eng, first := bir.EngUnassigned, bir.NoInst
		check := func(i bir.InstID, what string) {
			e := IssueEngine(f, i)
			if eng == bir.EngUnassigned {
				eng, first = e, i
				return
			}
			if e != eng {
				c.instDiag(i, "synchronized", "%s of loop %s (its trip count is known only at run time) issues on %s, %s on %s: want every instruction of the body and every writer of a register its control reads on the loop's engine, whose sequencer holds the registers and iterates (semantics.md §4.15)", what, f.InstName(l), e, c.instName(first), eng)
			}
		}
		for _, i := range f.RuntimeLoopControlWriters(l) {
			check(i, "a writer of a control register")
		}
		for _, b := range f.Loop(l).Body {
			f.WalkBlock(b, func(i bir.InstID) bool {
				if !f.Inst(i).Op.IsLoop() && !f.Inst(i).Dead() {
					check(i, "an instruction of the body")
				}
				return true
			})
		}
		return true
	})
}

// IssueEngine is the engine whose stream issues instruction i: a DMA's
// trigger engine, another instruction's engine, the home stream's engine
// (Sync, or the first present) for one without.
func IssueEngine(f *bir.Function, i bir.InstID) bir.Engine {
	in := f.Inst(i)
	if in.Op.Info().Has(bir.FlagDMA) {
		if f.Sync != nil && int(i) < f.Sync.Len() {
			return f.Sync.Trigger[i]
		}
		return bir.EngUnassigned
	}
	if in.Engine != bir.EngUnassigned && in.Engine != bir.EngDMA && in.Engine < bir.NumEngines {
		return in.Engine
	}
	return bir.EngSP
}
