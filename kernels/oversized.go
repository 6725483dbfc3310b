package kernels

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// oversized holds SBUF tiles too big for the machine, one per repair the
// allocator-prep footprint passes make (docs/footprint.md), so that every
// pass's translation validation runs over a kernel where the footprint
// passes act. The data moved is small (the tiles are mostly untouched), so
// the interpreter runs each case in milliseconds; the sizes follow the
// target's usable SBUF per partition, so the tiles are oversized on every
// arch. Each case copies its input to its output through the tile
// (bit-exact):
//
//	cut         [128, 16, S] fp32, S = usable/64 + 8 elements: 16 slices of 64
//	            elements written and read in straight-line code;
//	            sb_size_legalization marks dim 1 and FullUnroll cuts the tile
//	            into 16 pieces
//	force       the same tile filled and read in a loop over the slices:
//	            sb_size_legalization forces the loop (force_unroll_update),
//	            then marks the cut; with dynamic=1 the function also holds a
//	            DynamicForLoop (its tile gets +1 eight times in an inner static
//	            loop), so FullUnroll's auto level unrolls it at level 1: the
//	            forced loop and the loop heuristic_unroll marked are unrolled,
//	            the dynamic loop stays
//	vn          [2P, 64] fp32 (P partitions): two halves of P partitions, each
//	            copied on to an SBUF tile; vn_splitter carves w_VN_0 and w_VN_1,
//	            and VerticalFusion folds each copy into the load before it
//	shrink      [128, F] fp32, F the first size above usable/4 with no divisor
//	            in 2..16 (no cut exists), touched at elements 0..63: left to
//	            shrink_ml, which trims it to 64 elements
//	unfittable  [128, F] fp32 whose one used partition is touched at every
//	            element: nothing fits it; sb_size_legalization stops with the
//	            explanation (not in Tests: the pipeline fails by design)
func init() {
	Register(&Kernel{
		Name: "oversized",
		Doc:  "SBUF tiles too big for the machine: each case makes one footprint repair act (cut, force, vn, shrink; unfittable fails with the explanation)",
		Params: []Param{
			{Name: "case", Default: "force", Doc: "cut, force, vn, shrink or unfittable"},
			{Name: "dynamic", Default: "0", Doc: "case force: 1 adds a DynamicForLoop (FullUnroll's auto level unrolls the function at level 1)"},
			archParam,
		},
		Build:     buildOversized,
		Reference: refOversized,
		Tests:     []string{"case=cut", "", "case=vn", "case=shrink"},
	})
}

// oversizedGeometry returns the partitions, the usable SBUF bytes per
// partition of the arch, the slice length S of the cut and force tiles,
// and the free size F of the shrink and unfittable tiles.
func oversizedGeometry(p Params) (parts, budget, s, f int64, err error) {
	m, err := arch.Lookup(p.Str("arch"))
	if err != nil {
		return 0, 0, 0, 0, fmt.Errorf("arch=%s: %w", p.Str("arch"), err)
	}
	budget, err = m.SBUFBudget()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	e := budget / 4
	s = e/16 + 8
	f = e + 1
	for ; ; f++ {
		ok := true
		for k := int64(2); k <= 16; k++ {
			if f%k == 0 {
				ok = false
				break
			}
		}
		if ok {
			break
		}
	}
	return m.Partitions, budget, s, f, nil
}

// oversizedShapes returns the input and output shapes of a case.
func oversizedShapes(c string, parts, f int64) (in, out []int64, err error) {
	switch c {
	case "cut", "force":
		return []int64{128, 16 * 64}, []int64{128, 16 * 64}, nil
	case "vn":
		return []int64{2 * parts, 64}, []int64{2 * parts, 64}, nil
	case "shrink":
		return []int64{128, 64}, []int64{128, 64}, nil
	case "unfittable":
		return []int64{1, f}, []int64{1, f}, nil
	}
	return nil, nil, fmt.Errorf("case=%q: want cut, force, vn, shrink or unfittable", c)
}

func buildOversized(p Params) (*bir.Module, error) {
	parts, _, s, f, err := oversizedGeometry(p)
	if err != nil {
		return nil, err
	}
	c := p.Str("case")
	in, out, err := oversizedShapes(c, parts, f)
	if err != nil {
		return nil, err
	}
	dyn, err := p.Int("dynamic")
	if err != nil {
		return nil, err
	}
	if dyn != 0 && (dyn != 1 || c != "force") {
		return nil, fmt.Errorf("dynamic=%d: want 0, or 1 with case=force", dyn)
	}
	m, err := newModule(p)
	if err != nil {
		return nil, err
	}
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, in...)
	z := b.Output("z", bir.Float32, out...)
	switch c {
	case "cut", "force":
		big := b.SBUF("big", bir.Float32, 128, 16, s)
		slice := func(k int64) (sb, dram bir.Operand) {
			return big.AP(k*s, [2]int64{16 * s, 128}, [2]int64{1, 64}), x.AP(k*64, [2]int64{16 * 64, 128}, [2]int64{1, 64})
		}
		if c == "cut" {
			for k := int64(0); k < 16; k++ {
				sb, dram := slice(k)
				b.Load(fmt.Sprintf("load_%d", k), sb, dram)
			}
			for k := int64(0); k < 16; k++ {
				sb, _ := slice(k)
				b.Save(fmt.Sprintf("store_%d", k), z.AP(k*64, [2]int64{16 * 64, 128}, [2]int64{1, 64}), sb)
			}
			break
		}
		zero := affine.Const(0)
		pairsSB := [][2]int64{{16 * s, 128}, {1, 64}}
		pairsD := [][2]int64{{16 * 64, 128}, {1, 64}}
		b.Loop("k", 0, 16, 1, func(k affine.Expr) {
			b.Load("load", big.Sym(zero, affine.Scale(k, s), pairsSB...), x.Sym(zero, affine.Scale(k, 64), pairsD...))
			b.Save("store", z.Sym(zero, affine.Scale(k, 64), pairsD...), big.Sym(zero, affine.Scale(k, s), pairsSB...))
		})
		if dyn == 1 {
			y := b.Input("y", bir.Float32, 128, 8)
			w := b.Output("w", bir.Float32, 128, 8)
			acc := b.SBUF("acc", bir.Float32, 128, 8)
			b.Load("load_y", acc.All(), y.All())
			l, _ := b.F.NewLoop(bir.OpDynamicForLoop, "repeat", "d", 0, 2, 1)
			b.F.Append(b.Block(), l)
			body := bir.BuilderFor(b.F, b.F.NewBlock("repeat_body", l))
			body.Loop("j", 0, 4, 1, func(affine.Expr) {
				body.TensorScalar("inc", bir.EngDVE, acc.All(), acc.All(), "add", 1, "bypass", 0)
			})
			if err := body.Err(); err != nil {
				return nil, err
			}
			b.Save("store_w", w.All(), acc.All())
		}
	case "vn":
		w := b.SBUF("w", bir.Float32, 2*parts, 64)
		for h := int64(0); h < 2; h++ {
			u := b.SBUF(fmt.Sprintf("u%d", h), bir.Float32, parts, 64)
			b.Load(fmt.Sprintf("load_%d", h), w.Tile(h*parts, parts, 0, 64), x.Tile(h*parts, parts, 0, 64))
			b.TensorCopy(fmt.Sprintf("copy_%d", h), bir.EngDVE, u.All(), w.Tile(h*parts, parts, 0, 64))
			b.Save(fmt.Sprintf("store_%d", h), z.Tile(h*parts, parts, 0, 64), u.All())
		}
	case "shrink":
		big := b.SBUF("big", bir.Float32, 128, f)
		b.Load("load", big.Tile(0, 128, 0, 64), x.All())
		b.Save("store", z.All(), big.Tile(0, 128, 0, 64))
	case "unfittable":
		big := b.SBUF("big", bir.Float32, 128, f)
		b.Load("load", big.Tile(0, 1, 0, f), x.All())
		b.Save("store", z.All(), big.Tile(0, 1, 0, f))
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return m, nil
}
