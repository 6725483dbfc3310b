// Solve: the allocation solver's entry point.
//
// The pipeline, cheapest first:
//
//  1. Validate the input (malformed input is an *InputError, never a panic).
//  2. Immediate proofs of infeasibility: a fixed buffer outside the
//     capacity, two fixed buffers that collide, max-live above capacity.
//  3. Split into independent time components (sweep.go); each is solved on
//     its own and the whole fits iff every component fits.
//  4. Per component: max-live of the component above capacity is a proof;
//     then the heuristics (BestFit, and greedy-by-size when the conflict
//     graph is of moderate size); the first placement within capacity wins.
//  5. Otherwise the exact search (exact.go, search.go), within the deadline,
//     the context and the node budget. An exhausted search is a proof.
//
// Minimize mode looks for the lowest peak instead of fitting a given
// capacity: it starts from the best heuristic placement (an upper bound)
// and max-live (a lower bound); it probes the lower bound first (a
// placement at max-live, when the search finds one quickly, ends the run
// as optimal), then, when a capacity is given, takes fit mode's own
// placement at that capacity (so minimizing never ends above what a plain
// fit reaches), then bisects the capacity with the exact search (each
// probe a fit-or-prove run); a proven-infeasible probe raises the lower
// bound, a found placement lowers the upper bound to its peak, and a probe
// that runs out of budget moves on. Each component keeps the best fitting
// placement found. A positive Capacity still caps the answer.
//
// Determinism: every choice depends on the input only; the deadline and the
// context can only cut the work short (and then the answer says so).
package pack

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Options tune Solve. The zero value fits within Problem.Capacity with no
// deadline: the exact search then runs until it finds a placement or a
// proof, which on a hard instance can take very long; compilers should set
// Timeout (the CLI defaults to one minute) or NodeLimit.
type Options struct {
	// Timeout bounds the whole call (0 = none). Deadline, if set, too.
	Timeout  time.Duration
	Deadline time.Time
	// Context cancels the call (nil = none).
	Context context.Context
	// Minimize asks for the lowest peak rather than any fit.
	Minimize bool
	// NodeLimit bounds the exact search's nodes per component and probe
	// (0 = unlimited): a deterministic budget, unlike Timeout. It is
	// checked between rounds of parallel attempts, each attempt capped at
	// what is left, so a run can overshoot it by a round.
	NodeLimit int64
	// NoExact stops after the heuristics.
	NoExact bool
	// Workers is the number of goroutines of the exact search (0 = up to 2).
	Workers int

	// seed varies the randomized choices of the exact search (0: the
	// default). Unexported: the robustness harness uses it to measure how
	// much the search depends on luck.
	seed uint64
}

func (o Options) deadline(start time.Time) time.Time {
	d := o.Deadline
	if o.Timeout > 0 {
		t := start.Add(o.Timeout)
		if d.IsZero() || t.Before(d) {
			d = t
		}
	}
	return d
}

// Solve places the buffers of p. It returns an *InputError for malformed
// input; otherwise a Solution, and, when the buffers were not fitted, a
// *FitError (errors.Is ErrInfeasible when proven, ErrGaveUp otherwise).
func Solve(p Problem, opts Options) (*Solution, error) {
	start := time.Now()
	if err := validate(p); err != nil {
		return nil, err
	}
	s := &solver{p: p, opts: opts, deadline: opts.deadline(start)}
	sol := s.solve()
	sol.Elapsed = time.Since(start)
	if sol.Status == StatusFit {
		return sol, nil
	}
	return sol, &FitError{
		Proven:   sol.Status == StatusInfeasible,
		Capacity: p.Capacity,
		MaxLive:  sol.MaxLive,
		BestPeak: sol.Peak,
		Reason:   sol.Reason,
	}
}

type solver struct {
	p        Problem
	opts     Options
	deadline time.Time
	nodes    int64
}

// componentAnswer is the result of one component at one capacity.
type componentAnswer struct {
	status  Status
	offsets []int64 // per index of the component's free buffers
	peak    int64
	method  string
	reason  string
}

func (s *solver) solve() *Solution {
	p := s.p
	sol := &Solution{MaxLive: MaxLive(p.Buffers)}
	sol.LowerBound = sol.MaxLive
	offsets := make([]int64, len(p.Buffers))
	var live, fixed []int
	for i, b := range p.Buffers {
		switch {
		case b.Fixed != nil:
			offsets[i] = *b.Fixed
			if b.Size > 0 {
				fixed = append(fixed, i)
			}
		case b.Size > 0:
			live = append(live, i)
		}
	}
	limit := p.Capacity
	if s.opts.Minimize && limit <= 0 {
		limit = maxCoordinate // no cap: minimize only
	}
	if reason := fixedConflict(Problem{Buffers: p.Buffers, Capacity: limit}, fixed); reason != "" {
		sol.Status, sol.Reason, sol.Method = StatusInfeasible, reason, "trivial"
		return sol
	}
	if !s.opts.Minimize && sol.MaxLive > p.Capacity {
		// Still produce the best placement we can, for spilling decisions.
		s.bestEffort(sol, offsets, live, fixed)
		sol.Status = StatusInfeasible
		sol.Reason = fmt.Sprintf("max-live %d exceeds capacity %d", sol.MaxLive, p.Capacity)
		return sol
	}
	all := append(append([]int(nil), live...), fixed...)
	comps := splitComponents(p.Buffers, all)
	if s.opts.Minimize {
		return s.minimize(sol, offsets, comps, limit)
	}
	sol.Status = StatusFit
	methods := map[string]bool{}
	for _, comp := range comps {
		free, pinned := splitFixed(p.Buffers, comp)
		if len(free) == 0 {
			continue
		}
		ans := s.solveComponent(free, pinned, p.Capacity, true)
		s.applyAnswer(sol, offsets, free, ans)
		methods[ans.method] = true
	}
	sol.Method = methodName(methods)
	s.finish(sol, offsets)
	return sol
}

func methodName(methods map[string]bool) string {
	for _, m := range []string{"exact", "greedy-by-size", "best-fit", "trivial"} {
		if methods[m] {
			return m
		}
	}
	return "trivial"
}

func (s *solver) applyAnswer(sol *Solution, offsets []int64, free []int, ans componentAnswer) {
	for k, i := range free {
		offsets[i] = ans.offsets[k]
	}
	switch {
	case ans.status == StatusInfeasible && sol.Status != StatusInfeasible:
		sol.Status, sol.Reason = StatusInfeasible, ans.reason
	case ans.status == StatusUnknown && sol.Status == StatusFit:
		sol.Status, sol.Reason = StatusUnknown, ans.reason
	}
}

func (s *solver) finish(sol *Solution, offsets []int64) {
	sol.Offsets = offsets
	sol.Peak = Peak(s.p.Buffers, offsets)
	sol.Nodes = s.nodes
	sol.Optimal = sol.Peak == sol.LowerBound
}

// bestEffort fills offsets with the best heuristic placement (no capacity).
func (s *solver) bestEffort(sol *Solution, offsets []int64, live, fixed []int) {
	all := append(append([]int(nil), live...), fixed...)
	for _, comp := range splitComponents(s.p.Buffers, all) {
		free, pinned := splitFixed(s.p.Buffers, comp)
		if len(free) == 0 {
			continue
		}
		ans := s.heuristics(free, pinned, 0)
		for k, i := range free {
			offsets[i] = ans.offsets[k]
		}
	}
	s.finish(sol, offsets)
	sol.Method = "best-fit"
}

// splitFixed separates a component's pinned buffers from the free ones and
// puts the free ones in canonical order (see canonicalOrder).
func splitFixed(buffers []Buffer, comp []int) (free, pinned []int) {
	for _, i := range comp {
		if buffers[i].Fixed != nil {
			pinned = append(pinned, i)
		} else {
			free = append(free, i)
		}
	}
	canonicalOrder(buffers, free)
	return free, pinned
}

// canonicalOrder sorts buffer indices by (Lower, Upper, Size, Align), then
// by index. The heuristics and the exact search number their items in this
// order, and break their ties by item number, so the search does not depend
// on the order of the rows of the input: the same buffers listed in another
// order get the same search (buffers equal in all four keys are
// interchangeable, so their relative order cannot matter).
func canonicalOrder(buffers []Buffer, idx []int) {
	slices.SortFunc(idx, func(a, b int) int {
		x, y := buffers[a], buffers[b]
		for _, c := range [...]int{
			compareInt64(x.Lower, y.Lower), compareInt64(x.Upper, y.Upper),
			compareInt64(x.Size, y.Size), compareInt64(alignOf(x), alignOf(y)),
		} {
			if c != 0 {
				return c
			}
		}
		return a - b
	})
}

// fixedConflict reports why the fixed buffers alone cannot be placed.
func fixedConflict(p Problem, fixed []int) string {
	sub := Problem{Capacity: p.Capacity}
	sub.Buffers = make([]Buffer, len(fixed))
	offs := make([]int64, len(fixed))
	for k, i := range fixed {
		b := p.Buffers[i]
		if *b.Fixed+b.Size > p.Capacity {
			return fmt.Sprintf("fixed buffer %d (id %d) at [%d, %d) exceeds capacity %d", i, b.ID, *b.Fixed, *b.Fixed+b.Size, p.Capacity)
		}
		sub.Buffers[k], offs[k] = b, *b.Fixed
	}
	if err := Verify(sub, offs); err != nil {
		return "fixed buffers collide: " + err.Error()
	}
	return ""
}

// heuristics runs the cheap placers on one component and returns the
// lowest-peak placement (status not set). BestFit (n log n) runs first;
// greedy-by-size (n x conflicts) only when BestFit's peak exceeds enough.
func (s *solver) heuristics(free, pinned []int, enough int64) componentAnswer {
	bufs := s.p.Buffers
	sub := Problem{Buffers: make([]Buffer, 0, len(free)+len(pinned))}
	for _, i := range free {
		sub.Buffers = append(sub.Buffers, bufs[i])
	}
	for _, i := range pinned {
		sub.Buffers = append(sub.Buffers, bufs[i])
	}
	offs, _, _ := BestFit(sub)
	best := componentAnswer{offsets: offs[:len(free)], method: "best-fit"}
	best.peak = Peak(sub.Buffers[:len(free)], best.offsets)
	if best.peak <= enough {
		return best
	}
	if modelFits(bufs, append(append([]int(nil), free...), pinned...)) {
		m := buildModel1D(bufs, free, pinned, maxCoordinate)
		goffs, _, gpeak := greedyBySize(m)
		if gpeak < best.peak {
			best = componentAnswer{offsets: goffs, peak: gpeak, method: "greedy-by-size"}
		}
	}
	return best
}

// solveComponent fits one component into capacity.
func (s *solver) solveComponent(free, pinned []int, capacity int64, heuristicsFirst bool) componentAnswer {
	bufs := s.p.Buffers
	all := append(append([]int(nil), free...), pinned...)
	cml := componentMaxLive(bufs, all)
	var best componentAnswer
	if heuristicsFirst {
		best = s.heuristics(free, pinned, capacity)
		if best.peak <= capacity {
			best.status = StatusFit
			return best
		}
	}
	if cml > capacity {
		best.status = StatusInfeasible
		best.reason = fmt.Sprintf("max-live %d exceeds capacity %d", cml, capacity)
		return best
	}
	if s.opts.NoExact {
		best.status = StatusUnknown
		best.reason = "heuristics exceed capacity and the exact search is disabled"
		return best
	}
	if !modelFits(bufs, all) {
		best.status = StatusUnknown
		best.reason = fmt.Sprintf("component of %d buffers too large for the exact search", len(free))
		return best
	}
	forward := buildModel1D(bufs, free, pinned, capacity)
	res := runPortfolio(forward, exactBudget{
		deadline:  s.deadline,
		ctx:       s.opts.Context,
		nodeLimit: s.opts.NodeLimit,
		workers:   s.opts.Workers,
		seed:      s.opts.seed,
	})
	s.nodes += res.nodes
	switch res.outcome {
	case outcomeFound:
		return componentAnswer{status: StatusFit, offsets: slices.Clone(res.offsets), peak: peakOf(forward, res.offsets), method: "exact"}
	case outcomeExhausted:
		best.status = StatusInfeasible
		best.reason = fmt.Sprintf("exact search exhausted: %d buffers cannot share capacity %d", len(free), capacity)
	default:
		best.status = StatusUnknown
		best.reason = fmt.Sprintf("exact search gave up after %d nodes", res.nodes)
	}
	return best
}

func peakOf(m *exactModel, offsets []int64) int64 {
	var peak int64
	for it, off := range offsets {
		peak = max(peak, off+m.size[it])
	}
	return peak
}

// minimize looks for the lowest peak: from the best heuristic placement
// per component, it probes the lower bound first, then (with a capacity)
// takes fit mode's own placement, then bisects between the bounds; each
// component keeps its best fitting placement, so the answer is never above
// the heuristics' peak nor, when a capacity is given, above fit mode's.
func (s *solver) minimize(sol *Solution, offsets []int64, comps [][]int, limit int64) *Solution {
	type compState struct {
		free, pinned []int
		best         componentAnswer
	}
	states := make([]compState, 0, len(comps))
	var hi int64
	for _, comp := range comps {
		free, pinned := splitFixed(s.p.Buffers, comp)
		if len(free) == 0 {
			continue
		}
		cs := compState{free: free, pinned: pinned, best: s.heuristics(free, pinned, 0)}
		states = append(states, cs)
	}
	peakWith := func() int64 {
		for _, cs := range states {
			for k, i := range cs.free {
				offsets[i] = cs.best.offsets[k]
			}
		}
		return Peak(s.p.Buffers, offsets)
	}
	hi = peakWith()
	lo := sol.LowerBound
	for _, i := range s.fixedIndices() {
		lo = max(lo, *s.p.Buffers[i].Fixed+s.p.Buffers[i].Size)
	}
	proven := lo // capacities below this are proven infeasible
	// Each probe gets a bounded share of the work so that the bisection
	// makes progress; a probe that runs out is treated as "too tight" for
	// the search (lo moves up) but proves nothing (proven stays).
	probe := *s
	if probe.opts.NodeLimit <= 0 {
		probe.opts.NodeLimit = minimizeProbeNodes
	}
	// attempt fits every component whose best placement is above capacity
	// into it (with the heuristics first when heuristicsFirst), keeping a
	// placement only when all fit: the best fitting solution found so far
	// is never replaced by a worse one.
	attempt := func(by *solver, capacity int64, heuristicsFirst bool) (fits, infeasible bool) {
		answers := make([]componentAnswer, len(states))
		for k, cs := range states {
			if cs.best.peak <= capacity {
				answers[k] = cs.best
				continue
			}
			ans := by.solveComponent(cs.free, cs.pinned, capacity, heuristicsFirst)
			answers[k] = ans
			if ans.status != StatusFit {
				return false, ans.status == StatusInfeasible
			}
		}
		for k := range states {
			if answers[k].offsets != nil && answers[k].peak <= capacity && answers[k].peak < states[k].best.peak {
				states[k].best = answers[k]
			}
		}
		hi = peakWith()
		return true, false
	}
	// 1. The lower bound first: on many instances a placement at max-live
	// exists and the exact search finds it at once (MiniMalloc's K: 30 ms),
	// while a bisection that starts halfway never gets there.
	first := probe
	if lo < hi && !s.opts.NoExact && !s.outOfTime() {
		if !s.deadline.IsZero() {
			// A quarter of the time left at most, so that fit mode's
			// placement (step 2) always gets its turn.
			first.deadline = time.Now().Add(time.Until(s.deadline) / 4)
		}
		if _, infeasible := attempt(&first, lo, false); infeasible {
			lo++
			proven = lo
		}
	}
	// 2. Fit mode's own answer when a capacity is given, so that minimizing
	// never ends above the peak a plain fit reaches.
	if lo < hi && limit < maxCoordinate && !s.outOfTime() {
		attempt(s, limit, true)
	}
	// 3. Bisection between the bounds.
	for lo < hi && !s.opts.NoExact && !s.outOfTime() {
		mid := lo + (hi-lo)/2
		switch fits, infeasible := attempt(&probe, mid, false); {
		case fits:
		case infeasible:
			lo = mid + 1
			proven = max(proven, lo) // no placement with peak <= mid
		default:
			lo = mid + 1
		}
	}
	s.nodes += probe.nodes + first.nodes
	peakWith()
	methods := map[string]bool{}
	for _, cs := range states {
		methods[cs.best.method] = true
	}
	sol.Method = methodName(methods)
	sol.LowerBound = max(sol.LowerBound, min(proven, hi))
	s.finish(sol, offsets)
	switch {
	case sol.Peak > limit:
		sol.Status = StatusInfeasible
		sol.Reason = fmt.Sprintf("lowest peak found %d exceeds capacity %d", sol.Peak, limit)
		if sol.LowerBound <= limit {
			sol.Status = StatusUnknown
		}
	default:
		sol.Status = StatusFit
	}
	return sol
}

// minimizeProbeNodes bounds each exact probe of the minimize bisection
// when Options.NodeLimit does not.
const minimizeProbeNodes = 2_000_000

func (s *solver) outOfTime() bool {
	if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		return true
	}
	return s.opts.Context != nil && s.opts.Context.Err() != nil
}

func (s *solver) fixedIndices() []int {
	var out []int
	for i, b := range s.p.Buffers {
		if b.Fixed != nil && b.Size > 0 {
			out = append(out, i)
		}
	}
	return out
}
