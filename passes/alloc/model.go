// The allocator's view of a function: program positions, the touches of
// every on-chip location, and the live intervals (straight-line code, code
// with branches, and the loop rules of decision.go).
//
// Positions are f.Walk's order: every instruction, a loop instruction
// before its body; a loop's range is its own position through the last
// position of its body. A location is touched by an instruction when one
// of its access patterns resolves to it: a physical AP names it; a
// symbolic or register AP names its tensor and resolves to the location of
// its block when the block index is a constant, else to every location of
// the tensor (conservative: all of them are live for the access).
//
// Intervals are closed: [first touch, last touch]. An instruction that
// reads one location and writes another keeps both live at its position,
// so the allocator never assumes an engine reads its sources before it
// writes its destination (no in-place reuse). A function with branch
// instructions has no straight-line order: every location it touches is
// live over the whole function.
package alloc

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pack"
)

// Per-location flags.
const (
	lfUsed      uint8 = 1 << iota // touched by an instruction
	lfMatmulDst                   // written by a Matmult (its group clears and owns whole banks)
	lfFixed                       // arrives allocated or pinned: a fixed obstacle
)

// model holds the positions and touches of one function.
type model struct {
	f *bir.Function
	n int32 // number of positions

	loops   bool // the function has loops
	control bool // the function has branch instructions

	first, last         []int32 // per location: first and last touch position (-1: none)
	firstInst, lastInst []bir.InstID
	flags               []uint8

	loopLo, loopHi []int32 // per loop table entry (-1: not reached)

	// lo, hi are the live intervals (positions, inclusive); scope is the
	// loop a location is local to (decision.go), NoInst at top level.
	lo, hi []int32
	scope  []bir.InstID

	// starts pins locations to a start partition (pack.Problem2D.Starts
	// bits; nil until a matmul's tile_position pins one), pinBy the
	// matmul that pinned it; err is the first tile_position no placement
	// can satisfy (tilePin).
	starts []uint8
	pinBy  []bir.InstID
	err    error

	touch []bir.LocID // scratch of resolve
}

// newModel walks f once.
func newModel(f *bir.Function) *model {
	nl := f.NumLocs()
	m := &model{
		f:         f,
		first:     fill(make([]int32, nl), -1),
		last:      fill(make([]int32, nl), -1),
		firstInst: make([]bir.InstID, nl),
		lastInst:  make([]bir.InstID, nl),
		flags:     make([]uint8, nl),
		loopLo:    fill(make([]int32, f.NumLoops()), -1),
		loopHi:    fill(make([]int32, f.NumLoops()), -1),
	}
	for l := 0; l < nl; l++ {
		lc := f.Loc(bir.LocID(l))
		if !lc.Dead && lc.Type.IsOnChip() && (lc.Allocated || lc.Pinned) {
			m.flags[l] |= lfFixed
		}
	}
	for _, b := range f.Top {
		m.walk(b)
	}
	return m
}

func fill[T any](s []T, v T) []T {
	for k := range s {
		s[k] = v
	}
	return s
}

func (m *model) walk(b bir.BlockID) {
	f := m.f
	for _, i := range f.Block(b).Insts {
		p := m.n
		m.n++
		in := f.Inst(i)
		if in.Op.IsLoop() {
			m.loops = true
			aux := in.Aux
			m.loopLo[aux] = p
			for _, bb := range f.Loop(i).Body {
				m.walk(bb)
			}
			m.loopHi[aux] = m.n - 1
			continue
		}
		if in.Op == bir.OpCompareAndBranch || in.Op == bir.OpUnconditionalBranch {
			m.control = true
		}
		nIn := int(in.NIns)
		mm := in.Op.IsMatmul()
		if mm {
			m.tilePin(i)
		}
		for k, o := range f.Operands(i) {
			if !o.Kind.IsAP() {
				continue
			}
			for _, l := range m.resolve(&o) {
				if m.first[l] < 0 {
					m.first[l], m.firstInst[l] = p, i
					m.flags[l] |= lfUsed
				}
				m.last[l], m.lastInst[l] = p, i
				if mm && k >= nIn {
					m.flags[l] |= lfMatmulDst
				}
			}
		}
	}
}

// resolve returns the on-chip locations operand o touches (valid until
// the next call).
func (m *model) resolve(o *bir.Operand) []bir.LocID {
	f := m.f
	out := m.touch[:0]
	switch o.Kind {
	case bir.OpdPhysAP:
		if f.Loc(o.Loc()).Type.IsOnChip() {
			out = append(out, o.Loc())
		}
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if o.Kind == bir.OpdSymAP {
			if be := f.Module().Expr(o.BlockExpr()); be.IsConst() {
				if l, ok := f.LocForBlock(t, be.Const); ok && f.Loc(l).Type.IsOnChip() {
					out = append(out, l)
				}
				break
			}
		}
		for _, l := range f.Tensor(t).Locs {
			if f.Loc(l).Type.IsOnChip() {
				out = append(out, l)
			}
		}
	}
	m.touch = out
	return out
}

// intervals computes lo, hi and scope for every used location.
func (m *model) intervals() {
	nl := len(m.first)
	m.lo, m.hi = make([]int32, nl), make([]int32, nl)
	m.scope = fill(make([]bir.InstID, nl), bir.NoInst)
	for l := 0; l < nl; l++ {
		if m.flags[l]&lfUsed == 0 {
			continue
		}
		switch {
		case m.control:
			m.lo[l], m.hi[l] = 0, m.n-1
		case m.loops:
			m.lo[l], m.hi[l], m.scope[l] = m.loopInterval(bir.LocID(l))
		default:
			m.lo[l], m.hi[l] = m.first[l], m.last[l]
		}
	}
}

// byStart returns the locations with an interval or a fixed placement,
// fixed ones first, then by the start of their interval (a counting sort
// over positions: O(locations + positions)), so that the sweep needs no
// sort.
func (m *model) byStart() []int32 {
	nl := len(m.flags)
	count := make([]int32, m.n+2)
	for l := 0; l < nl; l++ {
		switch {
		case m.flags[l]&lfFixed != 0:
			count[1]++ // key 0, counted at key+1
		case m.flags[l]&lfUsed != 0:
			count[m.lo[l]+2]++ // key lo+1
		}
	}
	for k := 1; k < len(count); k++ {
		count[k] += count[k-1]
	}
	out := make([]int32, count[len(count)-1])
	for l := 0; l < nl; l++ {
		k := int32(-1)
		switch {
		case m.flags[l]&lfFixed != 0:
			k = -1
		case m.flags[l]&lfUsed != 0:
			k = m.lo[l]
		default:
			continue
		}
		out[count[k+1]] = int32(l)
		count[k+1]++
	}
	return out
}

// enclosingLoop returns the loop whose body holds instruction i, or NoInst.
func (m *model) enclosingLoop(i bir.InstID) bir.InstID {
	b := m.f.Inst(i).Block
	if b == bir.NoBlock {
		return bir.NoInst
	}
	return m.f.Block(b).Parent
}

// loopRange returns the positions of loop L.
func (m *model) loopRange(L bir.InstID) (int32, int32) {
	aux := m.f.Inst(L).Aux
	return m.loopLo[aux], m.loopHi[aux]
}

// tilePin pins the locations of matmul i's operands to the start
// partitions its tile_position asks (seed 000 getLegalTilePosition: the
// moving operand, source 1, starts at the row, the destination at the
// column; [-1, -1] asks nothing). An operand starts at its location's
// base plus the partitions its constant offset skips, so the location
// must start at the position minus that. Operands whose location or
// offset is not constant (a loop-variant access), and fixed locations
// (checked by the verifier on the input), are left alone. A position no
// legal start gives, or two matmuls asking one location for different
// starts, is the input's mistake (m.err).
func (m *model) tilePin(i bir.InstID) {
	f := m.f
	row, col, set, ok := arch.TilePair(f.Attrs(i), "tile_position")
	if !set || !ok || (row == -1 && col == -1) {
		return
	}
	ins, outs := f.Ins(i), f.Outs(i)
	if len(ins) >= 2 {
		m.pin(i, &ins[1], row, "moving source 1", "row")
	}
	if len(outs) >= 1 {
		m.pin(i, &outs[0], col, "destination", "column")
	}
}

func (m *model) pin(i bir.InstID, o *bir.Operand, want int64, what, field string) {
	f := m.f
	l, off, ok := constAccess(f, o)
	if !ok || m.flags[l]&lfFixed != 0 || m.err != nil {
		return
	}
	lc := f.Loc(l)
	sz := o.Dtype.Size()
	if !lc.Type.IsOnChip() || sz <= 0 || lc.Bytes < sz {
		return
	}
	skip := floorDiv(off, lc.Bytes/sz) // partitions before the access
	base := want - skip
	pos := fmt.Sprintf("tile_position %s %d", field, want)
	if base < 0 || base >= arch.PartitionArray || !arch.LegalPartitionStart(int(base), int(lc.Partitions)) {
		m.err = diag.Wrap(diag.MatmulLimit, f.Errorf(i, "%s: the %s (location %s, %d partitions, read from its partition %d) must start at partition %d, so its location at partition %d: want a start the partition-start rule allows for %d partitions (%s)",
			pos, what, lc.Name, lc.Partitions, skip, want, base, lc.Partitions, arch.PartitionStartsText(int(lc.Partitions))))
		return
	}
	bit := pack.StartBit(int(base))
	if m.starts == nil {
		m.starts = make([]uint8, len(m.flags))
		m.pinBy = make([]bir.InstID, len(m.flags))
	}
	if have := m.starts[l]; have != 0 && have != bit {
		m.err = diag.Wrap(diag.MatmulLimit, f.Errorf(i, "%s: the %s puts location %s at partition %d, but instruction %s's tile_position puts it at partition %d: want one start for a location every matmul reads at its tile_position",
			pos, what, lc.Name, base, f.InstName(m.pinBy[l]), startOfBit(have)))
		return
	}
	m.starts[l], m.pinBy[l] = bit, i
}

// startOfBit is the start partition of a single Starts bit.
func startOfBit(b uint8) int {
	for q := 0; q < 8; q++ {
		if b == 1<<q {
			return q * pack.QuadrantPartitions
		}
	}
	return -1
}

// constAccess returns the on-chip location an access pattern reaches and
// its element offset there, when both are constants: a physical AP, or a
// symbolic AP with a constant block index and offset.
func constAccess(f *bir.Function, o *bir.Operand) (bir.LocID, int64, bool) {
	switch o.Kind {
	case bir.OpdPhysAP:
		return o.Loc(), o.Offset, true
	case bir.OpdSymAP:
		mod := f.Module()
		be, oe := mod.Expr(o.BlockExpr()), mod.Expr(o.OffsetExpr())
		if !be.IsConst() || !oe.IsConst() {
			return bir.NoLoc, 0, false
		}
		if l, ok := f.LocForBlock(o.TensorRef(), be.Const); ok {
			return l, oe.Const, true
		}
	}
	return bir.NoLoc, 0, false
}

// startMask is location l's pack.Problem2D.Starts entry (0: unpinned).
func (m *model) startMask(l bir.LocID) uint8 {
	if m.starts == nil {
		return 0
	}
	return m.starts[l]
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
