package bir

import (
	"math"
	"strconv"
	"strings"
)

// ValueKind is the JSON-like kind of an attribute value.
type ValueKind uint8

const (
	ValNull ValueKind = iota
	ValBool
	ValInt
	ValFloat
	ValString
	ValList
	ValObject
	// ValNumber is a JSON number literal kept as its text (S) because no
	// int64 or float64 holds it exactly: an integer beyond int64 (a uint64
	// hash or mask, say) or a float beyond float64's range. It is written
	// back as the same literal, so such a field of a neuronx-cc file is not
	// rounded by passing through narwhal.
	ValNumber
)

// Value is an attribute value: the opcode-specific fields of an instruction
// (op, func, scale, start_tensor_calc, ...) and every field narwhal does not
// model, kept verbatim so a BIR-JSON file does not lose data by passing
// through narwhal. Values are immutable once interned.
type Value struct {
	Kind ValueKind
	I    int64   // ValBool (0/1), ValInt
	F    float64 // ValFloat
	S    string  // ValString; ValNumber: the literal
	L    []Value // ValList
	O    []Field // ValObject, in source order
}

// Field is one key/value of an attribute set or object.
type Field struct {
	Key string
	Val Value
}

// Constructors.
func Null() Value { return Value{} }
func Bool(b bool) Value {
	v := Value{Kind: ValBool}
	if b {
		v.I = 1
	}
	return v
}
func Int(i int64) Value     { return Value{Kind: ValInt, I: i} }
func Float(f float64) Value { return Value{Kind: ValFloat, F: f} }
func String(s string) Value { return Value{Kind: ValString, S: s} }

// Number keeps a JSON number literal as text (see ValNumber); lit must be
// a well-formed JSON number (IsNumberLiteral).
func Number(lit string) Value { return Value{Kind: ValNumber, S: lit} }
func List(vs ...Value) Value  { return Value{Kind: ValList, L: vs} }
func Object(fs ...Field) Value {
	return Value{Kind: ValObject, O: fs}
}

// Ints builds a list of integers.
func Ints(xs ...int64) Value {
	l := make([]Value, len(xs))
	for i, x := range xs {
		l[i] = Int(x)
	}
	return List(l...)
}

// Floats builds a list of floats.
func Floats(xs ...float64) Value {
	l := make([]Value, len(xs))
	for i, x := range xs {
		l[i] = Float(x)
	}
	return List(l...)
}

// AsBool returns the value as a bool (ints are true when non-zero).
func (v Value) AsBool() (bool, bool) {
	switch v.Kind {
	case ValBool, ValInt:
		return v.I != 0, true
	}
	return false, false
}

// AsInt returns the value as an integer (integral floats convert).
func (v Value) AsInt() (int64, bool) {
	switch v.Kind {
	case ValInt, ValBool:
		return v.I, true
	case ValFloat:
		if v.F == math.Trunc(v.F) && math.Abs(v.F) < 1<<62 {
			return int64(v.F), true
		}
	}
	return 0, false
}

// AsFloat returns the value as a float64; the strings "nan", "inf" and
// "-inf" are BIR-JSON's spellings of the special values.
func (v Value) AsFloat() (float64, bool) {
	switch v.Kind {
	case ValFloat:
		return v.F, true
	case ValInt:
		return float64(v.I), true
	case ValNumber:
		f, err := strconv.ParseFloat(v.S, 64)
		if err != nil && !isRangeErr(err) {
			return 0, false
		}
		return f, true
	case ValString:
		switch v.S {
		case "nan", "NaN":
			return math.NaN(), true
		case "inf", "Infinity":
			return math.Inf(1), true
		case "-inf", "-Infinity":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

// AsString returns a string value.
func (v Value) AsString() (string, bool) {
	if v.Kind == ValString {
		return v.S, true
	}
	return "", false
}

// Get returns field key of an object value.
func (v Value) Get(key string) (Value, bool) {
	for _, f := range v.O {
		if f.Key == key {
			return f.Val, true
		}
	}
	return Value{}, false
}

// AppendJSON appends v in canonical JSON: integers as integers, floats with
// a fraction or exponent (so they read back as floats), NaN/Inf as the
// strings "nan"/"inf"/"-inf", object keys in stored order.
func (v Value) AppendJSON(b []byte) []byte {
	switch v.Kind {
	case ValNull:
		return append(b, "null"...)
	case ValBool:
		if v.I != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case ValInt:
		return strconv.AppendInt(b, v.I, 10)
	case ValFloat:
		return AppendFloatJSON(b, v.F)
	case ValString:
		return AppendQuoted(b, v.S)
	case ValNumber:
		return append(b, v.S...)
	case ValList:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendJSON(b)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, f := range v.O {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendQuoted(b, f.Key)
			b = append(b, ':')
			b = f.Val.AppendJSON(b)
		}
		return append(b, '}')
	}
}

// JSON returns v as canonical JSON text.
func (v Value) JSON() string { return string(v.AppendJSON(nil)) }

// AppendFloatJSON writes a float so that it reads back as the same float64
// and as a float (not an integer).
func AppendFloatJSON(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"nan"`...)
	case math.IsInf(f, 1):
		return append(b, `"inf"`...)
	case math.IsInf(f, -1):
		return append(b, `"-inf"`...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	if !strings.ContainsAny(string(b[start:]), ".eE") {
		b = append(b, ".0"...)
	}
	return b
}

const hexDigits = "0123456789abcdef"

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// IsNumberLiteral reports whether lit is a JSON number: -?(0|[1-9][0-9]*)
// (.[0-9]+)?([eE][+-]?[0-9]+)?.
func IsNumberLiteral(lit string) bool {
	i, n := 0, len(lit)
	if i < n && lit[i] == '-' {
		i++
	}
	switch {
	case i < n && lit[i] == '0':
		i++
	case i < n && lit[i] >= '1' && lit[i] <= '9':
		for i < n && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < n && lit[i] == '.' {
		i++
		if i >= n || lit[i] < '0' || lit[i] > '9' {
			return false
		}
		for i < n && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
	}
	if i < n && (lit[i] == 'e' || lit[i] == 'E') {
		i++
		if i < n && (lit[i] == '+' || lit[i] == '-') {
			i++
		}
		if i >= n || lit[i] < '0' || lit[i] > '9' {
			return false
		}
		for i < n && lit[i] >= '0' && lit[i] <= '9' {
			i++
		}
	}
	return i == n
}

// NeedsNumberLiteral reports whether the JSON number literal lit must be
// kept as text (ValNumber) to survive a save: an integer literal outside
// int64, or a literal whose magnitude overflows float64.
func NeedsNumberLiteral(lit string) bool {
	isInt := !strings.ContainsAny(lit, ".eE")
	if isInt {
		_, err := strconv.ParseInt(lit, 10, 64)
		return err != nil
	}
	_, err := strconv.ParseFloat(lit, 64)
	return err != nil
}

// AppendQuoted appends s as a JSON string literal.
func AppendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			continue
		}
		if c >= 0x80 {
			continue // UTF-8 passes through
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AttrID names an interned attribute set; 0 is the empty set.
type AttrID int32

// AttrSet is an ordered list of fields. Keys are unique within a set.
type AttrSet []Field

// Get returns the value of key.
func (a AttrSet) Get(key string) (Value, bool) {
	for _, f := range a {
		if f.Key == key {
			return f.Val, true
		}
	}
	return Value{}, false
}

// Has reports whether key is present.
func (a AttrSet) Has(key string) bool { _, ok := a.Get(key); return ok }

// Int returns an integer field or def.
func (a AttrSet) Int(key string, def int64) int64 {
	if v, ok := a.Get(key); ok {
		if i, ok := v.AsInt(); ok {
			return i
		}
	}
	return def
}

// Float returns a float field or def.
func (a AttrSet) Float(key string, def float64) float64 {
	if v, ok := a.Get(key); ok {
		if f, ok := v.AsFloat(); ok {
			return f
		}
	}
	return def
}

// Bool returns a bool field or def.
func (a AttrSet) Bool(key string, def bool) bool {
	if v, ok := a.Get(key); ok {
		if b, ok := v.AsBool(); ok {
			return b
		}
	}
	return def
}

// Str returns a string field or def.
func (a AttrSet) Str(key, def string) string {
	if v, ok := a.Get(key); ok {
		if s, ok := v.AsString(); ok {
			return s
		}
	}
	return def
}

// With returns a copy of a with key set to v (replacing or appending).
func (a AttrSet) With(key string, v Value) AttrSet {
	out := make(AttrSet, 0, len(a)+1)
	done := false
	for _, f := range a {
		if f.Key == key {
			out = append(out, Field{key, v})
			done = true
			continue
		}
		out = append(out, f)
	}
	if !done {
		out = append(out, Field{key, v})
	}
	return out
}

// Without returns a copy of a without key.
func (a AttrSet) Without(key string) AttrSet {
	out := make(AttrSet, 0, len(a))
	for _, f := range a {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return out
}

// Key returns the canonical interning key: the JSON object text, except
// that non-finite floats get distinct spellings (attrkey.go), so that
// Float(NaN) and String("nan") never intern to one set.
func (a AttrSet) Key() string { return string(appendFieldsKey(nil, a)) }

// Attrs builds an attribute set from alternating keys and values, for
// concise construction: Attrs("op", String("add"), "acc", String("Idle")).
func Attrs(kv ...any) AttrSet {
	out := make(AttrSet, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		var v Value
		switch x := kv[i+1].(type) {
		case Value:
			v = x
		case string:
			v = String(x)
		case bool:
			v = Bool(x)
		case int:
			v = Int(int64(x))
		case int64:
			v = Int(x)
		case float64:
			v = Float(x)
		case nil:
			v = Null()
		default:
			panic("bir.Attrs: unsupported value type")
		}
		out = append(out, Field{k, v})
	}
	return out
}
