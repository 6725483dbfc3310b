// Package bug marks the errors that are narwhal's fault rather than its
// input's: recovered panics in a reader, a pass, the interpreter or a
// writer. The command line maps an error for which errors.Is(err,
// bug.ErrInternal) holds to exit status 2 with a line saying it is a bug
// in narwhal (README: "0 ok, 1 error with a one-line cause on stderr, 2
// internal error"); every other error is the input's (exit 1).
//
// An error type joins by implementing Is:
//
//	func (e *Error) Is(target error) bool { return target == bug.ErrInternal && e.Panic }
package bug

import "errors"

// ErrInternal is the mark of an internal error.
var ErrInternal = errors.New("internal error")
