package tracer

import "io"

// Thread is the state of one trace: the call stack, the undo trail of the
// loop protocol, the print log and the embedder's local values. One
// Thread traces one kernel; Threads share nothing, so kernels trace
// concurrently on separate Threads.
//
// The fields and methods the NKI API uses are listed here; the evaluator
// keeps the rest private.
type Thread struct {
	// Print receives print()'s output, one line per call ("" drops it).
	Print io.Writer
	// Importer resolves import statements (see Importer).
	Importer Importer

	locals map[any]any
	undo   []func()
	serial uint64
	// TODO(tracer): call stack, current position, speculative depth.
}

// Importer resolves `import a.b` and `from a.b import c` of modules the
// tracer does not provide itself (it provides math, typing, dataclasses,
// enum, functools, itertools, operator as far as kernels use them). The
// frontend's Importer knows the NKI modules (neuronxcc.nki.language, nki.isa,
// ...), numpy as a module of op names and dtypes, and Python files found
// from the kernel file's directory and --path.
type Importer interface {
	// Import returns the module named by the dotted name; level > 0 is
	// a relative import (`from ..x import y`) from the importing file.
	// An unknown module is a ModuleNotFoundError *Error.
	Import(th *Thread, name string, level int, from Pos) (Value, error)
}

// SetLocal stores an embedder value under key (the NKI API keeps its kernel
// builder there).
func (th *Thread) SetLocal(key, v any) {
	if th.locals == nil {
		th.locals = map[any]any{}
	}
	th.locals[key] = v
}

// Local returns the value stored under key, or nil.
func (th *Thread) Local(key any) any { return th.locals[key] }

// OnRollback registers fn to run if the speculative run of a loop body
// in progress is rolled back (LoopBody.Rollback), in reverse order of
// registration. Outside a speculative run it does nothing.
func (th *Thread) OnRollback(fn func()) {
	th.undo = append(th.undo, fn)
}

// CallPos returns the position of the innermost call expression being
// evaluated in a source file: where an NKI API function was called from,
// the position its instructions carry.
func (th *Thread) CallPos() Pos {
	// TODO(tracer)
	return Pos{}
}
