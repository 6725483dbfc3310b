package pack

import (
	"math/rand/v2"
	"testing"
)

// bruteMaxLive evaluates the live total at every instant where a buffer
// starts (the maximum is reached at one of them).
func bruteMaxLive(bufs []Buffer) int64 {
	var best int64
	for _, at := range bufs {
		var live int64
		for _, b := range bufs {
			if b.Upper > b.Lower && b.Size > 0 && b.Lower <= at.Lower && at.Lower < b.Upper {
				live += b.Size
			}
		}
		best = max(best, live)
	}
	return best
}

// TestMaxLive: random intervals (touching ends, empty and zero-size ones
// included) against the brute-force sweep; and MaxLive2D at least the
// classic quadrant bound, computed by the same sweep over expanded sizes.
func TestMaxLive(t *testing.T) {
	tests := []struct {
		name string
		bufs []Buffer
		want int64
	}{
		{"none", nil, 0},
		{"touching ends do not overlap", []Buffer{{Lower: 0, Upper: 5, Size: 3}, {Lower: 5, Upper: 9, Size: 4}}, 4},
		{"overlap", []Buffer{{Lower: 0, Upper: 5, Size: 3}, {Lower: 4, Upper: 9, Size: 4}}, 7},
		{"empty and zero-size ignored", []Buffer{{Lower: 3, Upper: 3, Size: 9}, {Lower: 0, Upper: 9, Size: 0}, {Lower: 1, Upper: 2, Size: 1}}, 1},
	}
	for _, tt := range tests {
		if got := MaxLive(tt.bufs); got != tt.want {
			t.Errorf("%s: MaxLive = %d, want %d", tt.name, got, tt.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 300; round++ {
		n := rng.IntN(40)
		bufs := make([]Buffer, n)
		ts := make([]Tensor, n)
		for i := range bufs {
			lo := rng.Int64N(30)
			bufs[i] = Buffer{Lower: lo, Upper: lo + rng.Int64N(8), Size: rng.Int64N(5)}
			ts[i] = Tensor{Lower: bufs[i].Lower, Upper: bufs[i].Upper, Size: bufs[i].Size, Partitions: 1 + rng.IntN(128)}
		}
		if got, want := MaxLive(bufs), bruteMaxLive(bufs); got != want {
			t.Fatalf("round %d: MaxLive = %d, want %d (%v)", round, got, want, bufs)
		}
		area := make([]Buffer, n)
		var wide []Buffer
		for i, x := range ts {
			area[i] = Buffer{Lower: x.Lower, Upper: x.Upper, Size: x.Size * int64(quadrantsSpanned(x.Partitions))}
			if x.Partitions > 2*QuadrantPartitions {
				wide = append(wide, Buffer{Lower: x.Lower, Upper: x.Upper, Size: x.Size})
			}
		}
		classic := max((bruteMaxLive(area)+numQuadrants-1)/numQuadrants, bruteMaxLive(wide))
		if got := MaxLive2D(ts); got < classic {
			t.Fatalf("round %d: MaxLive2D = %d, below the classic quadrant bound %d", round, got, classic)
		}
	}
}
