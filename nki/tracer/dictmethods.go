// dictmethods.go: the methods of dict, set and frozenset, dict views
// (keys(), values(), items(): live, iterable, sized, set-like for keys
// and items) and the set operators.
package tracer

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// dictUpdate is d.update(args..., **kwargs).
func dictUpdate(th *Thread, d *Dict, args []Value, kwargs []Kwarg) error {
	if len(args) > 1 {
		return Errorf("TypeError", "update expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		switch src := args[0].(type) {
		case *Dict:
			for _, kv := range src.Items() {
				if err := d.Set(th, kv[0], kv[1]); err != nil {
					return err
				}
			}
		default:
			if keys := getAttrQuiet(th, src, "keys"); keys != nil {
				ks, err := Call(th, keys, nil, nil)
				if err != nil {
					return err
				}
				err = Iterate(th, ks, func(k Value) error {
					v, err := getIndex(th, src, k)
					if err != nil {
						return err
					}
					return d.Set(th, k, v)
				})
				if err != nil {
					return err
				}
				break
			}
			i := 0
			err := Iterate(th, src, func(item Value) error {
				kv, err := collect(th, item)
				if err != nil {
					return Errorf("TypeError", "cannot convert dictionary update sequence element #%d to a sequence", i)
				}
				if len(kv) != 2 {
					return Errorf("ValueError", "dictionary update sequence element #%d has length %d; 2 is required", i, len(kv))
				}
				i++
				return d.Set(th, kv[0], kv[1])
			})
			if err != nil {
				return err
			}
		}
	}
	for _, kw := range kwargs {
		if err := d.Set(th, String(kw.Name), kw.Value); err != nil {
			return err
		}
	}
	return nil
}

// dictGetItem is d[k], with defaultdict's factory and __missing__.
func dictGetItem(th *Thread, d *Dict, k Value) (Value, error) {
	v, ok, err := d.Get(th, k)
	if err != nil {
		return nil, err
	}
	if ok {
		return v, nil
	}
	if d.kind == "Counter" {
		return intValue(0), nil
	}
	if d.kind == "defaultdict" && d.factory != nil {
		v, err := Call(th, d.factory, nil, nil)
		if err != nil {
			return nil, err
		}
		if err := d.Set(th, k, v); err != nil {
			return nil, err
		}
		return v, nil
	}
	return nil, keyError(th, k)
}

var dictMethods = map[string]methodFn{
	"__init__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return None, dictUpdate(th, recv.(*Dict), args, kwargs)
	},
	"get": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("get", args, kwargs, 1, 2); err != nil {
			return nil, err
		}
		v, ok, err := recv.(*Dict).Get(th, args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return None, nil
	},
	"keys": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return &dictView{d: recv.(*Dict), kind: "keys"}, argCount("keys", args, kwargs, 0, 0)
	},
	"values": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return &dictView{d: recv.(*Dict), kind: "values"}, argCount("values", args, kwargs, 0, 0)
	},
	"items": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return &dictView{d: recv.(*Dict), kind: "items"}, argCount("items", args, kwargs, 0, 0)
	},
	"pop": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("pop", args, kwargs, 1, 2); err != nil {
			return nil, err
		}
		v, ok, err := recv.(*Dict).Delete(th, args[0])
		if err != nil {
			return nil, err
		}
		if ok {
			return v, nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return nil, keyError(th, args[0])
	},
	"popitem": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("popitem", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		for i := len(d.entries) - 1; i >= 0; i-- {
			if !d.entries[i].deleted {
				e := d.entries[i]
				d.deleteAt(th, i)
				return Tuple{e.key, e.value}, nil
			}
		}
		return nil, keyError(th, String("popitem(): dictionary is empty"))
	},
	"setdefault": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("setdefault", args, kwargs, 1, 2); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		v, ok, err := d.Get(th, args[0])
		if err != nil || ok {
			return v, err
		}
		var def Value = None
		if len(args) == 2 {
			def = args[1]
		}
		return def, d.Set(th, args[0], def)
	},
	"update": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return None, dictUpdate(th, recv.(*Dict), args, kwargs)
	},
	"copy": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return recv.(*Dict).copyDict(), argCount("copy", args, kwargs, 0, 0)
	},
	"clear": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		recv.(*Dict).clear(th)
		return None, argCount("clear", args, kwargs, 0, 0)
	},
	"__getitem__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("__getitem__", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return dictGetItem(th, recv.(*Dict), args[0])
	},
	"__contains__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("__contains__", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		_, ok, err := recv.(*Dict).Get(th, args[0])
		return Bool(ok), err
	},
	"__setitem__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 2 {
			return nil, Errorf("TypeError", "expected 2 arguments, got %d", len(args))
		}
		return None, recv.(*Dict).Set(th, args[0], args[1])
	},
	"__len__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return intValue(int64(recv.(*Dict).Len())), nil
	},
}

var orderedDictMethods = map[string]methodFn{
	"move_to_end": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		var key Value
		last := true
		if err := UnpackArgs("move_to_end", args, kwargs, "key", &key, "last?", &last); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		v, ok, err := d.Delete(th, key)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, keyError(th, key)
		}
		if last {
			return None, d.Set(th, key, v)
		}
		items := d.Items()
		d.clear(th)
		if err := d.Set(th, key, v); err != nil {
			return nil, err
		}
		for _, kv := range items {
			if err := d.Set(th, kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
		return None, nil
	},
}

// dictFromkeys is dict.fromkeys(iterable, value=None).
func dictFromkeys(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("fromkeys", args, kwargs, 1, 2); err != nil {
		return nil, err
	}
	var v Value = None
	if len(args) == 2 {
		v = args[1]
	}
	d := NewDict()
	err := Iterate(th, args[0], func(k Value) error { return d.Set(th, k, v) })
	return d, err
}

// ---------------------------------------------------------------------------
// Views.

// dictView is d.keys(), d.values() or d.items().
type dictView struct {
	d    *Dict
	kind string
}

func (v *dictView) Type() string { return "dict_" + v.kind }
func (v *dictView) String() string {
	var b strings.Builder
	b.WriteString("dict_" + v.kind + "([")
	first := true
	for _, e := range v.d.entries {
		if e.deleted {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		switch v.kind {
		case "keys":
			b.WriteString(Repr(e.key))
		case "values":
			b.WriteString(Repr(e.value))
		default:
			b.WriteString("(" + Repr(e.key) + ", " + Repr(e.value) + ")")
		}
	}
	b.WriteString("])")
	return b.String()
}
func (v *dictView) Truth() (bool, error) { return v.d.live > 0, nil }
func (v *dictView) Len(*Thread) (int, error) {
	return v.d.live, nil
}

func viewContains(th *Thread, v *dictView, x Value) (bool, error) {
	switch v.kind {
	case "keys":
		_, ok, err := v.d.Get(th, x)
		return ok, err
	case "items":
		t, ok := x.(Tuple)
		if !ok || len(t) != 2 {
			return false, nil
		}
		val, found, err := v.d.Get(th, t[0])
		if err != nil || !found {
			return false, err
		}
		return Equal(th, val, t[1])
	}
	for _, e := range v.d.entries {
		if e.deleted {
			continue
		}
		eq, err := Equal(th, e.value, x)
		if err != nil || eq {
			return eq, err
		}
	}
	return false, nil
}

func viewSet(th *Thread, v *dictView) (*Set, error) {
	s := NewSet()
	err := Iterate(th, v, func(x Value) error { return s.Add(th, x) })
	return s, err
}

func viewBinary(th *Thread, op syntax.Operator, v *dictView, y Value) (Value, error) {
	if v.kind == "values" {
		return nil, nil
	}
	switch op {
	case syntax.BitAnd, syntax.BitOr, syntax.Sub, syntax.BitXor:
	default:
		return nil, nil
	}
	a, err := viewSet(th, v)
	if err != nil {
		return nil, err
	}
	b := NewSet()
	if err := Iterate(th, y, func(x Value) error { return b.Add(th, x) }); err != nil {
		return nil, err
	}
	return setBinary(th, op, a, b)
}

// ---------------------------------------------------------------------------
// Sets.

func setSubset(th *Thread, a, b *Set) (bool, error) {
	for _, e := range a.d.entries {
		if e.deleted {
			continue
		}
		ok, err := b.Has(th, e.key)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func setBinary(th *Thread, op syntax.Operator, a, b *Set) (Value, error) {
	out := &Set{d: Dict{serial: nextSerial()}, frozen: a.frozen}
	// addFrom adds the elements of from that are in other (in) or not in
	// it (!in); all of them when other is nil.
	addFrom := func(from, other *Set, in bool) error {
		for _, x := range from.Elems() {
			if other != nil {
				has, err := other.Has(th, x)
				if err != nil {
					return err
				}
				if has != in {
					continue
				}
			}
			if err := out.Add(th, x); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch op {
	case syntax.BitOr:
		if err = addFrom(a, nil, true); err == nil {
			err = addFrom(b, nil, true)
		}
	case syntax.BitAnd:
		err = addFrom(a, b, true)
	case syntax.Sub:
		err = addFrom(a, b, false)
	case syntax.BitXor:
		if err = addFrom(a, b, false); err == nil {
			err = addFrom(b, a, false)
		}
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

func setInplace(th *Thread, op syntax.Operator, a *Set, y Value) (Value, error) {
	b, ok := y.(*Set)
	if !ok || a.frozen {
		return nil, nil
	}
	r, err := setBinary(th, op, a, b)
	if err != nil || r == nil {
		return r, err
	}
	setReplace(th, a, r.(*Set))
	return a, nil
}

// setReplace makes a hold the elements of b.
func setReplace(th *Thread, a, b *Set) {
	if th != nil && th.spec > 0 {
		old := a.d
		th.recordMutation(a.d.serial, func() { serial := a.d.serial; a.d = old; a.d.serial = serial })
	}
	serial := a.d.serial
	a.d = b.d
	a.d.serial = serial
}

func otherSet(th *Thread, v Value) (*Set, error) {
	if s, ok := v.(*Set); ok {
		return s, nil
	}
	s := NewSet()
	err := Iterate(th, v, func(x Value) error { return s.Add(th, x) })
	return s, err
}

func setOpMethod(op syntax.Operator, inplace bool) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(kwargs) > 0 {
			return nil, Errorf("TypeError", "set methods take no keyword arguments")
		}
		acc := recv.(*Set)
		for _, a := range args {
			b, err := otherSet(th, a)
			if err != nil {
				return nil, err
			}
			r, err := setBinary(th, op, acc, b)
			if err != nil {
				return nil, err
			}
			acc = r.(*Set)
		}
		if inplace {
			setReplace(th, recv.(*Set), acc)
			return None, nil
		}
		if acc == recv.(*Set) {
			return acc.copySet(acc.frozen), nil
		}
		return acc, nil
	}
}

func setPredicate(which string) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(which, args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		a := recv.(*Set)
		b, err := otherSet(th, args[0])
		if err != nil {
			return nil, err
		}
		switch which {
		case "issubset":
			r, err := setSubset(th, a, b)
			return Bool(r), err
		case "issuperset":
			r, err := setSubset(th, b, a)
			return Bool(r), err
		}
		r, err := setBinary(th, syntax.BitAnd, a, b)
		if err != nil {
			return nil, err
		}
		return Bool(r.(*Set).Len() == 0), nil
	}
}

var setMethods = map[string]methodFn{
	"__init__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("set", args, kwargs, 0, 1); err != nil {
			return nil, err
		}
		s := recv.(*Set)
		s.d.clear(th)
		if len(args) == 1 {
			return None, Iterate(th, args[0], func(v Value) error { return s.Add(th, v) })
		}
		return None, nil
	},
	"add": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("set.add", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		return None, recv.(*Set).Add(th, args[0])
	},
	"discard": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("set.discard", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		_, _, err := recv.(*Set).d.Delete(th, args[0])
		return None, err
	},
	"remove": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("set.remove", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		_, ok, err := recv.(*Set).d.Delete(th, args[0])
		if err == nil && !ok {
			return nil, keyError(th, args[0])
		}
		return None, err
	},
	"pop": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("set.pop", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		s := recv.(*Set)
		for i, e := range s.d.entries {
			if !e.deleted {
				s.d.deleteAt(th, i)
				return e.key, nil
			}
		}
		return nil, keyError(th, String("pop from an empty set"))
	},
	"clear": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		recv.(*Set).d.clear(th)
		return None, argCount("set.clear", args, kwargs, 0, 0)
	},
	"update":                      setOpMethod(syntax.BitOr, true),
	"intersection_update":         setOpMethod(syntax.BitAnd, true),
	"difference_update":           setOpMethod(syntax.Sub, true),
	"symmetric_difference_update": setOpMethod(syntax.BitXor, true),
}

// setReadMethods are the methods set and frozenset share.
var setReadMethods = map[string]methodFn{
	"union":                setOpMethod(syntax.BitOr, false),
	"intersection":         setOpMethod(syntax.BitAnd, false),
	"difference":           setOpMethod(syntax.Sub, false),
	"symmetric_difference": setOpMethod(syntax.BitXor, false),
	"issubset":             setPredicate("issubset"),
	"issuperset":           setPredicate("issuperset"),
	"isdisjoint":           setPredicate("isdisjoint"),
	"copy": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s := recv.(*Set)
		return s.copySet(s.frozen), argCount("copy", args, kwargs, 0, 0)
	},
}

// allSetMethods returns set's methods (mutating and reading).
func allSetMethods() map[string]methodFn {
	m := map[string]methodFn{}
	for k, v := range setMethods {
		m[k] = v
	}
	for k, v := range setReadMethods {
		m[k] = v
	}
	return m
}

func frozensetMethods() map[string]methodFn {
	m := map[string]methodFn{}
	for k, v := range setReadMethods {
		m[k] = v
	}
	return m
}
