// This file holds the parser's specialized error messages: where CPython's
// second parser pass (its invalid_* grammar rules) would name the problem
// instead of reporting "invalid syntax", the parser does the same checks
// at the point it fails.

package syntax

// simpleStmtEndError is called when a simple statement is not followed by
// ';' or NEWLINE.
func (p *parser) simpleStmtEndError(last Stmt) {
	p.syntaxError()
}
