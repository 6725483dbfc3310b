package verify

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
)

// The schedule rules (passes/sched's side table, bir.Schedule).
//
// Rule "schedule" (always, when a function has a table): the table's
// columns have one length, at least the function's instruction slots at
// the time it was made and at most the current slots; every queue is -1 or
// one of the arch's DMA queues; every DGE entry is -1 or one of its
// hardware DGE engines.
//
// Rule "scheduled" (StageScheduled): walking the function in program
// order,
//
//   - every live instruction (loops excepted) has an entry with
//     0 <= Start <= End;
//   - a DMA names a queue, any other instruction none;
//   - starts never decrease (each block is in linearized schedule order,
//     and a later block does not start before an earlier one);
//   - every dependency is respected: Start >= the End of the instruction
//     it depends on;
//   - no two instructions overlap on one engine or one DMA queue (a call
//     occupies every engine and queue), nor, on a generation with the
//     NC-v2 engine-sharing restrictions, on a shared port: Vector and
//     GpSimd instructions that touch SBUF, Vector and Scalar instructions
//     that touch PSUM;
//   - Order numbers each engine's or queue's instructions 0, 1, 2, ... in
//     start order;
//   - with an arch, no two DMA transfers overlap on one DMA engine: a
//     DMA's transfer is the end of its interval less the cost model's
//     transfer time, on the DMA engines of its partitions (arch/cost.go
//     "The DMA model"; the scheduler holds them one transfer at a time).
//
// Starts being non-decreasing in program order, the overlap checks are
// one pass with the last end per resource: linear, no sorting. The rule
// runs on modules the other rules accept (it walks the blocks with bir's
// walker, which trusts their structure).

func (c *checker) schedule() {
	f := c.f
	tab := f.Sched
	if tab == nil {
		if c.stage&StageScheduled != 0 && c.nInsts > 0 {
			c.moduleDiag("scheduled", "function %s has no schedule: want one (time_aware_scheduler)", c.fname)
		}
		return
	}
	n := tab.Len()
	if len(tab.End) != n || len(tab.Queue) != n || len(tab.DGE) != n || len(tab.Order) != n {
		c.moduleDiag("schedule", "function %s: schedule table columns of lengths %d, %d, %d, %d, %d: want equal lengths", c.fname, n, len(tab.End), len(tab.Queue), len(tab.DGE), len(tab.Order))
		return
	}
	if n > c.nInsts {
		c.moduleDiag("schedule", "function %s: schedule table of %d entries: want at most the function's %d instruction slots", c.fname, n, c.nInsts)
		return
	}
	var nq, nd int64 = 1 << 15, 1 << 7
	if a := c.arch; a != nil {
		nq, nd = a.DMAQueues, a.HWDGEEngines
	}
	bad := 0
	for i := range n {
		if q := tab.Queue[i]; q < -1 || int64(q) >= nq {
			if bad++; bad <= 3 {
				c.instDiag(bir.InstID(i), "schedule", "DMA queue %d: want -1 or 0..%d", q, nq-1)
			}
		}
		if d := tab.DGE[i]; d < -1 || int64(d) >= max(nd, 0) {
			if bad++; bad <= 3 {
				c.instDiag(bir.InstID(i), "schedule", "hardware DGE engine %d: want -1 (software DGE) or 0..%d", d, nd-1)
			}
		}
	}
	// The timing rules walk the function with bir's walker, which trusts
	// the block structure: they run only on a module no earlier rule
	// found fault with.
	if c.stage&StageScheduled == 0 || bad > 0 || c.errs.total > 0 {
		return
	}
	if !c.instances && c.loopFunc() {
		c.scheduledLoops(tab)
		return
	}
	c.scheduled(tab)
}

const (
	schedPortSBUF = int(bir.NumEngines) + iota
	schedPortPSUM
	schedFirstQueue
)

func (c *checker) scheduled(tab *bir.Schedule) {
	f := c.f
	nq := int64(1 << 15)
	shareSB, sharePS := true, true
	if a := c.arch; a != nil {
		nq = a.DMAQueues
		shareSB, sharePS = a.DVEPoolShareSBUF, a.DVEActSharePSUM
	}
	nres := schedFirstQueue + int(max(nq, 0))
	lastEnd := make([]int64, nres)
	lastInst := make([]bir.InstID, nres)
	order := make([]int32, nres+1)
	for r := range lastInst {
		lastInst[r] = bir.NoInst
	}
	prevStart, prev := int64(-1), bir.NoInst
	type transfer struct {
		start, end int64
		mask       uint64
		i          bir.InstID
	}
	var transfers []transfer
	errs := 0
	diag := func(i bir.InstID, format string, args ...any) {
		if errs++; errs <= 20 {
			c.instDiag(i, "scheduled", format, args...)
		}
	}
	// occupy checks resource r for instruction i and takes it (what names
	// r; "" for a DMA queue, named only in a diagnostic: no string per
	// instruction).
	occupy := func(i bir.InstID, r int, what string) {
		if tab.Start[i] < lastEnd[r] {
			if what == "" {
				what = "DMA queue " + strconv.Itoa(r-schedFirstQueue)
			}
			diag(i, "runs [%d, %d) ps on %s, overlapping %s until %d ps: want one instruction at a time", tab.Start[i], tab.End[i], what, c.instName(lastInst[r]), lastEnd[r])
		}
		lastEnd[r], lastInst[r] = max(lastEnd[r], tab.End[i]), i
	}
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		if !tab.Has(i) {
			diag(i, "has no schedule entry: want every instruction scheduled")
			return true
		}
		s, e := tab.Start[i], tab.End[i]
		if e < s {
			diag(i, "ends at %d ps before it starts at %d ps: want end >= start", e, s)
		}
		if s < prevStart && !c.instances {
			diag(i, "starts at %d ps, before %s (earlier in program order) at %d ps: want each block in start order", s, c.instName(prev), prevStart)
		}
		prevStart, prev = s, i
		for k := in.Deps; k >= 0; {
			d, next, ok := f.DepRecord(k)
			if !ok {
				break
			}
			k = next
			if d.On < 0 || int(d.On) >= tab.Len() || !tab.Has(d.On) {
				continue
			}
			if s < tab.End[d.On] {
				diag(i, "starts at %d ps, before %s, which it depends on (%s), ends at %d ps: want a start >= %d ps", s, c.instName(d.On), d.Kind, tab.End[d.On], tab.End[d.On])
			}
		}
		info := in.Op.Info()
		q := tab.Queue[i]
		switch {
		case info.Has(bir.FlagDMA):
			if q < 0 {
				diag(i, "DMA without a queue: want one of 0..%d", nq-1)
				return true
			}
			occupy(i, schedFirstQueue+int(q), "")
			c.schedOrder(i, tab, order, schedFirstQueue+int(q))
			if a := c.arch; a != nil {
				if est, err := a.InstructionCost(f, i, bir.EngDMA, tab.DGE[i] >= 0); err == nil && est.Engines != 0 {
					transfers = append(transfers, transfer{e - min(est.XferPs(), e-s), e, est.Engines, i})
				}
			}
		case q >= 0:
			diag(i, "queue %d on a non-DMA instruction: want -1", q)
		case info.Has(bir.FlagCall):
			for r := range lastEnd {
				occupy(i, r, "every engine (a call)")
			}
			c.schedOrder(i, tab, order, nres)
		case in.Engine != bir.EngUnassigned && in.Engine < bir.NumEngines:
			occupy(i, int(in.Engine), in.Engine.String())
			c.schedOrder(i, tab, order, int(in.Engine))
			if shareSB && sharePS {
				break
			}
			sb, ps := c.touches(i)
			if !shareSB && sb && (in.Engine == bir.EngDVE || in.Engine == bir.EngPool) {
				occupy(i, schedPortSBUF, "the SBUF port Vector and GpSimd share (NC-v2)")
			}
			if !sharePS && ps && (in.Engine == bir.EngDVE || in.Engine == bir.EngAct) {
				occupy(i, schedPortPSUM, "the PSUM port Vector and Scalar share (NC-v2)")
			}
		}
		return true
	})
	// The DMA engines: each engine's transfers in start order.
	if len(transfers) > 0 {
		slices.SortStableFunc(transfers, func(x, y transfer) int { return cmp.Compare(x.start, y.start) })
		var last [64]int64
		var lastInst [64]bir.InstID
		for _, x := range transfers {
			for m := x.mask; m != 0; m &= m - 1 {
				e := bits.TrailingZeros64(m)
				if lastInst[e] != 0 && x.start < last[e] {
					diag(x.i, "moves its bytes [%d, %d) ps on DMA engine %d, overlapping %s's transfer until %d ps: want one transfer at a time on a DMA engine", x.start, x.end, e, c.instName(lastInst[e]-1), last[e])
				}
				if x.end >= last[e] {
					last[e], lastInst[e] = x.end, x.i+1
				}
			}
		}
	}
	if errs > 20 {
		c.moduleDiag("scheduled", "function %s: %d schedule violations in all (the first 20 are listed): want none", c.fname, errs)
	}
}

// schedOrder checks that i's Order is the next number of resource r.
func (c *checker) schedOrder(i bir.InstID, tab *bir.Schedule, next []int32, r int) {
	if tab.Order[i] != next[r] {
		c.instDiag(i, "scheduled", "order %d in its engine's or queue's stream: want %d (start order)", tab.Order[i], next[r])
	}
	next[r]++
}

// touches reports whether instruction i has an SBUF and a PSUM operand.
func (c *checker) touches(i bir.InstID) (sb, ps bool) {
	f := c.f
	for _, o := range f.Operands(i) {
		if o.Kind != bir.OpdPhysAP || !c.validLoc(o.Loc()) {
			continue
		}
		switch f.Loc(o.Loc()).Type {
		case bir.MemSB:
			sb = true
		case bir.MemPSUM:
			ps = true
		}
	}
	return sb, ps
}
