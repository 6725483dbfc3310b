package unroll

import (
	"runtime"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// scaleModule builds an elementwise kernel that unrolls to about n
// instructions: z = x + y over [8192 x 512] fp32 DRAM tensors in 128-row
// tiles, a loop nest i x j (j over the 4 blocks of rotating SBUF tile
// buffers) around load x, load y, add, store, with the DRAM tile index
// (4i + j) mod 64 and dependencies add -> loads, store -> add. Every
// instruction has symbolic access patterns, so the unroller does its full
// per-clone work (folding, repointing through the grid, dependency remap).
func scaleModule(n int) *bir.Module {
	const (
		P, C, tiles, nb = 128, 512, 64, 4
	)
	ni := int64(max(n/(4*nb), 1))
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, P*tiles, C)
	y := b.Input("y", bir.Float32, P*tiles, C)
	z := b.Output("z", bir.Float32, P*tiles, C)
	xt := b.BlockTensor("x_tile", bir.MemSB, bir.Float32, nb, P, C)
	yt := b.BlockTensor("y_tile", bir.MemSB, bir.Float32, nb, P, C)
	zt := b.BlockTensor("z_tile", bir.MemSB, bir.Float32, nb, P, C)
	tile := [][2]int64{{C, P}, {1, C}}
	b.Loop("i", 0, ni, 1, func(i affine.Expr) {
		b.Loop("j", 0, nb, 1, func(j affine.Expr) {
			t := affine.Mod(affine.Add(affine.Scale(i, nb), j), tiles)
			dram := affine.Scale(t, P*C)
			zero := affine.Const(0)
			lx := b.Load("load_x", xt.Sym(j, zero, tile...), x.Sym(zero, dram, tile...))
			ly := b.Load("load_y", yt.Sym(j, zero, tile...), y.Sym(zero, dram, tile...))
			add := b.TensorTensor("add", bir.EngDVE, "add", zt.Sym(j, zero, tile...), xt.Sym(j, zero, tile...), yt.Sym(j, zero, tile...))
			st := b.Save("store_z", z.Sym(zero, dram, tile...), zt.Sym(j, zero, tile...))
			b.F.AddDep(add, bir.Dep{On: lx, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
			b.F.AddDep(add, bir.Dep{On: ly, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
			b.F.AddDep(st, bir.Dep{On: add, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
		})
	})
	if err := b.Err(); err != nil {
		panic(err)
	}
	return m
}

func benchScale(b *testing.B, n int, run func(m *bir.Module) error) {
	b.ReportAllocs()
	var insts int64
	var heap uint64
	for k := 0; k < b.N; k++ {
		b.StopTimer()
		m := scaleModule(n)
		runtime.GC()
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		b.StartTimer()
		if err := run(m); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		insts = m.NumInsts()
		runtime.GC()
		runtime.ReadMemStats(&ms1)
		heap = ms1.HeapAlloc - ms0.HeapAlloc
		runtime.KeepAlive(m)
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(insts), "insts")
	b.ReportMetric(float64(insts)/sec, "insts/s")
	b.ReportMetric(sec*1e9/float64(insts), "ns/inst")
	b.ReportMetric(float64(heap)/float64(insts), "live-B/inst")
}

func unrollAll(m *bir.Module) error {
	_, err := Unroll(m, UnrollOptions{MaxInstructionLimit: 30_000_000})
	return err
}

func fullUnroll2(m *bir.Module) error {
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	return err
}

// Scale benchmarks (opt-in: go test -run=NONE -bench=Scale ./passes/unroll
// -benchtime=1x). Each unrolls the same kernel to 1M, 5M and 25M
// instructions with Unroll (dependencies remapped) and with FullUnroll
// level 2 (dependencies erased, dce before and after).
func BenchmarkUnroll_Scale1M(b *testing.B)      { benchScale(b, 1_000_000, unrollAll) }
func BenchmarkUnroll_Scale5M(b *testing.B)      { benchScale(b, 5_000_000, unrollAll) }
func BenchmarkUnroll_Scale25M(b *testing.B)     { benchScale(b, 24_999_936, unrollAll) }
func BenchmarkFullUnroll_Scale1M(b *testing.B)  { benchScale(b, 1_000_000, fullUnroll2) }
func BenchmarkFullUnroll_Scale5M(b *testing.B)  { benchScale(b, 5_000_000, fullUnroll2) }
func BenchmarkFullUnroll_Scale25M(b *testing.B) { benchScale(b, 24_999_936, fullUnroll2) }

// BenchmarkUnroll_Small is the per-clone cost on a small module (default
// benchmark runs).
func BenchmarkUnroll_Small(b *testing.B) { benchScale(b, 10_000, unrollAll) }
