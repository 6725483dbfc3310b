// FullUnroll (pass "full_unroll"): the level-gated unroller with the hard
// 25M ceiling, and the delegated splitShape cut (seed 003 "FullUnroll — the
// level-gated unroller with the hard ceiling"; seed 000 "The delegated
// clone").
//
//	FullUnroll_run:
//	  assert level set: "Need to set full_unroll level, 0: only memloc
//	    generation; 1: unroll some; 2: unroll all"
//	  level 0: memlocsGeneration (per-block "<set>_sub<b>" locations in
//	    place, tensor ids = block index, the template removed; "MemlocSet
//	    cannot be empty"), then dce; done.
//	  level 1/2: pre_process; log "INFO (FullUnroll) Start unrolling at
//	    <ctime>"; per function:
//	    marked:      memlocsGeneration, dce, unroll_function (clone), the
//	                 splitShape cut (tensorSplit), dce; log "INFO (FullUnroll)
//	                 DONE unrolling <ctime>"
//	    unrollable:  dce; log "DONE DCE, no unrolling needed, running
//	                 BirCodeGen with unroll pass"; the splitShape cut
//	    otherwise:   log "No unrolling needed, running hhir pass"; the
//	                 splitShape cut
//	  InstProfiler print; the ceiling: total_count < 25000000
//	  level 2: erase_all_dependencies
//
// pre_process decides per function (the seeds read FunctionAttributes 1
// "marked to unroll" and 2 "unrollable" of the first function; narwhal
// decides for every function, main first):
//
//   - unrollable: the function has a loop or a symbolic operand;
//   - marked, whole function: level 2, or the function attribute
//     need_unroll at level 1; every static loop is cloned;
//   - marked, selected loops: level 1 and loops that HeuristicUnroll marked
//     (the instruction attribute heuristic_unroll = true); only those loops
//     are cloned, the rest of the function keeps its loops.
//
// A function unrolled whole gets the attribute "unrolled" and loses
// need_unroll. Level 2 rejects DynamicForLoop / DoWhile (a run-time trip
// count cannot be unrolled statically, and level 2 erases the dependencies
// the dynamic loop's body would still need): run pass "unroll", which
// lowers them to register form, or level 1.
//
// Unlike Unroll's grid, FullUnroll keeps each block tensor and repoints
// accesses to its per-block locations (the seeds' split_map), then cuts the
// tensors SBSizeLegalization marked (split.go). Dead code is removed before
// cloning as well as after (dce.go: the rule is flow-insensitive, so doing it
// first only saves work), and the ceiling is enforced before cloning on a
// lower bound and while cloning (limits.go).
package unroll

import (
	"fmt"
	"strconv"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/footprint"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// LevelUnset is the unroll level of a FullUnroll that was not told one.
const LevelUnset = -1

// LevelAuto (unrollLevel=auto, the default pipeline's) chooses the level
// per function from what the function holds, as the seed's FullUnroll
// reads each function's attributes ("is unrollable", "is marked to
// unroll") rather than one level for the module: level 1 for a function
// with a DynamicForLoop or DoWhile (a run-time trip count cannot be
// unrolled; level 1 unrolls what heuristic_unroll and
// sb_size_legalization marked and keeps the rest, dependencies included),
// level 2 for every other function (unroll everything, erase its
// dependencies). So a kernel with dynamic loops compiles by default, and
// heuristic_unroll's marks decide which static loops of such a function
// are unrolled.
const LevelAuto = -2

// FunctionLevel is the level FullUnroll applies to f under level:
// level itself, or for LevelAuto 1 or 2 as LevelAuto says.
func FunctionLevel(f *bir.Function, level int) int {
	if level != LevelAuto {
		return level
	}
	if dynamicLoop(f) != bir.NoInst {
		return 1
	}
	return 2
}

// dynamicLoop returns the first DynamicForLoop or DoWhile of f, NoInst
// when it has none.
func dynamicLoop(f *bir.Function) bir.InstID {
	var dyn bir.InstID = bir.NoInst
	f.Walk(func(i bir.InstID) bool {
		if op := f.Inst(i).Op; op == bir.OpDynamicForLoop || op == bir.OpDoWhile {
			dyn = i
			return false
		}
		return true
	})
	return dyn
}

// LevelMessage is the seed's assertion text for an unset level
// (full_unroll.cpp:0x383).
const LevelMessage = "Need to set full_unroll level, 0: only memloc generation; 1: unroll some; 2: unroll all"

// HeuristicAttr is the loop-instruction attribute HeuristicUnroll sets and
// FullUnroll level 1 honours (defined with the footprint passes' other
// marks, footprint.HeuristicAttr).
const HeuristicAttr = footprint.HeuristicAttr

// FullUnrollOptions configure FullUnroll.
type FullUnrollOptions struct {
	// Level is 0, 1 or 2; LevelUnset fails with LevelMessage.
	Level int
	Logf  func(format string, args ...any)
	Now   func() time.Time
	// OnFunction, when set, is called with a function's name as the pass
	// starts working on that function, and with "" when it leaves
	// per-function work. The pass table entry sets it to
	// pass.Context.Function. A panic is reported (as an *InternalError)
	// against the function last named, with or without the hook.
	OnFunction func(name string)
	// Progress, when set, is told every 65536 clones how many the
	// function's unroll has made of the projected number (an upper
	// bound): the pass table entry sets it to pass.Context.Progress,
	// which feeds the command line's progress line.
	Progress func(done, total int64)
}

type fnMode int

const (
	modeNone fnMode = iota
	modeDCEOnly
	modeSelected
	modeWhole
)

// FullUnroll runs the level-gated unroller on m.
func FullUnroll(m *bir.Module, opt FullUnrollOptions) (st Stats, err error) {
	ft := &funcTracker{hook: opt.OnFunction}
	defer internalError("full_unroll", ft, &err)
	switch opt.Level {
	case LevelUnset:
		return st, fmt.Errorf("%s", LevelMessage)
	case 0, 1, 2, LevelAuto:
	default:
		return st, fmt.Errorf("unrollLevel=%d: want 0 (only memloc generation), 1 (unroll some), 2 (unroll all) or auto", opt.Level)
	}
	funcs := m.FuncsMainFirst()
	if opt.Level == 0 {
		for _, f := range funcs {
			ft.enter(f.Name)
			n, err := memlocsGeneration(f)
			if err != nil {
				return st, err
			}
			st.BlockTensors += n
			st.DeadRemoved += DCE(f)
		}
		ft.enter("")
		st.TotalCount = m.NumInsts()
		logf(opt.Logf, "INFO (FullUnroll) memloc generation: %d block tensors given per-block locations, %d dead instructions removed, total_count=%d",
			st.BlockTensors, st.DeadRemoved, st.TotalCount)
		return st, nil
	}
	// pre_process.
	modes := make([]fnMode, len(funcs))
	levels := make([]int, len(funcs))
	for k, f := range funcs {
		ft.enter(f.Name)
		levels[k] = FunctionLevel(f, opt.Level)
		modes[k] = decide(f, levels[k])
		if opt.Level == LevelAuto {
			logf(opt.Logf, "INFO (FullUnroll) function %s: unrollLevel %d", f.Name, levels[k])
		}
		if levels[k] == 2 {
			if dyn := dynamicLoop(f); dyn != bir.NoInst {
				return st, f.Errorf(dyn, "unrollLevel=2 unrolls everything, but this loop's trip count is a run-time value; run pass unroll (which lowers dynamic loops to register form) or unrollLevel=1")
			}
		}
	}
	ft.enter("")
	logf(opt.Logf, "INFO (FullUnroll) Start unrolling at %s", ctime(opt.Now))
	var done int64 // final instruction counts of the functions processed
	// The functions not processed yet count at their current size when
	// they will not be unrolled (a lower bound of the module's total).
	pendingOthers := func(from int) int64 {
		var n int64
		for k := from; k < len(funcs); k++ {
			if modes[k] == modeNone {
				n += funcs[k].NumInsts()
			}
		}
		return n
	}
	for k, f := range funcs {
		ft.enter(f.Name)
		switch modes[k] {
		case modeNone, modeDCEOnly:
			if modes[k] == modeNone {
				logf(opt.Logf, "No unrolling needed, running hhir pass")
			} else {
				st.DeadRemoved += DCE(f)
				logf(opt.Logf, "DONE DCE, no unrolling needed, running BirCodeGen with unroll pass")
			}
			// Tensors SBSizeLegalization marked are cut even where nothing
			// is unrolled (those still accessed symbolically are kept).
			if err := splitFunction(f, opt, &st); err != nil {
				return st, err
			}
			done += f.NumInsts()
			continue
		}
		if err := fullUnrollFunction(f, modes[k], levels[k], opt, done+pendingOthers(k+1), &st); err != nil {
			return st, err
		}
		logf(opt.Logf, "INFO (FullUnroll) DONE unrolling %s", ctime(opt.Now))
		done += f.NumInsts()
	}
	ft.enter("")
	total := m.NumInsts()
	st.TotalCount = total
	logf(opt.Logf, "INFO (FullUnroll) InstProfiler: total_count=%d", total)
	if err := CheckInstructionCeiling(total); err != nil {
		return st, err
	}
	for k, f := range funcs {
		if levels[k] == 2 {
			ft.enter(f.Name)
			f.ClearAllDeps()
			st.FunctionsAtLevel2++
		}
	}
	ft.enter("")
	return st, nil
}

// decide is pre_process for one function.
func decide(f *bir.Function, level int) fnMode {
	unrollable, heuristic := false, false
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			unrollable = true
			if in.Op == bir.OpLoop && f.Attrs(i).Bool(HeuristicAttr, false) {
				heuristic = true
			}
			return true
		}
		if in.Pred != 0 {
			unrollable = true
		}
		for _, o := range f.Operands(i) {
			if o.Kind == bir.OpdSymAP || o.Kind == bir.OpdSymImm {
				unrollable = true
			}
		}
		return true
	})
	switch {
	case !unrollable:
		return modeNone
	case level == 2 || f.HasAttribute(footprint.NeedUnrollAttr):
		return modeWhole
	case heuristic:
		return modeSelected
	}
	return modeDCEOnly
}

// fullUnrollPlan is what unroll_function has decided when cloning starts.
type fullUnrollPlan struct {
	c         *cloner
	proj      projection
	removable func(bir.InstID) bool
}

// planFullUnroll is FullUnroll's unroll_function up to the clone: memloc
// generation, dce, the loop nest analysis and the ceiling on the projected
// lower bound, where others is the final count of the rest of the module.
// It fails, with nothing cloned, when the projection already breaks the
// ceiling.
func planFullUnroll(f *bir.Function, mode fnMode, level int, others int64, st *Stats) (*fullUnrollPlan, error) {
	expand := func(f *bir.Function, l bir.InstID) bool { return true }
	if mode == modeSelected {
		expand = func(f *bir.Function, l bir.InstID) bool { return f.Attrs(l).Bool(HeuristicAttr, false) }
	}
	// The ceiling on the projected lower bound comes first, before memloc
	// generation creates a location per block (14M per tile tensor of a
	// 65536^3 matmul): a dry analysis (read-only; dead-code candidates
	// are already outside the lower bound) that the real one below
	// repeats once the locations exist.
	dry := newCloner(f, clonerConfig{expand: expand})
	if err := dry.analyze(); err != nil {
		return nil, err
	}
	if total := checked.SatAdd(others, dry.project(removableFunc(f)).lower); exceedsCeiling(total) {
		return nil, &CeilingError{TotalCount: total, Projected: true, Where: "function " + f.Name}
	}
	n, err := memlocsGeneration(f)
	if err != nil {
		return nil, err
	}
	st.BlockTensors += n
	st.DeadRemoved += DCE(f)
	c := newCloner(f, clonerConfig{expand: expand, remapDeps: level != 2})
	if err := c.analyze(); err != nil {
		return nil, err
	}
	removable := removableFunc(f)
	proj := c.project(removable)
	if total := checked.SatAdd(others, proj.lower); exceedsCeiling(total) {
		return nil, &CeilingError{TotalCount: total, Projected: true, Where: "function " + f.Name}
	}
	return &fullUnrollPlan{c: c, proj: proj, removable: removable}, nil
}

// maxCreated bounds the instructions FullUnroll holds before its final
// dead-code elimination (the module's other functions plus every clone,
// removable ones included) and the dependency-ordinal entries it
// allocates: the 25M ceiling itself, so that memory stays at what a
// legal 25M-instruction module needs (docs/unroll.md: 3.5 GiB). The seed
// has no such guard: it creates every clone (10^12 for a nest whose
// clones all die but the last) and removes the dead ones afterwards. It
// was 4 x the ceiling (100M clones, about 15 GiB); a module whose unroll
// needs more than 25M instructions before dce, though fewer after, is
// now refused.
const maxCreated = MaxTotalCount

// fullUnrollFunction is FullUnroll's unroll_function for one function;
// others is the final count of the rest of the module (for the ceiling).
func fullUnrollFunction(f *bir.Function, mode fnMode, level int, opt FullUnrollOptions, others int64, st *Stats) error {
	pl, err := planFullUnroll(f, mode, level, others, st)
	if err != nil {
		return err
	}
	c, proj, removable := pl.c, pl.proj, pl.removable
	bm := newBlockMap(f)
	c.cfg.locFor = bm.locFor
	c.cfg.removable = removable
	keptLower := proj.lower - c.clonesLowerRemovable(removable)
	var certain, created int64
	c.cfg.count = func(rem bool) error {
		created++
		if !rem {
			certain++
		}
		if opt.Progress != nil && created&0xffff == 0 {
			opt.Progress(created, max(proj.clones, created))
		}
		if total := others + keptLower + certain; exceedsCeiling(total) {
			return &CeilingError{TotalCount: total, Counting: true}
		}
		if others+created > maxCreated {
			return diag.Errorf(diag.TooManyInsts, "%s: more than %d instructions in the module before dead-code elimination (clones that dce would remove count until it runs); stopping to bound memory", CeilingMessage, int64(maxCreated))
		}
		return nil
	}
	if total := checked.SatAdd(others, checked.SatAdd(proj.upper-proj.clones, proj.sureClones)); total > maxCreated {
		return diag.Errorf(diag.TooManyInsts, "%s: total_count=%d instructions projected before dead-code elimination (clones that dce would remove count until it runs), want <= %d; stopping before cloning to bound memory (function %s)", CeilingMessage, total, int64(maxCreated), f.Name)
	}
	c.reserve(proj, MaxTotalCount)
	if err := c.allocOrdinals(maxCreated); err != nil {
		return &CeilingError{TotalCount: proj.upper, Projected: true, Where: err.Error()}
	}
	if err := c.run(); err != nil {
		return err
	}
	st.Functions++
	st.Loops += c.expandedLoops()
	st.Clones += c.clones
	st.Dropped += c.droppedCount
	if err := splitFunction(f, opt, st); err != nil {
		return err
	}
	st.DeadRemoved += DCE(f)
	if mode == modeWhole {
		f.AddAttribute("unrolled")
		f.RemoveAttribute(footprint.NeedUnrollAttr)
	}
	return nil
}

// splitFunction performs the splitShape cut on f (split.go).
func splitFunction(f *bir.Function, opt FullUnrollOptions, st *Stats) error {
	sp, err := splitMarkedTensors(f)
	if err != nil {
		return err
	}
	st.TensorsSplit += sp.tensors
	st.SubLocations += sp.locs
	st.InstructionsSplit += sp.insts
	for _, k := range sp.kept {
		logf(opt.Logf, "INFO (FullUnroll) tensorSplit: function %s: kept whole: %s", f.Name, k)
	}
	return nil
}

// clonesLowerRemovable is the part of the lower bound inside expanded
// loops.
func (c *cloner) clonesLowerRemovable(removable func(bir.InstID) bool) int64 {
	var n int64
	for i := 0; i < c.nslots; i++ {
		p := c.plans[i]
		id := bir.InstID(i)
		if p == nil || c.pos[i] < 0 || p.nest == 0 || c.f.Inst(id).Op.IsLoop() {
			continue
		}
		if c.f.Inst(id).Pred == 0 && !c.predicatedAncestor(p.loop) && !removable(id) {
			n = checked.SatAdd(n, c.nests[p.nest].size)
		}
	}
	return n
}

// ---- the pass ----

// FullUnrollPass is the "full_unroll" pass. Its option unrollLevel has no
// default (the seed asserts it is set); FullUnrollPassAt gives the entry
// with a level. At level 2 it establishes verify.StageUnrolled (declared);
// register levels 0 and 1 through FullUnrollPassAt, which declares nothing
// for them. Run it after SBSizeLegalization (which marks splitShape) and
// heuristic_unroll (whose marks level 1 honours), and before allocation.
var FullUnrollPass = pass.Pass{
	Name:     "full_unroll",
	Default:  false,
	Produces: verify.StageUnrolled,
	Options: []pass.Option{
		{Name: "unrollLevel", Default: "", Doc: "0: only memloc generation; 1: unroll functions marked need_unroll and loops marked by heuristic_unroll; 2: unroll all and erase dependencies; auto: 1 for a function with a DynamicForLoop or DoWhile, 2 for the others (required)"},
	},
	Doc: "FullUnroll: level-gated unroll (0/1/2), per-block memlocs, splitShape cut, dce, the 25M instruction ceiling (seed 003)",
	Run: runFullUnroll,
}

// FullUnrollPassAt returns FullUnrollPass with unrollLevel defaulting to
// level (the seeds' full_unroll binary registers one pass per level), and
// Produces set to what that level establishes.
func FullUnrollPassAt(level int) pass.Pass {
	p := FullUnrollPass
	def := strconv.Itoa(level)
	if level == LevelAuto {
		def = "auto"
	}
	p.Options = []pass.Option{{Name: "unrollLevel", Default: def, Doc: FullUnrollPass.Options[0].Doc}}
	if level != 2 && level != LevelAuto {
		p.Produces = 0 // loops may remain (auto: decided per run)
	}
	return p
}

func runFullUnroll(ctx *pass.Context) error {
	level := LevelUnset
	if v := ctx.Option("unrollLevel"); v == "auto" {
		level = LevelAuto
	} else if v != "" {
		n, err := ctx.IntOption("unrollLevel")
		if err != nil {
			return err
		}
		level = int(n)
	}
	if level != 2 {
		ctx.SetProduced(0) // loops may remain below level 2
	}
	st, err := FullUnroll(ctx.Module, FullUnrollOptions{Level: level, Logf: ctx.Logf, OnFunction: ctx.Function, Progress: ctx.Progress})
	if level == LevelAuto && err == nil && st.FunctionsAtLevel2 == len(ctx.Module.Funcs) {
		ctx.SetProduced(verify.StageUnrolled) // every function unrolled completely
	}
	report(ctx, st)
	return passError(ctx, err)
}
