// Package npy reads and writes NumPy .npy files (the format of
// numpy.lib.format, https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html)
// as interp.Tensor values: the inputs and outputs of `narwhal run`.
//
// A file is the magic "\x93NUMPY", a major and minor version byte, the
// header length (2 bytes little-endian in version 1.0, 4 bytes in 2.0 and
// 3.0), the header — a Python dict literal with exactly the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n' so
// that the data starts on a multiple of 64 bytes — and the raw element
// bytes in C (row-major) order.
//
// Reading accepts versions 1.0, 2.0 and 3.0 (3.0 differs only in allowing
// UTF-8 in the header), single- or double-quoted strings, any key order,
// trailing commas and extra whitespace. It rejects fortran_order True,
// big-endian descriptors, structured dtypes other than narwhal's own
// one-field form (below), object and string dtypes, and a data section
// shorter than the shape says, each with an error naming the problem.
// Writing produces version 1.0 when the header fits in 65535 bytes (any
// realistic shape), 2.0 otherwise, laid out exactly as numpy.save lays it
// out (NumPy >= 1.23: sorted keys, growth-axis padding, data aligned to 64
// bytes), so the output is byte-identical to numpy.save's for the standard
// dtypes.
//
// Descriptors per narwhal dtype:
//
//	int8 '|i1'   uint8 '|u1'   int16 '<i2'   uint16 '<u2'   int32 '<i4'
//	uint32 '<u4' int64 '<i8'   uint64 '<u8'  float16 '<f2'  float32 '<f4'
//	float32r '<f4' (tfloat32 values are fp32 bit patterns; reads back as float32)
//	bfloat16 '<V2'
//	float8*, float4_e2m1fn_x4 and the x4-packed fp8 types:
//	        [('<narwhal dtype name>', '|V<size>')]
//
// NumPy has no bfloat16. The ml_dtypes package (used by JAX and the NKI
// simulator) gives its bfloat16 arrays the two-byte void descriptor '<V2',
// which is what numpy.save writes for them; narwhal writes the same, so
// np.load(f).view(ml_dtypes.bfloat16) recovers the values, and reads both
// '<V2' and '|V2' as bfloat16. The other narwhal-only dtypes have no
// convention that tells them apart ('|V1' could be any of five fp8
// formats), so narwhal writes a one-field structured dtype whose field name
// is the narwhal dtype name: NumPy loads it as a structured array
// (a[name].view(ml_dtypes.float8_e4m3fn), say) and narwhal reads the dtype
// back exactly. A bare '|V1' or '|V4', as numpy.save writes for an
// ml_dtypes fp8 array, is ambiguous: Read rejects it with an error that
// says so, and ReadAs accepts it for a caller that knows the dtype.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/interp"
)

// Magic is the first six bytes of every .npy file.
const Magic = "\x93NUMPY"

// Ext is the file name extension.
const Ext = ".npy"

// MaxHeaderLen bounds the header a reader accepts (NumPy's own limit for
// untrusted files is 10000 bytes; narwhal allows more for long shapes but
// refuses to buffer an arbitrarily large claimed header).
const MaxHeaderLen = 1 << 20

// MaxDims bounds the rank of a shape (NumPy's NPY_MAXDIMS is 64).
const MaxDims = 64

// standard descriptors: narwhal dtype <-> NumPy descr.
var stdDescr = map[bir.Dtype]string{
	bir.Int8: "|i1", bir.Uint8: "|u1", bir.Int16: "<i2", bir.Uint16: "<u2",
	bir.Int32: "<i4", bir.Uint32: "<u4", bir.Int64: "<i8", bir.Uint64: "<u8",
	bir.Float16: "<f2", bir.Float32: "<f4", bir.Float32R: "<f4",
	bir.BFloat16: "<V2",
}

// Descr returns the descriptor narwhal writes for dt (a string for the
// standard dtypes and bfloat16, the text of a one-field structured dtype
// list for the other narwhal-only dtypes).
func Descr(dt bir.Dtype) (string, error) {
	if !dt.Valid() {
		return "", fmt.Errorf("invalid dtype %v", dt)
	}
	if d, ok := stdDescr[dt]; ok {
		return "'" + d + "'", nil
	}
	return fmt.Sprintf("[('%s', '|V%d')]", dt, dt.Size()), nil
}

// descrInfo is a parsed descriptor.
type descrInfo struct {
	dt  bir.Dtype
	raw int64 // > 0: an unnamed raw void of this many bytes (ambiguous unless 2)
}

// parseDescr maps a descriptor string (the value of 'descr', a plain
// type string) to a dtype.
func parseDescr(s string) (descrInfo, error) {
	if len(s) < 2 {
		return descrInfo{}, fmt.Errorf("descr %q: not a type descriptor", s)
	}
	order, kind, size := s[0], s[1], s[2:]
	if order != '<' && order != '>' && order != '|' && order != '=' {
		// NumPy also accepts a descr without a byte-order character.
		order, kind, size = '=', s[0], s[1:]
	}
	n, err := strconv.Atoi(size)
	if err != nil || n <= 0 {
		return descrInfo{}, fmt.Errorf("descr %q: unsupported type (want a numeric type such as '<f4', '<i4', '|u1')", s)
	}
	if order == '>' && n > 1 {
		return descrInfo{}, fmt.Errorf("descr %q: big-endian data is not supported (convert with a.astype(a.dtype.newbyteorder('<')))", s)
	}
	switch kind {
	case 'V':
		if n == 2 {
			return descrInfo{dt: bir.BFloat16}, nil // the ml_dtypes bfloat16 convention
		}
		return descrInfo{raw: int64(n)}, nil
	case 'f':
		switch n {
		case 2:
			return descrInfo{dt: bir.Float16}, nil
		case 4:
			return descrInfo{dt: bir.Float32}, nil
		}
	case 'i':
		switch n {
		case 1:
			return descrInfo{dt: bir.Int8}, nil
		case 2:
			return descrInfo{dt: bir.Int16}, nil
		case 4:
			return descrInfo{dt: bir.Int32}, nil
		case 8:
			return descrInfo{dt: bir.Int64}, nil
		}
	case 'u':
		switch n {
		case 1:
			return descrInfo{dt: bir.Uint8}, nil
		case 2:
			return descrInfo{dt: bir.Uint16}, nil
		case 4:
			return descrInfo{dt: bir.Uint32}, nil
		case 8:
			return descrInfo{dt: bir.Uint64}, nil
		}
	case 'b':
		if n == 1 {
			return descrInfo{dt: bir.Uint8}, nil // bool_ is stored as uint8 (semantics.md §2)
		}
	}
	return descrInfo{}, fmt.Errorf("descr %q: no narwhal dtype for this type (narwhal has int8..int64, uint8..uint64, float16, float32, bfloat16 and the fp8 formats)", s)
}

// Header is a parsed .npy header.
type Header struct {
	Major, Minor byte
	Dtype        bir.Dtype
	Shape        []int64
	// RawVoid is the element size of an unnamed raw void descriptor other
	// than '<V2' ('|V1', '|V4'): the dtype is then unknown and Dtype is
	// meaningless until a caller that knows it (ReadAs) supplies it.
	RawVoid int64
	// DataOffset is the byte offset of the element data.
	DataOffset int64
}

// NumElements is the product of the shape (ReadHeader has checked that
// it does not overflow).
func (h *Header) NumElements() int64 {
	n, _ := checked.Product(h.Shape...)
	return n
}

// ReadHeader reads the magic, version and header dict from r, leaving r
// at the start of the data.
func ReadHeader(r io.Reader) (*Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("not a .npy file: %w", noEOF(err))
	}
	if string(pre[:6]) != Magic {
		return nil, fmt.Errorf("not a .npy file: the magic is %q, want %q", pre[:6], Magic)
	}
	h := &Header{Major: pre[6], Minor: pre[7]}
	var hlen int64
	switch h.Major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("header length: %w", noEOF(err))
		}
		hlen = int64(binary.LittleEndian.Uint16(b[:]))
		h.DataOffset = 10 + hlen
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("header length: %w", noEOF(err))
		}
		hlen = int64(binary.LittleEndian.Uint32(b[:]))
		h.DataOffset = 12 + hlen
	default:
		return nil, fmt.Errorf("format version %d.%d is not supported (want 1.0, 2.0 or 3.0)", h.Major, h.Minor)
	}
	if hlen > MaxHeaderLen {
		return nil, fmt.Errorf("header of %d bytes: want at most %d", hlen, MaxHeaderLen)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, fmt.Errorf("header (%d bytes): %w", hlen, noEOF(err))
	}
	if err := h.parseDict(text); err != nil {
		return nil, fmt.Errorf("header %q: %w", abbreviate(text), err)
	}
	return h, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func abbreviate(b []byte) string {
	s := strings.TrimRight(string(b), " \n")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func (h *Header) parseDict(text []byte) error {
	if h.Major < 3 {
		for _, c := range text {
			if c >= 0x80 {
				return fmt.Errorf("non-ASCII byte 0x%02x in a version %d.%d header", c, h.Major, h.Minor)
			}
		}
	}
	p := &lit{s: string(text)}
	v, err := p.value(0)
	if err != nil {
		return err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return fmt.Errorf("unexpected %q after the dict", p.rest())
	}
	d, ok := v.(dict)
	if !ok {
		return fmt.Errorf("want a dict literal")
	}
	if len(d) != 3 {
		return fmt.Errorf("want exactly the keys 'descr', 'fortran_order', 'shape', have %d keys", len(d))
	}
	fo, ok := d["fortran_order"]
	if !ok {
		return fmt.Errorf("key 'fortran_order' is missing")
	}
	fb, ok := fo.(bool)
	if !ok {
		return fmt.Errorf("'fortran_order': want True or False")
	}
	if fb {
		return fmt.Errorf("fortran_order is True: narwhal reads C-order arrays only (save np.ascontiguousarray(a))")
	}
	sv, ok := d["shape"]
	if !ok {
		return fmt.Errorf("key 'shape' is missing")
	}
	tup, ok := sv.(tuple)
	if !ok {
		return fmt.Errorf("'shape': want a tuple of integers")
	}
	if len(tup) > MaxDims {
		return fmt.Errorf("'shape' has %d dimensions, want at most %d", len(tup), MaxDims)
	}
	h.Shape = make([]int64, len(tup))
	total := int64(1)
	for i, e := range tup {
		n, ok := e.(int64)
		if !ok || n < 0 {
			return fmt.Errorf("'shape' dimension %d: want a non-negative integer", i)
		}
		h.Shape[i] = n
		if total, ok = checked.Mul(total, n); !ok {
			return fmt.Errorf("'shape' %v: the element count overflows", h.Shape)
		}
	}
	dv, ok := d["descr"]
	if !ok {
		return fmt.Errorf("key 'descr' is missing")
	}
	switch x := dv.(type) {
	case string:
		di, err := parseDescr(x)
		if err != nil {
			return err
		}
		h.Dtype, h.RawVoid = di.dt, di.raw
	case list:
		dt, err := parseStructDescr(x)
		if err != nil {
			return err
		}
		h.Dtype = dt
	default:
		return fmt.Errorf("'descr': want a type string or narwhal's one-field list")
	}
	size := h.elemSize()
	if _, ok := checked.Mul(total, size); !ok {
		return fmt.Errorf("'shape' %v: the byte count overflows", h.Shape)
	}
	return nil
}

func (h *Header) elemSize() int64 {
	if h.RawVoid > 0 {
		return h.RawVoid
	}
	return h.Dtype.Size()
}

// parseStructDescr accepts narwhal's [('<dtype name>', '|V<size>')].
func parseStructDescr(l list) (bir.Dtype, error) {
	if len(l) != 1 {
		return 0, fmt.Errorf("'descr': structured dtypes are not supported (narwhal reads only its own one-field form [('float8_e4m3fn', '|V1')])")
	}
	f, ok := l[0].(tuple)
	if !ok || len(f) != 2 {
		return 0, fmt.Errorf("'descr': want [('<narwhal dtype>', '|V<size>')]")
	}
	name, ok1 := f[0].(string)
	typ, ok2 := f[1].(string)
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("'descr': want [('<narwhal dtype>', '|V<size>')]")
	}
	dt, err := bir.ParseDtype(name)
	if err != nil {
		return 0, fmt.Errorf("'descr' field %q: %w", name, err)
	}
	want := fmt.Sprintf("|V%d", dt.Size())
	if typ != want && typ != "<"+want[1:] {
		return 0, fmt.Errorf("'descr' field %q has type %q, want %q", name, typ, want)
	}
	return dt, nil
}

// Read reads a .npy stream into a tensor (Name empty: the caller names
// it). The data must be complete; bytes after it are not read.
func Read(r io.Reader) (*interp.Tensor, error) {
	return read(r, 0, false)
}

// ReadAs is Read for a caller that knows the dtype it wants: the file's
// dtype must be dt, except that a raw void descriptor of dt's size ('|V1'
// for an fp8 dtype, as numpy.save writes ml_dtypes arrays) is taken as dt,
// and a float32 file is accepted for float32r (tfloat32 is stored as fp32
// bits).
func ReadAs(r io.Reader, dt bir.Dtype) (*interp.Tensor, error) {
	if !dt.Valid() {
		return nil, fmt.Errorf("invalid dtype %v", dt)
	}
	return read(r, dt, true)
}

func read(r io.Reader, want bir.Dtype, haveWant bool) (*interp.Tensor, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	dt := h.Dtype
	switch {
	case h.RawVoid > 0 && haveWant && h.RawVoid == want.Size():
		dt = want
	case h.RawVoid > 0 && haveWant:
		return nil, fmt.Errorf("dtype: raw %d-byte elements ('|V%d'), want %s (%d bytes)", h.RawVoid, h.RawVoid, want, want.Size())
	case h.RawVoid > 0:
		return nil, fmt.Errorf("dtype: raw %d-byte elements ('|V%d') are ambiguous (an fp8 array saved from ml_dtypes?); the dtype must be known to read them", h.RawVoid, h.RawVoid)
	case haveWant && dt == bir.Float32 && want == bir.Float32R:
		dt = want
	case haveWant && dt != want:
		return nil, fmt.Errorf("dtype %s, want %s", dt, want)
	}
	t := &interp.Tensor{Dtype: dt, Shape: h.Shape}
	n := h.NumElements() * dt.Size()
	// Read at most n bytes, growing the buffer with the data actually
	// present, so that a header claiming a huge shape cannot make the
	// reader allocate memory the file does not back.
	var buf bytes.Buffer
	if n <= 64<<20 {
		buf.Grow(int(n))
	}
	got, err := io.Copy(&buf, io.LimitReader(r, n))
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if got != n {
		return nil, fmt.Errorf("data: %d bytes, want %d (shape %v of %s)", got, n, h.Shape, dt)
	}
	t.Data = buf.Bytes()
	return t, nil
}

// ReadFile reads a .npy file; the tensor is named after the file (its base
// name without the extension). Bytes after the data are an error.
func ReadFile(path string) (*interp.Tensor, error) {
	return readFile(path, 0, false)
}

// ReadFileAs is ReadFile with ReadAs's dtype rules.
func ReadFileAs(path string, dt bir.Dtype) (*interp.Tensor, error) {
	return readFile(path, dt, true)
}

func readFile(path string, dt bir.Dtype, haveWant bool) (*interp.Tensor, error) {
	outfile.NoteInput(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &countReader{r: f}
	t, err := read(r, dt, haveWant)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var one [1]byte
	if n, _ := io.ReadFull(f, one[:]); n > 0 {
		extra := int64(1)
		if st, err := f.Stat(); err == nil {
			extra = st.Size() - r.n
		}
		return nil, fmt.Errorf("%s: %d bytes after the data (shape %v of %s ends at byte %d)", path, extra, t.Shape, t.Dtype, r.n)
	}
	t.Name = strings.TrimSuffix(filepath.Base(path), Ext)
	return t, nil
}

type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// numpy.lib.format's layout constants: the data offset is a multiple of
// arrayAlign (NumPy >= 1.23; readers accept any), and the dict is followed
// by growth-axis padding so that the leading dimension can grow in place
// to growthAxisMaxDigits digits.
const (
	arrayAlign          = 64
	growthAxisMaxDigits = 21
)

// EncodeHeader returns the magic, version, length and padded header of a
// tensor of dtype dt and the given shape, byte for byte as numpy.save
// writes it (NumPy >= 1.23): the dict with sorted keys and a trailing ", ",
// the growth-axis spaces, then spaces and '\n' up to a multiple of 64.
func EncodeHeader(dt bir.Dtype, shape []int64) ([]byte, error) {
	descr, err := Descr(dt)
	if err != nil {
		return nil, err
	}
	var sb strings.Builder
	sb.WriteString("{'descr': ")
	sb.WriteString(descr)
	sb.WriteString(", 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("shape %v: negative dimension", shape)
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.FormatInt(d, 10))
	}
	if len(shape) == 1 {
		sb.WriteString(",")
	}
	sb.WriteString("), }")
	if len(shape) > 0 {
		sb.WriteString(strings.Repeat(" ", max(0, growthAxisMaxDigits-len(strconv.FormatInt(shape[0], 10)))))
	}
	dict := sb.String()
	for _, v := range []struct {
		major byte
		pre   int // magic + version + length field
	}{{1, 10}, {2, 12}} {
		hlen := len(dict) + 1 // with the final '\n'
		pad := arrayAlign - (v.pre+hlen)%arrayAlign
		if v.major == 1 && hlen+pad > math.MaxUint16 {
			continue
		}
		out := make([]byte, 0, v.pre+hlen+pad)
		out = append(out, Magic...)
		out = append(out, v.major, 0)
		if v.major == 1 {
			out = binary.LittleEndian.AppendUint16(out, uint16(hlen+pad))
		} else {
			out = binary.LittleEndian.AppendUint32(out, uint32(hlen+pad))
		}
		out = append(out, dict...)
		out = append(out, bytes.Repeat([]byte{' '}, pad)...)
		out = append(out, '\n')
		return out, nil
	}
	return nil, fmt.Errorf("shape %v: header too long", shape)
}

// Write writes t as a .npy stream.
func Write(w io.Writer, t *interp.Tensor) error {
	if err := check(t); err != nil {
		return err
	}
	hdr, err := EncodeHeader(t.Dtype, t.Shape)
	if err != nil {
		return fmt.Errorf("tensor %s: %w", t.Name, err)
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err = w.Write(t.Data)
	return err
}

func check(t *interp.Tensor) error {
	if t == nil {
		return fmt.Errorf("nil tensor")
	}
	if !t.Dtype.Valid() {
		return fmt.Errorf("tensor %s: invalid dtype %v", t.Name, t.Dtype)
	}
	n := int64(1)
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("tensor %s: shape %v has a negative dimension", t.Name, t.Shape)
		}
		n *= d
	}
	if want := n * t.Dtype.Size(); int64(len(t.Data)) != want {
		return fmt.Errorf("tensor %s: %d data bytes, want %d (shape %v of %s)", t.Name, len(t.Data), want, t.Shape, t.Dtype)
	}
	return nil
}

// Encode returns the .npy bytes of t.
func Encode(t *interp.Tensor) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, t); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile writes t to path with narwhal's output rules
// (internal/outfile: a temporary file in the same directory, then a
// rename, so a reader never sees a partial file; "-" for standard output).
func WriteFile(path string, t *interp.Tensor) error {
	if err := check(t); err != nil {
		return err
	}
	return outfile.Write(path, outfile.Options{}, func(w io.Writer) error { return Write(w, t) })
}
