package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
	"github.com/narwhal-compiler/narwhal/npy"
)

// The foundation's must-shows, end to end through the CLI.

func TestCompile_DefaultKernelPrintsReport(t *testing.T) {
	code, stdout, stderr := narwhal(t, "compile")
	if code != 0 {
		t.Fatalf("narwhal compile: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "narwhal pass report") || !strings.Contains(stdout, "total") {
		t.Errorf("no report in the output:\n%s", stdout)
	}
	// Each pass of the default pipeline has a line with its wall time.
	for _, p := range passTableNames() {
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(p) + `\s+\S+\s+[0-9.]+ (ns|us|ms|s)\s`)
		if !line.MatchString(stdout) {
			t.Errorf("report has no line naming pass %s with its time:\n%s", p, stdout)
		}
	}
}

// TestCompile_PrintAfterAndDumpDir: --print-after prints the module after
// the named pass (text that parses back to the same text), --dump-dir
// writes the same dump as NN-PASS.bir, and --dump-dir alone writes one
// dump per pass run.
func TestCompile_PrintAfterAndDumpDir(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := narwhal(t, "compile", "builtin:tensor_add", "--print-after", "full_unroll", "--dump-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const header = "// ---- after pass full_unroll ----\n"
	if strings.Count(stdout, "// ---- after pass ") != 1 || !strings.HasPrefix(stdout, header) {
		t.Fatalf("want exactly the dump after full_unroll, have:\n%.300s", stdout)
	}
	printed := strings.TrimPrefix(stdout, header)
	m, err := bir.Parse("stdout.bir", []byte(printed))
	if err != nil {
		t.Fatalf("the printed module does not parse: %v", err)
	}
	if again := bir.Format(m); again != printed {
		t.Errorf("the printed module does not print back to itself")
	}
	if strings.Contains(printed, "= Loop ") {
		t.Errorf("the dump after full_unroll still has a loop:\n%s", printed)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*-full_unroll.bir"))
	if len(files) != 1 {
		t.Fatalf("dump files in %s: %v, want one NN-full_unroll.bir", dir, files)
	}
	data, _ := os.ReadFile(files[0])
	if string(data) != stdout {
		t.Errorf("%s differs from the printed dump", files[0])
	}

	// --dump-dir alone: one file per pass that ran, nothing printed.
	dir2 := t.TempDir()
	code, stdout, stderr = narwhal(t, "compile", "builtin:tensor_add", "--dump-dir", dir2)
	if code != 0 || stdout != "" {
		t.Fatalf("--dump-dir alone: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	entries, _ := os.ReadDir(dir2)
	if want := len(passTableNames()) + 1; len(entries) != want {
		t.Errorf("--dump-dir alone wrote %d files, want %d (one per pass run and the scheduler's checkpoint)", len(entries), want)
	}

	// --print-after all: one dump per pass run.
	code, stdout, _ = narwhal(t, "compile", "builtin:tensor_add", "--print-after", "all")
	if n := strings.Count(stdout, "// ---- after pass "); code != 0 || n != len(passTableNames()) {
		t.Errorf("--print-after all: exit %d, %d dumps, want %d", code, n, len(passTableNames()))
	}
	// An unknown pass name is an error, not a silent no-op.
	if code, _, stderr := narwhal(t, "compile", "--print-after", "full_unrol"); code != 1 || !strings.Contains(stderr, "unknown pass") {
		t.Errorf("--print-after full_unrol: exit %d, %q", code, stderr)
	}
}

// TestCompile_Flags: --passes runs exactly the named passes in table
// order, --arch selects the model, --verify-each verifies after every pass
// (a verify time on each line), --option reaches the pass (full_unroll at
// level 1 leaves the unmarked loop alone: 4 instructions stay 4).
func TestCompile_Flags(t *testing.T) {
	code, stdout, stderr := narwhal(t, "compile", "builtin:tensor_add", "--passes", "full_unroll,legalize_cce_dma",
		"--arch", "trn1", "--verify-each", "--report", "--option", "full_unroll.unrollLevel=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "narwhal pass report (arch trn1)") {
		t.Errorf("--arch trn1 not in the report:\n%s", stdout)
	}
	var ran []string
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) >= 8 && f[len(f)-2] == "->" {
			ran = append(ran, f[0])
			if f[4] == "-" {
				t.Errorf("--verify-each: pass %s has no verify time: %q", f[0], line)
			}
			if f[0] == "full_unroll" && (f[len(f)-3] != "4" || f[len(f)-1] != "4") {
				t.Errorf("full_unroll.unrollLevel=1 did not reach the pass: %q", line)
			}
		}
	}
	if got := strings.Join(ran, ","); got != "legalize_cce_dma,full_unroll" {
		t.Errorf("passes run: %s, want legalize_cce_dma,full_unroll (exactly those, in table order)\n%s", got, stdout)
	}
	// Without the option, level 2 unrolls the 4-iteration loop.
	_, stdout, _ = narwhal(t, "compile", "builtin:tensor_add", "--passes", "full_unroll", "--report")
	if !regexp.MustCompile(`full_unroll .* 4 -> 16\n`).MatchString(stdout) {
		t.Errorf("full_unroll at its default level:\n%s", stdout)
	}
}

// TestHandWrittenJSON: the must-show through the CLI. A BIR-JSON
// file written by hand from bir-json.md, with keys narwhal does not model
// at every level and an opcode it does not know, verifies, and `print
// --format json` (load and save) keeps every field with its value.
func TestHandWrittenJSON(t *testing.T) {
	path := filepath.Join("..", "..", "bir", "birjson", "testdata", "handwritten_unknown.json")
	if code, _, stderr := narwhal(t, "verify", path); code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	code, saved, stderr := narwhal(t, "print", path, "--format", "json")
	if code != 0 {
		t.Fatalf("print: exit %d: %s", code, stderr)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var in, out any
	if err := json.Unmarshal(src, &in); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(saved), &out); err != nil {
		t.Fatalf("the saved file is not JSON: %v", err)
	}
	if d := jsonSubset("$", in, out); d != "" {
		t.Errorf("field lost or changed by load and save: %s", d)
	}
	// The saved file is itself stable.
	tmp := filepath.Join(t.TempDir(), "saved.json")
	if err := os.WriteFile(tmp, []byte(saved), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := narwhal(t, "print", tmp, "--format", "json"); again != saved {
		t.Error("saving the saved file changes it")
	}
}

// jsonSubset returns where a (parsed JSON) has a key, element or value b
// lacks or differs in ("" when b keeps all of a).
func jsonSubset(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path + ": not an object"
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok {
				return path + "." + k + ": missing"
			}
			if d := jsonSubset(path+"."+k, v, w); d != "" {
				return d
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return path + ": list differs"
		}
		for i := range x {
			if d := jsonSubset(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
	default:
		if a != b {
			return fmt.Sprintf("%s: %v, have %v", path, a, b)
		}
	}
	return ""
}

func TestPrint_RoundTripIsByteStable(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			code, first, stderr := narwhal(t, "print", "builtin:tensor_add", "--format", format)
			if code != 0 {
				t.Fatalf("print builtin: exit %d: %s", code, stderr)
			}
			path := filepath.Join(dir, "a."+format)
			if err := os.WriteFile(path, []byte(first), 0o644); err != nil {
				t.Fatal(err)
			}
			code, second, stderr := narwhal(t, "print", path, "--format", format)
			if code != 0 {
				t.Fatalf("print %s: exit %d: %s", path, code, stderr)
			}
			if first != second {
				t.Errorf("print of the printed %s differs (%d vs %d bytes)", format, len(first), len(second))
			}
		})
	}
}

func TestCompile_WritesOutputByExtension(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"out.json", "out.bir"} {
		path := filepath.Join(dir, name)
		code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "-o", path)
		if code != 0 {
			t.Fatalf("compile -o %s: exit %d: %s", name, code, stderr)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		isJSON := strings.HasPrefix(strings.TrimSpace(string(data)), "{")
		if isJSON != strings.HasSuffix(name, ".json") {
			t.Errorf("%s: JSON = %v", name, isJSON)
		}
		// The output reads back and verifies.
		if code, _, stderr := narwhal(t, "verify", path); code != 0 {
			t.Errorf("verify %s: exit %d: %s", name, code, stderr)
		}
	}
}

func TestBadInput_ExitOneWithOneLine(t *testing.T) {
	tests := []struct {
		file string
		want string // a substring of the message
	}{
		{"malformed.json", "malformed.json:"},
		{"dangling.json", `"no_such_tensor"`},
		{"oob.json", "function sg0000, instruction ld_x (Load), location x: source 0 (x): access pattern [[512,128],[1,512]] at offset 1024 reaches elements [1024, 66559] of a location of 65536 float32 elements: want 0 <= index < 65536"},
		{"dtype_name.json", `unknown dtype "float33"`},
		{"dtype_number.json", "unknown dtype number 20"},
	}
	for _, tt := range tests {
		for _, cmd := range []string{"verify", "compile", "print"} {
			code, _, stderr := narwhal(t, cmd, filepath.Join("testdata", "bad", tt.file))
			if code != 1 {
				t.Errorf("%s %s: exit %d, want 1", cmd, tt.file, code)
			}
			if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("%s %s: message is not one line: %q", cmd, tt.file, stderr)
			}
			if !strings.Contains(stderr, tt.file+":") {
				t.Errorf("%s %s: message %q does not name the file", cmd, tt.file, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("%s %s: message %q does not contain %q", cmd, tt.file, stderr, tt.want)
			}
			if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
				t.Errorf("%s %s: panic trace: %q", cmd, tt.file, stderr)
			}
		}
	}
}

// TestPrint_NoVerify: print verifies its input like verify and compile do;
// --no-verify prints a module the verifier rejects, for inspecting it.
func TestPrint_NoVerify(t *testing.T) {
	oob := filepath.Join("testdata", "bad", "oob.json")
	code, out, stderr := narwhal(t, "print", "--no-verify", oob)
	if code != 0 || !strings.Contains(out, "ld_x = Load %x[offset=1024,") {
		t.Errorf("print --no-verify: exit %d, stderr %q, output:\n%s", code, stderr, out)
	}
	if code, _, stderr := narwhal(t, "print", oob); code != 1 || !strings.Contains(stderr, "--no-verify prints it anyway") {
		t.Errorf("print: exit %d, %q", code, stderr)
	}
}

func TestCLI_UsageErrors(t *testing.T) {
	tests := [][]string{
		{"nosuchcommand"},
		{"compile", "a", "b"},
		{"compile", "--passes", "no_such_pass"},
		{"compile", "--option", "nodot=1"},
		{"compile", "--arch", "trn9"},
		{"print", "builtin:no_such_kernel"},
		{"print", "/nonexistent/file.json"},
	}
	for _, args := range tests {
		code, _, stderr := narwhal(t, args...)
		if code != 1 || stderr == "" {
			t.Errorf("narwhal %v: exit %d, stderr %q; want exit 1 and a message", args, code, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := narwhal(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "narwhal ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

// TestRun_KLRFile goes from an NKI kernel file to a simulated result in one
// command (issue 7): the loader wraps the kernel, run materializes it and
// the interpreter computes out = a + b exactly.
func TestRun_KLRFile(t *testing.T) {
	klrPath := filepath.Join("..", "..", "..", "shared", "fixtures", "klr", "tensor_add.klr")
	if _, err := os.Stat(klrPath); err != nil {
		sharedtest.Missing(t, "KLR fixtures not available (%v): they live in ../shared/fixtures/klr", err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, 128*512), make([]float32, 128*512)
	for i := range a {
		a[i], b[i] = float32(i%1000)*0.25, float32(i%7)-3.5
	}
	for name, v := range map[string][]float32{"a": a, "b": b} {
		tn, err := ref.FromFloat32s(name, bir.Float32, []int64{128, 512}, v)
		if err != nil {
			t.Fatal(err)
		}
		if err := npy.WriteFile(filepath.Join(in, name+".npy"), tn); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"run", klrPath, "--inputs", in, "--outputs", out},
		{"compile", klrPath, "-o", filepath.Join(dir, "out.json")},
	} {
		if code, _, stderr := narwhal(t, args...); code != 0 {
			t.Fatalf("narwhal %v: exit %d: %s", args, code, stderr)
		}
	}
	res, err := npy.ReadFile(filepath.Join(out, "out.npy"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ref.Float32s(res)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != a[i]+b[i] {
			t.Fatalf("out[%d] = %v, want %v", i, got[i], a[i]+b[i])
		}
	}
}

func TestAlloc_MiniMallocFile(t *testing.T) {
	csv := filepath.Join("..", "..", "..", "shared", "bench", "minimalloc", "A.1048576.csv")
	if _, err := os.Stat(csv); err != nil {
		sharedtest.Missing(t, "MiniMalloc benchmarks not available (%v): they live in ../shared/bench/minimalloc", err)
	}
	out := filepath.Join(t.TempDir(), "a.csv")
	code, stdout, stderr := narwhal(t, "alloc", csv, "--capacity=1048576", "-o", out)
	if code != 0 {
		t.Fatalf("alloc: exit %d: %s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no output file: %v", err)
	}
	if code, _, _ := narwhal(t, "alloc", csv, "--capacity=1000"); code != 1 {
		t.Errorf("alloc into 1000 bytes: exit %d, want 1", code)
	}
}

// TestRun_LNCCoreErrors: running a two-core KLR kernel without a core, or
// on a core it has no body for, says what to do instead of failing deep in
// the interpreter.
func TestRun_LNCCoreErrors(t *testing.T) {
	klrPath := filepath.Join("..", "..", "..", "shared", "fixtures", "klr", "tensor_add_lnc2.klr")
	if _, err := os.Stat(klrPath); err != nil {
		sharedtest.Missing(t, "KLR fixtures not available (%v): they live in ../shared/fixtures/klr", err)
	}
	tests := []struct {
		flags []string
		want  string
	}{
		{nil, "--core-id C"},
		{[]string{"--core-id", "2"}, "no NKI kernel body for neuron core 2"},
	}
	for _, tc := range tests {
		args := append([]string{"run", klrPath, "--outputs", t.TempDir()}, tc.flags...)
		code, _, stderr := narwhal(t, args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "missing attribute") {
			t.Errorf("narwhal %v: exit %d, stderr %q; want exit 1 and %q", args, code, stderr, tc.want)
		}
	}
	for _, core := range []string{"0", "1"} {
		if code, _, stderr := narwhal(t, "run", klrPath, "--core-id", core, "--outputs", t.TempDir()); code != 0 {
			t.Errorf("--core-id %s: exit %d: %s", core, code, stderr)
		}
	}
}

// TestCompile_TraceAndCheckpoint: --trace writes a Chrome trace-event file
// (it parses, one slice per instruction on tracks named as the Neuron
// profiler names its rows) and --dump-dir writes the scheduler's
// checkpoint bir.scheduled.after-ooo.json, a BIR-JSON module whose
// instructions carry their schedule.
func TestCompile_TraceAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.json")
	code, _, stderr := narwhal(t, "compile", "builtin:matmul", "--trace", trace, "--dump-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string          `json:"ph"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the trace does not parse: %v", err)
	}
	kinds := map[string]int{}
	tracks := map[string]bool{}
	for _, e := range doc.TraceEvents {
		kinds[e.Ph]++
		if e.Ph == "M" && e.Name == "thread_name" {
			var a struct{ Name string }
			_ = json.Unmarshal(e.Args, &a)
			tracks[a.Name] = true
		}
	}
	if kinds["X"] == 0 || kinds["s"] == 0 || kinds["s"] != kinds["f"] || kinds["C"] == 0 {
		t.Errorf("event kinds %v: want slices, paired flows and counters", kinds)
	}
	for _, want := range []string{"Tensor", "Vector", "DMA queue 0"} {
		if !tracks[want] {
			t.Errorf("no %q track (tracks %v)", want, tracks)
		}
	}
	ck, err := os.ReadFile(filepath.Join(dir, "bir.scheduled.after-ooo.json"))
	if err != nil {
		t.Fatalf("no checkpoint: %v", err)
	}
	if !strings.Contains(string(ck), `"schedule":{"start_ps":`) {
		t.Error("the checkpoint carries no schedule")
	}
	if code, _, stderr := narwhal(t, "verify", filepath.Join(dir, "bir.scheduled.after-ooo.json")); code != 0 {
		t.Errorf("the checkpoint does not verify: %s", stderr)
	}
}

// TestCompile_EmptyKernel: a kernel with nothing in it compiles (it was an
// internal error: the synchronized stage wants every engine to halt), its
// BIR-JSON output verifies at stage synchronized and runs concurrently.
func TestCompile_EmptyKernel(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, src := range []string{
		`{"version": 2, "arch": "trn2", "functions": [{"name": "main", "blocks": []}]}`,
		"module arch=trn2\n\nfunc @main {\n}\n",
	} {
		if err := os.WriteFile("empty.in", []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"compile", "empty.in", "-o", "empty.json"},
			{"verify", "empty.json", "--stage", "synchronized"},
			{"run", "empty.json", "--concurrent"},
		} {
			if code, _, stderr := narwhal(t, args...); code != 0 {
				t.Errorf("narwhal %s on %q: exit %d, %s", strings.Join(args, " "), src, code, stderr)
			}
		}
	}
}

// TestCompile_TextOutputKeepsSynchronization: a compiled module written as
// text keeps its schedule and synchronization tables (sched(...),
// sync(...)): it verifies at stage synchronized and runs concurrently,
// as the BIR-JSON output does (it failed: "the function has no
// synchronization table").
func TestCompile_TextOutputKeepsSynchronization(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, args := range [][]string{
		{"compile", "builtin:tensor_add:rows=128,cols=96", "-o", "k.bir"},
		{"verify", "k.bir", "--stage", "synchronized"},
		{"run", "k.bir", "--concurrent", "--check"},
	} {
		if code, _, stderr := narwhal(t, args...); code != 0 {
			t.Errorf("narwhal %s: exit %d, %s", strings.Join(args, " "), code, stderr)
		}
	}
}
