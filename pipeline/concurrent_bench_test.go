package pipeline

import (
	"fmt"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
)

// BenchmarkRunConcurrent_Partitions127 is narwhal run --concurrent on
// tensor_add compiled for a machine of 127 partitions (issue 27 item 7:
// the race checker's shadow memory rewrote a storage's whole segment list
// on every access, so 8,199 instructions took 38 s). Sub-benchmarks at
// about 10k, 100k and 1M compiled instructions report ns/inst, flat when
// the checker is linear. The compile is set-up, outside the timing.
func BenchmarkRunConcurrent_Partitions127(b *testing.B) {
	for _, n := range []int64{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			// 16 pieces of 8 partitions per 128-row tile, 4 instructions a piece.
			inst, err := kernels.Instantiate(fmt.Sprintf("tensor_add:rows=%d,cols=8", max(n/64, 1)*128))
			if err != nil {
				b.Fatal(err)
			}
			m := inst.Module
			m.Config.Options["arch.partitions"] = "127"
			if _, err := Table.Run(m, pass.Config{NoVerify: true}); err != nil {
				b.Fatal(err)
			}
			in := inst.Inputs(1)
			insts := m.NumInsts()
			b.ResetTimer()
			t0 := time.Now()
			iters := 0
			for b.Loop() {
				res, err := interp.RunConcurrent(m, in, interp.ConcurrentOptions{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if !res.OK() {
					b.Fatalf("%d races, deadlock %v", res.RacesFound, res.Deadlock)
				}
				iters++
			}
			b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(iters)/float64(insts), "ns/inst")
			b.ReportMetric(float64(insts), "insts")
		})
	}
}

// BenchmarkFullUnroll_Partitions127 is the default pipeline up to and
// including full_unroll on tensor_add for a machine of 127 partitions,
// where FullUnroll's tensorSplit cuts every 128-row tile into 16 pieces
// of 8 partitions and splits the instructions that straddle them (the
// set-up of the two benchmarks above: the cut rebuilt the use index and
// the dependencies per tensor, 69 s at 100k instructions). ns/inst is
// flat when the cut is linear.
func BenchmarkFullUnroll_Partitions127(b *testing.B) {
	var passes []string
	for _, p := range Table.Passes {
		if p.Default && p.Gate == "" && p.Name != "sunda_size_tiling_perf" {
			passes = append(passes, p.Name)
		}
		if p.Name == "full_unroll" {
			break
		}
	}
	for _, n := range []int64{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var insts int64
			var total time.Duration
			for b.Loop() {
				b.StopTimer()
				m, err := kernels.Build(fmt.Sprintf("tensor_add:rows=%d,cols=8", max(n/64, 1)*128))
				if err != nil {
					b.Fatal(err)
				}
				m.Config.Options["arch.partitions"] = "127"
				b.StartTimer()
				t0 := time.Now()
				if _, err := Table.Run(m, pass.Config{Passes: passes, NoVerify: true}); err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
				insts = m.NumInsts()
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N)/float64(insts), "ns/inst")
			b.ReportMetric(float64(insts), "insts")
		})
	}
}
