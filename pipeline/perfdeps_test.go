package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestPerfTiling_PiecesNeedNoInheritedEdges: performance tiling's pieces
// carry no dependencies of their own (the analyzer derives their byte
// edges, and its lifetime rule keeps the allocation's reuse order), so
// keeping the IR's dependencies through the analyzer
// (anti_dependency_analyzer.keep-existing=true) compiles residual (a
// kernel whose pieces performance tiling keeps under the DMA model of
// arch/cost.go; exchange was the case where the pieces used to inherit
// the unsplit program's edges all-to-all, 48 ORDERED edges that became 16
// more waits and 8 more carriers, and it keeps no split since) exactly as
// the default does: the same waits, carriers and makespan, no ORDERED
// edge, every stage's rules (the overlap rule among them) after every
// pass and the outputs of the program before the pipeline.
func TestPerfTiling_PiecesNeedNoInheritedEdges(t *testing.T) {
	var stage verify.Stage
	for _, p := range Table.Passes {
		if p.Default && p.Gate == "" {
			stage |= p.Produces
		}
	}
	counts := func(keep bool) [4]int64 {
		inst, err := kernels.Instantiate("residual")
		if err != nil {
			t.Fatal(err)
		}
		cfg := pass.Config{VerifyEach: true}
		if keep {
			cfg.Options = map[string]map[string]string{"anti_dependency_analyzer": {"keep-existing": "true"}}
		}
		var rep *pass.Report
		passtest.Check(t, inst.Module, func(m *bir.Module) error {
			var err error
			rep, err = Table.Run(m, cfg)
			return err
		}, passtest.Stage(stage))
		if rep == nil {
			t.FailNow()
		}
		if rep.Result("sunda_size_tiling_perf").Counter("sunda_size_tiling_perf.kept") == 0 {
			t.Fatal("performance tiling kept no split of residual: the test needs pieces")
		}
		sync := rep.Result("alloc_semaphores")
		return [4]int64{
			rep.Result("anti_dependency_analyzer").Counter("edges.ordered"),
			sync.Counter("wait_commands"), sync.Counter("carriers"), sync.Counter("makespan_ns"),
		}
	}
	def, keep := counts(false), counts(true)
	if def != keep || keep[0] != 0 {
		t.Errorf("ORDERED edges, waits, carriers, makespan: %v with the dependencies kept, %v recomputed: want equal, no ORDERED edge", keep, def)
	}
}
