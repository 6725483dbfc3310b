package main

import (
	"fmt"
	"github.com/narwhal-compiler/narwhal/bir"
	"strings"

	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
)

// compileSummary is what a compile did, in the few lines a user reads
// first (they end the pass report, and stand alone when nothing was asked
// for): instructions in and out, the memory the allocation placed against
// the budget and the max-live bound, the makespan against the scheduler's
// lower bound and with the semaphores' latency. Every figure is a counter
// of the pass that owns it (alloc, time_aware_scheduler,
// alloc_semaphores), so the summary cannot disagree with the report above
// it; a line whose pass did not run is left out.
func compileSummary(rep *pass.Report, insts int64) string {
	if rep == nil {
		return ""
	}
	var sb strings.Builder
	ran, in := 0, int64(-1)
	for _, p := range rep.Passes {
		if p.Skipped != "" {
			continue
		}
		if in < 0 {
			in = p.InstsBefore
		}
		ran++
	}
	if rep.Kept != 0 {
		fmt.Fprintf(&sb, "summary: %d instructions; the input is compiled: verified at stage %v and kept as it is (no pass rerun over its schedule and semaphores), in %s\n", insts, rep.Kept, pass.FormatDuration(rep.Total))
		return sb.String()
	}
	fmt.Fprintf(&sb, "summary: %d instructions (%d in the input), %d passes in %s\n", insts, max(in, 0), ran, pass.FormatDuration(rep.Total))
	if a := ranResult(rep, "alloc"); a != nil {
		spills := "no spills"
		if n := a.Counter("MaxLiveSpiller.spills") + a.Counter("SpillPSum.spills"); n > 0 {
			spills = fmt.Sprintf("%d spills (%d bytes to HBM, %d from PSUM)", n, a.Counter("MaxLiveSpiller.bytes"), a.Counter("SpillPSum.bytes"))
		}
		packed := fmt.Sprintf("packed peak %d", a.Counter("sbuf_packed_peak"))
		if n := a.Counter("sbuf_packed_peak_not_computed"); n > 0 {
			// The compact placement that measures packing quality runs up
			// to alloc.PackModelLimit locations; past it the spread sweep
			// alone places them.
			packed = fmt.Sprintf("packed peak not computed: %d locations, more than the compact placement's %d", n, alloc.PackModelLimit)
		}
		fmt.Fprintf(&sb, "  SBUF: placed up to %d of %d bytes per partition (max-live %d, %s); %s\n",
			a.Counter("sbuf_peak"), a.Counter("sbuf_budget"), a.Counter("sbuf_max_live"), packed, spills)
		fmt.Fprintf(&sb, "  PSUM: %d banks used, up to %d of %d bytes per partition (max-live %d)\n",
			a.Counter("psum_banks_used"), a.Counter("psum_peak"), a.Counter("psum_budget"), a.Counter("psum_max_live"))
	}
	if s := ranResult(rep, "time_aware_scheduler"); s != nil && s.Counter("makespan_ns") > 0 {
		mk, lb := s.Counter("makespan_ns"), s.Counter("lower_bound_ns")
		fmt.Fprintf(&sb, "  time: makespan %s", us(mk))
		if lb > 0 {
			fmt.Fprintf(&sb, ", lower bound %s (gap %.1f%%)", us(lb), 100*(float64(mk)/float64(lb)-1))
		}
		if po := s.Counter("program_order_ns"); po > 0 {
			fmt.Fprintf(&sb, ", program order %s", us(po))
		}
		if ex := s.Counter("makespan_executed_ns"); ex > 0 && s.Counter("functions_with_loops") > 0 {
			// A loop function's makespan is its periodic schedule's; the
			// streams run that order as soon as they can.
			fmt.Fprintf(&sb, ", the streams in %s", us(ex))
		}
		if y := ranResult(rep, "alloc_semaphores"); y != nil && y.Counter("makespan_sync_ns") > 0 {
			fmt.Fprintf(&sb, "; %s with semaphore latency (waits %d, carriers %d)", us(y.Counter("makespan_sync_ns")), y.Counter("wait_commands"), y.Counter("carriers"))
		}
		if n := s.Counter("runtime_loops"); n > 0 {
			// The figures need a trip count the compiler does not know.
			fmt.Fprintf(&sb, "; %d loops whose trip count T is known only at run time: the figures assume T = %d (1 for a while guard); --report gives each one's per-iteration figures and its total in T", n, bir.RuntimeLoopWindow)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// ranResult is the named pass's result when it ran.
func ranResult(rep *pass.Report, name string) *pass.PassResult {
	r := rep.Result(name)
	if r == nil || r.Skipped != "" {
		return nil
	}
	return r
}

// us writes a count of nanoseconds in microseconds, as the reports do.
func us(ns int64) string { return fmt.Sprintf("%.3f us", float64(ns)/1e3) }
