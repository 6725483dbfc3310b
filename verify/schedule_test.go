package verify

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
)

// scheduled builds a small scheduled module: a load, two Vector adds that
// depend on it, a GpSimd memset, a save; every instruction scheduled one
// after the other (scheduleSerially) unless the case changes it.
func scheduled(t *testing.T, archName string) (*bir.Module, *bir.Function) {
	t.Helper()
	_, b := newB(archName)
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	u := b.SBUF("u", bir.Float32, 128, 64)
	v := b.SBUF("v", bir.Float32, 128, 64)
	alloc(b, s, 0, 0, 0)
	alloc(b, u, 0, 256, 0)
	alloc(b, v, 0, 512, 0)
	ld := b.Load("ld", s.All(), x.All())
	a1 := b.TensorTensor("add1", bir.EngDVE, "add", u.All(), s.All(), s.All())
	a2 := b.TensorTensor("add2", bir.EngDVE, "mult", s.All(), u.All(), u.All())
	b.Memset("fill", bir.EngPool, v.All(), 0)
	st := b.Save("st", z.All(), s.All())
	dep := func(i, on bir.InstID) { b.F.AddDep(i, bir.Dep{On: on, Kind: bir.DepFlow, CarryAxis: bir.NoAxis}) }
	dep(a1, ld)
	dep(a2, a1)
	dep(st, a2)
	m := must(t, b)
	scheduleSerially(m)
	return m, b.F
}

func scheduleRuleCases() []ruleCase {
	at := func(f *bir.Function, t *testing.T, name string, s, e int64) {
		i := inst(t, f, name)
		f.Sched.Start[i], f.Sched.End[i] = s, e
	}
	const st = StageScheduled
	return []ruleCase{
		{name: "no table", rule: "scheduled", msg: "function main has no schedule: want one", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched = nil
			return m
		}},
		{name: "columns of different lengths", rule: "schedule", msg: "want equal lengths", build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Order = f.Sched.Order[:2]
			return m
		}},
		{name: "queue beyond the arch", rule: "schedule", msg: "DMA queue 16: want -1 or 0..15", build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Queue[inst(t, f, "ld")] = 16
			return m
		}},
		{name: "DGE beyond the arch", rule: "schedule", msg: "hardware DGE engine 2: want -1 (software DGE) or 0..1", build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.DGE[inst(t, f, "ld")] = 2
			return m
		}},
		{name: "instruction without an entry", rule: "scheduled", msg: "has no schedule entry: want every instruction scheduled", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Start[inst(t, f, "fill")] = -1
			return m
		}},
		{name: "dependency not respected", rule: "scheduled", msg: "before add1, which it depends on (FLOW), ends at 2 ps", stage: st, also: []string{"scheduled"}, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			at(f, t, "add2", 1, 3) // add1 runs [1, 2)
			return m
		}},
		{name: "overlap on an engine", rule: "scheduled", msg: "on DVE, overlapping add1 until 5 ps: want one instruction at a time", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			at(f, t, "add1", 1, 5)
			at(f, t, "add2", 4, 6)
			at(f, t, "fill", 5, 6)
			at(f, t, "st", 6, 7)
			f.ClearAllDeps()
			return m
		}},
		{name: "blocks not in start order", rule: "scheduled", msg: "before ld (earlier in program order) at 5 ps: want each block in start order", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			at(f, t, "ld", 5, 6)
			f.ClearAllDeps()
			return m
		}},
		{name: "queue on a compute instruction", rule: "scheduled", msg: "queue 3 on a non-DMA instruction: want -1", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Queue[inst(t, f, "add1")] = 3
			return m
		}},
		{name: "DMA without a queue", rule: "scheduled", msg: "DMA without a queue: want one of 0..15", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Queue[inst(t, f, "st")] = -1
			return m
		}},
		{name: "stream order", rule: "scheduled", msg: "order 0 in its engine's or queue's stream: want 1 (start order)", stage: st, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			f.Sched.Order[inst(t, f, "add2")] = 0
			return m
		}},
		{name: "DMA transfers overlap on a DMA engine", rule: "scheduled", msg: "moves its bytes [5, 12) ps on DMA engine 0, overlapping ld's transfer until 10 ps: want one transfer at a time on a DMA engine", stage: st, also: []string{"scheduled"}, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn2")
			// Two queues, one set of engines (both 128-partition transfers).
			at(f, t, "ld", 0, 10)
			at(f, t, "add1", 1, 2)
			at(f, t, "add2", 2, 3)
			at(f, t, "fill", 3, 4)
			at(f, t, "st", 5, 12)
			f.Sched.Queue[inst(t, f, "st")] = 1
			f.ClearAllDeps()
			return m
		}},
		{name: "NC-v2 SBUF port", rule: "scheduled", msg: "on the SBUF port Vector and GpSimd share (NC-v2)", stage: st, arch: func() *arch.Model { a, _ := arch.Lookup("trn1"); return a }, build: func(t *testing.T) *bir.Module {
			m, f := scheduled(t, "trn1")
			at(f, t, "add2", 3, 6)
			at(f, t, "fill", 4, 5) // GpSimd touches SBUF while Vector does
			at(f, t, "st", 6, 7)
			return m
		}},
	}
}

// TestScheduled_LegalOnEveryArch: the serial schedule is legal everywhere
// (NC-v2's shared ports included).
func TestScheduled_LegalOnEveryArch(t *testing.T) {
	for _, a := range []string{"trn1", "trn2", "trn3"} {
		m, _ := scheduled(t, a)
		for _, d := range diags(t, Module(m, Options{Stage: StageScheduled | StageUnrolled})) {
			t.Errorf("%s: %s", a, d)
		}
	}
}
