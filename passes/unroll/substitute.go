// Per-iteration substitution of operands (the seeds' unroll_arg and
// genPhyAP, seed 003) and the re-creation of kept loops.
//
//   - A symbolic access pattern (tensor, block-index expression,
//     element-offset expression, [step, num] pairs) becomes a physical one:
//     block b and offset o are evaluated for the iteration, the location is
//     the one that holds block b after the pass (the per-block tensor of
//     Unroll's grid, the "_sub<b>" location of FullUnroll, the tensor's only
//     location for a non-block tensor), and the pairs are kept. The
//     symbolic-only unknown fields ("addrs", "access_shape") are dropped from
//     the operand's verbatim extras; everything else is kept. The access is
//     checked against the location's size, so an out-of-range index is
//     reported with the iteration that produced it.
//   - A symbolic immediate becomes an immediate (symImmValue).
//   - Where an expression keeps an axis that is not unrolled (the body of a
//     kept DynamicForLoop / DoWhile, or a static loop the caller did not
//     select), the expression is partially evaluated instead and the operand
//     stays symbolic (with the axis renamed when its loop was re-created).
package unroll

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// symOnlyKeys are unknown-field keys meaningful only on a symbolic AP.
var symOnlyKeys = []string{"addrs", "access_shape"}

// cleanExtra drops the symbolic-only keys from an operand's extras.
func (c *cloner) cleanExtra(id bir.AttrID) bir.AttrID {
	if id == 0 {
		return 0
	}
	if v, ok := c.extraMap[id]; ok {
		return v
	}
	a := c.m.Attrs(id)
	for _, k := range symOnlyKeys {
		if a.Has(k) {
			a = a.Without(k)
		}
	}
	nid := c.m.InternAttrs(a)
	if c.extraMap == nil {
		c.extraMap = map[bir.AttrID]bir.AttrID{}
	}
	c.extraMap[id] = nid
	return nid
}

// patternRange returns the smallest and largest element index a pattern
// reaches relative to its offset (cached per pattern).
func (c *cloner) patternRange(id bir.PatternID) (int64, int64) {
	if int(id) < len(c.patRange) {
		if r := c.patRange[id]; r[0] <= r[1] {
			return r[0], r[1]
		}
	} else {
		n := max(c.m.NumPatterns(), int(id)+1)
		for len(c.patRange) < n {
			c.patRange = append(c.patRange, [2]int64{1, 0})
		}
	}
	var lo, hi int64
	for _, q := range c.m.Pattern(id) {
		if q.Num <= 0 {
			continue
		}
		d := q.Step * (q.Num - 1)
		if d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	c.patRange[id] = [2]int64{lo, hi}
	return lo, hi
}

// physAP builds the physical AP for block b, offset off of a symbolic
// operand o of instruction orig (operand k).
func (c *cloner) physAP(orig bir.InstID, k int, o bir.Operand, b, off int64) (bir.Operand, error) {
	t := o.TensorRef()
	loc, err := c.cfg.locFor(t, b)
	if err != nil {
		return o, c.errAt(orig, "operand %d: %v", k, err)
	}
	lc := c.f.Loc(loc)
	if lc.RawDims == nil && o.Dtype.Size() > 0 {
		total := lc.Partitions * lc.Bytes / o.Dtype.Size()
		lo, hi := c.patternRange(o.Pattern)
		if off+lo < 0 || off+hi >= total {
			return o, c.errAt(orig, "operand %d: block %d of %s at element offset %d reaches elements [%d, %d] of location %s, which has %d %s elements",
				k, b, c.f.Tensor(t).Name, off, off+lo, off+hi, lc.Name, total, o.Dtype)
		}
	}
	n := bir.PhysAP(loc, o.Dtype, off, o.Pattern)
	n.Extra = c.cleanExtra(o.Extra)
	n.Flags = o.Flags
	return n, nil
}

// foldFast rewrites symbolic operand so of clone cl (all axes bound).
func (c *cloner) foldFast(cl, orig bir.InstID, so *symOp) error {
	o := c.f.Operands(cl)[so.k]
	vals := c.env.vals
	if so.expr != nil {
		c.f.SetOperand(cl, so.k, symImmValue(o, so.expr.eval(vals)))
		return nil
	}
	n, err := c.physAP(orig, so.k, o, so.block.eval(vals), so.off.eval(vals))
	if err != nil {
		return err
	}
	c.f.SetOperand(cl, so.k, n)
	return nil
}

// foldSlow rewrites symbolic operand so of instruction cl by partial
// evaluation: a constant result is folded as in foldFast, a residual one
// stays symbolic with the new expressions.
func (c *cloner) foldSlow(cl, orig bir.InstID, so *symOp) error {
	o := c.f.Operands(cl)[so.k]
	if so.expr != nil {
		e := c.env.substExpr(c.m.Expr(o.Expr))
		if e.IsConst() {
			c.f.SetOperand(cl, so.k, symImmValue(o, e.Const))
			return nil
		}
		o.Expr = c.m.InternExpr(e)
		c.f.SetOperand(cl, so.k, o)
		return nil
	}
	be := c.env.substExpr(c.m.Expr(o.Expr))
	oe := c.env.substExpr(c.m.Expr(o.OffsetExpr()))
	n, err := c.residualSym(orig, so.k, o, be, oe)
	if err != nil {
		return err
	}
	c.f.SetOperand(cl, so.k, n)
	return nil
}

// residualSym rebuilds a symbolic AP whose block and offset expressions
// are be and oe after substitution: physical when both are constant;
// otherwise still symbolic, on the per-block tensor when the block is known
// and Unroll's grid gave it a tensor of its own.
func (c *cloner) residualSym(orig bir.InstID, k int, o bir.Operand, be, oe affine.Expr) (bir.Operand, error) {
	if be.IsConst() && oe.IsConst() {
		return c.physAP(orig, k, o, be.Const, oe.Const)
	}
	if be.IsConst() {
		loc, err := c.cfg.locFor(o.TensorRef(), be.Const)
		if err != nil {
			return o, c.errAt(orig, "operand %d: %v", k, err)
		}
		if t2 := c.f.Loc(loc).Tensor; t2 != o.TensorRef() && !c.f.Tensor(t2).IsBlock {
			o.Ref = int32(t2)
			be = affine.Const(0)
		}
	}
	o.Expr = c.m.InternExpr(be)
	o.Offset = int64(c.m.InternExpr(oe))
	return o, nil
}

// foldInPlace folds the constant symbolic operands of an instruction that
// is not cloned (outside every expanded loop). Operands over the axes of
// kept loops stay symbolic.
func (c *cloner) foldInPlace(i bir.InstID, p *instPlan) error {
	for k := range p.sym {
		so := &p.sym[k]
		o := c.f.Operands(i)[so.k]
		if so.expr != nil {
			if !so.expr.isConst() {
				continue
			}
			c.f.SetOperand(i, so.k, symImmValue(o, so.expr.c))
			continue
		}
		if !so.block.isConst() {
			continue // indexed by a kept loop's axis: resolved at run time
		}
		n, err := c.residualSym(i, so.k, o, c.m.Expr(o.Expr), c.m.Expr(o.OffsetExpr()))
		if err != nil {
			return err
		}
		c.f.SetOperand(i, so.k, n)
	}
	if pr := c.f.Inst(i).Pred; pr != 0 && p.pred != nil && len(p.pred.axes) == 0 {
		// A constant predicate outside every loop: decided now.
		if p.pred.eval(c.env.vals) {
			c.f.Inst(i).Pred = 0
		}
	}
	return nil
}

// symImmValue turns symbolic immediate o, whose expression evaluated to v
// for the iteration, into the integer immediate v. This is the
// interpreter's convention (interp: symImm evaluates the expression; the
// value_list is a table of per-iteration values kept for the original
// compiler and not needed once the expression is known), so the folded
// instruction computes exactly what the symbolic one did. The operand's
// verbatim extras are kept.
func symImmValue(o bir.Operand, v int64) bir.Operand {
	n := bir.ImmI(v, o.Dtype)
	n.Extra = o.Extra
	return n
}

// keptLoop handles a loop that is not expanded: kept in place when it is
// outside every expanded loop, re-created with a fresh axis otherwise.
func (c *cloner) keptLoop(i bir.InstID, li int32, out []bir.InstID) ([]bir.InstID, error) {
	f := c.f
	lr := c.loops[li]
	p := c.plans[i]
	if !c.inExpansion() {
		if err := c.foldLoopOperands(i, i); err != nil {
			return nil, err
		}
		for _, bb := range lr.body {
			list, err := c.expandList(c.origs[bb], make([]bir.InstID, 0, len(c.origs[bb])))
			if err != nil {
				return nil, err
			}
			c.replace = append(c.replace, blockReplace{bb, list})
		}
		c.record(i, i, p)
		if c.cfg.remapDeps {
			if err := c.remapInPlace(i, p); err != nil {
				return nil, err
			}
		}
		return append(out, i), nil
	}
	// Predicate of the loop instruction itself.
	newPred := bir.PredID(0)
	if pr := f.Inst(i).Pred; pr != 0 {
		pp := c.env.substPred(c.m.Pred(pr))
		if pp.False {
			c.record(i, bir.NoInst, p)
			c.markSkipped(li)
			return out, nil
		}
		newPred = c.m.InternPred(pp)
	}
	old := c.m.Axis(lr.axis)
	axName, extra := old.Name, old.Extra
	op := f.Inst(i).Op
	nl, nax := f.NewLoop(op, c.suffixed(f.InstName(i)), axName, old.Lb, old.Ub, old.Stride)
	c.m.Axis(nax).Extra = extra
	src := f.Inst(i)
	dst := f.Inst(nl)
	dst.Engine, dst.Attrs, dst.Pred, dst.Pos = src.Engine, src.Attrs, newPred, src.Pos
	ins := append([]bir.Operand(nil), f.Ins(i)...)
	outs := append([]bir.Operand(nil), f.Outs(i)...)
	f.SetArgs(nl, ins, outs)
	if err := c.foldLoopOperands(i, nl); err != nil {
		return nil, err
	}
	c.env.grow(c.m.NumAxes())
	c.env.rename[lr.axis] = nax
	c.renames++
	for _, bb := range lr.body {
		ob := f.Block(bb)
		name, bextra := ob.Name, ob.Extra
		nb := f.NewBlock(c.suffixed(name), nl)
		f.Block(nb).Extra = bextra
		list, err := c.expandList(c.origs[bb], nil)
		if err != nil {
			return nil, err
		}
		c.replace = append(c.replace, blockReplace{nb, list})
	}
	c.renames--
	c.env.rename[lr.axis] = -1
	c.record(i, nl, p)
	if c.cfg.remapDeps && len(p.deps) > 0 {
		if err := c.remapClone(i, nl, p); err != nil {
			return nil, err
		}
	}
	return append(out, nl), nil
}

// foldLoopOperands folds the symbolic operands of a kept loop instruction
// (a DynamicForLoop's [lb, ub, stride] may be symbolic immediates over
// outer axes) onto instruction dst.
func (c *cloner) foldLoopOperands(orig, dst bir.InstID) error {
	for k, o := range c.f.Operands(orig) {
		if o.Kind != bir.OpdSymImm {
			continue
		}
		e := c.env.substExpr(c.m.Expr(o.Expr))
		if !e.IsConst() {
			if orig != dst {
				o.Expr = c.m.InternExpr(e)
				c.f.SetOperand(dst, k, o)
			}
			continue
		}
		c.f.SetOperand(dst, k, symImmValue(o, e.Const))
	}
	return nil
}

// errAxis names an axis for messages.
func (c *cloner) axisName(a affine.Axis) string {
	if int(a) >= 0 && int(a) < c.m.NumAxes() {
		return c.m.AxisName(a)
	}
	return fmt.Sprintf("#%d", a)
}
