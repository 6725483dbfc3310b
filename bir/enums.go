package bir

import "fmt"

// Engine is the NeuronCore engine an instruction runs on. The spellings are
// BIR-JSON's (bir-json.md §4.2).
type Engine uint8

const (
	EngUnassigned Engine = iota
	EngAct               // Scalar engine ("Activation")
	EngPE                // Tensor engine
	EngDVE               // Vector engine
	EngPool              // GpSimd engine
	EngSP                // Sync engine
	EngDMA               // a DMA queue
	NumEngines
)

var engineNames = [NumEngines]string{"Unassigned", "Activation", "PE", "DVE", "Pool", "SP", "DMA"}

func (e Engine) String() string {
	if e < NumEngines {
		return engineNames[e]
	}
	return fmt.Sprintf("engine(%d)", uint8(e))
}

// ProfilerName is the Neuron profiler's name of an engine (hardware.md
// "Profiler conventions": Tensor, Vector, Scalar, GpSimd, Sync; DMA for
// the DMA queues). The schedule's trace, the per-engine stream listings
// and the concurrent interpreter's reports use it.
func (e Engine) ProfilerName() string {
	switch e {
	case EngPE:
		return "Tensor"
	case EngDVE:
		return "Vector"
	case EngAct:
		return "Scalar"
	case EngPool:
		return "GpSimd"
	case EngSP:
		return "Sync"
	case EngDMA:
		return "DMA"
	}
	return e.String()
}

// ParseEngine accepts the BIR-JSON spelling and common aliases.
func ParseEngine(s string) (Engine, error) {
	for i, n := range engineNames {
		if n == s {
			return Engine(i), nil
		}
	}
	switch s {
	case "Act", "ACT", "Scalar", "scalar":
		return EngAct, nil
	case "Tensor", "tensor", "pe":
		return EngPE, nil
	case "Vector", "vector", "dve":
		return EngDVE, nil
	case "GpSimd", "gpsimd", "POOL", "pool":
		return EngPool, nil
	case "Sync", "sync", "sp":
		return EngSP, nil
	case "dma":
		return EngDMA, nil
	}
	return 0, fmt.Errorf("unknown engine %q (want one of Unassigned, Activation, PE, DVE, Pool, SP, DMA)", s)
}

// EngineMask is a set of engines.
type EngineMask uint16

// Has reports whether e is in the set.
func (m EngineMask) Has(e Engine) bool { return m&(1<<e) != 0 }

func engines(es ...Engine) EngineMask {
	var m EngineMask
	for _, e := range es {
		m |= 1 << e
	}
	return m
}

// MemoryType is where a MemoryLocation lives (bir-json.md §3.2).
type MemoryType uint8

const (
	MemUnallocated MemoryType = iota
	MemInput                  // a kernel input in DRAM
	MemOutput                 // a kernel output in DRAM
	MemDRAM                   // internal DRAM (HBM)
	MemSB                     // state buffer (SBUF)
	MemPSUM                   // partial-sum buffer
	MemRNGState
	MemReg
	// MemOnChip is narwhal's "on-chip, placement open": SBUF or PSUM, left
	// to the compiler. infer_psum_tensor (passes/alloc, seed 002 §4.4,
	// InferPSumTensor) turns every such location into SB or PSUM; it is
	// on-chip for every rule that holds of both (the footprint passes size
	// it against the usable SBUF), and no location may remain OnChip once
	// memory is allocated (verify.StageAllocated). BIR-JSON and the text
	// form spell it "OnChip" (a narwhal extension: docs/bir-json.md).
	MemOnChip
	NumMemoryTypes
)

var memTypeNames = [NumMemoryTypes]string{"Unallocated", "Input", "Output", "DRAM", "SB", "PSUM", "RNGSTATE", "REG", "OnChip"}

func (t MemoryType) String() string {
	if t < NumMemoryTypes {
		return memTypeNames[t]
	}
	return fmt.Sprintf("memtype(%d)", uint8(t))
}

// IsDRAM reports whether t is a flat off-chip memory (Input, Output, DRAM).
func (t MemoryType) IsDRAM() bool { return t == MemInput || t == MemOutput || t == MemDRAM }

// IsOnChip reports whether t is SBUF, PSUM or OnChip (partitioned
// memories).
func (t MemoryType) IsOnChip() bool { return t == MemSB || t == MemPSUM || t == MemOnChip }

// ParseMemoryType accepts the BIR-JSON spelling.
func ParseMemoryType(s string) (MemoryType, error) {
	for i, n := range memTypeNames {
		if n == s {
			return MemoryType(i), nil
		}
	}
	switch s {
	case "SBUF", "sbuf":
		return MemSB, nil
	case "HBM", "hbm":
		return MemDRAM, nil
	case "psum":
		return MemPSUM, nil
	}
	return 0, fmt.Errorf("unknown memory type %q (want one of Unallocated, Input, Output, DRAM, SB, PSUM, RNGSTATE, REG, OnChip)", s)
}

// TensorKind is the role of a tensor (bir-json.md §3.1).
type TensorKind uint8

const (
	KindInternal TensorKind = iota
	KindExternalInput
	KindExternalInputParameter
	KindInput
	KindExternalOutput
	KindExternalOutputParameter
	KindOutput
	KindConst
	KindPointer
	KindInternalInterface
	NumTensorKinds
)

var tensorKindNames = [NumTensorKinds]string{"Internal", "ExternalInput", "ExternalInputParameter", "Input", "ExternalOutput", "ExternalOutputParameter", "Output", "Const", "Pointer", "InternalInterface"}

func (k TensorKind) String() string {
	if k < NumTensorKinds {
		return tensorKindNames[k]
	}
	return fmt.Sprintf("tensorkind(%d)", uint8(k))
}

// IsInput reports whether k is one of the input kinds.
func (k TensorKind) IsInput() bool {
	return k == KindInput || k == KindExternalInput || k == KindExternalInputParameter
}

// IsOutput reports whether k is one of the output kinds.
func (k TensorKind) IsOutput() bool {
	return k == KindOutput || k == KindExternalOutput || k == KindExternalOutputParameter
}

// ParseTensorKind accepts the BIR-JSON spelling.
func ParseTensorKind(s string) (TensorKind, error) {
	for i, n := range tensorKindNames {
		if n == s {
			return TensorKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tensor kind %q", s)
}

// TensorClass is BIR's tensor class (bir-json.md §3.1). Const is 6 as in
// seed 003 (copyConstFileToArtifact tests TensorClass == 6): narwhal numbers
// the classes so that holds; LoopTensor is 8 (seed 003 tensorSplit skips the
// allocation assert for class 8).
type TensorClass uint8

const (
	ClassTensor               TensorClass = 0
	ClassSingleValueTensor    TensorClass = 1
	ClassNeuronTensor         TensorClass = 2
	ClassNeuronWeightTensor   TensorClass = 3
	ClassIdentityWeightTensor TensorClass = 4
	ClassNeuronBlockTensor    TensorClass = 5
	ClassConst                TensorClass = 6
	ClassDRAM2DBlockTensor    TensorClass = 7
	ClassLoopTensor           TensorClass = 8
	ClassNeuron3DBlockTensor  TensorClass = 9
	ClassDRAM3DBlockTensor    TensorClass = 10
	ClassNeuronLocalTensor    TensorClass = 11
	ClassNeuronSBTensor       TensorClass = 12
	ClassNeuronPSUMTensor     TensorClass = 13
	NumTensorClasses                      = 14
)

var tensorClassNames = [NumTensorClasses]string{"Tensor", "SingleValueTensor", "NeuronTensor", "NeuronWeightTensor", "IdentityWeightTensor", "NeuronBlockTensor", "Const", "DRAM2DBlockTensor", "LoopTensor", "Neuron3DBlockTensor", "DRAM3DBlockTensor", "NeuronLocalTensor", "NeuronSBTensor", "NeuronPSUMTensor"}

func (c TensorClass) String() string {
	if c < NumTensorClasses {
		return tensorClassNames[c]
	}
	return fmt.Sprintf("tensorclass(%d)", uint8(c))
}

// ParseTensorClass accepts the BIR-JSON spelling.
func ParseTensorClass(s string) (TensorClass, error) {
	for i, n := range tensorClassNames {
		if n == s {
			return TensorClass(i), nil
		}
	}
	return 0, fmt.Errorf("unknown tensor class %q", s)
}

// AddrSpace is BIR's address space.
type AddrSpace uint8

const (
	AddrShared AddrSpace = iota
	AddrLocal
	AddrNone // the key was null
)

func (a AddrSpace) String() string {
	switch a {
	case AddrShared:
		return "Shared"
	case AddrLocal:
		return "Local"
	}
	return "null"
}

// DepKind is the kind of a dependency edge (seed 002 §6.3: the
// ANTI/FLOW/INVALID/ORDERED/OUTPUT enum).
type DepKind uint8

const (
	DepFlow    DepKind = iota // read after write
	DepAnti                   // write after read
	DepOutput                 // write after write
	DepOrdered                // ordering only
	NumDepKinds
)

var depKindNames = [NumDepKinds]string{"FLOW", "ANTI", "OUTPUT", "ORDERED"}

func (k DepKind) String() string {
	if k < NumDepKinds {
		return depKindNames[k]
	}
	return fmt.Sprintf("depkind(%d)", uint8(k))
}

// ParseDepKind accepts FLOW, ANTI, OUTPUT, ORDERED (and the *_DEPENDENCE forms).
func ParseDepKind(s string) (DepKind, error) {
	for i, n := range depKindNames {
		if n == s || n+"_DEPENDENCE" == s {
			return DepKind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown dependency kind %q (want FLOW, ANTI, OUTPUT or ORDERED)", s)
}

// FuncKind is the kind of a function.
type FuncKind uint8

const (
	FuncNormal FuncKind = 0
	FuncNKI    FuncKind = 2 // seed 003: *(u32*)(F + 0xD0) = 2
)

func (k FuncKind) String() string {
	if k == FuncNKI {
		return "nki"
	}
	return "normal"
}
