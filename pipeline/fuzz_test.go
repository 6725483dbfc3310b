package pipeline

import (
	"errors"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/bug"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// FuzzPipeline runs the whole default pipeline (tiling, the DMA passes,
// the unrollers, the footprint passes, the memory planner, performance
// tiling, dependencies, scheduling, synchronization), verified after every
// pass, on mutations of the built-in kernels written as text. The pipeline
// may refuse a module with an error, but never with an internal error (a
// recovered panic or a pass that broke the IR); a module it compiles
// computes what the input computes (bit for bit, or within a bound where
// the tiler splits a matmul's K axis). Inputs whose loops multiply to more
// than 256 iterations are skipped (the interpreter runs both sides).
//
//	go test ./pipeline -run '^$' -fuzz FuzzPipeline -fuzztime 5m -fuzzminimizetime 3s
//
// (5 minutes at -parallel 1: 1.5M executions, 191 new inputs, no failure;
// the default minimization time of 60 s per new input, each execution
// compiling and interpreting twice, makes the progress line stall.)
func FuzzPipeline(f *testing.F) {
	for _, k := range kernels.All() {
		specs := k.TestSpecs()
		if len(specs) == 0 {
			continue
		}
		m, err := kernels.Build(specs[0])
		if err != nil {
			f.Fatal(err)
		}
		if src := bir.Format(m); len(src) <= 1<<15 {
			f.Add([]byte(src))
		}
	}
	model, _ := arch.Lookup("trn2")
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<15 {
			return
		}
		probe, err := bir.Parse("fuzz.bir", src)
		if err != nil || verify.Module(probe, verify.Options{}) != nil || !fewIterations(probe, 256) {
			return
		}
		// The interpreter must run the input (a module it refuses, e.g.
		// over its budget, cannot be compared).
		if _, err := interp.Run(probe, interp.RandomInputs(probe, 1), interp.Options{Macro: true}); err != nil {
			return
		}
		if _, err := Table.Run(probe, pass.Config{VerifyEach: true}); err != nil {
			if errors.Is(err, bug.ErrInternal) {
				t.Fatalf("internal error: %v\ninput:\n%s", err, src)
			}
			return
		}
		m, err := bir.Parse("fuzz.bir", src)
		if err != nil {
			t.Fatalf("reparse: %v", err)
		}
		opts := []passtest.Option{passtest.InterpOptions(interp.Options{Macro: true})}
		if tiling.SplitsK(m, model, tiling.Defaults(model)) {
			opts = append(opts, passtest.Tolerance(1e-3, 1e-3, "a K split reorders an fp32 sum"))
		}
		passtest.Check(t, m, func(m *bir.Module) error {
			_, err := Table.Run(m, pass.Config{VerifyEach: true})
			return err
		}, opts...)
	})
}

// fewIterations reports whether the module's loop axes multiply to at
// most n iterations.
func fewIterations(m *bir.Module, n int64) bool {
	total := int64(1)
	for a := 0; a < m.NumAxes(); a++ {
		tc := m.Axis(affine.Axis(a)).TripCount()
		if tc < 0 || tc > n {
			return false
		}
		if total *= max(tc, 1); total > n {
			return false
		}
	}
	return true
}
