package pack

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func fixedAt(x int64) *int64 { return &x }

func TestSolver_Solve(t *testing.T) {
	tests := []struct {
		name       string
		p          Problem
		wantStatus Status
		wantErr    error
	}{
		{"empty", Problem{Capacity: 0}, StatusFit, nil},
		{"one fits exactly", Problem{Capacity: 8, Buffers: []Buffer{{Lower: 0, Upper: 1, Size: 8}}}, StatusFit, nil},
		{"one too big", Problem{Capacity: 7, Buffers: []Buffer{{Lower: 0, Upper: 1, Size: 8}}}, StatusInfeasible, ErrInfeasible},
		{"disjoint lifetimes share space", Problem{Capacity: 8, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 8}, {Lower: 2, Upper: 4, Size: 8}}}, StatusFit, nil},
		{"max-live over capacity", Problem{Capacity: 15, Buffers: []Buffer{
			{Lower: 0, Upper: 3, Size: 8}, {Lower: 2, Upper: 4, Size: 8}}}, StatusInfeasible, ErrInfeasible},
		// Max-live is 2 everywhere but the middle buffer must sit on top
		// of one neighbour and under the other: forced fragmentation.
		{"fragmentation at max-live", Problem{Capacity: 2, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 1}, {Lower: 1, Upper: 3, Size: 1}, {Lower: 0, Upper: 1, Size: 1}, {Lower: 2, Upper: 3, Size: 1}}}, StatusFit, nil},
		{"forced gap is infeasible", Problem{Capacity: 3, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 2}, {Lower: 1, Upper: 3, Size: 2}, {Lower: 0, Upper: 1, Size: 1}, {Lower: 2, Upper: 3, Size: 1},
			{Lower: 1, Upper: 2, Size: 0}}}, StatusInfeasible, ErrInfeasible},
		{"alignment", Problem{Capacity: 16, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 3}, {Lower: 0, Upper: 2, Size: 4, Align: 8}}}, StatusFit, nil},
		{"alignment makes it infeasible", Problem{Capacity: 11, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 4, Align: 8}, {Lower: 0, Upper: 2, Size: 4, Align: 8}}}, StatusInfeasible, ErrInfeasible},
		{"fixed respected", Problem{Capacity: 10, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 4, Fixed: fixedAt(3)}, {Lower: 0, Upper: 2, Size: 3}, {Lower: 1, Upper: 2, Size: 3}}}, StatusFit, nil},
		{"fixed collide", Problem{Capacity: 10, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 4, Fixed: fixedAt(0)}, {Lower: 1, Upper: 3, Size: 4, Fixed: fixedAt(2)}}}, StatusInfeasible, ErrInfeasible},
		{"fixed beyond capacity", Problem{Capacity: 10, Buffers: []Buffer{
			{Lower: 0, Upper: 2, Size: 4, Fixed: fixedAt(8)}}}, StatusInfeasible, ErrInfeasible},
		{"fixed splits the space", Problem{Capacity: 10, Buffers: []Buffer{
			{Lower: 0, Upper: 4, Size: 2, Fixed: fixedAt(4)}, {Lower: 0, Upper: 4, Size: 5}}}, StatusInfeasible, ErrInfeasible},
		{"zero size", Problem{Capacity: 1, Buffers: []Buffer{{Lower: 0, Upper: 5, Size: 0}, {Lower: 0, Upper: 5, Size: 1}}}, StatusFit, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := Solve(tc.p, Options{Timeout: 10 * time.Second})
			if sol == nil {
				t.Fatalf("no solution: %v", err)
			}
			if sol.Status != tc.wantStatus {
				t.Fatalf("status %v, want %v (%v)", sol.Status, tc.wantStatus, err)
			}
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if sol.Status == StatusFit {
				if msg := independentCheck(tc.p, sol.Offsets); msg != "" {
					t.Fatal(msg)
				}
			}
		})
	}
}

func TestSolver_InputErrors(t *testing.T) {
	tests := []struct {
		name string
		b    Buffer
	}{
		{"empty interval", Buffer{Lower: 3, Upper: 3, Size: 1}},
		{"reversed interval", Buffer{Lower: 4, Upper: 3, Size: 1}},
		{"negative size", Buffer{Lower: 0, Upper: 3, Size: -1}},
		{"negative alignment", Buffer{Lower: 0, Upper: 3, Size: 1, Align: -4}},
		{"misaligned fixed", Buffer{Lower: 0, Upper: 3, Size: 1, Align: 4, Fixed: fixedAt(2)}},
		{"negative fixed", Buffer{Lower: 0, Upper: 3, Size: 1, Fixed: fixedAt(-2)}},
		{"huge size", Buffer{Lower: 0, Upper: 3, Size: 1 << 60}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Solve(Problem{Capacity: 100, Buffers: []Buffer{tc.b}}, Options{})
			var in *InputError
			if !errors.As(err, &in) {
				t.Fatalf("want *InputError, got %v", err)
			}
		})
	}
	if _, err := Solve(Problem{Capacity: -1}, Options{}); err == nil {
		t.Fatal("negative capacity accepted")
	}
}

// bruteForceFeasible decides by exhaustive search whether the buffers fit:
// every buffer tries every offset in [0, capacity-size] (aligned),
// in index order. Only for tiny instances.
func bruteForceFeasible(p Problem) bool {
	n := len(p.Buffers)
	offs := make([]int64, n)
	var place func(i int) bool
	place = func(i int) bool {
		if i == n {
			return true
		}
		b := p.Buffers[i]
		if b.Fixed != nil {
			offs[i] = *b.Fixed
			return fits(p, offs, i) && place(i+1)
		}
		for o := int64(0); o+b.Size <= p.Capacity; o += alignOf(b) {
			offs[i] = o
			if fits(p, offs, i) && place(i+1) {
				return true
			}
		}
		return b.Size == 0 && p.Capacity < 0
	}
	return place(0)
}

func fits(p Problem, offs []int64, i int) bool {
	b := p.Buffers[i]
	if offs[i]+b.Size > p.Capacity && b.Size > 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := p.Buffers[j]
		if b.Size == 0 || c.Size == 0 || b.Upper <= c.Lower || c.Upper <= b.Lower {
			continue
		}
		if offs[i] < offs[j]+c.Size && offs[j] < offs[i]+b.Size {
			return false
		}
	}
	return true
}

func randomProblem(rng *rand.Rand, n int, maxTime, maxSize int64, withAlign, withFixed bool) Problem {
	var p Problem
	for i := 0; i < n; i++ {
		lo := rng.Int64N(maxTime)
		b := Buffer{ID: int64(i), Lower: lo, Upper: lo + 1 + rng.Int64N(maxTime/2+1), Size: 1 + rng.Int64N(maxSize)}
		if withAlign && rng.IntN(3) == 0 {
			b.Align = 2
		}
		if withFixed && rng.IntN(6) == 0 {
			f := alignUp(rng.Int64N(maxSize), alignOf(b))
			b.Fixed = &f
		}
		p.Buffers = append(p.Buffers, b)
	}
	return p
}

// TestSolver_BruteForce cross-checks the solver against exhaustive search
// on random tiny instances at capacities around max-live, with and without
// the exact search's heuristics, alignment and fixed buffers.
func TestSolver_BruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	trials := 400
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		p := randomProblem(rng, 2+rng.IntN(5), 8, 5, trial%3 == 1, trial%4 == 3)
		live := MaxLive(p.Buffers)
		for _, capacity := range []int64{live - 1, live, live + 1, live + 2} {
			if capacity < 0 {
				continue
			}
			p.Capacity = capacity
			want := bruteForceFeasible(p)
			sol, err := Solve(p, Options{Timeout: 10 * time.Second})
			if sol == nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if sol.Status == StatusUnknown {
				t.Fatalf("trial %d: gave up on a tiny instance: %v", trial, err)
			}
			if got := sol.Status == StatusFit; got != want {
				t.Fatalf("trial %d capacity %d: solver says fit=%v, brute force %v; buffers %+v", trial, capacity, got, want, p.Buffers)
			}
			if want {
				if msg := independentCheck(p, sol.Offsets); msg != "" {
					t.Fatalf("trial %d: %s", trial, msg)
				}
			}
		}
	}
}

// TestSolver_ExactAgainstBruteForce runs the exact search alone (no
// heuristic shortcut) on tight random instances.
func TestSolver_ExactAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := 0; trial < 300; trial++ {
		p := randomProblem(rng, 3+rng.IntN(4), 6, 4, false, false)
		if trial%2 == 1 {
			// Identical buffers exercise the twin symmetry breaking.
			p.Buffers = append(p.Buffers, p.Buffers[rng.IntN(len(p.Buffers))])
		}
		p.Capacity = MaxLive(p.Buffers) + rng.Int64N(2)
		want := bruteForceFeasible(p)
		m := buildModel1D(p.Buffers, allIndices(len(p.Buffers)), nil, p.Capacity)
		configs := append(append([]searchConfig(nil), plainConfigs...), restartConfigs...)
		for k, cfg := range configs {
			// A restart slot keeps one failure memo across its jittered
			// runs (as runPortfolio does): a state proven dead under one
			// order must be dead under every other, so sharing the memo
			// must never turn a feasible instance infeasible.
			runs, memo := 1, newFailMemo(12, 12)
			if k >= len(plainConfigs) {
				runs = 3
			}
			for run := 0; run < runs; run++ {
				rank := computeRank(m, cfg.order)
				if k >= len(plainConfigs) {
					rank = jitterRank(rank, uint64(trial*runs+run+1), 0.5)
				}
				e := newPointSearch(m, rank, cfg.mode, memo)
				out := e.run()
				if (out == outcomeFound) != want || out == outcomeAborted {
					t.Fatalf("trial %d config %+v run %d: outcome %d, brute force %v; %+v cap %d", trial, cfg, run, out, want, p.Buffers, p.Capacity)
				}
				if want {
					if msg := independentCheck(p, e.solution); msg != "" {
						t.Fatalf("trial %d config %+v run %d: %s", trial, cfg, run, msg)
					}
				}
			}
		}
	}
}

func TestSolver_Minimize(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 60; trial++ {
		p := randomProblem(rng, 3+rng.IntN(4), 8, 5, false, false)
		sol, err := Solve(p, Options{Minimize: true, Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		// The optimum is the smallest capacity brute force can fit.
		opt := MaxLive(p.Buffers)
		for ; ; opt++ {
			p.Capacity = opt
			if bruteForceFeasible(p) {
				break
			}
		}
		if sol.Peak != opt {
			t.Fatalf("trial %d: minimized peak %d, optimum %d", trial, sol.Peak, opt)
		}
		p.Capacity = sol.Peak
		if msg := independentCheck(p, sol.Offsets); msg != "" {
			t.Fatal(msg)
		}
	}
}

func TestSolver_MinimizeWithFixed(t *testing.T) {
	p := Problem{Buffers: []Buffer{
		{Lower: 0, Upper: 4, Size: 4, Fixed: fixedAt(8)},
		{Lower: 0, Upper: 2, Size: 8},
		{Lower: 2, Upper: 4, Size: 4},
	}}
	sol, err := Solve(p, Options{Minimize: true})
	if err != nil {
		t.Fatal(err)
	}
	p.Capacity = sol.Peak
	if sol.Peak != 12 || independentCheck(p, sol.Offsets) != "" {
		t.Fatalf("peak %d offsets %v", sol.Peak, sol.Offsets)
	}
}

func TestSolver_Deterministic(t *testing.T) {
	table := loadMiniMalloc(t, "K")
	p := Problem{Buffers: table.Buffers, Capacity: miniMallocCapacity}
	first, err := Solve(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for run := 0; run < 3; run++ {
		again, err := Solve(p, Options{Workers: 1 + run%2})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(first.Offsets, again.Offsets) {
			t.Fatalf("run %d: different placement", run)
		}
	}
}

// TestSolver_RowOrderIndependent: the same buffers listed in another order
// get the same search (the same node count) and the same placement up to
// the order of the rows (identical buffers may trade places).
func TestSolver_RowOrderIndependent(t *testing.T) {
	type placed struct{ lower, upper, size, offset int64 }
	placements := func(bufs []Buffer, offsets []int64) []placed {
		out := make([]placed, len(bufs))
		for i, b := range bufs {
			out[i] = placed{b.Lower, b.Upper, b.Size, offsets[i]}
		}
		slices.SortFunc(out, func(a, b placed) int {
			for _, c := range []int{compareInt64(a.lower, b.lower), compareInt64(a.upper, b.upper), compareInt64(a.size, b.size)} {
				if c != 0 {
					return c
				}
			}
			return compareInt64(a.offset, b.offset)
		})
		return out
	}
	for _, name := range []string{"A", "B", "K"} {
		table := loadMiniMalloc(t, name)
		p := Problem{Buffers: table.Buffers, Capacity: miniMallocCapacity}
		want, err := Solve(p, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			bufs, _ := perturb(p.Buffers, "shuffle", int(seed))
			q := Problem{Buffers: bufs, Capacity: p.Capacity}
			got, err := Solve(q, Options{})
			if err != nil {
				t.Fatalf("%s shuffle %d: %v", name, seed, err)
			}
			if got.Nodes != want.Nodes {
				t.Errorf("%s shuffle %d: %d nodes, in file order %d", name, seed, got.Nodes, want.Nodes)
			}
			if !slices.Equal(placements(q.Buffers, got.Offsets), placements(p.Buffers, want.Offsets)) {
				t.Errorf("%s shuffle %d: a different placement", name, seed)
			}
		}
	}
}

func TestSolver_GivesUp(t *testing.T) {
	table := loadMiniMalloc(t, "I")
	p := Problem{Buffers: table.Buffers, Capacity: miniMallocCapacity}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sol, err := Solve(p, Options{Context: ctx})
	if !errors.Is(err, ErrGaveUp) || sol.Status != StatusUnknown {
		t.Fatalf("cancelled context: status %v err %v", sol.Status, err)
	}
	if msg := independentCheck(Problem{Buffers: p.Buffers, Capacity: maxCoordinate}, sol.Offsets); msg != "" {
		t.Fatalf("best-effort placement invalid: %s", msg)
	}
	sol, err = Solve(p, Options{NodeLimit: 1000})
	if !errors.Is(err, ErrGaveUp) || sol.Status != StatusUnknown || sol.Peak <= miniMallocCapacity {
		t.Fatalf("node limit: status %v peak %d err %v", sol.Status, sol.Peak, err)
	}
}

func TestSolver_Heuristics(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		p := randomProblem(rng, 1+rng.IntN(30), 40, 20, trial%2 == 0, trial%3 == 0)
		p.Capacity = maxCoordinate
		if sol, _ := Solve(Problem{Buffers: p.Buffers, Capacity: maxCoordinate}, Options{}); sol.Status == StatusInfeasible {
			continue // fixed buffers collide
		}
		for name, f := range map[string]func(Problem) ([]int64, int64, error){"linear-scan": LinearScan, "best-fit": BestFit} {
			offs, peak, err := f(p)
			if err != nil {
				t.Fatal(err)
			}
			if msg := independentCheck(p, offs); msg != "" {
				t.Fatalf("%s trial %d: %s", name, trial, msg)
			}
			if peak < MaxLive(p.Buffers) || peak != Peak(p.Buffers, offs) {
				t.Fatalf("%s: peak %d", name, peak)
			}
		}
	}
}

func TestVerify(t *testing.T) {
	p := Problem{Capacity: 10, Buffers: []Buffer{{Lower: 0, Upper: 2, Size: 4}, {Lower: 1, Upper: 3, Size: 4}}}
	if err := Verify(p, []int64{0, 4}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]int64{{0, 3}, {0, 7}, {-1, 4}, {0}} {
		if Verify(p, bad) == nil {
			t.Fatalf("Verify accepted %v", bad)
		}
	}
}

// TestResumableSearch_SlicesEqualOneRun checks the promise runPortfolio
// relies on: a search granted its nodes in slices explores the same tree as
// one run with the sum of the budgets, so it ends with the same outcome,
// the same node count and the same placement.
func TestResumableSearch_SlicesEqualOneRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	for trial := 0; trial < 100; trial++ {
		p := randomProblem(rng, 6+rng.IntN(6), 10, 5, false, false)
		p.Capacity = MaxLive(p.Buffers) + rng.Int64N(2)
		m := buildModel1D(p.Buffers, allIndices(len(p.Buffers)), nil, p.Capacity)
		cfg := plainConfigs[trial%len(plainConfigs)]
		rank := computeRank(m, cfg.order)

		whole := newPointSearch(m, rank, cfg.mode, newFailMemo(12, 12))
		want := whole.run()

		r := newResumableSearch(newPointSearch(m, rank, cfg.mode, newFailMemo(12, 12)))
		var stop atomic.Bool
		got, nodes := outcomeAborted, int64(0)
		for slice := 0; slice < 10000 && got == outcomeAborted; slice++ {
			res, timedOut := r.resume(int64(1+slice%3), time.Time{}, nil, &stop)
			if timedOut {
				t.Fatalf("trial %d: timed out without a deadline", trial)
			}
			got, nodes = res.outcome, nodes+res.nodes
		}
		r.close()
		if got != want || nodes != whole.nodes {
			t.Fatalf("trial %d: sliced search ended %d after %d nodes, one run %d after %d", trial, got, nodes, want, whole.nodes)
		}
		if got == outcomeFound && !slices.Equal(r.e.solution, whole.solution) {
			t.Fatalf("trial %d: sliced placement %v, one run %v", trial, r.e.solution, whole.solution)
		}
	}
}
