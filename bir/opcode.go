package bir

import (
	"fmt"
	"sort"
)

// Opcode identifies an instruction kind. Where the seeds pin a number
// (bir::InstructionType) narwhal keeps it: Matmult 8, Load 19, DMACopy 32,
// ReadVarAddr 41, GenericIndirectLoad 42, IndirectLoad 43,
// GenericIndirectSave 44, IndirectSave 45, NKIKernel 55, NKIKLIRKernel 56,
// MatmultSymbolic 0x5f, Loop 105, DynamicForLoop 106, DoWhile 108. The other
// opcodes of BIR-JSON's list get numbers from 128 upward (not seed-pinned),
// followed by four opcodes BIR-JSON's list lacks, named after the
// compiler's instruction classes that KLR's codegen emits for nki.isa
// instructions (TensorScalarCache, Exponential, GetSequenceBounds,
// NonzeroWithCount; docs/isa.md, docs/bir-json.md).
//
// Seed 004 also names transpose 0x2b, memset 0x2d and copy 0x2e as
// "instr-type gates". Those numbers collide with IndirectLoad (43) and
// IndirectSave (45) of seed 001, so they belong to a different enum of the
// original (an ISA-class code, not bir::InstructionType). narwhal records
// them as OpInfo.SeedClass of Transpose, Memset and TensorCopy instead of
// using them as opcode numbers.
//
// Opcodes that narwhal does not model but meets in a BIR-JSON file are kept
// verbatim: each distinct unknown name gets a module-local number >=
// FirstUnknownOpcode (see Module.UnknownOpcode).
type Opcode uint16

// FirstUnknownOpcode is the first number used for module-local unknown opcodes.
const FirstUnknownOpcode Opcode = 4096

// OpFlags describe what an opcode does; the verifier, printer and
// interpreter share them.
type OpFlags uint16

const (
	FlagMovesData   OpFlags = 1 << iota // copies data between locations (DMA or engine copy)
	FlagComputes                        // computes new values
	FlagDMA                             // issued on a DMA queue (Load/Save/DMACopy family)
	FlagControl                         // structured control flow or branches
	FlagSync                            // semaphores, barriers
	FlagCall                            // calls a kernel or function
	FlagSymbolic                        // a *Symbolic opcode carrying affine expressions
	FlagRegister                        // reads/writes engine registers
	FlagDescriptor                      // a DMA descriptor opcode
	FlagCollective                      // a collective-communication opcode
	FlagNoSemantics                     // narwhal does not model its values (kept verbatim)
)

// Variadic marks an unbounded operand count.
const Variadic = -1

// OpInfo is the per-opcode table entry.
type OpInfo struct {
	Name      string     // BIR-JSON spelling
	Op        Opcode     // number
	MinIns    int        // fewest source operands
	MaxIns    int        // most source operands, or Variadic
	MinOuts   int        // fewest destination operands
	MaxOuts   int        // most destination operands, or Variadic
	Engines   EngineMask // engines it may run on (Unassigned is always allowed)
	Flags     OpFlags
	SeedClass int // seed 004's class code (transpose 0x2b, memset 0x2d, copy 0x2e), 0 if none
}

// Has reports whether the opcode has all flags f.
func (i *OpInfo) Has(f OpFlags) bool { return i.Flags&f == f }

var (
	anyEngine  = engines(EngUnassigned, EngAct, EngPE, EngDVE, EngPool, EngSP, EngDMA)
	dmaEngines = engines(EngUnassigned, EngDMA, EngSP, EngAct, EngPool, EngDVE, EngPE)
)

// The opcodes. Numbers are stable: they are written nowhere in files (files
// use names), but tests and the seeds refer to the pinned ones.
const (
	OpMatmult             Opcode = 8
	OpLoad                Opcode = 19
	OpDMACopy             Opcode = 32
	OpReadVarAddr         Opcode = 41
	OpGenericIndirectLoad Opcode = 42
	OpIndirectLoad        Opcode = 43
	OpGenericIndirectSave Opcode = 44
	OpIndirectSave        Opcode = 45
	OpNKIKernel           Opcode = 55
	OpNKIKLIRKernel       Opcode = 56
	OpMatmultSymbolic     Opcode = 0x5f
	OpLoop                Opcode = 105
	OpDynamicForLoop      Opcode = 106
	OpDoWhile             Opcode = 108

	// Not seed-pinned: 128 upward.
	OpSave Opcode = 128 + iota
	OpDMA
	OpIndirectSaveAccumulate
	OpDMATrigger
	OpTensorTensor
	OpTensorScalar
	OpTensorScalarPtr
	OpActivation
	OpTranspose
	OpTensorCopy
	OpMemset
	OpIota
	OpTensorReduce
	OpRegisterMove
	OpRegisterAlu
	OpEventSemaphore
	OpGroupResetSemaphores
	OpCoreBarrier
	OpCustomOp
	OpMatmultBase
	OpMatmultSparse
	OpLoadActFuncSet
	OpPool
	OpShuffle
	OpStreamShuffle
	OpTensorCopyDynamicSrc
	OpTensorCopyDynamicDst
	OpIndirectCopy
	OpCopyPredicated
	OpGenericCopy
	OpBNStats
	OpBNBackprop
	OpBNBackprop2
	OpCalcVarAddr
	OpMatchReplace
	OpTensorScalarAffineSelect
	OpRangeSelect
	OpDropout
	OpSetRandState
	OpRand
	OpBIRKernel
	OpInlineASMBytes
	OpDMADescriptor
	OpDMADescriptorReplicate
	OpDMADescriptorCopy
	OpDMADescriptorCCE
	OpDMADescriptorTranspose
	OpCollective
	OpCollectiveSend
	OpCollectiveRecv
	OpCollectiveCompute
	OpGetCurProcessingRankID
	OpCall
	OpSwitchQueueInstance
	OpCompareAndBranch
	OpUnconditionalBranch
	OpRangeSelectSymbolic
	OpShuffleSymbolic
	OpStreamShuffleSymbolic
	OpTensorScalarSymbolic
	OpTongaReduceMacroSymbolic
	OpCalcVarAddrSymbolic
	OpIotaSymbolic
	OpTensorScalarAffineSelectSymbolic
	OpReadActivationAccumulator
	OpGetGlobalRankID
	OpNoOp
	OpAllEngineBarrier
	OpDrain
	OpHalt
	OpReciprocal
	OpBNStatsAggregate
	OpBNGradients
	OpStreamTranspose
	OpSelect
	OpGetRandState
	OpTensorLoad
	OpTensorSave
	OpMax
	OpMaxIndex
	OpGather
	OpGeneric
	OpGenericRelu
	OpAbstractCopy
	OpTerminator
	OpReturn
	OpBreak
	// Opcodes of the compiler's instruction classes that BIR-JSON's list
	// (bir-json.md §4.4) does not name, added for nki.isa instructions
	// (docs/isa.md): the names are the classes' without "Inst".
	OpTensorScalarCache // nki.isa.tensor_scalar_cumulative (InstTensorScalarCache)
	OpExponential       // nki.isa.exponential (InstExponential)
	OpGetSequenceBounds // nki.isa.sequence_bounds (InstGetSequenceBounds)
	OpNonzeroWithCount  // nki.isa.nonzero_with_count (InstNonzeroWithCount)
)

var opTable = []OpInfo{
	// DMA family (seed 001).
	{Name: "Load", Op: OpLoad, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "Save", Op: OpSave, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "DMA", Op: OpDMA, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "DMACopy", Op: OpDMACopy, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "ReadVarAddr", Op: OpReadVarAddr, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "GenericIndirectLoad", Op: OpGenericIndirectLoad, MinIns: 2, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "GenericIndirectSave", Op: OpGenericIndirectSave, MinIns: 2, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "IndirectLoad", Op: OpIndirectLoad, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "IndirectSave", Op: OpIndirectSave, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "IndirectSaveAccumulate", Op: OpIndirectSaveAccumulate, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: dmaEngines, Flags: FlagMovesData | FlagDMA},
	{Name: "DMATrigger", Op: OpDMATrigger, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDMA | FlagSync | FlagNoSemantics},

	// Compute.
	{Name: "TensorTensor", Op: OpTensorTensor, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngPool), Flags: FlagComputes},
	{Name: "TensorScalar", Op: OpTensorScalar, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngAct, EngPool), Flags: FlagComputes},
	{Name: "TensorScalarPtr", Op: OpTensorScalarPtr, MinIns: 1, MaxIns: 3, MinOuts: 1, MaxOuts: 2, Engines: engines(EngUnassigned, EngDVE, EngAct, EngPool), Flags: FlagComputes},
	{Name: "Activation", Op: OpActivation, MinIns: 1, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngAct), Flags: FlagComputes},
	{Name: "Matmult", Op: OpMatmult, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPE), Flags: FlagComputes},
	{Name: "MatmultBase", Op: OpMatmultBase, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPE), Flags: FlagComputes},
	{Name: "MatmultSparse", Op: OpMatmultSparse, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPE), Flags: FlagComputes | FlagNoSemantics},
	{Name: "MatmultSymbolic", Op: OpMatmultSymbolic, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPE), Flags: FlagComputes | FlagSymbolic},
	{Name: "Transpose", Op: OpTranspose, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPE, EngDVE), Flags: FlagMovesData, SeedClass: 0x2b},
	{Name: "TensorCopy", Op: OpTensorCopy, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngAct, EngPool), Flags: FlagMovesData, SeedClass: 0x2e},
	{Name: "Memset", Op: OpMemset, MinIns: 0, MaxIns: 0, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngPool, EngAct), Flags: FlagComputes, SeedClass: 0x2d},
	{Name: "Iota", Op: OpIota, MinIns: 0, MaxIns: 0, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool), Flags: FlagComputes},
	{Name: "TensorReduce", Op: OpTensorReduce, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngPool), Flags: FlagComputes},
	{Name: "RegisterMove", Op: OpRegisterMove, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagComputes | FlagRegister},
	{Name: "RegisterAlu", Op: OpRegisterAlu, MinIns: 1, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagComputes | FlagRegister},
	{Name: "CustomOp", Op: OpCustomOp, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: engines(EngUnassigned, EngPool), Flags: FlagComputes | FlagCall | FlagNoSemantics},
	{Name: "LoadActFuncSet", Op: OpLoadActFuncSet, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: engines(EngUnassigned, EngAct), Flags: FlagSync},
	{Name: "Pool", Op: OpPool, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool, EngDVE), Flags: FlagComputes | FlagNoSemantics},
	{Name: "Shuffle", Op: OpShuffle, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
	{Name: "StreamShuffle", Op: OpStreamShuffle, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagMovesData}, // nc_stream_shuffle (docs/isa.md)
	{Name: "TensorCopyDynamicSrc", Op: OpTensorCopyDynamicSrc, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
	{Name: "TensorCopyDynamicDst", Op: OpTensorCopyDynamicDst, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
	{Name: "IndirectCopy", Op: OpIndirectCopy, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool), Flags: FlagMovesData},             // local_gather: ins [src_buffer, index]
	{Name: "CopyPredicated", Op: OpCopyPredicated, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 2, Engines: engines(EngUnassigned, EngDVE, EngPool), Flags: FlagMovesData}, // 3 ins, 2 outs: select_reduce (bir/isa.go)
	{Name: "GenericCopy", Op: OpGenericCopy, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
	{Name: "BNStats", Op: OpBNStats, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},
	{Name: "BNBackprop", Op: OpBNBackprop, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: Variadic, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes | FlagNoSemantics},
	{Name: "BNBackprop2", Op: OpBNBackprop2, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: Variadic, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes | FlagNoSemantics},
	{Name: "CalcVarAddr", Op: OpCalcVarAddr, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagNoSemantics},
	{Name: "MatchReplace", Op: OpMatchReplace, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 2, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes}, // nc_match_replace8: ins [data, vals], outs [dst, dst_idx?] (docs/isa.md)
	{Name: "TensorScalarAffineSelect", Op: OpTensorScalarAffineSelect, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool, EngDVE), Flags: FlagComputes},
	{Name: "RangeSelect", Op: OpRangeSelect, MinIns: 3, MaxIns: 3, MinOuts: 1, MaxOuts: 2, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes}, // range_select: ins [on_true, bound0, bound1], outs [dst, reduce_res?]
	{Name: "Dropout", Op: OpDropout, MinIns: 1, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagComputes | FlagNoSemantics},
	{Name: "SetRandState", Op: OpSetRandState, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagNoSemantics},
	{Name: "Rand", Op: OpRand, MinIns: 0, MaxIns: Variadic, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagComputes | FlagNoSemantics},
	{Name: "BIRKernel", Op: OpBIRKernel, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCall | FlagNoSemantics},
	{Name: "NKIKernel", Op: OpNKIKernel, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCall},
	{Name: "NKIKLIRKernel", Op: OpNKIKLIRKernel, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCall},
	{Name: "InlineASMBytes", Op: OpInlineASMBytes, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagNoSemantics},

	// DMA descriptors.
	{Name: "DMADescriptor", Op: OpDMADescriptor, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDescriptor | FlagDMA | FlagNoSemantics},
	{Name: "DMADescriptorReplicate", Op: OpDMADescriptorReplicate, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDescriptor | FlagDMA | FlagNoSemantics},
	{Name: "DMADescriptorCopy", Op: OpDMADescriptorCopy, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDescriptor | FlagDMA | FlagNoSemantics},
	{Name: "DMADescriptorCCE", Op: OpDMADescriptorCCE, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDescriptor | FlagDMA | FlagNoSemantics},
	{Name: "DMADescriptorTranspose", Op: OpDMADescriptorTranspose, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: dmaEngines, Flags: FlagDescriptor | FlagDMA | FlagNoSemantics},

	// Collectives and synchronisation.
	{Name: "Collective", Op: OpCollective, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "CollectiveSend", Op: OpCollectiveSend, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "CollectiveRecv", Op: OpCollectiveRecv, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "CollectiveCompute", Op: OpCollectiveCompute, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "GetCurProcessingRankID", Op: OpGetCurProcessingRankID, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "CoreBarrier", Op: OpCoreBarrier, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "EventSemaphore", Op: OpEventSemaphore, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "GroupResetSemaphores", Op: OpGroupResetSemaphores, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "AllEngineBarrier", Op: OpAllEngineBarrier, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "Drain", Op: OpDrain, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "Halt", Op: OpHalt, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagSync},
	{Name: "NoOp", Op: OpNoOp, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: 0},
	{Name: "Call", Op: OpCall, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCall | FlagNoSemantics},
	{Name: "SwitchQueueInstance", Op: OpSwitchQueueInstance, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagSync | FlagNoSemantics},

	// Structured control flow (seed 003) and branches.
	{Name: "Loop", Op: OpLoop, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl},
	{Name: "DynamicForLoop", Op: OpDynamicForLoop, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl},
	{Name: "DoWhile", Op: OpDoWhile, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl},
	{Name: "CompareAndBranch", Op: OpCompareAndBranch, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl | FlagNoSemantics},
	{Name: "UnconditionalBranch", Op: OpUnconditionalBranch, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl | FlagNoSemantics},
	{Name: "Terminator", Op: OpTerminator, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl},
	{Name: "Return", Op: OpReturn, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl},
	{Name: "Break", Op: OpBreak, MinIns: 0, MaxIns: 0, MinOuts: 0, MaxOuts: 0, Engines: anyEngine, Flags: FlagControl | FlagNoSemantics},

	// Symbolic variants.
	{Name: "RangeSelectSymbolic", Op: OpRangeSelectSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},
	{Name: "ShuffleSymbolic", Op: OpShuffleSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagMovesData | FlagSymbolic | FlagNoSemantics},
	{Name: "StreamShuffleSymbolic", Op: OpStreamShuffleSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagMovesData | FlagSymbolic | FlagNoSemantics},
	{Name: "TensorScalarSymbolic", Op: OpTensorScalarSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},
	{Name: "TongaReduceMacroSymbolic", Op: OpTongaReduceMacroSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},
	{Name: "CalcVarAddrSymbolic", Op: OpCalcVarAddrSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},
	{Name: "IotaSymbolic", Op: OpIotaSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},
	{Name: "TensorScalarAffineSelectSymbolic", Op: OpTensorScalarAffineSelectSymbolic, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagSymbolic | FlagNoSemantics},

	// Opcodes with no fields of their own (bir-json.md §4.4).
	{Name: "ReadActivationAccumulator", Op: OpReadActivationAccumulator, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: engines(EngUnassigned, EngAct), Flags: FlagMovesData},
	{Name: "GetGlobalRankId", Op: OpGetGlobalRankID, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagCollective | FlagNoSemantics},
	{Name: "Reciprocal", Op: OpReciprocal, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE, EngAct, EngPool), Flags: FlagComputes},
	{Name: "BNStatsAggregate", Op: OpBNStatsAggregate, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},
	{Name: "BNGradients", Op: OpBNGradients, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes | FlagNoSemantics},
	{Name: "StreamTranspose", Op: OpStreamTranspose, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
	{Name: "Select", Op: OpSelect, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagNoSemantics},
	{Name: "GetRandState", Op: OpGetRandState, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagNoSemantics},
	{Name: "TensorLoad", Op: OpTensorLoad, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagRegister},
	{Name: "TensorSave", Op: OpTensorSave, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: anyEngine, Flags: FlagMovesData | FlagRegister},
	{Name: "Max", Op: OpMax, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},                              // max8 (docs/isa.md)
	{Name: "MaxIndex", Op: OpMaxIndex, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},                    // nc_find_index8: ins [data, vals]
	{Name: "Gather", Op: OpGather, MinIns: 2, MaxIns: 2, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool), Flags: FlagMovesData},                      // nc_n_gather: ins [data, indices]
	{Name: "TensorScalarCache", Op: OpTensorScalarCache, MinIns: 2, MaxIns: 3, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},  // tensor_scalar_cumulative: ins [src, imm0, imm1?]
	{Name: "Exponential", Op: OpExponential, MinIns: 1, MaxIns: 3, MinOuts: 1, MaxOuts: 2, Engines: engines(EngUnassigned, EngDVE), Flags: FlagComputes},              // exponential: ins [src, max_value?, reduce_init?], outs [dst, reduce_res?]
	{Name: "GetSequenceBounds", Op: OpGetSequenceBounds, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool), Flags: FlagComputes}, // sequence_bounds: ins [segment_ids [1,n]], outs [dst [1,2n]]
	{Name: "NonzeroWithCount", Op: OpNonzeroWithCount, MinIns: 1, MaxIns: 1, MinOuts: 1, MaxOuts: 1, Engines: engines(EngUnassigned, EngPool), Flags: FlagComputes},   // nonzero_with_count: ins [src [P,T]], outs [dst [P,T+1]]
	{Name: "Generic", Op: OpGeneric, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagNoSemantics},
	{Name: "GenericRelu", Op: OpGenericRelu, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagComputes | FlagNoSemantics},
	{Name: "AbstractCopy", Op: OpAbstractCopy, MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagMovesData | FlagNoSemantics},
}

var (
	opByNum  = map[Opcode]*OpInfo{}
	opByName = map[string]*OpInfo{}
)

func init() {
	for i := range opTable {
		in := &opTable[i]
		if _, dup := opByNum[in.Op]; dup {
			panic(fmt.Sprintf("bir: opcode number %d used twice (%s)", in.Op, in.Name))
		}
		if _, dup := opByName[in.Name]; dup {
			panic(fmt.Sprintf("bir: opcode name %s used twice", in.Name))
		}
		opByNum[in.Op] = in
		opByName[in.Name] = in
		for int(in.Op) >= len(opDense) {
			opDense = append(opDense, nil)
		}
		opDense[in.Op] = in
	}
}

// opDense indexes the table by opcode number: Info is called for every
// instruction by every pass, and a slice lookup costs a fraction of a map
// lookup (opByNum stays for the init-time duplicate check).
var opDense []*OpInfo

var unknownOpInfo = OpInfo{Name: "?", MinIns: 0, MaxIns: Variadic, MinOuts: 0, MaxOuts: Variadic, Engines: anyEngine, Flags: FlagNoSemantics}

// Info returns the table entry of op. Unknown (module-local) opcodes get a
// permissive entry with FlagNoSemantics; their name comes from the module.
func (op Opcode) Info() *OpInfo {
	if int(op) < len(opDense) {
		if in := opDense[op]; in != nil {
			return in
		}
	}
	return &unknownOpInfo
}

// Known reports whether op is one of narwhal's opcodes.
func (op Opcode) Known() bool { return int(op) < len(opDense) && opDense[op] != nil }

// String returns the opcode's name (module-local unknown opcodes print as
// "opcode(N)"; use Module.OpName for their real name).
func (op Opcode) String() string {
	if in, ok := opByNum[op]; ok {
		return in.Name
	}
	return fmt.Sprintf("opcode(%d)", uint16(op))
}

// LookupOpcode finds a known opcode by its BIR-JSON name.
func LookupOpcode(name string) (Opcode, bool) {
	if in, ok := opByName[name]; ok {
		return in.Op, true
	}
	return 0, false
}

// Opcodes returns every known opcode's table entry, sorted by number.
func Opcodes() []*OpInfo {
	out := make([]*OpInfo, 0, len(opTable))
	for i := range opTable {
		out = append(out, &opTable[i])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Op < out[j].Op })
	return out
}

// IsLoop reports whether op is one of the structured loop opcodes.
func (op Opcode) IsLoop() bool { return op == OpLoop || op == OpDynamicForLoop || op == OpDoWhile }

// IsMatmul reports whether op is in the matmul family (seed 000: 0x8/0x5f).
func (op Opcode) IsMatmul() bool {
	return op == OpMatmult || op == OpMatmultSymbolic || op == OpMatmultBase || op == OpMatmultSparse
}
