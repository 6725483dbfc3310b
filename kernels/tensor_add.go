package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// tensor_add is the embedded default kernel, modelled on the NKI tutorial
// tensor_addition (aws-neuron/nki-samples): z = x + y for [rows x cols]
// DRAM tensors, tiled over 128-row tiles. Each iteration of the loop over
// row tiles loads one tile of x and of y into SBUF (block tensors: one SBUF
// block per iteration, as the NKI allocator gives a tile inside a loop),
// adds them on the Vector engine and stores the sum.
//
// order=staged writes the same computation as three loops (load every
// tile, then add every pair, then store every sum), the phase-by-phase
// order a naive kernel has: every tile is live at once in that order, and
// the memory planner's pre-schedule interleaves the phases again when they
// do not fit (e.g. rows=2048,cols=4096: 48 tiles of 16 KiB against 208
// KiB of SBUF).
func init() {
	Register(&Kernel{
		Name: "tensor_add",
		Doc:  "z = x + y, tiled over 128-row tiles through SBUF (NKI tensor_addition)",
		Params: []Param{
			{Name: "rows", Default: "512", Doc: "rows (multiple of 128)"},
			{Name: "cols", Default: "2048", Doc: "columns"},
			{Name: "dtype", Default: "float32", Doc: "element type"},
			{Name: "order", Default: "tiled", Doc: "tiled (load, add, store per tile) or staged (all loads, then all adds, then all stores)"},
			archParam,
		},
		Build:     buildTensorAdd,
		Reference: refTensorAdd,
		Tests:     []string{"rows=256,cols=512", "rows=128,cols=96,dtype=bfloat16", "rows=512,cols=64,order=staged"},
	})
}

func buildTensorAdd(p Params) (*bir.Module, error) {
	rows, err := p.Int("rows")
	if err != nil {
		return nil, err
	}
	cols, err := p.Int("cols")
	if err != nil {
		return nil, err
	}
	dt, err := anyDtype(p)
	if err != nil {
		return nil, err
	}
	if rows <= 0 || rows%128 != 0 {
		return nil, fmt.Errorf("rows=%d: want a positive multiple of 128", rows)
	}
	if cols <= 0 {
		return nil, fmt.Errorf("cols=%d: want a positive number", cols)
	}
	const P = 128
	tiles := rows / P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	y := b.Input("y", dt, rows, cols)
	z := b.Output("z", dt, rows, cols)
	xt := b.BlockTensor("x_tile", bir.MemSB, dt, tiles, P, cols)
	yt := b.BlockTensor("y_tile", bir.MemSB, dt, tiles, P, cols)
	zt := b.BlockTensor("z_tile", bir.MemSB, dt, tiles, P, cols)
	tile := [][2]int64{{cols, P}, {1, cols}}
	zero := affine.Const(0)
	load := func(i affine.Expr) {
		dram := affine.Scale(i, P*cols) // element offset of row tile i
		b.Load("load_x", xt.Sym(i, zero, tile...), x.Sym(zero, dram, tile...))
		b.Load("load_y", yt.Sym(i, zero, tile...), y.Sym(zero, dram, tile...))
	}
	add := func(i affine.Expr) {
		b.TensorTensor("add", bir.EngDVE, "add", zt.Sym(i, zero, tile...), xt.Sym(i, zero, tile...), yt.Sym(i, zero, tile...))
	}
	store := func(i affine.Expr) {
		b.Save("store_z", z.Sym(zero, affine.Scale(i, P*cols), tile...), zt.Sym(i, zero, tile...))
	}
	switch p.Str("order") {
	case "tiled":
		b.Loop("i", 0, tiles, 1, func(i affine.Expr) { load(i); add(i); store(i) })
	case "staged":
		b.Loop("i", 0, tiles, 1, load)
		b.Loop("j", 0, tiles, 1, add)
		b.Loop("k", 0, tiles, 1, store)
	default:
		return nil, fmt.Errorf("order=%s: want tiled or staged", p.Str("order"))
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
