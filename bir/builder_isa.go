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

// ReduceCmd returns the EngineAccumulationType spelling of a reduce command
// given in NKI's nisa.reduce_cmd names (idle, reset, reduce, reset_reduce,
// load_reduce) or already in BIR's (Idle, Zero, Accumulate, ZeroAccumulate,
// LoadAccumulate); ok is false for anything else.
func ReduceCmd(s string) (string, bool) {
	switch s {
	case "idle", "Idle":
		return "Idle", true
	case "reset", "Zero":
		return "Zero", true
	case "reduce", "Accumulate":
		return "Accumulate", true
	case "reset_reduce", "ZeroAccumulate":
		return "ZeroAccumulate", true
	case "load_reduce", "LoadAccumulate":
		return "LoadAccumulate", true
	}
	return "", false
}

// reduceCmd is ReduceCmd for a Builder method: an unknown command fails
// the build.
func (b *Builder) reduceCmd(what, s string) string {
	c, ok := ReduceCmd(s)
	if !ok {
		b.fail("%s: reduce command %q: want idle, reset, reduce, reset_reduce or load_reduce", what, s)
	}
	return c
}

// present reports whether an optional operand was given (the zero Operand
// is "absent").
func present(o Operand) bool { return !o.IsZero() }

// TensorScalarReduce is nki.isa.tensor_scalar_reduce: dst = data op0
// operand0[p] (operand0 data when reverse0), and the reduce_op (add, mult,
// max, min) fold of each row of the result goes into the Vector engine's
// accumulator by reduceCmd (reset_reduce: from the op's identity; reduce:
// on top of the current value; load_reduce: from reduceInit), which is
// then read into reduceRes ([P,1]; the zero Operand: not read out).
// TensorScalarPtr with acc = the command on the Vector engine: ins =
// [data, operand0, reduce_init?], outs = [dst, reduce_res?], op1 bypass
// (bir/isa.go). reduceInit (an AP [P,1] or an immediate) is given only
// with load_reduce.
func (b *Builder) TensorScalarReduce(name string, dst, data, operand0 Operand, op0 string, reverse0 bool, reduceOp string, reduceRes Operand, reduceCmd string, reduceInit Operand) InstID {
	acc := b.reduceCmd("tensor_scalar_reduce", reduceCmd)
	ins := []Operand{data, operand0}
	if present(reduceInit) {
		ins = append(ins, reduceInit)
	}
	outs := []Operand{dst}
	if present(reduceRes) {
		outs = append(outs, reduceRes)
	}
	return b.Inst(OpTensorScalarPtr, name, EngDVE, ins, outs,
		Attrs("op0", op0, "reverse0", reverse0, "op1", "bypass", "reverse1", false, AttrAcc, acc, "reduce_op", reduceOp))
}

// TensorScalarCumulative is nki.isa.tensor_scalar_cumulative: per
// partition, with the Vector accumulator register reg of the lane set by
// reduceCmd (reset_reduce: op1's identity; reduce: kept; load_reduce:
// imm1[p]), along the free elements in row-major order reg = op1(x op0
// imm0, reg) (imm0 op0 x when reverse0) and dst = reg. TensorScalarCache
// on the Vector engine: ins = [src, imm0, imm1?], outs = [dst], attributes
// op0, reverse0, op1, acc. imm0 and imm1 are [P,1] APs or immediates; imm1
// is given only with load_reduce.
func (b *Builder) TensorScalarCumulative(name string, dst, src Operand, op0 string, imm0 Operand, op1 string, imm1 Operand, reduceCmd string, reverse0 bool) InstID {
	acc := b.reduceCmd("tensor_scalar_cumulative", reduceCmd)
	ins := []Operand{src, imm0}
	if present(imm1) {
		ins = append(ins, imm1)
	}
	return b.Inst(OpTensorScalarCache, name, EngDVE, ins, []Operand{dst},
		Attrs("op0", op0, "reverse0", reverse0, "op1", op1, AttrAcc, acc))
}

// RangeSelect is nki.isa.range_select: dst[p, j] = on_true[p, j] where
// compOp0(rangeStart + j, bound0[p]) and compOp1(rangeStart + j,
// bound1[p]) (in fp32; j the free index in row-major order), else onFalse;
// the reduceOp (max) fold of each row updates the Vector accumulator by
// reduceCmd, read into reduceRes (the zero Operand: not read out). The
// comparisons are AluOps is_equal, is_lt, is_le, is_gt, is_ge. RangeSelect
// on the Vector engine with BIR-JSON's fields: ins = [on_true, bound0,
// bound1] (bounds [P,1] APs or immediates), outs = [dst, reduce_res?],
// attributes compare_op0, compare_op1, reduce_op, reduce_cmd, base
// (rangeStart), fill_value (onFalse), num_active_channels 0.
func (b *Builder) RangeSelect(name string, dst, onTrue Operand, compOp0, compOp1 string, bound0, bound1 Operand, reduceCmd string, reduceRes Operand, reduceOp string, rangeStart int64, onFalse float64) InstID {
	acc := b.reduceCmd("range_select", reduceCmd)
	outs := []Operand{dst}
	if present(reduceRes) {
		outs = append(outs, reduceRes)
	}
	return b.Inst(OpRangeSelect, name, EngDVE, []Operand{onTrue, bound0, bound1}, outs,
		Attrs("compare_op0", compOp0, "compare_op1", compOp1, "reduce_op", reduceOp, AttrReduceCmd, acc,
			"base", Int(rangeStart), "fill_value", Float(onFalse), "num_active_channels", Int(0)))
}

// SelectReduce is nki.isa.select_reduce: dst = predicate ? on_true :
// on_false (reversePred: where the predicate is zero), on_false a [P,1] AP
// or an immediate, with the reduceOp (max) fold of each row of the result
// into the Vector accumulator by reduceCmd, read into reduceRes (the zero
// Operand: not read out). CopyPredicated with an acc attribute on the
// Vector engine (bir/isa.go): ins = [on_true, predicate, on_false], outs =
// [dst, reduce_res?], attributes reverse_pred, acc, reduce_op.
func (b *Builder) SelectReduce(name string, dst, predicate, onTrue, onFalse, reduceRes Operand, reduceCmd, reduceOp string, reversePred bool) InstID {
	acc := b.reduceCmd("select_reduce", reduceCmd)
	outs := []Operand{dst}
	if present(reduceRes) {
		outs = append(outs, reduceRes)
	}
	return b.Inst(OpCopyPredicated, name, EngDVE, []Operand{onTrue, predicate, onFalse}, outs,
		Attrs("reverse_pred", reversePred, AttrAcc, acc, "reduce_op", reduceOp))
}

// Exponential is nki.isa.exponential (NC-v4): dst = exp(src -
// maxValue[p]) in fp32, and with a reduce command other than idle the row
// sums go into the Vector accumulator (reset_reduce: from 0; reduce: on top;
// load_reduce: from reduceInit), read into reduceRes (the zero Operand: not
// read out). Exponential on the Vector engine: ins = [src, max_value,
// reduce_init?] (max_value a [P,1] AP or an immediate; reduce_init an
// immediate, only with load_reduce), outs = [dst, reduce_res?], attribute
// acc.
func (b *Builder) Exponential(name string, dst, src, maxValue, reduceRes Operand, reduceCmd string, reduceInit float64) InstID {
	acc := b.reduceCmd("exponential", reduceCmd)
	if !present(maxValue) {
		maxValue = Imm(0)
	}
	ins := []Operand{src, maxValue}
	if acc == "LoadAccumulate" {
		ins = append(ins, Imm(reduceInit))
	}
	outs := []Operand{dst}
	if present(reduceRes) {
		outs = append(outs, reduceRes)
	}
	return b.Inst(OpExponential, name, EngDVE, ins, outs, Attrs(AttrAcc, acc))
}

// LocalGather is nki.isa.local_gather: per GpSimd core (16 partitions),
// the core's uint16 indices flattened partition-first (index[16c + k%16,
// k/16]) are element offsets into each partition's flattened free
// elements of srcBuffer; dst[p, v*E + e] = src[p, idx[v] + e] for the
// first numValidIndices indices v and e < numElemPerIdx = E (the NKI
// reference's NumPy semantics, whose hardware indices are idx*E).
// IndirectCopy on GpSimd: ins = [src_buffer, index], outs = [dst],
// attributes num_valid_indices (BIR-JSON's field; 0: every index of the
// slice) and num_elem_per_idx.
func (b *Builder) LocalGather(name string, dst, srcBuffer, index Operand, numElemPerIdx, numValidIndices int64) InstID {
	return b.Inst(OpIndirectCopy, name, EngPool, []Operand{srcBuffer, index}, []Operand{dst},
		Attrs("num_valid_indices", Int(numValidIndices), "num_elem_per_idx", Int(numElemPerIdx)))
}

// NGather is nki.isa.nc_n_gather: dst[p, i] = data[p, indices[p, i]]
// with data's free elements flattened per partition (uint32 indices).
// Gather on GpSimd: ins = [data, indices], outs = [dst].
func (b *Builder) NGather(name string, dst, data, indices Operand) InstID {
	return b.Inst(OpGather, name, EngPool, []Operand{data, indices}, []Operand{dst}, nil)
}

// StreamShuffle is nki.isa.nc_stream_shuffle: within each 32-partition
// quadrant q, dst row 32q+i = src row 32q+mask[i], or unchanged where
// mask[i] is 255. StreamShuffle on the Vector engine: ins = [src], outs =
// [dst], attribute mask (32 entries, BIR-JSON's field).
func (b *Builder) StreamShuffle(name string, dst, src Operand, mask []int64) InstID {
	ml := make([]Value, len(mask))
	for k, v := range mask {
		ml[k] = Int(v)
	}
	return b.Inst(OpStreamShuffle, name, EngDVE, []Operand{src}, []Operand{dst}, Attrs("mask", List(ml...)))
}

// SequenceBounds is nki.isa.sequence_bounds: for segment_ids [1, n],
// dst [1, 2, n] holds each element's segment start (dst[0, 0, i]) and end
// (exclusive, dst[0, 1, i]); padding (id 0) gets start n and end -1.
// GetSequenceBounds on GpSimd: ins = [segment_ids], outs = [dst].
func (b *Builder) SequenceBounds(name string, dst, segmentIDs Operand) InstID {
	return b.Inst(OpGetSequenceBounds, name, EngPool, []Operand{segmentIDs}, []Operand{dst}, nil)
}

// NonzeroWithCount is nki.isa.nonzero_with_count (NC-v3+): on rows 0, 16,
// ..., 112 of src [P, T] (one per GpSimd core), dst [P, T+1] gets the
// indices (plus indexOffset) of the nonzero elements, then paddingVal up
// to T, then their count; other rows of dst are not written.
// NonzeroWithCount on GpSimd: ins = [src], outs = [dst], attributes
// index_offset, padding_val.
func (b *Builder) NonzeroWithCount(name string, dst, src Operand, indexOffset, paddingVal int64) InstID {
	return b.Inst(OpNonzeroWithCount, name, EngPool, []Operand{src}, []Operand{dst},
		Attrs("index_offset", Int(indexOffset), "padding_val", Int(paddingVal)))
}

// DMACompute is nki.isa.dma_compute: dst = reduceOp over i of srcs[i] *
// scales[i] (reduceOp add; scales nil: all 1.0) in fp32 on a DMA queue.
// DMACopy mode CCE (semantics.md §4.2): ins = srcs, outs = [dst],
// attributes cce_op, constants.
func (b *Builder) DMACompute(name string, dst Operand, srcs []Operand, scales []float64, reduceOp string) InstID {
	if scales == nil {
		scales = make([]float64, len(srcs))
		for k := range scales {
			scales[k] = 1
		}
	}
	return b.Inst(OpDMACopy, name, EngUnassigned, srcs, []Operand{dst}, Attrs("mode", "CCE", "cce_op", reduceOp, "constants", Floats(scales...)))
}

// DMATranspose is nki.isa.dma_transpose: a 2-D src [A, B] gives dst
// [B, A]; a 3-D src [A, B, C] gives [C, B, A] (axes (2, 1, 0)); a 4-D src
// [A, B, C, D] gives [D, B, C, A] (axes (3, 1, 2, 0)). DMACopy mode
// Transpose: the 2-D form without transpose_op, the 3-D and 4-D forms
// with transpose_op XZYW (source axes W, Z, Y, X, a 3-D source read as W,
// Z, X with Y of size 1), the permutation KLR's DmaTranspose codegen
// stamps. rank is the source's number of dimensions (2, 3 or 4).
func (b *Builder) DMATranspose(name string, dst, src Operand, rank int) InstID {
	attrs := Attrs("mode", "Transpose")
	if rank == 3 || rank == 4 {
		attrs = Attrs("mode", "Transpose", "transpose_op", "XZYW")
	} else if rank != 2 {
		b.fail("dma_transpose %s: a %d-D source: want 2, 3 or 4 dimensions", name, rank)
	}
	return b.Inst(OpDMACopy, name, EngUnassigned, []Operand{src}, []Operand{dst}, attrs)
}

// RegisterAlloc is nki.isa.register_alloc: the function's register named
// name, as an int32 register operand; with init, a RegisterMove of the
// immediate into it.
func (b *Builder) RegisterAlloc(name string, init ...int64) Operand {
	r := RegOpd(b.F.RegByName(name), Int32)
	if len(init) > 0 {
		b.RegisterMove("alloc_"+name, r, ImmI(init[0], Int32))
	}
	return r
}

// RegisterMove is nki.isa.register_move: dst (a register) = src (an
// integer immediate or a register). RegisterMove: ins = [src], outs =
// [dst].
func (b *Builder) RegisterMove(name string, dst, src Operand) InstID {
	return b.Inst(OpRegisterMove, name, EngUnassigned, []Operand{src}, []Operand{dst}, nil)
}

// RegisterLoad is nki.isa.register_load: dst (a register) = the single
// element of src (an AP of one element, SBUF or DRAM). TensorLoad: ins =
// [src], outs = [dst].
func (b *Builder) RegisterLoad(name string, dst, src Operand) InstID {
	return b.Inst(OpTensorLoad, name, EngUnassigned, []Operand{src}, []Operand{dst}, nil)
}

// RegisterStore is nki.isa.register_store: the single element of dst (an
// AP) = src (a register). TensorSave: ins = [src], outs = [dst].
func (b *Builder) RegisterStore(name string, dst, src Operand) InstID {
	return b.Inst(OpTensorSave, name, EngUnassigned, []Operand{src}, []Operand{dst}, nil)
}

// Activate2 is nki.isa.activate2 (NC-v4): per element val = data op0
// imm0 (imm0 op0 data when reverse0, skipped when op0 is bypass), then
// val op1 imm1 likewise, dst = fn(val, reluParam); with a reduce command
// other than idle the reduceOp (add, max, min) fold of each row updates
// the Scalar engine's accumulator, read into reduceRes (the zero Operand:
// not read out). Activation with is_activate2 (bir/isa.go) plus a
// ReadActivationAccumulator when reduceRes is given; imm0 and imm1 are
// [P,1] APs or immediates. It returns the Activation.
func (b *Builder) Activate2(name, fn string, dst, data, imm0, imm1 Operand, op0, op1 string, reluParam float64, reverse0, reverse1 bool, reduceOp string, reduceRes Operand, reduceCmd string) InstID {
	acc := b.reduceCmd("activate2", reduceCmd)
	if reduceOp == "" {
		reduceOp = "add"
	}
	id := b.Inst(OpActivation, name, EngAct, []Operand{data, imm0, imm1}, []Operand{dst},
		Attrs("func", fn, "scale", Float(1), "alpha", Float(reluParam), AttrAcc, acc, "reduce_op", reduceOp,
			AttrActivate2, true, "op0", op0, "reverse0", reverse0, "op1", op1, "reverse1", reverse1))
	if present(reduceRes) {
		b.Inst(OpReadActivationAccumulator, name+"_reduce_res", EngAct, nil, []Operand{reduceRes}, nil)
	}
	return id
}

// ActivationISA is nki.isa.activation in full: dst = fn(data*scale +
// bias) on the Scalar engine, bias the zero Operand (none), a [P,1] AP or
// an immediate (NC-v3+), scale an immediate (the "scale" attribute) or a
// [P,1] AP (source 2, after a bias, Imm(0) when none is given); with
// reduceCmd other than idle the reduceOp (add; max, min from NC-v3) fold
// of each row updates the Scalar engine's accumulator, and reduceRes (the
// zero Operand: none) is read from it by a following
// ReadActivationAccumulator. It returns the Activation.
func (b *Builder) ActivationISA(name, fn string, dst, data, bias, scale Operand, reduceOp string, reduceRes Operand, reduceCmd string) InstID {
	acc := b.reduceCmd("activation", reduceCmd)
	if reduceOp == "" {
		reduceOp = "add"
	}
	ins := []Operand{data}
	sc := 1.0
	switch {
	case scale.Kind == OpdImm:
		sc = scale.ImmFloat()
		if present(bias) {
			ins = append(ins, bias)
		}
	case present(scale):
		if !present(bias) {
			bias = Imm(0)
		}
		ins = append(ins, bias, scale)
	case present(bias):
		ins = append(ins, bias)
	}
	id := b.Inst(OpActivation, name, EngAct, ins, []Operand{dst},
		Attrs("func", fn, "scale", Float(sc), "alpha", Float(0), AttrAcc, acc, "reduce_op", reduceOp))
	if present(reduceRes) {
		b.Inst(OpReadActivationAccumulator, name+"_reduce_res", EngAct, nil, []Operand{reduceRes}, nil)
	}
	return id
}
