// Rules of the NKI ISA instructions encoded as variants of BIR opcodes
// (bir/isa.go, docs/isa.md): each runs on the engines the NKI reference
// names (rule engine), reads its operands in the roles of docs/isa.md
// (arity, elem-count), with the AluOps the reference allows (attr) and the
// memories it allows (tt-psum, gpsimd-psum). They hold at every stage.

package verify

import (
	"math"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

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

// ncVersion: an instruction the NKI reference gives to newer NeuronCores
// only (rule nc-version: range_select and nonzero_with_count "Available
// only on NeuronCore-v3 and newer", exponential "NeuronCore-v4 and newer").
func (c *checker) ncVersion(i bir.InstID, level int, what, core string) {
	if c.arch != nil && c.arch.ArchLevel < level {
		c.instDiag(i, "nc-version", "%s runs on %s and newer: want such a target, have %s (%s)", what, core, c.arch.Name, c.arch.Core)
	}
}

// vectorAcc checks the accumulator side of a Vector accumulator
// instruction (bir/isa.go): a reduce command of the reference's list, a
// reduce op of its list, and a readout destination (outs[1], reduce_res)
// of one element per row of the instruction's first source, which an Idle
// command leaves undefined.
func (c *checker) vectorAcc(i bir.InstID, op bir.Opcode, what string, attrs bir.AttrSet, ins, outs []opnd, cmds []string, redOps []string) {
	raw := bir.AccCmd(op, attrs)
	cmd, ok := bir.ReduceCmd(raw)
	if !ok || !slices.Contains(cmds, cmd) {
		c.instDiag(i, "attr", "reduce command %q: want one of %s (%s)", raw, strings.Join(cmds, ", "), what)
	}
	if redOps != nil {
		if r := attrs.Str("reduce_op", redOps[0]); !slices.Contains(redOps, r) {
			c.instDiag(i, "attr", "reduce_op %q: want %s (the reductions of %s)", r, strings.Join(redOps, ", "), what)
		}
	}
	if len(outs) < 2 {
		return
	}
	if cmd == "Idle" {
		c.instDiag(i, "attr", "reduce_res with reduce command Idle: want reset_reduce or reduce (the Vector accumulator is undefined after an idle command; the reference: \"accumulator state unknown\")")
	}
	r := &outs[1]
	if len(ins) > 0 && ins[0].ok && ins[0].onChip && r.ok && r.onChip && (r.parts != ins[0].parts || r.perPart != 1) {
		c.instDiag(i, "elem-count", "%s is %s: want [%d partitions x 1], one accumulator value per row of %s", c.label(r), shape(r), ins[0].parts, c.label(&ins[0]))
	}
	if r.isAP && !r.dtype.IsFloat() {
		c.instDiag(i, "operand-dtype", "%s is %s: want a float dtype (the accumulator is fp32)", c.label(r), r.dtype)
	}
}

// loadArity: a load value (the third source) goes with LoadAccumulate and
// only with it.
func (c *checker) loadArity(i bir.InstID, op bir.Opcode, what, name string, attrs bir.AttrSet, ins []opnd) {
	cmd, _ := bir.ReduceCmd(bir.AccCmd(op, attrs))
	if (cmd == "LoadAccumulate") != (len(ins) == 3) {
		c.instDiag(i, "arity", "%d sources with reduce command %s: want %s (source 2) with load_reduce and only with it (%s)", len(ins), cmd, name, what)
	}
}

// arithmeticOp: attribute key names an arithmetic AluOp (not bypass-only
// unless allowed).
func (c *checker) arithmeticOp(i bir.InstID, attrs bir.AttrSet, key, what string) {
	if op := attrs.Str(key, ""); op == "" || bitvecOps[op] {
		c.instDiag(i, "attr", "%s %q: want an arithmetic AluOp (%s takes no bit-vector op)", key, op, what)
	}
}

// noInt32: the operands of tensor_scalar_cumulative and select_reduce
// exclude 32-bit integers (the reference: "INT32/UINT32 are not supported
// as input/output dtypes").
func (c *checker) noInt32(i bir.InstID, what string, xs ...*opnd) {
	for _, x := range xs {
		if x.isAP && (x.dtype == bir.Int32 || x.dtype == bir.Uint32 || x.dtype == bir.Float32R) {
			c.instDiag(i, "operand-dtype", "%s is %s: want a dtype other than int32, uint32 and tfloat32 (%s)", c.label(x), x.dtype, what)
		}
	}
}

// tensorScalarReduce checks tensor_scalar_reduce (TensorScalarPtr acc):
// ins [data, operand0 [P,1] or immediate, reduce_init?], outs [dst,
// reduce_res?], op0 arithmetic, op1 bypass, reduce_op add/mult/max/min.
func (c *checker) tensorScalarReduce(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "tensor_scalar_reduce"
	c.arithmeticOp(i, attrs, "op0", what)
	if op1 := attrs.Str("op1", "bypass"); op1 != "bypass" {
		c.instDiag(i, "attr", "op1 %q: want bypass (%s applies one operator)", op1, what)
	}
	c.vectorAcc(i, bir.OpTensorScalarPtr, what, attrs, ins, outs, []string{"ZeroAccumulate", "Accumulate", "LoadAccumulate"}, []string{"add", "mult", "max", "min"})
	c.loadArity(i, bir.OpTensorScalarPtr, what, "reduce_init", attrs, ins)
	c.lockstep(i, ins[:1], outs[:1], 1)
	c.scalars(i, ins, outs[:1])
}

// tensorScalarCumulative checks TensorScalarCache: ins [src, imm0,
// imm1?], op0 arithmetic, op1 add/subtract/mult/max/min, the reference's
// three reduce commands, no 32-bit integer data.
func (c *checker) tensorScalarCumulative(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "tensor_scalar_cumulative"
	c.arithmeticOp(i, attrs, "op0", what)
	if op1 := attrs.Str("op1", ""); !slices.Contains([]string{"add", "subtract", "mult", "max", "min"}, op1) {
		c.instDiag(i, "attr", "op1 %q: want add, subtract, mult, max or min (the cumulative operation)", op1)
	}
	c.vectorAcc(i, bir.OpTensorScalarCache, what, attrs, ins, outs, []string{"ZeroAccumulate", "Accumulate", "LoadAccumulate"}, nil)
	c.loadArity(i, bir.OpTensorScalarCache, what, "imm1", attrs, ins)
	if len(ins) < 1 || len(outs) < 1 {
		return
	}
	c.lockstep(i, ins[:1], outs, 1)
	c.scalars(i, ins, outs)
	c.noInt32(i, what, &ins[0], &outs[0])
}

// rangeSelect checks RangeSelect: ins [on_true (float), bound0, bound1
// (fp32 [P,1] or immediates)], outs [dst, reduce_res?], the comparisons
// of the reference, reduce_op max, fill_value FP32_MIN, NC-v3+.
func (c *checker) rangeSelect(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "range_select"
	c.ncVersion(i, arch.LevelTrn2, what, "NeuronCore-v3")
	for _, k := range []string{"compare_op0", "compare_op1"} {
		if op := attrs.Str(k, ""); !slices.Contains([]string{"is_equal", "is_lt", "is_le", "is_gt", "is_ge"}, op) {
			c.instDiag(i, "attr", "%s %q: want is_equal, is_lt, is_le, is_gt or is_ge", k, op)
		}
	}
	if v, ok := attrs.Get("fill_value"); ok && v.Kind != bir.ValNull {
		if f, num := v.AsFloat(); !num || float32(f) != -math.MaxFloat32 {
			c.instDiag(i, "attr", "fill_value %s: want FP32_MIN (-3.4028235e+38), the only on_false_value the hardware takes", v.JSON())
		}
	}
	c.vectorAcc(i, bir.OpRangeSelect, what, attrs, ins, outs, []string{"Idle", "Zero", "ZeroAccumulate", "Accumulate"}, []string{"max"})
	if len(ins) != 3 || len(outs) < 1 {
		return
	}
	c.lockstep(i, ins[:1], outs[:1], 1)
	c.scalars(i, ins, outs[:1])
	if ins[0].isAP && !ins[0].dtype.IsFloat() {
		c.instDiag(i, "operand-dtype", "%s is %s: want a float dtype (on_true_tile)", c.label(&ins[0]), ins[0].dtype)
	}
	for k := 1; k < 3; k++ {
		if ins[k].isAP && ins[k].dtype != bir.Float32 {
			c.instDiag(i, "operand-dtype", "%s is %s: want float32 bounds", c.label(&ins[k]), ins[k].dtype)
		}
	}
}

// selectReduce checks select_reduce (CopyPredicated acc): ins [on_true,
// predicate (int8/uint8/int16/uint16), on_false ([P,1] or immediate)],
// outs [dst, reduce_res?], on_true and predicate not both in PSUM,
// reduce_op max.
func (c *checker) selectReduce(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "select_reduce"
	if len(ins) != 3 {
		c.instDiag(i, "arity", "%d sources: %s reads [on_true, predicate, on_false]", len(ins), what)
		return
	}
	c.vectorAcc(i, bir.OpCopyPredicated, what, attrs, ins, outs, []string{"Idle", "ZeroAccumulate", "Accumulate"}, []string{"max"})
	if len(outs) < 1 {
		return
	}
	c.lockstep(i, ins[:2], outs[:1], 2)
	on, p, f, d := &ins[0], &ins[1], &ins[2], &outs[0]
	if f.ok && f.onChip && d.ok && d.onChip && (f.parts != d.parts || f.perPart != 1) {
		c.instDiag(i, "elem-count", "%s is %s: want [%d partitions x 1] (on_false is a scalar or one value per partition)", c.label(f), shape(f), d.parts)
	}
	if p.isAP && p.dtype != bir.Int8 && p.dtype != bir.Uint8 && p.dtype != bir.Int16 && p.dtype != bir.Uint16 {
		c.instDiag(i, "operand-dtype", "predicate %s is %s: want int8, uint8, int16 or uint16", c.label(p), p.dtype)
	}
	c.noInt32(i, what, on)
	if on.mem == bir.MemPSUM && p.mem == bir.MemPSUM {
		c.instDiag(i, "tt-psum", "on_true %s and predicate %s are both in PSUM: want at most one in PSUM", c.label(on), c.label(p))
	}
}

// exponential checks Exponential: ins [src, max_value ([P,1] or
// immediate), reduce_init?], outs [dst, reduce_res?], NC-v4.
func (c *checker) exponential(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "exponential"
	c.ncVersion(i, arch.LevelTrn3, what, "NeuronCore-v4")
	c.vectorAcc(i, bir.OpExponential, what, attrs, ins, outs, []string{"Idle", "ZeroAccumulate", "Accumulate", "LoadAccumulate"}, nil)
	c.loadArity(i, bir.OpExponential, what, "reduce_init", attrs, ins)
	if len(ins) < 1 || len(outs) < 1 {
		return
	}
	c.lockstep(i, ins[:1], outs[:1], 1)
	c.scalars(i, ins, outs[:1])
}

// localGather checks IndirectCopy (local_gather): partitions a multiple
// of 16 and equal, uint16 indices, num_valid_indices within the 16-row
// index slice and at most 4096, E = dst elements per partition /
// num_valid_indices one of 1, 2, 4, 8, 16, 32 (and num_elem_per_idx if
// given), dst of the source's dtype.
func (c *checker) localGather(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	if len(ins) != 2 || len(outs) != 1 {
		return
	}
	s, x, d := &ins[0], &ins[1], &outs[0]
	if x.isAP && x.dtype != bir.Uint16 {
		c.instDiag(i, "operand-dtype", "index %s is %s: want uint16", c.label(x), x.dtype)
	}
	if s.isAP && d.isAP && s.dtype != d.dtype {
		c.instDiag(i, "operand-dtype", "%s is %s, %s is %s: want the same dtype (local_gather casts nothing)", c.label(s), s.dtype, c.label(d), d.dtype)
	}
	if !s.ok || !x.ok || !d.ok || !s.onChip || !x.onChip || !d.onChip {
		return
	}
	if s.parts%16 != 0 || x.parts != s.parts || d.parts != s.parts {
		c.instDiag(i, "elem-count", "%s %s, %s %s, %s %s: want equal partitions, a multiple of 16 (one GpSimd core per 16)", c.label(s), shape(s), c.label(x), shape(x), c.label(d), shape(d))
		return
	}
	v := attrs.Int("num_valid_indices", 0)
	if v == 0 {
		v = 16 * x.perPart
	}
	if v < 1 || v > 16*x.perPart || v > 4096 {
		c.instDiag(i, "attr", "num_valid_indices %d: want 1 to min(4096, %d), the indices of a 16-partition slice", v, 16*x.perPart)
		return
	}
	e := d.perPart / v
	if d.perPart%v != 0 || !slices.Contains([]int64{1, 2, 4, 8, 16, 32}, e) {
		c.instDiag(i, "elem-count", "%s has %d elements per partition for %d indices: want num_elem_per_idx (1, 2, 4, 8, 16 or 32) elements per index", c.label(d), d.perPart, v)
	} else if n := attrs.Int("num_elem_per_idx", e); n != e {
		c.instDiag(i, "attr", "num_elem_per_idx %d: the destination's %d elements per partition over %d indices give %d", n, d.perPart, v, e)
	}
}

// nGather checks Gather (nc_n_gather): equal partitions, uint32 indices,
// one destination element per index, dst of data's dtype.
func (c *checker) nGather(i bir.InstID, ins, outs []opnd) {
	if len(ins) != 2 || len(outs) != 1 {
		return
	}
	s, x, d := &ins[0], &ins[1], &outs[0]
	if x.isAP && x.dtype != bir.Uint32 {
		c.instDiag(i, "operand-dtype", "indices %s is %s: want uint32", c.label(x), x.dtype)
	}
	if s.isAP && d.isAP && s.dtype != d.dtype {
		c.instDiag(i, "operand-dtype", "%s is %s, %s is %s: want the same dtype", c.label(s), s.dtype, c.label(d), d.dtype)
	}
	if s.ok && x.ok && d.ok && s.onChip && x.onChip && d.onChip && (s.parts != d.parts || x.parts != d.parts || x.perPart != d.perPart) {
		c.instDiag(i, "elem-count", "%s %s, %s %s, %s %s: want equal partitions and one destination element per index", c.label(s), shape(s), c.label(x), shape(x), c.label(d), shape(d))
	}
}

// streamShuffle checks StreamShuffle (nc_stream_shuffle): a 32-entry mask
// of 0..31 or 255, equal dtypes and elements per partition, and once
// placed the start partitions of both operands legal for the active
// partitions ceil(max(src, dst) / 32) * 32 (the reference's rule).
func (c *checker) streamShuffle(i bir.InstID, attrs bir.AttrSet, attrsOK bool, ins, outs []opnd) {
	if attrsOK {
		v, ok := attrs.Get("mask")
		good := ok && v.Kind == bir.ValList && len(v.L) == 32
		for k := 0; good && k < len(v.L); k++ {
			n, isInt := v.L[k].AsInt()
			good = isInt && (n >= 0 && n < 32 || n == 255)
		}
		if !good {
			c.instDiag(i, "attr", "mask: want 32 partition indices, each 0..31 or 255 (unmodified)")
		}
	}
	if len(ins) != 1 || len(outs) != 1 {
		return
	}
	s, d := &ins[0], &outs[0]
	if s.isAP && d.isAP && s.dtype != d.dtype {
		c.instDiag(i, "operand-dtype", "%s is %s, %s is %s: want the same dtype", c.label(s), s.dtype, c.label(d), d.dtype)
	}
	if !s.ok || !d.ok || !s.onChip || !d.onChip {
		return
	}
	if s.perPart != d.perPart {
		c.instDiag(i, "elem-count", "%s is %s, %s is %s: want equal elements per partition", c.label(s), shape(s), c.label(d), shape(d))
	}
	active := (max(s.parts, d.parts) + 31) / 32 * 32
	for _, x := range []*opnd{s, d} {
		if !c.placed(x) {
			continue
		}
		if p, ok := c.startPartition(x); ok && !arch.LegalPartitionStart(int(p), int(active)) {
			c.instLocDiag(i, x.loc, "partition-start", "%s starts at partition %d: with %d active partitions a stream shuffle starts at %s",
				c.label(x), p, active, arch.PartitionStartsText(int(active)))
		}
	}
}

// sequenceBounds checks GetSequenceBounds: segment_ids [1, n] and dst
// [1, 2n], both float32 or int32.
func (c *checker) sequenceBounds(i bir.InstID, ins, outs []opnd) {
	if len(ins) != 1 || len(outs) != 1 {
		return
	}
	s, d := &ins[0], &outs[0]
	for _, x := range []*opnd{s, d} {
		if x.isAP && x.dtype != bir.Float32 && x.dtype != bir.Int32 {
			c.instDiag(i, "operand-dtype", "%s is %s: want float32 or int32", c.label(x), x.dtype)
		}
	}
	if s.ok && d.ok && s.onChip && d.onChip && (s.parts != 1 || d.parts != 1 || d.perPart != 2*s.perPart) {
		c.instDiag(i, "elem-count", "%s is %s, %s is %s: want segment ids [1 partition x n] and the bounds [1 x 2n] (start and end per element)", c.label(s), shape(s), c.label(d), shape(d))
	}
}

// nonzeroWithCount checks NonzeroWithCount: src float32 or int32 [P, T],
// dst int32 [P, T+1], NC-v3+.
func (c *checker) nonzeroWithCount(i bir.InstID, ins, outs []opnd) {
	c.ncVersion(i, arch.LevelTrn2, "nonzero_with_count", "NeuronCore-v3")
	if len(ins) != 1 || len(outs) != 1 {
		return
	}
	s, d := &ins[0], &outs[0]
	if s.isAP && s.dtype != bir.Float32 && s.dtype != bir.Int32 {
		c.instDiag(i, "operand-dtype", "%s is %s: want float32 or int32", c.label(s), s.dtype)
	}
	if d.isAP && d.dtype != bir.Int32 {
		c.instDiag(i, "operand-dtype", "%s is %s: want int32", c.label(d), d.dtype)
	}
	if s.ok && d.ok && s.onChip && d.onChip && (s.parts != d.parts || d.perPart != s.perPart+1) {
		c.instDiag(i, "elem-count", "%s is %s, %s is %s: want the destination one element per partition longer (the count)", c.label(s), shape(s), c.label(d), shape(d))
	}
}

// dmaTranspose checks DMACopy mode Transpose: transpose_op None or absent
// (2-D) or XZYW (3-D, 4-D, nki.isa.dma_transpose), the destination's
// pattern the permuted shape of the source's, the dtype kept.
func (c *checker) dmaTranspose(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	op := "None"
	if v, ok := attrs.Get("transpose_op"); ok && v.Kind != bir.ValNull {
		op, _ = v.AsString()
	}
	if op != "None" && op != "XZYW" {
		c.instDiag(i, "attr", "transpose_op %q: want None (2-D) or XZYW (the 3-D and 4-D dma_transpose)", op)
		return
	}
	if len(ins) != 1 || len(outs) != 1 {
		return
	}
	s, d := &ins[0], &outs[0]
	// The reference: "src.dtype == dst.dtype". Its 2-byte constraint is
	// listed under the DGE modes' constraints; the interpreter's semantics
	// cover 2-byte dtypes (semantics.md §4.8), and a 4-byte transpose
	// still compiles (passes/sbsize's issue case).
	if s.isAP && d.isAP && s.dtype != d.dtype {
		c.instDiag(i, "operand-dtype", "%s is %s, %s is %s: want the same dtype (the DMA transpose)", c.label(s), s.dtype, c.label(d), d.dtype)
	}
	if !s.hasPF || !d.hasPF {
		return
	}
	sp, dp := c.m.Pattern(s.pat), c.m.Pattern(d.pat)
	var perm []int
	switch {
	case op == "None" && len(sp) == 2:
		perm = []int{1, 0}
	case op == "XZYW" && len(sp) == 3:
		perm = []int{2, 1, 0}
	case op == "XZYW" && len(sp) == 4:
		perm = []int{3, 1, 2, 0}
	default:
		c.instDiag(i, "elem-count", "%s has %d dims: transpose_op %s transposes %s", c.label(s), len(sp), op, map[string]string{"None": "2", "XZYW": "3 or 4"}[op])
		return
	}
	good := len(dp) == len(perm)
	for k := 0; good && k < len(perm); k++ {
		good = dp[k].Num == sp[perm[k]].Num
	}
	if !good {
		c.instDiag(i, "elem-count", "%s has pattern %s: want the source's %s permuted by axes %v", c.label(d), patternText(dp), patternText(sp), perm)
	}
}

// activate2Combos are activate2's (op0, op1) pairs (the reference's six).
var activate2Combos = map[[2]string]bool{
	{"mult", "add"}: true, {"mult", "subtract"}: true, {"mult", "bypass"}: true,
	{"add", "bypass"}: true, {"subtract", "bypass"}: true, {"bypass", "bypass"}: true,
}

// activate2 checks Activation with is_activate2: NC-v4, ins [data, imm0,
// imm1] with [P,1] or immediate scalars, one of the six (op0, op1) pairs,
// reduce_op add/max/min (abs_max and abs_min have no formula in the
// reference), reduce commands idle, reset, reduce, reset_reduce.
func (c *checker) activate2(i bir.InstID, attrs bir.AttrSet, ins, outs []opnd) {
	const what = "activate2"
	c.ncVersion(i, arch.LevelTrn3, what, "NeuronCore-v4")
	if k := [2]string{attrs.Str("op0", "bypass"), attrs.Str("op1", "bypass")}; !activate2Combos[k] {
		c.instDiag(i, "attr", "(op0, op1) = (%s, %s): want (mult, add), (mult, subtract), (mult, bypass), (add, bypass), (subtract, bypass) or (bypass, bypass)", k[0], k[1])
	}
	raw := attrs.Str("acc", "Idle")
	if cmd, ok := bir.ReduceCmd(raw); !ok || cmd == "LoadAccumulate" {
		c.instDiag(i, "attr", "acc %q: want Idle, Zero, Accumulate or ZeroAccumulate (activate2's reduce commands)", raw)
	}
	if r := attrs.Str("reduce_op", "add"); r != "add" && r != "max" && r != "min" {
		c.instDiag(i, "attr", "reduce_op %q: want add, max or min (the reference gives abs_max and abs_min no formula)", r)
	}
	if len(ins) != 3 {
		c.instDiag(i, "arity", "%d sources: want [data, imm0, imm1] (activate2)", len(ins))
		return
	}
	c.lockstep(i, ins[:1], outs, 1)
	c.scalars(i, ins, outs)
}
