// Package interp is narwhal's reference interpreter: it executes a BIR
// module on concrete memory (DRAM tensors by name, SBUF as partitions x
// bytes, PSUM as partitions x 8 banks x 2 KiB, engine registers), following
// the addressing model of design.md and the per-instruction semantics of
// ../shared/docs/semantics.md. It is the evidence machine of narwhal: every
// pass is validated by running the module before and after it on the same
// inputs and comparing the outputs.
//
// (This file fixes the package's API; the implementation lives in the
// other files of the package.)
//
// Throughput (bench_test.go; go test -run XXX -bench Interp ./interp, on
// the 2-core 2.8 GHz Xeon of the shared development machine, best of
// several runs; under that machine's usual load figures are up to 2x
// lower):
//
//	BenchmarkInterp_Matmul             K=512, M=128, N=1024 fp32: 1.1e9 MAC/s, 2.2e6 output elements/s
//	BenchmarkInterp_Softmax            1024 x 512 fp32, 8 instructions per 128-row tile: 1.1e7 input elements/s
//	BenchmarkInterp_SmallInstructions  16-element TensorTensor: about 630 ns per instruction
//
// The matmul inner loop is one fp32 multiply-add per MAC; softmax time is
// dominated by Exp (float64 math.Exp per element, about a quarter) and by
// access-pattern evaluation (about a fifth). Executing an instruction
// allocates nothing once the scratch buffers have grown
// (TestRun_NoPerInstructionAllocation).
package interp

import (
	"github.com/narwhal-compiler/narwhal/bir"
)

// Tensor is a host-side tensor: row-major little-endian element bytes.
type Tensor struct {
	Name  string
	Dtype bir.Dtype
	Shape []int64
	Data  []byte
}

// NumElements returns the product of the shape (-1 when it overflows
// int64, so that it matches no data length).
func (t *Tensor) NumElements() int64 { return shapeElements(t.Shape) }

// Spec describes an input or output tensor of a function: its name (the
// DRAM location name, e.g. "x"), dtype and shape.
type Spec struct {
	Name  string
	Dtype bir.Dtype
	Shape []int64
}

// Options configure a run.
type Options struct {
	// Geometry; zero values take the defaults of the module's arch
	// (128 partitions; SBUF bytes per partition of the arch; PSUM 8 banks
	// of 2 KiB per partition).
	Partitions       int64
	SBUFBytesPerPart int64
	PSUMBanks        int64
	PSUMBankBytes    int64
	// AllowUninitReads turns the read-of-never-written-memory error off
	// (reads then see the sentinel fill).
	AllowUninitReads bool
	// MaxInstructions bounds the number of executed instructions, so a
	// runaway DoWhile or a loop of 2^62 trips cannot hang a run: 0 takes
	// DefaultMaxInstructions, a negative value means no limit. Each loop
	// iteration counts as one instruction.
	MaxInstructions int64
	// MaxMemory bounds the bytes the run allocates (storage of every
	// location, scratch, inputs and outputs), checked before each
	// allocation (budget.go): 0 takes DefaultMaxMemory, a negative value
	// means no limit.
	MaxMemory int64
	// Function is the entry function (default: the module's main).
	Function string
	// Macro executes macro operations (docs/bir-json.md "Macro
	// operations"): an engine access may span PSUM banks, as a
	// whole-tensor operation does before sunda_size_tiling tiles it onto
	// one bank per instruction. Off (the default), an access crossing a
	// bank boundary is an ErrPSUMBankSpan (the hardware rule of one
	// instruction). Every other rule is the same.
	Macro bool
	// OnLoopTrips, when set, is told the trip count of each execution of
	// a loop whose trip count is known only at run time (a DynamicForLoop
	// with register bounds, at entry; a DoWhile, its passes, at exit).
	OnLoopTrips func(f *bir.Function, loop bir.InstID, trips int64)
}

// The entry points (implemented in run.go):
//
//	func Run(m *bir.Module, inputs map[string]*Tensor, opt Options) (map[string]*Tensor, error)
//	    Executes the entry function. inputs are keyed by the names of the
//	    module's input tensors (the MemoryLocationSet name without its
//	    "_set" suffix, i.e. the DRAM location name, e.g. "x"); the result
//	    holds every output tensor by the same naming. Errors name the
//	    function and instruction ("function main, instruction add_3
//	    (TensorTensor): read of never-written SBUF at partition 5 byte 64").
//
//	func InputSpecs(m *bir.Module) []Spec      // the entry function's inputs: name, dtype, shape
//	func OutputSpecs(m *bir.Module) []Spec     // the entry function's outputs
//	func RandomInputs(m *bir.Module, seed int64) map[string]*Tensor
//	    Random inputs that depend only on the seed and each input's name,
//	    dtype and shape (so a module before and after a pass gets the same
//	    inputs). Floats are drawn from [-1, 1) (normal-ish magnitudes),
//	    integers from a small range; index tensors of gathers may need
//	    kernel-specific inputs (the caller can override any entry).
//
//	func RunConcurrent(m *bir.Module, inputs map[string]*Tensor, opt ConcurrentOptions) (*ConcurrentResult, error)
//	func RunCores(mods []*bir.Module, inputs map[string]*Tensor, opt ConcurrentOptions) (*ConcurrentResult, error)
//	    Execute a synchronized module (one per core) concurrently, every
//	    engine and DMA queue its own stream, the steps interleaved by a
//	    policy: the race checker (concurrent.go, race.go). The result lists
//	    races, a deadlock, DMAs in flight after Halt, and the outputs.
//
// Extensions of the contract (errors.go, run.go):
//
//	type Error struct{ Kind ErrorKind; Func, Inst, Op, Iter, Msg string; CalledFrom []string }
//	    Every error Run returns is an *Error; Kind classifies it
//	    (ErrOutOfBounds, ErrUninitRead, ErrPSUMBankSpan, ErrCountMismatch,
//	    ErrMemoryRule, ErrNoSemantics, ErrOperand, ErrLimit, ErrInput,
//	    ErrDomain, ErrInternal) so callers need not match message text.
//	func CheckInputs(m *bir.Module, opt Options) error
//	    Whether the inputs fit the memory budget, before a caller draws them.
//	func RandomTensor(s Spec, seed int64) *Tensor   // one entry of RandomInputs
//	func (s Spec) NumElements() int64
//
// The semantics choices the interpreter makes where semantics.md is silent
// are listed, with the function implementing each, in
// docs/semantics-choices.md.
