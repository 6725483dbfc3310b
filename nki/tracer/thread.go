package tracer

import (
	"io"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

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

	// The undo trail of the loop protocol: entries are recorded only
	// while spec > 0 (a loop body has an active checkpoint).
	trail []undoEntry
	spec  int
	// printBuf holds print()'s output while speculating (a rollback
	// drops what the undone run printed); printed counts print() calls.
	printBuf []byte
	printed  int

	// Limits (see ThreadOptions) and the step count.
	steps, maxSteps int64
	maxDepth        int
	maxSize         int

	stack   []*frame
	modules map[string]*Module
	ids     map[Value]uint64
	// handling is the stack of exceptions being handled by except
	// clauses (a bare raise re-raises the innermost).
	handling []*Error
	// warnings collects warnings.warn calls.
	warnings []Warning
}

// ThreadOptions configure a Thread. Zero fields take the defaults.
type ThreadOptions struct {
	// MaxSteps bounds the statements, calls and loop iterations a trace
	// evaluates (default 50,000,000): a runaway program ends with a
	// LimitExceeded error.
	MaxSteps int64
	// MaxDepth bounds the Python call depth (default 1000, CPython's
	// recursion limit): deeper is RecursionError.
	MaxDepth int
	// MaxSize bounds the elements of one container or the bytes of one
	// string made by repetition, range materialization, joins and the
	// like, and the bits of an int (default 1<<24): beyond is MemoryError.
	MaxSize int
	// Print receives print()'s output (nil drops it).
	Print io.Writer
	// Importer resolves modules the tracer does not provide.
	Importer Importer
}

const (
	defaultMaxSteps = 50_000_000
	defaultMaxDepth = 1000
	defaultMaxSize  = 1 << 24
)

// NewThread returns a Thread with the given options.
func NewThread(opts ThreadOptions) *Thread {
	th := &Thread{Print: opts.Print, Importer: opts.Importer,
		maxSteps: opts.MaxSteps, maxDepth: opts.MaxDepth, maxSize: opts.MaxSize}
	th.defaults()
	return th
}

func (th *Thread) defaults() {
	if th.maxSteps <= 0 {
		th.maxSteps = defaultMaxSteps
	}
	if th.maxDepth <= 0 {
		th.maxDepth = defaultMaxDepth
	}
	if th.maxSize <= 0 {
		th.maxSize = defaultMaxSize
	}
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
	if th.spec > 0 {
		th.trail = append(th.trail, undoEntry{undo: fn})
	}
}

// Speculating reports whether a loop body's speculative run is in
// progress (a checkpoint is active): mutations are being recorded for a
// possible rollback.
func (th *Thread) Speculating() bool { return th.spec > 0 }

// CallPos returns the position of the innermost call expression being
// evaluated in a source file: where an NKI API function was called from,
// the position its instructions carry.
func (th *Thread) CallPos() Pos {
	for i := len(th.stack) - 1; i >= 0; i-- {
		fr := th.stack[i]
		if fr.call != nil {
			return fr.posOf(fr.call)
		}
	}
	return Pos{}
}

// dispatchAt marks n as the expression whose operator (a binary or unary
// operator, a comparison, a subscript, an augmented assignment, an item
// store) the frame is dispatching, so that CallPos names it while a value's
// protocol method runs (an NKI tile's `a + b` stamps its instruction with
// the operator's position, not the last call's). It returns the previous
// mark, which the caller restores (fr.call = prev).
func (fr *frame) dispatchAt(n syntax.Node) syntax.Node {
	prev := fr.call
	fr.call = n
	return prev
}

// Pos returns the position of the statement the innermost frame is
// executing.
func (th *Thread) Pos() Pos {
	for i := len(th.stack) - 1; i >= 0; i-- {
		fr := th.stack[i]
		if fr.stmt != nil {
			return fr.posOf(fr.stmt)
		}
	}
	return Pos{}
}

// Module returns the module whose code the innermost frame runs (nil
// outside any).
func (th *Thread) Module() *Module {
	if n := len(th.stack); n > 0 {
		return th.stack[n-1].module
	}
	return nil
}

// Traceback returns the active calls, outermost first.
func (th *Thread) Traceback() []Frame {
	out := make([]Frame, 0, len(th.stack))
	for _, fr := range th.stack {
		var p Pos
		switch {
		case fr.call != nil:
			p = fr.posOf(fr.call)
		case fr.stmt != nil:
			p = fr.posOf(fr.stmt)
		}
		out = append(out, Frame{Func: fr.name, Pos: p})
	}
	return out
}

// Steps returns the number of evaluation steps taken so far.
func (th *Thread) Steps() int64 { return th.steps }

// frame is one active Python call (or a module's or class body's run).
type frame struct {
	name   string // "<module>", the function's or class's name
	fn     *Function
	module *Module
	code   *scope
	locals []Value
	cells  []*cell
	// classNS is the namespace of the class body being run (nil
	// otherwise).
	classNS *strDict
	serial  uint64
	// stmt is the statement being executed, call the call expression
	// being evaluated (nil when none).
	stmt syntax.Node
	call syntax.Node
	file *syntax.File
	res  *resolved
	// ret is the value of the return statement that ran.
	ret Value
	// classQual is the qualified name of the class whose body runs.
	classQual string
	// co is the coroutine of a generator's frame (nil otherwise).
	co *coroutine
}

// posOf converts a node's position in the frame's file to a Pos.
func (fr *frame) posOf(n syntax.Node) Pos {
	return spanPos(fr.file, n.Extent())
}

func spanPos(f *syntax.File, s syntax.Span) Pos {
	name := ""
	if f != nil {
		name = f.Name
	}
	p := Pos{File: name, Line: int(s.Start.Line), Col: int(s.Start.Col) + 1}
	if s.End.IsValid() {
		p.EndLine, p.EndCol = int(s.End.Line), int(s.End.Col)+1
	}
	return p
}

// ---------------------------------------------------------------------------
// The undo trail.

type effectKind uint8

const (
	effectNone effectKind = iota // an OnRollback callback
	effectRebind
	effectMutate
)

type undoEntry struct {
	undo   func()
	kind   effectKind
	serial uint64 // the frame, module or object changed
	name   string // the variable of a rebinding
	before Value  // its value before (nil: unbound)
	after  func() Value
	at     Pos
}

// recordMutation records the undo of a change to the contents of the
// object with the given serial. Call only while th.spec > 0.
func (th *Thread) recordMutation(serial uint64, undo func()) {
	th.trail = append(th.trail, undoEntry{undo: undo, kind: effectMutate, serial: serial, at: th.Pos()})
}

// recordRebind records the undo of a variable assignment.
func (th *Thread) recordRebind(serial uint64, name string, before Value, after func() Value, undo func()) {
	th.trail = append(th.trail, undoEntry{undo: undo, kind: effectRebind, serial: serial, name: name,
		before: before, after: after, at: th.Pos()})
}

// checkpoint marks the trail.
func (th *Thread) checkpoint() Checkpoint {
	return Checkpoint{trail: len(th.trail), serial: serialCounter.Load(), printed: th.printed, printLen: len(th.printBuf)}
}

// rollback undoes the trail down to cp.
func (th *Thread) rollback(cp Checkpoint) {
	for i := len(th.trail) - 1; i >= cp.trail; i-- {
		if u := th.trail[i].undo; u != nil {
			u()
		}
		th.trail[i] = undoEntry{}
	}
	if cp.trail < len(th.trail) {
		th.trail = th.trail[:cp.trail]
	}
	if cp.printLen <= len(th.printBuf) {
		th.printBuf = th.printBuf[:cp.printLen]
	}
	th.printed = cp.printed
}

// endSpeculation leaves one level of speculation; at the outermost, the
// trail is dropped and the buffered output written.
func (th *Thread) endSpeculation() {
	th.spec--
	if th.spec > 0 {
		return
	}
	th.spec = 0
	clear(th.trail)
	th.trail = th.trail[:0]
	if len(th.printBuf) > 0 {
		if th.Print != nil {
			_, _ = th.Print.Write(th.printBuf)
		}
		th.printBuf = th.printBuf[:0]
	}
}

// writeOutput writes print()'s output (buffered while speculating).
func (th *Thread) writeOutput(s string) {
	th.printed++
	if th.spec > 0 {
		th.printBuf = append(th.printBuf, s...)
		return
	}
	if th.Print != nil {
		_, _ = io.WriteString(th.Print, s)
	}
}

// effects summarizes the trail since cp, leaving out the rebinding of
// the names in skip (a loop's own target).
func (th *Thread) effects(cp Checkpoint, skip map[string]bool) Effects {
	var eff Effects
	seen := map[[2]any]int{}
	for i := cp.trail; i < len(th.trail); i++ {
		e := &th.trail[i]
		if e.serial == 0 || e.serial > cp.serial {
			continue // an OnRollback callback, or an object made since cp
		}
		switch e.kind {
		case effectRebind:
			if skip[e.name] {
				continue
			}
			key := [2]any{e.serial, e.name}
			if j, ok := seen[key]; ok {
				eff.Rebound[j].After = e.after()
				continue
			}
			seen[key] = len(eff.Rebound)
			eff.Rebound = append(eff.Rebound, Rebinding{Name: e.name, Before: e.before, After: e.after(), At: e.at})
		case effectMutate:
			if eff.Mutated == 0 {
				eff.MutatedAt = e.at
			}
			eff.Mutated++
		}
	}
	eff.Printed = th.printed - cp.printed
	return eff
}
