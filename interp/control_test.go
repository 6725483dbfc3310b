package interp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// dynLoop appends a DynamicForLoop or DoWhile with source operands ins and
// builds its body with a builder on the body block.
func dynLoop(b *bir.Builder, op bir.Opcode, name, axis string, ins []bir.Operand, body func(b *bir.Builder, v affine.Expr)) bir.InstID {
	id, ax := b.F.NewLoop(op, name, axis, 0, 0, 1)
	b.F.SetArgs(id, ins, nil)
	b.F.Append(b.Block(), id)
	blk := b.F.NewBlock("body_"+axis, id)
	body(bir.BuilderFor(b.F, blk), affine.Var(ax))
	return id
}

func reg(b *bir.Builder, name string) bir.Operand { return bir.RegOpd(b.F.RegByName(name), bir.Int32) }

// A loop over row tiles with symbolic APs on DRAM and on a block tensor
// (one SBUF block per iteration, the NKI shape of a tile inside a loop),
// written in one loop and read in a second: the blocks must be distinct
// storages. Then the same module after FullUnroll's memloc generation
// (one location per block) and after allocation must give the same bytes.
func TestLoop_SymbolicAPsAndBlocks(t *testing.T) {
	const P, F, tiles = 4, 3, 3
	build := func() *bir.Module {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, P*tiles, F)
		z := b.Output("z", bir.Float32, P*tiles, F)
		tb := b.BlockTensor("tb", bir.MemSB, bir.Float32, tiles, P, F)
		tile := [][2]int64{{F, P}, {1, F}}
		zero := affine.Const(0)
		b.Loop("i", 0, tiles, 1, func(i affine.Expr) {
			b.Load("ld", tb.Sym(i, zero, tile...), x.Sym(zero, affine.Scale(i, P*F), tile...))
			b.TensorScalar("scale", bir.EngDVE, tb.Sym(i, zero, tile...), tb.Sym(i, zero, tile...), "mult", 2, "add", 0)
		})
		b.Loop("j", 0, tiles, 1, func(j affine.Expr) {
			b.Save("st", z.Sym(zero, affine.Scale(j, P*F), tile...), tb.Sym(j, zero, tile...))
		})
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	in := map[string]*Tensor{"x": f32Tensor("x", []int64{P * tiles, F}, seq(P*tiles*F, func(i int) float64 { return float64(i) })...)}
	want := seq(P*tiles*F, func(i int) float64 { return 2 * float64(i) })
	ref := mustRun(t, build(), in, Options{})
	wantValues(t, "template blocks", values(ref["z"]), want...)

	// Memloc generation: per-block locations "tb_sub<b>" with tensor ids.
	m := build()
	f := m.Main()
	tid, _ := f.TensorByName("tb_set")
	tmpl := f.Tensor(tid).Locs[0]
	proto := *f.Loc(tmpl)
	for blk := int64(0); blk < tiles; blk++ {
		l := proto
		l.Name = fmt.Sprintf("tb_sub%d", blk)
		l.TensorIdx = blk
		if _, err := f.AddLoc(tid, l); err != nil {
			t.Fatal(err)
		}
	}
	f.RemoveLoc(tmpl)
	out := mustRun(t, m, in, Options{})
	if !bytes.Equal(out["z"].Data, ref["z"].Data) {
		t.Fatal("per-block locations give different bytes")
	}

	// Allocation: the per-block locations placed in the shared SBUF.
	for blk, l := range f.Tensor(tid).Locs {
		loc := f.Loc(l)
		loc.Allocated, loc.Base, loc.Addr = true, int64(32*blk), int64(64*blk)
	}
	out = mustRun(t, m, in, Options{})
	if !bytes.Equal(out["z"].Data, ref["z"].Data) {
		t.Fatal("allocated locations give different bytes")
	}
	// Overlapping placements alias: every block at the same address keeps
	// only the last block's data.
	for _, l := range f.Tensor(tid).Locs {
		loc := f.Loc(l)
		loc.Base, loc.Addr = 0, 0
	}
	out = mustRun(t, m, in, Options{})
	last := values(out["z"])[(tiles-1)*P*F:]
	for blk := 0; blk < tiles; blk++ {
		wantValues(t, "aliased block", values(out["z"])[blk*P*F:(blk+1)*P*F], last...)
	}
}

func TestLoop_Predicate(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Float32, 1, 4)
	z := b.Output("z", bir.Float32, 1, 4)
	d := b.SBUF("d", bir.Float32, 1, 4)
	b.Memset("zero", bir.EngDVE, d.All(), 0)
	one := [][2]int64{{1, 1}, {1, 1}}
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		id := b.Load("ld", d.Sym(affine.Const(0), i, one...), x.Sym(affine.Const(0), i, one...))
		b.F.SetPred(id, affine.And(affine.GE(i, affine.Const(1)), affine.NE(i, affine.Const(2))))
	})
	b.Save("st", z.All(), d.All())
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 4}, 10, 11, 12, 13)}, Options{})
	wantValues(t, "predicated", values(out["z"]), 0, 11, 0, 13)
}

func TestDynamicForLoopAndDoWhile(t *testing.T) {
	one := [][2]int64{{1, 1}, {1, 1}}
	zero := affine.Const(0)
	build := func(loop func(b *bir.Builder, x, d bir.T)) *bir.Module {
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 1, 8)
		z := b.Output("z", bir.Float32, 1, 8)
		d := b.SBUF("d", bir.Float32, 1, 8)
		b.Memset("zero", bir.EngDVE, d.All(), 0)
		loop(b, x, d)
		b.Save("st", z.All(), d.All())
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	in := map[string]*Tensor{"x": f32Tensor("x", []int64{1, 8}, 10, 11, 12, 13, 14, 15, 16, 17)}

	// DynamicForLoop: lb and stride immediates, ub a register (= 7).
	m := build(func(b *bir.Builder, x, d bir.T) {
		b.Inst(bir.OpRegisterMove, "set_ub", bir.EngSP, []bir.Operand{bir.ImmI(7, bir.Int32)}, []bir.Operand{reg(b, "ub")}, nil)
		dynLoop(b, bir.OpDynamicForLoop, "dyn", "v", []bir.Operand{bir.ImmI(1, bir.Int32), reg(b, "ub"), bir.ImmI(2, bir.Int32)},
			func(b *bir.Builder, v affine.Expr) {
				b.Load("ld", d.Sym(zero, v, one...), x.Sym(zero, v, one...))
			})
	})
	out := mustRun(t, m, in, Options{})
	wantValues(t, "v = 1, 3, 5", values(out["z"]), 0, 11, 0, 13, 0, 15, 0, 0)

	// A negative stride counts down while v > ub.
	m = build(func(b *bir.Builder, x, d bir.T) {
		dynLoop(b, bir.OpDynamicForLoop, "down", "v", []bir.Operand{bir.ImmI(6, bir.Int32), bir.ImmI(3, bir.Int32), bir.ImmI(-2, bir.Int32)},
			func(b *bir.Builder, v affine.Expr) {
				b.Load("ld", d.Sym(zero, v, one...), x.Sym(zero, v, one...))
			})
	})
	out = mustRun(t, m, in, Options{})
	wantValues(t, "v = 6, 4", values(out["z"]), 0, 0, 0, 0, 14, 0, 16, 0)

	// DoWhile: the body runs, then repeats while the register is non-zero;
	// the axis counts passes from 0.
	m = build(func(b *bir.Builder, x, d bir.T) {
		b.Inst(bir.OpRegisterMove, "set_n", bir.EngSP, []bir.Operand{bir.ImmI(3, bir.Int32)}, []bir.Operand{reg(b, "n")}, nil)
		dynLoop(b, bir.OpDoWhile, "dw", "w", []bir.Operand{reg(b, "n")}, func(b *bir.Builder, w affine.Expr) {
			b.Load("ld", d.Sym(zero, affine.AddConst(w, 4), one...), x.Sym(zero, w, one...))
			b.Inst(bir.OpRegisterAlu, "dec", bir.EngSP, []bir.Operand{reg(b, "n"), bir.ImmI(1, bir.Int32)}, []bir.Operand{reg(b, "n")}, bir.Attrs("op", "subtract"))
		})
	})
	out = mustRun(t, m, in, Options{})
	wantValues(t, "three passes", values(out["z"]), 0, 0, 0, 0, 10, 11, 12, 0)

	// A DoWhile that never ends stops at MaxInstructions.
	m = build(func(b *bir.Builder, x, d bir.T) {
		dynLoop(b, bir.OpDoWhile, "forever", "w", []bir.Operand{bir.ImmI(1, bir.Int32)}, func(b *bir.Builder, w affine.Expr) {
			b.Inst(bir.OpNoOp, "nop", bir.EngSP, nil, nil, nil)
		})
	})
	_, err := Run(m, in, Options{MaxInstructions: 1000})
	wantErr(t, err, ErrLimit, "", "MaxInstructions")
}

func TestRegisters(t *testing.T) {
	m, b := newB(t)
	x := b.Input("x", bir.Int32, 1, 1)
	z := b.Output("z", bir.Int32, 1, 8)
	a := b.SBUF("a", bir.Int32, 1, 1)
	d := b.SBUF("d", bir.Int32, 1, 8)
	b.Load("ld", a.All(), x.All())
	mv := func(name string, v int64) {
		b.Inst(bir.OpRegisterMove, "mv_"+name, bir.EngSP, []bir.Operand{bir.ImmI(v, bir.Int32)}, []bir.Operand{reg(b, name)}, nil)
	}
	alu := func(name, op, dst string, ins []bir.Operand, attrs ...any) {
		b.Inst(bir.OpRegisterAlu, name, bir.EngSP, ins, []bir.Operand{reg(b, dst)}, bir.Attrs(append([]any{"op", op}, attrs...)...))
	}
	save := func(k int64, r string) {
		b.Inst(bir.OpTensorSave, "sv"+itoa(k), bir.EngSP, []bir.Operand{reg(b, r)}, []bir.Operand{d.Tile(0, 1, k, 1)}, nil)
	}
	mv("max", 2147483647)
	alu("wrap", "add", "r0", []bir.Operand{reg(b, "max"), bir.ImmI(1, bir.Int32)})
	save(0, "r0")
	mv("m7", -7)
	alu("div", "divide", "r1", []bir.Operand{reg(b, "m7"), bir.ImmI(2, bir.Int32)})
	save(1, "r1")
	alu("mod", "mod", "r2", []bir.Operand{reg(b, "m7"), bir.ImmI(3, bir.Int32)})
	save(2, "r2")
	alu("cmp", "is_lt", "r3", []bir.Operand{reg(b, "m7"), bir.ImmI(0, bir.Int32)})
	save(3, "r3")
	// One source: the destination is the left operand.
	mv("acc", 10)
	alu("acc_sub", "subtract", "acc", []bir.Operand{bir.ImmI(4, bir.Int32)})
	save(4, "acc")
	alu("neg", "abs", "r5", []bir.Operand{reg(b, "m7")})
	save(5, "r5")
	// TensorLoad: element -> register.
	b.Inst(bir.OpTensorLoad, "tl", bir.EngSP, []bir.Operand{a.All()}, []bir.Operand{reg(b, "r6")}, nil)
	alu("shl", "logical_shift_left", "r6", []bir.Operand{reg(b, "r6"), bir.ImmI(4, bir.Int32)})
	save(6, "r6")
	alu("w64", "add", "r7", []bir.Operand{reg(b, "max"), bir.ImmI(1, bir.Int32)}, "is_64bit", true)
	save(7, "r7") // truncated to int32 by the store
	b.Save("st", z.All(), d.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, m, map[string]*Tensor{"x": tensorOf("x", bir.Int32, []int64{1, 1}, -3)}, Options{})
	wantValues(t, "registers", values(out["z"]), -2147483648, -3, -1, 1, 6, 7, -48, -2147483648)

	// Division by zero and reading a never-written register are errors.
	m2, b2 := newB(t)
	b2.Inst(bir.OpRegisterAlu, "div0", bir.EngSP, []bir.Operand{bir.ImmI(1, bir.Int32), bir.ImmI(0, bir.Int32)}, []bir.Operand{reg(b2, "q")}, bir.Attrs("op", "divide"))
	_, err := Run(m2, nil, Options{})
	wantErr(t, err, ErrDomain, "div0", "by zero")
	m3, b3 := newB(t)
	b3.Inst(bir.OpRegisterMove, "rd", bir.EngSP, []bir.Operand{reg(b3, "never")}, []bir.Operand{reg(b3, "q")}, nil)
	_, err = Run(m3, nil, Options{})
	wantErr(t, err, ErrUninitRead, "rd", "never-written register never")
}

// An NKIKernel call: the callee doubles its input; called twice, once
// positionally and once with input_names/output_names, and with a callee
// that only writes half of its output (the rest stays unwritten).
func TestNKIKernel_Call(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 2, 4)
	z := b.Output("z", bir.Float32, 2, 4)

	kb := bir.NewBuilder(m, "double")
	kin := kb.Input("kin", bir.Float32, 1, 4)
	kout := kb.Output("kout", bir.Float32, 1, 4)
	kt := kb.SBUF("kt", bir.Float32, 1, 4)
	kb.Load("kld", kt.All(), kin.All())
	kb.TensorScalar("kx2", bir.EngDVE, kt.All(), kt.All(), "mult", 2, "bypass", 0)
	kb.Save("kst", kout.All(), kt.All())

	b.Inst(bir.OpNKIKernel, "call0", bir.EngUnassigned, []bir.Operand{x.Tile(0, 1, 0, 4)}, []bir.Operand{z.Tile(0, 1, 0, 4)}, bir.Attrs("func", "double"))
	b.Inst(bir.OpNKIKernel, "call1", bir.EngUnassigned, []bir.Operand{x.Tile(1, 1, 0, 4)}, []bir.Operand{z.Tile(1, 1, 0, 4)},
		bir.Attrs("func", "double", "input_names", bir.List(bir.String("kin")), "output_names", bir.List(bir.String("kout_set"))))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if err := kb.Err(); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8)}, Options{})
	wantValues(t, "double", values(out["z"]), 2, 4, 6, 8, 10, 12, 14, 16)

	// Errors inside the callee name the call site.
	b.Inst(bir.OpNKIKernel, "call_bad", bir.EngUnassigned, []bir.Operand{x.Tile(0, 1, 0, 4)}, []bir.Operand{z.Tile(0, 1, 0, 4)},
		bir.Attrs("func", "double", "input_names", bir.List(bir.String("nope"))))
	_, err := Run(m, map[string]*Tensor{"x": f32Tensor("x", []int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8)}, Options{})
	wantErr(t, err, ErrOperand, "call_bad", `"nope" names no input of function double`)

	m2 := bir.NewModule("trn2")
	b2 := bir.NewBuilder(m2, "main")
	x2 := b2.Input("x", bir.Float32, 1, 4)
	z2 := b2.Output("z", bir.Float32, 1, 4)
	kb2 := bir.NewBuilder(m2, "broken")
	kin2 := kb2.Input("kin", bir.Float32, 1, 4)
	kout2 := kb2.Output("kout", bir.Float32, 1, 4)
	kt2 := kb2.SBUF("kt", bir.Float32, 1, 4)
	kb2.Save("kst_uninit", kout2.All(), kt2.All())
	_ = kin2
	b2.Inst(bir.OpNKIKernel, "call", bir.EngUnassigned, []bir.Operand{x2.All()}, []bir.Operand{z2.All()}, bir.Attrs("func", "broken"))
	_, err = Run(m2, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 4}, 1, 2, 3, 4)}, Options{})
	wantErr(t, err, ErrUninitRead, "kst_uninit", "function broken", "called from function main, instruction call")
}

// The opcodes whose semantics is "no value effect" (semantics.md §4.16)
// and the control opcodes Return and NKIKLIRKernel, plus the DMA opcode:
// each opcode with semantics has a test that could fail.
func TestSyncControlAndDMAOpcodes(t *testing.T) {
	in := map[string]*Tensor{"x": f32Tensor("x", []int64{2, 4}, 1, 2, 3, 4, 5, 6, 7, 8)}
	x0 := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	for _, op := range []bir.Opcode{bir.OpEventSemaphore, bir.OpGroupResetSemaphores, bir.OpCoreBarrier, bir.OpNoOp,
		bir.OpDrain, bir.OpAllEngineBarrier, bir.OpHalt, bir.OpLoadActFuncSet, bir.OpTerminator} {
		t.Run(op.String(), func(t *testing.T) {
			// The opcode sits between a load and a copy of the same tile:
			// it changes no value and does not stop execution (Halt
			// included), and the instructions after it run.
			executed := 0
			testHookExec = func(bir.Opcode) { executed++ }
			defer func() { testHookExec = nil }()
			m := oneIn(t, bir.Float32, bir.Float32, 2, 4, func(b *bir.Builder, a, d bir.T) {
				b.Inst(op, "sync", bir.EngUnassigned, nil, nil, nil)
				b.TensorCopy("cp", bir.EngDVE, d.All(), a.All())
			})
			out := mustRun(t, m, in, Options{})
			wantValues(t, op.String(), values(out["z"]), x0...)
			if executed != 4 {
				t.Errorf("%d instructions executed, want 4 (ld, %s, cp, st)", executed, op)
			}
		})
	}
	t.Run("NoOp does not read its operands", func(t *testing.T) {
		m := oneIn(t, bir.Float32, bir.Float32, 2, 4, func(b *bir.Builder, a, d bir.T) {
			b.Inst(bir.OpNoOp, "nop", bir.EngUnassigned, []bir.Operand{d.All()}, []bir.Operand{d.All()}, nil) // d is never written yet
			b.TensorCopy("cp", bir.EngDVE, d.All(), a.All())
		})
		out := mustRun(t, m, in, Options{})
		wantValues(t, "NoOp", values(out["z"]), x0...)
	})
	t.Run("Return", func(t *testing.T) {
		// Return ends the function: the overwrite of z after it never runs,
		// also from inside a loop.
		for _, inLoop := range []bool{false, true} {
			m, b := newB(t)
			x := b.Input("x", bir.Float32, 2, 4)
			z := b.Output("z", bir.Float32, 2, 4)
			a := b.SBUF("a", bir.Float32, 2, 4)
			c := b.SBUF("c", bir.Float32, 2, 4)
			b.Load("ld", a.All(), x.All())
			b.Save("st", z.All(), a.All())
			b.Memset("ms", bir.EngDVE, c.All(), 7)
			if inLoop {
				b.Loop("i", 0, 3, 1, func(i affine.Expr) {
					b.Inst(bir.OpReturn, "ret", bir.EngUnassigned, nil, nil, nil)
					b.Save("st_loop", z.All(), c.All())
				})
			} else {
				b.Inst(bir.OpReturn, "ret", bir.EngUnassigned, nil, nil, nil)
			}
			b.Save("st_after", z.All(), c.All())
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
			out := mustRun(t, m, in, Options{})
			wantValues(t, "Return", values(out["z"]), x0...)
		}
	})
	t.Run("NKIKLIRKernel", func(t *testing.T) {
		// The KLR form of a call has the NKIKernel semantics.
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 2, 4)
		z := b.Output("z", bir.Float32, 2, 4)
		kb := bir.NewBuilder(m, "neg")
		kin := kb.Input("kin", bir.Float32, 2, 4)
		kout := kb.Output("kout", bir.Float32, 2, 4)
		kt := kb.SBUF("kt", bir.Float32, 2, 4)
		kb.Load("kld", kt.All(), kin.All())
		kb.TensorScalar("kneg", bir.EngDVE, kt.All(), kt.All(), "mult", -1, "bypass", 0)
		kb.Save("kst", kout.All(), kt.All())
		b.Inst(bir.OpNKIKLIRKernel, "klr_call", bir.EngUnassigned, []bir.Operand{x.All()}, []bir.Operand{z.All()}, bir.Attrs("func", "neg"))
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		if err := kb.Err(); err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, m, in, Options{})
		wantValues(t, "NKIKLIRKernel", values(out["z"]), -1, -2, -3, -4, -5, -6, -7, -8)
	})
	t.Run("DMA", func(t *testing.T) {
		// The generic DMA opcode is Load/Save's copy: raw for equal dtypes,
		// through fp32 (RNE) otherwise; 1 + 2^-8 is a bf16 tie to even.
		m, b := newB(t)
		x := b.Input("x", bir.Float32, 1, 4)
		z := b.Output("z", bir.BFloat16, 1, 4)
		a := b.SBUF("a", bir.Float32, 1, 4)
		b.Inst(bir.OpDMA, "dma_in", bir.EngUnassigned, []bir.Operand{x.All()}, []bir.Operand{a.All()}, nil)
		b.Inst(bir.OpDMA, "dma_out", bir.EngUnassigned, []bir.Operand{a.All()}, []bir.Operand{z.All()}, nil)
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, m, map[string]*Tensor{"x": f32Tensor("x", []int64{1, 4}, 1+1.0/256, 1+3.0/256, -2, 0.5)}, Options{})
		want := []uint16{0x3f80, 0x3f82, 0xc000, 0x3f00}
		for i, w := range want {
			if got := binary.LittleEndian.Uint16(out["z"].Data[2*i:]); got != w {
				t.Errorf("z[%d] = %#04x, want %#04x", i, got, w)
			}
		}
	})
}

// valueTests names, for every opcode with semantics (no FlagNoSemantics in
// bir's table), the test that checks its values. A new opcode with
// semantics fails TestOpcodes_EveryOneHasAValueTest until it gets a test
// and an entry here.
var valueTests = map[string]string{
	"Matmult": "TestMatmult_Basic", "MatmultBase": "TestMatmult_Basic", "MatmultSymbolic": "TestMatmultSymbolic_LoopOverK",
	"Load": "TestDMA_CopyAndConvert", "Save": "TestDMA_CopyAndConvert", "DMA": "TestSyncControlAndDMAOpcodes",
	"DMACopy": "TestDMACopy_CCE", "ReadVarAddr": "TestReadVarAddr_Model",
	"GenericIndirectLoad": "TestIndirect_GenericAndLoweredAgree", "IndirectLoad": "TestIndirect_GenericAndLoweredAgree",
	"GenericIndirectSave": "TestIndirect_Save", "IndirectSave": "TestIndirect_Save", "IndirectSaveAccumulate": "TestIndirect_SaveAccumulate",
	"NKIKernel": "TestNKIKernel_Call", "NKIKLIRKernel": "TestSyncControlAndDMAOpcodes",
	"Loop": "TestLoop_SymbolicAPsAndBlocks", "DynamicForLoop": "TestDynamicForLoopAndDoWhile", "DoWhile": "TestDynamicForLoopAndDoWhile",
	"TensorTensor": "TestTensorTensor_EveryAluOpFP32", "TensorScalar": "TestTensorScalar_Stages",
	"TensorScalarPtr": "TestTensorScalarPtr_PerPartitionScalars", "Activation": "TestActivation_EveryFunction",
	"ReadActivationAccumulator": "TestActivation_ScaleBiasAccumulators", "Transpose": "TestTranspose_PEAndDVE",
	"TensorCopy": "TestTensorCopy", "Memset": "TestMemset", "Iota": "TestIotaAndAffineSelect",
	"TensorScalarAffineSelect": "TestIotaAndAffineSelect", "TensorReduce": "TestTensorReduce",
	"CopyPredicated": "TestCopyPredicated", "BNStats": "TestBNStatsAndAggregate", "BNStatsAggregate": "TestBNStatsAndAggregate",
	"Max": "TestMax8_FindIndex8_MatchReplace8", "MaxIndex": "TestMax8_FindIndex8_MatchReplace8", "MatchReplace": "TestMax8_FindIndex8_MatchReplace8",
	"StreamShuffle": "TestStreamShuffle_Semantics", "IndirectCopy": "TestLocalGather_Semantics", "RangeSelect": "TestRangeSelect_Semantics",
	"Gather": "TestNGather_Semantics", "TensorScalarCache": "TestTensorScalarCumulative_Semantics", "Exponential": "TestExponential_Semantics",
	"GetSequenceBounds": "TestSequenceBounds_Semantics", "NonzeroWithCount": "TestNonzeroWithCount_Semantics",
	"Reciprocal": "TestReciprocal", "RegisterMove": "TestRegisters", "RegisterAlu": "TestRegisters",
	"TensorLoad": "TestRegisters", "TensorSave": "TestRegisters",
	"EventSemaphore": "TestSyncControlAndDMAOpcodes", "GroupResetSemaphores": "TestSyncControlAndDMAOpcodes",
	"CoreBarrier": "TestSyncControlAndDMAOpcodes", "NoOp": "TestSyncControlAndDMAOpcodes", "Drain": "TestSyncControlAndDMAOpcodes",
	"AllEngineBarrier": "TestSyncControlAndDMAOpcodes", "Halt": "TestSyncControlAndDMAOpcodes",
	"LoadActFuncSet": "TestSyncControlAndDMAOpcodes", "Terminator": "TestSyncControlAndDMAOpcodes", "Return": "TestSyncControlAndDMAOpcodes",
}

func TestOpcodes_EveryOneHasAValueTest(t *testing.T) {
	for _, info := range bir.Opcodes() {
		_, listed := valueTests[info.Name]
		switch {
		case !info.Has(bir.FlagNoSemantics) && !listed:
			t.Errorf("opcode %s has semantics but no value test listed in valueTests", info.Name)
		case info.Has(bir.FlagNoSemantics) && listed:
			t.Errorf("opcode %s is listed in valueTests but has FlagNoSemantics", info.Name)
		}
	}
}
