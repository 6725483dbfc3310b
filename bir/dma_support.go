// Support for the DMA legalization passes (package passes/dma), which add
// a fresh tensor and memory location per rewritten instruction (a strided
// load's SBUF tile, a CCE split's partial outputs, an indirect lowering's
// address tensors) to functions of up to millions of instructions: up-front
// reservation of the tensor and location tables and of their name tables,
// so that adding them copies each table about once instead of growing it
// step by step (Function.Reserve and Module.ReserveSyms do the same for
// instructions, operands and names).
//
// Also FuncsMainFirst, the seeds' BackendPass function order the DMA passes
// and the unrollers share.
//
// Additive: nothing here changes existing behaviour.
package bir

import (
	"maps"
	"slices"
)

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
		if locs >= reserveMapMin {
			m := make(map[string]LocID, len(f.locByName)+locs)
			maps.Copy(m, f.locByName)
			f.locByName = m
		}
	}
}

// FuncsMainFirst returns the module's functions in the seeds' BackendPass
// visiting order: the entry (Main) first, then the others in module
// order. The DMA passes and the unrollers walk functions in this order.
func (m *Module) FuncsMainFirst() []*Function {
	main := m.Main()
	out := make([]*Function, 0, len(m.Funcs))
	if main != nil {
		out = append(out, main)
	}
	for _, f := range m.Funcs {
		if f != main {
			out = append(out, f)
		}
	}
	return out
}
