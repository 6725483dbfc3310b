package shrink_test

// Benchmarks of shrink_ml (ShrinkDN, shrinkTensor and the final legality
// check) on the 1,000,000-instruction workloads of footprinttest,
// reported per instruction (wall and CPU time). Nothing shrinks on these
// inputs (every access covers its location) and the liveN records are
// rewritten with the same values, so one module serves every iteration.

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passes/sbsize/footprinttest"
	"github.com/narwhal-compiler/narwhal/passes/shrink"
)

func runShrink(m *bir.Module, model *arch.Model) error {
	_, err := shrink.ShrinkML(m, model, shrink.Options{})
	return err
}

func BenchmarkShrinkML_StraightLine1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.StraightLine1M(), 0, runShrink)
}

func BenchmarkShrinkML_TensorAddUnrolled1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.AddUnrolled1M(), 0, runShrink)
}
