// The model the exact search and the model-based greedy work on.
//
// One model serves the 1-D problem (buffers in a byte range), the SBUF 2-D
// problem (tensors in partitions x bytes) and PSUM (the same, plus banks).
//
// Items are the buffers/tensors to place. Time is cut into sections (see
// sweep.go); partition space is cut into lanes (the four 32-partition
// quadrants; a single lane in 1-D). A cell is a (lane, section) pair,
// numbered lane*numSections + section. An item covers a contiguous run of
// sections and, depending on where it starts in partition space, a
// contiguous run of lanes: each such possibility is a "choice" (one per
// item in 1-D; up to four for a small SBUF tensor). Two choices of
// different items conflict iff they share a cell, and then their byte
// ranges must be disjoint. Because quadrant-rule starts are multiples of 32,
// lane granularity is exact: two tensors overlap in partitions iff their
// lane runs intersect.
//
// An offset is legal for a choice when it is a multiple of the item's
// alignment, the item does not straddle a bank boundary (PSUM: offset%bank +
// size <= bank), and it avoids every fixed (pinned) buffer sharing a cell;
// legal(c, x) is the lowest legal offset >= x. legal is monotone, which the
// search's canonical-solution argument needs.
package pack

import (
	"slices"
)

// span is a half-open byte range [lo, hi) held by a fixed buffer.
type span struct{ lo, hi int64 }

type exactModel struct {
	capacity    int64
	bankSize    int64 // 0: no bank rule
	numSections int
	numLanes    int

	// Per item.
	size        []int64
	align       []int64
	s0, s1      []int32 // sections [s0, s1)
	firstChoice []int32 // choices of item i: [firstChoice[i], firstChoice[i+1])
	// Lanes every choice of the item covers (cells it surely occupies):
	// [sureLane0, sureLane1), possibly empty.
	sureLane0, sureLane1 []int32
	laneCount            []int32
	// The time span of the item, for the static orderings.
	width []int64

	// Per choice.
	choiceItem   []int32
	lane0, lane1 []int32

	// Fixed buffers as obstacles, per choice, sorted by lo (nil: none).
	choiceObstacles [][]span

	// twinBefore[i] is the previous item identical to item i (same
	// sections, size, alignment and choices), or -1. Swapping identical
	// items maps placements to placements, so the search places twins in
	// index order only.
	twinBefore []int32

	// Derived adjacency (CSR).
	neighborStart []int32 // choices of other items sharing a cell
	neighbors     []int32
	cellStart     []int32 // choices covering each cell
	cellChoices   []int32
}

func (m *exactModel) numItems() int   { return len(m.size) }
func (m *exactModel) numChoices() int { return len(m.choiceItem) }
func (m *exactModel) numCells() int   { return m.numSections * m.numLanes }

// addItem appends an item with the given choices (lane runs).
func (m *exactModel) addItem(size, align int64, s0, s1 int32, width int64, lanes [][2]int32) {
	if len(m.firstChoice) == 0 {
		m.firstChoice = append(m.firstChoice, 0)
	}
	it := int32(len(m.size))
	m.size = append(m.size, size)
	m.align = append(m.align, max(align, 1))
	m.s0 = append(m.s0, s0)
	m.s1 = append(m.s1, s1)
	m.width = append(m.width, width)
	sure0, sure1 := int32(0), int32(m.numLanes)
	for _, l := range lanes {
		m.choiceItem = append(m.choiceItem, it)
		m.lane0 = append(m.lane0, l[0])
		m.lane1 = append(m.lane1, l[1])
		sure0, sure1 = max(sure0, l[0]), min(sure1, l[1])
	}
	if sure1 < sure0 {
		sure1 = sure0
	}
	m.sureLane0 = append(m.sureLane0, sure0)
	m.sureLane1 = append(m.sureLane1, sure1)
	m.laneCount = append(m.laneCount, lanes[0][1]-lanes[0][0])
	m.firstChoice = append(m.firstChoice, int32(len(m.choiceItem)))
}

// finish computes the cell lists, the conflict lists and the twins.
func (m *exactModel) finish() {
	m.findTwins()
	nc, ncell := m.numChoices(), m.numCells()
	counts := make([]int32, ncell+1)
	forCells := func(c int, f func(cell int)) {
		it := m.choiceItem[c]
		for l := m.lane0[c]; l < m.lane1[c]; l++ {
			for s := m.s0[it]; s < m.s1[it]; s++ {
				f(int(l)*m.numSections + int(s))
			}
		}
	}
	for c := 0; c < nc; c++ {
		forCells(c, func(cell int) { counts[cell+1]++ })
	}
	for i := 1; i <= ncell; i++ {
		counts[i] += counts[i-1]
	}
	m.cellStart = counts
	m.cellChoices = make([]int32, counts[ncell])
	fill := slices.Clone(counts[:ncell])
	for c := 0; c < nc; c++ {
		forCells(c, func(cell int) {
			m.cellChoices[fill[cell]] = int32(c)
			fill[cell]++
		})
	}
	// Conflicts: sweep items by first section, pairing each with the items
	// still open.
	order := make([]int32, m.numItems())
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if m.s0[a] != m.s0[b] {
			return int(m.s0[a] - m.s0[b])
		}
		return int(a - b)
	})
	degree := make([]int32, nc+1)
	var open []int32
	pairs := func(visit func(c, d int32)) {
		open = open[:0]
		for _, it := range order {
			kept := open[:0]
			for _, o := range open {
				if m.s1[o] > m.s0[it] {
					kept = append(kept, o)
				}
			}
			open = kept
			for _, o := range open {
				for c := m.firstChoice[it]; c < m.firstChoice[it+1]; c++ {
					for d := m.firstChoice[o]; d < m.firstChoice[o+1]; d++ {
						if m.lane0[c] < m.lane1[d] && m.lane0[d] < m.lane1[c] {
							visit(c, d)
						}
					}
				}
			}
			open = append(open, it)
		}
	}
	pairs(func(c, d int32) { degree[c+1]++; degree[d+1]++ })
	for i := 1; i <= nc; i++ {
		degree[i] += degree[i-1]
	}
	m.neighborStart = degree
	m.neighbors = make([]int32, degree[nc])
	next := slices.Clone(degree[:nc])
	pairs(func(c, d int32) {
		m.neighbors[next[c]] = d
		next[c]++
		m.neighbors[next[d]] = c
		next[d]++
	})
	for c := 0; c < nc; c++ {
		slices.Sort(m.neighbors[m.neighborStart[c]:m.neighborStart[c+1]])
	}
}

// legal returns the lowest legal offset >= x for choice c.
func (m *exactModel) legal(c int32, x int64) int64 {
	it := m.choiceItem[c]
	sz, a := m.size[it], m.align[it]
	var obstacles []span
	if m.choiceObstacles != nil {
		obstacles = m.choiceObstacles[c]
	}
	for {
		y := alignUp(x, a)
		if !bankLegal(y, sz, m.bankSize) {
			y = alignUp(y-y%m.bankSize+m.bankSize, a)
		}
		for _, o := range obstacles {
			if o.lo < y+sz && y < o.hi {
				y = o.hi
				break
			}
		}
		if y == x {
			return y
		}
		x = y
	}
}

// Size limits of the model-based algorithms (greedy-by-size, the exact
// search): the conflict lists hold two int32 per pair of buffers live at
// the same time, the cell lists one per (buffer, section) it covers. Past
// these limits (tens of MB) the solver keeps to the n log n heuristics.
const (
	modelPairLimit     = 4_000_000
	modelCoverageLimit = 16_000_000
)

// modelFits tells whether a model of the buffers idx stays within the
// size limits. O(n log n).
func modelFits(buffers []Buffer, idx []int) bool {
	if countPairs(buffers, idx, modelPairLimit) >= modelPairLimit {
		return false
	}
	times := make([]int64, 0, 2*len(idx))
	for _, i := range idx {
		times = append(times, buffers[i].Lower, buffers[i].Upper)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	var coverage int64
	for _, i := range idx {
		s0, _ := slices.BinarySearch(times, buffers[i].Lower)
		s1, _ := slices.BinarySearch(times, buffers[i].Upper)
		coverage += int64(s1 - s0)
		if coverage >= modelCoverageLimit {
			return false
		}
	}
	return true
}

// countPairs returns the number of pairs of buffers (by index) that are
// live at the same time, capped at limit. O(n log n + min(pairs, limit)).
func countPairs(buffers []Buffer, idx []int, limit int64) int64 {
	starts := make([]int64, 0, len(idx))
	ends := make([]int64, 0, len(idx))
	for _, i := range idx {
		starts = append(starts, buffers[i].Lower)
		ends = append(ends, buffers[i].Upper)
	}
	slices.Sort(starts)
	slices.Sort(ends)
	var pairs int64
	j := 0
	for k, s := range starts {
		for j < len(ends) && ends[j] <= s {
			j++
		}
		pairs += int64(k - j) // buffers started before and not yet ended
		if pairs >= limit {
			return limit
		}
	}
	return pairs
}

// buildModel1D builds the model of one component of a 1-D problem: idx are
// the buffers to place (positive size, not fixed), fixed are pinned buffers
// (positive size) that act as obstacles.
func buildModel1D(buffers []Buffer, idx, fixed []int, capacity int64) *exactModel {
	lower := func(b Buffer) int64 { return b.Lower }
	upper := func(b Buffer) int64 { return b.Upper }
	times := make([]int64, 0, 2*(len(idx)+len(fixed)))
	for _, group := range [][]int{idx, fixed} {
		for _, i := range group {
			times = append(times, lower(buffers[i]), upper(buffers[i]))
		}
	}
	slices.Sort(times)
	times = slices.Compact(times)
	m := &exactModel{capacity: capacity, numSections: max(len(times)-1, 0), numLanes: 1}
	section := func(t int64) int32 {
		k, _ := slices.BinarySearch(times, t)
		return int32(k)
	}
	oneLane := [][2]int32{{0, 1}}
	for _, i := range idx {
		b := buffers[i]
		m.addItem(b.Size, alignOf(b), section(lower(b)), section(upper(b)), b.Upper-b.Lower, oneLane)
	}
	if len(fixed) > 0 {
		m.choiceObstacles = make([][]span, len(idx))
		for _, f := range fixed {
			fb := buffers[f]
			sp := span{*fb.Fixed, *fb.Fixed + fb.Size}
			f0, f1 := section(lower(fb)), section(upper(fb))
			for k := range idx {
				if m.s0[k] < f1 && f0 < m.s1[k] {
					m.choiceObstacles[k] = append(m.choiceObstacles[k], sp)
				}
			}
		}
		for k := range m.choiceObstacles {
			slices.SortFunc(m.choiceObstacles[k], func(a, b span) int { return compareInt64(a.lo, b.lo) })
		}
	}
	m.finish()
	return m
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (m *exactModel) findTwins() {
	n := m.numItems()
	m.twinBefore = make([]int32, n)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
		m.twinBefore[i] = -1
	}
	key := func(a, b int32) int {
		if c := int(m.s0[a] - m.s0[b]); c != 0 {
			return c
		}
		if c := int(m.s1[a] - m.s1[b]); c != 0 {
			return c
		}
		if c := compareInt64(m.size[a], m.size[b]); c != 0 {
			return c
		}
		if c := compareInt64(m.align[a], m.align[b]); c != 0 {
			return c
		}
		ca, cb := m.firstChoice[a+1]-m.firstChoice[a], m.firstChoice[b+1]-m.firstChoice[b]
		if ca != cb {
			return int(ca - cb)
		}
		for k := int32(0); k < ca; k++ {
			x, y := m.firstChoice[a]+k, m.firstChoice[b]+k
			if c := int(m.lane0[x] - m.lane0[y]); c != 0 {
				return c
			}
			if c := int(m.lane1[x] - m.lane1[y]); c != 0 {
				return c
			}
		}
		return 0
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := key(a, b); c != 0 {
			return c
		}
		return int(a - b)
	})
	for k := 1; k < n; k++ {
		if key(order[k-1], order[k]) == 0 && m.choiceObstacles == nil {
			m.twinBefore[order[k]] = order[k-1]
		}
	}
}
