package shrink_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/shrink"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Translation validation on every built-in kernel: as built, after
// full_unroll level 2, and after the footprint passes before it
// (sb_size_legalization, full_unroll at the default auto level,
// vn_splitter); the pass produces the sb-legal stage. A kernel with a
// location shrink_ml alone cannot legalize (the oversized kernels before
// the cut or the split) must be refused with an IllegalError naming it.
func TestShrinkMLPass_Kernels(t *testing.T) {
	check := func(t *testing.T, m *bir.Module, opts ...passtest.Option) {
		t.Helper()
		model, err := arch.ForModule(m)
		if err != nil {
			t.Fatal(err)
		}
		geo, err := footprint.GeometryFor(model)
		if err != nil {
			t.Fatal(err)
		}
		if bad := geo.IllegalLocations(m); len(bad) > 0 {
			// Legal after the trim only if every illegal location is one
			// ShrinkDN trims: run the pass and look.
			_, err := shrink.ShrinkML(m, model, shrink.Options{})
			var ie *shrink.IllegalError
			if err == nil {
				return // ShrinkDN legalized them (checked again by the prepared run)
			}
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), bad[0].Loc) {
				t.Errorf("illegal %v before: want an IllegalError naming %s, have %v", bad, bad[0].Loc, err)
			}
			return
		}
		passtest.CheckPass(t, m, &shrink.ShrinkMLPass, opts...)
	}
	t.Run("as built", func(t *testing.T) {
		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) { check(t, m) })
	})
	t.Run("unrolled", func(t *testing.T) {
		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
			if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: 2}); err != nil {
				t.Fatal(err)
			}
			check(t, m, passtest.StageBefore(verify.StageUnrolled))
		})
	})
	t.Run("after the footprint passes", func(t *testing.T) {
		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
			model, err := arch.ForModule(m)
			if err != nil {
				t.Fatal(err)
			}
			// The plan assumes the default pipeline: shrink_ml runs next.
			if _, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: unroll.LevelAuto}); err != nil {
				t.Fatal(err)
			}
			if _, err := vnsplit.VNSplitter(m, model, vnsplit.DefaultOptions()); err != nil {
				t.Fatal(err)
			}
			passtest.CheckPass(t, m, &shrink.ShrinkMLPass)
		})
	})
}

// TestShrinkML_DeclaredFourTimesLarger: a tensor declared 4x larger than
// any access touches is cut to its live extent, under translation
// validation.
func TestShrinkML_DeclaredFourTimesLarger(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.BFloat16, 96, 300)
	z := b.Output("z", bir.BFloat16, 96, 300)
	tt := b.SBUF("t", bir.BFloat16, 96, 1200)
	b.Load("ld", tt.Tile(0, 96, 0, 300), x.All())
	b.Activation("act", "Exp", tt.Tile(0, 96, 0, 300), tt.Tile(0, 96, 0, 300), 1, bir.Operand{})
	b.Save("st", z.All(), tt.Tile(0, 96, 0, 300))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	passtest.CheckPass(t, m, &shrink.ShrinkMLPass)
	f := m.Main()
	lc := f.Loc(tt.Loc)
	if lc.Bytes != 600 || lc.Partitions != 96 {
		t.Errorf("t: %d x %d bytes after shrink_ml, want 96 x 600 (300 bf16)", lc.Partitions, lc.Bytes)
	}
	if s := f.Tensor(tt.ID).Shape; len(s) != 2 || s[0] != 96 || s[1] != 300 {
		t.Errorf("shape %v, want [96 300]", s)
	}
	for _, i := range []string{"ld", "act", "st"} {
		id, _ := f.InstByName(i)
		for _, o := range f.Operands(id) {
			if o.Kind == bir.OpdPhysAP && o.Loc() == tt.Loc {
				if p := m.Pattern(o.Pattern); p[0].Step != 300 {
					t.Errorf("%s: partition step %d, want 300", i, p[0].Step)
				}
			}
		}
	}
}

func TestShrinkML_IllegalError(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 4096)
	ps := b.PSUM("ps", bir.Float32, 128, 4096) // 16 KiB + 0: exactly fits
	ps2 := b.PSUM("ps2", bir.Float32, 128, 4104)
	b.Load("ld", ps.All(), x.All())
	b.Memset("ms", bir.EngDVE, ps2.All(), 0)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	model, _ := arch.Lookup("trn2")
	_, err := shrink.ShrinkML(m, model, shrink.Options{})
	var ie *shrink.IllegalError
	if !errors.As(err, &ie) || len(ie.Locations) != 1 || ie.Locations[0].Loc != "ps2" {
		t.Fatalf("have %v, want ps2 reported", err)
	}
	if !strings.Contains(err.Error(), "16416 bytes per partition (4104 elements rounded up to 4104, x 4 bytes), want <= 16384, the PSUM bytes per partition of trn2") {
		t.Errorf("message: %v", err)
	}
	// The subject is data: the location, so the pass manager reports the
	// position of the instruction writing it.
	if sub := bir.SubjectOf(err); sub == nil || sub.Func != "main" || m.Main().Loc(sub.Loc).Name != "ps2" {
		t.Errorf("subject %+v, want main's location ps2", sub)
	}
}

// TestShrinkML_OnFunction: the hook sees every function as the pass starts
// on it and "" before the module-wide fit check (the pass table entry
// wires it to pass.Context.Function, so that a panic names its function);
// the fit check's error, returned after per-function work, is not
// attributed to a function by the pass manager (its text names each
// location's function).
func TestShrinkML_OnFunction(t *testing.T) {
	build := func() *bir.Module {
		m := bir.NewModule("trn2")
		for _, name := range []string{"main", "helper"} {
			b := bir.NewBuilder(m, name)
			x := b.Input("x_"+name, bir.Float32, 128, 4096)
			ps := b.PSUM("ps", bir.Float32, 128, 4104) // 8 words over the PSUM
			b.Load("ld", ps.All(), x.All())
			if err := b.Err(); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	model, _ := arch.Lookup("trn2")
	var seen []string
	_, err := shrink.ShrinkML(build(), model, shrink.Options{OnFunction: func(n string) { seen = append(seen, n) }})
	var ie *shrink.IllegalError
	if !errors.As(err, &ie) || len(ie.Locations) != 2 {
		t.Fatalf("have %v, want both ps reported", err)
	}
	if want := []string{"main", "helper", ""}; !slices.Equal(seen, want) {
		t.Errorf("OnFunction saw %q, want %q", seen, want)
	}
	if _, err2 := shrink.ShrinkML(build(), model, shrink.Options{}); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("without the hook: %v, want %v", err2, err)
	}
	tbl := pass.Table{Passes: []pass.Pass{shrink.ShrinkMLPass}}
	_, err = tbl.Run(build(), pass.Config{Arch: model, NoVerify: true})
	var pe *pass.Error
	if !errors.As(err, &pe) || pe.Pass != "shrink_ml" || pe.Function != "" || pe.Panic || !errors.As(err, &ie) {
		t.Errorf("through the pass manager: %#v, want the IllegalError under pass shrink_ml with no function", err)
	}
}
