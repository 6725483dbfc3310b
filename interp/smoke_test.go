package interp

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

func TestSmokeTensorAdd(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	const P, cols, tiles = 128, 64, 2
	x := b.Input("x", bir.Float32, P*tiles, cols)
	y := b.Input("y", bir.Float32, P*tiles, cols)
	z := b.Output("z", bir.Float32, P*tiles, cols)
	xt := b.BlockTensor("x_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	yt := b.BlockTensor("y_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	zt := b.BlockTensor("z_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	tile := [][2]int64{{cols, P}, {1, cols}}
	b.Loop("i", 0, tiles, 1, func(i affine.Expr) {
		dram := affine.Scale(i, P*cols)
		zero := affine.Const(0)
		b.Load("load_x", xt.Sym(i, zero, tile...), x.Sym(zero, dram, tile...))
		b.Load("load_y", yt.Sym(i, zero, tile...), y.Sym(zero, dram, tile...))
		b.TensorTensor("add", bir.EngDVE, "add", zt.Sym(i, zero, tile...), xt.Sym(i, zero, tile...), yt.Sym(i, zero, tile...))
		b.Save("store_z", z.Sym(zero, dram, tile...), zt.Sym(i, zero, tile...))
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	in := RandomInputs(m, 1)
	out, err := Run(m, in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < P*tiles*cols; k++ {
		a := math.Float32frombits(le32(in["x"].Data[4*k:]))
		c := math.Float32frombits(le32(in["y"].Data[4*k:]))
		r := math.Float32frombits(le32(out["z"].Data[4*k:]))
		if a+c != r {
			t.Fatalf("element %d: %g + %g = %g", k, a, c, r)
		}
	}
}

func le32(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24 }
