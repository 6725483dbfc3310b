package sched_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/verify"
)

// twoCores builds one core's body of a two-core kernel: core 0 stages x
// into the shared DRAM tensor d, core 1 reads d back and writes z; each
// core also does independent work on its own rows of y.
func twoCores(t *testing.T, core int) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	m.NeuronCoreID, m.HasCoreID = int64(core), true
	b := bir.NewBuilder(m, "body")
	x := b.Input("x", bir.Float32, 128, 256)
	y := b.Input("y", bir.Float32, 256, 256)
	d := b.DRAM("d", bir.Float32, 128, 256)
	z := b.Output("z", bir.Float32, 256, 256)
	s := b.SBUF("s", bir.Float32, 128, 256)
	u := b.SBUF("u", bir.Float32, 128, 256)
	rows := y.Tile(int64(128*core), 128, 0, 256)
	b.Load("own_load", u.All(), rows)
	b.TensorScalar("own_scale", bir.EngAct, u.All(), u.All(), "mult", 2, "bypass", 0)
	b.Save("own_save", z.Tile(int64(128*core), 128, 0, 256), u.All())
	if core == 0 {
		b.Load("stage_in", s.All(), x.All())
		b.Save("stage_out", d.All(), s.All())
	} else {
		b.Load("read_back", s.All(), d.All())
		b.TensorScalar("twice", bir.EngDVE, s.All(), s.All(), "mult", 2, "bypass", 0)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := schedtest.Through(m, "time_aware_scheduler"); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLncAwareSchedule_CrossCoreHazard: core 1 reads back what core 0
// wrote to shared HBM: get_lnc_sync_candidates finds the pair, the joint
// schedule starts core 1's read after core 0's write ends, and each
// core's function still verifies at StageScheduled.
func TestLncAwareSchedule_CrossCoreHazard(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	m0, m1 := twoCores(t, 0), twoCores(t, 1)
	f0, f1 := m0.Func("body"), m1.Func("body")
	rep, err := sched.LncAwareSchedule([]*bir.Function{f0, f1}, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cross) != 1 {
		t.Fatalf("cross-core edges %+v: want stage_out -> read_back", rep.Cross)
	}
	e := rep.Cross[0]
	if e.FromCore != 0 || e.ToCore != 1 || f0.InstName(e.From) != "stage_out" || f1.InstName(e.To) != "read_back" {
		t.Errorf("edge %+v: want core 0 stage_out -> core 1 read_back", e)
	}
	if f1.Sched.Start[e.To] < f0.Sched.End[e.From] {
		t.Errorf("read_back starts at %d ps, before stage_out ends at %d ps", f1.Sched.Start[e.To], f0.Sched.End[e.From])
	}
	if rep.CoreSpans[1] <= rep.AloneSpans[1] {
		t.Errorf("core 1 ends at %d ps jointly, %d alone: the cross-core wait must lengthen it", rep.CoreSpans[1], rep.AloneSpans[1])
	}
	for _, m := range []*bir.Module{m0, m1} {
		if err := verify.Module(m, verify.Options{Stage: verify.StageUnrolled | verify.StageScheduled}); err != nil {
			t.Errorf("core %d: %v", m.NeuronCoreID, err)
		}
	}
	t.Logf("\n%s", rep)
}

// TestLncAwareSchedule_KLRKernel: the LNC = 2 KLR fixture's cores write
// disjoint rows of the output: no cross-core edge, and the joint makespan
// is the slower core's own.
func TestLncAwareSchedule_KLRKernel(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", "klr")
	if sharedtest.KLRNames(t, dir) == nil {
		return
	}
	model, _ := arch.Lookup("trn2")
	var fs []*bir.Function
	for c := range 2 {
		m, err := driver.Load(filepath.Join(dir, "tensor_add_lnc2.klr"))
		if err != nil {
			t.Fatal(err)
		}
		m.NeuronCoreID, m.HasCoreID = int64(c), true
		if _, err := schedtest.Through(m, "time_aware_scheduler"); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, m.Func("tensor_add_lnc2"))
	}
	rep, err := sched.LncAwareSchedule(fs, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cross) != 0 || rep.Makespan != max(rep.AloneSpans[0], rep.AloneSpans[1]) {
		t.Errorf("cross %+v, makespan %d, alone %v: want no edge and the slower core's makespan", rep.Cross, rep.Makespan, rep.AloneSpans)
	}
}

// TestLncAwareSchedule_Barriers: the exchange kernel on two cores meets at
// CoreBarriers (insert_core_barrier): each core reads back, after barrier
// 0, the half of s the other core wrote before it. The cross-core edges
// follow the barriers (core 1's save_s1 -> core 0's load_s1, not the lower
// core first, which would make core 1's phase-1 write wait for core 0's
// phase-2 read: a deadlock on hardware), and whatever follows a core's
// barrier starts once both cores have reached it.
func TestLncAwareSchedule_Barriers(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	var fs []*bir.Function
	for c := range 2 {
		inst, err := kernels.Instantiate(fmt.Sprintf("exchange:rows=128,cols=64,cores=2,core=%d", c))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schedtest.Through(inst.Module, "time_aware_scheduler"); err != nil {
			t.Fatal(err)
		}
		fs = append(fs, inst.Module.Main())
	}
	rep, err := sched.LncAwareSchedule(fs, model, sched.Options{Window: sched.DefaultWindow})
	if err != nil {
		t.Fatal(err)
	}
	var edges []string
	for _, e := range rep.Cross {
		edges = append(edges, fmt.Sprintf("core %d %s -> core %d %s", e.FromCore, fs[e.FromCore].InstName(e.From), e.ToCore, fs[e.ToCore].InstName(e.To)))
		if fs[e.FromCore].Sched.End[e.From] > fs[e.ToCore].Sched.Start[e.To] {
			t.Errorf("%s: starts before its source ends", edges[len(edges)-1])
		}
	}
	slices.Sort(edges)
	want := []string{"core 0 save_s0.0 -> core 1 load_s0.0", "core 1 save_s1.0 -> core 0 load_s1.0"}
	if !slices.Equal(edges, want) {
		t.Errorf("cross-core edges %v, want %v", edges, want)
	}
	// Barrier 0: each core's read-back after it starts once both cores'
	// barriers 0 have ended.
	var meet int64
	for c, f := range fs {
		b, ok := f.InstByName("core_barrier0")
		if !ok {
			t.Fatalf("core %d: no core_barrier0", c)
		}
		meet = max(meet, f.Sched.End[b])
	}
	for c, f := range fs {
		read, ok := f.InstByName(fmt.Sprintf("load_s%d.0", 1-c))
		if !ok {
			t.Fatalf("core %d: no load_s%d.0", c, 1-c)
		}
		if s := f.Sched.Start[read]; s < meet {
			t.Errorf("core %d: %s starts at %d ps, before both cores reached barrier 0 (%d ps)", c, f.InstName(read), s, meet)
		}
		if err := verify.Module(f.Module(), verify.Options{Stage: verify.StageUnrolled | verify.StageScheduled}); err != nil {
			t.Errorf("core %d: %v", c, err)
		}
	}
	t.Logf("\n%s", rep)
}
