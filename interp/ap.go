package interp

// Access-pattern evaluation (design.md's addressing model).
//
// An AP names the elements offset + sum_d(i_d * step_d) of its location,
// iterated row-major over its [step, num] pairs (last pair fastest). For an
// on-chip location of P partitions x E elements per partition (E computed
// with the AP's dtype, so an AP dtype different from the tensor's
// reinterprets bytes), element e lives at partition Base + e/E, byte
// Addr + (e%E)*dtypeSize; a DRAM location is flat (byte e*dtypeSize).
//
// evalAP resolves an operand once per instruction execution into a view:
// the region, the dtype, and the byte offset of every element in iteration
// order, written into a scratch slice owned by the machine (no per-element
// allocation; the slices are reused by every instruction). The bounds check
// is done once, analytically, on the pattern's smallest and largest element
// index. Runs of the innermost pair that stay in one partition are filled
// by adding a constant byte stride; only runs that cross partitions pay a
// division per element. PSUM accesses record, per partition, the lowest and
// highest byte touched, and fail when one partition's range crosses a bank
// boundary.
//
// The logical [P, F] view of an AP: P is pair 0's num (the partition dim of
// an on-chip pattern), F the product of the other nums; element k is row
// k/F, column k%F. Per-partition operands ([P,1] scalars, biases, matmul
// rows) are indexed by that row, not by the physical partition.

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// view is an evaluated access pattern.
type view struct {
	reg  *region
	dt   bir.Dtype
	ds   int64
	offs []int64 // byte offset of each element in reg.st.data
	n    int64
	P, F int64
	pat  bir.Pattern
	opd  int    // operand index (sources then destinations)
	what string // "source 0", "destination 0": for messages
}

func (v *view) st() *storage { return v.reg.st }

// maxPairs bounds the pattern depth the counters handle without allocation.
const maxPairs = 16

// maxAccessElems bounds the elements one access pattern may walk (2^28: 2
// GiB of offsets), so a malformed pattern (a huge num with step 0 stays in
// bounds) fails with an error instead of exhausting memory.
const maxAccessElems = 1 << 28

// maxPairSpan bounds |step * (num-1)| of one [step, num] pair and
// maxElemOffset the start offset of an access, in elements: with at most
// maxPairs pairs the analytic range offset + sum of spans stays far from
// int64 overflow. Both are far above any location narwhal can hold
// (maxLocBytes), so they reject nothing that could be in bounds.
const (
	maxPairSpan   = 1 << 50
	maxElemOffset = 1 << 56
)

// evalAP evaluates operand o (operand index k of the instruction) in frame
// fr into the scratch slot of k.
func (mc *machine) evalAP(fr *frame, k int, o *bir.Operand) (*view, error) {
	return mc.evalAPWith(fr, k, o, nil)
}

// evalAPWith is evalAP with the operand's pattern replaced by pat (when
// non-nil).
func (mc *machine) evalAPWith(fr *frame, k int, o *bir.Operand, pat bir.Pattern) (*view, error) {
	f := fr.f
	var (
		loc   bir.LocID
		block int64
		off   int64
	)
	switch o.Kind {
	case bir.OpdPhysAP:
		loc = o.Loc()
		if int(loc) < 0 || int(loc) >= f.NumLocs() {
			return nil, errf(ErrOperand, "%s names no memory location (#%d)", mc.label(k), loc)
		}
		off = o.Offset
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() || f.Tensor(t).Dead {
			return nil, errf(ErrOperand, "%s names no tensor (#%d)", mc.label(k), t)
		}
		ts := f.Tensor(t)
		if o.Kind == bir.OpdSymAP {
			var err error
			if block, err = mc.evalExpr(o.BlockExpr()); err != nil {
				return nil, errf(ErrOperand, "%s: block index: %v", mc.label(k), err)
			}
			if off, err = mc.evalExpr(o.OffsetExpr()); err != nil {
				return nil, errf(ErrOperand, "%s: offset: %v", mc.label(k), err)
			}
		} else {
			r := bir.RegID(o.Expr)
			v, err := mc.regValue(fr, r)
			if err != nil {
				return nil, errf(ErrUninitRead, "%s: register offset: %v", mc.label(k), err)
			}
			off = v + o.Offset
		}
		nb := max(ts.NBlocks, 1)
		if block < 0 || block >= nb {
			return nil, errf(ErrOutOfBounds, "%s: block index %d outside the %d blocks of tensor %s", mc.label(k), block, nb, ts.Name)
		}
		var ok bool
		loc, ok = f.LocForBlock(t, block)
		if !ok {
			return nil, errf(ErrOperand, "%s: tensor %s has no location for block %d", mc.label(k), ts.Name, block)
		}
		if !isTemplate(f, t) {
			block = 0
		}
	default:
		return nil, errf(ErrOperand, "%s is a %s, want an access pattern", mc.label(k), o.Kind)
	}
	reg, err := mc.region(fr, loc, block)
	if err != nil {
		return nil, err
	}
	if !o.Dtype.Valid() {
		return nil, errf(ErrOperand, "%s has invalid dtype %s", mc.label(k), o.Dtype)
	}
	if pat == nil {
		if pat, err = mc.pattern(o, k); err != nil {
			return nil, err
		}
	}
	v := &mc.views[k]
	*v = view{reg: reg, dt: o.Dtype, ds: o.Dtype.Size(), pat: pat, opd: k, what: mc.label(k)}
	if err := mc.fillOffsets(v, off, k); err != nil {
		return nil, err
	}
	return v, nil
}

// pattern returns the interned [step, num] pairs of operand o (operand
// index k), checking that the pattern id exists.
func (mc *machine) pattern(o *bir.Operand, k int) (bir.Pattern, error) {
	if int(o.Pattern) < 0 || int(o.Pattern) >= mc.m.NumPatterns() {
		return nil, errf(ErrOperand, "%s names no access pattern (#%d)", mc.label(k), o.Pattern)
	}
	return mc.m.Pattern(o.Pattern), nil
}

// evalExpr evaluates an interned affine expression under the current loop
// bindings.
func (mc *machine) evalExpr(id bir.ExprID) (int64, error) {
	if id == 0 {
		return 0, nil
	}
	if int(id) < 0 {
		return 0, fmt.Errorf("no expression #%d", id)
	}
	e := mc.m.Expr(id)
	v, err := e.Eval(&mc.env)
	if err != nil {
		if ub, ok := err.(*affine.UnboundError); ok {
			return 0, fmt.Errorf("expression %s uses axis %s outside its loop", e.Format(mc.m.AxisName), mc.m.AxisName(ub.Axis))
		}
		return 0, err
	}
	return v, nil
}

// fillOffsets computes the byte offset of every element of v's pattern
// starting at element offset off, checking bounds and PSUM banks.
func (mc *machine) fillOffsets(v *view, off int64, k int) error {
	reg, pat, ds := v.reg, v.pat, v.ds
	if len(pat) > maxPairs {
		return errf(ErrOperand, "%s has %d [step, num] pairs; narwhal executes at most %d", v.what, len(pat), maxPairs)
	}
	if off > maxElemOffset || off < -maxElemOffset {
		return errf(ErrOutOfBounds, "%s starts at element offset %d, outside location %s", v.what, off, reg.name)
	}
	// Element count, logical shape and the analytic element range.
	n := int64(1)
	lo, hi := off, off
	for d, q := range pat {
		if q.Num < 0 {
			return errf(ErrOperand, "%s: pair %d has negative num %d", v.what, d, q.Num)
		}
		// Bound each pair's span |step*(num-1)| so that the analytic
		// range below cannot overflow int64 (an overflow could wrap an
		// out-of-bounds pattern back into bounds).
		if q.Num > 1<<32 || q.Num > 1 && (q.Step > maxPairSpan/(q.Num-1) || q.Step < -maxPairSpan/(q.Num-1)) {
			return errf(ErrOperand, "%s: pair %d [%d, %d] is too large to execute (narwhal executes |step x (num-1)| <= %d)", v.what, d, q.Step, q.Num, int64(maxPairSpan))
		}
		n *= q.Num
		if n > maxAccessElems {
			return errf(ErrOperand, "%s walks more than %d elements (pattern %v); narwhal executes at most %d per access", v.what, maxAccessElems, pat.Shape(), maxAccessElems)
		}
		if q.Num > 0 {
			span := q.Step * (q.Num - 1)
			if span > 0 {
				hi += span
			} else {
				lo += span
			}
		}
	}
	v.n = n
	if len(pat) > 0 {
		v.P = pat[0].Num
		if v.P > 0 {
			v.F = n / v.P
		}
	} else {
		v.P, v.F = 1, 1
	}
	var E, capElems int64
	if reg.onChip() {
		E = reg.bytes / ds
		capElems = reg.parts * E
	} else {
		capElems = reg.bytes / ds
	}
	if n > 0 && (lo < 0 || hi >= capElems) {
		shape := fmt.Sprintf("%d elements", capElems)
		if reg.onChip() {
			shape = fmt.Sprintf("%d partitions x %d elements", reg.parts, E)
		}
		return errf(ErrOutOfBounds, "%s accesses elements [%d, %d] of location %s, which holds %s of %s", v.what, lo, hi, reg.name, shape, v.dt)
	}
	if int64(cap(mc.offs[k])) < n {
		if err := mc.tryCharge((n+n/4-int64(cap(mc.offs[k])))*8, fmt.Sprintf("the element offsets of %s (%d elements)", v.what, n)); err != nil {
			return err
		}
		mc.offs[k] = make([]int64, n, n+n/4)
	}
	offs := mc.offs[k][:n]
	v.offs = offs
	if n == 0 {
		return nil
	}
	st := reg.st
	psum := st.kind == memPSUM
	if psum {
		mc.bankReset()
	}
	// byteOf maps an element index to its byte offset in st.data.
	rowBytes := st.rowBytes
	base0 := reg.row0*rowBytes + reg.col0
	if len(pat) == 0 {
		if reg.onChip() {
			q := off / E
			offs[0] = base0 + q*rowBytes + (off-q*E)*ds
		} else {
			offs[0] = reg.col0 + off*ds
		}
		if psum {
			mc.bankNote(offs[0]/rowBytes, offs[0]%rowBytes, offs[0]%rowBytes)
			return mc.bankCheck(v, k)
		}
		return nil
	}
	var idx [maxPairs]int64
	nd := len(pat)
	inner := pat[nd-1]
	if inner.Num == 0 {
		return nil
	}
	base := off
	pos := 0
	for {
		e0 := base
		if !reg.onChip() {
			b := reg.col0 + e0*ds
			stp := inner.Step * ds
			for j := int64(0); j < inner.Num; j++ {
				offs[pos] = b
				pos++
				b += stp
			}
		} else {
			eLast := e0 + inner.Step*(inner.Num-1)
			q0, qL := e0/E, eLast/E
			if q0 == qL {
				b := base0 + q0*rowBytes + (e0-q0*E)*ds
				stp := inner.Step * ds
				if psum {
					c0, cL := b%rowBytes, b%rowBytes+stp*(inner.Num-1)
					mc.bankNote(b/rowBytes, min(c0, cL), max(c0, cL))
				}
				for j := int64(0); j < inner.Num; j++ {
					offs[pos] = b
					pos++
					b += stp
				}
			} else {
				e := e0
				for j := int64(0); j < inner.Num; j++ {
					q := e / E
					b := base0 + q*rowBytes + (e-q*E)*ds
					offs[pos] = b
					pos++
					if psum {
						c := b % rowBytes
						mc.bankNote(b/rowBytes, c, c)
					}
					e += inner.Step
				}
			}
		}
		// Advance the outer counters.
		d := nd - 2
		for ; d >= 0; d-- {
			idx[d]++
			base += pat[d].Step
			if idx[d] < pat[d].Num {
				break
			}
			base -= pat[d].Step * pat[d].Num
			idx[d] = 0
		}
		if d < 0 {
			break
		}
	}
	if psum && !mc.peDst && !mc.opt.Macro {
		return mc.bankCheck(v, k)
	}
	return nil
}

// PSUM bank tracking: per storage row, the lowest and highest byte column
// touched by the current access.
func (mc *machine) bankReset() {
	for _, r := range mc.bankRows {
		mc.bankLo[r], mc.bankHi[r] = -1, -1
	}
	mc.bankRows = mc.bankRows[:0]
}

func (mc *machine) bankNote(row, lo, hi int64) {
	for int64(len(mc.bankLo)) <= row {
		mc.bankLo = append(mc.bankLo, -1)
		mc.bankHi = append(mc.bankHi, -1)
	}
	if mc.bankLo[row] < 0 {
		mc.bankLo[row], mc.bankHi[row] = lo, hi
		mc.bankRows = append(mc.bankRows, row)
		return
	}
	mc.bankLo[row] = min(mc.bankLo[row], lo)
	mc.bankHi[row] = max(mc.bankHi[row], hi)
}

func (mc *machine) bankCheck(v *view, k int) error {
	bb := v.reg.st.bankBytes
	for _, row := range mc.bankRows {
		lo, hi := mc.bankLo[row], mc.bankHi[row]+v.ds-1
		if lo/bb != hi/bb {
			r := v.reg
			return errf(ErrPSUMBankSpan, "%s spans PSUM banks: location %s, partition %d, bytes [%d, %d] cross the bank boundary at byte %d (a bank is %d bytes per partition)", v.what, r.name, r.physBase+row-r.row0, r.physCol0+lo-r.col0, r.physCol0+hi-r.col0, r.physCol0+(hi/bb)*bb-r.col0, bb)
		}
	}
	return nil
}

// physPartition returns the physical partition of byte offset off of an
// on-chip view (the accumulator lane).
func (v *view) physPartition(off int64) int64 {
	r := v.reg
	return r.physBase + off/r.st.rowBytes - r.row0
}
