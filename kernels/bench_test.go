package kernels

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/interp"
)

// BenchmarkLibrary_Build measures building each kernel at its default
// size (reported per module, with its pre-unroll instruction count).
func BenchmarkLibrary_Build(b *testing.B) {
	for _, k := range All() {
		b.Run(k.Name, func(b *testing.B) {
			var insts int64
			for b.Loop() {
				inst, err := Instantiate(k.Name)
				if err != nil {
					b.Fatal(err)
				}
				insts = inst.Module.NumInsts()
			}
			b.ReportMetric(float64(insts), "insts")
		})
	}
}

// BenchmarkLibrary_Interp measures one interpreter run of each test
// instance (what every passtest.ForEachKernel check pays twice), and the
// reference implementation for comparison.
func BenchmarkLibrary_Interp(b *testing.B) {
	for _, k := range All() {
		for _, spec := range k.TestSpecs() {
			inst, err := Instantiate(spec)
			if err != nil {
				b.Fatal(err)
			}
			in := inst.Inputs(1)
			b.Run(spec+"/interp", func(b *testing.B) {
				for b.Loop() {
					if _, err := interp.Run(inst.Module, in, interp.Options{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(spec+"/reference", func(b *testing.B) {
				for b.Loop() {
					if _, _, err := inst.Expected(in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
