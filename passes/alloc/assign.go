// Address assignment: every on-chip location gets (Base partition, Addr
// byte) in SBUF, or (Bank, Base partition, Addr byte within the bank) in
// PSUM (seed 002 §4.2: assign_sb_addr's (start_partition, byte_addr),
// assign_psum_addr's (bank_id, start_partition, byte_addr)).
//
// The problem handed to the solver, per memory:
//
//   - one rectangle per location: its live interval (model.go,
//     decision.go) by its partitions x bytes per partition, aligned to its
//     dtype's size (the seed's align_up(size, dtype_align));
//   - SBUF capacity: the generation's usable bytes per partition (the 16
//     KiB runtime carve-out excluded, seed 002 §4.6); start partitions by
//     the quadrant rule (seed 002 §3);
//   - PSUM: banks x bank bytes per partition (8 x 2 KiB), no location
//     spanning a bank (a location larger than a bank starts one and covers
//     whole banks). A location a Matmult writes is rounded up to whole
//     banks and bank-aligned for its whole life: start_tensor_calc clears
//     the whole bank of each destination partition, and the accumulation
//     group owns the bank until stop_tensor_calc (design.md: "the group
//     (start to stop) owns the bank, for the allocator and for dependency
//     analysis alike"); giving the bank for the location's whole life
//     (not only start to stop) keeps the model one rectangle per location;
//   - a matmul's tile_position (seed 000 getLegalTilePosition: the moving
//     operand starts at the row, the destination at the column) pins the
//     start partition of those operands' locations (model.go tilePin;
//     pack.Problem2D.Starts), so the placement passes the verifier's
//     tile-position rule; a position no legal start gives is an error
//     (NW308) naming the matmul;
//   - fixed obstacles: locations that arrive allocated or pinned (KLR
//     kernels, a caller's kernel scratchpad) keep their placement, are
//     checked against the capacity and each other, and are live over the
//     whole function (the seed's static tensors).
//
// Allocators (option allocator):
//
//   - pack (default): package pack. The compact placement first, the
//     measure of packing quality reported as "packed peak": pack.Sweep2D
//     (time-ordered, O(n log n), near linear on unrolled kernels) with the
//     reuse policy oldest-freed below the current peak; where its peak is
//     more than slack (2%) above max-live and the problem has at most
//     PackModelLimit locations, pack.Solve2D (greedy-by-size, then the
//     exact search under the node budget exact_nodes) minimizes the peak
//     by bisection; where it exceeds the capacity, Solve2D fits it. Then,
//     under the default reuse policy spread, the placement used is
//     Sweep2D's spread sweep when it fits the capacity, else the compact
//     one.
//   - linear-scan: the seed's LinearScanStackAllocator, for comparison:
//     assign_sb_addr's byte cursor (pack.LinearScan: intervals by start,
//     expire_intervals pops the stack, a hole below a live tensor is never
//     reused) with every start partition the first the quadrant rule allows
//     (quadrant_base); assign_psum_addr's bank cursor (psumLinearScan).
//
// The reuse policy (option reuse; issue: "when several free regions fit,
// prefer the one freed longest ago, so that reuse adds as few WAR/WAW
// edges as possible for the scheduler"). Reusing an address makes the new
// tensor's first write wait for the old occupant's last access (issue 13's
// physical dependency analysis adds the edge). Three policies of
// pack.Sweep2D:
//
//   - spread (default): the region freed longest ago, never-used bytes
//     first, up to the capacity: no reuse at all until memory runs out,
//     then the oldest region. This is the policy read literally
//     (memory never used was freed longest ago).
//   - oldest-freed: the same, but only below the current peak (the peak
//     grows only when nothing fits): the compact placement's policy.
//   - best-fit: the smallest region that fits (a classic free list).
//
// Measured with the default pipeline (makespan in ns, default sizes,
// trn2; docs/memplan.md has every built-in): tensor_add 44859 spread /
// 77721 oldest-freed / 77721 best-fit / 77721 linear-scan; matmul 21436 /
// 42872 / 42872 / 42872; softmax 16797 / 24589 / 30888 / 23329; rmsnorm
// 19590 / 32935 / 32935 / 32108; attention 16373 / 16490 / 22169 / 25963;
// residual 55195 / 64892 / 76890 / 67192. Spread costs address space (its
// peak grows toward the capacity), never fit: a spread placement that
// does not fit is not used.
package alloc

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pack"
)

// Memory classes the allocator places.
const (
	memSB = iota
	memPSUM
	numMems
)

var memNames = [numMems]string{"SBUF", "PSUM"}

// item is one rectangle of the allocation problem.
type item struct {
	loc    bir.LocID
	parts  int
	size   int64 // bytes per partition as placed (PSUM matmul destinations: whole banks)
	align  int64
	lo, hi int32 // live interval, positions inclusive
	fixed  bool
	starts uint8 // pack.Problem2D.Starts: the start a matmul's tile_position pins (0: free)
	base   int   // placement: start partition
	off    int64 // placement: byte offset (PSUM: bank * bank bytes + address)
}

// geometry is one memory's capacity.
type geometry struct {
	capacity int64 // bytes per partition
	bank     int64 // PSUM bank bytes (0 for SBUF)
	banks    int64
}

func geometries(a *arch.Model) ([numMems]geometry, error) {
	var g [numMems]geometry
	sb, err := a.SBUFBudget()
	if err != nil {
		return g, err
	}
	ps, err := a.PSUMBudget()
	if err != nil {
		return g, err
	}
	g[memSB] = geometry{capacity: sb}
	g[memPSUM] = geometry{capacity: ps, bank: a.PSUMBankBytes, banks: a.PSUMBanks}
	return g, nil
}

// memOf returns the memory class of an on-chip type.
func memOf(t bir.MemoryType) int {
	if t == bir.MemPSUM {
		return memPSUM
	}
	return memSB
}

// buildItems turns the model's intervals into the two problems.
func buildItems(m *model, g [numMems]geometry) [numMems][]item {
	var out [numMems][]item
	f := m.f
	var count [numMems]int
	for l := 0; l < len(m.flags); l++ {
		if m.flags[l]&(lfUsed|lfFixed) != 0 {
			if lc := f.Loc(bir.LocID(l)); !lc.Dead && lc.Type.IsOnChip() {
				count[memOf(lc.Type)]++
			}
		}
	}
	for k := range out {
		out[k] = make([]item, 0, count[k])
	}
	for _, l32 := range m.byStart() {
		l := int(l32)
		fl := m.flags[l]
		if fl&(lfUsed|lfFixed) == 0 {
			continue
		}
		lc := f.Loc(bir.LocID(l))
		if lc.Dead || !lc.Type.IsOnChip() {
			continue
		}
		mem := memOf(lc.Type)
		it := item{loc: bir.LocID(l), parts: int(lc.Partitions), size: lc.Bytes, align: max(f.Tensor(lc.Tensor).Dtype.Size(), 1)}
		if bank := g[mem].bank; bank > 0 && (fl&lfMatmulDst != 0 || it.size > bank) {
			it.size = (it.size + bank - 1) / bank * bank
			it.align = bank
		}
		if fl&lfFixed != 0 {
			it.fixed = true
			it.lo, it.hi = 0, max(m.n-1, 0)
			it.base, it.off = int(lc.Base), lc.Addr
			if mem == memPSUM {
				it.off = lc.Bank*g[mem].bank + lc.Addr
			}
		} else {
			it.lo, it.hi = m.lo[l], m.hi[l]
			it.starts = m.startMask(bir.LocID(l))
		}
		out[mem] = append(out[mem], it)
	}
	return out
}

// solveResult is the outcome of one memory's assignment.
type solveResult struct {
	peak     int64 // the placement's highest byte
	packPeak int64 // the compact placement's (pack only; the peak otherwise)
	maxLive  int64
	method   string
	fits     bool
	reason   string
}

// toProblem is the 2-D problem of items in geometry g: the tensors, and
// the start masks when some item is pinned.
func toProblem(items []item, g geometry) pack.Problem2D {
	p := pack.Problem2D{Tensors: toPack(items), Capacity: g.capacity, BankSize: g.bank}
	for k, it := range items {
		if it.starts != 0 {
			if p.Starts == nil {
				p.Starts = make([]uint8, len(items))
			}
			p.Starts[k] = it.starts
		}
	}
	return p
}

// toPack converts items to pack's 2-D tensors.
func toPack(items []item) []pack.Tensor {
	ts := make([]pack.Tensor, len(items))
	for k, it := range items {
		ts[k] = pack.Tensor{ID: int64(k), Lower: int64(it.lo), Upper: int64(it.hi) + 1, Partitions: it.parts, Size: it.size, Align: it.align}
		if it.fixed {
			ts[k].Fixed = &pack.Placement2D{StartPartition: it.base, Offset: it.off}
		}
	}
	return ts
}

// PackModelLimit bounds the locations of a memory for which pack's
// model-based solver (greedy-by-size, the exact search) is tried when the
// sweep's peak is not within the slack of max-live.
const PackModelLimit = 20_000

// solvePack places items with package pack, in two steps:
//
//  1. The compact placement, the measure of packing quality: Sweep2D
//     with ReuseOldestFreed (or ReuseBestFit when that is the policy);
//     where its peak exceeds max-live by more than slack (a fraction) and
//     the problem is small enough for pack's model, Solve2D minimizes the
//     peak and wins if lower; where the peak exceeds the capacity,
//     Solve2D fits the capacity (greedy, then the exact search within
//     the node budget).
//  2. Under ReuseSpread (the default), Sweep2D again with reuse put off
//     until the capacity: its placement is used when it fits, else the
//     compact one. Past PackModelLimit locations the spread sweep runs
//     first and, when it fits, alone (the packed peak is then not
//     reported): one sweep instead of two on the largest modules.
//
// The result's peak is the placement's, packPeak the compact one's.
func solvePack(items []item, g geometry, nodes int64, policy pack.ReusePolicy, slack float64) (solveResult, error) {
	p := toProblem(items, g)
	if policy == pack.ReuseSpread && len(items) > PackModelLimit {
		// Large problems: the spread placement alone when it fits (the
		// compact one is then not computed: packPeak 0).
		sp, err := pack.Sweep2D(p, pack.ReuseSpread)
		if err != nil {
			return solveResult{}, err
		}
		if sp.Peak <= g.capacity {
			for k := range items {
				items[k].base, items[k].off = sp.Placements[k].StartPartition, sp.Placements[k].Offset
			}
			return solveResult{peak: sp.Peak, maxLive: sp.MaxLive, method: "sweep(spread)", fits: true}, nil
		}
	}
	compact := policy
	if compact == pack.ReuseSpread {
		compact = pack.ReuseOldestFreed
	}
	sw, err := pack.Sweep2D(p, compact)
	if err != nil {
		return solveResult{}, err
	}
	res := solveResult{maxLive: sw.MaxLive, peak: sw.Peak, method: "sweep(" + compact.String() + ")"}
	best := sw.Placements
	tight := float64(sw.Peak) <= float64(sw.MaxLive)*(1+slack)
	if !tight && len(items) <= PackModelLimit || sw.Peak > g.capacity {
		if pl, peak, method, ok := minimizePeak(p, min(sw.Peak, g.capacity), sw.MaxLive, nodes); ok && peak < res.peak {
			best, res.peak, res.method = pl, peak, method
		}
	}
	res.packPeak = res.peak
	if policy == pack.ReuseSpread && res.peak <= g.capacity {
		sp, err := pack.Sweep2D(p, pack.ReuseSpread)
		if err != nil {
			return solveResult{}, err
		}
		if sp.Peak <= g.capacity {
			best, res.peak, res.method = sp.Placements, sp.Peak, "sweep(spread)"
		}
	}
	for k := range items {
		items[k].base, items[k].off = best[k].StartPartition, best[k].Offset
	}
	res.fits = res.peak <= g.capacity
	if !res.fits {
		res.reason = fmt.Sprintf("best placement peak %d (%s)", res.peak, res.method)
	}
	return res, nil
}

// minimizeWork bounds the exact search of one minimization in node-items:
// a node of pack's search places one tensor and updates the cells and
// choices of the tensors it overlaps, so its cost grows with the
// component; nodes x tensors <= minimizeWork (about a quarter of a second
// of CPU) keeps a function's minimization bounded whatever its size.
// Before it, every one of up to nine probes had the whole node budget:
// a 96-location function on a 127-partition machine (whose pieces never
// reach max-live) took 55 s, and 1,280 instructions 60 s (issue 27,
// item 7).
const minimizeWork = 1 << 20

// minimizePeak asks pack.Solve2D for a placement within hi, then bisects
// the capacity down toward lo (each probe a fit-or-prove run). The probes
// share one node budget: nodes, or fewer on a large problem
// (minimizeWork), each probe getting what the earlier ones left. It
// returns the lowest-peak placement found.
func minimizePeak(p pack.Problem2D, hi, lo, nodes int64) ([]pack.Placement2D, int64, string, bool) {
	var best []pack.Placement2D
	bestPeak, method := int64(math.MaxInt64), ""
	left := min(nodes, max(minimizeWork/int64(max(len(p.Tensors), 1)), 1))
	probe := func(capacity int64) bool {
		if left <= 0 {
			return false
		}
		p.Capacity = capacity
		sol, err := pack.Solve2D(p, pack.Options{NodeLimit: left, Workers: 1})
		if sol != nil {
			left -= max(sol.Nodes, 1)
		} else {
			left = 0
		}
		if sol == nil || sol.Status != pack.StatusFit {
			var fe *pack.FitError
			if errors.As(err, &fe) && fe.Proven {
				lo = capacity + 1
			}
			return false
		}
		if sol.Peak < bestPeak {
			best, bestPeak, method = sol.Placements, sol.Peak, "pack "+sol.Method
		}
		return true
	}
	if !probe(hi) {
		return nil, 0, "", false
	}
	for rounds := 0; lo < bestPeak && rounds < 8; rounds++ {
		mid := lo + (bestPeak-1-lo)/2
		if rounds == 0 {
			mid = lo // max-live is often reachable: try it first
		}
		if !probe(mid) && mid != lo {
			lo = max(lo, mid+1)
		}
	}
	return best, bestPeak, method, true
}

// solveLinearScan is the seed's LinearScanStackAllocator. The max-live
// bound is computed only when asked (not for the report's baseline run).
func solveLinearScan(items []item, g geometry, needMaxLive bool) (solveResult, error) {
	res := solveResult{method: "linear-scan"}
	if needMaxLive {
		res.maxLive = pack.MaxLive2D(toPack(items))
	}
	if g.bank > 0 {
		return psumLinearScan(items, g, res)
	}
	p := pack.Problem{Capacity: g.capacity, Buffers: make([]pack.Buffer, len(items))}
	for k, it := range items {
		p.Buffers[k] = pack.Buffer{ID: int64(k), Lower: int64(it.lo), Upper: int64(it.hi) + 1, Size: it.size, Align: it.align}
		if it.fixed {
			off := it.off
			p.Buffers[k].Fixed = &off
		}
	}
	offs, peak, err := pack.LinearScan(p)
	if err != nil {
		return res, err
	}
	for k := range items {
		if !items[k].fixed {
			items[k].base, items[k].off = firstStart(&items[k]), offs[k]
		}
	}
	res.peak = peak
	res.fits = peak <= g.capacity
	if !res.fits {
		res.reason = fmt.Sprintf("the linear scan's peak %d exceeds the capacity %d", peak, g.capacity)
	}
	return res, nil
}

// firstStart is the seed's quadrant_base: the first start partition the
// quadrant rule allows (0 for every height), or the start a matmul's
// tile_position pins the item to. The linear scans keep every item's
// bytes apart, so any legal start is valid.
func firstStart(it *item) int {
	for _, sp := range pack.QuadrantStarts(it.parts) {
		if it.starts == 0 || it.starts&pack.StartBit(sp) != 0 {
			return sp
		}
	}
	return 0
}

// psumLinearScan is assign_psum_addr: tensors by start of interval; expire
// the ones that ended; each takes whole banks at byte 0 from a rotating
// bank cursor ("a bank index (0..7), NOT a byte cursor"; cur_psum_bank =
// (cur_psum_bank + eff_banks) % 8), the next run of free banks at or after
// the cursor. The seed's pseudo-code moves the cursor without checking
// that the bank is free; narwhal skips banks still in use, and a tensor
// that finds no free run is placed past the last bank (the peak then
// exceeds the capacity: it does not fit).
func psumLinearScan(items []item, g geometry, res solveResult) (solveResult, error) {
	nb := int(g.banks)
	busyUntil := make([]int32, nb) // last position a bank is in use (-1: free)
	fill(busyUntil, -1)
	order := make([]int, 0, len(items))
	for k, it := range items {
		if it.fixed {
			for b := it.off / g.bank; b*g.bank < it.off+it.size && b < int64(nb); b++ {
				busyUntil[b] = max(busyUntil[b], it.hi)
			}
			continue
		}
		order = append(order, k)
	}
	sortByStart(items, order)
	cursor := 0
	over := int64(0)
	for _, k := range order {
		it := &items[k]
		need := int((it.size + g.bank - 1) / g.bank)
		placed := false
		for t := 0; t < nb && !placed; t++ {
			b := (cursor + t) % nb
			if b+need > nb {
				continue
			}
			free := true
			for j := b; j < b+need; j++ {
				free = free && busyUntil[j] < it.lo
			}
			if !free {
				continue
			}
			for j := b; j < b+need; j++ {
				busyUntil[j] = it.hi
			}
			it.base, it.off = firstStart(it), int64(b)*g.bank
			cursor = (b + need) % nb
			placed = true
		}
		if !placed {
			it.base, it.off = firstStart(it), g.capacity+over
			over += int64(need) * g.bank
		}
		res.peak = max(res.peak, it.off+it.size)
	}
	res.fits = res.peak <= g.capacity
	if !res.fits {
		res.reason = fmt.Sprintf("assign_psum_addr found no free bank for %d bank(s) of tensors", over/g.bank)
	}
	return res, nil
}

// sortByStart orders item indices by (lo, index).
func sortByStart(items []item, order []int) {
	slices.SortFunc(order, func(a, b int) int {
		if items[a].lo != items[b].lo {
			return int(items[a].lo - items[b].lo)
		}
		return a - b
	})
}

// apply writes the placements to the locations.
func apply(f *bir.Function, items []item, g geometry) {
	for _, it := range items {
		if it.fixed {
			continue
		}
		lc := f.Loc(it.loc)
		lc.Base = int64(it.base)
		lc.Allocated = true
		if g.bank > 0 {
			lc.Bank, lc.Addr = it.off/g.bank, it.off%g.bank
		} else {
			lc.Bank, lc.Addr = 0, it.off
		}
	}
}
