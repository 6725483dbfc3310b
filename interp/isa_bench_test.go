package interp

// Benchmarks of the NKI ISA instructions of ops_isa.go: each module loads
// [128, 512] fp32 tiles, runs the instruction isaBenchReps times and
// stores the result; the metric is ns per element of the instruction's
// data input (a scan and a tensor_tensor read P*F and write P*F; a
// partition reduce reads P*F and writes F; max8 reads P*F and writes P*8;
// the nc_match_replace8 entry is a max8 and the replace, per element of
// data), the loads and the store amortised over the repetitions.
//
//	go test ./interp -run '^$' -bench BenchmarkInterp_ISA

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

const isaBenchReps = 16

// isaBench builds x, y [P, F] (and s [P, 1]) -> z [zp, F] with body run
// isaBenchReps times, and reports ns per element of the [P, F] data input.
func isaBench(b *testing.B, P, F, zp int64, body func(bb *bir.Builder, a, c, s, d bir.T)) {
	m := bir.NewModule("trn2")
	bb := bir.NewBuilder(m, "main")
	x := bb.Input("x", bir.Float32, P, F)
	y := bb.Input("y", bir.Float32, P, F)
	sIn := bb.Input("s", bir.Float32, P, 1)
	z := bb.Output("z", bir.Float32, zp, F)
	a, c := bb.SBUF("a", bir.Float32, P, F), bb.SBUF("c", bir.Float32, P, F)
	s, d := bb.SBUF("sc", bir.Float32, P, 1), bb.SBUF("d", bir.Float32, zp, F)
	bb.Load("ldx", a.All(), x.All())
	bb.Load("ldy", c.All(), y.All())
	bb.Load("lds", s.All(), sIn.All())
	bb.Memset("init", bir.EngDVE, d.All(), 0) // for bodies that write part of d
	for r := 0; r < isaBenchReps; r++ {
		body(bb, a, c, s, d)
	}
	bb.Save("st", z.All(), d.All())
	if err := bb.Err(); err != nil {
		b.Fatal(err)
	}
	in := RandomInputs(m, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Run(m, in, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	elems := float64(b.N) * isaBenchReps * float64(P*F)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/elems, "ns/elem")
}

func BenchmarkInterp_ISA(b *testing.B) {
	const P, F = 128, 512
	b.Run("tensor_tensor_scan", func(b *testing.B) {
		isaBench(b, P, F, P, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.TensorTensorScan("scan", d.All(), a.All(), c.All(), s.All(), "mult", "add", false, false)
		})
	})
	b.Run("tensor_partition_reduce", func(b *testing.B) {
		isaBench(b, P, F, 1, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.TensorPartitionReduce("pr", "add", d.All(), a.All())
		})
	})
	b.Run("scalar_tensor_tensor", func(b *testing.B) {
		isaBench(b, P, F, P, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.ScalarTensorTensor("stt", d.All(), a.All(), s.All(), c.All(), "subtract", "mult", false, false)
		})
	})
	b.Run("max8", func(b *testing.B) {
		isaBench(b, P, F, P, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.Max8("max8", d.Tile(0, P, 0, 8), a.All())
		})
	})
	b.Run("nc_match_replace8", func(b *testing.B) {
		isaBench(b, P, F, P, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.Max8("max8", d.Tile(0, P, 0, 8), a.All())
			bb.MatchReplace8("mr", c.All(), a.All(), d.Tile(0, P, 0, 8), -1e9, bir.Operand{})
		})
	})
	// The plain tensor_tensor, for scale.
	b.Run("tensor_tensor", func(b *testing.B) {
		isaBench(b, P, F, P, func(bb *bir.Builder, a, c, s, d bir.T) {
			bb.TensorTensor("tt", bir.EngDVE, "add", d.All(), a.All(), c.All())
		})
	})
}
