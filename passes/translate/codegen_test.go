package translate

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/klr"
	"github.com/narwhal-compiler/narwhal/klr/klrtest"
)

// ---- building KLR ASTs in Go ----

func kdt(name string) klr.Dtype { return klrtest.Dtype(name) }

// hbmT is an HBM tensor [par, free].
func hbmT(name, dt string, par, free uint64) klr.TensorName { return klrtest.HBM(name, dt, par, free) }

// chipT is an allocated SBUF/PSUM tensor [par, free] at (parOff, freeOff).
func chipT(name, dt string, mem klr.Memory, par, free, parOff, freeOff uint64) klr.TensorName {
	return klrtest.OnChip(name, dt, mem, par, free, parOff, freeOff)
}

// tile is the birPattern of rows p0..p0+np-1, columns f0..f0+nf-1.
func tile(t klr.TensorName, p0, np, f0, nf uint64) klr.TensorRef {
	return klrtest.Tile(t, p0, np, f0, nf)
}

func whole(t klr.TensorName) klr.TensorRef { return klrtest.Whole(t) }

func lncKernel(name string, ins, outs []klr.TensorName, ops ...klr.Operator) *klr.LncKernel {
	return klrtest.Kernel(name, ins, outs, ops...)
}

func dma(dst, src klr.TensorRef) klr.Operator { return klrtest.DMA(dst, src) }

func fimm(v float32) klr.Operand { return klrtest.FloatImm(v) }

func aluOp(name string) klr.AluOp { return klrtest.AluOp(name) }

// f32Tensor builds an interpreter tensor from float32 values.
func f32Tensor(name string, shape []int64, vals []float32) *interp.Tensor {
	t := &interp.Tensor{Name: name, Dtype: bir.Float32, Shape: shape, Data: make([]byte, 4*len(vals))}
	for i, v := range vals {
		binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(v))
	}
	return t
}

func ramp(n int, scale, bias float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*37)%101)*scale + bias
	}
	return v
}

// runKernel generates k's function in a fresh module, verifies it and runs
// it in the interpreter.
func runKernel(t *testing.T, k *klr.LncKernel, inputs ...*interp.Tensor) (*bir.Function, map[string]*interp.Tensor) {
	t.Helper()
	m := bir.NewModule("trn2")
	f, err := CodegenLncKernel(m, k, 0, k.Name, 2048)
	if err != nil {
		t.Fatalf("codegen: %v", err)
	}
	verifyModule(t, m, "after codegen")
	in := map[string]*interp.Tensor{}
	for _, x := range inputs {
		in[x.Name] = x
	}
	out, err := interp.Run(m, in, interp.Options{Function: f.Name})
	if err != nil {
		t.Fatalf("interp: %v", err)
	}
	return f, out
}

func TestCodegen_TensorScalar(t *testing.T) {
	a := hbmT("a", "float32", 128, 64)
	o1, o2 := hbmT("o1", "float32", 128, 64), hbmT("o2", "float32", 128, 64)
	t1 := chipT("t1", "float32", klr.MemSBUF, 128, 64, 0, 0)
	t2 := chipT("t2", "float32", klr.MemSBUF, 128, 64, 0, 256)
	t3 := chipT("t3", "float32", klr.MemSBUF, 128, 64, 0, 512)
	k := lncKernel("ts", []klr.TensorName{a}, []klr.TensorName{o1, o2},
		dma(whole(t1), whole(a)),
		&klr.TensorScalar{Dst: whole(t2), Src: whole(t1), Imm0: fimm(2), Op0: aluOp("mult"),
			Imm1: klr.Some(fimm(1)), Op1: klr.Some(aluOp("add")), Engine: klr.EngDVE},
		&klr.TensorScalar{Dst: whole(t3), Src: whole(t1), Imm0: fimm(2), Op0: aluOp("subtract"), Reverse: 1 /* first */, Engine: klr.EngAct},
		dma(whole(o1), whole(t2)), dma(whole(o2), whole(t3)))
	av := ramp(128*64, 0.25, -3)
	_, out := runKernel(t, k, f32Tensor("a", []int64{128, 64}, av))
	g1, g2 := f32s(out["o1"]), f32s(out["o2"])
	for i, x := range av {
		if g1[i] != x*2+1 || g2[i] != 2-x {
			t.Fatalf("element %d: %v, %v; want %v, %v", i, g1[i], g2[i], x*2+1, 2-x)
		}
	}
}

func TestCodegen_TensorReduceAndActivation(t *testing.T) {
	a := hbmT("a", "float32", 128, 64)
	bias := hbmT("bias", "float32", 128, 1)
	r, y := hbmT("r", "float32", 128, 1), hbmT("y", "float32", 128, 64)
	ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
	tb := chipT("tb", "float32", klr.MemSBUF, 128, 1, 0, 256)
	tr := chipT("tr", "float32", klr.MemSBUF, 128, 1, 0, 260)
	ty := chipT("ty", "float32", klr.MemSBUF, 128, 64, 0, 264)
	relu := klr.ActivationFunc(12)
	if relu.String() != "relu" {
		t.Fatalf("ActivationFunc 12 is %s", relu)
	}
	k := lncKernel("red", []klr.TensorName{a, bias}, []klr.TensorName{r, y},
		dma(whole(ta), whole(a)), dma(whole(tb), whole(bias)),
		&klr.TensorReduce{Dst: whole(tr), Src: whole(ta), Op: aluOp("add")},
		&klr.NcActivate{Dst: whole(ty), Src: whole(ta), ActivationFunc: relu, Scale: fimm(2), Bias: klr.Some(whole(tb))},
		dma(whole(r), whole(tr)), dma(whole(y), whole(ty)))
	av, bv := ramp(128*64, 0.01, -0.5), ramp(128, 0.02, -1)
	f, out := runKernel(t, k, f32Tensor("a", []int64{128, 64}, av), f32Tensor("bias", []int64{128, 1}, bv))
	gr, gy := f32s(out["r"]), f32s(out["y"])
	for p := 0; p < 128; p++ {
		var s float64
		for j := 0; j < 64; j++ {
			x := av[p*64+j]
			s += float64(x)
			w := max(float64(2*x)+float64(bv[p]), 0)
			if math.Abs(float64(gy[p*64+j])-w) > 1e-6 {
				t.Fatalf("y[%d][%d] = %v, want relu(2*%v + %v) = %v", p, j, gy[p*64+j], x, bv[p], w)
			}
		}
		if math.Abs(float64(gr[p])-s) > 1e-4 {
			t.Fatalf("r[%d] = %v, want %v", p, gr[p], s)
		}
	}
	var act bir.InstID = bir.NoInst
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op == bir.OpActivation {
			act = i
		}
		return true
	})
	if act == bir.NoInst || f.Attrs(act).Str("func", "") != "Relu" {
		t.Errorf("activation instruction attrs wrong")
	}
	if act != bir.NoInst && f.InstPos(act).String() != "k.py:13:4" {
		t.Errorf("activation position %q, want k.py:13:4", f.InstPos(act).String())
	}
}

// TestCodegen_DmaCopyActivateTilePtr covers the KLR-level operators real
// kernels rarely use: dmaCopy (Load, Save, and the plain DMACopy mode Copy
// between two DRAM tensors), activate (immediate scale and alpha, zero
// bias) and tensorScalar with [P,1] tile operands (TensorScalarPtr, one
// tile and two tiles with reverse), checking the values the interpreter
// computes against Go and the opcode each statement became.
func TestCodegen_DmaCopyActivateTilePtr(t *testing.T) {
	const P, F = 128, 64
	a := hbmT("a", "float32", P, F)
	s0, s1 := hbmT("s0", "float32", P, 1), hbmT("s1", "float32", P, 1)
	d := hbmT("d", "float32", P, F)
	y, z, w := hbmT("y", "float32", P, F), hbmT("z", "float32", P, F), hbmT("w", "float32", P, F)
	dc := hbmT("dc", "float32", 64, 32)
	ta := chipT("ta", "float32", klr.MemSBUF, P, F, 0, 0)
	ts0 := chipT("ts0", "float32", klr.MemSBUF, P, 1, 0, 256)
	ts1 := chipT("ts1", "float32", klr.MemSBUF, P, 1, 0, 260)
	ty := chipT("ty", "float32", klr.MemSBUF, P, F, 0, 264)
	tz := chipT("tz", "float32", klr.MemSBUF, P, F, 0, 520)
	tw := chipT("tw", "float32", klr.MemSBUF, P, F, 0, 776)
	exp := klr.ActivationFunc(5)
	if exp.String() != "exp" {
		t.Fatalf("ActivationFunc 5 is %s", exp)
	}
	fimmI := func(v float32) klr.Immediate { return klr.Immediate{Kind: klr.ImmFloat, Float: v} }
	tileOpd := func(r klr.TensorRef) klr.Operand { return klr.Operand{Kind: klr.OperandTile, Tile: &r} }
	dmaC := func(dst, src klr.TensorRef) klr.Operator {
		return &klr.DmaCopy{Dst: dst, Src: src, DstBoundsCheck: klr.DmaBounds{Kind: klr.BoundsError}}
	}
	const scale = 0.5
	k := lncKernel("dat", []klr.TensorName{a, s0, s1, d}, []klr.TensorName{y, z, w, dc},
		dmaC(whole(ta), whole(a)), dmaC(whole(ts0), whole(s0)), dmaC(whole(ts1), whole(s1)), // 0-2: Load
		&klr.Activate{Dst: whole(ty), Src: whole(ta), ActivationFunc: exp, Scale: fimmI(scale), Bias: fimmI(0), Imm: fimmI(0)},
		&klr.TensorScalar{Dst: whole(tz), Src: whole(ta), Imm0: tileOpd(whole(ts0)), Op0: aluOp("mult"), Engine: klr.EngDVE},
		// w = s1 - (a * s0): op0 plain, op1 reversed.
		&klr.TensorScalar{Dst: whole(tw), Src: whole(ta), Imm0: tileOpd(whole(ts0)), Op0: aluOp("mult"),
			Imm1: klr.Some(tileOpd(whole(ts1))), Op1: klr.Some(aluOp("subtract")), Reverse: 2 /* second */, Engine: klr.EngDVE},
		dmaC(whole(y), whole(ty)), dmaC(whole(z), whole(tz)), dmaC(whole(w), whole(tw)), // 6-8: Save
		// 9: DRAM to DRAM, rows 32..95 and columns 8..39 of d.
		&klr.DmaCopy{Dst: whole(dc), Src: tile(d, 32, 64, 8, 32), SrcBoundsCheck: klr.DmaBounds{Kind: klr.BoundsSkip}})
	av := ramp(P*F, 0.03125, -1.5)
	s0v, s1v := ramp(P, 0.25, -12), ramp(P, 0.5, 3)
	dv := ramp(P*F, 1, -50)
	f, out := runKernel(t, k, f32Tensor("a", []int64{P, F}, av), f32Tensor("s0", []int64{P, 1}, s0v),
		f32Tensor("s1", []int64{P, 1}, s1v), f32Tensor("d", []int64{P, F}, dv))

	gy, gz, gw, gdc := f32s(out["y"]), f32s(out["z"]), f32s(out["w"]), f32s(out["dc"])
	for p := 0; p < P; p++ {
		for j := 0; j < F; j++ {
			x := av[p*F+j]
			wy := math.Exp(float64(x) * scale)
			if math.Abs(float64(gy[p*F+j])-wy) > 1e-6*wy {
				t.Fatalf("y[%d][%d] = %v, want exp(%v * %v) = %v", p, j, gy[p*F+j], x, scale, wy)
			}
			if wz := x * s0v[p]; gz[p*F+j] != wz {
				t.Fatalf("z[%d][%d] = %v, want %v * s0[%d] = %v", p, j, gz[p*F+j], x, p, wz)
			}
			if ww := s1v[p] - float32(x*s0v[p]); gw[p*F+j] != ww { // float32(): no fused multiply-add
				t.Fatalf("w[%d][%d] = %v, want s1[%d] - %v * s0[%d] = %v", p, j, gw[p*F+j], p, x, p, ww)
			}
		}
	}
	for r := 0; r < 64; r++ {
		for c := 0; c < 32; c++ {
			if g, want := gdc[r*32+c], dv[(32+r)*F+8+c]; g != want {
				t.Fatalf("dc[%d][%d] = %v, want d[%d][%d] = %v", r, c, g, 32+r, 8+c, want)
			}
		}
	}

	// The opcode and attributes each statement became.
	byName := map[string]bir.InstID{}
	f.Walk(func(i bir.InstID) bool {
		byName[f.InstName(i)] = i
		return true
	})
	want := []struct {
		name string
		op   bir.Opcode
		nIns int
	}{
		{"dmaCopy_0", bir.OpLoad, 1}, {"activate_3", bir.OpActivation, 1},
		{"tensorScalar_4", bir.OpTensorScalarPtr, 2}, {"tensorScalar_5", bir.OpTensorScalarPtr, 3},
		{"dmaCopy_6", bir.OpSave, 1}, {"dmaCopy_9", bir.OpDMACopy, 1},
	}
	for _, w := range want {
		i, ok := byName[w.name]
		if !ok {
			t.Fatalf("no instruction %s (have %v)", w.name, keys(byName))
		}
		if f.Inst(i).Op != w.op || len(f.Ins(i)) != w.nIns {
			t.Errorf("%s: %s with %d inputs, want %s with %d", w.name, f.Inst(i).Op, len(f.Ins(i)), w.op, w.nIns)
		}
	}
	if at := f.Attrs(byName["activate_3"]); at.Str("func", "") != "Exp" || at.Float("scale", 0) != scale || at.Str("acc", "") != "Idle" {
		t.Errorf("activate attrs: func %q scale %v acc %q", at.Str("func", ""), at.Float("scale", 0), at.Str("acc", ""))
	}
	if at := f.Attrs(byName["tensorScalar_4"]); at.Str("op1", "") != "bypass" {
		t.Errorf("tensorScalar_4: op1 %q, want bypass (no second operand)", at.Str("op1", ""))
	}
	if at := f.Attrs(byName["tensorScalar_5"]); at.Bool("reverse0", true) || !at.Bool("reverse1", false) || at.Str("op1", "") != "subtract" {
		t.Errorf("tensorScalar_5: reverse0 %v reverse1 %v op1 %q, want false, true, subtract",
			at.Bool("reverse0", true), at.Bool("reverse1", false), at.Str("op1", ""))
	}
	if at := f.Attrs(byName["dmaCopy_9"]); at.Str("mode", "") != "Copy" || at.Bool("oob_is_err", true) {
		t.Errorf("dmaCopy_9: mode %q oob_is_err %v, want Copy, false (both bounds checks skip)", at.Str("mode", ""), at.Bool("oob_is_err", true))
	}
}

func TestCodegen_IotaTransposeCopy(t *testing.T) {
	io := hbmT("io", "int32", 128, 8)
	x := hbmT("x", "float32", 32, 32)
	xt, xc := hbmT("xt", "float32", 32, 32), hbmT("xc", "float32", 32, 32)
	ti := chipT("ti", "int32", klr.MemSBUF, 128, 8, 0, 0)
	tx := chipT("tx", "float32", klr.MemSBUF, 32, 32, 0, 64)
	tt := chipT("tt", "float32", klr.MemSBUF, 32, 32, 0, 192)
	tc := chipT("tc", "float32", klr.MemSBUF, 32, 32, 0, 320)
	k := lncKernel("itc", []klr.TensorName{x}, []klr.TensorName{io, xt, xc},
		&klr.Iota{Dst: whole(ti), Pattern: klr.DataPattern{Offset: 5, Pattern: []klr.APPair{{Step: 2, Num: 8}}, ChannelMultiplier: 100}},
		dma(whole(io), whole(ti)),
		dma(whole(tx), whole(x)),
		&klr.Transpose{Dst: whole(tt), Src: whole(tx)},
		&klr.Copy{Dst: whole(tc), Src: whole(tx)},
		dma(whole(xt), whole(tt)), dma(whole(xc), whole(tc)))
	xv := ramp(32*32, 1, 0)
	_, out := runKernel(t, k, f32Tensor("x", []int64{32, 32}, xv))
	for c := 0; c < 128; c++ {
		for j := 0; j < 8; j++ {
			v := int32(binary.LittleEndian.Uint32(out["io"].Data[4*(c*8+j):]))
			if v != int32(5+100*c+2*j) {
				t.Fatalf("io[%d][%d] = %d, want %d", c, j, v, 5+100*c+2*j)
			}
		}
	}
	gt, gc := f32s(out["xt"]), f32s(out["xc"])
	for i := 0; i < 32; i++ {
		for j := 0; j < 32; j++ {
			if gt[j*32+i] != xv[i*32+j] || gc[i*32+j] != xv[i*32+j] {
				t.Fatalf("transpose/copy wrong at [%d][%d]", i, j)
			}
		}
	}
}

func TestCodegen_MatMulSplitAndDmaAdd(t *testing.T) {
	s := hbmT("s", "float32", 32, 16)
	mv := hbmT("m", "float32", 32, 64)
	b := hbmT("b", "float32", 16, 64)
	o, sum := hbmT("o", "float32", 16, 64), hbmT("sum", "float32", 16, 64)
	ts := chipT("ts", "float32", klr.MemSBUF, 32, 16, 0, 0)
	tm := chipT("tm", "float32", klr.MemSBUF, 32, 64, 0, 64)
	tp := chipT("tp", "float32", klr.MemPSUM, 16, 64, 0, 2048) // bank 1
	to := chipT("to", "float32", klr.MemSBUF, 16, 64, 0, 320)
	tb := chipT("tb", "float32", klr.MemSBUF, 16, 64, 0, 576)
	k := lncKernel("mm", []klr.TensorName{s, mv, b}, []klr.TensorName{o, sum},
		dma(whole(ts), whole(s)), dma(whole(tm), whole(mv)), dma(whole(tb), whole(b)),
		&klr.LoadStationary{Src: whole(ts)},
		&klr.MatMul{Dst: whole(tp), Moving: whole(tm)},
		&klr.NcCopy{Dst: whole(to), Src: whole(tp), Engine: klr.EngDVE},
		dma(whole(o), whole(to)),
		// tb += to (a DMA read-modify-write), then store.
		&klr.NcDmaCopy{Dst: whole(tb), Src: whole(to), ComputeOp: 1, OobMode: klr.DmaBounds{Kind: klr.BoundsError}},
		dma(whole(sum), whole(tb)))
	sv, mvv, bv := ramp(32*16, 0.125, -2), ramp(32*64, 0.0625, -1), ramp(16*64, 1, 0)
	f, out := runKernel(t, k, f32Tensor("s", []int64{32, 16}, sv), f32Tensor("m", []int64{32, 64}, mvv), f32Tensor("b", []int64{16, 64}, bv))
	if l, ok := f.LocByName("tp"); !ok || f.Loc(l).Bank != 1 || f.Loc(l).Addr != 0 {
		t.Errorf("PSUM tensor tp not at bank 1 byte 0")
	}
	g, gs := f32s(out["o"]), f32s(out["sum"])
	for m := 0; m < 16; m++ {
		for n := 0; n < 64; n++ {
			var w float32
			for k := 0; k < 32; k++ {
				w += sv[k*16+m] * mvv[k*64+n]
			}
			if math.Abs(float64(g[m*64+n]-w)) > 1e-4*(1+math.Abs(float64(w))) {
				t.Fatalf("o[%d][%d] = %v, want %v", m, n, g[m*64+n], w)
			}
			if gs[m*64+n] != g[m*64+n]+bv[m*64+n] {
				t.Fatalf("sum[%d][%d] = %v, want %v + %v", m, n, gs[m*64+n], g[m*64+n], bv[m*64+n])
			}
		}
	}
}

func TestCodegen_AccessForms(t *testing.T) {
	a := hbmT("a", "float32", 128, 64)
	o := hbmT("o", "float32", 64, 32)
	ta := chipT("ta", "float32", klr.MemSBUF, 64, 32, 0, 0)
	// Basic indexing: rows 0..63 (slice), columns 16..47 (slice) of a.
	basic := klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindBasic, Basic: &klr.AccessBasic{
		Tensor: a, Indexes: []klr.Index{{Kind: klr.IndexSlice, Slice: klr.Slice{L: 0, U: 64, Step: 1}}, {Kind: klr.IndexSlice, Slice: klr.Slice{L: 16, U: 48, Step: 1}}}}}}
	simple := func(t klr.TensorName) klr.TensorRef {
		return klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindSimple, Simple: &t}}
	}
	k := lncKernel("acc", []klr.TensorName{a}, []klr.TensorName{o}, dma(simple(ta), basic), dma(simple(o), simple(ta)))
	av := ramp(128*64, 1, 0)
	_, out := runKernel(t, k, f32Tensor("a", []int64{128, 64}, av))
	g := f32s(out["o"])
	for r := 0; r < 64; r++ {
		for c := 0; c < 32; c++ {
			if g[r*32+c] != av[r*64+16+c] {
				t.Fatalf("o[%d][%d] = %v, want a[%d][%d] = %v", r, c, g[r*32+c], r, 16+c, av[r*64+16+c])
			}
		}
	}
}

// TestCodegen_Errors: every rejected input names what and where, and leaves
// the module unchanged.
func TestCodegen_Errors(t *testing.T) {
	a := hbmT("a", "float32", 128, 64)
	o := hbmT("o", "float32", 128, 64)
	ta := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 0)
	unalloc := hbmT("ua", "float32", 128, 64)
	unalloc.Address.Memory = klr.MemSBUF
	moved := chipT("ta", "float32", klr.MemSBUF, 128, 64, 0, 1024)
	dyn := whole(ta)
	dyn.Access.Bir.ScalarOffset = klr.Some(klr.ScalarOffset{Kind: klr.ScalarOffsetReg, Reg: "r0"})
	pat := klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: a}}}
	none := klr.Raw{Kind: klr.RawCtor, Type: 0xff}
	patStarts := klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: a,
		ParNum: 128, Pattern: []klr.APPair{{Step: 1, Num: 59, Offset: 5}}, FixedAxis: none}}}
	patOnChip := klr.TensorRef{Kind: klr.RefAbstract, Access: &klr.Access{Kind: klr.AccessKindPattern, Pattern: &klr.AccessPattern{Tensor: ta,
		ParNum: 64, ParOffset: 5, Pattern: []klr.APPair{{Step: 1, Num: 64}}, FixedAxis: none}}}
	cases := []struct {
		name string
		ops  []klr.Operator
		want string
	}{
		{"unallocated", []klr.Operator{dma(whole(unalloc), whole(a))},
			"SB tensor ua has no address (parOffset/freeOffset): the kernel is not allocated"},
		{"unsupported operator", []klr.Operator{dma(whole(ta), whole(a)), &klr.UnknownOperator{Index: 35}},
			"kernel bad, core 0: k.py:11:4: unsupported operator tensorTensorScan"},
		{"out of bounds", []klr.Operator{dma(tile(ta, 64, 128, 0, 64), tile(a, 0, 128, 0, 64))},
			"k.py:10:4: dst: access pattern [{64 128} {1 64}] at offset 4096 of ta reaches elements 4096..12287, the tensor holds 8192 float32 elements"},
		{"conflicting declarations", []klr.Operator{dma(whole(ta), whole(a)), dma(whole(o), whole(moved))},
			"tensor ta is float32 [128 64] in sbuf (parSize 128, freeSize 256, parOffset 0, freeOffset 1024) here but first used at k.py:10:4 as"},
		{"engine", []klr.Operator{&klr.TensorTensor{Dst: whole(ta), Src0: whole(ta), Src1: whole(ta), Engine: klr.EngPE}},
			"TensorTensor cannot run on engine pe"},
		{"matMul alone", []klr.Operator{&klr.MatMul{Dst: whole(ta), Moving: whole(ta)}},
			"k.py:10:4: matMul without a preceding loadStationary"},
		{"dynamic offset", []klr.Operator{dma(dyn, whole(a))}, "dst: dynamic access of ta (scalarOffset/vectorOffset) is not supported"},
		{"sbuf view", []klr.Operator{dma(klr.TensorRef{Kind: klr.RefSbuf}, whole(a))}, "dst: TensorRef.sbuf is not supported"},
		{"pattern fixedAxis no Option", []klr.Operator{dma(whole(ta), pat)}, "src: Access.pattern of a: fixedAxis (CBOR item at byte 0) is not an Option"},
		{"pattern starts", []klr.Operator{dma(whole(ta), patStarts)}, "src: Access.pattern of a: the pairs' starts give free offset 5 but freeOffset is 0"},
		{"pattern partition start", []klr.Operator{dma(patOnChip, whole(a))}, "dst: Invalid partition start offset 5 for non-HBM memory. Valid offsets are: 0, 32, 64, 96 (Access.pattern of ta)"},
		{"activation func", []klr.Operator{&klr.NcActivate{Dst: whole(ta), Src: whole(ta), ActivationFunc: 24, Scale: fimm(1)}},
			"activation function gelu_apprx_sigmoid_dx has no BIR counterpart"},
		{"copy opDim", []klr.Operator{dma(whole(ta), whole(a)), &klr.Copy{Dst: whole(ta), Src: whole(ta), OpDim: klr.Some(klr.TensorSubDim(1))}},
			"k.py:11:4: copy: opDim XY is not supported (TensorCopy copies elementwise; KLR's per-axis copy has no BIR counterpart)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := bir.NewModule("trn2")
			_, err := CodegenLncKernel(m, lncKernel("bad", []klr.TensorName{a}, []klr.TensorName{o}, c.ops...), 0, "bad", 2048)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, c.want)
			}
			if len(m.Funcs) != 0 {
				t.Errorf("a failed codegen left %d functions in the module", len(m.Funcs))
			}
		})
	}
}

// TestCodegen_SharedConstant: an HBM tensor named by sharedConstants is a
// Const tensor with its file.
func TestCodegen_SharedConstant(t *testing.T) {
	w := hbmT("w", "float32", 128, 64)
	o := hbmT("o", "float32", 128, 64)
	tw := chipT("tw", "float32", klr.MemSBUF, 128, 64, 0, 0)
	k := lncKernel("c", nil, []klr.TensorName{o}, dma(whole(tw), whole(w)), dma(whole(o), whole(tw)))
	k.SharedConstants = []klr.SharedConstantFile{{Name: "w", FileName: "w.npy"}}
	m := bir.NewModule("trn2")
	f, err := CodegenLncKernel(m, k, 0, "c", 2048)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := f.TensorByName("w_set")
	if !ok || f.Tensor(id).Class != bir.ClassConst || f.Tensor(id).Kind != bir.KindConst || f.Tensor(id).File != "w.npy" {
		t.Fatalf("w is not a Const tensor with file w.npy")
	}
}

// constKernelJSON is a one-core BIR-JSON kernel y = x through SBUF that
// also declares a Const tensor backed by file.
func constKernelJSON(file string) string {
	alloc := func(name, kind, class, typ string, allocated bool) string {
		return fmt.Sprintf(`{"Skind":"memory_location_set","name":"%s_set","kind":"%s","tensor_class":"%s","dtype":"float32","tensor_shape":[4,4],"file":"%s",
"memorylocations":[{"Skind":"memory_location","name":"%s","type":"%s","dims":[4,16],"allocated":%v}]}`,
			name, kind, class, map[bool]string{true: file, false: ""}[kind == "Const"], name, typ, allocated)
	}
	ap := func(mem string) string {
		return fmt.Sprintf(`{"kind":"physical_ap","memref":"%s","memsetref":"%s_set","dtype":"float32","offset":0,"ap":[[4,4],[1,4]]}`, mem, mem)
	}
	return `{"version":2,"arch":"gen3","functions":[{"name":"cst","allocations":[` +
		alloc("x", "Input", "Tensor", "Input", false) + "," + alloc("y", "Output", "Tensor", "Output", false) + "," +
		alloc("w", "Const", "Const", "DRAM", false) + "," + alloc("t", "Internal", "NeuronSBTensor", "SB", true) +
		`],"blocks":[{"name":"B","instructions":[` +
		`{"opcode":"Load","name":"ld","ins":[` + ap("x") + `],"outs":[` + ap("t") + `]},` +
		`{"opcode":"Save","name":"st","ins":[` + ap("t") + `],"outs":[` + ap("y") + `]}]}]}]}`
}

// TestTranslate_ConstFiles: copyConstFileToArtifact stages a Const tensor's
// file and makes its path artifact-relative (or absolute without an
// artifact directory); a missing file is an error naming the tensor.
func TestTranslate_ConstFiles(t *testing.T) {
	dir := t.TempDir()
	kpath := filepath.Join(dir, "cst.json")
	if err := os.WriteFile(kpath, []byte(constKernelJSON("w.bin")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "w.bin"), []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func() *bir.Module {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 4, 4)
		y := b.Output("y", bir.Float32, 4, 4)
		AddPlaceholder(b.F, b.Block(), "k", kpath, FormatBIR, []bir.Operand{x.All()}, []string{"x"}, []bir.Operand{y.All()}, []string{"y"})
		return m
	}
	constFile := func(m *bir.Module) string {
		f := m.Func("cst")
		id, _ := f.TensorByName("w_set")
		return f.Tensor(id).File
	}
	m := build()
	m.ArtifactDir = filepath.Join(t.TempDir(), "art")
	res, err := runTranslate(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := constFile(m); got != "w.bin" {
		t.Errorf("const file %q, want the artifact-relative w.bin", got)
	}
	if data, err := os.ReadFile(filepath.Join(m.ArtifactDir, "w.bin")); err != nil || string(data) != "weights" {
		t.Errorf("w.bin not staged: %v", err)
	}
	if res.Counter("const files staged") != 1 {
		t.Errorf("const files staged = %d", res.Counter("const files staged"))
	}
	m = build()
	if _, err := runTranslate(m); err != nil {
		t.Fatal(err)
	}
	if got := constFile(m); got != filepath.Join(dir, "w.bin") {
		t.Errorf("without an artifact directory: const file %q, want %s", got, filepath.Join(dir, "w.bin"))
	}
	if err := os.Remove(filepath.Join(dir, "w.bin")); err != nil {
		t.Fatal(err)
	}
	m = build()
	_, err = runTranslate(m)
	if err == nil || !strings.Contains(err.Error(), "function cst, tensor w_set: const file w.bin does not exist") {
		t.Errorf("missing const file: error %v", err)
	}
	if len(m.Funcs) != 1 {
		t.Errorf("a failed translation left %d functions", len(m.Funcs))
	}
}
