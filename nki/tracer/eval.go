// eval.go: expression evaluation. eval walks the tree; an error leaving a
// node is stamped with the node's position (only the innermost node's
// stamp sticks), the traceback of the active calls and its diag code.
//
// Comprehensions run in their own scope, as in Python 3; generator
// expressions are lazy (generator.go), their first iterable evaluated at
// once, as in CPython.
package tracer

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// eval evaluates an expression in a frame.
func (th *Thread) eval(fr *frame, e syntax.Expr) (Value, error) {
	v, err := th.eval1(fr, e)
	if err != nil {
		return nil, th.stamp(fr, err, e)
	}
	return v, nil
}

// stamp fills in an error's position, traceback and code (once: the
// innermost node's).
func (th *Thread) stamp(fr *frame, err error, n syntax.Node) error {
	switch e := err.(type) {
	case *Error:
		if !e.Pos.IsKnown() && n != nil {
			e.Pos = fr.posOf(n)
			tb := th.Traceback()
			if len(tb) > 0 {
				tb[len(tb)-1].Pos = e.Pos
			}
			e.Traceback = tb
		}
		if e.Code == "" {
			e.Code = codeForKind(e.Kind)
		}
		return e
	case *NeedConcrete:
		if !e.Pos.IsKnown() && n != nil {
			e.Pos = fr.posOf(n)
		}
		return e
	case nil:
		return nil
	}
	if err == errStopIteration {
		return err
	}
	e := ErrorOf(err)
	return th.stamp(fr, e, n)
}

func (th *Thread) eval1(fr *frame, e syntax.Expr) (Value, error) {
	switch n := e.(type) {
	case *syntax.Name:
		return th.loadNameNode(fr, n)
	case *syntax.Constant:
		v := fr.consts()[n]
		if v == nil {
			v = constValue(n)
		}
		if u, ok := v.(*unsupportedConst); ok {
			return nil, NotSupportedf("%s are not supported", u.what)
		}
		return v, nil
	case *syntax.Attribute:
		x, err := th.eval(fr, n.Value)
		if err != nil {
			return nil, err
		}
		return getAttrOrError(th, x, n.Attr)
	case *syntax.Call:
		return th.evalCall(fr, n)
	case *syntax.BinOp:
		x, err := th.eval(fr, n.Left)
		if err != nil {
			return nil, err
		}
		y, err := th.eval(fr, n.Right)
		if err != nil {
			return nil, err
		}
		prev := fr.dispatchAt(n)
		v, err := Binary(th, n.Op, x, y)
		fr.call = prev
		return v, err
	case *syntax.Compare:
		return th.evalCompare(fr, n)
	case *syntax.Subscript:
		x, err := th.eval(fr, n.Value)
		if err != nil {
			return nil, err
		}
		k, err := th.evalSubscriptKey(fr, n.Slice)
		if err != nil {
			return nil, err
		}
		prev := fr.dispatchAt(n)
		v, err := getIndex(th, x, k)
		fr.call = prev
		return v, err
	case *syntax.UnaryOp:
		x, err := th.eval(fr, n.Operand)
		if err != nil {
			return nil, err
		}
		if n.Op == syntax.Not {
			t, err := truth(th, x)
			if err != nil {
				return nil, th.concreteWhat(err, "the operand of 'not'")
			}
			return Bool(!t), nil
		}
		prev := fr.dispatchAt(n)
		v, err := Unary(th, n.Op, x)
		fr.call = prev
		return v, err
	case *syntax.BoolOp:
		var v Value
		for i, x := range n.Values {
			var err error
			v, err = th.eval(fr, x)
			if err != nil {
				return nil, err
			}
			if i == len(n.Values)-1 {
				break
			}
			t, err := truth(th, v)
			if err != nil {
				return nil, th.concreteWhat(err, "the operand of '"+strings.ToLower(n.Op.String())+"'")
			}
			if t == (n.Op == syntax.Or) {
				return v, nil
			}
		}
		return v, nil
	case *syntax.IfExp:
		c, err := th.eval(fr, n.Test)
		if err != nil {
			return nil, err
		}
		t, err := truth(th, c)
		if err != nil {
			return nil, th.concreteWhat(err, "the condition of a conditional expression")
		}
		if t {
			return th.eval(fr, n.Body)
		}
		return th.eval(fr, n.OrElse)
	case *syntax.Tuple:
		elems, err := th.evalElems(fr, n.Elts)
		if err != nil {
			return nil, err
		}
		return Tuple(elems), nil
	case *syntax.List:
		elems, err := th.evalElems(fr, n.Elts)
		if err != nil {
			return nil, err
		}
		return NewList(elems), nil
	case *syntax.Set:
		elems, err := th.evalElems(fr, n.Elts)
		if err != nil {
			return nil, err
		}
		s := NewSet()
		for _, x := range elems {
			if err := s.Add(th, x); err != nil {
				return nil, err
			}
		}
		return s, nil
	case *syntax.Dict:
		d := NewDict()
		for i, k := range n.Keys {
			if k == nil {
				m, err := th.eval(fr, n.Values[i])
				if err != nil {
					return nil, err
				}
				if _, ok := m.(*Dict); !ok && getAttrQuiet(th, m, "keys") == nil {
					return nil, Errorf("TypeError", "'%s' object is not a mapping", m.Type())
				}
				if err := dictUpdate(th, d, []Value{m}, nil); err != nil {
					return nil, err
				}
				continue
			}
			kv, err := th.eval(fr, k)
			if err != nil {
				return nil, err
			}
			vv, err := th.eval(fr, n.Values[i])
			if err != nil {
				return nil, err
			}
			if err := d.Set(th, kv, vv); err != nil {
				return nil, err
			}
		}
		return d, nil
	case *syntax.JoinedStr:
		var b strings.Builder
		for _, part := range n.Values {
			switch p := part.(type) {
			case *syntax.Constant:
				s, _ := p.Value.(string)
				b.WriteString(s)
			case *syntax.FormattedValue:
				s, err := th.evalFormatted(fr, p)
				if err != nil {
					return nil, th.stamp(fr, err, p)
				}
				b.WriteString(s)
			default:
				v, err := th.eval(fr, part)
				if err != nil {
					return nil, err
				}
				s, err := toStr(th, v)
				if err != nil {
					return nil, err
				}
				b.WriteString(s)
			}
			if b.Len() > th.sizeLimit() {
				return nil, sizeError(th)
			}
		}
		return String(b.String()), nil
	case *syntax.FormattedValue:
		s, err := th.evalFormatted(fr, n)
		if err != nil {
			return nil, err
		}
		return String(s), nil
	case *syntax.Lambda:
		return th.makeFunction(fr, n, "<lambda>", n.Args, nil)
	case *syntax.NamedExpr:
		v, err := th.eval(fr, n.Value)
		if err != nil {
			return nil, err
		}
		nm, ok := n.Target.(*syntax.Name)
		if !ok {
			return nil, Errorf("SyntaxError", "cannot use assignment expressions with %s", exprWord(n.Target))
		}
		return v, th.storeNameNode(fr, nm, v)
	case *syntax.ListComp:
		var out []Value
		err := th.comprehension(fr, n, n.Generators, func(cf *frame) error {
			v, err := th.eval(cf, n.Elt)
			if err != nil {
				return err
			}
			if len(out) >= th.sizeLimit() {
				return sizeError(th)
			}
			out = append(out, v)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return NewList(out), nil
	case *syntax.SetComp:
		s := NewSet()
		err := th.comprehension(fr, n, n.Generators, func(cf *frame) error {
			v, err := th.eval(cf, n.Elt)
			if err != nil {
				return err
			}
			return s.Add(th, v)
		})
		if err != nil {
			return nil, err
		}
		return s, nil
	case *syntax.DictComp:
		d := NewDict()
		err := th.comprehension(fr, n, n.Generators, func(cf *frame) error {
			k, err := th.eval(cf, n.Key)
			if err != nil {
				return err
			}
			v, err := th.eval(cf, n.Value)
			if err != nil {
				return err
			}
			return d.Set(th, k, v)
		})
		if err != nil {
			return nil, err
		}
		return d, nil
	case *syntax.GeneratorExp:
		return th.genExp(fr, n)
	case *syntax.Starred:
		return nil, Errorf("SyntaxError", "can't use starred expression here")
	case *syntax.Slice:
		return th.evalSlice(fr, n)
	case *syntax.Yield:
		return th.evalYield(fr, n)
	case *syntax.YieldFrom:
		return th.evalYieldFrom(fr, n)
	case *syntax.Await:
		return nil, NotSupportedf("await (async code) is not supported")
	}
	return nil, NotSupportedf("the expression %T is not supported", e)
}

func exprWord(e syntax.Expr) string {
	switch e.(type) {
	case *syntax.Attribute:
		return "attribute"
	case *syntax.Subscript:
		return "subscript"
	case *syntax.Tuple:
		return "tuple"
	}
	return "expression"
}

// concreteWhat names what needed a concrete value in a *NeedConcrete
// that does not say.
func (th *Thread) concreteWhat(err error, what string) error {
	if nc, ok := err.(*NeedConcrete); ok && nc.What == "" {
		nc.What = what
	}
	return err
}

func (fr *frame) consts() map[*syntax.Constant]Value {
	if fr.res != nil {
		return fr.res.consts
	}
	return nil
}

func (th *Thread) evalElems(fr *frame, elts []syntax.Expr) ([]Value, error) {
	out := make([]Value, 0, len(elts))
	for _, x := range elts {
		if st, ok := x.(*syntax.Starred); ok {
			v, err := th.eval(fr, st.Value)
			if err != nil {
				return nil, err
			}
			more, err := collect(th, v)
			if err != nil {
				if e, ok := err.(*Error); ok && e.Kind == "TypeError" && strings.HasSuffix(e.Msg, "is not iterable") {
					return nil, th.stamp(fr, Errorf("TypeError", "Value after * must be an iterable, not %s", v.Type()), st)
				}
				return nil, th.stamp(fr, err, st)
			}
			out = append(out, more...)
			continue
		}
		v, err := th.eval(fr, x)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (th *Thread) evalSubscriptKey(fr *frame, e syntax.Expr) (Value, error) {
	switch k := e.(type) {
	case *syntax.Slice:
		return th.evalSlice(fr, k)
	case *syntax.Tuple:
		elems := make(Tuple, 0, len(k.Elts))
		for _, x := range k.Elts {
			if st, ok := x.(*syntax.Starred); ok {
				v, err := th.eval(fr, st.Value)
				if err != nil {
					return nil, err
				}
				more, err := collect(th, v)
				if err != nil {
					return nil, err
				}
				elems = append(elems, more...)
				continue
			}
			v, err := th.evalSubscriptKey(fr, x)
			if err != nil {
				return nil, err
			}
			elems = append(elems, v)
		}
		return elems, nil
	}
	return th.eval(fr, e)
}

func (th *Thread) evalSlice(fr *frame, s *syntax.Slice) (Value, error) {
	part := func(e syntax.Expr) (Value, error) {
		if e == nil {
			return None, nil
		}
		return th.eval(fr, e)
	}
	a, err := part(s.Lower)
	if err != nil {
		return nil, err
	}
	b, err := part(s.Upper)
	if err != nil {
		return nil, err
	}
	c, err := part(s.Step)
	if err != nil {
		return nil, err
	}
	return &Slice{a, b, c}, nil
}

func (th *Thread) evalFormatted(fr *frame, p *syntax.FormattedValue) (string, error) {
	v, err := th.eval(fr, p.Value)
	if err != nil {
		return "", err
	}
	switch p.Conversion {
	case 's':
		s, err := toStr(th, v)
		if err != nil {
			return "", err
		}
		v = String(s)
	case 'r', 'a':
		s, err := toRepr(th, v)
		if err != nil {
			return "", err
		}
		v = String(s)
	}
	spec := ""
	if p.FormatSpec != nil {
		sv, err := th.eval(fr, p.FormatSpec)
		if err != nil {
			return "", err
		}
		spec, _ = AsString(sv)
	}
	return formatValue(th, v, spec)
}

func (th *Thread) evalCompare(fr *frame, n *syntax.Compare) (Value, error) {
	x, err := th.eval(fr, n.Left)
	if err != nil {
		return nil, err
	}
	var result Value
	for i, op := range n.Ops {
		y, err := th.eval(fr, n.Comparators[i])
		if err != nil {
			return nil, err
		}
		var r Value
		switch op {
		case syntax.Is:
			r = Bool(identical(x, y))
		case syntax.IsNot:
			r = Bool(!identical(x, y))
		case syntax.In, syntax.NotIn:
			ok, err := Contains(th, y, x)
			if err != nil {
				return nil, th.stamp(fr, err, n.Comparators[i])
			}
			r = Bool(ok == (op == syntax.In))
		default:
			prev := fr.dispatchAt(n)
			r, err = Compare(th, op, x, y)
			fr.call = prev
			if err != nil {
				return nil, th.stamp(fr, err, n.Comparators[i])
			}
		}
		if i == len(n.Ops)-1 {
			return r, nil
		}
		t, err := truth(th, r)
		if err != nil {
			return nil, th.concreteWhat(err, "a chained comparison")
		}
		if !t {
			return r, nil
		}
		result = r
		x = y
	}
	return result, nil
}

// ---------------------------------------------------------------------------
// Calls.

func (th *Thread) evalCall(fr *frame, n *syntax.Call) (Value, error) {
	// obj.method(...): look the method up without making a bound method
	// where the callee is a builtin type's method or a class's function.
	var fn, self Value
	var method methodFn
	if at, ok := n.Func.(*syntax.Attribute); ok {
		recv, err := th.eval(fr, at.Value)
		if err != nil {
			return nil, err
		}
		switch r := recv.(type) {
		case *List, *Dict, String, Tuple, *Set:
			if m, ok := typeOf(recv).dict.m[at.Attr]; ok {
				if nm, ok := m.(*nativeMethod); ok {
					method, self = nm.fn, recv
				}
			}
		case *Instance:
			if _, inDict := r.dict.m[at.Attr]; !inDict {
				if cv, _ := r.class.lookup(at.Attr); cv != nil {
					if f, ok := cv.(*Function); ok {
						fn, self = f, recv
					}
				}
			}
		}
		if method == nil && fn == nil {
			fn, err = getAttrOrError(th, recv, at.Attr)
			if err != nil {
				return nil, th.stamp(fr, err, at)
			}
		}
	} else {
		var err error
		fn, err = th.eval(fr, n.Func)
		if err != nil {
			return nil, err
		}
	}
	args, kwargs, err := th.evalArgs(fr, n, self != nil && method == nil)
	if err != nil {
		return nil, err
	}
	if self != nil && method == nil {
		args[0] = self
	}
	prev := fr.call
	fr.call = n
	var v Value
	if method != nil {
		if err = th.tick(); err == nil {
			v, err = method(th, self, args, kwargs)
		}
	} else {
		v, err = Call(th, fn, args, kwargs)
	}
	fr.call = prev
	if err != nil {
		return nil, th.stamp(fr, err, n)
	}
	return v, nil
}

// evalArgs evaluates a call's arguments (*x and **m expanded); with
// reserveSelf, args[0] is left for the receiver.
func (th *Thread) evalArgs(fr *frame, n *syntax.Call, reserveSelf bool) ([]Value, []Kwarg, error) {
	size := len(n.Args)
	if reserveSelf {
		size++
	}
	args := make([]Value, 0, size)
	if reserveSelf {
		args = append(args, nil)
	}
	for _, a := range n.Args {
		if st, ok := a.(*syntax.Starred); ok {
			v, err := th.eval(fr, st.Value)
			if err != nil {
				return nil, nil, err
			}
			more, err := collect(th, v)
			if err != nil {
				if e, ok := err.(*Error); ok && e.Kind == "TypeError" && strings.HasSuffix(e.Msg, "is not iterable") {
					err = Errorf("TypeError", "%s argument after * must be an iterable, not %s", th.calleeName(fr, n), v.Type())
				}
				return nil, nil, th.stamp(fr, err, st)
			}
			args = append(args, more...)
			continue
		}
		v, err := th.eval(fr, a)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kwargs []Kwarg
	if len(n.Keywords) > 0 {
		kwargs = make([]Kwarg, 0, len(n.Keywords))
	}
	for _, k := range n.Keywords {
		v, err := th.eval(fr, k.Value)
		if err != nil {
			return nil, nil, err
		}
		if k.Arg != "" {
			kwargs = append(kwargs, Kwarg{Name: k.Arg, Value: v})
			continue
		}
		// **mapping
		var items [][2]Value
		switch m := v.(type) {
		case *Dict:
			items = m.Items()
		default:
			keys := getAttrQuiet(th, v, "keys")
			if keys == nil {
				return nil, nil, th.stamp(fr, Errorf("TypeError", "%s argument after ** must be a mapping, not %s", th.calleeName(fr, n), v.Type()), k)
			}
			ks, err := Call(th, keys, nil, nil)
			if err != nil {
				return nil, nil, err
			}
			err = Iterate(th, ks, func(key Value) error {
				val, err := getIndex(th, v, key)
				if err != nil {
					return err
				}
				items = append(items, [2]Value{key, val})
				return nil
			})
			if err != nil {
				return nil, nil, th.stamp(fr, err, k)
			}
		}
		for _, kv := range items {
			name, ok := AsString(kv[0])
			if !ok {
				return nil, nil, th.stamp(fr, Errorf("TypeError", "keywords must be strings"), k)
			}
			for _, prev := range kwargs {
				if prev.Name == name {
					return nil, nil, th.stamp(fr, Errorf("TypeError", "%s got multiple values for keyword argument '%s'", th.calleeName(fr, n), name), k)
				}
			}
			kwargs = append(kwargs, Kwarg{Name: name, Value: kv[1]})
		}
	}
	return args, kwargs, nil
}

// calleeName is how CPython names a callee in argument errors ("f()").
func (th *Thread) calleeName(fr *frame, n *syntax.Call) string {
	switch f := n.Func.(type) {
	case *syntax.Name:
		if v, err := th.loadName(fr, f.ID); err == nil {
			switch x := v.(type) {
			case *Function:
				return x.qualname + "()"
			case *Class:
				return x.name + "()"
			}
		}
		return f.ID + "()"
	case *syntax.Attribute:
		return f.Attr + "()"
	}
	return "function"
}

// ---------------------------------------------------------------------------
// Names.

// bindingOf returns the binding of name in the frame's scope.
func (fr *frame) bindingOf(name string) binding {
	b, ok := fr.code.bind[name]
	if !ok {
		b = binding{kind: bindGlobal}
		if fr.code.kind == scopeClass {
			b.kind = bindClass
		}
	}
	return b
}

// nodeBinding returns the resolved binding of a Name node.
func (fr *frame) nodeBinding(n *syntax.Name) binding {
	if fr.code.kind == scopeModule {
		return binding{kind: bindGlobal}
	}
	if fr.res != nil {
		if b, ok := fr.res.names[n]; ok {
			return b
		}
	}
	return fr.bindingOf(n.ID)
}

func (th *Thread) loadNameNode(fr *frame, n *syntax.Name) (Value, error) {
	return th.loadBinding(fr, n.ID, fr.nodeBinding(n))
}

func (th *Thread) loadName(fr *frame, name string) (Value, error) {
	return th.loadBinding(fr, name, fr.bindingOf(name))
}

func (th *Thread) loadBinding(fr *frame, name string, b binding) (Value, error) {
	if b.kind == bindGlobal {
		if v, ok := fr.module.members.m[name]; ok {
			return v, nil
		}
		if v, ok := builtins[name]; ok {
			return v, nil
		}
		return nil, Errorf("NameError", "name '%s' is not defined", name)
	}
	switch b.kind {
	case bindLocal:
		if v := fr.locals[b.idx]; v != nil {
			return v, nil
		}
		return nil, Errorf("UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", name)
	case bindCell:
		if v := fr.cells[b.idx].v; v != nil {
			return v, nil
		}
		if b.idx < fr.code.nOwnCells && fr.code.kind != scopeClass {
			return nil, Errorf("UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", name)
		}
		return nil, Errorf("NameError", "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
	case bindClass, bindClassCell:
		if v, ok := fr.classNS.m[name]; ok {
			return v, nil
		}
		if b.kind == bindClassCell {
			if v := fr.cells[b.idx].v; v != nil {
				return v, nil
			}
			return nil, Errorf("NameError", "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
		}
	}
	if v, ok := fr.module.members.m[name]; ok {
		return v, nil
	}
	if v, ok := builtins[name]; ok {
		return v, nil
	}
	return nil, Errorf("NameError", "name '%s' is not defined", name)
}

// storeName assigns a variable (recording the undo while speculating).
func (th *Thread) storeName(fr *frame, name string, v Value) error {
	return th.storeBinding(fr, name, fr.bindingOf(name), v)
}

func (th *Thread) storeNameNode(fr *frame, n *syntax.Name, v Value) error {
	return th.storeBinding(fr, n.ID, fr.nodeBinding(n), v)
}

func (th *Thread) storeBinding(fr *frame, name string, b binding, v Value) error {
	if nm, ok := v.(Nameable); ok {
		nm.BindName(name)
	}
	switch b.kind {
	case bindLocal:
		if th.spec > 0 {
			i, old := b.idx, fr.locals[b.idx]
			locals := fr.locals
			th.recordRebind(fr.serial, name, old, func() Value { return locals[i] }, func() { locals[i] = old })
		}
		fr.locals[b.idx] = v
		return nil
	case bindCell:
		cl := fr.cells[b.idx]
		if th.spec > 0 {
			old := cl.v
			th.recordRebind(fr.serial, name, old, func() Value { return cl.v }, func() { cl.v = old })
		}
		cl.v = v
		return nil
	case bindClass, bindClassCell:
		ns := fr.classNS
		if th.spec > 0 {
			old, had := ns.m[name]
			th.recordRebind(fr.serial, name, old, func() Value { return ns.m[name] }, func() {
				if had {
					ns.m[name] = old
				} else {
					ns.del(name)
				}
			})
		}
		ns.set(name, v)
		return nil
	}
	m := fr.module
	if th.spec > 0 {
		old, had := m.members.m[name]
		th.recordRebind(m.serial, name, old, func() Value { return m.members.m[name] }, func() {
			if had {
				m.members.m[name] = old
			} else {
				m.members.del(name)
			}
		})
	}
	m.members.set(name, v)
	return nil
}

// deleteName is del name.
func (th *Thread) deleteName(fr *frame, name string) error {
	b, ok := fr.code.bind[name]
	if !ok {
		b = binding{kind: bindGlobal}
		if fr.code.kind == scopeClass {
			b.kind = bindClass
		}
	}
	switch b.kind {
	case bindLocal:
		if fr.locals[b.idx] == nil {
			return Errorf("UnboundLocalError", "cannot access local variable '%s' where it is not associated with a value", name)
		}
		if th.spec > 0 {
			i, old := b.idx, fr.locals[b.idx]
			locals := fr.locals
			th.recordRebind(fr.serial, name, old, func() Value { return locals[i] }, func() { locals[i] = old })
		}
		fr.locals[b.idx] = nil
		return nil
	case bindCell:
		cl := fr.cells[b.idx]
		if cl.v == nil {
			return Errorf("NameError", "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
		}
		if th.spec > 0 {
			old := cl.v
			th.recordRebind(fr.serial, name, old, func() Value { return cl.v }, func() { cl.v = old })
		}
		cl.v = nil
		return nil
	case bindClass, bindClassCell:
		if !delNS(th, fr.serial, fr.classNS, name) {
			return Errorf("NameError", "name '%s' is not defined", name)
		}
		return nil
	}
	if !delNS(th, fr.module.serial, fr.module.members, name) {
		return Errorf("NameError", "name '%s' is not defined", name)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Comprehensions.

// comprehension runs the clauses of a comprehension in its own scope,
// calling body for each innermost iteration.
func (th *Thread) comprehension(fr *frame, node syntax.Node, gens []*syntax.Comprehension, body func(cf *frame) error) error {
	for _, g := range gens {
		if g.IsAsync {
			return NotSupportedf("async comprehensions are not supported")
		}
	}
	// The first iterable is evaluated in the enclosing scope.
	first, err := th.eval(fr, gens[0].Iter)
	if err != nil {
		return err
	}
	return th.comprehensionFrom(fr, node, gens, first, body)
}

// genExp makes a generator expression's lazy iterator.
func (th *Thread) genExp(fr *frame, n *syntax.GeneratorExp) (Value, error) {
	for _, g := range n.Generators {
		if g.IsAsync {
			return nil, NotSupportedf("async comprehensions are not supported")
		}
	}
	first, err := th.eval(fr, n.Generators[0].Iter)
	if err != nil {
		return nil, err
	}
	// CPython calls iter() on the first iterable at once.
	if _, err := getIterator(th, first); err != nil {
		return nil, err
	}
	return newGenExp(func(co *coroutine) error {
		return th.comprehensionFrom(fr, n, n.Generators, first, func(cf *frame) error {
			v, err := th.eval(cf, n.Elt)
			if err != nil {
				return err
			}
			co.yield(v)
			return nil
		})
	}), nil
}

func (th *Thread) comprehensionFrom(fr *frame, node syntax.Node, gens []*syntax.Comprehension, first Value, body func(cf *frame) error) error {
	sc := fr.res.scopes[node]
	if sc == nil {
		return NotSupportedf("comprehension without a resolved scope")
	}
	var err error
	cf := &frame{name: sc.name, fn: fr.fn, module: fr.module, code: sc, file: fr.file, res: fr.res, serial: nextSerial(),
		locals: make([]Value, sc.nSlots), stmt: fr.stmt, call: fr.call}
	if n := len(sc.cellNames); n > 0 {
		cf.cells = make([]*cell, n)
		for i := 0; i < sc.nOwnCells; i++ {
			cf.cells[i] = &cell{}
		}
		for i, name := range sc.freeNames {
			cl, err := fr.cellFor(name)
			if err != nil {
				return err
			}
			cf.cells[sc.cellIdx[name]] = cl
			_ = i
		}
	}
	var loop func(i int, iterable Value) error
	loop = func(i int, iterable Value) error {
		g := gens[i]
		return Iterate(th, iterable, func(v Value) error {
			if err := th.assign(cf, g.Target, v); err != nil {
				return err
			}
			for _, cond := range g.Ifs {
				c, err := th.eval(cf, cond)
				if err != nil {
					return err
				}
				t, err := truth(th, c)
				if err != nil {
					return th.stamp(cf, th.concreteWhat(err, "the condition of a comprehension"), cond)
				}
				if !t {
					return nil
				}
			}
			if i+1 < len(gens) {
				next, err := th.eval(cf, gens[i+1].Iter)
				if err != nil {
					return err
				}
				return loop(i+1, next)
			}
			return body(cf)
		})
	}
	err = loop(0, first)
	if err != nil {
		return th.stamp(fr, err, gens[0].Iter)
	}
	return nil
}

// cellFor returns the cell holding the free variable name for an inner
// scope (a closure being made).
func (fr *frame) cellFor(name string) (*cell, error) {
	if i, ok := fr.code.cellIdx[name]; ok && i < len(fr.cells) {
		return fr.cells[i], nil
	}
	return nil, NotSupportedf("internal error: no cell for free variable '%s' in %s", name, fr.name)
}

// makeFunction evaluates a def's or lambda's defaults and annotations and
// makes the function.
func (th *Thread) makeFunction(fr *frame, node syntax.Node, name string, args *syntax.Arguments, returns syntax.Expr) (*Function, error) {
	code := fr.res.codes[node]
	if code == nil {
		return nil, NotSupportedf("function %s without resolved code", name)
	}
	f := &Function{name: name, code: code, module: fr.module, serial: nextSerial()}
	f.qualname = name
	if fr.code.kind == scopeClass {
		f.qualname = fr.classQual + "." + name
	} else if fr.fn != nil {
		f.qualname = fr.fn.qualname + ".<locals>." + name
	}
	if args != nil {
		for _, d := range args.Defaults {
			v, err := th.eval(fr, d)
			if err != nil {
				return nil, err
			}
			f.defaults = append(f.defaults, v)
		}
		if len(args.KwDefaults) > 0 {
			f.kwdefaults = make([]Value, len(args.KwOnlyArgs))
			for i, d := range args.KwDefaults {
				if d == nil || i >= len(f.kwdefaults) {
					continue
				}
				v, err := th.eval(fr, d)
				if err != nil {
					return nil, err
				}
				f.kwdefaults[i] = v
			}
		}
		if !fr.module.futureAnnotations {
			var ann *Dict
			add := func(a *syntax.Arg) error {
				if a == nil || a.Annotation == nil {
					return nil
				}
				v, err := th.eval(fr, a.Annotation)
				if err != nil {
					return err
				}
				if ann == nil {
					ann = NewDict()
				}
				ann.setStr(nil, a.Arg, v)
				return nil
			}
			for _, list := range [][]*syntax.Arg{args.PosOnlyArgs, args.Args, {args.VarArg}, args.KwOnlyArgs, {args.KwArg}} {
				for _, a := range list {
					if err := add(a); err != nil {
						return nil, err
					}
				}
			}
			if returns != nil {
				v, err := th.eval(fr, returns)
				if err != nil {
					return nil, err
				}
				if ann == nil {
					ann = NewDict()
				}
				ann.setStr(nil, "return", v)
			}
			f.annotations = ann
		}
	}
	sc := code.scope
	if len(sc.freeNames) > 0 {
		f.closure = make([]*cell, len(sc.freeNames))
		for i, name := range sc.freeNames {
			cl, err := fr.cellFor(name)
			if err != nil {
				return nil, err
			}
			f.closure[i] = cl
		}
	}
	return f, nil
}
