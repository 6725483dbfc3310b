package bir

import "testing"

func TestBuilder_OptionalOperands(t *testing.T) {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	x := b.SBUF("x", Float32, 128, 8)
	s := b.SBUF("s", Float32, 128, 1)
	act := b.Activation("exp", "Exp", x.All(), x.All(), 1, Operand{})
	actBias := b.Activation("exp_b", "Exp", x.All(), x.All(), 1, s.All())
	tsp := b.TensorScalarPtr("tsp", EngDVE, x.All(), x.All(), s.All(), "mult", Operand{}, "bypass")
	tsp2 := b.TensorScalarPtr("tsp2", EngDVE, x.All(), x.All(), s.All(), "mult", s.All(), "add")
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   InstID
		nIns int
	}{{act, 1}, {actBias, 2}, {tsp, 2}, {tsp2, 3}} {
		if got := len(b.F.Ins(tt.id)); got != tt.nIns {
			t.Errorf("%s: %d sources, want %d", b.F.InstName(tt.id), got, tt.nIns)
		}
	}
	if !(Operand{}).IsZero() || x.All().IsZero() {
		t.Error("IsZero: want true only for the zero Operand")
	}
}
