package unroll

import (
	"errors"
	"strings"
	"testing"
)

// blockNest is a loop of trips iterations over a block tensor that
// declares nblocks blocks; each iteration loads block i and saves it.
func blockNest(loop, nblocks string) string {
	return `module arch=trn2

func @main {
  tensor %x_set: f32[128, 4] kind=Input
    loc %x: Input 128x16
  tensor %z_set: f32[128, 4] kind=Output
    loc %z: Output 128x16
  tensor %t_set: f32[128, 4] class=NeuronSBTensor blocks=` + nblocks + `
    loc %t: SB 128x16

Block1:
  loop_i = Loop i in ` + loop + ` {
  Block_i:
    ld = Load %x_set[block=0, ap=[[4,128],[1,4]]] f32 -> %t_set[block=i, ap=[[4,128],[1,4]]] f32
    st = Save %t_set[block=i, ap=[[4,128],[1,4]]] f32 -> %z_set[block=0, ap=[[4,128],[1,4]]] f32
  }
}
`
}

// A tensor of 2^40 blocks is refused before any location is created, at
// the levels that create per-block locations (0, and 2; level 1 unrolls
// nothing unmarked) and by Unroll's grid.
func TestFullUnroll_BlockCountBeforeLocations(t *testing.T) {
	for _, level := range []int{0, 2} {
		m := parse(t, blockNest("[0, 2)", "1099511627776"))
		locs := m.Main().NumLocs()
		_, err := FullUnroll(m, FullUnrollOptions{Level: level})
		if err == nil || !strings.Contains(err.Error(), "tensor t_set: 1099511627776 blocks") {
			t.Fatalf("level %d: err %v, want the block count refused", level, err)
		}
		if n := m.Main().NumLocs(); n != locs {
			t.Errorf("level %d: %d locations after the failure, want %d: locations were created", level, n, locs)
		}
	}
	m := parse(t, blockNest("[0, 2)", "1099511627776"))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 1}); err != nil {
		t.Errorf("level 1, nothing marked: %v, want nothing done", err)
	}
	m = parse(t, blockNest("[0, 2)", "1099511627776"))
	if _, err := Unroll(m, UnrollOptions{}); err == nil || !strings.Contains(err.Error(), "1099511627776 blocks") {
		t.Errorf("Unroll: err %v, want the block count refused", err)
	}
	// The bound follows the accesses: 100,000 blocks for a loop of
	// 100,000 iterations that touches each are accepted; 11.6M blocks
	// for a loop of two (a fuzzer's find: Unroll's grid built 11.6M
	// tensors, over 4 GiB) are refused, by Unroll too.
	m = parse(t, blockNest("[0, 100000)", "100000"))
	if _, err := checkBlockCount(m.Main(), true); err != nil {
		t.Errorf("100,000 blocks, 100,000 iterations: %v, want accepted", err)
	}
	for _, grid := range []bool{false, true} {
		m = parse(t, blockNest("[0, 2)", "11627776"))
		if _, err := checkBlockCount(m.Main(), grid); err == nil || !strings.Contains(err.Error(), "more than the 65536 narwhal creates") {
			t.Errorf("11627776 blocks, 2 iterations (grid %v): %v, want refused", grid, err)
		}
	}
	m = parse(t, blockNest("[0, 2)", "11627776"))
	if _, err := Unroll(m, UnrollOptions{}); err == nil || !strings.Contains(err.Error(), "11627776 blocks") {
		t.Errorf("Unroll, 11627776 blocks: %v, want refused", err)
	}
}

// The ceiling is checked on the projection before memloc generation: a
// 10^12-iteration nest over a block tensor of 10^7 blocks fails with the
// ceiling, and no location is created.
func TestFullUnroll_CeilingBeforeLocations(t *testing.T) {
	src := strings.Replace(blockNest("[0, 10000000)", "10000000"), "  loop_i = Loop i in [0, 10000000) {\n  Block_i:\n",
		"  loop_j = Loop j in [0, 100000) {\n  Block_j:\n  loop_i = Loop i in [0, 10000000) {\n  Block_i:\n", 1)
	src = strings.Replace(src, "  }\n}\n", "  }\n  }\n}\n", 1)
	m := parse(t, src)
	locs := m.Main().NumLocs()
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	var ce *CeilingError
	if !errors.As(err, &ce) || !ce.Projected {
		t.Fatalf("err %v, want a projected CeilingError", err)
	}
	if n := m.Main().NumLocs(); n != locs {
		t.Errorf("%d locations after the failure, want %d: memloc generation ran before the ceiling", n, locs)
	}
}

// A loop whose value stepping past ub would wrap (lb 0, ub 2^63-1, stride
// 2^62) unrolls to its two iterations, and its projection is 2 per
// instruction, not 2^63-1.
func TestFullUnroll_StrideNearInt64(t *testing.T) {
	src := strings.ReplaceAll(blockNest("[0, 9223372036854775807) step 4611686018427387904", "2"), "block=i", "block=1")
	m := parse(t, src)
	st, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalCount != 4 {
		t.Errorf("total_count %d, want 4 (two iterations of a load and a save)", st.TotalCount)
	}
	m = parse(t, src)
	st, err = Unroll(m, UnrollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalCount != 4 {
		t.Errorf("Unroll: total_count %d, want 4", st.TotalCount)
	}
}
