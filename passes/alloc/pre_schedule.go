// The pre-schedule (pass "pre_schedule"): an instruction order for
// straight-line code whose memory pressure fits, before addresses exist
// (design.md: "infer_psum_tensor -> pre-schedule (order only,
// pressure-aware) -> allocation"). The seeds have no such pass (their
// allocator works on loop nests, §4.1; seed 000 names the post-unroll
// "SBUF coloring allocator" without an order); the choices are narwhal's.
//
// What it does, per function that is straight-line (no loop, no branch)
// and has one top-level block (FullUnroll level 2's output):
//
//  1. The program order's pressure: for SBUF and PSUM, the largest live
//     area at an instant (bytes per partition x the quadrants a location
//     spans, PSUM locations a Matmult writes rounded up to whole banks,
//     as the allocator places them), against target x the budget x 4
//     quadrants (option target, default 0.98: room for the packing).
//  2. Where both fit, the order stays: the front end's order is kept
//     unless it cannot be allocated (a schedule that reorders less keeps
//     more of the programmer's intent, and tighter reuse than needed only
//     adds write-after-read hazards for the scheduler).
//  3. Otherwise a list schedule: ready instructions by original position;
//     the next one runs when its new locations fit; when they do not, a
//     ready instruction that is the last access of some location (it
//     frees memory) and fits, or frees more than it allocates, runs
//     first; when none does, the original order decides (the allocator
//     then spills). The result is a valid order of the same instructions.
//
// Dependencies are the dependency analysis's logical mode (package
// depgraph, shared with the dependency pass anti_dependency_analyzer and
// the scheduler's reuse-cost report; locationDeps converts its graph): two
// instructions are ordered when their byte footprints in the same
// location conflict (one writes), every location its own address space
// (addresses do not exist yet), so two writes to disjoint halves of one
// tile are not ordered; registers, the Scalar engine's accumulators and a
// matmul group's bank state count as data; explicit dependencies are
// kept; instructions whose effects narwhal does not model (control, sync,
// calls, collectives, descriptors, unmodelled opcodes) are barriers. One
// analysis is the single source of truth for what may be reordered.
//
// Post-condition: the block's instruction order is the pre-schedule order;
// the allocator's live intervals, the verifier's overlap rule and the
// scheduler all refer to it. Outputs are unchanged (every dependency of
// the program order is kept). Cost: O((instructions + dependencies) x log
// instructions) when it reorders, one walk when it keeps the order.
package alloc

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
)

// PreOptions configure PreSchedule.
type PreOptions struct {
	// Target is the fraction of each budget the order may fill (default
	// 0.98).
	Target float64
	// Force list-schedules every straight-line function, even when the
	// program order fits (for tests and measurements).
	Force      bool
	OnFunction func(string)
}

// PreStats count what the pre-schedule did.
type PreStats struct {
	Functions  int   // straight-line functions examined
	Kept       int   // functions whose program order fits
	Reordered  int   // functions list-scheduled
	Moved      int   // instructions at a new position
	PeakBefore int64 // largest SBUF live area / 4 of the program orders
	PeakAfter  int64 // the same after the pre-schedule
}

// PreSchedule reorders the straight-line functions of m whose program
// order does not fit.
func PreSchedule(m *bir.Module, a *arch.Model, opt PreOptions) (PreStats, error) {
	var st PreStats
	g, err := geometries(a)
	if err != nil {
		return st, err
	}
	if opt.Target <= 0 {
		opt.Target = 0.98
	}
	for _, f := range m.FuncsMainFirst() {
		if opt.OnFunction != nil {
			opt.OnFunction(f.Name)
		}
		if len(f.Top) != 1 || hasLoops(f) {
			continue
		}
		preScheduleFunc(f, g, opt, &st)
	}
	if opt.OnFunction != nil {
		opt.OnFunction("")
	}
	return st, nil
}

// pressure holds the per-location costs of the pre-schedule.
type pressure struct {
	mem  []int8  // per location: memSB, memPSUM, or -1 (not on-chip)
	area []int64 // per location: bytes x quadrants (PSUM matmul destinations: whole banks)
}

func newPressure(f *bir.Function, g [numMems]geometry) *pressure {
	nl := f.NumLocs()
	p := &pressure{mem: make([]int8, nl), area: make([]int64, nl)}
	mm := make([]bool, nl)
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsMatmul() {
			for _, o := range f.Outs(i) {
				if o.Kind == bir.OpdPhysAP {
					mm[o.Loc()] = true
				}
			}
		}
		return true
	})
	for l := 0; l < nl; l++ {
		lc := f.Loc(bir.LocID(l))
		if lc.Dead || !lc.Type.IsOnChip() || lc.Allocated || lc.Pinned {
			p.mem[l] = -1
			continue
		}
		mem := memOf(lc.Type)
		size := lc.Bytes
		if bank := g[mem].bank; bank > 0 && (mm[l] || size > bank) {
			size = (size + bank - 1) / bank * bank
		}
		p.mem[l] = int8(mem)
		p.area[l] = size * int64((lc.Partitions+31)/32)
	}
	return p
}

func preScheduleFunc(f *bir.Function, g [numMems]geometry, opt PreOptions, st *PreStats) {
	blk := f.Top[0]
	insts := f.Block(blk).Insts
	for _, i := range insts {
		if op := f.Inst(i).Op; op == bir.OpCompareAndBranch || op == bir.OpUnconditionalBranch {
			return
		}
	}
	st.Functions++
	pr := newPressure(f, g)
	var limit [numMems]int64
	for k := range limit {
		limit[k] = int64(opt.Target * float64(4*g[k].capacity))
	}
	before := orderPressure(f, insts, pr)
	st.PeakBefore = max(st.PeakBefore, before[memSB]/4)
	if !opt.Force && before[memSB] <= limit[memSB] && before[memPSUM] <= limit[memPSUM] {
		st.Kept++
		st.PeakAfter = max(st.PeakAfter, before[memSB]/4)
		return
	}
	order := listSchedule(f, insts, pr, limit, g[memPSUM].bank)
	moved := 0
	for k := range order {
		if order[k] != insts[k] {
			moved++
		}
	}
	after := orderPressure(f, order, pr)
	st.PeakAfter = max(st.PeakAfter, after[memSB]/4)
	if moved == 0 {
		st.Kept++
		return
	}
	st.Reordered++
	st.Moved += moved
	f.ReplaceBlockInsts(blk, order)
}

// orderPressure returns, per memory, the largest live area of an order
// (a location is live from its first to its last access, inclusive).
func orderPressure(f *bir.Function, order []bir.InstID, pr *pressure) [numMems]int64 {
	nl := f.NumLocs()
	last := make([]int32, nl)
	for k := range last {
		last[k] = -1
	}
	for pos, i := range order {
		for _, o := range f.Operands(i) {
			if o.Kind == bir.OpdPhysAP && pr.mem[o.Loc()] >= 0 {
				last[o.Loc()] = int32(pos)
			}
		}
	}
	started := make([]bool, nl)
	var live, peak [numMems]int64
	for pos, i := range order {
		for _, o := range f.Operands(i) {
			if l := o.Loc(); o.Kind == bir.OpdPhysAP && pr.mem[l] >= 0 && !started[l] {
				started[l] = true
				live[pr.mem[l]] += pr.area[l]
			}
		}
		for k := range live {
			peak[k] = max(peak[k], live[k])
		}
		for _, o := range f.Operands(i) {
			if l := o.Loc(); o.Kind == bir.OpdPhysAP && pr.mem[l] >= 0 && last[l] == int32(pos) {
				last[l] = -2 // freed once
				live[pr.mem[l]] -= pr.area[l]
			}
		}
	}
	return peak
}

// depGraph is a dependency graph in compressed form: the successors of
// node k are succ[start[k]:start[k+1]].
type depGraph struct {
	start []int32
	succ  []int32
	indeg []int32
}

// locationDeps returns the dependencies of a straight-line function's
// single block (insts: its instructions in program order; nodes are
// positions in insts): depgraph's logical mode with the explicit
// dependencies kept (see the file comment), as successor lists. Should
// the analysis refuse the function (it cannot: the caller passes
// straight-line code whose dependencies point backwards, which the
// verifier guarantees), every instruction is chained to the next, which
// keeps the program order.
func locationDeps(f *bir.Function, insts []bir.InstID, bankBytes int64) depGraph {
	n := len(insts)
	g := depGraph{start: make([]int32, n+1), indeg: make([]int32, n)}
	dg, err := depgraph.Analyze(f, depgraph.Options{Mode: depgraph.Logical, KeepExisting: true, PSUMBankBytes: bankBytes})
	if err != nil || len(dg.Insts) != n || !slices.Equal(dg.Insts, insts) {
		g.succ = make([]int32, max(n-1, 0))
		for k := 0; k+1 < n; k++ {
			g.start[k+1] = int32(k + 1)
			g.succ[k] = int32(k + 1)
			g.indeg[k+1] = 1
		}
		if n > 0 {
			g.start[n] = g.start[n-1]
		}
		return g
	}
	for k := range n {
		preds, _ := dg.Preds(k)
		g.indeg[k] = int32(len(preds))
		for _, q := range preds {
			g.start[q+1]++
		}
	}
	for k := 1; k <= n; k++ {
		g.start[k] += g.start[k-1]
	}
	g.succ = make([]int32, dg.NumEdges())
	fill := append([]int32(nil), g.start[:n]...)
	for k := range n {
		preds, _ := dg.Preds(k)
		for _, q := range preds {
			g.succ[fill[q]] = int32(k)
			fill[q]++
		}
	}
	return g
}

// listSchedule orders insts by the rules of the file comment.
func listSchedule(f *bir.Function, insts []bir.InstID, pr *pressure, limit [numMems]int64, bankBytes int64) []bir.InstID {
	n := len(insts)
	g := locationDeps(f, insts, bankBytes)
	nl := f.NumLocs()
	// Per location: touches not yet scheduled, and the sum of their
	// nodes (when one is left, the sum names it).
	remain := make([]int32, nl)
	sum := make([]int64, nl)
	started := make([]bool, nl)
	seen := make([]int32, nl) // dedup of a location within one instruction
	for k := range seen {
		seen[k] = -1
	}
	locsOf := func(node int32, fn func(l bir.LocID)) {
		for _, o := range f.Operands(insts[node]) {
			if l := o.Loc(); o.Kind == bir.OpdPhysAP && pr.mem[l] >= 0 && seen[l] != node {
				seen[l] = node
				fn(l)
			}
		}
		for _, o := range f.Operands(insts[node]) {
			if o.Kind == bir.OpdPhysAP {
				seen[o.Loc()] = -1
			}
		}
	}
	for k := 0; k < n; k++ {
		locsOf(int32(k), func(l bir.LocID) {
			remain[l]++
			sum[l] += int64(k)
		})
	}
	var live [numMems]int64
	cost := func(node int32) (grow, free [numMems]int64) {
		locsOf(node, func(l bir.LocID) {
			if !started[l] {
				grow[pr.mem[l]] += pr.area[l]
			}
			if remain[l] == 1 {
				free[pr.mem[l]] += pr.area[l]
			}
		})
		return
	}
	fits := func(grow [numMems]int64) bool {
		for k := range live {
			if grow[k] > 0 && live[k]+grow[k] > limit[k] {
				return false
			}
		}
		return true
	}
	done := make([]bool, n)
	ready := &nodeHeap{}
	freers := &nodeHeap{}
	isFreer := func(node int32) bool {
		fr := false
		locsOf(node, func(l bir.LocID) { fr = fr || remain[l] == 1 })
		return fr
	}
	for k := 0; k < n; k++ {
		if g.indeg[k] == 0 {
			ready.push(int32(k))
			if isFreer(int32(k)) {
				freers.push(int32(k))
			}
		}
	}
	order := make([]bir.InstID, 0, n)
	run := func(node int32) {
		done[node] = true
		order = append(order, insts[node])
		grow, free := cost(node)
		for k := range live {
			live[k] += grow[k] - free[k]
		}
		locsOf(node, func(l bir.LocID) {
			started[l] = true
			remain[l]--
			sum[l] -= int64(node)
			if remain[l] == 1 {
				if other := int32(sum[l]); g.indeg[other] == 0 && !done[other] {
					freers.push(other)
				}
			}
		})
		for _, s := range g.succ[g.start[node]:g.start[node+1]] {
			if g.indeg[s]--; g.indeg[s] == 0 {
				ready.push(s)
				if isFreer(s) {
					freers.push(s)
				}
			}
		}
	}
	for len(order) < n {
		for ready.len() > 0 && done[ready.top()] {
			ready.pop()
		}
		top := ready.top()
		grow, _ := cost(top)
		if fits(grow) {
			ready.pop()
			run(top)
			continue
		}
		// A ready instruction that frees memory, lowest position first.
		chosen := int32(-1)
		var skipped []int32
		for tries := 0; freers.len() > 0 && tries < 64; tries++ {
			c := freers.pop()
			if done[c] || g.indeg[c] != 0 {
				continue
			}
			cg, cf := cost(c)
			net := int64(0)
			for k := range cg {
				net += cg[k] - cf[k]
			}
			if fits(cg) || net < 0 {
				chosen = c
				break
			}
			skipped = append(skipped, c)
		}
		for _, c := range skipped {
			freers.push(c)
		}
		if chosen < 0 {
			chosen = top
		}
		run(chosen) // stays in the heaps; popped lazily as done
	}
	return order
}

// nodeHeap is a min-heap of node numbers.
type nodeHeap struct{ a []int32 }

func (h *nodeHeap) len() int   { return len(h.a) }
func (h *nodeHeap) top() int32 { return h.a[0] }
func (h *nodeHeap) push(x int32) {
	h.a = append(h.a, x)
	for k := len(h.a) - 1; k > 0; {
		p := (k - 1) / 2
		if h.a[p] <= h.a[k] {
			break
		}
		h.a[p], h.a[k] = h.a[k], h.a[p]
		k = p
	}
}

func (h *nodeHeap) pop() int32 {
	x := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	for k := 0; ; {
		l, r, m := 2*k+1, 2*k+2, k
		if l < last && h.a[l] < h.a[m] {
			m = l
		}
		if r < last && h.a[r] < h.a[m] {
			m = r
		}
		if m == k {
			return x
		}
		h.a[k], h.a[m] = h.a[m], h.a[k]
		k = m
	}
}
