package sched_test

import (
	"fmt"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// TestSchedule_MacroMatmulHandSchedule builds, by hand, a schedule of the
// default macro_matmul (four result tiles, each four accumulating
// matmuls of one rhs load of 23.4 us and four lhsT loads of 6.3 us, a
// copy and four stores) shorter than the scheduler's: the scheduler
// gives every queue one rhs load, four lhsT loads and a store, so every
// queue's loads end together and the four tiles' last matmuls then queue
// on Tensor. The hand schedule loads tile 1.1 first, puts two rhs loads
// on queue 0 and eight lhsT loads on queue 1, and lets the last round of
// loads feed only the last matmuls of the other three tiles. The test
// checks that the lower bound stays below it (the bound is valid) and
// reports both: docs/schedule.md quotes them as the scheduler's
// shortfall on this kernel.
func TestSchedule_MacroMatmulHandSchedule(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	m, err := kernels.Build("macro_matmul")
	if err != nil {
		t.Fatal(err)
	}
	var before []string
	for _, p := range pipeline.Table.Passes {
		if p.Name == "time_aware_scheduler" {
			break
		}
		if p.Default && p.Gate == "" {
			before = append(before, p.Name)
		}
	}
	if _, err := pipeline.Table.Run(m, pass.Config{Passes: before}); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	L := func(g string, s, x int) string { return fmt.Sprintf("load_lhsT.%s.%d.t%d", g, s, x) }
	R := func(g string, s int) string { return fmt.Sprintf("load_rhs.%s.%d", g, s) }
	const a, b, c, d = "0.0", "0.1", "1.0", "1.1"
	queues := [][]string{
		{R(d, 0), R(c, 2)},
		{L(d, 0, 0), L(d, 0, 1), L(d, 0, 2), L(d, 0, 3), L(a, 0, 0), L(a, 1, 0), L(a, 2, 0), L(c, 3, 3)},
		{L(d, 1, 0), L(d, 1, 1), L(d, 1, 2), L(d, 1, 3), R(a, 3)},
		{L(d, 2, 0), L(d, 2, 1), L(d, 2, 2), L(d, 2, 3), R(b, 3)},
		{L(d, 3, 0), L(d, 3, 1), L(d, 3, 2), L(d, 3, 3), R(c, 3)},
	}
	// Queues 5-15: an rhs load, one lhsT piece of each of the first three
	// matmuls of tiles 0.0, 0.1, 1.0, and one piece of their last.
	rhs := []string{R(a, 0), R(a, 1), R(a, 2), R(b, 0), R(b, 1), R(b, 2), R(c, 0), R(c, 1), R(d, 1), R(d, 2), R(d, 3)}
	var stage [4][]string
	for s := range 4 {
		for _, g := range []string{a, b, c} {
			for x := range 4 {
				if s < 3 && g == a && x == 0 || s == 3 && g == c && x == 3 {
					continue // on queue 1
				}
				stage[s] = append(stage[s], L(g, s, x))
			}
		}
	}
	for q := range 11 {
		queues = append(queues, []string{rhs[q], stage[0][q], stage[1][q], stage[2][q], stage[3][q]})
	}
	// One store per queue, last.
	for q, g := range []string{a, b, c, d} {
		for x := range 4 {
			queues[4*q+x] = append(queues[4*q+x], fmt.Sprintf("store_result.%s.t%d", g, x))
		}
	}
	hand, err := sched.HandMakespan(f, model, queues)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sched.Schedule(f, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	if hand < rep.LowerBound {
		t.Fatalf("the hand schedule's makespan %d ps is below the lower bound %d ps (%s): the bound is invalid", hand, rep.LowerBound, rep.Binding)
	}
	t.Logf("macro_matmul: scheduler %.3f us, hand schedule %.3f us (%.1f%% shorter), lower bound %.3f us",
		float64(rep.Makespan)/1e6, float64(hand)/1e6, 100*float64(rep.Makespan-hand)/float64(rep.Makespan), float64(rep.LowerBound)/1e6)
}
