package verify

import (
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestISA_ValidAccumulatorAndGatherForms: the Builder's forms of the
// Vector accumulator instructions, the gathers, the stream shuffle,
// sequence_bounds, nonzero_with_count and the DMA transposes verify at
// every stage they can reach before allocation (trn3: exponential needs
// NC-v4).
func TestISA_ValidAccumulatorAndGatherForms(t *testing.T) {
	_, b := newB("trn3")
	x, s := b.SBUF("x", f32, 128, 64), b.SBUF("s", f32, 128, 1)
	d, r := b.SBUF("d", f32, 128, 64), b.SBUF("r", f32, 128, 1)
	p := b.SBUF("p", bir.Uint8, 128, 64)
	b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r.All(), "reset_reduce", bir.Operand{})
	b.TensorScalarReduce("tsr_load", d.All(), x.All(), bir.Imm(2), "add", false, "max", r.All(), "load_reduce", s.All())
	b.TensorScalarCumulative("cum", d.All(), x.All(), "add", bir.Imm(0), "add", bir.Operand{}, "reduce", false)
	b.TensorScalarCumulative("cum_load", d.All(), x.All(), "mult", s.All(), "max", s.All(), "load_reduce", true)
	b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", s.All(), bir.Imm(32), "reset_reduce", r.All(), "max", 0, -math.MaxFloat32)
	b.SelectReduce("sr", d.All(), p.All(), x.All(), s.All(), r.All(), "reset_reduce", "max", true)
	b.SelectReduce("sr_idle", d.All(), p.All(), x.All(), bir.Imm(0), bir.Operand{}, "idle", "max", false)
	b.Exponential("exp", d.All(), x.All(), s.All(), r.All(), "load_reduce", 1)
	src, idx, g := b.SBUF("src", bf16, 128, 512), b.SBUF("idx", bir.Uint16, 128, 4), b.SBUF("g", bf16, 128, 128)
	b.LocalGather("lg", g.All(), src.All(), idx.All(), 2, 64)
	ix32, g2 := b.SBUF("ix32", bir.Uint32, 128, 16), b.SBUF("g2", bf16, 128, 16)
	b.NGather("ng", g2.All(), src.All(), ix32.All())
	mask := make([]int64, 32)
	for k := range mask {
		mask[k] = int64((k + 1) % 32)
	}
	mask[7] = 255
	b.StreamShuffle("sh", d.All(), x.All(), mask)
	seg, bounds := b.SBUF("seg", bir.Int32, 1, 64), b.SBUF("bounds", bir.Int32, 1, 2, 64)
	b.SequenceBounds("sq", bounds.All(), seg.All())
	nz := b.SBUF("nz", bir.Int32, 128, 65)
	b.NonzeroWithCount("nzc", nz.All(), x.All(), 0, -1)
	h3, t3 := b.DRAM("h3", bf16, 4, 8, 16), b.SBUF("t3", bf16, 16, 8, 4)
	b.DMATranspose("dt3", t3.All(), h3.All(), 3)
	h4, t4 := b.DRAM("h4", bf16, 2, 3, 4, 16), b.SBUF("t4", bf16, 16, 3, 4, 2)
	b.DMATranspose("dt4", t4.All(), h4.All(), 4)
	m := must(t, b)
	if err := Module(m, Options{Stage: StageEnginesAssigned}); err != nil {
		t.Fatal(err)
	}
}

func init() {
	acc := func(b *bir.Builder) (x, s, d, r bir.T) {
		return b.SBUF("x", f32, 128, 64), b.SBUF("s", f32, 128, 1), b.SBUF("d", f32, 128, 64), b.SBUF("r", f32, 128, 1)
	}
	extraISACases = append(extraISACases,
		ruleCase{name: "tensor_scalar_reduce idle", rule: "attr", msg: "want one of ZeroAccumulate, Accumulate, LoadAccumulate (tensor_scalar_reduce)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			i := b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r.All(), "reset_reduce", bir.Operand{})
			b.F.SetAttr(i, "acc", bir.String("Zero"))
			return must(t, b)
		}},
		ruleCase{name: "tensor_scalar_reduce averaging", rule: "attr", msg: `reduce_op "average"`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "average", r.All(), "reset_reduce", bir.Operand{})
			return must(t, b)
		}},
		ruleCase{name: "tensor_scalar_reduce with op1", rule: "attr", msg: "want bypass", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			i := b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r.All(), "reset_reduce", bir.Operand{})
			b.F.SetAttr(i, "op1", bir.String("add"))
			return must(t, b)
		}},
		ruleCase{name: "tensor_scalar_reduce reduce_init without load_reduce", rule: "arity", msg: "with load_reduce and only with it", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r.All(), "reduce", bir.Imm(1))
			return must(t, b)
		}},
		ruleCase{name: "readout of two columns", rule: "elem-count", msg: "one accumulator value per row", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, _ := acc(b)
			r2 := b.SBUF("r2", f32, 128, 2)
			b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r2.All(), "reset_reduce", bir.Operand{})
			return must(t, b)
		}},
		ruleCase{name: "integer readout", rule: "operand-dtype", msg: "want a float dtype (the accumulator is fp32)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, _ := acc(b)
			ri := b.SBUF("ri", bir.Int32, 128, 1)
			b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", ri.All(), "reset_reduce", bir.Operand{})
			return must(t, b)
		}},
		ruleCase{name: "tensor_scalar_reduce on GpSimd", rule: "engine", msg: "want DVE (tensor_scalar_reduce runs there)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			i := b.TensorScalarReduce("tsr", d.All(), x.All(), s.All(), "mult", false, "add", r.All(), "reset_reduce", bir.Operand{})
			b.F.Inst(i).Engine = bir.EngPool
			return must(t, b)
		}},
		ruleCase{name: "cumulative of int32", rule: "operand-dtype", msg: "other than int32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, d := b.SBUF("x", bir.Int32, 128, 64), b.SBUF("d", bir.Int32, 128, 64)
			b.TensorScalarCumulative("cum", d.All(), x.All(), "add", bir.Imm(0), "add", bir.Operand{}, "reset_reduce", false)
			return must(t, b)
		}},
		ruleCase{name: "cumulative divide", rule: "attr", msg: `op1 "divide"`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, _, d, _ := acc(b)
			b.TensorScalarCumulative("cum", d.All(), x.All(), "add", bir.Imm(0), "divide", bir.Operand{}, "reset_reduce", false)
			return must(t, b)
		}},
		ruleCase{name: "range_select on NC-v2", rule: "nc-version", msg: "range_select runs on NeuronCore-v3 and newer", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn1")
			x, s, d, r := acc(b)
			b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", s.All(), s.All(), "reset_reduce", r.All(), "max", 0, -math.MaxFloat32)
			return must(t, b)
		}},
		ruleCase{name: "range_select fill 0", rule: "attr", msg: "want FP32_MIN", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", s.All(), s.All(), "reset_reduce", r.All(), "max", 0, 0)
			return must(t, b)
		}},
		ruleCase{name: "range_select summing", rule: "attr", msg: "want max (the reductions of range_select)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", s.All(), s.All(), "reset_reduce", r.All(), "add", 0, -math.MaxFloat32)
			return must(t, b)
		}},
		ruleCase{name: "range_select readout after idle", rule: "attr", msg: "undefined after an idle command", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", s.All(), s.All(), "idle", r.All(), "max", 0, -math.MaxFloat32)
			return must(t, b)
		}},
		ruleCase{name: "range_select bf16 bound", rule: "operand-dtype", msg: "want float32 bounds", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, _, d, r := acc(b)
			sb := b.SBUF("sb", bf16, 128, 1)
			b.RangeSelect("rs", d.All(), x.All(), "is_ge", "is_lt", sb.All(), bir.Imm(3), "reset_reduce", r.All(), "max", 0, -math.MaxFloat32)
			return must(t, b)
		}},
		ruleCase{name: "select_reduce with a uint32 predicate", rule: "operand-dtype", msg: "want int8, uint8, int16 or uint16", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			p := b.SBUF("p", bir.Uint32, 128, 64)
			b.SelectReduce("sr", d.All(), p.All(), x.All(), s.All(), r.All(), "reset_reduce", "max", false)
			return must(t, b)
		}},
		ruleCase{name: "select_reduce on_false of two columns", rule: "elem-count", msg: "on_false is a scalar or one value per partition", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, _, d, r := acc(b)
			p, f2 := b.SBUF("p", bir.Uint8, 128, 64), b.SBUF("f2", f32, 128, 2)
			b.SelectReduce("sr", d.All(), p.All(), x.All(), f2.All(), r.All(), "reset_reduce", "max", false)
			return must(t, b)
		}},
		ruleCase{name: "select_reduce inputs both in PSUM", rule: "tt-psum", msg: "both in PSUM", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			_, s, d, r := acc(b)
			x, p := b.PSUM("xp", f32, 128, 64), b.PSUM("pp", bir.Uint16, 128, 64)
			b.SelectReduce("sr", d.All(), p.All(), x.All(), s.All(), r.All(), "reset_reduce", "max", false)
			return must(t, b)
		}},
		ruleCase{name: "CopyPredicated of three sources without acc", rule: "arity", msg: "select_reduce's three sources need the acc attribute", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, _ := acc(b)
			p := b.SBUF("p", bir.Uint8, 128, 64)
			b.Inst(bir.OpCopyPredicated, "cp3", bir.EngDVE, []bir.Operand{x.All(), p.All(), s.All()}, []bir.Operand{d.All()}, nil)
			return must(t, b)
		}},
		ruleCase{name: "exponential on NC-v3", rule: "nc-version", msg: "exponential runs on NeuronCore-v4", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d, r := acc(b)
			b.Exponential("exp", d.All(), x.All(), s.All(), r.All(), "reset_reduce", 0)
			return must(t, b)
		}},
		ruleCase{name: "local_gather int32 indices", rule: "operand-dtype", msg: "want uint16", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", bf16, 128, 64), b.SBUF("idx", bir.Int32, 128, 1), b.SBUF("g", bf16, 128, 16)
			b.LocalGather("lg", g.All(), src.All(), idx.All(), 1, 16)
			return must(t, b)
		}},
		ruleCase{name: "local_gather of 3 elements per index", rule: "elem-count", msg: "num_elem_per_idx (1, 2, 4, 8, 16 or 32)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", bf16, 128, 64), b.SBUF("idx", bir.Uint16, 128, 1), b.SBUF("g", bf16, 128, 48)
			b.LocalGather("lg", g.All(), src.All(), idx.All(), 3, 16)
			return must(t, b)
		}},
		ruleCase{name: "local_gather on 8 partitions", rule: "elem-count", msg: "a multiple of 16", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", bf16, 8, 64), b.SBUF("idx", bir.Uint16, 8, 1), b.SBUF("g", bf16, 8, 8)
			b.LocalGather("lg", g.All(), src.All(), idx.All(), 1, 8)
			return must(t, b)
		}},
		ruleCase{name: "local_gather too many valid indices", rule: "attr", msg: "num_valid_indices 32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", bf16, 128, 64), b.SBUF("idx", bir.Uint16, 128, 1), b.SBUF("g", bf16, 128, 32)
			b.LocalGather("lg", g.All(), src.All(), idx.All(), 1, 32)
			return must(t, b)
		}},
		ruleCase{name: "local_gather on the Vector engine", rule: "engine", msg: "engine DVE: want one of", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", bf16, 128, 64), b.SBUF("idx", bir.Uint16, 128, 1), b.SBUF("g", bf16, 128, 16)
			i := b.LocalGather("lg", g.All(), src.All(), idx.All(), 1, 16)
			b.F.Inst(i).Engine = bir.EngDVE
			return must(t, b)
		}},
		ruleCase{name: "nc_n_gather uint16 indices", rule: "operand-dtype", msg: "want uint32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", f32, 128, 64), b.SBUF("idx", bir.Uint16, 128, 8), b.SBUF("g", f32, 128, 8)
			b.NGather("ng", g.All(), src.All(), idx.All())
			return must(t, b)
		}},
		ruleCase{name: "nc_n_gather more outputs than indices", rule: "elem-count", msg: "one destination element per index", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			src, idx, g := b.SBUF("src", f32, 128, 64), b.SBUF("idx", bir.Uint32, 128, 8), b.SBUF("g", f32, 128, 16)
			b.NGather("ng", g.All(), src.All(), idx.All())
			return must(t, b)
		}},
		ruleCase{name: "stream shuffle mask of 16", rule: "attr", msg: "want 32 partition indices", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, _, d, _ := acc(b)
			b.StreamShuffle("sh", d.All(), x.All(), make([]int64, 16))
			return must(t, b)
		}},
		ruleCase{name: "stream shuffle across dtypes", rule: "operand-dtype", msg: "want the same dtype", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, d := b.SBUF("x", f32, 32, 8), b.SBUF("d", bf16, 32, 8)
			b.StreamShuffle("sh", d.All(), x.All(), make([]int64, 32))
			return must(t, b)
		}},
		ruleCase{name: "sequence_bounds on two partitions", rule: "elem-count", msg: "want segment ids [1 partition x n]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", bir.Int32, 2, 8), b.SBUF("d", bir.Int32, 2, 16)
			b.SequenceBounds("sq", d.All(), s.All())
			return must(t, b)
		}},
		ruleCase{name: "sequence_bounds of int16", rule: "operand-dtype", msg: "want float32 or int32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", bir.Int16, 1, 8), b.SBUF("d", bir.Int32, 1, 16)
			b.SequenceBounds("sq", d.All(), s.All())
			return must(t, b)
		}},
		ruleCase{name: "nonzero_with_count into float", rule: "operand-dtype", msg: "want int32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s, d := b.SBUF("s", f32, 16, 8), b.SBUF("d", f32, 16, 9)
			b.NonzeroWithCount("nz", d.All(), s.All(), 0, -1)
			return must(t, b)
		}},
		ruleCase{name: "nonzero_with_count on NC-v2", rule: "nc-version", msg: "NeuronCore-v3", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn1")
			s, d := b.SBUF("s", f32, 16, 8), b.SBUF("d", bir.Int32, 16, 9)
			b.NonzeroWithCount("nz", d.All(), s.All(), 0, -1)
			return must(t, b)
		}},
		ruleCase{name: "4-D DMA transpose of the wrong shape", rule: "elem-count", msg: "permuted by axes [3 1 2 0]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			h, d := b.DRAM("h", bf16, 2, 3, 4, 16), b.SBUF("d", bf16, 16, 4, 3, 2)
			b.DMATranspose("dt", d.All(), h.All(), 4)
			return must(t, b)
		}},
		ruleCase{name: "DMA transpose WXZY", rule: "attr", msg: `transpose_op "WXZY"`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			h, d := b.DRAM("h", bf16, 2, 3, 4, 16), b.SBUF("d", bf16, 16, 3, 4, 2)
			i := b.DMATranspose("dt", d.All(), h.All(), 4)
			b.F.SetAttr(i, "transpose_op", bir.String("WXZY"))
			return must(t, b)
		}},
	)
}

func init() {
	act := func(b *bir.Builder) (x, s, d bir.T) {
		return b.SBUF("x", f32, 128, 64), b.SBUF("s", f32, 128, 1), b.SBUF("d", f32, 128, 64)
	}
	extraISACases = append(extraISACases,
		ruleCase{name: "activate2 on NC-v3", rule: "nc-version", msg: "activate2 runs on NeuronCore-v4", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x, s, d := act(b)
			b.Activate2("a2", "Gelu", d.All(), x.All(), s.All(), bir.Imm(0.5), "mult", "add", 0, false, false, "add", bir.Operand{}, "idle")
			return must(t, b)
		}},
		ruleCase{name: "activate2 add then add", rule: "attr", msg: "(op0, op1) = (add, add)", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn3")
			x, s, d := act(b)
			b.Activate2("a2", "Gelu", d.All(), x.All(), s.All(), bir.Imm(0.5), "add", "add", 0, false, false, "add", bir.Operand{}, "idle")
			return must(t, b)
		}},
		ruleCase{name: "activate2 abs_max", rule: "attr", msg: "no formula", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn3")
			x, s, d := act(b)
			b.Activate2("a2", "Gelu", d.All(), x.All(), s.All(), bir.Imm(0.5), "mult", "add", 0, false, false, "abs_max", bir.Operand{}, "reset_reduce")
			return must(t, b)
		}},
	)
}

func init() {
	extraISACases = append(extraISACases,
		ruleCase{name: "immediate activation bias on NC-v2", rule: "nc-version", msg: "an immediate Activation bias runs on NeuronCore-v3", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn1")
			x, d := b.SBUF("x", f32, 128, 64), b.SBUF("d", f32, 128, 64)
			b.ActivationISA("act", "Exp", d.All(), x.All(), bir.Imm(-1), bir.Imm(2), "add", bir.Operand{}, "idle")
			return must(t, b)
		}},
	)
}
