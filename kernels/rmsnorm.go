package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// rmsnorm is out = a / sqrt(mean(a^2, axis=1) + eps) * g for a [rows, d]
// and a weight vector g [d], modelled on the NKI tutorial rmsnorm
// (nki_rmsnorm_kernel, and its ISA variant for the weight broadcast):
//
//	ones      = memset 1.0                          [1, 128]   (Memset)
//	g_sb      = load g                              [1, d]     (Load)
//	for c in d/chunk:                                           (chunk = min(d, 512))
//	  g_psum  = ones^T @ g_sb[:, c]                 [128, chunk] (Matmult, K = 1)
//	  g_bcast[:, c] = g_psum                                     (TensorCopy)
//	for i in rows/128:
//	  a_tile  = load a[i]                           [128, d]
//	  sq      = square(a_tile)                      (Activation Square, fp32)
//	  ss      = sum(sq, axis=free)                  (TensorReduce add)
//	  ms      = ss * (1/d) + eps                    (TensorScalar mult, add)
//	  rstd    = rsqrt(ms)                           (Activation Rsqrt)
//	  y       = a_tile * rstd                       (TensorScalarPtr mult)
//	  out_tile = y * g_bcast                        (TensorTensor mult)
//	  store out_tile to out[i]
//
// The weight is broadcast across partitions with a K=1 matmul against a
// ones vector (the NKI ISA tutorial's way: the Tensor engine is the only
// engine that moves data across partitions), once, before the row loop.
// eps defaults to 1e-6 (the tutorial has none; a row of zeros would divide
// by zero). Statistics and intermediates are fp32.
func init() {
	Register(&Kernel{
		Name: "rmsnorm",
		Doc:  "out = a * rsqrt(mean(a^2) + eps) * g, weight broadcast by a ones matmul (NKI rmsnorm)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (multiple of 128)"},
			{Name: "d", Default: "512", Doc: "hidden size (<= 512, or a multiple of 512)"},
			{Name: "eps", Default: "1e-6", Doc: "added to the mean square"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildRMSNorm,
		Reference: refRMSNorm,
		Tests:     []string{"rows=256,d=128", "rows=128,d=1024,dtype=bfloat16"},
	})
}

type rmsDims struct {
	rows, d, chunk int64
	eps            float64
	dt             bir.Dtype
}

// readEpsDtype reads the parameters rmsnorm and macro_rmsnorm share: eps
// (>= 0) and the float dtype.
func (r *rmsDims) readEpsDtype(p Params) error {
	var err error
	if r.eps, err = p.Float("eps"); err != nil {
		return err
	}
	if r.eps < 0 {
		return fmt.Errorf("eps=%g: want >= 0", r.eps)
	}
	r.dt, err = floatDtype(p)
	return err
}

func rmsnormParams(p Params) (rmsDims, error) {
	v, err := intParams(p, "rows", "d")
	if err != nil {
		return rmsDims{}, err
	}
	r := rmsDims{rows: v[0], d: v[1]}
	if err := r.readEpsDtype(p); err != nil {
		return r, err
	}
	if err := multipleOf("rows", r.rows, pmax); err != nil {
		return r, err
	}
	if err := inRange("d", r.d, 1, 65536); err != nil {
		return r, err
	}
	r.chunk = min(r.d, psumFmax)
	if r.d%r.chunk != 0 {
		return r, fmt.Errorf("d=%d: want at most %d or a multiple of %d (the weight broadcast works in PSUM-bank chunks)", r.d, psumFmax, psumFmax)
	}
	return r, nil
}

func buildRMSNorm(p Params) (*bir.Module, error) {
	r, err := rmsnormParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	tiles, chunks, D, C := r.rows/P, r.d/r.chunk, r.d, r.chunk
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	a := b.Input("a", r.dt, r.rows, D)
	g := b.Input("g", r.dt, D)
	out := b.Output("out", r.dt, r.rows, D)
	ones := b.SBUF("ones", r.dt, 1, P)
	gsb := b.SBUF("g_sb", r.dt, 1, D)
	gps := b.BlockTensor("g_psum", bir.MemPSUM, bir.Float32, chunks, P, C)
	gb := b.SBUF("g_bcast", bir.Float32, P, D)
	at := b.BlockTensor("a_tile", bir.MemSB, r.dt, tiles, P, D)
	sq := b.BlockTensor("sq_tile", bir.MemSB, bir.Float32, tiles, P, D)
	ss := b.BlockTensor("sum_sq", bir.MemSB, bir.Float32, tiles, P, 1)
	ms := b.BlockTensor("mean_sq", bir.MemSB, bir.Float32, tiles, P, 1)
	rs := b.BlockTensor("rstd", bir.MemSB, bir.Float32, tiles, P, 1)
	yt := b.BlockTensor("y_tile", bir.MemSB, bir.Float32, tiles, P, D)
	ot := b.BlockTensor("out_tile", bir.MemSB, r.dt, tiles, P, D)
	zero := affine.Const(0)

	b.Memset("ones", bir.EngDVE, ones.All(), 1)
	b.Load("load_g", gsb.All(), g.AP(0, [2]int64{D, 1}, [2]int64{1, D}))
	chunk := [][2]int64{{C, P}, {1, C}}
	b.Loop("c", 0, chunks, 1, func(c affine.Expr) {
		off := affine.Scale(c, C)
		b.Matmult("bcast_g", gps.Sym(c, zero, chunk...), ones.All(), gsb.Sym(zero, off, [2]int64{D, 1}, [2]int64{1, C}), true, true)
		b.TensorCopy("copy_g", bir.EngDVE, gb.Sym(zero, off, [2]int64{D, P}, [2]int64{1, C}), gps.Sym(c, zero, chunk...))
	})

	tile := [][2]int64{{D, P}, {1, D}}
	col := [][2]int64{{1, P}, {1, 1}}
	b.Loop("i", 0, tiles, 1, func(i affine.Expr) {
		dram := affine.Scale(i, P*D)
		b.Load("load_a", at.Sym(i, zero, tile...), a.Sym(zero, dram, tile...))
		b.Activation("square", "Square", sq.Sym(i, zero, tile...), at.Sym(i, zero, tile...), 1, bir.Operand{})
		b.TensorReduce("sum_sq", bir.EngDVE, "add", "X", ss.Sym(i, zero, col...), sq.Sym(i, zero, tile...))
		b.TensorScalar("mean_eps", bir.EngDVE, ms.Sym(i, zero, col...), ss.Sym(i, zero, col...), "mult", 1/float64(D), "add", r.eps)
		b.Activation("rsqrt", "Rsqrt", rs.Sym(i, zero, col...), ms.Sym(i, zero, col...), 1, bir.Operand{})
		b.TensorScalarPtr("scale_rows", bir.EngDVE, yt.Sym(i, zero, tile...), at.Sym(i, zero, tile...), rs.Sym(i, zero, col...), "mult", bir.Operand{}, "bypass")
		b.TensorTensor("mult_g", bir.EngDVE, "mult", ot.Sym(i, zero, tile...), yt.Sym(i, zero, tile...), gb.AP(0, tile...))
		b.Save("store_out", out.Sym(zero, dram, tile...), ot.Sym(i, zero, tile...))
	})
	return finish(b)
}
