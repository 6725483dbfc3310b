// LinearScan: the baseline, the original compiler's stack allocator.
//
// Seed 002 §4.2 describes neuronx-cc's StackAllocator::LinearScanStackAllocator
// ("it tries to assign tensor addr in linear scan [manner with stack live
// interval]"; assign_sb_addr "assign only byteaddr to SB tensors"). Tensors
// are visited in order of the start of their live interval; before each,
// expire_intervals releases the tensors whose interval has ended; the new
// tensor gets the current byte cursor, aligned (align_up(size, dtype_align)),
// and the cursor moves past it. The compiler's live intervals follow a stack
// discipline (a tensor lives for its enclosing loop, §4.1), so expiry pops
// the top of the stack and the cursor falls back.
//
// For general (non-nested) intervals we keep exactly that behaviour: the
// live tensors form a stack in allocation order; an expired tensor is popped
// only once every tensor above it has expired too, and the cursor is the end
// of the topmost live tensor. A hole below a long-lived tensor is therefore
// never reused until that tensor dies: this is why linear scan can end far
// above max-live, and why this package exists. Pinned (Fixed) buffers keep
// their offset and the cursor skips over any of them that is live at the
// same time. Ties in start time go by index. O(n log n) without fixed
// buffers (plus O(fixed) per buffer with them).
package pack

import "slices"

// LinearScan places every buffer of p with the seed's linear-scan stack
// allocator, ignoring p.Capacity, and returns the offsets (indexed like
// p.Buffers) and the peak. Invalid input gives an error.
func LinearScan(p Problem) ([]int64, int64, error) {
	if err := validate(p); err != nil {
		return nil, 0, err
	}
	offsets, order := presetOffsets(p.Buffers)
	obstacles := newObstacleIndex(p.Buffers)
	slices.SortFunc(order, func(x, y int) int {
		if c := compareInt64(p.Buffers[x].Lower, p.Buffers[y].Lower); c != 0 {
			return c
		}
		return x - y
	})
	type entry struct {
		index   int
		end     int64
		expired bool
	}
	var stack []entry
	position := make([]int, len(p.Buffers)) // buffer index -> stack slot
	ends := &endHeap{}
	for _, i := range order {
		b := p.Buffers[i]
		for ends.Len() > 0 && ends.minUpper() <= b.Lower {
			j := ends.pop()
			stack[position[j]].expired = true
		}
		for len(stack) > 0 && stack[len(stack)-1].expired {
			stack = stack[:len(stack)-1]
		}
		var cursor int64
		if len(stack) > 0 {
			cursor = stack[len(stack)-1].end
		}
		off := obstacles.lowestFit(b, cursor)
		offsets[i] = off
		position[i] = len(stack)
		stack = append(stack, entry{index: i, end: off + b.Size})
		ends.push(i, b.Upper)
	}
	return offsets, Peak(p.Buffers, offsets), nil
}

// obstacleIndex answers "lowest legal offset >= x for buffer b, clear of
// the fixed buffers live at the same time as b".
type obstacleIndex struct {
	fixed []int // indices of fixed buffers with positive size, by Lower
	bufs  []Buffer
}

func newObstacleIndex(buffers []Buffer) *obstacleIndex {
	o := &obstacleIndex{bufs: buffers}
	for i, b := range buffers {
		if b.Fixed != nil && b.Size > 0 {
			o.fixed = append(o.fixed, i)
		}
	}
	slices.SortFunc(o.fixed, func(x, y int) int { return compareInt64(buffers[x].Lower, buffers[y].Lower) })
	return o
}

// spans returns the byte ranges of the fixed buffers live during b, by lo.
func (o *obstacleIndex) spans(b Buffer, into []span) []span {
	into = into[:0]
	for _, f := range o.fixed {
		fb := o.bufs[f]
		if fb.Lower >= b.Upper {
			break
		}
		if fb.Upper > b.Lower {
			into = append(into, span{*fb.Fixed, *fb.Fixed + fb.Size})
		}
	}
	slices.SortFunc(into, func(a, c span) int { return compareInt64(a.lo, c.lo) })
	return into
}

func (o *obstacleIndex) lowestFit(b Buffer, x int64) int64 {
	y := alignUp(x, alignOf(b))
	if len(o.fixed) == 0 {
		return y
	}
	return fitAmong(o.spans(b, nil), y, b.Size, alignOf(b))
}

// fitAmong returns the lowest aligned y >= x with [y, y+size) clear of the
// spans (sorted by lo).
func fitAmong(spans []span, x, size, align int64) int64 {
	y := alignUp(x, align)
	for moved := true; moved; {
		moved = false
		for _, s := range spans {
			if s.lo >= y+size {
				break
			}
			if s.hi > y && s.lo < y+size {
				y = alignUp(s.hi, align)
				moved = true
			}
		}
	}
	return y
}

// presetOffsets gives the fixed buffers their offsets and the zero-size
// ones offset 0, and returns the offsets and the indices of the buffers
// left to place, in index order (the start of both heuristics).
func presetOffsets(bufs []Buffer) (offsets []int64, order []int) {
	offsets = make([]int64, len(bufs))
	order = make([]int, 0, len(bufs))
	for i, b := range bufs {
		switch {
		case b.Fixed != nil:
			offsets[i] = *b.Fixed
		case b.Size == 0:
		default:
			order = append(order, i)
		}
	}
	return offsets, order
}
