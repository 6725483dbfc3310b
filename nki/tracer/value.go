// Package tracer is narwhal's NKI tracer: a partial evaluator over the
// Python syntax tree of package python/syntax. It runs a kernel file's
// Python the way CPython would (numbers with Python's int and float rules,
// strings, containers, functions with defaults, *args and **kwargs,
// closures, classes, imports, exceptions), while the values of the NKI
// API (tensors, tiles, index expressions, loop iterators) are symbolic:
// they are implemented outside this package (package nki/api) against the
// protocols below, and the tracer dispatches operators, calls, attribute
// access, indexing and iteration to them.
//
// This file is the contract between the tracer and the NKI API. The
// evaluator (eval.go and the rest) implements the Python values and
// semantics; package nki/api implements NKI's values with these
// interfaces and the loop protocol (Looper), and never reaches into the
// evaluator's internals.
//
// The model is Starlark-in-Go (go.starlark.net/starlark): a Value
// interface with optional protocol interfaces, a Thread holding the
// interpreter state, native functions taking (thread, args, kwargs), and
// errors that carry their position as data.
package tracer

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// Pos is a position in a kernel's source: the file as the user named it, a
// 1-based line and a 1-based column (syntax.Pos's 0-based byte column plus
// one, the convention of editors, of KLR's positions and of bir.Pos).
// The zero Pos is "no position".
type Pos struct {
	File string
	Line int
	Col  int
	// EndLine and EndCol are where the expression or statement ends
	// (EndCol 1-based and exclusive), 0 when unknown.
	EndLine, EndCol int
}

// IsKnown reports whether p names a line.
func (p Pos) IsKnown() bool { return p.Line > 0 }

// String renders file:line:col.
func (p Pos) String() string {
	if !p.IsKnown() {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Value is a Python value at trace time.
type Value interface {
	// Type returns the Python type name as type(v).__name__ would
	// ("int", "tuple", "function"); NKI values name their NKI type
	// ("tensor", "tile", "IndexExpr").
	Type() string
	// String returns str(v).
	String() string
	// Truth returns bool(v). A symbolic value whose truth is only known
	// when the kernel runs returns a *NeedConcrete error.
	Truth() (bool, error)
}

// ---------------------------------------------------------------------------
// Optional protocols. The evaluator checks for each with a type assertion;
// a value that does not implement one behaves as a Python object without
// the corresponding dunder method (a TypeError naming the operation and
// the type).

// HasAttrs is a value with attributes (v.name; __getattr__).
type HasAttrs interface {
	Value
	// Attr returns the attribute, or (nil, nil) when there is none (the
	// evaluator raises AttributeError naming the type and the attribute).
	Attr(th *Thread, name string) (Value, error)
	// AttrNames lists the attributes (dir(v); for "did you mean" hints).
	AttrNames() []string
}

// HasSetAttr is a value whose attributes can be assigned (v.name = x).
type HasSetAttr interface {
	HasAttrs
	SetAttr(th *Thread, name string, v Value) error
}

// Indexable is a value that can be subscripted (v[key]). The key is the
// evaluated subscript: a single value, a Tuple for `v[a, b]`, *Slice
// values for `a:b:c` and Ellipsis for `...`.
type Indexable interface {
	Value
	Index(th *Thread, key Value) (Value, error)
}

// HasSetIndex is a value whose items can be assigned (v[key] = x).
type HasSetIndex interface {
	Value
	SetIndex(th *Thread, key, v Value) error
}

// AugIndexer handles `v[key] op= x` itself (NKI: accumulate into a tile
// region, `res[...] += nl.matmul(...)`). The evaluator calls it before the
// generic `v[key] = v[key] op x`; handled false falls back to that.
type AugIndexer interface {
	Value
	AugSetIndex(th *Thread, key Value, op syntax.Operator, x Value) (handled bool, err error)
}

// Callable is a value that can be called. Positional arguments come in
// args (after `*x` expansion), keyword arguments in kwargs (after `**m`
// expansion), in source order.
type Callable interface {
	Value
	// Name is the function's name for messages ("nl.load", "len").
	Name() string
	Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error)
}

// Kwarg is one keyword argument of a call.
type Kwarg struct {
	Name  string
	Value Value
}

// Iterable is a value that a for loop, a comprehension, unpacking or
// list()/tuple() can iterate over.
type Iterable interface {
	Value
	Iterate(th *Thread) (Iterator, error)
}

// Iterator yields the elements of an Iterable.
type Iterator interface {
	// Next returns the next element, or ok false at the end.
	Next(th *Thread) (v Value, ok bool, err error)
}

// HasBinary implements binary operators (__add__, __radd__, __matmul__ ...).
// right is true when the value is the right operand (the reflected
// method). (nil, nil) means NotImplemented: the evaluator then tries the
// other operand and finally raises TypeError ("unsupported operand
// type(s) for +: 'tile' and 'str'").
type HasBinary interface {
	Value
	Binary(th *Thread, op syntax.Operator, other Value, right bool) (Value, error)
}

// HasInplace implements augmented assignment on a name (`x op= y`,
// __iadd__ ...). (nil, nil) falls back to Binary, as Python does.
type HasInplace interface {
	Value
	Inplace(th *Thread, op syntax.Operator, other Value) (Value, error)
}

// HasUnary implements -v, +v, ~v (`not v` always uses Truth).
type HasUnary interface {
	Value
	Unary(th *Thread, op syntax.UnaryOpKind) (Value, error)
}

// Comparable implements the rich comparisons ==, !=, <, <=, >, >= (the
// evaluator handles `is`, `is not` by identity and `in` through
// Container). The result is any value: an NKI comparison of index
// expressions returns a symbolic predicate (a mask), not a bool. op is the
// operator as written and right is true when the value is its right
// operand (`5 < v` calls v.Compare(th, Lt, 5, true)), as for HasBinary.
// (nil, nil) means NotImplemented; == and != then fall back to identity.
type Comparable interface {
	Value
	Compare(th *Thread, op syntax.CmpOp, other Value, right bool) (Value, error)
}

// Container implements `x in v`.
type Container interface {
	Value
	Contains(th *Thread, x Value) (bool, error)
}

// HasLen implements len(v).
type HasLen interface {
	Value
	Len(th *Thread) (int, error)
}

// HasIndex implements __index__: the value stands for an integer where
// Python needs one (list indices, range bounds, slice bounds, int()). A
// symbolic integer returns a *NeedConcrete error.
type HasIndex interface {
	Value
	PyIndex(th *Thread) (Value, error)
}

// HasFloat implements float(v) (__float__).
type HasFloat interface {
	Value
	PyFloat(th *Thread) (float64, error)
}

// Hashable is a value usable as a dict key or set element. Values that do
// not implement it hash by identity (Python's default object hash), which
// is what NKI's tensors and tiles want.
type Hashable interface {
	Value
	Hash(th *Thread) (uint64, error)
}

// Formattable implements format(v, spec) (__format__) for f-strings and
// str.format; without it the evaluator formats String() with the spec
// applied as to a str.
type Formattable interface {
	Value
	Format(th *Thread, spec string) (string, error)
}

// Reprer implements repr(v) where it differs from str(v).
type Reprer interface {
	Value
	Repr() string
}

// ContextManager is a value usable in a with statement.
type ContextManager interface {
	Value
	Enter(th *Thread) (Value, error)
	// Exit is called when the body ends; err is the error leaving the
	// body (nil when it ended normally). Returning nil swallows err as
	// __exit__ returning True would; return err to propagate it.
	Exit(th *Thread, err error) error
}

// Origin is implemented by values that remember where they were made
// (NKI tensors and tiles: "tile x, made at k.py:12:8").
type Origin interface {
	Value
	MadeAt() Pos
}

// Nameable is a value that wants to know the first variable it is bound
// to: `x = nl.load(...)` names the tile "x", so the BIR tensor is x, not
// tile_17. The evaluator calls BindName on assignment to a plain name (and
// to an attribute, with the attribute's name), every time; the value keeps
// the first name or ignores the call.
type Nameable interface {
	Value
	BindName(name string)
}

// ---------------------------------------------------------------------------
// Loops.
//
// A for loop over a value that implements Looper is traced by the value,
// not by Python's iteration: NKI's nl.affine_range / sequential_range /
// dynamic_range decide whether the loop stays a loop (the body traced
// once, its target bound to a symbolic iterator) or is unrolled (the body
// traced once per iteration with a concrete int). The evaluator hands the
// Looper a LoopBody; the Looper runs it as often as it wants, and can undo
// a speculative run of it.
//
// The protocol for "keep the loop if the body allows it":
//
//	cp := body.Checkpoint()
//	exit, err := body.Run(symbolicIterator)
//	if need, ok := AsNeedConcrete(err); ok && need.Involves(myIterator) ||
//	        err == nil && exit != LoopNormal {
//		body.Rollback(cp) // Python-visible state as it was before the run
//		... discard what the run emitted, then unroll:
//		for i := lb; i < ub; i += step { exit, err = body.Run(Int(i)); ... }
//	}
//
// body.Run binds the loop target (with unpacking), runs the statements
// and reports how control left them. A Python exception, a NeedConcrete
// that does not involve this loop, or any other error is returned as err
// (the Looper returns it). LoopReturn means a return statement ran: the
// Looper stops iterating and returns nil; the evaluator then completes the
// return with the value the body recorded. The for statement's else
// clause runs when the Looper returns nil and no run ended in LoopBreak or
// LoopReturn.

// Looper is a value whose for loops it traces itself.
type Looper interface {
	Value
	TraceLoop(th *Thread, body LoopBody) error
}

// LoopExit says how one run of a loop body ended.
type LoopExit uint8

const (
	LoopNormal LoopExit = iota // fell off the end or ran continue
	LoopBreak                  // ran break
	LoopReturn                 // ran return (the return value is recorded by the evaluator)
)

// LoopBody is one for statement's body as a Looper sees it.
type LoopBody interface {
	// Run executes the body once with the loop target bound to iter.
	Run(iter Value) (LoopExit, error)
	// Checkpoint marks the Python-visible state (variables of every
	// frame, globals, contents of lists, dicts, sets and instances).
	Checkpoint() Checkpoint
	// Rollback restores the state marked by cp, undoing every mutation
	// made since (Python values only; what an NKI value recorded is the
	// NKI API's to undo, with Thread.OnRollback or its own bookkeeping).
	Rollback(cp Checkpoint)
	// Effects reports what the runs since cp did to Python-visible state
	// that existed at cp: the current NKI API's Python-consistent loop
	// rule keeps a loop only when the body's Python effects do not depend
	// on the iteration (docs/nki.md).
	Effects(cp Checkpoint) Effects
	// Pos is the position of the for statement.
	Pos() Pos
	// Target is the source text of the loop target ("i", "(i, j)"), for
	// messages and for naming the loop axis.
	Target() string
}

// Checkpoint marks a point in the tracer's undo trail.
type Checkpoint struct {
	trail    int    // length of the undo trail
	serial   uint64 // the last creation serial given out
	printed  int    // print() calls so far
	printLen int    // bytes of buffered print output
}

// Effects summarizes the mutations since a checkpoint of state that
// existed at the checkpoint.
type Effects struct {
	// Rebound lists the variables (of frames and modules that existed
	// at the checkpoint) assigned since, with their value before and now.
	Rebound []Rebinding
	// Mutated counts mutations of containers and instances that
	// existed at the checkpoint (list.append, d[k] = v, obj.x = v).
	Mutated int
	// MutatedAt is the position of the first such mutation.
	MutatedAt Pos
	// Printed counts print() calls since the checkpoint.
	Printed int
}

// Rebinding is one variable assigned since a checkpoint.
type Rebinding struct {
	Name          string
	Before, After Value // Before nil if the variable was unbound
	At            Pos   // the assignment
}

// NeedConcrete is the error a symbolic value returns where Python needs
// a concrete value: the truth of `if i == 0:` with i a loop iterator, an
// int() of one, a list index. It unwinds the evaluator like an exception
// but no except clause catches it (it is not a Python exception): the
// Looper of a loop it involves catches it and unrolls; if none does, it
// reaches the caller of the trace as an error saying what needed the
// value and where.
type NeedConcrete struct {
	// Vars identifies the symbolic iterators the value depends on (the
	// NKI API's own identifiers; the tracer only passes them through).
	Vars []any
	// What says what needed the concrete value ("the condition of an
	// if statement", "a list index", "int()").
	What string
	// Pos is where it was needed (filled in by the evaluator when empty).
	Pos Pos
	// Value describes the symbolic value ("i * 128 + 3").
	Value string
}

func (e *NeedConcrete) Error() string {
	return fmt.Sprintf("%s: %s needs a concrete value, and %s is only known when the kernel runs", e.Pos, e.What, e.Value)
}

// Involves reports whether the value depends on iterator v.
func (e *NeedConcrete) Involves(v any) bool {
	for _, x := range e.Vars {
		if x == v {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Errors.

// Error is a Python exception, or an error of the tracer or the NKI API,
// with its position and traceback as data. Kind is the Python exception
// class name as CPython would raise it ("TypeError", "NameError",
// "AssertionError", "ZeroDivisionError", a user class), or one of the
// tracer's own kinds: "NotSupported" (a construct or API narwhal does not
// support: the message names it) and "NKIError" (an NKI API rule the
// kernel breaks: "partition dimension 256 of tile x exceeds 128").
type Error struct {
	Kind string
	Msg  string
	// Pos is where the error was raised: the innermost position in a
	// source file (the call of the native function that failed, the
	// raise or assert statement, the expression).
	Pos Pos
	// Traceback lists the active calls, outermost first.
	Traceback []Frame
	// Code is the diag error code (NW4xx) the frontend reports.
	Code string
	// Exc is the Python exception object, for except clauses (nil for
	// errors made in Go until the evaluator wraps them).
	Exc Value

	cause error // the Go error an NKIError wraps (ErrorOf)
}

// Frame is one entry of a traceback: the function and the position of the
// call it is executing.
type Frame struct {
	Func string
	Pos  Pos
}

func (e *Error) Error() string {
	if e.Pos.IsKnown() {
		return fmt.Sprintf("%s: %s: %s", e.Pos, e.Kind, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Msg)
}

// ErrorCode returns the diag code (the diag.Coder interface).
func (e *Error) ErrorCode() string { return e.Code }

// Errorf makes an *Error of the given Python kind. Native functions
// return it; the evaluator fills in Pos (the call's position) and the
// traceback when they are empty.
func Errorf(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}
