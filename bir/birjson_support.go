// Capacity management for bir/birjson's reader. A post-unroll module is
// millions of instructions; growing the function's tables by appending
// copies each table about five times over (Go grows large slices by 1.25x).
// The reader instead estimates the final sizes from the first instructions
// of a function, reserves them once (Function.Reserve, ReserveSyms), and
// trims any overshoot when the function is complete (TrimTables), so loading
// copies each table about once and the module holds no spare capacity.
package bir

import "slices"

// ReserveSyms grows the symbol arena to hold n more symbols totalling
// bytes more bytes without reallocation.
func (m *Module) ReserveSyms(n, bytes int) {
	if n > 0 {
		m.syms.start = slices.Grow(m.syms.start, n)
	}
	if bytes > 0 {
		m.syms.data = slices.Grow(m.syms.data, bytes)
	}
}

// TrimTables releases spare capacity of the function's instruction and
// operand tables and of the symbol arena when it exceeds an eighth of their
// length (after a reservation that overshot). It changes no id.
func (f *Function) TrimTables() {
	f.insts = trim(f.insts)
	f.operands = trim(f.operands)
	f.m.syms.start = trim(f.m.syms.start)
	f.m.syms.data = trim(f.m.syms.data)
}

func trim[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/8 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}
