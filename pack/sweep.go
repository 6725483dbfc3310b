// Time preprocessing shared by the solvers: components and time sections.
//
// Components. Two buffers interact only if their live intervals intersect.
// Sorting buffers by Lower and sweeping with the running maximum of Upper
// splits the problem at every instant that nothing is live across: the
// pieces ("components") are independent problems, and the whole fits if and
// only if every piece fits. This is the static half of MiniMalloc's
// "partitions"; the exact search repeats the split dynamically, as buffers
// get placed (see search.go).
//
// Sections. Within a component the distinct Lower/Upper instants cut time
// into elementary half-open sections [t_k, t_k+1); the set of live buffers is
// constant on each, and every buffer covers a contiguous run of sections
// [s0, s1). The exact search works on sections rather than raw times: a
// buffer's lowest possible offset is the highest "floor" among its sections,
// and the section totals give the cross-section inference.
package pack

import "sort"

// splitComponents groups the buffer indices in idx (buffers with
// Upper > Lower; size may be 0) into independent components: within a
// component the live intervals form one connected chain; different
// components never overlap in time. Components come out in time order, and
// the indices inside each are in (Lower, index) order. Deterministic.
func splitComponents(buffers []Buffer, idx []int) [][]int {
	order := append([]int(nil), idx...)
	sort.Slice(order, func(x, y int) bool {
		bx, by := buffers[order[x]], buffers[order[y]]
		if bx.Lower != by.Lower {
			return bx.Lower < by.Lower
		}
		return order[x] < order[y]
	})
	var comps [][]int
	start := 0
	var reach int64
	for k, i := range order {
		b := buffers[i]
		if k > start && b.Lower >= reach {
			comps = append(comps, order[start:k:k])
			start = k
		}
		if k == start || b.Upper > reach {
			reach = b.Upper
		}
	}
	if start < len(order) {
		comps = append(comps, order[start:])
	}
	return comps
}

// componentMaxLive is MaxLive restricted to the buffers in idx.
func componentMaxLive(buffers []Buffer, idx []int) int64 {
	sub := make([]Buffer, len(idx))
	for k, i := range idx {
		sub[k] = buffers[i]
	}
	return MaxLive(sub)
}
