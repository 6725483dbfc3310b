package interp

// The machine and the instruction dispatcher: program order, structured
// loops, predicates, calls.
//
// Loops (semantics of the three loop opcodes; the unroller lowers them the
// same way, docs/semantics-choices.md):
//
//   - Loop: the static axis of the module's axis table, lb <= v < ub, step
//     stride (stride must be positive). Each iteration binds the axis, so
//     symbolic APs, symbolic immediates and affine predicates inside the
//     body evaluate for that iteration.
//   - DynamicForLoop: ins = [lb, ub, stride], each an immediate or a
//     register, read once at loop entry; v runs lb, lb+stride, ... while
//     v < ub (stride > 0) or v > ub (stride < 0); stride 0 is an error.
//     With no ins the axis table's static bounds are used.
//   - DoWhile: the body runs, then repeats while the register (or
//     immediate) ins[0] is non-zero, read after each pass; the axis counts
//     passes from 0.
//
// An instruction's predicate is evaluated before it runs (a loop's before
// the loop starts); when false the instruction is skipped.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// maxCallDepth bounds NKIKernel call nesting (recursion is an error).
const maxCallDepth = 64

// testHookExec, when set (by tests only), runs before every instruction.
var testHookExec func(bir.Opcode)

// machine is the state of one Run.
type machine struct {
	m   *bir.Module
	opt Options
	geo geometry
	// peDst is set while a matmul's destination is evaluated on a
	// generation whose matmul rows may span PSUM banks (geometry).
	peDst bool

	sbuf, psum *storage // shared arrays of allocated locations (lazy)
	vaRegions  []*region
	funcBase   []int64 // virtual-address ordinal base of each function

	env affine.Values

	// Scratch, reused by every instruction.
	views    []view
	offs     [][]int64
	f32s     [8][]float32
	u64s     [4][]uint64
	i64s     [6][]int64
	bools    []bool
	bankLo   []int64
	bankHi   []int64
	bankRows []int64
	// GenericIndirectLoad/Save: indirect dims, row multipliers, largest
	// in-bounds index per dim, index vectors, the row pattern.
	idxDims, idxRs, idxMax []int64
	idxVecs                [][]int64
	rowPat                 bir.Pattern

	// The Scalar engine's accumulator registers, one per lane.
	actAcc  []float32
	actInit []bool
	// The Vector engine's accumulator registers (ops_vacc.go); dveInit
	// false: never written or left undefined by an Idle command.
	dveAcc  []float32
	dveInit []bool
	// accShadows: the race checker's keys of the accumulators
	// (concurrent.go), by bir.Accumulator.
	accShadows [3]*storage

	stack       []*frame
	ctxs        []instCtx // by call depth
	executed    int64
	mem         int64 // bytes charged against Options.MaxMemory (budget.go)
	maxMem      int64 // the effective limits (<= 0: none)
	maxInsts    int64
	allowUninit bool
	nIns        int // source operands of the instruction being executed (for labels)
	rng         uint64

	// The instruction being executed (for recovered panics).
	curFrame *frame
	curInst  bir.InstID

	// Multi-core runs (RunCores): the entry frame's Input and Output
	// storages are shared by name between the cores' machines, and a
	// call's copy-out copies only the elements its callee wrote.
	sharedIO       map[string]*storage
	entryFrame     *frame
	copyOutWritten bool
}

func newMachine(m *bir.Module, opt Options, geo geometry) *machine {
	mc := &machine{m: m, opt: opt, geo: geo, curInst: bir.NoInst, rng: 0x6e61727768616c21, maxMem: opt.memLimit(), maxInsts: opt.instLimit()}
	mc.env.Bind(affine.Axis(max(m.NumAxes(), 1)-1), 0)
	mc.env.Unbind(affine.Axis(max(m.NumAxes(), 1) - 1))
	mc.ctxs = make([]instCtx, maxCallDepth+2)
	mc.actAcc = make([]float32, geo.partitions)
	mc.actInit = make([]bool, geo.partitions)
	mc.dveAcc = make([]float32, geo.partitions)
	mc.dveInit = make([]bool, geo.partitions)
	mc.funcBase = make([]int64, len(m.Funcs)+1)
	for i, f := range m.Funcs {
		mc.funcBase[i+1] = mc.funcBase[i] + int64(f.NumLocs())
	}
	return mc
}

func (mc *machine) push(fr *frame) { mc.stack = append(mc.stack, fr) }
func (mc *machine) pop()           { mc.stack = mc.stack[:len(mc.stack)-1] }

// reserve makes the operand scratch hold n operands.
func (mc *machine) reserve(n int) {
	for len(mc.views) < n {
		mc.views = append(mc.views, view{})
		mc.offs = append(mc.offs, nil)
	}
}

// runFunction executes fr's function from its first top-level block.
func (mc *machine) runFunction(fr *frame) error {
	for _, b := range fr.f.Top {
		if err := mc.runBlock(fr, b); err != nil {
			return err
		}
		if fr.returned {
			break
		}
	}
	return nil
}

func (mc *machine) runBlock(fr *frame, b bir.BlockID) error {
	f := fr.f
	if int(b) < 0 || int(b) >= f.NumBlocks() {
		return &Error{Kind: ErrOperand, Func: f.Name, Msg: fmt.Sprintf("no block #%d", b)}
	}
	for _, i := range f.Block(b).Insts {
		in := f.Inst(i)
		if in.Dead() {
			continue
		}
		if in.Pred != 0 {
			ok, err := mc.evalPred(in.Pred)
			if err != nil {
				return mc.wrap(fr, i, errf(ErrOperand, "predicate: %v", err))
			}
			if !ok {
				continue
			}
		}
		var err error
		switch in.Op {
		case bir.OpLoop, bir.OpDynamicForLoop, bir.OpDoWhile:
			err = mc.runLoop(fr, i)
		default:
			err = mc.exec(fr, i)
		}
		if err != nil {
			return err
		}
		if fr.returned {
			return nil
		}
	}
	return nil
}

func (mc *machine) evalPred(id bir.PredID) (bool, error) {
	p := mc.m.Pred(id)
	ok, err := p.Eval(&mc.env)
	if err != nil {
		if ub, isUB := err.(*affine.UnboundError); isUB {
			return false, fmt.Errorf("predicate %s uses axis %s outside its loop", p.Format(mc.m.AxisName), mc.m.AxisName(ub.Axis))
		}
	}
	return ok, err
}

// runLoop executes a Loop, DynamicForLoop or DoWhile.
func (mc *machine) runLoop(fr *frame, i bir.InstID) error {
	f := fr.f
	in := f.Inst(i)
	if in.Aux < 0 {
		return mc.wrap(fr, i, errf(ErrOperand, "loop instruction has no loop table entry"))
	}
	li := f.Loop(i)
	ax := li.Axis
	if int(ax) < 0 || int(ax) >= mc.m.NumAxes() {
		return mc.wrap(fr, i, errf(ErrOperand, "loop axis #%d is not in the module's axis table", ax))
	}
	info := mc.m.Axis(ax)
	body := li.Body // the interpreter never edits the function, so no copy
	// The loop's own operands (bounds, condition) are read with the loop's
	// attributes and labels.
	mc.curFrame, mc.curInst = fr, i
	mc.allowUninit = mc.opt.AllowUninitReads || f.Attrs(i).Bool("can_read_uninit", false)
	mc.nIns = int(in.NIns)
	oldV, oldSet := mc.env.Value(ax)
	fr.loops = append(fr.loops, loopCtx{name: info.Name, axis: int32(ax)})
	defer func() {
		fr.loops = fr.loops[:len(fr.loops)-1]
		if oldSet {
			mc.env.Bind(ax, oldV)
		} else {
			mc.env.Unbind(ax)
		}
	}()
	iter := func(v int64) error {
		// Each iteration counts as one executed instruction (the loop's),
		// so MaxInstructions also bounds loops with empty bodies.
		if err := mc.step(); err != nil {
			return mc.wrap(fr, i, err)
		}
		mc.env.Bind(ax, v)
		for _, b := range body {
			if err := mc.runBlock(fr, b); err != nil {
				return err
			}
			if fr.returned {
				return nil
			}
		}
		return nil
	}
	switch in.Op {
	case bir.OpLoop:
		if info.Stride <= 0 {
			return mc.wrap(fr, i, errf(ErrOperand, "loop axis %s has stride %d; want a positive stride", info.Name, info.Stride))
		}
		// Count iterations rather than step v past ub: v += stride
		// wraps at 2^63 (lb 0, ub 2^63-1, stride 2^62 is two iterations).
		v := info.Lb
		for k, n := int64(0), info.TripCount(); k < n; k++ {
			if err := iter(v); err != nil || fr.returned {
				return err
			}
			if k+1 < n {
				v += info.Stride // <= the last value, which is < ub
			}
		}
	case bir.OpDynamicForLoop:
		lb, ub, stride := info.Lb, info.Ub, info.Stride
		ins := f.Ins(i)
		switch len(ins) {
		case 0:
		case 3:
			var err error
			vals := [3]int64{}
			for k := range 3 {
				o := ins[k]
				if vals[k], err = mc.scalarInt(fr, &o, k); err != nil {
					return mc.wrap(fr, i, err)
				}
			}
			lb, ub, stride = vals[0], vals[1], vals[2]
		default:
			return mc.wrap(fr, i, errf(ErrOperand, "DynamicForLoop has %d source operands; want [lb, ub, stride] or none", len(ins)))
		}
		if stride == 0 {
			return mc.wrap(fr, i, errf(ErrOperand, "DynamicForLoop axis %s has stride 0", info.Name))
		}
		v := lb
		for k, n := int64(0), checked.TripCount(lb, ub, stride); k < n; k++ {
			if err := iter(v); err != nil || fr.returned {
				return err
			}
			if k+1 < n {
				v += stride
			}
		}
	case bir.OpDoWhile:
		ins := f.Ins(i)
		if len(ins) != 1 {
			return mc.wrap(fr, i, errf(ErrOperand, "DoWhile has %d source operands; want the condition register", len(ins)))
		}
		for v := int64(0); ; v++ {
			if err := iter(v); err != nil || fr.returned {
				return err
			}
			o := f.Ins(i)[0]
			mc.curFrame, mc.curInst, mc.nIns = fr, i, int(in.NIns)
			mc.allowUninit = mc.opt.AllowUninitReads || f.Attrs(i).Bool("can_read_uninit", false)
			c, err := mc.scalarInt(fr, &o, 0)
			if err != nil {
				return mc.wrap(fr, i, err)
			}
			if c == 0 {
				break
			}
		}
	}
	return nil
}

// wrap adds the function, instruction and iteration context to err.
func (mc *machine) wrap(fr *frame, i bir.InstID, err error) error {
	if e, ok := err.(*Error); ok {
		// Only errors of a called function arrive here already wrapped:
		// record the call site.
		e.CalledFrom = append([]string{mc.site(fr, i)}, e.CalledFrom...)
		return e
	}
	kind := ErrOther
	if oe, ok := err.(*opError); ok {
		kind = oe.kind
	}
	return &Error{Kind: kind, Func: fr.f.Name, Inst: fr.f.InstName(i), Op: fr.f.OpName(i), Iter: mc.iterString(fr), Msg: err.Error()}
}

func (mc *machine) site(fr *frame, i bir.InstID) string {
	s := "function " + fr.f.Name + ", instruction " + fr.f.InstName(i)
	if it := mc.iterString(fr); it != "" {
		s += " (iteration " + it + ")"
	}
	return s
}

func (mc *machine) iterString(fr *frame) string {
	if len(fr.loops) == 0 {
		return ""
	}
	var sb strings.Builder
	for k, l := range fr.loops {
		if k > 0 {
			sb.WriteString(", ")
		}
		v, _ := mc.env.Value(affine.Axis(l.axis))
		sb.WriteString(l.name)
		sb.WriteByte('=')
		sb.WriteString(strconv.FormatInt(v, 10))
	}
	return sb.String()
}

// limitError turns an exceeded memory budget raised by a scratch helper
// into an ErrLimit error naming the instruction being executed.
func (mc *machine) limitError(be *budgetError) error {
	if fr := mc.curFrame; fr != nil && mc.curInst != bir.NoInst && int(mc.curInst) < fr.f.NumInstSlots() {
		return mc.wrap(fr, mc.curInst, errf(ErrLimit, "%s", be.msg))
	}
	return &Error{Kind: ErrLimit, Msg: be.msg}
}

// internalError turns a recovered panic into an error naming the
// instruction being executed.
func (mc *machine) internalError(p any, stack []byte) error {
	e := &Error{Kind: ErrInternal, Msg: fmt.Sprintf("internal error (a bug in narwhal's interpreter, please report it): %v\n%s", p, stack)}
	if fr := mc.curFrame; fr != nil {
		e.Func = fr.f.Name
		if mc.curInst != bir.NoInst && int(mc.curInst) < fr.f.NumInstSlots() {
			e.Inst = fr.f.InstName(mc.curInst)
			e.Op = fr.f.OpName(mc.curInst)
			e.Iter = mc.iterString(fr)
		}
	}
	return e
}

// exec executes one non-loop instruction.
func (mc *machine) exec(fr *frame, i bir.InstID) error {
	f := fr.f
	in := f.Inst(i)
	mc.curFrame, mc.curInst = fr, i
	if err := mc.step(); err != nil {
		return mc.wrap(fr, i, err)
	}
	info := in.Op.Info() // unknown (module-local) opcodes have FlagNoSemantics
	if info.Has(bir.FlagNoSemantics) {
		return mc.wrap(fr, i, errf(ErrNoSemantics, "narwhal has no semantics for this opcode"))
	}
	nIns, nOuts := int(in.NIns), int(in.NOuts)
	if nIns < info.MinIns || (info.MaxIns != bir.Variadic && nIns > info.MaxIns) {
		return mc.wrap(fr, i, errf(ErrOperand, "%d source operands; %s takes %s", nIns, info.Name, arity(info.MinIns, info.MaxIns)))
	}
	if nOuts < info.MinOuts || (info.MaxOuts != bir.Variadic && nOuts > info.MaxOuts) {
		return mc.wrap(fr, i, errf(ErrOperand, "%d destination operands; %s takes %s", nOuts, info.Name, arity(info.MinOuts, info.MaxOuts)))
	}
	attrs := f.Attrs(i)
	mc.allowUninit = mc.opt.AllowUninitReads || attrs.Bool("can_read_uninit", false)
	mc.nIns = nIns
	mc.reserve(nIns + nOuts)
	// One instCtx per call depth, reused (no allocation per instruction).
	x := &mc.ctxs[len(mc.stack)]
	*x = instCtx{fr: fr, i: i, eng: in.Engine, attrs: attrs, ins: f.Ins(i), outs: f.Outs(i)}
	if testHookExec != nil {
		testHookExec(in.Op)
	}
	err := mc.dispatch(x, in.Op)
	mc.curInst = bir.NoInst
	if err != nil {
		return mc.wrap(fr, i, err)
	}
	return nil
}

func arity(lo, hi int) string {
	switch {
	case hi == bir.Variadic:
		return fmt.Sprintf("at least %d", lo)
	case lo == hi:
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// label names operand k of the instruction being executed: "source 0",
// "destination 0".
func (mc *machine) label(k int) string {
	if k < mc.nIns {
		if k < len(srcLabels) {
			return srcLabels[k]
		}
		return "source " + strconv.Itoa(k)
	}
	if d := k - mc.nIns; d < len(dstLabels) {
		return dstLabels[d]
	}
	return "destination " + strconv.Itoa(k-mc.nIns)
}

// The common labels, built once (labels are taken per operand per
// instruction).
var srcLabels, dstLabels = func() ([]string, []string) {
	s, d := make([]string, 32), make([]string, 32)
	for i := range s {
		s[i] = "source " + strconv.Itoa(i)
		d[i] = "destination " + strconv.Itoa(i)
	}
	return s, d
}()

// instCtx is the instruction being executed.
type instCtx struct {
	fr    *frame
	i     bir.InstID
	eng   bir.Engine
	attrs bir.AttrSet
	ins   []bir.Operand
	outs  []bir.Operand
}

// in evaluates source operand k as an access pattern.
func (mc *machine) in(x *instCtx, k int) (*view, error) {
	return mc.evalAP(x.fr, k, &x.ins[k])
}

// out evaluates destination operand k as an access pattern.
func (mc *machine) out(x *instCtx, k int) (*view, error) {
	return mc.evalAP(x.fr, len(x.ins)+k, &x.outs[k])
}

func (mc *machine) dispatch(x *instCtx, op bir.Opcode) error {
	switch op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA:
		return mc.opDMACopy(x)
	case bir.OpDMACopy:
		return mc.opDMACopyMode(x)
	case bir.OpReadVarAddr:
		return mc.opReadVarAddr(x)
	case bir.OpGenericIndirectLoad:
		return mc.opGenericIndirect(x, true)
	case bir.OpGenericIndirectSave:
		return mc.opGenericIndirect(x, false)
	case bir.OpIndirectLoad:
		return mc.opIndirectLoad(x)
	case bir.OpIndirectSave:
		return mc.opIndirectSave(x, false)
	case bir.OpIndirectSaveAccumulate:
		return mc.opIndirectSave(x, true)
	case bir.OpTensorTensor:
		return mc.opTensorTensor(x)
	case bir.OpTensorScalar, bir.OpTensorScalarPtr:
		if bir.IsTensorTensorScan(op, x.attrs) {
			return mc.opTensorTensorScan(x)
		}
		if bir.IsScalarTensorTensor(op, x.attrs) {
			return mc.opScalarTensorTensor(x)
		}
		if bir.IsTensorScalarReduce(op, x.attrs) {
			return mc.opTensorScalarReduce(x)
		}
		return mc.opTensorScalar(x, op == bir.OpTensorScalarPtr)
	case bir.OpActivation:
		return mc.opActivation(x)
	case bir.OpReadActivationAccumulator:
		return mc.opReadActAcc(x)
	case bir.OpMatmult, bir.OpMatmultBase, bir.OpMatmultSymbolic:
		if err := matmulReplication(x.attrs); err != nil {
			return err
		}
		return mc.opMatmult(x)
	case bir.OpTranspose:
		return mc.opTranspose(x)
	case bir.OpTensorCopy:
		return mc.opTensorCopy(x)
	case bir.OpMemset:
		return mc.opMemset(x)
	case bir.OpIota:
		return mc.opIota(x, false)
	case bir.OpTensorScalarAffineSelect:
		return mc.opIota(x, true)
	case bir.OpTensorReduce:
		return mc.opTensorReduce(x)
	case bir.OpCopyPredicated:
		if bir.IsSelectReduce(op, x.attrs) {
			return mc.opSelectReduce(x)
		}
		if len(x.ins) != 2 || len(x.outs) != 1 {
			return errf(ErrOperand, "CopyPredicated with %d sources and %d destinations: tensor_copy_predicated takes [src, predicate] -> [dst]; select_reduce's form needs the acc attribute", len(x.ins), len(x.outs))
		}
		return mc.opCopyPredicated(x)
	case bir.OpTensorScalarCache:
		return mc.opTensorScalarCumulative(x)
	case bir.OpRangeSelect:
		return mc.opRangeSelect(x)
	case bir.OpExponential:
		return mc.opExponential(x)
	case bir.OpIndirectCopy:
		return mc.opLocalGather(x)
	case bir.OpGather:
		return mc.opNGather(x)
	case bir.OpStreamShuffle:
		return mc.opStreamShuffle(x)
	case bir.OpGetSequenceBounds:
		return mc.opSequenceBounds(x)
	case bir.OpNonzeroWithCount:
		return mc.opNonzeroWithCount(x)
	case bir.OpReciprocal:
		return mc.opReciprocal(x)
	case bir.OpBNStats:
		return mc.opBNStats(x)
	case bir.OpMax:
		return mc.opMax8(x)
	case bir.OpMaxIndex:
		return mc.opFindIndex8(x)
	case bir.OpMatchReplace:
		return mc.opMatchReplace8(x)
	case bir.OpBNStatsAggregate:
		return mc.opBNAggregate(x)
	case bir.OpRegisterMove:
		return mc.opRegisterMove(x)
	case bir.OpRegisterAlu:
		return mc.opRegisterAlu(x)
	case bir.OpTensorLoad:
		return mc.opTensorLoad(x)
	case bir.OpTensorSave:
		return mc.opTensorSave(x)
	case bir.OpNKIKernel, bir.OpNKIKLIRKernel:
		return mc.opCall(x)
	case bir.OpReturn:
		x.fr.returned = true
		return nil
	case bir.OpEventSemaphore, bir.OpGroupResetSemaphores, bir.OpCoreBarrier, bir.OpNoOp, bir.OpDrain,
		bir.OpAllEngineBarrier, bir.OpHalt, bir.OpLoadActFuncSet, bir.OpTerminator:
		return mc.opSync(x)
	}
	return errf(ErrNoSemantics, "narwhal has no semantics for this opcode")
}

// opSync is every synchronisation opcode.
//
// CHOICE (semantics.md §4.16): in a program-order interpreter semaphores,
// barriers, drains and NoOp change no values; CoreBarrier is a no-op
// because narwhal interprets one core; Halt is a no-op too (the scheduler
// puts one at the end of every engine's stream, so stopping at the first
// would drop the other engines' work); LoadActFuncSet (table loading) and
// Terminator have no value effect. Operands of NoOp are not read.
func (mc *machine) opSync(x *instCtx) error { return nil }

// ---- scalar operands ----

// scalarInt reads an immediate or register operand as an integer.
func (mc *machine) scalarInt(fr *frame, o *bir.Operand, k int) (int64, error) {
	switch o.Kind {
	case bir.OpdImm:
		if o.Flags&bir.OpdFlagFloat != 0 {
			v := o.ImmFloat()
			if v != float64(int64(v)) {
				return 0, errf(ErrOperand, "%s: immediate %g is not an integer", mc.label(k), v)
			}
		}
		return o.ImmInt(), nil
	case bir.OpdRegister:
		v, err := mc.regValue(fr, bir.RegID(o.Ref))
		if err != nil {
			return 0, errf(ErrUninitRead, "%s: %v", mc.label(k), err)
		}
		return v, nil
	case bir.OpdSymImm:
		return mc.symImm(o, k)
	}
	return 0, errf(ErrOperand, "%s is a %s, want an immediate or a register", mc.label(k), o.Kind)
}

// symImm evaluates a symbolic immediate: the affine expression under the
// current loop bindings (value_list is the unroller's table of per-iteration
// values and is not needed when the expression can be evaluated).
func (mc *machine) symImm(o *bir.Operand, k int) (int64, error) {
	v, err := mc.evalExpr(o.Expr)
	if err != nil {
		return 0, errf(ErrOperand, "%s: %v", mc.label(k), err)
	}
	return v, nil
}

// scalarF32 reads an immediate, symbolic immediate or register operand as
// fp32 (registers hold integers).
func (mc *machine) scalarF32(fr *frame, o *bir.Operand, k int) (float32, error) {
	if o.Kind == bir.OpdImm {
		return float32(o.ImmFloat()), nil
	}
	v, err := mc.scalarInt(fr, o, k)
	return float32(v), err
}

// regValue reads register r of frame fr.
func (mc *machine) regValue(fr *frame, r bir.RegID) (int64, error) {
	if int(r) < 0 || int(r) >= fr.f.NumRegs() {
		return 0, fmt.Errorf("no register #%d", r)
	}
	mc.growRegs(fr)
	if !fr.regInit[r] && !mc.allowUninit {
		return 0, fmt.Errorf("read of never-written register %s", fr.f.Reg(r).Name)
	}
	return fr.regs[r], nil
}

func (mc *machine) growRegs(fr *frame) {
	for len(fr.regs) < fr.f.NumRegs() {
		fr.regs = append(fr.regs, 0)
		fr.regInit = append(fr.regInit, false)
	}
}
