// Package klrtest writes KLR files from the klr package's AST, for tests:
// the KLR files narwhal's tests need (every Access form, version and
// content-type variants) are built in Go and encoded here, rather than
// committed as opaque bytes.
//
// The encoding is klr-format.md's: definite-length CBOR, shortest heads,
// every structure and constructor as d9 <type tag> <ctor> <array header>,
// Option as d9 ff 00 80 / d9 ff 01 81, Prop fields counted in the header
// but written as nothing (TensorName, Slice, AccessBasic). It covers the
// constructs the tests build: Contents.lnc and Contents.kernel, every
// Access form, TensorRef.abstract, and the operators ncDmaCopy,
// tensorTensor, tensorScalar, memSet and ncCopy; anything else is an error.
// TestEncode_Fixtures checks it against the toolchain's own files: decoding
// a fixture and encoding it again gives the same bytes.
package klrtest

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/klr"
)

// Encode returns the bytes of f.
func Encode(f *klr.File) ([]byte, error) {
	e := &encoder{}
	e.tag(217, 0xf7, 3)
	e.nat(f.Header.Major)
	e.nat(f.Header.Minor)
	e.nat(f.Header.Patch)
	e.tag(235, 0, 1)
	e.str(f.Metadata.Format)
	e.tag(236, byte(f.Contents.Ctor), 1)
	switch f.Contents.Ctor {
	case klr.ContentsLnc:
		if f.Contents.Lnc == nil {
			return nil, fmt.Errorf("klrtest: Contents.lnc without an LncKernel")
		}
		e.lnc(f.Contents.Lnc)
	case klr.ContentsKernel:
		if f.Contents.Kernel == nil {
			return nil, fmt.Errorf("klrtest: Contents.kernel without a Kernel")
		}
		k := f.Contents.Kernel
		e.tag(105, 0, 4)
		e.head(k.Name, k.Inputs, k.Outputs)
		e.blocks(k.Body)
	default:
		return nil, fmt.Errorf("klrtest: Contents constructor %d is not encoded", f.Contents.Ctor)
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

// LncFile wraps a kernel in a version-12 file with Contents.lnc.
func LncFile(k *klr.LncKernel) *klr.File {
	return &klr.File{Header: klr.SupportedVersion, Metadata: klr.MetaData{Format: "NKI"}, Contents: klr.Contents{Ctor: klr.ContentsLnc, Lnc: k}}
}

type encoder struct {
	b   []byte
	err error
}

func (e *encoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = fmt.Errorf("klrtest: "+format, args...)
	}
}

// major writes a CBOR head in its shortest form.
func (e *encoder) major(m byte, arg uint64) {
	m <<= 5
	switch {
	case arg < 24:
		e.b = append(e.b, m|byte(arg))
	case arg <= math.MaxUint8:
		e.b = append(e.b, m|24, byte(arg))
	case arg <= math.MaxUint16:
		e.b = binary.BigEndian.AppendUint16(append(e.b, m|25), uint16(arg))
	case arg <= math.MaxUint32:
		e.b = binary.BigEndian.AppendUint32(append(e.b, m|26), uint32(arg))
	default:
		e.b = binary.BigEndian.AppendUint64(append(e.b, m|27), arg)
	}
}

// tag writes a structure or constructor header with n fields.
func (e *encoder) tag(typ, ctor byte, n int) {
	e.b = append(e.b, 0xd9, typ, ctor)
	e.major(4, uint64(n))
}

func (e *encoder) enum(typ byte, v int) { e.tag(typ, byte(v), 0) }
func (e *encoder) nat(v uint64)         { e.major(0, v) }
func (e *encoder) str(s string)         { e.major(3, uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) list(n int)           { e.major(4, uint64(n)) }

func (e *encoder) integer(v int64) {
	if v >= 0 {
		e.major(0, uint64(v))
	} else {
		e.major(1, uint64(-1-v))
	}
}

func (e *encoder) boolean(v bool) {
	if v {
		e.b = append(e.b, 0xf5)
	} else {
		e.b = append(e.b, 0xf4)
	}
}

func (e *encoder) float32(v float32) {
	e.b = binary.BigEndian.AppendUint32(append(e.b, 0xfa), math.Float32bits(v))
}

func (e *encoder) none() { e.tag(0xff, 0, 0) }
func (e *encoder) some() { e.tag(0xff, 1, 1) }
func optNat(e *encoder, o klr.Opt[uint64]) {
	if !o.Valid {
		e.none()
		return
	}
	e.some()
	e.nat(o.V)
}

func (e *encoder) head(name string, ins, outs []klr.TensorName) {
	e.str(name)
	e.tensors(ins)
	e.tensors(outs)
}

func (e *encoder) tensors(ts []klr.TensorName) {
	e.list(len(ts))
	for i := range ts {
		e.tensor(&ts[i])
	}
}

func (e *encoder) lnc(k *klr.LncKernel) {
	e.tag(108, 0, 7)
	e.head(k.Name, k.Inputs, k.Outputs)
	e.list(len(k.Bodies))
	for _, body := range k.Bodies {
		e.blocks(body)
	}
	e.list(len(k.SharedConstants))
	for _, c := range k.SharedConstants {
		e.tag(c.Tag, 0, 2)
		e.str(c.Name)
		e.str(c.FileName)
	}
	e.tensors(k.SharedBuffers)
	e.list(len(k.Edges))
	for _, ed := range k.Edges {
		e.tag(ed.Tag, 0, 2)
		e.str(ed.FromEdge)
		e.list(len(ed.ToEdges))
		for _, s := range ed.ToEdges {
			e.str(s)
		}
	}
}

func (e *encoder) blocks(bs []klr.Block) {
	e.list(len(bs))
	for _, b := range bs {
		e.tag(104, 0, 3)
		e.str(b.Label)
		e.boolean(b.NoReorder)
		e.list(len(b.Body))
		for i := range b.Body {
			e.stmt(&b.Body[i])
		}
	}
}

func (e *encoder) stmt(s *klr.Stmt) {
	e.tag(103, 0, 3)
	e.operator(s.Op)
	if s.Name.Valid {
		e.some()
		e.str(s.Name.V)
	} else {
		e.none()
	}
	p := s.Pos
	e.tag(100, 0, 5)
	e.nat(p.Line)
	e.nat(p.Column)
	optNat(e, p.LineEnd)
	optNat(e, p.ColumnEnd)
	if p.Filename.Valid {
		e.some()
		e.str(p.Filename.V)
	} else {
		e.none()
	}
}

func (e *encoder) tensor(t *klr.TensorName) {
	e.tag(114, 0, 8) // 6 items: the two Prop fields take no bytes
	e.str(t.Name)
	e.enum(111, int(t.Dtype))
	e.tag(112, 0, 2)
	e.nat(t.Shape.ParDim)
	e.list(len(t.Shape.FreeDims))
	for _, d := range t.Shape.FreeDims {
		e.nat(d)
	}
	a := &t.Address
	e.tag(113, 0, 7)
	e.str(a.Name)
	e.enum(110, int(a.Memory))
	e.nat(a.ParSize)
	e.nat(a.FreeSize)
	optNat(e, a.ParOffset)
	optNat(e, a.FreeOffset)
	e.boolean(a.IsShared)
	e.nat(t.FreeElements)
	e.boolean(t.AddressRotation)
}

func (e *encoder) pairs(ps []klr.APPair) {
	e.list(len(ps))
	for _, p := range ps {
		e.tag(119, 0, 3)
		e.integer(p.Step)
		e.nat(p.Num)
		e.integer(p.Offset)
	}
}

func (e *encoder) access(a *klr.Access) {
	if a == nil {
		e.fail("nil Access")
		return
	}
	e.tag(125, byte(a.Kind), 1)
	switch a.Kind {
	case klr.AccessKindSimple:
		e.tensor(a.Simple)
	case klr.AccessKindBasic:
		e.tag(118, 0, 3) // 2 items: lenWF takes no bytes
		e.tensor(&a.Basic.Tensor)
		e.list(len(a.Basic.Indexes))
		for _, x := range a.Basic.Indexes {
			e.tag(117, byte(x.Kind), 1)
			if x.Kind == klr.IndexCoord {
				e.nat(x.Coord)
				continue
			}
			e.tag(115, 0, 4) // 3 items: wf takes no bytes
			e.nat(x.Slice.L)
			e.nat(x.Slice.U)
			e.integer(x.Slice.Step)
		}
	case klr.AccessKindPattern:
		p := a.Pattern
		e.tag(120, 0, 6)
		e.tensor(&p.Tensor)
		e.nat(p.ParNum)
		e.pairs(p.Pattern)
		e.nat(p.ParOffset)
		e.nat(p.FreeOffset)
		e.raw(p.FixedAxis)
	case klr.AccessKindBirPattern:
		b := a.Bir
		e.tag(124, 0, 7)
		e.tensor(&b.Tensor)
		e.integer(b.Offset)
		e.pairs(b.Pattern)
		if b.ScalarOffset.Valid || b.VectorOffset.Valid {
			e.fail("dynamic offsets are not encoded")
			return
		}
		e.none()
		e.none()
		e.integer(b.IndirectDim)
		if b.DtypeOverride.Valid {
			e.some()
			e.enum(111, int(b.DtypeOverride.V))
		} else {
			e.none()
		}
	default:
		e.fail("Access kind %d", a.Kind)
	}
}

// raw writes an item kept raw by the reader (RawCtor, integers, strings,
// arrays, booleans, null, floats).
func (e *encoder) raw(r klr.Raw) {
	switch r.Kind {
	case klr.RawUint:
		e.major(0, r.Uint)
	case klr.RawNegInt:
		e.major(1, r.Uint)
	case klr.RawText:
		e.str(r.Str)
	case klr.RawBytes:
		e.major(2, uint64(len(r.Str)))
		e.b = append(e.b, r.Str...)
	case klr.RawArray:
		e.list(len(r.Items))
		for _, it := range r.Items {
			e.raw(it)
		}
	case klr.RawCtor:
		n := len(r.Items)
		if r.Ctor == 0 {
			n += map[byte]int{114: 2, 115: 1, 118: 1}[r.Type]
		}
		e.tag(r.Type, r.Ctor, n)
		for _, it := range r.Items {
			e.raw(it)
		}
	case klr.RawBool:
		e.boolean(r.Bool)
	case klr.RawNull:
		e.b = append(e.b, 0xf6)
	case klr.RawFloat:
		e.float32(float32(r.Float))
	default:
		e.fail("raw item kind %d", r.Kind)
	}
}

func (e *encoder) ref(r *klr.TensorRef) {
	if r.Kind != klr.RefAbstract {
		e.fail("TensorRef.%s is not encoded", r.KindName())
		return
	}
	e.tag(128, 0, 1)
	e.access(r.Access)
}

func (e *encoder) optDtype(d klr.Opt[klr.Dtype]) {
	if !d.Valid {
		e.none()
		return
	}
	e.some()
	e.enum(111, int(d.V))
}

func (e *encoder) imm(x klr.Immediate) {
	switch x.Kind {
	case klr.ImmRegister:
		e.tag(131, 0, 1)
		e.nat(x.Reg)
	case klr.ImmPointer:
		e.tag(131, 1, 0)
	case klr.ImmInt:
		e.tag(131, 2, 1)
		e.integer(int64(x.Int))
	case klr.ImmFloat:
		e.tag(131, 3, 1)
		e.float32(x.Float)
	}
}

func (e *encoder) operand(o klr.Operand) {
	if o.Kind == klr.OperandImm {
		e.tag(133, 0, 1)
		e.imm(o.Imm)
		return
	}
	e.tag(133, 1, 1)
	e.ref(o.Tile)
}

func (e *encoder) operator(op klr.Operator) {
	e.tag(218, byte(op.Ctor()), 1)
	switch o := op.(type) {
	case *klr.NcDmaCopy:
		e.tag(153, 0, 8)
		e.ref(&o.Dst)
		e.ref(&o.Src)
		e.enum(140, int(o.ComputeOp))
		e.tag(141, byte(o.OobMode.Kind), btoi(o.OobMode.Kind == klr.BoundsReg))
		if o.OobMode.Kind == klr.BoundsReg {
			e.nat(o.OobMode.Reg)
		}
		e.nat(o.DgeMode)
		e.boolean(o.UniqueIndices)
		if o.Priority.Valid {
			e.some()
			e.raw(o.Priority.V)
		} else {
			e.none()
		}
		e.enum(130, int(o.Engine))
	case *klr.TensorTensor:
		e.tag(182, 0, 6)
		e.ref(&o.Dst)
		e.ref(&o.Src0)
		e.ref(&o.Src1)
		e.enum(135, int(o.Op))
		e.optDtype(o.Dtype)
		e.enum(130, int(o.Engine))
	case *klr.TensorScalar:
		e.tag(180, 0, 9)
		e.ref(&o.Dst)
		e.ref(&o.Src)
		e.operand(o.Imm0)
		e.enum(135, int(o.Op0))
		if o.Imm1.Valid {
			e.some()
			e.operand(o.Imm1.V)
		} else {
			e.none()
		}
		if o.Op1.Valid {
			e.some()
			e.enum(135, int(o.Op1.V))
		} else {
			e.none()
		}
		e.enum(144, int(o.Reverse))
		e.enum(130, int(o.Engine))
		e.optDtype(o.Dtype)
	case *klr.MemSet:
		e.tag(158, 0, 4)
		e.ref(&o.Dst)
		e.imm(o.Value)
		e.enum(111, int(o.Dtype))
		e.enum(130, int(o.Engine))
	case *klr.NcCopy:
		e.tag(178, 0, 4)
		e.ref(&o.Dst)
		e.ref(&o.Src)
		e.optDtype(o.Dtype)
		e.enum(130, int(o.Engine))
	default:
		e.fail("operator %s is not encoded", op.Name())
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
