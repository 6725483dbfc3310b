// Rule "overlap": no two simultaneously live allocations overlap, and a
// matmul accumulation group owns its PSUM bank while open (seed 002 §4,
// design.md "Allocation, scheduling and synchronization"). It applies to
// the allocated SB and PSUM locations an instruction reaches: all of them
// at StageAllocated, and those of an input that arrives allocated.
//
// The live ranges are computed here, from the instructions in program
// order, independently of the allocator (passes/alloc computes its own):
// the rule is a check of the allocation, not a replay of it.
//
//   - Positions: every instruction the walk reaches gets a position in
//     program order (f.Walk's order: a loop instruction before its body).
//     A loop's range is its own position through the last position of its
//     body.
//   - A location is touched by an instruction when an access pattern of
//     the instruction resolves to it: a physical AP names it; a symbolic
//     or register AP names its tensor, and resolves to the location of its
//     block when the block index is a constant, else to every location of
//     the tensor.
//   - Straight-line code: the live range is [first touch, last touch],
//     both inclusive (an instruction that reads one location and writes
//     another keeps both live: no in-place reuse is assumed).
//   - Loops (the seed's stack discipline, §4.1): a location is local to
//     loop L when every touch is inside L and its first touch in program
//     order is a definite write of all of it, executed in every iteration
//     of L before any other touch: the instruction writes the location and
//     does not read it (a Matmult without start_tensor_calc accumulates,
//     so it reads), its destination pattern covers the location (a
//     contiguous row-major pattern of all its bytes at offset 0), every
//     loop between L and the instruction runs at least once, and its
//     predicate is true or depends only on the axes of those loops and
//     holds when they are at their lower bounds (the first iteration:
//     checkMatmultAccLoop's accumulator, started at k == 0, is local to
//     the loop around the K loop). The live range of a location local to
//     some loop is the range of the innermost such loop. Otherwise each
//     touch inside a loop is widened to the range of its outermost loop,
//     and the live range is the hull.
//   - Accumulation groups: a Matmult with start_tensor_calc clears the
//     whole bank of each destination partition, and the group it opens
//     accumulates until a Matmult with stop_tensor_calc. In straight-line
//     code the group's window runs from its start to its stop on the same
//     location (to the end of the function when it never stops); in a
//     function with loops it is the location's whole live range. During
//     the window the group owns the whole bank(s) its location occupies,
//     on the location's partitions: no other location may be live there.
//
// Two locations conflict when their live ranges (or windows) share a
// position, their memories are the same, and they share a partition and a
// byte (PSUM bytes: bank * bank bytes + address). Each conflict is
// reported once, naming both locations, their placements and live ranges.
//
// Cost: one walk and a sweep over the touched locations in order of start
// (a counting sort by first-touch position: 4 bytes per instruction and
// per location); each newcomer is compared with the locations still live
// in its memory. A location's rectangle is built when the sweep reaches
// it, so the tables are the per-location ranges, not a record per
// location.
// In an allocation that fits, a few dozen locations are live at once, so
// the sweep is near linear; a module with thousands of tiny locations live
// at once costs O(n x live).
package verify

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// ovItem is one rectangle of the sweep: a location's live range, or an
// accumulation group's window over whole banks.
type ovItem struct {
	lo, hi   int32 // positions, inclusive
	loc      bir.LocID
	mem      bir.MemoryType
	p0, p1   int64 // partitions [p0, p1)
	b0, b1   int64 // bytes [b0, b1)
	isWindow bool
}

// ovScratch are the overlap rule's tables (reused through the checker
// pool).
type ovScratch struct {
	ovLo, ovHi []int32     // per location: first and last touch position, then live range (-1: none)
	ovFirst    []int32     // per location: the instruction of the first touch
	ovLastTch  []int32     // per location: the instruction of the last touch
	ovWin      []int32     // per location: open group window start (-1: none)
	loopLo     []int32     // per loop table entry: the loop's position
	loopHi     []int32     // per loop table entry: the last position of its body
	ovItems    []ovItem    // the accumulation-group windows
	ovStart    []int32     // per position + 1: counting-sort bucket starts
	ovOrder    []bir.LocID // the touched locations by (live range start, id)
	ovSlots    []ovItem    // the rectangles live at the sweep position, in reused slots
	ovSeq      []int32     // per slot: the rectangle's rank in the sweep
	ovFree     []int32     // free slots
	ovExpiry   []int32     // the live slots, a min-heap by live range end
	ovByAddr   [2][]int32  // per memory (SB, PSUM): the live slots by (first byte, rank)
	ovTouch    []bir.LocID // scratch: the locations one operand resolves to
	ovBlocks   []uint64    // blocks visited by the position walk
	ovPending  []ovConflict
}

// ovConflict is a pair the sweep found: a was live when b started.
type ovConflict struct{ a, b ovItem }

// overlaps applies rule "overlap" to the current function.
func (c *checker) overlaps() {
	f := c.f
	a := c.arch
	if a == nil {
		return
	}
	// Which locations take part: allocated SB/PSUM locations that an
	// instruction reaches.
	any := false
	for w, word := range c.usedLoc {
		for word != 0 {
			b := word & -word
			word &^= b
			k := w*64 + bits.TrailingZeros64(b)
			if lc := f.Loc(bir.LocID(k)); !lc.Dead && lc.Allocated && (lc.Type == bir.MemSB || lc.Type == bir.MemPSUM) {
				any = true
				break
			}
		}
		if any {
			break
		}
	}
	if !any {
		return
	}
	c.ovLo = fillInt32(c.ovLo, c.nLocs, -1)
	c.ovHi = fillInt32(c.ovHi, c.nLocs, -1)
	c.ovFirst = fillInt32(c.ovFirst, c.nLocs, -1)
	c.ovLastTch = fillInt32(c.ovLastTch, c.nLocs, -1)
	c.ovWin = fillInt32(c.ovWin, c.nLocs, -1)
	c.loopLo = fillInt32(c.loopLo, c.nLoops, -1)
	c.loopHi = fillInt32(c.loopHi, c.nLoops, -1)
	c.ovItems = c.ovItems[:0]
	c.ovBlocks = growBits(c.ovBlocks, c.nBlocks)
	c.ovPending = c.ovPending[:0]
	hasLoops := false
	for _, b := range f.Top {
		if b < 0 || int(b) >= c.nBlocks {
			continue
		}
		for _, i := range f.Block(b).Insts {
			if i >= 0 && int(i) < c.nInsts && f.Inst(i).Op.IsLoop() {
				hasLoops = true
			}
		}
	}
	pos := int32(0)
	var walk func(b bir.BlockID)
	walk = func(b bir.BlockID) {
		if b < 0 || int(b) >= c.nBlocks || bitSet(c.ovBlocks, int(b)) {
			return
		}
		setBit(c.ovBlocks, int(b))
		for _, i := range f.Block(b).Insts {
			if i < 0 || int(i) >= c.nInsts || f.Inst(i).Dead() {
				continue
			}
			p := pos
			pos++
			in := f.Inst(i)
			if in.Op.IsLoop() {
				if in.Aux < 0 || int(in.Aux) >= c.nLoops {
					continue
				}
				c.loopLo[in.Aux] = p
				for _, bb := range f.Loop(i).Body {
					walk(bb)
				}
				c.loopHi[in.Aux] = pos - 1
				continue
			}
			c.ovInst(i, p, !hasLoops)
		}
	}
	for _, b := range f.Top {
		walk(b)
	}
	last := pos - 1
	// Group windows still open at the end of straight-line code run to
	// its end (a group that never stops keeps its bank).
	if !hasLoops {
		for l, s := range c.ovWin {
			if s >= 0 {
				c.ovWindow(bir.LocID(l), s, last)
			}
		}
	}
	// Live ranges (in loop code widened in place: ovLoopRange reads only
	// the location's own first and last touch), then the touched
	// locations in order of start, ties by id (a stable counting sort).
	c.ovStart = fillInt32(c.ovStart, int(pos)+1, 0)
	touched := 0
	for k := 0; k < c.nLocs; k++ {
		if c.ovLo[k] < 0 {
			continue
		}
		if hasLoops {
			l := bir.LocID(k)
			lo, hi := c.ovLoopRange(l)
			if c.ovWin[k] >= 0 { // a group in loop code owns its bank for the whole range
				c.ovWindow(l, lo, hi)
			}
			c.ovLo[k], c.ovHi[k] = lo, hi
		}
		c.ovStart[c.ovLo[k]+1]++
		touched++
	}
	for p := 1; p < len(c.ovStart); p++ {
		c.ovStart[p] += c.ovStart[p-1]
	}
	c.ovOrder = grow(c.ovOrder, touched)
	for k := 0; k < c.nLocs; k++ {
		if lo := c.ovLo[k]; lo >= 0 {
			c.ovOrder[c.ovStart[lo]] = bir.LocID(k)
			c.ovStart[lo]++
		}
	}
	c.ovSweep(a)
	c.ovReport()
}

// ovRect returns location l's rectangle over its live range.
func (c *checker) ovRect(a *arch.Model, l bir.LocID) ovItem {
	lc := c.f.Loc(l)
	it := ovItem{lo: c.ovLo[l], hi: c.ovHi[l], loc: l, mem: lc.Type, p0: lc.Base, p1: lc.Base + lc.Partitions}
	it.b0, it.b1 = lc.Addr, lc.Addr+lc.Bytes
	if lc.Type == bir.MemPSUM {
		it.b0 = a.PSUMAddress(lc.Bank, lc.Addr)
		it.b1 = it.b0 + lc.Bytes
	}
	return it
}

func fillInt32(s []int32, n int, v int32) []int32 {
	s = grow(s, n)
	for k := range s {
		s[k] = v
	}
	return s
}

// ovTarget reports whether location l takes part in the rule.
func (c *checker) ovTarget(l bir.LocID) bool {
	if !c.validLoc(l) {
		return false
	}
	lc := c.f.Loc(l)
	return lc.Allocated && (lc.Type == bir.MemSB || lc.Type == bir.MemPSUM) && lc.Partitions > 0 && lc.Base >= 0 && lc.Addr >= 0 && lc.Bank >= 0
}

// ovResolve returns the locations operand o resolves to (see the file
// comment).
func (c *checker) ovResolve(o *bir.Operand) []bir.LocID {
	out := c.ovTouch[:0]
	switch o.Kind {
	case bir.OpdPhysAP:
		if c.ovTarget(o.Loc()) {
			out = append(out, o.Loc())
		}
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if !c.validTensor(t) {
			break
		}
		if o.Kind == bir.OpdSymAP && o.BlockExpr() >= 0 && int(o.BlockExpr()) < c.nExprs {
			if be := c.m.Expr(o.BlockExpr()); be.IsConst() {
				if l, ok := c.locForBlock(t, be.Const); ok && c.ovTarget(l) {
					out = append(out, l)
				}
				break
			}
		}
		for _, l := range c.f.Tensor(t).Locs {
			if c.ovTarget(l) {
				out = append(out, l)
			}
		}
	}
	c.ovTouch = out
	return out
}

// ovInst records instruction i's touches at position p and, in
// straight-line code, opens and closes accumulation-group windows.
func (c *checker) ovInst(i bir.InstID, p int32, straight bool) {
	f := c.f
	in := f.Inst(i)
	nIn := int(in.NIns)
	ops := f.Operands(i)
	mm := in.Op.IsMatmul()
	for k := range ops {
		o := &ops[k]
		if !o.Kind.IsAP() {
			continue
		}
		for _, l := range c.ovResolve(o) {
			if c.ovLo[l] < 0 {
				c.ovLo[l] = p
				c.ovFirst[l] = int32(i)
			}
			c.ovHi[l] = p
			c.ovLastTch[l] = int32(i)
			if !mm || k < nIn || f.Loc(l).Type != bir.MemPSUM {
				continue
			}
			attrs := c.instAttrs(i)
			start, stop := attrs.Bool("start_tensor_calc", false), attrs.Bool("stop_tensor_calc", false)
			if !straight {
				if start {
					c.ovWin[l] = 0 // marks "has a group"; the window is the live range
				}
				continue
			}
			if start {
				if s := c.ovWin[l]; s >= 0 && s < p {
					c.ovWindow(l, s, p-1) // a restart closes the open group
				}
				c.ovWin[l] = p
			}
			if stop && c.ovWin[l] >= 0 {
				c.ovWindow(l, c.ovWin[l], p)
				c.ovWin[l] = -1
			}
		}
	}
}

// instAttrs returns i's attribute set, or none when its id is bad (the
// attr rule reports it).
func (c *checker) instAttrs(i bir.InstID) bir.AttrSet {
	if id := c.f.Inst(i).Attrs; id < 0 || int(id) >= c.nAttrs {
		return nil
	}
	return c.f.Attrs(i)
}

// ovWindow adds the window [lo, hi] of location l's accumulation group:
// the whole banks l occupies, on l's partitions.
func (c *checker) ovWindow(l bir.LocID, lo, hi int32) {
	lc := c.f.Loc(l)
	bank := c.arch.PSUMBankBytes
	if bank <= 0 || lc.Bytes <= 0 {
		return
	}
	start := c.arch.PSUMAddress(lc.Bank, lc.Addr)
	b0 := start / bank * bank
	b1 := (start + lc.Bytes + bank - 1) / bank * bank
	c.ovItems = append(c.ovItems, ovItem{lo: lo, hi: hi, loc: l, mem: bir.MemPSUM, p0: lc.Base, p1: lc.Base + lc.Partitions, b0: b0, b1: b1, isWindow: true})
}

// ovLoopRange returns location l's live range in a function with loops
// (see the file comment).
func (c *checker) ovLoopRange(l bir.LocID) (int32, int32) {
	f := c.f
	lo, hi := c.ovLo[l], c.ovHi[l]
	first := bir.InstID(c.ovFirst[l])
	// The innermost loop containing both the first and the last touch.
	// Every chain of enclosing loops is bounded by the loop count (a
	// corrupt module may link blocks in a cycle).
	L := c.enclosingLoop(first)
	for n := 0; L != bir.NoInst && n <= c.nLoops && !c.loopHolds(L, hi); n++ {
		L = c.enclosingLoop(L)
	}
	for n := 0; L != bir.NoInst && n <= c.nLoops; L, n = c.enclosingLoop(L), n+1 {
		if c.definiteDef(first, l, L) {
			aux := f.Inst(L).Aux
			return c.loopLo[aux], c.loopHi[aux]
		}
	}
	// Not local to any loop: widen each end to its outermost loop.
	if o := c.outermostLoop(first); o != bir.NoInst && c.loopLo[f.Inst(o).Aux] >= 0 {
		lo = min(lo, c.loopLo[f.Inst(o).Aux])
	}
	if o := c.outermostLoop(bir.InstID(c.ovLastTch[l])); o != bir.NoInst && c.loopHi[f.Inst(o).Aux] >= 0 {
		hi = max(hi, c.loopHi[f.Inst(o).Aux])
	}
	return lo, hi
}

// loopHolds reports whether position p is in loop L's range.
func (c *checker) loopHolds(L bir.InstID, p int32) bool {
	aux := c.f.Inst(L).Aux
	return c.loopLo[aux] >= 0 && c.loopLo[aux] <= p && p <= c.loopHi[aux]
}

// enclosingLoop returns the loop instruction whose body holds i, or NoInst.
func (c *checker) enclosingLoop(i bir.InstID) bir.InstID {
	b := c.f.Inst(i).Block
	if b < 0 || int(b) >= c.nBlocks {
		return bir.NoInst
	}
	p := c.f.Block(b).Parent
	if p < 0 || int(p) >= c.nInsts || !c.f.Inst(p).Op.IsLoop() || c.f.Inst(p).Aux < 0 || int(c.f.Inst(p).Aux) >= c.nLoops {
		return bir.NoInst
	}
	return p
}

func (c *checker) outermostLoop(i bir.InstID) bir.InstID {
	o := bir.NoInst
	for L, n := c.enclosingLoop(i), 0; L != bir.NoInst && n <= c.nLoops; L, n = c.enclosingLoop(L), n+1 {
		o = L
	}
	return o
}

// definiteDef reports whether instruction i (the first touch of l) writes
// all of l, without reading it, in every iteration of loop L before any
// other touch (see the file comment).
func (c *checker) definiteDef(i bir.InstID, l bir.LocID, L bir.InstID) bool {
	f := c.f
	in := f.Inst(i)
	ops := f.Operands(i)
	nIn := int(in.NIns)
	for k := 0; k < nIn; k++ {
		for _, x := range c.ovResolve(&ops[k]) {
			if x == l {
				return false
			}
		}
	}
	if in.Op.IsMatmul() && !c.instAttrs(i).Bool("start_tensor_calc", false) {
		return false // accumulates: reads the destination
	}
	covered := false
	lc := f.Loc(l)
	for k := nIn; k < len(ops); k++ {
		o := &ops[k]
		if !c.writesAll(o, l, lc) {
			continue
		}
		covered = true
	}
	if !covered {
		return false
	}
	// Loops strictly inside L around i run at least once; the predicate
	// holds at their first iteration and reads no other axis.
	var env affine.Values
	for J, n := c.enclosingLoop(i), 0; J != L; J, n = c.enclosingLoop(J), n+1 {
		if J == bir.NoInst || n > c.nLoops {
			return false
		}
		ax := f.Loop(J).Axis
		if ax < 0 || int(ax) >= c.nAxes {
			return false
		}
		ai := c.m.Axis(ax)
		if ai.TripCount() < 1 {
			return false
		}
		env.Bind(ax, ai.Lb)
	}
	if in.Pred == 0 {
		return true
	}
	if in.Pred < 0 || int(in.Pred) >= c.nPreds {
		return false
	}
	ok, err := c.m.Pred(in.Pred).Eval(&env)
	return err == nil && ok
}

// writesAll reports whether destination operand o writes every byte of
// location l: it resolves to l alone, at offset 0, with a contiguous
// row-major pattern covering l's bytes.
func (c *checker) writesAll(o *bir.Operand, l bir.LocID, lc *bir.MemLoc) bool {
	switch o.Kind {
	case bir.OpdPhysAP:
		if o.Loc() != l || o.Offset != 0 {
			return false
		}
	case bir.OpdSymAP:
		t := o.TensorRef()
		if !c.validTensor(t) || lc.Tensor != t || int(o.OffsetExpr()) < 0 || int(o.OffsetExpr()) >= c.nExprs || int(o.BlockExpr()) < 0 || int(o.BlockExpr()) >= c.nExprs {
			return false
		}
		if oe := c.m.Expr(o.OffsetExpr()); !oe.IsConst() || oe.Const != 0 {
			return false
		}
		// One location for every block (a template), or the constant
		// block's own.
		if be := c.m.Expr(o.BlockExpr()); be.IsConst() {
			if x, ok := c.locForBlock(t, be.Const); !ok || x != l {
				return false
			}
		} else if len(c.f.Tensor(t).Locs) != 1 {
			return false
		}
	default:
		return false
	}
	if o.Pattern < 0 || int(o.Pattern) >= c.nPats || !o.Dtype.Valid() {
		return false
	}
	p := c.m.Pattern(o.Pattern)
	step := int64(1)
	for k := len(p) - 1; k >= 0; k-- {
		if p[k].Step != step {
			return false
		}
		n, ok := mulLimit(step, p[k].Num)
		if !ok {
			return false
		}
		step = n
	}
	bytes, ok := mulLimit(step, o.Dtype.Size())
	return ok && bytes == lc.Partitions*lc.Bytes
}

// ovSweep finds the conflicting pairs: the locations in order of start
// (ovOrder) merged with the group windows sorted by start, ties by
// location, a window after its location's live range. Each newcomer is
// compared with the rectangles still live in its memory whose bytes can
// meet its own (those starting less than the memory's longest byte
// length before its first byte, found by binary search in the live
// rectangles sorted by first byte): in a fitting allocation that is a
// handful, where a list of every live rectangle was scanned (150 on
// average on tensor_add). The one reported is, as in that scan, the live
// rectangle that started first.
func (c *checker) ovSweep(a *arch.Model) {
	wins := c.ovItems
	slices.SortStableFunc(wins, func(x, y ovItem) int {
		if x.lo != y.lo {
			return int(x.lo - y.lo)
		}
		return int(x.loc - y.loc)
	})
	slots, seq, free, heap := c.ovSlots[:0], c.ovSeq[:0], c.ovFree[:0], c.ovExpiry[:0]
	byAddr := [2][]int32{c.ovByAddr[0][:0], c.ovByAddr[1][:0]}
	var maxLen [2]int64
	memIdx := func(m bir.MemoryType) int {
		if m == bir.MemPSUM {
			return 1
		}
		return 0
	}
	// at returns where slot x goes in list: after every rectangle with a
	// smaller first byte, or the same and an earlier rank.
	at := func(list []int32, b0 int64, rank int32) int {
		k, _ := slices.BinarySearchFunc(list, 0, func(y int32, _ int) int {
			if slots[y].b0 != b0 {
				return cmp.Compare(slots[y].b0, b0)
			}
			return cmp.Compare(seq[y], rank)
		})
		return k
	}
	heapLess := func(i, j int) bool { return slots[heap[i]].hi < slots[heap[j]].hi }
	locs := c.ovOrder
	for rank := int32(0); len(locs) > 0 || len(wins) > 0; rank++ {
		var it ovItem
		if len(wins) == 0 || len(locs) > 0 && (c.ovLo[locs[0]] < wins[0].lo || c.ovLo[locs[0]] == wins[0].lo && locs[0] <= wins[0].loc) {
			it = c.ovRect(a, locs[0])
			locs = locs[1:]
		} else {
			it = wins[0]
			wins = wins[1:]
		}
		// Expire the rectangles whose range ended before it starts.
		for len(heap) > 0 && slots[heap[0]].hi < it.lo {
			x := heap[0]
			n := len(heap) - 1
			heap[0] = heap[n]
			heap = heap[:n]
			siftDown(heap, 0, heapLess)
			m := memIdx(slots[x].mem)
			k := at(byAddr[m], slots[x].b0, seq[x])
			byAddr[m] = slices.Delete(byAddr[m], k, k+1)
			free = append(free, x)
		}
		m := memIdx(it.mem)
		list := byAddr[m]
		best := int32(-1)
		from := int64(math.MinInt64) // the first byte a live rectangle meeting it can start at
		if it.b0 > math.MinInt64+maxLen[m] {
			from = it.b0 - maxLen[m] + 1
		}
		for k := at(list, from, -1); k < len(list); k++ {
			o := &slots[list[k]]
			if o.b0 >= it.b1 {
				break
			}
			if o.loc == it.loc || o.mem != it.mem || o.p1 <= it.p0 || it.p1 <= o.p0 || o.b1 <= it.b0 || it.b1 <= o.b0 {
				continue
			}
			if best < 0 || seq[list[k]] < seq[best] {
				best = list[k]
			}
		}
		if best >= 0 {
			c.ovPending = append(c.ovPending, ovConflict{slots[best], it}) // one report per newcomer
		}
		var x int32
		if n := len(free); n > 0 {
			x, free = free[n-1], free[:n-1]
			slots[x], seq[x] = it, rank
		} else {
			x = int32(len(slots))
			slots, seq = append(slots, it), append(seq, rank)
		}
		maxLen[m] = max(maxLen[m], it.b1-it.b0)
		byAddr[m] = slices.Insert(list, at(list, it.b0, rank), x)
		heap = append(heap, x)
		siftUp(heap, len(heap)-1, heapLess)
	}
	c.ovSlots, c.ovSeq, c.ovFree, c.ovExpiry, c.ovByAddr = slots, seq, free, heap, byAddr
}

// siftUp and siftDown restore a binary min-heap of slots (less compares
// two heap positions).
func siftUp(h []int32, k int, less func(i, j int) bool) {
	for k > 0 {
		p := (k - 1) / 2
		if !less(k, p) {
			return
		}
		h[k], h[p] = h[p], h[k]
		k = p
	}
}

func siftDown(h []int32, k int, less func(i, j int) bool) {
	for {
		l := 2*k + 1
		if l >= len(h) {
			return
		}
		c := l
		if r := l + 1; r < len(h) && less(r, l) {
			c = r
		}
		if !less(c, k) {
			return
		}
		h[k], h[c] = h[c], h[k]
		k = c
	}
}

// ovReport turns the conflicts into diagnostics, naming the live ranges
// by their first and last instructions.
func (c *checker) ovReport() {
	if len(c.ovPending) == 0 {
		return
	}
	// Positions to instruction names: one more walk, only on failure.
	want := map[int32]string{}
	for _, p := range c.ovPending {
		for _, it := range [2]*ovItem{&p.a, &p.b} {
			want[it.lo], want[it.hi] = "", ""
		}
	}
	pos := int32(0)
	c.ovBlocks = growBits(c.ovBlocks, c.nBlocks)
	var walk func(b bir.BlockID)
	walk = func(b bir.BlockID) {
		if b < 0 || int(b) >= c.nBlocks || bitSet(c.ovBlocks, int(b)) {
			return
		}
		setBit(c.ovBlocks, int(b))
		for _, i := range c.f.Block(b).Insts {
			if i < 0 || int(i) >= c.nInsts || c.f.Inst(i).Dead() {
				continue
			}
			if _, ok := want[pos]; ok {
				want[pos] = c.instName(i)
			}
			pos++
			if in := c.f.Inst(i); in.Op.IsLoop() && in.Aux >= 0 && int(in.Aux) < c.nLoops {
				for _, bb := range c.f.Loop(i).Body {
					walk(bb)
				}
			}
		}
	}
	for _, b := range c.f.Top {
		walk(b)
	}
	describe := func(it *ovItem) string {
		lc := c.f.Loc(it.loc)
		var b strings.Builder
		what := "live"
		if it.isWindow {
			what = "accumulation group open"
		}
		fmt.Fprintf(&b, "%s (%s partitions [%d, %d) bytes [%d, %d), %s %s..%s)", lc.Name, lc.Type, it.p0, it.p1, it.b0, it.b1, what, want[it.lo], want[it.hi])
		return b.String()
	}
	for _, p := range c.ovPending {
		x, y := &p.a, &p.b
		msg := "simultaneously live allocations overlap: %s and %s: want disjoint partitions or bytes"
		if x.isWindow || y.isWindow {
			msg = "a matmul accumulation group owns its whole PSUM bank while open: %s and %s share it: want them in different banks"
		}
		c.locDiag(y.loc, "overlap", msg, describe(x), describe(y))
	}
}
