// InferPSumTensor (pass "infer_psum_tensor"): every on-chip location whose
// memory is left to the compiler (memory type OnChip, "placement open")
// goes to PSUM or SBUF. Seed 002 §4.4: "InferPSumTensor - Assign result of
// Pool/Act instructions to PSUM"; "It assigns PE-matmul / ACT results into
// PSUM banks and keeps GpSimd (and customop) tensors in SBUF. The
// predicates can_write_to_psum / can_read_from_psum gate which ops may
// touch a bank, and force_tensortensor_psum_sb forces a tensor_tensor
// operand to SB when the engine cannot read PSUM."
//
// The decision is per tensor (a symbolic access names the tensor, so its
// OnChip locations go to one memory), from every access to it:
//
//   - canWriteToPSUM / canReadFromPSUM (the seed's can_write_to_psum,
//     can_read_from_psum): the Tensor engine writes only PSUM and reads
//     only SBUF (hardware.md); Activation and Vector read and write both;
//     GpSimd and custom ops never touch PSUM (§4.4, verifier-pinned); DMA
//     cannot read PSUM (semantics.md §1); a Transpose whose engine is
//     still Unassigned runs as the Vector form when its destination is not
//     in PSUM (interp.opTranspose), so its destination stays in SBUF, which
//     keeps its meaning; register, indirect, control and unmodelled opcodes
//     are kept away from PSUM.
//   - A tensor the Tensor engine writes must be in PSUM; one that an access
//     forbids PSUM must be in SBUF; both at once is an error carrying the
//     seed's verifier string for the access that forbids PSUM, verbatim:
//     "GPSIMD engine cannot access PSUM" (an opcode that runs only on
//     GpSimd, engine not yet assigned), "GPSIMD Instructions cannot access
//     PSUM. Assign to a different Engine or move data to SB." (engine
//     Pool), "All args to a customop must be located in SBUF or HBM",
//     "All of a customop's outputs must be located in SBUF or HBM".
//   - Otherwise a tensor written by the Activation engine goes to PSUM (the
//     seed's "Assign result of ... Act instructions to PSUM") when every
//     access can touch PSUM and each location fits one bank (so no access
//     can span banks); the option act_to_psum=false keeps such results in
//     SBUF. The seed's "Pool/" half cannot hold: GpSimd never touches PSUM
//     (the same seed, §4.4), so Pool results stay in SBUF. Everything else
//     goes to SBUF (176 KiB per partition against PSUM's 16 KiB: SBUF is the
//     default home).
//   - force_tensortensor_psum_sb: a TensorTensor whose two inputs would
//     both be in PSUM (an engine reads at most one PSUM input) gets an
//     input that was moved to PSUM by choice (an Activation result) moved
//     back to SBUF; two inputs that must be in PSUM are an error.
//
// Pre-conditions: a module the verifier accepts (OnChip locations are
// accepted wherever SBUF or PSUM would be). Post-conditions: no OnChip
// location remains; each decided tensor's class is NeuronSBTensor or
// NeuronPSUMTensor; outputs are unchanged (the interpreter runs OnChip as
// private on-chip memory with PSUM's accumulation semantics for Tensor
// engine writes, which is what SBUF or PSUM then gives each access).
package alloc

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// The seed's verifier strings (seed 002 §4.4), verbatim.
const (
	MsgGpSimdPSUM     = "GPSIMD engine cannot access PSUM"
	MsgGpSimdInstPSUM = "GPSIMD Instructions cannot access PSUM. Assign to a different Engine or move data to SB."
	MsgCustomOpArgs   = "All args to a customop must be located in SBUF or HBM"
	MsgCustomOpOuts   = "All of a customop's outputs must be located in SBUF or HBM"
)

// InferOptions configure InferPSumTensor.
type InferOptions struct {
	// ActToPSUM sends Activation results to PSUM where legal (the seed's
	// rule); false keeps them in SBUF.
	ActToPSUM bool
}

// InferStats count the decisions.
type InferStats struct {
	ToPSUM      int // tensors placed in PSUM
	ToSB        int // tensors placed in SBUF
	ActToPSUM   int // of ToPSUM, Activation results moved by choice
	ForcedSB    int // force_tensortensor_psum_sb moves
	OpenTensors int // tensors with an OnChip location
}

// placement is what the accesses of one tensor require. The accesses
// that decide are kept as uses; their text is built only for an error.
type placement struct {
	needPSUM   bool    // written by the Tensor engine
	needPSUMBy bir.Use // the access that needs PSUM
	noPSUM     bool    // an access forbids PSUM
	noPSUMWhy  forbid  // why
	noPSUMBy   bir.Use // the access that forbids it
	actWritten bool    // written by an Activation instruction
	fitsBank   bool    // every OnChip location fits one PSUM bank
	fitsPSUM   bool    // every OnChip location fits the PSUM of a partition
	chosen     bool    // in PSUM by choice (an Activation result)
	psum       bool    // the decision
}

// InferPSumTensor decides SB or PSUM for every OnChip location of m.
func InferPSumTensor(m *bir.Module, model *arch.Model, opt InferOptions, onFunction func(string)) (InferStats, error) {
	var st InferStats
	bank, total := model.PSUMBankBytes, model.PSUMBytesPerPartition()
	for _, f := range m.FuncsMainFirst() {
		if onFunction != nil {
			onFunction(f.Name)
		}
		if err := inferFunction(f, bank, total, opt, &st); err != nil {
			return st, err
		}
	}
	if onFunction != nil {
		onFunction("")
	}
	return st, nil
}

func inferFunction(f *bir.Function, bank, total int64, opt InferOptions, st *InferStats) error {
	var open []bir.TensorID
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		for _, l := range ts.Locs {
			if f.Loc(l).Type == bir.MemOnChip {
				open = append(open, bir.TensorID(t))
				break
			}
		}
	}
	if len(open) == 0 {
		return nil
	}
	st.OpenTensors += len(open)
	pl := make(map[bir.TensorID]*placement, len(open))
	for _, t := range open {
		p := &placement{fitsBank: true, fitsPSUM: true}
		for _, l := range f.Tensor(t).Locs {
			if lc := f.Loc(l); lc.Type == bir.MemOnChip {
				p.fitsBank = p.fitsBank && bank > 0 && lc.Bytes <= bank
				p.fitsPSUM = p.fitsPSUM && total > 0 && lc.Bytes <= total
			}
		}
		for _, u := range f.TensorUses(t) {
			p.note(f, u)
		}
		pl[t] = p
	}
	for _, t := range open {
		p := pl[t]
		switch {
		case p.needPSUM && p.noPSUM:
			return diag.Wrap(diag.WrongMemory, f.TensorErrorf(t, "%s (%s needs it in PSUM: the Tensor engine writes only PSUM; %s)",
				forbidText(f, p.noPSUMWhy, p.noPSUMBy), useText(f, p.needPSUMBy), useText(f, p.noPSUMBy)))
		case p.needPSUM && !p.fitsPSUM:
			return diag.Wrap(diag.DoesNotFit, f.TensorErrorf(t, "%s writes it, so it must be in PSUM, but a location of it is larger than the %d PSUM bytes per partition", useText(f, p.needPSUMBy), total))
		case p.needPSUM:
			p.psum = true
		case !p.noPSUM && p.actWritten && opt.ActToPSUM && p.fitsBank:
			p.psum, p.chosen = true, true
		}
	}
	// force_tensortensor_psum_sb.
	isPSUM := func(o *bir.Operand) (bir.TensorID, bool, bool) {
		var t bir.TensorID
		switch o.Kind {
		case bir.OpdPhysAP:
			t = f.Loc(o.Loc()).Tensor
			if lt := f.Loc(o.Loc()).Type; lt != bir.MemOnChip {
				return t, lt == bir.MemPSUM, false
			}
		case bir.OpdSymAP, bir.OpdRegAP:
			t = o.TensorRef()
			if l := f.Tensor(t).Locs; len(l) > 0 && f.Loc(l[0]).Type != bir.MemOnChip {
				return t, f.Loc(l[0]).Type == bir.MemPSUM, false
			}
		default:
			return bir.NoTensor, false, false
		}
		p := pl[t]
		return t, p != nil && p.psum, p != nil
	}
	var ferr error
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op != bir.OpTensorTensor || f.Inst(i).NIns < 2 {
			return true
		}
		ins := f.Ins(i)
		ta, pa, oa := isPSUM(&ins[0])
		tb, pb, ob := isPSUM(&ins[1])
		if !pa || !pb {
			return true
		}
		switch {
		case ob && pl[tb].chosen:
			pl[tb].psum, pl[tb].chosen = false, false
		case oa && pl[ta].chosen:
			pl[ta].psum, pl[ta].chosen = false, false
		default:
			ferr = diag.Wrap(diag.WrongMemory, f.Errorf(i, "both inputs must be in PSUM (tensors %s and %s), and an engine reads at most one PSUM input", f.Tensor(ta).Name, f.Tensor(tb).Name))
			return false
		}
		st.ForcedSB++
		return true
	})
	if ferr != nil {
		return ferr
	}
	for _, t := range open {
		p := pl[t]
		mt, class := bir.MemSB, bir.ClassNeuronSBTensor
		if p.psum {
			mt, class = bir.MemPSUM, bir.ClassNeuronPSUMTensor
			st.ToPSUM++
			if p.chosen {
				st.ActToPSUM++
			}
		} else {
			st.ToSB++
		}
		ts := f.Tensor(t)
		ts.Class = class
		for _, l := range ts.Locs {
			if lc := f.Loc(l); lc.Type == bir.MemOnChip {
				lc.Type = mt
			}
		}
	}
	return nil
}

// forbid is why an access keeps a tensor out of PSUM.
type forbid uint8

const (
	forbidCustomArgs forbid = iota
	forbidCustomOuts
	forbidGpSimdInst
	forbidGpSimdOnly
	forbidPERead
	forbidTranspose
	forbidOther
)

// useText names an access for messages.
func useText(f *bir.Function, u bir.Use) string {
	role := "source"
	if u.Out {
		role = "destination"
	}
	return fmt.Sprintf("instruction %s (%s, %s)", f.InstName(u.Inst), f.OpName(u.Inst), role)
}

// forbidText is the message of a forbid: the seed's verifier strings
// verbatim where it has one.
func forbidText(f *bir.Function, why forbid, u bir.Use) string {
	switch why {
	case forbidCustomArgs:
		return MsgCustomOpArgs
	case forbidCustomOuts:
		return MsgCustomOpOuts
	case forbidGpSimdInst:
		return MsgGpSimdInstPSUM
	case forbidGpSimdOnly:
		return MsgGpSimdPSUM
	case forbidPERead:
		return useText(f, u) + " reads it: the Tensor engine reads only SBUF"
	case forbidTranspose:
		return useText(f, u) + " writes it: an Unassigned Transpose runs as the Vector form unless its destination is in PSUM"
	}
	return useText(f, u) + " cannot access PSUM"
}

// note records what access u requires of its tensor (no allocation: the
// hot path of a module with many placement-open tensors).
func (p *placement) note(f *bir.Function, u bir.Use) {
	in := f.Inst(u.Inst)
	op := in.Op
	info := op.Info()
	deny := func(why forbid) {
		if !p.noPSUM {
			p.noPSUM, p.noPSUMWhy, p.noPSUMBy = true, why, u
		}
	}
	pe := op.IsMatmul() || op == bir.OpTranspose && in.Engine == bir.EngPE
	switch {
	case op == bir.OpCustomOp:
		if u.Out {
			deny(forbidCustomOuts)
		} else {
			deny(forbidCustomArgs)
		}
	case in.Engine == bir.EngPool:
		deny(forbidGpSimdInst)
	case in.Engine == bir.EngUnassigned && (poolOnly(info) || bir.InstEngines(op, f.Attrs(u.Inst))&^(1<<bir.EngUnassigned) == 1<<bir.EngPool):
		deny(forbidGpSimdOnly)
	case pe && u.Out:
		if !p.needPSUM {
			p.needPSUM, p.needPSUMBy = true, u
		}
	case pe:
		deny(forbidPERead)
	case op == bir.OpTranspose && in.Engine == bir.EngUnassigned && u.Out:
		deny(forbidTranspose)
	case !canTouchPSUM(info, in.Engine):
		deny(forbidOther)
	case u.Out && in.Engine == bir.EngAct:
		p.actWritten = true
	}
}

// canTouchPSUM is the seed's can_read_from_psum / can_write_to_psum for the
// accesses InferPSumTensor leaves free: Activation and Vector engine
// instructions (or an engine not yet assigned) with modelled semantics that
// are not DMAs, register, control, call, indirect or collective opcodes.
func canTouchPSUM(info *bir.OpInfo, eng bir.Engine) bool {
	const not = bir.FlagDMA | bir.FlagCall | bir.FlagRegister | bir.FlagNoSemantics | bir.FlagControl |
		bir.FlagSync | bir.FlagDescriptor | bir.FlagCollective
	if info.Flags&not != 0 || info.Flags&(bir.FlagComputes|bir.FlagMovesData) == 0 {
		return false
	}
	switch info.Op {
	case bir.OpTensorCopyDynamicSrc, bir.OpTensorCopyDynamicDst, bir.OpIndirectCopy, bir.OpIota:
		return false
	}
	return eng == bir.EngAct || eng == bir.EngDVE || eng == bir.EngUnassigned && info.Engines&(1<<bir.EngPool|1<<bir.EngPE) == 0
}

// poolOnly reports whether the opcode can run only on GpSimd.
func poolOnly(info *bir.OpInfo) bool {
	return info.Engines&^(1<<bir.EngUnassigned) == 1<<bir.EngPool
}

// inferSummary is the report line of InferPSumTensor.
func inferSummary(st InferStats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INFO (InferPSumTensor): %d placement-open tensors: %d to PSUM (%d Activation results by choice), %d to SBUF, %d moved to SBUF by force_tensortensor_psum_sb",
		st.OpenTensors, st.ToPSUM, st.ActToPSUM, st.ToSB, st.ForcedSB)
	return b.String()
}
