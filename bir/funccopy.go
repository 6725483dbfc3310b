// Copying a function between modules (CopyFunction), as TranslateNKIASTToBIR's
// BIR-JSON path (passes/translate) does: a kernel's BIR-JSON file is loaded as a module
// of its own, and the function for this core must move into the module
// being compiled. A function's tables hold function-local ids (tensors,
// locations, instructions, blocks, loops, registers, dependency links),
// which stay valid as they are, and module-level ids (symbols, interned
// patterns, attribute sets, affine expressions and predicates, loop axes,
// module-local unknown opcodes, source positions), which belong to the source module's intern
// tables and are re-interned in the destination.
//
// The copy keeps every id of the function (dead entries included), so
// anything that named an instruction, tensor or location of the source
// names the same one in the copy. Loop axes get fresh axes in the
// destination (owned by the copy's loops); affine expressions and
// predicates are rewritten onto them. An axis an expression names that no
// loop of the function owns (a free symbolic variable) is copied once as
// well.
package bir

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// CopyFunction copies src (of any module) into dst as a new function named
// name (src.Name when empty), with its schedule and synchronization
// tables. It fails when the name is taken in dst.
func CopyFunction(dst *Module, src *Function, name string) (*Function, error) {
	if name == "" {
		name = src.Name
	}
	f, err := dst.NewFunction(name)
	if err != nil {
		return nil, err
	}
	sm := src.m
	c := &funcCopier{dst: dst, src: src, f: f, axes: map[affine.Axis]affine.Axis{},
		exprs: map[ExprID]ExprID{}, preds: map[PredID]PredID{}, attrs: map[AttrID]AttrID{}, pats: map[PatternID]PatternID{}}

	f.Kind = src.Kind
	f.Attributes = slices.Clone(src.Attributes)
	f.Extra = src.Extra

	// Loops first: their axes are owned by the copy.
	f.loops = make([]LoopInfo, len(src.loops))
	for i, li := range src.loops {
		info := *sm.Axis(li.Axis)
		info.Func = f.index
		c.axes[li.Axis] = dst.NewAxis(info)
		f.loops[i] = LoopInfo{Axis: c.axes[li.Axis], Body: slices.Clone(li.Body)}
	}

	f.tensors = make([]Tensor, len(src.tensors))
	for i, t := range src.tensors {
		t.Shape = slices.Clone(t.Shape)
		t.Locs = slices.Clone(t.Locs)
		t.SplitShape = slices.Clone(t.SplitShape)
		f.tensors[i] = t
		if !t.Dead {
			f.tensorByName[t.Name] = TensorID(i)
		}
	}
	f.locs = make([]MemLoc, len(src.locs))
	for i, l := range src.locs {
		l.RawDims = slices.Clone(l.RawDims)
		f.locs[i] = l
		if !l.Dead {
			f.locByName[l.Name] = LocID(i)
		}
	}
	f.regs = slices.Clone(src.regs)
	for i, r := range f.regs {
		f.regByName[r.Name] = RegID(i)
	}

	f.insts = make([]Instruction, len(src.insts))
	for i, in := range src.insts {
		in.Name = dst.NewSymBytes(sm.StrBytes(in.Name))
		in.Attrs = c.attr(in.Attrs)
		in.Pred = c.pred(in.Pred)
		in.Pos = dst.InternPos(sm.Pos(in.Pos))
		if in.Op >= FirstUnknownOpcode {
			in.Op = dst.UnknownOpcode(sm.OpName(in.Op))
		}
		f.insts[i] = in
	}
	f.operands = make([]Operand, len(src.operands))
	for i, o := range src.operands {
		o.Extra = c.attr(o.Extra)
		switch o.Kind {
		case OpdPhysAP, OpdRegAP:
			o.Pattern = c.pat(o.Pattern)
		case OpdSymAP:
			o.Pattern = c.pat(o.Pattern)
			o.Expr = c.expr(o.Expr)
			o.Offset = int64(c.expr(ExprID(o.Offset)))
		case OpdImmArray:
			o.Ref = int32(c.attr(AttrID(o.Ref)))
		case OpdSymImm:
			o.Ref = int32(c.attr(AttrID(o.Ref)))
			o.Expr = c.expr(o.Expr)
		}
		f.operands[i] = o
	}
	f.deps = make([]Dep, len(src.deps))
	for i, d := range src.deps {
		if d.CarryAxis != NoAxis {
			d.CarryAxis = c.axis(d.CarryAxis)
		}
		d.Pred = c.pred(d.Pred)
		f.deps[i] = d
	}
	f.blocks = make([]Block, len(src.blocks))
	for i, b := range src.blocks {
		b.Insts = slices.Clone(b.Insts)
		f.blocks[i] = b
	}
	f.Top = slices.Clone(src.Top)
	// The side tables index instructions, which keep their ids; the
	// iteration terms of waits are expressions, re-interned.
	if t := src.Sched; t != nil {
		f.Sched = &Schedule{Start: slices.Clone(t.Start), End: slices.Clone(t.End), Queue: slices.Clone(t.Queue), DGE: slices.Clone(t.DGE), Order: slices.Clone(t.Order)}
		for i, p := range t.Period {
			f.Sched.SetPeriod(i, p)
		}
	}
	if s := src.Sync; s != nil {
		f.Sync = s.Clone()
		for k, e := range f.Sync.iters {
			f.Sync.iters[k] = c.expr(e)
		}
	}
	if c.err != nil {
		dst.RemoveFunction(f)
		return nil, fmt.Errorf("copying function %s: %w", src.Name, c.err)
	}
	f.touch()
	return f, nil
}

type funcCopier struct {
	dst   *Module
	src   *Function
	f     *Function
	axes  map[affine.Axis]affine.Axis
	exprs map[ExprID]ExprID
	preds map[PredID]PredID
	attrs map[AttrID]AttrID
	pats  map[PatternID]PatternID
	err   error
}

func (c *funcCopier) axis(a affine.Axis) affine.Axis {
	if n, ok := c.axes[a]; ok {
		return n
	}
	sm := c.src.m
	if int(a) < 0 || int(a) >= len(sm.axes) {
		if c.err == nil {
			c.err = fmt.Errorf("axis #%d is not in the source module's axis table (%d axes)", a, len(sm.axes))
		}
		return a
	}
	info := sm.axes[a]
	info.Loop, info.Func = NoInst, -1
	n := c.dst.NewAxis(info)
	c.axes[a] = n
	return n
}

func (c *funcCopier) mapExpr(e affine.Expr) affine.Expr {
	if e.IsConst() {
		return e
	}
	acc := affine.Const(e.Const)
	for _, t := range e.Terms {
		var x affine.Expr
		switch t.Atom.Kind {
		case affine.AtomAxis:
			x = affine.Var(c.axis(t.Atom.Axis))
		case affine.AtomFloorDiv:
			x = affine.FloorDiv(c.mapExpr(*t.Atom.Sub), t.Atom.Div)
		default:
			x = affine.Mod(c.mapExpr(*t.Atom.Sub), t.Atom.Div)
		}
		acc = affine.Add(acc, affine.Scale(x, t.Coeff))
	}
	return acc
}

func (c *funcCopier) expr(id ExprID) ExprID {
	if id == 0 {
		return 0
	}
	if n, ok := c.exprs[id]; ok {
		return n
	}
	sm := c.src.m
	if int(id) < 0 || int(id) >= len(sm.exprs) {
		if c.err == nil {
			c.err = fmt.Errorf("expression #%d is not in the source module's table", id)
		}
		return 0
	}
	n := c.dst.InternExpr(c.mapExpr(sm.exprs[id]))
	c.exprs[id] = n
	return n
}

func (c *funcCopier) pred(id PredID) PredID {
	if id == 0 {
		return 0
	}
	if n, ok := c.preds[id]; ok {
		return n
	}
	sm := c.src.m
	if int(id) < 0 || int(id) >= len(sm.preds) {
		if c.err == nil {
			c.err = fmt.Errorf("predicate #%d is not in the source module's table", id)
		}
		return 0
	}
	p := sm.preds[id]
	cons := make([]affine.Constraint, len(p.Cons))
	for i, k := range p.Cons {
		cons[i] = affine.Constraint{Expr: c.mapExpr(k.Expr), Op: k.Op}
	}
	q := affine.And(affine.Pred{Cons: cons, False: p.False})
	n := c.dst.InternPred(q)
	c.preds[id] = n
	return n
}

func (c *funcCopier) attr(id AttrID) AttrID {
	if id == 0 {
		return 0
	}
	if n, ok := c.attrs[id]; ok {
		return n
	}
	sm := c.src.m
	if int(id) < 0 || int(id) >= len(sm.attrs) {
		if c.err == nil {
			c.err = fmt.Errorf("attribute set #%d is not in the source module's table", id)
		}
		return 0
	}
	n := c.dst.InternAttrs(sm.attrs[id])
	c.attrs[id] = n
	return n
}

func (c *funcCopier) pat(id PatternID) PatternID {
	if id == 0 {
		return 0
	}
	if n, ok := c.pats[id]; ok {
		return n
	}
	sm := c.src.m
	if int(id) < 0 || int(id) >= len(sm.patterns) {
		if c.err == nil {
			c.err = fmt.Errorf("pattern #%d is not in the source module's table", id)
		}
		return 0
	}
	n := c.dst.InternPattern(sm.patterns[id])
	c.pats[id] = n
	return n
}

// CopyModule returns a deep copy of m: its header, configuration and
// every function (CopyFunction), in order.
func CopyModule(m *Module) (*Module, error) {
	c := NewModule(m.Arch)
	c.Version, c.NeuronCoreID, c.HasCoreID, c.ArtifactDir = m.Version, m.NeuronCoreID, m.HasCoreID, m.ArtifactDir
	c.Config.MaxInstructionLimit = m.Config.MaxInstructionLimit
	for k, v := range m.Config.Options {
		c.Config.Options[k] = v
	}
	c.ModuleAttrs, c.Extra = slices.Clone(m.ModuleAttrs), slices.Clone(m.Extra)
	for _, f := range m.Funcs {
		if _, err := CopyFunction(c, f, ""); err != nil {
			return nil, err
		}
	}
	return c, nil
}
