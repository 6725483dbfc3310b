package kernels

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
)

// embedding is the gather out[t, :] = table[indices[t], :] for a DRAM
// table [vocab, d] and int32 token indices [tokens], the row gather of
// NKI's indirect DMA (nl.load(table[idx_tile, iy]) with an index tile in
// SBUF, nki.isa.dma_copy with an indirect source):
//
//	for t in tokens/128:
//	  idx_tile = load indices[t]                           [128, 1] int32
//	  rows     = gather(table, idx_tile, indirect_dims=[0]) [128, d]  (GenericIndirectLoad)
//	  store rows to out[t]
//
// The gather is a GenericIndirectLoad: sources are the indexed DRAM
// table's AP (pairs [[0, 128], [1, d]]: the index, not the pattern, picks
// the row of each partition — semantics.md §4.3 ignores the leading step —
// and a zero step keeps the AP inside the table whatever vocab is) and
// the index AP ([128, 1] in SBUF, one index per partition); indirect_dims
// [0] says the indices select rows (dimension 0) of the table, so
// partition p receives table row idx[p] (semantics.md §4.3: addr(p, i) =
// offset + idx[p]*d + i). One indirect dimension for the one index AP
// satisfies "Indirect dimensions must be one less than instruction argument
// number", the input lower_generic_indirect (seed 001) expects.
//
// Inputs: the indices must lie in [0, vocab) (an out-of-range index is a
// runtime error, semantics.md §4.3), so the kernel provides its own inputs:
// the table is random in [-1, 1), the indices uniform in [0, vocab). A copy
// kernel: bit-exact.
func init() {
	Register(&Kernel{
		Name: "embedding",
		Doc:  "out[t] = table[indices[t]], a row gather by GenericIndirectLoad (NKI indirect DMA)",
		Params: []Param{
			{Name: "vocab", Default: "1000", Doc: "table rows"},
			{Name: "d", Default: "256", Doc: "row length"},
			{Name: "tokens", Default: "256", Doc: "number of indices (multiple of 128)"},
			{Name: "dtype", Default: "float32", Doc: "table element type"},
			archParam,
		},
		Build:     buildEmbedding,
		Inputs:    embeddingInputs,
		Reference: refEmbedding,
		Tests:     []string{"vocab=300,d=64,tokens=256", "vocab=50,d=96,tokens=128,dtype=bfloat16"},
	})
}

type embDims struct {
	V, D, T int64
	dt      bir.Dtype
}

func embeddingParams(p Params) (embDims, error) {
	v, err := intParams(p, "vocab", "d", "tokens")
	if err != nil {
		return embDims{}, err
	}
	e := embDims{V: v[0], D: v[1], T: v[2]}
	if e.dt, err = anyDtype(p); err != nil {
		return e, err
	}
	// int32 indices: the table must be addressable by them.
	if err := inRange("vocab", e.V, 1, 1<<31-1); err != nil {
		return e, err
	}
	if err := inRange("d", e.D, 1, 65536); err != nil {
		return e, err
	}
	if err := multipleOf("tokens", e.T, pmax); err != nil {
		return e, err
	}
	return e, nil
}

func buildEmbedding(p Params) (*bir.Module, error) {
	e, err := embeddingParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	tiles := e.T / P
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	table := b.Input("table", e.dt, e.V, e.D)
	idx := b.Input("indices", bir.Int32, e.T)
	out := b.Output("out", e.dt, e.T, e.D)
	it := b.BlockTensor("idx_tile", bir.MemSB, bir.Int32, tiles, P, 1)
	rt := b.BlockTensor("rows_tile", bir.MemSB, e.dt, tiles, P, e.D)
	zero := affine.Const(0)
	col := [][2]int64{{1, P}, {1, 1}}
	rows := [][2]int64{{e.D, P}, {1, e.D}}
	gatherSrc := [][2]int64{{0, P}, {1, e.D}}
	b.Loop("t", 0, tiles, 1, func(t affine.Expr) {
		b.Load("load_idx", it.Sym(t, zero, col...), idx.Sym(zero, affine.Scale(t, P), col...))
		b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned,
			[]bir.Operand{table.Sym(zero, zero, gatherSrc...), it.Sym(t, zero, col...)},
			[]bir.Operand{rt.Sym(t, zero, rows...)},
			bir.Attrs("indirect_dims", bir.Ints(0)))
		b.Save("store_out", out.Sym(zero, affine.Scale(t, P*e.D), rows...), rt.Sym(t, zero, rows...))
	})
	return finish(b)
}

// embeddingInputs draws the table from [-1, 1) (integers from a small
// range) and the indices uniformly
// from [0, vocab), from the seed and each input's name.
func embeddingInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	out := map[string]*interp.Tensor{}
	for _, s := range interp.InputSpecs(m) {
		r := rng(seed, s.Name)
		switch s.Name {
		case "indices":
			var vocab int64 = 1
			if ts, ok := specOf(m, "table"); ok && len(ts.Shape) > 0 {
				vocab = ts.Shape[0]
			}
			out[s.Name] = fillFloats(s, func(int64) float64 { return float64(r.Int64N(vocab)) })
		default:
			out[s.Name] = fillFloats(s, func(int64) float64 { return randomValue(r, s.Dtype) })
		}
	}
	return out
}
