// This file is the scanner: Python 3.11's lexical grammar (the language
// reference, chapter 2 "Lexical analysis"), turning source bytes into the
// token slice the parser reads.
//
// It reproduces CPython's tokenizer where the result is observable through
// ast.parse: INDENT/DEDENT from an indentation stack measured twice (tabs to
// multiples of 8 and tabs as 1 column; disagreement is a TabError), blank
// and comment-only lines ignored, newlines inside brackets ignored,
// backslash continuations, the number grammar with its error messages and
// the column CPython reports for each (SyntaxError.offset counts the
// characters before the tokenizer's cursor), string literals as single
// STRING tokens (their decoding is strings.go's), identifiers with
// non-ASCII letters, and the bracket stack that gives "'(' was never
// closed" and "unmatched ')'".
//
// Preconditions: src is UTF-8 (a BOM is skipped). \r\n and lone \r are
// turned into \n before scanning, as CPython does for its input, so
// columns and lines are those of the normalized text.
//
// Decisions where CPython cannot be followed with the standard library:
// identifiers are not NFKC-normalized, and XID_Start/XID_Continue are
// computed from Go's unicode tables (letters, marks, digits, connector
// punctuation and the Other_ID_* properties), which differ from CPython's
// only for a handful of compatibility characters.
//
// The scanner stops at its first error: the token slice then ends with a
// tkError token and s.err holds the error and how it competes with the
// parser's errors (see errClass).

package syntax

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"
)

// errClass says how a tokenizer error competes with a parser error found
// before the parser reached the bad token. CPython tokenizes the rest of
// the file after a parser error; errors its tokenizer raises as
// exceptions replace the parser's error, errors it only records as a
// status (indentation, line continuation) do not, and an unclosed bracket
// at the end of the file replaces it only when the parser's error is on a
// later line than the bracket.
type errClass uint8

const (
	errRaised   errClass = iota // strings, numbers, characters, brackets: always wins
	errStatus                   // E_DEDENT, E_TABSPACE, E_TOODEEP, E_LINECONT: wins only when reached
	errUnclosed                 // an open bracket at the end of the file
)

const (
	tabSize     = 8
	maxIndent   = 100
	maxParenLvl = 200
)

type paren struct {
	ch   byte
	line int
	col  int // byte column
}

type scanner struct {
	file      string
	src       []byte
	off       int // cursor
	line      int // line of the cursor
	lineStart int // offset of the cursor's line

	indents    []int
	altIndents []int
	parens     []paren
	atBOL      bool

	toks     []token
	err      *Error
	errClass errClass
	errParen paren // for errUnclosed: the bracket never closed
}

// normalizeNewlines returns src with \r\n and \r turned into \n (src
// itself when it has no \r).
func normalizeNewlines(src []byte) []byte {
	has := false
	for _, c := range src {
		if c == '\r' {
			has = true
			break
		}
	}
	if !has {
		return src
	}
	out := make([]byte, 0, len(src))
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\r' {
			out = append(out, '\n')
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// scan tokenizes src (already normalized). It always returns a slice
// ending with tkEndMarker or tkError.
func scan(file string, src []byte) *scanner {
	s := &scanner{file: file, src: src, line: 1, atBOL: true, indents: []int{0}, altIndents: []int{0}}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3
		s.lineStart = 3
	}
	want := len(src)/3 + 16
	if pooled, ok := tokenPool.Get().(*[]token); ok && cap(*pooled) >= want {
		s.toks = (*pooled)[:0]
	} else {
		s.toks = make([]token, 0, want)
	}
	for s.next() {
	}
	return s
}

// tokenPool recycles token slices between parses: the tree keeps no
// token, so a slice is free once its parse is over (release).
var tokenPool sync.Pool

// release returns the scanner's token slice to the pool.
func (s *scanner) release() {
	if cap(s.toks) > 1<<20 {
		return // do not keep huge slices alive
	}
	toks := s.toks[:0]
	s.toks = nil
	tokenPool.Put(&toks)
}

// charCol returns the number of characters between the start of the line
// that begins at lineStart and the byte offset off: CPython's
// SyntaxError.offset for an error raised with the cursor at off.
func (s *scanner) charCol(lineStart, off int) int {
	if off > len(s.src) {
		off = len(s.src)
	}
	if off < lineStart {
		return 0
	}
	return utf8.RuneCount(s.src[lineStart:off])
}

// lineLen returns the number of characters of the line starting at
// lineStart, its newline included (CPython always has one: it adds a
// final newline to its input).
func (s *scanner) lineLen(lineStart int) int {
	i := lineStart
	for i < len(s.src) && s.src[i] != '\n' {
		i++
	}
	return utf8.RuneCount(s.src[lineStart:i]) + 1
}

// fail records a tokenizer error at the given 1-based offset of the
// current line and ends the token stream.
func (s *scanner) fail(class errClass, kind string, line, col int, format string, args ...any) bool {
	s.err = &Error{File: s.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Kind: kind}
	s.errClass = class
	pos := Pos{Line: int32(s.line), Col: int32(s.off - s.lineStart)}
	s.toks = append(s.toks, token{kind: tkError, start: pos, end: pos, off: int32(s.off), eoff: int32(s.off), level: int16(len(s.parens))})
	return false
}

// syntaxErrorAt records an error CPython raises with its cursor at off on
// the current line.
func (s *scanner) syntaxErrorAt(off int, format string, args ...any) bool {
	return s.fail(errRaised, "SyntaxError", s.line, s.charCol(s.lineStart, off), format, args...)
}

func (s *scanner) pos(off int) Pos {
	return Pos{Line: int32(s.line), Col: int32(off - s.lineStart)}
}

func (s *scanner) emit(kind tokKind, start int) {
	s.toks = append(s.toks, token{kind: kind, start: s.pos(start), end: s.pos(s.off), off: int32(start), eoff: int32(s.off), level: int16(len(s.parens))})
}

// emitAt emits a zero-width token (INDENT, DEDENT, ENDMARKER) whose error
// offset is errCol.
func (s *scanner) emitAt(kind tokKind, p Pos, off, errCol int) {
	s.toks = append(s.toks, token{kind: kind, start: p, end: p, off: int32(off), eoff: int32(off), level: int16(len(s.parens)), errCol: int32(errCol)})
}

func (s *scanner) peekByte(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

// newline moves the cursor past a '\n' at s.off.
func (s *scanner) newline() {
	s.off++
	s.line++
	s.lineStart = s.off
}

// endOfInput emits the final NEWLINE (when the last logical line has
// content), the DEDENTs and the ENDMARKER, or the unclosed-bracket error.
func (s *scanner) endOfInput() bool {
	if len(s.parens) > 0 {
		p := s.parens[len(s.parens)-1]
		s.errParen = p
		lineStart := s.lineStartOf(p.line)
		return s.fail(errUnclosed, "SyntaxError", p.line, s.charCol(lineStart, lineStart+p.col)+1, "'%c' was never closed", p.ch)
	}
	// CPython's input always ends with a newline; the position of EOF
	// tokens is that of the end of the last line.
	lastLine, lastStart := s.line, s.lineStart
	if s.off == s.lineStart && s.line > 1 {
		lastLine = s.line - 1
		lastStart = s.lineStartOf(lastLine)
	}
	if n := len(s.toks); n > 0 && s.toks[n-1].kind != tkNewline && s.toks[n-1].kind != tkIndent && s.toks[n-1].kind != tkDedent {
		// An implicit NEWLINE at the end of the last line.
		p := s.pos(s.off)
		s.toks = append(s.toks, token{kind: tkNewline, start: p, end: Pos{p.Line, p.Col + 1}, off: int32(s.off), eoff: int32(s.off)})
	}
	errCol := s.lineLen(lastStart)
	if lastStart >= len(s.src) && lastLine == 1 {
		errCol = 0
	}
	endPos := Pos{Line: int32(s.line), Col: 0}
	if s.off != s.lineStart {
		endPos = Pos{Line: int32(s.line + 1), Col: 0}
	}
	for len(s.indents) > 1 {
		s.indents = s.indents[:len(s.indents)-1]
		s.altIndents = s.altIndents[:len(s.altIndents)-1]
		s.emitAt(tkDedent, endPos, s.off, errCol)
	}
	s.toks = append(s.toks, token{kind: tkEndMarker, start: endPos, end: endPos, off: int32(s.off), eoff: int32(s.off), errCol: int32(errCol)})
	// Tokens at EOF report errors on the last line.
	n := len(s.toks)
	for i := n - 1; i >= 0 && (s.toks[i].kind == tkEndMarker || s.toks[i].kind == tkDedent); i-- {
		s.toks[i].errLine = int32(lastLine)
	}
	return false
}

// lineStartOf returns the offset of the start of line n (n <= s.line).
func (s *scanner) lineStartOf(n int) int {
	if n == s.line {
		return s.lineStart
	}
	line, i := 1, 0
	if len(s.src) >= 3 && s.src[0] == 0xEF && s.src[1] == 0xBB && s.src[2] == 0xBF {
		i = 3
	}
	for line < n && i < len(s.src) {
		if s.src[i] == '\n' {
			line++
		}
		i++
	}
	return i
}

// next scans one token (or an indentation change) and reports whether
// scanning goes on.
func (s *scanner) next() bool {
	if s.atBOL {
		s.atBOL = false
		if !s.indentation() {
			return false
		}
		if len(s.toks) > 0 && s.toks[len(s.toks)-1].kind == tkError {
			return false
		}
	}
	// Skip spaces, tabs, form feeds, comments and continuations.
	for {
		if s.off >= len(s.src) {
			return s.endOfInput()
		}
		c := s.src[s.off]
		switch c {
		case ' ', '\t', '\f':
			s.off++
			continue
		case '#':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.off++
			}
			continue
		case '\\':
			if !s.continuation() {
				return false
			}
			continue
		}
		break
	}
	c := s.src[s.off]
	start := s.off
	switch {
	case c == '\n':
		blank := len(s.toks) == 0 || s.toks[len(s.toks)-1].kind == tkNewline ||
			s.toks[len(s.toks)-1].kind == tkIndent || s.toks[len(s.toks)-1].kind == tkDedent
		if len(s.parens) > 0 || blank {
			s.newline()
			s.atBOL = len(s.parens) == 0
			return true
		}
		s.off++
		s.emit(tkNewline, start)
		s.line++
		s.lineStart = s.off
		s.atBOL = true
		return true
	case c >= '0' && c <= '9' || c == '.' && s.peekByte(1) >= '0' && s.peekByte(1) <= '9':
		return s.number()
	case isIdentStart(c):
		return s.nameOrString()
	case c == '"' || c == '\'':
		return s.stringLit(start)
	}
	return s.operator()
}

// continuation handles a backslash at s.off: it must end the line.
func (s *scanner) continuation() bool {
	if s.peekByte(1) != '\n' {
		if s.off+1 >= len(s.src) {
			// A backslash at the very end of the input.
			s.off++
			return s.fail(errRaised, "SyntaxError", s.line, s.charCol(s.lineStart, s.off)+1, "unexpected EOF while parsing")
		}
		return s.fail(errStatus, "SyntaxError", s.line, s.charCol(s.lineStart, s.off)+2, "unexpected character after line continuation character")
	}
	s.off++
	s.newline()
	if s.off >= len(s.src) {
		return s.fail(errRaised, "SyntaxError", s.line-1, s.lineLen(s.lineStartOf(s.line-1)), "unexpected EOF while parsing")
	}
	return true
}

// indentation measures the indentation of a new line and emits INDENT or
// DEDENT tokens, unless the line is blank or inside brackets.
func (s *scanner) indentation() bool {
	col, altcol := 0, 0
	contCol := -1
	for s.off < len(s.src) {
		c := s.src[s.off]
		if c == ' ' {
			col++
			altcol++
		} else if c == '\t' {
			col = (col/tabSize + 1) * tabSize
			altcol++
		} else if c == '\f' {
			col, altcol = 0, 0
		} else if c == '\\' {
			// Indentation split by a backslash: the first backslash
			// fixes the level.
			if contCol < 0 {
				contCol = col
			}
			if !s.continuation() {
				return false
			}
			continue
		} else {
			break
		}
		s.off++
	}
	if s.off >= len(s.src) {
		return true // end of input: endOfInput dedents
	}
	c := s.src[s.off]
	if c == '#' || c == '\n' {
		return true // a blank line: no indentation change
	}
	if len(s.parens) > 0 {
		return true
	}
	if contCol >= 0 {
		col, altcol = contCol, contCol
	}
	top := len(s.indents) - 1
	indentErrCol := s.charCol(s.lineStart, s.off)
	switch {
	case col == s.indents[top]:
		if altcol != s.altIndents[top] {
			return s.fail(errStatus, "TabError", s.line, 1, "inconsistent use of tabs and spaces in indentation")
		}
	case col > s.indents[top]:
		if len(s.indents) >= maxIndent {
			return s.fail(errStatus, "IndentationError", s.line, 1, "too many levels of indentation")
		}
		if altcol <= s.altIndents[top] {
			return s.fail(errStatus, "TabError", s.line, 1, "inconsistent use of tabs and spaces in indentation")
		}
		s.indents = append(s.indents, col)
		s.altIndents = append(s.altIndents, altcol)
		s.emitAt(tkIndent, s.pos(s.off), s.off, indentErrCol)
	default:
		n := 0
		for len(s.indents) > 1 && col < s.indents[len(s.indents)-1] {
			s.indents = s.indents[:len(s.indents)-1]
			s.altIndents = s.altIndents[:len(s.altIndents)-1]
			n++
		}
		if col != s.indents[len(s.indents)-1] {
			return s.fail(errStatus, "IndentationError", s.line, s.lineLen(s.lineStart), "unindent does not match any outer indentation level")
		}
		if altcol != s.altIndents[len(s.altIndents)-1] {
			return s.fail(errStatus, "TabError", s.line, 1, "inconsistent use of tabs and spaces in indentation")
		}
		for ; n > 0; n-- {
			s.emitAt(tkDedent, s.pos(s.off), s.off, indentErrCol)
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

// nameOrString scans an identifier, a keyword, or a prefixed string.
func (s *scanner) nameOrString() bool {
	start := s.off
	// String prefixes: any case of r, u, b, f, br, rb, fr, rf.
	sawB, sawR, sawU, sawF := false, false, false, false
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case !(sawB || sawU || sawF) && (c == 'b' || c == 'B'):
			sawB = true
		case !(sawB || sawU || sawR || sawF) && (c == 'u' || c == 'U'):
			sawU = true
		case !(sawR || sawU) && (c == 'r' || c == 'R'):
			sawR = true
		case !(sawF || sawB || sawU) && (c == 'f' || c == 'F'):
			sawF = true
		default:
			goto done
		}
		s.off++
		if q := s.peekByte(0); q == '"' || q == '\'' {
			return s.stringLit(start)
		}
	}
done:
	nonASCII := false
	for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
		if s.src[s.off] >= 0x80 {
			nonASCII = true
		}
		s.off++
	}
	if nonASCII && !s.verifyIdentifier(start) {
		return false
	}
	kind := tkName
	if k, ok := keywords[string(s.src[start:s.off])]; ok {
		kind = k
	}
	s.emit(kind, start)
	return true
}

// verifyIdentifier checks a run of identifier bytes containing non-ASCII
// characters, as CPython's verify_identifier does.
func (s *scanner) verifyIdentifier(start int) bool {
	b := s.src[start:s.off]
	first := true
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			k, n, why := utf8Invalid(b)
			col := s.charCol(s.lineStart, start+k) + 1
			if n > 1 {
				return s.fail(errRaised, "SyntaxError", s.line, col, "(unicode error) 'utf-8' codec can't decode bytes in position %d-%d: %s", k, k+n-1, why)
			}
			return s.fail(errRaised, "SyntaxError", s.line, col, "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[k], k, why)
		}
		ok := r == '_' || isXIDStart(r)
		if !first {
			ok = ok || isXIDContinue(r)
		}
		if !ok {
			end := start + i + size
			col := s.charCol(s.lineStart, end)
			if unicode.IsPrint(r) {
				return s.fail(errRaised, "SyntaxError", s.line, col, "invalid character '%c' (U+%04X)", r, r)
			}
			return s.fail(errRaised, "SyntaxError", s.line, col, "invalid non-printable character U+%04X", r)
		}
		first = false
		i += size
	}
	return true
}

func isXIDStart(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isXIDContinue(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'
	}
	if isXIDStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// stringLit scans a string literal whose prefix starts at start and whose
// quote is at s.off.
func (s *scanner) stringLit(start int) bool {
	quote := s.src[s.off]
	firstLine, firstLineStart := s.line, s.lineStart
	size := 1
	if s.peekByte(1) == quote && s.peekByte(2) == quote {
		size = 3
	}
	s.off += size
	endQuotes := 0
	if size == 1 && s.peekByte(0) == quote {
		s.off++
		s.emitString(start, firstLine, firstLineStart)
		return true
	}
	for endQuotes != size {
		if s.off >= len(s.src) || size == 1 && s.src[s.off] == '\n' {
			detected := s.line
			if s.off >= len(s.src) && s.off == s.lineStart && s.line > 1 {
				detected = s.line - 1
			}
			col := s.charCol(firstLineStart, start) + 1
			if size == 3 {
				return s.fail(errRaised, "SyntaxError", firstLine, col, "unterminated triple-quoted string literal (detected at line %d)", detected)
			}
			return s.fail(errRaised, "SyntaxError", firstLine, col, "unterminated string literal (detected at line %d)", detected)
		}
		c := s.src[s.off]
		if c == quote {
			endQuotes++
			s.off++
			continue
		}
		endQuotes = 0
		if c == '\\' {
			s.off++
			if s.off < len(s.src) {
				if s.src[s.off] == '\n' {
					s.newline()
				} else {
					s.off++
				}
			}
			continue
		}
		if c == '\n' {
			s.newline()
			continue
		}
		s.off++
	}
	s.emitString(start, firstLine, firstLineStart)
	return true
}

func (s *scanner) emitString(start, firstLine, firstLineStart int) {
	s.toks = append(s.toks, token{
		kind:  tkString,
		start: Pos{Line: int32(firstLine), Col: int32(start - firstLineStart)},
		end:   s.pos(s.off),
		off:   int32(start), eoff: int32(s.off), level: int16(len(s.parens)),
	})
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isXDigit(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// number scans a numeric literal, following CPython's tokenizer state by
// state so that its errors (and their columns) are CPython's.
func (s *scanner) number() bool {
	start := s.off
	cur := func() byte { return s.peekByte(0) }
	adv := func() byte { s.off++; return s.peekByte(0) }
	// decimalTail consumes digits with single underscores; on an
	// underscore not followed by a digit it fails.
	decimalTail := func() bool {
		for {
			for isDigit(cur()) {
				s.off++
			}
			if cur() != '_' {
				return true
			}
			if !isDigit(adv()) {
				return s.syntaxErrorAt(s.off, "invalid decimal literal")
			}
		}
	}
	c := cur()
	if c == '.' {
		s.off++
		return s.fraction(start, decimalTail)
	}
	if c == '0' {
		c = adv()
		switch c {
		case 'x', 'X':
			c = adv()
			for {
				if c == '_' {
					c = adv()
				}
				if !isXDigit(c) {
					return s.syntaxErrorAt(s.off, "invalid hexadecimal literal")
				}
				for isXDigit(c) {
					c = adv()
				}
				if c != '_' {
					break
				}
			}
			return s.endNumber(start, "hexadecimal")
		case 'o', 'O', 'b', 'B':
			kind, max := "octal", byte('8')
			if c == 'b' || c == 'B' {
				kind, max = "binary", '2'
			}
			c = adv()
			for {
				if c == '_' {
					c = adv()
				}
				if c < '0' || c >= max {
					if isDigit(c) {
						return s.syntaxErrorAt(s.off+1, "invalid digit '%c' in %s literal", c, kind)
					}
					return s.syntaxErrorAt(s.off, "invalid %s literal", kind)
				}
				for c >= '0' && c < max {
					c = adv()
				}
				if c != '_' {
					break
				}
			}
			if isDigit(c) {
				return s.syntaxErrorAt(s.off+1, "invalid digit '%c' in %s literal", c, kind)
			}
			return s.endNumber(start, kind)
		}
		nonzero := false
		for {
			if c == '_' {
				c = adv()
				if !isDigit(c) {
					return s.syntaxErrorAt(s.off, "invalid decimal literal")
				}
			}
			if c != '0' {
				break
			}
			c = adv()
		}
		if isDigit(c) {
			nonzero = true
			if !decimalTail() {
				return false
			}
			c = cur()
		}
		switch {
		case c == '.':
			s.off++
			return s.fraction(start, decimalTail)
		case c == 'e' || c == 'E':
			return s.exponent(start, decimalTail)
		case c == 'j' || c == 'J':
			s.off++
			return s.endNumber(start, "imaginary")
		case nonzero:
			return s.fail(errRaised, "SyntaxError", s.line, s.charCol(s.lineStart, start)+1,
				"leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
		}
		return s.endNumber(start, "decimal")
	}
	if !decimalTail() {
		return false
	}
	c = cur()
	if c == '.' {
		s.off++
		return s.fraction(start, decimalTail)
	}
	if c == 'e' || c == 'E' {
		return s.exponent(start, decimalTail)
	}
	if c == 'j' || c == 'J' {
		s.off++
		return s.endNumber(start, "imaginary")
	}
	return s.endNumber(start, "decimal")
}

// fraction continues a number after its '.'.
func (s *scanner) fraction(start int, decimalTail func() bool) bool {
	if isDigit(s.peekByte(0)) {
		if !decimalTail() {
			return false
		}
	}
	c := s.peekByte(0)
	if c == 'e' || c == 'E' {
		return s.exponent(start, decimalTail)
	}
	if c == 'j' || c == 'J' {
		s.off++
		return s.endNumber(start, "imaginary")
	}
	return s.endNumber(start, "decimal")
}

// exponent continues a number at its 'e'.
func (s *scanner) exponent(start int, decimalTail func() bool) bool {
	eOff := s.off
	s.off++
	c := s.peekByte(0)
	if c == '+' || c == '-' {
		s.off++
		if !isDigit(s.peekByte(0)) {
			return s.syntaxErrorAt(s.off, "invalid decimal literal")
		}
	} else if !isDigit(c) {
		// "1e" followed by something else: the number ends before the
		// 'e' unless the 'e' starts an identifier (then it is an error).
		s.off = eOff
		if !s.verifyEnd("decimal") {
			return false
		}
		s.emit(tkNumber, start)
		return true
	}
	if !decimalTail() {
		return false
	}
	c = s.peekByte(0)
	if c == 'j' || c == 'J' {
		s.off++
		return s.endNumber(start, "imaginary")
	}
	return s.endNumber(start, "decimal")
}

// endNumber checks what follows a number and emits it.
func (s *scanner) endNumber(start int, kind string) bool {
	if !s.verifyEnd(kind) {
		return false
	}
	s.emit(tkNumber, start)
	return true
}

// verifyEnd is CPython's verify_end_of_number: a number directly followed
// by an identifier character is an error, except before the keywords that
// can follow a number in valid code (and, else, for, if, in, is, not, or),
// where CPython only warns.
func (s *scanner) verifyEnd(kind string) bool {
	c := s.peekByte(0)
	rest := s.src[s.off:]
	has := func(w string) bool { return len(rest) >= len(w) && string(rest[:len(w)]) == w }
	switch {
	case c == 'a' && has("and"), c == 'e' && has("else"), c == 'f' && has("for"),
		c == 'i' && (has("if") || has("in") || has("is")), c == 'o' && has("or"), c == 'n' && has("not"):
		return true
	}
	if isIdentChar(c) {
		return s.syntaxErrorAt(s.off, "invalid %s literal", kind)
	}
	return true
}

// operator scans an operator or delimiter.
func (s *scanner) operator() bool {
	start := s.off
	c := s.src[s.off]
	c1, c2 := s.peekByte(1), s.peekByte(2)
	kind := tkBad
	n := 1
	three := func(k tokKind) { kind, n = k, 3 }
	two := func(k tokKind) { kind, n = k, 2 }
	switch c {
	case '(':
		kind = tkLpar
	case ')':
		kind = tkRpar
	case '[':
		kind = tkLsqb
	case ']':
		kind = tkRsqb
	case '{':
		kind = tkLbrace
	case '}':
		kind = tkRbrace
	case ',':
		kind = tkComma
	case ';':
		kind = tkSemi
	case '~':
		kind = tkTilde
	case ':':
		kind = tkColon
		if c1 == '=' {
			two(tkWalrus)
		}
	case '.':
		kind = tkDot
		if c1 == '.' && c2 == '.' {
			three(tkEllipsis)
		}
	case '+':
		kind = tkPlus
		if c1 == '=' {
			two(tkPlusEq)
		}
	case '-':
		kind = tkMinus
		if c1 == '=' {
			two(tkMinusEq)
		} else if c1 == '>' {
			two(tkArrow)
		}
	case '*':
		kind = tkStar
		if c1 == '*' {
			two(tkDStar)
			if c2 == '=' {
				three(tkDStarEq)
			}
		} else if c1 == '=' {
			two(tkStarEq)
		}
	case '/':
		kind = tkSlash
		if c1 == '/' {
			two(tkDSlash)
			if c2 == '=' {
				three(tkDSlashEq)
			}
		} else if c1 == '=' {
			two(tkSlashEq)
		}
	case '|':
		kind = tkVbar
		if c1 == '=' {
			two(tkVbarEq)
		}
	case '&':
		kind = tkAmper
		if c1 == '=' {
			two(tkAmperEq)
		}
	case '^':
		kind = tkCircum
		if c1 == '=' {
			two(tkCircumEq)
		}
	case '%':
		kind = tkPercent
		if c1 == '=' {
			two(tkPercentEq)
		}
	case '@':
		kind = tkAt
		if c1 == '=' {
			two(tkAtEq)
		}
	case '=':
		kind = tkEqual
		if c1 == '=' {
			two(tkEqEq)
		}
	case '!':
		if c1 == '=' {
			two(tkNotEq)
		}
	case '<':
		kind = tkLess
		switch c1 {
		case '=':
			two(tkLessEq)
		case '>':
			two(tkLtGt)
		case '<':
			two(tkLshift)
			if c2 == '=' {
				three(tkLshiftEq)
			}
		}
	case '>':
		kind = tkGreater
		switch c1 {
		case '=':
			two(tkGreaterEq)
		case '>':
			two(tkRshift)
			if c2 == '=' {
				three(tkRshiftEq)
			}
		}
	case 0:
		return s.fail(errRaised, "SyntaxError", s.line, s.charCol(s.lineStart, s.off)+1, "source code cannot contain null bytes")
	}
	switch c {
	case '(', '[', '{':
		if len(s.parens) >= maxParenLvl {
			return s.syntaxErrorAt(s.off+1, "too many nested parentheses")
		}
		s.parens = append(s.parens, paren{ch: c, line: s.line, col: s.off - s.lineStart})
	case ')', ']', '}':
		if len(s.parens) == 0 {
			return s.syntaxErrorAt(s.off+1, "unmatched '%c'", c)
		}
		open := s.parens[len(s.parens)-1]
		if !(open.ch == '(' && c == ')' || open.ch == '[' && c == ']' || open.ch == '{' && c == '}') {
			if open.line != s.line {
				return s.syntaxErrorAt(s.off+1, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c, open.ch, open.line)
			}
			return s.syntaxErrorAt(s.off+1, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, open.ch)
		}
		s.parens = s.parens[:len(s.parens)-1]
	}
	s.off += n
	s.emit(kind, start)
	return true
}
