package api

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
)

// opCase is a small kernel, its inputs (float32, values from gen) and a Go
// reference of each output key.
type opCase struct {
	name   string
	body   string
	inputs map[string][]int64
	grid   []int64
	ref    func(in map[string][]float32) map[string][]float32
	tol    float64
	check  func(t *testing.T, ops map[string]int)
}

const opHead = `import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.compiler as ncc

@nki.jit
`

func gen(i int64) float32 { return float32((i*7)%11)/4 - 1.25 }

func mapf(xs []float32, f func(int, float32) float32) []float32 {
	out := make([]float32, len(xs))
	for i, x := range xs {
		out[i] = f(i, x)
	}
	return out
}

var opCases = []opCase{
	{
		name: "mgrid_nc_matmul_and_copy",
		body: `def k(a, b):
    out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    i = nl.mgrid[0:128, 0:64]
    j = nl.mgrid[0:128, 0:96]
    x = nl.load(a[i.p, i.x])
    y = nl.load(b[j.p, j.x])
    ps = nisa.nc_matmul(x, y)
    o = nl.mgrid[0:64, 0:96]
    nl.store(out[o.p, o.x], value=nisa.tensor_copy(ps))
    return out
`,
		inputs: map[string][]int64{"a": {128, 64}, "b": {128, 96}},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": refMatmul(in["a"], in["b"], 128, 64, 96)}
		},
		tol: 1e-5,
	},
	{
		name: "matmul_without_transpose_x",
		body: `def k(a, b):
    out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(out, value=nl.matmul(x, y))
    return out
`,
		inputs: map[string][]int64{"a": {64, 128}, "b": {128, 96}},
		ref: func(in map[string][]float32) map[string][]float32 {
			at := make([]float32, 128*64)
			for i := 0; i < 64; i++ {
				for k := 0; k < 128; k++ {
					at[k*64+i] = in["a"][i*128+k]
				}
			}
			return map[string][]float32{"return": refMatmul(at, in["b"], 128, 64, 96)}
		},
		tol: 1e-5,
		check: func(t *testing.T, ops map[string]int) {
			if ops["Transpose"] != 1 || ops["Matmult"] != 1 {
				t.Errorf("%v: want the PE transpose of x, then the matmul", ops)
			}
		},
	},
	{
		name: "activation_bias_scale_and_reduce",
		body: `def k(a, b):
    out = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    out2 = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    bias = nl.load(b)
    y = nisa.activation(op=nl.exp, data=x, bias=bias, scale=0.5)
    s = nl.sum(y, axis=1, keepdims=True)
    m = nl.mean(x, axis=[1])
    nl.store(out, value=nl.add(s, nl.expand_dims(m, 1)))
    nl.store(out2, value=nisa.tensor_scalar(y, np.multiply, s, op1=np.subtract, operand1=1.0))
    return out, out2
`,
		inputs: map[string][]int64{"a": {128, 32}, "b": {128, 1}},
		ref: func(in map[string][]float32) map[string][]float32 {
			o, o2 := make([]float32, 128), make([]float32, 128*32)
			for p := 0; p < 128; p++ {
				var s, m float32
				y := make([]float32, 32)
				for f := 0; f < 32; f++ {
					y[f] = float32(math.Exp(float64(in["a"][p*32+f]*0.5 + in["b"][p])))
					s += y[f]
					m += in["a"][p*32+f]
				}
				o[p] = s + m/32
				for f := 0; f < 32; f++ {
					o2[p*32+f] = y[f]*s - 1
				}
			}
			return map[string][]float32{"return0": o, "return1": o2}
		},
		tol: 1e-4,
	},
	{
		name: "where_compare_and_operators",
		body: `def k(a, b):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    z = nl.where(x > y, x * 2.0 - y, -y)
    nl.store(out, value=z)
    return out
`,
		inputs: map[string][]int64{"a": {64, 48}, "b": {64, 48}},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": mapf(in["a"], func(i int, x float32) float32 {
				y := in["b"][i]
				if x > y {
					return x*2 - y
				}
				return -y
			})}
		},
	},
	{
		name: "iota_and_affine_select",
		body: `def k(a):
    out = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    idx = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p = nl.arange(128)[:, None]
    i_f = nl.arange(128)[None, :]
    x = nl.load(a)
    nl.store(out, value=nisa.affine_select(pred=(i_p >= i_f), on_true_tile=x, on_false_value=-9984.0))
    nl.store(idx, value=nisa.iota(i_p * 128 + i_f, dtype=nl.float32))
    return out, idx
`,
		inputs: map[string][]int64{"a": {128, 128}},
		ref: func(in map[string][]float32) map[string][]float32 {
			o := mapf(in["a"], func(i int, x float32) float32 {
				if i/128 >= i%128 {
					return x
				}
				return -9984
			})
			return map[string][]float32{"return0": o, "return1": mapf(in["a"], func(i int, _ float32) float32 { return float32(i) })}
		},
	},
	{
		name: "bn_stats_aggr",
		body: `def k(a):
    out = nl.ndarray((128, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    st = nisa.bn_stats(x)
    nl.store(out, value=nisa.bn_aggr(st))
    return out
`,
		inputs: map[string][]int64{"a": {128, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			o := make([]float32, 256)
			for p := 0; p < 128; p++ {
				var s, ss float64
				for f := 0; f < 64; f++ {
					v := float64(in["a"][p*64+f])
					s += v
					ss += v * v
				}
				mean := s / 64
				o[2*p], o[2*p+1] = float32(mean), float32(ss/64-mean*mean)
			}
			return map[string][]float32{"return": o}
		},
		tol: 1e-5,
	},
	{
		name: "transpose_load_transpose2d_dma_copy",
		body: `def k(a):
    t1 = nl.ndarray((64, 32), dtype=nl.float32, buffer=nl.shared_hbm)
    t2 = nl.ndarray((64, 32), dtype=nl.float32, buffer=nl.shared_hbm)
    t3 = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    nl.store(t1, value=nl.transpose(x))
    nl.store(t2, value=nl.load_transpose2d(a))
    nisa.dma_copy(src=a, dst=t3)
    return t1, t2, t3
`,
		inputs: map[string][]int64{"a": {32, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			tr := make([]float32, 64*32)
			for i := 0; i < 32; i++ {
				for j := 0; j < 64; j++ {
					tr[j*32+i] = in["a"][i*64+j]
				}
			}
			return map[string][]float32{"return0": tr, "return1": tr, "return2": in["a"]}
		},
	},
	{
		name: "scan_and_partition_reduce",
		body: `def k(a, b):
    out = nl.ndarray((128, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    red = nl.ndarray((1, 16), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(out, value=nisa.tensor_tensor_scan(x, y, initial=0.0, op0=np.multiply, op1=np.add))
    nl.store(red, value=nisa.tensor_partition_reduce(np.add, x))
    return out, red
`,
		inputs: map[string][]int64{"a": {128, 16}, "b": {128, 16}},
		ref: func(in map[string][]float32) map[string][]float32 {
			o, r := make([]float32, 128*16), make([]float32, 16)
			for p := 0; p < 128; p++ {
				var h float32
				for t := 0; t < 16; t++ {
					h = in["a"][p*16+t]*h + in["b"][p*16+t]
					o[p*16+t] = h
					r[t] += in["a"][p*16+t]
				}
			}
			return map[string][]float32{"return0": o, "return1": r}
		},
		tol: 1e-5,
	},
	{
		name: "mod_alloc_double_buffer",
		body: `def k(a):
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    buf = nl.ndarray((4, nl.par_dim(128), 64), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    ps = nl.ndarray((4, nl.par_dim(128), 64), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
    for i in nl.affine_range(4):
        buf[i] = nl.load(a[i * 128:(i + 1) * 128, :])
        ps[i] = nl.exp(buf[i])
        nl.store(out[i * 128:(i + 1) * 128, :], value=ps[i])
    return out
`,
		inputs: map[string][]int64{"a": {512, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": mapf(in["a"], func(_ int, x float32) float32 { return float32(math.Exp(float64(x))) })}
		},
		tol: 1e-6,
		check: func(t *testing.T, ops map[string]int) {
			if ops["Loop"] != 1 {
				t.Errorf("%v: want the loop kept", ops)
			}
		},
	},
	{
		name: "spmd_grid_kept",
		body: `def k(a, b):
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    assert nl.program_ndim() == 2 and nl.num_programs(0) == 2
    rows = nl.ds(i * 128, 128)
    cols = nl.ds(j * 64, 64)
    nl.store(c[rows, cols], value=nl.load(a[rows, cols]) + nl.load(b[rows, cols]))
    return c
`,
		inputs: map[string][]int64{"a": {256, 128}, "b": {256, 128}},
		grid:   []int64{2, 2},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": mapf(in["a"], func(i int, x float32) float32 { return x + in["b"][i] })}
		},
		check: func(t *testing.T, ops map[string]int) {
			if ops["Loop"] != 2 {
				t.Errorf("%v: want the two program-id loops kept", ops)
			}
		},
	},
	{
		name: "spmd_grid_python_on_program_id",
		body: `def k(a):
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    x = nl.load(a[i * 128:(i + 1) * 128, :])
    if i == 1:
        x = nl.multiply(x, 3.0)
    nl.store(c[i * 128:(i + 1) * 128, :], value=x)
    return c
`,
		inputs: map[string][]int64{"a": {256, 32}},
		grid:   []int64{2},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": mapf(in["a"], func(i int, x float32) float32 {
				if i >= 128*32 {
					return 3 * x
				}
				return x
			})}
		},
		check: func(t *testing.T, ops map[string]int) {
			if ops["Loop"] != 0 || ops["Load"] != 2 {
				t.Errorf("%v: want the program ids traced one by one (two loads, no loop)", ops)
			}
		},
	},
	{
		name: "sbuf_accumulation_sequential",
		body: `def k(a):
    out = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.sequential_range(4):
        acc += nl.load(a[i * 128:(i + 1) * 128, :])
    nl.store(out, value=acc)
    return out
`,
		inputs: map[string][]int64{"a": {512, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			o := make([]float32, 128*64)
			for i, x := range in["a"] {
				o[i%(128*64)] += x
			}
			return map[string][]float32{"return": o}
		},
		tol: 1e-6,
		check: func(t *testing.T, ops map[string]int) {
			if ops["Loop"] != 1 || ops["TensorTensor"] != 1 {
				t.Errorf("%v: want one kept loop with the add", ops)
			}
		},
	},
	{
		name: "softmax_rms_norm",
		body: `def k(a, g):
    sm = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    rn = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    x = nl.load(a)
    w = nl.load(g)
    nl.store(sm, value=nl.softmax(x, axis=1))
    nl.store(rn, value=nl.rms_norm(x, w, axis=1, n=64, epsilon=1e-5))
    return sm, rn
`,
		inputs: map[string][]int64{"a": {128, 64}, "g": {1, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			sm, rn := make([]float32, 128*64), make([]float32, 128*64)
			for p := 0; p < 128; p++ {
				row := in["a"][p*64 : (p+1)*64]
				mx, sum, ss := math.Inf(-1), 0.0, 0.0
				for _, v := range row {
					mx = math.Max(mx, float64(v))
					ss += float64(v) * float64(v)
				}
				for _, v := range row {
					sum += math.Exp(float64(v) - mx)
				}
				r := 1 / math.Sqrt(ss/64+1e-5)
				for f, v := range row {
					sm[p*64+f] = float32(math.Exp(float64(v)-mx) / sum)
					rn[p*64+f] = float32(float64(v) * r * float64(in["g"][f]))
				}
			}
			return map[string][]float32{"return0": sm, "return1": rn}
		},
		tol: 1e-5,
	},
	{
		name: "written_parameter",
		body: `def k(a, out):
    x = nl.load(a)
    nl.store(out[0:64, :], value=nl.exp(x[0:64, :]))
`,
		inputs: map[string][]int64{"a": {128, 16}, "out": {128, 16}},
		ref: func(in map[string][]float32) map[string][]float32 {
			// Rows the kernel does not write keep the caller's values.
			return map[string][]float32{"out": mapf(in["a"], func(i int, x float32) float32 {
				if i < 64*16 {
					return float32(math.Exp(float64(x)))
				}
				return in["out"][i]
			})}
		},
		tol: 1e-6,
	},
}

// TestTraceKernel_Ops: small kernels of the API, each against a Go
// reference before and after the default pipeline.
func TestTraceKernel_Ops(t *testing.T) {
	for _, c := range opCases {
		t.Run(c.name, func(t *testing.T) {
			var args []Binding
			var names []string
			for _, p := range paramNames(c.body) {
				args = append(args, tensorArg(p, bir.Float32, c.inputs[p]...))
				names = append(names, p)
			}
			m, res := mustTrace(t, opHead+c.body, "k", args, c.grid)
			in := map[string]*interp.Tensor{}
			vals := map[string][]float32{}
			for _, n := range names {
				in[n] = f32Tensor(n, c.inputs[n], gen)
				vals[n] = floats(in[n])
			}
			out := run(t, m, in)
			want := c.ref(vals)
			keys := map[string]string{}
			for _, io := range append(res.Returns, res.Written...) {
				keys[io.Key] = io.Tensor
			}
			for key, w := range want {
				got, ok := out[keys[key]]
				if !ok {
					t.Fatalf("no output %s (outputs %v)", key, keys)
				}
				closeTo(t, key, floats(got), w, c.tol)
			}
			f := kernelFunc(m)
			if c.check != nil {
				c.check(t, countOps(f))
			}
			f.Walk(func(i bir.InstID) bool {
				if p := f.InstPos(i); p.File != "k.py" || p.Line < 8 {
					t.Errorf("%s (%s) has the position %v, want a line of the kernel", f.InstName(i), f.OpName(i), p)
				}
				return true
			})
			pipelineCheck(t, m, in)
		})
	}
}

// paramNames reads the kernel's parameter names from "def k(a, b):".
func paramNames(body string) []string {
	open, close := 0, 0
	for i, r := range body {
		if r == '(' && open == 0 {
			open = i + 1
		}
		if r == ')' {
			close = i
			break
		}
	}
	var out []string
	cur := ""
	for _, r := range body[open:close] {
		switch r {
		case ',':
			out = append(out, cur)
			cur = ""
		case ' ':
		default:
			cur += string(r)
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
