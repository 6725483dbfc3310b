// call.go: calls. Call dispatches on the callee (Python functions, Go
// builtins, bound methods, classes, instances with __call__, protocol
// Callables). callFunction binds a Python function's parameters as
// CPython does (positional-only, defaults evaluated at def time, *args,
// keyword-only, **kwargs, CPython's wording for every binding error) and
// runs its body in a new frame. Classes are instantiated through __new__
// and __init__.
package tracer

import (
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// Function is a Python function (def or lambda).
type Function struct {
	name, qualname string
	code           *funcCode
	defaults       []Value // of the last len(defaults) positional parameters
	kwdefaults     []Value // one per keyword-only parameter (nil: required)
	closure        []*cell
	module         *Module
	dict           *strDict
	defClass       *Class // the class whose body defined it (zero-argument super())
	annotations    *Dict
	serial         uint64
}

// ParamKind says how a parameter is passed.
type ParamKind uint8

const (
	ParamPositionalOnly ParamKind = iota
	ParamPositionalOrKeyword
	ParamVarPositional // *args
	ParamKeywordOnly
	ParamVarKeyword // **kwargs
)

// Param describes one parameter of a Python function.
type Param struct {
	Name    string
	Kind    ParamKind
	Default Value // nil when the parameter has no default
	// Annotation is the evaluated annotation (nil when absent or not
	// evaluated, as under `from __future__ import annotations`).
	Annotation Value
}

// Name returns the function's name.
func (f *Function) Name() string { return f.name }

// QualName returns the function's qualified name (Class.method).
func (f *Function) QualName() string { return f.qualname }

// Module returns the module the function was defined in.
func (f *Function) Module() *Module { return f.module }

// Pos returns the position of the def (or lambda).
func (f *Function) Pos() Pos { return spanPos(f.code.file, f.code.pos) }

// Params describes the parameters in order.
func (f *Function) Params() []Param {
	c := f.code
	var out []Param
	nPos := c.posOnly + c.posOrKw
	firstDefault := nPos - len(f.defaults)
	ann := func(name string) Value {
		if f.annotations == nil {
			return nil
		}
		v, _, _ := f.annotations.Get(nil, String(name))
		return v
	}
	for i, name := range c.scope.params {
		p := Param{Name: name, Annotation: ann(name)}
		switch {
		case i < c.posOnly:
			p.Kind = ParamPositionalOnly
		case i < nPos:
			p.Kind = ParamPositionalOrKeyword
		case i == c.varArg:
			p.Kind = ParamVarPositional
		case i == c.kwArg:
			p.Kind = ParamVarKeyword
		default:
			p.Kind = ParamKeywordOnly
		}
		if i < nPos && i >= firstDefault {
			p.Default = f.defaults[i-firstDefault]
		}
		if p.Kind == ParamKeywordOnly {
			k := i - nPos
			if c.varArg >= 0 {
				k--
			}
			if k >= 0 && k < len(f.kwdefaults) {
				p.Default = f.kwdefaults[k]
			}
		}
		out = append(out, p)
	}
	return out
}

func (f *Function) Type() string         { return "function" }
func (f *Function) String() string       { return "<function " + f.qualname + ">" }
func (f *Function) Truth() (bool, error) { return true, nil }
func (f *Function) serialNumber() uint64 { return f.serial }

// Call calls the function.
func (f *Function) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return th.callFunction(f, args, kwargs)
}

func (f *Function) attr(name string) Value {
	if v, ok := f.dict.get(name); ok {
		return v
	}
	switch name {
	case "__name__":
		return String(f.name)
	case "__qualname__":
		return String(f.qualname)
	case "__module__":
		if f.module != nil {
			return String(f.module.name)
		}
		return None
	case "__doc__":
		if len(f.code.body) > 0 {
			if es, ok := f.code.body[0].(*syntax.ExprStmt); ok {
				if c, ok := es.Value.(*syntax.Constant); ok && c.Kind == syntax.ConstStr {
					return String(c.Value.(string))
				}
			}
		}
		return None
	case "__defaults__":
		if len(f.defaults) == 0 {
			return None
		}
		return Tuple(append([]Value(nil), f.defaults...))
	case "__annotations__":
		if f.annotations == nil {
			f.annotations = NewDict()
		}
		return f.annotations
	case "__dict__":
		d := NewDict()
		if f.dict != nil {
			for _, k := range f.dict.keys {
				d.setStr(nil, k, f.dict.m[k])
			}
		}
		return d
	case "__class__":
		return functionClass
	case "__globals__":
		if f.module != nil {
			v, _ := getAttr(nil, f.module, "__dict__")
			return v
		}
	case "__code__":
		return NewModule("code", map[string]Value{"co_name": String(f.name),
			"co_argcount": intValue(int64(f.code.posOnly + f.code.posOrKw))})
	}
	return nil
}

// Call calls fn with the arguments. Called from Go outside any Python
// frame (the NKI API calling the kernel), it also turns a panic of the
// evaluator into an InternalError.
func Call(th *Thread, fn Value, args []Value, kwargs []Kwarg) (Value, error) {
	if len(th.stack) == 0 {
		return callTop(th, fn, args, kwargs)
	}
	return call(th, fn, args, kwargs)
}

func callTop(th *Thread, fn Value, args []Value, kwargs []Kwarg) (v Value, err error) {
	th.defaults()
	defer th.recoverPanic(&err)
	return call(th, fn, args, kwargs)
}

func call(th *Thread, fn Value, args []Value, kwargs []Kwarg) (Value, error) {
	switch f := fn.(type) {
	case *Function:
		return th.callFunction(f, args, kwargs)
	case *Builtin:
		if err := th.tick(); err != nil {
			return nil, err
		}
		return f.Call(th, args, kwargs)
	case *BoundMethod:
		return f.Call(th, args, kwargs)
	case *Class:
		return f.Call(th, args, kwargs)
	case *Instance:
		if c := f.class.userLookup("__call__"); c != nil {
			return callMethod(th, f, c, args, kwargs)
		}
	case *nativeMethod:
		return f.Call(th, args, kwargs)
	case Callable:
		if err := th.tick(); err != nil {
			return nil, err
		}
		return f.Call(th, args, kwargs)
	}
	return nil, Errorf("TypeError", "'%s' object is not callable", fn.Type())
}

// isCallable reports callable(v).
func isCallable(v Value) bool {
	switch f := v.(type) {
	case *Function, *Builtin, *BoundMethod, *Class, *nativeMethod:
		return true
	case *Instance:
		return f.class.userLookup("__call__") != nil
	case Callable:
		return true
	}
	return false
}

// depthGuard reports whether the call depth limit is reached.
func (th *Thread) depthGuard() bool { return len(th.stack) >= th.maxDepth }

// callFunction runs a Python function.
func (th *Thread) callFunction(f *Function, args []Value, kwargs []Kwarg) (Value, error) {
	if th.maxDepth == 0 {
		th.defaults()
	}
	if len(th.stack) >= th.maxDepth {
		return nil, Errorf("RecursionError", "maximum recursion depth exceeded")
	}
	if err := th.tick(); err != nil {
		return nil, err
	}
	c := f.code
	sc := c.scope
	fr := &frame{name: f.name, fn: f, module: f.module, code: sc, file: c.file, res: c.res, serial: nextSerial()}
	fr.locals = make([]Value, sc.nSlots)
	if err := th.bindParams(f, fr.locals, args, kwargs); err != nil {
		return nil, err
	}
	if n := len(sc.cellNames); n > 0 {
		fr.cells = make([]*cell, n)
		for i := 0; i < sc.nOwnCells; i++ {
			cl := &cell{}
			if slot, ok := sc.slots[sc.cellNames[i]]; ok && slot < len(sc.params) {
				cl.v = fr.locals[slot]
			}
			fr.cells[i] = cl
		}
		for i, cl := range f.closure {
			if sc.nOwnCells+i < n {
				fr.cells[sc.nOwnCells+i] = cl
			}
		}
	}
	if sc.isGenerator {
		return newGenerator(th, f, fr), nil
	}
	th.stack = append(th.stack, fr)
	defer func() { th.stack = th.stack[:len(th.stack)-1] }()
	if c.body == nil {
		return th.eval(fr, c.expr)
	}
	ctl, err := th.execBlock(fr, c.body)
	if err != nil {
		return nil, err
	}
	if ctl == ctlReturn && fr.ret != nil {
		return fr.ret, nil
	}
	return None, nil
}

// bindParams binds the arguments of a call of f to its parameter slots.
func (th *Thread) bindParams(f *Function, locals []Value, args []Value, kwargs []Kwarg) error {
	c := f.code
	nPos := c.posOnly + c.posOrKw
	params := c.scope.params
	// Positional.
	n := len(args)
	if n > nPos {
		if c.varArg < 0 {
			return th.tooManyArgs(f, len(args), kwargs)
		}
		locals[c.varArg] = Tuple(append([]Value(nil), args[nPos:]...))
		n = nPos
	} else if c.varArg >= 0 {
		locals[c.varArg] = Tuple{}
	}
	copy(locals, args[:n])
	// Keywords.
	var extra *Dict
	if c.kwArg >= 0 {
		extra = NewDict()
		locals[c.kwArg] = extra
	}
	var posOnlyAsKw []string
	for _, kw := range kwargs {
		i, ok := c.paramIndex[kw.Name]
		if ok && i >= c.posOnly && i != c.varArg && i != c.kwArg {
			if locals[i] != nil {
				return Errorf("TypeError", "%s() got multiple values for argument '%s'", f.qualname, kw.Name)
			}
			locals[i] = kw.Value
			continue
		}
		if extra != nil {
			if _, dup, _ := extra.Get(th, String(kw.Name)); dup {
				return Errorf("TypeError", "%s() got multiple values for keyword argument '%s'", f.qualname, kw.Name)
			}
			extra.setStr(th, kw.Name, kw.Value)
			continue
		}
		if ok && i < c.posOnly {
			posOnlyAsKw = append(posOnlyAsKw, kw.Name)
			continue
		}
		return Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", f.qualname, kw.Name)
	}
	if len(posOnlyAsKw) > 0 {
		return Errorf("TypeError", "%s() got some positional-only arguments passed as keyword arguments: '%s'", f.qualname, strings.Join(posOnlyAsKw, ", "))
	}
	// Defaults and missing arguments.
	firstDefault := nPos - len(f.defaults)
	var missing []string
	for i := n; i < nPos; i++ {
		if locals[i] != nil {
			continue
		}
		if i >= firstDefault {
			locals[i] = f.defaults[i-firstDefault]
			continue
		}
		missing = append(missing, params[i])
	}
	if len(missing) > 0 {
		return missingArgs(f.qualname, "positional", missing)
	}
	kwStart := nPos
	if c.varArg >= 0 {
		kwStart++
	}
	for k := 0; k < c.kwOnly; k++ {
		i := kwStart + k
		if locals[i] != nil {
			continue
		}
		if k < len(f.kwdefaults) && f.kwdefaults[k] != nil {
			locals[i] = f.kwdefaults[k]
			continue
		}
		missing = append(missing, params[i])
	}
	if len(missing) > 0 {
		return missingArgs(f.qualname, "keyword-only", missing)
	}
	return nil
}

func (th *Thread) tooManyArgs(f *Function, given int, kwargs []Kwarg) error {
	c := f.code
	nPos := c.posOnly + c.posOrKw
	min := nPos - len(f.defaults)
	kwGiven := 0
	for _, kw := range kwargs {
		if i, ok := c.paramIndex[kw.Name]; ok && i >= nPos && i != c.varArg && i != c.kwArg {
			kwGiven++
		}
	}
	var takes string
	switch {
	case min == nPos && nPos == 1:
		takes = "1 positional argument"
	case min == nPos:
		takes = strconv.Itoa(nPos) + " positional arguments"
	default:
		takes = "from " + strconv.Itoa(min) + " to " + strconv.Itoa(nPos) + " positional arguments"
	}
	if kwGiven > 0 {
		kw := "argument"
		if kwGiven > 1 {
			kw = "arguments"
		}
		pos := "argument"
		if given != 1 {
			pos = "arguments"
		}
		return Errorf("TypeError", "%s() takes %s but %d positional %s (and %d keyword-only %s) were given",
			f.qualname, takes, given, pos, kwGiven, kw)
	}
	return Errorf("TypeError", "%s() takes %s but %d %s given", f.qualname, takes, given, wereWas(given))
}

// ---------------------------------------------------------------------------
// Classes.

// Call instantiates the class (or, for an enum, looks a member up).
func (c *Class) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if c.enum != nil {
		return enumLookup(th, c, args, kwargs)
	}
	if c.immutable && c.newFn != nil {
		return c.newFn(th, c, args, kwargs)
	}
	if c.immutable && !c.isExc {
		return nil, Errorf("TypeError", "cannot create '%s' instances", c.name)
	}
	if abs := abstractMethods(c); len(abs) > 0 {
		word := "method"
		if len(abs) > 1 {
			word = "methods"
		}
		return nil, Errorf("TypeError", "Can't instantiate abstract class %s with abstract %s %s", c.name, word, strings.Join(abs, ", "))
	}
	var obj Value
	if nf := c.userLookup("__new__"); nf != nil {
		fn := nf
		if sm, ok := nf.(*StaticMethod); ok {
			fn = sm.Func
		}
		r, err := Call(th, fn, append([]Value{c}, args...), kwargs)
		if err != nil {
			return nil, err
		}
		if !typeOf(r).IsSubclass(c) {
			return r, nil
		}
		obj = r
	} else if c.goDefined && c.newFn != nil {
		return c.newFn(th, c, args, kwargs)
	} else {
		var err error
		base, _ := c.nativeNew()
		newArgs, newKw := args, kwargs
		if base != nil && isMutableBuiltin(base) {
			newArgs, newKw = nil, nil
		}
		if obj, err = newPlainInstance(th, c, newArgs, newKw); err != nil {
			return nil, err
		}
	}
	init, owner := c.lookup("__init__")
	if owner == objectClass || init == nil {
		_, hasNew := c.nativeNew()
		if (len(args) > 0 || len(kwargs) > 0) && c.userLookup("__new__") == nil && hasNew == nil {
			return nil, Errorf("TypeError", "%s() takes no arguments", c.name)
		}
	} else {
		r, err := callMethod(th, obj, init, args, kwargs)
		if err != nil {
			return nil, err
		}
		if r != Value(None) {
			return nil, Errorf("TypeError", "__init__() should return None, not '%s'", r.Type())
		}
	}
	if o, ok := obj.(*Instance); ok && dcOf(c) != nil {
		o.frozen = true
	}
	return obj, nil
}

func isMutableBuiltin(c *Class) bool {
	switch c {
	case listClass, dictClass, setClass, defaultdictClass, orderedDictClass:
		return true
	}
	return false
}

// makeClass creates a class from a class statement's results.
func makeClass(th *Thread, name, qualname, module string, bases []*Class, ns *strDict) (*Class, error) {
	if len(bases) == 0 {
		bases = []*Class{objectClass}
	}
	if _, ok := ns.m["__getattribute__"]; ok {
		return nil, NotSupportedf("classes defining __getattribute__ are not supported (class %s; __getattr__ is)", name)
	}
	c := &Class{name: name, qualname: qualname, module: module, bases: bases, dict: ns, serial: nextSerial(), th: th}
	for _, b := range bases {
		if b.immutable && b.newFn == nil && !b.isExc && b != objectClass {
			return nil, Errorf("TypeError", "type '%s' is not an acceptable base type", b.name)
		}
		if b == boolClass {
			return nil, Errorf("TypeError", "type 'bool' is not an acceptable base type")
		}
		if b.enum != nil && len(b.enum.names) > 0 {
			return nil, Errorf("TypeError", "%s: cannot extend %s", name, b.String())
		}
	}
	mro, err := c3(c)
	if err != nil {
		return nil, err
	}
	c.mro = mro
	for _, m := range mro {
		if m.isExc {
			c.isExc = true
		}
		if m.subscriptable {
			c.subscriptable = true
		}
	}
	if _, ok := ns.m["__eq__"]; ok {
		if _, ok := ns.m["__hash__"]; !ok {
			ns.set("__hash__", None)
		}
	}
	for _, k := range ns.keys {
		setDefClass(ns.m[k], c)
	}
	if _, ok := ns.m["__module__"]; !ok {
		ns.set("__module__", String(module))
	}
	if _, ok := ns.m["__qualname__"]; ok {
		ns.del("__qualname__")
	}
	for _, m := range mro[1:] {
		if m.enum != nil || m == enumBaseClass || m == intEnumBaseClass || m == strEnumBaseClass {
			if err := makeEnum(th, c); err != nil {
				return nil, err
			}
			break
		}
		if m == namedTupleBaseClass {
			if err := makeTypedNamedTuple(th, c); err != nil {
				return nil, err
			}
			break
		}
	}
	return c, nil
}

func setDefClass(v Value, c *Class) {
	switch f := v.(type) {
	case *Function:
		if f.defClass == nil {
			f.defClass = c
		}
	case *StaticMethod:
		setDefClass(f.Func, c)
	case *ClassMethod:
		setDefClass(f.Func, c)
	case *Property:
		if f.Get != nil {
			setDefClass(f.Get, c)
		}
		if f.Set != nil {
			setDefClass(f.Set, c)
		}
	}
}

// newSuper is super() and super(cls, obj).
func newSuper(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "super() takes no keyword arguments")
	}
	switch len(args) {
	case 2:
		c, ok := args[0].(*Class)
		if !ok {
			return nil, Errorf("TypeError", "super() argument 1 must be a type, not %s", args[0].Type())
		}
		return &superObj{cls: c, obj: args[1]}, nil
	case 1:
		return nil, NotSupportedf("super() with one argument is not supported")
	case 0:
	default:
		return nil, Errorf("TypeError", "super() takes at most 2 arguments (%d given)", len(args))
	}
	for i := len(th.stack) - 1; i >= 0; i-- {
		fr := th.stack[i]
		if fr.fn == nil || fr.code.kind == scopeComprehension {
			continue
		}
		if fr.fn.defClass == nil {
			return nil, Errorf("RuntimeError", "super(): __class__ cell not found")
		}
		if len(fr.code.params) == 0 {
			return nil, Errorf("RuntimeError", "super(): no arguments")
		}
		first := fr.code.params[0]
		var self Value
		if b := fr.code.bind[first]; b.kind == bindCell {
			self = fr.cells[b.idx].v
		} else {
			self = fr.locals[0]
		}
		if self == nil {
			return nil, Errorf("RuntimeError", "super(): arg[0] deleted")
		}
		return &superObj{cls: fr.fn.defClass, obj: self}, nil
	}
	return nil, Errorf("RuntimeError", "super(): no arguments")
}
