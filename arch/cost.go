// The cost model of hardware.md ("Cost model"), as a function of an
// instruction class, its size, dtype and engine. The rows, in engine
// cycles (N = elements per partition of the instruction's output):
//
//	matmul (fp8/bf16/fp16/tf32)         max(min(64, N_stationary), N_moving); x4 for fp32
//	transpose on PE                     max(P, min(64, F))
//	activation, tensor_scalar,
//	tensor_copy (one input, DVE/ACT)    max(MIN_II, N)
//	tensor_tensor                       max(MIN_II, 2N); max(MIN_II, N) when one input
//	                                    is in PSUM or all bf16 contiguous add/mul/sub
//	tensor_reduce                       N (N/2 for bf16 add/max)
//	memset                              N/2 for a bf16 zero fill, else N [inferred]
//	iota (GpSimd)                       150 + N
//	any GpSimd instruction              GPSIMD_START + N [inferred]
//	DMA                                 fixed (about 2 us; hardware DGE about 600 ns on
//	                                    NC-v3) + bytes / queue bandwidth
//
// Decisions where hardware.md is silent:
//   - An instruction on GpSimd costs GPSIMD_START + N whatever its class
//     (the "any GpSimd instruction" row), which also gives iota's 150 + N.
//   - Odd halvings round up (N/2 of 7 elements is 4 cycles).
//   - "x4 for fp32" applies to float32 matmul inputs; float32r (tf32) is
//     in the un-multiplied list.
//   - DMA bandwidth below DMAFullBandwidthBytes per partition falls
//     linearly with the bytes per partition, floored at 1/8 of full
//     bandwidth: small transfers are dominated by the fixed cost, and the
//     floor keeps a tiny transfer from being priced as a huge one. The
//     floor is narwhal's choice, not a published figure.
//   - StaticOverhead and AccessOverhead are not part of the rows; set
//     Work.Overheads to add both (the scheduler decides whether its
//     engine timelines already account for them).
//   - DMA has no engine clock: its Estimate has Cycles 0 and only Ns.
//   - DMA bytes follow ProfileBasedDMALatencyModel.get_max_partitions_per_sdma
//     (seed 002 §1 NOTE and §3 QUIRK: "the SDMA that stages its inputs
//     rounds the active-partition count up to a multiple of 32
//     (ceil(max(src,dst)/32)*32)"): a DMA with an on-chip side of P
//     partitions moves BytesPerPartition x MaxPartitionsPerSDMA(P) bytes
//     through its queue (Work.Partitions; 0 = no on-chip side, Bytes as
//     given).
//
// The instruction-level table (InstructionWork, InstructionCost) maps one
// instruction of a function onto a Work, so the scheduler, its report and
// its lower bound price instructions from this one place:
//
//	opcode (engine)                      class          sizes read from the operands
//	Matmult family (PE)                  matmul         N = moving free size, N_stationary =
//	                                                    stationary free size, dtype = moving's
//	Transpose (PE)                       pe-transpose   P, F = the source's partitions and free size
//	Activation, TensorScalar(Ptr),
//	TensorCopy, Reciprocal, Transpose
//	(DVE), CopyPredicated,
//	TensorScalarAffineSelect             one-input      N = destination elements per partition
//	TensorTensor                         tensor-tensor  N as above; OneInputInPSUM when an input is
//	                                                    in PSUM; FastBF16 when every operand is bf16
//	                                                    with a unit innermost step and op is
//	                                                    add/mult/subtract
//	TensorScalarPtr tensor_tensor_scan   tensor-tensor  as TensorTensor: it streams two whole tensors
//	(DVE), scalar_tensor_tensor (DVE)                   (data, data1) per element [inferred for the
//	                                                    scan; the NKI reference says of
//	                                                    scalar_tensor_tensor "approximately the same
//	                                                    latency as a regular tensor_tensor"]
//	Max, MaxIndex, MatchReplace (DVE)    tensor-reduce  max8, nc_find_index8, nc_match_replace8: N = the
//	                                                    searched source's elements per partition
//	                                                    [inferred: one pass over the data, as a reduction]
//	TensorReduce axis C                  gpsimd         tensor_partition_reduce (GpSimd only):
//	(tensor_partition_reduce)                           GPSIMD_START + N, N = the destination's
//	                                                    elements per partition (the "any GpSimd
//	                                                    instruction" row)
//	TensorScalarPtr tensor_scalar_reduce one-input      as tensor_scalar: the NKI reference's "at a small
//	(DVE)                                               additional performance cost" is not priced
//	CopyPredicated select_reduce (DVE)   tensor-tensor  on_true and predicate stream per element [inferred]
//	TensorScalarCache, RangeSelect,      one-input      tensor_scalar_cumulative, range_select,
//	Exponential, StreamShuffle (DVE)                    exponential, nc_stream_shuffle: one streamed
//	                                                    input, N = dst elements per partition [inferred]
//	Gather, IndirectCopy,                gpsimd         nc_n_gather, local_gather, sequence_bounds,
//	GetSequenceBounds, NonzeroWithCount                 nonzero_with_count: GpSimd only, the "any GpSimd
//	                                                    instruction" row, N = dst elements per partition
//	TensorReduce                         tensor-reduce  N = source elements per partition (the work
//	                                                    is the reduction's input); FastBF16 for a bf16
//	                                                    add/max
//	Memset                               memset         FastBF16 for a bf16 zero fill
//	Iota and anything on GpSimd          iota / gpsimd  GPSIMD_START + N
//	every DMA opcode                     dma            Bytes = the larger of the bytes read (all
//	                                                    sources: a CCE copy streams each) and written;
//	                                                    Partitions = the on-chip side's partitions;
//	                                                    BytesPerPartition = Bytes / Partitions
//
// Every priced compute instruction pays StaticOverhead + AccessOverhead on
// top of its row (Overheads: hardware.md's "static instruction overhead
// about 100 cycles; SBUF/PSUM access overhead about 60 cycles"): narwhal's
// engine timelines are busy-time timelines, so an instruction occupies its
// engine for its row plus its fixed cost. Instructions the table does not
// price (register moves, semaphores, barriers, no-ops, calls) cost
// StaticOverhead cycles on their engine, or nothing when they have none
// (a call's cost is its callee's schedule, which the scheduler supplies).

package arch

import (
	"fmt"
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Class is an instruction class of the cost model.
type Class uint8

const (
	ClassMatmul       Class = iota // Matmult family on PE
	ClassPETranspose               // Transpose on PE
	ClassOneInput                  // activation, tensor_scalar, tensor_copy on DVE/ACT
	ClassTensorTensor              // tensor_tensor
	ClassTensorReduce              // tensor_reduce
	ClassMemset                    // memset
	ClassIota                      // iota (GpSimd)
	ClassGpSimd                    // any other GpSimd instruction
	ClassDMA                       // a DMA transfer
	NumClasses
)

var classNames = [NumClasses]string{"matmul", "pe-transpose", "one-input", "tensor-tensor", "tensor-reduce", "memset", "iota", "gpsimd", "dma"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ClassFor maps an opcode on an engine to its cost class; ok is false for
// opcodes the table does not price (control flow, semaphores, calls).
func ClassFor(op bir.Opcode, eng bir.Engine) (c Class, ok bool) {
	info := op.Info()
	switch {
	case info.Has(bir.FlagDMA):
		return ClassDMA, true
	case op.IsMatmul():
		return ClassMatmul, true
	case op == bir.OpTranspose && eng == bir.EngPE:
		return ClassPETranspose, true
	case eng == bir.EngPool && (info.Has(bir.FlagComputes) || info.Has(bir.FlagMovesData)):
		if op == bir.OpIota {
			return ClassIota, true
		}
		return ClassGpSimd, true
	}
	switch op {
	case bir.OpActivation, bir.OpTensorScalar, bir.OpTensorScalarPtr, bir.OpTensorCopy,
		bir.OpReciprocal, bir.OpTranspose, bir.OpCopyPredicated, bir.OpTensorScalarAffineSelect:
		return ClassOneInput, true
	case bir.OpTensorTensor:
		return ClassTensorTensor, true
	case bir.OpTensorReduce:
		return ClassTensorReduce, true
	case bir.OpMax, bir.OpMaxIndex, bir.OpMatchReplace:
		return ClassTensorReduce, true // max8 family: one pass over the searched data [inferred]
	case bir.OpTensorScalarCache, bir.OpRangeSelect, bir.OpExponential, bir.OpStreamShuffle:
		return ClassOneInput, true // one streamed input [inferred]
	case bir.OpGather, bir.OpIndirectCopy, bir.OpGetSequenceBounds, bir.OpNonzeroWithCount:
		return ClassGpSimd, true // GpSimd only: priced on Pool even before engine assignment
	case bir.OpMemset:
		return ClassMemset, true
	case bir.OpIota:
		return ClassIota, true
	}
	return 0, false
}

// Work describes one instruction for the cost model.
type Work struct {
	Class  Class
	Engine bir.Engine // the engine whose clock converts cycles to ns
	Dtype  bir.Dtype  // input dtype (matmul: fp32 costs x4)

	N           int64 // elements per partition of the output (matmul: N_moving)
	NStationary int64 // matmul: free size of the stationary operand
	P           int64 // PE transpose: partitions of the input
	F           int64 // PE transpose: free size of the input

	// OneInputInPSUM: a tensor_tensor with one input in PSUM.
	OneInputInPSUM bool
	// FastBF16: tensor_tensor whose operands are all bf16, contiguous, with
	// op add/mult/subtract; tensor_reduce bf16 add/max; memset bf16 zero fill.
	FastBF16 bool

	Bytes             int64 // DMA: bytes moved
	BytesPerPartition int64 // DMA: contiguous bytes per partition (0: assume full bandwidth)
	Partitions        int64 // DMA: partitions of the on-chip side (0: none; see MaxPartitionsPerSDMA)
	HWDGE             bool  // DMA issued through a hardware DGE (NC-v3)

	Overheads bool // add StaticOverhead + AccessOverhead cycles
}

// Estimate is the cost of one instruction.
type Estimate struct {
	Cycles int64   // engine cycles (0 for DMA)
	Ns     float64 // time in ns
}

func halfUp(n int64) int64 { return (n + 1) / 2 }

// Cycles returns the table's cycles for w, ignoring the engine clock.
// Negative sizes count as 0. DMA returns 0.
func (m *Model) Cycles(w Work) int64 {
	n := max(w.N, 0)
	c := &m.Cost
	var cy int64
	switch {
	case w.Class == ClassDMA:
		return 0
	case w.Engine == bir.EngPool:
		cy = c.GpSimdStart + n
	default:
		switch w.Class {
		case ClassMatmul:
			cy = max(min(c.MatmulStationaryMin, max(w.NStationary, 0)), n)
			if w.Dtype == bir.Float32 {
				cy *= c.MatmulFP32Factor
			}
		case ClassPETranspose:
			cy = max(max(w.P, 0), min(c.TransposeFreeMin, max(w.F, 0)))
		case ClassOneInput:
			cy = max(c.MinII, n)
		case ClassTensorTensor:
			if w.OneInputInPSUM || w.FastBF16 {
				cy = max(c.MinII, n)
			} else {
				cy = max(c.MinII, 2*n)
			}
		case ClassTensorReduce, ClassMemset:
			if w.FastBF16 {
				cy = halfUp(n)
			} else {
				cy = n
			}
		case ClassIota, ClassGpSimd:
			cy = c.GpSimdStart + n
		}
	}
	if w.Overheads {
		cy += c.StaticOverhead + c.AccessOverhead
	}
	return cy
}

// Estimate returns the cycles and time of w. It fails when the class is
// unknown (narwhal's fault), the engine is absent on this generation
// (diag.EngineOpcode), or its clock is unknown (a machine parameter to
// set: diag.PassOption).
func (m *Model) Estimate(w Work) (Estimate, error) {
	if w.Class >= NumClasses {
		return Estimate{}, diag.Errorf(diag.Internal, "arch %s: cost model: unknown class %d", m.Name, w.Class)
	}
	if w.Class == ClassDMA {
		return Estimate{Ns: m.dmaNs(w)}, nil
	}
	if !m.HasEngine(w.Engine) {
		return Estimate{}, diag.Errorf(diag.EngineOpcode, "arch %s: cost model: %s has no %s engine", m.Name, m.Name, w.Engine)
	}
	clk := m.Engines[w.Engine].ClockGHz
	if clk <= 0 {
		return Estimate{}, diag.Errorf(diag.PassOption, "arch %s: cost model: the %s engine clock is unknown (set arch.%s)", m.Name, w.Engine, clockOption(w.Engine))
	}
	cy := m.Cycles(w)
	return Estimate{Cycles: cy, Ns: float64(cy) / clk}, nil
}

func clockOption(e bir.Engine) string {
	switch e {
	case bir.EngPE:
		return "pe-clock-ghz"
	case bir.EngDVE:
		return "dve-clock-ghz"
	case bir.EngAct:
		return "act-clock-ghz"
	case bir.EngPool:
		return "pool-clock-ghz"
	}
	return "sp-clock-ghz"
}

// dmaFloor is the lowest bandwidth fraction a small-per-partition DMA gets.
const dmaFloor = 1.0 / 8

func (m *Model) dmaNs(w Work) float64 {
	fixed := m.DMAFixedNs
	if w.HWDGE && m.HWDGEFixedNs > 0 {
		fixed = m.HWDGEFixedNs
	}
	bytes := max(w.Bytes, 0)
	if w.Partitions > 0 && w.BytesPerPartition > 0 {
		bytes = max(bytes, w.BytesPerPartition*m.MaxPartitionsPerSDMA(w.Partitions))
	}
	if bytes == 0 || m.DMABytesPerNs <= 0 {
		return fixed
	}
	eff := 1.0
	if bpp := w.BytesPerPartition; bpp > 0 && m.DMAFullBandwidthBytes > 0 && bpp < m.DMAFullBandwidthBytes {
		eff = max(float64(bpp)/float64(m.DMAFullBandwidthBytes), dmaFloor)
	}
	return fixed + float64(bytes)/(m.DMABytesPerNs*eff)
}

// MaxPartitionsPerSDMA is ProfileBasedDMALatencyModel.get_max_partitions_per_sdma
// (seed 002 §1, §3): the active partition count p of a DMA's on-chip side
// rounded up to a multiple of the quadrant (32), capped at the partition
// count. 0 for p <= 0.
func (m *Model) MaxPartitionsPerSDMA(p int64) int64 {
	q := m.QuadrantPartitions
	if p <= 0 {
		return 0
	}
	if q <= 0 {
		return p
	}
	r := (p + q - 1) / q * q
	if m.Partitions > 0 && r > m.Partitions {
		r = max(m.Partitions, p)
	}
	return r
}

// Ps returns the estimate in picoseconds, rounded up (the scheduler's time
// unit).
func (e Estimate) Ps() int64 { return int64(math.Ceil(e.Ns * 1000)) }

// apFacts are the sizes of one access-pattern operand the table reads.
type apFacts struct {
	ok        bool
	mem       bir.MemoryType
	dtype     bir.Dtype
	elems     int64 // elements walked
	parts     int64 // on-chip: pair 0's num (the partition dim); DRAM: 0
	perPart   int64 // on-chip: elements per partition; DRAM: elems
	unitInner bool  // the innermost pair has step 1 (or there is none)
}

func operandFacts(f *bir.Function, o *bir.Operand) apFacts {
	var mt bir.MemoryType
	switch o.Kind {
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() {
			return apFacts{}
		}
		mt = f.Loc(l).Type
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() || len(f.Tensor(t).Locs) == 0 {
			return apFacts{}
		}
		mt = f.Loc(f.Tensor(t).Locs[0]).Type
	default:
		return apFacts{}
	}
	m := f.Module()
	if int(o.Pattern) < 0 || int(o.Pattern) >= m.NumPatterns() {
		return apFacts{}
	}
	pat := m.Pattern(o.Pattern)
	x := apFacts{ok: true, mem: mt, dtype: o.Dtype, elems: max(pat.NumElements(), 0), unitInner: true}
	if n := len(pat); n > 0 && pat[n-1].Num > 1 && pat[n-1].Step != 1 {
		x.unitInner = false
	}
	x.perPart = x.elems
	if mt.IsOnChip() && len(pat) > 0 && pat[0].Num > 0 {
		x.parts = pat[0].Num
		x.perPart = x.elems / pat[0].Num
	}
	return x
}

// InstructionWork maps instruction i of f, run on engine eng (a DMA: with
// a hardware DGE when hwdge), onto the cost table (see the file comment).
// ok is false for opcodes the table does not price.
func InstructionWork(f *bir.Function, i bir.InstID, eng bir.Engine, hwdge bool) (w Work, ok bool) {
	in := f.Inst(i)
	c, ok := ClassFor(in.Op, eng)
	if !ok {
		return Work{}, false
	}
	switch bir.Variant(in.Op, f.Attrs(i)) {
	case "tensor_tensor_scan", "scalar_tensor_tensor", "select_reduce":
		if c == ClassOneInput {
			c = ClassTensorTensor // two whole tensors in
		}
	}
	w = Work{Class: c, Engine: eng, HWDGE: hwdge, Overheads: c != ClassDMA && eng != bir.EngPool}
	ins, outs := f.Ins(i), f.Outs(i)
	first := func(list []bir.Operand) apFacts {
		for k := range list {
			if x := operandFacts(f, &list[k]); x.ok {
				return x
			}
		}
		return apFacts{}
	}
	switch c {
	case ClassDMA:
		var rd, wr, parts int64
		for k := range ins {
			if x := operandFacts(f, &ins[k]); x.ok {
				rd += x.elems * x.dtype.Size()
				parts = max(parts, x.parts)
			}
		}
		for k := range outs {
			if x := operandFacts(f, &outs[k]); x.ok {
				wr += x.elems * x.dtype.Size()
				parts = max(parts, x.parts)
			}
		}
		w.Bytes = max(rd, wr)
		if parts > 0 {
			w.Partitions = parts
			w.BytesPerPartition = (w.Bytes + parts - 1) / parts
		}
	case ClassMatmul:
		if len(ins) >= 2 {
			st, mv := operandFacts(f, &ins[0]), operandFacts(f, &ins[1])
			w.NStationary, w.N, w.Dtype = st.perPart, mv.perPart, mv.dtype
		}
	case ClassPETranspose:
		if x := first(ins); x.ok {
			w.P, w.F, w.Dtype = x.parts, x.perPart, x.dtype
		}
	case ClassTensorReduce:
		x := first(ins)
		w.N, w.Dtype = x.perPart, x.dtype
		op := f.Attrs(i).Str("op", "")
		w.FastBF16 = x.dtype == bir.BFloat16 && (op == "add" || op == "max")
	default:
		d := first(outs)
		w.N, w.Dtype = d.perPart, d.dtype
		switch c {
		case ClassTensorTensor:
			fast := true
			for k := range ins {
				x := operandFacts(f, &ins[k])
				if x.mem == bir.MemPSUM {
					w.OneInputInPSUM = true
				}
				fast = fast && x.ok && x.dtype == bir.BFloat16 && x.unitInner
			}
			op := f.Attrs(i).Str("op", "")
			w.FastBF16 = fast && d.dtype == bir.BFloat16 && d.unitInner && (op == "add" || op == "mult" || op == "subtract")
		case ClassMemset:
			a := f.Attrs(i)
			w.FastBF16 = d.dtype == bir.BFloat16 && a.Float("constant", 1) == 0
		}
	}
	return w, true
}

// InstructionCost prices instruction i of f on engine eng (see
// InstructionWork). An instruction the table does not price costs
// StaticOverhead cycles on its engine, or nothing without one.
func (m *Model) InstructionCost(f *bir.Function, i bir.InstID, eng bir.Engine, hwdge bool) (Estimate, error) {
	w, ok := InstructionWork(f, i, eng, hwdge)
	if !ok {
		clk := m.Clock(eng)
		if clk <= 0 {
			return Estimate{}, nil
		}
		return Estimate{Cycles: m.Cost.StaticOverhead, Ns: float64(m.Cost.StaticOverhead) / clk}, nil
	}
	return m.Estimate(w)
}
