package unroll

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

func parse(t testing.TB, src string) *bir.Module {
	t.Helper()
	m, err := bir.Parse("test.bir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m
}

// runPass runs one pass through a one-entry table with options.
func runPass(m *bir.Module, p pass.Pass, opts map[string]string) (*pass.Report, error) {
	tbl := pass.Table{Passes: []pass.Pass{p}}
	cfg := pass.Config{Passes: []string{p.Name}}
	if opts != nil {
		cfg.Options = map[string]map[string]string{p.Name: opts}
	}
	return tbl.Run(m, cfg)
}

func counter(rep *pass.Report, name string) int64 {
	for _, r := range rep.Passes {
		for _, c := range r.Counters {
			if c.Name == name {
				return c.Value
			}
		}
	}
	return 0
}

func passLog(rep *pass.Report) string {
	var sb strings.Builder
	for _, r := range rep.Passes {
		for _, l := range r.Log {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

const loopHeader = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 64] kind=Input
    loc %x: Input 128x256
  tensor %z_set: f32[128, 64] kind=Output
    loc %z: Output 128x256
  tensor %t_set: f32[128, 64] class=NeuronSBTensor
    loc %t: SB 128x256
`

const incAttrs = `{op0="add", const0=1.0, reverse0=false, op1="bypass", const1=0.0, reverse1=false}`

// bigNest is a loop nest of n1 x n2 iterations around a save (a
// non-removable instruction) and an add.
func bigNest(n1, n2 string) string {
	return loopHeader + `
Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  loop_a = Loop a in [0, ` + n1 + `) {
  Block_a:
    loop_b = Loop b in [0, ` + n2 + `) {
    Block_b:
      inc = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + `
      st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
    }
  }
}
`
}

func TestCheckInstructionCeiling(t *testing.T) {
	for _, tc := range []struct {
		total int64
		fail  bool
	}{{0, false}, {24_999_999, false}, {25_000_000, true}, {25_000_001, true}, {1 << 40, true}} {
		err := CheckInstructionCeiling(tc.total)
		if (err != nil) != tc.fail {
			t.Errorf("CheckInstructionCeiling(%d) = %v, want failure %v", tc.total, err, tc.fail)
			continue
		}
		if err == nil {
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, CeilingMessage) {
			t.Errorf("message %q lacks the seed's text %q", msg, CeilingMessage)
		}
		if !strings.Contains(msg, "total_count=") {
			t.Errorf("message %q does not give the count", msg)
		}
	}
	if !strings.Contains(CeilingMessage, `total_count < 25000000 && "Compiler generated too many instructions, this may due to a failure in parallelism extraction by the tensorizer !"`) {
		t.Errorf("CeilingMessage = %q is not the seed's literal", CeilingMessage)
	}
}

// A 10^12-instruction unroll fails before anything is cloned, in far less
// time than cloning would take.
func TestFullUnroll_CeilingFailsFast(t *testing.T) {
	m := parse(t, bigNest("1000000", "1000000"))
	slots := m.Main().NumInstSlots()
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	var ce *CeilingError
	if !errors.As(err, &ce) || !ce.Projected {
		t.Fatalf("FullUnroll = %v, want a projected CeilingError", err)
	}
	if ce.TotalCount < 1_000_000_000_000 {
		t.Errorf("projected total_count %d, want at least 10^12 (the saves alone)", ce.TotalCount)
	}
	if !strings.Contains(err.Error(), CeilingMessage) {
		t.Errorf("error %q lacks the seed's message", err)
	}
	if n := m.Main().NumInstSlots(); n != slots {
		t.Errorf("%d instruction slots after the failure, want %d: cloning started", n, slots)
	}
}

// The ceiling on the real pass path at its boundary: a nest whose
// unrolled count is exactly 25,000,000 (5000 x 5000 saves, nothing else)
// fails before cloning with total_count=25000000 and the seed's message.
// (24,999,999 passing is tested on the check itself: the pass would have
// to materialize it.)
func TestFullUnroll_CeilingAt25M(t *testing.T) {
	src := loopHeader + `
Block1:
  loop_a = Loop a in [0, 5000) {
  Block_a:
    loop_b = Loop b in [0, 5000) {
    Block_b:
      st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
    }
  }
}
`
	m := parse(t, src)
	slots := m.Main().NumInstSlots()
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	var ce *CeilingError
	if !errors.As(err, &ce) || !ce.Projected || ce.TotalCount != 25_000_000 {
		t.Fatalf("FullUnroll = %v, want a projected CeilingError at total_count=25000000", err)
	}
	if !strings.Contains(err.Error(), CeilingMessage) || !strings.Contains(err.Error(), "total_count=25000000") {
		t.Errorf("error %q lacks the seed's message or the count", err)
	}
	if n := m.Main().NumInstSlots(); n != slots {
		t.Errorf("%d instruction slots after the failure, want %d: cloning started", n, slots)
	}
}

// saveNest is a nest Loop a in [0, n1) { Loop b in [0, n2) { Save } }: the
// save writes a kernel output, so dce cannot remove it and the projected
// lower bound is exactly n1*n2.
func saveNest(n1, n2 string) string {
	return loopHeader + `
Block1:
  loop_a = Loop a in [0, ` + n1 + `) {
  Block_a:
    loop_b = Loop b in [0, ` + n2 + `) {
    Block_b:
      st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
    }
  }
}
`
}

// The projection before cloning at the ceiling's boundary, on the pass's
// own pre-clone step (planFullUnroll) so that nothing is cloned: 4999 x
// 5001 = 24,999,999 saves pass, one more instruction elsewhere in the
// module (others) or 5000 x 5000 fail with the seed's message. A nest whose
// trip-count product saturates still fails when the rest of the module is
// not empty (others + lower must not overflow past the check). The full
// 24,999,999-instruction unroll is opt-in: NARWHAL_UNROLL_25M=1.
func TestFullUnroll_ProjectionAt24999999(t *testing.T) {
	for _, tc := range []struct {
		n1, n2    string
		others    int64
		wantLower int64
		fail      bool
		wantTotal int64
	}{
		{"4999", "5001", 0, 24_999_999, false, 0},
		{"4999", "5001", 1, 24_999_999, true, 25_000_000},
		{"5000", "5000", 0, 25_000_000, true, 25_000_000},
		{"4000000000", "4000000000", 1, math.MaxInt64, true, math.MaxInt64},
	} {
		name := tc.n1 + "x" + tc.n2 + "+" + strconv.FormatInt(tc.others, 10)
		t.Run(name, func(t *testing.T) {
			m := parse(t, saveNest(tc.n1, tc.n2))
			f := m.Main()
			slots := f.NumInstSlots()
			var st Stats
			pl, err := planFullUnroll(f, decide(f, 2), 2, tc.others, &st)
			if n := f.NumInstSlots(); n != slots {
				t.Errorf("%d instruction slots after planning, want %d: cloning started", n, slots)
			}
			if !tc.fail {
				if err != nil {
					t.Fatalf("planFullUnroll = %v, want the projection to pass", err)
				}
				if pl.proj.lower != tc.wantLower || pl.proj.upper != tc.wantLower {
					t.Errorf("projection lower %d upper %d, want both %d", pl.proj.lower, pl.proj.upper, tc.wantLower)
				}
				return
			}
			var ce *CeilingError
			if !errors.As(err, &ce) || !ce.Projected || ce.TotalCount != tc.wantTotal {
				t.Fatalf("planFullUnroll = %v, want a projected CeilingError at total_count=%d", err, tc.wantTotal)
			}
			want := "total_count=" + strconv.FormatInt(tc.wantTotal, 10)
			if !strings.Contains(err.Error(), CeilingMessage) || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks the seed's message or %q", err, want)
			}
			if tc.others == 0 {
				// The same on the pass's path.
				m := parse(t, saveNest(tc.n1, tc.n2))
				_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
				if !errors.As(err, &ce) || !ce.Projected || ce.TotalCount != tc.wantTotal || !strings.Contains(err.Error(), CeilingMessage) {
					t.Errorf("FullUnroll = %v, want the projected CeilingError at total_count=%d", err, tc.wantTotal)
				}
			}
		})
	}
	t.Run("full", func(t *testing.T) {
		if testing.Short() || os.Getenv("NARWHAL_UNROLL_25M") == "" {
			t.Skip("clones 24,999,999 instructions; set NARWHAL_UNROLL_25M=1 to run")
		}
		m := parse(t, saveNest("4999", "5001"))
		st, err := FullUnroll(m, FullUnrollOptions{Level: 2})
		if err != nil {
			t.Fatalf("FullUnroll at 24,999,999 instructions: %v", err)
		}
		if st.TotalCount != 24_999_999 || m.NumInsts() != 24_999_999 {
			t.Errorf("total_count %d (module %d), want 24999999", st.TotalCount, m.NumInsts())
		}
	})
}

// A nest whose projection saturates at MaxInt64 in a module with another
// function: the rest of the module counts in the projected total, which
// must still fail before cloning (others + lower once overflowed to a
// negative total, passed the check and cloned 25M instructions before the
// running count stopped it).
func TestFullUnroll_SaturatedProjectionWithOtherFunctions(t *testing.T) {
	m := parse(t, saveNest("4000000000", "4000000000")+`
func @other {
  tensor %y_set: f32[128, 64] kind=Input
    loc %y: Input 128x256
  tensor %w_set: f32[128, 64] kind=Output
    loc %w: Output 128x256

Block1:
  st2 = Save %y[ap=[[64,128],[1,64]]] f32 -> %w[ap=[[64,128],[1,64]]] f32
}
`)
	slots := m.Main().NumInstSlots()
	_, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	var ce *CeilingError
	if !errors.As(err, &ce) || !ce.Projected || ce.TotalCount != math.MaxInt64 {
		t.Fatalf("FullUnroll = %v, want a projected CeilingError at total_count=%d", err, int64(math.MaxInt64))
	}
	if n := m.Main().NumInstSlots(); n != slots {
		t.Errorf("%d instruction slots after the failure, want %d: cloning started", n, slots)
	}
}

// The count while cloning at the ceiling's boundary. The saves are
// predicated (if (i >= 0)), so the projected lower bound is 0 and only the
// running count can stop the unroll; others stands for the rest of the
// module, so the boundary is reached with 10 clones: others + 10 =
// 24,999,999 passes, one more fails on the 10th clone with the seed's
// message.
func TestFullUnroll_CountingAtCeiling(t *testing.T) {
	src := loopHeader + `
Block1:
  loop_i = Loop i in [0, 10) {
  Block_i:
    st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32 if (i >= 0)
  }
}
`
	for _, tc := range []struct {
		others int64
		fail   bool
	}{{24_999_989, false}, {24_999_990, true}} {
		m := parse(t, src)
		f := m.Main()
		var st Stats
		err := fullUnrollFunction(f, modeWhole, 2, FullUnrollOptions{Level: 2}, tc.others, &st)
		if !tc.fail {
			if err != nil || st.Clones != 10 {
				t.Errorf("others=%d: %v, %d clones; want 10 clones and no error", tc.others, err, st.Clones)
			}
			continue
		}
		var ce *CeilingError
		if !errors.As(err, &ce) || !ce.Counting || ce.TotalCount != 25_000_000 {
			t.Errorf("others=%d: %v, want a CeilingError while cloning at total_count=25000000", tc.others, err)
			continue
		}
		if !strings.Contains(err.Error(), CeilingMessage) {
			t.Errorf("error %q lacks the seed's message", err)
		}
	}
}

// The ceiling holds on the module total across functions and passes just
// under it.
func TestFullUnroll_UnderCeiling(t *testing.T) {
	m := parse(t, bigNest("4", "8"))
	st, err := FullUnroll(m, FullUnrollOptions{Level: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalCount != 1+4*8*2 || m.NumInsts() != st.TotalCount {
		t.Errorf("total_count %d (module %d), want %d", st.TotalCount, m.NumInsts(), 1+4*8*2)
	}
}

func TestUnroll_BudgetGuard(t *testing.T) {
	// Projected: the lower bound (unpredicated instructions) exceeds 50.
	m := parse(t, bigNest("10", "10"))
	_, err := Unroll(m, UnrollOptions{MaxInstructionLimit: 50})
	var be *BudgetError
	if !errors.As(err, &be) || !be.Projected || be.Limit != 50 {
		t.Fatalf("Unroll = %v, want a projected BudgetError with limit 50", err)
	}
	for _, want := range []string{"total_count=", "max_instruction_limit=50"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// Counted while cloning: predicated instructions are not in the lower
	// bound, the guard stops the clone count at the limit.
	src := loopHeader + `
Block1:
  loop_i = Loop i in [0, 100) {
  Block_i:
    inc = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + ` if (i >= 0)
  }
}
`
	m = parse(t, src)
	_, err = Unroll(m, UnrollOptions{MaxInstructionLimit: 50})
	if !errors.As(err, &be) || be.Projected || !be.Counting || be.TotalCount != 51 {
		t.Fatalf("Unroll = %v, want a BudgetError counted while cloning at total_count=51", err)
	}
	// At the limit exactly, it passes.
	m = parse(t, src)
	if _, err := Unroll(m, UnrollOptions{MaxInstructionLimit: 100}); err != nil {
		t.Fatalf("Unroll at the limit: %v", err)
	}
	// The module's config supplies the limit when the option is 0; the
	// pass option overrides it.
	m = parse(t, src)
	m.Config.MaxInstructionLimit = 20
	if _, err := runPass(m, UnrollPass, nil); !errors.As(err, &be) || be.Limit != 20 {
		t.Errorf("unroll with Config.MaxInstructionLimit=20: %v, want a BudgetError with limit 20", err)
	}
	m = parse(t, src)
	m.Config.MaxInstructionLimit = 20
	if _, err := runPass(m, UnrollPass, map[string]string{"max_instruction_limit": "1000"}); err != nil {
		t.Errorf("unroll with max_instruction_limit=1000: %v", err)
	}
}

func TestFullUnroll_Level(t *testing.T) {
	m := parse(t, bigNest("2", "2"))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: LevelUnset}); err == nil || err.Error() != LevelMessage {
		t.Errorf("unset level: %v, want %q", err, LevelMessage)
	}
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 3}); err == nil || !strings.Contains(err.Error(), "unrollLevel=3") {
		t.Errorf("level 3: %v", err)
	}
	// The pass without the option asserts like the seed.
	if _, err := runPass(m, FullUnrollPass, nil); err == nil || !strings.Contains(err.Error(), LevelMessage) {
		t.Errorf("full_unroll without unrollLevel: %v, want %q", err, LevelMessage)
	}
	if _, err := runPass(m, FullUnrollPass, map[string]string{"unrollLevel": "x"}); err == nil {
		t.Errorf("unrollLevel=x accepted")
	}
	if p := FullUnrollPassAt(2); p.Produces != verify.StageUnrolled || p.Options[0].Default != "2" {
		t.Errorf("FullUnrollPassAt(2) = %+v", p)
	}
	if p := FullUnrollPassAt(0); p.Produces != 0 {
		t.Errorf("FullUnrollPassAt(0) declares %v", p.Produces)
	}
}

// Level 1 unrolls only what is marked; the log lines follow the seed.
func TestFullUnroll_Level1Decisions(t *testing.T) {
	var log []string
	logf := func(f string, a ...any) { log = append(log, f) }
	m := parse(t, bigNest("2", "3"))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 1, Logf: logf}); err != nil {
		t.Fatal(err)
	}
	if countLoops(m) != 2 || !strings.Contains(strings.Join(log, "\n"), "DONE DCE, no unrolling needed, running BirCodeGen with unroll pass") {
		t.Errorf("unmarked function: %d loops, log %q", countLoops(m), log)
	}
	log = nil
	m = parse(t, strings.Replace(bigNest("2", "3"), "func @main {", "func @main attributes=[need_unroll] {", 1))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 1, Logf: logf}); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	if countLoops(m) != 0 || !f.HasAttribute("unrolled") || f.HasAttribute("need_unroll") {
		t.Errorf("need_unroll function: %d loops, attributes %v", countLoops(m), f.Attributes)
	}
	j := strings.Join(log, "\n")
	for _, want := range []string{"INFO (FullUnroll) Start unrolling at %s", "INFO (FullUnroll) DONE unrolling %s"} {
		if !strings.Contains(j, want) {
			t.Errorf("log %q lacks %q", j, want)
		}
	}
	// A function with nothing to unroll.
	log = nil
	m = parse(t, loopHeader+"\nBlock1:\n  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32\n}\n")
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 1, Logf: logf}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(log, "\n"), "No unrolling needed, running hhir pass") {
		t.Errorf("log %q", log)
	}
}

const heuristicSrc = loopHeader + `
Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  outer = Loop o in [0, 2) {
  Block_o:
    inner = Loop k in [0, 3) {
    Block_k:
      inc = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + `
    }
  }
  sym = Loop s in [0, 2) {
  Block_s:
    half = TensorScalar on DVE %t_set[block=0, offset=32*s, ap=[[64,128],[1,32]]] f32 -> %t_set[block=0, offset=32*s, ap=[[64,128],[1,32]]] f32 ` + incAttrs + `
  }
  a = Loop p in [0, 2) {
  Block_p:
    inc2 = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + `
  }
  b = Loop q in [0, 2) {
  Block_q:
    inc3 = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + `
  }
  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
}
`

func marked(m *bir.Module) []string {
	var out []string
	f := m.Main()
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op == bir.OpLoop && f.Attrs(i).Bool(HeuristicAttr, false) {
			out = append(out, f.InstName(i))
		}
		return true
	})
	return out
}

func TestHeuristicUnroll_Gate(t *testing.T) {
	var log []string
	logf := func(f string, a ...any) { log = append(log, f) }
	m := parse(t, heuristicSrc)
	st, err := HeuristicUnroll(m, HeuristicOptions{Enabled: false, Logf: logf})
	if err != nil || len(marked(m)) != 0 || len(log) != 1 || log[0] != "Heuristic unroll is off." {
		t.Errorf("off: %v, marked %v, log %q", err, marked(m), log)
	}
	_ = st
	// Eligible: inner (innermost, static), a, b; not outer (not innermost)
	// nor sym (symbolic access).
	m = parse(t, heuristicSrc)
	st, err = HeuristicUnroll(m, HeuristicOptions{Enabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(marked(m), ","); got != "inner,a,b" || st.HeuristicMarked != 3 || st.HeuristicSkipped != 0 {
		t.Errorf("marked %s (%+v), want inner,a,b", got, st)
	}
	// A multi-block eligible loop is the seed's assertion.
	src := strings.Replace(heuristicSrc, "  Block_q:\n", "  Block_q:\n    inc4 = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 "+incAttrs+"\n  Block_q2:\n", 1)
	m = parse(t, src)
	if _, err := HeuristicUnroll(m, HeuristicOptions{Enabled: true}); err == nil || !strings.Contains(err.Error(), "exactly one body block, have 2") {
		t.Errorf("two body blocks: %v", err)
	}
}

func TestHeuristicUnroll_MAXHU(t *testing.T) {
	// MAXHU from the environment caps the marks over the whole run.
	t.Setenv("MAXHU", "2")
	m := parse(t, heuristicSrc)
	rep, err := runPass(m, HeuristicUnrollPass, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(marked(m), ","); got != "inner,a" {
		t.Errorf("MAXHU=2: marked %s, want inner,a", got)
	}
	if counter(rep, "heuristic_unroll.marked") != 2 || counter(rep, "heuristic_unroll.skipped") != 1 {
		t.Errorf("counters %+v", rep.Passes[0].Counters)
	}
	log := passLog(rep)
	for _, want := range []string{"loop inner: unroll", "loop b: skip (cap 2 reached)", "Heuristically unrolled 3 loops."} {
		if !strings.Contains(log, want) {
			t.Errorf("log %q lacks %q", log, want)
		}
	}
	// The option wins over the environment.
	m = parse(t, heuristicSrc)
	if _, err := runPass(m, HeuristicUnrollPass, map[string]string{"maxhu": "0"}); err != nil {
		t.Fatal(err)
	}
	if got := marked(m); len(got) != 0 {
		t.Errorf("maxhu=0: marked %v", got)
	}
	m = parse(t, heuristicSrc)
	if _, err := runPass(m, HeuristicUnrollPass, map[string]string{"enable": "false"}); err != nil || len(marked(m)) != 0 {
		t.Errorf("enable=false: %v, marked %v", err, marked(m))
	}
	t.Setenv("MAXHU", "many")
	m = parse(t, heuristicSrc)
	if _, err := runPass(m, HeuristicUnrollPass, nil); err == nil || !strings.Contains(err.Error(), "MAXHU") {
		t.Errorf("MAXHU=many: %v", err)
	}
}

// HeuristicUnroll then FullUnroll level 1 on a module: outputs unchanged.
func TestHeuristicThenLevel1_TranslationValidation(t *testing.T) {
	m := parse(t, heuristicSrc)
	passtest.Check(t, m, func(m *bir.Module) error {
		if _, err := HeuristicUnroll(m, HeuristicOptions{Enabled: true, MaxHU: "2"}); err != nil {
			return err
		}
		_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
		return err
	})
	// outer and sym stay loops, inner and a are gone, b (capped) stays.
	var loops []string
	f := m.Main()
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsLoop() {
			loops = append(loops, f.InstName(i))
		}
		return true
	})
	if got := strings.Join(loops, ","); got != "outer,sym,b" {
		t.Errorf("loops after level 1: %s, want outer,sym,b", got)
	}
}

func TestUnroll_Errors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
		opt             UnrollOptions
	}{
		{"block out of range", loopHeader + `  tensor %b_set: f32[128, 64] class=NeuronSBTensor blocks=2
    loc %b: SB 128x256

Block1:
  loop_i = Loop i in [0, 3) {
  Block_i:
    cp = TensorCopy on DVE %t[ap=[[64,128],[1,64]]] f32 -> %b_set[block=i, ap=[[64,128],[1,64]]] f32
  }
}
`, "instruction cp (TensorCopy) at i=2: operand 1: block index 2 of tensor b_set: want 0 <= block < 2", UnrollOptions{}},
		{"offset out of range", loopHeader + `
Block1:
  loop_i = Loop i in [0, 3) {
  Block_i:
    cp = TensorCopy on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t_set[block=0, offset=4096*i, ap=[[64,128],[1,64]]] f32
  }
}
`, "instruction cp (TensorCopy) at i=1: operand 1: block 0 of t_set at element offset 4096 reaches elements [4096, 12287] of location t, which has 8192 float32 elements", UnrollOptions{}},
		{"realloc unallocated", loopHeader + `  tensor %b_set: f32[128, 64] class=NeuronSBTensor blocks=2
    loc %b: SB 128x256

Block1:
  loop_i = Loop i in [0, 2) {
  Block_i:
    cp = TensorCopy on DVE %t[ap=[[64,128],[1,64]]] f32 -> %b_set[block=i, ap=[[64,128],[1,64]]] f32
  }
}
`, "tensor b_set: block 0 (location b): mem.isAllocated() does not hold", UnrollOptions{Realloc: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parse(t, tc.src)
			_, err := Unroll(m, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Unroll = %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

func TestMemlocsGeneration(t *testing.T) {
	src := loopHeader + `  tensor %b_set: f32[128, 64] class=NeuronSBTensor blocks=3
    loc %b: SB 128x256 addr=512 allocated

Block1:
  loop_i = Loop i in [0, 3) {
  Block_i:
    cp = TensorCopy on DVE %x[ap=[[64,128],[1,64]]] f32 -> %b_set[block=i, ap=[[64,128],[1,64]]] f32
    st = Save %b_set[block=i, ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
  }
}
`
	m := parse(t, src)
	f := m.Main()
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 0}); err != nil {
		t.Fatal(err)
	}
	tid, _ := f.TensorByName("b_set")
	ts := f.Tensor(tid)
	if len(ts.Locs) != 3 {
		t.Fatalf("%d locations, want 3", len(ts.Locs))
	}
	for b, l := range ts.Locs {
		lc := f.Loc(l)
		if lc.Name != "b_set_sub"+string(rune('0'+b)) || lc.TensorIdx != int64(b) || lc.Addr != 512 || !lc.Allocated {
			t.Errorf("location %d: %+v", b, *lc)
		}
	}
	before := bir.Format(m)
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 0}); err != nil {
		t.Fatalf("second run: %v", err)
	}
	if bir.Format(m) != before {
		t.Errorf("level 0 is not idempotent")
	}
	// A tensor without a location: the seed's assertion.
	m = parse(t, src)
	f = m.Main()
	tid, _ = f.TensorByName("z_set")
	f.RemoveLoc(f.Tensor(tid).Locs[0])
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 0}); err == nil || !strings.Contains(err.Error(), "MemlocSet cannot be empty") {
		t.Errorf("empty tensor: %v", err)
	}
}

func TestDCE(t *testing.T) {
	src := `module arch=trn2

func @main {
  tensor %x_set: f32[128, 64] kind=Input
    loc %x: Input 128x256
  tensor %z_set: f32[128, 64] kind=Output
    loc %z: Output 128x256
  tensor %a_set: f32[128, 64] class=NeuronSBTensor
    loc %a: SB 128x256
  tensor %b_set: f32[128, 64] class=NeuronSBTensor
    loc %b: SB 128x256
  tensor %c_set: f32[128, 64] class=NeuronSBTensor
    loc %c: SB 128x256
  tensor %d_set: f32[128, 64] class=NeuronSBTensor
    loc %d: SB 128x256

Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %a[ap=[[64,128],[1,64]]] f32
  chain1 = TensorCopy on DVE %a[ap=[[64,128],[1,64]]] f32 -> %b[ap=[[64,128],[1,64]]] f32
  chain2 = TensorCopy on DVE %b[ap=[[64,128],[1,64]]] f32 -> %c[ap=[[64,128],[1,64]]] f32 deps [FLOW chain1]
  act = Activation on Activation %a[ap=[[64,128],[1,64]]] f32 -> %d[ap=[[64,128],[1,64]]] f32 {func="Exp", scale=1.0, alpha=0.0, acc="Accumulate"}
  st = Save %a[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32 deps [FLOW ld, ORDERED chain2]
}
`
	m := parse(t, src)
	f := m.Main()
	n := DCE(f)
	var names []string
	f.Walk(func(i bir.InstID) bool { names = append(names, f.InstName(i)); return true })
	// chain2 writes c (never read): dead; then b loses its reader: chain1
	// dead. act accumulates (engine state): kept. ld feeds st: kept.
	if n != 2 || strings.Join(names, ",") != "ld,act,st" {
		t.Errorf("DCE removed %d, left %v; want 2 removed, ld,act,st", n, names)
	}
	st, _ := f.InstByName("st")
	if deps := f.Deps(st); len(deps) != 1 || f.InstName(deps[0].On) != "ld" {
		t.Errorf("st's dependencies after dce: %v", deps)
	}
	if err := verify.Module(m, verify.Options{}); err != nil {
		t.Errorf("verify after dce: %v", err)
	}
}

// A carried dependency on a later instruction of a kept loop's body goes
// through the fixup queue: at level 1 the marked inner loop is unrolled
// inside the kept outer loop, and first (at the top of outer's body)
// depends, carried by o, on every instance of last.
func TestFullUnroll_ForwardCarryFixup(t *testing.T) {
	src := loopHeader + `
Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  outer = Loop o in [0, 3) {
  Block_o:
    first = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + ` deps [FLOW last carry(o, 1)]
    inner = Loop k in [0, 2) {heuristic_unroll=true} {
    Block_k:
      last = TensorScalar on DVE %t[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 ` + incAttrs + `
    }
  }
  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
}
`
	m := parse(t, src)
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
		return err
	})
	f := m.Main()
	first, ok := f.InstByName("first")
	if !ok {
		t.Fatalf("first is gone:\n%s", bir.Format(m))
	}
	deps := f.Deps(first)
	var got []string
	for _, d := range deps {
		got = append(got, f.InstName(d.On)+"@"+m.AxisName(d.CarryAxis))
		if d.CarryDist != 1 {
			t.Errorf("distance %d", d.CarryDist)
		}
	}
	if strings.Join(got, ",") != "last.0@o,last.1@o" {
		t.Errorf("first's dependencies %v, want last.0 and last.1 carried by o", got)
	}
}

// DoWhile and DynamicForLoop bodies keep running the same after the
// register-form lowering (the interpreter executes both forms).
func TestLowerDynamicExprs_DoWhile(t *testing.T) {
	src := loopHeader + `  reg $cnt
  reg $cond

Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  init = RegisterMove 3 i32 -> $cnt i32
  dw = DoWhile w in [0, 1) $cond i32 {
  Block_w:
    sc = TensorScalar on DVE %t_set[block=0, offset=16*w, ap=[[64,128],[1,16]]] f32 -> %t_set[block=0, offset=16*w, ap=[[64,128],[1,16]]] f32 {op0="mult", const0=3.0, reverse0=false, op1="add", const1=1.0, reverse1=false}
    dec = RegisterAlu $cnt i32, 1 i32 -> $cnt i32 {op="subtract"}
    mv = RegisterMove $cnt i32 -> $cond i32
  }
  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
}
`
	m := parse(t, src)
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := Unroll(m, UnrollOptions{})
		return err
	})
	f := m.Main()
	sc, _ := f.InstByName("sc")
	for k, o := range f.Operands(sc) {
		if o.Kind != bir.OpdRegAP {
			t.Errorf("operand %d of sc is a %s, want a register access pattern", k, o.Kind)
		}
	}
}

func TestRenumberCoreBarriers(t *testing.T) {
	src := loopHeader + `
Block1:
  loop_i = Loop i in [0, 3) {
  Block_i:
    bar = CoreBarrier {id=7, cores=[0, 1]}
  }
}
`
	m := parse(t, src)
	st, err := Unroll(m, UnrollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	var ids []int64
	f.Walk(func(i bir.InstID) bool {
		ids = append(ids, f.Attrs(i).Int("id", -1))
		return true
	})
	if st.CoreBarrierRenamed != 3 || len(ids) != 3 || ids[0] != 0 || ids[1] != 1 || ids[2] != 2 {
		t.Errorf("barrier ids %v (renamed %d), want 0,1,2", ids, st.CoreBarrierRenamed)
	}
}

func TestSplit_Refused(t *testing.T) {
	src := `module arch=trn2

func @main attributes=[need_unroll] {
  tensor %x_set: f32[128, 256] kind=Input
    loc %x: Input 128x1024
  tensor %z_set: f32[128, 256] kind=Output
    loc %z: Output 128x1024
  tensor %big_set: f32[128, 256] class=NeuronSBTensor split_shape=[false, true]
    loc %big: SB 128x1024

Block1:
  ld = Load %x[ap=[[256,128],[1,256]]] f32 -> %big[ap=[[256,128],[1,256]]] f32
  red = TensorReduce on DVE %big[ap=[[256,128],[1,256]]] f32 -> %big[ap=[[256,128],[1,1]]] f32 {op="add", axis="X", negate=false}
  st = Save %big[ap=[[256,128],[1,256]]] f32 -> %z[ap=[[256,128],[1,256]]] f32
}
`
	m := parse(t, src)
	_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
	for _, want := range []string{"instruction red (TensorReduce)", "tensorSplit of big_set", "dim 1 is cut into 16 pieces of 16", "not an element-wise one"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("FullUnroll = %v, want an error containing %q", err, want)
		}
	}
	// An input tensor cannot be cut.
	m = parse(t, strings.Replace(src, "kind=Input\n", "kind=Input split_shape=[false, true]\n", 1))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 1}); err == nil || !strings.Contains(err.Error(), "only internal tensors can be cut") {
		t.Errorf("marked input: %v", err)
	}
}

// FullUnroll level 1 on a need_unroll function with a dynamic loop inside
// a static one: the dynamic loop is re-created per iteration with a fresh
// axis and keeps its symbolic accesses (FullUnroll does not lower them).
func TestFullUnroll_Level1KeepsDynamicLoops(t *testing.T) {
	src, err := os.ReadFile("testdata/golden/dynamic.bir")
	if err != nil {
		t.Fatal(err)
	}
	m := parse(t, strings.Replace(string(src), "func @main {", "func @main attributes=[need_unroll] {", 1))
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
		return err
	})
	f := m.Main()
	var dyn []string
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op == bir.OpDynamicForLoop {
			dyn = append(dyn, f.InstName(i))
		}
		return true
	})
	if strings.Join(dyn, ",") != "dloop.0,dloop.1" {
		t.Errorf("dynamic loops after level 1: %v, want dloop.0, dloop.1", dyn)
	}
	// Level 2 refuses them.
	m = parse(t, string(src))
	if _, err := FullUnroll(m, FullUnrollOptions{Level: 2}); err == nil || !strings.Contains(err.Error(), "trip count is a run-time value") {
		t.Errorf("level 2 with a dynamic loop: %v", err)
	}
}

// A block tensor that a register access pattern names keeps its identity
// (per-block locations in place) instead of the per-block tensor grid, so
// the register access still resolves.
func TestUnroll_RegisterAPKeepsBlockTensor(t *testing.T) {
	src := loopHeader + `  tensor %b_set: f32[128, 64] class=NeuronSBTensor blocks=2
    loc %b: SB 128x256
  reg $r

Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  loop_i = Loop i in [0, 2) {
  Block_i:
    cp = TensorCopy on DVE %t[ap=[[64,128],[1,64]]] f32 -> %b_set[block=i, ap=[[64,128],[1,64]]] f32
  }
  set = RegisterMove 32 i32 -> $r i32
  rd = TensorCopy on DVE %b_set[reg=$r, ap=[[64,128],[1,32]]] f32 -> %t[ap=[[64,128],[1,32]]] f32
  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
}
`
	m := parse(t, src)
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := Unroll(m, UnrollOptions{})
		return err
	})
	f := m.Main()
	tid, ok := f.TensorByName("b_set")
	if !ok || len(f.Tensor(tid).Locs) != 2 || f.Loc(f.Tensor(tid).Locs[0]).Name != "b_set_sub0" {
		t.Errorf("b_set after unroll:\n%s", bir.Format(m))
	}
}

// checkInPlace in re-allocation mode: every on-chip location an
// instruction uses after the unroll must be allocated. A LoopTensor block
// passes tensorSplitGrid's allocation check unallocated, so check_in_place
// is what rejects its clone; other block tensors are rejected earlier by
// tensorSplitGrid; DRAM locations are never checked; without realloc
// nothing is.
func TestUnroll_CheckInPlace(t *testing.T) {
	const src = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 64] kind=Input
    loc %x: Input 128x256
  tensor %z_set: f32[128, 64] kind=Output
    loc %z: Output 128x256
  tensor %t_set: f32[128, 64] class=NeuronSBTensor
    loc %t: SB 128x256 T_PLACE
  tensor %ring_set: f32[128, 32] class=RING_CLASS blocks=2
    loc %ring_a: SB 128x128 addr=1024 allocated
    loc %ring_b: SB 128x128 RING_B_PLACE

Block1:
  ld = Load %x[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32
  loop_i = Loop i in [0, 2) {
  Block_i:
    cp = TensorCopy on DVE %t_set[block=0, offset=32*i, ap=[[64,128],[1,32]]] f32 -> %ring_set[block=i, ap=[[32,128],[1,32]]] f32
    back = TensorScalar on DVE %ring_set[block=i, ap=[[32,128],[1,32]]] f32 -> %t_set[block=0, offset=32*i, ap=[[64,128],[1,32]]] f32 ` + incAttrs + `
  }
  st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
}
`
	const placed = "addr=0 allocated"
	for _, tc := range []struct {
		name        string
		tPlace      string
		ringClass   string
		ringBPlace  string
		realloc     bool
		wantErr     string // "" : Unroll succeeds
		notCheckErr bool   // the error comes from tensorSplitGrid
	}{
		{"all allocated", placed, "NeuronSBTensor", "addr=1536 allocated", true, "", false},
		{"t unallocated", "", "NeuronSBTensor", "addr=1536 allocated", true,
			"function main, instruction ld (Load): operand 1: check_in_place: location t is not allocated", false},
		{"t unallocated, no realloc", "", "NeuronSBTensor", "addr=1536 allocated", false, "", false},
		{"LoopTensor block unallocated", placed, "LoopTensor", "", true,
			"function main, instruction cp.1 (TensorCopy): operand 1: check_in_place: location ring_set_sub1 is not allocated", false},
		{"LoopTensor block allocated", placed, "LoopTensor", "addr=1536 allocated", true, "", false},
		{"block unallocated", placed, "NeuronSBTensor", "", true,
			"tensor ring_set: block 1 (location ring_b): mem.isAllocated() does not hold", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.NewReplacer("T_PLACE", tc.tPlace, "RING_CLASS", tc.ringClass, "RING_B_PLACE", tc.ringBPlace).Replace(src)
			m := parse(t, text)
			if tc.wantErr == "" {
				passtest.Check(t, m, func(m *bir.Module) error {
					_, err := Unroll(m, UnrollOptions{Realloc: tc.realloc})
					return err
				})
				if err := checkInPlace(m.Main()); tc.realloc && err != nil {
					t.Errorf("checkInPlace after a successful unroll: %v", err)
				}
				return
			}
			_, err := Unroll(m, UnrollOptions{Realloc: tc.realloc})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Unroll = %v, want an error containing %q", err, tc.wantErr)
			}
			if got := strings.Contains(err.Error(), "check_in_place"); got == tc.notCheckErr {
				t.Errorf("error %q: from check_in_place %v, want %v", err, got, !tc.notCheckErr)
			}
		})
	}
}

// env.substPred, the partial evaluation of predicates that keep an axis of
// a loop that is not unrolled: bound axes become constants (a constraint
// that becomes false makes the predicate false, one that becomes true
// disappears), and axes of re-created loops are renamed to the new axis.
func TestEnv_SubstPred(t *testing.T) {
	const i, j, k, k2, j2 = affine.Axis(0), affine.Axis(1), affine.Axis(2), affine.Axis(3), affine.Axis(4)
	v := affine.Var
	c := affine.Const
	iAndK := affine.And(affine.GE(v(i), c(1)), affine.GE(v(k), c(1)))
	for _, tc := range []struct {
		name   string
		p      affine.Pred
		bind   map[affine.Axis]int64
		rename map[affine.Axis]affine.Axis
		want   affine.Pred
	}{
		{"bound constraint false", iAndK, map[affine.Axis]int64{i: 0}, nil, affine.Pred{False: true}},
		{"bound constraint true", iAndK, map[affine.Axis]int64{i: 2}, nil, affine.GE(v(k), c(1))},
		{"bound and renamed", iAndK, map[affine.Axis]int64{i: 2}, map[affine.Axis]affine.Axis{k: k2}, affine.GE(v(k2), c(1))},
		{"one constraint over both", affine.GE(affine.Add(v(i), v(k)), c(3)), map[affine.Axis]int64{i: 1}, map[affine.Axis]affine.Axis{k: k2}, affine.GE(v(k2), c(2))},
		{"two renamed axes", affine.GE(affine.Add(v(j), affine.Scale(v(k), 2)), c(1)), nil, map[affine.Axis]affine.Axis{j: j2, k: k2}, affine.GE(affine.Add(v(j2), affine.Scale(v(k2), 2)), c(1))},
		{"all bound, true", affine.And(affine.GE(v(i), c(0)), affine.EQ(affine.Mod(v(i), 2), c(0))), map[affine.Axis]int64{i: 2}, nil, affine.True()},
		{"all bound, false", affine.EQ(affine.Mod(v(i), 2), c(0)), map[affine.Axis]int64{i: 3}, nil, affine.Pred{False: true}},
		{"nothing bound or renamed", affine.GE(v(k), c(1)), map[affine.Axis]int64{j: 5}, nil, affine.GE(v(k), c(1))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(5)
			for a, x := range tc.bind {
				e.bind(a, x)
			}
			for a, r := range tc.rename {
				e.rename[a] = r
			}
			got := e.substPred(tc.p)
			if got.False != tc.want.False || got.Key() != tc.want.Key() {
				t.Errorf("substPred(%s) = %s, want %s", tc.p, got, tc.want)
			}
			for a := range tc.rename {
				if got.Uses(a) {
					t.Errorf("substPred(%s) = %s still uses renamed axis %d", tc.p, got, a)
				}
			}
		})
	}
}

// A dependency predicate partially evaluated on the pass path: FullUnroll
// level 1 unrolls the static loop i and re-creates the dynamic loop k per
// iteration with a fresh axis. sc's edge to cp holds where i >= 1 and
// k >= 1: in iteration 0 it is dropped, in iteration 1 it is kept with
// the predicate k' >= 1 over the new axis of dloop.1.
func TestFullUnroll_DepPredPartiallyEvaluated(t *testing.T) {
	src := `module arch=trn2

func @main attributes=[need_unroll] {
  tensor %x_set: f32[128, 96] kind=Input
    loc %x: Input 128x384
  tensor %z_set: f32[128, 96] kind=Output
    loc %z: Output 128x384
  tensor %t_set: f32[128, 96] class=NeuronSBTensor
    loc %t: SB 128x384
  tensor %ring_set: f32[128, 24] class=NeuronSBTensor blocks=2
    loc %ring: SB 128x96

Block1:
  ld = Load %x[ap=[[96,128],[1,96]]] f32 -> %t[ap=[[96,128],[1,96]]] f32
  loop_i = Loop i in [0, 2) {
  Block_i:
    dloop = DynamicForLoop k in [0, 2) 0 i32, 2 i32, 1 i32 {
    dbody:
      cp = TensorCopy on DVE %t_set[block=0, offset=24*k + 48*i, ap=[[96,128],[1,24]]] f32 -> %ring_set[block=k, ap=[[24,128],[1,24]]] f32
      sc = TensorScalar on DVE %ring_set[block=k, ap=[[24,128],[1,24]]] f32 -> %t_set[block=0, offset=24*k + 48*i, ap=[[96,128],[1,24]]] f32 {op0="mult", const0=3.0, reverse0=false, op1="bypass", const1=0.0, reverse1=false} deps [FLOW cp if (i >= 1 and k >= 1)]
    }
  }
  st = Save %t[ap=[[96,128],[1,96]]] f32 -> %z[ap=[[96,128],[1,96]]] f32
}
`
	m := parse(t, src)
	dl, _ := m.Main().InstByName("dloop")
	k := m.Main().Loop(dl).Axis
	passtest.Check(t, m, func(m *bir.Module) error {
		_, err := FullUnroll(m, FullUnrollOptions{Level: 1})
		return err
	})
	f := m.Main()
	inst := func(name string) bir.InstID {
		id, ok := f.InstByName(name)
		if !ok {
			t.Fatalf("no instruction %s after the unroll:\n%s", name, bir.Format(m))
		}
		return id
	}
	if d := f.Deps(inst("sc.0")); len(d) != 0 {
		t.Errorf("sc.0 has %d dependencies, want none (i >= 1 is false in iteration 0)", len(d))
	}
	d := f.Deps(inst("sc.1"))
	if len(d) != 1 || d[0].On != inst("cp.1") || d[0].Pred == 0 {
		t.Fatalf("sc.1 dependencies %+v, want one predicated edge to cp.1", d)
	}
	k2 := f.Loop(inst("dloop.1")).Axis
	if k2 == k {
		t.Fatalf("dloop.1 kept the original axis")
	}
	if got, want := m.Pred(d[0].Pred), affine.GE(affine.Var(k2), affine.Const(1)); got.Key() != want.Key() {
		t.Errorf("sc.1's edge predicate %s, want %s over dloop.1's axis", got, want)
	}
}
