package alloc_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// spillSpec needs four 64 KiB tiles live at once per row tile in every
// order: 256 KiB against trn2's 208 KiB.
const spillSpec = "residual:rows=256,cols=16384"

func buildSpec(t *testing.T, spec string) *bir.Module {
	t.Helper()
	inst, err := kernels.Instantiate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return inst.Module
}

// countOps counts the instructions of m whose name starts with prefix.
func countOps(m *bir.Module, prefix string) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if strings.HasPrefix(f.InstName(i), prefix) {
				n++
			}
			return true
		})
	}
	return n
}

// TestMaxLiveSpiller_Residual: the kernel over budget compiles only with
// spills; the spilled module computes the same outputs as the module
// before allocation (private storage per location: unlimited memory),
// bit for bit, and its reference check passes.
func TestMaxLiveSpiller_Residual(t *testing.T) {
	m := buildSpec(t, spillSpec)
	prefix(t, m, 2, "alloc")
	passtest.CheckPass(t, m, lookup(t, "alloc"))
	if s, l := countOps(m, "spill_save."), countOps(m, "spill_load."); s == 0 || s != l {
		t.Fatalf("%d spill saves and %d loads: want a save and a load per victim", s, l)
	}
	// x is the victim: accessed first and last, not in the middle.
	f := m.Main()
	found := false
	f.Walk(func(i bir.InstID) bool {
		if strings.HasPrefix(f.InstName(i), "spill_save.x_tile") {
			found = true
		}
		return true
	})
	if !found {
		t.Fatal("the victim is not x_tile (the tile whose next access is farthest)")
	}
}

// TestMaxLiveSpiller_NoSpill: with x's tensor marked NoSpill nothing else
// can leave SBUF at the worst instant (every other live tile is accessed
// there), so allocation fails with the live set, the budget and what was
// tried, never a bare "out of memory".
func TestMaxLiveSpiller_NoSpill(t *testing.T) {
	m := buildSpec(t, spillSpec)
	prefix(t, m, 2, "alloc")
	f := m.Main()
	tid, ok := f.TensorByName("x_tile_set")
	if !ok {
		t.Fatal("no x_tile_set")
	}
	f.Tensor(tid).NoSpill = true
	ld, ok := f.InstByName("load_x.0")
	if !ok {
		t.Fatal("no load_x.0")
	}
	f.SetPos(ld, bir.Pos{File: "residual.py", Line: 12, Col: 8})
	_, err := alloc.Allocate(m, trn2(t), alloc.Options{})
	var fe *alloc.FitError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v: want a *FitError", err)
	}
	msg := err.Error()
	for _, want := range []string{"SBUF does not fit", "212992 bytes per partition available", "max-live 262144",
		"live at the worst instant", "x_tile_set_sub0 (tensor x_tile_set): 128 partitions x 65536 bytes, live load_x.0..residual.0 (residual.py:12:8)", "tried: MaxLiveSpiller", "NoSpill"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not contain %q:\n%s", want, msg)
		}
	}
	if len(fe.Live) != 4 {
		t.Errorf("%d locations in the live set, want the 4 tiles", len(fe.Live))
	}
}

// TestSpillPSum: nine matmul results of one bank each, all read at the
// end, need nine of the eight banks; SpillPSum copies the ones read last
// to SBUF once their groups are closed, and the outputs are unchanged.
func TestSpillPSum(t *testing.T) {
	const P, N = 128, 512
	m := build(t, func(b *bir.Builder) {
		w := b.SBUF("w", bir.BFloat16, P, P)
		mv := b.SBUF("mv", bir.BFloat16, P, N)
		in := b.Input("in", bir.BFloat16, P, N)
		out := b.Output("out", bir.Float32, P, N)
		acc := b.SBUF("acc", bir.Float32, P, N)
		b.Memset("fill_w", bir.EngDVE, w.All(), 0.5)
		b.Load("load", mv.All(), in.All())
		var ps []bir.T
		for k := 0; k < 9; k++ {
			p := b.PSUM("ps"+string(rune('a'+k)), bir.Float32, P, N)
			b.Matmult("mm_"+string(rune('a'+k)), p.All(), w.All(), mv.All(), true, true)
			b.TensorScalar("bump_"+string(rune('a'+k)), bir.EngDVE, mv.All(), mv.All(), "add", 1, "bypass", 0)
			ps = append(ps, p)
		}
		b.Memset("zero", bir.EngDVE, acc.All(), 0)
		for k, p := range ps {
			b.TensorTensor("sum_"+string(rune('a'+k)), bir.EngDVE, "add", acc.All(), acc.All(), p.All())
		}
		b.Save("store", out.All(), acc.All())
	})
	prefix(t, m, 2, "alloc")
	passtest.CheckPass(t, m, lookup(t, "alloc"))
	if n := countOps(m, "spill_psum."); n == 0 {
		t.Fatal("no SpillPSum copy: nine one-bank results were placed in eight banks?")
	}
}

// TestModuloAllocation: in loop code (FullUnroll level 1), a parallel
// loop's local PSUM tensors rotate over two slots (the iterations use
// alternate banks); the outputs are unchanged; asking for more slots than
// the banks hold fails with the seed's message.
func TestModuloAllocation(t *testing.T) {
	for _, spec := range []string{"attention:seq=256,d=32", "matmul:m=128,k=256,n=1024,tile_n=512"} {
		t.Run(spec, func(t *testing.T) {
			m := buildSpec(t, spec)
			prefix(t, m, 1, "alloc")
			passtest.CheckPass(t, m, lookup(t, "alloc"))
			rotated := 0
			f := m.Main()
			for tid := 0; tid < f.NumTensors(); tid++ {
				ts := f.Tensor(bir.TensorID(tid))
				if ts.Dead || len(ts.Locs) < 2 || f.Loc(ts.Locs[0]).Type != bir.MemPSUM {
					continue
				}
				if strings.Contains(f.Loc(ts.Locs[1]).Name, "_bank") {
					rotated++
					// Slots never share bytes (a matmul accumulator's
					// slots are whole banks, so they sit in different
					// banks).
					a, b := f.Loc(ts.Locs[0]), f.Loc(ts.Locs[1])
					if a.Bank == b.Bank && a.Addr < b.Addr+b.Bytes && b.Addr < a.Addr+a.Bytes {
						t.Errorf("tensor %s: slots %s and %s share bytes of bank %d", ts.Name, a.Name, b.Name, a.Bank)
					}
				}
			}
			if rotated == 0 {
				t.Fatal("no PSUM tensor rotated")
			}
		})
	}
	m := buildSpec(t, "attention:seq=256,d=32")
	prefix(t, m, 1, "alloc")
	_, err := alloc.Allocate(m, trn2(t), alloc.Options{Interleave: 8})
	if err == nil || !strings.Contains(err.Error(), ") exceeded PSUM bank limit 8") {
		t.Fatalf("interleave 8: error %v, want the seed's \") exceeded PSUM bank limit \"", err)
	}
}

// TestMaxLiveSpiller_TooManySpills: a spilled tensor (the victim, its
// reload and its DRAM copy) carries too_many_spills, and the dependency
// analysis after the planner keeps its conservative edges: it logs the
// seed's "Avoided Dependency Reduction due to too_many_spills attribute".
func TestMaxLiveSpiller_TooManySpills(t *testing.T) {
	m := buildSpec(t, spillSpec)
	rep, err := pipeline.Table.Run(m, pass.Config{Passes: append(schedtest.Before("anti_dependency_analyzer"), "anti_dependency_analyzer")})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	marked := map[string]bool{}
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if v, ok := ts.Extra.Get(alloc.SpilledAttr); ok && !ts.Dead {
			if b, _ := v.AsBool(); b {
				marked[ts.Name] = true
			}
		}
	}
	for _, name := range []string{"x_tile_set"} {
		if !marked[name] {
			t.Errorf("the victim %s lacks %s (marked: %v)", name, alloc.SpilledAttr, marked)
		}
	}
	if len(marked) < 3 {
		t.Errorf("marked %v: want the victim, its reload and its DRAM copy", marked)
	}
	if !slices.ContainsFunc(rep.Result("anti_dependency_analyzer").Log, func(l string) bool {
		return strings.HasPrefix(l, "Avoided Dependency Reduction due to too_many_spills attribute")
	}) {
		t.Errorf("the analyzer did not log the seed's line: %q", rep.Result("anti_dependency_analyzer").Log)
	}
}
