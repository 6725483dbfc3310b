package pack

import (
	"fmt"
	"sort"
)

// independentCheck validates a placement without sharing code with the
// solver or with Verify: it compares every pair of buffers whose lifetimes
// meet (sorted by start, pairs enumerated while the start is before the
// other's end). It returns "" when the placement is valid.
func independentCheck(p Problem, offsets []int64) string {
	if len(offsets) != len(p.Buffers) {
		return fmt.Sprintf("%d offsets for %d buffers", len(offsets), len(p.Buffers))
	}
	for i, b := range p.Buffers {
		o := offsets[i]
		if o < 0 {
			return fmt.Sprintf("buffer %d: negative offset %d", i, o)
		}
		if b.Align > 1 && o%b.Align != 0 {
			return fmt.Sprintf("buffer %d: offset %d breaks alignment %d", i, o, b.Align)
		}
		if b.Fixed != nil && *b.Fixed != o {
			return fmt.Sprintf("buffer %d: moved from its fixed offset %d to %d", i, *b.Fixed, o)
		}
		if b.Size > 0 && o+b.Size > p.Capacity {
			return fmt.Sprintf("buffer %d: ends at %d beyond capacity %d", i, o+b.Size, p.Capacity)
		}
	}
	idx := make([]int, len(p.Buffers))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p.Buffers[idx[a]].Lower < p.Buffers[idx[b]].Lower })
	for x := 0; x < len(idx); x++ {
		i := idx[x]
		bi := p.Buffers[i]
		for y := x + 1; y < len(idx); y++ {
			j := idx[y]
			bj := p.Buffers[j]
			if bj.Lower >= bi.Upper {
				break
			}
			if bi.Size == 0 || bj.Size == 0 {
				continue
			}
			if offsets[i] < offsets[j]+bj.Size && offsets[j] < offsets[i]+bi.Size {
				return fmt.Sprintf("buffers %d and %d are live together and overlap: [%d,%d) and [%d,%d)",
					i, j, offsets[i], offsets[i]+bi.Size, offsets[j], offsets[j]+bj.Size)
			}
		}
	}
	return ""
}
