package api

// Tracing a kernel: TraceKernel, the SPMD grid, and the loop rule of
// nl.affine_range / nl.sequential_range.
//
// # Loops
//
// A for loop over nl.affine_range or nl.sequential_range is traced by its
// Range (the tracer's Looper protocol): the body runs once with a symbolic
// iterator inside a new kept BIR loop. The loop is unrolled instead (the
// run rolled back: its Python effects by the tracer, its instructions,
// tiles and loops by lower.Kernel.AbortLoop; then the body runs once per
// iteration with a concrete int) by the rule of the package that made the
// range (Range.rule; docs/nki.md "The loop rule"):
//
//   - both rules: when the run needed the iterator's value (a NeedConcrete
//     involving the loop: `if i == 0:`, range(i), a list index, a mask the
//     predicate split cannot express), or left by break or return;
//   - the current API's Python-consistent rule also when the body's Python
//     effects depend on the iteration: it mutated a container that existed
//     before the loop (list.append), rebound a variable of a Python value
//     (int, float, str, tuple ...) to a different value (`off += 128`,
//     `first = False`), or rebound a variable whose previous tile or index
//     it read (`acc = acc + x`: a value carried from one iteration to the
//     next through Python).
//
// The legacy rule is neuronxcc.nki's "traced once": the Python effects of
// the one run stand (a counter advanced in the body advances once).
// Rebinding a variable to a fresh tile or index without reading its old
// value (i_p = nl.mgrid[...] in every loop, x = nl.load(...)) keeps the
// loop under both. A known cost of the current rule: a Python
// `for j in range(n)` inside a kept body that reuses a loop variable name
// from before the loop (j bound to another int before) counts as a
// rebinding to a different value and unrolls the outer loop; the tracer
// reports no reads of variables (docs/nki.md).
//
// nl.static_range and Python's range always unroll (Python iterates).
//
// # SPMD
//
// With a launch grid, every grid dimension of more than one program is a
// kept loop over the program id (BeginGrid), outermost, and the kernel
// function is called once inside them. When the trace needs a program id's
// value (Python control flow on nl.program_id), everything is discarded
// and the kernel is traced again with that grid dimension unrolled: one
// call per program id, concrete. Tensors made by nl.ndarray(...,
// buffer=nl.shared_hbm) are then one tensor per call site (per occurrence
// in a program), shared by all programs, as shared_hbm is; every program
// must return the same tensors. Python state changed by a discarded trace
// (module globals a kernel mutates) is not restored: the retry is a new
// call of the kernel function.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Range is nl.affine_range, nl.sequential_range or nl.static_range.
type Range struct {
	kind              string
	start, stop, step int64
	rule              loopRule
}

// loopRule is the rule a kept-loop candidate follows (docs/nki.md, "The
// loop rule"): the package that made the range decides it.
type loopRule uint8

const (
	// ruleLegacy is neuronxcc.nki's: the body is traced once with the
	// symbolic iterator and its Python effects are those of that one run
	// (the NKI 0.2 migration guide: "loops were only executed once by the
	// Python evaluator"); the loop unrolls only when the trace cannot go
	// on without the iterator's value, or leaves by break or return.
	ruleLegacy loopRule = iota
	// rulePython is the current nki package's: the loop is kept only when
	// keeping it computes what Python computes ("The behavior of loops and
	// branching is consistent with regular Python"): also when the body's
	// Python effects depend on the iteration, it unrolls.
	rulePython
)

func newRange(th *tracer.Thread, kind string, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	return newRangeRule(th, kind, ruleLegacy, args, kwargs)
}

func newRangeRule(th *tracer.Thread, kind string, rule loopRule, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var n []int64
	for _, a := range args {
		v, err := tracer.AsInt64(th, a)
		if err != nil {
			if _, ok := tracer.AsNeedConcrete(err); ok {
				return nil, err
			}
			return nil, typeErrorf("nl.%s: the bounds must be integers, not %s", kind, a.Type())
		}
		n = append(n, v)
	}
	for _, kw := range kwargs {
		// NKI's loop options (multi_buffer=, ...) do not change values.
		_ = kw
	}
	r := &Range{kind: kind, step: 1, rule: rule}
	switch len(n) {
	case 1:
		r.stop = n[0]
	case 2:
		r.start, r.stop = n[0], n[1]
	case 3:
		r.start, r.stop, r.step = n[0], n[1], n[2]
	default:
		return nil, typeErrorf("nl.%s expected 1 to 3 arguments, got %d", kind, len(n))
	}
	if r.step == 0 {
		return nil, tracer.Errorf("ValueError", "nl.%s() arg 3 must not be zero", kind)
	}
	return r, nil
}

func (r *Range) Type() string { return r.kind }
func (r *Range) String() string {
	return fmt.Sprintf("%s(%d, %d, %d)", r.kind, r.start, r.stop, r.step)
}
func (r *Range) Truth() (bool, error) { return lower.TripCount(r.start, r.stop, r.step) > 0, nil }

// Len is the number of iterations.
func (r *Range) Len(th *tracer.Thread) (int, error) {
	return int(lower.TripCount(r.start, r.stop, r.step)), nil
}

// Iterate iterates concretely (list(nl.affine_range(4)), comprehensions).
func (r *Range) Iterate(th *tracer.Thread) (tracer.Iterator, error) {
	i := r.start
	n := lower.TripCount(r.start, r.stop, r.step)
	k := int64(0)
	return iterFunc(func() (tracer.Value, bool) {
		if k >= n {
			return nil, false
		}
		v := i
		i += r.step
		k++
		return tracer.MakeInt(v), true
	}), nil
}

// TraceLoop traces a for loop over the range (see the file comment).
func (r *Range) TraceLoop(th *tracer.Thread, body tracer.LoopBody) error {
	st := current(th)
	trip := lower.TripCount(r.start, r.stop, r.step)
	if st == nil || r.kind == "static_range" || trip == 0 {
		return r.unroll(body)
	}
	st.k.SetPos(birPos(body.Pos()))
	cp := body.Checkpoint()
	c0 := st.tick()
	nw := len(st.whiles)
	l, err := st.k.BeginLoop(body.Target(), r.start, r.stop, r.step)
	if err != nil {
		return convert(err)
	}
	exit, err := body.Run(&Index{x: l.Iter(), st: st})
	if err == nil && len(st.whiles) > nw {
		err = st.checkWhiles()
	}
	if err == nil {
		err = convert(st.k.EndLoop(l))
	}
	unroll := false
	if need, ok := tracer.AsNeedConcrete(err); ok && need.Involves(l) {
		unroll = true
	} else if err == nil && exit != tracer.LoopNormal {
		unroll = true
	} else if err == nil && r.rule == rulePython && st.pythonDependent(th, body.Effects(cp), c0) {
		unroll = true
	}
	if unroll {
		st.whiles = st.whiles[:nw]
		body.Rollback(cp)
		st.k.AbortLoop(l)
		return r.unroll(body)
	}
	if err != nil {
		st.k.AbortLoop(l)
		return err
	}
	return nil
}

func (r *Range) unroll(body tracer.LoopBody) error {
	n := lower.TripCount(r.start, r.stop, r.step)
	for k, i := int64(0), r.start; k < n; k, i = k+1, i+r.step {
		exit, err := body.Run(tracer.MakeInt(i))
		if err != nil {
			return err
		}
		if exit != tracer.LoopNormal {
			return nil
		}
	}
	return nil
}

// pythonDependent applies the loop rule to a body's Python effects.
func (st *state) pythonDependent(th *tracer.Thread, eff tracer.Effects, c0 uint64) bool {
	if eff.Mutated > 0 {
		return true
	}
	for _, rb := range eff.Rebound {
		if rb.Before == nil || rb.Before == rb.After {
			continue
		}
		switch b := rb.Before.(type) {
		case *Tensor:
			if b.t != nil && st.readAt[b.t] > c0 {
				return true
			}
		case *Index:
			if b.used > c0 {
				return true
			}
		case *Mask:
			if b.used > c0 {
				return true
			}
		case *Grid, *Range, *Op, *Dtype, *Buffer, *Engine, *DS, *tracer.Function, *tracer.Builtin, *tracer.Module, *JitKernel, *DynRange, *Directive:
			// Values that are not iteration state.
		default:
			switch rb.After.(type) {
			case *Tensor, *Index, *Mask, *Grid, *VirtualRegister:
				// A fresh NKI value bound in every iteration.
				continue
			}
			eq, err := tracer.Equal(th, rb.Before, rb.After)
			if err != nil || !eq {
				return true
			}
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// TraceKernel.

// TensorArg is a tensor parameter's dtype and shape.
type TensorArg struct {
	Dtype bir.Dtype
	Shape []int64
}

// Binding binds one kernel parameter: Tensor for an HBM tensor
// parameter, else Value (a Python value).
type Binding struct {
	Name   string
	Tensor *TensorArg
	Value  tracer.Value
}

// KernelCall is one kernel trace: the kernel function and its arguments.
type KernelCall struct {
	// File is the kernel file as the user named it; Name the kernel.
	File, Name string
	// Fn is the Python function (KernelOf's fn).
	Fn tracer.Value
	// Args binds the parameters in parameter order.
	Args []Binding
	// Grid is the SPMD launch grid (nil: none).
	Grid []int64
	// Arch is the target machine ("" for the default).
	Arch string
	// OpenPlacements traces the kernel with its direct allocations
	// ignored (nl.ndarray's address=, ncc.sbuf/psum.mod_alloc and alloc):
	// every tile left to the memory planner. Compiling a kernel both ways
	// compares the kernel's placements with the planner's (makespan,
	// peak); the planner's own report (passes/alloc, "Fixed placements")
	// gives the per-tile comparison in one compile.
	OpenPlacements bool
}

// IO names one output of the module: Key is the output key ("return",
// "return0", ..., or a parameter name), Tensor the name of main's output
// tensor (interp's output key).
type IO struct {
	Key    string
	Tensor string
}

// TraceResult describes the traced module's outputs.
type TraceResult struct {
	// Returns maps the returned tensors: "return" for a single one,
	// "return0", "return1", ... for a tuple or list.
	Returns []IO
	// Written maps every tensor parameter the kernel wrote (by parameter
	// name) to its output.
	Written []IO
	// Instructions counts the kernel function's instructions, loops
	// included and loop bodies once (before any pass).
	Instructions int
}

// TraceKernel traces call.Fn on th and returns the module: "main"
// declaring the kernel's DRAM inputs and outputs and calling the traced
// kernel function (kind NKI) through NKIKernel. The module verifies at
// the input stage and goes through the default pipeline unchanged. Errors
// are *tracer.Error values with the kernel's position (Kind "NKIError",
// code NW422, for a broken NKI rule; "NotSupported", NW421, for what
// narwhal does not support; Python exceptions as the tracer raises them).
func TraceKernel(th *tracer.Thread, call KernelCall) (*bir.Module, *TraceResult, error) {
	name := call.Name
	if name == "" {
		if c, ok := call.Fn.(tracer.Callable); ok {
			name = c.Name()
		}
	}
	for _, g := range call.Grid {
		if g <= 0 {
			return nil, nil, nkiErrorf("the launch grid %v has a dimension of %d programs", call.Grid, g)
		}
	}
	unrolled := map[int]bool{}
	for attempt := 0; ; attempt++ {
		m, res, err := traceOnce(th, call, name, unrolled)
		var nc *tracer.NeedConcrete
		if errors.As(err, &nc) {
			more := false
			for _, v := range nc.Vars {
				if l, ok := v.(*lower.Loop); ok && l.Grid >= 0 && !unrolled[l.Grid] {
					unrolled[l.Grid] = true
					more = true
				}
			}
			if more && attempt < len(call.Grid) {
				continue
			}
			return nil, nil, escapedNeed(nc)
		}
		return m, res, err
	}
}

// escapedNeed reports a NeedConcrete no loop caught.
func escapedNeed(nc *tracer.NeedConcrete) error {
	return &tracer.Error{Kind: lower.KindNKI, Code: diag.KernelAPI, Pos: nc.Pos,
		Msg: fmt.Sprintf("%s needs a concrete value, and %s is only known when the kernel runs", nc.What, nc.Value)}
}

func traceOnce(th *tracer.Thread, call KernelCall, name string, unrolled map[int]bool) (*bir.Module, *TraceResult, error) {
	k, err := lower.NewKernel(call.Arch, name)
	if err != nil {
		return nil, nil, err
	}
	if p, ok := call.Fn.(*tracer.Function); ok {
		k.SetPos(birPos(p.Pos()))
	}
	st := &state{k: k, grid: slices.Clone(call.Grid), readAt: map[*lower.Tensor]uint64{}, open: call.OpenPlacements}
	if len(unrolled) > 0 {
		st.shared, st.sharedCount = map[sharedKey]*lower.Tensor{}, map[tracer.Pos]int{}
	}
	prev := th.Local(stateKey)
	th.SetLocal(stateKey, st)
	defer th.SetLocal(stateKey, prev)

	args := make([]tracer.Value, len(call.Args))
	for i, b := range call.Args {
		if b.Tensor == nil {
			args[i] = b.Value
			if args[i] == nil {
				args[i] = tracer.None
			}
			continue
		}
		t, err := k.Param(b.Name, b.Tensor.Dtype, b.Tensor.Shape)
		if err != nil {
			return nil, nil, convert(err)
		}
		args[i] = newWhole(st, t, tracer.Pos{})
	}
	var rets []tracer.Value
	if err := st.launch(th, call.Fn, args, 0, unrolled, &rets); err != nil {
		return nil, nil, err
	}
	if err := st.checkWhiles(); err != nil {
		return nil, nil, err
	}
	returns, err := st.returns(th, rets)
	if err != nil {
		return nil, nil, err
	}
	m, out, err := k.Finish(returns)
	if err != nil {
		return nil, nil, convert(err)
	}
	if err := verify.Module(m, verify.Options{}); err != nil {
		if fe := fixedOverlap(k, err); fe != nil {
			return nil, nil, fe
		}
		return nil, nil, fmt.Errorf("the traced kernel %s does not verify: %w", name, err)
	}
	res := &TraceResult{}
	k.F.Walk(func(bir.InstID) bool { res.Instructions++; return true })
	for _, io := range out.Returns {
		res.Returns = append(res.Returns, IO(io))
	}
	for _, io := range out.Written {
		res.Written = append(res.Written, IO(io))
	}
	return m, res, nil
}

// fixedOverlap turns the verifier's overlap diagnostic about a tile the
// kernel placed (address=, mod_alloc) into the kernel's error: an
// NKIError at the instruction where both tiles are live, naming the line
// that placed the tile.
func fixedOverlap(k *lower.Kernel, err error) error {
	var ve *verify.Error
	if !errors.As(err, &ve) || len(ve.Diags()) == 0 {
		return nil
	}
	d := ve.Diags()[0]
	if d.Rule != "overlap" {
		return nil
	}
	t := k.FixedTensorOfLoc(d.Loc)
	if t == nil {
		return nil
	}
	e := &tracer.Error{Kind: lower.KindNKI, Code: diag.KernelAPI,
		Msg: fmt.Sprintf("the tile %s placed at %s overlaps a tile live at the same time: %s", t.Name, t.MadeAt, d.Msg)}
	if d.Pos.IsKnown() {
		e.Pos = tracerPos(d.Pos)
	} else {
		e.Pos = tracerPos(t.MadeAt)
	}
	return e
}

// launch calls fn for every program of grid dimensions d.. (kept loops,
// or concrete program ids for the unrolled dimensions).
func (st *state) launch(th *tracer.Thread, fn tracer.Value, args []tracer.Value, d int, unrolled map[int]bool, rets *[]tracer.Value) error {
	if d == len(st.grid) {
		if st.sharedCount != nil {
			clear(st.sharedCount)
		}
		r, err := tracer.Call(th, fn, args, nil)
		if err != nil {
			return convert(err)
		}
		*rets = append(*rets, r)
		return nil
	}
	n := st.grid[d]
	if n == 1 || unrolled[d] {
		for p := int64(0); p < n; p++ {
			st.pids = append(st.pids[:d], tracer.MakeInt(p))
			if err := st.launch(th, fn, args, d+1, unrolled, rets); err != nil {
				return err
			}
		}
		st.pids = st.pids[:d]
		return nil
	}
	l, err := st.k.BeginGrid(d, n)
	if err != nil {
		return convert(err)
	}
	st.pids = append(st.pids[:d], &Index{x: l.Iter(), st: st})
	if err := st.launch(th, fn, args, d+1, unrolled, rets); err != nil {
		return err
	}
	st.pids = st.pids[:d]
	return convert(st.k.EndLoop(l))
}

// returns converts the kernel's return values (one per program) into the
// returned tensors.
func (st *state) returns(th *tracer.Thread, rets []tracer.Value) ([]lower.Return, error) {
	var first []lower.Return
	for i, r := range rets {
		cur, err := returnTensors(th, r)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			first = cur
			continue
		}
		same := len(cur) == len(first)
		for j := range cur {
			same = same && cur[j].T == first[j].T
		}
		if !same {
			return nil, nkiErrorf("the programs of the SPMD grid return different tensors: return a tensor made with nl.ndarray(..., buffer=nl.shared_hbm)")
		}
	}
	return first, nil
}

func returnTensors(th *tracer.Thread, r tracer.Value) ([]lower.Return, error) {
	one := func(v tracer.Value, key string) (lower.Return, error) {
		t, ok := v.(*Tensor)
		if !ok {
			return lower.Return{}, notSupportedf("the kernel returns %s: narwhal kernels return HBM tensors (a tensor, or a tuple of them)", v.Type())
		}
		if t.res != nil || t.view != nil || t.t.IsOnChip() {
			return lower.Return{}, nkiErrorf("the kernel returns %s: a kernel returns whole HBM tensors (nl.ndarray(..., buffer=nl.shared_hbm)), stored with nl.store", t.describe())
		}
		return lower.Return{Key: key, T: t.t}, nil
	}
	switch x := r.(type) {
	case tracer.NoneType:
		return nil, nil
	case tracer.Tuple, *tracer.List:
		var out []lower.Return
		i := 0
		err := tracer.Iterate(th, x, func(v tracer.Value) error {
			ret, err := one(v, fmt.Sprintf("return%d", i))
			i++
			out = append(out, ret)
			return err
		})
		return out, err
	}
	ret, err := one(r, "return")
	if err != nil {
		return nil, err
	}
	return []lower.Return{ret}, nil
}

// ---------------------------------------------------------------------------
// Assignment.

// assign implements dst = x (a tile subscript on the left).
func (st *state) assign(th *tracer.Thread, dst lower.Access, x tracer.Value) error {
	k := st.k
	switch v := x.(type) {
	case *Tensor:
		if v.res != nil && !v.res.Done() {
			r := v.res
			err := r.Into(dst)
			if err == nil {
				a, _ := r.Access()
				v.t, v.view, v.res = a.T, &a, nil
			}
			return convert(err)
		}
		a, err := v.access()
		if err != nil {
			return err
		}
		return convert(k.Assign(dst, lower.AccOpd(a)))
	case *Index:
		return notSupportedf("assigning the index expression %s to a tile: make the values with nisa.iota", v)
	}
	if f, _, ok := number(x); ok {
		return convert(k.Assign(dst, lower.ImmOpd(f)))
	}
	return typeErrorf("cannot assign %s to a tile", x.Type())
}

var augOps = map[string]string{"Add": "add", "Sub": "subtract", "Mult": "mult", "Div": "divide", "BitAnd": "bitwise_and", "BitOr": "bitwise_or", "BitXor": "bitwise_xor"}

// augAssign implements dst op= x.
func (st *state) augAssign(th *tracer.Thread, dst lower.Access, op interface{ String() string }, x tracer.Value) error {
	alu, ok := augOps[op.String()]
	if !ok {
		return notSupportedf("the in-place operator %s= on a tile", op)
	}
	k := st.k
	if v, isT := x.(*Tensor); isT {
		if v.res != nil && !v.res.Done() && v.res.Matmul() && alu == "add" {
			err := v.res.Accumulate(dst)
			if err == nil {
				a, _ := v.res.Access()
				v.t, v.view, v.res = a.T, &a, nil
			}
			return convert(err)
		}
		a, err := v.access()
		if err != nil {
			return err
		}
		return convert(k.AugAssign(dst, alu, lower.AccOpd(a), lower.Mask{}))
	}
	if f, _, ok := number(x); ok {
		return convert(k.AugAssign(dst, alu, lower.ImmOpd(f), lower.Mask{}))
	}
	return typeErrorf("unsupported operand type(s) for %s=: 'tile' and '%s'", op, x.Type())
}
