// Package unroll implements the loop flatteners of seed 003: Unroll (pass
// "unroll", the production per-instruction unroller), FullUnroll (pass
// "full_unroll", the level-gated unroller with the 25M ceiling and the
// splitShape tensor split that SBSizeLegalization delegates to it, seed
// 000 "The delegated clone") and HeuristicUnroll (pass "heuristic_unroll",
// the eligibility gate), plus the machinery they share: the cloner
// (cloner.go), per-iteration substitution (substitute.go, expr.go),
// block-tensor storage (tensor.go), dependency remapping (deps.go),
// dynamic-loop lowering (lower_dynamic.go), dead-code elimination (dce.go)
// and the instruction ceilings (limits.go).
//
// # Unroll (this file)
//
// Seed 003, "Unroll — the production per-instruction loop unroller":
//
//	Unroll_run:
//	  log "INFO (Unroll) Start unrolling at <ctime>"
//	  legalizeGenericAccess
//	  for each function ("main" first):
//	    unroll_function: tensorUnroll (every block tensor becomes a grid of
//	      per-block tensors), clone every static loop's body per iteration,
//	      drain the dependency fixup queue, reset use/def
//	    LowerDynamicExprs: DynamicForLoop / DoWhile stay loops, in register
//	      form
//	    mark the function "unrolled"
//	  check_in_place (re-allocation mode only)
//	  log "INFO (Unroll) DONE unrolling <ctime>"
//	  renumberCoreBarriers
//	  the budget guard: total_count <= max_instruction_limit
//
// Pre-conditions: a module the verifier accepts at any stage. Symbolic
// expressions only name axes of enclosing loops (reported otherwise).
//
// Post-conditions: no static Loop remains; every symbolic access pattern,
// symbolic immediate and predicate outside dynamic loops is folded (the
// instructions whose predicate was false for an iteration are gone); no
// block tensor remains except those still indexed by a dynamic loop or a
// register access pattern, and kernel inputs/outputs (these get per-block
// "_sub<b>" locations in place); dependencies are non-carried except
// those carried by dynamic loops; the function carries the attribute
// "unrolled". A module without DynamicForLoop/DoWhile then satisfies
// verify.StageUnrolled.
//
// Decisions where the seed is silent:
//
//   - The budget: the pass option max_instruction_limit, else
//     Module.Config.MaxInstructionLimit (the seeds' M.config[112]), else
//     DefaultMaxInstructionLimit (5,000,000). It is checked against a
//     lower bound before cloning and while cloning, so an oversized unroll
//     fails fast, and against the exact total at the end.
//   - Re-allocation mode (the seeds' M.config[109]): the pass option
//     realloc, else the module option "realloc". It turns on tensorSplit's
//     "mem.isAllocated()" assertion and check_in_place, which narwhal
//     reduces to "every SB/PSUM location an instruction uses is allocated"
//     (the seed's SMT formulation is not described).
//   - The seeds' eval_order (per-iteration order keys) and rebuild_loopnest
//     have no counterpart: narwhal's program order is the block list order
//     and clones live in their function's top-level blocks.
//   - registerUnroll (loop-carried scalar registers) has no counterpart:
//     registers are function-scoped in bir and need no duplication.
//   - renumberCoreBarriers gives the CoreBarrier instructions of the module
//     the ids 0, 1, 2, ... in program order, when unrolling cloned at least
//     one of them (clones of one barrier would otherwise share an id).
//   - A dependency on an unrolled Loop instruction itself is dropped
//     (program order places the loop's body before the dependent).
//
// All three unrollers recover a panic (a module the verifier would reject
// may reach an index they trust) into an *InternalError naming the pass
// and the function being processed; their pass entries report it as the
// pass manager reports any panic (a *pass.Error naming pass and function),
// and their OnFunction hooks, wired to pass.Context.Function, name the
// function as each per-function loop reaches it.
package unroll

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/bug"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/pass"
)

// UnrollOptions configure Unroll.
type UnrollOptions struct {
	// MaxInstructionLimit is the budget; <= 0 takes
	// Module.Config.MaxInstructionLimit, else DefaultMaxInstructionLimit.
	MaxInstructionLimit int64
	// Realloc turns on re-allocation mode.
	Realloc bool
	// Logf receives the seed's log lines (nil: discarded).
	Logf func(format string, args ...any)
	// Now stamps the log lines (nil: time.Now).
	Now func() time.Time
	// OnFunction, when set, is called with a function's name as the pass
	// starts working on that function, and with "" when it leaves
	// per-function work. The pass table entry sets it to
	// pass.Context.Function. A panic is reported (as an *InternalError)
	// against the function last named, with or without the hook.
	OnFunction func(name string)
}

// Stats describe what an unroller did.
type Stats struct {
	Functions          int   // functions unrolled
	Loops              int   // static loops expanded
	Clones             int64 // instructions created by cloning
	Dropped            int64 // clones not created because their predicate was false
	BlockTensors       int   // block tensors given per-block storage
	DynamicLoops       int   // DynamicForLoop / DoWhile lowered to register form
	RegisterInsts      int   // RegisterMove / RegisterAlu created by the lowering
	DeadRemoved        int   // instructions removed by dce (FullUnroll)
	TensorsSplit       int   // tensors cut by their splitShape mask (FullUnroll)
	FunctionsAtLevel2  int   // functions FullUnroll unrolled at level 2 (every loop, dependencies erased)
	SubLocations       int   // locations created by the splitShape cut
	InstructionsSplit  int   // instructions split into per-piece instructions
	TotalCount         int64 // instructions in the module afterwards
	HeuristicMarked    int   // loops marked by HeuristicUnroll
	HeuristicSkipped   int   // eligible loops skipped because of the MAXHU cap
	HeuristicEligible  int   // the seed's count (marked + skipped)
	CoreBarrierRenamed int
}

// ctime formats t as C's ctime() does (without the newline).
func ctime(now func() time.Time) string {
	if now == nil {
		now = time.Now
	}
	return now().Format(time.ANSIC)
}

func logf(fn func(string, ...any), format string, args ...any) {
	if fn != nil {
		fn(format, args...)
	}
}

// InternalError is a panic inside an unroller, recovered (no panic escapes
// a pass: a malformed module the verifier would reject may reach an index
// the unroller trusts).
type InternalError struct {
	Pass     string // "unroll", "full_unroll" or "heuristic_unroll"
	Function string // the function being processed; "" outside per-function work
	Value    any    // what the unroller panicked with
}

// Is makes an InternalError an internal error (bug.ErrInternal: exit
// status 2): whatever the module, an unroller must not panic.
func (e *InternalError) Is(target error) bool { return target == bug.ErrInternal }

// internalHint says what an InternalError most likely means.
const internalHint = "the module may be malformed; run narwhal verify on it"

func (e *InternalError) Error() string {
	if e.Function != "" {
		return fmt.Sprintf("%s: function %s: internal error (%s): %v", e.Pass, e.Function, internalHint, e.Value)
	}
	return fmt.Sprintf("%s: internal error (%s): %v", e.Pass, internalHint, e.Value)
}

// funcTracker records the function an unroller is working on, for
// internalError, and reports it to the caller's OnFunction hook.
type funcTracker struct {
	name string
	hook func(name string)
}

// enter records name ("" : no function) and calls the hook.
func (t *funcTracker) enter(name string) {
	t.name = name
	if t.hook != nil {
		t.hook(name)
	}
}

// internalError, deferred by an unroller's entry point, turns a panic into
// an *InternalError naming the function ft was last told of.
func internalError(what string, ft *funcTracker, err *error) {
	if r := recover(); r != nil {
		*err = &InternalError{Pass: what, Function: ft.name, Value: r}
	}
}

// passError finishes an unroller's pass entry. The function recorded
// through OnFunction is cleared: a returned error keeps its own wording
// (it names its function where it has one). An *InternalError becomes the
// panic *pass.Error the pass manager gives an unrecovered panic, naming
// the pass and the function (errors.As still finds the InternalError).
func passError(ctx *pass.Context, err error) error {
	ctx.Function("")
	var ie *InternalError
	if errors.As(err, &ie) {
		return &pass.Error{Pass: ctx.Pass.Name, Function: ie.Function, Panic: true, Err: internalCause{ie}}
	}
	return err
}

// internalCause is an InternalError's text without the pass and function,
// which the enclosing *pass.Error states.
type internalCause struct{ e *InternalError }

func (c internalCause) Error() string { return fmt.Sprintf("%s: %v", internalHint, c.e.Value) }
func (c internalCause) Unwrap() error { return c.e }

// Unroll runs the production unroller on m (see the file comment).
func Unroll(m *bir.Module, opt UnrollOptions) (st Stats, err error) {
	ft := &funcTracker{hook: opt.OnFunction}
	defer internalError("unroll", ft, &err)
	limit := opt.MaxInstructionLimit
	if limit <= 0 {
		limit = m.Config.MaxInstructionLimit
	}
	if limit <= 0 {
		limit = DefaultMaxInstructionLimit
	}
	logf(opt.Logf, "INFO (Unroll) Start unrolling at %s", ctime(opt.Now))
	funcs := m.FuncsMainFirst()
	// Instructions of the functions not processed yet count at their
	// current size; processed ones at their final size.
	var done int64
	for _, f := range funcs {
		ft.enter(f.Name)
		legalizeGenericAccess(f)
		c := newCloner(f, clonerConfig{
			expand:    func(f *bir.Function, l bir.InstID) bool { return true },
			remapDeps: true,
		})
		if err := c.analyze(); err != nil {
			return st, err
		}
		proj := c.project(nil)
		if checked.SatAdd(done, proj.lower) > limit {
			return st, &BudgetError{TotalCount: checked.SatAdd(done, proj.lower), Limit: limit, Projected: true, Where: "function " + f.Name}
		}
		// Block tensors still indexed by a kept (dynamic) loop keep their
		// identity; all others get the grid.
		inPlace := c.residualBlockTensors()
		if _, err := checkBlockCount(f, true); err != nil {
			return st, err
		}
		bm := newBlockMap(f)
		remove, err := tensorUnroll(f, bm, inPlace, opt.Realloc)
		if err != nil {
			return st, err
		}
		c.cfg.locFor = bm.locFor
		keptLower := proj.lower - c.clonesLower()
		var created int64
		c.cfg.count = func(bool) error {
			created++
			if checked.SatAdd(done, keptLower+created) > limit {
				return &BudgetError{TotalCount: done + keptLower + created, Limit: limit, Counting: true}
			}
			return nil
		}
		c.reserve(proj, limit)
		if err := c.allocOrdinals(limit); err != nil {
			return st, &BudgetError{TotalCount: proj.upper, Limit: limit, Projected: true, Where: err.Error()}
		}
		if err := c.run(); err != nil {
			return st, err
		}
		for _, t := range remove {
			f.RemoveTensor(t)
		}
		st.BlockTensors += len(remove)
		for t, ok := range inPlace {
			if ok || (f.Tensor(bir.TensorID(t)).IsBlock && !f.Tensor(bir.TensorID(t)).Dead && f.Tensor(bir.TensorID(t)).Kind != bir.KindInternal) {
				st.BlockTensors++
			}
		}
		nl, ni, err := LowerDynamicExprs(f)
		if err != nil {
			return st, err
		}
		st.DynamicLoops += nl
		st.RegisterInsts += ni
		f.AddAttribute("unrolled")
		st.Functions++
		st.Loops += c.expandedLoops()
		st.Clones += c.clones
		st.Dropped += c.droppedCount
		if c.clonedBarrier {
			st.CoreBarrierRenamed = -1 // renumber below
		}
		done += f.NumInsts()
	}
	ft.enter("")
	if opt.Realloc {
		for _, f := range funcs {
			ft.enter(f.Name)
			if err := checkInPlace(f); err != nil {
				return st, err
			}
		}
		ft.enter("")
	}
	logf(opt.Logf, "INFO (Unroll) DONE unrolling %s", ctime(opt.Now))
	if st.CoreBarrierRenamed != 0 {
		st.CoreBarrierRenamed = renumberCoreBarriers(m)
	}
	total := m.NumInsts()
	st.TotalCount = total
	logf(opt.Logf, "INFO (Unroll) InstProfiler: total_count=%d max_instruction_limit=%d", total, limit)
	if !InstCountFitsLimit(total, limit) {
		return st, &BudgetError{TotalCount: total, Limit: limit}
	}
	return st, nil
}

// residualBlockTensors marks the block tensors that keep being named after
// the unroll: those a symbolic AP inside a kept loop indexes with that
// loop's axis, and those a register AP names (its block is resolved at run
// time).
func (c *cloner) residualBlockTensors() []bool {
	in := make([]bool, c.f.NumTensors())
	for i := 0; i < c.nslots; i++ {
		p := c.plans[i]
		if p == nil || c.pos[i] < 0 {
			continue
		}
		for _, o := range c.f.Operands(bir.InstID(i)) {
			if o.Kind == bir.OpdRegAP && o.Ref >= 0 && int(o.Ref) < len(in) && c.f.Tensor(o.TensorRef()).IsBlock {
				in[o.TensorRef()] = true
			}
		}
		for _, so := range p.sym {
			if so.block == nil {
				continue
			}
			for _, a := range so.block.axes {
				if !c.boundAxis(p.loop, a) {
					o := c.f.Operands(bir.InstID(i))[so.k]
					if c.f.Tensor(o.TensorRef()).IsBlock {
						in[o.TensorRef()] = true
					}
				}
			}
		}
	}
	return in
}

// clonesLower is the part of the projection's lower bound that lies inside
// expanded loops.
func (c *cloner) clonesLower() int64 {
	var n int64
	for i := 0; i < c.nslots; i++ {
		p := c.plans[i]
		if p == nil || c.pos[i] < 0 || p.nest == 0 || c.f.Inst(bir.InstID(i)).Op.IsLoop() {
			continue
		}
		if c.f.Inst(bir.InstID(i)).Pred == 0 && !c.predicatedAncestor(p.loop) {
			n = checked.SatAdd(n, c.nests[p.nest].size)
		}
	}
	return n
}

func (c *cloner) expandedLoops() int {
	n := 0
	for _, l := range c.loops {
		if l.expanded {
			n++
		}
	}
	return n
}

// checkInPlace is narwhal's check_in_place: in re-allocation mode every
// on-chip location an instruction uses must be allocated after the unroll.
func checkInPlace(f *bir.Function) error {
	var err error
	f.Walk(func(i bir.InstID) bool {
		for k, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP || o.Ref < 0 || int(o.Ref) >= f.NumLocs() {
				continue
			}
			lc := f.Loc(o.Loc())
			if lc.Type.IsOnChip() && !lc.Allocated {
				err = f.Errorf(i, "operand %d: check_in_place: location %s is not allocated (re-allocation mode keeps every unrolled access on allocated storage)", k, lc.Name)
				return false
			}
		}
		return true
	})
	return err
}

// renumberCoreBarriers gives the module's CoreBarrier instructions the ids
// 0, 1, 2, ... in program order and returns how many there are.
func renumberCoreBarriers(m *bir.Module) int {
	n := 0
	for _, f := range m.FuncsMainFirst() {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == bir.OpCoreBarrier {
				f.SetAttr(i, "id", bir.Int(int64(n)))
				n++
			}
			return true
		})
	}
	return n
}

// ---- the pass ----

// UnrollPass is the "unroll" pass. Register it after
// translate_nki_ast_to_bir and heuristic_unroll, in place of (not with)
// full_unroll; it requires no stage and, because DynamicForLoop/DoWhile
// loops survive it in register form, declares none (a pipeline whose
// modules have static loops only may declare verify.StageUnrolled).
var UnrollPass = pass.Pass{
	Name:    "unroll",
	Default: false,
	Options: []pass.Option{
		{Name: "max_instruction_limit", Default: "0", Doc: "instruction budget after unrolling (0: Config.MaxInstructionLimit, else 5000000)"},
		{Name: "realloc", Default: "", Doc: "re-allocation mode: every block location must be allocated (default: the module option realloc)"},
	},
	Doc: "Unroll: clone every static loop per iteration, fold symbolic indices, split block tensors, lower dynamic loops to register form (seed 003)",
	Run: runUnroll,
}

func runUnroll(ctx *pass.Context) error {
	limit, err := ctx.IntOption("max_instruction_limit")
	if err != nil {
		return err
	}
	realloc, err := boolOption(ctx, "realloc", ctx.Module.Config.Options["realloc"])
	if err != nil {
		return err
	}
	st, err := Unroll(ctx.Module, UnrollOptions{MaxInstructionLimit: limit, Realloc: realloc, Logf: ctx.Logf, OnFunction: ctx.Function})
	err = passError(ctx, err)
	report(ctx, st)
	if err != nil {
		var be *BudgetError
		if errors.As(err, &be) {
			ctx.Count("unroll.total_count", be.TotalCount)
		}
		return err
	}
	return nil
}

// boolOption reads a boolean option whose empty default falls back to def
// (itself empty meaning false).
func boolOption(ctx *pass.Context, name, def string) (bool, error) {
	v := ctx.Option(name)
	if v == "" {
		v = def
	}
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("pass %s: option %s=%q: want true or false", ctx.Pass.Name, name, v)
	}
	return b, nil
}

func report(ctx *pass.Context, st Stats) {
	add := func(name string, v int64) {
		if v != 0 {
			ctx.Count(name, v)
		}
	}
	add("functions", int64(st.Functions))
	add("loops_unrolled", int64(st.Loops))
	add("clones", st.Clones)
	add("dropped_by_predicate", st.Dropped)
	add("block_tensors", int64(st.BlockTensors))
	add("dynamic_loops_lowered", int64(st.DynamicLoops))
	add("register_insts", int64(st.RegisterInsts))
	add("dce_removed", int64(st.DeadRemoved))
	add("backend::TotalSplitSbNodesCount", int64(st.TensorsSplit))
	add("sub_locations", int64(st.SubLocations))
	add("instructions_split", int64(st.InstructionsSplit))
	add("total_count", st.TotalCount)
}

// envOr returns the environment variable or def.
func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
