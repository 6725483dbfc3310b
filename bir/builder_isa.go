package bir

// Builder methods for the NKI ISA instructions beyond builder.go's core set,
// one per nki.isa instruction, named after it (docs/isa.md: the encoding
// of each, its operand roles and attributes; bir/isa.go: the variants
// encoded as flags of an existing opcode). Operands follow NKI's order in
// the argument list (the destination first, as in the current nki.isa
// API) and BIR's order in the instruction (sources, then destinations).
// An operand documented as "an AP or an immediate" takes an AP operand or
// bir.Imm(v).

// TensorTensorScan is nki.isa.tensor_tensor_scan: per partition p, with
// state = initial[p],
//
//	t     = reverse0 ? state op0 data0[p,j] : data0[p,j] op0 state
//	state = reverse1 ? data1[p,j] op1 t     : t op1 data1[p,j]
//	dst[p,j] = state
//
// along the free elements j in row-major order, in fp32. It is
// TensorScalarPtr with is_tensor_tensor_scan (bir/isa.go) on the Vector
// engine: ins = [data0, initial, data1], outs = [dst]; initial is a [P,1]
// AP or an immediate.
func (b *Builder) TensorTensorScan(name string, dst, data0, data1, initial Operand, op0, op1 string, reverse0, reverse1 bool) InstID {
	return b.Inst(OpTensorScalarPtr, name, EngDVE, []Operand{data0, initial, data1}, []Operand{dst},
		Attrs("op0", op0, "reverse0", reverse0, "op1", op1, "reverse1", reverse1, AttrTensorTensorScan, true, "acc", "Idle"))
}

// TensorPartitionReduce is nki.isa.tensor_partition_reduce: dst[0, j] =
// fold op over the partitions p of data[p, j] (op add, max, min,
// bitwise_or, bitwise_and, ...). It is TensorReduce over axis "C" on
// GpSimd: ins = [data] ([P, F]), outs = [dst] ([1, F]).
func (b *Builder) TensorPartitionReduce(name, op string, dst, data Operand) InstID {
	return b.Inst(OpTensorReduce, name, EngPool, []Operand{data}, []Operand{dst},
		Attrs("op", op, "axis", AxisPartition, "negate", false))
}

// ScalarTensorTensor is nki.isa.scalar_tensor_tensor: dst = (data op0
// operand0[p]) op1 data1, each stage reversed by its flag (reverse0:
// operand0 op0 data; reverse1: data1 op1 t), in fp32. It is
// TensorScalarPtr with is_scalar_tensor_tensor (bir/isa.go) on the Vector
// engine: ins = [data, operand0, data1], outs = [dst]; operand0 is a [P,1]
// AP or an immediate, data1 a tensor of data's shape.
func (b *Builder) ScalarTensorTensor(name string, dst, data, operand0, data1 Operand, op0, op1 string, reverse0, reverse1 bool) InstID {
	return b.Inst(OpTensorScalarPtr, name, EngDVE, []Operand{data, operand0, data1}, []Operand{dst},
		Attrs("op0", op0, "reverse0", reverse0, "op1", op1, "reverse1", reverse1, AttrScalarTensorTensor, true, "acc", "Idle"))
}

// TensorCopyPredicated is nki.isa.tensor_copy_predicated: where predicate
// (reverse_pred: where it is zero) is non-zero, dst = src; elsewhere dst
// keeps its value. src is an AP of dst's dtype and shape, or an
// immediate (converted to dst's dtype). CopyPredicated (KLR's operand
// order): ins = [src, predicate], outs = [dst], attribute reverse_pred.
// The engine is DVE (the reference: "using Vector Engine").
func (b *Builder) TensorCopyPredicated(name string, dst, src, predicate Operand, reversePred bool) InstID {
	return b.Inst(OpCopyPredicated, name, EngDVE, []Operand{src, predicate}, []Operand{dst}, Attrs("reverse_pred", reversePred))
}

// Max8 is nki.isa.max8: dst[p, 0..7] = the 8 largest values of src's
// partition p, descending (Max on the Vector engine: ins = [src] with 8 to
// 16384 elements per partition, outs = [dst [P, 8]]).
func (b *Builder) Max8(name string, dst, src Operand) InstID {
	return b.Inst(OpMax, name, EngDVE, []Operand{src}, []Operand{dst}, nil)
}

// FindIndex8 is nki.isa.nc_find_index8: dst[p, k] = the index of the
// first element of data's partition p equal to vals[p, k] (MaxIndex on
// the Vector engine: ins = [data, vals [P, 8]], outs = [dst [P, 8]],
// uint16 or uint32).
func (b *Builder) FindIndex8(name string, dst, data, vals Operand) InstID {
	return b.Inst(OpMaxIndex, name, EngDVE, []Operand{data, vals}, []Operand{dst}, nil)
}

// MatchReplace8 is nki.isa.nc_match_replace8: dst = data with the first
// occurrence of each vals[p, k] replaced by imm; dstIdx (the zero Operand:
// none) receives the indices. MatchReplace on the Vector engine: ins =
// [data, vals [P, 8]], outs = [dst, dst_idx?], attribute imm_value.
func (b *Builder) MatchReplace8(name string, dst, data, vals Operand, imm float64, dstIdx Operand) InstID {
	outs := []Operand{dst}
	if dstIdx.Kind.IsAP() && !dstIdx.IsZero() {
		outs = append(outs, dstIdx)
	}
	return b.Inst(OpMatchReplace, name, EngDVE, []Operand{data, vals}, outs, Attrs("imm_value", Float(imm)))
}

// ActivationReduce is nki.isa.activation_reduce (and nki.isa.activation
// with reduce_cmd=reset_reduce and reduce_res): dst = fn(src*scale +
// bias), and reduceRes[p] = the reduce_op fold of row p of the result.
// Two instructions on the Scalar engine, as the reference describes:
// Activation with acc ZeroAccumulate (bias: the zero Operand or a [P,1]
// AP or an immediate), then ReadActivationAccumulator into reduceRes
// ([P,1]). It returns the Activation.
func (b *Builder) ActivationReduce(name, fn string, dst, src Operand, scale float64, bias Operand, reduceOp string, reduceRes Operand) InstID {
	ins := []Operand{src}
	if !bias.IsZero() {
		ins = append(ins, bias)
	}
	id := b.Inst(OpActivation, name, EngAct, ins, []Operand{dst},
		Attrs("func", fn, "scale", Float(scale), "alpha", Float(0), "acc", "ZeroAccumulate", "reduce_op", reduceOp))
	b.Inst(OpReadActivationAccumulator, name+"_reduce_res", EngAct, nil, []Operand{reduceRes}, nil)
	return id
}
