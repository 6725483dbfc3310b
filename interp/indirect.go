package interp

// Indirect DMA (semantics.md §4.3) and narwhal's DRAM virtual address space
// (ReadVarAddr; seed 001's lower_generic_indirect chain).
//
// The DRAM virtual address space. Every DRAM location (Input, Output,
// DRAM) of every function gets a deterministic base address:
//
//	VA(function f, location l) = (ordinal(f, l) + 1) * 2^36
//	ordinal(f, l)             = sum of NumLocs of the functions before f + l
//	VA of block b of a template location = VA(f, l) + b * span,
//	span = the location's byte size rounded up to 64 (NBlocks * span <= 2^36)
//
// so each location owns a 64 GiB window, addresses are exact in int64 and
// uint64 (never in fp32: address arithmetic goes through the 64-bit integer
// path, alu.go intPathChoice), and an address outside every location's
// bytes is out of bounds. An address names the innermost active
// activation of its function.
//
// Operand roles:
//
//	ReadVarAddr          ins [AP on a DRAM location]          outs [integer AP]
//	    every destination element = the VA of the source AP's first element
//	    (the source is not read; int64/uint64 destinations, a 32-bit one only
//	    if the address fits, which narwhal's addresses never do).
//	IndirectLoad         ins [addr, index, offset?]           outs [dst P x F]
//	IndirectSave         ins [src P x F, addr, index?]        outs [AP on the DRAM tensor]
//	    addr, index and offset are integer APs (or immediates) of one value
//	    per partition p; row p moves F contiguous elements of the data dtype
//	    (the on-chip operand's) starting at byte
//	        addr[p] + (index[p] * R + offset[p]) * dtypeSize,
//	    R = attribute "entry_step_elements" (default F). IndirectSave's
//	    destination AP names the tensor written (its pattern is not used);
//	    the rows must land in it.
//	IndirectSaveAccumulate  ins [src P x F, addr, index?]  outs [AP on the DRAM tensor]
//	    IndirectSave's operands and rows, but each source element is added
//	    into the DRAM element it lands on: dst = cast(fp32(dst) + fp32(src))
//	    (semantics.md §4.2, the DMA read-modify-write scatter
//	    dst_hbm[idx] += src_sb). "op" must be add (its default); the
//	    destination operand's dtype must equal the source's (the DRAM bytes
//	    are read as that dtype); "num_indices", when present, must equal P.
//	    The rows that are moved must not overlap (semantics.md: "unique
//	    indices"; uniqueRows): a repeated index is an error of kind domain,
//	    not a double sum.
//	GenericIndirectLoad  ins [data AP on the DRAM tensor, idx_1..idx_n]  outs [dst P x F]
//	GenericIndirectSave  ins [data AP on the DRAM tensor, idx_1..idx_n]  outs [src P x F]
//	    (seed 001: the indexed tensor is ins[0] for both; the save's on-chip
//	    source is its outs[0]. A save written the dataflow way round, ins[0]
//	    on-chip and outs[0] the DRAM tensor, is accepted too: the DRAM
//	    operand is the indexed one.) Attribute "indirect_dims" (default [0])
//	    lists the dims of the tensor's shape that the n index APs index
//	    (n = len(ins) - 1). Row p, free element i of the data AP's free
//	    pattern (pairs 1..; pair 0's step is ignored, its num is P) is
//	        offset + sum_j idx_j[p] * R_j + sum_{d>=1} i_d * step_d,
//	    R_j = product of the tensor shape after dim_j (semantics.md §4.3).
//	    GenericIndirectSave's "op": absent or "bypass" stores, "add"
//	    accumulates (dst = dst + src through fp32).
//
// Out of bounds (CHOICE §4.3): a row is out of bounds iff any of its
// addresses lies outside the indexed tensor's location, or an index is
// negative. Attribute "oob_is_err" (default true) makes that an error; false
// skips the row (the destination keeps its value).
//
// Equivalence with the lowered form. lower_generic_indirect (its file
// comment is the authority) turns a GenericIndirectLoad of data AP D
// (element offset o, dtype of size s) with index idx and row multiplier R
// into, for a row that is one contiguous run in DRAM,
//
//	ReadVarAddr        A[p] = VA(D's location)                    ([P,1] int64 <base>_DstTensor)
//	TensorScalarPtr    G[p] = idx[p] * R    (a later indirect dim adds G: the flat index)
//	TensorScalarPtr    A[p] = A[p] + o*s    (int64: the 64-bit path)
//	Memset             T[p] = 0             ([P,1] int64 <base>_OffsetTensor, the run's offset)
//	TensorScalarPtr    T[p] = G[p] + T[p]
//	IndirectLoad       ins [A, T] with entry_step_elements = 1
//
// so row p moves the elements at byte VA + (o + idx[p]*R)*s on, exactly
// the generic instruction's (a row of several runs repeats the last three
// per run, with T's Memset at the run's offset). gatherModule in the tests
// builds this chain by hand and TestIndirect_GenericAndLoweredAgree checks
// identical bytes; the pass's own tests run both forms on every built-in
// kernel.

import (
	"cmp"
	"math"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

const (
	vaShift  = 36
	vaWindow = int64(1) << vaShift
)

func vaSpan(bytes int64) int64 { return max((bytes+63)/64*64, 64) }

// dramVA returns the virtual address of block b of DRAM location l of
// frame fr.
func (mc *machine) dramVA(fr *frame, l bir.LocID, b, bytes int64) (uint64, error) {
	if fr.fn < 0 || fr.fn >= len(mc.funcBase)-1 {
		return 0, errf(ErrOperand, "function %s is not in the module", fr.f.Name)
	}
	ord := mc.funcBase[fr.fn] + int64(l)
	if (b+1)*vaSpan(bytes) > vaWindow {
		return 0, errf(ErrOperand, "DRAM location %s (block %d of %d bytes) exceeds narwhal's 64 GiB address window", fr.f.Loc(l).Name, b, bytes)
	}
	return uint64(ord+1)<<vaShift + uint64(b*vaSpan(bytes)), nil
}

// vaLookup resolves a virtual address to its region and the byte offset in
// it. ok is false when the address is in no location (an out-of-bounds
// address, not an error by itself).
func (mc *machine) vaLookup(va int64) (r *region, off int64, ok bool, err error) {
	if va < vaWindow {
		return nil, 0, false, nil
	}
	ord := va>>vaShift - 1
	within := va & (vaWindow - 1)
	fi := -1
	for i := 0; i+1 < len(mc.funcBase); i++ {
		if ord >= mc.funcBase[i] && ord < mc.funcBase[i+1] {
			fi = i
			break
		}
	}
	if fi < 0 {
		return nil, 0, false, nil
	}
	var fr *frame
	for k := len(mc.stack) - 1; k >= 0; k-- {
		if mc.stack[k].fn == fi {
			fr = mc.stack[k]
			break
		}
	}
	if fr == nil {
		return nil, 0, false, nil
	}
	l := bir.LocID(ord - mc.funcBase[fi])
	if int(l) >= fr.f.NumLocs() {
		return nil, 0, false, nil
	}
	loc := fr.f.Loc(l)
	if loc.Dead || !loc.Type.IsDRAM() {
		return nil, 0, false, nil
	}
	block := int64(0)
	if isTemplate(fr.f, loc.Tensor) && loc.Type == bir.MemDRAM {
		span := vaSpan(loc.Partitions * loc.Bytes)
		block, within = within/span, within%span
		if block >= fr.f.Tensor(loc.Tensor).NBlocks {
			return nil, 0, false, nil
		}
	}
	r, err = mc.region(fr, l, block)
	if err != nil {
		return nil, 0, false, err
	}
	return r, r.col0 + within, true, nil
}

func (mc *machine) opReadVarAddr(x *instCtx) error {
	src, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	if src.reg.st.kind != memDRAM {
		return errf(ErrMemoryRule, "ReadVarAddr reads the address of a DRAM tensor; source 0 is location %s in %s", src.reg.name, src.reg.st.kind)
	}
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	va := int64(src.reg.va)
	if src.n > 0 {
		va += src.offs[0] - src.reg.col0
	}
	switch d.dt {
	case bir.Int64, bir.Uint64:
	case bir.Int32, bir.Uint32:
		if lo, hi := numeric.IntRange(d.dt); va < lo || va > hi {
			return errf(ErrOperand, "the address %#x does not fit the destination dtype %s; use int64 or uint64", va, d.dt)
		}
	default:
		return errf(ErrOperand, "ReadVarAddr writes a 64-bit address; the destination dtype is %s, want int64 or uint64", d.dt)
	}
	out := mc.u64buf(0, d.n)
	for k := range out {
		out[k] = uint64(va)
	}
	scatterBits(d, out)
	return nil
}

// rowInts reads a per-partition integer operand (an AP of P elements or an
// immediate/register) into slot.
func (mc *machine) rowInts(x *instCtx, k int, P int64, slot int, what string) ([]int64, error) {
	o := &x.ins[k]
	var out []int64
	if slot >= 0 {
		out = mc.i64buf(slot, P)
	} else {
		mc.chargeScratch(P, 8, P)
		out = make([]int64, P)
	}
	if !o.Kind.IsAP() {
		v, err := mc.scalarInt(x.fr, o, k)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = v
		}
		return out, nil
	}
	v, err := mc.in(x, k)
	if err != nil {
		return nil, err
	}
	if err := dmaReadRule(v); err != nil {
		return nil, err
	}
	if !numeric.IsInt(v.dt) {
		return nil, errf(ErrOperand, "%s %s has dtype %s; want an integer dtype", what, mc.label(k), v.dt)
	}
	if v.n != P {
		return nil, errf(ErrCountMismatch, "%s %s has %d elements (pattern %v); want one per partition (%d)", what, mc.label(k), v.n, v.pat.Shape(), P)
	}
	if err := mc.readInts(v, out); err != nil {
		return nil, err
	}
	return out, nil
}

// oobIsErr reads the "oob_is_err" attribute (default true).
func oobIsErr(attrs bir.AttrSet) bool { return attrs.Bool("oob_is_err", true) }

// moveRow copies n bytes between two storages, checking (unless allowed)
// that the source was written, and marks the destination written.
func (mc *machine) moveRow(dst *storage, doff int64, src *storage, soff, n int64, srcDesc func() string) error {
	if !mc.allowUninit && !src.isInit(soff, n) {
		return errf(ErrUninitRead, "read of never-written %s", srcDesc())
	}
	copy(dst.data[doff:doff+n], src.data[soff:soff+n])
	dst.setInit(doff, n, true)
	return nil
}

func (mc *machine) opIndirectLoad(x *instCtx) error {
	d, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if d.reg.st.kind == memPSUM {
		return errf(ErrMemoryRule, "an indirect DMA writes DRAM or SBUF, not PSUM (location %s)", d.reg.name)
	}
	P, F := d.P, max(d.F, 1)
	if d.n == 0 {
		return nil
	}
	addr, err := mc.rowInts(x, 0, P, 0, "address")
	if err != nil {
		return err
	}
	idx, err := mc.rowInts(x, 1, P, 1, "index")
	if err != nil {
		return err
	}
	var off []int64
	if len(x.ins) > 2 {
		if off, err = mc.rowInts(x, 2, P, 2, "offset"); err != nil {
			return err
		}
	}
	R := x.attrs.Int("entry_step_elements", F)
	return mc.indirectRows(x, d, addr, idx, off, R, rowLoad, nil)
}

// opIndirectSave is IndirectSave (acc false) and IndirectSaveAccumulate
// (acc true): the same operands and rows; the accumulating form adds each
// source element into the DRAM element it lands on (semantics.md §4.2's
// DMA read-modify-write scatter dst_hbm[idx] += src_sb).
func (mc *machine) opIndirectSave(x *instCtx, acc bool) error {
	src, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	if err := dmaReadRule(src); err != nil {
		return err
	}
	P, F := src.P, max(src.F, 1)
	mode := rowStore
	if acc {
		mode = rowAdd
		if op := x.attrs.Str("op", "add"); op != "add" {
			return errf(ErrNoSemantics, "IndirectSaveAccumulate op %q: narwhal models add only (semantics.md §4.2: the DMA read-modify-write adds)", op)
		}
		if v, ok := x.attrs.Get("num_indices"); ok && v.Kind != bir.ValNull {
			if n, ok := v.AsInt(); !ok || n != P {
				return errf(ErrOperand, "attribute num_indices=%s: want the number of source rows (%d), one index per partition", v.JSON(), P)
			}
		}
		if err := rejectPacked(src); err != nil {
			return err
		}
	}
	if src.n == 0 {
		return nil
	}
	addr, err := mc.rowInts(x, 1, P, 0, "address")
	if err != nil {
		return err
	}
	var idx []int64
	if len(x.ins) > 2 {
		if idx, err = mc.rowInts(x, 2, P, 1, "index"); err != nil {
			return err
		}
	}
	// The source view was evaluated before the index operands reused no
	// slot of it (slots are per operand), so it is still valid.
	tgt, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	if tgt.reg.st.kind != memDRAM {
		return errf(ErrMemoryRule, "%s writes DRAM; its destination is location %s in %s", x.fr.f.OpName(x.i), tgt.reg.name, tgt.reg.st.kind)
	}
	if acc && tgt.dt != src.dt {
		return errf(ErrOperand, "the source (%s) is added into destination elements of %s: an accumulating DMA needs equal dtypes", src.dt, tgt.dt)
	}
	R := x.attrs.Int("entry_step_elements", F)
	return mc.indirectRows(x, src, addr, idx, nil, R, mode, tgt.reg)
}

// rowMode is what indirectRows does with a row.
type rowMode uint8

const (
	rowLoad  rowMode = iota // DRAM -> on-chip (IndirectLoad)
	rowStore                // on-chip -> DRAM (IndirectSave)
	rowAdd                  // DRAM += on-chip through fp32 (IndirectSaveAccumulate)
)

// indirectRow resolves row p of a concrete indirect DMA: the region and
// byte offset of its F contiguous DRAM elements of size ds at
// addr[p] + (idx[p]*R + off[p]) * ds. ok is false for an out-of-bounds row
// that oob_is_err=false skips; with oob_is_err such a row is an error. A
// row outside want (when set) is an error.
func (mc *machine) indirectRow(p int64, addr, idx, off []int64, R, F, ds int64, errOOB bool, want *region) (r *region, boff int64, ok bool, err error) {
	start := addr[p]
	rowElems := int64(0)
	if idx != nil {
		rowElems += idx[p] * R
	}
	if off != nil {
		rowElems += off[p]
	}
	start += rowElems * ds
	r, boff, ok, err = mc.vaLookup(start)
	if err != nil {
		return nil, 0, false, err
	}
	if ok && boff+F*ds > r.col0+r.bytes {
		ok = false
	}
	if ok && want != nil && r != want {
		return nil, 0, false, errf(ErrOperand, "row %d: address %#x lies in location %s; the destination operand names %s", p, start, r.name, want.name)
	}
	if !ok && errOOB {
		desc := "no DRAM location"
		if r != nil {
			desc = "location " + r.name + " (" + itoa(r.bytes) + " bytes)"
		}
		return nil, 0, false, errf(ErrOutOfBounds, "row %d: %d bytes at address %#x (address %#x, index %d) fall outside %s", p, F*ds, start, addr[p], rowElems, desc)
	}
	return r, boff, ok, nil
}

// indirectRows moves the rows of the concrete indirect DMAs: the on-chip
// view v (destination of a load, source of a save) row p <-> the F
// contiguous DRAM elements at addr[p] + (idx[p]*R + off[p]) * size.
func (mc *machine) indirectRows(x *instCtx, v *view, addr, idx, off []int64, R int64, mode rowMode, want *region) error {
	P, F := v.P, max(v.F, 1)
	ds := v.ds
	errOOB := oobIsErr(x.attrs)
	if mode == rowAdd {
		if err := mc.uniqueRows(addr, idx, off, R, P, F, ds, errOOB, want); err != nil {
			return err
		}
	}
	for p := int64(0); p < P; p++ {
		r, boff, ok, err := mc.indirectRow(p, addr, idx, off, R, F, ds, errOOB, want)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for j := int64(0); j < F; j++ {
			o := v.offs[p*F+j]
			b := boff + j*ds
			switch mode {
			case rowLoad:
				rr := r
				if err := mc.moveRow(v.reg.st, o, r.st, b, ds, func() string { return rr.describe(b) }); err != nil {
					return err
				}
			case rowStore:
				if err := mc.moveRow(r.st, b, v.reg.st, o, ds, func() string { return v.reg.describe(o) }); err != nil {
					return err
				}
			case rowAdd:
				if err := mc.addElem(r, b, v, o); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// addElem adds the on-chip element of v at byte o into the DRAM element of
// r at byte b (v's dtype): dst = cast(fp32(dst) + fp32(src)), the fp32
// pipeline of semantics.md §4.2 (one rounding of the sum to fp32, one cast).
func (mc *machine) addElem(r *region, b int64, v *view, o int64) error {
	dt, ds := v.dt, v.ds
	if !mc.allowUninit {
		if !r.st.isInit(b, ds) {
			return errf(ErrUninitRead, "the accumulating save reads never-written %s", r.describe(b))
		}
		if !v.reg.st.isInit(o, ds) {
			return errf(ErrUninitRead, "read of never-written %s", v.reg.describe(o))
		}
	}
	a, _ := numeric.ToFloat32(dt, numeric.LoadBits(dt, r.st.data[b:]))
	s, _ := numeric.ToFloat32(dt, numeric.LoadBits(dt, v.reg.st.data[o:]))
	bits, _ := numeric.FromFloat32(dt, a+s)
	numeric.StoreBits(dt, r.st.data[b:], bits)
	r.st.setInit(b, ds, true)
	return nil
}

// uniqueRows checks the precondition of the DMA read-modify-write scatter
// (semantics.md §4.2: "unique indices", DOC): no two rows that are moved
// update a common element. The documentation requires unique indices and
// says nothing of what a repeated one does (the read-modify-writes of one
// instruction are not ordered against each other), so CHOICE: a repeated
// index, or any two rows that overlap, is an error of kind domain rather
// than a double sum. Rows that oob_is_err=false skips take no part. The
// row starts are sorted (n log n) in scratch slots 3 and 4.
func (mc *machine) uniqueRows(addr, idx, off []int64, R, P, F, ds int64, errOOB bool, want *region) error {
	start := mc.i64buf(3, P)
	order := mc.i64buf(4, 0)
	for p := int64(0); p < P; p++ {
		_, boff, ok, err := mc.indirectRow(p, addr, idx, off, R, F, ds, errOOB, want)
		if err != nil {
			return err
		}
		if ok {
			start[p] = boff
			order = append(order, p)
		}
	}
	mc.i64s[4] = order
	slices.SortFunc(order, func(a, b int64) int { return cmp.Or(cmp.Compare(start[a], start[b]), cmp.Compare(a, b)) })
	for k := 1; k < len(order); k++ {
		p, q := order[k-1], order[k]
		if start[q] < start[p]+F*ds {
			p, q = min(p, q), max(p, q)
			ip, iq := "", ""
			if idx != nil {
				ip, iq = " (index "+itoa(idx[p])+")", " (index "+itoa(idx[q])+")"
			}
			return errf(ErrDomain, "rows %d%s and %d%s update overlapping elements of location %s (at bytes %d and %d, %d-byte rows): a DMA read-modify-write needs unique indices (semantics.md §4.2)",
				p, ip, q, iq, want.name, start[p]-want.col0, start[q]-want.col0, F*ds)
		}
	}
	return nil
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var b [24]byte
	i := len(b)
	neg := v < 0
	if neg {
		v = -v
	}
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// opGenericIndirect is GenericIndirectLoad (load=true) and
// GenericIndirectSave.
func (mc *machine) opGenericIndirect(x *instCtx, load bool) error {
	nIdx := len(x.ins) - 1
	dims := append(mc.idxDims[:0], 0)
	if v, ok := x.attrs.Get("indirect_dims"); ok && v.Kind != bir.ValNull {
		if v.Kind != bir.ValList {
			return errf(ErrOperand, "attribute indirect_dims=%s: want a list of dims", v.JSON())
		}
		dims = dims[:0]
		for i, e := range v.L {
			d, ok := e.AsInt()
			if !ok {
				return errf(ErrOperand, "attribute indirect_dims[%d]=%s is not an integer", i, e.JSON())
			}
			dims = append(dims, d)
		}
	}
	mc.idxDims = dims // keep the grown scratch
	if len(dims) != nIdx {
		return errf(ErrOperand, "indirect dimensions must be one less than the instruction's source operands: %d indirect_dims, %d index operands", len(dims), nIdx)
	}
	// The indexed (DRAM) operand and the on-chip one.
	dataIsIn := true
	if !load && !x.ins[0].Kind.IsAP() {
		return errf(ErrOperand, "source 0 is a %s, want an access pattern", x.ins[0].Kind)
	}
	onchipK := len(x.ins) // the out operand
	if !load {
		// Seed layout: ins[0] the DRAM tensor, outs[0] the source. The
		// dataflow layout (ins[0] on-chip, outs[0] DRAM) is accepted too.
		if r, err := mc.operandMem(x.fr, &x.ins[0]); err != nil {
			return prefixErr(err, "source 0")
		} else if r != memDRAM {
			dataIsIn = false
			onchipK = 0
		}
	}
	dataK := 0
	if !dataIsIn {
		dataK = len(x.ins)
	}
	dataOpd := &x.ins[0]
	if !dataIsIn {
		dataOpd = &x.outs[0]
	}
	// The data AP with pair 0 collapsed (its step is ignored).
	if !dataOpd.Kind.IsAP() {
		return errf(ErrOperand, "%s is a %s, want an access pattern", mc.label(dataK), dataOpd.Kind)
	}
	full, err := mc.pattern(dataOpd, dataK)
	if err != nil {
		return err
	}
	if len(full) == 0 {
		return errf(ErrOperand, "%s: the indexed tensor's pattern has no partition pair", mc.label(dataK))
	}
	rowPat := append(append(mc.rowPat[:0], bir.APPair{Step: 0, Num: 1}), full[1:]...)
	mc.rowPat = rowPat
	data, err := mc.evalAPWith(x.fr, dataK, dataOpd, rowPat)
	if err != nil {
		return err
	}
	if data.reg.st.kind != memDRAM {
		return errf(ErrMemoryRule, "%s: the indexed tensor is location %s in %s; indirect DMAs index DRAM", mc.label(dataK), data.reg.name, data.reg.st.kind)
	}
	var oc *view
	if onchipK == 0 {
		oc, err = mc.in(x, 0)
	} else {
		oc, err = mc.evalAP(x.fr, onchipK, &x.outs[0])
	}
	if err != nil {
		return err
	}
	if oc.reg.st.kind == memPSUM {
		return errf(ErrMemoryRule, "an indirect DMA moves data between DRAM and SBUF, not PSUM (location %s)", oc.reg.name)
	}
	P := full[0].Num
	F := data.n
	if oc.P != P || oc.F != F {
		return errf(ErrCountMismatch, "the on-chip operand is %d x %d (pattern %v); the indexed pattern moves %d rows of %d elements (pattern %v)", oc.P, oc.F, oc.pat.Shape(), P, F, full.Shape())
	}
	// Row multipliers R_j from the indexed tensor's shape.
	f := x.fr.f
	ts := f.Tensor(f.Loc(data.reg.loc).Tensor)
	shape := ts.Shape
	// R_j, and the largest index of each indirect dim that can stay inside
	// the location (a larger one is out of bounds whatever the others
	// are, and is rejected before idx*R_j could overflow int64).
	elems := data.reg.bytes / data.ds // the indexed location's elements
	Rs, maxIdx := mc.idxRs[:0], mc.idxMax[:0]
	for j, dim := range dims {
		if dim < 0 || dim >= int64(len(shape)) {
			return errf(ErrOperand, "indirect_dims[%d]=%d is not a dim of tensor %s of shape %v", j, dim, ts.Name, shape)
		}
		r := int64(1)
		for _, s := range shape[dim+1:] {
			if s < 0 || s > 0 && r > elems/s {
				r = elems + 1 // beyond the location: any index but 0 is out of bounds
				break
			}
			r *= s
		}
		Rs = append(Rs, r)
		if r == 0 {
			maxIdx = append(maxIdx, math.MaxInt64)
		} else {
			maxIdx = append(maxIdx, elems/r)
		}
	}
	mc.idxRs, mc.idxMax = Rs, maxIdx
	idx := mc.idxVecs[:0]
	for range nIdx {
		idx = append(idx, nil)
	}
	mc.idxVecs = idx
	for j := range nIdx {
		k := j + 1
		slot := j
		if j >= 4 {
			slot = -1 // scratch slots 0..3; further index vectors are allocated
		}
		if idx[j], err = mc.rowInts(x, k, P, slot, "index"); err != nil {
			return err
		}
	}
	if P == 0 || F == 0 {
		return nil
	}
	// Free offsets of a row (bytes relative to its first element).
	ds := data.ds
	lo, hi := int64(0), int64(0)
	for _, o := range data.offs {
		rel := o - data.offs[0]
		lo, hi = min(lo, rel), max(hi, rel)
	}
	op := "bypass"
	if !load {
		op = x.attrs.Str("op", "bypass")
		if op != "bypass" && op != "add" {
			return errf(ErrNoSemantics, "GenericIndirectSave op %q: narwhal models bypass (store) and add (accumulate)", op)
		}
	}
	if op == "add" {
		if err := rejectPacked(data); err != nil {
			return err
		}
		if err := rejectPacked(oc); err != nil {
			return err
		}
	}
	errOOB := oobIsErr(x.attrs)
	dst := data.reg
	rowStart := func(p int64) (int64, bool) {
		e := int64(0)
		for j := range nIdx {
			if idx[j][p] < 0 || idx[j][p] > maxIdx[j] {
				return 0, false
			}
			e += idx[j][p] * Rs[j]
		}
		return data.offs[0] + e*ds, true
	}
	for p := int64(0); p < P; p++ {
		b0, ok := rowStart(p)
		if ok && (b0+lo < dst.col0 || b0+hi+ds > dst.col0+dst.bytes) {
			ok = false
		}
		if !ok {
			if errOOB {
				vals := make([]int64, nIdx)
				for j := range nIdx {
					vals[j] = idx[j][p]
				}
				return errf(ErrOutOfBounds, "row %d: indices %v select elements outside tensor %s (location %s, %d elements of %s)", p, vals, ts.Name, dst.name, dst.bytes/ds, data.dt)
			}
			continue
		}
		for j := int64(0); j < F; j++ {
			db := b0 + data.offs[j] - data.offs[0]
			o := oc.offs[p*F+j]
			if load {
				if err := mc.moveElem(oc, o, dst, db, data.dt); err != nil {
					return err
				}
				continue
			}
			if op == "bypass" {
				if err := mc.moveElem2(dst, db, data.dt, oc, o); err != nil {
					return err
				}
				continue
			}
			// add: dst = dst + src through fp32.
			if !mc.allowUninit && (!dst.st.isInit(db, ds) || !oc.reg.st.isInit(o, oc.ds)) {
				return errf(ErrUninitRead, "GenericIndirectSave add: read of never-written %s", func() string {
					if !dst.st.isInit(db, ds) {
						return dst.describe(db)
					}
					return oc.reg.describe(o)
				}())
			}
			a, _ := numeric.ToFloat32(data.dt, numeric.LoadBits(data.dt, dst.st.data[db:]))
			b, _ := numeric.ToFloat32(oc.dt, numeric.LoadBits(oc.dt, oc.reg.st.data[o:]))
			bits, _ := numeric.FromFloat32(data.dt, a+b)
			numeric.StoreBits(data.dt, dst.st.data[db:], bits)
			dst.st.setInit(db, ds, true)
		}
	}
	return nil
}

// operandMem returns the memory kind of an AP operand without evaluating
// its pattern.
func (mc *machine) operandMem(fr *frame, o *bir.Operand) (memKind, error) {
	f := fr.f
	var l bir.LocID
	switch o.Kind {
	case bir.OpdPhysAP:
		l = o.Loc()
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() || len(f.Tensor(t).Locs) == 0 {
			return 0, errf(ErrOperand, "names no tensor with a location (#%d)", t)
		}
		l = f.Tensor(t).Locs[0]
	default:
		return 0, errf(ErrOperand, "is a %s, want an access pattern", o.Kind)
	}
	if int(l) < 0 || int(l) >= f.NumLocs() {
		return 0, errf(ErrOperand, "names no memory location (#%d)", l)
	}
	return memKindOf(f.Loc(l))
}

// moveElem copies one element from DRAM region r (byte b, dtype dt) to the
// on-chip view element at byte o: raw for equal dtypes, through fp32
// otherwise.
func (mc *machine) moveElem(oc *view, o int64, r *region, b int64, dt bir.Dtype) error {
	ds := dt.Size()
	if !mc.allowUninit && !r.st.isInit(b, ds) {
		return errf(ErrUninitRead, "read of never-written %s", r.describe(b))
	}
	if oc.dt == dt {
		copy(oc.reg.st.data[o:o+ds], r.st.data[b:b+ds])
	} else {
		if numeric.Packed(dt) || numeric.Packed(oc.dt) {
			return errf(ErrOperand, "x4-packed data (%s -> %s) can only be copied raw", dt, oc.dt)
		}
		f, _ := numeric.ToFloat32(dt, numeric.LoadBits(dt, r.st.data[b:]))
		bits, _ := numeric.FromFloat32(oc.dt, f)
		numeric.StoreBits(oc.dt, oc.reg.st.data[o:], bits)
	}
	oc.reg.st.setInit(o, oc.ds, true)
	return nil
}

// moveElem2 copies one on-chip view element (byte o) to DRAM region r
// (byte b, dtype dt).
func (mc *machine) moveElem2(r *region, b int64, dt bir.Dtype, oc *view, o int64) error {
	ds := oc.ds
	if !mc.allowUninit && !oc.reg.st.isInit(o, ds) {
		return errf(ErrUninitRead, "read of never-written %s", oc.reg.describe(o))
	}
	if oc.dt == dt {
		copy(r.st.data[b:b+ds], oc.reg.st.data[o:o+ds])
	} else {
		if numeric.Packed(dt) || numeric.Packed(oc.dt) {
			return errf(ErrOperand, "x4-packed data (%s -> %s) can only be copied raw", oc.dt, dt)
		}
		f, _ := numeric.ToFloat32(oc.dt, numeric.LoadBits(oc.dt, oc.reg.st.data[o:]))
		bits, _ := numeric.FromFloat32(dt, f)
		numeric.StoreBits(dt, r.st.data[b:], bits)
	}
	r.st.setInit(b, dt.Size(), true)
	return nil
}
