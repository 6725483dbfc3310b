package pipeline

// The documented range of every pass option (issue 27, item 5): one
// table, applied to the pass table at init (pass.Option.Check), so that
// `--option PASS.KEY=VALUE` (and the same key in a module's config) is
// refused before any pass runs when VALUE is outside it, with NW103
// naming the option, the range and the reason; `narwhal passes` prints
// the ranges. TestOptionRanges_EveryOption fails when an option of the
// table has none, so a new option must declare its range here.
//
// How the bounds are chosen. A bound is where a pass stops modelling
// anything (a node budget of 2^31 searches for hours; a reorder window
// larger than any function is the whole function), where an allocation
// or a product it sizes would overflow (the scheduler's window, the
// liveness steps), or where the value stops meaning anything (a share
// of the PSUM banks above 1, a NaN fraction). Counts that bound the
// work a pass may do stop at 2^30: far above any kernel narwhal compiles
// (25M instructions), below where int32 indices and n^2 products of the
// passes' tables overflow. Where 0 has a meaning (a default, "off"), the
// option's doc says so and 0 is in range.

import (
	"errors"
	"fmt"

	"github.com/narwhal-compiler/narwhal/pass"
)

// maxWork bounds the options that count work (steps, nodes, visits).
const maxWork = 1 << 30

// optionRanges maps PASS.KEY to its range.
var optionRanges = map[string]pass.OptionCheck{
	"sunda_size_tiling.partition_max_elts":                 pass.IntRange(0, 128, "0 is the machine's pmax; a partition tile is at most the 128 partitions of the SBUF (the machine's own pmax is checked when the pass runs)"),
	"sunda_size_tiling.max_computation_tile_size_in_bytes": pass.IntRange(0, 1<<26, "0 is the usable SBUF bytes per partition; at most 64 MiB, the largest arch.sbuf-bytes-per-partition"),
	"sunda_size_tiling.low_psum_usage_threshold":           pass.FloatRange(0, 1, "a share of the PSUM banks"),
	"sunda_size_tiling.rate_matching":                      pass.Bool(),
	"sunda_size_tiling.enable_software_replication":        pass.Bool(),
	"sunda_size_tiling.simd_macro":                         pass.Bool(),

	"heuristic_unroll.enable": pass.Bool(),
	"heuristic_unroll.maxhu":  pass.Either(pass.Exactly("", "the MAXHU environment variable, else no cap"), pass.IntRange(0, maxWork, "a count of loops")),

	"sb_size_legalization.max_access_points":  pass.IntRange(1, maxWork, "iterations evaluated per access: at least one, at most 2^30 (work bound)"),
	"sb_size_legalization.max_liveness_steps": pass.IntRange(1, maxWork, "steps executed to count live blocks: at least one, at most 2^30 (work bound)"),

	"full_unroll.unrollLevel": pass.OneOf("FullUnroll's levels (seed 003), or auto", "0", "1", "2", "auto"),

	"vn_splitter.vn_limit":            pass.IntRange(1, 1<<24, "locations of a function after splitting: at least one, at most 2^24 (the pieces' tables)"),
	"vn_splitter.ratio":               pass.IntRange(1, 1<<16, "a ratio of elements per partition: at least 1 (no duplication)"),
	"vn_splitter.perSplitLimit":       pass.IntRange(1, 128, "pieces of one location: at most one per partition"),
	"vn_splitter.noSplitDRAM":         pass.Bool(),
	"vn_splitter.foldIntoPredecessor": pass.Bool(),
	"vn_splitter.splitSB":             pass.Bool(),
	"vn_splitter.skip":                pass.AnyText("a comma-separated list of location names"),

	"shrink_ml.max_liveness_steps": pass.IntRange(1, maxWork, "steps executed to count live blocks: at least one, at most 2^30 (work bound)"),

	"infer_psum_tensor.act_to_psum": pass.Bool(),

	"pre_schedule.target": pass.FloatRange(1e-6, 1, "a fraction of the SBUF and PSUM budgets: above 0, at most all of them"),
	"pre_schedule.force":  pass.Bool(),

	"alloc.allocator":       pass.OneOf("the two allocators", "pack", "linear-scan"),
	"alloc.exact_nodes":     pass.IntRange(0, maxWork, "a node budget (0: the default), at most 2^30 (work bound)"),
	"alloc.baseline":        pass.Bool(),
	"alloc.reuse":           pass.OneOf("pack's reuse policies", "spread", "oldest-freed", "best-fit"),
	"alloc.psum_interleave": pass.Either(pass.Exactly("auto", "up to 2 where the banks allow"), pass.IntRange(1, 64, "PSUM slots: at least 1, at most the 64 banks arch.psum-banks allows")),
	"alloc.memmap":          pass.AnyText("a .svg or .csv file name (narwhal compile --memmap)"),
	"alloc.dump_problem":    pass.AnyText("a .csv file name (narwhal compile --dump-alloc-problem)"),
	"alloc.slack":           pass.FloatRange(0, 100, "a share of max-live: 0 (always minimize) to 100 (keep any sweep placement)"),

	"sunda_size_tiling_perf.enable":          pass.Bool(),
	"sunda_size_tiling_perf.max_evaluations": pass.IntRange(0, 1<<16, "schedules per function (0: judge nothing), at most 65536 (each is a whole schedule)"),
	"sunda_size_tiling_perf.max_work":        pass.IntRange(0, maxWork, "instructions scheduled per function (0: judge nothing), at most 2^30 (work bound)"),

	"unroll.max_instruction_limit": pass.IntRange(0, 25_000_000, "0 is the default (5,000,000); at most FullUnroll's 25M ceiling"),
	"unroll.realloc":               pass.Either(pass.Exactly("", "the module option realloc"), pass.Bool()),

	"anti_dependency_analyzer.mode":              pass.OneOf("the two footprint modes", "physical", "logical"),
	"anti_dependency_analyzer.keep-existing":     pass.Bool(),
	"anti_dependency_analyzer.max-reduce-visits": pass.IntRange(1, 1<<20, "instructions visited per instruction: at least 1, at most 2^20 (the reduction's work is this times the instructions)"),

	"alloc_queues.policy": pass.OneOf("the two queue policies", "at-issue", "balanced"),

	"time_aware_scheduler.reorder-window": pass.IntRange(0, 1<<16, "candidates considered (0 or 1: list order), at most 65536 (the window is scanned per issue and allocated up front)"),
	"time_aware_scheduler.orders":         pass.Either(pass.Exactly("auto", "ddg, incoming, and asap up to 1M instructions"), pass.ListOf("the linearized orders", "ddg", "incoming", "asap")),
	"time_aware_scheduler.reuse-cost":     pass.OneOf("price the allocation's reuse", "true", "false", "auto"),
}

// applyOptionRanges sets every option's Check from optionRanges and
// returns the programming errors it met (an option without a range, a
// default outside its range, a range naming no option), which
// TestOptionRanges_EveryOption reports.
func applyOptionRanges(t *pass.Table) error {
	var errs []error
	used := map[string]bool{}
	for i := range t.Passes {
		p := &t.Passes[i]
		// The options slice may be shared with the pass package's own
		// variable: copy it before setting the checks.
		p.Options = append([]pass.Option(nil), p.Options...)
		for j := range p.Options {
			key := p.Name + "." + p.Options[j].Name
			c, ok := optionRanges[key]
			if !ok {
				errs = append(errs, fmt.Errorf("option %s has no documented range (pipeline/options.go)", key))
				continue
			}
			if !c.Accepts(p.Options[j].Default) {
				errs = append(errs, fmt.Errorf("option %s: its default %q is outside its range %s", key, p.Options[j].Default, c.Range))
				continue
			}
			p.Options[j].Check = c
			used[key] = true
		}
	}
	for key := range optionRanges {
		if !used[key] {
			errs = append(errs, fmt.Errorf("pipeline/options.go: range for %s, which no pass of the table declares", key))
		}
	}
	return errors.Join(errs...)
}
