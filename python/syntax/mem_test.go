// The allocation counters the benchmarks report per line.
package syntax

import "runtime"

// runtimeMem reads the allocation counters, for per-line allocation
// figures in benchmarks.
type runtimeMem struct{ bytes, allocs uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.bytes, m.allocs = ms.TotalAlloc, ms.Mallocs
}
