// Opcode and hardware rules: element-count agreement per opcode
// (semantics.md §1 and §4), memory placement per engine (hardware.md,
// seed 002 §4.4), engine access-pattern encoding, matmul shapes, limits
// and tiles (seed 000), EventSemaphore commands (seed 002 §6.5), indirect
// DMA shapes (seed 001) and the CCE rules (seed 001), plus the
// stage-gated rules on instructions and on used locations. The table in
// the package comment says which rule applies when.

package verify

import (
	"fmt"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// The seeds' verifier strings, verbatim.
const (
	msgGpSimdPSUM       = "GPSIMD engine cannot access PSUM"
	msgGpSimdInstPSUM   = "GPSIMD Instructions cannot access PSUM. Assign to a different Engine or move data to SB."
	msgCustomOpArgs     = "All args to a customop must be located in SBUF or HBM"
	msgCustomOpOuts     = "All of a customop's outputs must be located in SBUF or HBM"
	msgIndirectDims     = "Indirect dimensions must be one less than instruction argument number"
	msgIndexFlattened   = "Compiler middle end must have already flattened IndexAP to be only one AP"
	msgIndexPerPart     = "GenericIndirectLoad/Save must have 1 element per partition for IndexAP"
	msgAddrAP2D         = "indirect DMA's AddrAP should be 2D"
	msgAddrPartitionDim = "Addr Tensor partition dim must match its tensor shape"
	msgCCEDtype         = "Input AP dtype does not match output AP dtype"
	msgCCEShape         = "Input AP shape does not match output AP shape"
	msgSemaphoreLimit   = "EventSemaphore must have <= 2 wait commands, and <= 1 update command"
	msgTooManyWaits     = "Too many sync wait commands"
	msgTooManyUpdates   = "Too many sync update commands"
)

// EventSemaphore limits (seed 002 §6.5).
const (
	maxSemaphoreWaits   = 2
	maxSemaphoreUpdates = 1
)

// engineOp reports whether an opcode runs on a compute engine with
// modelled operand semantics (see the package comment).
func engineOp(info *bir.OpInfo) bool {
	const not = bir.FlagDMA | bir.FlagCall | bir.FlagRegister | bir.FlagNoSemantics | bir.FlagControl |
		bir.FlagSync | bir.FlagDescriptor | bir.FlagCollective
	return info.Flags&not == 0 && info.Flags&(bir.FlagComputes|bir.FlagMovesData) != 0
}

// needsEngine reports whether an opcode must be assigned an engine once
// StageEnginesAssigned holds: every non-DMA instruction that computes or
// moves data.
func needsEngine(info *bir.OpInfo) bool {
	return !info.Has(bir.FlagDMA) && info.Flags&(bir.FlagComputes|bir.FlagMovesData) != 0
}

// poolOnly reports whether the opcode can run only on GpSimd.
func poolOnly(info *bir.OpInfo) bool {
	return info.Engines&^(1<<bir.EngUnassigned) == 1<<bir.EngPool
}

func isHBM(t bir.MemoryType) bool { return t.IsDRAM() }

// shape prints an operand's access as [partitions x elements per partition].
func shape(x *opnd) string {
	if x.onChip {
		return fmt.Sprintf("[%d partitions x %d]", x.parts, x.perPart)
	}
	return fmt.Sprintf("[%d elements]", x.nelems)
}

// rules applies the opcode and hardware rules to instruction i.
func (c *checker) rules(i bir.InstID, info *bir.OpInfo, all []opnd, nIn int, attrsOK bool) {
	ins, outs := all[:nIn], all[nIn:]
	in := c.f.Inst(i)
	op := in.Op
	var attrs bir.AttrSet
	if attrsOK {
		attrs = c.f.Attrs(i)
	}
	eng := engineOp(info)
	pe := op.IsMatmul() || (op == bir.OpTranspose && in.Engine == bir.EngPE)
	allocated := c.stage&StageAllocated != 0
	tiled := c.stage&StageTiled != 0

	// Per-operand rules. The placement rules (partition start, PSUM bank)
	// run at StageAllocated and, before it, on every operand whose
	// location already carries an address (an allocated input).
	psum := c.arch != nil && c.arch.PSUMBankBytes > 0
	for k := range all {
		x := &all[k]
		if !x.isAP {
			continue
		}
		if x.memKnown {
			c.memoryRules(i, in, info, x, eng, pe)
		}
		if x.ok && x.onChip {
			placed := allocated || c.placed(x)
			if eng {
				c.engineAP(i, x, placed, tiled)
			}
			if (eng || pe) && tiled {
				c.freeSize(i, x)
				c.tileSize(i, x, pe)
			}
			if psum && placed && x.mem == bir.MemPSUM && !(pe && x.out && c.arch.MatmulSpansBanks()) {
				c.psumBank(i, x) // a matmul row may span banks where N exceeds a bank (NC-v4)
			}
		}
	}
	if op == bir.OpTensorTensor && len(ins) == 2 && ins[0].mem == bir.MemPSUM && ins[1].mem == bir.MemPSUM {
		c.instDiag(i, "tt-psum", "both inputs are in PSUM (%s, %s): want at most one input in PSUM", c.label(&ins[0]), c.label(&ins[1]))
	}

	switch op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA:
		c.equalTotals(i, ins, outs)
		if op == bir.OpLoad && c.stage&StageStridedLegal != 0 {
			c.stridedLoad(i, ins, outs)
		}
	case bir.OpDMACopy:
		switch attrs.Str("mode", "Copy") {
		case "CCE":
			c.cce(i, attrs, ins, outs)
		case "Copy":
			c.equalTotals(i, ins, outs)
		case "Transpose":
			c.equalTotals(i, ins, outs)
			if attrsOK {
				c.dmaTranspose(i, attrs, ins, outs)
			}
		}
	case bir.OpCopyPredicated:
		if attrsOK && bir.IsSelectReduce(op, attrs) {
			c.selectReduce(i, attrs, ins, outs)
			break
		}
		if len(ins) != 2 || len(outs) != 1 {
			c.instDiag(i, "arity", "%d sources and %d destinations: want [src, predicate] and one destination (tensor_copy_predicated; select_reduce's three sources need the acc attribute)", len(ins), len(outs))
			break
		}
		c.lockstep(i, ins, outs, 2)
		c.copyPredicated(i, ins, outs)
	case bir.OpTensorTensor:
		c.lockstep(i, ins, outs, 2)
	case bir.OpTensorScalar, bir.OpTensorCopy, bir.OpReciprocal, bir.OpTensorScalarAffineSelect:
		c.lockstep(i, ins, outs, 1)
	case bir.OpActivation, bir.OpTensorScalarPtr:
		if attrsOK && bir.IsTensorScalarReduce(op, attrs) {
			c.tensorScalarReduce(i, attrs, ins, outs)
			break
		}
		if attrsOK && bir.IsActivate2(op, attrs) {
			c.activate2(i, attrs, ins, outs)
			break
		}
		if v := bir.Variant(op, attrs); v != "" {
			c.tensorScalarPtrVariant(i, v, attrs, ins, outs)
			break
		}
		c.lockstep(i, ins, outs, 1)
		c.scalars(i, ins, outs)
		if op == bir.OpActivation && attrsOK {
			c.actReduce(i, attrs)
		}
		if op == bir.OpActivation && len(ins) >= 2 && !ins[1].isAP {
			// "In NeuronCore-v2, the bias must be a [N, 1] vector".
			c.ncVersion(i, arch.LevelTrn2, "an immediate Activation bias", "NeuronCore-v3")
		}
	case bir.OpTranspose:
		c.transpose(i, in.Engine, ins, outs)
	case bir.OpMax, bir.OpMaxIndex, bir.OpMatchReplace:
		c.max8Family(i, op, attrs, attrsOK, ins, outs)
	case bir.OpTensorScalarCache:
		c.tensorScalarCumulative(i, attrs, ins, outs)
	case bir.OpRangeSelect:
		c.rangeSelect(i, attrs, ins, outs)
	case bir.OpExponential:
		c.exponential(i, attrs, ins, outs)
	case bir.OpIndirectCopy:
		c.localGather(i, attrs, ins, outs)
	case bir.OpGather:
		c.nGather(i, ins, outs)
	case bir.OpStreamShuffle:
		c.streamShuffle(i, attrs, attrsOK, ins, outs)
	case bir.OpGetSequenceBounds:
		c.sequenceBounds(i, ins, outs)
	case bir.OpNonzeroWithCount:
		c.nonzeroWithCount(i, ins, outs)
	case bir.OpMatmult, bir.OpMatmultBase, bir.OpMatmultSymbolic:
		c.matmul(i, attrs, attrsOK, ins, outs)
	case bir.OpTensorReduce:
		if attrsOK && bir.IsPartitionReduce(op, attrs) {
			c.partitionReduce(i, in, attrs, ins, outs)
			break
		}
		c.tensorReduce(i, attrs, attrsOK, ins, outs)
	case bir.OpIota:
		c.iota(i, attrs, attrsOK, outs)
	case bir.OpMemset:
		if attrsOK {
			c.memset(i, attrs)
		}
	case bir.OpEventSemaphore:
		if attrsOK {
			c.semaphore(i, attrs)
		}
	case bir.OpGenericIndirectLoad, bir.OpGenericIndirectSave:
		c.checkIndirectShape(i, attrs, attrsOK, ins)
		if c.stage&StageIndirectLowered != 0 {
			c.instDiag(i, "indirect-lowered", "%s remains: want it lowered to ReadVarAddr/TensorScalarPtr/Memset/Indirect%s (lower_generic_indirect)",
				op, map[bool]string{true: "Load", false: "Save"}[op == bir.OpGenericIndirectLoad])
		}
	case bir.OpIndirectLoad, bir.OpIndirectSave:
		c.checkTensorIndirection(i, op, ins)
	case bir.OpCompareAndBranch, bir.OpUnconditionalBranch:
		if attrsOK {
			c.branches = append(c.branches, i) // resolved after the walk (branchTargets)
		}
	}

	if attrsOK {
		c.variantEngine(i, in, info, attrs)
	}
	if c.stage&StageEnginesAssigned != 0 && in.Engine == bir.EngUnassigned && needsEngine(info) {
		c.instDiag(i, "engine-assigned", "engine Unassigned: want one of %s (engines are assigned)", engineList(info.Engines&^(1<<bir.EngUnassigned)))
	}
}

// tileSize: after tiling (StageTiled) a compute-engine operand accesses
// at most pmax partitions (rule tile-partitions) and a PSUM access stays
// within one bank's bytes per partition (rule psum-tile; hardware.md "A
// PSUM tile never spans banks", seed 002 §2.1's tile ceiling), except a
// matmul destination row on a generation whose moving free size exceeds
// a bank (arch.MatmulSpansBanks). Without addresses this is the size
// half of the psum-bank rule, which checks the placement once allocated.
func (c *checker) tileSize(i bir.InstID, x *opnd, pe bool) {
	a := c.arch
	if a == nil {
		return
	}
	if pm := a.Tile.PMax; pm > 0 && x.parts > pm {
		c.instLocDiag(i, x.loc, "tile-partitions", "%s accesses %d partitions: want at most %d (pmax, one instruction; sunda_size_tiling tiles larger operations)", c.label(x), x.parts, pm)
	}
	if x.mem == bir.MemPSUM && a.PSUMBankBytes > 0 && !(pe && x.out && a.MatmulSpansBanks()) {
		if b := x.perPart * x.dtype.Size(); b > a.PSUMBankBytes {
			c.instLocDiag(i, x.loc, "psum-tile", "%s accesses %d bytes per partition in PSUM: want at most %d (one PSUM bank; a PSUM tile never spans banks)", c.label(x), b, a.PSUMBankBytes)
		}
	}
}

// freeSize: a compute-engine operand accesses at most 64K elements per
// partition in SBUF and 4K in PSUM (hardware.md "NKI tile-size
// constants": "Free dimension up to 64K elements in SBUF, 4K in PSUM";
// arch.TileConstants).
func (c *checker) freeSize(i bir.InstID, x *opnd) {
	a := c.arch
	if a == nil || !x.memKnown {
		return
	}
	limit, what := a.Tile.SBUFMaxFreeElems, "SBUF"
	if x.mem == bir.MemPSUM {
		limit, what = a.Tile.PSUMMaxFreeElems, "PSUM"
	}
	if limit > 0 && x.perPart > limit {
		c.instLocDiag(i, x.loc, "free-size", "%s accesses %d elements per partition in %s: want at most %d (the free size of one %s access)", c.label(x), x.perPart, x.mem, limit, what)
	}
}

// actReduce: the Activation accumulator's reduction is add only on
// NC-v2; max and min need activate2 (semantics.md §4.6,
// arch.Model.ActReduceMaxMin). An instruction that does not accumulate
// (acc Idle) is not bound by its reduce_op.
func (c *checker) actReduce(i bir.InstID, attrs bir.AttrSet) {
	if c.arch == nil || c.arch.ActReduceMaxMin {
		return
	}
	if acc := attrs.Str("acc", "Idle"); acc == "" || acc == "Idle" || acc == "idle" {
		return
	}
	if op := attrs.Str("reduce_op", "add"); op != "add" && op != "" {
		c.instDiag(i, "act-reduce", "reduce_op %q with acc %q: want add, the only reduction of the Activation accumulator on %s (%s)", op, attrs.Str("acc", ""), c.arch.Name, c.arch.Core)
	}
}

// stridedLoad: after legalize_strided_dma (StageStridedLegal) a Load from
// DRAM has a partition-contiguous source (arch.PartitionContiguous). The
// pass leaves a partition-strided load alone when its thresholds fail -
// seed 001: "If R2 or R4 fails, the load is left unmodified - deferred to
// the verifier / later legalization rather than rewritten" - and this is
// that deferred check: narwhal has no later legalization.
func (c *checker) stridedLoad(i bir.InstID, ins, outs []opnd) {
	if len(ins) != 1 || len(outs) != 1 {
		return
	}
	s := &ins[0]
	if !s.isAP || !s.hasPF || !s.memKnown || !isHBM(s.mem) || !outs[0].onChip {
		return
	}
	if p := c.m.Pattern(s.pat); !arch.PartitionContiguous(p) {
		c.instDiag(i, "strided-load", "%s: access pattern %s gives a partition more than one run of DRAM: want a partition-contiguous source after legalize_strided_dma (it leaves a Load alone when the destination's base partition is not /32-aligned (R2), the staging tile exceeds the SBUF budget (R4) or the destination is not an engine-copyable operand (R1); see the pass log)",
			c.label(s), patternText(p))
	}
}

// memoryRules are the per-operand placement rules.
func (c *checker) memoryRules(i bir.InstID, in *bir.Instruction, info *bir.OpInfo, x *opnd, eng, pe bool) {
	op := in.Op
	if eng && !x.onChip && isHBM(x.mem) {
		c.instLocDiag(i, x.loc, "onchip-operand", "%s is in %s: want SB or PSUM (compute engines access on-chip memory only)", c.label(x), x.mem)
	}
	if op == bir.OpCustomOp {
		if x.mem != bir.MemSB && x.mem != bir.MemOnChip && !isHBM(x.mem) {
			msg := msgCustomOpArgs
			if x.out {
				msg = msgCustomOpOuts
			}
			c.instLocDiag(i, x.loc, "customop-memory", "%s: want SB or DRAM, have %s in %s", msg, c.label(x), x.mem)
		}
	} else if x.mem == bir.MemPSUM {
		if in.Engine == bir.EngPool {
			c.instLocDiag(i, x.loc, "gpsimd-psum", "%s (want %s in SB, have PSUM)", msgGpSimdInstPSUM, c.label(x))
		} else if in.Engine == bir.EngUnassigned && poolOnly(info) {
			c.instLocDiag(i, x.loc, "gpsimd-psum", "%s: %s runs only on GpSimd (want %s in SB, have PSUM)", msgGpSimdPSUM, c.m.OpName(op), c.label(x))
		}
	}
	if pe && x.mem != bir.MemOnChip { // OnChip: infer_psum_tensor places it for the PE
		if !x.out && x.mem != bir.MemSB {
			c.instLocDiag(i, x.loc, "pe-memory", "the Tensor engine reads only SBUF: want %s in SB, have %s", c.label(x), x.mem)
		}
		if x.out && x.mem != bir.MemPSUM {
			c.instLocDiag(i, x.loc, "pe-memory", "the Tensor engine writes only PSUM: want %s in PSUM, have %s", c.label(x), x.mem)
		}
	}
	if info.Has(bir.FlagDMA) && !x.out && x.mem == bir.MemPSUM {
		c.instLocDiag(i, x.loc, "dma-psum", "DMA cannot read PSUM: want %s in SB or DRAM, have PSUM", c.label(x))
	}
}

// engineAP checks a compute-engine on-chip AP: encoding limits (at
// StageTiled: a macro operation's free pair may exceed them before
// tiling), partition contiguity (before StageTiled pair 0 may broadcast
// with step 0, a macro operation's partition broadcast) and (once
// placed) the partition-start rule.
func (c *checker) engineAP(i bir.InstID, x *opnd, placed, tiled bool) {
	if !x.ok || !x.onChip || x.e <= 0 {
		return
	}
	pf := &c.pats[x.pat]
	if a := c.arch; a != nil {
		if pf.npairs-1 > a.MaxFreeDims {
			c.instDiag(i, "engine-ap", "%s: %d free dimensions: want at most %d (plus the partition dimension)", c.label(x), pf.npairs-1, a.MaxFreeDims)
		}
		if tiled && pf.npairs > 1 && (pf.maxFreeNum > a.MaxAPNum || pf.minFreeStep < a.MinAPStep || pf.maxFreeStep > a.MaxAPStep) {
			c.instDiag(i, "engine-ap", "%s: access pattern %s: want free nums <= %d and steps in [%d, %d] (uint16 sizes, int16 strides)",
				c.label(x), patternText(c.m.Pattern(x.pat)), a.MaxAPNum, a.MinAPStep, a.MaxAPStep)
		}
	}
	if pf.p0num > 1 && pf.p0step != x.e && !(pf.p0step == 0 && !tiled) {
		c.instDiag(i, "partition-stride", "%s: partition step %d: want %d, the location's elements per partition (engine access patterns are partition-contiguous)", c.label(x), pf.p0step, x.e)
		return
	}
	if x.offConst {
		r := floorMod(x.off, x.e)
		if r+pf.minFree < 0 || r+pf.maxFree >= x.e {
			c.instDiag(i, "partition-stride", "%s: free pattern reaches elements [%d, %d] of its partition: want within [0, %d)", c.label(x), r+pf.minFree, r+pf.maxFree, x.e)
			return
		}
	} else if pf.maxFree-pf.minFree >= x.e {
		c.instDiag(i, "partition-stride", "%s: free pattern spans %d elements: want fewer than %d, the elements per partition", c.label(x), pf.maxFree-pf.minFree+1, x.e)
		return
	}
	if !placed {
		return
	}
	if p, ok := c.startPartition(x); ok && !arch.LegalPartitionStart(int(p), int(x.parts)) {
		c.instLocDiag(i, x.loc, "partition-start", "%s: invalid access of %d partitions starting at partition %d: want start %s",
			c.label(x), x.parts, p, arch.PartitionStartsText(int(x.parts)))
	}
}

// floorMod and floorDiv are floored division by d > 0, with a fast path
// for the common 0 <= a < d (an access within the first partition row).
func floorMod(a, d int64) int64 {
	if a >= 0 && a < d {
		return a
	}
	m := a % d
	if m < 0 {
		m += d
	}
	return m
}

func floorDiv(a, d int64) int64 {
	if a >= 0 && a < d {
		return 0
	}
	q := a / d
	if a%d != 0 && a < 0 {
		q--
	}
	return q
}

// accessLoc returns the location an AP's constant block resolves to.
func (c *checker) accessLoc(x *opnd) (bir.LocID, bool) {
	switch x.kind {
	case bir.OpdPhysAP:
		return x.loc, c.validLoc(x.loc)
	case bir.OpdSymAP:
		if !x.blockConst || !c.validTensor(x.tensor) {
			return bir.NoLoc, false
		}
		return c.locForBlock(x.tensor, x.block)
	}
	return bir.NoLoc, false
}

// locForBlock is bir.Function.LocForBlock with every id range-checked:
// the location whose tensor id is b, or the single template location of a
// block tensor whose per-block locations are not generated yet.
func (c *checker) locForBlock(t bir.TensorID, b int64) (bir.LocID, bool) {
	ts := c.f.Tensor(t)
	for _, l := range ts.Locs {
		if c.validLoc(l) && c.f.Loc(l).TensorIdx == b {
			return l, true
		}
	}
	if len(ts.Locs) == 1 && c.validLoc(ts.Locs[0]) && b >= 0 && b < max(ts.NBlocks, 1) {
		return ts.Locs[0], true
	}
	return bir.NoLoc, false
}

// placed reports whether the location an AP resolves to carries an
// address (Allocated): the placement rules then apply before
// StageAllocated too (an input that arrives allocated, such as a KLR
// kernel).
func (c *checker) placed(x *opnd) bool {
	l, ok := c.accessLoc(x)
	return ok && c.f.Loc(l).Allocated
}

// startPartition returns the first partition an on-chip AP touches:
// base + offset / E (design.md's addressing model).
func (c *checker) startPartition(x *opnd) (int64, bool) {
	if !x.offConst || x.e <= 0 {
		return 0, false
	}
	l, ok := c.accessLoc(x)
	if !ok {
		return 0, false
	}
	return c.f.Loc(l).Base + floorDiv(x.off, x.e), true
}

// psumBank checks that a PSUM access stays in one bank on every partition.
func (c *checker) psumBank(i bir.InstID, x *opnd) {
	if !x.ok || x.mem != bir.MemPSUM || !x.offConst || x.e <= 0 {
		return
	}
	l, ok := c.accessLoc(x)
	if !ok {
		return
	}
	lc := c.f.Loc(l)
	if !lc.Allocated {
		return // reported by the allocated rule
	}
	// In-partition element range: pairs whose step is a multiple of E move
	// across partitions only; the others move inside the partition and must
	// not wrap into the next one.
	r := floorMod(x.off, x.e)
	lo, hi := r, r
	for _, q := range c.m.Pattern(x.pat) {
		if q.Step%x.e == 0 {
			continue
		}
		span := q.Step * (q.Num - 1) // bounded by the pattern facts
		if span >= 0 {
			hi += span
		} else {
			lo += span
		}
	}
	if lo < 0 || hi >= x.e {
		c.instLocDiag(i, l, "psum-bank", "%s: the access wraps across partitions (elements [%d, %d] of a %d-element partition): want each partition's bytes within one PSUM bank", c.label(x), lo, hi, x.e)
		return
	}
	dsz := x.dtype.Size()
	bank := c.arch.PSUMBankBytes
	base := c.arch.PSUMAddress(lc.Bank, lc.Addr)
	first, last := base+lo*dsz, base+(hi+1)*dsz-1
	if first/bank != last/bank {
		c.instLocDiag(i, l, "psum-bank", "%s: bytes [%d, %d] of each partition span PSUM banks %d..%d: want one %d-byte bank (a PSUM tile never spans banks)",
			c.label(x), first, last, first/bank, last/bank, bank)
	}
}

// ---- element counts ----

// equalTotals: DMA moves elements in order; only totals must agree
// (semantics.md §1, §4.1).
func (c *checker) equalTotals(i bir.InstID, ins, outs []opnd) {
	if len(outs) == 0 || !outs[0].ok {
		return
	}
	d := &outs[0]
	for k := range ins {
		if s := &ins[k]; s.ok && s.nelems != d.nelems {
			c.instDiag(i, "elem-count", "%s has %d elements, %s has %d: want equal element counts", c.label(s), s.nelems, c.label(d), d.nelems)
		}
	}
}

// lockstep: the first n sources and the destination walk in lockstep on a
// compute engine: equal partitions and equal elements per partition
// (equal totals when an operand is off-chip, which onchip-operand reports).
func (c *checker) lockstep(i bir.InstID, ins, outs []opnd, n int) {
	if len(outs) == 0 || !outs[0].ok {
		return
	}
	d := &outs[0]
	for k := 0; k < n && k < len(ins); k++ {
		s := &ins[k]
		if !s.ok || !s.isAP {
			continue
		}
		if s.onChip && d.onChip {
			if s.parts != d.parts || s.perPart != d.perPart {
				c.instDiag(i, "elem-count", "%s is %s, %s is %s: want equal partitions and elements per partition", c.label(s), shape(s), c.label(d), shape(d))
			}
		} else if s.nelems != d.nelems {
			c.instDiag(i, "elem-count", "%s has %d elements, %s has %d: want equal element counts", c.label(s), s.nelems, c.label(d), d.nelems)
		}
	}
}

// scalars: Activation's bias/scale and TensorScalarPtr's scalar operands
// are [P,1] per-partition vectors (semantics.md §4.5, §4.6).
func (c *checker) scalars(i bir.InstID, ins, outs []opnd) {
	if len(outs) == 0 || !outs[0].ok || !outs[0].onChip {
		return
	}
	d := &outs[0]
	for k := 1; k < len(ins); k++ {
		s := &ins[k]
		if !s.ok || !s.onChip {
			continue
		}
		if s.parts != d.parts || s.perPart != 1 {
			c.instDiag(i, "elem-count", "%s is %s: want [%d partitions x 1], a per-partition scalar for %s", c.label(s), shape(s), d.parts, c.label(d))
		}
	}
}

func (c *checker) transpose(i bir.InstID, eng bir.Engine, ins, outs []opnd) {
	if len(ins) == 0 || len(outs) == 0 || !ins[0].ok || !outs[0].ok {
		return
	}
	s, d := &ins[0], &outs[0]
	switch {
	case eng == bir.EngPE && s.onChip && d.onChip:
		if d.parts != s.perPart || d.perPart != s.parts {
			c.instDiag(i, "elem-count", "%s is %s, %s is %s: want the destination [%d partitions x %d] (a PE transpose maps [P,F] to [F,P])",
				c.label(s), shape(s), c.label(d), shape(d), s.perPart, s.parts)
		}
	case eng == bir.EngDVE && s.onChip && d.onChip && s.parts <= 32 && s.perPart <= 32 && (s.parts != 32 || s.perPart != 32):
		// nc_transpose on Vector: "[32, 32] or smaller", one block.
		if d.parts != s.perPart || d.perPart != s.parts {
			c.instDiag(i, "elem-count", "%s is %s, %s is %s: want the destination [%d partitions x %d] (a Vector-engine transpose of at most 32x32 maps [P,F] to [F,P])",
				c.label(s), shape(s), c.label(d), shape(d), s.perPart, s.parts)
		}
	case eng == bir.EngDVE && s.onChip && d.onChip:
		if s.parts != d.parts || s.perPart != d.perPart || s.parts%32 != 0 || s.perPart%32 != 0 {
			c.instDiag(i, "elem-count", "%s is %s, %s is %s: want equal shapes whose partitions and elements per partition are multiples of 32 (the Vector engine transposes 32x32 blocks)",
				c.label(s), shape(s), c.label(d), shape(d))
		}
	default:
		c.equalTotals(i, ins[:1], outs[:1])
	}
}

func (c *checker) matmul(i bir.InstID, attrs bir.AttrSet, attrsOK bool, ins, outs []opnd) {
	if len(ins) < 2 || len(outs) < 1 {
		return
	}
	st, mv, d := &ins[0], &ins[1], &outs[0]
	if !st.ok || !mv.ok || !d.ok || !st.onChip || !mv.onChip || !d.onChip {
		return
	}
	r := int64(1)
	if attrsOK && attrs.Str("perf_mode", "None") == "DoubleRow" {
		r = 2 // dst[m,n] = sum over k and l in {0,1} of stat[k,l,m] mov[k,l,n] (semantics.md §4.7)
	}
	K := st.parts
	if mv.parts != K {
		c.instDiag(i, "elem-count", "moving %s has %d partitions, stationary %s has %d: want equal (the contraction dimension K)", c.label(mv), mv.parts, c.label(st), K)
		return
	}
	if st.perPart%r != 0 || mv.perPart%r != 0 {
		c.instDiag(i, "elem-count", "perf_mode DoubleRow: stationary %s and moving %s free sizes %d and %d: want even", c.label(st), c.label(mv), st.perPart, mv.perPart)
		return
	}
	if is32(st.dtype) != is32(mv.dtype) {
		c.instDiag(i, "matmul-dtype", "stationary %s is %s, moving %s is %s: want fp32/tf32 only with fp32/tf32 (semantics.md §4.7)", c.label(st), st.dtype, c.label(mv), mv.dtype)
	}
	M, N := st.perPart/r, mv.perPart/r
	if d.parts != M || d.perPart != N {
		c.instDiag(i, "elem-count", "%s is %s: want [%d partitions x %d] = [M x N] for stationary [K=%d, M=%d] and moving [K=%d, N=%d]",
			c.label(d), shape(d), M, N, K, M, K, N)
		return
	}
	isTranspose := attrsOK && attrs.Bool("is_transpose", false)
	if a := c.arch; a != nil {
		// The size limits hold for one instruction: a macro matmul
		// (docs/bir-json.md) exceeds them until sunda_size_tiling.
		tiled := c.stage&StageTiled != 0
		if tiled && K > a.Partitions {
			c.instDiag(i, "matmul-limits", "K = %d partitions: want <= %d", K, a.Partitions)
		}
		if tiled && M > a.Tile.GemmStationaryFMax {
			c.instDiag(i, "matmul-limits", "M = %d (stationary free size): want <= %d (gemm_stationary_fmax)", M, a.Tile.GemmStationaryFMax)
		}
		if !isTranspose {
			if maxN := a.MatmulMaxN(d.dtype); maxN == 0 {
				c.instDiag(i, "matmul-limits", "%s dtype: want %s (what the Tensor engine of %s writes), have %s", c.label(d), matmulDstText(a), a.Name, d.dtype)
			} else if tiled && N > maxN {
				c.instDiag(i, "matmul-limits", "N = %d (moving free size) with a %s destination: want <= %d on %s", N, d.dtype, maxN, a.Name)
			}
		}
	}
	if !attrsOK {
		return
	}
	// Tile position and size (seed 000 getLegalTilePosition/getLegalTileSize).
	p0, p1, hasPos, okPos := arch.TilePair(attrs, "tile_position")
	s0, s1, hasSize, okSize := arch.TilePair(attrs, "tile_size")
	if !okPos || !okSize {
		c.instDiag(i, "attr", "tile_position/tile_size: want [row, column] integer pairs")
		return
	}
	posSet := hasPos && !(p0 == -1 && p1 == -1)
	sizeSet := hasSize && !(s0 == -1 && s1 == -1)
	if !posSet && !sizeSet {
		return
	}
	if posSet != sizeSet {
		c.instDiag(i, "tile-size", "tile_position %s and tile_size %s: want both set or both [-1, -1]", pairText(p0, p1, posSet), pairText(s0, s1, sizeSet))
		return
	}
	bad := false
	for _, t := range [2][2]int64{{p0, s0}, {p1, s1}} {
		if !arch.IsValidTileSize(int(t[0]), int(t[1])) {
			c.instDiag(i, "tile-size", "tile at position %d with size %d: want a size in validTileSizes (0:{32,64,128}, 32:{32}, 64:{32,64}, 96:{32})", t[0], t[1])
			bad = true
		}
	}
	if bad {
		return
	}
	if K > s0 || M > s1 {
		c.instDiag(i, "tile-size", "K = %d, M = %d: want K <= %d and M <= %d, the tile_size", K, M, s0, s1)
	}
	allocated := c.stage&StageAllocated != 0
	if pm, ok := c.startPartition(mv); ok && pm != p0 && (allocated || c.placed(mv)) {
		c.instDiag(i, "tile-position", "moving %s starts at partition %d: want tile_position row %d", c.label(mv), pm, p0)
	}
	if pd, ok := c.startPartition(d); ok && pd != p1 && (allocated || c.placed(d)) {
		c.instDiag(i, "tile-position", "%s starts at partition %d: want tile_position column %d", c.label(d), pd, p1)
	}
}

// is32 reports whether a matmul input dtype is fp32 or tf32 (float32r),
// which pair only with each other.
func is32(d bir.Dtype) bool { return d == bir.Float32 || d == bir.Float32R }

func pairText(a, b int64, set bool) string {
	if !set {
		return "unset"
	}
	return fmt.Sprintf("[%d, %d]", a, b)
}

func matmulDstText(a *arch.Model) string {
	if a.MatmulMaxNBF16Dst > 0 {
		return "float32 or bfloat16"
	}
	return "float32"
}

// reducedAxes maps TensorReduce's axis attribute to the number of trailing
// free dimensions it reduces (semantics.md §4.13).
var reducedAxes = map[string]int{"X": 1, "XY": 2, "XYZ": 3, "XYZW": 4}

func (c *checker) tensorReduce(i bir.InstID, attrs bir.AttrSet, attrsOK bool, ins, outs []opnd) {
	if !attrsOK || len(ins) < 1 || len(outs) < 1 {
		return
	}
	axis := attrs.Str("axis", "")
	n, ok := reducedAxes[axis]
	if !ok {
		c.instDiag(i, "attr", "axis %q: want X, XY, XYZ or XYZW (trailing free dimensions) or C (the partitions: tensor_partition_reduce, on GpSimd)", axis)
		return
	}
	s, d := &ins[0], &outs[0]
	if !s.ok || !d.ok || !s.onChip || !d.onChip {
		return
	}
	if s.parts != d.parts {
		c.instDiag(i, "elem-count", "%s is %s, %s is %s: want equal partitions", c.label(s), shape(s), c.label(d), shape(d))
		return
	}
	p := c.m.Pattern(s.pat)
	free := len(p) - 1
	if n > free {
		c.instDiag(i, "elem-count", "axis %s reduces %d free dimensions: want <= the free dimensions of %s, have %d", axis, n, c.label(s), free)
		return
	}
	kept := int64(1)
	for _, q := range p[1 : 1+free-n] {
		kept *= q.Num
	}
	if d.perPart != kept {
		c.instDiag(i, "elem-count", "%s has %d elements per partition: want %d, the product of %s's dimensions kept by axis %s", c.label(d), d.perPart, kept, c.label(s), axis)
	}
}

func (c *checker) iota(i bir.InstID, attrs bir.AttrSet, attrsOK bool, outs []opnd) {
	if !attrsOK {
		return
	}
	v, has := attrs.Get("pattern")
	if !has {
		c.instDiag(i, "attr", "pattern missing: want a list of {step, num} pairs")
		return
	}
	if v.Kind != bir.ValList {
		c.instDiag(i, "attr", "pattern: want a list of {step, num} pairs")
		return
	}
	prod := int64(1)
	for k, e := range v.L {
		nv, ok := e.Get("num")
		n, ok2 := nv.AsInt()
		if e.Kind != bir.ValObject || !ok || !ok2 || n < 1 {
			c.instDiag(i, "attr", "pattern entry %d: want {\"step\": int, \"num\": int >= 1}", k)
			return
		}
		var okm bool
		if prod, okm = mulLimit(prod, n); !okm {
			c.instDiag(i, "attr", "pattern: want an element count representable in 64 bits, have an overflow")
			return
		}
	}
	if len(outs) < 1 || !outs[0].ok || !outs[0].onChip {
		return
	}
	if d := &outs[0]; d.perPart != prod {
		c.instDiag(i, "elem-count", "pattern covers %d elements per partition, %s has %d: want equal", prod, c.label(d), d.perPart)
	}
}

// ---- EventSemaphore ----

// semCommands validates a "waits"/"updates" list and returns its length.
func (c *checker) semCommands(i bir.InstID, attrs bir.AttrSet, key string) int {
	v, has := attrs.Get(key)
	if !has || v.Kind == bir.ValNull {
		return 0
	}
	if v.Kind != bir.ValList {
		c.instDiag(i, "attr", "%s: want a list of {\"semaphore\": int >= 0, \"value\": int}", key)
		return 0
	}
	for k, e := range v.L {
		sv, ok1 := e.Get("semaphore")
		s, ok2 := sv.AsInt()
		vv, ok3 := e.Get("value")
		_, ok4 := vv.AsInt()
		if e.Kind != bir.ValObject || !ok1 || !ok2 || s < 0 || !ok3 || !ok4 {
			c.instDiag(i, "attr", "%s entry %d: want {\"semaphore\": int >= 0, \"value\": int}", key, k)
		}
	}
	return len(v.L)
}

func (c *checker) semaphore(i bir.InstID, attrs bir.AttrSet) {
	if n := c.semCommands(i, attrs, "waits"); n > maxSemaphoreWaits {
		c.instDiag(i, "semaphore", "%s (%s): want <= %d, have %d", msgTooManyWaits, msgSemaphoreLimit, maxSemaphoreWaits, n)
	}
	if n := c.semCommands(i, attrs, "updates"); n > maxSemaphoreUpdates {
		c.instDiag(i, "semaphore", "%s (%s): want <= %d, have %d", msgTooManyUpdates, msgSemaphoreLimit, maxSemaphoreUpdates, n)
	}
}

// ---- indirect DMA (seed 001) ----

// checkIndirectShape is the verifier's check of GenericIndirectLoad/Save:
// ins = [data, IndexAP...], one indirect dim per IndexAP, the IndexAP
// flattened to one AP of one element per partition and at most two
// [step, num] pairs ([partitions] or [partitions, 1]: what
// lower_generic_indirect's checkIndex accepts, with the seed's
// "indirect DMA's AddrAP should be 2D").
func (c *checker) checkIndirectShape(i bir.InstID, attrs bir.AttrSet, attrsOK bool, ins []opnd) {
	dims := 0
	if attrsOK {
		if v, has := attrs.Get("indirect_dims"); has && v.Kind != bir.ValNull {
			if v.Kind != bir.ValList {
				c.instDiag(i, "attr", "indirect_dims: want a list of dimension numbers")
				return
			}
			dims = len(v.L)
		}
	}
	if dims != len(ins)-1 {
		c.instDiag(i, "indirect-shape", "%s: want %d arguments for %d indirect dimensions, have %d arguments", msgIndirectDims, dims+1, dims, len(ins))
		return
	}
	if len(ins)-1 != 1 {
		c.instDiag(i, "indirect-shape", "%s: want 1 IndexAP, have %d", msgIndexFlattened, len(ins)-1)
		return
	}
	x := &ins[1]
	if x.ok && x.onChip && x.perPart != 1 {
		c.instDiag(i, "indirect-shape", "%s: want 1, have %d in %s", msgIndexPerPart, x.perPart, c.label(x))
	}
	if x.hasPF {
		if np := c.pats[x.pat].npairs; np > 2 {
			c.instDiag(i, "indirect-shape", "%s: the IndexAP %s has %d [step, num] pairs: want at most 2 ([partitions, 1])", msgAddrAP2D, c.label(x), np)
		}
	}
}

// checkTensorIndirection is the verifier's check of IndirectLoad/Save's
// address AP: 2-D, and its tensor's partition dimension matching the
// location's partitions. The address is IndirectLoad's ins[0]
// ([addr, index, offset?]) and IndirectSave's ins[1] ([src, addr,
// index?]), the roles interp/indirect.go executes and
// lower_generic_indirect emits.
func (c *checker) checkTensorIndirection(i bir.InstID, op bir.Opcode, ins []opnd) {
	k := 0
	if op == bir.OpIndirectSave {
		k = 1
	}
	if len(ins) <= k || !ins[k].hasPF {
		return
	}
	x := &ins[k]
	if np := c.pats[x.pat].npairs; np != 2 {
		c.instDiag(i, "tensor-indirection", "%s: want 2 [step, num] pairs, have %d in %s (the address AP)", msgAddrAP2D, np, c.label(x))
	}
	if x.loc == bir.NoLoc || !c.validLoc(x.loc) {
		return
	}
	lc := c.f.Loc(x.loc)
	t := lc.Tensor
	if !c.validTensor(t) {
		return
	}
	ts := c.f.Tensor(t)
	if pd := ts.PartitionDim; pd >= 0 && pd < int64(len(ts.Shape)) && ts.Shape[pd] != lc.Partitions {
		c.instDiag(i, "tensor-indirection", "%s: %s (the address AP): tensor %s has shape %v with partition dim %d: want %d partitions, have %d in its location %s", msgAddrPartitionDim, c.label(x), ts.Name, ts.Shape, pd, ts.Shape[pd], lc.Partitions, lc.Name)
	}
}

// ---- CCE DMACopy (seed 001) ----

func (c *checker) cce(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	nConst := 0
	if v, has := attrs.Get("constants"); has && v.Kind != bir.ValNull {
		if v.Kind != bir.ValList {
			c.instDiag(i, "attr", "constants: want a list of per-source scales")
		} else {
			nConst = len(v.L)
			for k, e := range v.L {
				if _, ok := e.AsFloat(); !ok {
					c.instDiag(i, "attr", "constants entry %d: want a number", k)
					break
				}
			}
			if nConst != len(ins) {
				c.instDiag(i, "attr", "constants has %d entries: want one scale per source (%d)", nConst, len(ins))
			}
		}
	}
	if len(outs) > 0 && outs[0].hasPF {
		d := &outs[0]
		dp := c.m.Pattern(d.pat)
		for k := range ins {
			s := &ins[k]
			if !s.hasPF {
				continue
			}
			if s.dtype != d.dtype {
				c.instDiag(i, "cce-shape", "%s: %s: want %s (the dtype of %s), have %s", msgCCEDtype, c.label(s), d.dtype, c.label(d), s.dtype)
			}
			if s.pat != d.pat && !sameShape(c.m.Pattern(s.pat), dp) {
				c.instDiag(i, "cce-shape", "%s: %s: want %v (the shape of %s), have %v", msgCCEShape, c.label(s), dp.Shape(), c.label(d), c.m.Pattern(s.pat).Shape())
			}
		}
	}
	if (c.stage&StageCCELegal != 0 || c.cceAttr) && c.arch != nil {
		// Seed 001: checkCCEDMALegality asserts "I.num_arguments() <=
		// MaxCceDmaSource": the source arguments, not the constants.
		if n := int64(len(ins)); n > c.arch.MaxCceDmaSource {
			why := "stage cce-legal"
			if c.stage&StageCCELegal == 0 {
				why = "function attribute " + cceCompletedAttr
			}
			c.instDiag(i, "cce-sources", "checkCCEDMALegality: %d arguments: want <= MaxCceDmaSource = %d on %s (%s; legalize_cce_dma splits larger copies)",
				n, c.arch.MaxCceDmaSource, c.arch.Name, why)
		}
	}
}

func sameShape(a, b bir.Pattern) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k].Num != b[k].Num {
			return false
		}
	}
	return true
}

// ---- used locations (stage rules) ----

// usedLocations applies sb-fit and the allocation rules to every location
// an instruction reaches.
func (c *checker) usedLocations() {
	f := c.f
	for t := 0; t < c.nTensors; t++ {
		if !bitSet(c.usedTen, t) {
			continue
		}
		for _, l := range f.Tensor(bir.TensorID(t)).Locs {
			if c.validLoc(l) {
				setBit(c.usedLoc, int(l))
			}
		}
	}
	a := c.arch
	for w, word := range c.usedLoc {
		for word != 0 {
			b := word & -word
			word &^= b
			k := w*64 + bits.TrailingZeros64(b)
			l := bir.LocID(k)
			lc := f.Loc(l)
			if lc.Dead {
				continue
			}
			if c.stage&StageAllocated != 0 {
				switch lc.Type {
				case bir.MemUnallocated:
					c.locDiag(l, "allocated", "memory type Unallocated: want a placed memory (SB, PSUM or DRAM)")
					continue
				case bir.MemOnChip:
					c.locDiag(l, "allocated", "memory type OnChip (placement open): want SB or PSUM (infer_psum_tensor decides)")
					continue
				}
			}
			if !lc.Type.IsOnChip() || a == nil {
				continue
			}
			if c.stage&StageSBLegal != 0 {
				c.sbFit(l, lc, a)
			}
			// The placement rules hold once memory is allocated, and of
			// any location that arrives with an address.
			if c.stage&StageAllocated != 0 || lc.Allocated && lc.Type != bir.MemOnChip {
				c.allocatedLoc(l, lc, a)
			}
		}
	}
}

func (c *checker) sbFit(l bir.LocID, lc *bir.MemLoc, a *arch.Model) {
	if lc.Partitions > a.Partitions {
		c.locDiag(l, "sb-fit", "%d partitions: want <= %d on %s", lc.Partitions, a.Partitions, a.Name)
	}
	switch lc.Type {
	case bir.MemSB, bir.MemOnChip: // OnChip: sized against SBUF, the larger of its two homes
		if u := a.UsableSBUFBytes(); u > 0 && lc.Bytes > u {
			c.locDiag(l, "sb-fit", "%d bytes per partition: want <= %d, the usable SBUF per partition of %s", lc.Bytes, u, a.Name)
		}
	case bir.MemPSUM:
		if p := a.PSUMBytesPerPartition(); p > 0 && lc.Bytes > p {
			c.locDiag(l, "sb-fit", "%d PSUM bytes per partition: want <= %d (%d banks x %d bytes) on %s", lc.Bytes, p, a.PSUMBanks, a.PSUMBankBytes, a.Name)
		}
	}
}

func (c *checker) allocatedLoc(l bir.LocID, lc *bir.MemLoc, a *arch.Model) {
	if !lc.Allocated {
		c.locDiag(l, "allocated", "%s location not allocated: want allocated set with an address, base partition%s",
			lc.Type, map[bool]string{true: " and bank", false: ""}[lc.Type == bir.MemPSUM])
		return
	}
	if lc.Base < 0 || lc.Partitions < 0 || lc.Addr < 0 || lc.Bank < 0 {
		return // reported by the loc rule
	}
	if lc.Base+lc.Partitions > a.Partitions {
		c.locDiag(l, "allocated", "partitions [%d, %d): want within the %d partitions of %s", lc.Base, lc.Base+lc.Partitions, a.Partitions, a.Name)
	} else if !arch.LegalPartitionStart(int(lc.Base), int(lc.Partitions)) {
		c.locDiag(l, "partition-start", "%d partitions placed at base partition %d: want base %s", lc.Partitions, lc.Base, arch.PartitionStartsText(int(lc.Partitions)))
	}
	switch lc.Type {
	case bir.MemSB:
		if u := a.UsableSBUFBytes(); u > 0 && lc.Addr+lc.Bytes > u {
			c.locDiag(l, "allocated", "SBUF bytes [%d, %d) of each partition: want within the usable %d bytes of %s", lc.Addr, lc.Addr+lc.Bytes, u, a.Name)
		}
	case bir.MemPSUM:
		p := a.PSUMBytesPerPartition()
		if p == 0 {
			return
		}
		if lc.Bank >= a.PSUMBanks {
			c.locDiag(l, "allocated", "PSUM bank %d: want 0..%d", lc.Bank, a.PSUMBanks-1)
			return
		}
		if start := a.PSUMAddress(lc.Bank, lc.Addr); start+lc.Bytes > p {
			c.locDiag(l, "allocated", "PSUM bytes [%d, %d) of each partition (bank %d, offset %d): want within the %d bytes of PSUM", start, start+lc.Bytes, lc.Bank, lc.Addr, p)
		}
	}
}
