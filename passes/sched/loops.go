package sched

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// # Scheduling a function that keeps loops (ScheduleLoops)
//
// A function FullUnroll left loops in (levels 0 and 1; an NKI kernel's
// dynamic_range loop) is scheduled region by region: each loop body is a
// region whose iterations overlap, and the function's top level is a
// region of one iteration in which each loop is one item.
//
// The machine runs one copy of each loop body that its engines and DMA
// queues iterate (bir/expand.go): each stream executes its instructions of
// the body in the body's order, iteration after iteration. So the
// iterations overlap across streams (the queues load iteration k+1 while
// Vector adds iteration k) but never within one: a stream finishes its
// part of iteration k before it starts iteration k+1. That is how far
// narwhal takes software pipelining: iterations overlap as far as the
// dependencies (loop-carried ones included: a buffer that
// ModuloAllocation or shrink_tensor rotates over N slots is rewritten N
// iterations later, so its WAR dependency is carried at distance N) and
// the streams allow; the body is not rotated into a prologue, a kernel of
// stages and an epilogue (a stream's instructions of iteration k+1 never
// run before its instructions of iteration k), because the one body copy
// the hardware iterates has a single order per stream.
//
// The schedule of a region is periodic (a modulo schedule): item x of the
// body starts at offset s_x in iteration 0 and at s_x + k*II in iteration
// k, with II the initiation interval (bir.Schedule.Period of the loop).
// For a chosen body order and DMA queues the constraints are difference
// constraints on the offsets:
//
//   - a dependency of B on A carried at distance d (0: none) by this
//     loop: s_B + d*II >= s_A + dur_A, where an item that is an inner loop
//     spans its whole execution (dur = its span, conservatively from its
//     first start to its last end);
//   - each resource (an engine, a DMA queue, an NC-v2 shared port) runs
//     its items in body order: s_next >= s_prev + dur_prev, and iteration
//     k+1's first after iteration k's last: s_first + II >= s_last +
//     dur_last; an inner loop holds every resource it uses for its span.
//
// They have a solution iff the constraint graph has no positive cycle;
// feasibility is monotone in II, and II = the latency of one iteration
// scheduled alone is always feasible, so the smallest II is found by
// bisection between the resources' busy time per iteration and that
// latency (Bellman-Ford longest paths from s >= 0), and the offsets are
// the longest paths at it. Two body orders are tried, the incoming one
// and the dependence-ASAP one (each block's items by their earliest
// start ignoring resources), with DMAs without a queue bound, in
// iteration 0, to the queue free first; the one with the shorter total
// ((T-1)*II + the latency of an iteration) is kept, and each block
// becomes its items in offset order. The top level (one iteration) is the
// same problem without the periodic constraints: a list schedule in the
// kept order. Inner loops are scheduled first.
//
// The report gives each loop's initiation interval (the makespan per
// iteration) and its bound (the resources' busy time per iteration, and
// the recurrences: the smallest II the dependencies alone allow, inner
// loops at their lower bounds), the latency of one iteration, the total
// for the trip count and its bound (the critical path of its instances,
// and T times the busiest resource's work per iteration), and for the
// function the makespan against the lower bound of report.go's terms
// computed on the function's instances (bir.Expand: any schedule of the
// loop program is a schedule of its instances).
//
// Decisions where the seed is silent: everything above (the seed's loop
// scheduling, modulo schedules over carried dependencies, is not
// described); an inner loop as one item holding its resources for its
// span; a call in a loop body is refused (NW410). A DMA keeps one queue
// in every iteration (the body's instruction names it).

// LoopReport is one loop's part of the schedule report.
// LoopsReport is the loops' part of a loop function's report.
type LoopsReport struct {
	Loops []LoopReport
	// Executed is the function's instances run as the streams run them:
	// each engine and DMA queue in its scheduled order, each instruction
	// as soon as its dependencies and its stream allow (no semaphore
	// latency). The periodic schedule is one execution of that program;
	// the streams may run it shorter (an inner loop does not hold its
	// resources for its whole span, nor is every iteration as long as the
	// longest), never longer.
	Executed int64
}

type LoopReport struct {
	Name        string
	Depth       int
	Trip        int64
	II          int64 // the initiation interval (period)
	IIBound     int64 // max(ResMII, RecMII)
	ResMII      int64
	ResName     string
	RecMII      int64
	Latency     int64 // one iteration
	Span        int64 // the trip count's
	SpanBound   int64
	Order       string
	Insts       int
	Instances   int64
	CriticalRun int64 // the critical path of the loop's instances
	// OneBufferII and OneBufferSpan are the what-if of one buffer where
	// the loop has dependencies carried at a distance of 2 or more (a
	// buffer ModuloAllocation or shrink_tensor rotates over that many
	// slots): the same order and queues with those distances set to 1;
	// 0 when the loop has none. Against II and Span: the overlap the
	// buffers buy.
	OneBufferII, OneBufferSpan int64
}

// loopItem is one item of a region: an instruction or an inner loop.
type loopItem struct {
	inst bir.InstID
	sub  *loopRegion // an inner loop
	dur  int64
	// pre is a compute instruction's readiness latency (arch/cost.go: its
	// work starts no earlier than this long after its inputs are ready):
	// added to its dependencies and its earliest start.
	pre   int64
	res   []int32 // resources held (engine, queue, ports); queue -1 until bound
	dma   bool
	fixed bool // the DMA's queue is given
	block int
	pos   int
	hw    bool
	// occ: for an inner loop, when it holds each of its resources
	// relative to its start: [off, off+dur) over all its iterations (an
	// instruction holds its resource for [0, dur)).
	occ map[int32][2]int64
}

// occupies returns when item it holds resource x: the offset from its
// start and the duration.
func (it *loopItem) occupies(x int32) (off, dur int64) {
	if o, ok := it.occ[x]; ok {
		return o[0], o[1]
	}
	return 0, it.dur
}

type loopEdge struct {
	a, b int32
	dist int64
}

// loopRegion is a loop body (or the function's top level: inst NoInst,
// trip 1).
type loopRegion struct {
	inst   bir.InstID
	axis   affine.Axis
	trip   int64
	blocks []bir.BlockID
	items  []*loopItem
	edges  []loopEdge
	off    []int64 // offsets of the kept order, by item
	order  []int32 // the kept order (item indices)
	ii     int64
	lat    int64
	span   int64
	rep    LoopReport
	// busy per iteration by resource, inner loops' whole work included;
	// dmaWork the DMA time per iteration (all queues)
	busy    map[int32]int64
	dmaWork int64
	bound   int64 // SpanBound: a lower bound on the span
}

type loopSched struct {
	f     *bir.Function
	model *arch.Model
	nq    int32
	nRes  int32
	portR [2]int32
	// firstDMA is DMA engine 0's resource, nDMA the engines (arch/cost.go
	// "The DMA model": a DMA holds its queue for its whole interval and
	// the DMA engines of its partitions for its transfer, the interval's
	// end less the transfer time).
	firstDMA, nDMA int32
	span           func(string) int64
	loops          []*loopRegion
}

// ScheduleLoops schedules f, which has loops (see above): it fills
// f.Sched (Start, End, Queue, Order of every instruction, Period of every
// loop), orders each block by start, and returns the report.
func ScheduleLoops(f *bir.Function, model *arch.Model, opt Options) (*Report, *LoopsReport, error) {
	m := f.Module()
	ls := &loopSched{f: f, model: model, nq: int32(max(model.DMAQueues, 1))}
	ls.span = func(name string) int64 {
		if c := m.Func(name); c != nil && c.Sched != nil {
			return c.Sched.Makespan()
		}
		return 0
	}
	ls.nRes = firstQueue + ls.nq
	ls.portR = [2]int32{-1, -1}
	if !model.DVEPoolShareSBUF {
		ls.portR[0] = ls.nRes
		ls.nRes++
	}
	if !model.DVEActSharePSUM {
		ls.portR[1] = ls.nRes
		ls.nRes++
	}
	ls.firstDMA, ls.nDMA = ls.nRes, int32(min(max(model.DMAEngines, 0), 64))
	ls.nRes += ls.nDMA
	top, err := ls.region(bir.NoInst, f.Top, 1, 0)
	if err != nil {
		return nil, nil, err
	}
	tab := table(f)
	ls.commit(top, 0, tab)
	// Order: each resource's instructions in program order (a loop body
	// listed once), the stream each runs on.
	next := map[int32]int32{}
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			tab.Order[i] = -1
			return true
		}
		r := int32(-1)
		switch {
		case in.Op.Info().Has(bir.FlagDMA):
			r = firstQueue + int32(tab.Queue[i])
		case in.Op.Info().Has(bir.FlagCall):
			r = ls.nRes
		case in.Engine != bir.EngUnassigned && in.Engine < bir.NumEngines:
			r = int32(in.Engine)
		}
		if r < 0 {
			tab.Order[i] = -1
			return true
		}
		tab.Order[i] = next[r]
		next[r]++
		return true
	})
	rep, executed, err := ls.report(top, opt)
	if err != nil {
		return nil, nil, err
	}
	loops := &LoopsReport{Executed: executed}
	for _, lr := range ls.loops {
		loops.Loops = append(loops.Loops, lr.rep)
	}
	return rep, loops, nil
}

// region builds and schedules the region of loop inst (NoInst: the top
// level) over blocks.
func (ls *loopSched) region(inst bir.InstID, blocks []bir.BlockID, trip int64, depth int) (*loopRegion, error) {
	f := ls.f
	r := &loopRegion{inst: inst, trip: trip, blocks: blocks, axis: bir.NoAxis, busy: map[int32]int64{}}
	if inst != bir.NoInst {
		r.axis = f.Loop(inst).Axis
	}
	for bi, b := range blocks {
		for _, i := range f.Block(b).Insts {
			in := f.Inst(i)
			if in.Dead() {
				continue
			}
			it := &loopItem{inst: i, block: bi, pos: len(r.items)}
			switch info := in.Op.Info(); {
			case in.Op.IsLoop():
				n, ok := f.StaticTripCount(i)
				if !ok {
					return nil, diag.Wrap(diag.LoopNotHandled, f.Errorf(i, "a %s whose trip count is known only at run time: narwhal schedules loops of static trip counts", f.OpName(i)))
				}
				sub, err := ls.region(i, f.Loop(i).Body, n, depth+1)
				if err != nil {
					return nil, err
				}
				sub.rep.Depth = depth
				it.sub, it.dur = sub, sub.span
				it.occ = sub.occupancy()
				for x := range it.occ {
					it.res = append(it.res, x)
				}
				slices.Sort(it.res)
			case info.Has(bir.FlagDMA):
				it.dma = true
				q := int16(-1)
				if t := f.Sched; t != nil && int(i) < t.Len() {
					q, it.hw = t.Queue[i], t.DGE[i] >= 0
				}
				if q >= 0 && int32(q) >= ls.nq {
					return nil, diag.Wrap(diag.Internal, f.Errorf(i, "DMA queue %d: want 0..%d", q, ls.nq-1))
				}
				est, err := ls.model.InstructionCost(f, i, bir.EngDMA, it.hw)
				if err != nil {
					return nil, f.Errorf(i, "%w", err)
				}
				it.dur = est.Ps()
				it.res = []int32{-1}
				if q >= 0 {
					it.res[0], it.fixed = firstQueue+int32(q), true
				}
				// The transfer on the DMA engines of its partitions.
				if xfer := min(est.XferPs(), it.dur); est.Engines != 0 && xfer > 0 {
					it.occ = map[int32][2]int64{}
					for e := int32(0); e < ls.nDMA; e++ {
						if est.Engines&(1<<uint(e)) != 0 {
							x := ls.firstDMA + e
							it.res = append(it.res, x)
							it.occ[x] = [2]int64{it.dur - xfer, xfer}
						}
					}
				}
			case info.Has(bir.FlagCall):
				if inst != bir.NoInst {
					return nil, diag.Wrap(diag.LoopNotHandled, f.Errorf(i, "a call in a loop body: narwhal synchronizes a call as a barrier of every engine, which a loop body cannot hold"))
				}
				it.dur = ls.span(f.Attrs(i).Str("func", ""))
				for x := int32(0); x < ls.nRes; x++ {
					if x < int32(bir.NumEngines) && !ls.model.HasEngine(bir.Engine(x)) {
						continue
					}
					it.res = append(it.res, x)
				}
			default:
				eng := in.Engine
				est, err := ls.model.InstructionCost(f, i, eng, false)
				if err != nil {
					return nil, f.Errorf(i, "%w", err)
				}
				it.dur, it.pre = est.Ps(), est.LatencyPs()
				if eng != bir.EngUnassigned && eng < bir.NumEngines {
					it.res = append(it.res, int32(eng))
				}
				sb, ps := ls.touches(i)
				if sb && ls.portR[0] >= 0 && (eng == bir.EngDVE || eng == bir.EngPool) {
					it.res = append(it.res, ls.portR[0])
				}
				if ps && ls.portR[1] >= 0 && (eng == bir.EngDVE || eng == bir.EngAct) {
					it.res = append(it.res, ls.portR[1])
				}
			}
			r.items = append(r.items, it)
		}
	}
	ls.edges(r)
	ls.solve(r)
	if inst != bir.NoInst {
		r.rep.Name = f.InstName(inst)
		r.rep.Trip = trip
		ls.loops = append(ls.loops, r)
	}
	return r, nil
}

// resLabel names resource x (an engine, a DMA queue, a shared port).
func (ls *loopSched) resLabel(x int32) string {
	switch x {
	case ls.portR[0]:
		return "the SBUF port Vector and GpSimd share"
	case ls.portR[1]:
		return "the PSUM port Vector and Scalar share"
	}
	if x >= ls.firstDMA && x < ls.firstDMA+ls.nDMA {
		return DMAEngineName(int(x - ls.firstDMA))
	}
	return resName(x)
}

// touches reports whether instruction i reaches SBUF and PSUM (symbolic
// access patterns through their tensor's locations).
func (ls *loopSched) touches(i bir.InstID) (sb, ps bool) {
	f := ls.f
	for _, o := range f.Operands(i) {
		var l bir.LocID = bir.NoLoc
		switch o.Kind {
		case bir.OpdPhysAP:
			l = o.Loc()
		case bir.OpdSymAP:
			if t := o.TensorRef(); int(t) >= 0 && int(t) < f.NumTensors() && len(f.Tensor(t).Locs) > 0 {
				l = f.Tensor(t).Locs[0]
			}
		}
		if int(l) < 0 || int(l) >= f.NumLocs() {
			continue
		}
		switch f.Loc(l).Type {
		case bir.MemSB:
			sb = true
		case bir.MemPSUM:
			ps = true
		}
	}
	return sb, ps
}

// edges maps the dependencies of every instruction of region r's items
// onto item edges (see the file comment).
func (ls *loopSched) edges(r *loopRegion) {
	f := ls.f
	holder := map[bir.InstID]int32{}
	var walk func(i bir.InstID, k int32)
	walk = func(i bir.InstID, k int32) {
		holder[i] = k
		if f.Inst(i).Op.IsLoop() {
			for _, b := range f.Loop(i).Body {
				for _, j := range f.Block(b).Insts {
					if !f.Inst(j).Dead() {
						walk(j, k)
					}
				}
			}
		}
	}
	for k, it := range r.items {
		walk(it.inst, int32(k))
	}
	seen := map[loopEdge]bool{}
	for y, b := range holder {
		for _, d := range f.Deps(y) {
			a, ok := holder[d.On]
			if !ok {
				continue // from outside the region: the parent's edge
			}
			var dist int64
			switch {
			case d.CarryAxis == bir.NoAxis:
				if a == b {
					continue // inside one inner loop
				}
			case d.CarryAxis == r.axis:
				dist = int64(d.CarryDist)
			default:
				continue // carried by an inner loop (inside it) or an outer one (its level)
			}
			e := loopEdge{a: a, b: b, dist: dist}
			if !seen[e] {
				seen[e] = true
				r.edges = append(r.edges, e)
			}
		}
	}
	slices.SortFunc(r.edges, func(x, y loopEdge) int {
		if x.b != y.b {
			return int(x.b - y.b)
		}
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.dist - y.dist)
	})
}

// constraint is s_b >= s_a + w - dist*II.
type constraint struct {
	a, b int32
	w    int64
	dist int64
}

// solve picks the body order and queues, the initiation interval and the
// offsets of region r.
func (ls *loopSched) solve(r *loopRegion) {
	n := len(r.items)
	type cand struct {
		name  string
		order []int32
	}
	inc := make([]int32, n)
	for k := range inc {
		inc[k] = int32(k)
	}
	cands := []cand{{"incoming", inc}}
	if asap := ls.asapOrder(r); len(asap) == n && !slices.Equal(asap, inc) {
		cands = append(cands, cand{"ASAP", asap})
	}
	best := -1
	var bestRes [][]int32
	var bestOff []int64
	var bestII, bestLat, bestTotal int64
	for ci, c := range cands {
		res := ls.bindQueues(r, c.order)
		ii, off, lat := ls.periodic(r, c.order, res, false)
		total := (r.trip-1)*ii + lat
		if best < 0 || total < bestTotal {
			best, bestRes, bestOff, bestII, bestLat, bestTotal = ci, res, off, ii, lat, total
		}
	}
	for k, it := range r.items {
		it.res = bestRes[k]
	}
	r.order, r.off, r.ii, r.lat = cands[best].order, bestOff, bestII, bestLat
	r.span = max(bestTotal, 0)
	if r.trip <= 0 {
		r.span = 0
	}
	r.rep.Order = cands[best].name
	r.rep.II, r.rep.Latency, r.rep.Span = r.ii, r.lat, r.span
	if r.trip >= 2 && slices.ContainsFunc(r.edges, func(e loopEdge) bool { return e.dist >= 2 }) {
		ii, _, lat := ls.periodic(r, r.order, bestRes, true)
		r.rep.OneBufferII, r.rep.OneBufferSpan = ii, (r.trip-1)*ii+lat
	}
	ls.loopBound(r)
}

// asapOrder returns region r's items by earliest start from the
// dependencies alone (carried ones ignored), within each block, ties in
// program order.
func (ls *loopSched) asapOrder(r *loopRegion) []int32 {
	n := len(r.items)
	est := make([]int64, n)
	for _, e := range r.edges { // sorted by target: sources earlier in program order come first
		if e.dist == 0 && e.a < e.b {
			est[e.b] = max(est[e.b], est[e.a]+r.items[e.a].dur)
		}
	}
	// The edges are sorted by target, so a chain a -> b -> c needs b's
	// value final before c's edge: repeat until stable (n passes at most;
	// forward edges only).
	for changed, pass := true, 0; changed && pass < n; pass++ {
		changed = false
		for _, e := range r.edges {
			if e.dist == 0 && e.a < e.b && est[e.a]+r.items[e.a].dur > est[e.b] {
				est[e.b], changed = est[e.a]+r.items[e.a].dur, true
			}
		}
	}
	order := make([]int32, n)
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(x, y int32) int {
		bx, by := r.items[x].block, r.items[y].block
		if bx != by {
			return bx - by
		}
		if est[x] != est[y] {
			if est[x] < est[y] {
				return -1
			}
			return 1
		}
		return int(x - y)
	})
	// The order must keep every dependency without carry forward (a
	// zero-length predecessor ties with its successor: program order
	// breaks the tie).
	pos := make([]int32, n)
	for k, x := range order {
		pos[x] = int32(k)
	}
	for _, e := range r.edges {
		if e.dist == 0 && pos[e.a] > pos[e.b] {
			return order[:0:0]
		}
	}
	return order
}

// bindQueues returns the resources of each item with the DMAs that have
// no queue bound, in iteration 0 in the given order, to the queue free
// first, the least loaded on a tie (a list simulation without the
// periodic constraints).
func (ls *loopSched) bindQueues(r *loopRegion, order []int32) [][]int32 {
	n := len(r.items)
	res := make([][]int32, n)
	free := make([]int64, ls.nRes)
	work := make([]int64, ls.nRes)
	end := make([]int64, n)
	preds := make([][]int32, n)
	for _, e := range r.edges {
		if e.dist == 0 {
			preds[e.b] = append(preds[e.b], e.a)
		}
	}
	// The work already bound: fixed DMAs, inner loops' queues.
	for _, it := range r.items {
		switch {
		case it.sub != nil:
			for x, b := range it.sub.busy {
				if x >= 0 && x < ls.nRes {
					work[x] += it.sub.trip * b
				}
			}
		case it.dma && it.fixed:
			work[it.res[0]] += it.dur
		}
	}
	for _, k := range order {
		it := r.items[k]
		res[k] = slices.Clone(it.res)
		s := int64(0)
		for _, a := range preds[k] {
			s = max(s, end[a])
		}
		for _, x := range res[k] {
			if x >= 0 {
				o, _ := it.occupies(x)
				s = max(s, free[x]-o)
			}
		}
		if it.dma && !it.fixed {
			// The queue free first; on a tie the one with the least work
			// bound to it (every iteration repeats the binding, so the
			// work per iteration is what a queue must hold), then the
			// lowest.
			best := firstQueue
			for q := firstQueue; q < firstQueue+ls.nq; q++ {
				a, b := max(free[q], s), max(free[best], s)
				if a < b || a == b && work[q] < work[best] {
					best = q
				}
			}
			work[best] += it.dur
			res[k][0] = best
			s = max(s, free[best])
		}
		end[k] = s + it.dur
		for _, x := range res[k] {
			if x >= 0 {
				o, d := it.occupies(x)
				free[x] = s + o + d
			}
		}
	}
	return res
}

// constraints returns region r's difference constraints for an order and
// its resources.
func (ls *loopSched) constraints(r *loopRegion, order []int32, res [][]int32) []constraint {
	return ls.constraintsBut(r, order, res, nil)
}

// isDMAEngine reports whether resource x is a DMA engine.
func (ls *loopSched) isDMAEngine(x int32) bool {
	return x >= ls.firstDMA && x < ls.firstDMA+ls.nDMA
}

// periodic returns the smallest initiation interval of region r for an
// order and its queues, its offsets and one iteration's latency; clamp
// sets every carried distance to 1 (the one-buffer what-if).
//
// The DMA engines are not streams: the hardware moves the transfers of
// every queue as the engines free, so an engine's transfers need not
// follow the body order iteration by iteration. Held in body order (every
// transfer of iteration k before any of k+1), a loop whose store waits for
// its loads' consumer cannot move its next loads ahead of that store. So
// rotations of the cyclic order are tried on the DMA engines: with the
// region's DMAs in body order and a split point p, each engine moves the
// transfers of DMAs p.. of iteration k-1 after those of DMAs ..p-1 of
// iteration k (each instance still once per interval: a total order of
// every instance on the engine, whatever the offsets). The shortest is
// kept; each keeps one transfer at a time on an engine.
func (ls *loopSched) periodic(r *loopRegion, order []int32, res [][]int32, clamp bool) (int64, []int64, int64) {
	n := len(r.items)
	fix := func(cons []constraint) []constraint {
		if clamp {
			for k := range cons {
				cons[k].dist = min(cons[k].dist, 1)
			}
		}
		return cons
	}
	ii, off, lat := ls.minII(r, fix(ls.constraints(r, order, res)), n)
	if r.trip < 2 || ls.nDMA == 0 {
		return ii, off, lat
	}
	var dmas []int32 // the DMA items in the order
	for _, k := range order {
		if r.items[k].dma {
			dmas = append(dmas, k)
		}
	}
	if len(dmas) < 2 {
		return ii, off, lat
	}
	rank := map[int32]int{}
	for j, k := range dmas {
		rank[k] = j
	}
	base := fix(ls.constraintsBut(r, order, res, ls.isDMAEngine))
	ii0, _, _ := ls.minII(r, base, n)
	if ii0 >= ii {
		return ii, off, lat // the engines do not bind
	}
	// At most 16 split points, spread over the DMAs.
	step := max(1, (len(dmas)-1+15)/16)
	o2 := make([]int64, n)
	for p := 1; p < len(dmas); p += step {
		cons := slices.Clone(base)
		chains := map[int32][]int32{}
		for _, k := range dmas {
			for _, x := range res[k] {
				if ls.isDMAEngine(x) {
					chains[x] = append(chains[x], k)
				}
			}
		}
		for x, ch := range chains {
			// The cycle: the DMAs before p (shift 0), then those from p
			// (shift 1: one iteration behind).
			slices.SortStableFunc(ch, func(a, b int32) int {
				sa, sb := 0, 0
				if rank[a] >= p {
					sa = 1
				}
				if rank[b] >= p {
					sb = 1
				}
				if sa != sb {
					return sa - sb
				}
				return rank[a] - rank[b]
			})
			q := func(k int32) int64 {
				if rank[k] >= p {
					return 1
				}
				return 0
			}
			for j := range ch {
				a, b := ch[j], ch[(j+1)%len(ch)]
				ao, ad := r.items[a].occupies(x)
				bo, _ := r.items[b].occupies(x)
				// Instance (a, c - q_a) before (b, c - q_b) in cycle c; the
				// wrap to cycle c+1.
				dist := q(a) - q(b)
				if j == len(ch)-1 {
					dist++
				}
				cons = append(cons, constraint{a: a, b: b, w: ao + ad - bo, dist: dist})
			}
		}
		// With shifts the constraints need not be monotone in the
		// interval: bisect between the engines' relaxation and the best so
		// far, and keep only a feasible result.
		if !longest(n, cons, ii, o2, r.items) {
			continue
		}
		lo, hi := ii0-1, ii
		for lo+1 < hi {
			mid := lo + (hi-lo)/2
			if longest(n, cons, mid, o2, r.items) {
				hi = mid
			} else {
				lo = mid
			}
		}
		if !longest(n, cons, hi, o2, r.items) {
			continue
		}
		var lat2 int64
		for k, it := range r.items {
			lat2 = max(lat2, o2[k]+it.dur)
		}
		if (r.trip-1)*hi+lat2 < (r.trip-1)*ii+lat {
			ii, lat, off = hi, lat2, slices.Clone(o2)
		}
	}
	return ii, off, lat
}

// constraintsBut is constraints without the chains of the resources skip
// reports (nil: none).
func (ls *loopSched) constraintsBut(r *loopRegion, order []int32, res [][]int32, skip func(int32) bool) []constraint {
	var cons []constraint
	for _, e := range r.edges {
		cons = append(cons, constraint{a: e.a, b: e.b, w: r.items[e.a].dur + r.items[e.b].pre, dist: e.dist})
	}
	// Each resource's items in the order, and the wrap to the next
	// iteration.
	first, last := map[int32]int32{}, map[int32]int32{}
	for _, k := range order {
		for _, x := range res[k] {
			if x < 0 || skip != nil && skip(x) {
				continue
			}
			if p, ok := last[x]; ok {
				po, pd := r.items[p].occupies(x)
				ko, _ := r.items[k].occupies(x)
				cons = append(cons, constraint{a: p, b: k, w: po + pd - ko})
			} else {
				first[x] = k
			}
			last[x] = k
		}
	}
	if r.trip >= 2 {
		for x, l := range last {
			lo, ld := r.items[l].occupies(x)
			fo, _ := r.items[first[x]].occupies(x)
			cons = append(cons, constraint{a: l, b: first[x], w: lo + ld - fo, dist: 1})
		}
	}
	if r.trip < 2 {
		// Carried edges never apply in one iteration.
		out := cons[:0]
		for _, c := range cons {
			if c.dist == 0 {
				out = append(out, c)
			}
		}
		cons = out
	}
	slices.SortFunc(cons, func(x, y constraint) int {
		if x.b != y.b {
			return int(x.b - y.b)
		}
		return int(x.a - y.a)
	})
	return cons
}

// longest returns the longest-path offsets (s >= 0) under cons at ii, or
// ok false for a positive cycle.
func longest(n int, cons []constraint, ii int64, off []int64, items []*loopItem) (ok bool) {
	for k := range off[:n] {
		off[k] = items[k].pre // no earlier than its readiness latency
	}
	for pass := 0; pass <= n; pass++ {
		changed := false
		for _, c := range cons {
			if v := off[c.a] + c.w - c.dist*ii; v > off[c.b] {
				off[c.b], changed = v, true
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// minII returns the smallest feasible initiation interval, the offsets and
// the latency of one iteration.
func (ls *loopSched) minII(r *loopRegion, cons []constraint, n int) (int64, []int64, int64) {
	off := make([]int64, n)
	lat := func() int64 {
		var l int64
		for k, it := range r.items {
			l = max(l, off[k]+it.dur)
		}
		return l
	}
	// The latency alone (no periodic constraint) is the upper end.
	var zero []constraint
	for _, c := range cons {
		if c.dist == 0 {
			zero = append(zero, c)
		}
	}
	longest(n, zero, 0, off, r.items)
	hi := lat()
	if r.trip < 2 || n == 0 {
		return hi, off, hi
	}
	// The lower end: each resource's work per iteration.
	lo := int64(1)
	busy := map[int32]int64{}
	for _, it := range r.items {
		for _, x := range it.res {
			if x >= 0 {
				_, d := it.occupies(x)
				busy[x] += d
			}
		}
	}
	for _, b := range busy {
		lo = max(lo, b)
	}
	lo = min(lo, hi)
	// Bisection work is bounded (about 40 rounds of n passes over the
	// constraints); beyond it the region keeps II = hi.
	if int64(n)*int64(len(cons)) > 4_000_000 {
		longest(n, cons, hi, off, r.items)
		return hi, off, lat()
	}
	if longest(n, cons, lo, off, r.items) {
		return lo, off, lat()
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if longest(n, cons, mid, off, r.items) {
			hi = mid
		} else {
			lo = mid
		}
	}
	longest(n, cons, hi, off, r.items)
	return hi, off, lat()
}

// loopBound computes region r's bound terms: the busy time per iteration
// of each resource, ResMII, RecMII and the span's bound (inner loops at
// their bounds).
func (ls *loopSched) loopBound(r *loopRegion) {
	var dmaSum, dmaMax int64
	for _, it := range r.items {
		switch {
		case it.sub != nil:
			for x, b := range it.sub.busy {
				r.busy[x] += it.sub.trip * b
			}
			dmaSum += it.sub.trip * it.sub.dmaWork
		case it.dma:
			r.busy[it.res[0]] += it.dur
			for _, x := range it.res[1:] {
				_, d := it.occupies(x) // its transfer on a DMA engine
				r.busy[x] += d
			}
			dmaSum += it.dur
			dmaMax = max(dmaMax, it.dur)
		default:
			for _, x := range it.res {
				if x >= 0 {
					r.busy[x] += it.dur
				}
			}
		}
	}
	r.dmaWork = dmaSum
	var res int64
	name := ""
	for x, b := range r.busy {
		if x < 0 {
			continue
		}
		// An engine, a port, or a DMA queue as the program binds it
		// (every instance of a DMA runs on its instruction's queue).
		if b > res {
			res, name = b, ls.resLabel(x)
		}
	}
	if dmaMax > res {
		res, name = dmaMax, "a DMA (one queue per DMA instruction)"
	}
	if q := ceilDiv(dmaSum, int64(ls.nq)); q > res {
		res, name = q, fmt.Sprintf("DMA time / %d queues", ls.nq)
	}
	r.rep.ResMII, r.rep.ResName = res, name
	// RecMII: the smallest II the dependencies alone allow, with inner
	// loops at their bounds.
	n := len(r.items)
	var cons []constraint
	for _, e := range r.edges {
		w := r.items[e.a].dur + r.items[e.b].pre
		if s := r.items[e.a].sub; s != nil {
			w = s.bound + r.items[e.b].pre
		}
		cons = append(cons, constraint{a: e.a, b: e.b, w: w, dist: e.dist})
	}
	slices.SortFunc(cons, func(x, y constraint) int { return int(x.b - y.b) })
	off := make([]int64, n)
	var cp int64
	if r.trip >= 2 {
		lo, hi := int64(0), max(r.lat, 1)
		if !longest(n, cons, lo, off, r.items) {
			for lo+1 < hi {
				mid := lo + (hi-lo)/2
				if longest(n, cons, mid, off, r.items) {
					hi = mid
				} else {
					lo = mid
				}
			}
			r.rep.RecMII = hi
		}
	}
	// One iteration's critical path (no carried edge).
	var zero []constraint
	for _, c := range cons {
		if c.dist == 0 {
			zero = append(zero, c)
		}
	}
	longest(n, zero, 0, off, r.items)
	for k, it := range r.items {
		w := it.dur
		if it.sub != nil {
			w = it.sub.bound
		}
		cp = max(cp, off[k]+w)
	}
	r.rep.IIBound = max(r.rep.ResMII, r.rep.RecMII)
	if r.trip < 2 {
		r.rep.IIBound = 0
	}
	// The span's bound: T times the busiest resource's work per iteration
	// and the critical path of the instances (report fills the latter from
	// the expansion); the critical path of one iteration at least.
	r.bound = max(cp, r.trip*res)
	if r.trip <= 0 {
		r.bound = 0
	}
	r.rep.SpanBound = r.bound
}

// occupancy returns when region r (a loop, all its iterations) holds
// each resource it uses, relative to its start.
func (r *loopRegion) occupancy() map[int32][2]int64 {
	first, last := map[int32]int64{}, map[int32]int64{}
	for k, it := range r.items {
		for _, x := range it.res {
			if x < 0 {
				continue
			}
			o, d := it.occupies(x)
			s := r.off[k] + o
			if f, ok := first[x]; !ok || s < f {
				first[x] = s
			}
			last[x] = max(last[x], s+d)
		}
	}
	out := map[int32][2]int64{}
	for x, f := range first {
		l := last[x] + max(r.trip-1, 0)*r.ii
		out[x] = [2]int64{f, l - f}
	}
	return out
}

// commit writes region r's schedule at absolute time base (iteration 0)
// and orders its blocks by start.
func (ls *loopSched) commit(r *loopRegion, base int64, tab *bir.Schedule) {
	f := ls.f
	for k, it := range r.items {
		s := base + r.off[k]
		if it.sub != nil {
			ls.commit(it.sub, s, tab)
			tab.Start[it.inst], tab.End[it.inst] = s, s+it.sub.span
			tab.SetPeriod(it.inst, it.sub.ii)
			tab.Queue[it.inst] = -1
			continue
		}
		tab.Start[it.inst], tab.End[it.inst] = s, s+it.dur
		tab.Queue[it.inst] = -1
		if it.dma {
			tab.Queue[it.inst] = int16(it.res[0] - firstQueue)
		}
	}
	// Each block: its items by offset, ties in the kept order.
	rank := make([]int32, len(r.items))
	for k, x := range r.order {
		rank[x] = int32(k)
	}
	for bi, b := range r.blocks {
		var list []int32
		for k, it := range r.items {
			if it.block == bi {
				list = append(list, int32(k))
			}
		}
		slices.SortStableFunc(list, func(x, y int32) int {
			if r.off[x] != r.off[y] {
				if r.off[x] < r.off[y] {
					return -1
				}
				return 1
			}
			return int(rank[x] - rank[y])
		})
		insts := make([]bir.InstID, len(list))
		for j, k := range list {
			insts[j] = r.items[k].inst
		}
		f.ReplaceBlockInsts(b, insts)
	}
}

// report builds the function's report: the makespan, the lower bound of
// report.go's terms on the function's instances, and the instances'
// execution in the scheduled stream orders (LoopsReport.Executed).
func (ls *loopSched) report(top *loopRegion, opt Options) (*Report, int64, error) {
	f := ls.f
	var span int64
	for k, it := range top.items {
		span = max(span, top.off[k]+it.dur)
	}
	r := &Report{Function: f.Name, Makespan: span, Unlimited: -1, PEClockGHz: ls.model.Clock(bir.EngPE), Queues: int(ls.nq), Order: top.rep.Order}
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.IsLoop() {
			r.Insts++
		}
		return true
	})
	x, err := bir.Expand(f.Module(), bir.ExpandOptions{Only: f.Name})
	if err != nil {
		return nil, 0, diag.Wrap(diag.LoopNotHandled, err)
	}
	fx := x.Func(f.Name)
	p, err := newProblem(fx.F, ls.model, ls.span)
	if err != nil {
		return nil, 0, err
	}
	if err := p.graphFromIR(); err != nil {
		return nil, 0, err
	}
	p.bound(r)
	// Each loop's instances: the longest chain among them alone (a bound
	// on the loop's span, whatever the rest of the function does).
	// One execution of an inner loop is the instances of one iteration of
	// its enclosing loops (their indices are a prefix of the instances'
	// iteration vectors): chains across executions do not count.
	in := make([]int64, len(p.insts))
	for _, lr := range ls.loops {
		var n, cp int64
		depth := len(f.Loopnest(lr.inst))
		same := func(a, b bir.InstID) bool {
			x, y := fx.Iteration(a), fx.Iteration(b)
			for d := 0; d < depth; d++ {
				if x[d] != y[d] {
					return false
				}
			}
			return true
		}
		for k, i := range p.insts {
			if !within(f, fx.Orig[i], lr.inst) {
				in[k] = -1
				continue
			}
			n++
			var t int64
			for _, q := range p.preds(int32(k)) {
				if in[q] >= 0 && same(p.insts[q], i) {
					t = max(t, in[q]+p.dur[q])
				}
			}
			in[k] = t
			cp = max(cp, t+p.dur[k])
		}
		lr.rep.CriticalRun = cp
		lr.rep.SpanBound = max(lr.rep.SpanBound, cp)
		lr.rep.Instances = n
		lr.rep.Insts = countBody(f, lr.inst)
	}
	return r, executed(p, fx.F), nil
}

// executed runs the instances of p (the expansion xf, scheduled) as the
// streams run them: each engine and DMA queue in ascending scheduled
// start, each instance at the latest of its predecessors' ends and its
// stream's previous end (a call waits for every stream and holds them);
// returns the last end. A longest path over the dependencies and the
// streams' chains, in Kahn's order.
func executed(p *problem, xf *bir.Function) int64 {
	n := len(p.insts)
	tab := xf.Sched
	byStart := make([]int32, n)
	for k := range byStart {
		byStart[k] = int32(k)
	}
	slices.SortStableFunc(byStart, func(a, b int32) int {
		sa, sb := tab.Start[p.insts[a]], tab.Start[p.insts[b]]
		if sa != sb {
			if sa < sb {
				return -1
			}
			return 1
		}
		ea, eb := tab.End[p.insts[a]], tab.End[p.insts[b]]
		if ea < eb {
			return -1
		}
		if ea > eb {
			return 1
		}
		return 0
	})
	// next[k]: the instance after k on its stream (-1: none); a call is
	// on every stream.
	const callStream = -2
	streamOf := func(k int32) int32 {
		i := p.insts[k]
		in := xf.Inst(i)
		switch {
		case in.Op.Info().Has(bir.FlagCall):
			return callStream
		case in.Op.Info().Has(bir.FlagDMA):
			return firstQueue + int32(tab.Queue[i])
		case in.Engine != bir.EngUnassigned && in.Engine < bir.NumEngines:
			return int32(in.Engine)
		}
		return -1
	}
	type edge struct {
		a, b int32
		w    int64 // start_b >= start_a + w
	}
	var extra []edge // stream-order edges
	last := map[int32]int32{}
	for _, k := range byStart {
		st := streamOf(k)
		switch {
		case st == callStream:
			for s, q := range last {
				extra = append(extra, edge{q, k, p.dur[q]})
				last[s] = k
			}
			last[callStream] = k
		case st >= 0:
			if q, ok := last[st]; ok {
				extra = append(extra, edge{q, k, p.dur[q]})
			}
			if q, ok := last[callStream]; ok {
				extra = append(extra, edge{q, k, p.dur[q]})
			}
			last[st] = k
		}
	}
	// The DMA engines: each engine's transfers (the end of a DMA's
	// interval less its transfer time) in scheduled order, one at a time.
	xferStart := func(k int32) int64 { return tab.End[p.insts[k]] - (p.dur[k] - p.preOf(k)) }
	perEngine := map[int][]int32{}
	for k := int32(0); int(k) < n; k++ {
		if m := p.maskOf(k); m != 0 && p.isDMA(k) {
			for e := 0; e < 64; e++ {
				if m&(1<<uint(e)) != 0 {
					perEngine[e] = append(perEngine[e], k)
				}
			}
		}
	}
	for _, ks := range perEngine {
		slices.SortStableFunc(ks, func(a, b int32) int { return cmp.Compare(xferStart(a), xferStart(b)) })
		for x := 1; x < len(ks); x++ {
			q, k := ks[x-1], ks[x]
			extra = append(extra, edge{q, k, p.dur[q] - p.preOf(k)})
		}
	}
	type out struct {
		b int32
		w int64
	}
	succ := make([][]out, n)
	indeg := make([]int32, n)
	// A compute instruction's readiness latency after its inputs (and
	// from the start), as the scheduler and the bound count it.
	pre := func(k int32) int64 {
		if p.isDMA(k) {
			return 0 // inside its duration
		}
		return p.preOf(k)
	}
	for k := int32(0); int(k) < n; k++ {
		for _, q := range p.preds(k) {
			succ[q] = append(succ[q], out{k, p.dur[q] + pre(k)})
			indeg[k]++
		}
	}
	for _, e := range extra {
		succ[e.a] = append(succ[e.a], out{e.b, e.w})
		indeg[e.b]++
	}
	start := make([]int64, n)
	for k := range start {
		start[k] = pre(int32(k))
	}
	queue := make([]int32, 0, n)
	for k := int32(0); int(k) < n; k++ {
		if indeg[k] == 0 {
			queue = append(queue, k)
		}
	}
	var span int64
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		span = max(span, start[k]+p.dur[k])
		for _, o := range succ[k] {
			start[o.b] = max(start[o.b], start[k]+o.w)
			if indeg[o.b]--; indeg[o.b] == 0 {
				queue = append(queue, o.b)
			}
		}
	}
	return span
}

// within reports whether instruction i is in loop l's body (at any depth).
func within(f *bir.Function, i, l bir.InstID) bool {
	for _, x := range f.Loopnest(i) {
		if x == l {
			return true
		}
	}
	return false
}

func countBody(f *bir.Function, l bir.InstID) int {
	n := 0
	for _, b := range f.Loop(l).Body {
		f.WalkBlock(b, func(i bir.InstID) bool {
			if !f.Inst(i).Op.IsLoop() {
				n++
			}
			return true
		})
	}
	return n
}

// String formats the loops' part of the report.
func (lr *LoopsReport) String() string {
	if lr == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  the streams as they run the schedule's order (no semaphore latency): %s\n", us(lr.Executed))
	for _, l := range lr.Loops {
		ind := strings.Repeat("  ", l.Depth)
		fmt.Fprintf(&b, "  %sloop %s: %d iterations of %d instructions (%d instances), body order %s\n", ind, l.Name, l.Trip, l.Insts, l.Instances, l.Order)
		if l.Trip >= 2 {
			fmt.Fprintf(&b, "  %s  per iteration %s (initiation interval), bound %s (resources %s: %s; recurrences %s)\n", ind, us(l.II), us(l.IIBound), us(l.ResMII), l.ResName, us(l.RecMII))
		}
		fmt.Fprintf(&b, "  %s  one iteration %s; %d iterations %s, bound %s (critical path of its instances %s)\n", ind, us(l.Latency), l.Trip, us(l.Span), us(l.SpanBound), us(l.CriticalRun))
		if l.OneBufferII > 0 && l.Span > 0 {
			fmt.Fprintf(&b, "  %s  with one buffer (its rotating buffers' carried distances set to 1): per iteration %s, %d iterations %s (the buffers buy x%.2f)\n", ind, us(l.OneBufferII), l.Trip, us(l.OneBufferSpan), float64(l.OneBufferSpan)/float64(l.Span))
		}
	}
	return b.String()
}
