package affine

import (
	"fmt"
	"strconv"
	"strings"
)

// Resolver maps an identifier in expression text to an axis.
type Resolver func(name string) (Axis, error)

// ParseError describes a syntax or semantic error in expression text.
type ParseError struct {
	Text string
	Pos  int
	Msg  string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("affine expression %q at offset %d: %s", e.Text, e.Pos, e.Msg)
}

// Parse reads an expression in the syntax Format prints:
//
//	expr   := term { ("+" | "-") term }
//	term   := unary { ("*" unary) | ("floordiv" | "//") INT | ("mod" | "%") INT }
//	unary  := "-" unary | INT | IDENT | "(" expr ")"
//
// Products must have a constant factor (quasi-affine); divisors must be
// positive integer constants.
func Parse(text string, resolve Resolver) (Expr, error) {
	p := &exprParser{text: text, resolve: resolve}
	p.next()
	e, err := p.expr()
	if err != nil {
		return Expr{}, err
	}
	if p.tok != tokEOF {
		return Expr{}, p.errf("unexpected %q", p.lit)
	}
	return e, nil
}

// ParsePred reads a predicate: "true", "false", or comparisons joined by
// "and" (or "&&"), each "expr OP expr" with OP one of >= > <= < == !=.
func ParsePred(text string, resolve Resolver) (Pred, error) {
	p := &exprParser{text: text, resolve: resolve}
	p.next()
	if p.tok == tokIdent && (p.lit == "true" || p.lit == "false") {
		v := p.lit
		p.next()
		if p.tok != tokEOF {
			return Pred{}, p.errf("unexpected %q after %s", p.lit, v)
		}
		if v == "false" {
			return Pred{False: true}, nil
		}
		return Pred{}, nil
	}
	var parts []Pred
	for {
		a, err := p.expr()
		if err != nil {
			return Pred{}, err
		}
		if p.tok != tokOp {
			return Pred{}, p.errf("expected a comparison, found %q", p.lit)
		}
		op := p.lit
		switch op {
		case ">=", ">", "<=", "<", "==", "!=":
		default:
			return Pred{}, p.errf("expected a comparison, found %q", op)
		}
		p.next()
		b, err := p.expr()
		if err != nil {
			return Pred{}, err
		}
		switch op {
		case ">=":
			parts = append(parts, GE(a, b))
		case ">":
			parts = append(parts, GT(a, b))
		case "<=":
			parts = append(parts, LE(a, b))
		case "<":
			parts = append(parts, LT(a, b))
		case "==":
			parts = append(parts, EQ(a, b))
		case "!=":
			parts = append(parts, NE(a, b))
		}
		if p.tok == tokEOF {
			break
		}
		if (p.tok == tokIdent && p.lit == "and") || (p.tok == tokOp && p.lit == "&&") {
			p.next()
			continue
		}
		return Pred{}, p.errf("expected \"and\", found %q", p.lit)
	}
	return And(parts...), nil
}

type tokKind int

const (
	tokEOF tokKind = iota
	tokInt
	tokIdent
	tokOp
)

type exprParser struct {
	text    string
	pos     int
	tokPos  int
	tok     tokKind
	lit     string
	resolve Resolver
}

func (p *exprParser) errf(format string, args ...any) error {
	return &ParseError{Text: p.text, Pos: p.tokPos, Msg: fmt.Sprintf(format, args...)}
}

func (p *exprParser) next() {
	for p.pos < len(p.text) && (p.text[p.pos] == ' ' || p.text[p.pos] == '\t') {
		p.pos++
	}
	p.tokPos = p.pos
	if p.pos >= len(p.text) {
		p.tok, p.lit = tokEOF, "end of text"
		return
	}
	c := p.text[p.pos]
	switch {
	case c >= '0' && c <= '9':
		s := p.pos
		for p.pos < len(p.text) && p.text[p.pos] >= '0' && p.text[p.pos] <= '9' {
			p.pos++
		}
		p.tok, p.lit = tokInt, p.text[s:p.pos]
	case c == '_' || isLetter(c):
		s := p.pos
		for p.pos < len(p.text) && (isLetter(p.text[p.pos]) || p.text[p.pos] == '_' || p.text[p.pos] == '.' || (p.text[p.pos] >= '0' && p.text[p.pos] <= '9')) {
			p.pos++
		}
		p.tok, p.lit = tokIdent, p.text[s:p.pos]
	default:
		for _, op := range []string{">=", "<=", "==", "!=", "&&", "//", "+", "-", "*", "(", ")", ">", "<", "%"} {
			if strings.HasPrefix(p.text[p.pos:], op) {
				p.pos += len(op)
				p.tok, p.lit = tokOp, op
				return
			}
		}
		p.pos++
		p.tok, p.lit = tokOp, string(c)
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func (p *exprParser) expr() (Expr, error) {
	e, err := p.term()
	if err != nil {
		return Expr{}, err
	}
	for p.tok == tokOp && (p.lit == "+" || p.lit == "-") {
		neg := p.lit == "-"
		p.next()
		t, err := p.term()
		if err != nil {
			return Expr{}, err
		}
		if neg {
			e = Sub(e, t)
		} else {
			e = Add(e, t)
		}
	}
	return e, nil
}

func (p *exprParser) term() (Expr, error) {
	e, err := p.unary()
	if err != nil {
		return Expr{}, err
	}
	for {
		switch {
		case p.tok == tokOp && p.lit == "*":
			p.next()
			f, err := p.unary()
			if err != nil {
				return Expr{}, err
			}
			switch {
			case f.IsConst():
				e = Scale(e, f.Const)
			case e.IsConst():
				e = Scale(f, e.Const)
			default:
				return Expr{}, p.errf("product of two non-constant expressions is not quasi-affine")
			}
		case (p.tok == tokIdent && (p.lit == "floordiv" || p.lit == "mod")) || (p.tok == tokOp && (p.lit == "//" || p.lit == "%")):
			isDiv := p.lit == "floordiv" || p.lit == "//"
			p.next()
			if p.tok != tokInt {
				return Expr{}, p.errf("divisor must be a positive integer constant, found %q", p.lit)
			}
			d, err := strconv.ParseInt(p.lit, 10, 64)
			if err != nil || d <= 0 {
				return Expr{}, p.errf("divisor must be a positive integer constant, found %q", p.lit)
			}
			p.next()
			if isDiv {
				e = FloorDiv(e, d)
			} else {
				e = Mod(e, d)
			}
		default:
			return e, nil
		}
	}
}

func (p *exprParser) unary() (Expr, error) {
	switch p.tok {
	case tokOp:
		switch p.lit {
		case "-":
			p.next()
			e, err := p.unary()
			if err != nil {
				return Expr{}, err
			}
			return Scale(e, -1), nil
		case "(":
			p.next()
			e, err := p.expr()
			if err != nil {
				return Expr{}, err
			}
			if p.tok != tokOp || p.lit != ")" {
				return Expr{}, p.errf("expected \")\", found %q", p.lit)
			}
			p.next()
			return e, nil
		}
	case tokInt:
		v, err := strconv.ParseInt(p.lit, 10, 64)
		if err != nil {
			return Expr{}, p.errf("integer %s out of range", p.lit)
		}
		p.next()
		return Const(v), nil
	case tokIdent:
		if p.lit == "floordiv" || p.lit == "mod" || p.lit == "and" {
			return Expr{}, p.errf("unexpected %q", p.lit)
		}
		if p.resolve == nil {
			return Expr{}, p.errf("unknown axis %q", p.lit)
		}
		a, err := p.resolve(p.lit)
		if err != nil {
			return Expr{}, p.errf("%v", err)
		}
		p.next()
		return Var(a), nil
	}
	return Expr{}, p.errf("unexpected %q", p.lit)
}
