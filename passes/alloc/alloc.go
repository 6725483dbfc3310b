// Package alloc is narwhal's static memory planner (seed 002 §4, with the
// placement rules of §3; design.md "Allocation, scheduling and
// synchronization"): after it, every SB and PSUM location the program
// touches has an address, and the user sees why it fits or not.
//
// Three passes, in this order, after shrink_ml (the SB-legal stage):
//
//	infer_psum_tensor  infer_psum_tensor.go  OnChip (placement open) -> SB or PSUM (InferPSumTensor, §4.4)
//	pre_schedule       pre_schedule.go       straight-line code: the program order if its max-live fits,
//	                                         else a pressure-aware list schedule
//	alloc              alloc.go              live intervals (model.go; loops: decision.go), addresses
//	                                         (assign.go), ModuloAllocation (modulo.go), spills (spill.go);
//	                                         produces verify.StageAllocated
//
// After them, a block's instruction order is the order the live intervals
// refer to: the interpreter, the verifier's overlap rule and the scheduler
// see the order the allocation assumed.
//
// The report (report.go) shows, per memory, the peak against the budget
// and against max-live, with the seed's linear-scan allocator beside the
// solver used, the PSUM banks used and the spills; --memmap and
// --dump-alloc-problem write the allocation and the problem.
package alloc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pack"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Allocator names (option allocator).
const (
	AllocPack       = "pack"
	AllocLinearScan = "linear-scan"
)

// DefaultExactNodes is the default node budget of the exact search per
// time component.
const DefaultExactNodes = 200_000

// DefaultSlack is the default of Options.Slack.
const DefaultSlack = 0.02

// Options configure Allocate.
type Options struct {
	// Allocator is AllocPack (default) or AllocLinearScan.
	Allocator string
	// ExactNodes bounds pack's exact search per component (0: the default).
	ExactNodes int64
	// Baseline also runs the allocator not chosen, for the report's
	// comparison (its placement is discarded).
	Baseline bool
	// Reuse is the sweep's policy among free regions that fit (the pass's
	// default is pack.ReuseSpread; the zero value is ReuseOldestFreed).
	Reuse pack.ReusePolicy
	// Slack: a sweep placement whose peak is within max-live x (1+Slack)
	// is kept; beyond it pack's solver minimizes the peak (default 0.02).
	Slack float64
	// Memmap and DumpProblem name files to write (report.go): the memory
	// map (.svg or .csv) and the allocation problem (MiniMalloc CSV).
	Memmap, DumpProblem string
	// Interleave is ModuloAllocation's factor: 0 chooses (at most 2), a
	// positive number asks for exactly that many PSUM slots per loop.
	Interleave int
	// OnFunction is told the function being worked on ("" when done).
	OnFunction func(string)
}

// MemStats describe one memory's allocation over the module (the worst
// function's figures).
type MemStats struct {
	Locations    int   // locations placed (fixed obstacles excluded)
	Fixed        int   // fixed obstacles
	Peak         int64 // highest byte used per partition by the placement
	PackPeak     int64 // the compact placement's peak (the packing quality)
	PackUnknown  bool  // some function's compact placement was not computed
	MaxLive      int64 // the 2-D max-live lower bound on the peak
	Budget       int64 // capacity per partition
	BaselinePeak int64 // the other allocator's peak (0: not run)
	BanksUsed    int   // PSUM: distinct banks holding a location
	Method       string
}

// Stats are the allocation's results.
type Stats struct {
	Mem       [numMems]MemStats
	Allocator string
	Baseline  string
	Functions int
	Blocks    blockStats
	Spills    SpillStats
	Modulo    ModuloStats
	// Fixed compares the placements kernels chose with the planner's
	// (fixed.go), per function with pinned locations.
	Fixed []FixedStats
}

// Allocate places every on-chip location of m.
func Allocate(m *bir.Module, a *arch.Model, opt Options) (Stats, error) {
	st := Stats{Allocator: opt.Allocator}
	if st.Allocator == "" {
		st.Allocator = AllocPack
	}
	if st.Allocator != AllocPack && st.Allocator != AllocLinearScan {
		return st, diag.Errorf(diag.PassOption, "allocator %q: want %s or %s", opt.Allocator, AllocPack, AllocLinearScan)
	}
	if opt.Baseline {
		st.Baseline = AllocLinearScan
		if st.Allocator == AllocLinearScan {
			st.Baseline = AllocPack
		}
	}
	if opt.ExactNodes <= 0 {
		opt.ExactNodes = DefaultExactNodes
	}
	if opt.Slack <= 0 {
		opt.Slack = DefaultSlack
	}
	g, err := geometries(a)
	if err != nil {
		return st, err
	}
	for k := range st.Mem {
		st.Mem[k].Budget = g[k].capacity
	}
	var mm *memMap
	if opt.Memmap != "" || opt.DumpProblem != "" {
		mm = newMemMap(a, g)
	}
	for _, f := range m.FuncsMainFirst() {
		if opt.OnFunction != nil {
			opt.OnFunction(f.Name)
		}
		st.Functions++
		if err := allocateFunction(f, g, st.Allocator, st.Baseline, opt, &st, mm); err != nil {
			return st, err
		}
	}
	if opt.OnFunction != nil {
		opt.OnFunction("")
	}
	if mm != nil {
		if err := writeOutputs(mm, opt.Memmap, opt.DumpProblem); err != nil {
			return st, err
		}
	}
	return st, nil
}

func allocateFunction(f *bir.Function, g [numMems]geometry, allocator, baseline string, opt Options, st *Stats, mm *memMap) error {
	for l := 0; l < f.NumLocs(); l++ {
		if lc := f.Loc(bir.LocID(l)); !lc.Dead && lc.Type == bir.MemOnChip {
			// The input's, under --passes without infer_psum_tensor.
			return diag.Wrap(diag.Stage, f.LocErrorf(bir.LocID(l), "memory type OnChip (placement open): run infer_psum_tensor first"))
		}
	}
	if hasLoops(f) {
		if err := createLocalTensors(f, &st.Blocks); err != nil {
			return err
		}
	}
	straight := len(f.Top) == 1 && !hasLoops(f) && !hasBranches(f)
	target := [numMems]float64{1, 1}
	var tried []string
	for round := 0; ; round++ {
		md := newModel(f)
		if md.err != nil {
			return md.err
		}
		md.intervals()
		if round == 0 && md.loops && !md.control {
			changed, err := moduloAllocation(f, md, g, opt.Interleave, &st.Modulo)
			if err != nil {
				return err
			}
			if changed {
				md = newModel(f)
				md.intervals()
			}
		}
		items := buildItems(md, g)
		var res [numMems]solveResult
		var fail *FitError
		for mem := 0; mem < numMems; mem++ {
			if len(items[mem]) == 0 {
				continue
			}
			r, err := solve(allocator, items[mem], g[mem], opt)
			if err != nil {
				// pack refuses only a malformed problem, which the model
				// never builds (a fit failure is FitError, below).
				return diag.Wrap(diag.Internal, fmt.Errorf("function %s: %s: %w", f.Name, memNames[mem], err))
			}
			res[mem] = r
			if !r.fits && fail == nil {
				fail = &FitError{Func: f.Name, Mem: memNames[mem], Budget: g[mem].capacity, MaxLive: r.maxLive, Peak: r.peak, Reason: r.reason, Live: liveSet(md, items[mem])}
				if round == 0 {
					if mem == memSB {
						st.Spills.SBExcess += max(0, r.maxLive-g[mem].capacity)
					} else {
						st.Spills.PSUMExcess += max(0, r.maxLive-g[mem].capacity)
					}
				}
			}
		}
		if fail == nil {
			if mm != nil {
				mm.addFunction(md, items, res)
			}
			record(f, items, res, g, allocator, baseline, opt, st)
			if fs := compareFixed(f, md, items, res, g, allocator, opt); fs != nil {
				st.Fixed = append(st.Fixed, *fs)
			}
			return nil
		}
		if !straight {
			fail.Tried = append(tried, "spilling: the function is not straight-line code (loops or branches remain); MaxLiveSpiller and SpillPSum work on unrolled code (full_unroll.unrollLevel=2)")
			return fail
		}
		if round == maxSpillRounds {
			fail.Tried = append(tried, fmt.Sprintf("spilling: gave up after %d rounds", round))
			return fail
		}
		// Per memory that does not fit: spill until the live area fits
		// the capacity; where it already does (the packing fragments),
		// spill below it, deeper each round. Memories that fit do not
		// spill.
		next := [numMems]float64{2, 2}
		frag := false
		for mem := range res {
			if len(items[mem]) == 0 || res[mem].fits {
				continue
			}
			next[mem] = 1
			if res[mem].maxLive <= g[mem].capacity {
				next[mem] = min(target[mem], 1) - 0.04
				frag = true
			}
		}
		target = next
		n, err := spillFunc(f, g, target, &st.Spills)
		for n == 0 && err == nil && frag && minTarget(target) > 0.5 {
			for mem := range target {
				if target[mem] < 1 {
					target[mem] -= 0.04
				}
			}
			n, err = spillFunc(f, g, target, &st.Spills)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			fail.Tried = append(tried, fmt.Sprintf("%s: no location left to spill at the worst instant: each live one is accessed there, belongs to a NoSpill tensor, arrives placed, was not written whole before it, or (PSUM) is written again later", spillerName(fail.Mem)))
			return fail
		}
		st.Spills.Rounds++
		tried = append(tried, fmt.Sprintf("%s round %d: %d location(s) spilled (target %.2f of the capacity)", spillerName(fail.Mem), round+1, n, target[memOfName(fail.Mem)]))
	}
}

// minTarget is the lowest spill target of the memories that spill.
func minTarget(t [numMems]float64) float64 { return min(t[0], t[1]) }

func spillerName(mem string) string {
	if mem == memNames[memPSUM] {
		return "SpillPSum"
	}
	return "MaxLiveSpiller"
}

func memOfName(mem string) int {
	if mem == memNames[memPSUM] {
		return memPSUM
	}
	return memSB
}

// hasBranches reports whether f has a branch instruction.
func hasBranches(f *bir.Function) bool {
	found := false
	f.Walk(func(i bir.InstID) bool {
		op := f.Inst(i).Op
		found = op == bir.OpCompareAndBranch || op == bir.OpUnconditionalBranch
		return !found
	})
	return found
}

// record applies a fitting allocation and adds it to the statistics. The
// baseline allocator runs last, on the items themselves (their placements
// are applied by then): a copy of them was 64 bytes per location.
func record(f *bir.Function, items [numMems][]item, res [numMems]solveResult, g [numMems]geometry, allocator, baseline string, opt Options, st *Stats) {
	for mem := 0; mem < numMems; mem++ {
		its := items[mem]
		if len(its) == 0 {
			continue
		}
		ms := &st.Mem[mem]
		apply(f, its, g[mem])
		for _, it := range its {
			if it.fixed {
				ms.Fixed++
			} else {
				ms.Locations++
			}
		}
		r := res[mem]
		ms.Peak = max(ms.Peak, r.peak)
		switch {
		case r.packPeak > 0:
			ms.PackPeak = max(ms.PackPeak, r.packPeak)
		case r.method != "sweep(spread)":
			ms.PackPeak = max(ms.PackPeak, r.peak) // the placement is the compact one
		default:
			ms.PackUnknown = true // large problem placed by the spread sweep alone
		}
		ms.MaxLive = max(ms.MaxLive, r.maxLive)
		if ms.Method == "" || r.method != ms.Method {
			ms.Method = r.method
		}
		if mem == memPSUM {
			ms.BanksUsed = max(ms.BanksUsed, banksUsed(its, g[mem]))
		}
		if baseline != "" {
			var b solveResult
			var err error
			if baseline == AllocLinearScan {
				b, err = solveLinearScan(its, g[mem], false)
			} else {
				b, err = solve(baseline, its, g[mem], opt)
			}
			if err == nil {
				ms.BaselinePeak = max(ms.BaselinePeak, b.peak)
			}
		}
	}
}

func solve(allocator string, items []item, g geometry, opt Options) (solveResult, error) {
	if allocator == AllocLinearScan {
		return solveLinearScan(items, g, true)
	}
	return solvePack(items, g, opt.ExactNodes, opt.Reuse, opt.Slack)
}

// banksUsed counts the PSUM banks holding at least one location.
func banksUsed(items []item, g geometry) int {
	used := make([]bool, g.banks)
	n := 0
	for _, it := range items {
		for b := it.off / g.bank; b*g.bank < it.off+it.size && b < g.banks; b++ {
			if !used[b] {
				used[b] = true
				n++
			}
		}
	}
	return n
}

// FitError says that a memory's locations cannot all be placed: the live
// set at the worst instant, tensor by tensor, the budget, and what was
// tried.
type FitError struct {
	Func    string
	Mem     string
	Budget  int64
	MaxLive int64
	Peak    int64
	Reason  string
	Live    []LiveLoc
	Tried   []string
}

// ErrorCode is diag.DoesNotFit.
func (e *FitError) ErrorCode() string { return diag.DoesNotFit }

// ErrorSubject is what the error is about as data: the function and the
// largest location live at the worst instant (its first access is the
// position the pass manager reports).
func (e *FitError) ErrorSubject() *bir.Subject {
	s := &bir.Subject{Func: e.Func, Inst: bir.NoInst, Tensor: bir.NoTensor, Loc: bir.NoLoc}
	if len(e.Live) > 0 {
		s.Loc = e.Live[0].Loc
	}
	return s
}

// LiveLoc is one location of a live set.
type LiveLoc struct {
	Name        string // location
	Tensor      string
	Partitions  int64
	Bytes       int64  // bytes per partition as placed
	First, Last string // instructions of the live interval's ends
	Pos         string // source position of the first access (file:line:col), "" when unknown
	Loc         bir.LocID
}

func (e *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "function %s: %s does not fit: %d bytes per partition available, max-live %d", e.Func, e.Mem, e.Budget, e.MaxLive)
	if e.Peak > 0 {
		fmt.Fprintf(&b, ", best placement peak %d", e.Peak)
	}
	if e.Reason != "" {
		fmt.Fprintf(&b, " (%s)", e.Reason)
	}
	if len(e.Live) > 0 {
		b.WriteString("; live at the worst instant:")
		for _, l := range e.Live {
			fmt.Fprintf(&b, "\n  %s (tensor %s): %d partitions x %d bytes, live %s..%s", l.Name, l.Tensor, l.Partitions, l.Bytes, l.First, l.Last)
			if l.Pos != "" {
				fmt.Fprintf(&b, " (%s)", l.Pos)
			}
		}
	}
	for _, t := range e.Tried {
		fmt.Fprintf(&b, "\n  tried: %s", t)
	}
	return b.String()
}

// liveSet returns the locations live at the instant of highest live area
// (bytes x quadrants spanned), largest first.
func liveSet(md *model, items []item) []LiveLoc {
	if len(items) == 0 {
		return nil
	}
	type ev struct {
		t int32
		d int64
	}
	evs := make([]ev, 0, 2*len(items))
	area := func(it item) int64 { return it.size * int64((it.parts+31)/32) }
	for _, it := range items {
		evs = append(evs, ev{it.lo, area(it)}, ev{it.hi + 1, -area(it)})
	}
	sortEvents := func(a, b ev) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return int(a.d - b.d)
	}
	slices.SortFunc(evs, sortEvents)
	var cur, best int64
	var at int32
	for _, e := range evs {
		cur += e.d
		if cur > best {
			best, at = cur, e.t
		}
	}
	f := md.f
	var out []LiveLoc
	for _, it := range items {
		if it.lo <= at && at <= it.hi {
			lc := f.Loc(it.loc)
			ll := LiveLoc{Loc: it.loc, Name: lc.Name, Tensor: f.Tensor(lc.Tensor).Name, Partitions: int64(it.parts), Bytes: it.size}
			if md.flags[it.loc]&lfUsed != 0 {
				first := md.firstInst[it.loc]
				ll.First, ll.Last = f.InstName(first), f.InstName(md.lastInst[it.loc])
				ll.Pos = f.InstPos(first).String()
			}
			out = append(out, ll)
		}
	}
	slices.SortFunc(out, func(a, b LiveLoc) int {
		if x, y := a.Bytes*a.Partitions, b.Bytes*b.Partitions; x != y {
			if x > y {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// ---- the passes ----

// InferPSumTensorPass is the "infer_psum_tensor" pass.
var InferPSumTensorPass = pass.Pass{
	Name:    "infer_psum_tensor",
	Default: true,
	Options: []pass.Option{
		{Name: "act_to_psum", Default: "true", Doc: "place Activation results in PSUM where every access can touch PSUM and each location fits a bank (the seed's rule; false: SBUF)"},
	},
	Doc: "InferPSumTensor: every OnChip (placement open) location to PSUM or SBUF by can_write_to_psum / can_read_from_psum / force_tensortensor_psum_sb (seed 002 §4.4)",
	Run: runInfer,
}

func runInfer(ctx *pass.Context) error {
	act, err := ctx.BoolOption("act_to_psum")
	if err != nil {
		return err
	}
	st, err := InferPSumTensor(ctx.Module, ctx.Arch, InferOptions{ActToPSUM: act}, ctx.Function)
	ctx.Function("")
	if st.OpenTensors > 0 {
		ctx.Count("onchip_tensors", int64(st.OpenTensors))
		ctx.Count("to_psum", int64(st.ToPSUM))
		ctx.Count("to_sb", int64(st.ToSB))
		ctx.Count("act_to_psum", int64(st.ActToPSUM))
		ctx.Count("force_tensortensor_psum_sb", int64(st.ForcedSB))
		ctx.Logf("%s", inferSummary(st))
	}
	return err
}

// PreSchedulePass is the "pre_schedule" pass.
var PreSchedulePass = pass.Pass{
	Name:    "pre_schedule",
	Default: true,
	Options: []pass.Option{
		{Name: "target", Default: "0.98", Doc: "the fraction of the SBUF and PSUM budgets the order may fill before the list schedule reorders for pressure"},
		{Name: "force", Default: "false", Doc: "list-schedule every straight-line function, even when the program order fits"},
	},
	Doc: "pre-schedule: keeps the program order of straight-line code when its max-live fits the budget, else a pressure-aware list schedule (location-level dependencies)",
	Run: runPreSchedule,
}

func runPreSchedule(ctx *pass.Context) error {
	target, err := ctx.FloatOption("target")
	if err != nil {
		return err
	}
	if target <= 0 || target > 1 {
		return diag.Errorf(diag.PassOption, "option target=%v: want a fraction in (0, 1]", target)
	}
	force, err := ctx.BoolOption("force")
	if err != nil {
		return err
	}
	st, err := PreSchedule(ctx.Module, ctx.Arch, PreOptions{Target: target, Force: force, OnFunction: ctx.Function})
	if err != nil {
		return err
	}
	ctx.Count("functions", int64(st.Functions))
	ctx.Count("kept", int64(st.Kept))
	ctx.Count("reordered", int64(st.Reordered))
	ctx.Count("moved", int64(st.Moved))
	if st.Reordered > 0 {
		ctx.Logf("INFO (pre_schedule): %d function(s) reordered, %d instructions moved; SBUF live area %d -> %d bytes per partition", st.Reordered, st.Moved, st.PeakBefore, st.PeakAfter)
	}
	return nil
}

// AllocPass is the "alloc" pass: live intervals, addresses, modulo
// allocation and spills; it produces verify.StageAllocated.
var AllocPass = pass.Pass{
	Name:     "alloc",
	Default:  true,
	Requires: verify.StageSBLegal,
	Produces: verify.StageAllocated,
	Options: []pass.Option{
		{Name: "allocator", Default: AllocPack, Doc: "pack (the 2-D solver: greedy, exact search, best-fit) or linear-scan (the seed's LinearScanStackAllocator)"},
		{Name: "exact_nodes", Default: fmt.Sprint(DefaultExactNodes), Doc: "node budget of pack's exact search per time component"},
		{Name: "baseline", Default: "true", Doc: "also run the other allocator and report its peak beside the one used"},
		{Name: "reuse", Default: "spread", Doc: "pack's sweep: among free regions below the peak, the one freed longest ago (oldest-freed: fewer reuse hazards for the scheduler), the smallest (best-fit), or oldest-freed up to the capacity (spread: reuse only when memory runs out)"},
		{Name: "psum_interleave", Default: "auto", Doc: "ModuloAllocation: PSUM slots a parallel loop's local PSUM tensors rotate over (auto: up to 2 where the banks allow; a number: exactly that, or the seed's \"exceeded PSUM bank limit\" error)"},
		{Name: "memmap", Default: "", Doc: "write the memory map to this .svg or .csv file (narwhal compile --memmap)"},
		{Name: "dump_problem", Default: "", Doc: "write the allocation problem to this MiniMalloc CSV file, PSUM to FILE-psum.csv (narwhal compile --dump-alloc-problem)"},
		{Name: "slack", Default: fmt.Sprint(DefaultSlack), Doc: "a sweep placement within max-live x (1 + slack) is kept; beyond it pack's solver minimizes the peak"},
	},
	Doc: "the memory planner: live intervals (AllocationDecision, AllocateBlocks, stack discipline in loops), SB/PSUM addresses (pack or LinearScanStackAllocator), accumulation groups own their bank (seed 002 §4)",
	Run: runAlloc,
}

func runAlloc(ctx *pass.Context) error {
	nodes, err := ctx.IntOption("exact_nodes")
	if err != nil {
		return err
	}
	base, err := ctx.BoolOption("baseline")
	if err != nil {
		return err
	}
	slack, err := ctx.FloatOption("slack")
	if err != nil {
		return err
	}
	interleave := 0
	if v := ctx.Option("psum_interleave"); v != "auto" {
		n, err := ctx.IntOption("psum_interleave")
		if err != nil || n < 1 {
			return diag.Errorf(diag.PassOption, "option psum_interleave=%q: want auto or a factor >= 1", v)
		}
		interleave = int(n)
	}
	var reuse pack.ReusePolicy
	switch r := ctx.Option("reuse"); r {
	case "oldest-freed":
		reuse = pack.ReuseOldestFreed
	case "best-fit":
		reuse = pack.ReuseBestFit
	case "spread":
		reuse = pack.ReuseSpread
	default:
		return diag.Errorf(diag.PassOption, "option reuse=%q: want oldest-freed, best-fit or spread", r)
	}
	st, err := Allocate(ctx.Module, ctx.Arch, Options{Allocator: ctx.Option("allocator"), ExactNodes: nodes, Baseline: base, Reuse: reuse, Slack: slack, Interleave: interleave,
		Memmap: ctx.Option("memmap"), DumpProblem: ctx.Option("dump_problem"), OnFunction: ctx.Function})
	if _, isFit := err.(*FitError); isFit || err == nil {
		ctx.Function("")
	}
	if err != nil {
		return err
	}
	for mem, ms := range st.Mem {
		name := strings.ToLower(memNames[mem])
		ctx.Count(name+"_locations", int64(ms.Locations))
		ctx.Count(name+"_peak", ms.Peak)
		if ms.PackUnknown {
			// Not computed (more than PackModelLimit locations: the spread
			// sweep alone places them): the counter says how many, the
			// packed peak is absent rather than 0.
			ctx.Count(name+"_packed_peak_not_computed", int64(ms.Locations))
		} else {
			ctx.Count(name+"_packed_peak", ms.PackPeak)
		}
		ctx.Count(name+"_max_live", ms.MaxLive)
		ctx.Count(name+"_budget", ms.Budget)
		if mem == memPSUM {
			ctx.Count("psum_banks_used", int64(ms.BanksUsed))
		}
		if st.Baseline != "" {
			ctx.Count(name+"_baseline_peak", ms.BaselinePeak)
		}
	}
	if sp := st.Spills; sp.SBSpills+sp.PSUMSpills > 0 {
		ctx.Count("MaxLiveSpiller.spills", int64(sp.SBSpills))
		ctx.Count("MaxLiveSpiller.bytes", sp.SBBytes)
		ctx.Count("SpillPSum.spills", int64(sp.PSUMSpills))
		ctx.Count("SpillPSum.bytes", sp.PSUMBytes)
	}
	if mo := st.Modulo; mo.Tensors > 0 {
		ctx.Count("ModuloAllocation.loops", int64(mo.Loops))
		ctx.Count("ModuloAllocation.tensors", int64(mo.Tensors))
		ctx.Count("ModuloAllocation.extra_banks", int64(mo.Banks))
	}
	if b := st.Blocks; b.Folded+b.Split > 0 {
		ctx.Count("createLocalTensors.folded", int64(b.Folded))
		ctx.Count("createLocalTensors.split", int64(b.Split))
	}
	ctx.AddReport("Allocation:", reportText(st))
	if len(st.Fixed) > 0 {
		ctx.AddReport("Fixed placements (the kernel's, beside the planner's):", fixedText(st.Fixed))
	}
	return nil
}

// reportText is the allocation block of the report.
func reportText(st Stats) string {
	var b strings.Builder
	for mem, ms := range st.Mem {
		ratio := func(x int64) string {
			if ms.MaxLive == 0 {
				return "-"
			}
			return fmt.Sprintf("%.3f", float64(x)/float64(ms.MaxLive))
		}
		if ms.PackUnknown {
			fmt.Fprintf(&b, " %-4s %s: max-live %d, packed peak not computed (more than %d locations placed by the spread sweep alone)", memNames[mem], st.Allocator, ms.MaxLive, PackModelLimit)
		} else {
			fmt.Fprintf(&b, " %-4s %s: max-live %d, packed peak %d (peak/max-live %s)", memNames[mem], st.Allocator, ms.MaxLive, ms.PackPeak, ratio(ms.PackPeak))
		}
		if st.Baseline != "" {
			fmt.Fprintf(&b, ", %s peak %d (%s)", st.Baseline, ms.BaselinePeak, ratio(ms.BaselinePeak))
		}
		fmt.Fprintf(&b, "; placed up to %d of %d bytes per partition (%.1f%%, %s), %d locations",
			ms.Peak, ms.Budget, 100*float64(ms.Peak)/float64(max(ms.Budget, 1)), ms.Method, ms.Locations)
		if ms.Fixed > 0 {
			fmt.Fprintf(&b, " + %d fixed", ms.Fixed)
		}
		if mem == memPSUM {
			fmt.Fprintf(&b, "; %d banks used", ms.BanksUsed)
		}
		b.WriteByte('\n')
	}
	sp := st.Spills
	if sp.SBSpills+sp.PSUMSpills == 0 {
		b.WriteString(" spills: none\n")
		return b.String()
	}
	if sp.SBSpills > 0 {
		fmt.Fprintf(&b, " spills: MaxLiveSpiller %d location(s) (%d bytes per partition in all), at most %d bytes per partition out of SBUF at once against the lower bound max(0, max-live - capacity) = %d; %d DMA bytes\n",
			sp.SBSpills, sp.SBBytes, sp.SBOutPeak, sp.SBExcess, sp.DMABytes)
	}
	if sp.PSUMSpills > 0 {
		fmt.Fprintf(&b, " spills: SpillPSum %d location(s) (%d bytes per partition in all), at most %d out of PSUM at once against the lower bound %d\n",
			sp.PSUMSpills, sp.PSUMBytes, sp.PSUMOutPeak, sp.PSUMExcess)
	}
	fmt.Fprintf(&b, " spills: %d round(s), %d instructions added\n", sp.Rounds, sp.Instructions)
	return b.String()
}

// hasLoops reports whether f has a loop (loops nest only in loops, so the
// top-level blocks tell).
func hasLoops(f *bir.Function) bool {
	for _, b := range f.Top {
		for _, i := range f.Block(b).Insts {
			if f.Inst(i).Op.IsLoop() {
				return true
			}
		}
	}
	return false
}
