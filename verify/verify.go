// Package verify is narwhal's verifier of the in-memory IR (package bir).
// It runs between passes (--verify-each, and before and after every pass
// in tests) and on any input (`narwhal verify`), and reports every rule a
// module breaks, each as a Diag naming the function, the instruction (name
// and opcode), tensor or location, the rule, and what was wanted and found.
//
// # Stages
//
// Some rules hold only once a pass has established them ("after allocation
// every SB tensor has an address"). A Stage is a bit set of such
// properties; the pass manager ORs in the stages each pass produces
// (pass.Pass.Produces) and checks the stages a pass requires. The verifier
// checks the rules of every stage in Options.Stage on top of the rules that
// always hold.
//
//	stage                  established by                          then holds
//	StageUnrolled          FullUnroll (passes/unroll, seed 003)    no loops, no symbolic APs, operands,
//	                                                               opcodes or predicates, no carried deps
//	StageIndirectLowered   lower_generic_indirect (passes/dma,     no GenericIndirectLoad/Save remain
//	                       order 10, seed 001)
//	StageCCELegal          legalize_cce_dma (passes/dma, order 19, every CCE DMACopy has at most
//	                       seed 001); also implied per function    MaxCceDmaSource source arguments
//	                       by its stage_legalize_cce_dma_completed (checkCCEDMALegality)
//	                       attribute
//	StageSBLegal           SBSizeLegalization (passes/sbsize,      every used SB/PSUM location fits:
//	                       seed 000) together with FullUnroll's    partitions <= the arch's, SB bytes per
//	                       tensorSplit, which performs the split   partition <= usable SBUF, PSUM bytes per
//	                       SBSizeLegalization marks                partition <= banks x bank bytes
//	StageAllocated         the memory planner (passes/alloc,       every used SB/PSUM location is allocated,
//	                       seed 002 §4: pass alloc)                placed by the partition-start rule, inside
//	                                                               the usable SBUF / PSUM; every engine AP
//	                                                               starts legally; every PSUM access stays in
//	                                                               one bank per partition; matmul tile
//	                                                               positions match the operands' partitions;
//	                                                               no two live allocations overlap
//	StageEnginesAssigned   engine assignment (passes/sched)        no compute instruction is Unassigned
//	StageStridedLegal      legalize_strided_dma (passes/dma,       every Load from DRAM has a partition-
//	                       order 18, seed 001; gated)              contiguous source (arch.PartitionContiguous)
//	StageScheduled         time_aware_scheduler (passes/sched,     every instruction scheduled; dependencies
//	                       seed 002 §6.4)                          respected; no overlap on an engine, queue
//	                                                               or NC-v2 shared port; blocks in start order
//	StageSynchronized      alloc_semaphores (passes/semaphores,   every dependency ordered by stream order,
//	                       seed 002 §6.5)                          triggers, semaphore waits and updates (exact
//	                                                               happens-before); counters in range; streams
//	                                                               of the entry function end with Halt
//	StageTiled             sunda_size_tiling (passes/tiling,       no macro operation remains: every compute
//	                       seed 002 §2)                            instruction fits one hardware instruction
//	                                                               (the size rules below marked StageTiled)
//
// Macro operations. Before StageTiled an input may hold instructions over
// whole tensors larger than one hardware instruction (docs/bir-json.md,
// "Macro operations"): more than pmax partitions, more free elements than
// one access encodes, a matmul past the stationary/moving/contraction
// limits, a PSUM access wider than a bank, an operand broadcast across
// partitions (pair-0 step 0). The per-instruction size rules
// (tile-partitions, free-size, the encoding half of engine-ap, the
// broadcast half of partition-stride, matmul-limits' K/M/N, psum-tile)
// are therefore StageTiled rules: the verifier accepts macro operations
// before tiling and rejects them, with the same messages, at StageTiled
// and after. The location-level fit (sb-fit) stays a StageSBLegal rule.
//
// "Used" locations are those an instruction reaches (a physical AP names
// the location; a symbolic AP names its tensor, hence every location of
// it). Unreferenced locations are dead code, not a legality problem.
//
// # Rules
//
// Each rule has a short name (Diag.Rule). "always" rules hold at every
// stage; hardware rules that need the machine model are skipped when the
// module's arch is unknown (which is itself reported, rule "module-arch").
//
//	rule               applies        checks
//	module-arch        always         the module's arch string names a model (when Options.Arch is nil)
//	ref                always         every id resolves: functions belong to the module; locations,
//	                                  tensors, registers, patterns, expressions, predicates, attribute
//	                                  sets, names, source positions, loop table entries, dependency targets; nothing
//	                                  referenced is dead; branch targets (CompareAndBranch on_true /
//	                                  on_false, UnconditionalBranch target) name a block of the function
//	name-unique        always         function names in the module; tensor, location, instruction and
//	                                  block names in a function (empty names are not compared)
//	tables             always         the function's cached tables agree with its objects
//	                                  (bir.Function.CheckTables): the tensor, location and register
//	                                  name tables, a cached use index, and with Options.InstNameTable
//	                                  the instruction-name table once built; a stale entry means a
//	                                  name or operand was written directly
//	block              always         block structure: parent links, each block and instruction reached
//	                                  once, no dead instruction in a block
//	tensor             always         tensor fields: dtype, kind, class, shape, partition dim, block
//	                                  count, location list, split/shrink annotations
//	loc                always         location fields: memory type, sizes, owner, tensor id
//	loop               always         loop axes: stride > 0, lb <= ub, axis owned by its loop, not reused
//	                                  by a nested loop
//	sym-axis-unbound   always         every axis of a symbolic AP, symbolic immediate, predicate or
//	                                  carried dependency is bound by an enclosing loop
//	dep                always         dependency kind; non-carried targets precede in program order;
//	                                  carried ones name an enclosing loop with distance >= 1
//	opcode             always         the opcode is narwhal's or registered in the module
//	arity              always         source/destination counts within the opcode table's bounds
//	engine             always         engine in the opcode's engine set, narrowed for the variants of
//	                                  bir/isa.go (bir.InstEngines: tensor_tensor_scan, tensor_scalar_reduce,
//	                                  select_reduce DVE, tensor_partition_reduce Pool); present on the
//	                                  generation
//	dtype              always         every operand and tensor dtype <= 0x13; the location's bytes per
//	                                  partition are a multiple of the operand's dtype size
//	ap-shape           always         at most 5 [step, num] pairs, num >= 1, sizes representable
//	ap-bounds          always         physical: min and max element index of the pattern (negative steps
//	                                  included) inside [0, elements of the location); on-chip: pair 0's
//	                                  num <= the location's partitions; symbolic: block expression
//	                                  bounded over the enclosing loops inside [0, NBlocks), element range
//	                                  inside one block
//	elem-count         always         per opcode (semantics.md §1): DMA equal totals; compute engines
//	                                  equal partitions and elements per partition, [P,1] scalars and
//	                                  biases; matmul stationary [K,M], moving [K,N], dst [M,N]; PE
//	                                  transpose [P,F] -> [F,P]; tensor_reduce kept axes; iota pattern;
//	                                  tensor_tensor_scan [data0, initial [P,1], data1]; partition
//	                                  reduce [P,F] -> [1,F]; max8 family: 8..16384 searched, [P,8] values
//	                                  and indices; Vector accumulator readouts [P,1]; local_gather 16k
//	                                  partitions, num_elem_per_idx in 1..32; nc_n_gather one element per
//	                                  index; stream shuffle equal rows; sequence_bounds [1,n] -> [1,2n];
//	                                  nonzero_with_count [P,T] -> [P,T+1]; DMA transpose the permuted
//	                                  shape (verify/isa.go)
//	operand-dtype      always         the operand dtypes an instruction's NKI reference states
//	                                  (verify/isa.go): tensor_copy_predicated's uint8/16/32 predicate
//	                                  and src of dst's dtype; integer operands of bitwise partition
//	                                  reductions; uint16/uint32 indices of nc_find_index8 and
//	                                  nc_match_replace8; local_gather uint16 and nc_n_gather uint32
//	                                  indices; select_reduce's int8/16 predicate; no int32 data in
//	                                  tensor_scalar_cumulative; float readouts; range_select fp32 bounds
//	attr               always         opcode attributes the verifier reads are well formed; the AluOps a
//	                                  variant allows, the reduce commands and reduce ops of the Vector
//	                                  accumulator instructions (no readout after Idle), range_select's
//	                                  FP32_MIN fill, stream shuffle masks, transpose_op None/XZYW
//	                                  (verify/isa.go)
//	onchip-operand     always         compute-engine operands are in SBUF or PSUM
//	gpsimd-psum        always         GpSimd never reads or writes PSUM (seed 002 §4.4 strings)
//	customop-memory    always         custom-op operands in SBUF or HBM (seed 002 §4.4 strings)
//	pe-memory          always         the Tensor engine (matmul, PE transpose) reads SBUF, writes PSUM
//	dma-psum           always         DMA never reads PSUM
//	tt-psum            always         tensor_tensor inputs are not both in PSUM
//	engine-ap          always         compute-engine on-chip APs: <= 4 free dims; at StageTiled also
//	                                  uint16 nums and int16 steps
//	partition-stride   always         compute-engine on-chip APs are partition-contiguous (pair 0 step =
//	                                  elements per partition) and their free pattern stays in a partition;
//	                                  before StageTiled pair 0 may have step 0 (a macro broadcast)
//	matmul-limits      always         the destination dtype is one the generation writes; at StageTiled
//	                                  also K <= partitions, M <= gemm_stationary_fmax, N <= the
//	                                  generation's limit for the destination dtype
//	matmul-dtype       always         fp32/tf32 inputs only with fp32/tf32 (semantics.md §4.7)
//	free-size          StageTiled     compute-engine operands access <= 64K elements per partition in
//	                                  SBUF, <= 4K in PSUM (hardware.md tile constants)
//	tile-partitions    StageTiled     compute-engine operands access <= pmax partitions
//	psum-tile          StageTiled     a compute-engine PSUM access spans <= one bank per partition (a
//	                                  matmul destination row may span banks where N exceeds a bank)
//	act-reduce         always         Activation accumulating with reduce_op other than add needs a
//	                                  generation with max/min (NC-v2: add only, semantics.md §4.6)
//	nc-version         always         range_select and nonzero_with_count need NC-v3+, exponential
//	                                  NC-v4 (the NKI reference's "Available only on")
//	tile-size          always         matmul tile_position/tile_size: isValidTileSize (seed 000), operands
//	                                  fit the tile
//	semaphore          always         EventSemaphore: <= 2 waits, <= 1 update (seed 002 §6.5)
//	indirect-shape     always         GenericIndirectLoad/Save: checkIndirectShape (seed 001 strings)
//	tensor-indirection always         IndirectLoad/Save: checkTensorIndirection (seed 001 strings)
//	cce-shape          always         CCE DMACopy sources match the destination's dtype and shape
//	unrolled           StageUnrolled
//	indirect-lowered   StageIndirectLowered
//	cce-sources        StageCCELegal or the function attribute stage_legalize_cce_dma_completed
//	sb-fit             StageSBLegal
//	allocated          StageAllocated
//	partition-start    StageAllocated  locations and compute-engine APs (seed 002 §3); a stream shuffle's
//	                                  operands by its active partitions ceil(max(src, dst)/32)*32
//	psum-bank          StageAllocated
//	tile-position      StageAllocated  getLegalTilePosition (seed 000)
//	overlap            StageAllocated  no two simultaneously live allocations share a partition and a
//	                                   byte; a matmul accumulation group owns its whole PSUM bank while
//	                                   open (live ranges computed from the instructions: overlap.go)
//	engine-assigned    StageEnginesAssigned
//	strided-load       StageStridedLegal  Loads from DRAM are partition-contiguous (seed 001 R2/R4 deferral)
//	schedule           always          a schedule table (bir.Schedule) covers the function's instruction
//	                                   slots with equal-length columns, queues within the arch's DMA
//	                                   queues, DGE engines within its hardware DGE engines
//	scheduled          StageScheduled  see schedule.go
//	sync               always          a synchronization table (bir.Sync): triggers only on DMAs, on
//	                                   engines that run streams; semaphore ids within the arch's; the wire
//	                                   limit (<= 2 waits, <= 1 update: "Too many sync wait commands")
//	synchronized       StageSynchronized  the exact happens-before check (synchronized.go, stream.Check)
//	core-barrier       StageSynchronized  a CoreBarrier's cores: distinct ids >= 0, this module's core among
//	                                   them (whether the cores agree: run CORE0 CORE1 --concurrent)
//
// The allocation rules (allocated's placement checks, partition-start,
// psum-bank, tile-position, overlap) also apply before StageAllocated to
// every location that already carries an address (Allocated set): an
// input that arrives allocated, such as a KLR kernel, is checked as
// placed. Memory type OnChip ("placement open", infer_psum_tensor decides
// SB or PSUM) is on-chip for every rule that holds of both memories, is
// accepted on either side of the Tensor engine and by custom ops, is sized
// against SBUF by sb-fit, and is rejected by the allocated rule.
//
// # Decisions where the spec is silent
//
//   - DMA may stride partitions (legalize_strided_dma exists to lower exactly
//     that), has no engine AP encoding limits, and is not bound by the
//     partition-start rule, which constrains engine accesses (the allocator's
//     base_partition_constrained and the user-facing "Invalid access of 8
//     partitions starting at partition 48"). DMA is bound by the AP bounds,
//     by "never reads PSUM" and by the PSUM bank rule when it writes PSUM.
//   - A compute-engine instruction is one whose opcode computes or moves
//     data, is not a DMA, register or call opcode, and has modelled
//     semantics (OpInfo flags); opcodes narwhal keeps verbatim
//     (FlagNoSemantics) get only the structural rules.
//   - Memory type Unallocated is "not placed yet": memory-type rules skip
//     it, and StageAllocated reports a used location still Unallocated.
//   - PSUM addresses follow arch.Model.PSUMAddress: Bank is the bank,
//     Addr the byte offset inside it.
//   - Symbolic APs: the block and offset expressions are bounded with
//     affine.Expr.Bounds over the enclosing loops' iteration ranges (lb to
//     the last value lb + (trip-1)*stride). Bounds is exact for plain affine
//     expressions; with floordiv/mod atoms it may over-approximate, so for
//     those an apparent violation is confirmed by enumerating the
//     iteration points of the axes involved (up to 65536 points) before it
//     is reported. The partition-start and PSUM-bank rules check a
//     symbolic AP only when its block and offset are constants (they are
//     stage-gated on allocation, which in the seeds' pipeline follows the
//     unroll).
//   - Operand conventions the shape rules assume: matmul ins = [stationary,
//     moving]; Activation ins = [data, bias?, scale?] and TensorScalarPtr
//     ins = [data, scalar0, scalar1?] with [P,1] vectors;
//     GenericIndirectLoad/Save ins = [data, IndexAP]; IndirectLoad ins =
//     [addr, index, offset?] and IndirectSave ins = [src, addr, index?]
//     (interp/indirect.go, lower_generic_indirect's output).
//   - EventSemaphore's wait and update commands are the attributes
//     "waits": [{"semaphore": S, "value": V}, ...] (wait until semaphore S
//     reaches V) and "updates": [{"semaphore": S, "value": V}, ...]
//     (add V to semaphore S when the instruction completes); S is an
//     integer >= 0 and V an integer.
//   - Branch targets resolve against the names of every block the walk
//     reaches in the same function, top-level or loop body, before or
//     after the branch (the spec says only "presumably block names"). A
//     null or absent target names no block and is accepted; "" and any
//     other string no block has are reported.
//   - Iota's destination is SBUF (semantics.md §4.11): Iota runs only on
//     GpSimd (the opcode table), so gpsimd-psum reports a PSUM destination
//     and onchip-operand a DRAM one; no separate rule.
//   - The NC-v2 engine-sharing restrictions, properties of the schedule
//     rather than of one instruction, are checked on scheduled modules
//     (StageScheduled).
//
// # Performance
//
// The verifier is linear in the size of the module and allocates nothing
// per instruction: per-pattern facts (element count, min/max index,
// partition pair, free-pair extremes) are cached in a slice indexed by
// PatternID; instruction names are hashed in place in the symbol arena,
// partitioned by hash into cache-sized buckets (a counting sort) and
// checked per bucket with a small open-addressing table; scratch tables
// (bitsets, name tables, operand facts) are reused across functions and,
// through a sync.Pool, across verifications, so --verify-each does not
// re-allocate them after every pass. Diagnostics allocate only when a rule
// fails. BenchmarkVerify1M measures it on bir.GenStraightLine(1_000_000)
// with every stage's rules enabled, next to BenchmarkWalk1M, a bare walk of
// the same module that checks nothing. Measured (Go 1.26, a shared 2-vCPU
// VM at load average 9-15, so absolute figures are inflated): 170-195 ns
// of CPU per instruction for the verifier against 14-16 ns for the bare
// walk, 5 allocations per verification when the pooled scratch is warm.
// The tables rule costs nothing measurable there (no table is cached) and,
// with a cached use index (BenchmarkVerify1MCachedTables), one more walk:
// 10-16% more per instruction in paired runs (bir's BenchmarkCheckTables1M:
// 20-28 ns per instruction), 8 allocations. The instruction-name table
// check (Options.InstNameTable) costs 220-290 ns per entry and is opt-in.
// The overlap rule (overlap.go) runs where allocated locations exist: on
// an allocated, unrolled 1M-instruction tensor_add it adds about 165 ns
// of CPU per instruction (passes/alloc's BenchmarkVerify_Allocated
// against BenchmarkVerify_BeforeAlloc: 319 against 154).
package verify

import (
	"fmt"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// Stage is a set of properties established by earlier passes.
type Stage uint32

const (
	// StageUnrolled: no loops, no symbolic APs, symbolic immediates,
	// symbolic opcodes, predicates or loop-carried dependencies remain
	// (FullUnroll, seed 003).
	StageUnrolled Stage = 1 << iota
	// StageIndirectLowered: no GenericIndirectLoad/Save remain
	// (lower_generic_indirect, seed 001, order 10).
	StageIndirectLowered
	// StageCCELegal: every CCE DMACopy has at most MaxCceDmaSource source
	// arguments (legalize_cce_dma, seed 001, order 19;
	// checkCCEDMALegality's "I.num_arguments() <= MaxCceDmaSource").
	StageCCELegal
	// StageSBLegal: every used SB/PSUM location fits the generation's
	// partitions and per-partition bytes (SBSizeLegalization, seed 000,
	// with FullUnroll's tensorSplit).
	StageSBLegal
	// StageAllocated: every used SB/PSUM location is allocated and placed
	// legally; PSUM accesses stay within one bank (the memory planner,
	// seed 002 §4).
	StageAllocated
	// StageEnginesAssigned: no compute instruction is Unassigned.
	StageEnginesAssigned
	// StageStridedLegal: every Load from DRAM has a partition-contiguous
	// source (legalize_strided_dma, seed 001, order 18: the loads it
	// leaves alone at R1/R2/R4 are "deferred to the verifier").
	StageStridedLegal
	// StageScheduled: every instruction has a schedule entry that
	// respects its dependencies and its engine's or queue's other
	// instructions, blocks in start order (passes/sched,
	// time_aware_scheduler; schedule.go).
	StageScheduled
	// StageSynchronized: every dependency is ordered by the streams'
	// order, DMA triggers and semaphore waits and updates (an exact
	// happens-before check), counters stay within their width, the entry
	// function's streams end with Halt (passes/semaphores,
	// alloc_semaphores; synchronized.go).
	StageSynchronized
	// StageTiled: every instruction fits one hardware instruction (no
	// macro operation remains): compute-engine accesses within pmax
	// partitions, the free-size and encoding limits, matmul K/M/N, one
	// PSUM bank per partition, no partition broadcast
	// (sunda_size_tiling, passes/tiling, seed 002 §2).
	StageTiled

	numStages = 10
)

// AllStages is every stage bit.
const AllStages Stage = 1<<numStages - 1

var stageNames = [numStages]string{"unrolled", "indirect-lowered", "cce-legal", "sb-legal", "allocated", "engines-assigned", "strided-legal", "scheduled", "synchronized", "tiled"}

// String returns the stage names joined by "|" ("none" for 0).
func (s Stage) String() string {
	if s == 0 {
		return "none"
	}
	var parts []string
	for k := 0; k < numStages; k++ {
		if s&(1<<k) != 0 {
			parts = append(parts, stageNames[k])
		}
	}
	if rest := s &^ AllStages; rest != 0 {
		parts = append(parts, fmt.Sprintf("0x%x", uint32(rest)))
	}
	return strings.Join(parts, "|")
}

// StageNames lists every stage name, in bit order (verify -h lists them).
func StageNames() []string { return append([]string(nil), stageNames[:]...) }

// stagePrerequisites are the stages a stage's pass needs before it, in
// the default pipeline's order: the rules of a later stage only make sense
// on a module that has the earlier ones (a schedule's times are about
// placed memory; synchronization orders a schedule). Unrolled and
// strided-legal are not implied: loops may remain through scheduling
// (FullUnroll level 1), and legalize_strided_dma is gated.
var stagePrerequisites = map[Stage]Stage{
	StageSynchronized:    StageScheduled,
	StageScheduled:       StageAllocated | StageEnginesAssigned,
	StageAllocated:       StageSBLegal,
	StageSBLegal:         StageTiled | StageCCELegal | StageIndirectLowered,
	StageEnginesAssigned: StageTiled,
}

// WithPrerequisites returns s with every stage it implies (a stage implies
// the stages before it: stagePrerequisites, transitively). verify --stage
// and the checks of a compiled input use it, so that naming a late stage
// checks the earlier stages' rules too, and a forgery that only an earlier
// stage's rules catch (a location turned OnChip in a synchronized module)
// is not accepted.
func (s Stage) WithPrerequisites() Stage {
	for {
		next := s
		for st, pre := range stagePrerequisites {
			if s&st != 0 {
				next |= pre
			}
		}
		if next == s {
			return s
		}
		s = next
	}
}

// ParseStage reads names joined by "|" or "," (as String prints them).
func ParseStage(s string) (Stage, error) {
	var out Stage
	if s == "" || s == "none" {
		return 0, nil
	}
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
		p = strings.TrimSpace(p)
		found := false
		for k, n := range stageNames {
			if n == p {
				out |= 1 << k
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown verifier stage %q (want one of %s)", p, strings.Join(stageNames[:], ", "))
		}
	}
	return out, nil
}

// Options parameterize a verification.
type Options struct {
	// Arch is the machine model; nil means arch.ForModule of the module
	// (an unknown arch is then reported as rule "module-arch" and the
	// rules that need the model are skipped).
	Arch *arch.Model
	// Stage are the properties earlier passes established.
	Stage Stage
	// MaxDiags bounds the diagnostics kept (0: keep all). Counting goes on
	// past the bound, so Error still says how many there were.
	MaxDiags int
	// InstNameTable adds the instruction-name table that InstByName builds
	// (bir.InstNameTable) to the tables rule's check, when it is built.
	// Off by default: the check is a random access per table entry, about
	// 200 ns per instruction on a million-instruction function, more than
	// the rest of the verifier. The tensor, location and register name
	// tables and a cached use index are always checked.
	InstNameTable bool
}

// Diag is one rule violation.
type Diag struct {
	Func   string // function name ("" for module-level rules)
	Inst   string // instruction name, when the rule is about an instruction
	Op     string // the instruction's opcode name
	Tensor string // tensor name, when about a tensor
	Loc    string // location name, when about a location
	Rule   string // rule name (see the package comment)
	Msg    string // what is wrong: "want X, have Y"
	// Pos is the source position (an NKI kernel's line) of the
	// instruction, or of the first instruction that reaches the tensor or
	// location; zero when there is none.
	Pos bir.Pos
}

// String formats the diagnostic on one line, led by the source position
// when there is one:
//
//	kernels.py:28:4: function main, instruction add_3 (TensorTensor): <msg> [rule]
func (d Diag) String() string {
	var b strings.Builder
	if d.Pos.IsKnown() {
		b.WriteString(d.Pos.String())
		b.WriteString(": ")
	}
	if d.Func != "" {
		b.WriteString("function ")
		b.WriteString(d.Func)
	} else {
		b.WriteString("module")
	}
	if d.Inst != "" || d.Op != "" {
		b.WriteString(", instruction ")
		if d.Inst != "" {
			b.WriteString(d.Inst)
		} else {
			b.WriteString("<unnamed>")
		}
		if d.Op != "" {
			b.WriteString(" (")
			b.WriteString(d.Op)
			b.WriteString(")")
		}
	}
	if d.Tensor != "" {
		b.WriteString(", tensor ")
		b.WriteString(d.Tensor)
	}
	if d.Loc != "" {
		b.WriteString(", location ")
		b.WriteString(d.Loc)
	}
	b.WriteString(": ")
	b.WriteString(d.Msg)
	b.WriteString(" [")
	b.WriteString(d.Rule)
	b.WriteString("]")
	return b.String()
}

// Error is the verifier's error: every diagnostic found.
type Error struct {
	diags []Diag
	total int
}

// Error prints the first diagnostic and how many more there are.
func (e *Error) Error() string {
	if len(e.diags) == 0 {
		return "verify: no diagnostics"
	}
	s := e.diags[0].String()
	if e.total > 1 {
		s += fmt.Sprintf(" (and %d more)", e.total-1)
	}
	return s
}

// SourcePos returns the source position of the first diagnostic (the zero
// Pos when it has none), so that callers can lead their message with it.
func (e *Error) SourcePos() bir.Pos {
	if len(e.diags) == 0 {
		return bir.Pos{}
	}
	return e.diags[0].Pos
}

// Diags returns the diagnostics kept (all of them unless Options.MaxDiags
// bounded them), in the order found.
func (e *Error) Diags() []Diag { return e.diags }

// Count returns the number of diagnostics found, including those beyond
// Options.MaxDiags.
func (e *Error) Count() int { return e.total }

// Module verifies every function of m and the module-level rules. It
// returns nil or a *Error.
func Module(m *bir.Module, opt Options) error {
	if m == nil {
		return &Error{diags: []Diag{{Rule: "ref", Msg: "nil module"}}, total: 1}
	}
	c := newChecker(m, opt)
	defer c.release()
	c.module()
	return c.result()
}

// Function verifies one function (with its module's tables and arch). It
// returns nil or a *Error.
func Function(f *bir.Function, opt Options) error {
	if f == nil || f.Module() == nil {
		return &Error{diags: []Diag{{Rule: "ref", Msg: "nil function or function without a module"}}, total: 1}
	}
	c := newChecker(f.Module(), opt)
	defer c.release()
	c.resolveArch()
	c.function(f)
	return c.result()
}
