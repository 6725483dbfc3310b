package lower

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Error kinds: the tracer's own exception kinds (package nki/tracer, type
// Error), which the Python binding carries over unchanged.
const (
	KindNKI          = "NKIError"     // the kernel breaks a rule of the NKI API
	KindNotSupported = "NotSupported" // narwhal does not support the construct or API
)

// Error is a lowering error with the kernel position it is about. The
// Python binding turns it into a *tracer.Error of the same Kind, Msg,
// position and Code.
type Error struct {
	Kind string
	Msg  string
	Pos  bir.Pos
	Code string
}

func (e *Error) Error() string {
	if e.Pos.IsKnown() {
		return fmt.Sprintf("%s: %s: %s", e.Pos, e.Kind, e.Msg)
	}
	return e.Kind + ": " + e.Msg
}

// ErrorCode returns the diag code (diag.Coder).
func (e *Error) ErrorCode() string { return e.Code }

func errorf(kind, format string, args ...any) *Error {
	code := diag.KernelAPI
	if kind == KindNotSupported {
		code = diag.KernelUnsupported
	}
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Code: code}
}

// NeedConcrete reports that lowering needs the value of loop axes that are
// symbolic in the current trace: a mask whose bound depends on a loop
// iterator in a form the predicate split does not cover, an iota whose
// base depends on one. The binding turns it into a *tracer.NeedConcrete
// whose Vars are the *Loop values (the Loopers that unroll).
type NeedConcrete struct {
	Loops []*Loop
	What  string
	Value string
}

func (e *NeedConcrete) Error() string {
	return fmt.Sprintf("%s needs a concrete value, and %s is only known when the kernel runs", e.What, e.Value)
}

// needConcrete builds a NeedConcrete for the loops owning axes.
func (k *Kernel) needConcrete(axes []affine.Axis, what, value string) *NeedConcrete {
	nc := &NeedConcrete{What: what, Value: value}
	for _, a := range axes {
		if l := k.loopOf(a); l != nil && !slices.Contains(nc.Loops, l) {
			nc.Loops = append(nc.Loops, l)
		}
	}
	return nc
}
