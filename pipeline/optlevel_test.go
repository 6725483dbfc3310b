package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestOptLevels: every level's options name a declared option of a pass
// of the table, and its gates a gate of the table; -O3 turns
// legalize_strided_dma on, -O1 leaves the command line's values alone.
func TestOptLevels(t *testing.T) {
	gates := map[string]bool{}
	for _, p := range Table.Passes {
		if p.Gate != "" {
			gates[p.Gate] = true
		}
	}
	for _, l := range OptLevels {
		for _, g := range l.Gates {
			if !gates[g] {
				t.Errorf("-O%d turns on %q, which gates no pass", l.Level, g)
			}
		}
		for pn, kv := range l.Options {
			p, ok := Table.Lookup(pn)
			if !ok {
				t.Errorf("-O%d sets options of %q, which is not a pass", l.Level, pn)
				continue
			}
			for k := range kv {
				found := false
				for _, o := range p.Options {
					found = found || o.Name == k
				}
				if !found {
					t.Errorf("-O%d sets %s.%s, which the pass does not declare", l.Level, pn, k)
				}
			}
		}
	}
	m := bir.NewModule("trn2")
	opts := map[string]map[string]string{"vn_splitter": {"foldIntoPredecessor": "true"}}
	if err := ApplyOptLevel(1, m, opts); err != nil {
		t.Fatal(err)
	}
	if opts["vn_splitter"]["foldIntoPredecessor"] != "true" || opts["shrink_ml"]["max_liveness_steps"] != "1048576" {
		t.Errorf("-O1 options %v: want the command line's value kept and the level's added", opts)
	}
	if err := ApplyOptLevel(3, m, map[string]map[string]string{}); err != nil || m.Config.Options["gen-stride-dma"] != "true" {
		t.Errorf("-O3: %v, options %v", err, m.Config.Options)
	}
	if err := ApplyOptLevel(4, m, nil); err == nil {
		t.Error("-O4 accepted")
	}
}
