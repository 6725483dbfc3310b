package verify

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/stream"
	"slices"
)

// The synchronization rules (passes/semaphores' side table, bir.Sync; the
// model is package stream's).
//
// Rule "sync" (always, when a function has a table): the table covers at
// most the function's instruction slots; a trigger engine is set only on a
// DMA and names an engine of the generation that runs a stream (Tensor,
// Vector, Scalar, GpSimd, Sync); every semaphore command names a semaphore
// of the arch (0..Semaphores-1: "ids in range"); every instruction keeps
// the wire limit (seed 002 §6.5 "EventSemaphore must have <= 2 wait
// commands, and <= 1 update command", with the seed's rejects "Too many
// sync wait commands" and "Too many sync update commands"; the limits are
// the arch's WaitsPerInst and UpdatesPerInst).
//
// Rule "synchronized" (StageSynchronized): the function has a table, every
// DMA a trigger engine, and stream.Check finds nothing: every dependency
// ordered by stream order, triggers, waits and updates (an exact
// happens-before check on the straight-line code), each semaphore updated
// by one stream ("datapath semaphore must be updated by datapath instr"),
// every wait satisfied by updates before it in program order, counters
// within their width, barrier groups whole, the entry function's engine
// streams ending with Halt and no DMA in flight once all have halted. It
// runs on modules the other rules accept.

func (c *checker) sync() {
	f := c.f
	sy := f.Sync
	if sy == nil {
		if c.stage&StageSynchronized != 0 && c.nInsts > 0 {
			c.funcDiag("synchronized", "the function has no synchronization table: want one (alloc_semaphores)")
		}
		return
	}
	if sy.Len() > c.nInsts {
		c.funcDiag("sync", "synchronization table of %d entries: want at most the function's %d instruction slots", sy.Len(), c.nInsts)
		return
	}
	nsem := int64(1 << 30)
	waits, updates := int64(maxSemaphoreWaits), int64(maxSemaphoreUpdates)
	if a := c.arch; a != nil {
		nsem = a.Sync.Semaphores
		waits, updates = a.Sync.WaitsPerInst, a.Sync.UpdatesPerInst
	}
	bad := 0
	diag := func(i bir.InstID, format string, args ...any) {
		if bad++; bad <= 20 {
			c.instDiag(i, "sync", format, args...)
		}
	}
	for k := 0; k < sy.Len(); k++ {
		i := bir.InstID(k)
		if !sy.Has(i) || f.Inst(i).Dead() {
			continue
		}
		in := f.Inst(i)
		if t := sy.Trigger[i]; t != bir.EngUnassigned {
			switch {
			case !in.Op.Info().Has(bir.FlagDMA):
				diag(i, "trigger engine %s on a %s: want a trigger only on a DMA", t, f.OpName(i))
			case t == bir.EngDMA || t >= bir.NumEngines || (c.arch != nil && !c.arch.HasEngine(t)):
				diag(i, "trigger engine %s: want an engine of the generation that runs a stream (Tensor, Vector, Scalar, GpSimd, Sync)", t)
			}
		}
		w, u := sy.Waits(i), sy.Updates(i)
		for _, cmd := range w {
			if cmd.Sem < 0 || int64(cmd.Sem) >= nsem {
				diag(i, "waits on semaphore %d: want 0..%d (the arch's semaphores)", cmd.Sem, nsem-1)
			}
		}
		for _, cmd := range u {
			if cmd.Sem < 0 || int64(cmd.Sem) >= nsem {
				diag(i, "updates semaphore %d: want 0..%d (the arch's semaphores)", cmd.Sem, nsem-1)
			}
		}
		if int64(len(w)) > waits {
			c.instDiag(i, "semaphore", "%s (%s): want <= %d, have %d", msgTooManyWaits, wireLimit(waits, updates), waits, len(w))
		}
		if int64(len(u)) > updates {
			c.instDiag(i, "semaphore", "%s (%s): want <= %d, have %d", msgTooManyUpdates, wireLimit(waits, updates), updates, len(u))
		}
	}
	if bad > 20 {
		c.funcDiag("sync", "%d synchronization table problems in all (the first 20 are listed)", bad)
	}
	if c.stage&StageSynchronized == 0 || bad > 0 || c.errs.total > 0 {
		return
	}
	if !c.instances && c.loopFunc() {
		c.synchronizedLoops()
		return
	}
	c.synchronized()
}

func (c *checker) synchronized() {
	f := c.f
	opt := stream.Options{}
	copt := stream.CheckOptions{Semaphores: 1 << 30, Entry: f == c.m.Main()}
	if a := c.arch; a != nil {
		opt.HasEngine = a.HasEngine
		opt.Queues = int(max(a.DMAQueues, 1))
		copt.Semaphores = a.Sync.Semaphores
		copt.MaxValue = a.MaxSemaphoreValue()
	}
	L, err := stream.Build(f, opt)
	if err != nil {
		c.funcDiag("synchronized", "%v", err)
		return
	}
	for _, p := range stream.Check(L, copt) {
		if p.Inst == bir.NoInst {
			c.funcDiag("synchronized", "%s", p.Msg)
		} else {
			c.instDiag(p.Inst, "synchronized", "%s", p.Msg)
		}
	}
	c.coreBarrierLists()
}

// coreBarrierLists checks each CoreBarrier's participant list on its own
// (issue 27 item 8): when given, "cores" names distinct non-negative
// cores, this module's core among them. Whether the cores' lists agree
// needs every core's module: run CORE0 CORE1 --concurrent checks it.
func (c *checker) coreBarrierLists() {
	f := c.f
	f.Walk(func(x bir.InstID) bool {
		if f.Inst(x).Op != bir.OpCoreBarrier {
			return true
		}
		v, ok := f.Attrs(x).Get(stream.AttrCores)
		if !ok {
			return true
		}
		var cores []int64
		good := v.Kind == bir.ValList
		for _, e := range v.L {
			k, isInt := e.AsInt()
			good = good && isInt && k >= 0 && !slices.Contains(cores, k)
			cores = append(cores, k)
		}
		switch {
		case !good || len(cores) == 0:
			c.instDiag(x, "core-barrier", "cores %v: want a non-empty list of distinct core ids >= 0 (a core that never arrives leaves the barrier waiting forever)", cores)
		case c.m.HasCoreID && !slices.Contains(cores, c.m.NeuronCoreID):
			c.instDiag(x, "core-barrier", "cores %v: want this module's core %d among them", cores, c.m.NeuronCoreID)
		}
		return true
	})
}

// wireLimit is the limit a "Too many sync ... commands" diagnostic names:
// the seed's, verifier-pinned ("EventSemaphore must have <= 2 wait
// commands, and <= 1 update command"), which the machine models keep as
// their default; when a model's arch.semaphore-waits-per-inst or
// -updates-per-inst moves it (a what-if study), the message says so and
// names both.
func wireLimit(waits, updates int64) string {
	if waits == maxSemaphoreWaits && updates == maxSemaphoreUpdates {
		return msgSemaphoreLimit
	}
	return fmt.Sprintf("a what-if limit of the machine model: arch.semaphore-waits-per-inst=%d, arch.semaphore-updates-per-inst=%d; the seed's verifier pins %q", waits, updates, msgSemaphoreLimit)
}
