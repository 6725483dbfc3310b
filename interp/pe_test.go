package interp

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// mmFixture is stationary s [K x M] and moving v [K x N] in SBUF, a PSUM
// tile p [M x W], evacuated by TensorCopy to SBUF and saved to output z.
type mmFixture struct {
	m       *bir.Module
	b       *bir.Builder
	s, v, p bir.T
	K, M, N int64
	inM     int64
	dt      bir.Dtype
}

func newMM(t *testing.T, K, M, N, W int64, dt bir.Dtype) *mmFixture {
	m, b := newB(t)
	sx := b.Input("sx", dt, K, M)
	vx := b.Input("vx", dt, K, N)
	f := &mmFixture{m: m, b: b, K: K, M: M, N: N, inM: M, dt: dt}
	f.s = b.SBUF("s", dt, K, M)
	f.v = b.SBUF("v", dt, K, N)
	f.p = b.PSUM("p", bir.Float32, M, W)
	b.Load("ls", f.s.All(), sx.All())
	b.Load("lv", f.v.All(), vx.All())
	return f
}

func (f *mmFixture) finish(t *testing.T) {
	t.Helper()
	W := f.p.Shape[1]
	z := f.b.Output("z", bir.Float32, f.M, W)
	e := f.b.SBUF("e", bir.Float32, f.M, W)
	f.b.TensorCopy("evac", bir.EngDVE, e.All(), f.p.All())
	f.b.Save("st", z.All(), e.All())
	if err := f.b.Err(); err != nil {
		t.Fatal(err)
	}
}

func (f *mmFixture) inputs(s, v []float64) map[string]*Tensor {
	return map[string]*Tensor{
		"sx": tensorOf("sx", f.dt, []int64{f.K, f.inM}, s...),
		"vx": tensorOf("vx", f.dt, []int64{f.K, f.N}, v...),
	}
}

var (
	stat23 = []float64{1, 2, 3, 4, 5, 6} // [[1,2,3],[4,5,6]]
	mov22  = []float64{1, 2, 3, 4}       // [[1,2],[3,4]]
)

func TestMatmult_Basic(t *testing.T) {
	f := newMM(t, 2, 3, 2, 2, bir.Float32)
	f.b.Matmult("mm", f.p.All(), f.s.All(), f.v.All(), true, true)
	f.finish(t)
	out := mustRun(t, f.m, f.inputs(stat23, mov22), Options{})
	// dst[m][n] = sum_k s[k][m] * v[k][n]
	wantValues(t, "s^T v", values(out["z"]), 13, 18, 17, 24, 21, 30)

	// MatmultBase (the unlowered opcode) has Matmult's semantics.
	f = newMM(t, 2, 3, 2, 2, bir.Float32)
	f.b.Inst(bir.OpMatmultBase, "mmb", bir.EngPE, []bir.Operand{f.s.All(), f.v.All()}, []bir.Operand{f.p.All()},
		bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", true))
	f.finish(t)
	out = mustRun(t, f.m, f.inputs(stat23, mov22), Options{})
	wantValues(t, "MatmultBase s^T v", values(out["z"]), 13, 18, 17, 24, 21, 30)
}

func TestMatmult_BF16Inputs(t *testing.T) {
	f := newMM(t, 2, 1, 1, 1, bir.BFloat16)
	f.b.Matmult("mm", f.p.All(), f.s.All(), f.v.All(), true, true)
	f.finish(t)
	// (1 + 2^-7) * (1 + 2^-7) + 1 * 2^-20: products in fp32, sum in fp32.
	out := mustRun(t, f.m, f.inputs([]float64{1 + 1.0/128, 1}, []float64{1 + 1.0/128, 1.0 / (1 << 20)}), Options{})
	want := float32(1+2.0/128+1.0/16384) + float32(1.0/(1<<20))
	wantValues(t, "bf16 matmul", values(out["z"]), float64(want))
}

// An accumulation group: start, middle, stop sum; a following matmul with
// neither flag (no open group) overwrites; stop alone accumulates.
func TestMatmult_AccumulationGroups(t *testing.T) {
	cases := []struct {
		name  string
		flags [][2]bool // start, stop per matmul, each adds s^T v
		want  []float64 // multiples of s^T v
	}{
		{"single start+stop", [][2]bool{{true, true}}, []float64{1}},
		{"start, middle, stop", [][2]bool{{true, false}, {false, false}, {false, true}}, []float64{3}},
		{"group closed, neither flag overwrites", [][2]bool{{true, false}, {false, true}, {false, false}}, []float64{1}},
		{"stop without an open group accumulates", [][2]bool{{true, true}, {false, true}}, []float64{2}},
		{"start restarts", [][2]bool{{true, false}, {false, false}, {true, false}, {false, true}}, []float64{2}},
	}
	base := []float64{13, 18, 17, 24, 21, 30}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newMM(t, 2, 3, 2, 2, bir.Float32)
			for k, fl := range c.flags {
				f.b.Matmult("mm"+itoa(int64(k)), f.p.All(), f.s.All(), f.v.All(), fl[0], fl[1])
			}
			f.finish(t)
			out := mustRun(t, f.m, f.inputs(stat23, mov22), Options{})
			want := make([]float64, len(base))
			for i, v := range base {
				want[i] = v * c.want[0]
			}
			wantValues(t, c.name, values(out["z"]), want...)
		})
	}
}

// The zero region: a start matmul clears the whole bank of its destination
// partitions, so a later accumulating matmul into other columns of the
// bank adds to zero (not to stale data) and the untouched columns read 0.
func TestMatmult_ZeroRegion(t *testing.T) {
	f := newMM(t, 2, 3, 2, 6, bir.Float32)
	// Stale data in the bank first.
	f.b.Memset("stale", bir.EngDVE, f.p.All(), 99)
	f.b.Matmult("mm0", f.p.Tile(0, 3, 0, 2), f.s.All(), f.v.All(), true, false)
	f.b.Matmult("mm1", f.p.Tile(0, 3, 2, 2), f.s.All(), f.v.All(), false, true)
	f.finish(t)
	out := mustRun(t, f.m, f.inputs(stat23, mov22), Options{})
	wantValues(t, "bank", values(out["z"]),
		13, 18, 13, 18, 0, 0,
		17, 24, 17, 24, 0, 0,
		21, 30, 21, 30, 0, 0)
}

func TestMatmult_AccumulateOntoUnwrittenPSUM(t *testing.T) {
	f := newMM(t, 2, 3, 2, 2, bir.Float32)
	f.b.Matmult("mm_acc", f.p.All(), f.s.All(), f.v.All(), false, true)
	f.finish(t)
	_, err := Run(f.m, f.inputs(stat23, mov22), Options{})
	wantErr(t, err, ErrUninitRead, "mm_acc", "never-written PSUM (location p) at partition 0 byte 0")
}

func TestMatmult_DoubleRowAndTranspose(t *testing.T) {
	// DoubleRow: K=1, stationary [1, 2*M] with M=2, moving [1, 2*N] with N=1.
	f := newMM(t, 1, 4, 2, 1, bir.Float32)
	f.M = 2
	f.p = f.b.PSUM("p2", bir.Float32, 2, 1)
	id := f.b.Matmult("mm", f.p.All(), f.s.All(), f.v.All(), true, true)
	f.b.F.SetAttr(id, "perf_mode", bir.String("DoubleRow"))
	f.finish(t)
	out := mustRun(t, f.m, f.inputs([]float64{1, 2, 3, 4}, []float64{10, 100}), Options{})
	// dst[m][0] = s[0,0,m]*v[0,0,0] + s[0,1,m]*v[0,1,0]
	wantValues(t, "double row", values(out["z"]), 1*10+3*100, 2*10+4*100)

	// is_transpose: dst = stationary^T, bit-exact (a NaN payload survives).
	g := newMM(t, 2, 3, 2, 2, bir.Float32)
	id = g.b.Matmult("mmT", g.p.All(), g.s.All(), g.v.All(), true, true)
	g.b.F.SetAttr(id, "is_transpose", bir.Bool(true))
	g.finish(t)
	in := g.inputs([]float64{1, 2, 3, 4, 5, 6}, []float64{1, 0, 0, 1})
	in["sx"].Data[0], in["sx"].Data[1], in["sx"].Data[2], in["sx"].Data[3] = 0x01, 0x00, 0x80, 0x7f // signalling NaN
	out = mustRun(t, g.m, in, Options{})
	if le32(out["z"].Data) != 0x7f800001 {
		t.Errorf("is_transpose changed the NaN bits: %#x", le32(out["z"].Data))
	}
	wantValues(t, "transpose", values(out["z"])[1:], 4, 2, 5, 3, 6)
}

func TestMatmult_MemoryRules(t *testing.T) {
	// PE reading PSUM.
	f := newMM(t, 2, 3, 2, 2, bir.Float32)
	q := f.b.PSUM("q", bir.Float32, 2, 3)
	f.b.TensorCopy("cp", bir.EngDVE, q.All(), f.s.All())
	f.b.Matmult("mm_psum_in", f.p.All(), q.All(), f.v.All(), true, true)
	f.finish(t)
	_, err := Run(f.m, f.inputs(stat23, mov22), Options{})
	wantErr(t, err, ErrMemoryRule, "mm_psum_in", "reads only SBUF")

	// PE writing SBUF.
	g := newMM(t, 2, 3, 2, 2, bir.Float32)
	sb := g.b.SBUF("sbdst", bir.Float32, 3, 2)
	g.b.Matmult("mm_sb_out", sb.All(), g.s.All(), g.v.All(), true, true)
	g.finish(t)
	_, err = Run(g.m, g.inputs(stat23, mov22), Options{})
	wantErr(t, err, ErrMemoryRule, "mm_sb_out", "writes only PSUM")

	// Shapes.
	h := newMM(t, 2, 3, 2, 3, bir.Float32)
	h.b.Matmult("mm_shape", h.p.All(), h.s.All(), h.v.All(), true, true)
	h.finish(t)
	_, err = Run(h.m, h.inputs(stat23, mov22), Options{})
	wantErr(t, err, ErrCountMismatch, "mm_shape", "3 x 2")
}

func TestTranspose_PEAndDVE(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 2, 3)
	z := b.Output("z", bir.Float32, 3, 2)
	a := b.SBUF("a", bir.Float32, 2, 3)
	p := b.PSUM("p", bir.Float32, 3, 2)
	e := b.SBUF("e", bir.Float32, 3, 2)
	b.Load("ld", a.All(), x.All())
	b.Transpose("tr", bir.EngPE, p.All(), a.All())
	b.TensorCopy("evac", bir.EngDVE, e.All(), p.All())
	b.Save("st", z.All(), e.All())
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 3}, 1, 2, 3, 4, 5, 6)}, Options{})
	wantValues(t, "PE transpose", values(out["z"]), 1, 4, 2, 5, 3, 6)

	// DVE: 32x32 blocks of a [64, 64] int32 tile, each block transposed in place.
	const P, F = 64, 64
	m2 := oneIn(t, bir.Int32, bir.Int32, P, F, func(b *bir.Builder, a, d bir.T) {
		b.Transpose("trdve", bir.EngDVE, d.All(), a.All())
	})
	out = mustRun(t, m2, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{P, F}, seq(P*F, func(i int) float64 { return float64(i) })...)}, Options{})
	got := values(out["z"])
	for r := range P {
		for c := range F {
			q, j, bb, i := r/32, r%32, c/32, c%32
			want := float64((32*q+i)*F + 32*bb + j)
			if got[r*F+c] != want {
				t.Fatalf("DVE transpose [%d,%d] = %v, want %v", r, c, got[r*F+c], want)
			}
		}
	}
	m3 := oneIn(t, bir.Int32, bir.Int32, 48, 32, func(b *bir.Builder, a, d bir.T) {
		b.Transpose("trbad", bir.EngDVE, d.All(), a.All())
	})
	_, err := Run(m3, RandomInputs(m3, 1), Options{})
	wantErr(t, err, ErrOperand, "trbad", "32x32 blocks")

	// DVE at most 32x32 (nc_transpose on the Vector engine): [3, 5] ->
	// [5, 3], bit-exact (a NaN payload survives).
	m4, b4 := newB(t)
	x4 := b4.Input("x", bir.Float32, 3, 5)
	z4 := b4.Output("z", bir.Float32, 5, 3)
	a4, d4 := b4.SBUF("a", bir.Float32, 3, 5), b4.SBUF("d", bir.Float32, 5, 3)
	b4.Load("ld", a4.All(), x4.All())
	b4.Transpose("trsmall", bir.EngDVE, d4.All(), a4.All())
	b4.Save("st", z4.All(), d4.All())
	in4 := f32Tensor("x", []int64{3, 5}, seq(15, func(i int) float64 { return float64(i) })...)
	binary.LittleEndian.PutUint32(in4.Data[4*4:], 0x7fc01234) // x[0, 4] = a NaN with a payload
	out = mustRun(t, m4, map[string]*Tensor{"x": in4}, Options{})
	if got := le32(out["z"].Data[4*3*4:]); got != 0x7fc01234 {
		t.Errorf("z[4, 0] bits %#x, want the NaN 0x7fc01234", got)
	}
	v := values(out["z"])
	v[12] = 4
	wantValues(t, "small DVE transpose", v, 0, 5, 10, 1, 6, 11, 2, 7, 12, 3, 8, 13, 4, 9, 14)
	m5 := oneIn(t, bir.Int32, bir.Int32, 3, 5, func(b *bir.Builder, a, d bir.T) {
		b.Transpose("trshape", bir.EngDVE, d.All(), a.All())
	})
	_, err = Run(m5, RandomInputs(m5, 1), Options{})
	wantErr(t, err, ErrCountMismatch, "trshape", "is 5 x 3")
}

// MatmultSymbolic is Matmult: its operands are symbolic APs evaluated per
// loop iteration, its tile_*_expr fields (no value effect) are not read.
// Here a loop over K accumulates one K row per iteration (stop without an
// open group accumulates onto the zeroed PSUM tile), and gives s^T v.
func TestMatmultSymbolic_LoopOverK(t *testing.T) {
	build := func(op bir.Opcode, attrs ...any) *bir.Module {
		f := newMM(t, 2, 3, 2, 2, bir.Float32)
		f.b.Memset("zero", bir.EngDVE, f.p.All(), 0)
		zero := affine.Const(0)
		f.b.Loop("k", 0, 2, 1, func(k affine.Expr) {
			a := bir.Attrs(append([]any{"start_tensor_calc", false, "stop_tensor_calc", true}, attrs...)...)
			f.b.Inst(op, "mm_k", bir.EngPE,
				[]bir.Operand{f.s.Sym(zero, affine.Scale(k, 3), [2]int64{3, 1}, [2]int64{1, 3}), f.v.Sym(zero, affine.Scale(k, 2), [2]int64{2, 1}, [2]int64{1, 2})},
				[]bir.Operand{f.p.All()}, a)
		})
		f.finish(t)
		return f.m
	}
	in := (&mmFixture{K: 2, N: 2, inM: 3, dt: bir.Float32}).inputs(stat23, mov22)
	sym := build(bir.OpMatmultSymbolic,
		"replication_resolution", bir.Int(0), "replication_shift_amnt", bir.Int(0), "replication_num_rows", bir.Int(0),
		"tile_size_expr", bir.Object(bir.Field{Key: "kind", Val: bir.String("AffExprKind")}), "tile_position_expr", bir.String("k"))
	out := mustRun(t, sym, in, Options{})
	wantValues(t, "sum over k of s[k]^T v[k]", values(out["z"]), 13, 18, 17, 24, 21, 30)
	plain := mustRun(t, build(bir.OpMatmult), in, Options{})
	if !bytes.Equal(plain["z"].Data, out["z"].Data) {
		t.Fatalf("Matmult gives %v, MatmultSymbolic %v", values(plain["z"]), values(out["z"]))
	}

	// Replication is undocumented: a non-zero field is refused.
	_, err := Run(build(bir.OpMatmultSymbolic, "replication_resolution", bir.Int(0), "replication_shift_amnt", bir.Int(1), "replication_num_rows", bir.Int(0)), in, Options{})
	wantErr(t, err, ErrNoSemantics, "mm_k", "replication_shift_amnt=1")
	// The same on plain Matmult, where the fields are optional.
	_, err = Run(build(bir.OpMatmult, "replication_num_rows", bir.Int(4)), in, Options{})
	wantErr(t, err, ErrNoSemantics, "mm_k", "replication_num_rows=4")
}

// TestMatmult_OnChipDestination: an OnChip (placement open) destination
// runs with PSUM's accumulation semantics (a start clears, the group
// accumulates), so the same group gives the same result in OnChip as in
// PSUM; the Tensor engine may read an OnChip operand as SBUF.
func TestMatmult_OnChipDestination(t *testing.T) {
	run := func(mt bir.MemoryType) []float64 {
		f := newMM(t, 2, 3, 2, 2, bir.Float32)
		loc := f.b.F.Loc(f.p.Loc)
		loc.Type = mt
		f.b.Matmult("mm_start", f.p.All(), f.s.All(), f.v.All(), true, false)
		f.b.Matmult("mm_acc", f.p.All(), f.s.All(), f.v.All(), false, false)
		f.b.Matmult("mm_stop", f.p.All(), f.s.All(), f.v.All(), false, true)
		f.finish(t)
		out := mustRun(t, f.m, f.inputs(stat23, mov22), Options{})
		return values(out["z"])
	}
	psum, open := run(bir.MemPSUM), run(bir.MemOnChip)
	// stat^T mov = [[13,18],[17,24],[21,30]], accumulated three times.
	wantValues(t, "PSUM", psum, 39, 54, 51, 72, 63, 90)
	wantValues(t, "OnChip", open, psum...)

	// An OnChip stationary operand is read as SBUF.
	f := newMM(t, 2, 3, 2, 2, bir.Float32)
	f.b.F.Loc(f.s.Loc).Type = bir.MemOnChip
	f.b.Matmult("mm", f.p.All(), f.s.All(), f.v.All(), true, true)
	f.finish(t)
	wantValues(t, "OnChip stationary", values(mustRun(t, f.m, f.inputs(stat23, mov22), Options{})["z"]), 13, 18, 17, 24, 21, 30)
}

// A destination row wider than one PSUM bank (N = 1024 fp32 = 2 banks of
// 2 KiB, legal on NC-v4 where N <= 4096): start opens the group of, and
// clears, every bank the row touches, so a middle matmul (neither flag)
// accumulates in the second bank too, and the untouched columns of a
// partly written bank read 0. Engine reads stay within a bank: the
// evacuation copies bank by bank.
func TestMatmult_RowSpansBanks(t *testing.T) {
	v := make([]float64, 1024)
	for i := range v {
		v[i] = float64(i%7 + 1)
	}
	finish := func(t *testing.T, f *mmFixture) {
		z := f.b.Output("z", bir.Float32, 1, 1024)
		e := f.b.SBUF("e", bir.Float32, 1, 1024)
		f.b.TensorCopy("evac0", bir.EngDVE, e.Tile(0, 1, 0, 512), f.p.Tile(0, 1, 0, 512))
		f.b.TensorCopy("evac1", bir.EngDVE, e.Tile(0, 1, 512, 512), f.p.Tile(0, 1, 512, 512))
		f.b.Save("st", z.All(), e.All())
		if err := f.b.Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("groups", func(t *testing.T) {
		f := newMM(t, 1, 1, 1024, 1024, bir.Float32)
		f.m.Arch = "trn3"
		for k, fl := range [][2]bool{{true, false}, {false, false}, {false, true}} {
			f.b.Matmult("mm"+itoa(int64(k)), f.p.All(), f.s.All(), f.v.All(), fl[0], fl[1])
		}
		finish(t, f)
		out := mustRun(t, f.m, f.inputs([]float64{1}, v), Options{})
		want := make([]float64, len(v))
		for i, x := range v {
			want[i] = 3 * x
		}
		wantValues(t, "3 s^T v over two banks", values(out["z"]), want...)
	})
	t.Run("zero region", func(t *testing.T) {
		f := newMM(t, 1, 1, 600, 1024, bir.Float32)
		f.m.Arch = "trn3"
		f.b.Memset("stale0", bir.EngDVE, f.p.Tile(0, 1, 0, 512), 99)
		f.b.Memset("stale1", bir.EngDVE, f.p.Tile(0, 1, 512, 512), 99)
		f.b.Matmult("mm", f.p.Tile(0, 1, 0, 600), f.s.All(), f.v.All(), true, true)
		finish(t, f)
		out := mustRun(t, f.m, f.inputs([]float64{2}, v[:600]), Options{})
		want := make([]float64, 1024)
		for i := range 600 {
			want[i] = 2 * v[i]
		}
		wantValues(t, "columns 600..1023 of bank 1 cleared", values(out["z"]), want...)
	})
	t.Run("one bank on trn2", func(t *testing.T) {
		f := newMM(t, 1, 1, 1024, 1024, bir.Float32)
		f.b.Matmult("mm", f.p.All(), f.s.All(), f.v.All(), true, true)
		finish(t, f)
		_, err := Run(f.m, f.inputs([]float64{1}, v), Options{})
		wantErr(t, err, ErrPSUMBankSpan, "mm", "cross the bank boundary at byte 2048")
	})
}
