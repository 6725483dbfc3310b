package verify

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/stream"
)

// newB returns a module for arch and a builder for its function "main".
func newB(archName string) (*bir.Module, *bir.Builder) {
	m := bir.NewModule(archName)
	return m, bir.NewBuilder(m, "main")
}

// must fails the test on a builder error.
func must(t *testing.T, b *bir.Builder) *bir.Module {
	t.Helper()
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return b.M
}

// alloc places a tensor's location.
func alloc(b *bir.Builder, x bir.T, base, addr, bank int64) {
	l := b.F.Loc(x.Loc)
	l.Allocated, l.Base, l.Addr, l.Bank = true, base, addr, bank
}

// inst returns the id of the instruction named name.
func inst(t *testing.T, f *bir.Function, name string) bir.InstID {
	t.Helper()
	i, ok := f.InstByName(name)
	if !ok {
		t.Fatalf("no instruction %s", name)
	}
	return i
}

// legal builds a straight-line trn2 module that satisfies every stage:
// loads, an engine copy, memset, matmul, activation with bias,
// tensor_tensor, iota, an EventSemaphore, a CCE copy, an indirect load and
// a save, every on-chip location allocated, every compute engine assigned.
func legal(t *testing.T) (*bir.Module, *bir.Builder) {
	t.Helper()
	_, b := newB("trn2")
	x := b.Input("x", bir.Float32, 128, 512)
	z := b.Output("z", bir.Float32, 128, 512)
	xs := b.SBUF("xs", bir.Float32, 128, 512)   // 2048 B
	ws := b.SBUF("ws", bir.BFloat16, 128, 128)  // 256 B
	ms := b.SBUF("ms", bir.BFloat16, 128, 512)  // 1024 B
	ys := b.SBUF("ys", bir.Float32, 128, 512)   // 2048 B
	bias := b.SBUF("bias", bir.Float32, 128, 1) // 4 B
	io := b.SBUF("io", bir.Int32, 128, 16)      // 64 B
	idx := b.SBUF("idx", bir.Int32, 128, 1)     // 4 B
	g := b.SBUF("g", bir.Float32, 128, 512)     // 2048 B
	ga := b.SBUF("ga", bir.Int64, 128, 1)       // 8 B: the gather's row addresses
	ps := b.PSUM("ps", bir.Float32, 128, 512)   // 2048 B, bank 0
	addr := int64(0)
	for _, s := range []bir.T{xs, ws, ms, ys, bias, io, idx, g, ga} {
		alloc(b, s, 0, addr, 0)
		addr += b.F.Loc(s.Loc).Bytes
	}
	alloc(b, ps, 0, 0, 2)

	b.Load("ld_x", xs.All(), x.All())
	b.Load("ld_idx", idx.All(), bir.As(x.AP(0, [2]int64{512, 128}, [2]int64{1, 1}), bir.Int32))
	b.TensorCopy("cast", bir.EngDVE, ms.All(), xs.All())
	b.Memset("fill", bir.EngDVE, ws.All(), 1)
	b.Memset("zero_bias", bir.EngPool, bias.All(), 0)
	b.Matmult("mm", ps.All(), ws.All(), ms.All(), true, true)
	b.Activation("act", "Relu", ys.All(), ps.All(), 1, bias.All())
	b.TensorTensor("add", bir.EngDVE, "add", ys.All(), ys.All(), xs.All())
	b.Iota("iota", io.All(), 0, 1, [2]int64{1, 16})
	b.Inst(bir.OpEventSemaphore, "sem", bir.EngSP, nil, nil, bir.Attrs(
		"waits", bir.List(semCmd(0, 1), semCmd(1, 1)),
		"updates", bir.List(semCmd(2, 1))))
	b.CCECopy("cce", z.All(), []bir.Operand{x.All(), x.All()}, []float64{1, 1})
	b.Inst(bir.OpReadVarAddr, "gather_addr", bir.EngUnassigned, []bir.Operand{x.All()}, []bir.Operand{ga.All()}, nil)
	b.Inst(bir.OpIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{ga.All(), idx.All()}, []bir.Operand{g.All()}, nil)
	b.Save("st", z.All(), ys.All())
	return must(t, b), b
}

func semCmd(s, v int64) bir.Value {
	return bir.Object(bir.Field{Key: "semaphore", Val: bir.Int(s)}, bir.Field{Key: "value", Val: bir.Int(v)})
}

// tiledAdd builds the loop module of the bir builder example: four
// iterations of load, add and save with symbolic DRAM access patterns.
func tiledAdd(t *testing.T) (*bir.Module, *bir.Builder) {
	t.Helper()
	m, b := newB("trn2")
	x := b.Input("x", bir.Float32, 512, 2048)
	y := b.Input("y", bir.Float32, 512, 2048)
	z := b.Output("z", bir.Float32, 512, 2048)
	xs := b.SBUF("xs", bir.Float32, 128, 2048)
	ys := b.SBUF("ys", bir.Float32, 128, 2048)
	alloc(b, xs, 0, 0, 0)
	alloc(b, ys, 0, 8192, 0)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*2048)
		b.Load("ld_x", xs.All(), x.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.Load("ld_y", ys.All(), y.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.TensorTensor("add", bir.EngDVE, "add", xs.All(), xs.All(), ys.All())
		b.Save("st", z.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}), xs.All())
	})
	_ = m
	return must(t, b), b
}

// diags returns the diagnostics of err (nil for nil).
func diags(t *testing.T, err error) []Diag {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("error %T is not a *verify.Error: %v", err, err)
	}
	return e.Diags()
}

// unscheduled is every stage but StageScheduled and StageSynchronized:
// the stages a module without a schedule table can satisfy.
const unscheduled = AllStages &^ (StageScheduled | StageSynchronized)

// scheduleSerially gives every function of m a valid schedule: one
// instruction after the other in program order (1 ps each), DMAs on
// queue 0.
func scheduleSerially(m *bir.Module) {
	for _, f := range m.Funcs {
		tab := bir.NewSchedule(f.NumInstSlots())
		var t int64
		var order [bir.NumEngines + 1]int32
		f.Walk(func(i bir.InstID) bool {
			in := f.Inst(i)
			if in.Op.IsLoop() {
				return true
			}
			tab.Start[i], tab.End[i] = t, t+1
			t++
			r := int(in.Engine)
			if in.Op.Info().Has(bir.FlagDMA) {
				tab.Queue[i] = 0
				r = int(bir.NumEngines)
			}
			tab.Order[i] = order[r]
			order[r]++
			return true
		})
		f.Sched = tab
	}
}

// synchronizeSerially gives every function of m (scheduled serially) a
// valid synchronization: DMAs triggered by the Sync engine, every
// instruction updating its stream's semaphore (the stream's id) and
// waiting for the one before it in program order when that ran on
// another stream (a total order, so every dependency is ordered), and the
// entry function's streams ended by Drain and Halt.
func synchronizeSerially(t testing.TB, m *bir.Module) {
	t.Helper()
	for _, f := range m.Funcs {
		sy := bir.NewSync(f.NumInstSlots())
		f.Sync = sy
		var end int64
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
				sy.Trigger[i] = bir.EngSP
			}
			if f.Sched.Has(i) {
				end = max(end, f.Sched.End[i])
			}
			return true
		})
		if f == m.Main() && len(f.Top) > 0 {
			last := f.Top[len(f.Top)-1]
			add := func(op bir.Opcode, name string, e bir.Engine) {
				i := f.NewInst(op, name, e, nil, nil, bir.AttrSet{})
				f.Append(last, i)
				f.Sched.Grow(f.NumInstSlots())
				f.Sched.Start[i], f.Sched.End[i] = end, end
				sy.Grow(f.NumInstSlots())
			}
			add(bir.OpDrain, "serial_drain", bir.EngSP)
			for _, e := range stream.Engines {
				add(bir.OpHalt, "serial_halt_"+e.String(), e)
			}
			order := map[bir.Engine]int32{}
			f.Walk(func(i bir.InstID) bool {
				if in := f.Inst(i); !in.Op.Info().Has(bir.FlagDMA) && in.Engine != bir.EngUnassigned {
					f.Sched.Order[i] = order[in.Engine]
					order[in.Engine]++
				}
				return true
			})
		}
		L, err := stream.Build(f, stream.Options{})
		if err != nil {
			t.Fatal(err)
		}
		count := map[stream.ID]int32{}
		prev := bir.NoInst
		for _, x := range L.Insts {
			if prev != bir.NoInst && !L.IsCall(x) && !L.IsCall(prev) {
				if s := L.DoneStream(prev); s != L.Eng[x] && s != L.Q[x] {
					sy.SetWaits(x, []bir.SemCmd{{Sem: int32(s), Value: count[s]}})
				}
			}
			if !L.IsCall(x) {
				s := L.DoneStream(x)
				count[s]++
				sy.SetUpdates(x, []bir.SemCmd{{Sem: int32(s), Value: 1}})
			}
			prev = x
		}
	}
}
