package lower

// Emission and pending results.
//
// An NKI operation that makes a tile (nl.load, nl.exp, nisa.nc_matmul,
// ...) returns a Result: the instruction, with its destination not yet
// chosen. The next thing the kernel does decides it:
//
//   - t[...] = result, t[...] += result (Assign, AugAssign): the
//     instruction writes t's region directly (nl.load into a block of a
//     tile, a matmul into a PSUM accumulator), as NKI does;
//   - anything else (a name bound to it, another operation, a loop
//     boundary): the result is materialized into a fresh tile of the
//     operation's default buffer (SBUF, or PSUM for the Tensor engine),
//     named after the variable when it is bound to one.
//
// Only the most recent result can be pending (Kernel.pending); every
// operation flushes it first, so instructions stay in program order. A
// result keeps the source position of its call, which its instructions
// carry wherever they are emitted.

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Opd is an instruction input: an access or an immediate.
type Opd struct {
	Acc *Access
	Imm bir.Operand
}

// AccOpd returns the operand reading a.
func AccOpd(a Access) Opd { return Opd{Acc: &a} }

// ImmOpd returns a float immediate operand.
func ImmOpd(v float64) Opd { return Opd{Imm: bir.Imm(v)} }

type spec struct {
	op    bir.Opcode
	eng   bir.Engine
	base  string // instruction name prefix
	what  string // the NKI operation, for messages
	ins   []Opd
	out   *Access
	attrs bir.AttrSet
	mask  Mask
	pos   bir.Pos
}

type emitted struct {
	id   bir.InstID
	full bool // the output covers the whole block of its tensor
}

func addAxes(used map[GridAxis]bool, a *Access) {
	if a == nil {
		return
	}
	for _, d := range a.Dims {
		for _, g := range d.Axes {
			used[g] = true
		}
	}
}

// emit appends the instruction of s (one copy per mask variant) and
// records its reads and writes.
func (k *Kernel) emit(s *spec) ([]emitted, error) {
	saved := k.pos
	k.SetPos(s.pos)
	defer k.SetPos(saved)
	used := map[GridAxis]bool{}
	for _, o := range s.ins {
		addAxes(used, o.Acc)
		if o.Acc != nil {
			if err := k.checkScope(o.Acc.T); err != nil {
				return nil, err
			}
		}
	}
	addAxes(used, s.out)
	if s.out != nil {
		if err := k.checkScope(s.out.T); err != nil {
			return nil, err
		}
	}
	vs, err := k.variants(s.mask, used, s.what)
	if err != nil {
		return nil, err
	}
	// A tile a masked instruction wrote in part is read whole by
	// unmasked instructions (nl.exp of a tile loaded under a mask): on the
	// machine the rows outside the mask hold whatever was there and the
	// masked store drops them; the interpreter, which reports reads of
	// never-written memory, is told so with can_read_uninit.
	attrs := s.attrs
	for _, o := range s.ins {
		if o.Acc != nil && o.Acc.T.partial {
			attrs = attrs.With("can_read_uninit", bir.Bool(true))
			break
		}
	}
	var res []emitted
	for _, v := range vs {
		clamp := k.clamper(v.pred)
		ins := make([]bir.Operand, len(s.ins))
		empty := false
		for i, o := range s.ins {
			if o.Acc == nil {
				ins[i] = o.Imm
				continue
			}
			a := o.Acc.clone()
			restrict(&a, v)
			clamp(&a)
			empty = empty || a.Elems() == 0
			if err := k.checkAccess(s.what, "reads", a, v.pred); err != nil && a.Elems() > 0 {
				return nil, err
			}
			ins[i] = k.operand(a)
		}
		var outs []bir.Operand
		full := false
		if s.out != nil {
			a := s.out.clone()
			restrict(&a, v)
			clamp(&a)
			empty = empty || a.Elems() == 0
			if err := k.checkAccess(s.what, "writes", a, v.pred); err != nil && a.Elems() > 0 {
				return nil, err
			}
			outs = []bir.Operand{k.operand(a)}
			full = a.Elems() == elemsOf(a.T.tile)
		}
		if empty {
			continue
		}
		id := k.F.NewInst(s.op, k.instName(s.base), s.eng, ins, outs, attrs)
		k.append(id)
		if !v.pred.IsTrue() {
			k.F.SetPred(id, v.pred)
		}
		res = append(res, emitted{id: id, full: full})
	}
	for _, o := range s.ins {
		if o.Acc != nil {
			k.noteReadOf(o.Acc.T)
		}
	}
	if s.out != nil {
		k.noteWriteOf(s.out.T)
		if t := s.out.T; !t.partial && t.IsOnChip() && hasGridConstraint(s.mask) {
			t.partial = true
			k.onUndo(func() { t.partial = false })
		}
	}
	return res, nil
}

func hasGridConstraint(m Mask) bool {
	for _, c := range m.Cons {
		if len(c.X.Terms) > 0 {
			return true
		}
	}
	return false
}

func (k *Kernel) noteReadOf(t *Tensor) {
	if !t.read {
		t.read = true
		k.onUndo(func() { t.read = false })
	}
	if t.Mem == PSUM {
		k.noteRead(t)
	}
}

func (k *Kernel) noteWriteOf(t *Tensor) {
	if !t.written {
		t.written = true
		k.onUndo(func() { t.written = false })
	}
}

// Result is the tile an operation makes, its destination open until the
// kernel uses it (see the file comment).
type Result struct {
	k     *Kernel
	s     *spec
	Dtype bir.Dtype
	Shape []int64
	Mem   Memory
	axes  [][]GridAxis // per dimension: the grid axes the mask may restrict
	name  string
	acc   Access
	done  bool
	err   error
	// matmul: the instruction is a Matmult (a PSUM accumulation member).
	matmul bool
}

// Done reports whether the result has its destination.
func (r *Result) Done() bool { return r.done }

// Matmul reports whether the result is a matmul's (Tensor engine) result.
func (r *Result) Matmul() bool { return r.matmul }

// newResult makes s's result pending. ref gives the grid axes of the
// result's dimensions (for masks on a fresh destination).
func (k *Kernel) newResult(s *spec, dt bir.Dtype, shape []int64, mem Memory, ref [][]GridAxis) (*Result, error) {
	s.pos = k.pos
	// Check the mask now, so that its errors point at the call.
	used := map[GridAxis]bool{}
	for _, o := range s.ins {
		addAxes(used, o.Acc)
	}
	for _, a := range ref {
		for _, g := range a {
			used[g] = true
		}
	}
	if _, err := k.variants(s.mask, used, s.what); err != nil {
		return nil, err
	}
	r := &Result{k: k, s: s, Dtype: dt, Shape: slices.Clone(shape), Mem: mem, axes: ref}
	k.pending = r
	return r, nil
}

func axesOf(a Access) [][]GridAxis {
	out := make([][]GridAxis, len(a.Dims))
	for i, d := range a.Dims {
		out[i] = slices.Clone(d.Axes)
	}
	return out
}

// flush materializes the pending result, if any.
func (k *Kernel) flush() {
	r := k.pending
	if r == nil {
		return
	}
	k.pending = nil
	if !r.done && r.err == nil {
		r.err = r.materialize()
		k.setSticky(r.err)
	}
}

// flushErr flushes and returns the pending result's error, or an error a
// result met when it was named (SetName has no caller to return it to:
// the next operation, loop end or Finish reports it).
func (k *Kernel) flushErr() error {
	r := k.pending
	k.flush()
	if r != nil && r.err != nil {
		return r.err
	}
	return k.sticky
}

// setSticky records an error for the next operation (undone by a
// rollback, so that a speculative body's NeedConcrete does not outlive
// it).
func (k *Kernel) setSticky(err error) {
	if k.sticky != nil || err == nil {
		return
	}
	k.sticky = err
	k.onUndo(func() { k.sticky = nil })
}

// SetName names the tile the result becomes (the variable it is bound
// to) and materializes it.
func (r *Result) SetName(name string) error {
	if r.done || r.err != nil {
		return r.err
	}
	if r.name == "" {
		r.name = name
	}
	if r.k.pending == r {
		r.k.pending = nil
	}
	r.err = r.materialize()
	r.k.setSticky(r.err)
	return r.err
}

// Access returns the result's tile, materializing it if needed.
func (r *Result) Access() (Access, error) {
	if !r.done && r.err == nil {
		if r.k.pending == r {
			r.k.pending = nil
		}
		r.err = r.materialize()
	}
	return r.acc, r.err
}

func (r *Result) materialize() error {
	k := r.k
	name := r.name
	if name == "" {
		name = r.s.base
	}
	saved := k.pos
	k.SetPos(r.s.pos)
	shape := r.Shape
	if len(shape) == 0 {
		shape = []int64{1}
	}
	t, err := k.NewTile(name, r.Mem, r.Dtype, shape, 0, nil)
	k.SetPos(saved)
	if err != nil {
		return err
	}
	dst, err := t.Whole()
	if err != nil {
		return err
	}
	for i := range dst.Dims {
		j := i - (len(dst.Dims) - len(r.axes))
		if j >= 0 && j < len(r.axes) {
			dst.Dims[i].Axes = append(dst.Dims[i].Axes, r.axes[j]...)
		}
	}
	return r.place(dst, false)
}

// place emits the result's instruction writing dst.
func (r *Result) place(dst Access, accumulate bool) error {
	k := r.k
	r.s.out = &dst
	ems, err := k.emit(r.s)
	r.done = true
	r.acc = dst
	if err != nil {
		r.err = err
		return err
	}
	t := dst.T
	if t.Mem == PSUM || r.matmul {
		if r.matmul {
			ids := make([]bir.InstID, len(ems))
			full := true
			for i, e := range ems {
				ids[i] = e.id
				full = full && e.full
			}
			saved := k.pos
			k.SetPos(r.s.pos)
			err := k.joinGroup(dst, ids, full, accumulate)
			k.SetPos(saved)
			if err != nil {
				r.err = err
				return err
			}
		} else if r.s.op == bir.OpMemset && isZero(r.s.attrs) && len(ems) > 0 {
			k.noteZero(t, ems[0].id, len(ems) == 1 && ems[0].full)
		} else if t.Mem == PSUM {
			k.noteWrite(t, r.s.what)
		}
	}
	return nil
}

func isZero(a bir.AttrSet) bool {
	v, ok := a.Get("constant")
	if !ok {
		return false
	}
	f, ok := v.AsFloat()
	return ok && f == 0
}

// sameLayout reports whether src and dst have the same partitions and
// elements per partition (the lockstep rule of engine instructions).
func sameLayout(a, b Access) bool {
	return a.Partitions() == b.Partitions() && a.FreeElems() == b.FreeElems()
}

// Into makes dst the result's destination (t[...] = result). A result
// already materialized is copied.
func (r *Result) Into(dst Access) error {
	k := r.k
	if r.done {
		if r.err != nil {
			return r.err
		}
		return k.Assign(dst, AccOpd(r.acc))
	}
	if k.pending == r {
		k.pending = nil
	}
	if err := r.checkInto(dst); err != nil {
		return err
	}
	if !r.fits(dst) {
		// An engine cannot write there (an HBM tensor, SBUF for the Tensor
		// engine): through a fresh tile.
		if err := r.materialize(); err != nil {
			return err
		}
		return k.Assign(dst, AccOpd(r.acc))
	}
	d := r.withAxes(dst)
	return r.place(d, false)
}

// Write makes dst the result's destination as Into does, but refuses a
// destination the instruction cannot write itself (the current API names
// every destination: narwhal adds no copy the kernel did not write).
func (r *Result) Write(dst Access) error {
	if !r.done && !r.fits(dst) {
		if r.k.pending == r {
			r.k.pending = nil
		}
		r.done, r.err = true, r.k.Errorf(KindNKI, "%s cannot write its result into %s in %s", r.s.what, dst.T.Describe(), dst.T.Mem)
		return r.err
	}
	return r.Into(dst)
}

// SetWhat renames the operation in the result's messages.
func (r *Result) SetWhat(what string) { r.s.what = what }

func (r *Result) checkInto(dst Access) error {
	if dst.Elems() != elemsOf(r.Shape) {
		return r.k.Errorf(KindNKI, "cannot assign a %s result of shape %s to %s of shape %s", r.s.what, shapeString(r.Shape), dst.T.Describe(), shapeString(dst.Shape()))
	}
	if dst.T.IsOnChip() && len(r.Shape) > 0 && dst.Partitions() != r.Shape[0] {
		return r.k.Errorf(KindNKI, "cannot assign a %s result of %d partitions to %s of %d partitions", r.s.what, r.Shape[0], dst.T.Describe(), dst.Partitions())
	}
	return nil
}

// fits reports whether the result's instruction can write dst directly.
func (r *Result) fits(dst Access) bool {
	switch r.s.op {
	case bir.OpLoad:
		return dst.T.IsOnChip()
	case bir.OpMatmult:
		return dst.T.Mem == PSUM
	case bir.OpTranspose:
		if r.s.eng == bir.EngPE {
			return dst.T.Mem == PSUM
		}
		return dst.T.IsOnChip()
	case bir.OpIota, bir.OpTensorScalarAffineSelect:
		return dst.T.Mem == SBUF
	}
	return dst.T.IsOnChip()
}

// withAxes gives dst's dimensions the result's grid axes, by position, so
// that the operation's mask restricts them like its inputs.
func (r *Result) withAxes(dst Access) Access {
	d := dst.clone()
	if len(d.Dims) == len(r.axes) {
		for i := range d.Dims {
			for _, g := range r.axes[i] {
				if !slices.Contains(d.Dims[i].Axes, g) {
					d.Dims[i].Axes = append(d.Dims[i].Axes, g)
				}
			}
		}
	}
	return d
}

// Accumulate adds the result into dst (dst[...] += result). A matmul
// result into a PSUM tile joins its accumulation group; anything else is
// computed into a tile and added (AugAssign).
func (r *Result) Accumulate(dst Access) error {
	k := r.k
	if !r.done && r.matmul && dst.T.Mem == PSUM {
		if k.pending == r {
			k.pending = nil
		}
		if err := r.checkInto(dst); err != nil {
			return err
		}
		if dst.Dtype != bir.Float32 {
			return k.Errorf(KindNKI, "a matmul accumulates in float32; %s is %s", dst.T.Describe(), dst.Dtype)
		}
		return r.place(r.withAxes(dst), true)
	}
	a, err := r.Access()
	if err != nil {
		return err
	}
	return k.AugAssign(dst, "add", AccOpd(a), Mask{})
}

// Assign writes src into dst (dst[...] = src) for a materialized tile,
// an HBM region or an immediate (a fill).
func (k *Kernel) Assign(dst Access, src Opd) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if src.Acc == nil {
		v := src.Imm.ImmFloat()
		if !dst.T.IsOnChip() {
			return k.Errorf(KindNotSupported, "assigning a number to %s in HBM: fill a tile and store it", dst.T.Describe())
		}
		return k.Memset(dst, v, bir.EngDVE, Mask{})
	}
	a := *src.Acc
	if a.Elems() != dst.Elems() {
		return k.Errorf(KindNKI, "cannot assign %s of shape %s to %s of shape %s", a.T.Describe(), shapeString(a.Shape()), dst.T.Describe(), shapeString(dst.Shape()))
	}
	switch {
	case dst.T.IsOnChip() && a.T.IsOnChip():
		if !sameLayout(a, dst) {
			return k.Errorf(KindNKI, "cannot assign %s (%d partitions x %d) to %s (%d partitions x %d)", a.T.Describe(), a.Partitions(), a.FreeElems(), dst.T.Describe(), dst.Partitions(), dst.FreeElems())
		}
		r, err := k.Copy(a, bir.EngDVE, dst.Dtype, Mask{})
		if err != nil {
			return err
		}
		return r.Into(dst)
	case dst.T.IsOnChip():
		r, err := k.Load(a, dst.Dtype, Mask{})
		if err != nil {
			return err
		}
		return r.Into(dst)
	case a.T.IsOnChip():
		return k.Store(dst, a, Mask{})
	}
	return k.DMA(dst, a, Mask{})
}

// checkAccess rejects an access that reaches outside its tensor (a block
// of an on-chip tensor) on some iteration where pred holds.
func (k *Kernel) checkAccess(what, verb string, a Access, pred affine.Pred) error {
	if a.Reg != nil {
		return nil // a run-time offset: the interpreter checks it when it runs
	}
	box := k.predBox(pred)
	t := a.T
	if lo, hi, ok := a.Block.Bounds(box); ok && (lo < 0 || hi >= max(t.nblocks, 1)) {
		return k.Errorf(KindNKI, "index out of bounds: %s %s block %d of %s, which has %d", what, verb, min(lo, hi), t.Describe(), max(t.nblocks, 1))
	}
	lo, hi, ok := a.Offset.Bounds(box)
	if !ok {
		return nil
	}
	for _, d := range a.Dims {
		span := d.Step * (d.Num - 1)
		if span > 0 {
			hi += span
		} else {
			lo += span
		}
	}
	limit := elemsOf(t.tile)
	if t.IsOnChip() {
		limit = t.tile[0] * t.rowLen
	}
	if lo >= 0 && hi < limit {
		return nil
	}
	return k.Errorf(KindNKI, "index out of bounds: %s %s %s of shape %s %s (elements %d to %d of %d); a mask= can limit the access", what, verb, t.Describe(), shapeString(t.TileShape()), describeElem(t, lo, hi), lo, hi, limit)
}

// describeElem names the first out-of-bounds coordinate of an element
// range of t ("row 383").
func describeElem(t *Tensor, lo, hi int64) string {
	shape := t.tile
	if t.IsOnChip() {
		shape = []int64{t.tile[0], t.rowLen}
	}
	e := hi
	if lo < 0 {
		e = lo
	}
	st := rowMajorStrides(shape)
	if e < 0 {
		return "before its first element"
	}
	if q := e / st[0]; q >= shape[0] {
		return fmt.Sprintf("reaching index %d of dimension 0", q)
	}
	return fmt.Sprintf("reaching element %d", e)
}

// predBox is the loop-axis box narrowed by the single-axis constraints of
// pred (the predicates of a mask split: lo <= a <= hi, a == v).
func (k *Kernel) predBox(pred affine.Pred) func(affine.Axis) (int64, int64) {
	narrow := map[affine.Axis][2]int64{}
	for _, c := range pred.Cons {
		if len(c.Expr.Terms) != 1 || c.Expr.Terms[0].Atom.Kind != affine.AtomAxis {
			continue
		}
		a := c.Expr.Terms[0].Atom.Axis
		co, cst := c.Expr.Terms[0].Coeff, c.Expr.Const
		lo, hi := k.loopBox(a)
		if r, ok := narrow[a]; ok {
			lo, hi = r[0], r[1]
		}
		switch {
		case c.Op == affine.EQ0 && cst%co == 0:
			v := -cst / co
			lo, hi = max(lo, v), min(hi, v)
		case c.Op == affine.GE0 && co > 0: // co*a + cst >= 0
			lo = max(lo, ceilDiv(-cst, co))
		case c.Op == affine.GE0 && co < 0:
			hi = min(hi, floorDiv(cst, -co))
		}
		narrow[a] = [2]int64{lo, hi}
	}
	return func(a affine.Axis) (int64, int64) {
		if r, ok := narrow[a]; ok {
			return r[0], r[1]
		}
		return k.loopBox(a)
	}
}

// clamper returns a function rewriting an access's block and offset for a
// copy whose predicate limits a loop axis a to [lo, hi] (a mask split):
// a becomes lo + (a - lo) mod (hi - lo + 1), a constant when lo == hi.
// The value is unchanged where the predicate holds, and the access stays
// inside its tensor on the iterations the predicate skips, so that the
// verifier's access-bounds rule (which does not read predicates) holds.
func (k *Kernel) clamper(pred affine.Pred) func(*Access) {
	box := k.predBox(pred)
	type sub struct {
		a affine.Axis
		e affine.Expr
	}
	var subs []sub
	for _, c := range pred.Cons {
		for _, ax := range c.Expr.Axes(nil) {
			lo, hi := box(ax)
			flo, fhi := k.loopBox(ax)
			if lo == flo && hi == fhi || slices.ContainsFunc(subs, func(s sub) bool { return s.a == ax }) {
				continue
			}
			e := affine.Const(lo)
			if hi > lo {
				e = affine.AddConst(affine.Mod(affine.AddConst(affine.Var(ax), -lo), hi-lo+1), lo)
			}
			subs = append(subs, sub{ax, e})
		}
	}
	return func(a *Access) {
		for _, s := range subs {
			a.Block = a.Block.SubstituteExpr(s.a, s.e)
			a.Offset = a.Offset.SubstituteExpr(s.a, s.e)
		}
	}
}
