// Package sched decides when each instruction runs and where: seed 002
// §6.1 (the DDG list scheduler), §6.2 (the cost model, arch/cost.go), §6.4
// (the TimeAwareScheduler, the LncAwareScheduler) and the queue passes
// seed 001 names (assign_hwdge_engine, alloc_queues). Its passes, in
// pipeline order after the anti_dependency_analyzer (passes/deps):
//
//	assign_engines        an engine for every compute instruction left Unassigned (assign.go)
//	assign_hwdge_engine   hardware or software DGE for every DMA (assign.go)
//	alloc_queues          a DMA queue for every DMA (assign.go)
//	time_aware_scheduler  list order, simulated timelines, linearized blocks, report (time_aware_scheduler.go)
//
// and, outside the pass table, LncAwareSchedule (two-core kernels: the
// pipeline's RunCores calls it between time_aware_scheduler and the
// synchronization passes, `narwhal compile --lnc N`) and WriteTrace (the
// Perfetto timeline of a scheduled module, `--trace`).
//
// # What later passes read (synchronization, issue 14)
//
// The schedule lives in the function's side table f.Sched (bir.Schedule,
// dense columns indexed by InstID) and in the instruction order:
//
//   - Start[i], End[i]: the simulated interval in picoseconds from the
//     function's start (End - Start is the cost model's duration).
//   - Where i runs: a DMA (opcode flag bir.FlagDMA) runs on DMA queue
//     Queue[i] (0 .. arch DMAQueues-1), with descriptors from hardware DGE
//     DGE[i] (>= 0) or the software DGE (-1); its Instruction.Engine is
//     left as the input had it (the trigger engine is synchronization's
//     choice, seed 002 §6.5). Any other instruction runs on
//     Instruction.Engine (Queue[i] == -1); a call (bir.FlagCall) occupies
//     every engine and queue for its callee's makespan; an Unassigned
//     non-compute instruction (a no-op) occupies nothing.
//   - Order[i]: the position of i in its engine's or queue's stream (the
//     per-engine instruction streams are the instructions of that engine
//     in Order order, which is Start order).
//   - Each top-level block's instruction list is the linearized schedule:
//     ascending Start, ties in issue order, so program order is a
//     topological order of the dependencies and a sequential run executes
//     the scheduled order; later blocks start no earlier than earlier ones.
//   - The dependencies are the IR's (bir.Dep, written by
//     anti_dependency_analyzer, transitively reduced; kinds FLOW, ANTI,
//     OUTPUT, ORDERED as passes/deps documents). Every cross-engine or
//     cross-queue dependency is a semaphore candidate; a dependency between
//     two instructions of one engine is already ordered by that engine's
//     in-order stream. The verifier's StageScheduled rules
//     (verify/schedule.go) hold after time_aware_scheduler.
//
// A pass that adds instructions after scheduling (semaphore waits, say)
// grows the table with Schedule.Grow and gives the new instructions
// entries, or leaves them without one (Schedule.Has false) and does not
// claim StageScheduled.
package sched
