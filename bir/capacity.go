// Table capacity: reserving room in a function's and a module's tables
// before adding many entries, and trimming what a reservation overshot. A
// post-unroll module is millions of instructions; growing a table by
// appending copies it about five times over (Go grows large slices by
// 1.25x). So the BIR-JSON reader estimates the final sizes from the first
// instructions of a function, reserves them once (Function.Reserve,
// ReserveSyms) and trims any overshoot (TrimTables, TrimSyms once the whole
// module is read); the unrollers reserve the dependency table
// (ReserveDeps); passes that add a tensor and location per rewritten
// instruction reserve those tables and their name tables
// (ReserveTensors). Each table is then copied about once.
package bir

import (
	"maps"
	"slices"
)

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

// reserveMapMin is the smallest growth for which ReserveTensors re-creates
// a name table with room for it (re-creating costs a copy of the table).
const reserveMapMin = 256

// ReserveTensors grows the tensor and location tables, and their name
// tables, to hold at least tensors more tensors and locs more locations
// without reallocation.
func (f *Function) ReserveTensors(tensors, locs int) {
	if tensors > 0 {
		f.tensors = slices.Grow(f.tensors, tensors)
		if tensors >= reserveMapMin {
			m := make(map[string]TensorID, len(f.tensorByName)+tensors)
			maps.Copy(m, f.tensorByName)
			f.tensorByName = m
		}
	}
	if locs > 0 {
		f.locs = slices.Grow(f.locs, locs)
		// nil: not built (AddLocSeries). The table is re-created only when
		// it would outgrow the room an earlier call made, and then with at
		// least twice that room, so that a reader reserving per tensor
		// (one call per allocation) copies it O(log n) times, not per call.
		if need := len(f.locByName) + locs; locs >= reserveMapMin && f.locByName != nil && need > f.locMapRoom {
			room := max(need, 2*f.locMapRoom)
			m := make(map[string]LocID, room)
			maps.Copy(m, f.locByName)
			f.locByName, f.locMapRoom = m, room
		}
	}
}

// ReserveDeps grows the dependency table to hold n more records without
// reallocation.
func (f *Function) ReserveDeps(n int) {
	if n > 0 {
		f.deps = slices.Grow(f.deps, n)
	}
}
