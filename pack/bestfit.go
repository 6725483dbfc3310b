// The fast heuristics: BestFit (n log n) and greedy-by-size.
//
// BestFit sweeps time like a malloc that knows nothing of the future:
// buffers are visited by start time (ties: larger first, then index); the
// buffers that ended are freed first, their blocks coalescing with free
// neighbours; the new buffer takes the smallest free block it fits in
// (ties: lowest address), else the top of the heap, extending a free block
// that touches the top when there is one. The free blocks sit in a treap
// keyed by (size, address) and in two arrays-backed maps keyed by their
// start and end, so each step is O(log n) and the whole O(n log n); this is
// the path for very large inputs (100,000 tiles of an unrolled kernel), and
// it is what a compiler's online allocator does at best. Unlike the linear
// scan it reuses holes, so it tracks max-live closely when lifetimes are
// short and sizes repeat (the unrolled-kernel case); on adversarial
// instances it fragments. Fixed buffers are obstacles: a block is only used
// where it is clear of every fixed buffer live during the new buffer's life.
//
// greedyBySize is the classic offline planner of TFLite and XLA's heap
// simulator: buffers by decreasing size (then longer life, then index), each
// at the lowest legal offset clear of the already placed buffers it meets.
// It works on the exact model (so it also handles the lanes of the 2-D
// problem and the PSUM bank rule) and costs O(n x conflicts); the solver
// runs it when the conflict graph is of moderate size.
package pack

import "slices"

// BestFit places every buffer of p with the time-ordered best-fit free-list
// allocator, ignoring p.Capacity, and returns the offsets and the peak.
func BestFit(p Problem) ([]int64, int64, error) {
	if err := validate(p); err != nil {
		return nil, 0, err
	}
	offsets, order := presetOffsets(p.Buffers)
	slices.SortFunc(order, func(x, y int) int {
		bx, by := p.Buffers[x], p.Buffers[y]
		if c := compareInt64(bx.Lower, by.Lower); c != 0 {
			return c
		}
		if c := compareInt64(by.Size, bx.Size); c != 0 {
			return c
		}
		return x - y
	})
	obstacles := newObstacleIndex(p.Buffers)
	free := newFreeList()
	ends := &endHeap{}
	var spans []span
	for _, i := range order {
		b := p.Buffers[i]
		for ends.Len() > 0 && ends.minUpper() <= b.Lower {
			j := ends.pop()
			free.release(offsets[j], offsets[j]+p.Buffers[j].Size)
		}
		align := alignOf(b)
		if len(obstacles.fixed) > 0 {
			spans = obstacles.spans(b, spans)
		}
		offsets[i] = free.allocate(b.Size, align, spans)
		ends.push(i, b.Upper)
	}
	return offsets, Peak(p.Buffers, offsets), nil
}

// freeList tracks the free blocks below the heap top.
type freeList struct {
	bySize  *pairSet        // (size, start)
	byStart map[int64]int64 // start -> end
	byEnd   map[int64]int64 // end -> start
	top     int64           // everything at or above top is free
}

func newFreeList() *freeList {
	return &freeList{bySize: newPairSet(), byStart: map[int64]int64{}, byEnd: map[int64]int64{}}
}

func (f *freeList) add(start, end int64) {
	if end <= start {
		return
	}
	if end == f.top {
		f.top = start // a block touching the top merges into it
		return
	}
	f.bySize.insert(pairKey{end - start, start})
	f.byStart[start] = end
	f.byEnd[end] = start
}

func (f *freeList) drop(start, end int64) {
	f.bySize.remove(pairKey{end - start, start})
	delete(f.byStart, start)
	delete(f.byEnd, end)
}

// release frees [start, end), coalescing with free neighbours.
func (f *freeList) release(start, end int64) {
	if s, ok := f.byEnd[start]; ok {
		f.drop(s, start)
		start = s
	}
	if e, ok := f.byStart[end]; ok {
		f.drop(end, e)
		end = e
	}
	f.add(start, end)
}

// allocate takes size bytes at an aligned offset clear of the spans.
func (f *freeList) allocate(size, align int64, spans []span) int64 {
	key := pairKey{size, -1}
	for {
		k, ok := f.bySize.ceil(key)
		if !ok {
			break
		}
		start, end := k.b, k.b+k.a
		y := fitAmong(spans, start, size, align)
		if y+size <= end {
			f.drop(start, end)
			f.add(start, y)
			f.add(y+size, end)
			return y
		}
		key = pairKey{k.a, k.b + 1}
	}
	y := fitAmong(spans, f.top, size, align)
	old := f.top
	f.top = y + size
	f.add(old, y) // alignment or obstacle padding stays free
	return y
}

// greedyBySize places the items of the model by decreasing size at their
// lowest legal offset (choosing, for items with several choices, the choice
// that goes lowest). It ignores the capacity and returns the offsets, the
// choices and the peak.
func greedyBySize(m *exactModel) ([]int64, []int32, int64) {
	n := m.numItems()
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := compareInt64(m.size[b]*int64(m.laneCount[b]), m.size[a]*int64(m.laneCount[a])); c != 0 {
			return c
		}
		if c := compareInt64(m.width[b], m.width[a]); c != 0 {
			return c
		}
		return int(a - b)
	})
	offsets := make([]int64, n)
	chosen := make([]int32, n)
	placedChoice := make([]int32, n)
	for i := range placedChoice {
		placedChoice[i] = -1
	}
	var spans []span
	var peak int64
	for _, it := range order {
		bestOff, bestChoice := int64(unreachable), int32(-1)
		for c := m.firstChoice[it]; c < m.firstChoice[it+1]; c++ {
			spans = spans[:0]
			for _, d := range m.neighbors[m.neighborStart[c]:m.neighborStart[c+1]] {
				other := m.choiceItem[d]
				if placedChoice[other] == d {
					spans = append(spans, span{offsets[other], offsets[other] + m.size[other]})
				}
			}
			slices.SortFunc(spans, func(a, b span) int { return compareInt64(a.lo, b.lo) })
			y := m.legal(c, 0)
			for moved := true; moved; {
				moved = false
				for _, s := range spans {
					if s.lo >= y+m.size[it] {
						break
					}
					if s.hi > y {
						y = m.legal(c, s.hi)
						moved = true
					}
				}
			}
			if y < bestOff {
				bestOff, bestChoice = y, c
			}
		}
		offsets[it], chosen[it], placedChoice[it] = bestOff, bestChoice, bestChoice
		peak = max(peak, bestOff+m.size[it])
	}
	return offsets, chosen, peak
}
