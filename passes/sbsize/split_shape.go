// set_splitShape — mark, do not clone (seed 000): for each tensor still
// illegal after shrink_tensor, decide which dims FullUnroll::tensorSplit
// must cut and store the decision as Tensor.SplitShape, a bool per dim.
// The pieces per marked dim are the unroller's (getLargestFactorWithThreshold,
// MaxFactor 16), so the mask is all this pass can say; it chooses the mask
// by asking the unroller's geometry (footprint.Cut) what each candidate
// cut would do to every access of the tensor at every iteration.
//
// Per illegal tensor, in order:
//
//  1. A cut. A dim d is a candidate when it has a divisor between 2 and 16
//     and, cut alone, every access either stays inside one piece or can be
//     split by the unroller (an element-wise opcode whose access-pattern
//     operands have equal nums, with exactly one pair moving along d). A
//     matmul-touched partition dim is a candidate only when a piece's
//     partition count is a valid PE tile size at base partition 0
//     (validTileSizes, arch.IsValidTileSize): a matmul operand cannot be
//     re-tiled by the cut. The partition dim is marked when the tensor has
//     more partitions than the array; then free dims are marked until a
//     piece passes is_legal_tensor, preferring dims no access straddles
//     (fewest straddling accesses first, then dims a loop axis indexes —
//     the seed's loop-axes rule — then outermost).
//  2. If that cut makes some access straddle pieces (FullUnroll then
//     splits the instruction), vn_splitter is preferred when it can do the
//     job without splitting anything: the accesses fall into groups of
//     disjoint partitions, each within the partition count, whose touched
//     bytes per partition fit (vn_splitter carves them into _VN_ pieces,
//     shrink_ml trims each). Otherwise the cut of step 1 is taken.
//  3. Else shrink_ml: the window of elements the accesses touch, from the
//     lowest to the highest over every access, fits (planShrink).
//  4. Else the tensor cannot fit: an error names it, its bytes per
//     partition and the budget, and why each remedy fails.
//
// Tensors that need no repair keep their SplitShape as it is (nil stays
// nil: the pass writes a mask only where it decided a cut).
package sbsize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

type fixKind uint8

const (
	fixNone       fixKind = iota // legal
	fixSplit                     // a splitShape cut legalizes it
	fixVN                        // vn_splitter's groups legalize it
	fixShrink                    // shrink_ml's trim legalizes it
	fixImpossible                // nothing does
)

// tensorInfo is the seed's mem_loc_info: the per-tensor side table.
type tensorInfo struct {
	illegal     bool
	illegalLocs int    // illegal locations (a block template counts its blocks)
	why         string // what is illegal
	fix         fixKind
	mask        []bool
	pieces      int64  // pieces per location of the cut
	note        string // how it is repaired, or why it cannot be
	accs        []access
	forced      bool // every symbolic access has all its loops marked
}

// funcState is the per-function state of the pass.
type funcState struct {
	lz   *legalizer
	f    *bir.Function
	m    *bir.Module
	pos  []int32 // flatten: program-order index per instruction (nil until needed)
	info []tensorInfo
}

// classify finds the illegal tensors and decides how each is repaired.
func (fs *funcState) classify() error {
	f, lz := fs.f, fs.lz
	geo, st := lz.geo, lz.st
	fs.info = make([]tensorInfo, f.NumTensors())
	for t := bir.TensorID(0); int(t) < f.NumTensors(); t++ {
		ts := f.Tensor(t)
		if ts.Dead {
			continue
		}
		ti := &fs.info[t]
		onChip := false
		ds := max(ts.Dtype.Size(), 1)
		w := 1
		if ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1 {
			w = int(ts.NBlocks) // a template stands for every block
		}
		for _, l := range ts.Locs {
			lc := f.Loc(l)
			if lc.Dead || !lc.Type.IsOnChip() {
				continue
			}
			onChip = true
			st.OnChipLocations += w
			// The common case without the message (LocLegal's rule).
			if lc.Partitions <= geo.Partitions && footprint.RoundUp8((lc.Bytes+ds-1)/ds)*ds <= geo.Budget(lc.Type) {
				continue
			}
			if ok, why := geo.LocLegal(f, l); !ok {
				ti.illegalLocs += w
				if ti.why == "" {
					ti.why = fmt.Sprintf("location %s (%s): %s", lc.Name, lc.Type, why)
				}
			}
		}
		if !onChip {
			continue
		}
		st.OnChipTensors++
		if pd := ts.PartitionDim; pd >= 0 && pd < int64(len(ts.Shape)) && !geo.IsLegalTensor(f, footprint.SetOf(t), ts.Shape[pd]) {
			if ti.why == "" {
				ti.why = fmt.Sprintf("shape %v: %d partitions, want <= %d", ts.Shape, ts.Shape[pd], geo.Partitions)
			}
			ti.illegalLocs = max(ti.illegalLocs, 1)
		}
		if ti.illegalLocs == 0 {
			continue
		}
		ti.illegal = true
		st.IllegalTensors++
		lz.logf("tenosrizer split %s: %s", ts.Name, ti.why)
		fs.plan(t)
	}
	return nil
}

// plan decides how tensor t is repaired (the steps of the file comment).
func (fs *funcState) plan(t bir.TensorID) {
	f, lz := fs.f, fs.lz
	ts := f.Tensor(t)
	ti := &fs.info[t]
	ti.accs = fs.accesses(t)
	var whyNot []string
	for _, a := range ti.accs {
		if a.sym() && a.dynamic != "" {
			ti.fix = fixImpossible
			ti.note = fmt.Sprintf("instruction %s accesses it inside %s, which FullUnroll cannot unroll (a run-time trip count), so no cut, split or trim can reach it", f.InstName(a.inst), a.dynamic)
			fs.unfittable(t)
			return
		}
	}
	mask, pieces, straddles, why := fs.planCut(t)
	takeCut := func() {
		ti.fix, ti.mask, ti.pieces = fixSplit, mask, pieces
		ti.note = fmt.Sprintf("cut into %d pieces per location along dims %v", pieces, markedDims(mask))
		lz.st.CanSplit++
	}
	if mask != nil && straddles == 0 {
		takeCut()
		return
	}
	if mask == nil {
		whyNot = append(whyNot, "cut: "+why)
	}
	// A cut that splits instructions is the last resort when vn_splitter's
	// partition groups fit as they are.
	if ok, why := fs.planVN(t); ok {
		ti.fix, ti.note = fixVN, why
		lz.st.LeftToVN++
		lz.logf("%s: left to vn_splitter: %s", ts.Name, why)
		return
	} else if mask != nil {
		takeCut()
		return
	} else {
		whyNot = append(whyNot, "vn_splitter: "+why)
	}
	if ok, why := fs.planShrink(t); ok {
		ti.fix, ti.note = fixShrink, why
		lz.st.LeftToShrink++
		lz.logf("%s: left to shrink_ml: %s", ts.Name, why)
		return
	} else {
		whyNot = append(whyNot, "shrink_ml: "+why)
	}
	ti.fix = fixImpossible
	ti.note = strings.Join(whyNot, "; ")
	fs.unfittable(t)
}

func (fs *funcState) unfittable(t bir.TensorID) {
	ti := &fs.info[t]
	msg := fmt.Sprintf("function %s, tensor %s: %s; %s", fs.f.Name, fs.f.Tensor(t).Name, ti.why, ti.note)
	fs.lz.st.Unfittable = append(fs.lz.st.Unfittable, msg)
	fs.lz.logf("%s", msg)
}

func markedDims(mask []bool) []int {
	var out []int
	for d, b := range mask {
		if b {
			out = append(out, d)
		}
	}
	return out
}

// tensorMem is the on-chip memory of t (its first on-chip location's).
func (fs *funcState) tensorMem(t bir.TensorID) bir.MemoryType {
	for _, l := range fs.f.Tensor(t).Locs {
		if lc := fs.f.Loc(l); !lc.Dead && lc.Type.IsOnChip() {
			return lc.Type
		}
	}
	return bir.MemSB
}

// pieceLegal reports whether a piece of the given shape ([partitions,
// free...]) of tensor t passes is_legal_tensor: the set case on its
// partitions and the free-dim case on its elements per partition.
func (fs *funcState) pieceLegal(t bir.TensorID, shape []int64) bool {
	g := fs.lz.geo
	if !g.IsLegalTensor(fs.f, footprint.SetOf(t), shape[0]) {
		return false
	}
	free := int64(1)
	for _, x := range shape[1:] {
		free *= x
	}
	ds := max(fs.f.Tensor(t).Dtype.Size(), 1)
	return footprint.RoundUp8(free)*ds <= g.Budget(fs.tensorMem(t))
}

// planCut chooses a splitShape mask (see the file comment) and counts the
// access instances that straddle its pieces (each makes FullUnroll split
// an instruction). It returns nil and the reason when no cut legalizes the
// tensor.
func (fs *funcState) planCut(t bir.TensorID) (mask []bool, pieces, straddles int64, why string) {
	f := fs.f
	ts := f.Tensor(t)
	ti := &fs.info[t]
	shape := ts.Shape
	n := len(shape)
	ds := ts.Dtype.Size()
	switch {
	case ts.Kind != bir.KindInternal:
		return nil, 0, 0, fmt.Sprintf("it is a %s tensor (a kernel interface keeps its storage)", ts.Kind)
	case ts.PartitionDim != 0 || n == 0:
		return nil, 0, 0, fmt.Sprintf("partition dim %d: FullUnroll cuts tensors laid out [partitions, free...]", ts.PartitionDim)
	case ds == 0:
		return nil, 0, 0, fmt.Sprintf("dtype %v", ts.Dtype)
	}
	total := int64(1)
	for _, x := range shape {
		total *= x
	}
	for _, l := range ts.Locs {
		lc := f.Loc(l)
		if lc.Dead {
			continue
		}
		if lc.RawDims != nil || lc.Partitions*lc.Bytes != total*ds || (lc.Type.IsOnChip() && lc.Partitions != shape[0]) {
			return nil, 0, 0, fmt.Sprintf("location %s (%d x %d bytes) is not laid out as the shape %v of %s", lc.Name, lc.Partitions, lc.Bytes, shape, ts.Dtype)
		}
		if lc.Allocated {
			return nil, 0, 0, fmt.Sprintf("location %s is already allocated", lc.Name)
		}
	}
	matmul := false
	for _, a := range ti.accs {
		switch {
		case a.kind == bir.OpdRegAP:
			return nil, 0, 0, fmt.Sprintf("instruction %s accesses it through a register access pattern", f.InstName(a.inst))
		case a.dsize != ds:
			return nil, 0, 0, fmt.Sprintf("instruction %s reinterprets it as %d-byte elements", f.InstName(a.inst), a.dsize)
		}
		if f.Inst(a.inst).Op.IsMatmul() {
			matmul = true
		}
	}
	// Decomposition: an access the cut cannot decompose over the dims
	// fails any cut.
	none, err := footprint.NewCut(shape, make([]bool, n))
	if err != nil {
		return nil, 0, 0, err.Error()
	}
	for _, a := range ti.accs {
		for _, off := range a.offs {
			if _, err := none.Map(off, a.pat); err != nil {
				return nil, 0, 0, fmt.Sprintf("instruction %s, operand %d: %v", f.InstName(a.inst), a.opd, err)
			}
		}
	}
	// Candidate dims.
	type cand struct {
		d         int
		straddles int64
		indexed   bool
	}
	var cands []cand
	var dimWhy []string
	partOK := false
	var partStraddles int64
	for d := 0; d < n; d++ {
		k, err := footprint.GetLargestFactorWithThreshold(shape[d], footprint.MaxFactor)
		if err != nil || k <= 1 {
			if shape[d] > 1 {
				dimWhy = append(dimWhy, fmt.Sprintf("dim %d of %d has no divisor between 2 and %d", d, shape[d], footprint.MaxFactor))
			}
			continue
		}
		if d == 0 && matmul && !arch.IsValidTileSize(0, int(shape[0]/k)) {
			dimWhy = append(dimWhy, fmt.Sprintf("dim 0 would give pieces of %d partitions, not a valid matmul tile size (validTileSizes at base partition 0: 32, 64, 128)", shape[0]/k))
			continue
		}
		only := make([]bool, n)
		only[d] = true
		plan, err := footprint.NewCut(shape, only)
		if err != nil {
			dimWhy = append(dimWhy, fmt.Sprintf("dim %d: %v", d, err))
			continue
		}
		c := cand{d: d}
		bad := ""
		for ai := range ti.accs {
			a := &ti.accs[ai]
			if a.indexed != nil && a.indexed[d] {
				c.indexed = true
			}
			if !a.known {
				// Not enumerated: assume it straddles.
				c.straddles++
				if w := fs.splitRefusal(a, movers(a.pat, shape, d) == 1); w != "" {
					bad = w
				}
				continue
			}
			for _, off := range a.offs {
				r, _ := plan.Map(off, a.pat)
				if r.Straddle < 0 {
					continue
				}
				c.straddles++
				if w := fs.splitRefusal(a, r.Pair >= 0); w != "" {
					bad = w
					break
				}
			}
			if bad != "" {
				break
			}
		}
		if bad != "" {
			dimWhy = append(dimWhy, fmt.Sprintf("dim %d: %s", d, bad))
			continue
		}
		if d == 0 {
			partOK, partStraddles = true, c.straddles
			continue
		}
		cands = append(cands, c)
	}
	mask = make([]bool, n)
	if !fs.lz.geo.IsLegalTensor(f, footprint.SetOf(t), shape[0]) {
		if !partOK {
			return nil, 0, 0, fmt.Sprintf("%d partitions and the partition dim cannot be cut (%s)", shape[0], strings.Join(dimWhy, "; "))
		}
		mask[0] = true
		straddles += partStraddles
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.straddles != b.straddles {
			if a.straddles < b.straddles {
				return -1
			}
			return 1
		}
		if a.indexed != b.indexed {
			if a.indexed {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	for {
		plan, err := footprint.NewCut(shape, mask)
		if err != nil {
			return nil, 0, 0, err.Error()
		}
		if fs.pieceLegal(t, plan.PieceSize) {
			if !slices.Contains(mask, true) {
				return nil, 0, 0, "no dim needs a cut" // unreachable for an illegal tensor
			}
			return mask, plan.NumPieces, straddles, ""
		}
		if len(cands) == 0 {
			ps := plan.PieceSize
			msg := fmt.Sprintf("the finest cut leaves pieces of shape %v (%d bytes per partition)", ps, footprint.RoundUp8(prod(ps[1:]))*ds)
			if !slices.Contains(mask, true) {
				msg = "no dim can be cut"
			}
			if len(dimWhy) > 0 {
				msg += "; " + strings.Join(dimWhy, "; ")
			}
			return nil, 0, 0, msg
		}
		mask[cands[0].d] = true
		straddles += cands[0].straddles
		cands = cands[1:]
	}
}

// splitRefusal says why FullUnroll would refuse to split the instruction
// of access a when it straddles pieces ("" when it can): the opcode must
// be element-wise, every access-pattern operand must have the same nums
// (and not be a register access), and exactly one pair must move along
// the cut dim (onePair).
func (fs *funcState) splitRefusal(a *access, onePair bool) string {
	f, m := fs.f, fs.m
	i := a.inst
	if !footprint.ElementWise(f, i) {
		return fmt.Sprintf("instruction %s (%s) would straddle pieces and its opcode is not element-wise", f.InstName(i), f.OpName(i))
	}
	if !onePair {
		return fmt.Sprintf("instruction %s would straddle pieces with more than one pair moving along the dim", f.InstName(i))
	}
	var nums []int64
	for k, o := range f.Operands(i) {
		if !o.Kind.IsAP() {
			continue
		}
		if o.Kind == bir.OpdRegAP {
			return fmt.Sprintf("instruction %s would straddle pieces and operand %d is a register access", f.InstName(i), k)
		}
		s := m.Pattern(o.Pattern).Shape()
		if nums == nil {
			nums = s
		} else if !slices.Equal(nums, s) {
			return fmt.Sprintf("instruction %s would straddle pieces and its operands are not walked in lockstep (shapes %v and %v)", f.InstName(i), nums, s)
		}
	}
	return ""
}

func prod(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

// layouts calls fn with the on-chip layout of every executed instance of
// the tensor's accesses; it returns false (and the reason) when one
// cannot be decomposed or is not known, or when the tensor is MX data
// (vn_splitter and shrink_ml leave it as declared: footprint.IsMx).
func (fs *funcState) layouts(t bir.TensorID, fn func(a *access, lay footprint.APLayout)) (bool, string) {
	f := fs.f
	ti := &fs.info[t]
	ts := f.Tensor(t)
	if footprint.IsMx(ts.Dtype) {
		return false, fmt.Sprintf("it holds MX (block-scaled) data (%s), which vn_splitter and shrink_ml keep as declared", ts.Dtype)
	}
	for ai := range ti.accs {
		a := &ti.accs[ai]
		i := a.inst
		switch {
		case a.kind == bir.OpdRegAP:
			return false, fmt.Sprintf("instruction %s accesses it through a register access pattern", f.InstName(i))
		case !a.known:
			return false, fmt.Sprintf("instruction %s: its offsets over %d+ iterations were not enumerated", f.InstName(i), fs.lz.opt.MaxAccessPoints)
		case footprint.IsMx(a.dtype):
			return false, fmt.Sprintf("instruction %s accesses it as %s, MX (block-scaled) data, which vn_splitter and shrink_ml keep as declared", f.InstName(i), a.dtype)
		case a.dsize != ts.Dtype.Size():
			return false, fmt.Sprintf("instruction %s reinterprets it as %d-byte elements", f.InstName(i), a.dsize)
		case a.loc == bir.NoLoc:
			return false, "it has no on-chip location"
		}
		if r := footprint.ReachOf(f, i); !r.Followed() {
			return false, fmt.Sprintf("instruction %s (%s) %s, which the footprint passes do not follow", f.InstName(i), f.OpName(i), r.Why(f, i))
		}
		e := f.Loc(a.loc).ElemsPerPartition(ts.Dtype)
		for _, off := range a.offs {
			lay := footprint.OnChipLayout(off, a.pat, e)
			if lay.Class != footprint.APContiguous {
				return false, fmt.Sprintf("instruction %s, operand %d: a %s access", f.InstName(i), a.opd, lay.Class)
			}
			fn(a, lay)
		}
	}
	return true, ""
}

// planShrink reports whether the window the accesses touch (from the
// lowest to the highest in-partition element any access reaches at any
// iteration: the extent shrink_ml will trim the location to) passes
// is_legal_tensor as a piece [partitions, window elements]: the set case
// and the free-dim case, rounded up to 8 elements, as shrink_ml's final
// LocLegal check applies them. (Not the partition-dim case: see
// legality.go.)
func (fs *funcState) planShrink(t bir.TensorID) (bool, string) {
	f := fs.f
	ts := f.Tensor(t)
	if ts.Kind != bir.KindInternal {
		return false, fmt.Sprintf("it is a %s tensor", ts.Kind)
	}
	lo, hi := int64(-1), int64(-1)
	pmax := int64(0)
	ok, why := fs.layouts(t, func(a *access, lay footprint.APLayout) {
		if lo < 0 || lay.ElemLo < lo {
			lo = lay.ElemLo
		}
		hi = max(hi, lay.ElemHi)
		pmax = max(pmax, lay.PartMax()+1)
	})
	if !ok {
		return false, why
	}
	if lo < 0 {
		return false, "no instruction accesses it"
	}
	parts := f.Loc(fs.firstOnChip(t)).Partitions
	ds := ts.Dtype.Size()
	bytes := footprint.RoundUp8(hi-lo+1) * ds
	piece := []int64{parts, hi - lo + 1}
	if !fs.pieceLegal(t, piece) {
		return false, fmt.Sprintf("its accesses touch elements %d..%d of each partition (%d bytes per partition) over %d partitions", lo, hi, bytes, parts)
	}
	return true, fmt.Sprintf("its accesses touch elements %d..%d of each partition (%d bytes per partition)", lo, hi, bytes)
}

func (fs *funcState) firstOnChip(t bir.TensorID) bir.LocID {
	for _, l := range fs.f.Tensor(t).Locs {
		if lc := fs.f.Loc(l); !lc.Dead && lc.Type.IsOnChip() {
			return l
		}
	}
	return fs.f.Tensor(t).Locs[0]
}

// planVN reports whether the accesses fall into groups of disjoint
// partitions (vn_splitter's ApGroups), more than one, each of which fits
// once vn_splitter has carved it and shrink_ml trimmed it.
func (fs *funcState) planVN(t bir.TensorID) (bool, string) {
	f := fs.f
	ts := f.Tensor(t)
	if ts.Kind != bir.KindInternal {
		return false, fmt.Sprintf("it is a %s tensor", ts.Kind)
	}
	l0 := fs.firstOnChip(t)
	nparts := f.Loc(l0).Partitions
	for _, l := range ts.Locs {
		if lc := f.Loc(l); !lc.Dead && lc.Allocated {
			return false, fmt.Sprintf("location %s is already allocated", lc.Name)
		}
	}
	if nparts <= 0 || nparts > 1<<20 {
		return false, fmt.Sprintf("%d partitions", nparts)
	}
	uf := newUnionFind(int(nparts))
	inRange := true
	ok, why := fs.layouts(t, func(a *access, lay footprint.APLayout) {
		if lay.PartMin() < 0 || lay.PartMax() >= nparts {
			inRange = false
			return
		}
		for j := int64(1); j < lay.PartCount; j++ {
			uf.union(int(lay.PartFirst), int(lay.PartFirst+j*lay.PartStep))
		}
	})
	if !ok {
		return false, why
	}
	if !inRange {
		return false, "an access leaves the location's partitions"
	}
	type grp struct {
		pmin, pmax, lo, hi int64
	}
	groups := map[int]*grp{}
	var order []int
	fs.layouts(t, func(a *access, lay footprint.APLayout) {
		r := uf.find(int(lay.PartFirst))
		g := groups[r]
		if g == nil {
			g = &grp{pmin: lay.PartMin(), pmax: lay.PartMax(), lo: lay.ElemLo, hi: lay.ElemHi}
			groups[r] = g
			order = append(order, r)
		}
		g.pmin = min(g.pmin, lay.PartMin())
		g.pmax = max(g.pmax, lay.PartMax())
		g.lo = min(g.lo, lay.ElemLo)
		g.hi = max(g.hi, lay.ElemHi)
	})
	if len(groups) < 2 {
		return false, fmt.Sprintf("its accesses form %d group(s) of overlapping partitions", len(groups))
	}
	for _, r := range order {
		g := groups[r]
		if !fs.pieceLegal(t, []int64{g.pmax - g.pmin + 1, g.hi - g.lo + 1}) {
			return false, fmt.Sprintf("the group of partitions %d..%d touches elements %d..%d of each partition, which does not fit", g.pmin, g.pmax, g.lo, g.hi)
		}
	}
	return true, fmt.Sprintf("its accesses form %d groups of disjoint partitions that each fit", len(groups))
}

// unionFind is a small disjoint-set forest over partitions.
type unionFind struct{ p []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{p: make([]int32, n)}
	for i := range u.p {
		u.p[i] = int32(i)
	}
	return u
}

func (u *unionFind) find(x int) int {
	for int(u.p[x]) != x {
		u.p[x] = u.p[u.p[x]]
		x = int(u.p[x])
	}
	return x
}

func (u *unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		if ra < rb {
			u.p[rb] = int32(ra)
		} else {
			u.p[ra] = int32(rb)
		}
	}
}

// setSplitShape writes the masks (set_splitShape's store) and logs the
// marked dims.
func (fs *funcState) setSplitShape() {
	f, lz := fs.f, fs.lz
	st := lz.st
	for t := range fs.info {
		ti := &fs.info[t]
		if ti.fix != fixSplit {
			continue
		}
		ts := f.Tensor(bir.TensorID(t))
		ts.SplitShape = slices.Clone(ti.mask)
		for d, b := range ti.mask {
			if b {
				lz.logf("%s access %d", ts.Name, d)
			}
		}
		blocks := max(ts.NBlocks, 1)
		st.Marked++
		st.SubLocations += ti.pieces * blocks
		st.SplitBytes += prod(ts.Shape) * ts.Dtype.Size() * blocks
		lz.logf("%s: splitShape %v: FullUnroll cuts each of its %d location(s) into %d pieces", ts.Name, ti.mask, blocks, ti.pieces)
	}
}
