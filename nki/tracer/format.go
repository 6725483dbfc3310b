// format.go: formatting. formatValue implements format(v, spec) with
// Python's format-spec mini-language ([[fill]align][sign][#][0][width]
// [grouping][.precision][type]) for int, float, bool and str, as f-strings
// and str.format use it; strFormat is str.format's field syntax
// ({0}, {name.attr[key]!r:spec}); percentFormat is printf-style `%`
// formatting. Results and error messages are CPython 3.11's.
package tracer

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

type formatSpec struct {
	fill      string
	align     byte // 0, '<', '>', '=', '^'
	sign      byte // 0, '+', '-', ' '
	alt       bool
	zero      bool
	width     int
	grouping  byte // 0, ',', '_'
	precision int  // -1 when absent
	typ       byte // 0 when absent
}

func parseFormatSpec(spec string, typeName string) (formatSpec, error) {
	fs := formatSpec{precision: -1}
	s := spec
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '=' || c == '^' }
	if s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if n < len(s) && isAlign(s[n]) {
			fs.fill, fs.align = string(r), s[n]
			s = s[n+1:]
		} else if isAlign(s[0]) {
			fs.align = s[0]
			s = s[1:]
		}
	}
	if s != "" && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		fs.sign = s[0]
		s = s[1:]
	}
	if s != "" && s[0] == 'z' {
		s = s[1:]
	}
	if s != "" && s[0] == '#' {
		fs.alt = true
		s = s[1:]
	}
	if s != "" && s[0] == '0' {
		fs.zero = true
		s = s[1:]
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 {
		w, err := strconv.Atoi(s[:i])
		if err != nil || w > 1<<24 {
			return fs, Errorf("ValueError", "Too many decimal digits in format string")
		}
		fs.width = w
		s = s[i:]
	}
	if s != "" && (s[0] == ',' || s[0] == '_') {
		fs.grouping = s[0]
		s = s[1:]
		if s != "" && (s[0] == ',' || s[0] == '_') {
			return fs, Errorf("ValueError", "Cannot specify both ',' and '_'.")
		}
	}
	if s != "" && s[0] == '.' {
		s = s[1:]
		i = 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return fs, Errorf("ValueError", "Format specifier missing precision")
		}
		p, err := strconv.Atoi(s[:i])
		if err != nil || p > 1<<24 {
			return fs, Errorf("ValueError", "Too many decimal digits in format string")
		}
		fs.precision = p
		s = s[i:]
	}
	if len(s) > 1 {
		return fs, Errorf("ValueError", "Invalid format specifier '%s' for object of type '%s'", spec, typeName)
	}
	if len(s) == 1 {
		fs.typ = s[0]
	}
	if fs.zero && fs.fill == "" {
		fs.fill = "0"
		if fs.align == 0 {
			fs.align = '='
		}
	}
	if fs.fill == "" {
		fs.fill = " "
	}
	return fs, nil
}

// Format returns format(v, spec).
func Format(th *Thread, v Value, spec string) (string, error) { return formatValue(th, v, spec) }

func formatValue(th *Thread, v Value, spec string) (string, error) {
	switch x := v.(type) {
	case String:
		if spec == "" {
			return string(x), nil
		}
		return formatStr(string(x), spec)
	case Int:
		if err := checkIntDigits(x); err != nil {
			return "", err
		}
		if spec == "" {
			return x.String(), nil
		}
		return formatInt(x, spec, "int")
	case Bool:
		if spec == "" {
			return x.String(), nil
		}
		fs, err := parseFormatSpec(spec, "bool")
		if err != nil {
			return "", err
		}
		if fs.typ == 0 || fs.typ == 's' {
			return formatStr(x.String(), spec)
		}
		return formatInt(boolToInt(x), spec, "int")
	case Float:
		if spec == "" {
			return x.String(), nil
		}
		return formatFloat(float64(x), spec)
	case *Instance:
		if f := x.class.userLookup("__format__"); f != nil {
			r, err := callMethod(th, x, f, []Value{String(spec)}, nil)
			if err != nil {
				return "", err
			}
			s, ok := AsString(r)
			if !ok {
				return "", Errorf("TypeError", "__format__ must return a str, not %s", r.Type())
			}
			return s, nil
		}
		if x.base != nil && x.class.userLookup("__str__") == nil && x.class.userLookup("__repr__") == nil {
			return formatValue(th, x.base, spec)
		}
	case Formattable:
		return x.Format(th, spec)
	}
	s, err := toStr(th, v)
	if err != nil {
		return "", err
	}
	if spec != "" {
		return "", Errorf("TypeError", "unsupported format string passed to %s.__format__", v.Type())
	}
	return s, nil
}

func formatStr(s, spec string) (string, error) {
	fs, err := parseFormatSpec(spec, "str")
	if err != nil {
		return "", err
	}
	if fs.typ != 0 && fs.typ != 's' {
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type 'str'", fs.typ)
	}
	if fs.sign != 0 {
		return "", Errorf("ValueError", "Sign not allowed in string format specifier")
	}
	if fs.alt {
		return "", Errorf("ValueError", "Alternate form (#) not allowed in string format specifier")
	}
	if fs.align == '=' {
		return "", Errorf("ValueError", "'=' alignment not allowed in string format specifier")
	}
	if fs.grouping != 0 {
		return "", Errorf("ValueError", "Cannot specify '%c' with 's'.", fs.grouping)
	}
	if fs.precision >= 0 && strLen(s) > fs.precision {
		s = string([]rune(s)[:fs.precision])
	}
	align := fs.align
	if align == 0 {
		align = '<'
	}
	return pad(s, fs.width, fs.fill, align), nil
}

// group inserts sep every n digits from the right.
func group(digits string, sep byte, n int) string {
	if len(digits) <= n {
		return digits
	}
	var b strings.Builder
	first := len(digits) % n
	if first > 0 {
		b.WriteString(digits[:first])
	}
	for i := first; i < len(digits); i += n {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(digits[i : i+n])
	}
	return b.String()
}

// assemble pads a formatted number: sign, prefix and digits (integer
// part grouped), with the spec's alignment.
func assemble(fs formatSpec, neg bool, prefix, intPart, rest string, groupN int) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case fs.sign == '+':
		sign = "+"
	case fs.sign == ' ':
		sign = " "
	}
	align := fs.align
	if align == 0 {
		align = '>'
	}
	if align == '=' && fs.fill == "0" && fs.grouping != 0 {
		// Zero padding goes inside the grouping.
		need := fs.width - len(sign) - len(prefix) - len(rest)
		digits := intPart
		for len(group(digits, fs.grouping, groupN)) < need {
			digits = "0" + digits
		}
		g := group(digits, fs.grouping, groupN)
		return sign + prefix + g + rest
	}
	if fs.grouping != 0 {
		intPart = group(intPart, fs.grouping, groupN)
	}
	body := intPart + rest
	if align == '=' {
		n := strLen(sign+prefix) + strLen(body)
		if fs.width > n {
			return sign + prefix + strings.Repeat(fs.fill, fs.width-n) + body
		}
		return sign + prefix + body
	}
	return pad(sign+prefix+body, fs.width, fs.fill, align)
}

func formatInt(x Int, spec, typeName string) (string, error) {
	fs, err := parseFormatSpec(spec, typeName)
	if err != nil {
		return "", err
	}
	switch fs.typ {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, err := intToFloat(x)
		if err != nil {
			return "", err
		}
		return formatFloat(f, spec)
	case 0, 'd', 'n', 'b', 'o', 'x', 'X', 'c':
	default:
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type '%s'", fs.typ, typeName)
	}
	if fs.precision >= 0 {
		return "", Errorf("ValueError", "Precision not allowed in integer format specifier")
	}
	b := x.bigView()
	neg := b.Sign() < 0
	abs := new(big.Int).Abs(b)
	var digits, prefix string
	groupN := 3
	switch fs.typ {
	case 'b':
		digits, prefix, groupN = abs.Text(2), "0b", 4
	case 'o':
		digits, prefix, groupN = abs.Text(8), "0o", 4
	case 'x':
		digits, prefix, groupN = abs.Text(16), "0x", 4
	case 'X':
		digits, prefix, groupN = strings.ToUpper(abs.Text(16)), "0X", 4
	case 'c':
		if fs.sign != 0 {
			return "", Errorf("ValueError", "Sign not allowed with integer format specifier 'c'")
		}
		if !b.IsInt64() || b.Int64() < 0 || b.Int64() > 0x10ffff {
			return "", Errorf("OverflowError", "%%c arg not in range(0x110000)")
		}
		return formatStr(string(rune(b.Int64())), strings.TrimSuffix(spec, "c"))
	default:
		digits = abs.Text(10)
		if fs.grouping == ',' && fs.typ == 'n' {
			return "", Errorf("ValueError", "Cannot specify ',' with 'n'.")
		}
	}
	if fs.grouping == ',' && fs.typ != 0 && fs.typ != 'd' {
		return "", Errorf("ValueError", "Cannot specify ',' with '%c'.", fs.typ)
	}
	if !fs.alt {
		prefix = ""
	}
	return assemble(fs, neg, prefix, digits, "", groupN), nil
}

func formatFloat(f float64, spec string) (string, error) {
	fs, err := parseFormatSpec(spec, "float")
	if err != nil {
		return "", err
	}
	neg := math.Signbit(f) && !math.IsNaN(f)
	a := math.Abs(f)
	var body string
	prec := fs.precision
	switch fs.typ {
	case 'f', 'F', '%':
		if prec < 0 {
			prec = 6
		}
		if fs.typ == '%' {
			a *= 100
		}
		body = strconv.FormatFloat(a, 'f', prec, 64)
		if fs.alt && prec == 0 {
			body += "."
		}
		if fs.typ == '%' {
			body += "%"
		}
	case 'e', 'E':
		if prec < 0 {
			prec = 6
		}
		body = strconv.FormatFloat(a, 'e', prec, 64)
		if fs.alt && prec == 0 {
			body = strings.Replace(body, "e", ".e", 1)
		}
	case 'g', 'G', 'n':
		if prec < 0 {
			prec = 6
		}
		body = formatG(a, prec, fs.alt, false)
	case 0:
		if prec < 0 {
			body = formatFloatRepr(a)
		} else {
			body = formatG(a, prec, fs.alt, true)
		}
	default:
		return "", Errorf("ValueError", "Unknown format code '%c' for object of type 'float'", fs.typ)
	}
	if math.IsInf(a, 0) || math.IsNaN(a) {
		body = "inf"
		if math.IsNaN(a) {
			body = "nan"
		}
		if fs.typ == '%' {
			body += "%"
		}
	}
	if fs.typ == 'E' || fs.typ == 'F' || fs.typ == 'G' {
		body = strings.ToUpper(body)
	}
	// Split the integer part off for grouping.
	intPart, rest := body, ""
	if i := strings.IndexAny(body, ".eE%"); i >= 0 {
		intPart, rest = body[:i], body[i:]
	}
	if math.IsInf(a, 0) || math.IsNaN(a) {
		intPart, rest = body, ""
		if fs.align == '=' && fs.fill == "0" {
			fs.fill = " "
		}
	}
	return assemble(fs, neg, "", intPart, rest, 3), nil
}

// formatG is the 'g' presentation with precision p; repr-style (the
// empty type with a precision) keeps at least one digit after the point.
func formatG(a float64, p int, alt, reprStyle bool) string {
	if p == 0 {
		p = 1
	}
	if a == 0 {
		exp := 0
		_ = exp
	}
	// The exponent after rounding to p significant digits.
	e := strconv.FormatFloat(a, 'e', p-1, 64)
	ei := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[ei+1:])
	var s string
	limit := p
	if reprStyle {
		limit = p - 1
	}
	if exp >= -4 && exp < limit {
		s = strconv.FormatFloat(a, 'f', p-1-exp, 64)
		if !alt {
			if strings.Contains(s, ".") {
				s = strings.TrimRight(s, "0")
				s = strings.TrimSuffix(s, ".")
			}
			if reprStyle && !strings.Contains(s, ".") {
				s += ".0"
			}
		} else if !strings.Contains(s, ".") {
			s += "."
		}
		return s
	}
	mant := e[:ei]
	if !alt {
		if strings.Contains(mant, ".") {
			mant = strings.TrimRight(mant, "0")
			mant = strings.TrimSuffix(mant, ".")
		}
	} else if !strings.Contains(mant, ".") {
		mant += "."
	}
	es := e[ei+1:]
	return mant + "e" + es
}

// ---------------------------------------------------------------------------
// str.format.

// strFormat is s.format(*args, **kwargs) (or format_map(mapping)).
func strFormat(th *Thread, s string, args []Value, kwargs []Kwarg, mapping Value) (string, error) {
	var b strings.Builder
	auto := 0
	manual := false
	autoUsed := false
	lookupKw := func(name string) (Value, error) {
		if mapping != nil {
			return getIndex(th, mapping, String(name))
		}
		for _, kw := range kwargs {
			if kw.Name == name {
				return kw.Value, nil
			}
		}
		return nil, keyError(th, String(name))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '}' {
			if i+1 < len(s) && s[i+1] == '}' {
				b.WriteByte('}')
				i++
				continue
			}
			return "", Errorf("ValueError", "Single '}' encountered in format string")
		}
		if c != '{' {
			b.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			b.WriteByte('{')
			i++
			continue
		}
		// Find the matching brace (nested braces in the spec).
		depth, j := 1, i+1
		for ; j < len(s) && depth > 0; j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		if depth > 0 {
			return "", Errorf("ValueError", "Single '{' encountered in format string")
		}
		field := s[i+1 : j-1]
		i = j - 1
		// field: name[.attr|[key]]...[!conv][:spec]
		spec := ""
		conv := byte(0)
		nameEnd := len(field)
		bracket := 0
		for k := 0; k < len(field); k++ {
			switch field[k] {
			case '[':
				bracket++
			case ']':
				bracket--
			case '!', ':':
				if bracket == 0 && nameEnd == len(field) {
					nameEnd = k
				}
			}
			if nameEnd != len(field) {
				break
			}
		}
		rest := field[nameEnd:]
		name := field[:nameEnd]
		if strings.HasPrefix(rest, "!") {
			if len(rest) < 2 {
				return "", Errorf("ValueError", "end of string while looking for conversion specifier")
			}
			conv = rest[1]
			rest = rest[2:]
			if rest != "" && rest[0] != ':' {
				return "", Errorf("ValueError", "expected ':' after conversion specifier")
			}
		}
		if strings.HasPrefix(rest, ":") {
			spec = rest[1:]
		}
		// The first part of the name.
		k := 0
		for k < len(name) && name[k] != '.' && name[k] != '[' {
			k++
		}
		first := name[:k]
		var v Value
		if first == "" {
			if manual {
				return "", Errorf("ValueError", "cannot switch from manual field specification to automatic field numbering")
			}
			autoUsed = true
			if auto >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", auto)
			}
			v = args[auto]
			auto++
		} else if n, err := strconv.Atoi(first); err == nil {
			if autoUsed {
				return "", Errorf("ValueError", "cannot switch from automatic field numbering to manual field specification")
			}
			manual = true
			if n >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", n)
			}
			v = args[n]
		} else {
			var err error
			if v, err = lookupKw(first); err != nil {
				return "", err
			}
		}
		// Attribute and index chain.
		for k < len(name) {
			if name[k] == '.' {
				e := k + 1
				for e < len(name) && name[e] != '.' && name[e] != '[' {
					e++
				}
				a, err := getAttrOrError(th, v, name[k+1:e])
				if err != nil {
					return "", err
				}
				v, k = a, e
				continue
			}
			e := strings.IndexByte(name[k:], ']')
			if e < 0 {
				return "", Errorf("ValueError", "Missing ']' in format string")
			}
			key := name[k+1 : k+e]
			var kv Value = String(key)
			if n, err := strconv.Atoi(key); err == nil {
				kv = intValue(int64(n))
			}
			a, err := getIndex(th, v, kv)
			if err != nil {
				return "", err
			}
			v, k = a, k+e+1
		}
		// Nested replacement fields in the spec.
		if strings.Contains(spec, "{") {
			nested, err := strFormatNested(th, spec, args, kwargs, mapping, &auto, &manual, &autoUsed)
			if err != nil {
				return "", err
			}
			spec = nested
		}
		switch conv {
		case 0:
		case 'r', 'a':
			r, err := toRepr(th, v)
			if err != nil {
				return "", err
			}
			v = String(r)
		case 's':
			r, err := toStr(th, v)
			if err != nil {
				return "", err
			}
			v = String(r)
		default:
			return "", Errorf("ValueError", "Unknown conversion specifier %c", conv)
		}
		out, err := formatValue(th, v, spec)
		if err != nil {
			return "", err
		}
		b.WriteString(out)
		if b.Len() > th.sizeLimit() {
			return "", sizeError(th)
		}
	}
	return b.String(), nil
}

func strFormatNested(th *Thread, spec string, args []Value, kwargs []Kwarg, mapping Value, auto *int, manual, autoUsed *bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(spec); i++ {
		if spec[i] != '{' {
			b.WriteByte(spec[i])
			continue
		}
		j := strings.IndexByte(spec[i:], '}')
		if j < 0 {
			return "", Errorf("ValueError", "unmatched '{' in format spec")
		}
		name := spec[i+1 : i+j]
		var v Value
		if name == "" {
			if *manual {
				return "", Errorf("ValueError", "cannot switch from manual field specification to automatic field numbering")
			}
			*autoUsed = true
			if *auto >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", *auto)
			}
			v = args[*auto]
			*auto++
		} else if n, err := strconv.Atoi(name); err == nil {
			if n >= len(args) {
				return "", Errorf("IndexError", "Replacement index %d out of range for positional args tuple", n)
			}
			*manual = true
			v = args[n]
		} else {
			found := false
			if mapping != nil {
				x, err := getIndex(th, mapping, String(name))
				if err != nil {
					return "", err
				}
				v, found = x, true
			}
			for _, kw := range kwargs {
				if kw.Name == name {
					v, found = kw.Value, true
				}
			}
			if !found {
				return "", keyError(th, String(name))
			}
		}
		s, err := toStr(th, v)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
		i += j
	}
	return b.String(), nil
}

// ---------------------------------------------------------------------------
// printf-style formatting.

func percentFormat(th *Thread, format string, arg Value) (Value, error) {
	var args []Value
	var mapping Value
	if t, ok := arg.(Tuple); ok {
		args = t
	} else {
		args = []Value{arg}
		switch arg.(type) {
		case *Dict:
			mapping = arg
		case *Instance:
			if dunder(arg, "__getitem__") != nil {
				mapping = arg
			}
		}
	}
	next := 0
	usedMapping := false
	nextArg := func() (Value, error) {
		if next >= len(args) {
			return nil, Errorf("TypeError", "not enough arguments for format string")
		}
		next++
		return args[next-1], nil
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		if i >= len(format) {
			return nil, Errorf("ValueError", "incomplete format")
		}
		var v Value
		if format[i] == '(' {
			if mapping == nil {
				return nil, Errorf("TypeError", "format requires a mapping")
			}
			j := strings.IndexByte(format[i:], ')')
			if j < 0 {
				return nil, Errorf("ValueError", "incomplete format key")
			}
			key := format[i+1 : i+j]
			x, err := getIndex(th, mapping, String(key))
			if err != nil {
				return nil, err
			}
			v = x
			usedMapping = true
			i += j + 1
		}
		fs := formatSpec{precision: -1, fill: " "}
		for ; i < len(format); i++ {
			switch format[i] {
			case '-':
				fs.align = '<'
				continue
			case '+':
				fs.sign = '+'
				continue
			case ' ':
				if fs.sign == 0 {
					fs.sign = ' '
				}
				continue
			case '#':
				fs.alt = true
				continue
			case '0':
				fs.zero = true
				continue
			}
			break
		}
		readNum := func() (int, error) {
			if i < len(format) && format[i] == '*' {
				i++
				a, err := nextArg()
				if err != nil {
					return 0, err
				}
				n, err := AsInt64(th, a)
				if err != nil {
					return 0, Errorf("TypeError", "* wants int")
				}
				return int(n), nil
			}
			j := i
			for i < len(format) && format[i] >= '0' && format[i] <= '9' {
				i++
			}
			if j == i {
				return -1, nil
			}
			n, err := strconv.Atoi(format[j:i])
			if err != nil || n > 1<<24 {
				return 0, Errorf("ValueError", "width too big")
			}
			return n, nil
		}
		w, err := readNum()
		if err != nil {
			return nil, err
		}
		if w < 0 {
			w = 0
		}
		fs.width = w
		if i < len(format) && format[i] == '.' {
			i++
			p, err := readNum()
			if err != nil {
				return nil, err
			}
			if p < 0 {
				p = 0
			}
			fs.precision = p
		}
		for i < len(format) && (format[i] == 'l' || format[i] == 'h' || format[i] == 'L') {
			i++
		}
		if i >= len(format) {
			return nil, Errorf("ValueError", "incomplete format")
		}
		conv := format[i]
		if conv == '%' {
			b.WriteByte('%')
			continue
		}
		if v == nil {
			if v, err = nextArg(); err != nil {
				return nil, err
			}
		}
		if fs.zero && fs.align != '<' {
			fs.fill, fs.align = "0", '='
		}
		var out string
		switch conv {
		case 's', 'r', 'a':
			var s string
			if conv == 's' {
				s, err = toStr(th, v)
			} else {
				s, err = toRepr(th, v)
			}
			if err != nil {
				return nil, err
			}
			if fs.precision >= 0 && strLen(s) > fs.precision {
				s = string([]rune(s)[:fs.precision])
			}
			align := fs.align
			if align == 0 || align == '=' {
				align = '>'
			}
			out = pad(s, fs.width, " ", align)
		case 'd', 'i', 'u', 'x', 'X', 'o':
			n, ok := numeric(v)
			if !ok {
				if conv == 'd' || conv == 'i' || conv == 'u' {
					return nil, Errorf("TypeError", "%%%c format: a real number is required, not %s", conv, v.Type())
				}
				return nil, Errorf("TypeError", "%%%c format: an integer is required, not %s", conv, v.Type())
			}
			var iv Int
			switch x := n.(type) {
			case Int:
				iv = x
			case Float:
				if conv != 'd' && conv != 'i' && conv != 'u' {
					return nil, Errorf("TypeError", "%%%c format: an integer is required, not float", conv)
				}
				if iv, err = floatToInt(float64(x)); err != nil {
					return nil, err
				}
			}
			t := conv
			if t == 'i' || t == 'u' {
				t = 'd'
			}
			out = percentInt(iv, fs, t)
		case 'e', 'E', 'f', 'F', 'g', 'G':
			f, err := AsFloat64(th, v)
			if err != nil {
				return nil, Errorf("TypeError", "must be real number, not %s", v.Type())
			}
			fs.typ = conv
			if fs.precision < 0 {
				fs.precision = 6
			}
			out, err = formatFloat(f, specString(fs))
			if err != nil {
				return nil, err
			}
		case 'c':
			var s string
			if str, ok := AsString(v); ok {
				if utf8.RuneCountInString(str) != 1 {
					return nil, Errorf("TypeError", "%%c requires int or char")
				}
				s = str
			} else {
				n, err := AsInt64(th, v)
				if err != nil {
					return nil, Errorf("TypeError", "%%c requires int or char")
				}
				if n < 0 || n > 0x10ffff {
					return nil, Errorf("OverflowError", "%%c arg not in range(0x110000)")
				}
				s = string(rune(n))
			}
			align := fs.align
			if align == 0 || align == '=' {
				align = '>'
			}
			out = pad(s, fs.width, " ", align)
		default:
			r, _ := utf8.DecodeRuneInString(format[i:])
			return nil, Errorf("ValueError", "unsupported format character '%c' (0x%x) at index %d", r, r, i)
		}
		_ = start
		b.WriteString(out)
		if b.Len() > th.sizeLimit() {
			return nil, sizeError(th)
		}
	}
	if next < len(args) && !usedMapping && mapping == nil {
		return nil, Errorf("TypeError", "not all arguments converted during string formatting")
	}
	return String(b.String()), nil
}

func percentInt(iv Int, fs formatSpec, t byte) string {
	b := iv.bigView()
	neg := b.Sign() < 0
	abs := new(big.Int).Abs(b)
	var digits, prefix string
	switch t {
	case 'x':
		digits, prefix = abs.Text(16), "0x"
	case 'X':
		digits, prefix = strings.ToUpper(abs.Text(16)), "0X"
	case 'o':
		digits, prefix = abs.Text(8), "0o"
	default:
		digits = abs.Text(10)
	}
	if fs.precision > len(digits) {
		digits = strings.Repeat("0", fs.precision-len(digits)) + digits
	}
	if !fs.alt {
		prefix = ""
	}
	return assemble(fs, neg, prefix, digits, "", 3)
}

// specString renders a formatSpec back as a format-spec string.
func specString(fs formatSpec) string {
	var b strings.Builder
	if fs.align != 0 {
		b.WriteString(fs.fill)
		b.WriteByte(fs.align)
	}
	if fs.sign != 0 {
		b.WriteByte(fs.sign)
	}
	if fs.alt {
		b.WriteByte('#')
	}
	if fs.width > 0 {
		b.WriteString(strconv.Itoa(fs.width))
	}
	if fs.precision >= 0 {
		b.WriteString("." + strconv.Itoa(fs.precision))
	}
	if fs.typ != 0 {
		b.WriteByte(fs.typ)
	}
	return b.String()
}
