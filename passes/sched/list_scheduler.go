package sched

// The DDG list scheduler (seed 002 §6.1: the Python Scheduler of
// targets/tonga/passes/Scheduler.so, "a classic ready-list scheduler over a
// data-dependence graph"). It orders a function's instructions without
// simulating time: repeatedly, among the instructions whose predecessors
// are all ordered (the ready list), it takes the one of highest priority.
// The order feeds the TimeAwareScheduler (time_aware_scheduler.go), which
// linearizes by simulation and may reorder within its window.
//
// Priority. The seed observes the terms (critical path, num_ready_succs,
// def_bytes, kill_bytes) and calls their combination "INFERRED-HIGH ... a
// standard list-scheduler priority". narwhal's combination, compared in
// this order:
//
//  1. the critical-path length from the instruction to the end of the
//     function (its own duration included: the bottom level, in ps);
//  2. num_ready_succs: how many successors become ready when it is
//     ordered (its successors whose last unordered predecessor it is),
//     counted when it enters the ready list;
//  3. program order (the memory planner's pre-schedule order).
//
// Departure from the seed: no kill_bytes - def_bytes term. The seed's
// reason for it is register pressure ("a GPSIMD op that frees a large
// SBUF intermediate is scheduled to relieve pressure"), but this
// scheduler runs after the memory planner: every address is fixed, and
// the order can relieve no pressure (the planner's own pre-schedule,
// passes/alloc/pre_schedule.go, is where order meets memory). Narwhal had
// the term, with a location's whole bytes charged to its first access,
// and on a tiled kernel that made every tile's first load piece lose its
// ties to the other pieces: under the cost model of main at 8574241 (each
// DMA on one queue), the DDG list order alone was 1.20x the optimum on the
// default tensor_add (53.726 us against 44.859 us) and 1.32x on
// transpose2d (25.915 us against 19.616 us). Without it, under today's
// cost model, the DDG list order alone reaches the lower bound on 7 of
// the 20 built-in kernels on trn2 and is within 1.13x of the kept
// schedule on all (docs/schedule.md's table, scripts/schedule-table.sh).
//
// The ASAP list order (time_aware_scheduler's third order) uses the same
// scheduler with another priority: the earliest possible start first
// (the top level: the longest chain before the instruction), then
// num_ready_succs, then program order (no pressure term). At each depth
// of the graph it takes the instructions in program order, so tiles keep
// the program's interleaving while every tile's loads go before the next
// level's work: on matmul 512x512x1024 at unlimited memory it reaches the
// lower bound (107.939 us), where the DDG list and incoming orders stop
// at 110.558 and 121.316 us.
//
// Blocks are ordered one after the other (an instruction never moves to
// another block); within a block the order is a topological order of the
// dependencies.

// priority holds the static priority terms of each position.
type priority struct {
	order string  // the order the schedule came from ("DDG list", "incoming" or "ASAP list")
	lead  []int64 // nil, or the first term in place of bl (the ASAP order: minus the top level)
	bl    []int64 // bottom level (ps)
	nrs   []int32 // num_ready_succs when the instruction became ready
}

// bottomLevels returns the critical-path length from each position to the
// end, its own duration included.
func (p *problem) bottomLevels() []int64 {
	n := len(p.insts)
	bl := make([]int64, n)
	for k := n - 1; k >= 0; k-- {
		var m int64
		for _, s := range p.succs(int32(k)) {
			m = max(m, bl[s])
		}
		bl[k] = p.dur[k] + m
	}
	return bl
}

// topLevels returns the length of the longest chain ending just before
// each position (its earliest start with unlimited resources).
func (p *problem) topLevels() []int64 {
	n := len(p.insts)
	tl := make([]int64, n)
	for k := range n {
		var m int64
		for _, q := range p.preds(int32(k)) {
			m = max(m, tl[q]+p.dur[q])
		}
		tl[k] = m
	}
	return tl
}

// listSchedule returns the DDG list scheduler's order of the positions.
func (p *problem) listSchedule(pr *priority) []int32 {
	n := len(p.insts)
	npred := make([]int32, n)
	for k := range n {
		npred[k] = p.predStart[k+1] - p.predStart[k]
	}
	pr.nrs = make([]int32, n)
	h := &readyHeap{pr: pr}
	order := make([]int32, 0, n)
	countNRS := func(k int32) int32 {
		var c int32
		for _, s := range p.succs(k) {
			if npred[s] == 1 {
				c++
			}
		}
		return c
	}
	start := 0
	for start < n {
		// One block: positions [start, end).
		end := start
		for end < n && p.block[end] == p.block[start] {
			end++
		}
		for k := start; k < end; k++ {
			if npred[k] == 0 {
				pr.nrs[k] = countNRS(int32(k))
				h.push(int32(k))
			}
		}
		for h.len() > 0 {
			k := h.pop()
			order = append(order, k)
			for _, s := range p.succs(k) {
				npred[s]--
				if npred[s] == 0 && int(s) < end {
					pr.nrs[s] = countNRS(s)
					h.push(s)
				}
			}
		}
		start = end
	}
	return order
}

// readyHeap is a binary max-heap of positions by priority.
type readyHeap struct {
	pr *priority
	a  []int32
}

func (h *readyHeap) len() int { return len(h.a) }

// before reports whether x has priority over y.
func (h *readyHeap) before(x, y int32) bool {
	pr := h.pr
	first := pr.bl
	if pr.lead != nil {
		first = pr.lead
	}
	if first[x] != first[y] {
		return first[x] > first[y]
	}
	if pr.nrs[x] != pr.nrs[y] {
		return pr.nrs[x] > pr.nrs[y]
	}
	return x < y
}

func (h *readyHeap) push(x int32) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		j := (i - 1) / 2
		if !h.before(h.a[i], h.a[j]) {
			break
		}
		h.a[i], h.a[j] = h.a[j], h.a[i]
		i = j
	}
}

func (h *readyHeap) pop() int32 {
	top := h.a[0]
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a = h.a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && h.before(h.a[r], h.a[l]) {
			c = r
		}
		if !h.before(h.a[c], h.a[i]) {
			break
		}
		h.a[i], h.a[c] = h.a[c], h.a[i]
		i = c
	}
	return top
}
