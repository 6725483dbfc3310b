package api

// numpy as NKI kernels use it: dtypes (np.float32, ...) and ufuncs as op
// names (np.add as the op= of nisa.tensor_tensor, np.exp as the op= of
// nisa.activation). Called on tiles, a ufunc is the nl function of the
// same meaning; called on Python numbers it computes the number (np.sqrt
// of a constant), so module-level constants work.

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// The numpy ufuncs and the nl functions they stand for.
var numpyUfuncs = map[string]string{
	"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide", "true_divide": "divide",
	"power": "power", "maximum": "maximum", "minimum": "minimum", "mod": "mod", "remainder": "mod",
	"equal": "equal", "not_equal": "not_equal", "greater": "greater", "greater_equal": "greater_equal",
	"less": "less", "less_equal": "less_equal", "logical_and": "logical_and", "logical_or": "logical_or",
	"logical_xor": "logical_xor", "logical_not": "logical_not", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
	"bitwise_xor": "bitwise_xor", "invert": "invert", "bitwise_not": "invert", "left_shift": "left_shift", "right_shift": "right_shift",
	"exp": "exp", "log": "log", "sqrt": "sqrt", "tanh": "tanh", "sin": "sin", "arctan": "arctan",
	"square": "square", "sign": "sign", "abs": "abs", "absolute": "abs", "negative": "negative", "copy": "copy",
	"reciprocal": "reciprocal", "max": "max", "min": "min", "sum": "sum", "prod": "prod", "mean": "mean",
}

// Scalar functions on Python numbers.
var numpyScalar = map[string]func(float64) float64{
	"exp": math.Exp, "log": math.Log, "sqrt": math.Sqrt, "tanh": math.Tanh, "sin": math.Sin, "arctan": math.Atan,
	"abs": math.Abs, "absolute": math.Abs, "square": func(x float64) float64 { return x * x },
	"negative":   func(x float64) float64 { return -x },
	"reciprocal": func(x float64) float64 { return 1 / x },
	"sign": func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return x
	},
	"cos": math.Cos, "log2": math.Log2, "floor": math.Floor, "ceil": math.Ceil,
}

func numpyFunc(name, nl string) *Op {
	target := registry["nl."+nl]
	o := &Op{name: "np." + name}
	if target != nil {
		o.alu, o.act = target.alu, target.act
	}
	o.fn = func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		if f := numpyScalar[name]; f != nil && len(args) == 1 && len(kwargs) == 0 {
			if x, _, ok := number(args[0]); ok {
				return tracer.Float(f(x)), nil
			}
		}
		if target == nil {
			return nil, notSupportedf("np.%s on tiles is not supported by narwhal", name)
		}
		return target.Call(th, args, kwargs)
	}
	return o
}

// numpyExtra are numpy's array constructors (hostarray.go).
var numpyExtra = map[string]tracer.Value{}

func numpyModule(name string) *tracer.Module {
	m := map[string]tracer.Value{}
	for n, v := range numpyExtra {
		m[n] = v
	}
	for np, nl := range numpyUfuncs {
		m[np] = numpyFunc(np, nl)
	}
	for np := range numpyScalar {
		if _, ok := m[np]; !ok {
			m[np] = numpyFunc(np, "")
		}
	}
	for dt, n := range dtypeNames {
		switch dt {
		case bir.BFloat16, bir.Float32R, bir.Float8E4M3, bir.Float8E5, bir.Float8E4M3FN:
			continue // not numpy dtypes (ml_dtypes' are under nl)
		}
		m[n] = dtypeValue(dt)
	}
	m["bool_"] = &Dtype{dt: bir.Uint8, name: "bool"}
	m["bool"] = m["bool_"]
	m["pi"] = tracer.Float(math.Pi)
	m["e"] = tracer.Float(math.E)
	m["inf"] = tracer.Float(math.Inf(1))
	m["nan"] = tracer.Float(math.NaN())
	m["float64"] = tracer.NewBuiltin("np.float64", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x tracer.Value
		if err := tracer.UnpackArgs("np.float64", args, kwargs, "x?", &x); err != nil || x == nil {
			return tracer.Float(0), err
		}
		f, err := tracer.AsFloat64(th, x)
		return tracer.Float(f), err
	})
	m["dtype"] = tracer.NewBuiltin("np.dtype", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x tracer.Value
		if err := tracer.UnpackArgs("np.dtype", args, kwargs, "x", &x); err != nil {
			return nil, err
		}
		dt, err := dtypeOf(x)
		if err != nil {
			return nil, err
		}
		return dtypeValue(dt), nil
	})
	return tracer.NewModule(name, m)
}

// roundVia rounds v to dt's values through fp32 (numeric's conversions).
func roundVia(dt bir.Dtype, v float64) float64 {
	bits, ok := numeric.FromFloat32(dt, float32(v))
	if !ok {
		return math.NaN()
	}
	f, ok := numeric.ToFloat32(dt, bits)
	if !ok {
		return math.NaN()
	}
	return float64(f)
}
