package alloc_test

// Benchmarks of the memory planner on unrolled kernels, reported per
// instruction (wall and CPU time, bytes allocated). The size is
// 1,000,000 instructions unless NARWHAL_ALLOC_BENCH_INSTS says otherwise
// (the 5M and 25M figures: run under flock /work/.heavy.lock).
//
//	go test ./passes/alloc -run '^$' -bench Alloc -benchtime 3x
//	NARWHAL_ALLOC_BENCH_INSTS=5000000 go test ./passes/alloc -run '^$' -bench AllocPass_TensorAdd -benchtime 1x

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
)

func benchInsts(b *testing.B) int64 {
	if v := os.Getenv("NARWHAL_ALLOC_BENCH_INSTS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			b.Fatalf("NARWHAL_ALLOC_BENCH_INSTS=%q: want a positive integer", v)
		}
		return n
	}
	return 1_000_000
}

// unrolled builds spec and runs the default pipeline up to alloc.
func unrolled(b *testing.B, spec string) *bir.Module {
	b.Helper()
	m, err := kernels.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	prefix(b, m, 2, "alloc")
	return m
}

// benchAlloc times Allocate on m; the placements are undone between runs.
func benchAlloc(b *testing.B, m *bir.Module, opt alloc.Options) {
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	f := m.Main()
	var free []bir.LocID
	for l := 0; l < f.NumLocs(); l++ {
		if lc := f.Loc(bir.LocID(l)); !lc.Dead && lc.Type.IsOnChip() && !lc.Allocated {
			free = append(free, bir.LocID(l))
		}
	}
	insts := m.NumInsts()
	b.ReportAllocs()
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	t0 := time.Now()
	iters := 0
	var st alloc.Stats
	for b.Loop() {
		for _, l := range free {
			f.Loc(l).Allocated = false
		}
		if st, err = alloc.Allocate(m, model, opt); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	wall := time.Since(t0)
	c1, _ := cputime.Now()
	b.StopTimer()
	b.ReportMetric(float64(wall.Nanoseconds())/float64(iters)/float64(insts), "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(iters)/float64(insts), "cpu-ns/inst")
	}
	b.ReportMetric(float64(insts), "insts")
	b.ReportMetric(float64(st.Mem[0].Peak)/float64(max(st.Mem[0].MaxLive, 1)), "sb-peak/max-live")
}

// tensorAddSpec has n instructions after the unroll (4 per 128 x 8 tile).
func tensorAddSpec(n int64) string { return fmt.Sprintf("tensor_add:rows=%d,cols=8", n/4*128) }

func BenchmarkAllocPass_TensorAdd(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)))
	benchAlloc(b, m, alloc.Options{})
}

func BenchmarkAllocPass_TensorAddLinearScan(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)))
	benchAlloc(b, m, alloc.Options{Allocator: alloc.AllocLinearScan})
}
