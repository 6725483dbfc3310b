// The exact solver's driver: a deterministic portfolio with restarts.
//
// Depth-first search for this problem has heavy-tailed run times: under one
// ordering an instance falls in a few hundred nodes, under another it takes
// millions. The driver therefore runs a portfolio of configurations, each a
// (branching mode, static preorder, time direction) triple, in rounds with a
// node limit that doubles every round (MiniMalloc cycles its preorders the
// same way). A configuration that finds a placement, or exhausts its tree
// (a proof of infeasibility: every configuration is complete), ends the run.
//
// Running time backwards (Lower' = -Upper, Upper' = -Lower) maps the
// instance onto a mirror image with the same solutions but a different
// search tree; it is a cheap source of diversity (one of the MiniMalloc
// benchmarks, I, falls quickly only that way round).
//
// Parallelism without losing determinism: the configurations of a round run
// on up to GOMAXPROCS goroutines; the answer is the definitive result of the
// lowest-numbered configuration of the first round that has one, and a
// configuration is cancelled only when a lower-numbered one has already
// succeeded. Which configuration wins, the nodes it spends and the placement
// it returns depend only on the input, never on timing (except when the
// deadline cuts the whole run short). Each configuration keeps its failure
// memo across rounds: a state proven dead stays dead.
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
	mode    searchMode
	order   preorder
	reverse bool
}

// defaultPortfolio is ordered by how often each configuration was the
// fastest on the MiniMalloc benchmarks (see the package tests).
var defaultPortfolio = []searchConfig{
	{modeHybrid, "TWA", false},
	{modeHybrid, "TAW", false},
	{modePoint, "WAT", true},
	{modePoint, "TAW", false},
	{modeHybrid, "WAT", false},
	{modePoint, "TWA", true},
}

// exactBudget bounds a run.
type exactBudget struct {
	deadline  time.Time
	ctx       context.Context
	nodeLimit int64 // total nodes over all configurations; 0 = unlimited
	workers   int   // goroutines; 0 = GOMAXPROCS capped at 2 per run
}

type exactResult struct {
	outcome searchOutcome
	offsets []int64 // per item, when found
	chosen  []int32 // per item, the choice used, when found
	nodes   int64
	config  int
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

// runPortfolio runs the exact search on the forward model (and, built on
// demand by mirror, the reversed one). Both models must list the same
// items in the same order.
func runPortfolio(forward *exactModel, mirror func() *exactModel, configs []searchConfig, budget exactBudget) exactResult {
	n := forward.numItems()
	if n == 0 {
		return exactResult{outcome: outcomeFound, config: -1}
	}
	workers := budget.workers
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 2)
	}
	workers = max(1, min(workers, len(configs)))
	var reversed *exactModel
	model := func(cfg searchConfig) *exactModel {
		if cfg.reverse {
			if reversed == nil {
				reversed = mirror()
			}
			return reversed
		}
		return forward
	}
	memoSize := min(max(bits.Len(uint(n))+10, 14), 20)
	type slot struct {
		m    *exactModel
		rank []int32
		memo *failMemo
	}
	slots := make([]slot, len(configs))
	for k, cfg := range configs {
		if cfg.reverse && mirror == nil {
			continue
		}
		m := model(cfg)
		slots[k] = slot{m: m, rank: computeRank(m, cfg.order), memo: newFailMemo(memoSize)}
	}
	var done <-chan struct{}
	if budget.ctx != nil {
		done = budget.ctx.Done()
	}
	var total exactResult
	total.outcome = outcomeAborted
	total.config = -1
	limit := int64(4 * n)
	for {
		results := make([]exactResult, len(configs))
		var winner atomic.Int64
		winner.Store(math.MaxInt64)
		stops := make([]atomic.Bool, len(configs))
		var wg sync.WaitGroup
		next := make(chan int)
		var outOfTime atomic.Bool
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					results[k].outcome = outcomeAborted
					if slots[k].m == nil || int64(k) > winner.Load() {
						continue
					}
					e := newPointSearch(slots[k].m, slots[k].rank, configs[k].mode, slots[k].memo)
					e.limit = limit
					e.deadline, e.done, e.stop = budget.deadline, done, &stops[k]
					out := e.run()
					results[k] = exactResult{outcome: out, offsets: e.solution, chosen: e.chosen, nodes: e.nodes, config: k}
					if e.stopped && !stops[k].Load() {
						outOfTime.Store(true)
					}
					if out != outcomeAborted {
						for {
							cur := winner.Load()
							if int64(k) >= cur || winner.CompareAndSwap(cur, int64(k)) {
								break
							}
						}
						for j := k + 1; j < len(configs); j++ {
							stops[j].Store(true)
						}
					}
				}
			}()
		}
		for k := range configs {
			next <- k
		}
		close(next)
		wg.Wait()
		for k := range results {
			total.nodes += results[k].nodes
		}
		if w := winner.Load(); w != math.MaxInt64 {
			r := results[w]
			r.nodes = total.nodes
			return r
		}
		if outOfTime.Load() || (budget.nodeLimit > 0 && total.nodes >= budget.nodeLimit) {
			return total
		}
		if budget.nodeLimit > 0 {
			limit = min(limit*2, budget.nodeLimit-total.nodes)
		} else {
			limit *= 2
		}
	}
}
