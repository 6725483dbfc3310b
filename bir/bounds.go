// Table bounds and raw dependency records: the sizes of the intern and
// function tables, to range-check an id before dereferencing it, and an
// allocation-free, corruption-tolerant view of dependency lists. Readers
// of possibly malformed IR (the verifier, which must not panic) never
// index a table with an id they have not checked; these give the bounds.
package bir

// NumExprs returns the number of interned affine expressions.
func (m *Module) NumExprs() int { return len(m.exprs) }

// NumPreds returns the number of interned predicates.
func (m *Module) NumPreds() int { return len(m.preds) }

// NumSyms returns the number of symbols in the arena (valid Syms are
// 0..NumSyms()-1).
func (m *Module) NumSyms() int { return len(m.syms.start) }

// NumUnknownOpcodes returns the number of module-local unknown opcodes
// (valid ones are FirstUnknownOpcode .. FirstUnknownOpcode+n-1).
func (m *Module) NumUnknownOpcodes() int { return len(m.unknownOps) }

// NumLoops returns the size of the function's loop table.
func (f *Function) NumLoops() int { return len(f.loops) }

// NumOperandSlots returns the size of the function's operand table.
func (f *Function) NumOperandSlots() int { return len(f.operands) }

// NumDepRecords returns the size of the dependency table (dead records
// included).
func (f *Function) NumDepRecords() int { return len(f.deps) }

// DepRecord returns dependency record k and the index of the next record of
// the same list (-1 at the end). ok is false when k is out of range. Walk an
// instruction's list from Instruction.Deps:
//
//	for k := f.Inst(i).Deps; k >= 0; {
//		d, next, ok := f.DepRecord(k)
//		...
//		k = next
//	}
func (f *Function) DepRecord(k int32) (d Dep, next int32, ok bool) {
	if k < 0 || int(k) >= len(f.deps) {
		return Dep{}, -1, false
	}
	d = f.deps[k]
	return d, d.next, true
}
