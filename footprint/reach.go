// What each opcode lets the footprint passes see through: the one
// description sb_size_legalization's plan, FullUnroll's cut, vn_splitter
// and shrink_ml all read, so that a prediction of what a later pass will
// do can never disagree with that pass.
//
// The footprint passes move an access pattern: the cut repoints it onto a
// piece, vn_splitter onto a _VN_ location, shrink_ml onto a trimmed
// location. That is sound only when the elements an instruction touches
// in a location are exactly the elements its access patterns name, in the
// order they name them (ReachAddressed): then rebasing the pattern keeps
// every element and the instruction computes the same values. The other
// classes say why an instruction is not followed:
//
//	ReachTensorIndirect  IndirectLoad, IndirectSave, IndirectSaveAccumulate: the
//	                     addresses are read from a tensor at run time (seed 004's
//	                     "ISA pattern vector assignment needs non-TensorIndirect AP",
//	                     read as seed 001's tensor indirection)
//	ReachIndirect        GenericIndirectLoad/Save, ReadVarAddr, IndirectCopy,
//	                     TensorCopyDynamicSrc/Dst: an offset or address comes from
//	                     data
//	ReachCollective      collectives (seed 004's "CollectiveCompute access")
//	ReachCall            calls of kernels and functions ("BIRKernel access")
//	ReachDescriptor      DMA descriptors: they move a node by its byte layout
//	ReachVerbatim        opcodes narwhal keeps verbatim (no modelled semantics)
//	ReachPartialCopy     DMACopy in a mode whose effect is not an element-wise walk
//	                     of its patterns (seed 004's "partial copy")
//
// DMACopy modes: Copy and CCE pair the elements of their patterns in
// order (semantics.md §4.1, §4.2); Transpose without transpose_op (or
// with None), the 2-D DMA transpose, writes dst[j, i] = src[i, j] over the
// elements its two patterns name (semantics.md §4.8, "dst =
// permute(src)"; the interpreter's opDMATranspose gathers and scatters
// through the patterns). All three are followed: rebasing a pattern keeps
// its elements and their order. Every other mode (Replicate, Dynamic, the
// 3-D and 4-D transposes whose axis order narwhal does not model) is
// ReachPartialCopy. Of the followed modes only Copy and CCE are
// element-wise (a transpose pairs element (i, j) with (j, i)).
//
// ElementWise is the stronger property the cut needs to split an
// instruction whose access straddles pieces: the opcode pairs element k of
// every operand with element k of the others, with no cross-element
// effect, so cutting one pair's range cuts every operand at the same
// elements.
package footprint

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Reach classifies an instruction's effect on its access-pattern operands
// for the footprint passes.
type Reach uint8

const (
	// ReachAddressed: the instruction touches exactly the elements its
	// access patterns name; the footprint passes follow it.
	ReachAddressed Reach = iota
	ReachTensorIndirect
	ReachIndirect
	ReachCollective
	ReachCall
	ReachDescriptor
	ReachVerbatim
	ReachPartialCopy
)

var reachNames = [...]string{"addressed", "tensor-indirect", "indirect", "collective", "call", "DMA descriptor", "verbatim", "partial copy"}

func (r Reach) String() string {
	if int(r) < len(reachNames) {
		return reachNames[r]
	}
	return fmt.Sprintf("reach(%d)", uint8(r))
}

// Followed reports whether the footprint passes may rebase the
// instruction's access patterns.
func (r Reach) Followed() bool { return r == ReachAddressed }

// opReach caches OpReach for the known opcodes (numbers below
// bir.FirstUnknownOpcode), so that a sweep pays an array load per
// instruction.
var opReach = func() (t [bir.FirstUnknownOpcode]Reach) {
	for op := range t {
		t[op] = opReachOf(bir.Opcode(op))
	}
	return t
}()

// OpReach is the class of opcode op on its own: ReachAddressed for
// DMACopy, whose mode decides (ReachOf).
func OpReach(op bir.Opcode) Reach {
	if op < bir.FirstUnknownOpcode {
		return opReach[op]
	}
	return ReachVerbatim
}

func opReachOf(op bir.Opcode) Reach {
	info := op.Info()
	switch op {
	case bir.OpIndirectLoad, bir.OpIndirectSave, bir.OpIndirectSaveAccumulate:
		return ReachTensorIndirect
	case bir.OpGenericIndirectLoad, bir.OpGenericIndirectSave, bir.OpReadVarAddr, bir.OpIndirectCopy,
		bir.OpTensorCopyDynamicSrc, bir.OpTensorCopyDynamicDst:
		return ReachIndirect
	}
	switch {
	case info.Has(bir.FlagCollective):
		return ReachCollective
	case info.Has(bir.FlagCall):
		return ReachCall
	case info.Has(bir.FlagDescriptor):
		return ReachDescriptor
	case !op.Known() || info.Has(bir.FlagNoSemantics):
		return ReachVerbatim
	}
	return ReachAddressed
}

// ReachOf is the class of instruction i (OpReach, and for DMACopy its
// mode).
func ReachOf(f *bir.Function, i bir.InstID) Reach {
	op := f.Inst(i).Op
	if op == bir.OpDMACopy {
		if followed, _ := dmaCopyMode(f, i); !followed {
			return ReachPartialCopy
		}
		return ReachAddressed
	}
	return OpReach(op)
}

// dmaCopyMode reports whether DMACopy i's mode is followed (its effect is
// a walk of the elements its patterns name) and whether it is
// element-wise (element k of the source to element k of the destination).
func dmaCopyMode(f *bir.Function, i bir.InstID) (followed, elementWise bool) {
	a := f.Attrs(i)
	switch a.Str("mode", "Copy") {
	case "Copy", "CCE":
		return true, true
	case "Transpose":
		v, ok := a.Get("transpose_op")
		if !ok || v.Kind == bir.ValNull {
			return true, false
		}
		if s, _ := v.AsString(); s == "None" {
			return true, false
		}
	}
	return false, false
}

// Why says, for messages, why the footprint passes do not follow
// instruction i of class r ("" for ReachAddressed), as a predicate phrase
// ("is an indirect access").
func (r Reach) Why(f *bir.Function, i bir.InstID) string {
	switch r {
	case ReachAddressed:
		return ""
	case ReachTensorIndirect:
		return "is a tensor-indirect DMA (its addresses are read from a tensor)"
	case ReachIndirect:
		return "is an indirect access"
	case ReachCollective:
		return "is a collective"
	case ReachCall:
		return "is a call"
	case ReachDescriptor:
		return "is a DMA descriptor (it moves a node by its byte layout)"
	case ReachVerbatim:
		return "is kept verbatim (no modelled semantics)"
	case ReachPartialCopy:
		a := f.Attrs(i)
		if v, ok := a.Get("transpose_op"); ok && a.Str("mode", "Copy") == "Transpose" {
			return "moves data in mode Transpose with transpose_op " + v.JSON() + " (a permutation narwhal does not model)"
		}
		return "moves data in mode " + a.Str("mode", "Copy")
	}
	return "is not followed"
}

// ElementWise reports whether the cut may split instruction i into
// per-piece parts when one of its accesses straddles pieces: the opcode
// pairs the elements of its operands in lockstep with no cross-element
// effect (Load, Save, DMA, DMACopy in Copy or CCE mode, TensorCopy,
// TensorTensor, TensorScalar, Activation with acc Idle, Memset). The cut
// also needs every access-pattern operand of i to have the same nums and
// exactly one pair moving along the straddled dim.
func ElementWise(f *bir.Function, i bir.InstID) bool {
	switch f.Inst(i).Op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA, bir.OpTensorCopy, bir.OpTensorTensor, bir.OpTensorScalar, bir.OpMemset:
		return true
	case bir.OpDMACopy:
		_, ew := dmaCopyMode(f, i)
		return ew
	case bir.OpActivation:
		return f.Attrs(i).Str("acc", "Idle") == "Idle"
	}
	return false
}

// IsMx reports whether dt is an MX (block-scaled) data type: the x4-packed
// dtypes, four fp8 or fp4 values per element (nki.isa.quantize_mx writes
// them, with their scales in a separate tensor). It is the seed's isMx
// pre-filter (seed 004: VNSplitter::analyze, ShrinkDN::analyze):
// vn_splitter and shrink_ml keep MX locations as declared, and
// sb_size_legalization's plan never leaves an MX tensor to them.
func IsMx(dt bir.Dtype) bool {
	switch dt {
	case bir.Float8E5M2x4, bir.Float8E4M3FNx4, bir.Float4E2M1FNx4:
		return true
	}
	return false
}
