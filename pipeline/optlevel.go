package pipeline

import (
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// OptLevel is what one of neuronx-cc's optimization levels (-O1, -O2,
// -O3; --optlevel N) means in narwhal: gates turned on and pass options
// set. The command line's own gate flags and --option values win over
// the level's.
type OptLevel struct {
	Level   int
	Doc     string
	Gates   []string                     // module options set to "true"
	Options map[string]map[string]string // pass options, [pass][key]
}

// DefaultOptLevel is neuronx-cc's default, -O2.
const DefaultOptLevel = 2

// OptLevels documents each level (docs/cli.md prints this table).
var OptLevels = []OptLevel{
	{Level: 1, Doc: "compile faster: VerticalFusion off (vn_splitter.foldIntoPredecessor=false), and the " +
		"liveness analyses of sb_size_legalization and shrink_ml stop after 2^20 steps instead of 2^24 " +
		"(a tensor they cannot finish keeps no liveN record: it may be trimmed less)",
		Options: map[string]map[string]string{
			"vn_splitter":          {"foldIntoPredecessor": "false"},
			"sb_size_legalization": {"max_liveness_steps": strconv.Itoa(1 << 20)},
			"shrink_ml":            {"max_liveness_steps": strconv.Itoa(1 << 20)},
		}},
	{Level: 2, Doc: "the default pipeline as `narwhal passes` lists it"},
	{Level: 3, Doc: "-O2 plus legalize_strided_dma (the gen-stride-dma gate): partition-strided loads become " +
		"a contiguous DMA into an SBUF tile and an engine TensorCopy, which runs faster than element-wise " +
		"strided DMA descriptors at the cost of the SBUF tile",
		Gates: []string{"gen-stride-dma"}},
}

// ApplyOptLevel applies level to m and to the pass options opts (keys the
// command line set already are kept).
func ApplyOptLevel(level int, m *bir.Module, opts map[string]map[string]string) error {
	for _, l := range OptLevels {
		if l.Level != level {
			continue
		}
		for _, g := range l.Gates {
			if m.Config.Options == nil {
				m.Config.Options = map[string]string{}
			}
			m.Config.Options[g] = "true"
		}
		for p, kv := range l.Options {
			for k, v := range kv {
				if _, set := opts[p][k]; set {
					continue
				}
				if opts[p] == nil {
					opts[p] = map[string]string{}
				}
				opts[p][k] = v
			}
		}
		return nil
	}
	return diag.Errorf(diag.Usage, "%s", fmt.Sprintf("-O%d: want 1, 2 or 3", level))
}
