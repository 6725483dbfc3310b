package interp

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// scanModule builds x, y -> z with dst = tensor_tensor_scan(x, y, initial):
// x and y are [P, F] inputs (dtype dt), z the [P, F] output (dtype odt);
// with initAP the initial state is the [P, 1] input s, else the immediate
// initImm.
func scanModule(t *testing.T, dt, odt bir.Dtype, P, F int64, op0, op1 string, rev0, rev1, initAP bool, initImm float64) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, P, F)
	y := b.Input("y", dt, P, F)
	z := b.Output("z", odt, P, F)
	a := b.SBUF("a", dt, P, F)
	c := b.SBUF("c", dt, P, F)
	d := b.SBUF("d", odt, P, F)
	b.Load("ldx", a.All(), x.All())
	b.Load("ldy", c.All(), y.All())
	init := bir.Imm(initImm)
	if initAP {
		s := b.Input("s", bir.Float32, P, 1)
		sc := b.SBUF("sc", bir.Float32, P, 1)
		b.Load("lds", sc.All(), s.All())
		init = sc.All()
	}
	b.TensorTensorScan("scan", d.All(), a.All(), c.All(), init, op0, op1, rev0, rev1)
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTensorTensorScan_Semantics(t *testing.T) {
	third := float64(float32(0.003))
	cases := []struct {
		name       string
		odt        bir.Dtype
		P, F       int64
		op0, op1   string
		rev0, rev1 bool
		init       []float64 // nil: the immediate initImm
		initImm    float64
		x, y, want []float64
	}{
		{name: "cumulative sum (op1 adds zeros)", odt: bir.Float32, P: 2, F: 3, op0: "add", op1: "add",
			x: []float64{1, 2, 3, 4, 5, 6}, y: make([]float64, 6), want: []float64{1, 3, 6, 4, 9, 15}},
		{name: "linear recurrence s = a*s + b, initial per partition", odt: bir.Float32, P: 2, F: 3, op0: "mult", op1: "add",
			init: []float64{1, 2}, x: []float64{2, 2, 2, 0.5, 0.5, 0.5}, y: []float64{1, 1, 1, 0, 1, 0}, want: []float64{3, 7, 15, 1, 1.5, 0.75}},
		{name: "reverse0: t = state - x", odt: bir.Float32, P: 1, F: 3, op0: "subtract", op1: "add", rev0: true, initImm: 10,
			x: []float64{1, 2, 3}, y: []float64{0, 0, 0}, want: []float64{9, 7, 4}},
		{name: "reverse1: state = y - t", odt: bir.Float32, P: 1, F: 3, op0: "add", op1: "subtract", rev1: true,
			x: []float64{1, 1, 1}, y: []float64{10, 10, 10}, want: []float64{9, 0, 9}},
		{name: "running max", odt: bir.Float32, P: 1, F: 6, op0: "max", op1: "add", initImm: -1e30,
			x: []float64{3, 1, 4, 1, 5, 9}, y: make([]float64, 6), want: []float64{3, 3, 4, 4, 5, 9}},
		{name: "NaN propagates along the scan, not across partitions", odt: bir.Float32, P: 2, F: 3, op0: "add", op1: "add",
			x: []float64{1, math.NaN(), 1, 1, 1, 1}, y: make([]float64, 6), want: []float64{1, math.NaN(), math.NaN(), 1, 2, 3}},
		{name: "bf16 destination: the state stays fp32", odt: bir.BFloat16, P: 1, F: 4, op0: "add", op1: "add",
			x: []float64{1, third, third, third}, y: make([]float64, 4), want: []float64{1, 1, 1.0078125, 1.0078125}},
		{name: "divide by the state: IEEE edges", odt: bir.Float32, P: 1, F: 3, op0: "divide", op1: "add", rev0: true, initImm: 1,
			x: []float64{0, 1, 0}, y: []float64{0, 0, 0}, want: []float64{math.Inf(1), math.Inf(1), math.Inf(1)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := scanModule(t, bir.Float32, c.odt, c.P, c.F, c.op0, c.op1, c.rev0, c.rev1, c.init != nil, c.initImm)
			in := map[string]*Tensor{
				"x": f32Tensor("x", []int64{c.P, c.F}, c.x...),
				"y": f32Tensor("y", []int64{c.P, c.F}, c.y...),
			}
			if c.init != nil {
				in["s"] = f32Tensor("s", []int64{c.P, 1}, c.init...)
			}
			out := mustRun(t, m, in, Options{})
			wantValues(t, c.name, values(out["z"]), c.want...)
		})
	}
}

// TestTensorTensorScan_Layout: the scan runs along every free element of
// a partition in row-major order (a [P, 2, 2] operand scans 4 elements),
// and on a partition offset (rows 2..3 of a 4-partition tile, the initial
// state read from the same rows).
func TestTensorTensorScan_Layout(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 4, 4)
	s := b.Input("s", bir.Float32, 4, 1)
	z := b.Output("z", bir.Float32, 2, 4)
	a := b.SBUF("a", bir.Float32, 4, 4)
	sc := b.SBUF("sc", bir.Float32, 4, 1)
	d := b.SBUF("d", bir.Float32, 4, 4)
	b.Load("ldx", a.All(), x.All())
	b.Load("lds", sc.All(), s.All())
	b.Memset("zero", bir.EngDVE, d.All(), 0)
	rows := func(t bir.T) bir.Operand { return t.AP(2*4, [2]int64{4, 2}, [2]int64{2, 2}, [2]int64{1, 2}) }
	b.TensorTensorScan("scan", rows(d), rows(a), rows(a), sc.AP(2, [2]int64{1, 2}, [2]int64{1, 1}), "add", "mult", false, false)
	b.Save("st", z.All(), d.Tile(2, 2, 0, 4))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	// state = (x + state) * x along rows 2 and 3.
	out := mustRun(t, m, map[string]*Tensor{
		"x": f32Tensor("x", []int64{4, 4}, 9, 9, 9, 9, 9, 9, 9, 9, 1, 2, 1, 2, 2, 1, 1, 1),
		"s": f32Tensor("s", []int64{4, 1}, 7, 7, 1, 0),
	}, Options{})
	// row 2: s=1: (1+1)*1=2, (2+2)*2=8, (1+8)*1=9, (2+9)*2=22
	// row 3: s=0: (2+0)*2=4, (1+4)*1=5, (1+5)*1=6, (1+6)*1=7
	wantValues(t, "scan rows 2..3", values(out["z"]), 2, 8, 9, 22, 4, 5, 6, 7)
}

func TestTensorTensorScan_Errors(t *testing.T) {
	run := func(m *bir.Module) error {
		_, err := Run(m, map[string]*Tensor{
			"x": f32Tensor("x", []int64{2, 2}, 1, 2, 3, 4),
			"y": f32Tensor("y", []int64{2, 2}, 1, 2, 3, 4),
		}, Options{})
		return err
	}
	t.Run("bit-vector op", func(t *testing.T) {
		m := scanModule(t, bir.Float32, bir.Float32, 2, 2, "bitwise_and", "add", false, false, false, 0)
		wantErr(t, run(m), ErrOperand, "scan", "arithmetic AluOps")
	})
	t.Run("accumulating", func(t *testing.T) {
		m := scanModule(t, bir.Float32, bir.Float32, 2, 2, "add", "add", false, false, false, 0)
		f := m.Main()
		f.Walk(func(i bir.InstID) bool {
			if f.InstName(i) == "scan" {
				f.SetAttr(i, "acc", bir.String("Accumulate"))
			}
			return true
		})
		wantErr(t, run(m), ErrNoSemantics, "scan", "acc=Accumulate")
	})
	t.Run("initial of the wrong size", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		y := b.Input("y", bir.Float32, 2, 2)
		z := b.Output("z", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		c := b.SBUF("c", bir.Float32, 2, 2)
		b.Load("ldx", a.All(), x.All())
		b.Load("ldy", c.All(), y.All())
		b.TensorTensorScan("scan", a.All(), a.All(), c.All(), c.All(), "add", "add", false, false)
		b.Save("st", z.All(), a.All())
		wantErr(t, run(m), ErrCountMismatch, "scan", "one per partition")
	})
	t.Run("two sources", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		y := b.Input("y", bir.Float32, 2, 2)
		z := b.Output("z", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		b.Load("ldx", a.All(), x.All())
		b.Load("ldy", a.All(), y.All())
		b.Inst(bir.OpTensorScalarPtr, "scan", bir.EngDVE, []bir.Operand{a.All(), bir.Imm(0)}, []bir.Operand{a.All()},
			bir.Attrs("op0", "add", "reverse0", false, "op1", "add", "reverse1", false, bir.AttrTensorTensorScan, true))
		b.Save("st", z.All(), a.All())
		wantErr(t, run(m), ErrOperand, "scan", "[data0, initial, data1]")
	})
	t.Run("both data inputs in PSUM", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		y := b.Input("y", bir.Float32, 2, 2)
		z := b.Output("z", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		p := b.PSUM("p", bir.Float32, 2, 2)
		q := b.PSUM("q", bir.Float32, 2, 2)
		b.Load("ldx", a.All(), x.All())
		b.TensorCopy("cp", bir.EngDVE, p.All(), a.All())
		b.Load("ldy", a.All(), y.All())
		b.TensorCopy("cq", bir.EngDVE, q.All(), a.All())
		b.TensorTensorScan("scan", a.All(), p.All(), q.All(), bir.Imm(0), "add", "add", false, false)
		b.Save("st", z.All(), a.All())
		wantErr(t, run(m), ErrMemoryRule, "scan", "both in PSUM")
	})
}

// reduceModule builds x [P, F] -> z [1, F] = tensor_partition_reduce(op, x)
// on GpSimd, with x and z of dtypes dt and odt.
func reduceModule(t *testing.T, dt, odt bir.Dtype, P, F int64, op string) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, P, F)
	z := b.Output("z", odt, 1, F)
	a := b.SBUF("a", dt, P, F)
	d := b.SBUF("d", odt, 1, F)
	b.Load("ldx", a.All(), x.All())
	b.TensorPartitionReduce("pr", op, d.All(), a.All())
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTensorPartitionReduce_Semantics(t *testing.T) {
	cases := []struct {
		name    string
		dt, odt bir.Dtype
		P, F    int64
		op      string
		x, want []float64
	}{
		{"add columns", bir.Float32, bir.Float32, 3, 2, "add", []float64{1, 2, 3, 4, 5, 6}, []float64{9, 12}},
		{"max of negatives", bir.Float32, bir.Float32, 2, 2, "max", []float64{-1, -5, -3, -2}, []float64{-1, -2}},
		{"max: NaN propagates in its column", bir.Float32, bir.Float32, 2, 2, "max", []float64{1, math.NaN(), 2, 0}, []float64{2, math.NaN()}},
		{"average is the mean", bir.Float32, bir.Float32, 3, 1, "average", []float64{1, 2, 6}, []float64{3}},
		{"int32 add is exact above 2^24 (GpSimd integer path)", bir.Int32, bir.Int32, 2, 1, "add", []float64{16777217, 1}, []float64{16777218}},
		{"int32 max", bir.Int32, bir.Int32, 3, 1, "max", []float64{3, -7, 5}, []float64{5}},
		{"int32 add wraps", bir.Int32, bir.Int32, 2, 1, "add", []float64{math.MaxInt32, 1}, []float64{math.MinInt32}},
		{"bitwise_or", bir.Int32, bir.Int32, 3, 1, "bitwise_or", []float64{1, 2, 4}, []float64{7}},
		{"bitwise_and", bir.Int32, bir.Int32, 3, 1, "bitwise_and", []float64{7, 6, 14}, []float64{6}},
		{"fp32 sum cast to bf16", bir.Float32, bir.BFloat16, 2, 1, "add", []float64{1, 1.0 / 512}, []float64{1}},
		{"int32 source, fp32 destination: the fp32 path", bir.Int32, bir.Float32, 2, 1, "add", []float64{16777217, 1}, []float64{16777216}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := reduceModule(t, c.dt, c.odt, c.P, c.F, c.op)
			out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", c.dt, []int64{c.P, c.F}, c.x...)}, Options{})
			wantValues(t, c.name, values(out["z"]), c.want...)
		})
	}
}

// TestTensorPartitionReduce_Offsets: the source is partitions 1..3 of a
// 4-partition tile, the destination partition 2 of another.
func TestTensorPartitionReduce_Offsets(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 4, 2)
	z := b.Output("z", bir.Float32, 1, 2)
	a := b.SBUF("a", bir.Float32, 4, 2)
	d := b.SBUF("d", bir.Float32, 4, 2)
	b.Load("ldx", a.All(), x.All())
	b.TensorPartitionReduce("pr", "add", d.Tile(2, 1, 0, 2), a.Tile(1, 3, 0, 2))
	b.Save("st", z.All(), d.Tile(2, 1, 0, 2))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{4, 2}, 100, 100, 1, 2, 3, 4, 5, 6)}, Options{})
	wantValues(t, "rows 1..3", values(out["z"]), 9, 12)
}

func TestTensorPartitionReduce_Errors(t *testing.T) {
	run := func(m *bir.Module, dt bir.Dtype) error {
		_, err := Run(m, map[string]*Tensor{"x": tensorOf("x", dt, []int64{2, 2}, 1, 2, 3, 4)}, Options{})
		return err
	}
	t.Run("op outside the reference's list", func(t *testing.T) {
		wantErr(t, run(reduceModule(t, bir.Float32, bir.Float32, 2, 2, "min"), bir.Float32), ErrNoSemantics, "pr", "the NKI reference's list")
	})
	t.Run("bitwise on floats", func(t *testing.T) {
		wantErr(t, run(reduceModule(t, bir.Float32, bir.Float32, 2, 2, "bitwise_or"), bir.Float32), ErrOperand, "pr", "integer dtypes only")
	})
	t.Run("destination of two partitions", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		z := b.Output("z", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		b.Load("ldx", a.All(), x.All())
		b.TensorPartitionReduce("pr", "add", a.All(), a.All())
		b.Save("st", z.All(), a.All())
		wantErr(t, run(m, bir.Float32), ErrCountMismatch, "pr", "leaves 1 x 2")
	})
	t.Run("GpSimd reading PSUM", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		z := b.Output("z", bir.Float32, 1, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		p := b.PSUM("p", bir.Float32, 2, 2)
		d := b.SBUF("d", bir.Float32, 1, 2)
		b.Load("ldx", a.All(), x.All())
		b.TensorCopy("cp", bir.EngDVE, p.All(), a.All())
		b.TensorPartitionReduce("pr", "add", d.All(), p.All())
		b.Save("st", z.All(), d.All())
		wantErr(t, run(m, bir.Float32), ErrMemoryRule, "pr", "PSUM")
	})
}

func TestScalarTensorTensor_Semantics(t *testing.T) {
	cases := []struct {
		name       string
		P, F       int64
		op0, op1   string
		rev0, rev1 bool
		s0         []float64 // nil: the immediate imm
		imm        float64
		x, y, want []float64
	}{
		{name: "(x * s[p]) + y", P: 2, F: 2, op0: "mult", op1: "add", s0: []float64{10, 100},
			x: []float64{1, 2, 3, 4}, y: []float64{1, 1, 1, 1}, want: []float64{11, 21, 301, 401}},
		{name: "reverse0: (10 - x) * y", P: 1, F: 2, op0: "subtract", op1: "mult", rev0: true, imm: 10,
			x: []float64{1, 2}, y: []float64{2, 3}, want: []float64{18, 24}},
		{name: "reverse1: y - (x + 1)", P: 1, F: 2, op0: "add", op1: "subtract", rev1: true, imm: 1,
			x: []float64{1, 2}, y: []float64{10, 10}, want: []float64{8, 7}},
		{name: "NaN stays in its element (no state)", P: 1, F: 3, op0: "add", op1: "max", imm: 0,
			x: []float64{1, math.NaN(), 3}, y: []float64{2, 2, 2}, want: []float64{2, math.NaN(), 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, b := newB(t)
			x := b.Input("x", bir.Float32, c.P, c.F)
			y := b.Input("y", bir.Float32, c.P, c.F)
			z := b.Output("z", bir.Float32, c.P, c.F)
			a, cc, d := b.SBUF("a", bir.Float32, c.P, c.F), b.SBUF("c", bir.Float32, c.P, c.F), b.SBUF("d", bir.Float32, c.P, c.F)
			b.Load("ldx", a.All(), x.All())
			b.Load("ldy", cc.All(), y.All())
			s0 := bir.Imm(c.imm)
			in := map[string]*Tensor{"x": f32Tensor("x", []int64{c.P, c.F}, c.x...), "y": f32Tensor("y", []int64{c.P, c.F}, c.y...)}
			if c.s0 != nil {
				s := b.Input("s", bir.Float32, c.P, 1)
				sc := b.SBUF("sc", bir.Float32, c.P, 1)
				b.Load("lds", sc.All(), s.All())
				s0 = sc.All()
				in["s"] = f32Tensor("s", []int64{c.P, 1}, c.s0...)
			}
			b.ScalarTensorTensor("stt", d.All(), a.All(), s0, cc.All(), c.op0, c.op1, c.rev0, c.rev1)
			b.Save("st", z.All(), d.All())
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			wantValues(t, c.name, values(mustRun(t, m, in, Options{})["z"]), c.want...)
		})
	}
	t.Run("bit-vector op", func(t *testing.T) {
		m := twoIn(t, bir.Int32, bir.Int32, 1, 2, func(b *bir.Builder, a, c, d bir.T) {
			b.ScalarTensorTensor("stt", d.All(), a.All(), bir.Imm(1), c.All(), "add", "bitwise_or", false, false)
		})
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOperand, "stt", "arithmetic AluOps")
	})
}

// TestTensorCopyPredicated_ScalarSource: an immediate source is converted
// to dst's dtype and written where the predicate holds (reverse_pred:
// where it is zero); elsewhere dst keeps its value.
func TestTensorCopyPredicated_ScalarSource(t *testing.T) {
	cases := []struct {
		name string
		dt   bir.Dtype
		imm  bir.Operand
		rev  bool
		want []float64
	}{
		{"float immediate into fp32", bir.Float32, bir.Imm(-2.5), false, []float64{-2.5, 7, -2.5, 7}},
		{"reverse_pred", bir.Float32, bir.Imm(-2.5), true, []float64{7, -2.5, 7, -2.5}},
		{"float immediate into bf16 rounds", bir.BFloat16, bir.Imm(1.00390625), false, []float64{1, 7, 1, 7}},
		{"integer immediate into int32 wraps", bir.Int32, bir.ImmI(1<<32+5, bir.Int32), false, []float64{5, 7, 5, 7}},
		{"float immediate into int32 rounds to nearest even", bir.Int32, bir.Imm(2.5), false, []float64{2, 7, 2, 7}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, b := newB(t)
			pr := b.Input("pr", bir.Uint8, 1, 4)
			z := b.Output("z", c.dt, 1, 4)
			ps, d := b.SBUF("ps", bir.Uint8, 1, 4), b.SBUF("d", c.dt, 1, 4)
			b.Load("ldp", ps.All(), pr.All())
			b.Memset("init", bir.EngDVE, d.All(), 7)
			b.TensorCopyPredicated("cp", d.All(), c.imm, ps.All(), c.rev)
			b.Save("st", z.All(), d.All())
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			out := mustRun(t, m, map[string]*Tensor{"pr": tensorOf("pr", bir.Uint8, []int64{1, 4}, 1, 0, 255, 0)}, Options{})
			wantValues(t, c.name, values(out["z"]), c.want...)
		})
	}
}

// top8Module: x [P, F] -> max8 -> top [P, 8], nc_find_index8 -> idx, and
// nc_match_replace8(x, top, imm) -> rep [P, F] with its indices repidx.
func top8Module(t *testing.T, P, F int64) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", bir.Float32, P, F)
	zt := b.Output("top", bir.Float32, P, 8)
	zi := b.Output("idx", bir.Uint32, P, 8)
	zr := b.Output("rep", bir.Float32, P, F)
	zri := b.Output("repidx", bir.Uint16, P, 8)
	a, top, idx := b.SBUF("a", bir.Float32, P, F), b.SBUF("tops", bir.Float32, P, 8), b.SBUF("idxs", bir.Uint32, P, 8)
	rep, repidx := b.SBUF("reps", bir.Float32, P, F), b.SBUF("repidxs", bir.Uint16, P, 8)
	b.Load("ld", a.All(), x.All())
	b.Max8("max8", top.All(), a.All())
	b.FindIndex8("find", idx.All(), a.All(), top.All())
	b.MatchReplace8("mr", rep.All(), a.All(), top.All(), -1e9, repidx.All())
	b.Save("s1", zt.All(), top.All())
	b.Save("s2", zi.All(), idx.All())
	b.Save("s3", zr.All(), rep.All())
	b.Save("s4", zri.All(), repidx.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMax8_FindIndex8_MatchReplace8(t *testing.T) {
	// Row 0: distinct values; row 1: a repeated maximum and a NaN.
	nan := math.NaN()
	x := []float64{
		5, 1, 9, 3, 7, 2, 8, 6, 4, 0,
		3, 9, 9, 1, nan, -2, 9, 0, 5, -7,
	}
	m := top8Module(t, 2, 10)
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 10}, x...)}, Options{})
	wantValues(t, "max8", values(out["top"]), 9, 8, 7, 6, 5, 4, 3, 2, nan, 9, 9, 9, 5, 3, 1, 0)
	wantValues(t, "find_index8 (first occurrence)", values(out["idx"]), 2, 6, 4, 7, 0, 8, 3, 5, 4, 1, 1, 1, 8, 0, 3, 7)
	wantValues(t, "match_replace8", values(out["rep"]),
		-1e9, 1, -1e9, -1e9, -1e9, -1e9, -1e9, -1e9, -1e9, 0,
		-1e9, -1e9, -1e9, -1e9, -1e9, -2, -1e9, -1e9, -1e9, -7)
	wantValues(t, "match_replace8 indices (successive occurrences)", values(out["repidx"]), 2, 6, 4, 7, 0, 8, 3, 5, 4, 1, 2, 6, 8, 0, 3, 7)
}

func TestMax8_Errors(t *testing.T) {
	t.Run("fewer than 8 elements", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 1, 6)
		z := b.Output("z", bir.Float32, 1, 8)
		a, d := b.SBUF("a", bir.Float32, 1, 6), b.SBUF("d", bir.Float32, 1, 8)
		b.Load("ld", a.All(), x.All())
		b.Max8("max8", d.All(), a.All())
		b.Save("st", z.All(), d.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrCountMismatch, "max8", "want 8 to 16384")
	})
	t.Run("value not in the data", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 1, 8)
		v := b.Input("v", bir.Float32, 1, 8)
		z := b.Output("z", bir.Uint32, 1, 8)
		a, vs, d := b.SBUF("a", bir.Float32, 1, 8), b.SBUF("vs", bir.Float32, 1, 8), b.SBUF("d", bir.Uint32, 1, 8)
		b.Load("ld", a.All(), x.All())
		b.Load("ldv", vs.All(), v.All())
		b.FindIndex8("find", d.All(), a.All(), vs.All())
		b.Save("st", z.All(), d.All())
		_, err := Run(m, map[string]*Tensor{
			"x": f32Tensor("x", []int64{1, 8}, 1, 2, 3, 4, 5, 6, 7, 8),
			"v": f32Tensor("v", []int64{1, 8}, 1, 2, 3, 4, 5, 6, 7, 42),
		}, Options{})
		wantErr(t, err, ErrDomain, "find", "value 42", "not in partition 0")
	})
}
