package api

// Virtual registers and runtime loops of the current API (the NKI 0.2
// migration guide, "Dynamic control flow": "If a control flow construct
// uses a register as a conditional, then the loop will be an on-chip,
// dynamic (or runtime) loop"; the deep dive "NKI Dynamic Loops").
//
//   - nisa.register_alloc(x=None) allocates a register (lower.Register),
//     register_move / register_load / register_store move values between
//     registers, immediates and one-element tensors;
//   - nl.dynamic_range(start, stop=None, step=1), start and stop ints or
//     registers and step a positive int, is a runtime loop
//     (DynamicForLoop): its body is traced once, its iterator a register
//     value (the loop's axis). A body that needs the iterator's value at
//     trace time (`if i == 0:`, a list index) is an error, since a runtime
//     loop cannot unroll; so is a body that leaves by break or return, or
//     whose Python effects would depend on the iteration (the count is
//     only known when the kernel runs);
//   - `while reg:` is a runtime while loop: a DynamicForLoop of trip
//     (reg != 0) around a DoWhile on reg. The tracer evaluates a while
//     loop's test once per pass and asks the register for its truth
//     value; the register answers true at the first test (the loop opens,
//     the body is traced into it) and false at the next test of the same
//     while statement (the loop closes), so the body is traced once. A
//     register's truth anywhere else (`if reg:`) opens a loop that never
//     closes: the trace ends with an error naming the line.

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// VirtualRegister is a register value in the kernel: an allocated
// register (reg) or a runtime loop's iterator (val.Expr over its axis).
type VirtualRegister struct {
	st   *state
	th   *tracer.Thread
	val  lower.RegValue
	loop *lower.Loop // the runtime loop of an iterator
	made tracer.Pos
}

func (v *VirtualRegister) Type() string { return "VirtualRegister" }
func (v *VirtualRegister) String() string {
	if v.val.Reg != nil {
		return "VirtualRegister(" + v.val.Reg.Name + ")"
	}
	return "VirtualRegister(iterator " + v.val.Expr.String() + ")"
}

// MadeAt returns where the register was made.
func (v *VirtualRegister) MadeAt() tracer.Pos { return v.made }

// needValue is the error of a trace-time use of a register's value.
func (v *VirtualRegister) needValue(what string) error {
	if v.loop != nil {
		return &tracer.NeedConcrete{Vars: []any{v.loop}, What: what, Value: "the iterator of the runtime loop over " + v.loop.Name}
	}
	return nkiErrorf("%s needs the value of %s, which is only known when the kernel runs", what, v)
}

// PyIndex: a register is not a Python int.
func (v *VirtualRegister) PyIndex(th *tracer.Thread) (tracer.Value, error) {
	return nil, v.needValue("an integer")
}

// Binary: registers take no Python arithmetic (the register ALU is not
// part of the API).
func (v *VirtualRegister) Binary(th *tracer.Thread, op syntax.Operator, other tracer.Value, right bool) (tracer.Value, error) {
	return nil, v.needValue(fmt.Sprintf("the operator %s", op))
}

// Compare: a register's value is only known when the kernel runs.
func (v *VirtualRegister) Compare(th *tracer.Thread, op syntax.CmpOp, other tracer.Value, right bool) (tracer.Value, error) {
	return nil, v.needValue("a comparison")
}

// Truth is the runtime while loop's test (see the file comment).
func (v *VirtualRegister) Truth() (bool, error) {
	st := v.st
	if st == nil || v.th == nil || current(v.th) != st {
		return false, nkiErrorf("the truth value of %s is only known when the kernel runs", v)
	}
	if v.val.Reg == nil {
		return false, v.needValue("the truth value")
	}
	pos := v.th.Pos()
	if n := len(st.whiles); n > 0 {
		w := st.whiles[n-1]
		if w.reg == v && w.pos == pos {
			st.whiles = st.whiles[:n-1]
			st.k.SetPos(birPos(pos))
			if err := st.k.EndWhile(w.w); err != nil {
				return false, convert(err)
			}
			return false, nil
		}
	}
	st.k.SetPos(birPos(pos))
	w, err := st.k.BeginWhile("while", v.val.Reg)
	if err != nil {
		return false, convert(err)
	}
	st.whiles = append(st.whiles, openWhile{reg: v, pos: pos, w: w})
	return true, nil
}

// openWhile is a `while reg:` loop being traced.
type openWhile struct {
	reg *VirtualRegister
	pos tracer.Pos
	w   *lower.While
}

// checkWhiles reports a runtime while loop that never closed.
func (st *state) checkWhiles() error {
	if len(st.whiles) == 0 {
		return nil
	}
	w := st.whiles[len(st.whiles)-1]
	return &tracer.Error{Kind: lower.KindNotSupported, Code: diag.KernelUnsupported, Pos: w.pos,
		Msg: fmt.Sprintf("the truth value of %s opened a runtime while loop that never closed: narwhal runs `while reg:` loops on registers whose body does not break or return, and has no runtime `if` on a register", w.reg)}
}

// regValueOf converts a register argument: a VirtualRegister, or an int.
func regValueOf(th *tracer.Thread, v tracer.Value, what, param string) (lower.RegValue, error) {
	switch x := v.(type) {
	case *VirtualRegister:
		return x.val, nil
	case tracer.Int, tracer.Bool:
		n, err := tracer.AsInt64(th, x)
		return lower.RegConst(n), err
	}
	return lower.RegValue{}, typeErrorf("%s: %s must be a VirtualRegister (nisa.register_alloc) or an int, not %s", what, param, v.Type())
}

func allocatedReg(v tracer.Value, what, param string) (*VirtualRegister, error) {
	r, ok := v.(*VirtualRegister)
	if !ok || r.val.Reg == nil {
		return nil, typeErrorf("%s: %s must be a register made by nisa.register_alloc, not %s", what, param, tracer.Repr(v))
	}
	return r, nil
}

func curRegisterAlloc(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.register_alloc"
	var x, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "x?", &x, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	var init *int64
	if !isNone(x) {
		n, err := tracer.AsInt64(th, x)
		if err != nil {
			return nil, err
		}
		init = &n
	}
	r, err := st.k.NewRegister(init)
	if err != nil {
		return nil, convert(err)
	}
	return &VirtualRegister{st: st, th: th, val: lower.RegValue{Reg: r}, made: th.CallPos()}, nil
}

func curRegisterMove(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.register_move"
	// NKI 0.2: (dst, imm); NKI 0.3: (dst, src) with src a register.
	var dst, src, imm, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src?", &src, "imm?", &imm, "name?", &name); err != nil {
		return nil, err
	}
	if isNone(src) {
		src = imm
	}
	if isNone(src) {
		return nil, typeErrorf("%s() missing the source: src= (a register) or imm= (an int)", what)
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := allocatedReg(dst, what, "dst")
	if err != nil {
		return nil, err
	}
	s, err := regValueOf(th, src, what, "src")
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.RegMove(d.val.Reg, s))
}

func curRegisterLoad(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.register_load"
	var dst, src, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := allocatedReg(dst, what, "dst")
	if err != nil {
		return nil, err
	}
	s, _, err := tileOf(src, what, "src")
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.RegLoad(d.val.Reg, s))
}

func curRegisterStore(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nisa.register_store"
	var dst, src, name tracer.Value
	if err := isaUnpack(what, args, kwargs, "dst", &dst, "src", &src, "name?", &name); err != nil {
		return nil, err
	}
	st, err := kernelState(th, what)
	if err != nil {
		return nil, err
	}
	d, err := dstOf(dst, what)
	if err != nil {
		return nil, err
	}
	s, err := regValueOf(th, src, what, "src")
	if err != nil {
		return nil, err
	}
	return tracer.None, convert(st.k.RegStore(d, s))
}

// DynRange is nl.dynamic_range(start, stop=None, step=1).
type DynRange struct {
	start, stop tracer.Value
	step        int64
}

func (r *DynRange) Type() string         { return "dynamic_range" }
func (r *DynRange) String() string       { return "dynamic_range(...)" }
func (r *DynRange) Truth() (bool, error) { return true, nil }

func curDynamicRange(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	const what = "nl.dynamic_range"
	var start, stop, stepV tracer.Value
	if err := isaUnpack(what, args, kwargs, "start", &start, "stop?", &stop, "step?", &stepV); err != nil {
		return nil, err
	}
	if isNone(stop) {
		start, stop = tracer.MakeInt(0), start
	}
	step := int64(1)
	if !isNone(stepV) {
		if _, ok := stepV.(*VirtualRegister); ok {
			return nil, nkiErrorf("%s: the step must be a compile-time positive int, not a register (\"step: Must be a compile-time positive int (not a VirtualRegister)\")", what)
		}
		n, err := tracer.AsInt64(th, stepV)
		if err != nil {
			return nil, err
		}
		step = n
	}
	if step <= 0 {
		return nil, nkiErrorf("%s: the step must be a positive int, not %d", what, step)
	}
	for _, v := range []tracer.Value{start, stop} {
		if _, err := regValueOf(th, v, what, "start and stop"); err != nil {
			return nil, err
		}
	}
	return &DynRange{start: start, stop: stop, step: step}, nil
}

// TraceLoop traces a runtime loop: the body once, into a DynamicForLoop.
func (r *DynRange) TraceLoop(th *tracer.Thread, body tracer.LoopBody) error {
	const what = "nl.dynamic_range"
	st, err := kernelState(th, what)
	if err != nil {
		return err
	}
	lb, err := regValueOf(th, r.start, what, "start")
	if err != nil {
		return err
	}
	ub, err := regValueOf(th, r.stop, what, "stop")
	if err != nil {
		return err
	}
	st.k.SetPos(birPos(body.Pos()))
	cp := body.Checkpoint()
	c0 := st.tick()
	nw := len(st.whiles)
	l, err := st.k.BeginDynamicLoop(body.Target(), lb, ub, r.step)
	if err != nil {
		return convert(err)
	}
	it := &VirtualRegister{st: st, th: th, val: l.Iterator(), loop: l, made: body.Pos()}
	exit, err := body.Run(it)
	if need, ok := tracer.AsNeedConcrete(err); ok && need.Involves(l) {
		return &tracer.Error{Kind: lower.KindNKI, Code: diag.KernelAPI, Pos: need.Pos,
			Msg: fmt.Sprintf("%s needs the value of the runtime loop's iterator %s at trace time: an nl.dynamic_range loop runs on the device and cannot unroll (use nl.affine_range for a loop whose trip count is known)", need.What, body.Target())}
	}
	if err != nil {
		return err
	}
	if len(st.whiles) > nw {
		return st.checkWhiles()
	}
	if exit != tracer.LoopNormal {
		return &tracer.Error{Kind: lower.KindNotSupported, Code: diag.KernelUnsupported, Pos: body.Pos(),
			Msg: "break or return in an nl.dynamic_range loop: a runtime loop runs its whole trip count on the device"}
	}
	if st.pythonDependent(th, body.Effects(cp), c0) {
		return &tracer.Error{Kind: lower.KindNotSupported, Code: diag.KernelUnsupported, Pos: body.Pos(),
			Msg: "the body of an nl.dynamic_range loop changes Python state that existed before it (a variable rebound to a new value, a list appended to): the trip count is only known when the kernel runs, so Python cannot see one change per iteration"}
	}
	return convert(st.k.EndLoop(l))
}

func init() {
	cur("register_alloc", curRegisterAlloc)
	cur("register_move", curRegisterMove)
	cur("register_load", curRegisterLoad)
	cur("register_store", curRegisterStore)
	curLang("dynamic_range", curDynamicRange)
}
