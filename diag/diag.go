// Package diag holds narwhal's stable error codes: one code per kind of
// user mistake, each documented with a small bad input and its fix
// (docs/errors.md is generated from Registry; `narwhal explain CODE`
// prints an entry), and the one code for narwhal's own failures, NW900.
//
// A code is attached where the error is made: an error type implements
//
//	ErrorCode() string // one of the constants below
//
// (the readers' and passes' error types, the verifier's error by the
// rule its first diagnostic breaks), or a plain error is wrapped with
// Wrap / Errorf. CodeOf finds the first code along an error's chain, so
// wrapping with fmt.Errorf("...: %w", err) keeps it.
//
// The package depends on nothing but the standard library (and
// internal/textdiff and internal/bug, whose ErrInternal marks narwhal's
// faults), so every package can use it. Adding a kind of mistake: a constant, an Entry in
// Registry with an example that triggers it and its fix (the test in
// cmd/narwhal runs both), then `go test ./diag -update` regenerates
// docs/errors.md.
package diag

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/narwhal-compiler/narwhal/internal/bug"
)

// The codes. NW1xx: the command line, the input and output files; NW2xx:
// input formats; NW3xx: the input breaks a rule of the IR or the hardware
// (the verifier); NW4xx: compiling the input fails; NW5xx: running it in
// the interpreter (narwhal run) fails; NW900: narwhal's fault.
const (
	Usage       = "NW101" // unknown flag, bad flag value, wrong number of arguments
	UnknownArch = "NW102" // --target / --arch / the module's arch names no machine
	PassOption  = "NW103" // --passes, --print-after, --option name no pass or option
	ReadInput   = "NW104" // the input file cannot be read or is empty
	Builtin     = "NW105" // builtin:NAME or its parameters are wrong
	Output      = "NW106" // an output file cannot be written (or would overwrite the input)
	KernelBind  = "NW107" // a kernel file's --kernel, --input, --inputs, --arg or --grid does not fit the kernel

	BadJSON   = "NW201" // malformed BIR-JSON
	BadText   = "NW202" // malformed text form
	BadKLR    = "NW203" // malformed KLR file
	BadCSV    = "NW205" // malformed allocation problem (MiniMalloc CSV)
	BadPython = "NW206" // a kernel file is not valid Python (a SyntaxError)

	Structure     = "NW301" // broken references, duplicate names, block or loop structure
	Declaration   = "NW302" // a tensor or location declaration is wrong
	OperandShape  = "NW303" // operand count or element counts disagree for the opcode
	OutOfBounds   = "NW304" // an access pattern leaves its tensor
	EngineOpcode  = "NW305" // the engine cannot run the opcode
	WrongMemory   = "NW306" // an operand is in a memory the engine cannot use
	EngineAP      = "NW307" // an access pattern the engine cannot encode
	MatmulLimit   = "NW308" // matmul sizes or tile fields out of range
	BadField      = "NW309" // an opcode field is missing or malformed
	IndirectShape = "NW310" // an indirect DMA's shapes disagree
	PartStart     = "NW311" // the partition-start rule
	PSUMBank      = "NW312" // an access crosses a PSUM bank
	Stage         = "NW313" // the module claims or needs a stage it does not satisfy
	Overlap       = "NW314" // two tensors live at once share on-chip memory

	TooManyInsts   = "NW401" // unrolling makes too many instructions
	DoesNotFit     = "NW402" // a tensor cannot be made to fit on-chip memory
	KernelCodegen  = "NW403" // an NKI kernel uses something narwhal cannot translate
	KernelCall     = "NW404" // an NKI kernel placeholder: file, core or arguments
	DMALegalize    = "NW405" // a DMA the DMA passes cannot legalize
	ParallelInputs = "NW406" // several inputs: conflicting outputs
	TilingRefused  = "NW407" // sunda_size_tiling cannot tile a macro operation
	Semaphores     = "NW408" // the synchronization needs more semaphores than the machine has
	LNCCores       = "NW409" // an LNC kernel's cores cannot be compiled together
	LoopNotHandled = "NW410" // a loop the scheduler or the synchronization cannot handle

	KernelRaised      = "NW420" // tracing an NKI kernel raised a Python exception (NameError, TypeError, a failed assert ...)
	KernelUnsupported = "NW421" // an NKI kernel uses a Python construct or NKI API narwhal does not support
	KernelAPI         = "NW422" // an NKI kernel breaks a rule of the NKI API (shapes, dtypes, buffers, partitions)
	KernelBudget      = "NW423" // tracing an NKI kernel exceeds the tracer's step budget

	RunBudget = "NW501" // a run exceeds the interpreter's instruction or memory budget
	RunInput  = "NW502" // the inputs of a run: missing, malformed .npy/.npz, wrong shape
	RunFault  = "NW503" // the module faults when the interpreter runs it

	Internal = "NW900" // narwhal's fault (a panic, or a pass broke the IR)
)

// Coder is implemented by errors that carry a code.
type Coder interface {
	ErrorCode() string
}

// Error attaches a code to an error.
type Error struct {
	Code string
	Err  error
}

func (e *Error) Error() string     { return e.Err.Error() }
func (e *Error) Unwrap() error     { return e.Err }
func (e *Error) ErrorCode() string { return e.Code }

// Wrap attaches code to err (nil stays nil).
func Wrap(code string, err error) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Err: err}
}

// Errorf is fmt.Errorf with a code.
func Errorf(code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// CodeOf returns err's code: Internal when err is narwhal's fault
// (errors.Is(err, bug.ErrInternal): a recovered panic, a pass that broke
// the IR), else the first code along err's chain (depth first through
// joined errors), "" when there is none. An *fs.PathError with no code
// around it is ReadInput.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, bug.ErrInternal) {
		return Internal
	}
	if c := codeOf(err, 0); c != "" {
		return c
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return ReadInput
	}
	return ""
}

func codeOf(err error, depth int) string {
	for err != nil && depth < 100 {
		if c, ok := err.(Coder); ok {
			if code := c.ErrorCode(); code != "" {
				return code
			}
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if code := codeOf(e, depth+1); code != "" {
					return code
				}
			}
			return ""
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		default:
			return ""
		}
		depth++
	}
	return ""
}

// IsInternal reports whether err is narwhal's fault (exit status 2).
func IsInternal(err error) bool { return CodeOf(err) == Internal }
