package tracer

// Errors as data: kind, message, position (file:line:col of the innermost
// source position), traceback and diag code, for Python exceptions that
// escape, NotSupported constructs and trace limits.

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

func runSource(t *testing.T, src string, opts ThreadOptions) (string, error) {
	t.Helper()
	f, err := syntax.Parse("bad.py", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var out strings.Builder
	opts.Print = &out
	th := NewThread(opts)
	_, err = ExecFile(th, f, "__main__")
	return out.String(), err
}

func TestError_KindMessagePosition(t *testing.T) {
	tests := []struct {
		name, src, kind, msg, pos, code string
	}{
		{"name", "x = 1\ny = x + undefined_thing\n", "NameError", "name 'undefined_thing' is not defined", "bad.py:2:9", "NW420"},
		{"type wording", "def load(src, dst=None):\n    pass\nload()\n", "TypeError", "load() missing 1 required positional argument: 'src'", "bad.py:3:1", "NW420"},
		{"unexpected kw", "def f(a):\n    pass\nf(1, x=2)\n", "TypeError", "f() got an unexpected keyword argument 'x'", "bad.py:3:1", "NW420"},
		{"multiple values", "def f(a):\n    pass\nf(1, a=2)\n", "TypeError", "f() got multiple values for argument 'a'", "bad.py:3:1", "NW420"},
		{"attribute", "class T:\n    pass\nt = T()\nprint(t.shape)\n", "AttributeError", "'T' object has no attribute 'shape'", "bad.py:4:7", "NW420"},
		{"assert", "n = 256\nassert n <= 128, f'partition {n} > 128'\n", "AssertionError", "partition 256 > 128", "bad.py:2:1", "NW420"},
		{"raise user", "class E(Exception):\n    pass\ndef f():\n    raise E('boom')\nf()\n", "E", "boom", "bad.py:4:5", "NW420"},
		{"index", "xs = [1, 2]\nprint(xs[2])\n", "IndexError", "list index out of range", "bad.py:2:7", "NW420"},
		{"key", "d = {}\nd['k']\n", "KeyError", "'k'", "bad.py:2:1", "NW420"},
		{"binary", "x = 'a' + 1\n", "TypeError", "can only concatenate str (not \"int\") to str", "bad.py:1:5", "NW420"},
		{"unbound", "def f():\n    print(v)\n    v = 1\nf()\n", "UnboundLocalError", "cannot access local variable 'v' where it is not associated with a value", "bad.py:2:11", "NW420"},
		{"match", "match 1:\n    case 1:\n        pass\n", "NotSupported", "the match statement is not supported", "bad.py:1:1", "NW421"},
		{"async def", "async def f():\n    pass\n", "NotSupported", "async def is not supported", "bad.py:1:1", "NW421"},
		{"complex", "x = 1\ny = 2j\n", "NotSupported", "complex numbers (an imaginary literal) are not supported", "bad.py:2:5", "NW421"},
		{"open", "f = open('x')\n", "NotSupported", "the builtin open() is not supported in a kernel", "bad.py:1:5", "NW421"},
		{"metaclass", "class M(type):\n    pass\nclass C(metaclass=M):\n    pass\n", "NotSupported", "metaclasses are not supported (class C)", "bad.py:3:1", "NW421"},
		{"os attr", "import os\nos.listdir('.')\n", "NotSupported", "os.listdir is not supported in a kernel", "bad.py:2:1", "NW421"},
		{"await", "async def f():\n    await g()\n", "NotSupported", "async def is not supported", "bad.py:1:1", "NW421"},
		{"module", "import torch\n", "ModuleNotFoundError", "No module named 'torch'", "bad.py:1:8", "NW420"},
		// What CPython's compiler (not its parser) refuses: a syntax error,
		// NW206, reported before any of the module runs.
		{"return outside", "print('ran')\nreturn 3\n", "SyntaxError", "'return' outside function", "bad.py:2:1", "NW206"},
		{"return in class", "class C:\n    return 1\n", "SyntaxError", "'return' outside function", "bad.py:2:5", "NW206"},
		{"break outside", "x = 1\nbreak\n", "SyntaxError", "'break' outside loop", "bad.py:2:1", "NW206"},
		{"continue in else", "for i in []:\n    pass\nelse:\n    continue\n", "SyntaxError", "'continue' not properly in loop", "bad.py:4:5", "NW206"},
		{"break in a function in a loop", "for i in [1]:\n    def f():\n        break\n", "SyntaxError", "'break' outside loop", "bad.py:3:9", "NW206"},
		{"nonlocal", "nonlocal x\n", "SyntaxError", "nonlocal declaration not allowed at module level", "bad.py:1:1", "NW206"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSource(t, tc.src, ThreadOptions{})
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("want *Error, got %T %v", err, err)
			}
			if e.Kind != tc.kind || e.Msg != tc.msg {
				t.Errorf("got %s: %s, want %s: %s", e.Kind, e.Msg, tc.kind, tc.msg)
			}
			if e.Pos.String() != tc.pos {
				t.Errorf("position %s, want %s", e.Pos, tc.pos)
			}
			if e.Code != tc.code || e.ErrorCode() != tc.code {
				t.Errorf("code %s, want %s", e.Code, tc.code)
			}
		})
	}
}

func TestError_Traceback(t *testing.T) {
	src := `def inner(x):
    return x[5]
def outer():
    return inner([1])
outer()
`
	_, err := runSource(t, src, ThreadOptions{})
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %v", err)
	}
	var tb []string
	for _, f := range e.Traceback {
		tb = append(tb, f.Func+"@"+f.Pos.String())
	}
	want := "<module>@bad.py:5:1 outer@bad.py:4:12 inner@bad.py:2:12"
	if strings.Join(tb, " ") != want {
		t.Errorf("traceback %v, want %s", tb, want)
	}
	if e.Error() != "bad.py:2:12: IndexError: list index out of range" {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestError_NotSupportedNotCaught(t *testing.T) {
	src := `try:
    match 3:
        case _:
            pass
except Exception:
    print("caught")
`
	out, err := runSource(t, src, ThreadOptions{})
	e, ok := err.(*Error)
	if !ok || e.Kind != "NotSupported" || out != "" {
		t.Errorf("a NotSupported must not be caught by except: out %q err %v", out, err)
	}
}

func TestError_Limits(t *testing.T) {
	tests := []struct {
		name, src string
		opts      ThreadOptions
		kind, msg string
	}{
		{"steps", "while True:\n    pass\n", ThreadOptions{MaxSteps: 10_000}, "LimitExceeded", "budget of 10000 evaluation steps"},
		{"recursion", "def f(n):\n    return f(n + 1)\nf(0)\n", ThreadOptions{MaxDepth: 50}, "RecursionError", "maximum recursion depth exceeded"},
		{"list repeat", "x = [0] * (10 ** 9)\n", ThreadOptions{}, "MemoryError", "limit of"},
		{"str repeat", "x = 'ab' * (10 ** 12)\n", ThreadOptions{}, "MemoryError", "limit of"},
		{"big pow", "x = 7 ** (10 ** 9)\n", ThreadOptions{}, "MemoryError", "bits for an int"},
		{"range list", "x = list(range(10 ** 12))\n", ThreadOptions{}, "MemoryError", "limit of"},
		{"shift", "x = 1 << (1 << 40)\n", ThreadOptions{}, "MemoryError", "bits for an int"},
		{"generator", "def g():\n    while True:\n        yield 1\nx = list(g())\n", ThreadOptions{MaxSize: 1000}, "MemoryError", "limit of 1000 elements"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runSource(t, tc.src, tc.opts)
			e, ok := err.(*Error)
			if !ok || e.Kind != tc.kind || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("got %v, want %s containing %q", err, tc.kind, tc.msg)
			}
			if !e.Pos.IsKnown() {
				t.Errorf("no position: %v", e)
			}
		})
	}
}

func TestUnpackArgs_Messages(t *testing.T) {
	var src, dst Value
	var mask Value = None
	var rest []Value
	var kw []Kwarg
	tests := []struct {
		args []Value
		kw   []Kwarg
		want string
	}{
		{nil, nil, "load() missing 1 required positional argument: 'src'"},
		{[]Value{intValue(1)}, []Kwarg{{"src", intValue(2)}}, "load() got multiple values for argument 'src'"},
		{[]Value{intValue(1)}, []Kwarg{{"x", intValue(2)}}, "load() got an unexpected keyword argument 'x'"},
		{[]Value{intValue(1)}, []Kwarg{{"mask", intValue(2)}}, ""},
	}
	for _, tc := range tests {
		err := UnpackArgs("load", tc.args, tc.kw, "src", &src, "dst?", &dst, "*", &rest, "mask?", &mask)
		got := ""
		if err != nil {
			got = err.(*Error).Msg
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if err := UnpackArgs("f", []Value{intValue(1), intValue(2)}, []Kwarg{{"k", None}}, "a", &src, "*", &rest, "**", &kw); err != nil ||
		len(rest) != 1 || len(kw) != 1 {
		t.Errorf("rest %v kw %v err %v", rest, kw, err)
	}
	if err := UnpackArgs("f", nil, nil, "a", &src, "b", &dst, "c", &mask); err == nil ||
		err.(*Error).Msg != "f() missing 3 required positional arguments: 'a', 'b', and 'c'" {
		t.Errorf("got %v", err)
	}
	if err := UnpackArgs("load", []Value{intValue(1), intValue(2), intValue(3)}, nil, "src", &src, "dst?", &dst); err == nil ||
		err.(*Error).Msg != "load() takes from 1 to 2 positional arguments but 3 were given" {
		t.Errorf("got %v", err)
	}
	var n int
	if err := UnpackArgs("f", []Value{String("x")}, nil, "n", &n); err == nil ||
		err.(*Error).Msg != "'str' object cannot be interpreted as an integer" {
		t.Errorf("got %v", err)
	}
}

func TestNoPanic_GoEntryPoints(t *testing.T) {
	th := NewThread(ThreadOptions{})
	// Calling values from Go outside any Python frame.
	if _, err := Call(th, intValue(3), nil, nil); err == nil || !strings.Contains(err.Error(), "not callable") {
		t.Errorf("got %v", err)
	}
	v, err := EvalExpr(th, nil, "(3, 'x', [1.5, None])")
	if err != nil || Repr(v) != "(3, 'x', [1.5, None])" {
		t.Errorf("EvalExpr = %v, %v", v, err)
	}
	if _, err := EvalExpr(th, nil, "nl.add"); err == nil || err.(*Error).Kind != "NameError" {
		t.Errorf("got %v", err)
	}
	if _, err := EvalExpr(th, nil, "x = 1"); err == nil {
		t.Errorf("a statement is not an expression")
	}
}
