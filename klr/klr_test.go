package klr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
)

// fixtureDir is the shared KLR fixture directory (../shared relative to the
// repository root).
const fixtureDir = "../../shared/fixtures/klr"

// fixtures returns the fixture names (NAME of NAME.klr), skipping the test
// when the shared directory is absent (failing it with
// NARWHAL_REQUIRE_FIXTURES=1).
func fixtures(t testing.TB) []string {
	t.Helper()
	return sharedtest.KLRNames(t, fixtureDir)
}

func readFixture(t testing.TB, name, ext string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtureDir, name+ext))
	if errors.Is(err, fs.ErrNotExist) {
		sharedtest.Missing(t, "KLR fixture %s%s not found in %s (the shared specification checkout is absent)", name, ext, fixtureDir)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// diffJSON returns the path of the first difference between two decoded
// JSON values, or "".
func diffJSON(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: have %T, want %T", path, a, b)
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if d := diffJSON(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: have %v, want %v", path, a, b)
		}
		for i := range x {
			if d := diffJSON(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: have %v, want %v", path, a, b)
	}
	return ""
}

// TestDecode_Fixtures decodes every fixture and compares the decode tree
// with the fixture's NAME.decoded.json, field by field.
func TestDecode_Fixtures(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			f, err := Decode(readFixture(t, name, ".klr"))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			have, err := f.MarshalTree()
			if err != nil {
				t.Fatal(err)
			}
			var h, w any
			if err := json.Unmarshal(have, &h); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(readFixture(t, name, ".decoded.json"), &w); err != nil {
				t.Fatal(err)
			}
			if d := diffJSON("$", h, w); d != "" {
				t.Errorf("decode tree differs from %s.decoded.json at %s", name, d)
			}
		})
	}
}

// sidecar is the part of NAME.json the reader tests check.
type sidecar struct {
	KernelName      string          `json:"kernel_name"`
	ContentsVariant string          `json:"contents_variant"`
	ContentsTag     int             `json:"contents_constructor_tag"`
	Cores           int             `json:"cores"`
	Inputs          []sidecarTensor `json:"inputs"`
	Outputs         []sidecarTensor `json:"outputs"`
	Statements      []struct {
		Core  int    `json:"core"`
		Block string `json:"block"`
		Op    string `json:"op"`
		Ctor  int    `json:"operator_ctor_tag"`
		Line  uint64 `json:"line"`
	} `json:"statements"`
}

// sidecarTensor is a kernel parameter as NAME.json states it.
type sidecarTensor struct {
	Name  string   `json:"name"`
	Dtype string   `json:"dtype"`
	Shape []uint64 `json:"shape"`
}

// TestDecode_FixtureSidecars checks the decoded kernels against the facts
// the sidecar NAME.json states (names, variant, cores, every input and
// output with its dtype and exact shape, statements).
func TestDecode_FixtureSidecars(t *testing.T) {
	for _, name := range fixtures(t) {
		t.Run(name, func(t *testing.T) {
			var sc sidecar
			if err := json.Unmarshal(readFixture(t, name, ".json"), &sc); err != nil {
				t.Fatal(err)
			}
			f, err := Decode(readFixture(t, name, ".klr"))
			if err != nil {
				t.Fatal(err)
			}
			if f.Contents.CtorName() != sc.ContentsVariant || f.Contents.Ctor != sc.ContentsTag {
				t.Errorf("contents %s (%d), want %s (%d)", f.Contents.CtorName(), f.Contents.Ctor, sc.ContentsVariant, sc.ContentsTag)
			}
			k := f.Contents.AsLnc()
			if k.Name != sc.KernelName {
				t.Errorf("kernel name %q, want %q", k.Name, sc.KernelName)
			}
			if len(k.Bodies) != sc.Cores {
				t.Errorf("%d bodies, want %d cores", len(k.Bodies), sc.Cores)
			}
			for _, io := range []struct {
				what string
				have []TensorName
				want []sidecarTensor
			}{{"input", k.Inputs, sc.Inputs}, {"output", k.Outputs, sc.Outputs}} {
				if len(io.have) != len(io.want) {
					t.Errorf("%d %ss, want %d", len(io.have), io.what, len(io.want))
					continue
				}
				for i, w := range io.want {
					tn := io.have[i]
					dims := tn.Shape.Dims()
					if tn.Name != w.Name || tn.Dtype.String() != w.Dtype || !slices.Equal(dims, w.Shape) {
						t.Errorf("%s %d: %s %s %v, want %s %s %v", io.what, i, tn.Name, tn.Dtype, dims, w.Name, w.Dtype, w.Shape)
					}
				}
			}
			type st struct {
				core  int
				block string
				op    string
				ctor  int
				line  uint64
			}
			var have, want []st
			for c, body := range k.Bodies {
				for _, b := range body {
					for _, s := range b.Body {
						have = append(have, st{c, b.Label, s.Op.Name(), s.Op.Ctor(), s.Pos.Line})
					}
				}
			}
			for _, s := range sc.Statements {
				want = append(want, st{s.Core, s.Block, s.Op, s.Ctor, s.Line})
			}
			if !reflect.DeepEqual(have, want) {
				t.Errorf("statements\nhave %v\nwant %v", have, want)
			}
		})
	}
}

// TestDecode_Truncated: every proper prefix of every fixture is an error
// that says the input is truncated (never a panic, never success).
func TestDecode_Truncated(t *testing.T) {
	for _, name := range fixtures(t) {
		data := readFixture(t, name, ".klr")
		for n := 0; n < len(data); n++ {
			_, err := Decode(data[:n])
			if err == nil {
				t.Fatalf("%s: prefix of %d bytes decoded without error", name, n)
			}
			if !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("%s: prefix of %d bytes: error does not say the input is truncated: %v", name, n, err)
			}
		}
	}
}

// TestDecode_BitFlips flips every bit of every fixture: decoding must never
// panic, and a flipped bit in a type tag, constructor index or field count
// must be reported with the offset of the damaged item.
func TestDecode_BitFlips(t *testing.T) {
	for _, name := range fixtures(t) {
		data := readFixture(t, name, ".klr")
		buf := make([]byte, len(data))
		for i := range data {
			for bit := 0; bit < 8; bit++ {
				copy(buf, data)
				buf[i] ^= 1 << bit
				Decode(buf) // must not panic
			}
		}
	}
	data := readFixture(t, "tensor_add", ".klr")
	// The first TensorName of the inputs ("a") starts after the LncKernel
	// header and name: find it by its bytes d9 72 00 88 61 61.
	tn := bytes.Index(data, []byte{0xd9, 0x72, 0x00, 0x88, 0x61, 0x61})
	if tn < 0 {
		t.Fatal("TensorName a not found in tensor_add.klr")
	}
	cases := []struct {
		name string
		off  int
		bit  uint
		want string
	}{
		{"type tag", tn + 1, 0, fmt.Sprintf("byte %d: want TensorName (tag d9 72)", tn)},
		{"constructor", tn + 2, 0, fmt.Sprintf("byte %d: want TensorName (constructor 0), have constructor 1", tn)},
		{"field count", tn + 3, 0, fmt.Sprintf("byte %d: want TensorName with 8 fields, have 9", tn)},
		{"Bool", bytes.Index(data[tn:], []byte{0x19, 0x02, 0x00, 0xf5}) + tn + 3, 3, "want a Bool (f4 or f5)"},
		{"header", 1, 0, "byte 0: want KLRFile (tag d9 d9)"},
	}
	for _, c := range cases {
		buf := append([]byte(nil), data...)
		buf[c.off] ^= 1 << c.bit
		_, err := Decode(buf)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: flipped bit %d of byte %d: error %v, want it to contain %q", c.name, c.bit, c.off, err, c.want)
		}
	}
}

func TestDecode_Version(t *testing.T) {
	data := readFixture(t, "tensor_add", ".klr")
	for _, v := range [][3]byte{{0, 0, 13}, {1, 0, 12}, {0, 1, 12}, {0, 0, 11}} {
		buf := append([]byte(nil), data...)
		copy(buf[4:7], v[:]) // d9 d9 f7 83 <major> <minor> <patch>
		_, err := Decode(buf)
		want := fmt.Sprintf("Wrong KLR version: the file is KLR %d.%d.%d, narwhal reads KLR 0.0.12", v[0], v[1], v[2])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("version %v: error %v, want %q", v, err, want)
		}
	}
}

func TestDecode_ContentType(t *testing.T) {
	data := readFixture(t, "tensor_add", ".klr")
	at := bytes.Index(data, []byte{0xd9, 0xec, 0x03, 0x81})
	if at < 0 {
		t.Fatal("Contents.lnc header not found")
	}
	for _, ctor := range []byte{0, 1, 4} {
		buf := append([]byte(nil), data...)
		buf[at+2] = ctor
		_, err := Decode(buf)
		if err == nil || !strings.Contains(err.Error(), "Wrong KLIR content type") || !strings.Contains(err.Error(), fmt.Sprintf("byte %d", at)) {
			t.Errorf("Contents constructor %d: error %v, want Wrong KLIR content type at byte %d", ctor, err, at)
		}
	}
}

func TestDecode_TrailingGarbage(t *testing.T) {
	data := readFixture(t, "memset_fill", ".klr")
	_, err := Decode(append(append([]byte(nil), data...), 0x00, 0x01))
	want := fmt.Sprintf("byte %d: trailing garbage: 2 bytes after the Contents item", len(data))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestDecode_HugeLength: a length prefix far beyond the input is an error
// before anything is allocated.
func TestDecode_HugeLength(t *testing.T) {
	data := readFixture(t, "memset_fill", ".klr")
	// The kernel name "memset_fill" is a text string 0x6b; replace the
	// inputs list header (0x80, empty) with an array of 2^63 items.
	at := bytes.Index(data, []byte("memset_fill")) + len("memset_fill")
	buf := append([]byte(nil), data[:at]...)
	buf = append(buf, 0x9b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	buf = append(buf, data[at+1:]...)
	_, err := Decode(buf)
	if err == nil || !strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), fmt.Sprintf("byte %d", at)) {
		t.Errorf("error %v, want a truncation error at byte %d", err, at)
	}
	// Same for a huge string length in raw decoding (an unknown operator).
	if _, err := Decode([]byte{0xd9, 0xd9, 0xf7, 0x83, 0, 0, 12, 0xd9, 0xeb, 0, 0x81, 0x7b, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}); err == nil {
		t.Error("huge string length decoded without error")
	}
}

// TestDecode_UnknownOperator: an operator constructor narwhal does not model
// is kept (raw) and the rest of the file decodes; its payload, which
// contains TensorNames with zero-byte Prop fields, is skipped exactly.
func TestDecode_UnknownOperator(t *testing.T) {
	data := readFixture(t, "tensor_add", ".klr")
	at := bytes.Index(data, []byte{0xd9, 0xda, OpTensorTensor, 0x81})
	if at < 0 {
		t.Fatal("Operator.tensorTensor not found")
	}
	buf := append([]byte(nil), data...)
	buf[at+2] = 35 // tensorTensorScan
	f, err := Decode(buf)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	body := f.Contents.Lnc.Bodies[0][0].Body
	if len(body) != 4 {
		t.Fatalf("%d statements, want 4", len(body))
	}
	u, ok := body[2].Op.(*UnknownOperator)
	if !ok {
		t.Fatalf("statement 2 is %T, want *UnknownOperator", body[2].Op)
	}
	if u.Name() != "tensorTensorScan" || len(u.Args) != 1 || u.Args[0].Kind != RawCtor || u.Args[0].Type != 182 || len(u.Args[0].Items) != 6 {
		t.Errorf("unknown operator %s with %d args, want tensorTensorScan with the raw TensorTensor payload of 6 fields", u.Name(), len(u.Args))
	}
	if _, ok := body[3].Op.(*NcDmaCopy); !ok || body[3].Pos.Line != 29 {
		t.Errorf("the statement after the unknown operator is %T at line %d, want ncDmaCopy at line 29", body[3].Op, body[3].Pos.Line)
	}
	// A constructor beyond the modelled list.
	buf[at+2] = 70
	if f, err = Decode(buf); err != nil {
		t.Fatal(err)
	}
	if n := f.Contents.Lnc.Bodies[0][0].Body[2].Op.Name(); n != "operator#70" {
		t.Errorf("name %q, want operator#70", n)
	}
}

func TestReadFile(t *testing.T) {
	fixtures(t)
	f, err := ReadFile(filepath.Join(fixtureDir, "matmul_tile.klr"))
	if err != nil {
		t.Fatal(err)
	}
	mm, ok := f.Contents.Lnc.Bodies[0][0].Body[2].Op.(*NcMatMul)
	if !ok {
		t.Fatalf("statement 2 is %T, want *NcMatMul", f.Contents.Lnc.Bodies[0][0].Body[2].Op)
	}
	if st := mm.Stationary.Access.Tensor(); st.Name != "lhsT_tile" || st.Dtype.String() != "bfloat16" {
		t.Errorf("stationary %s %s", st.Name, st.Dtype)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.klr")
	if err := os.WriteFile(bad, []byte{0xd9, 0xd9}, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": byte 0:") {
		t.Errorf("ReadFile error %v, want it to start with the path and byte offset", err)
	}
}

func FuzzDecode(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(fixtureDir, "*.klr"))
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte{0xd9, 0xd9, 0xf7, 0x83, 0, 0, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if _, err := file.MarshalTree(); err != nil {
			t.Fatalf("MarshalTree: %v", err)
		}
	})
}

// BenchmarkDecode measures decoding speed on the largest fixture.
func BenchmarkDecode(b *testing.B) {
	data := readFixture(b, "tensor_add_lnc2", ".klr")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
