// This file holds the parser's specialized error messages: where CPython's
// second parser pass (its invalid_* grammar rules) would name the problem
// instead of reporting "invalid syntax", the parser does the same checks
// at the point it fails.
//
// Covered here and at the failing points of parser.go, expr.go,
// pattern.go and strings.go: juxtaposed expressions ("Perhaps you forgot
// a comma?", "Missing parentheses in call to 'print'"), '=' where '==' was
// meant (in conditions, displays and assignments to non-targets), invalid
// assignment, augmented-assignment, annotation, for, with, comprehension
// and del targets, argument order in calls and parameter lists, generator
// arguments, dict entries, starred expressions where they cannot be,
// "expected ':'" (at the end of a header line, or where CPython forces the
// token), "expected an indented block after ...", "expected 'except' or
// 'finally' block", the conditional expression without 'else', the
// import trailing comma, except* mixed with except, and the f-string
// errors. Locations follow CPython's: a node's start for errors about a
// node, the last token read for the others. Anything else is "invalid
// syntax" at the furthest token the parser looked at, as CPython's first
// pass reports it.

package syntax

// simpleStmtEndError is called when a simple statement is not followed by
// ';' or NEWLINE.
func (p *parser) simpleStmtEndError(last Stmt) {
	p.syntaxError()
}

// juxtaposed reports CPython's errors for an expression directly followed
// by the start of another one, when the current token is such a start and
// the last expression parsed ends just before it:
//
//   - `print x` and `exec x`: "Missing parentheses in call to 'print'. Did
//     you mean print(...)?" (its invalid_legacy_expression rule);
//   - inside brackets, `(a b)`: "invalid syntax. Perhaps you forgot a
//     comma?" (its invalid_expression rule), unless the first expression
//     starts with a soft keyword or is a name directly followed by a
//     string (a misspelled prefix).
//
// It returns normally when neither applies.
func (p *parser) juxtaposed() {
	a := p.lastExpr
	if a == nil || p.lastExprEnd != p.pos || !p.startsJuxtaposed() {
		return
	}
	start := p.lastExprStart
	if n, ok := a.(*Name); ok && (n.ID == "print" || n.ID == "exec") && p.toks[start].kind == tkName {
		if p.kind() != tkLpar && p.speculate(func() { p.starExpressions() }) {
			p.errorAtPos(a.Extent().Start, "Missing parentheses in call to '%s'. Did you mean %s(...)?", n.ID, n.ID)
		}
		return
	}
	switch a.(type) {
	case *Lambda, *IfExp:
		return
	}
	first := &p.toks[start]
	if first.kind == tkName {
		if p.toks[start+1].kind == tkString {
			return
		}
		switch p.text(first) {
		case "match", "case", "_":
			return
		}
	}
	save := p.pos
	var level int
	ok := p.speculate(func() {
		p.expression()
		level = int(p.toks[p.pos-1].level)
	})
	p.pos = save
	if ok && level > 0 {
		p.errorAtPos(a.Extent().Start, "invalid syntax. Perhaps you forgot a comma?")
	}
}

// startsJuxtaposed reports whether the current token starts an expression
// that cannot continue the previous one.
func (p *parser) startsJuxtaposed() bool {
	switch p.kind() {
	case tkName, tkNumber, tkString, tkLbrace, tkTilde, tkLambda, tkAwait, tkNone, tkTrue, tkFalse, tkEllipsis, tkNot:
		return true
	case tkLpar, tkLsqb:
		return false // a call or a subscript would have continued it
	}
	return false
}

// invalidTargetError reports CPython's invalid_for_target, invalid_del_stmt
// and invalid_with_item errors: when the targets starting at token start
// do not parse as targets, they are parsed as expressions and the first
// part that cannot be a target is named ("cannot assign to function
// call"). It returns normally when the expressions parse but are targets
// (the error is then a plain syntax error).
func (p *parser) invalidTargetError(start int, ctx ExprContext, forTargets bool, single bool) {
	save := p.pos
	var e Expr
	ok := p.speculate(func() {
		p.pos = start
		if single {
			e = p.expression()
		} else {
			e = p.starExpressions()
		}
	})
	p.pos = save
	if !ok {
		return
	}
	if bad := invalidTarget(e, ctx, forTargets); bad != nil {
		if ctx == Del {
			p.errorAtPos(bad.Extent().Start, "cannot delete %s", exprName(bad))
		}
		p.errorAtPos(bad.Extent().Start, "cannot assign to %s", exprName(bad))
	}
}

// namedExprEqualsError reports `if x = 1:` (a named expression followed
// by '='), as CPython's invalid_named_expression does.
func (p *parser) namedExprEqualsError(e Expr, start int) {
	eq := p.pos
	if !p.maybeMeantEquals(e, start, eq) {
		return
	}
	if _, ok := e.(*Name); ok && p.toks[start].kind == tkName {
		p.errorAtPos(e.Extent().Start, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?")
	}
	p.errorAtPos(e.Extent().Start, "cannot assign to %s here. Maybe you meant '==' instead of '='?", exprName(e))
}
