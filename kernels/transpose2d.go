package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// transpose2d is out[c, r] = x[r, c] for x [rows, cols], in 128x128 tiles,
// after the NKI tutorial transpose2d and nki.isa.nc_transpose. Two
// lowerings, chosen by the mode parameter:
//
//	mode=pe  (default)                    mode=dma
//	for i in rows/128:                    for i in rows/128:
//	  for j in cols/128:                    for j in cols/128:
//	    x_tile = load x[i, j]                 t_tile = load x[i, j]^T      (partition-strided DRAM read)
//	    t_psum = transpose(x_tile)  (PE)      store t_tile to out[j, i]
//	    t_tile = copy(t_psum)
//	    store t_tile to out[j, i]
//
// The PE form is the fast path on the Tensor engine (SBUF -> PSUM, the
// dtype kept, semantics.md §4.8). The DMA form reads each tile transposed
// straight from DRAM: partition p of the SBUF tile takes column p of the
// DRAM tile (partition step 1) and walks its rows with step cols, the
// partition-strided Load that legalize_strided_dma (seed 001) rewrites
// into a contiguous DMA plus an on-chip TensorCopy. Both are pure data
// movement, so the outputs are bit-exact. The PE mode needs a float dtype
// of at most 4 bytes (the Tensor engine's inputs); the DMA mode moves any
// dtype.
func init() {
	Register(&Kernel{
		Name: "transpose2d",
		Doc:  "out = x^T in 128x128 tiles, by PE Transpose (mode=pe) or a partition-strided DMA load (mode=dma) (NKI transpose2d)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows of x (multiple of 128)"},
			{Name: "cols", Default: "384", Doc: "columns of x (multiple of 128)"},
			{Name: "mode", Default: "pe", Doc: "pe (Tensor-engine transpose) or dma (strided DMA load)"},
			{Name: "dtype", Default: "float32", Doc: "element type (pe: float32, bfloat16, float16; dma: any)"},
			archParam,
		},
		Build:     buildTranspose2D,
		Reference: refTranspose2D,
		Tests:     []string{"", "mode=dma,rows=128,cols=256,dtype=int16", "mode=dma,dtype=bfloat16"},
	})
}

func transposeParams(p Params) (rows, cols int64, dma bool, dt bir.Dtype, err error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return 0, 0, false, 0, err
	}
	rows, cols = v[0], v[1]
	if err = multipleOf("rows", rows, pmax); err != nil {
		return
	}
	if err = multipleOf("cols", cols, pmax); err != nil {
		return
	}
	switch p.Str("mode") {
	case "pe":
		dt, err = floatDtype(p)
		if err != nil {
			err = fmt.Errorf("%w (mode=pe; mode=dma moves any dtype)", err)
		}
	case "dma":
		dma = true
		dt, err = anyDtype(p)
	default:
		err = fmt.Errorf("mode=%q: want pe or dma", p.Str("mode"))
	}
	return
}

func buildTranspose2D(p Params) (*bir.Module, error) {
	rows, cols, dma, dt, err := transposeParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	RT, CT := rows/P, cols/P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	out := b.Output("out", dt, cols, rows)
	tt := b.BlockTensor("t_tile", bir.MemSB, dt, RT*CT, P, P)
	var xt, tp bir.T
	if !dma {
		xt = b.BlockTensor("x_tile", bir.MemSB, dt, RT*CT, P, P)
		tp = b.BlockTensor("t_psum", bir.MemPSUM, dt, RT*CT, P, P)
	}
	zero := affine.Const(0)
	tile := [][2]int64{{P, P}, {1, P}}
	b.Loop("i", 0, RT, 1, func(i affine.Expr) {
		b.Loop("j", 0, CT, 1, func(j affine.Expr) {
			blk := affine.Add(affine.Scale(i, CT), j)
			src := affine.Add(affine.Scale(i, P*cols), affine.Scale(j, P)) // x[i*128, j*128]
			dst := affine.Add(affine.Scale(j, P*rows), affine.Scale(i, P)) // out[j*128, i*128]
			if dma {
				// Partition p <- column p of the tile; free walks its rows.
				b.Load("load_transposed", tt.Sym(blk, zero, tile...), x.Sym(zero, src, [2]int64{1, P}, [2]int64{cols, P}))
			} else {
				b.Load("load_x", xt.Sym(blk, zero, tile...), x.Sym(zero, src, [2]int64{cols, P}, [2]int64{1, P}))
				b.Transpose("transpose", bir.EngPE, tp.Sym(blk, zero, tile...), xt.Sym(blk, zero, tile...))
				b.TensorCopy("copy_psum", bir.EngDVE, tt.Sym(blk, zero, tile...), tp.Sym(blk, zero, tile...))
			}
			b.Save("store_out", out.Sym(zero, dst, [2]int64{rows, P}, [2]int64{1, P}), tt.Sym(blk, zero, tile...))
		})
	})
	return finish(b)
}
