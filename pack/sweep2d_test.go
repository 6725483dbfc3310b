package pack

import (
	"math/rand/v2"
	"testing"
)

// TestSweep2D_Valid: on random SBUF and PSUM problems (fixed tensors,
// alignment, every partition count class), both policies give a valid
// placement (Verify2D, and the independent check2D), and the reported
// max-live is MaxLive2D.
func TestSweep2D_Valid(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 300; trial++ {
		bank := int64(0)
		if trial%3 == 0 {
			bank = 2048
		}
		n := 1 + rng.IntN(60)
		p := Problem2D{Capacity: 1 << 40, BankSize: bank}
		for i := 0; i < n; i++ {
			lo := rng.Int64N(50)
			tn := Tensor{ID: int64(i), Lower: lo, Upper: lo + 1 + rng.Int64N(15), Partitions: []int{1, 16, 32, 33, 64, 65, 128}[rng.IntN(7)],
				Size: rng.Int64N(3000), Align: []int64{0, 1, 4, 64}[rng.IntN(4)]}
			if bank > 0 && rng.IntN(4) == 0 {
				tn.Size, tn.Align = bank*int64(1+rng.IntN(2)), bank
			}
			if rng.IntN(10) == 0 {
				st := QuadrantStarts(tn.Partitions)
				off := int64(rng.IntN(8)) * 8192
				tn.Fixed = &Placement2D{StartPartition: st[rng.IntN(len(st))], Offset: off}
				tn.Align = 0
			}
			p.Tensors = append(p.Tensors, tn)
		}
		// Fixed tensors must not collide with each other.
		fixedOnly := Problem2D{Capacity: p.Capacity, BankSize: bank}
		var fpl []Placement2D
		for _, tn := range p.Tensors {
			if tn.Fixed != nil {
				fixedOnly.Tensors = append(fixedOnly.Tensors, tn)
				fpl = append(fpl, *tn.Fixed)
			}
		}
		if Verify2D(fixedOnly, fpl) != nil {
			continue
		}
		for _, pol := range []ReusePolicy{ReuseOldestFreed, ReuseBestFit} {
			res, err := Sweep2D(p, pol)
			if err != nil {
				t.Fatalf("trial %d %v: %v", trial, pol, err)
			}
			if err := Verify2D(p, res.Placements); err != nil {
				t.Fatalf("trial %d %v: %v", trial, pol, err)
			}
			check2D(t, p, res.Placements)
			if res.MaxLive != MaxLive2D(p.Tensors) {
				t.Fatalf("trial %d %v: max-live %d, want %d", trial, pol, res.MaxLive, MaxLive2D(p.Tensors))
			}
			if res.Peak != Peak2D(p.Tensors, res.Placements) || res.Peak < res.MaxLive-64*int64(n) && bank == 0 {
				t.Fatalf("trial %d %v: peak %d, max-live %d", trial, pol, res.Peak, res.MaxLive)
			}
		}
	}
}

// TestSweep2D_Policies: the policies choose differently where both fit.
// Tiles a, b, c live in turn with a hole between: best-fit reuses the
// hole freed last (the smallest region, here the one just freed), the
// oldest-freed policy takes the region freed first.
func TestSweep2D_Policies(t *testing.T) {
	// a [0,10) and b [0,10) fill two 100-byte slots; a ends at 2, b at 4;
	// c [5,10) fits in either slot: oldest-freed takes a's (freed at 2),
	// best-fit, with equal regions, the lower one (also a's). Make b's
	// region smaller to separate them: b is 60 bytes, c 50.
	p := Problem2D{Capacity: 1000, Tensors: []Tensor{
		{ID: 0, Lower: 0, Upper: 2, Partitions: 128, Size: 100},  // a at 0
		{ID: 1, Lower: 0, Upper: 4, Partitions: 128, Size: 60},   // b at 100
		{ID: 2, Lower: 0, Upper: 10, Partitions: 128, Size: 100}, // d at 160, keeps the peak at 260
		{ID: 3, Lower: 5, Upper: 10, Partitions: 128, Size: 50},  // c
	}}
	old, _ := Sweep2D(p, ReuseOldestFreed)
	bf, _ := Sweep2D(p, ReuseBestFit)
	// Regions free at 5: [0,160) (a freed at 2, b freed at 4) is one
	// region of 160 bytes; its first 50 bytes were a's, freed at 2.
	if old.Placements[3].Offset != 0 {
		t.Errorf("oldest-freed placed c at %d, want 0 (a's bytes, freed first)", old.Placements[3].Offset)
	}
	if bf.Placements[3].Offset != 0 {
		t.Errorf("best-fit placed c at %d, want 0 (the lowest of the only region)", bf.Placements[3].Offset)
	}
	// Two separate holes: e [0,10) at 100 splits them: a hole of 100
	// freed at 2 and a hole of 60 freed at 4. best-fit takes the small
	// one, oldest-freed the one freed first.
	p = Problem2D{Capacity: 1000, Tensors: []Tensor{
		{ID: 0, Lower: 0, Upper: 2, Partitions: 128, Size: 100},  // a at 0
		{ID: 1, Lower: 0, Upper: 10, Partitions: 128, Size: 10},  // e at 100
		{ID: 2, Lower: 0, Upper: 4, Partitions: 128, Size: 60},   // b at 110
		{ID: 3, Lower: 0, Upper: 10, Partitions: 128, Size: 100}, // d at 170
		{ID: 4, Lower: 5, Upper: 10, Partitions: 128, Size: 50},  // c
	}}
	old, _ = Sweep2D(p, ReuseOldestFreed)
	bf, _ = Sweep2D(p, ReuseBestFit)
	if got := old.Placements[4].Offset; got != 0 {
		t.Errorf("oldest-freed placed c at %d, want 0 (freed at 2)", got)
	}
	if got := bf.Placements[4].Offset; got != 110 {
		t.Errorf("best-fit placed c at %d, want 110 (the 60-byte hole)", got)
	}
	for _, r := range []*SweepResult{old, bf} {
		if err := Verify2D(p, r.Placements); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMaxLive2D_Bound: the bound never exceeds the peak of a valid
// placement (random problems, both sweep policies and Solve2D), and it is
// tight where a 64-partition tensor's free quadrants cannot hold the
// 128-partition ones beside it (the classic area bound is not).
func TestMaxLive2D_Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		var ts []Tensor
		for i := 0; i < 1+rng.IntN(25); i++ {
			lo := rng.Int64N(20)
			ts = append(ts, Tensor{Lower: lo, Upper: lo + 1 + rng.Int64N(8), Partitions: []int{8, 32, 48, 64, 80, 96, 100, 128}[rng.IntN(8)], Size: 1 + rng.Int64N(500)})
		}
		lb := MaxLive2D(ts)
		for _, pol := range []ReusePolicy{ReuseOldestFreed, ReuseBestFit} {
			r, err := Sweep2D(Problem2D{Tensors: ts, Capacity: 1 << 40}, pol)
			if err != nil {
				t.Fatal(err)
			}
			if r.Peak < lb {
				t.Fatalf("trial %d: sweep peak %d below the bound %d", trial, r.Peak, lb)
			}
		}
		if sol, err := Solve2D(Problem2D{Tensors: ts, Capacity: lb}, Options{NodeLimit: 20000}); err == nil && sol.Peak < lb {
			t.Fatalf("trial %d: exact peak %d below the bound %d", trial, sol.Peak, lb)
		}
	}
	ts := []Tensor{
		{Lower: 0, Upper: 4, Partitions: 64, Size: 1024},
		{Lower: 0, Upper: 4, Partitions: 128, Size: 1024},
		{Lower: 1, Upper: 3, Partitions: 128, Size: 512},
	}
	if got := MaxLive2D(ts); got != 2560 {
		t.Fatalf("MaxLive2D = %d, want 2560 (the 64-partition tile above the 128-partition ones)", got)
	}
}
