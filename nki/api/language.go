package api

// neuronxcc.nki.language (nl): the legacy NKI language API. The functions
// and the instructions they become are listed in docs/nki.md.

import (
	"fmt"
	"sort"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// Op is an NKI function value (nl.add, nisa.nc_matmul, np.exp). Besides
// being callable, an operator function is the op= argument of the ISA
// calls: alu names its ALU operation (tensor_tensor, tensor_scalar,
// tensor_reduce), act its activation function (nisa.activation).
type Op struct {
	name string
	alu  string
	act  string
	fn   func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error)
	why  string // for an unsupported function: why
}

func (o *Op) Type() string         { return "function" }
func (o *Op) String() string       { return "<function " + o.name + ">" }
func (o *Op) Truth() (bool, error) { return true, nil }
func (o *Op) Name() string         { return o.name }

// Call calls the function.
func (o *Op) Call(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if o.fn == nil {
		why := o.why
		if why == "" {
			why = "it has no instruction narwhal can run"
		}
		return nil, notSupportedf("%s is not supported by narwhal: %s", o.name, why)
	}
	if st := current(th); st != nil {
		st.at(th)
	}
	return o.fn(th, args, kwargs)
}

var registry = map[string]*Op{}

func register(o *Op) *Op {
	registry[o.name] = o
	return o
}

func callOp(th *tracer.Thread, name string, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	o, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("api: no function %s", name)
	}
	return o.Call(th, args, kwargs)
}

// members returns the registry entries of module prefix ("nl.").
func members(prefix string) map[string]tracer.Value {
	out := map[string]tracer.Value{}
	for name, o := range registry {
		if len(name) > len(prefix) && name[:len(prefix)] == prefix {
			out[name[len(prefix):]] = o
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Elementwise arithmetic.

// The ALU operations of the nl arithmetic functions (the nki-aluop table).
var aluOf = map[string]string{
	"add": "add", "subtract": "subtract", "multiply": "mult", "divide": "divide", "power": "pow",
	"maximum": "max", "minimum": "min", "mod": "mod",
	"equal": "is_equal", "not_equal": "not_equal", "greater": "is_gt", "greater_equal": "is_ge",
	"less": "is_lt", "less_equal": "is_le",
	"logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
	"bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
	"left_shift": "logical_shift_left", "right_shift": "logical_shift_right",
}

var boolResult = map[string]bool{
	"equal": true, "not_equal": true, "greater": true, "greater_equal": true, "less": true, "less_equal": true,
	"logical_and": true, "logical_or": true, "logical_xor": true,
}

// The activation functions of the nl unary functions (the nki-act-func
// table: "approximated with piece-wise polynomials on Scalar Engine").
var actOf = map[string]string{
	"exp": "Exp", "log": "Ln", "tanh": "Tanh", "sigmoid": "Sigmoid", "relu": "Relu", "gelu": "Gelu",
	"gelu_dx": "Derivative_Gelu", "gelu_apprx_tanh": "Gelu_apprx_tanh", "gelu_apprx_sigmoid": "Gelu_apprx_sigmoid",
	"silu": "Silu", "silu_dx": "Derivative_silu", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "square": "Square",
	"softplus": "Softplus", "mish": "Mish", "erf": "Erf", "erf_dx": "Derivative_Erf", "sin": "Sin",
	"arctan": "Arctan", "sign": "Sign", "abs": "Abs", "copy": "Identity",
}

func rejectKwargs(what string, rest []tracer.Kwarg) error {
	if len(rest) > 0 {
		return notSupportedf("%s(%s=...): the argument is not supported by narwhal", what, rest[0].Name)
	}
	return nil
}

func binaryFn(name string) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	what := "nl." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x, y, dtype, mask tracer.Value
		var rest []tracer.Kwarg
		if err := tracer.UnpackArgs(what, args, kwargs, "x", &x, "y", &y, "dtype?", &dtype, "mask?", &mask, "**kwargs", &rest); err != nil {
			return nil, err
		}
		if err := rejectKwargs(what, rest); err != nil {
			return nil, err
		}
		return binaryOp(th, what, aluOf[name], x, y, dtype, mask, boolResult[name])
	}
}

// binaryOp lowers an elementwise operation of two operands: a tile and a
// number (TensorScalar), two tiles of one shape (TensorTensor), a tile and
// a [P, 1] tile (TensorScalarPtr, the scalar broadcast along the free
// dimension), a tile and a [1, F] tile (a partition broadcast, then
// TensorTensor).
func binaryOp(th *tracer.Thread, what, alu string, x, y, dtypeV, maskV tracer.Value, boolRes bool) (tracer.Value, error) {
	xf, xdt, xnum := number(x)
	yf, ydt, ynum := number(y)
	if xnum && ynum {
		return nil, typeErrorf("%s of two numbers: use Python arithmetic", what)
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	mask, err := maskOf(maskV)
	if err != nil {
		return nil, err
	}
	k := st.k
	pos := th.CallPos()
	resDtype := func(a, b bir.Dtype) (bir.Dtype, error) {
		def := lower.Promote(a, b)
		if boolRes {
			def = bir.Uint8
		}
		return optDtype(dtypeV, def)
	}
	if xnum || ynum {
		tile, num, ndt := y, xf, xdt
		if ynum {
			tile, num, ndt = x, yf, ydt
		}
		a, m, err := onChipOf(tile, what, "the tile operand")
		if err != nil {
			return nil, err
		}
		dt, err := resDtype(a.Dtype, ndt)
		if err != nil {
			return nil, err
		}
		r, err := k.TensorScalar(what, a, alu, lower.Const(num), xnum, "", lower.NoScalar, false, bir.EngDVE, dt, mergeMasks(mask, m))
		if err != nil {
			return nil, convert(err)
		}
		return newResult(st, r, pos), nil
	}
	a, ma, err := onChipOf(x, what, "x")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(y, what, "y")
	if err != nil {
		return nil, err
	}
	dt, err := resDtype(a.Dtype, b.Dtype)
	if err != nil {
		return nil, err
	}
	mask = mergeMasks(mask, ma, mb)
	eng := bir.EngDVE
	if alu == "pow" {
		eng = bir.EngPool // nisa.tensor_tensor: power runs on GpSimd
	}
	var r *lower.Result
	same := a.Partitions() == b.Partitions() && a.FreeElems() == b.FreeElems()
	switch {
	case same:
		r, err = k.TensorTensor(what, alu, a, b, eng, dt, mask)
	case a.Partitions() == b.Partitions() && b.FreeElems() == 1:
		r, err = k.TensorScalar(what, a, alu, lower.Scalar{Tile: &b}, false, "", lower.NoScalar, false, bir.EngDVE, dt, mask)
	case a.Partitions() == b.Partitions() && a.FreeElems() == 1:
		r, err = k.TensorScalar(what, b, alu, lower.Scalar{Tile: &a}, true, "", lower.NoScalar, false, bir.EngDVE, dt, mask)
	case a.Partitions() == 1 && a.FreeElems() == b.FreeElems():
		var bc lower.Access
		if bc, err = broadcastAccess(k, a, b.Shape()); err == nil {
			r, err = k.TensorTensor(what, alu, bc, b, eng, dt, mask)
		}
	case b.Partitions() == 1 && a.FreeElems() == b.FreeElems():
		var bc lower.Access
		if bc, err = broadcastAccess(k, b, a.Shape()); err == nil {
			r, err = k.TensorTensor(what, alu, a, bc, eng, dt, mask)
		}
	default:
		return nil, nkiErrorf("%s: the shapes %s of %s and %s of %s do not broadcast", what, shapeText(a.Shape()), a.T.Describe(), shapeText(b.Shape()), b.T.Describe())
	}
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, pos), nil
}

func broadcastAccess(k *lower.Kernel, a lower.Access, shape []int64) (lower.Access, error) {
	if len(a.Shape()) != len(shape) {
		sh := make([]int64, len(shape))
		sh[0] = 1
		copy(sh[1:], shape[1:])
		var err error
		if a, err = a.Reshape(sh); err != nil {
			return lower.Access{}, err
		}
	}
	r, err := k.Broadcast(a, shape)
	if err != nil {
		return lower.Access{}, err
	}
	return r.Access()
}

func unaryFn(name string) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	what := "nl." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x, dtype, mask tracer.Value
		var rest []tracer.Kwarg
		if err := tracer.UnpackArgs(what, args, kwargs, "x", &x, "dtype?", &dtype, "mask?", &mask, "**kwargs", &rest); err != nil {
			return nil, err
		}
		if err := rejectKwargs(what, rest); err != nil {
			return nil, err
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		a, m, err := onChipOf(x, what, "x")
		if err != nil {
			return nil, err
		}
		msk, err := maskOf(mask)
		if err != nil {
			return nil, err
		}
		msk = mergeMasks(msk, m)
		def := a.Dtype
		if name == "logical_not" {
			def = bir.Uint8
		}
		dt, err := optDtype(dtype, def)
		if err != nil {
			return nil, err
		}
		k := st.k
		var r *lower.Result
		switch name {
		case "negative":
			r, err = k.TensorScalar(what, a, "mult", lower.Const(-1), false, "", lower.NoScalar, false, bir.EngDVE, dt, msk)
		case "logical_not":
			r, err = k.TensorScalar(what, a, "is_equal", lower.Const(0), false, "", lower.NoScalar, false, bir.EngDVE, dt, msk)
		case "invert":
			r, err = k.TensorScalar(what, a, "bitwise_not", lower.Const(0), false, "", lower.NoScalar, false, bir.EngDVE, dt, msk)
		case "reciprocal":
			r, err = k.Reciprocal(what, a, bir.EngDVE, dt, msk)
		default:
			r, err = k.Activation(what, actOf[name], a, nil, lower.Const(1), dt, msk)
		}
		if err != nil {
			return nil, convert(err)
		}
		return newResult(st, r, th.CallPos()), nil
	}
}

// axesOf converts axis= (an int, or a tuple or list of ints).
func axesOf(th *tracer.Thread, v tracer.Value) ([]int, error) {
	var out []int
	switch a := v.(type) {
	case tracer.Tuple, *tracer.List:
		err := tracer.Iterate(th, a, func(x tracer.Value) error {
			n, err := tracer.AsInt64(th, x)
			out = append(out, int(n))
			return err
		})
		return out, err
	}
	n, err := tracer.AsInt64(th, v)
	return []int{int(n)}, err
}

var reduceALU = map[string]string{"sum": "add", "max": "max", "min": "min", "prod": "mult", "mean": "add"}

func reduceFn(name string) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	what := "nl." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var x, axis, dtype, mask tracer.Value
		keepdims := false
		var rest []tracer.Kwarg
		if err := tracer.UnpackArgs(what, args, kwargs, "x", &x, "axis", &axis, "dtype?", &dtype, "mask?", &mask, "keepdims?", &keepdims, "**kwargs", &rest); err != nil {
			return nil, err
		}
		if err := rejectKwargs(what, rest); err != nil {
			return nil, err
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		a, m, err := onChipOf(x, what, "x")
		if err != nil {
			return nil, err
		}
		axes, err := axesOf(th, axis)
		if err != nil {
			return nil, err
		}
		msk, err := maskOf(mask)
		if err != nil {
			return nil, err
		}
		msk = mergeMasks(msk, m)
		def := a.Dtype
		if name == "mean" && !def.IsFloat() {
			def = bir.Float32 // "float32 intermediate and return values are used for integer inputs"
		}
		dt, err := optDtype(dtype, def)
		if err != nil {
			return nil, err
		}
		k := st.k
		if name != "mean" {
			r, err := k.Reduce(what, reduceALU[name], a, axes, keepdims, false, bir.EngDVE, dt, msk)
			if err != nil {
				return nil, convert(err)
			}
			return newResult(st, r, th.CallPos()), nil
		}
		// mean: a sum in float32, then a scale by 1/n.
		r, err := k.Reduce(what, "add", a, axes, keepdims, false, bir.EngDVE, bir.Float32, msk)
		if err != nil {
			return nil, convert(err)
		}
		sum, err := r.Access()
		if err != nil {
			return nil, convert(err)
		}
		n := a.Elems() / max(sum.Elems(), 1)
		r2, err := k.TensorScalar(what, sum, "mult", lower.Const(1/float64(n)), false, "", lower.NoScalar, false, bir.EngDVE, dt, lower.Mask{})
		if err != nil {
			return nil, convert(err)
		}
		return newResult(st, r2, th.CallPos()), nil
	}
}

// ---------------------------------------------------------------------------
// Memory operations.

func nlLoad(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return loadLike(th, "nl.load", args, kwargs, false)
}

func nlLoadTranspose2D(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return loadLike(th, "nl.load_transpose2d", args, kwargs, true)
}

func loadLike(th *tracer.Thread, what string, args []tracer.Value, kwargs []tracer.Kwarg, transpose bool) (tracer.Value, error) {
	var src, mask, dtype tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs(what, args, kwargs, "src", &src, "mask?", &mask, "dtype?", &dtype, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs(what, rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := tileOf(src, what, "src")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	var r *lower.Result
	if transpose {
		r, err = st.k.LoadTranspose2D(a, dt, mergeMasks(msk, m))
	} else {
		r, err = st.k.Load(a, dt, mergeMasks(msk, m))
	}
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func nlStore(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var dst, value, mask tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.store", args, kwargs, "dst", &dst, "value", &value, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.store", rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.store")
	if err != nil {
		return nil, err
	}
	d, dm, err := tileOf(dst, "nl.store", "dst")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	if _, _, ok := number(value); ok {
		return nil, notSupportedf("nl.store of a number: fill a tile (nl.full) and store it")
	}
	v, vm, err := tileOf(value, "nl.store", "value")
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.Store(d, v, mergeMasks(msk, dm, vm)))
}

func nlCopy(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var src, mask, dtype tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.copy", args, kwargs, "src", &src, "mask?", &mask, "dtype?", &dtype, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.copy", rest); err != nil {
		return nil, err
	}
	return copyLike(th, "nl.copy", src, mask, dtype, bir.EngDVE)
}

func copyLike(th *tracer.Thread, what string, src, mask, dtype tracer.Value, eng bir.Engine) (tracer.Value, error) {
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(src, what, "src")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	r, err := st.k.Copy(a, eng, dt, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

// broadcastTo is tile.broadcast_to(shape) and nl.broadcast_to.
func broadcastTo(th *tracer.Thread, src, shapeV tracer.Value) (tracer.Value, error) {
	st, err := kernelState(th, "broadcast_to")
	if err != nil {
		return nil, err
	}
	shape, _, err := shapeOf(th, shapeV, "broadcast_to")
	if err != nil {
		return nil, err
	}
	a, _, err := tileOf(src, "broadcast_to", "src")
	if err != nil {
		return nil, err
	}
	if sh := a.Shape(); len(sh) == len(shape) && equalShape(sh, shape) {
		return src, nil
	}
	r, err := st.k.Broadcast(a, shape)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ---------------------------------------------------------------------------
// Matmul and transpose.

func nlMatmul(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x, y, mask tracer.Value
	transposeX := false
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.matmul", args, kwargs, "x", &x, "y", &y, "transpose_x?", &transposeX, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.matmul", rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.matmul")
	if err != nil {
		return nil, err
	}
	a, ma, err := onChipOf(x, "nl.matmul", "x")
	if err != nil {
		return nil, err
	}
	b, mb, err := onChipOf(y, "nl.matmul", "y")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	k := st.k
	if !transposeX {
		// "matmul(x, y) lowers to nc_matmul(transpose(x), y)": a Tensor
		// engine transpose into PSUM, a copy back to SBUF.
		if a.FreeElems() != b.Partitions() {
			return nil, nkiErrorf("nl.matmul: contraction sizes differ: x %s has %d columns, y %s has %d partitions", a.T.Describe(), a.FreeElems(), b.T.Describe(), b.Partitions())
		}
		tr, err := k.Transpose("nl.matmul", a, bir.EngPE, lower.Mask{})
		if err != nil {
			return nil, convert(err)
		}
		ta, err := tr.Access()
		if err != nil {
			return nil, convert(err)
		}
		cp, err := k.Copy(ta, bir.EngDVE, a.Dtype, lower.Mask{})
		if err != nil {
			return nil, convert(err)
		}
		if a, err = cp.Access(); err != nil {
			return nil, convert(err)
		}
		ma = nil
	} else if a.Partitions() != b.Partitions() {
		return nil, nkiErrorf("nl.matmul: contraction sizes differ: x %s has %d partitions, y %s %d", a.T.Describe(), a.Partitions(), b.T.Describe(), b.Partitions())
	}
	r, err := k.Matmul("nl.matmul", a, b, mergeMasks(msk, ma, mb))
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

func nlTranspose(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x, dtype, mask tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.transpose", args, kwargs, "x", &x, "dtype?", &dtype, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.transpose", rest); err != nil {
		return nil, err
	}
	return transposeLike(th, "nl.transpose", x, dtype, mask, nil)
}

func transposeLike(th *tracer.Thread, what string, x, dtype, mask tracer.Value, engine *Engine) (tracer.Value, error) {
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, what, "x")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	eng := bir.EngPE
	if engine != nil && engine.set {
		eng = engine.eng
	}
	k := st.k
	r, err := k.Transpose(what, a, eng, mergeMasks(msk, m))
	if err != nil {
		return nil, convert(err)
	}
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	if dt != a.Dtype {
		// "an additional nki.isa.cast instruction will be inserted"
		t, err := r.Access()
		if err != nil {
			return nil, convert(err)
		}
		if r, err = k.Copy(t, bir.EngDVE, dt, lower.Mask{}); err != nil {
			return nil, convert(err)
		}
	}
	return newResult(st, r, th.CallPos()), nil
}

// ---------------------------------------------------------------------------
// Tensor creation.

func bufferArg(v tracer.Value, def *Buffer) (*Buffer, error) {
	if isNone(v) {
		return def, nil
	}
	b, ok := v.(*Buffer)
	if !ok {
		return nil, typeErrorf("buffer= takes nl.sbuf, nl.psum, nl.hbm, nl.shared_hbm, nl.private_hbm or an ncc allocation, not %s", v.Type())
	}
	return b, nil
}

var (
	bufSBUF    = &Buffer{name: "sbuf", mem: lower.SBUF}
	bufPSUM    = &Buffer{name: "psum", mem: lower.PSUM}
	bufHBM     = &Buffer{name: "hbm", mem: lower.HBM, hbm: lower.HBMPrivate}
	bufPrivate = &Buffer{name: "private_hbm", mem: lower.HBM, hbm: lower.HBMPrivate}
	bufShared  = &Buffer{name: "shared_hbm", mem: lower.HBM, hbm: lower.HBMShared}
)

// makeTensor makes an uninitialized tensor (nl.ndarray) or a filled one.
func makeTensor(th *tracer.Thread, what string, shape []int64, par int, dt bir.Dtype, buf *Buffer, name string, fill *float64) (tracer.Value, error) {
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	k := st.k
	if buf.mem == lower.HBM {
		if fill != nil {
			return nil, notSupportedf("%s in HBM: narwhal fills tiles on chip; fill a tile and nl.store it", what)
		}
		t, err := st.newHBM(th, name, buf.hbm, dt, shape)
		if err != nil {
			return nil, convert(err)
		}
		return newWhole(st, t, th.CallPos()), nil
	}
	var places []lower.Place
	if buf.alloc != nil && !st.open {
		if places, err = buf.alloc.places(th, buf, shape, par, dt); err != nil {
			return nil, err
		}
	}
	var t *lower.Tensor
	if fill != nil {
		t, err = k.Fill(name, buf.mem, dt, shape, par, places, *fill)
	} else {
		t, err = k.NewTile(name, buf.mem, dt, shape, par, places)
	}
	if err != nil {
		return nil, convert(err)
	}
	return newWhole(st, t, th.CallPos()), nil
}

// newHBM makes an HBM tensor; under an SPMD grid traced program by
// program, a shared_hbm tensor is made once per call site.
func (st *state) newHBM(th *tracer.Thread, name string, kind lower.HBMKind, dt bir.Dtype, shape []int64) (*lower.Tensor, error) {
	var key sharedKey
	if kind == lower.HBMShared && st.shared != nil {
		pos := th.CallPos()
		key = sharedKey{pos: pos, n: st.sharedCount[pos]}
		st.sharedCount[pos]++
		if t, ok := st.shared[key]; ok {
			if t.Dtype != dt || !equalShape(t.Shape, shape) {
				return nil, nkiErrorf("the shared_hbm tensor %s made here has shape %s %s in one program and %s %s in another", t.Name, shapeText(t.Shape), t.Dtype, shapeText(shape), dt)
			}
			return t, nil
		}
	}
	t, err := st.k.NewHBM(name, kind, dt, shape)
	if err == nil && st.shared != nil && kind == lower.HBMShared {
		st.shared[key] = t
	}
	return t, err
}

func nlNdarray(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var shapeV, dtypeV, bufV tracer.Value
	name := ""
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.ndarray", args, kwargs, "shape", &shapeV, "dtype", &dtypeV, "buffer?", &bufV, "name?", &name, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.ndarray", rest); err != nil {
		return nil, err
	}
	return creation(th, "nl.ndarray", shapeV, dtypeV, bufV, name, nil)
}

func creation(th *tracer.Thread, what string, shapeV, dtypeV, bufV tracer.Value, name string, fill *float64) (tracer.Value, error) {
	shape, par, err := shapeOf(th, shapeV, what)
	if err != nil {
		return nil, err
	}
	dt, err := dtypeOf(dtypeV)
	if err != nil {
		return nil, err
	}
	buf, err := bufferArg(bufV, bufSBUF)
	if err != nil {
		return nil, err
	}
	return makeTensor(th, what, shape, par, dt, buf, name, fill)
}

func fillFn(what string, value float64, hasFill bool) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var shapeV, dtypeV, bufV, fillV tracer.Value
		name := ""
		var rest []tracer.Kwarg
		var err error
		if hasFill {
			err = tracer.UnpackArgs(what, args, kwargs, "shape", &shapeV, "fill_value", &fillV, "dtype", &dtypeV, "buffer?", &bufV, "name?", &name, "**kwargs", &rest)
		} else {
			err = tracer.UnpackArgs(what, args, kwargs, "shape", &shapeV, "dtype", &dtypeV, "buffer?", &bufV, "name?", &name, "**kwargs", &rest)
		}
		if err != nil {
			return nil, err
		}
		if err := rejectKwargs(what, rest); err != nil {
			return nil, err
		}
		v := value
		if hasFill {
			f, _, ok := number(fillV)
			if !ok {
				return nil, typeErrorf("%s: fill_value must be a number, not %s", what, fillV.Type())
			}
			v = f
		}
		return creation(th, what, shapeV, dtypeV, bufV, name, &v)
	}
}

func likeFn(what string, zero bool) func(*tracer.Thread, []tracer.Value, []tracer.Kwarg) (tracer.Value, error) {
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var a, dtypeV, bufV tracer.Value
		name := ""
		var rest []tracer.Kwarg
		if err := tracer.UnpackArgs(what, args, kwargs, "a", &a, "dtype?", &dtypeV, "buffer?", &bufV, "name?", &name, "**kwargs", &rest); err != nil {
			return nil, err
		}
		if err := rejectKwargs(what, rest); err != nil {
			return nil, err
		}
		t, ok := a.(*Tensor)
		if !ok {
			return nil, typeErrorf("%s: a must be a tensor, not %s", what, a.Type())
		}
		if isNone(dtypeV) {
			dtypeV = dtypeValue(t.dtype())
		}
		var fill *float64
		if zero {
			z := 0.0
			fill = &z
		}
		shape := intTuple(t.shape())
		return creation(th, what, shape, dtypeV, bufV, name, fill)
	}
}

// ---------------------------------------------------------------------------
// Indices.

func nlArange(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if len(kwargs) > 0 {
		return nil, typeErrorf("nl.arange() takes no keyword arguments")
	}
	var n []int64
	for _, a := range args {
		v, err := tracer.AsInt64(th, a)
		if err != nil {
			return nil, err
		}
		n = append(n, v)
	}
	var start, stop, step int64 = 0, 0, 1
	switch len(n) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return nil, typeErrorf("nl.arange expected 1 to 3 arguments, got %d", len(n))
	}
	x, err := lower.Arange(start, stop, step)
	if err != nil {
		return nil, convert(err)
	}
	return &Index{x: x, st: current(th)}, nil
}

// Mgrid is nl.mgrid: mgrid[0:P, 0:F] makes an index grid of one axis per
// slice.
type Mgrid struct{}

func (Mgrid) Type() string         { return "mgrid" }
func (Mgrid) String() string       { return "nl.mgrid" }
func (Mgrid) Truth() (bool, error) { return true, nil }

// Index makes the grid.
func (Mgrid) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	parts := []tracer.Value{key}
	if t, ok := key.(tracer.Tuple); ok {
		parts = t
	}
	g := &Grid{}
	for i, p := range parts {
		s, ok := p.(*tracer.Slice)
		if !ok {
			return nil, typeErrorf("nl.mgrid takes slices (nl.mgrid[0:128, 0:512]), not %s", p.Type())
		}
		var start, step int64 = 0, 1
		if !isNone(s.Start) {
			v, err := tracer.AsInt64(th, s.Start)
			if err != nil {
				return nil, err
			}
			start = v
		}
		if isNone(s.Stop) {
			return nil, typeErrorf("nl.mgrid needs the stop of every slice")
		}
		stop, err := tracer.AsInt64(th, s.Stop)
		if err != nil {
			return nil, err
		}
		if !isNone(s.Step) {
			if step, err = tracer.AsInt64(th, s.Step); err != nil {
				return nil, err
			}
		}
		x, err := lower.Arange(start, stop, step)
		if err != nil {
			return nil, convert(err)
		}
		x, err = x.Expand(len(parts), i)
		if err != nil {
			return nil, convert(err)
		}
		g.parts = append(g.parts, &Index{x: x, st: current(th)})
	}
	return g, nil
}

func nlDS(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var start, size tracer.Value
	if err := tracer.UnpackArgs("nl.ds", args, kwargs, "start", &start, "size", &size); err != nil {
		return nil, err
	}
	x, ok, err := toIndex(th, start)
	if err != nil {
		return nil, err
	}
	if !ok || !x.IsScalar() {
		return nil, typeErrorf("nl.ds: start must be an integer or a loop iterator, not %s", start.Type())
	}
	n, err := tracer.AsInt64(th, size)
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, nkiErrorf("nl.ds: size must be positive, have %d", n)
	}
	return &DS{start: x, size: n}, nil
}

func nlExpandDims(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var data, axis tracer.Value
	if err := tracer.UnpackArgs("nl.expand_dims", args, kwargs, "data", &data, "axis", &axis); err != nil {
		return nil, err
	}
	t, ok := data.(*Tensor)
	if !ok {
		return nil, typeErrorf("nl.expand_dims: data must be a tile, not %s", data.Type())
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	shape := append([]int64(nil), t.shape()...)
	for _, a := range axes {
		if a != len(shape) && a != -1 {
			return nil, notSupportedf("nl.expand_dims(axis=%d) of a tile of %d dimensions: \"currently only supports expanding dimensions after the last index\"", a, len(shape))
		}
		shape = append(shape, 1)
	}
	return t.reshape(th, []tracer.Value{intTuple(shape)}, nil)
}

func nlWhere(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var cond, x, y, dtype, mask tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.where", args, kwargs, "condition", &cond, "x", &x, "y", &y, "dtype?", &dtype, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.where", rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.where")
	if err != nil {
		return nil, err
	}
	c, _, err := onChipOf(cond, "nl.where", "condition")
	if err != nil {
		return nil, err
	}
	a, _, err := onChipOf(x, "nl.where", "x")
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	var yo lower.Opd
	def := a.Dtype
	if f, _, ok := number(y); ok {
		yo = lower.ImmOpd(f)
	} else {
		b, _, err := onChipOf(y, "nl.where", "y")
		if err != nil {
			return nil, err
		}
		yo = lower.AccOpd(b)
		def = lower.Promote(a.Dtype, b.Dtype)
	}
	dt, err := optDtype(dtype, def)
	if err != nil {
		return nil, err
	}
	out, err := st.k.Where(c, a, yo, dt, msk)
	if err != nil {
		return nil, convert(err)
	}
	return newView(st, out, th.CallPos()), nil
}

// ---------------------------------------------------------------------------
// SPMD.

func nlProgramID(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var axis int64
	if err := tracer.UnpackArgs("nl.program_id", args, kwargs, "axis", &axis); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.program_id")
	if err != nil {
		return nil, err
	}
	if len(st.pids) == 0 && axis == 0 {
		return tracer.MakeInt(0), nil
	}
	if axis < 0 || axis >= int64(len(st.pids)) {
		return nil, nkiErrorf("nl.program_id(%d): the SPMD grid has %d dimensions", axis, len(st.pids))
	}
	return st.pids[axis], nil
}

func nlNumPrograms(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var axes tracer.Value
	if err := tracer.UnpackArgs("nl.num_programs", args, kwargs, "axes?", &axes); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.num_programs")
	if err != nil {
		return nil, err
	}
	n := int64(1)
	if isNone(axes) {
		for _, g := range st.grid {
			n *= g
		}
		return tracer.MakeInt(n), nil
	}
	list, err := axesOf(th, axes)
	if err != nil {
		return nil, err
	}
	for _, a := range list {
		switch {
		case a >= 0 && a < len(st.grid):
			n *= st.grid[a]
		case len(st.grid) == 0 && a == 0:
		default:
			return nil, nkiErrorf("nl.num_programs(%d): the SPMD grid has %d dimensions", a, len(st.grid))
		}
	}
	return tracer.MakeInt(n), nil
}

func nlProgramNdim(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if err := tracer.UnpackArgs("nl.program_ndim", args, kwargs); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.program_ndim")
	if err != nil {
		return nil, err
	}
	return tracer.MakeInt(int64(len(st.grid))), nil
}

// ---------------------------------------------------------------------------
// Constants.

// attrObject is a value with fixed attributes (nl.tile_size, nl.fp32).
type attrObject struct {
	name  string
	attrs map[string]tracer.Value
}

func (o *attrObject) Type() string         { return o.name }
func (o *attrObject) String() string       { return o.name }
func (o *attrObject) Truth() (bool, error) { return true, nil }
func (o *attrObject) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	return o.attrs[name], nil
}
func (o *attrObject) AttrNames() []string {
	var out []string
	for n := range o.attrs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func tileSize() *attrObject {
	i := func(n int64) tracer.Value { return tracer.MakeInt(n) }
	return &attrObject{name: "tile_size", attrs: map[string]tracer.Value{
		"pmax": i(lower.PMax), "psum_fmax": i(lower.PSUMFMax), "gemm_stationary_fmax": i(lower.GemmStationaryFMax),
		"gemm_moving_fmax": i(lower.GemmMovingFMax), "bn_stats_fmax": i(lower.BNStatsFMax),
		"psum_min_align": i(4), "sbuf_min_align": i(32), "total_available_sbuf_size": i(192*1024 - 16*1024),
	}}
}

func nlParDim(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var n int64
	if err := tracer.UnpackArgs("nl.par_dim", args, kwargs, "size", &n); err != nil {
		return nil, err
	}
	return &ParDim{n: n}, nil
}

func init() {
	for name := range aluOf {
		o := &Op{name: "nl." + name, alu: aluOf[name], fn: binaryFn(name)}
		register(o)
	}
	// maximum and minimum are the max/min ALU operations; nl.max and
	// nl.min reduce (tensor_reduce's op= accepts either).
	for name, act := range actOf {
		o := &Op{name: "nl." + name, act: act, fn: unaryFn(name)}
		if name == "abs" {
			o.alu = "abs"
		}
		if name == "copy" {
			o.fn = nlCopy
			o.alu = "bypass"
		}
		register(o)
	}
	for _, name := range []string{"negative", "logical_not", "invert", "reciprocal"} {
		register(&Op{name: "nl." + name, fn: unaryFn(name)})
	}
	registry["nl.invert"].alu = "bitwise_not"
	registry["nl.reciprocal"].act = "Reciprocal"
	for name := range reduceALU {
		o := &Op{name: "nl." + name, alu: reduceALU[name], fn: reduceFn(name)}
		if name == "mean" {
			o.alu = "average"
		}
		register(o)
	}
	register(&Op{name: "nl.softmax", fn: nlSoftmax})
	register(&Op{name: "nl.rms_norm", fn: nlRMSNorm})
	register(&Op{name: "nl.load", fn: nlLoad})
	register(&Op{name: "nl.store", fn: nlStore})
	register(&Op{name: "nl.load_transpose2d", fn: nlLoadTranspose2D})
	register(&Op{name: "nl.matmul", fn: nlMatmul})
	register(&Op{name: "nl.transpose", fn: nlTranspose})
	register(&Op{name: "nl.ndarray", fn: nlNdarray})
	register(&Op{name: "nl.zeros", fn: fillFn("nl.zeros", 0, false)})
	register(&Op{name: "nl.ones", fn: fillFn("nl.ones", 1, false)})
	register(&Op{name: "nl.full", fn: fillFn("nl.full", 0, true)})
	register(&Op{name: "nl.zeros_like", fn: likeFn("nl.zeros_like", true)})
	register(&Op{name: "nl.empty_like", fn: likeFn("nl.empty_like", false)})
	register(&Op{name: "nl.arange", fn: nlArange})
	register(&Op{name: "nl.ds", fn: nlDS})
	register(&Op{name: "nl.expand_dims", fn: nlExpandDims})
	register(&Op{name: "nl.where", fn: nlWhere})
	register(&Op{name: "nl.program_id", fn: nlProgramID})
	register(&Op{name: "nl.num_programs", fn: nlNumPrograms})
	register(&Op{name: "nl.program_ndim", fn: nlProgramNdim})
	register(&Op{name: "nl.par_dim", fn: nlParDim})
	register(&Op{name: "nl.broadcast_to", fn: func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var src, shape tracer.Value
		if err := tracer.UnpackArgs("nl.broadcast_to", args, kwargs, "src", &src, "shape", &shape); err != nil {
			return nil, err
		}
		return broadcastTo(th, src, shape)
	}})
	for _, r := range []string{"affine_range", "sequential_range", "static_range"} {
		kind := r
		register(&Op{name: "nl." + r, fn: func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			return newRange(th, kind, args, kwargs)
		}})
	}
	// The rest of the nl page: no instruction narwhal can run, or a
	// feature of NKI's runtime or simulator.
	unsupported := map[string]string{
		"cos":                  "the Scalar engine has no cosine (\"Support coming soon\" in NKI's activation table) and the interpreter none",
		"tan":                  "no activation function or ALU operation computes it",
		"dropout":              "random numbers are not modelled by the compile pipeline",
		"rand":                 "random numbers are not modelled by the compile pipeline",
		"random_seed":          "random numbers are not modelled by the compile pipeline",
		"atomic_rmw":           "it needs indirect (dynamic) addressing of HBM",
		"gather_flattened":     "it needs indirect (dynamic) addressing",
		"all_reduce":           "collectives across SPMD programs are not supported",
		"device_print":         "it prints in NKI's simulator; narwhal run --outputs writes tensors",
		"loop_reduce":          "write the reduction with += (nl.add) in the loop",
		"spmd_dim":             "the launch grid is given with --grid",
		"nc":                   "the launch grid is given with --grid",
		"gemm_grid":            "not modelled",
		"gemm_stationary_grid": "not modelled",
	}
	for name, why := range unsupported {
		register(&Op{name: "nl." + name, why: why})
	}
}

// languageModule builds neuronxcc.nki.language.
func languageModule(name string) *tracer.Module {
	return tracer.NewModule(name, languageMembers())
}

// languageMembers are neuronxcc.nki.language's names.
func languageMembers() map[string]tracer.Value {
	m := members("nl.")
	for dt, n := range dtypeNames {
		if dt == bir.Int64 || dt == bir.Uint64 || dt == bir.Float8E4M3FN {
			continue
		}
		m[n] = dtypeValue(dt)
	}
	m["bool_"] = &Dtype{dt: bir.Uint8, name: "bool"}
	m["sbuf"], m["psum"], m["hbm"], m["private_hbm"], m["shared_hbm"] = bufSBUF, bufPSUM, bufHBM, bufPrivate, bufShared
	m["tile_size"] = tileSize()
	m["mgrid"] = Mgrid{}
	m["fp32"] = &attrObject{name: "fp32", attrs: map[string]tracer.Value{"min": tracer.Float(-3.4028234663852886e38)}}
	m["bfp16"] = &attrObject{name: "bfp16", attrs: map[string]tracer.Value{"min": tracer.Float(-3.3895313892515355e38)}}
	m["NKIObject"] = nkiObjectClass
	return m
}

// nkiObjectClass is nl.NKIObject, a Go-defined class kernels subclass for
// helper objects (the current API's production code uses it; issue 25).
var nkiObjectClass = tracer.NewClass("NKIObject", nil, map[string]tracer.Value{})

// nlSoftmax is nl.softmax over the last free axis (or axes) of a tile whose
// reduction leaves one value per partition: the row maximum
// (TensorReduce max), exp(x - max) on the Scalar engine (Activation Exp
// with the negated maximum as its bias), the row sum (TensorReduce add)
// and the division (TensorScalarPtr divide). The NKI documentation names
// no instructions for it; these are the ones its definition needs.
func nlSoftmax(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x, axis, dtype, computeDtype, mask tracer.Value
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.softmax", args, kwargs, "x", &x, "axis", &axis, "dtype?", &dtype, "compute_dtype?", &computeDtype, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.softmax", rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.softmax")
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, "nl.softmax", "x")
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	msk = mergeMasks(msk, m)
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	k := st.k
	step := func(r *lower.Result, err error) (lower.Access, error) {
		if err != nil {
			return lower.Access{}, convert(err)
		}
		a, err := r.Access()
		return a, convert(err)
	}
	mx, err := step(k.Reduce("nl.softmax", "max", a, axes, true, true, bir.EngDVE, bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	if mx.FreeElems() != 1 {
		return nil, notSupportedf("nl.softmax over axis %v of a tile of shape %s: narwhal reduces to one value per partition (the last free axes)", axes, shapeText(a.Shape()))
	}
	// negate=True gives -max, the Activation's bias.
	e, err := step(k.Activation("nl.softmax", "Exp", a, &mx, lower.Const(1), bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	sum, err := step(k.Reduce("nl.softmax", "add", e, axes, true, false, bir.EngDVE, bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	r, err := k.TensorScalar("nl.softmax", e, "divide", lower.Scalar{Tile: &sum}, false, "", lower.NoScalar, false, bir.EngDVE, dt, msk)
	if err != nil {
		return nil, convert(err)
	}
	return newResult(st, r, th.CallPos()), nil
}

// nlRMSNorm is nl.rms_norm(x, w, axis, n, epsilon): x / sqrt(sum(x^2)/n +
// epsilon) * w, with the sum over the last free axes: Activation Square,
// TensorReduce add, TensorScalar (mult 1/n, add epsilon), Activation
// Rsqrt, TensorScalarPtr mult, and the multiply by w (nl.multiply's
// lowering, a partition broadcast for a [1, F] w).
func nlRMSNorm(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x, w, axis, n, dtype, computeDtype, mask tracer.Value
	var eps tracer.Value = tracer.Float(1e-6)
	var rest []tracer.Kwarg
	if err := tracer.UnpackArgs("nl.rms_norm", args, kwargs, "x", &x, "w", &w, "axis", &axis, "n", &n, "epsilon?", &eps,
		"dtype?", &dtype, "compute_dtype?", &computeDtype, "mask?", &mask, "**kwargs", &rest); err != nil {
		return nil, err
	}
	if err := rejectKwargs("nl.rms_norm", rest); err != nil {
		return nil, err
	}
	st, err := kernelState(th, "nl.rms_norm")
	if err != nil {
		return nil, err
	}
	a, m, err := onChipOf(x, "nl.rms_norm", "x")
	if err != nil {
		return nil, err
	}
	axes, err := axesOf(th, axis)
	if err != nil {
		return nil, err
	}
	count, err := tracer.AsFloat64(th, n)
	if err != nil {
		return nil, err
	}
	epsilon, err := tracer.AsFloat64(th, eps)
	if err != nil {
		return nil, err
	}
	msk, err := maskOf(mask)
	if err != nil {
		return nil, err
	}
	msk = mergeMasks(msk, m)
	dt, err := optDtype(dtype, a.Dtype)
	if err != nil {
		return nil, err
	}
	k := st.k
	step := func(r *lower.Result, err error) (lower.Access, error) {
		if err != nil {
			return lower.Access{}, convert(err)
		}
		a, err := r.Access()
		return a, convert(err)
	}
	sq, err := step(k.Activation("nl.rms_norm", "Square", a, nil, lower.Const(1), bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	ss, err := step(k.Reduce("nl.rms_norm", "add", sq, axes, true, false, bir.EngDVE, bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	if ss.FreeElems() != 1 {
		return nil, notSupportedf("nl.rms_norm over axis %v of a tile of shape %s: narwhal reduces to one value per partition (the last free axes)", axes, shapeText(a.Shape()))
	}
	ms, err := step(k.TensorScalar("nl.rms_norm", ss, "mult", lower.Const(1/count), false, "add", lower.Const(epsilon), false, bir.EngDVE, bir.Float32, lower.Mask{}))
	if err != nil {
		return nil, err
	}
	rs, err := step(k.Activation("nl.rms_norm", "Rsqrt", ms, nil, lower.Const(1), bir.Float32, lower.Mask{}))
	if err != nil {
		return nil, err
	}
	y, err := step(k.TensorScalar("nl.rms_norm", a, "mult", lower.Scalar{Tile: &rs}, false, "", lower.NoScalar, false, bir.EngDVE, bir.Float32, msk))
	if err != nil {
		return nil, err
	}
	return binaryOp(th, "nl.rms_norm", "mult", newView(st, y, th.CallPos()), w, dtypeValue(dt), tracer.None, false)
}
