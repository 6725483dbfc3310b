package vnsplit_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// foldOnly runs vn_splitter with the split off, so only VerticalFusion
// acts, under translation validation.
func foldOnly(t *testing.T, m *bir.Module) vnsplit.Stats {
	t.Helper()
	var st vnsplit.Stats
	passtest.Check(t, m, func(m *bir.Module) error {
		opt := vnsplit.DefaultOptions()
		opt.SplitSB = false
		var err error
		st, err = vnsplit.VNSplitter(m, trn2(t), opt)
		return err
	})
	return st
}

// chain builds ld: x -> a; cp: a -> b (DVE copy); st: b -> z.
func chain(t *testing.T) (*bir.Module, bir.InstID, bir.InstID) {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	a := b.SBUF("a", bir.Float32, 128, 64)
	bb := b.SBUF("b", bir.Float32, 128, 64)
	ld := b.Load("ld", a.All(), x.All())
	cp := b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
	b.Save("st", z.All(), bb.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m, ld, cp
}

func TestVerticalFusion_Fold(t *testing.T) {
	m, ld, cp := chain(t)
	st := foldOnly(t, m)
	f := m.Main()
	if st.Folded != 1 || !f.Inst(cp).Dead() {
		t.Fatalf("folded %d, cp dead %t", st.Folded, f.Inst(cp).Dead())
	}
	if l := f.Outs(ld)[0].Loc(); f.Loc(l).Name != "b" {
		t.Errorf("ld writes %s, want b", f.Loc(l).Name)
	}
	if _, ok := f.LocByName("a"); ok {
		t.Errorf("the intermediate a is still there")
	}
}

// build builds a module from fn with inputs x, output z (fp32 128 x 64).
func build(t *testing.T, fn func(b *bir.Builder, x, z bir.T)) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	fn(b, x, z)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestVerticalFusion_NoFold(t *testing.T) {
	for _, c := range []struct {
		name string
		want int
		fn   func(b *bir.Builder, x, z bir.T)
	}{
		{"second reader", 0, func(b *bir.Builder, x, z bir.T) {
			a, bb, o := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64), b.SBUF("o", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
			b.TensorCopy("cp2", bir.EngDVE, o.All(), a.All())
			b.TensorTensor("add", bir.EngDVE, "add", bb.All(), bb.All(), o.All())
			b.Save("st", z.All(), bb.All())
		}},
		{"destination touched between", 0, func(b *bir.Builder, x, z bir.T) {
			// Folding would write b before the memset, which would win.
			a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.Memset("ms", bir.EngDVE, bb.All(), 7)
			b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
			b.Save("st", z.All(), bb.All())
		}},
		{"converting copy", 0, func(b *bir.Builder, x, z bir.T) {
			a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.BFloat16, 128, 64)
			o := b.SBUF("o", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
			b.TensorCopy("back", bir.EngDVE, o.All(), bb.All())
			b.Save("st", z.All(), o.All())
		}},
		{"activation engine copy", 0, func(b *bir.Builder, x, z bir.T) {
			a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.TensorCopy("cp", bir.EngAct, bb.All(), a.All())
			b.Save("st", z.All(), bb.All())
		}},
		{"copy in a different shape", 0, func(b *bir.Builder, x, z bir.T) {
			a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.TensorCopy("cp", bir.EngDVE, bb.AP(0, [2]int64{64, 128}, [2]int64{32, 2}, [2]int64{1, 32}), a.AP(0, [2]int64{64, 128}, [2]int64{1, 64}))
			b.Save("st", z.All(), bb.All())
		}},
		// sc (GpSimd) must not fold into cp (it would write PSUM); cp itself
		// folds into back (a DVE copy writes o directly).
		{"pool must not write PSUM", 1, func(b *bir.Builder, x, z bir.T) {
			a, ps, o := b.SBUF("a", bir.Float32, 128, 64), b.PSUM("ps", bir.Float32, 128, 64), b.SBUF("o", bir.Float32, 128, 64)
			b.Load("ld", o.All(), x.All())
			b.TensorScalar("sc", bir.EngPool, a.All(), o.All(), "add", 1, "bypass", 0)
			b.TensorCopy("cp", bir.EngDVE, ps.All(), a.All())
			b.TensorCopy("back", bir.EngDVE, o.All(), ps.All())
			b.Save("st", z.All(), o.All())
		}},
		{"dependency between P and C", 0, func(b *bir.Builder, x, z bir.T) {
			a, bb, o := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64), b.SBUF("o", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			mid := b.Memset("mid", bir.EngDVE, o.All(), 2)
			cp := b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
			b.F.AddDep(cp, bir.Dep{On: mid, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
			b.TensorTensor("add", bir.EngDVE, "add", bb.All(), bb.All(), o.All())
			b.Save("st", z.All(), bb.All())
		}},
		{"DMA chain into DRAM", 0, func(b *bir.Builder, x, z bir.T) {
			a := b.SBUF("a", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.Save("st", z.All(), a.All())
		}},
		{"DMA into a tile copied on", 1, func(b *bir.Builder, x, z bir.T) {
			a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64)
			b.Load("ld", a.All(), x.All())
			b.DMACopy("cp", bb.All(), a.All())
			b.Save("st", z.All(), bb.All())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, c.fn)
			if st := foldOnly(t, m); st.Folded != c.want {
				t.Errorf("folded %d, want %d", st.Folded, c.want)
			}
			f := m.Main()
			if i, ok := f.InstByName("sc"); ok && f.Loc(f.Outs(i)[0].Loc()).Type != bir.MemSB {
				t.Errorf("sc (GpSimd) now writes %s", f.Loc(f.Outs(i)[0].Loc()).Type)
			}
		})
	}
	// A predicated producer (checked without the interpreter: the
	// predicate is on a loop axis).
	m := build(t, func(b *bir.Builder, x, z bir.T) {
		a, bb := b.SBUF("a", bir.Float32, 128, 64), b.SBUF("b", bir.Float32, 128, 64)
		b.Loop("i", 0, 2, 1, func(i affine.Expr) {
			ld := b.Load("ld", a.All(), x.All())
			b.F.SetPred(ld, affine.EQ(i, affine.Const(0)))
			b.TensorCopy("cp", bir.EngDVE, bb.All(), a.All())
		})
		b.Save("st", z.All(), bb.All())
	})
	if st := foldOnly(t, m); st.Folded != 0 {
		t.Errorf("predicated producer: folded %d", st.Folded)
	}
}

// TestVerticalFusion_ChainAndDeps: a -> b -> c collapses over two sweeps;
// dependencies on the folded copies move to their producers, and the
// producer inherits the copies' dependencies.
func TestVerticalFusion_ChainAndDeps(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	a := b.SBUF("a", bir.Float32, 128, 64)
	bb := b.SBUF("b", bir.Float32, 128, 64)
	c := b.SBUF("c", bir.Float32, 128, 64)
	other := b.SBUF("other", bir.Float32, 128, 64)
	pre := b.Memset("pre", bir.EngDVE, other.All(), 1)
	ld := b.Load("ld", a.All(), x.All())
	c1 := b.TensorCopy("c1", bir.EngDVE, bb.All(), a.All())
	c2 := b.TensorCopy("c2", bir.EngDVE, c.All(), bb.All())
	use := b.TensorTensor("use", bir.EngDVE, "add", c.All(), c.All(), other.All())
	st := b.Save("st", z.All(), c.All())
	f := b.F
	f.AddDep(c1, bir.Dep{On: ld, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	f.AddDep(c1, bir.Dep{On: pre, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
	f.AddDep(c2, bir.Dep{On: c1, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	f.AddDep(use, bir.Dep{On: c2, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	f.AddDep(st, bir.Dep{On: use, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	s := foldOnly(t, m)
	if s.Folded != 2 || !f.Inst(c1).Dead() || !f.Inst(c2).Dead() {
		t.Fatalf("folded %d", s.Folded)
	}
	if l := f.Outs(ld)[0].Loc(); f.Loc(l).Name != "c" {
		t.Errorf("ld writes %s, want c", f.Loc(l).Name)
	}
	var on []string
	for _, d := range f.Deps(use) {
		on = append(on, f.InstName(d.On))
	}
	if strings.Join(on, ",") != "ld" {
		t.Errorf("use depends on %v, want [ld]", on)
	}
	on = on[:0]
	for _, d := range f.Deps(ld) {
		on = append(on, f.InstName(d.On))
	}
	if strings.Join(on, ",") != "pre" {
		t.Errorf("ld depends on %v, want [pre] (inherited from c1)", on)
	}
}

// TestVerticalFusion_ManyIntoOne: four loads staged through their own
// tiles and copied into quarters of one tile all fold in one sweep.
func TestVerticalFusion_ManyIntoOne(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	dst := b.SBUF("dst", bir.Float32, 128, 64)
	var stages []bir.T
	for k := int64(0); k < 4; k++ {
		s := b.SBUF("stage"+string(rune('0'+k)), bir.Float32, 128, 16)
		stages = append(stages, s)
		b.Load("ld"+string(rune('0'+k)), s.All(), x.Tile(0, 128, 16*k, 16))
	}
	for k, s := range stages {
		b.TensorCopy("cp"+string(rune('0'+k)), bir.EngDVE, dst.Tile(0, 128, 16*int64(k), 16), s.All())
	}
	b.Save("st", z.All(), dst.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	var log []string
	passtest.Check(t, m, func(m *bir.Module) error {
		opt := vnsplit.DefaultOptions()
		opt.Logf = func(f string, a ...any) {
			if strings.HasPrefix(f, "VerticalFusion") {
				log = append(log, f)
			}
		}
		st, err := vnsplit.VNSplitter(m, trn2(t), opt)
		if st.Folded != 4 {
			t.Errorf("folded %d, want 4", st.Folded)
		}
		return err
	})
	if len(log) != 4 {
		t.Errorf("%d fold log lines, want 4", len(log))
	}
}

// TestVNSplitter_FoldIntoPredecessor: the option gates VerticalFusion. On
// the foldable chain ld -> a -> cp -> b -> st, with the option off nothing
// is folded (cp and a survive, ld still writes a) and the fold's log line
// is absent; with it on, cp folds into ld.
func TestVNSplitter_FoldIntoPredecessor(t *testing.T) {
	for _, fold := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "on"}[fold], func(t *testing.T) {
			m, ld, cp := chain(t)
			var st vnsplit.Stats
			var log []string
			passtest.Check(t, m, func(m *bir.Module) error {
				opt := vnsplit.DefaultOptions()
				opt.FoldIntoPredecessor = fold
				opt.Logf = func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }
				var err error
				st, err = vnsplit.VNSplitter(m, trn2(t), opt)
				return err
			})
			f := m.Main()
			wantDst, wantFolded := "a", 0
			if fold {
				wantDst, wantFolded = "b", 1
			}
			if st.Folded != wantFolded || f.Inst(cp).Dead() != fold {
				t.Errorf("folded %d, cp dead %t; want %d, %t", st.Folded, f.Inst(cp).Dead(), wantFolded, fold)
			}
			if l := f.Outs(ld)[0].Loc(); f.Loc(l).Name != wantDst {
				t.Errorf("ld writes %s, want %s", f.Loc(l).Name, wantDst)
			}
			if _, ok := f.LocByName("a"); ok == fold {
				t.Errorf("intermediate a present: %t, want %t", ok, !fold)
			}
			text := strings.Join(log, "\n")
			if strings.Contains(text, "INFO (VerticalFusion)") != fold || !strings.Contains(text, fmt.Sprintf("foldIntoPredecessor = %t", fold)) {
				t.Errorf("log:\n%s", text)
			}
		})
	}
}
