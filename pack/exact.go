// The exact solver's driver: a deterministic portfolio with restarts.
//
// Depth-first search for this problem has heavy-tailed run times: under one
// ordering an instance falls in a few hundred nodes, under another it takes
// millions (the MiniMalloc benchmark I took 1.4 million nodes under the
// only fixed ordering that solved it at all). The driver therefore works in
// rounds, each a list of attempts:
//
//   - three plain configurations (hybrid/TWA, hybrid/TAW, point/TAW):
//     static preorders, each one search that every round resumes where
//     the last round paused it (a resumableSearch: its stack is kept, so
//     a plain search granted its nodes slice by slice explores exactly
//     the tree of one uninterrupted run). They are complete: given time,
//     one finds a placement or proves there is none.
//   - four restarts in point mode whose preorder (WAT or TWA) is jittered
//     by a seeded random amount (up to 5% of the item count), a new seed
//     every round. Short randomized runs are the classic cure for heavy
//     tails: on I about one run in ten succeeds within 20k nodes, where no
//     fixed ordering does within a million.
//
// Every slot of round r is granted n x luby(r) nodes (n items; the Luby
// sequence 1 1 2 1 1 2 4 ...: one descent places every item once, so a
// unit is about one dive). Every slot keeps one failure memo for the whole
// run, which grows with the work done: a state proven dead (its subtree
// exhausted) has no completion at all, whatever order reached it, so the
// restarts of a slot share what their predecessors refuted. Before this
// scheme (doubling limits that restarted the plain searches from the root,
// fresh memos per restart) MiniMalloc I took 0.9M nodes and 3.5 s, and
// perturbed copies of it anything up to 147M nodes; now 76k nodes and
// 0.5 s, and at worst 0.5M nodes over the robustness harness's perturbations.
//
// An attempt that finds a placement, or exhausts its tree (a proof of
// infeasibility: every attempt is a complete search), ends the run.
//
// Parallelism without losing determinism: the attempts of a round run on
// up to two goroutines (GOMAXPROCS permitting); the answer is the
// definitive result of the first attempt, in list order, of the first
// round that has one. An attempt is cancelled only when an earlier one has
// already succeeded, and attempts before the winner always run to their
// limit, so which attempt wins and the placement it returns depend only on
// the input, never on timing; jitter seeds are fixed per round and slot.
// Only the deadline, the context or the total node budget can cut a run
// short, and then the answer says so.
//
// Preorder keys (each compared descending; ties by the next key, then by
// item index): 'T' the largest total demand of a section the item lives in,
// 'W' the width of its live range, 'A' its area (size x width x lanes),
// 'Z' its size. "WAT", "TAW", "TWA" are MiniMalloc's.
package pack

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

type preorder string

type searchConfig struct {
	mode  searchMode
	order preorder
}

// plainConfigs run with their static preorder, restartConfigs with their
// preorder jittered by a seeded random amount of up to restartJitter of the
// item count, a new seed every round. Every configuration is one slot of a
// round (see the file header).
var plainConfigs = []searchConfig{
	{modeHybrid, "TWA"},
	{modeHybrid, "TAW"},
	{modePoint, "TAW"},
}

var restartConfigs = []searchConfig{
	{modePoint, "WAT"},
	{modePoint, "TWA"},
	{modePoint, "WAT"},
	{modePoint, "TWA"},
}

const restartJitter = 0.05

// attempt is one search run of a round.
type attempt struct {
	cfg   searchConfig
	slot  int    // index into the round's slots (and their memos)
	seed  uint64 // jitter seed; 0 = the plain static preorder
	limit int64
}

// exactBudget bounds a run.
type exactBudget struct {
	deadline  time.Time
	ctx       context.Context
	nodeLimit int64  // total nodes over all attempts, checked between rounds (each attempt is capped at what is left); 0 = unlimited
	workers   int    // goroutines; 0 = GOMAXPROCS capped at 2
	seed      uint64 // varies the randomized choices (0: the default)
}

type exactResult struct {
	outcome searchOutcome
	offsets []int64 // per item, when found
	chosen  []int32 // per item, the choice used, when found
	nodes   int64
}

// luby returns the i-th term (1-based) of the Luby restart sequence
// 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ...
func luby(i int) int64 {
	for k := 1; ; k++ {
		if i == (1<<k)-1 {
			return 1 << (k - 1)
		}
		if i < (1<<k)-1 {
			return luby(i - (1 << (k - 1)) + 1)
		}
	}
}

// jitterRank perturbs a rank: item i sorts by rank[i] + u*n*amount with u
// uniform in [0, 1) drawn from the seed.
func jitterRank(rank []int32, seed uint64, amount float64) []int32 {
	n := len(rank)
	type keyed struct {
		key  float64
		item int32
	}
	ks := make([]keyed, n)
	x := mix64(seed + 0x2545F4914F6CDD1D)
	for i := range rank {
		x = mix64(x + uint64(i))
		u := float64(x>>11) / float64(1<<53)
		ks[i] = keyed{float64(rank[i]) + u*float64(n)*amount, int32(i)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return int(a.item - b.item)
	})
	out := make([]int32, n)
	for r, k := range ks {
		out[k.item] = int32(r)
	}
	return out
}

// computeRank orders the items by a preorder.
func computeRank(m *exactModel, order preorder) []int32 {
	n := m.numItems()
	demand := make([]int64, m.numSections)
	for it := 0; it < n; it++ {
		for s := m.s0[it]; s < m.s1[it]; s++ {
			demand[s] += m.size[it] * int64(m.laneCount[it])
		}
	}
	type keys struct {
		total, width, area, size int64
		item                     int32
	}
	ks := make([]keys, n)
	for it := 0; it < n; it++ {
		var total int64
		for s := m.s0[it]; s < m.s1[it]; s++ {
			total = max(total, demand[s])
		}
		ks[it] = keys{total, m.width[it], m.size[it] * int64(m.laneCount[it]) * m.width[it], m.size[it], int32(it)}
	}
	slices.SortFunc(ks, func(a, b keys) int {
		for _, k := range order {
			var x, y int64
			switch k {
			case 'T':
				x, y = a.total, b.total
			case 'W':
				x, y = a.width, b.width
			case 'A':
				x, y = a.area, b.area
			case 'Z':
				x, y = a.size, b.size
			}
			if x != y {
				return compareInt64(y, x)
			}
		}
		return int(a.item - b.item)
	})
	rank := make([]int32, n)
	for r, k := range ks {
		rank[k.item] = int32(r)
	}
	return rank
}

// runPortfolio runs the exact search on the model in rounds until an
// attempt finds a placement or proves there is none, or the budget ends.
func runPortfolio(m *exactModel, budget exactBudget) exactResult {
	n := m.numItems()
	if n == 0 {
		return exactResult{outcome: outcomeFound}
	}
	workers := budget.workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 2)
	}
	slots := append(slices.Clone(plainConfigs), restartConfigs...)
	// The static orders, computed up front: the workers only read them.
	ranks := map[preorder][]int32{}
	for _, c := range slots {
		if ranks[c.order] == nil {
			ranks[c.order] = computeRank(m, c.order)
		}
	}
	// One failure memo per slot, kept from round to round: a state proven
	// dead stays dead whatever the order that reaches it.
	memoLimit := min(max(bits.Len(uint(n))+10, 14), 20)
	memos := make([]*failMemo, len(slots))
	for k := range memos {
		memos[k] = newFailMemo(10, memoLimit)
	}
	// The plain configurations are one search each that every round
	// resumes where the last one paused.
	plain := make([]*resumableSearch, len(plainConfigs))
	for k, cfg := range plainConfigs {
		plain[k] = newResumableSearch(newPointSearch(m, ranks[cfg.order], cfg.mode, memos[k]))
	}
	defer func() {
		for _, r := range plain {
			r.close()
		}
	}()
	var done <-chan struct{}
	if budget.ctx != nil {
		done = budget.ctx.Done()
	}
	var total exactResult
	total.outcome = outcomeAborted
	unit := int64(n) // one descent places n items: the Luby unit
	for round := 0; ; round++ {
		attempts := make([]attempt, len(slots))
		for k, cfg := range slots {
			attempts[k] = attempt{cfg: cfg, slot: k, limit: unit * luby(round+1)}
			if k >= len(plainConfigs) {
				attempts[k].seed = uint64(round*len(restartConfigs)+k-len(plainConfigs)+1) + budget.seed*0x9E3779B97F4A7C15
			}
		}
		if budget.nodeLimit > 0 {
			left := budget.nodeLimit - total.nodes
			for k := range attempts {
				attempts[k].limit = min(attempts[k].limit, max(left, 1))
			}
		}
		results, outOfTime := runRound(attempts, workers, func(a attempt, stop *atomic.Bool) (exactResult, bool) {
			if a.slot < len(plain) {
				return plain[a.slot].resume(a.limit, budget.deadline, done, stop)
			}
			rank := jitterRank(ranks[a.cfg.order], a.seed, restartJitter)
			e := newPointSearch(m, rank, a.cfg.mode, memos[a.slot])
			e.limit = a.limit
			e.deadline, e.done, e.stop = budget.deadline, done, stop
			out := e.run()
			return exactResult{outcome: out, offsets: e.solution, chosen: e.chosen, nodes: e.nodes}, e.stopped && !stop.Load()
		})
		// Count the attempts up to the winner only: those after it were
		// cancelled at a timing-dependent point.
		for _, r := range results {
			total.nodes += r.nodes
			if r.outcome != outcomeAborted {
				r.nodes = total.nodes
				return r
			}
		}
		if outOfTime || (budget.nodeLimit > 0 && total.nodes >= budget.nodeLimit) {
			return total
		}
	}
}

// runRound runs the attempts on up to workers goroutines. The first
// attempt (in order) with a definitive outcome wins; attempts after a
// winner are cancelled (their stop flag is set), attempts before it always
// run to their limit, so the winner does not depend on timing. run reports
// an attempt's result and whether the deadline or the context stopped it.
func runRound(attempts []attempt, workers int, run func(attempt, *atomic.Bool) (exactResult, bool)) ([]exactResult, bool) {
	results := make([]exactResult, len(attempts))
	var winner atomic.Int64
	winner.Store(math.MaxInt64)
	stops := make([]atomic.Bool, len(attempts))
	var outOfTime atomic.Bool
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, min(workers, len(attempts))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				results[k].outcome = outcomeAborted
				if int64(k) > winner.Load() {
					continue
				}
				res, timedOut := run(attempts[k], &stops[k])
				results[k] = res
				if timedOut {
					outOfTime.Store(true)
				}
				if res.outcome == outcomeAborted {
					continue
				}
				for {
					cur := winner.Load()
					if int64(k) >= cur || winner.CompareAndSwap(cur, int64(k)) {
						break
					}
				}
				for j := k + 1; j < len(attempts); j++ {
					stops[j].Store(true)
				}
			}
		}()
	}
	for k := range attempts {
		next <- k
	}
	close(next)
	wg.Wait()
	if w := winner.Load(); w != math.MaxInt64 {
		// Attempts after the winner may have been cut short: drop them.
		for k := int(w) + 1; k < len(results); k++ {
			results[k].outcome = outcomeAborted
		}
	}
	return results, outOfTime.Load()
}

// resumableSearch runs one search on its own goroutine in slices: resume
// grants it more nodes and waits until it has used them (it then pauses at
// the node where it stopped, with its whole stack intact) or has a
// definitive outcome. A paused search continues exactly where it was, so a
// slice-by-slice search explores the same tree, in the same order, as one
// run with the sum of the budgets.
type resumableSearch struct {
	e       *pointSearch
	grant   chan bool          // true: go on (the limit was raised); false: give up
	report  chan searchOutcome // outcomeAborted when paused or stopped
	started bool
	over    bool // the search has returned (a definitive outcome, or stopped)
}

func newResumableSearch(e *pointSearch) *resumableSearch {
	r := &resumableSearch{e: e, grant: make(chan bool), report: make(chan searchOutcome)}
	e.pause = func() bool {
		r.report <- outcomeAborted
		return <-r.grant
	}
	return r
}

// resume lets the search use up to more nodes. The flags and the deadline
// are those of the caller's round; they are set while the search is paused,
// before the hand-over on the channel.
func (r *resumableSearch) resume(more int64, deadline time.Time, done <-chan struct{}, stop *atomic.Bool) (exactResult, bool) {
	e := r.e
	if r.over {
		return exactResult{outcome: outcomeAborted}, false
	}
	before := e.nodes
	e.limit = e.nodes + more
	e.deadline, e.done, e.stop = deadline, done, stop
	if !r.started {
		r.started = true
		go func() {
			out := e.run()
			r.over = true // read by the driver only after the report below
			r.report <- out
		}()
	} else {
		r.grant <- true
	}
	out := <-r.report
	return exactResult{outcome: out, offsets: e.solution, chosen: e.chosen, nodes: e.nodes - before}, e.stopped && !stop.Load()
}

// close ends a paused search (its goroutine unwinds and exits).
func (r *resumableSearch) close() {
	if r.started && !r.over {
		r.grant <- false
		<-r.report
	}
}
