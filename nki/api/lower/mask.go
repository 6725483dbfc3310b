package lower

// Masks (the NKI documentation's "NKI API Masking", nki.api.shared):
//
//	"The mask field is an execution predicate known at compile-time, which
//	informs the compiler to skip generating the instruction or generate the
//	instruction with a smaller input tile shape."
//
// A Mask is a conjunction of affine comparisons of indices (a < b, (a < b)
// & (c > d)), each side an affine expression of nl.arange grids, loop
// iterators and program ids. Lowering, per constraint:
//
//   - no grid axis (only loop iterators, program ids and constants): an
//     affine predicate on the instruction (Instruction.Pred);
//   - exactly one grid axis g: a range of g's values, [lo, hi); every tile
//     dimension of every operand that g walks is shrunk to it (its offset
//     moves by lo steps, its num becomes hi - lo), a partial tile. An
//     empty range drops the instruction;
//   - two or more grid axes (i_p >= i_f, a triangle): not an access
//     pattern; an error pointing at nisa.affine_select.
//
// When a bound depends on a loop iterator (the common "i*T + arange < N"
// of a last, partial tile), the shapes are piecewise constant over the
// iterations: for a bound over one loop axis a, narwhal computes every
// iteration's shapes, groups consecutive iterations with equal shapes and
// emits one copy of the instruction per group, with the predicate
// lo <= a <= hi and that group's shapes (full tiles for all iterations
// but the last, and one partial copy for the last, in the common case);
// groups that are empty emit nothing. More than maxMaskSplit groups, a
// loop of more than maxMaskEnumerate iterations, or bounds over two loop
// axes raise NeedConcrete for those loops, which unroll at trace time.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

const (
	maxMaskSplit     = 4
	maxMaskEnumerate = 1 << 16
)

// Constraint is X op 0.
type Constraint struct {
	X  Index
	Op affine.CmpKind
}

// Mask is a conjunction of constraints; the zero Mask is "true".
type Mask struct {
	Cons []Constraint
}

// IsTrue reports whether m has no constraint.
func (m Mask) IsTrue() bool { return len(m.Cons) == 0 }

// And returns m & n.
func (m Mask) And(n Mask) Mask {
	return Mask{Cons: append(slices.Clone(m.Cons), n.Cons...)}
}

// Compare returns the mask a op b for op one of < <= > >= == !=.
func Compare(a, b Index, op string) (Mask, error) {
	var c Constraint
	switch op {
	case "<":
		c = Constraint{X: b.Sub(a).AddConst(-1), Op: affine.GE0}
	case "<=":
		c = Constraint{X: b.Sub(a), Op: affine.GE0}
	case ">":
		c = Constraint{X: a.Sub(b).AddConst(-1), Op: affine.GE0}
	case ">=":
		c = Constraint{X: a.Sub(b), Op: affine.GE0}
	case "==":
		c = Constraint{X: a.Sub(b), Op: affine.EQ0}
	case "!=":
		c = Constraint{X: a.Sub(b), Op: affine.NE0}
	default:
		return Mask{}, errorf(KindNotSupported, "comparison %s of indices", op)
	}
	return Mask{Cons: []Constraint{c}}, nil
}

func (m Mask) String() string {
	parts := make([]string, len(m.Cons))
	for i, c := range m.Cons {
		op := ">= 0"
		switch c.Op {
		case affine.EQ0:
			op = "== 0"
		case affine.NE0:
			op = "!= 0"
		}
		parts[i] = c.X.String() + " " + op
	}
	return strings.Join(parts, " & ")
}

// variant is one copy of an instruction: its predicate and the ranges of
// the masked grid axes.
type variant struct {
	pred   affine.Pred
	ranges map[GridAxis][2]int64
}

// gridRange is the range of g's values satisfying c*g + s OP 0, given the
// constant s (ok false: no value does).
func gridRange(g GridAxis, coef, s int64, op affine.CmpKind) (lo, hi int64) {
	lo, hi = 0, g.Size
	switch op {
	case affine.GE0:
		if coef > 0 { // g >= ceil(-s / coef)
			lo = max(lo, ceilDiv(-s, coef))
		} else { // g <= floor(s / -coef)
			hi = min(hi, floorDiv(s, -coef)+1)
		}
	case affine.EQ0:
		if (-s)%coef != 0 {
			return 0, 0
		}
		v := -s / coef
		lo, hi = max(lo, v), min(hi, v+1)
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func floorDiv(a, b int64) int64 { return affine.FloorDivInt(a, b) }
func ceilDiv(a, b int64) int64  { return -affine.FloorDivInt(-a, b) }

// variants lowers mask m for an instruction whose operands' dimensions are
// walked by the grid axes in used.
func (k *Kernel) variants(m Mask, used map[GridAxis]bool, what string) ([]variant, error) {
	pred := affine.True()
	var grid []Constraint
	for _, c := range m.Cons {
		switch len(c.X.Terms) {
		case 0:
			pred = affine.And(pred, affine.Pred{Cons: []affine.Constraint{{Expr: c.X.Sym, Op: c.Op}}})
		case 1:
			if c.Op == affine.NE0 {
				return nil, k.Errorf(KindNotSupported, "mask %s of %s: a != comparison on an index grid cuts a hole in the tile, which no access pattern has", Mask{Cons: []Constraint{c}}, what)
			}
			if !used[c.X.Terms[0].Axis] {
				return nil, k.Errorf(KindNKI, "mask %s of %s restricts %s, which no operand's index uses", Mask{Cons: []Constraint{c}}, what, c.X.Terms[0].Axis)
			}
			grid = append(grid, c)
		default:
			return nil, k.Errorf(KindNotSupported, "mask %s of %s compares two index grids: the valid region is not a rectangle (an access pattern); use nisa.affine_select", Mask{Cons: []Constraint{c}}, what)
		}
	}
	if pred.False {
		return nil, nil
	}
	var axes []affine.Axis
	for _, c := range grid {
		for _, a := range c.X.Sym.Axes(nil) {
			if !slices.Contains(axes, a) {
				axes = append(axes, a)
			}
		}
	}
	ranges := func(env affine.Env) (map[GridAxis][2]int64, bool) {
		r := map[GridAxis][2]int64{}
		for _, c := range grid {
			g := c.X.Terms[0].Axis
			s, err := c.X.Sym.Eval(env)
			if err != nil {
				return nil, false
			}
			lo, hi := gridRange(g, c.X.Terms[0].Coef, s, c.Op)
			if old, ok := r[g]; ok {
				lo, hi = max(lo, old[0]), min(hi, old[1])
			}
			if hi <= lo {
				return nil, false
			}
			r[g] = [2]int64{lo, hi}
		}
		return r, true
	}
	switch len(axes) {
	case 0:
		r, ok := ranges(&affine.Values{})
		if !ok {
			return nil, nil
		}
		return []variant{{pred: pred, ranges: r}}, nil
	case 1:
		a := axes[0]
		l := k.loopOf(a)
		if l == nil || l.Trip > maxMaskEnumerate {
			break
		}
		var out []variant
		var cur map[GridAxis][2]int64
		var curOK bool
		start := int64(0)
		env := &affine.Values{}
		closeGroup := func(end int64) {
			if !curOK {
				return
			}
			var p affine.Pred
			switch {
			case start == 0 && end == l.Trip-1:
				p = pred
			case start == end:
				p = affine.And(pred, affine.EQ(affine.Var(a), affine.Const(start)))
			case start == 0:
				p = affine.And(pred, affine.LE(affine.Var(a), affine.Const(end)))
			case end == l.Trip-1:
				p = affine.And(pred, affine.GE(affine.Var(a), affine.Const(start)))
			default:
				p = affine.And(pred, affine.GE(affine.Var(a), affine.Const(start)), affine.LE(affine.Var(a), affine.Const(end)))
			}
			out = append(out, variant{pred: p, ranges: cur})
		}
		for v := int64(0); v < l.Trip; v++ {
			env.Bind(a, v)
			r, ok := ranges(env)
			if v > 0 && ok == curOK && (!ok || sameRanges(r, cur)) {
				continue
			}
			if v > 0 {
				closeGroup(v - 1)
			}
			cur, curOK, start = r, ok, v
		}
		closeGroup(l.Trip - 1)
		if len(out) <= maxMaskSplit {
			return out, nil
		}
	}
	return nil, k.needConcrete(axes, fmt.Sprintf("the mask of %s", what), Mask{Cons: grid}.format(k))
}

func sameRanges(a, b map[GridAxis][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for g, r := range a {
		if b[g] != r {
			return false
		}
	}
	return true
}

func (m Mask) format(k *Kernel) string {
	parts := make([]string, len(m.Cons))
	for i, c := range m.Cons {
		parts[i] = c.X.Format(k.axisName)
	}
	return strings.Join(parts, ", ")
}

// restrict applies the ranges of variant v to access a (in place).
func restrict(a *Access, v variant) {
	for i := range a.Dims {
		d := &a.Dims[i]
		lo, hi := int64(0), d.Num
		hit := false
		for _, g := range d.Axes {
			if r, ok := v.ranges[g]; ok {
				lo, hi = max(lo, r[0]), min(hi, r[1])
				hit = true
			}
		}
		if !hit {
			continue
		}
		if hi < lo {
			hi = lo
		}
		a.Offset = affine.AddConst(a.Offset, lo*d.Step)
		d.Num = hi - lo
	}
}
