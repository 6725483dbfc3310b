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
// (see above) and the engine's resource; top and tails are the chain
// levels' heads and tails. The DMAs are grouped by their engine set (a
// few distinct sets), and engines whose DMAs are the same groups share
// one computation, so the memory is one list of the DMAs per distinct
// group of engines, not one per engine; above MaxBoundSweep instructions
// each engine gets the whole set's term from running sums alone.
func (p *problem) dmaEngineBound(top []int64, tails func(int32) int64) (best int64, at int32) {
	at = -1
	if p.dmaM == nil {
		return 0, -1
	}
	head := func(k int32) int64 { return top[k] + p.preOf(k) }
	n := int32(len(p.insts))
	if int(n) > MaxBoundSweep {
		// Running sums per engine (of each core): work, smallest head,
		// tail and duration.
		type agg struct {
			work, h, t, d int64
			ok            bool
		}
		aggs := map[int32]*agg{}
		for k := range n {
			for m := p.maskOf(k); m != 0; m &= m - 1 {
				r := p.dmaEngineRes(k, bits.TrailingZeros64(m))
				a := aggs[r]
				if a == nil {
					a = &agg{}
					aggs[r] = a
				}
				x, h, t := p.xferOf(k), head(k), tails(k)
				if !a.ok {
					*a = agg{x, h, t, x, true}
					continue
				}
				a.work += x
				a.h, a.t, a.d = min(a.h, h), min(a.t, t), min(a.d, x)
			}
		}
		for r, a := range aggs {
			if v := a.h + a.work + a.t; v > best || v == best && r < at {
				best, at = v, r
			}
		}
		return best, at
	}
	// Group the DMAs by (core, engine set).
	type groupKey struct {
		core uint8
		mask uint16
	}
	groups := map[groupKey][]int32{}
	var keys []groupKey
	for k := range n {
		if p.dmaM[k] == 0 {
			continue
		}
		g := groupKey{mask: p.dmaM[k]}
		if p.core != nil {
			g.core = p.core[k]
		}
		if _, ok := groups[g]; !ok {
			keys = append(keys, g)
		}
		groups[g] = append(groups[g], k)
	}
	// Each engine's signature: the groups that use it.
	sigs := map[string][]int32{} // signature -> engine resources
	var order []string
	for r := int32(0); r < p.nRes; r++ {
		if !p.isDMAEngine(r) {
			continue
		}
		var sig []byte
		for x, g := range keys {
			e := int(r%p.stride - p.firstDMAEngine)
			if p.core != nil && int32(g.core) != r/p.stride || p.masks[g.mask-1]&(1<<e) == 0 {
				continue
			}
			sig = append(sig, byte(x), byte(x>>8))
		}
		if len(sig) == 0 {
			continue
		}
		if _, ok := sigs[string(sig)]; !ok {
			order = append(order, string(sig))
		}
		sigs[string(sig)] = append(sigs[string(sig)], r)
	}
	for _, sig := range order {
		var items []int32
		for j := 0; j+1 < len(sig); j += 2 {
			items = append(items, groups[keys[int(sig[j])|int(sig[j+1])<<8]]...)
		}
		t := machineBoundFn(items, head, p.xferOf, tails, 1)
		for _, r := range sigs[sig] {
			if t > best || t == best && r < at {
				best, at = t, r
			}
		}
	}
	return best, at
}
