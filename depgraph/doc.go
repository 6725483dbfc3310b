// Package depgraph computes the dependencies between a function's
// instructions from the bytes they read and write: seed 002 §6.3's
// AntiDependencyAnalyzer and §6.4's build_flow_deps (constructBIRGraph,
// make_accumulation_sequence). The pass anti_dependency_analyzer
// (passes/deps) stores its result as the IR's dependencies; the scheduler
// (passes/sched) prices the allocation's reuse with its logical mode; the
// memory planner's pre-schedule can order by it. It lives outside passes/
// because several passes share it (design.md: passes never import each
// other).
//
// # The analysis (Analyze)
//
// What it does. For every function, in program order, each instruction's
// accesses (access.go: which operands it reads and writes, with the
// interpreter's operand roles) are turned into byte footprints (ranges.go:
// collectAccessPatternRanges, a partition range times byte runs) and
// looked up in interval maps (imap.go), one set of address spaces per
// memory class: the seed's AntiDependencyAnalyzer-SB and
// AntiDependencyAnalyzer-PSUM, narwhal's -DRAM, and the engine state
// (registers, the Scalar engine's accumulators). Every earlier access that
// overlaps a later one, one of them a write, is a hazard and a candidate
// edge: FLOW (read after write), ANTI (write after read), OUTPUT (write
// after write) or ORDERED (no data: the accumulation-group chain of
// make_accumulation_sequence, barriers). The candidate edges of an
// instruction are transitively reduced (reduce in finish: a candidate
// reachable from another kept candidate is dropped) and stored as the IR's
// dependencies (bir.Dep, Graph.Write), replacing what the instruction had.
//
// Pre-conditions: straight-line code (StageUnrolled: no loops, no symbolic
// access patterns); with KeepExisting, existing dependencies point
// backwards in program order (the verifier's dep rule). Post-conditions: every pair of instructions
// whose byte footprints conflict is ordered by the transitive closure of
// the dependencies (TestAnalyze_OracleKernels and _OracleRandom check it against a brute-force
// enumeration of every element on every built-in kernel and on random
// modules); dependencies point backwards; the instructions and their order
// are unchanged. The graph is computed from the accesses alone, so running
// the analysis twice gives the same edges; with Options.KeepExisting the
// dependencies the IR already has are kept as constraints (reduced with
// the rest).
//
// Addresses. In the default physical mode an allocated SB or PSUM
// location lives at its placement in the one shared SBUF or PSUM (base
// partition, byte address, PSUM bank * bank bytes + address), so locations
// that the allocator made share bytes get WAR/WAW edges that the locations
// alone do not show (design.md: "Hazards are computed on physical byte
// ranges ... after allocation"); an unallocated location is an address
// space of its own, as the interpreter gives it private storage, so the
// pass runs before allocation too. The logical mode (option mode=logical,
// and Analyze with Options{Mode: Logical}) makes every location its own
// space: the dependencies with unlimited memory, which the scheduler's
// report prices the allocation's reuse against, and which the memory
// planner's pre-schedule can order by.
//
// Live intervals. In physical mode every access of an allocated SB or
// PSUM location also touches the location's whole rectangle in a
// lifetime space (lifetime.go), so that a location reusing another's
// bytes is touched only after every touch of the other, even by accesses
// that share no byte with them: the schedule then keeps the allocation's
// live intervals (design.md: the scheduler "respects every dependency and
// the allocation's live intervals"; the verifier's overlap rule checks
// them in the scheduled order). These edges are ORDERED.
//
// Accumulation groups (design.md: "A matmul that starts an accumulation
// group clears its whole PSUM bank: the group (start to stop) owns the
// bank, for the allocator and for dependency analysis alike"): a
// start_tensor_calc matmul writes every byte of the banks of its
// destination partitions, and every matmul writes a one-byte-per-bank
// accumulation-state pseudo space, so a group's matmuls are chained in
// program order by ORDERED edges where no data edge already orders them.
//
// Barriers. An instruction whose memory effects narwhal does not model
// (calls, custom ops, synchronization and control-flow opcodes, opcodes
// kept verbatim) is ordered after every instruction before it (an ORDERED
// edge from each instruction since the previous barrier that has no
// successor yet) and before every instruction after it; the interval maps
// are cleared at a barrier.
//
// Reduction. The candidates of an instruction are visited from the
// latest: a candidate that a kept candidate already reaches (through kept
// edges, searched backwards no lower than the earliest candidate) is
// redundant. The search visits at most MaxReduceVisits instructions per
// instruction (option max-reduce-visits); past that the remaining
// candidates are kept, so the result is always sound and, in the rare
// case of a long search, possibly not minimal (Stats.Unreduced counts
// those; the oracle test reports redundant edges left). Locations whose
// tensor or location carries the too_many_spills attribute keep their
// conservative edges (the seed's "Avoided Dependency Reduction due to
// too_many_spills attribute").
//
// Kinds. When two reasons order the same pair, the edge gets the first of
// FLOW, ANTI, OUTPUT, ORDERED. For synchronization (issue 14) every edge is
// an ordering constraint; the kind says why: FLOW carries data, ANTI and
// OUTPUT protect reused bytes (with allocation: reuse), ORDERED orders
// accumulation groups and barriers.
//
// Log. The seed's strings: "Added ordered dependency from A to B" for each
// ORDERED edge and "Avoided Dependency Reduction due to too_many_spills
// attribute" (at most MaxLogLines lines per function).
//
// Decisions where the seed is silent: the interval structure (a
// split_interval_set over partitions, each segment with a sorted byte map;
// readers as persistent lists), the barrier rule, the search bound of the
// reduction, the operand roles of access.go, and the REG/accumulator state
// class.
//
// Cost: linear in the accesses times the interval-map lookups (log of the
// live ranges in a space) plus the bounded reduction; per-location spaces
// are released after their last use. Measured by BenchmarkAnalyze (see
// the README's speed table).
package depgraph
