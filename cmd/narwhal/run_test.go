package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/npy"
)

// narwhal runs the CLI in-process and returns the exit code and outputs.
func narwhal(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainExit(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRun_BuiltinMatmul(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "d")
	code, stdout, stderr := narwhal(t, "run", "builtin:matmul", "--outputs", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	res, err := npy.ReadFile(filepath.Join(dir, "result.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Dtype != bir.Float32 || !slices.Equal(res.Shape, []int64{256, 512}) {
		t.Errorf("result.npy: %s %v, want float32 [256 512] (the default m x n)", res.Dtype, res.Shape)
	}
	for _, want := range []string{"input  lhsT  float32 [256 256]  random (seed 1)", "output result  float32 [256 512]  sha256:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the output directory, want 1 (result.npy)", len(entries))
	}
	// Read the file again without package npy, straight from the format
	// description (numpy.lib.format), so that a bug shared by npy's writer
	// and reader cannot hide: magic, version 1.0, little-endian header
	// length, the dict, data aligned to 64 bytes, 256*512 float32s.
	raw, err := os.ReadFile(filepath.Join(dir, "result.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 10 || string(raw[:8]) != "\x93NUMPY\x01\x00" {
		t.Fatalf("result.npy does not start with the .npy 1.0 magic: %q", raw[:min(len(raw), 10)])
	}
	hlen := int(binary.LittleEndian.Uint16(raw[8:10]))
	if 10+hlen > len(raw) || (10+hlen)%64 != 0 || raw[10+hlen-1] != '\n' {
		t.Fatalf("header length %d: want the data to start on a multiple of 64 after a '\\n'", hlen)
	}
	hdr := string(raw[10 : 10+hlen])
	for _, want := range []string{"'descr': '<f4'", "'fortran_order': False", "'shape': (256, 512)"} {
		if !strings.Contains(hdr, want) {
			t.Errorf("header %q lacks %s", hdr, want)
		}
	}
	if got, want := len(raw)-10-hlen, 256*512*4; got != want {
		t.Errorf("%d data bytes, want %d", got, want)
	}
	if !bytes.Equal(raw[10+hlen:], res.Data) {
		t.Error("the data section differs from what npy.ReadFile returned")
	}
}

// TestRun_CheckAllKernels runs every built-in kernel at its first test size
// through the CLI with --check (interpreter against the Go reference).
func TestRun_CheckAllKernels(t *testing.T) {
	for _, k := range kernels.All() {
		spec := k.TestSpecs()[0]
		t.Run(spec, func(t *testing.T) {
			code, stdout, stderr := narwhal(t, "run", "builtin:"+spec, "--check", "--seed", "3", "--outputs", t.TempDir())
			if code != 0 {
				t.Fatalf("exit %d, stderr: %s", code, stderr)
			}
			if !strings.Contains(stdout, "matches the Go reference") {
				t.Errorf("stdout lacks the check line:\n%s", stdout)
			}
		})
	}
}

func writeF32(t *testing.T, path string, shape []int64, vals []float32) {
	t.Helper()
	tn := &interp.Tensor{Dtype: bir.Float32, Shape: shape}
	for _, v := range vals {
		tn.Data = binary.LittleEndian.AppendUint32(tn.Data, math.Float32bits(v))
	}
	if err := npy.WriteFile(path, tn); err != nil {
		t.Fatal(err)
	}
}

// TestRun_HandWrittenJSON runs bir-json.md §7 (load two [128 x 512] fp32
// DRAM tensors, add on the Vector engine, store) on inputs from .npy files
// and checks z = x + y exactly.
func TestRun_HandWrittenJSON(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewPCG(4, 5))
	x := make([]float32, 128*512)
	y := make([]float32, len(x))
	for i := range x {
		x[i] = float32(r.NormFloat64() * 100)
		y[i] = float32(r.NormFloat64())
	}
	shape := []int64{128, 512}
	writeF32(t, filepath.Join(in, "x.npy"), shape, x)
	writeF32(t, filepath.Join(in, "y.npy"), shape, y)
	code, stdout, stderr := narwhal(t, "run", "testdata/tensor_add_bir.json", "--inputs", in, "--outputs", out)
	if code != 0 {
		t.Fatalf("exit %d, stderr: %s", code, stderr)
	}
	if !strings.Contains(stdout, "input  x  float32 [128 512]  "+filepath.Join(in, "x.npy")) {
		t.Errorf("stdout does not say x came from its file:\n%s", stdout)
	}
	z, err := npy.ReadFile(filepath.Join(out, "z.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if z.Dtype != bir.Float32 || !slices.Equal(z.Shape, shape) {
		t.Fatalf("z.npy: %s %v, want float32 %v", z.Dtype, z.Shape, shape)
	}
	for i := range x {
		got := math.Float32frombits(binary.LittleEndian.Uint32(z.Data[4*i:]))
		if want := x[i] + y[i]; math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("z[%d] = %v, want x+y = %v", i, got, want)
		}
	}
}

// TestRun_HandWrittenJSONIsTheSpecExample checks that testdata's copy of
// bir-json.md §7 (kept so the test runs on a clean clone) is still the
// example of ../shared/docs/bir-json.md.
func TestRun_HandWrittenJSONIsTheSpecExample(t *testing.T) {
	doc, err := os.ReadFile("../../../shared/docs/bir-json.md")
	if err != nil {
		sharedtest.Missing(t, "../shared is absent (%v): cannot compare testdata/tensor_add_bir.json with bir-json.md §7", err)
	}
	_, sec, ok := strings.Cut(string(doc), "## 7.")
	if !ok {
		t.Fatal("bir-json.md has no section 7")
	}
	_, block, ok := strings.Cut(sec, "```json\n")
	if ok {
		block, _, ok = strings.Cut(block, "```")
	}
	if !ok {
		t.Fatal("bir-json.md §7 has no json code block")
	}
	have, err := os.ReadFile("testdata/tensor_add_bir.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(have)) != strings.TrimSpace(block) {
		t.Error("testdata/tensor_add_bir.json differs from the example of bir-json.md §7; copy the example again")
	}
}

func TestRun_Errors(t *testing.T) {
	in := t.TempDir()
	writeF32(t, filepath.Join(in, "x.npy"), []int64{128, 256}, make([]float32, 128*256))
	badDtype := t.TempDir()
	i32 := &interp.Tensor{Dtype: bir.Int32, Shape: []int64{128, 512}, Data: make([]byte, 4*128*512)}
	if err := npy.WriteFile(filepath.Join(badDtype, "y.npy"), i32); err != nil {
		t.Fatal(err)
	}
	// bir-json.md §7 without its add: the store reads z_sb, never written.
	spec, err := os.ReadFile("testdata/tensor_add_bir.json")
	if err != nil {
		t.Fatal(err)
	}
	i, j := bytes.Index(spec, []byte(`{"opcode":"TensorTensor"`)), bytes.Index(spec, []byte(`{"opcode":"Save"`))
	if i < 0 || j < i {
		t.Fatal("testdata/tensor_add_bir.json has no TensorTensor before its Save")
	}
	uninit := filepath.Join(t.TempDir(), "uninit.json")
	if err := os.WriteFile(uninit, append(slices.Clip(spec[:i]), spec[j:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"out of bounds, verified", []string{"run", "testdata/bad/oob.json", "--outputs", t.TempDir()}, "the input does not verify: function sg0000, instruction ld_x (Load), location x: source 0 (x): access pattern [[512,128],[1,512]] at offset 1024 reaches elements [1024, 66559]"},
		{"out of bounds, executed", []string{"run", "testdata/bad/oob.json", "--no-verify", "--outputs", t.TempDir()}, "instruction ld_x (Load): source 0 accesses elements [1024, 66559] of location x, which holds 65536 elements of float32"},
		{"core id", []string{"run", "builtin:tensor_add", "--core-id", "-2"}, "--core-id -2: want -1"},
		{"empty outputs", []string{"run", "builtin:tensor_add", "--outputs", ""}, "--outputs is empty"},
		{"never-written SBUF", []string{"run", uninit, "--outputs", t.TempDir()}, "instruction st_z (Save): read of never-written SBUF (location z_sb) at partition 0 byte 0"},
		{"no file", []string{"run"}, "want one input"},
		{"two files", []string{"run", "a.json", "b.json"}, "give one input otherwise"},
		{"missing file", []string{"run", "no/such/file.json"}, "no such file"},
		{"unknown kernel", []string{"run", "builtin:nope"}, "unknown built-in kernel"},
		{"bad param", []string{"run", "builtin:matmul:m=3"}, "m=3"},
		{"unknown arch", []string{"run", "builtin:tensor_add", "--arch", "trn9"}, "trn9"},
		{"check needs builtin", []string{"run", "testdata/tensor_add_bir.json", "--check"}, "--check"},
		{"inputs dir missing", []string{"run", "testdata/tensor_add_bir.json", "--inputs", filepath.Join(in, "nope")}, "--inputs"},
		{"shape", []string{"run", "testdata/tensor_add_bir.json", "--inputs", in, "--outputs", t.TempDir()}, "input x: " + filepath.Join(in, "x.npy") + ": shape [128 256], want [128 512]"},
		{"dtype", []string{"run", "testdata/tensor_add_bir.json", "--inputs", badDtype, "--outputs", t.TempDir()}, "dtype int32, want float32"},
		{"instruction limit", []string{"run", "builtin:tensor_add:rows=256,cols=8", "--max-instructions", "3", "--outputs", t.TempDir()}, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := narwhal(t, tt.args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q lacks %q", stderr, tt.want)
			}
		})
	}
}

func TestRun_WarnsAboutUnknownInputFiles(t *testing.T) {
	in := t.TempDir()
	writeF32(t, filepath.Join(in, "xx.npy"), []int64{1}, []float32{1})
	code, _, stderr := narwhal(t, "run", "builtin:tensor_add:rows=128,cols=4", "--inputs", in, "--outputs", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "xx.npy matches no input of the module (inputs: x, y)") {
		t.Errorf("no warning for xx.npy: %q", stderr)
	}
}

// TestRun_Deterministic: the same seed gives the same checksums, another
// seed different ones.
func TestRun_Deterministic(t *testing.T) {
	sum := func(seed string) string {
		code, stdout, stderr := narwhal(t, "run", "builtin:softmax:rows=128,cols=32", "--seed", seed, "--outputs", t.TempDir())
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		i := strings.Index(stdout, "sha256:")
		if i < 0 {
			t.Fatalf("no checksum in %q", stdout)
		}
		return stdout[i : i+23]
	}
	if a, b, c := sum("1"), sum("1"), sum("2"); a != b || a == c {
		t.Errorf("checksums seed 1: %s, %s; seed 2: %s", a, b, c)
	}
}

func TestKernels(t *testing.T) {
	code, stdout, stderr := narwhal(t, "kernels")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	all := kernels.All()
	if len(lines) != len(all) {
		t.Fatalf("%d lines, want one per kernel (%d):\n%s", len(lines), len(all), stdout)
	}
	for i, k := range all {
		if !strings.HasPrefix(lines[i], k.Name+" ") {
			t.Errorf("line %d = %q, want it to start with %q", i, lines[i], k.Name)
		}
		for _, p := range k.Params {
			if !strings.Contains(lines[i], " "+p.Name+"="+p.Default) {
				t.Errorf("line %q lacks %s=%s", lines[i], p.Name, p.Default)
			}
		}
	}
	code, stdout, _ = narwhal(t, "kernels", "-v")
	if code != 0 || !strings.Contains(stdout, "    tile_n=512  ") {
		t.Errorf("kernels -v: exit %d, output lacks the parameter lines:\n%s", code, stdout)
	}
}

// TestRun_NPZ reads the inputs from an .npz archive and writes the
// outputs into another.
func TestRun_NPZ(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.npz"), filepath.Join(dir, "out.npz")
	shape := []int64{128, 512}
	mk := func(v float32) *interp.Tensor {
		tn := &interp.Tensor{Dtype: bir.Float32, Shape: shape}
		for range 128 * 512 {
			tn.Data = binary.LittleEndian.AppendUint32(tn.Data, math.Float32bits(v))
		}
		return tn
	}
	if err := npy.WriteNPZ(in, map[string]*interp.Tensor{"x": mk(1.25), "y": mk(2), "w": mk(0)}); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := narwhal(t, "run", "testdata/tensor_add_bir.json", "--inputs", in, "--outputs", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "input  x  float32 [128 512]  "+in+":x") || !strings.Contains(stdout, out+":z") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "array w of "+in+" matches no input") {
		t.Errorf("no warning for the extra array w: %q", stderr)
	}
	a, err := npy.OpenNPZ(out)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	z, err := a.Read("z")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(z.Data, mk(3.25).Data) {
		t.Error("z != 1.25 + 2 everywhere")
	}
}

// TestRun_SavedAndCompiledKernelKeepItsInputs: a built-in kernel saved to a
// file, and the compiled output of that file, record which kernel they are
// (kernels.SpecOption), so `narwhal run` draws the kernel's own inputs for
// them (embedding's indices must stay inside the table; cce_reduce has its
// own generator) and prints the same output hashes as builtin:NAME, and
// --check works on the files too.
func TestRun_SavedAndCompiledKernelKeepItsInputs(t *testing.T) {
	for _, name := range []string{"embedding", "cce_reduce"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			saved, compiled := filepath.Join(dir, "saved.json"), filepath.Join(dir, "compiled.json")
			printTo(t, saved, "builtin:"+name, "--format", "json")
			if code, _, stderr := narwhal(t, "compile", saved, "-o", compiled); code != 0 {
				t.Fatalf("compile: exit %d: %s", code, stderr)
			}
			hashes := func(src string) []string {
				code, stdout, stderr := narwhal(t, "run", src, "--check", "--outputs", t.TempDir())
				if code != 0 {
					t.Fatalf("run %s --check: exit %d: %s", src, code, stderr)
				}
				var out []string
				for _, line := range strings.Split(stdout, "\n") {
					if f := strings.Fields(line); len(f) > 4 && f[0] == "output" {
						out = append(out, f[1]+" "+f[4])
					}
				}
				if len(out) == 0 {
					t.Fatalf("run %s printed no output line:\n%s", src, stdout)
				}
				return out
			}
			want := hashes("builtin:" + name)
			for _, src := range []string{saved, compiled} {
				if got := hashes(src); !slices.Equal(got, want) {
					t.Errorf("run %s: outputs %v, builtin:%s gives %v", filepath.Base(src), got, name, want)
				}
			}
		})
	}
}

// TestRun_RecordedKernelErrors: a recorded spec that names no kernel is an
// error naming the option, not a silent fall-back to generic inputs.
func TestRun_RecordedKernelErrors(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved.bir")
	printTo(t, saved, "builtin:tensor_add")
	text, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(text, []byte(kernels.SpecOption)) {
		t.Fatalf("the saved module does not record its kernel (%s):\n%s", kernels.SpecOption, text)
	}
	edited := bytes.Replace(text, []byte(`"tensor_add`), []byte(`"no_such_kernel`), 1)
	if bytes.Equal(edited, text) {
		t.Fatalf("could not find the recorded spec in:\n%s", text)
	}
	if err := os.WriteFile(saved, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := narwhal(t, "run", saved, "--outputs", t.TempDir())
	if code == 0 || !strings.Contains(stderr, kernels.SpecOption) || !strings.Contains(stderr, "no_such_kernel") {
		t.Fatalf("exit %d, stderr %q: want an error naming %s and the bad kernel", code, stderr, kernels.SpecOption)
	}
}

// printTo writes `narwhal print SRC FLAGS...` to path.
func printTo(t *testing.T, path, src string, flags ...string) {
	t.Helper()
	code, stdout, stderr := narwhal(t, append([]string{"print", src}, flags...)...)
	if code != 0 {
		t.Fatalf("print %s: exit %d: %s", src, code, stderr)
	}
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
}
