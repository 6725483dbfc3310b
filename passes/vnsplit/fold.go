// VerticalFusion::runTransform — the FOLD phase of vn_splitter (seed 004
// §1), run after the split when foldIntoPredecessor is on. The seed pins
// its position and its gate but not its condition ([GAP]); narwhal's rule:
//
//	A copy C: X -> Y folds into its predecessor P (the instruction that
//	writes X) — P writes Y directly, C is deleted and X becomes dead —
//	when all of these hold:
//
//	 1. C is a pure copy: a TensorCopy on DVE, Pool or an unassigned engine
//	    (the Activation engine may round through fp32), or a DMA copy
//	    (Load, Save, DMA, DMACopy in mode Copy) with one source; its source
//	    and destination are physical accesses with the same dtype and the
//	    same [step, num] nums (so C moves element k of X to element k of Y
//	    bit for bit, and nothing else).
//	 2. X is an internal location, not allocated (nor is Y: an allocated
//	    location may share bytes with another), with no symbolic or
//	    register access to its tensor, accessed by exactly two operands in
//	    the whole function: P's write and C's read — a single producer and
//	    a single use.
//	 3. P writes X through exactly the operand C reads (same offset,
//	    pattern and dtype), has one destination, no predicate (nor has C),
//	    sits before C in the same block, and is an element-wise opcode that
//	    only writes its destination (Load, Save, DMA, DMACopy Copy/CCE,
//	    TensorTensor, TensorScalar, TensorScalarPtr, TensorCopy, Memset,
//	    Activation with acc Idle). P does not read Y.
//	 4. P may write Y's memory: Y is on-chip like X (a Load stays a load
//	    into SBUF/PSUM; a DMA chain through on-chip memory into DRAM is not
//	    turned into a DRAM-to-DRAM DMA); a compute P needs C to be a
//	    TensorCopy (so C's destination is an engine access pattern) and
//	    never writes PSUM from GpSimd.
//	 5. Nothing between P and C in program order accesses Y (the write
//	    moves from C's position to P's), and C's dependencies all point
//	    before P (P inherits them; a carried dependency blocks the fold).
//
// Why it is safe: by (2) and (3) the values C copies are exactly those P
// produced, in the same element order, and nothing else observes X; by (1)
// the copy is the identity on bits, so P writing Y directly stores the
// same bytes; by (5) no instruction can tell that Y was written earlier,
// and every ordering C had is kept by P. Instructions that depended on C
// depend on P instead. The translation-validation tests run the
// interpreter before and after on every kernel and on crafted chains.
//
// Folds are found in sweeps over the function with one use index, in
// program order, each checked against what the folds chosen before it in
// the sweep change (so many copies into one destination fold in one
// sweep); a chain P -> X -> Y -> Z, where one fold's destination is
// another's intermediate, collapses over successive sweeps (at most
// maxFoldSweeps, each linear in the function).
package vnsplit

import (
	"slices"
	"sort"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// maxFoldSweeps bounds the sweeps (each is linear in the function).
const maxFoldSweeps = 8

// folder is VerticalFusion for one function.
type folder struct {
	f   *bir.Function
	m   *bir.Module
	opt *Options
	st  *Stats
	pos []int32
}

func (v *folder) logf(format string, args ...any) {
	if v.opt.Logf != nil {
		v.opt.Logf(format, args...)
	}
}

// fold is one planned fold.
type fold struct {
	p, c bir.InstID
	pOut int // index of P's destination among its operands
	x, y bir.LocID
}

// runTransform is VerticalFusion::runTransform.
func (v *folder) runTransform() {
	for sweep := 0; sweep < maxFoldSweeps; sweep++ {
		if v.sweep() == 0 {
			return
		}
	}
}

// sweepState is what the folds chosen so far in a sweep have changed:
// the use index is the sweep's starting one, so the checks consult it
// through these.
type sweepState struct {
	uses     *bir.UseIndex
	folded   map[bir.InstID]bir.InstID // removed copy -> its producer
	producer map[bir.InstID]bool       // producers of chosen folds
	deadX    map[bir.LocID]bool        // intermediates of chosen folds
	writtenY map[bir.LocID][]int32     // positions of producers now writing Y
}

// sweep finds and applies a set of folds; it returns how many. The folds
// are chosen in program order, each checked against the state the earlier
// ones leave (so several copies into one destination fold in one sweep);
// chains (a fold's destination being another's intermediate) wait for the
// next sweep.
func (v *folder) sweep() int {
	f := v.f
	// The copies that pass the checks needing no use index; most
	// functions have none, and then no index is built.
	var copies []bir.InstID
	f.Walk(func(c bir.InstID) bool {
		if v.cheap(c) {
			copies = append(copies, c)
		}
		return true
	})
	if len(copies) == 0 {
		return 0
	}
	v.pos, _ = footprint.Flatten(f, v.pos)
	ss := &sweepState{uses: f.Uses(), folded: map[bir.InstID]bir.InstID{}, producer: map[bir.InstID]bool{},
		deadX: map[bir.LocID]bool{}, writtenY: map[bir.LocID][]int32{}}
	var folds []fold
	for _, c := range copies {
		fd, ok := v.candidate(c, ss)
		if !ok {
			continue
		}
		ss.folded[fd.c] = fd.p
		ss.producer[fd.p] = true
		ss.deadX[fd.x] = true
		ss.writtenY[fd.y] = append(ss.writtenY[fd.y], v.pos[fd.p])
		folds = append(folds, fd)
	}
	if len(folds) == 0 {
		return 0
	}
	for _, fd := range folds {
		v.apply(fd, ss.folded)
	}
	v.redirectDeps(ss.folded)
	return len(folds)
}

// maxBetween bounds the accesses of Y between P and C that a check
// walks (those of copies already folded in the sweep are skipped).
const maxBetween = 64

// copyOp reports whether C is a pure copy and whether it is a DMA.
func (v *folder) copyOp(c bir.InstID) (ok, dma bool) {
	f := v.f
	in := f.Inst(c)
	switch in.Op {
	case bir.OpTensorCopy:
		switch in.Engine {
		case bir.EngDVE, bir.EngPool, bir.EngUnassigned:
			return true, false
		}
		return false, false
	case bir.OpLoad, bir.OpSave, bir.OpDMA:
		return true, true
	case bir.OpDMACopy:
		return f.Attrs(c).Str("mode", "Copy") == "Copy", true
	}
	return false, false
}

// producerOp reports whether P's opcode may be folded into and whether P
// is a DMA.
func (v *folder) producerOp(p bir.InstID) (ok, dma bool) {
	f := v.f
	switch f.Inst(p).Op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA:
		return true, true
	case bir.OpDMACopy:
		return footprint.ReachOf(f, p).Followed(), true
	case bir.OpTensorTensor, bir.OpTensorScalar, bir.OpTensorScalarPtr, bir.OpTensorCopy, bir.OpMemset:
		return true, false
	case bir.OpActivation:
		return f.Attrs(p).Str("acc", "Idle") == "Idle", false
	}
	return false, false
}

// cheap is the part of the fold rule that needs no use index: c is a
// pure copy of one physical access into another of the same dtype, from
// an internal, unallocated on-chip location into an on-chip one.
func (v *folder) cheap(c bir.InstID) bool {
	f := v.f
	cin := f.Inst(c)
	if cin.Op.IsLoop() || cin.NIns != 1 || cin.NOuts != 1 || cin.Pred != 0 {
		return false
	}
	if ok, _ := v.copyOp(c); !ok {
		return false
	}
	src, dst := f.Ins(c)[0], f.Outs(c)[0]
	if src.Kind != bir.OpdPhysAP || dst.Kind != bir.OpdPhysAP || src.Dtype != dst.Dtype || src.Loc() == dst.Loc() {
		return false
	}
	x, y := src.Loc(), dst.Loc()
	if int(x) < 0 || int(x) >= f.NumLocs() || int(y) < 0 || int(y) >= f.NumLocs() {
		return false
	}
	xl, yl := f.Loc(x), f.Loc(y)
	// Y unallocated too: an allocated Y may share bytes with another
	// location, whose accesses the "nothing between" check cannot see.
	return !xl.Dead && !yl.Dead && xl.Type.IsOnChip() && yl.Type.IsOnChip() && !xl.Allocated && !xl.Pinned &&
		!yl.Allocated && f.Tensor(xl.Tensor).Kind == bir.KindInternal
}

// candidate checks the fold rule for copy c against the sweep state.
func (v *folder) candidate(c bir.InstID, ss *sweepState) (fold, bool) {
	f, m := v.f, v.m
	uses := ss.uses
	var fd fold
	cin := f.Inst(c)
	if cin.Op.IsLoop() || cin.NIns != 1 || cin.NOuts != 1 || cin.Pred != 0 || ss.producer[c] {
		return fd, false
	}
	isCopy, cDMA := v.copyOp(c)
	if !isCopy {
		return fd, false
	}
	src, dst := f.Ins(c)[0], f.Outs(c)[0]
	if src.Kind != bir.OpdPhysAP || dst.Kind != bir.OpdPhysAP || src.Dtype != dst.Dtype || src.Loc() == dst.Loc() {
		return fd, false
	}
	if !slices.Equal(m.Pattern(src.Pattern).Shape(), m.Pattern(dst.Pattern).Shape()) {
		return fd, false
	}
	x, y := src.Loc(), dst.Loc()
	if int(x) < 0 || int(x) >= f.NumLocs() || int(y) < 0 || int(y) >= f.NumLocs() {
		return fd, false
	}
	if ss.deadX[x] || ss.deadX[y] || len(ss.writtenY[x]) > 0 {
		return fd, false // a chain: the next sweep
	}
	xl, yl := f.Loc(x), f.Loc(y)
	xt := f.Tensor(xl.Tensor)
	if xl.Dead || yl.Dead || xt.Kind != bir.KindInternal || xl.Allocated || xl.Pinned ||
		!xl.Type.IsOnChip() || !yl.Type.IsOnChip() ||
		len(uses.Tensor(xl.Tensor)) > 0 || len(uses.Tensor(yl.Tensor)) > 0 {
		return fd, false
	}
	xu := uses.Loc(x)
	if len(xu) != 2 {
		return fd, false
	}
	var pw bir.Use
	switch {
	case xu[0].Out && !xu[1].Out && xu[1].Inst == c:
		pw = xu[0]
	case xu[1].Out && !xu[0].Out && xu[0].Inst == c:
		pw = xu[1]
	default:
		return fd, false
	}
	p := pw.Inst
	pin := f.Inst(p)
	if p == c || ss.producer[p] || pin.Block != cin.Block || pin.Pred != 0 || pin.NOuts != 1 || int(pw.Operand) != int(pin.NIns) {
		return fd, false
	}
	if _, gone := ss.folded[p]; gone {
		return fd, false
	}
	lo, hi := v.pos[p], v.pos[c]
	if lo < 0 || lo >= hi {
		return fd, false
	}
	pOK, pDMA := v.producerOp(p)
	if !pOK || f.Outs(p)[0] != src {
		return fd, false
	}
	// P's memory rules for writing Y (on-chip, as X).
	if !pDMA {
		if cDMA {
			return fd, false
		}
		if yl.Type == bir.MemPSUM && pin.Engine == bir.EngPool {
			return fd, false
		}
	}
	for _, o := range f.Ins(p) {
		if o.Kind == bir.OpdPhysAP && o.Loc() == y {
			return fd, false
		}
	}
	// Nothing between P and C touches Y: the sweep's starting uses (in
	// program order) less the copies folded away, plus the producers
	// that now write Y.
	yu := uses.Loc(y)
	k := sort.Search(len(yu), func(k int) bool { return v.pos[yu[k].Inst] > lo })
	for n := 0; k < len(yu) && v.pos[yu[k].Inst] < hi; k++ {
		if _, gone := ss.folded[yu[k].Inst]; gone {
			if n++; n > maxBetween {
				return fd, false
			}
			continue
		}
		return fd, false
	}
	for _, q := range ss.writtenY[y] {
		if q > lo && q < hi {
			return fd, false
		}
	}
	// C's dependencies must precede P and not be carried.
	for _, d := range f.Deps(c) {
		on := d.On
		if np, gone := ss.folded[on]; gone {
			on = np
		}
		switch {
		case d.CarryAxis != bir.NoAxis:
			return fd, false
		case on == p:
			continue // the flow edge P -> C disappears with C
		case int(on) < 0 || int(on) >= len(v.pos) || v.pos[on] < 0 || v.pos[on] >= lo:
			return fd, false
		}
	}
	return fold{p: p, c: c, pOut: int(pin.NIns), x: x, y: y}, true
}

// apply performs one fold (folded maps the sweep's removed copies to
// their producers, for the dependencies P inherits).
func (v *folder) apply(fd fold, folded map[bir.InstID]bir.InstID) {
	f := v.f
	dst := f.Outs(fd.c)[0]
	v.logf("VerticalFusion: folded copy %s into %s: %s now writes %s directly, %s is dead",
		f.InstName(fd.c), f.InstName(fd.p), f.InstName(fd.p), f.Loc(fd.y).Name, f.Loc(fd.x).Name)
	f.SetOperand(fd.p, fd.pOut, dst)
	have := f.Deps(fd.p)
	for _, d := range f.Deps(fd.c) {
		if np, gone := folded[d.On]; gone {
			d.On = np
		}
		if d.On == fd.p {
			continue
		}
		dup := false
		for _, h := range have {
			if h.On == d.On && h.Kind == d.Kind && h.CarryAxis == d.CarryAxis {
				dup = true
				break
			}
		}
		if !dup {
			f.AddDep(fd.p, d)
			have = append(have, d)
		}
	}
	f.Remove(fd.c)
	t := f.Loc(fd.x).Tensor
	f.RemoveLoc(fd.x)
	if len(f.Tensor(t).Locs) == 0 {
		f.RemoveTensor(t)
	}
	v.st.Folded++
	v.st.DeadInsts++
}

// redirectDeps points dependencies on folded copies at their producers.
func (v *folder) redirectDeps(redirect map[bir.InstID]bir.InstID) {
	f := v.f
	f.Walk(func(i bir.InstID) bool {
		if !f.HasDeps(i) {
			return true
		}
		deps := f.Deps(i)
		stale := false
		for _, d := range deps {
			if _, ok := redirect[d.On]; ok {
				stale = true
				break
			}
		}
		if !stale {
			return true
		}
		f.ClearDeps(i)
		var kept []bir.Dep
		for _, d := range deps {
			if p, ok := redirect[d.On]; ok {
				d.On = p
			}
			if d.On == i {
				continue
			}
			dup := false
			for _, k := range kept {
				if k.On == d.On && k.Kind == d.Kind && k.CarryAxis == d.CarryAxis && k.CarryDist == d.CarryDist && k.Pred == d.Pred {
					dup = true
					break
				}
			}
			if !dup {
				kept = append(kept, d)
				f.AddDep(i, d)
			}
		}
		return true
	})
}
