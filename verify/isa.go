// Rules of the NKI ISA instructions encoded as variants of BIR opcodes
// (bir/isa.go, docs/isa.md): each runs on the engines the NKI reference
// names (rule engine), reads its operands in the roles of docs/isa.md
// (arity, elem-count), with the AluOps the reference allows (attr) and the
// memories it allows (tt-psum, gpsimd-psum). They hold at every stage.

package verify

import "github.com/narwhal-compiler/narwhal/bir"

// variantEngine: a variant runs on the narrower engine set of
// bir.InstEngines (the opcode's own set is checked by inst).
func (c *checker) variantEngine(i bir.InstID, in *bir.Instruction, info *bir.OpInfo, attrs bir.AttrSet) {
	v := bir.Variant(in.Op, attrs)
	if v == "" || in.Engine >= bir.NumEngines || !info.Engines.Has(in.Engine) {
		return
	}
	if mask := bir.InstEngines(in.Op, attrs); !mask.Has(in.Engine) {
		c.instDiag(i, "engine", "engine %s: want %s (%s runs there)", in.Engine, engineList(mask&^(1<<bir.EngUnassigned)), v)
	}
}

// bitvecOps are the bit-vector AluOps (semantics.md §3: shifts and
// bitwise ops).
var bitvecOps = map[string]bool{
	"arith_shift_left": true, "arith_shift_right": true, "logical_shift_left": true, "logical_shift_right": true,
	"bitwise_and": true, "bitwise_or": true, "bitwise_xor": true, "bitwise_not": true,
}

// tensorScalarPtrVariant checks tensor_tensor_scan and scalar_tensor_tensor:
// ins = [data, s0, data1]: data and data1 walk in lockstep with the
// destination, s0 is a [P,1] scalar or an immediate, data and data1 are not
// both in PSUM, one destination, arithmetic op0 and op1 (the NKI
// reference: "any binary arithmetic operator"; scalar_tensor_tensor:
// "Bitvec operators are not supported").
func (c *checker) tensorScalarPtrVariant(i bir.InstID, v string, attrs bir.AttrSet, ins, outs []opnd) {
	if attrs.Bool(bir.AttrTensorTensorScan, false) && attrs.Bool(bir.AttrScalarTensorTensor, false) {
		c.instDiag(i, "attr", "%s and %s both set: want at most one", bir.AttrTensorTensorScan, bir.AttrScalarTensorTensor)
	}
	for _, k := range []string{"op0", "op1"} {
		if op := attrs.Str(k, ""); bitvecOps[op] {
			c.instDiag(i, "attr", "%s %s: want an arithmetic AluOp (%s takes no bit-vector op)", k, op, v)
		}
	}
	if len(ins) != 3 || len(outs) != 1 {
		c.instDiag(i, "arity", "%d sources and %d destinations: want 3 sources [data, %s, data1] and one destination (%s)",
			len(ins), len(outs), map[bool]string{true: "initial", false: "operand0"}[v == "tensor_tensor_scan"], v)
		return
	}
	c.lockstep(i, ins[:1], outs, 1)
	c.lockstep(i, ins[2:], outs, 1)
	c.scalars(i, ins[:2], outs)
	if ins[0].mem == bir.MemPSUM && ins[2].mem == bir.MemPSUM {
		c.instDiag(i, "tt-psum", "both data inputs are in PSUM (%s, %s): want at most one input in PSUM", c.label(&ins[0]), c.label(&ins[2]))
	}
}

// partitionReduceOps are the ops of tensor_partition_reduce (the NKI
// reference's list, plus average: interp.partitionReduceOp).
var partitionReduceOps = map[string]bool{"add": true, "max": true, "average": true, "bitwise_or": true, "bitwise_and": true}

// partitionReduce checks tensor_partition_reduce (TensorReduce axis C): an
// op of the reference's list, a [P, F] source and a [1, F] destination,
// and no PSUM operand (GpSimd) even while the engine is Unassigned.
func (c *checker) partitionReduce(i bir.InstID, in *bir.Instruction, attrs bir.AttrSet, ins, outs []opnd) {
	if op := attrs.Str("op", ""); !partitionReduceOps[op] {
		c.instDiag(i, "attr", "op %q: want add, max, average, bitwise_or or bitwise_and (the reductions of tensor_partition_reduce)", op)
	}
	if in.Engine == bir.EngUnassigned {
		for k := range ins {
			if ins[k].mem == bir.MemPSUM {
				c.instLocDiag(i, ins[k].loc, "gpsimd-psum", "%s: tensor_partition_reduce runs only on GpSimd (want %s in SB, have PSUM)", msgGpSimdPSUM, c.label(&ins[k]))
			}
		}
		for k := range outs {
			if outs[k].mem == bir.MemPSUM {
				c.instLocDiag(i, outs[k].loc, "gpsimd-psum", "%s: tensor_partition_reduce runs only on GpSimd (want %s in SB, have PSUM)", msgGpSimdPSUM, c.label(&outs[k]))
			}
		}
	}
	if len(ins) < 1 || len(outs) < 1 {
		return
	}
	s, d := &ins[0], &outs[0]
	if bitvecOps[attrs.Str("op", "")] {
		for _, x := range []*opnd{s, d} {
			if x.isAP && x.dtype.IsFloat() {
				c.instDiag(i, "operand-dtype", "%s is %s: want an integer dtype (a bitwise reduction works on integer bits)", c.label(x), x.dtype)
			}
		}
	}
	if !s.ok || !d.ok || !s.onChip || !d.onChip {
		return
	}
	if d.parts != 1 || d.perPart != s.perPart {
		c.instDiag(i, "elem-count", "%s is %s, %s is %s: want the destination [1 partitions x %d] (a partition reduce folds the partitions of each column)",
			c.label(s), shape(s), c.label(d), shape(d), s.perPart)
	}
}

// copyPredicated checks tensor_copy_predicated's dtypes (the NKI
// reference: "predicate must be of type uint8, uint16, or uint32"; "src
// and dst must share the same data type"); an immediate src is converted.
func (c *checker) copyPredicated(i bir.InstID, ins, outs []opnd) {
	if len(ins) != 2 || len(outs) != 1 {
		return
	}
	s, p, d := &ins[0], &ins[1], &outs[0]
	if p.isAP && p.dtype != bir.Uint8 && p.dtype != bir.Uint16 && p.dtype != bir.Uint32 {
		c.instDiag(i, "operand-dtype", "predicate %s is %s: want uint8, uint16 or uint32", c.label(p), p.dtype)
	}
	if s.isAP && d.isAP && s.dtype != d.dtype {
		c.instDiag(i, "operand-dtype", "%s is %s, %s is %s: want the same dtype (the copy is bit-exact)", c.label(s), s.dtype, c.label(d), d.dtype)
	}
}

// max8Family checks max8 (Max), nc_find_index8 (MaxIndex) and
// nc_match_replace8 (MatchReplace): the data source has 8 to 16384
// elements per partition, vals and the index/top destinations are [P, 8],
// MatchReplace's dst has data's shape and an imm_value; indices are
// uint16 or uint32 (the NKI reference).
func (c *checker) max8Family(i bir.InstID, op bir.Opcode, attrs bir.AttrSet, attrsOK bool, ins, outs []opnd) {
	if op == bir.OpMatchReplace && attrsOK {
		if v, ok := attrs.Get("imm_value"); !ok {
			c.instDiag(i, "attr", "imm_value missing: want the replacement value")
		} else if _, num := v.AsFloat(); !num {
			c.instDiag(i, "attr", "imm_value %s: want a number", v.JSON())
		}
	}
	if len(ins) < 1 || len(outs) < 1 || !ins[0].ok || !ins[0].onChip {
		return
	}
	s := &ins[0]
	if s.perPart < 8 || s.perPart > 16384 {
		c.instDiag(i, "elem-count", "%s is %s: want 8 to 16384 elements per partition", c.label(s), shape(s))
	}
	eight := func(x *opnd) {
		if x.ok && x.onChip && (x.parts != s.parts || x.perPart != 8) {
			c.instDiag(i, "elem-count", "%s is %s: want [%d partitions x 8]", c.label(x), shape(x), s.parts)
		}
	}
	index := func(x *opnd) {
		if x.isAP && x.dtype != bir.Uint16 && x.dtype != bir.Uint32 {
			c.instDiag(i, "operand-dtype", "%s is %s: want uint16 or uint32 indices", c.label(x), x.dtype)
		}
	}
	switch op {
	case bir.OpMax:
		eight(&outs[0])
	case bir.OpMaxIndex:
		if len(ins) > 1 {
			eight(&ins[1])
		}
		eight(&outs[0])
		index(&outs[0])
	case bir.OpMatchReplace:
		if len(ins) > 1 {
			eight(&ins[1])
		}
		c.lockstep(i, ins[:1], outs[:1], 1)
		if len(outs) > 1 {
			eight(&outs[1])
			index(&outs[1])
		}
	}
}
