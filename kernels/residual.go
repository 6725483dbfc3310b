package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// residual is a residual block in miniature, out = x + (2x + y)^2, tiled
// over 128-row tiles, written to exercise the memory planner: per tile the
// input x is read first (a = 2x) and last (out = x + d), so it stays live
// across the middle of the block, where three more full tiles are live
// (a, y and c = a + y). Four tiles are live at once in every order of the
// instructions (each step needs its operands and x), and only three once
// x leaves SBUF for the middle: with cols = 16384 fp32 (64 KiB per
// partition per tile) four tiles are 256 KiB against trn2's 208 KiB of
// usable SBUF, so the kernel compiles only with a spill (MaxLiveSpiller
// saves x to HBM after a = 2x and reloads it for the last add), while
// cols = 12800 fills 96% of the budget and fits.
//
//	for t in rows/128:
//	  x_t = load x[t]                  (dtype)
//	  a   = x_t * 2                    (fp32, Vector)
//	  y_t = load y[t]                  (dtype)
//	  c   = a + y_t                    (fp32)
//	  d   = c * c                      (fp32)
//	  o   = x_t + d                    (dtype)
//	  store o to out[t]
//
// Intermediates are fp32 whatever the I/O dtype, as NKI keeps them; each
// step is one fp32 operation, so the reference is bit-exact.
func init() {
	Register(&Kernel{
		Name: "residual",
		Doc:  "out = x + (2x + y)^2 per 128-row tile: x stays live across three full tiles (the planner's spill and near-budget workload)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (multiple of 128)"},
			{Name: "cols", Default: "2048", Doc: "columns (cols=16384 fp32 needs a spill on trn2; 12800 fills 96% of it)"},
			{Name: "dtype", Default: "float32", Doc: "element type of x, y and out (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildResidual,
		Reference: refResidual,
		Tests:     []string{"rows=256,cols=64", "rows=128,cols=48,dtype=bfloat16"},
	})
}

func buildResidual(p Params) (*bir.Module, error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return nil, err
	}
	rows, cols := v[0], v[1]
	dt, err := floatDtype(p)
	if err != nil {
		return nil, err
	}
	if err := multipleOf("rows", rows, pmax); err != nil {
		return nil, err
	}
	if cols <= 0 {
		return nil, fmt.Errorf("cols=%d: want a positive number", cols)
	}
	const P = pmax
	tiles := rows / P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	y := b.Input("y", dt, rows, cols)
	out := b.Output("out", dt, rows, cols)
	xt := b.BlockTensor("x_tile", bir.MemSB, dt, tiles, P, cols)
	yt := b.BlockTensor("y_tile", bir.MemSB, dt, tiles, P, cols)
	at := b.BlockTensor("a_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	ct := b.BlockTensor("c_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	dtl := b.BlockTensor("d_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	ot := b.BlockTensor("o_tile", bir.MemSB, dt, tiles, P, cols)
	tile := [][2]int64{{cols, P}, {1, cols}}
	zero := affine.Const(0)
	b.Loop("t", 0, tiles, 1, func(t affine.Expr) {
		dram := affine.Scale(t, P*cols)
		sb := func(x bir.T) bir.Operand { return x.Sym(t, zero, tile...) }
		b.Load("load_x", sb(xt), x.Sym(zero, dram, tile...))
		b.TensorScalar("double", bir.EngDVE, sb(at), sb(xt), "mult", 2, "bypass", 0)
		b.Load("load_y", sb(yt), y.Sym(zero, dram, tile...))
		b.TensorTensor("add_y", bir.EngDVE, "add", sb(ct), sb(at), sb(yt))
		b.TensorTensor("square", bir.EngDVE, "mult", sb(dtl), sb(ct), sb(ct))
		b.TensorTensor("residual", bir.EngDVE, "add", sb(ot), sb(xt), sb(dtl))
		b.Save("store_out", out.Sym(zero, dram, tile...), sb(ot))
	})
	return finish(b)
}
