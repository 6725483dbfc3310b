// This file parses match statements and their patterns (PEP 634; the
// language reference, 8.6 "The match statement").
//
// `match` and `case` are soft keywords: a line starting with `match` is a
// match statement only if `match subject:` followed by the end of the line
// parses (tried first, as CPython does); otherwise it is an ordinary
// statement using the name `match`. Patterns are parsed directly (they are
// not expressions): literals (signed numbers, complex literals a+bj,
// strings, None/True/False), captures, the wildcard `_`, dotted value
// patterns, groups, sequences `[...]`/`(...)`/open `a, *b`, mappings with
// `**rest`, class patterns with positional and keyword sub-patterns, `|`
// alternatives and `as` bindings.

package syntax

// tryMatchStmt parses a match statement if the soft keyword `match` at the
// current token starts one, or returns nil with the position unchanged.
func (p *parser) tryMatchStmt() Stmt {
	start := p.pos
	var subject Expr
	ok := p.speculate(func() {
		p.advance()
		subject = p.subjectExpr()
		if p.kind() != tkColon || p.peekKind(1) != tkNewline {
			p.syntaxError()
		}
	})
	if !ok {
		p.pos = start
		return nil
	}
	line := p.toks[start].start.Line
	p.advance() // ':'
	p.advance() // NEWLINE
	if p.kind() != tkIndent {
		p.errorAtTok(p.tok(), "IndentationError", "expected an indented block after 'match' statement on line %d", line)
	}
	p.advance()
	m := &Match{Subject: subject}
	for p.kind() != tkDedent && p.kind() != tkEndMarker {
		if !p.isName("case") {
			p.syntaxError()
		}
		m.Cases = append(m.Cases, p.caseBlock())
	}
	p.got(tkDedent)
	last := m.Cases[len(m.Cases)-1].Body
	m.Span = p.blockSpan(start, last)
	return m
}

func (p *parser) subjectExpr() Expr {
	start := p.pos
	first := p.starNamedExpression()
	if p.kind() != tkComma {
		if _, ok := first.(*Starred); ok {
			p.syntaxError()
		}
		return first
	}
	elts := []Expr{first}
	for p.got(tkComma) {
		if p.kind() == tkColon {
			break
		}
		elts = append(elts, p.starNamedExpression())
	}
	return &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
}

func (p *parser) caseBlock() *MatchCase {
	start := p.pos
	line := p.tok().start.Line
	p.advance()
	c := &MatchCase{Pattern: p.patterns()}
	if p.got(tkIf) {
		c.Guard = p.namedExpression()
	}
	c.Body = p.colonBlock("'case' statement", line)
	c.Span = p.blockSpan(start, c.Body)
	return c
}

// patterns: an open sequence pattern (a MatchSequence) or a pattern.
func (p *parser) patterns() Pattern {
	start := p.pos
	first := p.maybeStarPattern()
	if p.kind() != tkComma {
		if _, ok := first.(*MatchStar); ok {
			p.syntaxError()
		}
		return first
	}
	pats := []Pattern{first}
	for p.got(tkComma) {
		if p.kind() == tkColon || p.kind() == tkIf {
			break
		}
		pats = append(pats, p.maybeStarPattern())
	}
	return &MatchSequence{Span: p.span(start), Patterns: pats}
}

func (p *parser) maybeStarPattern() Pattern {
	if p.kind() == tkStar {
		start := p.pos
		p.advance()
		t := p.tok()
		if t.kind != tkName {
			p.syntaxError()
		}
		p.advance()
		name := p.text(t)
		if name == "_" {
			name = ""
		}
		return &MatchStar{Span: p.span(start), Name: name}
	}
	return p.pattern()
}

// pattern: or_pattern ['as' NAME].
func (p *parser) pattern() Pattern {
	p.enter()
	defer p.leave()
	start := p.pos
	pat := p.orPattern()
	if p.got(tkAs) {
		t := p.tok()
		if t.kind != tkName {
			p.syntaxError()
		}
		if p.text(t) == "_" {
			p.errorAtPos(t.start, "cannot use '_' as a target")
		}
		p.advance()
		return &MatchAs{Span: p.span(start), Pattern: pat, Name: p.text(t)}
	}
	return pat
}

func (p *parser) orPattern() Pattern {
	start := p.pos
	first := p.closedPattern()
	if p.kind() != tkVbar {
		return first
	}
	pats := []Pattern{first}
	for p.got(tkVbar) {
		pats = append(pats, p.closedPattern())
	}
	return &MatchOr{Span: p.span(start), Patterns: pats}
}

func (p *parser) closedPattern() Pattern {
	start := p.pos
	t := p.tok()
	switch t.kind {
	case tkNumber, tkMinus:
		v := p.signedNumberPattern()
		return &MatchValue{Span: p.span(start), Value: v}
	case tkString:
		v := p.strings()
		return &MatchValue{Span: p.span(start), Value: v}
	case tkNone:
		p.advance()
		return &MatchSingleton{Span: p.span(start), Value: nil}
	case tkTrue, tkFalse:
		p.advance()
		return &MatchSingleton{Span: p.span(start), Value: t.kind == tkTrue}
	case tkName:
		return p.namePattern()
	case tkLpar:
		p.advance()
		if p.got(tkRpar) {
			return &MatchSequence{Span: p.span(start)}
		}
		first := p.maybeStarPattern()
		if p.got(tkRpar) {
			if _, ok := first.(*MatchStar); ok {
				return &MatchSequence{Span: p.span(start), Patterns: []Pattern{first}}
			}
			return first // a group pattern
		}
		if p.kind() != tkComma {
			p.syntaxError()
		}
		pats := []Pattern{first}
		for p.got(tkComma) {
			if p.kind() == tkRpar {
				break
			}
			pats = append(pats, p.maybeStarPattern())
		}
		p.expect(tkRpar)
		return &MatchSequence{Span: p.span(start), Patterns: pats}
	case tkLsqb:
		p.advance()
		var pats []Pattern
		for p.kind() != tkRsqb {
			pats = append(pats, p.maybeStarPattern())
			if !p.got(tkComma) {
				break
			}
		}
		p.expect(tkRsqb)
		return &MatchSequence{Span: p.span(start), Patterns: pats}
	case tkLbrace:
		return p.mappingPattern()
	}
	p.syntaxError()
	return nil
}

// signedNumberPattern parses a signed number or a complex literal
// `real ± imaginary`.
func (p *parser) signedNumberPattern() Expr {
	start := p.pos
	var v Expr
	if p.got(tkMinus) {
		t := p.tok()
		if t.kind != tkNumber {
			p.syntaxError()
		}
		p.advance()
		v = &UnaryOp{Span: p.span(start), Op: USub, Operand: p.number(t)}
	} else {
		t := p.tok()
		p.advance()
		v = p.number(t)
	}
	if k := p.kind(); k == tkPlus || k == tkMinus {
		if c := numberOf(v); c != nil && c.Kind == ConstComplex {
			p.errorAtPos(v.Extent().Start, "real number required in complex literal")
		}
		op := Add
		if k == tkMinus {
			op = Sub
		}
		p.advance()
		t := p.tok()
		if t.kind != tkNumber {
			p.syntaxError()
		}
		p.advance()
		im := p.number(t).(*Constant)
		if im.Kind != ConstComplex {
			p.errorAtPos(im.Start, "imaginary number required in complex literal")
		}
		v = &BinOp{Span: p.span(start), Left: v, Op: op, Right: im}
	}
	return v
}

func numberOf(e Expr) *Constant {
	switch e := e.(type) {
	case *Constant:
		return e
	case *UnaryOp:
		c, _ := e.Operand.(*Constant)
		return c
	}
	return nil
}

// namePattern parses a capture, the wildcard, a value pattern (a dotted
// name) or a class pattern.
func (p *parser) namePattern() Pattern {
	start := p.pos
	t := p.tok()
	p.advance()
	var e Expr = &Name{Span: Span{t.start, t.end}, ID: p.text(t), Ctx: Load}
	dotted := false
	for p.kind() == tkDot {
		p.advance()
		at := p.tok()
		if at.kind != tkName {
			p.syntaxError()
		}
		p.advance()
		e = &Attribute{Span: p.span(start), Value: e, Attr: p.text(at), AttrPos: at.start, Ctx: Load}
		dotted = true
	}
	if p.kind() == tkLpar {
		return p.classPattern(start, e)
	}
	if dotted {
		return &MatchValue{Span: p.span(start), Value: e}
	}
	name := p.text(t)
	if name == "_" {
		return &MatchAs{Span: p.span(start)}
	}
	return &MatchAs{Span: p.span(start), Name: name}
}

func (p *parser) classPattern(start int, cls Expr) Pattern {
	p.advance() // '('
	m := &MatchClass{Cls: cls}
	for p.kind() != tkRpar {
		if p.kind() == tkName && p.peekKind(1) == tkEqual {
			m.KwdAttrs = append(m.KwdAttrs, p.text(p.tok()))
			p.pos += 2
			m.KwdPatterns = append(m.KwdPatterns, p.pattern())
		} else {
			pat := p.pattern()
			if len(m.KwdAttrs) > 0 {
				p.errorAtPos(pat.Extent().Start, "positional patterns follow keyword patterns")
			}
			m.Patterns = append(m.Patterns, pat)
		}
		if !p.got(tkComma) {
			break
		}
	}
	p.expect(tkRpar)
	m.Span = p.span(start)
	return m
}

func (p *parser) mappingPattern() Pattern {
	start := p.pos
	p.advance() // '{'
	m := &MatchMapping{}
	for p.kind() != tkRbrace {
		if p.got(tkDStar) {
			t := p.tok()
			if t.kind != tkName {
				p.syntaxError()
			}
			p.advance()
			m.Rest = p.text(t)
			p.got(tkComma)
			break
		}
		m.Keys = append(m.Keys, p.mappingKey())
		if p.kind() != tkColon {
			p.syntaxError()
		}
		p.advance()
		m.Patterns = append(m.Patterns, p.pattern())
		if !p.got(tkComma) {
			break
		}
	}
	p.expect(tkRbrace)
	m.Span = p.span(start)
	return m
}

// mappingKey: a literal expression or a dotted name.
func (p *parser) mappingKey() Expr {
	start := p.pos
	t := p.tok()
	switch t.kind {
	case tkNumber, tkMinus:
		return p.signedNumberPattern()
	case tkString:
		return p.strings()
	case tkNone:
		p.advance()
		return &Constant{Span: p.span(start), Kind: ConstNone}
	case tkTrue, tkFalse:
		p.advance()
		return &Constant{Span: p.span(start), Kind: ConstBool, Value: t.kind == tkTrue}
	case tkName:
		p.advance()
		var e Expr = &Name{Span: Span{t.start, t.end}, ID: p.text(t), Ctx: Load}
		if p.kind() != tkDot {
			p.syntaxError()
		}
		for p.got(tkDot) {
			at := p.tok()
			if at.kind != tkName {
				p.syntaxError()
			}
			p.advance()
			e = &Attribute{Span: p.span(start), Value: e, Attr: p.text(at), AttrPos: at.start, Ctx: Load}
		}
		return e
	}
	p.syntaxError()
	return nil
}
