// The exact solver's driver: a deterministic portfolio with restarts.
//
// Depth-first search for this problem has heavy-tailed run times: under one
// ordering an instance falls in a few hundred nodes, under another it takes
// millions (the MiniMalloc benchmark I took 1.4 million nodes under the
// only fixed ordering that solved it at all). The driver therefore works in
// rounds, each a list of attempts:
//
//   - the persistent configurations (hybrid/TWA, hybrid/TAW, point/TAW):
//     plain static preorders, a node limit that doubles every round
//     (MiniMalloc cycles its preorders the same way), and a failure memo
//     kept across rounds (a state proven dead stays dead). They are
//     complete: given time, one finds a placement or proves there is none.
//   - four restarts in point mode whose preorder (WAT or TWA) is jittered
//     by a seeded random amount (up to 5% of the item count), each with a
//     fresh memo and a node limit of 25 nodes per item times the Luby
//     sequence (1 1 2 1 1 2 4 ...). Short randomized runs are the classic
//     cure for heavy tails: on I about one run in ten succeeds within 20k
//     nodes, where no fixed ordering does within a million.
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

// persistentConfigs run every round with a doubling node limit and keep
// their failure memo from round to round: they are complete, so one of
// them eventually finds a placement or proves there is none.
var persistentConfigs = []searchConfig{
	{modeHybrid, "TWA"},
	{modeHybrid, "TAW"},
	{modePoint, "TAW"},
}

// restartConfigs run jittered (their preorder perturbed by a seeded random
// amount of up to restartJitter of the item count), several per round,
// each with a fresh memo and a node limit growing along the Luby sequence.
var restartConfigs = []searchConfig{
	{modePoint, "WAT"},
	{modePoint, "TWA"},
	{modePoint, "WAT"},
	{modePoint, "TWA"},
}

const restartJitter = 0.05

// restartNodesPerItem is the base node limit of a restart, per item.
const restartNodesPerItem = 25

// attempt is one search run of a round.
type attempt struct {
	cfg        searchConfig
	persistent int    // index into persistentConfigs, or -1
	seed       uint64 // jitter seed (restarts only)
	limit      int64
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
	memoSize := min(max(bits.Len(uint(n))+10, 14), 20)
	// The static orders, computed up front: the workers only read them.
	ranks := map[preorder][]int32{}
	for _, c := range append(slices.Clone(persistentConfigs), restartConfigs...) {
		if ranks[c.order] == nil {
			ranks[c.order] = computeRank(m, c.order)
		}
	}
	memos := make([]*failMemo, len(persistentConfigs))
	for k := range memos {
		memos[k] = newFailMemo(memoSize)
	}
	var done <-chan struct{}
	if budget.ctx != nil {
		done = budget.ctx.Done()
	}
	var total exactResult
	total.outcome = outcomeAborted
	growing := int64(4 * n)
	for round := 0; ; round++ {
		var attempts []attempt
		for k, cfg := range persistentConfigs {
			attempts = append(attempts, attempt{cfg: cfg, persistent: k, limit: growing})
		}
		for k, cfg := range restartConfigs {
			seed := uint64(round*len(restartConfigs)+k+1) + budget.seed*0x9E3779B97F4A7C15
			attempts = append(attempts, attempt{cfg: cfg, persistent: -1, seed: seed, limit: restartNodesPerItem * int64(n) * luby(round+1)})
		}
		if budget.nodeLimit > 0 {
			left := budget.nodeLimit - total.nodes
			for k := range attempts {
				attempts[k].limit = min(attempts[k].limit, max(left, 1))
			}
		}
		results, outOfTime := runRound(attempts, workers, func(a attempt) *pointSearch {
			if a.persistent >= 0 {
				return newPointSearch(m, ranks[a.cfg.order], a.cfg.mode, memos[a.persistent])
			}
			rank := jitterRank(ranks[a.cfg.order], a.seed, restartJitter)
			return newPointSearch(m, rank, a.cfg.mode, newFailMemo(min(memoSize, 16)))
		}, budget.deadline, done)
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
		if growing < math.MaxInt64/4 {
			growing *= 2
		}
	}
}

// runRound runs the attempts on up to workers goroutines. The first
// attempt (in order) with a definitive outcome wins; attempts after a
// winner are cancelled, attempts before it always run to their limit, so
// the winner does not depend on timing.
func runRound(attempts []attempt, workers int, start func(attempt) *pointSearch, deadline time.Time, done <-chan struct{}) ([]exactResult, bool) {
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
				e := start(attempts[k])
				e.limit = attempts[k].limit
				e.deadline, e.done, e.stop = deadline, done, &stops[k]
				out := e.run()
				results[k] = exactResult{outcome: out, offsets: e.solution, chosen: e.chosen, nodes: e.nodes}
				if e.stopped && !stops[k].Load() {
					outOfTime.Store(true)
				}
				if out == outcomeAborted {
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
