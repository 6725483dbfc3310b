package semaphores

import (
	"slices"
	"sort"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/stream"
)

// # assign_trigger_engine
//
// What it does (seed 002 §6.5: "Trigger-engine assignment — picks which
// engine fires each DMA: Assigned trigger engine for , gated by
// enable-hwdge-trigger-engine-scheduling (the registered generator
// register_generator_assign_trigger_engine__)"; §6.4:
// TimeAwareScheduler::is_better_trigger "picks which candidate fires a
// DMA"). For every scheduled function, in program order, each DMA whose
// trigger engine may be chosen gets the candidate engine is_better_trigger
// prefers, and the log line "Assigned trigger engine for <dma>: <engine>".
//
// Which engines may fire a DMA (NKI dma_copy's descriptor-generation
// modes): a hardware-DGE DMA the Sync or the Scalar engine ("Sync Engine
// or Scalar Engine sequencers invoke DGE hardware block"); a DMA whose
// descriptors the runtime prepared (software DGE, static descriptors) any
// engine; a DMA whose descriptors are generated while the program runs
// only GpSimd, so it is not a choice and keeps alloc_semaphores' default.
//
// isBetterTrigger compares two candidates (the seed's signature: an
// instruction and two numbers each): the engine's instruction the trigger
// would follow, the time the engine can fire the DMA (at the DMA's
// scheduled start, or when that engine's instruction running then ends,
// or when its previous trigger is done: a trigger occupies its engine for
// the static instruction overhead), and the semaphore waits the trigger
// would execute (the DMA's sources on other engines and queues: a source
// on the firing engine is ordered by the stream for free). Earlier wins,
// then fewer waits, then the Sync engine, then the order of
// stream.Engines.
//
// Gate: the pass runs only with --enable-hwdge-trigger-engine-scheduling
// (module option enable-hwdge-trigger-engine-scheduling=true); without it
// every DMA keeps alloc_semaphores' default trigger (the Sync engine, or
// the DGE's engine, or GpSimd). Pre: StageScheduled. Post: the DMAs it
// chose for have Sync.Trigger set; nothing else changes.

// AssignTriggerEnginePass is the pass table entry.
var AssignTriggerEnginePass = pass.Pass{
	Name:    "assign_trigger_engine",
	Default: true,
	Gate:    "enable-hwdge-trigger-engine-scheduling",
	Doc:     "the engine that fires each DMA, by is_better_trigger on the schedule (seed 002 §6.5)",
	Run: func(ctx *pass.Context) error {
		var by [bir.NumEngines]int64
		for _, f := range ctx.Module.FuncsMainFirst() {
			if f.Sched == nil {
				continue
			}
			if hasLoops(f) {
				ctx.Logf("function %s keeps loops: its DMAs keep the default trigger engines", f.Name)
				continue
			}
			ctx.Function(f.Name)
			n := AssignTriggerEngines(f, ctx.Arch, func(d bir.InstID, e bir.Engine) {
				ctx.Logf("Assigned trigger engine for %s: %s", f.InstName(d), e.ProfilerName())
			})
			for e, k := range n {
				by[e] += k
			}
		}
		ctx.Function("")
		for _, e := range stream.Engines {
			if by[e] > 0 {
				ctx.Count("triggers."+e.ProfilerName(), by[e])
			}
		}
		return nil
	},
}

// triggerCandidates returns the engines that may fire DMA d (nil: no
// choice).
func triggerCandidates(f *bir.Function, d bir.InstID, model *arch.Model) []bir.Engine {
	var es []bir.Engine
	switch {
	case f.Sched.DGE[d] >= 0:
		es = []bir.Engine{bir.EngSP, bir.EngAct}
	case arch.StaticDMADescriptors(f, d):
		es = stream.Engines
	default:
		return nil
	}
	var out []bir.Engine
	for _, e := range es {
		if model.HasEngine(e) {
			out = append(out, e)
		}
	}
	return out
}

// candidate is one engine considered for a trigger.
type candidate struct {
	eng   bir.Engine
	after bir.InstID // the engine's instruction the trigger follows (NoInst: none)
	ready int64      // when the engine can fire, ps
	waits int        // semaphore waits the trigger would execute
}

// isBetterTrigger is TimeAwareScheduler::is_better_trigger: whether
// candidate a (its instruction, ready time, waits) is a better trigger
// than b.
func isBetterTrigger(a bir.InstID, aReady int64, aWaits int, aEng bir.Engine, b bir.InstID, bReady int64, bWaits int, bEng bir.Engine) bool {
	_, _ = a, b // the instructions the triggers follow: the ready times already price them
	switch {
	case aReady != bReady:
		return aReady < bReady
	case aWaits != bWaits:
		return aWaits < bWaits
	case (aEng == bir.EngSP) != (bEng == bir.EngSP):
		return aEng == bir.EngSP
	}
	return engineRank(aEng) < engineRank(bEng)
}

func engineRank(e bir.Engine) int {
	for k, x := range stream.Engines {
		if x == e {
			return k
		}
	}
	return len(stream.Engines)
}

// AssignTriggerEngines chooses the trigger engine of every DMA of f that
// has a choice (see the pass comment), calling log for each; it returns
// the DMAs assigned per engine.
func AssignTriggerEngines(f *bir.Function, model *arch.Model, log func(d bir.InstID, e bir.Engine)) [bir.NumEngines]int64 {
	var n [bir.NumEngines]int64
	tab := f.Sched
	tab.Grow(f.NumInstSlots())
	if f.Sync == nil {
		f.Sync = bir.NewSync(f.NumInstSlots())
	}
	f.Sync.Grow(f.NumInstSlots())
	// Each engine's timeline (program order is start order).
	var starts, ends [bir.NumEngines][]int64
	var insts [bir.NumEngines][]bir.InstID
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if e := in.Engine; tab.Has(i) && !in.Op.Info().Has(bir.FlagDMA) && e != bir.EngUnassigned && e < bir.NumEngines {
			starts[e] = append(starts[e], tab.Start[i])
			ends[e] = append(ends[e], tab.End[i])
			insts[e] = append(insts[e], i)
		}
		return true
	})
	var trigFree [bir.NumEngines]int64
	cost := func(e bir.Engine) int64 {
		if g := model.Clock(e); g > 0 {
			return int64(float64(model.Cost.StaticOverhead) / g * 1000)
		}
		return 0
	}
	var cands []candidate
	f.Walk(func(d bir.InstID) bool {
		if !f.Inst(d).Op.Info().Has(bir.FlagDMA) || !tab.Has(d) {
			return true
		}
		es := triggerCandidates(f, d, model)
		if len(es) == 0 {
			return true
		}
		t := tab.Start[d]
		cands = cands[:0]
		for _, e := range es {
			c := candidate{eng: e, after: bir.NoInst, ready: max(t, trigFree[e])}
			// The engine's last instruction starting no later than t.
			k := sort.Search(len(starts[e]), func(j int) bool { return starts[e][j] > t }) - 1
			if k >= 0 {
				c.after = insts[e][k]
				c.ready = max(c.ready, ends[e][k])
			}
			c.waits = triggerWaits(f, d, e)
			cands = append(cands, c)
		}
		best := cands[0]
		for _, c := range cands[1:] {
			if isBetterTrigger(c.after, c.ready, c.waits, c.eng, best.after, best.ready, best.waits, best.eng) {
				best = c
			}
		}
		f.Sync.Trigger[d] = best.eng
		trigFree[best.eng] = best.ready + cost(best.eng)
		n[best.eng]++
		if log != nil {
			log(d, best.eng)
		}
		return true
	})
	return n
}

// triggerWaits counts the streams other than engine e and DMA d's queue
// whose instructions d depends on: the waits firing d from e would take
// (before alloc_semaphores removes those other waits imply).
func triggerWaits(f *bir.Function, d bir.InstID, e bir.Engine) int {
	tab := f.Sched
	var buf [16]int32
	seen := buf[:0]
	for k := f.Inst(d).Deps; k >= 0; {
		dep, next, ok := f.DepRecord(k)
		if !ok {
			break
		}
		k = next
		p := dep.On
		var key int32
		switch {
		case int(p) >= tab.Len():
			continue
		case f.Inst(p).Op.Info().Has(bir.FlagDMA):
			if tab.Queue[p] == tab.Queue[d] {
				continue
			}
			key = int32(stream.QueueStream(int(tab.Queue[p])))
		case f.Inst(p).Engine == e:
			continue
		default:
			key = int32(f.Inst(p).Engine)
		}
		if !slices.Contains(seen, key) {
			seen = append(seen, key)
		}
	}
	return len(seen)
}
