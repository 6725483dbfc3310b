// HeuristicUnroll (pass "heuristic_unroll"): the eligibility decision of
// seed 003, "HeuristicUnroll — the eligibility decision". It clones
// nothing: it marks the loops that FullUnroll level 1 then unrolls.
//
//	HeuristicUnroll_run:
//	  if not enabled: log "Heuristic unroll is off."; return
//	  for each function, for each static Loop (opcode 105), depth first:
//	    not innermost          -> descend into its body
//	    has a symbolic access  -> not eligible
//	    eligible: assert a single body block
//	      MAXHU set and the global count >= cap -> log "skip (cap <cap> reached)"
//	      else                                   -> log "unroll"; mark; count += 1
//	  log "Heuristically unrolled <n> loops."
//
// The rule is the seed's: a loop is unrolled fully iff it is innermost (no
// loop of any kind in its body) and free of symbolic access patterns; there
// is no trip-count threshold and no partial factor. The only tunable is
// MAXHU, a cap on how many loops are marked over the whole run (all
// functions), read from the environment or from the pass option maxhu
// (which wins when set).
//
// Decisions where the seed is silent:
//
//   - The mark is the loop instruction's attribute heuristic_unroll = true
//     (HeuristicAttr); FullUnroll level 1 unrolls exactly the marked loops
//     of functions that are not marked need_unroll as a whole. The attribute
//     round-trips through BIR-JSON and the text form like any instruction
//     attribute. A loop already marked counts like one marked now; one
//     beyond the cap loses its mark.
//   - "Free of symbolic access patterns" means: no symbolic or register
//     access pattern and no symbolic immediate in the loop's body (the
//     runtime- and iteration-dependent operands), no *Symbolic opcode.
//   - The on/off flag is the pass option enable (default true: running the
//     pass is the request; the pipeline decides whether to run it).
//   - The seed's final count includes the eligible loops skipped because of
//     the cap (its counter increments for both); narwhal logs that number
//     in the seed's line and reports marked and skipped loops separately
//     (counters heuristic_unroll.marked, heuristic_unroll.skipped).
//   - A cap that is not a non-negative integer is an error (the seed's atoi
//     would read garbage as 0).
package unroll

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
)

// HeuristicOptions configure HeuristicUnroll.
type HeuristicOptions struct {
	// Enabled is the seed's global flag.
	Enabled bool
	// MaxHU is the cap text ("" : no cap): the MAXHU variable or option.
	MaxHU string
	Logf  func(format string, args ...any)
	// OnFunction, when set, is called with a function's name as the pass
	// starts working on that function, and with "" when it leaves
	// per-function work. The pass table entry sets it to
	// pass.Context.Function. A panic is reported (as an *InternalError)
	// against the function last named, with or without the hook.
	OnFunction func(name string)
}

// ParseMaxHU parses a MAXHU cap ("" means no cap, -1).
func ParseMaxHU(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return -1, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("MAXHU=%q: want a non-negative integer (the number of loops heuristic_unroll may mark)", s)
	}
	return n, nil
}

// HeuristicUnroll marks the eligible loops of m and returns its stats.
func HeuristicUnroll(m *bir.Module, opt HeuristicOptions) (st Stats, err error) {
	ft := &funcTracker{hook: opt.OnFunction}
	defer internalError("heuristic_unroll", ft, &err)
	if !opt.Enabled {
		logf(opt.Logf, "Heuristic unroll is off.")
		return st, nil
	}
	capN, err := ParseMaxHU(opt.MaxHU)
	if err != nil {
		return st, err
	}
	h := &heuristic{cap: capN, logf: opt.Logf, st: &st}
	for _, f := range m.FuncsMainFirst() {
		ft.enter(f.Name)
		h.f = f
		for _, b := range f.Top {
			if err := h.block(b); err != nil {
				return st, err
			}
		}
	}
	ft.enter("")
	st.HeuristicEligible = st.HeuristicMarked + st.HeuristicSkipped
	logf(opt.Logf, "Heuristically unrolled %d loops.", st.HeuristicEligible)
	if st.HeuristicSkipped > 0 {
		logf(opt.Logf, "(%d marked, %d skipped by the MAXHU cap %d)", st.HeuristicMarked, st.HeuristicSkipped, capN)
	}
	return st, nil
}

type heuristic struct {
	f     *bir.Function
	cap   int64
	count int64 // the seed's global counter (dword_3DFF678)
	logf  func(string, ...any)
	st    *Stats
}

func (h *heuristic) block(b bir.BlockID) error {
	f := h.f
	for _, i := range f.Block(b).Insts {
		in := f.Inst(i)
		if !in.Op.IsLoop() {
			continue
		}
		lp := f.Loop(i)
		if in.Op != bir.OpLoop || !h.innermost(i) {
			for _, bb := range lp.Body {
				if err := h.block(bb); err != nil {
					return err
				}
			}
			continue
		}
		if h.containsSymbolic(i) {
			continue
		}
		if n := len(lp.Body); n != 1 {
			return f.Errorf(i, "heuristic_unroll: an eligible loop must have exactly one body block, have %d (heuristic_unroll.cpp:0xB4)", n)
		}
		if h.cap >= 0 && h.count >= h.cap {
			logf(h.logf, "function %s, loop %s: skip (cap %d reached)", f.Name, f.InstName(i), h.cap)
			if f.Attrs(i).Has(HeuristicAttr) {
				f.SetAttrs(i, f.Attrs(i).Without(HeuristicAttr)) // the cap wins over an earlier mark
			}
			h.st.HeuristicSkipped++
			continue
		}
		logf(h.logf, "function %s, loop %s: unroll", f.Name, f.InstName(i))
		if !f.Attrs(i).Bool(HeuristicAttr, false) {
			f.SetAttr(i, HeuristicAttr, bir.Bool(true))
		}
		h.count++
		h.st.HeuristicMarked++
	}
	return nil
}

// innermost reports whether loop i has no loop in its body.
func (h *heuristic) innermost(i bir.InstID) bool {
	f := h.f
	for _, bb := range f.Loop(i).Body {
		for _, j := range f.Block(bb).Insts {
			if f.Inst(j).Op.IsLoop() {
				return false
			}
		}
	}
	return true
}

// containsSymbolic is the seed's loop_contains_symbolic.
func (h *heuristic) containsSymbolic(i bir.InstID) bool {
	f := h.f
	for _, bb := range f.Loop(i).Body {
		for _, j := range f.Block(bb).Insts {
			if f.Inst(j).Op.Known() && f.Inst(j).Op.Info().Has(bir.FlagSymbolic) {
				return true
			}
			for _, o := range f.Operands(j) {
				switch o.Kind {
				case bir.OpdSymAP, bir.OpdRegAP, bir.OpdSymImm:
					return true
				}
			}
		}
	}
	return false
}

// ---- the pass ----

// HeuristicUnrollPass is the "heuristic_unroll" pass. Register it before
// full_unroll (whose level 1 honours its marks); it requires and produces
// no verifier stage.
var HeuristicUnrollPass = pass.Pass{
	Name:    "heuristic_unroll",
	Default: false,
	Options: []pass.Option{
		{Name: "enable", Default: "true", Doc: "the global on/off flag (false logs \"Heuristic unroll is off.\")"},
		{Name: "maxhu", Default: "", Doc: "cap on the number of loops marked over the run (default: the MAXHU environment variable; empty: no cap)"},
	},
	Doc: "HeuristicUnroll: mark innermost loops free of symbolic accesses for FullUnroll level 1 (MAXHU caps the count; seed 003)",
	Run: runHeuristicUnroll,
}

func runHeuristicUnroll(ctx *pass.Context) error {
	enabled, err := ctx.BoolOption("enable")
	if err != nil {
		return err
	}
	maxhu := ctx.Option("maxhu")
	if maxhu == "" {
		maxhu = envOr("MAXHU", "")
	}
	st, err := HeuristicUnroll(ctx.Module, HeuristicOptions{Enabled: enabled, MaxHU: maxhu, Logf: ctx.Logf, OnFunction: ctx.Function})
	err = passError(ctx, err)
	if st.HeuristicMarked > 0 {
		ctx.Count("heuristic_unroll.marked", int64(st.HeuristicMarked))
	}
	if st.HeuristicSkipped > 0 {
		ctx.Count("heuristic_unroll.skipped", int64(st.HeuristicSkipped))
	}
	return err
}
