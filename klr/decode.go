// The typed KLR reader: recursive descent over the three items of a file
// (KLRFile, KLRMetaData, Contents), one function per KLR type, each
// checking its type tag, constructor index and field count before reading
// the fields in declaration order (klr-format.md's table).
//
// The checks the seed makes (TranslateNKIASTToBIR path A) are made here and
// with the seed's wording: a header other than {0, 0, 12} is "Wrong KLR
// version", a Contents other than lnc (or, as an extension, kernel) is
// "Wrong KLIR content type". Bytes after the Contents item are an error
// (a KLR file is exactly three items).
package klr

import (
	"fmt"
	"os"
)

// Decode reads a KLR file from memory.
func Decode(data []byte) (*File, error) {
	d := &decoder{data: data}
	f := &File{}
	if err := d.readHeader(&f.Header); err != nil {
		return nil, within(err, "KLRFile")
	}
	if f.Header != SupportedVersion {
		return nil, &Error{Offset: 0, Msg: fmt.Sprintf("Wrong KLR version: the file is KLR %s, narwhal reads KLR %s (KLRFile{major, minor, patch})", f.Header, SupportedVersion)}
	}
	if err := d.readStruct(235, "KLRMetaData", 1); err != nil {
		return nil, err
	}
	var err error
	if f.Metadata.Format, err = d.readString(); err != nil {
		return nil, within(err, "KLRMetaData.format")
	}
	if err := d.readContents(&f.Contents); err != nil {
		return nil, err
	}
	if d.pos != len(d.data) {
		return nil, d.errAt(d.pos, "trailing garbage: %d bytes after the Contents item (a KLR file is exactly three CBOR items: KLRFile, KLRMetaData, Contents)", len(d.data)-d.pos)
	}
	return f, nil
}

// ReadFile reads and decodes a KLR file; errors name the file.
func ReadFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

func (d *decoder) readHeader(h *Header) error {
	start := d.pos
	// KLRFile.mk is constructor 0xf7 of type 0xd9: every file starts with
	// d9 d9 f7, the CBOR self-describe tag.
	ctor, n, err := d.readTag(217, "KLRFile")
	if err != nil {
		return err
	}
	if ctor != 0xf7 || n != 3 {
		return d.errAt(start, "want KLRFile (d9 d9 f7 83: constructor 0xf7 with 3 fields), have constructor 0x%02x with %d fields", ctor, n)
	}
	if h.Major, err = d.readNat(); err != nil {
		return within(err, "KLRFile.major")
	}
	if h.Minor, err = d.readNat(); err != nil {
		return within(err, "KLRFile.minor")
	}
	if h.Patch, err = d.readNat(); err != nil {
		return within(err, "KLRFile.patch")
	}
	return nil
}

func (d *decoder) readContents(c *Contents) error {
	start := d.pos
	ctor, n, err := d.readTag(236, "Contents")
	if err != nil {
		return err
	}
	c.Ctor = ctor
	switch ctor {
	case ContentsLnc, ContentsKernel:
	default:
		return d.errAt(start, "Wrong KLIR content type: Contents.%s; narwhal reads Contents.lnc (constructor %d, a compiled kernel) and Contents.kernel (constructor %d)", contentsCtorName(ctor), ContentsLnc, ContentsKernel)
	}
	if n != 1 {
		return d.errAt(start, "want Contents.%s with 1 argument, have %d", contentsCtorName(ctor), n)
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if ctor == ContentsLnc {
		c.Lnc = &LncKernel{}
		return within(d.readLncKernel(c.Lnc), "Contents.lnc")
	}
	c.Kernel = &Kernel{}
	return within(d.readKernel(c.Kernel), "Contents.kernel")
}

func (d *decoder) readTensorNames(what string, out *[]TensorName) error {
	_, err := d.readList("TensorName", func(i int) error {
		var t TensorName
		if err := d.readTensorName(&t); err != nil {
			return err
		}
		*out = append(*out, t)
		return nil
	})
	return withinf(err, "%s", what)
}

func (d *decoder) readBlocks(what string, out *[]Block) error {
	_, err := d.readList("Block", func(i int) error {
		var b Block
		if err := d.readBlock(&b); err != nil {
			return err
		}
		*out = append(*out, b)
		return nil
	})
	return withinf(err, "%s", what)
}

func (d *decoder) readKernel(k *Kernel) error {
	if err := d.readStruct(105, "Kernel", 4); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if err := d.readKernelHead("Kernel", &k.Name, &k.Inputs, &k.Outputs); err != nil {
		return err
	}
	return d.readBlocks("Kernel.body", &k.Body)
}

// readKernelHead reads the fields Kernel and LncKernel open with: name,
// inputs, outputs.
func (d *decoder) readKernelHead(what string, name *string, inputs, outputs *[]TensorName) error {
	var err error
	if *name, err = d.readString(); err != nil {
		return within(err, what+".name")
	}
	if err := d.readTensorNames(what+".inputs", inputs); err != nil {
		return err
	}
	return d.readTensorNames(what+".outputs", outputs)
}

func (d *decoder) readLncKernel(k *LncKernel) error {
	if err := d.readStruct(108, "LncKernel", 7); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if err := d.readKernelHead("LncKernel", &k.Name, &k.Inputs, &k.Outputs); err != nil {
		return err
	}
	_, err := d.readList("List Block", func(i int) error {
		var body []Block
		if err := d.readBlocks("", &body); err != nil {
			return err
		}
		k.Bodies = append(k.Bodies, body)
		return nil
	})
	if err != nil {
		return within(err, "LncKernel.bodies")
	}
	_, err = d.readList("SharedConstantFile", func(i int) error {
		var s SharedConstantFile
		tag, err := d.readAnyStruct("SharedConstantFile", 2)
		if err != nil {
			return err
		}
		s.Tag = tag
		if s.Name, err = d.readString(); err != nil {
			return within(err, "SharedConstantFile.name")
		}
		if s.FileName, err = d.readString(); err != nil {
			return within(err, "SharedConstantFile.fileName")
		}
		k.SharedConstants = append(k.SharedConstants, s)
		return nil
	})
	if err != nil {
		return within(err, "LncKernel.sharedConstants")
	}
	if err := d.readTensorNames("LncKernel.sharedBuffers", &k.SharedBuffers); err != nil {
		return err
	}
	_, err = d.readList("Edge", func(i int) error {
		var e Edge
		tag, err := d.readAnyStruct("Edge", 2)
		if err != nil {
			return err
		}
		e.Tag = tag
		if e.FromEdge, err = d.readString(); err != nil {
			return within(err, "Edge.fromEdge")
		}
		if _, err = d.readList("String", func(int) error {
			s, err := d.readString()
			e.ToEdges = append(e.ToEdges, s)
			return err
		}); err != nil {
			return within(err, "Edge.toEdges")
		}
		k.Edges = append(k.Edges, e)
		return nil
	})
	return withinf(err, "LncKernel.edges")
}

// readAnyStruct reads a structure header whose type tag klr-format.md does
// not pin (SharedConstantFile, the edge record): any tag, constructor 0,
// exactly n fields. It returns the tag found.
func (d *decoder) readAnyStruct(name string, fields int) (byte, error) {
	start := d.pos
	if d.remaining() < 3 {
		return 0, d.eof(start, name)
	}
	if d.data[d.pos] != 0xd9 {
		return 0, d.mismatch(start, name+" (a tagged structure d9 ..)")
	}
	tag, ctor := d.data[d.pos+1], d.data[d.pos+2]
	d.pos += 3
	n, err := d.readArrayHead("the fields of ", name)
	if err != nil {
		return 0, err
	}
	if ctor != 0 || n != fields {
		return 0, d.errAt(start, "want %s (constructor 0 with %d fields), have constructor %d with %d fields", name, fields, ctor, n)
	}
	return tag, nil
}

func (d *decoder) readBlock(b *Block) error {
	if err := d.readStruct(104, "Block", 3); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	var err error
	if b.Label, err = d.readString(); err != nil {
		return within(err, "Block.label")
	}
	if b.NoReorder, err = d.readBool(); err != nil {
		return within(err, "Block.noReorder")
	}
	_, err = d.readList("Stmt", func(i int) error {
		var s Stmt
		if err := d.readStmt(&s); err != nil {
			return err
		}
		b.Body = append(b.Body, s)
		return nil
	})
	return withinf(err, "Block %q body", b.Label)
}

func (d *decoder) readStmt(s *Stmt) error {
	s.Offset = d.pos
	if _, err := d.readCtor(103, "Stmt", []string{"oper"}, []int{3}); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	var err error
	if s.Op, err = d.readOperator(); err != nil {
		return within(err, "Stmt.op")
	}
	if s.Name, err = readOpt(d, d.readString); err != nil {
		return within(err, "Stmt.name")
	}
	if err := d.readPos(&s.Pos); err != nil {
		return within(err, "Stmt.pos")
	}
	return nil
}

func (d *decoder) readPos(p *Pos) error {
	if err := d.readStruct(100, "Pos", 5); err != nil {
		return err
	}
	var err error
	if p.Line, err = d.readNat(); err != nil {
		return within(err, "Pos.line")
	}
	if p.Column, err = d.readNat(); err != nil {
		return within(err, "Pos.column")
	}
	if p.LineEnd, err = readOpt(d, d.readNat); err != nil {
		return within(err, "Pos.lineEnd")
	}
	if p.ColumnEnd, err = readOpt(d, d.readNat); err != nil {
		return within(err, "Pos.columnEnd")
	}
	if p.Filename, err = readOpt(d, d.readString); err != nil {
		return within(err, "Pos.filename")
	}
	return nil
}

// readOpt reads an Option whose value is read by f.
func readOpt[T any](d *decoder, f func() (T, error)) (Opt[T], error) {
	some, err := d.readOption()
	if err != nil || !some {
		return Opt[T]{}, err
	}
	if err := d.enter(); err != nil {
		return Opt[T]{}, err
	}
	defer d.leave()
	v, err := f()
	if err != nil {
		return Opt[T]{}, within(err, "Option.some")
	}
	return Some(v), nil
}

// ---- tensors ----

func (d *decoder) readDtype() (Dtype, error) {
	v, err := d.readEnum(111, "Dtype", dtypeNames)
	return Dtype(v), err
}

func (d *decoder) readMemory() (Memory, error) {
	v, err := d.readEnum(110, "Memory", memoryNames)
	return Memory(v), err
}

func (d *decoder) readEngine() (Engine, error) {
	v, err := d.readEnum(130, "Engine", engineNames)
	return Engine(v), err
}

func (d *decoder) readAluOp() (AluOp, error) {
	v, err := d.readEnum(135, "AluOp", aluOpNames)
	return AluOp(v), err
}

func (d *decoder) readShape(s *Shape) error {
	if err := d.readStruct(112, "Shape", 2); err != nil {
		return err
	}
	var err error
	if s.ParDim, err = d.readNat(); err != nil {
		return within(err, "Shape.parDim")
	}
	_, err = d.readList("Nat", func(int) error {
		v, err := d.readNat()
		s.FreeDims = append(s.FreeDims, v)
		return err
	})
	return withinf(err, "Shape.freeDims")
}

func (d *decoder) readAddress(a *Address) error {
	if err := d.readStruct(113, "Address", 7); err != nil {
		return err
	}
	var err error
	if a.Name, err = d.readString(); err != nil {
		return within(err, "Address.name")
	}
	if a.Memory, err = d.readMemory(); err != nil {
		return within(err, "Address.memory")
	}
	if a.ParSize, err = d.readNat(); err != nil {
		return within(err, "Address.parSize")
	}
	if a.FreeSize, err = d.readNat(); err != nil {
		return within(err, "Address.freeSize")
	}
	if a.ParOffset, err = readOpt(d, d.readNat); err != nil {
		return within(err, "Address.parOffset")
	}
	if a.FreeOffset, err = readOpt(d, d.readNat); err != nil {
		return within(err, "Address.freeOffset")
	}
	if a.IsShared, err = d.readBool(); err != nil {
		return within(err, "Address.isShared")
	}
	return nil
}

// readTensorName reads a TensorName: n = 8 in the header, but its two Prop
// fields (parWF, freeWF) take no bytes, so 6 items follow.
func (d *decoder) readTensorName(t *TensorName) error {
	if err := d.readStruct(114, "TensorName", 8); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	var err error
	if t.Name, err = d.readString(); err != nil {
		return within(err, "TensorName.name")
	}
	if t.Dtype, err = d.readDtype(); err != nil {
		return withinf(err, "TensorName %q .dtype", t.Name)
	}
	if err := d.readShape(&t.Shape); err != nil {
		return withinf(err, "TensorName %q .shape", t.Name)
	}
	if err := d.readAddress(&t.Address); err != nil {
		return withinf(err, "TensorName %q .address", t.Name)
	}
	if t.FreeElements, err = d.readNat(); err != nil {
		return withinf(err, "TensorName %q .freeElements", t.Name)
	}
	if t.AddressRotation, err = d.readBool(); err != nil {
		return withinf(err, "TensorName %q .addressRotation", t.Name)
	}
	return nil
}

func (d *decoder) readAPPair(p *APPair) error {
	if err := d.readStruct(119, "APPair", 3); err != nil {
		return err
	}
	var err error
	if p.Step, err = d.readInt(); err != nil {
		return within(err, "APPair.step")
	}
	if p.Num, err = d.readNat(); err != nil {
		return within(err, "APPair.num")
	}
	if p.Offset, err = d.readInt(); err != nil {
		return within(err, "APPair.offset")
	}
	return nil
}

func (d *decoder) readAPPairs(what string, out *[]APPair) error {
	_, err := d.readList("APPair", func(int) error {
		var p APPair
		if err := d.readAPPair(&p); err != nil {
			return err
		}
		*out = append(*out, p)
		return nil
	})
	return withinf(err, "%s", what)
}

func (d *decoder) readSlice(s *Slice) error {
	// n = 4, the Prop field wf takes no bytes: 3 items.
	if err := d.readStruct(115, "Slice", 4); err != nil {
		return err
	}
	var err error
	if s.L, err = d.readNat(); err != nil {
		return within(err, "Slice.l")
	}
	if s.U, err = d.readNat(); err != nil {
		return within(err, "Slice.u")
	}
	if s.Step, err = d.readInt(); err != nil {
		return within(err, "Slice.step")
	}
	return nil
}

func (d *decoder) readIndex(x *Index) error {
	ctor, err := d.readCtor(117, "Index", []string{"coord", "slice"}, []int{1, 1})
	if err != nil {
		return err
	}
	x.Kind = IndexKind(ctor)
	if ctor == 0 {
		x.Coord, err = d.readNat()
		return within(err, "Index.coord")
	}
	return within(d.readSlice(&x.Slice), "Index.slice")
}

func (d *decoder) readAccess(a *Access) error {
	ctor, err := d.readCtor(125, "Access", accessNames, []int{1, 1, 1, 1})
	if err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	a.Kind = AccessKind(ctor)
	switch a.Kind {
	case AccessKindSimple:
		a.Simple = &TensorName{}
		return within(d.readTensorName(a.Simple), "Access.simple")
	case AccessKindBasic:
		a.Basic = &AccessBasic{}
		return within(d.readAccessBasic(a.Basic), "Access.basic")
	case AccessKindPattern:
		a.Pattern = &AccessPattern{}
		return within(d.readAccessPattern(a.Pattern), "Access.pattern")
	default:
		a.Bir = &BirAccessPattern{}
		return within(d.readBirAccessPattern(a.Bir), "Access.birPattern")
	}
}

func (d *decoder) readAccessBasic(a *AccessBasic) error {
	// n = 3, the Prop field lenWF takes no bytes: 2 items.
	if err := d.readStruct(118, "AccessBasic", 3); err != nil {
		return err
	}
	if err := d.readTensorName(&a.Tensor); err != nil {
		return within(err, "AccessBasic.tensor")
	}
	_, err := d.readList("Index", func(int) error {
		var x Index
		if err := d.readIndex(&x); err != nil {
			return err
		}
		a.Indexes = append(a.Indexes, x)
		return nil
	})
	return withinf(err, "AccessBasic.indexes")
}

func (d *decoder) readAccessPattern(a *AccessPattern) error {
	if err := d.readStruct(120, "AccessPattern", 6); err != nil {
		return err
	}
	if err := d.readTensorName(&a.Tensor); err != nil {
		return within(err, "AccessPattern.tensor")
	}
	var err error
	if a.ParNum, err = d.readNat(); err != nil {
		return within(err, "AccessPattern.parNum")
	}
	if err := d.readAPPairs("AccessPattern.pattern", &a.Pattern); err != nil {
		return err
	}
	if a.ParOffset, err = d.readNat(); err != nil {
		return within(err, "AccessPattern.parOffset")
	}
	if a.FreeOffset, err = d.readNat(); err != nil {
		return within(err, "AccessPattern.freeOffset")
	}
	if a.FixedAxis, err = d.readRaw(); err != nil {
		return within(err, "AccessPattern.fixedAxis")
	}
	return nil
}

func (d *decoder) readScalarOffset() (ScalarOffset, error) {
	var s ScalarOffset
	ctor, err := d.readCtor(123, "ScalarOffset", []string{"reg", "acc"}, []int{1, 1})
	if err != nil {
		return s, err
	}
	s.Kind = ScalarOffsetKind(ctor)
	if ctor == 0 {
		s.Reg, err = d.readString()
		return s, within(err, "ScalarOffset.reg")
	}
	s.Acc = &Access{}
	return s, within(d.readAccess(s.Acc), "ScalarOffset.acc")
}

func (d *decoder) readBirAccessPattern(b *BirAccessPattern) error {
	if err := d.readStruct(124, "BirAccessPattern", 7); err != nil {
		return err
	}
	if err := d.readTensorName(&b.Tensor); err != nil {
		return within(err, "BirAccessPattern.tensor")
	}
	var err error
	if b.Offset, err = d.readInt(); err != nil {
		return within(err, "BirAccessPattern.offset")
	}
	if err := d.readAPPairs("BirAccessPattern.pattern", &b.Pattern); err != nil {
		return err
	}
	if b.ScalarOffset, err = readOpt(d, d.readScalarOffset); err != nil {
		return within(err, "BirAccessPattern.scalarOffset")
	}
	if b.VectorOffset, err = readOpt(d, func() (*Access, error) {
		a := &Access{}
		return a, d.readAccess(a)
	}); err != nil {
		return within(err, "BirAccessPattern.vectorOffset")
	}
	if b.IndirectDim, err = d.readInt(); err != nil {
		return within(err, "BirAccessPattern.indirectDim")
	}
	if b.DtypeOverride, err = readOpt(d, d.readDtype); err != nil {
		return within(err, "BirAccessPattern.dtypeOverride")
	}
	return nil
}

func (d *decoder) readTensorRef(r *TensorRef) error {
	ctor, err := d.readCtor(128, "TensorRef", tensorRefNames, []int{1, 1, 1, 1, 1})
	if err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	r.Kind = TensorRefKind(ctor)
	switch r.Kind {
	case RefAbstract:
		r.Access = &Access{}
		return within(d.readAccess(r.Access), "TensorRef.abstract")
	case RefRegister:
		r.Reg, err = d.readNat()
		return within(err, "TensorRef.register")
	default:
		r.View, err = d.readRaw()
		return withinf(err, "TensorRef.%s", r.KindName())
	}
}

func (d *decoder) readOptTensorRef() (TensorRef, error) {
	var r TensorRef
	return r, d.readTensorRef(&r)
}

func (d *decoder) readImmediate() (Immediate, error) {
	var x Immediate
	ctor, err := d.readCtor(131, "Immediate", immediateNames, []int{1, 0, 1, 1})
	if err != nil {
		return x, err
	}
	x.Kind = ImmediateKind(ctor)
	switch x.Kind {
	case ImmRegister:
		x.Reg, err = d.readNat()
		return x, within(err, "Immediate.register")
	case ImmInt:
		x.Int, err = d.readInt32()
		return x, within(err, "Immediate.int")
	case ImmFloat:
		x.Float, err = d.readFloat32()
		return x, within(err, "Immediate.float")
	}
	return x, nil
}

func (d *decoder) readOperand() (Operand, error) {
	var o Operand
	ctor, err := d.readCtor(133, "Operand", []string{"imm", "tile"}, []int{1, 1})
	if err != nil {
		return o, err
	}
	o.Kind = OperandKind(ctor)
	if ctor == 0 {
		o.Imm, err = d.readImmediate()
		return o, within(err, "Operand.imm")
	}
	o.Tile = &TensorRef{}
	return o, within(d.readTensorRef(o.Tile), "Operand.tile")
}

func (d *decoder) readDmaBounds() (DmaBounds, error) {
	var b DmaBounds
	ctor, err := d.readCtor(141, "DmaBounds", dmaBoundsNames, []int{0, 0, 1})
	if err != nil {
		return b, err
	}
	b.Kind = DmaBoundsKind(ctor)
	if b.Kind == BoundsReg {
		b.Reg, err = d.readNat()
		return b, within(err, "DmaBounds.reg")
	}
	return b, nil
}

func (d *decoder) readDataPattern(p *DataPattern) error {
	if err := d.readStruct(134, "DataPattern", 3); err != nil {
		return err
	}
	var err error
	if p.Offset, err = d.readInt(); err != nil {
		return within(err, "DataPattern.offset")
	}
	if err := d.readAPPairs("DataPattern.pattern", &p.Pattern); err != nil {
		return err
	}
	if p.ChannelMultiplier, err = d.readInt(); err != nil {
		return within(err, "DataPattern.channelMultiplier")
	}
	return nil
}

func (d *decoder) readNats() ([]uint64, error) {
	var out []uint64
	_, err := d.readList("Nat", func(int) error {
		v, err := d.readNat()
		out = append(out, v)
		return err
	})
	return out, err
}
