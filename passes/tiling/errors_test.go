package tiling_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/verify"
)

const f32 = bir.Float32

// chain builds x -> xs (Load) -> op -> ys -> y (Save) over [rows x cols],
// with op a TensorScalar on engine eng.
func chain(rows, cols int64, eng bir.Engine) (*bir.Builder, bir.T, bir.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", f32, rows, cols)
	y := b.Output("y", f32, rows, cols)
	xs := b.SBUF("xs", f32, rows, cols)
	ys := b.SBUF("ys", f32, rows, cols)
	b.Load("ld", xs.All(), x.All())
	b.TensorScalar("op", eng, ys.All(), xs.All(), "mult", 2, "bypass", 0)
	b.Save("st", y.All(), ys.All())
	return b, xs, ys
}

// TestSundaSizeTiling_Errors: inputs the tiler cannot tile get one error
// naming the instruction and what is wanted; the module verifies before
// (the verifier accepts macro operations) and the pass fails cleanly.
func TestSundaSizeTiling_Errors(t *testing.T) {
	tests := []struct {
		name  string
		opt   func(o *tiling.Options)
		build func() *bir.Builder
		want  string
	}{
		{name: "partial access of a macro tensor", want: "instruction half (TensorCopy): source 0: access pattern", build: func() *bir.Builder {
			b, xs, ys := chain(256, 64, bir.EngDVE)
			b.TensorCopy("half", bir.EngDVE, ys.Tile(0, 128, 0, 64), xs.Tile(0, 128, 0, 64))
			return b
		}},
		{name: "macro operation in a loop", want: "inside loop loop_i", build: func() *bir.Builder {
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			xs := b.SBUF("xs", f32, 256, 64)
			b.Loop("i", 0, 2, 1, func(i affine.Expr) {
				b.Memset("fill", bir.EngDVE, xs.All(), 1)
			})
			return b
		}},
		{name: "no macro form", want: "instruction io (Iota): no macro form", build: func() *bir.Builder {
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			xs := b.SBUF("xs", bir.Int32, 256, 64)
			b.Iota("io", xs.All(), 0, 1, [2]int64{1, 64})
			return b
		}},
		{name: "reduction row wider than the budget", opt: func(o *tiling.Options) { o.MaxComputationTileSizeInBytes = 256 },
			want: "needs whole rows of 200 elements, but max_computation_tile_size_in_bytes bounds the free tile to 32", build: func() *bir.Builder {
				b, _, ys := chain(256, 200, bir.EngDVE)
				col := b.SBUF("col", f32, 256, 1)
				b.TensorReduce("sum", bir.EngDVE, "add", "X", col.All(), ys.All())
				return b
			}},
		{name: "predicate", want: "a predicate on a macro operation", build: func() *bir.Builder {
			b, _, _ := chain(256, 64, bir.EngDVE)
			op, _ := b.F.InstByName("op")
			b.F.SetPred(op, affine.Pred{False: true})
			return b
		}},
		{name: "explicit dependency", want: "an explicit dependency (on ld)", build: func() *bir.Builder {
			b, _, _ := chain(256, 64, bir.EngDVE)
			op, _ := b.F.InstByName("op")
			ld, _ := b.F.InstByName("ld")
			b.F.AddDep(op, bir.Dep{On: ld, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
			return b
		}},
		{name: "read before written", want: "reads tensor zs_set before any macro operation writes it", build: func() *bir.Builder {
			b, _, ys := chain(256, 64, bir.EngDVE)
			zs := b.SBUF("zs", f32, 256, 64)
			b.TensorTensor("use", bir.EngDVE, "add", ys.All(), ys.All(), zs.All())
			b.Memset("late", bir.EngDVE, zs.All(), 0)
			return b
		}},
		{name: "broadcast row written by a macro operation", want: "instruction cp (TensorCopy): tensor g_set is read through a partition broadcast and accessed whole by a macro operation", build: func() *bir.Builder {
			// The row is wider than one access (66,000 > 65,535 elements), so
			// the copy that writes it is a macro operation too.
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			i8 := bir.Int8
			src := b.SBUF("src", i8, 1, 66000)
			g := b.SBUF("g", i8, 1, 66000)
			ys := b.SBUF("ys", i8, 256, 66000)
			b.Memset("fill", bir.EngDVE, src.All(), 1)
			b.TensorCopy("cp", bir.EngDVE, g.All(), src.All())
			b.Memset("fill_y", bir.EngDVE, ys.All(), 2)
			b.TensorTensor("mul", bir.EngDVE, "mult", ys.All(), ys.All(), g.AP(0, [2]int64{0, 256}, [2]int64{1, 66000}))
			return b
		}},
		{name: "broadcast row computed on chip, replication off", opt: func(o *tiling.Options) { o.EnableSoftwareReplication = false },
			want: "broadcast row g_set cannot be re-loaded per tile", build: func() *bir.Builder {
				b, _, ys := chain(256, 64, bir.EngDVE)
				g := b.SBUF("g", f32, 1, 64)
				b.Memset("g_fill", bir.EngDVE, g.All(), 3)
				b.TensorTensor("mul", bir.EngDVE, "mult", ys.All(), ys.All(), g.AP(0, [2]int64{0, 256}, [2]int64{1, 64}))
				return b
			}},
		{name: "matmul without stop", want: "want start_tensor_calc and stop_tensor_calc both true", build: func() *bir.Builder {
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			st := b.SBUF("st", f32, 256, 128)
			mv := b.SBUF("mv", f32, 256, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Memset("f1", bir.EngDVE, st.All(), 1)
			b.Memset("f2", bir.EngDVE, mv.All(), 1)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, false)
			return b
		}},
		{name: "group reads a DRAM tensor it writes", want: "reads DRAM tensor d_set that its tiling group", build: func() *bir.Builder {
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			d := b.DRAM("d", f32, 256, 64)
			xs := b.SBUF("xs", f32, 256, 64)
			b.Memset("fill", bir.EngDVE, xs.All(), 1)
			b.Save("st", d.All(), xs.All())
			b.Load("ld", xs.All(), d.All())
			return b
		}},
		{name: "partition tile above pmax", opt: func(o *tiling.Options) { o.PartitionMaxElts = 200 }, want: "partition_max_elts = 200: want 1..128", build: func() *bir.Builder {
			b, _, _ := chain(256, 64, bir.EngDVE)
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.build()
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			m := b.M
			if err := verify.Module(m, verify.Options{}); err != nil {
				t.Fatalf("the input does not verify (stage none): %v", err)
			}
			model, _ := arch.Lookup("trn2")
			opt := tiling.Defaults(model)
			if tc.opt != nil {
				tc.opt(&opt)
			}
			_, err := tiling.SundaSizeTiling(m, model, opt)
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
