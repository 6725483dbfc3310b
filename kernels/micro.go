package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// micro holds the instruction-level calibration anchors of
// docs/cost-model.md (perf-anchors.md "What the best anchors need", 4),
// each a tiny module around the instructions measured:
//
//   - case=act_chain: n dependent Scalar activations (Identity with a
//     scale and a per-partition bias) of one element per partition, each
//     reading the previous one's output (the NKI performance guide's
//     "Opt #5a" trace: an initiation interval of about 189 ns, 264 ScalarE
//     cycles, on trn1); y = x*s^n + b*(s^(n-1) + ... + 1).
//   - case=dma_small: a [4, 4096] bf16 load from HBM into SBUF (the NKI
//     DMA overview's profile on trn2: 1416 ns on the one DMA engine that
//     serves those partitions), stored back.
//   - case=tt_stream: n independent [128, 3] fp32 tensor_tensor adds on
//     Vector (the conv1d profile, about 66 cycles each on trn1), each
//     writing its own columns of one output tile.
func init() {
	Register(&Kernel{
		Name: "micro",
		Doc:  "instruction-level calibration anchors: act_chain, dma_small, tt_stream",
		Params: []Param{
			{Name: "case", Default: "act_chain", Doc: "act_chain, dma_small or tt_stream"},
			{Name: "n", Default: "64", Doc: "instructions of the chain or stream"},
			archParam,
		},
		Build:     buildMicro,
		Reference: refMicro,
		Tests:     []string{"case=act_chain,n=8", "case=dma_small", "case=tt_stream,n=8"},
	})
}

// actChainScale and actChainBias are act_chain's activation constants.
const (
	actChainScale = 0.5
	actChainBias  = 0.25
)

func microParams(p Params) (string, int64, error) {
	n, err := p.Int("n")
	if err != nil {
		return "", 0, err
	}
	if err := inRange("n", n, 1, 1<<14); err != nil {
		return "", 0, err
	}
	c := p.Str("case")
	switch c {
	case "act_chain", "dma_small", "tt_stream":
		return c, n, nil
	}
	return "", 0, fmt.Errorf("case=%s: want act_chain, dma_small or tt_stream", c)
}

func buildMicro(p Params) (*bir.Module, error) {
	c, n, err := microParams(p)
	if err != nil {
		return nil, err
	}
	const P = pmax
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	zero := affine.Const(0)
	switch c {
	case "act_chain":
		x := b.Input("x", bir.Float32, P, 1)
		y := b.Output("y", bir.Float32, P, 1)
		// The chain's values, column i of one [128, n+1] tile.
		ch := b.BlockTensor("chain", bir.MemSB, bir.Float32, 1, P, n+1)
		bias := b.SBUF("bias", bir.Float32, P, 1)
		col := sbWindow(n+1, 1)
		b.Memset("bias", bir.EngDVE, bias.All(), actChainBias)
		b.Load("load_x", ch.Sym(zero, zero, col...), x.All())
		b.Loop("i", 0, n, 1, func(i affine.Expr) {
			b.Activation("act", "Identity", ch.Sym(zero, affine.Add(i, affine.Const(1)), col...), ch.Sym(zero, i, col...), actChainScale, bias.All())
		})
		b.Save("store_y", y.All(), ch.Sym(zero, affine.Const(n), col...))
	case "dma_small":
		x := b.Input("x", bir.BFloat16, 4, 4096)
		y := b.Output("y", bir.BFloat16, 4, 4096)
		t := b.SBUF("a", bir.BFloat16, 4, 4096)
		b.Load("load_a", t.All(), x.All())
		b.Save("store_a", y.All(), t.All())
	case "tt_stream":
		a := b.Input("a", bir.Float32, P, 3)
		c := b.Input("b", bir.Float32, P, 3)
		z := b.Output("z", bir.Float32, P, 3*n)
		at := b.SBUF("a_tile", bir.Float32, P, 3)
		bt := b.SBUF("b_tile", bir.Float32, P, 3)
		zt := b.SBUF("z_tile", bir.Float32, P, 3*n)
		b.Load("load_a", at.All(), a.All())
		b.Load("load_b", bt.All(), c.All())
		b.Loop("i", 0, n, 1, func(i affine.Expr) {
			b.TensorTensor("add", bir.EngDVE, "add", zt.Sym(zero, affine.Scale(i, 3), sbWindow(3*n, 3)...), at.All(), bt.All())
		})
		b.Save("store_z", z.All(), zt.All())
	}
	return finish(b)
}

// refMicro is micro's reference: act_chain y = ((x*s + b)*s + b)... n
// times in float64, within n+2 fp32 roundings of its magnitude; dma_small
// a copy (bit-exact); tt_stream z[:, 3i:3i+3] = a + b (one fp32 add:
// bit-exact after rounding).
func refMicro(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	c, n, err := microParams(p)
	if err != nil {
		return nil, nil, err
	}
	const P = pmax
	switch c {
	case "act_chain":
		x, err := refInput(in, "x", bir.Float32, P, 1)
		if err != nil {
			return nil, nil, err
		}
		out := make([]float64, P)
		var mx float64
		for k, v := range x {
			y := float64(v)
			for range n {
				y = y*actChainScale + actChainBias
				mx = max(mx, abs(y))
			}
			out[k] = y
		}
		t, err := ref.FromFloats("y", bir.Float32, []int64{P, 1}, out)
		if err != nil {
			return nil, nil, err
		}
		return map[string]*interp.Tensor{"y": t}, map[string]ref.Tolerance{"y": outTol(bir.Float32, 2*float64(n+2)*u32*max(mx, 1), 0, "two fp32 roundings per activation (scale, bias) of values at most max|y|")}, nil
	case "dma_small":
		x, ok := in["x"]
		if !ok {
			return nil, nil, fmt.Errorf("input x missing")
		}
		y := *x
		y.Name = "y"
		return map[string]*interp.Tensor{"y": &y}, nil, nil
	}
	a, err := refInput(in, "a", bir.Float32, P, 3)
	if err != nil {
		return nil, nil, err
	}
	bb, err := refInput(in, "b", bir.Float32, P, 3)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, P*3*n)
	for r := int64(0); r < P; r++ {
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < 3; j++ {
				out[r*3*n+3*i+j] = float64(a[r*3+j] + bb[r*3+j])
			}
		}
	}
	t, err := ref.FromFloats("z", bir.Float32, []int64{P, 3 * n}, out)
	if err != nil {
		return nil, nil, err
	}
	return map[string]*interp.Tensor{"z": t}, nil, nil
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
