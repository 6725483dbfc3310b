package pack

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSolver_MiniMallocRobust measures how much the exact search depends on
// luck: it solves every MiniMalloc benchmark under perturbations that keep
// the problem the same (or mirror it) and reports, per file, the median and
// the worst node count and time. Opt-in (it can take an hour when the search
// is fragile):
//
//	NARWHAL_PACK_ROBUST=1 go test ./pack -run MiniMallocRobust -v -timeout 0
//
// Knobs (environment):
//
//	NARWHAL_PACK_ROBUST_N      perturbations of each kind (default 10)
//	NARWHAL_PACK_ROBUST_CAP    time cap per attempt (default 60s)
//	NARWHAL_PACK_ROBUST_FILES  files to run, e.g. "I,J" (default all)
//	NARWHAL_PACK_ROBUST_KINDS  kinds to run (default "orig,shuffle,seed,mirror,drop")
//
// Perturbation kinds:
//
//	orig     the file as distributed
//	shuffle  the CSV rows shuffled with seed k (IDs renumbered as a reader
//	         of the shuffled file would number them)
//	seed     the file as distributed, the solver's seed set to k
//	mirror   time reversed ([l, u) becomes [-u, -l): the same problem
//	         backwards, an equally hard instance) and the rows shuffled
//	         with seed k
//	drop     one buffer, picked with seed k, left out: a neighbouring
//	         instance (still feasible, about as tight)
//
// Since the solver puts the buffers in a canonical order, shuffle gives the
// same search as orig; mirror, drop and seed are the perturbations it cannot
// normalize away.
//
// Node counts are deterministic; times depend on the machine's load. An
// attempt that runs into the cap counts as the cap (and is marked).
func TestSolver_MiniMallocRobust(t *testing.T) {
	if os.Getenv("NARWHAL_PACK_ROBUST") == "" {
		t.Skip("set NARWHAL_PACK_ROBUST=1 to run the robustness harness")
	}
	n := envInt("NARWHAL_PACK_ROBUST_N", 10)
	limit := 60 * time.Second
	if s := os.Getenv("NARWHAL_PACK_ROBUST_CAP"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("NARWHAL_PACK_ROBUST_CAP: %v", err)
		}
		limit = d
	}
	files := miniMallocFiles
	if s := os.Getenv("NARWHAL_PACK_ROBUST_FILES"); s != "" {
		files = strings.Split(s, ",")
	}
	kinds := []string{"orig", "shuffle", "seed", "mirror", "drop"}
	if s := os.Getenv("NARWHAL_PACK_ROBUST_KINDS"); s != "" {
		kinds = strings.Split(s, ",")
	}
	type run struct {
		label   string
		nodes   int64
		elapsed time.Duration
		solved  bool
	}
	var summary []string
	for _, name := range files {
		table := loadMiniMalloc(t, name)
		var runs []run
		for _, kind := range kinds {
			count := n
			if kind == "orig" {
				count = 1
			}
			for k := 1; k <= count; k++ {
				bufs, opts := perturb(table.Buffers, kind, k)
				opts.Timeout = limit
				p := Problem{Buffers: bufs, Capacity: miniMallocCapacity}
				sol, err := Solve(p, opts)
				r := run{label: fmt.Sprintf("%s/%d", kind, k), nodes: sol.Nodes, elapsed: sol.Elapsed, solved: err == nil}
				if err == nil {
					if msg := independentCheck(p, sol.Offsets); msg != "" {
						t.Fatalf("%s %s: invalid placement: %s", name, r.label, msg)
					}
				}
				mark := ""
				if !r.solved {
					mark = "  NOT SOLVED"
				}
				t.Logf("%s %-10s %10d nodes %8.2fs%s", name, r.label, r.nodes, r.elapsed.Seconds(), mark)
				runs = append(runs, r)
			}
		}
		nodes := make([]int64, len(runs))
		times := make([]time.Duration, len(runs))
		unsolved := 0
		worst := runs[0]
		for k, r := range runs {
			nodes[k], times[k] = r.nodes, r.elapsed
			if !r.solved {
				unsolved++
			}
			if r.elapsed > worst.elapsed {
				worst = r
			}
		}
		slices.Sort(nodes)
		slices.Sort(times)
		line := fmt.Sprintf("%s: %d runs, nodes median %d worst %d; time median %.2fs worst %.2fs (%s); %d not solved within %v",
			name, len(runs), nodes[len(nodes)/2], nodes[len(nodes)-1], times[len(times)/2].Seconds(), times[len(times)-1].Seconds(), worst.label, unsolved, limit)
		t.Log(line)
		summary = append(summary, line)
	}
	for _, line := range summary {
		t.Log(line)
	}
}

// perturb returns the buffers and options of one perturbation (see
// TestSolver_MiniMallocRobust).
func perturb(orig []Buffer, kind string, k int) ([]Buffer, Options) {
	bufs := slices.Clone(orig)
	var opts Options
	shuffle := func() {
		rng := rand.New(rand.NewPCG(uint64(k), 0x5eed))
		rng.Shuffle(len(bufs), func(i, j int) { bufs[i], bufs[j] = bufs[j], bufs[i] })
		for i := range bufs {
			bufs[i].ID = int64(i)
		}
	}
	switch kind {
	case "orig":
	case "shuffle":
		shuffle()
	case "seed":
		opts.seed = uint64(k)
	case "mirror":
		for i := range bufs {
			bufs[i].Lower, bufs[i].Upper = -orig[i].Upper, -orig[i].Lower
		}
		shuffle()
	case "drop":
		rng := rand.New(rand.NewPCG(uint64(k), 0xd809))
		j := rng.IntN(len(bufs))
		bufs = slices.Delete(bufs, j, j+1)
	default:
		panic("unknown perturbation kind " + kind)
	}
	return bufs, opts
}

func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.Atoi(s); err == nil {
			return v
		}
	}
	return def
}
