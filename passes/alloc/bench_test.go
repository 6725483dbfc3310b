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
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pack"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
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

// unrolled builds spec and runs the default pipeline up to pass stop (not
// included), without the verifier: the inputs are built-in kernels.
func unrolled(b *testing.B, spec, stop string) *bir.Module {
	b.Helper()
	m, err := kernels.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before(stop), NoVerify: true}); err != nil {
		b.Fatal(err)
	}
	return m
}

// benchAlloc times Allocate on m; the placements are undone between runs.
func benchAlloc(b *testing.B, m *bir.Module, opt alloc.Options) {
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	benchRun(b, m, func() (alloc.Stats, error) { return alloc.Allocate(m, model, opt) })
}

// benchRun times run on m (which allocates its on-chip locations); the
// placements are undone between runs.
func benchRun(b *testing.B, m *bir.Module, run func() (alloc.Stats, error)) {
	var err error
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
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	for b.Loop() {
		for _, l := range free {
			f.Loc(l).Allocated = false
		}
		if st, err = run(); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	wall := time.Since(t0)
	c1, _ := cputime.Now()
	runtime.ReadMemStats(&ms1)
	b.StopTimer()
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(iters)/float64(insts), "alloc-B/inst")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(iters)/float64(insts), "ns/inst")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(iters)/float64(insts), "cpu-ns/inst")
	}
	b.ReportMetric(float64(insts), "insts")
	b.ReportMetric(float64(st.Mem[0].MaxLive), "sb-max-live")
}

// tensorAddSpec has n instructions after the unroll (4 per 128 x 8 tile).
func tensorAddSpec(n int64) string { return fmt.Sprintf("tensor_add:rows=%d,cols=8", n/4*128) }

// defaultOptions are the alloc pass's defaults (reuse spread, the
// linear-scan baseline for the report).
var defaultOptions = alloc.Options{Reuse: pack.ReuseSpread, Baseline: true}

func BenchmarkAllocPass_TensorAdd(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "alloc")
	benchAlloc(b, m, defaultOptions)
}

// BenchmarkAllocPass_TensorAddCompact: the compact placement alone (reuse
// oldest-freed, no baseline).
func BenchmarkAllocPass_TensorAddCompact(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "alloc")
	benchAlloc(b, m, alloc.Options{Reuse: pack.ReuseOldestFreed})
}

func BenchmarkAllocPass_TensorAddLinearScan(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "alloc")
	benchAlloc(b, m, alloc.Options{Allocator: alloc.AllocLinearScan})
}

// matmulSpec has about n instructions after the unroll: per 128 x 512
// output tile two K steps (two loads and a matmul each), the PSUM copy and
// the store (8 instructions), tiles on a square-ish grid.
func matmulSpec(n int64) string {
	tiles := max(n/8, 1)
	mt := int64(1)
	for mt*mt < tiles {
		mt++
	}
	nt := (tiles + mt - 1) / mt
	return fmt.Sprintf("matmul:m=%d,k=256,n=%d", 128*mt, 512*nt)
}

func BenchmarkAllocPass_Matmul(b *testing.B) {
	m := unrolled(b, matmulSpec(benchInsts(b)), "alloc")
	benchAlloc(b, m, defaultOptions)
}

// BenchmarkVerify_BeforeAlloc and BenchmarkVerify_Allocated time the
// verifier on the same unrolled kernel before allocation and after it at
// stage allocated: the difference is the cost of the allocation rules
// (placement checks and the overlap rule's walk and sweep).
func BenchmarkVerify_BeforeAlloc(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "alloc")
	benchVerify(b, m, verify.StageSBLegal|verify.StageUnrolled)
}

func BenchmarkVerify_Allocated(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "alloc")
	model, err := arch.ForModule(m)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := alloc.Allocate(m, model, alloc.Options{Reuse: pack.ReuseSpread}); err != nil {
		b.Fatal(err)
	}
	benchVerify(b, m, verify.StageSBLegal|verify.StageUnrolled|verify.StageAllocated)
}

func benchVerify(b *testing.B, m *bir.Module, stage verify.Stage) {
	insts := m.NumInsts()
	b.ResetTimer()
	c0, cpuOK := cputime.Now()
	iters := 0
	for b.Loop() {
		if err := verify.Module(m, verify.Options{Stage: stage}); err != nil {
			b.Fatal(err)
		}
		iters++
	}
	c1, _ := cputime.Now()
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/float64(iters)/float64(insts), "cpu-ns/inst")
	}
}

// BenchmarkMemoryPlanner_TensorAdd times the planner's three passes as the
// default pipeline runs them (infer_psum_tensor, pre_schedule, alloc with
// its default options), without the verifier: the allocation
// benchmark (5M instructions; goal 25M in 15 s on 2 cores).
func BenchmarkMemoryPlanner_TensorAdd(b *testing.B) {
	m := unrolled(b, tensorAddSpec(benchInsts(b)), "infer_psum_tensor")
	benchRun(b, m, func() (alloc.Stats, error) {
		_, err := pipeline.Table.Run(m, pass.Config{Passes: plannerPasses, NoVerify: true})
		return alloc.Stats{}, err
	})
}

func BenchmarkMemoryPlanner_Matmul(b *testing.B) {
	m := unrolled(b, matmulSpec(benchInsts(b)), "infer_psum_tensor")
	benchRun(b, m, func() (alloc.Stats, error) {
		_, err := pipeline.Table.Run(m, pass.Config{Passes: plannerPasses, NoVerify: true})
		return alloc.Stats{}, err
	})
}

// BenchmarkAllocPass_Partitions127 is the alloc pass (its defaults, as
// narwhal compile runs it) on tensor_add on a machine of 127 partitions
// (issue 27 item 7: the pieces the footprint passes cut for 127
// partitions made pack's exact search spend its whole node budget in
// rounds too short to amortize their set-up; 35.7 s for 256
// instructions). Sub-benchmarks at about 10k, 100k and 1M instructions
// after the cut (which splits each 128-partition tile into 16 pieces of
// 8 partitions) report ns/inst, which is flat when the pass is linear.
func BenchmarkAllocPass_Partitions127(b *testing.B) {
	for _, n := range []int64{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			m, err := kernels.Build(tensorAddSpec(n / 16))
			if err != nil {
				b.Fatal(err)
			}
			m.Config.Options["arch.partitions"] = "127"
			if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("alloc"), NoVerify: true}); err != nil {
				b.Fatal(err)
			}
			benchRun(b, m, func() (alloc.Stats, error) {
				_, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"alloc"}, NoVerify: true})
				return alloc.Stats{}, err
			})
		})
	}
}
