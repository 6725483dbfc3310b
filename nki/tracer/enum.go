// enum.go: the enum module: Enum, IntEnum, StrEnum, auto(), unique.
// A class deriving from Enum has its class-body constants turned into
// members when the class is made: instances of the class carrying
// _name_/name and _value_/value (and, for IntEnum and other mixed-in
// types, the builtin value they extend, so that IntEnum members are
// ints in arithmetic, comparisons and indexing). Members are looked up
// by value (Color(1)) and by name (Color['RED']); the class iterates
// its members (aliases excluded), has len() and `in`.
//
// Decisions: Flag and IntFlag are not provided (an AttributeError of
// module 'enum'); _missing_ is honoured; str() and format() follow
// CPython 3.11 (IntEnum and StrEnum print their value, Enum
// "Color.RED").
package tracer

import "strings"

var (
	enumBaseClass    = &Class{}
	intEnumBaseClass = &Class{}
	strEnumBaseClass = &Class{}
	enumMetaClass    = &Class{}
	autoClass        = &Class{}
)

// enumInfo is an enum class's members.
type enumInfo struct {
	names    []string // canonical members in definition order
	allNames []string // every name, aliases included
	byName   map[string]Value
	values   []Value // of names, in order
}

func (e *enumInfo) members() []Value {
	out := make([]Value, len(e.names))
	for i, n := range e.names {
		out[i] = e.byName[n]
	}
	return out
}

// autoValue is enum.auto().
type autoValue struct{ serial uint64 }

func (a *autoValue) Type() string         { return "auto" }
func (a *autoValue) String() string       { return "auto()" }
func (a *autoValue) Truth() (bool, error) { return true, nil }

func init() {
	mk := func(c *Class, name string, bases []*Class) {
		*c = Class{name: name, qualname: name, module: "enum", dict: newStrDict(8), serial: nextSerial(), bases: bases}
		mro, _ := c3(c)
		c.mro = mro
	}
	mk(enumMetaClass, "EnumType", []*Class{typeClass})
	mk(enumBaseClass, "Enum", []*Class{objectClass})
	enumBaseClass.goDefined = true
	enumBaseClass.dict.set("__repr__", &nativeMethod{name: "__repr__", cls: enumBaseClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		v, _ := o.dict.get("_value_")
		r, err := toRepr(th, orNone(v))
		if err != nil {
			return nil, err
		}
		if o.base != nil {
			if br, err := toRepr(th, o.base); err == nil {
				r = br
			}
		}
		return String("<" + o.class.name + "." + enumName(o) + ": " + r + ">"), nil
	}})
	enumBaseClass.dict.set("__str__", &nativeMethod{name: "__str__", cls: enumBaseClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		if o.class.IsSubclass(intEnumBaseClass) || o.class.IsSubclass(strEnumBaseClass) {
			s, err := toStr(th, o.base)
			return String(s), err
		}
		return String(o.class.name + "." + enumName(o)), nil
	}})
	enumBaseClass.dict.set("__format__", &nativeMethod{name: "__format__", cls: enumBaseClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		spec := ""
		if len(args) > 0 {
			spec, _ = AsString(args[0])
		}
		if o.class.IsSubclass(intEnumBaseClass) || o.class.IsSubclass(strEnumBaseClass) {
			s, err := formatValue(th, o.base, spec)
			return String(s), err
		}
		if u := o.class.userLookup("__str__"); u != nil {
			if nm, ok := u.(*nativeMethod); !ok || nm.cls != enumBaseClass {
				s, err := toStr(th, o)
				if err != nil {
					return nil, err
				}
				r, err := formatStr(s, spec)
				return String(r), err
			}
		}
		s, err := formatStr(o.class.name+"."+enumName(o), spec)
		return String(s), err
	}})
	enumBaseClass.dict.set("__hash__", &nativeMethod{name: "__hash__", cls: enumBaseClass, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		o := recv.(*Instance)
		if o.base != nil {
			h, err := hashValue(th, o.base)
			return MakeInt(int64(h)), err
		}
		h, err := hashValue(th, String(enumName(o)))
		return MakeInt(int64(h >> 1)), err
	}})
	enumBaseClass.dict.set("__reduce_ex__", None)
	mk(intEnumBaseClass, "IntEnum", []*Class{intClass, enumBaseClass})
	intEnumBaseClass.goDefined = true
	mk(strEnumBaseClass, "StrEnum", []*Class{strClass, enumBaseClass})
	strEnumBaseClass.goDefined = true
	mk(autoClass, "auto", []*Class{objectClass})
	autoClass.goDefined = true
	autoClass.newFn = func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error) {
		return &autoValue{serial: nextSerial()}, argCount("auto", args, kwargs, 0, 0)
	}
}

func enumName(o *Instance) string {
	if v, ok := o.dict.get("_name_"); ok {
		if s, ok := AsString(v); ok {
			return s
		}
	}
	return "?"
}

func makeEnumModule(th *Thread) *Module {
	m := NewModule("enum", map[string]Value{
		"Enum": enumBaseClass, "IntEnum": intEnumBaseClass, "StrEnum": strEnumBaseClass,
		"EnumMeta": enumMetaClass, "EnumType": enumMetaClass, "auto": autoClass,
		"unique": NewBuiltin("unique", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("unique", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			c, ok := args[0].(*Class)
			if !ok || c.enum == nil {
				return args[0], nil
			}
			var dups []string
			for _, name := range c.enum.byNameOrder() {
				m := c.enum.byName[name]
				if enumName(m.(*Instance)) != name {
					dups = append(dups, name+" -> "+enumName(m.(*Instance)))
				}
			}
			if len(dups) > 0 {
				return nil, Errorf("ValueError", "duplicate values found in <enum '%s'>: %s", c.name, strings.Join(dups, ", "))
			}
			return c, nil
		}),
	})
	m.missing = func(name string) error {
		return NotSupportedf("enum.%s is not supported by narwhal (Enum, IntEnum, StrEnum, auto and unique are)", name)
	}
	return m
}

// byNameOrder lists every name (aliases included) in definition order.
func (e *enumInfo) byNameOrder() []string { return e.allNames }

// makeEnum turns a class deriving from Enum into an enum: its constants
// become members.
func makeEnum(th *Thread, c *Class) error {
	info := &enumInfo{byName: map[string]Value{}}
	// Inherited enum machinery: the mixed-in builtin type.
	var mixin *Class
	for _, m := range c.mro[1:] {
		if m.newFn != nil && m != objectClass && m.immutable {
			mixin = m
			break
		}
	}
	var gen Value
	if g, _ := c.lookup("_generate_next_value_"); g != nil {
		gen = g
	}
	var lastInt int64
	haveInt := false
	for _, name := range append([]string(nil), c.dict.keys...) {
		v := c.dict.m[name]
		if strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") ||
			strings.HasPrefix(name, "_") && strings.HasSuffix(name, "_") && len(name) > 1 {
			continue
		}
		switch v.(type) {
		case *Function, *StaticMethod, *ClassMethod, *Property, *nativeMethod, *Builtin, *Class:
			continue
		}
		if a, ok := v.(*autoValue); ok {
			_ = a
			switch {
			case gen != nil:
				fn := gen
				if sm, ok := fn.(*StaticMethod); ok {
					fn = sm.Func
				}
				r, err := Call(th, fn, []Value{String(name), intValue(1), intValue(int64(len(info.names))), NewList(append([]Value(nil), info.values...))}, nil)
				if err != nil {
					return err
				}
				v = r
			case c.IsSubclass(strEnumBaseClass):
				v = String(strings.ToLower(name))
			default:
				if haveInt {
					v = intValue(lastInt + 1)
				} else {
					v = intValue(1)
				}
			}
		}
		if n, ok := v.(Int); ok {
			if i, fits := n.Int64(); fits {
				lastInt, haveInt = i, true
			}
		}
		// An alias of an existing member?
		var alias Value
		for i, ev := range info.values {
			eq, err := Equal(th, ev, v)
			if err != nil {
				return err
			}
			if eq {
				alias = info.byName[info.names[i]]
				break
			}
		}
		if alias != nil {
			info.byName[name] = alias
			info.allNames = append(info.allNames, name)
			c.dict.m[name] = alias
			continue
		}
		member := &Instance{class: c, dict: newStrDict(4), serial: nextSerial(), th: th}
		if mixin != nil {
			var margs []Value
			if t, ok := v.(Tuple); ok && mixin != tupleClass {
				margs = t
			} else {
				margs = []Value{v}
			}
			b, err := mixin.newFn(th, mixin, margs, nil)
			if err != nil {
				return err
			}
			member.base = b
			if mixin == intClass || mixin == strClass || mixin == floatClass {
				v = b
			}
		}
		member.dict.set("_name_", String(name))
		member.dict.set("_value_", v)
		member.dict.set("name", String(name))
		member.dict.set("value", v)
		if init := c.userLookup("__init__"); init != nil {
			if _, isNative := init.(*nativeMethod); !isNative {
				var iargs []Value
				if t, ok := v.(Tuple); ok {
					iargs = t
				} else {
					iargs = []Value{v}
				}
				if _, err := callMethod(th, member, init, iargs, nil); err != nil {
					return err
				}
			}
		}
		info.names = append(info.names, name)
		info.allNames = append(info.allNames, name)
		info.values = append(info.values, v)
		info.byName[name] = member
		c.dict.m[name] = member
	}
	c.enum = info
	return nil
}

// enumLookup is Color(value).
func enumLookup(th *Thread, c *Class, args []Value, kwargs []Kwarg) (Value, error) {
	if len(kwargs) > 0 || len(args) != 1 {
		if len(c.enum.names) == 0 {
			return nil, NotSupportedf("the functional Enum API (Enum('Name', ...)) is not supported")
		}
		return nil, Errorf("TypeError", "%s() takes exactly one argument", c.name)
	}
	v := args[0]
	if o, ok := v.(*Instance); ok && o.class == c {
		return o, nil
	}
	for i, ev := range c.enum.values {
		eq, err := Equal(th, ev, v)
		if err != nil {
			return nil, err
		}
		if eq {
			return c.enum.byName[c.enum.names[i]], nil
		}
	}
	if m, _ := c.lookup("_missing_"); m != nil {
		var fn = m
		args := []Value{v}
		if cm, ok := m.(*ClassMethod); ok {
			fn = cm.Func
			args = []Value{c, v}
		}
		r, err := Call(th, fn, args, nil)
		if err != nil {
			return nil, err
		}
		if r != Value(None) {
			return r, nil
		}
	}
	r, _ := toRepr(th, v)
	return nil, Errorf("ValueError", "%s is not a valid %s", r, c.qualname)
}
