package sched_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestScheduleLoops_Programs: every loop program gets a periodic schedule
// that the verifier's StageScheduled rules accept on its instances; the
// makespan is at or above its lower bound, each loop's initiation
// interval at or above its per-iteration bound and its span at or above
// its bound; the scheduled order (each body block by start) computes the
// outputs of the incoming order (translation validation).
func TestScheduleLoops_Programs(t *testing.T) {
	for _, lp := range schedtest.LoopPrograms() {
		t.Run(lp.Name, func(t *testing.T) {
			m, _, err := lp.Build()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("time_aware_scheduler"), Options: lp.Options}); err != nil {
				t.Fatal(err)
			}
			model, err := arch.ForModule(m)
			if err != nil {
				t.Fatal(err)
			}
			in := interp.RandomInputs(m, 1)
			before, err := interp.Run(m, in, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			rep, loops, err := sched.ScheduleLoops(f, model, sched.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := verify.Module(m, verify.Options{Arch: model, Stage: verify.StageScheduled}); err != nil {
				t.Fatal(err)
			}
			after, err := interp.Run(m, in, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for name, w := range before {
				if g := after[name]; g == nil || string(g.Data) != string(w.Data) {
					t.Fatalf("the scheduled order changes output %s", name)
				}
			}
			if rep.Makespan < rep.LowerBound || rep.LowerBound <= 0 {
				t.Errorf("makespan %d ps, lower bound %d ps", rep.Makespan, rep.LowerBound)
			}
			if loops.Executed > rep.Makespan || loops.Executed < rep.LowerBound {
				t.Errorf("the streams run the schedule's order in %d ps: want between the bound %d and the makespan %d", loops.Executed, rep.LowerBound, rep.Makespan)
			}
			for _, l := range loops.Loops {
				if l.Trip >= 2 && (l.II < l.IIBound || l.IIBound <= 0) {
					t.Errorf("loop %s: interval %d ps below its bound %d ps", l.Name, l.II, l.IIBound)
				}
				if l.Span < l.SpanBound {
					t.Errorf("loop %s: span %d ps below its bound %d ps", l.Name, l.Span, l.SpanBound)
				}
			}
			text := rep.String() + loops.String()
			if !strings.Contains(text, "per iteration") || !strings.Contains(text, "iterations") {
				t.Errorf("report lacks the loops' lines:\n%s", text)
			}
			t.Logf("makespan %.3f us, bound %.3f us\n%s", float64(rep.Makespan)/1e6, float64(rep.LowerBound)/1e6, loops)
		})
	}
}

// TestScheduleLoops_TensorAdd pins the level-0 tensor_add's schedule: one
// tile per iteration in one location per tile, so the next iteration's
// loads wait for this one's add (the recurrence load + add = 50.624 us
// per iteration, above the 46.190 us a DMA holds its queue), four
// iterations in 3 x 50.624 + 96.814 us: the bound (the instances'
// critical path).
func TestScheduleLoops_TensorAdd(t *testing.T) {
	lp := schedtest.LoopPrograms()[0]
	m, _, err := lp.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("time_aware_scheduler"), Options: lp.Options}); err != nil {
		t.Fatal(err)
	}
	model, _ := arch.ForModule(m)
	rep, loops, err := sched.ScheduleLoops(m.Main(), model, sched.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(loops.Loops) != 1 {
		t.Fatalf("%d loops", len(loops.Loops))
	}
	l := loops.Loops[0]
	// Under the DMA model (a DMA's transfer on the DMA engines of its
	// partitions, held in body order) the interval is above its bound;
	// the span is 3 intervals and one iteration, the function's makespan.
	if l.II < l.IIBound || l.Span != 3*l.II+l.Latency || rep.Makespan != l.Span || rep.LowerBound > rep.Makespan {
		t.Errorf("interval %d (bound %d, recurrence %d), latency %d, span %d, makespan %d, bound %d", l.II, l.IIBound, l.RecMII, l.Latency, l.Span, rep.Makespan, rep.LowerBound)
	}
	var tab = m.Main().Sched
	m.Main().Walk(func(i bir.InstID) bool {
		if m.Main().Inst(i).Op.IsLoop() && tab.PeriodOf(i) != l.II {
			t.Errorf("the loop's period %d, want %d", tab.PeriodOf(i), l.II)
		}
		return true
	})
}

// TestScheduleLoops_OneBufferWhatIf: the report's one-buffer what-if is
// the schedule ModuloAllocation's rotation avoids. On the loop pipeline
// with two PSUM slots (the matmul's WAR dependency on the Exp carried at
// distance 2) it equals the interval and the span of the same program
// allocated with one slot (the dependency at distance 1), and the
// buffers buy a shorter interval; the one-slot program has no what-if.
func TestScheduleLoops_OneBufferWhatIf(t *testing.T) {
	progs := schedtest.LoopPrograms()
	var got [2]sched.LoopReport
	for k, name := range []string{"loop pipeline (2 PSUM slots)", "loop pipeline (1 PSUM slot)"} {
		i := slices.IndexFunc(progs, func(p schedtest.LoopProgram) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no program %q", name)
		}
		lp := progs[i]
		m, _, err := lp.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.Table.Run(m, pass.Config{Passes: schedtest.Before("time_aware_scheduler"), Options: lp.Options}); err != nil {
			t.Fatal(err)
		}
		model, _ := arch.ForModule(m)
		_, loops, err := sched.ScheduleLoops(m.Main(), model, sched.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(loops.Loops) != 1 {
			t.Fatalf("%s: %d loops", name, len(loops.Loops))
		}
		got[k] = loops.Loops[0]
	}
	two, one := got[0], got[1]
	if two.OneBufferII != one.II || two.OneBufferSpan != one.Span || two.II >= one.II {
		t.Errorf("two slots: interval %d, what-if %d/%d; one slot: interval %d, span %d", two.II, two.OneBufferII, two.OneBufferSpan, one.II, one.Span)
	}
	if one.OneBufferII != 0 {
		t.Errorf("one slot: a what-if %d where no distance is 2 or more", one.OneBufferII)
	}
	if s := (&sched.LoopsReport{Loops: []sched.LoopReport{two}}).String(); !strings.Contains(s, "with one buffer") || !strings.Contains(s, fmt.Sprintf("the buffers buy x%.2f", float64(one.Span)/float64(two.Span))) {
		t.Errorf("report:\n%s", s)
	}
}
