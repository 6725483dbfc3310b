// Package arch holds narwhal's machine models: one plain-data Model per
// NeuronCore generation narwhal targets, and the hardware rules that are
// functions of the geometry rather than of one pass (the partition-start
// rule, the matmul tile table, the cost model).
//
// Every number a pass, the verifier or the scheduler needs about the machine
// lives here as data, never as a literal scattered through passes
// (../shared/docs/hardware.md: "Every number here belongs in arch/ as data,
// with its source in a comment"). Each field of the four models carries its
// source in a comment: a hardware.md row, a seed section, a public AWS Neuron
// document, or [inferred] with the reasoning.
//
// Generations and names. The models are
//
//	inf1  NC-v1  "tonga"   BIR-JSON "gen1"  ArchLevel 10
//	trn1  NC-v2  "sunda"   BIR-JSON "gen2"  ArchLevel 20   (also Inf2)
//	trn2  NC-v3  "cayman"  BIR-JSON "gen3"  ArchLevel 30   (KLR's default)
//	trn3  NC-v4            BIR-JSON "gen4"  ArchLevel 40
//
// Lookup accepts any of those spellings (case-insensitive; "-" and "_" are
// ignored, so "NC-v2", "ncv2" and "nc_v2" are one name).
//
// ArchLevel. Seed 000 gates SBSizeLegalization on the original compiler's
// ArchLevel enum: 10 takes a special path that falls through to the full
// legalization, any other level <= 19 makes the pass a no-op, and levels
// > 19 run it in full. The seed does not bind levels to codenames
// (SPECULATIVE in the seed). narwhal's binding is inf1 = 10 (the seed's own
// comment calls 10 "gen1 Inferentia"), trn1 = 20, trn2 = 30, trn3 = 40,
// leaving 11..19 reserved for pre-NC-v2 variants narwhal does not model.
// The point of the choice: the legalization runs on every generation narwhal
// targets (inf1 through the special path, the others through the full path),
// and the no-op branch is reachable only by levels no narwhal model has.
// SBSizeLegalizationGate implements the gate on a level.
//
// Unknown figures. Some NC-v1 figures are not published (SBUF and PSUM
// geometry, clocks). A capacity that is not published is 0 in the model and
// its accessor reports it as unknown; passes that need it fail with an error
// that names the override option, and the verifier skips the checks that
// need it. A guessed capacity could produce programs that do not fit, so
// narwhal does not guess capacities. Clocks are different: the cost model
// only needs to be consistent (hardware.md: "the scheduler needs a
// consistent, documented model, not cycle accuracy"), so NC-v1 clocks are
// [inferred] from NC-v2.
//
// Machine parameters: one way to set each, with one precedence. Every
// settable parameter has an option name (OptionNames lists them, `narwhal
// passes` prints them). A module sets one with its config option
// "arch.NAME" (BIR-JSON, text form: `option arch.max-cce-dma-source =
// "8"`); the command line sets one with `--option arch.NAME=VALUE` and
// the model with `--arch A`. Retarget applies the command line to a module
// and returns the model, in this order:
//
//  1. the model named by --arch, else by the module's arch string, else
//     DefaultName;
//  2. the module's arch.* options (kept when --arch changes the model);
//  3. the command line's --option arch.NAME=VALUE, which replace the
//     module's value of the same NAME.
//
// Retarget records the result in the module (its arch string and arch.*
// options), so ForModule of the module - what the interpreter, the
// verifier and a later `narwhal run` of the saved output use - gives the
// same model. In tests a Model is plain data: Clone it and set fields, or
// set one by name with Set ("max-cce-dma-source", "8").
package arch

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Byte-size helpers.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// ArchLevel numbers of the generations (see the package comment).
const (
	LevelInf1 = 10 // seed 000: "10 = gen1 Inferentia: special path"
	LevelTrn1 = 20 // narwhal's binding: first level > 19 (full legalization)
	LevelTrn2 = 30 // narwhal's binding
	LevelTrn3 = 40 // narwhal's binding
)

// EngineInfo describes one engine of a NeuronCore.
type EngineInfo struct {
	Present  bool    // the generation has this engine
	ClockGHz float64 // engine clock; cycles / ClockGHz = ns
	Lanes    int64   // partitions processed in parallel (0 if not published)
}

// Model is the machine model of one NeuronCore generation. It is plain data:
// Clone it and change fields to override.
type Model struct {
	// Identity.
	Name      string // canonical name: "trn1", "trn2", "trn3", "inf1"
	Codename  string // "sunda", "cayman", "tonga", "" when none is public
	Core      string // "NC-v1" .. "NC-v4"
	BIRArch   string // BIR-JSON arch string: "gen1" .. "gen4"
	ArchLevel int    // the seeds' ArchLevel (see the package comment)

	// On-chip geometry.
	Partitions              int64 // SBUF and PSUM partitions
	SBUFBytesPerPartition   int64 // physical SBUF bytes per partition; 0 = not published
	SBUFCarveoutBytes       int64 // runtime carve-out per partition (seed 002 §4.6)
	PSUMBanks               int64 // PSUM banks per partition (the 8-bank view); 0 = not published
	PSUMBankBytes           int64 // bytes per PSUM bank per partition; 0 = not published
	QuadrantPartitions      int64 // partition quadrant (DMA quadrant, partition-start granularity)
	GpSimdCores             int64 // GpSimd cores (0 when there is no GpSimd engine)
	GpSimdPartitionsPerCore int64

	// Engine access-pattern encoding (hardware.md "Engine access patterns").
	MaxFreeDims int   // free dimensions of an engine AP (pairs after the partition pair)
	MaxAPNum    int64 // largest num of a free pair (uint16)
	MinAPStep   int64 // smallest step of a free pair (int16)
	MaxAPStep   int64 // largest step of a free pair (int16)

	// NKI tile-size constants (hardware.md "NKI tile-size constants").
	Tile TileConstants

	// Matmul moving free size limits (semantics.md §4.7): N <= one PSUM bank
	// on NC-v2/v3; NC-v4 allows more, depending on the destination dtype.
	MatmulMaxNFP32Dst int64
	MatmulMaxNBF16Dst int64 // 0 = a bf16 destination is not supported

	// Engines, indexed by bir.Engine (EngUnassigned is never Present).
	Engines [bir.NumEngines]EngineInfo

	// DMA (arch/cost.go "The DMA model").
	DMAQueues             int64   // DMA queue IDs per core (a transfer goes to one queue, across the engines)
	DMAEngines            int64   // DMA engines per core (each serves Partitions/DMAEngines partitions)
	HWDGEEngines          int64   // hardware descriptor-generation engines (0 = none)
	DMABytesPerNs         float64 // bandwidth of one DMA engine at full efficiency
	DMAFixedNs            float64 // fixed latency of a DMA with pre-generated descriptors (on its queue, before its bytes move)
	SWDGEFixedNs          float64 // fixed latency of a DMA whose descriptors the software DGE (GpSimd) generates at run time
	HWDGEFixedNs          float64 // fixed latency of a hardware-DGE DMA (0 = same as DMAFixedNs)
	DMAFullBandwidthBytes int64   // contiguous bytes per partition from which an engine runs at full bandwidth
	DMASmallBytes         int64   // contiguous bytes per partition at and below which the efficiency is DMASmallEfficiency
	DMASmallEfficiency    float64 // fraction of full bandwidth from DMAMinRunBytes to DMASmallBytes
	DMAMinRunBytes        int64   // below this many contiguous bytes the efficiency falls in proportion
	MaxCceDmaSource       int64   // seed 001 board.device.core.MaxCceDmaSource

	// HBM per chip.
	HBMBytes       int64
	HBMBytesPerSec float64

	// Headline throughput per core (reports only).
	BF16TFLOPS float64

	// Cost-model constants (hardware.md "Cost model"), in engine cycles.
	Cost CostConstants

	// NC-v2 engine-sharing restrictions (hardware.md "Rules"): Vector and
	// GpSimd cannot use SBUF at the same time; Vector and Scalar cannot use
	// PSUM at the same time. NC-v3 lifts both.
	DVEPoolShareSBUF bool // false: DVE and Pool must not access SBUF concurrently
	DVEActSharePSUM  bool // false: DVE and Act must not access PSUM concurrently

	// Synchronization (seed 002 §6.5, hardware.md "EventSemaphore"): the
	// semaphores the engines and DMA queues signal each other through.
	// Counts and widths are not published: narwhal chooses them (see
	// syncModel in models.go) and each is an option.
	Sync SyncParams

	// ActReduceMaxMin: the Activation accumulator also reduces with max
	// and min (semantics.md §4.6: "add only on v2; activate2 adds
	// max/min"); false: add only.
	ActReduceMaxMin bool

	// Notes records the [inferred] and unpublished figures of this model,
	// for reports.
	Notes []string
}

// SyncParams are the synchronization parameters of a NeuronCore.
type SyncParams struct {
	// Semaphores is the number of hardware semaphores of one NeuronCore,
	// numbered 0..Semaphores-1 (not published: chosen).
	Semaphores int64
	// SemaphoreBits is the width of one semaphore counter: a semaphore
	// counts 0..2^SemaphoreBits-1 (not published: chosen); a counter that
	// would overflow is rotated (AllEngineBarrier + GroupResetSemaphores).
	SemaphoreBits int64
	// SemaphoreNs is the latency from an engine's semaphore update to the
	// start of an engine instruction waiting on it (not published:
	// chosen).
	SemaphoreNs float64
	// DMASemaphoreNs is the latency from a semaphore update to the start
	// of a DMA waiting on it (hardware.md: "cross-engine DMA
	// semaphore-to-start about 1300 ns").
	DMASemaphoreNs float64
	// WaitsPerInst and UpdatesPerInst are the wire limit of one
	// instruction (seed 002 §6.5: "EventSemaphore must have <= 2 wait
	// commands, and <= 1 update command").
	WaitsPerInst   int64
	UpdatesPerInst int64
}

// MaxSemaphoreValue returns the largest value a semaphore counter holds.
func (m *Model) MaxSemaphoreValue() int64 {
	b := min(max(m.Sync.SemaphoreBits, 1), 31)
	return 1<<b - 1
}

// TileConstants are NKI's tile-size constants.
type TileConstants struct {
	PMax               int64 // partitions of a tile
	PSUMFMax           int64 // fp32 elements of a PSUM bank per partition (psum_fmax)
	GemmStationaryFMax int64 // stationary free size of a matmul
	GemmMovingFMax     int64 // moving free size of a matmul
	BNStatsFMax        int64 // bn_stats free size
	SBUFMaxFreeElems   int64 // free elements of an SBUF tile
	PSUMMaxFreeElems   int64 // free elements of a PSUM tile
}

// CostConstants are the cost model's constants, in engine cycles unless
// a field says otherwise (arch/cost.go "The instruction rows").
type CostConstants struct {
	MinII               int64 // minimum initiation interval of an engine instruction
	GpSimdStart         int64 // GpSimd instruction start-up overhead
	MinIIDynamic        int64 // minimum II of a dynamic instruction (tensor_copy_dynamic_*)
	StaticOverhead      int64 // static instruction overhead (a dependent or idle-start instruction)
	AccessOverhead      int64 // SBUF/PSUM access start overhead (with StaticOverhead: the readiness latency)
	MatmulStationaryMin int64 // the 64 of max(min(64, N_stationary), N_moving)
	MatmulFP32Factor    int64 // the x4 for fp32 matmul inputs
	TransposeFreeMin    int64 // the 64 of max(P, min(64, F))
	ReadAccumulator     int64 // ActReadAccumulator (activation_reduce's second instruction)
	BNAggrPer3          int64 // bn_aggr: max(MIN_II, BNAggrPer3 * N/3)
	ReciprocalDVEFactor int64 // reciprocal on Vector: max(MIN_II, factor * N)
	StrideBytes         int64 // an innermost stride above this many bytes halves the SBUF/PSUM bandwidth
	StridePenalty       int64 // the factor such an instruction's row takes
	VectorPerfMode      bool  // NC-v3+: Vector's 2x/4x performance mode for 16-bit floats
	VectorPerfModeFP8   bool  // NC-v4: the mode covers fp8 too
	ScalarPerfMode      bool  // NC-v4: Scalar's 2x mode for tensor_scalar/tensor_copy in 16-bit floats
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Notes = append([]string(nil), m.Notes...)
	return &c
}

// UsableSBUFBytes returns the SBUF bytes per partition a program may use
// (physical minus the runtime carve-out), or 0 when not published or when
// the carve-out takes it all.
func (m *Model) UsableSBUFBytes() int64 {
	if m.SBUFBytesPerPartition <= 0 {
		return 0
	}
	return max(m.SBUFBytesPerPartition-m.SBUFCarveoutBytes, 0)
}

// TilePartitions is the partition count of the tiles sunda_size_tiling
// makes: pmax, or fewer on a machine with fewer partitions (a what-if,
// arch.partitions=32), rounded down to the quadrant.
func (m *Model) TilePartitions() int64 {
	p := m.Tile.PMax
	if m.Partitions > 0 && m.Partitions < p {
		p = m.Partitions
		if q := m.QuadrantPartitions; q > 0 && p >= q {
			p -= p % q
		}
	}
	return p
}

// PSUMBytesPerPartition returns banks x bank bytes, or 0 when not published.
func (m *Model) PSUMBytesPerPartition() int64 {
	if m.PSUMBanks <= 0 || m.PSUMBankBytes <= 0 {
		return 0
	}
	return m.PSUMBanks * m.PSUMBankBytes
}

// SBUFBudget returns UsableSBUFBytes, or an error naming the override when
// the figure is not published for this generation.
func (m *Model) SBUFBudget() (int64, error) {
	if u := m.UsableSBUFBytes(); u > 0 {
		return u, nil
	}
	if m.SBUFBytesPerPartition > 0 {
		// Set (the model's or an option's), but the runtime carve-out
		// (seed 002 §4.6) takes every byte of it.
		return 0, diag.Errorf(diag.PassOption, "arch %s: arch.sbuf-bytes-per-partition=%d is at or below the runtime's SBUF carve-out of %d bytes per partition (arch.sbuf-carveout-bytes): no SBUF is left for the program (want more than %d bytes per partition)", m.Name, m.SBUFBytesPerPartition, m.SBUFCarveoutBytes, m.SBUFCarveoutBytes)
	}
	return 0, diag.Errorf(diag.PassOption, "arch %s: the SBUF size per partition is not published; set it with --option arch.sbuf-bytes-per-partition=N (or the module option arch.sbuf-bytes-per-partition)", m.Name)
}

// PSUMBudget returns PSUMBytesPerPartition, or an error naming the overrides
// when the figure is not published.
func (m *Model) PSUMBudget() (int64, error) {
	if p := m.PSUMBytesPerPartition(); p > 0 {
		return p, nil
	}
	return 0, diag.Errorf(diag.PassOption, "arch %s: the PSUM geometry is not published; set it with --option arch.psum-banks=N and --option arch.psum-bank-bytes=N (or the module options of those names)", m.Name)
}

// PSUMAddress returns the byte address within a partition's PSUM of a
// location allocated at (bank, addr). narwhal's convention (the psum.pyi
// triple of seed 002 §4.2: bank_id, start_partition, byte_addr): MemLoc.Bank
// is the bank and MemLoc.Addr the byte offset inside that bank, so the
// partition-relative address is bank * PSUMBankBytes + addr.
func (m *Model) PSUMAddress(bank, addr int64) int64 { return bank*m.PSUMBankBytes + addr }

// Clock returns the clock of engine e in GHz, or 0 when e is absent or its
// clock is not known.
func (m *Model) Clock(e bir.Engine) float64 {
	if e >= bir.NumEngines || !m.Engines[e].Present {
		return 0
	}
	return m.Engines[e].ClockGHz
}

// HasEngine reports whether the generation has engine e.
func (m *Model) HasEngine(e bir.Engine) bool { return e < bir.NumEngines && m.Engines[e].Present }

// MatmulMaxN returns the largest moving free size (N) of one matmul whose
// destination has dtype dst, or 0 when that destination dtype is not
// supported by the generation.
func (m *Model) MatmulMaxN(dst bir.Dtype) int64 {
	switch dst {
	case bir.Float32, bir.Float32R:
		return m.MatmulMaxNFP32Dst
	case bir.BFloat16:
		return m.MatmulMaxNBF16Dst
	}
	return 0
}

// MatmulSpansBanks reports whether a matmul destination row may span PSUM
// banks: the generation's moving free size limit is wider than one bank
// (semantics.md §4.7: N <= 512 on NC-v2/v3, one bank; <= 4096 fp32 / 8192
// bf16 on NC-v4).
func (m *Model) MatmulSpansBanks() bool {
	return m.MatmulMaxNFP32Dst*4 > m.PSUMBankBytes || m.MatmulMaxNBF16Dst*2 > m.PSUMBankBytes
}

// ---- lookup ----

// normalize lower-cases a name and drops "-", "_", "." and spaces.
func normalize(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '_' || c == ' ' || c == '.':
			continue
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// aliases maps normalized names to the canonical model name. The accepted
// spellings per model are listed in Names.
var aliases = map[string]string{
	// NC-v1.
	"inf1": "inf1", "tonga": "inf1", "gen1": "inf1", "ncv1": "inf1", "neuroncorev1": "inf1",
	"inferentia": "inf1", "corev1": "inf1",
	// NC-v2 (Trn1 and Inf2 share the core).
	"trn1": "trn1", "sunda": "trn1", "gen2": "trn1", "ncv2": "trn1", "neuroncorev2": "trn1",
	"inf2": "trn1", "trn1n": "trn1", "corev2": "trn1",
	// NC-v3.
	"trn2": "trn2", "cayman": "trn2", "gen3": "trn2", "ncv3": "trn2", "neuroncorev3": "trn2",
	"corev3": "trn2",
	// NC-v4. "mariana" is [inferred]: seed 002 lists the per-generation
	// codegen targets as "sunda/cayman/mariana/maverick"; sunda is NC-v2 and
	// cayman NC-v3, so mariana is taken as the next generation, NC-v4.
	"trn3": "trn3", "gen4": "trn3", "ncv4": "trn3", "neuroncorev4": "trn3", "corev4": "trn3",
	"mariana": "trn3",
}

// DefaultName is the model used for a module whose arch string is empty:
// trn2, because BIR-JSON's arch defaults to "gen3" (bir-json.md §1, KLR's
// emitter default).
const DefaultName = "trn2"

// Names returns every accepted spelling, sorted (for help texts and errors).
func Names() []string {
	out := make([]string, 0, len(aliases)+4)
	out = append(out, "trn1", "trn2", "trn3", "inf1", "NC-v1", "NC-v2", "NC-v3", "NC-v4")
	seen := map[string]bool{"trn1": true, "trn2": true, "trn3": true, "inf1": true, "ncv1": true, "ncv2": true, "ncv3": true, "ncv4": true}
	var rest []string
	for k := range aliases {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// Lookup returns a fresh copy of the model named name (any accepted
// spelling). The result may be modified freely.
func Lookup(name string) (*Model, error) {
	canon, ok := aliases[normalize(name)]
	if !ok {
		return nil, diag.Errorf(diag.UnknownArch, "arch: unknown architecture %q (accepted: %s)", name, strings.Join(Names(), ", "))
	}
	return models[canon]().Clone(), nil
}

// LookupLevel returns the model of an ArchLevel number.
func LookupLevel(level int) (*Model, error) {
	switch level {
	case LevelInf1:
		return Lookup("inf1")
	case LevelTrn1:
		return Lookup("trn1")
	case LevelTrn2:
		return Lookup("trn2")
	case LevelTrn3:
		return Lookup("trn3")
	}
	return nil, fmt.Errorf("arch: no model for ArchLevel %d (narwhal models %d inf1, %d trn1, %d trn2, %d trn3; 11..19 are pre-NC-v2 variants narwhal does not model)",
		level, LevelInf1, LevelTrn1, LevelTrn2, LevelTrn3)
}

// All returns fresh copies of every model, oldest generation first.
func All() []*Model {
	return []*Model{models["inf1"]().Clone(), models["trn1"]().Clone(), models["trn2"]().Clone(), models["trn3"]().Clone()}
}

// ForModule returns the model of m's arch string (DefaultName when empty)
// with m's "arch.*" config options applied.
func ForModule(m *bir.Module) (*Model, error) {
	if m == nil {
		return nil, fmt.Errorf("arch: nil module")
	}
	name := m.Arch
	if name == "" {
		name = DefaultName
	}
	mod, err := Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("module arch: %w", err)
	}
	if err := mod.ApplyOptions(m.Config.Options); err != nil {
		return nil, diag.Errorf(diag.PassOption, "module config: %w", err)
	}
	return mod, nil
}

// Retarget applies the command line's machine settings to module m and
// returns the resulting model (see "Machine parameters" in the package
// comment for the precedence). name is --arch ("" keeps the module's);
// opts maps option names, without the "arch." prefix, to values (the
// command line's --option arch.NAME=VALUE). On success m's arch string
// is the model's canonical name when name is given, and each opts entry is
// recorded as m's config option "arch.NAME"; on error m is unchanged.
func Retarget(m *bir.Module, name string, opts map[string]string) (*Model, error) {
	if m == nil {
		return nil, fmt.Errorf("arch: nil module")
	}
	modName := m.Arch
	if name != "" {
		base, err := Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("--arch: %w", err)
		}
		modName = base.Name
	} else if modName == "" {
		modName = DefaultName
	}
	model, err := Lookup(modName)
	if err != nil {
		return nil, fmt.Errorf("module arch: %w", err)
	}
	if err := model.ApplyOptions(m.Config.Options); err != nil {
		return nil, diag.Errorf(diag.PassOption, "module config: %w", err)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := model.Set(k, opts[k]); err != nil {
			return nil, diag.Errorf(diag.PassOption, "--option %s%s=%s: %w", OptionPrefix, k, opts[k], err)
		}
	}
	set := setNames(m.Config.Options, true)
	for k := range opts {
		set[k] = true
	}
	if err := model.settle(set); err != nil {
		return nil, diag.Wrap(diag.PassOption, err)
	}
	if name != "" {
		m.Arch = modName
	}
	if len(keys) > 0 && m.Config.Options == nil {
		m.Config.Options = map[string]string{}
	}
	for _, k := range keys {
		m.Config.Options[OptionPrefix+k] = opts[k]
	}
	return model, nil
}

// ---- DMA descriptors (seed 001) ----

// PartitionContiguous is the DMA descriptor rule behind seed 001's
// isPartitionContiguous, for the source pattern of a Load (whose
// destination's pair 0 walks partitions): it holds iff the free pairs
// (1..) walk consecutive elements, so each partition's data is one
// contiguous run. After dropping pairs of num 1, the innermost pair has
// step 1 and each outer pair's step is the product of the nums inside it;
// a pattern with no free pair qualifies. legalize_strided_dma (R0) and
// the verifier's strided-load rule read it; passes/dma's file comment
// argues the reading.
func PartitionContiguous(p bir.Pattern) bool {
	run := int64(1)
	for d := len(p) - 1; d >= 1; d-- {
		q := p[d]
		if q.Num == 1 {
			continue
		}
		if q.Step != run {
			return false
		}
		run *= q.Num
	}
	return true
}

// StaticDMADescriptors reports whether the descriptors of DMA instruction
// i of f can be generated ahead of time: Load, Save, DMA, and a DMACopy in
// Copy or Transpose mode. The others (indirect DMAs, whose addresses are
// read at run time; CCE copies; the descriptor opcodes) need descriptors
// generated while the program runs, by the software DGE on GpSimd (NKI
// dma_copy: "nisa.dge_mode.swdge: Gpsimd Engine generates DMA descriptors
// as part of the nisa.dma_copy instruction during NEFF execution").
// assign_hwdge_engine gives only static DMAs a hardware DGE; the
// trigger-engine assignment sends the others to GpSimd.
func StaticDMADescriptors(f *bir.Function, i bir.InstID) bool {
	switch f.Inst(i).Op {
	case bir.OpLoad, bir.OpSave, bir.OpDMA:
		return true
	case bir.OpDMACopy:
		mode := f.Attrs(i).Str("mode", "Copy")
		return mode == "Copy" || mode == "Transpose"
	}
	return false
}

// ---- SBSizeLegalization gate (seed 000) ----

// SBGate is what SBSizeLegalization does on an ArchLevel.
type SBGate uint8

const (
	SBGateNoOp    SBGate = iota // level <= 19 other than 10: the pass does nothing
	SBGateSpecial               // level 10: the special path, which runs the full legalization
	SBGateFull                  // level > 19: full legalization
)

func (g SBGate) String() string {
	switch g {
	case SBGateNoOp:
		return "no-op"
	case SBGateSpecial:
		return "special"
	}
	return "full"
}

// SBSizeLegalizationGate is seed 000's gate: "arch == 0xa -> full path;
// arch <= 0x13 -> no-op; else full".
func SBSizeLegalizationGate(level int) SBGate {
	switch {
	case level == 10:
		return SBGateSpecial
	case level <= 19:
		return SBGateNoOp
	}
	return SBGateFull
}

// SBSizeLegalizationRuns reports whether the gate runs the legalization.
func SBSizeLegalizationRuns(level int) bool { return SBSizeLegalizationGate(level) != SBGateNoOp }

// ---- overrides ----

type option struct {
	name string
	doc  string
	ptr  func(m *Model) any // *int64, *float64, *int or *bool
	// lo, hi bound an integer value (inclusive), flo, fhi a float value;
	// why says where the bounds come from (issue 27, item 5: every
	// machine parameter has a documented range, checked before use).
	// Every integer and float option declares its range
	// (TestOptions_EveryRange).
	lo, hi   int64
	flo, fhi float64
	// zeroOK admits 0 beside lo..hi (0 means "unsupported" or "none");
	// pow2 asks for a power of two.
	zeroOK, pow2 bool
	why          string
}

// Ranges. A what-if may change the machine within what narwhal's passes
// model: where a pass or an encoding assumes the published value (pack's
// 32-partition quadrants, the access-pattern fields the tiler encodes
// into), a narrower value is refused rather than ignored and then failed
// on by the final verification; sizes stop where the interpreter's
// storage, the allocator's coordinates or the schedule's picosecond
// times would overflow; costs stop at 2^20 cycles (about a millisecond)
// and 10^7 ns (10 ms) per instruction, so that a 25M-instruction
// schedule stays far inside int64 picoseconds.
const (
	maxCostCycles = 1 << 20
	maxCostNs     = 1e7
	maxSBUFBytes  = 1 << 26 // 64 MiB per partition (NC-v3: 224 KiB)
)

// options is every settable machine parameter: each numeric or boolean
// field of Model (TestOptions_EveryParameter checks that none is missing).
var options = append([]option{
	{name: "arch-level", doc: "the seeds' ArchLevel (10 inf1, 20 trn1, 30 trn2, 40 trn3; gates sb_size_legalization)", ptr: func(m *Model) any { return &m.ArchLevel }, lo: LevelInf1, hi: LevelTrn3, why: "the seeds' levels of inf1 to trn3"},
	{name: "partitions", doc: "SBUF/PSUM partitions", ptr: func(m *Model) any { return &m.Partitions }, lo: 32, hi: 128, why: "at least one 32-partition quadrant (the DMA quadrants, the partition-start rule, pack's placement), at most the 128 every NeuronCore has; tile-pmax follows it down unless set"},
	{name: "sbuf-bytes-per-partition", doc: "physical SBUF bytes per partition", ptr: func(m *Model) any { return &m.SBUFBytesPerPartition }, lo: 4 << 10, hi: maxSBUFBytes, why: "4 KiB (a PSUM bank's worth) to 64 MiB per partition, above sbuf-carveout-bytes; the interpreter's SBUF and the allocator's coordinates are sized by it"},
	{name: "sbuf-carveout-bytes", doc: "runtime SBUF carve-out per partition", ptr: func(m *Model) any { return &m.SBUFCarveoutBytes }, lo: 0, hi: maxSBUFBytes, why: "0 to 64 MiB, below sbuf-bytes-per-partition"},
	{name: "psum-banks", doc: "PSUM banks per partition", ptr: func(m *Model) any { return &m.PSUMBanks }, lo: 1, hi: 64, why: "1 to 64 banks (the 8-bank view of NC-v2..v4; an accumulation group owns a bank)"},
	{name: "psum-bank-bytes", doc: "bytes per PSUM bank per partition", ptr: func(m *Model) any { return &m.PSUMBankBytes }, lo: 512, hi: 1 << 20, pow2: true, why: "a power of two of 512 bytes (128 fp32) to 1 MiB; tile-psum-fmax follows it down unless set"},
	{name: "quadrant-partitions", doc: "partition quadrant (DMA quadrant, partition-start granularity)", ptr: func(m *Model) any { return &m.QuadrantPartitions }, lo: 32, hi: 32, why: "pack's 2-D solver places SBUF by 32-partition quadrants (seed 002 §3): no other quadrant is modelled"},
	{name: "gpsimd-cores", doc: "GpSimd cores", ptr: func(m *Model) any { return &m.GpSimdCores }, lo: 1, hi: 128, why: "1 to 128 cores, with gpsimd-cores x gpsimd-partitions-per-core at most partitions"},
	{name: "gpsimd-partitions-per-core", doc: "partitions per GpSimd core", ptr: func(m *Model) any { return &m.GpSimdPartitionsPerCore }, lo: 1, hi: 128, why: "1 to 128 partitions, with gpsimd-cores x gpsimd-partitions-per-core at most partitions"},
	{name: "max-free-dims", doc: "free dimensions of an engine access pattern", ptr: func(m *Model) any { return &m.MaxFreeDims }, lo: 4, hi: 16, why: "the tiler and the footprint passes write up to the hardware's 4 free dimensions; a wider encoding (up to 16) is a what-if, a narrower one is not modelled"},
	{name: "max-ap-num", doc: "largest num of an engine free pair", ptr: func(m *Model) any { return &m.MaxAPNum }, lo: 1<<16 - 1, hi: 1<<31 - 1, why: "the hardware's uint16 field (65535) or wider, to int32: the tiler does not re-encode a pattern into a narrower field"},
	{name: "min-ap-step", doc: "smallest step of an engine free pair (negative)", ptr: func(m *Model) any { return &m.MinAPStep }, lo: -1 << 31, hi: -1 << 15, why: "the hardware's int16 field (-32768) or wider, to int32: the tiler does not re-encode a pattern into a narrower field"},
	{name: "max-ap-step", doc: "largest step of an engine free pair", ptr: func(m *Model) any { return &m.MaxAPStep }, lo: 1<<15 - 1, hi: 1<<31 - 1, why: "the hardware's int16 field (32767) or wider, to int32: the tiler does not re-encode a pattern into a narrower field"},
	{name: "tile-pmax", doc: "NKI pmax: partitions of a tile", ptr: func(m *Model) any { return &m.Tile.PMax }, lo: 32, hi: 128, why: "tiles are quadrant-aligned: one to four 32-partition quadrants, at most partitions"},
	{name: "tile-psum-fmax", doc: "NKI psum_fmax: fp32 elements of a PSUM bank per partition", ptr: func(m *Model) any { return &m.Tile.PSUMFMax }, lo: 128, hi: 1 << 18, why: "128 fp32 elements to 2^18, at most one bank (psum-bank-bytes / 4)"},
	{name: "tile-gemm-stationary-fmax", doc: "NKI gemm_stationary_fmax", ptr: func(m *Model) any { return &m.Tile.GemmStationaryFMax }, lo: 32, hi: 128, why: "the PE array's stationary side: one to four quadrants of its 128 rows"},
	{name: "tile-gemm-moving-fmax", doc: "NKI gemm_moving_fmax", ptr: func(m *Model) any { return &m.Tile.GemmMovingFMax }, lo: 128, hi: 1 << 16, why: "128 to 65536 moving elements (the tiler divides by it)"},
	{name: "tile-bn-stats-fmax", doc: "NKI bn_stats_fmax", ptr: func(m *Model) any { return &m.Tile.BNStatsFMax }, lo: 128, hi: 1 << 16, why: "128 to 65536 elements"},
	{name: "tile-sbuf-max-free-elems", doc: "free elements of an SBUF tile", ptr: func(m *Model) any { return &m.Tile.SBUFMaxFreeElems }, lo: 1 << 16, hi: 1 << 24, why: "the hardware's 64K or more: the tiler sizes free tiles by SBUF bytes and does not split below 64K elements"},
	{name: "tile-psum-max-free-elems", doc: "free elements of a PSUM tile", ptr: func(m *Model) any { return &m.Tile.PSUMMaxFreeElems }, lo: 1 << 12, hi: 1 << 20, why: "the hardware's 4K or more: the tiler sizes PSUM tiles by banks and does not split below 4K elements"},
	{name: "matmul-max-n-fp32", doc: "largest matmul moving free size with an fp32 destination", ptr: func(m *Model) any { return &m.MatmulMaxNFP32Dst }, lo: 128, hi: 1 << 16, why: "128 to 65536 (every generation supports an fp32 destination)"},
	{name: "matmul-max-n-bf16", doc: "largest matmul moving free size with a bf16 destination (0: unsupported)", ptr: func(m *Model) any { return &m.MatmulMaxNBF16Dst }, lo: 128, hi: 1 << 16, zeroOK: true, why: "0 (unsupported) or 128 to 65536"},
	{name: "dma-queues", doc: "DMA queue IDs per core (one transfer runs on one queue, across the DMA engines)", ptr: func(m *Model) any { return &m.DMAQueues }, lo: 1, hi: 64, why: "1 to 64 queues (NC-v2..v4 have 16): each is a stream of the synchronization and a lane of the scheduler, whose tables are sized by it"},
	{name: "dma-engines", doc: "DMA engines per core (each serves partitions/dma-engines partitions)", ptr: func(m *Model) any { return &m.DMAEngines }, lo: 1, hi: 64, why: "1 to 64 engines (NC-v2..v4 have 16): a transfer's engines are a 64-bit mask"},
	{name: "hwdge-engines", doc: "hardware descriptor-generation engines", ptr: func(m *Model) any { return &m.HWDGEEngines }, lo: 0, hi: 16, why: "0 (none) to 16"},
	{name: "dma-bytes-per-ns", doc: "bandwidth of one DMA engine in bytes/ns at full efficiency", ptr: func(m *Model) any { return &m.DMABytesPerNs }, flo: 0.01, fhi: 1e5, why: "0.01 to 10^5 bytes/ns (a cost is a division by it)"},
	{name: "dma-fixed-ns", doc: "fixed latency in ns of a DMA with pre-generated descriptors", ptr: func(m *Model) any { return &m.DMAFixedNs }, flo: 0, fhi: maxCostNs, why: "0 to 10^7 ns per DMA (schedule times stay within int64 picoseconds)"},
	{name: "swdge-fixed-ns", doc: "fixed latency in ns of a DMA whose descriptors the software DGE generates", ptr: func(m *Model) any { return &m.SWDGEFixedNs }, flo: 0, fhi: maxCostNs, why: "0 to 10^7 ns per DMA (schedule times stay within int64 picoseconds)"},
	{name: "hwdge-fixed-ns", doc: "fixed latency in ns of a hardware-DGE DMA", ptr: func(m *Model) any { return &m.HWDGEFixedNs }, flo: 0, fhi: maxCostNs, why: "0 (as dma-fixed-ns) to 10^7 ns per DMA (schedule times stay within int64 picoseconds)"},
	{name: "dma-full-bandwidth-bytes", doc: "contiguous bytes per partition from which a DMA engine runs at full bandwidth", ptr: func(m *Model) any { return &m.DMAFullBandwidthBytes }, lo: 1, hi: maxSBUFBytes, why: "1 byte to 64 MiB per partition"},
	{name: "dma-small-bytes", doc: "contiguous bytes per partition at and below which a DMA engine runs at dma-small-efficiency", ptr: func(m *Model) any { return &m.DMASmallBytes }, lo: 0, hi: maxSBUFBytes, why: "0 (no small-run step) to 64 MiB per partition"},
	{name: "dma-small-efficiency", doc: "fraction of full DMA bandwidth at dma-small-bytes and below (down to dma-min-run-bytes)", ptr: func(m *Model) any { return &m.DMASmallEfficiency }, flo: 0.001, fhi: 1, why: "a fraction, 0.001 to 1 (a DMA's time is its bytes divided by the bandwidth times it)"},
	{name: "dma-min-run-bytes", doc: "contiguous bytes below which the DMA efficiency falls in proportion", ptr: func(m *Model) any { return &m.DMAMinRunBytes }, lo: 0, hi: maxSBUFBytes, why: "0 (no proportional fall) to 64 MiB per partition"},
	{name: "max-cce-dma-source", doc: "largest source count of one CCE DMACopy (seed 001 MaxCceDmaSource)", ptr: func(m *Model) any { return &m.MaxCceDmaSource }, lo: 1, hi: 1024, why: "1 to 1024: at 1 no DMA computes on two sources, so legalize_cce_dma refuses a CCE DMACopy (NW405, the NKI line)"},
	{name: "hbm-bytes", doc: "HBM bytes per chip", ptr: func(m *Model) any { return &m.HBMBytes }, lo: 1 << 20, hi: 1 << 44, why: "1 MiB to 16 TiB"},
	{name: "hbm-bytes-per-sec", doc: "HBM bandwidth in bytes/s", ptr: func(m *Model) any { return &m.HBMBytesPerSec }, flo: 1e6, fhi: 1e16, why: "10^6 to 10^16 bytes/s"},
	{name: "bf16-tflops", doc: "BF16 TFLOPS per core (reports)", ptr: func(m *Model) any { return &m.BF16TFLOPS }, flo: 0, fhi: 1e6, why: "0 to 10^6 (reports only)"},
	{name: "min-ii", doc: "cost model MIN_II in cycles", ptr: func(m *Model) any { return &m.Cost.MinII }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per instruction (schedule times stay within int64 picoseconds)"},
	{name: "gpsimd-start", doc: "cost model GPSIMD_START in cycles", ptr: func(m *Model) any { return &m.Cost.GpSimdStart }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per instruction"},
	{name: "min-ii-dynamic", doc: "cost model minimum II of a dynamic instruction in cycles", ptr: func(m *Model) any { return &m.Cost.MinIIDynamic }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per instruction"},
	{name: "static-overhead", doc: "cost model static instruction overhead in cycles", ptr: func(m *Model) any { return &m.Cost.StaticOverhead }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per instruction (schedule times stay within int64 picoseconds)"},
	{name: "access-overhead", doc: "cost model SBUF/PSUM access overhead in cycles", ptr: func(m *Model) any { return &m.Cost.AccessOverhead }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per access (schedule times stay within int64 picoseconds)"},
	{name: "matmul-stationary-min", doc: "cost model: the 64 of max(min(64, N_stationary), N_moving)", ptr: func(m *Model) any { return &m.Cost.MatmulStationaryMin }, lo: 1, hi: 128, why: "1 to the PE array's 128 rows"},
	{name: "matmul-fp32-factor", doc: "cost model: the x4 for fp32 matmul inputs", ptr: func(m *Model) any { return &m.Cost.MatmulFP32Factor }, lo: 1, hi: 64, why: "1 to 64 (a matmul's cycles are multiplied by it)"},
	{name: "transpose-free-min", doc: "cost model: the 64 of max(P, min(64, F))", ptr: func(m *Model) any { return &m.Cost.TransposeFreeMin }, lo: 1, hi: 128, why: "1 to the PE array's 128 rows"},
	{name: "read-accumulator", doc: "cost model: ActReadAccumulator cycles (activation_reduce's + MIN_II)", ptr: func(m *Model) any { return &m.Cost.ReadAccumulator }, lo: 0, hi: maxCostCycles, why: "0 to 2^20 cycles per instruction (schedule times stay within int64 picoseconds)"},
	{name: "bn-aggr-per-3", doc: "cost model: bn_aggr's max(MIN_II, K * N/3), the K", ptr: func(m *Model) any { return &m.Cost.BNAggrPer3 }, lo: 0, hi: 64, why: "0 to 64 cycles per 3 elements (a row of up to 2^16 elements stays within 2^20 cycles)"},
	{name: "reciprocal-dve-factor", doc: "cost model: reciprocal on Vector costs max(MIN_II, factor * N)", ptr: func(m *Model) any { return &m.Cost.ReciprocalDVEFactor }, lo: 0, hi: 16, why: "0 to 16 cycles per element (the isa says 8; a row of up to 2^16 elements stays within 2^20 cycles)"},
	{name: "stride-bytes", doc: "cost model: an innermost SBUF/PSUM stride above this many bytes halves the access bandwidth", ptr: func(m *Model) any { return &m.Cost.StrideBytes }, lo: 0, hi: maxSBUFBytes, why: "0 (no stride penalty) to 64 MiB"},
	{name: "stride-penalty", doc: "cost model: the factor an instruction with such a stride takes", ptr: func(m *Model) any { return &m.Cost.StridePenalty }, lo: 1, hi: 64, why: "1 (none) to 64 (an instruction's cycles are multiplied by it)"},
	{name: "vector-perf-mode", doc: "cost model: Vector's 2x/4x performance mode for bf16/fp16 (NC-v3+)", ptr: func(m *Model) any { return &m.Cost.VectorPerfMode }},
	{name: "vector-perf-mode-fp8", doc: "cost model: Vector's performance mode covers fp8 (NC-v4)", ptr: func(m *Model) any { return &m.Cost.VectorPerfModeFP8 }},
	{name: "scalar-perf-mode", doc: "cost model: Scalar's 2x mode for bf16/fp16 tensor_scalar/tensor_copy (NC-v4)", ptr: func(m *Model) any { return &m.Cost.ScalarPerfMode }},
	{name: "dve-pool-share-sbuf", doc: "Vector and GpSimd may access SBUF concurrently", ptr: func(m *Model) any { return &m.DVEPoolShareSBUF }},
	{name: "dve-act-share-psum", doc: "Vector and Scalar may access PSUM concurrently", ptr: func(m *Model) any { return &m.DVEActSharePSUM }},
	{name: "semaphores", doc: "hardware semaphores per NeuronCore (not published: chosen)", ptr: func(m *Model) any { return &m.Sync.Semaphores }, lo: 1, hi: 1024, why: "1 to 1024 (a program that needs more than it has is refused by alloc_semaphores)"},
	{name: "semaphore-bits", doc: "width of a semaphore counter in bits (not published: chosen); a counter that would overflow is rotated", ptr: func(m *Model) any { return &m.Sync.SemaphoreBits }, lo: 1, hi: 31, why: "1 to 31 bits: a counter that would pass its width is rotated (AllEngineBarrier + GroupResetSemaphores), and counters are held in int32 on the wire"},
	{name: "semaphore-ns", doc: "latency from a semaphore update to an engine instruction waiting on it, in ns (not published: chosen)", ptr: func(m *Model) any { return &m.Sync.SemaphoreNs }, flo: 0, fhi: maxCostNs, why: "0 to 10^7 ns"},
	{name: "dma-semaphore-ns", doc: "latency from a semaphore update to a DMA waiting on it, in ns", ptr: func(m *Model) any { return &m.Sync.DMASemaphoreNs }, flo: 0, fhi: maxCostNs, why: "0 to 10^7 ns"},
	{name: "semaphore-waits-per-inst", doc: "wait commands one instruction carries (seed 002 §6.5, verifier-pinned: 2; another value is a what-if study, and the verifier's message says so)", ptr: func(m *Model) any { return &m.Sync.WaitsPerInst }, lo: 1, hi: 16, why: "1 to 16 wait commands"},
	{name: "semaphore-updates-per-inst", doc: "update commands one instruction carries (seed 002 §6.5, verifier-pinned: 1; another value is a what-if study, and the verifier's message says so)", ptr: func(m *Model) any { return &m.Sync.UpdatesPerInst }, lo: 1, hi: 16, why: "1 to 16 update commands"},
	{name: "act-reduce-max-min", doc: "the Activation accumulator reduces with max/min too (false: add only, NC-v2)", ptr: func(m *Model) any { return &m.ActReduceMaxMin }},
}, engineOptions()...)

// engineOptionNames are the option-name prefixes of the engines.
var engineOptionNames = [bir.NumEngines]string{bir.EngAct: "act", bir.EngPE: "pe", bir.EngDVE: "dve", bir.EngPool: "pool", bir.EngSP: "sp", bir.EngDMA: "dma"}

// engineOptions returns ENGINE-clock-ghz, ENGINE-lanes and ENGINE-present
// for every engine.
func engineOptions() []option {
	var out []option
	for e := range bir.NumEngines {
		n := engineOptionNames[e]
		if n == "" {
			continue // EngUnassigned is never present
		}
		out = append(out,
			option{name: n + "-clock-ghz", doc: bir.Engine(e).String() + " engine clock (a clock > 0 makes the engine present)", ptr: func(m *Model) any { return &m.Engines[e].ClockGHz }, flo: 0.01, fhi: 100, why: "0.01 to 100 GHz (a cost in ns is cycles divided by it)"},
			option{name: n + "-lanes", doc: bir.Engine(e).String() + " engine lanes", ptr: func(m *Model) any { return &m.Engines[e].Lanes }, lo: 1, hi: 128, zeroOK: true, why: "0 (not published) or 1 to 128 partitions in parallel"},
			option{name: n + "-present", doc: "the generation has the " + bir.Engine(e).String() + " engine", ptr: func(m *Model) any { return &m.Engines[e].Present }},
		)
	}
	return out
}

// OptionNames returns the names Set accepts, each with a short description,
// as "name: description" lines.
func OptionNames() []string {
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.name + ": " + o.doc
	}
	return out
}

// Set overrides one field by option name (see OptionNames). A value
// outside the option's documented range is an error naming the option,
// the range and the reason; the checks between options (tile-pmax within
// partitions, ...) are made once all are set (ApplyOptions, Retarget).
func (m *Model) Set(name, value string) error {
	for _, o := range options {
		if o.name != name {
			continue
		}
		switch p := o.ptr(m).(type) {
		case *int64:
			v, err := o.parseInt(value)
			if err != nil {
				return err
			}
			*p = v
		case *int:
			v, err := o.parseInt(value)
			if err != nil {
				return err
			}
			*p = int(v)
		case *float64:
			v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < o.flo || v > o.fhi {
				return fmt.Errorf("arch option %s: want a number %g..%g (%s), have %q", name, o.flo, o.fhi, o.why, value)
			}
			*p = v
		case *bool:
			v, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("arch option %s: want true or false, have %q", name, value)
			}
			*p = v
		}
		if eng, ok := strings.CutSuffix(name, "-clock-ghz"); ok {
			m.markClockPresent(eng)
		}
		return nil
	}
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return fmt.Errorf("arch: unknown option %q (accepted: %s)", name, strings.Join(names, ", "))
}

// rangeText is an integer option's documented range.
func (o option) rangeText() string {
	r := fmt.Sprintf("%d..%d", o.lo, o.hi)
	if o.lo == o.hi {
		r = fmt.Sprint(o.lo)
	}
	if o.pow2 {
		r = "a power of two " + r
	}
	if o.zeroOK {
		r = "0 or " + r
	}
	return r
}

// parseInt reads an integer option's value and checks its range.
func (o option) parseInt(value string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(value), 0, 64)
	if err != nil || !(v == 0 && o.zeroOK) && (v < o.lo || v > o.hi || o.pow2 && v&(v-1) != 0) {
		return 0, fmt.Errorf("arch option %s: want %s (%s), have %q", o.name, o.rangeText(), o.why, value)
	}
	return v, nil
}

// Range returns the documented range of machine parameter name and its
// reason ("" for a boolean; ok false for an unknown name).
func Range(name string) (rng, why string, ok bool) {
	for _, o := range options {
		if o.name != name {
			continue
		}
		switch o.ptr(&Model{}).(type) {
		case *int64, *int:
			return o.rangeText(), o.why, true
		case *float64:
			return fmt.Sprintf("%g..%g", o.flo, o.fhi), o.why, true
		}
		return "true or false", "", true
	}
	return "", "", false
}

// settle derives the parameters that follow others unless set
// themselves (set: the names given as options) and checks the ranges
// between options. A smaller machine is a what-if that should compile
// with no other option: with a smaller psum-bank-bytes a PSUM tile is at
// most one bank (tile-psum-fmax follows); with arch.partitions=32 the
// tiler makes tiles of 32 partitions (TilePartitions) while pmax stays
// the instruction-size limit that hand-tiled kernels are written to
// (the footprint passes split their 128-partition tiles). Explicit
// values that contradict each other are refused, naming both.
func (m *Model) settle(set map[string]bool) error {
	if m.Partitions > 0 && m.Tile.PMax > m.Partitions && set["tile-pmax"] {
		return fmt.Errorf("arch option tile-pmax: want at most arch.partitions (%d), have %d", m.Partitions, m.Tile.PMax)
	}
	if m.PSUMBankBytes > 0 && m.Tile.PSUMFMax*4 > m.PSUMBankBytes {
		if set["tile-psum-fmax"] {
			return fmt.Errorf("arch option tile-psum-fmax: want at most one PSUM bank, arch.psum-bank-bytes / 4 = %d fp32 elements, have %d", m.PSUMBankBytes/4, m.Tile.PSUMFMax)
		}
		m.Tile.PSUMFMax = m.PSUMBankBytes / 4
	}
	if (set["sbuf-bytes-per-partition"] || set["sbuf-carveout-bytes"]) && m.SBUFBytesPerPartition > 0 && m.SBUFCarveoutBytes >= m.SBUFBytesPerPartition {
		return fmt.Errorf("arch option sbuf-carveout-bytes: want less than arch.sbuf-bytes-per-partition (%d), have %d", m.SBUFBytesPerPartition, m.SBUFCarveoutBytes)
	}
	if (set["sbuf-bytes-per-partition"] || set["sbuf-carveout-bytes"]) && m.SBUFBytesPerPartition > 0 && m.UsableSBUFBytes() < 4<<10 {
		return fmt.Errorf("arch options sbuf-bytes-per-partition (%d) and sbuf-carveout-bytes (%d): want at least 4 KiB usable per partition, have %d", m.SBUFBytesPerPartition, m.SBUFCarveoutBytes, m.UsableSBUFBytes())
	}
	return nil
}

// setNames returns the option names (without the prefix) that opts sets.
func setNames(opts map[string]string, prefixed bool) map[string]bool {
	out := map[string]bool{}
	for k := range opts {
		if prefixed {
			var ok bool
			if k, ok = strings.CutPrefix(k, OptionPrefix); !ok {
				continue
			}
		}
		out[k] = true
	}
	return out
}

// markClockPresent keeps Present consistent with a clock set by an
// option: the engine named eng is present when its clock is > 0.
func (m *Model) markClockPresent(eng string) {
	for e, n := range engineOptionNames {
		if n == eng && m.Engines[e].ClockGHz > 0 {
			m.Engines[e].Present = true
		}
	}
}

// OptionPrefix is the prefix of module config options that override a model.
const OptionPrefix = "arch."

// ApplyOptions applies every option whose key starts with OptionPrefix
// (other keys are ignored), in sorted key order so errors are deterministic.
func (m *Model) ApplyOptions(opts map[string]string) error {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		if strings.HasPrefix(k, OptionPrefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := m.Set(strings.TrimPrefix(k, OptionPrefix), opts[k]); err != nil {
			return err
		}
	}
	return m.settle(setNames(opts, true))
}
