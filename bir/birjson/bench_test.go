package birjson

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
)

// The 1M-instruction benchmarks run on bir.GenStraightLine (loads,
// tensor_tensor adds/multiplies and saves over 40 tensors; 2.5 physical
// access patterns per instruction). Run them with
//
//	go test ./bir/birjson -run '^$' -bench 1M -benchtime 5x
//
// They report MB/s (b.SetBytes) and ns/inst of wall time, cpu-ns/inst and
// cpu-MB/s of process CPU time (garbage collection included; on a shared
// machine wall time also counts waiting for a core), and for reading B/inst:
// the module's heap footprint after the read (runtime.MemStats.HeapAlloc
// after GC, minus the same before the read, divided by the instruction
// count).

const benchN = 1_000_000

var (
	benchOnce sync.Once
	benchMod  *bir.Module
	benchText []byte
)

func benchInput(b *testing.B) (*bir.Module, []byte) {
	benchOnce.Do(func() {
		benchMod = bir.GenStraightLine(benchN)
		var err error
		if benchText, err = Encode(benchMod); err != nil {
			panic(err)
		}
	})
	return benchMod, benchText
}

func BenchmarkRead1M(b *testing.B) {
	_, text := benchInput(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	var m *bir.Module
	for range b.N {
		var err error
		if m, err = Decode(text, "bench.json"); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cputime.Now()
	b.StopTimer()
	n := float64(m.NumInsts())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	reportCPU(b, c1-c0, cpuOK, n, len(text))
	m = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ = Decode(text, "bench.json")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/n, "B/inst")
	runtime.KeepAlive(m)
}

func BenchmarkWrite1M(b *testing.B) {
	m, text := benchInput(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	for range b.N {
		if err := Write(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cputime.Now()
	b.StopTimer()
	n := float64(m.NumInsts())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
	reportCPU(b, c1-c0, cpuOK, n, len(text))
}

func reportCPU(b *testing.B, cpu time.Duration, ok bool, n float64, size int) {
	if !ok {
		return
	}
	per := float64(cpu.Nanoseconds()) / float64(b.N)
	b.ReportMetric(per/n, "cpu-ns/inst")
	b.ReportMetric(float64(size)/per*1e3, "cpu-MB/s")
}

func BenchmarkEncode1M(b *testing.B) {
	m, text := benchInput(b)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		out, err := Encode(m)
		if err != nil || !bytes.Equal(out[:16], text[:16]) {
			b.Fatal(err)
		}
	}
}

// genAdds is the worst case of the memory target: n tensor_tensor
// instructions, each with three physical access patterns.
func genAdds(n int) *bir.Module {
	m := bir.NewModule("gen3")
	b := bir.NewBuilder(m, "main")
	var tiles [24]bir.T
	for k := range tiles {
		tiles[k] = b.SBUF("sb_"+strconv.Itoa(k), bir.Float32, 128, 512)
	}
	f := b.F
	f.Reserve(n, 3*n)
	attrs := m.InternAttrs(bir.Attrs("op", "add", "acc", "Idle"))
	whole := m.InternPattern(bir.Pattern{{Step: 512, Num: 128}, {Step: 1, Num: 512}})
	half := m.InternPattern(bir.Pattern{{Step: 512, Num: 128}, {Step: 1, Num: 256}})
	var name []byte
	var ops [3]bir.Operand
	for i := 0; i < n; i++ {
		pat, off := whole, int64(0)
		if i%3 == 1 {
			pat, off = half, int64(256*(i%2))
		}
		for k := range ops {
			ops[k] = bir.PhysAP(tiles[(i+7*k)%len(tiles)].Loc, bir.Float32, off, pat)
		}
		name = strconv.AppendInt(append(name[:0], "add_"...), int64(i), 10)
		id := f.NewInstSym(bir.OpTensorTensor, m.NewSymBytes(name), bir.EngDVE, ops[:2], ops[2:], attrs)
		f.Append(b.Block(), id)
	}
	return m
}

var (
	addsOnce sync.Once
	addsText []byte
)

// BenchmarkRead1M3AP reads 1M instructions of three physical APs each (the
// memory target's case): see B/inst.
func BenchmarkRead1M3AP(b *testing.B) {
	addsOnce.Do(func() {
		var err error
		if addsText, err = Encode(genAdds(benchN)); err != nil {
			panic(err)
		}
	})
	b.SetBytes(int64(len(addsText)))
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	var m *bir.Module
	for range b.N {
		var err error
		if m, err = Decode(addsText, "adds.json"); err != nil {
			b.Fatal(err)
		}
	}
	c1, _ := cputime.Now()
	b.StopTimer()
	n := float64(m.NumInsts())
	reportCPU(b, c1-c0, cpuOK, n, len(addsText))
	m = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ = Decode(addsText, "adds.json")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/n, "B/inst")
	runtime.KeepAlive(m)
}
