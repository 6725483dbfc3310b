package semaphores

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/stream"
)

// # alloc_semaphores on a function that keeps loops (AllocSemaphoresLoops)
//
// The machine runs one copy of each loop body per stream (bir/expand.go):
// a semaphore still counts its stream's updates, and those advance with
// the iterations. So a wait in a loop body names a count that is affine
// in the iteration: the dependent Y at iteration k waits on its source
// X's update at X's instance (k on the loops enclosing both, CarryDist
// iterations earlier on a carry loop, the last iteration of X's loops
// that do not enclose Y), and that update is the c-th of X's stream with
//
//	c = sum over X's enclosing loops l of (pre_l + k_l * u_l) + pre_X + 1
//
// where u_l is the number of updates the stream makes per iteration of
// l (an inner loop's count times its trip count included) and pre the
// updates before l (before X) in its iteration; the sum over the loops
// enclosing Y is the wait's iteration term (bir.Sync.SetWaitsIter:
// Value + sum of u_l * (axis_l - lb_l) / stride_l), the rest its value. A
// source's instance of an iteration before the first (k - CarryDist < 0)
// does not exist; its count is then at most the stream's count when the
// loop began, which the wait finds reached by the updates before it: no
// wait is needed there, and none is made. The steps:
//
//  1. Trigger engines as for straight-line functions (DefaultTrigger).
//  2. Rotation. The counts of the whole function, loops at their trip
//     counts, must stay within the counter (SemaphoreBits): before a
//     top-level instruction or loop that would push a count past it, a
//     rotation (AllEngineBarrier, GroupResetSemaphores, AllEngineBarrier)
//     resets the counts, and the schedule after it moves past the
//     barrier. A loop whose own updates exceed the counter would need a
//     rotation inside it every so many iterations: not implemented, an
//     error (NW410).
//  3. Candidate waits: for every dependency whose source completes on
//     another stream than the one that executes the dependent's waits
//     (and its queue, for a DMA), a wait for the source's count, as
//     above; candidates of one stream with the same iteration term are
//     merged (the larger value implies the smaller). A dependency on a
//     loop (depgraph's third fold) is one on each instruction of its body.
//  4. Minimal waits. With every candidate's source updating, the function
//     is expanded into its instances (bir.Expand) and each candidate is
//     removed in turn, kept out when the exact happens-before check of
//     the instances (stream.Check) still orders every dependency: a
//     removal that breaks nothing with more waits breaks nothing with
//     fewer, so every wait left is needed in some iteration (the mutation
//     test removes each and finds the race). The check costs one walk of
//     the instances per candidate; above MaxMinimizeWork (candidates times
//     instances) the candidates are kept as they are (sound; the report
//     counts them as not minimized).
//  5. Updates and values. Only the sources of the waits left update their
//     stream's semaphore (one per signalling stream, numbered in stream
//     order; more than the arch's semaphores is NW408); the counts are
//     recomputed over those, and the instances are checked once more.
//  6. Carriers (EventSemaphores before an instruction with more waits
//     than the wire limit, in its block, their waits with their terms) and
//     the entry function's Drain and Halt after its last top-level
//     instruction (Drain where an engine's triggered DMAs are not all
//     known complete at the end of the instances).
//
// Post: StageSynchronized, which the verifier checks on the instances
// (verify/loops.go).

// MaxMinimizeWork bounds step 4's work: candidates times instances.
const MaxMinimizeWork = 200_000_000

// loopAlloc is one AllocSemaphoresLoops run.
type loopAlloc struct {
	f      *bir.Function
	model  *arch.Model
	st     *Stats
	maxVal int64
	ns     int
	home   stream.ID
	engs   []bir.Engine

	nest  map[bir.InstID][]bir.InstID
	trips map[bir.InstID]int64
	epoch []int32 // per instruction: the top-level counting epoch (rotations, calls)

	// counting (count): per instruction the updates of each stream
	// before it in its iteration (pre), per loop per iteration (per).
	sig []bool
	pre map[bir.InstID][]int64
	per map[bir.InstID][]int64

	cands []lcand
}

// lcand is a candidate wait of instruction y on the update of source
// stream s: Value + the iteration term iter.
type lcand struct {
	y     bir.InstID
	s     stream.ID
	value int64
	iter  bir.ExprID
	srcs  []bir.InstID // the sources (whose updates it counts)
	// terms of the count, kept to recompute the value once the signals
	// are final: the source instance (target) and its prefix length.
	targets []ltarget
	keep    bool
}

type ltarget struct {
	x      bir.InstID
	c      int // common loops with y (their indices are y's)
	carryD int // index in x's nest of the carry loop, -1 none
	dist   int64
}

// AllocSemaphoresLoops synchronizes f, which has loops (see above).
func AllocSemaphoresLoops(f *bir.Function, model *arch.Model, entry bool) (*Stats, error) {
	st := &Stats{}
	if f.Sched == nil {
		return nil, diag.Errorf(diag.Stage, "function %s has no schedule: run time_aware_scheduler first (with --passes, name the scheduler's passes too)", f.Name)
	}
	if model.Sync.Semaphores <= 0 {
		return nil, diag.Errorf(diag.Internal, "arch %s: %d semaphores: want at least one (option arch.semaphores)", model.Name, model.Sync.Semaphores)
	}
	stripSyncAll(f)
	f.Sched.Grow(f.NumInstSlots())
	if f.Sync == nil {
		f.Sync = bir.NewSync(f.NumInstSlots())
	}
	f.Sync.Grow(f.NumInstSlots())
	clearCommands(f)
	assignDefaultTriggers(f, model)
	a := &loopAlloc{f: f, model: model, st: st, maxVal: model.MaxSemaphoreValue(), nest: map[bir.InstID][]bir.InstID{}, trips: map[bir.InstID]int64{}}
	a.ns = int(stream.FirstQueue) + int(max(model.DMAQueues, 1))
	for _, e := range stream.Engines {
		if model.HasEngine(e) {
			a.engs = append(a.engs, e)
		}
	}
	if len(a.engs) == 0 {
		return nil, diag.Errorf(diag.Internal, "arch %s has no engine", model.Name)
	}
	a.home = stream.EngineStream(a.engs[0])
	if model.HasEngine(bir.EngSP) {
		a.home = stream.EngineStream(bir.EngSP)
	}
	var err error
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		a.nest[i] = f.Loopnest(i)
		if in.Op.IsLoop() {
			n, ok := f.StaticTripCount(i)
			if !ok {
				err = diag.Wrap(diag.LoopNotHandled, f.Errorf(i, "a %s whose trip count is known only at run time: narwhal synchronizes loops of static trip counts", f.OpName(i)))
				return false
			}
			a.trips[i] = n
		}
		if in.Op.Info().Has(bir.FlagCall) && len(a.nest[i]) > 0 {
			err = diag.Wrap(diag.LoopNotHandled, f.Errorf(i, "a call in a loop body: a call is a barrier of every engine, which a loop body cannot hold"))
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	// Step 2: rotations (every candidate source may update).
	a.sig = a.mayUpdate()
	if err := a.rotations(); err != nil {
		return nil, err
	}
	// Step 3: candidates, counted with every possible signal.
	a.count()
	a.candidates()
	// Step 4: minimal waits.
	if err := a.minimize(); err != nil {
		return nil, err
	}
	// Step 5: final signals, values, semaphores.
	for i := range a.sig {
		a.sig[i] = false
	}
	for _, c := range a.cands {
		if c.keep {
			for _, x := range c.srcs {
				a.sig[x] = true
			}
		}
	}
	a.count()
	semOf, err := a.number()
	if err != nil {
		return nil, err
	}
	a.write(semOf)
	// Step 6: carriers and stream endings.
	a.carriers()
	if entry {
		if err := a.endings(); err != nil {
			return nil, err
		}
	}
	f.Sync.Compact()
	renumberOrder(f)
	// The result, checked once more on the instances.
	x, L, err := a.expansion()
	if err != nil {
		return nil, err
	}
	copt := stream.CheckOptions{Semaphores: model.Sync.Semaphores, MaxValue: a.maxVal, Entry: entry, MaxProblems: 3}
	if ps := stream.Check(L, copt); len(ps) > 0 {
		return nil, diag.Wrap(diag.Internal, fmt.Errorf("function %s: the synchronization of its instances does not hold: %s", f.Name, ps[0].Msg))
	}
	f.Walk(func(i bir.InstID) bool {
		if !f.Inst(i).Op.IsLoop() {
			st.Insts++
		}
		return true
	})
	st.Waits, st.Updates = f.Sync.NumCommands()
	st.Makespan = f.Sched.Makespan()
	st.MakespanSync = stream.Simulate(L, SimOptions(x.F, model)).Makespan
	return st, nil
}

// stripSyncAll removes the instructions a previous run added, in every
// block.
func stripSyncAll(f *bir.Function) {
	for b := 0; b < f.NumBlocks(); b++ {
		insts := f.Block(bir.BlockID(b)).Insts
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
			f.ReplaceBlockInsts(bir.BlockID(b), slices.Clone(keep))
		}
	}
}

// waitStream is the stream that executes instruction i's waits; done the
// one it completes on (and makes its updates); queue the DMA's queue
// stream (None otherwise).
func (a *loopAlloc) streams(i bir.InstID) (wait, done, queue stream.ID) {
	f := a.f
	in := f.Inst(i)
	info := in.Op.Info()
	switch {
	case info.Has(bir.FlagDMA):
		q := stream.QueueStream(int(f.Sched.Queue[i]))
		t := f.Sync.Trigger[i]
		return stream.EngineStream(t), q, q
	case info.Has(bir.FlagCall):
		return a.home, a.home, stream.None
	case in.Engine != bir.EngUnassigned && in.Engine != bir.EngDMA && in.Engine < bir.NumEngines:
		s := stream.EngineStream(in.Engine)
		return s, s, stream.None
	}
	return a.home, a.home, stream.None
}

// targetsOf calls fn for every non-loop instruction a dependency on x
// names (x itself, or every instruction of loop x's body).
func (a *loopAlloc) targetsOf(x bir.InstID, fn func(z bir.InstID)) {
	f := a.f
	if !f.Inst(x).Op.IsLoop() {
		fn(x)
		return
	}
	for _, b := range f.Loop(x).Body {
		for _, z := range f.Block(b).Insts {
			if !f.Inst(z).Dead() {
				a.targetsOf(z, fn)
			}
		}
	}
}

// forDeps calls fn for every dependency of y that may need a wait: the
// target z, its common loops with y, the carry.
func (a *loopAlloc) forDeps(y bir.InstID, fn func(t ltarget)) {
	f := a.f
	ny := a.nest[y]
	for _, d := range f.Deps(y) {
		x := d.On
		if int(x) < 0 || int(x) >= f.NumInstSlots() || f.Inst(x).Dead() {
			continue
		}
		nx := a.nest[x]
		c := 0
		for c < len(nx) && c < len(ny) && nx[c] == ny[c] {
			c++
		}
		carry := -1
		if d.CarryAxis != bir.NoAxis {
			for j := 0; j < c; j++ {
				if f.Loop(nx[j]).Axis == d.CarryAxis {
					carry = j
				}
			}
			if carry < 0 {
				continue // the verifier's rule; nothing to order
			}
			if d.CarryAll {
				c = carry + 1 // every iteration of the loops inside the carry loop: the last counts
			}
		}
		a.targetsOf(x, func(z bir.InstID) {
			fn(ltarget{x: z, c: c, carryD: carry, dist: int64(d.CarryDist)})
		})
	}
}

// mayUpdate marks the instructions some dependent may wait on.
func (a *loopAlloc) mayUpdate() []bool {
	f := a.f
	out := make([]bool, f.NumInstSlots())
	f.Walk(func(y bir.InstID) bool {
		if f.Inst(y).Op.IsLoop() {
			return true
		}
		w, _, q := a.streams(y)
		a.forDeps(y, func(t ltarget) {
			if _, d, _ := a.streams(t.x); d != w && d != q {
				out[t.x] = true
			}
		})
		return true
	})
	return out
}

// topItem returns the top-level instruction (or loop) holding i.
func (a *loopAlloc) topItem(i bir.InstID) bir.InstID {
	if n := a.nest[i]; len(n) > 0 {
		return n[0]
	}
	return i
}

// count fills pre and per for the current signals, and the epochs.
func (a *loopAlloc) count() {
	f := a.f
	a.pre = map[bir.InstID][]int64{}
	a.per = map[bir.InstID][]int64{}
	a.epoch = make([]int32, f.NumInstSlots())
	var block func(bs []bir.BlockID, acc []int64, top bool, ep *int32)
	block = func(bs []bir.BlockID, acc []int64, top bool, ep *int32) {
		for _, b := range bs {
			for _, i := range f.Block(b).Insts {
				in := f.Inst(i)
				if in.Dead() {
					continue
				}
				if top && (in.Op == bir.OpGroupResetSemaphores || in.Op.Info().Has(bir.FlagCall)) {
					clear(acc)
					*ep++
				}
				a.epoch[i] = *ep
				a.pre[i] = slices.Clone(acc)
				if in.Op.IsLoop() {
					sub := make([]int64, a.ns)
					block(f.Loop(i).Body, sub, false, ep)
					a.per[i] = sub
					for s, v := range sub {
						acc[s] += a.trips[i] * v
					}
					continue
				}
				if a.sig[i] {
					_, d, _ := a.streams(i)
					acc[d]++
				}
			}
		}
	}
	var ep int32
	block(f.Top, make([]int64, a.ns), true, &ep)
	// Body instructions take their top-level loop's epoch.
	f.Walk(func(i bir.InstID) bool {
		a.epoch[i] = a.epoch[a.topItem(i)]
		return true
	})
}

// value returns the count of stream s at target t's instance for the
// dependent y: the constant and the iteration term over y's loops.
func (a *loopAlloc) value(y bir.InstID, s stream.ID, t ltarget) (int64, affine.Expr) {
	f := a.f
	m := f.Module()
	nx := a.nest[t.x]
	var c int64
	e := affine.Const(0)
	for d, l := range nx {
		c += a.pre[l][s]
		u := a.per[l][s]
		switch {
		case d < t.c:
			if u == 0 {
				continue
			}
			ax := m.Axis(f.Loop(l).Axis)
			idx := affine.Sub(affine.Var(f.Loop(l).Axis), affine.Const(ax.Lb))
			if ax.Stride != 1 {
				idx = affine.FloorDiv(idx, ax.Stride)
			}
			e = affine.Add(e, affine.Scale(idx, u))
			if d == t.carryD {
				c -= t.dist * u
			}
		default:
			c += (a.trips[l] - 1) * u
		}
	}
	c += a.pre[t.x][s] + 1
	c += e.Const
	return c, affine.AddConst(e, -e.Const)
}

// candidates is step 3.
func (a *loopAlloc) candidates() {
	f := a.f
	m := f.Module()
	a.cands = a.cands[:0]
	f.Walk(func(y bir.InstID) bool {
		if f.Inst(y).Op.IsLoop() {
			return true
		}
		w, _, q := a.streams(y)
		idx := map[[2]int64]int{}
		a.forDeps(y, func(t ltarget) {
			_, s, _ := a.streams(t.x)
			if s == w || s == q {
				return
			}
			a.st.EdgeWaits++
			if a.epoch[t.x] != a.epoch[y] {
				return // a rotation or a call between them orders them
			}
			v, it := a.value(y, s, t)
			id := m.InternExpr(it)
			key := [2]int64{int64(s), int64(id)}
			if k, ok := idx[key]; ok {
				c := &a.cands[k]
				c.value = max(c.value, v)
				c.srcs = append(c.srcs, t.x)
				c.targets = append(c.targets, t)
				return
			}
			idx[key] = len(a.cands)
			a.cands = append(a.cands, lcand{y: y, s: s, value: v, iter: id, srcs: []bir.InstID{t.x}, targets: []ltarget{t}, keep: true})
		})
		return true
	})
}

// setCommands writes the current candidates' waits (those kept) and the
// signals' updates into f.Sync, with semaphore ids semOf (by stream; nil:
// the stream number itself, for the trial expansions).
func (a *loopAlloc) setCommands(semOf []int32) {
	f := a.f
	sy := f.Sync
	sem := func(s stream.ID) int32 {
		if semOf == nil {
			return int32(s)
		}
		return semOf[s]
	}
	f.Walk(func(i bir.InstID) bool {
		if len(sy.Waits(i)) > 0 {
			sy.SetWaits(i, nil)
		}
		if len(sy.Updates(i)) > 0 {
			sy.SetUpdates(i, nil)
		}
		return true
	})
	byY := map[bir.InstID][]int{}
	for k, c := range a.cands {
		if c.keep {
			byY[c.y] = append(byY[c.y], k)
		}
	}
	for y, ks := range byY {
		cmds := make([]bir.SemCmd, len(ks))
		its := make([]bir.ExprID, len(ks))
		for j, k := range ks {
			c := a.cands[k]
			cmds[j] = bir.SemCmd{Sem: sem(c.s), Value: int32(c.value)}
			its[j] = c.iter
		}
		sy.SetWaitsIter(y, cmds, its)
	}
	for i, s := range a.sig {
		if s {
			_, d, _ := a.streams(bir.InstID(i))
			sy.SetUpdates(bir.InstID(i), []bir.SemCmd{{Sem: sem(d), Value: 1}})
		}
	}
	sy.Compact()
}

// expansion returns the instances of f with its current commands, and
// their stream layout.
func (a *loopAlloc) expansion() (*bir.FuncExpansion, *stream.Layout, error) {
	x, err := bir.Expand(a.f.Module(), bir.ExpandOptions{Only: a.f.Name})
	if err != nil {
		return nil, nil, diag.Wrap(diag.LoopNotHandled, err)
	}
	fx := x.Func(a.f.Name)
	L, err := stream.Build(fx.F, layoutOptions(a.model))
	if err != nil {
		return nil, nil, diag.Wrap(diag.Stage, err)
	}
	return fx, L, nil
}

// minimize is step 4.
func (a *loopAlloc) minimize() error {
	if len(a.cands) == 0 {
		return nil
	}
	a.setCommands(nil)
	fx, L, err := a.expansion()
	if err != nil {
		return err
	}
	copt := stream.CheckOptions{Semaphores: 1 << 30, MaxValue: 1 << 40, MaxProblems: 1}
	if ps := stream.Check(L, copt); len(ps) > 0 {
		return diag.Wrap(diag.Internal, fmt.Errorf("function %s: the candidate waits leave its instances unsynchronized: %s", a.f.Name, ps[0].Msg))
	}
	if int64(len(a.cands))*int64(len(L.Insts)) > MaxMinimizeWork {
		a.st.Unminimized = int64(len(a.cands))
		return nil
	}
	g := fx.F
	sy := g.Sync
	// Each instance's waits as built: per static instruction the
	// candidates in setCommands' order.
	byY := map[bir.InstID][]int{}
	for k, c := range a.cands {
		byY[c.y] = append(byY[c.y], k)
	}
	inst := map[bir.InstID][]bir.InstID{}
	full := map[bir.InstID][]bir.SemCmd{}
	for _, i := range fx.Instances {
		y := fx.Orig[i]
		if _, ok := byY[y]; ok {
			inst[y] = append(inst[y], i)
			full[i] = slices.Clone(sy.Waits(i))
		}
	}
	active := map[bir.InstID][]bool{}
	for y, ks := range byY {
		active[y] = make([]bool, len(ks))
		for j := range ks {
			active[y][j] = true
		}
	}
	apply := func(y bir.InstID) {
		for _, i := range inst[y] {
			var w []bir.SemCmd
			for j, on := range active[y] {
				if on {
					w = append(w, full[i][j])
				}
			}
			sy.SetWaits(i, w)
		}
	}
	// Try the candidates of the smallest values first (the likeliest to
	// be implied by another).
	order := make([]int, len(a.cands))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(p, q int) int {
		cp, cq := &a.cands[p], &a.cands[q]
		if cp.y != cq.y {
			return int(cp.y - cq.y)
		}
		return int(cp.value - cq.value)
	})
	pos := map[int]int{}
	for _, ks := range byY {
		for j, k := range ks {
			pos[k] = j
		}
	}
	for n, k := range order {
		c := &a.cands[k]
		j := pos[k]
		active[c.y][j] = false
		apply(c.y)
		if len(stream.Check(L, copt)) == 0 {
			c.keep = false
			a.st.Redundant++
		} else {
			active[c.y][j] = true
			apply(c.y)
		}
		if n%64 == 63 {
			sy.Compact()
		}
	}
	return nil
}

// number is step 5's numbering: one semaphore per signalling stream, in
// stream order.
func (a *loopAlloc) number() ([]int32, error) {
	f := a.f
	semOf := make([]int32, a.ns)
	used := make([]bool, a.ns)
	first := make([]bir.InstID, a.ns)
	for s := range semOf {
		semOf[s], first[s] = -1, bir.NoInst
	}
	f.Walk(func(i bir.InstID) bool {
		if int(i) < len(a.sig) && a.sig[i] {
			_, d, _ := a.streams(i)
			if !used[d] {
				used[d], first[d] = true, i
			}
		}
		return true
	})
	next := int32(0)
	for s := range used {
		if !used[s] {
			continue
		}
		if int64(next) >= a.model.Sync.Semaphores {
			msg := fmt.Sprintf("needs %d semaphores (one per engine or DMA queue that signals another), the arch has %d (arch.semaphores): the %s stream gets none", countTrue(used), a.model.Sync.Semaphores, stream.ID(s).Name())
			return nil, diag.Wrap(diag.Semaphores, f.Errorf(first[s], "the function %s", msg))
		}
		semOf[s] = next
		next++
		a.st.Streams++
	}
	a.st.Semaphores = int64(next)
	return semOf, nil
}

// write recomputes the kept waits' values over the final signals and
// writes every command.
func (a *loopAlloc) write(semOf []int32) {
	m := a.f.Module()
	for k := range a.cands {
		c := &a.cands[k]
		if !c.keep {
			continue
		}
		// The merged candidate's value is the largest of its targets'
		// (same term).
		first := true
		for _, t := range c.targets {
			if !a.sig[t.x] {
				continue
			}
			v, it := a.value(c.y, c.s, t)
			if first || v > c.value {
				c.value, c.iter = v, m.InternExpr(it)
			}
			first = false
		}
	}
	a.setCommands(semOf)
}

// rotations is step 2.
func (a *loopAlloc) rotations() error {
	f := a.f
	a.count()
	tab := f.Sched
	var points []bir.InstID
	acc := make([]int64, a.ns)
	for _, b := range f.Top {
		for _, i := range f.Block(b).Insts {
			in := f.Inst(i)
			if in.Dead() {
				continue
			}
			if in.Op.Info().Has(bir.FlagCall) {
				clear(acc)
				continue
			}
			add := make([]int64, a.ns)
			if in.Op.IsLoop() {
				for s, v := range a.per[i] {
					add[s] = a.trips[i] * v
				}
			} else if a.sig[i] {
				_, d, _ := a.streams(i)
				add[d] = 1
			}
			over := false
			for s := range add {
				if add[s] > a.maxVal {
					return diag.Wrap(diag.LoopNotHandled, f.Errorf(i, "the %s stream updates its semaphore %d times over this loop's iterations, more than the %d-bit counter holds: a rotation inside a loop is not implemented (fewer iterations, or full_unroll.unrollLevel=2)", stream.ID(s).Name(), add[s], a.model.Sync.SemaphoreBits))
				}
				if acc[s]+add[s] > a.maxVal {
					over = true
				}
			}
			if over {
				points = append(points, i)
				clear(acc)
			}
			for s := range add {
				acc[s] += add[s]
			}
		}
	}
	if len(points) == 0 {
		return nil
	}
	at := map[bir.InstID]bool{}
	for _, p := range points {
		at[p] = true
	}
	var offset, maxEnd int64
	k := 0
	barrierN := int64(0)
	for _, b := range f.Top {
		old := f.Block(b).Insts
		list := make([]bir.InstID, 0, len(old)+8)
		for _, x := range old {
			if at[x] {
				bt := maxEnd
				offset += max(0, bt-(tab.Start[x]+offset))
				group := func() {
					id := barrierN
					barrierN++
					for _, e := range a.engs {
						list = append(list, a.newSyncInst(bir.OpAllEngineBarrier, fmt.Sprintf("rotation%d_barrier%d_%s", k, id, strings.ToLower(e.ProfilerName())), e, x, RoleRotation, bt, bir.AttrSet{}.With(stream.AttrBarrierID, bir.Int(id))))
					}
				}
				group()
				list = append(list, a.newSyncInst(bir.OpGroupResetSemaphores, fmt.Sprintf("rotation%d_reset", k), a.home.Engine(), x, RoleRotation, bt, bir.AttrSet{}))
				group()
				k++
				a.st.Rotations++
			}
			// Shift x and, for a loop, its whole body.
			shift := func(i bir.InstID) {
				if tab.Has(i) {
					tab.Start[i] += offset
					tab.End[i] += offset
					maxEnd = max(maxEnd, tab.End[i])
				}
			}
			shift(x)
			if f.Inst(x).Op.IsLoop() {
				for _, bb := range f.Loop(x).Body {
					f.WalkBlock(bb, func(i bir.InstID) bool { shift(i); return true })
				}
			}
			list = append(list, x)
		}
		f.ReplaceBlockInsts(b, list)
	}
	// The new instructions are in no loop; the signals keep their slots.
	for len(a.sig) < f.NumInstSlots() {
		a.sig = append(a.sig, false)
	}
	f.Walk(func(i bir.InstID) bool {
		if _, ok := a.nest[i]; !ok {
			a.nest[i] = nil
		}
		return true
	})
	return nil
}

// newSyncInst is allocator.newSyncInst for this run.
func (a *loopAlloc) newSyncInst(op bir.Opcode, name string, e bir.Engine, origin bir.InstID, role string, t int64, attrs bir.AttrSet) bir.InstID {
	f := a.f
	al := &allocator{f: f, model: a.model, st: a.st}
	i := al.newSyncInst(op, name, e, origin, role, t, attrs)
	for len(a.sig) < f.NumInstSlots() {
		a.sig = append(a.sig, false)
	}
	return i
}

// carriers is step 6's carriers: waits beyond the wire limit move to
// EventSemaphores right before their instruction, on the engine that
// executes its waits, in its block.
func (a *loopAlloc) carriers() {
	f := a.f
	sy := f.Sync
	tab := f.Sched
	limit := int(max(a.model.Sync.WaitsPerInst, 1))
	for b := 0; b < f.NumBlocks(); b++ {
		old := f.Block(bir.BlockID(b)).Insts
		var list []bir.InstID
		changed := false
		for at, x := range old {
			ws := sy.Waits(x)
			if len(ws) > limit {
				if !changed {
					list = append(make([]bir.InstID, 0, len(old)+8), old[:at]...)
					changed = true
				}
				ws = slices.Clone(ws)
				its := slices.Clone(sy.WaitIters(x))
				for len(its) < len(ws) {
					its = append(its, 0)
				}
				w, _, _ := a.streams(x)
				k := 0
				for len(ws) > limit {
					c := a.newSyncInst(bir.OpEventSemaphore, fmt.Sprintf("%s_sync%d", f.InstName(x), k), w.Engine(), x, RoleCarrier, tab.Start[x], bir.AttrSet{})
					sy.SetWaitsIter(c, ws[:limit], its[:limit])
					ws, its = ws[limit:], its[limit:]
					list = append(list, c)
					a.st.Carriers++
					k++
				}
				sy.SetWaitsIter(x, ws, its)
			}
			if changed {
				list = append(list, x)
			}
		}
		if changed {
			f.ReplaceBlockInsts(bir.BlockID(b), list)
		}
	}
}

// endings adds the entry function's Drain and Halt.
func (a *loopAlloc) endings() error {
	f := a.f
	tab := f.Sched
	fx, L, err := a.expansion()
	if err != nil {
		return err
	}
	t := stream.Replay(L)
	trig := make([][]bool, L.NumStreams)
	for _, x := range L.Insts {
		if L.IsDMA(x) && L.Eng[x] != stream.None {
			e := L.Eng[x]
			if trig[e] == nil {
				trig[e] = make([]bool, L.NumStreams)
			}
			trig[e][L.Q[x]] = true
		}
	}
	_ = fx
	last := f.Top[len(f.Top)-1]
	list := slices.Clone(f.Block(last).Insts)
	origin := bir.NoInst
	if len(list) > 0 {
		origin = list[len(list)-1]
	}
	end := tab.Makespan()
	for _, e := range a.engs {
		s := stream.EngineStream(e)
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
	return nil
}
