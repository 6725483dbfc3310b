package semaphores_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/semaphores"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/stream"
	"github.com/narwhal-compiler/narwhal/verify"
)

// upTo returns the default pipeline's passes (gates off) up to and
// including pass name, in table order.
func upTo(name string) []string {
	var out []string
	for _, p := range pipeline.Table.Passes {
		if p.Default && p.Gate == "" {
			out = append(out, p.Name)
		}
		if p.Name == name {
			break
		}
	}
	return out
}

// stageOf returns the stages the passes named produce.
func stageOf(names []string) verify.Stage {
	var s verify.Stage
	for _, n := range names {
		p, _ := pipeline.Table.Lookup(n)
		s |= p.Produces
	}
	return s
}

// scheduled runs the default pipeline up to time_aware_scheduler on m; it
// reports false (and the test is skipped by the caller) when the kernel
// keeps loops.
func scheduled(t *testing.T, m *bir.Module, opts ...string) bool {
	t.Helper()
	cfg := pass.Config{Passes: upTo("time_aware_scheduler")}
	if len(opts) > 0 {
		cfg.Options = map[string]map[string]string{}
		for _, kv := range opts {
			k, v, _ := strings.Cut(kv, "=")
			m.Config.Options[k] = v
		}
	}
	rep, err := pipeline.Table.Run(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Result("time_aware_scheduler").Counter("functions_with_loops") == 0
}

// scheduledKernel instantiates a built-in kernel and schedules it.
func scheduledKernel(t *testing.T, spec string) *bir.Module {
	t.Helper()
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !scheduled(t, inst.Module) {
		t.Fatalf("%s keeps loops", spec)
	}
	return inst.Module
}

// TestAllocSemaphores_Kernels is the translation validation of
// alloc_semaphores on every built-in kernel: scheduled, then
// synchronized; the verifier accepts the result at StageSynchronized
// (the exact happens-before check) and the sequential interpreter gives
// bit-identical outputs (the pass adds only synchronization
// instructions). The pass acts: waits and updates on every kernel,
// carriers on some.
func TestAllocSemaphores_Kernels(t *testing.T) {
	p, _ := pipeline.Table.Lookup("alloc_semaphores")
	before := stageOf(upTo("time_aware_scheduler"))
	var carriers, waits int64
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if !scheduled(t, m) {
			t.Skip("the kernel keeps loops: not scheduled")
		}
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error {
			var err error
			rep, err = pipeline.Table.Run(m, pass.Config{Passes: []string{p.Name}})
			return err
		}, passtest.StageBefore(before), passtest.Stage(before|verify.StageSynchronized))
		res := rep.Result(p.Name)
		if res.Counter("wait_commands") > 0 && res.Counter("update_commands") == 0 || res.Counter("halts") == 0 {
			t.Errorf("counters %v: want halts, and updates when there are waits", res.Counters)
		}
		waits += res.Counter("wait_commands")
		carriers += res.Counter("carriers")
		checkWireLimit(t, m)
	})
	if carriers == 0 || waits == 0 {
		t.Errorf("%d waits, %d carrier EventSemaphores over all kernels: want both (the pass acts, the wire-limit path is exercised)", waits, carriers)
	}
}

// checkWireLimit asserts that no instruction of m carries more than 2
// waits and 1 update, and that carriers are EventSemaphores on the engine
// of the instruction they precede.
func checkWireLimit(t *testing.T, m *bir.Module) {
	t.Helper()
	for _, f := range m.Funcs {
		sy := f.Sync
		if sy == nil {
			continue
		}
		var prev bir.InstID = bir.NoInst
		f.Walk(func(i bir.InstID) bool {
			if len(sy.Waits(i)) > 2 || len(sy.Updates(i)) > 1 {
				t.Errorf("%s: %d waits, %d updates", f.InstName(i), len(sy.Waits(i)), len(sy.Updates(i)))
			}
			if prev != bir.NoInst && f.Attrs(prev).Str(semaphores.SyncRole, "") == semaphores.RoleCarrier {
				want := f.Inst(i).Engine
				if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
					want = sy.Trigger[i]
				}
				if f.Inst(prev).Op != bir.OpEventSemaphore || (f.Inst(prev).Engine != want && f.Attrs(i).Str(semaphores.SyncRole, "") != semaphores.RoleCarrier) {
					t.Errorf("carrier %s (%s on %s) before %s (waits on %s)", f.InstName(prev), f.OpName(prev), f.Inst(prev).Engine, f.InstName(i), want)
				}
			}
			prev = i
			return true
		})
	}
}

// TestAllocSemaphores_EveryWaitNeeded is the static half of the mutation
// test: on every kernel, removing any one wait command makes the
// verifier's happens-before rule report an unordered dependency, so the
// pass emits no redundant wait. (The dynamic half, the concurrent
// interpreter catching each removal as a race, is in package interp's
// tests.)
func TestAllocSemaphores_EveryWaitNeeded(t *testing.T) {
	total := 0
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if !scheduled(t, m) {
			t.Skip("the kernel keeps loops")
		}
		if _, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"alloc_semaphores"}}); err != nil {
			t.Fatal(err)
		}
		model, _ := arch.ForModule(m)
		opt := verify.Options{Arch: model, Stage: verify.StageSynchronized}
		for _, f := range m.Funcs {
			sy := f.Sync
			for i := 0; i < sy.Len(); i++ {
				id := bir.InstID(i)
				ws := append([]bir.SemCmd(nil), sy.Waits(id)...)
				for k := range ws {
					rest := append(append([]bir.SemCmd(nil), ws[:k]...), ws[k+1:]...)
					sy.SetWaits(id, rest)
					err := verify.Module(m, opt)
					sy.SetWaits(id, ws)
					total++
					if err == nil || !strings.Contains(err.Error(), "[synchronized]") {
						t.Errorf("%s: removing wait $S[%d]>=%d goes unnoticed (%v): a redundant wait", f.InstName(id), ws[k].Sem, ws[k].Value, err)
					}
				}
			}
			if err := verify.Module(m, opt); err != nil {
				t.Fatalf("after restoring every wait: %v", err)
			}
		}
	})
	if total == 0 {
		t.Error("no wait was mutated")
	}
	t.Logf("%d waits removed one at a time, each caught by the happens-before rule", total)
}

// TestAllocSemaphores_Rotation: with 2-bit counters (largest value 3)
// every kernel's streams signal more often than a counter holds, so the
// pass rotates (AllEngineBarrier + GroupResetSemaphores); the result
// verifies (the rule checks every counter against the width) and
// interprets to the same outputs, sequentially and concurrently under
// every policy (the barriers release, the resets take effect, the counts
// start again).
func TestAllocSemaphores_Rotation(t *testing.T) {
	p, _ := pipeline.Table.Lookup("alloc_semaphores")
	rotations := int64(0)
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		if !scheduled(t, m, "arch.semaphore-bits=2") {
			t.Skip("the kernel keeps loops")
		}
		before := stageOf(upTo("time_aware_scheduler"))
		var rep *pass.Report
		passtest.Check(t, m, func(m *bir.Module) error {
			var err error
			rep, err = pipeline.Table.Run(m, pass.Config{Passes: []string{p.Name}})
			return err
		}, passtest.StageBefore(before), passtest.Stage(before|verify.StageSynchronized))
		rotations += rep.Result(p.Name).Counter("rotations")
		// The rotations run: barriers, resets, and counts from 0 again.
		inst, err := kernels.Instantiate(name)
		if err != nil {
			t.Fatal(err)
		}
		in := kernels.InputsFor(inst.Kernel, m, 1)
		want, err := interp.Run(m, in, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sweep(t, []*bir.Module{m}, in, want, 2)
	})
	if rotations == 0 {
		t.Error("no kernel rotated its semaphores with 2-bit counters")
	}
}

// TestAllocSemaphores_Rerun: a second run gives the same module (it
// removes what the first added and recomputes).
func TestAllocSemaphores_Rerun(t *testing.T) {
	m := scheduledKernel(t, "tensor_add:rows=512,cols=256")
	run := func() string {
		if _, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"alloc_semaphores"}, VerifyEach: true, Rerun: true}); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := birjson.Write(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	first, second := run(), run()
	if first != second {
		t.Errorf("a second run changed the module:\n%s", passtest.LineDiff(first, second))
	}
}

// TestAllocSemaphores_TooFewSemaphores: an arch with fewer semaphores than
// signalling streams fails with an error naming the option.
func TestAllocSemaphores_TooFewSemaphores(t *testing.T) {
	m := scheduledKernel(t, "tensor_add:rows=512,cols=256")
	model, _ := arch.ForModule(m)
	model.Sync.Semaphores = 1
	_, err := semaphores.AllocSemaphores(m.Main(), model, true)
	if err == nil || !strings.Contains(err.Error(), "arch.semaphores") {
		t.Errorf("err = %v, want one naming --option arch.semaphores", err)
	}
}

// TestAllocSemaphores_StreamEndings: the entry function's engine streams
// end with Halt, preceded by Drain on engines that fired DMAs nobody
// waited for.
func TestAllocSemaphores_StreamEndings(t *testing.T) {
	m := scheduledKernel(t, "tensor_add:rows=512,cols=256")
	if _, err := pipeline.Table.Run(m, pass.Config{Passes: []string{"alloc_semaphores"}}); err != nil {
		t.Fatal(err)
	}
	model, _ := arch.ForModule(m)
	L, err := stream.Build(m.Main(), stream.Options{HasEngine: model.HasEngine})
	if err != nil {
		t.Fatal(err)
	}
	lists := L.Lists()
	drains := 0
	for _, e := range stream.Engines {
		l := lists[stream.EngineStream(e)]
		if len(l) == 0 || m.Main().Inst(l[len(l)-1]).Op != bir.OpHalt {
			t.Errorf("%s's stream does not end with Halt", e.ProfilerName())
		}
		for _, i := range l {
			if m.Main().Inst(i).Op == bir.OpDrain {
				drains++
			}
		}
	}
	if drains == 0 {
		t.Error("no Drain: the output DMAs' completion is known by no engine")
	}
}

// TestAllocSemaphores_ErrorSubject: the error of a DMA without a queue
// names the NKI line of the DMA from its subject (the instruction, as
// data), whatever its name holds: "ld,x" has a comma, which a message
// parsed back for "instruction NAME" would cut.
func TestAllocSemaphores_ErrorSubject(t *testing.T) {
	src := "module arch=trn2\n\nfunc @main {\n  tensor %a_set: f32[128, 64] kind=Input\n    loc %a: Input 128x256\n  tensor %t_set: f32[128, 64] class=NeuronSBTensor\n    loc %t: SB 128x256 allocated\n\nBlock1:\n" +
		"  \"ld,x\" = Load %a[ap=[[64,128],[1,64]]] f32 -> %t[ap=[[64,128],[1,64]]] f32 loc(\"k.py\":7:4) sched(start=0, end=10)\n}\n"
	m, err := bir.Parse("q.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tab := pass.Table{Passes: []pass.Pass{semaphores.AllocSemaphoresPass}}
	_, err = tab.Run(m, pass.Config{})
	if err == nil || !strings.HasPrefix(err.Error(), "k.py:7:4: ") || !strings.Contains(err.Error(), "DMA without a queue") {
		t.Fatalf("err %v: want the DMA's line k.py:7:4 and its cause", err)
	}
}
