// FullUnroll::tensorSplit: the splitShape cut that SBSizeLegalization
// delegates to the unroller (seed 000, "The delegated clone": set_splitShape
// marks which dims of an oversized tensor must be cut, Tensor.SplitShape;
// the split itself — allocate the sub-tensors, divide each marked dim,
// repoint the access patterns — lives here and nowhere else).
//
// Granularity (getLargestFactorWithThreshold, seed 003): a marked dim of
// size n is cut into k pieces of n/k, k the largest divisor of n that is
// at most MaxFactor = 16 (the trial divisors run 1..16; "MaxFactor > 0" is
// asserted). A dim of 128 gives 16 pieces of 8, 100 gives 10 of 10, a
// prime above 16 is not cut. Several marked dims give the product of their
// pieces.
//
// The cut runs after cloning, so every access to a marked tensor is a
// physical access pattern (a tensor still accessed symbolically — in a loop
// that FullUnroll level 1 did not unroll — is kept whole and reported).
// Each location of the tensor (one per block) is cut into pieces; piece j
// becomes a tensor of its own, "<location>_split<j>_set" with location
// "<location>_split<j>", j the row-major index over the marked dims. The
// piece location copies the memory type and bank; when the original is
// allocated, the piece keeps a valid placement only where its bytes are
// contiguous in the original (a cut of the partition dim moves the base
// partition; a cut of the outermost non-unit free dim moves the address);
// otherwise it is marked unallocated (the allocator places it).
//
// Repointing an access pattern: the pattern's offset and each [step, num]
// pair are decomposed over the tensor's dims (row-major); when every
// element's index stays inside the dims' ranges (no carry between dims)
// the access maps linearly onto one piece's dims. An access that straddles
// pieces along a marked dim is handled by splitting the instruction into
// per-piece instructions, "<name>.s<k>" (with "_<n>" appended should that
// name be taken), when:
//
//   - exactly one pair of the straddling access moves along that dim;
//   - the opcode pairs the elements of its operands in lockstep with no
//     cross-element effect (Load, Save, DMA, DMACopy in Copy or CCE mode,
//     TensorCopy, TensorTensor, TensorScalar, Activation with acc Idle,
//     Memset);
//   - every access-pattern operand has the same nums, so element k of
//     every operand sits at the same pair indices and cutting that pair's
//     range cuts every operand at the same elements.
//
// Each part takes a sub-range of that pair (offset advanced, num reduced)
// on every operand and is re-checked (it may straddle another marked dim).
// Dependencies: a part inherits the original's, an edge to the original
// becomes edges to its parts, and these memory edges (FLOW, ANTI, OUTPUT)
// are then narrowed to the instructions whose accesses overlap the part's
// (same location and intersecting element range, or allocated placements
// that intersect); if none overlaps, all are kept. So a part that copies
// piece k depends on the producer of piece k, not on all of them. Anything else is refused with an error that names
// the tensor, the dim, the pieces and the instruction. The tensor must be
// internal (an input's or output's storage is the kernel's interface), its
// locations laid out as its shape (partition dim 0; no raw dims).
package unroll

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

type splitStats struct {
	tensors, locs, insts int
	kept                 []string // tensors left whole, with the reason
}

// splitter cuts the marked tensors of one function.
type splitter struct {
	f     *bir.Function
	m     *bir.Module
	taken map[string]bool             // live names that part names could collide with
	parts map[bir.InstID][]bir.InstID // original -> parts (over every tensor cut)
	// locUses and symUse are the use index of the marked tensors as the
	// cut starts: the instructions on each of their locations, and one
	// instruction that accesses a tensor symbolically. A part is a clone
	// of an instruction, so the instructions on a location later in the
	// cut are the leaves of its first instructions (leaves): one index for
	// the whole cut instead of one per tensor.
	locUses map[bir.LocID][]bir.InstID
	symUse  map[bir.TensorID]bir.InstID
	cut     []bir.TensorID // the tensors cut, removed with their locations at the end
	st      splitStats
}

// splitMarkedTensors cuts every tensor of f whose SplitShape marks a dim.
//
// Cost: one use index at the start, each tensor's accesses repointed from
// it, and one rebuild of the blocks and dependencies at the end, so the
// cut is linear in the instructions and the parts (it rebuilt the index
// and the dependencies per tensor: quadratic, 69 s at 100k instructions
// on a machine of 127 partitions, where every 128-row tile is cut).
func splitMarkedTensors(f *bir.Function) (splitStats, error) {
	s := &splitter{f: f, m: f.Module(), parts: map[bir.InstID][]bir.InstID{},
		locUses: map[bir.LocID][]bir.InstID{}, symUse: map[bir.TensorID]bir.InstID{}}
	var marked []bir.TensorID
	n := f.NumTensors()
	for t := bir.TensorID(0); int(t) < n; t++ {
		ts := f.Tensor(t)
		if ts.Dead || !slices.Contains(ts.SplitShape, true) {
			continue
		}
		marked = append(marked, t)
	}
	if len(marked) == 0 {
		return s.st, nil
	}
	u := f.Uses()
	for _, t := range marked {
		if us := u.Tensor(t); len(us) > 0 {
			s.symUse[t] = us[0].Inst
		}
		for _, l := range f.Tensor(t).Locs {
			var list []bir.InstID
			for _, x := range u.Loc(l) {
				if len(list) == 0 || list[len(list)-1] != x.Inst {
					list = append(list, x.Inst)
				}
			}
			s.locUses[l] = list
		}
	}
	for _, t := range marked {
		if err := s.tensor(t); err != nil {
			return s.st, err
		}
	}
	if len(s.parts) > 0 {
		s.rebuild()
	}
	u = f.Uses()
	for _, t := range s.cut {
		for _, l := range f.Tensor(t).Locs {
			if us := u.Loc(l); len(us) > 0 {
				return s.st, f.TensorErrorf(t, "internal error: instruction %s still accesses location %s after the cut", f.InstName(us[0].Inst), f.Loc(l).Name)
			}
		}
	}
	for _, t := range s.cut {
		for _, l := range slices.Clone(f.Tensor(t).Locs) {
			f.RemoveLoc(l)
		}
		f.RemoveTensor(t)
	}
	return s.st, nil
}

// accesses reports whether instruction i has a physical access of
// location l.
func (s *splitter) accesses(i bir.InstID, l bir.LocID) bool {
	for _, o := range s.f.Operands(i) {
		if o.Kind == bir.OpdPhysAP && o.Loc() == l {
			return true
		}
	}
	return false
}

func (s *splitter) tensor(t bir.TensorID) error {
	f := s.f
	ts := f.Tensor(t)
	name := ts.Name
	if len(ts.SplitShape) != len(ts.Shape) {
		return f.TensorErrorf(t, "splitShape has %d entries for a tensor of %d dims", len(ts.SplitShape), len(ts.Shape))
	}
	if ts.Kind != bir.KindInternal {
		return f.TensorErrorf(t, "splitShape marks a %s tensor; only internal tensors can be cut (a kernel input's or output's storage is its interface)", ts.Kind)
	}
	if ts.PartitionDim != 0 {
		return f.TensorErrorf(t, "splitShape with partition_dim %d: narwhal cuts tensors laid out [partitions, free...] (partition_dim 0)", ts.PartitionDim)
	}
	if u, ok := s.symUse[t]; ok {
		s.st.kept = append(s.st.kept, fmt.Sprintf("%s (still accessed symbolically by %s, in a loop that was not unrolled)", name, f.InstName(u)))
		return nil
	}
	g, err := footprint.NewCut(ts.Shape, ts.SplitShape)
	if err != nil {
		return f.TensorErrorf(t, "%v", err)
	}
	if g.NumPieces == 1 {
		s.st.kept = append(s.st.kept, fmt.Sprintf("%s (no marked dim has a divisor between 2 and %d)", name, footprint.MaxFactor))
		return nil
	}
	dt := ts.Dtype
	locs := slices.Clone(ts.Locs)
	pieces := map[bir.LocID][]bir.LocID{}
	for _, l := range locs {
		pl, err := s.location(t, l, g, dt)
		if err != nil {
			return err
		}
		pieces[l] = pl
	}
	// Repoint every access (of any location of the tensor: an instruction
	// may access two blocks, and its parts are re-checked).
	var work []bir.InstID
	seen := map[bir.InstID]bool{}
	var leaves []bir.InstID
	for _, l := range locs {
		for _, x := range s.locUses[l] {
			leaves = s.leaves(x, leaves[:0])
			for _, i := range leaves {
				if !seen[i] && s.accesses(i, l) {
					seen[i] = true
					work = append(work, i)
				}
			}
		}
	}
	for len(work) > 0 {
		i := work[0]
		work = work[1:]
		more, err := s.repoint(i, pieces, g, name)
		if err != nil {
			return err
		}
		work = append(work, more...)
	}
	s.cut = append(s.cut, t)
	s.st.tensors++
	return nil
}

// location creates the pieces of one location of tensor t.
func (s *splitter) location(t bir.TensorID, l bir.LocID, g *footprint.Cut, dt bir.Dtype) ([]bir.LocID, error) {
	f := s.f
	ts := *f.Tensor(t)
	lc := *f.Loc(l)
	if lc.RawDims != nil || lc.Partitions*lc.Bytes != g.Total*dt.Size() || (lc.Type.IsOnChip() && lc.Partitions != g.Shape[0]) {
		return nil, f.LocErrorf(l, "of tensor %s: its dims (%d x %d bytes) are not laid out as the tensor's shape %v of %s; cannot cut it",
			ts.Name, lc.Partitions, lc.Bytes, ts.Shape, dt)
	}
	pieceLoc := make([]bir.LocID, g.NumPieces)
	for p := int64(0); p < g.NumPieces; p++ {
		j := make([]int64, len(g.Shape))
		shape := make([]int64, len(g.Shape))
		for d := range g.Shape {
			j[d] = (p / g.PieceRadix[d]) % g.Pieces[d]
			shape[d] = g.PieceSize[d]
		}
		locName := f.UniqueLocName(lc.Name + "_split" + strconv.FormatInt(p, 10))
		nt := bir.Tensor{Name: f.UniqueTensorName(locName + "_set"), Kind: ts.Kind, Class: ts.Class, AddrSpace: ts.AddrSpace,
			Dtype: ts.Dtype, PartitionDim: 0, Shape: shape, File: ts.File, NoSpill: ts.NoSpill, Volatile: ts.Volatile,
			Virtual: ts.Virtual, Extra: ts.Extra}
		tid, err := f.AddTensor(nt)
		if err != nil {
			return nil, f.TensorErrorf(t, "%v", err)
		}
		nl := lc
		nl.Name = locName
		nl.TensorIdx = 0
		free := int64(1)
		for _, x := range shape[1:] {
			free *= x
		}
		nl.Partitions, nl.Bytes = shape[0], free*dt.Size()
		if lc.Allocated {
			base, addr, ok := placement(g, j, dt)
			if ok {
				nl.Base += base
				nl.Addr += addr
			} else {
				nl.Allocated, nl.Addr, nl.Base, nl.Pinned = false, 0, 0, false
			}
		}
		id, err := f.AddLoc(tid, nl)
		if err != nil {
			return nil, f.TensorErrorf(t, "%v", err)
		}
		pieceLoc[p] = id
		s.st.locs++
	}
	return pieceLoc, nil
}

// placement returns the base-partition and byte-address shift of piece j
// when its bytes are contiguous in the original location.
func placement(g *footprint.Cut, j []int64, dt bir.Dtype) (base, addr int64, ok bool) {
	n := len(g.Shape)
	base = j[0] * g.PieceSize[0]
	firstFree := -1
	for d := 1; d < n; d++ {
		if g.Marked[d] {
			if firstFree >= 0 {
				return 0, 0, false // two cut free dims: strided
			}
			firstFree = d
		}
	}
	if firstFree < 0 {
		return base, 0, true
	}
	for d := 1; d < firstFree; d++ {
		if g.Shape[d] != 1 {
			return 0, 0, false
		}
	}
	return base, j[firstFree] * g.PieceSize[firstFree] * g.Stride[firstFree] * dt.Size(), true
}

// repoint maps instruction i's accesses to the cut locations onto their
// pieces; it returns the parts when i had to be split (to be processed in
// turn).
func (s *splitter) repoint(i bir.InstID, pieces map[bir.LocID][]bir.LocID, g *footprint.Cut, tname string) ([]bir.InstID, error) {
	f, m := s.f, s.m
	n := len(f.Operands(i))
	for k := 0; k < n; k++ {
		o := f.Operands(i)[k]
		if o.Kind != bir.OpdPhysAP {
			continue
		}
		pl, ok := pieces[o.Loc()]
		if !ok {
			continue
		}
		if o.Dtype.Size() != f.Tensor(f.Loc(o.Loc()).Tensor).Dtype.Size() {
			return nil, f.Errorf(i, "operand %d reinterprets tensor %s as %s; cannot cut it", k, tname, o.Dtype)
		}
		res, err := g.Map(o.Offset, m.Pattern(o.Pattern))
		if err != nil {
			return nil, f.Errorf(i, "operand %d on %s: %v", k, tname, err)
		}
		if res.Straddle >= 0 {
			return s.splitInst(i, k, o, res, g, tname)
		}
		o.Ref = int32(pl[res.Piece])
		o.Offset = res.Off
		o.Pattern = m.InternPattern(res.Pat)
		f.SetOperand(i, k, o)
	}
	return nil, nil
}

// splitInst cuts instruction i into parts along the straddling pair.
func (s *splitter) splitInst(i bir.InstID, k int, o bir.Operand, res footprint.CutAccess, g *footprint.Cut, tname string) ([]bir.InstID, error) {
	f, m := s.f, s.m
	refuse := func(why string) error {
		return f.Errorf(i, "tensorSplit of %s: dim %d is cut into %d pieces of %d and operand %d accesses several of them; the instruction cannot be split: %s", tname, res.Straddle, g.Pieces[res.Straddle], g.PieceSize[res.Straddle], k, why)
	}
	if res.Pair < 0 {
		return nil, refuse("more than one [step, num] pair moves along that dim")
	}
	if !footprint.ElementWise(f, i) {
		return nil, refuse("its opcode is not an element-wise one")
	}
	nums := m.Pattern(o.Pattern).Shape()
	for kk, x := range f.Operands(i) {
		if !x.Kind.IsAP() {
			continue
		}
		if x.Kind != bir.OpdPhysAP {
			return nil, refuse(fmt.Sprintf("operand %d is a %s", kk, x.Kind))
		}
		if !slices.Equal(m.Pattern(x.Pattern).Shape(), nums) {
			return nil, refuse(fmt.Sprintf("operand %d has shape %v, operand %d has %v: they are not walked in lockstep by the same pairs", kk, m.Pattern(x.Pattern).Shape(), k, nums))
		}
	}
	chunks := g.Chunks(o.Offset, m.Pattern(o.Pattern), res)
	base := f.InstName(i)
	deps := f.Deps(i)
	parts := make([]bir.InstID, 0, len(chunks))
	for c, ch := range chunks {
		p := f.Clone(i, m.NewSym(s.partName(base, c)))
		for kk, x := range f.Operands(p) {
			if !x.Kind.IsAP() {
				continue
			}
			pat := slices.Clone(m.Pattern(x.Pattern))
			x.Offset += ch[0] * pat[res.Pair].Step
			pat[res.Pair].Num = ch[1] - ch[0]
			x.Pattern = m.InternPattern(pat)
			f.SetOperand(p, kk, x)
		}
		for _, d := range deps {
			f.AddDep(p, d)
		}
		parts = append(parts, p)
	}
	s.parts[i] = parts
	s.st.insts++
	return parts, nil
}

// partName returns "<base>.s<k>", or with "_<n>" appended when a live
// instruction already has that name. The live names that could collide
// (those containing ".s") are collected once per function.
func (s *splitter) partName(base string, k int) string {
	if s.taken == nil {
		s.taken = map[string]bool{}
		f := s.f
		f.Walk(func(i bir.InstID) bool {
			if b := s.m.StrBytes(f.Inst(i).Name); bytes.Contains(b, []byte(".s")) {
				s.taken[string(b)] = true
			}
			return true
		})
	}
	name := base + ".s" + strconv.Itoa(k)
	for n := 1; s.taken[name]; n++ {
		name = base + ".s" + strconv.Itoa(k) + "_" + strconv.Itoa(n)
	}
	s.taken[name] = true
	return name
}

// leaves expands an instruction into its final parts (parts may be split
// again).
func (s *splitter) leaves(i bir.InstID, out []bir.InstID) []bir.InstID {
	ps, ok := s.parts[i]
	if !ok {
		return append(out, i)
	}
	for _, p := range ps {
		out = s.leaves(p, out)
	}
	return out
}

// rebuild puts the parts in place of the instructions they replace, and
// points dependencies on a split instruction at all its parts.
func (s *splitter) rebuild() {
	f := s.f
	var blocks []bir.BlockID
	seenB := map[bir.BlockID]bool{}
	for i := range s.parts {
		if b := f.Inst(i).Block; b != bir.NoBlock && !seenB[b] {
			seenB[b] = true
			blocks = append(blocks, b)
		}
	}
	slices.Sort(blocks)
	for _, b := range blocks {
		old := f.Block(b).Insts
		list := make([]bir.InstID, 0, len(old))
		for _, i := range old {
			list = s.leaves(i, list)
		}
		f.ReplaceBlockInsts(b, list)
	}
	// Dependencies: edges to a split instruction go to its parts; then the
	// memory edges (FLOW, ANTI, OUTPUT) of parts, and the new edges to
	// parts, are kept only towards instructions whose accesses overlap
	// (all are kept when none overlaps, so an edge is never lost for want
	// of an overlap the test cannot see).
	isPart := map[bir.InstID]bool{}
	for _, ps := range s.parts {
		for _, p := range ps {
			isPart[p] = true
		}
	}
	f.Walk(func(i bir.InstID) bool {
		if !f.HasDeps(i) {
			return true
		}
		deps := f.Deps(i)
		stale := isPart[i]
		for _, d := range deps {
			if _, ok := s.parts[d.On]; ok {
				stale = true
				break
			}
		}
		if !stale {
			return true
		}
		var keep, mem []bir.Dep
		for _, d := range deps {
			_, split := s.parts[d.On]
			targets := []bir.InstID{d.On}
			if split {
				targets = s.leaves(d.On, nil)
			}
			for _, t := range targets {
				e := d
				e.On = t
				if d.Kind == bir.DepOrdered || (!split && !isPart[i]) {
					keep = append(keep, e)
				} else {
					mem = append(mem, e)
				}
			}
		}
		var near []bir.Dep
		for _, d := range mem {
			if s.overlap(i, d.On) {
				near = append(near, d)
			}
		}
		if len(near) == 0 {
			near = mem
		}
		f.ClearDeps(i)
		for _, d := range append(keep, near...) {
			f.AddDep(i, d)
		}
		return true
	})
}

// overlap reports whether two instructions may access common memory
// through their physical access patterns: the same location with
// intersecting element ranges, or two allocated locations whose placements
// intersect. A symbolic or register access may reach anything.
func (s *splitter) overlap(a, b bir.InstID) bool {
	f := s.f
	for _, x := range f.Operands(a) {
		if x.Kind != bir.OpdPhysAP {
			if x.Kind.IsAP() {
				return true
			}
			continue
		}
		for _, y := range f.Operands(b) {
			if y.Kind != bir.OpdPhysAP {
				if y.Kind.IsAP() {
					return true
				}
				continue
			}
			if x.Loc() != y.Loc() {
				if aliases(f.Loc(x.Loc()), f.Loc(y.Loc())) {
					return true
				}
				continue
			}
			xl, xh := s.byteRange(x)
			yl, yh := s.byteRange(y)
			if xl <= yh && yl <= xh {
				return true
			}
		}
	}
	return false
}

// aliases reports whether two distinct locations may share memory: both
// allocated in the same on-chip memory (and PSUM bank) with intersecting
// partition and byte ranges. Unallocated locations have storage of their
// own; DRAM locations are distinct tensors.
func aliases(a, b *bir.MemLoc) bool {
	if !a.Allocated || !b.Allocated || a.Type != b.Type || !a.Type.IsOnChip() || a.Bank != b.Bank {
		return false
	}
	return a.Base < b.Base+b.Partitions && b.Base < a.Base+a.Partitions &&
		a.Addr < b.Addr+b.Bytes && b.Addr < a.Addr+a.Bytes
}

// byteRange is the range of linear bytes an access reaches in its location.
func (s *splitter) byteRange(o bir.Operand) (int64, int64) {
	var lo, hi int64
	for _, q := range s.m.Pattern(o.Pattern) {
		if q.Num <= 0 {
			continue
		}
		if d := q.Step * (q.Num - 1); d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	ds := o.Dtype.Size()
	return (o.Offset + lo) * ds, (o.Offset+hi)*ds + ds - 1
}
