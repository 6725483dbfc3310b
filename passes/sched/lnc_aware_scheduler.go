package sched

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/stream"
)

// # LncAwareScheduler (seed 002 §6.4: "Then LncAwareScheduler::schedule()
// (+ get_lnc_sync_candidates()) orders across NeuronCores")
//
// A kernel compiled for LNC = n runs one body per logical core; narwhal
// compiles each core's body as its own module (translate's LNC rules,
// --core-id). The cores have their own engines and DMA queues and share
// HBM: an instruction of one core and one of another whose DRAM footprints
// in a tensor both see (the same DRAM location name) conflict, one of them
// writing, must be ordered across the cores. LncAwareSchedule:
//
//  1. get_lnc_sync_candidates: every such pair, from the cores' DRAM
//     accesses (depgraph.DRAMAccesses: the same footprints and operand
//     roles as the dependency analysis; a location is identified across
//     modules by its name and must have the same dims in each). The
//     order of a pair is the program's: the cores meet at CoreBarriers
//     (insert_core_barrier, before the scheduler in the default
//     pipeline; every core has the same sequence of barrier ids), so an
//     access after a core's k-th barrier follows every core's accesses
//     before their k-th: the pair goes in the order of the barriers
//     before each access (its epoch). Decision (the seed says no more
//     than the names) for a pair in the same epoch: the lower core's
//     instruction goes first. A kernel whose cores race on HBM between
//     two barriers has no other meaning a compiler could preserve (NKI
//     kernels partition the shared tensors by core id; tensor_add_lnc2
//     writes disjoint rows and has no candidate).
//  2. schedules the cores jointly: one problem whose positions are the
//     cores' instructions epoch by epoch (within an epoch core 0's first,
//     so every cross-core edge points forward), each core with its own
//     engines and queues, the cores' own dependencies, the cross-core
//     edges, and the barriers' meeting: whatever follows a core's barrier
//     k also waits for every other core's barrier k (the barrier is where
//     the cores meet; each core's barrier follows all its earlier work,
//     depgraph's barrier rule); the DDG list scheduler and the
//     TimeAwareScheduler as for one core.
//  3. writes each core's schedule into its function (Start/End/Order and
//     its block's order, as time_aware_scheduler does).
//
// The cross-core edges are returned (LncReport.Cross), for
// synchronization to turn into core barriers or point-to-point
// completions (seed 002 §6.5's InsertCoreBarrier, InsertPTCOMFlat); they
// are not IR dependencies, which name instructions of one function.
//
// Pre: each core's function has one top-level block, its dependencies and
// DMA queues (the default pipeline up to time_aware_scheduler). Post: each
// function satisfies StageScheduled on its own; the cross-core edges are
// respected by the joint timeline (the cores share a clock).

// LncEdge is a cross-core dependency: (To core, To instruction) starts
// after (From core, From instruction) ends.
type LncEdge struct {
	FromCore, ToCore int
	From, To         bir.InstID
}

// LncReport is the joint schedule's account.
type LncReport struct {
	Makespan   int64   // the joint schedule's end (ps)
	CoreSpans  []int64 // each core's end in the joint schedule
	AloneSpans []int64 // each core scheduled alone (no cross-core edge)
	Cross      []LncEdge
	Candidates int // conflicting pairs found (before deduplication)
	Insts      int
	PEClockGHz float64
	CoreNames  []string
	Reordered  int
}

// MaxLncPairs bounds the access pairs get_lnc_sync_candidates compares
// (the comparison is pairwise per shared tensor).
const MaxLncPairs = 50_000_000

// LncAwareSchedule schedules the bodies fs[c] of cores c = 0..n-1 of one
// kernel jointly (see above).
func LncAwareSchedule(fs []*bir.Function, model *arch.Model, opt Options) (*LncReport, error) {
	if len(fs) == 0 || len(fs) > 255 {
		return nil, diag.Errorf(diag.Internal, "LncAwareSchedule: %d cores, want 1..255", len(fs))
	}
	rep := &LncReport{PEClockGHz: model.Clock(bir.EngPE)}
	ps := make([]*problem, len(fs))
	for c, f := range fs {
		if len(f.Top) != 1 {
			return nil, diag.Errorf(diag.LNCCores, "core %d, function %s: %d top-level blocks: the joint schedule needs one (the cores' straight-line programs side by side)", c, f.Name, len(f.Top))
		}
		m := f.Module()
		span := func(name string) int64 {
			if g := m.Func(name); g != nil && g.Sched != nil {
				return g.Sched.Makespan()
			}
			return 0
		}
		p, err := newProblem(f, model, span)
		if err != nil {
			return nil, fmt.Errorf("core %d: %w", c, err)
		}
		if err := p.graphFromIR(); err != nil {
			return nil, fmt.Errorf("core %d: %w", c, err)
		}
		ps[c] = p
		orders, err := ParseOrders(opt.Orders, len(p.insts))
		if err != nil {
			return nil, err
		}
		t, _ := p.schedule(opt.Window, orders)
		rep.AloneSpans = append(rep.AloneSpans, t.makespan)
		rep.CoreNames = append(rep.CoreNames, fmt.Sprintf("core %d (%s)", c, f.Name))
	}
	ep := make([]coreEpochs, len(ps))
	for c, p := range ps {
		ep[c] = epochsOf(p)
	}
	if err := checkBarriers(ps); err != nil {
		return nil, err
	}
	cross, n, err := lncSyncCandidates(fs, ps, ep)
	if err != nil {
		return nil, err
	}
	rep.Cross, rep.Candidates = cross, n
	j, at, err := joinProblems(ps, ep, cross)
	if err != nil {
		return nil, err
	}
	orders, err := ParseOrders(opt.Orders, len(j.dur))
	if err != nil {
		return nil, err
	}
	t, _ := j.schedule(opt.Window, orders)
	rep.Makespan = t.makespan
	rep.Insts = len(j.dur)
	// Split the joint timeline into each core's and commit it.
	for c, p := range ps {
		n := len(p.insts)
		sub := &timeline{start: make([]int64, n), end: make([]int64, n), rank: make([]int32, n), bind: make([]int32, n), res: make([]int32, n)}
		for k := range n {
			x := at[c][k]
			sub.start[k], sub.end[k], sub.rank[k] = t.start[x], t.end[x], t.rank[x]
			sub.res[k] = t.res[x]
			if sub.res[k] >= 0 {
				sub.res[k] -= int32(c) * j.stride
			}
			sub.makespan = max(sub.makespan, sub.end[k])
		}
		rep.CoreSpans = append(rep.CoreSpans, sub.makespan)
		rep.Reordered += p.commit(sub, p.linear(sub))
	}
	return rep, nil
}

// coreEpochs is one core's barrier structure: epoch[k] is the number of
// CoreBarriers before position k, barrier[id] the position of the
// barrier of that id.
type coreEpochs struct {
	epoch   []int32
	barrier map[int64]int32
}

// checkBarriers refuses cores whose entry functions' CoreBarriers differ
// (CheckCoreBarriers says why).
func checkBarriers(ps []*problem) error {
	fs := make([]*bir.Function, len(ps))
	for c, p := range ps {
		fs[c] = p.f
	}
	return checkFuncBarriers(fs)
}

// CheckCoreBarriers refuses the programs mods[c] of an LNC kernel's cores
// when their CoreBarriers differ: every core must meet the same barriers
// in the same order, function by function, or the cores wait for each
// other forever (insert_core_barrier places a core's barriers by its own
// accesses to the shared tensors, so cores that access them differently
// get different ones). The error (diag.LNCCores) names the first barrier
// one core has and another lacks, at its source line.
func CheckCoreBarriers(mods []*bir.Module) error {
	if len(mods) < 2 {
		return nil
	}
	for _, f0 := range mods[0].FuncsMainFirst() {
		fs := []*bir.Function{f0}
		for _, m := range mods[1:] {
			f := m.Func(f0.Name)
			if f == nil {
				f = bir.NewModule(m.Arch).Func(f0.Name) // none: no barriers
			}
			fs = append(fs, f)
		}
		if err := checkFuncBarriers(fs); err != nil {
			return err
		}
	}
	for c, m := range mods[1:] {
		for _, f := range m.FuncsMainFirst() {
			if mods[0].Func(f.Name) == nil {
				if err := checkFuncBarriers([]*bir.Function{nil, f}); err != nil {
					return fmt.Errorf("core %d: %w", c+1, err)
				}
			}
		}
	}
	return nil
}

// checkFuncBarriers compares the CoreBarrier ids of fs[c] (core c's
// function of one name; nil: the core has none) with core 0's.
func checkFuncBarriers(fs []*bir.Function) error {
	ids := make([][]int64, len(fs))
	at := make([][]bir.InstID, len(fs))
	for c, f := range fs {
		if f == nil {
			continue
		}
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op == bir.OpCoreBarrier {
				v, _ := f.Attrs(i).Get(stream.AttrBarrierID)
				id, _ := v.AsInt()
				ids[c], at[c] = append(ids[c], id), append(at[c], i)
			}
			return true
		})
	}
	for c := 1; c < len(fs); c++ {
		if slices.Equal(ids[c], ids[0]) {
			continue
		}
		k := 0
		for k < len(ids[c]) && k < len(ids[0]) && ids[c][k] == ids[0][k] {
			k++
		}
		// Name the first barrier one core has and the other lacks.
		d := c
		if k >= len(ids[c]) {
			d = 0
		}
		return diag.Wrap(diag.LNCCores, fs[d].Errorf(at[d][k], "core 0 meets the other cores at CoreBarriers %v, core %d at %v: the cores would wait for each other forever; want the same barriers on every core (insert_core_barrier puts one where a core reads or rewrites a shared HBM tensor written or read since the last: access the shared tensors alike on every core)", fmtIDs(ids[0]), c, fmtIDs(ids[c])))
	}
	return nil
}

func fmtIDs(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	return fmt.Sprint(ids)
}

func epochsOf(p *problem) coreEpochs {
	e := coreEpochs{epoch: make([]int32, len(p.insts))}
	var n int32
	for k, i := range p.insts {
		e.epoch[k] = n
		if p.f.Inst(i).Op == bir.OpCoreBarrier {
			if id, ok := p.f.Attrs(i).Get(stream.AttrBarrierID); ok {
				if v, ok := id.AsInt(); ok {
					if e.barrier == nil {
						e.barrier = map[int64]int32{}
					}
					e.barrier[v] = int32(k)
				}
			}
			n++
		}
	}
	return e
}

// lncSyncCandidates is get_lnc_sync_candidates: the cross-core edges of
// conflicting DRAM accesses, in epoch order (the lower core first within
// one), deduplicated.
func lncSyncCandidates(fs []*bir.Function, ps []*problem, ep []coreEpochs) ([]LncEdge, int, error) {
	type acc struct {
		depgraph.DRAMAccess
		core int
	}
	byName := map[string][]acc{}
	dims := map[string][2]int64{}
	for c, f := range fs {
		var err error
		derr := depgraph.DRAMAccesses(f, func(a depgraph.DRAMAccess) {
			lc := f.Loc(a.Loc)
			d := [2]int64{lc.Partitions, lc.Bytes}
			if prev, ok := dims[lc.Name]; ok && prev != d && err == nil {
				err = diag.Wrap(diag.LNCCores, &bir.PosError{Pos: f.LocPos(a.Loc), Err: fmt.Errorf("core %d, function %s, location %s: DRAM %dx%d bytes, another core's is %dx%d: want one shared tensor, the same on every core", c, f.Name, lc.Name, d[0], d[1], prev[0], prev[1])})
			}
			dims[lc.Name] = d
			byName[lc.Name] = append(byName[lc.Name], acc{a, c})
		})
		if derr != nil {
			return nil, 0, fmt.Errorf("core %d: %w", c, derr)
		}
		if err != nil {
			return nil, 0, err
		}
	}
	seen := map[LncEdge]bool{}
	var out []LncEdge
	pairs, found := 0, 0
	for name, list := range byName {
		for x := range list {
			for y := x + 1; y < len(list); y++ {
				a, b := list[x], list[y]
				if a.core == b.core {
					continue
				}
				if pairs++; pairs > MaxLncPairs {
					return nil, 0, diag.Errorf(diag.LNCCores, "get_lnc_sync_candidates: more than %d DRAM access pairs to compare (tensor %s): compile the cores one at a time (--core-id C) for now", MaxLncPairs, name)
				}
				if !a.Write && !b.Write || a.R1 < b.R0 || b.R1 < a.R0 || a.Hi <= b.Lo || b.Hi <= a.Lo {
					continue
				}
				found++
				ea, eb := ep[a.core].epoch[ps[a.core].pos[a.Inst]], ep[b.core].epoch[ps[b.core].pos[b.Inst]]
				if ea > eb || ea == eb && a.core > b.core {
					a, b = b, a
				}
				e := LncEdge{FromCore: a.core, ToCore: b.core, From: a.Inst, To: b.Inst}
				if !seen[e] {
					seen[e] = true
					out = append(out, e)
				}
			}
		}
	}
	return out, found, nil
}

// joinProblems builds the joint problem of several cores: positions epoch
// by epoch, within an epoch core by core (at[c][k] is core c's position k
// in the joint problem), resources offset by core, the cores' edges, the
// cross-core ones and the barriers' meeting (whatever follows core c's
// barrier of id k also follows every other core's barrier k). Every edge
// points forward; a barrier id whose epochs differ between cores (cores
// of different barrier structure) is an error.
func joinProblems(ps []*problem, ep []coreEpochs, cross []LncEdge) (*problem, [][]int32, error) {
	stride := ps[0].stride
	j := &problem{model: ps[0].model, portR: ps[0].portR, stride: stride, nRes: stride * int32(len(ps)),
		firstDMAEngine: ps[0].firstDMAEngine, nDMAEngines: ps[0].nDMAEngines}
	type slot struct{ epoch, core, k int32 }
	var order []slot
	for c, p := range ps {
		for k := range p.insts {
			order = append(order, slot{ep[c].epoch[k], int32(c), int32(k)})
		}
	}
	slices.SortFunc(order, func(a, b slot) int {
		return cmp.Or(cmp.Compare(a.epoch, b.epoch), cmp.Compare(a.core, b.core), cmp.Compare(a.k, b.k))
	})
	at := make([][]int32, len(ps))
	for c, p := range ps {
		at[c] = make([]int32, len(p.insts))
	}
	for x, s := range order {
		at[s.core][s.k] = int32(x)
	}
	n := len(order)
	extra := make([][]int32, n) // cross-core predecessors by joint position
	for _, e := range cross {
		to := at[e.ToCore][ps[e.ToCore].pos[e.To]]
		extra[to] = append(extra[to], at[e.FromCore][ps[e.FromCore].pos[e.From]])
	}
	for c, p := range ps {
		for k := range p.insts {
			for _, q := range p.preds(int32(k)) {
				if p.f.Inst(p.insts[q]).Op != bir.OpCoreBarrier {
					continue
				}
				id, _ := p.f.Attrs(p.insts[q]).Get(stream.AttrBarrierID)
				v, _ := id.AsInt()
				for d := range ps {
					b, ok := ep[d].barrier[v]
					if d == c || !ok {
						continue
					}
					from, to := at[d][b], at[c][k]
					if from >= to {
						// checkBarriers refuses cores whose barriers differ.
						return nil, nil, diag.Errorf(diag.Internal, "core barrier %d: core %d reaches it after %d barriers, core %d after %d", v, c, ep[c].epoch[q], d, ep[d].epoch[b])
					}
					extra[to] = append(extra[to], from)
				}
			}
		}
	}
	j.dur = make([]int64, 0, n)
	j.pre = make([]int32, 0, n)
	j.dmaM = make([]uint16, 0, n)
	// The cores' DMA engine sets, one table (core c's index x is
	// maskBase[c] + x).
	maskBase := make([]uint16, len(ps))
	for c, p := range ps {
		maskBase[c] = uint16(len(j.masks))
		j.masks = append(j.masks, p.masks...)
	}
	j.res = make([]int32, 0, n)
	j.ports = make([]uint8, 0, n)
	j.block = make([]int32, n) // one block: the cores' blocks run side by side
	j.core = make([]uint8, 0, n)
	j.predStart = make([]int32, 1, n+1)
	for x, s := range order {
		c, k := int(s.core), s.k
		p := ps[c]
		j.dur = append(j.dur, p.dur[k])
		j.pre = append(j.pre, int32(p.preOf(k)))
		var mi uint16
		if p.dmaM != nil && p.dmaM[k] != 0 {
			mi = maskBase[c] + p.dmaM[k]
		}
		j.dmaM = append(j.dmaM, mi)
		r := p.res[k]
		if r >= 0 {
			r += int32(c) * stride
		}
		j.res = append(j.res, r)
		j.ports = append(j.ports, p.ports[k])
		j.core = append(j.core, uint8(c))
		for _, q := range p.preds(k) {
			j.pred = append(j.pred, at[c][q])
		}
		j.pred = append(j.pred, extra[x]...)
		j.predStart = append(j.predStart, int32(len(j.pred)))
	}
	j.insts = make([]bir.InstID, n) // unused: the cores commit their own
	j.successors()
	return j, at, nil
}

// String prints the joint schedule's report.
func (r *LncReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  cores %d, instructions %d\n", len(r.CoreSpans), r.Insts)
	fmt.Fprintf(&b, "  makespan %s (%.0f Tensor-engine cycles at %.2f GHz)\n", us(r.Makespan), float64(r.Makespan)*r.PEClockGHz/1000, r.PEClockGHz)
	fmt.Fprintf(&b, "  get_lnc_sync_candidates: %d conflicting DRAM access pairs, %d cross-core edges\n", r.Candidates, len(r.Cross))
	for c := range r.CoreSpans {
		fmt.Fprintf(&b, "  %s: ends at %s (alone: %s)\n", r.CoreNames[c], us(r.CoreSpans[c]), us(r.AloneSpans[c]))
	}
	return b.String()
}
