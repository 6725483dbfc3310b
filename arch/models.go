// The four machine models as data. Sources, abbreviated in the comments:
//
//	hw      ../shared/docs/hardware.md (the row named after the colon)
//	sem     ../shared/docs/semantics.md (section)
//	s000..  the seeds (../shared/seeds/<n>_*.txt, section)
//	aws-v1  AWS Neuron documentation, about-neuron/arch/neuron-hardware/
//	        inferentia.rst and neuron-core-v1.rst (Inf1 facts hardware.md
//	        does not carry)
//	[inferred] narwhal's reading, with the reasoning next to it
//
// Each constructor returns a new value; Lookup clones it again, so nothing
// here is shared mutable state.

package arch

import "github.com/narwhal-compiler/narwhal/bir"

var models = map[string]func() *Model{
	"inf1": inf1,
	"trn1": trn1,
	"trn2": trn2,
	"trn3": trn3,
}

// nkiTiles are NKI's tile-size constants (hw: "NKI tile-size constants").
// They are the same on NC-v2..NC-v4 (NKI publishes one set).
func nkiTiles() TileConstants {
	return TileConstants{
		PMax:               128,       // hw: pmax = 128
		PSUMFMax:           512,       // hw: psum_fmax = 512 fp32 (one 2 KiB bank)
		GemmStationaryFMax: 128,       // hw: gemm_stationary_fmax = 128
		GemmMovingFMax:     512,       // hw: gemm_moving_fmax = 512
		BNStatsFMax:        512,       // hw: bn_stats_fmax = 512
		SBUFMaxFreeElems:   64 * 1024, // hw: free dimension up to 64K elements in SBUF
		PSUMMaxFreeElems:   4 * 1024,  // hw: 4K in PSUM
	}
}

// nkiCost are the cost-model constants of NC-v2 (the NKI ISA docstrings of
// SDK 2.20-2.26, general/nki/api/nki/isa/__init__.py, "Estimated
// instruction cost"; the trn1/inf2 architecture guide,
// nki/guides/architecture/trainium_inferentia2_arch.rst: abbreviated isa
// and arch-v2 below). NC-v3 and NC-v4 add their performance modes
// (perfModes).
func nkiCost() CostConstants {
	return CostConstants{
		MinII:               64,  // isa: "MIN_II is roughly 64 engine cycles"
		GpSimdStart:         150, // isa iota/affine_select: "150 + N GpSimd Engine cycles"; s002 §6.2 "roughly 150 engine cycles"
		MinIIDynamic:        600, // hw: MIN_II_DYNAMIC about 600 cycles (isa 2.26 tensor_copy_dynamic_src/dst: max(MIN_II_DYNAMIC, N))
		StaticOverhead:      100, // arch-v2 Vector "Cost Model": "add a static instruction overhead of 100 engine cycles" (dependent or N << 128 back-to-back)
		AccessOverhead:      60,  // arch-v2 SBUF "Tensor access overhead ... approximately 60 cycles on NeuronCore-v2"
		MatmulStationaryMin: 64,  // isa nc_matmul: max(min(64, N_stationary), N_moving)
		MatmulFP32Factor:    4,   // isa nc_matmul: "4 * max(...)" for float32 input
		TransposeFreeMin:    64,  // isa nc_transpose: max(P, min(64, F)) on Tensor Engine
		ReadAccumulator:     64,  // arch-v2 Scalar "Pipelined Reduction": ActReadAccumulator "roughly 64 ScalarE cycles"; isa activation_reduce: max(MIN_II, N) + MIN_II
		BNAggrPer3:          13,  // isa bn_aggr: max(MIN_II, 13*(N/3))
		// Fitted, not the published 8: isa reciprocal gives max(MIN_II, 8*N)
		// on Vector, which NKIBench silu (perf-anchors row 15) contradicts:
		// 448 reciprocals of N=512 at 8N are 1.64 ms of Vector time, more
		// than the kernel's measured 1.333 ms; its measured Vector busy time
		// (73.9 % of 1.333 ms = 985 us over 448 [reciprocal + tensor_tensor]
		// pairs = 2464 cycles) leaves 2N to 2.8N for the reciprocal (with or
		// without the readiness latency). 2, the fp32 two-pass rate of the
		// table (tensor_tensor), is the low end (docs/cost-model.md).
		ReciprocalDVEFactor: 2,
		StrideBytes:         16, // arch-v2 SBUF "Access pattern": "If the most-minor F dimension stride exceeds 16 bytes ..."
		StridePenalty:       2,  // ... "the achievable bandwidth ... will be half of the peak bandwidth"
	}
}

// perfModes adds the performance modes of NC-v3 (trainium2_arch.rst
// "Vector Engine Performance Mode") and NC-v4 (trainium3_arch.rst: Vector
// "512 BF16/FP16/FP8", Scalar "Performance mode ... up to 2x ... for
// BF16/FP16").
func perfModes(c CostConstants, gen int) CostConstants {
	c.VectorPerfMode = gen >= 3    // trainium2_arch: 4x/2x for bf16/fp16 (cost.go perfDivisor)
	c.VectorPerfModeFP8 = gen >= 4 // trainium3_arch: Vector 512 BF16/FP16/FP8 per cycle
	c.ScalarPerfMode = gen >= 4    // trainium3_arch: ScalarE tensor_scalar/tensor_copy up to 2x for BF16/FP16
	return c
}

// The DMA model's constants (arch/cost.go "The DMA model"). The
// efficiency curve is fitted on NC-v2 and taken for every generation.
const (
	// nki-dma-overview.rst: "Each NeuronCore (v2-v4) is paired with 16 DMA
	// engines"; trn1 arch guide: a 128x512 load is "16 DMA transfers (one
	// per DMA engine), each moving ... 8 DMA buffers" (8 partitions each).
	dmaEngines = 16
	// Pre-generated descriptors (dge_mode none, nki-dge.rst: "lowest
	// per-transfer latency"): not published. [inferred] 600 ns, the
	// published figure of the hardware DGE ("approximately 600 ns" per
	// DMA instruction), the same descriptor step done by the engine from
	// HBM. It is a latency on the DMA's queue before its bytes move (the
	// measured single transfer, perf-anchors row 12, shows no fixed part
	// on the engine); no published anchor depends on it (docs/cost-model.md
	// gives the sensitivity).
	dmaFixedNs = 600
	// Software DGE (GpSimd generates the descriptors at run time): not
	// published; hw cost model "DMA about 2 us fixed", narwhal's figure
	// before the DMA model (stated, not fitted: no anchor has a dynamic
	// DMA).
	swdgeFixedNs = 2000
	// DMA bandwidth guide: ">= 4 KiB per partition" saturates an engine.
	dmaFullBandwidthBytes = 4 * KiB
	// Fitted: the matmul tutorial's hoisted-load kernel (perf-anchors row
	// 2) moves 4.43 GB, 97 % of it in [128,512] bf16 tiles (1 KiB per
	// partition), in 42.96 ms: 103 GB/s, 0.38 of 16 engines x 17 B/ns.
	// Validated on the original tiled kernel (row 1: a fifth of its bytes
	// in 256-byte rows, which the measurement shows no slower) and the
	// blocked one (row 3).
	dmaSmallBytes      = 1 * KiB
	dmaSmallEfficiency = 0.38
	// DMA bandwidth guide: "< 256 B severely overhead-bound" (below it the
	// efficiency falls in proportion: narwhal's extrapolation, no anchor).
	dmaMinRunBytes = 256
)

// dmaModel sets the DMA model's fields of a generation whose engines run
// at bytesPerNs.
func dmaModel(m *Model, bytesPerNs float64) {
	m.DMAQueues = 16 // nki-dma-overview.rst: "16 DMA queues per DMA engine"; one transfer uses one queue ID on every engine
	m.DMAEngines = dmaEngines
	m.DMABytesPerNs = bytesPerNs
	m.DMAFixedNs = dmaFixedNs
	m.SWDGEFixedNs = swdgeFixedNs
	m.DMAFullBandwidthBytes = dmaFullBandwidthBytes
	m.DMASmallBytes = dmaSmallBytes
	m.DMASmallEfficiency = dmaSmallEfficiency
	m.DMAMinRunBytes = dmaMinRunBytes
}

// encoding sets the engine access-pattern limits (hw: "Engine access
// patterns: up to 4 free dimensions (uint16 size, int16 stride)").
func encoding(m *Model) {
	m.MaxFreeDims = 4
	m.MaxAPNum = 1<<16 - 1 // uint16 size
	m.MinAPStep = -1 << 15 // int16 stride
	m.MaxAPStep = 1<<15 - 1
}

// syncModel sets the synchronization parameters. Only the wire limit and
// the DMA semaphore latency are published; the rest is narwhal's choice,
// the same on every generation:
//
//   - 32 semaphores per NeuronCore: AllocSemaphores needs one per engine
//     and per DMA queue that signals (5 + 16 on NC-v2..v4), so 32 leaves
//     room; a program that needs more fails with an error naming the
//     option;
//   - 16-bit counters: a stream that signals more than 65535 times between
//     two barriers gets a rotation (AllEngineBarrier + GroupResetSemaphores),
//     which a 5M-instruction program meets; 32 bits would never rotate, so
//     the rotation would go untested in practice;
//   - 64 ns from an engine's update to a waiting engine instruction: of the
//     order of the cost model's static instruction overhead (100 cycles).
const semaphoreNote = "semaphores not published: 32 per core, 16-bit counters, 64 ns engine-to-engine latency (chosen)"

func syncModel(m *Model) {
	m.Sync = SyncParams{
		Semaphores:     32,   // [inferred] not published: chosen (see above)
		SemaphoreBits:  16,   // [inferred] not published: chosen
		SemaphoreNs:    64,   // [inferred] not published: chosen
		DMASemaphoreNs: 1300, // hw cost model: cross-engine DMA semaphore-to-start about 1300 ns
		WaitsPerInst:   2,    // hw rules / s002 §6.5: at most 2 wait commands
		UpdatesPerInst: 1,    // hw rules / s002 §6.5: at most 1 update command
	}
}

func trn1() *Model {
	m := &Model{
		Name: "trn1", Codename: "sunda", Core: "NC-v2", BIRArch: "gen2", ArchLevel: LevelTrn1,

		Partitions:              128,        // hw SBUF: 128 partitions; s000 SBModel+0x9c = 128
		SBUFBytesPerPartition:   192 * KiB,  // hw SBUF: 24 MiB = 128 x 192 KiB
		SBUFCarveoutBytes:       16 * KiB,   // hw SBUF usable: 176 KiB (16 KiB carve-out, s002 §4.6)
		PSUMBanks:               8,          // hw PSUM: 8 banks x 2 KiB; s002 §1 "use the 8-bank view"
		PSUMBankBytes:           2 * KiB,    // hw PSUM: 2 KiB (512 fp32) per bank per partition
		QuadrantPartitions:      32,         // s001 "/32 DMA-quadrant constant (128 / 4)"; s002 §3
		GpSimdCores:             8,          // hw GpSimd: 8 cores x 16 partitions; s002 §2.2
		GpSimdPartitionsPerCore: 16,         // hw GpSimd
		Tile:                    nkiTiles(), // hw NKI constants
		MatmulMaxNFP32Dst:       512,        // sem §4.7: N <= 512 on v2/v3 (one PSUM bank)
		MatmulMaxNBF16Dst:       0,          // sem §4.7: dst fp32 on v2/v3

		HWDGEEngines: 0, // hw: the +2 hardware descriptor engines are NC-v3's
		// s001: the real MaxCceDmaSource is in a .text constructor (GAP).
		// [inferred] 16, sem §4.2 "dma_compute: <= 16 sources". The
		// verifier's checkCCEDMALegality counts source arguments
		// (num_arguments), so a CCE copy carries at most 16 sources with
		// or without its scales; splitting (legalize_cce_dma) preserves
		// semantics, so a low cap costs speed, never correctness.
		// Override with --option arch.max-cce-dma-source=N.
		MaxCceDmaSource: 16,

		HBMBytes:       32 * GiB, // hw HBM per chip: 32 GiB
		HBMBytesPerSec: 820e9,    // hw HBM: 820 GB/s
		BF16TFLOPS:     92,       // hw BF16 TFLOPS per core: 92
		Cost:           perfModes(nkiCost(), 2),

		DVEPoolShareSBUF: false, // hw rules: NC-v2 only, Vector and GpSimd cannot use SBUF at the same time
		DVEActSharePSUM:  false, // hw rules: NC-v2 only, Vector and Scalar cannot use PSUM at the same time
		ActReduceMaxMin:  false, // sem §4.6: the Activation accumulator's reduction is "add only on v2"
	}
	encoding(m)
	syncModel(m)
	dmaModel(m, 17)                                                               // hw DMA bandwidth: 17 B/ns (DMA guide); the arch guide's 27 GiB/s (29 B/ns) is the theoretical figure, narwhal takes the practical one
	m.Engines[bir.EngPE] = EngineInfo{Present: true, ClockGHz: 2.8, Lanes: 128}   // hw Tensor engine: 2.8 GHz, 128x128 array
	m.Engines[bir.EngDVE] = EngineInfo{Present: true, ClockGHz: 1.12, Lanes: 128} // hw Vector engine: 1.12 GHz, 128 lanes
	m.Engines[bir.EngAct] = EngineInfo{Present: true, ClockGHz: 1.4, Lanes: 128}  // hw Scalar engine: 1.4 GHz, 128 lanes
	m.Engines[bir.EngPool] = EngineInfo{Present: true, ClockGHz: 1.4, Lanes: 128} // hw GpSimd: 1.4 GHz, 8 cores x 16 partitions
	m.Engines[bir.EngSP] = EngineInfo{Present: true, ClockGHz: 1.4}               // [inferred] Sync engine clock not published; taken as the Scalar engine's
	m.Engines[bir.EngDMA] = EngineInfo{Present: true}                             // DMA is costed by bandwidth, not cycles
	m.Notes = []string{
		semaphoreNote,
		"Sync engine clock not published: taken as the Scalar engine's 1.4 GHz",
		"DMA bandwidth: 17 B/ns per engine (DMA guide) chosen over 27 GiB/s (arch guide)",
		"DMA fixed latency of pre-generated descriptors not published: 600 ns (the hardware DGE's figure)",
		"DMA efficiency below 4 KiB per partition fitted: 0.38 at 256 B..1 KiB (matmul tutorial, hoisted loads)",
		"MaxCceDmaSource not published: 16 (NKI dma_compute source limit)",
	}
	return m
}

func trn2() *Model {
	m := &Model{
		Name: "trn2", Codename: "cayman", Core: "NC-v3", BIRArch: "gen3", ArchLevel: LevelTrn2,

		Partitions:              128,        // hw SBUF: 28 MiB = 128 x 224 KiB
		SBUFBytesPerPartition:   224 * KiB,  // hw SBUF: 128 x 224 KiB
		SBUFCarveoutBytes:       16 * KiB,   // hw SBUF usable: carve-out assumed the same as NC-v2 [inferred]
		PSUMBanks:               8,          // hw PSUM: same as NC-v2 (8 x 2 KiB); s002 §1 "8 x 2048 on cayman+"
		PSUMBankBytes:           2 * KiB,    // hw PSUM
		QuadrantPartitions:      32,         // s002 §3 (partition-start rule, all generations)
		GpSimdCores:             8,          // [inferred] hw lists only the clock for NC-v3; core layout taken as NC-v2's
		GpSimdPartitionsPerCore: 16,         // [inferred] as above
		Tile:                    nkiTiles(), // hw NKI constants
		MatmulMaxNFP32Dst:       512,        // sem §4.7: N <= 512 on v2/v3
		MatmulMaxNBF16Dst:       0,          // sem §4.7: dst fp32 on v2/v3

		HWDGEEngines:    2,   // hw: +2 hardware descriptor engines; nki-dge.rst "Each TRN2 NeuronCore has two DGE instances"
		HWDGEFixedNs:    600, // nki-dge.rst: "Each hardware-DGE DMA instruction takes approximately 600 ns to execute"
		MaxCceDmaSource: 16,  // [inferred] see trn1: sem §4.2, seed 001 GAP

		HBMBytes:       96 * GiB, // hw HBM per chip: 96 GiB
		HBMBytesPerSec: 2.9e12,   // hw HBM: 2.9 TB/s
		BF16TFLOPS:     79,       // hw BF16 TFLOPS per core: 79
		Cost:           perfModes(nkiCost(), 3),

		DVEPoolShareSBUF: true, // hw rules: NC-v3 lifts the NC-v2 restriction
		DVEActSharePSUM:  true, // hw rules: Vector and Scalar may share PSUM in different banks
		ActReduceMaxMin:  true, // sem §4.6: "activate2 adds max/min" beyond v2's add [inferred: activate2 from NC-v3 on]
	}
	encoding(m)
	syncModel(m)
	dmaModel(m, 23)                                                               // hw DMA bandwidth per engine: 23 B/ns (perf-anchors row 12 measures 23.1)
	m.Engines[bir.EngPE] = EngineInfo{Present: true, ClockGHz: 2.4, Lanes: 128}   // hw Tensor engine: 2.4 GHz (128x128 [inferred] unchanged)
	m.Engines[bir.EngDVE] = EngineInfo{Present: true, ClockGHz: 0.96, Lanes: 128} // hw Vector engine: 0.96 GHz (lanes [inferred] 128)
	m.Engines[bir.EngAct] = EngineInfo{Present: true, ClockGHz: 1.2, Lanes: 128}  // hw Scalar engine: 1.2 GHz (lanes [inferred] 128)
	m.Engines[bir.EngPool] = EngineInfo{Present: true, ClockGHz: 1.2, Lanes: 128} // hw GpSimd: 1.2 GHz
	m.Engines[bir.EngSP] = EngineInfo{Present: true, ClockGHz: 1.2}               // [inferred] taken as the Scalar engine's clock
	m.Engines[bir.EngDMA] = EngineInfo{Present: true}
	m.Notes = []string{
		semaphoreNote,
		"SBUF carve-out not published for NC-v3: 16 KiB as on NC-v2",
		"DMA efficiency curve below 4 KiB per partition: the NC-v2 fit",
		"GpSimd core layout not published for NC-v3: 8 x 16 as on NC-v2",
		"Sync engine clock not published: taken as the Scalar engine's 1.2 GHz",
		"MaxCceDmaSource not published: 16 (NKI dma_compute source limit)",
	}
	return m
}

func trn3() *Model {
	m := &Model{
		Name: "trn3", Codename: "", Core: "NC-v4", BIRArch: "gen4", ArchLevel: LevelTrn3,

		Partitions:              128,        // hw SBUF: 128 x 256 KiB [inferred]; sem §1 "<= 128 partitions" on v2-v4
		SBUFBytesPerPartition:   256 * KiB,  // hw SBUF: 32 MiB (128 x 256 KiB [inferred])
		SBUFCarveoutBytes:       16 * KiB,   // hw SBUF usable: same [inferred]
		PSUMBanks:               8,          // hw PSUM: same as NC-v2
		PSUMBankBytes:           2 * KiB,    // hw PSUM
		QuadrantPartitions:      32,         // s002 §3
		GpSimdCores:             8,          // [inferred] as NC-v2
		GpSimdPartitionsPerCore: 16,         // [inferred] as NC-v2
		Tile:                    nkiTiles(), // hw NKI constants
		MatmulMaxNFP32Dst:       4096,       // sem §4.7: <= 4096 (fp32 dst) on v4
		MatmulMaxNBF16Dst:       8192,       // sem §4.7: <= 8192 (bf16 dst) on v4

		HWDGEEngines:    0,  // not published for NC-v4
		MaxCceDmaSource: 16, // [inferred] see trn1

		HBMBytes:       144 * GiB, // hw HBM per chip: 144 GiB
		HBMBytesPerSec: 4.7e12,    // hw HBM: 4.7-4.9 TB/s; the lower figure
		BF16TFLOPS:     79,        // hw BF16 TFLOPS per core: 79
		Cost:           perfModes(nkiCost(), 4),

		DVEPoolShareSBUF: true, // [inferred] NC-v3 lifted the restriction; assumed kept
		DVEActSharePSUM:  true, // [inferred] as above
		ActReduceMaxMin:  true, // [inferred] as NC-v3
	}
	encoding(m)
	syncModel(m)
	dmaModel(m, 33)                                                               // hw DMA bandwidth per engine: 33 B/ns
	m.Engines[bir.EngPE] = EngineInfo{Present: true, ClockGHz: 2.4, Lanes: 128}   // hw Tensor engine: 2.4 GHz
	m.Engines[bir.EngDVE] = EngineInfo{Present: true, ClockGHz: 1.2, Lanes: 128}  // hw Vector engine: 1.2 GHz
	m.Engines[bir.EngAct] = EngineInfo{Present: true, ClockGHz: 1.2, Lanes: 128}  // hw Scalar engine: 1.2 GHz
	m.Engines[bir.EngPool] = EngineInfo{Present: true, ClockGHz: 1.2, Lanes: 128} // hw GpSimd: 1.2 GHz
	m.Engines[bir.EngSP] = EngineInfo{Present: true, ClockGHz: 1.2}               // [inferred] the Scalar engine's clock
	m.Engines[bir.EngDMA] = EngineInfo{Present: true}
	m.Notes = []string{
		semaphoreNote,
		"SBUF per partition inferred: 32 MiB / 128 partitions = 256 KiB",
		"SBUF carve-out not published for NC-v4: 16 KiB as on NC-v2",
		"no public codename; 'mariana' accepted as an inferred alias (seed 002 codegen-target order)",
		"hardware DGE engines not published for NC-v4",
		"HBM bandwidth: 4.7 TB/s chosen from the published 4.7-4.9",
		"MaxCceDmaSource not published: 16 (NKI dma_compute source limit)",
	}
	return m
}

func inf1() *Model {
	m := &Model{
		Name: "inf1", Codename: "tonga", Core: "NC-v1", BIRArch: "gen1", ArchLevel: LevelInf1,

		// [inferred] 128: NC-v1 geometry is not published (hw SBUF "not
		// published"); the partition-start rule and validTileSizes are the
		// compiler's shared, generation-independent utilities over a
		// 128-row array (s000 validTileSizes, s002 §3).
		Partitions:            128,
		SBUFBytesPerPartition: 0,          // hw SBUF: not published (override arch.sbuf-bytes-per-partition)
		SBUFCarveoutBytes:     0,          // not published; a user-supplied size is taken as usable
		PSUMBanks:             0,          // hw PSUM: not published (override arch.psum-banks)
		PSUMBankBytes:         0,          // hw PSUM: not published (override arch.psum-bank-bytes)
		QuadrantPartitions:    32,         // [inferred] as Partitions
		GpSimdCores:           0,          // aws-v1: three main engines (Tensor/Vector/Scalar), no GpSimd
		Tile:                  nkiTiles(), // [inferred] NKI does not target NC-v1; the NC-v2 constants are used
		MatmulMaxNFP32Dst:     512,        // [inferred] one 512-fp32 bank as on NC-v2
		MatmulMaxNBF16Dst:     0,          // aws-v1: TensorEngine outputs FP32/INT32

		MaxCceDmaSource: 16, // [inferred] see trn1

		HBMBytes:       8 * GiB,                 // aws-v1: 8 GiB of device DRAM per chip
		HBMBytesPerSec: 50 * float64(GiB),       // aws-v1: 50 GiB/s
		BF16TFLOPS:     16,                      // hw: 16 (FP16) per core; aws-v1: 64 FP16/BF16 TFLOPS per 4-core chip
		Cost:           perfModes(nkiCost(), 1), // [inferred] the NKI table

		DVEPoolShareSBUF: true,  // no GpSimd engine: nothing to share with
		DVEActSharePSUM:  false, // [inferred] the NC-v2 restriction (the more restrictive reading)
		ActReduceMaxMin:  false, // [inferred] NC-v2's add-only accumulator (the more restrictive reading)
	}
	encoding(m)
	syncModel(m)
	// [inferred] the NC-v2 DMA model; aws-v1: 50 GiB/s device DRAM
	// bandwidth shared by four cores is 12.5 GiB/s = 13.4 B/ns per core:
	// 0.84 B/ns per engine of 16.
	dmaModel(m, 13.4/dmaEngines)
	// aws-v1: the engines are Tensor, Vector and Scalar. Clocks are not
	// published: [inferred] the NC-v2 clocks, so the cost model gives
	// consistent relative figures (hw: "consistent, documented model").
	m.Engines[bir.EngPE] = EngineInfo{Present: true, ClockGHz: 2.8}
	m.Engines[bir.EngDVE] = EngineInfo{Present: true, ClockGHz: 1.12}
	m.Engines[bir.EngAct] = EngineInfo{Present: true, ClockGHz: 1.4}
	m.Engines[bir.EngSP] = EngineInfo{Present: true, ClockGHz: 1.4} // [inferred]
	m.Engines[bir.EngDMA] = EngineInfo{Present: true}
	m.Notes = []string{
		semaphoreNote,
		"NC-v1 SBUF and PSUM geometry are not published: capacity checks need arch.sbuf-bytes-per-partition, arch.psum-banks and arch.psum-bank-bytes",
		"partitions inferred as 128 (the shared partition-start and tile tables)",
		"no GpSimd engine (Tensor, Vector and Scalar engines only)",
		"engine clocks not published: the NC-v2 clocks are used for relative costs",
		"DMA bandwidth inferred: 50 GiB/s per chip / 4 cores / 16 engines",
		"MaxCceDmaSource not published: 16 (NKI dma_compute source limit)",
	}
	return m
}
