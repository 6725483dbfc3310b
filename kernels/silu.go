package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// silu is y = x * sigmoid(x) = x / (1 + exp(-x)) over [rows, cols] fp32,
// in the structure of NKIBench's silu baseline kernel (AccelOpt
// NKIBench/kernels/silu_M4096_N7168_0.py; perf-anchors.md row 15, a
// calibration anchor of docs/cost-model.md: it settles the cost of
// reciprocal on Vector), written from that description (narwhal's own
// code): per [128, 1024] tile of x (one load, 4 KiB per partition), per
// half of 512 columns
//
//	e = exp(-x)           activation on Scalar (scale -1, a zero bias)
//	d = 1 + e             tensor_scalar
//	r = 1 / d             reciprocal
//	y = x * r             tensor_tensor on Vector
//
// then one store of the [128, 1024] result. The baseline leaves the
// engines of tensor_scalar and reciprocal to the compiler; its profile
// (Scalar 31.5 %, Vector 73.9 % of 1.333 ms) puts the tensor_scalar on
// Scalar and the reciprocal on Vector, and so does this kernel.
func init() {
	Register(&Kernel{
		Name: "silu",
		Doc:  "y = x * sigmoid(x), fp32, in the NKIBench silu baseline's structure (calibration anchor)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (multiple of 128)"},
			{Name: "cols", Default: "2048", Doc: "columns (multiple of 1024)"},
			archParam,
		},
		Build:     buildSilu,
		Reference: refSilu,
		Tests:     []string{"rows=128,cols=1024", "rows=256,cols=2048"},
	})
}

func siluParams(p Params) (rows, cols int64, err error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return 0, 0, err
	}
	if err := multipleOf("rows", v[0], pmax); err != nil {
		return 0, 0, err
	}
	if err := multipleOf("cols", v[1], 1024); err != nil {
		return 0, 0, err
	}
	return v[0], v[1], nil
}

func buildSilu(p Params) (*bir.Module, error) {
	rows, cols, err := siluParams(p)
	if err != nil {
		return nil, err
	}
	const P, W, H = pmax, 1024, 512
	dt := bir.Float32
	RT, CT := rows/P, cols/W
	n := RT * CT
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	y := b.Output("y", dt, rows, cols)
	xt := b.BlockTensor("x_tile", bir.MemSB, dt, n, P, W)
	yt := b.BlockTensor("y_tile", bir.MemSB, dt, n, P, W)
	et := b.BlockTensor("e", bir.MemSB, dt, 2*n, P, H)
	dT := b.BlockTensor("d", bir.MemSB, dt, 2*n, P, H)
	rt := b.BlockTensor("r", bir.MemSB, dt, 2*n, P, H)
	zeroBias := b.SBUF("zero_bias", dt, P, 1)
	zero := affine.Const(0)
	b.Memset("zero_bias", bir.EngDVE, zeroBias.All(), 0)
	b.Loop("r", 0, RT, 1, func(r affine.Expr) {
		b.Loop("c", 0, CT, 1, func(c affine.Expr) {
			it := affine.Add(affine.Scale(r, CT), c)
			dram := affine.Add(affine.Scale(r, P*cols), affine.Scale(c, W))
			b.Load("load_x", xt.Sym(it, zero, sbTile(W)...), x.Sym(zero, dram, [2]int64{cols, P}, [2]int64{1, W}))
			b.Loop("h", 0, 2, 1, func(h affine.Expr) {
				ih := affine.Add(affine.Scale(it, 2), h)
				half := func(t bir.T) bir.Operand { return t.Sym(it, affine.Scale(h, H), sbWindow(W, H)...) }
				b.Activation("exp_neg", "Exp", et.Sym(ih, zero, sbTile(H)...), half(xt), -1, zeroBias.All())
				b.Inst(bir.OpTensorScalar, "one_plus", bir.EngAct, []bir.Operand{et.Sym(ih, zero, sbTile(H)...)}, []bir.Operand{dT.Sym(ih, zero, sbTile(H)...)},
					bir.Attrs("op0", "add", "const0", bir.Float(1), "reverse0", true, "op1", "bypass", "const1", bir.Float(0), "reverse1", false))
				b.Inst(bir.OpReciprocal, "reciprocal", bir.EngDVE, []bir.Operand{dT.Sym(ih, zero, sbTile(H)...)}, []bir.Operand{rt.Sym(ih, zero, sbTile(H)...)}, nil)
				b.TensorTensor("multiply", bir.EngDVE, "mult", half(yt), half(xt), rt.Sym(ih, zero, sbTile(H)...))
			})
			b.Save("store_y", y.Sym(zero, dram, [2]int64{cols, P}, [2]int64{1, W}), yt.Sym(it, zero, sbTile(W)...))
		})
	})
	return finish(b)
}

// refSilu is silu's reference in float64: y = x / (1 + exp(-x)).
// Tolerance (relative): the kernel's fp32 steps round exp(-x), 1 + e, the
// reciprocal and the product once each (4u), plus 4u of slack for the
// implementations of exp and the reciprocal; the negation is exact.
func refSilu(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	rows, cols, err := siluParams(p)
	if err != nil {
		return nil, nil, err
	}
	x, err := refInput(in, "x", bir.Float32, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, len(x))
	for k, v := range x {
		out[k] = float64(v) / (1 + math.Exp(-float64(v)))
	}
	t, err := ref.FromFloats("y", bir.Float32, []int64{rows, cols}, out)
	if err != nil {
		return nil, nil, err
	}
	return map[string]*interp.Tensor{"y": t}, map[string]ref.Tolerance{"y": outTol(bir.Float32, 0, 8*u32, "four fp32 roundings and four u of slack for exp and the reciprocal")}, nil
}
