// Package sbsize implements SBSizeLegalization (pass
// "sb_size_legalization", seed 000): the pre-allocator pass that makes
// oversized on-chip tensors fit the SBUF/PSUM geometry — by recording how
// few of a block tensor's blocks are live at once, by marking which dims
// of a tensor FullUnroll must cut, and, when a tensor is still accessed
// inside loops, by forcing those loops to be unrolled so that the cut can
// apply.
//
//	SBSizeLegalization_run:
//	  gate on ArchLevel: 10 special (full path), <= 19 no-op (flag and one
//	    log record), > 19 full
//	  flatten              per function: program-order index per instruction
//	                       (computed when a tensor of the function is illegal)
//	  shrink_tensor        per block tensor: liveN = nBlocks / shrink factor,
//	                       setLiveN, setShrinkDim (shrink_tensor.go)
//	  pick_unroll_loop     is a tensor still illegal and reached from a loop
//	                       that is not marked for unrolling? (force_unroll.go)
//	    no  -> set_splitShape; profile_sb_legalization
//	    yes -> force_unroll_update until it returns 0; set_splitShape; profile
//
// The pass never clones a tensor: set_splitShape (split_shape.go) writes
// Tensor.SplitShape, a bool per dim, and FullUnroll::tensorSplit
// (passes/unroll/split.go) performs the cut — the split lives in exactly
// one place. set_splitShape asks the unroller's own geometry
// (footprint.Cut, shared with the unroller) what a mask would do, so it
// only marks cuts the
// unroller can perform.
//
// Pre-conditions: a module the verifier accepts (any stage; the pass is
// meant to run before full_unroll). Post-conditions: every SB/PSUM tensor
// either passes is_legal_tensor (legality.go), or carries a splitShape
// whose cut makes every piece pass it (and, when it is accessed inside
// loops, those loops are marked for FullUnroll), or is left to vn_splitter
// (its accesses fall into groups of disjoint partitions that fit) or to
// shrink_ml (its accesses reach few enough bytes per partition); any other
// oversized tensor is an error naming the tensor and its bytes per
// partition against the budget. The pass establishes no verifier stage:
// the locations only fit once full_unroll has cut them (shrink_ml, the
// last of the footprint passes, produces verify.StageSBLegal).
//
// Decisions where the seed is silent:
//
//   - flatten: the seed numbers every instruction in program order so that
//     the later phases can reason across nested loop bodies. narwhal's use
//     index is already in program order within one location and within one
//     tensor's symbolic accesses, and its loop nests are explicit
//     (Function.Loopnest), so the numbering (footprint.Flatten) has one job
//     here: an illegal tensor's accesses, gathered location by location and
//     then tensor-level, are merged into program order (accesses.go). The
//     access a reject message names ("instruction X reinterprets it", "...
//     would straddle pieces"), the group vn_splitter's prediction reports
//     and the order of the "(unroll)" lines are then the first in program
//     order, as in vn_splitter's and shrink_ml's messages. It is computed
//     only for a function with an illegal tensor (one int32 per
//     instruction).
//   - "Bump an unroll factor" (force_unroll_update): narwhal's FullUnroll
//     unrolls a loop completely or not at all (seed 003: "there is no
//     fractional partial-peel"), so the unit of forcing is a loop: the pass
//     marks it with the instruction attribute heuristic_unroll = true, which
//     FullUnroll level 1 honours (level 2 unrolls everything anyway). Each
//     round marks, for every access of every tensor that still needs it,
//     the innermost enclosing static loop not yet marked; an access's unroll
//     factor is the product of the trip counts of its marked enclosing
//     loops, and the log's "from"/"to" are a tensor's largest factor before
//     and after the round. The loop marked first is the one that moves
//     the access along the tensor's shrink dim, when one does
//     (getShrinkDim: the seed's force_unroll_update reads shrink_tensor's
//     record, "from = getShrinkDim(...) / current unroll factor"; a block
//     tensor's blocks stack along its shrink dim, so its block loop comes
//     first; force_unroll.go), else the innermost. A symbolic access
//     outside every loop is forced by marking its function need_unroll. The fixpoint stops when every
//     access of every such tensor has all its enclosing loops marked (the
//     cut applies only to accesses FullUnroll has made physical); a tensor
//     accessed inside a DynamicForLoop or DoWhile cannot be forced and is
//     reported.
//   - What counts as illegal: a tensor is illegal when one of its live SB
//     or PSUM locations fails LocLegal or its partition dim exceeds the
//     partitions; that is what FullUnroll's cut, vn_splitter and shrink_ml
//     can repair. How it is repaired is decided per tensor
//     (split_shape.go): a splitShape mask whose pieces are legal and that
//     no access straddles; else vn_splitter's partition groups when
//     vn_splitter will certainly split them; else a mask whose cut also
//     splits instructions; else shrink_ml's trimmed extent when shrink_ml
//     will certainly trim it. The accesses are evaluated at every
//     iteration of their loops, per location FullUnroll will make.
//   - The later passes: the plan reads, from the run it is part of,
//     whether full_unroll (and at which unrollLevel), vn_splitter and
//     shrink_ml run, and vn_splitter's options (pass.Context.PeerOption,
//     parsed by footprint.ParseVNOptions as vn_splitter parses them), so
//     nothing is left to a pass that does not run or, as configured,
//     would refuse it. Called directly (Options.Later nil), the default
//     pipeline is assumed (DefaultLater).
//   - MX data: vn_splitter and shrink_ml keep MX (block-scaled) locations
//     as declared (seed 004's isMx pre-filter, footprint.IsMx), so the plan never
//     leaves an MX tensor to them (their prediction, layouts in
//     split_shape.go, applies the same rule). The cut is FullUnroll's;
//     seeds 000 and 003 give it no MX rule, and the pass still marks one.
//   - The no-op flag (the seed's store at Module+0x28) is the module
//     attribute sb_size_legalization_skipped = true.
//   - Counters: backend::CanSplitSbNodesCount counts the illegal SB/PSUM
//     tensors a cut can legalize, backend::TotalSplitSbNodesCount the
//     tensors marked, backend::ShrunkNodesCount the block tensors whose
//     liveN is below their block count (the seed registers the names but
//     increments them elsewhere; narwhal counts them here, where the
//     decisions are taken).
//   - The statistic block: "Total trip count unrolled" sums the trip
//     counts of the loops this pass forced; "Number of memory location
//     split" counts the tensors marked; "Number of sub memory location
//     created due to unroll" is the pieces FullUnroll will create (pieces
//     per location times the tensor's blocks); "Total size of memory
//     location split" the bytes of the marked tensors (all blocks); "Total
//     number of illegal memory locations" the SB/PSUM locations that
//     nothing in the pipeline will legalize, with their percentage of all
//     SB/PSUM locations.
package sbsize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
)

// Counter names (seed 000's MetricStore registry).
const (
	CounterCanSplit   = "backend::CanSplitSbNodesCount"
	CounterShrunk     = "backend::ShrunkNodesCount"
	CounterTotalSplit = "backend::TotalSplitSbNodesCount"
)

// narwhal's counters of the plan (reported when not 0): force_unroll_update
// rounds, loops marked for FullUnroll, tensors left to vn_splitter and to
// shrink_ml.
const (
	CounterForceRounds  = "sb_size_legalization.force_rounds"
	CounterLoopsForced  = "sb_size_legalization.loops_forced"
	CounterLeftToVN     = "sb_size_legalization.left_to_vn_splitter"
	CounterLeftToShrink = "sb_size_legalization.left_to_shrink_ml"
)

// ReportTitle is the title of the statistic block.
const ReportTitle = "SB Legalization Statistic:"

// The statistic block's line labels, verbatim from the seed.
const (
	LabelTripCount   = " Total trip count unrolled: "
	LabelSplit       = " Number of memory location split: "
	LabelSubLocs     = " Number of sub memory location created due to unroll: "
	LabelSplitBytes  = " Total size of memory location split (in bytes): "
	LabelIllegalLocs = " Total number of illegal memory locations : "
)

// NoOpAttr is the module attribute the no-op path sets.
const NoOpAttr = "sb_size_legalization_skipped"

// Defaults of the pass options.
const (
	DefaultMaxAccessPoints  = 1 << 16
	DefaultMaxLivenessSteps = 1 << 24
)

// Options configure SBSizeLegalization.
type Options struct {
	// MaxAccessPoints bounds the iterations at which one symbolic access is
	// evaluated when a cut is checked; beyond it the access is assumed to
	// straddle pieces (<= 0: DefaultMaxAccessPoints).
	MaxAccessPoints int64
	// MaxLivenessSteps bounds shrink_tensor's block liveness analysis
	// (block accesses and loop iterations executed; <= 0:
	// DefaultMaxLivenessSteps).
	MaxLivenessSteps int64
	// Logf receives the seed's log lines (nil: dropped).
	Logf func(format string, args ...any)
	// OnFunction, when set, is called with a function's name as the pass
	// starts working on that function, and with "" when it leaves
	// per-function work (module-wide steps follow). The pass table entry
	// sets it to pass.Context.Function, so that a panic is reported
	// against the function it happened in.
	OnFunction func(name string)
	// Later says which of the passes that repair what this pass plans run
	// after it, and how (nil: DefaultLater, the default pipeline). The
	// pass table entry reads them from the run (pass.Context.PeerOption).
	Later *Later
}

// Later describes the passes after sb_size_legalization whose repairs its
// plan relies on, so that it leaves a tensor only to a pass that will run
// and, as configured, will repair it.
type Later struct {
	// UnrollLevel is full_unroll's unrollLevel (-1: "auto", chosen per
	// function; the cut and the forced unrolling happen at levels 1, 2 and
	// auto); Unroll is false when full_unroll does not run.
	Unroll      bool
	UnrollLevel int
	// VN is vn_splitter's configuration, nil when it does not run.
	VN *footprint.VNOptions
	// Shrink says whether shrink_ml runs.
	Shrink bool
}

// DefaultLater is the default pipeline's: full_unroll at level auto,
// vn_splitter with its defaults, shrink_ml.
func DefaultLater() *Later {
	vn := footprint.DefaultVNOptions()
	return &Later{Unroll: true, UnrollLevel: -1, VN: &vn, Shrink: true}
}

// later is Later as the plan reads it.
type later struct {
	cut, unrolls bool
	unrollWhy    string // why full_unroll neither cuts nor unrolls
	vn           *footprint.VNOptions
	shrink       bool
}

func (l *Later) resolve() later {
	r := later{vn: l.VN, shrink: l.Shrink, cut: true, unrolls: true}
	switch {
	case !l.Unroll:
		r.cut, r.unrolls, r.unrollWhy = false, false, "does not run"
	case l.UnrollLevel == 0:
		r.cut, r.unrolls, r.unrollWhy = false, false, "runs at unrollLevel=0 (memloc generation only)"
	}
	return r
}

// Stats are the pass's results (the statistic block and the counters).
type Stats struct {
	Gate              arch.SBGate
	Ran               bool  // the full path ran (gate open, geometry known)
	OnChipLocations   int   // live SB/PSUM locations examined
	OnChipTensors     int   // tensors with an SB/PSUM location
	IllegalTensors    int   // tensors illegal after shrink_tensor
	CanSplit          int   // illegal tensors a cut legalizes
	Marked            int   // tensors given a splitShape (memory locations split)
	SubLocations      int64 // pieces FullUnroll will create
	SplitBytes        int64 // bytes of the marked tensors
	LeftToVN          int   // illegal tensors vn_splitter will legalize
	LeftToShrink      int   // illegal tensors shrink_ml will legalize
	Shrunk            int   // block tensors with liveN < nBlocks
	ForceRounds       int   // force_unroll_update rounds
	LoopsForced       int   // loops marked for FullUnroll
	FunctionsForced   int   // functions marked need_unroll
	TripCountUnrolled int64 // sum of the trip counts of the loops forced
	IllegalLocations  int   // SB/PSUM locations nothing will legalize
	Unfittable        []string
}

// ErrorCode is diag.DoesNotFit.
func (e *UnfittableError) ErrorCode() string { return diag.DoesNotFit }

// UnfittableError reports the tensors no transformation can make fit.
type UnfittableError struct {
	Tensors []string
	Subject *bir.Subject // the first tensor (its function and ID)
}

// ErrorSubject is the first unfittable tensor: the position the pass
// manager reports.
func (e *UnfittableError) ErrorSubject() *bir.Subject { return e.Subject }

func (e *UnfittableError) Error() string {
	return fmt.Sprintf("%d tensor(s) cannot fit the on-chip memory: %s", len(e.Tensors), strings.Join(e.Tensors, "; "))
}

// SBSizeLegalization runs the pass on m with the geometry of model.
func SBSizeLegalization(m *bir.Module, model *arch.Model, opt Options) (Stats, error) {
	var st Stats
	if model == nil {
		return st, fmt.Errorf("sb_size_legalization: no machine model")
	}
	if opt.MaxAccessPoints <= 0 {
		opt.MaxAccessPoints = DefaultMaxAccessPoints
	}
	if opt.MaxLivenessSteps <= 0 {
		opt.MaxLivenessSteps = DefaultMaxLivenessSteps
	}
	if opt.Later == nil {
		opt.Later = DefaultLater()
	}
	lz := &legalizer{m: m, opt: opt, st: &st, later: opt.Later.resolve()}
	// ---- the arch gate ----
	st.Gate = arch.SBSizeLegalizationGate(model.ArchLevel)
	switch st.Gate {
	case arch.SBGateNoOp:
		m.ModuleAttrs = m.ModuleAttrs.With(NoOpAttr, bir.Bool(true))
		lz.logf("SBSizeLegalization: ArchLevel %d (%s) <= 19: no-op", model.ArchLevel, model.Name)
		return st, nil
	case arch.SBGateSpecial:
		lz.logf("SBSizeLegalization: ArchLevel %d (%s): special path, full legalization", model.ArchLevel, model.Name)
	}
	geo, err := footprint.GeometryFor(model)
	if err != nil {
		return st, fmt.Errorf("sb_size_legalization: %w", err)
	}
	lz.geo = geo
	st.Ran = true
	for _, f := range m.FuncsMainFirst() {
		lz.funcs = append(lz.funcs, &funcState{lz: lz, f: f, m: m})
	}
	for _, fs := range lz.funcs {
		lz.enter(fs.f.Name)
		fs.shrinkTensor()
	}
	lz.enter("")
	for _, fs := range lz.funcs {
		lz.enter(fs.f.Name)
		if err := fs.classify(); err != nil {
			return st, err
		}
	}
	lz.enter("")
	if lz.pickUnrollLoop() {
		for lz.forceUnrollUpdate() != 0 {
		}
	}
	for _, fs := range lz.funcs {
		lz.enter(fs.f.Name)
		fs.setSplitShape()
	}
	lz.enter("")
	lz.profile()
	if len(st.Unfittable) > 0 {
		return st, &UnfittableError{Tensors: st.Unfittable, Subject: lz.firstUnfittable}
	}
	return st, nil
}

type legalizer struct {
	m     *bir.Module
	later later
	geo   footprint.Geometry
	opt   Options
	st    *Stats
	funcs []*funcState
	round int
	// firstUnfittable is the first tensor nothing legalizes (the error's
	// subject).
	firstUnfittable *bir.Subject
}

// enter reports the function the pass is working on ("" : none) to
// Options.OnFunction.
func (lz *legalizer) enter(name string) {
	if lz.opt.OnFunction != nil {
		lz.opt.OnFunction(name)
	}
}

func (lz *legalizer) logf(format string, args ...any) {
	if lz.opt.Logf != nil {
		lz.opt.Logf(format, args...)
	}
}

// profile is profile_sb_legalization: the statistic block's figures.
func (lz *legalizer) profile() {
	st := lz.st
	for _, fs := range lz.funcs {
		for t := range fs.info {
			ti := &fs.info[t]
			if ti.fix == fixImpossible {
				st.IllegalLocations += ti.illegalLocs
			}
		}
	}
}

// StatisticText formats the "SB Legalization Statistic:" block (without
// its title) with the seed's line labels.
func (st *Stats) StatisticText() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s%d\n", LabelTripCount, st.TripCountUnrolled)
	fmt.Fprintf(&sb, "%s%d\n", LabelSplit, st.Marked)
	fmt.Fprintf(&sb, "%s%d\n", LabelSubLocs, st.SubLocations)
	fmt.Fprintf(&sb, "%s%d\n", LabelSplitBytes, st.SplitBytes)
	pct := 0.0
	if st.OnChipLocations > 0 {
		pct = float64(st.IllegalLocations) * 100 / float64(st.OnChipLocations)
	}
	fmt.Fprintf(&sb, "%s%d (%.2f%% of %d SB/PSUM memory locations)\n", LabelIllegalLocs, st.IllegalLocations, pct, st.OnChipLocations)
	return sb.String()
}

// ---- the pass ----

// SBSizeLegalizationPass is the "sb_size_legalization" pass. Run it
// before full_unroll, which performs the cut it marks and unrolls the
// loops it forces.
var SBSizeLegalizationPass = pass.Pass{
	Name:    "sb_size_legalization",
	Default: true,
	Options: []pass.Option{
		{Name: "max_access_points", Default: fmt.Sprint(DefaultMaxAccessPoints), Doc: "iterations at which one symbolic access is evaluated when a cut is checked (beyond: assumed to straddle pieces)"},
		{Name: "max_liveness_steps", Default: fmt.Sprint(DefaultMaxLivenessSteps), Doc: "block accesses and loop iterations shrink_tensor may execute to count live blocks (beyond: no liveN record)"},
	},
	Doc: "SBSizeLegalization: shrink_tensor liveN records, splitShape marks for FullUnroll's cut, force-unroll of loops reaching oversized tensors (seed 000)",
	Run: runSBSizeLegalization,
}

func runSBSizeLegalization(ctx *pass.Context) error {
	pts, err := ctx.IntOption("max_access_points")
	if err != nil {
		return err
	}
	steps, err := ctx.IntOption("max_liveness_steps")
	if err != nil {
		return err
	}
	lt, err := laterOf(ctx)
	if err != nil {
		return err
	}
	st, err := SBSizeLegalization(ctx.Module, ctx.Arch, Options{MaxAccessPoints: pts, MaxLivenessSteps: steps, Logf: ctx.Logf, OnFunction: ctx.Function, Later: lt})
	// A returned error keeps its own wording (it names its function where
	// it has one); only a panic, which skips this line, is reported
	// against the function recorded by OnFunction.
	ctx.Function("")
	if st.Ran {
		ctx.Count(CounterCanSplit, int64(st.CanSplit))
		ctx.Count(CounterShrunk, int64(st.Shrunk))
		ctx.Count(CounterTotalSplit, int64(st.Marked))
		for _, c := range []struct {
			name string
			v    int
		}{{CounterForceRounds, st.ForceRounds}, {CounterLoopsForced, st.LoopsForced}, {CounterLeftToVN, st.LeftToVN}, {CounterLeftToShrink, st.LeftToShrink}} {
			if c.v != 0 {
				ctx.Count(c.name, int64(c.v))
			}
		}
		ctx.AddReport(ReportTitle, st.StatisticText())
	}
	return err
}

// laterOf reads the configuration of the passes after this one from the
// run: full_unroll's level, vn_splitter's options (parsed as vn_splitter
// parses them), whether shrink_ml runs.
func laterOf(ctx *pass.Context) (*Later, error) {
	lt := &Later{Shrink: ctx.PeerRuns("shrink_ml"), UnrollLevel: -1}
	if v, ok := ctx.PeerOption("full_unroll", "unrollLevel"); ok {
		lt.Unroll = true
		if v != "" && v != "auto" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, fmt.Errorf("pass sb_size_legalization: full_unroll's unrollLevel=%q: want 0, 1, 2 or auto", v)
			}
			lt.UnrollLevel = n
		}
	}
	if ctx.PeerRuns("vn_splitter") {
		vn, err := footprint.ParseVNOptions(func(name string) string {
			v, _ := ctx.PeerOption("vn_splitter", name)
			return v
		})
		if err != nil {
			return nil, err
		}
		lt.VN = &vn
	}
	return lt, nil
}
