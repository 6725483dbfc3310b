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
// <name> due to ..."); which opcodes are followed is footprint.ReachOf,
// the description sb_size_legalization's plan and shrink_ml read too:
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
//	due to partial copy (node size = ...)    a DMACopy in a mode footprint.ReachOf does not
//	                                         follow (Replicate, Dynamic, a 3-D or 4-D
//	                                         transpose) or a DMA descriptor: it moves the
//	                                         node by its byte layout, so which part it
//	                                         copies is not an access pattern narwhal can
//	                                         rebase (Copy, CCE and the 2-D Transpose are
//	                                         followed)
//	due to CollectiveCompute access or       collectives, calls (BIRKernel, NKIKernel,
//	  BIRKernel access or indirect access.   CustomOp, Call), generic indirect DMA,
//	                                         ReadVarAddr, IndirectCopy, the dynamic
//	                                         copies, and opcodes narwhal keeps verbatim
//	due to ISA pattern vector assignment     a tensor-indirect DMA (IndirectLoad,
//	  needs non-TensorIndirect AP            IndirectSave, IndirectSaveAccumulate): its
//	                                         addresses are read from a tensor
//	due to MX (block-scaled) data (...)      the tensor's dtype, or an access's, is an
//	                                         x4-packed MX dtype (the seed's isMx
//	                                         pre-filter; footprint.IsMx)
//	due to symbolic access (...)             a symbolic or register access to the tensor
//	                                         (run full_unroll first)
//	due to fixed placement (...)             the location is already allocated
//	due to kernel interface (...)            an input, output or other non-internal tensor
//	due to block template (...)              the single template location of a block
//	                                         tensor stands for several blocks
//	due to its splitShape mark (...)         FullUnroll has not cut the tensor yet
//
// Decisions where the seed is silent:
//
//   - isMx: the seed pre-filters MX (block-scaled) locations into a
//     "special" path it does not trace. narwhal leaves them as declared:
//     its IR has no MX instruction whose layout rules it could check
//     (packed data is only copied raw or set to 0) and does not link MX
//     data to its scales (a separate tensor: one scale per 8 partitions x
//     4 values, nki.isa.quantize_mx), so it cannot tell whether a piece,
//     renumbered from partition 0, keeps the layout its consumers expect.
//     A location is MX when its tensor's dtype is one of the x4-packed
//     dtypes, or when an access reads or writes it as one (a same-size
//     reinterpretation); footprint.IsMx, shared with shrink_ml and
//     sb_size_legalization's prediction.
//   - TensorIndirect AP: the seed does not say which accesses it means.
//     narwhal has no access-pattern kind whose offsets come from a tensor;
//     it reads the name as seed 001's tensor indirection (the verifier's
//     checkTensorIndirection): the concrete indirect DMAs that
//     lower_generic_indirect emits, IndirectLoad, IndirectSave and
//     IndirectSaveAccumulate, whose address access pattern holds addresses
//     read at run time, so which elements they move is not an access
//     pattern the split can rebase. Any operand of such an instruction on
//     the location rejects it with the seed's string. The other indirect
//     forms (GenericIndirectLoad/Save, ReadVarAddr, IndirectCopy,
//     TensorCopyDynamicSrc/Dst) keep "indirect access"; a register access
//     pattern (an offset read from a register) is rejected with the
//     symbolic accesses.
//   - "due to flow dependencies" cannot arise: narwhal's dependencies
//     (bir.Dep) are ordering edges between instructions, not references
//     to a location, and a split keeps every instruction and every edge
//     and only repoints operands, so no edge is broken or needs the
//     unsplit location. Where dependencies matter — removing the writers
//     of a group nothing reads — a writer another instruction depends on
//     is kept (the keep-alive instruction set) and its group keeps a piece.
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
//     instruction set, at most 64 writers); then the writers are removed
//     and no piece is made. VNSplitterDeadNodesCount counts the locations
//     removed.
//   - Reject reasons are those met first in program order (the analysis is
//     a sweep over the instruction stream, see below); a location already
//     known to be one group over every partition is not examined further,
//     since nothing can split it.
package vnsplit

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// The analysis runs as sweeps over the instruction stream, in program
// order, keeping a small state per location, rather than walking each
// location's uses: a location's uses are scattered over the function, and
// visiting them location by location misses the cache on nearly every
// operand of a large module. Each sweep is linear in the operands.
//
//	sweep 1  the AP-legality checks, each location's partition intervals
//	         (the partition sets of partition-contiguous accesses merged
//	         where they overlap: the ApGroups), symbolic uses of tensors
//	sweep 2  only for locations with partition-strided accesses: the
//	         union-find of their partition sets (intervals over-merge them)
//	sweep 3  only for locations that will split: per-group statistics
//	         (collectStats: partition range and stride, highest element,
//	         reads, the writers of groups nothing reads)
//	sweep 4  only when something splits: every access repointed

// ival is an interval of partitions [lo, hi].
type ival struct{ lo, hi int64 }

// Flags of nodeState.
const (
	nsCand    uint8 = 1 << iota // a location under analysis
	nsStrided                   // a partition-strided access: groups from the union-find
	nsWhole                     // one interval over every partition: cannot split
)

// nodeState is the splitter's per-location state. It holds no pointer
// (a post-unroll function has hundreds of thousands of locations; the
// garbage collector need not scan them): the first partition interval is
// inline, further ones live in splitter.multi.
type nodeState struct {
	e     int64 // elements per partition
	iv    ival  // the first partition interval (niv >= 1)
	ds    int32 // element size
	uses  int32
	rej   int32 // index into splitter.rejects + 1, 0 when none
	niv   int32 // partition intervals; > 1: splitter.multi holds them all
	flags uint8
}

// rejectKind is a reject reason of the AP-legality sweep.
type rejectKind uint8

const (
	rejOpaque rejectKind = iota
	rejPartialCopy
	rejTensorIndirect
	rejMx
	rejReinterpret
	rejShifted
	rejTranspose
	rejCrossChannel
	rejOutside
)

type rejection struct {
	kind rejectKind
	inst bir.InstID
	opd  int
	pair int
	dt   bir.Dtype
	out  bool // the operand is a destination (the instruction writes the location)
}

// apGroup is the seed's ApGroup: the accesses of one future sub-location.
type apGroup struct {
	id         int
	pmin, pmax int64
	ref        int64 // the first partition seen (stride reference)
	stride     int64 // partition stride: gcd of partition offsets
	hi         int64 // highest element in partition
	reads      int
	writers    []bir.InstID // writers, kept while the group has no read (up to maxDeadWriters)
	overflow   bool         // more writers than kept
	dead       bool         // write-only group whose writers are all removable
	loc        bir.LocID    // its piece
}

// maxDeadWriters bounds the writers remembered for a write-only group.
const maxDeadWriters = 64

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
	toSB   bool // an internal DRAM location moving to SB
	groups []*apGroup
	uf     *partUF // strided locations: partition -> group root
	rootG  map[int]int
	ivs    []ival // the location's partition intervals (several groups)
}

// groupOf returns the group index of an access starting at partition p.
func (p *nodePlan) groupOf(ns *nodeState, part int64) int {
	if p.uf != nil {
		return p.rootG[p.uf.find(int(part))]
	}
	if ns.niv == 1 {
		return 0
	}
	k, _ := findIval(p.ivs, part)
	return k
}

// splitter is VNSplitter for one function.
type splitter struct {
	f    *bir.Function
	m    *bir.Module
	opt  *Options
	st   *Stats
	geo  footprint.Geometry
	skip map[string]bool

	nodes   []nodeState
	rejects []rejection
	symUse  []int32 // per tensor: first symbolic/register use + 1
	plans   []*nodePlan
	planOf  map[bir.LocID]*nodePlan
	// keepInst marks instructions another instruction depends on (built
	// lazily): they are never removed as dead.
	keepInst []bool
	// prefiltered are the pre-filter rejects, logged in location order.
	prefiltered map[bir.LocID]string
	// locLog buffers the analysis lines of each location: the decisions
	// take several sweeps, the log keeps the seed's per-location order.
	locLog map[bir.LocID][]string
	// multi holds the partition intervals of the locations with several.
	multi map[bir.LocID][]ival
	// used marks the locations sweep 1 saw accessed.
	used []bool
	// deadBefore is Stats.DeadInsts when the function's split began.
	deadBefore int
	lc         footprint.LayoutCache
}

// addIval merges the partition interval a into location l's intervals.
func (s *splitter) addIval(l bir.LocID, ns *nodeState, a ival) {
	switch {
	case ns.niv == 0:
		ns.iv, ns.niv = a, 1
	case ns.niv == 1 && ns.iv.lo <= a.hi && a.lo <= ns.iv.hi:
		ns.iv = ival{min(ns.iv.lo, a.lo), max(ns.iv.hi, a.hi)}
	default:
		if s.multi == nil {
			s.multi = map[bir.LocID][]ival{}
		}
		ivs := s.multi[l]
		if ns.niv == 1 {
			ivs = []ival{ns.iv}
		}
		ivs = insertIval(ivs, a)
		ns.iv, ns.niv = ivs[0], int32(len(ivs))
		if len(ivs) == 1 {
			delete(s.multi, l)
		} else {
			s.multi[l] = ivs
		}
	}
}

// ivals returns location l's partition intervals (a view for one).
func (s *splitter) ivals(l bir.LocID, ns *nodeState) []ival {
	if ns.niv > 1 {
		return s.multi[l]
	}
	if ns.niv == 1 {
		return []ival{ns.iv}
	}
	return nil
}

// locf buffers a log line about location l.
func (s *splitter) locf(l bir.LocID, format string, args ...any) {
	if s.opt.Logf == nil {
		return
	}
	if s.locLog == nil {
		s.locLog = map[bir.LocID][]string{}
	}
	s.locLog[l] = append(s.locLog[l], fmt.Sprintf(format, args...))
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
	n := f.NumLocs()
	s.deadBefore = s.st.DeadInsts
	s.nodes = make([]nodeState, n)
	s.used = make([]bool, n)
	s.symUse = make([]int32, f.NumTensors())
	nodes := 0 // SB/PSUM locations (the running virtual-node count)
	var cands []bir.LocID
	for l := bir.LocID(0); int(l) < n; l++ {
		lc := f.Loc(l)
		if !lc.Dead && lc.Type.IsOnChip() {
			nodes++
			s.st.TotalSBNodes++
		}
		if !s.candidate(l) {
			continue
		}
		if s.skip[lc.Name] {
			s.logf("VNSplitter: Skipping %s by user request.", lc.Name)
			continue
		}
		cands = append(cands, l)
		s.prefilter(l)
	}
	// PASS A.
	s.sweepLegality()
	for _, l := range cands {
		s.st.Analyzed++
		s.decide(l)
	}
	s.sweepUnions()
	s.sweepStats()
	var plans []*nodePlan
	for _, p := range s.plans {
		if s.finish(p) {
			lc := f.Loc(p.loc)
			s.locf(p.loc, "%s is splittable, shape=(%d partitions, %d bytes)!", lc.Name, lc.Partitions, lc.Bytes)
			s.st.CanSBNodes++
			plans = append(plans, p)
		}
	}
	if s.opt.Logf != nil {
		for _, l := range cands {
			s.logf("INFO (VNSplitter)  Analyzing %s", f.Loc(l).Name)
			for _, line := range s.locLog[l] {
				s.logf("%s", line)
			}
		}
	}
	s.logf("Collected all the internal vnodes: %d", len(cands))
	// PASS B.
	s.planOf = map[bir.LocID]*nodePlan{}
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
		if err := s.makePieces(p); err != nil {
			return err
		}
		s.planOf[p.loc] = p
		nodes = after
	}
	if len(s.planOf) > 0 {
		s.sweepRepoint()
	}
	s.removeUnused()
	return nil
}

// prefilter applies analyze's pre-filters to location l and marks it a
// candidate of the sweeps when it passes.
func (s *splitter) prefilter(l bir.LocID) {
	f := s.f
	lc := f.Loc(l)
	ts := f.Tensor(lc.Tensor)
	ns := &s.nodes[l]
	why := ""
	ds := ts.Dtype.Size()
	switch {
	case ts.Kind != bir.KindInternal:
		why = fmt.Sprintf("due to kernel interface (a %s tensor).", ts.Kind)
	case lc.Allocated || lc.Pinned:
		why = fmt.Sprintf("due to fixed placement (allocated at partition %d, byte %d).", lc.Base, lc.Addr)
	case footprint.IsMx(ts.Dtype):
		why = fmt.Sprintf("due to MX (block-scaled) data (a %s tensor; MX locations are kept as declared).", ts.Dtype)
	case lc.RawDims != nil:
		why = fmt.Sprintf("due to its dims %v (not [partitions, bytes]).", lc.RawDims)
	case ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1:
		why = fmt.Sprintf("due to block template (it stands for %d blocks; run full_unroll first).", ts.NBlocks)
	case slices.Contains(ts.SplitShape, true):
		why = fmt.Sprintf("due to its splitShape mark %v (FullUnroll's cut needs the declared layout; run full_unroll first).", ts.SplitShape)
	case ds == 0 || lc.Bytes%ds != 0 || lc.Partitions <= 0 || lc.Bytes == 0:
		why = fmt.Sprintf("due to its layout (%d x %d bytes of %s).", lc.Partitions, lc.Bytes, ts.Dtype)
	}
	if why != "" {
		s.prefilterWhy(l, why)
		return
	}
	ns.flags |= nsCand
	ns.e, ns.ds = lc.Bytes/ds, int32(ds)
}

// prefilterWhy records a pre-filter reject to be logged in location order.
func (s *splitter) prefilterWhy(l bir.LocID, why string) {
	if s.prefiltered == nil {
		s.prefiltered = map[bir.LocID]string{}
	}
	s.prefiltered[l] = why
}

func (s *splitter) rejectAt(ns *nodeState, r rejection) {
	if ns.rej == 0 {
		s.rejects = append(s.rejects, r)
		ns.rej = int32(len(s.rejects))
	}
}

// sweepLegality is sweep 1: the AP-legality checks and the partition
// intervals of every candidate location, and the symbolic uses.
func (s *splitter) sweepLegality() {
	f, m := s.f, s.m
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		reached, reach := false, footprint.ReachAddressed // the instruction's class, computed on first need
		for k, o := range f.Operands(i) {
			switch o.Kind {
			case bir.OpdSymAP, bir.OpdRegAP:
				if t := o.TensorRef(); int(t) >= 0 && int(t) < len(s.symUse) && s.symUse[t] == 0 {
					s.symUse[t] = int32(i) + 1
				}
				continue
			case bir.OpdPhysAP:
			default:
				continue
			}
			l := o.Loc()
			if int(l) < 0 || int(l) >= len(s.nodes) {
				continue
			}
			s.used[l] = true
			ns := &s.nodes[l]
			if ns.flags&nsCand == 0 {
				continue
			}
			ns.uses++
			if ns.rej != 0 {
				continue
			}
			if !reached {
				reached, reach = true, footprint.ReachOf(f, i)
			}
			switch {
			case reach == footprint.ReachTensorIndirect:
				s.rejectAt(ns, rejection{kind: rejTensorIndirect, inst: i})
				continue
			case reach == footprint.ReachPartialCopy || reach == footprint.ReachDescriptor:
				s.rejectAt(ns, rejection{kind: rejPartialCopy, inst: i})
				continue
			case !reach.Followed():
				s.rejectAt(ns, rejection{kind: rejOpaque, inst: i})
				continue
			case footprint.IsMx(o.Dtype):
				s.rejectAt(ns, rejection{kind: rejMx, inst: i, dt: o.Dtype})
				continue
			case o.Dtype.Size() != int64(ns.ds):
				s.rejectAt(ns, rejection{kind: rejReinterpret, inst: i, opd: k, dt: o.Dtype, out: k >= int(in.NIns)})
				continue
			case ns.flags&nsWhole != 0:
				continue // it cannot split: its later accesses change nothing
			}
			lay := s.lc.Layout(m, o.Offset, o.Pattern, ns.e)
			switch lay.Class {
			case footprint.APContiguous:
			case footprint.APTranspose:
				s.rejectAt(ns, rejection{kind: rejTranspose, inst: i, opd: k, pair: lay.BadPair})
				continue
			case footprint.APCrossChannel:
				s.rejectAt(ns, rejection{kind: rejCrossChannel, inst: i, opd: k})
				continue
			default:
				s.rejectAt(ns, rejection{kind: rejShifted, inst: i, opd: k})
				continue
			}
			parts := f.Loc(l).Partitions
			if lay.PartMin() < 0 || lay.PartMax() >= parts {
				s.rejectAt(ns, rejection{kind: rejOutside, inst: i, opd: k})
				continue
			}
			if lay.PartCount > 1 && lay.PartStep != 1 && lay.PartStep != -1 {
				ns.flags |= nsStrided
			}
			s.addIval(l, ns, ival{lay.PartMin(), lay.PartMax()})
			// One interval over every partition, merged from contiguous
			// accesses only (exact: a connected group), never splits. With
			// a strided access the hull may over-merge; the union-find
			// decides.
			if ns.flags&nsStrided == 0 && ns.niv == 1 && ns.iv.lo == 0 && ns.iv.hi == parts-1 && f.Loc(l).Type.IsOnChip() {
				ns.flags |= nsWhole
			}
		}
		return true
	})
}

// insertIval adds [a.lo, a.hi] to the sorted disjoint intervals, merging
// the ones it overlaps.
func insertIval(ivs []ival, a ival) []ival {
	k := sort.Search(len(ivs), func(k int) bool { return ivs[k].hi >= a.lo })
	j := k
	for j < len(ivs) && ivs[j].lo <= a.hi {
		a.lo, a.hi = min(a.lo, ivs[j].lo), max(a.hi, ivs[j].hi)
		j++
	}
	if j == k+1 && ivs[k] == a {
		return ivs
	}
	if j == k {
		ivs = append(ivs, ival{})
		copy(ivs[k+1:], ivs[k:])
		ivs[k] = a
		return ivs
	}
	ivs[k] = a
	return append(ivs[:k+1], ivs[j:]...)
}

// findIval returns the index of the interval holding partition p.
func findIval(ivs []ival, p int64) (int, bool) {
	k := sort.Search(len(ivs), func(k int) bool { return ivs[k].hi >= p })
	return k, k < len(ivs) && ivs[k].lo <= p
}

func (s *splitter) logReject(l bir.LocID, r rejection) {
	f := s.f
	lc := f.Loc(l)
	name := f.InstName(r.inst)
	switch r.kind {
	case rejOpaque:
		s.locf(l, "VNSplitter: not splitting %s due to CollectiveCompute access or BIRKernel access or indirect access. (instruction %s, %s)", lc.Name, name, f.OpName(r.inst))
	case rejTensorIndirect:
		s.locf(l, "VNSplitter: not splitting %s due to ISA pattern vector assignment needs non-TensorIndirect AP (instruction %s, %s: a tensor-indirect DMA, its addresses read from a tensor)", lc.Name, name, f.OpName(r.inst))
	case rejMx:
		s.locf(l, "VNSplitter: not splitting %s due to MX (block-scaled) data (instruction %s accesses it as %s; MX locations are kept as declared).", lc.Name, name, r.dt)
	case rejPartialCopy:
		s.locf(l, "VNSplitter: not splitting %s due to partial copy (node size = %d bytes; instruction %s moves it in mode %s, by its byte layout).", lc.Name, lc.Partitions*lc.Bytes, name, f.Attrs(r.inst).Str("mode", f.OpName(r.inst)))
	case rejReinterpret:
		verb := "reads"
		if r.out {
			verb = "writes"
		}
		s.locf(l, "VNSplitter: not splitting %s due to reintepret_cast. (instruction %s %s it as %s, operand %d)", lc.Name, name, verb, r.dt, r.opd)
	case rejShifted:
		s.locf(l, "VNSplitter: not splitting %s due to non-contiguous AP. (instruction %s, operand %d)", lc.Name, name, r.opd)
	case rejTranspose:
		s.locf(l, "VNSplitter: not splitting %s due to transpose (differing partiton step: instruction %s, operand %d, pair %d also walks partitions).", lc.Name, name, r.opd, r.pair)
	case rejCrossChannel:
		s.locf(l, "VNSplitter: not splitting %s due to access across channels. (instruction %s, operand %d)", lc.Name, name, r.opd)
	case rejOutside:
		s.locf(l, "VNSplitter: not splitting %s due to non-contiguous AP. (instruction %s, operand %d leaves the %d partitions)", lc.Name, name, r.opd, lc.Partitions)
	}
}

// decide applies the pre-filter results, the sweep's rejects and the split
// trigger to location l; a location that may split gets a plan whose
// statistics the next sweeps fill.
func (s *splitter) decide(l bir.LocID) {
	f := s.f
	lc := f.Loc(l)
	ns := &s.nodes[l]
	if why, ok := s.prefiltered[l]; ok {
		s.locf(l, "VNSplitter: not splitting %s %s", lc.Name, why)
		return
	}
	t := lc.Tensor
	if u := s.symUse[t]; u != 0 {
		i := bir.InstID(u - 1)
		kind := bir.OpdSymAP
		for _, o := range f.Operands(i) {
			if (o.Kind == bir.OpdSymAP || o.Kind == bir.OpdRegAP) && o.TensorRef() == t {
				kind = o.Kind
				break
			}
		}
		s.locf(l, "VNSplitter: not splitting %s due to symbolic access (instruction %s reaches tensor %s through a %s; run full_unroll first).", lc.Name, f.InstName(i), f.Tensor(t).Name, kind)
		return
	}
	if ns.rej != 0 {
		s.logReject(l, s.rejects[ns.rej-1])
		return
	}
	if ns.uses == 0 || ns.flags&nsWhole != 0 {
		return // unused (removeUnused's business) or one group over every partition
	}
	p := &nodePlan{loc: l, toSB: lc.Type == bir.MemDRAM}
	if ns.flags&nsStrided == 0 {
		// Intervals are the groups; decide the trigger now.
		n := int(ns.niv)
		if n == 1 && !p.toSB && ns.iv.hi-ns.iv.lo+1 == lc.Partitions {
			return
		}
		p.ivs = s.ivals(l, ns)
		p.groups = make([]*apGroup, n)
		for k := range p.groups {
			p.groups[k] = &apGroup{id: k, pmin: -1}
		}
	}
	s.plans = append(s.plans, p)
}

// sweepUnions is sweep 2: the union-find of the strided locations.
func (s *splitter) sweepUnions() {
	var strided []*nodePlan
	for _, p := range s.plans {
		if p.groups == nil {
			p.uf = &partUF{}
			p.uf.reset(int(s.f.Loc(p.loc).Partitions))
			strided = append(strided, p)
		}
	}
	if len(strided) == 0 {
		return
	}
	byLoc := map[bir.LocID]*nodePlan{}
	for _, p := range strided {
		byLoc[p.loc] = p
	}
	s.eachAccess(byLoc, func(p *nodePlan, ns *nodeState, i bir.InstID, k int, out bool, lay *footprint.APLayout) {
		p.uf.addProgression(lay)
	})
	for _, p := range strided {
		p.rootG = map[int]int{}
	}
	// Groups are numbered in order of their lowest partition (a root is
	// the lowest partition of its set).
	s.eachAccess(byLoc, func(p *nodePlan, ns *nodeState, i bir.InstID, k int, out bool, lay *footprint.APLayout) {
		r := p.uf.find(int(lay.PartFirst))
		if _, ok := p.rootG[r]; !ok {
			p.rootG[r] = -1
		}
	})
	for _, p := range strided {
		roots := make([]int, 0, len(p.rootG))
		for r := range p.rootG {
			roots = append(roots, r)
		}
		slices.Sort(roots)
		for k, r := range roots {
			p.rootG[r] = k
			p.groups = append(p.groups, &apGroup{id: k, pmin: -1})
		}
	}
}

// eachAccess calls fn for every partition-contiguous physical access of
// the planned locations, in program order.
func (s *splitter) eachAccess(plans map[bir.LocID]*nodePlan, fn func(p *nodePlan, ns *nodeState, i bir.InstID, k int, out bool, lay *footprint.APLayout)) {
	f, m := s.f, s.m
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		for k, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP {
				continue
			}
			p, ok := plans[o.Loc()]
			if !ok {
				continue
			}
			ns := &s.nodes[o.Loc()]
			lay := s.lc.Layout(m, o.Offset, o.Pattern, ns.e)
			fn(p, ns, i, k, k >= int(in.NIns), &lay)
		}
		return true
	})
}

// sweepStats is sweep 3: collectStats of every group of every plan.
func (s *splitter) sweepStats() {
	if len(s.plans) == 0 {
		return
	}
	byLoc := make(map[bir.LocID]*nodePlan, len(s.plans))
	for _, p := range s.plans {
		byLoc[p.loc] = p
	}
	s.eachAccess(byLoc, func(p *nodePlan, ns *nodeState, i bir.InstID, k int, out bool, lay *footprint.APLayout) {
		g := p.groups[p.groupOf(ns, lay.PartFirst)]
		if g.pmin < 0 {
			g.pmin, g.pmax, g.ref, g.hi = lay.PartMin(), lay.PartMax(), lay.PartFirst, lay.ElemHi
		}
		g.pmin = min(g.pmin, lay.PartMin())
		g.pmax = max(g.pmax, lay.PartMax())
		g.hi = max(g.hi, lay.ElemHi)
		g.stride = affine.GCD(g.stride, lay.PartFirst-g.ref)
		if lay.PartCount > 1 {
			g.stride = affine.GCD(g.stride, lay.PartStep)
		}
		if !out {
			g.reads++
			g.writers = nil
		} else if g.reads == 0 {
			if len(g.writers) < maxDeadWriters {
				if len(g.writers) == 0 || g.writers[len(g.writers)-1] != i {
					g.writers = append(g.writers, i)
				}
			} else {
				g.overflow = true
			}
		}
	})
	for _, p := range s.plans {
		for _, g := range p.groups {
			if g.stride == 0 {
				g.stride = 1
			}
		}
	}
}

// finish is the end of analyze for a plan: the trigger for strided
// locations, the per-group SB fit (isValidForSB), the knobs, and the dead
// groups. It reports whether the location splits.
func (s *splitter) finish(p *nodePlan) bool {
	f := s.f
	l := p.loc
	lc := f.Loc(l)
	ns := &s.nodes[l]
	switch {
	case len(p.groups) > 1:
	case p.toSB:
		s.locf(l, "INFO (VNSPlitter): %s is a candidate to move from DRAM to SB", lc.Name)
	case len(p.groups) == 1 && p.groups[0].count() < lc.Partitions:
		s.locf(l, "WARNING: ML %s has unused partitions! old: %d ; new: %d", lc.Name, lc.Partitions, p.groups[0].count())
	default:
		return false // one group over every partition: nothing to carve
	}
	if lim := s.opt.PerSplitLimit; s.opt.TooManyPieces(int64(len(p.groups))) {
		s.locf(l, "VNSplitter: not splitting %s Do not split the vn if this would result in any of the splits having to be placed in DRAM (due to perSplitLimit exceeded): %d pieces, perSplitLimit = %d", lc.Name, len(p.groups), lim)
		return false
	}
	mt := lc.Type
	if p.toSB {
		mt = bir.MemSB
	}
	var sumElems int64
	for _, g := range p.groups {
		ok, why := s.isValidForSB(l, g, mt, int64(ns.ds))
		if !ok {
			// The seed's line also carries the running node count against
			// vn_limit ("exceed vn limit = <n> v.s. limit=<lim>"); that
			// count is known only when the pieces are made (PASS B, which
			// prints it), so this line says only what failed.
			s.locf(l, "apGroup id %d : isValidForSB = false", g.id)
			s.locf(l, "VNSplitter: not splitting %s because group %d %s", lc.Name, g.id, why)
			return false
		}
		sumElems += g.hi + 1
	}
	dup := float64(sumElems) / float64(ns.e)
	if len(p.groups) > 1 {
		s.locf(l, "%s: %d groups, elts/partition duplicated (%.2f x)", lc.Name, len(p.groups), dup)
	}
	if s.opt.RatioExceeded(dup) {
		s.locf(l, "VNSplitter: not splitting %s because elts/partition duplicated (%.2f x) exceeds ratio %.2f", lc.Name, dup, s.opt.Ratio)
		return false
	}
	for _, g := range p.groups {
		if g.reads > 0 || g.overflow {
			continue
		}
		dead := true
		for _, i := range g.writers {
			if !s.removable(i) {
				dead = false
				break
			}
		}
		g.dead = dead
	}
	return true
}

// isValidForSB is ApGroup::isValidForSB: the partition gate and the byte
// gate. The seed's partition gate fails when "partitionDim >=
// partitionCount" (cmp; jge), comparing a 0-based value with the count;
// narwhal reads it as the group's highest partition, relative to the
// piece's first, so a group may span all the partitions but not more
// (count > partitions fails): a piece of exactly 128 partitions fits the
// array, and rejecting it would leave every full-height group unsplittable.
func (s *splitter) isValidForSB(l bir.LocID, g *apGroup, mt bir.MemoryType, ds int64) (bool, string) {
	ok, parts, why := s.geo.IsValidForSB(g.count(), g.hi, ds, mt)
	if !ok && parts {
		s.locf(l, "ERR: channel count > %d channels.", s.geo.Partitions)
		why = fmt.Sprintf("spans %d partitions (partitions %d..%d step %d), more than %d", g.count(), g.pmin, g.pmax, g.stride, s.geo.Partitions)
	}
	return ok, why
}

// removable reports whether instruction i may be deleted when its only
// output is never read: one output, an opcode with no other effect, and
// no dependency on it (keep-alive).
func (s *splitter) removable(i bir.InstID) bool {
	f := s.f
	in := f.Inst(i)
	if in.NOuts != 1 || in.Op.IsLoop() {
		return false
	}
	if bir.InstAccumulator(in.Op, f.Attrs(i)) != bir.NoAccumulator {
		return false // it also updates an engine accumulator
	}
	switch in.Op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA, bir.OpTensorTensor, bir.OpTensorScalar, bir.OpTensorScalarPtr,
		bir.OpTensorCopy, bir.OpMemset, bir.OpIota, bir.OpTensorReduce, bir.OpTranspose, bir.OpReciprocal:
	case bir.OpActivation:
	case bir.OpDMACopy:
		if !footprint.ReachOf(f, i).Followed() {
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

// makePieces is the first half of VNSplitter::split: one location and
// tensor per live group.
func (s *splitter) makePieces(p *nodePlan) error {
	f := s.f
	lc := *f.Loc(p.loc)
	ts := *f.Tensor(lc.Tensor)
	ds := int64(s.nodes[p.loc].ds)
	mt := lc.Type
	if p.toSB {
		mt = bir.MemSB
	}
	class := bir.ClassNeuronSBTensor
	if mt == bir.MemPSUM {
		class = bir.ClassNeuronPSUMTensor
	}
	pieces := 0
	for k, g := range p.groups {
		g.loc = bir.NoLoc
		if g.dead {
			continue
		}
		ne := g.hi + 1
		locName := f.UniqueLocName(lc.Name + "_VN_" + strconv.Itoa(k))
		tid, err := f.AddTensor(bir.Tensor{Name: f.UniqueTensorName(locName + "_set"), Kind: bir.KindInternal, Class: class, AddrSpace: ts.AddrSpace,
			Dtype: ts.Dtype, Shape: []int64{g.count(), ne}, File: ts.File, NoSpill: ts.NoSpill, Volatile: ts.Volatile, Virtual: ts.Virtual})
		if err != nil {
			return f.LocErrorf(p.loc, "%v", err)
		}
		id, err := f.AddLoc(tid, bir.MemLoc{Name: locName, Type: mt, Partitions: g.count(), Bytes: ne * ds, Bank: lc.Bank, Extra: lc.Extra})
		if err != nil {
			return f.LocErrorf(p.loc, "%v", err)
		}
		g.loc = id
		pieces++
		s.logf("INFO (VNSplitter): %s group %d (partitions %d..%d step %d, %d elements per partition) -> %s", lc.Name, k, g.pmin, g.pmax, g.stride, ne, locName)
	}
	if p.toSB {
		s.logf("INFO (VNSPlitter): Moved %s from DRAM to SB (%d piece(s))", lc.Name, pieces)
	}
	s.st.Split++
	s.st.Pieces += pieces
	return nil
}

// sweepRepoint is sweep 4, the second half of VNSplitter::split: every
// access of a split location repointed onto its group's piece
// (normalizeOffsetToNewNode, the partition pair rescaled); the writers of
// dead groups removed; the originals removed.
func (s *splitter) sweepRepoint() {
	f, m := s.f, s.m
	type deadWriter struct {
		i bir.InstID
		l bir.LocID
	}
	var dead []deadWriter
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			return true
		}
		n := int(in.NIns) + int(in.NOuts)
		for k := 0; k < n; k++ {
			o := f.Operands(i)[k]
			if o.Kind != bir.OpdPhysAP {
				continue
			}
			p, ok := s.planOf[o.Loc()]
			if !ok {
				continue
			}
			ns := &s.nodes[o.Loc()]
			g := p.groups[p.groupOf(ns, o.Offset/ns.e)]
			if g.dead {
				dead = append(dead, deadWriter{i, o.Loc()})
				continue
			}
			ne := g.hi + 1
			o.Ref = int32(g.loc)
			o.Offset = g.normalizeOffsetToNewNode(o.Offset, ns.e, ne)
			o.Pattern = m.InternPattern(rebasePattern(m.Pattern(o.Pattern), ns.e, ne, g.stride))
			f.SetOperand(i, k, o)
		}
		return true
	})
	slices.SortFunc(dead, func(a, b deadWriter) int { return int(a.i - b.i) })
	dead = slices.CompactFunc(dead, func(a, b deadWriter) bool { return a.i == b.i })
	for _, d := range dead {
		i := d.i
		s.logf("VNSplitter: removed dead instruction %s (it only writes a part of %s nothing reads)", f.InstName(i), f.Loc(d.l).Name)
		f.Remove(i)
		s.st.DeadInsts++
	}
	locs := make([]bir.LocID, 0, len(s.planOf))
	for l := range s.planOf {
		locs = append(locs, l)
	}
	slices.Sort(locs)
	for _, l := range locs {
		s.removeLoc(l)
	}
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
// accesses, except those kept alive. Sweep 1's record of the accesses
// still holds unless dead writers were removed since (the pieces are
// accessed by construction, the split originals are gone): then the uses
// are counted again.
func (s *splitter) removeUnused() {
	f := s.f
	used := s.used
	symUse := s.symUse
	if s.st.DeadInsts > s.deadBefore {
		used = make([]bool, len(s.used))
		symUse = make([]int32, len(s.symUse))
		f.Walk(func(i bir.InstID) bool {
			for _, o := range f.Operands(i) {
				switch o.Kind {
				case bir.OpdPhysAP:
					if l := o.Loc(); int(l) >= 0 && int(l) < len(used) {
						used[l] = true
					}
				case bir.OpdSymAP, bir.OpdRegAP:
					if t := o.TensorRef(); int(t) >= 0 && int(t) < len(symUse) {
						symUse[t] = 1
					}
				}
			}
			return true
		})
	}
	var dead []bir.LocID
	for l := bir.LocID(0); int(l) < len(used); l++ {
		lc := f.Loc(l)
		if lc.Dead || !lc.Type.IsOnChip() || lc.Allocated || lc.Pinned || used[l] {
			continue
		}
		ts := f.Tensor(lc.Tensor)
		if ts.Kind != bir.KindInternal || symUse[lc.Tensor] != 0 || (ts.IsBlock && ts.NBlocks > 1 && len(ts.Locs) == 1) {
			continue // keep-alive: interface, symbolic uses, block template
		}
		dead = append(dead, l)
	}
	for _, l := range dead {
		s.logf("VNSplitter: removed unused location %s", f.Loc(l).Name)
		s.removeLoc(l)
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
func (u *partUF) addProgression(l *footprint.APLayout) {
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
