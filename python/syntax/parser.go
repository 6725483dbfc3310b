// This file is the parser's entry points and its statement grammar.
//
// The parser is a hand-written recursive-descent parser over the token
// slice the scanner produces, following Python 3.11's grammar (the
// language reference, chapter 10 "Full Grammar specification"). Where
// CPython's PEG parser backtracks, this parser mostly decides with one
// token of lookahead: an expression statement is parsed as an expression
// and turned into an assignment target when '=', ':' or an augmented
// operator follows (targets are validated and given Store context as
// CPython's star_targets would have parsed them); `for` and comprehension
// targets are parsed by a target parser that stops before `in`. Only the
// parenthesized with-statement form and the `match` soft keyword are
// decided by trying one reading and falling back to the other.
//
// Positions are CPython's: a node spans from the first token its grammar
// rule consumed to the last (so a BinOp whose left operand is
// parenthesized starts at the parenthesis, a parenthesized expression
// keeps its own span, a trailing comma belongs to the tuple), a
// decorated definition starts at `def`/`class`, and a block ends with its
// last statement.
//
// Errors: the first error stops the parse (a bailout panic caught at the
// entry point, as go/parser does; nothing else panics). An error is a
// syntax error CPython would raise for the same source, with its message
// and location where this parser knows CPython's (errors.go has the
// specialized messages); otherwise "invalid syntax" at the furthest token
// the parser looked at, which is where CPython's first pass stopped.
// Tokenizer errors compete with parser errors as CPython's do (see
// errClass).

package syntax

import (
	"fmt"
	"runtime/debug"
	"unicode/utf8"
)

// maxDepth bounds the nesting of expressions and statements (CPython
// raises RecursionError "maximum recursion depth exceeded during ast
// construction" past about 3000 unary operators; this parser reports a
// SyntaxError instead of overflowing its stack).
const maxDepth = 2500

// ErrorCode returns the diagnostic code of a syntax error: NW206,
// "malformed Python" (package diag registers it).
func (e *Error) ErrorCode() string { return "NW206" }

// Error renders the error as "file:line:col: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

type bailout struct{}

type parser struct {
	file  string
	src   []byte
	toks  []token
	pos   int // index of the current token
	far   int // furthest token index looked at
	depth int
	sc    *scanner
	err   *Error

	// fstring is set for the parser of an f-string's expression, whose
	// errors CPython prefixes with "f-string: ".
	fstring bool
	// fstrCol is, in an f-string parser, the column its first line's
	// tokens were shifted by (CPython reports error columns relative to
	// the expression's text).
	fstrCol int
	// fstrLine is, in an f-string parser, the line of its first token.
	fstrLine int32

	names map[string]string // interned identifiers

	// inCallArgs is set while a call argument is parsed.
	inCallArgs bool
	// maxFar is the furthest token ever looked at, speculation included
	// (CPython's second pass reads as far).
	maxFar int

	// The last expression parsed by expression(), its first token and
	// the token after it.
	lastExpr      Expr
	lastExprStart int
	lastExprEnd   int
}

// Parse parses a Python module. The error, if any, is a *Error.
func Parse(filename string, src []byte) (f *File, err error) {
	norm := normalizeNewlines(src)
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &Error{File: filename, Line: 1, Col: 1, Kind: "SyntaxError",
				Msg: fmt.Sprintf("internal error: parser panic: %v\n%s", r, debug.Stack())}
		}
	}()
	if len(norm) >= 1<<31-1 {
		return nil, &Error{File: filename, Line: 1, Col: 1, Kind: "SyntaxError", Msg: "source too large (2 GiB or more)"}
	}
	p := newParser(filename, norm)
	defer p.sc.release()
	var body []Stmt
	if !p.run(func() { body = p.fileInput() }) {
		return nil, p.err
	}
	return &File{Name: filename, Src: norm, Body: body}, nil
}

// ParseExpr parses a single expression (CPython's eval input: an
// expression list, optionally followed by newlines), such as a
// command-line argument value.
func ParseExpr(filename string, src []byte) (e Expr, err error) {
	norm := normalizeNewlines(src)
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, &Error{File: filename, Line: 1, Col: 1, Kind: "SyntaxError",
				Msg: fmt.Sprintf("internal error: parser panic: %v\n%s", r, debug.Stack())}
		}
	}()
	if len(norm) >= 1<<31-1 {
		return nil, &Error{File: filename, Line: 1, Col: 1, Kind: "SyntaxError", Msg: "source too large (2 GiB or more)"}
	}
	p := newParser(filename, norm)
	defer p.sc.release()
	if !p.run(func() { e = p.evalInput() }) {
		return nil, p.err
	}
	return e, nil
}

func newParser(filename string, src []byte) *parser {
	sc := scan(filename, src)
	return &parser{file: filename, src: src, toks: sc.toks, sc: sc}
}

// run runs f, turning a bailout into false (with p.err set) and applying
// CPython's precedence of tokenizer errors over parser errors.
func (p *parser) run(f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			ok = false
			p.resolveError()
		}
	}()
	f()
	return true
}

// resolveError decides between the parser's error and a tokenizer error
// further in the file the parser never reached.
func (p *parser) resolveError() {
	se := p.sc.err
	if se == nil || p.err == se {
		return
	}
	switch p.sc.errClass {
	case errRaised:
		p.err = se
	case errUnclosed:
		far := max(p.far, p.maxFar)
		if far >= len(p.toks) {
			far = len(p.toks) - 1
		}
		if max(p.err.Line, int(p.toks[far].start.Line)) > p.sc.errParen.line {
			p.err = se
		}
	}
}

// ---------------------------------------------------------------------------
// Tokens.

// at returns token i, raising the tokenizer's error when it is the error
// token (the parser has reached the bad input).
func (p *parser) at(i int) *token {
	if i >= len(p.toks) {
		i = len(p.toks) - 1
	}
	if i > p.far {
		p.far = i
		if i > p.maxFar {
			p.maxFar = i
		}
	}
	t := &p.toks[i]
	if t.kind == tkError {
		p.err = p.sc.err
		panic(bailout{})
	}
	return t
}

func (p *parser) tok() *token            { return p.at(p.pos) }
func (p *parser) kind() tokKind          { return p.at(p.pos).kind }
func (p *parser) peekKind(n int) tokKind { return p.at(p.pos + n).kind }
func (p *parser) advance()               { p.pos++ }

// got consumes the current token if it is of kind k.
func (p *parser) got(k tokKind) bool {
	if p.kind() == k {
		p.pos++
		return true
	}
	return false
}

// text returns the source text of token t; identifiers are interned, so
// that a name used many times is one string.
func (p *parser) text(t *token) string {
	b := p.src[t.off:t.eoff]
	if t.kind != tkName {
		return string(b)
	}
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	if p.names == nil {
		p.names = make(map[string]string)
	}
	s := string(b)
	p.names[s] = s
	return s
}

// isName reports whether the current token is the NAME s (a soft keyword).
func (p *parser) isName(s string) bool {
	t := p.tok()
	return t.kind == tkName && int(t.eoff-t.off) == len(s) && string(p.src[t.off:t.eoff]) == s
}

// span returns the span from token start to the last consumed token.
func (p *parser) span(start int) Span {
	return Span{Start: p.toks[start].start, End: p.toks[p.pos-1].end}
}

// ---------------------------------------------------------------------------
// Errors.

// errorCol converts a token position to the 1-based character offset
// CPython reports.
func (p *parser) charOffset(pos Pos) int {
	line := p.lineBytes(int(pos.Line))
	col := int(pos.Col)
	if col > len(line) {
		return col + 1
	}
	// Characters: an invalid UTF-8 byte counts as one.
	return utf8.RuneCount(line[:col]) + 1
}

// lineBytes returns line n of the source (without its newline).
func (p *parser) lineBytes(n int) []byte {
	src := p.src
	if p.fstring {
		src = p.sc.src
	}
	line := 1
	i := 0
	for line < n && i < len(src) {
		if src[i] == '\n' {
			line++
		}
		i++
	}
	j := i
	for j < len(src) && src[j] != '\n' {
		j++
	}
	return src[i:j]
}

// errorAtPos raises a SyntaxError at pos (a token position).
func (p *parser) errorAtPos(pos Pos, format string, args ...any) {
	p.raise("SyntaxError", pos, format, args...)
}

func (p *parser) raise(kind string, pos Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	col := 0
	if p.fstring {
		msg = "f-string: " + msg
		if pos.Line == p.fstrLine {
			col = int(pos.Col) - p.fstrCol + 1
		} else {
			col = int(pos.Col) + 1
		}
	} else {
		col = p.charOffset(pos)
	}
	p.err = &Error{File: p.file, Line: int(pos.Line), Col: col, Msg: msg, Kind: kind}
	panic(bailout{})
}

// errorAtTok raises an error located at token t (CPython's known-location
// errors at a token; INDENT, DEDENT and ENDMARKER have CPython's odd
// locations).
func (p *parser) errorAtTok(t *token, kind string, format string, args ...any) {
	switch t.kind {
	case tkIndent, tkDedent, tkEndMarker:
		msg := fmt.Sprintf(format, args...)
		line := int(t.start.Line)
		if t.errLine != 0 {
			line = int(t.errLine)
		}
		if p.fstring {
			msg = "f-string: " + msg
		}
		p.err = &Error{File: p.file, Line: line, Col: int(t.errCol), Msg: msg, Kind: kind}
		panic(bailout{})
	}
	p.raise(kind, t.start, format, args...)
}

// syntaxError raises CPython's generic error: "invalid syntax" at the
// furthest token looked at (unless a specialized message applies).
func (p *parser) syntaxError() {
	p.juxtaposed()
	t := p.at(p.far)
	switch t.kind {
	case tkIndent:
		p.errorAtTok(t, "IndentationError", "unexpected indent")
	case tkDedent:
		p.errorAtTok(t, "IndentationError", "unexpected unindent")
	}
	p.errorAtTok(t, "SyntaxError", "invalid syntax")
}

// lastError raises an error at the last token looked at (CPython's
// RAISE_SYNTAX_ERROR without a location).
func (p *parser) lastError(kind, format string, args ...any) {
	p.errorAtTok(p.at(p.far), kind, format, args...)
}

// expect consumes a token of kind k or fails with "invalid syntax".
func (p *parser) expect(k tokKind) *token {
	t := p.tok()
	if t.kind != k {
		p.syntaxError()
	}
	p.pos++
	return t
}

// expectForced consumes a token of kind k or fails with "expected 'k'" at
// the current token (CPython's forced tokens, &&'x' in its grammar).
func (p *parser) expectForced(k tokKind, what string) *token {
	t := p.tok()
	if t.kind != k {
		p.errorAtTok(t, "SyntaxError", "expected '%s'", what)
	}
	p.pos++
	return t
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.errorAtPos(p.tok().start, "too many nested expressions (more than %d levels)", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// ---------------------------------------------------------------------------
// Inputs.

func (p *parser) fileInput() []Stmt {
	var body []Stmt
	for p.kind() != tkEndMarker {
		body = p.statement(body)
	}
	return body
}

// evalInput: expressions NEWLINE* ENDMARKER, where expressions is
// expression (',' expression)* [','] (no starred elements, as CPython's
// eval mode).
func (p *parser) evalInput() Expr {
	start := p.pos
	e := p.expression()
	if p.kind() == tkComma {
		elts := []Expr{e}
		for p.got(tkComma) {
			if !p.startsExpression() || p.kind() == tkStar || p.kind() == tkYield {
				break
			}
			elts = append(elts, p.expression())
		}
		e = &Tuple{Span: p.span(start), Elts: elts, Ctx: Load}
	}
	for p.got(tkNewline) {
	}
	if p.kind() != tkEndMarker {
		p.syntaxError()
	}
	return e
}

// ---------------------------------------------------------------------------
// Statements.

// statement parses one statement (a compound statement or a line of
// simple statements) and appends it to list.
func (p *parser) statement(list []Stmt) []Stmt {
	p.enter()
	defer p.leave()
	switch p.kind() {
	case tkDef, tkAt, tkClass, tkIf, tkFor, tkWhile, tkWith, tkTry:
		return append(list, p.compoundStmt())
	case tkAsync:
		if k := p.peekKind(1); k == tkDef || k == tkFor || k == tkWith {
			return append(list, p.compoundStmt())
		}
	case tkName:
		if p.isName("match") {
			if s := p.tryMatchStmt(); s != nil {
				return append(list, s)
			}
		}
	case tkIndent:
		p.errorAtTok(p.tok(), "IndentationError", "unexpected indent")
	case tkDedent:
		p.errorAtTok(p.tok(), "IndentationError", "unexpected unindent")
	}
	return p.simpleStmts(list)
}

func (p *parser) compoundStmt() Stmt {
	switch p.kind() {
	case tkDef:
		return p.funcDef(p.pos, nil)
	case tkAt:
		return p.decorated()
	case tkClass:
		return p.classDef(nil)
	case tkIf:
		return p.ifStmt()
	case tkFor:
		return p.forStmt(p.pos, false)
	case tkWhile:
		return p.whileStmt()
	case tkWith:
		return p.withStmt(p.pos, false)
	case tkTry:
		return p.tryStmt()
	case tkAsync:
		start := p.pos
		p.advance()
		switch p.kind() {
		case tkDef:
			fd := p.funcDef(start, nil)
			fd.(*FunctionDef).IsAsync = true
			return fd
		case tkFor:
			return p.forStmt(start, true)
		case tkWith:
			return p.withStmt(start, true)
		}
	}
	p.syntaxError()
	return nil
}

// simpleStmts parses simple statements separated by ';' up to NEWLINE.
func (p *parser) simpleStmts(list []Stmt) []Stmt {
	for {
		list = append(list, p.simpleStmt())
		if p.got(tkSemi) {
			if p.kind() == tkNewline {
				break
			}
			continue
		}
		break
	}
	if p.kind() != tkNewline {
		p.simpleStmtEndError(list[len(list)-1])
	}
	p.advance()
	return list
}

func (p *parser) simpleStmt() Stmt {
	start := p.pos
	switch p.kind() {
	case tkPass:
		p.advance()
		return &Pass{p.span(start)}
	case tkBreak:
		p.advance()
		return &Break{p.span(start)}
	case tkContinue:
		p.advance()
		return &Continue{p.span(start)}
	case tkReturn:
		p.advance()
		var v Expr
		if p.startsExpression() {
			v = p.starExpressions()
		}
		return &Return{Span: p.span(start), Value: v}
	case tkRaise:
		p.advance()
		s := &Raise{}
		if p.startsExpression() {
			s.Exc = p.expression()
			if p.got(tkFrom) {
				s.Cause = p.expression()
			}
		}
		s.Span = p.span(start)
		return s
	case tkGlobal, tkNonlocal:
		k := p.kind()
		p.advance()
		var names []string
		for {
			names = append(names, p.name())
			if !p.got(tkComma) {
				break
			}
		}
		if k == tkGlobal {
			return &Global{Span: p.span(start), Names: names}
		}
		return &Nonlocal{Span: p.span(start), Names: names}
	case tkDel:
		p.advance()
		return p.delStmt(start)
	case tkAssert:
		p.advance()
		s := &Assert{Test: p.expression()}
		if p.got(tkComma) {
			s.Msg = p.expression()
		}
		s.Span = p.span(start)
		return s
	case tkImport:
		return p.importStmt()
	case tkFrom:
		return p.importFrom()
	}
	return p.exprStmt()
}

// name consumes a NAME and returns its text.
func (p *parser) name() string {
	t := p.tok()
	if t.kind != tkName {
		p.syntaxError()
	}
	p.advance()
	return p.text(t)
}

// exprStmt parses an expression statement, an assignment, an augmented
// assignment or an annotated assignment.
func (p *parser) exprStmt() Stmt {
	start := p.pos
	var first Expr
	if p.kind() == tkYield {
		first = p.yieldExpr()
	} else {
		first = p.starExpressions()
	}
	switch k := p.kind(); k {
	case tkEqual:
		targets := []Expr{first}
		var value Expr
		starts := []int{start}
		eq := p.pos
		for p.got(tkEqual) {
			vs := p.pos
			if p.kind() == tkYield {
				value = p.yieldExpr()
			} else {
				value = p.starExpressions()
			}
			if p.kind() == tkEqual {
				targets = append(targets, value)
				starts = append(starts, vs)
			}
		}
		for i, t := range targets {
			p.assignTarget(t, i, starts[i], eq, Store)
		}
		return &Assign{Span: p.span(start), Targets: targets, Value: value}
	case tkColon:
		p.annTargetCheck(first, start)
		p.advance()
		s := &AnnAssign{Target: first, Annotation: p.expression()}
		s.Simple = p.toks[start].kind == tkName
		if _, ok := first.(*Name); !ok {
			s.Simple = false
		}
		setContext(first, Store)
		if p.got(tkEqual) {
			if p.kind() == tkYield {
				s.Value = p.yieldExpr()
			} else {
				s.Value = p.starExpressions()
			}
		}
		s.Span = p.span(start)
		return s
	default:
		if op, ok := augOps[k]; ok {
			switch first.(type) {
			case *Name, *Attribute, *Subscript:
			default:
				p.errorAtPos(first.Extent().Start, "'%s' is an illegal expression for augmented assignment", exprName(first))
			}
			setContext(first, Store)
			p.advance()
			var v Expr
			if p.kind() == tkYield {
				v = p.yieldExpr()
			} else {
				v = p.starExpressions()
			}
			return &AugAssign{Span: p.span(start), Target: first, Op: op, Value: v}
		}
	}
	return &ExprStmt{Span: p.span(start), Value: first}
}

func (p *parser) delStmt(start int) Stmt {
	var targets []Expr
	for {
		if !p.startsTarget() {
			if len(targets) > 0 && (p.kind() == tkNewline || p.kind() == tkSemi) {
				break
			}
			p.syntaxError()
		}
		t := p.targetAtom()
		targets = append(targets, t)
		if !p.got(tkComma) {
			break
		}
	}
	if k := p.kind(); k != tkNewline && k != tkSemi {
		p.invalidTargetError(start+1, Del, false, false)
		p.syntaxError()
	}
	for _, t := range targets {
		p.checkTarget(t, Del)
		setContext(t, Del)
	}
	return &Delete{Span: p.span(start), Targets: targets}
}

func (p *parser) importStmt() Stmt {
	start := p.pos
	p.advance()
	var names []*Alias
	for {
		as := p.pos
		a := &Alias{Name: p.dottedName()}
		if p.got(tkAs) {
			a.AsName = p.name()
		}
		a.Span = p.span(as)
		names = append(names, a)
		if !p.got(tkComma) {
			break
		}
	}
	return &Import{Span: p.span(start), Names: names}
}

func (p *parser) dottedName() string {
	n := p.name()
	for p.kind() == tkDot {
		p.advance()
		n += "." + p.name()
	}
	return n
}

func (p *parser) importFrom() Stmt {
	start := p.pos
	p.advance()
	s := &ImportFrom{}
	for {
		if p.got(tkDot) {
			s.Level++
		} else if p.got(tkEllipsis) {
			s.Level += 3
		} else {
			break
		}
	}
	if s.Level == 0 || p.kind() == tkName {
		s.Module = p.dottedName()
	}
	if p.kind() != tkImport {
		p.syntaxError()
	}
	p.advance()
	if p.kind() == tkStar {
		as := p.pos
		p.advance()
		s.Names = []*Alias{{Span: p.span(as), Name: "*"}}
		s.Span = p.span(start)
		return s
	}
	paren := p.got(tkLpar)
	for {
		as := p.pos
		a := &Alias{Name: p.name()}
		if p.got(tkAs) {
			a.AsName = p.name()
		}
		a.Span = p.span(as)
		s.Names = append(s.Names, a)
		if !p.got(tkComma) {
			break
		}
		if paren && p.kind() == tkRpar {
			break
		}
		if !paren && (p.kind() == tkNewline || p.kind() == tkSemi) {
			p.lastError("SyntaxError", "trailing comma not allowed without surrounding parentheses")
		}
	}
	if paren {
		p.expect(tkRpar)
	}
	s.Span = p.span(start)
	return s
}

// ---------------------------------------------------------------------------
// Blocks and compound statements.

// block parses the block after a compound statement's ':'. what names the
// statement for "expected an indented block after ..." and line is the
// line of its keyword.
func (p *parser) block(what string, line int32) []Stmt {
	if p.kind() != tkNewline {
		if p.kind() == tkEndMarker || p.kind() == tkIndent || p.kind() == tkDedent {
			p.syntaxError()
		}
		return p.simpleStmts(nil)
	}
	p.advance()
	if p.kind() != tkIndent {
		t := p.tok()
		if what == "" {
			p.errorAtTok(t, "IndentationError", "expected an indented block")
		}
		p.errorAtTok(t, "IndentationError", "expected an indented block after %s on line %d", what, line)
	}
	p.advance()
	var body []Stmt
	for p.kind() != tkDedent && p.kind() != tkEndMarker {
		body = p.statement(body)
	}
	p.got(tkDedent)
	return body
}

// blockSpan returns the span of a compound statement starting at token
// start: it ends with the last token before the current one that is not
// a NEWLINE, INDENT or DEDENT (CPython's EXTRA end: a trailing ';' of the
// last line counts).
func (p *parser) blockSpan(start int, _ ...[]Stmt) Span {
	i := p.pos - 1
	for i > start {
		if k := p.toks[i].kind; k != tkNewline && k != tkIndent && k != tkDedent {
			break
		}
		i--
	}
	return Span{Start: p.toks[start].start, End: p.toks[i].end}
}

// colonBlock expects the ':' of a compound statement (reporting "expected
// ':'" where CPython does: when the line ends instead) and parses the block.
func (p *parser) colonBlock(what string, line int32) []Stmt {
	p.expectColon()
	return p.block(what, line)
}

func (p *parser) expectColon() {
	if p.kind() != tkColon {
		if p.kind() == tkNewline {
			p.lastError("SyntaxError", "expected ':'")
		}
		p.syntaxError()
	}
	p.advance()
}

func (p *parser) decorated() Stmt {
	var decos []Expr
	for p.kind() == tkAt {
		p.advance()
		decos = append(decos, p.namedExpression())
		if p.kind() != tkNewline {
			p.syntaxError()
		}
		p.advance()
	}
	switch p.kind() {
	case tkDef:
		return p.funcDef(p.pos, decos)
	case tkClass:
		return p.classDef(decos)
	case tkAsync:
		if p.peekKind(1) == tkDef {
			start := p.pos
			p.advance()
			fd := p.funcDef(start, decos)
			fd.(*FunctionDef).IsAsync = true
			return fd
		}
	}
	p.syntaxError()
	return nil
}

// funcDef parses `def name(params) -> returns: block` with the current
// token at `def`; start is the index of `def` or `async`.
func (p *parser) funcDef(start int, decos []Expr) Stmt {
	line := p.tok().start.Line
	p.advance()
	fd := &FunctionDef{DecoratorList: decos}
	fd.Name = p.name()
	p.expectForced(tkLpar, "(")
	fd.Args = p.parameters(tkRpar, true)
	p.expect(tkRpar)
	if p.kind() == tkArrow {
		arrow := p.tok()
		p.advance()
		if !p.startsExpression() || p.kind() == tkStar || p.kind() == tkYield {
			p.errorAtTok(arrow, "SyntaxError", "expected ':'")
		}
		fd.Returns = p.expression()
	}
	p.expectForced(tkColon, ":")
	fd.Body = p.block("function definition", line)
	fd.Span = p.blockSpan(start, fd.Body)
	if fd.DecoratorList == nil {
		fd.DecoratorList = []Expr{}
	}
	return fd
}

func (p *parser) classDef(decos []Expr) Stmt {
	start := p.pos
	line := p.tok().start.Line
	p.advance()
	cd := &ClassDef{DecoratorList: decos}
	cd.Name = p.name()
	if p.got(tkLpar) {
		cd.Bases, cd.Keywords = p.arguments(true, nil)
		p.expect(tkRpar)
	}
	p.expectColon()
	cd.Body = p.block("class definition", line)
	cd.Span = p.blockSpan(start, cd.Body)
	return cd
}

func (p *parser) ifStmt() Stmt {
	start := p.pos
	kw := p.tok()
	p.advance()
	s := &If{Test: p.namedExpression()}
	what := "'if' statement"
	if kw.kind == tkElif {
		what = "'elif' statement"
	}
	s.Body = p.colonBlock(what, kw.start.Line)
	switch p.kind() {
	case tkElif:
		s.OrElse = []Stmt{p.ifStmt()}
	case tkElse:
		s.OrElse = p.elseBlock()
	}
	s.Span = p.blockSpan(start, s.Body, s.OrElse)
	return s
}

func (p *parser) elseBlock() []Stmt {
	line := p.tok().start.Line
	p.advance()
	p.expectForced(tkColon, ":")
	return p.block("'else' statement", line)
}

func (p *parser) whileStmt() Stmt {
	start := p.pos
	line := p.tok().start.Line
	p.advance()
	s := &While{Test: p.namedExpression()}
	s.Body = p.colonBlock("'while' statement", line)
	if p.kind() == tkElse {
		s.OrElse = p.elseBlock()
	}
	s.Span = p.blockSpan(start, s.Body, s.OrElse)
	return s
}

func (p *parser) forStmt(start int, async bool) Stmt {
	line := p.tok().start.Line
	p.advance()
	s := &For{IsAsync: async}
	ts := p.pos
	s.Target = p.targetList(Store)
	if p.kind() != tkIn {
		p.invalidTargetError(ts, Store, true, false)
		p.syntaxError()
	}
	p.advance()
	s.Iter = p.starExpressions()
	s.Body = p.colonBlock("'for' statement", line)
	if p.kind() == tkElse {
		s.OrElse = p.elseBlock()
	}
	s.Span = p.blockSpan(start, s.Body, s.OrElse)
	return s
}

func (p *parser) withStmt(start int, async bool) Stmt {
	line := p.tok().start.Line
	p.advance()
	s := &With{IsAsync: async}
	if p.kind() == tkLpar {
		// The parenthesized form `with (a as b, c):`, tried first as
		// CPython does; if the parentheses do not close a list of items
		// followed by ':', they belong to the first item's expression.
		save := p.pos
		if items, ok := p.tryParenWithItems(); ok {
			s.Items = items
		} else {
			p.pos = save
		}
	}
	if s.Items == nil {
		for {
			s.Items = append(s.Items, p.withItem())
			if !p.got(tkComma) {
				break
			}
		}
	}
	s.Body = p.colonBlock("'with' statement", line)
	s.Span = p.blockSpan(start, s.Body)
	return s
}

func (p *parser) tryParenWithItems() (items []*WithItem, ok bool) {
	saveErr, saveFar := p.err, p.far
	defer func() {
		if r := recover(); r != nil {
			if _, is := r.(bailout); !is {
				panic(r)
			}
			if p.err != nil && (p.err == p.sc.err || p.err.Msg != "invalid syntax" && p.err.Msg != "f-string: invalid syntax") {
				// The tokenizer error is reached either way; a specialized
				// error is CPython's too (its second pass tries this form
				// first, with its invalid_with_item rules).
				panic(r)
			}
			p.err, p.far = saveErr, saveFar
			items, ok = nil, false
		}
	}()
	p.advance()
	for {
		items = append(items, p.withItem())
		if !p.got(tkComma) {
			break
		}
		if p.kind() == tkRpar {
			break
		}
	}
	if p.kind() != tkRpar || p.peekKind(1) != tkColon {
		return nil, false
	}
	p.advance()
	return items, true
}

func (p *parser) withItem() *WithItem {
	start := p.pos
	it := &WithItem{ContextExpr: p.expression()}
	if p.got(tkAs) {
		ts := p.pos
		t := p.targetAtom()
		if k := p.kind(); k != tkComma && k != tkRpar && k != tkColon {
			p.invalidTargetError(ts, Store, false, true)
			p.syntaxError()
		}
		p.assignTargetIn(t, ts, Store)
		it.OptionalVars = t
	}
	it.Span = p.span(start)
	return it
}

func (p *parser) tryStmt() Stmt {
	start := p.pos
	line := p.tok().start.Line
	p.advance()
	p.expectForced(tkColon, ":")
	s := &Try{Body: p.block("'try' statement", line)}
	sawPlain, sawStar := false, false
	for p.kind() == tkExcept {
		hs := p.pos
		hline := p.tok().start.Line
		p.advance()
		h := &ExceptHandler{}
		star := p.got(tkStar)
		if star {
			sawStar = true
		} else {
			sawPlain = true
		}
		if sawPlain && sawStar {
			p.errorAtPos(p.toks[hs].start, "cannot have both 'except' and 'except*' on the same 'try'")
		}
		what := "'except' statement"
		if star {
			what = "'except*' statement"
		}
		if p.kind() != tkColon || star {
			h.Type = p.expression()
			if p.kind() == tkComma {
				p.errorAtPos(h.Type.Extent().Start, "multiple exception types must be parenthesized")
			}
			if p.got(tkAs) {
				h.Name = p.name()
			}
		}
		h.Body = p.colonBlock(what, hline)
		h.Span = p.blockSpan(hs, h.Body)
		s.Handlers = append(s.Handlers, h)
	}
	s.IsStar = sawStar
	if p.kind() == tkElse && len(s.Handlers) > 0 {
		s.OrElse = p.elseBlock()
	}
	if p.kind() == tkFinally {
		fline := p.tok().start.Line
		p.advance()
		p.expectForced(tkColon, ":")
		s.FinalBody = p.block("'finally' statement", fline)
	}
	if len(s.Handlers) == 0 && s.FinalBody == nil {
		p.lastError("SyntaxError", "expected 'except' or 'finally' block")
	}
	var lastHandler []Stmt
	if n := len(s.Handlers); n > 0 {
		lastHandler = s.Handlers[n-1].Body
	}
	s.Span = p.blockSpan(start, s.Body, lastHandler, s.OrElse, s.FinalBody)
	return s
}
