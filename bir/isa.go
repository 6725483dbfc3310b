package bir

// Instruction variants: NKI ISA instructions that BIR encodes as an
// existing opcode with a flag or an attribute value, rather than as an
// opcode of their own. Each is named here once, so the interpreter, the
// verifier, the engine assignment and the cost model read the variant the
// same way (docs/isa.md lists every nki.isa instruction and its encoding).
//
//	variant                  opcode           marked by                          engines
//	tensor_tensor_scan       TensorScalarPtr  is_tensor_tensor_scan = true       DVE
//	scalar_tensor_tensor     TensorScalarPtr  is_scalar_tensor_tensor = true     DVE
//	tensor_partition_reduce  TensorReduce     axis = "C" (the partition axis)    Pool
//	tensor_scalar_reduce     TensorScalarPtr  acc != Idle (the reduce command)   DVE
//	select_reduce            CopyPredicated   an "acc" attribute                 DVE
//	activate2                Activation       is_activate2 = true                Activation
//
// Decisions, where BIR-JSON names the field but nothing documents it:
//   - The scan and scalar_tensor_tensor are TensorScalarPtr because
//     BIR-JSON gives TensorScalarPtr the two flags (shared bir-json.md
//     §4.4) and both instructions have TensorScalarPtr's shape
//     `(x op0 s0) op1 s1`: the scan's s0 is its running state (started
//     from `initial`), scalar_tensor_tensor's s1 is a whole tensor instead
//     of a per-partition scalar. ins = [data, s0, data1] in both.
//   - tensor_partition_reduce is TensorReduce over AxisListType "C": BIR's
//     axis enumeration has C (and XYZWC) beside the free-axis lists, and
//     the NKI API reference has no other instruction that reduces across
//     partitions; KLR names the operator TensorPartitionReduce{dst, op,
//     data}. GpSimd only (the NKI reference: "using GpSimd Engine").
//   - tensor_scalar_reduce is TensorScalarPtr with acc ZeroAccumulate,
//     Accumulate or LoadAccumulate and a second output (reduce_res): the
//     compiler's KLR codegen lowers TensorScalarReduce so (a public
//     reverse-engineering of neuronx-cc's codegen: "TensorScalarReduce
//     acc=3", BIR allows TensorScalarPtr two outputs). ins = [data,
//     operand0, reduce_init?], op1 bypass.
//   - select_reduce is CopyPredicated with three sources [on_true,
//     predicate, on_false] and outputs [dst, reduce_res?] (the same
//     codegen: "SelectReduce -> InstCopyPredicated", "NOT RangeSelect");
//     BIR-JSON gives CopyPredicated no accumulation field, so narwhal marks
//     the variant by the "acc" attribute (EngineAccumulationType, as on
//     TensorTensor), which plain tensor_copy_predicated never carries.
//   - activate2 is Activation with is_activate2 (the same codegen:
//     "Activate2 -> InstActivation, is_activate2=1"): ins = [data, imm0,
//     imm1] (each a [P,1] AP or an immediate), attributes op0, reverse0,
//     op1, reverse1 of its tensor-scalar stage, alpha = relu_param, acc
//     and reduce_op as on Activation; its reduce_res is a following
//     ReadActivationAccumulator, as activation's.
//
// Engine accumulators (InstAccumulator): the Scalar engine's accumulator
// registers (Activation with acc != Idle, ReadActivationAccumulator) and
// the Vector engine's (tensor_scalar_reduce, tensor_scalar_cumulative,
// range_select, select_reduce, exponential: the NKI reference's "The
// accumulator registers are shared across Vector Engine accumulation
// instructions"), one fp32 register per lane each. Every pass that
// reorders, removes or splits instructions asks InstAccumulator: the state
// is shared in program order, so the instructions that touch one are
// ordered among themselves (depgraph), never dead while their effect is
// unobserved (DCE) and never split along the free axis. A Vector
// accumulator instruction touches the state even with reduce command Idle:
// the reference says of exponential and select_reduce "Even when
// reduce_cmd is set to idle, the accumulator state may still be modified".

// Attribute keys and values of the variants.
const (
	AttrTensorTensorScan   = "is_tensor_tensor_scan"
	AttrScalarTensorTensor = "is_scalar_tensor_tensor"
	AxisPartition          = "C"
	// AttrAcc is the reduce command (EngineAccumulationType) of every
	// accumulating instruction but RangeSelect, whose BIR-JSON field is
	// AttrReduceCmd.
	AttrAcc       = "acc"
	AttrReduceCmd = "reduce_cmd"
	AttrActivate2 = "is_activate2"
)

// IsActivate2 reports whether (op, attrs) is activate2.
func IsActivate2(op Opcode, a AttrSet) bool {
	return op == OpActivation && a.Bool(AttrActivate2, false)
}

// isIdle reports whether an EngineAccumulationType spelling is Idle.
func isIdle(s string) bool { return s == "" || s == "Idle" || s == "idle" }

// AccCmd returns the reduce command of (op, attrs): the "reduce_cmd"
// attribute of RangeSelect (default ZeroAccumulate, BIR-JSON's), the "acc"
// attribute elsewhere (default Idle).
func AccCmd(op Opcode, a AttrSet) string {
	if op == OpRangeSelect {
		return a.Str(AttrReduceCmd, "ZeroAccumulate")
	}
	return a.Str(AttrAcc, "Idle")
}

// IsTensorScalarReduce reports whether (op, attrs) is tensor_scalar_reduce.
func IsTensorScalarReduce(op Opcode, a AttrSet) bool {
	return op == OpTensorScalarPtr && !isIdle(a.Str(AttrAcc, "Idle")) &&
		!a.Bool(AttrTensorTensorScan, false) && !a.Bool(AttrScalarTensorTensor, false)
}

// IsSelectReduce reports whether (op, attrs) is select_reduce.
func IsSelectReduce(op Opcode, a AttrSet) bool {
	if op != OpCopyPredicated {
		return false
	}
	_, ok := a.Get(AttrAcc)
	return ok
}

// Accumulator names the engine accumulator registers an instruction uses.
type Accumulator uint8

const (
	NoAccumulator     Accumulator = iota
	ActAccumulator                // the Scalar (Activation) engine's
	VectorAccumulator             // the Vector engine's
)

// InstAccumulator returns the engine accumulator instruction (op, attrs)
// reads and writes (see the file comment).
func InstAccumulator(op Opcode, a AttrSet) Accumulator {
	switch op {
	case OpActivation:
		if !isIdle(a.Str(AttrAcc, "Idle")) {
			return ActAccumulator
		}
	case OpReadActivationAccumulator:
		return ActAccumulator
	case OpTensorScalarCache, OpExponential, OpRangeSelect:
		return VectorAccumulator
	case OpCopyPredicated:
		if IsSelectReduce(op, a) {
			return VectorAccumulator
		}
	case OpTensorScalarPtr, OpTensorScalar, OpTensorTensor:
		// tensor_scalar_reduce; an accumulating TensorTensor or
		// TensorScalar has no semantics but would touch the same state.
		if !isIdle(a.Str(AttrAcc, "Idle")) {
			return VectorAccumulator
		}
	}
	return NoAccumulator
}

// IsTensorTensorScan reports whether (op, attrs) is tensor_tensor_scan.
func IsTensorTensorScan(op Opcode, a AttrSet) bool {
	return op == OpTensorScalarPtr && a.Bool(AttrTensorTensorScan, false)
}

// IsScalarTensorTensor reports whether (op, attrs) is scalar_tensor_tensor.
func IsScalarTensorTensor(op Opcode, a AttrSet) bool {
	return op == OpTensorScalarPtr && a.Bool(AttrScalarTensorTensor, false)
}

// IsPartitionReduce reports whether (op, attrs) is tensor_partition_reduce.
func IsPartitionReduce(op Opcode, a AttrSet) bool {
	return op == OpTensorReduce && a.Str("axis", "") == AxisPartition
}

// InstEngines returns the engines an instruction of opcode op with
// attributes a may run on: the opcode table's set (OpInfo.Engines),
// narrowed for the variants above. Unassigned is always in the set.
func InstEngines(op Opcode, a AttrSet) EngineMask {
	switch {
	case IsTensorTensorScan(op, a), IsScalarTensorTensor(op, a):
		return engines(EngUnassigned, EngDVE)
	case IsPartitionReduce(op, a):
		return engines(EngUnassigned, EngPool)
	case IsTensorScalarReduce(op, a), IsSelectReduce(op, a):
		return engines(EngUnassigned, EngDVE)
	}
	return op.Info().Engines
}

// Variant returns the nki.isa name of the variant (op, attrs) encodes
// ("tensor_tensor_scan", "scalar_tensor_tensor",
// "tensor_partition_reduce", "tensor_scalar_reduce", "select_reduce",
// "activate2"), or
// "" for the opcode's plain form.
func Variant(op Opcode, a AttrSet) string {
	switch {
	case IsTensorTensorScan(op, a):
		return "tensor_tensor_scan"
	case IsScalarTensorTensor(op, a):
		return "scalar_tensor_tensor"
	case IsPartitionReduce(op, a):
		return "tensor_partition_reduce"
	case IsTensorScalarReduce(op, a):
		return "tensor_scalar_reduce"
	case IsSelectReduce(op, a):
		return "select_reduce"
	case IsActivate2(op, a):
		return "activate2"
	}
	return ""
}
