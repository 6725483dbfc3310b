package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/verify"
)

// The full-unroll command end to end: flags, formats, log level, exit
// status, and the result computing what the input computes.

func writeBuiltinJSON(t *testing.T, dir, spec string) string {
	t.Helper()
	code, out, stderr := narwhal(t, "print", "builtin:"+spec, "--format", "json")
	if code != 0 {
		t.Fatalf("print %s: exit %d: %s", spec, code, stderr)
	}
	path := filepath.Join(dir, "in.json")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func countLoopsIn(m *bir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				n++
			}
			return true
		})
	}
	return n
}

func sameOutputs(t *testing.T, a, b *bir.Module) {
	t.Helper()
	in := interp.RandomInputs(a, 7)
	clone := func() map[string]*interp.Tensor {
		out := map[string]*interp.Tensor{}
		for k, v := range in {
			c := *v
			c.Data = bytes.Clone(v.Data)
			out[k] = &c
		}
		return out
	}
	ra, err := interp.Run(a, clone(), interp.Options{})
	if err != nil {
		t.Fatalf("running the input: %v", err)
	}
	rb, err := interp.Run(b, clone(), interp.Options{})
	if err != nil {
		t.Fatalf("running the output: %v", err)
	}
	if len(ra) != len(rb) {
		t.Fatalf("%d outputs before, %d after", len(ra), len(rb))
	}
	for name, x := range ra {
		y, ok := rb[name]
		if !ok || !bytes.Equal(x.Data, y.Data) {
			t.Errorf("output %s differs after full-unroll", name)
		}
	}
}

func TestFullUnrollCmd_DefaultLevel0(t *testing.T) {
	dir := t.TempDir()
	in := writeBuiltinJSON(t, dir, "tensor_add")
	out := filepath.Join(dir, "out.json")
	code, stdout, stderr := narwhal(t, "full-unroll", in, "-o", out)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a silent success at the default -verbose=30", code, stdout, stderr)
	}
	m, err := driver.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if countLoopsIn(m) == 0 {
		t.Errorf("level 0 (the default) unrolled the loops")
	}
	f := m.Main()
	tid, ok := f.TensorByName("x_tile_set")
	if !ok || len(f.Tensor(tid).Locs) != int(f.Tensor(tid).NBlocks) || f.Loc(f.Tensor(tid).Locs[1]).Name != "x_tile_set_sub1" {
		t.Errorf("level 0 did not generate per-block locations:\n%s", bir.Format(m))
	}
	orig, _ := driver.Load(in)
	sameOutputs(t, orig, m)
}

func TestFullUnrollCmd_Level2TextVerbose(t *testing.T) {
	dir := t.TempDir()
	in := writeBuiltinJSON(t, dir, "matmul")
	out := filepath.Join(dir, "out.bir")
	// Flags after the input, single and double dashes.
	code, _, stderr := narwhal(t, "full-unroll", in, "-unrollLevel=2", "--verbose=20", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"INFO (FullUnroll) Start unrolling at ", "INFO (FullUnroll) DONE unrolling ", "total_count="} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if driver.DetectFormat(data) != driver.FormatText {
		t.Errorf("out.bir is not in the text form")
	}
	m, err := driver.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := countLoopsIn(m); n != 0 {
		t.Errorf("%d loops after -unrollLevel=2", n)
	}
	if err := verify.Module(m, verify.Options{Stage: verify.StageUnrolled}); err != nil {
		t.Errorf("the output does not verify as unrolled: %v", err)
	}
	orig, _ := driver.Load(in)
	sameOutputs(t, orig, m)
}

func TestFullUnrollCmd_Failures(t *testing.T) {
	dir := t.TempDir()
	in := writeBuiltinJSON(t, dir, "tensor_add")
	out := filepath.Join(dir, "out.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no output", []string{in}, "-o OUTPUT"},
		{"no input", []string{"-o", out}, "want an input file"},
		{"two inputs", []string{in, in, "-o", out}, "want one input file"},
		{"bad level", []string{"-unrollLevel=5", in, "-o", out}, "unrollLevel=5"},
		{"missing input", []string{filepath.Join(dir, "nope.json"), "-o", out}, "nope.json"},
		{"bad flag", []string{"-unrollLevel=two", in, "-o", out}, "invalid value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := narwhal(t, append([]string{"full-unroll"}, tc.args...)...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want a failure mentioning %q", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written by a failing run", out)
			}
		})
	}
}

// A structurally broken module (an expression over an axis no loop binds)
// is refused with the verifier's diagnostic instead of being transformed.
func TestFullUnrollCmd_MalformedInput(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	free := m.NewAxis(bir.AxisInfo{Name: "q", Lb: 0, Ub: 2, Stride: 1, Loop: bir.NoInst, Func: -1})
	b.Save("st", z.Sym(affine.Const(0), affine.Scale(affine.Var(free), 64), [2]int64{64, 64}, [2]int64{1, 64}), x.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.bir")
	if err := driver.Save(in, m); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bir")
	code, _, stderr := narwhal(t, "full-unroll", "-unrollLevel=2", in, "-o", out)
	if code == 0 || !strings.Contains(stderr, "malformed") || !strings.Contains(stderr, "sym-axis-unbound") {
		t.Errorf("exit %d, stderr %q; want a refusal naming the rule", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output written for a malformed input")
	}
}

// The 25M ceiling through the tool: a nest that unrolls to 25,000,000
// instructions fails (exit 1) with the seed's diagnostic and writes
// nothing; it fails before cloning, so the test is cheap.
func TestFullUnrollCmd_Ceiling(t *testing.T) {
	src := `module arch=trn2

func @main {
  tensor %t_set: f32[128, 64] kind=Input
    loc %t: Input 128x256
  tensor %z_set: f32[128, 64] kind=Output
    loc %z: Output 128x256

Block1:
  loop_a = Loop a in [0, 5000) {
  Block_a:
    loop_b = Loop b in [0, 5000) {
    Block_b:
      st = Save %t[ap=[[64,128],[1,64]]] f32 -> %z[ap=[[64,128],[1,64]]] f32
    }
  }
}
`
	dir := t.TempDir()
	in := filepath.Join(dir, "big.bir")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bir")
	code, _, stderr := narwhal(t, "full-unroll", "-unrollLevel=2", in, "-o", out)
	want := `total_count < 25000000 && "Compiler generated too many instructions, this may due to a failure in parallelism extraction by the tensorizer !"`
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "total_count=25000000") {
		t.Errorf("exit %d, stderr %q; want exit 1 with the seed's message and total_count=25000000", code, stderr)
	}
	if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stderr is not one line: %q", stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("output written by a failing run")
	}
}
