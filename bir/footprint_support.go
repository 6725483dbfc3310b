// Support for the allocator-prep footprint passes (passes/sbsize,
// passes/vnsplit, passes/shrink): the facts about access patterns and
// block tensors that all three need and that follow from the IR's
// addressing model alone, so they are defined once, here.
//
//   - OnChipLayout decomposes an access pattern over an on-chip location
//     into the partitions it walks and the element range it touches inside
//     each partition (the seeds' isShiftedPartitionAccess,
//     hasCrossChannelAccess, isPartitionContiguous and
//     getElementRangeInPartition, seed 004), and classifies the patterns
//     that cannot be so decomposed.
//   - Flatten numbers the instructions in program order (seed 000's
//     flatten: a DenseMap<Instruction*, ulong> threaded across nested loop
//     bodies), as a dense slice indexed by InstID.
//   - BlockLiveness computes, per block tensor, how many of its blocks are
//     live at once (the live-block count that seed 000's shrink_tensor and
//     seed 004's shrinkTensor record as liveN), by executing the loop
//     structure abstractly: no data, only the block index of every access,
//     in execution order.
//   - UniqueLocName and UniqueTensorName pick the names of the new
//     locations and tensors a pass adds (vn_splitter's <orig>_VN_<k>).
//
// All additive: nothing here changes existing behaviour.
package bir

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// APClass classifies an access pattern over an on-chip location.
type APClass uint8

const (
	// APContiguous: the access walks partitions with at most one pair whose
	// step is a whole number of partitions, outermost among the moving
	// pairs, and its other pairs stay inside one partition.
	APContiguous APClass = iota
	// APShifted: a pair moves by a step larger than a partition that is not
	// a whole number of partitions (a shifted-partition, non-contiguous
	// access).
	APShifted
	// APTranspose: partitions are walked by a pair inside an in-partition
	// pair, or by two pairs (differing partition steps).
	APTranspose
	// APCrossChannel: the in-partition pairs leave the partition they start
	// in (an access across channels).
	APCrossChannel
	// APInvalid: a negative offset or a location without elements.
	APInvalid
)

var apClassNames = [...]string{"partition-contiguous", "shifted-partition", "transposed", "cross-channel", "invalid"}

func (c APClass) String() string {
	if int(c) < len(apClassNames) {
		return apClassNames[c]
	}
	return fmt.Sprintf("apclass(%d)", uint8(c))
}

// APLayout is an access pattern decomposed over an on-chip location of E
// elements per partition: element offset + sum(i_k * step_k) lies in
// partition PartFirst + j*PartStep (j < PartCount) at in-partition element
// index ElemLo..ElemHi. The fields other than Class are meaningful only
// for APContiguous.
type APLayout struct {
	Class APClass
	// PartPair is the index of the pair that walks partitions, -1 when the
	// access stays in one partition.
	PartPair  int
	PartFirst int64 // partition of the first element (offset / E)
	PartStep  int64 // partitions per step of the partition pair (may be negative; 0 without one)
	PartCount int64 // partitions walked (the partition pair's num, 1 without one)
	// ElemLo and ElemHi bound the in-partition element index (inclusive).
	ElemLo, ElemHi int64
	// BadPair is the pair that made the access non-contiguous (Class
	// APShifted or APTranspose), -1 otherwise.
	BadPair int
}

// PartMin returns the lowest partition the access touches.
func (l *APLayout) PartMin() int64 {
	if l.PartStep < 0 {
		return l.PartFirst + l.PartStep*(l.PartCount-1)
	}
	return l.PartFirst
}

// PartMax returns the highest partition the access touches.
func (l *APLayout) PartMax() int64 {
	if l.PartStep > 0 {
		return l.PartFirst + l.PartStep*(l.PartCount-1)
	}
	return l.PartFirst
}

// OnChipLayout decomposes the access (offset, pat) of an on-chip location
// of e elements per partition. Pairs with num <= 1 or step 0 do not move
// and are ignored (a step-0 pair re-reads the same elements). It does not
// allocate.
func OnChipLayout(offset int64, pat Pattern, e int64) APLayout {
	lay := APLayout{Class: APInvalid, PartPair: -1, PartCount: 1, BadPair: -1}
	if e <= 0 || offset < 0 {
		return lay
	}
	pl := patternLayout(pat, e)
	lay = APLayout{Class: pl.class, PartPair: pl.partPair, BadPair: pl.badPair, PartFirst: offset / e, PartStep: pl.partStep, PartCount: pl.partCount}
	if pl.class != APContiguous {
		return lay
	}
	x0 := offset % e
	lay.ElemLo, lay.ElemHi = x0+pl.freeLo, x0+pl.freeHi
	if lay.ElemLo < 0 || lay.ElemHi >= e {
		lay.Class = APCrossChannel
	}
	return lay
}

// patLayout is the offset-independent part of OnChipLayout for one
// pattern and partition size.
type patLayout struct {
	e                 int64
	class             APClass // APContiguous, APShifted or APTranspose
	partPair, badPair int
	partStep          int64
	partCount         int64
	freeLo, freeHi    int64 // in-partition span of the free pairs
}

// LayoutCache memoizes the offset-independent part of OnChipLayout per
// interned pattern, so that decomposing the access patterns of a large
// function costs one division per access instead of several per pair.
// The zero value is ready to use; a cache serves one module.
type LayoutCache struct {
	byPat []patLayout // indexed by PatternID; e == 0: not computed
}

// Layout is OnChipLayout(offset, m.Pattern(pat), e), memoized on (pat, e)
// (a pattern used with several partition sizes is recomputed on change).
func (c *LayoutCache) Layout(m *Module, offset int64, pat PatternID, e int64) APLayout {
	if e <= 0 || offset < 0 || int(pat) < 0 || int(pat) >= len(m.patterns) {
		return APLayout{Class: APInvalid, PartPair: -1, PartCount: 1, BadPair: -1}
	}
	if int(pat) >= len(c.byPat) {
		c.byPat = append(c.byPat, make([]patLayout, len(m.patterns)-len(c.byPat))...)
	}
	pl := &c.byPat[pat]
	if pl.e != e {
		*pl = patternLayout(m.patterns[pat], e)
	}
	lay := APLayout{Class: pl.class, PartPair: pl.partPair, BadPair: pl.badPair, PartFirst: offset / e, PartStep: pl.partStep, PartCount: pl.partCount}
	if pl.class != APContiguous {
		return lay
	}
	x0 := offset - lay.PartFirst*e
	lay.ElemLo, lay.ElemHi = x0+pl.freeLo, x0+pl.freeHi
	if lay.ElemLo < 0 || lay.ElemHi >= e {
		lay.Class = APCrossChannel
	}
	return lay
}

// patternLayout classifies the pairs of pat for partitions of e elements.
func patternLayout(pat Pattern, e int64) patLayout {
	pl := patLayout{e: e, class: APContiguous, partPair: -1, badPair: -1, partCount: 1}
	seenFree := false
	for i, q := range pat {
		if q.Num <= 1 || q.Step == 0 {
			continue
		}
		if q.Step%e == 0 {
			if seenFree || pl.partPair >= 0 {
				pl.class, pl.badPair = APTranspose, i
				return pl
			}
			pl.partPair, pl.partStep, pl.partCount = i, q.Step/e, q.Num
			continue
		}
		a := q.Step
		if a < 0 {
			a = -a
		}
		if a > e {
			pl.class, pl.badPair = APShifted, i
			return pl
		}
		seenFree = true
		if d := q.Step * (q.Num - 1); d < 0 {
			pl.freeLo += d
		} else {
			pl.freeHi += d
		}
	}
	return pl
}

// Flatten numbers the live instructions of f in program order (Walk
// order: a loop before its body), starting at 0, and returns the numbering
// indexed by InstID (-1 for instructions the walk does not reach) and the
// count. pos is reused when large enough.
func (f *Function) Flatten(pos []int32) ([]int32, int32) {
	n := len(f.insts)
	if cap(pos) < n {
		pos = make([]int32, n)
	}
	pos = pos[:n]
	for k := range pos {
		pos[k] = -1
	}
	var c int32
	f.Walk(func(i InstID) bool {
		pos[i] = c
		c++
		return true
	})
	return pos, c
}

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
// a DynamicForLoop or DoWhile (a run-time trip count), goes through a
// register access pattern, names the single template location of a
// multi-block tensor physically (which block is meant is not said), or has
// a block index that does not evaluate inside [0, NBlocks); every result
// is unknown when more than maxEvents block accesses would be executed
// (maxEvents <= 0: no limit). The cost is linear in the number of block
// accesses executed plus the static size of f.
func (f *Function) BlockLiveness(maxEvents int64) []BlockLive {
	res := make([]BlockLive, len(f.tensors))
	found := false
	for t := range f.tensors {
		ts := &f.tensors[t]
		if !ts.Dead && ts.IsBlock && ts.NBlocks > 1 {
			res[t].NBlocks = ts.NBlocks
			found = true
		}
	}
	if !found {
		return res
	}
	bl := &blockLiveness{f: f, res: res, maxEvents: maxEvents,
		first: make([][]int64, len(f.tensors)), last: make([][]int64, len(f.tensors)),
		hasEvent: make([]bool, len(f.insts)), locs: make([]locBlock, len(f.locs))}
	// A dense copy of (tensor, block) per location: the per-operand
	// lookups then read 8 bytes instead of a MemLoc.
	for l := range f.locs {
		lc := &f.locs[l]
		bl.locs[l] = locBlock{t: -1}
		if !lc.Dead && bl.blockTensor(lc.Tensor) {
			bl.locs[l] = locBlock{t: int32(lc.Tensor), blk: lc.TensorIdx, template: len(f.tensors[lc.Tensor].Locs) <= 1}
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
		if r.NBlocks == 0 || r.Why != "" || bl.first[t] == nil {
			continue
		}
		r.MaxLive, r.Touched = maxOverlap(bl.first[t], bl.last[t])
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
	f         *Function
	locs      []locBlock
	res       []BlockLive
	first     [][]int64 // per tensor, per block: first event time, -1 none
	last      [][]int64
	hasEvent  []bool // per instruction (loops: the body has one)
	env       affine.Values
	time      int64
	steps     int64 // events and loop iterations executed (the budget)
	maxEvents int64
	overflow  bool
}

// blockTensor reports whether t is a tensor under analysis.
func (bl *blockLiveness) blockTensor(t TensorID) bool {
	return int(t) >= 0 && int(t) < len(bl.res) && bl.res[t].NBlocks > 0
}

// mark computes hasEvent for the instructions inside loops (and for the
// loops: whether their body has one), and marks unknown the tensors a
// dynamic loop reaches. It reports whether b contains an event. The
// top-level instructions are not marked: exec hands them to event
// directly (one scan of their operands instead of two).
func (bl *blockLiveness) mark(b BlockID) bool {
	f := bl.f
	found := false
	for _, i := range f.blocks[b].Insts {
		in := &f.insts[i]
		if in.Op.IsLoop() && in.Aux >= 0 {
			inner := false
			for _, bb := range f.loops[in.Aux].Body {
				if bl.mark(bb) {
					inner = true
				}
			}
			if inner && in.Op != OpLoop {
				bl.unknownIn(i, fmt.Sprintf("accessed inside %s %s (a run-time trip count)", f.OpName(i), f.InstName(i)))
			}
			bl.hasEvent[i] = inner
			found = found || inner
			continue
		}
		if f.blocks[b].Parent == NoInst {
			continue // top level: exec scans it once
		}
		bl.hasEvent[i] = bl.touches(i)
		found = found || bl.hasEvent[i]
	}
	return found
}

// touches reports whether instruction i reaches a tensor under analysis.
func (bl *blockLiveness) touches(i InstID) bool {
	for _, o := range bl.f.Operands(i) {
		switch o.Kind {
		case OpdSymAP, OpdRegAP:
			if bl.blockTensor(o.TensorRef()) {
				return true
			}
		case OpdPhysAP:
			if l := o.Loc(); int(l) >= 0 && int(l) < len(bl.locs) && bl.locs[l].t >= 0 {
				return true
			}
		}
	}
	return false
}

func (bl *blockLiveness) unknown(t TensorID, why string) {
	if bl.res[t].Why == "" {
		bl.res[t].Why = why
	}
}

// unknownIn marks unknown every block tensor accessed inside loop l.
func (bl *blockLiveness) unknownIn(l InstID, why string) {
	f := bl.f
	for _, bb := range f.loops[f.insts[l].Aux].Body {
		f.WalkBlock(bb, func(i InstID) bool {
			for _, o := range f.Operands(i) {
				var t TensorID = NoTensor
				switch o.Kind {
				case OpdSymAP, OpdRegAP:
					t = o.TensorRef()
				case OpdPhysAP:
					if l := o.Loc(); int(l) >= 0 && int(l) < len(f.locs) {
						t = f.locs[l].Tensor
					}
				}
				if t != NoTensor && bl.blockTensor(t) {
					bl.unknown(t, why)
				}
			}
			return true
		})
	}
}

// exec executes the blocks in order.
func (bl *blockLiveness) exec(blocks []BlockID) {
	f := bl.f
	for _, b := range blocks {
		for _, i := range f.blocks[b].Insts {
			if bl.overflow {
				return
			}
			in := &f.insts[i]
			if !bl.hasEvent[i] && (in.Op.IsLoop() || f.blocks[b].Parent != NoInst) {
				continue
			}
			if in.Op.IsLoop() {
				if in.Op != OpLoop {
					continue // its tensors are unknown
				}
				lp := &f.loops[in.Aux]
				ax := f.m.Axis(lp.Axis)
				for v := ax.Lb; v < ax.Ub && ax.Stride > 0; v += ax.Stride {
					if bl.step() {
						return
					}
					bl.env.Bind(lp.Axis, v)
					bl.exec(lp.Body)
					if bl.overflow {
						return
					}
				}
				bl.env.Unbind(lp.Axis)
				continue
			}
			if in.Pred != 0 {
				if ok, err := f.m.preds[in.Pred].Eval(&bl.env); err == nil && !ok {
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
func (bl *blockLiveness) event(i InstID) bool {
	f := bl.f
	now := bl.time + 1
	recorded := false
	for _, o := range f.Operands(i) {
		var t TensorID
		var blk int64
		switch o.Kind {
		case OpdSymAP:
			t = o.TensorRef()
			if !bl.blockTensor(t) || bl.res[t].Why != "" {
				continue
			}
			v, err := f.m.exprs[o.BlockExpr()].Eval(&bl.env)
			if err != nil {
				bl.unknown(t, fmt.Sprintf("instruction %s: block index: %v", f.InstName(i), err))
				continue
			}
			blk = v
		case OpdRegAP:
			if t := o.TensorRef(); bl.blockTensor(t) {
				bl.unknown(t, fmt.Sprintf("instruction %s accesses it through a register access pattern", f.InstName(i)))
			}
			continue
		case OpdPhysAP:
			l := o.Loc()
			if int(l) < 0 || int(l) >= len(bl.locs) || bl.locs[l].t < 0 {
				continue
			}
			t = TensorID(bl.locs[l].t)
			if bl.locs[l].template {
				bl.unknown(t, fmt.Sprintf("instruction %s names its template location %s physically", f.InstName(i), f.locs[l].Name))
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
		if bl.first[t] == nil {
			bl.first[t] = make([]int64, r.NBlocks)
			bl.last[t] = make([]int64, r.NBlocks)
			for k := range bl.first[t] {
				bl.first[t][k] = -1
			}
		}
		if bl.first[t][blk] < 0 {
			bl.first[t][blk] = now
		}
		bl.last[t][blk] = now
	}
	if recorded {
		bl.time = now
	}
	return recorded
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

// UniqueLocName returns name when no location of f has it, else name_<k>
// for the smallest k >= 1 that none has.
func (f *Function) UniqueLocName(name string) string {
	return uniqueName(name, func(n string) bool { _, taken := f.LocByName(n); return taken })
}

// UniqueTensorName returns name when no tensor of f has it, else name_<k>
// for the smallest k >= 1 that none has.
func (f *Function) UniqueTensorName(name string) string {
	return uniqueName(name, func(n string) bool { _, taken := f.TensorByName(n); return taken })
}

// UniqueTensorLocName returns a name free both as a location name and,
// with the "_set" suffix, as a tensor name (the BIR-JSON convention for a
// tensor and its single location): name itself, else name_<k> for the
// smallest k >= 1.
func (f *Function) UniqueTensorLocName(name string) string {
	return uniqueName(name, func(n string) bool {
		_, l := f.LocByName(n)
		_, t := f.TensorByName(n + "_set")
		return l || t
	})
}

func uniqueName(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for k := 1; ; k++ {
		if n := name + "_" + strconv.Itoa(k); !taken(n) {
			return n
		}
	}
}
