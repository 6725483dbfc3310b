package sched

import (
	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// # assign_engines
//
// Every compute instruction whose engine is Unassigned gets one (the
// verifier's engine-assigned rule holds after it: StageEnginesAssigned).
// Instructions that already name an engine keep it. The seeds name no pass
// for this (the NKI front end resolves most engines, seed 002 §7 step 1);
// narwhal's rule, per opcode:
//
//   - an opcode one engine can run goes there (Matmult family: Tensor;
//     Activation: Scalar; Iota: GpSimd; TensorReduce, BNStats: Vector
//     when present, ...);
//   - Transpose: the Tensor engine when it reads SBUF and writes PSUM (the
//     PE form), else Vector (the 32x32 block form; interp's rule);
//   - an opcode several engines can run (TensorScalar, TensorScalarPtr,
//     TensorCopy, Reciprocal, Memset, TensorTensor, ...) goes to the
//     present engine among Vector and Scalar (in that order, GpSimd only
//     when neither can: its ~150-cycle start makes it the slowest for
//     small tiles, seed 002 §6.2) with the least work assigned so far, in
//     program order, priced by the cost model; GpSimd is never chosen for
//     an instruction with an operand in PSUM (seed 002 §4.4).
//
// A loop whose trip count is known only at run time (bir/runtime_loops.go)
// runs on one engine: every instruction of its body and every writer of a
// register its control reads (the bounds, a DoWhile's condition) goes to
// one engine E, and its DMAs are triggered there (alloc_semaphores). The
// registers are per engine sequencer (semantics.md §4.15: "64 x 32-bit
// registers per engine sequencer"), so the engine that computes the trip
// count is the one that can iterate; one engine iterating the body is
// narwhal's answer to "every engine that runs the body must know the trip
// count" (a body spread over several engines would need the count in
// each sequencer's registers: not implemented, an error NW410). E is the
// engine every instruction of that set can run on (a named engine; a
// hardware-DGE DMA's trigger, Sync or Scalar; a DMA with run-time
// descriptors, GpSimd; one with static descriptors, any: off Sync and
// Scalar it takes the software DGE, assign_hwdge_engine), preferring
// Vector, Scalar, Sync, GpSimd, Tensor.
//
// Pre: none. Post: StageEnginesAssigned; only Unassigned engines changed.

// AssignEnginesPass is the pass table entry.
var AssignEnginesPass = pass.Pass{
	Name:     "assign_engines",
	Default:  true,
	Produces: verify.StageEnginesAssigned,
	Doc:      "an engine for every compute instruction left Unassigned (least-loaded of the engines the opcode runs on)",
	Run: func(ctx *pass.Context) error {
		var n int64
		err := ctx.ForEachFunction(func(f *bir.Function) error {
			k, err := AssignEngines(f, ctx.Arch)
			n += k
			return err
		})
		ctx.Count("engines_assigned", n)
		return err
	},
}

// needsEngine mirrors the verifier's engine-assigned rule: every non-DMA
// instruction that computes or moves data.
func needsEngine(info *bir.OpInfo) bool {
	return !info.Has(bir.FlagDMA) && info.Flags&(bir.FlagComputes|bir.FlagMovesData) != 0
}

// AssignEngines assigns f's Unassigned compute instructions (see the pass
// comment) and returns how many it assigned.
func AssignEngines(f *bir.Function, model *arch.Model) (int64, error) {
	pinned, err := assignRuntimeLoopEngines(f, model)
	if err != nil {
		return 0, err
	}
	n0, err := assignEngines(f, model)
	return n0 + pinned, err
}

// assignRuntimeLoopEngines puts each runtime loop's body and control
// writers on one engine (see the pass comment).
func assignRuntimeLoopEngines(f *bir.Function, model *arch.Model) (int64, error) {
	var n int64
	for _, l := range f.OutermostRuntimeLoops() {
		set := f.RuntimeLoopControlWriters(l)
		for _, b := range f.Loop(l).Body {
			f.WalkBlock(b, func(i bir.InstID) bool {
				if !f.Inst(i).Dead() && !f.Inst(i).Op.IsLoop() {
					set = append(set, i)
				}
				return true
			})
		}
		prefer := []bir.Engine{bir.EngDVE, bir.EngAct, bir.EngSP, bir.EngPool, bir.EngPE}
		can := map[bir.Engine]bool{}
		for _, e := range prefer {
			can[e] = model.HasEngine(e)
		}
		// The engines each instruction allows, intersected in order; the
		// first instruction that empties the intersection is named.
		blocker, before := bir.NoInst, bir.NoInst
		for _, i := range set {
			in := f.Inst(i)
			allowed := map[bir.Engine]bool{}
			switch {
			case in.Op.Info().Has(bir.FlagDMA):
				if !arch.StaticDMADescriptors(f, i) {
					allowed[bir.EngPool] = true
					if !model.HasEngine(bir.EngPool) {
						allowed[bir.EngSP] = true
					}
					break
				}
				for _, e := range prefer { // static descriptors: the hardware DGE from Sync or Scalar, the software DGE from any (assign_hwdge_engine)
					allowed[e] = true
				}
			case in.Engine != bir.EngUnassigned:
				allowed[in.Engine] = true
			default:
				engs := bir.InstEngines(in.Op, f.Attrs(i))
				for _, e := range prefer {
					allowed[e] = engs.Has(e)
				}
			}
			left := false
			for _, e := range prefer {
				left = left || can[e] && allowed[e]
			}
			if !left {
				blocker = i
				break
			}
			for _, e := range prefer {
				can[e] = can[e] && allowed[e]
			}
			if in.Engine != bir.EngUnassigned || in.Op.Info().Has(bir.FlagDMA) {
				before = i
			}
		}
		eng := bir.EngUnassigned
		for _, e := range prefer {
			if can[e] && blocker == bir.NoInst {
				eng = e
				break
			}
		}
		if eng == bir.EngUnassigned {
			what := "no engine of " + model.Name + " runs it"
			if blocker != bir.NoInst && before != bir.NoInst {
				what = "it cannot run on the engine " + f.InstName(before) + " needs"
			}
			at := blocker
			if at == bir.NoInst {
				at = l
			}
			return n, diag.Wrap(diag.LoopNotHandled, f.Errorf(at, "in the body or the control of %s, a %s whose trip count is known only at run time: %s; narwhal iterates a runtime loop on one engine, whose sequencer holds the trip count's registers (semantics.md §4.15): a body spread over several engines is not implemented", f.InstName(l), f.OpName(l), what))
		}
		for _, i := range set {
			in := f.Inst(i)
			if in.Engine == bir.EngUnassigned && !in.Op.Info().Has(bir.FlagDMA) {
				in.Engine = eng
				n++
			}
		}
		// The register instructions before the loop that set what its
		// body reads (LowerRuntimeLoops' induction variable and stride
		// copies, offsets): on the loop's engine too when they are free,
		// so the stream order, not a semaphore, orders them.
		reads := map[int32]bool{}
		for _, i := range set {
			for _, o := range f.Ins(i) {
				switch o.Kind {
				case bir.OpdRegister:
					reads[o.Ref] = true
				case bir.OpdRegAP:
					reads[int32(o.Expr)] = true
				}
			}
		}
		f.Walk(func(i bir.InstID) bool {
			in := f.Inst(i)
			if in.Dead() || in.Engine != bir.EngUnassigned || !in.Op.Info().Has(bir.FlagRegister) || !bir.InstEngines(in.Op, f.Attrs(i)).Has(eng) {
				return true
			}
			for _, o := range f.Outs(i) {
				if o.Kind == bir.OpdRegister && reads[o.Ref] {
					in.Engine = eng
					n++
					break
				}
			}
			return true
		})
	}
	return n, nil
}

func assignEngines(f *bir.Function, model *arch.Model) (int64, error) {
	// Nothing to assign (the common case): no need to price anything.
	needed := false
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		needed = in.Engine == bir.EngUnassigned && needsEngine(in.Op.Info())
		return !needed
	})
	if !needed {
		return 0, nil
	}
	var load [bir.NumEngines]int64
	var n int64
	var err error
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		info := in.Op.Info()
		if in.Engine != bir.EngUnassigned {
			if est, e := model.InstructionCost(f, i, in.Engine, false); e == nil && in.Engine < bir.NumEngines {
				load[in.Engine] += est.Ps()
			}
			return true
		}
		if !needsEngine(info) {
			return true
		}
		eng := chooseEngine(f, i, info, model, &load)
		if eng == bir.EngUnassigned {
			err = diag.Wrap(diag.EngineOpcode, f.Errorf(i, "no engine of %s can run %s (the engines it runs on are absent: arch.*-present)", model.Name, f.OpName(i)))
			return false
		}
		in.Engine = eng
		n++
		if est, e := model.InstructionCost(f, i, eng, false); e == nil {
			load[eng] += est.Ps()
		}
		return true
	})
	return n, err
}

func chooseEngine(f *bir.Function, i bir.InstID, info *bir.OpInfo, model *arch.Model, load *[bir.NumEngines]int64) bir.Engine {
	psum, psumOut, sbIn := false, false, false
	nin := int(f.Inst(i).NIns)
	for k, o := range f.Operands(i) {
		if o.Kind != bir.OpdPhysAP || int(o.Loc()) >= f.NumLocs() {
			continue
		}
		switch f.Loc(o.Loc()).Type {
		case bir.MemPSUM:
			psum = true
			psumOut = psumOut || k >= nin
		case bir.MemSB:
			sbIn = sbIn || k < nin
		}
	}
	engs := bir.InstEngines(f.Inst(i).Op, f.Attrs(i)) // narrowed for the variants of bir/isa.go
	can := func(e bir.Engine) bool {
		return engs.Has(e) && model.HasEngine(e) && !(e == bir.EngPool && psum)
	}
	op := f.Inst(i).Op
	switch {
	case op.IsMatmul():
		return pick(can, bir.EngPE)
	case op == bir.OpTranspose:
		if psumOut && sbIn && can(bir.EngPE) {
			return bir.EngPE
		}
		return pick(can, bir.EngDVE)
	}
	best := bir.EngUnassigned
	for _, e := range []bir.Engine{bir.EngDVE, bir.EngAct} {
		if can(e) && (best == bir.EngUnassigned || load[e] < load[best]) {
			best = e
		}
	}
	if best != bir.EngUnassigned {
		return best
	}
	return pick(can, bir.EngPool, bir.EngPE, bir.EngSP)
}

func pick(can func(bir.Engine) bool, es ...bir.Engine) bir.Engine {
	for _, e := range es {
		if can(e) {
			return e
		}
	}
	return bir.EngUnassigned
}

// # assign_hwdge_engine
//
// Seed 001 names the pass ("HWDGE-engine and queue assignment are the
// later assign_hwdge_engine / alloc_queues passes"; "bir::DGEType stays
// Unassigned(3) from the InstDMA ctor") and says no more. narwhal's rule:
// on a generation with hardware descriptor-generation engines (NC-v3: "+2
// hardware descriptor engines", hardware.md), a DMA whose descriptors are
// static (Load, Save, DMA, a DMACopy in Copy or Transpose mode) is issued
// through one of them, in turn (DGE k = the n-th such DMA mod the engine
// count); indirect DMAs (addresses read at run time), CCE copies and the
// descriptor opcodes keep the software DGE. The choice prices the DMA's
// fixed cost (hardware.md: "hardware DGE instruction about 600 ns on
// NC-v3" against about 2 us). The result is the schedule table's DGE
// column (bir.Schedule).
//
// Pre: none. Post: every DMA has a DGE entry (-1 software, k hardware).

// AssignHWDGEEnginePass is the pass table entry.
var AssignHWDGEEnginePass = pass.Pass{
	Name:    "assign_hwdge_engine",
	Default: true,
	Doc:     "hardware DGE engine for each static DMA on generations that have them (seed 001)",
	Run: func(ctx *pass.Context) error {
		var hw, sw int64
		err := ctx.ForEachFunction(func(f *bir.Function) error {
			h, s := AssignHWDGEEngine(f, ctx.Arch)
			hw += h
			sw += s
			return nil
		})
		ctx.Count("hwdge_dmas", hw)
		ctx.Count("swdge_dmas", sw)
		return err
	},
}

// table returns f's schedule table, creating it (or growing it) to cover
// every instruction slot.
func table(f *bir.Function) *bir.Schedule {
	if f.Sched == nil {
		f.Sched = bir.NewSchedule(f.NumInstSlots())
	} else {
		f.Sched.Grow(f.NumInstSlots())
	}
	return f.Sched
}

// AssignHWDGEEngine fills the DGE column of f's DMAs; it returns the
// number on hardware and software DGEs.
func AssignHWDGEEngine(f *bir.Function, model *arch.Model) (hw, sw int64) {
	tab := table(f)
	ne := model.HWDGEEngines
	// A runtime loop iterated by an engine that cannot fire the hardware
	// DGE ("Sync Engine or Scalar Engine sequencers invoke DGE hardware
	// block") fires its DMAs through the software DGE.
	swOnly := map[bir.InstID]bool{}
	for _, l := range f.OutermostRuntimeLoops() {
		if e := f.RuntimeLoopEngine(l); e != bir.EngSP && e != bir.EngAct {
			for _, b := range f.Loop(l).Body {
				f.WalkBlock(b, func(i bir.InstID) bool { swOnly[i] = true; return true })
			}
		}
	}
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.Info().Has(bir.FlagDMA) {
			return true
		}
		if ne > 0 && arch.StaticDMADescriptors(f, i) && !swOnly[i] {
			tab.DGE[i] = int8(hw % ne)
			hw++
		} else {
			tab.DGE[i] = -1
			sw++
		}
		return true
	})
	return hw, sw
}

// # alloc_queues
//
// Every DMA gets one of the generation's DMA queues (hardware.md: "DMA
// engines per core: 16"; seed 001 names the pass alloc_queues and gives no
// rule). narwhal's two policies (option policy):
//
//   - at-issue (the default): the queue is bound when the DMA issues, in
//     the TimeAwareScheduler's simulation: among the queues free by the
//     time it can start, the one that became free last (so the others stay
//     free for DMAs ready earlier). The queues are a pool of identical
//     engines, and a DMA bound to one before scheduling waits for that
//     queue while others idle: on the kernels at unlimited memory, binding
//     statically costs up to 1.3x the makespan (docs/schedule.md). The
//     pass leaves the Queue column at -1 and time_aware_scheduler fills it.
//   - balanced: in program order, each DMA goes to the queue with the
//     least estimated work assigned so far (the cost model's time of the
//     DMA, with its DGE), ties to the lowest queue: a static greedy
//     balance, the baseline the report's figures compare against.
//
// A DMA keeps a queue it already has (the input's or an earlier run's).
//
// Pre: assign_hwdge_engine (the DGE prices a DMA). Post: every DMA has a
// queue in 0..DMAQueues-1 (balanced) or -1, bound by the scheduler
// (at-issue).

// Queue policies (option policy of alloc_queues).
const (
	QueuesAtIssue  = "at-issue"
	QueuesBalanced = "balanced"
)

// AllocQueuesPass is the pass table entry.
var AllocQueuesPass = pass.Pass{
	Name:    "alloc_queues",
	Default: true,
	Options: []pass.Option{
		{Name: "policy", Default: QueuesAtIssue, Doc: "at-issue (the scheduler binds each DMA to the queue free first when it issues) or balanced (static, program order, least estimated work)"},
	},
	Doc: "a DMA queue for every DMA: bound when it issues (default) or balanced statically (seed 001)",
	Run: func(ctx *pass.Context) error {
		policy := ctx.Option("policy")
		var n int64
		err := ctx.ForEachFunction(func(f *bir.Function) error {
			k, err := AllocQueues(f, ctx.Arch, policy)
			n += k
			return err
		})
		ctx.Count("dmas", n)
		ctx.Count("queues", ctx.Arch.DMAQueues)
		return err
	},
}

// AllocQueues applies queue policy (QueuesAtIssue or QueuesBalanced) to
// f's DMAs; it returns the number of DMAs.
func AllocQueues(f *bir.Function, model *arch.Model, policy string) (int64, error) {
	if policy != QueuesAtIssue && policy != QueuesBalanced {
		return 0, diag.Errorf(diag.PassOption, "alloc_queues policy %q: want %s or %s", policy, QueuesAtIssue, QueuesBalanced)
	}
	tab := table(f)
	nq := model.DMAQueues
	if nq <= 0 || nq > 1<<15 {
		// arch.Model.Set refuses it: a model built in code.
		return 0, diag.Errorf(diag.Internal, "arch %s: %d DMA queues: want 1..32767", model.Name, nq)
	}
	load := make([]int64, nq)
	var n int64
	var err error
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.Info().Has(bir.FlagDMA) {
			return true
		}
		n++
		q := int(tab.Queue[i])
		if q >= 0 && int64(q) >= nq {
			q, tab.Queue[i] = -1, -1 // out of range for this arch: rebind
		}
		if policy == QueuesAtIssue {
			return true
		}
		est, e := model.InstructionCost(f, i, bir.EngDMA, tab.DGE[i] >= 0)
		if e != nil {
			err = f.Errorf(i, "%w", e)
			return false
		}
		if q < 0 {
			q = 0
			for k := range load {
				if load[k] < load[q] {
					q = k
				}
			}
			tab.Queue[i] = int16(q)
		}
		load[q] += est.Ps()
		return true
	})
	return n, err
}
