package alloc

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
)

// TestModel_ByStart: fixed locations first, then by interval start, each
// location once.
func TestModel_ByStart(t *testing.T) {
	m := &model{n: 10,
		flags: []uint8{lfUsed, 0, lfFixed, lfUsed, lfUsed | lfMatmulDst, lfFixed},
		lo:    []int32{7, 0, 0, 2, 0, 0},
	}
	got := m.byStart()
	want := []int32{2, 5, 4, 3, 0}
	if len(got) != len(want) {
		t.Fatalf("byStart = %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("byStart = %v, want %v", got, want)
		}
	}
}

// TestAllocationDecision_MatmulAccLoop: in the matmul kernel's loop nest
// (m, n, k), the PSUM accumulator started at k == 0 and stopped at
// k == KT-1 is not local to the K loop but to the loop around it
// (checkMatmultAccLoop); a tile loaded and consumed in each K iteration
// is local to the K loop; the result tile copied out after the K loop is
// local to n; every local's interval is its loop's range.
func TestAllocationDecision_MatmulAccLoop(t *testing.T) {
	m, err := kernels.Build("matmul:m=256,k=384,n=1024,tile_n=512")
	if err != nil {
		t.Fatal(err)
	}
	a, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := InferPSumTensor(m, a, InferOptions{ActToPSUM: true}, nil); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	md := newModel(f)
	md.intervals()
	loopOf := func(name string) bir.InstID {
		i, ok := f.InstByName(name)
		if !ok {
			t.Fatalf("no loop %s", name)
		}
		return i
	}
	tests := []struct{ loc, loop string }{
		{"res_psum", "loop_n"},
		{"lhsT_tile", "loop_k"},
		{"rhs_tile", "loop_k"},
		{"res_sb", "loop_n"},
	}
	for _, tc := range tests {
		l, ok := f.LocByName(tc.loc)
		if !ok {
			t.Fatalf("no location %s", tc.loc)
		}
		L := loopOf(tc.loop)
		if md.scope[l] != L {
			got := "top level"
			if md.scope[l] != bir.NoInst {
				got = f.InstName(md.scope[l])
			}
			t.Errorf("%s is local to %s, want %s", tc.loc, got, tc.loop)
			continue
		}
		if lo, hi := md.loopRange(L); md.lo[l] != lo || md.hi[l] != hi {
			t.Errorf("%s: interval [%d, %d], want %s's range [%d, %d]", tc.loc, md.lo[l], md.hi[l], tc.loop, lo, hi)
		}
	}
}
