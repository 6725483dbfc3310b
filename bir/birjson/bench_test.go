package birjson

import (
	"bytes"
	"io"
	"runtime"
	"sync"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// The 1M-instruction benchmarks run on bir.GenStraightLine (loads,
// tensor_tensor adds/multiplies and saves over 40 tensors; 2.5 physical
// access patterns per instruction). Run them with
//
//	go test ./bir/birjson -run '^$' -bench 1M -benchtime 5x
//
// They report MB/s (b.SetBytes), ns/inst, and for reading B/inst: the
// module's heap footprint after the read (runtime.MemStats.HeapAlloc after
// GC, minus the same before the read, divided by the instruction count).

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
	var m *bir.Module
	for range b.N {
		var err error
		if m, err = Decode(text, "bench.json"); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	n := float64(m.NumInsts())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
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
	for range b.N {
		if err := Write(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(m.NumInsts()), "ns/inst")
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
