// exceptions.go: Python exceptions. The builtin exception classes form
// CPython's hierarchy (the part kernels meet); users subclass and catch
// them. An exception in flight is an *Error: Kind is the class name, Msg
// str() of the exception, Exc the exception instance (made on demand for
// errors raised in Go, when an except clause or `as` name needs it).
//
// What except clauses catch: Python exceptions only. A *NeedConcrete
// (a symbolic value asked for a concrete one), a NotSupported, an
// NKIError and a LimitExceeded are not Python exceptions: they pass
// through every except clause (and finally blocks and __exit__ do not
// run for them: the trace is abandoned or a Looper rolls it back).
package tracer

import (
	"strings"
)

// Error codes (registered by package diag).
const (
	CodePythonError  = "NW420" // a Python exception escaped the kernel
	CodeNotSupported = "NW421" // a construct narwhal does not support
	CodeNKIError     = "NW422" // the kernel breaks an NKI API rule
	CodeLimit        = "NW423" // the trace exceeds its budget (steps)
	CodeSyntax       = "NW206" // the file is not valid Python (what CPython's compiler refuses)
)

// codeForKind returns the diag code of an error kind.
func codeForKind(kind string) string {
	switch kind {
	case "NotSupported":
		return CodeNotSupported
	case "LimitExceeded":
		return CodeLimit
	case "SyntaxError", "IndentationError", "TabError":
		// What CPython's compiler refuses beyond the parser ('return'
		// outside function, duplicate arguments, a module-level nonlocal)
		// is the same mistake as a parse error: the file is not valid
		// Python.
		return CodeSyntax
	case "NKIError":
		return CodeNKIError
	}
	return CodePythonError
}

// catchable reports whether except clauses may catch the error.
func (e *Error) catchable() bool {
	switch e.Kind {
	case "NotSupported", "NKIError", "LimitExceeded":
		return false
	}
	return true
}

func (e *Error) isStopIteration() bool {
	if e.Kind == "StopIteration" {
		return true
	}
	if o, ok := e.Exc.(*Instance); ok {
		return o.class.IsSubclass(stopIterationClass)
	}
	return false
}

// Unwrap returns the Go error an *Error wraps (nil for most).
func (e *Error) Unwrap() error { return e.cause }

// NotSupportedf makes a NotSupported error.
func NotSupportedf(format string, args ...any) *Error {
	e := Errorf("NotSupported", format, args...)
	e.Code = CodeNotSupported
	return e
}

// ---------------------------------------------------------------------------
// The exception classes.

var (
	baseExceptionClass     = &Class{}
	exceptionClass         = &Class{}
	stopIterationClass     = &Class{}
	keyErrorClass          = &Class{}
	frozenInstanceErrClass = &Class{}
	builtinExceptions      = map[string]*Class{}
)

// exceptionTree lists each builtin exception class after its base.
var exceptionTree = [][2]string{
	{"Exception", "BaseException"},
	{"SystemExit", "BaseException"},
	{"KeyboardInterrupt", "BaseException"},
	{"GeneratorExit", "BaseException"},
	{"ArithmeticError", "Exception"},
	{"ZeroDivisionError", "ArithmeticError"},
	{"OverflowError", "ArithmeticError"},
	{"FloatingPointError", "ArithmeticError"},
	{"LookupError", "Exception"},
	{"KeyError", "LookupError"},
	{"IndexError", "LookupError"},
	{"ValueError", "Exception"},
	{"UnicodeError", "ValueError"},
	{"TypeError", "Exception"},
	{"AttributeError", "Exception"},
	{"NameError", "Exception"},
	{"UnboundLocalError", "NameError"},
	{"RuntimeError", "Exception"},
	{"NotImplementedError", "RuntimeError"},
	{"RecursionError", "RuntimeError"},
	{"AssertionError", "Exception"},
	{"StopIteration", "Exception"},
	{"ImportError", "Exception"},
	{"ModuleNotFoundError", "ImportError"},
	{"MemoryError", "Exception"},
	{"OSError", "Exception"},
	{"FileNotFoundError", "OSError"},
	{"EOFError", "Exception"},
	{"BufferError", "Exception"},
	{"Warning", "Exception"},
	{"UserWarning", "Warning"},
	{"DeprecationWarning", "Warning"},
	{"RuntimeWarning", "Warning"},
	{"FutureWarning", "Warning"},
	{"SyntaxWarning", "Warning"},
	{"PendingDeprecationWarning", "Warning"},
}

func initExceptions() {
	*baseExceptionClass = Class{name: "BaseException", qualname: "BaseException", module: "builtins",
		dict: newStrDict(4), serial: nextSerial(), goDefined: true, immutable: true, isExc: true,
		bases: []*Class{objectClass}}
	baseExceptionClass.mro = []*Class{baseExceptionClass, objectClass}
	baseExceptionClass.dict.set("__init__", &nativeMethod{name: "__init__", cls: baseExceptionClass,
		fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			if o, ok := recv.(*Instance); ok {
				o.args = append(Tuple(nil), args...)
			}
			return None, nil
		}})
	baseExceptionClass.dict.set("with_traceback", &nativeMethod{name: "with_traceback", cls: baseExceptionClass,
		fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) { return recv, nil }})
	baseExceptionClass.dict.set("add_note", &nativeMethod{name: "add_note", cls: baseExceptionClass,
		fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) { return None, nil }})
	builtinExceptions["BaseException"] = baseExceptionClass
	for _, pair := range exceptionTree {
		base := builtinExceptions[pair[1]]
		var c *Class
		switch pair[0] {
		case "Exception":
			c = exceptionClass
		case "StopIteration":
			c = stopIterationClass
		case "KeyError":
			c = keyErrorClass
		default:
			c = &Class{}
		}
		*c = Class{name: pair[0], qualname: pair[0], module: "builtins", dict: newStrDict(0),
			serial: nextSerial(), goDefined: true, immutable: true, isExc: true, bases: []*Class{base}}
		c.mro = append([]*Class{c}, base.mro...)
		builtinExceptions[pair[0]] = c
	}
	*frozenInstanceErrClass = Class{name: "FrozenInstanceError", qualname: "FrozenInstanceError", module: "dataclasses",
		dict: newStrDict(0), serial: nextSerial(), goDefined: true, immutable: true, isExc: true,
		bases: []*Class{builtinExceptions["AttributeError"]}}
	frozenInstanceErrClass.mro = append([]*Class{frozenInstanceErrClass}, builtinExceptions["AttributeError"].mro...)
}

// newException makes an exception instance.
func newException(th *Thread, cls *Class, args Tuple) *Instance {
	return &Instance{class: cls, dict: newStrDict(0), serial: nextSerial(), args: args, th: th}
}

// excStr is str() of an exception instance without a __str__ of its own.
func excStr(o *Instance) string {
	switch len(o.args) {
	case 0:
		return ""
	case 1:
		if o.class.IsSubclass(keyErrorClass) {
			return Repr(o.args[0])
		}
		return o.args[0].String()
	}
	return o.args.String()
}

// excRepr is repr() of an exception instance.
func excRepr(o *Instance) string {
	var b strings.Builder
	b.WriteString(o.class.name)
	if len(o.args) == 1 {
		b.WriteString("(" + Repr(o.args[0]) + ")")
	} else {
		b.WriteString(o.args.String())
	}
	return b.String()
}

// errorOf makes the *Error of a raised exception instance.
func errorOf(th *Thread, o *Instance) *Error {
	msg, err := toStr(th, o)
	if err != nil {
		msg = excStr(o)
	}
	return &Error{Kind: o.class.name, Msg: msg, Exc: o, Code: CodePythonError}
}

// excValue returns the exception instance of e, making one for an error
// raised in Go.
func excValue(th *Thread, e *Error) Value {
	if e.Exc != nil {
		return e.Exc
	}
	cls := builtinExceptions[e.Kind]
	if cls == nil {
		cls = exceptionClass
	}
	var args Tuple
	if e.Msg != "" {
		args = Tuple{String(e.Msg)}
	}
	e.Exc = newException(th, cls, args)
	return e.Exc
}

// excClass returns the class of the exception e (by Kind for an error
// made in Go).
func excClass(e *Error) *Class {
	if o, ok := e.Exc.(*Instance); ok {
		return o.class
	}
	if c := builtinExceptions[e.Kind]; c != nil {
		return c
	}
	return nil
}

// keyError is KeyError(key), carrying the key.
func keyError(th *Thread, key Value) *Error {
	o := newException(th, keyErrorClass, Tuple{key})
	return &Error{Kind: "KeyError", Msg: Repr(key), Exc: o, Code: CodePythonError}
}

func frozenError(th *Thread, name string) error {
	o := newException(th, frozenInstanceErrClass, Tuple{String("cannot assign to field '" + name + "'")})
	return errorOf(th, o)
}

// ErrorOf wraps any error as an *Error (a *NeedConcrete is returned as is
// by the caller; other Go errors become NKIError).
func ErrorOf(err error) *Error {
	switch e := err.(type) {
	case *Error:
		return e
	case nil:
		return nil
	}
	return &Error{Kind: "NKIError", Msg: err.Error(), Code: CodeNKIError, cause: err}
}
