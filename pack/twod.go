// The 2-D problems: SBUF (partitions x bytes) and PSUM (the same, in banks).
//
// SBUF is 128 partitions, each with its own byte address space; a tensor
// occupies Partitions consecutive partitions (1..128) and the same byte
// range [offset, offset+size) in each. Its first partition obeys the
// quadrant rule of seed 002 §3 (sbuf.pyi, SB_Allocator::
// base_partition_constrained):
//
//	64 < P <= 128: start 0
//	32 < P <=  64: start 0 or 64
//	 0 < P <=  32: start 0, 32, 64 or 96
//
// so small tensors can sit side by side in partition space. Two tensors
// live at the same time must not overlap in both partitions and bytes.
//
// PSUM (seed 002 §4.2, psum.pyi): per partition, Banks banks of BankSize
// bytes (8 x 2 KiB on the targets the compiler uses; both are parameters);
// a tile never spans a bank: offset%BankSize + size <= BankSize; a tile
// larger than a bank (a location whose accesses each stay in one bank)
// starts a bank and covers whole banks (bankLegal). The
// address is the triple (bank, start partition, byte within the bank), as
// assign_psum_addr returns it; the quadrant rule is the same.
//
// Problem2D.Starts narrows a tensor's starts below the quadrant rule (a
// matmul operand pinned to its tile_position): every solver chooses among
// the starts left.
//
// How it is solved: since every legal start is a multiple of 32, two
// tensors overlap in partitions iff the runs of 32-partition quadrants they
// touch intersect. So the model (model.go) has four lanes, one per
// quadrant; a tensor's choices are its legal starts, each a run of lanes.
// The exact search handles the choice of quadrant like any other branching
// (a placement is a choice at its lowest legal offset), and the bank rule
// is part of "legal offset". The pipeline is the 1-D one: components by
// time, greedy-by-size first, then the exact portfolio.
package pack

import (
	"fmt"
	"slices"
	"time"
)

// SBUF / PSUM geometry constants (seed 002 §1, §3).
const (
	NumPartitions      = 128
	QuadrantPartitions = 32
	numQuadrants       = NumPartitions / QuadrantPartitions
)

// Tensor is one SBUF or PSUM allocation request.
type Tensor struct {
	ID         int64
	Lower      int64 // live over [Lower, Upper)
	Upper      int64
	Partitions int   // 1..128
	Size       int64 // bytes per partition
	Align      int64 // 0 or 1 = none
	// Fixed pins the tensor (start partition and byte offset).
	Fixed *Placement2D
}

// Placement2D is where a tensor goes.
type Placement2D struct {
	StartPartition int
	Offset         int64
}

// Problem2D is a set of tensors and the bytes per partition they must fit.
type Problem2D struct {
	Tensors  []Tensor
	Capacity int64 // bytes per partition
	// BankSize > 0 enables the PSUM rule: no tile straddles a multiple of
	// BankSize (Capacity is then the number of banks times BankSize).
	BankSize int64
	// Starts, when not nil, narrows the start partitions of the tensors
	// (indexed like Tensors): bit q of Starts[i] allows start partition
	// 32q, among those the quadrant rule allows; 0 leaves the quadrant
	// rule alone. A caller pins an operand this way, e.g. a matmul's
	// moving operand to its tile_position row (seed 000
	// getLegalTilePosition). A nil slice costs nothing.
	Starts []uint8
}

// StartBit is the Starts bit that allows start partition sp (a multiple
// of 32 in 0..96; 0 for any other).
func StartBit(sp int) uint8 {
	if sp < 0 || sp >= NumPartitions || sp%QuadrantPartitions != 0 {
		return 0
	}
	return 1 << (sp / QuadrantPartitions)
}

// startsOf returns tensor i's legal start partitions: the quadrant rule's,
// narrowed by Starts[i] when set (in buf; empty when none is left).
func (p *Problem2D) startsOf(i int, buf *[numQuadrants]int) []int {
	out := buf[:0]
	var mask uint8
	if i < len(p.Starts) {
		mask = p.Starts[i]
	}
	for _, sp := range QuadrantStarts(p.Tensors[i].Partitions) {
		if mask == 0 || mask&StartBit(sp) != 0 {
			out = append(out, sp)
		}
	}
	return out
}

// Solution2D is the answer of Solve2D.
type Solution2D struct {
	Status     Status
	Placements []Placement2D // indexed like Problem2D.Tensors
	Peak       int64         // max(offset+size)
	LowerBound int64         // a lower bound on the peak (area / quadrant bound)
	Method     string
	Reason     string
	Nodes      int64
	Elapsed    time.Duration
}

// bankLegal is the PSUM bank rule for a tile of size bytes at offset: no
// bank rule (bank 0), an empty tile, a tile inside one bank, or a tile
// larger than a bank that starts one.
func bankLegal(offset, size, bank int64) bool {
	switch {
	case bank <= 0 || size <= 0:
		return true
	case size > bank:
		return offset%bank == 0
	}
	return offset%bank+size <= bank
}

// QuadrantStarts lists the legal start partitions for a tensor of the given
// partition count (nil when the count is out of 1..128).
func QuadrantStarts(partitions int) []int {
	switch {
	case partitions <= 0 || partitions > NumPartitions:
		return nil
	case partitions > 2*QuadrantPartitions:
		return []int{0}
	case partitions > QuadrantPartitions:
		return []int{0, 2 * QuadrantPartitions}
	default:
		return []int{0, QuadrantPartitions, 2 * QuadrantPartitions, 3 * QuadrantPartitions}
	}
}

func quadrantsSpanned(partitions int) int32 {
	return int32((partitions + QuadrantPartitions - 1) / QuadrantPartitions)
}

func validate2D(p Problem2D) error {
	if p.Capacity < 0 || p.Capacity > maxCoordinate {
		return &InputError{Index: -1, Msg: fmt.Sprintf("capacity %d out of range [0, 2^52]", p.Capacity)}
	}
	if p.BankSize < 0 || p.BankSize > maxCoordinate {
		return &InputError{Index: -1, Msg: fmt.Sprintf("bank size %d out of range", p.BankSize)}
	}
	if p.Starts != nil && len(p.Starts) != len(p.Tensors) {
		return &InputError{Index: -1, Msg: fmt.Sprintf("%d start masks for %d tensors", len(p.Starts), len(p.Tensors))}
	}
	var buf [numQuadrants]int
	for i, t := range p.Tensors {
		bad := func(format string, args ...any) error {
			return &InputError{Index: i, ID: t.ID, Msg: fmt.Sprintf(format, args...)}
		}
		b := Buffer{ID: t.ID, Lower: t.Lower, Upper: t.Upper, Size: t.Size, Align: t.Align}
		if err := validate(Problem{Buffers: []Buffer{b}}); err != nil {
			return bad("%s", err.(*InputError).Msg)
		}
		if QuadrantStarts(t.Partitions) == nil {
			return bad("partition count %d out of 1..%d", t.Partitions, NumPartitions)
		}
		starts := p.startsOf(i, &buf)
		if len(starts) == 0 {
			return bad("start mask %04b allows none of the starts the quadrant rule allows for %d partitions (%v)", p.Starts[i], t.Partitions, QuadrantStarts(t.Partitions))
		}
		if f := t.Fixed; f != nil {
			if !slices.Contains(starts, f.StartPartition) {
				return bad("fixed start partition %d breaks the quadrant rule for %d partitions or the start mask (allowed %v)", f.StartPartition, t.Partitions, starts)
			}
			if f.Offset < 0 || f.Offset > maxCoordinate {
				return bad("fixed offset %d out of range", f.Offset)
			}
			if t.Align > 1 && f.Offset%t.Align != 0 {
				return bad("fixed offset %d is not a multiple of its alignment %d", f.Offset, t.Align)
			}
			if !bankLegal(f.Offset, t.Size, p.BankSize) {
				return bad("fixed offset %d makes the tile span a bank boundary (bank size %d)", f.Offset, p.BankSize)
			}
		}
	}
	return nil
}

// Verify2D checks a placement: quadrant rule (and start masks),
// alignment, bank rule, capacity, fixed placements, and no two tensors
// live at the same time overlapping in both partitions and bytes.
func Verify2D(p Problem2D, placements []Placement2D) error {
	if len(placements) != len(p.Tensors) {
		return fmt.Errorf("pack: %d placements for %d tensors", len(placements), len(p.Tensors))
	}
	var buf [numQuadrants]int
	for i, t := range p.Tensors {
		pl := placements[i]
		switch {
		case !slices.Contains(p.startsOf(i, &buf), pl.StartPartition):
			return fmt.Errorf("pack: tensor %d: start partition %d breaks the quadrant rule for %d partitions or its start mask", i, pl.StartPartition, t.Partitions)
		case pl.Offset < 0 || pl.Offset%max(t.Align, 1) != 0:
			return fmt.Errorf("pack: tensor %d: bad offset %d (align %d)", i, pl.Offset, t.Align)
		case t.Size > 0 && pl.Offset+t.Size > p.Capacity:
			return fmt.Errorf("pack: tensor %d: ends at %d beyond capacity %d", i, pl.Offset+t.Size, p.Capacity)
		case !bankLegal(pl.Offset, t.Size, p.BankSize):
			return fmt.Errorf("pack: tensor %d: [%d, %d) spans a bank boundary (bank size %d)", i, pl.Offset, pl.Offset+t.Size, p.BankSize)
		case t.Fixed != nil && *t.Fixed != pl:
			return fmt.Errorf("pack: tensor %d: moved from its fixed placement", i)
		}
	}
	// One 1-D check per quadrant: a tensor takes part in each quadrant it
	// touches.
	for q := 0; q < numQuadrants; q++ {
		var sub Problem
		var offs []int64
		sub.Capacity = maxCoordinate
		for i, t := range p.Tensors {
			q0 := placements[i].StartPartition / QuadrantPartitions
			if q >= q0 && q < q0+int(quadrantsSpanned(t.Partitions)) {
				sub.Buffers = append(sub.Buffers, Buffer{ID: int64(i), Lower: t.Lower, Upper: t.Upper, Size: t.Size})
				offs = append(offs, placements[i].Offset)
			}
		}
		if err := Verify(sub, offs); err != nil {
			return fmt.Errorf("pack: quadrant %d: %w", q, err)
		}
	}
	return nil
}

// laneChoices lists the lane runs of tensor i's legal starts.
func laneChoices(p *Problem2D, i int) [][2]int32 {
	span := quadrantsSpanned(p.Tensors[i].Partitions)
	var out [][2]int32
	var buf [numQuadrants]int
	for _, start := range p.startsOf(i, &buf) {
		q := int32(start / QuadrantPartitions)
		out = append(out, [2]int32{q, q + span})
	}
	return out
}

// buildModel2D builds the model of one component: idx are the tensors to
// place (positive size, not fixed), fixed the pinned ones.
func buildModel2D(p Problem2D, idx, fixed []int, capacity int64) *exactModel {
	tens := p.Tensors
	lower := func(t Tensor) int64 { return t.Lower }
	upper := func(t Tensor) int64 { return t.Upper }
	times := make([]int64, 0, 2*(len(idx)+len(fixed)))
	for _, group := range [][]int{idx, fixed} {
		for _, i := range group {
			times = append(times, lower(tens[i]), upper(tens[i]))
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	m := &exactModel{capacity: capacity, bankSize: p.BankSize, numSections: max(len(times)-1, 0), numLanes: numQuadrants}
	section := func(t int64) int32 {
		k, _ := slices.BinarySearch(times, t)
		return int32(k)
	}
	for _, i := range idx {
		t := tens[i]
		m.addItem(t.Size, max(t.Align, 1), section(lower(t)), section(upper(t)), t.Upper-t.Lower, laneChoices(&p, i))
	}
	if len(fixed) > 0 {
		m.choiceObstacles = make([][]span, m.numChoices())
		for _, f := range fixed {
			ft := tens[f]
			sp := span{ft.Fixed.Offset, ft.Fixed.Offset + ft.Size}
			f0, f1 := section(lower(ft)), section(upper(ft))
			fq0 := int32(ft.Fixed.StartPartition / QuadrantPartitions)
			fq1 := fq0 + quadrantsSpanned(ft.Partitions)
			for c := range m.choiceObstacles {
				it := m.choiceItem[c]
				if m.s0[it] < f1 && f0 < m.s1[it] && m.lane0[c] < fq1 && fq0 < m.lane1[c] {
					m.choiceObstacles[c] = append(m.choiceObstacles[c], sp)
				}
			}
		}
		for c := range m.choiceObstacles {
			slices.SortFunc(m.choiceObstacles[c], func(a, b span) int { return compareInt64(a.lo, b.lo) })
		}
	}
	m.finish()
	return m
}

// lowerBound2D is a lower bound on the peak of any placement, from the
// quadrant rule. At each instant, with F the bytes of the live tensors of
// more than 96 partitions (they start at 0 and cover all four quadrants,
// so they overlap pairwise and stack in every quadrant) and "the rest"
// the other live tensors:
//
//	peak >= F + max(ceil(area of the rest / 4),  (bytes x quadrants spanned)
//	                largest tensor of the rest,   (it sits in some quadrant above F)
//	                bytes of the rest above 64 partitions)  (they all cover quadrant 0)
//
// This is at least the classic bound max(ceil(area / 4), max-live of the
// tensors above 64 partitions), and it is tight where a narrow tensor's
// quadrants cannot be shared by full-width ones (a 64-partition tile beside
// 128-partition ones).
func lowerBound2D(p Problem2D) int64 {
	type event struct {
		t     int64
		start bool
		i     int32
	}
	ev := make([]event, 0, 2*len(p.Tensors))
	for i, t := range p.Tensors {
		if t.Size > 0 && t.Upper > t.Lower {
			ev = append(ev, event{t.Lower, true, int32(i)}, event{t.Upper, false, int32(i)})
		}
	}
	slices.SortFunc(ev, func(a, b event) int {
		if a.t != b.t {
			return compareInt64(a.t, b.t)
		}
		if a.start != b.start {
			if a.start {
				return 1 // ends first: intervals are half-open
			}
			return -1
		}
		return int(a.i - b.i)
	})
	var lb liveBound
	lb.init(len(p.Tensors))
	for _, e := range ev {
		if e.start {
			lb.start(p.Tensors[e.i], e.i)
		} else {
			lb.end(p.Tensors[e.i], e.i)
		}
	}
	return lb.best
}

// liveBound accumulates lowerBound2D's bound over a sweep of starts and
// ends (ends at an instant before its starts).
type liveBound struct {
	full, restArea, rest3, best int64
	dead                        []bool
	heap                        endHeap // live tensors of the rest, by -size: the largest on top (lazy deletion)
}

func (b *liveBound) init(n int) { b.dead = make([]bool, n) }

func (b *liveBound) start(t Tensor, i int32) {
	if t.Size <= 0 || t.Upper <= t.Lower {
		return
	}
	if t.Partitions > 3*QuadrantPartitions {
		b.full += t.Size
	} else {
		b.restArea += t.Size * int64(quadrantsSpanned(t.Partitions))
		if t.Partitions > 2*QuadrantPartitions {
			b.rest3 += t.Size
		}
		b.heap.push(int(i), -t.Size)
	}
	for b.heap.Len() > 0 && b.dead[b.heap.index[0]] {
		b.heap.pop()
	}
	var largest int64
	if b.heap.Len() > 0 {
		largest = -b.heap.minUpper()
	}
	b.best = max(b.best, b.full+max((b.restArea+numQuadrants-1)/numQuadrants, largest, b.rest3))
}

func (b *liveBound) end(t Tensor, i int32) {
	if t.Size <= 0 || t.Upper <= t.Lower {
		return
	}
	if t.Partitions > 3*QuadrantPartitions {
		b.full -= t.Size
		return
	}
	b.restArea -= t.Size * int64(quadrantsSpanned(t.Partitions))
	if t.Partitions > 2*QuadrantPartitions {
		b.rest3 -= t.Size
	}
	b.dead[i] = true
}

// MaxLive2D is the 2-D max-live: a lower bound on the peak (bytes per
// partition) of any placement of the tensors, by the quadrant rule. It is
// the bound Solve2D reports as Solution2D.LowerBound (alignment padding
// aside).
func MaxLive2D(tensors []Tensor) int64 { return lowerBound2D(Problem2D{Tensors: tensors}) }

// Peak2D returns max(offset+size) of a 2-D placement (empty tensors count
// as 0).
func Peak2D(tensors []Tensor, placements []Placement2D) int64 {
	var peak int64
	for i, t := range tensors {
		if t.Size > 0 && i < len(placements) {
			peak = max(peak, placements[i].Offset+t.Size)
		}
	}
	return peak
}

// Solve2D places SBUF (or, with BankSize, PSUM) tensors. Errors follow
// Solve: *InputError for malformed input, *FitError when not fitted.
func Solve2D(p Problem2D, opts Options) (*Solution2D, error) {
	start := time.Now()
	if err := validate2D(p); err != nil {
		return nil, err
	}
	deadline := opts.deadline(start)
	sol := &Solution2D{LowerBound: lowerBound2D(p), Status: StatusFit}
	sol.Placements = make([]Placement2D, len(p.Tensors))
	var live, fixed []int
	for i, t := range p.Tensors {
		switch {
		case t.Fixed != nil:
			sol.Placements[i] = *t.Fixed
			if t.Size > 0 {
				fixed = append(fixed, i)
			}
		case t.Size > 0:
			live = append(live, i)
		}
	}
	fail := func(status Status, reason string) (*Solution2D, error) {
		sol.Status, sol.Reason = status, reason
		sol.Elapsed = time.Since(start)
		return sol, &FitError{Proven: status == StatusInfeasible, Capacity: p.Capacity, MaxLive: sol.LowerBound, BestPeak: sol.Peak, Reason: reason}
	}
	// Fixed tensors alone.
	fixedOnly := Problem2D{Capacity: p.Capacity, BankSize: p.BankSize}
	var fixedPl []Placement2D
	for _, i := range fixed {
		fixedOnly.Tensors = append(fixedOnly.Tensors, p.Tensors[i])
		fixedPl = append(fixedPl, *p.Tensors[i].Fixed)
	}
	if err := Verify2D(fixedOnly, fixedPl); err != nil {
		return fail(StatusInfeasible, "fixed tensors: "+err.Error())
	}
	if sol.LowerBound > p.Capacity {
		return fail(StatusInfeasible, fmt.Sprintf("lower bound %d exceeds capacity %d", sol.LowerBound, p.Capacity))
	}
	asBuffers := make([]Buffer, len(p.Tensors))
	for i, t := range p.Tensors {
		asBuffers[i] = Buffer{Lower: t.Lower, Upper: t.Upper, Size: t.Size}
	}
	all := append(append([]int(nil), live...), fixed...)
	methods := map[string]bool{}
	for _, comp := range splitComponents(asBuffers, all) {
		var free, pinned []int
		for _, i := range comp {
			if p.Tensors[i].Fixed != nil {
				pinned = append(pinned, i)
			} else {
				free = append(free, i)
			}
		}
		if len(free) == 0 {
			continue
		}
		// Canonical item order, as in 1-D (canonicalOrder): the search
		// does not depend on the order the tensors are listed in.
		slices.SortFunc(free, func(a, b int) int {
			x, y := p.Tensors[a], p.Tensors[b]
			for _, c := range [...]int{
				compareInt64(x.Lower, y.Lower), compareInt64(x.Upper, y.Upper),
				compareInt64(x.Size, y.Size), x.Partitions - y.Partitions,
				compareInt64(max(x.Align, 1), max(y.Align, 1)),
			} {
				if c != 0 {
					return c
				}
			}
			return a - b
		})
		apply := func(m *exactModel, offsets []int64, chosen []int32) {
			for k, i := range free {
				sol.Placements[i] = Placement2D{StartPartition: int(m.lane0[chosen[k]]) * QuadrantPartitions, Offset: offsets[k]}
			}
		}
		if !modelFits(asBuffers, comp) {
			// Too large for the model: a conservative n log n placement,
			// every tensor's bytes apart from every other's, whatever
			// their partitions (so partitions never need checking; each
			// starts at its first legal start), placed by BestFit; under
			// the bank rule each tile starts a bank. Valid, wasteful.
			peak := s2dFallback(p, free, pinned, sol.Placements)
			methods["best-fit"] = true
			if peak > p.Capacity {
				sol.Status, sol.Reason = StatusUnknown, fmt.Sprintf("component of %d tensors too large for the 2-D search, and the conservative placement needs %d", len(free), peak)
			}
			continue
		}
		greedyModel := buildModel2D(p, free, pinned, maxCoordinate)
		goffs, gchosen, gpeak := greedyBySize(greedyModel)
		apply(greedyModel, goffs, gchosen)
		if gpeak <= p.Capacity {
			methods["greedy-by-size"] = true
			continue
		}
		if opts.NoExact {
			sol.Status, sol.Reason = StatusUnknown, "greedy placement exceeds capacity and the exact search is disabled"
			continue
		}
		forward := buildModel2D(p, free, pinned, p.Capacity)
		res := runPortfolio(forward, exactBudget{deadline: deadline, ctx: opts.Context, nodeLimit: opts.NodeLimit, workers: opts.Workers})
		sol.Nodes += res.nodes
		switch res.outcome {
		case outcomeFound:
			apply(forward, res.offsets, res.chosen)
			methods["exact"] = true
		case outcomeExhausted:
			sol.Status = StatusInfeasible
			sol.Reason = fmt.Sprintf("exact search exhausted: %d tensors cannot share capacity %d", len(free), p.Capacity)
		default:
			if sol.Status == StatusFit {
				sol.Status = StatusUnknown
				sol.Reason = fmt.Sprintf("exact search gave up after %d nodes", res.nodes)
			}
		}
	}
	for i, t := range p.Tensors {
		if t.Size > 0 {
			sol.Peak = max(sol.Peak, sol.Placements[i].Offset+t.Size)
		}
	}
	sol.Method = methodName(methods)
	if sol.Status != StatusFit {
		return fail(sol.Status, sol.Reason)
	}
	sol.Elapsed = time.Since(start)
	return sol, nil
}

// PSUMAddress is a PSUM placement as psum.pyi returns it.
type PSUMAddress struct {
	Bank           int
	StartPartition int
	ByteInBank     int64
}

// SolvePSUM places tensors in PSUM: banks x bankSize bytes per partition
// (8 x 2048 on the compiler's targets), no tile spanning a bank, quadrant
// rule for partitions. Fixed placements are given as Placement2D offsets
// (bank*bankSize + byte).
func SolvePSUM(tensors []Tensor, banks int, bankSize int64, opts Options) ([]PSUMAddress, *Solution2D, error) {
	if banks <= 0 || bankSize <= 0 || int64(banks) > maxCoordinate/bankSize {
		return nil, nil, &InputError{Index: -1, Msg: fmt.Sprintf("PSUM geometry %d banks x %d bytes is invalid", banks, bankSize)}
	}
	p := Problem2D{Tensors: tensors, Capacity: int64(banks) * bankSize, BankSize: bankSize}
	sol, err := Solve2D(p, opts)
	if sol == nil || sol.Status != StatusFit {
		return nil, sol, err
	}
	addrs := make([]PSUMAddress, len(tensors))
	for i, pl := range sol.Placements {
		addrs[i] = PSUMAddress{Bank: int(pl.Offset / bankSize), StartPartition: pl.StartPartition, ByteInBank: pl.Offset % bankSize}
	}
	return addrs, sol, err
}

// s2dFallback places the free tensors of a component at their first legal
// start partition with BestFit over bytes alone (fixed tensors as
// obstacles) and returns the peak.
func s2dFallback(p Problem2D, free, pinned []int, placements []Placement2D) int64 {
	var sub Problem
	for _, i := range free {
		t := p.Tensors[i]
		align := max(t.Align, 1)
		if p.BankSize > 0 {
			if p.BankSize%align == 0 {
				align = p.BankSize
			} else {
				align *= p.BankSize // a common multiple
			}
		}
		sub.Buffers = append(sub.Buffers, Buffer{Lower: t.Lower, Upper: t.Upper, Size: t.Size, Align: align})
	}
	for _, i := range pinned {
		t := p.Tensors[i]
		off := t.Fixed.Offset
		sub.Buffers = append(sub.Buffers, Buffer{Lower: t.Lower, Upper: t.Upper, Size: t.Size, Fixed: &off})
	}
	offs, _, err := BestFit(sub)
	if err != nil {
		return unreachable
	}
	var peak int64
	var buf [numQuadrants]int
	for k, i := range free {
		// Bytes apart from every other tensor: any legal start will do.
		placements[i] = Placement2D{StartPartition: p.startsOf(i, &buf)[0], Offset: offs[k]}
		peak = max(peak, offs[k]+p.Tensors[i].Size)
	}
	return peak
}
