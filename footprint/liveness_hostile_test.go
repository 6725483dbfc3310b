package footprint

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// TestBlockLiveness_HugeBlockCounts: a tensor declaring 2^40 blocks that
// touches a few, near and far, is analysed in memory linear in what it
// touches (the tables used to be sized by NBlocks: 16 TiB), with the same
// answer as for a small tensor; a loop whose value would wrap past 2^63
// runs its trip count.
func TestBlockLiveness_HugeBlockCounts(t *testing.T) {
	tests := []struct {
		name             string
		lb, ub, stride   int64
		blockOf          func(i affine.Expr) affine.Expr
		maxLive, touched int64
	}{
		{"blocks 0..3 of 2^40", 0, 4, 1, func(i affine.Expr) affine.Expr { return i }, 1, 4},
		{"far blocks 2^39 + 2^30 i", 0, 4, 1, func(i affine.Expr) affine.Expr { return affine.AddConst(affine.Scale(i, 1<<30), 1<<39) }, 1, 4},
		{"stride 2^62 near int64 max", 0, 1<<63 - 1, 1 << 62, func(i affine.Expr) affine.Expr { return affine.Const(7) }, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := bir.NewModule("trn2")
			b := bir.NewBuilder(m, "main")
			in := b.Input("in", bir.Float32, 128, 64)
			out := b.Output("out", bir.Float32, 128, 64)
			tile := [][2]int64{{64, 128}, {1, 64}}
			big := b.BlockTensor("big", bir.MemSB, bir.Float32, 1<<40, 128, 64)
			zero := affine.Const(0)
			b.Loop("i", tt.lb, tt.ub, tt.stride, func(i affine.Expr) {
				blk := tt.blockOf(i)
				b.Load("ld", big.Sym(blk, zero, tile...), in.Sym(zero, zero, tile...))
				b.Save("st", out.Sym(zero, zero, tile...), big.Sym(blk, zero, tile...))
			})
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			r := BlockLiveness(b.F, 1<<20)[big.ID]
			if r.MaxLive != tt.maxLive || r.Touched != tt.touched || r.Why != "" {
				t.Errorf("%+v, want %d live, %d touched", r, tt.maxLive, tt.touched)
			}
		})
	}
}
