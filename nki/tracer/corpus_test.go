package tracer

// The CPython-comparison corpus: every testdata/py/*.py program runs in
// the tracer (print output captured; an uncaught exception rendered as
// "Kind: message (line N)") and the result is compared with its golden
// testdata/py/*.out. The goldens are CPython's output: with python3
// available the test also runs the whole corpus in one CPython process
// and checks that the goldens still say what CPython says; -update
// rewrites them from CPython.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

var update = flag.Bool("update", false, "rewrite the corpus goldens from CPython")

// cpythonDriver runs each file given on the command line as __main__ with
// stdout captured, and prints a JSON object: path -> {out, err}.
const cpythonDriver = `
import sys, io, json, contextlib, types
res = {}
main = sys.modules["__main__"]
for p in sys.argv[1:]:
    buf = io.StringIO()
    err = None
    mod = types.ModuleType("__main__")
    mod.__file__ = p
    sys.modules["__main__"] = mod
    try:
        src = open(p).read()
        code = compile(src, p, "exec")
        with contextlib.redirect_stdout(buf):
            exec(code, mod.__dict__)
    except BaseException as e:
        tb = e.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == p:
                line = tb.tb_lineno
            tb = tb.tb_next
        err = "%s: %s (line %s)" % (type(e).__name__, e, line)
    sys.modules["__main__"] = main
    res[p] = {"out": buf.getvalue(), "err": err}
sys.stdout.write(json.dumps(res))
`

// findPython returns a CPython 3.11+ interpreter, or "".
func findPython(t testing.TB) string {
	cands := []string{os.Getenv("NARWHAL_PYTHON"), "python3", "/usr/bin/python3"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		p, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		out, err := exec.Command(p, "-c", "import sys; print(sys.version_info >= (3, 11))").Output()
		if err == nil && strings.TrimSpace(string(out)) == "True" {
			return p
		}
	}
	return ""
}

type corpusResult struct {
	Out string  `json:"out"`
	Err *string `json:"err"`
}

func (r corpusResult) render() string {
	s := r.Out
	if r.Err != nil {
		s += "!! " + *r.Err + "\n"
	}
	return s
}

// runTracer runs one program file in the tracer.
func runTracer(path string) corpusResult {
	src, err := os.ReadFile(path)
	if err != nil {
		e := err.Error()
		return corpusResult{Err: &e}
	}
	var out strings.Builder
	th := NewThread(ThreadOptions{Print: &out, MaxSteps: 20_000_000})
	f, err := syntax.Parse(path, src)
	if err == nil {
		_, err = ExecFile(th, f, "__main__")
	}
	r := corpusResult{Out: out.String()}
	if err != nil {
		var s string
		switch e := err.(type) {
		case *Error:
			s = fmt.Sprintf("%s: %s (line %d)", e.Kind, e.Msg, e.Pos.Line)
		case *syntax.Error:
			s = fmt.Sprintf("%s: %s (line %d)", e.Kind, e.Msg, e.Line)
		default:
			s = fmt.Sprintf("%T: %v", err, err)
		}
		r.Err = &s
	}
	return r
}

func corpusFiles(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "py", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	return files
}

func runCPython(t *testing.T, py string, files []string) map[string]corpusResult {
	cmd := exec.Command(py, append([]string{"-c", cpythonDriver}, files...)...)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("running CPython: %v", err)
	}
	res := map[string]corpusResult{}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("CPython driver output: %v", err)
	}
	return res
}

func TestCorpus_MatchesCPython(t *testing.T) {
	files := corpusFiles(t)
	if len(files) == 0 {
		t.Fatal("no corpus programs")
	}
	py := findPython(t)
	var cp map[string]corpusResult
	if py != "" {
		cp = runCPython(t, py, files)
	} else if *update {
		t.Fatal("-update needs python3")
	} else {
		t.Log("python3 (3.11+) not found: comparing with the goldens only")
	}
	for _, f := range files {
		golden := strings.TrimSuffix(f, ".py") + ".out"
		if cp != nil {
			want := cp[f].render()
			if *update {
				if err := os.WriteFile(golden, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
			} else if g, err := os.ReadFile(golden); err != nil || string(g) != want {
				t.Errorf("%s: golden out of date with CPython (run with -update)", golden)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: %v", golden, err)
			continue
		}
		got := runTracer(f).render()
		if got != string(want) {
			t.Errorf("%s: tracer differs from CPython\n%s", f, diffLines(string(want), got))
		}
	}
}

// diffLines shows the first differing lines.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n  cpython: %q\n  tracer:  %q\n", i+1, a, c)
			shown++
			if shown == 5 {
				break
			}
		}
	}
	return b.String()
}
