package main

// compile --streams DIR: one listing per engine and DMA queue of every
// synchronized function (stream.WriteListing), DIR/FUNC.STREAM.txt
// ("main.vector.txt", "main.queue3.txt"); DIR is created when missing and
// each file is written atomically. A function that keeps loops lists its
// instances ("load_x@i=2"), as its streams execute them.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/stream"
)

func writeStreams(dir string, stdout io.Writer, m *bir.Module, model *arch.Model) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return diag.Wrap(diag.Output, fmt.Errorf("--streams: %w", err))
	}
	// A function that keeps loops is listed as its streams execute it:
	// each loop body's instances, iteration after iteration, with the
	// waits' counts of that iteration (bir.Expand); a loop whose trip
	// count is known only at run time at the schedule's assumed count
	// (bir.RuntimeLoopWindow, the report's figures).
	if x, err := bir.Expand(m, bir.ExpandOptions{RuntimeTrips: bir.AnalysisTrips(bir.RuntimeLoopWindow)}); err != nil {
		return fmt.Errorf("--streams: %w", err)
	} else {
		m = x.M
	}
	n := 0
	for _, f := range m.Funcs {
		if f.Sync == nil {
			continue
		}
		L, err := stream.Build(f, stream.Options{HasEngine: model.HasEngine, Queues: int(max(model.DMAQueues, 1))})
		if err != nil {
			return fmt.Errorf("--streams: %w", err)
		}
		fm := bir.NewInstFormatter(f)
		fm.NoDeps = true
		for s := range L.Present {
			if !L.Present[s] || L.Len[s] == 0 && stream.ID(s).IsQueue() {
				continue
			}
			path := filepath.Join(dir, stream.ListingName(f, stream.ID(s)))
			err := outfile.Write(path, outfile.Options{}, func(w io.Writer) error { return stream.WriteListing(w, L, stream.ID(s), fm) })
			if err != nil {
				return fmt.Errorf("--streams: %w", err)
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("--streams: the module has no synchronized function (alloc_semaphores did not run)")
	}
	fmt.Fprintf(stdout, "streams: %d listings (one per engine and DMA queue) in %s\n", n, dir)
	return nil
}
