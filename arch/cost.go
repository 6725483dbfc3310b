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

package arch

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
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
// unknown, the engine is absent on this generation, or its clock is
// unknown.
func (m *Model) Estimate(w Work) (Estimate, error) {
	if w.Class >= NumClasses {
		return Estimate{}, fmt.Errorf("arch %s: cost model: unknown class %d", m.Name, w.Class)
	}
	if w.Class == ClassDMA {
		return Estimate{Ns: m.dmaNs(w)}, nil
	}
	if !m.HasEngine(w.Engine) {
		return Estimate{}, fmt.Errorf("arch %s: cost model: %s has no %s engine", m.Name, m.Name, w.Engine)
	}
	clk := m.Engines[w.Engine].ClockGHz
	if clk <= 0 {
		return Estimate{}, fmt.Errorf("arch %s: cost model: the %s engine clock is unknown (set arch.%s)", m.Name, w.Engine, clockOption(w.Engine))
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
	if bytes == 0 || m.DMABytesPerNs <= 0 {
		return fixed
	}
	eff := 1.0
	if bpp := w.BytesPerPartition; bpp > 0 && m.DMAFullBandwidthBytes > 0 && bpp < m.DMAFullBandwidthBytes {
		eff = max(float64(bpp)/float64(m.DMAFullBandwidthBytes), dmaFloor)
	}
	return fixed + float64(bytes)/(m.DMABytesPerNs*eff)
}
