package api

// The neuronxcc and neuronxcc.nki modules: nki.jit and the other kernel
// decorators, nki.typing, and the module tree Import serves.

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// JitKernel is a kernel function decorated with nki.jit (or wrapped by
// nki.jit(f), nki.trace, nki.baremetal, nki.benchmark, nki.profile):
// narwhal traces the function; the decorator's options are ignored.
// kernel[grid] gives the kernel with a launch grid.
type JitKernel struct {
	fn   tracer.Value
	deco string
	grid tracer.Value
}

func (j *JitKernel) Type() string         { return "kernel" }
func (j *JitKernel) String() string       { return "<nki kernel " + j.Name() + ">" }
func (j *JitKernel) Truth() (bool, error) { return true, nil }

// Name is the function's name.
func (j *JitKernel) Name() string {
	if c, ok := j.fn.(tracer.Callable); ok {
		return c.Name()
	}
	return "kernel"
}

// Call calls the kernel function: a kernel called from Python code (a
// helper kernel called by another) is traced inline; a launch with a grid
// from Python is not supported (the grid comes from --grid).
func (j *JitKernel) Call(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if j.grid != nil {
		return nil, notSupportedf("launching %s[%s] from Python: narwhal traces one kernel, launched with --grid", j.Name(), tracer.Repr(j.grid))
	}
	if current(th) == nil {
		return nil, notSupportedf("calling the kernel %s outside a trace (narwhal runs kernels with `narwhal run`; calls at a module's top level are not run)", j.Name())
	}
	return tracer.Call(th, j.fn, args, kwargs)
}

// Index gives kernel[grid].
func (j *JitKernel) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	return &JitKernel{fn: j.fn, deco: j.deco, grid: key}, nil
}

// Attr gives the wrapped function's __name__ and the function itself.
func (j *JitKernel) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	switch name {
	case "__name__":
		return tracer.String(j.Name()), nil
	case "func", "__wrapped__":
		return j.fn, nil
	}
	return nil, nil
}

func (j *JitKernel) AttrNames() []string { return []string{"__name__", "__wrapped__", "func"} }

// decorator builds nki.jit and its siblings: @d, @d(...) and d(f, ...).
func decorator(name string) *tracer.Builtin {
	return tracer.NewBuiltin(name, func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		if len(args) >= 1 {
			if _, ok := args[0].(tracer.Callable); ok {
				return wrapKernel(name, args[0]), nil
			}
			if !isNone(args[0]) {
				return nil, typeErrorf("%s decorates a kernel function, not %s", name, args[0].Type())
			}
		}
		// @nki.jit(mode=...) or nki.jit(func=None, ...): a decorator.
		for _, kw := range kwargs {
			if kw.Name == "func" || kw.Name == "kernel" {
				if _, ok := kw.Value.(tracer.Callable); ok {
					return wrapKernel(name, kw.Value), nil
				}
			}
		}
		return tracer.NewBuiltin(name, func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			if len(args) != 1 || len(kwargs) != 0 {
				return nil, typeErrorf("the %s(...) decorator takes the kernel function", name)
			}
			if _, ok := args[0].(tracer.Callable); !ok {
				return nil, typeErrorf("%s decorates a kernel function, not %s", name, args[0].Type())
			}
			return wrapKernel(name, args[0]), nil
		}), nil
	})
}

func wrapKernel(deco string, fn tracer.Value) tracer.Value {
	if j, ok := fn.(*JitKernel); ok {
		return j
	}
	return &JitKernel{fn: fn, deco: deco}
}

func simulateKernel(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return nil, notSupportedf("nki.simulate_kernel runs a kernel in NKI's numpy simulator; narwhal runs it with `narwhal run FILE.py --kernel NAME` (calls at a module's top level are not run)")
}

// typingModule is nki.typing: annotations (nt.tensor[...], nt.mutable_tensor)
// evaluate to placeholders so that annotated kernels load.
func typingModule(name string) *tracer.Module {
	m := map[string]tracer.Value{}
	for _, n := range []string{"tensor", "mutable_tensor", "shared", "private", "scalar"} {
		m[n] = &annotation{name: "nt." + n}
	}
	return tracer.NewModule(name, m)
}

// annotation is a subscriptable, callable placeholder.
type annotation struct{ name string }

func (a *annotation) Type() string         { return "annotation" }
func (a *annotation) String() string       { return a.name }
func (a *annotation) Truth() (bool, error) { return true, nil }
func (a *annotation) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	return a, nil
}
func (a *annotation) Name() string { return a.name }
func (a *annotation) Call(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return a, nil
}

// modules builds the module tree of the legacy API: neuronxcc,
// neuronxcc.nki and its submodules, numpy.
func modules() map[string]*tracer.Module {
	out := map[string]*tracer.Module{}
	nl := languageModule("neuronxcc.nki.language")
	isa := isaModule("neuronxcc.nki.isa")
	typing := typingModule("neuronxcc.nki.typing")
	for name, m := range compilerModules("neuronxcc.nki.compiler") {
		out[name] = m
	}
	nki := tracer.NewModule("neuronxcc.nki", map[string]tracer.Value{
		"language": nl, "isa": isa, "compiler": out["neuronxcc.nki.compiler"], "typing": typing,
		"jit": decorator("nki.jit"), "trace": decorator("nki.trace"), "baremetal": decorator("nki.baremetal"),
		"benchmark": decorator("nki.benchmark"), "profile": decorator("nki.profile"),
		"simulate_kernel": tracer.NewBuiltin("nki.simulate_kernel", simulateKernel),
	})
	out["neuronxcc"] = tracer.NewModule("neuronxcc", map[string]tracer.Value{"nki": nki})
	out["neuronxcc.nki"] = nki
	out["neuronxcc.nki.language"] = nl
	out["neuronxcc.nki.isa"] = isa
	out["neuronxcc.nki.typing"] = typing
	np := numpyModule("numpy")
	out["numpy"] = np
	return out
}

// Import returns the NKI or numpy module of the dotted name: the legacy
// API ("neuronxcc", "neuronxcc.nki", "neuronxcc.nki.language",
// "neuronxcc.nki.isa", "neuronxcc.nki.compiler",
// "neuronxcc.nki.compiler.sbuf", "neuronxcc.nki.typing"), the current API
// ("nki", "nki.language", "nki.isa", "nki.typing", "nki.collectives";
// current.go) and "numpy", and whether there is one. Each call builds a
// fresh module tree, so that threads tracing concurrently share no
// mutable module (the values in it are immutable, or per trace); a
// package's submodules are its attributes (neuronxcc.nki.language is
// Import("neuronxcc") .nki.language).
func Import(name string) (tracer.Value, bool) {
	if name == "nki" || strings.HasPrefix(name, "nki.") {
		m, ok := currentModules()[name]
		if !ok {
			return nil, false
		}
		return m, true
	}
	if !strings.HasPrefix(name, "neuronxcc") && name != "numpy" {
		return nil, false
	}
	m, ok := modules()[name]
	if !ok {
		return nil, false
	}
	return m, true
}

// KernelOf returns the Python function behind a module-level value if it
// is a kernel: an @nki.jit-decorated (or nki.jit(f)-wrapped, nki.trace,
// nki.baremetal, nki.benchmark, nki.profile) function, with jitted true,
// or a plain Python function, with jitted false. Anything else returns
// (nil, false).
func KernelOf(v tracer.Value) (fn tracer.Value, jitted bool) {
	switch k := v.(type) {
	case *JitKernel:
		return k.fn, true
	case *tracer.Function:
		return k, false
	}
	return nil, false
}
