// Package semaphores turns a schedule into the synchronization the
// engines execute: seed 002 §6.5 (AllocSemaphores and AllocateSemaphores,
// trigger-engine assignment, InsertCoreBarrier, InsertPTCOMFlat) and §6.6
// (the sync fields of the per-engine streams). Its passes, in pipeline
// order:
//
//	insert_core_barrier     CoreBarriers of two-core kernels (core_barrier.go), before the dependency analysis
//	insert_ptcom_flat       a point-to-point completion after the last writes of each output (ptcom.go)
//	assign_trigger_engine   is_better_trigger for hardware-DGE DMAs, gated (trigger.go)
//	alloc_semaphores        semaphore waits and updates, carriers, rotations, stream endings (this file)
//
// The model the passes write (streams, what a wait and an update mean,
// barriers, Drain, Halt) is package stream's; the verifier's
// StageSynchronized rules check it exactly and the concurrent interpreter
// executes it.
package semaphores

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/stream"
	"github.com/narwhal-compiler/narwhal/verify"
)

// # alloc_semaphores
//
// What it does (seed 002 §6.5, "attach a semaphore wait/update to each
// ordering edge"). For every scheduled straight-line function (callees and
// the entry function alike):
//
//  1. Trigger engines. Every DMA without one gets its default trigger
//     engine (assignDefaultTrigger; the gated assign_trigger_engine pass
//     may have chosen some already): a hardware-DGE DMA the Sync engine
//     for DGE 0 and the Scalar engine for DGE 1 (NKI: "nisa.dge_mode.hwdge:
//     Sync Engine or Scalar Engine sequencers invoke DGE hardware block"),
//     a DMA whose descriptors are generated at run time GpSimd
//     ("nisa.dge_mode.swdge: Gpsimd Engine generates DMA descriptors"),
//     any other (descriptors the runtime prepared) the Sync engine,
//     "a sequencer mostly used to trigger DMAs" (hardware.md).
//  2. Rotation (addSemaphoreRotationWait). A semaphore counts one stream's
//     updates (stream package comment); a counter of SemaphoreBits bits
//     holds 2^bits - 1. Walking the program, the updates each stream may
//     make are counted (an instruction may update when some dependent runs
//     on another stream); before an instruction that could push a count
//     past the largest value, every engine meets an AllEngineBarrier, the
//     Sync engine resets the semaphores (GroupResetSemaphores) and every
//     engine meets a second barrier, after which the counts start again
//     from 0 (the schedule after the rotation is shifted past the
//     barrier).
//  3. Waits (setupSync). The function is walked in program order with the
//     stream package's happens-before tracker. For each instruction x and
//     each of its dependencies whose source's completion x's stream does
//     not already know (the same engine's or queue's order, and for a DMA
//     what its trigger engine knows, are free), the latest such source per
//     stream is a candidate; a candidate that another candidate's update
//     already implies is dropped ("waits made redundant by others
//     removed"), so the waits left are a minimal set: removing any one of
//     them leaves a dependency unordered (the mutation test checks it).
//     x waits on each remaining source's stream semaphore for the count
//     that source's update brings it to.
//  4. Updates (incrementSemaphore). Every source some wait names updates
//     its stream's semaphore by 1 when it completes: assignEngineSemaphore
//     gives an engine its semaphore, assignDMASemaphore gives a DMA queue
//     its own (a DMA's update is its queue's: "datapath semaphore must be
//     updated by datapath instr"). Semaphores are numbered in stream order
//     (engines, then queues) as the streams first need one
//     (allocateSemaphore); more than the arch's Semaphores is an error
//     naming the option. Counts are numbered per stream in program order
//     and restart at every rotation and call.
//  5. The wire limit. An instruction carries at most WaitsPerInst waits
//     and UpdatesPerInst updates (seed 002: "EventSemaphore must have <= 2
//     wait commands, and <= 1 update command"): its other waits go on
//     EventSemaphore carrier instructions right before it on the engine
//     that executes its waits. An instruction never needs two updates (one
//     semaphore per stream), so no update carrier exists.
//  6. Stream endings (the entry function): every engine that triggered a
//     DMA whose completion it does not know ends with Drain, and every
//     engine of the generation with Halt, so no DMA is in flight once all
//     engines have halted. An entry function without instructions still
//     gets its Halts (in a new block when it has none): a kernel that
//     does nothing compiles, and its engines stop.
//
// New instructions (carriers, barriers, resets, Drain, Halt) take the
// source position of the instruction they serve (bir.InheritPos), carry
// the attribute sync_role (carrier, rotation, drain, halt), get schedule
// entries (zero length, at the start of the instruction they serve, or at
// the barrier's time), and Order is renumbered, so StageScheduled still
// holds. A second run first removes what the first added.
//
// A function that keeps loops is synchronized by AllocSemaphoresLoops
// (loops.go): counts that advance per iteration, waits minimized on the
// function's instances.
//
// Pre: StageScheduled (every instruction scheduled, every DMA on a
// queue). Post: StageSynchronized (the
// verifier's exact happens-before check: every dependency ordered by
// stream order, triggers, waits and updates; ids in range; wire limits;
// counters within their width; stream endings).
//
// Report: semaphores, wait and update commands, redundant waits removed,
// carriers, rotations, drains and halts, and the makespan with the
// semaphore latency of the cost model (stream.Simulate: the streams
// re-timed with SemaphoreNs per engine wait and DMASemaphoreNs per DMA
// wait) next to the schedule's.
//
// Decisions where the seed is silent: the trigger defaults above; one
// semaphore per stream counting its updates (so an instruction never
// needs two updates and waits are counts); the conservative rotation test
// (possible updates, not actual ones); what allocateSemaphore's bool means
// (the seed's AllocSemaphores::allocateSemaphore(bool) does not say: here
// it is "datapath", a DMA queue's semaphore); carriers on the engine that
// executes the waits.

// SyncRole is the attribute that marks an instruction alloc_semaphores
// added, with its role.
const SyncRole = "sync_role"

// The roles.
const (
	RoleCarrier  = "carrier"
	RoleRotation = "rotation"
	RoleDrain    = "drain"
	RoleHalt     = "halt"
)

// AllocSemaphoresPass is the pass table entry.
var AllocSemaphoresPass = pass.Pass{
	Name:     "alloc_semaphores",
	Default:  true,
	Produces: verify.StageSynchronized,
	Doc:      "semaphore waits and updates for every cross-engine dependency, carriers, rotations, Drain/Halt (seed 002 §6.5 AllocSemaphores)",
	Run:      runAllocSemaphores,
}

func runAllocSemaphores(ctx *pass.Context) error {
	var total Stats
	main := ctx.Module.Main()
	for _, f := range ctx.Module.FuncsMainFirst() {
		if f.Sched == nil && f.NumInsts() == 0 && f != main {
			continue
		}
		ctx.Function(f.Name)
		alloc := AllocSemaphores
		if hasLoops(f) {
			alloc = AllocSemaphoresLoops // loops.go
		}
		st, err := alloc(f, ctx.Arch, f == main)
		if err != nil {
			return err
		}
		ctx.Function("")
		total.add(st)
		if st.Insts > 0 {
			ctx.AddReport(fmt.Sprintf("Synchronization of function %s:", f.Name), st.String())
		}
	}
	ctx.Count("semaphores", total.Semaphores)
	ctx.Count("wait_commands", total.Waits)
	ctx.Count("update_commands", total.Updates)
	ctx.Count("redundant_waits_removed", total.Redundant)
	ctx.Count("edge_waits_seed", total.EdgeWaits)
	ctx.Count("carriers", total.Carriers)
	ctx.Count("rotations", total.Rotations)
	ctx.Count("core_barriers", total.CoreBarriers)
	ctx.Count("ptcoms", total.PTCOMs)
	ctx.Count("drains", total.Drains)
	ctx.Count("halts", total.Halts)
	if main != nil {
		ctx.Count("makespan_ns", total.Makespan/1000)
		ctx.Count("makespan_sync_ns", total.MakespanSync/1000)
	}
	return nil
}

func hasLoops(f *bir.Function) bool {
	loops := false
	f.Walk(func(i bir.InstID) bool {
		loops = f.Inst(i).Op.IsLoop()
		return !loops
	})
	return loops
}

// Stats is what AllocSemaphores did to one function.
type Stats struct {
	Insts      int
	Semaphores int64
	Waits      int64 // wait commands
	Updates    int64 // update commands
	Redundant  int64 // candidate waits dropped because another wait implies them
	// Unminimized counts the candidate waits of a function with loops
	// kept without the minimization (its work bound, MaxMinimizeWork).
	Unminimized int64
	// EdgeWaits is what the seed's sketch would emit: one wait per
	// dependency edge between two streams ("for (Edge e : edges) ...
	// setupSync(e.consumer, ...)"), the baseline beside Waits.
	EdgeWaits int64
	Carriers  int64 // EventSemaphore carriers
	Rotations int64
	// CoreBarriers and PTCOMs count those of insert_core_barrier and
	// insert_ptcom_flat the function holds.
	CoreBarriers int64
	PTCOMs       int64
	Drains       int64
	Halts        int64
	// Makespan is the schedule's; MakespanSync the streams re-timed with
	// the semaphore latencies (stream.Simulate), in ps.
	Makespan     int64
	MakespanSync int64
	// Streams is the number of streams that update a semaphore.
	Streams int
}

func (s *Stats) add(o *Stats) {
	s.Insts += o.Insts
	s.Semaphores = max(s.Semaphores, o.Semaphores)
	s.Waits += o.Waits
	s.Updates += o.Updates
	s.Redundant += o.Redundant
	s.Unminimized += o.Unminimized
	s.EdgeWaits += o.EdgeWaits
	s.Carriers += o.Carriers
	s.Rotations += o.Rotations
	s.CoreBarriers += o.CoreBarriers
	s.PTCOMs += o.PTCOMs
	s.Drains += o.Drains
	s.Halts += o.Halts
	s.Makespan = max(s.Makespan, o.Makespan)
	s.MakespanSync = max(s.MakespanSync, o.MakespanSync)
}

func (s *Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  semaphores: %d (one per signalling stream)\n", s.Semaphores)
	fmt.Fprintf(&b, "  semaphore commands: %d waits ($S[k]>=v), %d updates ($S[j]++@complete); the seed's one wait per cross-stream edge: %d; %d redundant waits removed\n", s.Waits, s.Updates, s.EdgeWaits, s.Redundant)
	if s.Unminimized > 0 {
		fmt.Fprintf(&b, "  %d candidate waits kept without minimization (above MaxMinimizeWork)\n", s.Unminimized)
	}
	fmt.Fprintf(&b, "  carrier EventSemaphores: %d; rotations (AllEngineBarrier + GroupResetSemaphores): %d; Drain: %d; Halt: %d\n", s.Carriers, s.Rotations, s.Drains, s.Halts)
	if s.CoreBarriers+s.PTCOMs > 0 {
		fmt.Fprintf(&b, "  core barriers: %d; PTCOMs: %d\n", s.CoreBarriers, s.PTCOMs)
	}
	if s.Makespan > 0 {
		fmt.Fprintf(&b, "  makespan: %s scheduled, %s with semaphore latency (%+.1f%%)\n", ns(s.Makespan), ns(s.MakespanSync), 100*float64(s.MakespanSync-s.Makespan)/float64(s.Makespan))
	}
	return b.String()
}

func ns(ps int64) string {
	switch {
	case ps >= 1e9:
		return fmt.Sprintf("%.3f ms", float64(ps)/1e9)
	case ps >= 1e6:
		return fmt.Sprintf("%.2f us", float64(ps)/1e6)
	}
	return fmt.Sprintf("%.1f ns", float64(ps)/1e3)
}

// layoutOptions are the stream-layout options of a model.
func layoutOptions(model *arch.Model) stream.Options {
	return stream.Options{HasEngine: model.HasEngine, Queues: int(max(model.DMAQueues, 1))}
}

// AllocSemaphores synchronizes f (see the pass comment); entry says f is
// the module's entry function (its streams end with Drain and Halt).
func AllocSemaphores(f *bir.Function, model *arch.Model, entry bool) (*Stats, error) {
	st := &Stats{}
	if f.Sched == nil {
		if f.NumInsts() > 0 {
			return nil, diag.Errorf(diag.Stage, "function %s has no schedule: run time_aware_scheduler first (with --passes, name the scheduler's passes too)", f.Name)
		}
		if !entry {
			return st, nil
		}
		// An empty entry function still stops its engines (Halt).
		f.Sched = bir.NewSchedule(f.NumInstSlots())
	}
	if model.Sync.Semaphores <= 0 {
		// arch.Model.Set refuses it: a model built in code.
		return nil, diag.Errorf(diag.Internal, "arch %s: %d semaphores: want at least one (option arch.semaphores)", model.Name, model.Sync.Semaphores)
	}
	stripSync(f)
	f.Sched.Grow(f.NumInstSlots())
	if f.Sync == nil {
		f.Sync = bir.NewSync(f.NumInstSlots())
	}
	f.Sync.Grow(f.NumInstSlots())
	clearCommands(f)
	assignDefaultTriggers(f, model)
	a := &allocator{f: f, model: model, st: st, maxVal: model.MaxSemaphoreValue()}
	L, err := a.layout()
	if err != nil {
		return nil, err
	}
	if n := a.rotationPoints(L); n > 0 {
		a.addSemaphoreRotationWait()
		if L, err = a.layout(); err != nil {
			return nil, err
		}
	}
	a.L = L
	a.setupSync()
	if err := a.number(); err != nil {
		return nil, err
	}
	a.materialize(entry)
	f.Sync.Compact()
	renumberOrder(f)
	st.Insts = len(L.Insts)
	for _, i := range L.Insts {
		switch in := f.Inst(i); {
		case in.Op == bir.OpCoreBarrier:
			st.CoreBarriers++
		case in.Op == bir.OpEventSemaphore && f.Attrs(i).Has(PTCOMAttr):
			st.PTCOMs++
		}
	}
	st.Waits, st.Updates = f.Sync.NumCommands()
	st.Makespan = f.Sched.Makespan()
	if L2, err := a.layout(); err == nil {
		st.MakespanSync = stream.Simulate(L2, SimOptions(f, model)).Makespan
	}
	return st, nil
}

// stripSync removes the instructions a previous run added.
func stripSync(f *bir.Function) {
	for _, b := range f.Top {
		insts := f.Block(b).Insts
		keep := insts[:0:0]
		removed := false
		for _, i := range insts {
			if _, ok := f.Attrs(i).Get(SyncRole); ok {
				removed = true
				continue
			}
			keep = append(keep, i)
		}
		if removed {
			f.ReplaceBlockInsts(b, slices.Clone(keep))
		}
	}
}

// clearCommands drops every wait and update (triggers are kept).
func clearCommands(f *bir.Function) {
	sy := f.Sync
	for i := 0; i < sy.Len(); i++ {
		if len(sy.Waits(bir.InstID(i))) > 0 {
			sy.SetWaits(bir.InstID(i), nil)
		}
		if len(sy.Updates(bir.InstID(i))) > 0 {
			sy.SetUpdates(bir.InstID(i), nil)
		}
	}
	sy.Compact()
}

// DefaultTrigger is the trigger engine of DMA i when no pass chose one
// (see the pass comment, step 1).
func DefaultTrigger(f *bir.Function, i bir.InstID, model *arch.Model) bir.Engine {
	pick := func(es ...bir.Engine) bir.Engine {
		for _, e := range es {
			if model.HasEngine(e) {
				return e
			}
		}
		for _, e := range stream.Engines {
			if model.HasEngine(e) {
				return e
			}
		}
		return bir.EngUnassigned
	}
	dge := int8(-1)
	if tab := f.Sched; tab != nil && int(i) < tab.Len() {
		dge = tab.DGE[i]
	}
	switch {
	case dge >= 0:
		if dge%2 == 1 {
			return pick(bir.EngAct, bir.EngSP)
		}
		return pick(bir.EngSP, bir.EngAct)
	case !arch.StaticDMADescriptors(f, i):
		return pick(bir.EngPool, bir.EngSP)
	}
	return pick(bir.EngSP)
}

func assignDefaultTriggers(f *bir.Function, model *arch.Model) {
	sy := f.Sync
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
			if t := sy.Trigger[i]; t == bir.EngUnassigned || !model.HasEngine(t) || t == bir.EngDMA {
				sy.Trigger[i] = DefaultTrigger(f, i, model)
			}
		}
		return true
	})
}

// allocator is one function's AllocSemaphores run.
type allocator struct {
	f      *bir.Function
	model  *arch.Model
	st     *Stats
	maxVal int64
	L      *stream.Layout

	// rotation points: program positions (in the layout the points were
	// found in) before which a rotation goes, and the instructions there.
	rotBefore []bir.InstID

	// waits: for each instruction, its producers (in waitPool).
	waitAt   []int32
	waitN    []uint16
	waitPool []bir.InstID
	signals  []bool
	sigIdx   []int32
	semOf    []int32 // stream -> semaphore (-1 none)
	barrierN int64   // AllEngineBarrier ids used
	taken    names
	// final is setupSync' tracker at the end: what every stream knows
	// once it has run (the waits it chose are the ones acquired).
	final *stream.Tracker
}

// A layout error is the input's (a module not at the scheduled stage,
// --passes alloc_semaphores without the scheduler: a DMA without a queue,
// an engine the generation lacks); in the default pipeline the verifier's
// scheduled-stage rules hold before this pass.
func (a *allocator) layout() (*stream.Layout, error) {
	L, err := stream.Build(a.f, layoutOptions(a.model))
	return L, diag.Wrap(diag.Stage, err)
}

// mayUpdate marks the instructions that may need to update: some
// dependent's streams do not include its completion stream.
func mayUpdate(L *stream.Layout) []bool {
	out := make([]bool, L.F.NumInstSlots())
	for _, y := range L.Insts {
		L.Deps(y, func(p bir.InstID, _ bir.DepKind) {
			if s := L.DoneStream(p); s != L.Eng[y] && s != L.Q[y] {
				out[p] = true
			}
		})
	}
	return out
}

// rotationPoints finds where counters could overflow (step 2) and returns
// how many rotations are needed.
func (a *allocator) rotationPoints(L *stream.Layout) int {
	may := mayUpdate(L)
	count := make([]int64, L.NumStreams)
	reset := func() { clear(count) }
	for _, x := range L.Insts {
		if L.IsCall(x) {
			reset()
			continue
		}
		if !may[x] {
			continue
		}
		s := L.DoneStream(x)
		if count[s]+1 > a.maxVal {
			a.rotBefore = append(a.rotBefore, x)
			reset()
		}
		count[s]++
	}
	return len(a.rotBefore)
}

// addSemaphoreRotationWait inserts, before each rotation point, the
// rotation: an AllEngineBarrier on every engine, GroupResetSemaphores on
// the Sync engine, an AllEngineBarrier on every engine; the schedule after
// each point is shifted so that the barrier starts when everything before
// it has ended.
func (a *allocator) addSemaphoreRotationWait() {
	f := a.f
	tab := f.Sched
	at := make(map[bir.InstID]bool, len(a.rotBefore))
	for _, x := range a.rotBefore {
		at[x] = true
	}
	engines := a.engines()
	home := bir.EngSP
	if !a.model.HasEngine(home) {
		home = engines[0]
	}
	var offset, maxEnd int64
	k := 0
	for _, b := range f.Top {
		old := f.Block(b).Insts
		list := make([]bir.InstID, 0, len(old))
		for _, x := range old {
			if at[x] {
				bt := max(maxEnd, 0)
				offset += max(0, bt-(tab.Start[x]+offset))
				group := func() {
					id := a.barrierN
					a.barrierN++
					for _, e := range engines {
						list = append(list, a.newSyncInst(bir.OpAllEngineBarrier, fmt.Sprintf("rotation%d_barrier%d_%s", k, id, strings.ToLower(e.ProfilerName())), e, x, RoleRotation, bt,
							bir.AttrSet{}.With(stream.AttrBarrierID, bir.Int(id))))
					}
				}
				group()
				list = append(list, a.newSyncInst(bir.OpGroupResetSemaphores, fmt.Sprintf("rotation%d_reset", k), home, x, RoleRotation, bt, bir.AttrSet{}))
				group()
				k++
				a.st.Rotations++
			}
			if tab.Has(x) {
				tab.Start[x] += offset
				tab.End[x] += offset
				maxEnd = max(maxEnd, tab.End[x])
			}
			list = append(list, x)
		}
		f.ReplaceBlockInsts(b, list)
	}
}

// engines returns the generation's stream engines.
func (a *allocator) engines() []bir.Engine {
	var out []bir.Engine
	for _, e := range stream.Engines {
		if a.model.HasEngine(e) {
			out = append(out, e)
		}
	}
	return out
}

// newSyncInst creates a synchronization instruction serving instruction
// origin (its position), on engine e, scheduled at [t, t].
func (a *allocator) newSyncInst(op bir.Opcode, name string, e bir.Engine, origin bir.InstID, role string, t int64, attrs bir.AttrSet) bir.InstID {
	f := a.f
	if a.taken == nil {
		a.taken = takenNames(f)
	}
	i := f.NewInst(op, a.taken.unique(name), e, nil, nil, attrs.With(SyncRole, bir.String(role)))
	if origin != bir.NoInst {
		f.InheritPos(i, origin)
	}
	f.Sched.Grow(f.NumInstSlots())
	f.Sync.Grow(f.NumInstSlots())
	f.Sched.Start[i], f.Sched.End[i] = t, t
	return i
}

// nameMarkers are substrings of every name the pass gives an
// instruction: an existing name that contains none cannot collide.
var nameMarkers = [][]byte{[]byte("_sync"), []byte("rotation"), []byte("drain_"), []byte("halt_"), []byte("core_barrier"), []byte("ptcom_")}

// names keeps the instruction names that could collide with the pass's
// (one walk, comparing bytes in place: no per-instruction allocation).
type names map[string]bool

func takenNames(f *bir.Function) names {
	t := names{}
	m := f.Module()
	f.Walk(func(i bir.InstID) bool {
		b := m.StrBytes(f.Inst(i).Name)
		for _, mk := range nameMarkers {
			if bytes.Contains(b, mk) {
				t[string(b)] = true
				break
			}
		}
		return true
	})
	return t
}

// unique returns name, or name_k when it is taken, and takes it.
func (t names) unique(name string) string {
	n := name
	for k := 1; t[n]; k++ {
		n = fmt.Sprintf("%s_%d", name, k)
	}
	t[n] = true
	return n
}

// setupSync is step 3 (AllocSemaphores::setupSync): the minimal waits of every instruction.
func (a *allocator) setupSync() {
	L := a.L
	f := a.f
	n := f.NumInstSlots()
	a.waitAt = make([]int32, n)
	a.waitN = make([]uint16, n)
	a.signals = make([]bool, n)
	may := mayUpdate(L)
	snapAt := make([]int32, n)
	// The tracker's snapshots are forgotten at each rotation's barrier
	// (stream.Tracker): it holds those since the last one, not one per
	// producer of the function, so no reservation for all of them.
	t := stream.NewTracker(L)
	a.final = t
	ns := t.NS
	// cand[s]: the latest candidate source on stream s for the current
	// instruction (-1 none).
	cand := make([]bir.InstID, ns)
	for s := range cand {
		cand[s] = bir.NoInst
	}
	var touched []stream.ID
	know := make([]int32, ns)
	callK := 0
	var group []bir.InstID
	groupPos := make([]int32, ns)
	nEng := len(a.engines())
	for _, x := range L.Insts {
		in := f.Inst(x)
		switch {
		case L.IsCall(x):
			t.Call(callK)
			callK++
			continue
		case in.Op == bir.OpAllEngineBarrier:
			if len(group) == 0 {
				for s := range groupPos {
					groupPos[s] = -1
				}
			}
			group = append(group, x)
			groupPos[L.Eng[x]] = L.EPos[x]
			if len(group) == nEng {
				t.Barrier(groupPos)
				group = group[:0]
			}
			continue
		case in.Op == bir.OpGroupResetSemaphores:
			t.Complete(x)
			continue
		}
		w := L.WaitStream(x)
		// What x knows without waits: its wait stream's row, and for a
		// DMA also its queue's.
		copy(know, t.Row(w))
		if q := L.Q[x]; q != stream.None {
			for j, v := range t.Row(q) {
				know[j] = max(know[j], v)
			}
		}
		touched = touched[:0]
		L.Deps(x, func(p bir.InstID, _ bir.DepKind) {
			if s := L.DoneStream(p); s != L.Eng[x] && s != L.Q[x] {
				a.st.EdgeWaits++
			}
			if t.KnowsIn(know, p) {
				return
			}
			s := L.DoneStream(p)
			if c := cand[s]; c == bir.NoInst {
				cand[s] = p
				touched = append(touched, s)
			} else if L.DonePos(p) > L.DonePos(c) {
				cand[s] = p
			}
		})
		a.waitAt[x] = int32(len(a.waitPool))
		for _, s := range touched {
			c := cand[s]
			redundant := false
			for _, s2 := range touched {
				if c2 := cand[s2]; s2 != s && snapAt[c2] >= 0 && t.SnapKnows(snapAt[c2], s, L.DonePos(c)) {
					redundant = true
					break
				}
			}
			if redundant {
				a.st.Redundant++
				continue
			}
			a.waitPool = append(a.waitPool, c)
			a.signals[c] = true
		}
		a.waitN[x] = uint16(int32(len(a.waitPool)) - a.waitAt[x])
		for _, s := range touched {
			cand[s] = bir.NoInst
		}
		for _, c := range a.waitPool[a.waitAt[x]:] {
			t.Acquire(w, snapAt[c])
		}
		if in.Op == bir.OpDrain {
			t.Drain(w)
		}
		t.Issue(x)
		t.Complete(x)
		snapAt[x] = -1
		if may[x] {
			snapAt[x] = t.Snapshot(L.DoneStream(x))
		}
	}
}

// number is step 4: semaphores for the signalling streams, counts for the
// updates, values for the waits.
func (a *allocator) number() error {
	L := a.L
	f := a.f
	a.semOf = make([]int32, L.NumStreams)
	for s := range a.semOf {
		a.semOf[s] = -1
	}
	used := make([]bool, L.NumStreams)
	for _, x := range L.Insts {
		if a.signals[x] {
			used[L.DoneStream(x)] = true
		}
	}
	next := int32(0)
	for s := range used {
		if !used[s] {
			continue
		}
		if int64(next) >= a.model.Sync.Semaphores {
			// Name the first instruction that signals on the stream left
			// without a semaphore: its source line.
			first := bir.NoInst
			for _, x := range L.Insts {
				if a.signals[x] && int(L.DoneStream(x)) == s {
					first = x
					break
				}
			}
			msg := fmt.Sprintf("needs %d semaphores (one per engine or DMA queue that signals another), the arch has %d (arch.semaphores): the %s stream gets none", countTrue(used), a.model.Sync.Semaphores, stream.ID(s).Name())
			if first == bir.NoInst {
				return diag.Errorf(diag.Semaphores, "function %s %s", f.Name, msg)
			}
			return diag.Wrap(diag.Semaphores, f.Errorf(first, "the function %s", msg))
		}
		if stream.ID(s).IsQueue() {
			a.semOf[s] = a.assignDMASemaphore(&next)
		} else {
			a.semOf[s] = a.assignEngineSemaphore(&next)
		}
		a.st.Streams++
	}
	a.st.Semaphores = int64(next)
	a.sigIdx = make([]int32, f.NumInstSlots())
	count := make([]int32, L.NumStreams)
	sy := f.Sync
	nsig := 0
	for _, x := range L.Insts {
		if a.signals[x] {
			nsig++
		}
	}
	sy.Reserve(len(a.waitPool) + nsig)
	var cmds []bir.SemCmd
	for _, x := range L.Insts {
		in := f.Inst(x)
		if L.IsCall(x) || in.Op == bir.OpGroupResetSemaphores {
			clear(count)
			continue
		}
		if n := a.waitN[x]; n > 0 {
			cmds = cmds[:0]
			for _, c := range a.waitPool[a.waitAt[x] : a.waitAt[x]+int32(n)] {
				cmds = append(cmds, bir.SemCmd{Sem: a.semOf[L.DoneStream(c)], Value: a.sigIdx[c]})
			}
			sy.SetWaits(x, cmds)
		}
		if a.signals[x] {
			s := L.DoneStream(x)
			count[s]++
			if int64(count[s]) > a.maxVal {
				return diag.Wrap(diag.Internal, f.Errorf(x, "semaphore %d would reach %d, above the %d-bit counter (the rotation missed it)", a.semOf[s], count[s], a.model.Sync.SemaphoreBits))
			}
			a.sigIdx[x] = count[s]
			sy.SetUpdates(x, []bir.SemCmd{a.incrementSemaphore(s)})
		}
	}
	return nil
}

func countTrue(b []bool) int {
	n := 0
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}

// allocateSemaphore hands out the next semaphore id; datapath says it
// counts a DMA queue's completions.
func (a *allocator) allocateSemaphore(next *int32, datapath bool) int32 {
	_ = datapath // the id space is shared; the owner is the verifier's rule
	s := *next
	*next++
	return s
}

// assignDMASemaphore gives a DMA queue its semaphore (updated by the
// queue's DMAs only: "datapath semaphore must be updated by datapath
// instr").
func (a *allocator) assignDMASemaphore(next *int32) int32 { return a.allocateSemaphore(next, true) }

// assignEngineSemaphore gives an engine its semaphore.
func (a *allocator) assignEngineSemaphore(next *int32) int32 { return a.allocateSemaphore(next, false) }

// incrementSemaphore is the update of a source on stream s: its
// semaphore, plus one.
func (a *allocator) incrementSemaphore(s stream.ID) bir.SemCmd {
	return bir.SemCmd{Sem: a.semOf[s], Value: 1}
}

// materialize is steps 5 and 6: carriers and stream endings.
func (a *allocator) materialize(entry bool) {
	f := a.f
	L := a.L
	sy := f.Sync
	tab := f.Sched
	limit := int(max(a.model.Sync.WaitsPerInst, 1))
	for _, b := range f.Top {
		old := f.Block(b).Insts
		var list []bir.InstID
		changed := false
		for _, x := range old {
			ws := sy.Waits(x)
			if len(ws) > limit {
				if !changed {
					list = append(make([]bir.InstID, 0, len(old)+8), old[:slices.Index(old, x)]...)
					changed = true
				}
				ws = slices.Clone(ws)
				e := L.WaitStream(x).Engine()
				k := 0
				for len(ws) > limit {
					c := a.newSyncInst(bir.OpEventSemaphore, fmt.Sprintf("%s_sync%d", f.InstName(x), k), e, x, RoleCarrier, tab.Start[x], bir.AttrSet{})
					sy.SetWaits(c, ws[:limit])
					ws = ws[limit:]
					list = append(list, c)
					a.st.Carriers++
					k++
				}
				sy.SetWaits(x, ws)
			}
			if changed {
				list = append(list, x)
			}
		}
		if changed {
			f.ReplaceBlockInsts(b, list)
		}
	}
	if !entry {
		return
	}
	if len(f.Top) == 0 {
		// An entry function without a block (a kernel that does nothing)
		// still ends every engine's stream with Halt.
		f.NewBlock("Block1", bir.NoInst)
	}
	// Stream endings: what each engine knows at the end.
	t := a.final
	last := f.Top[len(f.Top)-1]
	end := tab.Makespan()
	lastOf := make([]bir.InstID, L.NumStreams)
	for s := range lastOf {
		lastOf[s] = bir.NoInst
	}
	var lastAny bir.InstID = bir.NoInst
	trig := make([][]bool, L.NumStreams)
	for _, x := range L.Insts {
		lastAny = x
		if s := L.Eng[x]; s != stream.None {
			lastOf[s] = x
		}
		if L.IsDMA(x) && L.Eng[x] != stream.None {
			e := L.Eng[x]
			if trig[e] == nil {
				trig[e] = make([]bool, L.NumStreams)
			}
			trig[e][L.Q[x]] = true
		}
	}
	list := slices.Clone(f.Block(last).Insts)
	for _, e := range a.engines() {
		s := stream.EngineStream(e)
		origin := lastOf[s]
		if origin == bir.NoInst {
			origin = lastAny
		}
		row := t.Row(s)
		need := false
		for q, ok := range trig[s] {
			if ok && row[q] < L.Len[q] {
				need = true
			}
		}
		if need {
			list = append(list, a.newSyncInst(bir.OpDrain, "drain_"+strings.ToLower(e.ProfilerName()), e, origin, RoleDrain, end, bir.AttrSet{}))
			a.st.Drains++
		}
		list = append(list, a.newSyncInst(bir.OpHalt, "halt_"+strings.ToLower(e.ProfilerName()), e, origin, RoleHalt, end, bir.AttrSet{}))
		a.st.Halts++
	}
	f.ReplaceBlockInsts(last, list)
}

// renumberOrder renumbers the schedule's Order column in program order:
// each engine's instructions, the calls, each queue's DMAs.
func renumberOrder(f *bir.Function) {
	tab := f.Sched
	nq := 0
	for _, q := range tab.Queue {
		nq = max(nq, int(q)+1)
	}
	next := make([]int32, 1000+nq)
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if !tab.Has(i) {
			return true
		}
		info := in.Op.Info()
		key := -1
		switch {
		case info.Has(bir.FlagDMA):
			key = 1000 + int(tab.Queue[i])
		case info.Has(bir.FlagCall):
			key = 999
		case in.Engine != bir.EngUnassigned && in.Engine < bir.NumEngines:
			key = int(in.Engine)
		}
		if key < 0 {
			return true
		}
		tab.Order[i] = next[key]
		next[key]++
		return true
	})
}

// dmaCosts returns stream.SimOptions.DMA for f: each DMA's fixed latency,
// transfer time and DMA engines from the cost model, priced once.
func dmaCosts(f *bir.Function, model *arch.Model) func(bir.InstID) (int64, int64, uint64) {
	type cost struct {
		fixed, xfer int64
		engines     uint64
	}
	tab := f.Sched
	costs := map[bir.InstID]cost{}
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
			if est, err := model.InstructionCost(f, i, bir.EngDMA, tab.Has(i) && tab.DGE[i] >= 0); err == nil {
				costs[i] = cost{est.FixedPs(), est.XferPs(), est.Engines}
			}
		}
		return true
	})
	return func(i bir.InstID) (int64, int64, uint64) {
		c := costs[i]
		return c.fixed, c.xfer, c.engines
	}
}

// SimOptions prices stream.Simulate with the schedule's durations and the
// cost model: an instruction the schedule times keeps its duration, a
// synchronization instruction the pass added costs what the cost model
// gives it (the static instruction overhead), a DMA trigger the static
// overhead of its engine, and the latencies are the arch's.
func SimOptions(f *bir.Function, model *arch.Model) stream.SimOptions {
	tab := f.Sched
	cycles := func(e bir.Engine, c int64) int64 {
		if g := model.Clock(e); g > 0 {
			return int64(float64(c) / g * 1000)
		}
		return 0
	}
	return stream.SimOptions{
		Dur: func(i bir.InstID) int64 {
			if _, added := f.Attrs(i).Get(SyncRole); added {
				if est, err := model.InstructionCost(f, i, f.Inst(i).Engine, false); err == nil {
					return est.Ps()
				}
				return 0
			}
			if tab.Has(i) {
				return tab.End[i] - tab.Start[i]
			}
			return 0
		},
		TriggerCost:   func(e bir.Engine) int64 { return cycles(e, model.Cost.StaticOverhead) },
		EngineLatency: int64(model.Sync.SemaphoreNs * 1000),
		DMALatency:    int64(model.Sync.DMASemaphoreNs * 1000),
		DMA:           dmaCosts(f, model),
	}
}
