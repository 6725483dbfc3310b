// The CBOR layer of the KLR reader: a cursor over the file's bytes that
// reads the definite-length items KLR writes (klr-format.md, "Wire format
// notes") and reports every mismatch with the byte offset of the offending
// item, what was expected there and what was found.
//
// KLR uses a small subset of CBOR (RFC 8949):
//
//   - unsigned and negative integers (major types 0 and 1) for Nat and Int;
//   - text strings (major 3) for String;
//   - definite-length arrays (major 4) for List and Array;
//   - the simple values f4/f5 (Bool) and the floats fa (Float32; f9 and fb
//     are accepted as well and narrowed);
//   - the two-byte tag form d9 <typeTag> <ctorIndex> followed by an array
//     header 0x80|n for every structure and inductive constructor, and
//     d9 ff 00 80 / d9 ff 01 81 for Option.none / Option.some.
//
// Indefinite-length items, maps and byte strings are never written by KLR;
// the typed reader rejects them where a KLR value is expected, and the
// generic reader (Raw, used to keep operator constructors narwhal does not
// model) rejects indefinite lengths and accepts the rest.
//
// Robustness: every length prefix is checked against the bytes that remain
// before anything is allocated (each array element takes at least one byte,
// so an array of n elements needs n bytes), nesting is bounded (maxDepth),
// and integer arguments that do not fit the Go type are errors. Nothing in
// this file panics on any input; FuzzDecode checks that.
package klr

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/diag"
)

// maxDepth bounds the nesting of items (structures inside structures). Real
// kernels nest about 12 deep (Contents > LncKernel > bodies > Block > Stmt >
// Operator > op > TensorRef > Access > BirAccessPattern > TensorName >
// Address); the bound only stops hostile inputs from recursing without end.
const maxDepth = 200

// Error is a decoding error: the byte offset of the item that could not be
// read, what was wrong, and the path of fields that led there (outermost
// first, e.g. "Contents.lnc > LncKernel.inputs[0] > TensorName.addressRotation").
type Error struct {
	Offset int
	Msg    string
	Path   []string
}

// ErrorCode is diag.BadKLR.
func (e *Error) ErrorCode() string { return diag.BadKLR }

func (e *Error) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "byte %d: %s", e.Offset, e.Msg)
	if len(e.Path) > 0 {
		sb.WriteString(" (in ")
		for i := len(e.Path) - 1; i >= 0; i-- {
			// An index ("[3]") attaches to the list field before it.
			if i < len(e.Path)-1 && !strings.HasPrefix(e.Path[i], "[") {
				sb.WriteString(" > ")
			}
			sb.WriteString(e.Path[i])
		}
		sb.WriteString(")")
	}
	return sb.String()
}

// within adds a path element to an error on its way out (innermost first;
// Error prints them reversed).
func within(err error, elem string) error {
	if e, ok := err.(*Error); ok {
		e.Path = append(e.Path, elem)
	}
	return err
}

// withinf is within with a formatted element, built only on error.
func withinf(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return within(err, fmt.Sprintf(format, args...))
}

// CBOR major types.
const (
	majUint   = 0
	majNeg    = 1
	majBytes  = 2
	majText   = 3
	majArray  = 4
	majMap    = 5
	majTag    = 6
	majSimple = 7
)

// decoder is a cursor over the input.
type decoder struct {
	data  []byte
	pos   int
	depth int
}

func (d *decoder) remaining() int { return len(d.data) - d.pos }

func (d *decoder) errAt(off int, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// eof is the error for running out of input while expecting want.
func (d *decoder) eof(off int, want string) error {
	return d.errAt(off, "unexpected end of input (the file is truncated): want %s", want)
}

// head reads an item's initial byte and argument. For major 7 the argument
// is the raw additional information (20..23) or the float bits.
func (d *decoder) head(want string) (major byte, info byte, arg uint64, err error) {
	start := d.pos
	if d.pos >= len(d.data) {
		return 0, 0, 0, d.eof(start, want)
	}
	b := d.data[d.pos]
	major, info = b>>5, b&0x1f
	var n int
	switch {
	case info < 24:
		d.pos++
		return major, info, uint64(info), nil
	case info == 24:
		n = 1
	case info == 25:
		n = 2
	case info == 26:
		n = 4
	case info == 27:
		n = 8
	case info == 31:
		return 0, 0, 0, d.errAt(start, "want %s, have an indefinite-length item (0x%02x); KLR writes only definite lengths", want, b)
	default:
		return 0, 0, 0, d.errAt(start, "want %s, have a malformed CBOR initial byte 0x%02x (reserved additional information %d)", want, b, info)
	}
	if d.remaining() < 1+n {
		return 0, 0, 0, d.eof(start, want)
	}
	for _, c := range d.data[d.pos+1 : d.pos+1+n] {
		arg = arg<<8 | uint64(c)
	}
	d.pos += 1 + n
	return major, info, arg, nil
}

// describe names the item at off for error messages ("have ...").
func (d *decoder) describe(off int) string {
	if off >= len(d.data) {
		return "end of input"
	}
	b := d.data[off]
	major, info := b>>5, b&0x1f
	switch major {
	case majUint:
		return fmt.Sprintf("an unsigned integer (0x%02x)", b)
	case majNeg:
		return fmt.Sprintf("a negative integer (0x%02x)", b)
	case majBytes:
		return fmt.Sprintf("a byte string (0x%02x)", b)
	case majText:
		return fmt.Sprintf("a text string (0x%02x)", b)
	case majArray:
		if info < 24 {
			return fmt.Sprintf("an array of %d items (0x%02x)", info, b)
		}
		return fmt.Sprintf("an array (0x%02x)", b)
	case majMap:
		return fmt.Sprintf("a map (0x%02x)", b)
	case majTag:
		if b == 0xd9 && off+2 < len(d.data) {
			t, c := d.data[off+1], d.data[off+2]
			if name, ok := typeNames[t]; ok {
				return fmt.Sprintf("%s (tag d9 %02x %02x: type %d, constructor %d)", name, t, c, t, c)
			}
			return fmt.Sprintf("a tagged value d9 %02x %02x (type %d, constructor %d)", t, c, t, c)
		}
		return fmt.Sprintf("a CBOR tag (0x%02x)", b)
	default:
		switch info {
		case 20:
			return "false (0xf4)"
		case 21:
			return "true (0xf5)"
		case 22:
			return "null (0xf6)"
		case 25, 26, 27:
			return fmt.Sprintf("a float (0x%02x)", b)
		}
		return fmt.Sprintf("a simple value (0x%02x)", b)
	}
}

// mismatch is the error for an item of the wrong kind at off.
func (d *decoder) mismatch(off int, want string) error {
	return d.errAt(off, "want %s, have %s", want, d.describe(off))
}

// readNat reads a Nat (major type 0).
func (d *decoder) readNat() (uint64, error) {
	start := d.pos
	major, _, arg, err := d.head("a Nat (unsigned integer)")
	if err != nil {
		return 0, err
	}
	if major != majUint {
		d.pos = start
		return 0, d.mismatch(start, "a Nat (unsigned integer)")
	}
	return arg, nil
}

// readInt reads an Int (major 0 or 1) into an int64.
func (d *decoder) readInt() (int64, error) {
	start := d.pos
	major, _, arg, err := d.head("an Int")
	if err != nil {
		return 0, err
	}
	switch major {
	case majUint:
		if arg > math.MaxInt64 {
			return 0, d.errAt(start, "Int %d does not fit in 64 bits", arg)
		}
		return int64(arg), nil
	case majNeg:
		if arg > math.MaxInt64 {
			return 0, d.errAt(start, "Int -1-%d does not fit in 64 bits", arg)
		}
		return -1 - int64(arg), nil
	}
	d.pos = start
	return 0, d.mismatch(start, "an Int (integer)")
}

// readInt32 reads an Int that must fit in 32 bits (Lean Int32).
func (d *decoder) readInt32() (int32, error) {
	start := d.pos
	v, err := d.readInt()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, d.errAt(start, "Int32 value %d out of range", v)
	}
	return int32(v), nil
}

// readBool reads f4 or f5.
func (d *decoder) readBool() (bool, error) {
	if d.pos >= len(d.data) {
		return false, d.eof(d.pos, "a Bool (f4 or f5)")
	}
	switch d.data[d.pos] {
	case 0xf4:
		d.pos++
		return false, nil
	case 0xf5:
		d.pos++
		return true, nil
	}
	return false, d.mismatch(d.pos, "a Bool (f4 or f5)")
}

// readString reads a text string.
func (d *decoder) readString() (string, error) {
	start := d.pos
	major, _, arg, err := d.head("a String")
	if err != nil {
		return "", err
	}
	if major != majText {
		d.pos = start
		return "", d.mismatch(start, "a String (text string)")
	}
	if arg > uint64(d.remaining()) {
		return "", d.errAt(start, "unexpected end of input (the file is truncated): String of %d bytes, only %d bytes remain", arg, d.remaining())
	}
	s := d.data[d.pos : d.pos+int(arg)]
	if !utf8.Valid(s) {
		return "", d.errAt(start, "String is not valid UTF-8")
	}
	d.pos += int(arg)
	return string(s), nil
}

// readFloat32 reads a Float32 (fa; f9 and fb are accepted and narrowed).
func (d *decoder) readFloat32() (float32, error) {
	start := d.pos
	if d.pos >= len(d.data) {
		return 0, d.eof(start, "a Float32 (fa + 4 bytes)")
	}
	b := d.data[d.pos]
	if b != 0xf9 && b != 0xfa && b != 0xfb {
		return 0, d.mismatch(start, "a Float32 (fa + 4 bytes)")
	}
	_, info, arg, err := d.head("a Float32")
	if err != nil {
		return 0, err
	}
	switch info {
	case 25:
		return halfToFloat32(uint16(arg)), nil
	case 26:
		return math.Float32frombits(uint32(arg)), nil
	default:
		return float32(math.Float64frombits(arg)), nil
	}
}

// halfToFloat32 converts IEEE binary16 bits.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		v := float32(mant) / 1024 / 16384 // mant * 2^-24
		if sign != 0 {
			v = -v
		}
		return v
	default:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	}
}

// readArrayHead reads an array header and checks its length against the
// remaining input (every element takes at least one byte). The description
// of what is expected is want1+want2, concatenated only on error.
func (d *decoder) readArrayHead(want1, want2 string) (int, error) {
	start := d.pos
	if d.pos < len(d.data) && d.data[d.pos]>>5 == majArray && d.data[d.pos]&0x1f < 24 {
		n := int(d.data[d.pos] & 0x1f)
		d.pos++
		if n > d.remaining() {
			return 0, d.errAt(start, "unexpected end of input (the file is truncated): %s%s of %d items, only %d bytes remain", want1, want2, n, d.remaining())
		}
		return n, nil
	}
	major, _, arg, err := d.head(want1 + want2)
	if err != nil {
		return 0, err
	}
	if major != majArray {
		d.pos = start
		return 0, d.mismatch(start, want1+want2)
	}
	if arg > uint64(d.remaining()) {
		return 0, d.errAt(start, "unexpected end of input (the file is truncated): %s%s of %d items, only %d bytes remain", want1, want2, arg, d.remaining())
	}
	return int(arg), nil
}

// readList reads a List: an array header then n elements, each read by elem.
func (d *decoder) readList(what string, elem func(i int) error) (int, error) {
	n, err := d.readArrayHead("a List of ", what)
	if err != nil {
		return 0, err
	}
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.leave()
	for i := 0; i < n; i++ {
		if err := elem(i); err != nil {
			return 0, withinf(err, "[%d]", i)
		}
	}
	return n, nil
}

func (d *decoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return d.errAt(d.pos, "items nested more than %d deep", maxDepth)
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

// readTag reads the KLR constructor header d9 <typeTag> <ctor> <array n>
// and returns the constructor index and n. name is the type's name for
// messages.
func (d *decoder) readTag(typeTag byte, name string) (ctor int, n int, err error) {
	start := d.pos
	if d.remaining() < 3 {
		return 0, 0, d.eof(start, fmt.Sprintf("%s (tag d9 %02x)", name, typeTag))
	}
	if d.data[d.pos] != 0xd9 || d.data[d.pos+1] != typeTag {
		return 0, 0, d.mismatch(start, fmt.Sprintf("%s (tag d9 %02x)", name, typeTag))
	}
	ctor = int(d.data[d.pos+2])
	d.pos += 3
	n, err = d.readArrayHead("the argument array of ", name)
	if err != nil {
		return 0, 0, err
	}
	return ctor, n, nil
}

// readStruct reads a structure header (constructor 0) with exactly n fields.
func (d *decoder) readStruct(typeTag byte, name string, fields int) error {
	start := d.pos
	ctor, n, err := d.readTag(typeTag, name)
	if err != nil {
		return err
	}
	if ctor != 0 {
		return d.errAt(start, "want %s (constructor 0), have constructor %d", name, ctor)
	}
	if n != fields {
		return d.errAt(start, "want %s with %d fields, have %d", name, fields, n)
	}
	return nil
}

// readEnum reads a constructor without arguments of an enum-like type.
func (d *decoder) readEnum(typeTag byte, name string, names []string) (int, error) {
	start := d.pos
	ctor, n, err := d.readTag(typeTag, name)
	if err != nil {
		return 0, err
	}
	if ctor >= len(names) {
		return 0, d.errAt(start, "want a %s constructor 0..%d, have %d", name, len(names)-1, ctor)
	}
	if n != 0 {
		return 0, d.errAt(start, "want %s.%s without arguments, have %d arguments", name, names[ctor], n)
	}
	return ctor, nil
}

// readCtor reads an inductive's constructor header and checks the index
// and the argument count against args (the counts per constructor).
func (d *decoder) readCtor(typeTag byte, name string, ctorNames []string, args []int) (int, error) {
	start := d.pos
	ctor, n, err := d.readTag(typeTag, name)
	if err != nil {
		return 0, err
	}
	if ctor >= len(ctorNames) {
		return 0, d.errAt(start, "want a %s constructor 0..%d, have %d", name, len(ctorNames)-1, ctor)
	}
	if n != args[ctor] {
		return 0, d.errAt(start, "want %s.%s with %d arguments, have %d", name, ctorNames[ctor], args[ctor], n)
	}
	return ctor, nil
}

// readOption reads an Option header: d9 ff 00 80 (none) or d9 ff 01 81
// (some; the value follows and is read by the caller).
func (d *decoder) readOption() (bool, error) {
	start := d.pos
	ctor, n, err := d.readTag(0xff, "Option")
	if err != nil {
		return false, err
	}
	switch {
	case ctor == 0 && n == 0:
		return false, nil
	case ctor == 1 && n == 1:
		return true, nil
	}
	return false, d.errAt(start, "want Option.none (d9 ff 00 80) or Option.some (d9 ff 01 81), have constructor %d with %d arguments", ctor, n)
}

// typeNames names the KLR type tags (klr-format.md and KLR/Core at
// 7ccd18c) for error messages and for the generic reader.
var typeNames = map[byte]string{
	100: "Pos", 103: "Stmt", 104: "Block", 105: "Kernel", 108: "LncKernel",
	110: "Memory", 111: "Dtype", 112: "Shape", 113: "Address", 114: "TensorName",
	115: "Slice", 117: "Index", 118: "AccessBasic", 119: "APPair", 120: "AccessPattern",
	123: "ScalarOffset", 124: "BirAccessPattern", 125: "Access", 126: "TensorHbm", 127: "TensorSram",
	128: "TensorRef", 129: "MatmulPerfMode", 130: "Engine", 131: "Immediate", 133: "Operand",
	134: "DataPattern", 135: "AluOp", 137: "AccumCmd", 138: "ActivationFunc", 140: "DgeComputeOp",
	141: "DmaBounds", 144: "TensorScalarReverseOps", 145: "TensorSubDim",
	148: "Activate", 149: "NcActivate", 152: "DmaCopy", 153: "NcDmaCopy", 155: "Transpose",
	158: "MemSet", 159: "Iota", 160: "LoadStationary", 161: "MatMul",
	177: "Copy", 178: "NcCopy", 179: "TensorReduce", 180: "TensorScalar", 182: "TensorTensor",
	183: "NcMatMul", 217: "KLRFile", 218: "Operator", 235: "KLRMetaData", 236: "Contents",
	0xff: "Option",
}

// propFields is the number of Prop (proof) fields of a structure type: they
// count in the array header's n but take zero bytes on the wire
// (klr-format.md: TensorName, Slice, AccessBasic).
var propFields = map[byte]int{114: 2, 115: 1, 118: 1}

// RawKind is the kind of a generically decoded item.
type RawKind uint8

const (
	RawUint RawKind = iota
	RawNegInt
	RawBytes
	RawText
	RawArray
	RawMap
	RawCtor // a KLR constructor d9 <type> <ctor> [args...]
	RawBool
	RawNull
	RawUndefined
	RawSimple
	RawFloat
	RawTag // any other CBOR tag with its content in Items[0]
)

// Raw is an item decoded without knowing its type: how narwhal keeps an
// operator constructor (or a field) it does not model, so that a file with
// such a constructor still reads and the code generator can name it.
type Raw struct {
	Offset int
	Kind   RawKind
	Uint   uint64  // RawUint, RawSimple; for RawNegInt the CBOR argument (value -1-Uint)
	Float  float64 // RawFloat
	Bool   bool    // RawBool
	Str    string  // RawText, RawBytes
	Type   byte    // RawCtor: type tag; RawTag: low byte of the tag number
	Ctor   byte    // RawCtor: constructor index
	TagNum uint64  // RawTag
	Items  []Raw   // RawArray, RawCtor (arguments), RawMap (key, value, ...), RawTag
}

// readRaw decodes any item. A KLR constructor's Prop fields (propFields)
// are taken into account so that a TensorName inside an unknown operator is
// skipped correctly.
func (d *decoder) readRaw() (Raw, error) {
	if err := d.enter(); err != nil {
		return Raw{}, err
	}
	defer d.leave()
	start := d.pos
	major, info, arg, err := d.head("a CBOR item")
	if err != nil {
		return Raw{}, err
	}
	r := Raw{Offset: start}
	switch major {
	case majUint:
		r.Kind, r.Uint = RawUint, arg
	case majNeg:
		r.Kind, r.Uint = RawNegInt, arg
	case majBytes, majText:
		if arg > uint64(d.remaining()) {
			return Raw{}, d.errAt(start, "unexpected end of input (the file is truncated): string of %d bytes, only %d bytes remain", arg, d.remaining())
		}
		r.Kind = RawBytes
		if major == majText {
			r.Kind = RawText
		}
		r.Str = string(d.data[d.pos : d.pos+int(arg)])
		d.pos += int(arg)
	case majArray:
		if arg > uint64(d.remaining()) {
			return Raw{}, d.errAt(start, "unexpected end of input (the file is truncated): array of %d items, only %d bytes remain", arg, d.remaining())
		}
		r.Kind = RawArray
		r.Items, err = d.readRawItems(int(arg))
		if err != nil {
			return Raw{}, err
		}
	case majMap:
		if arg > uint64(d.remaining())/2 {
			return Raw{}, d.errAt(start, "unexpected end of input (the file is truncated): map of %d entries, only %d bytes remain", arg, d.remaining())
		}
		r.Kind = RawMap
		r.Items, err = d.readRawItems(2 * int(arg))
		if err != nil {
			return Raw{}, err
		}
	case majTag:
		if info == 25 {
			// KLR constructor: d9 <type> <ctor>, then an array header.
			r.Kind, r.Type, r.Ctor = RawCtor, byte(arg>>8), byte(arg)
			n, err := d.readArrayHead("the argument array of a tagged value", "")
			if err != nil {
				return Raw{}, err
			}
			items := n
			if r.Ctor == 0 {
				if p, ok := propFields[r.Type]; ok {
					items = max(n-p, 0)
				}
			}
			r.Items, err = d.readRawItems(items)
			if err != nil {
				return Raw{}, err
			}
		} else {
			r.Kind, r.TagNum = RawTag, arg
			it, err := d.readRaw()
			if err != nil {
				return Raw{}, err
			}
			r.Items = []Raw{it}
		}
	default:
		switch info {
		case 20, 21:
			r.Kind, r.Bool = RawBool, info == 21
		case 22:
			r.Kind = RawNull
		case 23:
			r.Kind = RawUndefined
		case 25:
			r.Kind, r.Float = RawFloat, float64(halfToFloat32(uint16(arg)))
		case 26:
			r.Kind, r.Float = RawFloat, float64(math.Float32frombits(uint32(arg)))
		case 27:
			r.Kind, r.Float = RawFloat, math.Float64frombits(arg)
		default:
			r.Kind, r.Uint = RawSimple, arg
		}
	}
	return r, nil
}

func (d *decoder) readRawItems(n int) ([]Raw, error) {
	if n == 0 {
		return nil, nil
	}
	items := make([]Raw, 0, min(n, d.remaining()))
	for i := 0; i < n; i++ {
		it, err := d.readRaw()
		if err != nil {
			return nil, withinf(err, "[%d]", i)
		}
		items = append(items, it)
	}
	return items, nil
}
