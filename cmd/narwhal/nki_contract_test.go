package main

// The interface contract of the NKI front end (../shared/docs/nki-frontend.md,
// "What a user does"), end to end, from a test that plays an outside caller:
// it writes a kernel file and an .npz, runs narwhal as a separate process (this
// test binary in its narwhal role, as the corpus tests run it), and reads
// `return`, `returnN` and the written parameters back from the outputs.

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/npy"
)

// contractKernels is a kernel file of the project's own, one kernel per
// part of the contract.
const contractKernels = `import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa
import numpy as np

ROWS = 128


@nki.jit
def scaled_sum(a, b, scale=1.0):
    """Returns (a + b) * scale for [128, F] float32 tensors."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    s = nl.load(a) + nl.load(b)
    nl.store(out, value=nl.multiply(s, scale))
    return out


@nki.jit
def into_param(a, result, op=np.add, bias=3):
    """Writes op(a, bias) into the parameter result (the older kernel style)."""
    t = nl.load(a)
    r = nisa.tensor_scalar(t, op, bias)
    nl.store(result, value=r)


@nki.jit
def pair(a):
    """Returns the tuple (a * 2, a - 1)."""
    t = nl.load(a)
    x = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    y = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(x, value=t * 2)
    nl.store(y, value=t - 1)
    return x, y


@nki.jit
def grid_rows(a):
    """Returns a + 1 for a [128 * P, F] tensor, program p adding rows 128p..128p+127."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    p = nl.program_id(0)
    rows = p * ROWS + nl.arange(ROWS)[:, None]
    cols = nl.arange(a.shape[1])[None, :]
    t = nl.load(a[rows, cols])
    nl.store(out[rows, cols], value=t + 1.0)
    return out
`

// narwhalProcess runs narwhal as another process in dir.
func narwhalProcess(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), o.String(), e.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, o.String(), e.String()
}

func f32Tensor(name string, shape []int64, f func(i int) float32) *interp.Tensor {
	n := int(shape[0] * shape[1])
	t := &interp.Tensor{Name: name, Dtype: bir.Float32, Shape: shape, Data: make([]byte, 4*n)}
	for i := 0; i < n; i++ {
		putF32(t.Data[4*i:], f(i))
	}
	return t
}

func putF32(b []byte, v float32) {
	u := math.Float32bits(v)
	b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
}

func getF32(b []byte) float32 {
	return math.Float32frombits(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
}

// readOutputs opens an output archive and returns its arrays by key.
func readOutputs(t *testing.T, path string) map[string]*interp.Tensor {
	t.Helper()
	a, err := npy.OpenNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	out := map[string]*interp.Tensor{}
	for _, n := range a.Names() {
		if out[n], err = a.Read(n); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// wantValues compares a float32 output with want(i) exactly.
func wantValues(t *testing.T, what string, got *interp.Tensor, want func(i int) float32) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: missing", what)
	}
	if got.Dtype != bir.Float32 {
		t.Fatalf("%s: dtype %s, want float32", what, got.Dtype)
	}
	for i := 0; i < len(got.Data)/4; i++ {
		if g, w := getF32(got.Data[4*i:]), want(i); g != w {
			t.Fatalf("%s[%d] = %v, want %v", what, i, g, w)
		}
	}
}

func TestNKIContract_OutsideCaller(t *testing.T) {
	dir := t.TempDir()
	kernel := filepath.Join(dir, "kernels.py")
	if err := os.WriteFile(kernel, []byte(contractKernels), 0o644); err != nil {
		t.Fatal(err)
	}
	shape := []int64{128, 64}
	a := f32Tensor("a", shape, func(i int) float32 { return float32(i%97) / 8 })
	b := f32Tensor("b", shape, func(i int) float32 { return float32(i%13) - 6 })
	res := f32Tensor("result", shape, func(int) float32 { return -1 })
	in := filepath.Join(dir, "in.npz")
	if err := npy.WriteNPZ(in, map[string]*interp.Tensor{"a": a, "b": b, "result": res}); err != nil {
		t.Fatal(err)
	}
	av := func(i int) float32 { return getF32(a.Data[4*i:]) }
	bv := func(i int) float32 { return getF32(b.Data[4*i:]) }

	t.Run("return", func(t *testing.T) {
		out := filepath.Join(dir, "sum.npz")
		code, _, stderr := narwhalProcess(t, dir, "run", "kernels.py", "--kernel", "scaled_sum", "--inputs", "in.npz",
			"--outputs", "sum.npz", "--arg", "scale=2.5")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got := readOutputs(t, out)
		wantValues(t, "return", got["return"], func(i int) float32 { return (av(i) + bv(i)) * 2.5 })
		if len(got) != 1 {
			t.Errorf("outputs %v, want only return", keys(got))
		}
	})
	t.Run("written parameter, dotted-name and literal args", func(t *testing.T) {
		code, _, stderr := narwhalProcess(t, dir, "run", "kernels.py", "--kernel", "into_param", "--inputs", "in.npz",
			"--outputs", "param.npz", "--arg", "op=np.multiply", "--arg", "bias=(3)")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		got := readOutputs(t, filepath.Join(dir, "param.npz"))
		wantValues(t, "result", got["result"], func(i int) float32 { return av(i) * 3 })
		if _, ok := got["return"]; ok {
			t.Errorf("a kernel returning None has no return output")
		}
	})
	t.Run("tuple, directory of .npy, defaults", func(t *testing.T) {
		code, _, stderr := narwhalProcess(t, dir, "run", "kernels.py", "--kernel", "pair", "--inputs", "in.npz", "--outputs", "pairdir")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for key, want := range map[string]func(int) float32{
			"return0": func(i int) float32 { return av(i) * 2 },
			"return1": func(i int) float32 { return av(i) - 1 },
		} {
			got, err := npy.ReadFile(filepath.Join(dir, "pairdir", key+npy.Ext))
			if err != nil {
				t.Fatal(err)
			}
			wantValues(t, key, got, want)
		}
	})
	t.Run("grid and --input with random data", func(t *testing.T) {
		code, stdout, stderr := narwhalProcess(t, dir, "run", "kernels.py", "--kernel", "grid_rows", "--input", "a=float32[256,32]",
			"--grid", "2", "--seed", "7", "--outputs", "grid.npz")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stdout, "random (seed 7)") {
			t.Errorf("stdout %q: want the input drawn from seed 7", stdout)
		}
		ga := interp.RandomTensor(interp.Spec{Name: "a", Dtype: bir.Float32, Shape: []int64{256, 32}}, 7)
		got := readOutputs(t, filepath.Join(dir, "grid.npz"))
		wantValues(t, "return", got["return"], func(i int) float32 {
			return getF32(ga.Data[4*i:]) + 1
		})
	})
	t.Run("compile, print and verify take the same flags", func(t *testing.T) {
		for _, args := range [][]string{
			{"compile", "kernels.py", "--kernel", "pair", "--input", "a=float32[128,64]", "-o", "pair.json"},
			{"print", "kernels.py", "--kernel", "pair", "--inputs", "in.npz"},
			{"verify", "kernels.py", "--kernel", "scaled_sum", "--inputs", "in.npz", "--arg", "scale=0.5"},
			{"verify", "pair.json", "--stage", "synchronized"},
			{"run", "pair.json", "--concurrent", "--outputs", "pc"},
		} {
			if code, _, stderr := narwhalProcess(t, dir, args...); code != 0 {
				t.Errorf("narwhal %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
		}
	})
	t.Run("errors name what is wrong", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"run", "kernels.py", "--inputs", "in.npz"}, "error[NW107]: kernels.py: the file has 4 @nki.jit kernels (scaled_sum, into_param, pair, grid_rows): pick one with --kernel NAME"},
			{[]string{"run", "kernels.py", "--kernel", "nope", "--inputs", "in.npz"}, "error[NW107]: kernels.py: --kernel nope: the file defines no function nope"},
			{[]string{"run", "kernels.py", "--kernel", "pair"}, "parameter a has no value: give a tensor with --input a=DTYPE[D0,...]"},
			{[]string{"run", "kernels.py", "--kernel", "pair", "--inputs", "in.npz", "--arg", "z=1"}, "kernel pair has no parameter --arg z (parameters: a)"},
			{[]string{"run", "kernels.py", "--kernel", "scaled_sum", "--inputs", "in.npz", "--arg", "scale=nl.nope"}, "--arg scale=nl.nope"},
			{[]string{"run", "kernels.py", "--kernel", "pair", "--input", "a=float32[128]x"}, "error[NW107]: --input \"a=float32[128]x\": no [shape]"},
			{[]string{"run", "kernels.py", "--kernel", "grid_rows", "--input", "a=float32[256,32]", "--grid", "2,x"}, "error[NW107]: --grid \"2,x\""},
			{[]string{"run", "builtin:tensor_add", "--kernel", "k"}, "error[NW101]: --kernel applies to a kernel file (.py)"},
		} {
			code, _, stderr := narwhalProcess(t, dir, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("narwhal %s: exit %d, stderr %q\nwant exit 1 and one line with %q", strings.Join(c.args, " "), code, stderr, c.want)
			}
		}
	})
}

func keys(m map[string]*interp.Tensor) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
