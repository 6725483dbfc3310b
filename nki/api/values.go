package api

// The NKI values the tracer sees: tensors and tiles, index expressions,
// masks, index grids, dtypes, buffers, engines. Each implements the
// tracer's protocols (nki/tracer/value.go) it needs.

import (
	"fmt"
	"math"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// ---------------------------------------------------------------------------
// Tensors and tiles.

// Tensor is an NKI tensor or tile: a whole tensor, a view of one (a
// subscript, a reshape), or the pending result of an operation.
type Tensor struct {
	st   *state
	t    *lower.Tensor
	res  *lower.Result
	view *lower.Access
	mask *lower.Mask // an operand mask (tile[i_f < 64]) for the matmul APIs
	ind  *indirect   // a vector_offset view (ap.go): nisa.dma_copy's only
	made tracer.Pos
}

func newResult(st *state, r *lower.Result, made tracer.Pos) *Tensor {
	return &Tensor{st: st, res: r, made: made}
}

func newView(st *state, a lower.Access, made tracer.Pos) *Tensor {
	return &Tensor{st: st, t: a.T, view: &a, made: made}
}

func newWhole(st *state, t *lower.Tensor, made tracer.Pos) *Tensor {
	return &Tensor{st: st, t: t, made: made}
}

func (v *Tensor) onChip() bool {
	if v.res != nil {
		return true
	}
	return v.t.IsOnChip()
}

// Type is "tile" for an on-chip tensor, "tensor" for an HBM one.
func (v *Tensor) Type() string {
	if v.onChip() {
		return "tile"
	}
	return "tensor"
}

func (v *Tensor) String() string {
	shape := v.shape()
	dt := v.dtype()
	if v.res != nil && !v.res.Done() {
		return fmt.Sprintf("tile%s %s", shapeText(shape), dt)
	}
	mem := v.t.Mem.String()
	return fmt.Sprintf("%s %s%s %s in %s", v.Type(), v.t.Name, shapeText(shape), dt, mem)
}

func shapeText(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Truth is an error: a tile's values are only known when the kernel runs.
func (v *Tensor) Truth() (bool, error) {
	return false, nkiErrorf("the truth value of %s is only known when the kernel runs (Python control flow cannot depend on tile values)", v.describe())
}

// MadeAt returns where the value was made.
func (v *Tensor) MadeAt() tracer.Pos { return v.made }

func (v *Tensor) describe() string {
	if v.res != nil && !v.res.Done() {
		return "a tile"
	}
	return v.t.Describe()
}

func (v *Tensor) shape() []int64 {
	switch {
	case v.res != nil && !v.res.Done():
		return v.res.Shape
	case v.view != nil:
		return v.view.Shape()
	case v.res != nil:
		return v.res.Shape
	}
	return v.t.Shape
}

func (v *Tensor) dtype() bir.Dtype {
	switch {
	case v.res != nil:
		return v.res.Dtype
	case v.view != nil:
		return v.view.Dtype
	}
	return v.t.Dtype
}

// access returns the region the value stands for, materializing a pending
// result, and stamps the read.
func (v *Tensor) access() (lower.Access, error) {
	if v.res != nil {
		a, err := v.res.Access()
		if err != nil {
			return lower.Access{}, convert(err)
		}
		v.t, v.view, v.res = a.T, &a, nil
	}
	if v.st != nil {
		v.st.readAt[v.t] = v.st.tick()
	}
	if v.view != nil {
		return *v.view, nil
	}
	if v.t.IsOnChip() && v.t.ParDim > 0 {
		return lower.Access{}, nkiErrorf("%s has block dimensions %v before its partition dimension: index it (%s[i]) to get a tile", v.t.Describe(), v.t.Shape[:v.t.ParDim], v.t.Name)
	}
	a, err := v.t.Whole()
	return a, convert(err)
}

// subscript resolves v[key].
func (v *Tensor) subscript(th *tracer.Thread, key tracer.Value) (lower.Access, error) {
	elems, err := subscriptElems(th, key, len(v.shape()))
	if err != nil {
		return lower.Access{}, err
	}
	if v.res == nil && v.view == nil {
		a, err := v.t.Index(elems)
		return a, convert(err)
	}
	base, err := v.access()
	if err != nil {
		return lower.Access{}, err
	}
	a, err := base.Index(elems)
	return a, convert(err)
}

// Index implements v[key]: a view (or an operand mask, tile[mask]).
func (v *Tensor) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	if st := current(th); st != nil {
		st.at(th)
	}
	if m, ok := key.(*Mask); ok {
		w := *v
		mm := m.m
		if v.mask != nil {
			mm = v.mask.And(mm)
		}
		w.mask = &mm
		return &w, nil
	}
	a, err := v.subscript(th, key)
	if err != nil {
		return nil, err
	}
	return newView(v.st, a, th.CallPos()), nil
}

// SetIndex implements v[key] = x.
func (v *Tensor) SetIndex(th *tracer.Thread, key, x tracer.Value) error {
	st, err := kernelState(th, "assigning to a tile")
	if err != nil {
		return err
	}
	dst, err := v.subscript(th, key)
	if err != nil {
		return err
	}
	return st.assign(th, dst, x)
}

// AugSetIndex implements v[key] op= x: accumulation into the region (a
// matmul into PSUM joins its accumulation group).
func (v *Tensor) AugSetIndex(th *tracer.Thread, key tracer.Value, op syntax.Operator, x tracer.Value) (bool, error) {
	st, err := kernelState(th, "an in-place operator on a tile")
	if err != nil {
		return true, err
	}
	dst, err := v.subscript(th, key)
	if err != nil {
		return true, err
	}
	return true, st.augAssign(th, dst, op, x)
}

// Inplace implements v op= x on a name: in place on v's region.
func (v *Tensor) Inplace(th *tracer.Thread, op syntax.Operator, x tracer.Value) (tracer.Value, error) {
	st, err := kernelState(th, "an in-place operator on a tile")
	if err != nil {
		return nil, err
	}
	dst, err := v.access()
	if err != nil {
		return nil, err
	}
	if err := st.augAssign(th, dst, op, x); err != nil {
		return nil, err
	}
	return v, nil
}

// Binary implements the tile operators (+ - * / ** % & | ^ << >> @).
func (v *Tensor) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	name, ok := binaryOps[op]
	if !ok {
		return nil, nil
	}
	if !isOperand(other) {
		return nil, nil
	}
	x, y := tracer.Value(v), other
	if right {
		x, y = other, v
	}
	if op == syntax.MatMult {
		return callOp(th, "nl.matmul", []tracer.Value{x, y}, nil)
	}
	return callOp(th, "nl."+name, []tracer.Value{x, y}, nil)
}

var binaryOps = map[syntax.Operator]string{
	syntax.Add: "add", syntax.Sub: "subtract", syntax.Mult: "multiply", syntax.Div: "divide",
	syntax.Pow: "power", syntax.Mod: "mod", syntax.BitAnd: "bitwise_and", syntax.BitOr: "bitwise_or",
	syntax.BitXor: "bitwise_xor", syntax.LShift: "left_shift", syntax.RShift: "right_shift", syntax.MatMult: "matmul",
}

func isOperand(x tracer.Value) bool {
	switch x.(type) {
	case *Tensor, tracer.Int, tracer.Float, tracer.Bool, *Scalar:
		return true
	}
	return false
}

// Unary implements -v, +v, ~v.
func (v *Tensor) Unary(th *tracer.Thread, op syntax.UnaryOpKind) (tracer.Value, error) {
	switch op {
	case syntax.USub:
		return callOp(th, "nl.negative", []tracer.Value{v}, nil)
	case syntax.UAdd:
		return v, nil
	case syntax.Invert:
		return callOp(th, "nl.invert", []tracer.Value{v}, nil)
	}
	return nil, nil
}

// Compare implements the elementwise comparisons of tiles.
func (v *Tensor) Compare(th *tracer.Thread, op syntax.CmpOp, other tracer.Value, right bool) (tracer.Value, error) {
	if !isOperand(other) {
		return nil, nil
	}
	name, ok := cmpOps[op]
	if !ok {
		return nil, nil
	}
	x, y := tracer.Value(v), other
	if right {
		x, y = other, v
	}
	return callOp(th, "nl."+name, []tracer.Value{x, y}, nil)
}

var cmpOps = map[syntax.CmpOp]string{
	syntax.Eq: "equal", syntax.NotEq: "not_equal", syntax.Lt: "less", syntax.LtE: "less_equal",
	syntax.Gt: "greater", syntax.GtE: "greater_equal",
}

// BindName names the tile after its variable (materializing a pending
// result there).
func (v *Tensor) BindName(name string) {
	if v.res != nil && !v.res.Done() {
		if v.res.SetName(name) == nil {
			a, _ := v.res.Access()
			v.t, v.view, v.res = a.T, &a, nil
		}
		return
	}
	if v.view == nil && v.t != nil {
		v.t.SetName(name)
	}
}

// Len implements len(v): the first dimension.
func (v *Tensor) Len(th *tracer.Thread) (int, error) {
	s := v.shape()
	if len(s) == 0 {
		return 0, typeErrorf("len() of a 0-d tile")
	}
	return int(s[0]), nil
}

// Attr implements the tensor attributes.
func (v *Tensor) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	switch name {
	case "shape":
		return intTuple(v.shape()), nil
	case "dtype":
		return dtypeValue(v.dtype()), nil
	case "ndim":
		return tracer.MakeInt(int64(len(v.shape()))), nil
	case "size":
		n := int64(1)
		for _, d := range v.shape() {
			n *= d
		}
		return tracer.MakeInt(n), nil
	case "itemsize":
		return tracer.MakeInt(v.dtype().Size()), nil
	case "reshape":
		return tracer.NewBuiltin("reshape", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			return v.reshape(th, args, kwargs)
		}), nil
	case "broadcast_to":
		return tracer.NewBuiltin("broadcast_to", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			var shape tracer.Value
			if err := tracer.UnpackArgs("broadcast_to", args, kwargs, "shape", &shape); err != nil {
				return nil, err
			}
			return broadcastTo(th, v, shape)
		}), nil
	case "view":
		return tracer.NewBuiltin("view", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			var dt tracer.Value
			if err := tracer.UnpackArgs("view", args, kwargs, "dtype", &dt); err != nil {
				return nil, err
			}
			return v.viewAs(th, dt)
		}), nil
	case "ap":
		return tracer.NewBuiltin("ap", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			return v.apView(th, args, kwargs)
		}), nil
	case "buffer":
		if v.res != nil && !v.res.Done() {
			return &Buffer{name: v.res.Mem.String(), mem: v.res.Mem}, nil
		}
		return &Buffer{name: v.t.Mem.String(), mem: v.t.Mem}, nil
	}
	return nil, nil
}

// AttrNames lists the attributes.
func (v *Tensor) AttrNames() []string {
	return []string{"ap", "broadcast_to", "buffer", "dtype", "itemsize", "ndim", "reshape", "shape", "size", "view"}
}

func (v *Tensor) reshape(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	if len(kwargs) > 0 {
		return nil, typeErrorf("reshape() takes no keyword arguments")
	}
	var shapeV tracer.Value = tracer.Tuple(args)
	if len(args) == 1 {
		shapeV = args[0]
	}
	shape, _, err := shapeOf(th, shapeV, "reshape")
	if err != nil {
		return nil, err
	}
	if st := current(th); st != nil {
		st.at(th)
	}
	a, err := v.access()
	if err != nil {
		return nil, err
	}
	// A whole tensor reshaped keeps its element order; -1 is inferred.
	n := int64(1)
	neg := -1
	for i, d := range shape {
		if d == -1 && neg < 0 {
			neg = i
			continue
		}
		n *= d
	}
	if neg >= 0 && n > 0 {
		shape[neg] = a.Elems() / n
	}
	b, err := a.Reshape(shape)
	if err != nil {
		return nil, convert(err)
	}
	return newView(v.st, b, th.CallPos()), nil
}

func (v *Tensor) viewAs(th *tracer.Thread, dtv tracer.Value) (tracer.Value, error) {
	dt, err := dtypeOf(dtv)
	if err != nil {
		return nil, err
	}
	a, err := v.access()
	if err != nil {
		return nil, err
	}
	if dt.Size() != a.Dtype.Size() {
		return nil, notSupportedf("viewing %s (%s) as %s: narwhal reinterprets elements of the same size", v.describe(), a.Dtype, dt)
	}
	a.Dtype = dt
	return newView(v.st, a, th.CallPos()), nil
}

func intTuple(s []int64) tracer.Tuple {
	t := make(tracer.Tuple, len(s))
	for i, d := range s {
		t[i] = tracer.MakeInt(d)
	}
	return t
}

// ---------------------------------------------------------------------------
// Index expressions.

// Index is an index expression: a loop iterator, a program id, an index
// grid (nl.arange, an nl.mgrid axis) or an affine combination of them.
type Index struct {
	x    lower.Index
	used uint64
	st   *state
}

func newIndex(st *state, x lower.Index) tracer.Value {
	if c, ok := x.Const(); ok {
		return tracer.MakeInt(c)
	}
	return &Index{x: x, st: st}
}

func (v *Index) use() {
	if v.st != nil {
		v.used = v.st.tick()
	}
}

func (v *Index) Type() string { return "IndexExpr" }

func (v *Index) String() string {
	if v.st != nil {
		return v.x.Format(v.st.axisName)
	}
	return v.x.String()
}

// Truth needs the value: NeedConcrete for a loop iterator or program id
// (the loop unrolls), an error for an index grid.
func (v *Index) Truth() (bool, error) {
	v.use()
	if c, ok := v.x.Const(); ok {
		return c != 0, nil
	}
	return false, v.needConcrete("the truth value")
}

func (v *Index) needConcrete(what string) error {
	if !v.x.IsScalar() {
		return nkiErrorf("%s of the index grid %s is not a number: an index grid is an array of indices", what, v)
	}
	nc := &tracer.NeedConcrete{What: what, Value: v.String()}
	if v.st != nil {
		for _, a := range v.x.Axes() {
			if l := v.st.loopOf(a); l != nil {
				nc.Vars = append(nc.Vars, l)
			}
		}
	}
	return nc
}

// PyIndex gives the integer value of a constant.
func (v *Index) PyIndex(th *tracer.Thread) (tracer.Value, error) {
	v.use()
	if c, ok := v.x.Const(); ok {
		return tracer.MakeInt(c), nil
	}
	return nil, v.needConcrete("an integer value")
}

// PyFloat gives the value of a constant.
func (v *Index) PyFloat(th *tracer.Thread) (float64, error) {
	v.use()
	if c, ok := v.x.Const(); ok {
		return float64(c), nil
	}
	return 0, v.needConcrete("a float value")
}

// Binary implements + - * // % of indices and integers.
func (v *Index) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	v.use()
	y, ok := indexOperand(other)
	if !ok {
		return nil, nil
	}
	x := v.x
	if right {
		x, y = y, x
	}
	var r lower.Index
	switch op {
	case syntax.Add:
		r = x.Add(y)
	case syntax.Sub:
		r = x.Sub(y)
	case syntax.Mult:
		switch {
		case y.IsScalar() && y.Sym.IsConst():
			r = x.Scale(y.Sym.Const)
		case x.IsScalar() && x.Sym.IsConst():
			r = y.Scale(x.Sym.Const)
		default:
			return nil, notSupportedf("multiplying two symbolic indices (%s * %s): an index is affine in its loop iterators and grids", v.fmt(x), v.fmt(y))
		}
	case syntax.FloorDiv, syntax.Mod:
		d, ok := y.Const()
		if !ok {
			return nil, notSupportedf("dividing by a symbolic index (%s): narwhal divides indices by constants", v.fmt(y))
		}
		var err error
		if op == syntax.FloorDiv {
			r, err = x.FloorDiv(d)
		} else {
			r, err = x.Mod(d)
		}
		if err != nil {
			return nil, convert(err)
		}
	default:
		return nil, nil
	}
	return newIndex(v.st, r), nil
}

func (v *Index) fmt(x lower.Index) string {
	if v.st != nil {
		return x.Format(v.st.axisName)
	}
	return x.String()
}

func indexOperand(x tracer.Value) (lower.Index, bool) {
	switch y := x.(type) {
	case *Index:
		y.use()
		return y.x, true
	case tracer.Int:
		n, ok := y.Int64()
		return lower.ConstIndex(n), ok
	case tracer.Bool:
		if y {
			return lower.ConstIndex(1), true
		}
		return lower.ConstIndex(0), true
	case *ParDim:
		return lower.ConstIndex(y.n), true
	}
	return lower.Index{}, false
}

// Unary implements -v.
func (v *Index) Unary(th *tracer.Thread, op syntax.UnaryOpKind) (tracer.Value, error) {
	v.use()
	switch op {
	case syntax.USub:
		return newIndex(v.st, v.x.Scale(-1)), nil
	case syntax.UAdd:
		return v, nil
	}
	return nil, nil
}

// Compare makes a mask (a < b) of indices.
func (v *Index) Compare(th *tracer.Thread, op syntax.CmpOp, other tracer.Value, right bool) (tracer.Value, error) {
	v.use()
	y, ok := indexOperand(other)
	if !ok {
		return nil, nil
	}
	s, ok := cmpText[op]
	if !ok {
		return nil, nil
	}
	x := v.x
	if right {
		x, y = y, x
	}
	m, err := lower.Compare(x, y, s)
	if err != nil {
		return nil, convert(err)
	}
	return &Mask{m: m, st: v.st}, nil
}

var cmpText = map[syntax.CmpOp]string{syntax.Lt: "<", syntax.LtE: "<=", syntax.Gt: ">", syntax.GtE: ">=", syntax.Eq: "==", syntax.NotEq: "!="}

// Index implements grid[:, None] and grid[None, :].
func (v *Index) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	v.use()
	parts := []tracer.Value{key}
	if t, ok := key.(tracer.Tuple); ok {
		parts = t
	}
	pos := -1
	for i, p := range parts {
		switch q := p.(type) {
		case tracer.NoneType:
		case *tracer.Slice:
			if !isNone(q.Start) || !isNone(q.Stop) || !isNone(q.Step) || pos >= 0 {
				return nil, notSupportedf("indexing an index grid with %s: narwhal places one-dimensional grids with [:, None] and [None, :]", tracer.Repr(key))
			}
			pos = i
		default:
			return nil, notSupportedf("indexing an index grid with %s: narwhal places one-dimensional grids with [:, None] and [None, :]", tracer.Repr(key))
		}
	}
	if pos < 0 {
		pos = 0
	}
	r, err := v.x.Expand(len(parts), pos)
	if err != nil {
		return nil, convert(err)
	}
	return newIndex(v.st, r), nil
}

// Hash lets constant-free indices be dict keys by structure.
func (v *Index) Hash(th *tracer.Thread) (uint64, error) {
	h := uint64(14695981039346656037)
	for _, c := range v.String() {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h, nil
}

func isNone(v tracer.Value) bool {
	_, ok := v.(tracer.NoneType)
	return v == nil || ok
}

// ---------------------------------------------------------------------------
// Masks.

// Mask is a conjunction of index comparisons (mask= predicates).
type Mask struct {
	m    lower.Mask
	st   *state
	used uint64
}

func (v *Mask) Type() string   { return "mask" }
func (v *Mask) String() string { return v.m.String() }

// Truth: a comparison of loop iterators (`if i == 0:`) needs their values
// (NeedConcrete: the loop unrolls); of constants it is a bool; of index
// grids it is an array, an error.
func (v *Mask) Truth() (bool, error) {
	if v.st != nil {
		v.used = v.st.tick()
	}
	holds := true
	var axes []affine.Axis
	for _, c := range v.m.Cons {
		if !c.X.IsScalar() {
			return false, nkiErrorf("the truth value of the mask %s over index grids is an array, not a bool", v)
		}
		if !c.X.Sym.IsConst() {
			axes = append(axes, c.X.Axes()...)
			continue
		}
		x := c.X.Sym.Const
		switch c.Op {
		case affine.GE0:
			holds = holds && x >= 0
		case affine.EQ0:
			holds = holds && x == 0
		case affine.NE0:
			holds = holds && x != 0
		}
	}
	if len(axes) == 0 {
		return holds, nil
	}
	nc := &tracer.NeedConcrete{What: "the truth value of a comparison", Value: v.String()}
	if v.st != nil {
		for _, a := range axes {
			if l := v.st.loopOf(a); l != nil {
				nc.Vars = append(nc.Vars, l)
			}
		}
	}
	return false, nc
}

// Binary implements mask & mask.
func (v *Mask) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	o, ok := other.(*Mask)
	if !ok {
		if b, isBool := other.(tracer.Bool); isBool && op == syntax.BitAnd {
			if b {
				return v, nil
			}
			return &Mask{m: lower.Mask{Cons: []lower.Constraint{{X: lower.ConstIndex(-1), Op: affine.GE0}}}, st: v.st}, nil
		}
		return nil, nil
	}
	switch op {
	case syntax.BitAnd:
		return &Mask{m: v.m.And(o.m), st: v.st}, nil
	case syntax.BitOr:
		return nil, notSupportedf("mask %s | %s: an NKI mask is a conjunction of comparisons (&)", v, o)
	}
	return nil, nil
}

// ---------------------------------------------------------------------------
// nl.mgrid results.

// Grid is the result of nl.mgrid[...]: its axes as .p, .x, .y, .z (and by
// position: i_p, i_f = nl.mgrid[0:128, 0:512]).
type Grid struct {
	parts []tracer.Value
}

func (g *Grid) Type() string         { return "mgrid" }
func (g *Grid) String() string       { return fmt.Sprintf("mgrid(%d axes)", len(g.parts)) }
func (g *Grid) Truth() (bool, error) { return true, nil }

// Attr gives .p, .x, .y, .z.
func (g *Grid) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	i := strings.Index("pxyzw", name)
	if len(name) != 1 || i < 0 {
		return nil, nil
	}
	if i >= len(g.parts) {
		return nil, tracer.Errorf("AttributeError", "an mgrid of %d axes has no axis .%s", len(g.parts), name)
	}
	return g.parts[i], nil
}

func (g *Grid) AttrNames() []string { return []string{"p", "x", "y", "z", "w"}[:min(5, len(g.parts))] }

// Iterate yields the axes.
func (g *Grid) Iterate(th *tracer.Thread) (tracer.Iterator, error) {
	i := 0
	return iterFunc(func() (tracer.Value, bool) {
		if i >= len(g.parts) {
			return nil, false
		}
		i++
		return g.parts[i-1], true
	}), nil
}

// Len is the number of axes.
func (g *Grid) Len(th *tracer.Thread) (int, error) { return len(g.parts), nil }

// Index gives an axis by position.
func (g *Grid) Index(th *tracer.Thread, key tracer.Value) (tracer.Value, error) {
	n, err := tracer.AsInt64(th, key)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		n += int64(len(g.parts))
	}
	if n < 0 || n >= int64(len(g.parts)) {
		return nil, tracer.Errorf("IndexError", "mgrid axis index out of range")
	}
	return g.parts[n], nil
}

type iterFunc func() (tracer.Value, bool)

func (f iterFunc) Next(th *tracer.Thread) (tracer.Value, bool, error) {
	v, ok := f()
	return v, ok, nil
}

// ---------------------------------------------------------------------------
// dtypes, buffers, engines, par_dim, typed scalars.

// Dtype is a data type (nl.float32, np.float32, tile.dtype).
type Dtype struct {
	dt   bir.Dtype
	name string
}

var dtypeNames = map[bir.Dtype]string{
	bir.Float32: "float32", bir.Float16: "float16", bir.BFloat16: "bfloat16", bir.Float32R: "tfloat32",
	bir.Float8E4M3: "float8_e4m3", bir.Float8E5: "float8_e5m2", bir.Float8E4M3FN: "float8_e4m3fn",
	bir.Int8: "int8", bir.Int16: "int16", bir.Int32: "int32", bir.Uint8: "uint8", bir.Uint16: "uint16", bir.Uint32: "uint32",
	bir.Int64: "int64", bir.Uint64: "uint64",
}

func dtypeValue(dt bir.Dtype) *Dtype {
	name, ok := dtypeNames[dt]
	if !ok {
		name = dt.String()
	}
	return &Dtype{dt: dt, name: name}
}

func (d *Dtype) Type() string         { return "dtype" }
func (d *Dtype) String() string       { return d.name }
func (d *Dtype) Repr() string         { return "dtype('" + d.name + "')" }
func (d *Dtype) Truth() (bool, error) { return true, nil }
func (d *Dtype) Name() string         { return d.name }

// Hash makes dtypes dict keys by value.
func (d *Dtype) Hash(th *tracer.Thread) (uint64, error) { return uint64(d.dt) + 0x9e3779b9, nil }

// Compare implements == and != between dtypes (and their names).
func (d *Dtype) Compare(th *tracer.Thread, op syntax.CmpOp, other tracer.Value, right bool) (tracer.Value, error) {
	var eq bool
	switch o := other.(type) {
	case *Dtype:
		eq = o.dt == d.dt
	case tracer.String:
		eq = string(o) == d.name
	default:
		return nil, nil
	}
	switch op {
	case syntax.Eq:
		return tracer.Bool(eq), nil
	case syntax.NotEq:
		return tracer.Bool(!eq), nil
	}
	return nil, nil
}

// Attr gives .itemsize and .name.
func (d *Dtype) Attr(th *tracer.Thread, name string) (tracer.Value, error) {
	switch name {
	case "itemsize":
		return tracer.MakeInt(d.dt.Size()), nil
	case "name":
		return tracer.String(d.name), nil
	}
	return nil, nil
}

func (d *Dtype) AttrNames() []string { return []string{"itemsize", "name"} }

// Call makes a typed scalar (np.float16(2)).
func (d *Dtype) Call(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var x tracer.Value
	if err := tracer.UnpackArgs(d.name, args, kwargs, "x?", &x); err != nil {
		return nil, err
	}
	v := 0.0
	if x != nil {
		f, err := tracer.AsFloat64(th, x)
		if err != nil {
			return nil, err
		}
		v = f
	}
	if !d.dt.IsFloat() {
		v = math.Trunc(v)
	}
	return &Scalar{v: v, dt: d.dt}, nil
}

// Scalar is a typed scalar (np.float16(2)): a number whose dtype takes
// part in type promotion as a tile's would.
type Scalar struct {
	v  float64
	dt bir.Dtype
}

func (s *Scalar) Type() string { return dtypeValue(s.dt).name }
func (s *Scalar) String() string {
	if s.dt.IsFloat() {
		return fmt.Sprint(s.v)
	}
	return fmt.Sprint(int64(s.v))
}
func (s *Scalar) Truth() (bool, error) { return s.v != 0, nil }

// PyFloat gives the value.
func (s *Scalar) PyFloat(th *tracer.Thread) (float64, error) { return s.v, nil }

// PyIndex gives an integer scalar's value.
func (s *Scalar) PyIndex(th *tracer.Thread) (tracer.Value, error) {
	if s.dt.IsFloat() {
		return nil, typeErrorf("'%s' object cannot be interpreted as an integer", s.Type())
	}
	return tracer.MakeInt(int64(s.v)), nil
}

// Binary with Python numbers computes as Python does with the value.
func (s *Scalar) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	if t, ok := other.(*Tensor); ok {
		return t.Binary(th, op, s, !right)
	}
	var x tracer.Value = tracer.Float(s.v)
	if !s.dt.IsFloat() {
		x = tracer.MakeInt(int64(s.v))
	}
	if right {
		return tracer.Binary(th, op, other, x)
	}
	return tracer.Binary(th, op, x, other)
}

// Buffer is a memory (nl.sbuf, nl.psum, nl.shared_hbm, ...), or a direct
// allocation (ncc.sbuf.mod_alloc(...)).
type Buffer struct {
	name  string
	mem   lower.Memory
	hbm   lower.HBMKind
	alloc *allocator
}

func (b *Buffer) Type() string         { return "buffer" }
func (b *Buffer) String() string       { return b.name }
func (b *Buffer) Truth() (bool, error) { return true, nil }

// Engine is an engine constant of nki.isa.
type Engine struct {
	name string
	eng  bir.Engine
	set  bool // false: unknown_engine
}

func (e *Engine) Type() string         { return "engine" }
func (e *Engine) String() string       { return e.name }
func (e *Engine) Truth() (bool, error) { return true, nil }

// ParDim is nl.par_dim(n): a shape entry that marks the partition
// dimension; it stands for n where an integer is wanted.
type ParDim struct{ n int64 }

func (p *ParDim) Type() string         { return "par_dim" }
func (p *ParDim) String() string       { return fmt.Sprintf("par_dim(%d)", p.n) }
func (p *ParDim) Truth() (bool, error) { return p.n != 0, nil }

// PyIndex gives n.
func (p *ParDim) PyIndex(th *tracer.Thread) (tracer.Value, error) { return tracer.MakeInt(p.n), nil }

// Binary computes with n.
func (p *ParDim) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	if right {
		return tracer.Binary(th, op, other, tracer.MakeInt(p.n))
	}
	return tracer.Binary(th, op, tracer.MakeInt(p.n), other)
}
