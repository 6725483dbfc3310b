package unroll

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/pass"
)

// mainAndHelper builds functions "main" and "helper", each a static loop of
// four iterations copying a tile in and out with physical access patterns
// (eligible for heuristic_unroll, unrolled by every unroller).
func mainAndHelper(t *testing.T) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	for _, name := range []string{"main", "helper"} {
		b := bir.NewBuilder(m, name)
		x := b.Input("x_"+name, bir.Float32, 128, 64)
		z := b.Output("z_"+name, bir.Float32, 128, 64)
		s := b.SBUF("s", bir.Float32, 128, 64)
		b.Loop("i", 0, 4, 1, func(affine.Expr) {
			b.Load("ld", s.All(), x.All())
			b.Save("st", z.All(), s.All())
		})
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// unrollers calls each unroller's entry point with a hook.
var unrollers = []struct {
	name string
	run  func(m *bir.Module, hook func(string)) error
}{
	{"unroll", func(m *bir.Module, hook func(string)) error {
		_, err := Unroll(m, UnrollOptions{OnFunction: hook})
		return err
	}},
	{"full_unroll", func(m *bir.Module, hook func(string)) error {
		_, err := FullUnroll(m, FullUnrollOptions{Level: 2, OnFunction: hook})
		return err
	}},
	{"heuristic_unroll", func(m *bir.Module, hook func(string)) error {
		_, err := HeuristicUnroll(m, HeuristicOptions{Enabled: true, OnFunction: hook})
		return err
	}},
}

// TestInternalError_NamesFunction: a panic inside an unroller is recovered
// into an *InternalError naming the function being processed. The panic
// comes from the OnFunction hook, which the unrollers call inside the
// recovered region as they start on a function (they are fuzzed against
// malformed input, so no module-borne panic path is kept for this test).
// A panic outside per-function work names no function.
func TestInternalError_NamesFunction(t *testing.T) {
	for _, u := range unrollers {
		for _, at := range []string{"helper", ""} {
			hook := func(n string) {
				if n == at {
					panic(fmt.Sprintf("boom in %q", n))
				}
			}
			err := u.run(mainAndHelper(t), hook)
			var ie *InternalError
			if !errors.As(err, &ie) {
				t.Errorf("%s, panic at %q: err = %v, want an *InternalError", u.name, at, err)
				continue
			}
			if ie.Pass != u.name || ie.Function != at {
				t.Errorf("%s, panic at %q: pass %q, function %q", u.name, at, ie.Pass, ie.Function)
			}
			want := u.name + ": function helper: internal error (the module may be malformed; run narwhal verify on it): boom in \"helper\""
			if at == "" {
				want = u.name + ": internal error (the module may be malformed; run narwhal verify on it): boom in \"\""
			}
			if err.Error() != want {
				t.Errorf("%s: message\n%s\nwant\n%s", u.name, err, want)
			}
		}
	}
}

// TestOnFunction_Sequence: each unroller names every function, main first,
// as it starts on it and "" when it leaves per-function work; without the
// hook it does the same work.
func TestOnFunction_Sequence(t *testing.T) {
	want := map[string]string{
		"unroll":           "main,helper,",
		"full_unroll":      "main,helper,|main,helper,|main,helper,", // pre_process, unroll, erase_all_dependencies
		"heuristic_unroll": "main,helper,",
	}
	for _, u := range unrollers {
		var seen []string
		m := mainAndHelper(t)
		if err := u.run(m, func(n string) { seen = append(seen, n) }); err != nil {
			t.Fatalf("%s: %v", u.name, err)
		}
		got := strings.ReplaceAll(strings.Join(seen, ","), ",,", ",|")
		if got != want[u.name] {
			t.Errorf("%s: OnFunction saw %s, want %s", u.name, got, want[u.name])
		}
		m2 := mainAndHelper(t)
		if err := u.run(m2, nil); err != nil {
			t.Fatalf("%s without the hook: %v", u.name, err)
		}
		if a, b := m.NumInsts(), m2.NumInsts(); a != b {
			t.Errorf("%s: %d instructions with the hook, %d without", u.name, a, b)
		}
	}
}

// panicWriter panics on the n-th write containing substr.
type panicWriter struct {
	substr string
	n      int
}

func (w *panicWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.substr) {
		if w.n--; w.n == 0 {
			panic("verbose output failed")
		}
	}
	return len(p), nil
}

// TestUnrollPasses_PanicNamesFunction: through the pass manager, a panic
// while an unroller works on helper is an error naming the pass and
// helper, marked as a panic, like an unrecovered panic in any pass. The
// panic is raised by the verbose log writer on a line the pass logs while
// it works on helper.
func TestUnrollPasses_PanicNamesFunction(t *testing.T) {
	for _, tc := range []struct {
		p pass.Pass
		w *panicWriter
	}{
		{HeuristicUnrollPass, &panicWriter{"function helper, loop", 1}},
		{FullUnrollPassAt(2), &panicWriter{"DONE unrolling", 2}}, // main's, then helper's
	} {
		tbl := pass.Table{Passes: []pass.Pass{tc.p}}
		_, err := tbl.Run(mainAndHelper(t), pass.Config{Passes: []string{tc.p.Name}, Verbose: tc.w})
		var pe *pass.Error
		var ie *InternalError
		if !errors.As(err, &pe) || !pe.Panic || pe.Pass != tc.p.Name || pe.Function != "helper" || !errors.As(err, &ie) {
			t.Errorf("%s: err = %v, want a panic *pass.Error naming function helper over an *InternalError", tc.p.Name, err)
			continue
		}
		want := "pass " + tc.p.Name + ", function helper: internal error (panic): the module may be malformed; run narwhal verify on it: verbose output failed"
		if err.Error() != want {
			t.Errorf("%s: message\n%s\nwant\n%s", tc.p.Name, err, want)
		}
	}
}
