package bir

// Loops whose trip count is known only at run time (runtime loops).
//
// A DoWhile, and a DynamicForLoop with register bounds (ins lb, ub,
// stride), runs a number of iterations the program computes: an NKI
// kernel's nl.dynamic_range over registers, a `while reg:` loop. The
// machine runs one copy of the body that the streams iterate; what a
// compile-time analysis can know of it is the body, not the count. The
// passes after FullUnroll read such a loop through a window: its
// expansion (Expand) at a few trip counts chosen by the caller
// (ExpandOptions.RuntimeTrips), sound for every trip count under the
// rules CheckRuntimeLoops enforces:
//
//   - no symbolic operand, immediate, predicate or dependency predicate
//     of the body names the loop's axis (LowerDynamicExprs rewrote them
//     into registers; the axis table entry is a placeholder, so an
//     evaluation would be wrong): the expansion leaves the axis unbound,
//     and an expression over it is an error. Every iteration of the body
//     therefore touches the same bytes, a register access pattern
//     standing for its whole tensor (depgraph's rule), so the
//     dependencies of iteration k+1 on iteration k are those of 1 on 0,
//     and a conflict at distance d >= 2 is ordered by a chain of conflicts
//     at distance <= 1 (the same footprints are touched in between): a
//     window of two iterations (RuntimeLoopWindow) shows every dependency
//     the loop needs, at distance 0 or 1;
//   - every loop enclosing a runtime loop has at most one iteration (a
//     static trip count <= 1, or a runtime loop whose bound
//     RuntimeTripBound proves <= 1: the guard around a `while reg:`'s
//     DoWhile), so a runtime loop is entered at most once per call of its
//     function and the semaphore counts of a loop enclosing it never
//     multiply a run-time count (a wait's iteration term over that
//     loop's axis is 0 whenever the body runs).
//
// The iteration-invariance argument also covers synchronization: a
// happens-before chain from instance X(k) to Y(k+1) only passes through
// instances of iterations k and k+1 (waits name sources of the same or
// an earlier iteration), and the waits' counts are affine in k, so the
// chain for iterations (k, k+1) is the one for (0, 1) moved by k
// iterations; the verifier checks the window at 0, 1 and 2 iterations
// (every boundary: no iteration, one, a pair).

// RuntimeLoopWindow is the number of iterations the analyses expand a
// runtime loop with (see above), capped by RuntimeTripBound.
const RuntimeLoopWindow = 2

// IsRuntimeLoop reports whether loop instruction i has a trip count known
// only at run time (a DoWhile, a DynamicForLoop with register operands).
func (f *Function) IsRuntimeLoop(i InstID) bool {
	if int(i) < 0 || int(i) >= len(f.insts) || !f.insts[i].Op.IsLoop() {
		return false
	}
	_, static := f.StaticTripCount(i)
	return !static
}

// comparisonOps are the RegisterAlu operations whose result is 0 or 1.
var comparisonOps = map[string]bool{"is_equal": true, "not_equal": true, "is_ge": true, "is_gt": true, "is_le": true, "is_lt": true, "logical_and": true, "logical_or": true}

// RuntimeTripBound returns an upper bound of the trip count of runtime
// loop i that holds in every run, when one is evident: a DynamicForLoop
// with an immediate lower bound and positive immediate stride whose upper
// bound is an immediate or a register every writer of which is a
// RegisterAlu comparison (its value is 0 or 1). The guard of a `while
// reg:` loop (range(0, reg != 0, 1)) has bound 1.
func (f *Function) RuntimeTripBound(i InstID) (int64, bool) {
	if int(i) < 0 || int(i) >= len(f.insts) || f.insts[i].Op != OpDynamicForLoop {
		return 0, false
	}
	ins := f.Ins(i)
	if len(ins) != 3 || ins[0].Kind != OpdImm || ins[2].Kind != OpdImm || ins[2].Offset <= 0 {
		return 0, false
	}
	lb, stride := ins[0].Offset, ins[2].Offset
	ub := int64(0)
	switch ins[1].Kind {
	case OpdImm:
		ub = ins[1].Offset
	case OpdRegister:
		r := ins[1].Ref
		ok, writers := true, 0
		f.Walk(func(j InstID) bool {
			for _, o := range f.Outs(j) {
				if o.Kind == OpdRegister && o.Ref == r {
					writers++
					if f.insts[j].Op != OpRegisterAlu || !comparisonOps[f.Attrs(j).Str("op", "")] {
						ok = false
					}
				}
			}
			return ok
		})
		if !ok || writers == 0 {
			return 0, false
		}
		ub = 1
	default:
		return 0, false
	}
	if ub <= lb {
		return 0, true
	}
	return (ub - lb + stride - 1) / stride, true
}

// CheckRuntimeLoops returns an error when a runtime loop of f is nested in
// a loop that may run more than one iteration (see the file comment).
func (f *Function) CheckRuntimeLoops() error {
	var err error
	f.Walk(func(i InstID) bool {
		if !f.IsRuntimeLoop(i) {
			return true
		}
		for _, l := range f.Loopnest(i) {
			n, ok := f.StaticTripCount(l)
			if !ok {
				n, ok = f.RuntimeTripBound(l)
			}
			if !ok || n > 1 {
				err = f.Errorf(i, "a %s whose trip count is known only at run time, inside loop %s, which may run more than one iteration: narwhal schedules and synchronizes a runtime loop at the top level of its function or inside guards of at most one iteration (the semaphore counts of the outer loop would multiply a run-time count)", f.OpName(i), f.InstName(l))
				return false
			}
		}
		return true
	})
	return err
}

// AnalysisTrips returns the ExpandOptions.RuntimeTrips that expands every
// runtime loop with n iterations, or its RuntimeTripBound when that is
// smaller.
func AnalysisTrips(n int64) func(f *Function, loop InstID) (int64, bool) {
	return func(f *Function, loop InstID) (int64, bool) {
		if b, ok := f.RuntimeTripBound(loop); ok && b < n {
			return b, true
		}
		return n, true
	}
}

// RuntimeLoopControlWriters returns the instructions that write a register
// the control of runtime loop l, or of a runtime loop in its body, reads:
// a DynamicForLoop's register bounds (read at entry), a DoWhile's
// condition (read after each pass).
func (f *Function) RuntimeLoopControlWriters(l InstID) []InstID {
	regs := map[int32]bool{}
	var loops func(i InstID)
	loops = func(i InstID) {
		for _, o := range f.Ins(i) {
			if o.Kind == OpdRegister {
				regs[o.Ref] = true
			}
		}
		for _, b := range f.Loop(i).Body {
			for _, j := range f.Block(b).Insts {
				if f.Inst(j).Op.IsLoop() && f.IsRuntimeLoop(j) {
					loops(j)
				}
			}
		}
	}
	loops(l)
	var out []InstID
	f.Walk(func(i InstID) bool {
		if f.Inst(i).Dead() || f.Inst(i).Op.IsLoop() {
			return true
		}
		for _, o := range f.Outs(i) {
			if o.Kind == OpdRegister && regs[o.Ref] {
				out = append(out, i)
				break
			}
		}
		return true
	})
	return out
}

// RuntimeLoopEngine returns the engine that iterates runtime loop l: the
// engine of the first instruction of its body or of the writers of its
// control registers that names one (assign_engines puts them all on one
// engine; the verifier checks it), EngUnassigned when none does.
func (f *Function) RuntimeLoopEngine(l InstID) Engine {
	e := EngUnassigned
	look := func(i InstID) bool {
		in := &f.insts[i]
		if in.Dead() || in.Op.IsLoop() || in.Op.Info().Has(FlagDMA) {
			return true
		}
		if in.Engine != EngUnassigned && in.Engine != EngDMA && in.Engine < NumEngines {
			e = in.Engine
			return false
		}
		return true
	}
	for _, b := range f.Loop(l).Body {
		f.WalkBlock(b, look)
		if e != EngUnassigned {
			return e
		}
	}
	for _, i := range f.RuntimeLoopControlWriters(l) {
		if !look(i) {
			break
		}
	}
	return e
}

// OutermostRuntimeLoops returns the runtime loops of f not nested in
// another runtime loop, in program order.
func (f *Function) OutermostRuntimeLoops() []InstID {
	var out []InstID
	f.Walk(func(i InstID) bool {
		if !f.IsRuntimeLoop(i) {
			return true
		}
		for _, l := range f.Loopnest(i) {
			if f.IsRuntimeLoop(l) {
				return true
			}
		}
		out = append(out, i)
		return true
	})
	return out
}
