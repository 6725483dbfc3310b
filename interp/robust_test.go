package interp

// Robustness: random, mostly malformed programs must never make the
// interpreter panic (a recovered panic is reported as ErrInternal, which
// these tests treat as a failure: panics are fixed at the root).

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

var fuzzAttrKeys = []string{"op", "op0", "op1", "const0", "const1", "reverse0", "reverse1", "func", "scale", "alpha", "acc",
	"start_tensor_calc", "stop_tensor_calc", "mode", "constant", "constant_bits", "base", "pattern", "channel_multiplier",
	"axis", "negate", "compare_op", "fill_value", "indirect_dims", "oob_is_err", "entry_step_elements", "constants",
	"cce_op", "is_transpose", "perf_mode", "reverse_pred", "is_64bit", "input_names", "output_names", "reduce_op", "can_read_uninit"}

var fuzzStrings = []string{"add", "mult", "bitwise_and", "logical_shift_left", "max", "divide", "Exp", "Relu", "Identity", "Copy",
	"CCE", "Random", "Const", "X", "XY", "C", "Accumulate", "ZeroAccumulate", "LoadAccumulate", "DoubleRow", "k", "main", "bogus", ""}

func fuzzValue(r *rand.Rand) bir.Value {
	switch r.IntN(7) {
	case 0:
		return bir.String(fuzzStrings[r.IntN(len(fuzzStrings))])
	case 1:
		return bir.Int(int64(r.IntN(20) - 5))
	case 2:
		return bir.Float(r.NormFloat64() * 4)
	case 3:
		return bir.Bool(r.IntN(2) == 0)
	case 4:
		return bir.Ints(int64(r.IntN(3)), int64(r.IntN(3)))
	case 5:
		return bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(int64(r.IntN(5) - 2))}, bir.Field{Key: "num", Val: bir.Int(int64(r.IntN(4)))}))
	}
	return bir.Null()
}

// randomModule builds a module from a PRNG: a few tensors in every memory,
// then random instructions with random operands and attributes, some
// inside loops.
func randomModule(r *rand.Rand) *bir.Module {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	kb := bir.NewBuilder(m, "k")
	kin := kb.Input("kin", bir.Float32, 2, 4)
	kout := kb.Output("kout", bir.Float32, 2, 4)
	kb.DMACopy("kcp", kout.All(), kin.All())
	dts := []bir.Dtype{bir.Float32, bir.BFloat16, bir.Int32, bir.Int64, bir.Uint8, bir.Float8E4M3FN, bir.Float8E5M2x4, bir.Int8}
	ts := []bir.T{
		b.Input("x", bir.Float32, 4, 8),
		b.Input("xi", bir.Int32, 4, 1),
		b.Output("z", bir.Float32, 4, 8),
		b.DRAM("dr", bir.Float32, 4, 8),
		b.SBUF("s0", bir.Float32, 4, 8),
		b.SBUF("s1", dts[r.IntN(len(dts))], 4, 8),
		b.SBUF("s2", bir.Int64, 4, 1),
		b.PSUM("p0", bir.Float32, 4, 8),
		b.PSUM("p1", bir.Float32, 4, 600),
		b.BlockTensor("bt", bir.MemSB, bir.Float32, 3, 4, 8),
	}
	if r.IntN(3) == 0 {
		l := b.F.Loc(ts[4].Loc)
		l.Allocated, l.Base, l.Addr = true, int64(r.IntN(130)), int64(r.IntN(200))
	}
	ops := bir.Opcodes()
	var good []*bir.OpInfo
	for _, o := range ops {
		if !o.Has(bir.FlagNoSemantics) && !o.Op.IsLoop() {
			good = append(good, o)
		}
	}
	// Tiles of one shape, so well-formed instructions often succeed.
	same := []bir.T{ts[0], ts[2], ts[3], ts[4], ts[5], ts[7]}
	goodAttrs := func(op bir.Opcode) bir.AttrSet {
		pick := func(xs ...string) bir.Value { return bir.String(xs[r.IntN(len(xs))]) }
		switch op {
		case bir.OpTensorTensor, bir.OpTensorReduce, bir.OpRegisterAlu:
			return bir.Attrs("op", pick("add", "max", "bitwise_xor", "mult", "average", "is_lt"), "axis", pick("X", "XY"))
		case bir.OpTensorScalar, bir.OpTensorScalarPtr:
			return bir.Attrs("op0", pick("add", "mult", "bitwise_and", "subtract"), "op1", pick("bypass", "max", "logical_shift_left"), "const0", bir.Float(2), "const1", bir.Float(1))
		case bir.OpActivation:
			return bir.Attrs("func", pick("Exp", "Relu", "Identity"), "acc", pick("Idle", "ZeroAccumulate", "Accumulate"))
		case bir.OpMatmult, bir.OpMatmultBase:
			return bir.Attrs("start_tensor_calc", r.IntN(2) == 0, "stop_tensor_calc", r.IntN(2) == 0)
		case bir.OpMemset:
			return bir.Attrs("constant", bir.Float(1.5))
		case bir.OpIota, bir.OpTensorScalarAffineSelect:
			return bir.Attrs("pattern", bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(1)}, bir.Field{Key: "num", Val: bir.Int(8)})), "compare_op", "is_ge")
		case bir.OpDMACopy:
			return bir.Attrs("mode", pick("Copy", "CCE"))
		case bir.OpNKIKernel:
			return bir.Attrs("func", "k")
		}
		return nil
	}
	var axes []affine.Expr
	operand := func() bir.Operand {
		t := ts[r.IntN(len(ts))]
		switch r.IntN(12) {
		case 0:
			return bir.ImmF(r.NormFloat64(), bir.Float32)
		case 1:
			return bir.ImmI(int64(r.IntN(9)-2), bir.Int32)
		case 2:
			return bir.RegOpd(b.F.RegByName([]string{"r0", "r1"}[r.IntN(2)]), bir.Int32)
		case 3:
			o := bir.PhysAP(bir.LocID(r.IntN(14)-1), dts[r.IntN(len(dts))], int64(r.IntN(40)-4), bir.PatternID(r.IntN(m.NumPatterns()+2)))
			return o
		case 6:
			// Extreme sizes: products and spans near int64 overflow.
			big := []int64{1 << 24, 1<<24 + 1, 1 << 40, 1<<62 + 1, -(1 << 40), math.MaxInt64}
			pick := func() int64 { return big[r.IntN(len(big))] }
			return t.AP(pick()%64, [2]int64{pick(), 1 + pick()%(1<<25)}, [2]int64{1, 1 + int64(r.IntN(4))})
		case 4, 5:
			if len(axes) > 0 {
				ax := axes[r.IntN(len(axes))]
				return t.Sym(affine.Scale(ax, int64(r.IntN(3))), affine.Scale(ax, int64(r.IntN(5))), [2]int64{int64(r.IntN(10) - 1), int64(r.IntN(5))}, [2]int64{1, int64(r.IntN(9))})
			}
		}
		pairs := make([][2]int64, r.IntN(4))
		for i := range pairs {
			pairs[i] = [2]int64{int64(r.IntN(12) - 2), int64(r.IntN(9))}
		}
		if r.IntN(3) > 0 && len(t.Shape) == 2 {
			return t.Tile(int64(r.IntN(3)), int64(1+r.IntN(4)), int64(r.IntN(3)), int64(1+r.IntN(8)))
		}
		return t.AP(int64(r.IntN(20)), pairs...)
	}
	var emit func(b *bir.Builder, depth int)
	emit = func(b *bir.Builder, depth int) {
		n := 3 + r.IntN(8)
		for range n {
			if depth < 2 && r.IntN(6) == 0 {
				b.Loop("i", int64(r.IntN(2)), int64(r.IntN(4)), int64(1+r.IntN(2)), func(i affine.Expr) {
					axes = append(axes, i)
					emit(b, depth+1)
					axes = axes[:len(axes)-1]
				})
				continue
			}
			wellFormed := r.IntN(5) > 0
			info := ops[r.IntN(len(ops))]
			if wellFormed {
				info = good[r.IntN(len(good))]
			}
			if info.Op.IsLoop() {
				continue
			}
			nIns, nOuts := info.MinIns+r.IntN(3), info.MinOuts+r.IntN(2)
			if wellFormed {
				nIns, nOuts = info.MinIns, info.MinOuts
				if info.MaxIns != info.MinIns && r.IntN(2) == 0 {
					nIns++
				}
			}
			ins, outs := make([]bir.Operand, nIns), make([]bir.Operand, nOuts)
			for i := range ins {
				ins[i] = operand()
				if wellFormed && r.IntN(3) > 0 {
					ins[i] = same[r.IntN(len(same))].All()
				}
			}
			for i := range outs {
				outs[i] = operand()
				if wellFormed && r.IntN(3) > 0 {
					outs[i] = same[r.IntN(len(same))].All()
				}
			}
			var attrs bir.AttrSet
			if wellFormed {
				attrs = goodAttrs(info.Op)
			}
			for range r.IntN(3) {
				attrs = attrs.With(fuzzAttrKeys[r.IntN(len(fuzzAttrKeys))], fuzzValue(r))
			}
			engs := []bir.Engine{bir.EngUnassigned, bir.EngDVE, bir.EngPool, bir.EngAct, bir.EngPE}
			id := b.Inst(info.Op, "", engs[r.IntN(len(engs))], ins, outs, attrs)
			if len(axes) > 0 && r.IntN(4) == 0 && id != bir.NoInst {
				b.F.SetPred(id, affine.GE(axes[0], affine.Const(int64(r.IntN(3)))))
			}
		}
	}
	emit(b, 0)
	return m
}

func checkNoPanic(t *testing.T, m *bir.Module, seed uint64) {
	t.Helper()
	for _, allow := range []bool{false, true} {
		_, err := Run(m, RandomInputs(m, int64(seed)), Options{MaxInstructions: 5000, MaxMemory: 256 << 20, AllowUninitReads: allow})
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("seed %d: error %v is not an *interp.Error", seed, err)
		}
		if e != nil && e.Kind == ErrInternal {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

func TestRun_RandomProgramsNeverPanic(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 7))
		checkNoPanic(t, randomModule(r), seed)
	}
}

func FuzzRun(f *testing.F) {
	for s := range uint64(8) {
		f.Add(s, s*31)
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		checkNoPanic(t, randomModule(r), a)
	})
}

// Extreme sizes in an otherwise well-formed module are errors, never a
// recovered panic or an out-of-memory crash.
func TestRun_ExtremeSizes(t *testing.T) {
	t.Run("pattern span wrapping int64", func(t *testing.T) {
		// 2^40 * 2^24 = 2^64 wraps to 0: the analytic range must not be
		// fooled into calling the access in bounds.
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 4, 4)
		a := b.SBUF("a", bir.Float32, 4, 4)
		b.Load("ld_wrap", a.AP(0, [2]int64{1 << 40, 1<<24 + 1}, [2]int64{0, 1}), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOperand, "ld_wrap", "destination 0: pair 0", "too large to execute")
	})
	t.Run("huge start offset", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 4, 4)
		a := b.SBUF("a", bir.Float32, 4, 4)
		b.Load("ld_off", a.AP(1<<62, [2]int64{4, 4}, [2]int64{1, 4}), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOutOfBounds, "ld_off", "element offset 4611686018427387904")
	})
	t.Run("2^40 blocks", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		tb := b.BlockTensor("tb", bir.MemSB, bir.Float32, 1<<40, 2, 2)
		b.Load("ld_blk5", tb.Sym(affine.Const(5), affine.Const(0), [2]int64{2, 2}, [2]int64{1, 2}), x.All())
		b.Load("ld_blk_far", tb.Sym(affine.Const(1<<39), affine.Const(0), [2]int64{2, 2}, [2]int64{1, 2}), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOperand, "ld_blk_far", "block 549755813888 of tensor tb_set", "at most 16777216 blocks")
	})
	t.Run("iota pattern product wrapping int64", func(t *testing.T) {
		m, b := newB(t)
		a := b.SBUF("a", bir.Int32, 2, 4)
		pair := func(n int64) bir.Value {
			return bir.Object(bir.Field{Key: "step", Val: bir.Int(1)}, bir.Field{Key: "num", Val: bir.Int(n)})
		}
		// (2^62+1) * 4 = 2^64 + 4 wraps to 4, the destination's F.
		b.Inst(bir.OpIota, "iota_wrap", bir.EngPool, nil, []bir.Operand{a.All()},
			bir.Attrs("pattern", bir.List(pair(1<<62+1), pair(4))))
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrCountMismatch, "iota_wrap", "more than 2^63 elements")
	})
}
