// object.go: the tracer's Python values (None, bool, int, float, str,
// tuple, list, dict, set, slice, Ellipsis, range, modules, functions,
// builtins, bound methods) and what every value needs: its type name,
// str(), repr() and truth.
//
// Decisions:
//   - Scalars are Go value types (Bool, Int, Float, String, Tuple);
//     mutable containers are pointers carrying a creation serial (the loop
//     protocol's Effects tells pre-existing objects from new ones by it;
//     id() and identity hashing use it too). Serials come from one
//     process-wide counter, so they are unique across Threads.
//   - Int keeps an int64 and switches to *big.Int only when a value does
//     not fit; every operation normalizes back (the int64 form is the
//     only form of a value that fits).
//   - str indexes by code point as Python does (ASCII strings by byte).
//   - Values made by Go (NewList, NewDict) have a serial too, so Go-made
//     containers are "pre-existing" to a later checkpoint like any other.
package tracer

import (
	"math/big"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

var serialCounter atomic.Uint64

// nextSerial returns a fresh creation serial (never 0).
func nextSerial() uint64 { return serialCounter.Add(1) }

// ---------------------------------------------------------------------------
// None, Ellipsis, NotImplemented.

// NoneType is the type of None.
type NoneType struct{}

// None is Python's None.
var None = NoneType{}

func (NoneType) Type() string         { return "NoneType" }
func (NoneType) String() string       { return "None" }
func (NoneType) Truth() (bool, error) { return false, nil }

// EllipsisType is the type of `...`.
type EllipsisType struct{}

// Ellipsis is Python's `...`.
var Ellipsis = EllipsisType{}

func (EllipsisType) Type() string         { return "ellipsis" }
func (EllipsisType) String() string       { return "Ellipsis" }
func (EllipsisType) Truth() (bool, error) { return true, nil }

// NotImplementedType is the type of NotImplemented.
type NotImplementedType struct{}

// NotImplemented is what a user's binary dunder returns to decline.
var NotImplemented = NotImplementedType{}

func (NotImplementedType) Type() string         { return "NotImplementedType" }
func (NotImplementedType) String() string       { return "NotImplemented" }
func (NotImplementedType) Truth() (bool, error) { return true, nil }

// ---------------------------------------------------------------------------
// bool.

// Bool is Python's bool (a subclass of int in arithmetic).
type Bool bool

const (
	True  Bool = true
	False Bool = false
)

func (b Bool) Type() string { return "bool" }
func (b Bool) String() string {
	if b {
		return "True"
	}
	return "False"
}
func (b Bool) Truth() (bool, error) { return bool(b), nil }

// ---------------------------------------------------------------------------
// int.

// Int is Python's arbitrary-precision int: an int64, or a *big.Int for
// values that do not fit one.
type Int struct {
	small int64
	big   *big.Int // nil unless the value does not fit an int64
}

// MakeInt returns the int n.
func MakeInt(n int64) Int { return Int{small: n} }

// MakeBigInt returns the int b (b is copied).
func MakeBigInt(b *big.Int) Int {
	if b.IsInt64() {
		return Int{small: b.Int64()}
	}
	return Int{big: new(big.Int).Set(b)}
}

// makeBigOwned is MakeBigInt without the copy (b must not be shared).
func makeBigOwned(b *big.Int) Int {
	if b.IsInt64() {
		return Int{small: b.Int64()}
	}
	return Int{big: b}
}

// Int64 returns the value and true when it fits an int64.
func (i Int) Int64() (int64, bool) {
	if i.big != nil {
		return 0, false
	}
	return i.small, true
}

// BigInt returns the value as a new *big.Int.
func (i Int) BigInt() *big.Int {
	if i.big != nil {
		return new(big.Int).Set(i.big)
	}
	return big.NewInt(i.small)
}

// bigView returns the value as a *big.Int that must not be modified.
func (i Int) bigView() *big.Int {
	if i.big != nil {
		return i.big
	}
	return big.NewInt(i.small)
}

// Sign returns -1, 0 or +1.
func (i Int) Sign() int {
	if i.big != nil {
		return i.big.Sign()
	}
	switch {
	case i.small < 0:
		return -1
	case i.small > 0:
		return 1
	}
	return 0
}

func (i Int) Type() string { return "int" }
func (i Int) String() string {
	if i.big != nil {
		return i.big.String()
	}
	return strconv.FormatInt(i.small, 10)
}
func (i Int) Truth() (bool, error) { return i.big != nil || i.small != 0, nil }

// smallInts caches the boxed small ints, so that the common ints cost no
// allocation when they become Values.
var smallInts = func() [1281]Value {
	var t [1281]Value
	for i := range t {
		t[i] = Int{small: int64(i - 256)}
	}
	return t
}()

// intValue returns n as a Value, without allocating for small n.
func intValue(n int64) Value {
	if n >= -256 && n <= 1024 {
		return smallInts[n+256]
	}
	return Int{small: n}
}

// ---------------------------------------------------------------------------
// float.

// Float is Python's float.
type Float float64

func (f Float) Type() string         { return "float" }
func (f Float) String() string       { return formatFloatRepr(float64(f)) }
func (f Float) Truth() (bool, error) { return f != 0, nil }

// ---------------------------------------------------------------------------
// str.

// String is Python's str (UTF-8 text; indexed by code point).
type String string

func (s String) Type() string         { return "str" }
func (s String) String() string       { return string(s) }
func (s String) Truth() (bool, error) { return len(s) > 0, nil }
func (s String) Repr() string         { return quoteString(string(s)) }

// ---------------------------------------------------------------------------
// tuple.

// Tuple is Python's tuple. It is immutable: code holding one must not
// modify its elements.
type Tuple []Value

func (t Tuple) Type() string { return "tuple" }
func (t Tuple) String() string {
	var b strings.Builder
	b.WriteByte('(')
	for i, v := range t {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Repr(v))
	}
	if len(t) == 1 {
		b.WriteByte(',')
	}
	b.WriteByte(')')
	return b.String()
}
func (t Tuple) Truth() (bool, error) { return len(t) > 0, nil }

// ---------------------------------------------------------------------------
// list.

// List is Python's list.
type List struct {
	elems  []Value
	serial uint64
}

// NewList returns a list holding elems (the slice is taken, not copied).
func NewList(elems []Value) *List { return &List{elems: elems, serial: nextSerial()} }

// Elems returns the elements; callers must not modify the slice.
func (l *List) Elems() []Value { return l.elems }

// Len returns the number of elements.
func (l *List) Len() int { return len(l.elems) }

// At returns element i (0 <= i < Len()).
func (l *List) At(i int) Value { return l.elems[i] }

func (l *List) Type() string { return "list" }
func (l *List) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range l.elems {
		if i > 0 {
			b.WriteString(", ")
		}
		if v == Value(l) {
			b.WriteString("[...]")
			continue
		}
		b.WriteString(Repr(v))
	}
	b.WriteByte(']')
	return b.String()
}
func (l *List) Truth() (bool, error) { return len(l.elems) > 0, nil }

// ---------------------------------------------------------------------------
// slice.

// Slice is a slice object (`a:b:c` in a subscript, or slice(a, b, c)).
// Absent parts are None.
type Slice struct {
	Start, Stop, Step Value
}

func (s *Slice) Type() string { return "slice" }
func (s *Slice) String() string {
	return "slice(" + Repr(s.Start) + ", " + Repr(s.Stop) + ", " + Repr(s.Step) + ")"
}
func (s *Slice) Truth() (bool, error) { return true, nil }

// ---------------------------------------------------------------------------
// range.

// Range is a range object (int64 bounds).
type Range struct {
	start, stop, step int64
}

// NewRange returns range(start, stop, step); step must not be 0.
func NewRange(start, stop, step int64) *Range { return &Range{start, stop, step} }

// Start, Stop and Step return the range's parameters.
func (r *Range) Start() int64 { return r.start }
func (r *Range) Stop() int64  { return r.stop }
func (r *Range) Step() int64  { return r.step }

// Len returns the number of elements.
func (r *Range) Len() int64 {
	if r.step > 0 {
		if r.start >= r.stop {
			return 0
		}
		return int64((uint64(r.stop-r.start)-1)/uint64(r.step)) + 1
	}
	if r.start <= r.stop {
		return 0
	}
	return int64((uint64(r.start-r.stop)-1)/uint64(-r.step)) + 1
}

// At returns element i (0 <= i < Len()).
func (r *Range) At(i int64) int64 { return r.start + i*r.step }

func (r *Range) Type() string { return "range" }
func (r *Range) String() string {
	if r.step == 1 {
		return "range(" + strconv.FormatInt(r.start, 10) + ", " + strconv.FormatInt(r.stop, 10) + ")"
	}
	return "range(" + strconv.FormatInt(r.start, 10) + ", " + strconv.FormatInt(r.stop, 10) + ", " + strconv.FormatInt(r.step, 10) + ")"
}
func (r *Range) Truth() (bool, error) { return r.Len() > 0, nil }

// ---------------------------------------------------------------------------
// Ordered string-keyed namespaces (modules, classes, instances).

// strDict is an insertion-ordered map from names to values.
type strDict struct {
	keys []string
	m    map[string]Value
}

func newStrDict(n int) *strDict { return &strDict{m: make(map[string]Value, n)} }

func (d *strDict) get(k string) (Value, bool) {
	if d == nil {
		return nil, false
	}
	v, ok := d.m[k]
	return v, ok
}

// set stores v and returns the previous value (nil when there was none).
func (d *strDict) set(k string, v Value) Value {
	old, ok := d.m[k]
	if !ok {
		d.keys = append(d.keys, k)
	}
	d.m[k] = v
	return old
}

func (d *strDict) del(k string) (Value, bool) {
	old, ok := d.m[k]
	if !ok {
		return nil, false
	}
	delete(d.m, k)
	for i, x := range d.keys {
		if x == k {
			d.keys = append(d.keys[:i:i], d.keys[i+1:]...)
			break
		}
	}
	return old, true
}

// ---------------------------------------------------------------------------
// modules.

// Module is a Python module: its name and its namespace.
type Module struct {
	name    string
	members *strDict
	serial  uint64
	// pkg is the package relative imports start from (__package__).
	pkg string
	// file is the parsed source of a module run by ExecFile (nil for Go
	// modules).
	file *syntax.File
	// futureAnnotations is set by `from __future__ import annotations`.
	futureAnnotations bool
	// missing makes the error of a missing attribute (a tracer module's
	// NotSupported); nil for the plain AttributeError.
	missing func(name string) error
}

// NewModule returns a module with the given members (copied, in sorted
// order of their names).
func NewModule(name string, members map[string]Value) *Module {
	m := &Module{name: name, members: newStrDict(len(members) + 2), serial: nextSerial()}
	m.members.set("__name__", String(name))
	for _, k := range sortedKeys(members) {
		m.members.set(k, members[k])
	}
	return m
}

// Name returns the module's dotted name.
func (m *Module) Name() string { return m.name }

// Get returns the member name.
func (m *Module) Get(name string) (Value, bool) { return m.members.get(name) }

// Set binds the member name (Go-side setup: not recorded on the undo
// trail; assignments by Python code are).
func (m *Module) Set(name string, v Value) { m.members.set(name, v) }

// Names returns the members' names in definition order.
func (m *Module) Names() []string { return append([]string(nil), m.members.keys...) }

// File returns the module's parsed source (nil for Go modules).
func (m *Module) File() *syntax.File { return m.file }

// Package returns the package relative imports in the module start from.
func (m *Module) Package() string { return m.pkg }

func (m *Module) Type() string         { return "module" }
func (m *Module) String() string       { return "<module '" + m.name + "'>" }
func (m *Module) Truth() (bool, error) { return true, nil }

// ---------------------------------------------------------------------------
// builtins and bound methods.

// Builtin is a function implemented in Go.
type Builtin struct {
	name string
	fn   func(th *Thread, args []Value, kwargs []Kwarg) (Value, error)
	// recv and method make a method of a builtin type bound to recv.
	recv   Value
	method func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error)
	serial uint64
}

// NewBuiltin returns a Go function callable from Python.
func NewBuiltin(name string, fn func(th *Thread, args []Value, kwargs []Kwarg) (Value, error)) *Builtin {
	return &Builtin{name: name, fn: fn, serial: nextSerial()}
}

// Name returns the function's name.
func (b *Builtin) Name() string { return b.name }

// Receiver returns the value a bound method of a builtin type is bound
// to (nil for a plain function).
func (b *Builtin) Receiver() Value { return b.recv }

func (b *Builtin) Type() string { return "builtin_function_or_method" }
func (b *Builtin) String() string {
	if b.recv != nil {
		return "<built-in method " + b.name + " of " + b.recv.Type() + " object>"
	}
	return "<built-in function " + b.name + ">"
}
func (b *Builtin) Truth() (bool, error) { return true, nil }

// Call calls the function.
func (b *Builtin) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if b.method != nil {
		return b.method(th, b.recv, args, kwargs)
	}
	return b.fn(th, args, kwargs)
}

// BoundMethod is a function bound to the object it was looked up on
// (obj.method).
type BoundMethod struct {
	Self Value
	Func Value
}

func (m *BoundMethod) Type() string { return "method" }
func (m *BoundMethod) String() string {
	return "<bound method " + callableName(m.Func) + " of " + Repr(m.Self) + ">"
}
func (m *BoundMethod) Truth() (bool, error) { return true, nil }

// Name returns the function's name.
func (m *BoundMethod) Name() string { return callableName(m.Func) }

// Call calls the function with the object first.
func (m *BoundMethod) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	all := make([]Value, 0, len(args)+1)
	all = append(all, m.Self)
	all = append(all, args...)
	return Call(th, m.Func, all, kwargs)
}

func callableName(v Value) string {
	switch f := v.(type) {
	case *Function:
		return f.qualname
	case Callable:
		return f.Name()
	}
	return v.Type()
}

// cell is a variable captured by a closure.
type cell struct {
	v Value // nil while unbound
}
