package vnsplit_test

// Benchmarks of vn_splitter (split and fold) on the 1,000,000-instruction
// workloads of footprinttest, reported per instruction (wall and CPU
// time). Nothing splits or folds on these inputs (every location's
// accesses cover all its partitions; there are no copies), so one module
// serves every iteration.

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passes/sbsize/footprinttest"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
)

func runVN(m *bir.Module, model *arch.Model) error {
	_, err := vnsplit.VNSplitter(m, model, vnsplit.DefaultOptions())
	return err
}

func BenchmarkVNSplitter_StraightLine1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.StraightLine1M(), 0, runVN)
}

func BenchmarkVNSplitter_TensorAddUnrolled1M(b *testing.B) {
	footprinttest.Bench(b, footprinttest.AddUnrolled1M(), 0, runVN)
}
