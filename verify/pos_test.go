package verify

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestDiag_Pos: diagnostics lead with the NKI source line: an instruction
// diagnostic with the instruction's, a tensor or location diagnostic with
// the first instruction that reaches it; the error's SourcePos is the
// first diagnostic's; a position id outside the module's table is a ref
// diagnostic.
func TestDiag_Pos(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	p := b.PSUM("p", bir.Float32, 128, 64)
	b.At(bir.Pos{File: "k.py", Line: 3, Col: 4})
	b.Load("ld", s.All(), x.All())
	b.At(bir.Pos{File: "k.py", Line: 7, Col: 8})
	// The GpSimd engine never touches PSUM (rule gpsimd-psum).
	b.TensorCopy("cp", bir.EngPool, p.All(), s.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	f.Tensor(s.ID).Dtype = bir.Dtype(99) // rule dtype, about tensor s_set

	err := Module(m, Options{})
	ds := diags(t, err)
	var inst, tensor *Diag
	for k := range ds {
		switch {
		case ds[k].Rule == "gpsimd-psum":
			inst = &ds[k]
		case ds[k].Tensor == "s_set" && ds[k].Inst == "":
			tensor = &ds[k]
		}
	}
	if inst == nil || tensor == nil {
		t.Fatalf("want a gpsimd-psum and a tensor diagnostic, have %v", ds)
	}
	if got := inst.Pos.String(); got != "k.py:7:8" || !strings.HasPrefix(inst.String(), "k.py:7:8: function main, instruction cp (TensorCopy)") {
		t.Errorf("instruction diagnostic at %q: %s", got, inst)
	}
	if got := tensor.Pos.String(); got != "k.py:3:4" || !strings.HasPrefix(tensor.String(), "k.py:3:4: function main, tensor s_set: ") {
		t.Errorf("tensor diagnostic at %q: %s", got, tensor)
	}
	if got := err.(*Error).SourcePos(); got != ds[0].Pos {
		t.Errorf("SourcePos %q, want the first diagnostic's %q", got, ds[0].Pos)
	}
	if got := bir.ErrorPos(err); got != ds[0].Pos {
		t.Errorf("bir.ErrorPos %q, want %q", got, ds[0].Pos)
	}

	f.Tensor(s.ID).Dtype = bir.Float32
	f.Inst(0).Pos = 1234
	found := false
	for _, d := range diags(t, Module(m, Options{})) {
		if d.Rule == "ref" && strings.Contains(d.Msg, "source position #1234") {
			found = true
			if d.Pos.IsKnown() {
				t.Errorf("a diagnostic about a corrupt position claims position %q", d.Pos)
			}
		}
	}
	if !found {
		t.Error("a position id outside the table is not reported")
	}
}
