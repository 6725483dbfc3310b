// Package affine implements quasi-affine integer expressions over loop axes
// and affine predicates, the "pelican" QuasiAffineExpr algebra the seeds
// describe (seed 003: the unroller substitutes a concrete value for each loop
// axis and re-evaluates indices, offsets, orders, predicates and dependency
// carries against that substitution).
//
// An Expr is a sum of terms c_k * a_k plus a constant, where each atom a_k is
// a loop axis, or floordiv/mod of a sub-expression by a positive constant.
// Expressions are immutable values kept in a canonical form:
//
//   - terms are sorted by atom (axes by id, then floordiv, then mod, compared
//     structurally), equal atoms are merged and zero coefficients dropped;
//   - floordiv and mod of an expression whose terms are all multiples of the
//     divisor are folded (  (4*i + 6) floordiv 2 = 2*i + 3, (4*i) mod 2 = 0 ),
//     and a factor common to the divisor and every coefficient is divided
//     out of a floordiv ( (4*i + 3) floordiv 6 = (2*i + 1) floordiv 3 );
//   - floordiv/mod of a constant fold to a constant; x floordiv 1 = x and
//     x mod 1 = 0;
//   - nested floordivs fold, floor(floor(x/a)/b) = floor(x/(a*b)):
//     (i floordiv 2) floordiv 3 = i floordiv 6;
//   - a mod inside a mod by a divisor of its own folds:
//     (i mod 4) mod 2 = i mod 2;
//   - floordiv and mod of a bounded expression (made of mod atoms) fold
//     when its values fall in one multiple of the divisor:
//     (i mod 4) mod 8 = i mod 4, (i mod 4) floordiv 4 = 0;
//   - a sum recombines floordiv and mod of one dividend,
//     x = a*(x floordiv a) + x mod a: 2*(i floordiv 2) + i mod 2 = i.
//
// See FloorDiv, Mod and recombine for the exact rules. Two expressions that
// are equal by these rules have identical Terms and Const and print
// identically; Key gives a string usable for interning. The form is not
// complete: some equal expressions (for example i - i mod 2 and
// 2*(i floordiv 2)) keep different forms.
//
// Axes are identified by a dense int32 id (Axis). The owner of the ids (the
// IR keeps one table per module) supplies names for printing and values for
// evaluation. Division rounds towards negative infinity and mod takes the
// sign of the divisor (floored), as in the seeds' pelican algebra and in
// Python; the divisor is always a positive constant.
package affine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// Axis identifies a loop axis (or any symbolic integer variable).
type Axis int32

// AtomKind says what an atom of a term is.
type AtomKind uint8

const (
	AtomAxis     AtomKind = iota // a loop axis
	AtomFloorDiv                 // floor(Sub / Div)
	AtomMod                      // Sub mod Div, result in [0, Div)
)

// Atom is the non-constant factor of a term.
type Atom struct {
	Kind AtomKind
	Axis Axis  // for AtomAxis
	Sub  *Expr // for AtomFloorDiv and AtomMod (canonical, never constant)
	Div  int64 // for AtomFloorDiv and AtomMod, > 1
}

// Term is Coeff * Atom with Coeff != 0.
type Term struct {
	Coeff int64
	Atom  Atom
}

// Expr is a canonical quasi-affine expression. The zero value is the
// constant 0. Exprs are values: never mutate Terms after construction.
type Expr struct {
	Terms []Term
	Const int64
}

// Const returns the constant expression c.
func Const(c int64) Expr { return Expr{Const: c} }

// Var returns the expression 1*a.
func Var(a Axis) Expr { return Expr{Terms: []Term{{Coeff: 1, Atom: Atom{Kind: AtomAxis, Axis: a}}}} }

// IsConst reports whether e has no terms.
func (e Expr) IsConst() bool { return len(e.Terms) == 0 }

// compareAtom orders atoms canonically.
func compareAtom(a, b Atom) int {
	if a.Kind != b.Kind {
		return int(a.Kind) - int(b.Kind)
	}
	if a.Kind == AtomAxis {
		switch {
		case a.Axis < b.Axis:
			return -1
		case a.Axis > b.Axis:
			return 1
		}
		return 0
	}
	if a.Div != b.Div {
		if a.Div < b.Div {
			return -1
		}
		return 1
	}
	return Compare(*a.Sub, *b.Sub)
}

// Compare orders expressions structurally (a total order on canonical forms).
func Compare(a, b Expr) int {
	n := min(len(a.Terms), len(b.Terms))
	for i := 0; i < n; i++ {
		if c := compareAtom(a.Terms[i].Atom, b.Terms[i].Atom); c != 0 {
			return c
		}
		if a.Terms[i].Coeff != b.Terms[i].Coeff {
			if a.Terms[i].Coeff < b.Terms[i].Coeff {
				return -1
			}
			return 1
		}
	}
	if len(a.Terms) != len(b.Terms) {
		return len(a.Terms) - len(b.Terms)
	}
	switch {
	case a.Const < b.Const:
		return -1
	case a.Const > b.Const:
		return 1
	}
	return 0
}

// Equal reports whether a and b are the same canonical expression.
func Equal(a, b Expr) bool { return Compare(a, b) == 0 }

// normalize sorts and merges terms, dropping zero coefficients, then
// applies recombine.
func normalize(terms []Term, c int64) Expr {
	if len(terms) == 0 {
		return Expr{Const: c}
	}
	slices.SortStableFunc(terms, func(x, y Term) int { return compareAtom(x.Atom, y.Atom) })
	out := terms[:0]
	for _, t := range terms {
		if len(out) > 0 && compareAtom(out[len(out)-1].Atom, t.Atom) == 0 {
			out[len(out)-1].Coeff += t.Coeff
			continue
		}
		out = append(out, t)
	}
	res := out[:0]
	for _, t := range out {
		if t.Coeff != 0 {
			res = append(res, t)
		}
	}
	if len(res) == 0 {
		return Expr{Const: c}
	}
	return recombine(Expr{Terms: slices.Clip(res), Const: c})
}

// recombine folds floordiv/mod pairs of a sorted, merged sum by the
// identity y = b*(y floordiv b) + y mod b. A floordiv atom A and a mod atom
// M of the sum pair up, with divisor b, when b*A + M = S for an expression
// S that recombine can name:
//
//   - anchored at A = x floordiv a: for each M = z mod b of the sum with
//     b = g*a, A = (g*x + r) floordiv b for every 0 <= r < g (the common
//     factor FloorDiv divides out), so if Mod(g*x + r, b) = M + m then
//     S = g*x + r - m ( 4*((3*i) floordiv 2) + (2*i) mod 4 is 6*i;
//     with g = 1, 4*((5*i) floordiv 4) + i mod 4 is 5*i, Mod having
//     reduced the coefficient that FloorDiv keeps);
//   - anchored at M = y mod b: if FloorDiv(y, b) = A + k then
//     S = y - b*k (this finds a folded nested floordiv, whose own dividend
//     no longer shows y: 3*(i floordiv 6) + (i floordiv 2) mod 3 is
//     i floordiv 2).
//
// With K the coefficient of A and c that of M, the pair is rewritten when
// K and c have the same sign and |K| >= |c*b|:
// K*A + c*M = c*S + (K - c*b)*A, which for K = c*b is c*S
// ( 2*(i floordiv 2) + i mod 2 = i; 3*(i floordiv 2) + i mod 2 =
// i + i floordiv 2 ): M disappears and A's coefficient shrinks without
// changing sign. Other pairs are left alone. In particular
// K*A + c*M = (K/b)*S + (c - K/b)*M, which would remove A when b divides
// K and |K/b| < |c|, is not applied: whether b divides K changes when the
// sum is scaled, and the canonical form must not (Scale does not
// re-canonicalize; the condition above is invariant under scaling, so
// k*e is canonical when e is).
//
// Each rewrite removes an atom and adds only atoms nested inside it, so
// repeated rewriting (the result goes through Add again) terminates.
func recombine(e Expr) Expr {
	hasDiv := false
	for _, t := range e.Terms {
		if t.Atom.Kind == AtomFloorDiv {
			hasDiv = true
			break
		}
	}
	if !hasDiv || e.Terms[len(e.Terms)-1].Atom.Kind != AtomMod {
		return e // no floordiv and mod atom to pair (mod atoms sort last)
	}
	for _, t := range e.Terms {
		switch t.Atom.Kind {
		case AtomFloorDiv:
			x, a := *t.Atom.Sub, t.Atom.Div
			for _, u := range e.Terms {
				if u.Atom.Kind != AtomMod || u.Atom.Div%a != 0 {
					continue
				}
				b := u.Atom.Div
				g := b / a
				gx := Scale(x, g)
				r := floorMod(u.Atom.Sub.Const-gx.Const, b)
				if r >= g {
					continue
				}
				y := AddConst(gx, r)
				m := Mod(y, b)
				if len(m.Terms) != 1 || m.Terms[0].Coeff != 1 || compareAtom(m.Terms[0].Atom, u.Atom) != 0 {
					continue
				}
				if res, ok := e.recombinePair(t.Atom, u.Atom, b, AddConst(y, -m.Const)); ok {
					return res
				}
			}
		case AtomMod:
			y, b := *t.Atom.Sub, t.Atom.Div
			q := FloorDiv(y, b)
			if len(q.Terms) != 1 || q.Terms[0].Coeff != 1 || q.Terms[0].Atom.Kind != AtomFloorDiv {
				continue
			}
			bk, ok := checked.Mul(b, q.Const)
			if !ok {
				continue
			}
			if res, ok := e.recombinePair(q.Terms[0].Atom, t.Atom, b, AddConst(y, -bk)); ok {
				return res
			}
		}
	}
	return e
}

// recombinePair rewrites the terms K*da + c*ma of e, given b*da + ma = s,
// by recombine's rule; false when da or ma is not in e or the rule does
// not apply.
func (e Expr) recombinePair(da, ma Atom, b int64, s Expr) (Expr, bool) {
	di, mi := e.find(da), e.find(ma)
	if di < 0 || mi < 0 {
		return Expr{}, false
	}
	k, c := e.Terms[di].Coeff, e.Terms[mi].Coeff
	cb, ok := checked.Mul(c, b)
	if !ok || (k > 0) != (c > 0) {
		return Expr{}, false
	}
	if abs64(k) < abs64(cb) {
		return Expr{}, false
	}
	x := Scale(s, c)
	if k != cb {
		x = Add(x, Expr{Terms: []Term{{Coeff: k - cb, Atom: da}}})
	}
	rest := make([]Term, 0, len(e.Terms)-2)
	for j, u := range e.Terms {
		if j != di && j != mi {
			rest = append(rest, u)
		}
	}
	return Add(Expr{Terms: rest, Const: e.Const}, x), true
}

// find returns the index of the term with atom a in e's sorted terms, or -1.
func (e Expr) find(a Atom) int {
	if i, ok := slices.BinarySearchFunc(e.Terms, a, func(t Term, a Atom) int { return compareAtom(t.Atom, a) }); ok {
		return i
	}
	return -1
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// Add returns a + b.
func Add(a, b Expr) Expr {
	if len(b.Terms) == 0 {
		return Expr{Terms: a.Terms, Const: a.Const + b.Const}
	}
	if len(a.Terms) == 0 {
		return Expr{Terms: b.Terms, Const: a.Const + b.Const}
	}
	terms := make([]Term, 0, len(a.Terms)+len(b.Terms))
	terms = append(terms, a.Terms...)
	terms = append(terms, b.Terms...)
	return normalize(terms, a.Const+b.Const)
}

// Sub returns a - b.
func Sub(a, b Expr) Expr { return Add(a, Scale(b, -1)) }

// AddConst returns e + c.
func AddConst(e Expr, c int64) Expr { return Expr{Terms: e.Terms, Const: e.Const + c} }

// Scale returns k * e.
func Scale(e Expr, k int64) Expr {
	if k == 0 {
		return Expr{}
	}
	if k == 1 {
		return e
	}
	terms := make([]Term, len(e.Terms))
	for i, t := range e.Terms {
		terms[i] = Term{Coeff: t.Coeff * k, Atom: t.Atom}
	}
	return Expr{Terms: terms, Const: e.Const * k}
}

// floorDiv is integer division rounding towards negative infinity (d > 0).
func floorDiv(a, d int64) int64 {
	q := a / d
	if (a%d != 0) && (a < 0) {
		q--
	}
	return q
}

// floorMod is a - d*floorDiv(a, d), in [0, d) for d > 0.
func floorMod(a, d int64) int64 {
	m := a % d
	if m < 0 {
		m += d
	}
	return m
}

// FloorDivInt and FloorModInt expose the integer semantics used by Eval.
func FloorDivInt(a, d int64) int64 { return floorDiv(a, d) }

// FloorModInt is the floored modulus: the result has the sign of d.
func FloorModInt(a, d int64) int64 { return floorMod(a, d) }

// FloorDiv returns floor(e / d). d must be positive (d <= 0 panics: it is a
// programming error; readers validate divisors before building).
//
// When every coefficient of e is a multiple of d the division is exact:
// floor((d*q + c)/d) = q + floor(c/d). Otherwise a common factor g > 1 of
// d and the coefficients is divided out first:
// floor((g*x + c)/d) = floor((x + floor(c/g)) / (d/g)). Then, writing
// e = d*M + R, where M collects the terms whose coefficient is a multiple
// of d and R the other terms and the constant, floor(e/d) = M + floor(R/d)
// and FloorDiv folds:
//
//   - R's values all in one interval [q*d, q*d + d) (R built from mod
//     atoms, which are bounded, and floordiv atoms of bounded
//     dividends): the result is M + q; likewise when R = d*Q + R' with
//     R' the coefficients and constant of R reduced to [0, d) and R' in
//     one interval: the result is M + Q + q
//     ( (-(i mod 2) + 6) floordiv 3 = 2 - (i mod 2) );
//   - R = (x floordiv a) + c: by floor(floor(z/u)/v) = floor(z/(u*v))
//     (u, v > 0) and (x floordiv a) + c = (x + c*a) floordiv a, the
//     result is M + (x + c*a) floordiv (a*d), one floordiv atom instead
//     of two nested ones (unless a*d or c*a overflows).
//
// Otherwise the result is one floordiv atom of e with the multiple of d
// in e's constant pulled out.
func FloorDiv(e Expr, d int64) Expr {
	if d <= 0 {
		panic(fmt.Sprintf("affine: floordiv by non-positive %d", d))
	}
	if d == 1 {
		return e
	}
	if e.IsConst() {
		return Const(floorDiv(e.Const, d))
	}
	// If every coefficient is a multiple of d, divide exactly:
	// floor((d*q + c) / d) = q + floor(c / d).
	if allMultiples(e, d) {
		terms := make([]Term, len(e.Terms))
		for i, t := range e.Terms {
			terms[i] = Term{Coeff: t.Coeff / d, Atom: t.Atom}
		}
		return Expr{Terms: terms, Const: floorDiv(e.Const, d)}
	}
	// Divide out a common factor g of the coefficients and d:
	// floor((g*x + c)/d) = floor((x + floor(c/g)) / (d/g)).
	if g := coeffGCD(e, d); g > 1 {
		terms := make([]Term, len(e.Terms))
		for i, t := range e.Terms {
			terms[i] = Term{Coeff: t.Coeff / g, Atom: t.Atom}
		}
		return FloorDiv(Expr{Terms: terms, Const: floorDiv(e.Const, g)}, d/g)
	}
	if r, ok := floorDivFold(e, d); ok {
		return r
	}
	// Pull out the multiple-of-d part of the constant:
	// floor((x + d*k + r)/d) = k + floor((x + r)/d), 0 <= r < d.
	k := floorDiv(e.Const, d)
	inner := Expr{Terms: e.Terms, Const: e.Const - k*d}
	sub := inner
	return Expr{Terms: []Term{{Coeff: 1, Atom: Atom{Kind: AtomFloorDiv, Sub: &sub, Div: d}}}, Const: k}
}

// floorDivFold applies the bounded-remainder and nested-floordiv rules of
// FloorDiv to e, whose coefficients have no common factor with d.
func floorDivFold(e Expr, d int64) (Expr, bool) {
	var mult, rem []Term
	for _, t := range e.Terms {
		if t.Coeff%d == 0 {
			mult = append(mult, Term{Coeff: t.Coeff / d, Atom: t.Atom})
		} else {
			rem = append(rem, t)
		}
	}
	r := Expr{Terms: rem, Const: e.Const}
	if lo, hi, ok := finiteRange(r); ok {
		if q := floorDiv(lo, d); q == floorDiv(hi, d) {
			return Expr{Terms: mult, Const: q}, true
		}
	}
	// R = d*Q + R', R' with coefficients and constant reduced to [0, d)
	// (Q's are floorDiv(coefficient, d)); if R' lies in one interval
	// [q*d, q*d + d), floor(R/d) = Q + q. (R = -(k mod 2) + 6 spans two
	// intervals of 3; R' = 2*(k mod 2) does not: floor(R/3) = 2 - (k mod 2).)
	if hasCompound(rem) {
		red := Expr{Terms: make([]Term, 0, len(rem)), Const: floorMod(e.Const, d)}
		quo := Expr{Terms: make([]Term, 0, len(rem)), Const: floorDiv(e.Const, d)}
		for _, t := range rem {
			red.Terms = append(red.Terms, Term{Coeff: floorMod(t.Coeff, d), Atom: t.Atom})
			if q := floorDiv(t.Coeff, d); q != 0 {
				quo.Terms = append(quo.Terms, Term{Coeff: q, Atom: t.Atom})
			}
		}
		if lo, hi, ok := finiteRange(red); ok {
			if q := floorDiv(lo, d); q == floorDiv(hi, d) {
				return Add(Expr{Terms: mult}, AddConst(quo, q)), true
			}
		}
	}
	// R = (x floordiv a) + c: floor(R/d) = (x + a*c) floordiv (a*d). With
	// no common factor left, a lone remainder term's coefficient is 1 or
	// prime to d; only the first nests. Further terms S of R are not
	// absorbed: floor(R/d) = (a*S + x + a*c) floordiv (a*d) is an identity
	// too, but its atom depends on which representative of S modulo d the
	// caller wrote, which defeats recombine's pairing with Mod's atoms.
	if len(rem) != 1 || rem[0].Coeff != 1 || rem[0].Atom.Kind != AtomFloorDiv {
		return Expr{}, false
	}
	x, a := *rem[0].Atom.Sub, rem[0].Atom.Div
	div, ok1 := checked.Mul(a, d)
	shift, ok2 := checked.Mul(e.Const, a)
	c, ok3 := checked.Add(x.Const, shift)
	if !ok1 || !ok2 || !ok3 {
		return Expr{}, false
	}
	return Add(Expr{Terms: mult}, FloorDiv(Expr{Terms: x.Terms, Const: c}, div)), true
}

// Mod returns e mod d (floored, result in [0, d)). d must be positive.
//
// Terms whose coefficient is a multiple of d are dropped and the others
// reduced to [0, d), and then Mod folds:
//
//   - a term t*(x mod a) where d divides t*a becomes t*x, since
//     x mod a = x - a*(x floordiv a) and a multiple of d does not change
//     the result ( (i mod 4) mod 2 = i mod 2 );
//   - a reduced dividend whose values all lie in one interval
//     [q*d, q*d + d) is the result, less q*d ( (i mod 4) mod 8 = i mod 4 ).
//
// Otherwise the result is one mod atom of the reduced dividend, itself
// in canonical form (the floordiv/mod recombination of Add applied).
func Mod(e Expr, d int64) Expr {
	if d <= 0 {
		panic(fmt.Sprintf("affine: mod by non-positive %d", d))
	}
	if d == 1 {
		return Expr{}
	}
	if e.IsConst() {
		return Const(floorMod(e.Const, d))
	}
	// Drop terms whose coefficient is a multiple of d, reduce the others.
	var terms []Term
	nested, reduced := false, false
	for _, t := range e.Terms {
		c := floorMod(t.Coeff, d)
		reduced = reduced || c != t.Coeff
		if c != 0 {
			terms = append(terms, Term{Coeff: c, Atom: t.Atom})
			// d divides c*a exactly when d/GCD(c, d) divides a.
			if t.Atom.Kind == AtomMod && t.Atom.Div%(d/GCD(c, d)) == 0 {
				nested = true
			}
		}
	}
	c := floorMod(e.Const, d)
	if len(terms) == 0 {
		return Const(c)
	}
	if nested {
		acc := Const(c)
		for _, t := range terms {
			x := Expr{Terms: []Term{t}}
			if t.Atom.Kind == AtomMod && t.Atom.Div%(d/GCD(t.Coeff, d)) == 0 {
				x = Scale(*t.Atom.Sub, t.Coeff)
			}
			acc = Add(acc, x)
		}
		return Mod(acc, d)
	}
	sub := Expr{Terms: terms, Const: c}
	// Reducing coefficients can make a floordiv/mod pair foldable.
	if reduced {
		if r := recombine(sub); !Equal(r, sub) {
			return Mod(r, d)
		}
	}
	if lo, hi, ok := finiteRange(sub); ok {
		if q := floorDiv(lo, d); q == floorDiv(hi, d) {
			return AddConst(sub, -q*d)
		}
	}
	return Expr{Terms: []Term{{Coeff: 1, Atom: Atom{Kind: AtomMod, Sub: &sub, Div: d}}}}
}

// hasCompound reports whether a term of terms is a floordiv or mod atom.
func hasCompound(terms []Term) bool {
	for _, t := range terms {
		if t.Atom.Kind != AtomAxis {
			return true
		}
	}
	return false
}

// coeffGCD returns the greatest common divisor of d and e's coefficients.
func coeffGCD(e Expr, d int64) int64 {
	g := d
	for _, t := range e.Terms {
		if g = GCD(g, t.Coeff); g == 1 {
			break
		}
	}
	return g
}

func allMultiples(e Expr, d int64) bool {
	for _, t := range e.Terms {
		if t.Coeff%d != 0 {
			return false
		}
	}
	return true
}

// finiteRange returns an interval [lo, hi] holding every value of e
// whatever the axes' values, and false when there is none (e mentions an
// axis outside a mod atom, or the bounds overflow). Mod atoms are in
// [0, Div); a floordiv atom is bounded when its dividend is.
func finiteRange(e Expr) (lo, hi int64, ok bool) {
	lo, hi = e.Const, e.Const
	for _, t := range e.Terms {
		var alo, ahi int64
		switch t.Atom.Kind {
		case AtomAxis:
			return 0, 0, false
		case AtomMod:
			alo, ahi = 0, t.Atom.Div-1
		default:
			slo, shi, ok := finiteRange(*t.Atom.Sub)
			if !ok {
				return 0, 0, false
			}
			alo, ahi = floorDiv(slo, t.Atom.Div), floorDiv(shi, t.Atom.Div)
		}
		if t.Coeff < 0 {
			alo, ahi = ahi, alo
		}
		x, ok1 := checked.Mul(t.Coeff, alo)
		y, ok2 := checked.Mul(t.Coeff, ahi)
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		if lo, ok1 = checked.Add(lo, x); !ok1 {
			return 0, 0, false
		}
		if hi, ok2 = checked.Add(hi, y); !ok2 {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// GCD returns the greatest common divisor of |a| and |b| (GCD(0, 0) = 0).
func GCD(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Env supplies axis values for evaluation.
type Env interface {
	// Value returns the value of axis a and whether it is bound.
	Value(a Axis) (int64, bool)
}

// Values is an Env backed by a dense slice indexed by axis id, with a
// parallel presence mask. The zero value binds nothing.
type Values struct {
	V   []int64
	Set []bool
}

// Value implements Env.
func (v *Values) Value(a Axis) (int64, bool) {
	if int(a) < 0 || int(a) >= len(v.V) || !v.Set[a] {
		return 0, false
	}
	return v.V[a], true
}

// Bind sets axis a to x, growing the tables as needed.
func (v *Values) Bind(a Axis, x int64) {
	for int(a) >= len(v.V) {
		v.V = append(v.V, 0)
		v.Set = append(v.Set, false)
	}
	v.V[a] = x
	v.Set[a] = true
}

// Unbind removes the binding of a.
func (v *Values) Unbind(a Axis) {
	if int(a) < len(v.Set) {
		v.Set[a] = false
	}
}

// UnboundError reports an axis that evaluation needed and the Env lacked.
type UnboundError struct{ Axis Axis }

func (e *UnboundError) Error() string { return fmt.Sprintf("affine: axis #%d is not bound", e.Axis) }

// Eval evaluates e under env. It fails only when an axis is unbound.
func (e Expr) Eval(env Env) (int64, error) {
	s := e.Const
	for _, t := range e.Terms {
		v, err := t.Atom.eval(env)
		if err != nil {
			return 0, err
		}
		s += t.Coeff * v
	}
	return s, nil
}

func (a Atom) eval(env Env) (int64, error) {
	switch a.Kind {
	case AtomAxis:
		v, ok := env.Value(a.Axis)
		if !ok {
			return 0, &UnboundError{Axis: a.Axis}
		}
		return v, nil
	case AtomFloorDiv:
		v, err := a.Sub.Eval(env)
		if err != nil {
			return 0, err
		}
		return floorDiv(v, a.Div), nil
	default:
		v, err := a.Sub.Eval(env)
		if err != nil {
			return 0, err
		}
		return floorMod(v, a.Div), nil
	}
}

// Substitute replaces every bound axis of env by its value and returns the
// re-canonicalized expression (partial evaluation). Unbound axes stay.
func (e Expr) Substitute(env Env) Expr {
	if e.IsConst() {
		return e
	}
	acc := Const(e.Const)
	for _, t := range e.Terms {
		acc = Add(acc, Scale(t.Atom.substitute(env), t.Coeff))
	}
	return acc
}

// SubstituteExpr replaces axis a by the expression r everywhere in e.
func (e Expr) SubstituteExpr(a Axis, r Expr) Expr {
	if e.IsConst() {
		return e
	}
	acc := Const(e.Const)
	for _, t := range e.Terms {
		var x Expr
		switch t.Atom.Kind {
		case AtomAxis:
			if t.Atom.Axis == a {
				x = r
			} else {
				x = Var(t.Atom.Axis)
			}
		case AtomFloorDiv:
			x = FloorDiv(t.Atom.Sub.SubstituteExpr(a, r), t.Atom.Div)
		default:
			x = Mod(t.Atom.Sub.SubstituteExpr(a, r), t.Atom.Div)
		}
		acc = Add(acc, Scale(x, t.Coeff))
	}
	return acc
}

func (a Atom) substitute(env Env) Expr {
	switch a.Kind {
	case AtomAxis:
		if v, ok := env.Value(a.Axis); ok {
			return Const(v)
		}
		return Var(a.Axis)
	case AtomFloorDiv:
		return FloorDiv(a.Sub.Substitute(env), a.Div)
	default:
		return Mod(a.Sub.Substitute(env), a.Div)
	}
}

// Axes appends to dst every axis e mentions (sorted, without duplicates).
func (e Expr) Axes(dst []Axis) []Axis {
	var walk func(x Expr)
	walk = func(x Expr) {
		for _, t := range x.Terms {
			if t.Atom.Kind == AtomAxis {
				dst = append(dst, t.Atom.Axis)
			} else {
				walk(*t.Atom.Sub)
			}
		}
	}
	walk(e)
	slices.Sort(dst)
	return slices.Compact(dst)
}

// Uses reports whether e mentions axis a.
func (e Expr) Uses(a Axis) bool {
	for _, t := range e.Terms {
		if t.Atom.Kind == AtomAxis {
			if t.Atom.Axis == a {
				return true
			}
		} else if t.Atom.Sub.Uses(a) {
			return true
		}
	}
	return false
}

// Coeff returns the coefficient of the plain axis term a (0 when absent or
// when a only occurs inside floordiv/mod atoms).
func (e Expr) Coeff(a Axis) int64 {
	for _, t := range e.Terms {
		if t.Atom.Kind == AtomAxis && t.Atom.Axis == a {
			return t.Coeff
		}
	}
	return 0
}

// Names maps axis ids to names for printing.
type Names func(Axis) string

// DefaultNames prints axis #k as "a<k>".
func DefaultNames(a Axis) string { return "a" + strconv.Itoa(int(a)) }

// Format prints e in the canonical text syntax, for example
//
//	4*i + j floordiv 2 + (i + j) mod 3 - 2*(i mod 4) - 1
//
// Terms are printed in order of their printed atoms (so the output does not
// depend on axis numbering), the constant last.
func (e Expr) Format(names Names) string {
	if names == nil {
		names = DefaultNames
	}
	if e.IsConst() {
		return strconv.FormatInt(e.Const, 10)
	}
	type pt struct {
		atom     string
		coeff    int64
		compound bool
	}
	parts := make([]pt, len(e.Terms))
	for i, t := range e.Terms {
		parts[i] = pt{t.Atom.format(names), t.Coeff, t.Atom.Kind != AtomAxis}
	}
	slices.SortStableFunc(parts, func(a, b pt) int { return strings.Compare(a.atom, b.atom) })
	var sb strings.Builder
	for i, p := range parts {
		c := p.coeff
		// A floordiv/mod atom is wrapped in parentheses when a factor or
		// a leading minus applies to it, so that the text parses back to
		// the same expression ("2*(i floordiv 3)", "-(i mod 4)").
		wrap := p.compound && (c != 1 && c != -1 || (i == 0 && c < 0))
		if i == 0 {
			if c < 0 {
				sb.WriteByte('-')
				c = -c
			}
		} else if c < 0 {
			sb.WriteString(" - ")
			c = -c
		} else {
			sb.WriteString(" + ")
		}
		if c != 1 {
			sb.WriteString(strconv.FormatInt(c, 10))
			sb.WriteByte('*')
		}
		if wrap {
			sb.WriteByte('(')
		}
		sb.WriteString(p.atom)
		if wrap {
			sb.WriteByte(')')
		}
	}
	if e.Const > 0 {
		sb.WriteString(" + ")
		sb.WriteString(strconv.FormatInt(e.Const, 10))
	} else if e.Const < 0 {
		sb.WriteString(" - ")
		sb.WriteString(strconv.FormatInt(-e.Const, 10))
	}
	return sb.String()
}

func (a Atom) format(names Names) string {
	if a.Kind == AtomAxis {
		return names(a.Axis)
	}
	// The dividend is bare when it is a single axis ("i floordiv 2"),
	// parenthesized otherwise ("(i + 1) mod 4").
	sub := a.Sub.Format(names)
	if !(len(a.Sub.Terms) == 1 && a.Sub.Const == 0 && a.Sub.Terms[0].Coeff == 1 && a.Sub.Terms[0].Atom.Kind == AtomAxis) {
		sub = "(" + sub + ")"
	}
	if a.Kind == AtomFloorDiv {
		return sub + " floordiv " + strconv.FormatInt(a.Div, 10)
	}
	return sub + " mod " + strconv.FormatInt(a.Div, 10)
}

// String prints e with default axis names.
func (e Expr) String() string { return e.Format(nil) }

// Key returns a compact canonical encoding of e suitable as a map key for
// interning. Equal expressions have equal keys.
func (e Expr) Key() string {
	var sb strings.Builder
	e.writeKey(&sb)
	return sb.String()
}

func (e Expr) writeKey(sb *strings.Builder) {
	sb.WriteString(strconv.FormatInt(e.Const, 36))
	for _, t := range e.Terms {
		sb.WriteByte(',')
		sb.WriteString(strconv.FormatInt(t.Coeff, 36))
		switch t.Atom.Kind {
		case AtomAxis:
			sb.WriteByte('a')
			sb.WriteString(strconv.FormatInt(int64(t.Atom.Axis), 36))
		case AtomFloorDiv, AtomMod:
			if t.Atom.Kind == AtomFloorDiv {
				sb.WriteString("/(")
			} else {
				sb.WriteString("%(")
			}
			t.Atom.Sub.writeKey(sb)
			sb.WriteByte(')')
			sb.WriteString(strconv.FormatInt(t.Atom.Div, 36))
		}
	}
}

// Bounds returns an interval [lo, hi] that contains every value of e when
// each axis a ranges over [box(a).lo, box(a).hi] (inclusive). It is exact
// for plain affine expressions and conservative for floordiv/mod atoms.
// ok is false when a product, a sum or a partial sum overflows int64 on
// that box; when it is true, no evaluation of e on the box overflows
// (every partial sum of Eval lies in the interval of the terms it has
// added), so a verifier that checks the interval may trust Eval.
func (e Expr) Bounds(box func(Axis) (lo, hi int64)) (lo, hi int64, ok bool) {
	lo, hi = e.Const, e.Const
	for _, t := range e.Terms {
		alo, ahi, ok := t.Atom.bounds(box)
		if !ok {
			return 0, 0, false
		}
		if t.Coeff < 0 {
			alo, ahi = ahi, alo
		}
		x, ok1 := checked.Mul(t.Coeff, alo)
		y, ok2 := checked.Mul(t.Coeff, ahi)
		if lo, ok = checked.Add(lo, x); !ok || !ok1 || !ok2 {
			return 0, 0, false
		}
		if hi, ok = checked.Add(hi, y); !ok {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

func (a Atom) bounds(box func(Axis) (int64, int64)) (int64, int64, bool) {
	switch a.Kind {
	case AtomAxis:
		lo, hi := box(a.Axis)
		return lo, hi, true
	case AtomFloorDiv:
		lo, hi, ok := a.Sub.Bounds(box)
		return floorDiv(lo, a.Div), floorDiv(hi, a.Div), ok
	default:
		lo, hi, ok := a.Sub.Bounds(box)
		if !ok {
			return 0, 0, false
		}
		if span, sok := checked.Sub(hi, lo); !sok || span+1 >= a.Div || floorDiv(lo, a.Div) != floorDiv(hi, a.Div) {
			return 0, a.Div - 1, true
		}
		return floorMod(lo, a.Div), floorMod(hi, a.Div), true
	}
}
