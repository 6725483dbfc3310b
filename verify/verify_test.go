package verify

import (
	"math/rand"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// TestModule_CleanPerStage: the legal module satisfies every stage, alone
// and together; the loop module every stage but StageUnrolled.
func TestModule_CleanPerStage(t *testing.T) {
	for k := 0; k <= numStages; k++ {
		s := AllStages
		if k < numStages {
			s = 1 << k
		}
		t.Run(s.String(), func(t *testing.T) {
			m, _ := legal(t)
			if s&(StageScheduled|StageSynchronized) != 0 {
				scheduleSerially(m)
			}
			if s&StageSynchronized != 0 {
				synchronizeSerially(t, m)
			}
			for _, d := range diags(t, Module(m, Options{Stage: s})) {
				t.Error(d)
			}
			if s&(StageUnrolled|StageScheduled|StageSynchronized) != 0 {
				return
			}
			lm, _ := tiledAdd(t)
			for _, d := range diags(t, Module(lm, Options{Stage: s})) {
				t.Error(d)
			}
		})
	}
}

// TestModule_CleanOnEveryArch: the legal module (fp32 matmul destination,
// N = 512) is legal on every generation with a GpSimd engine, and on inf1
// once the Pool instructions move to another engine.
func TestModule_CleanOnEveryArch(t *testing.T) {
	for _, a := range arch.All() {
		m, b := legal(t)
		if !a.HasEngine(bir.EngPool) {
			b.F.Inst(inst(t, b.F, "zero_bias")).Engine = bir.EngDVE
			b.F.Remove(inst(t, b.F, "iota"))
			a.SBUFBytesPerPartition, a.PSUMBanks, a.PSUMBankBytes = 192*arch.KiB, 8, 2*arch.KiB
		}
		for _, d := range diags(t, Module(m, Options{Arch: a, Stage: unscheduled})) {
			t.Errorf("%s: %s", a.Name, d)
		}
	}
}

// TestModule_QuasiAffineExact: Bounds over-approximates i - 2*(i floordiv 2)
// (it gives [-6, 7] for i in [0, 8)); the verifier confirms by enumeration
// that the block index stays in [0, 1] and reports nothing.
func TestModule_QuasiAffineExact(t *testing.T) {
	_, b := newB("trn2")
	x := b.Input("x", f32, 128, 512)
	bt := b.BlockTensor("bt", bir.MemSB, f32, 2, 128, 512)
	b.Loop("i", 0, 8, 1, func(i affine.Expr) {
		blk := affine.Sub(i, affine.Scale(affine.FloorDiv(i, 2), 2))
		if lo, hi, _ := blk.Bounds(func(affine.Axis) (int64, int64) { return 0, 7 }); lo >= 0 && hi <= 1 {
			t.Fatalf("test premise: Bounds is exact here ([%d, %d])", lo, hi)
		}
		b.Load("ld", bt.Sym(blk, affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}), x.All())
	})
	m := must(t, b)
	for _, d := range diags(t, Module(m, Options{})) {
		t.Error(d)
	}
}

// TestModule_EmptyLoop: accesses inside a loop that never runs are not
// bounded (nothing executes), but structure is still checked.
func TestModule_EmptyLoop(t *testing.T) {
	b, x, xs := base()
	b.Loop("i", 4, 4, 1, func(i affine.Expr) {
		b.Load("ld", xs.All(), x.Sym(affine.Const(0), affine.Scale(i, 1<<20), [2]int64{512, 128}, [2]int64{1, 512}))
	})
	m := must(t, b)
	for _, d := range diags(t, Module(m, Options{})) {
		t.Error(d)
	}
}

func TestError_Format(t *testing.T) {
	b, _, xs := base()
	b.Memset("a", bir.EngDVE, xs.All(), 0)
	b.Memset("a", bir.EngDVE, xs.All(), 0)
	b.Memset("a", bir.EngDVE, xs.All(), 0)
	m := must(t, b)
	err := Module(m, Options{})
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T", err)
	}
	if e.Count() != 2 || len(e.Diags()) != 2 {
		t.Fatalf("Count %d, Diags %d; want 2", e.Count(), len(e.Diags()))
	}
	want := `function main, instruction a (Memset): instruction name "a" also used by instruction #0: want unique names [name-unique] (and 1 more)`
	if e.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", e.Error(), want)
	}
	d := e.Diags()[0]
	if d.Func != "main" || d.Inst != "a" || d.Op != "Memset" || d.Rule != "name-unique" {
		t.Errorf("Diag fields %+v", d)
	}
	// MaxDiags keeps the count.
	e2 := Module(m, Options{MaxDiags: 1}).(*Error)
	if len(e2.Diags()) != 1 || e2.Count() != 2 || !strings.HasSuffix(e2.Error(), "(and 1 more)") {
		t.Errorf("MaxDiags: %d kept, count %d, %q", len(e2.Diags()), e2.Count(), e2.Error())
	}
	if s := (Diag{Rule: "r", Msg: "m"}).String(); s != "module: m [r]" {
		t.Errorf("module diag %q", s)
	}
	if s := (Diag{Func: "f", Tensor: "t", Loc: "l", Rule: "r", Msg: "m"}).String(); s != "function f, tensor t, location l: m [r]" {
		t.Errorf("loc diag %q", s)
	}
}

func TestFunction(t *testing.T) {
	m, b := legal(t)
	if err := Function(b.F, Options{Stage: unscheduled}); err != nil {
		t.Fatal(err)
	}
	b.F.Inst(inst(t, b.F, "add")).Engine = bir.EngPE
	err := Function(b.F, Options{})
	if err == nil || !strings.Contains(err.Error(), "engine PE") {
		t.Errorf("Function error = %v", err)
	}
	_ = m
	if err := Function(nil, Options{}); err == nil {
		t.Error("Function(nil) succeeded")
	}
	if err := Module(nil, Options{}); err == nil {
		t.Error("Module(nil) succeeded")
	}
}

func TestStage_StringParse(t *testing.T) {
	tests := []struct {
		s    Stage
		text string
	}{
		{0, "none"},
		{StageUnrolled, "unrolled"},
		{StageAllocated | StageCCELegal, "cce-legal|allocated"},
		{AllStages, "unrolled|indirect-lowered|cce-legal|sb-legal|allocated|engines-assigned|strided-legal|scheduled|synchronized|tiled"},
		{1 << 10, "0x400"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.text {
			t.Errorf("%d.String() = %q, want %q", tc.s, got, tc.text)
		}
		if tc.s&^AllStages != 0 {
			continue
		}
		back, err := ParseStage(tc.text)
		if err != nil || back != tc.s {
			t.Errorf("ParseStage(%q) = %v, %v", tc.text, back, err)
		}
	}
	if s, err := ParseStage("unrolled, allocated"); err != nil || s != StageUnrolled|StageAllocated {
		t.Errorf("comma form: %v, %v", s, err)
	}
	if _, err := ParseStage("allocatd"); err == nil || !strings.Contains(err.Error(), "engines-assigned") {
		t.Errorf("bad stage error = %v", err)
	}
}

// TestModule_NoPanicOnCorruption corrupts random fields of a legal module
// and checks that the verifier reports instead of panicking.
func TestModule_NoPanicOnCorruption(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []int64{-1, 0, 1, 2, 7, 63, 64, 127, 128, 1000, 1 << 20, -1 << 40, 1 << 62}
	pick := func() int64 { return vals[rng.Intn(len(vals))] }
	for iter := 0; iter < 3000; iter++ {
		m, b := legal(t)
		lm, lb := tiledAdd(t)
		for _, x := range []struct {
			m *bir.Module
			b *bir.Builder
		}{{m, b}, {lm, lb}} {
			f := x.b.F
			if rng.Intn(2) == 0 {
				// Cached tables for CheckTables to compare with the
				// corrupted objects.
				f.Uses()
				f.InstByName("")
			}
			for k := 0; k < 1+rng.Intn(3); k++ {
				corrupt(rng, x.m, f, pick)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("iteration %d: verifier panicked: %v\n%s", iter, r, debug.Stack())
					}
				}()
				_ = Module(x.m, Options{Stage: Stage(rng.Intn(int(AllStages) + 1)), InstNameTable: rng.Intn(2) == 0})
			}()
		}
	}
}

func corrupt(rng *rand.Rand, m *bir.Module, f *bir.Function, pick func() int64) {
	i := bir.InstID(rng.Intn(f.NumInstSlots()))
	in := f.Inst(i)
	switch rng.Intn(22) {
	case 0:
		in.Op = bir.Opcode(pick())
	case 1:
		in.Engine = bir.Engine(pick())
	case 2:
		in.Attrs = bir.AttrID(pick())
	case 3:
		in.Block = bir.BlockID(pick())
	case 4:
		in.Aux = int32(pick())
	case 5:
		in.Deps = int32(pick())
	case 6:
		in.Pred = bir.PredID(pick())
	case 7:
		in.Name = bir.Sym(pick())
	case 8:
		in.NIns = uint16(rng.Intn(4))
	case 9, 10, 11, 12:
		n := int(in.NIns) + int(in.NOuts)
		if in.Args < 0 || int(in.Args)+n > f.NumOperandSlots() || n == 0 {
			return
		}
		k := rng.Intn(n)
		o := f.Operands(i)[k]
		switch rng.Intn(6) {
		case 0:
			o.Ref = int32(pick())
		case 1:
			o.Pattern = bir.PatternID(pick())
		case 2:
			o.Expr = bir.ExprID(pick())
		case 3:
			o.Offset = pick()
		case 4:
			o.Kind = bir.OperandKind(rng.Intn(9))
		case 5:
			o.Dtype = bir.Dtype(pick())
		}
		f.SetOperand(i, k, o)
	case 13:
		l := f.Loc(bir.LocID(rng.Intn(f.NumLocs())))
		switch rng.Intn(6) {
		case 0:
			l.Partitions = pick()
		case 1:
			l.Bytes = pick()
		case 2:
			l.Tensor = bir.TensorID(pick())
		case 3:
			l.Base = pick()
		case 4:
			l.Bank = pick()
		case 5:
			l.Type = bir.MemoryType(pick())
		}
	case 14:
		ts := f.Tensor(bir.TensorID(rng.Intn(f.NumTensors())))
		switch rng.Intn(4) {
		case 0:
			ts.Locs = append(ts.Locs, bir.LocID(pick()))
		case 1:
			ts.NBlocks = pick()
		case 2:
			ts.PartitionDim = pick()
		case 3:
			ts.Shape = nil
		}
	case 15:
		blk := f.Block(bir.BlockID(rng.Intn(f.NumBlocks())))
		blk.Insts = append(blk.Insts, bir.InstID(pick()))
	case 16:
		blk := f.Block(bir.BlockID(rng.Intn(f.NumBlocks())))
		blk.Parent = bir.InstID(pick())
	case 17:
		f.Top = append(f.Top, bir.BlockID(pick()))
	case 18:
		if m.NumAxes() > 0 {
			a := m.Axis(affine.Axis(rng.Intn(m.NumAxes())))
			a.Stride, a.Lb, a.Ub = pick(), pick(), pick()
		}
	case 19:
		f.AddDep(i, bir.Dep{On: bir.InstID(pick()), CarryAxis: affine.Axis(pick()), CarryDist: int32(pick()), Kind: bir.DepKind(pick())})
	case 20:
		if in.Attrs < 0 || int(in.Attrs) >= m.NumAttrSets() {
			return
		}
		f.SetAttr(i, "tile_position", bir.Ints(pick(), pick()))
		f.SetAttr(i, "waits", bir.List(bir.Int(1), bir.String("x")))
		f.SetAttr(i, "mode", bir.String("CCE"))
	case 21:
		if in.Attrs < 0 || int(in.Attrs) >= m.NumAttrSets() {
			return
		}
		f.SetAttr(i, "axis", bir.String("XY"))
		f.SetAttr(i, "pattern", bir.Ints(pick()))
		f.SetAttr(i, "indirect_dims", bir.Int(3))
	}
}
