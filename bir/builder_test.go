package bir

import (
	"testing"
	"unsafe"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

func TestBuilder_TiledAdd(t *testing.T) {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	x := b.Input("x", Float32, 512, 2048)
	y := b.Input("y", Float32, 512, 2048)
	z := b.Output("z", Float32, 512, 2048)
	xs := b.SBUF("xs", Float32, 128, 2048)
	ys := b.SBUF("ys", Float32, 128, 2048)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*2048)
		b.Load("ld_x", xs.All(), x.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.Load("ld_y", ys.All(), y.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.TensorTensor("add", EngDVE, "add", xs.All(), xs.All(), ys.All())
		b.Save("st", z.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}), xs.All())
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	if got := f.NumInsts(); got != 4 {
		t.Errorf("NumInsts = %d, want 4", got)
	}
	u := f.Uses()
	if got := len(u.Loc(xs.Loc)); got != 4 {
		t.Errorf("uses of xs = %d, want 4", got)
	}
	if got := len(f.Writers(z.ID)); got != 1 {
		t.Errorf("writers of z = %d, want 1", got)
	}
	id, ok := f.InstByName("add")
	if !ok || f.Inst(id).Op != OpTensorTensor {
		t.Fatalf("InstByName(add) = %v, %v", id, ok)
	}
	if got := len(f.Loopnest(id)); got != 1 {
		t.Errorf("loopnest depth = %d, want 1", got)
	}
	if got := f.Attrs(id).Str("op", ""); got != "add" {
		t.Errorf("op attr = %q", got)
	}
	f.Remove(id)
	if got := f.NumInsts(); got != 3 {
		t.Errorf("after Remove NumInsts = %d, want 3", got)
	}
	if _, ok := f.InstByName("add"); ok {
		t.Error("removed instruction still found by name")
	}
}

func TestSizes(t *testing.T) {
	if s := unsafe.Sizeof(Instruction{}); s > 40 {
		t.Errorf("Instruction is %d bytes, want <= 40", s)
	}
	if s := unsafe.Sizeof(Operand{}); s > 32 {
		t.Errorf("Operand is %d bytes, want <= 32", s)
	}
}
