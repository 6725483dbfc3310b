// Pre-compiled affine expressions and predicates: the substitution engine
// of the unrollers.
//
// The seeds' Unroll keeps a DenseMap<AffineIdx*, long> from each loop axis
// to its current iteration value and re-evaluates pelican QuasiAffineExpr
// trees against it for every cloned instruction (seed 003, "The per-iteration
// substitution model"). Evaluating bir/affine.Expr through the affine.Env
// interface per clone would be correct but slow (an interface call per axis
// reference) and, for partial evaluation, allocating. Instead every
// expression an unroller meets is compiled once per interned id into a flat
// coefficient vector over loop axes (plus nested floordiv/mod atoms, which
// keep their own compiled sub-expression), and evaluated against a dense
// []int64 of axis values indexed by axis id. Evaluation does integer
// arithmetic only and allocates nothing.
//
// Compiled forms are cached in slices indexed by bir.ExprID / bir.PredID,
// which are dense per module, so a lookup is an index, not a map probe.
package unroll

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// cterm is one term of a compiled expression: coeff * axis, or
// coeff * floordiv(sub, div) / coeff * mod(sub, div).
type cterm struct {
	coeff int64
	axis  affine.Axis // AtomAxis
	kind  affine.AtomKind
	div   int64
	sub   *cexpr
}

// cexpr is a compiled quasi-affine expression.
type cexpr struct {
	c     int64
	terms []cterm
	axes  []affine.Axis // every axis mentioned, sorted, for bound checks
}

func compileExpr(e affine.Expr) *cexpr {
	ce := &cexpr{c: e.Const}
	if len(e.Terms) > 0 {
		ce.terms = make([]cterm, len(e.Terms))
	}
	for k, t := range e.Terms {
		ct := cterm{coeff: t.Coeff, kind: t.Atom.Kind}
		switch t.Atom.Kind {
		case affine.AtomAxis:
			ct.axis = t.Atom.Axis
		default:
			ct.div = t.Atom.Div
			ct.sub = compileExpr(*t.Atom.Sub)
		}
		ce.terms[k] = ct
	}
	ce.axes = e.Axes(nil)
	return ce
}

// isConst reports whether the expression mentions no axis.
func (e *cexpr) isConst() bool { return len(e.terms) == 0 }

// eval evaluates e with axis a valued vals[a]. The caller guarantees that
// every axis of e is bound (see env.bound).
func (e *cexpr) eval(vals []int64) int64 {
	s := e.c
	for k := range e.terms {
		t := &e.terms[k]
		switch t.kind {
		case affine.AtomAxis:
			s += t.coeff * vals[t.axis]
		case affine.AtomFloorDiv:
			s += t.coeff * affine.FloorDivInt(t.sub.eval(vals), t.div)
		default:
			s += t.coeff * affine.FloorModInt(t.sub.eval(vals), t.div)
		}
	}
	return s
}

// ccons is one compiled predicate constraint.
type ccons struct {
	e  *cexpr
	op affine.CmpKind
}

// cpred is a compiled predicate (a conjunction).
type cpred struct {
	never bool // constantly false
	cons  []ccons
	axes  []affine.Axis
}

func compilePred(p affine.Pred) *cpred {
	cp := &cpred{never: p.False}
	for _, c := range p.Cons {
		ce := compileExpr(c.Expr)
		cp.cons = append(cp.cons, ccons{e: ce, op: c.Op})
		cp.axes = append(cp.axes, ce.axes...)
	}
	cp.axes = sortedUniqueAxes(cp.axes)
	return cp
}

func (p *cpred) eval(vals []int64) bool {
	if p.never {
		return false
	}
	for k := range p.cons {
		v := p.cons[k].e.eval(vals)
		switch p.cons[k].op {
		case affine.GE0:
			if v < 0 {
				return false
			}
		case affine.EQ0:
			if v != 0 {
				return false
			}
		default:
			if v == 0 {
				return false
			}
		}
	}
	return true
}

func sortedUniqueAxes(a []affine.Axis) []affine.Axis {
	if len(a) < 2 {
		return a
	}
	// insertion sort: these lists are a handful long
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	out := a[:1]
	for _, x := range a[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// compiler caches compiled expressions and predicates of one module by id.
type compiler struct {
	m     *bir.Module
	exprs []*cexpr
	preds []*cpred
}

func newCompiler(m *bir.Module) *compiler { return &compiler{m: m} }

func (c *compiler) expr(id bir.ExprID) *cexpr {
	if int(id) >= len(c.exprs) {
		n := max(c.m.NumExprs(), int(id)+1)
		c.exprs = append(c.exprs, make([]*cexpr, n-len(c.exprs))...)
	}
	if ce := c.exprs[id]; ce != nil {
		return ce
	}
	ce := compileExpr(c.m.Expr(id))
	c.exprs[id] = ce
	return ce
}

func (c *compiler) pred(id bir.PredID) *cpred {
	if int(id) >= len(c.preds) {
		n := max(c.m.NumPreds(), int(id)+1)
		c.preds = append(c.preds, make([]*cpred, n-len(c.preds))...)
	}
	if cp := c.preds[id]; cp != nil {
		return cp
	}
	cp := compilePred(c.m.Pred(id))
	c.preds[id] = cp
	return cp
}

// env is the iteration-substitution map: the current value of every bound
// axis, dense by axis id, and for kept loops that were re-created (a dynamic
// loop inside an unrolled one) the axis that replaces the original.
type env struct {
	vals   []int64
	set    []bool
	rename []affine.Axis // -1: not renamed
}

func newEnv(naxes int) *env {
	e := &env{vals: make([]int64, naxes), set: make([]bool, naxes), rename: make([]affine.Axis, naxes)}
	for i := range e.rename {
		e.rename[i] = -1
	}
	return e
}

// grow makes room for axes created while unrolling (re-created loops).
func (e *env) grow(naxes int) {
	for len(e.vals) < naxes {
		e.vals = append(e.vals, 0)
		e.set = append(e.set, false)
		e.rename = append(e.rename, -1)
	}
}

func (e *env) bind(a affine.Axis, v int64) { e.vals[a] = v; e.set[a] = true }
func (e *env) unbind(a affine.Axis)        { e.set[a] = false }

// bound reports whether every axis of the list is bound to a value.
func (e *env) bound(axes []affine.Axis) bool {
	for _, a := range axes {
		if int(a) < 0 || int(a) >= len(e.set) || !e.set[a] {
			return false
		}
	}
	return true
}

// Value implements affine.Env for the slow (partial-evaluation) path.
func (e *env) Value(a affine.Axis) (int64, bool) {
	if int(a) < 0 || int(a) >= len(e.set) || !e.set[a] {
		return 0, false
	}
	return e.vals[a], true
}

// substExpr partially evaluates x: bound axes become constants and renamed
// axes their replacement. It allocates; it is the path for expressions that
// keep a loop axis (bodies of kept loops), not for fully unrolled code.
func (e *env) substExpr(x affine.Expr) affine.Expr {
	x = x.Substitute(e)
	if x.IsConst() {
		return x
	}
	for _, a := range x.Axes(nil) {
		if int(a) < len(e.rename) && e.rename[a] >= 0 {
			x = x.SubstituteExpr(a, affine.Var(e.rename[a]))
		}
	}
	return x
}

func (e *env) substPred(p affine.Pred) affine.Pred {
	p = p.Substitute(e)
	if p.False || len(p.Cons) == 0 {
		return p
	}
	var axes []affine.Axis
	for _, c := range p.Cons {
		axes = c.Expr.Axes(axes)
	}
	for _, a := range sortedUniqueAxes(axes) {
		if int(a) < len(e.rename) && e.rename[a] >= 0 {
			p = p.SubstituteExpr(a, affine.Var(e.rename[a]))
		}
	}
	return p
}
