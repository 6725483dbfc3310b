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
// Overrides. A Model is plain data: copy it with Clone and set fields
// directly in tests, or by name with Set ("max-cce-dma-source", "8") for a
// command-line --option. ForModule applies the module's config options
// whose key starts with "arch." (for example "arch.max-cce-dma-source=8").
// OptionNames lists the settable names.
package arch

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
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

	// DMA.
	DMAQueues             int64   // DMA engines (queues) per core
	HWDGEEngines          int64   // hardware descriptor-generation engines (0 = none)
	DMABytesPerNs         float64 // bandwidth per DMA engine
	DMAFixedNs            float64 // fixed cost of one DMA
	HWDGEFixedNs          float64 // fixed cost of a hardware-DGE DMA (0 = same as DMAFixedNs)
	DMAFullBandwidthBytes int64   // bytes per partition needed for full bandwidth
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

	// Notes records the [inferred] and unpublished figures of this model,
	// for reports.
	Notes []string
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

// CostConstants are the cost model's constants, in engine cycles.
type CostConstants struct {
	MinII               int64 // minimum initiation interval of an engine instruction
	GpSimdStart         int64 // GpSimd instruction start-up overhead
	MinIIDynamic        int64 // minimum II of a dynamic instruction
	StaticOverhead      int64 // static instruction overhead
	AccessOverhead      int64 // SBUF/PSUM access overhead
	MatmulStationaryMin int64 // the 64 of max(min(64, N_stationary), N_moving)
	MatmulFP32Factor    int64 // the x4 for fp32 matmul inputs
	TransposeFreeMin    int64 // the 64 of max(P, min(64, F))
}

// Clone returns a deep copy of m.
func (m *Model) Clone() *Model {
	c := *m
	c.Notes = append([]string(nil), m.Notes...)
	return &c
}

// UsableSBUFBytes returns the SBUF bytes per partition a program may use
// (physical minus the runtime carve-out), or 0 when not published.
func (m *Model) UsableSBUFBytes() int64 {
	if m.SBUFBytesPerPartition <= 0 {
		return 0
	}
	return m.SBUFBytesPerPartition - m.SBUFCarveoutBytes
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
	return 0, fmt.Errorf("arch %s: the SBUF size per partition is not published; set it with the option arch.sbuf-bytes-per-partition=N", m.Name)
}

// PSUMBudget returns PSUMBytesPerPartition, or an error naming the overrides
// when the figure is not published.
func (m *Model) PSUMBudget() (int64, error) {
	if p := m.PSUMBytesPerPartition(); p > 0 {
		return p, nil
	}
	return 0, fmt.Errorf("arch %s: the PSUM geometry is not published; set it with the options arch.psum-banks=N and arch.psum-bank-bytes=N", m.Name)
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
		return nil, fmt.Errorf("arch: unknown architecture %q (accepted: %s)", name, strings.Join(Names(), ", "))
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
		return nil, fmt.Errorf("module config: %w", err)
	}
	return mod, nil
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
}

var options = []option{
	{"partitions", "SBUF/PSUM partitions", func(m *Model) any { return &m.Partitions }},
	{"sbuf-bytes-per-partition", "physical SBUF bytes per partition", func(m *Model) any { return &m.SBUFBytesPerPartition }},
	{"sbuf-carveout-bytes", "runtime SBUF carve-out per partition", func(m *Model) any { return &m.SBUFCarveoutBytes }},
	{"psum-banks", "PSUM banks per partition", func(m *Model) any { return &m.PSUMBanks }},
	{"psum-bank-bytes", "bytes per PSUM bank per partition", func(m *Model) any { return &m.PSUMBankBytes }},
	{"max-free-dims", "free dimensions of an engine access pattern", func(m *Model) any { return &m.MaxFreeDims }},
	{"matmul-max-n-fp32", "largest matmul moving free size with an fp32 destination", func(m *Model) any { return &m.MatmulMaxNFP32Dst }},
	{"matmul-max-n-bf16", "largest matmul moving free size with a bf16 destination (0: unsupported)", func(m *Model) any { return &m.MatmulMaxNBF16Dst }},
	{"dma-queues", "DMA queues per core", func(m *Model) any { return &m.DMAQueues }},
	{"dma-bytes-per-ns", "bandwidth of one DMA queue in bytes/ns", func(m *Model) any { return &m.DMABytesPerNs }},
	{"dma-fixed-ns", "fixed cost of a DMA in ns", func(m *Model) any { return &m.DMAFixedNs }},
	{"hwdge-fixed-ns", "fixed cost of a hardware-DGE DMA in ns", func(m *Model) any { return &m.HWDGEFixedNs }},
	{"dma-full-bandwidth-bytes", "bytes per partition for full DMA bandwidth", func(m *Model) any { return &m.DMAFullBandwidthBytes }},
	{"max-cce-dma-source", "largest sources+constants count of one CCE DMACopy (seed 001 MaxCceDmaSource)", func(m *Model) any { return &m.MaxCceDmaSource }},
	{"pe-clock-ghz", "Tensor engine clock", func(m *Model) any { return &m.Engines[bir.EngPE].ClockGHz }},
	{"dve-clock-ghz", "Vector engine clock", func(m *Model) any { return &m.Engines[bir.EngDVE].ClockGHz }},
	{"act-clock-ghz", "Scalar engine clock", func(m *Model) any { return &m.Engines[bir.EngAct].ClockGHz }},
	{"pool-clock-ghz", "GpSimd engine clock", func(m *Model) any { return &m.Engines[bir.EngPool].ClockGHz }},
	{"sp-clock-ghz", "Sync engine clock", func(m *Model) any { return &m.Engines[bir.EngSP].ClockGHz }},
	{"min-ii", "cost model MIN_II in cycles", func(m *Model) any { return &m.Cost.MinII }},
	{"gpsimd-start", "cost model GPSIMD_START in cycles", func(m *Model) any { return &m.Cost.GpSimdStart }},
	{"dve-pool-share-sbuf", "Vector and GpSimd may access SBUF concurrently", func(m *Model) any { return &m.DVEPoolShareSBUF }},
	{"dve-act-share-psum", "Vector and Scalar may access PSUM concurrently", func(m *Model) any { return &m.DVEActSharePSUM }},
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

// Set overrides one field by option name (see OptionNames). Numeric values
// must be non-negative.
func (m *Model) Set(name, value string) error {
	for _, o := range options {
		if o.name != name {
			continue
		}
		switch p := o.ptr(m).(type) {
		case *int64:
			v, err := strconv.ParseInt(value, 0, 64)
			if err != nil || v < 0 {
				return fmt.Errorf("arch option %s: want a non-negative integer, have %q", name, value)
			}
			*p = v
		case *int:
			v, err := strconv.ParseInt(value, 0, 32)
			if err != nil || v < 0 {
				return fmt.Errorf("arch option %s: want a non-negative integer, have %q", name, value)
			}
			*p = int(v)
		case *float64:
			v, err := strconv.ParseFloat(value, 64)
			if err != nil || v < 0 || v != v {
				return fmt.Errorf("arch option %s: want a non-negative number, have %q", name, value)
			}
			*p = v
		case *bool:
			v, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("arch option %s: want true or false, have %q", name, value)
			}
			*p = v
		}
		if name == "pe-clock-ghz" || name == "dve-clock-ghz" || name == "act-clock-ghz" || name == "pool-clock-ghz" || name == "sp-clock-ghz" {
			m.markClockPresent()
		}
		return nil
	}
	names := make([]string, len(options))
	for i, o := range options {
		names[i] = o.name
	}
	return fmt.Errorf("arch: unknown option %q (accepted: %s)", name, strings.Join(names, ", "))
}

// markClockPresent keeps Present consistent with a clock set by an option.
func (m *Model) markClockPresent() {
	for e := range m.Engines {
		if m.Engines[e].ClockGHz > 0 {
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
	return nil
}
