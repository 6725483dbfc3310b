package pass

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/verify"
)

func noop(*Context) error { return nil }

func TestTable_Check(t *testing.T) {
	tests := []struct {
		name    string
		table   Table
		wantErr string
	}{
		{"ok", Table{Passes: []Pass{{Name: "a", Order: 2, Run: noop}, {Name: "b", Run: noop}, {Name: "c", Order: 10, Run: noop}}}, ""},
		{"duplicate", Table{Passes: []Pass{{Name: "a", Run: noop}, {Name: "a", Run: noop}}}, "appears twice"},
		{"no run", Table{Passes: []Pass{{Name: "a"}}}, "no Run"},
		{"order decreases", Table{Passes: []Pass{{Name: "a", Order: 18, Run: noop}, {Name: "b", Order: 10, Run: noop}}}, "execution order 10"},
		{"constraint violated", Table{
			Passes:      []Pass{{Name: "a", Run: noop}, {Name: "b", Run: noop}},
			Constraints: []Constraint{{Before: "b", After: "a", Why: "because"}},
		}, "b must run before a (because)"},
		{"constraint unknown pass", Table{
			Passes:      []Pass{{Name: "a", Run: noop}},
			Constraints: []Constraint{{Before: "a", After: "zz"}},
		}, "not in the table"},
		{"requires unproduced", Table{Passes: []Pass{
			{Name: "a", Requires: verify.StageUnrolled, Run: noop},
		}}, "requires stage"},
		{"requires produced earlier", Table{Passes: []Pass{
			{Name: "a", Produces: verify.StageUnrolled, Run: noop},
			{Name: "b", Requires: verify.StageUnrolled, Run: noop},
		}}, ""},
		{"option declared twice", Table{Passes: []Pass{{Name: "a", Run: noop, Options: []Option{{Name: "x"}, {Name: "x"}}}}}, "option \"x\" twice"},
	}
	for _, tt := range tests {
		err := tt.table.Check()
		if tt.wantErr == "" {
			if err != nil {
				t.Errorf("%s: Check() = %v, want nil", tt.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("%s: Check() = %v, want an error containing %q", tt.name, err, tt.wantErr)
		}
	}
}

func smallModule(t *testing.T) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	b.Load("ld", s.All(), x.All())
	b.Save("st", z.All(), s.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// recorder returns a table whose passes append their names to *ran.
func recorder(ran *[]string) Table {
	mk := func(name string, def bool, gate string) Pass {
		return Pass{Name: name, Default: def, Gate: gate, Run: func(c *Context) error {
			*ran = append(*ran, c.Pass.Name)
			c.Logf("ran %s", c.Pass.Name)
			c.Count("runs", 1)
			return nil
		}, Options: []Option{{Name: "k", Default: "7"}}}
	}
	return Table{Passes: []Pass{mk("first", true, ""), mk("gated", true, "my-gate"), mk("extra", false, ""), mk("last", true, "")}}
}

func TestTable_RunSelection(t *testing.T) {
	tests := []struct {
		name   string
		passes []string
		gate   bool
		want   string
	}{
		{"default pipeline", nil, false, "first,last"},
		{"gate on", nil, true, "first,gated,last"},
		{"explicit list in table order", []string{"last", "extra"}, false, "extra,last"},
		{"explicit list ignores gates", []string{"gated"}, false, "gated"},
	}
	for _, tt := range tests {
		var ran []string
		table := recorder(&ran)
		m := smallModule(t)
		if tt.gate {
			m.Config.Options["my-gate"] = "true"
		}
		rep, err := table.Run(m, Config{Passes: tt.passes})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := strings.Join(ran, ","); got != tt.want {
			t.Errorf("%s: ran %s, want %s", tt.name, got, tt.want)
		}
		if tt.passes == nil && !tt.gate {
			if r := rep.Result("gated"); r == nil || !strings.Contains(r.Skipped, "my-gate") {
				t.Errorf("%s: the report does not say why gated was skipped: %+v", tt.name, r)
			}
		}
	}
}

func TestTable_RunErrors(t *testing.T) {
	var ran []string
	table := recorder(&ran)
	if _, err := table.Run(smallModule(t), Config{Passes: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `unknown pass "nope"`) {
		t.Errorf("unknown pass: %v", err)
	}
	if _, err := table.Run(smallModule(t), Config{Options: map[string]map[string]string{"first": {"zz": "1"}}}); err == nil || !strings.Contains(err.Error(), `no option "zz"`) {
		t.Errorf("unknown option: %v", err)
	}
	if _, err := table.Run(smallModule(t), Config{Options: map[string]map[string]string{"ghost": {"k": "1"}}}); err == nil || !strings.Contains(err.Error(), "unknown pass") {
		t.Errorf("option of an unknown pass: %v", err)
	}
}

func TestTable_RunPanicBecomesError(t *testing.T) {
	table := Table{Passes: []Pass{{Name: "boom", Default: true, Run: func(c *Context) error {
		return c.ForEachFunction(func(f *bir.Function) error {
			var s []int
			_ = s[3] // index out of range
			return nil
		})
	}}}}
	_, err := table.Run(smallModule(t), Config{})
	var pe *Error
	if !errors.As(err, &pe) || !pe.Panic || pe.Pass != "boom" || pe.Function != "main" {
		t.Fatalf("err = %v, want a panic Error naming pass boom and function main", err)
	}
	if !strings.Contains(err.Error(), "pass boom, function main: internal error (panic)") {
		t.Errorf("message %q", err.Error())
	}
}

// TestTable_RunPanicNamesHookedFunction: the pattern of the passes whose
// entry points take an OnFunction hook (sb_size_legalization, vn_splitter,
// shrink_ml, the unrollers): the pass entry wires the hook to
// Context.Function and clears it on a normal return. A panic names the
// function the hook last named; a panic after the hook was told "" (a
// module-wide step) names none; a returned error is not attributed to the
// function the loop stopped at.
func TestTable_RunPanicNamesHookedFunction(t *testing.T) {
	twoFuncs := func(t *testing.T) *bir.Module {
		m := smallModule(t)
		b := bir.NewBuilder(m, "helper")
		s := b.SBUF("s", bir.Float32, 128, 64)
		b.Memset("ms", bir.EngDVE, s.All(), 0)
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// entry stands for a pass's public entry point: it names each function
	// to onFunction, then "" for its module-wide tail, and fails as told.
	entry := func(m *bir.Module, onFunction func(string), panicAt, errAt string) error {
		enter := func(n string) {
			if onFunction != nil {
				onFunction(n)
			}
			if n == panicAt {
				panic("boom at " + n)
			}
		}
		for _, f := range m.FuncsMainFirst() {
			enter(f.Name)
			if f.Name == errAt {
				return errors.New("function " + f.Name + ": bad input")
			}
		}
		enter("")
		return nil
	}
	tests := []struct {
		panicAt, errAt string
		wantFunc       string
		wantPanic      bool
		wantMsg        string
	}{
		{"helper", "-", "helper", true, "pass hooked, function helper: internal error (panic): boom at helper"},
		{"", "-", "", true, "pass hooked: internal error (panic): boom at "},
		{"-", "helper", "", false, "pass hooked: function helper: bad input"},
	}
	for _, tt := range tests {
		table := Table{Passes: []Pass{{Name: "hooked", Default: true, Run: func(c *Context) error {
			err := entry(c.Module, c.Function, tt.panicAt, tt.errAt)
			c.Function("")
			return err
		}}}}
		_, err := table.Run(twoFuncs(t), Config{})
		var pe *Error
		if !errors.As(err, &pe) || pe.Panic != tt.wantPanic || pe.Pass != "hooked" || pe.Function != tt.wantFunc {
			t.Errorf("panic at %q, error at %q: err = %#v, want function %q, panic %t", tt.panicAt, tt.errAt, err, tt.wantFunc, tt.wantPanic)
			continue
		}
		if err.Error() != tt.wantMsg {
			t.Errorf("panic at %q, error at %q: message %q, want %q", tt.panicAt, tt.errAt, err.Error(), tt.wantMsg)
		}
	}
}

func TestTable_RunVerifies(t *testing.T) {
	// A pass that breaks the module is caught by the verifier after it.
	table := Table{Passes: []Pass{{Name: "breaker", Default: true, Run: func(c *Context) error {
		f := c.Module.Main()
		id, _ := f.InstByName("ld")
		ops := f.Ins(id)
		o := ops[0]
		o.Offset = 1 << 40 // far out of bounds
		f.SetOperand(id, 0, o)
		return nil
	}}}}
	_, err := table.Run(smallModule(t), Config{})
	if err == nil || !strings.Contains(err.Error(), "verifier after pass breaker") {
		t.Fatalf("err = %v, want the verifier to reject the result", err)
	}
	// NoVerify turns it off.
	if _, err := table.Run(smallModule(t), Config{NoVerify: true}); err != nil {
		t.Errorf("NoVerify: %v", err)
	}
}

func TestTable_OptionsAndReport(t *testing.T) {
	var got string
	table := Table{Passes: []Pass{{Name: "p", Default: true, Options: []Option{{Name: "k", Default: "7"}, {Name: "n", Default: "x"}}, Run: func(c *Context) error {
		k, err := c.IntOption("k")
		if err != nil {
			return err
		}
		got = c.Option("n") + "/" + string(rune('0'+k))
		c.Count("things", 3)
		c.Count("things", 2)
		c.AddReport("Title:", " line one\n line two\n")
		return nil
	}}}}
	rep, err := table.Run(smallModule(t), Config{Options: map[string]map[string]string{"p": {"k": "5"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got != "x/5" {
		t.Errorf("options seen = %q, want x/5", got)
	}
	if v := rep.Result("p").Counter("things"); v != 5 {
		t.Errorf("counter = %d, want 5", v)
	}
	var buf bytes.Buffer
	if err := rep.Write(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"narwhal pass report", "p ", "things = 5", "Title:", " line two"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, buf.String())
		}
	}
	// A bad integer option is an error naming the pass and option.
	_, err = table.Run(smallModule(t), Config{Options: map[string]map[string]string{"p": {"k": "seven"}}})
	if err == nil || !strings.Contains(err.Error(), "option k=\"seven\"") {
		t.Errorf("bad option: %v", err)
	}
}

func TestTable_PrintAfterAndDump(t *testing.T) {
	var ran []string
	table := recorder(&ran)
	dir := t.TempDir()
	var out bytes.Buffer
	printer := func(w interface{ Write([]byte) (int, error) }, m *bir.Module) error {
		_, err := w.Write([]byte("MODULE\n"))
		return err
	}
	_, err := table.Run(smallModule(t), Config{PrintAfter: []string{"last"}, PrintOut: &out, DumpDir: dir,
		Printer: func(w io.Writer, m *bir.Module) error { return printer(w, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "after pass last") || strings.Contains(out.String(), "after pass first") {
		t.Errorf("print-after output:\n%s", out.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "03-last.bir"))
	if err != nil || !strings.Contains(string(data), "MODULE") {
		t.Errorf("dump file: %v %q", err, data)
	}
}

// TestTable_RunRequires: a pass run on its own (Config.Passes) whose
// required stage no pass of the run produced runs only when the input
// satisfies that stage, checked by the verifier.
func TestTable_RunRequires(t *testing.T) {
	var ran []string
	mk := func(name string, req, prod verify.Stage) Pass {
		return Pass{Name: name, Default: true, Requires: req, Produces: prod, Run: func(c *Context) error {
			ran = append(ran, c.Pass.Name)
			return nil
		}}
	}
	table := Table{Passes: []Pass{mk("unroller", 0, verify.StageUnrolled), mk("needs_flat", verify.StageUnrolled, 0)}}
	if err := table.Check(); err != nil {
		t.Fatal(err)
	}
	looped := func() *bir.Module {
		m := bir.NewModule("trn2")
		b := bir.NewBuilder(m, "main")
		x := b.Input("x", bir.Float32, 128, 64)
		s := b.SBUF("s", bir.Float32, 128, 64)
		b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Load("ld", s.All(), x.All()) })
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	// The module has a loop: needs_flat alone must not run.
	ran = nil
	_, err := table.Run(looped(), Config{Passes: []string{"needs_flat"}})
	if err == nil || !strings.Contains(err.Error(), "pass needs_flat requires stage unrolled") || len(ran) != 0 {
		t.Errorf("requirement not enforced: err %v, ran %v", err, ran)
	}
	// A loop-free input satisfies the stage by itself.
	ran = nil
	if _, err := table.Run(smallModule(t), Config{Passes: []string{"needs_flat"}}); err != nil || len(ran) != 1 {
		t.Errorf("loop-free input: err %v, ran %v", err, ran)
	}
	// With the producer in the run, the requirement is the producer's
	// promise (checked by the verifier after it, here on a loop-free module).
	ran = nil
	if _, err := table.Run(smallModule(t), Config{VerifyEach: true}); err != nil || strings.Join(ran, ",") != "unroller,needs_flat" {
		t.Errorf("full table: err %v, ran %v", err, ran)
	}
}

// TestTable_PrintAfterErrorsAndDumpDirAlone: an unknown --print-after name
// is an error; --dump-dir without --print-after dumps after every pass
// into the directory and prints nothing.
func TestTable_PrintAfterErrorsAndDumpDirAlone(t *testing.T) {
	var ran []string
	table := recorder(&ran)
	printer := func(w io.Writer, m *bir.Module) error { _, err := io.WriteString(w, "MODULE\n"); return err }
	var out bytes.Buffer
	_, err := table.Run(smallModule(t), Config{PrintAfter: []string{"lats"}, PrintOut: &out, Printer: printer})
	if err == nil || !strings.Contains(err.Error(), "--print-after lats: unknown pass") {
		t.Errorf("unknown --print-after pass: %v", err)
	}
	dir := t.TempDir()
	if _, err := table.Run(smallModule(t), Config{PrintOut: &out, DumpDir: dir, Printer: printer}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("--dump-dir alone printed to stdout: %q", out.String())
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, ","); got != "00-first.bir,03-last.bir" {
		t.Errorf("dump files = %s, want one per pass run (00-first.bir,03-last.bir)", got)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := WriteFileAtomic(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "two" {
		t.Errorf("content %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %d entries", len(entries))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "missing", "f"), []byte("x")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// TestContext_Logf: the report keeps the first MaxLogLines lines of a pass
// and counts the rest; a verbose writer still gets every line.
func TestContext_Logf(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		const extra = 5
		table := Table{Passes: []Pass{{Name: "chatty", Default: true, Run: func(c *Context) error {
			for k := 0; k < MaxLogLines+extra; k++ {
				c.Logf("line %d", k)
			}
			return nil
		}}}}
		var out bytes.Buffer
		cfg := Config{}
		if verbose {
			cfg.Verbose = &out
		}
		rep, err := table.Run(smallModule(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		res := rep.Result("chatty")
		if len(res.Log) != MaxLogLines || res.LogDropped != extra {
			t.Errorf("verbose=%v: kept %d lines, dropped %d; want %d and %d", verbose, len(res.Log), res.LogDropped, MaxLogLines, extra)
		}
		if res.Log[MaxLogLines-1] != fmt.Sprintf("line %d", MaxLogLines-1) {
			t.Errorf("verbose=%v: last kept line %q", verbose, res.Log[MaxLogLines-1])
		}
		wantPrinted := 0
		if verbose {
			wantPrinted = MaxLogLines + extra
		}
		if got := strings.Count(out.String(), "\n"); got != wantPrinted {
			t.Errorf("verbose=%v: printed %d lines, want %d", verbose, got, wantPrinted)
		}
	}
}

// TestWriteAtomic: the writer callback streams into the file, which
// appears whole or not at all.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	big := strings.Repeat("0123456789abcdef", 1<<14) // larger than the buffer
	if err := WriteAtomic(path, func(w io.Writer) error {
		for k := 0; k < 4; k++ {
			if _, err := io.WriteString(w, big); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != strings.Repeat(big, 4) {
		t.Errorf("content: %d bytes, want %d", len(data), 4*len(big))
	}
	failed := errors.New("encoder failed")
	if err := WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return failed
	}); !errors.Is(err, failed) {
		t.Errorf("err = %v, want the callback's error", err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(data) {
		t.Error("a failed write replaced the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left behind: %d entries", len(entries))
	}
}

// TestMeter_Usage: a meter sees the bytes allocated and the CPU spent
// between its start and Usage.
func TestMeter_Usage(t *testing.T) {
	mt := NewMeter()
	var keep [][]byte
	for k := 0; k < 64; k++ {
		keep = append(keep, make([]byte, 64<<10))
	}
	x := 0
	for k := 0; k < 20_000_000; k++ {
		x += k * k
	}
	u := mt.Usage()
	if u.Alloc < 64*64<<10 {
		t.Errorf("Alloc = %d, want at least %d", u.Alloc, 64*64<<10)
	}
	if u.Wall <= 0 {
		t.Errorf("Wall = %v", u.Wall)
	}
	if ProcessCPU() == 0 && runtime.GOOS == "linux" {
		t.Error("ProcessCPU() = 0 on linux")
	}
	if live := LiveHeap(); live == 0 {
		t.Error("LiveHeap() = 0")
	}
	runtime.KeepAlive(keep)
	_ = x
}

// TestContext_PeerOption: a pass reads another pass's options as this run
// configures them (set or default), and learns nothing of a pass that
// does not run.
func TestContext_PeerOption(t *testing.T) {
	type seen struct {
		v  string
		ok bool
	}
	var got []seen
	var runs []bool
	table := Table{Passes: []Pass{
		{Name: "planner", Default: true, Run: func(c *Context) error {
			for _, q := range [][2]string{{"later", "k"}, {"later", "n"}, {"later", "nope"}, {"absent", "k"}, {"off", "k"}} {
				v, ok := c.PeerOption(q[0], q[1])
				got = append(got, seen{v, ok})
			}
			runs = []bool{c.PeerRuns("later"), c.PeerRuns("off"), c.PeerRuns("absent")}
			return nil
		}},
		{Name: "later", Default: true, Options: []Option{{Name: "k", Default: "7"}, {Name: "n", Default: "x"}}, Run: noop},
		{Name: "off", Default: false, Options: []Option{{Name: "k", Default: "1"}}, Run: noop},
	}}
	if _, err := table.Run(smallModule(t), Config{Options: map[string]map[string]string{"later": {"k": "5"}}}); err != nil {
		t.Fatal(err)
	}
	want := []seen{{"5", true}, {"x", true}, {"", false}, {"", false}, {"", false}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("query %d: %+v, want %+v", k, got[k], want[k])
		}
	}
	if runs[0] != true || runs[1] || runs[2] {
		t.Errorf("PeerRuns later/off/absent = %v, want [true false false]", runs)
	}
	// Selected explicitly, a non-default pass runs and its options are seen.
	got = nil
	if _, err := table.Run(smallModule(t), Config{Passes: []string{"planner", "off"}}); err != nil {
		t.Fatal(err)
	}
	if got[4] != (seen{"1", true}) || got[0].ok {
		t.Errorf("with --passes planner,off: %+v", got)
	}
}
