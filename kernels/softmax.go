package kernels

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// softmax is the row-wise softmax out[r,:] = exp(x[r,:] - max) / sum, the
// numerically stable form of the NKI fused-softmax example, tiled over
// 128-row tiles (rows on partitions, the whole row in the free dimension):
//
//	for i in rows/128:
//	  x_tile   = load x[i]                               (Load)
//	  neg_max  = -max(x_tile, axis=free)                 (TensorReduce max, negate)
//	  e        = exp(x_tile + neg_max)                   (Activation Exp, per-partition bias)
//	  s        = sum(e, axis=free)                       (TensorReduce add)
//	  r        = 1 / s                                   (Activation Reciprocal)
//	  out_tile = e * r                                   (TensorScalarPtr mult)
//	  store out_tile to out[i]                           (Save)
//
// The subtraction of the row maximum is the activation's bias (NKI's
// nisa.activation(exp, x, bias=neg_max)); the division is a reciprocal
// and a per-partition multiply, as the tutorial does it. Intermediates
// (e, the statistics) are fp32 whatever the I/O dtype, as NKI keeps them,
// so only the final cast sees the I/O precision. All tiles are block
// tensors with one block per row tile. The reciprocal row_rcp is declared
// OnChip ("placement open"): infer_psum_tensor places the Activation
// result in PSUM by the seed's rule.
func init() {
	Register(&Kernel{
		Name: "softmax",
		Doc:  "row-wise softmax: max, exp(x - max) via activation bias, sum, reciprocal, multiply (NKI fused softmax)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (multiple of 128)"},
			{Name: "cols", Default: "512", Doc: "row length (softmax axis)"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildSoftmax,
		Reference: refSoftmax,
		Tests:     []string{"rows=256,cols=128", "rows=128,cols=200,dtype=bfloat16"},
	})
}

func softmaxParams(p Params) (rows, cols int64, dt bir.Dtype, err error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return 0, 0, 0, err
	}
	rows, cols = v[0], v[1]
	if dt, err = floatDtype(p); err != nil {
		return 0, 0, 0, err
	}
	if err = multipleOf("rows", rows, pmax); err != nil {
		return 0, 0, 0, err
	}
	// 64K elements per partition is the SBUF free-size limit (hardware.md).
	if err = inRange("cols", cols, 1, 65536); err != nil {
		return 0, 0, 0, err
	}
	return rows, cols, dt, nil
}

func buildSoftmax(p Params) (*bir.Module, error) {
	rows, cols, dt, err := softmaxParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	tiles := rows / P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	out := b.Output("out", dt, rows, cols)
	xt := b.BlockTensor("x_tile", bir.MemSB, dt, tiles, P, cols)
	negMax := b.BlockTensor("neg_max", bir.MemSB, bir.Float32, tiles, P, 1)
	et := b.BlockTensor("exp_tile", bir.MemSB, bir.Float32, tiles, P, cols)
	sum := b.BlockTensor("row_sum", bir.MemSB, bir.Float32, tiles, P, 1)
	rcp := b.BlockTensor("row_rcp", bir.MemOnChip, bir.Float32, tiles, P, 1)
	ot := b.BlockTensor("out_tile", bir.MemSB, dt, tiles, P, cols)
	zero := affine.Const(0)
	tile := [][2]int64{{cols, P}, {1, cols}}
	col := [][2]int64{{1, P}, {1, 1}}
	b.Loop("i", 0, tiles, 1, func(i affine.Expr) {
		dram := affine.Scale(i, P*cols)
		b.Load("load_x", xt.Sym(i, zero, tile...), x.Sym(zero, dram, tile...))
		b.Inst(bir.OpTensorReduce, "row_max", bir.EngDVE,
			[]bir.Operand{xt.Sym(i, zero, tile...)}, []bir.Operand{negMax.Sym(i, zero, col...)},
			bir.Attrs("op", "max", "axis", "X", "negate", true))
		b.Activation("exp", "Exp", et.Sym(i, zero, tile...), xt.Sym(i, zero, tile...), 1, negMax.Sym(i, zero, col...))
		b.TensorReduce("row_sum", bir.EngDVE, "add", "X", sum.Sym(i, zero, col...), et.Sym(i, zero, tile...))
		b.Activation("reciprocal", "Reciprocal", rcp.Sym(i, zero, col...), sum.Sym(i, zero, col...), 1, bir.Operand{})
		b.TensorScalarPtr("normalize", bir.EngDVE, ot.Sym(i, zero, tile...), et.Sym(i, zero, tile...),
			rcp.Sym(i, zero, col...), "mult", bir.Operand{}, "bypass")
		b.Save("store_out", out.Sym(zero, dram, tile...), ot.Sym(i, zero, tile...))
	})
	return finish(b)
}
