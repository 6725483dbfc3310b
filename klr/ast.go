// Package klr reads KLR files: the serialized form of an NKI kernel that
// the KLR toolchain (github.com/leanprover/KLR, the NKI front end) writes,
// and that TranslateNKIASTToBIR (seed 003, path A) lowers to BIR.
//
// A file is three CBOR items back to back (klr-format.md): the KLRFile
// header {major 0, minor 0, patch 12}, KLRMetaData {format}, and Contents,
// of which narwhal reads Contents.lnc (an LncKernel: one list of blocks per
// logical neuron core; the only variant the toolchain writes for compiled
// kernels) and, as an extension, Contents.kernel (a single-core Kernel).
//
// This file declares the Go form of the KLR Core AST that a KLR-to-BIR code
// generator consumes, following KLR/Core/{Basic,Tensor,Operators}.lean at
// commit 7ccd18c as klr-format.md describes it. Decisions where the format
// description is silent:
//
//   - Lean's Option is Opt[T]; Nat is uint64 and Int int64 (Lean encodes
//     both through 64-bit integers; the C++ reader narrows to 32 bits
//     silently, narwhal does not).
//   - Enum-like inductives (every constructor without arguments: Dtype,
//     Memory, Engine, AluOp, ...) are small integer types holding the wire
//     constructor index, with String giving the Lean constructor name.
//     KLR's Dtype order differs from narwhal's BIR numbering; convert by
//     name (Dtype.String is a name bir.ParseDtype accepts).
//   - Inductives with arguments (Access, TensorRef, Immediate, Operand,
//     DmaBounds, Index, ScalarOffset) are structs with a Kind and one field
//     per variant.
//   - Operator is an interface with one Go type per modelled constructor
//     (the ones real kernels use: activate, ncActivate, copy, ncCopy,
//     dmaCopy, ncDmaCopy, iota, loadStationary, matMul, ncMatMul, memSet,
//     tensorReduce, tensorScalar, tensorTensor, transpose). Every other
//     constructor is decoded generically (CBOR items are self-delimiting)
//     into an UnknownOperator that keeps its raw arguments, so the file
//     still reads and the code generator reports the operator by name and
//     source position instead of dropping it. The payload structures whose
//     field lists klr-format.md confirms from the fixtures (NcActivate,
//     NcDmaCopy, MemSet, NcCopy, TensorReduce, TensorScalar, TensorTensor,
//     NcMatMul) are checked strictly; for the others (Activate, Copy,
//     DmaCopy, Iota, LoadStationary, MatMul, Transpose, whose 7ccd18c field
//     lists are taken from the nearest KLR revision available) a payload
//     with a different field count is kept as an UnknownOperator with the
//     reason, rather than rejecting the whole file.
//   - TensorRef's sbuf/psum/hbm variants (TensorSram, TensorHbm views) and
//     AccessPattern.fixedAxis and NcDmaCopy.priority, whose exact 7ccd18c
//     types are not given, are kept as Raw items. Compiled kernels only use
//     TensorRef.abstract(Access.birPattern ...); the reader reads every
//     Access form (simple, basic with Index.coord/slice, pattern,
//     birPattern) and the code generator lowers each (docs/klr.md).
package klr

import "fmt"

// Opt is Lean's Option.
type Opt[T any] struct {
	Valid bool
	V     T
}

// Some returns a present option.
func Some[T any](v T) Opt[T] { return Opt[T]{Valid: true, V: v} }

// File is a decoded KLR file.
type File struct {
	Header   Header
	Metadata MetaData
	Contents Contents
}

// Header is the KLRFile structure: the format version.
type Header struct {
	Major, Minor, Patch uint64
}

// SupportedVersion is the only KLR file version narwhal reads.
var SupportedVersion = Header{0, 0, 12}

func (h Header) String() string { return fmt.Sprintf("%d.%d.%d", h.Major, h.Minor, h.Patch) }

// MetaData is the KLRMetaData structure.
type MetaData struct {
	Format string
}

// Contents constructor indices on the wire.
const (
	ContentsKernel = 2 // Contents.kernel (Core.Kernel, one body)
	ContentsLnc    = 3 // Contents.lnc (LncKernel, one body per logical core)
)

// contentsNames names the Contents constructors (0 and 1 wrap the Python
// and NKI front-end ASTs, 4 is not used for compiled kernels).
var contentsNames = []string{"python", "nki", "kernel", "lnc"}

// Contents is the file's payload: exactly one of Kernel and Lnc is set.
type Contents struct {
	Ctor   int
	Kernel *Kernel
	Lnc    *LncKernel
}

// CtorName returns the Contents constructor name.
func (c *Contents) CtorName() string { return contentsCtorName(c.Ctor) }

func contentsCtorName(ctor int) string {
	if ctor >= 0 && ctor < len(contentsNames) {
		return contentsNames[ctor]
	}
	return fmt.Sprintf("constructor %d", ctor)
}

// AsLnc returns the kernel as an LncKernel; a Contents.kernel becomes an
// LncKernel with one body.
func (c *Contents) AsLnc() *LncKernel {
	if c.Lnc != nil {
		return c.Lnc
	}
	if c.Kernel == nil {
		return nil
	}
	k := c.Kernel
	return &LncKernel{Name: k.Name, Inputs: k.Inputs, Outputs: k.Outputs, Bodies: [][]Block{k.Body}}
}

// Kernel is KLR.Core.Kernel.
type Kernel struct {
	Name    string
	Inputs  []TensorName
	Outputs []TensorName
	Body    []Block
}

// LncKernel is KLR.Core.LncKernel: one body per logical neuron core.
type LncKernel struct {
	Name            string
	Inputs          []TensorName
	Outputs         []TensorName
	Bodies          [][]Block
	SharedConstants []SharedConstantFile
	SharedBuffers   []TensorName
	Edges           []Edge
}

// SharedConstantFile names a constant tensor whose data lives in a file.
type SharedConstantFile struct {
	Name     string
	FileName string
	Tag      byte // the structure's type tag as found in the file
}

// Edge is an entry of LncKernel.edges.
type Edge struct {
	FromEdge string
	ToEdges  []string
	Tag      byte
}

// Block is KLR.Core.Block.
type Block struct {
	Label     string
	NoReorder bool
	Body      []Stmt
}

// Stmt is KLR.Core.Stmt.oper: an operator with an optional name and its
// source position.
type Stmt struct {
	Op     Operator
	Name   Opt[string]
	Pos    Pos
	Offset int // byte offset of the statement in the file
}

// Pos is a source position.
type Pos struct {
	Line      uint64
	Column    uint64
	LineEnd   Opt[uint64]
	ColumnEnd Opt[uint64]
	Filename  Opt[string]
}

// String renders the position as file:line:col ("<kernel>" when the file
// name is absent).
func (p Pos) String() string {
	f := "<kernel>"
	if p.Filename.Valid && p.Filename.V != "" {
		f = p.Filename.V
	}
	return fmt.Sprintf("%s:%d:%d", f, p.Line, p.Column)
}

// ---- enum-like types ----

// Dtype is a KLR element type (wire order, not narwhal's BIR order).
type Dtype uint8

var dtypeNames = []string{"bfloat16", "float8e3", "float8e4", "float8e5", "float16", "float32", "float32r",
	"int8", "int16", "int64", "int32", "uint8", "uint16", "uint32", "uint64",
	"float8_e4m3", "float8_e4m3fn", "float8_e5m2_x4", "float8_e4m3fn_x4", "float4_e2m1fn_x4"}

func (d Dtype) String() string { return enumName(dtypeNames, int(d)) }

// Memory is where a tensor lives.
type Memory uint8

const (
	MemHBM        Memory = 0
	MemSBUF       Memory = 1
	MemPSUM       Memory = 2
	MemReg        Memory = 3
	MemSharedHBM  Memory = 4
	MemPrivateHBM Memory = 5
)

var memoryNames = []string{"hbm", "sbuf", "psum", "reg", "shared_hbm", "private_hbm"}

func (m Memory) String() string { return enumName(memoryNames, int(m)) }

// IsHBM reports whether m is one of the off-chip memories.
func (m Memory) IsHBM() bool { return m == MemHBM || m == MemSharedHBM || m == MemPrivateHBM }

// Engine is a compute engine.
type Engine uint8

const (
	EngUnassigned Engine = iota
	EngAct
	EngDMA
	EngDVE
	EngPE
	EngPool
	EngSP
)

var engineNames = []string{"unassigned", "act", "dma", "dve", "pe", "pool", "sp"}

func (e Engine) String() string { return enumName(engineNames, int(e)) }

// AluOp is an ALU operation.
type AluOp uint8

var aluOpNames = []string{"abs", "add", "arith_shift_left", "arith_shift_right", "average", "bitwise_and",
	"bitwise_not", "bitwise_or", "bitwise_xor", "bypass", "divide", "is_equal", "is_ge", "is_gt", "is_le",
	"is_lt", "logical_and", "logical_or", "logical_shift_left", "logical_shift_right", "logical_xor",
	"max", "min", "mod", "mult", "not_equal", "pow", "rsqrt", "subtract"}

func (a AluOp) String() string { return enumName(aluOpNames, int(a)) }

// AccumCmd controls accumulation at the destination.
type AccumCmd uint8

var accumCmdNames = []string{"Idle", "Zero", "Accumulate", "ZeroAccumulate", "LoadAccumulate"}

func (a AccumCmd) String() string { return enumName(accumCmdNames, int(a)) }

// ActivationFunc is an activation function.
type ActivationFunc uint8

var activationFuncNames = []string{"abs", "arctan", "copy", "erf", "erf_dx", "exp", "gelu", "gelu_apprx_tanh",
	"gelu_dx", "log", "mish", "reciprocal", "relu", "rsqrt", "sigmoid", "sign", "silu", "silu_dx", "sin",
	"softplus", "sqrt", "square", "tanh", "gelu_apprx_sigmoid", "gelu_apprx_sigmoid_dx"}

func (a ActivationFunc) String() string { return enumName(activationFuncNames, int(a)) }

// DgeComputeOp is a DMA read-modify-write operation.
type DgeComputeOp uint8

var dgeComputeOpNames = []string{"none", "add"}

func (o DgeComputeOp) String() string { return enumName(dgeComputeOpNames, int(o)) }

// MatmulPerfMode is a matmul performance mode.
type MatmulPerfMode uint8

var matmulPerfModeNames = []string{"None", "DoubleRow", "DoubleRowSwInterleave"}

func (m MatmulPerfMode) String() string { return enumName(matmulPerfModeNames, int(m)) }

// TensorScalarReverseOps says which TensorScalar stages swap operands.
type TensorScalarReverseOps uint8

var reverseOpsNames = []string{"none", "first", "second", "both"}

func (r TensorScalarReverseOps) String() string { return enumName(reverseOpsNames, int(r)) }

// TensorSubDim is a contiguous set of trailing axes.
type TensorSubDim uint8

var tensorSubDimNames = []string{"X", "XY", "XYZ", "XYZW"}

func (t TensorSubDim) String() string { return enumName(tensorSubDimNames, int(t)) }

func enumName(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("#%d", i)
}

// ---- tensors and accesses ----

// Shape is a tensor shape: the partition dimension and the free dimensions.
type Shape struct {
	ParDim   uint64
	FreeDims []uint64
}

// Dims returns [parDim, freeDims...].
func (s Shape) Dims() []uint64 { return append([]uint64{s.ParDim}, s.FreeDims...) }

// FreeElements returns the product of the free dimensions.
func (s Shape) FreeElements() uint64 {
	n := uint64(1)
	for _, f := range s.FreeDims {
		n *= f
	}
	return n
}

// Address is a memory region: sizes and (once allocated) offsets in bytes.
type Address struct {
	Name       string
	Memory     Memory
	ParSize    uint64
	FreeSize   uint64
	ParOffset  Opt[uint64]
	FreeOffset Opt[uint64]
	IsShared   bool
}

// TensorName is a runtime tensor.
type TensorName struct {
	Name            string
	Dtype           Dtype
	Shape           Shape
	Address         Address
	FreeElements    uint64
	AddressRotation bool
}

// Slice is a basic-indexing slice l:u:step.
type Slice struct {
	L, U uint64
	Step int64
}

// IndexKind selects the Index variant.
type IndexKind uint8

const (
	IndexCoord IndexKind = 0
	IndexSlice IndexKind = 1
)

// Index is one basic-indexing element.
type Index struct {
	Kind  IndexKind
	Coord uint64
	Slice Slice
}

// AccessBasic is basic indexing of a tensor.
type AccessBasic struct {
	Tensor  TensorName
	Indexes []Index
}

// APPair is one [step, num] pair of an access pattern, with the start of
// that dimension.
type APPair struct {
	Step   int64
	Num    uint64
	Offset int64
}

// AccessPattern is a hardware-native access pattern over a tensor.
type AccessPattern struct {
	Tensor     TensorName
	ParNum     uint64
	Pattern    []APPair
	ParOffset  uint64
	FreeOffset uint64
	FixedAxis  Raw
}

// ScalarOffsetKind selects the ScalarOffset variant.
type ScalarOffsetKind uint8

const (
	ScalarOffsetReg ScalarOffsetKind = 0
	ScalarOffsetAcc ScalarOffsetKind = 1
)

// ScalarOffset is a dynamic offset: a register or a 1x1 tensor access.
type ScalarOffset struct {
	Kind ScalarOffsetKind
	Reg  string
	Acc  *Access
}

// BirAccessPattern is the BIR-compatible access pattern of compiled kernels:
// an element offset into the tensor laid out row-major and [step,num]
// pairs, the first walking partitions with step = row length.
type BirAccessPattern struct {
	Tensor        TensorName
	Offset        int64
	Pattern       []APPair
	ScalarOffset  Opt[ScalarOffset]
	VectorOffset  Opt[*Access]
	IndirectDim   int64
	DtypeOverride Opt[Dtype]
}

// AccessKind selects the Access variant.
type AccessKind uint8

const (
	AccessKindSimple     AccessKind = 0
	AccessKindBasic      AccessKind = 1
	AccessKindPattern    AccessKind = 2
	AccessKindBirPattern AccessKind = 3
)

var accessNames = []string{"simple", "basic", "pattern", "birPattern"}

// Access is a tensor access: whole tensor, basic indexing, an access
// pattern, or a BIR access pattern. Exactly the field of Kind is set.
type Access struct {
	Kind    AccessKind
	Simple  *TensorName
	Basic   *AccessBasic
	Pattern *AccessPattern
	Bir     *BirAccessPattern
}

// KindName returns the constructor name.
func (a *Access) KindName() string { return enumName(accessNames, int(a.Kind)) }

// Tensor returns the accessed tensor.
func (a *Access) Tensor() *TensorName {
	switch a.Kind {
	case AccessKindSimple:
		return a.Simple
	case AccessKindBasic:
		return &a.Basic.Tensor
	case AccessKindPattern:
		return &a.Pattern.Tensor
	default:
		return &a.Bir.Tensor
	}
}

// TensorRefKind selects the TensorRef variant.
type TensorRefKind uint8

const (
	RefAbstract TensorRefKind = 0
	RefSbuf     TensorRefKind = 1
	RefPsum     TensorRefKind = 2
	RefHbm      TensorRefKind = 3
	RefRegister TensorRefKind = 4
)

var tensorRefNames = []string{"abstract", "sbuf", "psum", "hbm", "register"}

// TensorRef is an instruction's reference to a tensor.
type TensorRef struct {
	Kind   TensorRefKind
	Access *Access // RefAbstract
	View   Raw     // RefSbuf, RefPsum, RefHbm (TensorSram / TensorHbm, kept raw)
	Reg    uint64  // RefRegister
}

// KindName returns the constructor name.
func (r *TensorRef) KindName() string { return enumName(tensorRefNames, int(r.Kind)) }

// ImmediateKind selects the Immediate variant.
type ImmediateKind uint8

const (
	ImmRegister ImmediateKind = 0
	ImmPointer  ImmediateKind = 1
	ImmInt      ImmediateKind = 2
	ImmFloat    ImmediateKind = 3
)

var immediateNames = []string{"register", "pointer", "int", "float"}

// Immediate is an immediate operand.
type Immediate struct {
	Kind  ImmediateKind
	Reg   uint64
	Int   int32
	Float float32
}

// KindName returns the constructor name.
func (i *Immediate) KindName() string { return enumName(immediateNames, int(i.Kind)) }

// OperandKind selects the Operand variant.
type OperandKind uint8

const (
	OperandImm  OperandKind = 0
	OperandTile OperandKind = 1
)

// Operand is an immediate or a tile.
type Operand struct {
	Kind OperandKind
	Imm  Immediate
	Tile *TensorRef
}

// DmaBoundsKind selects the DmaBounds variant.
type DmaBoundsKind uint8

const (
	BoundsSkip  DmaBoundsKind = 0
	BoundsError DmaBoundsKind = 1
	BoundsReg   DmaBoundsKind = 2
)

var dmaBoundsNames = []string{"skip", "error", "reg"}

// DmaBounds is a DMA out-of-bounds mode.
type DmaBounds struct {
	Kind DmaBoundsKind
	Reg  uint64
}

// KindName returns the constructor name.
func (b DmaBounds) KindName() string { return enumName(dmaBoundsNames, int(b.Kind)) }

// DataPattern generates values (Iota, AffineSelect).
type DataPattern struct {
	Offset            int64
	Pattern           []APPair
	ChannelMultiplier int64
}

// ---- operators ----

// Operator is one KLR operator (a constructor of KLR.Core.Operator).
type Operator interface {
	// Name returns the constructor name (ncDmaCopy, tensorTensor, ...).
	Name() string
	// Ctor returns the constructor index.
	Ctor() int
}

// Operator constructor indices (KLR/Core/Operators.lean at 7ccd18c).
const (
	OpActivate       = 0
	OpNcActivate     = 1
	OpCopy           = 7
	OpNcCopy         = 8
	OpDmaCopy        = 10
	OpNcDmaCopy      = 11
	OpIota           = 15
	OpLoadStationary = 17
	OpMatMul         = 20
	OpNcMatMul       = 21
	OpMemSet         = 25
	OpTensorReduce   = 32
	OpTensorScalar   = 33
	OpTensorTensor   = 34
	OpTranspose      = 38
)

// operatorNames are the Operator constructor names up to transpose (38),
// the part of the 76-constructor list that klr-format.md pins; later
// constructors are reported by index.
var operatorNames = []string{
	"activate", "ncActivate", "activationReduce", "affineSelect", "ncAffineSelect",
	"batchNormAggregate", "batchNormStats", "copy", "ncCopy", "copyPredicated",
	"dmaCopy", "ncDmaCopy", "dmaTranspose", "dropout", "findIndex8", "iota",
	"loadMaskRegister", "loadStationary", "localGather", "ncLocalGather", "matMul",
	"ncMatMul", "matchReplace8", "matchValueLoad", "max8", "memSet", "rangeSelect",
	"ncRangeSelect", "reciprocal", "scalarTensorTensor", "ncScalarTensorTensor",
	"shuffle", "tensorReduce", "tensorScalar", "tensorTensor", "tensorTensorScan",
	"tensorPartitionReduce", "tensorScalarReduce", "transpose",
}

// OperatorName returns the name of an Operator constructor index.
func OperatorName(ctor int) string {
	if ctor >= 0 && ctor < len(operatorNames) {
		return operatorNames[ctor]
	}
	return fmt.Sprintf("operator#%d", ctor)
}

// Activate is activate: dst = func(src*scale + bias, imm) with immediates.
type Activate struct {
	Dst, Src       TensorRef
	AccumulatorCmd AccumCmd
	ActivationFunc ActivationFunc
	Scale          Immediate
	Bias           Immediate
	Imm            Immediate
}

// NcActivate is ncActivate (nki.isa.activation).
type NcActivate struct {
	Dst, Src       TensorRef
	AccumulatorCmd AccumCmd
	ActivationFunc ActivationFunc
	Scale          Operand
	Bias           Opt[TensorRef]
	ReduceOp       Opt[AluOp]
	ReduceRes      Opt[TensorRef]
	Dtype          Opt[Dtype]
}

// Copy is copy.
type Copy struct {
	Dst, Src TensorRef
	OpDim    Opt[TensorSubDim]
}

// NcCopy is ncCopy (nki.isa.tensor_copy).
type NcCopy struct {
	Dst, Src TensorRef
	Dtype    Opt[Dtype]
	Engine   Engine
}

// DmaCopy is dmaCopy.
type DmaCopy struct {
	Dst, Src       TensorRef
	ComputeOp      DgeComputeOp
	DstBoundsCheck DmaBounds
	SrcBoundsCheck DmaBounds
}

// NcDmaCopy is ncDmaCopy (nki.isa.dma_copy).
type NcDmaCopy struct {
	Dst, Src      TensorRef
	ComputeOp     DgeComputeOp
	OobMode       DmaBounds
	DgeMode       uint64
	UniqueIndices bool
	Priority      Opt[Raw]
	Engine        Engine
}

// Iota is iota.
type Iota struct {
	Dst     TensorRef
	Pattern DataPattern
	Dtype   Opt[Dtype]
}

// LoadStationary latches the stationary matrix of a following matMul.
type LoadStationary struct {
	Src         TensorRef
	IsTranspose bool
}

// MatMul multiplies the latched stationary matrix with moving.
type MatMul struct {
	Dst, Moving TensorRef
}

// NcMatMul is ncMatMul (nki.isa.nc_matmul): dst[M,N] = stationary[K,M]^T @
// moving[K,N].
type NcMatMul struct {
	Dst, Stationary, Moving TensorRef
	IsStationaryOneZero     bool
	IsMovingZero            bool
	IsTranspose             bool
	TilePosition            []uint64
	TileSize                []uint64
	PerfMode                MatmulPerfMode
}

// MemSet is memSet.
type MemSet struct {
	Dst    TensorRef
	Value  Immediate
	Dtype  Dtype
	Engine Engine
}

// TensorReduce is tensorReduce.
type TensorReduce struct {
	Dst, Src TensorRef
	Op       AluOp
	OpDim    TensorSubDim
	Negated  bool
	Dtype    Opt[Dtype]
	Keepdims bool
}

// TensorScalar is tensorScalar: dst = (src op0 imm0) op1 imm1.
type TensorScalar struct {
	Dst, Src TensorRef
	Imm0     Operand
	Op0      AluOp
	Imm1     Opt[Operand]
	Op1      Opt[AluOp]
	Reverse  TensorScalarReverseOps
	Engine   Engine
	Dtype    Opt[Dtype]
}

// TensorTensor is tensorTensor: dst = src0 op src1.
type TensorTensor struct {
	Dst, Src0, Src1 TensorRef
	Op              AluOp
	Dtype           Opt[Dtype]
	Engine          Engine
}

// Transpose is transpose.
type Transpose struct {
	Dst, Src TensorRef
	Dtype    Opt[Dtype]
	Engine   Engine
}

// UnknownOperator is an operator constructor narwhal does not model, kept
// with its raw arguments.
type UnknownOperator struct {
	Index  int
	Args   []Raw
	Reason string // why it is unknown, e.g. "field count 9, narwhal models 7"
}

func (*Activate) Name() string          { return "activate" }
func (*NcActivate) Name() string        { return "ncActivate" }
func (*Copy) Name() string              { return "copy" }
func (*NcCopy) Name() string            { return "ncCopy" }
func (*DmaCopy) Name() string           { return "dmaCopy" }
func (*NcDmaCopy) Name() string         { return "ncDmaCopy" }
func (*Iota) Name() string              { return "iota" }
func (*LoadStationary) Name() string    { return "loadStationary" }
func (*MatMul) Name() string            { return "matMul" }
func (*NcMatMul) Name() string          { return "ncMatMul" }
func (*MemSet) Name() string            { return "memSet" }
func (*TensorReduce) Name() string      { return "tensorReduce" }
func (*TensorScalar) Name() string      { return "tensorScalar" }
func (*TensorTensor) Name() string      { return "tensorTensor" }
func (*Transpose) Name() string         { return "transpose" }
func (u *UnknownOperator) Name() string { return OperatorName(u.Index) }

func (*Activate) Ctor() int          { return OpActivate }
func (*NcActivate) Ctor() int        { return OpNcActivate }
func (*Copy) Ctor() int              { return OpCopy }
func (*NcCopy) Ctor() int            { return OpNcCopy }
func (*DmaCopy) Ctor() int           { return OpDmaCopy }
func (*NcDmaCopy) Ctor() int         { return OpNcDmaCopy }
func (*Iota) Ctor() int              { return OpIota }
func (*LoadStationary) Ctor() int    { return OpLoadStationary }
func (*MatMul) Ctor() int            { return OpMatMul }
func (*NcMatMul) Ctor() int          { return OpNcMatMul }
func (*MemSet) Ctor() int            { return OpMemSet }
func (*TensorReduce) Ctor() int      { return OpTensorReduce }
func (*TensorScalar) Ctor() int      { return OpTensorScalar }
func (*TensorTensor) Ctor() int      { return OpTensorTensor }
func (*Transpose) Ctor() int         { return OpTranspose }
func (u *UnknownOperator) Ctor() int { return u.Index }
