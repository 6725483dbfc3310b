package birjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/cputime"
)

// TestDecode_Pos reads the "pos" extension: every form round-trips to the
// same bytes, equal objects are interned once, and the text form shows
// the same positions.
func TestDecode_Pos(t *testing.T) {
	in := strings.Replace(base, `"op":"add"`, `"pos":{"file":"kernels.py","line":28,"column":4,"end_line":28,"end_column":40},"op":"add"`, 1)
	m, err := Decode([]byte(in), "p.json")
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	i, ok := f.InstByName("add_3")
	if !ok {
		t.Fatal("no add_3")
	}
	want := bir.Pos{File: "kernels.py", Line: 28, Col: 4, EndLine: 28, EndCol: 40}
	if got := f.InstPos(i); got != want {
		t.Errorf("position %+v, want %+v", got, want)
	}
	out, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"pos":{"file":"kernels.py","line":28,"column":4,"end_line":28,"end_column":40}`)) {
		t.Errorf("encoded module lacks the position:\n%s", out)
	}
	m2, err := Decode(out, "p2.json")
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := Encode(m2)
	if !bytes.Equal(out, out2) {
		t.Error("Encode(Decode(Encode(m))) != Encode(m)")
	}
	if s := bir.Format(m2); !strings.Contains(s, `loc("kernels.py":28:4 to 28:40)`) {
		t.Errorf("text form lacks the position:\n%s", s)
	}

	// Two instructions with one position share one table entry; a
	// position without a file is written without "file".
	f.SetPos(i, bir.Pos{Line: 7, Col: 2})
	out, _ = Encode(m)
	if !bytes.Contains(out, []byte(`"pos":{"line":7,"column":2}`)) {
		t.Errorf("file-less position not written as expected:\n%s", out)
	}
	n := m.NumPositions()
	m.InternPos(bir.Pos{Line: 7, Col: 2})
	if m.NumPositions() != n {
		t.Error("an equal position was interned twice")
	}
}

func TestDecode_PosErrors(t *testing.T) {
	rep := func(pos string) string {
		return strings.Replace(base, `"op":"add"`, `"pos":`+pos+`,"op":"add"`, 1)
	}
	cases := []struct{ name, pos, want string }{
		{"no line", `{"file":"k.py","column":3}`, `instruction add_3: pos: missing "line"`},
		{"zero line", `{"line":0,"column":3}`, `pos.line: want an integer in [1, 2147483647], have 0`},
		{"negative column", `{"line":1,"column":-3}`, `pos.column: want an integer in [0, 2147483647], have -3`},
		{"huge line", `{"line":2147483648,"column":3}`, `pos.line: want an integer in [1, 2147483647], have 2147483648`},
		{"unknown key", `{"line":1,"col":3}`, `pos: unknown key "col" (want file, line, column, end_line, end_column)`},
		{"duplicate key", `{"line":1,"line":2}`, `duplicate key "line"`},
		{"not an object", `"k.py:3:4"`, `pos: want an object`},
		{"file not a string", `{"file":3,"line":1}`, `want a string, found a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(rep(c.pos)), "e.json")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want a *birjson.Error", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\n  does not contain %q", err, c.want)
			}
		})
	}
	// A "pos" attribute cannot be written: the key is the extension's.
	m, err := Decode([]byte(base), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	i, _ := m.Main().InstByName("add_3")
	m.Main().SetAttr(i, "pos", bir.Int(3))
	if _, err := Encode(m); err == nil || !strings.Contains(err.Error(), `attribute "pos" collides with a key the format reserves`) {
		t.Errorf("encoding a \"pos\" attribute: %v, want a collision error", err)
	}
}

// BenchmarkReadWrite1MPos: the 1M-instruction straight-line module with a
// source position on every instruction (100 distinct ones, as a kernel of
// 100 statements unrolled gives), read and written. Compare with
// BenchmarkRead1M and BenchmarkWrite1M for the cost of the "pos" key.
func BenchmarkReadWrite1MPos(b *testing.B) {
	m := bir.GenStraightLine(1_000_000)
	f := m.Main()
	for i := 0; i < f.NumInstSlots(); i++ {
		f.SetPos(bir.InstID(i), bir.Pos{File: "kernels.py", Line: int32(10 + i%100), Col: 4})
	}
	text, err := Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(m.NumInsts())
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		c0, cpuOK := cputime.Now()
		for range b.N {
			if _, err := Decode(text, "pos.json"); err != nil {
				b.Fatal(err)
			}
		}
		c1, _ := cputime.Now()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
		reportCPU(b, c1-c0, cpuOK, n, len(text))
	})
	b.Run("write", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		c0, cpuOK := cputime.Now()
		for range b.N {
			if err := Write(io.Discard, m); err != nil {
				b.Fatal(err)
			}
		}
		c1, _ := cputime.Now()
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
		reportCPU(b, c1-c0, cpuOK, n, len(text))
	})
}
