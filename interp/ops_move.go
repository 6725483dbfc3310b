package interp

// Data movement: Load, Save, DMA, DMACopy (modes Copy, CCE and the 2-D
// Transpose) and TensorCopy (semantics.md §4.1, §4.2, §4.8, §4.9), plus the
// memory rules every instruction shares (semantics.md §1 "Memories").

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// ---- memory rules ----

// dmaReadRule: DMA reads HBM and SBUF, never PSUM (semantics.md §1: "no
// PSUM reads since NKI 0.3").
func dmaReadRule(vs ...*view) error {
	for _, v := range vs {
		if v.reg.st.kind == memPSUM {
			return errf(ErrMemoryRule, "DMA cannot read PSUM: %s reads location %s", v.what, v.reg.name)
		}
	}
	return nil
}

// engineRule: compute engines access SBUF and PSUM only; GpSimd (Pool)
// never touches PSUM (semantics.md §1, hardware.md).
func engineRule(eng bir.Engine, vs ...*view) error {
	for _, v := range vs {
		switch v.reg.st.kind {
		case memDRAM:
			return errf(ErrMemoryRule, "the %s engine cannot access DRAM: %s is location %s (%s); only DMA instructions move DRAM data", engName(eng), v.what, v.reg.name, v.reg.mt)
		case memPSUM:
			if eng == bir.EngPool {
				return errf(ErrMemoryRule, "GpSimd (Pool) cannot access PSUM: %s is location %s", v.what, v.reg.name)
			}
		}
	}
	return nil
}

func engName(e bir.Engine) string {
	if e == bir.EngUnassigned {
		return "compute"
	}
	return e.String()
}

// notBothPSUM: Vector/Scalar inputs are not both in PSUM (tensor_tensor).
func notBothPSUM(a, b *view) error {
	if a.reg.st.kind == memPSUM && b.reg.st.kind == memPSUM {
		return errf(ErrMemoryRule, "%s and %s are both in PSUM (locations %s and %s); an engine reads at most one PSUM input", a.what, b.what, a.reg.name, b.reg.name)
	}
	return nil
}

// sameCount: DMA walks operands in lockstep over equal element counts.
func sameCount(a, b *view) error {
	if a.n != b.n {
		return errf(ErrCountMismatch, "%s walks %d elements (pattern %v), %s walks %d (pattern %v)", a.what, a.n, a.pat.Shape(), b.what, b.n, b.pat.Shape())
	}
	return nil
}

// sameShape: compute engines need equal partition counts and equal
// elements per partition (semantics.md §1 "Lockstep").
func sameShape(a, b *view) error {
	if a.P != b.P || a.F != b.F {
		return errf(ErrCountMismatch, "%s is %d partitions x %d elements (pattern %v), %s is %d x %d (pattern %v); engine operands need equal partitions and elements per partition", a.what, a.P, a.F, a.pat.Shape(), b.what, b.P, b.F, b.pat.Shape())
	}
	return nil
}

// srcDst evaluates source 0 and destination 0 (the operands of most
// one-input instructions).
func (mc *machine) srcDst(x *instCtx) (src, d *view, err error) {
	if src, err = mc.in(x, 0); err != nil {
		return nil, nil, err
	}
	if d, err = mc.out(x, 0); err != nil {
		return nil, nil, err
	}
	return src, d, nil
}

// elementwise evaluates source 0 and destination 0 of an engine
// instruction that maps a [P, F] source onto a [P, F] destination, and
// checks the engine's memory rule and the lockstep shape rule.
func (mc *machine) elementwise(x *instCtx) (src, d *view, err error) {
	if src, d, err = mc.srcDst(x); err != nil {
		return nil, nil, err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return nil, nil, err
	}
	if err := sameShape(src, d); err != nil {
		return nil, nil, err
	}
	return src, d, nil
}

// ---- DMA ----

// opDMACopy is Load, Save and DMA: dst[k] = conv(src[k]) in lockstep over
// equal element counts (shapes may differ); raw copy for equal dtypes,
// src -> fp32 -> dst otherwise (semantics.md §4.1).
func (mc *machine) opDMACopy(x *instCtx) error {
	src, dst, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := dmaReadRule(src); err != nil {
		return err
	}
	if err := sameCount(src, dst); err != nil {
		return err
	}
	return mc.copyView(dst, src)
}

// opDMACopyMode is DMACopy: mode Copy (as Load), CCE (semantics.md §4.2)
// or Transpose (the 2-D DMA transpose of semantics.md §4.8). The other
// CopyModes (Dynamic, Replicate) have no semantics in narwhal yet and are
// errors.
func (mc *machine) opDMACopyMode(x *instCtx) error {
	mode := x.attrs.Str("mode", "Copy")
	switch mode {
	case "Copy":
		if len(x.ins) != 1 {
			return errf(ErrOperand, "DMACopy mode Copy has %d source operands; want 1", len(x.ins))
		}
		return mc.opDMACopy(x)
	case "CCE":
		return mc.opCCE(x)
	case "Transpose":
		return mc.opDMATranspose(x)
	}
	return errf(ErrNoSemantics, "narwhal has no semantics for DMACopy mode %q (it models Copy, CCE and Transpose)", mode)
}

// opDMATranspose is DMACopy mode Transpose, semantics.md §4.8 ("DMA: dst
// = permute(src) with axes (1,0), (2,1,0), (3,1,2,0); 2-byte dtype, same
// dtype, dst SBUF"), nki.isa.dma_transpose's three permutations:
//
//	transpose_op None (or absent)  src [A, B]        dst [B, A]        dst[j, i] = src[i, j]
//	transpose_op XZYW              src [A, B, C]     dst [C, B, A]     axes (2, 1, 0)
//	                               src [A, B, C, D]  dst [D, B, C, A]  axes (3, 1, 2, 0)
//
// bit-exact, the shapes being the [step, num] pairs of the operands'
// patterns. The source is HBM or SBUF (a DMA reads no PSUM), the
// destination SBUF; both have the same 2-byte dtype. As any instruction,
// all of the source is read before the destination is written.
//
// CHOICE: transpose_op XZYW names the destination's axes by the source's
// letters W, Z, Y, X (outermost first, as NKI's [[step_w, num_w], ...,
// [step_x, num_x]] patterns): dst = (X, Z, Y, W) is axes (3, 1, 2, 0), and
// a 3-D source read as (W, Z, X) with Y of size 1 gives (X, Z, W), axes
// (2, 1, 0); the compiler's KLR codegen stamps XZYW on every DmaTranspose
// (a public reverse-engineering of neuronx-cc), which only this reading
// makes agree with both of the reference's permutations. The other
// TransposeOps letters are errors (no NKI instruction names them).
func (mc *machine) opDMATranspose(x *instCtx) error {
	op := "None"
	if v, ok := x.attrs.Get("transpose_op"); ok && v.Kind != bir.ValNull {
		op, _ = v.AsString()
	}
	if op != "None" && op != "XZYW" {
		return errf(ErrNoSemantics, "DMACopy mode Transpose with transpose_op %q: narwhal models None (the 2-D transpose) and XZYW (nki.isa.dma_transpose's 3-D and 4-D permutations)", op)
	}
	if len(x.ins) != 1 {
		return errf(ErrOperand, "DMACopy mode Transpose has %d source operands; want 1", len(x.ins))
	}
	src, dst, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := dmaReadRule(src); err != nil {
		return err
	}
	if dst.reg.st.kind != memSB {
		return errf(ErrMemoryRule, "the DMA transpose writes SBUF (semantics.md §4.8); %s is location %s in %s", dst.what, dst.reg.name, dst.reg.st.kind)
	}
	if src.dt != dst.dt {
		return errf(ErrOperand, "the DMA transpose keeps the dtype (semantics.md §4.8): %s is %s, %s is %s", src.what, src.dt, dst.what, dst.dt)
	}
	if src.ds != 2 || numeric.Packed(src.dt) {
		return errf(ErrOperand, "the DMA transpose moves 2-byte dtypes (semantics.md §4.8); %s is %s", src.what, src.dt)
	}
	perm, ok := transposeAxes(op, len(src.pat))
	if !ok {
		return errf(ErrNoSemantics, "%s has pattern %v (%d dims): transpose_op %s transposes %s", src.what, src.pat.Shape(), len(src.pat), op,
			map[string]string{"None": "two dims", "XZYW": "three or four dims"}[op])
	}
	d := len(perm)
	sdim := make([]int64, d)
	for k := range sdim {
		sdim[k] = src.pat[k].Num
	}
	if len(dst.pat) != d {
		return errf(ErrCountMismatch, "%s has pattern %v; the transpose of %s %v by axes %v has %d dims", dst.what, dst.pat.Shape(), src.what, src.pat.Shape(), perm, d)
	}
	for k := range d {
		if dst.pat[k].Num != sdim[perm[k]] {
			return errf(ErrCountMismatch, "%s has pattern %v; the transpose of %s %v by axes %v is %v", dst.what, dst.pat.Shape(), src.what, src.pat.Shape(), perm, permuted(sdim, perm))
		}
	}
	in := mc.u64buf(0, src.n)
	if err := mc.gatherBits(src, in); err != nil {
		return err
	}
	var srcInit, written []bool
	if mc.allowUninit {
		// The written state travels with the bytes (as in a raw copy).
		srcInit = mc.boolbuf(2 * src.n)
		srcInit, written = srcInit[:src.n], srcInit[src.n:]
		for k, o := range src.offs {
			srcInit[k] = src.reg.st.isInit(o, src.ds)
		}
	}
	// Source strides in elements (row-major over its dims), read along the
	// destination's dims.
	stride := make([]int64, d)
	acc := int64(1)
	for k := d - 1; k >= 0; k-- {
		stride[k] = acc
		acc *= sdim[k]
	}
	ddim := permuted(sdim, perm)
	idx := make([]int64, d)
	out := mc.u64buf(1, dst.n)
	for j := int64(0); j < dst.n; j++ {
		var i int64
		for k := range d {
			i += idx[k] * stride[perm[k]]
		}
		out[j] = in[i]
		if written != nil {
			written[j] = srcInit[i]
		}
		for k := d - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < ddim[k] {
				break
			}
			idx[k] = 0
		}
	}
	scatterBits(dst, out)
	if written != nil {
		for k, o := range dst.offs {
			dst.reg.st.setInit(o, dst.ds, written[k])
		}
	}
	return nil
}

// transposeAxes returns the permutation of a DMA transpose: the
// destination's axis k is the source's axis perm[k].
func transposeAxes(op string, dims int) ([]int, bool) {
	switch {
	case op == "None" && dims == 2:
		return []int{1, 0}, true
	case op == "XZYW" && dims == 3:
		return []int{2, 1, 0}, true
	case op == "XZYW" && dims == 4:
		return []int{3, 1, 2, 0}, true
	}
	return nil, false
}

func permuted(dims []int64, perm []int) []int64 {
	out := make([]int64, len(perm))
	for k, p := range perm {
		out[k] = dims[p]
	}
	return out
}

// opCCE: dst[k] = cast(sum_i scale_i * fp32(src_i[k])), the scales from the
// "constants" attribute (default 1.0 each).
//
// CHOICE (semantics.md §4.2): any scale is honoured (NKI requires 1.0); the
// sum is folded in fp32 in source order starting from the first scaled
// source, each product rounded to fp32 before it is added. cce_op "add"
// (or absent) sums the sources; "bypass" is accepted with a single source
// (a scaled copy); other reduce ops are errors.
func (mc *machine) opCCE(x *instCtx) error {
	cceOp := x.attrs.Str("cce_op", "add")
	if cceOp != "add" && !(cceOp == "bypass" && len(x.ins) == 1) {
		return errf(ErrNoSemantics, "DMACopy mode CCE with cce_op %q and %d sources: narwhal models the add reduction (and bypass of one source)", cceOp, len(x.ins))
	}
	scales := make([]float32, len(x.ins))
	for i := range scales {
		scales[i] = 1
	}
	if v, ok := x.attrs.Get("constants"); ok && v.Kind != bir.ValNull {
		if v.Kind != bir.ValList || len(v.L) != len(x.ins) {
			return errf(ErrOperand, "attribute constants has %d entries for %d sources; want one scale per source", len(v.L), len(x.ins))
		}
		for i, c := range v.L {
			f, ok := c.AsFloat()
			if !ok {
				return errf(ErrOperand, "attribute constants[%d] is not a number", i)
			}
			scales[i] = float32(f)
		}
	}
	dst, err := mc.out(x, 0)
	if err != nil {
		return err
	}
	acc := mc.f32buf(0, dst.n)
	tmp := mc.f32buf(1, dst.n)
	for i := range x.ins {
		src, err := mc.in(x, i)
		if err != nil {
			return err
		}
		if err := dmaReadRule(src); err != nil {
			return err
		}
		if err := sameCount(src, dst); err != nil {
			return err
		}
		if err := mc.gatherF32(src, tmp); err != nil {
			return err
		}
		s := scales[i]
		if i == 0 {
			for k, v := range tmp {
				acc[k] = s * v
			}
			continue
		}
		for k, v := range tmp {
			acc[k] += float32(s * v)
		}
	}
	return mc.scatterF32(dst, acc)
}

// opTensorCopy: dst = src on an engine, bit-exact when the dtypes are equal
// and through fp32 otherwise (semantics.md §4.9).
//
// CHOICE (semantics.md §4.9): on NC-v2 the Scalar engine (Activation)
// always goes through fp32, even for equal dtypes (int32 is then lossy
// beyond 2^24).
func (mc *machine) opTensorCopy(x *instCtx) error {
	src, dst, err := mc.elementwise(x)
	if err != nil {
		return err
	}
	if x.eng == bir.EngAct && mc.geo.gen == 20 {
		return mc.convertCopy(dst, src)
	}
	return mc.copyView(dst, src)
}
