package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/pass"
)

// oneLine fails unless s is exactly one line.
func wantOneLine(t *testing.T, what, s string) {
	t.Helper()
	if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
		t.Errorf("%s: want exactly one line on stderr, have %q", what, s)
	}
}

// TestMainExit_InternalErrors: a recovered panic, however it arrives (a
// pass.Error marked Panic, a raw panic in a command), is exit status 2
// with one line saying it is narwhal's fault; an ordinary error is 1.
func TestMainExit_InternalErrors(t *testing.T) {
	saved := extraCommands
	defer func() { extraCommands = saved }()
	extraCommands = append(append([]command(nil), saved...),
		command{"test-pass-panic", "", func([]string, io.Writer, io.Writer) error {
			return &pass.Error{Pass: "p", Function: "main", Panic: true, Err: errors.New("index out of range [3] with length 2")}
		}},
		command{"test-raw-panic", "", func([]string, io.Writer, io.Writer) error { panic("boom\nsecond line") }},
		command{"test-input-error", "", func([]string, io.Writer, io.Writer) error {
			return &pass.Error{Pass: "p", Err: errors.New("bad input")}
		}},
	)
	tests := []struct {
		cmd  string
		code int
		want string
	}{
		{"test-pass-panic", 2, "a bug in narwhal and not in your input"},
		{"test-raw-panic", 2, "a bug in narwhal and not in your input"},
		{"test-input-error", 1, "pass p: bad input"},
	}
	for _, tt := range tests {
		code, _, stderr := narwhal(t, tt.cmd)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tt.cmd, code, stderr, tt.code, tt.want)
		}
		wantOneLine(t, tt.cmd, stderr)
	}
}

// TestMainExit_UsageErrors: no command, a bad flag, a bad flag value: exit
// 1 and one stderr line each (the usage of a flag error used to take 17
// to 24 lines); -h still prints the flags (exit 0).
func TestMainExit_UsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "want a command"},
		{[]string{"compile", "--nope"}, "flag provided but not defined: -nope (narwhal compile -h lists the flags)"},
		{[]string{"run", "builtin:tensor_add", "--seed", "x"}, "invalid value"},
		{[]string{"run", "builtin:tensor_add", "--max-memory", "lots"}, "want a positive size"},
		{[]string{"alloc", "--nope"}, "flag provided but not defined"},
		{[]string{"alloc"}, "want exactly one input file"},
		{[]string{"compile", "--passes", ""}, "--passes is empty"},
		{[]string{"compile", "--core-id", "-2"}, "--core-id -2: want -1"},
		{[]string{"compile", "builtin:tensor_add:rows=128,rows=256"}, "parameter rows is given twice"},
	}
	for _, tt := range tests {
		code, _, stderr := narwhal(t, tt.args...)
		if code != 1 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tt.args, code, stderr, tt.want)
		}
		wantOneLine(t, strings.Join(tt.args, " "), stderr)
	}
	code, stdout, _ := narwhal(t)
	if code != 1 || !strings.Contains(stdout, "usage: narwhal COMMAND") {
		t.Errorf("no arguments: exit %d, stdout %q; want 1 and the usage", code, stdout)
	}
	code, _, stderr := narwhal(t, "compile", "-h")
	if code != 0 || !strings.Contains(stderr, "-passes") {
		t.Errorf("compile -h: exit %d, stderr %q; want 0 and the flags", code, stderr)
	}
}

// TestCompile_Outputs: -o semantics (see driver.WriteOutput).
func TestCompile_Outputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bir")
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=128,cols=8", "--passes", "translate_nki_ast_to_bir", "-o", in); code != 0 {
		t.Fatalf("making the input: %s", stderr)
	}
	orig, _ := os.ReadFile(in)
	link := filepath.Join(dir, "link.bir")
	os.Symlink(in, link)

	// The input, directly or through a link, is refused; --in-place allows it.
	for _, o := range []string{in, link} {
		code, _, stderr := narwhal(t, "compile", in, "-o", o)
		if code != 1 || !strings.Contains(stderr, "is the input file") {
			t.Errorf("-o %s: exit %d, stderr %q; want the input refused", o, code, stderr)
		}
	}
	if now, _ := os.ReadFile(in); string(now) != string(orig) {
		t.Fatalf("a refused -o changed the input")
	}
	os.Chmod(in, 0o600)
	if code, _, stderr := narwhal(t, "compile", in, "-o", in, "--in-place"); code != 0 {
		t.Fatalf("--in-place: exit %d: %s", code, stderr)
	}
	if st, _ := os.Stat(in); st.Mode().Perm() != 0o600 {
		t.Errorf("--in-place: mode %v, want 0600 kept", st.Mode().Perm())
	}

	// A link is written through and stays a link.
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o640)
	os.Chmod(target, 0o640)
	out := filepath.Join(dir, "out.json")
	os.Symlink(target, out)
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=128,cols=8", "-o", out); code != 0 {
		t.Fatalf("-o link: %s", stderr)
	}
	if st, _ := os.Lstat(out); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("-o link: the link was replaced")
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "{") {
		t.Errorf("-o link: the target holds %.20q, want BIR-JSON", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("-o link: target mode %v, want 0640 kept", st.Mode().Perm())
	}

	// - and /dev/stdout stream to standard output.
	for _, o := range []string{"-", "/dev/stdout"} {
		code, stdout, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=128,cols=8", "-o", o)
		if code != 0 || !strings.Contains(stdout, "module arch=trn2") {
			t.Errorf("-o %s: exit %d, stdout %.40q, stderr %q; want the module on stdout", o, code, stdout, stderr)
		}
	}
	// /dev/null stays a device.
	if code, _, stderr := narwhal(t, "compile", "builtin:tensor_add:rows=128,cols=8", "-o", os.DevNull); code != 0 {
		t.Errorf("-o /dev/null: %s", stderr)
	}
	if st, _ := os.Lstat(os.DevNull); st.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}
	// A missing directory is an error naming it.
	code, _, stderr := narwhal(t, "compile", "builtin:tensor_add", "-o", filepath.Join(dir, "no", "x.bir"))
	if code != 1 || !strings.Contains(stderr, "does not exist") {
		t.Errorf("missing directory: exit %d, stderr %q", code, stderr)
	}
	// Without -o or --report, compile says what happened (in is
	// compiled already: kept as it is, issue 27 item 4).
	code, stdout, _ := narwhal(t, "compile", in)
	if code != 0 || !strings.Contains(stdout, "kept as it is") || !strings.Contains(stdout, "nothing written") {
		t.Errorf("compile without -o: exit %d, stdout %q", code, stdout)
	}
}

// TestRun_OutputNamesBeforeWriting: a module with outputs z and zz/evil
// writes nothing (an existing z.npy is left alone) and names the bad one.
func TestRun_OutputNamesBeforeWriting(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "m.bir")
	os.WriteFile(src, []byte(`module arch=trn2

func @main {
  tensor %x_set: f32[128, 4] kind=Input
    loc %x: Input 128x16
  tensor %z_set: f32[128, 4] kind=Output
    loc %z: Output 128x16
  tensor %e_set: f32[128, 4] kind=Output
    loc %"zz/evil": Output 128x16

Block1:
  a = Load %x[ap=[[4,128],[1,4]]] f32 -> %z[ap=[[4,128],[1,4]]] f32
  b = Load %x[ap=[[4,128],[1,4]]] f32 -> %"zz/evil"[ap=[[4,128],[1,4]]] f32
}
`), 0o644)
	outDir := filepath.Join(dir, "out")
	os.MkdirAll(outDir, 0o755)
	old := filepath.Join(outDir, "z.npy")
	os.WriteFile(old, []byte("keep"), 0o644)
	code, _, stderr := narwhal(t, "run", src, "--outputs", outDir)
	if code != 1 || !strings.Contains(stderr, `output "zz/evil"`) || !strings.Contains(stderr, "nothing was written") {
		t.Fatalf("exit %d, stderr %q; want the name refused before writing", code, stderr)
	}
	if b, _ := os.ReadFile(old); string(b) != "keep" {
		t.Errorf("z.npy was overwritten before the bad name was found")
	}
	// An .npz archive takes any name.
	if code, _, stderr := narwhal(t, "run", src, "--outputs", filepath.Join(dir, "o.npz")); code != 0 {
		t.Errorf("--outputs o.npz: exit %d, %s", code, stderr)
	}
}

// TestAlloc_FailureAndMode: an infeasible problem gets a one-line cause on
// stderr; -o keeps an existing file's mode.
func TestAlloc_FailureAndMode(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "p.csv")
	os.WriteFile(csv, []byte("id,lower,upper,size\n0,0,10,8\n1,0,10,8\n"), 0o644)
	code, stdout, stderr := narwhal(t, "alloc", csv, "--capacity=12")
	if code != 1 || !strings.Contains(stdout, "INFEASIBLE") || !strings.Contains(stderr, "INFEASIBLE") {
		t.Errorf("infeasible: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	wantOneLine(t, "alloc infeasible", stderr)
	out := filepath.Join(dir, "o.csv")
	os.WriteFile(out, []byte("old"), 0o640)
	os.Chmod(out, 0o640)
	if code, _, stderr := narwhal(t, "alloc", csv, "--capacity=16", "-o", out); code != 0 {
		t.Fatalf("fit: exit %d, %s", code, stderr)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o640 {
		t.Errorf("alloc -o: mode %v, want 0640 kept", st.Mode().Perm())
	}
}

// TestFullUnroll_VerifiesInput: a module the verifier rejects is refused
// (--no-verify keeps the original tool's structural check only); -o equal
// to the input is refused.
func TestFullUnroll_VerifiesInput(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := narwhal(t, "full-unroll", "testdata/bad/oob.json", "-o", filepath.Join(dir, "o.bir"))
	if code != 1 || !strings.Contains(stderr, "does not verify") {
		t.Errorf("oob input: exit %d, stderr %q; want it refused", code, stderr)
	}
	if code, _, stderr := narwhal(t, "full-unroll", "testdata/bad/oob.json", "--no-verify", "-o", filepath.Join(dir, "o.bir")); code != 0 {
		t.Errorf("--no-verify: exit %d, %s", code, stderr)
	}
	in := filepath.Join(dir, "in.json")
	b, _ := os.ReadFile("testdata/tensor_add_bir.json")
	os.WriteFile(in, b, 0o644)
	if code, _, stderr := narwhal(t, "full-unroll", in, "-o", in); code != 1 || !strings.Contains(stderr, "is the input file") {
		t.Errorf("-o input: exit %d, stderr %q", code, stderr)
	}
}
