// LowerDynamicExprs: DynamicForLoop and DoWhile in register form (seed 003:
// unrollInst's cases 106 and 108, "emit InstRegisterMove / InstRegisterAlu
// for the induction var; LowerDynamicExprs(inst) — pelican AffineExpr →
// reg expr (sole backend producer of ModuloExpr)").
//
// A loop whose trip count is a run-time value cannot be cloned. Unroll
// keeps it as a loop and rewrites its body so that nothing needs the
// symbolic axis to address memory:
//
//   - The induction variable lives in a register "<loop>_iv": a
//     RegisterMove before the loop sets it to the loop's lower bound
//     (DynamicForLoop ins[0], an immediate or register; a DoWhile counts
//     passes from 0, as the interpreter's axis does), and a RegisterAlu
//     "add" at the end of the body's last block advances it by the stride
//     (ins[2], copied into "<loop>_stride" before the loop when it is a
//     register, because the interpreter reads the bounds once at loop
//     entry; a DoWhile adds 1). The register therefore equals the axis
//     value at every instruction of the body.
//   - An element offset that is an affine function of the induction
//     variables of the enclosing dynamic loops, c0 + sum c_k * iv_k, is
//     computed into a register at the start of the innermost such loop's
//     first body block (RegisterMove / RegisterAlu mult and add; one
//     register per distinct expression and loop, "<loop>_e<n>"), and the
//     symbolic access pattern becomes a register access pattern on the
//     same tensor (bir.OpdRegAP: element offset = the register's value).
//     The offset of an access of a non-zero block of a block tensor, and an
//     offset with floordiv/mod atoms (the registers' truncating division
//     differs from floored division on negative values), stay symbolic.
//   - A symbolic immediate over the induction variables becomes a register
//     operand holding its value, computed the same way.
//   - A block index over an induction variable is the ring index of a
//     rotating buffer: it is rewritten "b mod NBlocks" (affine.Mod, the
//     seeds' ModuloExpr), which equals b wherever the original index was
//     in range, and stays symbolic (AddressRotation, later, picks the
//     physical slot).
//
// Registers: registers are 64 bits in the interpreter; the hardware's are
// 32 bits (semantics.md §4.15), which bounds the offsets this form can
// address (2^31 elements). The register instructions are EngUnassigned
// (engine assignment places them with their users). Predicates over the
// induction variable and dependencies carried by the loop are kept as
// they are (the interpreter and the scheduler evaluate them).
package unroll

import (
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// dynCtx is one enclosing dynamic loop during the lowering.
type dynCtx struct {
	loop   bir.InstID
	name   string
	axis   affine.Axis
	iv     bir.RegID
	exprs  map[string]bir.RegID // expression key -> register
	prolog []bir.InstID         // instructions computing the registers
}

type lowerer struct {
	f       *bir.Function
	m       *bir.Module
	stack   []*dynCtx
	regs    map[string]bool
	replace []blockReplace
	loops   int
	insts   int
	opAttrs map[string]bir.AttrID
	origin  bir.InstID // the loop whose register code move and alu emit: its source position
}

// LowerDynamicExprs rewrites every DynamicForLoop and DoWhile of f into
// register form (see the file comment). It returns the number of loops
// lowered and of register instructions created.
func LowerDynamicExprs(f *bir.Function) (loops, insts int, err error) {
	hasDyn := false
	f.Walk(func(i bir.InstID) bool {
		if op := f.Inst(i).Op; op == bir.OpDynamicForLoop || op == bir.OpDoWhile {
			hasDyn = true
			return false
		}
		return true
	})
	if !hasDyn {
		return 0, 0, nil
	}
	lw := &lowerer{f: f, m: f.Module(), regs: map[string]bool{}, opAttrs: map[string]bir.AttrID{}}
	for r := 0; r < f.NumRegs(); r++ {
		lw.regs[f.Reg(bir.RegID(r)).Name] = true
	}
	for _, b := range append([]bir.BlockID(nil), f.Top...) {
		list, err := lw.block(f.Block(b).Insts)
		if err != nil {
			return 0, 0, err
		}
		lw.replace = append(lw.replace, blockReplace{b, list})
	}
	for _, r := range lw.replace {
		f.ReplaceBlockInsts(r.b, r.list)
	}
	return lw.loops, lw.insts, nil
}

func (lw *lowerer) newReg(base string) bir.RegID {
	name := base
	for k := 1; lw.regs[name]; k++ {
		name = base + "_" + strconv.Itoa(k)
	}
	lw.regs[name] = true
	return lw.f.RegByName(name)
}

func (lw *lowerer) attrs(op string) bir.AttrID {
	if id, ok := lw.opAttrs[op]; ok {
		return id
	}
	id := lw.m.InternAttrs(bir.Attrs("op", op))
	lw.opAttrs[op] = id
	return id
}

// uniqueName returns an instruction name derived from base that no live
// instruction has.
func (lw *lowerer) uniqueName(base string) string {
	if _, taken := lw.f.InstByName(base); !taken {
		return base
	}
	for k := 1; ; k++ {
		n := base + "_" + strconv.Itoa(k)
		if _, taken := lw.f.InstByName(n); !taken {
			return n
		}
	}
}

func (lw *lowerer) move(name string, dst bir.RegID, src bir.Operand) bir.InstID {
	lw.insts++
	id := lw.f.NewInst(bir.OpRegisterMove, lw.uniqueName(name), bir.EngUnassigned,
		[]bir.Operand{src}, []bir.Operand{bir.RegOpd(dst, bir.Int32)}, nil)
	lw.f.InheritPos(id, lw.origin)
	return id
}

func (lw *lowerer) alu(name, op string, dst bir.RegID, a, b bir.Operand) bir.InstID {
	lw.insts++
	id := lw.f.NewInst(bir.OpRegisterAlu, lw.uniqueName(name), bir.EngUnassigned,
		[]bir.Operand{a, b}, []bir.Operand{bir.RegOpd(dst, bir.Int32)}, nil)
	lw.f.Inst(id).Attrs = lw.attrs(op)
	lw.f.InheritPos(id, lw.origin)
	return id
}

// block lowers one block's list and returns the new list.
func (lw *lowerer) block(list []bir.InstID) ([]bir.InstID, error) {
	out := make([]bir.InstID, 0, len(list))
	for _, i := range list {
		in := lw.f.Inst(i)
		switch in.Op {
		case bir.OpDynamicForLoop, bir.OpDoWhile:
			pre, err := lw.loop(i)
			if err != nil {
				return nil, err
			}
			out = append(out, pre...)
			out = append(out, i)
			continue
		case bir.OpLoop:
			// A static loop left by a caller that does not expand it: its
			// body may still use enclosing dynamic axes.
			for _, bb := range lw.f.Loop(i).Body {
				nl, err := lw.block(lw.f.Block(bb).Insts)
				if err != nil {
					return nil, err
				}
				lw.replace = append(lw.replace, blockReplace{bb, nl})
			}
			out = append(out, i)
			continue
		}
		if len(lw.stack) > 0 {
			if err := lw.inst(i); err != nil {
				return nil, err
			}
		}
		out = append(out, i)
	}
	return out, nil
}

// loop lowers dynamic loop i; it returns the instructions to place before
// the loop.
func (lw *lowerer) loop(i bir.InstID) ([]bir.InstID, error) {
	f := lw.f
	name := f.InstName(i)
	lp := f.Loop(i)
	ax := lw.m.Axis(lp.Axis)
	ctx := &dynCtx{loop: i, name: name, axis: lp.Axis, exprs: map[string]bir.RegID{}}
	ctx.iv = lw.newReg(name + "_iv")
	lw.origin = i
	var pre []bir.InstID
	var step bir.Operand
	ins := f.Ins(i)
	switch {
	case f.Inst(i).Op == bir.OpDoWhile:
		pre = append(pre, lw.move(name+"_iv_init", ctx.iv, bir.ImmI(0, bir.Int32)))
		step = bir.ImmI(1, bir.Int32)
	case len(ins) == 3:
		lb, st := ins[0], ins[2]
		if lb.Kind != bir.OpdImm && lb.Kind != bir.OpdRegister {
			return nil, f.Errorf(i, "lower bound is a %s; want an immediate or a register after unrolling", lb.Kind)
		}
		if st.Kind != bir.OpdImm && st.Kind != bir.OpdRegister {
			return nil, f.Errorf(i, "stride is a %s; want an immediate or a register after unrolling", st.Kind)
		}
		pre = append(pre, lw.move(name+"_iv_init", ctx.iv, lb))
		step = st
		if st.Kind == bir.OpdRegister {
			sr := lw.newReg(name + "_stride")
			pre = append(pre, lw.move(name+"_stride_init", sr, st))
			step = bir.RegOpd(sr, bir.Int32)
		}
	case len(ins) == 0:
		pre = append(pre, lw.move(name+"_iv_init", ctx.iv, bir.ImmI(ax.Lb, bir.Int32)))
		step = bir.ImmI(ax.Stride, bir.Int32)
	default:
		return nil, f.Errorf(i, "DynamicForLoop has %d source operands; want [lb, ub, stride] or none", len(ins))
	}
	lw.stack = append(lw.stack, ctx)
	body := lp.Body
	lists := make([][]bir.InstID, len(body))
	for k, bb := range body {
		nl, err := lw.block(f.Block(bb).Insts)
		if err != nil {
			return nil, err
		}
		lists[k] = nl
	}
	lw.stack = lw.stack[:len(lw.stack)-1]
	if len(body) == 0 {
		// A loop without a body block: give it one for the increment.
		nb := f.NewBlock(name+"_body", i)
		body = []bir.BlockID{nb}
		lists = [][]bir.InstID{nil}
	}
	lists[0] = append(append([]bir.InstID(nil), ctx.prolog...), lists[0]...)
	last := len(lists) - 1
	lw.origin = i
	lists[last] = append(lists[last], lw.alu(name+"_iv_next", "add", ctx.iv, bir.RegOpd(ctx.iv, bir.Int32), step))
	for k, bb := range body {
		lw.replace = append(lw.replace, blockReplace{bb, lists[k]})
	}
	lw.loops++
	return pre, nil
}

// dynAxis returns the context of the dynamic loop that owns axis a.
func (lw *lowerer) dynAxis(a affine.Axis) *dynCtx {
	for _, c := range lw.stack {
		if c.axis == a {
			return c
		}
	}
	return nil
}

// linearDyn reports whether e is c0 + sum c_k*a_k over dynamic axes only.
func (lw *lowerer) linearDyn(e affine.Expr) bool {
	for _, t := range e.Terms {
		if t.Atom.Kind != affine.AtomAxis || lw.dynAxis(t.Atom.Axis) == nil {
			return false
		}
	}
	return true
}

func (lw *lowerer) usesDyn(e affine.Expr) bool {
	for _, a := range e.Axes(nil) {
		if lw.dynAxis(a) != nil {
			return true
		}
	}
	return false
}

// exprReg returns a register holding the value of the linear expression e
// at the current point of the innermost dynamic loop, emitting its
// computation into that loop's prolog on first use.
func (lw *lowerer) exprReg(e affine.Expr) bir.RegID {
	ctx := lw.stack[len(lw.stack)-1]
	if e.Const == 0 && len(e.Terms) == 1 && e.Terms[0].Coeff == 1 {
		return lw.dynAxis(e.Terms[0].Atom.Axis).iv
	}
	key := e.Key()
	if r, ok := ctx.exprs[key]; ok {
		return r
	}
	r := lw.newReg(ctx.name + "_e" + strconv.Itoa(len(ctx.exprs)))
	ctx.exprs[key] = r
	lw.origin = ctx.loop
	base := lw.f.Reg(r).Name
	var tmp bir.RegID = -1
	for k, t := range e.Terms {
		iv := lw.dynAxis(t.Atom.Axis).iv
		dst := r
		if k > 0 {
			if tmp < 0 {
				tmp = lw.newReg(ctx.name + "_tmp")
			}
			dst = tmp
		}
		var id bir.InstID
		if t.Coeff == 1 {
			id = lw.move(base+"_t"+strconv.Itoa(k), dst, bir.RegOpd(iv, bir.Int32))
		} else {
			id = lw.alu(base+"_t"+strconv.Itoa(k), "mult", dst, bir.RegOpd(iv, bir.Int32), bir.ImmI(t.Coeff, bir.Int32))
		}
		ctx.prolog = append(ctx.prolog, id)
		if k > 0 {
			ctx.prolog = append(ctx.prolog, lw.alu(base+"_s"+strconv.Itoa(k), "add", r, bir.RegOpd(r, bir.Int32), bir.RegOpd(tmp, bir.Int32)))
		}
	}
	if e.Const != 0 {
		ctx.prolog = append(ctx.prolog, lw.alu(base+"_c", "add", r, bir.RegOpd(r, bir.Int32), bir.ImmI(e.Const, bir.Int32)))
	}
	return r
}

// inst rewrites the operands of instruction i inside dynamic loops.
func (lw *lowerer) inst(i bir.InstID) error {
	f, m := lw.f, lw.m
	for k, o := range f.Operands(i) {
		switch o.Kind {
		case bir.OpdSymAP:
			be, oe := m.Expr(o.Expr), m.Expr(o.OffsetExpr())
			ts := f.Tensor(o.TensorRef())
			if lw.usesDyn(be) {
				if !ts.IsBlock {
					return f.Errorf(i, "operand %d: block index %s of %s, which is not a block tensor", k, be.Format(m.AxisName), ts.Name)
				}
				nb := max(ts.NBlocks, 1)
				if !isRing(be, nb) {
					o.Expr = m.InternExpr(affine.Mod(be, nb))
					f.SetOperand(i, k, o)
				}
				continue
			}
			if !lw.usesDyn(oe) || !lw.linearDyn(oe) || !be.IsConst() {
				continue
			}
			if ts.IsBlock && be.Const != 0 {
				continue
			}
			r := lw.exprReg(oe)
			n := bir.Operand{Kind: bir.OpdRegAP, Ref: o.Ref, Expr: bir.ExprID(r), Dtype: o.Dtype, Pattern: o.Pattern, Extra: o.Extra, Flags: o.Flags}
			f.SetOperand(i, k, n)
		case bir.OpdSymImm:
			e := m.Expr(o.Expr)
			if !lw.usesDyn(e) || !lw.linearDyn(e) {
				continue
			}
			r := lw.exprReg(e)
			f.SetOperand(i, k, bir.RegOpd(r, o.Dtype))
		}
	}
	return nil
}

// isRing reports whether e is already "x mod n".
func isRing(e affine.Expr, n int64) bool {
	return e.Const == 0 && len(e.Terms) == 1 && e.Terms[0].Coeff == 1 && e.Terms[0].Atom.Kind == affine.AtomMod && e.Terms[0].Atom.Div == n
}
