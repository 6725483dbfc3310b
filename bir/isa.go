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

// Attribute keys and values of the variants.
const (
	AttrTensorTensorScan   = "is_tensor_tensor_scan"
	AttrScalarTensorTensor = "is_scalar_tensor_tensor"
	AxisPartition          = "C"
)

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
	}
	return op.Info().Engines
}

// Variant returns the nki.isa name of the variant (op, attrs) encodes
// ("tensor_tensor_scan", "scalar_tensor_tensor",
// "tensor_partition_reduce"), or "" for the opcode's plain form.
func Variant(op Opcode, a AttrSet) string {
	switch {
	case IsTensorTensorScan(op, a):
		return "tensor_tensor_scan"
	case IsScalarTensorTensor(op, a):
		return "scalar_tensor_tensor"
	case IsPartitionReduce(op, a):
		return "tensor_partition_reduce"
	}
	return ""
}
