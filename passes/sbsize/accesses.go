// The accesses of a tensor as the legalization needs them: every operand
// that reaches the tensor (physical access patterns on its locations,
// symbolic and register access patterns on the tensor), with the element
// offsets a symbolic access takes at each iteration of its enclosing
// loops — which is what the access becomes once FullUnroll has made it
// physical.
package sbsize

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// access is one operand reaching a tensor.
type access struct {
	inst  bir.InstID
	opd   int
	out   bool
	kind  bir.OperandKind
	loc   bir.LocID // physical: the location; symbolic: the tensor's first on-chip location
	pat   bir.Pattern
	dtype bir.Dtype
	dsize int64
	// offs are the element offsets the access takes (one for a physical
	// access; one per executed iteration for a symbolic one); known is
	// false when there were more iterations than the limit or an axis
	// could not be enumerated (offs is then empty).
	offs  []int64
	known bool
	// units are, per offset, the location FullUnroll will make of the
	// tensor for that instance (its block index; 0 for a tensor of one
	// location), -1 when it cannot be told (a physical access to a block
	// tensor's template location).
	units []int64
	// dynamic names the DynamicForLoop/DoWhile enclosing a symbolic access
	// (FullUnroll cannot unroll it), "" when none.
	dynamic string
	// indexed are the dims a loop axis moves the access along (symbolic
	// accesses: the digits of each axis coefficient over the shape).
	indexed []bool
}

// sym reports whether the access is symbolic (FullUnroll must unroll its
// loops before the cut, vn_splitter or shrink_ml can apply to it).
func (a *access) sym() bool { return a.kind == bir.OpdSymAP }

// accesses lists the accesses of tensor t in program order: the use
// index lists each location's uses and the tensor-level uses in program
// order, one list after the other; flatten's numbering merges them (by
// instruction, then operand).
func (fs *funcState) accesses(t bir.TensorID) []access {
	f, m := fs.f, fs.m
	ts := f.Tensor(t)
	u := f.Uses()
	first := bir.NoLoc
	for _, l := range ts.Locs {
		if !f.Loc(l).Dead && f.Loc(l).Type.IsOnChip() {
			first = l
			break
		}
	}
	var out []access
	add := func(x bir.Use, loc bir.LocID) {
		o := f.Operands(x.Inst)[x.Operand]
		a := access{inst: x.Inst, opd: int(x.Operand), out: x.Out, kind: o.Kind, loc: loc, pat: m.Pattern(o.Pattern), dtype: o.Dtype, dsize: o.Dtype.Size()}
		switch o.Kind {
		case bir.OpdPhysAP:
			a.offs, a.known = []int64{o.Offset}, true
			unit := int64(0)
			switch {
			case len(ts.Locs) > 1:
				unit = f.Loc(loc).TensorIdx
			case ts.IsBlock && ts.NBlocks > 1:
				unit = -1 // the template named physically: which block is not said
			}
			a.units = []int64{unit}
		case bir.OpdSymAP:
			fs.enumerate(&a, o, ts)
		}
		out = append(out, a)
	}
	for _, l := range ts.Locs {
		for _, x := range u.Loc(l) {
			add(x, l)
		}
	}
	for _, x := range u.Tensor(t) {
		add(x, first)
	}
	if len(ts.Locs) > 1 || len(u.Tensor(t)) > 0 {
		pos := fs.flatten()
		slices.SortStableFunc(out, func(a, b access) int {
			if c := cmp.Compare(pos[a.inst], pos[b.inst]); c != 0 {
				return c
			}
			return cmp.Compare(a.opd, b.opd)
		})
	}
	return out
}

// flatten is the seed's flatten for the function: the program-order index
// of every instruction (footprint.Flatten), computed on first use.
func (fs *funcState) flatten() []int32 {
	if fs.pos == nil {
		fs.pos, _ = footprint.Flatten(fs.f, nil)
	}
	return fs.pos
}

// enumerate fills the offsets of a symbolic access: its offset expression
// evaluated at every iteration of the enclosing loops whose axes it (or
// its instruction's predicate) names, skipping the iterations where the
// predicate is false.
func (fs *funcState) enumerate(a *access, o bir.Operand, ts *bir.Tensor) {
	f, m := fs.f, fs.m
	shape := ts.Shape
	expr := m.Expr(o.OffsetExpr())
	blockExpr := m.Expr(o.BlockExpr())
	blocks := ts.IsBlock && ts.NBlocks > 1
	pred := m.Pred(f.Inst(a.inst).Pred)
	a.indexed = indexedDims(expr, shape)
	for _, l := range f.Loopnest(a.inst) {
		if op := f.Inst(l).Op; op != bir.OpLoop {
			a.dynamic = fmt.Sprintf("%s %s", f.OpName(l), f.InstName(l))
		}
	}
	axes := expr.Axes(nil)
	if blocks {
		axes = blockExpr.Axes(axes)
	}
	for _, c := range pred.Cons {
		axes = c.Expr.Axes(axes)
	}
	slices.Sort(axes)
	axes = slices.Compact(axes)
	type rng struct {
		ax         affine.Axis
		lb, stride int64
		n          int64
	}
	rs := make([]rng, 0, len(axes))
	total := int64(1)
	for _, ax := range axes {
		if int(ax) < 0 || int(ax) >= m.NumAxes() {
			return
		}
		info := m.Axis(ax)
		if info.Loop == bir.NoInst || int(info.Loop) >= f.NumInstSlots() || f.Inst(info.Loop).Op != bir.OpLoop {
			return // a dynamic or free axis: not enumerable
		}
		n := info.TripCount()
		if n == 0 {
			a.known = true // the access never executes
			return
		}
		if total > fs.lz.opt.MaxAccessPoints/n {
			return
		}
		total *= n
		rs = append(rs, rng{ax, info.Lb, info.Stride, n})
	}
	var env affine.Values
	idx := make([]int64, len(rs))
	for k := range rs {
		env.Bind(rs[k].ax, rs[k].lb)
	}
	offs := make([]int64, 0, total)
	units := make([]int64, 0, total)
	for {
		run := true
		if !pred.IsTrue() {
			if ok, err := pred.Eval(&env); err == nil && !ok {
				run = false
			}
		}
		if run {
			v, err := expr.Eval(&env)
			if err != nil {
				return
			}
			offs = append(offs, v)
			unit := int64(0)
			if blocks {
				if unit, err = blockExpr.Eval(&env); err != nil || unit < 0 || unit >= ts.NBlocks {
					unit = -1
				}
			}
			units = append(units, unit)
		}
		// Odometer over the axes, innermost last.
		k := len(rs) - 1
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < rs[k].n {
				env.Bind(rs[k].ax, rs[k].lb+idx[k]*rs[k].stride)
				break
			}
			idx[k] = 0
			env.Bind(rs[k].ax, rs[k].lb)
		}
		if k < 0 {
			break
		}
	}
	a.offs, a.units, a.known = offs, units, true
}

// indexedDims returns the dims of a row-major shape that some plain axis
// term of expr moves along (the seed's loop axes of a symbolic access).
func indexedDims(expr affine.Expr, shape []int64) []bool {
	out := make([]bool, len(shape))
	for _, t := range expr.Terms {
		if t.Atom.Kind != affine.AtomAxis {
			continue
		}
		c := t.Coeff
		if c < 0 {
			c = -c
		}
		for d := range shape {
			if digit(c, shape, d) != 0 {
				out[d] = true
			}
		}
	}
	return out
}

// digit is the row-major digit of linear index x along dim d.
func digit(x int64, shape []int64, d int) int64 {
	stride := int64(1)
	for k := d + 1; k < len(shape); k++ {
		stride *= shape[k]
	}
	if stride <= 0 || shape[d] <= 0 {
		return 0
	}
	return (x / stride) % shape[d]
}

// movers counts the pairs of pat that move along dim d (the pairs whose
// step has a non-zero digit along d, as FullUnroll's cut decomposes it).
func movers(pat bir.Pattern, shape []int64, d int) int {
	n := 0
	for _, q := range pat {
		if q.Num <= 1 {
			continue
		}
		s := q.Step
		if s < 0 {
			s = -s
		}
		if digit(s, shape, d) != 0 {
			n++
		}
	}
	return n
}
