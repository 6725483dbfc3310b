package interp

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

var (
	nan  = math.NaN()
	inf  = math.Inf(1)
	ninf = math.Inf(-1)
)

// ttCase is one TensorTensor: z = a op b elementwise, hand-computed.
type ttCase struct {
	op         string
	a, b, want []float64
}

func runTT(t *testing.T, eng bir.Engine, dt bir.Dtype, c ttCase) ([]float64, error) {
	t.Helper()
	n := int64(len(c.a))
	m := twoIn(t, dt, dt, 1, n, func(b *bir.Builder, a, y, d bir.T) {
		b.TensorTensor("tt_"+c.op, eng, c.op, d.All(), a.All(), y.All())
	})
	out, err := Run(m, map[string]*Tensor{
		"x": tensorOf("x", dt, []int64{1, n}, c.a...),
		"y": tensorOf("y", dt, []int64{1, n}, c.b...),
	}, Options{})
	if err != nil {
		return nil, err
	}
	return values(out["z"]), nil
}

func TestTensorTensor_EveryAluOpFP32(t *testing.T) {
	cases := []ttCase{
		{"add", []float64{1.5, -1}, []float64{2.25, 1}, []float64{3.75, 0}},
		{"subtract", []float64{1, 0}, []float64{3, 2}, []float64{-2, -2}}, // in0 - in1
		{"mult", []float64{1.5, negZero}, []float64{-2, 5}, []float64{-3, math.Copysign(0, -1)}},
		{"divide", []float64{1, 1, 0, -1}, []float64{4, 0, 0, 0}, []float64{0.25, inf, nan, ninf}},
		{"max", []float64{1, nan, 1}, []float64{2, 1, nan}, []float64{2, nan, nan}},
		{"min", []float64{-1, nan, 1}, []float64{2, 1, nan}, []float64{-1, nan, nan}},
		{"abs", []float64{-3, 2}, []float64{99, 99}, []float64{3, 2}},
		{"rsqrt", []float64{4, 0.25}, []float64{0, 0}, []float64{0.5, 2}},
		{"pow", []float64{2, 9, 2}, []float64{10, 0.5, -1}, []float64{1024, 3, 0.5}},
		{"mod", []float64{7, -7, 7, 5.5, 1}, []float64{3, 3, -3, 2, 0}, []float64{1, 2, -2, 1.5, nan}},
		{"average", []float64{1, -3}, []float64{2, 3}, []float64{1.5, 0}},
		{"bypass", []float64{5, -1}, []float64{7, 7}, []float64{5, -1}},
		{"is_equal", []float64{2, 2, nan}, []float64{2, 3, nan}, []float64{1, 0, 0}},
		{"not_equal", []float64{2, 2, nan}, []float64{2, 3, nan}, []float64{0, 1, 1}},
		{"is_gt", []float64{3, 2, nan}, []float64{2, 2, 1}, []float64{1, 0, 0}},
		{"is_ge", []float64{3, 2, 1}, []float64{2, 2, 2}, []float64{1, 1, 0}},
		{"is_lt", []float64{1, 2, nan}, []float64{2, 2, 1}, []float64{1, 0, 0}},
		{"is_le", []float64{3, 2, 1}, []float64{2, 2, 2}, []float64{0, 1, 1}},
		{"logical_and", []float64{2, 2, 0}, []float64{0, -1, 0}, []float64{0, 1, 0}},
		{"logical_or", []float64{0, 0, nan}, []float64{0, 3, 0}, []float64{0, 1, 1}},
		{"logical_xor", []float64{1, 0, 0}, []float64{1, 5, 0}, []float64{0, 1, 0}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			got, err := runTT(t, bir.EngDVE, bir.Float32, c)
			if err != nil {
				t.Fatal(err)
			}
			wantValues(t, c.op, got, c.want...)
		})
	}
}

func TestTensorTensor_BitvecOps(t *testing.T) {
	cases := []struct {
		dt bir.Dtype
		ttCase
	}{
		{bir.Int32, ttCase{"bitwise_and", []float64{12, -1}, []float64{10, 5}, []float64{8, 5}}},
		{bir.Int32, ttCase{"bitwise_or", []float64{12, 0}, []float64{10, 0}, []float64{14, 0}}},
		{bir.Int32, ttCase{"bitwise_xor", []float64{12, -1}, []float64{10, 0}, []float64{6, -1}}},
		{bir.Int32, ttCase{"bitwise_not", []float64{0, 5}, []float64{0, 0}, []float64{-1, -6}}},
		{bir.Uint8, ttCase{"bitwise_not", []float64{0, 15}, []float64{0, 0}, []float64{255, 240}}},
		{bir.Int32, ttCase{"logical_shift_left", []float64{1, 1, 3}, []float64{4, 32, 31}, []float64{16, 0, math.MinInt32}}},
		{bir.Int32, ttCase{"logical_shift_right", []float64{-16, -16, 256}, []float64{28, 32, 4}, []float64{15, 0, 16}}},
		{bir.Int32, ttCase{"arith_shift_right", []float64{-16, -16, 16}, []float64{2, 40, 40}, []float64{-4, -1, 0}}},
		{bir.Int32, ttCase{"arith_shift_left", []float64{3, -1}, []float64{2, 1}, []float64{12, -2}}},
		{bir.Int8, ttCase{"logical_shift_left", []float64{1, 64}, []float64{7, 1}, []float64{-128, -128}}},
		{bir.Int32, ttCase{"bypass", []float64{7}, []float64{9}, []float64{7}}},
	}
	for _, c := range cases {
		t.Run(c.dt.String()+"/"+c.op, func(t *testing.T) {
			got, err := runTT(t, bir.EngDVE, c.dt, c.ttCase)
			if err != nil {
				t.Fatal(err)
			}
			wantValues(t, c.op, got, c.want...)
		})
	}
	t.Run("float operands are rejected", func(t *testing.T) {
		_, err := runTT(t, bir.EngDVE, bir.Float32, ttCase{"bitwise_and", []float64{1}, []float64{1}, nil})
		wantErr(t, err, ErrOperand, "tt_bitwise_and", "integer dtypes only")
	})
}

// GpSimd TensorTensor on int32 is exact integer arithmetic (wrapping);
// the Vector engine goes through fp32 and the float->int cast saturates.
func TestTensorTensor_GpSimdInt32(t *testing.T) {
	big := ttCase{"add", []float64{2147483647, 16777217}, []float64{1, 0}, nil}
	got, err := runTT(t, bir.EngPool, bir.Int32, big)
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, "Pool add", got, -2147483648, 16777217)
	got, err = runTT(t, bir.EngDVE, bir.Int32, big)
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, "DVE add", got, 2147483647, 16777216)

	got, err = runTT(t, bir.EngPool, bir.Int32, ttCase{"divide", []float64{-7, 7}, []float64{2, -2}, nil})
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, "Pool divide", got, -3, -3)
	got, err = runTT(t, bir.EngPool, bir.Int32, ttCase{"mod", []float64{-7, 7}, []float64{3, -3}, nil})
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, "Pool mod", got, 2, -2)
	_, err = runTT(t, bir.EngPool, bir.Int32, ttCase{"divide", []float64{1}, []float64{0}, nil})
	wantErr(t, err, ErrDomain, "tt_divide", "by zero")
	got, err = runTT(t, bir.EngPool, bir.Uint32, ttCase{"subtract", []float64{0}, []float64{1}, nil})
	if err != nil {
		t.Fatal(err)
	}
	wantValues(t, "Pool uint32 subtract", got, 4294967295)
}

func TestTensorTensor_OutputCast(t *testing.T) {
	// fp32 inputs, bf16 output: one RNE cast of the fp32 result.
	m := twoIn(t, bir.Float32, bir.BFloat16, 1, 2, func(b *bir.Builder, a, y, d bir.T) {
		b.TensorTensor("add", bir.EngDVE, "add", d.All(), a.All(), y.All())
	})
	out := mustRun(t, m, map[string]*Tensor{
		"x": f32Tensor("x", []int64{1, 2}, 1, 1),
		"y": f32Tensor("y", []int64{1, 2}, 1.0/256, 3.0/256),
	}, Options{})
	// 1 + 2^-8 ties to 1 (even); 1 + 3*2^-8 ties to 1 + 2^-6 (even).
	wantValues(t, "bf16 sum", values(out["z"]), 1, 1+4.0/256)
}

func TestAluInt_Unit(t *testing.T) {
	cases := []struct {
		op       aluOp
		a, b     int64
		width    int
		unsigned bool
		want     int64
	}{
		{aluAverage, -3, 0, 32, false, -2},
		{aluAverage, math.MaxInt64, math.MaxInt64, 64, false, math.MaxInt64},
		{aluPow, 3, 4, 32, false, 81},
		{aluPow, 2, -1, 32, false, 0},
		{aluPow, -1, -3, 32, false, -1},
		{aluMax, 0, -1, 32, true, int64(uint32(math.MaxUint32))},
		{aluIsLt, 0xffffffff, 1, 32, true, 0},
		{aluIsLt, -1, 1, 32, false, 1},
		{aluMult, 1 << 31, 2, 32, false, 0},
		{aluAbs, math.MinInt32, 0, 32, false, math.MinInt32},
	}
	for _, c := range cases {
		got, ok := aluInt(c.op, c.a, c.b, c.width, c.unsigned)
		if !ok || got != c.want {
			t.Errorf("aluInt(%s, %d, %d, %d, %v) = %d, %v; want %d", c.op, c.a, c.b, c.width, c.unsigned, got, ok, c.want)
		}
	}
}

func TestParseAluOp_All29(t *testing.T) {
	names := []string{"abs", "add", "arith_shift_left", "arith_shift_right", "average", "bitwise_and", "bitwise_not",
		"bitwise_or", "bitwise_xor", "bypass", "divide", "is_equal", "is_ge", "is_gt", "is_le", "is_lt", "logical_and",
		"logical_or", "logical_shift_left", "logical_shift_right", "logical_xor", "max", "min", "mod", "mult",
		"not_equal", "pow", "rsqrt", "subtract"}
	if len(names) != 29 {
		t.Fatalf("%d names", len(names))
	}
	for _, n := range names {
		op, ok := parseAluOp(n)
		if !ok || op.String() != n {
			t.Errorf("parseAluOp(%q) = %v, %v", n, op, ok)
		}
	}
	if _, ok := parseAluOp("frobnicate"); ok {
		t.Error("unknown op parsed")
	}
}
