package lower

import (
	"math"
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/numeric"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// ---- helpers ----

func f32Tensor(name string, shape []int64, fn func(i int64) float32) *interp.Tensor {
	n := elemsOf(shape)
	t := &interp.Tensor{Name: name, Dtype: bir.Float32, Shape: slices.Clone(shape), Data: make([]byte, 4*n)}
	for i := int64(0); i < n; i++ {
		numeric.StoreBits(bir.Float32, t.Data[4*i:], uint64(math.Float32bits(fn(i))))
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

// must returns v, panicking on an error (a test that cannot build its
// kernel has nothing left to check).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// grid2 returns i_p = start + arange(p)[:, None] and i_f = arange(f)[None, :].
func grid2(t *testing.T, p, f int64) (Index, Index) {
	ip := must(must(Arange(0, p, 1)).Expand(2, 0))
	jf := must(must(Arange(0, f, 1)).Expand(2, 1))
	return ip, jf
}

// finish completes k, verifies the module at the input stage and returns it.
func finish(t *testing.T, k *Kernel, rets ...Return) (*bir.Module, *Outputs) {
	t.Helper()
	m, out, err := k.Finish(rets)
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Module(m, verify.Options{}); err != nil {
		t.Fatalf("the traced module does not verify: %v", err)
	}
	return m, out
}

func run(t *testing.T, m *bir.Module, in map[string]*interp.Tensor) map[string]*interp.Tensor {
	t.Helper()
	out, err := interp.Run(m, in, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pipelineCheck runs the default pipeline with the verifier after every
// pass and the interpreter equal before and after.
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

func closeTo(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i] - want[i])); d > tol*(1+math.Abs(float64(want[i]))) || math.IsNaN(float64(got[i])) != math.IsNaN(float64(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// ---- tests ----

// TestKernel_TensorAdd: c = a + b over row tiles in a kept loop: one BIR
// loop, tiles as block tensors with one block per iteration, the
// interpreter's result equal to the sum.
func TestKernel_TensorAdd(t *testing.T) {
	const R, C = 256, 512
	k := must(NewKernel("", "tensor_add"))
	k.SetPos(bir.Pos{File: "k.py", Line: 3, Col: 1})
	a := must(k.Param("a", bir.Float32, []int64{R, C}))
	b := must(k.Param("b", bir.Float32, []int64{R, C}))
	c := must(k.NewHBM("c", HBMShared, bir.Float32, []int64{R, C}))
	l := must(k.BeginLoop("i", 0, R/128, 1))
	ip, jf := grid2(t, 128, C)
	row := l.Iter().Scale(128).Add(ip)
	k.SetPos(bir.Pos{File: "k.py", Line: 6, Col: 5})
	xa := must(k.Load(must(a.Index([]Elem{At(row), At(jf)})), bir.Float32, Mask{}))
	ok(t, xa.SetName("a_tile"))
	xb := must(k.Load(must(b.Index([]Elem{At(row), At(jf)})), bir.Float32, Mask{}))
	ok(t, xb.SetName("b_tile"))
	k.SetPos(bir.Pos{File: "k.py", Line: 8, Col: 5})
	sum := must(k.TensorTensor("nl.add", "add", xa.acc, xb.acc, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, k.Store(must(c.Index([]Elem{At(row), At(jf)})), must(sum.Access()), Mask{}))
	ok(t, k.EndLoop(l))
	m, out := finish(t, k, Return{Key: "return", T: c})
	if len(out.Returns) != 1 || out.Returns[0] != (IO{Key: "return", Tensor: "c"}) {
		t.Fatalf("returns %v", out.Returns)
	}
	f := m.Func("tensor_add")
	if got := countOps(f); got["Loop"] != 1 || got["Load"] != 2 || got["TensorTensor"] != 1 || got["Save"] != 1 {
		t.Errorf("instructions %v, want one loop of 2 loads, an add and a store", got)
	}
	id, _ := f.TensorByName("a_tile_set")
	if ts := f.Tensor(id); !ts.IsBlock || ts.NBlocks != 2 {
		t.Errorf("a_tile: block %v, %d blocks; want a block tensor of 2 blocks", ts.IsBlock, ts.NBlocks)
	}
	in := map[string]*interp.Tensor{
		"a": f32Tensor("a", []int64{R, C}, func(i int64) float32 { return float32(i % 97) }),
		"b": f32Tensor("b", []int64{R, C}, func(i int64) float32 { return float32(i%13) * 0.5 }),
	}
	res := run(t, m, in)
	want := make([]float32, R*C)
	for i := range want {
		want[i] = float32(i%97) + float32(i%13)*0.5
	}
	closeTo(t, "c", floats(res["c"]), want, 0)
	f.Walk(func(i bir.InstID) bool {
		if p := f.InstPos(i); !p.IsKnown() {
			t.Errorf("instruction %s has no source position", f.InstName(i))
		}
		return true
	})
	pipelineCheck(t, m, in)
}

// TestKernel_MatmulAccumulation: res[M, N] = sum_k lhsT[k]^T @ rhs[k] with
// the PSUM tile zeroed by nl.zeros before the kept K loop: one group with
// start on k == 0 and stop on k == KT-1, the zero Memset replaced by the
// start flag.
func TestKernel_MatmulAccumulation(t *testing.T) {
	for _, KT := range []int64{1, 2, 3, 4} {
		K, M, N := 128*KT, int64(128), int64(256)
		k := must(NewKernel("", "mm"))
		lhsT := must(k.Param("lhsT", bir.Float32, []int64{K, M}))
		rhs := must(k.Param("rhs", bir.Float32, []int64{K, N}))
		res := must(k.NewHBM("res", HBMShared, bir.Float32, []int64{M, N}))
		ps := must(k.Fill("ps", PSUM, bir.Float32, []int64{M, N}, 0, nil, 0))
		l := must(k.BeginLoop("k", 0, KT, 1))
		ip, _ := grid2(t, 128, 1)
		row := l.Iter().Scale(128).Add(ip)
		lt := must(k.Load(must(lhsT.Index([]Elem{At(row), All()})), bir.Float32, Mask{}))
		ok(t, lt.SetName("lt"))
		rt := must(k.Load(must(rhs.Index([]Elem{At(row), All()})), bir.Float32, Mask{}))
		ok(t, rt.SetName("rt"))
		mm := must(k.Matmul("nisa.nc_matmul", lt.acc, rt.acc, Mask{}))
		ok(t, mm.Accumulate(must(ps.Whole())))
		ok(t, k.EndLoop(l))
		sb := must(k.Copy(must(ps.Whole()), bir.EngDVE, bir.Float32, Mask{}))
		ok(t, k.Store(must(res.Whole()), must(sb.Access()), Mask{}))
		m, _ := finish(t, k, Return{Key: "return", T: res})
		f := m.Func("mm")
		ops := countOps(f)
		wantMM := map[int64]int{1: 1, 2: 2, 3: 3, 4: 3}[KT]
		if ops["Matmult"] != wantMM || ops["Memset"] != 0 {
			t.Errorf("KT=%d: %v: want %d Matmults and the Memset replaced by the start flag", KT, ops, wantMM)
		}
		starts, stops := 0, 0
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == bir.OpMatmult {
				if v, _ := f.Attrs(i).Get("start_tensor_calc"); isTrue(v) {
					starts++
				}
				if v, _ := f.Attrs(i).Get("stop_tensor_calc"); isTrue(v) {
					stops++
				}
			}
			return true
		})
		if starts != 1 || stops != 1 {
			t.Errorf("KT=%d: %d start and %d stop instructions, want one of each", KT, starts, stops)
		}
		in := map[string]*interp.Tensor{
			"lhsT": f32Tensor("lhsT", []int64{K, M}, func(i int64) float32 { return float32(i%7) - 3 }),
			"rhs":  f32Tensor("rhs", []int64{K, N}, func(i int64) float32 { return float32(i%5) - 2 }),
		}
		got := floats(run(t, m, in)["res"])
		a, b := floats(in["lhsT"]), floats(in["rhs"])
		want := make([]float32, M*N)
		for i := int64(0); i < M; i++ {
			for j := int64(0); j < N; j++ {
				s := float32(0)
				for kk := int64(0); kk < K; kk++ {
					s += a[kk*M+i] * b[kk*N+j]
				}
				want[i*N+j] = s
			}
		}
		closeTo(t, "res", got, want, 1e-6)
		pipelineCheck(t, m, in)
	}
}

// TestKernel_MaskPartialTile: rows = 300 over 128-row tiles: the mask
// i*128 + arange < 300 splits each instruction into a full copy (i <= 1)
// and a partial copy of 44 rows (i == 2), in one kept loop.
func TestKernel_MaskPartialTile(t *testing.T) {
	const R, C = 300, 64
	k := must(NewKernel("", "exp_rows"))
	x := must(k.Param("x", bir.Float32, []int64{R, C}))
	y := must(k.NewHBM("y", HBMShared, bir.Float32, []int64{R, C}))
	l := must(k.BeginLoop("p", 0, 3, 1))
	ip, jf := grid2(t, 128, C)
	row := l.Iter().Scale(128).Add(ip)
	// Without the mask the last tile reads rows 300..383 of x.
	if _, err := k.Load(must(x.Index([]Elem{At(row), At(jf)})), bir.Float32, Mask{}); err != nil {
		t.Fatal(err)
	}
	if err := k.flushErr(); err == nil {
		t.Fatalf("a load reaching row 383 of 300 is not reported")
	}
	k.AbortLoop(l)
	l = must(k.BeginLoop("p", 0, 3, 1))
	row = l.Iter().Scale(128).Add(ip)
	mask := must(Compare(row, ConstIndex(R), "<"))
	xt := must(k.Load(must(x.Index([]Elem{At(row), At(jf)})), bir.Float32, mask))
	ok(t, xt.SetName("xt"))
	e := must(k.Activation("nl.exp", "Exp", xt.acc, nil, Const(1), bir.Float32, mask))
	ok(t, e.SetName("e"))
	ok(t, k.Store(must(y.Index([]Elem{At(row), At(jf)})), e.acc, mask))
	ok(t, k.EndLoop(l))
	m, _ := finish(t, k, Return{Key: "return", T: y})
	f := m.Func("exp_rows")
	ops := countOps(f)
	if ops["Loop"] != 1 || ops["Load"] != 2 || ops["Activation"] != 2 || ops["Save"] != 2 {
		t.Errorf("instructions %v: want one loop with a full and a partial copy of each instruction", ops)
	}
	var partial int
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op == bir.OpActivation {
			p := m.Pattern(f.Outs(i)[0].Pattern)
			if p[0].Num == 44 {
				partial++
				pr := m.Pred(f.Inst(i).Pred)
				for v := int64(0); v < 3; v++ {
					env := &affine.Values{}
					env.Bind(l.Axis, v)
					if holds, _ := pr.Eval(env); holds != (v == 2) {
						t.Errorf("the partial copy's predicate %s is %v at p = %d", pr, holds, v)
					}
				}
			}
		}
		return true
	})
	if partial != 1 {
		t.Errorf("%d partial activations of 44 rows, want 1", partial)
	}
	in := map[string]*interp.Tensor{"x": f32Tensor("x", []int64{R, C}, func(i int64) float32 { return float32(i%11) * 0.1 })}
	got := floats(run(t, m, in)["y"])
	want := make([]float32, R*C)
	for i := range want {
		want[i] = float32(math.Exp(float64(float32(i%11) * 0.1)))
	}
	closeTo(t, "y", got, want, 1e-6)
	pipelineCheck(t, m, in)
}

// TestKernel_RollbackDiscards: a speculative body's instructions, tensors
// and loop disappear with AbortLoop.
func TestKernel_RollbackDiscards(t *testing.T) {
	k := must(NewKernel("", "k"))
	a := must(k.Param("a", bir.Float32, []int64{128, 64}))
	before := k.F.NumInsts()
	l := must(k.BeginLoop("i", 0, 4, 1))
	r := must(k.Load(must(a.Whole()), bir.Float32, Mask{}))
	ok(t, r.SetName("t"))
	k.AbortLoop(l)
	if n := k.F.NumInsts(); n != before {
		t.Errorf("after the rollback the kernel has %d instructions, want %d", n, before)
	}
	if _, found := k.F.TensorByName("t_set"); found {
		t.Errorf("the speculative tile t survived the rollback")
	}
	if len(k.Loops()) != 0 {
		t.Errorf("loops still open: %d", len(k.Loops()))
	}
}

func isTrue(v bir.Value) bool { b, _ := v.AsBool(); return b }

// TestKernel_InOutParameter: a parameter the kernel reads and writes is an
// in/out buffer (copied in, then read and written in place); main has the
// input a and the output a_out.
func TestKernel_InOutParameter(t *testing.T) {
	k := must(NewKernel("", "scale_in_place"))
	a := must(k.Param("a", bir.Float32, []int64{128, 64}))
	l := must(k.BeginLoop("i", 0, 2, 1))
	_, jf := grid2(t, 128, 32)
	ip, _ := grid2(t, 128, 1)
	col := l.Iter().Scale(32).Add(jf)
	x := must(k.Load(must(a.Index([]Elem{At(ip), At(col)})), bir.Float32, Mask{}))
	ok(t, x.SetName("x"))
	y := must(k.TensorScalar("nl.multiply", x.acc, "mult", Const(3), false, "", NoScalar, false, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, k.Store(must(a.Index([]Elem{At(ip), At(col)})), must(y.Access()), Mask{}))
	ok(t, k.EndLoop(l))
	m, out := finish(t, k)
	if len(out.Written) != 1 || out.Written[0] != (IO{Key: "a", Tensor: "a_out"}) {
		t.Fatalf("written %v", out.Written)
	}
	in := map[string]*interp.Tensor{"a": f32Tensor("a", []int64{128, 64}, func(i int64) float32 { return float32(i % 9) })}
	got := floats(run(t, m, in)["a_out"])
	want := make([]float32, 128*64)
	for i := range want {
		want[i] = 3 * float32(i%9)
	}
	closeTo(t, "a_out", got, want, 0)
	pipelineCheck(t, m, in)
}

// TestKernel_SPMDGrid: a 2 x 2 launch grid as two kept program-id loops;
// each program adds one [128, 256] tile.
func TestKernel_SPMDGrid(t *testing.T) {
	k := must(NewKernel("", "spmd_add"))
	a := must(k.Param("a", bir.Float32, []int64{256, 512}))
	b := must(k.Param("b", bir.Float32, []int64{256, 512}))
	c := must(k.NewHBM("c", HBMShared, bir.Float32, []int64{256, 512}))
	g0 := must(k.BeginGrid(0, 2))
	g1 := must(k.BeginGrid(1, 2))
	ip, jf := grid2(t, 128, 256)
	row := g0.Iter().Scale(128).Add(ip)
	col := g1.Iter().Scale(256).Add(jf)
	xa := must(k.Load(must(a.Index([]Elem{At(row), At(col)})), bir.Float32, Mask{}))
	ok(t, xa.SetName("xa"))
	xb := must(k.Load(must(b.Index([]Elem{At(row), At(col)})), bir.Float32, Mask{}))
	ok(t, xb.SetName("xb"))
	s := must(k.TensorTensor("nl.add", "add", xa.acc, xb.acc, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, k.Store(must(c.Index([]Elem{At(row), At(col)})), must(s.Access()), Mask{}))
	ok(t, k.EndLoop(g1))
	ok(t, k.EndLoop(g0))
	m, _ := finish(t, k, Return{Key: "return", T: c})
	if n := countOps(m.Func("spmd_add"))["Loop"]; n != 2 {
		t.Errorf("%d loops, want the two program-id loops", n)
	}
	in := map[string]*interp.Tensor{
		"a": f32Tensor("a", []int64{256, 512}, func(i int64) float32 { return float32(i % 31) }),
		"b": f32Tensor("b", []int64{256, 512}, func(i int64) float32 { return float32(i % 7) }),
	}
	got := floats(run(t, m, in)["c"])
	want := make([]float32, 256*512)
	for i := range want {
		want[i] = float32(i%31) + float32(i%7)
	}
	closeTo(t, "c", got, want, 0)
	pipelineCheck(t, m, in)
}

// TestKernel_FixedPlacement: a tile of 4 logical blocks placed by modulo
// allocation in two physical tiles (double buffering) keeps those
// addresses through the pipeline and computes right.
func TestKernel_FixedPlacement(t *testing.T) {
	k := must(NewKernel("", "mod_alloc"))
	a := must(k.Param("a", bir.Float32, []int64{512, 64}))
	o := must(k.NewHBM("o", HBMShared, bir.Float32, []int64{512, 64}))
	places := []Place{{Byte: 0}, {Byte: 256}, {Byte: 0}, {Byte: 256}}
	buf := must(k.NewTile("buf", SBUF, bir.Float32, []int64{4, 128, 64}, 1, places))
	l := must(k.BeginLoop("b", 0, 4, 1))
	ip, jf := grid2(t, 128, 64)
	row := l.Iter().Scale(128).Add(ip)
	blk := must(buf.Index([]Elem{At(l.Iter()), All(), All()}))
	ok(t, must(k.Load(must(a.Index([]Elem{At(row), At(jf)})), bir.Float32, Mask{})).Into(blk))
	e := must(k.Activation("nl.exp", "Exp", blk, nil, Const(1), bir.Float32, Mask{}))
	ok(t, k.Store(must(o.Index([]Elem{At(row), At(jf)})), must(e.Access()), Mask{}))
	ok(t, k.EndLoop(l))
	m, _ := finish(t, k, Return{Key: "return", T: o})
	f := m.Func("mod_alloc")
	id, _ := f.TensorByName("buf_set")
	var addrs []int64
	for _, lc := range f.Tensor(id).Locs {
		if !f.Loc(lc).Allocated || !f.Loc(lc).Pinned {
			t.Errorf("location %s is not a fixed placement", f.Loc(lc).Name)
		}
		addrs = append(addrs, f.Loc(lc).Addr)
	}
	if !slices.Equal(addrs, []int64{0, 256}) {
		t.Errorf("block addresses %v, want the two physical tiles at 0 and 256", addrs)
	}
	in := map[string]*interp.Tensor{"a": f32Tensor("a", []int64{512, 64}, func(i int64) float32 { return float32(i%5) * 0.25 })}
	got := floats(run(t, m, in)["o"])
	want := make([]float32, 512*64)
	for i := range want {
		want[i] = float32(math.Exp(float64(float32(i%5) * 0.25)))
	}
	closeTo(t, "o", got, want, 1e-6)
	pipelineCheck(t, m, in)
}

// TestKernel_ReduceTransposeBroadcast: a row sum (TensorReduce), a
// per-partition scale by it (TensorScalarPtr), a PE transpose, and a
// partition broadcast of a [1, F] row.
func TestKernel_ReduceTransposeBroadcast(t *testing.T) {
	const P, F = 64, 32
	k := must(NewKernel("", "mix"))
	a := must(k.Param("a", bir.Float32, []int64{P, F}))
	g := must(k.Param("g", bir.Float32, []int64{1, F}))
	o := must(k.NewHBM("o", HBMShared, bir.Float32, []int64{F, P}))
	x := must(k.Load(must(a.Whole()), bir.Float32, Mask{}))
	ok(t, x.SetName("x"))
	s := must(k.Reduce("nl.sum", "add", x.acc, []int{1}, true, false, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, s.SetName("s"))
	y := must(k.TensorScalar("nl.multiply", x.acc, "mult", Scalar{Tile: &s.acc}, false, "", NoScalar, false, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, y.SetName("y"))
	gb := must(k.Broadcast(must(g.Whole()), []int64{P, F}))
	ok(t, gb.SetName("gb"))
	z := must(k.TensorTensor("nl.add", "add", y.acc, gb.acc, bir.EngDVE, bir.Float32, Mask{}))
	ok(t, z.SetName("z"))
	tr := must(k.Transpose("nl.transpose", z.acc, bir.EngPE, Mask{}))
	ok(t, k.Store(must(o.Whole()), must(tr.Access()), Mask{}))
	m, _ := finish(t, k, Return{Key: "return", T: o})
	in := map[string]*interp.Tensor{
		"a": f32Tensor("a", []int64{P, F}, func(i int64) float32 { return float32(i%4) - 1 }),
		"g": f32Tensor("g", []int64{1, F}, func(i int64) float32 { return float32(i) }),
	}
	got := floats(run(t, m, in)["o"])
	av, gv := floats(in["a"]), floats(in["g"])
	want := make([]float32, F*P)
	for p := 0; p < P; p++ {
		sum := float32(0)
		for f := 0; f < F; f++ {
			sum += av[p*F+f]
		}
		for f := 0; f < F; f++ {
			want[f*P+p] = av[p*F+f]*sum + gv[f]
		}
	}
	closeTo(t, "o", got, want, 1e-6)
	pipelineCheck(t, m, in)
}

// TestKernel_BlockFill: nl.zeros of a tensor with block dimensions fills
// each block in a loop; accumulating into its blocks in a kept loop
// (acc[b] += x) is a TensorTensor per iteration.
func TestKernel_BlockFill(t *testing.T) {
	k := must(NewKernel("", "blocks"))
	a := must(k.Param("a", bir.Float32, []int64{256, 16}))
	o := must(k.NewHBM("o", HBMShared, bir.Float32, []int64{256, 16}))
	acc := must(k.Fill("acc", SBUF, bir.Float32, []int64{2, 128, 16}, 1, nil, 1))
	l := must(k.BeginLoop("b", 0, 2, 1))
	ip, jf := grid2(t, 128, 16)
	row := l.Iter().Scale(128).Add(ip)
	x := must(k.Load(must(a.Index([]Elem{At(row), At(jf)})), bir.Float32, Mask{}))
	ok(t, x.SetName("x"))
	blk := must(acc.Index([]Elem{At(l.Iter()), All(), All()}))
	ok(t, k.AugAssign(blk, "add", AccOpd(x.acc), Mask{}))
	ok(t, k.Store(must(o.Index([]Elem{At(row), At(jf)})), blk, Mask{}))
	ok(t, k.EndLoop(l))
	m, _ := finish(t, k, Return{Key: "return", T: o})
	in := map[string]*interp.Tensor{"a": f32Tensor("a", []int64{256, 16}, func(i int64) float32 { return float32(i % 3) })}
	got := floats(run(t, m, in)["o"])
	want := make([]float32, 256*16)
	for i := range want {
		want[i] = 1 + float32(i%3)
	}
	closeTo(t, "o", got, want, 0)
	pipelineCheck(t, m, in)
}
