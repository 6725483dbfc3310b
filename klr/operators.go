// Operator decoding: Operator (type tag 218) wraps one payload structure
// per constructor. The modelled constructors are decoded field by field
// (field lists from KLR/Core/Operators.lean, klr-format.md's table where it
// gives them); any other constructor is read generically into an
// UnknownOperator, which the code generator reports by name and source
// position ("unsupported operator ... at file:line:col"), never dropping it.
package klr

import "fmt"

// opSpec describes a modelled Operator constructor's payload.
type opSpec struct {
	tag    byte   // payload structure type tag
	typ    string // payload structure name
	fields int    // payload field count
	// strict: the field list is confirmed by klr-format.md from the
	// fixtures, so a different count is a corrupt file. Otherwise a
	// different count means a KLR revision narwhal does not model for this
	// operator, and the operator is kept as an UnknownOperator.
	strict bool
	read   func(d *decoder, f *fieldReader) Operator
}

var opSpecs = map[int]*opSpec{
	OpActivate: {148, "Activate", 7, false, func(d *decoder, f *fieldReader) Operator {
		o := &Activate{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.enum(137, "accumulatorCmd", "AccumCmd", accumCmdNames, func(v int) { o.AccumulatorCmd = AccumCmd(v) })
		f.enum(138, "activationFunc", "ActivationFunc", activationFuncNames, func(v int) { o.ActivationFunc = ActivationFunc(v) })
		f.imm("scale", &o.Scale)
		f.imm("bias", &o.Bias)
		f.imm("imm", &o.Imm)
		return o
	}},
	OpNcActivate: {149, "NcActivate", 9, true, func(d *decoder, f *fieldReader) Operator {
		o := &NcActivate{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.enum(137, "accumulatorCmd", "AccumCmd", accumCmdNames, func(v int) { o.AccumulatorCmd = AccumCmd(v) })
		f.enum(138, "activationFunc", "ActivationFunc", activationFuncNames, func(v int) { o.ActivationFunc = ActivationFunc(v) })
		f.operand("scale", &o.Scale)
		f.optRef("bias", &o.Bias)
		f.optAlu("reduceOp", &o.ReduceOp)
		f.optRef("reduceRes", &o.ReduceRes)
		f.optDtype("dtype", &o.Dtype)
		return o
	}},
	OpCopy: {177, "Copy", 3, false, func(d *decoder, f *fieldReader) Operator {
		o := &Copy{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.do("opDim", func() (err error) {
			o.OpDim, err = readOpt(d, func() (TensorSubDim, error) {
				v, err := d.readEnum(145, "TensorSubDim", tensorSubDimNames)
				return TensorSubDim(v), err
			})
			return err
		})
		return o
	}},
	OpNcCopy: {178, "NcCopy", 4, true, func(d *decoder, f *fieldReader) Operator {
		o := &NcCopy{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.optDtype("dtype", &o.Dtype)
		f.engine("engine", &o.Engine)
		return o
	}},
	OpDmaCopy: {152, "DmaCopy", 5, false, func(d *decoder, f *fieldReader) Operator {
		o := &DmaCopy{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.enum(140, "compute_op", "DgeComputeOp", dgeComputeOpNames, func(v int) { o.ComputeOp = DgeComputeOp(v) })
		f.bounds("dstBoundsCheck", &o.DstBoundsCheck)
		f.bounds("srcBoundsCheck", &o.SrcBoundsCheck)
		return o
	}},
	OpNcDmaCopy: {153, "NcDmaCopy", 8, true, func(d *decoder, f *fieldReader) Operator {
		o := &NcDmaCopy{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.enum(140, "compute_op", "DgeComputeOp", dgeComputeOpNames, func(v int) { o.ComputeOp = DgeComputeOp(v) })
		f.bounds("oobMode", &o.OobMode)
		f.nat("dgeMode", &o.DgeMode)
		f.boolean("uniqueIndices", &o.UniqueIndices)
		f.do("priority", func() (err error) {
			o.Priority, err = readOpt(d, d.readRaw)
			return err
		})
		f.engine("engine", &o.Engine)
		return o
	}},
	OpIota: {159, "Iota", 3, false, func(d *decoder, f *fieldReader) Operator {
		o := &Iota{}
		f.ref("dst", &o.Dst)
		f.do("pattern", func() error { return d.readDataPattern(&o.Pattern) })
		f.optDtype("dtype", &o.Dtype)
		return o
	}},
	OpLoadStationary: {160, "LoadStationary", 2, false, func(d *decoder, f *fieldReader) Operator {
		o := &LoadStationary{}
		f.ref("src", &o.Src)
		f.boolean("isTranspose", &o.IsTranspose)
		return o
	}},
	OpMatMul: {161, "MatMul", 2, false, func(d *decoder, f *fieldReader) Operator {
		o := &MatMul{}
		f.ref("dst", &o.Dst)
		f.ref("moving", &o.Moving)
		return o
	}},
	OpNcMatMul: {183, "NcMatMul", 9, true, func(d *decoder, f *fieldReader) Operator {
		o := &NcMatMul{}
		f.ref("dst", &o.Dst)
		f.ref("stationary", &o.Stationary)
		f.ref("moving", &o.Moving)
		f.boolean("isStationaryOneZero", &o.IsStationaryOneZero)
		f.boolean("isMovingZero", &o.IsMovingZero)
		f.boolean("isTranspose", &o.IsTranspose)
		f.do("tilePosition", func() (err error) { o.TilePosition, err = d.readNats(); return err })
		f.do("tileSize", func() (err error) { o.TileSize, err = d.readNats(); return err })
		f.enum(129, "perfMode", "MatmulPerfMode", matmulPerfModeNames, func(v int) { o.PerfMode = MatmulPerfMode(v) })
		return o
	}},
	OpMemSet: {158, "MemSet", 4, true, func(d *decoder, f *fieldReader) Operator {
		o := &MemSet{}
		f.ref("dst", &o.Dst)
		f.imm("value", &o.Value)
		f.do("dtype", func() (err error) { o.Dtype, err = d.readDtype(); return err })
		f.engine("engine", &o.Engine)
		return o
	}},
	OpTensorReduce: {179, "TensorReduce", 7, true, func(d *decoder, f *fieldReader) Operator {
		o := &TensorReduce{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.do("op", func() (err error) { o.Op, err = d.readAluOp(); return err })
		f.enum(145, "opDim", "TensorSubDim", tensorSubDimNames, func(v int) { o.OpDim = TensorSubDim(v) })
		f.boolean("negated", &o.Negated)
		f.optDtype("dtype", &o.Dtype)
		f.boolean("keepdims", &o.Keepdims)
		return o
	}},
	OpTensorScalar: {180, "TensorScalar", 9, true, func(d *decoder, f *fieldReader) Operator {
		o := &TensorScalar{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.operand("imm0", &o.Imm0)
		f.do("op0", func() (err error) { o.Op0, err = d.readAluOp(); return err })
		f.do("imm1", func() (err error) { o.Imm1, err = readOpt(d, d.readOperand); return err })
		f.optAlu("op1", &o.Op1)
		f.enum(144, "reverse", "TensorScalarReverseOps", reverseOpsNames, func(v int) { o.Reverse = TensorScalarReverseOps(v) })
		f.engine("engine", &o.Engine)
		f.optDtype("dtype", &o.Dtype)
		return o
	}},
	OpTensorTensor: {182, "TensorTensor", 6, true, func(d *decoder, f *fieldReader) Operator {
		o := &TensorTensor{}
		f.ref("dst", &o.Dst)
		f.ref("src0", &o.Src0)
		f.ref("src1", &o.Src1)
		f.do("op", func() (err error) { o.Op, err = d.readAluOp(); return err })
		f.optDtype("dtype", &o.Dtype)
		f.engine("engine", &o.Engine)
		return o
	}},
	OpTranspose: {155, "Transpose", 4, false, func(d *decoder, f *fieldReader) Operator {
		o := &Transpose{}
		f.ref("dst", &o.Dst)
		f.ref("src", &o.Src)
		f.optDtype("dtype", &o.Dtype)
		f.engine("engine", &o.Engine)
		return o
	}},
}

// readOperator reads Operator.<ctor>(payload).
func (d *decoder) readOperator() (Operator, error) {
	start := d.pos
	ctor, n, err := d.readTag(218, "Operator")
	if err != nil {
		return nil, err
	}
	if n != 1 {
		return nil, d.errAt(start, "want Operator.%s with 1 argument, have %d", OperatorName(ctor), n)
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	spec := opSpecs[ctor]
	if spec == nil {
		arg, err := d.readRaw()
		if err != nil {
			return nil, withinf(err, "Operator.%s", OperatorName(ctor))
		}
		return &UnknownOperator{Index: ctor, Args: []Raw{arg}, Reason: "not modelled by narwhal's KLR reader"}, nil
	}
	pstart := d.pos
	want := func() string {
		return fmt.Sprintf("%s (tag d9 %02x 00) as the argument of Operator.%s", spec.typ, spec.tag, OperatorName(ctor))
	}
	if d.remaining() < 3 {
		return nil, d.eof(pstart, want())
	}
	if d.data[d.pos] != 0xd9 || d.data[d.pos+1] != spec.tag || d.data[d.pos+2] != 0 {
		return nil, d.mismatch(pstart, want())
	}
	d.pos += 3
	fields, err := d.readArrayHead("the fields of ", spec.typ)
	if err != nil {
		return nil, err
	}
	if fields != spec.fields {
		if spec.strict {
			return nil, d.errAt(pstart, "want %s with %d fields, have %d", spec.typ, spec.fields, fields)
		}
		d.pos = pstart
		arg, err := d.readRaw()
		if err != nil {
			return nil, withinf(err, "Operator.%s", OperatorName(ctor))
		}
		return &UnknownOperator{Index: ctor, Args: []Raw{arg},
			Reason: fmt.Sprintf("its %s has %d fields in this file; narwhal models the %d-field form", spec.typ, fields, spec.fields)}, nil
	}
	f := &fieldReader{d: d, typ: spec.typ}
	op := spec.read(d, f)
	if f.err != nil {
		return nil, withinf(f.err, "Operator.%s", OperatorName(ctor))
	}
	return op, nil
}

// fieldReader reads a structure's fields in order, keeping the first error
// and naming the field it happened in.
type fieldReader struct {
	d   *decoder
	typ string
	err error
}

func (f *fieldReader) do(name string, read func() error) {
	if f.err != nil {
		return
	}
	if err := read(); err != nil {
		f.err = within(err, f.typ+"."+name)
	}
}

func (f *fieldReader) ref(name string, r *TensorRef) {
	f.do(name, func() error { return f.d.readTensorRef(r) })
}

func (f *fieldReader) optRef(name string, r *Opt[TensorRef]) {
	f.do(name, func() (err error) { *r, err = readOpt(f.d, f.d.readOptTensorRef); return err })
}

func (f *fieldReader) optAlu(name string, a *Opt[AluOp]) {
	f.do(name, func() (err error) { *a, err = readOpt(f.d, f.d.readAluOp); return err })
}

func (f *fieldReader) optDtype(name string, t *Opt[Dtype]) {
	f.do(name, func() (err error) { *t, err = readOpt(f.d, f.d.readDtype); return err })
}

func (f *fieldReader) engine(name string, e *Engine) {
	f.do(name, func() (err error) { *e, err = f.d.readEngine(); return err })
}

func (f *fieldReader) imm(name string, x *Immediate) {
	f.do(name, func() (err error) { *x, err = f.d.readImmediate(); return err })
}

func (f *fieldReader) operand(name string, o *Operand) {
	f.do(name, func() (err error) { *o, err = f.d.readOperand(); return err })
}

func (f *fieldReader) bounds(name string, b *DmaBounds) {
	f.do(name, func() (err error) { *b, err = f.d.readDmaBounds(); return err })
}

func (f *fieldReader) nat(name string, v *uint64) {
	f.do(name, func() (err error) { *v, err = f.d.readNat(); return err })
}

func (f *fieldReader) boolean(name string, v *bool) {
	f.do(name, func() (err error) { *v, err = f.d.readBool(); return err })
}

func (f *fieldReader) enum(tag byte, name, typ string, names []string, set func(int)) {
	f.do(name, func() error {
		v, err := f.d.readEnum(tag, typ, names)
		if err == nil {
			set(v)
		}
		return err
	})
}
