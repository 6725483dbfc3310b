package tiling_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/verify"
)

// sizeRules are the verifier's StageTiled per-instruction size rules.
var sizeRules = []string{"tile-partitions", "free-size", "engine-ap", "partition-stride", "matmul-limits", "psum-tile"}

// TestSundaSizeTiling_DetectsWhatTheVerifierRejects: the instructions the
// tiler takes for macro operations are exactly those the verifier's
// StageTiled size rules reject (the two read the same arch numbers), on
// every built-in kernel as built, every golden input, and one module per
// size rule on trn2 and trn3 (whose matmul N limit is wider than a bank).
func TestSundaSizeTiling_DetectsWhatTheVerifierRejects(t *testing.T) {
	var mods []*bir.Module
	names := []string{}
	for _, k := range kernels.All() {
		for _, spec := range k.TestSpecs() {
			m, err := kernels.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			mods, names = append(mods, m), append(names, spec)
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.bir"))
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := bir.Parse(file, src)
		if err != nil {
			t.Fatal(err)
		}
		mods, names = append(mods, m), append(names, file)
	}
	for _, a := range []string{"trn2", "trn3"} {
		for _, c := range sizeCases(a) {
			mods, names = append(mods, c.m), append(names, a+" "+c.name)
		}
	}
	macroSeen := 0
	for k, m := range mods {
		model, err := arch.ForModule(m)
		if err != nil {
			t.Fatal(err)
		}
		f := m.Main()
		var tiler []string
		for _, i := range tiling.MacroInstructions(f, model) {
			tiler = append(tiler, f.InstName(i))
		}
		var verifier []string
		if err := verify.Module(m, verify.Options{Stage: verify.StageTiled}); err != nil {
			for _, d := range err.(*verify.Error).Diags() {
				if slices.Contains(sizeRules, d.Rule) && !slices.Contains(verifier, d.Inst) {
					verifier = append(verifier, d.Inst)
				}
			}
		}
		slices.Sort(tiler)
		slices.Sort(verifier)
		if !slices.Equal(tiler, verifier) {
			t.Errorf("%s: the tiler takes %v for macro operations, the verifier's size rules reject %v", names[k], tiler, verifier)
		}
		if len(tiler) > 0 {
			macroSeen++
		}
	}
	if macroSeen < 10 {
		t.Errorf("only %d modules with macro operations: the check proved little", macroSeen)
	}
}

type sizeCase struct {
	name string
	m    *bir.Module
}

// sizeCases builds one module per size rule on arch a.
func sizeCases(a string) []sizeCase {
	mk := func(name string, fn func(b *bir.Builder)) sizeCase {
		m := bir.NewModule(a)
		b := bir.NewBuilder(m, "main")
		fn(b)
		if err := b.Err(); err != nil {
			panic(err)
		}
		return sizeCase{name, m}
	}
	return []sizeCase{
		mk("partitions", func(b *bir.Builder) {
			x := b.SBUF("x", f32, 200, 8)
			b.Memset("fill", bir.EngDVE, x.All(), 0)
		}),
		mk("free elements", func(b *bir.Builder) {
			x := b.SBUF("x", bir.Int8, 2, 70000)
			b.Memset("fill", bir.EngDVE, x.All(), 0)
		}),
		mk("free step", func(b *bir.Builder) {
			x := b.SBUF("x", bir.Int8, 1, 80000)
			b.Memset("fill", bir.EngDVE, x.AP(0, [2]int64{80000, 1}, [2]int64{40000, 2}), 0)
		}),
		mk("broadcast", func(b *bir.Builder) {
			g := b.SBUF("g", f32, 1, 8)
			x := b.SBUF("x", f32, 64, 8)
			b.Memset("g_fill", bir.EngDVE, g.All(), 1)
			b.TensorTensor("mul", bir.EngDVE, "mult", x.All(), x.All(), g.AP(0, [2]int64{0, 64}, [2]int64{1, 8}))
		}),
		mk("PSUM wider than a bank", func(b *bir.Builder) {
			p := b.PSUM("p", f32, 128, 1024)
			b.Memset("fill", bir.EngDVE, p.All(), 0)
		}),
		mk("PSUM free elements", func(b *bir.Builder) {
			p := b.PSUM("p", bir.BFloat16, 128, 4608)
			b.Memset("fill", bir.EngDVE, p.All(), 0)
		}),
		mk("matmul K", func(b *bir.Builder) {
			st := b.SBUF("st", f32, 256, 128)
			mv := b.SBUF("mv", f32, 256, 512)
			p := b.PSUM("p", f32, 128, 512)
			b.Matmult("mm", p.All(), st.All(), mv.All(), true, true)
		}),
		mk("matmul M", func(b *bir.Builder) {
			st := b.SBUF("st", f32, 128, 256)
			mv := b.SBUF("mv", f32, 128, 512)
			p := b.PSUM("p", f32, 256, 512)
			b.Matmult("mm", p.All(), st.All(), mv.All(), true, true)
		}),
		mk("matmul N", func(b *bir.Builder) {
			st := b.SBUF("st", f32, 128, 128)
			mv := b.SBUF("mv", f32, 128, 1024)
			p := b.PSUM("p", f32, 128, 1024)
			b.Matmult("mm", p.All(), st.All(), mv.All(), true, true)
		}),
		mk("legal", func(b *bir.Builder) {
			x := b.SBUF("x", f32, 128, 512)
			b.Memset("fill", bir.EngDVE, x.All(), 0)
		}),
	}
}
