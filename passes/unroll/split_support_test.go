package unroll

import (
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestCutPlan_Access(t *testing.T) {
	// [128, 16, 4800] cut along dim 1: 16 pieces of [128, 1, 4800].
	p, err := PlanCut([]int64{128, 16, 4800}, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumPieces() != 16 || !slices.Equal(p.PieceShape(), []int64{128, 1, 4800}) || !slices.Equal(p.Pieces(), []int64{1, 16, 1}) {
		t.Fatalf("plan: %d pieces %v of %v", p.NumPieces(), p.Pieces(), p.PieceShape())
	}
	if a, err := p.Access(3*4800, pat(76800, 128, 1, 4800)); err != nil || a.Straddle != -1 {
		t.Errorf("slice 3: %+v, %v; want inside one piece", a, err)
	}
	if a, err := p.Access(0, pat(76800, 128, 4800, 16, 1, 4800)); err != nil || a.Straddle != 1 || a.Pair != 1 {
		t.Errorf("all slices: %+v, %v; want straddling dim 1 by pair 1", a, err)
	}
	// A row of 76800 elements carries from dim 2 into dim 1: the cut
	// cannot decompose it (whatever the mask).
	if _, err := p.Access(0, pat(76800, 128, 1, 76800)); err == nil {
		t.Errorf("an access carrying across dims decomposed")
	}
	flat, err := PlanCut([]int64{128, 76800}, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := flat.Access(0, pat(76800, 128, 1, 76800)); err != nil || a.Straddle != 1 || a.Pair != 1 {
		t.Errorf("whole [128, 76800]: %+v, %v; want straddling dim 1 by pair 1", a, err)
	}
	if _, err := PlanCut([]int64{4, 4}, []bool{true}); err == nil {
		t.Errorf("a mask of the wrong length was accepted")
	}
}

// pat builds a pattern from step, num pairs.
func pat(sn ...int64) bir.Pattern {
	var p bir.Pattern
	for i := 0; i+1 < len(sn); i += 2 {
		p = append(p, bir.APPair{Step: sn[i], Num: sn[i+1]})
	}
	return p
}

func TestSplittableInst(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.SBUF("x", bir.Float32, 128, 64)
	ps := b.PSUM("ps", bir.Float32, 128, 64)
	cp := b.TensorCopy("cp", bir.EngDVE, x.All(), x.All())
	mm := b.Matmult("mm", ps.All(), x.Tile(0, 128, 0, 64), x.All(), true, true)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if !SplittableInst(b.F, cp) || SplittableInst(b.F, mm) {
		t.Errorf("TensorCopy splittable %t (want true), Matmult %t (want false)", SplittableInst(b.F, cp), SplittableInst(b.F, mm))
	}
}
