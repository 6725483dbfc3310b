package sched

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Report is the scheduler's account of one function's schedule (the
// `--report` block; design.md: "makespan vs max(critical path, busiest
// engine, DMA bytes / queues)").
//
//   - Makespan: the schedule's end, in ps (printed in us and in cycles of
//     the Tensor engine's clock).
//   - LowerBound: the largest of four terms, each a bound on any
//     schedule that respects the dependencies: CriticalPath (the longest
//     dependency chain, durations summed), BusiestBusy (the busiest engine,
//     DMA queue or shared port: its instructions run one at a time) and
//     DMATerm (the DMA time spread evenly over every queue, whatever the
//     queue assignment). The engine and DMA terms are the issue's "busiest
//     engine's busy time" and "DMA bytes over queues" strengthened by the
//     one-machine relaxation (a departure that only raises the bound, so
//     it stays valid): no instruction of a resource can start before the
//     shortest chain leading to one of them (its head) ends, and the
//     schedule cannot end before the shortest chain after one of them (its
//     tail) has run, so a resource needs head + busy + tail (the DMA pool:
//     head + the larger of DMA time / queues and ceil(DMAs / queues)
//     shortest DMAs + tail), for any subset of its instructions:
//     machineBound takes the best of the whole set and of the subsets of
//     the instructions with the largest heads or tails. The plain busy
//     times are reported beside them. The fourth, FeedTerm (feedBound,
//     feed_bound.go), joins an engine to the DMA queues that feed it (the
//     j-th of its instructions to start waits for the DMAs of j of them,
//     which take whole DMA durations on the queues) or that it feeds (the
//     mirror image). Binding names the term that gives the bound.
//   - ProgramOrder: the makespan of issuing in program order (the memory
//     planner's order, no reordering) on the same engines and queues.
//   - Unlimited: the makespan of the same scheduler with the dependencies
//     of unlimited memory (every location its own space): Makespan -
//     Unlimited is the reuse cost of the allocation's WAR/WAW edges; -1
//     when not computed.
//   - Util: each resource's busy time; Stalls: the largest idle gaps an
//     engine or queue spent waiting for a dependency, with the producer.
type Report struct {
	Function     string
	Insts        int
	Makespan     int64
	LowerBound   int64
	Binding      string
	CriticalPath int64
	BusiestBusy  int64 // the busiest resource's busy time
	Busiest      string
	EngineTerm   int64 // max over resources of head + busy + tail
	EngineName   string
	DMATerm      int64 // DMA head + DMA time / queues + DMA tail
	DMABusy      int64 // DMA time / queues
	// DMAEngineTerm is the busiest DMA engine's head + transfer time +
	// tail (the DMA engines as machines: bound_dma.go), DMAEngineName that
	// engine.
	DMAEngineTerm int64
	DMAEngineName string
	FeedTerm      int64  // the largest feed term of an engine or port (feedBound)
	FeedName      string // the engine and the side that gives it
	ProgramOrder  int64
	Unlimited     int64
	PEClockGHz    float64
	Queues        int
	Reordered     int    // instructions whose position in their block changed
	Order         string // the order kept: "DDG list", "incoming" or "ASAP list"
	Util          []Util
	Stalls        []Stall
}

// Util is one resource's busy time.
type Util struct {
	Resource string
	Busy     int64
}

// Stall is an idle gap of a resource before an instruction, caused by the
// dependency named.
type Stall struct {
	Wait     int64 // ps
	Waiter   string
	Inst     string
	On       string // the producer's resource
	Producer string
	Loc      string // the location they share, "" when none (reused bytes)
}

// MaxStalls is the number of stalls a report lists.
const MaxStalls = 5

// Gap returns (Makespan - LowerBound) / LowerBound in percent.
func (r *Report) Gap() float64 {
	if r.LowerBound <= 0 {
		return 0
	}
	return 100 * float64(r.Makespan-r.LowerBound) / float64(r.LowerBound)
}

func us(ps int64) string { return fmt.Sprintf("%.3f us", float64(ps)/1e6) }

// String prints the report block.
func (r *Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  instructions %d\n", r.Insts)
	if r.Order != "" {
		fmt.Fprintf(&b, "  linearized from the %s order\n", r.Order)
	}
	fmt.Fprintf(&b, "  makespan %s (%.0f Tensor-engine cycles at %.2f GHz)\n", us(r.Makespan), float64(r.Makespan)*r.PEClockGHz/1000, r.PEClockGHz)
	fmt.Fprintf(&b, "  lower bound %s, bound by the %s\n", us(r.LowerBound), r.Binding)
	fmt.Fprintf(&b, "    critical path %s; %s with head and tail %s (busiest: %s busy %s); DMA queues with head and tail %s (DMA time / %d queues %s)\n",
		us(r.CriticalPath), r.EngineName, us(r.EngineTerm), r.Busiest, us(r.BusiestBusy), us(r.DMATerm), r.Queues, us(r.DMABusy))
	if r.DMAEngineTerm > 0 {
		fmt.Fprintf(&b, "    %s with head and tail %s\n", r.DMAEngineName, us(r.DMAEngineTerm))
	}
	if r.FeedTerm > 0 {
		fmt.Fprintf(&b, "    %s %s\n", r.FeedName, us(r.FeedTerm))
	}
	fmt.Fprintf(&b, "  gap %.1f%%\n", r.Gap())
	if r.ProgramOrder > 0 {
		fmt.Fprintf(&b, "  program order %s (x%.2f the schedule)\n", us(r.ProgramOrder), float64(r.ProgramOrder)/float64(max(r.Makespan, 1)))
	}
	if len(r.Util) > 0 {
		b.WriteString("  utilization:")
		for k, u := range r.Util {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %.0f%%", u.Resource, 100*float64(u.Busy)/float64(max(r.Makespan, 1)))
		}
		b.WriteString("\n")
	}
	if len(r.Stalls) > 0 {
		b.WriteString("  largest stalls:\n")
		for _, s := range r.Stalls {
			on := ""
			if s.Loc != "" {
				on = " on " + s.Loc
			}
			fmt.Fprintf(&b, "    %s waited %s for %s%s (%s after %s)\n", s.Waiter, us(s.Wait), s.On, on, s.Inst, s.Producer)
		}
	}
	if r.Unlimited >= 0 {
		cost := 0.0
		if r.Unlimited > 0 {
			cost = 100 * float64(r.Makespan-r.Unlimited) / float64(r.Unlimited)
		}
		fmt.Fprintf(&b, "  reuse cost: makespan %s with the allocation's WAR/WAW edges, %s with unlimited memory (%+.1f%%)\n", us(r.Makespan), us(r.Unlimited), cost)
	}
	return b.String()
}

// realRes reports whether resource r is a timeline of the machine: not
// the Unassigned engine nor the DMA pseudo-engine (DMAs run on queues).
func (p *problem) realRes(r int32) bool {
	r %= p.stride
	return r != int32(bir.EngUnassigned) && r != int32(bir.EngDMA)
}

// resName names resource r of p.
func (p *problem) resName(r int32) string {
	if p.core != nil && r >= 0 {
		return fmt.Sprintf("core %d %s", r/p.stride, (&problem{portR: p.portR, stride: p.stride}).resName(r%p.stride))
	}
	switch {
	case r == p.portR[0] && r >= 0:
		return "SBUF port (Vector+GpSimd)"
	case r == p.portR[1] && r >= 0:
		return "PSUM port (Vector+Scalar)"
	case r >= p.firstDMAEngine && r < p.firstDMAEngine+p.nDMAEngines && p.nDMAEngines > 0:
		return DMAEngineName(int(r - p.firstDMAEngine))
	}
	return resName(r)
}

// isDMAEngine reports whether resource r (of any core) is a DMA engine.
func (p *problem) isDMAEngine(r int32) bool {
	if p.stride > 0 {
		r %= p.stride
	}
	return p.nDMAEngines > 0 && r >= p.firstDMAEngine && r < p.firstDMAEngine+p.nDMAEngines
}

// MaxBoundSweep bounds the instructions of one resource for which
// machineBound sweeps subsets (it sorts them); above it, the whole set's
// term alone.
const MaxBoundSweep = 2_000_000

// machineBound is the one-machine relaxation of a resource (m parallel
// identical machines for the DMA pool): the instructions of any subset S
// run one at a time (share m engines), none starts before the smallest
// head of S, and the schedule lasts the smallest tail of S after the last
// one ends, so the makespan is at least minHead(S) + work(S)/m +
// minTail(S); on m machines one of them runs ceil(|S|/m) instructions of
// S one after the other, so work(S)/m can be replaced by ceil(|S|/m)
// times the shortest duration of S when that is larger (16 equal DMAs
// and a 17th take two DMA durations, not 17/16). It takes the best of
// the whole set and of the subsets {head >= h} and {tail >= q} for every
// h and q (two sorted sweeps).
func (p *problem) machineBound(items []int32, top []int64, tail func(int32) int64, m int64) int64 {
	return machineBoundFn(items, func(k int32) int64 { return top[k] }, func(k int32) int64 { return p.dur[k] }, tail, m)
}

func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// bound fills r's lower bound and its terms (CriticalPath, BusiestBusy,
// EngineTerm, DMATerm, DMABusy, DMAEngineTerm, FeedTerm, LowerBound,
// Binding), over the chain levels with the readiness latencies
// (bound_dma.go). r.Queues must be set.
func (p *problem) bound(r *Report) {
	busy := make([]int64, p.nRes) // per resource: work bound to it before scheduling (the bound's terms)
	members := make([][]int32, p.nRes)
	var pool []int32 // DMAs (the queue pool)
	top, bl := p.chainLevels()
	tails := func(k int32) int64 {
		if p.isDMA(k) {
			return bl[k] - p.dur[k]
		}
		return bl[k] - p.dur[k] - p.preOf(k)
	}
	note := func(x int32, k int) {
		busy[x] += p.dur[k]
		members[x] = append(members[x], int32(k))
	}
	var dma int64
	for k := range p.insts {
		r.CriticalPath = max(r.CriticalPath, bl[k])
		switch x := p.res[k]; {
		case x >= 0 || x == resQueue:
			if x >= 0 {
				// A DMA whose queue was chosen when it issued is bound
				// to no queue beforehand: only the pool term counts it.
				note(x, k)
			}
			if x == resQueue || x >= firstQueue && x < firstQueue+int32(r.Queues) {
				dma += p.dur[k]
				pool = append(pool, int32(k))
			}
		case x == resAll:
			lo, hi := p.allRange(int32(k))
			for j := lo; j < hi; j++ {
				if p.realRes(j) {
					note(j, k)
				}
			}
		}
		if m := p.ports[k]; m != 0 {
			if m&portSBUF != 0 {
				note(p.portOf(int32(k), 0), k)
			}
			if m&portPSUM != 0 {
				note(p.portOf(int32(k), 1), k)
			}
		}
	}
	r.DMABusy = (dma + int64(r.Queues) - 1) / int64(r.Queues)
	r.DMATerm = p.machineBound(pool, top, tails, int64(r.Queues))
	// The feed term's owners (feed_bound.go), for functions up to
	// MaxBoundSweep instructions.
	var head, tail *feedSide
	feedHow := ""
	if len(pool) > 0 && len(p.insts) <= MaxBoundSweep {
		head, tail = &feedSide{}, &feedSide{}
		p.feedOwners(pool, true, func(k int32) int64 { return top[k] }, head)
		p.feedOwners(pool, false, tails, tail)
	}
	r.DMAEngineTerm = 0
	if t, at := p.dmaEngineBound(top, tails); at >= 0 {
		r.DMAEngineTerm, r.DMAEngineName = t, p.resName(at)
	}
	for x, b := range busy {
		if !p.realRes(int32(x)) {
			continue
		}
		if b > r.BusiestBusy {
			r.BusiestBusy, r.Busiest = b, p.resName(int32(x))
		}
		if b == 0 {
			continue
		}
		if t := p.machineBound(members[x], top, tails, 1); t > r.EngineTerm {
			r.EngineTerm, r.EngineName = t, p.resName(int32(x))
		}
		if head != nil && int32(x) < int32(bir.NumEngines) {
			if t, feeds := p.feedBound(int32(x), members[x], head, tail, top, tails, int64(r.Queues)); t > r.FeedTerm {
				r.FeedTerm, r.FeedName = t, p.resName(int32(x))+" fed by the DMA queues"
				feedHow = " (its j-th start after the DMAs of j of its instructions + busy + tail)"
				if feeds {
					r.FeedName = p.resName(int32(x)) + " feeding the DMA queues"
					feedHow = " (head + busy + the DMAs of its last i instructions + tail)"
				}
			}
		}
	}
	r.LowerBound, r.Binding = r.CriticalPath, "critical path"
	if r.EngineTerm > r.LowerBound {
		r.LowerBound, r.Binding = r.EngineTerm, r.EngineName+" (head + busy + tail)"
	}
	if r.DMATerm > r.LowerBound {
		r.LowerBound, r.Binding = r.DMATerm, "DMA queues (head + DMA time / queues + tail)"
	}
	if r.DMAEngineTerm > r.LowerBound {
		r.LowerBound, r.Binding = r.DMAEngineTerm, r.DMAEngineName+" (head + transfer time + tail)"
	}
	if r.FeedTerm > r.LowerBound {
		r.LowerBound, r.Binding = r.FeedTerm, r.FeedName+feedHow
	}
}

// report computes the report of timeline t (lin: its linearization).
func (p *problem) report(t *timeline, pr *priority, lin []int32) *Report {
	r := &Report{Function: p.f.Name, Insts: len(p.insts), Makespan: t.makespan, Unlimited: -1,
		PEClockGHz: p.model.Clock(bir.EngPE), Queues: int(max(p.model.DMAQueues, 1))}
	// The bound computes its own chain levels (with the readiness
	// latencies): the priority's bottom levels can go first.
	pr.bl = nil
	p.withCallBounds(func() { p.bound(r) })
	used := make([]int64, p.nRes) // per resource: work that ran on it (utilization)
	for k := range p.insts {
		if x := t.res[k]; x >= 0 {
			used[x] += t.end[k] - t.start[k]
		}
		for m := p.maskOf(int32(k)); m != 0; m &= m - 1 {
			used[p.dmaEngineRes(int32(k), bits.TrailingZeros64(m))] += p.xferOf(int32(k))
		}
	}
	var qBusy, qMax, eBusy, eMax int64
	eMaxName := ""
	for x := int32(0); x < p.nRes; x++ {
		if used[x] == 0 || !p.realRes(x) {
			continue
		}
		switch {
		case x >= firstQueue && x < firstQueue+int32(r.Queues):
			qBusy += used[x]
			qMax = max(qMax, used[x])
			continue
		case p.isDMAEngine(x):
			eBusy += used[x]
			if used[x] > eMax {
				eMax, eMaxName = used[x], p.resName(x)
			}
			continue
		}
		r.Util = append(r.Util, Util{Resource: p.resName(x), Busy: used[x]})
	}
	if qBusy > 0 {
		r.Util = append(r.Util, Util{Resource: fmt.Sprintf("DMA queues (mean of %d)", r.Queues), Busy: qBusy / int64(r.Queues)},
			Util{Resource: "busiest DMA queue", Busy: qMax})
	}
	if eBusy > 0 {
		r.Util = append(r.Util, Util{Resource: fmt.Sprintf("DMA engines (mean of %d)", p.nDMAEngines), Busy: eBusy / int64(p.nDMAEngines)},
			Util{Resource: "busiest DMA engine (" + eMaxName + ")", Busy: eMax})
	}
	r.Stalls = p.stalls(t, lin)
	return r
}

// stalls finds the largest idle gaps before an instruction on its
// resource that a dependency caused (lin: the linearized schedule).
func (p *problem) stalls(t *timeline, lin []int32) []Stall {
	type gap struct {
		wait int64
		k, b int32
	}
	var top []gap
	lastEnd := make([]int64, p.nRes)
	for _, k := range lin {
		x := t.res[k]
		if x < 0 {
			continue
		}
		g := t.start[k] - lastEnd[x]
		lastEnd[x] = t.end[k]
		if g <= 0 || t.bind[k] < 0 {
			continue
		}
		if len(top) < MaxStalls || g > top[len(top)-1].wait {
			top = append(top, gap{g, k, t.bind[k]})
			slices.SortStableFunc(top, func(a, b gap) int {
				switch {
				case a.wait > b.wait:
					return -1
				case a.wait < b.wait:
					return 1
				}
				return 0
			})
			if len(top) > MaxStalls {
				top = top[:MaxStalls]
			}
		}
	}
	out := make([]Stall, len(top))
	for j, g := range top {
		out[j] = Stall{Wait: g.wait, Waiter: p.resName(t.res[g.k]), Inst: p.f.InstName(p.insts[g.k]),
			On: p.resName(t.res[g.b]), Producer: p.f.InstName(p.insts[g.b]), Loc: p.sharedLoc(g.b, g.k)}
	}
	return out
}

// sharedLoc names a location producer b writes and consumer k uses, or
// any location both use, or "".
func (p *problem) sharedLoc(b, k int32) string {
	f := p.f
	ib, ik := p.insts[b], p.insts[k]
	nb := int(f.Inst(ib).NIns)
	any := ""
	for j, ob := range f.Operands(ib) {
		if ob.Kind != bir.OpdPhysAP {
			continue
		}
		for _, ok := range f.Operands(ik) {
			if ok.Kind == bir.OpdPhysAP && ok.Loc() == ob.Loc() {
				if j >= nb {
					return f.Loc(ob.Loc()).Name
				}
				if any == "" {
					any = f.Loc(ob.Loc()).Name
				}
			}
		}
	}
	return any
}
