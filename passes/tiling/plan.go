package tiling

// Planning: atomic units, groups (rate matching), the PSUM-pressure split,
// tensor layouts (internal, boundary, fused) and each group's tile
// [pt partitions x ft elements].

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// unionFind is a plain union-find over dense indices.
type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n)
	for k := range u {
		u[k] = k
	}
	return u
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int) {
	ra, rb := u.find(a), u.find(b)
	if ra == rb {
		return
	}
	if ra > rb {
		ra, rb = rb, ra
	}
	u[rb] = ra // the root is the earliest instruction
}

// group is a set of macro instructions emitted as one loop nest over one
// tile grid.
type group struct {
	ops        []int // mop indices in program order (fused loads excluded)
	rows, cols int64 // the iteration space [R, C]
	pt, ft     int64 // the tile: partitions, free elements
	wholeRow   bool  // one free tile: a reduction needs the whole row, or the widths differ
	psumBanks  int64 // PSUM banks one iteration holds
	matmul     bool
	simd       bool   // the SIMD-macro path (GpSimd elementwise DAG)
	reviewed   bool   // its [R, C] was re-viewed as [128, R*C/128]
	split      bool   // made by the PSUM-pressure split
	limit      int64  // the free-tile bound (before the whole-row rule)
	bound      string // what sets limit
	first      int    // program position of its first instruction
}

// units unions the instructions that must be tiled together whatever the
// options: every accessor of a PSUM tensor (a PSUM tile is consumed
// within the iteration that produced it; it is never materialized whole)
// and a Load fused into the K loop of the matmul that alone reads what it
// loads (the hand-written kernels' pattern: each K step loads its tiles).
func (a *analysis) units() unionFind {
	u := newUnionFind(len(a.mops))
	for k := range a.tens {
		t := &a.tens[k]
		if !a.isPSUM(k) {
			continue
		}
		all := append(append([]int(nil), t.writers...), t.readers...)
		for _, x := range all[1:] {
			u.union(all[0], x)
		}
	}
	for xi := range a.mops {
		x := &a.mops[xi]
		if x.cls != clsMatmul {
			continue
		}
		for _, o := range x.ops[:2] {
			t := &a.tens[o.t]
			if len(t.writers) != 1 || len(t.readers) != 1 || t.readers[0] != xi || x.ops[0].t == x.ops[1].t {
				continue
			}
			w := t.writers[0]
			if a.mops[w].cls != clsLoad || a.mops[w].pos > x.pos {
				continue
			}
			t.fused = true
			a.mops[w].fusedInto = xi
			u.union(w, xi)
		}
	}
	for xi := range a.mops {
		a.mops[xi].unit = u.find(xi)
	}
	return u
}

// hasPSUM reports whether instruction xi touches a PSUM tensor.
func (a *analysis) hasPSUM(xi int) bool {
	for _, o := range a.mops[xi].ops {
		if o.t >= 0 && a.isPSUM(o.t) {
			return true
		}
	}
	return false
}

// rowLinked reports whether writer w and reader r of tensor t may share
// one tile grid through it: both access t whole or as a column (not as a
// matmul operand, not through a broadcast) and iterate the same rows.
func (a *analysis) rowLinked(t, w, r int) bool {
	if a.mops[w].rows != a.mops[r].rows {
		return false
	}
	for _, xi := range []int{w, r} {
		for _, o := range a.mops[xi].ops {
			if o.t == t && o.role != roleFull && o.role != roleCol {
				return false
			}
		}
	}
	return true
}

// link unions, into u, the writers and readers of every tensor that may
// share a grid, among the instructions keep accepts (nil: all).
func (a *analysis) link(u unionFind, keep func(xi int) bool) {
	for k := range a.tens {
		t := &a.tens[k]
		if t.fused || t.bcastSrc {
			continue
		}
		for _, w := range t.writers {
			for _, r := range t.readers {
				if keep != nil && (!keep(w) || !keep(r)) {
					continue
				}
				if a.mops[w].fusedInto >= 0 || a.mops[r].fusedInto >= 0 || !a.rowLinked(k, w, r) {
					continue
				}
				u.union(w, r)
			}
		}
		// Several writers of one tensor (an in-place chain) share it too.
		for j := 1; j < len(t.writers); j++ {
			w0, w := t.writers[0], t.writers[j]
			if (keep == nil || keep(w0) && keep(w)) && a.mops[w0].rows == a.mops[w].rows && a.rowLinked(k, w0, w) {
				u.union(w0, w)
			}
		}
	}
}

// groupsOf collects the groups of u, in program order of their first
// instruction.
func (a *analysis) groupsOf(u unionFind, members []int) []*group {
	byRoot := map[int]*group{}
	var out []*group
	for _, xi := range members {
		if a.mops[xi].fusedInto >= 0 {
			continue
		}
		r := u.find(xi)
		g := byRoot[r]
		if g == nil {
			g = &group{first: a.mops[xi].pos}
			byRoot[r] = g
			out = append(out, g)
		}
		g.ops = append(g.ops, xi)
	}
	slices.SortFunc(out, func(x, y *group) int { return x.first - y.first })
	return out
}

// plan forms the groups and chooses every tile.
func (a *analysis) plan() ([]*group, error) {
	if err := a.accessors(); err != nil {
		return nil, err
	}
	for xi := range a.mops {
		for _, o := range a.mops[xi].ops {
			if t := &a.tens[max(o.t, 0)]; o.role == roleBcast && !t.bcastSrc {
				at := a.mops[xi].id
				if len(t.writers) > 0 {
					at = a.mops[t.writers[0]].id
				}
				return nil, a.errAt(at, "tensor %s is read through a partition broadcast and accessed whole by a macro operation: want a broadcast row that macro operations only read through broadcasts", t.tname)
			}
		}
	}
	for k := range a.tens {
		t := &a.tens[k]
		if !t.bcastSrc && len(t.writers) > 0 && len(t.readers) > 0 && a.mops[t.readers[0]].pos < a.mops[t.writers[0]].pos {
			return nil, a.errAt(a.mops[t.readers[0]].id, "reads tensor %s before any macro operation writes it: want every on-chip macro tensor written before it is read", t.tname)
		}
	}
	base := a.units()
	all := make([]int, len(a.mops))
	for k := range all {
		all[k] = k
	}
	u := slices.Clone(base)
	if a.opt.RateMatching {
		a.link(u, nil)
	}
	var groups []*group
	for _, g := range a.groupsOf(u, all) {
		if err := a.shape(g); err != nil {
			return nil, err
		}
		if reason := a.mustSplit(g); reason != "" {
			// Stop propagating one layout across the PSUM boundary
			// (seed 002 §2.1 (3)): each PSUM unit keeps its bank tile,
			// the SBUF instructions are regrouped among themselves.
			psumUnit := map[int]bool{}
			for _, xi := range g.ops {
				if a.hasPSUM(xi) {
					psumUnit[a.mops[xi].unit] = true
				}
			}
			su := slices.Clone(base)
			if a.opt.RateMatching {
				a.link(su, func(xi int) bool { return !psumUnit[a.mops[xi].unit] })
			}
			members := append([]int(nil), g.ops...)
			for xi := range a.mops {
				if f := a.mops[xi].fusedInto; f >= 0 && slices.Contains(g.ops, f) {
					members = append(members, xi)
				}
			}
			parts := a.groupsOf(su, members)
			a.splits++
			if a.opt.Logf != nil {
				a.opt.Logf("function %s: group of %s split into %d (%s)", a.f.Name, a.opNames(g), len(parts), reason)
			}
			for _, p := range parts {
				p.split = true
				if err := a.shape(p); err != nil {
					return nil, err
				}
				if r := a.mustSplit(p); r != "" && !strings.HasPrefix(r, "PSUM usage") {
					return nil, a.errAt(a.mops[p.ops[0]].id, "cannot tile: %s", r)
				}
			}
			groups = append(groups, parts...)
			continue
		}
		groups = append(groups, g)
	}
	slices.SortFunc(groups, func(x, y *group) int { return x.first - y.first })
	for gi, g := range groups {
		for _, xi := range g.ops {
			a.mops[xi].group = gi
		}
	}
	for xi := range a.mops {
		if f := a.mops[xi].fusedInto; f >= 0 {
			a.mops[xi].group = a.mops[f].group
		}
	}
	if err := a.layouts(groups); err != nil {
		return nil, err
	}
	for _, g := range groups {
		a.simd(g)
	}
	return groups, nil
}

// opNames lists a group's instruction names for logs.
func (a *analysis) opNames(g *group) string {
	names := make([]string, len(g.ops))
	for k, xi := range g.ops {
		names[k] = a.f.InstName(a.mops[xi].id)
	}
	return strings.Join(names, ", ")
}

// partTile is the partition tile of an axis of n rows: n itself when it
// fits, else partition_max_elts rounded down to the quadrant (seed 002
// §2.3: "partition counts are bounded by 128 / 32-quadrant alignment").
func (a *analysis) partTile(n, limit int64) int64 {
	p := min(a.opt.PartitionMaxElts, limit)
	if q := a.model.QuadrantPartitions; q > 0 && p >= q {
		p -= p % q
	}
	return max(min(n, p), 1)
}

// shape computes a group's iteration space and tile.
func (a *analysis) shape(g *group) error {
	model := a.model
	g.rows, g.cols, g.wholeRow, g.matmul, g.bound = 0, 0, false, false, ""
	widths := map[int64]bool{}
	rowLimit := model.Tile.PMax
	freeLimit := int64(-1)
	psumDt := map[int]bool{}
	sbPerElem := int64(0)
	seenSB := map[int]bool{}
	note := func(lim int64, why string) {
		if freeLimit < 0 || lim < freeLimit {
			freeLimit, g.bound = lim, why
		}
	}
	for _, xi := range g.ops {
		x := &a.mops[xi]
		if g.rows == 0 {
			g.rows = x.rows
		} else if g.rows != x.rows {
			return diag.Errorf(diag.Internal, "group of %s mixes %d and %d rows", a.opNames(g), g.rows, x.rows)
		}
		if x.cls == clsReduce {
			g.wholeRow = true
		}
		if x.cols > 1 {
			widths[x.cols] = true
			g.cols = max(g.cols, x.cols)
		}
		if x.cls == clsMatmul {
			g.matmul = true
			rowLimit = min(rowLimit, model.Tile.GemmStationaryFMax)
			note(model.Tile.GemmMovingFMax, "gemm_moving_fmax")
			if n := model.MatmulMaxN(a.tens[x.ops[2].t].dt); n > 0 {
				note(n, "the matmul N limit")
			}
		}
		for _, o := range x.ops {
			if o.t < 0 || (o.role != roleFull && o.role != roleCol && o.role != roleMov) {
				continue
			}
			t := &a.tens[o.t]
			if a.isPSUM(o.t) {
				if !psumDt[o.t] {
					psumDt[o.t] = true
					note(model.PSUMBankBytes/t.dt.Size(), "one PSUM bank")
				}
				continue
			}
			if (o.role == roleFull || o.role == roleMov) && !seenSB[o.t] {
				seenSB[o.t] = true
				sbPerElem += t.dt.Size()
			}
		}
	}
	if g.cols == 0 {
		g.cols = 1
	}
	if len(widths) > 1 {
		g.wholeRow = true
	}
	g.pt = a.partTile(g.rows, rowLimit)
	if sbPerElem > 0 {
		note(max(a.opt.MaxComputationTileSizeInBytes/sbPerElem, 1), "max_computation_tile_size_in_bytes")
	}
	note(model.Tile.SBUFMaxFreeElems, "the SBUF free size")
	note(model.MaxAPNum, "the access-pattern num limit")
	g.limit = freeLimit
	switch {
	case freeLimit >= g.cols:
		g.ft = g.cols
	case g.wholeRow:
		g.ft = g.cols // mustSplit reports it
	default:
		n := (g.cols + freeLimit - 1) / freeLimit
		g.ft = (g.cols + n - 1) / n
	}
	g.psumBanks = 0
	for t := range psumDt {
		if b := model.PSUMBankBytes; b > 0 {
			g.psumBanks += (min(g.ft, a.tens[t].cols)*a.tens[t].dt.Size() + b - 1) / b
		}
	}
	return nil
}

// mustSplit says why a group cannot keep one tile grid ("" when it can):
// its PSUM tiles would hold more than low_psum_usage_threshold of the
// banks (double-buffered), or a reduction needs whole rows wider than
// what bounds the free tile.
func (a *analysis) mustSplit(g *group) string {
	if g.wholeRow && g.limit < g.cols {
		return fmt.Sprintf("a reduction (or operands of different widths) needs whole rows of %d elements, but %s bounds the free tile to %d", g.cols, g.bound, g.limit)
	}
	if banks := a.model.PSUMBanks; banks > 0 && g.psumBanks > 0 {
		usage := float64(2*g.psumBanks) / float64(banks)
		if usage > a.opt.LowPSUMUsageThreshold && len(g.ops) > 1 && !a.onePSUMUnit(g) {
			return fmt.Sprintf("PSUM usage %.2f (%d banks per tile, double-buffered, of %d) above low_psum_usage_threshold %.2f", usage, g.psumBanks, banks, a.opt.LowPSUMUsageThreshold)
		}
	}
	return ""
}

// onePSUMUnit reports whether a group is a single atomic unit (nothing
// to split off).
func (a *analysis) onePSUMUnit(g *group) bool {
	u := a.mops[g.ops[0]].unit
	for _, xi := range g.ops {
		if a.mops[xi].unit != u {
			return false
		}
	}
	return true
}

// layouts decides each tensor's layout: fused (a K-step tile), internal
// (one tile per iteration of its group) or boundary (row blocks shared by
// several groups), and checks what a layout needs.
func (a *analysis) layouts(groups []*group) error {
	for k := range a.tens {
		t := &a.tens[k]
		if t.fused || t.bcastSrc {
			continue
		}
		gs := map[int]bool{}
		for _, xi := range append(append([]int(nil), t.writers...), t.readers...) {
			gs[a.mops[xi].group] = true
		}
		if len(gs) == 1 {
			for g := range gs {
				t.group = g
			}
			continue
		}
		t.boundary = true
		if a.isPSUM(k) {
			return a.internalAt(a.mops[t.writers[0]].id, "PSUM tensor %s shared by two groups", t.tname)
		}
		if b := t.cols * t.dt.Size(); b > a.opt.MaxComputationTileSizeInBytes {
			return a.errAt(a.mops[t.writers[0]].id, "tensor %s passes between tiling groups as row blocks of %d bytes per partition: want at most max_computation_tile_size_in_bytes = %d (it cannot be rate-matched: a reduction, a matmul operand or a PSUM split separates its producer from its consumer)", t.tname, b, a.opt.MaxComputationTileSizeInBytes)
		}
	}
	// A group reads no DRAM tensor it writes (its instructions interleave
	// by tile).
	for gi, g := range groups {
		written := map[bir.TensorID]bool{}
		for _, xi := range a.members(g) {
			for _, o := range a.mops[xi].ops {
				if o.role == roleDRAM && o.out {
					written[o.dram] = true
				}
			}
		}
		for _, xi := range a.members(g) {
			for _, o := range a.mops[xi].ops {
				if o.role == roleDRAM && !o.out && written[o.dram] {
					return a.errAt(a.mops[xi].id, "reads DRAM tensor %s that its tiling group %d also writes: want the read and the write in different groups", a.f.Tensor(o.dram).Name, gi)
				}
			}
		}
	}
	return nil
}

// members returns a group's instructions with the loads fused into its
// matmuls.
func (a *analysis) members(g *group) []int {
	out := slices.Clone(g.ops)
	for xi := range a.mops {
		if f := a.mops[xi].fusedInto; f >= 0 && slices.Contains(g.ops, f) {
			out = append(out, xi)
		}
	}
	return out
}

// simd takes the SIMD-macro path (seed 002 §2.2, §2.5) for a GpSimd
// elementwise DAG: extractAxesForSIMDMacro maps the partition axis onto
// the 128 partitions of the 8 GpSimd cores x 16 partitions. A group whose
// rows leave cores idle (fewer than 128 rows, or a remainder tile) and
// whose R*C elements fill whole columns of 128 partitions is re-viewed as
// [128, R*C/128]: legal because every operand is elementwise over the same
// elements, every on-chip tensor is the group's own (laid out anew) and
// every DRAM region is one contiguous run. packInstsToSIMDMacro's packing
// of the DAG into one macro is the group itself: one loop nest.
func (a *analysis) simd(g *group) {
	if !a.opt.SIMDMacro || g.matmul || g.wholeRow {
		return
	}
	pool := false
	for _, xi := range g.ops {
		x := &a.mops[xi]
		in := a.f.Inst(x.id)
		switch {
		case x.cls == clsElem && in.Engine == bir.EngPool:
			pool = true
		case x.cls == clsLoad || x.cls == clsSave:
		default:
			return
		}
		for _, o := range x.ops {
			switch o.role {
			case roleFull:
				if a.tens[o.t].boundary || a.isPSUM(o.t) {
					return
				}
			case roleDRAM:
				if o.stride != o.cols {
					return
				}
			case roleOther:
			default:
				return
			}
		}
	}
	if !pool {
		return
	}
	g.simd = true
	P := a.model.TilePartitions()
	if cores := a.model.GpSimdCores * a.model.GpSimdPartitionsPerCore; cores > 0 {
		P = min(P, cores)
	}
	total := g.rows * g.cols
	if (g.rows >= P && g.rows%g.pt == 0) || total%P != 0 || a.opt.PartitionMaxElts < P {
		return
	}
	R, C := P, total/P
	g.reviewed = true
	g.rows, g.cols = R, C
	for _, xi := range g.ops {
		x := &a.mops[xi]
		x.rows, x.cols = R, C
		for k := range x.ops {
			o := &x.ops[k]
			if o.role == roleFull || o.role == roleDRAM {
				o.rows, o.cols = R, C
				if o.role == roleDRAM {
					o.stride = C
				} else {
					a.tens[o.t].rows, a.tens[o.t].cols = R, C
				}
			}
		}
	}
	_ = a.shape(g)
}
