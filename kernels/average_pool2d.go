package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// average_pool2d is out[c, y, x] = mean of the pool x pool window of
// in[c, pool*y + dy, pool*x + dx], after the NKI tutorial average_pool2d
// (tensor_avgpool_kernel): channels on partitions (tiled by up to 128),
// the whole H x W plane in each partition's free dimension, and the window
// reduction expressed as a strided access pattern:
//
//	for t in C/tile_c:
//	  x_tile   = load in[t]                                 [tile_c, H*W]
//	  sum_tile = reduce_add(x_tile viewed as [tile_c, Ho, Wo, pool, pool], axes XY)
//	  out_tile = sum_tile * (1 / pool^2)                    (TensorScalar)
//	  store out_tile to out[t]
//
// The view is the tutorial's in_tile[i_0, pool*i_1 + i_2, pool*i_3 + i_4]:
// pairs [[H*W, tile_c], [pool*W, Ho], [pool, Wo], [W, pool], [1, pool]],
// four free dimensions (the engine limit, hardware.md), the last two
// reduced (TensorReduce axis XY). The sum is fp32 whatever the I/O dtype.
// Windows do not overlap (stride = pool, as in the tutorial); H and W must
// be multiples of pool.
func init() {
	Register(&Kernel{
		Name: "average_pool2d",
		Doc:  "2-D average pooling, channels on partitions, windows as a strided AP reduced on XY (NKI average_pool2d)",
		Params: []Param{
			{Name: "c", Default: "256", Doc: "channels (at most 128, or a multiple of 128)"},
			{Name: "h", Default: "16", Doc: "input height (multiple of pool)"},
			{Name: "w", Default: "16", Doc: "input width (multiple of pool)"},
			{Name: "pool", Default: "2", Doc: "window size and stride"},
			{Name: "dtype", Default: "float32", Doc: "element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildAvgPool,
		Reference: refAvgPool,
		Tests:     []string{"c=256,h=8,w=12,pool=2", "c=64,h=9,w=9,pool=3,dtype=bfloat16"},
	})
}

type poolDims struct {
	C, H, W, ps, TC int64
	dt              bir.Dtype
}

func (d poolDims) ho() int64 { return d.H / d.ps }
func (d poolDims) wo() int64 { return d.W / d.ps }

func poolParams(p Params) (poolDims, error) {
	v, err := intParams(p, "c", "h", "w", "pool")
	if err != nil {
		return poolDims{}, err
	}
	d := poolDims{C: v[0], H: v[1], W: v[2], ps: v[3]}
	if d.dt, err = floatDtype(p); err != nil {
		return d, err
	}
	if err := inRange("pool", d.ps, 1, 64); err != nil {
		return d, err
	}
	if err := multipleOf("h", d.H, d.ps); err != nil {
		return d, fmt.Errorf("%w (pool)", err)
	}
	if err := multipleOf("w", d.W, d.ps); err != nil {
		return d, fmt.Errorf("%w (pool)", err)
	}
	if d.H*d.W > 65536 {
		return d, fmt.Errorf("h*w=%d: want at most 65536 elements per partition", d.H*d.W)
	}
	if d.C <= 0 {
		return d, fmt.Errorf("c=%d: want a positive number", d.C)
	}
	d.TC = min(d.C, pmax)
	if d.C%d.TC != 0 {
		return d, fmt.Errorf("c=%d: want at most %d or a multiple of %d", d.C, pmax, pmax)
	}
	return d, nil
}

func buildAvgPool(p Params) (*bir.Module, error) {
	d, err := poolParams(p)
	if err != nil {
		return nil, err
	}
	CT, HW, Ho, Wo, ps, TC := d.C/d.TC, d.H*d.W, d.ho(), d.wo(), d.ps, d.TC
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	in := b.Input("in", d.dt, d.C, d.H, d.W)
	out := b.Output("out", d.dt, d.C, Ho, Wo)
	xt := b.BlockTensor("x_tile", bir.MemSB, d.dt, CT, TC, HW)
	st := b.BlockTensor("sum_tile", bir.MemSB, bir.Float32, CT, TC, Ho*Wo)
	ot := b.BlockTensor("out_tile", bir.MemSB, d.dt, CT, TC, Ho*Wo)
	zero := affine.Const(0)
	inTile := [][2]int64{{HW, TC}, {1, HW}}
	outTile := [][2]int64{{Ho * Wo, TC}, {1, Ho * Wo}}
	window := [][2]int64{{HW, TC}, {ps * d.W, Ho}, {ps, Wo}, {d.W, ps}, {1, ps}}
	outView := [][2]int64{{Ho * Wo, TC}, {Wo, Ho}, {1, Wo}}
	b.Loop("t", 0, CT, 1, func(t affine.Expr) {
		b.Load("load_in", xt.Sym(t, zero, inTile...), in.Sym(zero, affine.Scale(t, TC*HW), inTile...))
		b.TensorReduce("window_sum", bir.EngDVE, "add", "XY", st.Sym(t, zero, outView...), xt.Sym(t, zero, window...))
		b.TensorScalar("scale", bir.EngDVE, ot.Sym(t, zero, outTile...), st.Sym(t, zero, outTile...), "mult", 1/float64(ps*ps), "bypass", 0)
		b.Save("store_out", out.Sym(zero, affine.Scale(t, TC*Ho*Wo), outTile...), ot.Sym(t, zero, outTile...))
	})
	return finish(b)
}
