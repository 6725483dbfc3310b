package lower

// Index expressions of the legacy NKI API.
//
// An NKI index is a numpy-like integer array built from three kinds of
// symbols: index-grid axes (nl.arange, an axis of nl.mgrid, a slice),
// symbolic loop iterators (a kept affine_range/sequential_range loop) and
// SPMD program ids (outer loops of the kernel). Index is the affine form
//
//	sum_k coef_k * axis_k + Sym
//
// where each axis_k is a GridAxis (it takes the values 0..Size-1 along
// dimension Pos of a grid of Rank dimensions) and Sym is an affine
// expression (package bir/affine) over the kernel's loop axes, with the
// constant part folded in.
//
// Decision (numpy semantics, where the NKI documentation is silent): a
// grid axis is identified by its structure (size, rank, position), not by
// the call that made it. Two nl.arange(128)[:, None] are the same array in
// numpy, so they index the same tile dimension, and a mask written with
// one restricts accesses written with the other; a slice 0:128 in the
// first of two sliced dimensions is the same axis as
// nl.arange(128)[:, None].

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// GridAxis is one axis of an index grid: the values 0..Size-1 laid along
// dimension Pos of a grid of Rank dimensions (nl.arange(n) is {n, 1, 0};
// nl.arange(n)[:, None] is {n, 2, 0}; nl.mgrid[0:a, 0:b].x is {b, 2, 1}).
type GridAxis struct {
	Size      int64
	Rank, Pos int
}

func (g GridAxis) String() string {
	return fmt.Sprintf("arange(%d)@%d/%d", g.Size, g.Pos, g.Rank)
}

func compareGrid(a, b GridAxis) int {
	switch {
	case a.Rank != b.Rank:
		return a.Rank - b.Rank
	case a.Pos != b.Pos:
		return a.Pos - b.Pos
	case a.Size < b.Size:
		return -1
	case a.Size > b.Size:
		return 1
	}
	return 0
}

// GridTerm is Coef * Axis.
type GridTerm struct {
	Axis GridAxis
	Coef int64
}

// Index is sum(Terms) + Sym. The zero Index is the constant 0. Terms are
// sorted by axis and have non-zero coefficients.
type Index struct {
	Terms []GridTerm
	Sym   affine.Expr
}

// ConstIndex returns the constant c.
func ConstIndex(c int64) Index { return Index{Sym: affine.Const(c)} }

// SymIndex returns the loop-affine expression e.
func SymIndex(e affine.Expr) Index { return Index{Sym: e} }

// Arange returns nl.arange(start, stop, step) as a one-dimensional grid.
func Arange(start, stop, step int64) (Index, error) {
	if step == 0 {
		return Index{}, errorf(KindNKI, "nl.arange: step must not be zero")
	}
	n := int64(0)
	if step > 0 && stop > start {
		n = (stop - start + step - 1) / step
	} else if step < 0 && stop < start {
		n = (start - stop - step - 1) / -step
	}
	if n <= 0 {
		return Index{}, errorf(KindNKI, "nl.arange(%d, %d, %d) is empty", start, stop, step)
	}
	return Index{Terms: []GridTerm{{Axis: GridAxis{Size: n, Rank: 1, Pos: 0}, Coef: step}}, Sym: affine.Const(start)}, nil
}

// IsScalar reports whether x has no grid axis (a loop-affine value).
func (x Index) IsScalar() bool { return len(x.Terms) == 0 }

// Const returns x's value when it is a constant.
func (x Index) Const() (int64, bool) {
	if len(x.Terms) == 0 && x.Sym.IsConst() {
		return x.Sym.Const, true
	}
	return 0, false
}

// Rank is the number of dimensions of x as a numpy array (0 for a scalar).
func (x Index) Rank() int {
	r := 0
	for _, t := range x.Terms {
		r = max(r, t.Axis.Rank)
	}
	return r
}

// Shape is x's numpy shape: the broadcast of its axes (1 where no axis
// lies).
func (x Index) Shape() ([]int64, error) {
	r := x.Rank()
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	for _, t := range x.Terms {
		p := t.Axis.Pos + r - t.Axis.Rank
		if shape[p] != 1 && shape[p] != t.Axis.Size && t.Axis.Size != 1 {
			return nil, errorf(KindNKI, "index grids of sizes %d and %d do not broadcast along dimension %d", shape[p], t.Axis.Size, p)
		}
		shape[p] = max(shape[p], t.Axis.Size)
	}
	return shape, nil
}

func normTerms(ts []GridTerm) []GridTerm {
	slices.SortFunc(ts, func(a, b GridTerm) int { return compareGrid(a.Axis, b.Axis) })
	out := ts[:0]
	for _, t := range ts {
		if n := len(out); n > 0 && out[n-1].Axis == t.Axis {
			out[n-1].Coef += t.Coef
			if out[n-1].Coef == 0 {
				out = out[:n-1]
			}
			continue
		}
		if t.Coef != 0 {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Add returns x + y.
func (x Index) Add(y Index) Index {
	ts := append(slices.Clone(x.Terms), y.Terms...)
	return Index{Terms: normTerms(ts), Sym: affine.Add(x.Sym, y.Sym)}
}

// Sub returns x - y.
func (x Index) Sub(y Index) Index { return x.Add(y.Scale(-1)) }

// AddConst returns x + c.
func (x Index) AddConst(c int64) Index { return Index{Terms: x.Terms, Sym: affine.AddConst(x.Sym, c)} }

// Scale returns c * x.
func (x Index) Scale(c int64) Index {
	if c == 0 {
		return Index{}
	}
	ts := make([]GridTerm, len(x.Terms))
	for i, t := range x.Terms {
		ts[i] = GridTerm{Axis: t.Axis, Coef: t.Coef * c}
	}
	return Index{Terms: ts, Sym: affine.Scale(x.Sym, c)}
}

// FloorDiv returns x // d for a scalar x (quasi-affine over loop axes).
// A grid has no floor division in an access pattern.
func (x Index) FloorDiv(d int64) (Index, error) {
	if d <= 0 {
		return Index{}, errorf(KindNotSupported, "floor division of an index by %d: narwhal divides indices by positive constants only", d)
	}
	if !x.IsScalar() {
		return Index{}, errorf(KindNotSupported, "floor division of an index grid (%s // %d): an access pattern walks a grid with constant steps", x, d)
	}
	return Index{Sym: affine.FloorDiv(x.Sym, d)}, nil
}

// Mod returns x % d for a scalar x.
func (x Index) Mod(d int64) (Index, error) {
	if d <= 0 {
		return Index{}, errorf(KindNotSupported, "modulo of an index by %d: narwhal takes indices modulo positive constants only", d)
	}
	if !x.IsScalar() {
		return Index{}, errorf(KindNotSupported, "modulo of an index grid (%s %% %d): an access pattern walks a grid with constant steps", x, d)
	}
	return Index{Sym: affine.Mod(x.Sym, d)}, nil
}

// Expand places a one-dimensional grid along dimension pos of a grid of
// rank dimensions (x[:, None] is Expand(2, 0), x[None, :] is Expand(2, 1)).
func (x Index) Expand(rank, pos int) (Index, error) {
	if x.Rank() > 1 {
		return Index{}, errorf(KindNotSupported, "re-indexing a %d-dimensional index grid with None: narwhal expands one-dimensional grids (nl.arange(n)[:, None])", x.Rank())
	}
	ts := make([]GridTerm, len(x.Terms))
	for i, t := range x.Terms {
		ts[i] = GridTerm{Axis: GridAxis{Size: t.Axis.Size, Rank: rank, Pos: pos}, Coef: t.Coef}
	}
	return Index{Terms: normTerms(ts), Sym: x.Sym}, nil
}

// Equal reports whether x and y are the same index.
func (x Index) Equal(y Index) bool {
	return slices.Equal(x.Terms, y.Terms) && affine.Equal(x.Sym, y.Sym)
}

// Axes lists the loop axes x depends on.
func (x Index) Axes() []affine.Axis { return x.Sym.Axes(nil) }

// Format renders x with loop axis names from names.
func (x Index) Format(names affine.Names) string {
	var sb strings.Builder
	for i, t := range x.Terms {
		if i > 0 {
			sb.WriteString(" + ")
		}
		if t.Coef != 1 {
			fmt.Fprintf(&sb, "%d*", t.Coef)
		}
		sb.WriteString(t.Axis.String())
	}
	if len(x.Terms) == 0 || !(x.Sym.IsConst() && x.Sym.Const == 0) {
		if len(x.Terms) > 0 {
			sb.WriteString(" + ")
		}
		sb.WriteString(x.Sym.Format(names))
	}
	return sb.String()
}

func (x Index) String() string { return x.Format(nil) }

// Elem is one subscript of a tensor access: an Index (an int, a loop
// iterator, an index grid) or a slice start:stop:step (stop - start must
// be a constant; start may be symbolic).
type Elem struct {
	Index Index
	// IsSlice marks a slice; Start, Stop and Step are its bounds (Full:
	// the whole dimension, ":"; HasStart/HasStop: given bounds).
	IsSlice           bool
	Start, Stop       Index
	HasStart, HasStop bool
	Step              int64
	// Exact (nl.ds): the bounds are taken as given, not clamped to the
	// dimension as Python's slices are.
	Exact bool
}

// At returns the subscript x.
func At(x Index) Elem { return Elem{Index: x} }

// All returns the full slice ":".
func All() Elem { return Elem{IsSlice: true, Step: 1} }

// Slice returns start:stop:step (step 0 means 1).
func Slice(start, stop Index, step int64) Elem {
	if step == 0 {
		step = 1
	}
	return Elem{IsSlice: true, Start: start, Stop: stop, HasStart: true, HasStop: true, Step: step}
}

// DS returns nl.ds(start, size): start:start+size.
func DS(start Index, size int64) Elem {
	e := Slice(start, start.AddConst(size), 1)
	e.Exact = true
	return e
}
