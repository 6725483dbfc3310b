// Package vnsplit implements vn_splitter (pass "vn_splitter", order 24,
// seed 004): VNSplitterPass::run calls VNSplitter::runTransform, the SPLIT
// phase (split.go: SB/PSUM locations whose accesses fall into groups of
// disjoint partitions are carved into "<orig>_VN_<k>" locations), then
// VerticalFusion::runTransform, the FOLD phase (fold.go: a copy whose
// source has a single producer and a single use is folded into the
// producer), the fold gated by foldIntoPredecessor. The order is the
// seed's: split first, so the fold sees the split's pieces.
//
// Pre-conditions: a module the verifier accepts. The pass works on
// physical access patterns; a location whose tensor is still accessed
// symbolically (before full_unroll) is left alone (logged). Post-
// conditions: every access of a split location is repointed onto its
// piece; no dead piece, dead original or folded intermediate remains; the
// outputs are bit-identical (the pass moves no arithmetic). It
// establishes no verifier stage (shrink_ml, order 25, produces
// verify.StageSBLegal once the pieces are trimmed).
//
// Options (--option vn_splitter.KEY=VALUE), with the seed's names:
//
//	vn_limit             cap on the SB/PSUM locations of a function after splitting (default 1048576)
//	ratio                cap on "elts/partition duplicated" (default 16)
//	perSplitLimit        cap on the pieces of one location (default 16)
//	noSplitDRAM          leave internal DRAM locations alone (default true; false: split or
//	                     move them to SB when every group fits)
//	foldIntoPredecessor  run VerticalFusion (default true)
//	splitSB              split SB/PSUM locations (default true)
//	skip                 comma-separated location names not to split ("Skipping <name> by user request.")
//
// Log lines and report: per location "INFO (VNSplitter)  Analyzing <name>",
// "<name> is splittable, shape=(<P> partitions, <B> bytes)!" or a reject
// reason; then "Collected all the internal vnodes: <n>", "INFO
// (VNSplitter): Split <N> nodes (of <M> analyzed) into <P> pieces." and
// "(SplitSB) total_sb_nodes = ..., can_sb_nodes = ..., total dead nodes =
// ..., vn_limit = ..., foldIntoPredecessor = ..." (also a report block),
// the counter backend::VNSplitterDeadNodesCount, and VerticalFusion's
// "folded <n> copies".
package vnsplit

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/pass"
)

// Defaults of the knobs (footprint.VNOptions, which
// sb_size_legalization's plan reads too).
const (
	DefaultVNLimit       = footprint.DefaultVNLimit
	DefaultRatio         = footprint.DefaultRatio
	DefaultPerSplitLimit = footprint.DefaultPerSplitLimit
)

// CounterDeadNodes is the seed's metric name.
const CounterDeadNodes = "backend::VNSplitterDeadNodesCount"

// ReportTitle is the title of the pass's report block.
const ReportTitle = "VNSplitter:"

// Options configure the pass (see the package comment).
type Options struct {
	// The knobs are defined with the footprint passes' shared rules
	// (sb_size_legalization's plan reads them to predict this pass).
	footprint.VNOptions
	Logf func(format string, args ...any)
	// OnFunction, when set, is called with a function's name as the split
	// or the fold starts working on that function, and with "" when each
	// phase is done. The pass table entry sets it to pass.Context.Function,
	// so that a panic is reported against the function it happened in.
	OnFunction func(name string)
}

// DefaultOptions returns the pass's defaults.
func DefaultOptions() Options {
	return Options{VNOptions: footprint.DefaultVNOptions()}
}

// Stats are the pass's results.
type Stats struct {
	TotalSBNodes int // SB/PSUM locations before the split
	Analyzed     int // locations analyzed
	CanSBNodes   int // locations found splittable
	Split        int // locations split
	Pieces       int // _VN_ locations created
	DeadNodes    int // locations removed by the split phase
	DeadInsts    int // instructions removed (dead writers, folded copies)
	Folded       int // copies folded by VerticalFusion
}

// SplitLine is the seed's summary line of the split.
func (st *Stats) SplitLine() string {
	return fmt.Sprintf("INFO (VNSplitter): Split %d nodes (of %d analyzed) into %d pieces.", st.Split, st.Analyzed, st.Pieces)
}

// SplitSBLine is the seed's (SplitSB) line.
func (st *Stats) SplitSBLine(opt *Options) string {
	return fmt.Sprintf("(SplitSB) total_sb_nodes = %d, can_sb_nodes = %d, total dead nodes = %d, vn_limit = %d, foldIntoPredecessor = %t",
		st.TotalSBNodes, st.CanSBNodes, st.DeadNodes, opt.VNLimit, opt.FoldIntoPredecessor)
}

// VNSplitter runs vn_splitter on m: the split on every function, then,
// when opt.FoldIntoPredecessor, the fold on every function.
func VNSplitter(m *bir.Module, model *arch.Model, opt Options) (Stats, error) {
	var st Stats
	if model == nil {
		return st, fmt.Errorf("vn_splitter: no machine model")
	}
	geo, err := footprint.GeometryFor(model)
	if err != nil {
		return st, fmt.Errorf("vn_splitter: %w", err)
	}
	skip := map[string]bool{}
	for _, s := range opt.Skip {
		if s = strings.TrimSpace(s); s != "" {
			skip[s] = true
		}
	}
	for _, f := range m.FuncsMainFirst() {
		enter(opt.OnFunction, f.Name)
		s := &splitter{f: f, m: m, opt: &opt, st: &st, geo: geo, skip: skip}
		if err := s.runTransform(); err != nil {
			return st, err
		}
	}
	enter(opt.OnFunction, "")
	logf(opt.Logf, "%s", st.SplitLine())
	logf(opt.Logf, "%s", st.SplitSBLine(&opt))
	if opt.FoldIntoPredecessor {
		for _, f := range m.FuncsMainFirst() {
			enter(opt.OnFunction, f.Name)
			v := &folder{f: f, m: m, opt: &opt, st: &st}
			v.runTransform()
		}
		enter(opt.OnFunction, "")
		logf(opt.Logf, "INFO (VerticalFusion): folded %d copies into their producers.", st.Folded)
	}
	return st, nil
}

// enter reports the function being processed ("" : none) to the
// OnFunction hook, if any.
func enter(hook func(string), name string) {
	if hook != nil {
		hook(name)
	}
}

func logf(fn func(string, ...any), format string, args ...any) {
	if fn != nil {
		fn(format, args...)
	}
}

// ---- the pass ----

// VNSplitterPass is the "vn_splitter" pass (order 24). Run it after
// full_unroll (it needs physical access patterns and sees the pieces of
// FullUnroll's cut) and before shrink_ml (order 25), which trims each
// piece.
var VNSplitterPass = pass.Pass{
	Name:    "vn_splitter",
	Order:   24,
	Default: true,
	Options: vnOptions(),
	Doc:     "vn_splitter: VNSplitter carves SB/PSUM locations into _VN_ pieces by disjoint partition groups, then VerticalFusion folds single-use copies (seed 004)",
	Run:     runVNSplitter,
}

// vnOptions declares the pass's options from footprint.VNOptionDecls.
func vnOptions() []pass.Option {
	var out []pass.Option
	for _, d := range footprint.VNOptionDecls() {
		out = append(out, pass.Option{Name: d.Name, Default: d.Default, Doc: d.Doc})
	}
	return out
}

func runVNSplitter(ctx *pass.Context) error {
	opt := DefaultOptions()
	opt.Logf = ctx.Logf
	opt.OnFunction = ctx.Function
	var err error
	if opt.VNOptions, err = footprint.ParseVNOptions(ctx.Option); err != nil {
		return err
	}
	st, err := VNSplitter(ctx.Module, ctx.Arch, opt)
	// A returned error keeps its own wording (it names its function);
	// only a panic, which skips this line, is reported against the
	// function recorded by OnFunction.
	ctx.Function("")
	ctx.Count(CounterDeadNodes, int64(st.DeadNodes))
	if st.Folded > 0 {
		ctx.Count("vertical_fusion.folded", int64(st.Folded))
	}
	text := st.SplitLine() + "\n" + st.SplitSBLine(&opt) + "\n"
	if opt.FoldIntoPredecessor {
		text += fmt.Sprintf("INFO (VerticalFusion): folded %d copies into their producers.\n", st.Folded)
	}
	ctx.AddReport(ReportTitle, text)
	return err
}
