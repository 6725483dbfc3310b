package verify

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// isaRuleCases are TestRules cases for the variants of bir/isa.go: each
// breaks one rule of verify/isa.go and must be caught by it (and by no
// other rule).
func isaRuleCases() []ruleCase {
	return append(baseISACases(), extraISACases...)
}

// extraISACases are appended by the files' init functions.
var extraISACases []ruleCase

func baseISACases() []ruleCase {
	scanOperands := func(b *bir.Builder) (bir.T, bir.T, bir.T, bir.T) {
		return b.SBUF("a", f32, 128, 64), b.SBUF("c", f32, 128, 64), b.SBUF("s0", f32, 128, 1), b.SBUF("d", f32, 128, 64)
	}
	return []ruleCase{
		{name: "tensor_tensor_scan on the Scalar engine", rule: "engine", msg: "engine Activation: want DVE (tensor_tensor_scan runs there)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, c, s0, d := scanOperands(b)
			i := b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s0.All(), "mult", "add", false, false)
			b.F.Inst(i).Engine = bir.EngAct
			return must(t, b)
		}},
		{name: "scan with a bit-vector op", rule: "attr", msg: "op0 bitwise_and: want an arithmetic AluOp", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, c, s0, d := scanOperands(b)
			b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s0.All(), "bitwise_and", "add", false, false)
			return must(t, b)
		}},
		{name: "scan and scalar_tensor_tensor flags together", rule: "attr", msg: "both set", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, c, s0, d := scanOperands(b)
			i := b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s0.All(), "mult", "add", false, false)
			b.F.SetAttr(i, bir.AttrScalarTensorTensor, bir.Bool(true))
			return must(t, b)
		}},
		{name: "scan without data1", rule: "arity", msg: "want 3 sources [data, initial, data1]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, _, s0, d := scanOperands(b)
			b.Inst(bir.OpTensorScalarPtr, "scan", bir.EngDVE, []bir.Operand{a.All(), s0.All()}, []bir.Operand{d.All()},
				bir.Attrs("op0", "add", "reverse0", false, "op1", "add", "reverse1", false, bir.AttrTensorTensorScan, true))
			return must(t, b)
		}},
		{name: "scan data1 of another shape", rule: "elem-count", msg: "want equal partitions and elements per partition", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, _, s0, d := scanOperands(b)
			c := b.SBUF("c2", f32, 128, 32)
			b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s0.All(), "mult", "add", false, false)
			return must(t, b)
		}},
		{name: "scan initial of two elements per partition", rule: "elem-count", msg: "a per-partition scalar", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			a, c, _, d := scanOperands(b)
			s2 := b.SBUF("s2", f32, 128, 2)
			b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s2.All(), "mult", "add", false, false)
			return must(t, b)
		}},
		{name: "scan data inputs both in PSUM", rule: "tt-psum", msg: "both data inputs are in PSUM", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			_, _, s0, d := scanOperands(b)
			p := b.PSUM("p", f32, 128, 64)
			q := b.PSUM("q", f32, 128, 64)
			b.TensorTensorScan("scan", d.All(), p.All(), q.All(), s0.All(), "mult", "add", false, false)
			return must(t, b)
		}},
		{name: "tensor_partition_reduce on the Vector engine", rule: "engine", msg: "engine DVE: want Pool (tensor_partition_reduce runs there)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 8)
			d := b.SBUF("d", f32, 1, 8)
			i := b.TensorPartitionReduce("pr", "add", d.All(), s.All())
			b.F.Inst(i).Engine = bir.EngDVE
			return must(t, b)
		}},
		{name: "partition reduce with min", rule: "attr", msg: `op "min": want add, max`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 8)
			d := b.SBUF("d", f32, 1, 8)
			b.TensorPartitionReduce("pr", "min", d.All(), s.All())
			return must(t, b)
		}},
		{name: "partition reduce into two partitions", rule: "elem-count", msg: "want the destination [1 partitions x 8]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 8)
			d := b.SBUF("d", f32, 2, 8)
			b.TensorPartitionReduce("pr", "max", d.All(), s.All())
			return must(t, b)
		}},
		{name: "unassigned partition reduce reading PSUM", rule: "gpsimd-psum", msg: "tensor_partition_reduce runs only on GpSimd", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			p := b.PSUM("p", f32, 128, 8)
			d := b.SBUF("d", f32, 1, 8)
			i := b.TensorPartitionReduce("pr", "add", d.All(), p.All())
			b.F.Inst(i).Engine = bir.EngUnassigned
			return must(t, b)
		}},
	}
}

// TestISA_ValidInstructionsVerify: the Builder's forms of each variant
// verify at every stage they can reach before allocation.
func TestISA_ValidInstructionsVerify(t *testing.T) {
	_, b := newB("trn2")
	a := b.SBUF("a", f32, 128, 64)
	c := b.PSUM("c", f32, 128, 64)
	s0 := b.SBUF("s0", f32, 128, 1)
	d := b.SBUF("d", f32, 128, 64)
	r := b.SBUF("r", f32, 1, 64)
	b.TensorTensorScan("scan", d.All(), a.All(), c.All(), s0.All(), "mult", "add", false, true)
	b.TensorTensorScan("scan_imm", d.All(), a.All(), a.All(), bir.Imm(0), "add", "add", false, false)
	b.TensorPartitionReduce("pr", "max", r.All(), a.All())
	m := must(t, b)
	if err := Module(m, Options{Stage: StageEnginesAssigned}); err != nil {
		t.Fatal(err)
	}
}

// copyPredicatedCases: tensor_copy_predicated's dtype rules, and the
// bitwise partition reduce's integer operands.
func init() {
	extraISACases = append(extraISACases,
		ruleCase{name: "predicate of a float dtype", rule: "operand-dtype", msg: "want uint8, uint16 or uint32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, p, d := b.SBUF("s", f32, 128, 16), b.SBUF("p", f32, 128, 16), b.SBUF("d", f32, 128, 16)
			b.TensorCopyPredicated("cp", d.All(), s.All(), p.All(), false)
			return must(t, b)
		}},
		ruleCase{name: "predicated copy across dtypes", rule: "operand-dtype", msg: "want the same dtype", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, p, d := b.SBUF("s", bf16, 128, 16), b.SBUF("p", bir.Uint8, 128, 16), b.SBUF("d", f32, 128, 16)
			b.TensorCopyPredicated("cp", d.All(), s.All(), p.All(), false)
			return must(t, b)
		}},
		ruleCase{name: "bitwise partition reduce of floats", rule: "operand-dtype", msg: "want an integer dtype", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", f32, 128, 8), b.SBUF("d", f32, 1, 8)
			b.TensorPartitionReduce("pr", "bitwise_or", d.All(), s.All())
			return must(t, b)
		}},
	)
}

func init() {
	extraISACases = append(extraISACases,
		ruleCase{name: "max8 of 4 elements", rule: "elem-count", msg: "want 8 to 16384 elements per partition", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", f32, 128, 4), b.SBUF("d", f32, 128, 8)
			b.Max8("max8", d.All(), s.All())
			return must(t, b)
		}},
		ruleCase{name: "max8 into 16 elements", rule: "elem-count", msg: "want [128 partitions x 8]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", f32, 128, 64), b.SBUF("d", f32, 128, 16)
			b.Max8("max8", d.All(), s.All())
			return must(t, b)
		}},
		ruleCase{name: "find_index8 into floats", rule: "operand-dtype", msg: "want uint16 or uint32 indices", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, v, d := b.SBUF("s", f32, 128, 64), b.SBUF("v", f32, 128, 8), b.SBUF("d", f32, 128, 8)
			b.FindIndex8("find", d.All(), s.All(), v.All())
			return must(t, b)
		}},
		ruleCase{name: "match_replace8 without imm_value", rule: "attr", msg: "imm_value missing", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, v, d := b.SBUF("s", f32, 128, 64), b.SBUF("v", f32, 128, 8), b.SBUF("d", f32, 128, 64)
			i := b.MatchReplace8("mr", d.All(), s.All(), v.All(), 0, bir.Operand{})
			b.F.SetAttrs(i, bir.Attrs())
			return must(t, b)
		}},
		ruleCase{name: "max8 on GpSimd", rule: "engine", msg: "engine Pool: want one of", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", f32, 128, 64), b.SBUF("d", f32, 128, 8)
			i := b.Max8("max8", d.All(), s.All())
			b.F.Inst(i).Engine = bir.EngPool
			return must(t, b)
		}},
		ruleCase{name: "scalar_tensor_tensor on GpSimd", rule: "engine", msg: "want DVE (scalar_tensor_tensor runs there)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, v, d := b.SBUF("s", f32, 128, 64), b.SBUF("v", f32, 128, 64), b.SBUF("d", f32, 128, 64)
			i := b.ScalarTensorTensor("stt", d.All(), s.All(), bir.Imm(1), v.All(), "add", "mult", false, false)
			b.F.Inst(i).Engine = bir.EngPool
			return must(t, b)
		}},
	)
}
