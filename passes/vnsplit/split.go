// VNSplitter::runTransform — the SPLIT phase of vn_splitter (seed 004
// §2): every SB/PSUM memory location whose accesses fall into groups of
// disjoint partitions is carved into one new location per group,
// "<orig>_VN_<k>", so that the allocator colors each group independently
// and an oversized location whose groups fit becomes locations that fit.
//
//	runTransform:
//	  PASS A, per location (Function::allocs):
//	    skipped by user request ("VNSplitter: Skipping <name> by user request.")
//	    skipped unless SB/PSUM (splitSB) or internal DRAM (noSplitDRAM off)
//	    analyze: pre-filters; the AP-legality sweep (reject reasons below);
//	      collectAccesses -> APAccesses (partition set + element range);
//	      clustering into ApGroups by overlapping partition sets;
//	      per group collectStats and isValidForSB (partition gate, byte gate);
//	      the knobs ratio and perSplitLimit
//	  PASS B: split each splittable location (vn_limit caps the running
//	    node count): one "<orig>_VN_<k>" location and tensor per group, every
//	    access repointed with normalizeOffsetToNewNode; the original is dead
//	  dead-node removal (keep-alive sets), VNSplitterDeadNodesCount
//	  "INFO (VNSplitter): Split <N> nodes ... into <P> pieces."
//	  "(SplitSB) total_sb_nodes = ..., can_sb_nodes = ..., total dead nodes = ..., ..."
//
// Reject reasons (the seed's strings, logged as "VNSplitter: not splitting
// <name> due to ..."):
//
//	due to non-contiguous AP.                an access pair moves across partitions by a
//	                                         step that is not a whole number of them
//	                                         (isShiftedPartitionAccess)
//	due to transpose (differing partiton     partitions walked by an inner pair, or by two
//	  step ...)                              pairs with different steps
//	due to access across channels.           the in-partition pairs leave the partition
//	                                         (hasCrossChannelAccess)
//	due to reintepret_cast.                  an access reads the location as another
//	                                         element size
//	due to partial copy (node size = ...)    a DMACopy in a mode other than Copy/CCE
//	                                         (Transpose, Replicate, Dynamic...) or a DMA
//	                                         descriptor: it moves the node by its byte
//	                                         layout, so which part it copies is not an
//	                                         access pattern narwhal can rebase
//	due to CollectiveCompute access or       collectives, calls (BIRKernel, NKIKernel,
//	  BIRKernel access or indirect access.   CustomOp, Call), indirect DMA, ReadVarAddr,
//	                                         and opcodes narwhal keeps verbatim
//	due to symbolic access (...)             a symbolic or register access to the tensor
//	                                         (run full_unroll first)
//	due to fixed placement (...)             the location is already allocated
//	due to kernel interface (...)            an input, output or other non-internal tensor
//	due to block template (...)              the single template location of a block
//	                                         tensor stands for several blocks
//
// Decisions where the seed is silent:
//
//   - ApGroups are the connected components of "shares a partition" over
//     the location's accesses (APAccesses.overlaps is !is_set_disjoint of
//     the partition sets, seed 004 §2.3). The split trigger: more than one
//     group, or a single group that leaves partitions unused (the seed's
//     "WARNING: ML <name> has unused partitions!"), or, for an internal
//     DRAM location when noSplitDRAM is off, a single group that fits SB
//     ("Moved <name> from DRAM to SB"). Every group must pass isValidForSB,
//     or the location is not split (a piece may not be left oversized).
//   - A group's piece keeps the in-partition element positions (its free
//     size is the group's highest element + 1, the seed's getDimensions);
//     shrink_ml trims the low end. Its partitions are the group's partition
//     range with the group's partition stride (the gcd of its partition
//     offsets): normalizeOffsetToNewNode maps partition p to
//     (p - base) / stride and keeps the in-partition element.
//   - The knobs: vn_limit caps the number of SB/PSUM locations of a
//     function after splitting (a split that would exceed it is rejected,
//     "exceed vn limit = ... v.s. limit=..."); perSplitLimit caps the pieces
//     of one location (the seed's reject string, which speaks of pieces
//     "placed in DRAM", is kept verbatim); ratio caps "elts/partition
//     duplicated": the sum of the pieces' elements per partition over the
//     original's, i.e. how many times over the pieces would need the
//     original's per-partition bytes if the allocator stacked them on the
//     same partitions.
//   - Dead nodes: the original location of a split (and its tensor when it
//     has no location left) and every live internal SB/PSUM location no
//     instruction accesses are removed, unless kept alive: kernel
//     interfaces, allocated or pinned locations, tensors still accessed
//     symbolically, and a block tensor's template. A group that is only
//     written is dead too when each of its writers is removable (one
//     output, no other effect, no instruction depends on it — the keep-alive
//     instruction set); then the writers are removed and no piece is made.
//     VNSplitterDeadNodesCount counts the locations removed.
package vnsplit

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// apAccess is the seed's APAccesses: one access pattern of the location
// with its partition set and element range.
type apAccess struct {
	inst bir.InstID
	opd  int
	out  bool
	lay  bir.APLayout
	grp  int // group index
}

// apGroup is the seed's ApGroup: the accesses of one future sub-location.
type apGroup struct {
	id         int
	pmin, pmax int64
	stride     int64 // partition stride
	hi         int64 // highest element in partition
	reads      int
	accs       []int // indices into nodePlan.accs
	dead       bool  // write-only group whose writers are all removable
}

// count returns the group's partition count.
func (g *apGroup) count() int64 { return (g.pmax-g.pmin)/g.stride + 1 }

// normalizeOffsetToNewNode rebases an element offset of the original
// location (e elements per partition) onto the group's piece (ne elements
// per partition).
func (g *apGroup) normalizeOffsetToNewNode(off, e, ne int64) int64 {
	return ((off/e-g.pmin)/g.stride)*ne + off%e
}

// nodePlan is analyze's result for one location.
type nodePlan struct {
	loc    bir.LocID
	e      int64 // elements per partition
	ds     int64
	toSB   bool // an internal DRAM location moving to SB
	accs   []apAccess
	groups []*apGroup
}

// splitter is VNSplitter for one function.
type splitter struct {
	f    *bir.Function
	m    *bir.Module
	opt  *Options
	st   *Stats
	geo  geometry
	skip map[string]bool
	// keepInst marks instructions another instruction depends on (built
	// lazily): they are never removed as dead.
	keepInst []bool
	uf       partUF
}

// geometry is the SBModel VNSplitter caches (sbBytesPerPartition,
// sbPartitionCount) plus the PSUM budget.
type geometry struct {
	partitions int64
	sbBytes    int64
	psumBytes  int64
}

func geometryFor(m *arch.Model) (geometry, error) {
	sb, err := m.SBUFBudget()
	if err != nil {
		return geometry{}, err
	}
	ps, err := m.PSUMBudget()
	if err != nil {
		return geometry{}, err
	}
	return geometry{partitions: m.Partitions, sbBytes: sb, psumBytes: ps}, nil
}

func (g geometry) budget(t bir.MemoryType) int64 {
	if t == bir.MemPSUM {
		return g.psumBytes
	}
	return g.sbBytes
}

func (s *splitter) logf(format string, args ...any) {
	if s.opt.Logf != nil {
		s.opt.Logf(format, args...)
	}
}

// candidate reports whether location l is one the splitter looks at.
func (s *splitter) candidate(l bir.LocID) bool {
	lc := s.f.Loc(l)
	if lc.Dead {
		return false
	}
	switch {
	case lc.Type.IsOnChip():
		return s.opt.SplitSB
	case lc.Type == bir.MemDRAM:
		return !s.opt.NoSplitDRAM
	}
	return false
}

// runTransform is VNSplitter::runTransform for one function.
func (s *splitter) runTransform() error {
	f := s.f
	var plans []*nodePlan
	n := f.NumLocs()
	nodes := 0 // SB/PSUM locations (the running virtual-node count)
	for l := bir.LocID(0); int(l) < n; l++ {
		if lc := f.Loc(l); !lc.Dead && lc.Type.IsOnChip() {
			nodes++
			s.st.TotalSBNodes++
		}
	}
	internal := 0
	for l := bir.LocID(0); int(l) < n; l++ {
		if !s.candidate(l) {
			continue
		}
		name := f.Loc(l).Name
		if s.skip[name] {
			s.logf("VNSplitter: Skipping %s by user request.", name)
			continue
		}
		internal++
		s.logf("INFO (VNSplitter)  Analyzing %s", name)
		s.st.Analyzed++
		p := s.analyze(l)
		if p == nil {
			continue
		}
		lc := f.Loc(l)
		s.logf("%s is splittable, shape=(%d partitions, %d bytes)!", name, lc.Partitions, lc.Bytes)
		s.st.CanSBNodes++
		plans = append(plans, p)
	}
	s.logf("Collected all the internal vnodes: %d", internal)
	// PASS B.
	for _, p := range plans {
		pieces := 0
		for _, g := range p.groups {
			if !g.dead {
				pieces++
			}
		}
		after := nodes + pieces
		if f.Loc(p.loc).Type.IsOnChip() {
			after--
		}
		if s.opt.VNLimit > 0 && int64(after) > s.opt.VNLimit {
			s.logf("apGroup id %d : isValidForSB = true; exceed vn limit = %d v.s. limit=%d", p.groups[0].id, after, s.opt.VNLimit)
			s.logf("VNSplitter: not splitting %s: %d SB/PSUM nodes would exceed vn_limit %d", f.Loc(p.loc).Name, after, s.opt.VNLimit)
			continue
		}
		if err := s.split(p); err != nil {
			return err
		}
		nodes = after
	}
	s.removeUnused()
	return nil
}

// reject logs a reject reason and returns nil.
func (s *splitter) reject(l bir.LocID, format string, args ...any) *nodePlan {
	s.logf("VNSplitter: not splitting %s %s", s.f.Loc(l).Name, fmt.Sprintf(format, args...))
	return nil
}

// analyze is VNSplitter::analyze: nil when the location is not split.
func (s *splitter) analyze(l bir.LocID) *nodePlan {
	f, m := s.f, s.m
	lc := *f.Loc(l)
	ts := f.Tensor(lc.Tensor)
	uses := f.Uses()
	// (a) pre-filters.
	switch {
	case ts.Kind != bir.KindInternal:
		return s.reject(l, "due to kernel interface (a %s tensor).", ts.Kind)
	case lc.Allocated || lc.Pinned:
		return s.reject(l, "due to fixed placement (allocated at partition %d, byte %d).", lc.Base, lc.Addr)
	case lc.RawDims != nil:
		return s.reject(l, "due to its dims %v (not [partitions, bytes]).", lc.RawDims)
	case ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1:
		return s.reject(l, "due to block template (it stands for %d blocks; run full_unroll first).", ts.NBlocks)
	}
	if u := uses.Tensor(lc.Tensor); len(u) > 0 {
		return s.reject(l, "due to symbolic access (instruction %s reaches tensor %s through a %s; run full_unroll first).",
			f.InstName(u[0].Inst), ts.Name, f.Operands(u[0].Inst)[u[0].Operand].Kind)
	}
	ds := ts.Dtype.Size()
	if ds == 0 || lc.Bytes%ds != 0 || lc.Partitions <= 0 {
		return s.reject(l, "due to its layout (%d x %d bytes of %s).", lc.Partitions, lc.Bytes, ts.Dtype)
	}
	e := lc.Bytes / ds
	if e == 0 {
		return nil
	}
	locUses := uses.Loc(l)
	if len(locUses) == 0 {
		return nil // unused: removeUnused's business
	}
	// (b) the AP-legality sweep.
	p := &nodePlan{loc: l, e: e, ds: ds, toSB: lc.Type == bir.MemDRAM}
	p.accs = make([]apAccess, 0, len(locUses))
	for _, u := range locUses {
		i := u.Inst
		in := f.Inst(i)
		op := in.Op
		info := op.Info()
		switch {
		case isIndirect(op) || info.Has(bir.FlagCollective) || info.Has(bir.FlagCall) || info.Has(bir.FlagNoSemantics) || !op.Known():
			return s.reject(l, "due to CollectiveCompute access or BIRKernel access or indirect access. (instruction %s, %s)", f.InstName(i), f.OpName(i))
		case op == bir.OpDMACopy && !copyMode(f, i), info.Has(bir.FlagDescriptor):
			return s.reject(l, "due to partial copy (node size = %d bytes; instruction %s moves it in mode %s, by its byte layout).", lc.Partitions*lc.Bytes, f.InstName(i), f.Attrs(i).Str("mode", f.OpName(i)))
		}
		o := f.Operands(i)[u.Operand]
		if o.Dtype.Size() != ds {
			return s.reject(l, "due to reintepret_cast. (instruction %s reads it as %s)", f.InstName(i), o.Dtype)
		}
		lay := bir.OnChipLayout(o.Offset, m.Pattern(o.Pattern), e)
		switch lay.Class {
		case bir.APShifted, bir.APInvalid:
			return s.reject(l, "due to non-contiguous AP. (instruction %s, operand %d)", f.InstName(i), u.Operand)
		case bir.APTranspose:
			return s.reject(l, "due to transpose (differing partiton step: instruction %s, operand %d, pair %d also walks partitions).", f.InstName(i), u.Operand, lay.BadPair)
		case bir.APCrossChannel:
			return s.reject(l, "due to access across channels. (instruction %s, operand %d)", f.InstName(i), u.Operand)
		}
		if lay.PartMin() < 0 || lay.PartMax() >= lc.Partitions {
			return s.reject(l, "due to non-contiguous AP. (instruction %s, operand %d leaves the %d partitions)", f.InstName(i), u.Operand, lc.Partitions)
		}
		p.accs = append(p.accs, apAccess{inst: i, opd: int(u.Operand), out: u.Out, lay: lay})
	}
	// (c) grouping: connected components of overlapping partition sets.
	s.uf.reset(int(lc.Partitions))
	for k := range p.accs {
		s.uf.addProgression(&p.accs[k].lay)
	}
	root := map[int]*apGroup{}
	for k := range p.accs {
		a := &p.accs[k]
		r := s.uf.find(int(a.lay.PartFirst))
		g := root[r]
		if g == nil {
			g = &apGroup{pmin: a.lay.PartMin(), pmax: a.lay.PartMax(), hi: a.lay.ElemHi}
			root[r] = g
			p.groups = append(p.groups, g)
		}
		g.pmin = min(g.pmin, a.lay.PartMin())
		g.pmax = max(g.pmax, a.lay.PartMax())
		g.hi = max(g.hi, a.lay.ElemHi)
		if !a.out {
			g.reads++
		}
		g.accs = append(g.accs, k)
	}
	slices.SortFunc(p.groups, func(a, b *apGroup) int { return int(a.pmin - b.pmin) })
	for k, g := range p.groups {
		g.id = k
		var st int64
		for _, ai := range g.accs {
			a := &p.accs[ai]
			a.grp = k
			st = gcd(st, a.lay.PartMin()-g.pmin)
			if a.lay.PartCount > 1 {
				st = gcd(st, a.lay.PartStep)
			}
		}
		if st == 0 {
			st = 1
		}
		g.stride = st
	}
	// (d) the split trigger, per-group shape and SB fit.
	switch {
	case len(p.groups) > 1:
	case p.toSB:
		s.logf("INFO (VNSPlitter): %s is a candidate to move from DRAM to SB", lc.Name)
	case p.groups[0].count() < lc.Partitions:
		s.logf("WARNING: ML %s has unused partitions! old: %d ; new: %d", lc.Name, lc.Partitions, p.groups[0].count())
	default:
		return nil // one group over every partition: nothing to carve
	}
	if lim := s.opt.PerSplitLimit; lim > 0 && int64(len(p.groups)) > lim {
		return s.reject(l, "Do not split the vn if this would result in any of the splits having to be placed in DRAM (due to perSplitLimit exceeded): %d pieces, perSplitLimit = %d", len(p.groups), lim)
	}
	mt := lc.Type
	if p.toSB {
		mt = bir.MemSB
	}
	var sumElems int64
	for _, g := range p.groups {
		ok, why := s.isValidForSB(g, mt, ds)
		if !ok {
			s.logf("apGroup id %d : isValidForSB = false; exceed vn limit = 0 v.s. limit=%d", g.id, s.opt.VNLimit)
			return s.reject(l, "because group %d %s", g.id, why)
		}
		sumElems += g.hi + 1
	}
	dup := float64(sumElems) / float64(e)
	if len(p.groups) > 1 {
		s.logf("%s: %d groups, elts/partition duplicated (%.2f x)", lc.Name, len(p.groups), dup)
	}
	if s.opt.Ratio > 0 && dup > s.opt.Ratio {
		return s.reject(l, "because elts/partition duplicated (%.2f x) exceeds ratio %.2f", dup, s.opt.Ratio)
	}
	s.markDeadGroups(p)
	return p
}

// isValidForSB is ApGroup::isValidForSB: the partition gate and the byte
// gate.
func (s *splitter) isValidForSB(g *apGroup, mt bir.MemoryType, ds int64) (bool, string) {
	if g.count() > s.geo.partitions {
		s.logf("ERR: channel count > %d channels.", s.geo.partitions)
		return false, fmt.Sprintf("spans %d partitions (partitions %d..%d step %d), more than %d", g.count(), g.pmin, g.pmax, g.stride, s.geo.partitions)
	}
	if b := (g.hi + 1) * ds; b > s.geo.budget(mt) {
		return false, fmt.Sprintf("needs %d bytes per partition, more than %d (%s)", b, s.geo.budget(mt), mt)
	}
	return true, ""
}

// markDeadGroups marks the write-only groups whose writers are all
// removable.
func (s *splitter) markDeadGroups(p *nodePlan) {
	for _, g := range p.groups {
		if g.reads > 0 {
			continue
		}
		dead := true
		for _, ai := range g.accs {
			if !s.removable(p.accs[ai].inst) {
				dead = false
				break
			}
		}
		g.dead = dead
	}
}

// removable reports whether instruction i may be deleted when its only
// output is never read: one output, an opcode with no other effect, not
// predicated away from analysis, and no dependency on it (keep-alive).
func (s *splitter) removable(i bir.InstID) bool {
	f := s.f
	in := f.Inst(i)
	if in.NOuts != 1 || in.Op.IsLoop() {
		return false
	}
	switch in.Op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA, bir.OpTensorTensor, bir.OpTensorScalar, bir.OpTensorScalarPtr,
		bir.OpTensorCopy, bir.OpMemset, bir.OpIota, bir.OpTensorReduce, bir.OpTranspose, bir.OpReciprocal:
	case bir.OpActivation:
		if f.Attrs(i).Str("acc", "Idle") != "Idle" {
			return false
		}
	case bir.OpDMACopy:
		if !copyMode(f, i) {
			return false
		}
	default:
		return false
	}
	if s.keepInst == nil {
		s.keepInst = make([]bool, f.NumInstSlots())
		f.Walk(func(j bir.InstID) bool {
			for k := f.Inst(j).Deps; k >= 0; {
				d, next, ok := f.DepRecord(k)
				if !ok {
					break
				}
				if int(d.On) >= 0 && int(d.On) < len(s.keepInst) {
					s.keepInst[d.On] = true
				}
				k = next
			}
			return true
		})
	}
	return int(i) < len(s.keepInst) && !s.keepInst[i]
}

// split is VNSplitter::split: one location and tensor per live group,
// every access repointed, dead writers removed, the original removed.
func (s *splitter) split(p *nodePlan) error {
	f, m := s.f, s.m
	lc := *f.Loc(p.loc)
	ts := *f.Tensor(lc.Tensor)
	mt := lc.Type
	if p.toSB {
		mt = bir.MemSB
	}
	class := bir.ClassNeuronSBTensor
	if mt == bir.MemPSUM {
		class = bir.ClassNeuronPSUMTensor
	}
	newLoc := make([]bir.LocID, len(p.groups))
	pieces := 0
	for k, g := range p.groups {
		if g.dead {
			newLoc[k] = bir.NoLoc
			continue
		}
		ne := g.hi + 1
		locName := uniqueLoc(f, lc.Name+"_VN_"+strconv.Itoa(k))
		tid, err := f.AddTensor(bir.Tensor{Name: uniqueTensor(f, locName+"_set"), Kind: bir.KindInternal, Class: class, AddrSpace: ts.AddrSpace,
			Dtype: ts.Dtype, Shape: []int64{g.count(), ne}, File: ts.File, NoSpill: ts.NoSpill, Volatile: ts.Volatile, Virtual: ts.Virtual})
		if err != nil {
			return fmt.Errorf("function %s, location %s: %v", f.Name, lc.Name, err)
		}
		id, err := f.AddLoc(tid, bir.MemLoc{Name: locName, Type: mt, Partitions: g.count(), Bytes: ne * p.ds, Bank: lc.Bank, Extra: lc.Extra})
		if err != nil {
			return fmt.Errorf("function %s, location %s: %v", f.Name, lc.Name, err)
		}
		newLoc[k] = id
		pieces++
		s.logf("INFO (VNSplitter): %s group %d (partitions %d..%d step %d, %d elements per partition) -> %s", lc.Name, k, g.pmin, g.pmax, g.stride, ne, locName)
	}
	if p.toSB {
		s.logf("INFO (VNSPlitter): Moved %s from DRAM to SB (%d piece(s))", lc.Name, pieces)
	}
	var dead []bir.InstID
	for ai := range p.accs {
		a := &p.accs[ai]
		if f.Inst(a.inst).Dead() {
			continue // removed as a dead writer of another location's group
		}
		g := p.groups[a.grp]
		if g.dead {
			dead = append(dead, a.inst)
			continue
		}
		o := f.Operands(a.inst)[a.opd]
		ne := g.hi + 1
		o.Ref = int32(newLoc[a.grp])
		o.Offset = g.normalizeOffsetToNewNode(o.Offset, p.e, ne)
		o.Pattern = m.InternPattern(rebasePattern(m.Pattern(o.Pattern), p.e, ne, g.stride))
		f.SetOperand(a.inst, a.opd, o)
	}
	slices.Sort(dead)
	dead = slices.Compact(dead)
	for _, i := range dead {
		s.logf("VNSplitter: removed dead instruction %s (it only writes a part of %s nothing reads)", f.InstName(i), lc.Name)
		f.Remove(i)
		s.st.DeadInsts++
	}
	s.st.Split++
	s.st.Pieces += pieces
	s.removeLoc(p.loc)
	return nil
}

// rebasePattern rewrites the pairs of an access for a piece of ne
// elements per partition and partition stride st: a pair that moves whole
// partitions moves (step/e)/st partitions of ne elements; in-partition
// pairs are unchanged.
func rebasePattern(pat bir.Pattern, e, ne, st int64) bir.Pattern {
	out := make(bir.Pattern, len(pat))
	for i, q := range pat {
		out[i] = q
		if q.Step == 0 || q.Step%e != 0 {
			continue
		}
		sp := q.Step / e
		if sp%st == 0 {
			out[i].Step = sp / st * ne
		} else {
			out[i].Step = ne // num <= 1: the step is never taken
		}
	}
	return out
}

// removeLoc removes a dead location, and its tensor when it has no
// location left; it counts a dead node.
func (s *splitter) removeLoc(l bir.LocID) {
	f := s.f
	t := f.Loc(l).Tensor
	f.RemoveLoc(l)
	s.st.DeadNodes++
	if len(f.Tensor(t).Locs) == 0 {
		f.RemoveTensor(t)
	}
}

// removeUnused removes the internal SB/PSUM locations no instruction
// accesses, except those kept alive.
func (s *splitter) removeUnused() {
	f := s.f
	uses := f.Uses()
	var dead []bir.LocID
	for l := bir.LocID(0); int(l) < f.NumLocs(); l++ {
		lc := f.Loc(l)
		if lc.Dead || !lc.Type.IsOnChip() || lc.Allocated || lc.Pinned || len(uses.Loc(l)) > 0 {
			continue
		}
		ts := f.Tensor(lc.Tensor)
		if ts.Kind != bir.KindInternal || len(uses.Tensor(lc.Tensor)) > 0 || (ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1) {
			continue // keep-alive: interface, symbolic uses, block template
		}
		dead = append(dead, l)
	}
	for _, l := range dead {
		s.logf("VNSplitter: removed unused location %s", f.Loc(l).Name)
		s.removeLoc(l)
	}
}

func copyMode(f *bir.Function, i bir.InstID) bool {
	mode := f.Attrs(i).Str("mode", "Copy")
	return mode == "Copy" || mode == "CCE"
}

func isIndirect(op bir.Opcode) bool {
	switch op {
	case bir.OpGenericIndirectLoad, bir.OpGenericIndirectSave, bir.OpIndirectLoad, bir.OpIndirectSave,
		bir.OpIndirectSaveAccumulate, bir.OpReadVarAddr, bir.OpIndirectCopy, bir.OpTensorCopyDynamicSrc, bir.OpTensorCopyDynamicDst:
		return true
	}
	return false
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func uniqueLoc(f *bir.Function, name string) string {
	if _, taken := f.LocByName(name); !taken {
		return name
	}
	for k := 1; ; k++ {
		n := name + "_" + strconv.Itoa(k)
		if _, taken := f.LocByName(n); !taken {
			return n
		}
	}
}

func uniqueTensor(f *bir.Function, name string) string {
	if _, taken := f.TensorByName(name); !taken {
		return name
	}
	for k := 1; ; k++ {
		n := name + "_" + strconv.Itoa(k)
		if _, taken := f.TensorByName(n); !taken {
			return n
		}
	}
}

// partUF is a disjoint-set forest over partitions with a "next unmerged"
// skip list, so that merging a run of consecutive partitions costs
// amortized O(1) per partition over the whole location.
type partUF struct {
	p    []int32
	next []int32 // next[x]: smallest y >= x not yet merged with y+1
	last [3]int64
}

func (u *partUF) reset(n int) {
	if cap(u.p) < n {
		u.p = make([]int32, n)
		u.next = make([]int32, n)
	}
	u.p, u.next = u.p[:n], u.next[:n]
	for i := range u.p {
		u.p[i] = int32(i)
		u.next[i] = int32(i)
	}
	u.last = [3]int64{-1, 0, 0}
}

func (u *partUF) find(x int) int {
	for int(u.p[x]) != x {
		u.p[x] = u.p[u.p[x]]
		x = int(u.p[x])
	}
	return x
}

func (u *partUF) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra != rb {
		if ra < rb {
			u.p[rb] = int32(ra)
		} else {
			u.p[ra] = int32(rb)
		}
	}
}

// skip returns the smallest y >= x with next[y] == y (path-compressed).
func (u *partUF) skip(x int) int {
	r := x
	for r < len(u.next) && int(u.next[r]) != r {
		r = int(u.next[r])
	}
	for x < len(u.next) && int(u.next[x]) != x {
		n := int(u.next[x])
		u.next[x] = int32(r)
		x = n
	}
	return r
}

// addProgression merges the partitions an access walks.
func (u *partUF) addProgression(l *bir.APLayout) {
	if l.PartCount <= 1 {
		return
	}
	if u.last == [3]int64{l.PartFirst, l.PartStep, l.PartCount} {
		return // the same partitions as the previous access
	}
	u.last = [3]int64{l.PartFirst, l.PartStep, l.PartCount}
	lo, hi := int(l.PartMin()), int(l.PartMax())
	if l.PartStep == 1 || l.PartStep == -1 {
		// Merge each x in [lo, hi) with x+1, skipping merged pairs.
		for x := u.skip(lo); x < hi; x = u.skip(x + 1) {
			u.union(x, x+1)
			u.next[x] = int32(x + 1)
		}
		return
	}
	for j := int64(1); j < l.PartCount; j++ {
		u.union(int(l.PartFirst), int(l.PartFirst+j*l.PartStep))
	}
}
