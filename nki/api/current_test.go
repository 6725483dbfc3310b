package api

import (
	"math"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// apiCase is a small kernel of either API, its inputs and a Go reference
// of each output.
type apiCase struct {
	name   string
	head   string // the imports (curHead or opHead)
	body   string
	inputs map[string][]int64
	dtypes map[string]bir.Dtype           // default float32
	gens   map[string]func(int64) float32 // default gen
	args   []Binding                      // non-tensor parameters, after the tensors
	arch   string
	ref    func(in map[string][]float32) map[string][]float32
	tol    float64
	check  func(t *testing.T, ops map[string]int)
	// noPipeline: run the traced module only: the default pipeline keeps
	// runtime loops (FullUnroll's level 1) yet its last stage claims
	// "unrolled", which the verifier refuses, and the scheduler leaves a
	// function with loops unscheduled.
	noPipeline bool
}

const curHead = `import numpy as np
import nki
import nki.language as nl
import nki.isa as nisa
import nki.collectives as ncc

@nki.jit
`

func runAPICase(t *testing.T, c apiCase) {
	t.Helper()
	head := c.head
	if head == "" {
		head = curHead
	}
	var args []Binding
	var names []string
	for _, p := range paramNames(c.body) {
		shape, ok := c.inputs[p]
		if !ok {
			continue
		}
		dt := bir.Float32
		if d, ok := c.dtypes[p]; ok {
			dt = d
		}
		args = append(args, tensorArg(p, dt, shape...))
		names = append(names, p)
	}
	args = append(args, c.args...)
	src := head + c.body
	m, res, err := traceArch(t, src, "k", args, nil, c.arch)
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	in := map[string]*interp.Tensor{}
	vals := map[string][]float32{}
	for _, n := range names {
		g := gen
		if f, ok := c.gens[n]; ok {
			g = f
		}
		dt := bir.Float32
		if d, ok := c.dtypes[n]; ok {
			dt = d
		}
		in[n] = dtTensor(n, dt, c.inputs[n], g)
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
	if !c.noPipeline {
		pipelineCheck(t, m, in)
	}
}

// traceArch is traceSrc for a target.
func traceArch(t testing.TB, src, kernel string, args []Binding, grid []int64, archName string) (*bir.Module, *TraceResult, error) {
	t.Helper()
	return traceCall(t, src, kernel, func(call *KernelCall) {
		call.Args, call.Grid, call.Arch = args, grid, archName
	})
}

func seqf(n int, f func(i int) float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func f32(x float64) float32 { return float32(x) }

var currentCases = []apiCase{
	{
		name: "elementwise",
		body: `def k(a, b):
    x = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    y = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    nisa.dma_copy(y, b)
    s = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor(dst=s, data1=x, data2=y, op=nl.multiply)
    col = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=col, value=0.5)
    t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar(t, s, nl.multiply, col, op1=nl.add, operand1=1.0)
    e = nl.ndarray((128, 64), dtype=nl.bfloat16, buffer=nl.sbuf)
    nisa.activation(dst=e, op=nl.exp, data=x, bias=col, scale=2.0)
    r = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.reciprocal(dst=r, data=t)
    c = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=c, src=e, engine=nisa.engine.scalar)
    outs = []
    for v in (t, c, r):
        o = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=o, src=v)
        outs.append(o)
    return tuple(outs)
`,
		inputs: map[string][]int64{"a": {128, 64}, "b": {128, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			n := 128 * 64
			t := seqf(n, func(i int) float32 { return in["a"][i]*in["b"][i]*0.5 + 1 })
			c := seqf(n, func(i int) float32 { return roundBF16(f32(math.Exp(float64(2*in["a"][i] + 0.5)))) })
			r := seqf(n, func(i int) float32 { return 1 / t[i] })
			return map[string][]float32{"return0": t, "return1": c, "return2": r}
		},
		tol: 1e-6,
	},
	{
		name: "matmul_accumulate_and_transpose",
		body: `def k(lhsT, rhs):
    acc = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.psum)
    for kk in nl.affine_range(2):
        a = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
        b = nl.ndarray((128, 96), dtype=nl.float32, buffer=nl.sbuf)
        nisa.dma_copy(dst=a, src=lhsT[nl.ds(kk * 128, 128), :])
        nisa.dma_copy(dst=b, src=rhs[kk * 128:(kk + 1) * 128, :])
        nisa.nc_matmul(acc, a, b)
    res = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=res, src=acc)
    tp = nl.ndarray((96, 64), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_transpose(dst=tp, data=res)
    tr = nl.ndarray((96, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=tr, src=tp)
    out = nl.ndarray((64, 96), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=res)
    out_t = nl.ndarray((96, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out_t, src=tr)
    return out, out_t
`,
		inputs: map[string][]int64{"lhsT": {256, 64}, "rhs": {256, 96}},
		ref: func(in map[string][]float32) map[string][]float32 {
			mm := refMatmul(in["lhsT"], in["rhs"], 256, 64, 96)
			return map[string][]float32{"return0": mm, "return1": seqf(96*64, func(i int) float32 { return mm[(i%64)*96+i/64] })}
		},
		tol: 1e-5,
		check: func(t *testing.T, ops map[string]int) {
			if ops["Loop"] != 1 || ops["Matmult"] < 1 {
				t.Errorf("want the K loop kept with its accumulation group: %v", ops)
			}
		},
	},
	{
		name: "access_patterns",
		body: `def k(a):
    x = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    mid = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=mid, src=x.ap(pattern=[[256, 128], [2, 64]], offset=3))
    ev = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=ev.ap(pattern=[[256, 128], [2, 128]], offset=1), src=x[:, 0:128])
    nisa.tensor_copy(dst=ev.ap(pattern=[[256, 128], [2, 128]]), src=x[:, 128:256])
    o1 = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o1, src=mid)
    o2 = nl.ndarray((128, 256), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o2.ap([[256, 128], [1, 256]]), src=ev)
    return o1, o2
`,
		inputs: map[string][]int64{"a": {128, 256}},
		ref: func(in map[string][]float32) map[string][]float32 {
			a := in["a"]
			mid := seqf(128*64, func(i int) float32 { return a[(i/64)*256+3+2*(i%64)] })
			ev := seqf(128*256, func(i int) float32 {
				p, f := i/256, i%256
				if f%2 == 1 {
					return a[p*256+f/2]
				}
				return a[p*256+128+f/2]
			})
			return map[string][]float32{"return0": mid, "return1": ev}
		},
	},
	{
		name: "iota_affine_select_reduce",
		body: `def k(a):
    x = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=x, src=a)
    ix = nl.ndarray((64, 64), dtype=nl.int32, buffer=nl.sbuf)
    nisa.iota(ix, [[1, 64]], 10, channel_multiplier=64)
    lower = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.affine_select(dst=lower, pattern=[[-1, 64]], channel_multiplier=1, on_true_tile=x, on_false_value=-9.0, cmp_op=nl.greater_equal)
    m = nl.ndarray((64, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=m, op=nl.maximum, data=lower, axis=1, negate=True, keepdims=True)
    o1 = nl.ndarray((64, 64), dtype=nl.int32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o1, src=ix)
    o2 = nl.ndarray((64, 64), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o2, src=lower)
    o3 = nl.ndarray((64, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o3, src=m)
    return o1, o2, o3
`,
		inputs: map[string][]int64{"a": {64, 64}},
		ref: func(in map[string][]float32) map[string][]float32 {
			a := in["a"]
			low := seqf(64*64, func(i int) float32 {
				if i/64-i%64 >= 0 {
					return a[i]
				}
				return -9
			})
			mx := seqf(64, func(p int) float32 {
				v := low[p*64]
				for j := 1; j < 64; j++ {
					v = max(v, low[p*64+j])
				}
				return -v
			})
			return map[string][]float32{"return0": seqf(64*64, func(i int) float32 { return float32(10 + i) }), "return1": low, "return2": mx}
		},
	},
	{
		name: "dynamic_offsets",
		body: `def k(x, start, idx):
    s = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=s, src=start)
    rows = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=rows, src=x.ap(pattern=[[64, 32], [1, 64]], offset=0, scalar_offset=s, indirect_dim=0))
    r = nisa.register_alloc()
    nisa.register_load(r, s)
    sh = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=sh, src=x.ap(pattern=[[64, 32], [1, 64]], offset=64, scalar_offset=r, indirect_dim=0))
    ix = nl.ndarray((32, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=ix, src=idx)
    g = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=g, src=x.ap(pattern=[[64, 32], [1, 64]], offset=0, vector_offset=ix, indirect_dim=0), dge_mode=nisa.dge_mode.swdge)
    outs = []
    for v in (rows, sh, g):
        o = nl.ndarray((32, 64), dtype=nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=o, src=v)
        outs.append(o)
    return tuple(outs)
`,
		inputs: map[string][]int64{"x": {100, 64}, "start": {1, 1}, "idx": {32, 1}},
		dtypes: map[string]bir.Dtype{"start": bir.Int32, "idx": bir.Int32},
		gens: map[string]func(int64) float32{
			"x":     func(i int64) float32 { return float32(i) },
			"start": func(int64) float32 { return 7 },
			"idx":   func(i int64) float32 { return float32((i * 37) % 100) },
		},
		ref: func(in map[string][]float32) map[string][]float32 {
			x := in["x"]
			return map[string][]float32{
				"return0": seqf(32*64, func(i int) float32 { return x[(7+i/64)*64+i%64] }),
				"return1": seqf(32*64, func(i int) float32 { return x[(8+i/64)*64+i%64] }),
				"return2": seqf(32*64, func(i int) float32 { return x[((i/64*37)%100)*64+i%64] }),
			}
		},
	},
	{
		name: "runtime_loops",
		body: `def k(x, count):
    xt = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    acc = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.sbuf)
    nisa.memset(dst=acc, value=0.0)
    c = nl.ndarray((1, 1), dtype=nl.int32, buffer=nl.sbuf)
    nisa.dma_copy(dst=c, src=count)
    n = nisa.register_alloc()
    nisa.register_load(n, c)
    for i in nl.dynamic_range(1, n):
        nisa.tensor_tensor(dst=acc, data1=acc, data2=xt, op=nl.add)
    w = nisa.register_alloc(2)
    while w:
        nisa.tensor_scalar(dst=acc, data=acc, op0=nl.multiply, operand0=3.0)
        nisa.register_store(c, w)
        nisa.tensor_scalar(dst=c, data=c, op0=nl.add, operand0=-1.0)
        nisa.register_load(w, c)
    out = nl.ndarray((128, 32), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=acc)
    return out
`,
		inputs: map[string][]int64{"x": {128, 32}, "count": {1, 1}},
		dtypes: map[string]bir.Dtype{"count": bir.Int32},
		gens:   map[string]func(int64) float32{"count": func(int64) float32 { return 5 }},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": seqf(128*32, func(i int) float32 { return 4 * in["x"][i] * 9 })}
		},
		check: func(t *testing.T, ops map[string]int) {
			if ops["DynamicForLoop"] != 2 || ops["DoWhile"] != 1 {
				t.Errorf("want a DynamicForLoop for nl.dynamic_range and a guard DynamicForLoop around a DoWhile for while: %v", ops)
			}
		},
		noPipeline: true,
	},
	{
		name: "constants",
		body: `def k(x):
    xt = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    ident = nl.shared_identity_matrix(128, dtype=nl.float32)
    ps = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)
    nisa.nc_matmul(dst=ps, stationary=xt, moving=ident)
    tr = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=tr, src=ps)
    rows = nl.shared_constant(np.arange(128, dtype=np.float32).reshape(128, 1) / 4 - 3)
    col = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=col, src=rows)
    irregular = nl.shared_constant(np.array([[1, 5, 5, 2], [0, 0, 7, 7]]), dtype=nl.float32)
    nisa.tensor_scalar(dst=tr, data=tr, op0=nl.add, operand0=col)
    o1 = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o1, src=tr)
    o2 = nl.ndarray((2, 4), dtype=nl.float32, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=o2, src=irregular)
    return o1, o2
`,
		inputs: map[string][]int64{"x": {128, 128}},
		ref: func(in map[string][]float32) map[string][]float32 {
			x := in["x"]
			return map[string][]float32{
				"return0": seqf(128*128, func(i int) float32 { m, n := i/128, i%128; return x[n*128+m] + float32(m)/4 - 3 }),
				"return1": {1, 5, 5, 2, 0, 0, 7, 7},
			}
		},
		tol: 1e-6,
	},
	{
		name: "accumulator_instructions",
		body: `def k(x, col):
    xt = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=xt, src=x)
    c = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.dma_copy(dst=c, src=col)
    d = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_reduce(dst=d, data=xt, op0=nl.multiply, operand0=c, reduce_op=nl.add, reduce_res=s)
    cum = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(dst=cum, src=xt, op0=nl.add, op1=nl.maximum, imm0=0.0)
    e = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    es = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.activation(dst=e[:, 0:32], op=nl.square, data=xt[:, 0:32], reduce_op=nl.add, reduce_cmd=nisa.reduce_cmd.reset_reduce)
    nisa.activation(dst=e[:, 32:64], op=nl.square, data=xt[:, 32:64], bias=1.0, reduce_op=nl.add, reduce_res=es, reduce_cmd=nisa.reduce_cmd.reduce)
    outs = []
    for v in (d, s, cum, es):
        o = nl.ndarray(v.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nisa.dma_copy(dst=o, src=v)
        outs.append(o)
    return tuple(outs)
`,
		inputs: map[string][]int64{"x": {128, 64}, "col": {128, 1}},
		ref: func(in map[string][]float32) map[string][]float32 {
			x, c := in["x"], in["col"]
			d := seqf(128*64, func(i int) float32 { return x[i] * c[i/64] })
			s := seqf(128, func(p int) float32 {
				var v float32
				for j := 0; j < 64; j++ {
					v += d[p*64+j]
				}
				return v
			})
			cum := seqf(128*64, func(i int) float32 {
				v := float32(math.Inf(-1))
				for j := (i / 64) * 64; j <= i; j++ {
					v = max(v, x[j])
				}
				return v
			})
			es := seqf(128, func(p int) float32 {
				var v float32
				for j := 0; j < 32; j++ {
					v += x[p*64+j] * x[p*64+j]
				}
				for j := 32; j < 64; j++ {
					v += (x[p*64+j] + 1) * (x[p*64+j] + 1)
				}
				return v
			})
			return map[string][]float32{"return0": d, "return1": s, "return2": cum, "return3": es}
		},
		tol: 1e-5,
	},
	{
		name: "collectives_enums_version",
		body: `def k(x, eng=nisa.engine.vector):
    assert isinstance(eng, nisa.engine) and eng is not nisa.engine.tensor
    assert nisa.get_nc_version() == nisa.nc_version.gen2
    group = ncc.ReplicaGroup([[0]])
    y = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    ncc.all_reduce(srcs=[x], dsts=[y], replica_group=group, op=nl.add)
    t = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=y)
    u = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=u, src=t, engine=eng)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=u)
    return out
`,
		inputs: map[string][]int64{"x": {64, 32}},
		arch:   "trn1",
		args:   []Binding{{Name: "eng", Value: enumEngine.get("gpsimd")}},
		ref: func(in map[string][]float32) map[string][]float32 {
			return map[string][]float32{"return": in["x"]}
		},
		check: func(t *testing.T, ops map[string]int) {
			if ops["TensorCopy"] != 1 {
				t.Errorf("%v", ops)
			}
		},
	},
	{
		name: "legacy_rounding_var_all",
		head: opHead,
		body: `def k(a):
    x = nl.load(a)
    outs = []
    for v in (nl.floor(x), nl.ceil(x), nl.trunc(x), nl.fmod(x, 0.75), nl.var(x, axis=1), nl.all(x, axis=1)):
        o = nl.ndarray(v.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=v)
        outs.append(o)
    return tuple(outs)
`,
		inputs: map[string][]int64{"a": {128, 600}},
		gens:   map[string]func(int64) float32{"a": func(i int64) float32 { return float32((i*37)%41-20) / 7 }},
		ref: func(in map[string][]float32) map[string][]float32 {
			a := in["a"]
			n := len(a)
			vr := seqf(128, func(p int) float32 {
				var s, s2 float64
				for j := 0; j < 600; j++ {
					s += float64(a[p*600+j])
				}
				mean := s / 600
				for j := 0; j < 600; j++ {
					d := float64(a[p*600+j]) - mean
					s2 += d * d
				}
				return float32(s2 / 600)
			})
			all := seqf(128, func(p int) float32 {
				for j := 0; j < 600; j++ {
					if a[p*600+j] == 0 {
						return 0
					}
				}
				return 1
			})
			return map[string][]float32{
				"return0": seqf(n, func(i int) float32 { return f32(math.Floor(float64(a[i]))) }),
				"return1": seqf(n, func(i int) float32 { return f32(math.Ceil(float64(a[i]))) }),
				"return2": seqf(n, func(i int) float32 { return f32(math.Trunc(float64(a[i]))) }),
				"return3": seqf(n, func(i int) float32 { return f32(math.Mod(float64(a[i]), 0.75)) }),
				"return4": vr,
				"return5": all,
			}
		},
		tol: 1e-5,
	},
}

var legacySharedCases = []apiCase{
	{
		name: "legacy_forms_of_current_instructions",
		head: opHead,
		body: `def k(a, b, ix):
    x = nl.load(a)
    col = nl.load(b)
    s = nl.ndarray((128, 1), dtype=nl.float32, buffer=nl.sbuf)
    t = nisa.tensor_scalar_reduce(data=x, op0=np.multiply, operand0=col, reduce_op=np.add, reduce_res=s)
    idx = nl.load(ix)
    g = nisa.local_gather(x, idx, num_elem_per_idx=2)
    c = nl.static_cast(x, dtype=nl.int32)
    assert nl.finfo(nl.float16).max == 65504 and nl.finfo(nl.bfloat16).bits == 16
    outs = []
    for v in (t, s, g, c):
        o = nl.ndarray(v.shape, dtype=nl.float32, buffer=nl.shared_hbm)
        nl.store(o, value=v)
        outs.append(o)
    return tuple(outs)
`,
		inputs: map[string][]int64{"a": {128, 64}, "b": {128, 1}, "ix": {128, 2}},
		dtypes: map[string]bir.Dtype{"ix": bir.Uint16},
		gens:   map[string]func(int64) float32{"ix": func(i int64) float32 { return float32((i * 6) % 64) }},
		ref: func(in map[string][]float32) map[string][]float32 {
			a, b, ix := in["a"], in["b"], in["ix"]
			t := seqf(128*64, func(i int) float32 { return a[i] * b[i/64] })
			s := seqf(128, func(p int) float32 {
				var v float32
				for j := 0; j < 64; j++ {
					v += t[p*64+j]
				}
				return v
			})
			g := seqf(128*64, func(i int) float32 {
				p, j := i/64, i%64
				v, e := j/2, j%2
				c := p / 16
				idx := int(ix[(16*c+v%16)*2+v/16])
				return a[p*64+idx+e]
			})
			c := seqf(128*64, func(i int) float32 { return float32(math.RoundToEven(float64(a[i]))) })
			return map[string][]float32{"return0": t, "return1": s, "return2": g, "return3": c}
		},
		tol: 1e-6,
	},
}

// TestLegacy_SharedInstructions: the legacy forms the current API's
// lowering serves (tensor_scalar_reduce, local_gather), nl.static_cast
// and nl.finfo.
func TestLegacy_SharedInstructions(t *testing.T) {
	for _, c := range legacySharedCases {
		t.Run(c.name, func(t *testing.T) { runAPICase(t, c) })
	}
}

// roundBF16 rounds to bfloat16 (nearest even).
func roundBF16(x float32) float32 {
	b := math.Float32bits(x)
	b += 0x7fff + (b>>16)&1
	return math.Float32frombits(b &^ 0xffff)
}

// TestCurrent_Cases: kernels of the current API (and the legacy
// functions with several instructions), each against a Go reference
// before and after the default pipeline (the verifier after every pass).
func TestCurrent_Cases(t *testing.T) {
	for _, c := range currentCases {
		t.Run(c.name, func(t *testing.T) { runAPICase(t, c) })
	}
}

// TestCurrent_Errors: the current API's error classes: the kind, code,
// message and line.
func TestCurrent_Errors(t *testing.T) {
	head := strings.TrimSuffix(curHead, "@nki.jit\n") + "@nki.jit\ndef k(a, b):\n"
	// Line 9 is the body's first line.
	cases := []struct {
		name, body, kind, code, text string
		line                         int
	}{
		{"mask", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.dma_copy(dst=x, src=a)\n    y = nl.exp(x, mask=None)\n", "NKIError", "NW422", "the current nki API has no mask parameter", 11},
		{"no arange", "    i = nl.arange(128)\n", "AttributeError", tracer.CodePythonError, "arange", 9},
		{"dst in HBM", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.tensor_copy(dst=b, src=x)\n", "NKIError", "NW422", "dst tensor b is in HBM", 10},
		{"matmul into SBUF", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.nc_matmul(x, x, x)\n", "NKIError", "NW422", "writes PSUM", 10},
		{"dma from PSUM", "    p = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum)\n    nisa.dma_copy(dst=b, src=p)\n", "NKIError", "NW422", "cannot access PSUM", 10},
		{"raw enum int", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.dma_copy(dst=x, src=a, dge_mode=2)\n", "TypeError", tracer.CodePythonError, "takes a member of nisa.dge_mode", 10},
		{"ap of a view", "    v = a[0:64, :].ap([[128, 64], [1, 128]])\n", "NKIError", "NW422", "already indexed tensor", 9},
		{"ap partition step", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    v = x.ap([[64, 128], [1, 64]])\n", "NKIError", "NW422", "its step must be the 128 elements of a partition", 10},
		{"runtime loop iterator", "    r = nisa.register_alloc(4)\n    for i in nl.dynamic_range(r):\n        if i == 0:\n            pass\n", "NKIError", "NW422", "cannot unroll", 11},
		{"runtime loop python state", "    n = 0\n    for i in nl.dynamic_range(4):\n        n += 1\n", "NotSupported", "NW421", "changes Python state", 10},
		{"if on a register", "    r = nisa.register_alloc(1)\n    if r:\n        pass\n", "NotSupported", "NW421", "never closed", 10},
		{"two ranks", "    g = ncc.ReplicaGroup([[0, 1]])\n    ncc.all_reduce(srcs=[a], dsts=[b], replica_group=g, op=nl.add)\n", "NotSupported", "NW421", "needs several devices", 10},
		{"memset int", "    x = nl.ndarray((128, 128), dtype=nl.int32)\n    nisa.memset(x, 2.5)\n", "NKIError", "NW422", "does not fit dst's integer dtype", 10},
		{"unsupported isa", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.dropout(x, x, 0.5)\n", "NotSupported", "NW421", "nisa.dropout is not supported by narwhal", 10},
		{"psum address", "    p = nl.ndarray((128, 128), dtype=nl.float32, buffer=nl.psum, address=(0, 100))\n", "NKIError", "NW422", "starts at a bank boundary", 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := traceSrc(t, head+c.body, "k", []Binding{tensorArg("a", bir.Float32, 128, 128), tensorArg("b", bir.Float32, 128, 128)}, nil)
			wantError(t, err, c.kind, c.code, c.text, c.line)
		})
	}
}

// traceCall traces kernel of src with the call set adjusts.
func traceCall(t testing.TB, src, kernel string, set func(*KernelCall)) (*bir.Module, *TraceResult, error) {
	t.Helper()
	f, err := syntax.Parse("k.py", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	th := tracer.NewThread(tracer.ThreadOptions{Importer: testImporter{}})
	mod, err := tracer.ExecFile(th, f, "__main__")
	if err != nil {
		t.Fatalf("module top level: %v", err)
	}
	v, ok := mod.Get(kernel)
	if !ok {
		t.Fatalf("no %s in the module", kernel)
	}
	fn, _ := KernelOf(v)
	if fn == nil {
		t.Fatalf("%s is not a kernel", kernel)
	}
	call := KernelCall{File: "k.py", Name: kernel, Fn: fn}
	set(&call)
	return TraceKernel(th, call)
}

const fixedSrc = `import nki
import nki.isa as nisa
import nki.language as nl

@nki.jit
def k(x):
    a = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf, address=(0, A))
    b = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf, address=(P, B))
    nisa.dma_copy(dst=a, src=x)
    nisa.tensor_scalar(dst=b, data=a, op0=nl.multiply, operand0=2.0)
    ps = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum, address=(0, PS))
    nisa.tensor_copy(dst=ps, src=b)
    c = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_copy(dst=c, src=ps)
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=c)
    return out
`

func fixedKernel(a, p, b, ps string) string {
	return strings.NewReplacer("(0, A)", "(0, "+a+")", "(P, B)", "("+p+", "+b+")", "(0, PS)", "(0, "+ps+")").Replace(fixedSrc)
}

// TestCurrent_FixedAddresses: placements checked against the machine where
// the kernel makes them (kind, code, message, line), an overlap of two
// placed tiles live at once named at its line, and the memory planner's
// report of its own placement beside the kernel's; compiled with the
// placements open (KernelCall.OpenPlacements) the kernel computes the same
// and the scheduler gives both makespans.
func TestCurrent_FixedAddresses(t *testing.T) {
	args := []Binding{tensorArg("x", bir.Float32, 128, 512)}
	for _, c := range []struct {
		name, a, p, b, ps, text string
		line                    int
	}{
		{"start partition", "0", "32", "4096", "0", "cannot start at partition 32", 8},
		{"sbuf capacity", "212000", "0", "4096", "0", "beyond the 212992 usable bytes per partition of trn2", 7},
		{"alignment", "0", "0", "4098", "0", "not a multiple of the 4-byte float32 element", 8},
		{"psum bank", "0", "0", "4096", "16384", "PSUM bank 8", 11},
		{"overlap", "0", "0", "1024", "0", "overlaps a tile live at the same time", 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := traceSrc(t, fixedKernel(c.a, c.p, c.b, c.ps), "k", args, nil)
			wantError(t, err, "NKIError", "NW422", c.text, c.line)
		})
	}

	src := fixedKernel("0", "0", "4096", "6144")
	m, res := mustTrace(t, src, "k", args, nil)
	open, _, err := traceCall(t, src, "k", func(call *KernelCall) { call.Args, call.OpenPlacements = args, true })
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*interp.Tensor{"x": f32Tensor("x", []int64{128, 512}, gen)}
	want := mapf(floats(in["x"]), func(_ int, v float32) float32 { return 2 * v })
	closeTo(t, "fixed", floats(run(t, m, in)[res.Returns[0].Tensor]), want, 0)
	closeTo(t, "open", floats(run(t, open, in)[res.Returns[0].Tensor]), want, 0)
	pipelineCheck(t, m, in)
	var spans [2]int64
	for i, openIt := range []bool{false, true} {
		mod, _, err := traceCall(t, src, "k", func(call *KernelCall) { call.Args, call.OpenPlacements = args, openIt })
		if err != nil {
			t.Fatal(err)
		}
		rep, err := pipeline.Table.Run(mod, pass.Config{})
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		spans[i] = rep.Result("time_aware_scheduler").Counter("makespan_ns")
		if spans[i] <= 0 {
			t.Errorf("no makespan for compile %d", i)
		}
		var text string
		for _, b := range rep.Result("alloc").Blocks {
			if strings.HasPrefix(b.Title, "Fixed placements") {
				text = b.Text
			}
		}
		if i == 1 {
			if text != "" {
				t.Errorf("the open compile reports fixed placements:\n%s", text)
			}
			continue
		}
		// Three placed tiles, each beside the planner's own placement.
		for _, want := range []string{"function k: 3 placed by the kernel", "(0, 4096)", "(0, 6144)", "SBUF peak per partition: 6144 bytes with the kernel's placements", "PSUM peak per partition"} {
			if !strings.Contains(text, want) {
				t.Errorf("the allocation report lacks %q:\n%s", want, text)
			}
		}
	}
	t.Logf("makespan with the kernel's placements %d ns, with the planner's %d ns", spans[0], spans[1])
}
