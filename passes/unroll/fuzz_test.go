package unroll

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/bug"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/verify"
)

// FuzzUnrollers runs every unroller (unroll, full_unroll at levels 0, 1
// and 2, heuristic_unroll then level 1) on mutations of the golden inputs
// that parse and verify. A pass may refuse a module with an error, but it
// must not hit an internal error (a recovered panic), and when it succeeds
// the result must verify and compute the same outputs on the same inputs.
// Modules whose trip counts multiply to more than 64 are skipped (the
// interpreter runs both sides of every unroller).
func FuzzUnrollers(f *testing.F) {
	addGoldenSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 8192 {
			return
		}
		m, err := bir.Parse("fuzz.bir", src)
		if err != nil || verify.Module(m, verify.Options{}) != nil || !smallLoops(m) {
			return
		}
		before, err := interp.Run(m, interp.RandomInputs(m, 1), interp.Options{})
		if err != nil {
			return
		}
		for _, step := range []struct {
			name  string
			run   func(m *bir.Module) error
			stage verify.Stage
		}{
			{"unroll", func(m *bir.Module) error { _, err := Unroll(m, UnrollOptions{}); return err }, 0},
			{"full_unroll level 0", func(m *bir.Module) error { _, err := FullUnroll(m, FullUnrollOptions{Level: 0}); return err }, 0},
			{"full_unroll level 1", func(m *bir.Module) error { _, err := FullUnroll(m, FullUnrollOptions{Level: 1}); return err }, 0},
			{"full_unroll level 2", func(m *bir.Module) error { _, err := FullUnroll(m, FullUnrollOptions{Level: 2}); return err }, verify.StageUnrolled},
			{"heuristic_unroll + level 1", func(m *bir.Module) error {
				if _, err := HeuristicUnroll(m, HeuristicOptions{Enabled: true}); err != nil {
					return err
				}
				_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
				return err
			}, 0},
		} {
			m, err := bir.Parse("fuzz.bir", src)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if err := step.run(m); err != nil {
				if strings.Contains(err.Error(), "internal error") {
					t.Fatalf("%s: %v\ninput:\n%s", step.name, err, src)
				}
				continue
			}
			if err := verify.Module(m, verify.Options{Stage: step.stage}); err != nil {
				t.Fatalf("%s: the result does not verify: %v\ninput:\n%s", step.name, err, src)
			}
			after, err := interp.Run(m, interp.RandomInputs(m, 1), interp.Options{})
			if err != nil {
				t.Fatalf("%s: the result does not run: %v\ninput:\n%s", step.name, err, src)
			}
			for name, x := range before {
				if y, ok := after[name]; !ok || !bytes.Equal(x.Data, y.Data) {
					t.Fatalf("%s: output %s changed\ninput:\n%s", step.name, name, src)
				}
			}
		}
	})
}

// smallLoops reports whether the product of all trip counts of m is at
// most 64 (a bound on the iterations of any loop nest).
func smallLoops(m *bir.Module) bool {
	n := int64(1)
	for a := 0; a < m.NumAxes(); a++ {
		tc := m.Axis(affine.Axis(a)).TripCount()
		if tc < 0 || tc > 64 {
			return false
		}
		if n *= max(tc, 1); n > 64 {
			return false
		}
	}
	return true
}

// FuzzUnrollers_Limits runs every unroller on mutations of hostile
// modules (2^40 blocks, a stride that wraps int64, 10^12-iteration nests,
// a loop predicated on one iteration of 10^12, a dead nest) and of the
// golden inputs, without FuzzUnrollers' small-loop filter: the limits
// (the 25M ceiling on the projection, the block-count bound, the
// expansion-work bound, Unroll's budget) must refuse what they bound with
// an error, never a recovered panic. Modules whose trip counts multiply
// to between 10^4 and 10^9 are skipped: they are legal unrolls of up to
// 25M instructions (seconds and GiBs each), not limit cases.
func FuzzUnrollers_Limits(f *testing.F) {
	for _, src := range []string{
		blockNest("[0, 2)", "1099511627776"),
		blockNest("[0, 9223372036854775807) step 4611686018427387904", "2"),
		bigNest("1000000", "1000000"),
		bigNest("1000000000000", "1"),
		loopHeader + "\nBlock1:\n  loop_a = Loop a in [0, 1000000000000) {\n  Block_a:\n    st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32 if (a == 0)\n  }\n}\n",
		loopHeader + "\nBlock1:\n  loop_a = Loop a in [0, 1000000) {\n  Block_a:\n    loop_b = Loop b in [0, 1000000) {\n    Block_b:\n      ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32\n    }\n  }\n  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32\n}\n",
	} {
		f.Add([]byte(src))
	}
	addGoldenSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 8192 {
			return
		}
		m, err := bir.Parse("fuzz.bir", src)
		if err != nil || verify.Module(m, verify.Options{}) != nil {
			return
		}
		p := int64(1)
		for a := 0; a < m.NumAxes(); a++ {
			p = checked.SatMul(p, max(m.Axis(affine.Axis(a)).TripCount(), 1))
		}
		if p > 10_000 && p < 1_000_000_000 {
			return
		}
		for _, run := range []func(m *bir.Module) error{
			func(m *bir.Module) error { _, err := Unroll(m, UnrollOptions{}); return err },
			func(m *bir.Module) error { _, err := FullUnroll(m, FullUnrollOptions{Level: 0}); return err },
			func(m *bir.Module) error { _, err := FullUnroll(m, FullUnrollOptions{Level: 2}); return err },
		} {
			m, err := bir.Parse("fuzz.bir", src)
			if err != nil {
				t.Fatalf("reparse: %v", err)
			}
			if err := run(m); errors.Is(err, bug.ErrInternal) {
				t.Fatalf("%v\ninput:\n%s", err, src)
			}
		}
	})
}

// addGoldenSeeds adds the golden inputs to a fuzz target's seed corpus.
func addGoldenSeeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.bir"))
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
}
