package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// The macro kernels: the same computations as tensor_add, matmul, softmax
// and rmsnorm, written at tensor granularity. Each instruction works on a
// whole tensor, however large: an SBUF tensor of 512 partitions, a matmul
// with K = 512 and N = 1024, a PSUM destination wider than a bank, a weight
// row broadcast across partitions with a step-0 partition pair. These are
// "macro operations" (docs/bir-json.md, "Macro operations"): the verifier
// accepts them before tiling, sunda_size_tiling (passes/tiling) turns them
// into loops of single hardware instructions, and the rest of the pipeline
// handles those loops as it handles the hand-tiled kernels. There are no
// loops and no block tensors here: choosing tiles is the compiler's job.
//
// The shapes are free (no multiple-of-128 rows, no N multiple of a tile):
// the tiler handles the remainder tiles. Each macro kernel's reference is
// the hand-tiled kernel's (the same mathematics); the tolerances are the
// same, and the tests compare the tiled result with the macro module's own
// run bit for bit where tiling keeps the arithmetic (elementwise ops, the
// M and N splits of a matmul) and within the reference's bound where it
// reorders it (the K split of a matmul accumulates per K tile in PSUM).
func init() {
	Register(&Kernel{
		Name: "macro_elementwise",
		Doc:  "z = chain(x, y) over whole tensors: a binary op then unary steps (macro operations; sunda_size_tiling tiles it)",
		Params: []Param{
			{Name: "rows", Default: "512", Doc: "rows (any positive number)"},
			{Name: "cols", Default: "2048", Doc: "columns"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			{Name: "chain", Default: "add+scale+relu", Doc: "steps joined by +: first add, subtract, mult or max of x and y, then any of scale (x2) and relu (max 0)"},
			{Name: "engine", Default: "dve", Doc: "engine of every step: dve or pool (GpSimd: the SIMD-macro path)"},
			archParam,
		},
		Build:     buildMacroElementwise,
		Reference: refMacroElementwise,
		Macro:     true,
		Tests:     []string{"rows=256,cols=96", "rows=200,cols=64,dtype=bfloat16,chain=mult+relu", "rows=200,cols=64,engine=pool,chain=max+scale"},
	})
	Register(&Kernel{
		Name: "macro_matmul",
		Doc:  "result = lhsT^T @ rhs as one whole-tensor Matmult (macro operation: K, M, N of any size)",
		Params: []Param{
			{Name: "m", Default: "256", Doc: "rows of the result"},
			{Name: "k", Default: "512", Doc: "contraction size"},
			{Name: "n", Default: "1024", Doc: "columns of the result"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildMacroMatmul,
		Reference: refMacroMatmul,
		Macro:     true,
		Tests:     []string{"m=128,k=256,n=640", "m=160,k=96,n=576,dtype=bfloat16"},
	})
	Register(&Kernel{
		Name: "macro_softmax",
		Doc:  "row-wise softmax over a whole tensor (macro operations: max, exp with bias, sum, reciprocal, multiply)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (any positive number)"},
			{Name: "cols", Default: "512", Doc: "row length (softmax axis)"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildMacroSoftmax,
		Reference: refMacroSoftmax,
		Macro:     true,
		Tests:     []string{"rows=320,cols=128", "rows=136,cols=200,dtype=bfloat16"},
	})
	Register(&Kernel{
		Name: "macro_rmsnorm",
		Doc:  "out = a * rsqrt(mean(a^2) + eps) * g over whole tensors, g broadcast across partitions (macro operations)",
		Params: []Param{
			{Name: "rows", Default: "256", Doc: "rows (any positive number)"},
			{Name: "d", Default: "512", Doc: "hidden size"},
			{Name: "eps", Default: "1e-6", Doc: "added to the mean square"},
			{Name: "dtype", Default: "float32", Doc: "input and output element type (float32, bfloat16, float16)"},
			archParam,
		},
		Build:     buildMacroRMSNorm,
		Reference: refMacroRMSNorm,
		Macro:     true,
		Tests:     []string{"rows=256,d=128", "rows=192,d=96,dtype=bfloat16"},
	})
}

// ---- macro_elementwise ----

type macroChain struct {
	rows, cols int64
	dt         bir.Dtype
	steps      []string
	eng        bir.Engine
}

var (
	chainBinary = []string{"add", "subtract", "mult", "max"}
	chainUnary  = []string{"scale", "relu"}
)

// positiveParams reads integer parameters that must be positive (a macro
// kernel's shapes are free: the tiler handles any size).
func positiveParams(p Params, names ...string) ([]int64, error) {
	v, err := intParams(p, names...)
	if err != nil {
		return nil, err
	}
	for k, x := range v {
		if x <= 0 {
			return nil, fmt.Errorf("%s=%d: want a positive size", names[k], x)
		}
	}
	return v, nil
}

func macroChainParams(p Params) (macroChain, error) {
	v, err := positiveParams(p, "rows", "cols")
	if err != nil {
		return macroChain{}, err
	}
	c := macroChain{rows: v[0], cols: v[1]}
	if c.dt, err = floatDtype(p); err != nil {
		return c, err
	}
	c.steps = strings.Split(p.Str("chain"), "+")
	if !slices.Contains(chainBinary, c.steps[0]) {
		return c, fmt.Errorf("chain=%s: want the first step one of %s", p.Str("chain"), strings.Join(chainBinary, ", "))
	}
	for _, s := range c.steps[1:] {
		if !slices.Contains(chainUnary, s) {
			return c, fmt.Errorf("chain=%s: step %q: want one of %s after the first", p.Str("chain"), s, strings.Join(chainUnary, ", "))
		}
	}
	switch p.Str("engine") {
	case "dve":
		c.eng = bir.EngDVE
	case "pool":
		c.eng = bir.EngPool
	default:
		return c, fmt.Errorf("engine=%s: want dve or pool", p.Str("engine"))
	}
	return c, nil
}

func buildMacroElementwise(p Params) (*bir.Module, error) {
	c, err := macroChainParams(p)
	if err != nil {
		return nil, err
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", c.dt, c.rows, c.cols)
	y := b.Input("y", c.dt, c.rows, c.cols)
	z := b.Output("z", c.dt, c.rows, c.cols)
	xs := b.SBUF("xs", c.dt, c.rows, c.cols)
	ys := b.SBUF("ys", c.dt, c.rows, c.cols)
	zs := b.SBUF("zs", c.dt, c.rows, c.cols)
	b.Load("load_x", xs.All(), x.All())
	b.Load("load_y", ys.All(), y.All())
	// Intermediates are fp32 (one cast, at the last step, as NKI keeps
	// them); the last step writes the output tile.
	cur := zs
	if len(c.steps) > 1 {
		cur = b.SBUF("t", bir.Float32, c.rows, c.cols)
	}
	b.TensorTensor(c.steps[0], c.eng, c.steps[0], cur.All(), xs.All(), ys.All())
	for k, s := range c.steps[1:] {
		dst := cur
		if k == len(c.steps)-2 {
			dst = zs
		}
		switch s {
		case "scale":
			b.TensorScalar(s, c.eng, dst.All(), cur.All(), "mult", 2, "bypass", 0)
		case "relu":
			b.TensorScalar(s, c.eng, dst.All(), cur.All(), "max", 0, "bypass", 0)
		}
	}
	b.Save("store_z", z.All(), zs.All())
	return finish(b)
}

// refMacroElementwise runs the chain with Go's float32 arithmetic, one
// correctly rounded fp32 operation per step (max as the interpreter's
// maxNaN: a >= b gives a), and one cast at the end: bit-exact.
func refMacroElementwise(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	c, err := macroChainParams(p)
	if err != nil {
		return nil, nil, err
	}
	max32 := func(a, b float32) float32 {
		switch {
		case a != a:
			return a
		case b != b:
			return b
		case a >= b:
			return a
		}
		return b
	}
	return refBinary(in, "z", c.dt, c.rows, c.cols, func(x, y float32) float32 {
		var t float32
		switch c.steps[0] {
		case "add":
			t = x + y
		case "subtract":
			t = x - y
		case "mult":
			t = x * y
		case "max":
			t = max32(x, y)
		}
		for _, s := range c.steps[1:] {
			switch s {
			case "scale":
				t *= 2
			case "relu":
				t = max32(t, 0)
			}
		}
		return t
	})
}

// ---- macro_matmul ----

func macroMatmulParams(p Params) (matmulDims, error) {
	v, err := positiveParams(p, "m", "k", "n")
	if err != nil {
		return matmulDims{}, err
	}
	d := matmulDims{M: v[0], K: v[1], N: v[2]}
	d.dt, err = floatDtype(p)
	return d, err
}

// buildMacroMatmul: the inputs loaded whole into SBUF, one Matmult (start
// and stop: one complete accumulation group) into a PSUM tensor of the
// whole result, one copy to SBUF in the output dtype, one store.
func buildMacroMatmul(p Params) (*bir.Module, error) {
	d, err := macroMatmulParams(p)
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
	ls := b.SBUF("lhsT_sb", d.dt, d.K, d.M)
	rs := b.SBUF("rhs_sb", d.dt, d.K, d.N)
	ps := b.PSUM("res_psum", bir.Float32, d.M, d.N)
	os := b.SBUF("res_sb", d.dt, d.M, d.N)
	b.Load("load_lhsT", ls.All(), lhsT.All())
	b.Load("load_rhs", rs.All(), rhs.All())
	b.Matmult("matmul", ps.All(), ls.All(), rs.All(), true, true)
	b.TensorCopy("copy_psum", bir.EngDVE, os.All(), ps.All())
	b.Save("store_result", res.All(), os.All())
	return finish(b)
}

func refMacroMatmul(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	d, err := macroMatmulParams(p)
	if err != nil {
		return nil, nil, err
	}
	return matmulReference(d, in)
}

// ---- macro_softmax ----

func macroSoftmaxParams(p Params) (rows, cols int64, dt bir.Dtype, err error) {
	v, err := positiveParams(p, "rows", "cols")
	if err != nil {
		return 0, 0, 0, err
	}
	rows, cols = v[0], v[1]
	dt, err = floatDtype(p)
	return rows, cols, dt, err
}

// buildMacroSoftmax is softmax's sequence over the whole [rows, cols]
// tensor; the statistics are [rows, 1] tensors.
func buildMacroSoftmax(p Params) (*bir.Module, error) {
	rows, cols, dt, err := macroSoftmaxParams(p)
	if err != nil {
		return nil, err
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", dt, rows, cols)
	out := b.Output("out", dt, rows, cols)
	xs := b.SBUF("x_sb", dt, rows, cols)
	negMax := b.SBUF("neg_max", bir.Float32, rows, 1)
	e := b.SBUF("exp_sb", bir.Float32, rows, cols)
	sum := b.SBUF("row_sum", bir.Float32, rows, 1)
	rcp := b.SBUF("row_rcp", bir.Float32, rows, 1)
	os := b.SBUF("out_sb", dt, rows, cols)
	b.Load("load_x", xs.All(), x.All())
	b.Inst(bir.OpTensorReduce, "row_max", bir.EngDVE, []bir.Operand{xs.All()}, []bir.Operand{negMax.All()},
		bir.Attrs("op", "max", "axis", "X", "negate", true))
	b.Activation("exp", "Exp", e.All(), xs.All(), 1, negMax.All())
	b.TensorReduce("row_sum", bir.EngDVE, "add", "X", sum.All(), e.All())
	b.Activation("reciprocal", "Reciprocal", rcp.All(), sum.All(), 1, bir.Operand{})
	b.TensorScalarPtr("normalize", bir.EngDVE, os.All(), e.All(), rcp.All(), "mult", bir.Operand{}, "bypass")
	b.Save("store_out", out.All(), os.All())
	return finish(b)
}

func refMacroSoftmax(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	rows, cols, dt, err := macroSoftmaxParams(p)
	if err != nil {
		return nil, nil, err
	}
	return softmaxReference(rows, cols, dt, in)
}

// ---- macro_rmsnorm ----

func macroRMSNormParams(p Params) (rmsDims, error) {
	v, err := positiveParams(p, "rows", "d")
	if err != nil {
		return rmsDims{}, err
	}
	r := rmsDims{rows: v[0], d: v[1]}
	err = r.readEpsDtype(p)
	return r, err
}

// buildMacroRMSNorm is rmsnorm's sequence over the whole [rows, d] tensor.
// The weight g is loaded once into one partition and read by the last
// multiply with a partition pair of step 0 ([[0, rows], [1, d]]): every
// row reads the same weights. That is the macro form of a broadcast; the
// tiler replicates the row across the tile's partitions (seed 002 §2.4,
// software replication) instead of the hand-written kernel's ones-matmul.
func buildMacroRMSNorm(p Params) (*bir.Module, error) {
	r, err := macroRMSNormParams(p)
	if err != nil {
		return nil, err
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	R, D := r.rows, r.d
	a := b.Input("a", r.dt, R, D)
	g := b.Input("g", r.dt, D)
	out := b.Output("out", r.dt, R, D)
	gsb := b.SBUF("g_sb", r.dt, 1, D)
	as := b.SBUF("a_sb", r.dt, R, D)
	sq := b.SBUF("sq", bir.Float32, R, D)
	ss := b.SBUF("sum_sq", bir.Float32, R, 1)
	ms := b.SBUF("mean_sq", bir.Float32, R, 1)
	rs := b.SBUF("rstd", bir.Float32, R, 1)
	y := b.SBUF("y", bir.Float32, R, D)
	os := b.SBUF("out_sb", r.dt, R, D)
	b.Load("load_g", gsb.All(), g.AP(0, [2]int64{D, 1}, [2]int64{1, D}))
	b.Load("load_a", as.All(), a.All())
	b.Activation("square", "Square", sq.All(), as.All(), 1, bir.Operand{})
	b.TensorReduce("sum_sq", bir.EngDVE, "add", "X", ss.All(), sq.All())
	b.TensorScalar("mean_eps", bir.EngDVE, ms.All(), ss.All(), "mult", 1/float64(D), "add", r.eps)
	b.Activation("rsqrt", "Rsqrt", rs.All(), ms.All(), 1, bir.Operand{})
	b.TensorScalarPtr("scale_rows", bir.EngDVE, y.All(), as.All(), rs.All(), "mult", bir.Operand{}, "bypass")
	b.TensorTensor("mult_g", bir.EngDVE, "mult", os.All(), y.All(), gsb.AP(0, [2]int64{0, R}, [2]int64{1, D}))
	b.Save("store_out", out.All(), os.All())
	return finish(b)
}

func refMacroRMSNorm(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	r, err := macroRMSNormParams(p)
	if err != nil {
		return nil, nil, err
	}
	return rmsnormReference(r, in)
}
