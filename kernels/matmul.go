package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// matmul is result[M,N] = lhsT[K,M]^T @ rhs[K,N], modelled on the NKI
// tutorial matrix_multiplication (nki_matmul_tiled_): the stationary
// operand arrives transposed (K on partitions, as the Tensor engine wants
// the contraction axis), M is tiled by 128 (gemm_stationary_fmax), N by
// tile_n (at most 512, one PSUM bank of fp32) and K by 128 (pmax).
//
//	for m in M/128:
//	  for n in N/tile_n:
//	    for k in K/128:
//	      load lhsT[k, m] and rhs[k, n] tiles into SBUF
//	      res_psum += matmul(lhsT tile, rhs tile)   # start when k == 0, stop when k == K/128-1
//	    res_sb = copy(res_psum)                      # PSUM fp32 -> SBUF in the output dtype
//	    store res_sb to result[m, n]
//
// The accumulation flags depend on the iteration, so the K loop holds up to
// three Matmult instructions with affine predicates: "matmul_first"
// (start_tensor_calc, k == 0), "matmul" (neither flag, 1 <= k <= KT-2) and
// "matmul_last" (stop_tensor_calc, k == KT-1); with a single K tile one
// Matmult carries both flags. This is how a front end expresses NKI's
// `res_psum += nl.matmul(...)` inside an affine_range without peeling, and
// it gives the unroller predicates to fold.
//
// res_psum is declared OnChip (placement open): the compiler decides
// that a Tensor-engine result lives in PSUM (infer_psum_tensor).
//
// Tiles allocated inside a loop are block tensors with one block per
// iteration of the enclosing loops (lhsT_tile and rhs_tile: MT*NT*KT
// blocks; res_psum and res_sb: MT*NT blocks), as the NKI allocator sees
// them before the footprint passes shrink them.
func init() {
	Register(&Kernel{
		Name: "matmul",
		Doc:  "result = lhsT^T @ rhs, K accumulated in PSUM, M/N/K tiled (NKI matrix_multiplication)",
		Params: []Param{
			{Name: "m", Default: "256", Doc: "rows of the result (multiple of 128)"},
			{Name: "k", Default: "256", Doc: "contraction size (multiple of 128)"},
			{Name: "n", Default: "512", Doc: "columns of the result (multiple of tile_n)"},
			{Name: "tile_n", Default: "512", Doc: "N tile, 1..512 (one PSUM bank of fp32)"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			{Name: "dynamic", Default: "0", Doc: "1: the M loop is a DynamicForLoop (NKI's dynamic_range), which FullUnroll's default level keeps"},
			archParam,
		},
		Build:     buildMatmul,
		Reference: refMatmul,
		Tests:     []string{"m=256,k=384,n=256,tile_n=128", "m=128,k=128,n=64,tile_n=64,dtype=bfloat16", "m=128,k=256,n=128,tile_n=128,dtype=float16"},
	})
}

type matmulDims struct {
	M, K, N, TN int64
	dt          bir.Dtype
}

func matmulParams(p Params) (matmulDims, error) {
	v, err := intParams(p, "m", "k", "n", "tile_n")
	if err != nil {
		return matmulDims{}, err
	}
	d := matmulDims{M: v[0], K: v[1], N: v[2], TN: v[3]}
	if d.dt, err = floatDtype(p); err != nil {
		return d, err
	}
	if err := multipleOf("m", d.M, pmax); err != nil {
		return d, err
	}
	if err := multipleOf("k", d.K, pmax); err != nil {
		return d, err
	}
	if err := inRange("tile_n", d.TN, 1, min(psumFmax, movingFmax)); err != nil {
		return d, err
	}
	if err := multipleOf("n", d.N, d.TN); err != nil {
		return d, fmt.Errorf("%w (tile_n)", err)
	}
	return d, nil
}

func buildMatmul(p Params) (*bir.Module, error) {
	d, err := matmulParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	MT, KT, NT := d.M/P, d.K/P, d.N/d.TN
	TN := d.TN
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	lhsT := b.Input("lhsT", d.dt, d.K, d.M)
	rhs := b.Input("rhs", d.dt, d.K, d.N)
	res := b.Output("result", d.dt, d.M, d.N)
	lt := b.BlockTensor("lhsT_tile", bir.MemSB, d.dt, MT*NT*KT, P, P)
	rt := b.BlockTensor("rhs_tile", bir.MemSB, d.dt, MT*NT*KT, P, TN)
	// The accumulator's memory is left to the compiler (OnChip,
	// "placement open"): infer_psum_tensor puts a Tensor-engine result in
	// PSUM.
	ps := b.BlockTensor("res_psum", bir.MemOnChip, bir.Float32, MT*NT, P, TN)
	rs := b.BlockTensor("res_sb", bir.MemSB, d.dt, MT*NT, P, TN)
	zero := affine.Const(0)
	sqTile := [][2]int64{{P, P}, {1, P}}
	nTile := [][2]int64{{TN, P}, {1, TN}}
	outer := b.Loop
	switch dyn, err := p.Int("dynamic"); {
	case err != nil:
		return nil, err
	case dyn == 1:
		outer = b.DynamicLoop
	case dyn != 0:
		return nil, fmt.Errorf("dynamic=%d: want 0 or 1", dyn)
	}
	outer("m", 0, MT, 1, func(mi affine.Expr) {
		b.Loop("n", 0, NT, 1, func(ni affine.Expr) {
			mn := affine.Add(affine.Scale(mi, NT), ni) // block of the (m, n) tiles
			b.Loop("k", 0, KT, 1, func(ki affine.Expr) {
				blk := affine.Add(affine.Scale(mn, KT), ki)
				// lhsT[k*128 : (k+1)*128, m*128 : (m+1)*128]
				lOff := affine.Add(affine.Scale(ki, P*d.M), affine.Scale(mi, P))
				b.Load("load_lhsT", lt.Sym(blk, zero, sqTile...), lhsT.Sym(zero, lOff, [2]int64{d.M, P}, [2]int64{1, P}))
				// rhs[k*128 : (k+1)*128, n*TN : (n+1)*TN]
				rOff := affine.Add(affine.Scale(ki, P*d.N), affine.Scale(ni, TN))
				b.Load("load_rhs", rt.Sym(blk, zero, nTile...), rhs.Sym(zero, rOff, [2]int64{d.N, P}, [2]int64{1, TN}))
				dst := ps.Sym(mn, zero, nTile...)
				stat := lt.Sym(blk, zero, sqTile...)
				mov := rt.Sym(blk, zero, nTile...)
				if KT == 1 {
					b.Matmult("matmul", dst, stat, mov, true, true)
					return
				}
				pred(b, b.Matmult("matmul_first", dst, stat, mov, true, false), affine.EQ(ki, zero))
				if KT > 2 {
					pred(b, b.Matmult("matmul", dst, stat, mov, false, false),
						affine.And(affine.GE(ki, affine.Const(1)), affine.LE(ki, affine.Const(KT-2))))
				}
				pred(b, b.Matmult("matmul_last", dst, stat, mov, false, true), affine.EQ(ki, affine.Const(KT-1)))
			})
			b.TensorCopy("copy_psum", bir.EngDVE, rs.Sym(mn, zero, nTile...), ps.Sym(mn, zero, nTile...))
			oOff := affine.Add(affine.Scale(mi, P*d.N), affine.Scale(ni, TN))
			b.Save("store_result", res.Sym(zero, oOff, [2]int64{d.N, P}, [2]int64{1, TN}), rs.Sym(mn, zero, nTile...))
		})
	})
	return finish(b)
}
