// The interning key of an attribute set: injective, so that the text form
// (print.go, parse.go) can keep apart what BIR-JSON spells alike.
//
// AttrSet.Key used to be the set's JSON text, in which a float NaN or
// infinity and the strings "nan", "inf", "-inf" are spelled alike (BIR-JSON
// writes the special floats as those strings), and every NaN bit pattern is
// one "nan". The text form keeps Float(NaN) and String("nan") apart, so two
// such sets must intern to two ids. appendValueKey is AppendJSON except that
// non-finite floats are written as bare tokens that JSON text never
// contains (NaN, NaN(0x<bits>), +Inf, -Inf); for every set without
// non-finite floats the key is unchanged (still the JSON text).
package bir

import "math"

// canonicalNaN is the bit pattern of math.NaN(): the text form prints it as
// plain "nan", any other NaN as nan(0x<bits>).
const canonicalNaN = 0x7FF8000000000001

func appendValueKey(b []byte, v Value) []byte {
	switch v.Kind {
	case ValFloat:
		f := v.F
		switch {
		case math.IsNaN(f):
			bits := math.Float64bits(f)
			if bits == canonicalNaN {
				return append(b, "NaN"...)
			}
			b = append(b, "NaN(0x"...)
			for s := 60; s >= 0; s -= 4 {
				b = append(b, hexDigits[(bits>>uint(s))&0xf])
			}
			return append(b, ')')
		case math.IsInf(f, 1):
			return append(b, "+Inf"...)
		case math.IsInf(f, -1):
			return append(b, "-Inf"...)
		}
		return AppendFloatJSON(b, f)
	case ValList:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValueKey(b, e)
		}
		return append(b, ']')
	case ValObject:
		return appendFieldsKey(b, v.O)
	}
	return v.AppendJSON(b)
}

func appendFieldsKey(b []byte, fs []Field) []byte {
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendQuoted(b, f.Key)
		b = append(b, ':')
		b = appendValueKey(b, f.Val)
	}
	return append(b, '}')
}
