package stream

import (
	"fmt"
	"sort"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Problem is one violation Check finds: the instruction (NoInst for the
// function) and the message.
type Problem struct {
	Inst bir.InstID
	Msg  string
}

// CheckOptions configure Check.
type CheckOptions struct {
	// Semaphores is the number of semaphores (ids 0..Semaphores-1).
	Semaphores int64
	// MaxValue is the largest value a counter holds (2^bits - 1).
	MaxValue int64
	// Entry: the function is the module's entry, so every engine stream
	// must end with Halt and no DMA may be in flight once all have halted.
	Entry bool
	// MaxProblems bounds the problems reported (0: 20).
	MaxProblems int
}

// Attribute keys of the synchronization opcodes.
const (
	AttrBarrierID  = "id"         // AllEngineBarrier, CoreBarrier: the group
	AttrSemaphores = "semaphores" // GroupResetSemaphores: the semaphores it resets
	AttrCores      = "cores"      // CoreBarrier: the participating cores
)

// semHist is the update history of one semaphore since its last reset.
type semHist struct {
	owner ID
	value int64
	vals  []int64 // value after each update
	snaps []int32 // the updater's knowledge at each update
}

// Check is the exact happens-before check of a synchronized function
// (the verifier's StageSynchronized rule "synchronized"): walking L's
// function in program order with a Tracker, it reports
//
//   - a semaphore command naming a semaphore outside 0..Semaphores-1, an
//     update whose value is not positive, a counter that goes above
//     MaxValue;
//   - a semaphore updated by two streams ("datapath semaphore must be
//     updated by datapath instr" when one of them is a DMA queue): the
//     value would count updates in no fixed order;
//   - a wait that the updates before it in program order (since the last
//     reset) never satisfy: a deadlock, or an order the streams do not
//     guarantee;
//   - every dependency of the IR (FLOW, ANTI, OUTPUT, ORDERED) whose
//     source's completion the instruction does not know when it issues
//     (the knowledge flows along each stream's order, DMA triggers, waits
//     on updates, Drain, barriers and calls);
//   - barrier groups that are incomplete or interrupted, a
//     GroupResetSemaphores not between two barrier groups, commands on a
//     call;
//   - in the entry function, an engine stream that does not end with Halt
//     and a DMA that may still be in flight once every engine has halted.
func Check(L *Layout, opt CheckOptions) []Problem {
	maxP := opt.MaxProblems
	if maxP <= 0 {
		maxP = 20
	}
	var out []Problem
	n := 0
	report := func(i bir.InstID, format string, args ...any) {
		if n++; n <= maxP {
			out = append(out, Problem{Inst: i, Msg: fmt.Sprintf(format, args...)})
		}
	}
	walk(L, opt, report)
	if n > maxP {
		out = append(out, Problem{Inst: bir.NoInst, Msg: fmt.Sprintf("%d synchronization problems in all (the first %d are listed)", n, maxP)})
	}
	return out
}

// Replay walks L's function with its semaphore commands (as Check does,
// without reporting) and returns the tracker at the end: what every
// stream knows once it has run to completion.
func Replay(L *Layout) *Tracker {
	return walk(L, CheckOptions{Semaphores: 1 << 30}, func(bir.InstID, string, ...any) {})
}

func walk(L *Layout, opt CheckOptions, report func(i bir.InstID, format string, args ...any)) *Tracker {
	f := L.F
	t := NewTracker(L)
	sy := f.Sync
	hist := map[int32]*semHist{}
	resetAll := func() {
		for _, h := range hist {
			h.value, h.vals, h.snaps = 0, h.vals[:0], h.snaps[:0]
		}
	}
	nEng := 0
	for _, e := range Engines {
		if L.Present[EngineStream(e)] {
			nEng++
		}
	}
	// The barrier group being collected.
	var group []bir.InstID
	groupID := int64(-1)
	groupPos := make([]int32, L.NumStreams)
	afterGroup, wantGroup := false, false
	callK := 0
	lastHalt := make([]bool, L.NumStreams)
	for _, x := range L.Insts {
		in := f.Inst(x)
		op := in.Op
		waits, updates := sy.Waits(x), sy.Updates(x)
		if len(group) > 0 && op != bir.OpAllEngineBarrier {
			report(x, "interrupts AllEngineBarrier group %d (%d of %d engines reached it): want the group's members adjacent", groupID, len(group), nEng)
			group = group[:0]
		}
		if wantGroup && op != bir.OpAllEngineBarrier && op != bir.OpGroupResetSemaphores {
			report(x, "follows a GroupResetSemaphores: want an AllEngineBarrier group after the reset, so no engine observes a semaphore while it is reset")
			wantGroup = false
		}
		if s := L.Eng[x]; s != None && !L.IsCall(x) {
			lastHalt[s] = op == bir.OpHalt
		}
		switch {
		case L.IsCall(x):
			if len(waits)+len(updates) > 0 {
				report(x, "a call carries %d wait and %d update commands: want none (a call is an all-engine barrier)", len(waits), len(updates))
			}
			t.Call(callK)
			callK++
			resetAll()
			for s := range lastHalt {
				lastHalt[s] = false
			}
			afterGroup = false
			continue
		case op == bir.OpAllEngineBarrier:
			id, ok := f.Attrs(x).Get(AttrBarrierID)
			v, ok2 := id.AsInt()
			if !ok || !ok2 {
				report(x, "AllEngineBarrier without an integer %q attribute: want the group id", AttrBarrierID)
				continue
			}
			if len(group) > 0 && v != groupID {
				report(x, "AllEngineBarrier group %d starts before group %d is complete (%d of %d engines): want one member per engine, adjacent", v, groupID, len(group), nEng)
				group = group[:0]
			}
			if len(group) == 0 {
				groupID = v
				for s := range groupPos {
					groupPos[s] = -1
				}
			}
			s := L.Eng[x]
			if groupPos[s] >= 0 {
				report(x, "second member of AllEngineBarrier group %d on %s: want one per engine", v, s.Name())
				continue
			}
			groupPos[s] = L.EPos[x]
			group = append(group, x)
			if len(waits)+len(updates) > 0 {
				report(x, "an AllEngineBarrier carries semaphore commands: want none")
			}
			if len(group) == nEng {
				t.Barrier(groupPos)
				group = group[:0]
				afterGroup, wantGroup = true, false
			}
			continue
		case op == bir.OpGroupResetSemaphores:
			if !afterGroup {
				report(x, "GroupResetSemaphores not right after an AllEngineBarrier group: want it between two barrier groups")
			}
			wantGroup = true
			ids, all := resetList(f.Attrs(x))
			if all {
				resetAll()
			} else {
				for _, s := range ids {
					if h := hist[s]; h != nil {
						h.value, h.vals, h.snaps = 0, h.vals[:0], h.snaps[:0]
					}
				}
			}
			t.Complete(x)
			continue
		}
		afterGroup = false
		w := L.WaitStream(x)
		for _, c := range waits {
			if c.Sem < 0 || int64(c.Sem) >= opt.Semaphores {
				report(x, "waits on semaphore %d: want 0..%d", c.Sem, opt.Semaphores-1)
				continue
			}
			h := hist[c.Sem]
			if c.Value <= 0 {
				continue // satisfied at once, learns nothing
			}
			var k int
			if h != nil {
				k = sort.Search(len(h.vals), func(j int) bool { return h.vals[j] >= int64(c.Value) })
			}
			if h == nil || k == len(h.vals) {
				have := int64(0)
				if h != nil {
					have = h.value
				}
				report(x, "waits for $S[%d]>=%d, but the updates before it in program order (since the last reset) bring semaphore %d only to %d: a deadlock, or an order the streams do not guarantee", c.Sem, c.Value, c.Sem, have)
				continue
			}
			t.Acquire(w, h.snaps[k])
		}
		if op == bir.OpDrain && w != None {
			t.Drain(w)
		}
		r := t.Issue(x)
		if r != None {
			row := t.Row(r)
			L.Deps(x, func(p bir.InstID, kind bir.DepKind) {
				if !t.KnowsIn(row, p) {
					ps := L.DoneStream(p)
					report(x, "depends on %s (%s), which no chain of stream order, triggers and semaphore waits and updates orders before it: %s knows %d entries of %s when it issues, want more than %d (%s's position)",
						f.InstName(p), kind, r.Name(), row[ps], ps.Name(), L.DonePos(p), f.InstName(p))
				}
			})
		}
		t.Complete(x)
		done := L.DoneStream(x)
		for _, c := range updates {
			if c.Sem < 0 || int64(c.Sem) >= opt.Semaphores {
				report(x, "updates semaphore %d: want 0..%d", c.Sem, opt.Semaphores-1)
				continue
			}
			if c.Value <= 0 {
				report(x, "adds %d to semaphore %d: want a positive value (waits count updates)", c.Value, c.Sem)
				continue
			}
			h := hist[c.Sem]
			if h == nil {
				h = &semHist{owner: done}
				hist[c.Sem] = h
			}
			if h.owner != done {
				if h.owner.IsQueue() != done.IsQueue() {
					report(x, "datapath semaphore must be updated by datapath instr: semaphore %d is updated by %s and %s (want one owner: a DMA queue's completions or one engine's instructions)", c.Sem, h.owner.Name(), done.Name())
				} else {
					report(x, "semaphore %d is updated by %s and %s: want one owner, so that its value counts one stream's updates in order", c.Sem, h.owner.Name(), done.Name())
				}
				continue
			}
			h.value += int64(c.Value)
			if opt.MaxValue > 0 && h.value > opt.MaxValue {
				report(x, "semaphore %d reaches %d, above the counter's largest value %d: want a rotation (AllEngineBarrier + GroupResetSemaphores) first", c.Sem, h.value, opt.MaxValue)
			}
			h.vals = append(h.vals, h.value)
			h.snaps = append(h.snaps, t.Snapshot(done))
		}
	}
	if len(group) > 0 {
		report(group[0], "AllEngineBarrier group %d is incomplete: %d of %d engines reach it", groupID, len(group), nEng)
	}
	if opt.Entry {
		all := make([]int32, L.NumStreams)
		for _, e := range Engines {
			s := EngineStream(e)
			if !L.Present[s] {
				continue
			}
			if !lastHalt[s] {
				report(bir.NoInst, "the %s engine's stream does not end with Halt: want every engine stream of the entry function to end with Halt", s.Name())
			}
			join(all, t.Row(s))
		}
		for s := int(FirstQueue); s < L.NumStreams; s++ {
			if L.Present[s] && all[s] < L.Len[s] {
				report(bir.NoInst, "%d of the %d DMAs of %s are not known to have completed when every engine has halted: want a Drain (or a wait) on each DMA's completion before Halt", L.Len[s]-all[s], L.Len[s], ID(s).Name())
			}
		}
	}
	return t
}

// resetList reads GroupResetSemaphores' semaphores; all is true when the
// attribute is absent (every semaphore).
func resetList(a bir.AttrSet) (ids []int32, all bool) {
	v, ok := a.Get(AttrSemaphores)
	if !ok || v.Kind != bir.ValList {
		return nil, true
	}
	for _, e := range v.L {
		if k, ok := e.AsInt(); ok {
			ids = append(ids, int32(k))
		}
	}
	return ids, false
}
