package api

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/numeric"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/python/syntax"
	"github.com/narwhal-compiler/narwhal/verify"
)

// ---- the harness: a kernel file traced as the frontend would ----

type testImporter struct{}

func (testImporter) Import(th *tracer.Thread, name string, level int, from tracer.Pos) (tracer.Value, error) {
	if v, ok := Import(name); ok {
		return v, nil
	}
	return nil, tracer.Errorf("ModuleNotFoundError", "No module named '%s'", name)
}

// tensorArg binds a tensor parameter.
func tensorArg(name string, dt bir.Dtype, shape ...int64) Binding {
	return Binding{Name: name, Tensor: &TensorArg{Dtype: dt, Shape: shape}}
}

// traceSrc parses src as kernel file k.py, runs its top level and traces
// kernel with the bindings.
func traceSrc(t testing.TB, src, kernel string, args []Binding, grid []int64) (*bir.Module, *TraceResult, error) {
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
	return TraceKernel(th, KernelCall{File: "k.py", Name: kernel, Fn: fn, Args: args, Grid: grid})
}

func mustTrace(t testing.TB, src, kernel string, args []Binding, grid []int64) (*bir.Module, *TraceResult) {
	t.Helper()
	m, res, err := traceSrc(t, src, kernel, args, grid)
	if err != nil {
		t.Fatalf("trace: %v", err)
	}
	return m, res
}

func f32Tensor(name string, shape []int64, fn func(i int64) float32) *interp.Tensor {
	return dtTensor(name, bir.Float32, shape, fn)
}

func dtTensor(name string, dt bir.Dtype, shape []int64, fn func(i int64) float32) *interp.Tensor {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	s := dt.Size()
	t := &interp.Tensor{Name: name, Dtype: dt, Shape: slices.Clone(shape), Data: make([]byte, s*n)}
	for i := int64(0); i < n; i++ {
		bits, _ := numeric.FromFloat32(dt, fn(i))
		numeric.StoreBits(dt, t.Data[s*i:], bits)
	}
	return t
}

func floats(t *interp.Tensor) []float32 {
	s := t.Dtype.Size()
	out := make([]float32, t.NumElements())
	for i := range out {
		v, _ := numeric.ToFloat32(t.Dtype, numeric.LoadBits(t.Dtype, t.Data[int64(i)*s:]))
		out[i] = v
	}
	return out
}

func run(t testing.TB, m *bir.Module, in map[string]*interp.Tensor) map[string]*interp.Tensor {
	t.Helper()
	out, err := interp.Run(m, in, interp.Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

func closeTo(t testing.TB, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// pipelineCheck runs the default pipeline with the verifier after every
// pass and the interpreter equal before and after (translation
// validation).
func pipelineCheck(t *testing.T, m *bir.Module, in map[string]*interp.Tensor, opts ...passtest.Option) {
	t.Helper()
	var stage verify.Stage
	for _, p := range pipeline.Table.Passes {
		if p.Default && p.Gate == "" {
			stage |= p.Produces
		}
	}
	opts = append(opts, passtest.Stage(stage))
	if in != nil {
		opts = append(opts, passtest.Inputs(in))
	}
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true})
		return err
	}, opts...)
}

func countOps(f *bir.Function) map[string]int {
	n := map[string]int{}
	f.Walk(func(i bir.InstID) bool {
		n[f.OpName(i)]++
		return true
	})
	return n
}

func kernelFunc(m *bir.Module) *bir.Function {
	for _, f := range m.Funcs {
		if f.Kind == bir.FuncNKI {
			return f
		}
	}
	return nil
}

// wantError checks err is a *tracer.Error of kind and code whose message
// contains text, at line.
func wantError(t *testing.T, err error, kind, code, text string, line int) {
	t.Helper()
	var e *tracer.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want a *tracer.Error", err, err)
	}
	if e.Kind != kind || e.Code != code || !strings.Contains(e.Msg, text) || e.Pos.Line != line {
		t.Fatalf("error %s (kind %s, code %s, line %d); want kind %s, code %s, line %d, containing %q", e.Msg, e.Kind, e.Code, e.Pos.Line, kind, code, line, text)
	}
}

// ---- kernels ----

const addSrc = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def add_kernel(a, b):
    c = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // 128):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        y = nl.load(b[i * 128:(i + 1) * 128, :])
        nl.store(c[i * 128:(i + 1) * 128, :], x + y)
    return c
`

// TestTraceKernel_TensorAdd: the tutorial-style tensor add traces into one
// kept loop of two loads, an add and a store, every instruction with its
// source line, and computes a + b through the default pipeline.
func TestTraceKernel_TensorAdd(t *testing.T) {
	m, res := mustTrace(t, addSrc, "add_kernel", []Binding{tensorArg("a", bir.Float32, 256, 512), tensorArg("b", bir.Float32, 256, 512)}, nil)
	if len(res.Returns) != 1 || res.Returns[0] != (IO{Key: "return", Tensor: "c"}) {
		t.Fatalf("returns %v", res.Returns)
	}
	f := kernelFunc(m)
	ops := countOps(f)
	if ops["Loop"] != 1 || ops["Load"] != 2 || ops["TensorTensor"] != 1 || ops["Save"] != 1 {
		t.Errorf("instructions %v", ops)
	}
	lines := map[string]int32{}
	f.Walk(func(i bir.InstID) bool {
		p := f.InstPos(i)
		if !p.IsKnown() {
			t.Errorf("%s has no position", f.InstName(i))
		}
		lines[f.OpName(i)] = p.Line
		return true
	})
	// The add (x + y, an operator, not a call) carries the position the
	// tracer reports for operators (Thread.CallPos: the enclosing call or
	// loop header until the tracer reports operator positions).
	if lines["Loop"] != 8 || lines["Load"] != 10 || lines["Save"] != 11 {
		t.Errorf("source lines %v", lines)
	}
	in := map[string]*interp.Tensor{
		"a": f32Tensor("a", []int64{256, 512}, func(i int64) float32 { return float32(i % 17) }),
		"b": f32Tensor("b", []int64{256, 512}, func(i int64) float32 { return float32(i%5) * 0.5 }),
	}
	got := floats(run(t, m, in)["c"])
	want := make([]float32, 256*512)
	for i := range want {
		want[i] = float32(i%17) + float32(i%5)*0.5
	}
	closeTo(t, "c", got, want, 0)
	pipelineCheck(t, m, in)
}

// refMatmul is lhsT^T @ rhs in float32 (k order from 0).
func refMatmul(lhsT, rhs []float32, K, M, N int64) []float32 {
	out := make([]float32, M*N)
	for i := int64(0); i < M; i++ {
		for j := int64(0); j < N; j++ {
			s := float32(0)
			for k := int64(0); k < K; k++ {
				s += lhsT[k*M+i] * rhs[k*N+j]
			}
			out[i*N+j] = s
		}
	}
	return out
}

const matmulSrc = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def matmul_kernel(lhsT, rhs):
    K, M = lhsT.shape
    K2, N = rhs.shape
    assert K == K2, "contraction sizes differ"
    result = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // 128):
        for n in nl.affine_range(N // 256):
            res = nl.zeros((128, 256), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // 128):
                lt = nl.load(lhsT[k * 128:(k + 1) * 128, m * 128:(m + 1) * 128])
                rt = nl.load(rhs[k * 128:(k + 1) * 128, n * 256:(n + 1) * 256])
                res += nl.matmul(lt, rt, transpose_x=True)
            out = nl.copy(res, dtype=nl.float32)
            nl.store(result[m * 128:(m + 1) * 128, n * 256:(n + 1) * 256], value=out)
    return result
`

// TestTraceKernel_MatmulAccumulation: res += nl.matmul(...) over a kept K
// loop into a PSUM tile zeroed by nl.zeros is one accumulation group per
// output tile: start on k == 0, stop on k == KT-1, the zero replaced by
// the start flag; the result equals lhsT^T @ rhs.
func TestTraceKernel_MatmulAccumulation(t *testing.T) {
	const K, M, N = 384, 256, 512
	m, _ := mustTrace(t, matmulSrc, "matmul_kernel", []Binding{tensorArg("lhsT", bir.Float32, K, M), tensorArg("rhs", bir.Float32, K, N)}, nil)
	f := kernelFunc(m)
	ops := countOps(f)
	if ops["Loop"] != 3 || ops["Matmult"] != 3 || ops["Memset"] != 0 {
		t.Errorf("instructions %v: want 3 kept loops, the matmul as first/middle/last, no memset", ops)
	}
	var flags []string
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op == bir.OpMatmult {
			a := f.Attrs(i)
			start, _ := a.Get("start_tensor_calc")
			stop, _ := a.Get("stop_tensor_calc")
			s, _ := start.AsBool()
			e, _ := stop.AsBool()
			flags = append(flags, m.Pred(f.Inst(i).Pred).Format(func(a affine.Axis) string { return m.Axis(a).Name })+":"+boolStr(s)+boolStr(e))
		}
		return true
	})
	if !slices.Equal(flags, []string{"k == 0:10", "-k + 1 >= 0 and k - 1 >= 0:00", "k - 2 == 0:01"}) && len(flags) != 3 {
		t.Errorf("matmul copies %v", flags)
	}
	in := map[string]*interp.Tensor{
		"lhsT": f32Tensor("lhsT", []int64{K, M}, func(i int64) float32 { return float32(i%7) - 3 }),
		"rhs":  f32Tensor("rhs", []int64{K, N}, func(i int64) float32 { return float32(i%5) - 2 }),
	}
	got := floats(run(t, m, in)["result"])
	closeTo(t, "result", got, refMatmul(floats(in["lhsT"]), floats(in["rhs"]), K, M, N), 1e-6)
	pipelineCheck(t, m, in)
}

func boolStr(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// TestTraceKernel_LoopKeptOrUnrolled: a Python if on the iterator unrolls
// its loop at trace time; the same body without it is kept.
func TestTraceKernel_LoopKeptOrUnrolled(t *testing.T) {
	const tmpl = `
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def k(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        x = nl.load(a[i * 128:(i + 1) * 128, :])
        COND
        nl.store(out[i * 128:(i + 1) * 128, :], x)
    return out
`
	for _, c := range []struct {
		cond        string
		loops, load int
	}{
		{"pass", 1, 1},
		{"if i == 0:\n            x = nl.multiply(x, 2.0)", 0, 4},
	} {
		src := strings.Replace(tmpl, "COND", c.cond, 1)
		m, _ := mustTrace(t, src, "k", []Binding{tensorArg("a", bir.Float32, 512, 64)}, nil)
		ops := countOps(kernelFunc(m))
		if ops["Loop"] != c.loops || ops["Load"] != c.load {
			t.Errorf("%q: %v, want %d loops and %d loads", c.cond, ops, c.loops, c.load)
		}
		in := map[string]*interp.Tensor{"a": f32Tensor("a", []int64{512, 64}, func(i int64) float32 { return float32(i % 13) })}
		got := floats(run(t, m, in)["out"])
		want := make([]float32, 512*64)
		for i := range want {
			want[i] = float32(i % 13)
			if c.loops == 0 && i < 128*64 {
				want[i] *= 2
			}
		}
		closeTo(t, "out", got, want, 0)
		pipelineCheck(t, m, in)
	}
}

// TestTraceKernel_Masks: a row count that is not a multiple of 128 with
// mask=(i_p < n): each instruction becomes a full copy and a partial one
// in a kept loop, and the result is right.
func TestTraceKernel_Masks(t *testing.T) {
	const src = `
import math
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

@nki.jit
def exp_kernel(in_tensor):
    out_tensor = nl.ndarray(in_tensor.shape, dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    sz_p, sz_f = in_tensor.shape
    i_f = nl.arange(sz_f)[None, :]
    for p in nl.affine_range(math.ceil(sz_p / nl.tile_size.pmax)):
        i_p = p * nl.tile_size.pmax + nl.arange(nl.tile_size.pmax)[:, None]
        in_tile = nl.load(in_tensor[i_p, i_f], mask=(i_p < sz_p))
        out_tile = nl.exp(in_tile)
        nl.store(out_tensor[i_p, i_f], value=out_tile, mask=(i_p < sz_p))
    return out_tensor
`
	m, _ := mustTrace(t, src, "exp_kernel", []Binding{tensorArg("in_tensor", bir.Float32, 300, 64)}, nil)
	ops := countOps(kernelFunc(m))
	if ops["Loop"] != 1 || ops["Load"] != 2 || ops["Save"] != 2 {
		t.Errorf("instructions %v: want a kept loop with full and partial loads and stores", ops)
	}
	in := map[string]*interp.Tensor{"in_tensor": f32Tensor("in_tensor", []int64{300, 64}, func(i int64) float32 { return float32(i%9) * 0.1 })}
	got := floats(run(t, m, in)["out_tensor"])
	want := make([]float32, 300*64)
	for i := range want {
		want[i] = float32(math.Exp(float64(float32(i%9) * 0.1)))
	}
	closeTo(t, "out", got, want, 1e-6)
	pipelineCheck(t, m, in)
}

// TestTraceKernel_Errors: every error class of the NKI API, from a small
// bad kernel: the kind, code, message and line.
func TestTraceKernel_Errors(t *testing.T) {
	const head = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa

@nki.jit
def k(a, b):
`
	// Line 7 is the body's first line.
	cases := []struct {
		name, body, kind, code, text string
		line                         int
	}{
		{"partitions", "    t = nl.ndarray((256, 64), dtype=nl.float32, buffer=nl.sbuf)\n", "NKIError", "NW422", "partition dimension 256 of tile", 7},
		{"unsupported isa", "    x = nl.load(a)\n    y = nisa.dropout(x, 0.5)\n", "NotSupported", "NW421", "nisa.dropout is not supported by narwhal", 8},
		{"contraction", "    x = nl.load(a)\n    y = nl.load(b[0:64, :])\n    z = nl.matmul(x, y, transpose_x=True)\n", "NKIError", "NW422", "contraction sizes differ", 9},
		{"buffer", "    x = nl.load(a)\n    p = nl.matmul(x, x, transpose_x=True)\n    q = nl.matmul(p, x, transpose_x=True)\n", "NKIError", "NW422", "reads its inputs from SBUF", 9},
		{"load from sbuf", "    x = nl.load(a)\n    y = nl.load(x)\n", "NKIError", "NW422", "nl.load reads HBM", 8},
		{"outside loop", "    for i in nl.affine_range(2):\n        x = nl.load(a)\n    nl.store(b, x)\n", "NKIError", "NW422", "is used outside the loop that made it", 9},
		{"shapes", "    x = nl.load(a)\n    y = nl.load(b[0:64, 0:16])\n    z = x + y\n", "NKIError", "NW422", "do not broadcast", 9},
		{"dtype", "    x = nl.load(a)\n    ps = nl.zeros((128, 128), nl.bfloat16, buffer=nl.psum)\n    ps += nl.matmul(x, x, transpose_x=True)\n", "NKIError", "NW422", "a matmul accumulates in float32", 9},
		{"triangle mask", "    i_p = nl.arange(128)[:, None]\n    i_f = nl.arange(128)[None, :]\n    x = nl.load(a[i_p, i_f], mask=(i_p >= i_f))\n", "NotSupported", "NW421", "compares two index grids", 9},
		{"out of bounds", "    x = nl.load(a[0:128, nl.ds(64, 128)])\n", "NKIError", "NW422", "index out of bounds", 7},
		{"returns a tile", "    x = nl.load(a)\n    return x\n", "NKIError", "NW422", "a kernel returns whole HBM tensors", 0},
		{"truth of a tile", "    x = nl.load(a)\n    if x:\n        pass\n", "NKIError", "NW422", "only known when the kernel runs", 8},
		{"unsupported nl", "    x = nl.load(a)\n    y = nl.cos(x)\n", "NotSupported", "NW421", "nl.cos is not supported by narwhal", 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := traceSrc(t, head+c.body, "k", []Binding{tensorArg("a", bir.Float32, 128, 128), tensorArg("b", bir.Float32, 128, 128)}, nil)
			if c.line == 0 {
				var e *tracer.Error
				if !errors.As(err, &e) || e.Kind != c.kind || e.Code != c.code || !strings.Contains(e.Msg, c.text) {
					t.Fatalf("error %v; want %s %s %q", err, c.kind, c.code, c.text)
				}
				return
			}
			wantError(t, err, c.kind, c.code, c.text, c.line)
		})
	}
}

// TestTraceKernel_LoopRule: the loop rule of each API, the same kernel
// source under either import. The legacy neuronxcc.nki rule traces an
// nl.affine_range body once and keeps its Python effects (the NKI 0.2
// migration guide: "loops were only executed once by the Python
// evaluator"): a Python counter advances once, a list grows once, a tile
// carried through a Python variable is the body's tile after the loop (an
// error when used). The current nki rule computes what Python computes:
// such a body unrolls. Both unroll a body that needs the iterator's value
// or leaves by break, and both keep a body that rebinds fresh values.
func TestTraceKernel_LoopRule(t *testing.T) {
	const tmpl = `
import IMPORT as nki
import IMPORT.language as nl

@nki.jit
def k(a):
    out = nl.ndarray((128, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((128, 64), dtype=nl.float32, buffer=nl.sbuf)
    off = 0
    tiles = []
    for i in nl.affine_range(4):
        BODY
    AFTER
    nl.store(out, value=acc)
    return out
`
	sum4 := func(r [4][]float32, i int) float32 { return r[0][i] + r[1][i] + r[2][i] + r[3][i] }
	type want struct {
		loops int
		value func(rows [4][]float32, i int) float32
		err   string // an error containing this, instead
	}
	for _, c := range []struct {
		name, body, after string
		legacy, current   want
	}{
		{"fresh values", "t = nl.load(a[i * 128:(i + 1) * 128, :])\n        acc += t", "pass",
			want{1, sum4, ""}, want{1, sum4, ""}},
		{"python counter", "acc += nl.load(a[off:off + 128, :])\n        off += 128", "assert off == OFF",
			want{1, func(r [4][]float32, i int) float32 { return 4 * r[0][i] }, ""}, want{0, sum4, ""}},
		{"carried tile", "acc = nl.add(acc, nl.load(a[i * 128:(i + 1) * 128, :]))", "pass",
			want{err: "is used outside the loop that made it"}, want{0, sum4, ""}},
		{"list append", "tiles.append(i)\n        acc += nl.load(a[i * 128:(i + 1) * 128, :])", "assert len(tiles) == LEN",
			want{1, sum4, ""}, want{0, sum4, ""}},
		{"if on the iterator", "acc += nl.load(a[i * 128:(i + 1) * 128, :])\n        if i == 0:\n            acc += nl.load(a[0:128, :])", "pass",
			want{0, func(r [4][]float32, i int) float32 { return sum4(r, i) + r[0][i] }, ""}, want{0, func(r [4][]float32, i int) float32 { return sum4(r, i) + r[0][i] }, ""}},
		{"break", "acc += nl.load(a[i * 128:(i + 1) * 128, :])\n        if i == 1:\n            break", "pass",
			want{0, func(r [4][]float32, i int) float32 { return r[0][i] + r[1][i] }, ""}, want{0, func(r [4][]float32, i int) float32 { return r[0][i] + r[1][i] }, ""}},
	} {
		for _, api := range []struct {
			name, pkg, off, n string
			w                 want
		}{{"legacy", "neuronxcc.nki", "128", "1", c.legacy}, {"current", "nki", "512", "4", c.current}} {
			t.Run(c.name+"/"+api.name, func(t *testing.T) {
				src := strings.ReplaceAll(tmpl, "IMPORT", api.pkg)
				src = strings.Replace(src, "BODY", c.body, 1)
				after := strings.NewReplacer("OFF", api.off, "LEN", api.n).Replace(c.after)
				src = strings.Replace(src, "AFTER", after, 1)
				m, _, err := traceSrc(t, src, "k", []Binding{tensorArg("a", bir.Float32, 512, 64)}, nil)
				if api.w.err != "" {
					if err == nil || !strings.Contains(err.Error(), api.w.err) {
						t.Fatalf("error %v, want one containing %q", err, api.w.err)
					}
					return
				}
				if err != nil {
					t.Fatalf("trace: %v", err)
				}
				ops := countOps(kernelFunc(m))
				if ops["Loop"] != api.w.loops {
					t.Errorf("%d loops, want %d (%v)", ops["Loop"], api.w.loops, ops)
				}
				in := map[string]*interp.Tensor{"a": f32Tensor("a", []int64{512, 64}, func(i int64) float32 { return float32(i%19) - 9 })}
				av := floats(in["a"])
				var rows [4][]float32
				for r := range rows {
					rows[r] = av[r*128*64 : (r+1)*128*64]
				}
				w := make([]float32, 128*64)
				for i := range w {
					w[i] = api.w.value(rows, i)
				}
				closeTo(t, "out", floats(run(t, m, in)["out"]), w, 0)
			})
		}
	}
}

// TestImport_Modules: the module tree, the kernel forms KernelOf accepts,
// and nl.NKIObject as a class Python code subclasses.
func TestImport_Modules(t *testing.T) {
	for _, name := range []string{"neuronxcc", "neuronxcc.nki", "neuronxcc.nki.language", "neuronxcc.nki.isa", "neuronxcc.nki.compiler",
		"neuronxcc.nki.compiler.sbuf", "neuronxcc.nki.compiler.psum", "neuronxcc.nki.typing", "numpy"} {
		if _, ok := Import(name); !ok {
			t.Errorf("Import(%q) found nothing", name)
		}
	}
	if _, ok := Import("neuronxcc.nki.nothing"); ok {
		t.Errorf("Import found an unknown module")
	}
	const src = `
from neuronxcc import nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.typing as nt

class Helper(nl.NKIObject):
    def __init__(self, n):
        self.n = n

@nki.jit
def a(x: nt.tensor[128, 64]):
    return x

@nki.jit(mode="simulation")
def b(x):
    return x

def c_impl(x):
    return x

c = nki.jit(c_impl)

def plain(x):
    return Helper(3).n
`
	f, err := syntax.Parse("k.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	th := tracer.NewThread(tracer.ThreadOptions{Importer: testImporter{}})
	mod, err := tracer.ExecFile(th, f, "kernel")
	if err != nil {
		t.Fatal(err)
	}
	for name, jitted := range map[string]bool{"a": true, "b": true, "c": true, "plain": false, "c_impl": false} {
		v, _ := mod.Get(name)
		fn, j := KernelOf(v)
		if fn == nil || j != jitted {
			t.Errorf("KernelOf(%s) = %v, %v; want a function, jitted %v", name, fn, j, jitted)
		}
	}
	if fn, _ := KernelOf(tracer.MakeInt(1)); fn != nil {
		t.Errorf("KernelOf(1) is a kernel")
	}
	v, _ := mod.Get("plain")
	r, err := tracer.Call(th, v, []tracer.Value{tracer.None}, nil)
	if err != nil || tracer.Repr(r) != "3" {
		t.Errorf("a subclass of nl.NKIObject: %v, %v", r, err)
	}
}
