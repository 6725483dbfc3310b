package pack

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// check2D validates a 2-D placement independently of Verify2D: the quadrant
// rule spelled out, the bank rule, capacity, and a pairwise overlap test in
// partitions x bytes for tensors live at the same time.
func check2D(t *testing.T, p Problem2D, pl []Placement2D) {
	t.Helper()
	if len(pl) != len(p.Tensors) {
		t.Fatalf("%d placements for %d tensors", len(pl), len(p.Tensors))
	}
	for i, ti := range p.Tensors {
		s := pl[i].StartPartition
		var ok bool
		switch {
		case ti.Partitions > 64:
			ok = s == 0
		case ti.Partitions > 32:
			ok = s == 0 || s == 64
		default:
			ok = s == 0 || s == 32 || s == 64 || s == 96
		}
		if !ok {
			t.Fatalf("tensor %d (%d partitions) starts at partition %d: quadrant rule broken", i, ti.Partitions, s)
		}
		if ti.Size > 0 && pl[i].Offset+ti.Size > p.Capacity {
			t.Fatalf("tensor %d ends at %d beyond %d", i, pl[i].Offset+ti.Size, p.Capacity)
		}
		if p.BankSize > 0 && ti.Size > p.BankSize && pl[i].Offset%p.BankSize != 0 {
			t.Fatalf("tensor %d [%d,%d) is larger than a PSUM bank of %d and does not start one", i, pl[i].Offset, pl[i].Offset+ti.Size, p.BankSize)
		}
		if p.BankSize > 0 && ti.Size > 0 && ti.Size <= p.BankSize && pl[i].Offset/p.BankSize != (pl[i].Offset+ti.Size-1)/p.BankSize {
			t.Fatalf("tensor %d [%d,%d) spans a PSUM bank of %d", i, pl[i].Offset, pl[i].Offset+ti.Size, p.BankSize)
		}
		if ti.Align > 1 && pl[i].Offset%ti.Align != 0 {
			t.Fatalf("tensor %d misaligned", i)
		}
		for j := 0; j < i; j++ {
			tj := p.Tensors[j]
			if ti.Size == 0 || tj.Size == 0 || ti.Upper <= tj.Lower || tj.Upper <= ti.Lower {
				continue
			}
			pi0, pi1 := pl[i].StartPartition, pl[i].StartPartition+ti.Partitions
			pj0, pj1 := pl[j].StartPartition, pl[j].StartPartition+tj.Partitions
			if pi0 >= pj1 || pj0 >= pi1 {
				continue
			}
			if pl[i].Offset < pl[j].Offset+tj.Size && pl[j].Offset < pl[i].Offset+ti.Size {
				t.Fatalf("tensors %d and %d overlap in partitions and bytes", i, j)
			}
		}
	}
}

func randomTensors(rng *rand.Rand, n int, maxTime, maxSize int64) []Tensor {
	parts := []int{1, 16, 32, 33, 48, 64, 65, 100, 128}
	out := make([]Tensor, n)
	for i := range out {
		lo := rng.Int64N(maxTime)
		out[i] = Tensor{ID: int64(i), Lower: lo, Upper: lo + 1 + rng.Int64N(maxTime/2+1), Partitions: parts[rng.IntN(len(parts))], Size: 1 + rng.Int64N(maxSize)}
		if rng.IntN(4) == 0 {
			out[i].Align = 4
		}
	}
	return out
}

func TestSolve2D_RandomSBUF(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	trials := 300
	if testing.Short() {
		trials = 80
	}
	fitted := 0
	for trial := 0; trial < trials; trial++ {
		p := Problem2D{Tensors: randomTensors(rng, 2+rng.IntN(25), 30, 40)}
		p.Capacity = lowerBound2D(p) + rng.Int64N(40)
		sol, err := Solve2D(p, Options{Timeout: 5 * time.Second, NodeLimit: 20000})
		if sol == nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if sol.Status == StatusFit {
			fitted++
			check2D(t, p, sol.Placements)
			if err := Verify2D(p, sol.Placements); err != nil {
				t.Fatalf("trial %d: Verify2D disagrees: %v", trial, err)
			}
		} else if err == nil {
			t.Fatalf("trial %d: status %v without error", trial, sol.Status)
		}
	}
	if fitted == 0 {
		t.Fatal("no random instance fitted")
	}
}

func TestSolve2D_SideBySide(t *testing.T) {
	// Four 32-partition tensors live together fit in one quadrant row each;
	// two 64-partition tensors fill the rest only side by side.
	p := Problem2D{Capacity: 100, Tensors: []Tensor{
		{Lower: 0, Upper: 10, Partitions: 32, Size: 100},
		{Lower: 0, Upper: 10, Partitions: 32, Size: 100},
		{Lower: 0, Upper: 10, Partitions: 64, Size: 100},
		{Lower: 10, Upper: 20, Partitions: 128, Size: 100},
	}}
	sol, err := Solve2D(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check2D(t, p, sol.Placements)
	p.Tensors = append(p.Tensors, Tensor{Lower: 5, Upper: 6, Partitions: 1, Size: 1})
	if _, err := Solve2D(p, Options{}); !errors.Is(err, ErrInfeasible) {
		t.Fatalf("overfull SBUF: %v", err)
	}
}

func TestSolvePSUM_BankRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(20)
		tens := make([]Tensor, n)
		for i := range tens {
			lo := rng.Int64N(20)
			tens[i] = Tensor{Lower: lo, Upper: lo + 1 + rng.Int64N(10), Partitions: []int{8, 32, 64, 128}[rng.IntN(4)], Size: 1 + rng.Int64N(2048)}
		}
		addrs, sol, err := SolvePSUM(tens, 8, 2048, Options{Timeout: 5 * time.Second, NodeLimit: 100000})
		if sol == nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if sol.Status != StatusFit {
			continue
		}
		check2D(t, Problem2D{Tensors: tens, Capacity: 8 * 2048, BankSize: 2048}, sol.Placements)
		for i, a := range addrs {
			if a.Bank < 0 || a.Bank >= 8 || a.ByteInBank+tens[i].Size > 2048 {
				t.Fatalf("trial %d tensor %d: bad PSUM address %+v size %d", trial, i, a, tens[i].Size)
			}
		}
	}
	// A tile larger than a bank starts a bank and covers whole banks: with
	// a 100-byte tile live beside it, the two never share a bank.
	big := []Tensor{{Lower: 0, Upper: 2, Partitions: 128, Size: 100}, {Lower: 0, Upper: 2, Partitions: 128, Size: 4096}}
	addrs, sol, err := SolvePSUM(big, 8, 2048, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check2D(t, Problem2D{Tensors: big, Capacity: 8 * 2048, BankSize: 2048}, sol.Placements)
	if a, b := addrs[1], addrs[0]; a.ByteInBank != 0 || b.Bank == a.Bank || b.Bank == a.Bank+1 {
		t.Fatalf("multi-bank tile at %+v, small tile at %+v: want the big one at a bank start, the small one in another bank", a, b)
	}
	if _, _, err := SolvePSUM([]Tensor{{Lower: 0, Upper: 1, Partitions: 1, Size: 4096, Fixed: &Placement2D{Offset: 1024}}}, 8, 2048, Options{}); err == nil {
		t.Fatal("a multi-bank tile fixed inside a bank was accepted")
	}
}

func TestBankLegal(t *testing.T) {
	tests := []struct {
		off, size, bank int64
		want            bool
	}{
		{0, 2048, 2048, true}, {1, 2048, 2048, false}, {1024, 1024, 2048, true}, {1025, 1024, 2048, false},
		{2048, 4096, 2048, true}, {1024, 4096, 2048, false}, {5, 0, 2048, true}, {7, 100, 0, true},
	}
	for _, tc := range tests {
		if got := bankLegal(tc.off, tc.size, tc.bank); got != tc.want {
			t.Errorf("bankLegal(%d, %d, %d) = %v, want %v", tc.off, tc.size, tc.bank, got, tc.want)
		}
	}
}

func TestSolve2D_Fixed(t *testing.T) {
	p := Problem2D{Capacity: 64, Tensors: []Tensor{
		{Lower: 0, Upper: 4, Partitions: 32, Size: 32, Fixed: &Placement2D{StartPartition: 32, Offset: 0}},
		{Lower: 0, Upper: 4, Partitions: 128, Size: 32},
		{Lower: 0, Upper: 4, Partitions: 16, Size: 32},
	}}
	sol, err := Solve2D(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check2D(t, p, sol.Placements)
	bad := p
	bad.Tensors = append([]Tensor(nil), p.Tensors...)
	bad.Tensors[0].Fixed = &Placement2D{StartPartition: 16, Offset: 0}
	var in *InputError
	if _, err := Solve2D(bad, Options{}); !errors.As(err, &in) {
		t.Fatalf("fixed start 16 accepted: %v", err)
	}
}

// TestSolve2D_LargeFallback: a component too large for the model gets the
// conservative placement, still valid.
func TestSolve2D_LargeFallback(t *testing.T) {
	for _, bank := range []int64{0, 2048} {
		var tens []Tensor
		for i := 0; i < 3000; i++ {
			tens = append(tens, Tensor{Lower: int64(i % 7), Upper: 10000 + int64(i), Partitions: 1 + i%128, Size: 16 + int64(i%5)*16})
		}
		p := Problem2D{Tensors: tens, Capacity: 1 << 40, BankSize: bank}
		if bank > 0 {
			p.Capacity = bank * 4000
		}
		sol, err := Solve2D(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Verify2D(p, sol.Placements); err != nil {
			t.Fatal(err)
		}
	}
}

// bruteForce2D decides by exhaustive search whether the tensors fit: every
// tensor tries every legal start partition and every aligned offset (that
// keeps a PSUM tile inside one bank), in index order, checked pairwise in
// partitions x bytes. Only for tiny instances; shares no code with the
// solver.
func bruteForce2D(p Problem2D) bool {
	n := len(p.Tensors)
	pl := make([]Placement2D, n)
	clash := func(i int) bool {
		ti := p.Tensors[i]
		for j := 0; j < i; j++ {
			tj := p.Tensors[j]
			if ti.Size == 0 || tj.Size == 0 || ti.Upper <= tj.Lower || tj.Upper <= ti.Lower {
				continue
			}
			if pl[i].StartPartition >= pl[j].StartPartition+tj.Partitions || pl[j].StartPartition >= pl[i].StartPartition+ti.Partitions {
				continue
			}
			if pl[i].Offset < pl[j].Offset+tj.Size && pl[j].Offset < pl[i].Offset+ti.Size {
				return true
			}
		}
		return false
	}
	var place func(i int) bool
	place = func(i int) bool {
		if i == n {
			return true
		}
		t := p.Tensors[i]
		var starts []int
		switch {
		case t.Partitions > 64:
			starts = []int{0}
		case t.Partitions > 32:
			starts = []int{0, 64}
		default:
			starts = []int{0, 32, 64, 96}
		}
		step := max(t.Align, 1)
		for _, s := range starts {
			for o := int64(0); o+t.Size <= p.Capacity; o += step {
				if p.BankSize > 0 && o%p.BankSize+t.Size > p.BankSize {
					continue
				}
				pl[i] = Placement2D{StartPartition: s, Offset: o}
				if !clash(i) && place(i+1) {
					return true
				}
			}
		}
		return false
	}
	return place(0)
}

// TestSolve2D_AgainstBruteForce cross-checks Solve2D's fit / infeasible
// verdicts on tiny random SBUF and PSUM instances against exhaustive
// search, at capacities around the lower bound: a claimed infeasibility
// must be real, and every fit must obey the quadrant and bank rules.
func TestSolve2D_AgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	parts := []int{8, 32, 40, 64, 65, 128}
	var fit, infeasible int
	for trial := 0; trial < 400; trial++ {
		n := 2 + rng.IntN(4)
		tens := make([]Tensor, n)
		for i := range tens {
			lo := rng.Int64N(6)
			tens[i] = Tensor{ID: int64(i), Lower: lo, Upper: lo + 1 + rng.Int64N(4), Partitions: parts[rng.IntN(len(parts))], Size: 1 + rng.Int64N(3)}
			if rng.IntN(4) == 0 {
				tens[i].Align = 2
			}
		}
		p := Problem2D{Tensors: tens}
		if trial%2 == 1 {
			p.BankSize = 3 // PSUM: banks of 3 bytes; no tile is larger
			p.Capacity = p.BankSize * (1 + rng.Int64N(3))
		} else {
			p.Capacity = max(lowerBound2D(p)+rng.Int64N(3)-1, 0)
		}
		want := bruteForce2D(p)
		sol, err := Solve2D(p, Options{Timeout: 10 * time.Second})
		if sol == nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if sol.Status == StatusUnknown {
			t.Fatalf("trial %d: gave up on a tiny instance: %v", trial, err)
		}
		if got := sol.Status == StatusFit; got != want {
			t.Fatalf("trial %d: Solve2D says fit=%v (%v), brute force %v; capacity %d bank %d tensors %+v", trial, got, err, want, p.Capacity, p.BankSize, p.Tensors)
		}
		if want {
			fit++
			check2D(t, p, sol.Placements)
		} else if !errors.Is(err, ErrInfeasible) {
			t.Fatalf("trial %d: infeasible without ErrInfeasible: %v", trial, err)
		} else {
			infeasible++
		}
	}
	// Both verdicts must be exercised, or the cross-check proves little.
	t.Logf("%d fit, %d infeasible", fit, infeasible)
	if fit < 50 || infeasible < 50 {
		t.Errorf("%d fitting and %d infeasible instances: the generator no longer exercises both", fit, infeasible)
	}
}

// TestSolve2D_RowOrderIndependent: tensors listed in another order get the
// same exact search (the same node count) and the same placement (up to
// identical tensors trading places).
func TestSolve2D_RowOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	searched := 0
	for trial := 0; trial < 30; trial++ {
		// Few distinct times and sizes: many ties in the search's orders.
		p := Problem2D{Tensors: randomTensors(rng, 10+rng.IntN(15), 8, 6)}
		p.Capacity = lowerBound2D(p) + rng.Int64N(3)
		opts := Options{NodeLimit: 5000}
		want, _ := Solve2D(p, opts)
		if want == nil || want.Nodes == 0 {
			continue
		}
		searched++
		q := Problem2D{Tensors: slices.Clone(p.Tensors), Capacity: p.Capacity}
		rng.Shuffle(len(q.Tensors), func(i, j int) { q.Tensors[i], q.Tensors[j] = q.Tensors[j], q.Tensors[i] })
		got, _ := Solve2D(q, opts)
		if got.Nodes != want.Nodes || got.Status != want.Status {
			t.Fatalf("trial %d: shuffled: %v after %d nodes, in order: %v after %d nodes", trial, got.Status, got.Nodes, want.Status, want.Nodes)
		}
		if got.Status == StatusFit && !slices.Equal(placed2D(q, got.Placements), placed2D(p, want.Placements)) {
			t.Fatalf("trial %d: shuffled: a different placement", trial)
		}
	}
	if searched == 0 {
		t.Fatal("no instance reached the exact search")
	}
	t.Logf("%d instances reached the exact search", searched)
}

// placed2D lists (tensor, placement) pairs in a row-order-free order.
func placed2D(p Problem2D, pl []Placement2D) []string {
	out := make([]string, len(p.Tensors))
	for i, t := range p.Tensors {
		out[i] = fmt.Sprintf("%d %d %d %d %d: %d %d", t.Lower, t.Upper, t.Size, t.Partitions, t.Align, pl[i].StartPartition, pl[i].Offset)
	}
	slices.Sort(out)
	return out
}

// TestProblem2D_Starts: a start mask pins a tensor's start partition (a
// matmul operand at its tile_position) in every solver: two 64-partition
// tensors live together that fit only side by side, the second pinned to
// partition 0, so the first must take 64. The sweeps and Solve2D (greedy,
// and the conservative fallback beyond the model) honour it, Verify2D
// rejects a placement that does not, and a mask that allows no start the
// quadrant rule allows is malformed input.
func TestProblem2D_Starts(t *testing.T) {
	p := Problem2D{Capacity: 100, Tensors: []Tensor{
		{Lower: 0, Upper: 10, Partitions: 64, Size: 60},
		{Lower: 1, Upper: 10, Partitions: 64, Size: 60},
	}}
	p.Starts = []uint8{0, StartBit(0)}
	check := func(name string, pl []Placement2D) {
		t.Helper()
		if err := Verify2D(p, pl); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if pl[1].StartPartition != 0 || pl[0].StartPartition != 64 {
			t.Errorf("%s: starts %d and %d, want 64 and 0 (the second pinned to 0)", name, pl[0].StartPartition, pl[1].StartPartition)
		}
	}
	for _, policy := range []ReusePolicy{ReuseOldestFreed, ReuseBestFit, ReuseSpread} {
		res, err := Sweep2D(p, policy)
		if err != nil {
			t.Fatal(err)
		}
		// The sweep places the first tensor before it sees the pin: its
		// placement may exceed the capacity, but it never breaks the pin.
		if res.Placements[1].StartPartition != 0 {
			t.Errorf("Sweep2D(%s): pinned tensor at partition %d", policy, res.Placements[1].StartPartition)
		}
	}
	sol, err := Solve2D(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	check("Solve2D", sol.Placements)
	// Unpinned, the unconstrained answer puts the second at 64: the pin
	// is what moved it.
	if err := Verify2D(p, []Placement2D{{0, 0}, {64, 0}}); err == nil {
		t.Error("Verify2D accepts the pinned tensor at partition 64")
	}
	// The fallback (too large for the model) keeps pins.
	var big Problem2D
	big.Capacity = 1 << 40
	for i := 0; i < 3000; i++ {
		big.Tensors = append(big.Tensors, Tensor{Lower: int64(i % 7), Upper: 10000 + int64(i), Partitions: 1 + i%64, Size: 16})
		big.Starts = append(big.Starts, StartBit(64*((i/7)%2)))
	}
	sol, err = Solve2D(big, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Method != "best-fit" {
		t.Errorf("method %q: want the fallback, best-fit", sol.Method)
	}
	if err := Verify2D(big, sol.Placements); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []Problem2D{
		{Capacity: 100, Tensors: []Tensor{{Lower: 0, Upper: 1, Partitions: 128, Size: 1}}, Starts: []uint8{StartBit(64)}},
		{Capacity: 100, Tensors: []Tensor{{Lower: 0, Upper: 1, Partitions: 1, Size: 1}}, Starts: []uint8{0, 0}},
		{Capacity: 100, Tensors: []Tensor{{Lower: 0, Upper: 1, Partitions: 32, Size: 1, Fixed: &Placement2D{StartPartition: 32}}}, Starts: []uint8{StartBit(0)}},
	} {
		var ie *InputError
		if _, err := Solve2D(bad, Options{}); !errors.As(err, &ie) {
			t.Errorf("Solve2D(%+v): %v, want an input error", bad, err)
		}
	}
}
