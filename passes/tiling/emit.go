package tiling

// Emission: each group becomes one loop nest over its tiles, in an order
// that respects every dependency between groups and the instructions the
// tiler leaves alone; the macro tensors become tile tensors (block tensors
// with one block per iteration, as the NKI front end gives a tile
// allocated in a loop) or row blocks shared between groups.

import (
	"container/heap"
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// span is a run of equal tiles along one axis: tiles base .. base+count-1
// of size elements each (the full tiles, then one remainder tile).
type span struct{ base, count, size int64 }

// spans cuts n elements into tiles of tile elements.
func spans(n, tile int64) []span {
	var out []span
	if full := n / tile; full > 0 {
		out = append(out, span{0, full, tile})
	}
	if rem := n % tile; rem > 0 {
		out = append(out, span{n / tile, 1, rem})
	}
	return out
}

// tileCtx is one region of a group's nest: the expressions of the current
// tile inside it.
type tileCtx struct {
	g      *group
	gi     int
	region int // index of (pr, fr) among the group's regions
	pspan  int
	pr, fr span
	p, f   affine.Expr // global tile indices
	pl     affine.Expr // the p loop's local index (column tiles)
	local  affine.Expr // the region's block index: pl*fr.count + fl
	multiF bool
	suffix string
}

// emitter rewrites one function.
type emitter struct {
	a     *analysis
	f     *bir.Function
	m     *bir.Module
	stats *Stats
	top   []bir.InstID
	cur   bir.BlockID // bir.NoBlock: the top-level list
	b     *bir.Builder

	blockNames map[string]bool
	// Tile tensors by (tensor index, key): region tensors, column tensors
	// per p span, fused K-step tiles, boundary row blocks, replicas.
	tiles map[tileKey]bir.T
	ptOf  map[int]int64 // boundary tensor -> its row-block partitions
}

type tileKey struct {
	t    int
	kind byte // 'r' region, 'c' column, 'k' fused, 'b' boundary, 'p' replica, 'l' reload
	g    int
	a, b int
}

func (e *emitter) place(i bir.InstID) {
	if e.cur == bir.NoBlock {
		e.top = append(e.top, i)
		return
	}
	e.f.Append(e.cur, i)
}

// uniqueInst returns name when no live instruction has it, else name_<k>.
func (e *emitter) uniqueInst(name string) string { return uniqueName(e.f, name) }

func (e *emitter) uniqueBlock(name string) string {
	n := name
	for k := 1; e.blockNames[n]; k++ {
		n = name + "_" + strconv.Itoa(k)
	}
	e.blockNames[n] = true
	return n
}

// loop emits a loop over [0, n) named name (axis axis), whose body fn
// builds, or, for n == 1, fn's body in place with the index 0.
func (e *emitter) loop(name, axis string, n int64, from bir.InstID, fn func(i affine.Expr)) {
	if n <= 1 {
		fn(affine.Const(0))
		return
	}
	id, ax := e.f.NewLoop(bir.OpLoop, e.uniqueInst(name), axis, 0, n, 1)
	e.f.InheritPos(id, from)
	e.place(id)
	body := e.f.NewBlock(e.uniqueBlock(e.f.InstName(id)+"_body"), id)
	saved := e.cur
	e.cur = body
	fn(affine.Var(ax))
	e.cur = saved
	e.stats.Loops++
}

// clone places a copy of instruction i (attributes, engine, position)
// named name with the given operands.
func (e *emitter) clone(i bir.InstID, name string, ins, outs []bir.Operand) bir.InstID {
	c := e.f.Clone(i, e.m.NewSym(e.uniqueInst(name)))
	e.f.SetArgs(c, ins, outs)
	e.place(c)
	e.stats.Created++
	return c
}

// newTensor declares a tile tensor.
func (e *emitter) newTensor(name string, mem bir.MemoryType, dt bir.Dtype, nblocks, parts, free int64) (bir.T, error) {
	t := e.b.BlockTensor(e.f.UniqueTensorLocName(name), mem, dt, nblocks, parts, free)
	if err := e.b.Err(); err != nil {
		return t, err
	}
	return t, nil
}

func (e *emitter) pat(pairs ...[2]int64) bir.PatternID { return e.b.Pat(pairs...) }

func sym(t bir.T, block, off affine.Expr, pat bir.PatternID, m *bir.Module) bir.Operand {
	return bir.SymAP(t.ID, t.Dtype, m.InternExpr(block), m.InternExpr(off), pat)
}

// ---- ordering ----

// item is a unit of the new top-level order: a group or an instruction
// the tiler leaves alone.
type item struct {
	group int // >= 0: a group
	inst  bir.InstID
	first int
}

type itemHeap struct {
	idx   []int
	items []item
}

func (h *itemHeap) Len() int           { return len(h.idx) }
func (h *itemHeap) Less(i, j int) bool { return h.items[h.idx[i]].first < h.items[h.idx[j]].first }
func (h *itemHeap) Swap(i, j int)      { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *itemHeap) Push(x any)         { h.idx = append(h.idx, x.(int)) }
func (h *itemHeap) Pop() any {
	n := len(h.idx) - 1
	x := h.idx[n]
	h.idx = h.idx[:n]
	return x
}

// order returns the block's new order of items: a topological order of
// the read/write hazards on every tensor (on-chip and DRAM) between
// groups and the other instructions, as close to program order as it
// allows (Kahn's algorithm, earliest first instruction first).
func (a *analysis) order(groups []*group) ([]item, error) {
	f := a.f
	var items []item
	itemOf := map[bir.InstID]int{}
	gItem := make([]int, len(groups))
	for k := range gItem {
		gItem[k] = -1
	}
	for pos, i := range f.Block(a.block).Insts {
		if xi, ok := a.byID[i]; ok {
			g := a.mops[xi].group
			if gItem[g] < 0 {
				gItem[g] = len(items)
				items = append(items, item{group: g, first: pos})
			}
			itemOf[i] = gItem[g]
			continue
		}
		itemOf[i] = len(items)
		items = append(items, item{group: -1, inst: i, first: pos})
	}
	type state struct {
		writer  int
		readers []int
	}
	st := map[bir.TensorID]*state{}
	succ := make([][]int, len(items))
	indeg := make([]int, len(items))
	edge := func(from, to int) {
		if from < 0 || from == to {
			return
		}
		succ[from] = append(succ[from], to)
		indeg[to]++
	}
	for _, i := range f.Block(a.block).Insts {
		it := itemOf[i]
		visit := func(j bir.InstID) {
			nIns := int(f.Inst(j).NIns)
			for k, o := range f.Operands(j) {
				var t bir.TensorID
				switch o.Kind {
				case bir.OpdPhysAP:
					t = f.Loc(o.Loc()).Tensor
				case bir.OpdSymAP, bir.OpdRegAP:
					t = o.TensorRef()
				default:
					continue
				}
				s := st[t]
				if s == nil {
					s = &state{writer: -1}
					st[t] = s
				}
				if k < nIns {
					edge(s.writer, it)
					s.readers = append(s.readers, it)
					continue
				}
				edge(s.writer, it)
				for _, r := range s.readers {
					edge(r, it)
				}
				s.writer, s.readers = it, s.readers[:0]
			}
		}
		visit(i)
		if f.Inst(i).Op.IsLoop() {
			for _, b := range f.Loop(i).Body {
				f.WalkBlock(b, func(j bir.InstID) bool { visit(j); return true })
			}
		}
	}
	h := &itemHeap{items: items}
	for k := range items {
		if indeg[k] == 0 {
			h.idx = append(h.idx, k)
		}
	}
	heap.Init(h)
	out := make([]item, 0, len(items))
	for h.Len() > 0 {
		k := heap.Pop(h).(int)
		out = append(out, items[k])
		for _, s := range succ[k] {
			if indeg[s]--; indeg[s] == 0 {
				heap.Push(h, s)
			}
		}
	}
	if len(out) != len(items) {
		for k := range items {
			if indeg[k] > 0 && items[k].group >= 0 {
				g := groups[items[k].group]
				return nil, a.errAt(a.mops[g.ops[0]].id, "its tiling group (%s) and the instructions around it depend on each other both ways: want the macro operations of a chain next to each other", a.opNames(g))
			}
		}
		return nil, diag.Errorf(diag.Internal, "the tiling groups cannot be ordered")
	}
	return out, nil
}

// ---- the rewrite ----

// emit rewrites the function: the new top-level block, the tile tensors,
// the macro tensors removed.
func (a *analysis) emit(groups []*group, stats *Stats) error {
	order, err := a.order(groups)
	if err != nil {
		return err
	}
	f := a.f
	e := &emitter{a: a, f: f, m: a.m, stats: stats, cur: bir.NoBlock, b: bir.BuilderFor(f, a.block),
		blockNames: map[string]bool{}, tiles: map[tileKey]bir.T{}, ptOf: map[int]int64{}}
	for b := 0; b < f.NumBlocks(); b++ {
		e.blockNames[f.Block(bir.BlockID(b)).Name] = true
	}
	// The macro instructions leave the block (freeing their names for
	// the tiles), then the macro tensors (freeing theirs).
	var keep []bir.InstID
	for _, i := range f.Block(a.block).Insts {
		if _, ok := a.byID[i]; !ok {
			keep = append(keep, i)
		}
	}
	f.SetBlockInsts(a.block, keep)
	for k := range a.tens {
		if !a.tens[k].bcastSrc {
			f.RemoveTensor(a.tens[k].id)
		}
	}
	for _, it := range order {
		if it.group < 0 {
			e.top = append(e.top, it.inst)
			continue
		}
		if err := e.group(it.group, groups[it.group]); err != nil {
			return err
		}
	}
	f.SetBlockInsts(a.block, e.top)
	return e.b.Err()
}

// boundary returns the row-block tensor of boundary tensor tk, declaring
// it on first use with pt partitions per block.
func (e *emitter) boundary(tk int, pt int64, at bir.InstID) (bir.T, error) {
	key := tileKey{t: tk, kind: 'b'}
	t := &e.a.tens[tk]
	if h, ok := e.tiles[key]; ok {
		if e.ptOf[tk] != pt {
			return h, e.a.errAt(at, "tensor %s: its tiling groups use %d- and %d-partition tiles: want one partition tile (set partition_max_elts, or make the stationary and partition limits agree)", t.tname, e.ptOf[tk], pt)
		}
		return h, nil
	}
	nb := (t.rows + pt - 1) / pt
	h, err := e.newTensor(t.name, t.mem, t.dt, nb, pt, t.cols)
	if err != nil {
		return h, err
	}
	e.tiles[key] = h
	e.ptOf[tk] = pt
	e.stats.Boundary++
	return h, nil
}

// regionTile returns the tile tensor of internal tensor tk in the region
// of c (a column tensor: in the p span of c).
func (e *emitter) regionTile(tk int, c *tileCtx, cols int64) (bir.T, error) {
	t := &e.a.tens[tk]
	key := tileKey{t: tk, kind: 'r', g: c.gi, a: c.region}
	nb, parts := c.pr.count*c.fr.count, c.pr.size
	name := t.name
	if t.cols == 1 {
		key = tileKey{t: tk, kind: 'c', g: c.gi, a: c.pspan}
		nb = c.pr.count
		if c.pspan > 0 {
			name += "_t" + strconv.Itoa(c.pspan)
		}
	} else if c.region > 0 {
		name += "_t" + strconv.Itoa(c.region)
	}
	if h, ok := e.tiles[key]; ok {
		return h, nil
	}
	h, err := e.newTensor(name, t.mem, t.dt, nb, parts, cols)
	if err != nil {
		return h, err
	}
	e.tiles[key] = h
	return h, nil
}

// tileCols is the free size of x's operands in the current tile.
func (c *tileCtx) tileCols(x *mop) int64 {
	if x.colOp || x.cols == 1 {
		return 1
	}
	if c.g.wholeRow {
		return x.cols
	}
	return c.fr.size
}

// operand returns operand o of x in the tile c.
func (e *emitter) operand(x *mop, o *opnd, c *tileCtx) (bir.Operand, error) {
	f, m := e.f, e.m
	orig := f.Operands(x.id)[o.k]
	rows := c.pr.size
	cols := c.tileCols(x)
	zero := affine.Const(0)
	fOff := affine.Scale(c.f, c.g.ft)
	if x.colOp || x.cols == 1 || c.g.wholeRow {
		fOff = zero // a column instruction, or whole rows: no free offset (a remainder tile of one column has one)
	}
	switch o.role {
	case roleOther:
		return orig, nil
	case roleDRAM:
		ts := f.Tensor(o.dram)
		h := bir.T{ID: o.dram, Dtype: ts.Dtype}
		off := affine.Add(affine.Add(affine.Const(o.off), affine.Scale(c.p, c.g.pt*o.stride)), fOff)
		return sym(h, zero, off, e.pat([2]int64{o.stride, rows}, [2]int64{1, cols}), m), nil
	case roleBcast:
		return e.bcast(x, o, c, cols)
	case roleFull, roleCol:
		t := &e.a.tens[o.t]
		if t.boundary {
			h, err := e.boundary(o.t, c.g.pt, x.id)
			if err != nil {
				return bir.Operand{}, err
			}
			if o.role == roleCol {
				return sym(h, c.p, zero, e.pat([2]int64{1, rows}, [2]int64{1, 1}), m), nil
			}
			return sym(h, c.p, fOff, e.pat([2]int64{t.cols, rows}, [2]int64{1, cols}), m), nil
		}
		bc := cols
		if o.role == roleCol {
			bc = 1
		}
		h, err := e.regionTile(o.t, c, bc)
		if err != nil {
			return bir.Operand{}, err
		}
		if o.role == roleCol {
			return sym(h, c.pl, zero, e.pat([2]int64{1, rows}, [2]int64{1, 1}), m), nil
		}
		return sym(h, c.local, zero, e.pat([2]int64{bc, rows}, [2]int64{1, cols}), m), nil
	}
	return bir.Operand{}, diag.Errorf(diag.Internal, "operand role %d outside a matmul", o.role)
}

// bcast returns a broadcast operand in the tile: a slice of the replica
// (software replication) or a per-tile re-load from DRAM.
func (e *emitter) bcast(x *mop, o *opnd, c *tileCtx, cols int64) (bir.Operand, error) {
	m := e.m
	rows := c.pr.size
	fOff := affine.Scale(c.f, c.g.ft)
	if c.g.wholeRow {
		fOff = affine.Const(0)
	}
	zero := affine.Const(0)
	if h, ok := e.tiles[tileKey{t: o.t, kind: 'p', g: c.gi, a: int(o.off), b: int(o.cols)}]; ok {
		return sym(h, zero, fOff, e.pat([2]int64{o.cols, rows}, [2]int64{1, cols}), m), nil
	}
	// Re-load: a per-tile Load of the row, broadcast by the DMA.
	src, err := e.reloadSource(x, o)
	if err != nil {
		return bir.Operand{}, err
	}
	key := tileKey{t: o.t, kind: 'l', g: c.gi, a: c.region, b: int(o.off)}
	h, ok := e.tiles[key]
	if !ok {
		name := e.a.tens[o.t].name + "_bcast"
		if h, err = e.newTensor(name, bir.MemSB, e.a.tens[o.t].dt, c.pr.count*c.fr.count, rows, cols); err != nil {
			return bir.Operand{}, err
		}
		e.tiles[key] = h
	}
	ds := e.f.Tensor(src.dram)
	dram := bir.T{ID: src.dram, Dtype: ds.Dtype}
	off := affine.Add(affine.Const(src.off+o.off), fOff)
	ld := e.f.NewInst(bir.OpLoad, e.uniqueInst(e.a.tens[o.t].name+"_reload"), bir.EngUnassigned,
		[]bir.Operand{sym(dram, zero, off, e.pat([2]int64{0, rows}, [2]int64{1, cols}), m)},
		[]bir.Operand{sym(h, c.local, zero, e.pat([2]int64{cols, rows}, [2]int64{1, cols}), m)}, nil)
	e.f.InheritPos(ld, x.id)
	e.place(ld)
	e.stats.Created++
	e.stats.Reloaded++
	return sym(h, c.local, zero, e.pat([2]int64{cols, rows}, [2]int64{1, cols}), m), nil
}

// reloadSource finds the DRAM row a broadcast source was loaded from:
// its only writer in the function must be a Load of one contiguous DRAM
// run.
func (e *emitter) reloadSource(x *mop, o *opnd) (opnd, error) {
	f := e.f
	t := &e.a.tens[o.t]
	var writers []bir.InstID
	for _, u := range f.TensorUses(t.id) {
		if u.Out {
			writers = append(writers, u.Inst)
		}
	}
	why := ""
	switch {
	case len(writers) != 1:
		why = fmt.Sprintf("it has %d writers", len(writers))
	case f.Inst(writers[0]).Op != bir.OpLoad:
		why = "its writer " + f.InstName(writers[0]) + " is not a Load"
	}
	if why == "" {
		src := f.Ins(writers[0])[0]
		if src.Kind == bir.OpdPhysAP && f.Loc(src.Loc()).Type.IsDRAM() {
			p := e.m.Pattern(src.Pattern)
			if p.NumElements() == t.cols && len(p) >= 1 && p[len(p)-1].Step == 1 && p[len(p)-1].Num == t.cols {
				return opnd{dram: f.Loc(src.Loc()).Tensor, off: src.Offset}, nil
			}
		}
		why = "its Load does not read one contiguous DRAM run"
	}
	return opnd{}, e.a.errAt(x.id, "broadcast row %s cannot be re-loaded per tile (enable_software_replication is off or the row is not a replication candidate): %s", t.tname, why)
}

// replicate emits, before group gi's nest, one replica per broadcast row
// its instructions read: an on-chip DMA copying the row to pt partitions
// (seed 002 §2.4, enable_software_replication; is_replication_candidate).
func (e *emitter) replicate(gi int, g *group) error {
	if !e.a.opt.EnableSoftwareReplication {
		return nil
	}
	for _, xi := range g.ops {
		x := &e.a.mops[xi]
		for k := range x.ops {
			o := &x.ops[k]
			if o.role != roleBcast || !e.a.isReplicationCandidate(g, o) {
				continue
			}
			key := tileKey{t: o.t, kind: 'p', g: gi, a: int(o.off), b: int(o.cols)}
			if _, ok := e.tiles[key]; ok {
				continue
			}
			t := &e.a.tens[o.t]
			h, err := e.newTensor(t.name+"_rep", bir.MemSB, t.dt, 1, g.pt, o.cols)
			if err != nil {
				return err
			}
			e.tiles[key] = h
			e.stats.Replicated++
			if e.a.peReplicable(t.dt) {
				if err := e.replicatePE(x.id, t, o, g.pt, h); err != nil {
					return err
				}
				continue
			}
			src := bir.PhysAP(e.f.Tensor(t.id).Locs[0], t.dt, o.off, e.pat([2]int64{0, g.pt}, [2]int64{1, o.cols}))
			cp := e.f.NewInst(bir.OpDMACopy, e.uniqueInst(t.name+"_replicate"), bir.EngUnassigned,
				[]bir.Operand{src}, []bir.Operand{h.All()}, bir.Attrs("mode", "Copy"))
			e.f.InheritPos(cp, x.id)
			e.place(cp)
			e.stats.Created++
		}
	}
	return nil
}

// peReplicable reports whether a row of dtype dt can be replicated by the
// Tensor engine: a float dtype the matmul takes (fp32 with fp32, bf16 and
// fp16), on a generation with the engine.
func (a *analysis) peReplicable(dt bir.Dtype) bool {
	return a.model.HasEngine(bir.EngPE) && (dt == bir.Float32 || dt == bir.BFloat16 || dt == bir.Float16)
}

// replicatePE replicates the broadcast row o of t into h [pt, cols] the
// NKI tutorial's way (the hand-written rmsnorm's): a ones vector [1, pt]
// as the stationary operand and the row as the moving one (K = 1), so the
// Tensor engine writes the row into every partition of a PSUM tile, one
// bank's worth of columns at a time, each evacuated into the replica.
// Every product is 1 * g, exact in fp32, summed from +0: the replica
// equals the row, except that a -0 becomes +0 (semantics.md §4.7's sum
// from +0).
func (e *emitter) replicatePE(at bir.InstID, t *tensor, o *opnd, pt int64, h bir.T) error {
	f, m, a := e.f, e.m, e.a
	ones, err := e.newTensor(t.name+"_ones", bir.MemSB, t.dt, 1, 1, pt)
	if err != nil {
		return err
	}
	ms := f.NewInst(bir.OpMemset, e.uniqueInst(t.name+"_ones"), bir.EngUnassigned, nil, []bir.Operand{ones.All()},
		bir.Attrs("mode", "Const", "constant", bir.Float(1)))
	f.InheritPos(ms, at)
	e.place(ms)
	e.stats.Created++
	chunk := min(o.cols, a.model.Tile.GemmMovingFMax, a.model.PSUMBankBytes/bir.Float32.Size())
	if n := a.model.MatmulMaxN(bir.Float32); n > 0 {
		chunk = min(chunk, n)
	}
	zero := affine.Const(0)
	for si, sp := range spans(o.cols, chunk) {
		name := t.name + "_bcast"
		if si > 0 {
			name += "_t" + strconv.Itoa(si)
		}
		ps, err := e.newTensor(name, bir.MemPSUM, bir.Float32, sp.count, pt, sp.size)
		if err != nil {
			return err
		}
		e.loop(t.name+"_replicate_c", "c", sp.count, at, func(c affine.Expr) {
			col := affine.Scale(affine.Add(c, affine.Const(sp.base)), chunk)
			mv := sym(bir.T{ID: t.id, Dtype: t.dt}, zero, affine.Add(affine.Const(o.off), col), e.pat([2]int64{t.cols, 1}, [2]int64{1, sp.size}), m)
			dst := sym(ps, c, zero, e.pat([2]int64{sp.size, pt}, [2]int64{1, sp.size}), m)
			mm := f.NewInst(bir.OpMatmult, e.uniqueInst(t.name+"_replicate"), bir.EngPE,
				[]bir.Operand{ones.All(), mv}, []bir.Operand{dst}, bir.Attrs("start_tensor_calc", true, "stop_tensor_calc", true))
			f.InheritPos(mm, at)
			e.place(mm)
			cp := f.NewInst(bir.OpTensorCopy, e.uniqueInst(t.name+"_replicate_copy"), bir.EngUnassigned,
				[]bir.Operand{dst}, []bir.Operand{sym(h, zero, col, e.pat([2]int64{o.cols, pt}, [2]int64{1, sp.size}), m)}, nil)
			f.InheritPos(cp, at)
			e.place(cp)
			e.stats.Created += 2
		})
	}
	return nil
}

// isReplicationCandidate is seed 002 §2.4's is_replication_candidate: a
// row read through a partition broadcast by a group whose tile has more
// than one partition (fewer-than-128-partition operand, more partitions
// to fill), read-only in the group, and whose replica (pt partitions x
// the row) fits the free-tile budget.
func (a *analysis) isReplicationCandidate(g *group, o *opnd) bool {
	t := &a.tens[o.t]
	return t.bcastSrc && t.rows < g.pt && o.cols*t.dt.Size() <= a.opt.MaxComputationTileSizeInBytes
}

// group emits group gi: its replicas, then one nest per region.
func (e *emitter) group(gi int, g *group) error {
	a := e.a
	e.stats.Groups++
	if len(g.ops) > 1 {
		e.stats.RateMatched++
	}
	// Count what acts: the path changes a group only by re-viewing it.
	switch {
	case g.reviewed:
		e.stats.SIMDMacros++
	case g.simd:
		e.stats.SIMDSame++
	}
	e.stats.Tiled += int64(len(a.members(g)))
	if err := e.replicate(gi, g); err != nil {
		return err
	}
	first := a.mops[g.ops[0]].id
	ps, fs := spans(g.rows, g.pt), spans(g.cols, g.ft)
	if g.wholeRow || g.cols == 1 {
		fs = []span{{0, 1, g.cols}}
	}
	multiF := len(fs) > 1 || fs[0].count > 1
	tiles := int64(0)
	for _, p := range ps {
		for _, q := range fs {
			tiles += p.count * q.count
		}
	}
	e.stats.Tiles += tiles
	if a.opt.Logf != nil {
		path := ""
		switch {
		case g.reviewed:
			path = ", SIMD macro (8 GpSimd cores x 16 partitions), re-viewed as [128, R*C/128]"
		case g.simd:
			path = ", GpSimd elementwise: its rows fill the 8 cores x 16 partitions, the SIMD-macro path changes nothing"
		}
		bound := "whole rows"
		if g.ft < g.cols {
			bound = "free tile bound: " + g.bound
		}
		a.opt.Logf("function %s: group %d (%s): [%d x %d] in %d tiles of [%d x %d] (%s; PSUM banks per tile %d)%s",
			a.f.Name, gi, a.opNames(g), g.rows, g.cols, tiles, g.pt, g.ft, bound, g.psumBanks, path)
	}
	base := "tile" + strconv.Itoa(gi)
	region := 0
	var err error
	for pi, p := range ps {
		e.loop(base+"_p", "p", p.count, first, func(pl affine.Expr) {
			c := &tileCtx{g: g, gi: gi, pspan: pi, pr: p, multiF: multiF, pl: pl,
				p: affine.Add(pl, affine.Const(p.base))}
			if multiF {
				// Column instructions (per-row loads and arithmetic,
				// nothing reads a free tile: no reduction here) run once
				// per row tile, before the free tiles.
				c.fr, c.region, c.f, c.local = fs[0], region, affine.Const(0), pl
				for _, xi := range g.ops {
					if x := &a.mops[xi]; x.cols == 1 || x.colOp {
						if err == nil {
							err = e.inst(x, c)
						}
					}
				}
			}
			for fi, q := range fs {
				r := region + fi
				e.loop(base+"_f", "f", q.count, first, func(fl affine.Expr) {
					c.fr, c.region = q, r
					c.f = affine.Add(fl, affine.Const(q.base))
					c.local = affine.Add(affine.Scale(pl, q.count), fl)
					if r > 0 {
						c.suffix = "_t" + strconv.Itoa(r)
					} else {
						c.suffix = ""
					}
					for _, xi := range g.ops {
						x := &a.mops[xi]
						if multiF && (x.cols == 1 || x.colOp) {
							continue
						}
						if err == nil {
							err = e.inst(x, c)
						}
					}
				})
			}
		})
		region += len(fs)
	}
	return err
}

// inst emits macro instruction x in tile c.
func (e *emitter) inst(x *mop, c *tileCtx) error {
	if x.cls == clsMatmul {
		return e.matmul(x, c)
	}
	f := e.f
	nIns := int(f.Inst(x.id).NIns)
	ops := make([]bir.Operand, len(x.ops))
	for k := range x.ops {
		o, err := e.operand(x, &x.ops[k], c)
		if err != nil {
			return err
		}
		ops[k] = o
	}
	e.clone(x.id, f.InstName(x.id)+c.suffix, ops[:nIns], ops[nIns:])
	return nil
}

// matmul emits a matmul tile: the K loop (full K tiles, then the
// remainder), each step loading its fused operand tiles and accumulating
// into the PSUM tile; start_tensor_calc on the first K step, stop on the
// last, as predicates on the loop axis where a loop carries several
// steps (the hand-written kernels' matmul_first / matmul / matmul_last).
func (e *emitter) matmul(x *mop, c *tileCtx) error {
	a, f, m := e.a, e.f, e.m
	kt := a.partTile(x.kdim, a.model.Partitions)
	ks := spans(x.kdim, kt)
	dst, err := e.operand(x, &x.ops[2], c)
	if err != nil {
		return err
	}
	rows, cols := c.pr.size, c.fr.size
	zero := affine.Const(0)
	name := f.InstName(x.id)
	for ki, k := range ks {
		var err error
		e.loop(name+"_k", "k", k.count, x.id, func(kl affine.Expr) {
			kg := affine.Add(kl, affine.Const(k.base))
			opFor := func(o *opnd, width int64, at affine.Expr) bir.Operand {
				t := &a.tens[o.t]
				if !t.fused {
					h, e2 := e.boundary(o.t, kt, x.id)
					if e2 != nil && err == nil {
						err = e2
					}
					return sym(h, kg, at, e.pat([2]int64{t.cols, k.size}, [2]int64{1, width}), m)
				}
				key := tileKey{t: o.t, kind: 'k', g: c.gi, a: c.region, b: ki}
				h, ok := e.tiles[key]
				if !ok {
					name := t.name
					if c.region > 0 || ki > 0 {
						name += "_t" + strconv.Itoa(c.region) + "_" + strconv.Itoa(ki)
					}
					var e2 error
					if h, e2 = e.newTensor(name, t.mem, t.dt, c.pr.count*c.fr.count*k.count, k.size, width); e2 != nil && err == nil {
						err = e2
					}
					e.tiles[key] = h
				}
				blk := affine.Add(affine.Scale(c.local, k.count), kl)
				tile := sym(h, blk, zero, e.pat([2]int64{width, k.size}, [2]int64{1, width}), m)
				// The fused Load of this K step: rows k of the DRAM
				// region, the columns of this M (stationary) or N
				// (moving) tile.
				ld := &a.mops[t.writers[0]]
				s := &ld.ops[0]
				dh := bir.T{ID: s.dram, Dtype: f.Tensor(s.dram).Dtype}
				off := affine.Add(affine.Add(affine.Const(s.off), affine.Scale(kg, kt*s.stride)), at)
				src := sym(dh, zero, off, e.pat([2]int64{s.stride, k.size}, [2]int64{1, width}), m)
				e.clone(ld.id, f.InstName(ld.id)+c.suffix+kSuffix(ki, len(ks)), []bir.Operand{src}, []bir.Operand{tile})
				return tile
			}
			st := opFor(&x.ops[0], rows, affine.Scale(c.p, c.g.pt))
			mv := opFor(&x.ops[1], cols, affine.Scale(c.f, c.g.ft))
			first, last := ki == 0, ki == len(ks)-1
			flags := func(n string, start, stop bool, p *affine.Pred) {
				id := e.clone(x.id, name+n+c.suffix+kSuffix(ki, len(ks)), []bir.Operand{st, mv}, []bir.Operand{dst})
				f.SetAttrs(id, f.Attrs(id).With("start_tensor_calc", bir.Bool(start)).With("stop_tensor_calc", bir.Bool(stop)))
				if p != nil {
					f.SetPred(id, *p)
				}
			}
			if k.count == 1 {
				flags("", first, last, nil)
				return
			}
			p0 := affine.EQ(kl, zero)
			flags("_first", first, false, &p0)
			if k.count > 2 {
				pm := affine.And(affine.GE(kl, affine.Const(1)), affine.LE(kl, affine.Const(k.count-2)))
				flags("", false, false, &pm)
			}
			pl := affine.EQ(kl, affine.Const(k.count-1))
			flags("_last", false, last, &pl)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func kSuffix(ki, n int) string {
	if n == 1 || ki == 0 {
		return ""
	}
	return "_ktail"
}
