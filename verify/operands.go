// Operand rules: reference resolution, dtypes, access-pattern shape and
// bounds (rules "ref", "dtype", "ap-shape", "ap-bounds",
// "sym-axis-unbound", "unrolled").
//
// Facts of an interned pattern (element count, min and max relative
// index, the partition pair, the free-pair extremes) are computed once per
// PatternID and cached in a slice: a module of millions of instructions
// has a few hundred distinct patterns. Every size is computed with
// overflow checks; a pattern whose index range does not fit comfortably in
// an int64 (|index| >= 2^62) is reported as malformed.

package verify

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// maxPairs is the design limit on [step, num] pairs (design.md: "up to 5
// [step, num] pairs; pair 0 walks partitions for on-chip memory").
const maxPairs = 5

// limit bounds every index and size the verifier computes.
const limit = int64(1) << 62

type patFacts struct {
	state            uint8 // 0 not computed, 1 ok, 2 malformed
	npairs           int
	nelems           int64
	minRel, maxRel   int64 // extreme relative element index over all pairs
	minFree, maxFree int64 // the same over pairs 1..n-1
	freeElems        int64 // product of the nums of pairs 1..n-1
	p0step, p0num    int64
	maxFreeNum       int64 // largest num among pairs 1..
	minFreeStep      int64 // smallest step among pairs 1..
	maxFreeStep      int64 // largest step among pairs 1..
	err              string
}

// mulLimit returns a*b for non-negative a and b when it is below limit.
func mulLimit(a, b int64) (int64, bool) {
	p, ok := checked.Mul(a, b)
	if !ok || a < 0 || b < 0 || p >= limit {
		return 0, false
	}
	return p, true
}

func absInt(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

func computePattern(p bir.Pattern) patFacts {
	pf := patFacts{state: 1, npairs: len(p), nelems: 1, freeElems: 1}
	if len(p) == 0 {
		return patFacts{state: 2, err: "no [step, num] pairs: want at least one"}
	}
	for d, q := range p {
		if q.Num < 1 {
			return patFacts{state: 2, err: fmt.Sprintf("pair %d: num %d, want >= 1", d, q.Num)}
		}
		if q.Step <= -limit || q.Step >= limit {
			return patFacts{state: 2, err: fmt.Sprintf("pair %d: want |step| < 2^62, have %d", d, q.Step)}
		}
		span, ok := mulLimit(absInt(q.Step), q.Num-1)
		if !ok {
			return patFacts{state: 2, err: fmt.Sprintf("pair %d: step %d x num %d: want a span < 2^62, have an overflow", d, q.Step, q.Num)}
		}
		n, ok := mulLimit(pf.nelems, q.Num)
		if !ok {
			return patFacts{state: 2, err: "element count: want < 2^62, have an overflow"}
		}
		pf.nelems = n
		if q.Step >= 0 {
			pf.maxRel += span
		} else {
			pf.minRel -= span
		}
		if d == 0 {
			pf.p0step, pf.p0num = q.Step, q.Num
			pf.minFreeStep, pf.maxFreeStep = 0, 0
		} else {
			pf.freeElems *= q.Num // <= nelems: cannot overflow
			if q.Step >= 0 {
				pf.maxFree += span
			} else {
				pf.minFree -= span
			}
			pf.maxFreeNum = max(pf.maxFreeNum, q.Num)
			if d == 1 {
				pf.minFreeStep, pf.maxFreeStep = q.Step, q.Step
			} else {
				pf.minFreeStep = min(pf.minFreeStep, q.Step)
				pf.maxFreeStep = max(pf.maxFreeStep, q.Step)
			}
		}
		if pf.maxRel >= limit || pf.minRel <= -limit {
			return patFacts{state: 2, err: "index range: want within +-2^62, have an overflow"}
		}
	}
	return pf
}

// patternText prints a pattern as BIR-JSON's ap list.
func patternText(p bir.Pattern) string {
	var b strings.Builder
	b.WriteByte('[')
	for k, q := range p {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "[%d,%d]", q.Step, q.Num)
	}
	b.WriteByte(']')
	return b.String()
}

// opnd holds what the rules need about one operand of the instruction
// being checked. It is pointer-free and compact: one is reset per operand
// of every instruction.
type opnd struct {
	e       int64 // on-chip: elements per partition of the location (operand dtype)
	parts   int64 // partitions accessed (on-chip: pair 0's num; off-chip: 1)
	perPart int64 // elements accessed per partition
	nelems  int64
	off     int64 // the element offset, when offConst
	block   int64 // a symbolic AP's block index, when blockConst

	pat    bir.PatternID
	tensor bir.TensorID // symbolic/register AP's tensor, else NoTensor
	loc    bir.LocID    // physical AP's location or the tensor's template location
	idx    int32        // index among the sources or among the destinations

	kind  bir.OperandKind
	dtype bir.Dtype
	mem   bir.MemoryType
	out   bool
	isAP  bool
	hasPF bool // pat is in range and well formed: c.pats[pat] holds its facts
	ok    bool // an AP whose pattern and location resolved: the counts are valid
	// memKnown: mem is a placed memory type (not Unallocated, not unknown).
	memKnown   bool
	onChip     bool
	offConst   bool
	blockConst bool
}

// label names an operand in messages: "source 0 (xs)".
func (c *checker) label(x *opnd) string {
	s := "source "
	if x.out {
		s = "destination "
	}
	s += strconv.Itoa(int(x.idx))
	if x.loc != bir.NoLoc && c.validLoc(x.loc) {
		s += " (" + c.f.Loc(x.loc).Name + ")"
	} else if x.tensor != bir.NoTensor && c.validTensor(x.tensor) {
		s += " (" + c.f.Tensor(x.tensor).Name + ")"
	}
	return s
}

// operand resolves and checks operand k of instruction i into x.
func (c *checker) operand(i bir.InstID, x *opnd, o *bir.Operand, k, nIn int) {
	*x = opnd{kind: o.Kind, dtype: o.Dtype, out: k >= nIn, idx: int32(k), tensor: bir.NoTensor, loc: bir.NoLoc}
	if x.out {
		x.idx = int32(k - nIn)
	}
	if !o.Dtype.Valid() {
		c.instDiag(i, "dtype", "%s: dtype %d, want <= %d", c.label(x), o.Dtype, bir.MaxDtype)
	}
	if o.Extra < 0 || int(o.Extra) >= c.nAttrs {
		c.instDiag(i, "ref", "%s: extra-field set #%d: want an id < %d (the module's attribute sets), have %d", c.label(x), o.Extra, c.nAttrs, o.Extra)
	}
	switch o.Kind {
	case bir.OpdPhysAP:
		x.isAP = true
		c.physAP(i, x, o)
	case bir.OpdSymAP:
		x.isAP = true
		c.symAP(i, x, o)
	case bir.OpdRegAP:
		x.isAP = true
		c.regAP(i, x, o)
	case bir.OpdRegister:
		if o.Ref < 0 || int(o.Ref) >= c.nRegs {
			c.instDiag(i, "ref", "%s: register #%d: want an id < %d (the function's registers), have %d", c.label(x), o.Ref, c.nRegs, o.Ref)
		}
	case bir.OpdImm:
	case bir.OpdImmArray:
		if o.Ref < 0 || int(o.Ref) >= c.nAttrs {
			c.instDiag(i, "ref", "%s: immediate array set #%d: want an id < %d (the module's attribute sets), have %d", c.label(x), o.Ref, c.nAttrs, o.Ref)
		}
	case bir.OpdSymImm:
		if o.Ref < 0 || int(o.Ref) >= c.nAttrs {
			c.instDiag(i, "ref", "%s: value list set #%d: want an id < %d (the module's attribute sets), have %d", c.label(x), o.Ref, c.nAttrs, o.Ref)
		}
		c.exprBound(i, o.Expr, c.label(x)+" expression")
		if c.stage&StageUnrolled != 0 {
			c.instDiag(i, "unrolled", "%s: a symbolic immediate remains: want none after FullUnroll", c.label(x))
		}
	default:
		c.instDiag(i, "ref", "operand %d: kind %d, want one of physical_ap, symbolic_ap, register_ap, register_access, imm_value, imm_array, symbolic_imm_value", k, o.Kind)
	}
}

// pattern returns the facts of pattern id, reporting a malformed or
// out-of-range pattern (nil then) and a pattern with too many pairs.
func (c *checker) pattern(i bir.InstID, x *opnd, id bir.PatternID) *patFacts {
	if id < 0 || int(id) >= c.nPats {
		c.instDiag(i, "ref", "%s: pattern #%d: want an id < %d (the module's patterns), have %d", c.label(x), id, c.nPats, id)
		return nil
	}
	pf := &c.pats[id]
	if pf.state == 0 {
		*pf = computePattern(c.m.Pattern(id))
	}
	if pf.state == 2 {
		c.instDiag(i, "ap-shape", "%s: access pattern %s: %s", c.label(x), patternText(c.m.Pattern(id)), pf.err)
		return nil
	}
	x.hasPF = true
	if pf.npairs > maxPairs {
		c.instDiag(i, "ap-shape", "%s: access pattern %s: %d [step, num] pairs, want at most %d", c.label(x), patternText(c.m.Pattern(id)), pf.npairs, maxPairs)
	}
	return pf
}

// locGeometry fills x's memory facts from location l and returns the
// number of elements of the location (or of one block) in the operand's
// dtype.
func (c *checker) locGeometry(i bir.InstID, x *opnd, l bir.LocID) (total int64, ok bool) {
	lc := c.f.Loc(l)
	x.loc = l
	x.mem = lc.Type
	x.memKnown = lc.Type != bir.MemUnallocated && lc.Type < bir.NumMemoryTypes
	x.onChip = lc.Type.IsOnChip()
	if !x.dtype.Valid() || lc.Partitions < 0 || lc.Bytes < 0 {
		return 0, false // reported by the dtype and loc rules
	}
	// Every dtype size is a power of two: shifts and masks instead of
	// divisions on this per-operand path.
	sh, mask := dtypeShift[x.dtype], x.dtype.Size()-1
	if x.onChip {
		if lc.Bytes&mask != 0 {
			c.instLocDiag(i, l, "dtype", "%s: bytes per partition: want a multiple of %s's %d bytes, have %d", c.label(x), x.dtype, mask+1, lc.Bytes)
		}
		x.e = lc.Bytes >> sh
		t, ok := mulLimit(lc.Partitions, x.e)
		return t, ok
	}
	b, ok := mulLimit(lc.Partitions, lc.Bytes)
	if !ok {
		return 0, false
	}
	if b&mask != 0 {
		c.instLocDiag(i, l, "dtype", "%s: location bytes: want a multiple of %s's %d bytes, have %d", c.label(x), x.dtype, mask+1, b)
	}
	return b >> sh, true
}

// dtypeShift[d] is log2 of d's size (every size in the seeds' DtypeSize
// table is 1, 2, 4 or 8 bytes; init checks it).
var dtypeShift = func() (t [bir.NumDtypes]uint8) {
	for d := range t {
		sz := bir.Dtype(d).Size()
		if sz <= 0 || sz&(sz-1) != 0 {
			panic(fmt.Sprintf("verify: dtype %s has size %d, not a power of two", bir.Dtype(d), sz))
		}
		t[d] = uint8(bits.TrailingZeros64(uint64(sz)))
	}
	return t
}()

func (c *checker) counts(x *opnd, pf *patFacts) {
	x.nelems = pf.nelems
	if x.onChip {
		x.parts, x.perPart = pf.p0num, pf.freeElems
	} else {
		x.parts, x.perPart = 1, pf.nelems
	}
}

func (c *checker) physAP(i bir.InstID, x *opnd, o *bir.Operand) {
	l := o.Loc()
	x.pat = o.Pattern
	if !c.validLoc(l) {
		c.instDiag(i, "ref", "%s: location #%d: want an id < %d (the function's locations), have %d", c.label(x), l, c.nLocs, l)
		return
	}
	lc := c.f.Loc(l)
	if lc.Dead {
		c.instLocDiag(i, l, "ref", "%s: location %s: want a live location, have a dead one", c.label(x), lc.Name)
		return
	}
	setBit(c.usedLoc, int(l))
	total, tok := c.locGeometry(i, x, l)
	x.offConst, x.off = true, o.Offset
	pf := c.pattern(i, x, o.Pattern)
	if pf == nil || !tok {
		return
	}
	c.counts(x, pf)
	if o.Offset <= -limit || o.Offset >= limit {
		c.instLocDiag(i, l, "ap-bounds", "%s: offset: want |offset| < 2^62, have %d", c.label(x), o.Offset)
		return
	}
	lo, hi := o.Offset+pf.minRel, o.Offset+pf.maxRel
	if lo < 0 || hi >= total {
		c.instLocDiag(i, l, "ap-bounds", "%s: access pattern %s at offset %d reaches elements [%d, %d] of a location of %d %s elements: want 0 <= index < %d",
			c.label(x), patternText(c.m.Pattern(o.Pattern)), o.Offset, lo, hi, total, x.dtype, total)
		return
	}
	if x.onChip && pf.p0num > lc.Partitions && pf.p0step != 0 {
		// (Pair 0 with step 0 reads one partition row over and over: a
		// macro operation's partition broadcast, bounded by the element
		// range above.)
		c.instLocDiag(i, l, "ap-bounds", "%s: pair 0 accesses %d partitions: want <= %d, the location's partitions", c.label(x), pf.p0num, lc.Partitions)
		return
	}
	x.ok = true
}

// tensorRef resolves a symbolic or register AP's tensor and its template
// location (its first; all blocks of a block tensor have one shape).
func (c *checker) tensorRef(i bir.InstID, x *opnd, t bir.TensorID) (*bir.Tensor, bool) {
	if !c.validTensor(t) {
		c.instDiag(i, "ref", "%s: tensor #%d: want an id < %d (the function's tensors), have %d", c.label(x), t, c.nTensors, t)
		return nil, false
	}
	ts := c.f.Tensor(t)
	x.tensor = t
	if ts.Dead {
		c.instDiag(i, "ref", "%s: tensor %s: want a live tensor, have a dead one", c.label(x), ts.Name)
		return nil, false
	}
	setBit(c.usedTen, int(t))
	return ts, true
}

func (c *checker) symAP(i bir.InstID, x *opnd, o *bir.Operand) {
	x.pat = o.Pattern
	ts, ok := c.tensorRef(i, x, o.TensorRef())
	if c.stage&StageUnrolled != 0 {
		c.instDiag(i, "unrolled", "%s: a symbolic access pattern remains: want physical access patterns after FullUnroll", c.label(x))
	}
	bOK := c.exprBound(i, o.BlockExpr(), c.label(x)+" block index")
	oOK := c.exprBound(i, o.OffsetExpr(), c.label(x)+" offset")
	pf := c.pattern(i, x, o.Pattern)
	if !ok || !bOK || !oOK || pf == nil {
		return
	}
	if len(ts.Locs) == 0 || !c.validLoc(ts.Locs[0]) {
		return // no location to size the access against (the tensor rule reports bad lists)
	}
	total, tok := c.locGeometry(i, x, ts.Locs[0])
	if !tok {
		return
	}
	c.counts(x, pf)
	be, oe := c.m.Expr(o.BlockExpr()), c.m.Expr(o.OffsetExpr())
	if be.IsConst() {
		x.blockConst, x.block = true, be.Const
	}
	if oe.IsConst() {
		x.offConst, x.off = true, oe.Const
	}
	if c.emptyLoops > 0 {
		x.ok = true // the access never executes: nothing to bound
		return
	}
	nb := max(ts.NBlocks, 1)
	lo, hi, ok := c.exprRange(&be)
	if !ok {
		c.instDiag(i, "ap-bounds", "%s: block index %s over the enclosing loops' ranges: want values within +-2^62, have an int64 overflow", c.label(x), be.Format(c.m.AxisName))
		return
	}
	if lo < 0 || hi >= nb {
		c.instDiag(i, "ap-bounds", "%s: block index %s ranges over [%d, %d]: want 0 <= block < %d (tensor %s has %d blocks)",
			c.label(x), be.Format(c.m.AxisName), lo, hi, nb, ts.Name, nb)
		return
	}
	olo, ohi, ok := c.exprRange(&oe)
	if !ok {
		c.instDiag(i, "ap-bounds", "%s: offset %s over the enclosing loops' ranges: want values within +-2^62, have an int64 overflow", c.label(x), oe.Format(c.m.AxisName))
		return
	}
	lo, hi = olo+pf.minRel, ohi+pf.maxRel
	if lo < 0 || hi >= total {
		c.instDiag(i, "ap-bounds", "%s: offset %s with access pattern %s reaches elements [%d, %d] of a block of %d %s elements: want 0 <= index < %d",
			c.label(x), oe.Format(c.m.AxisName), patternText(c.m.Pattern(o.Pattern)), lo, hi, total, x.dtype, total)
		return
	}
	if x.onChip && pf.p0num > c.f.Loc(x.loc).Partitions && pf.p0step != 0 {
		c.instDiag(i, "ap-bounds", "%s: pair 0 accesses %d partitions: want <= %d, the location's partitions", c.label(x), pf.p0num, c.f.Loc(x.loc).Partitions)
		return
	}
	x.ok = true
}

func (c *checker) regAP(i bir.InstID, x *opnd, o *bir.Operand) {
	x.pat = o.Pattern
	ts, ok := c.tensorRef(i, x, o.TensorRef())
	if r := bir.RegID(o.Expr); r < 0 || int(r) >= c.nRegs {
		c.instDiag(i, "ref", "%s: offset register #%d: want an id < %d (the function's registers), have %d", c.label(x), r, c.nRegs, r)
	}
	pf := c.pattern(i, x, o.Pattern)
	if !ok || pf == nil || len(ts.Locs) == 0 || !c.validLoc(ts.Locs[0]) {
		return
	}
	if _, tok := c.locGeometry(i, x, ts.Locs[0]); !tok {
		return
	}
	c.counts(x, pf)
	// The offset is a run-time register value: only the shape is checked.
	if x.onChip && pf.p0num > c.f.Loc(x.loc).Partitions {
		c.instDiag(i, "ap-bounds", "%s: pair 0 accesses %d partitions: want <= %d, the location's partitions", c.label(x), pf.p0num, c.f.Loc(x.loc).Partitions)
		return
	}
	x.ok = true
}

// ---- expression ranges ----

func plainAffine(e *affine.Expr) bool {
	for k := range e.Terms {
		if e.Terms[k].Atom.Kind != affine.AtomAxis {
			return false
		}
	}
	return true
}

// exprRange bounds e over the enclosing loops' iteration ranges: exact for
// plain affine expressions (affine.Expr.Bounds), and for quasi-affine ones
// exact by enumeration when the axes involved span at most enumLimit
// points, else Bounds' conservative interval.
//
// ok is false when the expression overflows int64 on the loops' ranges,
// or reaches beyond +-2^62 (where adding a pattern's relative index could
// overflow): the interpreter and the unrollers evaluate expressions in
// wrapping int64 arithmetic, so such an expression could wrap an
// out-of-bounds access back into bounds.
func (c *checker) exprRange(e *affine.Expr) (int64, int64, bool) {
	lo, hi, ok := e.Bounds(c.box)
	if !ok || lo <= -limit || hi >= limit {
		return 0, 0, false
	}
	if plainAffine(e) {
		return lo, hi, true
	}
	if elo, ehi, ok := c.enumerate(e); ok {
		return elo, ehi, true
	}
	return lo, hi, true
}

const enumLimit = 1 << 16

// enumEnv is the affine.Env of an enumeration: the checker's axis values.
type enumEnv struct {
	axes [8]affine.Axis
	vals [8]int64
	n    int
}

func (v *enumEnv) Value(a affine.Axis) (int64, bool) {
	for k := 0; k < v.n; k++ {
		if v.axes[k] == a {
			return v.vals[k], true
		}
	}
	return 0, false
}

func (c *checker) collectAxes(e *affine.Expr) bool {
	for k := range e.Terms {
		at := &e.Terms[k].Atom
		if at.Kind != affine.AtomAxis {
			if at.Sub == nil || !c.collectAxes(at.Sub) {
				return false
			}
			continue
		}
		dup := false
		for j := 0; j < c.env.n; j++ {
			if c.env.axes[j] == at.Axis {
				dup = true
			}
		}
		if !dup {
			if c.env.n == len(c.env.axes) {
				return false
			}
			c.env.axes[c.env.n] = at.Axis
			c.env.n++
		}
	}
	return true
}

// enumerate evaluates e at every iteration point of its axes.
func (c *checker) enumerate(e *affine.Expr) (lo, hi int64, ok bool) {
	c.env.n = 0
	if !c.collectAxes(e) {
		return 0, 0, false
	}
	points := int64(1)
	for k := 0; k < c.env.n; k++ {
		a := c.env.axes[k]
		if a < 0 || int(a) >= c.nAxes || !c.axisOn[a] {
			return 0, 0, false
		}
		trip := c.m.Axis(a).TripCount()
		if trip < 1 {
			return 0, 0, false
		}
		if points *= trip; points > enumLimit {
			return 0, 0, false
		}
		c.env.vals[k] = c.axisLo[a]
	}
	first := true
	for {
		v, err := e.Eval(&c.env)
		if err != nil {
			return 0, 0, false
		}
		if first || v < lo {
			lo = v
		}
		if first || v > hi {
			hi = v
		}
		first = false
		// Odometer step.
		k := 0
		for ; k < c.env.n; k++ {
			a := c.env.axes[k]
			// Compare before stepping: the step past the last value
			// can overflow int64 (lb 0, stride 2^62).
			if c.env.vals[k] < c.axisHi[a] {
				c.env.vals[k] += c.m.Axis(a).Stride
				break
			}
			c.env.vals[k] = c.axisLo[a]
		}
		if k == c.env.n {
			return lo, hi, true
		}
	}
}
