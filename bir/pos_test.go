package bir

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestPos_String(t *testing.T) {
	for _, tc := range []struct {
		p    Pos
		want string
	}{
		{Pos{File: "kernels.py", Line: 28, Col: 4}, "kernels.py:28:4"},
		{Pos{File: "kernels.py", Line: 28, Col: 4, EndLine: 28, EndCol: 40}, "kernels.py:28:4"},
		{Pos{Line: 3, Col: 0}, "<kernel>:3:0"},
		{Pos{File: "k.py"}, ""},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
	if ClampPosInt(1<<40) != 1<<31-1 || ClampPosInt(7) != 7 {
		t.Error("ClampPosInt does not saturate at MaxInt32")
	}
}

func TestModule_InternPos(t *testing.T) {
	m := NewModule("trn2")
	if m.NumPositions() != 1 || m.InternPos(Pos{File: "a.py"}) != NoPos {
		t.Fatal("an empty table must hold only NoPos, and a line-less position is NoPos")
	}
	a := m.InternPos(Pos{File: "a.py", Line: 1, Col: 2})
	b := m.InternPos(Pos{File: "a.py", Line: 1, Col: 3})
	if a == NoPos || b == NoPos || a == b {
		t.Fatalf("distinct positions got ids %d, %d", a, b)
	}
	if m.InternPos(Pos{File: "a.py", Line: 1, Col: 2}) != a || m.NumPositions() != 3 {
		t.Error("an equal position was not deduplicated")
	}
	if m.Pos(b).Col != 3 || m.Pos(99).IsKnown() || m.Pos(-1).IsKnown() {
		t.Error("Pos(id) wrong or accepts an id outside the table")
	}
	if !m.ValidPos(NoPos) || !m.ValidPos(b) || m.ValidPos(3) || m.ValidPos(-2) {
		t.Error("ValidPos wrong")
	}
}

// posModule: x -> t (load), t -> t (scale), t -> z (store); u is never
// touched. The load has no position, the scale and the store have.
func posModule(t *testing.T) (*Module, *Function, [3]InstID) {
	t.Helper()
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	x := b.Input("x", Float32, 128, 64)
	z := b.Output("z", Float32, 128, 64)
	tt := b.SBUF("t", Float32, 128, 64)
	b.SBUF("u", Float32, 128, 64)
	var ids [3]InstID
	ids[0] = b.Load("ld", tt.All(), x.All())
	b.At(Pos{File: "k.py", Line: 5, Col: 4})
	ids[1] = b.TensorScalar("sc", EngDVE, tt.All(), tt.All(), "mult", 2, "bypass", 0)
	b.At(Pos{File: "k.py", Line: 6, Col: 4})
	ids[2] = b.Save("st", z.All(), tt.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m, b.F, ids
}

func TestFunction_InstPos(t *testing.T) {
	m, f, ids := posModule(t)
	if f.InstPos(ids[0]).IsKnown() || f.InstPos(ids[1]).String() != "k.py:5:4" {
		t.Fatalf("builder positions: %q, %q", f.InstPos(ids[0]), f.InstPos(ids[1]))
	}
	c := f.Clone(ids[1], m.NewSym("sc_copy"))
	if f.Inst(c).Pos != f.Inst(ids[1]).Pos {
		t.Error("Clone dropped the source position")
	}
	n := f.NewInst(OpNoOp, "new", EngUnassigned, nil, nil, nil)
	if f.Inst(n).Pos != NoPos {
		t.Error("NewInst made up a position")
	}
	f.InheritPos(n, ids[2])
	if f.InstPos(n).String() != "k.py:6:4" {
		t.Errorf("InheritPos: %q, want k.py:6:4", f.InstPos(n))
	}

	// A copy into another module re-interns the positions there.
	dst := NewModule("trn2")
	dst.InternPos(Pos{File: "other.py", Line: 1, Col: 1}) // shift the ids
	g, err := CopyFunction(dst, f, "copy")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ids {
		if g.InstPos(i) != f.InstPos(i) {
			t.Errorf("CopyFunction: instruction %s at %q, want %q", g.InstName(i), g.InstPos(i), f.InstPos(i))
		}
	}
}

func TestFunction_TensorPos(t *testing.T) {
	_, f, _ := posModule(t)
	for _, tc := range []struct{ tensor, want string }{
		{"t_set", "k.py:5:4"}, // the load has no position: the scale is the first with one
		{"z_set", "k.py:6:4"},
		{"x_set", ""}, // only the load reaches it
		{"u_set", ""}, // nothing reaches it
	} {
		id, ok := f.TensorByName(tc.tensor)
		if !ok {
			t.Fatalf("no tensor %s", tc.tensor)
		}
		if got := f.TensorPos(id).String(); got != tc.want {
			t.Errorf("TensorPos(%s) = %q, want %q", tc.tensor, got, tc.want)
		}
		if got := f.LocPos(f.Tensor(id).Locs[0]).String(); got != tc.want {
			t.Errorf("LocPos(%s) = %q, want %q", tc.tensor, got, tc.want)
		}
	}
	if f.LocPos(-1).IsKnown() || f.LocPos(LocID(f.NumLocs())).IsKnown() {
		t.Error("LocPos of an id outside the table has a position")
	}
}

func TestFunction_Errorf(t *testing.T) {
	_, f, ids := posModule(t)
	tt, _ := f.TensorByName("t_set")
	for _, tc := range []struct {
		err  error
		want string
		pos  string
	}{
		{f.Errorf(ids[1], "want %d, have %d", 1, 2), "k.py:5:4: function main, instruction sc (TensorScalar): want 1, have 2", "k.py:5:4"},
		{f.Errorf(ids[0], "no position"), "function main, instruction ld (Load): no position", ""},
		{f.Errorf(InstID(99), "bad id"), "function main, instruction #99: bad id", ""},
		{f.TensorErrorf(tt, "too big"), "k.py:5:4: function main, tensor t_set: too big", "k.py:5:4"},
		{f.TensorErrorf(TensorID(-1), "x"), "function main, tensor #-1: x", ""},
		{f.WrapErr(ids[2], errors.New("plain")), "k.py:6:4: plain", "k.py:6:4"},
		// A position already attached is kept, not doubled.
		{f.WrapErr(ids[2], f.Errorf(ids[1], "inner")), "k.py:5:4: function main, instruction sc (TensorScalar): inner", "k.py:5:4"},
		{fmt.Errorf("outer: %w", f.Errorf(ids[1], "wrapped")), "outer: k.py:5:4: function main, instruction sc (TensorScalar): wrapped", "k.py:5:4"},
	} {
		if tc.err.Error() != tc.want {
			t.Errorf("error %q\n  want %q", tc.err, tc.want)
		}
		if got := ErrorPos(tc.err).String(); got != tc.pos {
			t.Errorf("ErrorPos(%q) = %q, want %q", tc.err, got, tc.pos)
		}
	}
	if f.WrapErr(ids[1], nil) != nil {
		t.Error("WrapErr(nil) is not nil")
	}
}

func TestText_PosErrors(t *testing.T) {
	const hdr = "func @main {\nB:\n"
	for _, tc := range []struct{ src, want string }{
		{hdr + "  x = NoOp loc(k.py:1:2)\n}", `expected a source file name (a "string")`},
		{hdr + "  x = NoOp loc(\"k.py\":0:2)\n}", `a source line must be in [1, 2147483647], have 0`},
		{hdr + "  x = NoOp loc(\"k.py\":1:-2)\n}", `a source column must be in [0, 2147483647], have -2`},
		{hdr + "  x = NoOp loc(\"k.py\":1)\n}", `expected ':'`},
		{hdr + "  x = NoOp loc(\"k.py\":1:2 to 3)\n}", `expected ':'`},
		{hdr + "  x = NoOp loc(\"k.py\":1:2\n}", `expected ')'`},
		{hdr + "  x = NoOp loc(\"k.py\":3000000000:2)\n}", `a source line must be in [1, 2147483647], have 3000000000`},
	} {
		_, err := Parse("e.bir", []byte(tc.src))
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.src, tc.want)
			continue
		}
		if _, ok := err.(*TextError); !ok {
			t.Errorf("Parse(%q): error of type %T, want *TextError", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q):\n  error %q\n  want  %q", tc.src, err, tc.want)
		}
	}
}

// TestText_PosCorrupt: a position id outside the table prints as loc(?),
// which does not read back (like other corrupt intern ids).
func TestText_PosCorrupt(t *testing.T) {
	_, f, ids := posModule(t)
	f.Inst(ids[1]).Pos = 77
	s := Format(f.Module())
	if !strings.Contains(s, "loc(?)") {
		t.Fatalf("corrupt position not printed as loc(?):\n%s", s)
	}
	if _, err := Parse("c.bir", []byte(s)); err == nil {
		t.Error("loc(?) read back")
	}
}
