package verify_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestVerify_Loops: the stage rules of a function that keeps loops are
// checked on its instances. A compiled level-0 tensor_add verifies at stage
// synchronized; a period shorter than the carried dependencies allow is
// reported on the instance it breaks (rule scheduled), and so is a wait
// removed (rule synchronized); a loop without a period, a block out of
// start order, on the loop form.
func TestVerify_Loops(t *testing.T) {
	compile := func(t *testing.T) (*bir.Module, *arch.Model) {
		t.Helper()
		lp := schedtest.LoopPrograms()[0]
		m, _, err := lp.Build()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.Table.Run(m, pass.Config{Options: lp.Options}); err != nil {
			t.Fatal(err)
		}
		model, err := arch.ForModule(m)
		if err != nil {
			t.Fatal(err)
		}
		return m, model
	}
	loopOf := func(f *bir.Function) bir.InstID {
		l := bir.NoInst
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				l = i
				return false
			}
			return true
		})
		return l
	}
	byName := func(f *bir.Function, n string) bir.InstID {
		i, ok := f.InstByName(n)
		if !ok {
			t.Fatalf("no %s", n)
		}
		return i
	}
	tests := []struct {
		name  string
		stage verify.Stage
		mut   func(f *bir.Function)
		want  string // "" for none
	}{
		{"as compiled", verify.StageSynchronized, func(*bir.Function) {}, ""},
		{"period too short", verify.StageScheduled, func(f *bir.Function) {
			l := loopOf(f)
			f.Sched.SetPeriod(l, f.Sched.PeriodOf(l)/2)
		}, "@i=1 (Load): starts at"},
		{"no period", verify.StageScheduled, func(f *bir.Function) { delete(f.Sched.Period, loopOf(f)) }, "without a period"},
		{"block out of order", verify.StageScheduled, func(f *bir.Function) {
			i := byName(f, "store_z")
			f.Sched.Start[i] = 0
		}, "want each block in start order"},
		{"a wait removed", verify.StageSynchronized, func(f *bir.Function) {
			i := byName(f, "store_z")
			f.Sync.SetWaits(i, nil)
		}, "store_z@i=0 (Save): depends on add@i=0 (FLOW)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, model := compile(t)
			tc.mut(m.Main())
			err := verify.Module(m, verify.Options{Arch: model, Stage: tc.stage})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v: want one containing %q", err, tc.want)
			}
		})
	}
}

// TestVerify_WireLimitMessage: the seed's EventSemaphore wire limit is the
// default every machine model keeps and the message the verifier names;
// a model whose arch.semaphore-waits-per-inst moves it (a what-if) gets
// the check at its limit and a message that says so, naming both limits.
func TestVerify_WireLimitMessage(t *testing.T) {
	src := func(waits int) string {
		w := ""
		for k := range waits {
			if k > 0 {
				w += ", "
			}
			w += "[" + string(rune('0'+k)) + ", 0]"
		}
		return "module arch=trn2\n\nfunc @main {\nBlock1:\n  a = Halt on PE sched(start=0, end=0, order=0) sync(waits=[" + w + "])\n}\n"
	}
	base, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	whatIf := *base
	whatIf.Sync.WaitsPerInst = 3
	for _, tc := range []struct {
		name  string
		model *arch.Model
		waits int
		want  []string // "" entries: no error
	}{
		{"seed's limit", base, 3, []string{"Too many sync wait commands (EventSemaphore must have <= 2 wait commands, and <= 1 update command): want <= 2, have 3"}},
		{"what-if limit", &whatIf, 4, []string{"a what-if limit of the machine model: arch.semaphore-waits-per-inst=3", "the seed's verifier pins \"EventSemaphore must have <= 2 wait commands", "want <= 3, have 4"}},
		{"within the what-if limit", &whatIf, 3, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := bir.Parse("w.bir", []byte(src(tc.waits)))
			if err != nil {
				t.Fatal(err)
			}
			err = verify.Module(m, verify.Options{Arch: tc.model})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("err %v: want one containing %q", err, w)
				}
			}
		})
	}
}
