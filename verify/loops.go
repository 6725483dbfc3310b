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
// The check is exact for the trip counts the loops have (static: a loop
// whose trip count is known only at run time has no instances, an error
// of rule "scheduled"), at the cost of the expansion (its instances,
// bounded by bir.DefaultMaxInstances).

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
	if errs > 0 {
		return
	}
	c.onInstances(func(sub *checker) { sub.scheduled(sub.f.Sched) })
}

// synchronizedLoops is rule "synchronized" on a function with loops.
func (c *checker) synchronizedLoops() {
	c.onInstances(func(sub *checker) { sub.synchronized() })
}

// onInstances runs check on the instances of the current function and
// adds its diagnostics.
func (c *checker) onInstances(check func(sub *checker)) {
	x, err := bir.Expand(c.m, bir.ExpandOptions{Only: c.f.Name})
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
