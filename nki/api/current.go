package api

// The current NKI API (NKI 0.2 and later, the `nki` package): the module
// tree Import serves for "nki", "nki.language", "nki.isa", "nki.typing",
// "nki.collectives" and "nki.compiler", built on the legacy binding's values and
// lowering (a name both APIs keep shares its implementation; docs/nki.md
// lists every name with its status).
//
// What differs from neuronxcc.nki (the NKI 0.2 migration guide, "What
// features in neuronxcc.nki.* are not available in nki.*"):
//
//   - every nki.isa instruction writes a destination given first (dst=),
//     and returns None (current_isa.go);
//   - no mask= parameter, no index grids (nl.arange, nl.mgrid), no block
//     dimensions (nl.par_dim): slices, nl.ds and .ap() views instead;
//   - nl.ndarray(..., address=(partition, byte)) places a tensor
//     (direct allocation);
//   - loops follow Python (rulePython, trace.go): a loop over
//     nl.affine_range / nl.sequential_range is kept only when keeping it
//     computes what Python would;
//   - enums (nisa.engine, nisa.dge_mode, nisa.oob_mode, nisa.reduce_cmd,
//     nisa.nc_version, nisa.dma_engine) are classes whose members kernels
//     compare with ==, `is` and isinstance;
//   - virtual registers and runtime loops (nl.dynamic_range, `while reg:`;
//     register.go).
//
// NKI 0.3 brought back convenience functions in nki.language ("wrappers
// around nki.isa APIs ... nl.load, nl.store, nl.copy, nl.matmul,
// nl.transpose, nl.softmax, and other high-level operations"): the legacy
// nl functions serve them, without mask=.

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// ---------------------------------------------------------------------------
// Enums.

// EnumMember is a member of one of nki.isa's enums. Members are
// package-level singletons, so that `is` and == compare them across the
// module trees Import builds (each import statement gets its own tree).
type EnumMember struct {
	cls   *tracer.Class
	enum  string
	name  string
	value int64
	eng   *Engine // a member of nisa.engine: the engine it selects
}

func (e *EnumMember) Type() string           { return e.enum }
func (e *EnumMember) String() string         { return e.enum + "." + e.name }
func (e *EnumMember) Repr() string           { return fmt.Sprintf("<%s.%s: %d>", e.enum, e.name, e.value) }
func (e *EnumMember) Truth() (bool, error)   { return true, nil }
func (e *EnumMember) PyClass() *tracer.Class { return e.cls }

// Hash makes members dict keys.
func (e *EnumMember) Hash(th *tracer.Thread) (uint64, error) {
	h := uint64(1469598103934665603)
	for _, c := range e.String() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h, nil
}

// Attr gives .name and .value.
func (e *EnumMember) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	switch name {
	case "name", "_name_":
		return tracer.String(e.name), nil
	case "value", "_value_":
		return tracer.MakeInt(e.value), nil
	}
	return nil, nil
}

func (e *EnumMember) AttrNames() []string { return []string{"name", "value"} }

// enumClass is one enum: its class (a Go-defined class, immutable) and its
// members in definition order.
type enumClass struct {
	cls     *tracer.Class
	members []*EnumMember
	byName  map[string]*EnumMember
}

func newEnum(name string, members ...any) *enumClass {
	e := &enumClass{byName: map[string]*EnumMember{}}
	dict := map[string]tracer.Value{}
	for i := 0; i+1 < len(members); i += 2 {
		m := &EnumMember{enum: name, name: members[i].(string), value: int64(members[i+1].(int))}
		e.members = append(e.members, m)
		e.byName[m.name] = m
		dict[m.name] = m
	}
	e.cls = tracer.NewClass(name, nil, dict)
	for _, m := range e.members {
		m.cls = e.cls
	}
	return e
}

func (e *enumClass) get(name string) *EnumMember { return e.byName[name] }

// The enums of nki.isa (the stub's values).
var (
	enumEngine    = newEnum("engine", "unknown", 0, "tensor", 1, "scalar", 2, "gpsimd", 3, "dma", 4, "vector", 5, "sync", 6)
	enumDGEMode   = newEnum("dge_mode", "unknown", 0, "swdge", 1, "hwdge", 2, "none", 3)
	enumNCVersion = newEnum("nc_version", "gen2", 2, "gen3", 3, "gen4", 4)
	enumOOBMode   = newEnum("oob_mode", "error", 0, "skip", 1)
	enumReduceCmd = newEnum("reduce_cmd", "idle", 0, "reset", 1, "reduce", 2, "reset_reduce", 3, "load_reduce", 4)
	// dma_engine (NKI 0.3): the DMA engines of a transfer.
	enumDMAEngine = newEnum("dma_engine", "dma", 0, "gpsimd_dma", 1)
)

func init() {
	enumEngine.get("tensor").eng = engTensor
	enumEngine.get("vector").eng = engVector
	enumEngine.get("scalar").eng = engScalar
	enumEngine.get("gpsimd").eng = engGpSimd
	enumEngine.get("dma").eng = engDMA
	enumEngine.get("unknown").eng = engUnknown
	enumEngine.get("sync").eng = &Engine{name: "sync_engine", eng: bir.EngSP, set: true}
}

// enumArg converts an enum argument: a member of e, or None (def). Raw
// integers are refused, as NKI 0.3 refuses them ("Integer Enum Constants
// No Longer Supported").
func enumArg(v tracer.Value, e *enumClass, def, what, param string) (string, error) {
	switch m := v.(type) {
	case nil, tracer.NoneType:
		return def, nil
	case *EnumMember:
		if m.cls == e.cls {
			return m.name, nil
		}
	}
	names := make([]string, len(e.members))
	for i, m := range e.members {
		names[i] = "nisa." + m.String()
	}
	return "", typeErrorf("%s: %s= takes a member of nisa.%s (%s), not %s", what, param, e.cls.Name(), strings.Join(names, ", "), tracer.Repr(v))
}

// ---------------------------------------------------------------------------
// The module tree.

// currentLanguage is the nki.language module's own entries (the rest are
// the legacy functions, without mask=).
var currentLanguage = map[string]tracer.Value{}

// currentISA is the nki.isa module's functions.
var currentISA = map[string]tracer.Value{}

// legacyOnly are the neuronxcc.nki.language names the current API removed
// (the migration guide: "arange has been removed", "Block dimensions of
// tensors have been removed") or replaced.
var legacyOnly = map[string]bool{
	"arange": true, "mgrid": true, "par_dim": true, "spmd_dim": true, "nc": true,
	"affine_range": true, "sequential_range": true, "static_range": true,
}

// noMask wraps a legacy nl function for the current API: the same
// function, refusing mask= (the migration guide: "The mask parameter is
// no longer supported").
func noMask(o *Op) *Op {
	if o.fn == nil {
		return o
	}
	w := *o
	fn := o.fn
	w.fn = func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		for _, kw := range kwargs {
			if kw.Name == "mask" {
				return nil, nkiErrorf("%s(mask=...): the current nki API has no mask parameter (NKI 0.2 migration guide, \"Deprecation of masking\"): bound the access with slices, e.g. min(n, start + size)", o.name)
			}
		}
		return fn(th, args, kwargs)
	}
	return &w
}

func currentLanguageModule(name string) *tracer.Module {
	m := map[string]tracer.Value{}
	for n, v := range languageMembers() {
		if legacyOnly[n] {
			continue
		}
		if o, ok := v.(*Op); ok {
			v = noMask(o)
		}
		m[n] = v
	}
	for n, v := range currentLanguage {
		m[n] = v
	}
	m["float8_e4m3fn"] = dtypeValue(bir.Float8E4M3FN)
	m["float8_e5m2_x4"] = dtypeValue(bir.Float8E5M2x4)
	m["float8_e4m3fn_x4"] = dtypeValue(bir.Float8E4M3FNx4)
	m["float4_e2m1fn_x4"] = &Dtype{dt: bir.Float4E2M1FNx4, name: "float4_e2m1fn_x4"}
	m["NkiTensor"] = &annotation{name: "nl.NkiTensor"}
	return tracer.NewModule(name, m)
}

func currentISAModule(name string) *tracer.Module {
	m := map[string]tracer.Value{}
	for n, v := range currentISA {
		m[n] = v
	}
	m["engine"], m["dge_mode"], m["nc_version"] = enumEngine.cls, enumDGEMode.cls, enumNCVersion.cls
	m["oob_mode"], m["reduce_cmd"], m["dma_engine"] = enumOOBMode.cls, enumReduceCmd.cls, enumDMAEngine.cls
	// The module-level engine constants (deprecated: "use engine.tensor").
	m["tensor_engine"], m["vector_engine"], m["scalar_engine"] = enumEngine.get("tensor"), enumEngine.get("vector"), enumEngine.get("scalar")
	m["gpsimd_engine"], m["unknown_engine"] = enumEngine.get("gpsimd"), enumEngine.get("unknown")
	return tracer.NewModule(name, m)
}

// Directive is a scheduling or allocation hint of nki.compiler
// (no_reorder(), allocation_scope(), multi_buffer(factor)): a value that
// is also a context manager doing nothing (narwhal's passes order and
// place instructions themselves).
type Directive struct{ name string }

func (d *Directive) Type() string         { return "directive" }
func (d *Directive) String() string       { return d.name }
func (d *Directive) Truth() (bool, error) { return true, nil }

// Enter and Exit make `with ncc.no_reorder():` run its body unchanged.
func (d *Directive) Enter(th *tracer.Thread) (tracer.Value, error) { return d, nil }
func (d *Directive) Exit(th *tracer.Thread, err error) error       { return err }

func directive(name string) *tracer.Builtin {
	return tracer.NewBuiltin(name, func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		return &Directive{name: name}, nil
	})
}

// currentModules builds the module tree of the current API.
func currentModules() map[string]*tracer.Module {
	out := map[string]*tracer.Module{}
	nl := currentLanguageModule("nki.language")
	isa := currentISAModule("nki.isa")
	typing := typingModule("nki.typing")
	cc := collectivesModule("nki.collectives")
	comp := compilerModules("nki.compiler")
	for name, m := range comp {
		out[name] = m
	}
	c := comp["nki.compiler"]
	// The current nki.compiler's directives: scheduling and allocation
	// hints narwhal's own pipeline does without.
	c.Set("allocation_scope", directive("ncc.allocation_scope"))
	c.Set("no_reorder", directive("ncc.no_reorder"))
	c.Set("multi_buffer", directive("ncc.multi_buffer"))
	nki := tracer.NewModule("nki", map[string]tracer.Value{
		"language": nl, "isa": isa, "typing": typing, "collectives": cc, "compiler": c,
		"jit": decorator("nki.jit"), "trace": decorator("nki.trace"), "baremetal": decorator("nki.baremetal"),
		"benchmark": decorator("nki.benchmark"), "profile": decorator("nki.profile"),
		"simulate_kernel": tracer.NewBuiltin("nki.simulate_kernel", simulateKernel),
		"simulate":        tracer.NewBuiltin("nki.simulate", simulateKernel),
	})
	out["nki"] = nki
	out["nki.language"] = nl
	out["nki.isa"] = isa
	out["nki.typing"] = typing
	out["nki.collectives"] = cc
	return out
}
