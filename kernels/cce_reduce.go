package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
)

// cce_reduce is out = sum_s scale_s * x[s] over `sources` slices of a
// stacked input x [sources, rows, cols], computed by one collective-compute
// DMA per 128-row tile: a DMACopy in CCE mode (NKI's nki.isa.dma_compute,
// semantics.md §4.2) whose sources are the tile of every slice and whose
// per-source scales are its `constants`:
//
//	for i in rows/128:
//	  for odd s: stage[s] = load x[s, i]                    (Load into SBUF)
//	  sum_tile = cce(sum_s scale_s * src_s)                 (DMACopy mode CCE, sources sources)
//	  store sum_tile to out[i]
//
// Sources alternate between DRAM and SBUF: even slices are read straight
// from DRAM, odd ones are staged through SBUF first, so the instruction
// mixes both memories (the DMA reads HBM and SBUF alike). The scales are
// (s mod 4 + 1)/4, exact binary fractions. With more sources than the
// machine's MaxCceDmaSource the instruction is illegal until
// legalize_cce_dma (seed 001) splits it into a chain of partial sums; any
// count from 2 to 40 is accepted so the split has work at every arch.
//
// Inputs: the kernel draws x from the multiples of 1/64 in [-1, 1). Every
// scaled term is then a multiple of 2^-8 and every partial sum of up to 40
// of them fits fp32's 24-bit significand exactly, so the sum is exact in
// any order and split: a split that regroups the additions must still
// give bit-identical outputs (for float32; narrower dtypes round the
// partial outputs the split introduces). The reference is bit-exact on
// such inputs and falls back to a summation bound on any others.
func init() {
	Register(&Kernel{
		Name: "cce_reduce",
		Doc:  "out = sum_s scale_s * x[s] by one CCE-mode DMACopy per tile with `sources` DRAM/SBUF sources (NKI dma_compute)",
		Params: []Param{
			{Name: "sources", Default: "4", Doc: "number of summed sources, 2..40"},
			{Name: "rows", Default: "256", Doc: "rows of each slice (multiple of 128)"},
			{Name: "cols", Default: "512", Doc: "columns of each slice"},
			{Name: "dtype", Default: "float32", Doc: "element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildCCEReduce,
		Inputs:    cceInputs,
		Reference: refCCEReduce,
		Tests:     []string{"sources=4,rows=128,cols=64", "sources=40,rows=256,cols=32", "sources=2,rows=128,cols=48,dtype=bfloat16"},
	})
}

type cceDims struct {
	S, rows, cols int64
	dt            bir.Dtype
}

func cceParams(p Params) (cceDims, error) {
	v, err := intParams(p, "sources", "rows", "cols")
	if err != nil {
		return cceDims{}, err
	}
	c := cceDims{S: v[0], rows: v[1], cols: v[2]}
	if c.dt, err = floatDtype(p); err != nil {
		return c, err
	}
	if err := inRange("sources", c.S, 2, 40); err != nil {
		return c, err
	}
	if err := multipleOf("rows", c.rows, pmax); err != nil {
		return c, err
	}
	if err := inRange("cols", c.cols, 1, 65536); err != nil {
		return c, err
	}
	return c, nil
}

// cceScale is the scale of source s.
func cceScale(s int64) float64 { return float64(s%4+1) / 4 }

func buildCCEReduce(p Params) (*bir.Module, error) {
	c, err := cceParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	tiles := c.rows / P
	staged := c.S / 2 // the odd sources
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", c.dt, c.S, c.rows, c.cols)
	out := b.Output("out", c.dt, c.rows, c.cols)
	st := b.BlockTensor("stage", bir.MemSB, c.dt, tiles*staged, P, c.cols)
	sum := b.BlockTensor("sum_tile", bir.MemSB, c.dt, tiles, P, c.cols)
	zero := affine.Const(0)
	tile := [][2]int64{{c.cols, P}, {1, c.cols}}
	scales := make([]float64, c.S)
	for s := range scales {
		scales[s] = cceScale(int64(s))
	}
	b.Loop("i", 0, tiles, 1, func(i affine.Expr) {
		srcs := make([]bir.Operand, c.S)
		for s := int64(0); s < c.S; s++ {
			off := affine.AddConst(affine.Scale(i, P*c.cols), s*c.rows*c.cols) // x[s, i*128]
			if s%2 == 0 {
				srcs[s] = x.Sym(zero, off, tile...)
				continue
			}
			blk := affine.AddConst(affine.Scale(i, staged), s/2)
			b.Load(fmt.Sprintf("stage_x%d", s), st.Sym(blk, zero, tile...), x.Sym(zero, off, tile...))
			srcs[s] = st.Sym(blk, zero, tile...)
		}
		b.CCECopy("cce_sum", sum.Sym(i, zero, tile...), srcs, scales)
		b.Save("store_out", out.Sym(zero, affine.Scale(i, P*c.cols), tile...), sum.Sym(i, zero, tile...))
	})
	return finish(b)
}

// cceInputs draws x from the multiples of 1/64 in [-1, 1), which makes
// every partial sum exact in fp32 (see the kernel comment).
func cceInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	out := map[string]*interp.Tensor{}
	for _, s := range interp.InputSpecs(m) {
		r := rng(seed, s.Name)
		out[s.Name] = fillFloats(s, func(int64) float64 { return float64(r.IntN(128)-64) / 64 })
	}
	return out
}
