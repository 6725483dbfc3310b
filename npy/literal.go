package npy

// A parser for the subset of Python literal syntax a .npy header uses
// (NumPy reads it with ast.literal_eval): a dict with string keys whose
// values are strings, True/False, integers, tuples and lists of those.
// Nesting is bounded, so a hostile header cannot exhaust the stack.

import (
	"fmt"
	"strconv"
	"strings"
)

type (
	dict  map[string]any
	tuple []any
	list  []any
)

const maxNesting = 8

type lit struct {
	s string
	i int
}

func (p *lit) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *lit) rest() string {
	r := p.s[p.i:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	return r
}

func (p *lit) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.i, fmt.Sprintf(format, args...))
}

// value parses one literal.
func (p *lit) value(depth int) (any, error) {
	if depth > maxNesting {
		return nil, p.errorf("literal nested deeper than %d", maxNesting)
	}
	p.skipSpace()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of header")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '(':
		items, trailingComma, err := p.seq(')', depth)
		if err != nil {
			return nil, err
		}
		if len(items) == 1 && !trailingComma {
			return items[0], nil // (x) is x, not a tuple
		}
		return tuple(items), nil
	case c == '[':
		items, _, err := p.seq(']', depth)
		return list(items), err
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		return p.integer()
	default:
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z') {
			p.i++
		}
		switch p.s[start:p.i] {
		case "True":
			return true, nil
		case "False":
			return false, nil
		case "":
			return nil, p.errorf("unexpected %q", p.rest())
		}
		return nil, fmt.Errorf("at byte %d: unsupported literal %q", start, p.s[start:p.i])
	}
}

func (p *lit) dict(depth int) (dict, error) {
	p.i++ // '{'
	d := dict{}
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			return nil, p.errorf("dict key: want a string")
		}
		if _, dup := d[key]; dup {
			return nil, p.errorf("key %q appears twice", key)
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("want ':' after key %q", key)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d[key] = v
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated dict")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
		default:
			return nil, p.errorf("want ',' or '}', have %q", p.rest())
		}
	}
}

// seq parses the items of a tuple or list up to close; trailingComma
// reports a comma after the last item.
func (p *lit) seq(close byte, depth int) (items []any, trailingComma bool, err error) {
	p.i++ // '(' or '['
	for {
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == close {
			p.i++
			return items, trailingComma, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, false, err
		}
		items = append(items, v)
		trailingComma = false
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, false, p.errorf("unterminated %q", string(close))
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			trailingComma = true
		case close:
		default:
			return nil, false, p.errorf("want ',' or %q, have %q", string(close), p.rest())
		}
	}
}

// str parses a quoted string with the escapes a descr can contain.
func (p *lit) str() (string, error) {
	q := p.s[p.i]
	p.i++
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return sb.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated string")
			}
			switch e := p.s[p.i+1]; e {
			case '\\', '\'', '"':
				sb.WriteByte(e)
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			default:
				return "", p.errorf("unsupported escape \\%c", e)
			}
			p.i += 2
		case c == '\n':
			return "", p.errorf("newline in a string")
		default:
			sb.WriteByte(c)
			p.i++
		}
	}
	return "", p.errorf("unterminated string")
}

// integer parses a decimal integer (Python 3 also allows '_' separators
// and a trailing 'L' in Python 2 headers).
func (p *lit) integer() (int64, error) {
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '_') {
		p.i++
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if p.i == digits {
		return 0, p.errorf("want digits")
	}
	if p.i < len(p.s) && p.s[p.i] == 'L' {
		p.i++
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("at byte %d: integer %s out of range", start, text)
	}
	return n, nil
}
