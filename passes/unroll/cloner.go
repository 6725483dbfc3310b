// The cloner: unroll_function's body (seed 003, "Unroll — the production
// per-instruction loop unroller" and "FullUnroll"), shared by Unroll and
// FullUnroll levels 1 and 2.
//
// What it does to one function, given the set of static loops to unroll:
//
//   - Walks every block in program order (the seeds' unroll_ini_block: a
//     snapshot of the block's original instructions, expanded into a new
//     list that replaces the old one in one step at the end).
//   - A selected static loop (opcode Loop, 105) is expanded: for each value
//     v of its axis in [lb, ub) step stride the axis is bound to v in the
//     iteration-substitution map (env) and the body blocks are expanded in
//     order into the enclosing list (unrollInst's case 105).
//   - Every instruction inside at least one expanded loop is cloned once per
//     iteration (unrollInst's clone tail): the predicate is evaluated and the
//     clone dropped when false (evalMask); symbolic access patterns become
//     physical ones on the storage of the block their block index selects
//     (unroll_arg / genPhyAP), symbolic immediates become immediates,
//     dependencies are remapped onto the clones of their targets
//     (remap_dependencies, deps.go) and the clone is counted against the
//     instruction budget (InstProfiler::instCount).
//   - Instructions outside every expanded loop are not cloned: they are kept
//     in place, their symbolic operands folded when constant and their
//     dependencies remapped (a target may have been cloned).
//   - A loop that is not expanded (a DynamicForLoop or DoWhile, or a static
//     loop the caller did not select) is kept. When it is not inside an
//     expanded loop it is the original loop, with its body rebuilt in place;
//     inside an expanded loop it is re-created once per enclosing iteration
//     with a fresh axis (its body's expressions are rewritten to the new
//     axis by partial evaluation, the slow path).
//
// Clone names are the original name followed by the values of the enclosing
// expanded loops' axes, outermost first, each preceded by a separator that
// occurs in no original instruction name of the function ("." unless some
// name contains one; then "#", "@", ... ), so clone names are unique and
// decodable: ld_x.0.3 is ld_x at i=0, j=3. Instructions that are not cloned
// keep their names. Blocks and loops re-created inside expanded loops get
// the same suffix.
//
// Performance: the expressions, predicates and dependency plans of each
// original instruction are compiled once (expr.go); the per-clone work is a
// predicate evaluation, f.Clone (which appends the instruction and copies
// its operands by value), a name appended to the symbol arena from a reused
// buffer, integer evaluation of the symbolic operands and an in-place
// operand rewrite. Nothing is allocated per clone beyond the IR's own
// tables, which are reserved up front from the projected count.
package unroll

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// loopRec describes one original loop instruction of the function.
type loopRec struct {
	id       bir.InstID
	axis     affine.Axis
	lb, ub   int64
	stride   int64
	trips    int64
	parent   int32 // enclosing loop (index into cloner.loops), -1
	expanded bool  // selected for unrolling
	// content: the body holds something an expansion emits (an
	// instruction, or a loop that is kept); an expanded loop without it
	// expands to nothing and is not iterated (a dead nest of 10^12
	// iterations left empty by dce used to take hours).
	content bool
	body    []bir.BlockID
}

// nestRec is the iteration space of the expanded loops enclosing an
// instruction (the key of ordinal tables, deps.go).
type nestRec struct {
	loops []int32 // expanded enclosing loops, outermost first
	radix []int64 // mixed-radix weights (product of the inner trips)
	size  int64   // product of all trips (saturating)
}

// symOp is a pre-compiled symbolic operand of an instruction.
type symOp struct {
	k     int // operand index
	block *cexpr
	off   *cexpr
	expr  *cexpr // symbolic immediate
}

// instPlan is the per-original-instruction compiled form.
type instPlan struct {
	sym   []symOp
	pred  *cpred // nil when the instruction has no predicate
	deps  []depPlan
	nest  int32 // index into cloner.nests (expanded enclosing loops)
	loop  int32 // innermost enclosing loop (any kind), -1
	fast  bool  // every expression is bound whenever the instruction is cloned
	order bool  // the instruction needs an ordinal table (a dependency target)
}

// clonerConfig selects what the cloner does.
type clonerConfig struct {
	// expand reports whether a static loop is unrolled.
	expand func(f *bir.Function, loop bir.InstID) bool
	// remapDeps keeps dependencies (false: level 2 erases them anyway).
	remapDeps bool
	// locFor resolves block b of tensor t to the physical location that
	// holds it after the pass (tensor.go).
	locFor func(t bir.TensorID, b int64) (bir.LocID, error)
	// count is called for every clone with whether it can be removed by
	// dead-code elimination; it returns an error to stop (budget guards).
	count func(removable bool) error
	// removable reports whether an original instruction is a dce candidate.
	removable func(i bir.InstID) bool
	// reserveInsts is the projected number of clones (table capacity).
	reserveInsts int
}

// cloner holds the state of one function's unroll.
type cloner struct {
	m    *bir.Module
	f    *bir.Function
	cfg  clonerConfig
	comp *compiler
	env  *env

	nslots int // instruction slots before cloning (original ids are < nslots)
	loops  []loopRec
	loopOf []int32 // per original instruction slot: its loop record (loops only), -1
	nests  []nestRec
	plans  []*instPlan
	pos    []int32 // program position of original instructions, -1 if unreachable
	origs  map[bir.BlockID][]bir.InstID

	// Current context.
	active    []int32 // expanded loops whose iteration is in progress, outermost first
	sep       string
	nameBuf   []byte
	lastClone []bir.InstID // per original instruction: its latest instance (NoInst if dropped)
	ords      []*ordTable  // per original instruction that is a dependency target needing it
	queue     []fixup
	replace   []blockReplace
	extraMap  map[bir.AttrID]bir.AttrID
	patRange  [][2]int64 // by PatternID; {1, 0} when not computed
	// Table reservations (reserve, limits.go).
	reserveOperands, reserveNames, reserveDeps int
	renames                                    int   // re-created kept loops in the current context
	droppedCount                               int64 // clones not created (predicate false)
	work                                       int64 // iterations expanded + clones dropped (maxExpansionWork)
	clonedBarrier                              bool  // a CoreBarrier was cloned
	clones                                     int64
	kept                                       int64
}

type blockReplace struct {
	b    bir.BlockID
	list []bir.InstID
}

// unrollError is an error at a place of the function.
func (c *cloner) errAt(i bir.InstID, format string, args ...any) error {
	where := fmt.Sprintf("function %s, instruction %s (%s)", c.f.Name, c.f.InstName(i), c.f.OpName(i))
	if it := c.iterText(); it != "" {
		where += " at " + it
	}
	return c.f.WrapErr(i, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
}

// wrapAt is errAt for an error that callers may inspect (errors.As).
func (c *cloner) wrapAt(i bir.InstID, err error) error {
	where := fmt.Sprintf("function %s, instruction %s (%s)", c.f.Name, c.f.InstName(i), c.f.OpName(i))
	if it := c.iterText(); it != "" {
		where += " at " + it
	}
	return c.f.WrapErr(i, fmt.Errorf("%s: %w", where, err))
}

// iterText renders the current iteration ("i=3, j=0").
func (c *cloner) iterText() string {
	var sb strings.Builder
	for k, li := range c.active {
		if k > 0 {
			sb.WriteString(", ")
		}
		ax := c.loops[li].axis
		sb.WriteString(c.m.Axis(ax).Name)
		sb.WriteByte('=')
		sb.WriteString(strconv.FormatInt(c.env.vals[ax], 10))
	}
	return sb.String()
}

func newCloner(f *bir.Function, cfg clonerConfig) *cloner {
	m := f.Module()
	c := &cloner{m: m, f: f, cfg: cfg, comp: newCompiler(m), env: newEnv(m.NumAxes())}
	c.nslots = f.NumInstSlots()
	c.loopOf = make([]int32, c.nslots)
	c.plans = make([]*instPlan, c.nslots)
	c.pos = make([]int32, c.nslots)
	c.lastClone = make([]bir.InstID, c.nslots)
	for k := range c.loopOf {
		c.loopOf[k] = -1
		c.pos[k] = -1
		c.lastClone[k] = bir.NoInst
	}
	c.origs = map[bir.BlockID][]bir.InstID{}
	c.nests = []nestRec{{size: 1}} // nest 0: no expanded loop
	return c
}

// analyze records loops, program positions, nests and plans. It reports
// malformed input (an expression over an axis that no enclosing loop binds,
// a carried dependency on an axis that encloses neither instruction) as
// errors before anything is changed.
func (c *cloner) analyze() error {
	f := c.f
	var pos int32
	nestOf := map[string]int32{} // key: expanded loop list
	var walk func(b bir.BlockID, loop int32, nest int32) error
	walk = func(b bir.BlockID, loop int32, nest int32) error {
		list := f.Block(b).Insts
		c.origs[b] = list
		for _, i := range list {
			if int(i) >= c.nslots {
				return fmt.Errorf("function %s: block %s lists instruction #%d beyond the table", f.Name, f.Block(b).Name, i)
			}
			c.pos[i] = pos
			pos++
			in := f.Inst(i)
			if in.Op.IsLoop() {
				lp := f.Loop(i)
				ax := c.m.Axis(lp.Axis)
				rec := loopRec{id: i, axis: lp.Axis, lb: ax.Lb, ub: ax.Ub, stride: ax.Stride, trips: ax.TripCount(), parent: loop, body: lp.Body}
				if in.Op == bir.OpLoop && c.cfg.expand(f, i) {
					if ax.Stride <= 0 {
						return f.Errorf(i, "stride %d, want > 0", ax.Stride)
					}
					rec.expanded = true
				}
				li := int32(len(c.loops))
				c.loops = append(c.loops, rec)
				c.loopOf[i] = li
				c.plans[i] = &instPlan{nest: nest, loop: loop}
				inner := nest
				if rec.expanded {
					inner = c.nestWith(nestOf, nest, li)
				}
				for _, bb := range lp.Body {
					if err := walk(bb, li, inner); err != nil {
						return err
					}
				}
				continue
			}
			c.plans[i] = &instPlan{nest: nest, loop: loop}
		}
		return nil
	}
	for _, b := range f.Top {
		if err := walk(b, -1, 0); err != nil {
			return err
		}
	}
	// Compile each reachable instruction's expressions.
	for i := 0; i < c.nslots; i++ {
		if c.pos[i] < 0 {
			continue
		}
		if err := c.plan(bir.InstID(i)); err != nil {
			return err
		}
	}
	if c.cfg.remapDeps {
		if err := c.planDeps(); err != nil {
			return err
		}
	}
	c.markContent()
	c.pickSeparator()
	return nil
}

// markContent sets loopRec.content: a loop has content when a non-loop
// instruction or a kept loop lies (at any depth) in its body.
func (c *cloner) markContent() {
	mark := func(l int32) {
		for ; l >= 0 && !c.loops[l].content; l = c.loops[l].parent {
			c.loops[l].content = true
		}
	}
	for i := 0; i < c.nslots; i++ {
		p := c.plans[i]
		if p == nil || c.pos[i] < 0 {
			continue
		}
		if li := c.loopOf[i]; li >= 0 {
			if !c.loops[li].expanded {
				mark(c.loops[li].parent)
			}
			continue
		}
		mark(p.loop)
	}
}

// maxExpansionWork bounds the loop iterations expanded plus the clones
// dropped by a false predicate in one function: 4 x the 25M ceiling, like
// the clone guard. Neither creates an instruction, so neither meets the
// ceiling; without the bound a 10^12-iteration loop around an instruction
// predicated on one iteration would run for hours.
const maxExpansionWork = 4 * MaxTotalCount

// step counts one unit of expansion work.
func (c *cloner) step(i bir.InstID) error {
	if c.work++; c.work > maxExpansionWork {
		return diag.Wrap(diag.TooManyInsts, c.errAt(i, "more than %d loop iterations and predicated-off clones to expand; stopping to bound the time (the loops iterate far more than they create: predicates false on almost every iteration?)", int64(maxExpansionWork)))
	}
	return nil
}

// nestWith returns the nest of parent nest + loop li (interned).
func (c *cloner) nestWith(index map[string]int32, parent int32, li int32) int32 {
	key := fmt.Sprint(append(append([]int32(nil), c.nests[parent].loops...), li))
	if n, ok := index[key]; ok {
		return n
	}
	loops := append(append([]int32(nil), c.nests[parent].loops...), li)
	radix := make([]int64, len(loops))
	size := int64(1)
	for k := len(loops) - 1; k >= 0; k-- {
		radix[k] = size
		size = checked.SatMul(size, c.loops[loops[k]].trips)
	}
	n := int32(len(c.nests))
	c.nests = append(c.nests, nestRec{loops: loops, radix: radix, size: size})
	index[key] = n
	return n
}

// inScope reports whether axis a is bound by a loop enclosing the
// instruction whose innermost loop is loop.
func (c *cloner) inScope(loop int32, a affine.Axis) bool {
	for l := loop; l >= 0; l = c.loops[l].parent {
		if c.loops[l].axis == a {
			return true
		}
	}
	return false
}

// boundAxis reports whether a is the axis of an expanded loop enclosing
// the instruction (so it has a value whenever the instruction is cloned).
func (c *cloner) boundAxis(loop int32, a affine.Axis) bool {
	for l := loop; l >= 0; l = c.loops[l].parent {
		if c.loops[l].axis == a {
			return c.loops[l].expanded
		}
	}
	return false
}

func (c *cloner) checkAxes(i bir.InstID, loop int32, axes []affine.Axis, what string, fast *bool) error {
	for _, a := range axes {
		if !c.inScope(loop, a) {
			name := fmt.Sprintf("#%d", a)
			if int(a) >= 0 && int(a) < c.m.NumAxes() {
				name = c.m.AxisName(a)
			}
			return c.f.Errorf(i, "%s uses axis %s, which no enclosing loop binds", what, name)
		}
		if !c.boundAxis(loop, a) {
			*fast = false
		}
	}
	return nil
}

func (c *cloner) plan(i bir.InstID) error {
	f := c.f
	p := c.plans[i]
	in := f.Inst(i)
	p.fast = true
	if in.Pred != 0 {
		if int(in.Pred) >= c.m.NumPreds() {
			return f.Errorf(i, "predicate #%d out of range", in.Pred)
		}
		p.pred = c.comp.pred(in.Pred)
		if err := c.checkAxes(i, p.loop, p.pred.axes, "the predicate", &p.fast); err != nil {
			return err
		}
	}
	if in.Op.IsLoop() {
		return nil
	}
	for k, o := range f.Operands(i) {
		switch o.Kind {
		case bir.OpdSymAP:
			if int(o.Expr) >= c.m.NumExprs() || int(o.OffsetExpr()) >= c.m.NumExprs() || o.OffsetExpr() < 0 || o.Expr < 0 {
				return f.Errorf(i, "operand %d: expression id out of range", k)
			}
			if o.Ref < 0 || int(o.Ref) >= f.NumTensors() || f.Tensor(o.TensorRef()).Dead {
				return f.Errorf(i, "operand %d: symbolic access pattern names no live tensor (#%d)", k, o.Ref)
			}
			so := symOp{k: k, block: c.comp.expr(o.Expr), off: c.comp.expr(o.OffsetExpr())}
			what := fmt.Sprintf("operand %d (symbolic access pattern on %s)", k, f.Tensor(o.TensorRef()).Name)
			if err := c.checkAxes(i, p.loop, so.block.axes, what+" block index", &p.fast); err != nil {
				return err
			}
			if err := c.checkAxes(i, p.loop, so.off.axes, what+" offset", &p.fast); err != nil {
				return err
			}
			p.sym = append(p.sym, so)
		case bir.OpdSymImm:
			if int(o.Expr) >= c.m.NumExprs() || o.Expr < 0 {
				return f.Errorf(i, "operand %d: expression id out of range", k)
			}
			so := symOp{k: k, expr: c.comp.expr(o.Expr)}
			if err := c.checkAxes(i, p.loop, so.expr.axes, fmt.Sprintf("operand %d (symbolic immediate)", k), &p.fast); err != nil {
				return err
			}
			p.sym = append(p.sym, so)
		}
	}
	return nil
}

// pickSeparator chooses the clone-name separator: a string that occurs in
// no original instruction name of the function.
func (c *cloner) pickSeparator() {
	var names []string
	for i := 0; i < c.nslots; i++ {
		if c.pos[i] >= 0 {
			names = append(names, c.f.InstName(bir.InstID(i)))
		}
	}
	free := func(s string) bool {
		for _, n := range names {
			if strings.Contains(n, s) {
				return false
			}
		}
		return true
	}
	for _, s := range []string{".", "#", "@", "~", "$", "^"} {
		if free(s) {
			c.sep = s
			return
		}
	}
	for k := 0; ; k++ {
		s := ".u" + strconv.Itoa(k) + "."
		if free(s) {
			c.sep = s
			return
		}
	}
}

// run expands the function. Nothing is changed before analyze succeeded;
// an error during expansion leaves the function partially rewritten (the
// pass then fails).
func (c *cloner) run() error {
	f := c.f
	f.DropInstNameIndex()
	if c.cfg.reserveInsts > 0 {
		f.Reserve(c.cfg.reserveInsts, c.reserveOperands)
		c.m.ReserveSyms(c.cfg.reserveInsts, c.reserveNames)
		f.ReserveDeps(c.reserveDeps)
	}
	top := append([]bir.BlockID(nil), f.Top...)
	for k, b := range top {
		n := len(c.origs[b])
		if k == 0 {
			n += c.cfg.reserveInsts // the clones usually land in the first block
		}
		list, err := c.expandList(c.origs[b], make([]bir.InstID, 0, n))
		if err != nil {
			return err
		}
		c.replace = append(c.replace, blockReplace{b, list})
	}
	if err := c.drainFixups(); err != nil {
		return err
	}
	for _, r := range c.replace {
		f.ReplaceBlockInsts(r.b, r.list)
	}
	return nil
}

// expandList expands the original instruction list of one block into out.
func (c *cloner) expandList(list []bir.InstID, out []bir.InstID) ([]bir.InstID, error) {
	var err error
	for _, i := range list {
		in := c.f.Inst(i)
		if !in.Op.IsLoop() {
			if out, err = c.inst(i, out); err != nil {
				return nil, err
			}
			continue
		}
		li := c.loopOf[i]
		lr := &c.loops[li]
		if !lr.expanded {
			if out, err = c.keptLoop(i, li, out); err != nil {
				return nil, err
			}
			continue
		}
		if !lr.content {
			continue // expands to nothing
		}
		if in.Pred != 0 {
			// A predicated loop: the whole expansion exists only where the
			// predicate holds (evaluated with the outer iteration).
			p := c.plans[i]
			if p.fast || c.env.bound(p.pred.axes) {
				if !p.pred.eval(c.env.vals) {
					c.markSkipped(li)
					continue
				}
			} else {
				return nil, c.errAt(i, "the loop's predicate depends on a loop that is not unrolled; unroll the enclosing loops too")
			}
		}
		c.active = append(c.active, li)
		// Count iterations rather than step v past ub (v += stride wraps
		// at 2^63: lb 0, ub 2^63-1, stride 2^62 is two iterations).
		v := lr.lb
		for k := int64(0); k < lr.trips; k++ {
			if err := c.step(i); err != nil {
				return nil, err
			}
			c.env.bind(lr.axis, v)
			for _, bb := range lr.body {
				if out, err = c.expandList(c.origs[bb], out); err != nil {
					return nil, err
				}
			}
			if k+1 < lr.trips {
				v += lr.stride // <= the last value, which is < ub
			}
		}
		c.env.unbind(lr.axis)
		c.active = c.active[:len(c.active)-1]
	}
	return out, nil
}

// inExpansion reports whether the current context is inside an expanded
// loop (instructions are then cloned, not kept in place).
func (c *cloner) inExpansion() bool { return len(c.active) > 0 }

// cloneName stores orig's name with the current iteration suffix.
func (c *cloner) cloneName(orig bir.InstID) bir.Sym {
	b := append(c.nameBuf[:0], c.m.StrBytes(c.f.Inst(orig).Name)...)
	for _, li := range c.active {
		b = append(b, c.sep...)
		b = strconv.AppendInt(b, c.env.vals[c.loops[li].axis], 10)
	}
	c.nameBuf = b
	return c.m.NewSymBytes(b)
}

func (c *cloner) suffixed(name string) string {
	b := append(c.nameBuf[:0], name...)
	for _, li := range c.active {
		b = append(b, c.sep...)
		b = strconv.AppendInt(b, c.env.vals[c.loops[li].axis], 10)
	}
	c.nameBuf = b
	return string(b)
}

// inst expands one non-loop instruction.
func (c *cloner) inst(i bir.InstID, out []bir.InstID) ([]bir.InstID, error) {
	f := c.f
	p := c.plans[i]
	if !c.inExpansion() {
		if p.pred != nil && len(p.pred.axes) == 0 && !p.pred.eval(c.env.vals) {
			// A constantly false predicate outside every loop: the
			// instruction never executes.
			c.record(i, bir.NoInst, p)
			return out, nil
		}
		// Kept in place: fold what is constant, remap dependencies.
		if err := c.foldInPlace(i, p); err != nil {
			return nil, err
		}
		c.record(i, i, p)
		if c.cfg.remapDeps {
			if err := c.remapInPlace(i, p); err != nil {
				return nil, err
			}
		}
		c.kept++
		return append(out, i), nil
	}
	fast := p.fast && !c.renaming()
	newPred := bir.PredID(0)
	if p.pred != nil {
		if fast || c.env.bound(p.pred.axes) {
			if !p.pred.eval(c.env.vals) {
				c.record(i, bir.NoInst, p)
				c.droppedCount++
				return out, c.step(i)
			}
		} else {
			pp := c.env.substPred(c.m.Pred(f.Inst(i).Pred))
			if pp.False {
				c.record(i, bir.NoInst, p)
				c.droppedCount++
				return out, c.step(i)
			}
			newPred = c.m.InternPred(pp)
		}
	}
	if c.cfg.count != nil {
		if err := c.cfg.count(c.cfg.removable != nil && c.cfg.removable(i)); err != nil {
			return nil, c.wrapAt(i, err)
		}
	}
	cl := f.Clone(i, c.cloneName(i))
	if f.Inst(cl).Op == bir.OpCoreBarrier {
		c.clonedBarrier = true
	}
	f.Inst(cl).Pred = newPred
	for k := range p.sym {
		so := &p.sym[k]
		var err error
		if fast {
			err = c.foldFast(cl, i, so)
		} else {
			err = c.foldSlow(cl, i, so)
		}
		if err != nil {
			return nil, err
		}
	}
	c.record(i, cl, p)
	if c.cfg.remapDeps && len(p.deps) > 0 {
		if err := c.remapClone(i, cl, p); err != nil {
			return nil, err
		}
	}
	c.clones++
	return append(out, cl), nil
}

// renaming reports whether some kept loop was re-created in the current
// context (its axis is renamed), which forces the slow path.
func (c *cloner) renaming() bool { return c.renames > 0 }

// record notes the instance of orig in the current iteration (NoInst when
// the predicate dropped it).
func (c *cloner) record(orig, inst bir.InstID, p *instPlan) {
	c.lastClone[orig] = inst
	if p.order {
		t := c.ords[orig]
		o := c.ordinal(p.nest)
		if inst == bir.NoInst {
			t.clones[o] = dropped
		} else {
			t.clones[o] = inst
		}
	}
}

// ordinal returns the index of the current iteration in nest n.
func (c *cloner) ordinal(n int32) int64 {
	nr := &c.nests[n]
	var o int64
	for k, li := range nr.loops {
		lr := &c.loops[li]
		o += checked.Iteration(c.env.vals[lr.axis], lr.lb, lr.stride) * nr.radix[k]
	}
	return o
}

// markSkipped records that no instruction of loop li's body has an
// instance in the current iteration (the loop's predicate is false), so
// that later dependencies do not reach a stale instance.
func (c *cloner) markSkipped(li int32) {
	for _, bb := range c.loops[li].body {
		for _, i := range c.origs[bb] {
			c.lastClone[i] = bir.NoInst
			if l := c.loopOf[i]; l >= 0 {
				c.markSkipped(l)
			}
		}
	}
}
