package sbsize_test

// Benchmarks of sb_size_legalization on the 1,000,000-instruction
// workloads of footprinttest, reported per instruction (wall and CPU
// time). TensorAddLoops1M is the loop as built, per unrolled instruction
// (shrink_tensor executes every block access abstractly). The pass is
// idempotent on these inputs (nothing is oversized; the liveN records are
// rewritten with the same values), so one module serves every iteration.

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/sbsize/footprinttest"
)

func runSB(m *bir.Module, model *arch.Model) error {
	_, err := sbsize.SBSizeLegalization(m, model, sbsize.Options{})
	return err
}

func BenchmarkSBSizeLegalization_StraightLine1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.StraightLine1M(), 0, runSB)
}

func BenchmarkSBSizeLegalization_TensorAddLoops1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.AddLoops1M(), footprinttest.Bench1M, runSB)
}

func BenchmarkSBSizeLegalization_TensorAddUnrolled1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.AddUnrolled1M(), 0, runSB)
}
