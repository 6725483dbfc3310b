package bir

import (
	"slices"
	"testing"
)

// TestText_LoopScheduleAndSync: a loop's period (its initiation interval)
// and a body wait's iteration term ([S, V + 4*i]) read back and print as
// written.
func TestText_LoopScheduleAndSync(t *testing.T) {
	src := `module arch=trn2

func @main {
Block1:
  l = Loop i in [0, 4) sched(start=0, end=90, period=20) {
  Block_i:
    a = Halt on PE sched(start=0, end=10, order=0) sync(waits=[[2, 1 + 4*i], [0, 7], [1, -3 - 2*i]], updates=[[1, 1]])
    b = Halt on DVE sched(start=10, end=30, order=0) sync(waits=[[3, 2]])
  }
}
`
	m, err := Parse("s.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	l, _ := f.InstByName("l")
	a, _ := f.InstByName("a")
	b, _ := f.InstByName("b")
	if got := f.Sched.PeriodOf(l); got != 20 {
		t.Errorf("period of l: %d, want 20", got)
	}
	sy := f.Sync
	if !slices.Equal(sy.Waits(a), []SemCmd{{2, 1}, {0, 7}, {1, -3}}) {
		t.Errorf("a's waits %v", sy.Waits(a))
	}
	its := sy.WaitIters(a)
	if len(its) != 3 || its[0] == 0 || its[1] != 0 || its[2] == 0 {
		t.Fatalf("a's iteration terms %v: want terms on the first and third", its)
	}
	ax := f.Loop(l).Axis
	if c := m.Expr(its[0]).Coeff(ax); c != 4 {
		t.Errorf("first term's coefficient %d, want 4", c)
	}
	if c := m.Expr(its[2]).Coeff(ax); c != -2 {
		t.Errorf("third term's coefficient %d, want -2", c)
	}
	if w := sy.WaitIters(b); len(w) != 1 || w[0] != 0 || !sy.HasIters() {
		t.Errorf("b's terms %v (want one zero), HasIters %v", w, sy.HasIters())
	}
	if got := Format(m); got != src {
		t.Errorf("does not print as written:\n%s", textLineDiff(src, got))
	}
	// Compact and Clone keep the terms.
	c := sy.Clone()
	sy.SetWaits(b, []SemCmd{{3, 5}})
	sy.Compact()
	if w := sy.WaitIters(a); len(w) != 3 || w[0] != its[0] || w[2] != its[2] {
		t.Errorf("after Compact: %v", w)
	}
	if w := c.WaitIters(a); len(w) != 3 || w[0] != its[0] {
		t.Errorf("clone: %v", w)
	}
}

// TestText_UpdateIterationTermRejected: updates add constants.
func TestText_UpdateIterationTermRejected(t *testing.T) {
	src := "module arch=trn2\n\nfunc @main {\nBlock1:\n  l = Loop i in [0, 4) {\n  Block_i:\n    a = Halt on PE sync(updates=[[1, 1 + i]])\n  }\n}\n"
	if _, err := Parse("s.bir", []byte(src)); err == nil {
		t.Fatal("an update with an iteration term was accepted")
	}
}

// TestText_CarryAll: a dependency over every inner iteration of its carry
// loop (carry(i, 1, all)) reads back and prints as written.
func TestText_CarryAll(t *testing.T) {
	src := `module arch=trn2

func @main {
Block1:
  l = Loop i in [0, 2) {
  Block_i:
    lk = Loop k in [0, 3) {
    Block_k:
      a = Halt on PE deps [ANTI b carry(i, 1, all), ANTI b carry(k, 1)]
      b = Halt on DVE deps [FLOW a]
    }
  }
}
`
	m, err := Parse("s.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	a, _ := f.InstByName("a")
	all := 0
	for _, d := range f.Deps(a) {
		if d.CarryAll {
			all++
		}
	}
	if all != 1 {
		t.Errorf("%d carry-all dependencies, want 1", all)
	}
	if got := Format(m); got != src {
		t.Errorf("does not print as written:\n%s", textLineDiff(src, got))
	}
}
