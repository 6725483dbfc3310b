// Package pack is narwhal's static memory planner: it gives every buffer of
// a kernel an address so that buffers live at the same time never overlap,
// within the capacity of the on-chip memory. This is offline dynamic
// storage allocation (DSA): NP-hard, with max-live (the largest total size
// live at one instant) as its lower bound.
//
// # Entry points
//
//   - Solve: 1-D buffers (Problem, Buffer) in a byte range; fit a capacity,
//     or (Options.Minimize) find the lowest peak. Returns a Solution and,
//     when not fitted, a *FitError (errors.Is ErrInfeasible when proven,
//     ErrGaveUp when the deadline, context or node budget ran out).
//   - Solve2D / SolvePSUM: SBUF tensors in partitions x bytes with the
//     quadrant rule for start partitions, and PSUM with its banks (twod.go).
//   - LinearScan, BestFit: the baseline and the fast heuristic on their own.
//   - Verify, Verify2D, MaxLive, Peak: checking placements.
//   - ReadCSV / CSVTable.Write and Main: the MiniMalloc CSV format and the
//     `narwhal alloc` command.
//
// # Algorithms (one file each, each with its own header)
//
//   - linearscan.go: the original compiler's LinearScanStackAllocator
//     (seed 002 §4.2), the baseline. It never reuses a hole under a live
//     tensor, so it ends 6x to 33x above max-live on the MiniMalloc
//     benchmarks.
//   - bestfit.go: a time-ordered best-fit free list, O(n log n), the path
//     for very large inputs (100,000 buffers in tens of milliseconds); and
//     greedy-by-size, the classic offline planner, O(n x conflicts).
//   - search.go, exact.go: the exact search. It explores canonical
//     placements (every buffer rests on the one below it, the MiniMalloc
//     insight) by lowest-point branching with first-fail, cross-section
//     inference by counting, dynamic decomposition into independent time
//     ranges, a failure memo keyed per independent part, twin symmetry
//     breaking, and a deterministic parallel portfolio of complete searches
//     and seeded restarts.
//   - solve.go: the pipeline: proofs first (max-live, fixed-buffer
//     conflicts), static split into time components, heuristics, then the
//     exact search; and minimize mode: the max-live bound probed first,
//     then fit mode's own placement at the given capacity, then a
//     bisection, each component keeping its best fitting placement.
//
// # Minimize mode on the same suite
//
// `narwhal alloc FILE --capacity=1048576 --minimize` (the default one-
// minute timeout) ends at or below fit mode's peak on all eleven files
// (TestSolver_MiniMallocMinimize checks it with a 3 s budget): at the
// max-live bound, proven optimal, on nine (A, B, E, F, G, H, I, K at
// 1 MiB, and C at 1,039,360 where fit mode stops at 1,047,552), in 5 ms to
// 0.6 s each; D and J end at 1,001,472 (+1.56%) and 1,018,880 (+3.00%)
// above max-live at the timeout, below fit mode's 1 MiB. Before (figures
// of issue 18), minimize started its bisection halfway between the bounds
// and never probed the bound: K stopped at the timeout 5% above max-live
// and above the capacity, D and J 1.5% and 3.3% above.
//
// # Results on the MiniMalloc "challenging" suite
//
// All eleven files (154 to 454 buffers, eight of them with max-live equal
// to the 1 MiB capacity: zero slack) are solved within capacity in about
// 0.9 s in total on a 2-core machine (I alone 0.46 s, 76k nodes), against
// about 20 s for MiniMalloc and +28% to +41% above max-live for
// greedy-by-size (see BenchmarkMiniMalloc, TestSolver_MiniMalloc and
// TestSolver_MiniMallocHeuristics).
//
// How robust that figure is: the driver's parameters were tuned on these
// same eleven files, and I is heavy-tailed. The opt-in harness
// (robust_test.go) perturbs what the canonical item order cannot
// normalize away (the solver's seeds, the time axis mirrored, one buffer
// dropped). In the last run every perturbed copy was solved, each file's
// worst copy in at most 0.32 s except I: median 0.11 s, worst 1.48 s
// (0.5M nodes). Before the plain searches became resumable and the
// failure memos persistent (exact.go), a perturbed I could take 147M
// nodes and minutes; the CLI's default one-minute timeout then gives up
// and reports the best placement found, which remains the behaviour on an
// instance harder than these.
//
// Everything is deterministic for a given input; only a deadline or a
// cancelled context can change the answer. A gave-up answer says so; a fit
// is always a valid placement, but which one can depend on the deadline
// (when it cuts a round's earlier attempts, a later attempt's placement
// wins).
package pack
