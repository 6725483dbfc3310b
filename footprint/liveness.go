// Block liveness: how many of a block tensor's blocks are live at once —
// the live-block count seed 000's shrink_tensor and seed 004's
// shrinkTensor record as liveN, with the shrink dim (setLiveN,
// setShrinkDim) — computed by executing the loop structure abstractly: no
// data, only the block index of every access, in execution order.
package footprint

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// BlockLive is the liveness summary of one block tensor.
type BlockLive struct {
	// NBlocks is the tensor's block count; 0 for a tensor that is not a
	// block tensor with more than one block (nothing to analyse).
	NBlocks int64
	// MaxLive is the largest number of blocks live at once, a block being
	// live from its first access to its last in execution order; 0 when
	// unknown (Why says why) or when no block is accessed.
	MaxLive int64
	// Touched is the number of distinct blocks accessed.
	Touched int64
	// Events is the number of block accesses executed.
	Events int64
	// Why explains an unknown MaxLive.
	Why string
}

// BlockLiveness analyses every block tensor of f (IsBlock, NBlocks > 1):
// which blocks each access reaches — symbolic access patterns by
// evaluating their block index for every iteration of the enclosing static
// loops, physical ones by the tensor id of the location they name — and
// how many blocks are live at once. Instructions whose predicate is false
// on an iteration do not access anything there. The result is indexed by
// TensorID.
//
// A tensor's result is unknown (MaxLive 0, Why set) when an access sits in
// a loop whose trip count is known only at run time (a DoWhile, a
// DynamicForLoop with register bounds; one bounded by its axis has the
// same iterations as a Loop: bir.Function.StaticTripCount), goes through a
// register access pattern, names the single template location of a
// multi-block tensor physically (which block is meant is not said), or has
// a block index that does not evaluate inside [0, NBlocks); every result
// is unknown when more than maxEvents block accesses would be executed
// (maxEvents <= 0: no limit). The cost is linear in the number of block
// accesses executed plus the static size of f.
func BlockLiveness(f *bir.Function, maxEvents int64) []BlockLive {
	res := make([]BlockLive, f.NumTensors())
	found := false
	for t := range res {
		ts := f.Tensor(bir.TensorID(t))
		if !ts.Dead && ts.IsBlock && ts.NBlocks > 1 {
			res[t].NBlocks = ts.NBlocks
			found = true
		}
	}
	if !found {
		return res
	}
	bl := &blockLiveness{f: f, res: res, maxEvents: maxEvents,
		times:    make([]blockTimes, len(res)),
		hasEvent: make([]bool, f.NumInstSlots()), locs: make([]locBlock, f.NumLocs())}
	// A dense copy of (tensor, block) per location: the per-operand
	// lookups then read 8 bytes instead of a MemLoc.
	for l := range bl.locs {
		lc := f.Loc(bir.LocID(l))
		bl.locs[l] = locBlock{t: -1}
		if !lc.Dead && bl.blockTensor(lc.Tensor) {
			bl.locs[l] = locBlock{t: int32(lc.Tensor), blk: lc.TensorIdx, template: len(f.Tensor(lc.Tensor).Locs) <= 1}
		}
	}
	// Static pass: which instructions access a block tensor, which loops
	// contain such an instruction.
	for _, b := range f.Top {
		bl.mark(b)
	}
	bl.exec(f.Top)
	if bl.overflow {
		for t := range res {
			if res[t].NBlocks > 0 {
				res[t].MaxLive = 0
				res[t].Why = fmt.Sprintf("more than %d block accesses and loop iterations to execute", maxEvents)
			}
		}
		return res
	}
	for t := range res {
		r := &res[t]
		if r.NBlocks == 0 || r.Why != "" || r.Events == 0 {
			continue
		}
		first, last := bl.times[t].intervals()
		r.MaxLive, r.Touched = maxOverlap(first, last)
	}
	return res
}

// locBlock is the block a location holds, t -1 when its tensor is not
// under analysis.
type locBlock struct {
	t        int32
	template bool
	blk      int64
}

type blockLiveness struct {
	f         *bir.Function
	locs      []locBlock
	res       []BlockLive
	times     []blockTimes // per tensor
	hasEvent  []bool       // per instruction (loops: the body has one)
	env       affine.Values
	time      int64
	steps     int64 // events and loop iterations executed (the budget)
	maxEvents int64
	overflow  bool
}

// blockTensor reports whether t is a tensor under analysis.
func (bl *blockLiveness) blockTensor(t bir.TensorID) bool {
	return int(t) >= 0 && int(t) < len(bl.res) && bl.res[t].NBlocks > 0
}

// mark computes hasEvent for the instructions inside loops (and for the
// loops: whether their body has one), and marks unknown the tensors a
// dynamic loop reaches. It reports whether b contains an event. The
// top-level instructions are not marked: exec hands them to event
// directly (one scan of their operands instead of two).
func (bl *blockLiveness) mark(b bir.BlockID) bool {
	f := bl.f
	found := false
	for _, i := range f.Block(b).Insts {
		in := f.Inst(i)
		if in.Op.IsLoop() && in.Aux >= 0 {
			inner := false
			for _, bb := range f.Loop(i).Body {
				if bl.mark(bb) {
					inner = true
				}
			}
			if _, static := f.StaticTripCount(i); inner && !static {
				bl.unknownIn(i, fmt.Sprintf("accessed inside %s %s (a run-time trip count)", f.OpName(i), f.InstName(i)))
			}
			bl.hasEvent[i] = inner
			found = found || inner
			continue
		}
		if f.Block(b).Parent == bir.NoInst {
			continue // top level: exec scans it once
		}
		bl.hasEvent[i] = bl.touches(i)
		found = found || bl.hasEvent[i]
	}
	return found
}

// touches reports whether instruction i reaches a tensor under analysis.
func (bl *blockLiveness) touches(i bir.InstID) bool {
	for _, o := range bl.f.Operands(i) {
		switch o.Kind {
		case bir.OpdSymAP, bir.OpdRegAP:
			if bl.blockTensor(o.TensorRef()) {
				return true
			}
		case bir.OpdPhysAP:
			if l := o.Loc(); int(l) >= 0 && int(l) < len(bl.locs) && bl.locs[l].t >= 0 {
				return true
			}
		}
	}
	return false
}

func (bl *blockLiveness) unknown(t bir.TensorID, why string) {
	if bl.res[t].Why == "" {
		bl.res[t].Why = why
	}
}

// unknownIn marks unknown every block tensor accessed inside loop l.
func (bl *blockLiveness) unknownIn(l bir.InstID, why string) {
	f := bl.f
	for _, bb := range f.Loop(l).Body {
		f.WalkBlock(bb, func(i bir.InstID) bool {
			for _, o := range f.Operands(i) {
				var t bir.TensorID = bir.NoTensor
				switch o.Kind {
				case bir.OpdSymAP, bir.OpdRegAP:
					t = o.TensorRef()
				case bir.OpdPhysAP:
					if l := o.Loc(); int(l) >= 0 && int(l) < f.NumLocs() {
						t = f.Loc(l).Tensor
					}
				}
				if t != bir.NoTensor && bl.blockTensor(t) {
					bl.unknown(t, why)
				}
			}
			return true
		})
	}
}

// exec executes the blocks in order.
func (bl *blockLiveness) exec(blocks []bir.BlockID) {
	f, m := bl.f, bl.f.Module()
	for _, b := range blocks {
		top := f.Block(b).Parent == bir.NoInst
		for _, i := range f.Block(b).Insts {
			if bl.overflow {
				return
			}
			in := f.Inst(i)
			if !bl.hasEvent[i] && (in.Op.IsLoop() || !top) {
				continue
			}
			if in.Op.IsLoop() {
				trips, static := f.StaticTripCount(i)
				if !static {
					continue // its tensors are unknown
				}
				lp := f.Loop(i)
				ax := m.Axis(lp.Axis)
				// Count iterations: v += stride past ub wraps at 2^63.
				v := ax.Lb
				for k, n := int64(0), trips; k < n; k++ {
					if bl.step() {
						return
					}
					bl.env.Bind(lp.Axis, v)
					bl.exec(lp.Body)
					if bl.overflow {
						return
					}
					if k+1 < n {
						v += ax.Stride
					}
				}
				bl.env.Unbind(lp.Axis)
				continue
			}
			if in.Pred != 0 {
				if ok, err := m.Pred(in.Pred).Eval(&bl.env); err == nil && !ok {
					continue
				}
			}
			if bl.event(i) && bl.step() {
				return
			}
		}
	}
}

// step counts one unit of work against the budget; it reports overflow.
func (bl *blockLiveness) step() bool {
	bl.steps++
	if bl.maxEvents > 0 && bl.steps > bl.maxEvents {
		bl.overflow = true
	}
	return bl.overflow
}

// event records the block accesses of one execution of instruction i; it
// reports whether there was one.
func (bl *blockLiveness) event(i bir.InstID) bool {
	f, m := bl.f, bl.f.Module()
	now := bl.time + 1
	recorded := false
	for _, o := range f.Operands(i) {
		var t bir.TensorID
		var blk int64
		switch o.Kind {
		case bir.OpdSymAP:
			t = o.TensorRef()
			if !bl.blockTensor(t) || bl.res[t].Why != "" {
				continue
			}
			v, err := m.Expr(o.BlockExpr()).Eval(&bl.env)
			if err != nil {
				bl.unknown(t, fmt.Sprintf("instruction %s: block index: %v", f.InstName(i), err))
				continue
			}
			blk = v
		case bir.OpdRegAP:
			if t := o.TensorRef(); bl.blockTensor(t) {
				bl.unknown(t, fmt.Sprintf("instruction %s accesses it through a register access pattern", f.InstName(i)))
			}
			continue
		case bir.OpdPhysAP:
			l := o.Loc()
			if int(l) < 0 || int(l) >= len(bl.locs) || bl.locs[l].t < 0 {
				continue
			}
			t = bir.TensorID(bl.locs[l].t)
			if bl.locs[l].template {
				bl.unknown(t, fmt.Sprintf("instruction %s names its template location %s physically", f.InstName(i), f.Loc(l).Name))
				continue
			}
			if bl.res[t].Why != "" {
				continue
			}
			blk = bl.locs[l].blk
		default:
			continue
		}
		r := &bl.res[t]
		if blk < 0 || blk >= r.NBlocks {
			bl.unknown(t, fmt.Sprintf("instruction %s reaches block %d of %d", f.InstName(i), blk, r.NBlocks))
			continue
		}
		r.Events++
		recorded = true
		bl.times[t].record(blk, now)
	}
	if recorded {
		bl.time = now
	}
	return recorded
}

// blockTimes holds the first and last event time of each block touched of
// one tensor. Its tables grow with the blocks actually touched, never
// with NBlocks (a tensor may declare 2^40 blocks and touch two): a dense
// table indexed by block while the blocks stay within a few times the
// number touched, a map for the ones far beyond it. Memory is linear in
// the events executed, which maxEvents bounds.
type blockTimes struct {
	first, last []int64 // dense, by block; first -1: not touched
	touched     int64
	far         map[int64][2]int64 // blocks beyond the dense table: first, last
}

func (bt *blockTimes) record(blk, now int64) {
	if blk >= int64(len(bt.first)) && blk < 4*bt.touched+1024 {
		n := max(blk+1, 2*int64(len(bt.first)))
		n = min(n, 4*bt.touched+1024)
		old := len(bt.first)
		bt.first = append(bt.first, make([]int64, n-int64(old))...)
		bt.last = append(bt.last, make([]int64, n-int64(old))...)
		for k := old; k < len(bt.first); k++ {
			bt.first[k] = -1
		}
	}
	if blk < int64(len(bt.first)) {
		if bt.first[blk] < 0 {
			bt.first[blk] = now
			bt.touched++
		}
		bt.last[blk] = now
		return
	}
	if bt.far == nil {
		bt.far = map[int64][2]int64{}
	}
	e, ok := bt.far[blk]
	if !ok {
		e[0] = now
		bt.touched++
	}
	e[1] = now
	bt.far[blk] = e
}

// intervals returns the [first, last] pairs of the touched blocks (first
// -1 for a dense entry not touched).
func (bt *blockTimes) intervals() (first, last []int64) {
	first, last = bt.first, bt.last
	for _, e := range bt.far {
		first = append(first, e[0])
		last = append(last, e[1])
	}
	return first, last
}

// maxOverlap returns the largest number of intervals [first, last] (first
// -1: absent) that share a point, and the number of intervals.
func maxOverlap(first, last []int64) (int64, int64) {
	starts := make([]int64, 0, len(first))
	ends := make([]int64, 0, len(first))
	for k, s := range first {
		if s >= 0 {
			starts = append(starts, s)
			ends = append(ends, last[k])
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	var cur, best int64
	j := 0
	for _, s := range starts {
		// Intervals that ended before s are no longer live (inclusive
		// ends: an interval ending at s overlaps one starting at s).
		for j < len(ends) && ends[j] < s {
			j++
			cur--
		}
		cur++
		best = max(best, cur)
	}
	return best, int64(len(starts))
}

// ShrinkDimOf returns the shrink dim recorded for tensor ts (setShrinkDim):
// its outermost free dim — narwhal's Tensor.Shape is one block's shape,
// and the blocks of a set stack along the free bytes of its partitions —
// or its partition dim when it has no free dim. The seed's heuristic lives
// in libBIR and is not traced (seed 004, [GAP]); this is narwhal's choice,
// shared by shrink_tensor and shrinkTensor so their records agree.
func ShrinkDimOf(ts *bir.Tensor) int64 {
	for d := range ts.Shape {
		if int64(d) != ts.PartitionDim {
			return int64(d)
		}
	}
	return ts.PartitionDim
}

// LiveNFor is the seed's liveN for a tensor of nBlocks blocks of which
// live are live at once: nBlocks / (nBlocks / live), with the shrink
// factor nBlocks / live (integer division, the seed's divisor). liveN is
// never below live, so storage for liveN blocks reused modulo liveN never
// overlaps two live blocks. It returns 0, 0 when live is not in
// 1..nBlocks.
func LiveNFor(nBlocks, live int64) (liveN, factor int64) {
	if live < 1 || live > nBlocks {
		return 0, 0
	}
	factor = nBlocks / live
	return nBlocks / factor, factor
}

// OnChip reports whether ts's first live location is in SBUF or PSUM (a
// set's locations share their memory).
func OnChip(f *bir.Function, ts *bir.Tensor) bool {
	for _, l := range ts.Locs {
		if lc := f.Loc(l); !lc.Dead {
			return lc.Type.IsOnChip()
		}
	}
	return false
}
