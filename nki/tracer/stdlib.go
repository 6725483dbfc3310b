// stdlib.go: the standard-library modules the tracer provides itself
// (each Thread gets its own instances): math, functools, itertools,
// operator, copy, warnings, os, sys, plus typing, abc, collections,
// dataclasses and enum (typing.go, dataclass.go, enum.go). Other modules
// go to the Thread's Importer.
//
// Decisions:
//   - os exposes only pure, deterministic parts: os.environ is an empty
//     mapping (a trace never depends on the environment), os.getenv
//     returns its default, os.path's string functions work, os.sep is
//     "/"; anything else in os or sys is NotSupported by name.
//   - functools.lru_cache and cache memoize without bound (maxsize is
//     accepted and ignored); cache_info() is NotSupported.
//   - warnings.warn records the warning on the Thread (Warnings()) and
//     prints nothing.
//   - copy.deepcopy copies Python containers and instances; values of
//     the NKI API (tensors, tiles) are shared, not copied.
package tracer

import (
	"math"
	"math/big"
	"path"
	"strings"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

var stdlibModules map[string]func(th *Thread) *Module

func init() {
	stdlibModules = map[string]func(th *Thread) *Module{
		"math":              makeMathModule,
		"functools":         makeFunctoolsModule,
		"itertools":         makeItertoolsModule,
		"operator":          makeOperatorModule,
		"copy":              makeCopyModule,
		"warnings":          makeWarningsModule,
		"os":                makeOSModule,
		"os.path":           func(th *Thread) *Module { return makeOSPath() },
		"sys":               makeSysModule,
		"typing":            makeTypingModule,
		"typing_extensions": makeTypingModule,
		"abc":               makeAbcModule,
		"collections":       makeCollectionsModule,
		"collections.abc":   func(th *Thread) *Module { return makeCollectionsAbc() },
		"dataclasses":       makeDataclassesModule,
		"enum":              makeEnumModule,
		"builtins": func(th *Thread) *Module {
			return NewModule("builtins", builtins)
		},
		"numbers": func(th *Thread) *Module {
			return NewModule("numbers", map[string]Value{
				"Number": &abcProtocol{name: "Number", check: func(v Value) bool { _, ok := numeric(v); return ok }},
				"Real":   &abcProtocol{name: "Real", check: func(v Value) bool { _, ok := numeric(v); return ok }},
				"Integral": &abcProtocol{name: "Integral", check: func(v Value) bool {
					n, ok := numeric(v)
					_, isInt := n.(Int)
					return ok && isInt
				}},
			})
		},
	}
}

// StdlibModules lists the modules the tracer provides.
func StdlibModules() []string {
	out := make([]string, 0, len(stdlibModules))
	for k := range stdlibModules {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func fns(m map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error)) map[string]Value {
	out := make(map[string]Value, len(m))
	for k, f := range m {
		out[k] = NewBuiltin(k, f)
	}
	return out
}

func notSupportedMissing(mod string) func(string) error {
	return func(name string) error {
		return NotSupportedf("%s.%s is not supported in a kernel", mod, name)
	}
}

// ---------------------------------------------------------------------------
// math.

func mathDomain() error { return Errorf("ValueError", "math domain error") }
func mathRange() error  { return Errorf("OverflowError", "math range error") }

func mathArg(th *Thread, fn string, v Value) (float64, error) {
	f, err := AsFloat64(th, v)
	if err != nil {
		if _, ok := AsNeedConcrete(err); ok {
			return 0, err
		}
		if e, ok := err.(*Error); ok && e.Kind == "OverflowError" {
			return 0, err
		}
		return 0, Errorf("TypeError", "must be real number, not %s", v.Type())
	}
	return f, nil
}

func math1(fn string, f func(float64) (float64, error)) func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(kwargs) > 0 || len(args) != 1 {
			return nil, Errorf("TypeError", "math.%s() takes exactly one argument (%d given)", fn, len(args))
		}
		x, err := mathArg(th, fn, args[0])
		if err != nil {
			return nil, err
		}
		r, err := f(x)
		if err != nil {
			return nil, err
		}
		return Float(r), nil
	}
}

func checked(r float64, x float64) (float64, error) {
	if math.IsNaN(r) && !math.IsNaN(x) {
		return 0, mathDomain()
	}
	if math.IsInf(r, 0) && !math.IsInf(x, 0) {
		return 0, mathRange()
	}
	return r, nil
}

func mathIntArg(th *Thread, v Value) (Int, error) {
	switch x := v.(type) {
	case Int:
		return x, nil
	case Bool:
		return boolToInt(x), nil
	}
	i, err := asIndexInt(th, v)
	if err != nil {
		if _, ok := AsNeedConcrete(err); ok {
			return Int{}, err
		}
		return Int{}, Errorf("TypeError", "'%s' object cannot be interpreted as an integer", v.Type())
	}
	return i, nil
}

func roundingFn(name string, f func(float64) float64, dunder string) func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		switch x := args[0].(type) {
		case Int:
			return x, nil
		case Bool:
			return boolToInt(x), nil
		case *Instance:
			if m := x.class.userLookup(dunder); m != nil {
				return callMethod(th, x, m, nil, nil)
			}
		case HasAttrs:
			if m, _ := x.Attr(th, dunder); m != nil {
				return Call(th, m, nil, nil)
			}
		}
		v, err := mathArg(th, name, args[0])
		if err != nil {
			return nil, err
		}
		return floatToInt(f(v))
	}
}

func makeMathModule(th *Thread) *Module {
	m := fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"ceil":  roundingFn("ceil", math.Ceil, "__ceil__"),
		"floor": roundingFn("floor", math.Floor, "__floor__"),
		"trunc": roundingFn("trunc", math.Trunc, "__trunc__"),
		"sqrt": math1("sqrt", func(x float64) (float64, error) {
			if x < 0 {
				return 0, mathDomain()
			}
			return math.Sqrt(x), nil
		}),
		"cbrt":  math1("cbrt", func(x float64) (float64, error) { return math.Cbrt(x), nil }),
		"exp":   math1("exp", func(x float64) (float64, error) { return checked(math.Exp(x), x) }),
		"exp2":  math1("exp2", func(x float64) (float64, error) { return checked(math.Exp2(x), x) }),
		"expm1": math1("expm1", func(x float64) (float64, error) { return checked(math.Expm1(x), x) }),
		"log1p": math1("log1p", func(x float64) (float64, error) {
			if x <= -1 {
				return 0, mathDomain()
			}
			return math.Log1p(x), nil
		}),
		"log": mathLog,
		"log2": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return mathLogBase(th, "log2", args, kwargs, 2)
		},
		"log10": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return mathLogBase(th, "log10", args, kwargs, 10)
		},
		"fabs": math1("fabs", func(x float64) (float64, error) { return math.Abs(x), nil }),
		"sin":  math1("sin", func(x float64) (float64, error) { return checked(math.Sin(x), x) }),
		"cos":  math1("cos", func(x float64) (float64, error) { return checked(math.Cos(x), x) }),
		"tan":  math1("tan", func(x float64) (float64, error) { return checked(math.Tan(x), x) }),
		"asin": math1("asin", func(x float64) (float64, error) {
			if x < -1 || x > 1 {
				return 0, mathDomain()
			}
			return math.Asin(x), nil
		}),
		"acos": math1("acos", func(x float64) (float64, error) {
			if x < -1 || x > 1 {
				return 0, mathDomain()
			}
			return math.Acos(x), nil
		}),
		"atan":  math1("atan", func(x float64) (float64, error) { return math.Atan(x), nil }),
		"sinh":  math1("sinh", func(x float64) (float64, error) { return checked(math.Sinh(x), x) }),
		"cosh":  math1("cosh", func(x float64) (float64, error) { return checked(math.Cosh(x), x) }),
		"tanh":  math1("tanh", func(x float64) (float64, error) { return math.Tanh(x), nil }),
		"asinh": math1("asinh", func(x float64) (float64, error) { return math.Asinh(x), nil }),
		"acosh": math1("acosh", func(x float64) (float64, error) {
			if x < 1 {
				return 0, mathDomain()
			}
			return math.Acosh(x), nil
		}),
		"atanh": math1("atanh", func(x float64) (float64, error) {
			if x <= -1 || x >= 1 {
				return 0, mathDomain()
			}
			return math.Atanh(x), nil
		}),
		"erf":     math1("erf", func(x float64) (float64, error) { return math.Erf(x), nil }),
		"erfc":    math1("erfc", func(x float64) (float64, error) { return math.Erfc(x), nil }),
		"gamma":   math1("gamma", mathGamma),
		"lgamma":  math1("lgamma", func(x float64) (float64, error) { r, _ := math.Lgamma(x); return checked(r, x) }),
		"degrees": math1("degrees", func(x float64) (float64, error) { return x * 180 / math.Pi, nil }),
		"radians": math1("radians", func(x float64) (float64, error) { return x * math.Pi / 180, nil }),
		"ulp": math1("ulp", func(x float64) (float64, error) {
			x = math.Abs(x)
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return x, nil
			}
			return math.Nextafter(x, math.Inf(1)) - x, nil
		}),
		"isfinite": mathPredicate("isfinite", func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }),
		"isinf":    mathPredicate("isinf", func(x float64) bool { return math.IsInf(x, 0) }),
		"isnan":    mathPredicate("isnan", math.IsNaN),
		"pow": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("pow", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			x, err := mathArg(th, "pow", args[0])
			if err != nil {
				return nil, err
			}
			y, err := mathArg(th, "pow", args[1])
			if err != nil {
				return nil, err
			}
			if x == 0 && y < 0 {
				return nil, mathDomain()
			}
			if x < 0 && y != math.Trunc(y) && !math.IsInf(y, 0) {
				return nil, mathDomain()
			}
			r := math.Pow(x, y)
			if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
				return nil, mathRange()
			}
			return Float(r), nil
		},
		"atan2":    math2("atan2", func(x, y float64) (float64, error) { return math.Atan2(x, y), nil }),
		"copysign": math2("copysign", func(x, y float64) (float64, error) { return math.Copysign(x, y), nil }),
		"fmod": math2("fmod", func(x, y float64) (float64, error) {
			if y == 0 && !math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, mathDomain()
			}
			return math.Mod(x, y), nil
		}),
		"remainder": math2("remainder", func(x, y float64) (float64, error) {
			if y == 0 || math.IsInf(x, 0) {
				return 0, mathDomain()
			}
			return math.Remainder(x, y), nil
		}),
		"nextafter": math2("nextafter", func(x, y float64) (float64, error) { return math.Nextafter(x, y), nil }),
		"ldexp": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("ldexp", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			x, err := mathArg(th, "ldexp", args[0])
			if err != nil {
				return nil, err
			}
			e, err := AsInt64(th, args[1])
			if err != nil {
				return nil, err
			}
			r := math.Ldexp(x, int(max(min(e, 1<<20), -(1<<20))))
			if math.IsInf(r, 0) && !math.IsInf(x, 0) {
				return nil, mathRange()
			}
			return Float(r), nil
		},
		"frexp": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("frexp", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			x, err := mathArg(th, "frexp", args[0])
			if err != nil {
				return nil, err
			}
			f, e := math.Frexp(x)
			return Tuple{Float(f), intValue(int64(e))}, nil
		},
		"modf": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("modf", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			x, err := mathArg(th, "modf", args[0])
			if err != nil {
				return nil, err
			}
			i, f := math.Modf(x)
			if math.IsInf(x, 0) {
				f = math.Copysign(0, x)
			}
			return Tuple{Float(f), Float(i)}, nil
		},
		"hypot": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			acc := 0.0
			var xs []float64
			for _, a := range args {
				x, err := mathArg(th, "hypot", a)
				if err != nil {
					return nil, err
				}
				xs = append(xs, x)
			}
			if len(xs) == 2 {
				return Float(math.Hypot(xs[0], xs[1])), nil
			}
			for _, x := range xs {
				acc += x * x
			}
			return Float(math.Sqrt(acc)), nil
		},
		"dist": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("dist", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			p, err := collect(th, args[0])
			if err != nil {
				return nil, err
			}
			q, err := collect(th, args[1])
			if err != nil {
				return nil, err
			}
			if len(p) != len(q) {
				return nil, Errorf("ValueError", "both points must have the same number of dimensions")
			}
			acc := 0.0
			for i := range p {
				a, err := mathArg(th, "dist", p[i])
				if err != nil {
					return nil, err
				}
				b, err := mathArg(th, "dist", q[i])
				if err != nil {
					return nil, err
				}
				acc += (a - b) * (a - b)
			}
			return Float(math.Sqrt(acc)), nil
		},
		"fsum": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("fsum", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			// Exact summation with big floats, rounded once.
			acc := new(big.Float).SetPrec(2048)
			err := Iterate(th, args[0], func(v Value) error {
				x, err := mathArg(th, "fsum", v)
				if err != nil {
					return err
				}
				if math.IsInf(x, 0) || math.IsNaN(x) {
					return Errorf("NotSupported", "math.fsum of infinities or NaN is not supported")
				}
				acc.Add(acc, big.NewFloat(x))
				return nil
			})
			if err != nil {
				return nil, err
			}
			f, _ := acc.Float64()
			return Float(f), nil
		},
		"isqrt": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("isqrt", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			n, err := mathIntArg(th, args[0])
			if err != nil {
				return nil, err
			}
			if n.Sign() < 0 {
				return nil, Errorf("ValueError", "isqrt() argument must be nonnegative")
			}
			return makeBigOwned(new(big.Int).Sqrt(n.bigView())), nil
		},
		"factorial": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("factorial", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			if _, ok := args[0].(Float); ok {
				return nil, Errorf("TypeError", "'float' object cannot be interpreted as an integer")
			}
			n, err := mathIntArg(th, args[0])
			if err != nil {
				return nil, err
			}
			if n.Sign() < 0 {
				return nil, Errorf("ValueError", "factorial() not defined for negative values")
			}
			k, ok := n.Int64()
			if !ok || k > 100000 || float64(k)*math.Log2(float64(k)+1) > float64(th.bitLimit()) {
				return nil, bigLimit(th)
			}
			return makeBigOwned(new(big.Int).MulRange(1, k)), nil
		},
		"comb": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return combPerm(th, "comb", args, kwargs)
		},
		"perm": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return combPerm(th, "perm", args, kwargs)
		},
		"gcd": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			acc := new(big.Int)
			for _, a := range args {
				n, err := mathIntArg(th, a)
				if err != nil {
					return nil, err
				}
				acc.GCD(nil, nil, acc, new(big.Int).Abs(n.bigView()))
			}
			return makeBigOwned(acc), nil
		},
		"lcm": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			acc := big.NewInt(1)
			for _, a := range args {
				n, err := mathIntArg(th, a)
				if err != nil {
					return nil, err
				}
				b := new(big.Int).Abs(n.bigView())
				if b.Sign() == 0 {
					acc.SetInt64(0)
					continue
				}
				if acc.Sign() == 0 {
					continue
				}
				g := new(big.Int).GCD(nil, nil, acc, b)
				acc.Mul(acc, b)
				acc.Quo(acc, g)
			}
			return makeBigOwned(acc), nil
		},
		"prod": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var it, start Value
			if err := UnpackArgs("prod", args, kwargs, "iterable", &it, "*", new([]Value), "start?", &start); err != nil {
				return nil, err
			}
			if start == nil {
				start = intValue(1)
			}
			acc := start
			err := Iterate(th, it, func(v Value) error {
				r, err := Binary(th, syntax.Mult, acc, v)
				if err != nil {
					return err
				}
				acc = r
				return nil
			})
			return acc, err
		},
		"isclose": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var a, b float64
			relTol, absTol := 1e-9, 0.0
			if err := UnpackArgs("isclose", args, kwargs, "a", &a, "b", &b, "*", new([]Value), "rel_tol?", &relTol, "abs_tol?", &absTol); err != nil {
				return nil, err
			}
			if relTol < 0 || absTol < 0 {
				return nil, Errorf("ValueError", "tolerances must be non-negative")
			}
			if a == b {
				return True, nil
			}
			if math.IsInf(a, 0) || math.IsInf(b, 0) {
				return False, nil
			}
			d := math.Abs(b - a)
			return Bool(d <= math.Abs(relTol*b) || d <= math.Abs(relTol*a) || d <= absTol), nil
		},
	})
	m["pi"] = Float(math.Pi)
	m["e"] = Float(math.E)
	m["tau"] = Float(2 * math.Pi)
	m["inf"] = Float(math.Inf(1))
	m["nan"] = Float(math.NaN())
	mod := NewModule("math", m)
	mod.missing = func(name string) error {
		return Errorf("AttributeError", "module 'math' has no attribute '%s'", name)
	}
	return mod
}

func mathGamma(x float64) (float64, error) {
	if x <= 0 && x == math.Trunc(x) {
		return 0, mathDomain()
	}
	return checked(math.Gamma(x), x)
}

func mathPredicate(name string, f func(float64) bool) func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		x, err := mathArg(th, name, args[0])
		if err != nil {
			return nil, err
		}
		return Bool(f(x)), nil
	}
}

func math2(name string, f func(x, y float64) (float64, error)) func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		if len(kwargs) > 0 || len(args) != 2 {
			return nil, Errorf("TypeError", "%s expected 2 arguments, got %d", name, len(args))
		}
		x, err := mathArg(th, name, args[0])
		if err != nil {
			return nil, err
		}
		y, err := mathArg(th, name, args[1])
		if err != nil {
			return nil, err
		}
		r, err := f(x, y)
		if err != nil {
			return nil, err
		}
		return Float(r), nil
	}
}

// logOf is the natural log of a number, exact for big ints.
func logOf(th *Thread, v Value) (float64, error) {
	if i, ok := v.(Int); ok {
		if i.Sign() <= 0 {
			return 0, mathDomain()
		}
		if i.big != nil {
			b := i.big
			n := b.BitLen()
			shift := n - 60
			top := new(big.Int).Rsh(b, uint(shift))
			return math.Log(float64(top.Int64())) + float64(shift)*math.Ln2, nil
		}
		return math.Log(float64(i.small)), nil
	}
	x, err := mathArg(th, "log", v)
	if err != nil {
		return 0, err
	}
	if x <= 0 {
		return 0, mathDomain()
	}
	return math.Log(x), nil
}

func mathLog(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	if err := argCount("log", args, kwargs, 1, 2); err != nil {
		return nil, err
	}
	if b, ok := args[0].(Bool); ok {
		args = []Value{boolToInt(b)}
	}
	num, err := logOf(th, args[0])
	if err != nil {
		return nil, err
	}
	if len(args) == 1 {
		return Float(num), nil
	}
	den, err := logOf(th, args[1])
	if err != nil {
		return nil, err
	}
	if den == 0 {
		return nil, Errorf("ZeroDivisionError", "float division by zero")
	}
	return Float(num / den), nil
}

func mathLogBase(th *Thread, name string, args []Value, kwargs []Kwarg, base int) (Value, error) {
	if err := argCount(name, args, kwargs, 1, 1); err != nil {
		return nil, err
	}
	v := args[0]
	if b, ok := v.(Bool); ok {
		v = boolToInt(b)
	}
	if i, ok := v.(Int); ok {
		if i.Sign() <= 0 {
			return nil, mathDomain()
		}
		if base == 2 && i.big == nil {
			return Float(math.Log2(float64(i.small))), nil
		}
		if base == 10 && i.big == nil {
			return Float(math.Log10(float64(i.small))), nil
		}
		l, _ := logOf(th, i)
		if base == 2 {
			return Float(l / math.Ln2), nil
		}
		return Float(l / math.Ln10), nil
	}
	x, err := mathArg(th, name, v)
	if err != nil {
		return nil, err
	}
	if x <= 0 {
		return nil, mathDomain()
	}
	if base == 2 {
		return Float(math.Log2(x)), nil
	}
	return Float(math.Log10(x)), nil
}

func combPerm(th *Thread, name string, args []Value, kwargs []Kwarg) (Value, error) {
	if name == "perm" && len(args) == 1 {
		args = append(args, None)
	}
	if err := argCount(name, args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	n, err := mathIntArg(th, args[0])
	if err != nil {
		return nil, err
	}
	var k Int
	if args[1] == Value(None) {
		k = n
	} else if k, err = mathIntArg(th, args[1]); err != nil {
		return nil, err
	}
	if n.Sign() < 0 {
		return nil, Errorf("ValueError", "n must be a non-negative integer")
	}
	if k.Sign() < 0 {
		return nil, Errorf("ValueError", "k must be a non-negative integer")
	}
	if intCompare(k, n) > 0 {
		return intValue(0), nil
	}
	nn, ok1 := n.Int64()
	kk, ok2 := k.Int64()
	if !ok1 || !ok2 || kk > 100000 || float64(kk)*math.Log2(float64(nn)+1) > float64(th.bitLimit()) {
		return nil, bigLimit(th)
	}
	if name == "perm" {
		return makeBigOwned(new(big.Int).MulRange(nn-kk+1, nn)), nil
	}
	return makeBigOwned(new(big.Int).Binomial(nn, kk)), nil
}

// ---------------------------------------------------------------------------
// functools.

func makeFunctoolsModule(th *Thread) *Module {
	m := NewModule("functools", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"reduce": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("reduce", args, kwargs, 2, 3); err != nil {
				return nil, err
			}
			fn := args[0]
			var acc Value
			if len(args) == 3 {
				acc = args[2]
			}
			err := Iterate(th, args[1], func(v Value) error {
				if acc == nil {
					acc = v
					return nil
				}
				r, err := Call(th, fn, []Value{acc, v}, nil)
				if err != nil {
					return err
				}
				acc = r
				return nil
			})
			if err != nil {
				return nil, err
			}
			if acc == nil {
				return nil, Errorf("TypeError", "reduce() of empty iterable with no initial value")
			}
			return acc, nil
		},
		"partial": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) < 1 {
				return nil, Errorf("TypeError", "type 'partial' takes at least one argument")
			}
			if !isCallable(args[0]) {
				return nil, Errorf("TypeError", "the first argument must be callable")
			}
			p := &partial{fn: args[0], args: append([]Value(nil), args[1:]...), kwargs: append([]Kwarg(nil), kwargs...)}
			if inner, ok := args[0].(*partial); ok {
				p.fn = inner.fn
				p.args = append(append([]Value(nil), inner.args...), p.args...)
				p.kwargs = append(append([]Kwarg(nil), inner.kwargs...), p.kwargs...)
			}
			return p, nil
		},
		"wraps": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var wrapped Value
			if err := UnpackArgs("wraps", args, kwargs, "wrapped", &wrapped, "assigned?", new(Value), "updated?", new(Value)); err != nil {
				return nil, err
			}
			return NewBuiltin("wraps", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
				if len(args) != 1 {
					return nil, Errorf("TypeError", "update_wrapper() takes one function")
				}
				return updateWrapper(th, args[0], wrapped), nil
			}), nil
		},
		"update_wrapper": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var wrapper, wrapped Value
			if err := UnpackArgs("update_wrapper", args, kwargs, "wrapper", &wrapper, "wrapped", &wrapped, "assigned?", new(Value), "updated?", new(Value)); err != nil {
				return nil, err
			}
			return updateWrapper(th, wrapper, wrapped), nil
		},
		"lru_cache": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) == 1 && isCallable(args[0]) && len(kwargs) == 0 {
				if _, isInt := args[0].(Int); !isInt {
					return newCached(args[0]), nil
				}
			}
			return NewBuiltin("lru_cache", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
				if len(args) != 1 {
					return nil, Errorf("TypeError", "Expected first argument to be an integer, a callable, or None")
				}
				return newCached(args[0]), nil
			}), nil
		},
		"cache": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("cache", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			return newCached(args[0]), nil
		},
		"cmp_to_key": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("cmp_to_key", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			cmp := args[0]
			return NewBuiltin("K", func(th *Thread, a []Value, kw []Kwarg) (Value, error) {
				if len(a) != 1 {
					return nil, Errorf("TypeError", "K() takes one argument")
				}
				return &cmpKey{cmp: cmp, v: a[0]}, nil
			}), nil
		},
		"total_ordering": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("total_ordering", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			c, ok := args[0].(*Class)
			if !ok {
				return args[0], nil
			}
			return c, totalOrdering(c)
		},
		"cached_property": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("cached_property", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			return &cachedProperty{fn: args[0], name: callableName(args[0])}, nil
		},
		"singledispatch": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return nil, NotSupportedf("functools.singledispatch is not supported")
		},
	}))
	m.missing = notSupportedMissing("functools")
	return m
}

func updateWrapper(th *Thread, wrapper, wrapped Value) Value {
	for _, a := range []string{"__module__", "__name__", "__qualname__", "__doc__"} {
		if v, _ := getAttr(th, wrapped, a); v != nil {
			_ = setAttr(th, wrapper, a, v)
		}
	}
	if f, ok := wrapped.(*Function); ok && f.dict != nil {
		for _, k := range f.dict.keys {
			_ = setAttr(th, wrapper, k, f.dict.m[k])
		}
	}
	_ = setAttr(th, wrapper, "__wrapped__", wrapped)
	return wrapper
}

// partial is functools.partial(fn, *args, **kwargs).
type partial struct {
	fn     Value
	args   []Value
	kwargs []Kwarg
}

func (p *partial) Type() string         { return "functools.partial" }
func (p *partial) Truth() (bool, error) { return true, nil }
func (p *partial) Name() string         { return "partial(" + callableName(p.fn) + ")" }
func (p *partial) String() string {
	parts := []string{Repr(p.fn)}
	for _, a := range p.args {
		parts = append(parts, Repr(a))
	}
	for _, kw := range p.kwargs {
		parts = append(parts, kw.Name+"="+Repr(kw.Value))
	}
	return "functools.partial(" + strings.Join(parts, ", ") + ")"
}
func (p *partial) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	all := append(append([]Value(nil), p.args...), args...)
	kw := append([]Kwarg(nil), p.kwargs...)
	for _, k := range kwargs {
		replaced := false
		for i := range kw {
			if kw[i].Name == k.Name {
				kw[i].Value = k.Value
				replaced = true
			}
		}
		if !replaced {
			kw = append(kw, k)
		}
	}
	return Call(th, p.fn, all, kw)
}
func (p *partial) Attr(th *Thread, name string) (Value, error) {
	switch name {
	case "func":
		return p.fn, nil
	case "args":
		return Tuple(append([]Value(nil), p.args...)), nil
	case "keywords":
		d := NewDict()
		for _, kw := range p.kwargs {
			d.setStr(th, kw.Name, kw.Value)
		}
		return d, nil
	}
	return nil, nil
}
func (p *partial) AttrNames() []string { return []string{"args", "func", "keywords"} }

// cached is a memoized function (lru_cache, cache).
type cached struct {
	fn    Value
	memo  *Dict
	attrs *strDict
}

func newCached(fn Value) *cached { return &cached{fn: fn, memo: NewDict(), attrs: newStrDict(2)} }

func (c *cached) Type() string         { return "functools._lru_cache_wrapper" }
func (c *cached) String() string       { return "<functools._lru_cache_wrapper object>" }
func (c *cached) Truth() (bool, error) { return true, nil }
func (c *cached) Name() string         { return callableName(c.fn) }
func (c *cached) Call(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
	key := Tuple(append([]Value(nil), args...))
	if len(kwargs) > 0 {
		key = append(key, kwOnlyValue)
		for _, kw := range kwargs {
			key = append(key, String(kw.Name), kw.Value)
		}
	}
	v, ok, err := c.memo.Get(th, key)
	if err != nil {
		return nil, err
	}
	if ok {
		return v, nil
	}
	r, err := Call(th, c.fn, args, kwargs)
	if err != nil {
		return nil, err
	}
	return r, c.memo.Set(th, key, r)
}
func (c *cached) Attr(th *Thread, name string) (Value, error) {
	switch name {
	case "cache_clear":
		return NewBuiltin("cache_clear", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			c.memo.clear(th)
			return None, nil
		}), nil
	case "cache_info":
		return NewBuiltin("cache_info", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return nil, NotSupportedf("cache_info() is not supported")
		}), nil
	case "__wrapped__":
		return c.fn, nil
	}
	if v, ok := c.attrs.get(name); ok {
		return v, nil
	}
	return getAttr(th, c.fn, name)
}
func (c *cached) AttrNames() []string { return []string{"cache_clear", "cache_info", "__wrapped__"} }
func (c *cached) SetAttr(th *Thread, name string, v Value) error {
	c.attrs.set(name, v)
	return nil
}

// cachedProperty is functools.cached_property(fn).
type cachedProperty struct {
	fn   Value
	name string
}

func (c *cachedProperty) Type() string         { return "cached_property" }
func (c *cachedProperty) String() string       { return "<functools.cached_property object>" }
func (c *cachedProperty) Truth() (bool, error) { return true, nil }

// cmpKey is a key of functools.cmp_to_key.
type cmpKey struct {
	cmp Value
	v   Value
}

func (k *cmpKey) Type() string         { return "functools.KeyWrapper" }
func (k *cmpKey) String() string       { return "<functools.KeyWrapper object>" }
func (k *cmpKey) Truth() (bool, error) { return true, nil }
func (k *cmpKey) Compare(th *Thread, op syntax.CmpOp, other Value, right bool) (Value, error) {
	o, ok := other.(*cmpKey)
	if !ok {
		return nil, nil
	}
	a, b := k.v, o.v
	if right {
		a, b = b, a
		op = reflectedCmp[op]
	}
	r, err := Call(th, k.cmp, []Value{a, b}, nil)
	if err != nil {
		return nil, err
	}
	c, err := Compare(th, op, r, intValue(0))
	return c, err
}

func totalOrdering(c *Class) error {
	has := func(n string) bool { v := c.userLookup(n); _, none := v.(NoneType); return v != nil && !none }
	var root string
	for _, n := range []string{"__lt__", "__le__", "__gt__", "__ge__"} {
		if has(n) {
			root = n
			break
		}
	}
	if root == "" {
		return Errorf("ValueError", "must define at least one ordering operation: < > <= >=")
	}
	rootFn := c.userLookup(root)
	call := func(th *Thread, a, b Value) (bool, bool, error) {
		r, err := callMethod(th, a, rootFn, []Value{b}, nil)
		if err != nil {
			return false, false, err
		}
		if r == Value(NotImplemented) {
			return false, false, nil
		}
		t, err := truth(th, r)
		return t, true, err
	}
	define := func(name string, f func(th *Thread, a, b Value) (Value, error)) {
		if has(name) {
			return
		}
		c.dict.set(name, &nativeMethod{name: name, cls: c, fn: func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) != 1 {
				return nil, Errorf("TypeError", "expected 1 argument")
			}
			return f(th, recv, args[0])
		}})
	}
	eq := func(th *Thread, a, b Value) (bool, error) { return Equal(th, a, b) }
	derive := func(name string, rule func(r, e bool) bool) {
		define(name, func(th *Thread, a, b Value) (Value, error) {
			r, ok, err := call(th, a, b)
			if err != nil || !ok {
				return NotImplemented, err
			}
			e, err := eq(th, a, b)
			if err != nil {
				return nil, err
			}
			return Bool(rule(r, e)), nil
		})
	}
	switch root {
	case "__lt__":
		derive("__gt__", func(r, e bool) bool { return !r && !e })
		derive("__le__", func(r, e bool) bool { return r || e })
		derive("__ge__", func(r, e bool) bool { return !r })
	case "__le__":
		derive("__ge__", func(r, e bool) bool { return !r || e })
		derive("__lt__", func(r, e bool) bool { return r && !e })
		derive("__gt__", func(r, e bool) bool { return !r })
	case "__gt__":
		derive("__lt__", func(r, e bool) bool { return !r && !e })
		derive("__ge__", func(r, e bool) bool { return r || e })
		derive("__le__", func(r, e bool) bool { return !r })
	case "__ge__":
		derive("__le__", func(r, e bool) bool { return !r || e })
		derive("__gt__", func(r, e bool) bool { return r && !e })
		derive("__lt__", func(r, e bool) bool { return !r })
	}
	return nil
}

// ---------------------------------------------------------------------------
// operator.

func makeOperatorModule(th *Thread) *Module {
	type fn = func(th *Thread, args []Value, kwargs []Kwarg) (Value, error)
	// exactly is f as a function of n positional arguments.
	exactly := func(n int, f func(th *Thread, a []Value) (Value, error)) fn {
		return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) != n {
				if n == 1 {
					return nil, Errorf("TypeError", "expected 1 argument, got %d", len(args))
				}
				return nil, Errorf("TypeError", "expected %d arguments, got %d", n, len(args))
			}
			return f(th, args)
		}
	}
	bin := func(op syntax.Operator) fn {
		return exactly(2, func(th *Thread, a []Value) (Value, error) { return Binary(th, op, a[0], a[1]) })
	}
	ibin := func(op syntax.Operator) fn {
		return exactly(2, func(th *Thread, a []Value) (Value, error) { return Inplace(th, op, a[0], a[1]) })
	}
	cmp := func(op syntax.CmpOp) fn {
		return exactly(2, func(th *Thread, a []Value) (Value, error) { return Compare(th, op, a[0], a[1]) })
	}
	un := func(op syntax.UnaryOpKind) fn {
		return exactly(1, func(th *Thread, a []Value) (Value, error) { return Unary(th, op, a[0]) })
	}
	m := map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"add": bin(syntax.Add), "sub": bin(syntax.Sub), "mul": bin(syntax.Mult), "matmul": bin(syntax.MatMult),
		"truediv": bin(syntax.Div), "floordiv": bin(syntax.FloorDiv), "mod": bin(syntax.Mod), "pow": bin(syntax.Pow),
		"lshift": bin(syntax.LShift), "rshift": bin(syntax.RShift), "and_": bin(syntax.BitAnd), "or_": bin(syntax.BitOr),
		"xor": bin(syntax.BitXor), "concat": bin(syntax.Add),
		"iadd": ibin(syntax.Add), "isub": ibin(syntax.Sub), "imul": ibin(syntax.Mult), "itruediv": ibin(syntax.Div),
		"ifloordiv": ibin(syntax.FloorDiv), "imod": ibin(syntax.Mod), "ipow": ibin(syntax.Pow), "iand": ibin(syntax.BitAnd),
		"ior": ibin(syntax.BitOr), "ixor": ibin(syntax.BitXor), "ilshift": ibin(syntax.LShift), "irshift": ibin(syntax.RShift),
		"iconcat": ibin(syntax.Add), "imatmul": ibin(syntax.MatMult),
		"eq": cmp(syntax.Eq), "ne": cmp(syntax.NotEq), "lt": cmp(syntax.Lt), "le": cmp(syntax.LtE),
		"gt": cmp(syntax.Gt), "ge": cmp(syntax.GtE),
		"neg": un(syntax.USub), "pos": un(syntax.UAdd), "invert": un(syntax.Invert), "inv": un(syntax.Invert),
		"abs": builtinAbs,
		"not_": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("not_", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			t, err := truth(th, args[0])
			return Bool(!t), err
		},
		"truth": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("truth", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			t, err := truth(th, args[0])
			return Bool(t), err
		},
		"is_": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("is_", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			return Bool(identical(args[0], args[1])), nil
		},
		"is_not": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("is_not", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			return Bool(!identical(args[0], args[1])), nil
		},
		"contains": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("contains", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			ok, err := Contains(th, args[0], args[1])
			return Bool(ok), err
		},
		"index": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("index", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			i, err := asIndexInt(th, args[0])
			return i, err
		},
		"getitem": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("getitem", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			return getIndex(th, args[0], args[1])
		},
		"setitem": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("setitem", args, kwargs, 3, 3); err != nil {
				return nil, err
			}
			return None, setIndex(th, args[0], args[1], args[2])
		},
		"delitem": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("delitem", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			return None, delIndex(th, args[0], args[1])
		},
		"length_hint": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("length_hint", args, kwargs, 1, 2); err != nil {
				return nil, err
			}
			n, err := Len(th, args[0])
			if err != nil {
				if len(args) == 2 {
					return args[1], nil
				}
				return intValue(0), nil
			}
			return intValue(int64(n)), nil
		},
		"itemgetter": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) == 0 {
				return nil, Errorf("TypeError", "itemgetter expected 1 argument, got 0")
			}
			return getter("itemgetter", append([]Value(nil), args...), getIndex), nil
		},
		"attrgetter": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) == 0 {
				return nil, Errorf("TypeError", "attrgetter expected 1 argument, got 0")
			}
			var names []string
			for _, a := range args {
				s, ok := AsString(a)
				if !ok {
					return nil, Errorf("TypeError", "attribute name must be a string")
				}
				names = append(names, s)
			}
			get := func(th *Thread, v Value, dotted string) (Value, error) {
				for _, part := range strings.Split(dotted, ".") {
					r, err := getAttrOrError(th, v, part)
					if err != nil {
						return nil, err
					}
					v = r
				}
				return v, nil
			}
			return getter("attrgetter", names, get), nil
		},
		"methodcaller": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(args) == 0 {
				return nil, Errorf("TypeError", "methodcaller needs at least one argument, the method name")
			}
			name, ok := AsString(args[0])
			if !ok {
				return nil, Errorf("TypeError", "method name must be a string")
			}
			margs := append([]Value(nil), args[1:]...)
			mkw := append([]Kwarg(nil), kwargs...)
			return NewBuiltin("methodcaller", func(th *Thread, a []Value, kw []Kwarg) (Value, error) {
				if len(a) != 1 {
					return nil, Errorf("TypeError", "methodcaller expected 1 argument, got %d", len(a))
				}
				f, err := getAttrOrError(th, a[0], name)
				if err != nil {
					return nil, err
				}
				return Call(th, f, margs, mkw)
			}), nil
		},
	}
	mod := NewModule("operator", fns(m))
	for _, k := range []string{"add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "or", "xor", "eq", "ne", "lt", "le", "gt", "ge", "neg", "pos", "invert", "abs", "getitem", "setitem", "delitem", "contains", "index", "matmul"} {
		name := k
		if k == "and" || k == "or" {
			name = k + "_"
		}
		v, _ := mod.Get(name)
		mod.Set("__"+k+"__", v)
	}
	return mod
}

// ---------------------------------------------------------------------------
// itertools.

func makeItertoolsModule(th *Thread) *Module {
	m := NewModule("itertools", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"product": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			repeat := int64(1)
			for _, kw := range kwargs {
				if kw.Name != "repeat" {
					return nil, Errorf("TypeError", "product() got an unexpected keyword argument '%s'", kw.Name)
				}
				n, err := AsInt64(th, kw.Value)
				if err != nil {
					return nil, err
				}
				if n < 0 {
					return nil, Errorf("ValueError", "repeat argument cannot be negative")
				}
				repeat = n
			}
			var pools [][]Value
			for _, a := range args {
				p, err := collect(th, a)
				if err != nil {
					return nil, err
				}
				pools = append(pools, p)
			}
			var all [][]Value
			for r := int64(0); r < repeat; r++ {
				all = append(all, pools...)
			}
			var out []Value
			idx := make([]int, len(all))
			for _, p := range all {
				if len(p) == 0 {
					return newIterObj("itertools.product", &sliceIter{}), nil
				}
			}
			for {
				t := make(Tuple, len(all))
				for i, p := range all {
					t[i] = p[idx[i]]
				}
				if len(out) >= th.sizeLimit() {
					return nil, sizeError(th)
				}
				if err := th.tick(); err != nil {
					return nil, err
				}
				out = append(out, t)
				i := len(all) - 1
				for i >= 0 {
					idx[i]++
					if idx[i] < len(all[i]) {
						break
					}
					idx[i] = 0
					i--
				}
				if i < 0 {
					break
				}
			}
			return newIterObj("itertools.product", &sliceIter{elems: out}), nil
		},
		"chain": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf("TypeError", "chain() takes no keyword arguments")
			}
			return chainOf(th, &sliceIter{elems: args}), nil
		},
		"combinations": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return combinations(th, "combinations", args, kwargs, false)
		},
		"combinations_with_replacement": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return combinations(th, "combinations_with_replacement", args, kwargs, true)
		},
		"permutations": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var it, rv Value
			if err := UnpackArgs("permutations", args, kwargs, "iterable", &it, "r?", &rv); err != nil {
				return nil, err
			}
			pool, err := collect(th, it)
			if err != nil {
				return nil, err
			}
			r := int64(len(pool))
			if rv != nil && rv != Value(None) {
				if r, err = AsInt64(th, rv); err != nil {
					return nil, err
				}
				if r < 0 {
					return nil, Errorf("ValueError", "r must be non-negative")
				}
			}
			var out []Value
			var rec func(prefix []int, used []bool) error
			rec = func(prefix []int, used []bool) error {
				if int64(len(prefix)) == r {
					t := make(Tuple, len(prefix))
					for i, j := range prefix {
						t[i] = pool[j]
					}
					if len(out) >= th.sizeLimit() {
						return sizeError(th)
					}
					out = append(out, t)
					return th.tick()
				}
				for i := range pool {
					if !used[i] {
						used[i] = true
						if err := rec(append(prefix, i), used); err != nil {
							return err
						}
						used[i] = false
					}
				}
				return nil
			}
			if r <= int64(len(pool)) {
				if err := rec(nil, make([]bool, len(pool))); err != nil {
					return nil, err
				}
			}
			return newIterObj("itertools.permutations", &sliceIter{elems: out}), nil
		},
		"accumulate": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var it, fn, initial Value
			if err := UnpackArgs("accumulate", args, kwargs, "iterable", &it, "func?", &fn, "*", new([]Value), "initial?", &initial); err != nil {
				return nil, err
			}
			src, err := getIterator(th, it)
			if err != nil {
				return nil, err
			}
			var acc Value
			if initial != nil && initial != Value(None) {
				acc = initial
			}
			started := false
			return newIterObj("itertools.accumulate", funcIter(func(th *Thread) (Value, bool, error) {
				if !started && acc != nil {
					started = true
					return acc, true, nil
				}
				started = true
				v, ok, err := src.Next(th)
				if err != nil || !ok {
					return nil, false, err
				}
				if acc == nil {
					acc = v
					return v, true, nil
				}
				if fn == nil || fn == Value(None) {
					acc, err = Binary(th, syntax.Add, acc, v)
				} else {
					acc, err = Call(th, fn, []Value{acc, v}, nil)
				}
				if err != nil {
					return nil, false, err
				}
				return acc, true, nil
			})), nil
		},
		"repeat": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var obj, times Value
			if err := UnpackArgs("repeat", args, kwargs, "object", &obj, "times?", &times); err != nil {
				return nil, err
			}
			n := int64(-1)
			if times != nil {
				var err error
				if n, err = AsInt64(th, times); err != nil {
					return nil, err
				}
				if n < 0 {
					n = 0
				}
			}
			return newIterObj("itertools.repeat", funcIter(func(th *Thread) (Value, bool, error) {
				if n == 0 {
					return nil, false, nil
				}
				if n > 0 {
					n--
				}
				return obj, true, nil
			})), nil
		},
		"count": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var start, step Value = intValue(0), intValue(1)
			if err := UnpackArgs("count", args, kwargs, "start?", &start, "step?", &step); err != nil {
				return nil, err
			}
			cur := start
			return newIterObj("itertools.count", funcIter(func(th *Thread) (Value, bool, error) {
				v := cur
				next, err := Binary(th, syntax.Add, cur, step)
				if err != nil {
					return nil, false, err
				}
				cur = next
				return v, true, nil
			})), nil
		},
		"cycle": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("cycle", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			elems, err := collect(th, args[0])
			if err != nil {
				return nil, err
			}
			i := 0
			return newIterObj("itertools.cycle", funcIter(func(th *Thread) (Value, bool, error) {
				if len(elems) == 0 {
					return nil, false, nil
				}
				v := elems[i%len(elems)]
				i++
				return v, true, nil
			})), nil
		},
		"islice": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if len(kwargs) > 0 {
				return nil, Errorf("TypeError", "islice() takes no keyword arguments")
			}
			if len(args) < 2 || len(args) > 4 {
				return nil, Errorf("TypeError", "islice expected at most 4 arguments, got %d", len(args))
			}
			src, err := getIterator(th, args[0])
			if err != nil {
				return nil, err
			}
			get := func(v Value, def int64) (int64, error) {
				if v == Value(None) {
					return def, nil
				}
				n, err := AsInt64(th, v)
				if err != nil || n < 0 {
					return 0, Errorf("ValueError", "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
				}
				return n, nil
			}
			var start, stop, step int64 = 0, -1, 1
			if len(args) == 2 {
				if stop, err = get(args[1], -1); err != nil {
					return nil, err
				}
			} else {
				if start, err = get(args[1], 0); err != nil {
					return nil, err
				}
				if stop, err = get(args[2], -1); err != nil {
					return nil, err
				}
				if len(args) == 4 {
					if step, err = get(args[3], 1); err != nil {
						return nil, err
					}
					if step == 0 {
						return nil, Errorf("ValueError", "Step for islice() must be a positive integer or None.")
					}
				}
			}
			i := int64(0)
			next := start
			return newIterObj("itertools.islice", funcIter(func(th *Thread) (Value, bool, error) {
				for {
					if stop >= 0 && next >= stop {
						return nil, false, nil
					}
					v, ok, err := src.Next(th)
					if err != nil || !ok {
						return nil, false, err
					}
					i++
					if i-1 == next {
						next += step
						return v, true, nil
					}
				}
			})), nil
		},
		"zip_longest": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var fill Value = None
			for _, kw := range kwargs {
				if kw.Name != "fillvalue" {
					return nil, Errorf("TypeError", "zip_longest() got an unexpected keyword argument '%s'", kw.Name)
				}
				fill = kw.Value
			}
			its := make([]Iterator, len(args))
			for i, a := range args {
				it, err := getIterator(th, a)
				if err != nil {
					return nil, err
				}
				its[i] = it
			}
			done := make([]bool, len(its))
			return newIterObj("itertools.zip_longest", funcIter(func(th *Thread) (Value, bool, error) {
				t := make(Tuple, len(its))
				live := 0
				for i, it := range its {
					if done[i] {
						t[i] = fill
						continue
					}
					v, ok, err := it.Next(th)
					if err != nil {
						return nil, false, err
					}
					if !ok {
						done[i] = true
						t[i] = fill
						continue
					}
					live++
					t[i] = v
				}
				if live == 0 {
					return nil, false, nil
				}
				return t, true, nil
			})), nil
		},
		"starmap": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("starmap", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			fn := args[0]
			src, err := getIterator(th, args[1])
			if err != nil {
				return nil, err
			}
			return newIterObj("itertools.starmap", funcIter(func(th *Thread) (Value, bool, error) {
				v, ok, err := src.Next(th)
				if err != nil || !ok {
					return nil, false, err
				}
				a, err := collect(th, v)
				if err != nil {
					return nil, false, err
				}
				r, err := Call(th, fn, a, nil)
				return r, err == nil, err
			})), nil
		},
		"takewhile": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return whileIter(th, "takewhile", args, kwargs, true)
		},
		"dropwhile": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return whileIter(th, "dropwhile", args, kwargs, false)
		},
		"filterfalse": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("filterfalse", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			fn := args[0]
			src, err := getIterator(th, args[1])
			if err != nil {
				return nil, err
			}
			return newIterObj("itertools.filterfalse", funcIter(func(th *Thread) (Value, bool, error) {
				for {
					v, ok, err := src.Next(th)
					if err != nil || !ok {
						return nil, false, err
					}
					keep := v
					if fn != Value(None) {
						if keep, err = Call(th, fn, []Value{v}, nil); err != nil {
							return nil, false, err
						}
					}
					t, err := truth(th, keep)
					if err != nil {
						return nil, false, err
					}
					if !t {
						return v, true, nil
					}
				}
			})), nil
		},
		"compress": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("compress", args, kwargs, 2, 2); err != nil {
				return nil, err
			}
			data, err := collect(th, args[0])
			if err != nil {
				return nil, err
			}
			sel, err := collect(th, args[1])
			if err != nil {
				return nil, err
			}
			var out []Value
			for i := 0; i < len(data) && i < len(sel); i++ {
				t, err := truth(th, sel[i])
				if err != nil {
					return nil, err
				}
				if t {
					out = append(out, data[i])
				}
			}
			return newIterObj("itertools.compress", &sliceIter{elems: out}), nil
		},
		"pairwise": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("pairwise", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			src, err := getIterator(th, args[0])
			if err != nil {
				return nil, err
			}
			var prev Value
			return newIterObj("itertools.pairwise", funcIter(func(th *Thread) (Value, bool, error) {
				if prev == nil {
					v, ok, err := src.Next(th)
					if err != nil || !ok {
						return nil, false, err
					}
					prev = v
				}
				v, ok, err := src.Next(th)
				if err != nil || !ok {
					return nil, false, err
				}
				t := Tuple{prev, v}
				prev = v
				return t, true, nil
			})), nil
		},
		"groupby": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var it, key Value
			if err := UnpackArgs("groupby", args, kwargs, "iterable", &it, "key?", &key); err != nil {
				return nil, err
			}
			elems, err := collect(th, it)
			if err != nil {
				return nil, err
			}
			var out []Value
			var curKey Value
			var group []Value
			for i, e := range elems {
				k := e
				if key != nil && key != Value(None) {
					if k, err = Call(th, key, []Value{e}, nil); err != nil {
						return nil, err
					}
				}
				if i > 0 {
					eq, err := Equal(th, k, curKey)
					if err != nil {
						return nil, err
					}
					if !eq {
						out = append(out, Tuple{curKey, newIterObj("itertools._grouper", &sliceIter{elems: group})})
						group = nil
					}
				}
				curKey = k
				group = append(group, e)
			}
			if len(elems) > 0 {
				out = append(out, Tuple{curKey, newIterObj("itertools._grouper", &sliceIter{elems: group})})
			}
			return newIterObj("itertools.groupby", &sliceIter{elems: out}), nil
		},
		"tee": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("tee", args, kwargs, 1, 2); err != nil {
				return nil, err
			}
			n := int64(2)
			if len(args) == 2 {
				var err error
				if n, err = AsInt64(th, args[1]); err != nil {
					return nil, err
				}
			}
			elems, err := collect(th, args[0])
			if err != nil {
				return nil, err
			}
			out := make(Tuple, n)
			for i := range out {
				out[i] = newIterObj("itertools._tee", &sliceIter{elems: elems})
			}
			return out, nil
		},
	}))
	chain, _ := m.Get("chain")
	m.Set("chain", &chainClass{Builtin: chain.(*Builtin)})
	m.missing = notSupportedMissing("itertools")
	return m
}

// chainClass is itertools.chain with chain.from_iterable.
type chainClass struct{ *Builtin }

func (c *chainClass) Attr(th *Thread, name string) (Value, error) {
	if name == "from_iterable" {
		return NewBuiltin("from_iterable", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("from_iterable", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			outer, err := getIterator(th, args[0])
			if err != nil {
				return nil, err
			}
			return chainOf(th, outer), nil
		}), nil
	}
	return nil, nil
}
func (c *chainClass) AttrNames() []string { return []string{"from_iterable"} }

func chainOf(th *Thread, outer Iterator) Value {
	var cur Iterator
	return newIterObj("itertools.chain", funcIter(func(th *Thread) (Value, bool, error) {
		for {
			if cur == nil {
				it, ok, err := outer.Next(th)
				if err != nil || !ok {
					return nil, false, err
				}
				if cur, err = getIterator(th, it); err != nil {
					return nil, false, err
				}
			}
			v, ok, err := cur.Next(th)
			if err != nil {
				return nil, false, err
			}
			if ok {
				return v, true, nil
			}
			cur = nil
		}
	}))
}

func combinations(th *Thread, name string, args []Value, kwargs []Kwarg, repl bool) (Value, error) {
	var it Value
	var r int64
	if err := UnpackArgs(name, args, kwargs, "iterable", &it, "r", &r); err != nil {
		return nil, err
	}
	if r < 0 {
		return nil, Errorf("ValueError", "r must be non-negative")
	}
	pool, err := collect(th, it)
	if err != nil {
		return nil, err
	}
	var out []Value
	var rec func(start int, prefix []int) error
	rec = func(start int, prefix []int) error {
		if int64(len(prefix)) == r {
			t := make(Tuple, len(prefix))
			for i, j := range prefix {
				t[i] = pool[j]
			}
			if len(out) >= th.sizeLimit() {
				return sizeError(th)
			}
			out = append(out, t)
			return th.tick()
		}
		for i := start; i < len(pool); i++ {
			next := i + 1
			if repl {
				next = i
			}
			if err := rec(next, append(prefix, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if repl || r <= int64(len(pool)) {
		if !(repl && len(pool) == 0 && r > 0) {
			if err := rec(0, nil); err != nil {
				return nil, err
			}
		}
	}
	return newIterObj("itertools."+name, &sliceIter{elems: out}), nil
}

func whileIter(th *Thread, name string, args []Value, kwargs []Kwarg, take bool) (Value, error) {
	if err := argCount(name, args, kwargs, 2, 2); err != nil {
		return nil, err
	}
	fn := args[0]
	src, err := getIterator(th, args[1])
	if err != nil {
		return nil, err
	}
	done := false
	return newIterObj("itertools."+name, funcIter(func(th *Thread) (Value, bool, error) {
		for {
			v, ok, err := src.Next(th)
			if err != nil || !ok {
				return nil, false, err
			}
			if done {
				if take {
					return nil, false, nil
				}
				return v, true, nil
			}
			r, err := Call(th, fn, []Value{v}, nil)
			if err != nil {
				return nil, false, err
			}
			t, err := truth(th, r)
			if err != nil {
				return nil, false, err
			}
			if take {
				if t {
					return v, true, nil
				}
				done = true
				return nil, false, nil
			}
			if !t {
				done = true
				return v, true, nil
			}
		}
	})), nil
}

// ---------------------------------------------------------------------------
// copy.

func makeCopyModule(th *Thread) *Module {
	return NewModule("copy", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"copy": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("copy", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			return shallowCopy(th, args[0])
		},
		"deepcopy": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("deepcopy", args, kwargs, 1, 2); err != nil {
				return nil, err
			}
			return deepCopy(th, args[0], map[uint64]Value{})
		},
	}))
}

func shallowCopy(th *Thread, v Value) (Value, error) {
	switch x := v.(type) {
	case *List:
		return NewList(append([]Value(nil), x.elems...)), nil
	case *Dict:
		return x.copyDict(), nil
	case *Set:
		if x.frozen {
			return x, nil
		}
		return x.copySet(false), nil
	case *Instance:
		if f := x.class.userLookup("__copy__"); f != nil {
			return callMethod(th, x, f, nil, nil)
		}
		c := &Instance{class: x.class, dict: newStrDict(len(x.dict.keys)), serial: nextSerial(), args: x.args, th: th, frozen: x.frozen}
		for _, k := range x.dict.keys {
			c.dict.set(k, x.dict.m[k])
		}
		if x.base != nil {
			b, err := shallowCopy(th, x.base)
			if err != nil {
				return nil, err
			}
			c.base = b
		}
		return c, nil
	}
	return v, nil
}

func deepCopy(th *Thread, v Value, memo map[uint64]Value) (Value, error) {
	if err := th.tick(); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case *List:
		if c, ok := memo[x.serial]; ok {
			return c, nil
		}
		c := NewList(make([]Value, len(x.elems)))
		memo[x.serial] = c
		for i, e := range x.elems {
			d, err := deepCopy(th, e, memo)
			if err != nil {
				return nil, err
			}
			c.elems[i] = d
		}
		return c, nil
	case Tuple:
		out := make(Tuple, len(x))
		for i, e := range x {
			d, err := deepCopy(th, e, memo)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case *Dict:
		if c, ok := memo[x.serial]; ok {
			return c, nil
		}
		c := &Dict{serial: nextSerial(), kind: x.kind, factory: x.factory}
		memo[x.serial] = c
		for _, kv := range x.Items() {
			k, err := deepCopy(th, kv[0], memo)
			if err != nil {
				return nil, err
			}
			val, err := deepCopy(th, kv[1], memo)
			if err != nil {
				return nil, err
			}
			if err := c.Set(th, k, val); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *Set:
		c := &Set{d: Dict{serial: nextSerial()}, frozen: x.frozen}
		for _, e := range x.Elems() {
			d, err := deepCopy(th, e, memo)
			if err != nil {
				return nil, err
			}
			if err := c.Add(th, d); err != nil {
				return nil, err
			}
		}
		return c, nil
	case *Instance:
		if c, ok := memo[x.serial]; ok {
			return c, nil
		}
		if x.class.enum != nil {
			return x, nil
		}
		if f := x.class.userLookup("__deepcopy__"); f != nil {
			return callMethod(th, x, f, []Value{NewDict()}, nil)
		}
		c := &Instance{class: x.class, dict: newStrDict(len(x.dict.keys)), serial: nextSerial(), args: x.args, th: th, frozen: x.frozen}
		memo[x.serial] = c
		for _, k := range x.dict.keys {
			d, err := deepCopy(th, x.dict.m[k], memo)
			if err != nil {
				return nil, err
			}
			c.dict.set(k, d)
		}
		if x.base != nil {
			b, err := deepCopy(th, x.base, memo)
			if err != nil {
				return nil, err
			}
			c.base = b
		}
		return c, nil
	}
	return v, nil
}

// ---------------------------------------------------------------------------
// warnings, os, sys.

// Warning is one warnings.warn call.
type Warning struct {
	Category string
	Message  string
	Pos      Pos
}

// Warnings returns the warnings the trace issued.
func (th *Thread) Warnings() []Warning { return th.warnings }

func makeWarningsModule(th *Thread) *Module {
	noop := func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) { return None, nil }
	m := NewModule("warnings", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"warn": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var msg, cat, level Value
			if err := UnpackArgs("warn", args, kwargs, "message", &msg, "category?", &cat, "stacklevel?", &level, "source?", new(Value)); err != nil {
				return nil, err
			}
			category := "UserWarning"
			if c, ok := cat.(*Class); ok {
				category = c.name
			}
			s, err := toStr(th, msg)
			if err != nil {
				return nil, err
			}
			th.warnings = append(th.warnings, Warning{Category: category, Message: s, Pos: th.CallPos()})
			return None, nil
		},
		"simplefilter":   noop,
		"filterwarnings": noop,
		"resetwarnings":  noop,
		"catch_warnings": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return &nullContext{}, nil
		},
	}))
	return m
}

// nullContext is a context manager that does nothing.
type nullContext struct{}

func (nullContext) Type() string                     { return "catch_warnings" }
func (nullContext) String() string                   { return "<catch_warnings>" }
func (nullContext) Truth() (bool, error)             { return true, nil }
func (nullContext) Enter(th *Thread) (Value, error)  { return NewList(nil), nil }
func (nullContext) Exit(th *Thread, err error) error { return err }

func makeOSPath() *Module {
	str1 := func(name string, f func(string) Value) func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
		return func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount(name, args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			s, ok := AsString(args[0])
			if !ok {
				return nil, Errorf("TypeError", "expected str, got %s", args[0].Type())
			}
			return f(s), nil
		}
	}
	m := NewModule("os.path", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"join": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			out := ""
			for _, a := range args {
				s, ok := AsString(a)
				if !ok {
					return nil, Errorf("TypeError", "join() argument must be str, not '%s'", a.Type())
				}
				switch {
				case strings.HasPrefix(s, "/"):
					out = s
				case out == "" || strings.HasSuffix(out, "/"):
					out += s
				default:
					out += "/" + s
				}
			}
			return String(out), nil
		},
		"basename": str1("basename", func(s string) Value { return String(s[strings.LastIndexByte(s, '/')+1:]) }),
		"dirname": str1("dirname", func(s string) Value {
			i := strings.LastIndexByte(s, '/')
			if i < 0 {
				return String("")
			}
			d := strings.TrimRight(s[:i+1], "/")
			if d == "" {
				d = "/"
			}
			return String(d)
		}),
		"splitext": str1("splitext", func(s string) Value {
			base := s[strings.LastIndexByte(s, '/')+1:]
			i := strings.LastIndexByte(base, '.')
			if i <= 0 || strings.Trim(base[:i], ".") == "" {
				return Tuple{String(s), String("")}
			}
			cut := len(s) - len(base) + i
			return Tuple{String(s[:cut]), String(s[cut:])}
		}),
		"split": str1("split", func(s string) Value {
			i := strings.LastIndexByte(s, '/')
			head, tail := s[:i+1], s[i+1:]
			if t := strings.TrimRight(head, "/"); t != "" {
				head = t
			}
			return Tuple{String(head), String(tail)}
		}),
		"normpath": str1("normpath", func(s string) Value { return String(path.Clean(s)) }),
		"isabs":    str1("isabs", func(s string) Value { return Bool(strings.HasPrefix(s, "/")) }),
	}))
	m.Set("sep", String("/"))
	m.missing = notSupportedMissing("os.path")
	return m
}

func makeOSModule(th *Thread) *Module {
	env := NewDict()
	m := NewModule("os", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"getenv": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			var key, def Value = nil, None
			if err := UnpackArgs("getenv", args, kwargs, "key", &key, "default?", &def); err != nil {
				return nil, err
			}
			return def, nil
		},
	}))
	m.Set("environ", env)
	m.Set("path", makeOSPath())
	m.Set("sep", String("/"))
	m.Set("linesep", String("\n"))
	m.Set("name", String("posix"))
	m.missing = notSupportedMissing("os")
	return m
}

// stdStream is sys.stdout / sys.stderr: write() goes to the print log.
type stdStream struct{ name string }

func (s *stdStream) Type() string         { return "TextIOWrapper" }
func (s *stdStream) String() string       { return "<_io.TextIOWrapper name='<" + s.name + ">'>" }
func (s *stdStream) Truth() (bool, error) { return true, nil }
func (s *stdStream) Attr(th *Thread, name string) (Value, error) {
	switch name {
	case "write":
		return NewBuiltin("write", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("write", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			str, ok := AsString(args[0])
			if !ok {
				return nil, Errorf("TypeError", "write() argument must be str, not %s", args[0].Type())
			}
			th.writeOutput(str)
			th.printed--
			return intValue(int64(strLen(str))), nil
		}), nil
	case "flush":
		return NewBuiltin("flush", func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) { return None, nil }), nil
	}
	return nil, nil
}
func (s *stdStream) AttrNames() []string { return []string{"flush", "write"} }

func makeSysModule(th *Thread) *Module {
	vi := &Instance{class: versionInfoClass, dict: newStrDict(0), serial: nextSerial(), th: th,
		base: Tuple{intValue(3), intValue(11), intValue(0), String("final"), intValue(0)}}
	m := NewModule("sys", fns(map[string]func(th *Thread, args []Value, kwargs []Kwarg) (Value, error){
		"getrecursionlimit": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			return intValue(int64(th.maxDepth)), nil
		},
		"setrecursionlimit": func(th *Thread, args []Value, kwargs []Kwarg) (Value, error) {
			if err := argCount("setrecursionlimit", args, kwargs, 1, 1); err != nil {
				return nil, err
			}
			n, err := AsInt64(th, args[0])
			if err != nil {
				return nil, err
			}
			if n < 1 {
				return nil, Errorf("ValueError", "recursion limit must be greater or equal than 1")
			}
			// The Thread's own limit is the ceiling.
			if n < int64(th.maxDepth) {
				th.maxDepth = int(n)
			}
			return None, nil
		},
	}))
	m.Set("version_info", vi)
	m.Set("version", String("3.11.0 (narwhal tracer)"))
	m.Set("maxsize", MakeInt(1<<63-1))
	m.Set("platform", String("linux"))
	m.Set("byteorder", String("little"))
	m.Set("argv", NewList([]Value{String("")}))
	m.Set("path", NewList(nil))
	m.Set("stdout", &stdStream{name: "stdout"})
	m.Set("stderr", &stdStream{name: "stderr"})
	m.Set("float_info", NewModule("float_info", map[string]Value{
		"max": Float(math.MaxFloat64), "min": Float(2.2250738585072014e-308), "epsilon": Float(2.220446049250313e-16),
		"dig": intValue(15), "mant_dig": intValue(53),
	}))
	m.missing = notSupportedMissing("sys")
	return m
}

var versionInfoClass = &Class{}

func init() {
	goClass(versionInfoClass, "version_info", "sys", tupleClass)
	setupNamedTuple(versionInfoClass, []string{"major", "minor", "micro", "releaselevel", "serial"}, nil)
	versionInfoClass.module = "sys"
}

// getter is operator.itemgetter and operator.attrgetter: a callable of one
// argument returning get(argument, key) for its one key, or the tuple of
// them for several keys.
func getter[K any](name string, keys []K, get func(th *Thread, v Value, key K) (Value, error)) *Builtin {
	return NewBuiltin(name, func(th *Thread, a []Value, kw []Kwarg) (Value, error) {
		if len(a) != 1 {
			return nil, Errorf("TypeError", "%s expected 1 argument, got %d", name, len(a))
		}
		if len(keys) == 1 {
			return get(th, a[0], keys[0])
		}
		out := make(Tuple, len(keys))
		for i, k := range keys {
			v, err := get(th, a[0], k)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	})
}
