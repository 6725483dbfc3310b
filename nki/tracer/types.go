// types.go: the builtin types as classes (object, type, int, bool, float,
// str, tuple, list, dict, set, frozenset, range, slice, NoneType, ...),
// their constructors (int("12", 16), float("inf"), dict(a=1), ...), and
// str()/repr() that run a user's __str__/__repr__.
package tracer

import (
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

var (
	objectClass         = &Class{}
	typeClass           = &Class{}
	intClass            = &Class{}
	boolClass           = &Class{}
	floatClass          = &Class{}
	strClass            = &Class{}
	tupleClass          = &Class{}
	listClass           = &Class{}
	dictClass           = &Class{}
	setClass            = &Class{}
	frozensetClass      = &Class{}
	noneTypeClass       = &Class{}
	rangeClass          = &Class{}
	sliceClass          = &Class{}
	functionClass       = &Class{}
	builtinFuncClass    = &Class{}
	methodClass         = &Class{}
	moduleClass         = &Class{}
	propertyClass       = &Class{}
	staticmethodClass   = &Class{}
	classmethodClass    = &Class{}
	superClass          = &Class{}
	defaultdictClass    = &Class{}
	orderedDictClass    = &Class{}
	ellipsisClass       = &Class{}
	notImplementedClass = &Class{}
	complexClass        = &Class{}
	bytesClass          = &Class{}
)

type newFunc = func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error)

// initBuiltinClass fills in a builtin type's class.
func initBuiltinClass(c *Class, name string, base *Class, newFn newFunc, methods map[string]methodFn) {
	*c = Class{name: name, qualname: name, module: "builtins", dict: newStrDict(len(methods)),
		serial: nextSerial(), goDefined: true, immutable: true, newFn: newFn}
	if base != nil {
		c.bases = []*Class{base}
		c.mro = append([]*Class{c}, base.mro...)
	} else {
		c.mro = []*Class{c}
	}
	names := make([]string, 0, len(methods))
	for k := range methods {
		names = append(names, k)
	}
	sortStrings(names)
	for _, k := range names {
		c.dict.set(k, &nativeMethod{name: k, fn: methods[k], cls: c})
	}
}

func init() {
	initBuiltinClass(objectClass, "object", nil, newObject, objectMethods)
	initBuiltinClass(typeClass, "type", objectClass, newType, nil)
	initBuiltinClass(intClass, "int", objectClass, newInt, intMethods)
	initBuiltinClass(boolClass, "bool", intClass, newBool, nil)
	initBuiltinClass(floatClass, "float", objectClass, newFloat, floatMethods)
	initBuiltinClass(strClass, "str", objectClass, newStr, strMethods)
	initBuiltinClass(tupleClass, "tuple", objectClass, newTuple, tupleMethods)
	initBuiltinClass(listClass, "list", objectClass, newListValue, listMethods)
	initBuiltinClass(dictClass, "dict", objectClass, newDictValue, dictMethods)
	initBuiltinClass(setClass, "set", objectClass, newSetValue, allSetMethods())
	initBuiltinClass(frozensetClass, "frozenset", objectClass, newFrozenset, frozensetMethods())
	initBuiltinClass(noneTypeClass, "NoneType", objectClass, func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) > 0 || len(kwargs) > 0 {
			return nil, Errorf("TypeError", "NoneType takes no arguments")
		}
		return None, nil
	}, nil)
	initBuiltinClass(rangeClass, "range", objectClass, newRangeValue, rangeMethods)
	initBuiltinClass(sliceClass, "slice", objectClass, newSliceValue, sliceMethods)
	initBuiltinClass(functionClass, "function", objectClass, nil, nil)
	initBuiltinClass(builtinFuncClass, "builtin_function_or_method", objectClass, nil, nil)
	initBuiltinClass(methodClass, "method", objectClass, nil, nil)
	initBuiltinClass(moduleClass, "module", objectClass, nil, nil)
	initBuiltinClass(propertyClass, "property", objectClass, newProperty, nil)
	initBuiltinClass(staticmethodClass, "staticmethod", objectClass, newStaticmethod, nil)
	initBuiltinClass(classmethodClass, "classmethod", objectClass, newClassmethod, nil)
	initBuiltinClass(superClass, "super", objectClass, newSuper, nil)
	initBuiltinClass(defaultdictClass, "defaultdict", dictClass, newDefaultdict, nil)
	defaultdictClass.module = "collections"
	initBuiltinClass(orderedDictClass, "OrderedDict", dictClass, newOrderedDict, orderedDictMethods)
	orderedDictClass.module = "collections"
	initBuiltinClass(ellipsisClass, "ellipsis", objectClass, nil, nil)
	initBuiltinClass(notImplementedClass, "NotImplementedType", objectClass, nil, nil)
	initBuiltinClass(complexClass, "complex", objectClass, func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("complex numbers are not supported")
	}, nil)
	initBuiltinClass(bytesClass, "bytes", objectClass, func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("bytes are not supported")
	}, nil)
	initExceptions()
	initBuiltins()
}

func sortStrings(s []string) { sort.Strings(s) }

var objectMethods = map[string]methodFn{
	"__init__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) { return None, nil },
	"__eq__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "expected 1 argument, got %d", len(args))
		}
		if identical(recv, args[0]) {
			return True, nil
		}
		return NotImplemented, nil
	},
	"__ne__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "expected 1 argument, got %d", len(args))
		}
		eq, err := Equal(th, recv, args[0])
		return Bool(!eq), err
	},
	"__repr__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if o, ok := recv.(*Instance); ok {
			return String(o.defaultRepr()), nil
		}
		return String(Repr(recv)), nil
	},
	"__str__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s, err := toRepr(th, recv)
		return String(s), err
	},
	"__hash__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if o, ok := recv.(*Instance); ok {
			return MakeInt(int64(o.serial)), nil
		}
		h, err := hashValue(th, recv)
		return MakeInt(int64(h)), err
	},
	"__setattr__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 2 {
			return nil, Errorf("TypeError", "expected 2 arguments, got %d", len(args))
		}
		name, ok := AsString(args[0])
		if !ok {
			return nil, Errorf("TypeError", "attribute name must be string, not '%s'", args[0].Type())
		}
		if o, ok := recv.(*Instance); ok {
			setNS(th, o.serial, o.dict, name, args[1])
			return None, nil
		}
		return None, setAttr(th, recv, name, args[1])
	},
	"__delattr__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "expected 1 argument, got %d", len(args))
		}
		name, ok := AsString(args[0])
		if !ok {
			return nil, Errorf("TypeError", "attribute name must be string, not '%s'", args[0].Type())
		}
		if o, ok := recv.(*Instance); ok {
			if !delNS(th, o.serial, o.dict, name) {
				return nil, Errorf("AttributeError", "'%s' object has no attribute '%s'", o.class.name, name)
			}
			return None, nil
		}
		return None, delAttr(th, recv, name)
	},
	"__getattribute__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "expected 1 argument, got %d", len(args))
		}
		name, _ := AsString(args[0])
		return getAttrOrError(th, recv, name)
	},
	"__format__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		spec := ""
		if len(args) == 1 {
			spec, _ = AsString(args[0])
		}
		s, err := toStr(th, recv)
		if err != nil {
			return nil, err
		}
		if spec != "" {
			return nil, Errorf("TypeError", "unsupported format string passed to %s.__format__", recv.Type())
		}
		return String(s), nil
	},
	"__new__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		cls, ok := recv.(*Class)
		if !ok {
			return nil, Errorf("TypeError", "object.__new__(X): X is not a type object (%s)", recv.Type())
		}
		return newPlainInstance(th, cls, args, kwargs)
	},
}

// newPlainInstance makes an instance of a Python class (object.__new__),
// with the base value of a builtin type it derives from.
func newPlainInstance(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	o := &Instance{class: cls, dict: newStrDict(4), serial: nextSerial(), th: th}
	if cls.isExc {
		o.args = append(Tuple(nil), args...)
		return o, nil
	}
	if _, nf := cls.nativeNew(); nf != nil {
		b, err := nf(th, cls, args, kwargs)
		if err != nil {
			return nil, err
		}
		if bo, ok := b.(*Instance); ok && bo.base != nil {
			b = bo.base
		}
		o.base = b
	}
	return o, nil
}

func newObject(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) > 0 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "object() takes no arguments")
	}
	return &Instance{class: objectClass, dict: newStrDict(0), serial: nextSerial(), th: th}, nil
}

func newType(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) == 1 && len(kwargs) == 0 {
		return typeOf(args[0]), nil
	}
	if len(args) != 3 {
		return nil, Errorf("TypeError", "type() takes 1 or 3 arguments")
	}
	name, ok := AsString(args[0])
	if !ok {
		return nil, Errorf("TypeError", "type.__new__() argument 1 must be str, not %s", args[0].Type())
	}
	var bases []*Class
	bt, ok := args[1].(Tuple)
	if !ok {
		return nil, Errorf("TypeError", "type.__new__() argument 2 must be tuple, not %s", args[1].Type())
	}
	for _, b := range bt {
		bc, ok := b.(*Class)
		if !ok {
			return nil, Errorf("TypeError", "bases must be types")
		}
		bases = append(bases, bc)
	}
	d, ok := args[2].(*Dict)
	if !ok {
		return nil, Errorf("TypeError", "type.__new__() argument 3 must be dict, not %s", args[2].Type())
	}
	ns := newStrDict(d.Len())
	for _, kv := range d.Items() {
		k, ok := AsString(kv[0])
		if !ok {
			return nil, Errorf("TypeError", "type.__new__(): attribute names must be strings")
		}
		ns.set(k, kv[1])
	}
	mod := "__main__"
	if m := th.Module(); m != nil {
		mod = m.name
	}
	return makeClass(th, name, name, mod, bases, ns)
}

func newInt(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	var x, base Value
	if err := UnpackArgs("int", args, kwargs, "x?", &x, "base?", &base); err != nil {
		return nil, err
	}
	if x == nil {
		if base != nil {
			return nil, Errorf("TypeError", "int() missing string argument")
		}
		return intValue(0), nil
	}
	if base != nil {
		b, err := AsInt64(th, base)
		if err != nil {
			return nil, err
		}
		s, ok := AsString(x)
		if !ok {
			return nil, Errorf("TypeError", "int() can't convert non-string with explicit base")
		}
		return parseInt(s, b)
	}
	return toInt(th, x)
}

// toInt is int(x) with one argument.
func toInt(th *Thread, x Value) (Value, error) {
	switch v := x.(type) {
	case Int:
		return v, nil
	case Bool:
		return boolToInt(v), nil
	case Float:
		return floatToInt(float64(v))
	case String:
		return parseInt(string(v), 10)
	case *Instance:
		for _, name := range []string{"__int__", "__index__", "__trunc__"} {
			if f := v.class.userLookup(name); f != nil {
				r, err := callMethod(th, v, f, nil, nil)
				if err != nil {
					return nil, err
				}
				if _, ok := r.(Int); !ok {
					return nil, Errorf("TypeError", "%s returned non-int (type %s)", name, r.Type())
				}
				return r, nil
			}
		}
		if v.base != nil {
			return toInt(th, v.base)
		}
	case HasIndex:
		return v.PyIndex(th)
	case HasFloat:
		f, err := v.PyFloat(th)
		if err != nil {
			return nil, err
		}
		return floatToInt(f)
	}
	return nil, Errorf("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '%s'", x.Type())
}

// parseInt is int(s, base).
func parseInt(s string, base int64) (Value, error) {
	if base != 0 && (base < 2 || base > 36) {
		return nil, Errorf("ValueError", "int() base must be >= 2 and <= 36, or 0")
	}
	bad := func() (Value, error) {
		return nil, Errorf("ValueError", "invalid literal for int() with base %d: %s", base, quoteString(s))
	}
	t := asciiDigits(strings.TrimFunc(s, unicode.IsSpace))
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	if t != "" && (t[0] == '+' || t[0] == '-') {
		return bad()
	}
	b := base
	if len(t) >= 2 && t[0] == '0' {
		switch t[1] {
		case 'x', 'X':
			if b == 0 || b == 16 {
				b, t = 16, t[2:]
			}
		case 'o', 'O':
			if b == 0 || b == 8 {
				b, t = 8, t[2:]
			}
		case 'b', 'B':
			if b == 0 || b == 2 {
				b, t = 2, t[2:]
			}
		}
		if len(t) > 0 && t[0] == '_' && b != base {
			t = t[1:]
		}
	}
	if b == 0 {
		b = 10
		if len(t) > 1 && t[0] == '0' && strings.Trim(t, "0_") != "" {
			return bad()
		}
	}
	if t == "" || t[0] == '_' || t[len(t)-1] == '_' || strings.Contains(t, "__") {
		return bad()
	}
	t = strings.ReplaceAll(t, "_", "")
	z, ok := new(big.Int).SetString(t, int(b))
	if !ok {
		return bad()
	}
	if neg {
		z.Neg(z)
	}
	return makeBigOwned(z), nil
}

func newBool(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "bool() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "bool expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 0 {
		return False, nil
	}
	t, err := truth(th, args[0])
	return Bool(t), err
}

func newFloat(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "float() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "float expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 0 {
		return Float(0), nil
	}
	switch v := args[0].(type) {
	case Float:
		return v, nil
	case String:
		return parseFloat(string(v))
	case *Instance:
		if s, ok := v.base.(String); ok {
			return parseFloat(string(s))
		}
	}
	f, err := AsFloat64(th, args[0])
	if err != nil {
		if _, ok := AsNeedConcrete(err); ok {
			return nil, err
		}
		if e, ok := err.(*Error); ok && e.Kind == "OverflowError" {
			return nil, err
		}
		return nil, Errorf("TypeError", "float() argument must be a string or a real number, not '%s'", args[0].Type())
	}
	return Float(f), nil
}

// asciiDigits replaces the Unicode decimal digits (category Nd) of s by
// ASCII ones, as int() and float() accept them.
func asciiDigits(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r < 0x80 || !unicode.Is(unicode.Nd, r) {
			return r
		}
		for _, rg := range unicode.Nd.R16 {
			if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
				return '0' + (r-rune(rg.Lo))%10
			}
		}
		for _, rg := range unicode.Nd.R32 {
			if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
				return '0' + (r-rune(rg.Lo))%10
			}
		}
		return r
	}, s)
}

func parseFloat(s string) (Value, error) {
	t := asciiDigits(strings.TrimFunc(s, unicode.IsSpace))
	low := strings.ToLower(t)
	switch strings.TrimLeft(low, "+-") {
	case "inf", "infinity":
		if strings.HasPrefix(low, "-") {
			return Float(math.Inf(-1)), nil
		}
		return Float(math.Inf(1)), nil
	case "nan":
		return Float(math.NaN()), nil
	}
	if t == "" || strings.Contains(t, "__") || strings.HasPrefix(t, "_") || strings.HasSuffix(t, "_") ||
		strings.ContainsAny(t, "xXpP") {
		return nil, Errorf("ValueError", "could not convert string to float: %s", quoteString(s))
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(t, "_", ""), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return Float(f), nil
		}
		return nil, Errorf("ValueError", "could not convert string to float: %s", quoteString(s))
	}
	return Float(f), nil
}

func newStr(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	var x Value
	var encoding, errors string
	if err := UnpackArgs("str", args, kwargs, "object?", &x, "encoding?", &encoding, "errors?", &errors); err != nil {
		return nil, err
	}
	if x == nil {
		return String(""), nil
	}
	if encoding != "" {
		return nil, NotSupportedf("str() of bytes with an encoding is not supported")
	}
	s, err := toStr(th, x)
	return String(s), err
}

func newTuple(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "tuple() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "tuple expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 0 {
		return Tuple{}, nil
	}
	if t, ok := args[0].(Tuple); ok {
		return t, nil
	}
	elems, err := collect(th, args[0])
	if err != nil {
		return nil, err
	}
	return Tuple(elems), nil
}

func newListValue(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "list() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "list expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 0 {
		return NewList(nil), nil
	}
	elems, err := collect(th, args[0])
	if err != nil {
		return nil, err
	}
	return NewList(elems), nil
}

func newDictValue(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) > 1 {
		return nil, Errorf("TypeError", "dict expected at most 1 argument, got %d", len(args))
	}
	d := NewDict()
	if err := dictUpdate(th, d, args, kwargs); err != nil {
		return nil, err
	}
	return d, nil
}

func newSetValue(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "set() takes no keyword arguments")
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "set expected at most 1 argument, got %d", len(args))
	}
	s := NewSet()
	if len(args) == 1 {
		if err := Iterate(th, args[0], func(v Value) error { return s.Add(th, v) }); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func newFrozenset(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	v, err := newSetValue(th, cls, args, kwargs)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Msg = strings.Replace(e.Msg, "set", "frozenset", 1)
		}
		return nil, err
	}
	v.(*Set).frozen = true
	return v, nil
}

func newRangeValue(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "range() takes no keyword arguments")
	}
	var n [3]int64
	for i, a := range args {
		if i >= 3 {
			break
		}
		v, err := AsInt64(th, a)
		if err != nil {
			if _, need := AsNeedConcrete(err); need {
				return nil, err
			}
			if e, ok := err.(*Error); ok && e.Kind == "OverflowError" {
				return nil, NotSupportedf("range() bounds beyond 64 bits are not supported")
			}
			return nil, err
		}
		n[i] = v
	}
	switch len(args) {
	case 0:
		return nil, Errorf("TypeError", "range expected at least 1 argument, got 0")
	case 1:
		return &Range{0, n[0], 1}, nil
	case 2:
		return &Range{n[0], n[1], 1}, nil
	case 3:
		if n[2] == 0 {
			return nil, Errorf("ValueError", "range() arg 3 must not be zero")
		}
		return &Range{n[0], n[1], n[2]}, nil
	}
	return nil, Errorf("TypeError", "range expected at most 3 arguments, got %d", len(args))
}

func newSliceValue(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 {
		return nil, Errorf("TypeError", "slice() takes no keyword arguments")
	}
	switch len(args) {
	case 1:
		return &Slice{None, args[0], None}, nil
	case 2:
		return &Slice{args[0], args[1], None}, nil
	case 3:
		return &Slice{args[0], args[1], args[2]}, nil
	case 0:
		return nil, Errorf("TypeError", "slice expected at least 1 argument, got 0")
	}
	return nil, Errorf("TypeError", "slice expected at most 3 arguments, got %d", len(args))
}

func newProperty(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	var fget, fset, fdel, doc Value
	if err := UnpackArgs("property", args, kwargs, "fget?", &fget, "fset?", &fset, "fdel?", &fdel, "doc?", &doc); err != nil {
		return nil, err
	}
	p := &Property{doc: doc}
	if fget != nil && fget != Value(None) {
		p.Get = fget
	}
	if fset != nil && fset != Value(None) {
		p.Set = fset
	}
	if fdel != nil && fdel != Value(None) {
		p.Del = fdel
	}
	return p, nil
}

func newStaticmethod(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) != 1 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "staticmethod expected 1 argument, got %d", len(args))
	}
	return &StaticMethod{Func: args[0]}, nil
}

func newClassmethod(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) != 1 || len(kwargs) > 0 {
		return nil, Errorf("TypeError", "classmethod expected 1 argument, got %d", len(args))
	}
	return &ClassMethod{Func: args[0]}, nil
}

func newDefaultdict(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	d := NewDict()
	d.kind = "defaultdict"
	if len(args) > 0 {
		if args[0] != Value(None) {
			if _, ok := args[0].(Callable); !ok {
				if _, isCls := args[0].(*Class); !isCls {
					return nil, Errorf("TypeError", "first argument must be callable or None")
				}
			}
			d.factory = args[0]
		}
		args = args[1:]
	}
	if err := dictUpdate(th, d, args, kwargs); err != nil {
		return nil, err
	}
	return d, nil
}

func newOrderedDict(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
	d := NewDict()
	d.kind = "OrderedDict"
	if err := dictUpdate(th, d, args, kwargs); err != nil {
		return nil, err
	}
	return d, nil
}

// ---------------------------------------------------------------------------
// str() and repr().

// Str returns str(v), running a user's __str__.
func Str(th *Thread, v Value) (string, error) { return toStr(th, v) }

func toStr(th *Thread, v Value) (string, error) {
	switch x := v.(type) {
	case String:
		return string(x), nil
	case Int:
		if err := checkIntDigits(x); err != nil {
			return "", err
		}
	case *Instance:
		if f := x.class.userLookup("__str__"); f != nil {
			return callStrMethod(th, x, f, "__str__")
		}
		if x.class.isExc {
			return excStr(x), nil
		}
		if x.class.userLookup("__repr__") != nil {
			return toRepr(th, x)
		}
		if x.base != nil {
			return toStr(th, x.base)
		}
		return x.defaultRepr(), nil
	}
	return v.String(), nil
}

// ReprOf returns repr(v), running a user's __repr__ and returning its
// errors.
func ReprOf(th *Thread, v Value) (string, error) { return toRepr(th, v) }

func toRepr(th *Thread, v Value) (string, error) {
	if err := checkIntDigits(v); err != nil {
		return "", err
	}
	if x, ok := v.(*Instance); ok {
		if f := x.class.userLookup("__repr__"); f != nil {
			return callStrMethod(th, x, f, "__repr__")
		}
		if x.class.isExc {
			return excRepr(x), nil
		}
		if x.base != nil {
			return toRepr(th, x.base)
		}
		return x.defaultRepr(), nil
	}
	return Repr(v), nil
}

func callStrMethod(th *Thread, x *Instance, f Value, name string) (string, error) {
	if th.depthGuard() {
		return "", Errorf("RecursionError", "maximum recursion depth exceeded while getting the %s of an object", strings.Trim(name, "_"))
	}
	r, err := callMethod(th, x, f, nil, nil)
	if err != nil {
		return "", err
	}
	s, ok := AsString(r)
	if !ok {
		return "", Errorf("TypeError", "%s returned non-string (type %s)", name, r.Type())
	}
	return s, nil
}

// truth is bool(v) with errors.
func truth(th *Thread, v Value) (bool, error) {
	switch x := v.(type) {
	case Bool:
		return bool(x), nil
	case *Instance:
		return truthOfInstance(th, x)
	}
	return v.Truth()
}
