package api

// Trace-time numpy arrays: the host data a kernel hands nl.shared_constant
// (NKI 0.3: "A trace-time tensor containing the constant data", made with
// numpy in kernels: np.arange(128, dtype=np.float32).reshape(128, 1) / 8).
// A HostArray is a small n-d array of float64 values with a dtype; the
// numpy functions that make one are np.arange, np.zeros, np.ones,
// np.full, np.eye, np.identity and np.array, and it supports reshape,
// astype, transpose (.T), flatten, copy, shape/dtype/ndim/size, and
// elementwise + - * / // % ** with numbers and arrays of its shape (and
// unary -). Values are rounded to the array's dtype after every
// operation, as numpy stores them; float64 is the default dtype (it is no
// NKI dtype: nl.shared_constant then needs dtype=).

import (
	"fmt"
	"math"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// HostArray is a trace-time numpy array.
type HostArray struct {
	shape []int64
	data  []float64
	dt    bir.Dtype
	f64   bool // numpy's float64 (no NKI dtype)
	i64   bool // numpy's default int64
}

const maxHostElems = 1 << 22

func (a *HostArray) Type() string { return "ndarray" }
func (a *HostArray) String() string {
	var b strings.Builder
	b.WriteString("array(shape=")
	b.WriteString(shapeText(a.shape))
	b.WriteString(", dtype=" + a.dtypeName() + ")")
	return b.String()
}
func (a *HostArray) Truth() (bool, error) {
	if len(a.data) == 1 {
		return a.data[0] != 0, nil
	}
	return false, tracer.Errorf("ValueError", "The truth value of an array with more than one element is ambiguous")
}

func (a *HostArray) dtypeName() string {
	switch {
	case a.f64:
		return "float64"
	case a.i64:
		return "int64"
	}
	return dtypeValue(a.dt).name
}

func (a *HostArray) isFloat() bool { return a.f64 || !a.i64 && a.dt.IsFloat() }

// round stores v as the array's dtype stores it.
func (a *HostArray) round(v float64) float64 {
	switch {
	case a.f64:
		return v
	case a.i64:
		return math.Trunc(v)
	case a.dt.IsFloat():
		return roundDtype(a.dt, v)
	}
	return math.Trunc(v)
}

func newHostArray(shape []int64, dt tracer.Value) (*HostArray, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, tracer.Errorf("ValueError", "negative dimensions are not allowed")
		}
		n *= d
		if n > maxHostElems {
			return nil, tracer.Errorf("MemoryError", "a trace-time array of more than %d elements", maxHostElems)
		}
	}
	a := &HostArray{shape: shape, data: make([]float64, n), f64: true}
	if !isNone(dt) {
		if err := a.setDtype(dt); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *HostArray) setDtype(v tracer.Value) error {
	if b, ok := v.(*tracer.Builtin); ok && b.Name() == "np.float64" {
		a.f64, a.i64 = true, false
		return nil
	}
	if c, ok := v.(*tracer.Class); ok && c.Name() == "float" {
		a.f64, a.i64 = true, false
		return nil
	}
	if c, ok := v.(*tracer.Class); ok && c.Name() == "int" {
		a.f64, a.i64 = false, true
		return nil
	}
	dt, err := dtypeOf(v)
	if err != nil {
		return err
	}
	if dt == bir.Int64 {
		a.f64, a.i64 = false, true
		return nil
	}
	a.dt, a.f64, a.i64 = dt, false, false
	for i, x := range a.data {
		a.data[i] = a.round(x)
	}
	return nil
}

func (a *HostArray) clone() *HostArray {
	b := *a
	b.shape = append([]int64(nil), a.shape...)
	b.data = append([]float64(nil), a.data...)
	return &b
}

// Attr gives the array's attributes and methods.
func (a *HostArray) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	switch name {
	case "shape":
		return intTuple(a.shape), nil
	case "ndim":
		return tracer.MakeInt(int64(len(a.shape))), nil
	case "size":
		return tracer.MakeInt(int64(len(a.data))), nil
	case "dtype":
		if a.f64 || a.i64 {
			return tracer.String(a.dtypeName()), nil
		}
		return dtypeValue(a.dt), nil
	case "T":
		return a.transpose()
	}
	method := func(fn func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error)) tracer.Value {
		return tracer.NewBuiltin(name, fn)
	}
	switch name {
	case "reshape":
		return method(func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			var sv tracer.Value = tracer.Tuple(args)
			if len(args) == 1 {
				sv = args[0]
			}
			shape, _, err := shapeOf(th, sv, "reshape")
			if err != nil {
				return nil, err
			}
			n, neg := int64(1), -1
			for i, d := range shape {
				if d == -1 && neg < 0 {
					neg = i
					continue
				}
				n *= d
			}
			if neg >= 0 && n > 0 {
				shape[neg] = int64(len(a.data)) / n
				n *= shape[neg]
			}
			if n != int64(len(a.data)) {
				return nil, tracer.Errorf("ValueError", "cannot reshape array of size %d into shape %s", len(a.data), shapeText(shape))
			}
			b := a.clone()
			b.shape = shape
			return b, nil
		}), nil
	case "astype":
		return method(func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			var dt tracer.Value
			if err := tracer.UnpackArgs("astype", args, kwargs, "dtype", &dt); err != nil {
				return nil, err
			}
			b := a.clone()
			return b, b.setDtype(dt)
		}), nil
	case "transpose":
		return method(func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			return a.transpose()
		}), nil
	case "flatten", "ravel", "copy":
		return method(func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			b := a.clone()
			if name != "copy" {
				b.shape = []int64{int64(len(a.data))}
			}
			return b, nil
		}), nil
	}
	return nil, nil
}

func (a *HostArray) AttrNames() []string {
	return []string{"T", "astype", "copy", "dtype", "flatten", "ndim", "ravel", "reshape", "shape", "size", "transpose"}
}

// transpose reverses a 1-D or 2-D array's axes.
func (a *HostArray) transpose() (tracer.Value, error) {
	if len(a.shape) <= 1 {
		return a.clone(), nil
	}
	if len(a.shape) != 2 {
		return nil, notSupportedf("transposing a %d-dimensional trace-time array", len(a.shape))
	}
	r, c := a.shape[0], a.shape[1]
	b := a.clone()
	b.shape = []int64{c, r}
	for i := int64(0); i < r; i++ {
		for j := int64(0); j < c; j++ {
			b.data[j*r+i] = a.data[i*c+j]
		}
	}
	return b, nil
}

// Len is the first dimension.
func (a *HostArray) Len(th *tracer.Thread) (int, error) {
	if len(a.shape) == 0 {
		return 0, typeErrorf("len() of unsized object")
	}
	return int(a.shape[0]), nil
}

var hostOps = map[string]func(x, y float64) float64{
	"Add": func(x, y float64) float64 { return x + y }, "Sub": func(x, y float64) float64 { return x - y },
	"Mult": func(x, y float64) float64 { return x * y }, "Div": func(x, y float64) float64 { return x / y },
	"FloorDiv": func(x, y float64) float64 { return math.Floor(x / y) },
	"Mod": func(x, y float64) float64 {
		m := math.Mod(x, y)
		if m != 0 && (m < 0) != (y < 0) {
			m += y
		}
		return m
	},
	"Pow": math.Pow,
}

// Binary implements the elementwise operators.
func (a *HostArray) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	fn := hostOps[op.String()]
	if fn == nil {
		return nil, nil
	}
	out := a.clone()
	if op.String() == "Div" && !a.isFloat() {
		out.i64, out.f64 = false, true
	}
	switch o := other.(type) {
	case *HostArray:
		if len(o.data) != len(a.data) || fmt.Sprint(o.shape) != fmt.Sprint(a.shape) {
			if len(o.data) != 1 {
				return nil, tracer.Errorf("ValueError", "operands could not be broadcast together with shapes %s %s", shapeText(a.shape), shapeText(o.shape))
			}
		}
		if o.isFloat() && !a.isFloat() {
			out.i64, out.f64 = false, true
		}
		for i := range out.data {
			y := o.data[min(i, len(o.data)-1)]
			if right {
				out.data[i] = out.round(fn(y, a.data[i]))
			} else {
				out.data[i] = out.round(fn(a.data[i], y))
			}
		}
		return out, nil
	}
	y, _, ok := number(other)
	if !ok {
		return nil, nil
	}
	if _, isF := other.(tracer.Float); isF && !a.isFloat() {
		out.i64, out.f64 = false, true
	}
	for i := range out.data {
		if right {
			out.data[i] = out.round(fn(y, a.data[i]))
		} else {
			out.data[i] = out.round(fn(a.data[i], y))
		}
	}
	return out, nil
}

// Unary implements -a and +a.
func (a *HostArray) Unary(th *tracer.Thread, op syntax.UnaryOpKind) (tracer.Value, error) {
	b := a.clone()
	switch op {
	case syntax.USub:
		for i := range b.data {
			b.data[i] = -b.data[i]
		}
	case syntax.UAdd:
	default:
		return nil, nil
	}
	return b, nil
}

// roundDtype rounds v to a float dtype's values.
func roundDtype(dt bir.Dtype, v float64) float64 {
	if dt == bir.Float32 {
		return float64(float32(v))
	}
	return roundVia(dt, v)
}

// ---- the numpy functions ----

func npShapeArg(th *tracer.Thread, v tracer.Value, what string) ([]int64, error) {
	shape, _, err := shapeOf(th, v, what)
	return shape, err
}

func npArange(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var a, b, c, dt tracer.Value
	if err := tracer.UnpackArgs("np.arange", args, kwargs, "start", &a, "stop?", &b, "step?", &c, "dtype?", &dt); err != nil {
		return nil, err
	}
	start, stop, step := 0.0, 0.0, 1.0
	isFloat := false
	conv := func(v tracer.Value) (float64, error) {
		if _, ok := v.(tracer.Float); ok {
			isFloat = true
		}
		return tracer.AsFloat64(th, v)
	}
	var err error
	if isNone(b) {
		if stop, err = conv(a); err != nil {
			return nil, err
		}
	} else {
		if start, err = conv(a); err != nil {
			return nil, err
		}
		if stop, err = conv(b); err != nil {
			return nil, err
		}
	}
	if !isNone(c) {
		if step, err = conv(c); err != nil {
			return nil, err
		}
	}
	if step == 0 {
		return nil, tracer.Errorf("ZeroDivisionError", "division by zero")
	}
	n := int64(math.Ceil((stop - start) / step))
	if n < 0 {
		n = 0
	}
	out, err := newHostArray([]int64{n}, nil)
	if err != nil {
		return nil, err
	}
	out.f64, out.i64 = isFloat, !isFloat
	for i := range out.data {
		out.data[i] = start + float64(i)*step
	}
	if !isNone(dt) {
		if err := out.setDtype(dt); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func npFill(what string, value float64, hasFill bool) func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var shapeV, fillV, dt tracer.Value
		var err error
		if hasFill {
			err = tracer.UnpackArgs(what, args, kwargs, "shape", &shapeV, "fill_value", &fillV, "dtype?", &dt)
		} else {
			err = tracer.UnpackArgs(what, args, kwargs, "shape", &shapeV, "dtype?", &dt)
		}
		if err != nil {
			return nil, err
		}
		shape, err := npShapeArg(th, shapeV, what)
		if err != nil {
			return nil, err
		}
		out, err := newHostArray(shape, nil)
		if err != nil {
			return nil, err
		}
		v := value
		if hasFill {
			if v, err = tracer.AsFloat64(th, fillV); err != nil {
				return nil, err
			}
			if _, isInt := fillV.(tracer.Int); isInt {
				out.f64, out.i64 = false, true
			}
		}
		for i := range out.data {
			out.data[i] = v
		}
		if !isNone(dt) {
			if err := out.setDtype(dt); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

func npEye(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var nV, mV, kV, dt tracer.Value
	if err := tracer.UnpackArgs("np.eye", args, kwargs, "N", &nV, "M?", &mV, "k?", &kV, "dtype?", &dt); err != nil {
		return nil, err
	}
	n, err := tracer.AsInt64(th, nV)
	if err != nil {
		return nil, err
	}
	m := n
	if !isNone(mV) {
		if m, err = tracer.AsInt64(th, mV); err != nil {
			return nil, err
		}
	}
	var k int64
	if !isNone(kV) {
		if k, err = tracer.AsInt64(th, kV); err != nil {
			return nil, err
		}
	}
	out, err := newHostArray([]int64{n, m}, nil)
	if err != nil {
		return nil, err
	}
	for i := int64(0); i < n; i++ {
		if j := i + k; j >= 0 && j < m {
			out.data[i*m+j] = 1
		}
	}
	if !isNone(dt) {
		if err := out.setDtype(dt); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func npArray(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var obj, dt tracer.Value
	if err := tracer.UnpackArgs("np.array", args, kwargs, "object", &obj, "dtype?", &dt); err != nil {
		return nil, err
	}
	if h, ok := obj.(*HostArray); ok {
		b := h.clone()
		if !isNone(dt) {
			return b, b.setDtype(dt)
		}
		return b, nil
	}
	var data []float64
	isFloat := false
	dims := map[int]int64{}
	leaf := -1
	var walk func(v tracer.Value, depth int) error
	walk = func(v tracer.Value, depth int) error {
		switch v.(type) {
		case tracer.Tuple, *tracer.List:
			n := int64(0)
			err := tracer.Iterate(th, v, func(x tracer.Value) error {
				n++
				return walk(x, depth+1)
			})
			if err != nil {
				return err
			}
			if d, ok := dims[depth]; ok && d != n {
				return tracer.Errorf("ValueError", "setting an array element with a sequence: the nested lists are not rectangular")
			}
			dims[depth] = n
			return nil
		}
		if leaf >= 0 && leaf != depth {
			return tracer.Errorf("ValueError", "setting an array element with a sequence: the nested lists are not rectangular")
		}
		leaf = depth
		if _, ok := v.(tracer.Float); ok {
			isFloat = true
		}
		f, err := tracer.AsFloat64(th, v)
		data = append(data, f)
		return err
	}
	if err := walk(obj, 0); err != nil {
		return nil, err
	}
	shape := make([]int64, len(dims))
	for d := range shape {
		shape[d] = dims[d]
	}
	if len(data) > maxHostElems {
		return nil, tracer.Errorf("MemoryError", "a trace-time array of more than %d elements", maxHostElems)
	}
	out := &HostArray{shape: shape, data: data, f64: isFloat, i64: !isFloat}
	if !isNone(dt) {
		if err := out.setDtype(dt); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func init() {
	numpyExtra["arange"] = tracer.NewBuiltin("np.arange", npArange)
	numpyExtra["zeros"] = tracer.NewBuiltin("np.zeros", npFill("np.zeros", 0, false))
	numpyExtra["ones"] = tracer.NewBuiltin("np.ones", npFill("np.ones", 1, false))
	numpyExtra["full"] = tracer.NewBuiltin("np.full", npFill("np.full", 0, true))
	numpyExtra["eye"] = tracer.NewBuiltin("np.eye", npEye)
	numpyExtra["identity"] = tracer.NewBuiltin("np.identity", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var n, dt tracer.Value
		if err := tracer.UnpackArgs("np.identity", args, kwargs, "n", &n, "dtype?", &dt); err != nil {
			return nil, err
		}
		kw := []tracer.Kwarg{}
		if !isNone(dt) {
			kw = append(kw, tracer.Kwarg{Name: "dtype", Value: dt})
		}
		return npEye(th, []tracer.Value{n}, kw)
	})
	numpyExtra["array"] = tracer.NewBuiltin("np.array", npArray)
	numpyExtra["asarray"] = numpyExtra["array"]
}
