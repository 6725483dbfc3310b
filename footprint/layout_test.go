package footprint

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

func TestOnChipLayout_Classes(t *testing.T) {
	const e = 64 // elements per partition
	cases := []struct {
		name  string
		off   int64
		pat   bir.Pattern
		class APClass
		first int64
		step  int64
		count int64
		lo    int64
		hi    int64
	}{
		{"whole", 0, pat(64, 128, 1, 64), APContiguous, 0, 1, 128, 0, 63},
		{"window", 3*64 + 8, pat(64, 4, 1, 16), APContiguous, 3, 1, 4, 8, 23},
		{"every other partition", 64, pat(128, 8, 1, 64), APContiguous, 1, 2, 8, 0, 63},
		{"downward partitions", 10*64 + 5, pat(-64, 3, 2, 4), APContiguous, 10, -1, 3, 5, 11},
		{"single partition", 5*64 + 32, pat(1, 32), APContiguous, 5, 0, 1, 32, 63},
		{"num-1 and step-0 pairs ignored", 0, pat(7, 1, 0, 9, 64, 2, 1, 8), APContiguous, 0, 1, 2, 0, 7},
		{"negative in-partition step", 63, pat(64, 2, -1, 64), APContiguous, 0, 1, 2, 0, 63},
		{"shifted partition", 0, pat(65, 4, 1, 8), APShifted, 0, 0, 1, 0, 0},
		{"transposed", 0, pat(1, 8, 64, 8), APTranspose, 0, 0, 1, 0, 0},
		{"two partition steps", 0, pat(128, 2, 64, 2, 1, 4), APTranspose, 0, 0, 1, 0, 0},
		{"across channels", 60, pat(64, 2, 1, 8), APCrossChannel, 0, 1, 2, 60, 67},
		{"flat over partitions", 0, pat(1, 128*64), APCrossChannel, 0, 0, 1, 0, 128*64 - 1},
		{"negative offset", -1, pat(1, 1), APInvalid, 0, 0, 1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := OnChipLayout(c.off, c.pat, e)
			if l.Class != c.class {
				t.Fatalf("class %v, want %v", l.Class, c.class)
			}
			if c.class != APContiguous && c.class != APCrossChannel {
				return
			}
			if l.PartFirst != c.first || l.PartStep != c.step || l.PartCount != c.count || l.ElemLo != c.lo || l.ElemHi != c.hi {
				t.Errorf("layout %+v, want first %d step %d count %d elements %d..%d", l, c.first, c.step, c.count, c.lo, c.hi)
			}
		})
	}
	if l := OnChipLayout(0, pat(1, 4), 0); l.Class != APInvalid {
		t.Errorf("0 elements per partition: class %v, want invalid", l.Class)
	}
	l := OnChipLayout(10*64, pat(-64, 3, 1, 4), e)
	if l.PartMin() != 8 || l.PartMax() != 10 {
		t.Errorf("downward walk: partitions %d..%d, want 8..10", l.PartMin(), l.PartMax())
	}
}

// TestOnChipLayout_MatchesAddressing checks the decomposition against the
// addressing model element by element: every element of a contiguous
// access lies in one of the partitions and inside the element range.
func TestOnChipLayout_MatchesAddressing(t *testing.T) {
	const e = 16
	pats := []struct {
		off int64
		pat bir.Pattern
	}{
		{0, pat(16, 8, 1, 16)},
		{16*3 + 2, pat(32, 3, 4, 3, 1, 2)},
		{16*7 + 15, pat(-16, 4, -3, 5)},
		{5, pat(0, 3, 2, 5)},
	}
	for _, p := range pats {
		l := OnChipLayout(p.off, p.pat, e)
		if l.Class != APContiguous {
			t.Fatalf("%v: class %v", p.pat, l.Class)
		}
		parts := map[int64]bool{}
		for j := int64(0); j < l.PartCount; j++ {
			parts[l.PartFirst+j*l.PartStep] = true
		}
		idx := make([]int64, len(p.pat))
		for {
			el := p.off
			for k, q := range p.pat {
				el += idx[k] * q.Step
			}
			if !parts[el/e] || el%e < l.ElemLo || el%e > l.ElemHi {
				t.Fatalf("%v at %v: element %d (partition %d, index %d) outside %+v", p.pat, idx, el, el/e, el%e, l)
			}
			k := len(idx) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < p.pat[k].Num {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
}

func TestFlatten(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.SBUF("x", bir.Float32, 128, 4)
	a := b.Memset("a", bir.EngDVE, x.All(), 0)
	var in1, in2 bir.InstID
	lp := b.Loop("i", 0, 2, 1, func(i affine.Expr) {
		in1 = b.Memset("b", bir.EngDVE, x.All(), 1)
		in2 = b.Memset("c", bir.EngDVE, x.All(), 2)
	})
	d := b.Memset("d", bir.EngDVE, x.All(), 3)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	pos, n := Flatten(b.F, nil)
	if n != 5 {
		t.Fatalf("%d instructions numbered, want 5", n)
	}
	want := map[bir.InstID]int32{a: 0, lp: 1, in1: 2, in2: 3, d: 4}
	for i, p := range want {
		if pos[i] != p {
			t.Errorf("%s at %d, want %d", b.F.InstName(i), pos[i], p)
		}
	}
	b.F.Remove(in2)
	pos, n = Flatten(b.F, pos)
	if n != 4 || pos[in2] != -1 || pos[d] != 3 {
		t.Errorf("after removing c: n=%d pos[c]=%d pos[d]=%d, want 4, -1, 3", n, pos[in2], pos[d])
	}
}

func TestBlockLiveness(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	in := b.Input("in", bir.Float32, 512, 64)
	out := b.Output("out", bir.Float32, 512, 64)
	tile := [][2]int64{{64, 128}, {1, 64}}
	// perIter: written and read in one iteration; allLive: written by one
	// loop, read by the next; pred: block 0 is read by an instruction
	// predicated to run only at i == 0, so it dies then (were the
	// predicate ignored, it would live until i == 3, next to block i).
	perIter := b.BlockTensor("per_iter", bir.MemSB, bir.Float32, 4, 128, 64)
	allLive := b.BlockTensor("all_live", bir.MemSB, bir.Float32, 4, 128, 64)
	pred := b.BlockTensor("pred", bir.MemSB, bir.Float32, 4, 128, 64)
	zero := affine.Const(0)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*64)
		b.Load("ld", perIter.Sym(i, zero, tile...), in.Sym(zero, off, tile...))
		b.Save("st", out.Sym(zero, off, tile...), perIter.Sym(i, zero, tile...))
		b.Load("lda", allLive.Sym(i, zero, tile...), in.Sym(zero, off, tile...))
		b.Load("ldp", pred.Sym(i, zero, tile...), in.Sym(zero, off, tile...))
		early := b.Save("early", out.Sym(zero, zero, tile...), pred.Sym(zero, zero, tile...))
		b.F.SetPred(early, affine.EQ(i, affine.Const(0)))
	})
	b.Loop("j", 0, 4, 1, func(j affine.Expr) {
		b.Save("stb", out.Sym(zero, affine.Scale(j, 128*64), tile...), allLive.Sym(j, zero, tile...))
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	res := BlockLiveness(b.F, 0)
	check := func(tn bir.T, maxLive, touched int64) {
		t.Helper()
		r := res[tn.ID]
		if r.NBlocks != 4 || r.MaxLive != maxLive || r.Touched != touched || r.Why != "" {
			t.Errorf("%s: %+v, want 4 blocks, %d live, %d touched", b.F.Tensor(tn.ID).Name, r, maxLive, touched)
		}
	}
	check(perIter, 1, 4)
	check(allLive, 4, 4)
	check(pred, 1, 4)
	if r := res[in.ID]; r.NBlocks != 0 {
		t.Errorf("input: %+v, want no analysis", r)
	}
	// A budget smaller than the work makes every result unknown.
	for _, r := range BlockLiveness(b.F, 5) {
		if r.NBlocks != 0 && (r.MaxLive != 0 || r.Why == "") {
			t.Errorf("budget 5: %+v, want unknown", r)
		}
	}
}

func TestBlockLiveness_Unknown(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	in := b.Input("in", bir.Float32, 128, 64)
	tpl := b.BlockTensor("tpl", bir.MemSB, bir.Float32, 4, 128, 64)
	dyn := b.BlockTensor("dyn", bir.MemSB, bir.Float32, 4, 128, 64)
	b.Load("phys", tpl.All(), in.All()) // the template named physically
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	// A DynamicForLoop with register bounds: its trip count is known only
	// at run time.
	l, ax := b.F.NewLoop(bir.OpDynamicForLoop, "dl", "d", 0, 4, 1)
	reg := bir.RegOpd(b.F.RegByName("n"), bir.Int32)
	b.F.SetArgs(l, []bir.Operand{reg, reg, reg}, nil)
	b.F.Append(b.Block(), l)
	body := b.F.NewBlock("body", l)
	bb := bir.BuilderFor(b.F, body)
	zero := affine.Const(0)
	bb.Load("ldd", dyn.Sym(affine.Var(ax), zero, [2]int64{64, 128}, [2]int64{1, 64}), in.All())
	if err := bb.Err(); err != nil {
		t.Fatal(err)
	}
	// One bounded by its axis iterates as a Loop does (nl.dynamic_range
	// with constant bounds): its blocks' liveness is known.
	stat := b.BlockTensor("stat", bir.MemSB, bir.Float32, 4, 128, 64)
	b.DynamicLoop("s", 0, 4, 1, func(s affine.Expr) {
		b.Load("lds", stat.Sym(s, zero, [2]int64{64, 128}, [2]int64{1, 64}), in.All())
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	res := BlockLiveness(b.F, 0)
	for _, tn := range []bir.T{tpl, dyn} {
		if r := res[tn.ID]; r.MaxLive != 0 || r.Why == "" {
			t.Errorf("%s: %+v, want unknown with a reason", b.F.Tensor(tn.ID).Name, r)
		}
	}
	if r := res[stat.ID]; r.MaxLive != 1 || r.Touched != 4 || r.Why != "" {
		t.Errorf("stat: %+v, want 1 block live of 4 touched", r)
	}
}

func TestLayoutCache_MatchesOnChipLayout(t *testing.T) {
	m := bir.NewModule("trn2")
	pats := []bir.Pattern{
		pat(64, 128, 1, 64), pat(64, 4, 1, 16), pat(128, 8, 1, 64), pat(-64, 3, 2, 4),
		pat(1, 32), pat(65, 4, 1, 8), pat(1, 8, 64, 8), pat(64, 2, 1, 8), pat(0, 3, 1, 5),
	}
	var c LayoutCache
	for _, e := range []int64{64, 16, 64, 1} { // the partition size changes and comes back
		for _, p := range pats {
			id := m.InternPattern(p)
			for _, off := range []int64{0, 5, 60, 64*3 + 8, 10*64 + 5, 63, -1} {
				want := OnChipLayout(off, p, e)
				if got := c.Layout(m, off, id, e); got != want {
					t.Errorf("e=%d %v offset %d: cache %+v, direct %+v", e, p, off, got, want)
				}
			}
		}
	}
	if l := c.Layout(m, 0, bir.PatternID(9999), 64); l.Class != APInvalid {
		t.Errorf("an unknown pattern id: %v", l.Class)
	}
}

// pat builds a pattern from [step, num] pairs given flat.
func pat(sn ...int64) bir.Pattern {
	p := make(bir.Pattern, 0, len(sn)/2)
	for k := 0; k+1 < len(sn); k += 2 {
		p = append(p, bir.APPair{Step: sn[k], Num: sn[k+1]})
	}
	return p
}
