package interp

// NKIKernel (and NKIKLIRKernel) calls into a sub-function.
//
//	NKIKernel  ins [one AP per callee input]  outs [one AP per callee output]
//	           attrs func (the callee's name), input_names, output_names
//
// input_names / output_names name the callee's input / output tensors in
// the order of the call's ins / outs (a name is matched against the
// tensor's I/O name, e.g. "x", its MemoryLocationSet name "x_set", or any
// of its location names); when absent the operands are positional, in the
// callee's declaration order.
//
// Copy-in/copy-out semantics: the callee runs in a fresh activation (fresh
// private storages for its unallocated locations and fresh registers;
// allocated on-chip locations share the one SBUF/PSUM, which is physical);
// before it runs, each input operand of the call is copied element by
// element (row-major over the AP, into the callee location's elements in
// order) into the callee's input location; after it returns each callee
// output location is copied into the call's output operand. Equal dtypes
// copy raw, different dtypes through fp32. Copy-in requires written source
// data (as any read); copy-out carries the written-state of each element
// along (a callee that writes only part of its output leaves the rest of
// the caller's operand unwritten, not an error). Recursion deeper than
// maxCallDepth is an error.

import (
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// callIO matches the call's operands to the callee's inputs or outputs.
func callIO(callee *bir.Function, attrs bir.AttrSet, key string, n int, out bool) ([]ioTensor, error) {
	io := ioTensors(callee, out)
	kind := "input"
	if out {
		kind = "output"
	}
	names := make([]string, len(io))
	for i, x := range io {
		names[i] = x.spec.Name
	}
	v, ok := attrs.Get(key)
	if !ok || v.Kind == bir.ValNull {
		if n != len(io) {
			return nil, errf(ErrCountMismatch, "the call passes %d %ss; function %s has %d (%s)", n, kind, callee.Name, len(io), strings.Join(names, ", "))
		}
		return io, nil
	}
	if v.Kind != bir.ValList || len(v.L) != n {
		return nil, errf(ErrOperand, "attribute %s=%s: want a list of %d tensor names", key, v.JSON(), n)
	}
	res := make([]ioTensor, n)
	used := make([]bool, len(io))
	for k, e := range v.L {
		s, ok := e.AsString()
		if !ok {
			return nil, errf(ErrOperand, "attribute %s[%d]=%s is not a string", key, k, e.JSON())
		}
		found := -1
		for i, x := range io {
			ts := callee.Tensor(x.tensor)
			if x.spec.Name == s || ts.Name == s || slices.ContainsFunc(ts.Locs, func(l bir.LocID) bool { return callee.Loc(l).Name == s }) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, errf(ErrOperand, "attribute %s[%d]=%q names no %s of function %s (its %ss: %s)", key, k, s, kind, callee.Name, kind, strings.Join(names, ", "))
		}
		if used[found] {
			return nil, errf(ErrOperand, "attribute %s names %s %q twice", key, kind, s)
		}
		used[found] = true
		res[k] = io[found]
	}
	return res, nil
}

// wholeView returns a view of every element of region r as dtype dt, in
// element order, in scratch slot k.
func (mc *machine) wholeView(r *region, dt bir.Dtype, k int) (*view, error) {
	ds := dt.Size()
	var pat bir.Pattern
	if r.onChip() {
		E := r.bytes / ds
		pat = bir.Pattern{{Step: E, Num: r.parts}, {Step: 1, Num: E}}
	} else {
		pat = bir.Pattern{{Step: 1, Num: r.bytes / ds}}
	}
	mc.reserve(k + 1)
	v := &mc.views[k]
	*v = view{reg: r, dt: dt, ds: ds, pat: pat, opd: k, what: "location " + r.name}
	if err := mc.fillOffsets(v, 0, k); err != nil {
		return nil, err
	}
	return v, nil
}

func (mc *machine) opCall(x *instCtx) error {
	cf, outs, err := mc.callEnter(x)
	if err != nil {
		return err
	}
	mc.push(cf)
	err = mc.runFunction(cf)
	mc.pop()
	if err != nil {
		return err
	}
	return mc.callExit(x, cf, outs)
}

// callEnter resolves the callee of call x, makes its frame and copies the
// call's inputs in; it returns the frame and the callee's outputs in the
// order of the call's destinations (for callExit).
func (mc *machine) callEnter(x *instCtx) (*frame, []ioTensor, error) {
	name := x.attrs.Str("func", "")
	if name == "" {
		return nil, nil, errf(ErrOperand, "missing attribute func (the name of the called function)")
	}
	callee := mc.m.Func(name)
	if callee == nil {
		hint := ""
		if x.fr.f.Inst(x.i).Op == bir.OpNKIKLIRKernel {
			hint = " (an NKIKLIRKernel placeholder is expanded by TranslateNKIASTToBIR)"
		}
		return nil, nil, errf(ErrOperand, "func=%q: no such function in the module%s", name, hint)
	}
	if len(mc.stack) >= maxCallDepth {
		return nil, nil, errf(ErrLimit, "call depth exceeds %d (recursive NKIKernel calls?)", maxCallDepth)
	}
	ins, err := callIO(callee, x.attrs, "input_names", len(x.ins), false)
	if err != nil {
		return nil, nil, err
	}
	outs, err := callIO(callee, x.attrs, "output_names", len(x.outs), true)
	if err != nil {
		return nil, nil, err
	}
	cf := newFrame(callee)
	scratch := len(x.ins) + len(x.outs)
	mc.reserve(scratch + 1) // before any view of this instruction is taken
	// Copy in.
	for k, io := range ins {
		src, err := mc.in(x, k)
		if err != nil {
			return nil, nil, err
		}
		r, err := mc.calleeRegion(cf, io, "input")
		if err != nil {
			return nil, nil, err
		}
		dst, err := mc.wholeView(r, callee.Tensor(io.tensor).Dtype, scratch)
		if err != nil {
			return nil, nil, err
		}
		if src.n != dst.n {
			return nil, nil, errf(ErrCountMismatch, "%s walks %d elements; input %s of function %s has %d", mc.label(k), src.n, io.spec.Name, callee.Name, dst.n)
		}
		if err := mc.copyView(dst, src); err != nil {
			return nil, nil, err
		}
	}
	return cf, outs, nil
}

// callExit copies the callee's outputs out into call x's destinations.
func (mc *machine) callExit(x *instCtx, cf *frame, outs []ioTensor) error {
	callee := cf.f
	// Restore the caller's instruction state the callee overwrote.
	mc.curFrame, mc.curInst = x.fr, x.i
	mc.allowUninit = mc.opt.AllowUninitReads || x.attrs.Bool("can_read_uninit", false)
	mc.nIns = len(x.ins)
	scratch := len(x.ins) + len(x.outs)
	mc.reserve(scratch + 1)
	// Copy out.
	for k, io := range outs {
		r, err := mc.calleeRegion(cf, io, "output")
		if err != nil {
			return err
		}
		src, err := mc.wholeView(r, callee.Tensor(io.tensor).Dtype, scratch)
		if err != nil {
			return err
		}
		dst, err := mc.out(x, k)
		if err != nil {
			return err
		}
		if src.n != dst.n {
			return errf(ErrCountMismatch, "%s walks %d elements; output %s of function %s has %d", mc.label(len(x.ins)+k), dst.n, io.spec.Name, callee.Name, src.n)
		}
		switch {
		case dst.dt == src.dt && mc.copyOutWritten:
			copyWritten(dst, src)
		case dst.dt == src.dt:
			saved := mc.allowUninit
			mc.allowUninit = true // carry the written-state along
			err = mc.copyRaw(dst, src)
			mc.allowUninit = saved
		default:
			err = mc.convertCopy(dst, src)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// copyWritten copies the elements of src that were written into dst (same
// dtype) and leaves the others of dst as they are: the copy-out of a
// multi-core run (RunCores), where two cores' calls write disjoint parts
// of one shared output and an element one core never wrote must not
// overwrite the other core's.
func copyWritten(dst, src *view) {
	ds := src.ds
	ss, dd := src.st(), dst.st()
	for i, so := range src.offs {
		if !ss.isInit(so, ds) {
			continue
		}
		do := dst.offs[i]
		copy(dd.data[do:do+ds], ss.data[so:so+ds])
		dd.setInit(do, ds, true)
	}
}

func (mc *machine) calleeRegion(cf *frame, io ioTensor, kind string) (*region, error) {
	if io.loc == bir.NoLoc {
		return nil, errf(ErrOperand, "%s %s of function %s has no memory location", kind, io.spec.Name, cf.f.Name)
	}
	r, err := mc.region(cf, io.loc, 0)
	if err != nil {
		return nil, prefixErr(err, "%s %s of function %s", kind, io.spec.Name, cf.f.Name)
	}
	return r, nil
}
