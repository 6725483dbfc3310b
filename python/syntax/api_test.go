// Tests of the API around the parser: ParseExpr (compared with CPython's
// eval mode), Inspect, File.Line, FloatRepr, the bound on nesting, and
// the positions an error carries.

package syntax

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

var parseExprTests = []string{
	"1 + 2 * 3",
	"a, b",
	"1,",
	"(yield)",
	"a if b else c",
	"lambda x, *y: x",
	"1\n\n",
	"(128, 512)",
	"[1.5, -2, 3j, 0x10]",
	"{'k': [1, 2], **m}",
	`"a" 'b' f"{c!r:>{w}}"`,
	"np.float32",
	"x[1:2, ::3]",
	"not a in b",
	// Errors.
	"*a, b",
	"x := 1",
	"  1",
	"1;",
	"x = 1",
	"1 2",
	"(1 2)",
	"def f(): pass",
}

func TestParseExpr_MatchesCPython(t *testing.T) {
	py, why := findPython311()
	if py == "" {
		t.Skip("comparison with CPython skipped: " + why)
	}
	var jobs []dumpJob
	for i, src := range parseExprTests {
		jobs = append(jobs, dumpJob{Name: fmt.Sprint(i), Src: src, Mode: "eval"})
	}
	results := runDumpScript(t, py, jobs)
	for i, src := range parseExprTests {
		r := results[fmt.Sprint(i)]
		e, err := ParseExpr("arg", []byte(src))
		switch {
		case r.Error != nil && err == nil:
			t.Errorf("%q: CPython: %s %q at %d:%d; narwhal parses it", src, r.Error.Kind, r.Error.Msg, r.Error.Line, r.Error.Offset)
		case r.Error == nil && err != nil:
			t.Errorf("%q: %v; CPython parses it", src, err)
		case r.Error != nil:
			var se *Error
			errors.As(err, &se)
			if got := (pyError{se.Kind, se.Msg, se.Line, se.Col}); got != *r.Error {
				t.Errorf("%q: %+v, CPython %+v", src, got, *r.Error)
			}
		default:
			if got := Dump(e); got != r.Dump {
				t.Errorf("%q: dump differs at %s", src, firstDiff(r.Dump, got))
			}
		}
	}
}

func TestParseExpr_Values(t *testing.T) {
	e, err := ParseExpr("arg", []byte("(128, 2 ** 9)"))
	if err != nil {
		t.Fatal(err)
	}
	tup, ok := e.(*Tuple)
	if !ok || len(tup.Elts) != 2 {
		t.Fatalf("got %s", Dump(e))
	}
	if c := tup.Elts[0].(*Constant); c.Int().Int64() != 128 {
		t.Errorf("first element %s", Dump(c))
	}
	if b := tup.Elts[1].(*BinOp); b.Op != Pow || b.Span != (Span{Pos{1, 6}, Pos{1, 12}}) {
		t.Errorf("second element %s", Dump(b))
	}
}

func TestAttribute_AttrPos(t *testing.T) {
	e, err := ParseExpr("arg", []byte("(nl\n  .language.tile_size)"))
	if err != nil {
		t.Fatal(err)
	}
	outer := e.(*Attribute)
	inner := outer.Value.(*Attribute)
	if outer.Attr != "tile_size" || outer.AttrPos != (Pos{2, 12}) || inner.Attr != "language" || inner.AttrPos != (Pos{2, 3}) {
		t.Errorf("got %s at %v and %s at %v", outer.Attr, outer.AttrPos, inner.Attr, inner.AttrPos)
	}
}

func TestInspect_VisitsEveryNodeInOrder(t *testing.T) {
	f, err := Parse("t.py", []byte("def f(a, b=1):\n    return g(a)[b:]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	depth, maxDepth := 0, 0
	InspectFile(f, func(n Node) bool {
		if n == nil {
			depth--
			return false
		}
		depth++
		maxDepth = max(maxDepth, depth)
		name, _, _ := nodeFields(n)
		got = append(got, name)
		return true
	})
	want := "FunctionDef arguments arg arg Constant Return Subscript Call Name Name Slice Name"
	if strings.Join(got, " ") != want {
		t.Errorf("visited %s\nwant    %s", strings.Join(got, " "), want)
	}
	if depth != 0 || maxDepth != 5 {
		t.Errorf("depth %d at the end, %d at most; want 0 and 5", depth, maxDepth)
	}
	// Returning false skips the children.
	n := 0
	InspectFile(f, func(x Node) bool {
		if x != nil {
			n++
		}
		_, isCall := x.(*Call)
		return !isCall
	})
	if n != 10 {
		t.Errorf("with calls pruned: %d nodes, want 10", n)
	}
}

func TestFile_Line(t *testing.T) {
	f, err := Parse("t.py", []byte("a = 1\r\nb = 2\n\nc = 3"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "a = 1", "b = 2", "", "c = 3", ""} {
		if got := f.Line(i); got != want {
			t.Errorf("Line(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestFloatRepr(t *testing.T) {
	for _, tt := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {0.1, "0.1"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
		{1e-5, "1e-05"}, {0.0001, "0.0001"}, {1.5e300, "1.5e+300"}, {123456789.123456789, "123456789.12345679"},
		{math.Inf(1), "inf"}, {-2.5, "-2.5"}, {5e-324, "5e-324"}, {1e22, "1e+22"},
	} {
		if got := FloatRepr(tt.f); got != tt.want {
			t.Errorf("FloatRepr(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestParse_DeepNesting(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string
		ok   bool
	}{
		{"unary minus", strings.Repeat("-", 1000) + "1", true},
		{"unary minus", strings.Repeat("-", 100000) + "1", false},
		{"not", strings.Repeat("not ", 100000) + "x", false},
		{"lambda", strings.Repeat("lambda: ", 100000) + "x", false},
		{"conditional", strings.Repeat("a if b else ", 100000) + "c", false},
		{"power", strings.Repeat("a ** ", 100000) + "c", false},
		{"await", strings.Repeat("await ", 100000) + "c", false},
		{"parentheses", strings.Repeat("(", 199) + strings.Repeat(")", 199), true},
		{"parentheses", strings.Repeat("(", 201) + strings.Repeat(")", 201), false},
		{"nested calls", strings.Repeat("f(", 150) + strings.Repeat(")", 150), true},
		{"nested subscripts", "x" + strings.Repeat("[y", 150) + strings.Repeat("]", 150), true},
		{"nested f-string specs", `f"{x:{y:{z}}}"`, false},
		{"blocks", nestedBlocks(99), true},
		{"blocks", nestedBlocks(101), false},
	} {
		_, err := Parse("deep.py", []byte(tt.src))
		if tt.ok && err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if !tt.ok {
			var e *Error
			if !errors.As(err, &e) || strings.HasPrefix(e.Msg, "internal error") {
				t.Errorf("%s: got %v, want a syntax error", tt.name, err)
			}
		}
	}
}

func nestedBlocks(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "pass\n")
	return b.String()
}
