package affine

import (
	"slices"
	"strings"
)

// CmpKind is the relation of one predicate constraint against zero.
type CmpKind uint8

const (
	GE0 CmpKind = iota // Expr >= 0
	EQ0                // Expr == 0
	NE0                // Expr != 0
)

// Constraint is one "Expr op 0" relation.
type Constraint struct {
	Expr Expr
	Op   CmpKind
}

// Pred is a conjunction of constraints: the AffinePredicate of the seeds,
// used for instruction predicates (an instruction is dropped on iterations
// where its predicate is false) and for loop-carried dependencies (the edge
// exists only on iterations where the predicate holds). The empty Pred is
// "true". Canonical: constraints sorted, duplicates removed, constant
// constraints folded (a false constant constraint makes the Pred False).
type Pred struct {
	Cons  []Constraint
	False bool // the predicate is constantly false
}

// True is the always-true predicate.
func True() Pred { return Pred{} }

// IsTrue reports whether p is constantly true.
func (p Pred) IsTrue() bool { return !p.False && len(p.Cons) == 0 }

// GE returns the predicate a >= b.
func GE(a, b Expr) Pred { return And(Pred{Cons: []Constraint{{Expr: Sub(a, b), Op: GE0}}}) }

// GT returns a > b.
func GT(a, b Expr) Pred { return GE(a, AddConst(b, 1)) }

// LE returns a <= b.
func LE(a, b Expr) Pred { return GE(b, a) }

// LT returns a < b.
func LT(a, b Expr) Pred { return GT(b, a) }

// EQ returns a == b.
func EQ(a, b Expr) Pred { return And(Pred{Cons: []Constraint{{Expr: Sub(a, b), Op: EQ0}}}) }

// NE returns a != b.
func NE(a, b Expr) Pred { return And(Pred{Cons: []Constraint{{Expr: Sub(a, b), Op: NE0}}}) }

// And returns the canonical conjunction of ps.
func And(ps ...Pred) Pred {
	var cons []Constraint
	for _, p := range ps {
		if p.False {
			return Pred{False: true}
		}
		cons = append(cons, p.Cons...)
	}
	out := cons[:0]
	for _, c := range cons {
		if c.Expr.IsConst() {
			if !holds(c.Op, c.Expr.Const) {
				return Pred{False: true}
			}
			continue
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Constraint) int {
		if a.Op != b.Op {
			return int(a.Op) - int(b.Op)
		}
		return Compare(a.Expr, b.Expr)
	})
	out = slices.CompactFunc(out, func(a, b Constraint) bool { return a.Op == b.Op && Equal(a.Expr, b.Expr) })
	if len(out) == 0 {
		return Pred{}
	}
	return Pred{Cons: slices.Clip(out)}
}

func holds(op CmpKind, v int64) bool {
	switch op {
	case GE0:
		return v >= 0
	case EQ0:
		return v == 0
	default:
		return v != 0
	}
}

// Eval evaluates p under env.
func (p Pred) Eval(env Env) (bool, error) {
	if p.False {
		return false, nil
	}
	for _, c := range p.Cons {
		v, err := c.Expr.Eval(env)
		if err != nil {
			return false, err
		}
		if !holds(c.Op, v) {
			return false, nil
		}
	}
	return true, nil
}

// Substitute partially evaluates p.
func (p Pred) Substitute(env Env) Pred {
	if p.False || len(p.Cons) == 0 {
		return p
	}
	cons := make([]Constraint, len(p.Cons))
	for i, c := range p.Cons {
		cons[i] = Constraint{Expr: c.Expr.Substitute(env), Op: c.Op}
	}
	return And(Pred{Cons: cons})
}

// SubstituteExpr replaces axis a by r in every constraint.
func (p Pred) SubstituteExpr(a Axis, r Expr) Pred {
	if p.False || len(p.Cons) == 0 {
		return p
	}
	cons := make([]Constraint, len(p.Cons))
	for i, c := range p.Cons {
		cons[i] = Constraint{Expr: c.Expr.SubstituteExpr(a, r), Op: c.Op}
	}
	return And(Pred{Cons: cons})
}

// Uses reports whether p mentions axis a.
func (p Pred) Uses(a Axis) bool {
	for _, c := range p.Cons {
		if c.Expr.Uses(a) {
			return true
		}
	}
	return false
}

// Format prints p as "e1 >= 0 and e2 == 0", "true" or "false".
func (p Pred) Format(names Names) string {
	if p.False {
		return "false"
	}
	if len(p.Cons) == 0 {
		return "true"
	}
	parts := make([]string, len(p.Cons))
	for i, c := range p.Cons {
		op := " >= 0"
		switch c.Op {
		case EQ0:
			op = " == 0"
		case NE0:
			op = " != 0"
		}
		parts[i] = c.Expr.Format(names) + op
	}
	return strings.Join(parts, " and ")
}

// String prints p with default axis names.
func (p Pred) String() string { return p.Format(nil) }

// Key returns a canonical interning key for p.
func (p Pred) Key() string {
	if p.False {
		return "F"
	}
	var sb strings.Builder
	for _, c := range p.Cons {
		sb.WriteByte(byte('0' + c.Op))
		c.Expr.writeKey(&sb)
		sb.WriteByte(';')
	}
	return sb.String()
}
