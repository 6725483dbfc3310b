package interp

// Benchmarks on small matmul and softmax modules built with bir.Builder
// (the kernel library has fuller ones; these keep the interpreter's own
// benchmarks independent of it). Each reports elements per second:
//
//	BenchmarkInterp_Matmul   MAC/s (multiply-accumulates) and out-elem/s
//	BenchmarkInterp_Softmax  elem/s (input elements through the 8-instruction softmax tile)
//	BenchmarkInterp_SmallInstructions  ns/inst on 16-element tiles: the per-instruction
//	                         overhead that dominates post-unroll modules

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// matmulModule is C[M, N] = A[K, M]^T @ B[K, N] for K = 128*kt, accumulated
// over kt K-tiles in one PSUM bank group, N in 512-column tiles.
func matmulModule(K, M, N int64) *bir.Module {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	const P, NT = 128, 512
	kt, nt := K/P, N/NT
	a := b.Input("a", bir.Float32, K, M)
	bb := b.Input("b", bir.Float32, K, N)
	c := b.Output("c", bir.Float32, M, N)
	as := b.BlockTensor("a_sb", bir.MemSB, bir.Float32, kt, P, M)
	bs := b.BlockTensor("b_sb", bir.MemSB, bir.Float32, kt, P, N)
	ps := b.PSUM("c_ps", bir.Float32, M, NT)
	cs := b.SBUF("c_sb", bir.Float32, M, NT)
	zero := affine.Const(0)
	b.Loop("k", 0, kt, 1, func(k affine.Expr) {
		b.Load("ld_a", as.Sym(k, zero, [2]int64{M, P}, [2]int64{1, M}), a.Sym(zero, affine.Scale(k, P*M), [2]int64{M, P}, [2]int64{1, M}))
		b.Load("ld_b", bs.Sym(k, zero, [2]int64{N, P}, [2]int64{1, N}), bb.Sym(zero, affine.Scale(k, P*N), [2]int64{N, P}, [2]int64{1, N}))
	})
	b.Loop("n", 0, nt, 1, func(n affine.Expr) {
		b.Loop("kk", 0, kt, 1, func(k affine.Expr) {
			id := b.Inst(bir.OpMatmult, "mm", bir.EngPE,
				[]bir.Operand{as.Sym(k, zero, [2]int64{M, P}, [2]int64{1, M}), bs.Sym(k, affine.Scale(n, NT), [2]int64{N, P}, [2]int64{1, NT})},
				[]bir.Operand{ps.All()}, nil)
			b.F.SetAttrs(id, bir.Attrs("start_tensor_calc", false, "stop_tensor_calc", false))
			// start on the first K tile, stop on the last (predicates).
			st := b.F.Clone(id, m.NewSym("mm_start"))
			b.F.SetAttrs(st, bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", kt == 1))
			b.F.InsertBefore(id, st)
			b.F.SetPred(st, affine.EQ(k, zero))
			b.F.SetPred(id, affine.GE(k, affine.Const(1)))
			if kt > 1 {
				b.F.SetAttrs(id, bir.Attrs("start_tensor_calc", false, "stop_tensor_calc", false))
			}
		})
		b.TensorCopy("evac", bir.EngDVE, cs.All(), ps.All())
		b.Save("st", c.Sym(zero, affine.Scale(n, NT), [2]int64{N, M}, [2]int64{1, NT}), cs.All())
	})
	return m
}

// softmaxModule is a row softmax of x [rows, D] in 128-row tiles: max,
// subtract, exp with the accumulator sum, reciprocal, scale.
func softmaxModule(rows, D int64) *bir.Module {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	const P = 128
	x := b.Input("x", bir.Float32, rows, D)
	y := b.Output("y", bir.Float32, rows, D)
	a := b.SBUF("a", bir.Float32, P, D)
	e := b.SBUF("e", bir.Float32, P, D)
	mx := b.SBUF("mx", bir.Float32, P, 1)
	sm := b.SBUF("sm", bir.Float32, P, 1)
	rc := b.SBUF("rc", bir.Float32, P, 1)
	zero := affine.Const(0)
	tile := [][2]int64{{D, P}, {1, D}}
	b.Loop("i", 0, rows/P, 1, func(i affine.Expr) {
		b.Load("ld", a.All(), x.Sym(zero, affine.Scale(i, P*D), tile...))
		b.TensorReduce("max", bir.EngDVE, "max", "X", mx.All(), a.All())
		b.TensorScalarPtr("sub", bir.EngDVE, e.All(), a.All(), mx.All(), "subtract", bir.Operand{}, "bypass")
		id := b.Activation("exp", "Exp", e.All(), e.All(), 1, bir.Operand{})
		b.F.SetAttr(id, "acc", bir.String("ZeroAccumulate"))
		b.Inst(bir.OpReadActivationAccumulator, "sum", bir.EngAct, nil, []bir.Operand{sm.All()}, nil)
		b.Inst(bir.OpReciprocal, "rcp", bir.EngDVE, []bir.Operand{sm.All()}, []bir.Operand{rc.All()}, nil)
		b.TensorScalarPtr("scale", bir.EngDVE, e.All(), e.All(), rc.All(), "mult", bir.Operand{}, "bypass")
		b.Save("st", y.Sym(zero, affine.Scale(i, P*D), tile...), e.All())
	})
	return m
}

func TestBenchModules_Correct(t *testing.T) {
	const K, M, N = 256, 64, 1024
	m := matmulModule(K, M, N)
	in := RandomInputs(m, 3)
	out := mustRun(t, m, in, Options{})
	av, bv, cv := values(in["a"]), values(in["b"]), values(out["c"])
	for _, mn := range [][2]int{{0, 0}, {5, 700}, {M - 1, N - 1}, {31, 512}} {
		i, j := mn[0], mn[1]
		var want float64
		for k := range K {
			want += av[k*M+i] * bv[k*N+j]
		}
		if math.Abs(cv[i*N+j]-want) > 1e-4 {
			t.Errorf("c[%d,%d] = %v, want %v", i, j, cv[i*N+j], want)
		}
	}
	s := softmaxModule(256, 96)
	in = RandomInputs(s, 4)
	out = mustRun(t, s, in, Options{})
	xv, yv := values(in["x"]), values(out["y"])
	for r := 0; r < 256; r += 37 {
		mx := math.Inf(-1)
		for c := range 96 {
			mx = math.Max(mx, xv[r*96+c])
		}
		var sum float64
		for c := range 96 {
			sum += math.Exp(xv[r*96+c] - mx)
		}
		for c := range 96 {
			want := math.Exp(xv[r*96+c]-mx) / sum
			if math.Abs(yv[r*96+c]-want) > 1e-6 {
				t.Fatalf("softmax[%d,%d] = %v, want %v", r, c, yv[r*96+c], want)
			}
		}
	}
}

func BenchmarkInterp_Matmul(b *testing.B) {
	const K, M, N = 512, 128, 1024
	m := matmulModule(K, M, N)
	in := RandomInputs(m, 1)
	b.ResetTimer()
	for range b.N {
		if _, err := Run(m, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(K*M*N)*float64(b.N)/s, "MAC/s")
	b.ReportMetric(float64(M*N)*float64(b.N)/s, "out-elem/s")
}

func BenchmarkInterp_Softmax(b *testing.B) {
	const rows, D = 1024, 512
	m := softmaxModule(rows, D)
	in := RandomInputs(m, 1)
	b.ResetTimer()
	for range b.N {
		if _, err := Run(m, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*D)*float64(b.N)/b.Elapsed().Seconds(), "elem/s")
}

func BenchmarkInterp_SmallInstructions(b *testing.B) {
	const n = 10000
	m := bir.NewModule("trn2")
	bb := bir.NewBuilder(m, "main")
	x := bb.Input("x", bir.Float32, 2, 8)
	z := bb.Output("z", bir.Float32, 2, 8)
	a := bb.SBUF("a", bir.Float32, 2, 8)
	bb.Load("ld", a.All(), x.All())
	for range n {
		bb.TensorTensor("", bir.EngDVE, "add", a.All(), a.All(), a.All())
	}
	bb.Save("st", z.All(), a.All())
	in := RandomInputs(m, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(m, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(n+2)), "ns/inst")
}

// TestRun_NoPerInstructionAllocation checks that executing an instruction
// allocates nothing once the scratch buffers have grown: the allocations of
// a run with 1000 copies of an instruction exceed those of a run with 100
// copies by less than one per 100 instructions. (An allocation count, not
// a time: deterministic, so it can be a test.)
// allocFix is the tiles of TestRun_NoPerInstructionAllocation's module.
type allocFix struct{ a, s, p, x, it, addr bir.T }

func TestRun_NoPerInstructionAllocation(t *testing.T) {
	iotaPat := bir.Attrs("pattern", bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(1)}, bir.Field{Key: "num", Val: bir.Int(8)})))
	kinds := map[string]func(b *bir.Builder, f allocFix){
		"Activation": func(b *bir.Builder, f allocFix) { b.Activation("", "Exp", f.a.All(), f.a.All(), 1, f.s.All()) },
		"TensorScalarPtr": func(b *bir.Builder, f allocFix) {
			b.TensorScalarPtr("", bir.EngDVE, f.a.All(), f.a.All(), f.s.All(), "mult", f.s.All(), "add")
		},
		"TensorScalar": func(b *bir.Builder, f allocFix) {
			b.TensorScalar("", bir.EngDVE, f.a.All(), f.a.All(), "mult", 2, "add", 1)
		},
		"TensorTensor": func(b *bir.Builder, f allocFix) {
			b.TensorTensor("", bir.EngDVE, "add", f.a.All(), f.a.All(), f.a.All())
		},
		"TensorReduce": func(b *bir.Builder, f allocFix) { b.TensorReduce("", bir.EngDVE, "max", "X", f.s.All(), f.a.All()) },
		"TensorCopy":   func(b *bir.Builder, f allocFix) { b.TensorCopy("", bir.EngAct, f.p.Tile(0, 4, 0, 8), f.a.All()) },
		"Matmult":      func(b *bir.Builder, f allocFix) { b.Matmult("", f.p.All(), f.a.All(), f.a.All(), true, true) },
		"Memset":       func(b *bir.Builder, f allocFix) { b.Memset("", bir.EngDVE, f.s.All(), 1) },
		"Iota": func(b *bir.Builder, f allocFix) {
			b.Inst(bir.OpIota, "", bir.EngPool, nil, []bir.Operand{f.a.All()}, iotaPat)
		},
		"Load": func(b *bir.Builder, f allocFix) { b.Load("", f.a.All(), f.x.All()) },
		"CCE": func(b *bir.Builder, f allocFix) {
			b.Inst(bir.OpDMACopy, "", bir.EngUnassigned, []bir.Operand{f.a.All(), f.a.All()}, []bir.Operand{f.a.All()}, bir.Attrs("mode", "CCE"))
		},
		"GenericIndirectLoad": func(b *bir.Builder, f allocFix) {
			b.Inst(bir.OpGenericIndirectLoad, "", bir.EngUnassigned, []bir.Operand{f.x.AP(0, [2]int64{8, 4}, [2]int64{1, 8}), f.it.All()},
				[]bir.Operand{f.a.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
		},
		"ReadVarAddr": func(b *bir.Builder, f allocFix) {
			b.Inst(bir.OpReadVarAddr, "", bir.EngUnassigned, []bir.Operand{f.x.All()}, []bir.Operand{f.addr.All()}, nil)
		},
		"Loop with a symbolic AP": func(b *bir.Builder, f allocFix) {
			b.Loop("i", 0, 1, 1, func(i affine.Expr) {
				b.Load("", f.a.Sym(affine.Const(0), affine.Scale(i, 8), [2]int64{8, 4}, [2]int64{1, 8}), f.x.All())
			})
		},
	}
	build := func(t *testing.T, n int, add func(b *bir.Builder, f allocFix)) *bir.Module {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 4, 8)
		z := b.Output("z", bir.Float32, 4, 8)
		a := b.SBUF("a", bir.Float32, 4, 8)
		s := b.SBUF("s", bir.Float32, 4, 1)
		p := b.PSUM("p", bir.Float32, 8, 8)
		it := b.SBUF("it", bir.Int32, 4, 1)
		addr := b.SBUF("addr", bir.Int64, 4, 1)
		b.Load("ld", a.All(), x.All())
		b.Memset("ms", bir.EngDVE, s.All(), 0.5)
		b.Memset("ms_idx", bir.EngDVE, it.All(), 1)
		for range n {
			add(b, allocFix{a: a, s: s, p: p, x: x, it: it, addr: addr})
		}
		b.Save("st", z.All(), a.All())
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	allocs := func(m *bir.Module) float64 {
		in := RandomInputs(m, 1)
		return testing.AllocsPerRun(3, func() {
			if _, err := Run(m, in, Options{AllowUninitReads: true}); err != nil {
				t.Fatal(err)
			}
		})
	}
	for name, add := range kinds {
		small, large := allocs(build(t, 100, add)), allocs(build(t, 1000, add))
		if large-small >= 9 {
			t.Errorf("%s: %v allocations for 100 instructions, %v for 1000: executing an instruction allocates", name, small, large)
		}
	}
}
