package sched

import (
	"math/bits"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

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
// The DMA engines add a third way to count the owned DMAs' time: their
// transfers (each at least its fixed latency after its head, so after
// h + the smallest fixed latency) keep the E DMA engines busy for their
// engine time (transfer time x engines used), which E engines take at
// least ceil(sum / E) to do; the queue time above is replaced by the
// larger of the two (feedQueueTime). The mirror image is the same.
//
// Every step only forgets constraints (other DMAs on the queues, which
// instructions are the first j, the order within R), so the bound is
// valid whatever the ownership. The ownership is chosen greedily and
// cheaply: a DMA goes, for each engine, to the instruction of that engine
// among its successors (delay 0) or their successors (delay: the
// successor's duration) with the shortest delay, at most feedVisits
// visits per DMA; the mirror image looks at predecessors. An instruction
// belongs to one engine (calls, which occupy every engine, and the
// NC-v2 shared ports are left out: an instruction of two resources could
// own a DMA twice), so one count per instruction serves every engine:
// one pass over the DMAs per side, then each engine's counts sorted.
// Above MaxBoundSweep instructions in the function the term is not
// computed (0), as machineBound's sweeps are not above that many on one
// resource: its tables are 12 bytes per instruction.

// feedVisits bounds the successors (predecessors) feedOwners looks at
// per DMA.
const feedVisits = 16

// feedSide is one side of the feed term for every engine: per
// instruction the DMAs it owns, per engine the smallest edge (head or
// tail), duration and delay of its owned DMAs.
type feedSide struct {
	cnt   []int32
	work  []int64
	ework []int64 // the owned DMAs' engine time (transfer x engines)
	eng   [bir.NumEngines]feedGroup
}

// feedGroup is what the owned DMAs of one engine give: the smallest head
// (tail on the tail side), duration and delay to (from) the owner; ok
// when the engine owns a DMA.
type feedGroup struct {
	head, dmin, after int64
	fmin              int64 // the smallest fixed latency of an owned DMA
	ok                bool
}

// feedOwners assigns every DMA of pool to at most one instruction per
// engine (see above) and counts them: forward through successors (the
// head side, edge: the DMA's head) or backward through predecessors (the
// tail side, edge: the DMA's tail).
func (p *problem) feedOwners(pool []int32, forward bool, edge func(int32) int64, side *feedSide) {
	n := len(p.insts)
	if side.cnt == nil {
		side.cnt, side.work, side.ework = make([]int32, n), make([]int64, n), make([]int64, n)
	} else {
		clear(side.cnt)
		clear(side.work)
		clear(side.ework)
	}
	side.eng = [bir.NumEngines]feedGroup{}
	next := p.succs
	if !forward {
		next = p.preds
	}
	var own [bir.NumEngines]int32
	var delay [bir.NumEngines]int64
	note := func(k int32, d int64) {
		r := p.res[k]
		if r < 0 || r >= int32(bir.NumEngines) || !p.realRes(r) {
			return
		}
		if own[r] < 0 || d < delay[r] {
			own[r], delay[r] = k, d
		}
	}
	for _, dk := range pool {
		for r := range own {
			own[r] = -1
		}
		visits := 0
		for _, s := range next(dk) {
			if visits++; visits > feedVisits {
				break
			}
			note(s, 0)
			for _, s2 := range next(s) {
				if visits++; visits > feedVisits {
					break
				}
				note(s2, p.chainDur(s))
			}
		}
		e := edge(dk)
		ew := p.xferOf(dk) * int64(bits.OnesCount64(p.maskOf(dk)))
		for r, o := range own {
			if o < 0 {
				continue
			}
			side.cnt[o]++
			side.work[o] += p.dur[dk]
			side.ework[o] += ew
			g := &side.eng[r]
			if !g.ok {
				*g = feedGroup{head: e, dmin: p.dur[dk], after: delay[r], fmin: p.preOf(dk), ok: true}
				continue
			}
			g.head, g.dmin, g.after, g.fmin = min(g.head, e), min(g.dmin, p.dur[dk]), min(g.after, delay[r]), min(g.fmin, p.preOf(dk))
		}
	}
}

// feedBound returns the feed term of engine eng, whose instructions are
// items, from the two sides' counts (see the comment above), m the number
// of DMA queues, and whether the DMAs it feeds (the tail side) gave it;
// 0 when no DMA feeds or is fed by it.
func (p *problem) feedBound(eng int32, items []int32, head, tail *feedSide, top []int64, tails func(int32) int64, m int64) (best int64, feeds bool) {
	nR := len(items)
	if nR == 0 || !head.eng[eng].ok && !tail.eng[eng].ok {
		return 0, false
	}
	// prefix[i]: the sum of R's i smallest durations.
	prefix := make([]int64, nR+1)
	minHead, minTail := top[items[0]], tails(items[0])
	for x, k := range items {
		prefix[x+1] = p.dur[k]
		minHead, minTail = min(minHead, top[k]), min(minTail, tails(k))
	}
	slices.Sort(prefix[1:])
	for x := range nR {
		prefix[x+1] += prefix[x]
	}
	cnts := make([]int32, nR)
	works := make([]int64, nR)
	eworks := make([]int64, nR)
	ne := int64(max(p.nDMAEngines, 1))
	// sweep returns the largest f(j, q) over j = 1..nR, q the queue or
	// engine time of the DMAs owned by j instructions of R (C_j, W_j and
	// the engine work: the j smallest counts, works and engine works of
	// the side).
	sweep := func(side *feedSide, g feedGroup, f func(j int, q int64) int64) int64 {
		for x, k := range items {
			cnts[x], works[x], eworks[x] = side.cnt[k], side.work[k], side.ework[k]
		}
		slices.Sort(cnts)
		slices.Sort(works)
		slices.Sort(eworks)
		var c, w, ew, b int64
		for j := 1; j <= nR; j++ {
			c += int64(cnts[j-1])
			w += works[j-1]
			ew += eworks[j-1]
			if c > 0 {
				q := max(ceilDiv(w, m), ceilDiv(c, m)*g.dmin)
				if ew > 0 {
					q = max(q, g.fmin+ceilDiv(ew, ne))
				}
				b = max(b, f(j, q))
			}
		}
		return b
	}
	if g := head.eng[eng]; g.ok {
		// k_j starts after the DMAs of k_1..k_j; k_j..k_n and a tail follow.
		best = sweep(head, g, func(j int, q int64) int64 { return g.head + q + g.after + prefix[nR-j+1] + minTail })
	}
	if g := tail.eng[eng]; g.ok {
		// k_{n-i+1} ends after k_1..k_{n-i+1}; the DMAs of the last i follow.
		if v := sweep(tail, g, func(i int, q int64) int64 { return minHead + prefix[nR-i+1] + g.after + q + g.head }); v > best {
			best, feeds = v, true
		}
	}
	return best, feeds
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// chainDur is position k's least contribution to a dependency chain: its
// duration and its readiness latency (a DMA's fixed latency is inside its
// duration).
func (p *problem) chainDur(k int32) int64 {
	if p.isDMA(k) {
		return p.dur[k]
	}
	return p.dur[k] + p.preOf(k)
}
