// Capacity management for bir/birjson's reader. A post-unroll module is
// millions of instructions; growing the function's tables by appending
// copies each table about five times over (Go grows large slices by 1.25x).
// The reader instead estimates the final sizes from the first instructions
// of a function, reserves them once (Function.Reserve, ReserveSyms), and
// trims any overshoot: a function's tables when it is complete (TrimTables),
// the module-wide symbol arena once the whole module is read (TrimSyms). So
// loading copies each table about once and the module keeps no spare
// capacity.
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
// operand tables when it exceeds an eighth of their length (after a
// reservation that overshot). It changes no id.
func (f *Function) TrimTables() {
	f.insts = trim(f.insts)
	f.operands = trim(f.operands)
}

// TrimSyms releases spare capacity of the module's symbol arena (the arena
// is shared by all functions, so a reader trims it once, at the end).
func (m *Module) TrimSyms() {
	m.syms.start = trim(m.syms.start)
	m.syms.data = trim(m.syms.data)
}

func trim[T any](s []T) []T {
	if cap(s)-len(s) <= len(s)/8 {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}
