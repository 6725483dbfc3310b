package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
)

// compiled is a kernel through the default pipeline: the makespan and the
// scheduler's lower bound of its main function, in ns.
type compiled struct {
	makespan, lower float64
	insts           int64
}

func compileKernel(t *testing.T, spec string, perf bool) compiled {
	t.Helper()
	m, err := kernels.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := pass.Config{}
	if !perf {
		cfg.Options = map[string]map[string]string{"sunda_size_tiling_perf": {"enable": "false"}}
	}
	rep, err := Table.Run(m, cfg)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	r := rep.Result("time_aware_scheduler")
	return compiled{makespan: float64(r.Counter("makespan_ns")), lower: float64(r.Counter("lower_bound_ns")), insts: m.Main().NumInsts()}
}

// TestMakespan_MacroVersusHandTiled: the macro kernels, tiled by
// sunda_size_tiling, against the hand-tiled built-ins of the same shapes,
// through the default pipeline with and without performance tiling: every
// tiled macro kernel's makespan is within 10% of its hand-tiled
// counterpart's. The table is the "Must show" figure (go test
// ./pipeline -run MacroVersusHandTiled -v prints it).
func TestMakespan_MacroVersusHandTiled(t *testing.T) {
	pairs := [][2]string{
		{"macro_elementwise:rows=512,cols=2048,chain=add", "tensor_add:rows=512,cols=2048"},
		{"macro_matmul:m=256,k=512,n=1024", "matmul:m=256,k=512,n=1024"},
		{"macro_softmax:rows=256,cols=512", "softmax:rows=256,cols=512"},
		{"macro_rmsnorm:rows=256,d=512", "rmsnorm:rows=256,d=512"},
		{"macro_matmul:m=128,k=256,n=1024,dtype=bfloat16", "matmul:m=128,k=256,n=1024,dtype=bfloat16"},
		{"macro_softmax:rows=512,cols=1024,dtype=bfloat16", "softmax:rows=512,cols=1024,dtype=bfloat16"},
	}
	var sb strings.Builder
	sb.WriteString("| macro kernel | hand-tiled kernel | performance tiling | macro makespan (us) | hand-tiled makespan (us) | ratio |\n|---|---|---|---|---|---|\n")
	for _, pr := range pairs {
		for _, perf := range []bool{false, true} {
			mc, hc := compileKernel(t, pr[0], perf), compileKernel(t, pr[1], perf)
			ratio := mc.makespan / hc.makespan
			fmt.Fprintf(&sb, "| %s | %s | %v | %.3f | %.3f | %.3f |\n", pr[0], pr[1], map[bool]string{true: "on", false: "off"}[perf], mc.makespan/1e3, hc.makespan/1e3, ratio)
			if ratio > 1.10 {
				t.Errorf("%s: makespan %.3f us, %.1f%% above %s's %.3f us (performance tiling %v): want within 10%%", pr[0], mc.makespan/1e3, 100*(ratio-1), pr[1], hc.makespan/1e3, perf)
			}
		}
	}
	t.Log("\n" + sb.String())
}

// TestMakespan_PerformanceTiling: every built-in hand-tiled kernel at its
// defaults through the default pipeline with performance tiling off and
// on; it must lower the makespan of at least three and raise none. The
// table (before/after makespan and the scheduler's lower bound) is the
// issue's "Must show" figure.
func TestMakespan_PerformanceTiling(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("| kernel | makespan off (us) | lower bound off (us) | makespan on (us) | lower bound on (us) | speed-up | instructions off -> on |\n|---|---|---|---|---|---|---|\n")
	lowered := 0
	for _, k := range kernels.All() {
		if k.Macro {
			continue
		}
		off, on := compileKernel(t, k.Name, false), compileKernel(t, k.Name, true)
		fmt.Fprintf(&sb, "| %s | %.3f | %.3f | %.3f | %.3f | x%.2f | %d -> %d |\n", k.Name, off.makespan/1e3, off.lower/1e3, on.makespan/1e3, on.lower/1e3, off.makespan/on.makespan, off.insts, on.insts)
		if on.makespan > off.makespan {
			t.Errorf("%s: performance tiling raised the makespan from %.3f to %.3f us", k.Name, off.makespan/1e3, on.makespan/1e3)
		}
		if on.makespan < off.makespan {
			lowered++
		}
	}
	if lowered < 3 {
		t.Errorf("performance tiling lowered %d kernels' makespans, want at least 3", lowered)
	}
	t.Log("\n" + sb.String())
}

// TestPerfTiling_JudgesWithTheRunsOptions: performance tiling judges a
// candidate by the schedule the pipeline will make of it, with the run's
// options of the passes that schedule: the makespan it reports for the
// program it keeps is the scheduler's, whatever the dependency mode, the
// queue policy, the reorder window or the orders.
func TestPerfTiling_JudgesWithTheRunsOptions(t *testing.T) {
	for _, tc := range []struct {
		spec string
		opts map[string]map[string]string
	}{
		{"tensor_add", nil},
		{"tensor_add", map[string]map[string]string{"time_aware_scheduler": {"orders": "ddg"}}},
		{"transpose2d", map[string]map[string]string{"time_aware_scheduler": {"orders": "ddg", "reorder-window": "0"}}},
		{"matmul:m=512,k=512,n=1024", map[string]map[string]string{"time_aware_scheduler": {"orders": "ddg"}}},
		{"softmax", map[string]map[string]string{"alloc_queues": {"policy": "balanced"}}},
		{"tensor_add", map[string]map[string]string{"anti_dependency_analyzer": {"mode": "logical"}}},
	} {
		t.Run(fmt.Sprintf("%s %v", tc.spec, tc.opts), func(t *testing.T) {
			m, err := kernels.Build(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Table.Run(m, pass.Config{Options: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			judged := rep.Result("sunda_size_tiling_perf").Counter("sunda_size_tiling_perf.makespan_after_ns")
			got := rep.Result("time_aware_scheduler").Counter("makespan_ns")
			if judged != got {
				t.Errorf("performance tiling judged the program it kept at %d ns, the scheduler makes %d ns of it", judged, got)
			}
		})
	}
}

// TestAntiDependencyAnalyzer_LogicalAfterReuse: mode=logical is refused
// (NW103, naming two locations that share bytes) on a program whose
// allocation reuses bytes, where a logical schedule could overlap them
// (the verifier's overlap rule rejected it as an internal error before),
// and kept, with the physical mode's makespan, where nothing is reused.
func TestAntiDependencyAnalyzer_LogicalAfterReuse(t *testing.T) {
	logical := map[string]map[string]string{"anti_dependency_analyzer": {"mode": "logical"}}
	for _, tc := range []struct {
		spec    string
		refused bool
	}{
		{"residual:rows=256,cols=16384", true},
		{"tensor_add", false},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			m, err := kernels.Build(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Table.Run(m, pass.Config{Options: logical, VerifyEach: true})
			if !tc.refused {
				if err != nil {
					t.Fatalf("mode=logical on a program without reuse: %v", err)
				}
				return
			}
			if got := diag.CodeOf(err); got != diag.PassOption {
				t.Fatalf("mode=logical with reuse: want %s, have %q: %v", diag.PassOption, got, err)
			}
			if !strings.Contains(err.Error(), "on shared bytes") {
				t.Errorf("the refusal does not name the shared placement: %v", err)
			}
		})
	}
}
