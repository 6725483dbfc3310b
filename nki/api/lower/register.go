package lower

// Registers and runtime loops (the current API's nisa.register_alloc /
// register_move / register_load / register_store, nl.dynamic_range and
// `while reg:`; semantics.md §4.15, docs/semantics-choices.md "Loops,
// predicates and calls").
//
// A register is one of the kernel function's BIR registers. A register
// value is a register, or an affine expression of the runtime loops'
// axes (the iterator of a DynamicForLoop is its axis, bound to the
// iteration's value), or a constant: RegValue. Where an instruction needs
// a register operand, an expression is moved into a fresh register first
// (RegisterMove of a symbolic immediate, which FullUnroll's
// LowerDynamicExprs rewrites into register form; the interpreter evaluates
// it under the loop bindings).
//
// A runtime loop is a kept loop (Loop with Dynamic set): a
// DynamicForLoop whose ins are the bounds and the stride (immediates or
// registers, read once at loop entry), or, for `while reg:`, a
// DynamicForLoop of trip (reg != 0) around a DoWhile on reg (the DoWhile
// tests after each pass; the guard gives Python's test before the first).
// Its axis table entry is a placeholder [0, 1): the verifier bounds
// symbolic accesses by the axis table, so a runtime iterator never
// appears in a symbolic access; an access offset by one is a register
// access pattern (RegOffset).

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Register is a kernel register (nisa.register_alloc).
type Register struct {
	ID   bir.RegID
	Name string
}

// RegValue is a register, an affine expression of runtime loop axes, or a
// constant (Reg nil, Expr constant).
type RegValue struct {
	Reg  *Register
	Expr affine.Expr
}

// RegConst returns the constant register value c.
func RegConst(c int64) RegValue { return RegValue{Expr: affine.Const(c)} }

// IsConst reports whether v is a trace-time constant, and its value.
func (v RegValue) IsConst() (int64, bool) {
	if v.Reg == nil && v.Expr.IsConst() {
		return v.Expr.Const, true
	}
	return 0, false
}

// String renders the value for messages.
func (v RegValue) String() string {
	if v.Reg != nil {
		return "register " + v.Reg.Name
	}
	return v.Expr.String()
}

// NewRegister allocates a register (nisa.register_alloc), initialized to
// init when given (a RegisterMove of the immediate).
func (k *Kernel) NewRegister(init *int64) (*Register, error) {
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	k.nregs++
	name := fmt.Sprintf("reg%d", k.nregs)
	r := &Register{ID: k.F.RegByName(name), Name: name}
	if init != nil {
		if err := k.RegMove(r, RegConst(*init)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// regOperand is the operand reading v: the register, an immediate, or a
// symbolic immediate of the runtime axes.
func (k *Kernel) regOperand(v RegValue) bir.Operand {
	if v.Reg != nil {
		return bir.RegOpd(v.Reg.ID, bir.Int32)
	}
	if v.Expr.IsConst() {
		return bir.Operand{Kind: bir.OpdImm, Dtype: bir.Int32, Offset: v.Expr.Const}
	}
	return bir.Operand{Kind: bir.OpdSymImm, Dtype: bir.Int32, Expr: k.M.InternExpr(v.Expr),
		Ref: int32(k.M.InternAttrs(bir.AttrSet{{Key: "value_list", Val: bir.List()}}))}
}

// regInst appends a register instruction (engine Unassigned: engine
// assignment places it with its users, as LowerDynamicExprs' are).
func (k *Kernel) regInst(what string, op bir.Opcode, base string, ins, outs []bir.Operand, attrs bir.AttrSet, reads, writes []Access) error {
	return k.Build(what, reads, writes, func(b *bir.Builder) error {
		b.Inst(op, k.instName(base), bir.EngUnassigned, ins, outs, attrs)
		return nil
	})
}

// RegMove sets dst to src (nisa.register_move; RegisterMove).
func (k *Kernel) RegMove(dst *Register, src RegValue) error {
	return k.regInst("nisa.register_move", bir.OpRegisterMove, "register_move", []bir.Operand{k.regOperand(src)}, []bir.Operand{bir.RegOpd(dst.ID, bir.Int32)}, nil, nil, nil)
}

// RegAlu sets dst = a op b (RegisterAlu with two sources; op an ALU
// operation: add, subtract, mult, not_equal, ...).
func (k *Kernel) RegAlu(what string, dst *Register, op string, a, b RegValue) error {
	return k.regInst(what, bir.OpRegisterAlu, "register_alu", []bir.Operand{k.regOperand(a), k.regOperand(b)},
		[]bir.Operand{bir.RegOpd(dst.ID, bir.Int32)}, bir.Attrs("op", op), nil, nil)
}

// checkScalarAccess requires a one-element access of an integer dtype of
// at most 32 bits (a register's memory side).
func (k *Kernel) checkScalarAccess(what, param string, a Access) error {
	if a.Elems() != 1 {
		return k.Errorf(KindNKI, "%s: %s %s must hold exactly one element (shape [1] or [1, 1]), has shape %s", what, param, a.T.Describe(), shapeString(a.Shape()))
	}
	if a.Dtype.IsFloat() || a.Dtype.Size() > 4 {
		return k.Errorf(KindNKI, "%s: %s %s holds a register's 32-bit integer, not %s", what, param, a.T.Describe(), a.Dtype)
	}
	if a.T.Mem == PSUM {
		return k.Errorf(KindNKI, "%s: %s %s is in PSUM; a register is loaded from and stored to SBUF or HBM", what, param, a.T.Describe())
	}
	return nil
}

// RegLoad loads the one element of src into dst (nisa.register_load;
// TensorLoad).
func (k *Kernel) RegLoad(dst *Register, src Access) error {
	const what = "nisa.register_load"
	if err := k.checkScalarAccess(what, "src", src); err != nil {
		return err
	}
	return k.regInst(what, bir.OpTensorLoad, "register_load", []bir.Operand{k.operand(src)}, []bir.Operand{bir.RegOpd(dst.ID, bir.Int32)}, nil, []Access{src}, nil)
}

// RegStore stores src into the one element of dst (nisa.register_store;
// TensorSave).
func (k *Kernel) RegStore(dst Access, src RegValue) error {
	const what = "nisa.register_store"
	if err := k.checkScalarAccess(what, "dst", dst); err != nil {
		return err
	}
	return k.regInst(what, bir.OpTensorSave, "register_store", []bir.Operand{k.regOperand(src)}, []bir.Operand{k.operand(dst)}, nil, nil, []Access{dst})
}

// RegOffset returns base (a view of a single-block tensor at a constant
// offset) read from element offset base + v*scale, a runtime value: a
// register access pattern. The register is computed here (RegisterAlu or
// RegisterMove), before the instruction that uses the access.
func (k *Kernel) RegOffset(what string, base Access, v RegValue, scale int64) (Access, error) {
	if c, ok := v.IsConst(); ok {
		b := base
		b.Offset = affine.AddConst(b.Offset, c*scale)
		return b, nil
	}
	if base.T.nblocks > 1 || base.T.fixed && len(base.T.physTable) > 1 || !base.Block.IsConst() || base.Block.Const != 0 || !base.Offset.IsConst() {
		return Access{}, k.Errorf(KindNotSupported, "%s: a runtime offset into %s, a tile with one block per loop iteration or a loop-dependent offset: narwhal offsets single-block tensors by a register (a tensor made outside the loops)", what, base.T.Describe())
	}
	r, err := k.NewRegister(nil)
	if err != nil {
		return Access{}, err
	}
	if scale == 1 {
		err = k.RegMove(r, v)
	} else {
		err = k.RegAlu(what, r, "mult", v, RegConst(scale))
	}
	if err != nil {
		return Access{}, err
	}
	b := base
	b.Reg = r
	return b, nil
}

// BeginDynamicLoop opens a runtime loop over range(lb, ub, step)
// (nl.dynamic_range: lb and ub values or registers, step a positive
// constant): a DynamicForLoop whose axis is the iterator's value. The
// loop's body runs as many times as the kernel, when it runs, says.
func (k *Kernel) BeginDynamicLoop(target string, lb, ub RegValue, step int64) (*Loop, error) {
	if step <= 0 {
		return nil, k.Errorf(KindNKI, "nl.dynamic_range: the step must be a positive constant, not %d", step)
	}
	if err := k.flushErr(); err != nil {
		return nil, err
	}
	ins := []bir.Operand{k.regOperand(lb), k.regOperand(ub), {Kind: bir.OpdImm, Dtype: bir.Int32, Offset: step}}
	return k.beginRuntime(target, bir.OpDynamicForLoop, ins, step)
}

func (k *Kernel) beginRuntime(target string, op bir.Opcode, ins []bir.Operand, step int64) (*Loop, error) {
	mark := k.Mark()
	name := k.axisNameFor(target)
	f := k.F
	id, ax := f.NewLoop(op, "loop_"+name, name, 0, 1, 1)
	if len(ins) > 0 {
		f.SetArgs(id, ins, nil)
	}
	k.append(id)
	body := f.NewBlock("Block_"+name, id)
	l := &Loop{k: k, Name: target, Lb: 0, Step: step, Trip: 1, Axis: ax, Grid: -1, Pos: k.pos,
		inst: id, parent: k.cur, mark: mark, open: true, Dynamic: true}
	k.loops = append(k.loops, l)
	k.axisLoop[ax] = l
	k.cur = body
	k.onUndo(func() {
		delete(k.axisLoop, ax)
		if l.open {
			l.open = false
			k.loops = k.loops[:len(k.loops)-1]
			k.cur = l.parent
		}
	})
	return l, nil
}

// Iterator returns a runtime loop's iterator (its axis).
func (l *Loop) Iterator() RegValue { return RegValue{Expr: affine.Var(l.Axis)} }

// While is an open `while reg:` loop: a DynamicForLoop of trip
// (cond != 0) around a DoWhile on cond.
type While struct {
	Cond        *Register
	guard, body *Loop
}

// BeginWhile opens `while cond:` on register cond.
func (k *Kernel) BeginWhile(target string, cond *Register) (*While, error) {
	t, err := k.NewRegister(nil)
	if err != nil {
		return nil, err
	}
	if err := k.RegAlu("while", t, "not_equal", RegValue{Reg: cond}, RegConst(0)); err != nil {
		return nil, err
	}
	g, err := k.BeginDynamicLoop(target+"_guard", RegConst(0), RegValue{Reg: t}, 1)
	if err != nil {
		return nil, err
	}
	b, err := k.beginRuntime(target, bir.OpDoWhile, []bir.Operand{bir.RegOpd(cond.ID, bir.Int32)}, 1)
	if err != nil {
		return nil, err
	}
	return &While{Cond: cond, guard: g, body: b}, nil
}

// EndWhile closes w.
func (k *Kernel) EndWhile(w *While) error {
	if err := k.EndLoop(w.body); err != nil {
		return err
	}
	return k.EndLoop(w.guard)
}

// Open reports whether w is still open (its body is being traced).
func (w *While) Open() bool { return w.body.open }
