package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// matmul_tutorial is result[M,N] = lhsT[K,M]^T @ rhs[K,N] in the three
// optimization steps of the NKI matrix-multiplication tutorial
// (matrix_multiplication.rst; perf-anchors.md rows 2-4), the calibration
// anchors of docs/cost-model.md. The first step of the tutorial, "Original
// Tiled", is builtin:matmul. Written here from the tutorial's description
// of each kernel's loop nest (narwhal's own code):
//
//   - variant=hoist ("hoist load"): for each M tile, the K column of lhsT
//     tiles ([128,128]) is loaded once; for each N tile the K column of rhs
//     tiles ([128,512]) is loaded, the K matmuls accumulate in PSUM, the
//     result is copied to SBUF and stored.
//
//     for m in M/128:
//     for k: load lhsT[k, m]
//     for n in N/512:
//     for k: load rhs[k, n]
//     for k: res_psum += matmul(lhsT[k, m], rhs[k, n])
//     copy res_psum -> res_sb; store res_sb
//
//   - variant=block ("block free dimension", TILES_IN_BLOCK_M = bm,
//     TILES_IN_BLOCK_N = bn, 2 and 2 in the tutorial): the same with bm M
//     tiles and bn N tiles loaded per block, and the bm x bn output tiles
//     computed from them.
//
//   - variant=opt ("fully optimized", blocks of bm M tiles, bn N tiles and
//     bk K tiles; 16, 2 and 8): per N block a result block in SBUF
//     (nl.zeros: one memset per output tile), then per K block the rhs
//     block ([128, bn*512] rows, bk of them) and per M block the lhsT block
//     ([128, bm*128] rows, bk of them); each output tile's bk matmuls
//     accumulate in PSUM and the PSUM tile is added into the SBUF result
//     (result_tiles += res_tile, on Vector: a PSUM input); at the end of the
//     N block each output row of bn tiles is copied into one [128, bn*512]
//     tile and stored with one DMA ("coalesce result tiles").
//
// PSUM accumulation: NKI's `res_psum = nl.zeros(..., buffer=nl.psum)`
// followed by `res_psum += matmul(...)` is the matmul accumulation group
// (trn1 arch guide, "Near-memory accumulation in PSUM"): the first matmul
// writes the bank (start_tensor_calc), the others accumulate, so the PSUM
// zeros emit no instruction here, as builtin:matmul does. The SBUF result
// of variant=opt is in the input dtype (the tutorial declares result_tiles
// with lhsT.dtype), so its accumulation rounds to that dtype once per K
// block; the reference's tolerance says so.
//
// Tiles allocated inside a loop are block tensors with one block per
// iteration of the enclosing loops, as in builtin:matmul.
func init() {
	Register(&Kernel{
		Name: "matmul_tutorial",
		Doc:  "result = lhsT^T @ rhs in the NKI matmul tutorial's hoisted-load, blocked and fully optimized loop nests (calibration anchors)",
		Params: []Param{
			{Name: "variant", Default: "hoist", Doc: "hoist, block or opt (the tutorial's three optimization steps)"},
			{Name: "m", Default: "256", Doc: "rows of the result (multiple of 128*bm)"},
			{Name: "k", Default: "256", Doc: "contraction size (multiple of 128*bk)"},
			{Name: "n", Default: "1024", Doc: "columns of the result (multiple of 512*bn)"},
			{Name: "bm", Default: "2", Doc: "TILES_IN_BLOCK_M (block, opt)"},
			{Name: "bn", Default: "2", Doc: "TILES_IN_BLOCK_N (block, opt)"},
			{Name: "bk", Default: "2", Doc: "TILES_IN_BLOCK_K (opt)"},
			{Name: "dtype", Default: "bfloat16", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildMatmulTutorial,
		Reference: refMatmulTutorial,
		Tests: []string{
			"variant=hoist,m=256,k=256,n=1024",
			"variant=block,m=256,k=256,n=1024,bm=2,bn=2",
			"variant=opt,m=256,k=256,n=1024,bm=2,bn=2,bk=1",
			"variant=opt,m=256,k=512,n=1024,bm=1,bn=2,bk=2,dtype=float32",
		},
	})
}

type tutorialDims struct {
	matmulDims
	variant    string
	BM, BN, BK int64
}

func tutorialParams(p Params) (tutorialDims, error) {
	v, err := intParams(p, "m", "k", "n", "bm", "bn", "bk")
	if err != nil {
		return tutorialDims{}, err
	}
	d := tutorialDims{matmulDims: matmulDims{M: v[0], K: v[1], N: v[2], TN: movingFmax}, variant: p.Str("variant"), BM: v[3], BN: v[4], BK: v[5]}
	if d.dt, err = floatDtype(p); err != nil {
		return d, err
	}
	for _, b := range []struct {
		name string
		v    int64
	}{{"bm", d.BM}, {"bn", d.BN}, {"bk", d.BK}} {
		if err := inRange(b.name, b.v, 1, 64); err != nil {
			return d, err
		}
	}
	bm, bn, bk := int64(1), int64(1), int64(1)
	switch d.variant {
	case "hoist":
	case "block":
		bm, bn = d.BM, d.BN
	case "opt":
		bm, bn, bk = d.BM, d.BN, d.BK
	default:
		return d, fmt.Errorf("variant=%s: want hoist, block or opt", d.variant)
	}
	if err := multipleOf("m", d.M, pmax*bm); err != nil {
		return d, err
	}
	if err := multipleOf("k", d.K, pmax*bk); err != nil {
		return d, err
	}
	if err := multipleOf("n", d.N, movingFmax*bn); err != nil {
		return d, err
	}
	return d, nil
}

// accumulate emits the matmuls of one PSUM accumulation group of kt
// tiles at index ki (the first starts the group, the last stops it: three
// predicated Matmults, or one with both flags when kt is 1; as
// builtin:matmul).
func accumulate(b *bir.Builder, ki affine.Expr, kt int64, dst, stat, mov bir.Operand) {
	if kt == 1 {
		b.Matmult("matmul", dst, stat, mov, true, true)
		return
	}
	zero := affine.Const(0)
	pred(b, b.Matmult("matmul_first", dst, stat, mov, true, false), affine.EQ(ki, zero))
	if kt > 2 {
		pred(b, b.Matmult("matmul", dst, stat, mov, false, false),
			affine.And(affine.GE(ki, affine.Const(1)), affine.LE(ki, affine.Const(kt-2))))
	}
	pred(b, b.Matmult("matmul_last", dst, stat, mov, false, true), affine.EQ(ki, affine.Const(kt-1)))
}

func buildMatmulTutorial(p Params) (*bir.Module, error) {
	d, err := tutorialParams(p)
	if err != nil {
		return nil, err
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	lhsT := b.Input("lhsT", d.dt, d.K, d.M)
	rhs := b.Input("rhs", d.dt, d.K, d.N)
	res := b.Output("result", d.dt, d.M, d.N)
	switch d.variant {
	case "hoist":
		buildHoist(b, d, lhsT, rhs, res)
	case "block":
		buildBlock(b, d, lhsT, rhs, res)
	case "opt":
		buildOpt(b, d, lhsT, rhs, res)
	}
	return finish(b)
}

// Tile shapes, as pattern pairs: a [128, w] tile of an SBUF block of
// width w, and the [128, w] window at a free offset of a wider block.
func sbTile(w int64) [][2]int64          { return [][2]int64{{w, pmax}, {1, w}} }
func sbWindow(block, w int64) [][2]int64 { return [][2]int64{{block, pmax}, {1, w}} }

// dramTile is the [128, w] tile of a row-major DRAM tensor of cols
// columns at row r0 and column c0.
func dramTile(t bir.T, cols int64, r0, c0 affine.Expr, w int64) bir.Operand {
	zero := affine.Const(0)
	return t.Sym(zero, affine.Add(affine.Scale(r0, cols), c0), [2]int64{cols, pmax}, [2]int64{1, w})
}

func buildHoist(b *bir.Builder, d tutorialDims, lhsT, rhs, res bir.T) {
	const P = pmax
	TN := d.TN
	MT, KT, NT := d.M/P, d.K/P, d.N/TN
	zero := affine.Const(0)
	lt := b.BlockTensor("lhsT_tiles", bir.MemSB, d.dt, MT*KT, P, P)
	rt := b.BlockTensor("rhs_tiles", bir.MemSB, d.dt, MT*NT*KT, P, TN)
	ps := b.BlockTensor("res_psum", bir.MemOnChip, bir.Float32, MT*NT, P, TN)
	rs := b.BlockTensor("res_sb", bir.MemSB, d.dt, MT*NT, P, TN)
	b.Loop("m", 0, MT, 1, func(mi affine.Expr) {
		b.Loop("k_lhsT", 0, KT, 1, func(ki affine.Expr) {
			b.Load("load_lhsT", lt.Sym(affine.Add(affine.Scale(mi, KT), ki), zero, sbTile(P)...),
				dramTile(lhsT, d.M, affine.Scale(ki, P), affine.Scale(mi, P), P))
		})
		b.Loop("n", 0, NT, 1, func(ni affine.Expr) {
			mn := affine.Add(affine.Scale(mi, NT), ni)
			b.Loop("k_rhs", 0, KT, 1, func(ki affine.Expr) {
				b.Load("load_rhs", rt.Sym(affine.Add(affine.Scale(mn, KT), ki), zero, sbTile(TN)...),
					dramTile(rhs, d.N, affine.Scale(ki, P), affine.Scale(ni, TN), TN))
			})
			b.Loop("k", 0, KT, 1, func(ki affine.Expr) {
				accumulate(b, ki, KT, ps.Sym(mn, zero, sbTile(TN)...),
					lt.Sym(affine.Add(affine.Scale(mi, KT), ki), zero, sbTile(P)...),
					rt.Sym(affine.Add(affine.Scale(mn, KT), ki), zero, sbTile(TN)...))
			})
			b.TensorCopy("copy_psum", bir.EngDVE, rs.Sym(mn, zero, sbTile(TN)...), ps.Sym(mn, zero, sbTile(TN)...))
			b.Save("store_result", dramTile(res, d.N, affine.Scale(mi, P), affine.Scale(ni, TN), TN), rs.Sym(mn, zero, sbTile(TN)...))
		})
	})
}

func buildBlock(b *bir.Builder, d tutorialDims, lhsT, rhs, res bir.T) {
	const P = pmax
	TN := d.TN
	BM, BN := d.BM, d.BN
	KT := d.K / P
	MB, NB := d.M/(P*BM), d.N/(TN*BN)
	zero := affine.Const(0)
	lt := b.BlockTensor("lhsT_tiles", bir.MemSB, d.dt, MB*BM*KT, P, P)
	rt := b.BlockTensor("rhs_tiles", bir.MemSB, d.dt, MB*NB*BN*KT, P, TN)
	ps := b.BlockTensor("res_psum", bir.MemOnChip, bir.Float32, MB*NB*BM*BN, P, TN)
	rs := b.BlockTensor("res_sb", bir.MemSB, d.dt, MB*NB*BM*BN, P, TN)
	b.Loop("m", 0, MB, 1, func(mi affine.Expr) {
		b.Loop("bm_lhsT", 0, BM, 1, func(bmi affine.Expr) {
			mt := affine.Add(affine.Scale(mi, BM), bmi) // the M tile
			b.Loop("k_lhsT", 0, KT, 1, func(ki affine.Expr) {
				b.Load("load_lhsT", lt.Sym(affine.Add(affine.Scale(mt, KT), ki), zero, sbTile(P)...),
					dramTile(lhsT, d.M, affine.Scale(ki, P), affine.Scale(mt, P), P))
			})
		})
		b.Loop("n", 0, NB, 1, func(ni affine.Expr) {
			mn := affine.Add(affine.Scale(mi, NB), ni)
			b.Loop("bn_rhs", 0, BN, 1, func(bni affine.Expr) {
				nt := affine.Add(affine.Scale(ni, BN), bni) // the N tile
				b.Loop("k_rhs", 0, KT, 1, func(ki affine.Expr) {
					blk := affine.Add(affine.Scale(affine.Add(affine.Scale(mn, BN), bni), KT), ki)
					b.Load("load_rhs", rt.Sym(blk, zero, sbTile(TN)...), dramTile(rhs, d.N, affine.Scale(ki, P), affine.Scale(nt, TN), TN))
				})
			})
			b.Loop("bm", 0, BM, 1, func(bmi affine.Expr) {
				mt := affine.Add(affine.Scale(mi, BM), bmi)
				b.Loop("bn", 0, BN, 1, func(bni affine.Expr) {
					nt := affine.Add(affine.Scale(ni, BN), bni)
					out := affine.Add(affine.Scale(affine.Add(affine.Scale(mn, BM), bmi), BN), bni)
					b.Loop("k", 0, KT, 1, func(ki affine.Expr) {
						accumulate(b, ki, KT, ps.Sym(out, zero, sbTile(TN)...),
							lt.Sym(affine.Add(affine.Scale(mt, KT), ki), zero, sbTile(P)...),
							rt.Sym(affine.Add(affine.Scale(affine.Add(affine.Scale(mn, BN), bni), KT), ki), zero, sbTile(TN)...))
					})
					b.TensorCopy("copy_psum", bir.EngDVE, rs.Sym(out, zero, sbTile(TN)...), ps.Sym(out, zero, sbTile(TN)...))
					b.Save("store_result", dramTile(res, d.N, affine.Scale(mt, P), affine.Scale(nt, TN), TN), rs.Sym(out, zero, sbTile(TN)...))
				})
			})
		})
	})
}

func buildOpt(b *bir.Builder, d tutorialDims, lhsT, rhs, res bir.T) {
	const P = pmax
	TN := d.TN
	BM, BN, BK := d.BM, d.BN, d.BK
	blockM, blockN := P*BM, TN*BN
	NBM, NBN, NBK := d.M/blockM, d.N/blockN, d.K/(P*BK)
	zero := affine.Const(0)
	// result_tiles (NUM_BLOCK_M, BM, BN, [128], 512) per N block: one
	// SBUF block of [128, NBM*BM*BN*512], output tile (m, bm, bn) at free
	// offset ((m*BM + bm)*BN + bn)*512.
	resW := NBM * BM * BN * TN
	rt := b.BlockTensor("result_tiles", bir.MemSB, d.dt, NBN, P, resW)
	rhsT := b.BlockTensor("rhs_tiles", bir.MemSB, d.dt, NBN*NBK*BK, P, blockN)
	lhsTT := b.BlockTensor("lhsT_tiles", bir.MemSB, d.dt, NBN*NBK*NBM*BK, P, blockM)
	ps := b.BlockTensor("res_tile", bir.MemOnChip, bir.Float32, NBN*NBK*NBM*BN*BM, P, TN)
	packed := b.BlockTensor("result_packed", bir.MemSB, d.dt, NBN*NBM*BM, P, blockN)
	tileOff := func(mi, bmi, bni affine.Expr) affine.Expr {
		return affine.Scale(affine.Add(affine.Scale(affine.Add(affine.Scale(mi, BM), bmi), BN), bni), TN)
	}
	b.Loop("n", 0, NBN, 1, func(ni affine.Expr) {
		// nl.zeros of result_tiles: a memset per output tile.
		b.Loop("m_zero", 0, NBM, 1, func(mi affine.Expr) {
			b.Loop("bm_zero", 0, BM, 1, func(bmi affine.Expr) {
				b.Loop("bn_zero", 0, BN, 1, func(bni affine.Expr) {
					b.Memset("zero_result", bir.EngDVE, rt.Sym(ni, tileOff(mi, bmi, bni), sbWindow(resW, TN)...), 0)
				})
			})
		})
		b.Loop("k", 0, NBK, 1, func(ki affine.Expr) {
			nk := affine.Add(affine.Scale(ni, NBK), ki)
			b.Loop("bk_r", 0, BK, 1, func(bki affine.Expr) {
				row := affine.Scale(affine.Add(affine.Scale(ki, BK), bki), P)
				b.Load("load_rhs", rhsT.Sym(affine.Add(affine.Scale(nk, BK), bki), zero, sbTile(blockN)...),
					dramTile(rhs, d.N, row, affine.Scale(ni, blockN), blockN))
			})
			b.Loop("m", 0, NBM, 1, func(mi affine.Expr) {
				nkm := affine.Add(affine.Scale(nk, NBM), mi)
				b.Loop("bk_l", 0, BK, 1, func(bki affine.Expr) {
					row := affine.Scale(affine.Add(affine.Scale(ki, BK), bki), P)
					b.Load("load_lhsT", lhsTT.Sym(affine.Add(affine.Scale(nkm, BK), bki), zero, sbTile(blockM)...),
						dramTile(lhsT, d.M, row, affine.Scale(mi, blockM), blockM))
				})
				b.Loop("bn", 0, BN, 1, func(bni affine.Expr) {
					b.Loop("bm", 0, BM, 1, func(bmi affine.Expr) {
						pt := affine.Add(affine.Scale(affine.Add(affine.Scale(nkm, BN), bni), BM), bmi)
						b.Loop("bk", 0, BK, 1, func(bki affine.Expr) {
							accumulate(b, bki, BK, ps.Sym(pt, zero, sbTile(TN)...),
								lhsTT.Sym(affine.Add(affine.Scale(nkm, BK), bki), affine.Scale(bmi, P), sbWindow(blockM, P)...),
								rhsT.Sym(affine.Add(affine.Scale(nk, BK), bki), affine.Scale(bni, TN), sbWindow(blockN, TN)...))
						})
						acc := rt.Sym(ni, tileOff(mi, bmi, bni), sbWindow(resW, TN)...)
						b.TensorTensor("accumulate_result", bir.EngDVE, "add", acc, acc, ps.Sym(pt, zero, sbTile(TN)...))
					})
				})
			})
		})
		b.Loop("m_out", 0, NBM, 1, func(mi affine.Expr) {
			b.Loop("bm_out", 0, BM, 1, func(bmi affine.Expr) {
				pk := affine.Add(affine.Scale(affine.Add(affine.Scale(ni, NBM), mi), BM), bmi)
				b.Loop("bn_out", 0, BN, 1, func(bni affine.Expr) {
					b.TensorCopy("pack_result", bir.EngUnassigned, packed.Sym(pk, affine.Scale(bni, TN), sbWindow(blockN, TN)...),
						rt.Sym(ni, tileOff(mi, bmi, bni), sbWindow(resW, TN)...))
				})
				row := affine.Scale(affine.Add(affine.Scale(mi, BM), bmi), P)
				b.Save("store_result", dramTile(res, d.N, row, affine.Scale(ni, blockN), blockN), packed.Sym(pk, zero, sbTile(blockN)...))
			})
		})
	})
}
