// dataclass.go: the dataclasses module. @dataclass (with or without
// arguments: init, repr, eq, order, frozen, unsafe_hash, kw_only)
// collects the fields from the class's annotations (bases' fields
// first), with defaults and field(default=, default_factory=, init=,
// repr=, compare=, kw_only=), and adds the generated __init__ (calling
// __post_init__), __repr__, __eq__, the ordering methods and __hash__ as
// CPython's would be. fields(), asdict(), astuple(), replace(),
// is_dataclass() and FrozenInstanceError are provided.
//
// Decisions: ClassVar-annotated names are not fields (recognized by the
// typing.ClassVar object or, for string annotations, a "ClassVar"
// prefix); InitVar fields are passed to __post_init__ and not stored;
// slots= and match_args= are accepted and ignored.
package tracer

import (
	"strings"
)

type dataclassInfo struct {
	fields                       []*dcField
	frozen, eq, order, init, rep bool
}

// dcField is a dataclasses.Field.
type dcField struct {
	name                string
	typ                 Value
	def, factory        Value // nil when absent
	init, repr, compare bool
	hash                Value
	kwOnly              bool
	kwOnlySet           bool
	initVar             bool
	metadata            Value
}

func (f *dcField) Type() string         { return "Field" }
func (f *dcField) Truth() (bool, error) { return true, nil }
func (f *dcField) String() string {
	return "Field(name=" + quoteString(f.name) + ",type=" + Repr(orNone(f.typ)) + ",default=" + reprMissing(f.def) +
		",default_factory=" + reprMissing(f.factory) + ",init=" + Bool(f.init).String() + ",repr=" + Bool(f.repr).String() +
		",hash=" + Repr(orNone(f.hash)) + ",compare=" + Bool(f.compare).String() + ",metadata=mappingproxy({}),kw_only=" + Bool(f.kwOnly).String() + ",_field_type=_FIELD)"
}

func reprMissing(v Value) string {
	if v == nil {
		return "<dataclasses._MISSING_TYPE object>"
	}
	return Repr(v)
}

func (f *dcField) Attr(th *Thread, name string) (Value, error) {
	switch name {
	case "name":
		return String(f.name), nil
	case "type":
		return orNone(f.typ), nil
	case "default":
		if f.def == nil {
			return missingValue, nil
		}
		return f.def, nil
	case "default_factory":
		if f.factory == nil {
			return missingValue, nil
		}
		return f.factory, nil
	case "init":
		return Bool(f.init), nil
	case "repr":
		return Bool(f.repr), nil
	case "compare":
		return Bool(f.compare), nil
	case "kw_only":
		return Bool(f.kwOnly), nil
	case "hash":
		return orNone(f.hash), nil
	case "metadata":
		if f.metadata == nil {
			return NewDict(), nil
		}
		return f.metadata, nil
	}
	return nil, nil
}
func (f *dcField) AttrNames() []string {
	return []string{"compare", "default", "default_factory", "hash", "init", "kw_only", "metadata", "name", "repr", "type"}
}

// missingType is dataclasses.MISSING.
type missingType struct{}

func (missingType) Type() string         { return "_MISSING_TYPE" }
func (missingType) String() string       { return "<dataclasses._MISSING_TYPE object>" }
func (missingType) Truth() (bool, error) { return true, nil }

var missingValue Value = &missingType{}

// kwOnlyMarker is dataclasses.KW_ONLY.
type kwOnlyMarker struct{}

func (kwOnlyMarker) Type() string         { return "_KW_ONLY_TYPE" }
func (kwOnlyMarker) String() string       { return "<dataclasses._KW_ONLY_TYPE object>" }
func (kwOnlyMarker) Truth() (bool, error) { return true, nil }

var kwOnlyValue Value = &kwOnlyMarker{}

// initVarType is dataclasses.InitVar[T].
type initVarType struct{ typ Value }

func (i *initVarType) Type() string         { return "InitVar" }
func (i *initVarType) String() string       { return "dataclasses.InitVar[" + Repr(orNone(i.typ)) + "]" }
func (i *initVarType) Truth() (bool, error) { return true, nil }

type initVarClassType struct{}

func (initVarClassType) Type() string         { return "type" }
func (initVarClassType) String() string       { return "<class 'dataclasses.InitVar'>" }
func (initVarClassType) Truth() (bool, error) { return true, nil }
func (initVarClassType) Index(th *Thread, key Value) (Value, error) {
	return &initVarType{typ: key}, nil
}

func makeDataclassesModule(th *Thread) *Module {
	m := NewModule("dataclasses", map[string]Value{
		"dataclass": NewBuiltin("dataclass", builtinDataclass),
		"field":     NewBuiltin("field", builtinField),
		"fields":    NewBuiltin("fields", dcFields),
		"asdict":    NewBuiltin("asdict", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) { return dcAs(th, "asdict", args, kwargs) }),
		"astuple": NewBuiltin("astuple", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return dcAs(th, "astuple", args, kwargs)
		}),
		"replace":             NewBuiltin("replace", dcReplace),
		"is_dataclass":        NewBuiltin("is_dataclass", dcIsDataclass),
		"FrozenInstanceError": frozenInstanceErrClass,
		"MISSING":             missingValue,
		"KW_ONLY":             kwOnlyValue,
		"InitVar":             initVarClassType{},
	})
	m.missing = func(name string) error {
		return NotSupportedf("dataclasses.%s is not supported by narwhal", name)
	}
	return m
}

func builtinField(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) > 0 {
		return nil, Errorf("TypeError", "field() takes 0 positional arguments but %d were given", len(args))
	}
	f := &dcField{init: true, repr: true, compare: true, hash: None}
	for _, kw := range kwargs {
		switch kw.Name {
		case "default":
			f.def = kw.Value
		case "default_factory":
			f.factory = kw.Value
		case "init", "repr", "compare", "kw_only":
			t, err := truth(th, kw.Value)
			if err != nil {
				return nil, err
			}
			switch kw.Name {
			case "init":
				f.init = t
			case "repr":
				f.repr = t
			case "compare":
				f.compare = t
			case "kw_only":
				f.kwOnly, f.kwOnlySet = t, true
			}
		case "hash":
			f.hash = kw.Value
		case "metadata":
			f.metadata = kw.Value
		default:
			return nil, Errorf("TypeError", "field() got an unexpected keyword argument '%s'", kw.Name)
		}
	}
	if f.def == missingValue {
		f.def = nil
	}
	if f.factory == missingValue {
		f.factory = nil
	}
	if f.def != nil && f.factory != nil {
		return nil, Errorf("ValueError", "cannot specify both default and default_factory")
	}
	return f, nil
}

type dcOptions struct {
	init, repr, eq, order, frozen, unsafeHash, kwOnly bool
}

func builtinDataclass(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	opts := dcOptions{init: true, repr: true, eq: true}
	for _, kw := range kwargs {
		t, err := truth(th, kw.Value)
		if err != nil {
			return nil, err
		}
		switch kw.Name {
		case "init":
			opts.init = t
		case "repr":
			opts.repr = t
		case "eq":
			opts.eq = t
		case "order":
			opts.order = t
		case "frozen":
			opts.frozen = t
		case "unsafe_hash":
			opts.unsafeHash = t
		case "kw_only":
			opts.kwOnly = t
		case "slots", "match_args", "weakref_slot":
		default:
			return nil, Errorf("TypeError", "dataclass() got an unexpected keyword argument '%s'", kw.Name)
		}
	}
	if len(args) > 1 {
		return nil, Errorf("TypeError", "dataclass() takes from 0 to 1 positional arguments but %d were given", len(args))
	}
	if len(args) == 1 && args[0] != Value(None) {
		c, ok := args[0].(*Class)
		if !ok {
			return nil, Errorf("TypeError", "dataclass() should be called on a class, not %s", args[0].Type())
		}
		return processDataclass(th, c, opts)
	}
	return NewBuiltin("dataclass", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(args) != 1 || len(kwargs) > 0 {
			return nil, Errorf("TypeError", "dataclass() takes one class")
		}
		c, ok := args[0].(*Class)
		if !ok {
			return nil, Errorf("TypeError", "dataclass() should be called on a class, not %s", args[0].Type())
		}
		return processDataclass(th, c, opts)
	}), nil
}

func isClassVar(ann Value) bool {
	switch a := ann.(type) {
	case *typingForm:
		return a.name == "ClassVar" || strings.HasPrefix(a.name, "ClassVar[")
	case String:
		s := strings.TrimSpace(string(a))
		return strings.HasPrefix(s, "ClassVar") || strings.HasPrefix(s, "typing.ClassVar")
	}
	return false
}

func isInitVar(ann Value) bool {
	switch a := ann.(type) {
	case *initVarType, initVarClassType:
		return true
	case String:
		s := strings.TrimSpace(string(a))
		return strings.HasPrefix(s, "InitVar") || strings.HasPrefix(s, "dataclasses.InitVar")
	}
	return false
}

func isKwOnlyMarker(ann Value) bool {
	switch a := ann.(type) {
	case *kwOnlyMarker:
		return true
	case String:
		s := strings.TrimSpace(string(a))
		return s == "KW_ONLY" || s == "dataclasses.KW_ONLY"
	}
	return false
}

func processDataclass(th *Thread, c *Class, opts dcOptions) (Value, error) {
	var fields []*dcField
	index := map[string]int{}
	// Inherited fields, base-most first.
	for i := len(c.mro) - 1; i >= 1; i-- {
		if b := c.mro[i]; b.dc != nil {
			for _, f := range b.dc.fields {
				if j, ok := index[f.name]; ok {
					fields[j] = f
				} else {
					index[f.name] = len(fields)
					fields = append(fields, f)
				}
			}
		}
	}
	kwOnly := opts.kwOnly
	if anns, ok := c.dict.m["__annotations__"].(*Dict); ok {
		for _, kv := range anns.Items() {
			name, _ := AsString(kv[0])
			ann := kv[1]
			if isClassVar(ann) {
				continue
			}
			if isKwOnlyMarker(ann) {
				kwOnly = true
				continue
			}
			f := &dcField{name: name, typ: ann, init: true, repr: true, compare: true, hash: None, kwOnly: kwOnly}
			if v, ok := c.dict.m[name]; ok {
				if df, isField := v.(*dcField); isField {
					nf := *df
					nf.name, nf.typ = name, ann
					if !nf.kwOnlySet {
						nf.kwOnly = kwOnly
					}
					f = &nf
					if f.def != nil {
						c.dict.m[name] = f.def
					} else {
						c.dict.del(name)
					}
				} else {
					f.def = v
				}
			}
			if f.def != nil {
				switch f.def.(type) {
				case *List, *Dict, *Set:
					return nil, Errorf("ValueError", "mutable default %s for field %s is not allowed: use default_factory", typeOf(f.def).String(), name)
				}
			}
			f.initVar = isInitVar(ann)
			if j, ok := index[name]; ok {
				fields[j] = f
			} else {
				index[name] = len(fields)
				fields = append(fields, f)
			}
		}
	}
	// Non-default after default (positional parameters only).
	seenDefault := false
	for _, f := range fields {
		if !f.init || f.kwOnly {
			continue
		}
		if f.def != nil || f.factory != nil {
			seenDefault = true
		} else if seenDefault {
			return nil, Errorf("TypeError", "non-default argument '%s' follows default argument", f.name)
		}
	}
	info := &dataclassInfo{fields: fields, frozen: opts.frozen, eq: opts.eq, order: opts.order, init: opts.init, rep: opts.repr}
	for _, b := range c.mro[1:] {
		if b.dc != nil && b.dc.frozen != opts.frozen {
			if b.dc.frozen {
				return nil, Errorf("TypeError", "cannot inherit non-frozen dataclass from a frozen one")
			}
			return nil, Errorf("TypeError", "cannot inherit frozen dataclass from a non-frozen one")
		}
	}
	c.dc = info
	set := func(name string, fn methodFn) {
		if _, own := c.dict.m[name]; own && name != "__hash__" {
			return
		}
		c.dict.set(name, &nativeMethod{name: name, fn: fn, cls: c})
	}
	if opts.init {
		set("__init__", func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			return None, dcInit(th, c, recv.(*Instance), args, kwargs)
		})
	}
	if opts.repr {
		set("__repr__", func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			o := recv.(*Instance)
			var b strings.Builder
			b.WriteString(o.class.qualname + "(")
			first := true
			for _, f := range dcOf(o.class).fields {
				if !f.repr || f.initVar {
					continue
				}
				if !first {
					b.WriteString(", ")
				}
				first = false
				v, _ := o.dict.get(f.name)
				r, err := toRepr(th, orNone(v))
				if err != nil {
					return nil, err
				}
				b.WriteString(f.name + "=" + r)
			}
			b.WriteString(")")
			return String(b.String()), nil
		})
	}
	if opts.eq {
		set("__eq__", func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			o, other := recv.(*Instance), args[0]
			p, ok := other.(*Instance)
			if !ok || p.class != o.class {
				return NotImplemented, nil
			}
			eq, err := seqEqual(th, dcTuple(o), dcTuple(p))
			return Bool(eq), err
		})
	}
	if opts.order {
		for _, op := range []struct {
			name string
			want func(int) bool
		}{{"__lt__", func(c int) bool { return c < 0 }}, {"__le__", func(c int) bool { return c <= 0 }},
			{"__gt__", func(c int) bool { return c > 0 }}, {"__ge__", func(c int) bool { return c >= 0 }}} {
			want := op.want
			set(op.name, func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
				o, other := recv.(*Instance), args[0]
				p, ok := other.(*Instance)
				if !ok || p.class != o.class {
					return NotImplemented, nil
				}
				r, ok, err := seqOrder(th, dcTuple(o), dcTuple(p))
				if err != nil || !ok {
					return NotImplemented, err
				}
				return Bool(want(r)), nil
			})
		}
	}
	_, ownHash := c.dict.m["__hash__"]
	userHash := false
	if ownHash {
		_, isNone := c.dict.m["__hash__"].(NoneType)
		userHash = !isNone
	}
	switch {
	case userHash:
	case opts.unsafeHash || opts.eq && opts.frozen:
		set("__hash__", func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			h, err := hashTuple(th, dcTuple(recv.(*Instance)))
			return MakeInt(int64(h)), err
		})
	case opts.eq:
		c.dict.set("__hash__", None)
	}
	fd := NewDict()
	for _, f := range fields {
		fd.setStr(nil, f.name, f)
	}
	c.dict.set("__dataclass_fields__", fd)
	return c, nil
}

func dcOf(c *Class) *dataclassInfo {
	for _, m := range c.mro {
		if m.dc != nil {
			return m.dc
		}
	}
	return nil
}

// dcTuple is the tuple of an instance's compared fields.
func dcTuple(o *Instance) Tuple {
	var t Tuple
	for _, f := range dcOf(o.class).fields {
		if f.compare && !f.initVar {
			v, _ := o.dict.get(f.name)
			t = append(t, orNone(v))
		}
	}
	return t
}

func dcInit(th *Thread, c *Class, o *Instance, args []Value, kwargs []Kwarg) error {
	info := c.dc
	name := c.qualname + ".__init__"
	var pos, kwo []*dcField
	for _, f := range info.fields {
		if !f.init {
			continue
		}
		if f.kwOnly {
			kwo = append(kwo, f)
		} else {
			pos = append(pos, f)
		}
	}
	vals := map[string]Value{}
	if len(args) > len(pos) {
		min := 0
		for _, f := range pos {
			if f.def == nil && f.factory == nil {
				min++
			}
		}
		return takesPositional(name, min+1, len(pos)+1, len(args)+1)
	}
	for i, a := range args {
		vals[pos[i].name] = a
	}
	for _, kw := range kwargs {
		found := false
		for _, f := range append(append([]*dcField(nil), pos...), kwo...) {
			if f.name == kw.Name {
				if _, dup := vals[kw.Name]; dup {
					return Errorf("TypeError", "%s() got multiple values for argument '%s'", name, kw.Name)
				}
				vals[kw.Name] = kw.Value
				found = true
				break
			}
		}
		if !found {
			return Errorf("TypeError", "%s() got an unexpected keyword argument '%s'", name, kw.Name)
		}
	}
	var missing, missingKw []string
	for _, f := range pos {
		if _, ok := vals[f.name]; !ok && f.def == nil && f.factory == nil {
			missing = append(missing, f.name)
		}
	}
	for _, f := range kwo {
		if _, ok := vals[f.name]; !ok && f.def == nil && f.factory == nil {
			missingKw = append(missingKw, f.name)
		}
	}
	if len(missing) > 0 {
		return missingArgs(name, "positional", missing)
	}
	if len(missingKw) > 0 {
		return missingArgs(name, "keyword-only", missingKw)
	}
	var initVars []Value
	for _, f := range info.fields {
		v, ok := vals[f.name]
		if !ok {
			switch {
			case f.factory != nil:
				r, err := Call(th, f.factory, nil, nil)
				if err != nil {
					return err
				}
				v = r
			case f.def != nil:
				v = f.def
			default:
				continue
			}
		}
		if f.initVar {
			initVars = append(initVars, v)
			continue
		}
		setNS(th, o.serial, o.dict, f.name, v)
	}
	if pi := c.userLookup("__post_init__"); pi != nil {
		r, err := callMethod(th, o, pi, initVars, nil)
		if err != nil {
			return err
		}
		_ = r
	}
	return nil
}

func dcArg(fn string, v Value) (*Instance, *dataclassInfo, error) {
	o, ok := v.(*Instance)
	if ok {
		if info := dcOf(o.class); info != nil {
			return o, info, nil
		}
	}
	return nil, nil, Errorf("TypeError", "%s() should be called on dataclass instances", fn)
}

func dcFields(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("fields", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	var info *dataclassInfo
	switch x := args[0].(type) {
	case *Class:
		info = dcOf(x)
	case *Instance:
		info = dcOf(x.class)
	}
	if info == nil {
		return nil, Errorf("TypeError", "must be called with a dataclass type or instance")
	}
	var out Tuple
	for _, f := range info.fields {
		if !f.initVar {
			out = append(out, f)
		}
	}
	return out, nil
}

func dcIsDataclass(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("is_dataclass", args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	switch x := args[0].(type) {
	case *Class:
		return Bool(dcOf(x) != nil), nil
	case *Instance:
		return Bool(dcOf(x.class) != nil), nil
	}
	return False, nil
}

func dcAs(th *Thread, fn string, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) != 1 {
		return nil, Errorf("TypeError", "%s() takes 1 positional argument but %d were given", fn, len(args))
	}
	if _, _, err := dcArg(fn, args[0]); err != nil {
		return nil, err
	}
	var conv func(v Value) (Value, error)
	conv = func(v Value) (Value, error) {
		switch x := v.(type) {
		case *Instance:
			if info := dcOf(x.class); info != nil {
				if fn == "asdict" {
					d := NewDict()
					for _, f := range info.fields {
						if f.initVar {
							continue
						}
						fv, _ := x.dict.get(f.name)
						cv, err := conv(orNone(fv))
						if err != nil {
							return nil, err
						}
						d.setStr(th, f.name, cv)
					}
					return d, nil
				}
				var t Tuple
				for _, f := range info.fields {
					if f.initVar {
						continue
					}
					fv, _ := x.dict.get(f.name)
					cv, err := conv(orNone(fv))
					if err != nil {
						return nil, err
					}
					t = append(t, cv)
				}
				return t, nil
			}
			if t, ok := x.base.(Tuple); ok {
				// A namedtuple keeps its type.
				var elems Tuple
				for _, e := range t {
					cv, err := conv(e)
					if err != nil {
						return nil, err
					}
					elems = append(elems, cv)
				}
				return Call(th, x.class, elems, nil)
			}
		case *List:
			out := make([]Value, len(x.elems))
			for i, e := range x.elems {
				cv, err := conv(e)
				if err != nil {
					return nil, err
				}
				out[i] = cv
			}
			return NewList(out), nil
		case Tuple:
			out := make(Tuple, len(x))
			for i, e := range x {
				cv, err := conv(e)
				if err != nil {
					return nil, err
				}
				out[i] = cv
			}
			return out, nil
		case *Dict:
			d := &Dict{serial: nextSerial(), kind: x.kind, factory: x.factory}
			for _, kv := range x.Items() {
				k, err := conv(kv[0])
				if err != nil {
					return nil, err
				}
				val, err := conv(kv[1])
				if err != nil {
					return nil, err
				}
				if err := d.Set(th, k, val); err != nil {
					return nil, err
				}
			}
			return d, nil
		}
		return deepCopy(th, v, map[uint64]Value{})
	}
	return conv(args[0])
}

func dcReplace(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) != 1 {
		return nil, Errorf("TypeError", "replace() takes 1 positional argument but %d were given", len(args))
	}
	o, info, err := dcArg("replace", args[0])
	if err != nil {
		return nil, err
	}
	var kw []Kwarg
	changed := map[string]bool{}
	for _, k := range kwargs {
		changed[k.Name] = true
		kw = append(kw, k)
		ok := false
		for _, f := range info.fields {
			if f.name == k.Name {
				ok = true
				if !f.init {
					return nil, Errorf("ValueError", "field %s is declared with init=False, it cannot be specified with replace()", k.Name)
				}
			}
		}
		if !ok {
			return nil, Errorf("TypeError", "%s.__init__() got an unexpected keyword argument '%s'", o.class.qualname, k.Name)
		}
	}
	for _, f := range info.fields {
		if !f.init || changed[f.name] {
			continue
		}
		if f.initVar {
			if f.def == nil && f.factory == nil {
				return nil, Errorf("ValueError", "InitVar '%s' must be specified with replace()", f.name)
			}
			continue
		}
		v, _ := o.dict.get(f.name)
		kw = append(kw, Kwarg{Name: f.name, Value: orNone(v)})
	}
	return Call(th, o.class, nil, kw)
}
