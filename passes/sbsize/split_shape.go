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
//     split by the unroller (footprint.ElementWise, access-pattern operands
//     with equal nums, exactly one pair moving along d). A matmul-touched
//     partition dim is a candidate only when a piece's partition count is
//     a valid PE tile size (validTileSizes, see below). The partition dim
//     is marked when the tensor has more partitions than the array; then
//     free dims are marked until a piece passes is_legal_tensor, preferring
//     dims no access straddles (fewest straddling accesses first, then
//     dims a loop axis indexes — the seed's loop-axes rule — then
//     outermost). The cut needs full_unroll at level 1, 2 or auto in the
//     run (level 0 only generates locations).
//  2. If that cut makes some access straddle pieces (FullUnroll then
//     splits the instruction), vn_splitter is preferred when it will
//     certainly do the job without splitting anything (planVN: its rules
//     and the options the run gives it, on every location FullUnroll will
//     make of the tensor). Otherwise the cut of step 1 is taken.
//  3. Else shrink_ml, when it will certainly trim every location of the
//     tensor to a legal window (planShrink).
//  4. Else the tensor cannot fit: an error names it, its bytes per
//     partition and the budget, and why each remedy fails.
//
// After every tensor of a function is planned, vn_limit is checked over
// the function (checkVNLimit); a tensor vn_splitter might refuse for it
// falls back to its cut, else shrink_ml, else is reported. So a tensor is
// left to vn_splitter or shrink_ml only when the pass's own rules, as
// configured, repair it: "not certain" means the cut (or an error here),
// never a failure in shrink_ml's final check. The rules are read from
// package footprint, where the passes read them (Reach, OnChipLayout,
// VNOptions, IsValidForSB, LocLegal); TestFootprintPipeline_Random checks
// the agreement on generated modules.
//
// Which dims may be marked (the seed's set_splitShape). The pseudocode
// reads pd = getPartitionDim(mls) with the comment "only dims >= pd are
// candidates", loops "for dim in [0 .. pd)", and builds the mask "for i in
// [pd .. n): mask[i] = 0 — tail zeroed — dims below pd never split; for i
// in [0 .. pd): mask[i] = splittable[i]". The loop and the mask say dims
// below pd; the two comments say dims from pd on. narwhal takes the
// comments' reading, dims >= pd (the partition dim and the free dims), for
// two reasons. (a) It is the only reading consistent with validTileSizes:
// the seed has set_splitShape consult the PE tile table "when [it] hits a
// dimension that a matmul touches" because a cut "cannot cut to an
// arbitrary size — the PE array only accepts certain (row, col) tile
// shapes"; tile sizes are partition extents, so the partition dim must be
// a candidate, and under the loop's reading (dims before pd, the outer
// tile dims) no cut ever changes a partition extent and the table would
// never matter. (b) FullUnroll::tensorSplit divides "each marked dim" with
// no restriction, and narwhal's tensors are laid out [partitions,
// free...] with pd = 0 (the BIR-JSON and KLR layouts narwhal reads): the
// loop's reading would give no candidate at all, and the pass could never
// cut the oversized free dim it exists for (the [128, 16, 4800] example of
// docs/footprint.md). A tensor whose partition dim is not 0 is refused
// ("FullUnroll cuts tensors laid out [partitions, free...]").
//
// Which candidates are marked. The seed marks a dim when a non-matmul
// loop axis of a symbolic access indexes it (axis flag 0x58), whether or
// not the tensor needs that cut, and leaves matmul axes to the tile table.
// narwhal chooses by legality instead and keeps the loop-axes rule as a
// tie-break: marking every loop-indexed dim would cut dims that need no
// cut (every piece multiplies locations, the allocator's work and, for a
// straddling access, instructions), could mark a dim whose cut makes an
// access straddle pieces in a way the cut cannot split (FullUnroll would
// refuse the tensor), and would never mark anything in straight-line code
// (post-unroll modules and BIR-JSON inputs have no loop axes), where the
// same tensor is just as oversized.
//
// getLargestFactorWithThreshold and validTileSizes. A marked dim of n is
// cut into k pieces, k the largest divisor of n at most MaxFactor = 16:
// 128 partitions give 16 pieces of 8, 256 give 16 of 16, 512 give 16 of
// 32, 1024 give 16 of 64. validTileSizes ({0: {32, 64, 128}, 32: {32}, 64:
// {32, 64}, 96: {32}}) admits 32, 64 and 128 partitions only, so a cut of
// a matmul-touched partition dim of 128 or 256 can never give the matmul a
// valid tile; the cut respects the table by not marking such a dim: the
// partition dim of a tensor a matmul touches is a candidate only when
// n / k is a valid tile size at base partition 0 (arch.IsValidTileSize;
// each piece is a location of its own, placed by the allocator from the
// same table: 32-partition pieces fit at every quadrant base, 64 at bases
// 0 and 64). Otherwise the tensor goes to vn_splitter (whose groups keep
// the accesses' own partition extents) or is reported with the reason
// ("dim 0 would give pieces of 8 partitions, not a valid matmul tile
// size").
//
// Tensors that need no repair keep their SplitShape as it is (nil stays
// nil: the pass writes a mask only where it decided a cut).
package sbsize

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
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
	pieces      int64 // pieces per location of the cut
	// The cut planCut found (nil mask: none, cutWhy says why), kept when
	// another repair is preferred so the plan can fall back to it.
	cutMask      []bool
	cutPieces    int64
	cutStraddles int64
	cutWhy       string
	vnGroups     int64  // the most pieces vn_splitter makes of one location
	note         string // how it is repaired, or why it cannot be
	accs         []access
	forced       bool // every symbolic access has all its loops marked
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
	fs.checkVNLimit()
	return nil
}

// plan decides how tensor t is repaired (the steps of the file comment).
func (fs *funcState) plan(t bir.TensorID) {
	f, lz := fs.f, fs.lz
	ts := f.Tensor(t)
	ti := &fs.info[t]
	ti.accs = fs.accesses(t)
	for _, a := range ti.accs {
		if a.sym() && a.dynamic != "" {
			ti.fix = fixImpossible
			ti.note = fmt.Sprintf("instruction %s accesses it inside %s, which FullUnroll cannot unroll (a run-time trip count), so no cut, split or trim can reach it", f.InstName(a.inst), a.dynamic)
			fs.unfittable(t)
			return
		}
	}
	if lz.later.cut {
		ti.cutMask, ti.cutPieces, ti.cutStraddles, ti.cutWhy = fs.planCut(t)
	} else {
		ti.cutWhy = "full_unroll " + lz.later.unrollWhy
	}
	if ti.cutMask != nil && ti.cutStraddles == 0 {
		fs.takeCut(t)
		return
	}
	// A cut that splits instructions is the last resort when vn_splitter's
	// partition groups fit as they are.
	ok, groups, why := fs.planVN(t)
	if ok {
		ti.fix, ti.note, ti.vnGroups = fixVN, why, groups
		lz.st.LeftToVN++
		lz.logf("%s: left to vn_splitter: %s", ts.Name, why)
		return
	}
	fs.decideAfterVN(t, []string{"vn_splitter: " + why})
}

// decideAfterVN takes the cut found for t, else shrink_ml when it
// legalizes t, else reports t; whyNot holds the reasons vn_splitter does
// not.
func (fs *funcState) decideAfterVN(t bir.TensorID, whyNot []string) {
	lz := fs.lz
	ti := &fs.info[t]
	if ti.cutMask != nil {
		fs.takeCut(t)
		return
	}
	whyNot = append([]string{"cut: " + ti.cutWhy}, whyNot...)
	if ok, why := fs.planShrink(t); ok {
		ti.fix, ti.note = fixShrink, why
		lz.st.LeftToShrink++
		lz.logf("%s: left to shrink_ml: %s", fs.f.Tensor(t).Name, why)
		return
	} else {
		whyNot = append(whyNot, "shrink_ml: "+why)
	}
	ti.fix = fixImpossible
	ti.note = strings.Join(whyNot, "; ")
	fs.unfittable(t)
}

// takeCut decides the cut found for t.
func (fs *funcState) takeCut(t bir.TensorID) {
	ti := &fs.info[t]
	ti.fix, ti.mask, ti.pieces = fixSplit, ti.cutMask, ti.cutPieces
	ti.note = fmt.Sprintf("cut into %d pieces per location along dims %v", ti.pieces, markedDims(ti.mask))
	fs.lz.st.CanSplit++
}

func (fs *funcState) unfittable(t bir.TensorID) {
	ti := &fs.info[t]
	msg := fmt.Sprintf("function %s, tensor %s: %s; %s", fs.f.Name, fs.f.Tensor(t).Name, ti.why, ti.note)
	fs.lz.st.Unfittable = append(fs.lz.st.Unfittable, msg)
	if fs.lz.firstUnfittable == nil {
		fs.lz.firstUnfittable = &bir.Subject{Func: fs.f.Name, Inst: bir.NoInst, Tensor: t, Loc: bir.NoLoc}
	}
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

func (fs *funcState) firstOnChip(t bir.TensorID) bir.LocID {
	for _, l := range fs.f.Tensor(t).Locs {
		if lc := fs.f.Loc(l); !lc.Dead && lc.Type.IsOnChip() {
			return l
		}
	}
	return fs.f.Tensor(t).Locs[0]
}

// inst is one executed instance of an access, with its on-chip layout.
type inst struct {
	a   *access
	lay footprint.APLayout
}

// unitInsts groups the executed instances of the tensor's accesses by the
// location FullUnroll will make of them (its block, or the tensor's one
// location), after checking every access as vn_splitter's and shrink_ml's
// sweeps check theirs: the opcode's reach (footprint.ReachOf), MX data, a
// reinterpretation, a register access, the layout class and the partition
// range. It returns false and the reason when an access fails, and the
// number of locations (units) the tensor will have.
func (fs *funcState) unitInsts(t bir.TensorID) (units map[int64][]inst, nunits int64, ok bool, why string) {
	f := fs.f
	ti := &fs.info[t]
	ts := f.Tensor(t)
	l0 := fs.firstOnChip(t)
	e := f.Loc(l0).ElemsPerPartition(ts.Dtype)
	parts := f.Loc(l0).Partitions
	nunits = 1
	if ts.IsBlock && ts.NBlocks > 1 {
		nunits = ts.NBlocks
	}
	if n := int64(len(ts.Locs)); n > 1 {
		nunits = n
	}
	units = map[int64][]inst{}
	for ai := range ti.accs {
		a := &ti.accs[ai]
		i := a.inst
		switch {
		case a.kind == bir.OpdRegAP:
			return nil, 0, false, fmt.Sprintf("instruction %s accesses it through a register access pattern", f.InstName(i))
		case !a.known:
			return nil, 0, false, fmt.Sprintf("instruction %s: its offsets over %d+ iterations were not enumerated", f.InstName(i), fs.lz.opt.MaxAccessPoints)
		case footprint.IsMx(a.dtype):
			return nil, 0, false, fmt.Sprintf("instruction %s accesses it as %s, MX (block-scaled) data, which vn_splitter and shrink_ml keep as declared", f.InstName(i), a.dtype)
		case a.dsize != ts.Dtype.Size():
			return nil, 0, false, fmt.Sprintf("instruction %s reinterprets it as %d-byte elements", f.InstName(i), a.dsize)
		}
		if r := footprint.ReachOf(f, i); !r.Followed() {
			return nil, 0, false, fmt.Sprintf("instruction %s (%s) %s, which the footprint passes do not follow", f.InstName(i), f.OpName(i), r.Why(f, i))
		}
		for k, off := range a.offs {
			lay := footprint.OnChipLayout(off, a.pat, e)
			if lay.Class != footprint.APContiguous {
				return nil, 0, false, fmt.Sprintf("instruction %s, operand %d: a %s access", f.InstName(i), a.opd, lay.Class)
			}
			if lay.PartMin() < 0 || lay.PartMax() >= parts {
				return nil, 0, false, fmt.Sprintf("instruction %s, operand %d leaves the %d partitions", f.InstName(i), a.opd, parts)
			}
			u := a.units[k]
			if u < 0 {
				return nil, 0, false, fmt.Sprintf("instruction %s names the template location of its %d blocks physically (which block is not said)", f.InstName(i), ts.NBlocks)
			}
			units[u] = append(units[u], inst{a, lay})
		}
	}
	return units, nunits, true, ""
}

// laterPrefilter says why vn_splitter and shrink_ml would leave every
// location of t as declared whatever its accesses ("" when they would
// not): their common pre-filters.
func (fs *funcState) laterPrefilter(t bir.TensorID) string {
	f := fs.f
	ts := f.Tensor(t)
	if ts.Kind != bir.KindInternal {
		return fmt.Sprintf("it is a %s tensor (a kernel interface keeps its storage)", ts.Kind)
	}
	if footprint.IsMx(ts.Dtype) {
		return fmt.Sprintf("it holds MX (block-scaled) data (%s), which vn_splitter and shrink_ml keep as declared", ts.Dtype)
	}
	ds := ts.Dtype.Size()
	for _, l := range ts.Locs {
		lc := f.Loc(l)
		switch {
		case lc.Dead:
		case lc.Allocated || lc.Pinned:
			return fmt.Sprintf("location %s is already allocated", lc.Name)
		case lc.RawDims != nil:
			return fmt.Sprintf("location %s has dims %v, not [partitions, bytes]", lc.Name, lc.RawDims)
		case ds == 0 || lc.Bytes%ds != 0 || lc.Bytes == 0 || lc.Partitions <= 0:
			return fmt.Sprintf("location %s: %d x %d bytes of %s", lc.Name, lc.Partitions, lc.Bytes, ts.Dtype)
		}
	}
	if !fs.lz.later.unrolls && fs.hasSymbolic(t) {
		return "full_unroll " + fs.lz.later.unrollWhy + ", so its symbolic accesses stay symbolic"
	}
	return ""
}

// hasSymbolic reports whether an access of t is symbolic.
func (fs *funcState) hasSymbolic(t bir.TensorID) bool {
	for ai := range fs.info[t].accs {
		if fs.info[t].accs[ai].sym() {
			return true
		}
	}
	return false
}

// emptyUnits says why the locations no instance reaches would stay
// illegal ("" when none is left or vn_splitter removes them: it removes
// the internal SB/PSUM locations nothing accesses).
func (fs *funcState) emptyUnits(units map[int64][]inst, nunits int64) string {
	if int64(len(units)) >= nunits || fs.lz.later.vn != nil {
		return ""
	}
	return fmt.Sprintf("%d of its %d location(s) are never accessed, and only vn_splitter (which does not run) removes unused locations", nunits-int64(len(units)), nunits)
}

// planShrink reports whether shrink_ml legalizes t: on every location
// FullUnroll will make of it, the window of elements its accesses touch
// (from the lowest to the highest in-partition element at any iteration:
// the extent ShrinkDN trims the location to) passes is_legal_tensor as a
// piece [partitions, window elements] — the set case and the free-dim
// case, rounded up to 8 elements, as shrink_ml's final LocLegal check
// applies them. (Not the partition-dim case: see footprint/legality.go.)
func (fs *funcState) planShrink(t bir.TensorID) (bool, string) {
	if !fs.lz.later.shrink {
		return false, "shrink_ml does not run"
	}
	if why := fs.laterPrefilter(t); why != "" {
		return false, why
	}
	units, nunits, ok, why := fs.unitInsts(t)
	if !ok {
		return false, why
	}
	if len(units) == 0 {
		return false, "no instruction accesses it"
	}
	if why := fs.emptyUnits(units, nunits); why != "" {
		return false, why
	}
	f := fs.f
	ts := f.Tensor(t)
	parts := f.Loc(fs.firstOnChip(t)).Partitions
	ds := ts.Dtype.Size()
	var wlo, whi int64 = -1, -1
	for _, u := range sortedUnits(units) {
		lo, hi := int64(-1), int64(-1)
		for _, x := range units[u] {
			if lo < 0 || x.lay.ElemLo < lo {
				lo = x.lay.ElemLo
			}
			hi = max(hi, x.lay.ElemHi)
		}
		if !fs.pieceLegal(t, []int64{parts, hi - lo + 1}) {
			where := ""
			if nunits > 1 {
				where = fmt.Sprintf(" in block %d", u)
			}
			return false, fmt.Sprintf("its accesses%s touch elements %d..%d of each partition (%d bytes per partition) over %d partitions", where, lo, hi, footprint.RoundUp8(hi-lo+1)*ds, parts)
		}
		if whi-wlo < hi-lo {
			wlo, whi = lo, hi
		}
	}
	return true, fmt.Sprintf("its accesses touch elements %d..%d of each partition (%d bytes per partition)", wlo, whi, footprint.RoundUp8(whi-wlo+1)*ds)
}

func sortedUnits(units map[int64][]inst) []int64 {
	keys := make([]int64, 0, len(units))
	for u := range units {
		keys = append(keys, u)
	}
	slices.Sort(keys)
	return keys
}

// planVN reports whether vn_splitter legalizes t, applying its rules as
// it applies them (seed 004 §2.2-2.4, footprint.VNOptions and
// footprint.Geometry.IsValidForSB) to every location FullUnroll will make
// of t: the accesses fall into groups of overlapping partitions (the
// ApGroups), the split is triggered (more than one group, or partitions
// left unused), perSplitLimit admits the groups, every group passes
// isValidForSB, the elements per partition duplicated stay within ratio,
// and every piece, trimmed by shrink_ml, passes is_legal_tensor. vn_limit
// is checked over the function once every tensor is planned
// (checkVNLimit). groups is the largest number of pieces of one location.
func (fs *funcState) planVN(t bir.TensorID) (ok bool, groups int64, why string) {
	vn := fs.lz.later.vn
	if vn == nil {
		return false, 0, "vn_splitter does not run"
	}
	if !vn.SplitSB {
		return false, 0, "vn_splitter's splitSB is off"
	}
	f := fs.f
	ts := f.Tensor(t)
	if vn.SkipsPrefix(ts.Name) {
		return false, 0, "vn_splitter's skip option may name one of its locations"
	}
	for _, l := range ts.Locs {
		if !f.Loc(l).Dead && vn.SkipsPrefix(f.Loc(l).Name) {
			return false, 0, "vn_splitter's skip option may name one of its locations"
		}
	}
	if why := fs.laterPrefilter(t); why != "" {
		return false, 0, why
	}
	units, nunits, ok, why := fs.unitInsts(t)
	if !ok {
		return false, 0, why
	}
	if len(units) == 0 {
		return false, 0, "no instruction accesses it"
	}
	if why := fs.emptyUnits(units, nunits); why != "" {
		return false, 0, why
	}
	l0 := fs.firstOnChip(t)
	lc := f.Loc(l0)
	nparts := lc.Partitions
	e := lc.ElemsPerPartition(ts.Dtype)
	ds := ts.Dtype.Size()
	if nparts > 1<<20 {
		return false, 0, fmt.Sprintf("%d partitions", nparts)
	}
	uf := newUnionFind(int(nparts))
	type grp struct {
		pmin, pmax, ref, stride, hi int64
	}
	for _, u := range sortedUnits(units) {
		where := ""
		if nunits > 1 {
			where = fmt.Sprintf("block %d: ", u)
		}
		uf.reset()
		for _, x := range units[u] {
			for j := int64(1); j < x.lay.PartCount; j++ {
				uf.union(int(x.lay.PartFirst), int(x.lay.PartFirst+j*x.lay.PartStep))
			}
		}
		gs := map[int]*grp{}
		var order []int
		for _, x := range units[u] {
			r := uf.find(int(x.lay.PartFirst))
			g := gs[r]
			if g == nil {
				g = &grp{pmin: x.lay.PartMin(), pmax: x.lay.PartMax(), ref: x.lay.PartFirst, hi: x.lay.ElemHi}
				gs[r] = g
				order = append(order, r)
			}
			g.pmin = min(g.pmin, x.lay.PartMin())
			g.pmax = max(g.pmax, x.lay.PartMax())
			g.hi = max(g.hi, x.lay.ElemHi)
			g.stride = affine.GCD(g.stride, x.lay.PartFirst-g.ref)
			if x.lay.PartCount > 1 {
				g.stride = affine.GCD(g.stride, x.lay.PartStep)
			}
		}
		count := func(g *grp) int64 {
			st := max(g.stride, 1)
			return (g.pmax-g.pmin)/st + 1
		}
		switch {
		case len(gs) > 1:
		case count(gs[order[0]]) < nparts:
		default:
			return false, 0, where + "its accesses form one group of overlapping partitions over all of them, which vn_splitter does not carve"
		}
		if vn.TooManyPieces(int64(len(gs))) {
			return false, 0, fmt.Sprintf("%sits accesses form %d groups of disjoint partitions, more than vn_splitter's perSplitLimit %d", where, len(gs), vn.PerSplitLimit)
		}
		var sum int64
		for k, r := range order {
			g := gs[r]
			if ok, _, why := fs.lz.geo.IsValidForSB(count(g), g.hi, ds, fs.tensorMem(t)); !ok {
				return false, 0, fmt.Sprintf("%sgroup %d (partitions %d..%d) fails vn_splitter's isValidForSB: it %s", where, k, g.pmin, g.pmax, why)
			}
			if !fs.pieceLegal(t, []int64{count(g), g.hi + 1}) {
				return false, 0, fmt.Sprintf("%sgroup %d (partitions %d..%d, elements 0..%d) does not fit", where, k, g.pmin, g.pmax, g.hi)
			}
			sum += g.hi + 1
		}
		if dup := float64(sum) / float64(e); vn.RatioExceeded(dup) {
			return false, 0, fmt.Sprintf("%sits %d groups duplicate %.2f x the elements per partition, more than vn_splitter's ratio %.2f", where, len(gs), dup, vn.Ratio)
		}
		groups = max(groups, int64(len(gs)))
	}
	return true, groups, fmt.Sprintf("its accesses form groups of disjoint partitions (at most %d per location) that each fit", groups)
}

// checkVNLimit is vn_limit for the function: vn_splitter refuses a split
// that would leave the function more than vn_limit SB/PSUM locations,
// counting the locations as it meets them, so the plan may leave tensors
// to it only when even every location of the function split into its
// most pieces stays within the limit. Otherwise the tensors left to it
// fall back to their cut, else to shrink_ml, else are reported.
func (fs *funcState) checkVNLimit() {
	vn := fs.lz.later.vn
	if vn == nil || vn.VNLimit <= 0 {
		return
	}
	any := false
	for t := range fs.info {
		any = any || fs.info[t].fix == fixVN
	}
	if !any {
		return
	}
	f := fs.f
	var bound int64
	for t := bir.TensorID(0); int(t) < f.NumTensors(); t++ {
		ts := f.Tensor(t)
		if ts.Dead {
			continue
		}
		for _, l := range ts.Locs {
			lc := f.Loc(l)
			if lc.Dead || !(lc.Type.IsOnChip() || (lc.Type == bir.MemDRAM && !vn.NoSplitDRAM && ts.Kind == bir.KindInternal)) {
				continue
			}
			n := int64(1)
			if ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1 {
				n = ts.NBlocks
			}
			if ti := &fs.info[t]; ti.fix == fixSplit {
				n = satMul(n, ti.pieces)
			}
			per := vn.PerSplitLimit
			if per <= 0 {
				per = max(lc.Partitions, 1)
			}
			bound = satAdd(bound, satMul(n, per))
		}
	}
	if bound <= vn.VNLimit {
		return
	}
	for t := range fs.info {
		ti := &fs.info[t]
		if ti.fix != fixVN {
			continue
		}
		tid := bir.TensorID(t)
		ti.fix = fixNone
		fs.lz.st.LeftToVN--
		why := fmt.Sprintf("vn_splitter: its %d SB/PSUM locations, each split in up to %d pieces, could exceed vn_limit %d", fs.countLocs(), max(vn.PerSplitLimit, 1), vn.VNLimit)
		fs.lz.logf("%s: not left to vn_splitter: %s", f.Tensor(tid).Name, why)
		fs.decideAfterVN(tid, []string{why})
	}
}

// countLocs counts the live SB/PSUM locations of the function.
func (fs *funcState) countLocs() int {
	n := 0
	for l := bir.LocID(0); int(l) < fs.f.NumLocs(); l++ {
		if lc := fs.f.Loc(l); !lc.Dead && lc.Type.IsOnChip() {
			n++
		}
	}
	return n
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// unionFind is a small disjoint-set forest over partitions.
type unionFind struct{ p []int32 }

func newUnionFind(n int) *unionFind {
	u := &unionFind{p: make([]int32, n)}
	u.reset()
	return u
}

func (u *unionFind) reset() {
	for i := range u.p {
		u.p[i] = int32(i)
	}
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
