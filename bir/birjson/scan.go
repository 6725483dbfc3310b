// The JSON scanner under the BIR-JSON decoder.
//
// It works on the whole input held in memory ([]byte) and never builds a
// generic tree: the decoder pulls tokens (object keys, strings, integers,
// access-pattern pairs) straight into the IR. Design points:
//
//   - Strings are returned as sub-slices of the input when they contain no
//     escape (the common case: names, enum spellings); only a string with a
//     backslash escape is copied. Callers that keep a string (tensor names)
//     convert it once; callers that only look it up use m[string(b)], which
//     Go does without allocating.
//   - Line and column are not tracked while scanning: an error records the
//     byte offset and Error computes "line:col" from it (counting newlines
//     once, on the error path only).
//   - Nesting depth is bounded (maxDepth) so that a hostile input of a
//     million '[' cannot exhaust the stack: the scanner is recursive only in
//     skip and value, and the decoder's Block -> Loop -> Block recursion
//     shares the same counter.
//   - Numbers follow RFC 8259's grammar exactly. An integer literal that fits
//     in int64 is an integer; any literal with a fraction or exponent, or an
//     integer too large for int64, is a float64 (so it re-encodes as a float,
//     e.g. 1e+30).
//   - Invalid UTF-8 inside strings is passed through unchanged (JSON requires
//     UTF-8 but rejecting it buys nothing here, and passing it through keeps
//     such bytes from being lost); control characters below 0x20 are errors,
//     as the grammar requires.
package birjson

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/bug"
)

// maxDepth bounds the nesting of JSON arrays/objects and of loops.
const maxDepth = 512

// Error is a decode error. Line and Col are 1-based (0 when the position is
// unknown); Where names the function, allocation, instruction and operand
// the error is about ("function main, instruction add_3, ins[1]").
type Error struct {
	File  string
	Line  int
	Col   int
	Where string
	Msg   string
	// Internal marks a recovered panic of the decoder (a narwhal bug).
	Internal bool
}

// Is makes a recovered panic an internal error (bug.ErrInternal: exit
// status 2).
func (e *Error) Is(target error) bool { return e.Internal && target == bug.ErrInternal }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorCode is diag.BadJSON.
func (e *Error) ErrorCode() string { return diag.BadJSON }

// lineCol converts a byte offset into a 1-based line and column (in bytes).
func lineCol(data []byte, pos int) (int, int) {
	if pos > len(data) {
		pos = len(data)
	}
	if pos < 0 {
		pos = 0
	}
	line := 1 + bytes.Count(data[:pos], []byte{'\n'})
	col := pos + 1
	if nl := bytes.LastIndexByte(data[:pos], '\n'); nl >= 0 {
		col = pos - nl
	}
	return line, col
}

// scanner is the cursor over the input. Invariant: whenever a key or a
// value is expected, the cursor is on a non-space byte (beginObject,
// beginArray, key, nextField and nextElem skip the whitespace after the
// token they consume), so the value readers do not skip whitespace.
type scanner struct {
	data  []byte
	pos   int
	depth int
	file  string

	// release, when set, is told about the input the scanner has moved
	// past (DecodeReleasing); released is how far it has been told.
	release  func(from, to int)
	released int
}

// releaseStep is how much input passes between two release calls, and
// releaseSlack how much before the cursor is kept.
const releaseStep, releaseSlack = 32 << 20, 1 << 20

// releaseBehind tells release about the input before the cursor.
func (s *scanner) releaseBehind() {
	if to := s.pos - releaseSlack; to > s.released {
		s.release(s.released, to)
		s.released = to
	}
}

// synErr returns a syntax error at byte offset pos (no context).
func (s *scanner) synErr(pos int, format string, args ...any) *Error {
	line, col := lineCol(s.data, pos)
	return &Error{File: s.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// found describes the byte at pos for "want X, found Y" messages.
func (s *scanner) found(pos int) string {
	if pos >= len(s.data) {
		return "end of input"
	}
	c := s.data[pos]
	switch {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c >= 0x20 && c < 0x7f:
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// ws skips whitespace.
func (s *scanner) ws() {
	for s.pos < len(s.data) && isSpace[s.data[s.pos]] {
		s.pos++
	}
}

// peek returns the byte at the cursor (0 at end of input) without
// consuming it.
func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// isNull consumes a null literal if one is next.
func (s *scanner) isNull() bool {
	if s.pos+4 <= len(s.data) && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return true
	}
	return false
}

// ---- objects and arrays ----

// beginObject consumes '{' and reports whether the object has fields (an
// empty object is consumed entirely).
func (s *scanner) beginObject(what string) (bool, error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return false, s.synErr(s.pos, "%s: want an object, found %s", what, s.found(s.pos))
	}
	s.depth++
	if s.depth > maxDepth {
		return false, s.synErr(s.pos, "nesting deeper than %d levels", maxDepth)
	}
	s.pos++
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return false, nil
	}
	return true, nil
}

// key reads an object key and the ':' after it, leaving the cursor at the
// value. It returns the key (unescaped) and the offset of its opening quote.
func (s *scanner) key() ([]byte, int, error) {
	start := s.pos
	if s.pos >= len(s.data) || s.data[s.pos] != '"' {
		return nil, start, s.synErr(s.pos, "want an object key (a string), found %s", s.found(s.pos))
	}
	k, err := s.str()
	if err != nil {
		return nil, start, err
	}
	s.ws()
	if s.pos >= len(s.data) || s.data[s.pos] != ':' {
		return nil, start, s.synErr(s.pos, "want ':' after object key %q, found %s", k, s.found(s.pos))
	}
	s.pos++
	s.ws()
	return k, start, nil
}

// nextField consumes ',' (true: another field follows) or '}' (false).
func (s *scanner) nextField() (bool, error) {
	s.ws()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.ws()
			if s.release != nil && s.pos-s.released >= releaseStep {
				s.releaseBehind()
			}
			return true, nil
		case '}':
			s.pos++
			s.depth--
			return false, nil
		}
	}
	return false, s.synErr(s.pos, "want ',' or '}' after an object field, found %s", s.found(s.pos))
}

// beginArray consumes '[' and reports whether the array has elements.
func (s *scanner) beginArray(what string) (bool, error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '[' {
		return false, s.synErr(s.pos, "%s: want an array, found %s", what, s.found(s.pos))
	}
	s.depth++
	if s.depth > maxDepth {
		return false, s.synErr(s.pos, "nesting deeper than %d levels", maxDepth)
	}
	s.pos++
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		s.depth--
		return false, nil
	}
	return true, nil
}

// nextElem consumes ',' (true: another element follows) or ']' (false).
func (s *scanner) nextElem() (bool, error) {
	s.ws()
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.ws()
			return true, nil
		case ']':
			s.pos++
			s.depth--
			return false, nil
		}
	}
	return false, s.synErr(s.pos, "want ',' or ']' after an array element, found %s", s.found(s.pos))
}

// ---- strings ----

// strPlain marks bytes that end the fast path of str: the quote, the
// backslash and control characters.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'] = true
	t['\\'] = true
	return
}()

// str reads a string at the cursor and returns its content. The result
// aliases the input unless the string has escapes; do not modify it.
func (s *scanner) str() ([]byte, error) {
	start := s.pos
	if start >= len(s.data) || s.data[start] != '"' {
		return nil, s.synErr(start, "want a string, found %s", s.found(start))
	}
	d := s.data
	i := start + 1
	for i < len(d) && !strStop[d[i]] {
		i++
	}
	if i < len(d) && d[i] == '"' {
		s.pos = i + 1
		return d[start+1 : i], nil
	}
	return s.strSlow(start, i)
}

// strSlow decodes a string with escapes (or reports the error at i).
func (s *scanner) strSlow(start, i int) ([]byte, error) {
	d := s.data
	out := make([]byte, 0, i-start+16)
	out = append(out, d[start+1:i]...)
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return out, nil
		case c < 0x20:
			return nil, s.synErr(i, "control character 0x%02x in a string (escape it)", c)
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(d) {
			break
		}
		e := d[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(d, i)
			if !ok {
				return nil, s.synErr(i-2, `bad \u escape: want four hex digits`)
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok2 := rune(0), false
				if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
					r2, ok2 = hex4(d, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok2 && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, s.synErr(i-2, "bad escape \\%c in a string", e)
		}
	}
	return nil, s.synErr(start, "unterminated string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	var r rune
	for _, c := range d[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// ---- numbers ----

// number scans a number literal and returns its end and whether it is an
// integer literal (no fraction, no exponent).
func (s *scanner) number() (end int, isInt bool, err error) {
	d := s.data
	i := s.pos
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		return 0, false, s.synErr(start, "want a number, found %s", s.found(start))
	}
	isInt = true
	if i < len(d) && d[i] == '.' {
		isInt = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, false, s.synErr(i, "malformed number: want a digit after '.'")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isInt = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return 0, false, s.synErr(i, "malformed number: want a digit in the exponent")
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	return i, isInt, nil
}

// parseIntLit converts an integer literal; ok is false on overflow.
func parseIntLit(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		b = b[1:]
	}
	var u uint64
	for _, c := range b {
		if u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// numValue reads a number as an int (integer literal within int64) or a
// float (anything else).
func (s *scanner) numValue() (i int64, f float64, isInt bool, err error) {
	start := s.pos
	end, isInt, err := s.number()
	if err != nil {
		return 0, 0, false, err
	}
	s.pos = end
	lit := s.data[start:end]
	if isInt {
		if v, ok := parseIntLit(lit); ok {
			return v, 0, true, nil
		}
	}
	f, perr := strconv.ParseFloat(string(lit), 64)
	if perr != nil && !isRangeErr(perr) {
		return 0, 0, false, s.synErr(start, "malformed number %s", lit)
	}
	return 0, f, false, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// int reads an integer value (a JSON integer literal that fits in int64).
// The common case (up to 18 digits) is parsed in one pass.
func (s *scanner) int() (int64, error) {
	d := s.data
	i := s.pos
	neg := i < len(d) && d[i] == '-'
	if neg {
		i++
	}
	if i < len(d) && d[i] >= '0' && d[i] <= '9' {
		j := i
		var v int64
		for j < len(d) && j-i < 18 && d[j] >= '0' && d[j] <= '9' {
			v = v*10 + int64(d[j]-'0')
			j++
		}
		if j < len(d) && (d[j] < '0' || d[j] > '9') && d[j] != '.' && d[j] != 'e' && d[j] != 'E' && (d[i] != '0' || j == i+1) {
			s.pos = j
			if neg {
				v = -v
			}
			return v, nil
		}
	}
	return s.intSlow()
}

// intSlow is int for long literals, the end of input and errors.
func (s *scanner) intSlow() (int64, error) {
	start := s.pos
	if start < len(s.data) {
		if c := s.data[start]; c == '-' || (c >= '0' && c <= '9') {
			end, isInt, err := s.number()
			if err != nil {
				return 0, err
			}
			if !isInt {
				return 0, s.synErr(start, "want an integer, found %s", s.data[start:end])
			}
			v, ok := parseIntLit(s.data[start:end])
			if !ok {
				return 0, s.synErr(start, "integer %s does not fit in 64 bits", s.data[start:end])
			}
			s.pos = end
			return v, nil
		}
	}
	return 0, s.synErr(start, "want an integer, found %s", s.found(start))
}

// bool reads true or false.
func (s *scanner) bool() (bool, error) {
	d := s.data[s.pos:]
	if len(d) >= 4 && string(d[:4]) == "true" {
		s.pos += 4
		return true, nil
	}
	if len(d) >= 5 && string(d[:5]) == "false" {
		s.pos += 5
		return false, nil
	}
	return false, s.synErr(s.pos, "want true or false, found %s", s.found(s.pos))
}

// literal consumes the literal lit at the cursor.
func (s *scanner) literal(lit string) error {
	if s.pos+len(lit) <= len(s.data) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
		s.pos += len(lit)
		return nil
	}
	return s.synErr(s.pos, "malformed literal: want %s", lit)
}

// ---- generic values ----

// skip validates and skips one value.
func (s *scanner) skip() error {
	if s.pos >= len(s.data) {
		return s.synErr(s.pos, "want a value, found end of input")
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{':
		more, err := s.beginObject("value")
		for err == nil && more {
			if _, _, err = s.key(); err != nil {
				break
			}
			if err = s.skip(); err != nil {
				break
			}
			more, err = s.nextField()
		}
		return err
	case c == '[':
		more, err := s.beginArray("value")
		for err == nil && more {
			if err = s.skip(); err != nil {
				break
			}
			more, err = s.nextElem()
		}
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		end, _, err := s.number()
		if err == nil {
			s.pos = end
		}
		return err
	}
	return s.synErr(s.pos, "want a value, found %s", s.found(s.pos))
}

// value parses one value into a bir.Value (objects keep their key order;
// duplicate keys inside nested objects are kept as they are).
func (s *scanner) value() (bir.Value, error) {
	if s.pos >= len(s.data) {
		return bir.Value{}, s.synErr(s.pos, "want a value, found end of input")
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		b, err := s.str()
		if err != nil {
			return bir.Value{}, err
		}
		return bir.String(string(b)), nil
	case c == '{':
		more, err := s.beginObject("value")
		var fs []bir.Field
		for err == nil && more {
			var k []byte
			if k, _, err = s.key(); err != nil {
				break
			}
			var v bir.Value
			if v, err = s.value(); err != nil {
				break
			}
			fs = append(fs, bir.Field{Key: string(k), Val: v})
			more, err = s.nextField()
		}
		if err != nil {
			return bir.Value{}, err
		}
		return bir.Value{Kind: bir.ValObject, O: fs}, nil
	case c == '[':
		more, err := s.beginArray("value")
		var vs []bir.Value
		for err == nil && more {
			var v bir.Value
			if v, err = s.value(); err != nil {
				break
			}
			vs = append(vs, v)
			more, err = s.nextElem()
		}
		if err != nil {
			return bir.Value{}, err
		}
		return bir.Value{Kind: bir.ValList, L: vs}, nil
	case c == 't':
		return bir.Bool(true), s.literal("true")
	case c == 'f':
		return bir.Bool(false), s.literal("false")
	case c == 'n':
		return bir.Null(), s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		i, f, isInt, err := s.numValue()
		if err != nil {
			return bir.Value{}, err
		}
		if isInt {
			return bir.Int(i), nil
		}
		if lit := s.data[start:s.pos]; math.IsInf(f, 0) || !bytes.ContainsAny(lit, ".eE") {
			// An integer beyond int64 or a float beyond float64: keep the
			// literal, not a rounding (bir.ValNumber).
			return bir.Number(string(lit)), nil
		}
		return bir.Float(f), nil
	}
	return bir.Value{}, s.synErr(s.pos, "want a value, found %s", s.found(s.pos))
}
