package dma

import (
	"fmt"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// cceModule sums n slices [8, 16] of input x [n, 8, 16] with one CCE
// DMACopy into an SBUF tile (scales (s mod 4 + 1)/4 when withConst) and
// saves it. Even sources come straight from DRAM, odd ones through SBUF.
func cceModule(t testing.TB, n int, withConst bool, dt bir.Dtype) *bir.Module {
	t.Helper()
	m, b := newB(t)
	x := b.Input("x", dt, int64(n), 8, 16)
	z := b.Output("z", dt, 8, 16)
	sum := b.SBUF("sum", dt, 8, 16)
	st := b.SBUF("stage", dt, 8, 16*int64(n))
	srcs := make([]bir.Operand, n)
	scales := make([]float64, n)
	for s := range srcs {
		src := x.AP(int64(s)*128, [2]int64{16, 8}, [2]int64{1, 16})
		if s%2 == 1 {
			dst := st.AP(int64(s)*16, [2]int64{16 * int64(n), 8}, [2]int64{1, 16})
			b.Load(fmt.Sprint("stage", s), dst, src)
			src = dst
		}
		srcs[s] = src
		scales[s] = float64(s%4+1) / 4
	}
	if withConst {
		b.CCECopy("cce", sum.All(), srcs, scales)
	} else {
		b.Inst(bir.OpDMACopy, "cce", bir.EngUnassigned, srcs, []bir.Operand{sum.All()}, bir.Attrs("mode", "CCE", "cce_op", "add"))
	}
	b.Save("st", z.All(), sum.All())
	done(t, b)
	return m
}

func runCCE(a *arch.Model) func(*bir.Module) error {
	return func(m *bir.Module) error {
		_, err := LegalizeCCEDMA(m, Options{Arch: a})
		return err
	}
}

// cceChain returns the CCE DMACopys of main in program order.
func cceChain(m *bir.Module) []bir.InstID {
	f := m.Main()
	var out []bir.InstID
	f.Walk(func(i bir.InstID) bool {
		if IsCCEDMA(f, i) {
			out = append(out, i)
		}
		return true
	})
	return out
}

// The thresholds, as seed 001 gives them: the entry test counts arguments
// + constants, the split loop "while (count(I.sources) > archMax)" moves
// archMax sources into each clone and appends one partial, and every piece
// has num_arguments() <= MaxCceDmaSource.
func TestLegalizeCCEDMA_Thresholds(t *testing.T) {
	const max = 16
	for _, tc := range []struct {
		name      string
		n         int
		withConst bool
		chain     int // CCE DMACopys after the pass
		split     int // the "split" counter
	}{
		{"max, no constants", max, false, 1, 0},
		{"max+1, no constants", max + 1, false, 2, 1},
		{"3max+1, no constants", 3*max + 1, false, 4, 1}, // 49 -> 34 -> 19 -> 4
		{"max with constants", max, true, 1, 0},          // 16 + 16 > 16, but 16 arguments fit
		{"half max with constants", max / 2, true, 1, 0},
		{"max+1 with constants", max + 1, true, 2, 1},
		{"20 sources with constants", 20, true, 2, 1}, // the seed's loop: 16 in the clone, 4 + 1 remain
		{"40 sources with constants", 40, true, 3, 1}, // 40 -> 25 -> 10
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = max })
			m := cceModule(t, tc.n, tc.withConst, bir.Float32)
			var st CCEStats
			passtest.Check(t, m, func(m *bir.Module) error {
				var err error
				st, err = LegalizeCCEDMA(m, Options{Arch: a})
				return err
			}, passtest.Arch(a), passtest.InputsFunc(exactInputs), passtest.Stage(verify.StageCCELegal))
			chain := cceChain(m)
			if len(chain) != tc.chain {
				t.Fatalf("%d CCE DMACopys, want %d:\n%s", len(chain), tc.chain, bir.Format(m))
			}
			if st.CCE != 1 || st.Split != tc.split || st.Partials != tc.chain-1 {
				t.Fatalf("stats %+v: want 1 CCE copy, %d split, %d partials", st, tc.split, tc.chain-1)
			}
			f := m.Main()
			for k, i := range chain {
				nArgs := int(f.Inst(i).NIns)
				if nArgs > max {
					t.Fatalf("%s: %d arguments > %d", f.InstName(i), nArgs, max)
				}
				if tc.withConst && len(mustConstants(t, f, i)) != nArgs {
					t.Fatalf("%s: %d constants for %d arguments", f.InstName(i), len(mustConstants(t, f, i)), nArgs)
				}
				if k < len(chain)-1 && nArgs != max {
					t.Fatalf("clone %s takes %d sources, want MaxCceDmaSource = %d", f.InstName(i), nArgs, max)
				}
				want := "cce"
				if k < len(chain)-1 {
					want = fmt.Sprint("cce_imm_output_", k)
					out := f.Outs(i)[0]
					lc := f.Loc(out.Loc())
					if lc.Name != want || lc.OutputKind != PartialOutputKind || lc.Type != bir.MemDRAM {
						t.Fatalf("partial output of %s: location %s kind %d in %s, want %s kind 7 in DRAM", f.InstName(i), lc.Name, lc.OutputKind, lc.Type, want)
					}
				}
				if f.InstName(i) != want {
					t.Fatalf("CCE DMACopy %d is %s, want %s", k, f.InstName(i), want)
				}
			}
			if !f.HasAttribute(CCECompletedAttr) {
				t.Fatalf("main lacks %s", CCECompletedAttr)
			}
		})
	}
}

func mustConstants(t testing.TB, f *bir.Function, i bir.InstID) []float64 {
	t.Helper()
	v, ok := f.Attrs(i).Get("constants")
	if !ok || v.Kind != bir.ValList {
		t.Fatalf("%s has no constants list", f.InstName(i))
	}
	out := make([]float64, len(v.L))
	for k, e := range v.L {
		out[k], _ = e.AsFloat()
	}
	return out
}

// The scale vector is split in lockstep with the sources; partials carry
// scale 1.0 on the remainder.
func TestLegalizeCCEDMA_ScalesLockstep(t *testing.T) {
	a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 4 }) // 4 sources with their scales per piece
	m := cceModule(t, 10, true, bir.Float32)
	f := m.Main()
	orig := f.Ins(inst(t, m, "cce"))
	src := append([]bir.Operand(nil), orig...)
	passtest.Check(t, m, runCCE(a), passtest.Arch(a), passtest.InputsFunc(exactInputs), passtest.Stage(verify.StageCCELegal))
	chain := cceChain(m)
	// 10 sources, 4 per piece: clone0 s0-3, clone1 s4-7, remainder s8 s9 p0 p1.
	want := [][]float64{{0.25, 0.5, 0.75, 1}, {0.25, 0.5, 0.75, 1}, {0.25, 0.5, 1, 1}}
	if len(chain) != len(want) {
		t.Fatalf("%d pieces, want %d:\n%s", len(chain), len(want), bir.Format(m))
	}
	for k, i := range chain {
		c := mustConstants(t, f, i)
		if fmt.Sprint(c) != fmt.Sprint(want[k]) {
			t.Fatalf("%s: constants %v, want %v", f.InstName(i), c, want[k])
		}
		ins := f.Ins(i)
		for j := 0; j < len(ins) && k < 2; j++ {
			if ins[j] != src[4*k+j] {
				t.Fatalf("%s source %d is not original source %d", f.InstName(i), j, 4*k+j)
			}
		}
	}
	rem := f.Ins(chain[2])
	if rem[0] != src[8] || rem[1] != src[9] || f.Loc(rem[2].Loc()).Name != "cce_imm_output_0" || f.Loc(rem[3].Loc()).Name != "cce_imm_output_1" {
		t.Fatalf("remainder sources %v: want s8, s9, cce_imm_output_0, cce_imm_output_1", rem)
	}
}

// The kernel's reduction across dtypes: float32 chains are exact on its
// inputs; bfloat16 partials are exact when every partial sum fits 8
// significant bits (two sources of multiples of 1/64 do).
func TestLegalizeCCEDMA_Dtypes(t *testing.T) {
	for _, dt := range []bir.Dtype{bir.Float32, bir.BFloat16, bir.Float16} {
		t.Run(dt.String(), func(t *testing.T) {
			a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 2 })
			m := cceModule(t, 5, false, dt)
			passtest.Check(t, m, runCCE(a), passtest.Arch(a), passtest.InputsFunc(exactInputs), passtest.Stage(verify.StageCCELegal))
			if n := len(cceChain(m)); n != 4 {
				t.Fatalf("%d pieces, want 4 (5 sources, 2 per piece)", n)
			}
		})
	}
}

func TestLegalizeCCEDMA_Errors(t *testing.T) {
	a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 4 })
	t.Run("dtype", func(t *testing.T) {
		m := cceModule(t, 6, false, bir.Float32)
		f := m.Main()
		i := inst(t, m, "cce")
		o := f.Ins(i)[3]
		o.Dtype = bir.Int32
		f.SetOperand(i, 3, o)
		_, err := LegalizeCCEDMA(m, Options{Arch: a})
		wantError(t, err, "instruction cce (DMACopy): Input AP dtype does not match output AP dtype: source 3 is int32, the destination is float32")
	})
	t.Run("shape", func(t *testing.T) {
		m := cceModule(t, 6, false, bir.Float32)
		f := m.Main()
		i := inst(t, m, "cce")
		o := f.Ins(i)[2]
		o.Pattern = m.InternPattern(bir.Pattern{{Step: 16, Num: 4}, {Step: 1, Num: 32}})
		f.SetOperand(i, 2, o)
		_, err := LegalizeCCEDMA(m, Options{Arch: a})
		wantError(t, err, "Input AP shape does not match output AP shape: source 2 is [4 32], the destination is [8 16]")
	})
	t.Run("arch too small", func(t *testing.T) {
		m := cceModule(t, 3, true, bir.Float32)
		_, err := LegalizeCCEDMA(m, Options{Arch: trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 1 })})
		wantError(t, err, "3 arguments exceed MaxCceDmaSource = 1", "the split needs MaxCceDmaSource >= 2")
	})
	t.Run("constants count", func(t *testing.T) {
		m := cceModule(t, 6, true, bir.Float32)
		f := m.Main()
		i := inst(t, m, "cce")
		f.SetAttr(i, "constants", bir.Floats(1, 1))
		_, err := LegalizeCCEDMA(m, Options{Arch: a})
		wantError(t, err, "constants has 2 entries for 6 sources")
	})
}

// Every function gets the completion attribute; the verifier then checks
// checkCCEDMALegality on it even without the stage bit.
func TestLegalizeCCEDMA_CompletedAttribute(t *testing.T) {
	a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 4 })
	m := cceModule(t, 9, false, bir.Float32)
	other := bir.NewBuilder(m, "other")
	x := other.Input("y", bir.Float32, 8, 16)
	s := other.SBUF("s", bir.Float32, 8, 16)
	other.Inst(bir.OpDMACopy, "cce2", bir.EngUnassigned, []bir.Operand{x.All(), x.All(), x.All(), x.All(), x.All()}, []bir.Operand{s.All()}, bir.Attrs("mode", "CCE"))
	done(t, other)
	st, err := LegalizeCCEDMA(m, Options{Arch: a})
	if err != nil {
		t.Fatal(err)
	}
	if st.CCE != 2 || st.Split != 2 || st.Partials != 3 {
		t.Fatalf("stats %+v: want 2 CCE copies split, 3 partials", st)
	}
	for _, f := range m.Funcs {
		if !f.HasAttribute(CCECompletedAttr) {
			t.Fatalf("function %s lacks %s", f.Name, CCECompletedAttr)
		}
	}
	mustVerify(t, m, a, 0) // the attribute alone enables cce-sources
	// Undo the split on "other": the attribute makes the verifier object.
	f := m.Func("other")
	i, _ := f.InstByName("cce2")
	f.SetArgs(i, []bir.Operand{x.All(), x.All(), x.All(), x.All(), x.All()}, f.Outs(i))
	if err := verify.Module(m, verify.Options{Arch: a}); err == nil {
		t.Fatalf("the verifier accepts 5 sources on a function marked %s with MaxCceDmaSource 4", CCECompletedAttr)
	}
}

func TestLegalizeCCEDMA_Deps(t *testing.T) {
	a := trn2(t, func(a *arch.Model) { a.MaxCceDmaSource = 4 })
	m := cceModule(t, 9, false, bir.Float32)
	f := m.Main()
	i := inst(t, m, "cce")
	ld := inst(t, m, "stage1")
	f.AddDep(i, bir.Dep{On: ld, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	passtest.Check(t, m, runCCE(a), passtest.Arch(a), passtest.InputsFunc(exactInputs), passtest.Stage(verify.StageCCELegal))
	chain := cceChain(m)
	for _, c := range chain[:len(chain)-1] {
		if d := f.Deps(c); len(d) == 0 || d[0].On != ld {
			t.Fatalf("%s deps %v: want the original's dependency on stage1", f.InstName(c), d)
		}
	}
	onClones := 0
	for _, d := range f.Deps(chain[len(chain)-1]) {
		for _, c := range chain[:len(chain)-1] {
			if d.On == c && d.Kind == bir.DepFlow {
				onClones++
			}
		}
	}
	// 9 sources, 4 per piece: p0 (s0-3), p1 (s4-7), then s8 p0 p1 fits.
	if onClones != 2 {
		t.Fatalf("the remainder depends on %d clones, want 2: %v", onClones, f.Deps(chain[len(chain)-1]))
	}
}
