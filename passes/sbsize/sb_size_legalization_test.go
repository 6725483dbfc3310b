package sbsize_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

func trn2(t *testing.T) *arch.Model {
	t.Helper()
	m, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGeometry_IsLegalTensor(t *testing.T) {
	geo, err := footprint.GeometryFor(trn2(t))
	if err != nil {
		t.Fatal(err)
	}
	if geo.Partitions != 128 || geo.SBBytes != 208*1024 || geo.PSUMBytes != 16*1024 {
		t.Fatalf("trn2 geometry %+v", geo)
	}
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	fits := b.SBUF("fits", bir.Float32, 128, 53248)          // exactly 208 KiB
	odd := b.SBUF("odd", bir.Float32, 128, 53241)            // 53241 -> 53248 elements: fits
	over := b.SBUF("over", bir.Float32, 128, 53249)          // 53249 -> 53256 elements: too big
	ps := b.PSUM("ps", bir.Float32, 128, 4097)               // 16 KiB + 4 bytes of PSUM
	wide := b.SBUF("wide", bir.BFloat16, 256, 16)            // 256 partitions
	dram := b.DRAM("dram", bir.Float32, 1024, 1<<20)         // DRAM: no limit
	half := b.SBUF("half", bir.Float32, 128, 100000)         // 390 KiB declared ...
	b.Memset("m", bir.EngDVE, half.Tile(0, 128, 0, 1000), 0) // ... 4000 bytes touched
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	free := func(x bir.T) bool {
		return geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StorageFreeDim, Loc: x.Loc}, x.Dtype.Size())
	}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"free dim at the budget", free(fits), true},
		{"free dim rounded up to 8 still fits", free(odd), true},
		{"free dim rounded up to 8 exceeds", free(over), false},
		{"PSUM over its own budget", free(ps), false},
		{"DRAM always legal", free(dram), true},
		// arg2 of the set case is a piece count: partitions >= N.
		{"set: 128 pieces", geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StorageSet, Tensor: wide.ID}, 128), true},
		{"set: 129 pieces", geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StorageSet, Tensor: wide.ID}, 129), false},
		// The same location, free dim with element size 1 versus 4.
		{"arg2 is the element size", geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StorageFreeDim, Loc: half.Loc}, 1), true},
		{"declared size too big", free(half), false},
		{"partition dim: bytes the accesses reach", geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StoragePartitionDim, Loc: half.Loc}, 0), true},
		{"bad id", geo.IsLegalTensor(f, footprint.Storage{Kind: footprint.StorageFreeDim, Loc: 999}, 4), false},
	} {
		if c.got != c.want {
			t.Errorf("%s: %t, want %t", c.name, c.got, c.want)
		}
	}
	if n := footprint.MaxAccessBytes(f, half.Loc); n != 4000 {
		t.Errorf("MaxAccessBytes(half) = %d, want 4000", n)
	}
	ok, why := geo.LocLegal(f, wide.Loc)
	if ok || !strings.Contains(why, "256 partitions, want <= 128") {
		t.Errorf("LocLegal(wide) = %t, %q", ok, why)
	}
	ok, why = geo.LocLegal(f, over.Loc)
	if ok || !strings.Contains(why, "213024 bytes per partition (53249 elements rounded up to 53256, x 4 bytes), want <= 212992") {
		t.Errorf("LocLegal(over) = %t, %q", ok, why)
	}
	if footprint.RoundUp8(0) != 0 || footprint.RoundUp8(1) != 8 || footprint.RoundUp8(16) != 16 || footprint.RoundUp8(17) != 24 {
		t.Errorf("RoundUp8 wrong")
	}
}

func TestGeometryFor_Unpublished(t *testing.T) {
	inf1, err := arch.Lookup("inf1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := footprint.GeometryFor(inf1); err == nil || !strings.Contains(err.Error(), "arch.sbuf-bytes-per-partition") {
		t.Errorf("inf1 without SBUF size: %v, want an error naming the override", err)
	}
}

func TestLiveNFor(t *testing.T) {
	for _, c := range []struct{ nb, live, liveN, factor int64 }{
		{4, 1, 1, 4}, {4, 4, 4, 1}, {6, 4, 6, 1}, {6, 2, 2, 3}, {7, 2, 2, 3}, {7, 3, 3, 2}, {4, 0, 0, 0}, {4, 5, 0, 0},
	} {
		liveN, factor := footprint.LiveNFor(c.nb, c.live)
		if liveN != c.liveN || factor != c.factor {
			t.Errorf("LiveNFor(%d, %d) = %d, %d; want %d, %d", c.nb, c.live, liveN, factor, c.liveN, c.factor)
		}
		if liveN != 0 && liveN < c.live {
			t.Errorf("LiveNFor(%d, %d) = %d: below the blocks live", c.nb, c.live, liveN)
		}
	}
}

func TestSBSizeLegalization_Gate(t *testing.T) {
	// ArchLevel 15: a pre-NC-v2 level narwhal does not model: no-op with
	// the flag and one log record, nothing else touched.
	m := bigStraight(t)
	model := trn2(t)
	model.ArchLevel = 15
	var log []string
	st, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{Logf: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }})
	if err != nil || st.Gate != arch.SBGateNoOp || st.Ran {
		t.Fatalf("level 15: %+v, %v", st, err)
	}
	if v, ok := m.ModuleAttrs.Get(sbsize.NoOpAttr); !ok || v.Kind != bir.ValBool || v.I != 1 {
		t.Errorf("the no-op flag %s is not set: %v", sbsize.NoOpAttr, m.ModuleAttrs)
	}
	if len(log) != 1 || !strings.Contains(log[0], "no-op") {
		t.Errorf("log %q: want one record", log)
	}
	tid, _ := m.Main().TensorByName("big_set")
	if m.Main().Tensor(tid).SplitShape != nil {
		t.Errorf("the no-op path marked a tensor")
	}
	// ArchLevel 10 (inf1): the special path runs the full legalization
	// (here with the SBUF size given, as inf1 does not publish it).
	m = bigStraight(t)
	inf1, _ := arch.Lookup("inf1")
	for k, v := range map[string]string{"sbuf-bytes-per-partition": "196608", "psum-banks": "8", "psum-bank-bytes": "2048"} {
		if err := inf1.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	st, err = sbsize.SBSizeLegalization(m, inf1, sbsize.Options{})
	if err != nil || st.Gate != arch.SBGateSpecial || !st.Ran || st.Marked != 1 {
		t.Errorf("level 10: %+v, %v; want the special path to mark the tensor", st, err)
	}
	// Without the size, the error names the override.
	m = bigStraight(t)
	inf1, _ = arch.Lookup("inf1")
	if _, err := sbsize.SBSizeLegalization(m, inf1, sbsize.Options{}); err == nil || !strings.Contains(err.Error(), "arch.sbuf-bytes-per-partition") {
		t.Errorf("inf1 without SBUF size: %v", err)
	}
	// Level > 19: full.
	st, err = sbsize.SBSizeLegalization(bigStraight(t), trn2(t), sbsize.Options{})
	if err != nil || st.Gate != arch.SBGateFull || st.Marked != 1 {
		t.Errorf("trn2: %+v, %v", st, err)
	}
}

// bigStraight builds the 128 x 300 KiB straight-line case.
func bigStraight(t *testing.T) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 76800)
	z := b.Output("z", bir.Float32, 128, 76800)
	big := b.SBUF("big", bir.Float32, 128, 76800)
	b.Load("ld", big.All(), x.All())
	b.Save("st", z.All(), big.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSBSizeLegalization_ForceUnrollNested: an oversized tensor sliced by
// two nested loops is forced one loop per round, innermost first (unroll
// factor 1 -> 4 -> 16), and then fits after FullUnroll level 1.
func TestSBSizeLegalization_ForceUnrollNested(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 76800)
	z := b.Output("z", bir.Float32, 128, 76800)
	big := b.SBUF("big", bir.Float32, 128, 16, 4800)
	zero := affine.Const(0)
	slice := [][2]int64{{76800, 128}, {1, 4800}}
	var outer, inner bir.InstID
	outer = b.Loop("o", 0, 4, 1, func(o affine.Expr) {
		inner = b.Loop("i", 0, 4, 1, func(i affine.Expr) {
			off := affine.Scale(affine.Add(affine.Scale(o, 4), i), 4800)
			b.Load("ld", big.Sym(zero, off, slice...), x.Sym(zero, off, slice...))
			b.TensorScalar("sc", bir.EngDVE, big.Sym(zero, off, slice...), big.Sym(zero, off, slice...), "add", 1, "bypass", 0)
			b.Save("st", z.Sym(zero, off, slice...), big.Sym(zero, off, slice...))
		})
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	var log []string
	st, err := sbsize.SBSizeLegalization(m, trn2(t), sbsize.Options{Logf: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(log, "\n")
	for _, want := range []string{
		"(unroll) big_set: loop loop_i (trip count 4) must be unrolled",
		"force loop round 1\nbig_set forced to unroll more from 1 to 4",
		"force loop round 2\nbig_set forced to unroll more from 4 to 16",
		"big_set access 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if st.ForceRounds != 2 || st.LoopsForced != 2 || st.TripCountUnrolled != 8 {
		t.Errorf("rounds %d, loops %d, trip count %d: want 2, 2, 8", st.ForceRounds, st.LoopsForced, st.TripCountUnrolled)
	}
	f := b.F
	for _, l := range []bir.InstID{outer, inner} {
		if !f.Attrs(l).Bool(footprint.HeuristicAttr, false) {
			t.Errorf("loop %s is not marked for FullUnroll", f.InstName(l))
		}
	}
	if got := f.Tensor(big.ID).SplitShape; !slices.Equal(got, []bool{false, true, false}) {
		t.Errorf("splitShape %v, want [false true false] (dim 1, indexed by the loops)", got)
	}
	tbl := pass.Table{Passes: footprintTable(1).Passes[1:]}
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error { return runTable(tbl, m, &rep) }, passtest.Stage(verify.StageSBLegal))
}

// TestSBSizeLegalization_Unfittable covers the error paths: a tensor in a
// dynamic loop (FullUnroll cannot unroll it) and one whose only accesses
// are non-element-wise instructions spanning every piece of any cut.
func TestSBSizeLegalization_Unfittable(t *testing.T) {
	t.Run("dynamic loop", func(t *testing.T) {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 128, 76800)
		big := b.SBUF("big", bir.Float32, 128, 16, 4800)
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		l, ax := b.F.NewLoop(bir.OpDynamicForLoop, "dyn", "d", 0, 16, 1)
		b.F.Append(b.Block(), l)
		body := bir.BuilderFor(b.F, b.F.NewBlock("body", l))
		off := affine.Scale(affine.Var(ax), 4800)
		slice := [][2]int64{{76800, 128}, {1, 4800}}
		body.Load("ld", big.Sym(affine.Const(0), off, slice...), x.Sym(affine.Const(0), off, slice...))
		if err := body.Err(); err != nil {
			t.Fatal(err)
		}
		_, err := sbsize.SBSizeLegalization(m, trn2(t), sbsize.Options{})
		var ue *sbsize.UnfittableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "inside DynamicForLoop dyn, which FullUnroll cannot unroll") {
			t.Errorf("have %v", err)
		}
	})
	t.Run("reduction over every piece", func(t *testing.T) {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 128, 76800)
		big := b.SBUF("big", bir.Float32, 128, 16, 4800)
		sum := b.SBUF("sum", bir.Float32, 128, 1)
		b.Load("ld", big.AP(0, [2]int64{76800, 128}, [2]int64{4800, 16}, [2]int64{1, 4800}), x.AP(0, [2]int64{76800, 128}, [2]int64{4800, 16}, [2]int64{1, 4800}))
		b.TensorReduce("red", bir.EngDVE, "add", "XY", sum.All(), big.AP(0, [2]int64{76800, 128}, [2]int64{4800, 16}, [2]int64{1, 4800}))
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		_, err := sbsize.SBSizeLegalization(m, trn2(t), sbsize.Options{})
		for _, want := range []string{"tensor big_set", "307200 bytes per partition", "instruction red (TensorReduce) would straddle pieces and its opcode is not element-wise"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("the error lacks %q: %v", want, err)
			}
		}
	})
}

// TestSBSizeLegalization_MatmulPartitionDim: a 256-partition tensor read
// by matmuls, 128 partitions each. Cutting the partition dim would give
// 16-partition pieces, not a valid PE tile size (validTileSizes), so the
// tensor is left to vn_splitter, whose two groups of 128 partitions fit.
func TestSBSizeLegalization_MatmulPartitionDim(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	w := b.Input("w", bir.Float32, 128, 128)
	x := b.Input("x", bir.Float32, 256, 64)
	out := b.Output("out", bir.Float32, 128, 64)
	ws := b.SBUF("ws", bir.Float32, 128, 128)
	mov := b.SBUF("mov", bir.Float32, 256, 64)
	ps := b.PSUM("ps", bir.Float32, 128, 64)
	res := b.SBUF("res", bir.Float32, 128, 64)
	b.Load("ldw", ws.All(), w.All())
	b.Load("ldx0", mov.Tile(0, 128, 0, 64), x.Tile(0, 128, 0, 64))
	b.Load("ldx1", mov.Tile(128, 128, 0, 64), x.Tile(128, 128, 0, 64))
	b.Matmult("mm0", ps.All(), ws.All(), mov.Tile(0, 128, 0, 64), true, false)
	b.Matmult("mm1", ps.All(), ws.All(), mov.Tile(128, 128, 0, 64), false, true)
	b.TensorCopy("cp", bir.EngDVE, res.All(), ps.All())
	b.Save("st", out.All(), res.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(2), m, &rep) }, passtest.Stage(verify.StageSBLegal|verify.StageUnrolled))
	text := strings.Join(rep.Result("sb_size_legalization").Log, "\n")
	if !strings.Contains(text, "mov_set: left to vn_splitter") {
		t.Errorf("log:\n%s", text)
	}
	f := m.Main()
	for _, name := range []string{"mov_VN_0", "mov_VN_1"} {
		l, ok := f.LocByName(name)
		if !ok || f.Loc(l).Partitions != 128 {
			t.Errorf("%s: missing or not 128 partitions", name)
		}
	}
}

// TestSBSizeLegalization_ForceFunction: symbolic accesses outside every
// loop cannot be made physical by marking a loop; the function is marked
// need_unroll, which FullUnroll level 1 unrolls whole, and the cut then
// applies.
func TestSBSizeLegalization_ForceFunction(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 76800)
	z := b.Output("z", bir.Float32, 128, 76800)
	big := b.SBUF("big", bir.Float32, 128, 16, 4800)
	zero := affine.Const(0)
	slice := [][2]int64{{76800, 128}, {1, 4800}}
	for k := int64(0); k < 16; k++ {
		off := affine.Const(4800 * k)
		b.Load("", big.Sym(zero, off, slice...), x.Sym(zero, off, slice...))
		b.Save("", z.Sym(zero, off, slice...), big.Sym(zero, off, slice...))
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(1), m, &rep) }, passtest.Stage(verify.StageSBLegal))
	log := strings.Join(rep.Result("sb_size_legalization").Log, "\n")
	if !strings.Contains(log, "(unroll) big_set: function main must be unrolled") {
		t.Errorf("log:\n%s", log)
	}
	if f := m.Main(); !f.HasAttribute("unrolled") {
		t.Errorf("main was not unrolled whole: attributes %v", f.Attributes)
	}
}

// TestSBSizeLegalization_ProgramOrder: flatten's numbering puts a tensor's
// accesses in program order, so the access a reject names is the first
// one executed. Here an unfittable tensor (60013 fp32 per partition, a
// prime: no cut) is reinterpreted twice: first by a symbolic access
// (sym_first), then by a physical one (phys_second). The use index lists
// the location's physical uses before the tensor's symbolic ones; without
// the merge, every remedy would name phys_second.
func TestSBSizeLegalization_ProgramOrder(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	big := b.SBUF("big", bir.Float32, 128, 60013)
	// Engine access patterns as bf16: a partition holds 120026 of them.
	sym := big.Sym(affine.Const(0), affine.Const(0), [2]int64{120026, 1}, [2]int64{1, 16})
	sym.Dtype = bir.BFloat16
	phys := big.AP(64, [2]int64{120026, 1}, [2]int64{1, 16})
	phys.Dtype = bir.BFloat16
	b.Memset("sym_first", bir.EngDVE, sym, 0)
	b.Memset("phys_second", bir.EngDVE, phys, 0)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if err := verify.Module(m, verify.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := sbsize.SBSizeLegalization(m, trn2(t), sbsize.Options{})
	var ue *sbsize.UnfittableError
	if !errors.As(err, &ue) {
		t.Fatalf("have %v, want an UnfittableError", err)
	}
	for _, want := range []string{
		"cut: instruction sym_first reinterprets it as 2-byte elements",
		"vn_splitter: instruction sym_first reinterprets it as 2-byte elements",
		"shrink_ml: instruction sym_first reinterprets it as 2-byte elements",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if sub := bir.SubjectOf(err); sub == nil || sub.Tensor == bir.NoTensor || m.Func(sub.Func) == nil {
		t.Errorf("subject %+v, want the unfittable tensor", sub)
	}
	if strings.Contains(err.Error(), "phys_second") {
		t.Errorf("the error names the later access: %v", err)
	}
}

// TestSBSizeLegalization_ShrinkWindow: the decision to leave a tensor to
// shrink_ml is planShrink's window, not is_legal_tensor's partition-dim
// case. big holds 60013 fp32 per partition (240052 bytes: too big; 60013
// is prime, so no cut; one group, so no vn_splitter), filled and stored
// in a loop of 5 slices covering elements 10000..59999. The partition-dim
// case fails (the accesses are symbolic, so they count as the whole
// location), but the window is 50000 elements (200000 bytes), so the
// tensor is left to shrink_ml, its loop is forced, and after full_unroll
// level 1 shrink_ml trims the location to the window and it fits.
func TestSBSizeLegalization_ShrinkWindow(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 8, 60013)
	z := b.Output("z", bir.Float32, 8, 60013)
	big := b.SBUF("big", bir.Float32, 8, 60013)
	zero := affine.Const(0)
	slice := [][2]int64{{60013, 8}, {1, 10000}}
	b.Loop("i", 0, 5, 1, func(i affine.Expr) {
		off := affine.Add(affine.Scale(i, 10000), affine.Const(10000))
		b.Load("ld", big.Sym(zero, off, slice...), x.Sym(zero, off, slice...))
		b.Save("st", z.Sym(zero, off, slice...), big.Sym(zero, off, slice...))
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	geo, err := footprint.GeometryFor(trn2(t))
	if err != nil {
		t.Fatal(err)
	}
	if geo.IsLegalTensor(b.F, footprint.Storage{Kind: footprint.StoragePartitionDim, Loc: big.Loc}, 0) {
		t.Fatalf("the partition-dim case passes: MaxAccessBytes = %d", footprint.MaxAccessBytes(b.F, big.Loc))
	}
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(1), m, &rep) }, passtest.Stage(verify.StageSBLegal))
	log := strings.Join(rep.Result("sb_size_legalization").Log, "\n")
	for _, want := range []string{
		"big_set: left to shrink_ml: its accesses touch elements 10000..59999 of each partition (200000 bytes per partition)",
		"(unroll) big_set: loop loop_i (trip count 5) must be unrolled",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	f := m.Main()
	l, ok := f.LocByName("big")
	if !ok || f.Loc(l).Bytes != 200000 {
		t.Fatalf("big: present %t, want trimmed to 200000 bytes per partition", ok)
	}
}

// TestSBSizeLegalization_Mx: vn_splitter and shrink_ml keep MX
// (block-scaled) locations as declared (seed 004's isMx pre-filter), so
// the plan never leaves an MX tensor to them.
func TestSBSizeLegalization_Mx(t *testing.T) {
	mx := bir.Float8E5M2x4
	if !footprint.IsMx(mx) || !footprint.IsMx(bir.Float8E4M3FNx4) || !footprint.IsMx(bir.Float4E2M1FNx4) || footprint.IsMx(bir.Float8E4M3FN) || footprint.IsMx(bir.Uint32) {
		t.Fatal("IsMx: want exactly the three x4-packed dtypes")
	}
	// A 256-partition MX tile used in two halves of 128 partitions, each
	// loaded, copied on DVE (a raw copy) and stored: the partition cut
	// would split the copies, so in float32 it is left to vn_splitter
	// (as partitions_vn.bir is); in MX it gets the cut (16 pieces of 16
	// partitions, every instruction split by FullUnroll), and fits.
	t.Run("not left to vn_splitter", func(t *testing.T) {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", mx, 256, 64)
		z := b.Output("z", mx, 256, 64)
		wide := b.SBUF("wide", mx, 256, 64)
		for h := int64(0); h < 2; h++ {
			b.Load("", wide.Tile(128*h, 128, 0, 32), x.Tile(128*h, 128, 0, 32))
			b.TensorCopy("", bir.EngDVE, wide.Tile(128*h, 128, 32, 32), wide.Tile(128*h, 128, 0, 32))
			b.Save("", z.Tile(128*h, 128, 0, 64), wide.Tile(128*h, 128, 0, 64))
		}
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error { return runTable(footprintTable(2), m, &rep) }, passtest.Stage(verify.StageSBLegal|verify.StageUnrolled))
		log := strings.Join(rep.Result("sb_size_legalization").Log, "\n")
		if strings.Contains(log, "left to vn_splitter") || !strings.Contains(log, "wide_set: splitShape [true false]: FullUnroll cuts each of its 1 location(s) into 16 pieces") {
			t.Errorf("log:\n%s", log)
		}
		if vlog := strings.Join(rep.Result("vn_splitter").Log, "\n"); strings.Contains(vlog, "_VN_") {
			t.Errorf("vn_splitter carved MX data:\n%s", vlog)
		}
	})
	// An MX tile whose accesses reach elements 10000..59999 of 60013: in
	// float32 it is left to shrink_ml (TestSBSizeLegalization_ShrinkWindow);
	// in MX nothing can make it fit, and the error says why.
	t.Run("not left to shrink_ml", func(t *testing.T) {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", mx, 8, 60013)
		z := b.Output("z", mx, 8, 60013)
		big := b.SBUF("big", mx, 8, 60013)
		b.Load("ld", big.Tile(0, 8, 10000, 50000), x.Tile(0, 8, 10000, 50000))
		b.Save("st", z.Tile(0, 8, 10000, 50000), big.Tile(0, 8, 10000, 50000))
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		if err := verify.Module(m, verify.Options{}); err != nil {
			t.Fatal(err)
		}
		_, err := sbsize.SBSizeLegalization(m, trn2(t), sbsize.Options{})
		var ue *sbsize.UnfittableError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "shrink_ml: it holds MX (block-scaled) data (float8_e5m2_x4), which vn_splitter and shrink_ml keep as declared") {
			t.Errorf("have %v", err)
		}
	})
}

// twoFunctions builds "main" and "helper", each loading a 128 x 64 tile
// into an SBUF tensor s of 128 x free elements (free = 100000 does not fit
// the SBUF). With corrupt, helper's load writes s through an access
// pattern shape the module never interned: the verifier rejects that, and
// a pass that trusts its verified input indexes past the shape table.
func twoFunctions(t *testing.T, free int64, corrupt bool) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	for _, name := range []string{"main", "helper"} {
		b := bir.NewBuilder(m, name)
		x := b.Input("x_"+name, bir.Float32, 128, 64)
		z := b.Output("z_"+name, bir.Float32, 128, 64)
		s := b.SBUF("s", bir.Float32, 128, free)
		ld := b.Load("ld", s.Tile(0, 128, 0, 64), x.All())
		b.Save("st", z.All(), s.Tile(0, 128, 0, 64))
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		if corrupt && name == "helper" {
			o := b.F.Outs(ld)[0]
			o.Pattern = 1 << 20
			b.F.SetOperand(ld, len(b.F.Ins(ld)), o)
		}
	}
	return m
}

// TestSBSizeLegalizationPass_PanicNamesFunction: a panic while the pass
// works on a function is reported by the pass manager against the pass
// and that function (Options.OnFunction is wired to pass.Context.Function),
// not against the function an earlier phase finished with.
func TestSBSizeLegalizationPass_PanicNamesFunction(t *testing.T) {
	m := twoFunctions(t, 100000, true)
	if err := verify.Module(m, verify.Options{Arch: trn2(t)}); err == nil {
		t.Fatal("the corrupted module verifies; the test no longer reaches a panic path")
	}
	tbl := pass.Table{Passes: []pass.Pass{sbsize.SBSizeLegalizationPass}}
	_, err := tbl.Run(m, pass.Config{Arch: trn2(t), NoVerify: true})
	var pe *pass.Error
	if !errors.As(err, &pe) || !pe.Panic {
		t.Fatalf("err = %v, want a panic reported as a *pass.Error", err)
	}
	if pe.Pass != "sb_size_legalization" || pe.Function != "helper" {
		t.Errorf("pass %q, function %q; want sb_size_legalization, helper", pe.Pass, pe.Function)
	}
	if want := "pass sb_size_legalization, function helper: internal error (panic): "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want the prefix %q", err.Error(), want)
	}
}

// TestSBSizeLegalization_OnFunction: the hook sees every function, main
// first, in each per-function phase, and "" each time the pass leaves
// per-function work; the entry point runs the same without it.
func TestSBSizeLegalization_OnFunction(t *testing.T) {
	var seen []string
	_, err := sbsize.SBSizeLegalization(twoFunctions(t, 64, false), trn2(t), sbsize.Options{OnFunction: func(n string) { seen = append(seen, n) }})
	if err != nil {
		t.Fatal(err)
	}
	// shrink_tensor, classify, pick_unroll_loop (nothing is illegal, so
	// no force_unroll_update round follows) and set_splitShape.
	phase := []string{"main", "helper", ""}
	if want := slices.Concat(phase, phase, phase, phase); !slices.Equal(seen, want) {
		t.Errorf("OnFunction saw %q, want %q", seen, want)
	}
	if _, err := sbsize.SBSizeLegalization(twoFunctions(t, 64, false), trn2(t), sbsize.Options{}); err != nil {
		t.Errorf("without the hook: %v", err)
	}
}

// TestForceUnrollUpdate_ShrinkDimFirst: force_unroll_update reads the
// shrink dim (getShrinkDim): of the loops around an access, the one that
// moves it along the tensor's shrink dim (its outermost free dim) is forced
// first, though it is not the innermost; the next round forces the other.
func TestForceUnrollUpdate_ShrinkDimFirst(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	const s = 4000 // [128, 16, 4000] fp32: 256,000 bytes per partition
	x := b.Input("x", bir.Float32, 128, 16*s)
	z := b.Output("z", bir.Float32, 128, 16*s)
	big := b.SBUF("big", bir.Float32, 128, 16, s)
	zero := affine.Const(0)
	pairs := [][2]int64{{16 * s, 128}, {1, s / 2}}
	b.Loop("k", 0, 16, 1, func(k affine.Expr) {
		b.Loop("j", 0, 2, 1, func(j affine.Expr) {
			off := affine.Add(affine.Scale(k, s), affine.Scale(j, s/2))
			b.Load("ld", big.Sym(zero, off, pairs...), x.Sym(zero, off, pairs...))
			b.Save("st", z.Sym(zero, off, pairs...), big.Sym(zero, off, pairs...))
		})
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	model, err := arch.ForModule(m)
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	st, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{Logf: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(log, "\n")
	first := strings.Index(text, "big_set forced to unroll more from 1 to 16")
	second := strings.Index(text, "big_set forced to unroll more from 16 to 32")
	if st.ForceRounds != 2 || first < 0 || second < first {
		t.Errorf("%d rounds; want loop k (along the shrink dim, trip 16) forced before loop j:\n%s", st.ForceRounds, text)
	}
}
