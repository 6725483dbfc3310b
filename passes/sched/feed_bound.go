package sched

import "slices"

// The feed term of the lower bound (Report.FeedTerm): an engine joined to
// the DMA queues that feed it and to those it feeds.
//
// Why. The one-machine relaxation of an engine (machineBound) lets every
// instruction start at its own head, the longest chain before it with
// unlimited queues. With more DMAs than queues that is loose: on the
// default tensor_add (4 tiles of 8 load pieces, an add each, 4 store
// pieces; every DMA 12.0 us, an add 4.4 us, 16 queues) the Vector engine's
// head + busy + tail is 12.0 + 17.7 + 12.0 = 41.7 us, while the third add
// to start needs the 24 loads of three tiles, which take two rounds of the
// queues: it starts at 24.0 us at the earliest, and it and the add after
// it run before the last tile's stores: 24.0 + 8.9 + 12.0 = 44.9 us, the
// makespan the scheduler reaches.
//
// The relaxation. Give every DMA d of the pool at most one owner: an
// instruction own(d) of the engine R that d reaches by a path, and the
// sum after(d) of the durations of the instructions strictly inside that
// path (they run one after the other between d's end and own(d)'s
// start). Let k_1, ..., k_n be R's instructions in the order they start
// (any schedule), cnt(k) and work(k) the number and total duration of
// the DMAs k owns. For any j, the DMAs owned by k_1..k_j (at least C_j of
// them, the sum of the j smallest cnt, with at least W_j of work, the sum
// of the j smallest work) all end before k_j starts, minus the smallest
// after; they start no earlier than the smallest head h of an owned DMA,
// and on m queues some queue runs ceil(C_j/m) of them one after the
// other, each at least the shortest owned DMA d_min long, and the queues
// together run W_j. So
//
//	start(k_j) >= h + max(ceil(W_j/m), ceil(C_j/m) * d_min) + min after,
//
// and k_j..k_n then run one at a time (at least the n-j+1 smallest
// durations of R) before the smallest tail of R: the makespan is at least
// the sum. The mirror image bounds the end: own'(d) is an instruction of R
// that reaches d, after'(d) the durations inside that path; the last i
// instructions to start, k_{n-i+1}..k_n, end no earlier than
// k_{n-i+1}, which ends at or after R's smallest head plus its n-i+1
// smallest durations; the DMAs they own start after that (plus the
// smallest after') and need the same queue time, then the smallest tail
// of an owned DMA. feedBound takes the largest over j and i of both.
//
// Every step only forgets constraints (other DMAs on the queues, which
// instructions are the first j, the order within R), so the bound is
// valid whatever the ownership; the ownership is chosen greedily: a DMA
// goes to the instruction of R reached by the successor (predecessor)
// with the shortest delay, found by one pass over the positions in
// reverse (forward) program order, O(instructions + dependencies) per
// engine, plus sorting the engine's instructions. Above MaxBoundSweep
// instructions on the engine the term is not computed (0), as
// machineBound's sweeps are not.

// feedScratch holds feedBound's per-position tables, shared by the
// resources of one report.
type feedScratch struct {
	dma   []bool  // the position is a DMA of the queue pool
	in    []bool  // the position is an instruction of the resource at hand
	own   []int32 // the resource's instruction the position is owned by (-1: none)
	after []int64 // the durations strictly between the position and its owner
	cnt   []int32 // per instruction of the resource: the DMAs it owns
	work  []int64 // and their durations
}

// newFeedScratch allocates feedBound's tables; pool are the DMAs.
func (p *problem) newFeedScratch(pool []int32) *feedScratch {
	n := len(p.insts)
	fs := &feedScratch{dma: make([]bool, n), in: make([]bool, n), own: make([]int32, n), after: make([]int64, n), cnt: make([]int32, n), work: make([]int64, n)}
	for _, k := range pool {
		fs.dma[k] = true
	}
	return fs
}

// feedBound returns the feed term of the resource whose instructions are
// items (see the comment above), m the number of DMA queues, and whether
// the DMAs it feeds (the tail side) gave it; 0 when no DMA feeds or is
// fed by it, or above MaxBoundSweep instructions.
func (p *problem) feedBound(items []int32, fs *feedScratch, top []int64, tail func(int32) int64, m int64) (best int64, feeds bool) {
	if len(items) == 0 || len(items) > MaxBoundSweep {
		return 0, false
	}
	nR := len(items)
	for _, k := range items {
		fs.in[k] = true
	}
	defer func() {
		for _, k := range items {
			fs.in[k] = false
		}
	}()
	// prefix[i]: the sum of R's i smallest durations.
	durs := make([]int64, nR)
	minHead, minTail := top[items[0]], tail(items[0])
	for x, k := range items {
		durs[x] = p.dur[k]
		minHead, minTail = min(minHead, top[k]), min(minTail, tail(k))
	}
	slices.Sort(durs)
	prefix := make([]int64, nR+1)
	for x, d := range durs {
		prefix[x+1] = prefix[x] + d
	}
	cnts := make([]int32, nR)
	works := make([]int64, nR)

	// Head side: owners reached forward, positions in reverse order.
	n := int32(len(p.insts))
	for k := n - 1; k >= 0; k-- {
		fs.own[k], fs.after[k] = -1, 0
		if fs.in[k] {
			fs.own[k] = k
			continue
		}
		for _, s := range p.succs(k) {
			if fs.own[s] < 0 {
				continue
			}
			d := int64(0)
			if !fs.in[s] {
				d = p.dur[s] + fs.after[s]
			}
			if fs.own[k] < 0 || d < fs.after[k] {
				fs.own[k], fs.after[k] = fs.own[s], d
			}
		}
	}
	if g, ok := p.feedSums(items, fs, func(k int32) int64 { return top[k] }, cnts, works); ok {
		var c, w int64
		for j := 1; j <= nR; j++ {
			c += int64(cnts[j-1])
			w += works[j-1]
			if c == 0 {
				continue
			}
			release := g.head + max(ceilDiv(w, m), ceilDiv(c, m)*g.dmin) + g.after
			best = max(best, release+prefix[nR-j+1]+minTail)
		}
	}

	// Tail side: owners reached backward, positions in program order.
	for k := range n {
		fs.own[k], fs.after[k] = -1, 0
		if fs.in[k] {
			fs.own[k] = k
			continue
		}
		for _, q := range p.preds(k) {
			if fs.own[q] < 0 {
				continue
			}
			d := int64(0)
			if !fs.in[q] {
				d = fs.after[q] + p.dur[q]
			}
			if fs.own[k] < 0 || d < fs.after[k] {
				fs.own[k], fs.after[k] = fs.own[q], d
			}
		}
	}
	if g, ok := p.feedSums(items, fs, tail, cnts, works); ok {
		var c, w int64
		for i := 1; i <= nR; i++ {
			c += int64(cnts[i-1])
			w += works[i-1]
			if c == 0 {
				continue
			}
			end := minHead + prefix[nR-i+1] + g.after
			if v := end + max(ceilDiv(w, m), ceilDiv(c, m)*g.dmin) + g.head; v > best {
				best, feeds = v, true
			}
		}
	}
	return best, feeds
}

// feedGroup is what feedSums gathers over the owned DMAs: the smallest
// head (or tail), duration and delay to or from the owner.
type feedGroup struct {
	head, dmin, after int64
}

// feedSums counts each instruction of items' owned DMAs (fs.own) into
// cnts and works, sorted ascending, and returns the owned DMAs' smallest
// edge (their heads or tails), duration and delay; ok is false when
// no DMA is owned.
func (p *problem) feedSums(items []int32, fs *feedScratch, edge func(int32) int64, cnts []int32, works []int64) (feedGroup, bool) {
	var g feedGroup
	ok := false
	for k := range int32(len(p.insts)) {
		o := fs.own[k]
		if !fs.dma[k] || o < 0 {
			continue
		}
		fs.cnt[o]++
		fs.work[o] += p.dur[k]
		e := edge(k)
		if !ok {
			g, ok = feedGroup{head: e, dmin: p.dur[k], after: fs.after[k]}, true
			continue
		}
		g.head, g.dmin, g.after = min(g.head, e), min(g.dmin, p.dur[k]), min(g.after, fs.after[k])
	}
	for x, k := range items {
		cnts[x], works[x] = fs.cnt[k], fs.work[k]
		fs.cnt[k], fs.work[k] = 0, 0
	}
	slices.Sort(cnts)
	slices.Sort(works)
	return g, ok
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
