package sched

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Resources. An instruction occupies one resource for its duration: its
// engine (index = bir.Engine), or its DMA queue (firstQueue + queue). A
// DMA also occupies, for its transfer, the DMA engines that serve its
// partitions (firstDMAEngine + engine; arch/cost.go "The DMA model"): it
// holds its queue from its start, pays its fixed latency there, and
// moves its bytes once those engines are free, all of them at once. A
// call occupies every resource (its callee runs on all of them). On NC-v2
// two shared ports model the engine-sharing restrictions (hardware.md:
// "Vector and GpSimd cannot use SBUF at the same time; Vector and Scalar
// cannot use PSUM at the same time"): a DVE or Pool instruction touching
// SBUF also holds the SBUF port, a DVE or Act instruction touching PSUM the
// PSUM port.
const (
	resNone  int32 = -1 // no engine: starts when ready, occupies nothing
	resAll   int32 = -2 // every resource (calls)
	resQueue int32 = -3 // any DMA queue: the one free first when it issues

	firstQueue = int32(bir.NumEngines)
)

const (
	portSBUF uint8 = 1 << iota
	portPSUM
)

// problem is one function's scheduling problem: its instructions in
// program order (positions), their durations and resources, and the
// dependence graph from the IR's dependencies.
type problem struct {
	f     *bir.Function
	model *arch.Model
	insts []bir.InstID
	pos   []int32 // InstID -> position, -1 outside (Schedule drops it once the graph is read)
	block []int32 // position -> index of its top-level block
	dur   []int64 // ps
	res   []int32
	ports []uint8
	nRes  int32 // engines + queues + ports (all cores' for a joint problem)
	portR [2]int32

	// pre is, per position, a compute instruction's readiness latency (its
	// work starts no earlier than this long after its inputs are ready)
	// or a DMA's fixed latency on its queue (its transfer starts no
	// earlier than this long after it starts), in ps; nil: none.
	pre []int32
	// dmaM is, per position, 1 + the index in masks of a DMA's engines
	// (0: not a DMA, or no engines); nil: none. firstDMAEngine is the
	// first DMA engine's resource (core 0), nDMAEngines their count.
	dmaM           []uint16
	masks          []uint64
	firstDMAEngine int32
	nDMAEngines    int32

	// callLB is, per call position, the lower bound of its callee
	// (callee_bound.go); the bound uses it in place of the call's
	// duration.
	callLB map[int32]int64

	// A joint problem of several cores (LncAwareSchedule): core[k] is
	// position k's core, whose resources are stride*core + the
	// single-core resource; nil for one core.
	core   []uint8
	stride int32

	predStart, pred []int32
	succStart, succ []int32
}

// newProblem builds the problem of f. Durations come from the cost model
// (arch.Model.InstructionCost); a call's duration is its callee's
// makespan (calleeSpan).
func newProblem(f *bir.Function, model *arch.Model, calleeSpan func(name string) int64) (*problem, error) {
	p := &problem{f: f, model: model}
	p.pos = make([]int32, f.NumInstSlots())
	for k := range p.pos {
		p.pos[k] = -1
	}
	var err error
	for bi, b := range f.Top {
		f.WalkBlock(b, func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				// The pass leaves a function with loops unscheduled; a
				// caller that hands one over is at fault.
				err = diag.Wrap(diag.Internal, f.Errorf(i, "a %s remains; the scheduler needs straight-line code (run full_unroll first)", f.OpName(i)))
				return false
			}
			p.pos[i] = int32(len(p.insts))
			p.insts = append(p.insts, i)
			p.block = append(p.block, int32(bi))
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	n := len(p.insts)
	nq := int32(max(model.DMAQueues, 1))
	p.nRes = firstQueue + nq
	p.firstDMAEngine = p.nRes
	p.nDMAEngines = int32(min(max(model.DMAEngines, 1), 64))
	p.nRes += p.nDMAEngines
	p.portR = [2]int32{-1, -1}
	if !model.DVEPoolShareSBUF {
		p.portR[0] = p.nRes
		p.nRes++
	}
	if !model.DVEActSharePSUM {
		p.portR[1] = p.nRes
		p.nRes++
	}
	p.stride = p.nRes
	p.dur = make([]int64, n)
	p.res = make([]int32, n)
	p.ports = make([]uint8, n)
	p.pre = make([]int32, n)
	maskIdx := map[uint64]uint16{}
	tab := f.Sched
	for k, i := range p.insts {
		in := f.Inst(i)
		info := in.Op.Info()
		switch {
		case info.Has(bir.FlagDMA):
			q := int16(-1)
			hw := false
			if tab != nil && int(i) < tab.Len() {
				q, hw = tab.Queue[i], tab.DGE[i] >= 0
			}
			switch {
			case q < 0:
				p.res[k] = resQueue
			case int32(q) >= nq:
				// alloc_queues rebinds a queue out of the arch's range.
				return nil, diag.Wrap(diag.Internal, f.Errorf(i, "DMA queue %d: want 0..%d", q, nq-1))
			default:
				p.res[k] = firstQueue + int32(q)
			}
			est, err := model.InstructionCost(f, i, bir.EngDMA, hw)
			if err != nil {
				return nil, f.Errorf(i, "%w", err)
			}
			p.dur[k] = est.Ps()
			p.pre[k] = clampPs(est.FixedPs())
			if err := p.setMask(k, est.Engines, maskIdx); err != nil {
				return nil, f.Errorf(i, "%w", err)
			}
		case info.Has(bir.FlagCall):
			p.res[k] = resAll
			if calleeSpan != nil {
				p.dur[k] = calleeSpan(f.Attrs(i).Str("func", ""))
			}
		default:
			eng := in.Engine
			p.res[k] = resNone
			if eng != bir.EngUnassigned && eng < bir.NumEngines {
				p.res[k] = int32(eng)
			}
			est, err := model.InstructionCost(f, i, eng, false)
			if err != nil {
				return nil, f.Errorf(i, "%w", err)
			}
			p.dur[k] = est.Ps()
			p.pre[k] = clampPs(est.LatencyPs())
			p.ports[k] = p.portsOf(i, eng)
		}
	}
	return p, nil
}

// clampPs fits a latency in ps into pre's int32 (2.1 ms; the published
// latencies are at most a few microseconds).
func clampPs(ps int64) int32 { return int32(min(max(ps, 0), 1<<31-1)) }

// setMask records the DMA engines of position k (mask 0: none).
func (p *problem) setMask(k int, mask uint64, idx map[uint64]uint16) error {
	if mask == 0 {
		return nil
	}
	if p.dmaM == nil {
		p.dmaM = make([]uint16, len(p.insts))
	}
	x, ok := idx[mask]
	if !ok {
		if len(p.masks) >= 1<<16-1 {
			return diag.Errorf(diag.Internal, "more than %d distinct DMA engine sets", 1<<16-1)
		}
		p.masks = append(p.masks, mask)
		x = uint16(len(p.masks))
		idx[mask] = x
	}
	p.dmaM[k] = x
	return nil
}

// preOf returns position k's readiness or fixed latency (ps).
func (p *problem) preOf(k int32) int64 {
	if p.pre == nil {
		return 0
	}
	return int64(p.pre[k])
}

// maskOf returns the DMA engines position k occupies for its transfer (0:
// none).
func (p *problem) maskOf(k int32) uint64 {
	if p.dmaM == nil || p.dmaM[k] == 0 {
		return 0
	}
	return p.masks[p.dmaM[k]-1]
}

// isDMA reports whether position k is a DMA (it runs on a queue; its
// pre is its fixed latency, inside its duration).
func (p *problem) isDMA(k int32) bool {
	r := p.res[k]
	switch {
	case r == resQueue:
		return true
	case r < 0:
		return false
	}
	if p.stride > 0 {
		r %= p.stride
	}
	return r >= firstQueue && r < firstQueue+int32(max(p.model.DMAQueues, 1))
}

// dmaEngineRes returns the resource of DMA engine e of position k's core.
func (p *problem) dmaEngineRes(k int32, e int) int32 {
	r := p.firstDMAEngine + int32(e)
	if p.core != nil {
		r += int32(p.core[k]) * p.stride
	}
	return r
}

// portsOf returns the shared ports instruction i holds on engine eng.
func (p *problem) portsOf(i bir.InstID, eng bir.Engine) uint8 {
	if eng != bir.EngDVE && eng != bir.EngPool && eng != bir.EngAct {
		return 0
	}
	var sb, ps bool
	f := p.f
	for _, o := range f.Operands(i) {
		if o.Kind != bir.OpdPhysAP || int(o.Loc()) >= f.NumLocs() {
			continue
		}
		switch f.Loc(o.Loc()).Type {
		case bir.MemSB:
			sb = true
		case bir.MemPSUM:
			ps = true
		}
	}
	var m uint8
	if sb && p.portR[0] >= 0 && (eng == bir.EngDVE || eng == bir.EngPool) {
		m |= portSBUF
	}
	if ps && p.portR[1] >= 0 && (eng == bir.EngDVE || eng == bir.EngAct) {
		m |= portPSUM
	}
	return m
}

// graphFromIR reads the IR's dependencies into predecessor and successor
// lists.
func (p *problem) graphFromIR() error {
	f := p.f
	n := len(p.insts)
	p.predStart = make([]int32, n+1)
	// Count, then fill: the lists are allocated exactly once.
	total := 0
	for _, i := range p.insts {
		for d := f.Inst(i).Deps; d >= 0; {
			_, next, ok := f.DepRecord(d)
			if !ok {
				break
			}
			d = next
			total++
		}
	}
	p.pred = make([]int32, 0, total)
	for k, i := range p.insts {
		for d := f.Inst(i).Deps; d >= 0; {
			dep, next, ok := f.DepRecord(d)
			if !ok {
				break
			}
			d = next
			if int(dep.On) < 0 || int(dep.On) >= len(p.pos) || p.pos[dep.On] < 0 {
				// The verifier's dep rule holds on the input and after every pass.
				return diag.Wrap(diag.Internal, f.Errorf(i, "depends on a removed or unknown instruction"))
			}
			q := p.pos[dep.On]
			if q >= int32(k) {
				return diag.Wrap(diag.Internal, f.Errorf(i, "depends on %s, which does not precede it in program order", f.InstName(dep.On)))
			}
			p.pred = append(p.pred, q)
		}
		p.predStart[k+1] = int32(len(p.pred))
	}
	p.successors()
	return nil
}

// withGraph returns a copy of p whose dependencies are g's (a graph of the
// same function, positions in the same program order).
func (p *problem) withGraph(g *depgraph.Graph) *problem {
	q := *p
	q.predStart = g.PredStart
	q.pred = g.Pred
	q.successors()
	return &q
}

// successors builds the successor lists from the predecessor lists
// (counting sort).
func (p *problem) successors() {
	n := len(p.insts)
	cnt := make([]int32, n+1)
	for _, q := range p.pred {
		cnt[q+1]++
	}
	for k := 0; k < n; k++ {
		cnt[k+1] += cnt[k]
	}
	p.succStart = append([]int32(nil), cnt...)
	p.succ = make([]int32, len(p.pred))
	for k := 0; k < n; k++ {
		for _, q := range p.pred[p.predStart[k]:p.predStart[k+1]] {
			p.succ[cnt[q]] = int32(k)
			cnt[q]++
		}
	}
}

func (p *problem) preds(k int32) []int32 { return p.pred[p.predStart[k]:p.predStart[k+1]] }
func (p *problem) succs(k int32) []int32 { return p.succ[p.succStart[k]:p.succStart[k+1]] }

// resName names a resource as the Neuron profiler names its rows
// (hardware.md "Profiler conventions": Tensor, Vector, Scalar, GpSimd,
// Sync, and one row per DMA queue).
func resName(r int32) string {
	switch {
	case r == resAll:
		return "all engines"
	case r == resNone:
		return "none"
	case r < firstQueue:
		return EngineName(bir.Engine(r))
	}
	return fmt.Sprintf("DMA queue %d", r-firstQueue)
}

// DMAEngineName is the name of DMA engine e's track and resource.
func DMAEngineName(e int) string { return fmt.Sprintf("DMA engine %d", e) }

// EngineName is the Neuron profiler's name of an engine
// (bir.Engine.ProfilerName, shared with the stream listings).
func EngineName(e bir.Engine) string { return e.ProfilerName() }
