package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// LoopPipeline builds a kernel with a dynamic loop whose overlap is bought
// by ModuloAllocation (seed 002 §4.3: successive iterations of a
// pipelined loop in different PSUM banks "so producer and consumer
// overlap"). It is not a registered built-in (the built-in tables and
// their figures stay as they are); the loop tests and docs/schedule.md use
// it:
//
//	load x [128, 128] (lhsT) and w [128, trips*512] into SBUF
//	for t in dynamic_range(trips):
//	  p = matmul(x, w[:, t*512 : (t+1)*512])   # PSUM, one bank, local to the loop
//	  y_sb[:, t*512 : (t+1)*512] = exp(p)      # Scalar engine, reads PSUM
//	store y_sb to y
//
// No DMA in the body: with one PSUM slot the matmul of iteration t+1
// waits for the Exp of iteration t to have read p (a WAR dependency at
// distance 1), so Tensor and Scalar alternate; with two slots (p rotates
// over t mod 2) it waits for the Exp of iteration t-1, and the two
// engines overlap.
func LoopPipeline(trips int64, arch string) (*bir.Module, error) {
	if trips < 1 || trips > 64 {
		return nil, fmt.Errorf("trips=%d: want 1..64", trips)
	}
	if arch == "" {
		arch = "trn2"
	}
	const P, N = pmax, psumFmax
	m := bir.NewModule(arch)
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, P, P)
	w := b.Input("w", bir.Float32, P, trips*N)
	y := b.Output("y", bir.Float32, P, trips*N)
	xs := b.SBUF("x_sb", bir.Float32, P, P)
	ws := b.SBUF("w_sb", bir.Float32, P, trips*N)
	ys := b.SBUF("y_sb", bir.Float32, P, trips*N)
	ps := b.BlockTensor("p_psum", bir.MemOnChip, bir.Float32, trips, P, N)
	b.Load("load_x", xs.All(), x.All())
	b.Load("load_w", ws.All(), w.All())
	zero := affine.Const(0)
	tile := [][2]int64{{N, P}, {1, N}}
	wide := [][2]int64{{trips * N, P}, {1, N}}
	b.DynamicLoop("t", 0, trips, 1, func(t affine.Expr) {
		off := affine.Scale(t, N)
		b.Matmult("matmul", ps.Sym(t, zero, tile...), xs.All(), ws.Sym(zero, off, wide...), true, true)
		b.Activation("exp", "Exp", ys.Sym(zero, off, wide...), ps.Sym(t, zero, tile...), 1, bir.Operand{})
	})
	b.Save("store_y", y.All(), ys.All())
	if err := b.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
