package kernels

import (
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// attention is single-head scaled dot-product attention,
// out = softmax(Q K^T / sqrt(d)) V, after the NKI tutorial fused attention
// (fused_self_attn_for_SD_small_head_size): q and k arrive with the head
// dimension first ([d, seq], the layout the Tensor engine contracts over),
// v and out are [seq, d]. Query rows are tiled by 128; the whole key range
// of a query tile stays in SBUF (seq <= 64K).
//
//	kT_sb = load k                                         [d, seq]
//	for c in seq/128: v_tile[c] = load v[c]                [128, d]
//	for i in seq/128:                                      (query tiles)
//	  qT_tile = load q[:, i]                               [d, 128]
//	  for j in seq/chunk:                                  (chunk <= 512: one PSUM bank)
//	    s_psum = matmul(qT_tile, kT_sb[:, j])              [128, chunk]   (Q K^T)
//	    s_sb[:, j] = s_psum * 1/sqrt(d)                    (Activation Copy, scale)
//	  neg_max = -max(s_sb)                                 (TensorReduce max, negate)
//	  p_sb    = exp(s_sb + neg_max)                        (Activation Exp, bias)
//	  r       = 1 / sum(p_sb)                              (TensorReduce add, Activation Reciprocal)
//	  for c in seq/128:                                    (key chunks)
//	    pT_psum = transpose(p_sb[:, c])                    (PE Transpose)
//	    pT_sb   = copy(pT_psum)                            (in the I/O dtype)
//	    o_psum += matmul(pT_sb, v_tile[c])                 (start when c == 0, stop when c == last)
//	  o_sb = o_psum * r                                    (TensorScalarPtr mult)
//	  store o_sb to out[i]
//
// The Tensor-engine results (s_psum, pT_psum, o_psum) and the
// reciprocal row_rcp are declared OnChip ("placement open"):
// infer_psum_tensor puts the former in PSUM and, by the seed's "Assign
// result of ... Act instructions to PSUM", the Activation result row_rcp
// too (every reader can read PSUM and it fits a bank).
//
// As in matmul, the accumulation flags of the P V product are predicated
// Matmult instructions inside the key-chunk loop. Scores and
// probabilities are fp32; the transposed probabilities are cast to the I/O
// dtype because the Tensor engine multiplies like dtypes (semantics.md
// §4.7). The normalization is applied after P V (the tutorial's order), so
// the division touches [128, d] instead of [128, seq].
func init() {
	Register(&Kernel{
		Name: "attention",
		Doc:  "out = softmax(Q K^T / sqrt(d)) V: matmul, softmax, PE transpose, matmul accumulated in PSUM (NKI fused attention)",
		Params: []Param{
			{Name: "seq", Default: "256", Doc: "sequence length (multiple of 128)"},
			{Name: "d", Default: "64", Doc: "head dimension, 1..128"},
			{Name: "dtype", Default: "float32", Doc: "element type of q, k, v and out (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildAttention,
		Reference: refAttention,
		Tests:     []string{"seq=256,d=32", "seq=384,d=48,dtype=bfloat16"},
	})
}

type attnDims struct {
	seq, d, chunk int64
	dt            bir.Dtype
}

func (a attnDims) scale() float64 { return 1 / math.Sqrt(float64(a.d)) }

func attentionParams(p Params) (attnDims, error) {
	v, err := intParams(p, "seq", "d")
	if err != nil {
		return attnDims{}, err
	}
	a := attnDims{seq: v[0], d: v[1]}
	if a.dt, err = floatDtype(p); err != nil {
		return a, err
	}
	if err := multipleOf("seq", a.seq, pmax); err != nil {
		return a, err
	}
	if a.seq > 65536 {
		return a, fmt.Errorf("seq=%d: want at most 65536 (a query tile's scores stay in SBUF)", a.seq)
	}
	if err := inRange("d", a.d, 1, pmax); err != nil {
		return a, err
	}
	// The score chunk: the largest multiple of 128 that is at most one
	// PSUM bank (512 fp32) and divides seq.
	for a.chunk = psumFmax; a.seq%a.chunk != 0; a.chunk -= pmax {
	}
	return a, nil
}

func buildAttention(p Params) (*bir.Module, error) {
	a, err := attentionParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	S, D, C := a.seq, a.d, a.chunk
	QT, KC, SC := S/P, S/P, S/C
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	q := b.Input("q", a.dt, D, S)
	k := b.Input("k", a.dt, D, S)
	v := b.Input("v", a.dt, S, D)
	out := b.Output("out", a.dt, S, D)
	kT := b.SBUF("kT_sb", a.dt, D, S)
	vt := b.BlockTensor("v_tile", bir.MemSB, a.dt, KC, P, D)
	qt := b.BlockTensor("qT_tile", bir.MemSB, a.dt, QT, D, P)
	sps := b.BlockTensor("s_psum", bir.MemOnChip, bir.Float32, QT*SC, P, C)
	ssb := b.BlockTensor("s_sb", bir.MemSB, bir.Float32, QT, P, S)
	negMax := b.BlockTensor("neg_max", bir.MemSB, bir.Float32, QT, P, 1)
	psb := b.BlockTensor("p_sb", bir.MemSB, bir.Float32, QT, P, S)
	sum := b.BlockTensor("row_sum", bir.MemSB, bir.Float32, QT, P, 1)
	rcp := b.BlockTensor("row_rcp", bir.MemOnChip, bir.Float32, QT, P, 1)
	ptp := b.BlockTensor("pT_psum", bir.MemOnChip, bir.Float32, QT*KC, P, P)
	pts := b.BlockTensor("pT_sb", bir.MemSB, a.dt, QT*KC, P, P)
	ops := b.BlockTensor("o_psum", bir.MemOnChip, bir.Float32, QT, P, D)
	osb := b.BlockTensor("o_sb", bir.MemSB, a.dt, QT, P, D)
	zero := affine.Const(0)
	sq := [][2]int64{{P, P}, {1, P}}
	row := [][2]int64{{S, P}, {1, S}}
	col := [][2]int64{{1, P}, {1, 1}}
	vTile := [][2]int64{{D, P}, {1, D}}

	b.Load("load_k", kT.All(), k.AP(0, [2]int64{S, D}, [2]int64{1, S}))
	b.Loop("kv", 0, KC, 1, func(c affine.Expr) {
		b.Load("load_v", vt.Sym(c, zero, vTile...), v.Sym(zero, affine.Scale(c, P*D), vTile...))
	})
	b.Loop("i", 0, QT, 1, func(i affine.Expr) {
		b.Load("load_q", qt.Sym(i, zero, [2]int64{P, D}, [2]int64{1, P}), q.Sym(zero, affine.Scale(i, P), [2]int64{S, D}, [2]int64{1, P}))
		b.Loop("j", 0, SC, 1, func(j affine.Expr) {
			blk := affine.Add(affine.Scale(i, SC), j)
			chunk := [][2]int64{{C, P}, {1, C}}
			b.Matmult("qk", sps.Sym(blk, zero, chunk...), qt.Sym(i, zero, [2]int64{P, D}, [2]int64{1, P}),
				kT.Sym(zero, affine.Scale(j, C), [2]int64{S, D}, [2]int64{1, C}), true, true)
			b.Activation("scale_scores", "Copy", ssb.Sym(i, affine.Scale(j, C), [2]int64{S, P}, [2]int64{1, C}),
				sps.Sym(blk, zero, chunk...), a.scale(), bir.Operand{})
		})
		b.Inst(bir.OpTensorReduce, "row_max", bir.EngDVE,
			[]bir.Operand{ssb.Sym(i, zero, row...)}, []bir.Operand{negMax.Sym(i, zero, col...)},
			bir.Attrs("op", "max", "axis", "X", "negate", true))
		b.Activation("exp", "Exp", psb.Sym(i, zero, row...), ssb.Sym(i, zero, row...), 1, negMax.Sym(i, zero, col...))
		b.TensorReduce("row_sum", bir.EngDVE, "add", "X", sum.Sym(i, zero, col...), psb.Sym(i, zero, row...))
		b.Activation("reciprocal", "Reciprocal", rcp.Sym(i, zero, col...), sum.Sym(i, zero, col...), 1, bir.Operand{})
		b.Loop("c", 0, KC, 1, func(c affine.Expr) {
			blk := affine.Add(affine.Scale(i, KC), c)
			b.Transpose("transpose_p", bir.EngPE, ptp.Sym(blk, zero, sq...), psb.Sym(i, affine.Scale(c, P), [2]int64{S, P}, [2]int64{1, P}))
			b.TensorCopy("copy_pT", bir.EngDVE, pts.Sym(blk, zero, sq...), ptp.Sym(blk, zero, sq...))
			dst, stat, mov := ops.Sym(i, zero, vTile...), pts.Sym(blk, zero, sq...), vt.Sym(c, zero, vTile...)
			if KC == 1 {
				b.Matmult("pv", dst, stat, mov, true, true)
				return
			}
			pred(b, b.Matmult("pv_first", dst, stat, mov, true, false), affine.EQ(c, zero))
			if KC > 2 {
				pred(b, b.Matmult("pv", dst, stat, mov, false, false),
					affine.And(affine.GE(c, affine.Const(1)), affine.LE(c, affine.Const(KC-2))))
			}
			pred(b, b.Matmult("pv_last", dst, stat, mov, false, true), affine.EQ(c, affine.Const(KC-1)))
		})
		b.TensorScalarPtr("normalize", bir.EngDVE, osb.Sym(i, zero, vTile...), ops.Sym(i, zero, vTile...),
			rcp.Sym(i, zero, col...), "mult", bir.Operand{}, "bypass")
		b.Save("store_out", out.Sym(zero, affine.Scale(i, P*D), vTile...), osb.Sym(i, zero, vTile...))
	})
	return finish(b)
}
