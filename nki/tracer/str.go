// str.go: the methods of str. Positions (find, index, start/end
// arguments) count code points, as in Python.
package tracer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

func strRecv(v Value) string {
	if s, ok := v.(String); ok {
		return string(s)
	}
	s, _ := AsString(v)
	return s
}

func strArg(fn string, v Value) (string, error) {
	s, ok := AsString(v)
	if !ok {
		return "", Errorf("TypeError", "%s arg must be None or str", fn)
	}
	return s, nil
}

// runeOffset converts a code-point index of s to a byte offset.
func runeOffset(s string, i int) int {
	if isASCII(s) {
		return i
	}
	off := 0
	for ; i > 0 && off < len(s); i-- {
		_, n := utf8.DecodeRuneInString(s[off:])
		off += n
	}
	return off
}

// byteToRune converts a byte offset of s to a code-point index.
func byteToRune(s string, off int) int {
	if isASCII(s) {
		return off
	}
	return utf8.RuneCountInString(s[:off])
}

// strRange applies optional start/end arguments: the byte range of s
// they select.
func strRange(th *Thread, s string, args []Value) (int, int, error) {
	n := strLen(s)
	start, end := 0, n
	if len(args) > 0 && args[0] != Value(None) {
		if i, err := AsInt64(th, args[0]); err == nil && i > int64(n) {
			// A start beyond the end matches nothing, not even "".
			return len(s) + 1, len(s), nil
		}
		v, err := clampIndex(th, args[0], n)
		if err != nil {
			return 0, 0, err
		}
		start = v
	}
	if len(args) > 1 && args[1] != Value(None) {
		v, err := clampIndex(th, args[1], n)
		if err != nil {
			return 0, 0, err
		}
		end = v
	}
	return runeOffset(s, start), runeOffset(s, end), nil
}

func strFind(th *Thread, recv Value, args []Value, kwargs []Kwarg, name string, last, raise bool) (Value, error) {
	if err := argCount(name, args, kwargs, 1, 3); err != nil {
		return nil, err
	}
	s := strRecv(recv)
	sub, ok := AsString(args[0])
	if !ok {
		return nil, Errorf("TypeError", "must be str, not %s", args[0].Type())
	}
	a, b, err := strRange(th, s, args[1:])
	if err != nil {
		return nil, err
	}
	i := -1
	if a <= b {
		if last {
			i = strings.LastIndex(s[a:b], sub)
		} else {
			i = strings.Index(s[a:b], sub)
		}
	}
	if i < 0 {
		if raise {
			return nil, Errorf("ValueError", "substring not found")
		}
		return intValue(-1), nil
	}
	return intValue(int64(byteToRune(s, a+i))), nil
}

func strPredicate(name string, f func(rune) bool, nonEmpty bool) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		if s == "" {
			return Bool(!nonEmpty), nil
		}
		for _, r := range s {
			if !f(r) {
				return False, nil
			}
		}
		return True, nil
	}
}

func strCase(name string, f func(string) string) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 0, 0); err != nil {
			return nil, err
		}
		return String(f(strRecv(recv))), nil
	}
}

// strStrip is str.strip, lstrip and rstrip: the Python white space
// trimmed with trimSpace, or the characters given trimmed with trim.
func strStrip(name string, trimSpace func(string, func(rune) bool) string, trim func(string, string) string) func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		c, ok, err := stripChars(name, args, kwargs)
		if err != nil {
			return nil, err
		}
		if !ok {
			return String(trimSpace(strRecv(recv), isPySpace)), nil
		}
		return String(trim(strRecv(recv), c)), nil
	}
}

func stripChars(name string, args []Value, kwargs []Kwarg) (string, bool, error) {
	if err := argCount(name, args, kwargs, 0, 1); err != nil {
		return "", false, err
	}
	if len(args) == 0 || args[0] == Value(None) {
		return "", false, nil
	}
	c, err := strArg(name, args[0])
	return c, true, err
}

func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x7f && unicode.IsSpace(r)
}

func strPad(name string, align byte) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 1, 2); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		w, err := AsInt64(th, args[0])
		if err != nil {
			return nil, err
		}
		fill := " "
		if len(args) == 2 {
			f, ok := AsString(args[1])
			if !ok || utf8.RuneCountInString(f) != 1 {
				return nil, Errorf("TypeError", "The fill character must be exactly one character long")
			}
			fill = f
		}
		if w > int64(th.sizeLimit()) {
			return nil, sizeError(th)
		}
		return String(pad(s, int(w), fill, align)), nil
	}
}

// pad aligns s in width w ('<', '>', '^' as str.format; center puts the
// extra fill on the right... as CPython's center does for odd padding
// when the string length is even, and on the left otherwise).
func pad(s string, w int, fill string, align byte) string {
	n := strLen(s)
	if w <= n {
		return s
	}
	p := w - n
	switch align {
	case '<':
		return s + strings.Repeat(fill, p)
	case '>':
		return strings.Repeat(fill, p) + s
	case 'c': // str.center: CPython puts the odd fill on the left when the width is odd
		left := p/2 + (p & w & 1)
		return strings.Repeat(fill, left) + s + strings.Repeat(fill, p-left)
	}
	left := p / 2
	return strings.Repeat(fill, left) + s + strings.Repeat(fill, p-left)
}

func strSplit(th *Thread, recv Value, args []Value, kwargs []Kwarg, name string, right bool) (Value, error) {
	var sepV Value = None
	var maxsplit int64 = -1
	if err := UnpackArgs(name, args, kwargs, "sep?", &sepV, "maxsplit?", &maxsplit); err != nil {
		return nil, err
	}
	s := strRecv(recv)
	var parts []string
	if sepV == Value(None) {
		parts = splitWhitespace(s, int(maxsplit), right)
	} else {
		sep, ok := AsString(sepV)
		if !ok {
			return nil, Errorf("TypeError", "must be str or None, not %s", sepV.Type())
		}
		if sep == "" {
			return nil, Errorf("ValueError", "empty separator")
		}
		if maxsplit < 0 {
			parts = strings.Split(s, sep)
		} else if !right {
			parts = strings.SplitN(s, sep, int(maxsplit)+1)
		} else {
			parts = nil
			rest := s
			for i := int64(0); i < maxsplit; i++ {
				j := strings.LastIndex(rest, sep)
				if j < 0 {
					break
				}
				parts = append(parts, rest[j+len(sep):])
				rest = rest[:j]
			}
			parts = append(parts, rest)
			for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
				parts[i], parts[j] = parts[j], parts[i]
			}
		}
	}
	out := make([]Value, len(parts))
	for i, p := range parts {
		out[i] = String(p)
	}
	return NewList(out), nil
}

func splitWhitespace(s string, maxsplit int, right bool) []string {
	if !right {
		var parts []string
		i := 0
		for {
			for i < len(s) {
				r, n := utf8.DecodeRuneInString(s[i:])
				if !isPySpace(r) {
					break
				}
				i += n
			}
			if i >= len(s) {
				return parts
			}
			if maxsplit >= 0 && len(parts) == maxsplit {
				return append(parts, s[i:])
			}
			j := i
			for j < len(s) {
				r, n := utf8.DecodeRuneInString(s[j:])
				if isPySpace(r) {
					break
				}
				j += n
			}
			parts = append(parts, s[i:j])
			i = j
		}
	}
	var parts []string
	j := len(s)
	for {
		for j > 0 {
			r, n := utf8.DecodeLastRuneInString(s[:j])
			if !isPySpace(r) {
				break
			}
			j -= n
		}
		if j <= 0 {
			break
		}
		if maxsplit >= 0 && len(parts) == maxsplit {
			parts = append(parts, s[:j])
			break
		}
		i := j
		for i > 0 {
			r, n := utf8.DecodeLastRuneInString(s[:i])
			if isPySpace(r) {
				break
			}
			i -= n
		}
		parts = append(parts, s[i:j])
		j = i
	}
	for a, b := 0, len(parts)-1; a < b; a, b = a+1, b-1 {
		parts[a], parts[b] = parts[b], parts[a]
	}
	return parts
}

func titleCase(s string) string {
	var b strings.Builder
	prevCased := false
	for _, r := range s {
		if prevCased {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(unicode.ToTitle(r))
		}
		prevCased = unicode.IsLetter(r) && (unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r))
	}
	return b.String()
}

func strAffix(name string, suffix bool) methodFn {
	return func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount(name, args, kwargs, 1, 3); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		a, b, err := strRange(th, s, args[1:])
		if err != nil {
			return nil, err
		}
		if a > b {
			return False, nil
		}
		sub := s[a:b]
		var cands []string
		switch x := args[0].(type) {
		case Tuple:
			for _, e := range x {
				c, ok := AsString(e)
				if !ok {
					return nil, Errorf("TypeError", "tuple for %s must only contain str, not %s", name, e.Type())
				}
				cands = append(cands, c)
			}
		default:
			c, ok := AsString(x)
			if !ok {
				return nil, Errorf("TypeError", "%s first arg must be str or a tuple of str, not %s", name, x.Type())
			}
			cands = []string{c}
		}
		for _, c := range cands {
			if suffix && strings.HasSuffix(sub, c) || !suffix && strings.HasPrefix(sub, c) {
				return True, nil
			}
		}
		return False, nil
	}
}

var strMethods = map[string]methodFn{
	"join": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("str.join", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		sep := strRecv(recv)
		var b strings.Builder
		i := 0
		err := Iterate(th, args[0], func(v Value) error {
			s, ok := AsString(v)
			if !ok {
				return Errorf("TypeError", "sequence item %d: expected str instance, %s found", i, v.Type())
			}
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(s)
			if b.Len() > th.sizeLimit() {
				return sizeError(th)
			}
			i++
			return nil
		})
		if err != nil {
			return nil, err
		}
		return String(b.String()), nil
	},
	"split": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strSplit(th, recv, args, kwargs, "split", false)
	},
	"rsplit": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strSplit(th, recv, args, kwargs, "rsplit", true)
	},
	"splitlines": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		keep := false
		if err := UnpackArgs("splitlines", args, kwargs, "keepends?", &keep); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		var out []Value
		for len(s) > 0 {
			i := strings.IndexAny(s, "\n\r\v\f\x1c\x1d\x1e\u0085\u2028\u2029")
			if i < 0 {
				out = append(out, String(s))
				break
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
			if keep {
				out = append(out, String(s[:i+n]))
			} else {
				out = append(out, String(s[:i]))
			}
			s = s[i+n:]
		}
		return NewList(out), nil
	},
	"strip":      strStrip("strip", strings.TrimFunc, strings.Trim),
	"lstrip":     strStrip("lstrip", strings.TrimLeftFunc, strings.TrimLeft),
	"rstrip":     strStrip("rstrip", strings.TrimRightFunc, strings.TrimRight),
	"startswith": strAffix("startswith", false),
	"endswith":   strAffix("endswith", true),
	"replace": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("replace", args, kwargs, 2, 3); err != nil {
			return nil, err
		}
		old, ok1 := AsString(args[0])
		nw, ok2 := AsString(args[1])
		if !ok1 || !ok2 {
			return nil, Errorf("TypeError", "replace() argument must be str")
		}
		n := int64(-1)
		if len(args) == 3 {
			var err error
			if n, err = AsInt64(th, args[2]); err != nil {
				return nil, err
			}
		}
		s := strRecv(recv)
		if int64(len(nw))*int64(strings.Count(s, old)+1) > int64(th.sizeLimit()) {
			return nil, sizeError(th)
		}
		return String(strings.Replace(s, old, nw, int(n))), nil
	},
	"upper":      strCase("upper", pyUpper),
	"lower":      strCase("lower", pyLower),
	"casefold":   strCase("casefold", strings.ToLower),
	"swapcase":   strCase("swapcase", swapCase),
	"title":      strCase("title", titleCase),
	"capitalize": strCase("capitalize", capitalize),
	"find": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strFind(th, recv, args, kwargs, "find", false, false)
	},
	"rfind": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strFind(th, recv, args, kwargs, "rfind", true, false)
	},
	"index": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strFind(th, recv, args, kwargs, "index", false, true)
	},
	"rindex": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return strFind(th, recv, args, kwargs, "rindex", true, true)
	},
	"count": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("count", args, kwargs, 1, 3); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		sub, ok := AsString(args[0])
		if !ok {
			return nil, Errorf("TypeError", "must be str, not %s", args[0].Type())
		}
		a, b, err := strRange(th, s, args[1:])
		if err != nil {
			return nil, err
		}
		if a > b {
			return intValue(0), nil
		}
		if sub == "" {
			return intValue(int64(utf8.RuneCountInString(s[a:b]) + 1)), nil
		}
		return intValue(int64(strings.Count(s[a:b], sub))), nil
	},
	"isdigit":   strPredicate("isdigit", unicode.IsDigit, true),
	"isdecimal": strPredicate("isdecimal", unicode.IsDigit, true),
	"isnumeric": strPredicate("isnumeric", unicode.IsNumber, true),
	"isalpha":   strPredicate("isalpha", unicode.IsLetter, true),
	"isalnum": strPredicate("isalnum", func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsNumber(r)
	}, true),
	"isspace":     strPredicate("isspace", isPySpace, true),
	"isprintable": strPredicate("isprintable", isPrintable, false),
	"isascii":     strPredicate("isascii", func(r rune) bool { return r < 128 }, false),
	"isupper": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s := strRecv(recv)
		cased := false
		for _, r := range s {
			if unicode.IsLower(r) || unicode.IsTitle(r) {
				return False, nil
			}
			if unicode.IsUpper(r) {
				cased = true
			}
		}
		return Bool(cased), nil
	},
	"islower": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s := strRecv(recv)
		cased := false
		for _, r := range s {
			if unicode.IsUpper(r) || unicode.IsTitle(r) {
				return False, nil
			}
			if unicode.IsLower(r) {
				cased = true
			}
		}
		return Bool(cased), nil
	},
	"istitle": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s := strRecv(recv)
		return Bool(s != "" && titleCase(s) == s && strings.ToLower(s) != s), nil
	},
	"isidentifier": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return Bool(isIdentifier(strRecv(recv))), nil
	},
	"zfill": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("zfill", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		w, err := AsInt64(th, args[0])
		if err != nil {
			return nil, err
		}
		if w > int64(th.sizeLimit()) {
			return nil, sizeError(th)
		}
		n := strLen(s)
		if int(w) <= n {
			return String(s), nil
		}
		sign := ""
		if s != "" && (s[0] == '-' || s[0] == '+') {
			sign, s = s[:1], s[1:]
		}
		return String(sign + strings.Repeat("0", int(w)-n) + s), nil
	},
	"ljust":  strPad("ljust", '<'),
	"rjust":  strPad("rjust", '>'),
	"center": strPad("center", 'c'),
	"partition": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("partition", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		sep, ok := AsString(args[0])
		if !ok {
			return nil, Errorf("TypeError", "must be str, not %s", args[0].Type())
		}
		if sep == "" {
			return nil, Errorf("ValueError", "empty separator")
		}
		i := strings.Index(s, sep)
		if i < 0 {
			return Tuple{String(s), String(""), String("")}, nil
		}
		return Tuple{String(s[:i]), String(sep), String(s[i+len(sep):])}, nil
	},
	"rpartition": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("rpartition", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		s := strRecv(recv)
		sep, ok := AsString(args[0])
		if !ok {
			return nil, Errorf("TypeError", "must be str, not %s", args[0].Type())
		}
		if sep == "" {
			return nil, Errorf("ValueError", "empty separator")
		}
		i := strings.LastIndex(s, sep)
		if i < 0 {
			return Tuple{String(""), String(""), String(s)}, nil
		}
		return Tuple{String(s[:i]), String(sep), String(s[i+len(sep):])}, nil
	},
	"removeprefix": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("removeprefix", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		p, _ := AsString(args[0])
		return String(strings.TrimPrefix(strRecv(recv), p)), nil
	},
	"removesuffix": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("removesuffix", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		p, _ := AsString(args[0])
		return String(strings.TrimSuffix(strRecv(recv), p)), nil
	},
	"expandtabs": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		var size int64 = 8
		if err := UnpackArgs("expandtabs", args, kwargs, "tabsize?", &size); err != nil {
			return nil, err
		}
		var b strings.Builder
		col := 0
		for _, r := range strRecv(recv) {
			switch r {
			case '\t':
				if size > 0 {
					n := int(size) - col%int(size)
					b.WriteString(strings.Repeat(" ", n))
					col += n
				}
			case '\n', '\r':
				b.WriteRune(r)
				col = 0
			default:
				b.WriteRune(r)
				col++
			}
		}
		return String(b.String()), nil
	},
	"format": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		s, err := strFormat(th, strRecv(recv), args, kwargs, nil)
		return String(s), err
	},
	"format_map": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		if err := argCount("format_map", args, kwargs, 1, 1); err != nil {
			return nil, err
		}
		s, err := strFormat(th, strRecv(recv), nil, nil, args[0])
		return String(s), err
	},
	"encode": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return nil, NotSupportedf("str.encode: bytes are not supported")
	},
	"__len__": func(th *Thread, recv Value, args []Value, kwargs []Kwarg) (Value, error) {
		return intValue(int64(strLen(strRecv(recv)))), nil
	},
}

// pyUpper and pyLower add the special casings of Unicode's
// SpecialCasing.txt that CPython applies and Go's simple mapping does not
// (the common ones: ß, ŉ, the ligatures, İ).
var specialUpper = strings.NewReplacer("ß", "SS", "ﬀ", "FF", "ﬁ", "FI", "ﬂ", "FL", "ﬃ", "FFI", "ﬄ", "FFL", "ﬅ", "ST", "ﬆ", "ST", "ŉ", "ʼN")

func pyUpper(s string) string {
	if isASCII(s) {
		return strings.ToUpper(s)
	}
	return strings.ToUpper(specialUpper.Replace(s))
}

func pyLower(s string) string {
	if isASCII(s) {
		return strings.ToLower(s)
	}
	return strings.ToLower(strings.ReplaceAll(s, "İ", "i\u0307"))
}

func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.IsUpper(r):
			return unicode.ToLower(r)
		case unicode.IsLower(r):
			return unicode.ToUpper(r)
		}
		return r
	}, s)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToTitle(r)) + strings.ToLower(s[n:])
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			continue
		}
		return false
	}
	return true
}
