package stream_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/semaphores"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/stream"
)

func TestID_ParseName(t *testing.T) {
	tests := []struct {
		in   string
		want stream.ID
		ok   bool
	}{
		{"Tensor", stream.EngineStream(bir.EngPE), true},
		{"vector", stream.EngineStream(bir.EngDVE), true},
		{"Activation", stream.EngineStream(bir.EngAct), true},
		{"scalar", stream.EngineStream(bir.EngAct), true},
		{"GpSimd", stream.EngineStream(bir.EngPool), true},
		{"Pool", stream.EngineStream(bir.EngPool), true},
		{"SP", stream.EngineStream(bir.EngSP), true},
		{"Sync", stream.EngineStream(bir.EngSP), true},
		{"queue3", stream.QueueStream(3), true},
		{"DMA queue 12", stream.QueueStream(12), true},
		{"q0", stream.QueueStream(0), true},
		{"DMA", stream.None, false},
		{"queueX", stream.None, false},
		{"", stream.None, false},
	}
	for _, tc := range tests {
		got, err := stream.ParseName(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseName(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if back, err := stream.ParseName(got.Name()); err != nil || back != got {
				t.Errorf("ParseName(%q.Name() = %q) = %v, %v", tc.in, got.Name(), back, err)
			}
		}
	}
}

// synchronized compiles a small tensor_add through the default pipeline
// (with arch options) and returns its main function, layout and model.
func synchronized(t *testing.T, opts ...string) (*bir.Module, *stream.Layout, *arch.Model) {
	t.Helper()
	inst, err := kernels.Instantiate("tensor_add:rows=512,cols=128")
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	for _, kv := range opts {
		k, v, _ := strings.Cut(kv, "=")
		m.Config.Options[k] = v
	}
	if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
		t.Fatal(err)
	}
	model, err := arch.ForModule(m)
	if err != nil {
		t.Fatal(err)
	}
	return m, layout(t, m.Main(), model), model
}

func layout(t *testing.T, f *bir.Function, model *arch.Model) *stream.Layout {
	t.Helper()
	L, err := stream.Build(f, stream.Options{HasEngine: model.HasEngine, Queues: int(model.DMAQueues)})
	if err != nil {
		t.Fatal(err)
	}
	return L
}

func checkOpts(model *arch.Model) stream.CheckOptions {
	return stream.CheckOptions{Semaphores: model.Sync.Semaphores, MaxValue: model.MaxSemaphoreValue(), Entry: true}
}

// TestCheck_Problems: each way to break a synchronized function is
// reported with its message (and the function as compiled has none).
func TestCheck_Problems(t *testing.T) {
	find := func(f *bir.Function, pred func(bir.InstID) bool) bir.InstID {
		found := bir.NoInst
		f.Walk(func(i bir.InstID) bool {
			if pred(i) {
				found = i
				return false
			}
			return true
		})
		if found == bir.NoInst {
			t.Fatal("no instruction matches")
		}
		return found
	}
	tests := []struct {
		name   string
		opts   []string
		maxVal int64
		break_ func(t *testing.T, f *bir.Function, L *stream.Layout)
		want   string
	}{
		{"clean", nil, 0, func(*testing.T, *bir.Function, *stream.Layout) {}, ""},
		{"datapath semaphore", nil, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			dma := find(f, func(i bir.InstID) bool { return L.IsDMA(i) && len(f.Sync.Updates(i)) > 0 })
			eng := find(f, func(i bir.InstID) bool {
				return !L.IsDMA(i) && f.Inst(i).Engine != bir.EngUnassigned && L.Prog[i] > L.Prog[dma] && len(f.Sync.Updates(i)) == 0
			})
			f.Sync.SetUpdates(eng, f.Sync.Updates(dma))
		}, "datapath semaphore must be updated by datapath instr"},
		{"unsatisfiable wait", nil, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			x := find(f, func(i bir.InstID) bool { return len(f.Sync.Waits(i)) > 0 })
			w := f.Sync.Waits(x)[0]
			f.Sync.SetWaits(x, []bir.SemCmd{{Sem: w.Sem, Value: 1000}})
		}, "a deadlock, or an order the streams do not guarantee"},
		{"out of range", nil, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			x := find(f, func(i bir.InstID) bool { return len(f.Sync.Updates(i)) > 0 })
			f.Sync.SetUpdates(x, []bir.SemCmd{{Sem: 99, Value: 1}})
		}, "updates semaphore 99: want 0..31"},
		{"no halt", nil, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			f.Remove(find(f, func(i bir.InstID) bool { return f.Inst(i).Op == bir.OpHalt }))
		}, "does not end with Halt"},
		{"no drain", nil, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			f.Remove(find(f, func(i bir.InstID) bool { return f.Inst(i).Op == bir.OpDrain }))
		}, "are not known to have completed when every engine has halted"},
		{"counter width", nil, 1, func(*testing.T, *bir.Function, *stream.Layout) {}, "above the counter's largest value 1"},
		{"barrier interrupted", []string{"arch.semaphore-bits=2"}, 0, func(t *testing.T, f *bir.Function, L *stream.Layout) {
			b := find(f, func(i bir.InstID) bool { return f.Inst(i).Op == bir.OpAllEngineBarrier })
			x := find(f, func(i bir.InstID) bool { return f.Inst(i).Op == bir.OpTensorTensor })
			f.InsertAfter(b, f.Clone(x, f.Module().NewSym("intruder")))
		}, "interrupts AllEngineBarrier group"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, L, model := synchronized(t, tc.opts...)
			f := m.Main()
			tc.break_(t, f, L)
			f.Sched.Grow(f.NumInstSlots())
			f.Sync.Grow(f.NumInstSlots())
			opt := checkOpts(model)
			if tc.maxVal > 0 {
				opt.MaxValue = tc.maxVal
			}
			probs := stream.Check(layout(t, f, model), opt)
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.Msg)
			}
			all := strings.Join(msgs, "\n")
			switch {
			case tc.want == "" && len(probs) > 0:
				t.Errorf("problems in a clean function:\n%s", all)
			case tc.want != "" && !strings.Contains(all, tc.want):
				t.Errorf("problems:\n%s\nwant one containing %q", all, tc.want)
			}
		})
	}
}

// TestSimulate_Latency: re-timing the streams with no latency, no trigger
// cost and free synchronization instructions never exceeds the
// schedule's makespan (the streams run as
// soon as their waits allow); the semaphore latencies make it longer.
func TestSimulate_Latency(t *testing.T) {
	m, L, model := synchronized(t)
	f := m.Main()
	opt := semaphores.SimOptions(f, model)
	with := stream.Simulate(L, opt)
	opt.EngineLatency, opt.DMALatency = 0, 0
	opt.TriggerCost = func(bir.Engine) int64 { return 0 }
	dur := opt.Dur
	opt.Dur = func(i bir.InstID) int64 {
		if f.Attrs(i).Has(semaphores.SyncRole) {
			return 0 // the schedule gives the instructions alloc_semaphores added no time
		}
		return dur(i)
	}
	without := stream.Simulate(L, opt)
	sched := f.Sched.Makespan()
	if without.Makespan > sched || with.Makespan <= without.Makespan || with.Waits == 0 {
		t.Errorf("schedule %d ps, re-timed %d ps without latency, %d ps with (%d waits delayed): want without <= schedule < with", sched, without.Makespan, with.Makespan, with.Waits)
	}
}

// TestLayout_Lists: every instruction of the function is in exactly one
// engine stream (a call in all of them), every DMA also in one queue
// stream, in program order.
func TestLayout_Lists(t *testing.T) {
	m, L, _ := synchronized(t)
	f := m.Main()
	seen := map[bir.InstID]int{}
	for s, list := range L.Lists() {
		last := int32(-1)
		for k, i := range list {
			if L.Prog[i] <= last {
				t.Errorf("stream %s: %s out of program order", stream.ID(s).Name(), f.InstName(i))
			}
			last = L.Prog[i]
			seen[i]++
			if stream.ID(s).IsQueue() && L.QPos[i] != int32(k) || !stream.ID(s).IsQueue() && L.EPos[i] != int32(k) {
				t.Errorf("stream %s: %s at %d, positions %d/%d", stream.ID(s).Name(), f.InstName(i), k, L.EPos[i], L.QPos[i])
			}
		}
	}
	for _, i := range L.Insts {
		want := 1
		if L.IsDMA(i) {
			want = 2
		}
		if seen[i] != want {
			t.Errorf("%s in %d streams, want %d", f.InstName(i), seen[i], want)
		}
	}
}
