package interp

import (
	"math"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/stream"
)

// tio declares a test module's input or output: a DRAM tensor of that
// name loaded into (input) or stored from (output) an SBUF tile of the same
// shape, named name+"_sb".
type tio struct {
	name  string
	dt    bir.Dtype
	shape []int64
}

// ioModule builds a module with inputs loaded into SBUF, a body on the
// tiles, and outputs saved from theirs. body gets the tiles by name.
func ioModule(t *testing.T, arch string, ins, outs []tio, body func(b *bir.Builder, sb map[string]bir.T)) *bir.Module {
	t.Helper()
	m := bir.NewModule(arch)
	b := bir.NewBuilder(m, "main")
	sb := map[string]bir.T{}
	for _, x := range ins {
		d := b.Input(x.name, x.dt, x.shape...)
		s := b.SBUF(x.name+"_sb", x.dt, x.shape...)
		b.Load("ld_"+x.name, s.All(), d.All())
		sb[x.name] = s
	}
	for _, x := range outs {
		sb[x.name] = b.SBUF(x.name+"_sb", x.dt, x.shape...)
	}
	body(b, sb)
	for _, x := range outs {
		d := b.Output(x.name, x.dt, x.shape...)
		b.Save("st_"+x.name, d.All(), sb[x.name].All())
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func shp(s ...int64) []int64 { return s }

// TestTensorScalarReduce_Semantics: dst = data op0 operand0 and the
// reduce_op fold of each row into the Vector accumulator, read out into
// reduce_res, for every reduce command.
func TestTensorScalarReduce_Semantics(t *testing.T) {
	cases := []struct {
		name           string
		op0, redOp     string
		rev0           bool
		cmd            string
		s0             []float64 // nil: the immediate 2
		init           float64   // load_reduce's reduce_init (an immediate)
		x, want, wantR []float64 // x [2, 3]
	}{
		{name: "multiply and row sums", op0: "mult", redOp: "add", cmd: "reset_reduce",
			x: []float64{1, 2, 3, 4, 5, 6}, want: []float64{2, 4, 6, 8, 10, 12}, wantR: []float64{12, 30}},
		{name: "per-partition operand, row max", op0: "subtract", redOp: "max", cmd: "reset_reduce", s0: []float64{1, 10},
			x: []float64{1, 5, 3, 4, 5, 6}, want: []float64{0, 4, 2, -6, -5, -4}, wantR: []float64{4, -4}},
		{name: "reverse0: operand0 - data, row min", op0: "subtract", redOp: "min", rev0: true, cmd: "reset_reduce",
			x: []float64{1, 5, 3, 4, 5, 6}, want: []float64{1, -3, -1, -2, -3, -4}, wantR: []float64{-3, -4}},
		{name: "product from the identity 1", op0: "add", redOp: "mult", cmd: "reset_reduce",
			x: []float64{0, 1, 2, -1, -1, -1}, want: []float64{2, 3, 4, 1, 1, 1}, wantR: []float64{24, 1}},
		{name: "load_reduce starts from reduce_init", op0: "mult", redOp: "add", cmd: "load_reduce", init: 100,
			x: []float64{1, 2, 3, 4, 5, 6}, want: []float64{2, 4, 6, 8, 10, 12}, wantR: []float64{112, 130}},
		{name: "a NaN term poisons its row's sum only", op0: "mult", redOp: "add", cmd: "reset_reduce",
			x: []float64{1, math.NaN(), 1, 1, 1, 1}, want: []float64{2, math.NaN(), 2, 2, 2, 2}, wantR: []float64{math.NaN(), 6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins := []tio{{"x", bir.Float32, shp(2, 3)}}
			if c.s0 != nil {
				ins = append(ins, tio{"s", bir.Float32, shp(2, 1)})
			}
			m := ioModule(t, "trn2", ins, []tio{{"z", bir.Float32, shp(2, 3)}, {"r", bir.Float32, shp(2, 1)}}, func(b *bir.Builder, sb map[string]bir.T) {
				s0 := bir.Imm(2)
				if c.s0 != nil {
					s0 = sb["s"].All()
				}
				var init bir.Operand
				if c.cmd == "load_reduce" {
					init = bir.Imm(c.init)
				}
				b.TensorScalarReduce("tsr", sb["z"].All(), sb["x"].All(), s0, c.op0, c.rev0, c.redOp, sb["r"].All(), c.cmd, init)
			})
			in := map[string]*Tensor{"x": f32Tensor("x", shp(2, 3), c.x...)}
			if c.s0 != nil {
				in["s"] = f32Tensor("s", shp(2, 1), c.s0...)
			}
			out := mustRun(t, m, in, Options{})
			wantValues(t, "dst", values(out["z"]), c.want...)
			wantValues(t, "reduce_res", values(out["r"]), c.wantR...)
		})
	}
}

// TestVectorAccumulator_SharedAcrossInstructions: the Vector accumulator
// is one state shared in program order by every accumulating Vector
// instruction: a tensor_scalar_reduce reset, a select_reduce, a
// range_select and a tensor_scalar_cumulative continuing it (reduce), and
// lanes that follow the physical partition of the source row (a source on
// rows 2..3 accumulates into lanes 2..3, which a later instruction on rows
// 0..1 does not see).
func TestVectorAccumulator_SharedAcrossInstructions(t *testing.T) {
	m := ioModule(t, "trn2", []tio{{"x", bir.Float32, shp(4, 2)}, {"p", bir.Uint8, shp(2, 2)}},
		[]tio{{"a", bir.Float32, shp(2, 2)}, {"b", bir.Float32, shp(2, 2)}, {"c", bir.Float32, shp(2, 2)}, {"d", bir.Float32, shp(2, 2)},
			{"r1", bir.Float32, shp(2, 1)}, {"r2", bir.Float32, shp(2, 1)}, {"r3", bir.Float32, shp(2, 1)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			top, low := sb["x"].Tile(0, 2, 0, 2), sb["x"].Tile(2, 2, 0, 2)
			// rows 0..1: sum of x+1 -> lanes 0..1
			b.TensorScalarReduce("sum", sb["a"].All(), top, bir.Imm(1), "add", false, "add", bir.Operand{}, "reset_reduce", bir.Operand{})
			// rows 2..3: max into lanes 2..3 (not read by the others)
			b.TensorScalarReduce("other_lanes", sb["b"].All(), low, bir.Imm(0), "add", false, "max", bir.Operand{}, "reset_reduce", bir.Operand{})
			// rows 0..1: select x where p, else -100; fold (add) onto lanes 0..1
			b.SelectReduce("sel", sb["c"].All(), sb["p"].All(), top, bir.Imm(-100), sb["r1"].All(), "reduce", "add", false)
			// rows 0..1: keep j in [1, 1]; fold (add) the kept values and the fills
			b.RangeSelect("rs", sb["d"].All(), top, "is_ge", "is_le", bir.Imm(1), bir.Imm(1), "reduce", sb["r2"].All(), "add", 0, -1)
			// rows 2..3 again: the max is still in lanes 2..3
			b.Inst(bir.OpTensorScalarPtr, "read_low", bir.EngDVE, []bir.Operand{low, bir.Imm(0)}, []bir.Operand{sb["b"].All(), sb["r3"].All()},
				bir.Attrs("op0", "add", "reverse0", false, "op1", "bypass", "reverse1", false, "acc", "Accumulate", "reduce_op", "max"))
		})
	out := mustRun(t, m, map[string]*Tensor{
		"x": f32Tensor("x", shp(4, 2), 1, 2, 3, 4, 7, 5, 6, 8),
		"p": tensorOf("p", bir.Uint8, shp(2, 2), 1, 0, 0, 1),
	}, Options{})
	// lanes 0..1 after sum: (2+3)=5, (4+5)=9
	// sel: [1, -100], [-100, 4]; lanes: 5+1-100 = -94, 9-100+4 = -87
	wantValues(t, "select_reduce dst", values(out["c"]), 1, -100, -100, 4)
	wantValues(t, "select_reduce readout", values(out["r1"]), -94, -87)
	// rs: j=0 fails (0 >= 1 false) -> fill -1, j=1 kept: [-1, 2], [-1, 4]
	wantValues(t, "range_select dst", values(out["d"]), -1, 2, -1, 4)
	wantValues(t, "range_select readout", values(out["r2"]), -94-1+2, -87-1+4)
	// lanes 2..3: max(7, 5) = 7, max(6, 8) = 8, then max again with the same rows
	wantValues(t, "lanes 2..3", values(out["r3"]), 7, 8)
}

// TestTensorScalarCumulative_Semantics: the running op1 of (x op0 imm0)
// from the reduce command's start, written at every element, and left in
// the accumulator.
func TestTensorScalarCumulative_Semantics(t *testing.T) {
	cases := []struct {
		name     string
		op0, op1 string
		rev0     bool
		imm0     float64
		cmd      string
		imm1     []float64 // load_reduce: per partition
		x, want  []float64 // [2, 4]
	}{
		{name: "cumulative sum", op0: "add", op1: "add", imm0: 0, cmd: "reset_reduce",
			x: []float64{1, 1, 1, 1, 1, 2, 3, 4}, want: []float64{1, 2, 3, 4, 1, 3, 6, 10}},
		{name: "cumulative product of x*2", op0: "mult", op1: "mult", imm0: 2, cmd: "reset_reduce",
			x: []float64{1, 1, 1, 1, 1, 2, 0.5, 4}, want: []float64{2, 4, 8, 16, 2, 8, 8, 64}},
		{name: "running max from -inf", op0: "add", op1: "max", imm0: 0, cmd: "reset_reduce",
			x: []float64{-5, -7, -1, -3, 2, 1, 3, 0}, want: []float64{-5, -5, -1, -1, 2, 2, 3, 3}},
		{name: "running min", op0: "add", op1: "min", imm0: 0, cmd: "reset_reduce",
			x: []float64{5, 7, 1, 3, 2, 1, 3, 0}, want: []float64{5, 5, 1, 1, 2, 1, 1, 0}},
		{name: "subtract: reg = t - reg", op0: "add", op1: "subtract", imm0: 0, cmd: "reset_reduce",
			x: []float64{1, 2, 3, 4, 0, 0, 0, 0}, want: []float64{1, 1, 2, 2, 0, 0, 0, 0}},
		{name: "reverse0: imm0 - x", op0: "subtract", op1: "add", rev0: true, imm0: 10, cmd: "reset_reduce",
			x: []float64{1, 2, 3, 4, 0, 0, 0, 0}, want: []float64{9, 17, 24, 30, 10, 20, 30, 40}},
		{name: "load_reduce: start from imm1 per partition", op0: "add", op1: "add", imm0: 0, cmd: "load_reduce", imm1: []float64{100, -1},
			x: []float64{1, 1, 1, 1, 1, 1, 1, 1}, want: []float64{101, 102, 103, 104, 0, 1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins := []tio{{"x", bir.Float32, shp(2, 4)}}
			if c.imm1 != nil {
				ins = append(ins, tio{"i1", bir.Float32, shp(2, 1)})
			}
			m := ioModule(t, "trn2", ins, []tio{{"z", bir.Float32, shp(2, 4)}}, func(b *bir.Builder, sb map[string]bir.T) {
				var imm1 bir.Operand
				if c.imm1 != nil {
					imm1 = sb["i1"].All()
				}
				b.TensorScalarCumulative("cum", sb["z"].All(), sb["x"].All(), c.op0, bir.Imm(c.imm0), c.op1, imm1, c.cmd, c.rev0)
			})
			in := map[string]*Tensor{"x": f32Tensor("x", shp(2, 4), c.x...)}
			if c.imm1 != nil {
				in["i1"] = f32Tensor("i1", shp(2, 1), c.imm1...)
			}
			wantValues(t, "dst", values(mustRun(t, m, in, Options{})["z"]), c.want...)
		})
	}
}

// TestTensorScalarCumulative_ContinuesAcrossTiles: reduce continues the
// register a previous cumulative left (a scan over two column tiles), and
// a tensor_scalar_reduce readout after it sees the register.
func TestTensorScalarCumulative_ContinuesAcrossTiles(t *testing.T) {
	m := ioModule(t, "trn2", []tio{{"x", bir.Float32, shp(2, 4)}, {"zero", bir.Float32, shp(2, 1)}}, []tio{{"z", bir.Float32, shp(2, 4)}, {"w", bir.Float32, shp(2, 1)}, {"r", bir.Float32, shp(2, 1)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			x, z := sb["x"], sb["z"]
			b.TensorScalarCumulative("first", z.Tile(0, 2, 0, 2), x.Tile(0, 2, 0, 2), "add", bir.Imm(0), "add", bir.Operand{}, "reset_reduce", false)
			b.TensorScalarCumulative("second", z.Tile(0, 2, 2, 2), x.Tile(0, 2, 2, 2), "add", bir.Imm(0), "add", bir.Operand{}, "reduce", false)
			b.TensorScalarReduce("readout", sb["w"].All(), sb["zero"].All(), bir.Imm(0), "mult", false, "add", sb["r"].All(), "reduce", bir.Operand{})
		})
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", shp(2, 4), 1, 2, 3, 4, 5, 6, 7, 8), "zero": f32Tensor("zero", shp(2, 1), 0, 0)}, Options{})
	wantValues(t, "scan over two tiles", values(out["z"]), 1, 3, 6, 10, 5, 11, 18, 26)
	wantValues(t, "register after the scan", values(out["r"]), 10, 26)
}

// TestRangeSelect_Semantics: the index window, the fill, the max readout,
// per-partition bounds and range_start.
func TestRangeSelect_Semantics(t *testing.T) {
	cases := []struct {
		name       string
		cmp0, cmp1 string
		b0, b1     []float64 // per partition
		start      int64
		fill       float64
		x          []float64 // [2, 4]
		want, wr   []float64
	}{
		{name: "window [1, 2] per row, max readout", cmp0: "is_ge", cmp1: "is_le", b0: []float64{1, 0}, b1: []float64{2, 0}, fill: fp32Min,
			x: []float64{5, 6, 7, 8, 9, 1, 2, 3}, want: []float64{fp32Min, 6, 7, fp32Min, 9, fp32Min, fp32Min, fp32Min}, wr: []float64{7, 9}},
		{name: "strict bounds with range_start 10", cmp0: "is_gt", cmp1: "is_lt", b0: []float64{10, 11}, b1: []float64{13, 14}, start: 10, fill: fp32Min,
			x: []float64{1, 2, 3, 4, 1, 2, 3, 4}, want: []float64{fp32Min, 2, 3, fp32Min, fp32Min, fp32Min, 3, 4}, wr: []float64{3, 4}},
		{name: "equality picks one column", cmp0: "is_equal", cmp1: "is_ge", b0: []float64{3, 0}, b1: []float64{0, 0}, fill: fp32Min,
			x: []float64{1, 2, 3, -4, -1, 2, 3, 4}, want: []float64{fp32Min, fp32Min, fp32Min, -4, -1, fp32Min, fp32Min, fp32Min}, wr: []float64{-4, -1}},
		{name: "an empty window: the row max is the fill", cmp0: "is_ge", cmp1: "is_lt", b0: []float64{2, 2}, b1: []float64{2, 1}, fill: fp32Min,
			x: []float64{1, 2, 3, 4, 1, 2, 3, 4}, want: []float64{fp32Min, fp32Min, fp32Min, fp32Min, fp32Min, fp32Min, fp32Min, fp32Min}, wr: []float64{fp32Min, fp32Min}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ioModule(t, "trn2", []tio{{"x", bir.Float32, shp(2, 4)}, {"b0", bir.Float32, shp(2, 1)}, {"b1", bir.Float32, shp(2, 1)}},
				[]tio{{"z", bir.Float32, shp(2, 4)}, {"r", bir.Float32, shp(2, 1)}}, func(b *bir.Builder, sb map[string]bir.T) {
					b.RangeSelect("rs", sb["z"].All(), sb["x"].All(), c.cmp0, c.cmp1, sb["b0"].All(), sb["b1"].All(), "reset_reduce", sb["r"].All(), "max", c.start, c.fill)
				})
			out := mustRun(t, m, map[string]*Tensor{
				"x":  f32Tensor("x", shp(2, 4), c.x...),
				"b0": f32Tensor("b0", shp(2, 1), c.b0...),
				"b1": f32Tensor("b1", shp(2, 1), c.b1...),
			}, Options{})
			wantValues(t, "dst", values(out["z"]), c.want...)
			wantValues(t, "reduce_res", values(out["r"]), c.wr...)
		})
	}
}

// TestSelectReduce_Semantics: predicate selection with a vector or scalar
// on_false, reverse_pred, dtype conversion, and the max readout.
func TestSelectReduce_Semantics(t *testing.T) {
	cases := []struct {
		name     string
		odt      bir.Dtype
		rev      bool
		onFalse  []float64 // nil: the immediate -7
		p, x     []float64 // [2, 3]
		want, wr []float64
	}{
		{name: "vector on_false, max readout", odt: bir.Float32, onFalse: []float64{0, -50},
			p: []float64{1, 0, 1, 0, 0, 3}, x: []float64{-1, 9, -3, 4, 5, 6}, want: []float64{-1, 0, -3, -50, -50, 6}, wr: []float64{0, 6}},
		{name: "reverse_pred and a scalar on_false", odt: bir.Float32, rev: true,
			p: []float64{1, 0, 1, 0, 0, 3}, x: []float64{-1, 9, -3, 4, 5, 6}, want: []float64{-7, 9, -7, 4, 5, -7}, wr: []float64{9, 5}},
		{name: "bf16 destination: the fold is of the fp32 values", odt: bir.BFloat16,
			p: []float64{1, 1, 1, 1, 1, 1}, x: []float64{1.00390625, 1, 1, 2, 2, 2}, want: []float64{1, 1, 1, 2, 2, 2}, wr: []float64{1.00390625, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ins := []tio{{"x", bir.Float32, shp(2, 3)}, {"p", bir.Uint8, shp(2, 3)}}
			if c.onFalse != nil {
				ins = append(ins, tio{"f", bir.Float32, shp(2, 1)})
			}
			m := ioModule(t, "trn2", ins, []tio{{"z", c.odt, shp(2, 3)}, {"r", bir.Float32, shp(2, 1)}}, func(b *bir.Builder, sb map[string]bir.T) {
				of := bir.Imm(-7)
				if c.onFalse != nil {
					of = sb["f"].All()
				}
				b.SelectReduce("sr", sb["z"].All(), sb["p"].All(), sb["x"].All(), of, sb["r"].All(), "reset_reduce", "max", c.rev)
			})
			in := map[string]*Tensor{"x": f32Tensor("x", shp(2, 3), c.x...), "p": tensorOf("p", bir.Uint8, shp(2, 3), c.p...)}
			if c.onFalse != nil {
				in["f"] = f32Tensor("f", shp(2, 1), c.onFalse...)
			}
			out := mustRun(t, m, in, Options{})
			wantValues(t, "dst", values(out["z"]), c.want...)
			wantValues(t, "reduce_res", values(out["r"]), c.wr...)
		})
	}
}

// TestExponential_Semantics: exp(x - max) with the row sums, on a
// scalar and a vector max, with reset, load and continued accumulation.
func TestExponential_Semantics(t *testing.T) {
	e := func(v float64) float64 { return float64(float32(math.Exp(v))) }
	m := ioModule(t, "trn3", []tio{{"x", bir.Float32, shp(2, 2)}, {"m", bir.Float32, shp(2, 1)}},
		[]tio{{"a", bir.Float32, shp(2, 2)}, {"b", bir.Float32, shp(2, 2)}, {"ra", bir.Float32, shp(2, 1)}, {"rb", bir.Float32, shp(2, 1)}, {"c", bir.Float32, shp(2, 2)}, {"rc", bir.Float32, shp(2, 1)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			b.Exponential("e1", sb["a"].All(), sb["x"].All(), sb["m"].All(), sb["ra"].All(), "reset_reduce", 0)
			b.Exponential("e2", sb["b"].All(), sb["x"].All(), bir.Imm(1), sb["rb"].All(), "reduce", 0)
			b.Exponential("e3", sb["c"].All(), sb["x"].All(), bir.Operand{}, sb["rc"].All(), "load_reduce", 10)
		})
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", shp(2, 2), 0, 1, 2, 3), "m": f32Tensor("m", shp(2, 1), 1, 3)}, Options{})
	a := []float64{e(-1), e(0), e(-1), e(0)}
	wantValues(t, "exp(x - m)", values(out["a"]), a...)
	ra := []float64{float64(float32(a[0] + a[1])), float64(float32(a[2] + a[3]))}
	wantValues(t, "row sums", values(out["ra"]), ra...)
	bv := []float64{e(-1), e(0), e(1), e(2)}
	wantValues(t, "exp(x - 1)", values(out["b"]), bv...)
	wantValues(t, "continued sums", values(out["rb"]), float64(float32(float32(ra[0]+bv[0])+float32(bv[1]))), float64(float32(float32(ra[1]+bv[2])+float32(bv[3]))))
	cv := []float64{1, e(1), e(2), e(3)}
	wantValues(t, "exp(x)", values(out["c"]), cv...)
	wantValues(t, "loaded sums", values(out["rc"]), float64(float32(float32(10+cv[0])+float32(cv[1]))), float64(float32(float32(10+cv[2])+float32(cv[3]))))
}

// TestVectorAccumulator_Errors: a reduce of a never-written register, a
// reduce or readout after an Idle command (the reference: "accumulator
// state unknown"), malformed operands and attributes.
func TestVectorAccumulator_Errors(t *testing.T) {
	x23 := []tio{{"x", bir.Float32, shp(2, 3)}, {"p", bir.Uint8, shp(2, 3)}}
	o23 := []tio{{"z", bir.Float32, shp(2, 3)}, {"r", bir.Float32, shp(2, 1)}}
	in := map[string]*Tensor{"x": f32Tensor("x", shp(2, 3), 1, 2, 3, 4, 5, 6), "p": tensorOf("p", bir.Uint8, shp(2, 3), 1, 1, 1, 1, 1, 1)}
	tsr := func(b *bir.Builder, sb map[string]bir.T, name, cmd string) {
		b.TensorScalarReduce(name, sb["z"].All(), sb["x"].All(), bir.Imm(1), "add", false, "add", sb["r"].All(), cmd, bir.Operand{})
	}
	cases := []struct {
		name string
		body func(b *bir.Builder, sb map[string]bir.T)
		kind ErrorKind
		inst string
		frag []string
	}{
		{"reduce before any write", func(b *bir.Builder, sb map[string]bir.T) { tsr(b, sb, "acc0", "reduce") },
			ErrUninitRead, "acc0", []string{"never written", "lane 0"}},
		{"reduce after an idle select_reduce", func(b *bir.Builder, sb map[string]bir.T) {
			tsr(b, sb, "reset", "reset_reduce")
			b.SelectReduce("idle", sb["z"].All(), sb["p"].All(), sb["x"].All(), bir.Imm(0), bir.Operand{}, "idle", "max", false)
			tsr(b, sb, "after_idle", "reduce")
		}, ErrUninitRead, "after_idle", []string{"Idle"}},
		{"readout after an idle range_select", func(b *bir.Builder, sb map[string]bir.T) {
			b.RangeSelect("idle_rs", sb["z"].All(), sb["x"].All(), "is_ge", "is_le", bir.Imm(0), bir.Imm(1), "idle", sb["r"].All(), "max", 0, fp32Min)
		}, ErrUninitRead, "idle_rs", []string{"reduce_res"}},
		{"bit-vector op0", func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorScalarReduce("bv", sb["z"].All(), sb["x"].All(), bir.Imm(1), "bitwise_and", false, "add", sb["r"].All(), "reset_reduce", bir.Operand{})
		}, ErrOperand, "bv", []string{"arithmetic"}},
		{"reduce_op outside the list", func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorScalarReduce("avg", sb["z"].All(), sb["x"].All(), bir.Imm(1), "add", false, "average", sb["r"].All(), "reset_reduce", bir.Operand{})
		}, ErrNoSemantics, "avg", []string{"reduce_op average"}},
		{"load_reduce without reduce_init", func(b *bir.Builder, sb map[string]bir.T) { tsr(b, sb, "noinit", "load_reduce") },
			ErrOperand, "noinit", []string{"reduce_init"}},
		{"reduce_res of two columns", func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorScalarReduce("wide", sb["z"].All(), sb["x"].All(), bir.Imm(1), "add", false, "add", sb["z"].Tile(0, 2, 0, 2), "reset_reduce", bir.Operand{})
		}, ErrCountMismatch, "wide", []string{"reduce_res"}},
		{"cumulative with an idle command", func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorScalarCumulative("cidle", sb["z"].All(), sb["x"].All(), "add", bir.Imm(0), "add", bir.Operand{}, "idle", false)
		}, ErrNoSemantics, "cidle", []string{"reset_reduce, reduce and load_reduce"}},
		{"cumulative divide", func(b *bir.Builder, sb map[string]bir.T) {
			b.TensorScalarCumulative("cdiv", sb["z"].All(), sb["x"].All(), "add", bir.Imm(0), "divide", bir.Operand{}, "reset_reduce", false)
		}, ErrOperand, "cdiv", []string{"op1 divide"}},
		{"range_select with an arithmetic comparison", func(b *bir.Builder, sb map[string]bir.T) {
			b.RangeSelect("rsadd", sb["z"].All(), sb["x"].All(), "add", "is_le", bir.Imm(0), bir.Imm(1), "reset_reduce", bir.Operand{}, "max", 0, fp32Min)
		}, ErrOperand, "rsadd", []string{"is_equal"}},
		{"select_reduce loading", func(b *bir.Builder, sb map[string]bir.T) {
			b.SelectReduce("srload", sb["z"].All(), sb["p"].All(), sb["x"].All(), bir.Imm(0), bir.Operand{}, "load_reduce", "max", false)
		}, ErrNoSemantics, "srload", []string{"LoadAccumulate"}},
		{"three-source CopyPredicated without acc", func(b *bir.Builder, sb map[string]bir.T) {
			b.Inst(bir.OpCopyPredicated, "cp3", bir.EngDVE, []bir.Operand{sb["x"].All(), sb["p"].All(), bir.Imm(0)}, []bir.Operand{sb["z"].All()}, nil)
		}, ErrOperand, "cp3", []string{"select_reduce"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ioModule(t, "trn2", x23, o23, c.body)
			_, err := Run(m, in, Options{})
			wantErr(t, err, c.kind, c.inst, c.frag...)
		})
	}
}

// accRaceModule: a load, then two tensor_scalar_reduce on different
// engine streams (Vector resets the accumulator, GpSimd continues it)
// that touch disjoint data; ordered selects whether the GpSimd one waits
// for the Vector one.
func accRaceModule(t *testing.T, ordered bool) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 4, 8)
	y := b.Output("y", bir.Float32, 4, 8)
	tt, u, v := b.SBUF("t", bir.Float32, 4, 8), b.SBUF("u", bir.Float32, 4, 8), b.SBUF("v", bir.Float32, 4, 8)
	load := b.Load("load", tt.All(), x.All())
	reset := b.TensorScalarReduce("reset", u.All(), tt.All(), bir.Imm(1), "add", false, "add", bir.Operand{}, "reset_reduce", bir.Operand{})
	cont := b.Inst(bir.OpTensorScalarPtr, "continue", bir.EngPool, []bir.Operand{tt.All(), bir.Imm(2)}, []bir.Operand{v.All()},
		bir.Attrs("op0", "add", "reverse0", false, "op1", "bypass", "reverse1", false, "acc", "Accumulate", "reduce_op", "add"))
	save := b.Save("save", y.All(), v.All())
	b.Inst(bir.OpDrain, "drain", bir.EngSP, nil, nil, bir.AttrSet{})
	for _, e := range stream.Engines {
		b.Inst(bir.OpHalt, "halt_"+e.String(), e, nil, nil, bir.AttrSet{})
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	f.Sched = bir.NewSchedule(f.NumInstSlots())
	f.Sched.Queue[load], f.Sched.Queue[save] = 0, 1
	sy := bir.NewSync(f.NumInstSlots())
	f.Sync = sy
	sy.Trigger[load], sy.Trigger[save] = bir.EngSP, bir.EngSP
	sy.SetUpdates(load, []bir.SemCmd{{Sem: 0, Value: 1}})
	sy.SetWaits(reset, []bir.SemCmd{{Sem: 0, Value: 1}})
	waits := []bir.SemCmd{{Sem: 0, Value: 1}}
	if ordered {
		sy.SetUpdates(reset, []bir.SemCmd{{Sem: 1, Value: 1}})
		waits = append(waits, bir.SemCmd{Sem: 1, Value: 1})
	}
	sy.SetWaits(cont, waits)
	sy.SetUpdates(cont, []bir.SemCmd{{Sem: 2, Value: 1}})
	sy.SetWaits(save, []bir.SemCmd{{Sem: 2, Value: 1}})
	return m
}

// TestRunConcurrent_VectorAccumulatorRace: the race checker sees the
// Vector accumulator as engine state: two instructions that touch it on
// different streams race unless a semaphore orders them (their data
// footprints are disjoint, so the accumulator is the only conflict).
func TestRunConcurrent_VectorAccumulatorRace(t *testing.T) {
	in := map[string]*Tensor{"x": f32Tensor("x", shp(4, 8), seq(32, func(i int) float64 { return float64(i) })...)}
	for _, ordered := range []bool{false, true} {
		res, err := RunConcurrent(accRaceModule(t, ordered), in, ConcurrentOptions{Seed: 3, Policy: PolicyRandom})
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, r := range res.Races {
			text += r.String() + "\n"
		}
		switch {
		case ordered && res.RacesFound != 0:
			t.Fatalf("ordered: %d races: %s", res.RacesFound, text)
		case !ordered && !strings.Contains(text, "the Vector accumulator"):
			t.Fatalf("unordered: want a race on the Vector accumulator, have %d races: %s", res.RacesFound, text)
		}
	}
}

// TestActivate2_Semantics: the tensor-scalar stage (each combination
// form, reverse flags, vector immediates), the activation with relu_param,
// and the Scalar engine accumulator with max and a continued sum.
func TestActivate2_Semantics(t *testing.T) {
	cases := []struct {
		name       string
		fn         string
		op0, op1   string
		rev0, rev1 bool
		imm0, imm1 float64
		alpha      float64
		redOp, cmd string
		x, want    []float64 // [2, 2]
		wantR      []float64 // nil: no readout
	}{
		{name: "scale and bias, relu, row sums", fn: "Relu", op0: "mult", op1: "add", imm0: 2, imm1: -3, redOp: "add", cmd: "reset_reduce",
			x: []float64{1, 2, 3, -1}, want: []float64{0, 1, 3, 0}, wantR: []float64{1, 3}},
		{name: "reverse1: imm1 - 2x, identity, row max", fn: "Identity", op0: "mult", op1: "subtract", rev1: true, imm0: 2, imm1: 10, redOp: "max", cmd: "reset_reduce",
			x: []float64{1, 2, 3, -1}, want: []float64{8, 6, 4, 12}, wantR: []float64{8, 12}},
		{name: "reverse0 subtract only, prelu alpha", fn: "Prelu", op0: "subtract", op1: "bypass", rev0: true, imm0: 1, alpha: 0.5, redOp: "min", cmd: "reset_reduce",
			x: []float64{3, 0, -1, 0.5}, want: []float64{-1, 1, 2, 0.5}, wantR: []float64{-1, 0.5}},
		{name: "bypass both, exp, idle keeps no sum", fn: "Exp", op0: "bypass", op1: "bypass", cmd: "idle",
			x: []float64{0, 0, 0, 0}, want: []float64{1, 1, 1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outs := []tio{{"z", bir.Float32, shp(2, 2)}}
			if c.wantR != nil {
				outs = append(outs, tio{"r", bir.Float32, shp(2, 1)})
			}
			m := ioModule(t, "trn3", []tio{{"x", bir.Float32, shp(2, 2)}}, outs, func(b *bir.Builder, sb map[string]bir.T) {
				var rr bir.Operand
				if c.wantR != nil {
					rr = sb["r"].All()
				}
				b.Activate2("a2", c.fn, sb["z"].All(), sb["x"].All(), bir.Imm(c.imm0), bir.Imm(c.imm1), c.op0, c.op1, c.alpha, c.rev0, c.rev1, c.redOp, rr, c.cmd)
			})
			out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", shp(2, 2), c.x...)}, Options{})
			wantValues(t, "dst", values(out["z"]), c.want...)
			if c.wantR != nil {
				wantValues(t, "reduce_res", values(out["r"]), c.wantR...)
			}
		})
	}
	// Vector imm0 and an accumulation continued across two instructions.
	m := ioModule(t, "trn3", []tio{{"x", bir.Float32, shp(2, 2)}, {"s", bir.Float32, shp(2, 1)}}, []tio{{"z", bir.Float32, shp(2, 2)}, {"w", bir.Float32, shp(2, 2)}, {"r", bir.Float32, shp(2, 1)}},
		func(b *bir.Builder, sb map[string]bir.T) {
			b.Activate2("first", "Identity", sb["z"].All(), sb["x"].All(), sb["s"].All(), bir.Imm(0), "mult", "bypass", 0, false, false, "add", bir.Operand{}, "reset_reduce")
			b.Activate2("second", "Identity", sb["w"].All(), sb["x"].All(), bir.Imm(1), bir.Imm(0), "add", "bypass", 0, false, false, "add", sb["r"].All(), "reduce")
		})
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", shp(2, 2), 1, 2, 3, 4), "s": f32Tensor("s", shp(2, 1), 10, -1)}, Options{})
	wantValues(t, "x * s[p]", values(out["z"]), 10, 20, -3, -4)
	wantValues(t, "sum of both", values(out["r"]), 30+2+3, -7+4+5)
	// A combination outside the six.
	m = ioModule(t, "trn3", []tio{{"x", bir.Float32, shp(2, 2)}}, []tio{{"z", bir.Float32, shp(2, 2)}}, func(b *bir.Builder, sb map[string]bir.T) {
		b.Activate2("bad", "Identity", sb["z"].All(), sb["x"].All(), bir.Imm(1), bir.Imm(1), "add", "add", 0, false, false, "add", bir.Operand{}, "idle")
	})
	_, err := Run(m, map[string]*Tensor{"x": f32Tensor("x", shp(2, 2), 1, 2, 3, 4)}, Options{})
	wantErr(t, err, ErrOperand, "bad", "six combinations")
}
