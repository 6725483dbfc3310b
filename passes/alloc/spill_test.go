package alloc_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/passtest"
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
	_, err := alloc.Allocate(m, trn2(t), alloc.Options{})
	var fe *alloc.FitError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v: want a *FitError", err)
	}
	msg := err.Error()
	for _, want := range []string{"SBUF does not fit", "212992 bytes per partition available", "max-live 262144",
		"live at the worst instant", "x_tile_set_sub0 (tensor x_tile_set): 128 partitions x 65536 bytes, live load_x", "tried: MaxLiveSpiller", "NoSpill"} {
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
