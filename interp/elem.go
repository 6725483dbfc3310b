package interp

// Element movement between views and scratch vectors: the fp32 pipeline
// (gatherF32 / scatterF32: every input converted to fp32, one cast to the
// destination dtype), raw bits (gatherBits / scatterBits: same-dtype copies
// and integer paths), and the written-bitmap checks. The dtype switch is
// outside the element loops; the loops only index precomputed offsets.

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/numeric"
)

// checkInit fails on the first element of v that was never written, unless
// uninitialised reads are allowed for the current instruction.
func (mc *machine) checkInit(v *view) error {
	st := v.reg.st
	if mc.allowUninit || st.allWritten() {
		return nil
	}
	if ds := v.ds; ds&(ds-1) == 0 {
		// Power-of-two element sizes: an aligned element's bits are in one
		// word.
		m0 := uint64(1)<<uint(ds) - 1
		if ds == 64 {
			m0 = math.MaxUint64
		}
		ok := true
		for _, off := range v.offs {
			b := uint(off & 63)
			if int64(b)+ds > 64 {
				ok = false
				break
			}
			if mask := m0 << b; st.init[off>>6]&mask != mask {
				ok = false
				break
			}
		}
		if ok {
			return nil
		}
	}
	for i, off := range v.offs {
		if !st.isInit(off, v.ds) {
			return errf(ErrUninitRead, "read of never-written %s (%s, element %d)", v.reg.describe(off), v.what, i)
		}
	}
	return nil
}

// markInit marks every element of v written.
func markInit(v *view) {
	st := v.reg.st
	if st.allWritten() {
		return
	}
	ds := v.ds
	m0 := uint64(1)<<uint(ds) - 1
	for _, off := range v.offs {
		b := uint(off & 63)
		if int64(b)+ds > 64 || ds >= 64 {
			st.setInit(off, ds, true)
			continue
		}
		w := &st.init[off>>6]
		mask := m0 << b
		if old := *w; old&mask != mask {
			*w = old | mask
			st.unwritten -= int64(bits.OnesCount64(mask &^ old))
		}
	}
}

// rejectPacked fails for the x4-packed dtypes, which have no fp32 value.
func rejectPacked(v *view) error {
	if numeric.Packed(v.dt) {
		return errf(ErrOperand, "%s has the x4-packed dtype %s: packed data can only be copied raw or memset to 0", v.what, v.dt)
	}
	return nil
}

// f32buf returns scratch vector slot i with n elements.
func (mc *machine) f32buf(i int, n int64) []float32 {
	if int64(cap(mc.f32s[i])) < n {
		mc.chargeScratch(n+n/4-int64(cap(mc.f32s[i])), 4, n)
		mc.f32s[i] = make([]float32, n, n+n/4)
	}
	return mc.f32s[i][:n]
}

// u64buf returns scratch integer slot i with n elements.
func (mc *machine) u64buf(i int, n int64) []uint64 {
	if int64(cap(mc.u64s[i])) < n {
		mc.chargeScratch(n+n/4-int64(cap(mc.u64s[i])), 8, n)
		mc.u64s[i] = make([]uint64, n, n+n/4)
	}
	return mc.u64s[i][:n]
}

// gatherF32 reads every element of v as fp32 into out (len(out) == v.n).
func (mc *machine) gatherF32(v *view, out []float32) error {
	if err := rejectPacked(v); err != nil {
		return err
	}
	if err := mc.checkInit(v); err != nil {
		return err
	}
	d := v.st().data
	offs := v.offs
	switch v.dt {
	case bir.Float32, bir.Float32R:
		for i, o := range offs {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(d[o:]))
		}
	case bir.BFloat16:
		for i, o := range offs {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[o:])) << 16)
		}
	case bir.Float16:
		for i, o := range offs {
			out[i] = numeric.F16ToF32(binary.LittleEndian.Uint16(d[o:]))
		}
	case bir.Float8E3, bir.Float8E4, bir.Float8E5, bir.Float8E4M3, bir.Float8E4M3FN:
		t := numeric.Table8(v.dt)
		for i, o := range offs {
			out[i] = t[d[o]]
		}
	case bir.Int8:
		for i, o := range offs {
			out[i] = float32(int8(d[o]))
		}
	case bir.Uint8:
		for i, o := range offs {
			out[i] = float32(d[o])
		}
	case bir.Int32:
		for i, o := range offs {
			out[i] = numeric.IntToFloat32(int64(int32(binary.LittleEndian.Uint32(d[o:]))))
		}
	default:
		for i, o := range offs {
			out[i], _ = numeric.ToFloat32(v.dt, numeric.LoadBits(v.dt, d[o:]))
		}
	}
	return nil
}

// scatterF32 writes in (fp32 values) to every element of v, converting to
// v's dtype, and marks them written.
func (mc *machine) scatterF32(v *view, in []float32) error {
	if err := rejectPacked(v); err != nil {
		return err
	}
	d := v.st().data
	offs := v.offs
	switch v.dt {
	case bir.Float32:
		for i, o := range offs {
			binary.LittleEndian.PutUint32(d[o:], math.Float32bits(in[i]))
		}
	case bir.BFloat16:
		for i, o := range offs {
			binary.LittleEndian.PutUint16(d[o:], numeric.F32ToBF16(in[i]))
		}
	case bir.Float16:
		for i, o := range offs {
			binary.LittleEndian.PutUint16(d[o:], numeric.F32ToF16(in[i]))
		}
	default:
		for i, o := range offs {
			b, _ := numeric.FromFloat32(v.dt, in[i])
			numeric.StoreBits(v.dt, d[o:], b)
		}
	}
	markInit(v)
	return nil
}

// gatherBits reads the raw bits of every element of v into out.
func (mc *machine) gatherBits(v *view, out []uint64) error {
	if err := mc.checkInit(v); err != nil {
		return err
	}
	d := v.st().data
	switch v.ds {
	case 1:
		for i, o := range v.offs {
			out[i] = uint64(d[o])
		}
	case 2:
		for i, o := range v.offs {
			out[i] = uint64(binary.LittleEndian.Uint16(d[o:]))
		}
	case 4:
		for i, o := range v.offs {
			out[i] = uint64(binary.LittleEndian.Uint32(d[o:]))
		}
	default:
		for i, o := range v.offs {
			out[i] = binary.LittleEndian.Uint64(d[o:])
		}
	}
	return nil
}

// scatterBits writes raw bits to every element of v and marks them written.
func scatterBits(v *view, in []uint64) {
	d := v.st().data
	switch v.ds {
	case 1:
		for i, o := range v.offs {
			d[o] = byte(in[i])
		}
	case 2:
		for i, o := range v.offs {
			binary.LittleEndian.PutUint16(d[o:], uint16(in[i]))
		}
	case 4:
		for i, o := range v.offs {
			binary.LittleEndian.PutUint32(d[o:], uint32(in[i]))
		}
	default:
		for i, o := range v.offs {
			binary.LittleEndian.PutUint64(d[o:], in[i])
		}
	}
	markInit(v)
}

// copyRaw copies src to dst element by element (same element size),
// bit-exact. The written state travels with the bytes when uninitialised
// reads are allowed (so an unwritten source stays unwritten downstream);
// otherwise every source element must have been written.
func (mc *machine) copyRaw(dst, src *view) error {
	if err := mc.checkInit(src); err != nil {
		return err
	}
	sd, dd := src.st().data, dst.st().data
	ss, dstSt := src.st(), dst.st()
	n := src.ds
	if ss == dstSt {
		// Source and destination share a storage: read every source
		// element before writing (an instruction reads its sources before
		// it writes its destination, whatever the overlap).
		return mc.copyRawBuffered(dst, src)
	}
	// Copy maximal runs that are contiguous in both source and destination
	// with one copy each.
	so, do := src.offs, dst.offs
	for i := 0; i < len(so); {
		j := i + 1
		for j < len(so) && so[j] == so[j-1]+n && do[j] == do[j-1]+n {
			j++
		}
		l := int64(j-i) * n
		copy(dd[do[i]:do[i]+l], sd[so[i]:so[i]+l])
		i = j
	}
	if mc.allowUninit {
		for i, so := range src.offs {
			dstSt.setInit(dst.offs[i], n, ss.isInit(so, n))
		}
	} else {
		markInit(dst)
	}
	return nil
}

// copyRawBuffered is copyRaw through a scratch buffer, for a source and
// destination in the same storage.
func (mc *machine) copyRawBuffered(dst, src *view) error {
	bits := mc.u64buf(2, src.n)
	d := src.st().data
	for i, o := range src.offs {
		bits[i] = numeric.LoadBits(src.dt, d[o:])
	}
	var written []bool
	if mc.allowUninit {
		written = mc.boolbuf(src.n)
		for i, o := range src.offs {
			written[i] = src.st().isInit(o, src.ds)
		}
	}
	st := dst.st()
	for i, o := range dst.offs {
		numeric.StoreBits(dst.dt, st.data[o:], bits[i])
	}
	if written == nil {
		markInit(dst)
		return nil
	}
	for i, o := range dst.offs {
		st.setInit(o, dst.ds, written[i])
	}
	return nil
}

// convertCopy copies src to dst through fp32 (different dtypes).
func (mc *machine) convertCopy(dst, src *view) error {
	buf := mc.f32buf(0, src.n)
	if err := mc.gatherF32(src, buf); err != nil {
		return err
	}
	return mc.scatterF32(dst, buf)
}

// copyView is the data-movement rule: raw copy for equal dtypes, through
// fp32 otherwise.
func (mc *machine) copyView(dst, src *view) error {
	if dst.dt == src.dt {
		return mc.copyRaw(dst, src)
	}
	return mc.convertCopy(dst, src)
}
