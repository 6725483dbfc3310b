// Package anchors is narwhal's calibration against published hardware
// measurements (../shared/docs/perf-anchors.md, the anchors of its last
// section that narwhal can build): each anchor is a built-in kernel at the
// published shape and generation, the figure measured on hardware with
// its source, and how narwhal's prediction of that figure is read from
// the compiled module (the makespan, an engine's busy time, the initiation
// interval of a chain of instructions, one DMA's time on its engine).
// Table compiles every anchor through the default pipeline and returns
// the rows `narwhal bench --anchors` prints and docs/cost-model.md holds;
// the package's test holds each row to its tolerance (issue 26: the
// matmul tutorial within 20 % and its steps' ratios within 25 %, Mamba
// within 20 %, the micro-anchors within 25 %).
//
// The measured figures are measurements, not machine constants: they
// live here, with their sources; the machine constants the model is
// fitted to them with live in arch/ (models.go).
package anchors

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// Measure says which figure of a compiled module an anchor predicts.
type Measure uint8

const (
	// Makespan: the schedule's makespan of the entry function.
	Makespan Measure = iota
	// ChainII: the mean initiation interval of the instructions whose
	// names start with Inst (their starts, first to last, over count-1).
	ChainII
	// DMAEngineTime: the transfer time of the DMA named Inst on its
	// busiest DMA engine.
	DMAEngineTime
)

// Anchor is one published measurement and the kernel that reproduces it.
type Anchor struct {
	Name   string  // short name, the table's row
	Spec   string  // the built-in kernel instance (kernels.Instantiate)
	Target string  // the generation (an arch model name)
	What   Measure // which figure
	Inst   string  // ChainII, DMAEngineTime: the instructions' name prefix
	// MeasuredNs is the published figure in ns.
	MeasuredNs float64
	// EngineNs are the published busy times per engine (profiler row
	// name -> ns), where the source gives them.
	EngineNs map[string]float64
	// Tolerance is the largest |predicted/measured - 1| the issue asks;
	// 0: reported, not held (an anchor the model does not reach, with the
	// reason in docs/cost-model.md).
	Tolerance float64
	// Fit marks the anchor a model constant was fitted to (its row
	// validates nothing; another anchor validates the constant).
	Fit string
	// Source is where the figure is published (perf-anchors.md's row).
	Source string
}

// All returns the anchors, in the table's order.
func All() []Anchor {
	return []Anchor{
		{Name: "matmul original tiled", Spec: "matmul:m=4096,k=8192,n=8192,tile_n=512,dtype=bfloat16,arch=trn1", Target: "trn1",
			MeasuredNs: 51.80e6, Tolerance: 0.20, Source: "perf-anchors row 1: NKI matmul tutorial nki_matmul_tiled_, trn1, p99"},
		{Name: "matmul hoisted loads", Spec: "matmul_tutorial:variant=hoist,m=4096,k=8192,n=8192,arch=trn1", Target: "trn1",
			MeasuredNs: 42.96e6, Tolerance: 0.20, Fit: "dma-small-efficiency (0.38) fitted here", Source: "perf-anchors row 2: nki_matmul_hoist_load_"},
		{Name: "matmul blocked free dims", Spec: "matmul_tutorial:variant=block,m=4096,k=8192,n=8192,bm=2,bn=2,arch=trn1", Target: "trn1",
			MeasuredNs: 22.07e6, Tolerance: 0.20, Source: "perf-anchors row 3: nki_matmul_block_free_dimension_ (TILES_IN_BLOCK_M=N=2)"},
		{Name: "matmul fully optimized", Spec: "matmul_tutorial:variant=opt,m=4096,k=8192,n=8192,bm=16,bn=2,bk=8,arch=trn1", Target: "trn1",
			MeasuredNs: 6.97e6, Tolerance: 0.20, Source: "perf-anchors row 4: nki_matmul_fully_optimized_ (blocks 16, 2, 8)"},
		{Name: "mamba_v1 channels 256", Spec: "mamba:channels=256,seq=512,state=16,arch=trn1", Target: "trn1",
			MeasuredNs: 172.93e3, EngineNs: map[string]float64{"Vector": 0.9871 * 172.93e3}, Tolerance: 0.20,
			Source: "perf-anchors row 7: NKI fused_mamba tutorial mamba_v1, NP device time, VectorE 98.71 %"},
		{Name: "mamba_v1 channels 4096", Spec: "mamba:channels=4096,seq=512,state=16,arch=trn1", Target: "trn1",
			MeasuredNs: 2.34e6, EngineNs: map[string]float64{"Vector": 0.9216 * 2.34e6}, Tolerance: 0.20,
			Source: "perf-anchors row 8: mamba_v1 at 4096 channels, VectorE 92.16 %"},
		{Name: "dependent 1-element activations", Spec: "micro:case=act_chain,n=64,arch=trn1", Target: "trn1", What: ChainII, Inst: "act",
			MeasuredNs: 189, Tolerance: 0.25, Source: "perf-anchors row 11: NKI performance guide Opt #5a, initiation interval ~189 ns (264 ScalarE cycles)"},
		{Name: "[4,4096] bf16 load on one DMA engine", Spec: "micro:case=dma_small,arch=trn2", Target: "trn2", What: DMAEngineTime, Inst: "load_a",
			MeasuredNs: 1416, Tolerance: 0.25, Source: "perf-anchors row 12: NKI DMA overview profile, 1416 ns on the single active engine"},
		{Name: "independent [128,3] tensor_tensor", Spec: "micro:case=tt_stream,n=256,arch=trn1", Target: "trn1", What: ChainII, Inst: "add",
			MeasuredNs: 3.84e6 / 65536, Tolerance: 0.25, Source: "perf-anchors row 14: conv1d baseline profile, 3.84 ms over ~65,536 tensor_tensor [128,3] (~66 DVE cycles)"},
		{Name: "NKIBench silu", Spec: "silu:rows=4096,cols=7168,arch=trn1", Target: "trn1",
			MeasuredNs: 1.333e6, EngineNs: map[string]float64{"Scalar": 0.315 * 1.333e6, "Vector": 0.739 * 1.333e6},
			Fit: "reciprocal-dve-factor (2) read from its Vector busy time", Source: "perf-anchors row 15: AccelOpt NKIBench silu M4096 N7168 baseline, NP total_time"},
	}
}

// Row is one anchor's prediction.
type Row struct {
	Anchor
	PredictedNs float64
	// EnginePredNs are the predicted busy times of the engines the source
	// publishes.
	EnginePredNs map[string]float64
	// Busy are the predicted busy times of every engine that worked (for
	// the doc: Tensor, Vector, Scalar, GpSimd, DMA engines mean).
	Busy map[string]float64
}

// Ratio is predicted / measured.
func (r *Row) Ratio() float64 { return r.PredictedNs / r.MeasuredNs }

// Err is |ratio - 1|.
func (r *Row) Err() float64 { return math.Abs(r.Ratio() - 1) }

// Run compiles anchor a through the default pipeline on its generation
// and reads its prediction.
func Run(a Anchor) (*Row, error) {
	inst, err := kernels.Instantiate(a.Spec)
	if err != nil {
		return nil, err
	}
	m := inst.Module
	model, err := arch.Retarget(m, a.Target, nil)
	if err != nil {
		return nil, err
	}
	if _, err := pipeline.Table.Run(m, pass.Config{Arch: model}); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Spec, err)
	}
	f := m.Main()
	if f == nil || f.Sched == nil {
		return nil, fmt.Errorf("%s: no schedule", a.Spec)
	}
	row := &Row{Anchor: a, Busy: busy(f, model)}
	switch a.What {
	case Makespan:
		row.PredictedNs = float64(f.Sched.Makespan()) / 1e3
	case ChainII:
		var starts []int64
		f.Walk(func(i bir.InstID) bool {
			if f.Sched.Has(i) && strings.HasPrefix(f.InstName(i), a.Inst) && !f.Inst(i).Op.Info().Has(bir.FlagSync) {
				starts = append(starts, f.Sched.Start[i])
			}
			return true
		})
		if len(starts) < 2 {
			return nil, fmt.Errorf("%s: %d instructions named %s*: want a chain", a.Spec, len(starts), a.Inst)
		}
		slices.Sort(starts)
		row.PredictedNs = float64(starts[len(starts)-1]-starts[0]) / float64(len(starts)-1) / 1e3
	case DMAEngineTime:
		found := false
		f.Walk(func(i bir.InstID) bool {
			if !found && f.Sched.Has(i) && strings.HasPrefix(f.InstName(i), a.Inst) && f.Inst(i).Op.Info().Has(bir.FlagDMA) {
				est, e := model.InstructionCost(f, i, bir.EngDMA, f.Sched.DGE[i] >= 0)
				if e == nil {
					row.PredictedNs, found = est.XferNs, true
				}
			}
			return true
		})
		if !found {
			return nil, fmt.Errorf("%s: no DMA named %s*", a.Spec, a.Inst)
		}
	}
	if len(a.EngineNs) > 0 {
		row.EnginePredNs = map[string]float64{}
		for e := range a.EngineNs {
			row.EnginePredNs[e] = row.Busy[e]
		}
	}
	return row, nil
}

// busy returns the scheduled busy time of each engine in ns (profiler
// names), the DMA engines as their mean ("DMA engines").
func busy(f *bir.Function, model *arch.Model) map[string]float64 {
	out := map[string]float64{}
	var dma [64]int64
	tab := f.Sched
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if !tab.Has(i) {
			return true
		}
		if in.Op.Info().Has(bir.FlagDMA) {
			if est, err := model.InstructionCost(f, i, bir.EngDMA, tab.DGE[i] >= 0); err == nil {
				for m := est.Engines; m != 0; m &= m - 1 {
					dma[bits.TrailingZeros64(m)] += est.XferPs()
				}
			}
			return true
		}
		if e := in.Engine; e != bir.EngUnassigned && e < bir.NumEngines && !in.Op.Info().Has(bir.FlagSync) {
			out[e.ProfilerName()] += float64(tab.End[i]-tab.Start[i]) / 1e3
		}
		return true
	})
	var sum int64
	for _, v := range dma[:max(model.DMAEngines, 1)] {
		sum += v
	}
	if sum > 0 {
		out["DMA engines"] = float64(sum) / float64(max(model.DMAEngines, 1)) / 1e3
	}
	return out
}

// Table runs every anchor (in order).
func Table() ([]*Row, error) {
	var rows []*Row
	for _, a := range All() {
		r, err := Run(a)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Steps are the matmul tutorial's optimization steps, in order: each
// predicted faster than the one before, by a ratio within 25 % of the
// measured ratio.
var Steps = []string{"matmul original tiled", "matmul hoisted loads", "matmul blocked free dims", "matmul fully optimized"}

// StepRatios returns, for each consecutive pair of Steps, the measured
// and predicted speed-up (before / after).
func StepRatios(rows []*Row) (names []string, measured, predicted []float64) {
	by := map[string]*Row{}
	for _, r := range rows {
		by[r.Name] = r
	}
	for k := 1; k < len(Steps); k++ {
		a, b := by[Steps[k-1]], by[Steps[k]]
		if a == nil || b == nil {
			continue
		}
		names = append(names, Steps[k-1]+" -> "+Steps[k])
		measured = append(measured, a.MeasuredNs/b.MeasuredNs)
		predicted = append(predicted, a.PredictedNs/b.PredictedNs)
	}
	return names, measured, predicted
}

// ErrorStats returns the median and the largest absolute error
// (|predicted/measured - 1|) over rows, and the row of the largest.
func ErrorStats(rows []*Row) (median, largest float64, worst string) {
	errs := make([]float64, len(rows))
	for k, r := range rows {
		errs[k] = r.Err()
		if errs[k] > largest {
			largest, worst = errs[k], r.Name
		}
	}
	sort.Float64s(errs)
	if n := len(errs); n > 0 {
		median = errs[n/2]
		if n%2 == 0 {
			median = (errs[n/2-1] + errs[n/2]) / 2
		}
	}
	return median, largest, worst
}

// fmtNs prints a time in the unit that suits it.
func fmtNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f us", ns/1e3)
	}
	return fmt.Sprintf("%.1f ns", ns)
}

// Markdown renders rows as the calibration table of docs/cost-model.md:
// one row per anchor (predicted, measured, ratio, per-engine busy where
// published), the tutorial's step ratios, and the median and largest
// error.
func Markdown(rows []*Row) string {
	var b strings.Builder
	b.WriteString("| anchor | kernel | predicted | measured | ratio | engines (predicted / measured busy) | held to |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		var eng []string
		keys := make([]string, 0, len(r.EngineNs))
		for e := range r.EngineNs {
			keys = append(keys, e)
		}
		sort.Strings(keys)
		for _, e := range keys {
			eng = append(eng, fmt.Sprintf("%s %s / %s", e, fmtNs(r.EnginePredNs[e]), fmtNs(r.EngineNs[e])))
		}
		held := "not reached (docs/cost-model.md)"
		if r.Tolerance > 0 {
			held = fmt.Sprintf("±%.0f%%", 100*r.Tolerance)
		}
		if r.Fit != "" {
			held += "; " + r.Fit
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %.3f | %s | %s |\n", r.Name, r.Spec, fmtNs(r.PredictedNs), fmtNs(r.MeasuredNs), r.Ratio(), strings.Join(eng, ", "), held)
	}
	names, meas, pred := StepRatios(rows)
	if len(names) > 0 {
		b.WriteString("\n| tutorial step | measured speed-up | predicted speed-up | predicted / measured |\n|---|---|---|---|\n")
		for k := range names {
			fmt.Fprintf(&b, "| %s | x%.3f | x%.3f | %.3f |\n", names[k], meas[k], pred[k], pred[k]/meas[k])
		}
	}
	med, big, worst := ErrorStats(rows)
	fmt.Fprintf(&b, "\nMedian absolute error %.1f %% over %d anchors; the largest %.1f %% (%s).\n", 100*med, len(rows), 100*big, worst)
	return b.String()
}
