package sched

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// Calls in the lower bound (issue 28 item 3). A call occupies every
// engine and queue for its callee's schedule: the simulation prices it at
// the callee's achieved makespan, but a lower bound may only use what any
// schedule of the callee needs, its lower bound. Pricing the call at the
// achieved makespan in the bound made a function that only calls a
// kernel (every KLR and NKI kernel reaches main through a call) report
// "gap 0.0%" by construction whatever its callee's gap; with the callee's
// bound the caller's gap is at least the callee's.
//
// The bounds come from the pass's run (runScheduler records each
// function's bound after scheduling it, callees first: Options.CalleeBound)
// or, for a callee the caller did not record (Schedule called alone), from
// the callee's own problem (calleeLowerBound), which needs no schedule of
// the callee's callees beyond their bounds.

// setCallBounds records, for every call position of p, the lower bound of
// its callee's duration: opt's, else computed from the callee.
func (p *problem) setCallBounds(m *bir.Module, model *arch.Model, opt Options) error {
	memo := map[string]int64{}
	for k := range p.insts {
		if p.res[k] != resAll {
			continue
		}
		name := p.f.Attrs(p.insts[k]).Str("func", "")
		v, ok := memo[name]
		if !ok {
			if opt.CalleeBound != nil {
				v, ok = opt.CalleeBound(name)
			}
			if !ok {
				var err error
				if v, err = calleeLowerBound(m, name, model, 0); err != nil {
					return err
				}
			}
			memo[name] = v
		}
		if p.callLB == nil {
			p.callLB = map[int32]int64{}
		}
		p.callLB[int32(k)] = min(v, p.dur[k])
	}
	return nil
}

// calleeLowerBound returns the lower bound of function name of m (0 when
// there is none, or it has loops: no bound is known); depth guards against
// a call cycle.
func calleeLowerBound(m *bir.Module, name string, model *arch.Model, depth int) (int64, error) {
	c := m.Func(name)
	if c == nil || depth > 16 || c.Sched == nil {
		return 0, nil
	}
	p, err := newProblem(c, model, func(n string) int64 {
		if d := m.Func(n); d != nil && d.Sched != nil {
			return d.Sched.Makespan()
		}
		return 0
	})
	if err != nil {
		return 0, nil // loops or an unpriceable instruction: no bound
	}
	if err := p.graphFromIR(); err != nil {
		return 0, err
	}
	for k := range p.insts {
		if p.res[k] == resAll {
			v, err := calleeLowerBound(m, c.Attrs(p.insts[k]).Str("func", ""), model, depth+1)
			if err != nil {
				return 0, err
			}
			if p.callLB == nil {
				p.callLB = map[int32]int64{}
			}
			p.callLB[int32(k)] = min(v, p.dur[k])
		}
	}
	r := &Report{Queues: int(max(model.DMAQueues, 1))}
	p.withCallBounds(func() { p.bound(r) })
	return r.LowerBound, nil
}

// withCallBounds runs fn with p's call durations replaced by their
// callees' bounds (the bound's view of the calls).
func (p *problem) withCallBounds(fn func()) {
	if len(p.callLB) == 0 {
		fn()
		return
	}
	saved := p.dur
	p.dur = slices.Clone(saved)
	for k, v := range p.callLB {
		p.dur[k] = v
	}
	defer func() { p.dur = saved }()
	fn()
}
