package stream

import (
	"math/bits"
	"sort"

	"github.com/narwhal-compiler/narwhal/bir"
)

// SimOptions price a simulation of the streams (all times in ps).
type SimOptions struct {
	// Dur is the time instruction i occupies its engine (a DMA: its
	// queue).
	Dur func(i bir.InstID) int64
	// TriggerCost is the time firing a DMA occupies its trigger engine.
	TriggerCost func(e bir.Engine) int64
	// EngineLatency is the time from an update to the start of an engine
	// instruction waiting on it; DMALatency to the firing of a DMA waiting
	// on it (hardware.md: "cross-engine DMA semaphore-to-start about
	// 1300 ns").
	EngineLatency, DMALatency int64
	// DMA, when set, prices a DMA by the DMA engines it moves its bytes on
	// (arch/cost.go "The DMA model"): its fixed latency on its queue, its
	// transfer time, and the engines (bit e: DMA engine e), which it holds
	// one transfer at a time; nil: a DMA holds its queue for Dur.
	DMA func(i bir.InstID) (fixed, transfer int64, engines uint64)
}

// SimResult is the outcome of Simulate.
type SimResult struct {
	Makespan int64
	// Waits counts the waits that delayed an instruction (the semaphore's
	// update came after the stream was free).
	Waits int64
}

// Simulate re-times the streams of a synchronized function (the
// execution model of the package comment): each engine and queue runs its
// entries in order; an engine entry starts when its engine is free and
// every wait's update has happened, plus the semaphore latency; a DMA
// starts when fired and its queue is free; Drain waits for the DMAs its
// engine fired; barriers and calls wait for every engine and queue. The
// makespan is the "makespan with sync latency" of the alloc_semaphores
// report, next to the schedule's (which prices no semaphore).
func Simulate(L *Layout, opt SimOptions) SimResult {
	f := L.F
	sy := f.Sync
	ns := L.NumStreams
	free := make([]int64, ns)
	dmaDone := make([]int64, ns)
	var engFree [64]int64 // the DMA engines (opt.DMA)
	type hist struct{ vals, times []int64 }
	// A semaphore's history, by its id: a slice for the ids a function
	// uses (small numbers), a map for any other.
	const maxDense = 1 << 16
	var dense []*hist
	sparse := map[int32]*hist{}
	sem := func(id int32, create bool) *hist {
		if id < 0 || id >= maxDense {
			h := sparse[id]
			if h == nil && create {
				h = &hist{}
				sparse[id] = h
			}
			return h
		}
		if int(id) >= len(dense) {
			if !create {
				return nil
			}
			dense = append(dense, make([]*hist, int(id)+1-len(dense))...)
		}
		if dense[id] == nil && create {
			dense[id] = &hist{}
		}
		return dense[id]
	}
	var res SimResult
	resetSems := func() {
		for _, h := range dense {
			if h != nil {
				h.vals, h.times = h.vals[:0], h.times[:0]
			}
		}
		for _, h := range sparse {
			h.vals, h.times = h.vals[:0], h.times[:0]
		}
	}
	all := func() int64 {
		var t int64
		for s := 0; s < ns; s++ {
			if L.Present[s] {
				t = max(t, free[s])
			}
		}
		return t
	}
	lastGroup := int64(-1)
	for _, x := range L.Insts {
		in := f.Inst(x)
		switch {
		case L.IsCall(x):
			t0 := all()
			end := t0 + opt.Dur(x)
			for s := range free {
				free[s] = end
			}
			res.Makespan = max(res.Makespan, end)
			resetSems()
			lastGroup = -1
			continue
		case in.Op == bir.OpAllEngineBarrier:
			id := f.Attrs(x).Int(AttrBarrierID, -1)
			if id != lastGroup {
				t0 := all()
				for _, e := range Engines {
					if s := EngineStream(e); L.Present[s] {
						free[s] = t0
					}
				}
				lastGroup = id
			}
			continue
		case in.Op == bir.OpGroupResetSemaphores:
			ids, every := resetList(f.Attrs(x))
			if every {
				resetSems()
			} else {
				for _, s := range ids {
					if h := sem(s, false); h != nil {
						h.vals, h.times = h.vals[:0], h.times[:0]
					}
				}
			}
			continue
		}
		lastGroup = -1
		w := L.Eng[x]
		q := L.Q[x]
		lat := opt.EngineLatency
		if q != None {
			lat = opt.DMALatency
		}
		tw := int64(0)
		if w != None {
			tw = free[w]
		}
		for _, c := range sy.Waits(x) {
			h := sem(c.Sem, false)
			if h == nil || c.Value <= 0 {
				continue
			}
			k := sort.Search(len(h.vals), func(j int) bool { return h.vals[j] >= int64(c.Value) })
			if k < len(h.vals) && h.times[k]+lat > tw {
				tw = h.times[k] + lat
				res.Waits++
			}
		}
		if in.Op == bir.OpDrain && w != None {
			tw = max(tw, dmaDone[w]+opt.EngineLatency)
		}
		var end int64
		if q == None {
			end = tw + opt.Dur(x)
			if w != None {
				free[w] = end
			}
		} else {
			fired := tw
			if w != None {
				fired += opt.TriggerCost(w.Engine())
				free[w] = fired
			}
			start := max(free[q], fired)
			end = start + opt.Dur(x)
			if opt.DMA != nil {
				if fix, xfer, eng := opt.DMA(x); eng != 0 {
					t := start + fix
					for m := eng; m != 0; m &= m - 1 {
						t = max(t, engFree[bits.TrailingZeros64(m)])
					}
					end = t + xfer
					for m := eng; m != 0; m &= m - 1 {
						engFree[bits.TrailingZeros64(m)] = end
					}
				}
			}
			free[q] = end
			if w != None {
				dmaDone[w] = max(dmaDone[w], end)
			}
		}
		res.Makespan = max(res.Makespan, end)
		for _, c := range sy.Updates(x) {
			h := sem(c.Sem, true)
			v := int64(c.Value)
			if n := len(h.vals); n > 0 {
				v += h.vals[n-1]
			}
			h.vals = append(h.vals, v)
			h.times = append(h.times, end)
		}
	}
	return res
}
