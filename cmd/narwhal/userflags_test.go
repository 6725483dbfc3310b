package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/kernels"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCompile_Target: --target maps neuronx-cc's instance families onto
// the machine models (the output records the model), composes with
// --option arch.*, and conflicts with a different --arch.
func TestCompile_Target(t *testing.T) {
	dir := t.TempDir()
	for target, want := range map[string]string{"trn1": "trn1", "trn1n": "trn1", "inf2": "trn1", "trn2": "trn2", "trn3": "trn3"} {
		out := filepath.Join(dir, target+".bir")
		code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "--target", target, "-o", out, "--option", "arch.dma-queues=8")
		if code != 0 {
			t.Fatalf("--target %s: exit %d: %s", target, code, stderr)
		}
		text := readFile(t, out)
		if !strings.Contains(text, "module arch="+want) || !strings.Contains(text, `option arch.dma-queues = "8"`) {
			t.Errorf("--target %s: output does not record arch=%s and the arch option:\n%.200s", target, want, text)
		}
	}
	code, _, stderr := narwhal(t, "compile", "--target", "trn2", "--arch", "trn1")
	if code != 1 || !strings.Contains(stderr, "error["+diag.UnknownArch+"]") || !strings.Contains(stderr, "give one of them") {
		t.Errorf("--target trn2 --arch trn1: exit %d: %s", code, stderr)
	}
}

// TestCompile_OptLevel: -O3 runs legalize_strided_dma, which -O2 skips;
// -O1 turns VerticalFusion off; -O4 is refused.
func TestCompile_OptLevel(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-O2"}, "legalize_strided_dma            18            -            -   skipped"},
		{[]string{"-O3"}, "legalize_strided_dma            18 "},
		{[]string{"--optlevel", "3"}, "legalize_strided_dma            18 "},
		{[]string{"-O1"}, "foldIntoPredecessor = false"},
		{[]string{"-O2"}, "foldIntoPredecessor = true"},
	} {
		code, stdout, stderr := narwhal(t, append([]string{"compile", "builtin:transpose2d:mode=dma", "--report"}, tc.args...)...)
		if code != 0 || !strings.Contains(stdout, tc.want) {
			t.Errorf("%v: exit %d (%s), report lacks %q:\n%s", tc.args, code, stderr, tc.want, stdout)
		}
	}
	_, stdout, _ := narwhal(t, "compile", "builtin:transpose2d:mode=dma", "--report", "-O3")
	if strings.Contains(stdout, "legalize_strided_dma            18            -            -   skipped") {
		t.Error("-O3 skipped legalize_strided_dma")
	}
	code, _, stderr := narwhal(t, "compile", "-O4")
	if code != 1 || !strings.Contains(stderr, "-O4: want 1, 2 or 3") {
		t.Errorf("-O4: exit %d: %s", code, stderr)
	}
}

// TestCompile_Verbose: --verbose info shows neuronx-cc's "Running <pass>"
// and "<pass> finished after N seconds" lines; -v adds the passes' own
// lines; the default shows none; --logfile gets everything.
func TestCompile_Verbose(t *testing.T) {
	running := regexp.MustCompile(`(?m)^[0-9TZ:-]+ INFO [0-9]+ \[narwhal\]: Running full_unroll$`)
	finished := regexp.MustCompile(`(?m)^[0-9TZ:-]+ INFO [0-9]+ \[narwhal\]: full_unroll finished after [0-9.]+ seconds`)
	_, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "--verbose", "info", "-o", os.DevNull)
	if !running.MatchString(stderr) || !finished.MatchString(stderr) {
		t.Errorf("--verbose info:\n%s", stderr)
	}
	if strings.Contains(stderr, "DEBUG") {
		t.Errorf("--verbose info shows debug lines:\n%s", stderr)
	}
	_, _, stderr = narwhal(t, "compile", "builtin:tensor_add", "-v", "-o", os.DevNull)
	if !strings.Contains(stderr, "DEBUG") || !strings.Contains(stderr, "full_unroll: ") {
		t.Errorf("-v lacks the passes' lines:\n%s", stderr)
	}
	_, _, stderr = narwhal(t, "compile", "builtin:tensor_add", "-o", os.DevNull)
	if stderr != "" {
		t.Errorf("the default level printed:\n%s", stderr)
	}
	log := filepath.Join(t.TempDir(), "log.txt")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "--logfile", log, "-o", os.DevNull); code != 0 || stderr != "" {
		t.Fatalf("--logfile: exit %d, stderr %q", code, stderr)
	}
	text := readFile(t, log)
	for _, want := range []string{"INFO", "DEBUG", "Running translate_nki_ast_to_bir", "shrink_ml finished after", "Compilation finished"} {
		if !strings.Contains(text, want) {
			t.Errorf("the log file lacks %q", want)
		}
	}
	// The failure goes into the log; the terminal keeps its one line.
	code, _, stderr := narwhal(t, "compile", "builtin:oversized:case=unfittable", "--logfile", log)
	if code != 1 || strings.Count(stderr, "\n") != 1 || !strings.Contains(readFile(t, log), "ERROR") {
		t.Errorf("failure with --logfile: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := narwhal(t, "compile", "--verbose", "loud"); code != 1 {
		t.Error("--verbose loud accepted")
	}
}

// TestCompile_NeuronCCFlags: the flags of NEURON_CC_FLAGS apply, the
// command line wins, neuronx-cc-only flags are dropped with a warning.
func TestCompile_NeuronCCFlags(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NEURON_CC_FLAGS", "--target=trn1 --model-type transformer --retry_failed_compilation -O3 --verbose=warning")
	out := filepath.Join(dir, "a.bir")
	code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if text := readFile(t, out); !strings.Contains(text, "module arch=trn1") || !strings.Contains(text, `option gen-stride-dma = "true"`) {
		t.Errorf("NEURON_CC_FLAGS' --target trn1 and -O3 did not apply:\n%.300s", text)
	}
	for _, want := range []string{"NEURON_CC_FLAGS: ignoring --model-type transformer", "NEURON_CC_FLAGS: ignoring --retry_failed_compilation"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	code, _, stderr = narwhal(t, "compile", "builtin:tensor_add", "-o", out, "--target", "trn3")
	if code != 0 || !strings.Contains(readFile(t, out), "module arch=trn3") {
		t.Errorf("the command line's --target did not win: exit %d, %s", code, stderr)
	}
	t.Setenv("NEURON_CC_FLAGS", "--no-such-flag")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add"); code != 1 || !strings.Contains(stderr, "error["+diag.Usage+"]") {
		t.Errorf("an unknown flag in NEURON_CC_FLAGS: exit %d: %s", code, stderr)
	}
}

// TestCompile_HTML: --html writes the page, also when the compile fails.
func TestCompile_HTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "k.html")
	trace := filepath.Join(dir, "k.trace.json")
	memmap := filepath.Join(dir, "k.svg")
	if code, _, stderr := narwhal(t, "compile", "builtin:matmul", "--html", page, "--trace", trace, "--memmap", memmap, "-o", os.DevNull); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text := readFile(t, page)
	for _, want := range []string{"narwhal compile: builtin:matmul", `id="pass-6"`, "full_unroll", `class="add"`, "SB Legalization Statistic:",
		`download="k.trace.json"`, "Schedule timeline (Perfetto trace)", "SBUF/PSUM allocation map (--memmap)", "<svg"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	code, _, _ := narwhal(t, "compile", "builtin:oversized:case=unfittable", "--html", page)
	if code != 1 || !strings.Contains(readFile(t, page), `class="status failed"`) {
		t.Errorf("a failed compile: exit %d, page without the failure", code)
	}
}

// TestCompileMany: every built-in kernel compiled with -j 2 into one
// directory gives the bytes compiling each alone gives; a failing input
// makes the exit status 1 with its summary line; conflicting outputs are
// refused (NW406).
func TestCompileMany(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	for _, k := range kernels.All() {
		inputs = append(inputs, "builtin:"+k.Name)
	}
	code, stdout, stderr := narwhal(t, append(append([]string{"compile"}, inputs...), "--out-dir", filepath.Join(dir, "many"), "-j", "2", "-O3")...)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != len(inputs) {
		t.Fatalf("%d summary lines for %d inputs:\n%s", len(lines), len(inputs), stdout)
	}
	for i, in := range inputs {
		if !strings.HasPrefix(lines[i], "ok   "+in+"  -> ") || !strings.Contains(lines[i], " s CPU") {
			t.Errorf("summary line %d is %q, want ok for %s (in input order)", i, lines[i], in)
		}
		alone := filepath.Join(dir, "alone.json")
		if code, _, stderr := narwhal(t, "compile", in, "-O3", "-o", alone); code != 0 {
			t.Fatalf("%s alone: %s", in, stderr)
		}
		a, b := readFile(t, alone), readFile(t, filepath.Join(dir, "many", outputName(in)+".json"))
		if a != b {
			t.Errorf("%s: the -j output differs from compiling it alone", in)
		}
	}
	code, stdout, _ = narwhal(t, "compile", "builtin:tensor_add", "builtin:oversized:case=unfittable", "--out-dir", filepath.Join(dir, "f"), "-j", "2")
	if code != 1 || !strings.Contains(stdout, "ok   builtin:tensor_add") || !strings.Contains(stdout, "FAIL builtin:oversized:case=unfittable  error["+diag.DoesNotFit+"]") {
		t.Errorf("one failing input: exit %d:\n%s", code, stdout)
	}
	for _, args := range [][]string{
		{"compile", "builtin:tensor_add", "builtin:tensor_add", "--out-dir", dir},
		{"compile", "builtin:tensor_add", "builtin:matmul", "--out-dir", dir, "--html", "x.html"},
		{"compile", "builtin:tensor_add", "builtin:matmul"},
	} {
		if code, _, stderr := narwhal(t, args...); code != 1 || !strings.Contains(stderr, "error["+diag.ParallelInputs+"]") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// benchSpecs are the built-in kernels at sizes where a compile does real
// work (13,000 to 70,000 instructions each through the default pipeline).
var benchSpecs = []string{
	"builtin:tensor_add:rows=1048576,cols=2048",
	"builtin:matmul:m=4096,k=4096,n=8192",
	"builtin:softmax:rows=262144,cols=512",
	"builtin:rmsnorm:rows=262144,d=512",
	"builtin:attention:seq=4096,d=64",
	"builtin:transpose2d:rows=8192,cols=16384",
	"builtin:average_pool2d:c=131072,h=32,w=32",
	"builtin:embedding:tokens=262144",
	"builtin:cce_reduce:rows=524288,cols=512",
	"builtin:oversized",
}

// BenchmarkCompileMany compiles benchSpecs with -j 1 and -j 2 (the whole
// command: load, passes, verification, BIR-JSON output). On 2 cores -j 2
// takes less wall time than -j 1; the outputs are the same bytes
// (TestCompileMany checks that).
//
//	go test ./cmd/narwhal -run '^$' -bench CompileMany -benchtime 3x
func BenchmarkCompileMany(b *testing.B) {
	for _, j := range []int{1, 2} {
		b.Run(fmt.Sprintf("j=%d", j), func(b *testing.B) {
			dir := b.TempDir()
			c0, ok := cpuNow()
			t0 := time.Now()
			for range b.N {
				var out, errb bytes.Buffer
				args := append(append([]string{"compile"}, benchSpecs...), "--out-dir", dir, "-j", fmt.Sprint(j))
				if code := mainExit(args, &out, &errb); code != 0 {
					b.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
				}
			}
			wall := time.Since(t0)
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			if c1, _ := cpuNow(); ok {
				b.ReportMetric((c1-c0).Seconds()/float64(b.N), "cpu-s/op")
			}
		})
	}
}

// TestCompile_PositionsInOutputs: a KLR kernel's source lines reach every
// output of a compile: the result (BIR-JSON "pos"), the text dumps
// (loc(...)), the Perfetto trace's event args, the allocation map (CSV
// column and SVG titles) and the HTML page.
func TestCompile_PositionsInOutputs(t *testing.T) {
	dir := t.TempDir()
	klrPath := filepath.Join(dir, "copy.klr")
	if err := os.WriteFile(klrPath, encodeKLR(t, copyKernel(0, 0), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	out, trace, memCSV, memSVG, page := filepath.Join(dir, "o.json"), filepath.Join(dir, "t.json"), filepath.Join(dir, "m.csv"), filepath.Join(dir, "m.svg"), filepath.Join(dir, "p.html")
	code, stdout, stderr := narwhal(t, "compile", klrPath, "-o", out, "--trace", trace, "--memmap", memCSV, "--html", page, "--print-after", "full_unroll")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if code, _, stderr := narwhal(t, "compile", klrPath, "--memmap", memSVG, "-o", os.DevNull); code != 0 {
		t.Fatalf("--memmap svg: exit %d: %s", code, stderr)
	}
	for _, c := range []struct{ what, text, want string }{
		{"the BIR-JSON result", readFile(t, out), `"pos":{"file":"k.py","line":10,"column":4}`},
		{"the text dump", stdout, `loc("k.py":11:4)`},
		{"the trace", readFile(t, trace), `"source":"k.py:10:4"`},
		{"the memory map CSV", readFile(t, memCSV), ",k.py:10:4"},
		{"the memory map SVG", readFile(t, memSVG), "first used at k.py:10:4"},
		{"the HTML page", readFile(t, page), `loc(&#34;k.py&#34;:10:4)`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q", c.what, c.want)
		}
	}
}

// In tests, compile -j's children are this test binary in its narwhal role
// (TestMain runs mainExit when childEnv is set).
func init() {
	childCommand = func(args []string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		return cmd
	}
}
