// Package pipeline holds narwhal's pass table: the single source of truth
// for which passes exist, their order, the seeds' execution-order numbers,
// gates, options, and what each requires and produces (cmd/compile's
// passes list and passOrder constraints, in one place).
//
// The default pipeline follows the original backend's pre-codegen order
// where the seeds give it (translate_nki_ast_to_bir 2, lower_generic_indirect
// 10, legalize_strided_dma 18, legalize_cce_dma 19, vn_splitter 24,
// shrink_ml 25); the unrollers carry no order number in the seeds and sit
// where their hand-offs put them (see Constraints).
//
// sunda_size_tiling (seed 002 §2, no order number) runs right after
// translation, before the DMA legalizations, the unrollers and the
// footprint passes, not at design.md's "[tiling]" place after shrink_ml:
// the seed runs SundaSizeTiling "before legalize/PSUM-inference/
// memory-planning", and its tiles are loops over block tensors that
// FullUnroll must flatten and give one location per block, while the
// footprint passes cannot split a 512-partition macro tensor that a
// matmul or a reduction reads whole. Its second pass,
// sunda_size_tiling_perf (performance tiling), needs the schedule to judge
// a split: it runs after alloc (the schedule depends on the allocation's
// reuse; a piece addresses part of its instruction's locations, so the
// allocation stays valid) and before anti_dependency_analyzer (which
// derives the pieces' edges); it is handed pipeline.Makespan, the
// scheduling of a copy as the passes after it do it, since passes do not
// import each other. The constraints below carry the reasons.
package pipeline

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/passes/deps"
	"github.com/narwhal-compiler/narwhal/passes/dma"
	"github.com/narwhal-compiler/narwhal/passes/sbsize"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/passes/semaphores"
	"github.com/narwhal-compiler/narwhal/passes/shrink"
	"github.com/narwhal-compiler/narwhal/passes/tiling"
	"github.com/narwhal-compiler/narwhal/passes/translate"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Table is the pass table.
var Table = pass.Table{
	Passes: []pass.Pass{
		translate.Pass,
		tiling.Pass,
		dma.LowerGenericIndirectPass,
		dma.LegalizeStridedDMAPass,
		dma.LegalizeCCEDMAPass,
		inDefault(unroll.HeuristicUnrollPass),
		sbsize.SBSizeLegalizationPass,
		inDefault(unroll.FullUnrollPassAt(unroll.LevelAuto)),
		vnsplit.VNSplitterPass,
		shrink.ShrinkMLPass,
		alloc.InferPSumTensorPass,
		alloc.PreSchedulePass,
		alloc.AllocPass,
		tiling.PerfPass(Makespan),
		notDefault(unroll.UnrollPass),
		semaphores.InsertCoreBarrierPass,
		deps.AntiDependencyAnalyzerPass,
		semaphores.InsertPTCOMFlatPass,
		sched.AssignEnginesPass,
		sched.AssignHWDGEEnginePass,
		sched.AllocQueuesPass,
		sched.TimeAwareSchedulerPass,
		semaphores.AssignTriggerEnginePass,
		semaphores.AllocSemaphoresPass,
	},
	Constraints: []pass.Constraint{
		{Before: "translate_nki_ast_to_bir", After: "lower_generic_indirect", Why: "NKI kernels must be materialized before their DMAs can be legalized"},
		{Before: "translate_nki_ast_to_bir", After: "sunda_size_tiling", Why: "NKI kernels must be materialized as functions before their instructions can be tiled"},
		{Before: "sunda_size_tiling", After: "legalize_strided_dma", Why: "seed 002 §2: SundaSizeTiling runs before legalize; the strided-DMA legalization stages a load through an SBUF tile the size of its destination, which must be a tile, not a whole macro tensor"},
		{Before: "sunda_size_tiling", After: "sb_size_legalization", Why: "macro tensors (hundreds of partitions, PSUM rows of several banks) become tiles first: the footprint passes could only cut them into 16-partition pieces or reject them"},
		{Before: "sunda_size_tiling", After: "full_unroll", Why: "tiles become loops with symbolic access patterns over block tensors, which FullUnroll flattens and gives one location per block"},
		{Before: "lower_generic_indirect", After: "legalize_strided_dma", Why: "the seeds' execution order (10, 18): legalization sees only concrete indirect DMAs"},
		{Before: "legalize_strided_dma", After: "legalize_cce_dma", Why: "the seeds' execution order (18, 19)"},
		{Before: "legalize_cce_dma", After: "heuristic_unroll", Why: "the DMA passes handle symbolic access patterns, so they legalize one loop body instead of every unrolled copy"},
		{Before: "translate_nki_ast_to_bir", After: "heuristic_unroll", Why: "NKI kernels must be materialized as functions before any pass can see their loops"},
		{Before: "heuristic_unroll", After: "full_unroll", Why: "heuristic_unroll only marks loops; FullUnroll level 1 clones what it marked"},
		{Before: "sb_size_legalization", After: "full_unroll", Why: "sb_size_legalization only marks splitShape and forces loops; FullUnroll::tensorSplit performs the cut and the unrolling (seed 000, the delegated clone): a mark written after full_unroll is never used"},
		{Before: "full_unroll", After: "vn_splitter", Why: "vn_splitter rewrites physical access patterns and must see the pieces the cut created"},
		{Before: "vn_splitter", After: "shrink_ml", Why: "the seeds' execution order (24, 25): each _VN_ piece is trimmed on its own, and shrink_ml checks the final footprint"},
		{Before: "shrink_ml", After: "infer_psum_tensor", Why: "the footprint passes size placement-open locations as SBUF; InferPSumTensor then decides SB or PSUM on their final shapes (design.md: shrink_ml -> [tiling] -> infer_psum_tensor -> pre-schedule -> allocation)"},
		{Before: "infer_psum_tensor", After: "alloc", Why: "the allocator places SB and PSUM locations: no location may still be OnChip"},
		{Before: "infer_psum_tensor", After: "pre_schedule", Why: "the pre-schedule's pressure counts SBUF and PSUM apart (a PSUM location a Matmult writes takes whole banks)"},
		{Before: "pre_schedule", After: "alloc", Why: "the live intervals refer to the instruction order: the pre-schedule fixes it first"},
		{Before: "alloc", After: "sunda_size_tiling_perf", Why: "performance tiling is judged by the schedule, which the allocation's reuse shapes (its WAR/WAW edges); a piece addresses part of its instruction's locations, so the allocation stays valid (design.md draws [tiling] before allocation: macro tiling runs first, performance tiling needs the schedule)"},
		{Before: "full_unroll", After: "sunda_size_tiling_perf", Why: "performance tiling splits the instructions of straight-line code (a function that keeps loops is not judged)"},
		{Before: "sunda_size_tiling_perf", After: "anti_dependency_analyzer", Why: "the analyzer derives the pieces' dependencies; performance tiling replaces instructions before any dependency exists"},
		{Before: "full_unroll", After: "unroll", Why: "both flatten loops: the production Unroll is the alternative for dynamic loops (run with --passes), never a second unroll after FullUnroll"},
		{Before: "alloc", After: "anti_dependency_analyzer", Why: "hazards are computed on physical addresses: the allocation's reuse creates the WAR/WAW edges that locations alone do not show (design.md)"},
		{Before: "shrink_ml", After: "anti_dependency_analyzer", Why: "hazards are computed on the final footprints (design.md: dependency analysis follows allocation, which follows the SB-legal stage)"},
		{Before: "unroll", After: "anti_dependency_analyzer", Why: "the analysis needs straight-line code, whichever unroller made it"},
		{Before: "alloc", After: "insert_core_barrier", Why: "a CoreBarrier has no memory; it goes in once the footprints are final"},
		{Before: "unroll", After: "insert_core_barrier", Why: "the barriers are placed in straight-line code (the seed's loop nests are gone after FullUnroll level 2)"},
		{Before: "insert_core_barrier", After: "anti_dependency_analyzer", Why: "the analyzer orders a barrier after everything before it and before everything after it (depgraph's barrier rule), so the scheduler times it and alloc_semaphores makes it an all-engine barrier (seed 002 §7 step 4: InsertCoreBarrier before the scheduler)"},
		{Before: "anti_dependency_analyzer", After: "insert_ptcom_flat", Why: "a PTCOM depends on the last writes of an output only (explicit edges the analyzer would replace by its barrier rule), and the closing barrier on the PTCOM"},
		{Before: "insert_ptcom_flat", After: "time_aware_scheduler", Why: "the PTCOM is scheduled like any instruction"},
		{Before: "anti_dependency_analyzer", After: "time_aware_scheduler", Why: "the scheduler respects the IR's dependencies, which the analyzer computes"},
		{Before: "assign_engines", After: "time_aware_scheduler", Why: "an instruction's engine is its timeline"},
		{Before: "assign_hwdge_engine", After: "alloc_queues", Why: "the DGE prices a DMA, and alloc_queues balances priced DMAs"},
		{Before: "alloc_queues", After: "time_aware_scheduler", Why: "a DMA's queue is its timeline"},
		{Before: "time_aware_scheduler", After: "assign_trigger_engine", Why: "is_better_trigger reads the engines' timelines and the DMAs' starts"},
		{Before: "assign_trigger_engine", After: "alloc_semaphores", Why: "a DMA's waits are executed by its trigger engine"},
		{Before: "time_aware_scheduler", After: "alloc_semaphores", Why: "semaphores order the scheduled streams: a wait's count names an update in its stream's order (seed 002 §6.5 runs after the schedule)"},
	},
}

// inDefault puts a pass into the default pipeline.
func inDefault(p pass.Pass) pass.Pass {
	p.Default = true
	return p
}

// notDefault keeps a pass in the table (runnable with --passes) but out of
// the default pipeline.
func notDefault(p pass.Pass) pass.Pass {
	p.Default = false
	return p
}

// passNeeds are the passes whose results a pass reads without a verifier
// stage to show them (pass.Pass.Needs): the scheduler orders by the
// dependencies the analyzer computes; synchronization needs a schedule,
// which stage scheduled shows (alloc_semaphores Requires it).
var passNeeds = map[string][]string{
	"time_aware_scheduler": {"anti_dependency_analyzer"},
}

func init() {
	for i := range Table.Passes {
		p := &Table.Passes[i]
		p.Needs = passNeeds[p.Name]
		if p.Name == "alloc_semaphores" {
			p.Requires |= verify.StageScheduled
		}
	}
	// A missing range is not fatal here (the option is then unchecked):
	// TestOptionRanges_EveryOption reports it.
	_ = applyOptionRanges(&Table)
	if err := Table.Check(); err != nil {
		panic(fmt.Sprintf("pipeline: %v", err))
	}
}
