package interp

// The data-rearranging nki.isa instructions of GpSimd and the Vector
// engine (docs/isa.md):
//
//	local_gather        IndirectCopy       ins [src_buffer, index]  outs [dst]  num_valid_indices, num_elem_per_idx
//	nc_n_gather         Gather             ins [data, indices]      outs [dst]
//	nc_stream_shuffle   StreamShuffle      ins [src]                outs [dst]  mask [32]
//	sequence_bounds     GetSequenceBounds  ins [segment_ids [1,n]]  outs [dst [1,2n]]
//	nonzero_with_count  NonzeroWithCount   ins [src [P,T]]          outs [dst [P,T+1]]  index_offset, padding_val
//
// Rows and elements are those of the access patterns (the [P, F] view of
// ap.go: row p, free element j in row-major order), so a pass that
// rebases a pattern keeps the instruction's meaning. GpSimd cores serve 16
// consecutive rows (the reference: "Each of the eight GpSimd cores ...
// connects to 16 contiguous SBUF partitions"); stream shuffle quadrants
// are 32 rows. Gathers copy raw bits (the reference: "no data type casting
// is allowed"); an index outside its source is a domain error (the
// reference: "Behavior of out-of-bound index access is undefined").

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// gpsimdCoreRows is the number of partitions one GpSimd core serves.
const gpsimdCoreRows = 16

// bitsAt reads element k of v raw, checking it was written.
func (mc *machine) bitsAt(v *view, k int64) (uint64, error) {
	off := v.offs[k]
	st := v.reg.st
	if !mc.allowUninit && !st.isInit(off, v.ds) {
		return 0, errf(ErrUninitRead, "read of never-written %s (%s, element %d)", v.reg.describe(off), v.what, k)
	}
	return numeric.LoadBits(v.dt, st.data[off:]), nil
}

// storeBitsAt writes element k of v raw and marks it written.
func storeBitsAt(v *view, k int64, bits uint64) {
	off := v.offs[k]
	st := v.reg.st
	numeric.StoreBits(v.dt, st.data[off:], bits)
	st.setInit(off, v.ds, true)
}

// intAt reads element k of v as an exact integer (integer dtypes; a float
// dtype rounds to nearest even).
func (mc *machine) intAt(v *view, k int64) (int64, error) {
	b, err := mc.bitsAt(v, k)
	if err != nil {
		return 0, err
	}
	if numeric.IsInt(v.dt) {
		return numeric.Int64Of(v.dt, b), nil
	}
	f, _ := numeric.ToFloat32(v.dt, b)
	return numeric.Int64Of(bir.Int64, numeric.FloatToInt(bir.Int64, f)), nil
}

// gatherOperands evaluates source 0, source 1 and destination 0 of a
// gather, with the engine rule, equal partitions and equal dtypes of the
// data and the destination.
func (mc *machine) gatherOperands(x *instCtx, what string) (src, idx, d *view, err error) {
	if src, err = mc.in(x, 0); err != nil {
		return
	}
	if idx, err = mc.in(x, 1); err != nil {
		return
	}
	if d, err = mc.out(x, 0); err != nil {
		return
	}
	if err = engineRule(x.eng, src, idx, d); err != nil {
		return
	}
	if src.P != idx.P || src.P != d.P {
		err = errf(ErrCountMismatch, "%s: data has %d partitions, the indices %d, the destination %d: want equal partitions", what, src.P, idx.P, d.P)
		return
	}
	if src.dt != d.dt {
		err = errf(ErrOperand, "%s: data dtype %s differs from destination dtype %s (a gather copies raw)", what, src.dt, d.dt)
		return
	}
	if !numeric.IsInt(idx.dt) {
		err = errf(ErrOperand, "%s: indices of dtype %s: want an integer dtype", what, idx.dt)
	}
	return
}

// opLocalGather: for GpSimd core c (rows 16c .. 16c+15), the indices of
// its 16 index rows flattened partition-first, idx[k] = index[16c + k%16,
// k/16], are element offsets into each row's free elements of src_buffer:
// dst[p, v*E + e] = src[p, idx[v] + e] for v < V = num_valid_indices (0:
// every index of the slice) and e < E = dst's elements per partition / V.
//
// CHOICE: this is the NKI reference's NumPy semantics (np.take of
// index[16c:16c+16].flatten(order='F')[:V] along each partition's free
// axis, the kernel passing index*num_elem_per_idx), not its prose
// ("indices as partition offsets"), which the NumPy example contradicts;
// an attribute num_elem_per_idx, if present, must equal E.
func (mc *machine) opLocalGather(x *instCtx) error {
	const what = "local_gather"
	src, index, d, err := mc.gatherOperands(x, what)
	if err != nil {
		return err
	}
	P := src.P
	if P%gpsimdCoreRows != 0 {
		return errf(ErrCountMismatch, "%s: %d partitions: want a multiple of %d (one GpSimd core per 16 partitions)", what, P, gpsimdCoreRows)
	}
	Fi, Fs, Fd := max(index.F, 1), max(src.F, 1), max(d.F, 1)
	V := x.attrs.Int("num_valid_indices", 0)
	if V == 0 {
		V = gpsimdCoreRows * Fi
	}
	if V < 0 || V > gpsimdCoreRows*Fi {
		return errf(ErrOperand, "%s: num_valid_indices %d: want 1 to %d (the index elements of a 16-partition slice)", what, V, gpsimdCoreRows*Fi)
	}
	if Fd%V != 0 {
		return errf(ErrCountMismatch, "%s: the destination has %d elements per partition, not a multiple of the %d valid indices", what, Fd, V)
	}
	E := Fd / V
	if e := x.attrs.Int("num_elem_per_idx", E); e != E {
		return errf(ErrCountMismatch, "%s: num_elem_per_idx %d, but the destination's %d elements per partition over %d indices give %d", what, e, Fd, V, E)
	}
	bits := mc.u64buf(0, d.n)
	for c := int64(0); c < P/gpsimdCoreRows; c++ {
		for v := int64(0); v < V; v++ {
			r, j := v%gpsimdCoreRows, v/gpsimdCoreRows
			at, err := mc.intAt(index, (c*gpsimdCoreRows+r)*Fi+j)
			if err != nil {
				return err
			}
			if at < 0 || at+E > Fs {
				return errf(ErrDomain, "%s: index %d (core %d, index %d) reads elements %d..%d of partitions with %d: out of bounds (undefined in the reference)", what, at, c, v, at, at+E-1, Fs)
			}
			for p := c * gpsimdCoreRows; p < (c+1)*gpsimdCoreRows; p++ {
				for e := int64(0); e < E; e++ {
					b, err := mc.bitsAt(src, p*Fs+at+e)
					if err != nil {
						return err
					}
					bits[p*Fd+v*E+e] = b
				}
			}
		}
	}
	scatterBits(d, bits)
	return nil
}

// opNGather: dst[p, i] = data[p, indices[p, i]] over data's free elements
// of row p in row-major order (nki.isa.nc_n_gather).
func (mc *machine) opNGather(x *instCtx) error {
	const what = "nc_n_gather"
	data, idx, d, err := mc.gatherOperands(x, what)
	if err != nil {
		return err
	}
	if idx.n != d.n {
		return errf(ErrCountMismatch, "%s: %d indices for %d destination elements: want one per element", what, idx.n, d.n)
	}
	Fs, Fd := max(data.F, 1), max(d.F, 1)
	bits := mc.u64buf(0, d.n)
	for k := int64(0); k < d.n; k++ {
		p := k / Fd
		at, err := mc.intAt(idx, k)
		if err != nil {
			return err
		}
		if at < 0 || at >= Fs {
			return errf(ErrDomain, "%s: index %d (row %d, element %d) is outside [0, %d), the row's data elements", what, at, p, k%Fd, Fs)
		}
		b, err := mc.bitsAt(data, p*Fs+at)
		if err != nil {
			return err
		}
		bits[k] = b
	}
	scatterBits(d, bits)
	return nil
}

// shuffleKeep is the stream-shuffle mask entry that leaves a destination
// partition unmodified.
const shuffleKeep = 255

// opStreamShuffle: within each quadrant q of 32 rows, destination row
// 32q+i = source row 32q+mask[i] (raw), unchanged where mask[i] is 255;
// the source rows are read before any destination row is written (the
// reference allows dst == src).
func (mc *machine) opStreamShuffle(x *instCtx) error {
	const what = "nc_stream_shuffle"
	mask, err := shuffleMask(x.attrs)
	if err != nil {
		return err
	}
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	if src.dt != d.dt {
		return errf(ErrOperand, "%s: source dtype %s differs from destination dtype %s", what, src.dt, d.dt)
	}
	F := max(d.F, 1)
	if max(src.F, 1) != F {
		return errf(ErrCountMismatch, "%s: source rows have %d elements, destination rows %d: want equal elements per partition", what, src.F, d.F)
	}
	bits := mc.u64buf(0, d.n)
	write := mc.boolbuf(d.P)
	for r := int64(0); r < d.P; r++ {
		m := mask[r%32]
		if m == shuffleKeep {
			continue
		}
		s := 32*(r/32) + m
		if s >= src.P {
			return errf(ErrCountMismatch, "%s: destination row %d copies source row %d, but the source has %d rows", what, r, s, src.P)
		}
		write[r] = true
		for j := int64(0); j < F; j++ {
			b, err := mc.bitsAt(src, s*F+j)
			if err != nil {
				return err
			}
			bits[r*F+j] = b
		}
	}
	for r := int64(0); r < d.P; r++ {
		if write[r] {
			for j := int64(0); j < F; j++ {
				storeBitsAt(d, r*F+j, bits[r*F+j])
			}
		}
	}
	return nil
}

// shuffleMask reads StreamShuffle's mask: 32 entries, each < 32 or 255.
func shuffleMask(attrs bir.AttrSet) ([]int64, error) {
	v, ok := attrs.Get("mask")
	if !ok {
		return nil, errf(ErrOperand, "StreamShuffle needs attribute mask (32 partition indices)")
	}
	list := v.L
	if v.Kind != bir.ValList || len(list) != 32 {
		return nil, errf(ErrOperand, "StreamShuffle mask %s: want a list of 32 entries", v.JSON())
	}
	out := make([]int64, 32)
	for k, e := range list {
		n, ok := e.AsInt()
		if !ok || (n < 0 || n >= 32) && n != shuffleKeep {
			return nil, errf(ErrOperand, "StreamShuffle mask entry %d is %s: want 0..31 or 255 (unmodified)", k, e.JSON())
		}
		out[k] = n
	}
	return out, nil
}

// opSequenceBounds: for each row of segment ids s[0..n-1], dst[p, i] =
// the start of i's segment (the first index of its run of equal ids) and
// dst[p, n+i] = its end (one past the run's last index); padding (id 0)
// gets start n and end -1 (the NKI reference's NumPy equivalent, row by
// row; the reference allows one row).
//
// CHOICE: ids are compared by value (fp32 ids as floats, int32 ids as
// integers); the bounds are written as dst's dtype (float32 or int32).
func (mc *machine) opSequenceBounds(x *instCtx) error {
	const what = "sequence_bounds"
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	n := max(src.F, 1)
	if d.P != src.P || max(d.F, 1) != 2*n {
		return errf(ErrCountMismatch, "%s: segment ids %d x %d, destination %d x %d: want the destination [P, 2, n] (%d x %d)", what, src.P, src.F, d.P, d.F, src.P, 2*n)
	}
	ids := mc.i64buf(0, src.n)
	if src.dt.IsFloat() {
		f := mc.f32buf(0, src.n)
		if err := mc.gatherF32(src, f); err != nil {
			return err
		}
		for k, v := range f {
			if v != v || v < 0 {
				return errf(ErrDomain, "%s: segment id %v (element %d): want non-negative ids", what, v, k)
			}
			// Equal ids have equal bits (NaN is rejected); +0 and -0
			// are both padding.
			ids[k] = int64(math.Float32bits(v))
			if v == 0 {
				ids[k] = 0
			}
		}
	} else {
		if err := mc.readInts(src, ids); err != nil {
			return err
		}
		for k, v := range ids {
			if v < 0 {
				return errf(ErrDomain, "%s: segment id %d (element %d): want non-negative ids", what, v, k)
			}
		}
	}
	out := mc.i64buf(1, d.n)
	for p := int64(0); p < src.P; p++ {
		s := ids[p*n : (p+1)*n]
		lo, hi := out[p*2*n:p*2*n+n], out[p*2*n+n:(p+1)*2*n]
		for i := int64(0); i < n; i++ {
			switch {
			case s[i] == 0:
				lo[i] = n
			case i > 0 && s[i] == s[i-1]:
				lo[i] = lo[i-1]
			default:
				lo[i] = i
			}
		}
		for i := n - 1; i >= 0; i-- {
			switch {
			case s[i] == 0:
				hi[i] = -1
			case i < n-1 && s[i] == s[i+1]:
				hi[i] = hi[i+1]
			default:
				hi[i] = i + 1
			}
		}
	}
	return mc.writeInts(d, out)
}

// opNonzeroWithCount: on rows 0, 16, 32, ... of src [P, T] (row 0 of
// each GpSimd core), dst row [P, T+1] = the indices j + index_offset of
// the nonzero elements in order, then padding_val up to T, then their
// count; the other rows of dst are not written (the reference: "The data
// in other partitions of the destination tile are not modified").
//
// CHOICE: a float element is nonzero when it is not +-0 (NaN is nonzero),
// an integer one when its bits are not 0; the values are written as int32
// (dst's dtype) wrapping.
func (mc *machine) opNonzeroWithCount(x *instCtx) error {
	const what = "nonzero_with_count"
	src, d, err := mc.srcDst(x)
	if err != nil {
		return err
	}
	if err := engineRule(x.eng, src, d); err != nil {
		return err
	}
	T := max(src.F, 1)
	if d.P != src.P || max(d.F, 1) != T+1 {
		return errf(ErrCountMismatch, "%s: source %d x %d, destination %d x %d: want the destination [%d, %d] (one more element per partition)", what, src.P, src.F, d.P, d.F, src.P, T+1)
	}
	if !numeric.IsInt(d.dt) {
		return errf(ErrOperand, "%s: destination dtype %s: want int32", what, d.dt)
	}
	off, pad := x.attrs.Int("index_offset", 0), x.attrs.Int("padding_val", -1)
	for p := int64(0); p < src.P; p += gpsimdCoreRows {
		row := make([]int64, 0, T+1)
		for j := int64(0); j < T; j++ {
			b, err := mc.bitsAt(src, p*T+j)
			if err != nil {
				return err
			}
			nz := b != 0
			if src.dt.IsFloat() {
				f, _ := numeric.ToFloat32(src.dt, b)
				nz = f != 0
			}
			if nz {
				row = append(row, j+off)
			}
		}
		count := int64(len(row))
		for int64(len(row)) < T {
			row = append(row, pad)
		}
		row = append(row, count)
		for j, v := range row {
			bits, _ := numeric.WrapInt(d.dt, v)
			storeBitsAt(d, p*(T+1)+int64(j), bits)
		}
	}
	return nil
}
