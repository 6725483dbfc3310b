package main

// narwhal run FILE... --concurrent [--interleave random|starve:ENGINE|late-dma] [--seed N]
//
// executes a synchronized module (the default pipeline's output) in the
// concurrent interpreter (interp.RunConcurrent): every engine and DMA queue
// its own stream, semaphores blocking, reads at issue and writes at
// completion, the steps interleaved by the policy, seeded by --seed (which
// also seeds the random inputs, so without --inputs the inputs are the
// sequential run's). It prints one line per race, the deadlock or the
// DMAs in flight after every engine halted, and whether the outputs are
// bit-identical to the sequential run's; any of those findings is an
// error (exit status 1). The outputs written are the concurrent run's.
//
// Several files are the programs of one LNC kernel's cores, core 0 first
// (compile --lnc N writes them): they run at once (interp.RunCores), the
// Input and Output tensors of the same name shared in HBM, CoreBarriers
// of the same id meeting; there is no sequential run to compare with, so
// --check (the kernel's reference, when a built-in kernel is recorded)
// says whether the outputs are right.

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/interp"
)

// runConcurrent runs the cores' modules mods (one module: one core)
// concurrently and compares the outputs with the sequential outputs seq
// (nil: no sequential run, several cores); it returns the concurrent
// outputs, or an error when the run found a problem.
func runConcurrent(mods []*bir.Module, inputs, seq map[string]*interp.Tensor, opt interp.Options, interleave string, seed int64, stdout io.Writer) (map[string]*interp.Tensor, error) {
	pol, starve, err := interp.ParsePolicy(interleave)
	if err != nil {
		return nil, diag.Wrap(diag.Usage, fmt.Errorf("--interleave: %w", err))
	}
	res, err := interp.RunCores(mods, inputs, interp.ConcurrentOptions{Options: opt, Policy: pol, Starve: starve, Seed: uint64(seed)})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stdout, "concurrent  --interleave %s --seed %d: %d steps\n", interleave, seed, res.Steps)
	for _, r := range res.Races {
		fmt.Fprintln(stdout, r)
	}
	if res.RacesFound > len(res.Races) {
		fmt.Fprintf(stdout, "... %d races in all\n", res.RacesFound)
	}
	if res.Deadlock != nil {
		fmt.Fprintln(stdout, res.Deadlock)
	}
	for _, l := range res.Late {
		fmt.Fprintln(stdout, l)
	}
	for _, l := range res.Overflows {
		fmt.Fprintln(stdout, l)
	}
	if res.Stopped != "" {
		fmt.Fprintf(stdout, "the run stopped: %s\n", res.Stopped)
	}
	if !res.OK() {
		return nil, diag.Errorf(diag.RunFault, "the concurrent run found %d races%s%s%s", res.RacesFound, map[bool]string{true: ", a deadlock", false: ""}[res.Deadlock != nil], map[bool]string{true: ", DMAs in flight after Halt", false: ""}[len(res.Late) > 0], map[bool]string{true: ", semaphore counts past the counter", false: ""}[len(res.Overflows) > 0])
	}
	if seq == nil {
		fmt.Fprintf(stdout, "concurrent  %d cores: no race, no deadlock\n", len(mods))
		return res.Outputs, nil
	}
	for _, name := range slices.Sorted(maps.Keys(seq)) {
		if got := res.Outputs[name]; got == nil || string(got.Data) != string(seq[name].Data) {
			return nil, diag.Errorf(diag.RunFault, "the concurrent run's output %s differs from the sequential run's", name)
		}
	}
	fmt.Fprintf(stdout, "concurrent  no race, no deadlock, outputs bit-identical to the sequential run\n")
	return res.Outputs, nil
}
