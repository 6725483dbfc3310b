package dma

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// table is a pass table holding the three passes in the seeds' order.
func table(t testing.TB) *pass.Table {
	t.Helper()
	tb := &pass.Table{Passes: []pass.Pass{LowerGenericIndirectPass, LegalizeStridedDMAPass, LegalizeCCEDMAPass}}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestPassTable_Entries(t *testing.T) {
	tb := table(t)
	for _, want := range []struct {
		name     string
		order    int
		gate     string
		produces verify.Stage
	}{
		{IndirectName, 10, "", verify.StageIndirectLowered},
		{StridedName, 18, "gen-stride-dma", verify.StageStridedLegal},
		{CCEName, 19, "", verify.StageCCELegal},
	} {
		p, ok := tb.Lookup(want.name)
		if !ok || p.Order != want.order || p.Gate != want.gate || p.Produces != want.produces || !p.Default || p.Requires != 0 {
			t.Fatalf("%s: %+v, want order %d gate %q produces %v default true", want.name, p, want.order, want.gate, want.produces)
		}
	}
}

// allThree builds a module with work for every pass: a gather, a
// partition-strided load and a CCE copy of 20 sources.
func allThree(t testing.TB) *bir.Module {
	t.Helper()
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, 7, 16)
	ix := b.Input("idx", bir.Int32, 32, 1)
	x := b.Input("x", bir.Float32, 64, 256)
	z := b.Output("z", bir.Float32, 32, 16)
	zt := b.Output("zt", bir.Float32, 32, 64)
	zc := b.Output("zc", bir.Float32, 32, 16)
	it := b.SBUF("it", bir.Int32, 32, 1)
	g := b.SBUF("g", bir.Float32, 32, 16)
	tile := b.SBUF("tile", bir.Float32, 32, 64)
	sum := b.SBUF("sum", bir.Float32, 32, 16)
	b.Load("ld_idx", it.All(), ix.All())
	b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{tab.AP(0, [2]int64{0, 32}, [2]int64{1, 16}), it.All()},
		[]bir.Operand{g.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
	b.Save("st", z.All(), g.All())
	b.Load("ld_t", tile.All(), x.AP(0, [2]int64{1, 32}, [2]int64{256, 64}))
	b.Save("st_t", zt.All(), tile.All())
	srcs := make([]bir.Operand, 20)
	scales := make([]float64, 20)
	for s := range srcs {
		srcs[s] = x.AP(int64(s)*512, [2]int64{16, 32}, [2]int64{1, 16})
		scales[s] = 0.5
	}
	b.CCECopy("cce", sum.All(), srcs, scales)
	b.Save("st_c", zc.All(), sum.All())
	done(t, b)
	return m
}

func allThreeInputs(m *bir.Module, seed int64) map[string]*interp.Tensor {
	in := exactInputs(m, seed)
	in["idx"] = indices(32, 7, -1)["idx"]
	return in
}

// The gate: legalize_strided_dma runs in the default pipeline only with
// gen-stride-dma; the other two always run, in the order 10 -> 18 -> 19.
func TestPassTable_Gate(t *testing.T) {
	for _, gate := range []bool{false, true} {
		t.Run(fmt.Sprint("gen-stride-dma=", gate), func(t *testing.T) {
			tb := table(t)
			m := allThree(t)
			if gate {
				m.Config.Options["gen-stride-dma"] = "true"
			}
			var rep *pass.Report
			passtest.Check(t, m, func(m *bir.Module) error {
				var err error
				rep, err = tb.Run(m, pass.Config{})
				return err
			}, passtest.InputsFunc(allThreeInputs), passtest.Stage(verify.StageIndirectLowered|verify.StageCCELegal))
			var ran []string
			for _, r := range rep.Passes {
				if r.Skipped == "" {
					ran = append(ran, r.Name)
				}
			}
			want := []string{IndirectName, CCEName}
			if gate {
				want = []string{IndirectName, StridedName, CCEName}
			}
			if strings.Join(ran, " ") != strings.Join(want, " ") {
				t.Fatalf("ran %v, want %v", ran, want)
			}
			if got := opCount(m, bir.OpTensorCopy) == 1; got != gate {
				t.Fatalf("strided load rewritten %v, want %v:\n%s", got, gate, bir.Format(m))
			}
			if !gate {
				if r := rep.Result(StridedName); r == nil || !strings.Contains(r.Skipped, "gen-stride-dma") {
					t.Fatalf("report for %s: %+v, want skipped by the gate", StridedName, r)
				}
			} else if c := rep.Result(StridedName).Counter("rewritten"); c != 1 {
				t.Fatalf("counter rewritten = %d, want 1", c)
			}
			if opCount(m, bir.OpIndirectLoad) != 1 || len(cceChain(m)) != 2 {
				t.Fatalf("want the gather lowered and the CCE copy split in 2 (20 sources with scales, 16 per piece):\n%s", bir.Format(m))
			}
		})
	}
}

// Errors reach the pass manager as *pass.Error naming the pass and the
// function, with the *dma.Error inside.
func TestPassTable_Errors(t *testing.T) {
	m := gather{P: 8, V: 5, D: 4, dt: bir.Float32}.module(t)
	f := m.Main()
	f.SetAttr(inst(t, m, "gather"), "indirect_dims", bir.Ints(3))
	tb := table(t)
	_, err := tb.Run(m, pass.Config{NoVerify: true})
	var pe *pass.Error
	var de *Error
	if !errors.As(err, &pe) || !errors.As(err, &de) {
		t.Fatalf("error %v (%T): want a *pass.Error wrapping a *dma.Error", err, err)
	}
	want := "pass lower_generic_indirect, function main: instruction gather (GenericIndirectLoad): " + MsgTargetFlattened
	if !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %q, want prefix %q", err, want)
	}
}

// The skeleton: "main" first, then the other functions in module order,
// recursing into Loop, DynamicForLoop and DoWhile bodies.
func TestVisitor_Order(t *testing.T) {
	m := bir.NewModule("trn2")
	mk := func(b *bir.Builder, name string) (src, dst bir.Operand) {
		x := b.Input("x"+name, bir.Float32, 64, 256)
		tile := b.SBUF("tile"+name, bir.Float32, 32, 64)
		return x.AP(0, [2]int64{1, 32}, [2]int64{256, 64}), tile.All()
	}
	aux := bir.NewBuilder(m, "aux") // before main in m.Funcs
	s, d := mk(aux, "a")
	aux.Load("ld_aux", d, s)
	done(t, aux)
	b := bir.NewBuilder(m, "main")
	s, d = mk(b, "m")
	b.Load("ld_main", d, s)
	f := b.F
	for k, op := range []bir.Opcode{bir.OpDynamicForLoop, bir.OpDoWhile, bir.OpLoop} {
		l, _ := f.NewLoop(op, fmt.Sprint("loop", k), fmt.Sprint("i", k), 0, 2, 1)
		f.Append(b.Block(), l)
		body := f.NewBlock(fmt.Sprint("body", k), l)
		ld := f.NewInst(bir.OpLoad, fmt.Sprint("ld_loop", k), bir.EngUnassigned, []bir.Operand{s}, []bir.Operand{d}, nil)
		f.Append(body, ld)
	}
	done(t, b)
	st, err := LegalizeStridedDMA(m, Options{Arch: trn2(t)})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rewritten != 5 {
		t.Fatalf("rewritten %d, want 5", st.Rewritten)
	}
	want := map[string]string{"main": "ld_main-copy1 ld_loop0-copy2 ld_loop1-copy3 ld_loop2-copy4", "aux": "ld_aux-copy5"}
	for _, fn := range m.Funcs {
		var got []string
		fn.Walk(func(i bir.InstID) bool {
			if fn.Inst(i).Op == bir.OpTensorCopy {
				got = append(got, fn.InstName(i))
			}
			return true
		})
		if strings.Join(got, " ") != want[fn.Name] {
			t.Fatalf("function %s: copies %v, want %s", fn.Name, got, want[fn.Name])
		}
	}
	// The copies sit right after their loads inside the loop bodies.
	for k := 0; k < 3; k++ {
		body := f.Block(f.Loop(inst(t, m, fmt.Sprint("loop", k))).Body[0])
		if len(body.Insts) != 2 || f.InstName(body.Insts[0]) != fmt.Sprint("ld_loop", k) || f.InstName(body.Insts[1]) != fmt.Sprintf("ld_loop%d-copy%d", k, k+2) {
			t.Fatalf("loop %d body: %v", k, body.Insts)
		}
	}
}

// Every pass on a module it has nothing to do in: the module text does not
// change (bar the CCE completion attribute).
func TestPasses_NothingToDo(t *testing.T) {
	m := bir.GenStraightLine(400)
	before := bir.Format(m)
	a := arch.All()[2]
	if _, err := LowerGenericIndirect(m, Options{Arch: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := LegalizeStridedDMA(m, Options{Arch: a}); err != nil {
		t.Fatal(err)
	}
	if _, err := LegalizeCCEDMA(m, Options{Arch: a}); err != nil {
		t.Fatal(err)
	}
	after := strings.Replace(bir.Format(m), " attributes=["+CCECompletedAttr+"]", "", 1)
	if after != before {
		t.Fatalf("the passes changed a module without work for them")
	}
}
