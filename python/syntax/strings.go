// This file turns NUMBER and STRING tokens into Constants and f-strings
// into JoinedStr/FormattedValue trees, as CPython 3.11 does (its
// Parser/string_parser.c, whose behavior is reproduced here, not its code).
//
// Numbers: integers of any base become *big.Int, floats float64 (an
// overflowing literal is +Inf, as in CPython), imaginary literals
// complex128 with a zero real part.
//
// Strings: adjacent literals are concatenated (bytes with bytes only:
// "cannot mix bytes and nonbytes literals"); escapes are decoded unless
// the literal is raw: \newline, \\ \' \" \a \b \f \n \r \t \v, octal
// \ooo, \xhh, \uXXXX, \UXXXXXXXX; an unknown escape keeps its backslash.
// \N{name} needs the Unicode character database, which Go's standard
// library lacks: it is reported as an error naming the limitation. A str
// value is UTF-8, except that a lone surrogate (\ud800) is kept as its
// three-byte (WTF-8) encoding so that it survives.
//
// F-strings follow 3.11 exactly, including its positions: the literal
// parts and the fields (FormattedValue) of a JoinedStr all span the whole
// group of adjacent literals; a format spec is a JoinedStr spanning its
// own literal token, whose trailing literal also spans that token; the
// expression of a field is parsed from its text wrapped in parentheses,
// with positions mapped onto the source (the parenthesis sits where the
// '{' is, so `f"{a, b}"`'s Tuple starts at the '{'); `=` puts the field's
// text (with its whitespace) in the preceding literal and makes the
// conversion 'r' when there is neither a conversion nor a format spec;
// `{{` and `}}` are braces. The expression part may not contain a
// backslash, a '#', or the literal's own quote (3.11's rules).

package syntax

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// number converts a NUMBER token.
func (p *parser) number(t *token) Expr {
	text := string(p.src[t.off:t.eoff])
	sp := Span{t.start, t.end}
	clean := strings.ReplaceAll(text, "_", "")
	if len(clean) > 1 && clean[0] == '0' {
		base := 0
		switch clean[1] {
		case 'x', 'X':
			base = 16
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		if base != 0 {
			v, ok := new(big.Int).SetString(clean[2:], base)
			if !ok {
				p.errorAtPos(t.start, "invalid number literal")
			}
			return &Constant{Span: sp, Kind: ConstInt, Value: v}
		}
	}
	last := clean[len(clean)-1]
	if last == 'j' || last == 'J' {
		f := parseFloat(clean[:len(clean)-1])
		return &Constant{Span: sp, Kind: ConstComplex, Value: complex(0, f)}
	}
	if strings.ContainsAny(clean, ".eE") {
		return &Constant{Span: sp, Kind: ConstFloat, Value: parseFloat(clean)}
	}
	v, ok := new(big.Int).SetString(clean, 10)
	if !ok {
		p.errorAtPos(t.start, "invalid number literal")
	}
	return &Constant{Span: sp, Kind: ConstInt, Value: v}
}

func parseFloat(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f // ±Inf or 0, as CPython rounds
		}
		return math.NaN()
	}
	return f
}

// strPrefix describes a string literal's prefix.
type strPrefix struct {
	raw, bytes, fstr bool
	n                int // prefix length
	quote            int // 1 or 3
}

func prefixOf(text []byte) strPrefix {
	var sp strPrefix
	for sp.n < len(text) && text[sp.n] != '\'' && text[sp.n] != '"' {
		switch text[sp.n] {
		case 'r', 'R':
			sp.raw = true
		case 'b', 'B':
			sp.bytes = true
		case 'f', 'F':
			sp.fstr = true
		}
		sp.n++
	}
	sp.quote = 1
	if len(text) >= sp.n+6 && text[sp.n+1] == text[sp.n] && text[sp.n+2] == text[sp.n] {
		sp.quote = 3
	}
	return sp
}

// strings parses a group of adjacent string literals.
func (p *parser) strings() Expr {
	first := p.pos
	for p.kind() == tkString {
		p.advance()
	}
	toks := p.toks[first:p.pos]
	// CPython reads the token after the group before building it: errors
	// "at the last token" are there.
	p.tok()
	firstTok, lastTok := &toks[0], &toks[len(toks)-1]
	span := Span{firstTok.start, lastTok.end}
	// Tokens are processed in order, as CPython does: a bytes literal
	// among strings (or the reverse) is an error when it is reached.
	bytesMode := prefixOf(p.src[firstTok.off:firstTok.eoff]).bytes
	var out []byte
	st := &fstrState{p: p, first: firstTok, last: lastTok}
	for i := range toks {
		t := &toks[i]
		text := p.src[t.off:t.eoff]
		sp := prefixOf(text)
		if sp.bytes != bytesMode {
			p.lastError("SyntaxError", "cannot mix bytes and nonbytes literals")
		}
		bodyOff := int(t.off) + sp.n + sp.quote
		bodyEnd := int(t.eoff) - sp.quote
		body := p.src[bodyOff:bodyEnd]
		switch {
		case sp.bytes:
			for _, c := range body {
				if c >= 0x80 {
					p.errorAtPos(t.start, "bytes can only contain ASCII literal characters")
				}
			}
			if sp.raw {
				out = append(out, body...)
			} else {
				out = p.decodeBytes(out, body)
			}
		case !sp.fstr:
			if sp.raw {
				p.checkUTF8(body, true)
				st.addLiteral(string(body))
			} else {
				st.addLiteral(p.decodeStr(body))
			}
		default:
			st.fmode = true
			pos := bodyOff
			st.concatFstring(&pos, bodyEnd, sp.raw, 0, firstTok, t, lastTok)
		}
	}
	if bytesMode {
		if out == nil {
			out = []byte{}
		}
		return &Constant{Span: span, Kind: ConstBytes, Value: out}
	}
	return st.finish(firstTok, lastTok, span)
}

// fstrState accumulates the parts of a JoinedStr (CPython's FstringParser).
type fstrState struct {
	p           *parser
	first, last *token
	lastStr     strings.Builder
	hasLast     bool
	values      []Expr
	fmode       bool
}

func (st *fstrState) addLiteral(s string) {
	if s == "" {
		return
	}
	st.lastStr.WriteString(s)
	st.hasLast = true
}

// strNode makes a Constant of the pending literal, spanning first..last,
// with kind "u" when first starts with a lowercase u.
func (st *fstrState) strNode(first, last *token) Expr {
	c := &Constant{Span: Span{first.start, last.end}, Kind: ConstStr, Value: st.lastStr.String()}
	if st.p.src[first.off] == 'u' {
		c.UKind = "u"
	}
	st.lastStr.Reset()
	st.hasLast = false
	return c
}

func (st *fstrState) finish(first, last *token, span Span) Expr {
	if !st.fmode {
		return st.strNode(first, last)
	}
	if st.hasLast {
		st.values = append(st.values, st.strNode(first, last))
	}
	return &JoinedStr{Span: span, Values: st.values}
}

// concatFstring parses the f-string text src[*pos:end] (the body of token
// t, or a format spec within it at recurse > 0) into st.
func (st *fstrState) concatFstring(pos *int, end int, raw bool, recurse int, first, t, last *token) {
	p := st.p
	for {
		lit, again := st.findLiteral(pos, end, raw, recurse, t)
		st.addLiteral(lit)
		if again {
			continue
		}
		if *pos >= end || p.src[*pos] == '}' {
			return
		}
		// A field.
		fv, exprText := st.findExpr(pos, end, raw, recurse, first, t, last)
		st.addLiteral(exprText)
		if st.hasLast {
			st.values = append(st.values, st.strNode(first, last))
		}
		st.values = append(st.values, fv)
	}
}

// findLiteral scans literal text up to a '{' or '}' (CPython's
// fstring_find_literal); again is true after a doubled brace.
func (st *fstrState) findLiteral(pos *int, end int, raw bool, recurse int, t *token) (lit string, again bool) {
	p := st.p
	s := *pos
	start := s
	litEnd := -1
	for s < end {
		c := p.src[s]
		s++
		if !raw && c == '\\' && s < end {
			c = p.src[s]
			s++
			if c == 'N' {
				if s < end && p.src[s] == '{' {
					s++
					for s < end && p.src[s] != '}' {
						s++
					}
					if s < end {
						s++
					}
				}
				continue
			}
		}
		if c == '{' || c == '}' {
			if recurse == 0 {
				if s < end && p.src[s] == c {
					*pos = s + 1
					litEnd = s
					again = true
					break
				}
				if c == '}' {
					*pos = s - 1
					p.lastError("SyntaxError", "f-string: single '}' is not allowed")
				}
			}
			s--
			break
		}
	}
	if litEnd < 0 {
		*pos = s
		litEnd = s
	}
	if litEnd == start {
		return "", again
	}
	chunk := p.src[start:litEnd]
	if raw {
		p.checkUTF8(chunk, true)
		return string(chunk), again
	}
	return p.decodeStr(chunk), again
}

// findExpr parses a field `{expr[=][!c][:spec]}` at src[*pos] == '{'.
func (st *fstrState) findExpr(pos *int, end int, raw bool, recurse int, first, t, last *token) (Expr, string) {
	p := st.p
	fail := func(format string, args ...any) { p.lastError("SyntaxError", format, args...) }
	if recurse >= 2 {
		fail("f-string: expressions nested too deeply")
	}
	brace := *pos
	*pos++
	exprStart := *pos
	var quote byte
	strType := 0
	depth := 0
	var parens [maxParenLvl]byte
	for *pos < end {
		c := p.src[*pos]
		if c == '\\' {
			fail("f-string expression part cannot include a backslash")
		}
		if quote != 0 {
			if c == quote {
				if strType == 3 {
					if *pos+2 < end && p.src[*pos+1] == c && p.src[*pos+2] == c {
						*pos += 3
						strType, quote = 0, 0
						continue
					}
				} else {
					*pos++
					strType, quote = 0, 0
					continue
				}
			}
			*pos++
			continue
		}
		switch {
		case c == '\'' || c == '"':
			if *pos+2 < end && p.src[*pos+1] == c && p.src[*pos+2] == c {
				strType = 3
				*pos += 2
			} else {
				strType = 1
			}
			quote = c
		case c == '[' || c == '{' || c == '(':
			if depth >= maxParenLvl {
				fail("f-string: too many nested parenthesis")
			}
			parens[depth] = c
			depth++
		case c == '#':
			fail("f-string expression part cannot include '#'")
		case depth == 0 && (c == '!' || c == ':' || c == '}' || c == '=' || c == '>' || c == '<'):
			if *pos+1 < end {
				next := p.src[*pos+1]
				if next == '=' && (c == '!' || c == '=' || c == '<' || c == '>') {
					*pos += 2
					continue
				}
			}
			if c == '>' || c == '<' {
				*pos++
				continue
			}
			goto exprDone
		case c == ']' || c == '}' || c == ')':
			if depth == 0 {
				fail("f-string: unmatched '%c'", c)
			}
			depth--
			open := parens[depth]
			if !(open == '(' && c == ')' || open == '[' && c == ']' || open == '{' && c == '}') {
				fail("f-string: closing parenthesis '%c' does not match opening parenthesis '%c'", c, open)
			}
		}
		*pos++
	}
exprDone:
	exprEnd := *pos
	if quote != 0 {
		fail("f-string: unterminated string")
	}
	if depth > 0 {
		fail("f-string: unmatched '%c'", parens[depth-1])
	}
	if *pos >= end {
		fail("f-string: expecting '}'")
	}
	value := st.compileExpr(brace, exprStart, exprEnd, t)
	exprText := ""
	conversion := -1
	var spec Expr
	if p.src[*pos] == '=' {
		*pos++
		for *pos < end && isPySpace(p.src[*pos]) {
			*pos++
		}
		if *pos >= end {
			fail("f-string: expecting '}'")
		}
		exprText = string(p.src[exprStart:*pos])
	}
	if p.src[*pos] == '!' {
		*pos++
		if *pos >= end {
			fail("f-string: expecting '}'")
		}
		conversion = int(p.src[*pos])
		*pos++
		if conversion != 's' && conversion != 'r' && conversion != 'a' {
			fail("f-string: invalid conversion character: expected 's', 'r', or 'a'")
		}
	}
	if *pos >= end {
		fail("f-string: expecting '}'")
	}
	if p.src[*pos] == ':' {
		*pos++
		if *pos >= end {
			fail("f-string: expecting '}'")
		}
		sub := &fstrState{p: p, first: t, last: t, fmode: true}
		sub.concatFstring(pos, end, raw, recurse+1, first, t, last)
		spec = sub.finish(t, t, Span{t.start, t.end})
	}
	if *pos >= end || p.src[*pos] != '}' {
		fail("f-string: expecting '}'")
	}
	*pos++
	if exprText != "" && spec == nil && conversion == -1 {
		conversion = 'r'
	}
	return &FormattedValue{Span: Span{first.start, last.end}, Value: value, Conversion: conversion, FormatSpec: spec}, exprText
}

func isPySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// compileExpr parses the expression text src[start:end] of a field whose
// '{' is at brace, inside token t.
func (st *fstrState) compileExpr(brace, start, end int, t *token) Expr {
	p := st.p
	allSpace := true
	for _, c := range p.src[start:end] {
		if !(c == ' ' || c == '\t' || c == '\n' || c == '\f') {
			allSpace = false
			break
		}
	}
	if allSpace {
		p.lastError("SyntaxError", "f-string: empty expression not allowed")
	}
	// Where the expression's first line goes: the line of the '{', and
	// its column (the opening parenthesis of the wrapped text stands on
	// the '{'), unless only whitespace separates the '{' from a newline.
	lines := 0
	lastNL := -1
	for i := int(t.off); i < brace; i++ {
		if p.src[i] == '\n' {
			lines++
			lastNL = i
		}
	}
	newlineAfterBrace := true
	for i := brace + 1; i < len(p.src) && p.src[i] != '}' && p.src[i] != '\n'; i++ {
		if c := p.src[i]; c != ' ' && c != '\t' && c != '\f' {
			newlineAfterBrace = false
			break
		}
	}
	baseLine := t.start.Line + int32(lines)
	var baseCol int
	switch {
	case newlineAfterBrace && lines == 0:
		baseCol = int(t.start.Col)
	case newlineAfterBrace:
		baseCol = 0
	case lines == 0:
		baseCol = int(t.start.Col) + (brace - int(t.off))
	default:
		baseCol = brace - (lastNL + 1)
	}
	sub := make([]byte, 0, end-start+2)
	sub = append(sub, '(')
	sub = append(sub, p.src[start:end]...)
	sub = append(sub, ')')
	sc := scan(p.file, sub)
	for i := range sc.toks {
		tk := &sc.toks[i]
		tk.start = mapFstrPos(tk.start, baseLine, baseCol)
		tk.end = mapFstrPos(tk.end, baseLine, baseCol)
		if tk.errLine != 0 {
			tk.errLine += baseLine - 1
		}
	}
	if sc.err != nil {
		sc.err.Line += int(baseLine) - 1
	}
	sp := &parser{file: p.file, src: sub, toks: sc.toks, sc: sc, fstring: true,
		fstrCol: baseCol, fstrLine: baseLine, depth: p.depth, names: p.names}
	var e Expr
	ok := sp.run(func() { e = sp.starExpressions() })
	sc.release()
	if !ok {
		p.err = sp.err
		panic(bailout{})
	}
	return e
}

func mapFstrPos(pos Pos, line int32, col int) Pos {
	if pos.Line == 1 {
		return Pos{Line: line, Col: pos.Col + int32(col)}
	}
	return Pos{Line: pos.Line + line - 1, Col: pos.Col}
}

// appendRune appends r as UTF-8, or a surrogate as its WTF-8 bytes.
func appendRune(b []byte, r rune) []byte {
	if r >= 0xD800 && r <= 0xDFFF {
		return append(b, byte(0xE0|r>>12), byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(b, r)
}

// decodeRuneLoose decodes one rune of UTF-8 or WTF-8 (a surrogate's
// three bytes), returning RuneError with size 1 for other invalid bytes.
func decodeRuneLoose(b []byte) (rune, int) {
	if len(b) >= 3 && b[0] == 0xED && b[1] >= 0xA0 && b[1] <= 0xBF && b[2]&0xC0 == 0x80 {
		return rune(b[0]&0x0F)<<12 | rune(b[1]&0x3F)<<6 | rune(b[2]&0x3F), 3
	}
	return utf8.DecodeRune(b)
}

// escapePos returns the position CPython's unicode-escape decoder reports
// for byte i of body: it has first replaced each non-ASCII character by a
// ten-character \UXXXXXXXX escape.
func escapePos(body []byte, i int) int {
	n := 0
	for j := 0; j < i; {
		if body[j] < 0x80 {
			n++
			j++
			continue
		}
		_, size := utf8.DecodeRune(body[j:])
		n += 10
		j += size
	}
	return n
}

// utf8Invalid returns the offset of the first byte of b that does not
// start a valid UTF-8 sequence, the length of the bad sequence (more than
// 1 only for a truncated one) and why, in the words of CPython's UTF-8
// decoder; or -1.
func utf8Invalid(b []byte) (int, int, string) {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			i++
			continue
		}
		n, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			n = 2
		case c >= 0xE0 && c <= 0xEF:
			n = 3
			if c == 0xE0 {
				lo = 0xA0
			} else if c == 0xED {
				hi = 0x9F
			}
		case c >= 0xF0 && c <= 0xF4:
			n = 4
			if c == 0xF0 {
				lo = 0x90
			} else if c == 0xF4 {
				hi = 0x8F
			}
		default:
			return i, 1, "invalid start byte"
		}
		for k := 1; k < n; k++ {
			if i+k >= len(b) {
				return i, k, "unexpected end of data"
			}
			d := b[i+k]
			if k == 1 && (d < lo || d > hi) || k > 1 && (d < 0x80 || d > 0xBF) {
				return i, 1, "invalid continuation byte"
			}
		}
		i += n
	}
	return -1, 0, ""
}

// checkUTF8 reports invalid UTF-8 in a literal's text (a string's body,
// or a literal part of an f-string) as CPython does, positions counting
// from the start of the text.
func (p *parser) checkUTF8(text []byte, _ bool) {
	if i, n, why := utf8Invalid(text); i >= 0 {
		if n > 1 {
			p.lastError("SyntaxError", "(unicode error) 'utf-8' codec can't decode bytes in position %d-%d: %s", i, i+n-1, why)
		}
		p.lastError("SyntaxError", "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %d: %s", text[i], i, why)
	}
}

// decodeStr decodes the escapes of a non-raw str literal body.
func (p *parser) decodeStr(body []byte) string {
	p.checkUTF8(body, false)
	if !hasBackslash(body) {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			p.lastError("SyntaxError", "(unicode error) 'unicodeescape' codec can't decode byte 0x5c in position %d: \\ at end of string", escapePos(body, i))
		}
		e := body[i+1]
		switch e {
		case '\n':
			i += 2
		case '\\', '\'', '"':
			out = append(out, e)
			i += 2
		case 'a':
			out = append(out, 7)
			i += 2
		case 'b':
			out = append(out, 8)
			i += 2
		case 'f':
			out = append(out, 12)
			i += 2
		case 'n':
			out = append(out, '\n')
			i += 2
		case 'r':
			out = append(out, '\r')
			i += 2
		case 't':
			out = append(out, '\t')
			i += 2
		case 'v':
			out = append(out, 11)
			i += 2
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(0)
			j := i + 1
			for j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7' {
				v = v*8 + rune(body[j]-'0')
				j++
			}
			out = appendRune(out, v)
			i = j
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 2
			v := rune(0)
			for j < len(body) && j < i+2+n && isXDigit(body[j]) {
				v = v*16 + rune(hexVal(body[j]))
				j++
			}
			if j-(i+2) < n {
				what := map[byte]string{'x': "\\xXX", 'u': "\\uXXXX", 'U': "\\UXXXXXXXX"}[e]
				p.lastError("SyntaxError", "(unicode error) 'unicodeescape' codec can't decode bytes in position %d-%d: truncated %s escape",
					escapePos(body, i), escapePos(body, j)-1, what)
			}
			if v > 0x10FFFF {
				p.lastError("SyntaxError", "(unicode error) 'unicodeescape' codec can't decode bytes in position %d-%d: illegal Unicode character",
					escapePos(body, i), escapePos(body, j)-1)
			}
			out = appendRune(out, v)
			i = j
		case 'N':
			p.lastError("SyntaxError", "\\N{...} escapes are not supported (narwhal's parser has no Unicode name database)")
		default:
			out = append(out, '\\')
			i++
		}
	}
	return string(out)
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// decodeBytes decodes the escapes of a non-raw bytes literal body.
func (p *parser) decodeBytes(out, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			p.lastError("SyntaxError", "(value error) Trailing \\ in string")
		}
		e := body[i+1]
		switch e {
		case '\n':
			i += 2
		case '\\', '\'', '"':
			out = append(out, e)
			i += 2
		case 'a':
			out = append(out, 7)
			i += 2
		case 'b':
			out = append(out, 8)
			i += 2
		case 'f':
			out = append(out, 12)
			i += 2
		case 'n':
			out = append(out, '\n')
			i += 2
		case 'r':
			out = append(out, '\r')
			i += 2
		case 't':
			out = append(out, '\t')
			i += 2
		case 'v':
			out = append(out, 11)
			i += 2
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := 0
			j := i + 1
			for j < len(body) && j < i+4 && body[j] >= '0' && body[j] <= '7' {
				v = v*8 + int(body[j]-'0')
				j++
			}
			out = append(out, byte(v))
			i = j
		case 'x':
			if i+3 < len(body)+0 && isXDigit(body[i+2]) && isXDigit(body[i+3]) {
				out = append(out, byte(hexVal(body[i+2])*16+hexVal(body[i+3])))
				i += 4
				continue
			}
			p.lastError("SyntaxError", "(value error) invalid \\x escape at position %d", i)
		default:
			out = append(out, '\\')
			i++
		}
	}
	return out
}
