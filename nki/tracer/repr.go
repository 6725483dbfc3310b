// repr.go: repr() of values as CPython prints them: strings quoted the
// way CPython chooses its quotes and escapes, floats in the shortest form
// that round-trips (CPython's float_repr_style 'short': fixed notation for
// decimal exponents in [-4, 16), scientific otherwise, "inf", "nan").
package tracer

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr returns repr(v). User classes' __repr__ runs on the Thread that made
// the instance; an error in it gives the default repr.
func Repr(v Value) string {
	if r, ok := v.(Reprer); ok {
		return r.Repr()
	}
	return v.String()
}

// TypeName returns type(v).__name__.
func TypeName(v Value) string { return v.Type() }

// quoteString renders s as a Python string literal, as repr(str) does.
func quoteString(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == quote || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c < 0x20 || c == 0x7f:
				b.WriteString(`\x`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			default:
				b.WriteByte(c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\udc`)
			b.WriteByte(hexDigits[(s[i-1]>>4)&15])
			b.WriteByte(hexDigits[s[i-1]&15])
		case isPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x`)
			b.WriteString(hex2(uint64(r), 2))
		case r < 0x10000:
			b.WriteString(`\u`)
			b.WriteString(hex2(uint64(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hex2(uint64(r), 8))
		}
	}
	b.WriteByte(quote)
	return b.String()
}

const hexDigits = "0123456789abcdef"

func hex2(v uint64, n int) string {
	s := strconv.FormatUint(v, 16)
	for len(s) < n {
		s = "0" + s
	}
	return s
}

// isPrintable approximates str.isprintable for one code point: letters,
// marks, numbers, punctuation, symbols and the ASCII space.
func isPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	return unicode.IsPrint(r)
}

// formatFloatRepr returns repr(f).
func formatFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	// Shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(f, 'e', -1, 64) // "-d.ddde±XX"
	neg := false
	if e[0] == '-' {
		neg = true
		e = e[1:]
	}
	ei := strings.IndexByte(e, 'e')
	mant, expStr := e[:ei], e[ei+1:]
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp >= -5 && exp < 16 {
		// Fixed notation (CPython switches at 1e16 and below 1e-4).
		if exp < -4 {
			goto sci
		}
		if exp < 0 {
			out = "0." + strings.Repeat("0", -exp-1) + digits
		} else if len(digits) <= exp+1 {
			out = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		} else {
			out = digits[:exp+1] + "." + digits[exp+1:]
		}
		if neg {
			out = "-" + out
		}
		return out
	}
sci:
	out = digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	sign := "+"
	if exp < 0 {
		sign = "-"
		exp = -exp
	}
	es := strconv.Itoa(exp)
	if len(es) < 2 {
		es = "0" + es
	}
	out += "e" + sign + es
	if neg {
		out = "-" + out
	}
	return out
}

func sortedKeys(m map[string]Value) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
