package interp

import (
	"bytes"
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestDMA_CopyAndConvert(t *testing.T) {
	// fp32 -> bf16 on Load (RNE), bf16 -> bf16 Save raw, and a strided
	// Load picking every other column.
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 2, 4)
	z := b.Output("z", bir.BFloat16, 2, 4)
	h := b.Output("h", bir.Float32, 2, 2)
	a := b.SBUF("a", bir.BFloat16, 2, 4)
	c := b.SBUF("c", bir.Float32, 2, 2)
	b.Load("ld", a.All(), x.All())
	b.Save("st", z.All(), a.All())
	b.Load("ld_strided", c.All(), x.AP(1, [2]int64{4, 2}, [2]int64{2, 2}))
	b.Save("st2", h.All(), c.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	in := f32Tensor("x", []int64{2, 4}, 1, 1+1.0/256, 1+3.0/256, -2, 65536+256, 0.1, negZero, 3)
	out := mustRun(t, m, map[string]*Tensor{"x": in}, Options{})
	wantValues(t, "bf16", values(out["z"]), 1, 1, 1+4.0/256, -2, 65536, float64(float32(0.10009765625)), math.Copysign(0, -1), 3)
	wantValues(t, "strided", values(out["h"]), 1+1.0/256, -2, float64(float32(0.1)), 3)
}

func TestDMA_SameDtypeIsRaw(t *testing.T) {
	// A signalling NaN and -0 survive a same-dtype Load/Save bit for bit.
	m := oneIn(t, bir.Float32, bir.Float32, 1, 2, func(b *bir.Builder, a, d bir.T) {
		b.DMACopy("cp", d.All(), a.All())
	})
	in := &Tensor{Name: "x", Dtype: bir.Float32, Shape: []int64{1, 2}, Data: []byte{1, 0, 0x80, 0x7f, 0, 0, 0, 0x80}}
	out := mustRun(t, m, map[string]*Tensor{"x": in}, Options{})
	if !bytes.Equal(out["z"].Data, in.Data) {
		t.Errorf("raw copy changed bytes: %x -> %x", in.Data, out["z"].Data)
	}
}

func TestDMACopy_CCE(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 1, 3)
	y := b.Input("y", bir.BFloat16, 1, 3)
	z := b.Output("z", bir.Float32, 1, 3)
	b.CCECopy("cce", z.All(), []bir.Operand{x.All(), y.All()}, []float64{2, -1})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, m, map[string]*Tensor{
		"x": f32Tensor("x", []int64{1, 3}, 1, 2, 3),
		"y": tensorOf("y", bir.BFloat16, []int64{1, 3}, 0.5, 4, -6),
	}, Options{})
	wantValues(t, "2x - y", values(out["z"]), 1.5, 0, 12)

	// Scale count mismatch.
	m2, b2 := newB(t)
	x2 := b2.Input("x", bir.Float32, 1, 3)
	z2 := b2.Output("z", bir.Float32, 1, 3)
	b2.CCECopy("cce_bad", z2.All(), []bir.Operand{x2.All()}, []float64{1, 2})
	_, err := Run(m2, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 3}, 1, 2, 3)}, Options{})
	wantErr(t, err, ErrOperand, "cce_bad", "one scale per source")
}

func TestDMACopy_UnmodelledMode(t *testing.T) {
	for _, mode := range []string{"Replicate", "Dynamic"} {
		m := oneIn(t, bir.Float32, bir.Float32, 1, 2, func(b *bir.Builder, a, d bir.T) {
			id := b.DMACopy("cp_m", d.All(), a.All())
			b.F.SetAttr(id, "mode", bir.String(mode))
		})
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrNoSemantics, "cp_m", `mode "`+mode+`"`)
	}
}

// transposeModule loads input x [A, B] (dtype dt) and DMA-transposes it
// into SBUF tile t [B, A] (dtype odt), stored to output z [B, A]; from DRAM
// directly or, with fromSBUF, from an SBUF copy of x. edit adjusts the
// transpose instruction.
func transposeModule(t *testing.T, dt, odt bir.Dtype, A, B int64, fromSBUF bool, edit func(b *bir.Builder, id bir.InstID)) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, A, B)
	z := b.Output("z", odt, B, A)
	tt := b.SBUF("t", odt, B, A)
	src := x.All()
	if fromSBUF {
		s := b.SBUF("s", dt, A, B)
		b.Load("ld", s.All(), x.All())
		src = s.All()
	}
	id := b.DMACopy("dma_t", tt.All(), src)
	b.F.SetAttr(id, "mode", bir.String("Transpose"))
	if edit != nil {
		edit(b, id)
	}
	b.Save("st", z.All(), tt.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDMACopy_Transpose(t *testing.T) {
	// dst[j, i] = src[i, j] for a [2, 3] source, from DRAM and from SBUF.
	for _, dt := range []bir.Dtype{bir.BFloat16, bir.Float16, bir.Int16} {
		for _, fromSBUF := range []bool{false, true} {
			m := transposeModule(t, dt, dt, 2, 3, fromSBUF, nil)
			out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", dt, []int64{2, 3}, 1, 2, 3, -4, 5, 6)}, Options{})
			wantValues(t, dt.String()+" transpose", values(out["z"]), 1, -4, 2, 5, 3, 6)
		}
	}
	// Bit-exact: a bf16 NaN payload and -0 survive.
	m := transposeModule(t, bir.BFloat16, bir.BFloat16, 1, 2, false, nil)
	x := &Tensor{Name: "x", Dtype: bir.BFloat16, Shape: []int64{1, 2}, Data: []byte{0x81, 0x7f, 0x00, 0x80}}
	out := mustRun(t, m, map[string]*Tensor{"x": x}, Options{})
	if !bytes.Equal(out["z"].Data, x.Data) {
		t.Fatalf("bf16 bits % x, want % x", out["z"].Data, x.Data)
	}
	// A transpose over the whole tile: [4, 3] -> [3, 4].
	m = transposeModule(t, bir.Uint16, bir.Uint16, 4, 3, false, nil)
	out = mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.Uint16, []int64{4, 3}, seq(12, func(i int) float64 { return float64(i) })...)}, Options{})
	wantValues(t, "4x3", values(out["z"]), 0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11)

	in := func(dt bir.Dtype, A, B int64) map[string]*Tensor {
		return map[string]*Tensor{"x": tensorOf("x", dt, []int64{A, B}, seq(int(A*B), func(i int) float64 { return float64(i) })...)}
	}
	// What semantics.md §4.8 does not define is refused.
	_, err := Run(transposeModule(t, bir.Float32, bir.Float32, 2, 3, false, nil), in(bir.Float32, 2, 3), Options{})
	wantErr(t, err, ErrOperand, "dma_t", "2-byte dtypes", "float32")
	_, err = Run(transposeModule(t, bir.BFloat16, bir.Float16, 2, 3, false, nil), in(bir.BFloat16, 2, 3), Options{})
	wantErr(t, err, ErrOperand, "dma_t", "keeps the dtype")
	_, err = Run(transposeModule(t, bir.BFloat16, bir.BFloat16, 2, 3, false, func(b *bir.Builder, id bir.InstID) {
		b.F.SetAttr(id, "transpose_op", bir.String("WXZY"))
	}), in(bir.BFloat16, 2, 3), Options{})
	wantErr(t, err, ErrNoSemantics, "dma_t", `transpose_op "WXZY"`, "models None", "XZYW")
	out = mustRun(t, transposeModule(t, bir.BFloat16, bir.BFloat16, 2, 3, false, func(b *bir.Builder, id bir.InstID) {
		b.F.SetAttr(id, "transpose_op", bir.String("None"))
	}), in(bir.BFloat16, 2, 3), Options{})
	wantValues(t, "transpose_op None", values(out["z"]), 0, 3, 1, 4, 2, 5)
	// A 3-D source needs transpose_op XZYW (TestDMACopy_Transpose3D4D).
	m3, b3 := newB(t)
	x3 := b3.Input("x", bir.BFloat16, 2, 2, 2)
	t3 := b3.SBUF("t", bir.BFloat16, 2, 4)
	id := b3.DMACopy("dma_t", t3.All(), x3.AP(0, [2]int64{4, 2}, [2]int64{2, 2}, [2]int64{1, 2}))
	b3.F.SetAttr(id, "mode", bir.String("Transpose"))
	_, err = Run(m3, RandomInputs(m3, 1), Options{})
	wantErr(t, err, ErrNoSemantics, "dma_t", "3 dims", "transposes two dims")
	// The destination must be [B, A] and in SBUF.
	mb, bb := newB(t)
	xb := bb.Input("x", bir.BFloat16, 2, 3)
	tb := bb.SBUF("t", bir.BFloat16, 2, 3)
	id = bb.DMACopy("dma_t", tb.All(), xb.All())
	bb.F.SetAttr(id, "mode", bir.String("Transpose"))
	_, err = Run(mb, RandomInputs(mb, 1), Options{})
	wantErr(t, err, ErrCountMismatch, "dma_t", "is [3 2]")
	md, bd := newB(t)
	xd := bd.Input("x", bir.BFloat16, 2, 3)
	zd := bd.Output("z", bir.BFloat16, 3, 2)
	id = bd.DMACopy("dma_t", zd.All(), xd.All())
	bd.F.SetAttr(id, "mode", bir.String("Transpose"))
	_, err = Run(md, RandomInputs(md, 1), Options{})
	wantErr(t, err, ErrMemoryRule, "dma_t", "writes SBUF")
}

func TestTensorCopy(t *testing.T) {
	// int32 beyond 2^24: bit-exact on DVE (same dtype), lossy to fp32.
	m := oneIn(t, bir.Int32, bir.Float32, 1, 2, func(b *bir.Builder, a, d bir.T) {
		b.TensorCopy("cvt", bir.EngDVE, d.All(), a.All())
	})
	out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 2}, 16777217, -3)}, Options{})
	wantValues(t, "int32->fp32", values(out["z"]), 16777216, -3)

	m2 := oneIn(t, bir.Int32, bir.Int32, 1, 1, func(b *bir.Builder, a, d bir.T) {
		b.TensorCopy("same", bir.EngAct, d.All(), a.All())
	})
	out = mustRun(t, m2, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 1}, 16777217)}, Options{})
	wantValues(t, "trn2 Act copy", values(out["z"]), 16777217)
	m2.Arch = "trn1" // NC-v2: the Scalar engine always goes through fp32
	out = mustRun(t, m2, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 1}, 16777217)}, Options{})
	wantValues(t, "trn1 Act copy", values(out["z"]), 16777216)

	m3 := oneIn(t, bir.Float32, bir.Float32, 2, 2, func(b *bir.Builder, a, d bir.T) {
		b.TensorCopy("shape", bir.EngDVE, d.AP(0, [2]int64{1, 4}), a.All())
	})
	_, err := Run(m3, RandomInputs(m3, 1), Options{})
	wantErr(t, err, ErrCountMismatch, "shape", "equal partitions")
}

func TestMemset(t *testing.T) {
	cases := []struct {
		name  string
		dt    bir.Dtype
		attrs bir.AttrSet
		want  float64
	}{
		{"float to bf16 (RNE)", bir.BFloat16, bir.Attrs("constant", bir.Float(1+1.0/256)), 1},
		{"int to int8 wraps", bir.Int8, bir.Attrs("constant", bir.Int(300)), 44},
		{"int to fp32", bir.Float32, bir.Attrs("constant", bir.Int(16777217)), 16777216},
		{"float to int32 (RNE)", bir.Int32, bir.Attrs("constant", bir.Float(2.5)), 2},
		{"raw bits", bir.Float32, bir.Attrs("constant_bits", bir.Int(0x3fc00000)), 1.5},
		{"explicit mode Const", bir.Uint16, bir.Attrs("mode", "Const", "constant", bir.Int(-1)), 65535},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, b := newB(t)
			z := b.Output("z", c.dt, 1, 3)
			a := b.SBUF("a", c.dt, 1, 3)
			b.Inst(bir.OpMemset, "ms", bir.EngDVE, nil, []bir.Operand{a.All()}, c.attrs)
			b.Save("st", z.All(), a.All())
			out := mustRun(t, m, nil, Options{})
			wantValues(t, c.name, values(out["z"]), c.want, c.want, c.want)
		})
	}
	// x4-packed: zero is fine, anything else is an error.
	m, b := newB(t)
	z := b.Output("z", bir.Float8E5M2x4, 1, 2)
	a := b.SBUF("a", bir.Float8E5M2x4, 1, 2)
	b.Memset("ms0", bir.EngDVE, a.All(), 0)
	b.Save("st", z.All(), a.All())
	out := mustRun(t, m, nil, Options{})
	if !bytes.Equal(out["z"].Data, make([]byte, 8)) {
		t.Errorf("packed memset 0: %x", out["z"].Data)
	}
	b.Memset("ms1", bir.EngDVE, a.All(), 1)
	_, err := Run(m, nil, Options{})
	wantErr(t, err, ErrOperand, "ms1", "can only be set to 0")
	// Random: deterministic per run.
	m2, b2 := newB(t)
	z2 := b2.Output("z", bir.Uint32, 1, 4)
	a2 := b2.SBUF("a", bir.Uint32, 1, 4)
	b2.Inst(bir.OpMemset, "rnd", bir.EngPool, nil, []bir.Operand{a2.All()}, bir.Attrs("mode", "Random", "constant", bir.Int(0)))
	b2.Save("st", z2.All(), a2.All())
	o1, o2 := mustRun(t, m2, nil, Options{}), mustRun(t, m2, nil, Options{})
	if !bytes.Equal(o1["z"].Data, o2["z"].Data) || bytes.Equal(o1["z"].Data[:4], o1["z"].Data[4:8]) {
		t.Errorf("random memset: %x / %x", o1["z"].Data, o2["z"].Data)
	}
}

func TestIotaAndAffineSelect(t *testing.T) {
	m, b := newB(t)
	z := b.Output("z", bir.Int32, 2, 6)
	a := b.SBUF("a", bir.Int32, 2, 6)
	b.Iota("iota", a.All(), 100, 10, [2]int64{1, 2}, [2]int64{-3, 3})
	b.Save("st", z.All(), a.All())
	out := mustRun(t, m, nil, Options{})
	// v = 100 + 10c + 1*i - 3*j, i in [0,2), j in [0,3), row-major.
	wantValues(t, "iota", values(out["z"]), 100, 97, 94, 101, 98, 95, 110, 107, 104, 111, 108, 105)

	// A float destination converts (RNE) the int32 values.
	m2, b2 := newB(t)
	z2 := b2.Output("z", bir.BFloat16, 1, 2)
	a2 := b2.SBUF("a", bir.BFloat16, 1, 2)
	b2.Iota("iota", a2.All(), 257, 0, [2]int64{2, 2})
	b2.Save("st", z2.All(), a2.All())
	out = mustRun(t, m2, nil, Options{})
	wantValues(t, "iota bf16", values(out["z"]), 256, 260)

	// Pattern size mismatch.
	m3, b3 := newB(t)
	a3 := b3.SBUF("a", bir.Int32, 1, 4)
	b3.Iota("iota_bad", a3.All(), 0, 0, [2]int64{1, 3})
	_, err := Run(m3, nil, Options{})
	wantErr(t, err, ErrCountMismatch, "iota_bad", "3 elements per partition")

	// affine_select: keep x where p - f >= 0 (lower triangle), else -inf.
	m4 := oneIn(t, bir.Float32, bir.Float32, 3, 3, func(b *bir.Builder, a, d bir.T) {
		b.Inst(bir.OpTensorScalarAffineSelect, "causal", bir.EngPool, []bir.Operand{a.All()}, []bir.Operand{d.All()},
			bir.Attrs("base", bir.Int(0), "channel_multiplier", bir.Int(1), "pattern", bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(-1)}, bir.Field{Key: "num", Val: bir.Int(3)})),
				"compare_op", "is_ge", "fill_value", bir.Float(math.Inf(-1))))
	})
	out = mustRun(t, m4, map[string]*Tensor{"x": f32Tensor("x", []int64{3, 3}, 1, 2, 3, 4, 5, 6, 7, 8, 9)}, Options{})
	wantValues(t, "causal mask", values(out["z"]), 1, ninf, ninf, 4, 5, ninf, 7, 8, 9)
}

func TestTensorReduce(t *testing.T) {
	// Source [2, 2, 3] viewed by its pattern; X reduces the last dim, XY both.
	cases := []struct {
		op, axis string
		negate   bool
		dF       int64
		want     []float64
	}{
		{"add", "X", false, 2, []float64{6, 15, -6, 0}},
		{"add", "XY", false, 1, []float64{21, -6}},
		{"max", "X", false, 2, []float64{3, 6, -1, 2}},
		{"min", "XY", true, 1, []float64{-1, 3}},
		{"mult", "X", false, 2, []float64{6, 120, -6, negZero}}, // 2 * -2 * 0 = -0
		{"average", "X", false, 2, []float64{2, 5, -2, 0}},
	}
	for _, c := range cases {
		t.Run(c.op+"/"+c.axis, func(t *testing.T) {
			m, b := newB(t)
			x := b.Input("x", bir.Float32, 2, 6)
			z := b.Output("z", bir.Float32, 2, c.dF)
			a := b.SBUF("a", bir.Float32, 2, 6)
			d := b.SBUF("d", bir.Float32, 2, c.dF)
			b.Load("ld", a.All(), x.All())
			id := b.TensorReduce("red", bir.EngDVE, c.op, c.axis, d.All(), a.AP(0, [2]int64{6, 2}, [2]int64{3, 2}, [2]int64{1, 3}))
			b.F.SetAttr(id, "negate", bir.Bool(c.negate))
			b.Save("st", z.All(), d.All())
			out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 6}, 1, 2, 3, 4, 5, 6, -1, -2, -3, 2, -2, 0)}, Options{})
			wantValues(t, c.op, values(out["z"]), c.want...)
		})
	}
	t.Run("bitwise_and", func(t *testing.T) {
		m := oneIn(t, bir.Int32, bir.Int32, 1, 3, func(b *bir.Builder, a, d bir.T) {
			b.TensorReduce("red", bir.EngDVE, "bitwise_and", "X", d.Tile(0, 1, 0, 1), a.All())
			b.Memset("rest", bir.EngDVE, d.Tile(0, 1, 1, 2), 0)
		})
		out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 3}, 7, 14, -1)}, Options{})
		wantValues(t, "and", values(out["z"]), 6, 0, 0)
	})
	t.Run("free and partition axes together are rejected", func(t *testing.T) {
		// C alone is tensor_partition_reduce (isa_test.go); XYZWC has no
		// semantics.
		m := oneIn(t, bir.Float32, bir.Float32, 1, 3, func(b *bir.Builder, a, d bir.T) {
			b.TensorReduce("red_c", bir.EngDVE, "add", "XYZWC", d.All(), a.All())
		})
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOperand, "red_c", "or the partitions (C)")
	})
}

func TestCopyPredicated(t *testing.T) {
	for _, rev := range []bool{false, true} {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 1, 4)
		pr := b.Input("pr", bir.Uint8, 1, 4)
		z := b.Output("z", bir.Float32, 1, 4)
		a := b.SBUF("a", bir.Float32, 1, 4)
		ps := b.SBUF("ps", bir.Uint8, 1, 4)
		d := b.SBUF("d", bir.Float32, 1, 4)
		b.Load("lx", a.All(), x.All())
		b.Load("lp", ps.All(), pr.All())
		b.Memset("init", bir.EngDVE, d.All(), -1)
		id := b.Inst(bir.OpCopyPredicated, "cp", bir.EngDVE, []bir.Operand{a.All(), ps.All()}, []bir.Operand{d.All()}, nil)
		b.F.SetAttr(id, "reverse_pred", bir.Bool(rev))
		b.Save("st", z.All(), d.All())
		out := mustRun(t, m, map[string]*Tensor{
			"x":  f32Tensor("x", []int64{1, 4}, 1, 2, 3, 4),
			"pr": tensorOf("pr", bir.Uint8, []int64{1, 4}, 1, 0, 7, 0),
		}, Options{})
		want := []float64{1, -1, 3, -1}
		if rev {
			want = []float64{-1, 2, -1, 4}
		}
		wantValues(t, "copy_predicated", values(out["z"]), want...)
	}
}

func TestBNStatsAndAggregate(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 1, 6)
	z := b.Output("z", bir.Float32, 1, 6)
	w := b.Output("w", bir.Float32, 1, 2)
	a := b.SBUF("a", bir.Float32, 1, 6)
	s := b.SBUF("s", bir.Float32, 1, 6)
	g := b.SBUF("g", bir.Float32, 1, 2)
	b.Load("ld", a.All(), x.All())
	b.Inst(bir.OpBNStats, "bn", bir.EngDVE, []bir.Operand{a.All()}, []bir.Operand{s.All()}, nil)
	b.Inst(bir.OpBNStatsAggregate, "agg", bir.EngDVE, []bir.Operand{s.All()}, []bir.Operand{g.All()}, nil)
	b.Save("s1", z.All(), s.All())
	b.Save("s2", w.All(), g.All())
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 6}, 1, 2, 3, 4, 5, 9)}, Options{})
	// even 1,3,5: mean 3, M2 8; odd 2,4,9: mean 5, M2 9+1+16 = 26.
	wantValues(t, "bn_stats", values(out["z"]), 3, 3, 8, 3, 5, 26)
	// mean 4, var = (8 + 26 + 3*1 + 3*1)/6 = 40/6
	wantValues(t, "bn_aggr", values(out["w"]), 4, float64(float32(40.0/6)))
}

// An instruction reads all its sources before writing: an overlapping
// shift within one tile moves the data, it does not smear it, on the raw
// path (DMACopy) and on the fp32 path (TensorScalar).
func TestOverlap_ReadsBeforeWrites(t *testing.T) {
	m := oneIn(t, bir.Float32, bir.Float32, 1, 6, func(b *bir.Builder, a, d bir.T) {
		b.DMACopy("shift", a.AP(1, [2]int64{1, 1}, [2]int64{1, 5}), a.AP(0, [2]int64{1, 1}, [2]int64{1, 5}))
		b.TensorScalar("shift2", bir.EngDVE, a.AP(1, [2]int64{1, 1}, [2]int64{1, 5}), a.AP(0, [2]int64{1, 1}, [2]int64{1, 5}), "mult", 10, "bypass", 0)
		b.TensorCopy("cp", bir.EngDVE, d.All(), a.All())
	})
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 6}, 1, 2, 3, 4, 5, 6)}, Options{})
	wantValues(t, "shifted twice", values(out["z"]), 1, 10, 10, 20, 30, 40)
}

func TestOptions_GeometryAndFunction(t *testing.T) {
	// With 1 KiB PSUM banks a 300-fp32 row spans two banks.
	m, b := newB(t)
	p := b.PSUM("p", bir.Float32, 1, 300)
	b.Memset("ms", bir.EngDVE, p.All(), 0)
	if _, err := Run(m, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(m, nil, Options{PSUMBankBytes: 1024})
	wantErr(t, err, ErrPSUMBankSpan, "ms", "a bank is 1024 bytes")

	// Options.Function runs another function of the module.
	kb := bir.NewBuilder(m, "other")
	kx := kb.Input("kx", bir.Float32, 1, 2)
	kz := kb.Output("kz", bir.Float32, 1, 2)
	kb.DMACopy("cp", kz.All(), kx.All())
	out := mustRun(t, m, map[string]*Tensor{"kx": f32Tensor("kx", []int64{1, 2}, 3, 4)}, Options{Function: "other"})
	wantValues(t, "other", values(out["kz"]), 3, 4)
	_, err = Run(m, nil, Options{Function: "missing"})
	wantErr(t, err, ErrInput, "", `no function "missing"`)

	// An unknown arch needs explicit geometry.
	m.Arch = "gen99"
	_, err = Run(m, nil, Options{})
	wantErr(t, err, ErrInput, "", "set Options.Partitions")
	if _, err := Run(m, nil, Options{Partitions: 128, PSUMBanks: 8, PSUMBankBytes: 2048}); err != nil {
		t.Fatal(err)
	}
}

func TestSpecsAndRandomInputs(t *testing.T) {
	m, b := newB(t)
	b.Input("x", bir.Float32, 2, 3)
	b.Input("ids", bir.Int32, 4)
	b.Input("u", bir.Uint8, 8)
	b.Input("q", bir.Float8E4M3FNx4, 2)
	b.Output("z", bir.BFloat16, 2, 3)
	b.SBUF("t", bir.Float32, 2, 3)
	in := InputSpecs(m)
	if len(in) != 4 || in[0].Name != "x" || in[1].Name != "ids" || in[1].Dtype != bir.Int32 || in[0].Shape[1] != 3 {
		t.Fatalf("InputSpecs = %+v", in)
	}
	if out := OutputSpecs(m); len(out) != 1 || out[0].Name != "z" || out[0].Dtype != bir.BFloat16 {
		t.Fatalf("OutputSpecs = %+v", out)
	}
	r1, r2, r3 := RandomInputs(m, 5), RandomInputs(m, 5), RandomInputs(m, 6)
	for name := range r1 {
		if !bytes.Equal(r1[name].Data, r2[name].Data) {
			t.Errorf("%s: not deterministic", name)
		}
		if bytes.Equal(r1[name].Data, r3[name].Data) {
			t.Errorf("%s: the seed changes nothing", name)
		}
	}
	for _, v := range values(r1["x"]) {
		if v < -1 || v >= 1 {
			t.Errorf("float input %v outside [-1, 1)", v)
		}
	}
	for _, v := range values(r1["ids"]) {
		if v < -8 || v >= 8 {
			t.Errorf("int input %v outside [-8, 8)", v)
		}
	}
	for _, v := range values(r1["u"]) {
		if v < 0 || v >= 16 {
			t.Errorf("uint input %v outside [0, 16)", v)
		}
	}
	// The inputs depend only on name, dtype and shape: another module with
	// the same input x gets the same bytes.
	m2, b2 := newB(t)
	b2.Input("x", bir.Float32, 2, 3)
	b2.SBUF("unrelated", bir.Int8, 4, 4)
	if !bytes.Equal(RandomInputs(m2, 5)["x"].Data, r1["x"].Data) {
		t.Error("RandomInputs depends on more than the input's name, dtype and shape")
	}
	// ... and on each of them: another name, dtype or shape (same element
	// count and byte size) draws other values.
	base := RandomTensor(Spec{Name: "x", Dtype: bir.Int32, Shape: []int64{2, 3}}, 5)
	for _, s := range []Spec{
		{Name: "y", Dtype: bir.Int32, Shape: []int64{2, 3}},
		{Name: "x", Dtype: bir.Uint32, Shape: []int64{2, 3}},
		{Name: "x", Dtype: bir.Int32, Shape: []int64{3, 2}},
		{Name: "x", Dtype: bir.Int32, Shape: []int64{6}},
	} {
		if bytes.Equal(RandomTensor(s, 5).Data, base.Data) {
			t.Errorf("RandomTensor(%+v) equals RandomTensor of x int32 [2 3]: the spec does not enter the draw", s)
		}
	}
}

// TestDMACopy_Transpose3D4D: transpose_op XZYW is nki.isa.dma_transpose's
// 3-D permutation (2, 1, 0) and 4-D permutation (3, 1, 2, 0), from DRAM,
// bit-exact; a destination of the wrong shape and a 2-D source are
// errors.
func TestDMACopy_Transpose3D4D(t *testing.T) {
	build := func(t *testing.T, src, dst []int64) *bir.Module {
		m, b := newB(t)
		x := b.Input("x", bir.BFloat16, src...)
		z := b.Output("z", bir.BFloat16, dst...)
		tt := b.SBUF("t", bir.BFloat16, dst...)
		b.DMATranspose("dma_t", tt.All(), x.All(), len(src))
		b.Save("st", z.All(), tt.All())
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	n := func(shape ...int64) int {
		k := int64(1)
		for _, s := range shape {
			k *= s
		}
		return int(k)
	}
	// 3-D [2, 3, 4] -> [4, 3, 2]: dst[c, b, a] = src[a, b, c] = 12a + 4b + c.
	m := build(t, shp(2, 3, 4), shp(4, 3, 2))
	out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.BFloat16, shp(2, 3, 4), seq(24, func(i int) float64 { return float64(i) })...)}, Options{})
	var want []float64
	for c := 0; c < 4; c++ {
		for bb := 0; bb < 3; bb++ {
			for a := 0; a < 2; a++ {
				want = append(want, float64(12*a+4*bb+c))
			}
		}
	}
	wantValues(t, "3-D (2,1,0)", values(out["z"]), want...)
	// 4-D [2, 3, 2, 2] -> [2, 3, 2, 2] (D, B, C, A): dst[d, b, c, a] = src[a, b, c, d] = 12a + 4b + 2c + d.
	m = build(t, shp(2, 3, 2, 2), shp(2, 3, 2, 2))
	out = mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.BFloat16, shp(2, 3, 2, 2), seq(n(2, 3, 2, 2), func(i int) float64 { return float64(i) })...)}, Options{})
	want = want[:0]
	for d := 0; d < 2; d++ {
		for bb := 0; bb < 3; bb++ {
			for c := 0; c < 2; c++ {
				for a := 0; a < 2; a++ {
					want = append(want, float64(12*a+4*bb+2*c+d))
				}
			}
		}
	}
	wantValues(t, "4-D (3,1,2,0)", values(out["z"]), want...)
	// Wrong destination shape.
	m = build(t, shp(2, 3, 4), shp(2, 3, 4))
	_, err := Run(m, RandomInputs(m, 1), Options{})
	wantErr(t, err, ErrCountMismatch, "dma_t", "axes [2 1 0] is [4 3 2]")
	// XZYW of a 2-D source.
	m2, b2 := newB(t)
	x2 := b2.Input("x", bir.BFloat16, 2, 3)
	t2 := b2.SBUF("t", bir.BFloat16, 3, 2)
	b2.DMATranspose("dma_t", t2.All(), x2.All(), 3)
	_, err = Run(m2, RandomInputs(m2, 1), Options{})
	wantErr(t, err, ErrNoSemantics, "dma_t", "three or four dims")
}
