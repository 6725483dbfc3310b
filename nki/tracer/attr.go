// attr.go: attribute access, subscripts and len() of every kind of
// value, and the methods and data attributes of int, float, range and
// slice.
package tracer

import (
	"math"
	"math/big"
)

// GetAttr returns v.name (AttributeError when absent).
func GetAttr(th *Thread, v Value, name string) (Value, error) { return getAttrOrError(th, v, name) }

// getAttr returns v.name, or (nil, nil) when v has no such attribute.
func getAttr(th *Thread, v Value, name string) (Value, error) {
	switch x := v.(type) {
	case *Instance:
		return instanceAttr(th, x, name)
	case *Class:
		return classAttr(th, x, name)
	case *Module:
		if m, ok := x.members.m[name]; ok {
			return m, nil
		}
		if name == "__dict__" {
			d := NewDict()
			for _, k := range x.members.keys {
				d.setStr(nil, k, x.members.m[k])
			}
			return d, nil
		}
		return nil, nil
	case *Function:
		return x.attr(name), nil
	case HasAttrs:
		r, err := x.Attr(th, name)
		if r != nil || err != nil {
			return r, err
		}
		if name == "__class__" {
			return typeOf(v), nil
		}
		return nil, nil
	}
	cls := typeOf(v)
	if m, owner := cls.lookup(name); m != nil {
		return bindAttr(th, v, owner, m)
	}
	switch x := v.(type) {
	case Int:
		switch name {
		case "real", "numerator":
			return x, nil
		case "imag":
			return intValue(0), nil
		case "denominator":
			return intValue(1), nil
		}
	case Bool:
		switch name {
		case "real", "numerator":
			return boolToInt(x), nil
		case "imag":
			return intValue(0), nil
		case "denominator":
			return intValue(1), nil
		}
		if m, owner := intClass.lookup(name); m != nil {
			return bindAttr(th, boolToInt(x), owner, m)
		}
	case Float:
		switch name {
		case "real":
			return x, nil
		case "imag":
			return Float(0), nil
		}
	case *Range:
		switch name {
		case "start":
			return intValue(x.start), nil
		case "stop":
			return intValue(x.stop), nil
		case "step":
			return intValue(x.step), nil
		}
	case *Slice:
		switch name {
		case "start":
			return x.Start, nil
		case "stop":
			return x.Stop, nil
		case "step":
			return x.Step, nil
		}
	case *Builtin:
		switch name {
		case "__name__", "__qualname__":
			return String(x.name), nil
		case "__self__":
			return orNone(x.recv), nil
		case "__doc__":
			return None, nil
		}
	case *BoundMethod:
		switch name {
		case "__self__":
			return x.Self, nil
		case "__func__":
			return x.Func, nil
		}
		return getAttr(th, x.Func, name)
	case *StaticMethod:
		if name == "__func__" {
			return x.Func, nil
		}
		return getAttr(th, x.Func, name)
	case *ClassMethod:
		if name == "__func__" {
			return x.Func, nil
		}
	case *Dict:
		if name == "default_factory" && x.kind == "defaultdict" {
			return orNone(x.factory), nil
		}
	}
	if name == "__class__" {
		return cls, nil
	}
	if name == "__doc__" {
		return None, nil
	}
	return nil, nil
}

// getAttrQuiet returns v.name, or nil when absent or on error.
func getAttrQuiet(th *Thread, v Value, name string) Value {
	r, err := getAttr(th, v, name)
	if err != nil {
		return nil
	}
	return r
}

func getAttrOrError(th *Thread, v Value, name string) (Value, error) {
	r, err := getAttr(th, v, name)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, attrError(v, name)
	}
	return r, nil
}

func attrError(v Value, name string) error {
	switch x := v.(type) {
	case *Module:
		if x.missing != nil {
			return x.missing(name)
		}
		return Errorf("AttributeError", "module '%s' has no attribute '%s'", x.name, name)
	case *Class:
		return Errorf("AttributeError", "type object '%s' has no attribute '%s'", x.name, name)
	}
	return Errorf("AttributeError", "'%s' object has no attribute '%s'", v.Type(), name)
}

// SetAttr performs v.name = x.
func SetAttr(th *Thread, v Value, name string, x Value) error { return setAttr(th, v, name, x) }

func setAttr(th *Thread, v Value, name string, x Value) error {
	switch o := v.(type) {
	case *Instance:
		return setInstanceAttr(th, o, name, x)
	case *Class:
		return o.SetAttr(th, name, x)
	case *Module:
		setNS(th, o.serial, o.members, name, x)
		return nil
	case *Function:
		if o.dict == nil {
			o.dict = newStrDict(2)
		}
		switch name {
		case "__name__":
			if s, ok := AsString(x); ok {
				o.name = s
			}
		case "__qualname__":
			if s, ok := AsString(x); ok {
				o.qualname = s
			}
		}
		setNS(th, o.serial, o.dict, name, x)
		return nil
	case HasSetAttr:
		return o.SetAttr(th, name, x)
	}
	if _, err := getAttr(th, v, name); err == nil {
		if r, _ := getAttr(th, v, name); r != nil {
			return Errorf("AttributeError", "'%s' object attribute '%s' is read-only", v.Type(), name)
		}
	}
	return Errorf("AttributeError", "'%s' object has no attribute '%s'", v.Type(), name)
}

// delAttr performs del v.name.
func delAttr(th *Thread, v Value, name string) error {
	switch o := v.(type) {
	case *Instance:
		if da := o.class.userLookup("__delattr__"); da != nil {
			_, err := callMethod(th, o, da, []Value{String(name)}, nil)
			return err
		}
		if cv, _ := o.class.lookup(name); cv != nil {
			if d, ok := cv.(*Instance); ok {
				if del := d.class.userLookup("__delete__"); del != nil {
					_, err := callMethod(th, d, del, []Value{o}, nil)
					return err
				}
			}
			if p, ok := cv.(*Property); ok {
				if p.Del == nil {
					return Errorf("AttributeError", "property '%s' of '%s' object has no deleter", name, o.class.name)
				}
				_, err := Call(th, p.Del, []Value{o}, nil)
				return err
			}
		}
		if dc := dcOf(o.class); o.frozen && dc != nil && dc.frozen {
			o := newException(th, frozenInstanceErrClass, Tuple{String("cannot delete field '" + name + "'")})
			return errorOf(th, o)
		}
		if !delNS(th, o.serial, o.dict, name) {
			return Errorf("AttributeError", "'%s' object has no attribute '%s'", o.class.name, name)
		}
		return nil
	case *Class:
		if o.immutable || o.goDefined {
			return Errorf("TypeError", "cannot delete '%s' attribute of immutable type '%s'", name, o.name)
		}
		if !delNS(th, o.serial, o.dict, name) {
			return Errorf("AttributeError", "type object '%s' has no attribute '%s'", o.name, name)
		}
		return nil
	case *Module:
		if !delNS(th, o.serial, o.members, name) {
			return Errorf("AttributeError", "module '%s' has no attribute '%s'", o.name, name)
		}
		return nil
	case *Function:
		if o.dict == nil || !delNS(th, o.serial, o.dict, name) {
			return Errorf("AttributeError", "'function' object has no attribute '%s'", name)
		}
		return nil
	}
	return Errorf("AttributeError", "'%s' object has no attribute '%s'", v.Type(), name)
}

// ---------------------------------------------------------------------------
// Subscripts.

// Index returns v[key].
func Index(th *Thread, v, key Value) (Value, error) { return getIndex(th, v, key) }

func getIndex(th *Thread, v, key Value) (Value, error) {
	switch x := v.(type) {
	case *List:
		if s, ok := key.(*Slice); ok {
			elems, err := sliceElems(th, x.elems, s)
			if err != nil {
				return nil, err
			}
			return NewList(elems), nil
		}
		if k, ok := key.(Int); ok && k.big == nil {
			i := k.small
			if i < 0 {
				i += int64(len(x.elems))
			}
			if i >= 0 && i < int64(len(x.elems)) {
				return x.elems[i], nil
			}
		}
		i, err := seqIndex(th, key, len(x.elems), "list")
		if err != nil {
			return nil, err
		}
		return x.elems[i], nil
	case Tuple:
		if s, ok := key.(*Slice); ok {
			elems, err := sliceElems(th, x, s)
			if err != nil {
				return nil, err
			}
			return Tuple(elems), nil
		}
		i, err := seqIndex(th, key, len(x), "tuple")
		if err != nil {
			return nil, err
		}
		return x[i], nil
	case String:
		return strIndex(th, string(x), key)
	case *Dict:
		return dictGetItem(th, x, key)
	case *Range:
		return rangeIndex(th, x, key)
	case *Instance:
		if f := x.class.userLookup("__getitem__"); f != nil {
			return callMethod(th, x, f, []Value{key}, nil)
		}
		if d, ok := x.base.(*Dict); ok {
			if f := x.class.userLookup("__missing__"); f != nil {
				v, found, err := d.Get(th, key)
				if err != nil || found {
					return v, err
				}
				return callMethod(th, x, f, []Value{key}, nil)
			}
		}
		if x.base != nil {
			return getIndex(th, x.base, key)
		}
		if f := x.class.userLookup("__class_getitem__"); f != nil {
			return callMethod(th, x, f, []Value{key}, nil)
		}
	case *Class:
		if x.enum != nil {
			name, ok := AsString(key)
			if ok {
				if m, found := x.enum.byName[name]; found {
					return m, nil
				}
			}
			return nil, keyError(th, key)
		}
		if f, ok := x.lookup("__class_getitem__"); ok != nil {
			if cm, isCM := f.(*ClassMethod); isCM {
				return Call(th, cm.Func, []Value{x, key}, nil)
			}
			return Call(th, f, []Value{key}, nil)
		}
		if x.subscriptable || !x.immutable || x.goDefined {
			// Generic aliases (list[int], MyGeneric[T]) stand for the
			// class: annotations only.
			return x, nil
		}
		return nil, Errorf("TypeError", "type '%s' is not subscriptable", x.name)
	case Indexable:
		return x.Index(th, key)
	}
	return nil, Errorf("TypeError", "'%s' object is not subscriptable", v.Type())
}

// SetIndex performs v[key] = x.
func SetIndex(th *Thread, v, key, x Value) error { return setIndex(th, v, key, x) }

func setIndex(th *Thread, v, key, x Value) error {
	switch c := v.(type) {
	case *List:
		if s, ok := key.(*Slice); ok {
			return listSetSlice(th, c, s, x)
		}
		i, err := seqIndex(th, key, len(c.elems), "list")
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind == "IndexError" {
				e.Msg = "list assignment index out of range"
			}
			return err
		}
		listSetAt(th, c, i, x)
		return nil
	case *Dict:
		return c.Set(th, key, x)
	case *Instance:
		if f := c.class.userLookup("__setitem__"); f != nil {
			_, err := callMethod(th, c, f, []Value{key, x}, nil)
			return err
		}
		if c.base != nil {
			return setIndex(th, c.base, key, x)
		}
	case HasSetIndex:
		return c.SetIndex(th, key, x)
	}
	return Errorf("TypeError", "'%s' object does not support item assignment", v.Type())
}

// delIndex performs del v[key].
func delIndex(th *Thread, v, key Value) error {
	switch c := v.(type) {
	case *List:
		if s, ok := key.(*Slice); ok {
			return listDelSlice(th, c, s)
		}
		i, err := seqIndex(th, key, len(c.elems), "list")
		if err != nil {
			if e, ok := err.(*Error); ok && e.Kind == "IndexError" {
				e.Msg = "list assignment index out of range"
			}
			return err
		}
		out := make([]Value, 0, len(c.elems)-1)
		out = append(append(out, c.elems[:i]...), c.elems[i+1:]...)
		listSetElems(th, c, out)
		return nil
	case *Dict:
		_, ok, err := c.Delete(th, key)
		if err == nil && !ok {
			return keyError(th, key)
		}
		return err
	case *Instance:
		if f := c.class.userLookup("__delitem__"); f != nil {
			_, err := callMethod(th, c, f, []Value{key}, nil)
			return err
		}
		if c.base != nil {
			return delIndex(th, c.base, key)
		}
	}
	return Errorf("TypeError", "'%s' object doesn't support item deletion", v.Type())
}

// Len returns len(v).
func Len(th *Thread, v Value) (int, error) {
	switch x := v.(type) {
	case String:
		return strLen(string(x)), nil
	case *List:
		return len(x.elems), nil
	case Tuple:
		return len(x), nil
	case *Dict:
		return x.live, nil
	case *Set:
		return x.Len(), nil
	case *Range:
		n := x.Len()
		if n > math.MaxInt32*(1<<31) {
			return 0, Errorf("OverflowError", "Python int too large to convert to C ssize_t")
		}
		return int(n), nil
	case *Instance:
		if f := x.class.userLookup("__len__"); f != nil {
			r, err := callMethod(th, x, f, nil, nil)
			if err != nil {
				return 0, err
			}
			n, ok := r.(Int)
			if !ok {
				return 0, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", r.Type())
			}
			if n.Sign() < 0 {
				return 0, Errorf("ValueError", "__len__() should return >= 0")
			}
			i, _ := n.Int64()
			return int(i), nil
		}
		if x.base != nil {
			return Len(th, x.base)
		}
	case *Class:
		if x.enum != nil {
			return len(x.enum.names), nil
		}
	case HasLen:
		return x.Len(th)
	}
	return 0, Errorf("TypeError", "object of type '%s' has no len()", v.Type())
}

// ---------------------------------------------------------------------------
// int, float, range and slice methods.

var intMethods = map[string]methodFn{
	"bit_length": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("bit_length", args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		i := recvInt(recv)
		return intValue(int64(new(big.Int).Abs(i.bigView()).BitLen())), nil
	},
	"bit_count": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		i := new(big.Int).Abs(recvInt(recv).bigView())
		n := 0
		for _, w := range i.Bits() {
			for ; w != 0; w &= w - 1 {
				n++
			}
		}
		return intValue(int64(n)), nil
	},
	"conjugate": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return recvInt(recv), nil
	},
	"as_integer_ratio": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return Tuple{recvInt(recv), intValue(1)}, nil
	},
	"to_bytes": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("int.to_bytes: bytes are not supported")
	},
	"__index__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return recvInt(recv), nil
	},
}

func recvInt(v Value) Int {
	switch x := v.(type) {
	case Int:
		return x
	case Bool:
		return boolToInt(x)
	case *Instance:
		return recvInt(x.base)
	}
	return Int{}
}

var floatMethods = map[string]methodFn{
	"is_integer": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		f := float64(recv.(Float))
		return Bool(!math.IsInf(f, 0) && f == math.Trunc(f)), nil
	},
	"as_integer_ratio": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		f := float64(recv.(Float))
		if math.IsInf(f, 0) {
			return nil, Errorf("OverflowError", "cannot convert Infinity to integer ratio")
		}
		if math.IsNaN(f) {
			return nil, Errorf("ValueError", "cannot convert NaN to integer ratio")
		}
		r := new(big.Rat)
		r.SetFloat64(f)
		return Tuple{makeBigOwned(new(big.Int).Set(r.Num())), makeBigOwned(new(big.Int).Set(r.Denom()))}, nil
	},
	"conjugate": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return recv, nil
	},
	"hex": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("float.hex is not supported")
	},
	"__round__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return builtinRound(th, append([]Value{recv}, args...), kwargs)
	},
}

var rangeMethods = map[string]methodFn{
	"index": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("index", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		r := recv.(*Range)
		ok, err := rangeContains(th, r, args[0])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, Errorf("ValueError", "%s is not in range", Repr(args[0]))
		}
		n, _ := AsInt64(th, args[0])
		return intValue((n - r.start) / r.step), nil
	},
	"count": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("count", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		ok, err := rangeContains(th, recv.(*Range), args[0])
		if ok {
			return intValue(1), err
		}
		return intValue(0), err
	},
}

var sliceMethods = map[string]methodFn{
	"indices": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("indices", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		n, err := AsInt64(th, args[0])
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, Errorf("ValueError", "length should not be negative")
		}
		a, b, c, err := sliceIndices(th, recv.(*Slice), int(n))
		if err != nil {
			return nil, err
		}
		return Tuple{intValue(int64(a)), intValue(int64(b)), intValue(int64(c))}, nil
	},
}

// attrNames lists dir(v).
func attrNames(v Value) []string {
	switch x := v.(type) {
	case *Instance:
		seen := map[string]bool{}
		var out []string
		for _, k := range x.dict.keys {
			seen[k] = true
			out = append(out, k)
		}
		for _, k := range x.class.AttrNames() {
			if !seen[k] {
				out = append(out, k)
			}
		}
		sortStrings(out)
		return out
	case *Class:
		return x.AttrNames()
	case *Module:
		out := append([]string(nil), x.members.keys...)
		sortStrings(out)
		return out
	case HasAttrs:
		return x.AttrNames()
	}
	out := append(typeOf(v).AttrNames(), "__class__", "__doc__")
	sortStrings(out)
	uniq := out[:0]
	for i, k := range out {
		if i == 0 || k != out[i-1] {
			uniq = append(uniq, k)
		}
	}
	return uniq
}
