package translate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/klr/klrtest"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// fixtureDir holds the shared KLR fixtures (../shared relative to the
// repository root).
const fixtureDir = "../../../shared/fixtures/klr"

// fixtureNames returns the names of the KLR fixtures (NAME of NAME.klr),
// skipping the test when there are none (failing it with
// NARWHAL_REQUIRE_FIXTURES=1).
func fixtureNames(t testing.TB) []string {
	t.Helper()
	return sharedtest.KLRNames(t, fixtureDir)
}

func fixturePath(name string) string { return filepath.Join(fixtureDir, name+".klr") }

// sidecar is the part of NAME.json these tests use.
type sidecar struct {
	KernelName     string          `json:"kernel_name"`
	ExpectedResult string          `json:"expected_result"`
	Cores          int             `json:"cores"`
	Inputs         []sidecarTensor `json:"inputs"`
	Outputs        []sidecarTensor `json:"outputs"`
	OnChip         []struct {
		Name    string `json:"name"`
		Memory  string `json:"memory"`
		Address struct {
			ParOffset       int64 `json:"parOffset"`
			FreeOffsetBytes int64 `json:"freeOffsetBytes"`
		} `json:"address"`
	} `json:"on_chip_tensors"`
	Statements []struct {
		Core int    `json:"core"`
		Op   string `json:"op"`
		Line int32  `json:"line"`
	} `json:"statements"`
}

// sidecarTensor is a kernel parameter as NAME.json states it.
type sidecarTensor struct {
	Name  string  `json:"name"`
	Dtype string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

// checkSpecs compares the interpreter's view of main's inputs or outputs
// (what) with the sidecar's, in order: name, dtype and exact shape.
func checkSpecs(t *testing.T, what string, have []interp.Spec, want []sidecarTensor) {
	t.Helper()
	if len(have) != len(want) {
		t.Errorf("main has %d %ss %+v, the sidecar lists %d", len(have), what, have, len(want))
		return
	}
	for i, w := range want {
		h := have[i]
		if h.Name != w.Name || h.Dtype.String() != w.Dtype || !slices.Equal(h.Shape, w.Shape) {
			t.Errorf("%s %d: %s %s %v, the sidecar says %s %s %v", what, i, h.Name, h.Dtype, h.Shape, w.Name, w.Dtype, w.Shape)
		}
	}
}

func readSidecar(t *testing.T, name string) sidecar {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var sc sidecar
	if err := json.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	return sc
}

// runTranslate runs the pass alone and returns its report entry.
func runTranslate(m *bir.Module) (*pass.PassResult, error) {
	return Translate(m, pass.Config{})
}

func loadFixture(t *testing.T, name string) *bir.Module {
	t.Helper()
	data, err := os.ReadFile(fixturePath(name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadKLR(fixturePath(name), data)
	if err != nil {
		t.Fatalf("LoadKLR: %v", err)
	}
	return m
}

func verifyModule(t *testing.T, m *bir.Module, when string) {
	t.Helper()
	if err := verify.Module(m, verify.Options{}); err != nil {
		t.Fatalf("verify %s: %v", when, err)
	}
}

func f32s(x *interp.Tensor) []float32 {
	out := make([]float32, len(x.Data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*i:]))
	}
	return out
}

func bf16s(x *interp.Tensor) []float32 {
	out := make([]float32, len(x.Data)/2)
	for i := range out {
		out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(x.Data[2*i:])) << 16)
	}
	return out
}

// calls returns the NKIKernel and NKIKLIRKernel instructions of f.
func calls(f *bir.Function) (kernels, placeholders []bir.InstID) {
	f.Walk(func(i bir.InstID) bool {
		switch f.Inst(i).Op {
		case bir.OpNKIKernel:
			kernels = append(kernels, i)
		case bir.OpNKIKLIRKernel:
			placeholders = append(placeholders, i)
		}
		return true
	})
	return
}

// TestTranslate_Fixtures: every KLR fixture loads, translates through the
// pass, verifies, has main inputs and outputs named, typed and shaped as
// its sidecar lists them, and - run in the interpreter on random inputs -
// computes the result its sidecar states (tensor_add_lnc2 once per core,
// each core computing its half).
func TestTranslate_Fixtures(t *testing.T) {
	for _, name := range fixtureNames(t) {
		sc := readSidecar(t, name)
		for core := 0; core < max(sc.Cores, 1); core++ {
			t.Run(name+"/core"+string(rune('0'+core)), func(t *testing.T) {
				m := loadFixture(t, name)
				if sc.Cores > 1 {
					m.HasCoreID, m.NeuronCoreID = true, int64(core)
				}
				verifyModule(t, m, "before translation")
				res, err := runTranslate(m)
				if err != nil {
					t.Fatalf("translate: %v", err)
				}
				verifyModule(t, m, "after translation")
				if res.Counter("kernels lowered") != 1 {
					t.Errorf("kernels lowered = %d, want 1", res.Counter("kernels lowered"))
				}
				main := m.Func("main")
				ks, ps := calls(main)
				if len(ks) != 1 || len(ps) != 0 {
					t.Fatalf("main has %d NKIKernel and %d NKIKLIRKernel instructions, want 1 and 0", len(ks), len(ps))
				}
				kf := m.Func(main.Attrs(ks[0]).Str(AttrFunc, ""))
				if kf == nil || kf.Kind != bir.FuncNKI || kf.Name != sc.KernelName {
					t.Fatalf("callee %q: want an NKI function named %s", main.Attrs(ks[0]).Str(AttrFunc, ""), sc.KernelName)
				}
				nstmt := 0
				var lines []int32
				for _, s := range sc.Statements {
					if s.Core == core {
						nstmt++
						lines = append(lines, s.Line)
					}
				}
				// Every instruction carries its statement's source line.
				var got []int32
				kf.Walk(func(i bir.InstID) bool {
					got = append(got, kf.InstPos(i).Line)
					return true
				})
				if !slices.Equal(got, lines) {
					t.Errorf("kernel instructions at source lines %v, the sidecar's statements at %v", got, lines)
				}
				if n := kf.NumInsts(); n != int64(nstmt) {
					t.Errorf("kernel function has %d instructions, the sidecar lists %d statements for core %d", n, nstmt, core)
				}
				for _, oc := range sc.OnChip {
					l, ok := kf.LocByName(oc.Name)
					if !ok {
						t.Errorf("on-chip tensor %s missing", oc.Name)
						continue
					}
					lc := kf.Loc(l)
					addr := lc.Addr
					if oc.Memory == "psum" {
						addr = lc.Bank*2048 + lc.Addr
					}
					if !lc.Allocated || lc.Base != oc.Address.ParOffset || addr != oc.Address.FreeOffsetBytes {
						t.Errorf("%s: allocated=%v base %d byte %d, sidecar says partition %d byte %d", oc.Name, lc.Allocated, lc.Base, addr, oc.Address.ParOffset, oc.Address.FreeOffsetBytes)
					}
				}
				checkSpecs(t, "input", interp.InputSpecs(m), sc.Inputs)
				checkSpecs(t, "output", interp.OutputSpecs(m), sc.Outputs)
				inputs := interp.RandomInputs(m, 7)
				out, err := interp.Run(m, inputs, interp.Options{})
				if err != nil {
					t.Fatalf("interp: %v", err)
				}
				for _, w := range sc.Outputs {
					if x := out[w.Name]; x == nil {
						t.Errorf("the run has no output %s (the sidecar lists it)", w.Name)
					} else if x.Dtype.String() != w.Dtype || !slices.Equal(x.Shape, w.Shape) {
						t.Errorf("run output %s: %s %v, the sidecar says %s %v", w.Name, x.Dtype, x.Shape, w.Dtype, w.Shape)
					}
				}
				checkExpected(t, name, sc, core, inputs, out)
			})
		}
	}
}

// checkExpected computes, in Go, the result the sidecar's expected_result
// describes and compares.
func checkExpected(t *testing.T, name string, sc sidecar, core int, in, out map[string]*interp.Tensor) {
	t.Helper()
	want := func(phrase string) {
		if !strings.Contains(sc.ExpectedResult, phrase) {
			t.Fatalf("%s: the sidecar's expected_result %q no longer says %q; update the test's model", name, sc.ExpectedResult, phrase)
		}
	}
	o := out["out"]
	if o == nil {
		t.Fatalf("no output named out (have %v)", keys(out))
	}
	got := f32s(o)
	switch sc.KernelName {
	case "tensor_add", "tensor_add_lnc2":
		want("a[i][j] + b[i][j]")
		a, b := f32s(in["a"]), f32s(in["b"])
		rows, cols := o.Shape[0], o.Shape[1]
		lo, hi := int64(0), rows
		if sc.Cores > 1 {
			want("core 1 computes rows 128..255")
			lo, hi = int64(128*core), int64(128*core+128)
		}
		for r := int64(0); r < rows; r++ {
			for c := int64(0); c < cols; c++ {
				i := r*cols + c
				if r >= lo && r < hi {
					if got[i] != a[i]+b[i] {
						t.Fatalf("out[%d][%d] = %v, want %v + %v = %v", r, c, got[i], a[i], b[i], a[i]+b[i])
					}
				} else if !bytes.Equal(o.Data[4*i:4*i+4], []byte{0xff, 0xff, 0xff, 0xff}) {
					t.Fatalf("out[%d][%d] = %v: core %d wrote outside its rows %d..%d", r, c, got[i], core, lo, hi-1)
				}
			}
		}
	case "activation_exp":
		want("exp(a[i][j])")
		a := f32s(in["a"])
		for i := range got {
			w := math.Exp(float64(a[i]))
			if math.Abs(float64(got[i])-w) > 1e-6*w {
				t.Fatalf("out[%d] = %v, want exp(%v) = %v", i, got[i], a[i], w)
			}
		}
	case "matmul_tile":
		want("sum_{k=0}^{127} lhsT[k][m] * rhs[k][n]")
		l, r := bf16s(in["lhsT"]), bf16s(in["rhs"])
		const K, M, N = 128, 128, 512
		for m := 0; m < M; m++ {
			for n := 0; n < N; n++ {
				var s float64
				for k := 0; k < K; k++ {
					s += float64(l[k*M+m]) * float64(r[k*N+n])
				}
				if g := float64(got[m*N+n]); math.Abs(g-s) > 1e-4*(1+math.Abs(s)) {
					t.Fatalf("out[%d][%d] = %v, want %v", m, n, g, s)
				}
			}
		}
	case "memset_fill":
		want("= 3.0")
		for i, v := range got {
			if v != 3 {
				t.Fatalf("out[%d] = %v, want 3.0", i, v)
			}
		}
	default:
		t.Fatalf("no expected-result model for fixture %s (%q): add one", name, sc.ExpectedResult)
	}
}

func keys[M ~map[string]V, V any](m M) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestTranslate_Logs checks the seed's log lines.
func TestTranslate_Logs(t *testing.T) {
	fixtureNames(t)
	m := loadFixture(t, "tensor_add")
	res, err := runTranslate(m)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Started running Lower KLIR Kernel into NKI kernel instruction",
		"Start of KLIR kernel lowering pass, number of insts: 1, number of allocs: 3",
		"Found InstKLIRKernel: tensor_add",
		"Scan BKs time (s): ",
	}
	if len(res.Log) != len(want) {
		t.Fatalf("log:\n%s\nwant %d lines", strings.Join(res.Log, "\n"), len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(res.Log[i], w) {
			t.Errorf("log line %d = %q, want prefix %q", i, res.Log[i], w)
		}
	}
}

// TestTranslate_KLRLNC: the LNC rules on a two-core KLR kernel.
func TestTranslate_KLRLNC(t *testing.T) {
	fixtureNames(t)
	m := loadFixture(t, "tensor_add_lnc2")
	_, err := runTranslate(m)
	if err == nil || !strings.Contains(err.Error(), "NeuronCoreId must be set when the LNC count is greater than 1") {
		t.Fatalf("unset core id: error %v", err)
	}
	m = loadFixture(t, "tensor_add_lnc2")
	m.HasCoreID, m.NeuronCoreID = true, 2
	res, err := runTranslate(m)
	if err != nil {
		t.Fatalf("core 2: %v", err)
	}
	if !slices.Contains(res.Log, "The kernel is compiled for LNC count lower than the current core_id 2 skip lowering") {
		t.Errorf("core 2: log lacks the skip line:\n%s", strings.Join(res.Log, "\n"))
	}
	if ks, ps := calls(m.Func("main")); len(ks) != 0 || len(ps) != 1 || len(m.Funcs) != 1 {
		t.Errorf("core 2: %d calls, %d placeholders, %d functions; want the placeholder left alone", len(ks), len(ps), len(m.Funcs))
	}
}

// addKernelModule builds a caller for testdata/add_lnc2.json: inputs a, b
// and output out [64,32] fp32 and one placeholder of format bir.
func addKernelModule(t *testing.T, path string, names bool) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	a := b.Input("a", bir.Float32, 64, 32)
	bb := b.Input("b", bir.Float32, 64, 32)
	o := b.Output("out", bir.Float32, 64, 32)
	var in, outN []string
	if names {
		in, outN = []string{"b", "a"}, []string{"out"}
		AddPlaceholder(b.F, b.Block(), "k", path, FormatBIR, []bir.Operand{bb.All(), a.All()}, in, []bir.Operand{o.All()}, outN)
	} else {
		AddPlaceholder(b.F, b.Block(), "k", path, FormatBIR, []bir.Operand{a.All(), bb.All()}, nil, []bir.Operand{o.All()}, nil)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestTranslate_BirJSONLNC: a two-core BIR-JSON kernel; core 0 and core 1
// each get their function, core 2 skips, an unset core id errors.
func TestTranslate_BirJSONLNC(t *testing.T) {
	path := filepath.Join("testdata", "add_lnc2.json")
	for core := 0; core < 2; core++ {
		m := addKernelModule(t, path, core == 1)
		m.HasCoreID, m.NeuronCoreID = true, int64(core)
		res, err := runTranslate(m)
		if err != nil {
			t.Fatalf("core %d: %v", core, err)
		}
		fname := []string{"add_core0", "add_core1"}[core]
		for _, w := range []string{"BIR JSON file has been loaded from disk: " + path,
			"Creating NKI function from BIR JSON: " + fname + " and core id: " + string(rune('0'+core))} {
			if !slices.Contains(res.Log, w) {
				t.Errorf("core %d: log lacks %q:\n%s", core, w, strings.Join(res.Log, "\n"))
			}
		}
		verifyModule(t, m, "after translation")
		main := m.Func("main")
		ks, ps := calls(main)
		if len(ks) != 1 || len(ps) != 0 {
			t.Fatalf("core %d: %d calls, %d placeholders", core, len(ks), len(ps))
		}
		attrs := main.Attrs(ks[0])
		if attrs.Str(AttrFunc, "") != fname || m.Func(fname) == nil || m.Func(fname).Kind != bir.FuncNKI {
			t.Fatalf("core %d: call to %q, want NKI function %s", core, attrs.Str(AttrFunc, ""), fname)
		}
		// The kernel is allocated: the caller reserves its SBUF extent.
		if v, _ := attrs.Get(AttrSBBufShape); v.JSON() != "[32,384]" {
			t.Errorf("core %d: sb_buf_shape %s, want [32,384]", core, v.JSON())
		}
		if v, _ := attrs.Get(AttrScratchpad); v.JSON() != `["k_sb_scratch"]` {
			t.Errorf("core %d: scratchpad %s", core, v.JSON())
		}
		if l, ok := main.LocByName("k_sb_scratch"); !ok || !main.Loc(l).Allocated || main.Loc(l).Bytes != 384 || main.Loc(l).Type != bir.MemSB {
			t.Errorf("core %d: scratchpad location missing or wrong", core)
		}
		inputs := interp.RandomInputs(m, 3)
		out, err := interp.Run(m, inputs, interp.Options{})
		if err != nil {
			t.Fatalf("core %d: interp: %v", core, err)
		}
		a, b, o := f32s(inputs["a"]), f32s(inputs["b"]), f32s(out["out"])
		for i := 32 * 32 * core; i < 32*32*(core+1); i++ {
			if o[i] != a[i]+b[i] {
				t.Fatalf("core %d: out[%d] = %v, want %v", core, i, o[i], a[i]+b[i])
			}
		}
	}
	m := addKernelModule(t, path, false)
	m.HasCoreID, m.NeuronCoreID = true, 2
	res, err := runTranslate(m)
	if err != nil {
		t.Fatalf("core 2: %v", err)
	}
	if !slices.Contains(res.Log, "The kernel is compiled for LNC count lower than the current core_id 2 skip lowering") {
		t.Errorf("core 2: no skip line:\n%s", strings.Join(res.Log, "\n"))
	}
	if _, ps := calls(m.Func("main")); len(ps) != 1 || len(m.Funcs) != 1 {
		t.Errorf("core 2: the placeholder must stay and no function be added")
	}
	m = addKernelModule(t, path, false)
	if _, err := runTranslate(m); err == nil || !strings.Contains(err.Error(), "NeuronCoreId must be set when the LNC count is greater than 1") {
		t.Errorf("unset core id: error %v", err)
	}
}

// TestTranslate_PathResolution: the artifact-directory fallback, staging,
// and the seed's error when the file is nowhere.
func TestTranslate_PathResolution(t *testing.T) {
	fixtureNames(t)
	data, err := os.ReadFile(fixturePath("memset_fill"))
	if err != nil {
		t.Fatal(err)
	}
	// Fallback: the recorded path is gone, the artifact dir has the file.
	art := t.TempDir()
	if err := os.WriteFile(filepath.Join(art, "memset_fill.klr"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	m := loadFixture(t, "memset_fill")
	f := m.Func("main")
	_, ps := calls(f)
	gone := filepath.Join(t.TempDir(), "moved", "memset_fill.klr")
	f.SetAttr(ps[0], AttrPath, bir.String(gone))
	m.ArtifactDir = art
	if _, err := runTranslate(m); err != nil {
		t.Fatalf("artifact fallback: %v", err)
	}
	// Nowhere: the seed's message.
	m = loadFixture(t, "memset_fill")
	f = m.Func("main")
	_, ps = calls(f)
	f.SetAttr(ps[0], AttrPath, bir.String(gone))
	m.ArtifactDir = t.TempDir()
	_, err = runTranslate(m)
	want := "NKI Kernel file " + gone + " does not exist, either in full path or in compiler artifacts directory"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "function main") {
		t.Errorf("missing file: error %v, want %q", err, want)
	}
	// Staging: the kernel file is copied into the artifact directory.
	m = loadFixture(t, "memset_fill")
	m.ArtifactDir = filepath.Join(t.TempDir(), "artifacts")
	if _, err := runTranslate(m); err != nil {
		t.Fatal(err)
	}
	staged, err := os.ReadFile(filepath.Join(m.ArtifactDir, "memset_fill.klr"))
	if err != nil || !bytes.Equal(staged, data) {
		t.Errorf("kernel file not staged into the artifact directory: %v", err)
	}
}

// TestTranslate_BadKLR: truncated, bit-flipped, wrong-version files and an
// unsupported operator give clear errors through the pass.
func TestTranslate_BadKLR(t *testing.T) {
	fixtureNames(t)
	data, err := os.ReadFile(fixturePath("tensor_add"))
	if err != nil {
		t.Fatal(err)
	}
	tn := bytes.Index(data, []byte{0xd9, 0x72, 0x00, 0x88, 0x61, 0x61}) // TensorName "a"
	op := bytes.Index(data, []byte{0xd9, 0xda, 34, 0x81})               // Operator.tensorTensor
	cases := []struct {
		name string
		edit func([]byte) []byte
		want []string
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }, []string{"unexpected end of input (the file is truncated)"}},
		{"bit-flipped tag", func(b []byte) []byte { b[tn+1] ^= 4; return b }, []string{"want TensorName (tag d9 72)", "LncKernel.inputs[0]"}},
		{"wrong version", func(b []byte) []byte { b[6] = 13; return b }, []string{"Wrong KLR version"}},
		{"content type", func(b []byte) []byte { b[bytes.Index(b, []byte{0xd9, 0xec})+2] = 1; return b }, []string{"Wrong KLIR content type"}},
		{"unsupported operator", func(b []byte) []byte { b[op+2] = 35; return b }, []string{"kernels.py:28:4: pass translate_nki_ast_to_bir", "unsupported operator tensorTensorScan"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := c.edit(append([]byte(nil), data...))
			path := filepath.Join(t.TempDir(), "bad.klr")
			if err := os.WriteFile(path, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			m := loadFixture(t, "tensor_add")
			f := m.Func("main")
			_, ps := calls(f)
			f.SetAttr(ps[0], AttrPath, bir.String(path))
			_, err := runTranslate(m)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(c.want, path, "instruction tensor_add") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if len(m.Funcs) != 1 {
				t.Errorf("a failed translation left %d functions", len(m.Funcs))
			}
		})
	}
}

// TestTranslate_Binding: argument binding by name and its errors.
func TestTranslate_Binding(t *testing.T) {
	path := filepath.Join("testdata", "add_lnc2.json")
	build := func(edit func(f *bir.Function, i bir.InstID)) error {
		m := addKernelModule(t, path, true)
		m.HasCoreID = true
		f := m.Func("main")
		_, ps := calls(f)
		edit(f, ps[0])
		_, err := runTranslate(m)
		return err
	}
	cases := []struct {
		name string
		edit func(f *bir.Function, i bir.InstID)
		want string
	}{
		{"unknown name", func(f *bir.Function, i bir.InstID) {
			f.SetAttr(i, AttrInputNames, strList([]string{"b", "x"}))
		}, `input argument 1 binds "x", but kernel add_core0 has no input of that name (its inputs: a, b)`},
		{"bound twice", func(f *bir.Function, i bir.InstID) {
			f.SetAttr(i, AttrInputNames, strList([]string{"a", "a"}))
		}, "kernel add_core0 input a is bound twice"},
		{"dtype", func(f *bir.Function, i bir.InstID) {
			o := f.Ins(i)[0]
			o.Dtype = bir.BFloat16
			f.SetOperand(i, 0, o)
		}, "input argument 0 (b): dtype bfloat16, kernel add_core0 wants float32"},
		{"count", func(f *bir.Function, i bir.InstID) {
			f.SetAttrs(i, f.Attrs(i).Without(AttrOutputNames))
			f.SetArgs(i, f.Ins(i), nil)
		}, "0 output arguments for the 1 outputs of kernel add_core0 (out)"},
	}
	for _, c := range cases {
		err := build(c.edit)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

// TestTranslate_NestedAndDeps: placeholders inside loop bodies are found,
// the call keeps the placeholder's position, predicate and dependencies,
// and instructions that depended on the placeholder depend on the call.
func TestTranslate_NestedAndDeps(t *testing.T) {
	fixtureNames(t)
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	o := b.Output("out", bir.Float32, 128, 64)
	o2 := b.Output("out2", bir.Float32, 128, 64)
	sb := b.SBUF("t", bir.Float32, 128, 64)
	var ph, after bir.InstID
	b.Loop("i", 0, 2, 1, func(i affine.Expr) {
		first := b.Memset("z", bir.EngDVE, sb.All(), 0)
		ph = AddPlaceholder(b.F, b.Block(), "fill", fixturePath("memset_fill"), FormatKLR, nil, []string{}, []bir.Operand{o.All()}, []string{"out"})
		b.F.AddDep(ph, bir.Dep{On: first, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
		after = b.Load("ld", sb.All(), o.All())
		b.F.AddDep(after, bir.Dep{On: ph, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
		b.Save("st", o2.All(), sb.All())
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	res, err := runTranslate(m)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Func("main")
	ks, ps := calls(f)
	if len(ks) != 1 || len(ps) != 0 {
		t.Fatalf("%d calls, %d placeholders", len(ks), len(ps))
	}
	call := ks[0]
	blk := f.Inst(call).Block
	if f.Block(blk).Parent == bir.NoInst {
		t.Error("the call is not in the loop body")
	}
	if pos := slices.Index(f.Block(blk).Insts, call); pos != 1 {
		t.Errorf("the call is at position %d of the loop body, want 1 (where the placeholder was)", pos)
	}
	if d := f.Deps(call); len(d) != 1 || f.InstName(d[0].On) != "z" {
		t.Errorf("call dependencies %v, want the placeholder's (on z)", d)
	}
	if d := f.Deps(after); len(d) != 1 || d[0].On != call {
		t.Errorf("ld depends on %v, want the call", d)
	}
	if !f.Inst(ph).Dead() {
		t.Error("placeholder not removed")
	}
	// One "Start of KLIR kernel lowering pass" line per block: the top block
	// and the loop body.
	n := 0
	for _, l := range res.Log {
		if strings.HasPrefix(l, "Start of KLIR kernel lowering pass") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d block scans logged, want 2", n)
	}
	verifyModule(t, m, "after translation")
	out, err := interp.Run(m, interp.RandomInputs(m, 1), interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f32s(out["out2"]) {
		if v != 3 {
			t.Fatalf("out2[%d] = %v, want 3", i, v)
		}
	}
}

// TestTranslate_Validation: translation validation. A module with a
// placeholder for tensor_add.klr, run after translation, equals the same
// kernel built directly with the bir.Builder (bit-identical outputs).
func TestTranslate_Validation(t *testing.T) {
	fixtureNames(t)
	m := loadFixture(t, "tensor_add")
	if _, err := runTranslate(m); err != nil {
		t.Fatal(err)
	}
	direct := bir.NewModule("trn2")
	b := bir.NewBuilder(direct, "main")
	a := b.Input("a", bir.Float32, 128, 512)
	bb := b.Input("b", bir.Float32, 128, 512)
	o := b.Output("out", bir.Float32, 128, 512)
	at := b.SBUF("a_tile", bir.Float32, 128, 512)
	bt := b.SBUF("b_tile", bir.Float32, 128, 512)
	st := b.SBUF("sum_tile", bir.Float32, 128, 512)
	b.Load("ld_a", at.All(), a.All())
	b.Load("ld_b", bt.All(), bb.All())
	b.TensorTensor("add", bir.EngDVE, "add", st.All(), at.All(), bt.All())
	b.Save("st", o.All(), st.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	for seed := int64(0); seed < 3; seed++ {
		in := interp.RandomInputs(direct, seed)
		want, err := interp.Run(direct, in, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		have, err := interp.Run(m, in, interp.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have["out"].Data, want["out"].Data) {
			t.Fatalf("seed %d: the translated kernel's output differs from the directly built kernel's", seed)
		}
	}
}

// TestDriverLoadsKLR: driver.Load accepts a .klr file (KLRLoader is set by
// this package's init) and yields main with one placeholder.
func TestDriverLoadsKLR(t *testing.T) {
	fixtureNames(t)
	m, err := driver.Load(fixturePath("matmul_tile"))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	_, ps := calls(f)
	if f.Name != "main" || len(ps) != 1 {
		t.Fatalf("main %q with %d placeholders", f.Name, len(ps))
	}
	attrs := f.Attrs(ps[0])
	if !filepath.IsAbs(attrs.Str(AttrPath, "")) || attrs.Str(AttrFormat, "") != FormatKLR {
		t.Errorf("placeholder attrs %s", attrs.Key())
	}
	if v, _ := attrs.Get(AttrInputNames); v.JSON() != `["lhsT","rhs"]` {
		t.Errorf("input_names %s", v.JSON())
	}
	specs := interp.InputSpecs(m)
	if len(specs) != 2 || specs[0].Name != "lhsT" || specs[0].Dtype != bir.BFloat16 || !slices.Equal(specs[1].Shape, []int64{128, 512}) {
		t.Errorf("main inputs %+v", specs)
	}
}

// BenchmarkTranslate_Scan1M measures the module walk: a 1,000,000-
// instruction straight-line main with one placeholder (memset_fill.klr) at
// its end. The cost is the per-instruction scan plus one kernel expansion;
// ns/inst is the pass's own wall time (PassResult.Wall) per instruction.
func BenchmarkTranslate_Scan1M(b *testing.B) {
	if _, err := os.Stat(fixturePath("memset_fill")); err != nil {
		sharedtest.Missing(b, "KLR fixture memset_fill not found in %s", fixtureDir)
	}
	const n = 1_000_000
	var spent time.Duration
	runs := 0
	for b.Loop() {
		b.StopTimer()
		m := bir.GenStraightLine(n)
		f := m.Main()
		bb := bir.BuilderFor(f, f.Top[0])
		o := bb.Output("out", bir.Float32, 128, 64)
		AddPlaceholder(f, f.Top[0], "fill", fixturePath("memset_fill"), FormatKLR, nil, []string{}, []bir.Operand{o.All()}, []string{"out"})
		runtime.GC()
		b.StartTimer()
		res, err := Translate(m, pass.Config{})
		if err != nil {
			b.Fatal(err)
		}
		spent += res.Wall // the pass alone, without the pass manager's counting walks
		runs++
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(runs)/n, "ns/inst")
}

// FuzzTranslateKLR: any bytes that load as a KLR kernel translate without a
// panic (the pass manager turns a panic into an error marked Panic).
func FuzzTranslateKLR(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtureDir, "*.klr"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	// Every Access form (the fixtures hold only birPattern).
	for _, c := range accessFormCases() {
		if data, err := klrtest.Encode(klrtest.LncFile(c.kernel)); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "k.klr")
		m, err := LoadKLR(path, data)
		if err != nil {
			return
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m.HasCoreID = true
		_, err = Translate(m, pass.Config{})
		var pe *pass.Error
		if errors.As(err, &pe) && pe.Panic {
			t.Fatalf("translation panicked: %v", err)
		}
	})
}
