// Expanding a function that keeps loops into its instances (Expand): the
// straight-line program its engines execute.
//
// A function that keeps loops (FullUnroll levels 0 and 1, an NKI kernel's
// dynamic_range loop) runs on the machine as one copy of each loop body
// that the engines iterate ("a single copy of the body is generated and
// the hardware iterates over it at runtime", NKI's dynamic loops): every
// engine stream and DMA queue executes, in program order, the instances of
// its instructions, iteration after iteration. The instance sequence of a
// stream is therefore the projection of the function's sequential order
// (the interpreter's: loops iterate their bodies in place) onto the
// stream. Expand makes that sequence a function: a deep copy of the module
// in which every function with loops is straight-line, each loop replaced
// by the instances of its body, so that what reads straight-line code (the
// dependence analysis, the schedule and synchronization rules, the stream
// model, the concurrent interpreter) reads the loop program as the
// hardware runs it.
//
// An instance of instruction X at iteration vector k (the iteration index
// of each enclosing loop, outermost first; the axis value is lb + k*stride)
// is a clone of X named "X@i=2" ("X@m=1,k=0" in nested loops) with:
//
//   - its symbolic access patterns evaluated at k: the block picks the
//     tensor's location (Function.LocForBlock) and the offset is constant,
//     so the operand becomes a physical access pattern; symbolic
//     immediates become immediates;
//   - its predicate evaluated: true, or false (the instance then does
//     nothing; its semaphore commands still execute, so that the counts of
//     a stream advance the same in every iteration: the stream package's
//     loop model);
//   - its dependencies mapped onto instances by the unroller's semantics
//     (passes/unroll/deps.go: C the loops enclosing both, the target
//     agrees with k on C except CarryDist iterations earlier on the carry
//     loop, and with CarryAll only on the loops of C up to the carry loop;
//     a dependency whose source iteration does not exist, or whose
//     predicate is false at k, has no instance), to every target instance
//     (on the source's loops that do not enclose the dependent, every
//     iteration is a target). A dependency on a loop instruction depends
//     on its body's instances of the selected iterations;
//   - its schedule entry moved by the loops' periods (Schedule.Period):
//     Start + sum of k_l * Period_l, the same for End; Order renumbered in
//     program order per engine and queue;
//   - its waits evaluated: Value + the iteration term at k
//     (Sync.SetWaitsIter); its updates and trigger as X's.
//
// Instructions outside every loop keep their ids (their dependencies on
// loop instructions are mapped to the last instances). Trip counts must be
// static: a Loop's axis, a DynamicForLoop whose bounds are its axis's (no
// register operands); a DoWhile or a DynamicForLoop with run-time bounds
// has no expansion (an error). The instances are bounded by
// ExpandOptions.MaxInstances.
package bir

import (
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// DefaultMaxInstances bounds an expansion (the instructions of the
// straight-line copy of one function) unless ExpandOptions says otherwise.
const DefaultMaxInstances = 4 << 20

// ExpandOptions configure Expand.
type ExpandOptions struct {
	// MaxInstances bounds the instances of one function (0: the default).
	MaxInstances int64
	// Only, when set, expands only that function of the module (by name);
	// the others are copied as they are.
	Only string
}

// Expansion is a copy of a module whose functions with loops are
// straight-line.
type Expansion struct {
	M *Module
	// Funcs[k] describes function k of M (nil: it had no loop and is an
	// exact copy).
	Funcs []*FuncExpansion
}

// FuncExpansion maps a straight-line copy back to its source function.
type FuncExpansion struct {
	F   *Function // in the expansion's module
	Src *Function // the source function
	// Orig[i] is the source instruction instruction i of F is an instance
	// of (its own id for an instruction outside every loop), NoInst for
	// slots of F that are no instance.
	Orig []InstID
	// The iteration vector of instance i: Iters[IterAt[i]:IterAt[i+1]]
	// (the indices of its enclosing loops, outermost first).
	IterAt []int32
	Iters  []int64
	// Instances lists F's instructions in program order.
	Instances []InstID
}

// Iteration returns the iteration vector of instance i (nil outside every
// loop).
func (x *FuncExpansion) Iteration(i InstID) []int64 {
	if int(i) < 0 || int(i)+1 >= len(x.IterAt) {
		return nil
	}
	return x.Iters[x.IterAt[i]:x.IterAt[i+1]]
}

// HasLoops reports whether f has a loop instruction.
func HasLoops(f *Function) bool {
	found := false
	f.Walk(func(i InstID) bool {
		found = f.insts[i].Op.IsLoop()
		return !found
	})
	return found
}

// StaticTripCount returns the trip count of loop instruction i when it is
// known before the loop runs: a Loop's, or a DynamicForLoop's whose bounds
// are its axis's (no register operands). ok is false for a DoWhile and a
// DynamicForLoop with run-time bounds.
func (f *Function) StaticTripCount(i InstID) (n int64, ok bool) {
	in := &f.insts[i]
	switch in.Op {
	case OpLoop:
	case OpDynamicForLoop:
		if in.NIns != 0 {
			return 0, false
		}
	default:
		return 0, false
	}
	if in.Aux < 0 || int(in.Aux) >= len(f.loops) {
		return 0, false
	}
	ax := f.m.Axis(f.loops[in.Aux].Axis)
	if ax.Stride <= 0 {
		return 0, false
	}
	return ax.TripCount(), true
}

// Expand returns the expansion of m (see the file comment). m is not
// modified.
func Expand(m *Module, opt ExpandOptions) (*Expansion, error) {
	c, err := CopyModule(m)
	if err != nil {
		return nil, err
	}
	x := &Expansion{M: c, Funcs: make([]*FuncExpansion, len(c.Funcs))}
	for k, f := range c.Funcs {
		if opt.Only != "" && f.Name != opt.Only || !HasLoops(f) {
			continue
		}
		fx, err := expandFunc(f, m.Funcs[k], opt)
		if err != nil {
			return nil, err
		}
		x.Funcs[k] = fx
	}
	return x, nil
}

// Func returns the expansion of the function named name (nil when it has
// none).
func (x *Expansion) Func(name string) *FuncExpansion {
	for k, f := range x.M.Funcs {
		if f.Name == name {
			return x.Funcs[k]
		}
	}
	return nil
}

type expander struct {
	f     *Function // the copy, expanded in place
	src   *Function
	m     *Module
	max   int64
	fx    *FuncExpansion
	env   affine.Values
	stack []int64  // current iteration indices
	loops []InstID // current loops, outermost first
	// inst[orig] lists orig's instances by ordinal (the mixed-radix index
	// of the iteration over orig's loop nest); nil for an instruction
	// outside every loop (its instance is itself).
	inst     map[InstID][]InstID
	nest     map[InstID][]InstID // orig -> its loop nest (outermost first)
	trips    map[InstID]int64    // loop -> trip count
	count    int64
	predNo   PredID // the false predicate
	names    map[string]bool
	iterOf   []iterRec // the iteration vector of each instance in a loop
	iterPool []int64
	top      [][]InstID // new list of each top-level block
	seq      []InstID   // the instances in program order
}

func expandFunc(f, src *Function, opt ExpandOptions) (*FuncExpansion, error) {
	e := &expander{f: f, src: src, m: f.m, max: opt.MaxInstances, inst: map[InstID][]InstID{}, nest: map[InstID][]InstID{}, trips: map[InstID]int64{}, names: map[string]bool{}}
	if e.max <= 0 {
		e.max = DefaultMaxInstances
	}
	e.predNo = f.m.InternPred(affine.Pred{False: true})
	n0 := len(f.insts)
	for i := range n0 {
		if !f.insts[i].Dead() {
			e.names[f.m.Str(f.insts[i].Name)] = true
		}
	}
	// Trip counts and nests first (the ordinal tables need them).
	var err error
	f.Walk(func(i InstID) bool {
		in := &f.insts[i]
		if in.Op.IsLoop() {
			n, ok := f.StaticTripCount(i)
			if !ok {
				err = f.Errorf(i, "a %s whose trip count is known only at run time: narwhal schedules and synchronizes loops of static trip counts (a Loop, a DynamicForLoop bounded by its axis)", f.OpName(i))
				return false
			}
			e.trips[i] = n
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	e.fx = &FuncExpansion{F: f, Src: src}
	for _, b := range f.Top {
		list, err := e.block(b, nil)
		if err != nil {
			return nil, err
		}
		e.top = append(e.top, list)
	}
	// Dependencies of every instance, then the new blocks.
	if err := e.deps(); err != nil {
		return nil, err
	}
	for k, b := range f.Top {
		f.ReplaceBlockInsts(b, e.top[k])
	}
	e.tables()
	e.fx.Instances = e.seq
	return e.fx, nil
}

// block expands block b's instructions into out (the instances, in
// program order).
func (e *expander) block(b BlockID, out []InstID) ([]InstID, error) {
	f := e.f
	for _, i := range f.blocks[b].Insts {
		in := &f.insts[i]
		if in.Dead() {
			continue
		}
		if in.Op.IsLoop() {
			var err error
			if out, err = e.loop(i, out); err != nil {
				return nil, err
			}
			continue
		}
		if len(e.loops) == 0 {
			e.record(i, i)
			out = append(out, i)
			continue
		}
		if e.count++; e.count > e.max {
			return nil, fmt.Errorf("function %s: the expansion of its loops exceeds %d instances", f.Name, e.max)
		}
		cl, err := e.clone(i)
		if err != nil {
			return nil, err
		}
		e.record(cl, i)
		out = append(out, cl)
	}
	return out, nil
}

func (e *expander) loop(i InstID, out []InstID) ([]InstID, error) {
	f := e.f
	li := f.loops[f.insts[i].Aux]
	ax := f.m.Axis(li.Axis)
	n := e.trips[i]
	e.loops = append(e.loops, i)
	e.stack = append(e.stack, 0)
	v := ax.Lb
	for k := int64(0); k < n; k++ {
		e.stack[len(e.stack)-1] = k
		e.env.Bind(li.Axis, v)
		for _, b := range li.Body {
			var err error
			if out, err = e.block(b, out); err != nil {
				return nil, err
			}
		}
		if k+1 < n {
			v += ax.Stride
		}
	}
	e.env.Unbind(li.Axis)
	e.loops = e.loops[:len(e.loops)-1]
	e.stack = e.stack[:len(e.stack)-1]
	return out, nil
}

// record notes instance inst of orig at the current iteration.
func (e *expander) record(inst, orig InstID) {
	fx := e.fx
	for int(inst) >= len(fx.Orig) {
		fx.Orig = append(fx.Orig, NoInst)
	}
	fx.Orig[inst] = orig
	e.seq = append(e.seq, inst)
	if len(e.loops) == 0 {
		return
	}
	// IterAt is filled by tables() from the per-instance vectors kept
	// here in instance order.
	e.iterOf = append(e.iterOf, iterRec{inst: inst, at: int32(len(e.iterPool))})
	e.iterPool = append(e.iterPool, e.stack...)
	nest, ok := e.nest[orig]
	if !ok {
		nest = append([]InstID(nil), e.loops...)
		e.nest[orig] = nest
		size := int64(1)
		for _, l := range nest {
			size, _ = checked.Mul(size, max(e.trips[l], 1))
		}
		e.inst[orig] = make([]InstID, size)
	}
	e.inst[orig][e.ordinal(nest, e.stack)] = inst
}

type iterRec struct {
	inst InstID
	at   int32
}

func (e *expander) ordinal(nest []InstID, k []int64) int64 {
	var o int64
	for d, l := range nest {
		o = o*max(e.trips[l], 1) + k[d]
	}
	return o
}

// clone makes the instance of body instruction i at the current
// iteration.
func (e *expander) clone(i InstID) (InstID, error) {
	f := e.f
	name := f.m.Str(f.insts[i].Name) + "@" + e.iterName()
	for k := 2; e.names[name]; k++ {
		name = f.m.Str(f.insts[i].Name) + "@" + e.iterName() + "#" + strconv.Itoa(k)
	}
	e.names[name] = true
	cl := f.Clone(i, f.m.NewSym(name))
	ops := f.Operands(cl)
	for k := range ops {
		o := ops[k]
		switch o.Kind {
		case OpdSymAP:
			blk, err := f.m.Expr(o.BlockExpr()).Eval(&e.env)
			if err != nil {
				return NoInst, f.Errorf(i, "operand %d: block index: %v", k, err)
			}
			off, err := f.m.Expr(o.OffsetExpr()).Eval(&e.env)
			if err != nil {
				return NoInst, f.Errorf(i, "operand %d: offset: %v", k, err)
			}
			t := o.TensorRef()
			if int(t) < 0 || int(t) >= len(f.tensors) {
				return NoInst, f.Errorf(i, "operand %d names no tensor", k)
			}
			loc, ok := f.LocForBlock(t, blk)
			if !ok {
				return NoInst, f.Errorf(i, "operand %d: tensor %s has no location for block %d", k, f.tensors[t].Name, blk)
			}
			n := PhysAP(loc, o.Dtype, off, o.Pattern)
			n.Extra, n.Flags = o.Extra, o.Flags
			f.SetOperand(cl, k, n)
		case OpdSymImm:
			v, err := f.m.Expr(o.Expr).Eval(&e.env)
			if err != nil {
				return NoInst, f.Errorf(i, "operand %d: %v", k, err)
			}
			n := ImmI(v, o.Dtype)
			n.Extra = o.Extra
			f.SetOperand(cl, k, n)
		}
	}
	if p := f.insts[cl].Pred; p != 0 {
		ok, err := f.m.Pred(p).Eval(&e.env)
		if err != nil {
			return NoInst, f.Errorf(i, "predicate: %v", err)
		}
		if ok {
			f.insts[cl].Pred = 0
		} else {
			f.insts[cl].Pred = e.predNo
		}
	}
	return cl, nil
}

// iterName is the current iteration as "i=2" or "m=1,k=0".
func (e *expander) iterName() string {
	var b []byte
	for d, l := range e.loops {
		if d > 0 {
			b = append(b, ',')
		}
		b = append(b, e.m.Axis(e.f.loops[e.f.insts[l].Aux].Axis).Name...)
		b = append(b, '=')
		b = strconv.AppendInt(b, e.stack[d], 10)
	}
	return string(b)
}

// vectors returns the iteration vector of every instance (by slot).
func (e *expander) vectors() [][]int64 {
	vec := make([][]int64, len(e.f.insts))
	for _, r := range e.iterOf {
		d := len(e.nest[e.fx.Orig[r.inst]])
		vec[r.inst] = e.iterPool[r.at : int(r.at)+d : int(r.at)+d]
	}
	return vec
}

// bind binds the axes of nest to iteration vector k.
func (e *expander) bind(nest []InstID, k []int64) {
	for d, l := range nest {
		ax := e.m.Axis(e.f.loops[e.f.insts[l].Aux].Axis)
		e.env.Bind(e.f.loops[e.f.insts[l].Aux].Axis, ax.Lb+k[d]*ax.Stride)
	}
}

func (e *expander) unbind(nest []InstID) {
	for _, l := range nest {
		e.env.Unbind(e.f.loops[e.f.insts[l].Aux].Axis)
	}
}

// deps gives every instance the instance dependencies of its source.
func (e *expander) deps() error {
	f := e.f
	vec := e.vectors()
	type edge struct {
		on   InstID
		kind DepKind
	}
	out := make([][]edge, len(f.insts))
	idx := make([]int64, 0, 8)
	for _, y := range e.seq {
		Y := e.fx.Orig[y]
		nestY := e.nest[Y]
		q := vec[y]
		e.bind(nestY, q)
		seen := map[InstID]int{}
		add := func(on InstID, kind DepKind) {
			if k, ok := seen[on]; ok {
				if kind < out[y][k].kind {
					out[y][k].kind = kind
				}
				return
			}
			seen[on] = len(out[y])
			out[y] = append(out[y], edge{on, kind})
		}
		for k := f.insts[Y].Deps; k >= 0; {
			d, next, ok := f.DepRecord(k)
			if !ok {
				break
			}
			k = next
			X := d.On
			if int(X) < 0 || int(X) >= len(f.insts) || f.insts[X].Dead() {
				continue
			}
			if d.Pred != 0 {
				ok, err := f.m.Pred(d.Pred).Eval(&e.env)
				if err != nil {
					return f.Errorf(Y, "dependency on %s: predicate: %v", f.InstName(X), err)
				}
				if !ok {
					continue
				}
			}
			nestX := f.Loopnest(X)
			c := 0
			for c < len(nestX) && c < len(nestY) && nestX[c] == nestY[c] {
				c++
			}
			idx = append(idx[:0], q[:c]...)
			if d.CarryAxis != NoAxis {
				a := -1
				for j := 0; j < c; j++ {
					if f.loops[f.insts[nestX[j]].Aux].Axis == d.CarryAxis {
						a = j
					}
				}
				if a < 0 {
					return f.Errorf(Y, "dependency on %s is carried by axis %s, which is no loop enclosing both", f.InstName(X), e.m.AxisName(d.CarryAxis))
				}
				idx[a] -= int64(d.CarryDist)
				if idx[a] < 0 {
					continue
				}
				if d.CarryAll {
					idx = idx[:a+1] // every iteration of the loops inside the carry loop
				}
			}
			e.targets(X, idx, func(t InstID) { add(t, d.Kind) })
		}
		e.unbind(nestY)
	}
	for _, y := range e.seq {
		if len(e.nest[e.fx.Orig[y]]) == 0 {
			f.ClearDeps(y)
		}
		for _, d := range out[y] {
			f.AddDep(y, Dep{On: d.on, Kind: d.kind, CarryAxis: NoAxis})
		}
	}
	return nil
}

// targets calls fn with every instance of X (of every instruction of the
// body of loop X) whose indices on the first len(prefix) loops of its
// nest are prefix.
func (e *expander) targets(X InstID, prefix []int64, fn func(InstID)) {
	f := e.f
	if !f.insts[X].Op.IsLoop() {
		nest := e.nest[X]
		tab := e.inst[X]
		if len(nest) == 0 {
			fn(X)
			return
		}
		if tab == nil {
			return // no instance (a loop of no iteration)
		}
		// Every instance on the loops of X that do not enclose the
		// dependent (the unroller's semantics: each iteration there is a
		// target), in program order.
		k := make([]int64, len(nest))
		copy(k, prefix)
		for d := len(prefix); d < len(nest); d++ {
			if e.trips[nest[d]] <= 0 {
				return
			}
		}
		for {
			fn(tab[e.ordinal(nest, k)])
			d := len(nest) - 1
			for d >= len(prefix) {
				if k[d]++; k[d] < e.trips[nest[d]] {
					break
				}
				k[d] = 0
				d--
			}
			if d < len(prefix) {
				return
			}
		}
	}
	for _, b := range f.loops[f.insts[X].Aux].Body {
		for _, i := range f.blocks[b].Insts {
			if !f.insts[i].Dead() {
				e.targets(i, prefix, fn)
			}
		}
	}
}

// tables gives the instances their schedule and synchronization entries
// and fills the iteration vectors.
func (e *expander) tables() {
	f := e.f
	n := len(f.insts)
	vec := e.vectors()
	fx := e.fx
	for len(fx.Orig) < n {
		fx.Orig = append(fx.Orig, NoInst)
	}
	fx.IterAt = make([]int32, n+1)
	for i := range n {
		fx.IterAt[i] = int32(len(fx.Iters))
		fx.Iters = append(fx.Iters, vec[i]...)
	}
	fx.IterAt[n] = int32(len(fx.Iters))
	if t := f.Sched; t != nil {
		t.Grow(n)
		order := map[int32]int32{}
		for _, y := range e.seq {
			X := fx.Orig[y]
			if y != X && int(X) < t.Len() {
				shift := int64(0)
				for d, l := range e.nest[X] {
					shift += vec[y][d] * t.PeriodOf(l)
				}
				if t.Start[X] >= 0 {
					t.Start[y], t.End[y] = t.Start[X]+shift, t.End[X]+shift
				}
				t.Queue[y], t.DGE[y] = t.Queue[X], t.DGE[X]
			}
			r := int32(f.insts[y].Engine)
			if q := t.Queue[y]; q >= 0 {
				r = int32(NumEngines) + int32(q)
			}
			if t.Order[y] >= 0 || y != X {
				t.Order[y] = order[r]
				order[r]++
			}
		}
		t.Period = nil
	}
	if s := f.Sync; s != nil {
		s.Grow(n)
		var cmds []SemCmd
		for _, y := range e.seq {
			X := fx.Orig[y]
			if y == X || int(X) >= s.Len() {
				continue
			}
			s.Trigger[y] = s.Trigger[X]
			if u := s.Updates(X); len(u) > 0 {
				s.SetUpdates(y, append([]SemCmd(nil), u...))
			}
			w := s.Waits(X)
			if len(w) == 0 {
				continue
			}
			its := s.WaitIters(X)
			e.bind(e.nest[X], vec[y])
			cmds = append(cmds[:0], w...)
			for k := range cmds {
				if k < len(its) && its[k] != 0 {
					v, err := e.m.Expr(its[k]).Eval(&e.env)
					if err == nil {
						cmds[k].Value = int32(max(min(int64(cmds[k].Value)+v, 1<<31-1), -1<<31))
					}
				}
			}
			e.unbind(e.nest[X])
			s.SetWaits(y, cmds)
		}
		s.Compact()
		s.iters = nil // straight-line: every value is a constant
	}
}
