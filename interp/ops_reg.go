package interp

// Engine registers (semantics.md §4.15): RegisterMove, RegisterAlu,
// TensorLoad, TensorSave.
//
// Registers belong to a function activation (bir names them per function;
// a called function starts with fresh registers). Each holds 64 bits; the
// arithmetic is 32-bit unless RegisterAlu's is_64bit is set:
//
//	RegisterMove  ins [imm | register]            outs [register]
//	RegisterAlu   ins [a, b] or [b]                outs [register]   attrs op, is_64bit
//	TensorLoad    ins [AP of one element]          outs [register]
//	TensorSave    ins [register]                   outs [AP of one element]
//
// CHOICE (semantics.md §4.15): 32-bit results wrap to int32 (stored
// sign-extended); divide truncates towards zero and mod is C-style (the
// sign of the dividend); comparisons give 1/0; division by zero is an
// error. RegisterMove of an immediate wraps it to int32 (KLR's imm is an
// Int32); a register source is copied whole. RegisterAlu with one source
// applies a unary op (abs, bitwise_not, bypass) to it, and a binary op to
// (destination, source) - the destination register is the left operand.
// TensorLoad moves the element's raw bits (sign-extended for signed
// integer dtypes, zero-extended otherwise) into the register; TensorSave
// stores the register's low bits.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

func (mc *machine) setReg(fr *frame, o *bir.Operand, k int, v int64) error {
	if o.Kind != bir.OpdRegister {
		return errf(ErrOperand, "%s is a %s, want a register", mc.label(k), o.Kind)
	}
	r := bir.RegID(o.Ref)
	if int(r) < 0 || int(r) >= fr.f.NumRegs() {
		return errf(ErrOperand, "%s names no register (#%d)", mc.label(k), r)
	}
	mc.growRegs(fr)
	fr.regs[r], fr.regInit[r] = v, true
	return nil
}

func (mc *machine) opRegisterMove(x *instCtx) error {
	o := &x.ins[0]
	var v int64
	switch o.Kind {
	case bir.OpdRegister:
		var err error
		if v, err = mc.regValue(x.fr, bir.RegID(o.Ref)); err != nil {
			return errf(ErrUninitRead, "source 0: %v", err)
		}
	case bir.OpdImm, bir.OpdSymImm:
		i, err := mc.scalarInt(x.fr, o, 0)
		if err != nil {
			return err
		}
		v = int64(int32(i))
	default:
		return errf(ErrOperand, "source 0 is a %s, want an immediate or a register", o.Kind)
	}
	return mc.setReg(x.fr, &x.outs[0], len(x.ins), v)
}

// regAluOp is one RegisterAlu operation (see the file comment).
func regAluOp(op aluOp, a, b int64, is64 bool) (int64, bool) {
	width := 32
	if is64 {
		width = 64
	} else {
		a, b = int64(int32(a)), int64(int32(b))
	}
	switch op {
	case aluDivide, aluMod:
		if b == 0 {
			return 0, false
		}
		var r int64
		switch {
		case b == -1 && op == aluDivide:
			r = -a
		case b == -1:
			r = 0
		case op == aluDivide:
			r = a / b
		default:
			r = a % b // C-style: the sign of the dividend
		}
		if !is64 {
			r = int64(int32(r))
		}
		return r, true
	case aluRsqrt:
		return 0, false
	}
	r, ok := aluInt(op, a, b, width, false)
	if ok && !is64 && op.isBitvec() {
		r = int64(int32(r))
	}
	return r, ok
}

func (mc *machine) opRegisterAlu(x *instCtx) error {
	op, err := mc.aluAttr(x.attrs, "op", true)
	if err != nil {
		return err
	}
	is64 := x.attrs.Bool("is_64bit", false)
	var a, b int64
	if len(x.ins) == 2 {
		if a, err = mc.scalarInt(x.fr, &x.ins[0], 0); err != nil {
			return err
		}
		if b, err = mc.scalarInt(x.fr, &x.ins[1], 1); err != nil {
			return err
		}
	} else {
		if b, err = mc.scalarInt(x.fr, &x.ins[0], 0); err != nil {
			return err
		}
		if op.isUnary() {
			a = b
		} else {
			o := &x.outs[0]
			if o.Kind != bir.OpdRegister {
				return errf(ErrOperand, "destination 0 is a %s, want a register", o.Kind)
			}
			if a, err = mc.regValue(x.fr, bir.RegID(o.Ref)); err != nil {
				return errf(ErrUninitRead, "the destination register is the left operand of a one-source RegisterAlu: %v", err)
			}
		}
	}
	r, ok := regAluOp(op, a, b, is64)
	if !ok {
		if op == aluDivide || op == aluMod {
			return errf(ErrDomain, "register %s by zero", op)
		}
		return errf(ErrNoSemantics, "AluOp %s has no register form", op)
	}
	return mc.setReg(x.fr, &x.outs[0], len(x.ins), r)
}

func (mc *machine) opTensorLoad(x *instCtx) error {
	src, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	if src.n != 1 {
		return errf(ErrCountMismatch, "TensorLoad reads one element; source 0 walks %d (pattern %v)", src.n, src.pat.Shape())
	}
	bits := mc.u64buf(0, 1)
	if err := mc.gatherBits(src, bits); err != nil {
		return err
	}
	v := int64(bits[0])
	if numeric.IsInt(src.dt) {
		v = numeric.Int64Of(src.dt, bits[0])
	}
	return mc.setReg(x.fr, &x.outs[0], len(x.ins), v)
}

func (mc *machine) opTensorSave(x *instCtx) error {
	o := &x.ins[0]
	v, err := mc.scalarInt(x.fr, o, 0)
	if err != nil {
		return err
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if d.n != 1 {
		return errf(ErrCountMismatch, "TensorSave writes one element; destination 0 walks %d (pattern %v)", d.n, d.pat.Shape())
	}
	bits := mc.u64buf(0, 1)
	bits[0] = uint64(v)
	scatterBits(d, bits)
	return nil
}
