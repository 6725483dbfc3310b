// class.go: classes and instances. A *Class is every Python type the
// tracer knows: the builtin types (int, str, list, ...: their methods are
// nativeMethods in the class dict), the exception classes, classes
// defined in Go by the embedder (NewClass: nl.NKIObject), and the
// classes of class statements. Instances of Python classes are
// *Instance; an instance of a class derived from a builtin type (an
// IntEnum member, a namedtuple, `class Shape(tuple)`) carries the builtin
// value it extends in base, and operations the class does not define
// fall through to it.
//
// Attribute lookup follows CPython's: data descriptors (property) of the
// class first, then the instance dict, then the class's attributes
// along the MRO (C3 linearization), functions binding to the instance,
// staticmethod unwrapping and classmethod binding to the class, then
// __getattr__.
//
// Decisions: metaclasses are not supported (a `metaclass=` keyword is
// NotSupported, except ABCMeta, which is accepted and ignored); __slots__
// is an ordinary class attribute; __new__ of Python classes is honoured.
package tracer

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// methodFn is a method implemented in Go: recv is self.
type methodFn func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error)

// Class is a Python class.
type Class struct {
	name, qualname, module string
	bases                  []*Class
	mro                    []*Class
	dict                   *strDict
	serial                 uint64
	// goDefined: made in Go (NewClass or a builtin type); its *Builtin
	// members are methods that bind to the instance.
	goDefined bool
	// immutable: a builtin type, whose attributes cannot be set.
	immutable bool
	// newFn makes a value of a builtin type (int("3")); the nearest
	// newFn along the MRO makes the base value of an instance of a
	// class derived from a builtin type.
	newFn func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error)
	// isExc: a subclass of BaseException.
	isExc bool
	enum  *enumInfo
	dc    *dataclassInfo
	// th is the Thread that ran the class statement (nil for Go classes).
	th *Thread
	// subscriptable: Class[...] returns the class (typing generics).
	subscriptable bool
	// abcMeta: made with metaclass=ABCMeta (abstract methods checked).
	abcMeta bool
}

// NewClass returns a class defined in Go. Its members' *Builtin values are
// methods: looked up on an instance they bind to it (self is the first
// argument). Python classes may derive from it.
func NewClass(name string, bases []*Class, members map[string]Value) *Class {
	c := &Class{name: name, qualname: name, module: "builtins", dict: newStrDict(len(members)), serial: nextSerial(), goDefined: true}
	if len(bases) == 0 {
		bases = []*Class{objectClass}
	}
	c.bases = bases
	for _, k := range sortedKeys(members) {
		c.dict.set(k, members[k])
	}
	mro, err := c3(c)
	if err != nil {
		mro = append([]*Class{c}, objectClass)
	}
	c.mro = mro
	for _, b := range mro {
		if b == baseExceptionClass {
			c.isExc = true
		}
	}
	return c
}

// Name returns the class's name.
func (c *Class) Name() string { return c.name }

// Bases returns the direct base classes.
func (c *Class) Bases() []*Class { return c.bases }

// MRO returns the method resolution order (the class first).
func (c *Class) MRO() []*Class { return c.mro }

// Lookup returns the attribute name along the MRO (no binding).
func (c *Class) Lookup(name string) (Value, bool) {
	v, _ := c.lookup(name)
	return v, v != nil
}

// IsSubclass reports whether c derives from base (or is base).
func (c *Class) IsSubclass(base *Class) bool {
	for _, m := range c.mro {
		if m == base {
			return true
		}
	}
	return false
}

func (c *Class) lookup(name string) (Value, *Class) {
	for _, m := range c.mro {
		if v, ok := m.dict.m[name]; ok {
			return v, m
		}
	}
	return nil, nil
}

// userLookup is lookup limited to classes that are not builtin types
// (a user's dunder method, not object's or int's).
func (c *Class) userLookup(name string) Value {
	for _, m := range c.mro {
		if m.immutable {
			continue
		}
		if v, ok := m.dict.m[name]; ok {
			return v
		}
	}
	return nil
}

func (c *Class) Type() string { return "type" }
func (c *Class) String() string {
	if c.module == "builtins" || c.module == "" {
		return "<class '" + c.qualname + "'>"
	}
	return "<class '" + c.module + "." + c.qualname + "'>"
}
func (c *Class) Truth() (bool, error) { return true, nil }
func (c *Class) serialNumber() uint64 { return c.serial }

func (c *Class) Attr(th *Thread, name string) (Value, error) { return classAttr(th, c, name) }

func (c *Class) AttrNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range c.mro {
		for _, k := range m.dict.keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// SetAttr sets a class attribute (recorded on the undo trail).
func (c *Class) SetAttr(th *Thread, name string, v Value) error {
	if c.immutable || c.goDefined {
		return Errorf("TypeError", "cannot set '%s' attribute of immutable type '%s'", name, c.name)
	}
	setNS(th, c.serial, c.dict, name, v)
	return nil
}

// setNS assigns name in a namespace, recording the undo while speculating.
func setNS(th *Thread, serial uint64, d *strDict, name string, v Value) {
	if th != nil && th.spec > 0 {
		old, had := d.m[name]
		th.recordMutation(serial, func() {
			if had {
				d.m[name] = old
			} else {
				d.del(name)
			}
		})
	}
	d.set(name, v)
}

// delNS deletes name from a namespace, recording the undo.
func delNS(th *Thread, serial uint64, d *strDict, name string) bool {
	old, had := d.m[name]
	if !had {
		return false
	}
	if th != nil && th.spec > 0 {
		th.recordMutation(serial, func() { d.set(name, old) })
	}
	d.del(name)
	return true
}

// c3 computes the C3 linearization of c.
func c3(c *Class) ([]*Class, error) {
	var seqs [][]*Class
	for _, b := range c.bases {
		seqs = append(seqs, append([]*Class(nil), b.mro...))
	}
	seqs = append(seqs, append([]*Class(nil), c.bases...))
	out := []*Class{c}
	for {
		nonEmpty := seqs[:0]
		for _, s := range seqs {
			if len(s) > 0 {
				nonEmpty = append(nonEmpty, s)
			}
		}
		seqs = nonEmpty
		if len(seqs) == 0 {
			return out, nil
		}
		var cand *Class
		for _, s := range seqs {
			head := s[0]
			inTail := false
			for _, t := range seqs {
				for _, x := range t[1:] {
					if x == head {
						inTail = true
						break
					}
				}
				if inTail {
					break
				}
			}
			if !inTail {
				cand = head
				break
			}
		}
		if cand == nil {
			names := make([]string, len(c.bases))
			for i, b := range c.bases {
				names[i] = b.name
			}
			return nil, Errorf("TypeError", "Cannot create a consistent method resolution\norder (MRO) for bases %s", strings.Join(names, ", "))
		}
		out = append(out, cand)
		for i, s := range seqs {
			if s[0] == cand {
				seqs[i] = s[1:]
			}
		}
	}
}

// nativeNew returns the nearest builtin constructor along the MRO (the
// builtin type an instance extends), or nil.
func (c *Class) nativeNew() (*Class, func(th *Thread, cls *Class, args []Value, kwargs []Kwarg) (Value, error)) {
	for _, m := range c.mro {
		if m.newFn != nil && m != objectClass {
			return m, m.newFn
		}
	}
	return nil, nil
}

// ---------------------------------------------------------------------------
// Instances.

// Instance is an instance of a Python class (or of a Go class derived
// from in Python).
type Instance struct {
	class  *Class
	dict   *strDict
	serial uint64
	// base is the builtin value an instance of a class derived from a
	// builtin type extends (nil otherwise).
	base Value
	// args are an exception's arguments (BaseException.args).
	args Tuple
	th   *Thread
	// hashing guards __hash__ recursion; frozen marks a dataclass
	// instance whose __init__ finished.
	frozen bool
}

// NewInstance returns an instance of cls without running __init__ (Go
// code that makes objects of its own classes).
func NewInstance(th *Thread, cls *Class) *Instance {
	return &Instance{class: cls, dict: newStrDict(4), serial: nextSerial(), th: th}
}

// Class returns the instance's class.
func (o *Instance) Class() *Class { return o.class }

// Base returns the builtin value the instance extends (nil when none).
func (o *Instance) Base() Value { return o.base }

// Get returns the instance attribute name (its own dict only).
func (o *Instance) Get(name string) (Value, bool) { return o.dict.get(name) }

func (o *Instance) Type() string         { return o.class.name }
func (o *Instance) serialNumber() uint64 { return o.serial }

func (o *Instance) String() string {
	if o.th != nil {
		if s, err := toStr(o.th, o); err == nil {
			return s
		}
	}
	return o.defaultRepr()
}

func (o *Instance) Repr() string {
	if o.th != nil {
		if s, err := toRepr(o.th, o); err == nil {
			return s
		}
	}
	return o.defaultRepr()
}

func (o *Instance) defaultRepr() string {
	if o.class.isExc {
		return excRepr(o)
	}
	mod := o.class.module
	if mod == "" {
		mod = "__main__"
	}
	return "<" + mod + "." + o.class.qualname + " object at 0x" + strconv.FormatUint(0x7f0000000000+o.serial*16, 16) + ">"
}

func (o *Instance) Truth() (bool, error) {
	th := o.th
	if th == nil {
		th = &Thread{}
		th.defaults()
	}
	return truthOfInstance(th, o)
}

func truthOfInstance(th *Thread, o *Instance) (bool, error) {
	if f := o.class.userLookup("__bool__"); f != nil {
		r, err := callMethod(th, o, f, nil, nil)
		if err != nil {
			return false, err
		}
		b, ok := r.(Bool)
		if !ok {
			return false, Errorf("TypeError", "__bool__ should return bool, returned %s", r.Type())
		}
		return bool(b), nil
	}
	if f := o.class.userLookup("__len__"); f != nil {
		r, err := callMethod(th, o, f, nil, nil)
		if err != nil {
			return false, err
		}
		n, err := AsInt64(th, r)
		if err != nil {
			return false, err
		}
		return n != 0, nil
	}
	if o.base != nil {
		return o.base.Truth()
	}
	return true, nil
}

func (o *Instance) hash(th *Thread) (uint64, error) {
	// A class statement defining __eq__ without __hash__ stores
	// __hash__ = None, as CPython does.
	switch f := o.class.userLookup("__hash__"); f.(type) {
	case nil:
	case NoneType:
		return 0, Errorf("TypeError", "unhashable type: '%s'", o.class.name)
	default:
		r, err := callMethod(th, o, f, nil, nil)
		if err != nil {
			return 0, err
		}
		n, ok := r.(Int)
		if !ok {
			return 0, Errorf("TypeError", "__hash__ method should return an integer")
		}
		return uint64(hashInt(n)), nil
	}
	if o.base != nil {
		return hashValue(th, o.base)
	}
	return o.serial * 0x9e3779b97f4a7c15, nil
}

// callMethod calls the class attribute f (a function, native method or
// any callable) with self first.
func callMethod(th *Thread, self Value, f Value, args []Value, kwargs []Kwarg) (Value, error) {
	switch m := f.(type) {
	case *nativeMethod:
		// A builtin type's method on an instance of a class deriving
		// from it works on the value the instance extends.
		if o, ok := self.(*Instance); ok && o.base != nil && m.cls != nil && m.cls.immutable && m.cls != objectClass {
			return m.fn(th, o.base, args, kwargs)
		}
		return m.fn(th, self, args, kwargs)
	case *StaticMethod:
		return Call(th, m.Func, args, kwargs)
	case *ClassMethod:
		return Call(th, m.Func, append([]Value{typeOf(self)}, args...), kwargs)
	}
	all := make([]Value, 0, len(args)+1)
	all = append(all, self)
	all = append(all, args...)
	return Call(th, f, all, kwargs)
}

// dunder looks up a user-defined special method of v's class (nil when
// v is not an instance or its class does not define it).
func dunder(v Value, name string) Value {
	o, ok := v.(*Instance)
	if !ok {
		return nil
	}
	return o.class.userLookup(name)
}

// ---------------------------------------------------------------------------
// Descriptors and native methods.

// nativeMethod is a method implemented in Go, stored in a class dict: it
// binds to the instance it is looked up on.
type nativeMethod struct {
	name string
	fn   methodFn
	cls  *Class
}

func (m *nativeMethod) Type() string { return "method_descriptor" }
func (m *nativeMethod) String() string {
	owner := "object"
	if m.cls != nil {
		owner = m.cls.name
	}
	return "<method '" + m.name + "' of '" + owner + "' objects>"
}
func (m *nativeMethod) Truth() (bool, error) { return true, nil }
func (m *nativeMethod) Name() string         { return m.name }
func (m *nativeMethod) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if len(args) == 0 {
		owner := "object"
		if m.cls != nil {
			owner = m.cls.name
		}
		return nil, Errorf("TypeError", "unbound method %s.%s() needs an argument", owner, m.name)
	}
	return m.fn(th, args[0], args[1:], kwargs)
}

// StaticMethod is staticmethod(f).
type StaticMethod struct{ Func Value }

func (s *StaticMethod) Type() string         { return "staticmethod" }
func (s *StaticMethod) String() string       { return "<staticmethod(" + Repr(s.Func) + ")>" }
func (s *StaticMethod) Truth() (bool, error) { return true, nil }
func (s *StaticMethod) Name() string         { return callableName(s.Func) }
func (s *StaticMethod) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return Call(th, s.Func, args, kwargs)
}

// ClassMethod is classmethod(f).
type ClassMethod struct{ Func Value }

func (s *ClassMethod) Type() string         { return "classmethod" }
func (s *ClassMethod) String() string       { return "<classmethod(" + Repr(s.Func) + ")>" }
func (s *ClassMethod) Truth() (bool, error) { return true, nil }

// Property is property(fget, fset, fdel).
type Property struct {
	Get, Set, Del Value // nil when absent
	doc           Value
}

func (p *Property) Type() string         { return "property" }
func (p *Property) String() string       { return "<property object>" }
func (p *Property) Truth() (bool, error) { return true, nil }
func (p *Property) Attr(th *Thread, name string) (Value, error) {
	mk := func(which string) Value {
		return NewBuiltin(which, func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) != 1 || len(kwargs) != 0 {
				return nil, Errorf("TypeError", "%s() takes exactly one argument (%d given)", which, len(args))
			}
			q := *p
			switch which {
			case "getter":
				q.Get = args[0]
			case "setter":
				q.Set = args[0]
			case "deleter":
				q.Del = args[0]
			}
			return &q, nil
		})
	}
	switch name {
	case "getter", "setter", "deleter":
		return mk(name), nil
	case "fget":
		return orNone(p.Get), nil
	case "fset":
		return orNone(p.Set), nil
	case "fdel":
		return orNone(p.Del), nil
	case "__doc__":
		return orNone(p.doc), nil
	}
	return nil, nil
}
func (p *Property) AttrNames() []string {
	return []string{"deleter", "fdel", "fget", "fset", "getter", "setter"}
}

func orNone(v Value) Value {
	if v == nil {
		return None
	}
	return v
}

// superObj is super(cls, obj).
type superObj struct {
	cls *Class // search starts after cls in obj's MRO
	obj Value  // an instance, or a class (classmethods)
}

func (s *superObj) Type() string { return "super" }
func (s *superObj) String() string {
	return "<super: <class '" + s.cls.name + "'>, <" + s.obj.Type() + " object>>"
}
func (s *superObj) Truth() (bool, error) { return true, nil }

func (s *superObj) Attr(th *Thread, name string) (Value, error) {
	var mro []*Class
	objCls, isCls := s.obj.(*Class)
	if isCls {
		mro = objCls.mro
	} else {
		mro = typeOf(s.obj).mro
	}
	i := 0
	for i < len(mro) && mro[i] != s.cls {
		i++
	}
	for _, m := range mro[i+1:] {
		v, ok := m.dict.m[name]
		if !ok {
			continue
		}
		if isCls {
			return bindClassAttr(objCls, v), nil
		}
		return bindAttr(th, s.obj, m, v)
	}
	return nil, nil
}
func (s *superObj) AttrNames() []string { return nil }

// bindAttr binds the class attribute v (found in owner) to the instance.
func bindAttr(th *Thread, obj Value, owner *Class, v Value) (Value, error) {
	switch f := v.(type) {
	case *Function:
		return &BoundMethod{Self: obj, Func: f}, nil
	case *nativeMethod:
		if o, ok := obj.(*Instance); ok && o.base != nil && f.cls != nil && f.cls.immutable && f.cls != objectClass {
			return &Builtin{name: f.name, recv: o.base, method: f.fn}, nil
		}
		return &Builtin{name: f.name, recv: obj, method: f.fn}, nil
	case *Builtin:
		if owner != nil && owner.goDefined && f.recv == nil {
			return &BoundMethod{Self: obj, Func: f}, nil
		}
		return f, nil
	case *StaticMethod:
		return f.Func, nil
	case *ClassMethod:
		return &BoundMethod{Self: typeOf(obj), Func: f.Func}, nil
	case *Property:
		if f.Get == nil {
			return nil, Errorf("AttributeError", "property of '%s' object has no getter", obj.Type())
		}
		return Call(th, f.Get, []Value{obj}, nil)
	}
	return v, nil
}

// bindClassAttr binds a class attribute looked up on the class itself.
func bindClassAttr(cls *Class, v Value) Value {
	switch f := v.(type) {
	case *StaticMethod:
		return f.Func
	case *ClassMethod:
		return &BoundMethod{Self: cls, Func: f.Func}
	}
	return v
}

// classAttr is getattr(cls, name).
func classAttr(th *Thread, c *Class, name string) (Value, error) {
	if v, _ := c.lookup(name); v != nil {
		if d, ok := v.(*Instance); ok && th != nil {
			if get := d.class.userLookup("__get__"); get != nil {
				return callMethod(th, d, get, []Value{None, c}, nil)
			}
		}
		return bindClassAttr(c, v), nil
	}
	switch name {
	case "__name__":
		return String(c.name), nil
	case "__qualname__":
		return String(c.qualname), nil
	case "__module__":
		return String(c.module), nil
	case "__mro__":
		t := make(Tuple, len(c.mro))
		for i, m := range c.mro {
			t[i] = m
		}
		return t, nil
	case "__bases__":
		t := make(Tuple, len(c.bases))
		for i, m := range c.bases {
			t[i] = m
		}
		return t, nil
	case "__base__":
		if len(c.bases) == 0 {
			return None, nil
		}
		return c.bases[0], nil
	case "__dict__":
		d := NewDict()
		for _, k := range c.dict.keys {
			d.setStr(nil, k, c.dict.m[k])
		}
		return d, nil
	case "__doc__":
		return None, nil
	case "__class__":
		return typeClass, nil
	case "__members__":
		if c.enum != nil {
			d := NewDict()
			for _, k := range c.enum.allNames {
				d.setStr(nil, k, c.enum.byName[k])
			}
			return d, nil
		}
	}
	return nil, nil
}

// instanceAttr is getattr(o, name) for an instance of a Python class.
func instanceAttr(th *Thread, o *Instance, name string) (Value, error) {
	cv, owner := o.class.lookup(name)
	if p, ok := cv.(*Property); ok {
		return bindAttr(th, o, owner, p)
	}
	// A user descriptor: a data descriptor (with __set__ or __delete__)
	// takes precedence over the instance dict, a non-data one follows it.
	var get Value
	if d, ok := cv.(*Instance); ok {
		if get = d.class.userLookup("__get__"); get != nil {
			if d.class.userLookup("__set__") != nil || d.class.userLookup("__delete__") != nil {
				return callMethod(th, d, get, []Value{o, o.class}, nil)
			}
		}
	}
	if v, ok := o.dict.m[name]; ok {
		return v, nil
	}
	if get != nil {
		return callMethod(th, cv, get, []Value{o, o.class}, nil)
	}
	if cp, ok := cv.(*cachedProperty); ok {
		v, err := Call(th, cp.fn, []Value{o}, nil)
		if err != nil {
			return nil, err
		}
		setNS(th, o.serial, o.dict, name, v)
		return v, nil
	}
	if cv != nil {
		if owner.immutable && o.base != nil {
			// A method of the builtin type the instance extends:
			// bound to the base value.
			if nm, ok := cv.(*nativeMethod); ok && owner != objectClass {
				return &Builtin{name: nm.name, recv: o.base, method: nm.fn}, nil
			}
		}
		return bindAttr(th, o, owner, cv)
	}
	switch name {
	case "__class__":
		return o.class, nil
	case "__dict__":
		d := NewDict()
		for _, k := range o.dict.keys {
			d.setStr(nil, k, o.dict.m[k])
		}
		return d, nil
	case "args":
		if o.class.isExc {
			return o.args, nil
		}
	case "__cause__", "__context__", "__traceback__":
		if o.class.isExc {
			return None, nil
		}
	}
	if o.base != nil {
		if v, err := getAttr(th, o.base, name); err == nil && v != nil {
			return v, nil
		}
	}
	if ga := o.class.userLookup("__getattr__"); ga != nil {
		return callMethod(th, o, ga, []Value{String(name)}, nil)
	}
	return nil, nil
}

// setInstanceAttr is o.name = v.
func setInstanceAttr(th *Thread, o *Instance, name string, v Value) error {
	if o.class.enum != nil {
		switch name {
		case "name", "value", "_name_", "_value_":
			return Errorf("AttributeError", "property '%s' of '%s' object has no setter", name, o.class.name)
		}
	}
	cv, _ := o.class.lookup(name)
	if p, ok := cv.(*Property); ok {
		if p.Set == nil {
			return Errorf("AttributeError", "property '%s' of '%s' object has no setter", name, o.class.name)
		}
		_, err := Call(th, p.Set, []Value{o, v}, nil)
		return err
	}
	if d, ok := cv.(*Instance); ok {
		if set := d.class.userLookup("__set__"); set != nil {
			_, err := callMethod(th, d, set, []Value{o, v}, nil)
			return err
		}
	}
	if o.frozen {
		if dc := dcOf(o.class); dc != nil && dc.frozen {
			return frozenError(th, name)
		}
	}
	if sa := o.class.userLookup("__setattr__"); sa != nil {
		_, err := callMethod(th, o, sa, []Value{String(name), v}, nil)
		return err
	}
	setNS(th, o.serial, o.dict, name, v)
	return nil
}

// ---------------------------------------------------------------------------
// The classes of values.

var dynClasses sync.Map // type name -> *Class, for foreign values

// HasClass is implemented by foreign values that belong to a Go-defined
// class (type(v), isinstance(v, C) use it); values without it get a
// synthetic class named by their Type().
type HasClass interface {
	Value
	PyClass() *Class
}

// typeOf returns type(v).
func typeOf(v Value) *Class {
	switch x := v.(type) {
	case *Instance:
		return x.class
	case Int:
		return intClass
	case String:
		return strClass
	case Float:
		return floatClass
	case Bool:
		return boolClass
	case NoneType:
		return noneTypeClass
	case Tuple:
		return tupleClass
	case *List:
		return listClass
	case *Dict:
		switch x.kind {
		case "defaultdict":
			return defaultdictClass
		case "OrderedDict":
			return orderedDictClass
		case "Counter":
			return counterClass
		}
		return dictClass
	case *Set:
		if x.frozen {
			return frozensetClass
		}
		return setClass
	case *Class:
		return typeClass
	case *Range:
		return rangeClass
	case *Slice:
		return sliceClass
	case HasClass:
		return x.PyClass()
	}
	name := v.Type()
	if c, ok := dynClasses.Load(name); ok {
		return c.(*Class)
	}
	c := &Class{name: name, qualname: name, module: "builtins", dict: newStrDict(0), serial: nextSerial(), immutable: true, bases: []*Class{objectClass}}
	c.mro = []*Class{c, objectClass}
	actual, _ := dynClasses.LoadOrStore(name, c)
	return actual.(*Class)
}

// TypeOf returns type(v) as a class.
func TypeOf(v Value) *Class { return typeOf(v) }

// IsInstance reports isinstance(v, cls).
func IsInstance(v Value, cls *Class) bool { return typeOf(v).IsSubclass(cls) }
