package semaphores_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/semaphores"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// oneCoreOfTwo lets one core's program of a two-core kernel run alone
// in the sequential interpreter: it reads what the other core writes
// (never written here; the same sentinel bytes before and after a pass).
var oneCoreOfTwo = passtest.InterpOptions(interp.Options{AllowUninitReads: true})

// program returns f's instructions in program order, by name.
func program(f *bir.Function) []string {
	var out []string
	f.Walk(func(i bir.InstID) bool {
		out = append(out, f.InstName(i))
		return true
	})
	return out
}

// TestInsertCoreBarrier_Exchange: on core 0's program of the two-core
// exchange kernel the pass puts one CoreBarrier right before the first
// read of the shared buffer s (RAW: the other core wrote its half of s
// before) and one after the last write to the shared outputs
// (insertCoreBarrierOnIO), both on GpSimd listing cores 0 and 1; the ids
// are the same on core 1's program. A single-core kernel gets none.
func TestInsertCoreBarrier_Exchange(t *testing.T) {
	for c := range 2 {
		inst, err := kernels.Instantiate("exchange:rows=256,cols=64,cores=2,core=" + string(rune('0'+c)))
		if err != nil {
			t.Fatal(err)
		}
		m := inst.Module
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error {
			var err error
			rep, err = pipeline.Table.Run(m, pass.Config{Passes: upTo("insert_core_barrier")})
			return err
		}, passtest.Stage(stageOf(upTo("insert_core_barrier"))), oneCoreOfTwo)
		if n := rep.Result("insert_core_barrier").Counter("core_barriers"); n != 2 {
			t.Fatalf("core %d: %d barriers, want 2", c, n)
		}
		f := m.Main()
		prog := program(f)
		firstRead := slices.IndexFunc(prog, func(s string) bool { return strings.HasPrefix(s, "load_s") })
		lastWrite := -1
		for k, s := range prog {
			if strings.HasPrefix(s, "save_s") {
				lastWrite = k
			}
		}
		if firstRead < 1 || prog[firstRead-1] != "core_barrier0" || lastWrite > firstRead {
			t.Errorf("core %d: program %v: want core_barrier0 right before the first load_s, after every save_s", c, prog)
		}
		if prog[len(prog)-1] != "core_barrier1" {
			t.Errorf("core %d: program ends with %s, want core_barrier1", c, prog[len(prog)-1])
		}
		i, _ := f.InstByName("core_barrier0")
		if in := f.Inst(i); in.Op != bir.OpCoreBarrier || in.Engine != bir.EngPool || f.Attrs(i).Int("id", -1) != 0 || !strings.Contains(f.Attrs(i).Key(), `"cores":[0,1]`) {
			t.Errorf("core %d: core_barrier0 = %s on %s %s", c, f.OpName(i), in.Engine, f.Attrs(i).Key())
		}
	}
	inst, _ := kernels.Instantiate("exchange:rows=256,cols=64")
	rep, err := pipeline.Table.Run(inst.Module, pass.Config{Passes: upTo("insert_core_barrier")})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.Result("insert_core_barrier").Counter("core_barriers"); n != 0 {
		t.Errorf("single-core exchange: %d barriers, want none", n)
	}
}

// TestInsertPTCOMFlat_Exchange: one PTCOM per output (s, out) on the Sync
// engine, depending on every last write of its output (each tile's save,
// in the pieces the DMA passes cut it into: none is overwritten) and placed right before the closing CoreBarrier,
// which depends on both.
func TestInsertPTCOMFlat_Exchange(t *testing.T) {
	inst, err := kernels.Instantiate("exchange:rows=256,cols=64,cores=2,core=1")
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	var rep *pass.Report
	passtest.Check(t, m, func(m *bir.Module) error {
		var err error
		rep, err = pipeline.Table.Run(m, pass.Config{Passes: upTo("insert_ptcom_flat")})
		return err
	}, passtest.Stage(stageOf(upTo("insert_ptcom_flat"))), oneCoreOfTwo)
	if n := rep.Result("insert_ptcom_flat").Counter("ptcoms"); n != 2 {
		t.Fatalf("%d PTCOMs, want 2", n)
	}
	f := m.Main()
	prog := program(f)
	cb, _ := f.InstByName("core_barrier1")
	cbDeps := map[bir.InstID]bool{}
	for _, d := range f.Deps(cb) {
		cbDeps[d.On] = true
	}
	for _, out := range []string{"s", "out"} {
		name := "ptcom_" + out + "_set"
		p, ok := f.InstByName(name)
		if !ok {
			t.Fatalf("no %s in %v", name, prog)
		}
		if f.Inst(p).Op != bir.OpEventSemaphore || f.Inst(p).Engine != bir.EngSP || f.Attrs(p).Str(semaphores.PTCOMAttr, "") != out+"_set" {
			t.Errorf("%s: %s on %s %s", name, f.OpName(p), f.Inst(p).Engine, f.Attrs(p).Key())
		}
		var on []string
		for _, d := range f.Deps(p) {
			on = append(on, f.InstName(d.On))
		}
		slices.Sort(on)
		var want []string // every write to the output: none is overwritten
		for _, n := range prog {
			if strings.HasPrefix(n, "save_"+out+"1.") {
				want = append(want, n)
			}
		}
		slices.Sort(want)
		if len(want) == 0 || !slices.Equal(on, want) {
			t.Errorf("%s depends on %v, want the last writes %v", name, on, want)
		}
		if !cbDeps[p] {
			t.Errorf("core_barrier1 does not depend on %s", name)
		}
		if k := slices.Index(prog, name); k < 0 || slices.Index(prog, "core_barrier1") < k {
			t.Errorf("%s is not before core_barrier1 in %v", name, prog)
		}
	}
}

// TestAssignTriggerEngine_Gate: without the gate every static DMA keeps
// its default trigger (trn1: the Sync engine; trn2's hardware-DGE DMAs:
// Sync for DGE 0, Scalar for DGE 1); with it is_better_trigger chooses
// (on trn1 also other engines, on trn2 Sync or Scalar only), logs
// "Assigned trigger engine for ", and the result verifies and runs
// race-free concurrently.
func TestAssignTriggerEngine_Gate(t *testing.T) {
	for _, target := range []string{"trn1", "trn2"} {
		for _, gate := range []bool{false, true} {
			inst, err := kernels.Instantiate("tensor_add:rows=512,cols=256,arch=" + target)
			if err != nil {
				t.Fatal(err)
			}
			m := inst.Module
			if gate {
				m.Config.Options["enable-hwdge-trigger-engine-scheduling"] = "true"
			}
			rep, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true})
			if err != nil {
				t.Fatal(err)
			}
			f := m.Main()
			by := map[bir.Engine]int{}
			f.Walk(func(i bir.InstID) bool {
				if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
					tr := f.Sync.Trigger[i]
					by[tr]++
					if target == "trn2" && tr != bir.EngSP && tr != bir.EngAct {
						t.Errorf("%s: hardware-DGE DMA %s fired by %s: want Sync or Scalar", target, f.InstName(i), tr)
					}
					if !gate && tr != semaphores.DefaultTrigger(f, i, mustModel(t, m)) {
						t.Errorf("%s without the gate: %s fired by %s, want the default", target, f.InstName(i), tr)
					}
				}
				return true
			})
			res := rep.Result("assign_trigger_engine")
			logged := slices.ContainsFunc(res.Log, func(l string) bool { return strings.HasPrefix(l, "Assigned trigger engine for ") })
			if gate != logged || gate != (res.Skipped == "") {
				t.Errorf("%s gate %v: skipped %q, logged %v", target, gate, res.Skipped, logged)
			}
			if gate && target == "trn1" && len(by) < 2 {
				t.Errorf("trn1 with the gate: triggers %v, want is_better_trigger to use more than one engine", by)
			}
			in := kernels.InputsFor(inst.Kernel, m, 1)
			want, err := interp.Run(m, in, interp.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sweep(t, []*bir.Module{m}, in, want, 2)
			if err := verify.Module(m, verify.Options{Arch: mustModel(t, m), Stage: verify.StageSynchronized}); err != nil {
				t.Error(err)
			}
		}
	}
}

func mustModel(t *testing.T, m *bir.Module) *arch.Model {
	t.Helper()
	model, err := arch.ForModule(m)
	if err != nil {
		t.Fatal(err)
	}
	return model
}
