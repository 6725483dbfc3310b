package affine

import (
	"fmt"
	"math/rand"
	"testing"
)

// names maps axes 0,1,2 to i,j,k.
func names(a Axis) string { return string(rune('i' + int(a))) }

func resolve(s string) (Axis, error) {
	if len(s) == 1 && s[0] >= 'i' && s[0] <= 'k' {
		return Axis(s[0] - 'i'), nil
	}
	return 0, fmt.Errorf("unknown axis %q", s)
}

func TestExpr_Canonical(t *testing.T) {
	i, j := Var(0), Var(1)
	tests := []struct {
		name string
		e    Expr
		want string
	}{
		{"const", Const(7), "7"},
		{"sum merges", Add(Add(i, i), Scale(j, 3)), "2*i + 3*j"},
		{"cancel", Sub(Add(i, j), i), "j"},
		{"zero", Sub(i, i), "0"},
		{"neg", Scale(i, -1), "-i"},
		{"const tail", AddConst(Scale(i, 4), -3), "4*i - 3"},
		{"floordiv exact", FloorDiv(AddConst(Scale(i, 4), 6), 2), "2*i + 3"},
		{"floordiv const", FloorDiv(Const(-7), 2), "-4"},
		{"floordiv pulls constant", FloorDiv(AddConst(i, 9), 4), "(i + 1) floordiv 4 + 2"},
		{"mod drops multiples", Mod(Add(Scale(i, 4), j), 4), "j mod 4"},
		{"mod const", Mod(Const(-7), 3), "2"},
		{"mod of multiple", Mod(Scale(i, 6), 3), "0"},
		{"div by one", FloorDiv(i, 1), "i"},
		{"mod by one", Mod(i, 1), "0"},
		{"order independent", Add(j, i), "i + j"},
	}
	for _, tt := range tests {
		if got := tt.e.Format(names); got != tt.want {
			t.Errorf("%s: Format = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestExpr_EqualAfterRewriting(t *testing.T) {
	i, j, k := Var(0), Var(1), Var(2)
	ij := Add(i, Scale(j, 2)) // i + 2*j
	tests := []struct {
		name string
		a, b Expr
	}{
		{"sum order", Add(Scale(Add(i, j), 2), Const(4)), Add(Add(Scale(j, 2), Const(4)), Scale(i, 2))},
		// floor(floor(x/a)/b) = floor(x/(a*b)).
		{"nested floordiv", FloorDiv(FloorDiv(i, 2), 3), FloorDiv(i, 6)},
		{"nested floordiv, constants", FloorDiv(AddConst(FloorDiv(AddConst(i, 1), 2), 1), 3), FloorDiv(AddConst(i, 3), 6)},
		{"nested floordiv, negative constant", FloorDiv(AddConst(FloorDiv(i, 4), -5), 2), FloorDiv(AddConst(i, -20), 8)},
		{"nested floordiv, two axes", FloorDiv(FloorDiv(ij, 4), 4), FloorDiv(ij, 16)},
		{"nested floordiv beside a multiple", FloorDiv(Add(FloorDiv(i, 2), Scale(k, 3)), 3), Add(FloorDiv(i, 6), k)},
		{"nested floordiv, coefficient dividing the divisor", FloorDiv(Scale(FloorDiv(i, 3), 2), 4), FloorDiv(i, 6)},
		{"triple floordiv", FloorDiv(FloorDiv(FloorDiv(j, 2), 2), 2), FloorDiv(j, 8)},
		// (x mod a) mod b = x mod b when b divides a.
		{"nested mod", Mod(Mod(i, 4), 2), Mod(i, 2)},
		{"nested mod, two axes and constant", Mod(Add(Mod(AddConst(ij, 3), 12), k), 4), Mod(AddConst(Add(ij, k), 3), 4)},
		{"nested mod, coefficient", Mod(Scale(Mod(i, 3), 2), 6), Mod(Scale(i, 2), 6)},
		{"mod of a smaller mod", Mod(Mod(i, 4), 8), Mod(i, 4)},
		{"mod of a bounded sum", Mod(AddConst(Mod(i, 4), 2), 8), AddConst(Mod(i, 4), 2)},
		{"floordiv of a bounded sum", FloorDiv(Add(Mod(i, 4), Scale(j, 4)), 4), j},
		{"floordiv of a bounded sum, reduced", FloorDiv(Sub(Const(6), Mod(i, 2)), 3), Sub(Const(2), Mod(i, 2))},
		// floor((g*x + c)/d) = floor((x + floor(c/g))/(d/g)).
		{"common factor", FloorDiv(AddConst(Scale(i, 4), 3), 6), FloorDiv(AddConst(Scale(i, 2), 1), 3)},
		// x = a*(x floordiv a) + x mod a.
		{"recombine", Add(Scale(FloorDiv(i, 2), 2), Mod(i, 2)), i},
		{"recombine, order", Add(Mod(i, 2), Scale(FloorDiv(i, 2), 2)), i},
		{"recombine, constant", AddConst(Add(Scale(FloorDiv(i, 2), 2), Mod(i, 2)), 3), AddConst(i, 3)},
		{"recombine, scaled", Add(Scale(FloorDiv(i, 4), 12), Scale(Mod(i, 4), 3)), Scale(i, 3)},
		{"recombine, negative", Sub(Const(1), Add(Scale(FloorDiv(i, 2), 2), Mod(i, 2))), Sub(Const(1), i)},
		{"recombine, two axes", Add(Scale(FloorDiv(ij, 8), 8), Mod(ij, 8)), ij},
		{"recombine, offset dividend", Add(Scale(FloorDiv(AddConst(i, 5), 4), 4), Mod(AddConst(i, 5), 4)), AddConst(i, 5)},
		{"recombine, reduced mod", Add(Scale(FloorDiv(Scale(i, 5), 4), 4), Mod(Scale(i, 5), 4)), Scale(i, 5)},
		{"recombine beside other terms", Add(Add(Scale(FloorDiv(i, 3), 3), k), Add(Mod(i, 3), Scale(j, 2))), Add(ij, k)},
		{"recombine nested floordiv", Add(Scale(FloorDiv(FloorDiv(i, 2), 3), 3), Mod(FloorDiv(i, 2), 3)), FloorDiv(i, 2)},
		{"recombine twice", Add(Add(Scale(FloorDiv(FloorDiv(i, 2), 3), 6), Scale(Mod(FloorDiv(i, 2), 3), 2)), Mod(i, 2)), i},
		{"recombine, extra floordiv", Add(Scale(FloorDiv(i, 2), 3), Mod(i, 2)), Add(i, FloorDiv(i, 2))},
		{"recombine, extra floordiv, negative", Sub(Const(2), Add(Scale(FloorDiv(ij, 4), 9), Scale(Mod(ij, 4), 2))), Sub(Const(2), Add(Scale(ij, 2), FloorDiv(ij, 4)))},
		{"scaling keeps the form", Scale(Add(Add(FloorDiv(i, 2), Mod(i, 2)), j), 2), Add(Scale(Add(FloorDiv(i, 2), Mod(i, 2)), 2), Scale(j, 2))},
		{"recombine inside mod", Mod(Add(Scale(FloorDiv(i, 2), 6), Scale(Mod(i, 2), 5)), 4), Mod(i, 4)},
		{"split and join", Add(Scale(FloorDiv(i, 4), 4), Add(Scale(FloorDiv(Mod(i, 4), 2), 2), Mod(Mod(i, 4), 2))), i},
	}
	for _, tt := range tests {
		if !Equal(tt.a, tt.b) || tt.a.Key() != tt.b.Key() || tt.a.Format(names) != tt.b.Format(names) {
			t.Errorf("%s: %q and %q differ", tt.name, tt.a.Format(names), tt.b.Format(names))
		}
	}
}

// TestExpr_FoldsKeepDistinct: forms the folds must not touch (the
// rewrite would not be an identity, or would not remove an atom).
func TestExpr_FoldsKeepDistinct(t *testing.T) {
	i := Var(0)
	tests := []struct {
		e    Expr
		want string
	}{
		{FloorDiv(Mod(i, 4), 2), "(i mod 4) floordiv 2"},
		{Mod(FloorDiv(i, 2), 3), "(i floordiv 2) mod 3"},
		{Mod(Mod(i, 4), 3), "(i mod 4) mod 3"},
		{FloorDiv(Scale(FloorDiv(i, 2), 3), 2), "(3*(i floordiv 2)) floordiv 2"},
		{Add(FloorDiv(i, 2), Mod(i, 2)), "i floordiv 2 + i mod 2"},
		{Sub(Scale(FloorDiv(i, 2), 2), Mod(i, 2)), "2*(i floordiv 2) - i mod 2"},
		{Add(Scale(FloorDiv(i, 3), 2), Mod(i, 2)), "2*(i floordiv 3) + i mod 2"},
		// = i + 2*(i mod 2), but eliminating the floordiv would make the
		// form depend on scaling (see recombine).
		{Add(Scale(FloorDiv(i, 2), 2), Scale(Mod(i, 2), 3)), "2*(i floordiv 2) + 3*(i mod 2)"},
		{Add(Scale(FloorDiv(i, 2), 4), Scale(Mod(i, 2), 6)), "4*(i floordiv 2) + 6*(i mod 2)"},
	}
	for _, tt := range tests {
		if got := tt.e.Format(names); got != tt.want {
			t.Errorf("Format = %q, want %q", got, tt.want)
		}
	}
}

func TestExpr_EvalMatchesIntegerSemantics(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for n := 0; n < 2000; n++ {
		ci, cj, c := r.Int63n(21)-10, r.Int63n(21)-10, r.Int63n(41)-20
		d := r.Int63n(7) + 1
		vi, vj := r.Int63n(41)-20, r.Int63n(41)-20
		lin := AddConst(Add(Scale(Var(0), ci), Scale(Var(1), cj)), c)
		var env Values
		env.Bind(0, vi)
		env.Bind(1, vj)
		x := ci*vi + cj*vj + c
		wantDiv := FloorDivInt(x, d)
		wantMod := x - d*wantDiv
		gotDiv, err := FloorDiv(lin, d).Eval(&env)
		if err != nil || gotDiv != wantDiv {
			t.Fatalf("(%s) floordiv %d at i=%d j=%d = %d, %v; want %d", lin.Format(names), d, vi, vj, gotDiv, err, wantDiv)
		}
		gotMod, err := Mod(lin, d).Eval(&env)
		if err != nil || gotMod != wantMod || gotMod < 0 || gotMod >= d {
			t.Fatalf("(%s) mod %d at i=%d j=%d = %d, %v; want %d", lin.Format(names), d, vi, vj, gotMod, err, wantMod)
		}
		// Substitution then evaluation agrees with direct evaluation.
		var only Values
		only.Bind(0, vi)
		part := FloorDiv(lin, d).Substitute(&only)
		if got, err := part.Eval(&env); err != nil || got != wantDiv {
			t.Fatalf("substitute then eval = %d, %v; want %d", got, err, wantDiv)
		}
	}
}

func TestExpr_Unbound(t *testing.T) {
	var env Values
	if _, err := Var(2).Eval(&env); err == nil {
		t.Fatal("eval of an unbound axis succeeded")
	}
}

func TestParse_RoundTrip(t *testing.T) {
	for _, src := range []string{
		"0", "i", "-i", "4*i + j - 3", "(i + 1) floordiv 4 + 2", "j mod 4",
		"2*(i floordiv 3) + k", "i // 2", "i % 3", "3*(i + 2*j) - (k - 1)",
	} {
		e, err := Parse(src, resolve)
		if err != nil {
			t.Errorf("Parse(%q): %v", src, err)
			continue
		}
		text := e.Format(names)
		e2, err := Parse(text, resolve)
		if err != nil {
			t.Errorf("Parse(Format(%q) = %q): %v", src, text, err)
			continue
		}
		if !Equal(e, e2) || e2.Format(names) != text {
			t.Errorf("round trip of %q: %q then %q", src, text, e2.Format(names))
		}
	}
}

func TestParse_Errors(t *testing.T) {
	for _, src := range []string{"i*j", "i floordiv 0", "i mod -2", "(i", "i +", "q", "3 3", "i floordiv j"} {
		if _, err := Parse(src, resolve); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", src)
		}
	}
}

func TestPred_EvalAndFormat(t *testing.T) {
	p, err := ParsePred("i >= 1 and j < 3", resolve)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Format(names); got != "i - 1 >= 0 and -j + 2 >= 0" {
		t.Errorf("Format = %q", got)
	}
	tests := []struct {
		i, j int64
		want bool
	}{{0, 0, false}, {1, 0, true}, {1, 2, true}, {1, 3, false}}
	for _, tt := range tests {
		var env Values
		env.Bind(0, tt.i)
		env.Bind(1, tt.j)
		if got, err := p.Eval(&env); err != nil || got != tt.want {
			t.Errorf("eval at i=%d j=%d = %v, %v; want %v", tt.i, tt.j, got, err, tt.want)
		}
	}
	q, err := ParsePred(p.Format(names), resolve)
	if err != nil || q.Key() != p.Key() {
		t.Errorf("predicate round trip: %v, %q vs %q", err, q.Format(names), p.Format(names))
	}
	if f := And(GE(Const(0), Const(1))); !f.False {
		t.Error("0 >= 1 not folded to false")
	}
	if tr := And(GE(Const(1), Const(0))); !tr.IsTrue() {
		t.Error("1 >= 0 not folded to true")
	}
	var env Values
	env.Bind(0, 5)
	if s := p.Substitute(&env); s.Uses(0) || s.Format(names) != "-j + 2 >= 0" {
		t.Errorf("substitute i=5: %q", s.Format(names))
	}
}

func TestExpr_Bounds(t *testing.T) {
	box := func(a Axis) (int64, int64) { return 0, 3 } // every axis in [0, 3]
	tests := []struct {
		e      Expr
		lo, hi int64
	}{
		{AddConst(Scale(Var(0), 4), 1), 1, 13},
		{Sub(Var(0), Var(1)), -3, 3},
		{FloorDiv(Var(0), 2), 0, 1},
		{Mod(Var(0), 8), 0, 3},
		{Mod(Var(0), 2), 0, 1},
	}
	for _, tt := range tests {
		lo, hi, ok := tt.e.Bounds(box)
		if lo != tt.lo || hi != tt.hi || !ok {
			t.Errorf("Bounds(%s) = [%d, %d], %v; want [%d, %d], true", tt.e.Format(names), lo, hi, ok, tt.lo, tt.hi)
		}
	}
}

// TestExpr_BoundsOverflow: an expression that overflows int64 somewhere
// on the box is reported (ok false) instead of wrapping into a small,
// in-bounds-looking interval (8*i at i = 2^61 is 2^64, which wraps to 0).
func TestExpr_BoundsOverflow(t *testing.T) {
	big := func(a Axis) (int64, int64) { return 0, 1 << 61 }
	tests := []struct {
		e  Expr
		ok bool
	}{
		{Scale(Var(0), 8), false},
		{Scale(Var(0), 3), true},
		{Add(Scale(Var(0), 2), Scale(Var(1), 2)), false}, // each term fits, the sum does not
		{Scale(Var(0), -4), true},
		{Scale(Var(0), -5), false},
		{FloorDiv(Scale(Var(0), 8), 3), false},
		{Mod(Scale(Var(0), 5), 7), false},
	}
	for _, tt := range tests {
		if _, _, ok := tt.e.Bounds(big); ok != tt.ok {
			t.Errorf("Bounds(%s) ok = %v, want %v", tt.e.Format(names), ok, tt.ok)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"4*i + j - 3", "(i + 1) floordiv 4", "i mod 3", "-(i - j)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src, resolve)
		if err != nil {
			return
		}
		text := e.Format(names)
		e2, err := Parse(text, resolve)
		if err != nil {
			t.Fatalf("Format output %q does not parse: %v", text, err)
		}
		if !Equal(e, e2) {
			t.Fatalf("round trip changed %q to %q", text, e2.Format(names))
		}
	})
}

// tree is an unsimplified expression for the property tests: built with
// the constructors it gives a canonical Expr; evaluated directly it gives
// the value before any simplification.
type tree struct {
	op   byte // 'v' axis, 'c' constant, '+', '-', '*' by k, '/' floordiv k, '%' mod k
	a, b *tree
	k    int64
	axis Axis
}

func randTree(r *rand.Rand, depth int) *tree {
	if depth == 0 || r.Intn(4) == 0 {
		if r.Intn(3) == 0 {
			return &tree{op: 'c', k: r.Int63n(21) - 10}
		}
		return &tree{op: 'v', axis: Axis(r.Intn(3))}
	}
	switch r.Intn(6) {
	case 0:
		return &tree{op: '+', a: randTree(r, depth-1), b: randTree(r, depth-1)}
	case 1:
		return &tree{op: '-', a: randTree(r, depth-1), b: randTree(r, depth-1)}
	case 2:
		return &tree{op: '*', a: randTree(r, depth-1), k: r.Int63n(13) - 6}
	case 3:
		return &tree{op: '/', a: randTree(r, depth-1), k: r.Int63n(8) + 1}
	case 4:
		return &tree{op: '%', a: randTree(r, depth-1), k: r.Int63n(8) + 1}
	}
	// The shapes the folds look for: a*(x floordiv a) + x mod a, nested
	// floordivs and mods.
	x, a := randTree(r, depth-1), r.Int63n(6)+1
	switch r.Intn(3) {
	case 0:
		c := r.Int63n(7) - 3
		return &tree{op: '+', a: &tree{op: '*', k: c * a, a: &tree{op: '/', a: x, k: a}}, b: &tree{op: '*', k: c, a: &tree{op: '%', a: x, k: a}}}
	case 1:
		return &tree{op: '/', a: &tree{op: '/', a: x, k: a}, k: r.Int63n(6) + 1}
	}
	return &tree{op: '%', a: &tree{op: '%', a: x, k: a * (r.Int63n(3) + 1)}, k: a}
}

func (n *tree) build() Expr {
	switch n.op {
	case 'v':
		return Var(n.axis)
	case 'c':
		return Const(n.k)
	case '+':
		return Add(n.a.build(), n.b.build())
	case '-':
		return Sub(n.a.build(), n.b.build())
	case '*':
		return Scale(n.a.build(), n.k)
	case '/':
		return FloorDiv(n.a.build(), n.k)
	}
	return Mod(n.a.build(), n.k)
}

// eval computes n's value with floored division and a non-negative
// modulus, the package's documented semantics, written independently of
// the package: q = (x - x mod d) / d with x mod d = ((x rem d) + d) rem d.
func (n *tree) eval(v []int64) int64 {
	switch n.op {
	case 'v':
		return v[n.axis]
	case 'c':
		return n.k
	case '+':
		return n.a.eval(v) + n.b.eval(v)
	case '-':
		return n.a.eval(v) - n.b.eval(v)
	case '*':
		return n.k * n.a.eval(v)
	}
	x := n.a.eval(v)
	m := (x%n.k + n.k) % n.k
	if n.op == '/' {
		return (x - m) / n.k
	}
	return m
}

func (n *tree) String() string {
	switch n.op {
	case 'v':
		return names(n.axis)
	case 'c':
		return fmt.Sprint(n.k)
	case '+', '-':
		return "(" + n.a.String() + " " + string(n.op) + " " + n.b.String() + ")"
	case '*':
		return fmt.Sprintf("%d*%s", n.k, n.a)
	case '/':
		return fmt.Sprintf("(%s floordiv %d)", n.a, n.k)
	}
	return fmt.Sprintf("(%s mod %d)", n.a, n.k)
}

// TestExpr_SimplifyPreservesValue: for random expressions built with the
// constructors, the simplified Expr evaluates to the value of the
// unsimplified expression at random axis values, negative ones included;
// so do its partial substitution and an axis replaced by an expression.
// Its printed form parses back to the same canonical Expr.
func TestExpr_SimplifyPreservesValue(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 0; n < 3000; n++ {
		tr := randTree(r, 1+r.Intn(5))
		e := tr.build()
		text := e.Format(names)
		if back, err := Parse(text, resolve); err != nil || !Equal(back, e) {
			t.Fatalf("%s = %q does not parse back to itself: %v, %q", tr, text, err, back.Format(names))
		}
		// j := 2*i - k + 3 for the SubstituteExpr check.
		jx := AddConst(Sub(Scale(Var(0), 2), Var(2)), 3)
		je := e.SubstituteExpr(1, jx)
		for s := 0; s < 20; s++ {
			v := []int64{r.Int63n(61) - 30, r.Int63n(61) - 30, r.Int63n(61) - 30}
			var env Values
			for a, x := range v {
				env.Bind(Axis(a), x)
			}
			want := tr.eval(v)
			if got, err := e.Eval(&env); err != nil || got != want {
				t.Fatalf("%s simplified to %q: at %v = %d, %v; want %d", tr, text, v, got, err, want)
			}
			var part Values
			part.Bind(0, v[0])
			if got, err := e.Substitute(&part).Eval(&env); err != nil || got != want {
				t.Fatalf("%s = %q with i=%d substituted: at %v = %d, %v; want %d", tr, text, v[0], v, got, err, want)
			}
			vj := []int64{v[0], 2*v[0] - v[2] + 3, v[2]}
			if got, err := je.Eval(&env); err != nil || got != tr.eval(vj) {
				t.Fatalf("%s = %q with j := 2*i - k + 3 is %q: at %v = %d, %v; want %d", tr, text, je.Format(names), v, got, err, tr.eval(vj))
			}
		}
	}
}

// TestExpr_FoldIdentities: the three identities the folds implement give
// identical canonical forms for random dividends x and divisors a, b > 0:
//
//   - (x mod (a*b)) mod a = x mod a, for every x;
//   - a*(x floordiv a) + x mod a = x, for x without mod atoms;
//   - (x floordiv a) floordiv b = x floordiv (a*b), when x floordiv a is
//     one floordiv atom plus a constant (the nested-floordiv rule does not
//     absorb other terms; see floorDivFold).
//
// Outside these classes the canonical form is not complete (i - i mod 2
// and 2*(i floordiv 2) differ), which TestExpr_SimplifyPreservesValue
// covers for soundness.
func TestExpr_FoldIdentities(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	checked := map[string]int{}
	for n := 0; n < 5000; n++ {
		tr := randTree(r, 1+r.Intn(4))
		x := tr.build()
		a, b := r.Int63n(8)+1, r.Int63n(8)+1
		check := func(name string, l, r Expr) {
			checked[name]++
			if !Equal(l, r) || l.Format(names) != r.Format(names) {
				t.Fatalf("%s with x = %s = %q, a=%d, b=%d: %q vs %q", name, tr, x.Format(names), a, b, l.Format(names), r.Format(names))
			}
		}
		check("nested mod", Mod(Mod(x, a*b), a), Mod(x, a))
		if !hasModAtom(x) {
			check("recombine", Add(Scale(FloorDiv(x, a), a), Mod(x, a)), x)
		}
		if q := FloorDiv(x, a); len(q.Terms) == 1 && q.Terms[0].Coeff == 1 && q.Terms[0].Atom.Kind == AtomFloorDiv {
			check("nested floordiv", FloorDiv(q, b), FloorDiv(x, a*b))
		}
	}
	for _, name := range []string{"nested mod", "recombine", "nested floordiv"} {
		if checked[name] < 500 {
			t.Errorf("%s checked on %d dividends only", name, checked[name])
		}
	}
}

func hasModAtom(e Expr) bool {
	for _, t := range e.Terms {
		if t.Atom.Kind == AtomMod || t.Atom.Kind == AtomFloorDiv && hasModAtom(*t.Atom.Sub) {
			return true
		}
	}
	return false
}

// BenchmarkExpr_TiledIndex builds the index of a tiled loop,
// (t*T + i) split into floordiv and mod by a partition size and joined
// back, and substitutes one axis: the shapes the folds look at. Reported
// per built expression.
func BenchmarkExpr_TiledIndex(b *testing.B) {
	t, i := Var(0), Var(1)
	var env Values
	env.Bind(0, 3)
	for b.Loop() {
		x := Add(Scale(t, 128), i)
		q, r := FloorDiv(x, 64), Mod(x, 64)
		y := Add(Scale(q, 64), r)
		_ = FloorDiv(FloorDiv(y, 4), 16).Substitute(&env)
	}
}
