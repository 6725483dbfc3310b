// exec.go: statement execution. Control flow leaves a statement as a
// ctl (normal, break, continue, return); exceptions as errors.
//
// Decisions:
//   - A *NeedConcrete, NotSupported, NKIError or LimitExceeded error is
//     not a Python exception: except clauses do not catch it, and neither
//     finally blocks nor __exit__ run while it unwinds (the trace is
//     abandoned, or a Looper rolls the Python state back and retries),
//     so no Python code runs on a state that is about to be undone.
//   - match statements and async constructs are NotSupported, naming the
//     construct; the error carries the statement's position.
//   - Annotations of module and class variables are evaluated and kept
//     in __annotations__ (as CPython does), those of local variables are
//     not evaluated (as CPython does); `from __future__ import
//     annotations` turns all annotation evaluation off.
package tracer

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

type ctl uint8

const (
	ctlNormal ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

func (th *Thread) execBlock(fr *frame, body []syntax.Stmt) (ctl, error) {
	for _, s := range body {
		c, err := th.exec(fr, s)
		if err != nil || c != ctlNormal {
			return c, err
		}
	}
	return ctlNormal, nil
}

func (th *Thread) exec(fr *frame, s syntax.Stmt) (ctl, error) {
	prev := fr.stmt
	fr.stmt = s
	if err := th.tick(); err != nil {
		return ctlNormal, th.stamp(fr, err, s)
	}
	c, err := th.exec1(fr, s)
	fr.stmt = prev
	if err != nil {
		return c, th.stamp(fr, err, s)
	}
	return c, nil
}

func (th *Thread) exec1(fr *frame, s syntax.Stmt) (ctl, error) {
	switch n := s.(type) {
	case *syntax.ExprStmt:
		_, err := th.eval(fr, n.Value)
		return ctlNormal, err
	case *syntax.Assign:
		v, err := th.eval(fr, n.Value)
		if err != nil {
			return ctlNormal, err
		}
		for _, t := range n.Targets {
			if err := th.assign(fr, t, v); err != nil {
				return ctlNormal, err
			}
		}
		return ctlNormal, nil
	case *syntax.AugAssign:
		return ctlNormal, th.augAssign(fr, n)
	case *syntax.AnnAssign:
		return ctlNormal, th.annAssign(fr, n)
	case *syntax.If:
		c, err := th.eval(fr, n.Test)
		if err != nil {
			return ctlNormal, err
		}
		t, err := truth(th, c)
		if err != nil {
			return ctlNormal, th.stamp(fr, th.concreteWhat(err, "the condition of an if statement"), n.Test)
		}
		if t {
			return th.execBlock(fr, n.Body)
		}
		return th.execBlock(fr, n.OrElse)
	case *syntax.For:
		return th.execFor(fr, n)
	case *syntax.While:
		return th.execWhile(fr, n)
	case *syntax.Return:
		if n.Value == nil {
			fr.ret = None
		} else {
			v, err := th.eval(fr, n.Value)
			if err != nil {
				return ctlNormal, err
			}
			fr.ret = v
		}
		return ctlReturn, nil
	case *syntax.Pass:
		return ctlNormal, nil
	case *syntax.Break:
		return ctlBreak, nil
	case *syntax.Continue:
		return ctlContinue, nil
	case *syntax.FunctionDef:
		return ctlNormal, th.execDef(fr, n)
	case *syntax.ClassDef:
		return ctlNormal, th.execClass(fr, n)
	case *syntax.Delete:
		for _, t := range n.Targets {
			if err := th.delete(fr, t); err != nil {
				return ctlNormal, err
			}
		}
		return ctlNormal, nil
	case *syntax.Assert:
		c, err := th.eval(fr, n.Test)
		if err != nil {
			return ctlNormal, err
		}
		t, err := truth(th, c)
		if err != nil {
			return ctlNormal, th.stamp(fr, th.concreteWhat(err, "the condition of an assert statement"), n.Test)
		}
		if t {
			return ctlNormal, nil
		}
		var args Tuple
		if n.Msg != nil {
			m, err := th.eval(fr, n.Msg)
			if err != nil {
				return ctlNormal, err
			}
			args = Tuple{m}
		}
		return ctlNormal, errorOf(th, newException(th, builtinExceptions["AssertionError"], args))
	case *syntax.Raise:
		return ctlNormal, th.execRaise(fr, n)
	case *syntax.Try:
		return th.execTry(fr, n)
	case *syntax.With:
		if n.IsAsync {
			return ctlNormal, NotSupportedf("async with is not supported")
		}
		return th.execWith(fr, n, 0)
	case *syntax.Import:
		return ctlNormal, th.execImport(fr, n)
	case *syntax.ImportFrom:
		return ctlNormal, th.execImportFrom(fr, n)
	case *syntax.Global, *syntax.Nonlocal:
		return ctlNormal, nil
	case *syntax.Match:
		return ctlNormal, NotSupportedf("the match statement is not supported")
	}
	return ctlNormal, NotSupportedf("the statement %T is not supported", s)
}

// ---------------------------------------------------------------------------
// Assignment.

// assign binds a target (a name, attribute, subscript, or a tuple/list of
// targets with at most one starred) to v.
func (th *Thread) assign(fr *frame, t syntax.Expr, v Value) error {
	switch n := t.(type) {
	case *syntax.Name:
		return th.storeNameNode(fr, n, v)
	case *syntax.Attribute:
		obj, err := th.eval(fr, n.Value)
		if err != nil {
			return err
		}
		if nm, ok := v.(Nameable); ok {
			nm.BindName(n.Attr)
		}
		if err := setAttr(th, obj, n.Attr, v); err != nil {
			return th.stamp(fr, err, n)
		}
		return nil
	case *syntax.Subscript:
		obj, err := th.eval(fr, n.Value)
		if err != nil {
			return err
		}
		k, err := th.evalSubscriptKey(fr, n.Slice)
		if err != nil {
			return err
		}
		prev := fr.dispatchAt(n)
		err = setIndex(th, obj, k, v)
		fr.call = prev
		if err != nil {
			return th.stamp(fr, err, n)
		}
		return nil
	case *syntax.Tuple:
		return th.unpack(fr, n.Elts, v, t)
	case *syntax.List:
		return th.unpack(fr, n.Elts, v, t)
	case *syntax.Starred:
		return Errorf("SyntaxError", "starred assignment target must be in a list or tuple")
	}
	return Errorf("SyntaxError", "cannot assign to %s", exprWord(t))
}

func (th *Thread) unpack(fr *frame, targets []syntax.Expr, v Value, node syntax.Node) error {
	var elems []Value
	switch x := v.(type) {
	case Tuple:
		elems = x
	case *List:
		elems = append([]Value(nil), x.elems...)
	default:
		var err error
		elems, err = collect(th, v)
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind == "TypeError" && strings.HasSuffix(e.Msg, "is not iterable") {
				return Errorf("TypeError", "cannot unpack non-iterable %s object", v.Type())
			}
			return err
		}
	}
	star := -1
	for i, t := range targets {
		if _, ok := t.(*syntax.Starred); ok {
			star = i
		}
	}
	if star < 0 {
		if len(elems) < len(targets) {
			return Errorf("ValueError", "not enough values to unpack (expected %d, got %d)", len(targets), len(elems))
		}
		if len(elems) > len(targets) {
			return Errorf("ValueError", "too many values to unpack (expected %d)", len(targets))
		}
		for i, t := range targets {
			if err := th.assign(fr, t, elems[i]); err != nil {
				return err
			}
		}
		return nil
	}
	before, after := star, len(targets)-star-1
	if len(elems) < before+after {
		return Errorf("ValueError", "not enough values to unpack (expected at least %d, got %d)", before+after, len(elems))
	}
	for i := 0; i < before; i++ {
		if err := th.assign(fr, targets[i], elems[i]); err != nil {
			return err
		}
	}
	mid := append([]Value(nil), elems[before:len(elems)-after]...)
	if err := th.assign(fr, targets[star].(*syntax.Starred).Value, NewList(mid)); err != nil {
		return err
	}
	for i := 0; i < after; i++ {
		if err := th.assign(fr, targets[star+1+i], elems[len(elems)-after+i]); err != nil {
			return err
		}
	}
	return nil
}

func (th *Thread) augAssign(fr *frame, n *syntax.AugAssign) error {
	rhs, err := th.eval(fr, n.Value)
	if err != nil {
		return err
	}
	// The operator's dispatch (and the store it makes) happens at the
	// statement: an NKI value it reaches stamps what it emits with it.
	prev := fr.dispatchAt(n)
	defer func() { fr.call = prev }()
	switch t := n.Target.(type) {
	case *syntax.Name:
		b := fr.nodeBinding(t)
		cur, err := th.loadBinding(fr, t.ID, b)
		if err != nil {
			return th.stamp(fr, err, t)
		}
		r, err := Inplace(th, n.Op, cur, rhs)
		if err != nil {
			return err
		}
		return th.storeBinding(fr, t.ID, b, r)
	case *syntax.Attribute:
		obj, err := th.eval(fr, t.Value)
		if err != nil {
			return err
		}
		cur, err := getAttrOrError(th, obj, t.Attr)
		if err != nil {
			return th.stamp(fr, err, t)
		}
		r, err := Inplace(th, n.Op, cur, rhs)
		if err != nil {
			return err
		}
		return setAttr(th, obj, t.Attr, r)
	case *syntax.Subscript:
		obj, err := th.eval(fr, t.Value)
		if err != nil {
			return err
		}
		k, err := th.evalSubscriptKey(fr, t.Slice)
		if err != nil {
			return err
		}
		if ai, ok := obj.(AugIndexer); ok {
			handled, err := ai.AugSetIndex(th, k, n.Op, rhs)
			if err != nil || handled {
				return err
			}
		}
		cur, err := getIndex(th, obj, k)
		if err != nil {
			return th.stamp(fr, err, t)
		}
		r, err := Inplace(th, n.Op, cur, rhs)
		if err != nil {
			return err
		}
		return setIndex(th, obj, k, r)
	}
	return Errorf("SyntaxError", "'%s' is an illegal expression for augmented assignment", exprWord(n.Target))
}

func (th *Thread) annAssign(fr *frame, n *syntax.AnnAssign) error {
	if fr.code.kind != scopeFunction && fr.code.kind != scopeComprehension && !fr.module.futureAnnotations {
		ann, err := th.eval(fr, n.Annotation)
		if err != nil {
			return err
		}
		if nm, ok := n.Target.(*syntax.Name); ok && n.Simple {
			var anns *Dict
			if fr.code.kind == scopeClass {
				if d, ok := fr.classNS.m["__annotations__"].(*Dict); ok {
					anns = d
				} else {
					anns = NewDict()
					fr.classNS.set("__annotations__", anns)
				}
			} else {
				if d, ok := fr.module.members.m["__annotations__"].(*Dict); ok {
					anns = d
				} else {
					anns = NewDict()
					fr.module.members.set("__annotations__", anns)
				}
			}
			if err := anns.Set(th, String(nm.ID), ann); err != nil {
				return err
			}
		}
	} else if fr.code.kind == scopeClass {
		// Still record the field order for dataclasses.
		if nm, ok := n.Target.(*syntax.Name); ok && n.Simple {
			anns, ok := fr.classNS.m["__annotations__"].(*Dict)
			if !ok {
				anns = NewDict()
				fr.classNS.set("__annotations__", anns)
			}
			if err := anns.Set(th, String(nm.ID), String(sourceText(fr.file, n.Annotation))); err != nil {
				return err
			}
		}
	}
	if n.Value == nil {
		return nil
	}
	v, err := th.eval(fr, n.Value)
	if err != nil {
		return err
	}
	return th.assign(fr, n.Target, v)
}

// sourceText returns the source of a node (a string annotation under
// `from __future__ import annotations`).
func sourceText(f *syntax.File, n syntax.Node) string {
	if f == nil {
		return ""
	}
	sp := n.Extent()
	if sp.Start.Line != sp.End.Line {
		return f.Line(int(sp.Start.Line))[sp.Start.Col:]
	}
	line := f.Line(int(sp.Start.Line))
	if int(sp.End.Col) <= len(line) && sp.Start.Col <= sp.End.Col {
		return line[sp.Start.Col:sp.End.Col]
	}
	return ""
}

func (th *Thread) delete(fr *frame, t syntax.Expr) error {
	switch n := t.(type) {
	case *syntax.Name:
		return th.deleteName(fr, n.ID)
	case *syntax.Attribute:
		obj, err := th.eval(fr, n.Value)
		if err != nil {
			return err
		}
		return delAttr(th, obj, n.Attr)
	case *syntax.Subscript:
		obj, err := th.eval(fr, n.Value)
		if err != nil {
			return err
		}
		k, err := th.evalSubscriptKey(fr, n.Slice)
		if err != nil {
			return err
		}
		return delIndex(th, obj, k)
	case *syntax.Tuple:
		for _, e := range n.Elts {
			if err := th.delete(fr, e); err != nil {
				return err
			}
		}
		return nil
	case *syntax.List:
		for _, e := range n.Elts {
			if err := th.delete(fr, e); err != nil {
				return err
			}
		}
		return nil
	}
	return Errorf("SyntaxError", "cannot delete %s", exprWord(t))
}

// ---------------------------------------------------------------------------
// Loops.

func (th *Thread) execWhile(fr *frame, n *syntax.While) (ctl, error) {
	for {
		c, err := th.eval(fr, n.Test)
		if err != nil {
			return ctlNormal, err
		}
		t, err := truth(th, c)
		if err != nil {
			return ctlNormal, th.stamp(fr, th.concreteWhat(err, "the condition of a while loop"), n.Test)
		}
		if !t {
			break
		}
		r, err := th.execBlock(fr, n.Body)
		if err != nil {
			return ctlNormal, err
		}
		switch r {
		case ctlBreak:
			return ctlNormal, nil
		case ctlReturn:
			return ctlReturn, nil
		}
		if err := th.tick(); err != nil {
			return ctlNormal, err
		}
	}
	return th.execBlock(fr, n.OrElse)
}

func (th *Thread) execFor(fr *frame, n *syntax.For) (ctl, error) {
	if n.IsAsync {
		return ctlNormal, NotSupportedf("async for is not supported")
	}
	it, err := th.eval(fr, n.Iter)
	if err != nil {
		return ctlNormal, err
	}
	if lp, ok := it.(Looper); ok {
		return th.traceLoop(fr, n, lp)
	}
	broke := false
	err = Iterate(th, it, func(v Value) error {
		if err := th.assign(fr, n.Target, v); err != nil {
			return err
		}
		r, err := th.execBlock(fr, n.Body)
		if err != nil {
			return err
		}
		switch r {
		case ctlBreak:
			broke = true
			return errStopIteration
		case ctlReturn:
			broke = true
			return errReturn
		}
		return nil
	})
	if err == errReturn {
		return ctlReturn, nil
	}
	if err != nil {
		return ctlNormal, th.stamp(fr, err, n.Iter)
	}
	if broke {
		return ctlNormal, nil
	}
	return th.execBlock(fr, n.OrElse)
}

var errReturn = &Error{Kind: "internal-return"}

// ---------------------------------------------------------------------------
// Definitions.

func (th *Thread) execDef(fr *frame, n *syntax.FunctionDef) error {
	if n.IsAsync {
		return NotSupportedf("async def is not supported")
	}
	decos := make([]Value, len(n.DecoratorList))
	for i, d := range n.DecoratorList {
		v, err := th.eval(fr, d)
		if err != nil {
			return err
		}
		decos[i] = v
	}
	f, err := th.makeFunction(fr, n, n.Name, n.Args, n.Returns)
	if err != nil {
		return err
	}
	var v Value = f
	for i := len(decos) - 1; i >= 0; i-- {
		prev := fr.call
		fr.call = n.DecoratorList[i]
		r, err := Call(th, decos[i], []Value{v}, nil)
		fr.call = prev
		if err != nil {
			return th.stamp(fr, err, n.DecoratorList[i])
		}
		v = r
	}
	return th.storeName(fr, n.Name, v)
}

func (th *Thread) execClass(fr *frame, n *syntax.ClassDef) error {
	decos := make([]Value, len(n.DecoratorList))
	for i, d := range n.DecoratorList {
		v, err := th.eval(fr, d)
		if err != nil {
			return err
		}
		decos[i] = v
	}
	var bases []*Class
	for _, b := range n.Bases {
		if _, ok := b.(*syntax.Starred); ok {
			return NotSupportedf("starred base classes are not supported")
		}
		v, err := th.eval(fr, b)
		if err != nil {
			return err
		}
		c, ok := v.(*Class)
		if !ok {
			if mb := getAttrQuiet(th, v, "__mro_entries__"); mb != nil {
				r, err := Call(th, mb, []Value{Tuple{}}, nil)
				if err != nil {
					return err
				}
				if t, ok := r.(Tuple); ok && len(t) == 1 {
					c, _ = t[0].(*Class)
				}
			}
			if c == nil {
				return th.stamp(fr, Errorf("TypeError", "bases must be types"), b)
			}
		}
		bases = append(bases, c)
	}
	abcMeta := false
	var classKw []Kwarg
	for _, k := range n.Keywords {
		v, err := th.eval(fr, k.Value)
		if err != nil {
			return err
		}
		if k.Arg == "metaclass" {
			if c, ok := v.(*Class); ok && (c == abcMetaClass || c == typeClass) {
				abcMeta = c == abcMetaClass
				continue
			}
			if c, ok := v.(*Class); ok && c == enumMetaClass {
				continue
			}
			return NotSupportedf("metaclasses are not supported (class %s)", n.Name)
		}
		if k.Arg == "" {
			return NotSupportedf("**kwargs in a class statement are not supported (class %s)", n.Name)
		}
		classKw = append(classKw, Kwarg{Name: k.Arg, Value: v})
	}
	sc := fr.res.scopes[n]
	qual := n.Name
	if fr.code.kind == scopeClass {
		qual = fr.classQual + "." + n.Name
	} else if fr.fn != nil {
		qual = fr.fn.qualname + ".<locals>." + n.Name
	}
	ns := newStrDict(8)
	ns.set("__module__", String(fr.module.name))
	ns.set("__qualname__", String(qual))
	cf := &frame{name: n.Name, fn: nil, module: fr.module, code: sc, file: fr.file, res: fr.res, serial: nextSerial(),
		classNS: ns, classQual: qual}
	if len(sc.cellNames) > 0 {
		cf.cells = make([]*cell, len(sc.cellNames))
		for i, name := range sc.cellNames {
			cl, err := fr.cellFor(name)
			if err != nil {
				return err
			}
			cf.cells[i] = cl
		}
	}
	if len(th.stack) >= th.maxDepth {
		return Errorf("RecursionError", "maximum recursion depth exceeded")
	}
	th.stack = append(th.stack, cf)
	_, err := th.execBlock(cf, n.Body)
	th.stack = th.stack[:len(th.stack)-1]
	if err != nil {
		return err
	}
	cls, err := makeClass(th, n.Name, qual, fr.module.name, bases, ns)
	if err != nil {
		return err
	}
	cls.abcMeta = abcMeta
	if err := initSubclass(th, cls, classKw); err != nil {
		return err
	}
	var v Value = cls
	for i := len(decos) - 1; i >= 0; i-- {
		prev := fr.call
		fr.call = n.DecoratorList[i]
		r, err := Call(th, decos[i], []Value{v}, nil)
		fr.call = prev
		if err != nil {
			return th.stamp(fr, err, n.DecoratorList[i])
		}
		v = r
	}
	return th.storeName(fr, n.Name, v)
}

// initSubclass runs what type.__new__ runs after making a class: the
// __set_name__ of the descriptors in its namespace and its base's
// __init_subclass__ (with the class statement's keywords).
func initSubclass(th *Thread, cls *Class, kw []Kwarg) error {
	for _, k := range append([]string(nil), cls.dict.keys...) {
		if d, ok := cls.dict.m[k].(*Instance); ok {
			if sn := d.class.userLookup("__set_name__"); sn != nil {
				if _, err := callMethod(th, d, sn, []Value{cls, String(k)}, nil); err != nil {
					return err
				}
			}
		}
	}
	for _, b := range cls.mro[1:] {
		if b.immutable {
			continue
		}
		f, ok := b.dict.m["__init_subclass__"]
		if !ok {
			continue
		}
		fn := f
		switch x := f.(type) {
		case *ClassMethod:
			fn = x.Func
		case *StaticMethod:
			_, err := Call(th, x.Func, nil, kw)
			return err
		}
		_, err := Call(th, fn, []Value{cls}, kw)
		return err
	}
	if len(kw) > 0 {
		return Errorf("TypeError", "%s.__init_subclass__() takes no keyword arguments", cls.name)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Exceptions.

func (th *Thread) execRaise(fr *frame, n *syntax.Raise) error {
	if n.Exc == nil {
		if len(th.handling) == 0 {
			return Errorf("RuntimeError", "No active exception to reraise")
		}
		e := th.handling[len(th.handling)-1]
		return e
	}
	v, err := th.eval(fr, n.Exc)
	if err != nil {
		return err
	}
	if n.Cause != nil {
		if _, err := th.eval(fr, n.Cause); err != nil {
			return err
		}
	}
	return th.raiseValue(v)
}

// raiseValue makes the error of `raise v`.
func (th *Thread) raiseValue(v Value) error {
	switch x := v.(type) {
	case *Class:
		if !x.isExc {
			return Errorf("TypeError", "exceptions must derive from BaseException")
		}
		r, err := Call(th, x, nil, nil)
		if err != nil {
			return err
		}
		o, ok := r.(*Instance)
		if !ok {
			return Errorf("TypeError", "calling %s should have returned an instance of BaseException, not %s", x.String(), r.Type())
		}
		return errorOf(th, o)
	case *Instance:
		if !x.class.isExc {
			return Errorf("TypeError", "exceptions must derive from BaseException")
		}
		return errorOf(th, x)
	}
	return Errorf("TypeError", "exceptions must derive from BaseException")
}

// handlerMatches reports whether the except clause's type (a class or a
// tuple of classes) matches the exception.
func handlerMatches(e *Error, typ Value) (bool, error) {
	cls := excClass(e)
	switch t := typ.(type) {
	case *Class:
		if !t.isExc {
			return false, Errorf("TypeError", "catching classes that do not inherit from BaseException is not allowed")
		}
		return cls != nil && cls.IsSubclass(t), nil
	case Tuple:
		for _, x := range t {
			ok, err := handlerMatches(e, x)
			if err != nil || ok {
				return ok, err
			}
		}
		return false, nil
	}
	return false, Errorf("TypeError", "catching classes that do not inherit from BaseException is not allowed")
}

// pythonException returns err as a catchable Python exception.
func pythonException(err error) (*Error, bool) {
	e, ok := err.(*Error)
	if !ok || !e.catchable() || e == errReturn {
		return nil, false
	}
	return e, true
}

func (th *Thread) execTry(fr *frame, n *syntax.Try) (ctl, error) {
	if n.IsStar {
		return ctlNormal, NotSupportedf("except* (exception groups) is not supported")
	}
	c, err := th.execBlock(fr, n.Body)
	if err != nil {
		e, ok := pythonException(err)
		if !ok {
			return c, err // not a Python exception: no handler, no finally
		}
		handled := false
		for _, h := range n.Handlers {
			if h.Type != nil {
				typ, terr := th.eval(fr, h.Type)
				if terr != nil {
					return ctlNormal, terr
				}
				ok, terr := handlerMatches(e, typ)
				if terr != nil {
					return ctlNormal, th.stamp(fr, terr, h.Type)
				}
				if !ok {
					continue
				}
			}
			handled = true
			if h.Name != "" {
				if serr := th.storeName(fr, h.Name, excValue(th, e)); serr != nil {
					return ctlNormal, serr
				}
			}
			th.handling = append(th.handling, e)
			c, err = th.execBlock(fr, h.Body)
			th.handling = th.handling[:len(th.handling)-1]
			if h.Name != "" {
				_ = th.deleteName(fr, h.Name)
			}
			break
		}
		if !handled {
			c, err = ctlNormal, e
		}
	} else if c == ctlNormal && len(n.OrElse) > 0 {
		c, err = th.execBlock(fr, n.OrElse)
	}
	if len(n.FinalBody) > 0 {
		if err != nil {
			if _, ok := pythonException(err); !ok {
				return c, err
			}
		}
		savedRet := fr.ret
		fc, ferr := th.execBlock(fr, n.FinalBody)
		if ferr != nil {
			return fc, ferr
		}
		if fc != ctlNormal {
			return fc, nil // return/break/continue in finally overrides
		}
		fr.ret = savedRet
	}
	return c, err
}

// ---------------------------------------------------------------------------
// with.

func (th *Thread) execWith(fr *frame, n *syntax.With, i int) (ctl, error) {
	if i == len(n.Items) {
		return th.execBlock(fr, n.Body)
	}
	item := n.Items[i]
	mgr, err := th.eval(fr, item.ContextExpr)
	if err != nil {
		return ctlNormal, err
	}
	var enter, exit Value
	cm, isCM := mgr.(ContextManager)
	var entered Value
	if isCM {
		entered, err = cm.Enter(th)
		if err != nil {
			return ctlNormal, th.stamp(fr, err, item.ContextExpr)
		}
	} else {
		enter, _ = getAttr(th, mgr, "__enter__")
		exit, _ = getAttr(th, mgr, "__exit__")
		if enter == nil || exit == nil {
			return ctlNormal, th.stamp(fr, Errorf("TypeError", "'%s' object does not support the context manager protocol", mgr.Type()), item.ContextExpr)
		}
		entered, err = Call(th, enter, nil, nil)
		if err != nil {
			return ctlNormal, th.stamp(fr, err, item.ContextExpr)
		}
	}
	if item.OptionalVars != nil {
		if err := th.assign(fr, item.OptionalVars, entered); err != nil {
			return ctlNormal, err
		}
	}
	c, err := th.execWith(fr, n, i+1)
	if err != nil {
		if _, ok := pythonException(err); !ok {
			return c, err
		}
	}
	if isCM {
		if xerr := cm.Exit(th, err); xerr != nil {
			return ctlNormal, th.stamp(fr, xerr, item.ContextExpr)
		}
		if err != nil {
			return ctlNormal, nil
		}
		return c, nil
	}
	var excArgs []Value
	if err != nil {
		e, _ := pythonException(err)
		ev := excValue(th, e)
		excArgs = []Value{typeOf(ev), ev, None}
	} else {
		excArgs = []Value{None, None, None}
	}
	r, xerr := Call(th, exit, excArgs, nil)
	if xerr != nil {
		return ctlNormal, xerr
	}
	if err != nil {
		swallow, terr := truth(th, r)
		if terr != nil {
			return ctlNormal, terr
		}
		if swallow {
			return ctlNormal, nil
		}
		return c, err
	}
	return c, nil
}
