package pack

import (
	"math/rand/v2"
	"testing"
	"time"
)

// unrolledKernel builds n buffers shaped like the tiles of a fully unrolled
// kernel: streams of identical tiles (a few tile sizes, one per stream)
// issued one after another with short, staggered lifetimes (double/triple
// buffering: each tile lives 2-4 issue slots), accumulators that live
// across an inner loop of 64 tiles, and a few long-lived weights. Times are
// issue slots. Deterministic for a given n.
func unrolledKernel(n int) []Buffer {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	tileSizes := []int64{2048, 4096, 8192, 16384}
	bufs := make([]Buffer, 0, n)
	slot := int64(0)
	for len(bufs) < n {
		switch k := len(bufs); {
		case k%5000 == 0:
			// A weight that lives for a long stretch.
			bufs = append(bufs, Buffer{ID: int64(k), Lower: slot, Upper: slot + 20000 + rng.Int64N(20000), Size: 65536, Align: 512})
		case k%64 == 1:
			// An accumulator across the next inner loop.
			bufs = append(bufs, Buffer{ID: int64(k), Lower: slot, Upper: slot + 64*3, Size: 2048, Align: 512})
		default:
			stream := k % len(tileSizes)
			bufs = append(bufs, Buffer{ID: int64(k), Lower: slot, Upper: slot + 2 + int64(stream%3), Size: tileSizes[stream], Align: 512})
			if stream == len(tileSizes)-1 {
				slot++
			}
		}
	}
	return bufs
}

// TestBestFit_UnrolledKernel checks that the heuristic path stays close to
// max-live on unrolled-kernel shapes. The times are logged, not asserted
// (no timing thresholds in tests: BenchmarkUnrolledKernel100k measures
// the n log n scaling).
func TestBestFit_UnrolledKernel(t *testing.T) {
	if testing.Short() {
		t.Skip("100k-buffer instance skipped in -short mode")
	}
	timeIt := func(n int) (time.Duration, float64) {
		p := Problem{Buffers: unrolledKernel(n)}
		best := time.Duration(1 << 62)
		var ratio float64
		for rep := 0; rep < 3; rep++ {
			start := time.Now()
			offs, peak, err := BestFit(p)
			best = min(best, time.Since(start))
			if err != nil {
				t.Fatal(err)
			}
			if rep == 0 {
				if err := Verify(Problem{Buffers: p.Buffers, Capacity: peak}, offs); err != nil {
					t.Fatal(err)
				}
			}
			ratio = float64(peak) / float64(MaxLive(p.Buffers))
		}
		return best, ratio
	}
	small, _ := timeIt(25_000)
	large, ratio := timeIt(100_000)
	t.Logf("BestFit: 25k buffers %v, 100k buffers %v (x%.1f), peak/max-live %.3f", small, large, float64(large)/float64(small), ratio)
	if ratio > 1.25 {
		t.Errorf("BestFit peak/max-live %.3f on unrolled-kernel tiles", ratio)
	}
}

// BenchmarkUnrolledKernel100k: the heuristic path on 100,000 buffers.
func BenchmarkUnrolledKernel100k(b *testing.B) {
	p := Problem{Buffers: unrolledKernel(100_000)}
	live := MaxLive(p.Buffers)
	b.Run("BestFit", func(b *testing.B) {
		var peak int64
		for b.Loop() {
			_, peak, _ = BestFit(p)
		}
		b.ReportMetric(float64(peak)/float64(live), "peak/maxlive")
	})
	b.Run("LinearScan", func(b *testing.B) {
		var peak int64
		for b.Loop() {
			_, peak, _ = LinearScan(p)
		}
		b.ReportMetric(float64(peak)/float64(live), "peak/maxlive")
	})
	b.Run("Solve", func(b *testing.B) {
		// Capacity 10% above max-live: the heuristics must fit it alone.
		q := Problem{Buffers: p.Buffers, Capacity: live + live/10}
		var sol *Solution
		for b.Loop() {
			var err error
			if sol, err = Solve(q, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(sol.Peak)/float64(live), "peak/maxlive")
	})
}
