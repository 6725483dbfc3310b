// The cost model: what one instruction costs on its engine or on the DMA
// engines, as a function of its class, sizes, dtypes, memories and the
// generation. Every constant lives in models.go with its source; this file
// holds the formulas. docs/cost-model.md explains the model and holds the
// calibration against the published measurements
// (../shared/docs/perf-anchors.md).
//
// # The seed's split, and how this file maps onto it
//
// Seed 002 §6.2 splits the original compiler's cost basis across two
// modules: InstructionLatencyModel ("a cycle based cost model that uses
// instruction latency as the cost": get_matmult_latency,
// get_tensortensor_latency, get_intrinsic_latency) and KernelLatencyInfo
// (get_matmult_latency, get_pipeline_ii, get_pipeline_latency: "the
// kernel-level pipeline aggregation"). narwhal keeps the division, in one
// file:
//
//   - the per-instruction getters are Model.Cycles and Model.Estimate over
//     a Work (one Class per getter family: ClassMatmul is
//     get_matmult_latency, ClassTensorTensor get_tensortensor_latency, the
//     GpSimd classes get_intrinsic_latency with GPSIMD_START);
//   - the pipeline pair is the Estimate's two halves: Ns, the time the
//     instruction occupies its engine (get_pipeline_ii, the initiation
//     interval: back-to-back instructions issue this far apart), and
//     LatencyNs, the readiness latency (get_pipeline_latency: the pipeline
//     fill an instruction pays after its inputs are ready, hidden when the
//     engine has other work);
//   - the kernel-level aggregation (how a stream of instructions adds up)
//     is not here: the scheduler's simulation (passes/sched) applies
//     Ns and LatencyNs per instruction, and its lower bound does the same
//     arithmetic without a schedule.
//
// # Which row an instruction takes
//
// InstructionWork reads one instruction's operands into a Work; the class
// it picks, per opcode:
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
//	TensorScalarPtr tensor_tensor_scan   scan           the tensor_tensor_scan row below (two whole
//	(DVE)                                               tensors streamed, data0 and data1)
//	TensorScalarPtr scalar_tensor_tensor scalar-tt      the scalar_tensor_tensor row below (the NKI
//	(DVE)                                               reference: "approximately the same latency
//	                                                    as a regular tensor_tensor")
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
// # The instruction rows
//
// Engine cycles; N = elements per partition (of the output, unless a row
// says otherwise). Sources: the NKI ISA docstrings of SDK 2.20-2.26
// ("isa"), the trn1/inf2 architecture guide ("arch-v2"), trainium2_arch and
// trainium3_arch ("arch-v3", "arch-v4"); models.go cites each constant.
//
//	matmul (fp8/bf16/fp16/tf32)      max(min(64, N_stationary), N_moving); x4 for fp32      isa nc_matmul
//	transpose on PE                  max(P, min(64, F))                                      isa nc_transpose
//	activation, tensor_scalar(_ptr),
//	tensor_copy, transpose on DVE,
//	affine_select, dropout, ...      max(MIN_II, N)                                          isa
//	tensor_copy_dynamic_src/dst      max(MIN_II_DYNAMIC, N)                                  isa 2.26
//	tensor_tensor                    max(MIN_II, 2N); max(MIN_II, N) with one input in PSUM,
//	                                 or (NC-v2) all bf16 SBUF add/mult/subtract contiguous  isa tensor_tensor
//	tensor_tensor_scan               max(MIN_II, 2N)                                         isa
//	scalar_tensor_tensor             N for bf16 subtract-then-multiply with N even, else 2N isa
//	tensor_reduce                    N/2 for bf16 in and out with add/max, else N            isa
//	reciprocal on Vector             max(MIN_II, ReciprocalDVEFactor * N) (fitted, 2)        isa says 8N; see models.go
//	copy_predicated                  max(MIN_II, 2N) with source and predicate in SBUF, else N isa
//	bn_stats / bn_aggr               max(MIN_II, N) / max(MIN_II, 13*(N/3))                   isa
//	memset                           max(MIN_II, N/2) for a bf16/fp16 zero fill, else N      isa memset
//	ActReadAccumulator               MIN_II (activation_reduce's "+ MIN_II")                 arch-v2, isa
//	tensor_scalar with accumulation  + MIN_II (tensor_scalar_reduce)                         isa
//	any instruction on GpSimd        GPSIMD_START + N                                        isa iota/affine_select
//
// Modifiers, applied in this order:
//
//   - Vector performance mode (NC-v3+, arch-v3): tensor_copy and
//     tensor_scalar in and out of SBUF in bf16/fp16 with a contiguous
//     innermost dimension run 4x; in 16-bit but strided, or contiguous with
//     one side in PSUM, 2x; tensor_tensor with both inputs in SBUF and all
//     operands in 16-bit runs at N instead of 2N (any operator). NC-v4
//     counts fp8 as 16-bit here (arch-v4 "512 BF16/FP16/FP8").
//   - Scalar performance mode (NC-v4, arch-v4): tensor_scalar and
//     tensor_copy in bf16/fp16 on Scalar, 2x.
//   - The stride penalty (arch-v2 "Access pattern"): an instruction with an
//     on-chip operand whose innermost stride exceeds 16 bytes takes twice
//     its row ("half of the peak bandwidth").
//   - The readiness latency, StaticOverhead + AccessOverhead = 160 cycles
//     on Vector and Scalar (arch-v2: "In the rare cases where VectorE is
//     running many back-to-back instructions either with N << 128 or with
//     every instruction depending on the output tile of the previous
//     instruction, we need to add a static instruction overhead of 100
//     engine cycles"; "Initiating a tensor access ... incurs a static
//     overhead approximately 60 cycles ... Compute engines can typically
//     hide some of this latency"). It is not a row term: it is a latency
//     from the instruction's inputs being ready (Estimate.LatencyNs), and
//     the scheduler starts the instruction's work no earlier than
//     ready + latency nor before its engine is free. A dependent chain pays
//     it on every instruction; independent back-to-back instructions hide
//     it behind the previous one (the two published cases). The Tensor and
//     GpSimd engines have none: nc_matmul's row is "the average cost
//     assuming many nc_matmul instructions ... back-to-back", and a matmul
//     accumulating into the previous one's PSUM tile is that steady state;
//     GPSIMD_START is already in GpSimd's row.
//
// Instructions the table does not price (register moves, semaphores,
// barriers, no-ops) cost StaticOverhead cycles on their engine, or nothing
// without one; a call's cost is its callee's schedule (the scheduler
// supplies it).
//
// Decisions where the sources are silent: odd halvings round up; "x4 for
// fp32" applies to float32 matmul inputs (float32r is tf32, not
// multiplied); the performance modes apply to the rows above only (the
// 256-elements-per-cycle width of other dtypes on NC-v3 is listed with no
// instruction rule, so fp32 keeps NC-v2's rates); the stride penalty is
// taken on every generation (only NC-v2's is published).
//
// # The DMA model
//
// A DMA instruction is one transfer on one queue (nki-dma-overview.rst: a
// transfer goes to a single queue ID, "parallelized up to 16 DMA engines,
// depending on the shape"; the trn1 architecture guide: a [128,512] load is
// "16 DMA transfers (one per DMA engine), each moving a scatter-gather list
// of 8 DMA buffers"). narwhal prices it as
//
//   - its engines: engine e serves partitions [e*8, e*8+8) of the on-chip
//     side (Partitions / DMAEngines), so a transfer of P partitions from
//     partition p0 occupies the engines that own p0..p0+P-1 and no other
//     (perf-anchors row 12: a [4,4096] bf16 load is 32 KiB on one engine;
//     row 13: [128,128] is 16 engines x 2 KiB). A transfer with no
//     on-chip side (DRAM to DRAM) spreads its bytes over every engine.
//
//   - its transfer time (Estimate.XferNs): the bytes of its busiest engine
//     over DMABytesPerNs x efficiency(run), where run is the contiguous
//     bytes of one descriptor element (the smaller contiguous run of the
//     two sides, at most the bytes per partition). The efficiency curve,
//     fitted to the measured rates and the bandwidth guide:
//
//     run >= DMAFullBandwidthBytes (4 KiB)      1 ("saturates")
//     DMASmallBytes (1 KiB) < run < 4 KiB        log-linear from DMASmallEfficiency to 1
//     DMAMinRunBytes (256) <= run <= 1 KiB       DMASmallEfficiency (0.38, fitted)
//     run < 256 B                                DMASmallEfficiency * run/256
//
//   - its fixed latency (Estimate.FixedNs): DMAFixedNs (pre-generated
//     descriptors), HWDGEFixedNs (a hardware DGE, NC-v3: ~600 ns) or
//     SWDGEFixedNs (descriptors the software DGE builds at run time). The
//     scheduler places it on the DMA's queue before the bytes move; it does
//     not occupy the engines (row 12's engine shows none).
//
// Estimate.Ns of a DMA is FixedNs + XferNs, the least time its queue is
// held. The cross-engine semaphore-to-start latency (~1300 ns,
// Sync.DMASemaphoreNs) is synchronization's, added when the streams are
// re-timed with their semaphores (passes/semaphores), not here.
//
// Departure from seed 002 (§1 NOTE, §3 QUIRK: "the SDMA that stages its
// inputs rounds the active-partition count up to a multiple of 32"): the
// seed's ProfileBasedDMALatencyModel priced a DMA of P partitions as
// ceil(P/32)*32 partitions of bytes through one queue, which makes the
// measured 4-partition load 8x too long (perf-anchors row 12).
// MaxPartitionsPerSDMA keeps the seed's function for reference; the
// pricing uses the engines above.
//
// # From an instruction to a Work
//
// InstructionWork reads the operands of one instruction of a function
// (sizes from the access patterns, memories from the locations or tensors,
// dtypes from the operands) and InstructionCost prices it; the scheduler,
// its report and lower bound, the engine assignment, the queue balance and
// performance tiling all price instructions through these two.
package arch

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Class is an instruction class of the cost model.
type Class uint8

const (
	ClassMatmul             Class = iota // Matmult family on PE
	ClassPETranspose                     // Transpose on PE
	ClassOneInput                        // activation, tensor_scalar, tensor_copy, ... on DVE/ACT: max(MIN_II, N)
	ClassTensorTensor                    // tensor_tensor
	ClassTensorReduce                    // tensor_reduce
	ClassMemset                          // memset
	ClassIota                            // iota (GpSimd)
	ClassGpSimd                          // any other GpSimd instruction
	ClassDMA                             // a DMA transfer
	ClassDynamicCopy                     // tensor_copy_dynamic_src/dst: max(MIN_II_DYNAMIC, N)
	ClassScan                            // tensor_tensor_scan: max(MIN_II, 2N)
	ClassScalarTensorTensor              // scalar_tensor_tensor: N or 2N
	ClassReciprocal                      // reciprocal: N on Scalar, factor*N on Vector
	ClassCopyPredicated                  // copy_predicated: 2N with source and predicate in SBUF
	ClassBNStats                         // bn_stats: max(MIN_II, N)
	ClassBNAggr                          // bn_aggr: max(MIN_II, 13*(N/3))
	ClassReadAccumulator                 // ActReadAccumulator: MIN_II
	NumClasses
)

var classNames = [NumClasses]string{"matmul", "pe-transpose", "one-input", "tensor-tensor", "tensor-reduce", "memset", "iota", "gpsimd", "dma",
	"dynamic-copy", "scan", "scalar-tensor-tensor", "reciprocal", "copy-predicated", "bn-stats", "bn-aggr", "read-accumulator"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ClassFor maps an opcode on an engine to its cost class; ok is false for
// opcodes the table does not price (control flow, semaphores, calls).
// TensorScalarPtr's scan and scalar-tensor-tensor variants are told apart
// by their attributes (InstructionWork).
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
		bir.OpTranspose, bir.OpTensorScalarAffineSelect, bir.OpDropout, bir.OpShuffle:
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
	case bir.OpTensorCopyDynamicSrc, bir.OpTensorCopyDynamicDst:
		return ClassDynamicCopy, true
	case bir.OpReciprocal:
		return ClassReciprocal, true
	case bir.OpCopyPredicated:
		return ClassCopyPredicated, true
	case bir.OpBNStats:
		return ClassBNStats, true
	case bir.OpBNStatsAggregate:
		return ClassBNAggr, true
	case bir.OpReadActivationAccumulator:
		return ClassReadAccumulator, true
	}
	return 0, false
}

// Narrow dtype kinds of a Work (the performance modes' condition).
const (
	NarrowNone uint8 = iota // some operand is 32-bit or integer
	Narrow16                // every operand bf16 or fp16
	NarrowFP8               // every operand bf16, fp16 or fp8, some fp8
)

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
	// FastBF16: the NC-v2 fast rows: tensor_tensor whose operands are all
	// bf16 in SBUF, contiguous, with op add/mult/subtract; tensor_reduce bf16
	// in and out with add/max; memset bf16/fp16 zero fill;
	// scalar_tensor_tensor bf16 subtract-then-multiply with N even;
	// copy_predicated with source and predicate in different memories
	// (its fast row is N).
	FastBF16 bool

	// The performance modes' facts: every on-chip operand in SBUF, the
	// narrowest dtype kind every operand shares, every operand with a unit
	// innermost step; and the stride penalty's: the largest innermost
	// stride in bytes of an on-chip operand (the penalty applies above
	// CostConstants.StrideBytes).
	AllSBUF          bool
	Narrow           uint8
	Contiguous       bool
	InnerStrideBytes int64
	// Accumulate: a tensor_scalar that also reduces (tensor_scalar_reduce:
	// + MIN_II).
	Accumulate bool
	// CopyOrScalar: a tensor_copy or tensor_scalar (the instructions the
	// Vector and Scalar performance modes name).
	CopyOrScalar bool

	Bytes             int64 // DMA: bytes moved
	BytesPerPartition int64 // DMA: bytes per partition of the on-chip side (0: none)
	Partitions        int64 // DMA: partitions of the on-chip side (0: none, the bytes spread over every engine)
	StartPartition    int64 // DMA: first partition of the on-chip side
	RunBytes          int64 // DMA: contiguous bytes of one descriptor element (0: BytesPerPartition, and 0 there: full bandwidth)
	HWDGE             bool  // DMA issued through a hardware DGE (NC-v3)
	SWDGE             bool  // DMA whose descriptors the software DGE generates at run time

	// Overheads: the instruction pays the readiness latency
	// (StaticOverhead + AccessOverhead; Vector and Scalar instructions).
	Overheads bool
}

// Estimate is the cost of one instruction.
type Estimate struct {
	Cycles int64   // engine cycles of the row (0 for DMA)
	Ns     float64 // the least time the instruction holds its engine (a DMA: its queue): the row, or FixedNs + XferNs

	// LatencyNs is the readiness latency: the instruction's work starts no
	// earlier than LatencyNs after its inputs are ready (hidden behind the
	// engine's earlier work when there is some); 0 on Tensor and GpSimd
	// and for DMAs.
	LatencyNs float64

	// A DMA: its fixed latency on its queue, the time its bytes occupy its
	// engines, and those engines (bit e: DMA engine e).
	FixedNs float64
	XferNs  float64
	Engines uint64
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
		case ClassOneInput, ClassBNStats:
			cy = max(c.MinII, n)
		case ClassDynamicCopy:
			cy = max(c.MinIIDynamic, n)
		case ClassTensorTensor:
			if w.OneInputInPSUM || w.FastBF16 && !c.VectorPerfMode {
				cy = max(c.MinII, n)
			} else {
				cy = max(c.MinII, 2*n)
			}
		case ClassScan:
			cy = max(c.MinII, 2*n)
		case ClassScalarTensorTensor:
			if w.FastBF16 {
				cy = n
			} else {
				cy = 2 * n
			}
		case ClassReciprocal:
			if w.Engine == bir.EngDVE {
				cy = max(c.MinII, c.ReciprocalDVEFactor*n)
			} else {
				cy = max(c.MinII, n)
			}
		case ClassCopyPredicated:
			if w.FastBF16 {
				cy = max(c.MinII, n)
			} else {
				cy = max(c.MinII, 2*n)
			}
		case ClassBNAggr:
			cy = max(c.MinII, c.BNAggrPer3*(n/3))
		case ClassReadAccumulator:
			cy = c.ReadAccumulator
		case ClassTensorReduce:
			if w.FastBF16 {
				cy = halfUp(n)
			} else {
				cy = n
			}
		case ClassMemset:
			if w.FastBF16 {
				cy = max(c.MinII, halfUp(n))
			} else {
				cy = max(c.MinII, n)
			}
		case ClassIota, ClassGpSimd:
			cy = c.GpSimdStart + n
		}
		if w.Accumulate && w.Class == ClassOneInput {
			cy += c.MinII
		}
		if d := m.perfDivisor(w); d > 1 {
			cy = max(min(cy, c.MinII), (cy+d-1)/d)
		}
	}
	if c.StrideBytes > 0 && w.InnerStrideBytes > c.StrideBytes && c.StridePenalty > 1 {
		cy *= c.StridePenalty
	}
	return cy
}

// perfDivisor returns the performance mode's speed-up of w (1: none; see
// the file comment).
func (m *Model) perfDivisor(w Work) int64 {
	c := &m.Cost
	narrow := w.Narrow == Narrow16 || w.Narrow == NarrowFP8 && c.VectorPerfModeFP8
	copyLike := w.Class == ClassOneInput && w.CopyOrScalar && !w.Accumulate
	switch {
	case w.Engine == bir.EngDVE && c.VectorPerfMode && copyLike && narrow:
		switch {
		case w.AllSBUF && w.Contiguous:
			return 4
		case w.AllSBUF || w.Contiguous:
			return 2
		}
	case w.Engine == bir.EngDVE && c.VectorPerfMode && w.Class == ClassTensorTensor && narrow && w.AllSBUF && !w.OneInputInPSUM:
		return 2
	case w.Engine == bir.EngAct && c.ScalarPerfMode && copyLike && w.Narrow == Narrow16:
		return 2
	}
	return 1
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
		return m.dmaEstimate(w), nil
	}
	if !m.HasEngine(w.Engine) {
		return Estimate{}, diag.Errorf(diag.EngineOpcode, "arch %s: cost model: %s has no %s engine", m.Name, m.Name, w.Engine)
	}
	clk := m.Engines[w.Engine].ClockGHz
	if clk <= 0 {
		return Estimate{}, diag.Errorf(diag.PassOption, "arch %s: cost model: the %s engine clock is unknown (set arch.%s)", m.Name, w.Engine, clockOption(w.Engine))
	}
	cy := m.Cycles(w)
	e := Estimate{Cycles: cy, Ns: float64(cy) / clk}
	if w.Overheads {
		e.LatencyNs = float64(m.Cost.StaticOverhead+m.Cost.AccessOverhead) / clk
	}
	return e, nil
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

// DMAEfficiency returns the fraction of an engine's full bandwidth a DMA
// whose descriptor elements are run contiguous bytes reaches (the curve of
// the file comment); run <= 0 is full bandwidth (unknown run).
func (m *Model) DMAEfficiency(run int64) float64 {
	full, small, e1 := m.DMAFullBandwidthBytes, m.DMASmallBytes, m.DMASmallEfficiency
	if run <= 0 || full <= 0 || run >= full || e1 <= 0 {
		return 1
	}
	e1 = min(e1, 1)
	switch {
	case small > 0 && run > small && small < full:
		t := math.Log2(float64(run)/float64(small)) / math.Log2(float64(full)/float64(small))
		return e1 + (1-e1)*t
	case run >= m.DMAMinRunBytes || m.DMAMinRunBytes <= 0:
		return e1
	}
	return e1 * float64(run) / float64(m.DMAMinRunBytes)
}

// DMAPartitionsPerEngine returns the partitions one DMA engine serves.
func (m *Model) DMAPartitionsPerEngine() int64 {
	ne := max(m.DMAEngines, 1)
	return max((max(m.Partitions, 1)+ne-1)/ne, 1)
}

// DMAEngineMask returns the DMA engines a transfer of parts partitions
// from partition start occupies, and the most partitions one of them
// serves (parts <= 0: every engine, 0).
func (m *Model) DMAEngineMask(start, parts int64) (mask uint64, most int64) {
	ne := min(max(m.DMAEngines, 1), 64)
	all := uint64(math.MaxUint64)
	if ne < 64 {
		all = 1<<ne - 1
	}
	if parts <= 0 {
		return all, 0
	}
	ppe := m.DMAPartitionsPerEngine()
	start = max(start, 0)
	last := start + parts - 1
	e0, e1 := start/ppe, last/ppe
	for e := e0; e <= e1; e++ {
		lo, hi := max(start, e*ppe), min(last, (e+1)*ppe-1)
		most = max(most, hi-lo+1)
		mask |= 1 << (e % ne)
	}
	return mask, most
}

func (m *Model) dmaEstimate(w Work) Estimate {
	fixed := m.DMAFixedNs
	switch {
	case w.HWDGE && m.HWDGEFixedNs > 0:
		fixed = m.HWDGEFixedNs
	case w.SWDGE:
		fixed = m.SWDGEFixedNs
	}
	e := Estimate{FixedNs: fixed}
	bytes := max(w.Bytes, 0)
	var perEngine int64
	if w.Partitions > 0 {
		mask, most := m.DMAEngineMask(w.StartPartition, w.Partitions)
		e.Engines = mask
		bpp := w.BytesPerPartition
		if bpp <= 0 {
			bpp = (bytes + w.Partitions - 1) / w.Partitions
		}
		perEngine = most * bpp
	} else {
		e.Engines, _ = m.DMAEngineMask(0, 0)
		n := int64(bits.OnesCount64(e.Engines))
		perEngine = (bytes + n - 1) / n
	}
	run := w.RunBytes
	if run <= 0 {
		run = w.BytesPerPartition
	}
	if perEngine > 0 && m.DMABytesPerNs > 0 {
		e.XferNs = float64(perEngine) / (m.DMABytesPerNs * m.DMAEfficiency(run))
	}
	e.Ns = e.FixedNs + e.XferNs
	return e
}

// MaxPartitionsPerSDMA is ProfileBasedDMALatencyModel.get_max_partitions_per_sdma
// (seed 002 §1, §3): the active partition count p of a DMA's on-chip side
// rounded up to a multiple of the quadrant (32), capped at the partition
// count. 0 for p <= 0. The DMA model no longer prices with it (see "The
// DMA model" above); it is kept as the seed's reference.
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
// unit). A DMA's is FixedPs + XferPs.
func (e Estimate) Ps() int64 {
	if e.Engines != 0 {
		return e.FixedPs() + e.XferPs()
	}
	return ceilPs(e.Ns)
}

// LatencyPs, FixedPs and XferPs are LatencyNs, FixedNs and XferNs in
// picoseconds, rounded up.
func (e Estimate) LatencyPs() int64 { return ceilPs(e.LatencyNs) }
func (e Estimate) FixedPs() int64   { return ceilPs(e.FixedNs) }
func (e Estimate) XferPs() int64    { return ceilPs(e.XferNs) }

func ceilPs(ns float64) int64 { return int64(math.Ceil(ns * 1000)) }

// apFacts are the sizes of one access-pattern operand the table reads.
type apFacts struct {
	ok        bool
	mem       bir.MemoryType
	dtype     bir.Dtype
	elems     int64 // elements walked
	parts     int64 // on-chip: pair 0's num (the partition dim); DRAM: 0
	perPart   int64 // on-chip: elements per partition; DRAM: elems
	start     int64 // on-chip: first partition (0 when not known)
	unitInner bool  // the innermost pair has step 1 (or there is none)
	innerStep int64 // the innermost free pair's step (elements), 1 when none
	run       int64 // contiguous elements of one row (on-chip: within a partition)
}

func operandFacts(f *bir.Function, o *bir.Operand) apFacts {
	var mt bir.MemoryType
	var loc *bir.MemLoc
	switch o.Kind {
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() {
			return apFacts{}
		}
		loc = f.Loc(l)
		mt = loc.Type
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
	x := apFacts{ok: true, mem: mt, dtype: o.Dtype, elems: max(pat.NumElements(), 0), unitInner: true, innerStep: 1}
	if n := len(pat); n > 0 && pat[n-1].Num > 1 && pat[n-1].Step != 1 {
		x.unitInner = false
	}
	first := 0
	x.perPart = x.elems
	if mt.IsOnChip() && len(pat) > 0 && pat[0].Num > 0 {
		x.parts = pat[0].Num
		x.perPart = x.elems / pat[0].Num
		first = 1
		if loc != nil && o.Kind == bir.OpdPhysAP && o.Dtype.Size() > 0 {
			if e := loc.Bytes / o.Dtype.Size(); e > 0 && o.Offset >= 0 {
				x.start = loc.Base + o.Offset/e
			}
		}
	}
	for d := len(pat) - 1; d >= first; d-- {
		if pat[d].Num > 1 {
			x.innerStep = pat[d].Step
			break
		}
	}
	// The contiguous run: inner pairs that continue each other.
	run := int64(1)
	for d := len(pat) - 1; d >= first; d-- {
		q := pat[d]
		if q.Num <= 1 {
			continue
		}
		if q.Step != run {
			break
		}
		run *= q.Num
	}
	x.run = run
	return x
}

// narrowKind classifies a dtype for the performance modes.
func narrowKind(d bir.Dtype) uint8 {
	switch d {
	case bir.BFloat16, bir.Float16:
		return Narrow16
	case bir.Float8E4, bir.Float8E5, bir.Float8E3:
		return NarrowFP8
	}
	return NarrowNone
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
	attrs := f.Attrs(i)
	if c == ClassOneInput {
		switch bir.Variant(in.Op, attrs) {
		case "tensor_tensor_scan":
			c = ClassScan
		case "scalar_tensor_tensor":
			c = ClassScalarTensorTensor
		case "select_reduce":
			c = ClassTensorTensor // on_true and the predicate stream per element [inferred]
		}
	}
	w = Work{Class: c, Engine: eng, HWDGE: hwdge, Overheads: c != ClassDMA && (eng == bir.EngDVE || eng == bir.EngAct)}
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
		w.Overheads = false
		w.SWDGE = !hwdge && !StaticDMADescriptors(f, i)
		var rw [2]int64
		var parts, start, run int64
		for side, list := range [2][]bir.Operand{ins, outs} {
			for k := range list {
				x := operandFacts(f, &list[k])
				if !x.ok {
					continue
				}
				rw[side] += x.elems * x.dtype.Size()
				if x.parts > parts {
					parts, start = x.parts, x.start
				}
				if rb := x.run * x.dtype.Size(); rb > 0 && (run == 0 || rb < run) {
					run = rb
				}
			}
		}
		rd, wr := rw[0], rw[1]
		w.Bytes = max(rd, wr)
		if parts > 0 {
			w.Partitions, w.StartPartition = parts, start
			w.BytesPerPartition = (w.Bytes + parts - 1) / parts
			run = min(run, w.BytesPerPartition)
		}
		w.RunBytes = run
		return w, true
	case ClassMatmul:
		w.Overheads = false
		if len(ins) >= 2 {
			st, mv := operandFacts(f, &ins[0]), operandFacts(f, &ins[1])
			w.NStationary, w.N, w.Dtype = st.perPart, mv.perPart, mv.dtype
		}
	case ClassPETranspose:
		w.Overheads = false
		if x := first(ins); x.ok {
			w.P, w.F, w.Dtype = x.parts, x.perPart, x.dtype
		}
	case ClassTensorReduce:
		x := first(ins)
		w.N, w.Dtype = x.perPart, x.dtype
		op := attrs.Str("op", "")
		d := first(outs)
		w.FastBF16 = x.dtype == bir.BFloat16 && (!d.ok || d.dtype == bir.BFloat16) && (op == "add" || op == "max")
	case ClassBNStats, ClassBNAggr:
		x := first(ins)
		w.N, w.Dtype = x.perPart, x.dtype
	default:
		d := first(outs)
		w.N, w.Dtype = d.perPart, d.dtype
		if c == ClassOneInput || c == ClassReciprocal || c == ClassDynamicCopy {
			// One-input rows count the source's elements (isa: "N is the
			// number of elements per partition in data/src").
			if x := first(ins); x.ok && x.perPart > w.N {
				w.N = x.perPart
			}
		}
		switch c {
		case ClassTensorTensor:
			fast := true
			for k := range ins {
				x := operandFacts(f, &ins[k])
				if x.mem == bir.MemPSUM {
					w.OneInputInPSUM = true
				}
				fast = fast && x.ok && x.dtype == bir.BFloat16 && x.unitInner && x.mem != bir.MemPSUM
			}
			op := attrs.Str("op", "")
			w.FastBF16 = fast && d.dtype == bir.BFloat16 && d.unitInner && (op == "add" || op == "mult" || op == "subtract")
		case ClassScalarTensorTensor:
			w.FastBF16 = d.dtype == bir.BFloat16 && attrs.Str("op0", "") == "subtract" && attrs.Str("op1", "") == "mult" && w.N%2 == 0
			for k := range ins {
				if x := operandFacts(f, &ins[k]); x.ok && x.perPart > 1 && x.dtype != bir.BFloat16 {
					w.FastBF16 = false
				}
			}
		case ClassCopyPredicated:
			// Fast (N) when the source and the predicate are in different
			// memories; 2N when both are in SBUF.
			w.FastBF16 = true
			if len(ins) >= 2 {
				s, p := operandFacts(f, &ins[0]), operandFacts(f, &ins[1])
				w.FastBF16 = !(s.mem == bir.MemSB && p.mem == bir.MemSB)
			}
		case ClassMemset:
			w.FastBF16 = (d.dtype == bir.BFloat16 || d.dtype == bir.Float16) && attrs.Float("constant", 1) == 0
		case ClassOneInput:
			w.Accumulate = (in.Op == bir.OpTensorScalar || in.Op == bir.OpTensorScalarPtr) && attrs.Str("acc", "Idle") != "Idle" && attrs.Str("acc", "Idle") != ""
			w.CopyOrScalar = in.Op == bir.OpTensorScalar || in.Op == bir.OpTensorScalarPtr || in.Op == bir.OpTensorCopy
		}
	}
	// The performance modes' and the stride penalty's facts (Vector and
	// Scalar instructions).
	if eng == bir.EngDVE || eng == bir.EngAct {
		all := append(append([]bir.Operand(nil), ins...), outs...)
		w.AllSBUF, w.Contiguous, w.Narrow = true, true, Narrow16
		seen := false
		for k := range all {
			x := operandFacts(f, &all[k])
			if !x.ok {
				continue
			}
			if x.perPart <= 1 && x.parts > 0 && c != ClassOneInput {
				continue // a per-partition scalar operand
			}
			seen = true
			if x.mem != bir.MemSB {
				w.AllSBUF = false
			}
			w.Contiguous = w.Contiguous && x.unitInner
			switch k := narrowKind(x.dtype); {
			case k == NarrowNone:
				w.Narrow = NarrowNone
			case k == NarrowFP8 && w.Narrow != NarrowNone:
				w.Narrow = NarrowFP8
			}
			if x.mem.IsOnChip() && x.perPart > 1 && w.Class != ClassMatmul && w.Class != ClassPETranspose {
				w.InnerStrideBytes = max(w.InnerStrideBytes, abs64(x.innerStep)*x.dtype.Size())
			}
		}
		if !seen {
			w.AllSBUF, w.Contiguous, w.Narrow = false, false, NarrowNone
		}
	}
	return w, true
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
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
