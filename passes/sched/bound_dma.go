package sched

import (
	"math/bits"
	"slices"
)

// The lower bound's pieces that follow the cost model's latencies and
// the DMA engines (arch/cost.go "The DMA model"; report.go's bound uses
// them).
//
// Chains. An instruction ends no earlier than its inputs are ready plus
// its readiness latency plus its duration (simulate.go endOf: the work
// starts at max(start, ready + latency)), and a DMA's duration includes
// its fixed latency; so a dependency chain lasts at least the sum of
// duration + readiness latency of its instructions. chainLevels gives the
// heads (the longest such chain before an instruction, a bound on its
// start) and bottom levels (from the instruction's inputs to the end,
// its own latency and duration included).
//
// DMA engines. A DMA holds each engine of its set for its transfer (its
// duration less its fixed latency), which starts no earlier than its head
// plus its fixed latency; each DMA engine is one machine, so the
// one-machine relaxation (machineBoundFn) applies to it with those
// heads, durations and the DMAs' tails. Engines whose DMAs are the same
// set (every engine, for 128-partition transfers) share one computation.

// chainLevels returns the heads and bottom levels of every position with
// the readiness latencies (see above).
func (p *problem) chainLevels() (top, bl []int64) {
	n := len(p.insts)
	top = make([]int64, n)
	bl = make([]int64, n)
	dl := func(k int32) int64 {
		if p.isDMA(k) {
			return p.dur[k] // the fixed latency is inside the duration
		}
		return p.dur[k] + p.preOf(k)
	}
	for k := range int32(n) {
		var m int64
		for _, q := range p.preds(k) {
			m = max(m, top[q]+dl(q))
		}
		top[k] = m
	}
	for k := int32(n) - 1; k >= 0; k-- {
		var m int64
		for _, s := range p.succs(k) {
			m = max(m, bl[s])
		}
		bl[k] = dl(k) + m
	}
	return top, bl
}

// machineBoundFn is the one-machine relaxation (report.go machineBound) of
// items on m identical machines, with each item's head (earliest start of
// its occupancy), duration (least occupancy) and tail (least time after
// its end).
func machineBoundFn(items []int32, head, dur, tail func(int32) int64, m int64) int64 {
	if len(items) == 0 {
		return 0
	}
	busy := func(w, c, dmin int64) int64 { return max(ceilDiv(w, m), ceilDiv(c, m)*dmin) }
	var work int64
	minH, minT, minD := head(items[0]), tail(items[0]), dur(items[0])
	for _, k := range items {
		work += dur(k)
		minH, minT, minD = min(minH, head(k)), min(minT, tail(k)), min(minD, dur(k))
	}
	best := minH + busy(work, int64(len(items)), minD) + minT
	if len(items) > MaxBoundSweep {
		return best
	}
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b int32) int { return cmpDesc(head(a), head(b)) })
	var w int64
	mt, md := int64(-1), int64(-1)
	for c, k := range sorted {
		w += dur(k)
		if tk := tail(k); mt < 0 || tk < mt {
			mt = tk
		}
		if dk := dur(k); md < 0 || dk < md {
			md = dk
		}
		best = max(best, head(k)+busy(w, int64(c+1), md)+mt)
	}
	slices.SortFunc(sorted, func(a, b int32) int { return cmpDesc(tail(a), tail(b)) })
	w = 0
	mh, md := int64(-1), int64(-1)
	for c, k := range sorted {
		w += dur(k)
		if hk := head(k); mh < 0 || hk < mh {
			mh = hk
		}
		if dk := dur(k); md < 0 || dk < md {
			md = dk
		}
		best = max(best, mh+busy(w, int64(c+1), md)+tail(k))
	}
	return best
}

// xferOf returns a DMA position's transfer time (its duration less its
// fixed latency).
func (p *problem) xferOf(k int32) int64 { return p.dur[k] - p.preOf(k) }

// dmaEngineBound returns the largest one-machine term of a DMA engine
// (see above), the engine's resource, and each DMA engine's transfer time
// (busy, by resource; the report's utilization); top and tails are the
// chain levels' heads and tails.
func (p *problem) dmaEngineBound(top []int64, tails func(int32) int64) (best int64, at int32, busy map[int32]int64) {
	busy = map[int32]int64{}
	if p.dmaM == nil {
		return 0, -1, busy
	}
	members := map[int32][]int32{}
	for k := range int32(len(p.insts)) {
		for m := p.maskOf(k); m != 0; m &= m - 1 {
			r := p.dmaEngineRes(k, bits.TrailingZeros64(m))
			members[r] = append(members[r], k)
			busy[r] += p.xferOf(k)
		}
	}
	head := func(k int32) int64 { return top[k] + p.preOf(k) }
	keys := make([]int32, 0, len(members))
	for r := range members {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	at = -1
	var prev []int32
	var prevTerm int64
	for _, r := range keys {
		items := members[r]
		t := prevTerm
		if !slices.Equal(items, prev) {
			t = machineBoundFn(items, head, p.xferOf, tails, 1)
			prev, prevTerm = items, t
		}
		if t > best {
			best, at = t, r
		}
	}
	return best, at, busy
}
