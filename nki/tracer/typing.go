// typing.go: the typing, abc and collections modules.
//
// typing: every name is usable in annotations and subscripts and costs
// nothing at run time, as in CPython: List, Dict, Tuple, Set, FrozenSet,
// Type, DefaultDict are the builtin classes themselves (isinstance works);
// Optional, Union, Any, Callable, Iterable, ... are special forms that
// subscript to themselves; Union[...] and `int | None` make unions that
// isinstance accepts; TYPE_CHECKING is False; cast, overload, final,
// no_type_check, runtime_checkable are identities; TypeVar, NewType,
// ParamSpec make placeholders; Generic and Protocol are subclassable;
// NamedTuple classes are namedtuples.
//
// abc: ABC (subclassable; instantiating a class that still has
// abstract methods is CPython's TypeError), ABCMeta, abstractmethod.
//
// collections: namedtuple, defaultdict, OrderedDict, Counter, deque;
// collections.abc's Iterable, Sequence, Mapping, ... answer isinstance
// structurally.
package tracer

import (
	"sort"
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// unionType is Union[X, Y] or X | Y.
type unionType struct{ args []Value }

func (u *unionType) Type() string { return "UnionType" }
func (u *unionType) String() string {
	parts := make([]string, len(u.args))
	for i, a := range u.args {
		if c, ok := a.(*Class); ok {
			parts[i] = c.qualname
			if c == noneTypeClass {
				parts[i] = "None"
			}
		} else {
			parts[i] = Repr(a)
		}
	}
	return strings.Join(parts, " | ")
}
func (u *unionType) Truth() (bool, error) { return true, nil }
func (u *unionType) Index(th *Thread, key Value) (Value, error) {
	return u, nil
}
func (u *unionType) Binary(th *Thread, op syntax.Operator, other Value, right bool) (Value, error) {
	return unionOf(op, u, other, right), nil
}

// typingForm is a typing special form or alias (Optional, Any, T, ...).
type typingForm struct {
	name string
	args Value
}

func (t *typingForm) Type() string         { return "_SpecialForm" }
func (t *typingForm) String() string       { return "typing." + t.name }
func (t *typingForm) Truth() (bool, error) { return true, nil }
func (t *typingForm) Index(th *Thread, key Value) (Value, error) {
	switch t.name {
	case "Union":
		var args []Value
		if tup, ok := key.(Tuple); ok {
			args = tup
		} else {
			args = []Value{key}
		}
		for i, a := range args {
			if a == Value(None) {
				args[i] = noneTypeClass
			}
		}
		return &unionType{args: args}, nil
	case "Optional":
		if key == Value(None) {
			key = noneTypeClass
		}
		return &unionType{args: []Value{key, noneTypeClass}}, nil
	}
	return &typingForm{name: t.name + "[...]", args: key}, nil
}
func (t *typingForm) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return nil, Errorf("TypeError", "Cannot instantiate %s", t.String())
}
func (t *typingForm) Name() string { return t.name }
func (t *typingForm) Binary(th *Thread, op syntax.Operator, other Value, right bool) (Value, error) {
	return unionOf(op, t, other, right), nil
}

// unionOf is x | y of types (nil when op is not |).
func unionOf(op syntax.Operator, x, y Value, right bool) Value {
	if op != syntax.BitOr {
		return nil
	}
	if right {
		x, y = y, x
	}
	var args []Value
	for _, v := range []Value{x, y} {
		switch a := v.(type) {
		case *unionType:
			args = append(args, a.args...)
		case NoneType:
			args = append(args, noneTypeClass)
		default:
			args = append(args, v)
		}
	}
	return &unionType{args: args}
}

// isTypeLike reports whether v can be an operand of a type union.
func isTypeLike(v Value) bool {
	switch v.(type) {
	case *Class, *unionType, *typingForm, NoneType:
		return true
	}
	return false
}

var (
	genericClass        = &Class{}
	protocolClass       = &Class{}
	namedTupleBaseClass = &Class{}
	abcClass            = &Class{}
	abcMetaClass        = &Class{}
	typedDictClass      = &Class{}
)

func goClass(c *Class, name, module string, bases ...*Class) {
	if len(bases) == 0 {
		bases = []*Class{objectClass}
	}
	*c = Class{name: name, qualname: name, module: module, dict: newStrDict(4), serial: nextSerial(), goDefined: true, bases: bases}
	mro, _ := c3(c)
	c.mro = mro
}

func init() {
	goClass(genericClass, "Generic", "typing")
	genericClass.subscriptable = true
	goClass(protocolClass, "Protocol", "typing", genericClass)
	protocolClass.subscriptable = true
	goClass(namedTupleBaseClass, "NamedTuple", "typing", tupleClass)
	goClass(abcClass, "ABC", "abc")
	goClass(abcMetaClass, "ABCMeta", "abc", typeClass)
	goClass(typedDictClass, "TypedDict", "typing", dictClass)
}

func identityBuiltin(name string) *Builtin {
	return NewBuiltin(name, func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) == 0 {
			// Used as @decorator(...) with arguments: return an identity.
			return NewBuiltin(name, func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
				if len(args) != 1 {
					return nil, Errorf("TypeError", "%s() takes one argument", name)
				}
				return args[0], nil
			}), nil
		}
		return args[0], nil
	})
}

func makeTypingModule(th *Thread) *Module {
	forms := []string{"Any", "Optional", "Union", "Callable", "Iterable", "Iterator", "Sequence", "Mapping",
		"MutableMapping", "MutableSequence", "Generator", "Literal", "Final", "ClassVar", "Annotated", "NoReturn",
		"Never", "Self", "TypeAlias", "Concatenate", "Unpack", "TypeGuard", "Hashable", "Sized", "Collection",
		"Container", "AbstractSet", "MutableSet", "Awaitable", "Coroutine", "AsyncIterator", "AsyncIterable",
		"Reversible", "SupportsInt", "SupportsFloat", "SupportsIndex", "SupportsAbs", "ByteString", "Required",
		"NotRequired", "LiteralString", "Text", "AnyStr", "ChainMap", "Counter", "Deque", "Pattern", "Match", "IO"}
	members := map[string]Value{
		"List": listClass, "Dict": dictClass, "Tuple": tupleClass, "Set": setClass, "FrozenSet": frozensetClass,
		"Type": typeClass, "DefaultDict": defaultdictClass, "OrderedDict": orderedDictClass,
		"TYPE_CHECKING": False, "Generic": genericClass, "Protocol": protocolClass, "NamedTuple": namedTupleBaseClass,
		"TypedDict": typedDictClass,
		"cast": NewBuiltin("cast", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var typ, val Value
			if err := UnpackArgs("cast", args, kwargs, "typ", &typ, "val", &val); err != nil {
				return nil, err
			}
			return val, nil
		}),
		"overload":            identityBuiltin("overload"),
		"final":               identityBuiltin("final"),
		"no_type_check":       identityBuiltin("no_type_check"),
		"runtime_checkable":   identityBuiltin("runtime_checkable"),
		"dataclass_transform": identityBuiltin("dataclass_transform"),
		"assert_never": NewBuiltin("assert_never", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return nil, Errorf("AssertionError", "Expected code to be unreachable")
		}),
		"reveal_type": identityBuiltin("reveal_type"),
		"get_type_hints": NewBuiltin("get_type_hints", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) < 1 {
				return nil, Errorf("TypeError", "get_type_hints() missing 1 required positional argument: 'obj'")
			}
			v, err := getAttr(th, args[0], "__annotations__")
			if err != nil || v == nil {
				return NewDict(), err
			}
			return v, nil
		}),
		"TypeVar": NewBuiltin("TypeVar", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) < 1 {
				return nil, Errorf("TypeError", "TypeVar() missing 1 required positional argument: 'name'")
			}
			name, _ := AsString(args[0])
			return &typingForm{name: "~" + name}, nil
		}),
		"ParamSpec": NewBuiltin("ParamSpec", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			name := "P"
			if len(args) > 0 {
				name, _ = AsString(args[0])
			}
			return &typingForm{name: "~" + name}, nil
		}),
		"NewType": NewBuiltin("NewType", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) != 2 {
				return nil, Errorf("TypeError", "NewType() takes 2 arguments")
			}
			return identityBuiltin("NewType"), nil
		}),
	}
	for _, f := range forms {
		if _, ok := members[f]; !ok {
			members[f] = &typingForm{name: f}
		}
	}
	return NewModule("typing", members)
}

// ---------------------------------------------------------------------------
// abc.

func makeAbcModule(th *Thread) *Module {
	return NewModule("abc", map[string]Value{
		"ABC": abcClass, "ABCMeta": abcMetaClass,
		"abstractmethod": NewBuiltin("abstractmethod", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("abstractmethod", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			markAbstract(th, args[0])
			return args[0], nil
		}),
		"abstractproperty": propertyClass,
	})
}

func markAbstract(th *Thread, v Value) {
	switch f := v.(type) {
	case *Function:
		_ = setAttr(th, f, "__isabstractmethod__", True)
	case *StaticMethod:
		markAbstract(th, f.Func)
	case *ClassMethod:
		markAbstract(th, f.Func)
	case *Property:
		if f.Get != nil {
			markAbstract(th, f.Get)
		}
	}
}

func isAbstract(v Value) bool {
	switch f := v.(type) {
	case *Function:
		a, _ := f.dict.get("__isabstractmethod__")
		return a == Value(True)
	case *StaticMethod:
		return isAbstract(f.Func)
	case *ClassMethod:
		return isAbstract(f.Func)
	case *Property:
		return f.Get != nil && isAbstract(f.Get)
	}
	return false
}

// abstractMethods lists the abstract methods a class still has.
func abstractMethods(c *Class) []string {
	checked := false
	for _, m := range c.mro {
		if m == abcClass || m.abcMeta {
			checked = true
		}
	}
	if !checked {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, m := range c.mro {
		for _, k := range m.dict.keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			if v, _ := c.lookup(k); isAbstract(v) {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ---------------------------------------------------------------------------
// collections.

func makeCollectionsModule(th *Thread) *Module {
	m := NewModule("collections", map[string]Value{
		"namedtuple":  NewBuiltin("namedtuple", builtinNamedtuple),
		"defaultdict": defaultdictClass,
		"OrderedDict": orderedDictClass,
		"Counter":     counterClass,
		"deque":       NewBuiltin("deque", builtinDeque),
	})
	m.Set("abc", makeCollectionsAbc())
	m.missing = func(name string) error {
		return NotSupportedf("collections.%s is not supported by narwhal", name)
	}
	return m
}

// abcProtocol is a collections.abc class: isinstance checks the value's
// shape.
type abcProtocol struct {
	name  string
	check func(v Value) bool
}

func (p *abcProtocol) Type() string                               { return "ABCMeta" }
func (p *abcProtocol) String() string                             { return "<class 'collections.abc." + p.name + "'>" }
func (p *abcProtocol) Truth() (bool, error)                       { return true, nil }
func (p *abcProtocol) Index(th *Thread, key Value) (Value, error) { return p, nil }

func makeCollectionsAbc() *Module {
	isSeq := func(v Value) bool {
		switch x := v.(type) {
		case *List, Tuple, String, *Range:
			return true
		case *Instance:
			_, isT := x.base.(Tuple)
			_, isL := x.base.(*List)
			return isT || isL
		}
		return false
	}
	isMap := func(v Value) bool {
		switch x := v.(type) {
		case *Dict:
			return true
		case *Instance:
			_, ok := x.base.(*Dict)
			return ok
		}
		return false
	}
	isIter := func(v Value) bool {
		switch x := v.(type) {
		case *List, Tuple, String, *Range, *Dict, *Set, *dictView, *iterObj, *generatorObj:
			return true
		case *Instance:
			return x.base != nil && isIterableValue(x.base) || x.class.userLookup("__iter__") != nil
		case *Class:
			return x.enum != nil
		case Iterable:
			return true
		}
		return false
	}
	isSized := func(v Value) bool {
		switch x := v.(type) {
		case *List, Tuple, String, *Range, *Dict, *Set, *dictView:
			return true
		case *Instance:
			return x.base != nil || x.class.userLookup("__len__") != nil
		case HasLen:
			return true
		}
		return false
	}
	members := map[string]Value{}
	add := func(name string, f func(Value) bool) { members[name] = &abcProtocol{name: name, check: f} }
	add("Iterable", isIter)
	add("Collection", func(v Value) bool { return isIter(v) && isSized(v) })
	add("Sized", isSized)
	add("Container", isIter)
	add("Sequence", isSeq)
	add("MutableSequence", func(v Value) bool { _, ok := v.(*List); return ok })
	add("Mapping", isMap)
	add("MutableMapping", isMap)
	add("Set", func(v Value) bool { _, ok := v.(*Set); return ok })
	add("MutableSet", func(v Value) bool { s, ok := v.(*Set); return ok && !s.frozen })
	add("Iterator", func(v Value) bool {
		switch o := v.(type) {
		case *iterObj, *generatorObj:
			return true
		case *Instance:
			return o.class.userLookup("__next__") != nil
		}
		return false
	})
	add("Generator", func(v Value) bool { _, ok := v.(*generatorObj); return ok })
	add("Callable", isCallable)
	add("Hashable", func(v Value) bool { _, err := hashValue(nil, v); return err == nil })
	return NewModule("collections.abc", members)
}

func isIterableValue(v Value) bool {
	switch v.(type) {
	case *List, Tuple, String, *Range, *Dict, *Set:
		return true
	}
	return false
}

// builtinNamedtuple is collections.namedtuple(typename, field_names, *,
// defaults=None, rename=False, module=None).
func builtinNamedtuple(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var typename string
	var fieldNames, defaults, module Value
	rename := false
	if err := UnpackArgs("namedtuple", args, kwargs, "typename", &typename, "field_names", &fieldNames,
		"*", new([]Value), "defaults?", &defaults, "rename?", &rename, "module?", &module); err != nil {
		return nil, err
	}
	var names []string
	if s, ok := AsString(fieldNames); ok {
		names = strings.Fields(strings.ReplaceAll(s, ",", " "))
	} else {
		err := Iterate(th, fieldNames, func(v Value) error {
			s, ok := AsString(v)
			if !ok {
				return Errorf("TypeError", "Type names and field names must be strings")
			}
			names = append(names, s)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for i, n := range names {
		if rename && (!isIdentifier(n) || strings.HasPrefix(n, "_") || seen[n]) {
			names[i] = "_" + itoa(int64(i))
			n = names[i]
		}
		if !isIdentifier(n) {
			return nil, Errorf("ValueError", "Type names and field names must be valid identifiers: %s", quoteString(n))
		}
		if strings.HasPrefix(n, "_") {
			return nil, Errorf("ValueError", "Field names cannot start with an underscore: %s", quoteString(n))
		}
		if seen[n] {
			return nil, Errorf("ValueError", "Encountered duplicate field name: %s", quoteString(n))
		}
		seen[n] = true
	}
	var defs []Value
	if defaults != nil && defaults != Value(None) {
		var err error
		if defs, err = collect(th, defaults); err != nil {
			return nil, err
		}
		if len(defs) > len(names) {
			return nil, Errorf("TypeError", "Got more default values than field names")
		}
	}
	mod := "__main__"
	if m := th.Module(); m != nil {
		mod = m.name
	}
	if s, ok := AsString(orNone(module)); ok {
		mod = s
	}
	c := &Class{name: typename, qualname: typename, module: mod, bases: []*Class{tupleClass}, dict: newStrDict(8), serial: nextSerial(), goDefined: true, th: th}
	c.mro = append([]*Class{c}, tupleClass.mro...)
	setupNamedTuple(c, names, defs)
	return c, nil
}

// setupNamedTuple gives a tuple-derived class its fields and methods.
func setupNamedTuple(c *Class, names []string, defs []Value) {
	fields := make(Tuple, len(names))
	for i, n := range names {
		fields[i] = String(n)
	}
	c.dict.set("_fields", fields)
	fd := NewDict()
	first := len(names) - len(defs)
	for i, d := range defs {
		fd.setStr(nil, names[first+i], d)
	}
	c.dict.set("_field_defaults", fd)
	for i, n := range names {
		i := i
		c.dict.set(n, &Property{Get: NewBuiltin(n, func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) != 1 {
				return nil, Errorf("TypeError", "expected 1 argument")
			}
			o, ok := args[0].(*Instance)
			if !ok {
				return nil, Errorf("TypeError", "descriptor for namedtuple field")
			}
			t, _ := o.base.(Tuple)
			if i >= len(t) {
				return nil, Errorf("IndexError", "tuple index out of range")
			}
			return t[i], nil
		})})
	}
	c.newFn = func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		vals := make([]Value, len(names))
		name := cls.name
		if len(args) > len(names) {
			return nil, takesPositional(name+".__new__", len(names)+1-len(defs), len(names)+1, len(args)+1)
		}
		copy(vals, args)
		for _, kw := range kwargs {
			j := -1
			for k, n := range names {
				if n == kw.Name {
					j = k
				}
			}
			if j < 0 {
				return nil, Errorf("TypeError", "%s.__new__() got an unexpected keyword argument '%s'", name, kw.Name)
			}
			if vals[j] != nil {
				return nil, Errorf("TypeError", "%s.__new__() got multiple values for argument '%s'", name, kw.Name)
			}
			vals[j] = kw.Value
		}
		var missing []string
		for k := range vals {
			if vals[k] == nil {
				if k >= first {
					vals[k] = defs[k-first]
				} else {
					missing = append(missing, names[k])
				}
			}
		}
		if len(missing) > 0 {
			return nil, missingArgs(name+".__new__", "positional", missing)
		}
		return &Instance{class: cls, dict: newStrDict(0), serial: nextSerial(), base: Tuple(vals), th: th}, nil
	}
	c.dict.set("__repr__", &nativeMethod{name: "__repr__", cls: c, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		t, _ := o.base.(Tuple)
		var b strings.Builder
		b.WriteString(o.class.name + "(")
		for i, n := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			r := "?"
			if i < len(t) {
				var err error
				if r, err = toRepr(th, t[i]); err != nil {
					return nil, err
				}
			}
			b.WriteString(n + "=" + r)
		}
		b.WriteString(")")
		return String(b.String()), nil
	}})
	c.dict.set("_asdict", &nativeMethod{name: "_asdict", cls: c, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		t, _ := o.base.(Tuple)
		d := NewDict()
		for i, n := range names {
			if i < len(t) {
				d.setStr(th, n, t[i])
			}
		}
		return d, nil
	}})
	c.dict.set("_replace", &nativeMethod{name: "_replace", cls: c, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		t, _ := o.base.(Tuple)
		vals := append(Tuple(nil), t...)
		for _, kw := range kwargs {
			j := -1
			for k, n := range names {
				if n == kw.Name {
					j = k
				}
			}
			if j < 0 {
				return nil, Errorf("ValueError", "Got unexpected field names: ['%s']", kw.Name)
			}
			vals[j] = kw.Value
		}
		return &Instance{class: o.class, dict: newStrDict(0), serial: nextSerial(), base: vals, th: th}, nil
	}})
	c.dict.set("_make", &ClassMethod{Func: NewBuiltin("_make", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 2 {
			return nil, Errorf("TypeError", "_make() takes 1 argument")
		}
		elems, err := collect(th, args[1])
		if err != nil {
			return nil, err
		}
		return Call(th, args[0], elems, nil)
	})})
}

// makeTypedNamedTuple turns `class P(NamedTuple): x: int; y: int = 0`
// into a namedtuple class.
func makeTypedNamedTuple(th *Thread, c *Class) error {
	var names []string
	var defs []Value
	if anns, ok := c.dict.m["__annotations__"].(*Dict); ok {
		for _, kv := range anns.Items() {
			n, _ := AsString(kv[0])
			names = append(names, n)
			if d, ok := c.dict.m[n]; ok {
				defs = append(defs, d)
			} else if len(defs) > 0 {
				return Errorf("TypeError", "Non-default namedtuple field %s cannot follow default field", n)
			}
		}
	}
	setupNamedTuple(c, names, defs)
	return nil
}

// builtinCounter is collections.Counter(iterable or mapping).
func builtinCounter(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	d := NewDict()
	d.kind = "Counter"
	if len(args) > 1 {
		return nil, Errorf("TypeError", "Counter expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		if err := counterUpdate(th, d, args[0]); err != nil {
			return nil, err
		}
	}
	for _, kw := range kwargs {
		if err := d.Set(th, String(kw.Name), kw.Value); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func counterUpdate(th *Thread, d *Dict, src Value) error {
	if m, ok := src.(*Dict); ok {
		for _, kv := range m.Items() {
			cur, ok, err := d.Get(th, kv[0])
			if err != nil {
				return err
			}
			if !ok {
				cur = intValue(0)
			}
			s, err := Binary(th, syntax.Add, cur, kv[1])
			if err != nil {
				return err
			}
			if err := d.Set(th, kv[0], s); err != nil {
				return err
			}
		}
		return nil
	}
	return Iterate(th, src, func(v Value) error {
		cur, ok, err := d.Get(th, v)
		if err != nil {
			return err
		}
		if !ok {
			cur = intValue(0)
		}
		s, err := Binary(th, syntax.Add, cur, intValue(1))
		if err != nil {
			return err
		}
		return d.Set(th, v, s)
	})
}

var counterMethods = map[string]methodFn{
	"most_common": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("most_common", args, kwargs, 0, 1); err != nil {
			return nil, err
		}
		d := recv.(*Dict)
		items := d.Items()
		elems := make([]Value, len(items))
		for i, kv := range items {
			elems[i] = Tuple{kv[0], kv[1]}
		}
		key := NewBuiltin("count", func(th *Thread, a []Value, kw []Kwarg) (Value, error) { return a[0].(Tuple)[1], nil })
		if err := sortValues(th, elems, key, true); err != nil {
			return nil, err
		}
		if len(args) == 1 && args[0] != Value(None) {
			n, err := AsInt64(th, args[0])
			if err != nil {
				return nil, err
			}
			if n < int64(len(elems)) {
				if n < 0 {
					n = 0
				}
				elems = elems[:n]
			}
		}
		return NewList(elems), nil
	},
	"elements": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		var out []Value
		for _, kv := range recv.(*Dict).Items() {
			n, _ := AsInt64(th, kv[1])
			for i := int64(0); i < n; i++ {
				out = append(out, kv[0])
			}
		}
		return newIterObj("itertools.chain", &sliceIter{elems: out}), nil
	},
	"total": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		var acc Value = intValue(0)
		for _, kv := range recv.(*Dict).Items() {
			r, err := Binary(th, syntax.Add, acc, kv[1])
			if err != nil {
				return nil, err
			}
			acc = r
		}
		return acc, nil
	},
	"update": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		for _, a := range args {
			if err := counterUpdate(th, recv.(*Dict), a); err != nil {
				return nil, err
			}
		}
		return None, nil
	},
}

// builtinDeque is collections.deque (a list with the deque methods).
func builtinDeque(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	var it, maxlen Value
	if err := UnpackArgs("deque", args, kwargs, "iterable?", &it, "maxlen?", &maxlen); err != nil {
		return nil, err
	}
	var elems []Value
	if it != nil {
		var err error
		if elems, err = collect(th, it); err != nil {
			return nil, err
		}
	}
	dq := &Instance{class: dequeClass, dict: newStrDict(1), serial: nextSerial(), base: NewList(elems), th: th}
	if maxlen != nil && maxlen != Value(None) {
		n, err := AsInt64(th, maxlen)
		if err != nil {
			return nil, err
		}
		dq.dict.set("maxlen", intValue(n))
		dequeTrim(th, dq, false)
	} else {
		dq.dict.set("maxlen", None)
	}
	return dq, nil
}

var (
	dequeClass   = &Class{}
	counterClass = &Class{}
)

func dequeTrim(th *Thread, dq *Instance, left bool) {
	ml, _ := dq.dict.get("maxlen")
	n, ok := ml.(Int)
	if !ok {
		return
	}
	l := dq.base.(*List)
	max, _ := n.Int64()
	if int64(len(l.elems)) > max {
		if left {
			listSetElems(th, l, append([]Value(nil), l.elems[:max]...))
		} else {
			listSetElems(th, l, append([]Value(nil), l.elems[int64(len(l.elems))-max:]...))
		}
	}
}

func init() {
	initBuiltinClass(counterClass, "Counter", dictClass, func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		return builtinCounter(th, args, kwargs)
	}, counterMethods)
	counterClass.module = "collections"
	counterClass.subscriptable = true
	goClass(dequeClass, "deque", "collections", listClass)
	dequeClass.goDefined = false
	dq := func(name string, fn func(th *Thread, dq *Instance, l *List, args []Value) (Value, error)) {
		dequeClass.dict.set(name, &nativeMethod{name: name, cls: dequeClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			o := recv.(*Instance)
			return fn(th, o, o.base.(*List), args)
		}})
	}
	dq("append", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "deque.append() takes exactly one argument (%d given)", len(args))
		}
		if err := listAppend(th, l, args[0]); err != nil {
			return nil, err
		}
		dequeTrim(th, o, false)
		return None, nil
	})
	dq("appendleft", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "deque.appendleft() takes exactly one argument (%d given)", len(args))
		}
		listSetElems(th, l, append([]Value{args[0]}, l.elems...))
		dequeTrim(th, o, true)
		return None, nil
	})
	dq("popleft", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		if len(l.elems) == 0 {
			return nil, Errorf("IndexError", "pop from an empty deque")
		}
		v := l.elems[0]
		listSetElems(th, l, append([]Value(nil), l.elems[1:]...))
		return v, nil
	})
	dq("pop", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		if len(l.elems) == 0 {
			return nil, Errorf("IndexError", "pop from an empty deque")
		}
		v := l.elems[len(l.elems)-1]
		listSetElems(th, l, append([]Value(nil), l.elems[:len(l.elems)-1]...))
		return v, nil
	})
	dq("extendleft", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		if len(args) != 1 {
			return nil, Errorf("TypeError", "extendleft() takes exactly one argument")
		}
		more, err := collect(th, args[0])
		if err != nil {
			return nil, err
		}
		out := make([]Value, 0, len(more)+len(l.elems))
		for i := len(more) - 1; i >= 0; i-- {
			out = append(out, more[i])
		}
		listSetElems(th, l, append(out, l.elems...))
		dequeTrim(th, o, true)
		return None, nil
	})
	dq("rotate", func(th *Thread, o *Instance, l *List, args []Value) (Value, error) {
		n := int64(1)
		if len(args) == 1 {
			var err error
			if n, err = AsInt64(th, args[0]); err != nil {
				return nil, err
			}
		}
		k := int64(len(l.elems))
		if k == 0 {
			return None, nil
		}
		n = ((n % k) + k) % k
		out := append(append([]Value(nil), l.elems[k-n:]...), l.elems[:k-n]...)
		listSetElems(th, l, out)
		return None, nil
	})
	dequeClass.dict.set("__repr__", &nativeMethod{name: "__repr__", cls: dequeClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		s := "deque(" + o.base.String()
		if ml, _ := o.dict.get("maxlen"); ml != nil && ml != Value(None) {
			s += ", maxlen=" + ml.String()
		}
		return String(s + ")"), nil
	}})
}
