package interp

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestTensorScalar_Stages(t *testing.T) {
	cases := []struct {
		name     string
		op0      string
		c0       float64
		rev0     bool
		op1      string
		c1       float64
		rev1     bool
		in, want []float64
	}{
		{"x*2+1", "mult", 2, false, "add", 1, false, []float64{1, -3}, []float64{3, -5}},
		{"x-3 then bypass", "subtract", 3, false, "bypass", 0, false, []float64{1, 5}, []float64{-2, 2}},
		{"reverse0: 3-x", "subtract", 3, true, "bypass", 0, false, []float64{1, 5}, []float64{2, -2}},
		{"reverse1: 10/(x+1)", "add", 1, false, "divide", 10, true, []float64{1, 4}, []float64{5, 2}},
		{"max then min (clamp)", "max", 0, false, "min", 6, false, []float64{-1, 3, 9}, []float64{0, 3, 6}},
		{"abs ignores the scalar", "abs", 0, false, "mult", -1, false, []float64{-2, 3}, []float64{-2, -3}},
		{"op1 bypass ignores reverse1", "add", 1, false, "bypass", 7, true, []float64{1, 2}, []float64{2, 3}},
		{"op0 bypass reversed is the scalar", "bypass", 5, true, "add", 1, false, []float64{1, 2}, []float64{6, 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := int64(len(c.in))
			m := oneIn(t, bir.Float32, bir.Float32, 1, n, func(b *bir.Builder, a, d bir.T) {
				id := b.TensorScalar("ts", bir.EngDVE, d.All(), a.All(), c.op0, c.c0, c.op1, c.c1)
				b.F.SetAttrs(id, b.F.Attrs(id).With("reverse0", bir.Bool(c.rev0)).With("reverse1", bir.Bool(c.rev1)))
			})
			out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, n}, c.in...)}, Options{})
			wantValues(t, c.name, values(out["z"]), c.want...)
		})
	}
}

func TestTensorScalar_Bitvec(t *testing.T) {
	m := oneIn(t, bir.Int32, bir.Int32, 1, 3, func(b *bir.Builder, a, d bir.T) {
		b.TensorScalar("ts", bir.EngDVE, d.All(), a.All(), "logical_shift_right", 4, "bitwise_and", 7)
	})
	out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 3}, 0xff, -1, 16)}, Options{})
	wantValues(t, "(x>>4)&7", values(out["z"]), 7, 7, 1)

	mixed := oneIn(t, bir.Int32, bir.Int32, 1, 1, func(b *bir.Builder, a, d bir.T) {
		b.TensorScalar("mix", bir.EngDVE, d.All(), a.All(), "add", 1, "bitwise_and", 7)
	})
	_, err := Run(mixed, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 1}, 1)}, Options{})
	wantErr(t, err, ErrOperand, "mix", "mix bit-vector and arithmetic")
}

func TestTensorScalarPtr_PerPartitionScalars(t *testing.T) {
	// x is [2, 3]; s0 = [10, 20] per partition, s1 an immediate 0.5.
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 2, 3)
	s := b.Input("s", bir.Float32, 2, 1)
	z := b.Output("z", bir.Float32, 2, 3)
	a := b.SBUF("a", bir.Float32, 2, 3)
	sc := b.SBUF("sc", bir.Float32, 2, 1)
	d := b.SBUF("d", bir.Float32, 2, 3)
	b.Load("lx", a.All(), x.All())
	b.Load("ls", sc.All(), s.All())
	b.Inst(bir.OpTensorScalarPtr, "tsp", bir.EngDVE, []bir.Operand{a.All(), sc.All(), bir.Imm(0.5)}, []bir.Operand{d.All()},
		bir.Attrs("op0", "subtract", "reverse0", false, "op1", "mult", "reverse1", false))
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, m, map[string]*Tensor{
		"x": f32Tensor("x", []int64{2, 3}, 10, 12, 14, 20, 22, 26),
		"s": f32Tensor("s", []int64{2, 1}, 10, 20),
	}, Options{})
	wantValues(t, "(x - s[p]) * 0.5", values(out["z"]), 0, 1, 2, 0, 1, 3)

	// A scalar AP with the wrong element count.
	m2, b2 := newB(t)
	x2 := b2.Input("x", bir.Float32, 2, 3)
	z2 := b2.Output("z", bir.Float32, 2, 3)
	a2 := b2.SBUF("a", bir.Float32, 2, 3)
	b2.Load("lx", a2.All(), x2.All())
	b2.TensorScalarPtr("tsp", bir.EngDVE, a2.All(), a2.All(), a2.Tile(0, 2, 0, 2), "add", bir.Operand{}, "bypass")
	b2.Save("st", z2.All(), a2.All())
	_, err := Run(m2, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 3}, 1, 2, 3, 4, 5, 6)}, Options{})
	wantErr(t, err, ErrCountMismatch, "tsp", "one per partition")
}

func TestActivation_EveryFunction(t *testing.T) {
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	sp := func(z float64) float64 { return math.Log1p(math.Exp(z)) }
	cases := []struct {
		fn    string
		alpha float64
		in    []float64
		want  []float64 // exact maths, rounded to fp32 by the test
	}{
		{"Identity", 0, []float64{-1.5, 2}, []float64{-1.5, 2}},
		{"Copy", 0, []float64{-1.5, 2}, []float64{-1.5, 2}},
		{"Abs", 0, []float64{-1.5, 2}, []float64{1.5, 2}},
		{"Sign", 0, []float64{-1.5, 0, 2}, []float64{-1, 0, 1}},
		{"Square", 0, []float64{-1.5, 3}, []float64{2.25, 9}},
		{"Exp", 0, []float64{0, 1}, []float64{1, math.E}},
		{"Ln", 0, []float64{1, math.E, 0}, []float64{0, math.Log(float64(float32(math.E))), ninf}},
		{"Sqrt", 0, []float64{4, 2}, []float64{2, math.Sqrt2}},
		{"Rsqrt", 0, []float64{4, 0}, []float64{0.5, inf}},
		{"Reciprocal", 0, []float64{4, -0.5}, []float64{0.25, -2}},
		{"Sin", 0, []float64{0, 1}, []float64{0, math.Sin(1)}},
		{"Arctan", 0, []float64{1, -1}, []float64{math.Pi / 4, -math.Pi / 4}},
		{"Tanh", 0, []float64{0, 1}, []float64{0, math.Tanh(1)}},
		{"Relu", 0, []float64{-2, 3}, []float64{0, 3}},
		{"Sigmoid", 0, []float64{0, 2}, []float64{0.5, sig(2)}},
		{"Gelu", 0, []float64{0, 1, -1}, []float64{0, 0.8413447460685429, -0.15865525393145707}},
		{"Gelu_apprx_tanh", 0, []float64{1}, []float64{0.5 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(1+0.044715)))}},
		{"Gelu_apprx_sigmoid", 0, []float64{1}, []float64{sig(1.702)}},
		{"Derivative_Gelu", 0, []float64{0, 1}, []float64{0.5, 0.8413447460685429 + math.Exp(-0.5)/math.Sqrt(2*math.Pi)}},
		{"Silu", 0, []float64{0, 1}, []float64{0, sig(1)}},
		{"Derivative_silu", 0, []float64{0, 1}, []float64{0.5, sig(1) * (1 + 1*(1-sig(1)))}},
		{"Softplus", 0, []float64{0, 1, -100}, []float64{math.Ln2, sp(1), sp(-100)}},
		{"Mish", 0, []float64{1}, []float64{math.Tanh(sp(1))}},
		{"Erf", 0, []float64{0, 1}, []float64{0, math.Erf(1)}},
		{"Derivative_Erf", 0, []float64{0, 1}, []float64{2 / math.Sqrt(math.Pi), 2 / math.Sqrt(math.Pi) * math.Exp(-1)}},
		{"Is_finite", 0, []float64{1, inf, nan}, []float64{1, 0, 0}},
		{"Ln_prime", 0, []float64{4}, []float64{0.25}},
		{"Dsqrt", 0, []float64{4}, []float64{0.25}},
		{"Abs_reciprocal_sqrt", 0, []float64{-4}, []float64{0.5}},
		{"MemsetZero", 0, []float64{nan, 7}, []float64{0, 0}},
		{"Lrelu", 0.1, []float64{-2, 3}, []float64{float64(float32(0.1)) * -2, 3}},
		{"Prelu", 0.25, []float64{-2, 3}, []float64{-0.5, 3}},
	}
	if len(cases) != 32 { // the 33 ActivationFunctionTypes minus Unknown
		t.Fatalf("%d functions covered", len(cases))
	}
	for _, c := range cases {
		t.Run(c.fn, func(t *testing.T) {
			n := int64(len(c.in))
			m := oneIn(t, bir.Float32, bir.Float32, 1, n, func(b *bir.Builder, a, d bir.T) {
				id := b.Activation("act", c.fn, d.All(), a.All(), 1, bir.Operand{})
				b.F.SetAttr(id, "alpha", bir.Float(c.alpha))
			})
			out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, n}, c.in...)}, Options{})
			want := make([]float64, len(c.want))
			for i, w := range c.want {
				want[i] = float64(float32(w))
			}
			wantValues(t, c.fn, values(out["z"]), want...)
		})
	}
	t.Run("Unknown is an error", func(t *testing.T) {
		m := oneIn(t, bir.Float32, bir.Float32, 1, 1, func(b *bir.Builder, a, d bir.T) {
			b.Activation("act", "Unknown", d.All(), a.All(), 1, bir.Operand{})
		})
		_, err := Run(m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 1}, 1)}, Options{})
		wantErr(t, err, ErrOperand, "act", "ActivationFunctionType")
	})
}

// Activation with an immediate scale, a [P,1] bias and a [P,1] scale
// operand, and the accumulate modes read back with ReadActivationAccumulator.
func TestActivation_ScaleBiasAccumulators(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 2, 3)
	bias := b.Input("bias", bir.Float32, 2, 1)
	scl := b.Input("scl", bir.Float32, 2, 1)
	z := b.Output("z", bir.Float32, 2, 3)
	acc := b.Output("acc", bir.Float32, 2, 4)
	a := b.SBUF("a", bir.Float32, 2, 3)
	bs := b.SBUF("bs", bir.Float32, 2, 1)
	ss := b.SBUF("ss", bir.Float32, 2, 1)
	y := b.SBUF("y", bir.Float32, 2, 3)
	r := b.SBUF("r", bir.Float32, 2, 4)
	b.Load("lx", a.All(), x.All())
	b.Load("lb", bs.All(), bias.All())
	b.Load("ls", ss.All(), scl.All())
	// y = x*2 + bias[p], R = sum(y)
	i1 := b.Activation("act1", "Identity", y.All(), a.All(), 2, bs.All())
	b.F.SetAttr(i1, "acc", bir.String("ZeroAccumulate"))
	b.Inst(bir.OpReadActivationAccumulator, "rd1", bir.EngAct, nil, []bir.Operand{r.Tile(0, 2, 0, 1)}, nil)
	// y = x*scl[p] + bias[p] (the scale operand overrides the attribute), R += sum(y)
	i2 := b.Inst(bir.OpActivation, "act2", bir.EngAct, []bir.Operand{a.All(), bs.All(), ss.All()}, []bir.Operand{y.All()},
		bir.Attrs("func", "Identity", "scale", bir.Float(100), "acc", "Accumulate"))
	b.Inst(bir.OpReadActivationAccumulator, "rd2", bir.EngAct, nil, []bir.Operand{r.Tile(0, 2, 1, 1)}, nil)
	// LoadAccumulate: R = alpha + sum(y)
	i3 := b.Activation("act3", "Identity", y.All(), a.All(), 1, bir.Operand{})
	b.F.SetAttrs(i3, b.F.Attrs(i3).With("acc", bir.String("LoadAccumulate")).With("alpha", bir.Float(1000)))
	b.Inst(bir.OpReadActivationAccumulator, "rd3", bir.EngAct, nil, []bir.Operand{r.Tile(0, 2, 2, 1)}, nil)
	// Zero: R = 0; max reduction with reduce_op.
	i4 := b.Activation("act4", "Identity", y.All(), a.All(), 1, bir.Operand{})
	b.F.SetAttrs(i4, b.F.Attrs(i4).With("acc", bir.String("ZeroAccumulate")).With("reduce_op", bir.String("max")))
	b.Inst(bir.OpReadActivationAccumulator, "rd4", bir.EngAct, nil, []bir.Operand{r.Tile(0, 2, 3, 1)}, nil)
	b.Save("sz", z.All(), y.All())
	b.Save("sr", acc.All(), r.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	_ = i2
	out := mustRun(t, m, map[string]*Tensor{
		"x":    f32Tensor("x", []int64{2, 3}, 1, 2, 3, -1, 0, 4),
		"bias": f32Tensor("bias", []int64{2, 1}, 10, 0.5),
		"scl":  f32Tensor("scl", []int64{2, 1}, 3, -1),
	}, Options{})
	// act1: rows [12 14 16] (sum 42), [-1.5 0.5 8.5] (sum 7.5)
	// act2: rows [13 16 19] (sum 48) -> 90, [1.5 0.5 -3.5] (sum -1.5) -> 6
	// act3: rows sum 6 -> 1006, sum 3 -> 1003
	// act4: max 3, 4
	wantValues(t, "accumulators", values(out["acc"]), 42, 90, 1006, 3, 7.5, 6, 1003, 4)
	wantValues(t, "last y", values(out["z"]), 1, 2, 3, -1, 0, 4)

	// Accumulate onto a never-written lane is an error.
	m2 := oneIn(t, bir.Float32, bir.Float32, 1, 2, func(b *bir.Builder, a, d bir.T) {
		id := b.Activation("acc_first", "Identity", d.All(), a.All(), 1, bir.Operand{})
		b.F.SetAttr(id, "acc", bir.String("Accumulate"))
	})
	_, err := Run(m2, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 2}, 1, 2)}, Options{})
	wantErr(t, err, ErrUninitRead, "acc_first", "accumulator of lane 0")
}

func TestReciprocal(t *testing.T) {
	m := oneIn(t, bir.Float32, bir.Float32, 1, 3, func(b *bir.Builder, a, d bir.T) {
		b.Inst(bir.OpReciprocal, "rcp", bir.EngDVE, []bir.Operand{a.All()}, []bir.Operand{d.All()}, nil)
	})
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 3}, 4, -0.5, 0)}, Options{})
	wantValues(t, "1/x", values(out["z"]), 0.25, -2, inf)
}

// TestTensorTensorScan: TensorScalarPtr with is_tensor_tensor_scan (NKI
// tensor_tensor_scan): per partition acc = (data0 op0 acc) op1 data1 along
// the free axis, from a per-partition initial value or an immediate, with
// the reverse flags; values worked by hand.
func TestTensorTensorScan(t *testing.T) {
	tests := []struct {
		name       string
		op0, op1   string
		rev0, rev1 bool
		initAP     bool // initial from a [P,1] AP (2 and 3) or an immediate 1
		want       []float64
	}{
		// x = [[1,2,3],[4,5,6]], y = [[1,1,1],[2,2,2]].
		// mult/add from 1: p0: 1*1+1=2, 2*2+1=5, 3*5+1=16; p1: 4*1+2=6, 5*6+2=32, 6*32+2=194.
		{"linear recurrence (Mamba)", "mult", "add", false, false, false, []float64{2, 5, 16, 6, 32, 194}},
		// from [P,1] = [2,3]: p0: 1*2+1=3, 2*3+1=7, 3*7+1=22; p1: 4*3+2=14, 5*14+2=72, 6*72+2=434.
		{"initial per partition", "mult", "add", false, false, true, []float64{3, 7, 22, 14, 72, 434}},
		// subtract, reversed: t = acc - x; r = y - t. From 1: p0: t=0, r=1; t=1-2=-1, r=2; t=2-3=-1, r=2.
		// p1: t=1-4=-3, r=5; t=5-5=0, r=2; t=2-6=-4, r=6.
		{"reverse flags", "subtract", "subtract", true, true, false, []float64{1, 2, 2, 5, 2, 6}},
	}
	for _, tc := range tests {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 3)
		y := b.Input("y", bir.Float32, 2, 3)
		s := b.Input("s", bir.Float32, 2, 1)
		z := b.Output("z", bir.Float32, 2, 3)
		a := b.SBUF("a", bir.Float32, 2, 3)
		c := b.SBUF("c", bir.Float32, 2, 3)
		sc := b.SBUF("sc", bir.Float32, 2, 1)
		d := b.SBUF("d", bir.Float32, 2, 3)
		b.Load("lx", a.All(), x.All())
		b.Load("ly", c.All(), y.All())
		b.Load("ls", sc.All(), s.All())
		init := bir.Imm(1)
		if tc.initAP {
			init = sc.All()
		}
		b.TensorTensorScan("scan", d.All(), a.All(), c.All(), init, tc.op0, tc.op1, tc.rev0, tc.rev1)
		b.Save("st", z.All(), d.All())
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, m, map[string]*Tensor{
			"x": f32Tensor("x", []int64{2, 3}, 1, 2, 3, 4, 5, 6),
			"y": f32Tensor("y", []int64{2, 3}, 1, 1, 1, 2, 2, 2),
			"s": f32Tensor("s", []int64{2, 1}, 2, 3),
		}, Options{})
		wantValues(t, tc.name, values(out["z"]), tc.want...)
	}
}
