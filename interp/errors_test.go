package interp

import (
	"errors"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// The three error cases of the issue: an out-of-bounds access, a read of
// never-written SBUF and a PSUM bank-spanning access each stop the run with
// an error naming the instruction.
func TestErrors_IssueCases(t *testing.T) {
	t.Run("out of bounds", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 5, 4)
		a := b.SBUF("a", bir.Float32, 4, 4)
		b.Load("ld_oob", a.AP(0, [2]int64{4, 5}, [2]int64{1, 4}), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOutOfBounds, "ld_oob", "elements [0, 19] of location a", "4 partitions x 4 elements")
	})
	t.Run("read of never-written SBUF", func(t *testing.T) {
		m, b := newB(t)
		z := b.Output("z", bir.Float32, 4, 4)
		a := b.SBUF("a", bir.Float32, 4, 4)
		c := b.SBUF("c", bir.Float32, 4, 4)
		b.Memset("part", bir.EngDVE, a.Tile(0, 4, 0, 2), 1) // columns 2, 3 stay unwritten
		b.TensorCopy("cp_uninit", bir.EngDVE, c.All(), a.All())
		b.Save("st", z.All(), c.All())
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrUninitRead, "cp_uninit", "read of never-written SBUF (location a) at partition 0 byte 8")
		// AllowUninitReads lets it through; the unwritten bytes read as the
		// sentinel (NaN).
		out := mustRun(t, m, nil, Options{AllowUninitReads: true})
		v := values(out["z"])
		if v[0] != 1 || v[2] == v[2] {
			t.Errorf("AllowUninitReads: %v", v[:4])
		}
	})
	t.Run("PSUM bank span", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 600)
		a := b.SBUF("a", bir.Float32, 2, 600)
		p := b.PSUM("p", bir.Float32, 2, 1024) // two banks of 512 fp32 per partition
		b.Load("ld", a.All(), x.All())
		b.TensorCopy("cp_span", bir.EngDVE, p.Tile(0, 2, 0, 600), a.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrPSUMBankSpan, "cp_span", "location p, partition 0, bytes [0, 2399] cross the bank boundary at byte 2048")
	})
}

func TestErrors_Rules(t *testing.T) {
	t.Run("block index outside NBlocks", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		tb := b.BlockTensor("tb", bir.MemSB, bir.Float32, 3, 2, 2)
		b.Loop("i", 0, 4, 1, func(i affine.Expr) {
			b.Load("ld_blk", tb.Sym(i, affine.Const(0), [2]int64{2, 2}, [2]int64{1, 2}), x.All())
		})
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrOutOfBounds, "ld_blk", "block index 3 outside the 3 blocks of tensor tb_set", "iteration i=3")
	})
	t.Run("GpSimd touching PSUM", func(t *testing.T) {
		m, b := newB(t)
		p := b.PSUM("p", bir.Float32, 2, 2)
		b.Memset("ms_pool", bir.EngPool, p.All(), 0)
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrMemoryRule, "ms_pool", "GpSimd (Pool) cannot access PSUM")
	})
	t.Run("DMA reading PSUM", func(t *testing.T) {
		m, b := newB(t)
		z := b.Output("z", bir.Float32, 2, 2)
		p := b.PSUM("p", bir.Float32, 2, 2)
		b.Memset("ms", bir.EngDVE, p.All(), 0)
		b.Save("st_psum", z.All(), p.All())
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrMemoryRule, "st_psum", "DMA cannot read PSUM")
	})
	t.Run("engine touching DRAM", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		b.TensorCopy("cp_dram", bir.EngDVE, a.All(), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrMemoryRule, "cp_dram", "cannot access DRAM")
	})
	t.Run("DMA element-count mismatch", func(t *testing.T) {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 3)
		b.Load("ld_count", a.All(), x.All())
		_, err := Run(m, RandomInputs(m, 1), Options{})
		wantErr(t, err, ErrCountMismatch, "ld_count", "walks 4 elements", "walks 6")
	})
	t.Run("no semantics", func(t *testing.T) {
		m, b := newB(t)
		a := b.SBUF("a", bir.Float32, 2, 2)
		b.Inst(bir.OpPool, "pool1", bir.EngPool, []bir.Operand{a.All()}, []bir.Operand{a.All()}, bir.Attrs("func", "Max"))
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrNoSemantics, "pool1", "narwhal has no semantics for this opcode")
		m2, b2 := newB(t)
		b2.Inst(m2.UnknownOpcode("FancyNewOp"), "fancy", bir.EngDVE, nil, nil, nil)
		_, err = Run(m2, nil, Options{})
		wantErr(t, err, ErrNoSemantics, "fancy", "(FancyNewOp)")
	})
	t.Run("operand count", func(t *testing.T) {
		m, b := newB(t)
		a := b.SBUF("a", bir.Float32, 2, 2)
		b.Inst(bir.OpTensorTensor, "tt1", bir.EngDVE, []bir.Operand{a.All()}, []bir.Operand{a.All()}, bir.Attrs("op", "add"))
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrOperand, "tt1", "1 source operands; TensorTensor takes 2")
	})
	t.Run("can_read_uninit", func(t *testing.T) {
		m, b := newB(t)
		z := b.Output("z", bir.Float32, 2, 2)
		a := b.SBUF("a", bir.Float32, 2, 2)
		id := b.Save("st", z.All(), a.All())
		b.F.SetAttr(id, "can_read_uninit", bir.Bool(true))
		if _, err := Run(m, nil, Options{}); err != nil {
			t.Fatalf("can_read_uninit: %v", err)
		}
	})
	t.Run("inputs", func(t *testing.T) {
		m, b := newB(t)
		b.Input("x", bir.Float32, 2, 2)
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrInput, "", "input x: missing")
		_, err = Run(m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 2}, 1, 2, 3, 4), "y": f32Tensor("y", []int64{1}, 1)}, Options{})
		wantErr(t, err, ErrInput, "", `unknown input "y"`)
		_, err = Run(m, map[string]*Tensor{"x": tensorOf("x", bir.BFloat16, []int64{2, 2}, 1, 2, 3, 4)}, Options{})
		wantErr(t, err, ErrInput, "", "dtype bfloat16, want float32")
		_, err = Run(m, map[string]*Tensor{"x": f32Tensor("x", []int64{3}, 1, 2, 3)}, Options{})
		wantErr(t, err, ErrInput, "", "3 elements")
		// A flat tensor of the right size is accepted.
		if _, err := Run(m, map[string]*Tensor{"x": f32Tensor("x", []int64{4}, 1, 2, 3, 4)}, Options{}); err != nil {
			t.Error(err)
		}
	})
	t.Run("placement outside SBUF", func(t *testing.T) {
		m, b := newB(t)
		a := b.SBUF("a", bir.Float32, 2, 2)
		l := b.F.Loc(a.Loc)
		l.Allocated, l.Base, l.Addr = true, 127, 0
		b.Memset("ms", bir.EngDVE, a.All(), 0)
		_, err := Run(m, nil, Options{})
		wantErr(t, err, ErrOutOfBounds, "ms", "placed at partitions [127, 129)")
	})
}

// A Go panic inside an instruction never escapes Run: it becomes an
// ErrInternal error naming the instruction.
func TestRun_RecoversPanics(t *testing.T) {
	testHookExec = func(op bir.Opcode) {
		if op == bir.OpTensorCopy {
			var s []int
			_ = s[3]
		}
	}
	defer func() { testHookExec = nil }()
	m := oneIn(t, bir.Float32, bir.Float32, 1, 2, func(b *bir.Builder, a, d bir.T) {
		b.TensorCopy("boom", bir.EngDVE, d.All(), a.All())
	})
	_, err := Run(m, RandomInputs(m, 1), Options{})
	wantErr(t, err, ErrInternal, "boom", "index out of range")
}

// Every opcode with semantics is dispatched (none falls through to "no
// semantics"): fed immediates where APs are expected, each fails with an
// operand error or succeeds.
func TestDispatch_EveryOpcodeWithSemantics(t *testing.T) {
	for _, info := range bir.Opcodes() {
		if info.Has(bir.FlagNoSemantics) || info.Op.IsLoop() {
			continue
		}
		m, b := newB(t)
		ins := make([]bir.Operand, info.MinIns)
		outs := make([]bir.Operand, info.MinOuts)
		for i := range ins {
			ins[i] = bir.ImmI(1, bir.Int32)
		}
		for i := range outs {
			outs[i] = bir.ImmI(1, bir.Int32)
		}
		b.Inst(info.Op, "probe", bir.EngUnassigned, ins, outs, nil)
		_, err := Run(m, nil, Options{})
		var e *Error
		if errors.As(err, &e) && (e.Kind == ErrNoSemantics && !strings.Contains(e.Msg, "mode") || e.Kind == ErrInternal) {
			t.Errorf("%s: %v", info.Name, err)
		}
	}
}
