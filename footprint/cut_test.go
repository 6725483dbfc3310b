package footprint

import (
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestGetLargestFactorWithThreshold(t *testing.T) {
	for _, tc := range []struct{ n, want int64 }{
		{128, 16}, {2048, 16}, {100, 10}, {96, 16}, {24, 12}, {12, 12}, {7, 7}, {17, 1}, {34, 2}, {1, 1},
	} {
		got, err := GetLargestFactorWithThreshold(tc.n, MaxFactor)
		if err != nil || got != tc.want {
			t.Errorf("GetLargestFactorWithThreshold(%d, 16) = %d, %v; want %d", tc.n, got, err, tc.want)
		}
		if tc.n%got != 0 || got > MaxFactor {
			t.Errorf("%d pieces for %d", got, tc.n)
		}
	}
	if _, err := GetLargestFactorWithThreshold(64, 0); err == nil || !strings.Contains(err.Error(), "MaxFactor > 0") {
		t.Errorf("MaxFactor 0: %v", err)
	}
	if _, err := GetLargestFactorWithThreshold(0, 16); err == nil {
		t.Errorf("dimension 0 accepted")
	}
}

func TestCut_Map(t *testing.T) {
	// [128, 16, 4800] cut along dim 1: 16 pieces of [128, 1, 4800].
	p, err := NewCut([]int64{128, 16, 4800}, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumPieces != 16 || !slices.Equal(p.PieceSize, []int64{128, 1, 4800}) || !slices.Equal(p.Pieces, []int64{1, 16, 1}) {
		t.Fatalf("plan: %d pieces %v of %v", p.NumPieces, p.Pieces, p.PieceSize)
	}
	if a, err := p.Map(3*4800, pat(76800, 128, 1, 4800)); err != nil || a.Straddle != -1 {
		t.Errorf("slice 3: %+v, %v; want inside one piece", a, err)
	}
	if a, err := p.Map(0, pat(76800, 128, 4800, 16, 1, 4800)); err != nil || a.Straddle != 1 || a.Pair != 1 {
		t.Errorf("all slices: %+v, %v; want straddling dim 1 by pair 1", a, err)
	}
	// A row of 76800 elements carries from dim 2 into dim 1: the cut
	// cannot decompose it (whatever the mask).
	if _, err := p.Map(0, pat(76800, 128, 1, 76800)); err == nil {
		t.Errorf("an access carrying across dims decomposed")
	}
	flat, err := NewCut([]int64{128, 76800}, []bool{false, true})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := flat.Map(0, pat(76800, 128, 1, 76800)); err != nil || a.Straddle != 1 || a.Pair != 1 {
		t.Errorf("whole [128, 76800]: %+v, %v; want straddling dim 1 by pair 1", a, err)
	}
	if _, err := NewCut([]int64{4, 4}, []bool{true}); err == nil {
		t.Errorf("a mask of the wrong length was accepted")
	}
}

func TestElementWise(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.SBUF("x", bir.Float32, 128, 64)
	ps := b.PSUM("ps", bir.Float32, 128, 64)
	cp := b.TensorCopy("cp", bir.EngDVE, x.All(), x.All())
	mm := b.Matmult("mm", ps.All(), x.Tile(0, 128, 0, 64), x.All(), true, true)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if !ElementWise(b.F, cp) || ElementWise(b.F, mm) {
		t.Errorf("TensorCopy splittable %t (want true), Matmult %t (want false)", ElementWise(b.F, cp), ElementWise(b.F, mm))
	}
}
