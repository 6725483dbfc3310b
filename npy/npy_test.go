package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
)

// handWritten is what numpy.save(f, np.arange(6, dtype=np.float32).reshape(2, 3))
// writes (NumPy >= 1.23), assembled by hand from the format description:
// magic, version 1.0, header length 118 (0x76), the dict, 20 growth-axis
// spaces (21 digits minus the 1 of the leading dimension), 38 spaces of
// alignment padding and '\n' (10 + 118 = 128, a multiple of 64), then six
// little-endian float32 values 0..5.
func handWritten() []byte {
	var b []byte
	b = append(b, 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x76, 0x00)
	b = append(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"...)
	b = append(b, strings.Repeat(" ", 20+38)...)
	b = append(b, '\n')
	for i := 0; i < 6; i++ {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(i)))
	}
	return b
}

func f32Tensor(name string, shape []int64, vals ...float32) *interp.Tensor {
	t := &interp.Tensor{Name: name, Dtype: bir.Float32, Shape: shape}
	for _, v := range vals {
		t.Data = binary.LittleEndian.AppendUint32(t.Data, math.Float32bits(v))
	}
	return t
}

func TestWrite_ByteExact(t *testing.T) {
	want := handWritten()
	if len(want) != 128+24 {
		t.Fatalf("hand-written file is %d bytes, want 152", len(want))
	}
	got, err := Encode(f32Tensor("a", []int64{2, 3}, 0, 1, 2, 3, 4, 5))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("Encode:\n got %q\nwant %q", got, want)
	}
}

func TestRead_HandWritten(t *testing.T) {
	tn, err := Read(bytes.NewReader(handWritten()))
	if err != nil {
		t.Fatal(err)
	}
	if tn.Dtype != bir.Float32 || !slices.Equal(tn.Shape, []int64{2, 3}) {
		t.Fatalf("got %s %v, want float32 [2 3]", tn.Dtype, tn.Shape)
	}
	for i := 0; i < 6; i++ {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(tn.Data[4*i:])); v != float32(i) {
			t.Errorf("element %d = %v, want %d", i, v, i)
		}
	}
}

// TestRead_Variants covers headers other writers produce: version 2.0,
// the pre-1.23 16-byte alignment without growth padding, double quotes,
// reordered keys, Python 2 long integers, 0-d and 1-d shapes.
func TestRead_Variants(t *testing.T) {
	data := []byte{1, 0, 2, 0}
	mk := func(major byte, dict string, body []byte) []byte {
		var b []byte
		b = append(b, Magic...)
		b = append(b, major, 0)
		h := dict + "\n"
		if major == 1 {
			b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(h)))
		}
		return append(append(b, h...), body...)
	}
	tests := []struct {
		name  string
		file  []byte
		dt    bir.Dtype
		shape []int64
	}{
		{"v2", mk(2, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", data), bir.Int16, []int64{2}},
		{"v3", mk(3, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", data), bir.Uint16, []int64{2}},
		{"old", mk(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2), }    ", data), bir.Uint8, []int64{2, 2}},
		{"double quotes, key order", mk(1, `{"shape": (1, 4), "fortran_order": False, "descr": "|i1"}`, data), bir.Int8, []int64{1, 4}},
		{"py2 long", mk(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1L,), }", data), bir.Int32, []int64{1}},
		{"scalar", mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", data), bir.Float32, []int64{}},
		{"bool", mk(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", data), bir.Uint8, []int64{4}},
		{"bf16", mk(1, "{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }", data), bir.BFloat16, []int64{2}},
		{"empty", mk(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", nil), bir.Float32, []int64{0, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tn, err := Read(bytes.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tn.Dtype != tt.dt || !slices.Equal(tn.Shape, tt.shape) {
				t.Errorf("got %s %v, want %s %v", tn.Dtype, tn.Shape, tt.dt, tt.shape)
			}
			if want := tn.NumElements() * tn.Dtype.Size(); int64(len(tn.Data)) != want {
				t.Errorf("%d data bytes, want %d", len(tn.Data), want)
			}
		})
	}
}

func TestRead_Errors(t *testing.T) {
	hdr := func(dict string) []byte {
		b := append([]byte(Magic), 1, 0)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)+1))
		return append(append(b, dict...), '\n')
	}
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"magic", []byte("PK\x03\x04 not npy at all"), "not a .npy file"},
		{"short", []byte(Magic), "not a .npy file"},
		{"version", append([]byte(Magic), 4, 0, 0, 0), "version 4.0"},
		{"fortran", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }"), "fortran_order is True"},
		{"big endian", hdr("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }"), "big-endian"},
		{"object", hdr("{'descr': '|O', 'fortran_order': False, 'shape': (2,), }"), "descr"},
		{"float64", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"), "no narwhal dtype"},
		{"missing key", hdr("{'descr': '<f4', 'shape': (2,), }"), "want exactly the keys"},
		{"extra key", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}"), "want exactly the keys"},
		{"negative dim", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }"), "non-negative"},
		{"overflow", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4), }"), "overflows"},
		{"truncated data", append(hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"), 1, 2, 3), "data: 3 bytes, want 12"},
		{"ambiguous void", hdr("{'descr': '|V1', 'fortran_order': False, 'shape': (3,), }"), "ambiguous"},
		{"structured", hdr("{'descr': [('a', '<f4'), ('b', '<f4')], 'fortran_order': False, 'shape': (3,), }"), "structured dtypes"},
		{"garbage", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), } junk"), "after the dict"},
		{"unterminated", hdr("{'descr': '<f4"), "string"},
		{"unterminated dict", hdr("{'descr': '<f4'"), "unterminated dict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestRoundTrip writes and reads back a tensor of every narwhal dtype.
func TestRoundTrip(t *testing.T) {
	for dt := bir.Dtype(0); dt <= bir.MaxDtype; dt++ {
		t.Run(dt.String(), func(t *testing.T) {
			in := &interp.Tensor{Name: "x", Dtype: dt, Shape: []int64{3, 1, 2}}
			in.Data = make([]byte, 6*dt.Size())
			for i := range in.Data {
				in.Data[i] = byte(i*37 + 11)
			}
			enc, err := Encode(in)
			if err != nil {
				t.Fatal(err)
			}
			if len(enc)-len(in.Data) != 128 && len(enc)-len(in.Data) != 64 {
				t.Errorf("data offset %d, want a multiple of 64", len(enc)-len(in.Data))
			}
			out, err := Read(bytes.NewReader(enc))
			if err != nil {
				t.Fatal(err)
			}
			wantDt := dt
			if dt == bir.Float32R {
				wantDt = bir.Float32 // stored as '<f4'
			}
			if out.Dtype != wantDt || !slices.Equal(out.Shape, in.Shape) || !bytes.Equal(out.Data, in.Data) {
				t.Errorf("round trip: got %s %v %x, want %s %v %x", out.Dtype, out.Shape, out.Data, wantDt, in.Shape, in.Data)
			}
			as, err := ReadAs(bytes.NewReader(enc), dt)
			if err != nil || as.Dtype != dt {
				t.Errorf("ReadAs(%s) = %v, %v", dt, as, err)
			}
		})
	}
}

func TestReadAs(t *testing.T) {
	raw := append([]byte(Magic), 1, 0)
	dict := "{'descr': '|V1', 'fortran_order': False, 'shape': (2,), }\n"
	raw = binary.LittleEndian.AppendUint16(raw, uint16(len(dict)))
	raw = append(append(raw, dict...), 0x38, 0xb8)
	tn, err := ReadAs(bytes.NewReader(raw), bir.Float8E4M3FN)
	if err != nil || tn.Dtype != bir.Float8E4M3FN || !bytes.Equal(tn.Data, []byte{0x38, 0xb8}) {
		t.Errorf("ReadAs fp8 from '|V1' = %v, %v", tn, err)
	}
	if _, err := ReadAs(bytes.NewReader(raw), bir.BFloat16); err == nil || !strings.Contains(err.Error(), "want bfloat16") {
		t.Errorf("ReadAs bf16 from '|V1': error = %v", err)
	}
	if _, err := ReadAs(bytes.NewReader(handWritten()), bir.Int32); err == nil || !strings.Contains(err.Error(), "dtype float32, want int32") {
		t.Errorf("ReadAs int32 from '<f4': error = %v", err)
	}
}

func TestWriteFile_ReadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "z.npy")
	in := f32Tensor("whatever", []int64{4}, 1.5, -2, 0, 3)
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Name != "z" || !bytes.Equal(out.Data, in.Data) {
		t.Errorf("ReadFile: name %q data %x", out.Name, out.Data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("WriteFile left %d files, want 1 (no temporary files)", len(entries))
	}
	// Trailing bytes are an error for a file.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte{1, 2, 3})
	f.Close()
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "3 bytes after the data") {
		t.Errorf("trailing bytes: error = %v", err)
	}
	// A bad tensor is refused before anything is written.
	bad := &interp.Tensor{Name: "bad", Dtype: bir.Float32, Shape: []int64{3}, Data: []byte{1}}
	if err := WriteFile(filepath.Join(dir, "bad.npy"), bad); err == nil {
		t.Error("WriteFile accepted a tensor whose data does not match its shape")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.npy")); !os.IsNotExist(err) {
		t.Error("WriteFile created a file for a bad tensor")
	}
}

func TestEncodeHeader_MaxDims(t *testing.T) {
	shape := make([]int64, MaxDims)
	for i := range shape {
		shape[i] = 1
	}
	h, err := EncodeHeader(bir.Uint8, shape)
	if err != nil {
		t.Fatal(err)
	}
	if h[6] != 1 || len(h)%64 != 0 {
		t.Errorf("version %d, length %d: want version 1 and a multiple of 64", h[6], len(h))
	}
	hd, err := ReadHeader(bytes.NewReader(h))
	if err != nil || len(hd.Shape) != MaxDims || hd.DataOffset != int64(len(h)) {
		t.Errorf("ReadHeader = %+v, %v", hd, err)
	}
	if _, err := EncodeHeader(bir.Uint8, []int64{-1}); err == nil {
		t.Error("negative dimension accepted")
	}
}

func FuzzRead(f *testing.F) {
	f.Add(handWritten())
	enc, _ := Encode(&interp.Tensor{Dtype: bir.Float8E4M3FN, Shape: []int64{2}, Data: []byte{1, 2}})
	f.Add(enc)
	enc, _ = Encode(&interp.Tensor{Dtype: bir.BFloat16, Shape: []int64{}, Data: []byte{1, 2}})
	f.Add(enc)
	f.Fuzz(func(t *testing.T, data []byte) {
		tn, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if int64(len(tn.Data)) != tn.NumElements()*tn.Dtype.Size() {
			t.Fatalf("%d data bytes for shape %v of %s", len(tn.Data), tn.Shape, tn.Dtype)
		}
		// What was read writes back and reads back the same.
		enc, err := Encode(tn)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		again, err := Read(bytes.NewReader(enc))
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if again.Dtype != tn.Dtype || !slices.Equal(again.Shape, tn.Shape) || !bytes.Equal(again.Data, tn.Data) {
			t.Fatalf("round trip changed the tensor")
		}
	})
}

func TestNPZ_RoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "io.npz")
	in := map[string]*interp.Tensor{
		"x": f32Tensor("x", []int64{2, 3}, 0, 1, 2, 3, 4, 5),
		"i": {Name: "i", Dtype: bir.Int32, Shape: []int64{2}, Data: []byte{1, 0, 0, 0, 2, 0, 0, 0}},
	}
	if err := WriteNPZ(path, in); err != nil {
		t.Fatal(err)
	}
	a, err := OpenNPZ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if got := a.Names(); !slices.Equal(got, []string{"i", "x"}) {
		t.Errorf("Names = %v", got)
	}
	x, err := a.ReadAs("x", bir.Float32)
	if err != nil || x.Name != "x" || !bytes.Equal(x.Data, in["x"].Data) || !slices.Equal(x.Shape, []int64{2, 3}) {
		t.Errorf("ReadAs(x) = %+v, %v", x, err)
	}
	if _, err := a.ReadAs("i", bir.Float32); err == nil || !strings.Contains(err.Error(), "member i.npy: dtype int32, want float32") {
		t.Errorf("ReadAs(i, float32): error = %v", err)
	}
	if _, err := a.Read("nope"); err == nil || !strings.Contains(err.Error(), "no array \"nope\" (have i, x)") {
		t.Errorf("Read(nope): error = %v", err)
	}
	if _, err := OpenNPZ(filepath.Join(t.TempDir(), "missing.npz")); err == nil {
		t.Error("OpenNPZ of a missing file succeeded")
	}
}

func FuzzOpenNPZ(f *testing.F) {
	dir := f.TempDir()
	seed := filepath.Join(dir, "seed.npz")
	if err := WriteNPZ(seed, map[string]*interp.Tensor{"x": f32Tensor("x", []int64{2}, 1, 2)}); err != nil {
		f.Fatal(err)
	}
	data, _ := os.ReadFile(seed)
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ReadNPZ("fuzz.npz", data)
		if err != nil {
			return
		}
		defer a.Close()
		for _, n := range a.Names() {
			if tn, err := a.Read(n); err == nil && int64(len(tn.Data)) != tn.NumElements()*tn.Dtype.Size() {
				t.Fatalf("array %s: %d bytes for shape %v of %s", n, len(tn.Data), tn.Shape, tn.Dtype)
			}
		}
	})
}
