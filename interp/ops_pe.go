package interp

// The Tensor engine (PE): Matmult and Transpose (semantics.md §4.7, §4.8).
//
//	Matmult    ins [stationary K x M, moving K x N]  outs [dst M x N in PSUM]
//	           attrs start_tensor_calc, stop_tensor_calc, perf_mode, is_transpose
//	Transpose  ins [src]  outs [dst]   PE: SBUF [P,F] -> PSUM [F,P]; DVE: 32x32 blocks
//
// MatmultBase (the unlowered opcode) is Matmult. MatmultSymbolic is Matmult
// with tile_size/tile_position replaced by the affine-expression fields
// tile_size_expr/tile_position_expr (bir-json.md §4.4); the tile fields
// have no value effect (semantics.md §4.7), so the expressions are not
// read, and its operands' symbolic APs are evaluated under the current
// loop bindings as any operand's. The replication_* fields (optional on
// Matmult, required on MatmultSymbolic) are undocumented: CHOICE
// (matmulReplication) a non-zero one is an error on every matmul opcode
// rather than ignored.
//
// K is the partition dim of both matmul inputs, M the stationary's free
// size (the destination's partitions), N the moving's free size.
//
// Accumulation groups (CHOICE, documented in docs/semantics-choices.md):
// each PSUM (partition, bank) has an open-group flag.
//
//   - start_tensor_calc: every bank the destination touches in each of
//     its partitions (a row wider than a bank touches several) is
//     cleared to 0 (the zero region: semantics.md §4.7, INF from [U1][U2]:
//     later non-start writes to untouched elements of the bank are not
//     summed with stale data), the result is written, and the group opens.
//   - no start, per element: if a group is open on its bank (or stop_tensor_calc is
//     set: accumulate=True in NKI terms) the result is added to the PSUM
//     value in fp32 (an accumulating matmul reads PSUM, so a never-written
//     element is an uninitialised read); otherwise (neither flag, no open
//     group) the result overwrites ([U1] "plain overwrite").
//   - stop_tensor_calc closes the group after the write (no value effect).
//
// The K products of one output element are summed in fp32 in k order
// starting from +0, each product rounded to fp32 first (CHOICE §4.7), and
// that sum is then added to PSUM, as the PE array reduces along K before
// PSUM accumulates. fp32 inputs are accepted. DoubleRow (perf_mode) reads
// the stationary as [K, 2, M] and the moving as [K, 2, N] and sums over
// (k, l) in that order.

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// peRule: the Tensor engine reads only SBUF and writes only PSUM.
func peRule(dst *view, srcs ...*view) error {
	for _, v := range srcs {
		if v.reg.st.kind != memSB && v.reg.st.kind != memOpen {
			return errf(ErrMemoryRule, "the Tensor engine (PE) reads only SBUF: %s is location %s in %s", v.what, v.reg.name, v.reg.st.kind)
		}
	}
	if dst.reg.st.kind != memPSUM && dst.reg.st.kind != memOpen {
		return errf(ErrMemoryRule, "the Tensor engine (PE) writes only PSUM: %s is location %s in %s", dst.what, dst.reg.name, dst.reg.st.kind)
	}
	return nil
}

func floatOnly(vs ...*view) error {
	for _, v := range vs {
		if !v.dt.IsFloat() || numeric.Packed(v.dt) {
			return errf(ErrOperand, "%s has dtype %s; the Tensor engine takes float dtypes (fp8, bf16, fp16, tf32, fp32)", v.what, v.dt)
		}
	}
	return nil
}

// psumRowBank returns the storage row and PSUM bank of byte offset off.
func psumRowBank(st *storage, off int64) (int64, int64) {
	row := off / st.rowBytes
	return row, (off % st.rowBytes) / st.bankBytes
}

// zeroBank clears bank b of storage row row and marks it written.
func zeroBank(st *storage, row, b int64) {
	lo := row*st.rowBytes + b*st.bankBytes
	hi := min(lo+st.bankBytes, (row+1)*st.rowBytes)
	clear(st.data[lo:hi])
	st.setInitRange(lo, hi)
}

// setInitRange marks bytes [lo, hi) written.
func (s *storage) setInitRange(lo, hi int64) {
	for lo < hi && lo&63 != 0 {
		s.setInit(lo, 1, true)
		lo++
	}
	for ; lo+64 <= hi; lo += 64 {
		s.setInit(lo, 64, true)
	}
	for ; lo < hi; lo++ {
		s.setInit(lo, 1, true)
	}
}

// readF32At reads element k of v as fp32, checking that it was written.
func (mc *machine) readF32At(v *view, k int64) (float32, error) {
	off := v.offs[k]
	st := v.reg.st
	if !mc.allowUninit && !st.isInit(off, v.ds) {
		return 0, errf(ErrUninitRead, "accumulating matmul reads never-written %s (%s, element %d)", v.reg.describe(off), v.what, k)
	}
	f, _ := numeric.ToFloat32(v.dt, numeric.LoadBits(v.dt, st.data[off:]))
	return f, nil
}

// matmulReplication refuses a matmul whose replication_* fields
// (undocumented) are not all zero.
func matmulReplication(attrs bir.AttrSet) error {
	for _, k := range [...]string{"replication_resolution", "replication_shift_amnt", "replication_num_rows"} {
		if v, ok := attrs.Get(k); ok && v.Kind != bir.ValNull {
			if n, ok := v.AsInt(); !ok || n != 0 {
				return errf(ErrNoSemantics, "%s=%s: narwhal has no semantics for matmul replication (it runs a matmul only with all replication fields 0)", k, v.JSON())
			}
		}
	}
	return nil
}

func (mc *machine) opMatmult(x *instCtx) error {
	start := x.attrs.Bool("start_tensor_calc", false)
	stop := x.attrs.Bool("stop_tensor_calc", false)
	rows := int64(1)
	switch pm := x.attrs.Str("perf_mode", "None"); pm {
	case "None", "":
	case "DoubleRow":
		rows = 2
	default:
		return errf(ErrNoSemantics, "perf_mode %s: narwhal models None and DoubleRow", pm)
	}
	stat, err := mc.in(x, 0)
	if err != nil {
		return err
	}
	mov, err := mc.in(x, 1)
	if err != nil {
		return err
	}
	// A matmul destination row may span PSUM banks where the generation's
	// N limit is wider than a bank (the verifier's matmul-limits bounds N).
	mc.peDst = mc.geo.peSpansBanks
	d, err := mc.out(x, 0)
	mc.peDst = false
	if err != nil {
		return err
	}
	if err := peRule(d, stat, mov); err != nil {
		return err
	}
	if err := floatOnly(stat, mov, d); err != nil {
		return err
	}
	K := stat.P
	if mov.P != K {
		return errf(ErrCountMismatch, "stationary has %d partitions (K), moving has %d; both inputs are [K, ...]", K, mov.P)
	}
	transpose := x.attrs.Bool("is_transpose", false)
	if transpose {
		return mc.matmulTranspose(stat, mov, d, start, stop)
	}
	if stat.F%rows != 0 || mov.F%rows != 0 {
		return errf(ErrCountMismatch, "DoubleRow needs even free sizes; stationary has %d, moving %d", stat.F, mov.F)
	}
	M, N := stat.F/rows, mov.F/rows
	if d.P != M || d.F != N {
		return errf(ErrCountMismatch, "destination is %d partitions x %d elements (pattern %v); stationary^T @ moving is %d x %d", d.P, d.F, d.pat.Shape(), M, N)
	}
	s := mc.f32buf(0, stat.n)
	if err := mc.gatherF32(stat, s); err != nil {
		return err
	}
	v := mc.f32buf(1, mov.n)
	if err := mc.gatherF32(mov, v); err != nil {
		return err
	}
	res := mc.f32buf(2, M*N)
	clear(res)
	for k := int64(0); k < K; k++ {
		for l := int64(0); l < rows; l++ {
			srow := s[k*stat.F+l*M : k*stat.F+(l+1)*M]
			vrow := v[k*mov.F+l*N : k*mov.F+(l+1)*N]
			for m, sv := range srow {
				r := res[int64(m)*N : int64(m+1)*N]
				for n, mv := range vrow {
					r[n] += float32(sv * mv)
				}
			}
		}
	}
	return mc.psumWrite(d, res, start, stop)
}

// psumBegin applies the start flag to the destination of a Tensor-engine
// write (clearing the bank and opening the group of every (partition,
// bank) the destination touches: a row of more than one bank's bytes,
// N > 512 fp32 on NC-v4, spans several) and reports, per destination
// element, whether the result accumulates (its own bank's group).
func (mc *machine) psumBegin(d *view, start, stop, canAccumulate bool) []bool {
	st := d.reg.st
	acc := mc.boolbuf(d.n)
	last := int64(-1) // the group handled last: elements of a row are mostly in bank order
	for j := int64(0); j < d.n; j++ {
		row, b := psumRowBank(st, d.offs[j])
		g := row*st.banks + b
		if start {
			if g != last {
				zeroBank(st, row, b) // idempotent: nothing is written before the result
				st.groupOpen[g] = true
				last = g
			}
			continue
		}
		acc[j] = canAccumulate && (st.groupOpen[g] || stop)
	}
	return acc
}

// psumEnd applies the stop flag (closing the group of every (partition,
// bank) written).
func psumEnd(d *view, stop bool) {
	if !stop {
		return
	}
	st := d.reg.st
	for j := int64(0); j < d.n; j++ {
		row, b := psumRowBank(st, d.offs[j])
		st.groupOpen[row*st.banks+b] = false
	}
}

// boolbuf returns a cleared scratch []bool of n entries.
func (mc *machine) boolbuf(n int64) []bool {
	if int64(cap(mc.bools)) < n {
		mc.chargeScratch(n-int64(cap(mc.bools)), 1, n)
		mc.bools = make([]bool, n)
	}
	b := mc.bools[:n]
	clear(b)
	return b
}

// psumWrite writes a Tensor-engine fp32 result to a PSUM view with the
// accumulation-group semantics (see the file comment).
func (mc *machine) psumWrite(d *view, res []float32, start, stop bool) error {
	acc := mc.psumBegin(d, start, stop, true)
	for j, a := range acc {
		if !a {
			continue
		}
		old, err := mc.readF32At(d, int64(j))
		if err != nil {
			return err
		}
		res[j] = old + res[j]
	}
	if err := mc.scatterF32(d, res); err != nil {
		return err
	}
	psumEnd(d, stop)
	return nil
}

// matmulTranspose is Matmult with is_transpose: dst[m, k] = stat[k, m].
//
// CHOICE (semantics.md §4.8): bit-exact (NC-v3+ behaviour; through fp32
// when the dtypes differ), the moving operand (the identity of
// nc_transpose) is only checked for its shape; start still clears the
// bank; the write always overwrites (never accumulates).
func (mc *machine) matmulTranspose(stat, mov, d *view, start, stop bool) error {
	K, M := stat.P, stat.F
	if d.P != M || d.F != K {
		return errf(ErrCountMismatch, "is_transpose: destination is %d x %d (pattern %v); the transpose of the %d x %d stationary is %d x %d", d.P, d.F, d.pat.Shape(), K, M, M, K)
	}
	if mov.F != K {
		return errf(ErrCountMismatch, "is_transpose: moving is %d x %d; want the %d x %d identity", mov.P, mov.F, K, K)
	}
	mc.psumBegin(d, start, stop, false)
	if err := mc.transposeInto(d, stat, func(k int64) int64 { // dst element k = (m, kk)
		m, kk := k/K, k%K
		return kk*M + m
	}); err != nil {
		return err
	}
	psumEnd(d, stop)
	return nil
}

// transposeInto writes dst[k] = src[srcIndex(k)], bit-exact when the dtypes
// are equal, through fp32 otherwise.
func (mc *machine) transposeInto(d, src *view, srcIndex func(k int64) int64) error {
	if d.dt == src.dt {
		bits := mc.u64buf(0, src.n)
		if err := mc.gatherBits(src, bits); err != nil {
			return err
		}
		out := mc.u64buf(1, d.n)
		for k := range out {
			out[k] = bits[srcIndex(int64(k))]
		}
		scatterBits(d, out)
		return nil
	}
	f := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, f); err != nil {
		return err
	}
	out := mc.f32buf(1, d.n)
	for k := range out {
		out[k] = f[srcIndex(int64(k))]
	}
	return mc.scatterF32(d, out)
}

// opTranspose: PE form out[f, p] = in[p, f] (SBUF [P,F] -> PSUM [F,P]); DVE
// form 32x32 blocks out[32q+j, 32b+i] = in[32q+i, 32b+j] on SBUF/PSUM.
//
// CHOICE: an Unassigned engine picks the PE form when the destination is
// in PSUM and the source in SBUF, the DVE form otherwise. The PE form
// writes only its elements (the Transpose opcode has no start flag, so no
// zero region). Both are bit-exact for equal dtypes and go through fp32
// otherwise.
func (mc *machine) opTranspose(x *instCtx) error {
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	pe := x.eng == bir.EngPE
	if x.eng == bir.EngUnassigned {
		pe = d.reg.st.kind == memPSUM && src.reg.st.kind == memSB
	}
	if !pe && x.eng != bir.EngDVE && x.eng != bir.EngUnassigned {
		return errf(ErrMemoryRule, "Transpose runs on PE or DVE, not %s", x.eng)
	}
	if pe {
		if err := peRule(d, src); err != nil {
			return err
		}
		P, F := src.P, src.F
		if d.P != F || d.F != P {
			return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); the transpose of the %d x %d source is %d x %d", d.P, d.F, d.pat.Shape(), P, F, F, P)
		}
		return mc.transposeInto(d, src, func(k int64) int64 {
			f, p := k/P, k%P
			return p*F + f
		})
	}
	if err := engineRule(bir.EngDVE, src, d); err != nil {
		return err
	}
	P, F := src.P, src.F
	if P <= 32 && F <= 32 && (P != 32 || F != 32) {
		// nki.isa.nc_transpose on the Vector engine: "[32, 32] or
		// smaller", the partition axis becoming the free axis (one
		// block, partly filled).
		if d.P != F || d.F != P {
			return errf(ErrCountMismatch, "destination is %d x %d (pattern %v); the Vector-engine transpose of the %d x %d source is %d x %d", d.P, d.F, d.pat.Shape(), P, F, F, P)
		}
		return mc.transposeInto(d, src, func(k int64) int64 {
			f, p := k/P, k%P
			return p*F + f
		})
	}
	if err := sameShape(src, d); err != nil {
		return err
	}
	if P%32 != 0 || F%32 != 0 {
		return errf(ErrOperand, "the DVE transpose works on 32x32 blocks; the source is %d x %d", P, F)
	}
	return mc.transposeInto(d, src, func(k int64) int64 {
		r, c := k/F, k%F // destination (32q+j, 32b+i)
		q, j := r/32, r%32
		b, i := c/32, c%32
		return (32*q+i)*F + 32*b + j
	})
}
