// This file is the expression grammar: Python 3.11's precedence levels
// from star_expressions down to atoms, call arguments, subscripts and
// slices, displays and comprehensions, lambda and the parameter lists of
// lambdas and functions, and the target grammar of assignments, `for`,
// `with ... as` and `del` (targets are parsed as expressions and then
// checked and given their Store or Del context, as CPython's star_targets
// and del_targets rules would have built them).
//
// Precedence, loosest first (the language reference, 6.17): lambda,
// if-else, or, and, not, comparisons (chained, with in/not in/is/is not),
// |, ^, &, << >>, + -, * @ / // %, unary + - ~, ** (right-associative,
// binding tighter than a unary operator on its left but looser than one
// on its right: -x**-y is -(x**(-y))), await, then primaries (calls,
// subscripts, attributes) and atoms.

package syntax

// startsExpression reports whether the current token can start an
// expression (used where an expression is optional: return, yield,
// raise, del).
func (p *parser) startsExpression() bool {
	switch p.kind() {
	case tkName, tkNumber, tkString, tkLpar, tkLsqb, tkLbrace, tkMinus, tkPlus, tkTilde,
		tkNot, tkLambda, tkAwait, tkNone, tkTrue, tkFalse, tkEllipsis, tkStar, tkYield:
		return true
	}
	return false
}

// startsTarget reports whether the current token can start a target.
func (p *parser) startsTarget() bool {
	switch p.kind() {
	case tkName, tkLpar, tkLsqb, tkStar, tkNumber, tkString, tkLbrace, tkNone, tkTrue, tkFalse, tkEllipsis, tkAwait:
		return true
	}
	return false
}

// starExpressions: star_expression (',' star_expression)* [','], a Tuple
// when there is a comma.
func (p *parser) starExpressions() Expr {
	start := p.pos
	e := p.starExpression()
	if p.kind() != tkComma {
		return e
	}
	elts := []Expr{e}
	for p.got(tkComma) {
		if !p.startsStarExpression() {
			break
		}
		elts = append(elts, p.starExpression())
	}
	return &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
}

// startsStarExpression reports whether an element can follow a comma in
// an expression list.
func (p *parser) startsStarExpression() bool {
	switch p.kind() {
	case tkName, tkNumber, tkString, tkLpar, tkLsqb, tkLbrace, tkMinus, tkPlus, tkTilde,
		tkNot, tkLambda, tkAwait, tkNone, tkTrue, tkFalse, tkEllipsis, tkStar:
		return true
	}
	return false
}

func (p *parser) starExpression() Expr {
	if p.kind() == tkStar {
		start := p.pos
		p.advance()
		v := p.bitOr()
		return &Starred{Span: p.span(start), Value: v, Ctx: Load}
	}
	return p.expression()
}

func (p *parser) starNamedExpression() Expr {
	if p.kind() == tkStar {
		start := p.pos
		p.advance()
		v := p.bitOr()
		return &Starred{Span: p.span(start), Value: v, Ctx: Load}
	}
	return p.namedExpression()
}

// namedExpression: NAME ':=' expression | expression.
func (p *parser) namedExpression() Expr {
	start := p.pos
	if p.kind() == tkName && p.peekKind(1) == tkWalrus {
		t := p.tok()
		p.advance()
		target := &Name{Span: Span{t.start, t.end}, ID: p.text(t), Ctx: Store}
		p.advance()
		v := p.expression()
		return &NamedExpr{Span: p.span(start), Target: target, Value: v}
	}
	e := p.expression()
	switch p.kind() {
	case tkWalrus:
		p.errorAtPos(e.Extent().Start, "cannot use assignment expressions with %s", exprName(e))
	case tkEqual:
		if !p.inCallArgs {
			p.namedExprEqualsError(e, start)
		}
	}
	return e
}

// expression: lambda | disjunction ['if' disjunction 'else' expression].
func (p *parser) expression() Expr {
	p.enter()
	defer p.leave()
	start := p.pos
	var e Expr
	if p.kind() == tkLambda {
		e = p.lambda()
	} else {
		e = p.disjunction()
		if p.kind() == tkIf {
			p.advance()
			test := p.disjunction()
			if p.kind() != tkElse {
				if p.kind() != tkColon {
					p.errorAtPos(e.Extent().Start, "expected 'else' after 'if' expression")
				}
				p.syntaxError()
			}
			p.advance()
			orelse := p.expression()
			e = &IfExp{Span: p.span(start), Test: test, Body: e, OrElse: orelse}
		}
	}
	// Remember the expression that ends here, for the errors about two
	// juxtaposed expressions (see juxtaposed).
	p.lastExpr, p.lastExprStart, p.lastExprEnd = e, start, p.pos
	return e
}

func (p *parser) yieldExpr() Expr {
	start := p.pos
	p.advance()
	if p.got(tkFrom) {
		v := p.expression()
		return &YieldFrom{Span: p.span(start), Value: v}
	}
	var v Expr
	if p.startsStarExpression() {
		v = p.starExpressions()
	}
	return &Yield{Span: p.span(start), Value: v}
}

func (p *parser) disjunction() Expr {
	start := p.pos
	e := p.conjunction()
	if p.kind() != tkOr {
		return e
	}
	values := []Expr{e}
	for p.got(tkOr) {
		values = append(values, p.conjunction())
	}
	return &BoolOp{Span: p.span(start), Op: Or, Values: values}
}

func (p *parser) conjunction() Expr {
	start := p.pos
	e := p.inversion()
	if p.kind() != tkAnd {
		return e
	}
	values := []Expr{e}
	for p.got(tkAnd) {
		values = append(values, p.inversion())
	}
	return &BoolOp{Span: p.span(start), Op: And, Values: values}
}

func (p *parser) inversion() Expr {
	if p.kind() == tkNot {
		p.enter()
		defer p.leave()
		start := p.pos
		p.advance()
		v := p.inversion()
		return &UnaryOp{Span: p.span(start), Op: Not, Operand: v}
	}
	return p.comparison()
}

// compareOp returns the comparison operator at the current token and the
// number of tokens it has, or 0.
func (p *parser) compareOp() (CmpOp, int) {
	switch p.kind() {
	case tkEqEq:
		return Eq, 1
	case tkNotEq:
		return NotEq, 1
	case tkLess:
		return Lt, 1
	case tkLessEq:
		return LtE, 1
	case tkGreater:
		return Gt, 1
	case tkGreaterEq:
		return GtE, 1
	case tkIn:
		return In, 1
	case tkNot:
		if p.peekKind(1) == tkIn {
			return NotIn, 2
		}
	case tkIs:
		if p.peekKind(1) == tkNot {
			return IsNot, 2
		}
		return Is, 1
	}
	return 0, 0
}

func (p *parser) comparison() Expr {
	start := p.pos
	e := p.bitOr()
	op, n := p.compareOp()
	if n == 0 {
		return e
	}
	c := &Compare{Left: e}
	for n > 0 {
		p.pos += n
		c.Ops = append(c.Ops, op)
		c.Comparators = append(c.Comparators, p.bitOr())
		op, n = p.compareOp()
	}
	c.Span = p.span(start)
	return c
}

// binaryOps gives each binary operator token its precedence level
// (1 = '|', the loosest, to 6 = the multiplicative operators; 0 = not a
// binary operator) and its operator.
var binaryOps = func() (t [256]struct {
	level int8
	op    Operator
}) {
	set := func(k tokKind, level int8, op Operator) { t[k].level, t[k].op = level, op }
	set(tkVbar, 1, BitOr)
	set(tkCircum, 2, BitXor)
	set(tkAmper, 3, BitAnd)
	set(tkLshift, 4, LShift)
	set(tkRshift, 4, RShift)
	set(tkPlus, 5, Add)
	set(tkMinus, 5, Sub)
	set(tkStar, 6, Mult)
	set(tkSlash, 6, Div)
	set(tkDSlash, 6, FloorDiv)
	set(tkPercent, 6, Mod)
	set(tkAt, 6, MatMult)
	return t
}()

func (p *parser) bitOr() Expr { return p.binary(1) }

// binary parses the left-associative binary operators of precedence
// level min and tighter (precedence climbing: one call per operand
// instead of one per level).
func (p *parser) binary(min int8) Expr {
	start := p.pos
	e := p.factor()
	for {
		o := binaryOps[p.kind()]
		if o.level == 0 || o.level < min {
			return e
		}
		p.advance()
		r := p.binary(o.level + 1)
		e = &BinOp{Span: p.span(start), Left: e, Op: o.op, Right: r}
	}
}

func (p *parser) factor() Expr {
	var op UnaryOpKind
	switch p.kind() {
	case tkPlus:
		op = UAdd
	case tkMinus:
		op = USub
	case tkTilde:
		op = Invert
	default:
		return p.power()
	}
	p.enter()
	defer p.leave()
	start := p.pos
	p.advance()
	v := p.factor()
	return &UnaryOp{Span: p.span(start), Op: op, Operand: v}
}

// power: await_primary ['**' factor].
func (p *parser) power() Expr {
	start := p.pos
	e := p.awaitPrimary()
	if p.kind() != tkDStar {
		return e
	}
	p.enter()
	defer p.leave()
	p.advance()
	r := p.factor()
	return &BinOp{Span: p.span(start), Left: e, Op: Pow, Right: r}
}

func (p *parser) awaitPrimary() Expr {
	if p.kind() == tkAwait {
		p.enter()
		defer p.leave()
		start := p.pos
		p.advance()
		v := p.primary()
		return &Await{Span: p.span(start), Value: v}
	}
	return p.primary()
}

// primary: atom followed by any number of '.' NAME, '(' arguments ')',
// '[' slices ']'.
func (p *parser) primary() Expr {
	start := p.pos
	e := p.atom()
	for {
		switch p.kind() {
		case tkDot:
			p.advance()
			t := p.tok()
			if t.kind != tkName {
				p.syntaxError()
			}
			p.advance()
			e = &Attribute{Span: p.span(start), Value: e, Attr: p.text(t), AttrPos: t.start, Ctx: Load}
		case tkLpar:
			lp := p.pos
			p.advance()
			p.enter()
			args, kws := p.callArgsOrGenexp(lp)
			p.leave()
			p.expectCallClose()
			e = &Call{Span: p.span(start), Func: e, Args: args, Keywords: kws}
		case tkLsqb:
			p.advance()
			p.enter()
			s := p.slices()
			p.leave()
			p.expect(tkRsqb)
			e = &Subscript{Span: p.span(start), Value: e, Slice: s, Ctx: Load}
		default:
			return e
		}
	}
}

func (p *parser) expectCallClose() {
	if p.kind() != tkRpar {
		p.syntaxError()
	}
	p.advance()
}

// slices: a single slice or expression, or a Tuple of slices and starred
// expressions.
func (p *parser) slices() Expr {
	start := p.pos
	first := p.sliceItem()
	if p.kind() != tkComma {
		if _, ok := first.(*Starred); ok {
			return &Tuple{Span: p.span(start), Elts: []Expr{first}, Ctx: Load}
		}
		return first
	}
	elts := []Expr{first}
	for p.got(tkComma) {
		if p.kind() == tkRsqb {
			break
		}
		elts = append(elts, p.sliceItem())
	}
	return &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
}

func (p *parser) sliceItem() Expr {
	start := p.pos
	if p.kind() == tkStar {
		p.advance()
		v := p.expression()
		return &Starred{Span: p.span(start), Value: v, Ctx: Load}
	}
	var lower Expr
	if p.kind() != tkColon {
		lower = p.namedExpression()
		if p.kind() != tkColon {
			return lower
		}
	}
	s := &Slice{Lower: lower}
	p.advance()
	if k := p.kind(); k != tkColon && k != tkComma && k != tkRsqb {
		s.Upper = p.expression()
	}
	if p.got(tkColon) {
		if k := p.kind(); k != tkComma && k != tkRsqb {
			s.Step = p.expression()
		}
	}
	s.Span = p.span(start)
	return s
}

// callArgsOrGenexp parses a call's arguments after its '(' (at token
// index lp): either a lone generator expression `f(x for x in y)`, whose
// span is the call's parentheses, or an argument list.
func (p *parser) callArgsOrGenexp(lp int) ([]Expr, []*Keyword) {
	if p.kind() == tkRpar {
		return nil, nil
	}
	// A lone generator argument, or the first positional argument
	// (parsed once: arguments continues after it).
	if p.kind() != tkStar && p.kind() != tkDStar && !(p.kind() == tkName && p.peekKind(1) == tkEqual) {
		e := p.argExpression()
		if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
			gens := p.comprehensions()
			if p.kind() != tkRpar {
				if p.kind() == tkComma {
					p.errorAtPos(e.Extent().Start, "Generator expression must be parenthesized")
				}
				p.syntaxError()
			}
			p.advance()
			g := &GeneratorExp{Span: p.span(lp), Elt: e, Generators: gens}
			p.pos-- // the ')' is the call's
			return []Expr{g}, nil
		}
		if p.kind() == tkEqual {
			p.keywordTargetError(e)
		}
		if !p.got(tkComma) {
			return []Expr{e}, nil
		}
		return p.arguments(false, e)
	}
	return p.arguments(false, nil)
}

// arguments parses call arguments, or a class's bases and keywords; first
// is a positional argument already parsed (and its comma consumed), or nil.
func (p *parser) arguments(class bool, first Expr) ([]Expr, []*Keyword) {
	var args []Expr
	if first != nil {
		args = append(args, first)
	}
	var kws []*Keyword
	sawKeyword, sawDStar := false, false
	for p.kind() != tkRpar {
		start := p.pos
		switch {
		case p.kind() == tkStar:
			p.advance()
			v := p.expression()
			st := &Starred{Span: p.span(start), Value: v, Ctx: Load}
			if sawDStar {
				p.errorAtPos(st.Start, "iterable argument unpacking follows keyword argument unpacking")
			}
			args = append(args, st)
		case p.kind() == tkDStar:
			p.advance()
			v := p.expression()
			kws = append(kws, &Keyword{Span: p.span(start), Value: v})
			sawDStar = true
		case p.kind() == tkName && p.peekKind(1) == tkEqual:
			name := p.text(p.tok())
			p.pos += 2
			v := p.expression()
			kws = append(kws, &Keyword{Span: p.span(start), Arg: name, Value: v})
			sawKeyword = true
		default:
			e := p.argExpression()
			if p.kind() == tkEqual {
				p.keywordTargetError(e)
			}
			if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
				if class {
					p.syntaxError()
				}
				p.comprehensions()
				p.errorAtPos(e.Extent().Start, "Generator expression must be parenthesized")
			}
			if sawDStar {
				p.lastError("SyntaxError", "positional argument follows keyword argument unpacking")
			}
			if sawKeyword {
				p.lastError("SyntaxError", "positional argument follows keyword argument")
			}
			args = append(args, e)
		}
		if !p.got(tkComma) {
			break
		}
	}
	return args, kws
}

// argExpression parses a positional argument (a named expression after
// which '=' is a keyword-argument mistake, not a comparison one).
func (p *parser) argExpression() Expr {
	save := p.inCallArgs
	p.inCallArgs = true
	e := p.namedExpression()
	p.inCallArgs = save
	return e
}

// keywordTargetError reports `f(expr=value)` with an expr that is not a
// name, as CPython's invalid_kwarg does.
func (p *parser) keywordTargetError(e Expr) {
	if c, ok := e.(*Constant); ok && (c.Kind == ConstBool || c.Kind == ConstNone) {
		p.errorAtPos(e.Extent().Start, "cannot assign to %s", exprName(e))
	}
	p.errorAtPos(e.Extent().Start, "expression cannot contain assignment, perhaps you meant \"==\"?")
}

// comprehensions parses one or more `[async] for targets in disjunction
// (if disjunction)*` clauses.
func (p *parser) comprehensions() []*Comprehension {
	var gens []*Comprehension
	for p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
		start := p.pos
		c := &Comprehension{}
		if p.got(tkAsync) {
			c.IsAsync = true
		}
		p.advance()
		ts := p.pos
		c.Target = p.targetList(Store)
		if p.kind() != tkIn {
			p.invalidTargetError(ts, Store, true, false)
			p.syntaxError()
		}
		p.advance()
		c.Iter = p.disjunction()
		for p.got(tkIf) {
			c.Ifs = append(c.Ifs, p.disjunction())
		}
		c.Span = p.span(start)
		gens = append(gens, c)
	}
	return gens
}

// ---------------------------------------------------------------------------
// Atoms.

func (p *parser) atom() Expr {
	t := p.tok()
	start := p.pos
	switch t.kind {
	case tkName:
		p.advance()
		return &Name{Span: Span{t.start, t.end}, ID: p.text(t), Ctx: Load}
	case tkTrue, tkFalse:
		p.advance()
		return &Constant{Span: Span{t.start, t.end}, Kind: ConstBool, Value: t.kind == tkTrue}
	case tkNone:
		p.advance()
		return &Constant{Span: Span{t.start, t.end}, Kind: ConstNone}
	case tkEllipsis:
		p.advance()
		return &Constant{Span: Span{t.start, t.end}, Kind: ConstEllipsis}
	case tkNumber:
		p.advance()
		return p.number(t)
	case tkString:
		return p.strings()
	case tkLpar:
		p.enter()
		defer p.leave()
		return p.parenAtom(start)
	case tkLsqb:
		p.enter()
		defer p.leave()
		p.advance()
		if p.got(tkRsqb) {
			return &List{Span: p.span(start), Ctx: Load}
		}
		first := p.starNamedExpression()
		if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
			p.checkComprehensionElt(first, "list")
			gens := p.comprehensions()
			p.expect(tkRsqb)
			return &ListComp{Span: p.span(start), Elt: first, Generators: gens}
		}
		elts := p.restOfList(first, tkRsqb)
		p.expect(tkRsqb)
		return &List{Span: p.span(start), Elts: elts, Ctx: Load}
	case tkLbrace:
		p.enter()
		defer p.leave()
		return p.braceAtom(start)
	}
	p.syntaxError()
	return nil
}

// checkComprehensionElt rejects a starred comprehension element.
func (p *parser) checkComprehensionElt(e Expr, kind string) {
	if _, ok := e.(*Starred); ok {
		if kind == "dict" {
			p.errorAtPos(e.Extent().Start, "dict unpacking cannot be used in dict comprehension")
		}
		p.errorAtPos(e.Extent().Start, "iterable unpacking cannot be used in comprehension")
	}
}

// restOfList parses `, elt, elt [,]` after a display's first element, up
// to the closing token.
func (p *parser) restOfList(first Expr, close tokKind) []Expr {
	elts := []Expr{first}
	for p.got(tkComma) {
		if p.kind() == close {
			break
		}
		elts = append(elts, p.starNamedExpression())
	}
	return elts
}

// parenAtom parses a tuple, a parenthesized expression (returned with its
// own span) or a generator expression.
func (p *parser) parenAtom(start int) Expr {
	p.advance()
	if p.got(tkRpar) {
		return &Tuple{Span: p.span(start), Ctx: Load}
	}
	if p.kind() == tkYield {
		e := p.yieldExpr()
		p.expect(tkRpar)
		return e
	}
	first := p.starNamedExpression()
	switch p.kind() {
	case tkRpar:
		p.advance()
		if _, ok := first.(*Starred); ok {
			p.errorAtPos(first.Extent().Start, "cannot use starred expression here")
		}
		return first
	case tkFor, tkAsync:
		if p.kind() == tkAsync && p.peekKind(1) != tkFor {
			break
		}
		p.checkComprehensionElt(first, "generator")
		gens := p.comprehensions()
		p.expect(tkRpar)
		return &GeneratorExp{Span: p.span(start), Elt: first, Generators: gens}
	case tkComma:
		elts := p.restOfList(first, tkRpar)
		p.expect(tkRpar)
		return &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
	}
	p.syntaxError()
	return nil
}

// braceAtom parses a dict, a set, or their comprehensions.
func (p *parser) braceAtom(start int) Expr {
	p.advance()
	if p.got(tkRbrace) {
		return &Dict{Span: p.span(start)}
	}
	if p.kind() == tkDStar {
		return p.dictRest(start, nil, nil)
	}
	first := p.starNamedExpression()
	if p.kind() == tkColon {
		if _, ok := first.(*Starred); ok {
			p.syntaxError()
		}
		if _, ok := first.(*NamedExpr); ok && p.toks[start+1].kind != tkLpar {
			p.syntaxError()
		}
		p.advance()
		v := p.dictValue()
		if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
			gens := p.comprehensions()
			p.expect(tkRbrace)
			return &DictComp{Span: p.span(start), Key: first, Value: v, Generators: gens}
		}
		return p.dictRest(start, first, v)
	}
	if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
		p.checkComprehensionElt(first, "set")
		gens := p.comprehensions()
		p.expect(tkRbrace)
		return &SetComp{Span: p.span(start), Elt: first, Generators: gens}
	}
	elts := p.restOfList(first, tkRbrace)
	p.expect(tkRbrace)
	return &Set{Span: p.span(start), Elts: elts}
}

// dictRest parses the rest of a dict display after its first entry (key
// nil when there is none yet).
func (p *parser) dictRest(start int, key, value Expr) Expr {
	d := &Dict{}
	if value != nil {
		d.Keys = append(d.Keys, key)
		d.Values = append(d.Values, value)
		if !p.got(tkComma) {
			p.expect(tkRbrace)
			d.Span = p.span(start)
			return d
		}
	}
	for p.kind() != tkRbrace {
		if p.kind() == tkDStar {
			ds := p.tok()
			p.advance()
			d.Keys = append(d.Keys, nil)
			d.Values = append(d.Values, p.bitOr())
			if p.kind() == tkFor || p.kind() == tkAsync && p.peekKind(1) == tkFor {
				p.errorAtPos(ds.start, "dict unpacking cannot be used in dict comprehension")
			}
		} else {
			k := p.expression()
			if p.kind() != tkColon {
				p.juxtaposed()
				if len(d.Keys) > 0 {
					end := k.Extent().End
					p.errorAtPos(Pos{end.Line, end.Col - 1}, "':' expected after dictionary key")
				}
				p.syntaxError()
			}
			p.advance()
			d.Keys = append(d.Keys, k)
			d.Values = append(d.Values, p.dictValue())
		}
		if !p.got(tkComma) {
			break
		}
	}
	p.expect(tkRbrace)
	d.Span = p.span(start)
	return d
}

// dictValue parses the value of a dict entry after its ':'.
func (p *parser) dictValue() Expr {
	switch p.kind() {
	case tkStar:
		p.errorAtPos(p.tok().start, "cannot use a starred expression in a dictionary value")
	case tkRbrace, tkComma:
		p.errorAtPos(p.toks[p.pos-1].start, "expression expected after dictionary key and ':'")
	}
	return p.expression()
}

// ---------------------------------------------------------------------------
// Lambda and parameters.

func (p *parser) lambda() Expr {
	start := p.pos
	p.advance()
	args := p.parameters(tkColon, false)
	p.expectColon()
	body := p.expression()
	return &Lambda{Span: p.span(start), Args: args, Body: body}
}

// parameters parses a parameter list up to (not including) the closing
// token: `)` for a def (annotations allowed), `:` for a lambda.
func (p *parser) parameters(close tokKind, annotations bool) *Arguments {
	a := &Arguments{}
	astart := p.pos
	var sawDefault, sawSlash, sawStar bool
	var posArgs []*Arg
	for p.kind() != close {
		t := p.tok()
		switch t.kind {
		case tkSlash:
			if sawSlash {
				p.errorAtPos(t.start, "/ may appear only once")
			}
			if sawStar {
				p.errorAtPos(t.start, "/ must be ahead of *")
			}
			if len(posArgs) == 0 {
				p.errorAtPos(t.start, "at least one argument must precede /")
			}
			p.advance()
			sawSlash = true
			a.PosOnlyArgs = posArgs
			posArgs = nil
		case tkStar:
			if sawStar {
				p.errorAtPos(t.start, "* argument may appear only once")
			}
			p.advance()
			sawStar = true
			if p.kind() == tkComma || p.kind() == close {
				if p.kind() == close || p.peekKind(1) == tkDStar || p.peekKind(1) == close {
					p.errorAtPos(t.start, "named arguments must follow bare *")
				}
				break
			}
			a.VarArg = p.param(annotations, true)
			if p.kind() == tkEqual {
				p.errorAtPos(p.tok().start, "var-positional argument cannot have default value")
			}
		case tkDStar:
			p.advance()
			a.KwArg = p.param(annotations, false)
			if p.kind() == tkEqual {
				p.errorAtPos(p.tok().start, "var-keyword argument cannot have default value")
			}
			if p.got(tkComma) && p.kind() != close {
				p.errorAtPos(p.tok().start, "arguments cannot follow var-keyword argument")
			}
			if p.kind() != close {
				p.syntaxError()
			}
			a.Args = posArgs
			if a.PosOnlyArgs == nil {
				a.PosOnlyArgs = []*Arg{}
			}
			a.Span = p.span(astart)
			return p.finishArguments(a, posArgs)
		default:
			arg := p.param(annotations, false)
			var def Expr
			if p.got(tkEqual) {
				def = p.expression()
			}
			if sawStar {
				a.KwOnlyArgs = append(a.KwOnlyArgs, arg)
				a.KwDefaults = append(a.KwDefaults, def)
			} else {
				if def != nil {
					a.Defaults = append(a.Defaults, def)
					sawDefault = true
				} else if sawDefault {
					p.errorAtPos(arg.Start, "non-default argument follows default argument")
				}
				posArgs = append(posArgs, arg)
			}
		}
		if !p.got(tkComma) {
			break
		}
	}
	if p.kind() != close {
		p.syntaxError()
	}
	if p.pos > astart {
		a.Span = p.span(astart)
	}
	return p.finishArguments(a, posArgs)
}

func (p *parser) finishArguments(a *Arguments, posArgs []*Arg) *Arguments {
	a.Args = posArgs
	return a
}

// param parses NAME [':' annotation]; the annotation of *args may be a
// starred expression (PEP 646).
func (p *parser) param(annotations, star bool) *Arg {
	start := p.pos
	arg := &Arg{Arg: p.name()}
	if annotations && p.got(tkColon) {
		if star && p.kind() == tkStar {
			arg.Annotation = p.starExpression()
		} else {
			arg.Annotation = p.expression()
		}
	}
	arg.Span = p.span(start)
	return arg
}

// ---------------------------------------------------------------------------
// Targets.

// targetList parses the targets of a `for` or a comprehension (up to
// `in`): star_targets, a Tuple when there is a comma.
func (p *parser) targetList(ctx ExprContext) Expr {
	start := p.pos
	first := p.targetAtom()
	var t Expr = first
	if p.kind() == tkComma {
		elts := []Expr{first}
		for p.got(tkComma) {
			if !p.startsTarget() {
				break
			}
			elts = append(elts, p.targetAtom())
		}
		t = &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
	}
	p.assignTargetIn(t, start, ctx)
	return t
}

// targetAtom parses one target: '*' target, or a primary (an atom with
// trailers), without the operators a primary could be followed by.
func (p *parser) targetAtom() Expr {
	if p.kind() == tkStar {
		start := p.pos
		p.advance()
		if p.kind() == tkStar {
			p.syntaxError()
		}
		v := p.targetAtom()
		return &Starred{Span: p.span(start), Value: v, Ctx: Load}
	}
	return p.primary()
}

// checkTarget returns the first part of e that cannot be a target with
// the given context (CPython's _PyPegen_get_invalid_target), or nil.
func invalidTarget(e Expr, ctx ExprContext, forTargets bool) Expr {
	switch e := e.(type) {
	case *Name, *Attribute, *Subscript:
		return nil
	case *Tuple:
		for _, x := range e.Elts {
			if bad := invalidTarget(x, ctx, forTargets); bad != nil {
				return bad
			}
		}
		return nil
	case *List:
		for _, x := range e.Elts {
			if bad := invalidTarget(x, ctx, forTargets); bad != nil {
				return bad
			}
		}
		return nil
	case *Starred:
		if ctx == Del {
			return e
		}
		return invalidTarget(e.Value, ctx, forTargets)
	case *Compare:
		if forTargets {
			if e.Ops[0] == In {
				return invalidTarget(e.Left, ctx, forTargets)
			}
			return nil
		}
		return e
	}
	return e
}

// checkTarget fails when e cannot be a target.
func (p *parser) checkTarget(e Expr, ctx ExprContext) {
	if bad := invalidTarget(e, ctx, false); bad != nil {
		if ctx == Del {
			p.errorAtPos(bad.Extent().Start, "cannot delete %s", exprName(bad))
		}
		p.errorAtPos(bad.Extent().Start, "cannot assign to %s", exprName(bad))
	}
	if ctx == Store {
		// A starred target directly in parentheses or alone is accepted
		// by CPython's parser (the compiler rejects some); nested double
		// stars cannot be parsed at all.
		_ = e
	}
}

// assignTargetIn checks a target of a for, comprehension or with-item
// and sets its context.
func (p *parser) assignTargetIn(e Expr, start int, ctx ExprContext) {
	p.checkTarget(e, ctx)
	setContext(e, ctx)
}

// assignTarget checks target i of an assignment (which starts at token
// start) and gives it Store context. The first target gets CPython's
// "Maybe you meant '=='" message when it is an expression followed by a
// single '='.
func (p *parser) assignTarget(e Expr, i, start, eq int, ctx ExprContext) {
	switch e.(type) {
	case *Yield, *YieldFrom:
		p.errorAtPos(e.Extent().Start, "assignment to yield expression not possible")
	}
	if bad := invalidTarget(e, ctx, false); bad != nil {
		if i == 0 && p.maybeMeantEquals(e, start, eq) {
			p.errorAtPos(e.Extent().Start, "cannot assign to %s here. Maybe you meant '==' instead of '='?", exprName(e))
		}
		p.errorAtPos(bad.Extent().Start, "cannot assign to %s", exprName(bad))
	}
	setContext(e, ctx)
}

// maybeMeantEquals reports whether CPython's invalid_named_expression
// applies to an assignment whose first target e starts at token start
// and is followed by the '=' at token eq: e is a bitwise_or expression
// that does not start with a list, tuple, generator, True, None or
// False, and the '=' is followed by a bitwise_or expression and neither
// '=' nor ':='.
func (p *parser) maybeMeantEquals(e Expr, start, eq int) bool {
	switch e := e.(type) {
	case *Compare, *BoolOp, *IfExp, *Lambda, *Starred, *NamedExpr, *Yield, *YieldFrom:
		return false
	case *UnaryOp:
		if e.Op == Not {
			return false
		}
	}
	switch p.toks[start].kind {
	case tkTrue, tkFalse, tkNone:
		return false
	case tkLsqb, tkLpar:
		if leadingDisplay(e, p.toks[start].start) {
			return false
		}
	}
	if _, ok := e.(*Tuple); ok {
		return false
	}
	save := p.pos
	ok := p.speculate(func() {
		p.pos = eq + 1
		p.bitOr()
	})
	next := p.kind()
	p.pos = save
	return ok && next != tkEqual && next != tkWalrus
}

// leadingDisplay reports whether e's leftmost operand is a list, tuple or
// generator display starting at pos (the expression's first token).
func leadingDisplay(e Expr, pos Pos) bool {
	for {
		switch x := e.(type) {
		case *List, *Tuple, *GeneratorExp:
			return x.Extent().Start == pos
		case *BinOp:
			e = x.Left
		case *Attribute:
			e = x.Value
		case *Subscript:
			e = x.Value
		case *Call:
			e = x.Func
		default:
			return false
		}
	}
}

// speculate runs f, reporting whether it parsed without error; the
// parser's error state is restored either way.
func (p *parser) speculate(f func()) (ok bool) {
	saveErr, saveFar, saveDepth := p.err, p.far, p.depth
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			ok = false
		}
		p.err, p.far, p.depth = saveErr, saveFar, saveDepth
	}()
	f()
	return true
}

// annTargetCheck checks the target of an annotated assignment.
func (p *parser) annTargetCheck(e Expr, start int) {
	switch e.(type) {
	case *Name, *Attribute, *Subscript:
		if p.leadingParenTarget(e, start) {
			p.errorAtPos(e.Extent().Start, "illegal target for annotation")
		}
		return
	case *Tuple:
		p.errorAtPos(e.Extent().Start, "only single target (not tuple) can be annotated")
	case *List:
		p.errorAtPos(e.Extent().Start, "only single target (not list) can be annotated")
	}
	p.errorAtPos(e.Extent().Start, "illegal target for annotation")
}

// leadingParenTarget reports CPython's quirk for annotated targets that
// start with a parenthesized single target, as `(x)[0]: int`: its grammar
// tries `'(' single_target ')' ':'` first and, the parenthesized part having
// matched, does not try `(x)[0]` as a subscript target, so the statement is
// an "illegal target for annotation".
func (p *parser) leadingParenTarget(e Expr, start int) bool {
	if p.toks[start].kind != tkLpar {
		return false
	}
	first := p.toks[start].start
	x := e
	for x.Extent().Start == first {
		switch y := x.(type) {
		case *Attribute:
			x = y.Value
		case *Subscript:
			x = y.Value
		case *Call:
			x = y.Func
		default:
			return false
		}
	}
	if x == e {
		return false
	}
	switch x.(type) {
	case *Name, *Attribute, *Subscript:
		return true
	}
	return false
}

// setContext gives a target and its nested targets the context ctx.
func setContext(e Expr, ctx ExprContext) {
	switch e := e.(type) {
	case *Name:
		e.Ctx = ctx
	case *Attribute:
		e.Ctx = ctx
	case *Subscript:
		e.Ctx = ctx
	case *Starred:
		e.Ctx = ctx
		setContext(e.Value, ctx)
	case *Tuple:
		e.Ctx = ctx
		for _, x := range e.Elts {
			setContext(x, ctx)
		}
	case *List:
		e.Ctx = ctx
		for _, x := range e.Elts {
			setContext(x, ctx)
		}
	}
}

// exprName is CPython's _PyPegen_get_expr_name: how error messages name
// a kind of expression.
func exprName(e Expr) string {
	switch e := e.(type) {
	case *Attribute:
		return "attribute"
	case *Subscript:
		return "subscript"
	case *Starred:
		return "starred"
	case *Name:
		return "name"
	case *List:
		return "list"
	case *Tuple:
		return "tuple"
	case *Lambda:
		return "lambda"
	case *Call:
		return "function call"
	case *BoolOp, *BinOp, *UnaryOp:
		return "expression"
	case *GeneratorExp:
		return "generator expression"
	case *Yield, *YieldFrom:
		return "yield expression"
	case *Await:
		return "await expression"
	case *ListComp:
		return "list comprehension"
	case *SetComp:
		return "set comprehension"
	case *DictComp:
		return "dict comprehension"
	case *Dict:
		return "dict literal"
	case *Set:
		return "set display"
	case *JoinedStr, *FormattedValue:
		return "f-string expression"
	case *Constant:
		switch e.Kind {
		case ConstNone:
			return "None"
		case ConstBool:
			if e.Value.(bool) {
				return "True"
			}
			return "False"
		case ConstEllipsis:
			return "ellipsis"
		}
		return "literal"
	case *Compare:
		return "comparison"
	case *IfExp:
		return "conditional expression"
	case *NamedExpr:
		return "named expression"
	}
	return "expression"
}
