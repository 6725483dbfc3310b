package tracer

type enumInfo struct {
	names  []string
	byName map[string]Value
}

func (e *enumInfo) members() []Value {
	out := make([]Value, len(e.names))
	for i, n := range e.names {
		out[i] = e.byName[n]
	}
	return out
}

type dataclassInfo struct{ frozen bool }

type unionType struct{ args []Value }

func (u *unionType) Type() string         { return "UnionType" }
func (u *unionType) String() string       { return "Union" }
func (u *unionType) Truth() (bool, error) { return true, nil }

type typingForm struct{ name string }

func (u *typingForm) Type() string         { return "_SpecialForm" }
func (u *typingForm) String() string       { return "typing." + u.name }
func (u *typingForm) Truth() (bool, error) { return true, nil }

var (
	enumBaseClass       = &Class{}
	intEnumBaseClass    = &Class{}
	strEnumBaseClass    = &Class{}
	enumMetaClass       = &Class{}
	abcMetaClass        = &Class{}
	namedTupleBaseClass = &Class{}
)

var stdlibModules = map[string]func(th *Thread) *Module{}

func makeEnum(th *Thread, c *Class) error              { return NotSupportedf("enum") }
func makeTypedNamedTuple(th *Thread, c *Class) error   { return NotSupportedf("NamedTuple") }
func enumLookup(th *Thread, c *Class, args []Value, kwargs []Kwarg) (Value, error) {
	return nil, NotSupportedf("enum")
}
