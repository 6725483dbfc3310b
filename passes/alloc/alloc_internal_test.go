package alloc

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
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
	_ = bir.NoLoc
}
