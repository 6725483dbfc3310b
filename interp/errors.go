package interp

// Errors of the interpreter. Every failure of Run is an *Error naming the
// function and instruction (and the loop iteration when inside loops), so a
// user can find the offending instruction in the printed module:
//
//	function main, instruction add_3 (TensorTensor), iteration i=2: read of
//	never-written SBUF (location t) at partition 5 byte 64 (operand 0, element 37)
//
// Kind classifies the failure so tests and tools (the pass-test harness) can
// tell an out-of-bounds access from an uninitialised read without matching
// message text.

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/bug"
)

// ErrorKind classifies an interpreter error.
type ErrorKind uint8

const (
	ErrOther         ErrorKind = iota
	ErrOutOfBounds             // an AP outside its location, a block index outside NBlocks, an indirect row outside its tensor
	ErrUninitRead              // a read of never-written memory or register
	ErrPSUMBankSpan            // one access crossing a PSUM bank boundary on some partition
	ErrCountMismatch           // operands that do not walk the same number of elements
	ErrMemoryRule              // an engine touching a memory it cannot (PE reading non-SBUF, GpSimd touching PSUM, ...)
	ErrNoSemantics             // an opcode (or mode) narwhal has no semantics for
	ErrOperand                 // a malformed operand or attribute
	ErrLimit                   // Options.MaxInstructions exceeded, call depth exceeded
	ErrInput                   // bad inputs to Run
	ErrDomain                  // a runtime value outside an operation's domain (integer division by zero)
	ErrInternal                // a recovered Go panic (a bug in narwhal)
)

var errorKindNames = [...]string{"other", "out-of-bounds", "uninitialised-read", "psum-bank-span", "count-mismatch", "memory-rule", "no-semantics", "operand", "limit", "input", "domain", "internal"}

func (k ErrorKind) String() string {
	if int(k) < len(errorKindNames) {
		return errorKindNames[k]
	}
	return fmt.Sprintf("errorkind(%d)", uint8(k))
}

// Error is an interpreter error.
type Error struct {
	Kind ErrorKind
	Func string // function name ("" for errors outside any function)
	Inst string // instruction name ("" for function-level errors)
	Op   string // opcode name
	Iter string // enclosing loop iterations, "i=2, j=0" ("" outside loops)
	Msg  string
	// CalledFrom lists the call sites (outermost first) when the error
	// happened inside a function reached through NKIKernel calls.
	CalledFrom []string
}

// ErrorCode maps the kinds to diag's codes: a budget is NW501, the inputs
// NW502, a recovered panic narwhal's fault, the rest a fault of the module
// (NW503).
func (e *Error) ErrorCode() string {
	switch e.Kind {
	case ErrLimit:
		return diag.RunBudget
	case ErrInput:
		return diag.RunInput
	case ErrInternal:
		return diag.Internal
	}
	return diag.RunFault
}

func (e *Error) Error() string {
	var sb strings.Builder
	if e.Func != "" {
		sb.WriteString("function ")
		sb.WriteString(e.Func)
	}
	if e.Inst != "" {
		if sb.Len() > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("instruction ")
		sb.WriteString(e.Inst)
		if e.Op != "" {
			sb.WriteString(" (")
			sb.WriteString(e.Op)
			sb.WriteString(")")
		}
	}
	if e.Iter != "" {
		sb.WriteString(", iteration ")
		sb.WriteString(e.Iter)
	}
	for i := len(e.CalledFrom) - 1; i >= 0; i-- {
		sb.WriteString(", called from ")
		sb.WriteString(e.CalledFrom[i])
	}
	if sb.Len() > 0 {
		sb.WriteString(": ")
	}
	sb.WriteString(e.Msg)
	return sb.String()
}

// Is makes a recovered panic (ErrInternal) an internal error
// (bug.ErrInternal: exit status 2).
func (e *Error) Is(target error) bool { return e.Kind == ErrInternal && target == bug.ErrInternal }

// opError is an error raised while executing one instruction, before the
// dispatcher adds the function/instruction context.
type opError struct {
	kind ErrorKind
	msg  string
}

func (e *opError) Error() string { return e.msg }

func errf(kind ErrorKind, format string, args ...any) error {
	return &opError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// prefixErr prepends context to an instruction error, keeping its kind.
func prefixErr(err error, format string, args ...any) error {
	p := fmt.Sprintf(format, args...)
	if oe, ok := err.(*opError); ok {
		return &opError{kind: oe.kind, msg: p + ": " + oe.msg}
	}
	return &opError{kind: ErrOther, msg: p + ": " + err.Error()}
}
