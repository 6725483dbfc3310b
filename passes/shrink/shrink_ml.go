// Package shrink implements shrink_ml (pass "shrink_ml", order 25, seed
// 004 §3): the footprint shrink that runs after vn_splitter and before the
// allocator. Per function, in the seed's order, shrinkTensor
// (shrink_tensor.go: the set-level (shrinkDim, liveN) record of every
// block tensor, the analysis) then ShrinkDN (shrink_dn.go: every SB/PSUM
// location trimmed to the bytes per partition its accesses reach, the
// transform, which reads the shrink dim: getShrinkDim).
//
// shrink_ml is the last of the allocator-prep footprint passes
// (sb_size_legalization, full_unroll's cut, vn_splitter, shrink_ml), so it
// also checks their common post-condition, and produces
// verify.StageSBLegal: every live SB and PSUM location passes
// is_legal_tensor (footprint.LocLegal: its partitions within the array, its
// elements per partition, rounded up to 8, within the usable SBUF or the
// PSUM per partition). A location that does not is an error naming the
// function, tensor and location, its bytes per partition and the budget.
//
// Pre-conditions: a module the verifier accepts; locations are shrunk only
// where every access is physical (after full_unroll). Post-conditions:
// every trimmed location's accesses address the same elements as before
// (outputs bit-identical), verify.StageSBLegal.
//
// Options: max_liveness_steps bounds shrinkTensor's abstract execution of
// the loop structure (block accesses and loop iterations; beyond it a
// tensor gets no record).
package shrink

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// DefaultMaxLivenessSteps is the default of max_liveness_steps.
const DefaultMaxLivenessSteps = 1 << 24

// Options configure shrink_ml.
type Options struct {
	MaxLivenessSteps int64
	Logf             func(format string, args ...any)
	// OnFunction, when set, is called with a function's name as the pass
	// starts working on that function, and with "" before the module-wide
	// fit check. The pass table entry sets it to pass.Context.Function, so
	// that a panic is reported against the function it happened in.
	OnFunction func(name string)
}

// Stats are shrink_ml's results.
type Stats struct {
	Examined     int   // SB/PSUM locations examined by ShrinkDN
	Skipped      int   // left as declared (reinterpret casts, non-contiguous accesses, ...)
	Shrunk       int   // locations trimmed
	BytesSaved   int64 // bytes (all partitions) the trim saved
	SetsRecorded int   // block tensors given a (shrinkDim, liveN) record
	SetsShrunk   int   // of those, with liveN below their block count
}

// ErrorCode is diag.DoesNotFit.
func (e *IllegalError) ErrorCode() string { return diag.DoesNotFit }

// IllegalError lists the SB/PSUM locations that fail is_legal_tensor after
// the footprint passes.
type IllegalError struct {
	Locations []footprint.IllegalLocation
}

// ErrorSubject is the first illegal location (its function and ID): the
// position the pass manager reports.
func (e *IllegalError) ErrorSubject() *bir.Subject {
	if len(e.Locations) == 0 {
		return nil
	}
	l := e.Locations[0]
	return &bir.Subject{Func: l.Function, Inst: bir.NoInst, Tensor: bir.NoTensor, Loc: l.LocID}
}

func (e *IllegalError) Error() string {
	parts := make([]string, len(e.Locations))
	for i, l := range e.Locations {
		parts[i] = l.String()
	}
	return fmt.Sprintf("%d SB/PSUM location(s) do not fit after the footprint passes: %s", len(e.Locations), strings.Join(parts, "; "))
}

// ShrinkML runs shrink_ml on m and checks that every SB/PSUM location of
// m passes is_legal_tensor on model.
func ShrinkML(m *bir.Module, model *arch.Model, opt Options) (Stats, error) {
	var st Stats
	if opt.MaxLivenessSteps <= 0 {
		opt.MaxLivenessSteps = DefaultMaxLivenessSteps
	}
	for _, f := range m.Funcs {
		if opt.OnFunction != nil {
			opt.OnFunction(f.Name)
		}
		// The seed's order: shrinkTensor records (shrinkDim, liveN), then
		// ShrinkDN reads the shrink dim (getShrinkDim) as it trims.
		shrinkTensor(f, opt.MaxLivenessSteps, &st, opt.Logf)
		s := &shrinkDN{f: f, m: m, st: &st, log: opt.Logf}
		s.run()
	}
	if opt.OnFunction != nil {
		opt.OnFunction("")
	}
	if opt.Logf != nil {
		opt.Logf("INFO (ShrinkDN): %d of %d SB/PSUM locations shrunk (%d bytes saved), %d left as declared; shrinkTensor: %d block tensors recorded, %d with liveN below their blocks",
			st.Shrunk, st.Examined, st.BytesSaved, st.Skipped, st.SetsRecorded, st.SetsShrunk)
	}
	geo, err := footprint.GeometryFor(model)
	if err != nil {
		return st, fmt.Errorf("shrink_ml: %w", err)
	}
	if bad := geo.IllegalLocations(m); len(bad) > 0 {
		return st, &IllegalError{Locations: bad}
	}
	return st, nil
}

// ShrinkMLPass is the "shrink_ml" pass (order 25). Run it after
// vn_splitter (each _VN_ piece is trimmed on its own) and before the
// allocator, which needs verify.StageSBLegal.
var ShrinkMLPass = pass.Pass{
	Name:     "shrink_ml",
	Order:    25,
	Default:  true,
	Produces: verify.StageSBLegal,
	Options: []pass.Option{
		{Name: "max_liveness_steps", Default: fmt.Sprint(DefaultMaxLivenessSteps), Doc: "block accesses and loop iterations shrinkTensor may execute to count live blocks (beyond: no record)"},
	},
	Doc: "shrink_ml: ShrinkDN trims SB/PSUM locations to their live extent, shrinkTensor records (shrinkDim, liveN); checks every location fits (seed 004)",
	Run: runShrinkML,
}

func runShrinkML(ctx *pass.Context) error {
	steps, err := ctx.IntOption("max_liveness_steps")
	if err != nil {
		return err
	}
	st, err := ShrinkML(ctx.Module, ctx.Arch, Options{MaxLivenessSteps: steps, Logf: ctx.Logf, OnFunction: ctx.Function})
	// A returned error keeps its own wording (it names its locations'
	// functions); only a panic, which skips this line, is reported against
	// the function recorded by OnFunction.
	ctx.Function("")
	add := func(name string, v int64) {
		if v != 0 {
			ctx.Count(name, v)
		}
	}
	add("ShrinkDN.shrunk", int64(st.Shrunk))
	add("ShrinkDN.bytes_saved", st.BytesSaved)
	add("ShrinkDN.skipped", int64(st.Skipped))
	add("shrinkTensor.recorded", int64(st.SetsRecorded))
	add("shrinkTensor.shrunk", int64(st.SetsShrunk))
	return err
}
