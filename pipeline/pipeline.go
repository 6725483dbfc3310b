// Package pipeline holds narwhal's pass table: the single source of truth
// for which passes exist, their order, the seeds' execution-order numbers,
// gates, options, and what each requires and produces (cmd/compile's
// passes list and passOrder constraints, in one place).
package pipeline

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/pass"
)

// Table is the pass table.
var Table = pass.Table{
	Passes:      []pass.Pass{},
	Constraints: []pass.Constraint{},
}

func init() {
	if err := Table.Check(); err != nil {
		panic(fmt.Sprintf("pipeline: %v", err))
	}
}
