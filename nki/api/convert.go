package api

// Conversions of tracer values into the lowering layer's: subscripts,
// shapes, dtypes, masks, indices, operands.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// DS is nl.ds(start, size): a slice of constant size at a possibly
// symbolic start.
type DS struct {
	start lower.Index
	size  int64
}

func (d *DS) Type() string         { return "DynSlice" }
func (d *DS) String() string       { return "ds(" + d.start.String() + ", " + itoa(d.size) + ")" }
func (d *DS) Truth() (bool, error) { return true, nil }

func itoa(n int64) string { return tracer.MakeInt(n).String() }

// toIndex converts an integer-like value (int, bool, loop iterator,
// program id, index grid, par_dim) to an index.
func toIndex(th *tracer.Thread, v tracer.Value) (lower.Index, bool, error) {
	switch x := v.(type) {
	case *Index:
		x.use()
		return x.x, true, nil
	case tracer.Int, tracer.Bool, *ParDim:
		y, ok := indexOperand(x)
		return y, ok, nil
	case *Scalar:
		if !x.dt.IsFloat() {
			return lower.ConstIndex(int64(x.v)), true, nil
		}
	}
	if h, ok := v.(tracer.HasIndex); ok {
		r, err := h.PyIndex(th)
		if err != nil {
			return lower.Index{}, false, err
		}
		return toIndex(th, r)
	}
	return lower.Index{}, false, nil
}

// subscriptElems converts a subscript key (a value, a tuple of them,
// slices, Ellipsis, nl.ds) for a tensor of rank dimensions.
func subscriptElems(th *tracer.Thread, key tracer.Value, rank int) ([]lower.Elem, error) {
	parts := []tracer.Value{key}
	if t, ok := key.(tracer.Tuple); ok {
		parts = t
	}
	ell := -1
	for i, p := range parts {
		if _, ok := p.(tracer.EllipsisType); ok {
			if ell >= 0 {
				return nil, tracer.Errorf("IndexError", "an index can only have a single ellipsis ('...')")
			}
			ell = i
		}
	}
	var elems []lower.Elem
	for i, p := range parts {
		if i == ell {
			for n := len(parts) - 1; n < rank; n++ {
				elems = append(elems, lower.All())
			}
			continue
		}
		e, err := subscriptElem(th, p)
		if err != nil {
			return nil, err
		}
		elems = append(elems, e)
	}
	return elems, nil
}

func subscriptElem(th *tracer.Thread, p tracer.Value) (lower.Elem, error) {
	switch q := p.(type) {
	case *tracer.Slice:
		e := lower.Elem{IsSlice: true, Step: 1}
		if !isNone(q.Step) {
			s, err := tracer.AsInt64(th, q.Step)
			if err != nil {
				return lower.Elem{}, err
			}
			if s == 0 {
				return lower.Elem{}, tracer.Errorf("ValueError", "slice step cannot be zero")
			}
			e.Step = s
		}
		if !isNone(q.Start) {
			x, ok, err := toIndex(th, q.Start)
			if err != nil {
				return lower.Elem{}, err
			}
			if !ok {
				return lower.Elem{}, typeErrorf("slice indices must be integers or loop iterators, not %s", q.Start.Type())
			}
			e.Start, e.HasStart = x, true
		}
		if !isNone(q.Stop) {
			x, ok, err := toIndex(th, q.Stop)
			if err != nil {
				return lower.Elem{}, err
			}
			if !ok {
				return lower.Elem{}, typeErrorf("slice indices must be integers or loop iterators, not %s", q.Stop.Type())
			}
			e.Stop, e.HasStop = x, true
		}
		return e, nil
	case *DS:
		return lower.DS(q.start, q.size), nil
	case tracer.NoneType:
		return lower.Elem{}, notSupportedf("None (numpy's newaxis) in a tensor subscript")
	}
	x, ok, err := toIndex(th, p)
	if err != nil {
		return lower.Elem{}, err
	}
	if !ok {
		return lower.Elem{}, typeErrorf("tensor indices must be integers, slices, nl.ds, loop iterators or index grids, not %s", p.Type())
	}
	return lower.At(x), nil
}

// shapeOf converts a shape (a tuple or list of ints and nl.par_dim, or an
// int) and returns the partition dimension (the par_dim entry, else 0).
func shapeOf(th *tracer.Thread, v tracer.Value, what string) ([]int64, int, error) {
	var items []tracer.Value
	switch s := v.(type) {
	case tracer.Tuple:
		items = s
	case *tracer.List:
		if err := tracer.Iterate(th, s, func(x tracer.Value) error { items = append(items, x); return nil }); err != nil {
			return nil, 0, err
		}
	default:
		items = []tracer.Value{v}
	}
	shape := make([]int64, len(items))
	par := -1
	for i, x := range items {
		if p, ok := x.(*ParDim); ok {
			if par >= 0 {
				return nil, 0, nkiErrorf("%s: a shape has one partition dimension, %v marks two", what, tracer.Repr(v))
			}
			par = i
			shape[i] = p.n
			continue
		}
		n, err := tracer.AsInt64(th, x)
		if err != nil {
			return nil, 0, err
		}
		shape[i] = n
	}
	if par < 0 {
		par = 0
	}
	return shape, par, nil
}

// dtypeOf converts a dtype value (nl.float32, np.float32, "float32").
func dtypeOf(v tracer.Value) (bir.Dtype, error) {
	switch d := v.(type) {
	case *Dtype:
		return d.dt, nil
	case tracer.String:
		for dt, name := range dtypeNames {
			if name == string(d) {
				return dt, nil
			}
		}
		if d == "bool" || d == "bool_" {
			return bir.Uint8, nil
		}
	case *tracer.Builtin:
		switch d.Name() {
		case "bool":
			return bir.Uint8, nil
		case "int":
			return bir.Int32, nil
		case "float":
			return bir.Float32, nil
		}
	case *tracer.Class:
		switch d.Name() {
		case "bool":
			return bir.Uint8, nil
		case "int":
			return bir.Int32, nil
		case "float":
			return bir.Float32, nil
		}
	}
	return 0, typeErrorf("%s is not an NKI dtype", tracer.Repr(v))
}

// optDtype converts an optional dtype= (None: def).
func optDtype(v tracer.Value, def bir.Dtype) (bir.Dtype, error) {
	if isNone(v) {
		return def, nil
	}
	return dtypeOf(v)
}

// maskOf converts mask= (None: no mask).
func maskOf(v tracer.Value) (lower.Mask, error) {
	switch m := v.(type) {
	case nil, tracer.NoneType:
		return lower.Mask{}, nil
	case *Mask:
		return m.m, nil
	case tracer.Bool:
		if m {
			return lower.Mask{}, nil
		}
		return lower.Mask{Cons: []lower.Constraint{{X: lower.ConstIndex(-1), Op: affine.GE0}}}, nil
	}
	return lower.Mask{}, typeErrorf("mask= takes a comparison of indices (i_p < n, (a < b) & (c > d)), not %s", v.Type())
}

// number reports whether v is a Python number (or a typed scalar) and its
// value and weak dtype.
func number(v tracer.Value) (float64, bir.Dtype, bool) {
	switch x := v.(type) {
	case tracer.Int:
		n, _ := x.Int64()
		return float64(n), lower.WeakInt, true
	case tracer.Float:
		return float64(x), lower.WeakFloat, true
	case tracer.Bool:
		if x {
			return 1, lower.WeakBool, true
		}
		return 0, lower.WeakBool, true
	case *Scalar:
		return x.v, x.dt, true
	case *ParDim:
		return float64(x.n), lower.WeakInt, true
	}
	return 0, 0, false
}

// tileOf returns the region of a tile or tensor argument.
func tileOf(v tracer.Value, what, param string) (lower.Access, *lower.Mask, error) {
	t, ok := v.(*Tensor)
	if !ok {
		return lower.Access{}, nil, typeErrorf("%s: %s must be a tile, not %s", what, param, v.Type())
	}
	if t.ind != nil {
		return lower.Access{}, nil, notSupportedf("%s: %s is a vector_offset access pattern, which nisa.dma_copy reads and writes (a gather or a scatter); other instructions take static or scalar_offset views", what, param)
	}
	a, err := t.access()
	return a, t.mask, err
}

// onChipOf is tileOf for an argument that must be on chip.
func onChipOf(v tracer.Value, what, param string) (lower.Access, *lower.Mask, error) {
	a, m, err := tileOf(v, what, param)
	if err != nil {
		return a, m, err
	}
	if !a.T.IsOnChip() {
		return a, m, nkiErrorf("%s takes tiles in SBUF or PSUM; %s is in HBM (load it with nl.load)", what, a.T.Describe())
	}
	return a, m, nil
}

// scalarOf converts a tensor_scalar / activation operand: a number or a
// [P, 1] tile.
func scalarOf(v tracer.Value, what, param string) (lower.Scalar, error) {
	if isNone(v) {
		return lower.NoScalar, nil
	}
	if f, _, ok := number(v); ok {
		return lower.Const(f), nil
	}
	if _, ok := v.(*Tensor); ok {
		a, _, err := onChipOf(v, what, param)
		if err != nil {
			return lower.Scalar{}, err
		}
		return lower.Scalar{Tile: &a}, nil
	}
	return lower.Scalar{}, typeErrorf("%s: %s must be a number or a tile of shape (P, 1), not %s", what, param, v.Type())
}

// axisName names a loop axis in messages.
func (st *state) axisName(a affine.Axis) string { return st.k.AxisName(a) }

// loopOf returns the loop owning axis a (nil for none).
func (st *state) loopOf(a affine.Axis) *lower.Loop { return st.k.LoopOf(a) }

// mergeMasks combines a mask= argument with the operand masks.
func mergeMasks(m lower.Mask, ops ...*lower.Mask) lower.Mask {
	for _, o := range ops {
		if o != nil {
			m = m.And(*o)
		}
	}
	return m
}
