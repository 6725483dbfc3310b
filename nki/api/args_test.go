package api

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// TestArgReader_FirstErrorWins: with several arguments wrong, the error is
// the first conversion's in the binding's order, and a later conversion
// does not run (its argument would fail differently).
func TestArgReader_FirstErrorWins(t *testing.T) {
	r := newArgs("nisa.example")
	a := r.tile(tracer.None, "data")
	if r.ok() || r.err == nil || !strings.Contains(r.err.Error(), "data") {
		t.Fatalf("tile(None): err %v, want an error naming data", r.err)
	}
	first := r.err
	d := r.dst(tracer.MakeInt(3))
	s := r.alu(tracer.MakeInt(4))
	r.fail(typeErrorf("a later failure"))
	if r.err != first {
		t.Errorf("after later failures err = %v, want the first, %v", r.err, first)
	}
	if a.T != nil || d.T != nil || s != "" {
		t.Errorf("skipped conversions returned %v, %v, %q; want zero values", a, d, s)
	}
	if p := r.optTile(tracer.MakeInt(5), "bias"); p != nil {
		t.Errorf("optTile after a failure = %v, want nil", p)
	}
}

// TestArgReader_Order: bindings whose arguments are all wrong report the
// one they check first (kernel traces, the error's kind, code, text and
// line as the user sees them).
func TestArgReader_Order(t *testing.T) {
	head := strings.TrimSuffix(curHead, "@nki.jit\n") + "@nki.jit\ndef k(a, b):\n"
	cases := []struct {
		name, body, kind, code, text string
		line                         int
	}{
		{"op before dst", "    nisa.tensor_tensor(dst=b, data1=a, data2=a, op=3)\n", "NKIError", "NW422", "op=3 is not an ALU operator", 9},
		{"dst before data1", "    nisa.tensor_tensor(dst=b, data1=a, data2=a, op=nl.add)\n", "NKIError", "NW422", "dst tensor b is in HBM", 9},
		{"data1 before data2", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.tensor_tensor(dst=x, data1=a, data2=b, op=nl.add)\n", "NKIError", "NW422", "data1 tensor a is in HBM", 10},
		{"activation op before dst", "    nisa.activation(dst=b, op=nl.add, data=a)\n", "NKIError", "NW422", "op=", 9},
		{"psum dst before tiles", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.nc_matmul(x, a, b)\n", "NKIError", "NW422", "writes PSUM", 10},
		{"scalar after tile", "    x = nl.ndarray((128, 128), dtype=nl.float32)\n    nisa.tensor_scalar(dst=x, data=a, op0=nl.add, operand0=b)\n", "NKIError", "NW422", "data tensor a is in HBM", 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := traceSrc(t, head+c.body, "k", []Binding{tensorArg("a", bir.Float32, 128, 128), tensorArg("b", bir.Float32, 128, 128)}, nil)
			wantError(t, err, c.kind, c.code, c.text, c.line)
		})
	}
}
