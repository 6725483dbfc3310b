package depgraph

import (
	"github.com/narwhal-compiler/narwhal/bir"
)

// What an instruction reads and writes (the operand roles of the
// interpreter, interp/*.go, which define the semantics the dependencies
// must preserve):
//
//   - Sources are read and destinations written, byte footprint by byte
//     footprint (ranges.go).
//   - ReadVarAddr does not read its source: it takes its address only.
//   - IndirectLoad reads DRAM at addresses computed at run time: it reads
//     the dynamic-DRAM pseudo space, which every DRAM write reads (so each
//     DRAM write before it is a FLOW edge into it, and each DRAM write
//     after it an ANTI edge out of it, while DRAM writes among themselves
//     get no edge from it).
//   - IndirectSave writes the whole location its destination names (the
//     rows land anywhere in it); IndirectSaveAccumulate also reads it.
//     GenericIndirectLoad/Save read and write the whole location of every
//     operand (they are lowered before this pass in the default pipeline;
//     this is the conservative reading for modules that are not).
//   - A matmul writing PSUM: with start_tensor_calc it clears the whole
//     bank of each destination partition (semantics.md §4.7, the zero
//     region; design.md: "the group (start to stop) owns the bank"), so it
//     writes every byte of those banks; without it, it accumulates, so it
//     reads and writes its footprint. Every matmul also writes the
//     accumulation-group state of the banks it touches, a pseudo space of
//     one byte per bank: consecutive matmuls on a bank are chained in
//     program order with ORDERED edges (build_flow_deps'
//     make_accumulation_sequence keeps a group's matmuls in order).
//   - Activation with an accumulating acc mode reads and writes the Scalar
//     engine's accumulator registers (one pseudo space);
//     ReadActivationAccumulator reads them. Every Vector accumulator
//     instruction (bir.InstAccumulator: tensor_scalar_reduce,
//     tensor_scalar_cumulative, range_select, select_reduce, exponential,
//     whatever its reduce command, Idle included: it leaves the state
//     undefined) reads and writes the Vector engine's (a second pseudo
//     space), so they stay in program order among themselves.
//   - A register operand reads (source) or writes (destination) its
//     register; a register_ap reads its offset register and, its offset
//     being known only at run time, the whole of its tensor.
//   - A symbolic AP (none remain after FullUnroll) touches its whole tensor.
//
// GpSimd instructions are SB-class only (seed 002 §6.3 QUIRK: "A
// reimplementer's anti-dep pass must classify GPSIMD ops into the SB memory
// class exclusively"): nothing here special-cases them, because the
// verifier's gpsimd-psum rule guarantees they never name PSUM, so their
// on-chip accesses all land in the SB analyzer. Custom ops, the one GpSimd
// opcode that may name HBM (seed 002 §4.4 "SBUF or HBM"), are barriers.

// collect sets a.accs to the accesses of instruction i, with the
// allocation's lifetime accesses (lifetime.go).
func (a *analyzer) collect(i bir.InstID) {
	a.collectData(i)
	a.lifeAccesses(i)
}

// collectData sets a.accs to the data accesses of instruction i.
func (a *analyzer) collectData(i bir.InstID) {
	a.accs = a.accs[:0]
	f := a.f
	in := f.Inst(i)
	op := in.Op
	ins, outs := f.Ins(i), f.Outs(i)
	switch {
	case op.IsMatmul():
		for k := range ins {
			a.operand(&ins[k], false, false)
		}
		start := a.attrs(i).start
		for k := range outs {
			o := &outs[k]
			if !start {
				a.operand(o, false, false)
			}
			a.matmulDst(o, start)
		}
		return
	case op == bir.OpReadVarAddr:
		for k := range outs {
			a.operand(&outs[k], true, false)
		}
		return
	case op == bir.OpIndirectLoad:
		for k := range ins {
			a.operand(&ins[k], false, false)
		}
		for k := range outs {
			a.operand(&outs[k], true, false)
		}
		a.accs = append(a.accs, access{key: spDynDRAM, r0: 0, r1: 0, lo: 0, hi: 1, write: true})
		return
	case op == bir.OpIndirectSave, op == bir.OpIndirectSaveAccumulate:
		for k := range ins {
			a.operand(&ins[k], false, false)
		}
		for k := range outs {
			if op == bir.OpIndirectSaveAccumulate {
				a.operand(&outs[k], false, true)
			}
			a.operand(&outs[k], true, true)
		}
		return
	case op == bir.OpGenericIndirectLoad, op == bir.OpGenericIndirectSave:
		for _, list := range [][]bir.Operand{ins, outs} {
			for k := range list {
				a.operand(&list[k], false, true)
				a.operand(&list[k], true, true)
			}
		}
		return
	}
	switch a.accumulator(i) {
	case bir.ActAccumulator:
		a.accs = append(a.accs, access{key: spActAcc, r0: 0, r1: 0, lo: 0, hi: 1, write: false})
		if op != bir.OpReadActivationAccumulator {
			a.accs = append(a.accs, access{key: spActAcc, r0: 0, r1: 0, lo: 0, hi: 1, write: true})
		}
	case bir.VectorAccumulator:
		a.accs = append(a.accs,
			access{key: spDveAcc, r0: 0, r1: 0, lo: 0, hi: 1, write: false},
			access{key: spDveAcc, r0: 0, r1: 0, lo: 0, hi: 1, write: true})
	}
	for k := range ins {
		a.operand(&ins[k], false, false)
	}
	for k := range outs {
		a.operand(&outs[k], true, false)
	}
}

// operand appends the accesses of one operand: its footprint (whole: the
// whole location or tensor) and its registers.
func (a *analyzer) operand(o *bir.Operand, write, whole bool) {
	f := a.f
	switch o.Kind {
	case bir.OpdRegister:
		a.reg(bir.RegID(o.Ref), write)
	case bir.OpdRegAP:
		a.reg(bir.RegID(o.Expr), false)
		a.tensor(o.TensorRef(), write)
	case bir.OpdSymAP:
		a.tensor(o.TensorRef(), write)
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() {
			return
		}
		if a.noReduce != nil && a.noReduce[l] {
			a.curNoRed = true
		}
		if whole {
			a.wholeLoc(l, write)
			return
		}
		a.phys(l, o, write)
	}
}

func (a *analyzer) reg(r bir.RegID, write bool) {
	if int(r) < 0 || int(r) >= a.f.NumRegs() {
		return
	}
	a.accs = append(a.accs, access{key: a.keyReg(r), lo: 0, hi: 1, write: write})
}

func (a *analyzer) tensor(t bir.TensorID, write bool) {
	if int(t) < 0 || int(t) >= a.f.NumTensors() {
		return
	}
	for _, l := range a.f.Tensor(t).Locs {
		a.wholeLoc(l, write)
	}
}

// placement returns the space key of location l and its origin in it:
// the first row and the first byte. onChip is false for DRAM.
func (a *analyzer) placement(l bir.LocID) (key int32, row0, col0 int64, onChip bool) {
	lc := a.f.Loc(l)
	onChip = lc.Type.IsOnChip()
	if a.opt.Mode == Physical && onChip && lc.Allocated {
		if lc.Type == bir.MemSB {
			return spSB, lc.Base, lc.Addr, true
		}
		return spPSUM, lc.Base, lc.Bank*a.bankBytes + lc.Addr, true
	}
	return a.keyLoc(l), 0, 0, onChip
}

// flagsKey returns the accumulation-state space of a PSUM location.
func (a *analyzer) flagsKey(l bir.LocID) int32 {
	lc := a.f.Loc(l)
	if a.opt.Mode == Physical && lc.Allocated {
		return spPSUMFlags
	}
	return a.keyFlags(l)
}

// wholeLoc appends an access to every byte of location l.
func (a *analyzer) wholeLoc(l bir.LocID, write bool) {
	lc := a.f.Loc(l)
	key, row0, col0, _ := a.placement(l)
	a.accs = append(a.accs, access{key: key, r0: row0, r1: row0 + max(lc.Partitions, 1) - 1, lo: col0, hi: col0 + max(lc.Bytes, 1), write: write})
	if lc.Type.IsDRAM() && write && a.hasDyn {
		a.accs = append(a.accs, access{key: spDynDRAM, lo: 0, hi: 1, write: false})
	}
}

// phys appends the footprint of a physical AP on location l.
func (a *analyzer) phys(l bir.LocID, o *bir.Operand, write bool) {
	lc := a.f.Loc(l)
	ds := o.Dtype.Size()
	if ds <= 0 || int(o.Pattern) < 0 || int(o.Pattern) >= a.m.NumPatterns() {
		a.wholeLoc(l, write)
		return
	}
	key, row0, col0, _ := a.placement(l)
	pat := a.m.Pattern(o.Pattern)
	fp := &a.fp
	// A DRAM location is flat, but its dims [rows, bytes per row] give it
	// the same row geometry as an on-chip location: element e at row e / E,
	// element e % E of the row is byte e*ds of the flat memory, a bijection,
	// so the 2-D footprint is exact where the flat one would need a run per
	// row (a column tile of a DRAM matrix).
	if lc.Bytes%ds != 0 || lc.Bytes <= 0 {
		a.wholeLoc(l, write)
		return
	}
	fp.collectAccessPatternRanges(o.Offset, pat, lc.Bytes/ds, max(lc.Partitions, 1))
	switch {
	case fp.empty:
		return
	case fp.invalid:
		a.wholeLoc(l, write)
		return
	case fp.whole:
		a.accs = append(a.accs, access{key: key, r0: row0 + fp.r0, r1: row0 + fp.r1, lo: col0, hi: col0 + lc.Bytes, write: write})
		if lc.Type.IsDRAM() && write && a.hasDyn {
			a.accs = append(a.accs, access{key: spDynDRAM, lo: 0, hi: 1, write: false})
		}
		return
	}
	for _, r := range fp.runs {
		a.accs = append(a.accs, access{key: key, r0: row0 + fp.r0, r1: row0 + fp.r1, lo: col0 + r.lo*ds, hi: col0 + r.hi*ds, write: write})
	}
	if lc.Type.IsDRAM() && write && a.hasDyn {
		// A DRAM write reads the dynamic-DRAM pseudo space (see above).
		a.accs = append(a.accs, access{key: spDynDRAM, lo: 0, hi: 1, write: false})
	}
}

// matmulDst appends the matmul-specific accesses of a PSUM destination:
// with start, the whole banks of its partitions; always, the accumulation
// state of those banks.
func (a *analyzer) matmulDst(o *bir.Operand, start bool) {
	if o.Kind != bir.OpdPhysAP {
		a.operand(o, true, false)
		return
	}
	l := o.Loc()
	if int(l) < 0 || int(l) >= a.f.NumLocs() {
		return
	}
	lc := a.f.Loc(l)
	if lc.Type != bir.MemPSUM {
		a.operand(o, true, false)
		return
	}
	n := len(a.accs)
	a.phys(l, o, true)
	if len(a.accs) == n {
		return
	}
	bb := a.bankBytes
	fk := a.flagsKey(l)
	// Widen the destination's runs to whole banks (start) and add the
	// bank-state accesses.
	end := len(a.accs)
	for k := n; k < end; k++ {
		x := a.accs[k]
		b0, b1 := x.lo/bb, (x.hi-1)/bb
		if start {
			a.accs[k].lo, a.accs[k].hi = b0*bb, (b1+1)*bb
		}
		a.accs = append(a.accs, access{key: fk, r0: x.r0, r1: x.r1, lo: b0, hi: b1 + 1, write: true})
	}
}
