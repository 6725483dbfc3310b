package bir

import (
	"runtime"
	"strconv"
	"testing"
)

// buildTT1M builds n TensorTensor instructions with three physical access
// patterns each through the public Builder API (the way kernels and tests
// build IR), with varied tile offsets and unique names.
func buildTT(n int) *Module {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	b.F.Reserve(n, 3*n)
	var tiles [8]T
	for k := range tiles {
		tiles[k] = b.SBUF("t"+strconv.Itoa(k), Float32, 128, 2048)
	}
	name := make([]byte, 0, 32)
	for i := 0; i < n; i++ {
		x, y, z := tiles[i%8], tiles[(i+3)%8], tiles[(i+5)%8]
		f0 := int64(i%4) * 512
		name = append(name[:0], "add_"...)
		name = strconv.AppendInt(name, int64(i), 10)
		b.TensorTensor(string(name), EngDVE, "add", z.Tile(0, 128, f0, 512), x.Tile(0, 128, f0, 512), y.Tile(0, 128, f0, 512))
	}
	if err := b.Err(); err != nil {
		panic(err)
	}
	return m
}

// BenchmarkBuild1M measures building a 1,000,000-instruction straight-line
// module with the Builder, and the module's in-memory size per instruction
// (three physical access patterns each; the target is <= 256 B).
func BenchmarkBuild1M(b *testing.B) {
	const n = 1_000_000
	var ms runtime.MemStats
	var bytesPerInst float64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		m := buildTT(n)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		bytesPerInst = float64(ms.HeapAlloc-before) / n
		runtime.KeepAlive(m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	b.ReportMetric(bytesPerInst, "B/inst")
}

func TestBuild_SizePerInstruction(t *testing.T) {
	// A structural bound, not a timing: 1e5 instructions with three
	// physical APs must stay within the 256 bytes per instruction
	// (tables, operands, names), measured as live heap.
	const n = 100_000
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	m := buildTT(n)
	m.Main().TrimTables()
	m.TrimSyms()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	per := float64(int64(ms.HeapAlloc)-int64(before)) / n
	runtime.KeepAlive(m)
	if per > 256 {
		t.Errorf("%.1f bytes per instruction with three physical APs, want <= 256", per)
	}
	t.Logf("%.1f bytes per instruction", per)
}
