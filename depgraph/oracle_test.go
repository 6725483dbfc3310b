package depgraph_test

// The dependency oracle: a brute-force statement of what the analysis must
// guarantee, written independently of its interval machinery. Every
// element every operand touches is enumerated (iterating the pattern's
// index space), mapped to (address space, partition, byte range) with the
// addressing model of design.md and the interpreter's operand roles, and
// every pair of instructions whose byte sets intersect with one of them
// writing must be ordered by the transitive closure of the edges. Each
// edge must also be justified by such a conflict (or be an accumulation
// chain or barrier edge), and edges implied by others are counted as
// redundant.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/depgraph"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passtest"
)

// ival is one byte range of one row of one address space.
type ival struct {
	space  string
	row    int64
	lo, hi int64
	write  bool
	order  bool // accumulation-group state: conflicts order, not data
}

// lifeRect is an allocated location's rectangle (the allocation's live
// intervals: accesses of two locations sharing bytes are ordered).
type lifeRect struct {
	loc            bir.LocID
	space          string
	p0, p1, b0, b1 int64
}

type oracle struct {
	f        *bir.Function
	mode     depgraph.Mode
	bb       int64
	acc      [][]ival     // per position, as collected
	rd, wr   [][]ival     // per position: reads and writes, sorted, merged
	life     [][]lifeRect // per position: the allocated locations it touches
	bankOwn  map[bir.LocID]bool
	barrier  []bool
	dynRead  []bool
	dramWrit []bool
}

func newOracle(f *bir.Function, g *depgraph.Graph, mode depgraph.Mode, bb int64) *oracle {
	o := &oracle{f: f, mode: mode, bb: bb}
	o.acc = make([][]ival, len(g.Insts))
	o.barrier = make([]bool, len(g.Insts))
	o.dynRead = make([]bool, len(g.Insts))
	o.dramWrit = make([]bool, len(g.Insts))
	o.rd = make([][]ival, len(g.Insts))
	o.wr = make([][]ival, len(g.Insts))
	o.life = make([][]lifeRect, len(g.Insts))
	o.bankOwn = map[bir.LocID]bool{}
	for _, i := range g.Insts {
		if f.Inst(i).Op.IsMatmul() && f.Attrs(i).Bool("start_tensor_calc", false) {
			for _, x := range f.Outs(i) {
				if x.Kind == bir.OpdPhysAP {
					o.bankOwn[x.Loc()] = true
				}
			}
		}
	}
	for p, i := range g.Insts {
		o.lifetime(p, i)
		o.instruction(p, i)
		for _, x := range o.acc[p] {
			if x.write {
				o.wr[p] = append(o.wr[p], x)
			} else {
				o.rd[p] = append(o.rd[p], x)
			}
		}
		o.rd[p], o.wr[p] = merge(o.rd[p]), merge(o.wr[p])
		o.acc[p] = nil
	}
	return o
}

// lifetime lists the allocated on-chip locations instruction i touches.
func (o *oracle) lifetime(p int, i bir.InstID) {
	if o.mode != depgraph.Physical {
		return
	}
	for _, x := range o.f.Operands(i) {
		if x.Kind != bir.OpdPhysAP {
			continue
		}
		lc := o.f.Loc(x.Loc())
		if !lc.Allocated || !lc.Type.IsOnChip() {
			continue
		}
		r := lifeRect{loc: x.Loc(), space: "SB", p0: lc.Base, p1: lc.Base + lc.Partitions, b0: lc.Addr, b1: lc.Addr + lc.Bytes}
		if lc.Type == bir.MemPSUM {
			r.space = "PSUM"
			r.b0 = lc.Bank*o.bb + lc.Addr
			r.b1 = r.b0 + lc.Bytes
			if o.bankOwn[x.Loc()] {
				r.b0 = r.b0 / o.bb * o.bb
				r.b1 = (r.b1 + o.bb - 1) / o.bb * o.bb
			}
		}
		o.life[p] = append(o.life[p], r)
	}
}

// merge sorts intervals by (space, row, lo) and merges touching ones.
func merge(xs []ival) []ival {
	slices.SortFunc(xs, func(a, b ival) int {
		switch {
		case a.space != b.space:
			if a.space < b.space {
				return -1
			}
			return 1
		case a.row != b.row:
			return int(a.row - b.row)
		}
		return int(a.lo - b.lo)
	})
	out := xs[:0]
	for _, x := range xs {
		if n := len(out); n > 0 && out[n-1].space == x.space && out[n-1].row == x.row && x.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// overlap reports whether two merged lists share a byte, and whether that
// byte is in an accumulation-state space.
func overlap(x, y []ival) (data, order bool) {
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		p, q := x[i], y[j]
		switch {
		case p.space < q.space || p.space == q.space && (p.row < q.row || p.row == q.row && p.hi <= q.lo):
			i++
			continue
		case q.space < p.space || q.space == p.space && (q.row < p.row || q.row == p.row && q.hi <= p.lo):
			j++
			continue
		}
		if p.order {
			order = true
		} else {
			data = true
		}
		if p.hi < q.hi {
			i++
		} else {
			j++
		}
	}
	return data, order
}

func (o *oracle) instruction(p int, i bir.InstID) {
	f := o.f
	in := f.Inst(i)
	info := in.Op.Info()
	const barrier = bir.FlagCall | bir.FlagSync | bir.FlagCollective | bir.FlagControl | bir.FlagNoSemantics | bir.FlagDescriptor
	if !in.Op.Known() || info.Flags&barrier != 0 {
		o.barrier[p] = true
		return
	}
	ins, outs := f.Ins(i), f.Outs(i)
	attrs := f.Attrs(i)
	switch op := in.Op; {
	case op.IsMatmul():
		start := attrs.Bool("start_tensor_calc", false)
		for k := range ins {
			o.operand(p, &ins[k], false, false)
		}
		for k := range outs {
			if !start {
				o.operand(p, &outs[k], false, false)
			}
			o.matmulDst(p, &outs[k], start)
		}
		return
	case op == bir.OpReadVarAddr:
		for k := range outs {
			o.operand(p, &outs[k], true, false)
		}
		return
	case op == bir.OpIndirectLoad:
		o.dynRead[p] = true
	case op == bir.OpIndirectSave || op == bir.OpIndirectSaveAccumulate:
		for k := range ins {
			o.operand(p, &ins[k], false, false)
		}
		for k := range outs {
			o.operand(p, &outs[k], true, true)
			o.operand(p, &outs[k], false, true)
		}
		return
	case op == bir.OpActivation && attrs.Str("acc", "Idle") != "Idle":
		o.acc[p] = append(o.acc[p], ival{space: "actacc", hi: 1, write: true})
	case op == bir.OpReadActivationAccumulator:
		o.acc[p] = append(o.acc[p], ival{space: "actacc", hi: 1})
	case op == bir.OpTensorScalarCache, op == bir.OpExponential, op == bir.OpRangeSelect,
		op == bir.OpTensorScalarPtr && attrs.Str("acc", "Idle") != "Idle":
		// The Vector accumulator: every instruction of the family reads
		// and writes it, Idle included (it leaves the state undefined).
		o.acc[p] = append(o.acc[p], ival{space: "dveacc", hi: 1, write: true})
	case op == bir.OpCopyPredicated:
		if _, ok := attrs.Get("acc"); ok {
			o.acc[p] = append(o.acc[p], ival{space: "dveacc", hi: 1, write: true})
		}
	}
	for k := range ins {
		o.operand(p, &ins[k], false, false)
	}
	for k := range outs {
		o.operand(p, &outs[k], true, false)
	}
}

// where returns the space name and origin of location l.
func (o *oracle) where(l bir.LocID) (space string, row0, col0 int64, onChip bool) {
	lc := o.f.Loc(l)
	onChip = lc.Type.IsOnChip()
	if o.mode == depgraph.Physical && onChip && lc.Allocated {
		if lc.Type == bir.MemSB {
			return "SB", lc.Base, lc.Addr, true
		}
		return "PSUM", lc.Base, lc.Bank*o.bb + lc.Addr, true
	}
	return "loc:" + lc.Name, 0, 0, onChip
}

// elements calls fn with every element index of the operand's pattern.
func (o *oracle) elements(op *bir.Operand, fn func(e int64)) {
	pat := o.f.Module().Pattern(op.Pattern)
	idx := make([]int64, len(pat))
	for _, q := range pat {
		if q.Num <= 0 {
			return
		}
	}
	for {
		e := op.Offset
		for d, q := range pat {
			e += idx[d] * q.Step
		}
		fn(e)
		d := len(pat) - 1
		for d >= 0 {
			idx[d]++
			if idx[d] < pat[d].Num {
				break
			}
			idx[d] = 0
			d--
		}
		if d < 0 {
			return
		}
	}
}

func (o *oracle) operand(p int, op *bir.Operand, write, whole bool) {
	f := o.f
	switch op.Kind {
	case bir.OpdRegister:
		o.acc[p] = append(o.acc[p], ival{space: "reg:" + f.Reg(bir.RegID(op.Ref)).Name, hi: 1, write: write})
		return
	case bir.OpdPhysAP:
	case bir.OpdImm, bir.OpdImmArray, bir.OpdSymImm:
		return
	default:
		panic("oracle: unexpected operand kind " + op.Kind.String())
	}
	l := op.Loc()
	lc := f.Loc(l)
	space, row0, col0, onChip := o.where(l)
	if lc.Type.IsDRAM() && write {
		o.dramWrit[p] = true
	}
	if whole {
		for r := int64(0); r < max(lc.Partitions, 1); r++ {
			if !onChip {
				o.acc[p] = append(o.acc[p], ival{space: space, lo: 0, hi: lc.Partitions * lc.Bytes, write: write})
				break
			}
			o.acc[p] = append(o.acc[p], ival{space: space, row: row0 + r, lo: col0, hi: col0 + lc.Bytes, write: write})
		}
		return
	}
	ds := op.Dtype.Size()
	E := lc.Bytes / ds
	o.elements(op, func(e int64) {
		x := ival{space: space, lo: e * ds, hi: (e + 1) * ds, write: write}
		if onChip {
			r, c := e/E, e%E
			x = ival{space: space, row: row0 + r, lo: col0 + c*ds, hi: col0 + (c+1)*ds, write: write}
		}
		o.add(p, x)
	})
}

// add appends x, extending the last interval when x continues it.
func (o *oracle) add(p int, x ival) {
	if n := len(o.acc[p]); n > 0 {
		l := &o.acc[p][n-1]
		if l.space == x.space && l.row == x.row && l.write == x.write && l.order == x.order && l.hi == x.lo {
			l.hi = x.hi
			return
		}
	}
	o.acc[p] = append(o.acc[p], x)
}

func (o *oracle) matmulDst(p int, op *bir.Operand, start bool) {
	n := len(o.acc[p])
	o.operand(p, op, true, false)
	added := slices.Clone(o.acc[p][n:])
	if !o.f.Loc(op.Loc()).Type.IsOnChip() {
		return
	}
	for _, x := range added {
		for b := x.lo / o.bb; b <= (x.hi-1)/o.bb; b++ {
			if start {
				o.add(p, ival{space: x.space, row: x.row, lo: b * o.bb, hi: (b + 1) * o.bb, write: true})
			}
			o.add(p, ival{space: x.space + ":banks", row: x.row, lo: b, hi: b + 1, write: true, order: true})
		}
	}
}

// conflict reports whether positions a and b conflict (and whether only
// through accumulation-group state).
func (o *oracle) conflict(a, b int) (data, order bool) {
	if o.barrier[a] || o.barrier[b] {
		return false, true
	}
	if o.dynRead[a] && o.dramWrit[b] || o.dynRead[b] && o.dramWrit[a] {
		data = true
	}
	if o.dynRead[a] && o.dynRead[b] {
		order = true // the analysis chains dynamic DRAM reads (see access.go)
	}
	for _, x := range o.life[a] {
		for _, y := range o.life[b] {
			if x.loc != y.loc && x.space == y.space && x.p0 < y.p1 && y.p0 < x.p1 && x.b0 < y.b1 && y.b0 < x.b1 {
				order = true // the allocation's live intervals
			}
		}
	}
	for _, pr := range [][2][]ival{{o.wr[a], o.wr[b]}, {o.wr[a], o.rd[b]}, {o.rd[a], o.wr[b]}} {
		d, r := overlap(pr[0], pr[1])
		data, order = data || d, order || r
	}
	return data, order
}

// checkOracle runs the oracle on f and its graph g: every conflicting pair
// must be ordered (a test failure otherwise). It returns the number of
// redundant edges and of edges no conflict justifies (the analysis's
// documented over-approximations: a partition-strided pattern's row hull,
// more than MaxRuns runs, patterns that leave their row).
func checkOracle(t *testing.T, f *bir.Function, g *depgraph.Graph, mode depgraph.Mode, bb int64) (redundant, unjustified int) {
	t.Helper()
	o := newOracle(f, g, mode, bb)
	n := len(g.Insts)
	words := (n + 63) / 64
	reach := make([][]uint64, n) // ancestors of each position
	for p := 0; p < n; p++ {
		reach[p] = make([]uint64, words)
		preds, kinds := g.Preds(p)
		for k, q := range preds {
			if int(q) >= p {
				t.Fatalf("edge %d -> %d does not point backwards", q, p)
			}
			data, order := o.conflict(int(q), p)
			if !data && !order {
				unjustified++
				t.Logf("%s -> %s (%s): no conflict justifies the edge", f.InstName(g.Insts[q]), f.InstName(g.Insts[p]), kinds[k])
			}
			for w := range reach[q] {
				reach[p][w] |= reach[q][w]
			}
		}
		for _, q := range preds {
			// Redundant: q is an ancestor of another predecessor.
			for _, r := range preds {
				if r != q && reach[r][q/64]&(1<<(uint(q)%64)) != 0 {
					redundant++
					break
				}
			}
		}
		for _, q := range preds {
			reach[p][q/64] |= 1 << (uint(q) % 64)
		}
	}
	missing := 0
	for b := 0; b < n; b++ {
		for a := 0; a < b; a++ {
			data, order := o.conflict(a, b)
			if !data && !order {
				continue
			}
			if reach[b][a/64]&(1<<(uint(a)%64)) == 0 {
				missing++
				if missing <= 5 {
					t.Errorf("%s and %s conflict but are not ordered", f.InstName(g.Insts[a]), f.InstName(g.Insts[b]))
				}
			}
		}
	}
	if missing > 5 {
		t.Errorf("%d unordered conflicting pairs in all", missing)
	}
	return redundant, unjustified
}

// TestAnalyze_OracleKernels checks every built-in kernel, lowered to
// straight-line code, in both modes, with every placement of
// schedtest.Prepare (the memory planner's among them) and a random,
// irregular one.
func TestAnalyze_OracleKernels(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		for _, place := range append(schedtest.Placements, "random") {
			mm := cloneModule(t, m)
			if err := schedtest.Prepare(mm, model, place, 7); err != nil {
				t.Fatal(err)
			}
			st := struct{ name string }{place}
			for _, mode := range []depgraph.Mode{depgraph.Physical, depgraph.Logical} {
				for _, f := range mm.Funcs {
					g, err := depgraph.Analyze(f, depgraph.Options{Mode: mode, Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes})
					if err != nil {
						t.Fatal(err)
					}
					red, unj := checkOracle(t, f, g, mode, model.PSUMBankBytes)
					t.Logf("%s %s %s: %d instructions, %d edges, %d redundant, %d unjustified", st.name, mode, f.Name, len(g.Insts), g.NumEdges(), red, unj)
					if g.Stats.Unreduced == 0 && red != 0 {
						t.Errorf("%s %s %s: %d redundant edges without a reduction cut-off", st.name, mode, f.Name, red)
					}
					if unj != 0 {
						t.Errorf("%s %s %s: %d edges no conflict justifies (the kernels' patterns are all exact)", st.name, mode, f.Name, unj)
					}
				}
			}
		}
	})
}

// TestAnalyze_OracleRandom checks random modules: random access patterns
// (strided, negative steps, partition steps, several runs) on a handful of
// SB, PSUM and DRAM locations at random, overlapping placements, with
// matmul groups, accumulators, registers, dynamic DRAM reads and barriers.
func TestAnalyze_OracleRandom(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	var edges, unjustified int
	defer func() {
		t.Logf("random modules: %d edges, %d not justified by an exact conflict (over-approximated footprints)", edges, unjustified)
	}()
	for seed := uint64(1); seed <= 60; seed++ {
		m := randomModule(seed, model)
		f := m.Funcs[0]
		for _, mode := range []depgraph.Mode{depgraph.Physical, depgraph.Logical} {
			for _, visits := range []int{0, 3} {
				g, err := depgraph.Analyze(f, depgraph.Options{Mode: mode, MaxReduceVisits: visits})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				red, unj := checkOracle(t, f, g, mode, model.PSUMBankBytes)
				edges += g.NumEdges()
				unjustified += unj
				if visits == 0 && g.Stats.Unreduced == 0 && red != 0 {
					t.Errorf("seed %d %s: %d redundant edges", seed, mode, red)
				}
				if t.Failed() {
					t.Fatalf("seed %d %s visits %d: see above", seed, mode, visits)
				}
			}
		}
	}
}

func cloneModule(t *testing.T, m *bir.Module) *bir.Module {
	t.Helper()
	c, err := bir.Parse("clone", []byte(bir.Format(m)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// randomModule builds a straight-line function of random instructions.
func randomModule(seed uint64, model *arch.Model) *bir.Module {
	rng := rand.New(rand.NewPCG(seed, 77))
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	var sbs, psums, drams []bir.T
	for k := range 4 {
		sbs = append(sbs, b.SBUF(fmt.Sprintf("s%d", k), bir.Float32, []int64{32, 64, 128}[rng.IntN(3)], []int64{16, 64, 200}[rng.IntN(3)]))
	}
	for k := range 3 {
		psums = append(psums, b.PSUM(fmt.Sprintf("p%d", k), bir.Float32, []int64{32, 128}[rng.IntN(2)], []int64{64, 512}[rng.IntN(2)]))
	}
	drams = append(drams, b.Input("in0", bir.Float32, 64, 256), b.Output("out0", bir.Float32, 64, 256), b.DRAM("d0", bir.Float32, 1024))
	schedtest.Place(m, model, schedtest.Random, seed)
	for k, t := range sbs {
		if rng.IntN(4) == 0 {
			m.Funcs[0].Loc(t.Loc).Allocated = false
		}
		_ = k
	}
	r0 := m.Funcs[0].RegByName("r0")
	ap := func(t bir.T) bir.Operand {
		lc := m.Funcs[0].Loc(t.Loc)
		e := lc.Bytes / 4
		if !lc.Type.IsOnChip() {
			total := lc.Partitions * lc.Bytes / 4
			n := 1 + rng.Int64N(min(total, 40))
			step := 1 + rng.Int64N(3)
			off := rng.Int64N(max(total-(n-1)*step, 1))
			if rng.IntN(3) == 0 && n > 1 {
				return t.AP(off+(n-1)*step, [2]int64{-step, n})
			}
			return t.AP(off, [2]int64{step, n})
		}
		p := 1 + rng.Int64N(lc.Partitions)
		p0 := rng.Int64N(lc.Partitions - p + 1)
		switch rng.IntN(5) {
		case 0: // strided free dim
			n := 1 + rng.Int64N(max(e/2, 1))
			return t.AP(p0*e, [2]int64{e, p}, [2]int64{2, n})
		case 1: // two free dims, several runs
			a, c := 1+rng.Int64N(4), 1+rng.Int64N(max(e/8, 1))
			return t.AP(p0*e+rng.Int64N(max(e-(a-1)*(e/4)-c, 1)), [2]int64{e, p}, [2]int64{max(e/4, 1), a}, [2]int64{1, c})
		case 2: // every other partition
			pp := max(p/2, 1)
			return t.AP(p0*e, [2]int64{2 * e, pp}, [2]int64{1, e})
		case 3: // negative free step
			n := 1 + rng.Int64N(e)
			return t.AP(p0*e+n-1, [2]int64{e, p}, [2]int64{-1, n})
		}
		f0 := rng.Int64N(e)
		return t.AP(p0*e+f0, [2]int64{e, p}, [2]int64{1, 1 + rng.Int64N(e-f0)})
	}
	anyOnChip := func() bir.T {
		if rng.IntN(3) == 0 {
			return psums[rng.IntN(len(psums))]
		}
		return sbs[rng.IntN(len(sbs))]
	}
	for k := range 40 {
		name := fmt.Sprintf("i%d", k)
		switch rng.IntN(13) {
		case 0, 1:
			b.TensorTensor(name, bir.EngDVE, "add", ap(anyOnChip()), ap(anyOnChip()), ap(sbs[rng.IntN(len(sbs))]))
		case 2:
			b.TensorCopy(name, bir.EngAct, ap(anyOnChip()), ap(anyOnChip()))
		case 3:
			b.Memset(name, bir.EngPool, ap(sbs[rng.IntN(len(sbs))]), 1)
		case 4:
			b.Load(name, ap(sbs[rng.IntN(len(sbs))]), ap(drams[rng.IntN(len(drams))]))
		case 5:
			b.Save(name, ap(drams[1+rng.IntN(2)]), ap(sbs[rng.IntN(len(sbs))]))
		case 6, 7:
			b.Matmult(name, ap(psums[rng.IntN(len(psums))]), ap(sbs[rng.IntN(len(sbs))]), ap(sbs[rng.IntN(len(sbs))]), rng.IntN(2) == 0, rng.IntN(2) == 0)
		case 8:
			acc := []string{"Idle", "Accumulate", "ZeroAccumulate"}[rng.IntN(3)]
			b.Inst(bir.OpActivation, name, bir.EngAct, []bir.Operand{ap(anyOnChip())}, []bir.Operand{ap(sbs[rng.IntN(len(sbs))])}, bir.AttrSet{{Key: "func", Val: bir.String("Copy")}, {Key: "acc", Val: bir.String(acc)}})
		case 9:
			switch rng.IntN(4) {
			case 0:
				b.Inst(bir.OpReadActivationAccumulator, name, bir.EngAct, nil, []bir.Operand{ap(sbs[rng.IntN(len(sbs))])}, nil)
			case 1:
				b.Inst(bir.OpEventSemaphore, name, bir.EngSP, nil, nil, nil)
			case 2:
				b.Inst(bir.OpIndirectLoad, name, bir.EngUnassigned, []bir.Operand{ap(sbs[0]), ap(sbs[1])}, []bir.Operand{ap(sbs[rng.IntN(len(sbs))])}, nil)
			default:
				b.Inst(bir.OpRegisterMove, name, bir.EngAct, []bir.Operand{bir.RegOpd(r0, bir.Int32)}, []bir.Operand{bir.RegOpd(r0, bir.Int32)}, nil)
			}
		case 11:
			// Vector accumulator instructions: tensor_scalar_reduce and
			// tensor_scalar_cumulative.
			if rng.IntN(2) == 0 {
				acc := []string{"Accumulate", "ZeroAccumulate"}[rng.IntN(2)]
				b.Inst(bir.OpTensorScalarPtr, name, bir.EngDVE, []bir.Operand{ap(anyOnChip()), bir.Imm(1)}, []bir.Operand{ap(sbs[rng.IntN(len(sbs))])},
					bir.Attrs("op0", "add", "reverse0", false, "op1", "bypass", "reverse1", false, "acc", acc, "reduce_op", "add"))
			} else {
				b.TensorScalarCumulative(name, ap(sbs[rng.IntN(len(sbs))]), ap(anyOnChip()), "add", bir.Imm(0), "add", bir.Operand{}, "reduce", false)
			}
		case 10:
			b.Inst(bir.OpReadVarAddr, name, bir.EngUnassigned, []bir.Operand{ap(drams[0])}, []bir.Operand{ap(sbs[rng.IntN(len(sbs))])}, nil)
		default:
			b.TensorReduce(name, bir.EngDVE, "add", "X", ap(sbs[rng.IntN(len(sbs))]), ap(anyOnChip()))
		}
	}
	if err := b.Err(); err != nil {
		panic(err)
	}
	return m
}

// TestAnalyze_KeepExisting: an ORDERED dependency the input states
// between two independent instructions survives with KeepExisting and is
// recomputed away without it; the analysis is idempotent either way.
func TestAnalyze_KeepExisting(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.SBUF("x", bir.Float32, 128, 64)
	y := b.SBUF("y", bir.Float32, 128, 64)
	i0 := b.Memset("a", bir.EngDVE, x.All(), 1)
	i1 := b.Memset("b", bir.EngAct, y.All(), 2)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	f.AddDep(i1, bir.Dep{On: i0, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
	for _, keep := range []bool{true, false} {
		for round := range 2 {
			g, err := depgraph.Analyze(f, depgraph.Options{KeepExisting: keep})
			if err != nil {
				t.Fatal(err)
			}
			preds, kinds := g.Preds(1)
			want := 0
			if keep {
				want = 1
			}
			if len(preds) != want || want == 1 && kinds[0] != bir.DepOrdered {
				t.Errorf("keep=%v round %d: preds %v %v, want %d ORDERED", keep, round, preds, kinds, want)
			}
			if keep {
				g.Write(f)
			}
		}
	}
}

// TestAnalyze_LiveIntervals: a location that reuses another's bytes is
// touched only after every touch of the other, even where the accesses
// share no byte (the allocation's live intervals); not in logical mode.
func TestAnalyze_LiveIntervals(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	a := b.SBUF("a", bir.Float32, 128, 64)
	c := b.SBUF("c", bir.Float32, 64, 64)
	r := b.SBUF("r", bir.Float32, 128, 64) // reuses a's bytes
	for _, x := range []bir.T{a, c, r} {
		l := b.F.Loc(x.Loc)
		l.Allocated = true
	}
	b.F.Loc(c.Loc).Addr = 1024
	b.Memset("fill_a", bir.EngDVE, a.All(), 1)
	b.TensorCopy("read_a_top", bir.EngDVE, c.All(), a.Tile(0, 64, 0, 64))
	w := b.Memset("fill_r_bottom", bir.EngPool, r.Tile(64, 64, 0, 64), 2)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	for _, mode := range []depgraph.Mode{depgraph.Physical, depgraph.Logical} {
		g, err := depgraph.Analyze(f, depgraph.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		preds, kinds := g.Preds(int(g.Pos[w]))
		var names []string
		for k, q := range preds {
			names = append(names, kinds[k].String()+":"+f.InstName(g.Insts[q]))
		}
		want := "[ORDERED:read_a_top]" // fill_a -> read_a_top -> fill_r_bottom: the WAW on the bottom rows is implied
		if mode == depgraph.Logical {
			want = "[]"
		}
		if got := fmt.Sprint(names); got != want {
			t.Errorf("%s: fill_r_bottom depends on %s, want %s", mode, got, want)
		}
	}
}

// TestAnalyze_LongAccumulationGroups checks the analysis on matmuls whose
// accumulation groups are longer than the reduction's fixed bound covers
// (k = 128 x 200: 200 matmuls per group; nine output tiles, so that groups
// reuse the PSUM banks of earlier ones through the lifetime spaces): the
// candidate edges per instruction must not grow with the group's length
// (each matmul once enumerated every touch of the bank's previous owner:
// 18 redundant ORDERED edges per instruction at 256 matmuls per group)
// and no edge may be redundant. The oracle checks the short groups (the
// long ones would take it a minute and a half).
func TestAnalyze_LongAccumulationGroups(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	perInst := map[int]float64{}
	for _, kt := range []int{20, 200} {
		m, err := kernels.Build(fmt.Sprintf("matmul:m=128,k=%d,n=4608", 128*kt))
		if err != nil {
			t.Fatal(err)
		}
		if err := schedtest.Prepare(m, model, "planner", 1); err != nil {
			t.Fatal(err)
		}
		f := m.Main()
		g, err := depgraph.Analyze(f, depgraph.Options{Mode: depgraph.Physical, Partitions: model.Partitions, PSUMBankBytes: model.PSUMBankBytes})
		if err != nil {
			t.Fatal(err)
		}
		n := len(g.Insts)
		perInst[kt] = float64(g.Stats.Candidates) / float64(n)
		t.Logf("kt=%d: %d instructions, %d candidates, %d edges, %d unreduced", kt, n, g.Stats.Candidates, g.NumEdges(), g.Stats.Unreduced)
		if kt == 20 {
			if red, unj := checkOracle(t, f, g, depgraph.Physical, model.PSUMBankBytes); red != 0 || unj != 0 {
				t.Errorf("kt=%d: %d redundant edges, %d unjustified; want none", kt, red, unj)
			}
			continue
		}
		if red := redundantEdges(g); red != 0 {
			t.Errorf("kt=%d: %d redundant edges; want none", kt, red)
		}
	}
	if perInst[200] > 1.5*perInst[20] {
		t.Errorf("candidate edges per instruction grow with the group length: %.2f at 20 matmuls per group, %.2f at 200", perInst[20], perInst[200])
	}
}

// redundantEdges counts the edges of g implied by the others (an edge
// q -> p where q is an ancestor of another predecessor of p).
func redundantEdges(g *depgraph.Graph) int {
	n := len(g.Insts)
	words := (n + 63) / 64
	reach := make([][]uint64, n)
	red := 0
	for p := range n {
		reach[p] = make([]uint64, words)
		preds, _ := g.Preds(p)
		for _, q := range preds {
			for w := range reach[q] {
				reach[p][w] |= reach[q][w]
			}
		}
		for _, q := range preds {
			for _, r := range preds {
				if r != q && reach[r][q/64]&(1<<(uint(q)%64)) != 0 {
					red++
					break
				}
			}
		}
		for _, q := range preds {
			reach[p][q/64] |= 1 << (uint(q) % 64)
		}
	}
	return red
}
