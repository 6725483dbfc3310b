// The parser of narwhal's text form of BIR (docs/text-format.md; print.go
// writes it).
//
// It is a hand-written scanner plus recursive descent over the bytes of the
// input: the grammar is line oriented (one declaration, label or
// instruction per line; a loop's body is the lines between its "{" and the
// matching "}"), and what a word means depends on where it stands (an
// instruction may be named "tensor", an axis "on"), so the parser reads
// words on demand rather than through a context-free token stream.
//
// Errors are *TextError values, "name:LINE:COL: function f, instruction x:
// what was expected, what was found"; columns count bytes from 1. The
// parser never panics on any input (FuzzParse checks it): internal errors
// unwind with a panic of *TextError that Parse recovers; any other panic is
// a bug and is not recovered.
//
// Decisions taken where the syntax alone does not fix them:
//
//   - Scoping. A plain axis name resolves to the innermost enclosing loop
//     whose axis has that name, else to the module-level axis line of that
//     name (an error when several have it). A labelled reference name#k
//     names the k-th declaration of that name from the top of the text
//     (module-level axis lines and loop headers), forward references
//     included; a declaration written name#k must be that k-th one. A loop
//     header's own operands, predicate and dependencies are outside its
//     scope.
//   - Dependencies name their target instruction, resolved when the
//     function ends (forward references are fine); a name shared by several
//     instructions must be written name#k (k-th in program order).
//   - Dangling references written with "?" (%?x, ?ld_3) become removed
//     placeholders (a dead tensor, location or instruction of that name), as
//     the printer writes them for broken modules; a dangling register
//     ($?r) is an error, registers cannot be removed.
//   - Registers must be declared (reg $r) before use; BIR-JSON creates them
//     on first reference, the text form catches typos instead.
//   - The module line may be omitted (a PrintFunction dump parses as a
//     module with that function).
//
// Performance: per instruction the parser allocates nothing beyond the
// growth of the module's tables: names go straight into the symbol arena,
// locations and tensors are looked up without copying their names,
// patterns are interned from a scratch slice, and attribute dictionaries are
// cached by their source text.
package bir

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// TextError is an error of Parse, positioned in the input.
type TextError struct {
	File string
	Line int // 1-based
	Col  int // 1-based, in bytes
	Msg  string
}

func (e *TextError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// ErrorCode is diag.BadText.
func (e *TextError) ErrorCode() string { return diag.BadText }

// Parse reads a module in the text form. name is used in error messages.
func Parse(name string, src []byte) (m *Module, err error) {
	return ParseReleasing(name, src, nil)
}

// ParseReleasing is Parse for input memory-mapped from a file (package
// internal/mapfile): as it moves through src it calls release(from, to)
// for the ranges it has passed (and for those its look-ahead has scanned),
// so that they can leave memory. It may read a released range again (an
// error's line number), which the mapping allows. release may be nil.
func ParseReleasing(name string, src []byte, release func(from, to int)) (m *Module, err error) {
	p := &parser{file: name, src: src, release: release}
	defer func() {
		if r := recover(); r != nil {
			te, ok := r.(*TextError)
			if !ok {
				panic(r)
			}
			m, err = nil, te
		}
	}()
	p.parseModule()
	return p.m, nil
}

const (
	maxValueDepth = 256 // nesting of lists and objects
	maxExprDepth  = 64  // nesting of parentheses and unary minus
	maxLoopDepth  = 256 // nesting of loops
)

type axisKey struct {
	name string
	k    int
}

type axisDef struct {
	ax       affine.Axis
	declared bool
	refPos   int // first reference, for "never declared"
}

type scopeEntry struct {
	name string
	ax   affine.Axis
}

type pendingDep struct {
	inst     InstID
	pos      int
	name     string
	k        int
	dangling bool
	dep      Dep
}

type axisFunc struct {
	ax   affine.Axis
	pos  int
	name string
}

type parser struct {
	file string
	src  []byte
	pos  int
	m    *Module
	f    *Function

	str  []byte // decoded quoted strings
	name []byte // a copy of the operand's %name while its brackets parse

	axByKey  map[axisKey]*axisDef
	axCount  map[string]int
	modAxes  map[string][]affine.Axis
	scope    []scopeEntry
	axFuncs  []axisFunc
	attrMemo map[string]AttrID
	patMemo  map[string]PatternID
	posMemo  map[string]PosID // loc(...) source text -> interned position

	// Error context.
	ctxInst Sym // the instruction being parsed, or -1
	ctxDecl string

	// Per function.
	curTensor   TensorID
	locK        int64
	pend        []pendingDep
	firstInst   int
	deadLocs    map[string]LocID
	deadTensors map[string]TensorID
	deadInsts   map[string]InstID
	tempN       int

	ops       []Operand
	pat       Pattern
	resvLines int // reserved instruction slots, for the first top-level block

	// release, when set, is told about the input the parser has moved past
	// (ParseReleasing); released is how far it has been told.
	release  func(from, to int)
	released int
}

// textReleaseStep is how much input passes between two release calls, and
// textReleaseSlack how much before the cursor is kept.
const textReleaseStep, textReleaseSlack = 32 << 20, 1 << 20

// sym adds an instruction name to the module's symbol arena. The arena
// holds 4 GiB of names (the input may be larger: a 25M-instruction module
// is about 4.5 GB of text but 0.3 GB of names); past that, an error at pos
// instead of the arena's panic.
func (p *parser) sym(pos int, name []byte) Sym {
	if len(p.m.syms.data)+len(name) > math.MaxUint32 {
		p.failAt(pos, "the instruction names exceed the 4 GiB the symbol arena holds")
	}
	return p.m.NewSymBytes(name)
}

// ---- errors and positions ----

func (p *parser) lineCol(pos int) (int, int) {
	if pos > len(p.src) {
		pos = len(p.src)
	}
	line, start := 1, 0
	for i := 0; i < pos; i++ {
		if p.src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, pos - start + 1
}

func (p *parser) failAt(pos int, format string, args ...any) {
	line, col := p.lineCol(pos)
	msg := fmt.Sprintf(format, args...)
	ctx := ""
	if p.f != nil {
		ctx = "function " + p.f.Name
		if p.ctxInst >= 0 && int(p.ctxInst) < len(p.m.syms.start) {
			ctx += ", instruction " + p.m.Str(p.ctxInst)
		} else if p.ctxDecl != "" {
			ctx += ", " + p.ctxDecl
		}
		msg = ctx + ": " + msg
	}
	panic(&TextError{File: p.file, Line: line, Col: col, Msg: msg})
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.pos, format, args...) }

// found describes what stands at the current position.
func (p *parser) found() string { return p.foundAt(p.pos) }

func (p *parser) foundAt(pos int) string {
	if pos >= len(p.src) {
		return "end of file"
	}
	c := p.src[pos]
	switch {
	case c == '\n':
		return "end of line"
	case isNameByte(c):
		e := pos
		for e < len(p.src) && isNameByte(p.src[e]) && e-pos < 40 {
			e++
		}
		return strconv.Quote(string(p.src[pos:e]))
	case c == '"':
		e := pos + 1
		for e < len(p.src) && p.src[e] != '"' && p.src[e] != '\n' && e-pos < 40 {
			e++
		}
		if e < len(p.src) && p.src[e] == '"' {
			e++
		}
		return "string " + string(p.src[pos:e])
	}
	r, _ := utf8.DecodeRune(p.src[pos:])
	return strconv.QuoteRune(r)
}

// ---- scanning ----

// sp skips blanks and a comment, not the end of line.
func (p *parser) sp() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
			return
		default:
			return
		}
	}
}

// blank skips blanks, comments and empty lines.
func (p *parser) blank() {
	for {
		p.sp()
		if p.pos < len(p.src) && p.src[p.pos] == '\n' {
			p.pos++
			continue
		}
		return
	}
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

// peek returns the next non-blank byte on the line (0 at end of file).
func (p *parser) peek() byte {
	p.sp()
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

func (p *parser) atEOL() bool {
	c := p.peek()
	return p.eof() || c == '\n'
}

func (p *parser) eol() {
	p.sp()
	if p.eof() {
		return
	}
	if p.src[p.pos] == '\n' {
		p.pos++
		if p.release != nil && p.pos-p.released >= textReleaseStep {
			if to := p.pos - textReleaseSlack; to > p.released {
				p.release(p.released, to)
				p.released = to
			}
		}
		return
	}
	p.fail("expected end of line, found %s", p.found())
}

func (p *parser) accept(c byte) bool {
	if p.peek() == c && !p.eof() {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expect(c byte) {
	if !p.accept(c) {
		p.fail("expected %q, found %s", rune(c), p.found())
	}
}

// word reads a plain word ([A-Za-z0-9_.$-]*, possibly empty).
func (p *parser) word() []byte {
	p.sp()
	s := p.pos
	for p.pos < len(p.src) && isNameByte(p.src[p.pos]) {
		p.pos++
	}
	return p.src[s:p.pos]
}

func (p *parser) peekWord() []byte {
	save := p.pos
	w := p.word()
	p.pos = save
	return w
}

func (p *parser) acceptWord(w string) bool {
	save := p.pos
	if string(p.word()) == w {
		return true
	}
	p.pos = save
	return false
}

// acceptIdent is acceptWord for expression keywords (identifier bytes only).
func (p *parser) acceptIdent(w string) bool {
	p.sp()
	e := p.pos
	for e < len(p.src) && isIdentByte(p.src[e]) {
		e++
	}
	if string(p.src[p.pos:e]) == w {
		p.pos = e
		return true
	}
	return false
}

// quoted reads a double-quoted string at the current position into p.str.
func (p *parser) quoted() []byte {
	start := p.pos
	p.pos++
	p.str = p.str[:0]
	for {
		if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
			p.failAt(start, "unterminated string: expected a closing '\"' on the same line")
		}
		c := p.src[p.pos]
		if c == '"' {
			p.pos++
			return p.str
		}
		if c != '\\' {
			p.str = append(p.str, c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.src) {
			p.failAt(start, "unterminated string")
		}
		e := p.src[p.pos+1]
		p.pos += 2
		switch e {
		case '"', '\\', '/':
			p.str = append(p.str, e)
		case 'n':
			p.str = append(p.str, '\n')
		case 't':
			p.str = append(p.str, '\t')
		case 'r':
			p.str = append(p.str, '\r')
		case 'x':
			v, ok := p.hex(2)
			if !ok {
				p.failAt(p.pos-2, "expected two hex digits after \\x in string")
			}
			p.str = append(p.str, byte(v))
		case 'u':
			v, ok := p.hex(4)
			if !ok {
				p.failAt(p.pos-2, "expected four hex digits after \\u in string")
			}
			p.str = utf8.AppendRune(p.str, rune(v))
		default:
			p.failAt(p.pos-2, "unknown escape \\%c in string (want \\\" \\\\ \\n \\t \\r \\xNN or \\uNNNN)", e)
		}
	}
}

func (p *parser) hex(n int) (uint64, bool) {
	if p.pos+n > len(p.src) {
		return 0, false
	}
	var v uint64
	for i := 0; i < n; i++ {
		d, ok := hexVal(p.src[p.pos+i])
		if !ok {
			return 0, false
		}
		v = v<<4 | uint64(d)
	}
	p.pos += n
	return v, true
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// nameTok reads a plain name or a quoted string (valid until the next
// quoted string is read).
func (p *parser) nameTok(what string) []byte {
	c := p.peek()
	if c == '"' && !p.eof() {
		return p.quoted()
	}
	w := p.word()
	if len(w) == 0 {
		p.fail("expected %s, found %s", what, p.found())
	}
	return w
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// integer reads a decimal int64.
func (p *parser) integer(what string) int64 {
	p.sp()
	start := p.pos
	neg := false
	if p.pos < len(p.src) && p.src[p.pos] == '-' {
		neg = true
		p.pos++
	}
	if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
		p.failAt(start, "expected %s (an integer), found %s", what, p.foundAt(start))
	}
	var u uint64
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		d := uint64(p.src[p.pos] - '0')
		if u > (math.MaxUint64-d)/10 {
			p.failAt(start, "integer %s is out of range", p.src[start:p.pos+1])
		}
		u = u*10 + d
		p.pos++
	}
	if p.pos < len(p.src) && (p.src[p.pos] == '.' || p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.failAt(start, "expected %s (an integer), found a float", what)
	}
	if neg {
		if u > 1<<63 {
			p.failAt(start, "integer %s is out of range", p.src[start:p.pos])
		}
		return -int64(u)
	}
	if u > math.MaxInt64 {
		p.failAt(start, "integer %s is out of range", p.src[start:p.pos])
	}
	return int64(u)
}

// number reads an integer or float literal; nan, inf and -inf are floats.
func (p *parser) number() (isFloat bool, i int64, f float64) {
	p.sp()
	start := p.pos
	if p.acceptWord("nan") {
		return true, 0, p.nanPayload()
	}
	if p.acceptWord("inf") {
		return true, 0, math.Inf(1)
	}
	if p.acceptWord("-inf") {
		return true, 0, math.Inf(-1)
	}
	e := p.pos
	if e < len(p.src) && p.src[e] == '-' {
		e++
	}
	if e >= len(p.src) || !isDigit(p.src[e]) {
		p.failAt(start, "expected a number, found %s", p.foundAt(start))
	}
	for e < len(p.src) && isDigit(p.src[e]) {
		e++
	}
	float := false
	if e < len(p.src) && p.src[e] == '.' {
		float = true
		e++
		for e < len(p.src) && isDigit(p.src[e]) {
			e++
		}
	}
	if e < len(p.src) && (p.src[e] == 'e' || p.src[e] == 'E') {
		float = true
		e++
		if e < len(p.src) && (p.src[e] == '+' || p.src[e] == '-') {
			e++
		}
		if e >= len(p.src) || !isDigit(p.src[e]) {
			p.failAt(start, "malformed float %q: expected exponent digits", p.src[start:e])
		}
		for e < len(p.src) && isDigit(p.src[e]) {
			e++
		}
	}
	if !float {
		return false, p.integer("a number"), 0
	}
	v, err := strconv.ParseFloat(string(p.src[start:e]), 64)
	if err != nil {
		p.failAt(start, "float %s is out of range", p.src[start:e])
	}
	p.pos = e
	return true, 0, v
}

// bigNumber consumes a JSON number literal that no int64 or float64 holds
// (NeedsNumberLiteral): such an attribute value is kept as its text. Any
// other literal is left for number.
func (p *parser) bigNumber() (string, bool) {
	e := p.pos
	for e < len(p.src) && (isDigit(p.src[e]) || strings.IndexByte("+-.eE", p.src[e]) >= 0) {
		e++
	}
	lit := string(p.src[p.pos:e])
	if !IsNumberLiteral(lit) || !NeedsNumberLiteral(lit) {
		return "", false
	}
	p.pos = e
	return lit, true
}

// nanPayload reads the optional (0x<bits>) after nan.
func (p *parser) nanPayload() float64 {
	if p.pos >= len(p.src) || p.src[p.pos] != '(' {
		return math.NaN()
	}
	start := p.pos
	p.pos++
	if p.pos+2 > len(p.src) || p.src[p.pos] != '0' || p.src[p.pos+1] != 'x' {
		p.failAt(start, "expected nan(0x<hex bits>), found %s", p.foundAt(start))
	}
	p.pos += 2
	var bits uint64
	n := 0
	for p.pos < len(p.src) && n < 16 {
		d, ok := hexVal(p.src[p.pos])
		if !ok {
			break
		}
		bits = bits<<4 | uint64(d)
		p.pos++
		n++
	}
	if n == 0 || p.pos >= len(p.src) || p.src[p.pos] != ')' {
		p.failAt(start, "expected nan(0x<up to 16 hex digits>)")
	}
	p.pos++
	f := math.Float64frombits(bits)
	if !math.IsNaN(f) {
		p.failAt(start, "nan(0x%x) is not a NaN bit pattern", bits)
	}
	return f
}

// ---- values, dictionaries, patterns ----

func (p *parser) value(depth int) Value {
	if depth > maxValueDepth {
		p.fail("values nested deeper than %d", maxValueDepth)
	}
	c := p.peek()
	switch {
	case p.eof():
	case c == '"':
		return String(string(p.quoted()))
	case c == '[':
		p.pos++
		var l []Value
		if p.accept(']') {
			return List()
		}
		for {
			l = append(l, p.value(depth+1))
			if p.accept(']') {
				return List(l...)
			}
			if !p.accept(',') {
				p.fail("expected ',' or ']' in a list, found %s", p.found())
			}
		}
	case c == '{':
		p.pos++
		return Object(p.fields(depth + 1)...)
	case c == '-' || isDigit(c):
		if lit, ok := p.bigNumber(); ok {
			return Number(lit)
		}
		isF, i, f := p.number()
		if isF {
			return Float(f)
		}
		return Int(i)
	default:
		switch string(p.peekWord()) {
		case "null":
			p.word()
			return Null()
		case "true":
			p.word()
			return Bool(true)
		case "false":
			p.word()
			return Bool(false)
		case "nan", "inf":
			_, _, f := p.number()
			return Float(f)
		}
	}
	p.fail("expected a value (null, true, false, a number, a \"string\", [list] or {object}), found %s", p.found())
	return Value{}
}

// fields reads "key=value, ...}" after a '{'.
func (p *parser) fields(depth int) []Field {
	if depth > maxValueDepth {
		p.fail("values nested deeper than %d", maxValueDepth)
	}
	var fs []Field
	if p.accept('}') {
		return fs
	}
	for {
		key := string(p.nameTok("a key"))
		p.expect('=')
		fs = append(fs, Field{Key: key, Val: p.value(depth + 1)})
		if p.accept('}') {
			return fs
		}
		if !p.accept(',') {
			p.fail("expected ',' or '}' in {key=value, ...}, found %s", p.found())
		}
	}
}

// balancedEnd returns the index after the '}' or ']' matching the bracket
// at start, on the same line, skipping strings; -1 when there is none.
func (p *parser) balancedEnd(start int) int {
	depth := 0
	src := p.src
	for i := start; i < len(src); i++ {
		c := src[i]
		if !bracketByte[c] {
			continue
		}
		switch c {
		case '\n':
			return -1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				} else if src[i] == '\n' {
					return -1
				}
			}
		}
	}
	return -1
}

// bracketByte marks the bytes balancedEnd looks at.
var bracketByte = [256]bool{'\n': true, '{': true, '[': true, '}': true, ']': true, '"': true}

// dict reads a {key=value, ...} attribute dictionary and interns it,
// remembering the result by source text.
func (p *parser) dict() AttrID {
	if p.peek() != '{' || p.eof() {
		p.fail("expected '{', found %s", p.found())
	}
	start := p.pos
	end := p.balancedEnd(start)
	if end > 0 {
		if id, ok := p.attrMemo[string(p.src[start:end])]; ok {
			p.pos = end
			return id
		}
	}
	p.pos++
	id := p.m.InternAttrs(p.fields(1))
	if end > 0 && p.pos == end {
		p.attrMemo[string(p.src[start:end])] = id
	}
	return id
}

func (p *parser) dictSet() AttrSet {
	p.expect('{')
	fs := p.fields(1)
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// pattern reads [[step,num],...] and interns it, remembering the result by
// source text.
func (p *parser) pattern() PatternID {
	if p.peek() != '[' || p.eof() {
		p.fail("expected '[', found %s", p.found())
	}
	start := p.pos
	end := p.balancedEnd(start)
	if end > 0 {
		if id, ok := p.patMemo[string(p.src[start:end])]; ok {
			p.pos = end
			return id
		}
	}
	id := p.parsePattern()
	if end > 0 && p.pos == end {
		p.patMemo[string(p.src[start:end])] = id
	}
	return id
}

func (p *parser) parsePattern() PatternID {
	p.expect('[')
	p.pat = p.pat[:0]
	if !p.accept(']') {
		for {
			p.expect('[')
			s := p.integer("a step")
			p.expect(',')
			n := p.integer("a num")
			p.expect(']')
			p.pat = append(p.pat, APPair{Step: s, Num: n})
			if p.accept(']') {
				break
			}
			if !p.accept(',') {
				p.fail("expected ',' or ']' in an access pattern, found %s", p.found())
			}
		}
	}
	return p.m.InternPattern(p.pat)
}

func (p *parser) intList(what string) []int64 {
	p.expect('[')
	var out []int64
	if p.accept(']') {
		return out
	}
	for {
		out = append(out, p.integer(what))
		if p.accept(']') {
			return out
		}
		if !p.accept(',') {
			p.fail("expected ',' or ']' in a list of %ss, found %s", what, p.found())
		}
	}
}

// ---- enumerations ----

// enum reads one of names, prefix(N) as the printer writes out-of-range
// values, or an alias.
func (p *parser) enum(what, prefix string, names []string, alias func(string) (int, bool)) int {
	p.sp()
	start := p.pos
	w := p.word()
	for i, n := range names {
		if string(w) == n {
			return i
		}
	}
	if string(w) == prefix && p.pos < len(p.src) && p.src[p.pos] == '(' {
		p.pos++
		v := p.integer(what + " number")
		p.expect(')')
		if v < 0 || v > 255 {
			p.failAt(start, "%s number %d is out of range 0..255", what, v)
		}
		return int(v)
	}
	if alias != nil {
		if v, ok := alias(string(w)); ok {
			return v
		}
	}
	p.failAt(start, "expected %s (one of %s), found %s", what, strings.Join(names, ", "), p.foundAt(start))
	return 0
}

func (p *parser) dtype() Dtype {
	p.sp()
	start := p.pos
	w := p.word()
	switch string(w) { // the common spellings, without a map lookup
	case "f32":
		return Float32
	case "bf16":
		return BFloat16
	case "f16":
		return Float16
	case "i32":
		return Int32
	}
	if d, ok := dtypeByName[string(w)]; ok {
		return d
	}
	if string(w) == "dtype" && p.pos < len(p.src) && p.src[p.pos] == '(' {
		p.pos++
		v := p.integer("a dtype number")
		p.expect(')')
		if v < 0 || v > 255 {
			p.failAt(start, "dtype number %d is out of range 0..255", v)
		}
		return Dtype(v)
	}
	p.failAt(start, "expected a dtype (f32, bf16, f16, i8, u8, i32, f8e4m3, ... or a BIR-JSON name such as float32), found %s", p.foundAt(start))
	return 0
}

func (p *parser) engine() Engine {
	return Engine(p.enum("an engine", "engine", engineNames[:], func(s string) (int, bool) {
		e, err := ParseEngine(s)
		return int(e), err == nil
	}))
}

// ---- axes ----

// axisName reads an axis name: an identifier or a quoted string, and an
// optional #k label right after it.
func (p *parser) axisName() (string, int) {
	p.sp()
	start := p.pos
	var name string
	switch {
	case p.eof():
		p.fail("expected an axis name, found end of file")
	case p.src[p.pos] == '"':
		name = string(p.quoted())
	case isIdentStart(p.src[p.pos]):
		e := p.pos
		for e < len(p.src) && isIdentByte(p.src[e]) {
			e++
		}
		if isExprKeyword(p.src[p.pos:e]) {
			p.fail("expected an axis name, found keyword %q (quote an axis named so)", p.src[p.pos:e])
		}
		name = string(p.src[p.pos:e])
		p.pos = e
	default:
		p.fail("expected an axis name, found %s", p.found())
	}
	k := 0
	if p.pos < len(p.src) && p.src[p.pos] == '#' {
		p.pos++
		v := p.integer("an axis label number")
		if v < 1 || v > math.MaxInt32 {
			p.failAt(start, "axis label #%d: want a declaration number from 1", v)
		}
		k = int(v)
	}
	return name, k
}

// declareAxis records a declaration of an axis named name (labelled k, or
// 0) and returns its axis.
func (p *parser) declareAxis(name string, k int, pos int) affine.Axis {
	n := p.axCount[name] + 1
	p.axCount[name] = n
	if k != 0 && k != n {
		p.failAt(pos, "axis label %s#%d does not match: this is declaration %d of an axis named %q (labels count the declarations of a name from the top of the text)", name, k, n, name)
	}
	key := axisKey{name, n}
	if d, ok := p.axByKey[key]; ok {
		d.declared = true
		return d.ax
	}
	ax := p.m.NewAxis(AxisInfo{Name: name, Loop: NoInst, Func: -1})
	p.axByKey[key] = &axisDef{ax: ax, declared: true}
	return ax
}

// axisBounds reads "in [lb, ub) [step s] [extra={...}]" into axis ax.
func (p *parser) axisBounds(ax affine.Axis) {
	if !p.acceptWord("in") {
		p.fail("expected \"in [lb, ub)\" after the axis name, found %s", p.found())
	}
	p.expect('[')
	lb := p.integer("a lower bound")
	p.expect(',')
	ub := p.integer("an upper bound")
	p.expect(')')
	stride := int64(1)
	if p.acceptWord("step") {
		stride = p.integer("a step")
	}
	info := &p.m.axes[ax]
	info.Lb, info.Ub, info.Stride = lb, ub, stride
	if p.acceptWord("extra") {
		p.expect('=')
		info.Extra = p.dictSet()
	}
}

// axisRef reads an axis reference in an expression or a carry.
func (p *parser) axisRef() affine.Axis {
	p.sp()
	start := p.pos
	name, k := p.axisName()
	if k == 0 {
		for i := len(p.scope) - 1; i >= 0; i-- {
			if p.scope[i].name == name {
				return p.scope[i].ax
			}
		}
		switch list := p.modAxes[name]; len(list) {
		case 0:
			p.failAt(start, "unknown axis %q: no enclosing loop or module-level axis line declares it", name)
		case 1:
			return list[0]
		default:
			p.failAt(start, "ambiguous axis %q: %d module-level axes have that name; write %s#k", name, len(list), name)
		}
	}
	key := axisKey{name, k}
	if d, ok := p.axByKey[key]; ok {
		return d.ax
	}
	ax := p.m.NewAxis(AxisInfo{Name: name, Loop: NoInst, Func: -1})
	p.axByKey[key] = &axisDef{ax: ax, refPos: start}
	return ax
}

// ---- affine expressions and predicates ----

func (p *parser) expr(depth int) affine.Expr {
	if depth > maxExprDepth {
		p.fail("affine expression nested deeper than %d", maxExprDepth)
	}
	e := p.term(depth)
	for {
		c := p.peek()
		switch {
		case c == '+':
			p.pos++
			e = affine.Add(e, p.term(depth))
		case c == '-' && !(p.pos+1 < len(p.src) && p.src[p.pos+1] == '>'):
			p.pos++
			e = affine.Sub(e, p.term(depth))
		default:
			return e
		}
	}
}

func (p *parser) term(depth int) affine.Expr {
	e := p.unary(depth)
	for {
		switch {
		case p.peek() == '*':
			start := p.pos
			p.pos++
			f := p.unary(depth)
			switch {
			case f.IsConst():
				e = affine.Scale(e, f.Const)
			case e.IsConst():
				e = affine.Scale(f, e.Const)
			default:
				p.failAt(start, "product of two non-constant expressions is not quasi-affine")
			}
		case p.acceptIdent("floordiv"):
			e = affine.FloorDiv(e, p.divisor())
		case p.acceptIdent("mod"):
			e = affine.Mod(e, p.divisor())
		default:
			return e
		}
	}
}

func (p *parser) divisor() int64 {
	p.sp()
	start := p.pos
	d := p.integer("a divisor")
	if d <= 0 {
		p.failAt(start, "divisor must be a positive integer constant, found %d", d)
	}
	return d
}

// exprInt reads an unsigned integer literal of an expression; 2^63 reads
// as math.MinInt64 so that the printer's "- 9223372036854775808" (the
// negation of the smallest int64) reads back.
func (p *parser) exprInt() int64 {
	start := p.pos
	var u uint64
	for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
		d := uint64(p.src[p.pos] - '0')
		if u > (math.MaxUint64-d)/10 {
			p.failAt(start, "integer is out of range")
		}
		u = u*10 + d
		p.pos++
	}
	if u > 1<<63 {
		p.failAt(start, "integer %s is out of range", p.src[start:p.pos])
	}
	return int64(u)
}

func (p *parser) unary(depth int) affine.Expr {
	c := p.peek()
	switch {
	case p.eof():
	case c == '-':
		p.pos++
		if depth+1 > maxExprDepth {
			p.fail("affine expression nested deeper than %d", maxExprDepth)
		}
		return affine.Scale(p.unary(depth+1), -1)
	case c == '(':
		p.pos++
		e := p.expr(depth + 1)
		p.expect(')')
		return e
	case isDigit(c):
		return affine.Const(p.exprInt())
	case c == '"' || isIdentStart(c):
		return affine.Var(p.axisRef())
	}
	p.fail("expected an integer, an axis name or '(' in an affine expression, found %s", p.found())
	return affine.Expr{}
}

// pred reads "true", "false", or comparisons joined by "and".
func (p *parser) pred() affine.Pred {
	if p.acceptIdent("true") {
		return affine.True()
	}
	if p.acceptIdent("false") {
		return affine.Pred{False: true}
	}
	var parts []affine.Pred
	for {
		a := p.expr(0)
		p.sp()
		start := p.pos
		op := ""
		for _, o := range []string{">=", "<=", "==", "!=", ">", "<"} {
			if strings.HasPrefix(string(p.src[p.pos:min(p.pos+2, len(p.src))]), o) {
				op = o
				break
			}
		}
		if op == "" {
			p.failAt(start, "expected a comparison (>=, >, <=, <, ==, !=), found %s", p.found())
		}
		p.pos += len(op)
		b := p.expr(0)
		switch op {
		case ">=":
			parts = append(parts, affine.GE(a, b))
		case ">":
			parts = append(parts, affine.GT(a, b))
		case "<=":
			parts = append(parts, affine.LE(a, b))
		case "<":
			parts = append(parts, affine.LT(a, b))
		case "==":
			parts = append(parts, affine.EQ(a, b))
		default:
			parts = append(parts, affine.NE(a, b))
		}
		if !p.acceptIdent("and") {
			return affine.And(parts...)
		}
	}
}

// ---- module ----

func (p *parser) parseModule() {
	p.m = NewModule("")
	p.ctxInst = -1
	p.axByKey = map[axisKey]*axisDef{}
	p.axCount = map[string]int{}
	p.modAxes = map[string][]affine.Axis{}
	p.attrMemo = map[string]AttrID{}
	p.patMemo = map[string]PatternID{}
	p.blank()
	if p.acceptWord("module") {
		p.moduleProps()
		p.eol()
	}
	for {
		p.blank()
		if p.eof() {
			break
		}
		start := p.pos
		switch string(p.word()) {
		case "option":
			p.option()
		case "axis":
			p.axisLine()
		case "func":
			p.function()
		default:
			p.failAt(start, "expected option, axis or func, found %s", p.foundAt(start))
		}
	}
	for _, af := range p.axFuncs {
		f := p.m.Func(af.name)
		if f == nil {
			p.failAt(af.pos, "axis %s: func=@%s: no such function", p.m.axes[af.ax].Name, af.name)
		}
		p.m.axes[af.ax].Func = f.index
	}
	first := -1
	var firstKey axisKey
	for key, d := range p.axByKey {
		if !d.declared && (first < 0 || d.refPos < first) {
			first, firstKey = d.refPos, key
		}
	}
	if first >= 0 {
		p.failAt(first, "axis %s#%d is referenced but only %d axes named %q are declared", firstKey.name, firstKey.k, p.axCount[firstKey.name], firstKey.name)
	}
}

// props reads "key=value" and bare-flag properties until the end of the
// line (or stop, when stop returns true), calling set for each and
// rejecting duplicates.
func (p *parser) props(stop func() bool, set func(key string, pos int)) {
	seen := map[string]bool{}
	for !p.atEOL() && (stop == nil || !stop()) {
		p.sp()
		pos := p.pos
		key := p.word()
		if len(key) == 0 {
			p.fail("expected a property (key=value or a flag), found %s", p.found())
		}
		if seen[string(key)] {
			p.failAt(pos, "property %s given twice", key)
		}
		seen[string(key)] = true
		set(string(key), pos)
	}
}

func (p *parser) moduleProps() {
	m := p.m
	p.props(nil, func(key string, pos int) {
		switch key {
		case "arch":
			p.expect('=')
			m.Arch = string(p.nameTok("an arch name"))
		case "version":
			p.expect('=')
			m.Version = p.integer("a version")
		case "core":
			p.expect('=')
			m.NeuronCoreID, m.HasCoreID = p.integer("a neuron core id"), true
		case "artifact_dir":
			p.expect('=')
			m.ArtifactDir = p.stringLit("an artifact directory")
		case "max_instruction_limit":
			p.expect('=')
			m.Config.MaxInstructionLimit = p.integer("an instruction limit")
		case "attributes":
			p.expect('=')
			m.ModuleAttrs = p.dictSet()
		case "extra":
			p.expect('=')
			m.Extra = p.dictSet()
		default:
			p.failAt(pos, "unknown module property %q (want arch, version, core, artifact_dir, max_instruction_limit, attributes, extra)", key)
		}
	})
}

func (p *parser) stringLit(what string) string {
	if p.peek() != '"' || p.eof() {
		p.fail("expected %s (a \"string\"), found %s", what, p.found())
	}
	return string(p.quoted())
}

func (p *parser) option() {
	p.sp()
	start := p.pos
	key := string(p.nameTok("an option name"))
	p.expect('=')
	val := p.stringLit("an option value")
	if _, dup := p.m.Config.Options[key]; dup {
		p.failAt(start, "option %q given twice", key)
	}
	p.m.Config.Options[key] = val
	p.eol()
}

func (p *parser) axisLine() {
	p.sp()
	start := p.pos
	name, k := p.axisName()
	ax := p.declareAxis(name, k, start)
	p.modAxes[name] = append(p.modAxes[name], ax)
	p.axisBounds(ax)
	p.props(nil, func(key string, pos int) {
		switch key {
		case "func":
			p.expect('=')
			pos := p.pos
			p.expect('@')
			p.axFuncs = append(p.axFuncs, axisFunc{ax: ax, pos: pos, name: string(p.nameTok("a function name"))})
		case "extra":
			if p.m.axes[ax].Extra != nil {
				p.failAt(pos, "property extra given twice")
			}
			p.expect('=')
			p.m.axes[ax].Extra = p.dictSet()
		default:
			p.failAt(pos, "unknown axis property %q (want func, extra)", key)
		}
	})
	p.eol()
}

// ---- functions ----

// reserve grows the function's tables (and the symbol arena) for the
// instructions its text can hold: lines up to the next "}" in column 0,
// operands about the number of '%' (access patterns) plus a quarter per
// line. It spares the repeated growth copies of a large function.
func (p *parser) reserve() {
	rest := p.src[p.pos:]
	// One pass in chunks: the end of the function ("\n}"), its lines, its
	// '%' sigils and its location declarations ("loc %", one per line). Each chunk scanned ahead of the cursor is released
	// again (ParseReleasing), so the look-ahead does not bring the whole
	// function into memory at once.
	const chunk = 16 << 20
	end, lines, pct, locs := len(rest), 0, 0, 0
	for off := 0; off < len(rest); off += chunk {
		hi := min(off+chunk, len(rest))
		// The pattern may straddle the chunk boundary: search one byte back.
		lo := max(off-1, 0)
		if i := bytes.Index(rest[lo:hi], []byte("\n}")); i >= 0 {
			end = lo + i
		}
		seg := rest[off:min(hi, end)]
		lines += bytes.Count(seg, []byte{'\n'})
		pct += bytes.Count(seg, []byte{'%'})
		locs += bytes.Count(seg, []byte("loc %"))
		if p.release != nil {
			p.release(p.pos+off, p.pos+hi)
		}
		if end < len(rest) {
			break
		}
	}
	span := rest[:end]
	if lines < 1024 {
		return
	}
	// A fully unrolled kernel declares almost a location per instruction
	// (a block tensor's per-block locations): they are reserved in the
	// location table and left out of the instruction and operand
	// estimates, which they would otherwise nearly double.
	locs = min(locs, lines, pct)
	insts := lines - locs
	if locs >= 1024 {
		p.f.ReserveTensors(0, locs)
	}
	sigils := pct - locs + insts/4 // access patterns, plus room for immediates and registers
	p.f.Reserve(insts, sigils)
	p.resvLines = insts
	p.m.syms.data = slices.Grow(p.m.syms.data, len(span)/8)
	p.m.syms.start = slices.Grow(p.m.syms.start, insts)
}

func (p *parser) function() {
	p.sp()
	start := p.pos
	p.expect('@')
	name := string(p.nameTok("a function name"))
	f, err := p.m.NewFunction(name)
	if err != nil {
		p.failAt(start, "function @%s is defined twice", name)
	}
	p.f = f
	p.ctxInst, p.ctxDecl = -1, ""
	p.curTensor = NoTensor
	p.pend = p.pend[:0]
	p.firstInst = len(f.insts)
	p.deadLocs, p.deadTensors, p.deadInsts = nil, nil, nil
	p.props(func() bool { return p.peek() == '{' }, func(key string, pos int) {
		switch key {
		case "kind":
			p.expect('=')
			switch w := p.peekWord(); string(w) {
			case "normal":
				p.word()
				f.Kind = FuncNormal
			case "nki":
				p.word()
				f.Kind = FuncNKI
			default:
				v := p.integer("a function kind (normal, nki or a number)")
				if v < 0 || v > 255 {
					p.failAt(pos, "function kind %d is out of range 0..255", v)
				}
				f.Kind = FuncKind(v)
			}
		case "attributes":
			p.expect('=')
			p.expect('[')
			if !p.accept(']') {
				for {
					f.Attributes = append(f.Attributes, string(p.nameTok("a function attribute")))
					if p.accept(']') {
						break
					}
					if !p.accept(',') {
						p.fail("expected ',' or ']' in the attribute list, found %s", p.found())
					}
				}
			}
		case "extra":
			p.expect('=')
			f.Extra = p.dictSet()
		default:
			p.failAt(pos, "unknown function property %q (want kind, attributes, extra)", key)
		}
	})
	p.expect('{')
	p.eol()
	p.reserve()
	// Declarations, then the top-level blocks.
	for {
		p.blank()
		if p.eof() {
			p.fail("expected '}' closing function @%s, found end of file", name)
		}
		lineStart := p.pos
		if p.src[p.pos] != '"' {
			w := p.word()
			if k := string(w); k == "tensor" || k == "loc" || k == "reg" {
				if c := p.peek(); c != ':' && c != '=' {
					p.ctxInst = -1
					switch k {
					case "tensor":
						p.tensorDecl()
					case "loc":
						p.locDecl()
					default:
						p.regDecl()
					}
					p.eol()
					continue
				}
			}
		}
		p.pos = lineStart
		break
	}
	p.ctxDecl = ""
	p.body(NoInst, 0)
	p.eol()
	// A table covers every instruction slot (the ones without an entry
	// have none), as the BIR-JSON reader's.
	if f := p.f; f.Sched != nil {
		f.Sched.Grow(f.NumInstSlots())
	}
	if f := p.f; f.Sync != nil {
		f.Sync.Grow(f.NumInstSlots())
	}
	p.resolveDeps()
	p.f = nil
	p.ctxInst = -1
}

func (p *parser) tensorDecl() {
	f := p.f
	p.expect('%')
	name := string(p.nameTok("a tensor name"))
	p.ctxDecl = "tensor %" + name
	p.expect(':')
	t := Tensor{Name: name}
	t.Dtype = p.dtype()
	t.Shape = p.intList("dimension")
	if len(t.Shape) == 0 {
		t.Shape = nil
	}
	p.props(nil, func(key string, pos int) {
		switch key {
		case "kind":
			p.expect('=')
			t.Kind = TensorKind(p.enum("a tensor kind", "tensorkind", tensorKindNames[:], nil))
		case "class":
			p.expect('=')
			t.Class = TensorClass(p.enum("a tensor class", "tensorclass", tensorClassNames[:], nil))
		case "addr_space":
			p.expect('=')
			switch string(p.peekWord()) {
			case "Shared":
				p.word()
				t.AddrSpace = AddrShared
			case "Local":
				p.word()
				t.AddrSpace = AddrLocal
			case "null":
				p.word()
				t.AddrSpace = AddrNone
			default:
				v := p.integer("an address space (Shared, Local, null or a number)")
				if v < 0 || v > 255 {
					p.failAt(pos, "address space %d is out of range 0..255", v)
				}
				t.AddrSpace = AddrSpace(v)
			}
		case "partition_dim":
			p.expect('=')
			t.PartitionDim = p.integer("a partition dim")
		case "file":
			p.expect('=')
			t.File = p.stringLit("a file name")
		case "no_spill":
			t.NoSpill = true
		case "volatile":
			t.Volatile = true
		case "virtual":
			t.Virtual = true
		case "blocks":
			p.expect('=')
			t.IsBlock, t.NBlocks = true, p.integer("a block count")
		case "nblocks":
			p.expect('=')
			t.NBlocks = p.integer("a block count")
		case "split_shape":
			p.expect('=')
			p.expect('[')
			t.SplitShape = []bool{}
			if !p.accept(']') {
				for {
					switch {
					case p.acceptWord("true"):
						t.SplitShape = append(t.SplitShape, true)
					case p.acceptWord("false"):
						t.SplitShape = append(t.SplitShape, false)
					default:
						p.fail("expected true or false in split_shape, found %s", p.found())
					}
					if p.accept(']') {
						break
					}
					if !p.accept(',') {
						p.fail("expected ',' or ']' in split_shape, found %s", p.found())
					}
				}
			}
		case "shrink_dim":
			p.expect('=')
			t.ShrinkDim = p.integer("a shrink dim")
		case "live_n":
			p.expect('=')
			t.LiveN = p.integer("a live block count")
		case "extra":
			p.expect('=')
			t.Extra = p.dictSet()
		default:
			p.failAt(pos, "unknown tensor property %q (want kind, class, addr_space, partition_dim, file, no_spill, volatile, virtual, blocks, nblocks, split_shape, shrink_dim, live_n, extra)", key)
		}
	})
	id, err := f.AddTensor(t)
	if err != nil {
		p.fail("tensor %%%s is declared twice", name)
	}
	p.curTensor, p.locK = id, 0
}

func (p *parser) locDecl() {
	f := p.f
	p.sp()
	start := p.pos
	p.expect('%')
	name := string(p.nameTok("a location name"))
	p.ctxDecl = "loc %" + name
	if p.curTensor == NoTensor {
		p.failAt(start, "a loc line must follow the tensor line it belongs to")
	}
	p.expect(':')
	l := MemLoc{Name: name, TensorIdx: p.locK}
	l.Type = MemoryType(p.enum("a memory type", "memtype", memTypeNames[:], func(s string) (int, bool) {
		t, err := ParseMemoryType(s)
		return int(t), err == nil
	}))
	l.Partitions = p.integer("a partition count")
	p.sp()
	if p.eof() || p.src[p.pos] != 'x' {
		p.fail("expected 'x' between partitions and bytes per partition (128x8192), found %s", p.found())
	}
	p.pos++
	l.Bytes = p.integer("bytes per partition")
	p.props(nil, func(key string, pos int) {
		switch key {
		case "dims":
			p.expect('=')
			l.RawDims = p.intList("dim")
			if l.RawDims == nil {
				l.RawDims = []int64{}
			}
		case "addr":
			p.expect('=')
			l.Addr = p.integer("an address")
		case "bank":
			p.expect('=')
			l.Bank = p.integer("a bank")
		case "base":
			p.expect('=')
			l.Base = p.integer("a base partition")
		case "allocated":
			l.Allocated = true
		case "pinned":
			l.Pinned = true
		case "tensor_id":
			p.expect('=')
			l.TensorIdx = p.integer("a tensor id")
		case "output_kind":
			p.expect('=')
			l.OutputKind = p.integer("an output kind")
		case "extra":
			p.expect('=')
			l.Extra = p.dictSet()
		default:
			p.failAt(pos, "unknown location property %q (want dims, addr, bank, base, allocated, pinned, tensor_id, output_kind, extra)", key)
		}
	})
	if _, err := f.AddLoc(p.curTensor, l); err != nil {
		p.failAt(start, "location %%%s is declared twice", name)
	}
	p.locK++
}

func (p *parser) regDecl() {
	p.sp()
	start := p.pos
	p.expect('$')
	name := p.nameTok("a register name")
	if _, dup := p.f.regByName[string(name)]; dup {
		p.failAt(start, "register $%s is declared twice", name)
	}
	p.f.RegByName(string(name))
}

// body reads label lines and instructions until the '}' that closes the
// function or loop (consumed, not its end of line).
func (p *parser) body(parent InstID, depth int) {
	f := p.f
	cur := NoBlock
	for {
		p.blank()
		if p.eof() {
			p.fail("expected '}', found end of file")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			return
		}
		start := p.pos
		p.ctxInst = -1
		name := p.nameTok("a block label, an instruction or '}'")
		switch p.peek() {
		case ':':
			p.pos++
			cur = f.NewBlock(string(name), parent)
			if parent == NoInst && p.resvLines > 0 {
				f.blocks[cur].Insts = make([]InstID, 0, p.resvLines)
				p.resvLines = 0
			}
			if p.acceptWord("extra") {
				p.expect('=')
				f.blocks[cur].Extra = p.dictSet()
			}
			p.eol()
		case '=':
			if cur == NoBlock {
				p.failAt(start, "instruction %s is outside a block: start the body with a label line such as \"Block1:\"", name)
			}
			p.pos++
			p.instruction(p.sym(start, name), cur, depth)
		default:
			if p.eof() {
				p.fail("expected ':' after a block label or '=' after an instruction name, found end of file")
			}
			p.fail("expected ':' after a block label or '=' after an instruction name, found %s", p.found())
		}
	}
}

// startsOperand reports whether an operand begins at the current position.
func (p *parser) startsOperand() bool {
	c := p.peek()
	switch {
	case p.eof():
		return false
	case c == '%' || c == '$' || c == '[' || isDigit(c):
		return true
	case c == '-':
		return !(p.pos+1 < len(p.src) && p.src[p.pos+1] == '>')
	}
	switch string(p.peekWord()) {
	case "nan", "inf", "symimm", "imm_array":
		return true
	}
	return false
}

func (p *parser) instruction(name Sym, blk BlockID, depth int) {
	f, m := p.f, p.m
	p.ctxInst = name
	opName := p.nameTok("an opcode")
	var op Opcode
	if in, ok := opByName[string(opName)]; ok {
		op = in.Op
	} else if o, ok := m.unknownOpIndex[string(opName)]; ok {
		op = o
	} else {
		op = m.UnknownOpcode(string(opName))
	}
	eng := EngUnassigned
	save := p.pos
	if p.acceptWord("on") {
		if op.IsLoop() && string(p.peekWord()) == "in" {
			p.pos = save
		} else {
			eng = p.engine()
		}
	}
	// A loop's axis: NAME in [lb, ub).
	hasAxis := false
	var ax affine.Axis
	var axName string
	if op.IsLoop() && p.axisAhead() {
		axPos := p.pos
		n, k := p.axisName()
		hasAxis, axName = true, n
		ax = p.declareAxis(n, k, axPos)
		p.axisBounds(ax)
	}
	// Operands.
	p.ops = p.ops[:0]
	if p.startsOperand() {
		p.ops = append(p.ops, p.operand())
		for p.accept(',') {
			p.ops = append(p.ops, p.operand())
		}
	}
	nIns := len(p.ops)
	if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '>' {
		p.pos += 2
		p.ops = append(p.ops, p.operand())
		for p.accept(',') {
			p.ops = append(p.ops, p.operand())
		}
	}
	if nIns > 0xffff || len(p.ops)-nIns > 0xffff {
		p.fail("more than 65535 source or destination operands")
	}
	var attrs AttrID
	if p.bodyOpens() && !hasAxis {
		p.fail("only a loop with an axis (Loop NAME in [lb, ub)) has a body; an attribute dictionary {key=value} ends on its line")
	}
	if p.peek() == '{' && !p.eof() && !p.bodyOpens() {
		attrs = p.dict()
	}
	var pred PredID
	if p.acceptWord("if") {
		p.expect('(')
		pred = m.InternPred(p.pred())
		p.expect(')')
	}
	id := f.NewInstSym(op, name, eng, p.ops[:nIns], p.ops[nIns:], attrs)
	f.insts[id].Pred = pred
	if p.acceptWord("deps") {
		p.depList(id)
	}
	if p.acceptWord("loc") {
		f.insts[id].Pos = p.sourcePos()
	}
	if p.acceptWord("sched") {
		p.schedEntry(id)
	}
	if p.acceptWord("sync") {
		p.syncEntry(id)
	}
	f.Append(blk, id)
	if !hasAxis {
		p.eol()
		return
	}
	f.insts[id].Aux = int32(len(f.loops))
	f.loops = append(f.loops, LoopInfo{Axis: ax})
	info := &m.axes[ax]
	info.Loop, info.Func = id, f.index
	if !p.bodyOpens() {
		p.fail("expected '{' and a new line opening the body of loop %s, found %s", m.Str(name), p.found())
	}
	p.expect('{')
	p.eol()
	if depth+1 > maxLoopDepth {
		p.fail("loops nested deeper than %d", maxLoopDepth)
	}
	p.scope = append(p.scope, scopeEntry{axName, ax})
	p.body(id, depth+1)
	p.scope = p.scope[:len(p.scope)-1]
	p.ctxInst = name
	p.eol()
}

// schedEntry reads the rest of sched(start=S, end=E, queue=Q, dge=D,
// order=O) after the word sched: instruction id's entry in its function's
// schedule table (created by the first one; sched() creates it with no
// entry). Every field is optional and at most once; start and end go
// together, end >= start.
func (p *parser) schedEntry(id InstID) {
	f := p.f
	if f.Sched == nil {
		f.Sched = NewSchedule(0)
	}
	f.Sched.Grow(int(id) + 1)
	t := f.Sched
	p.expect('(')
	if p.accept(')') {
		return
	}
	seen := map[string]bool{}
	var start, end int64 = -1, -1
	for {
		p.sp()
		kpos := p.pos
		key := string(p.word())
		if seen[key] {
			p.failAt(kpos, "sched: %s given twice", key)
		}
		seen[key] = true
		p.expect('=')
		p.sp()
		vpos := p.pos
		v := p.integer("a schedule field")
		bad := func(limit int64) {
			if v < 0 || v > limit {
				p.failAt(vpos, "sched: %s=%d: want 0..%d", key, v, limit)
			}
		}
		switch key {
		case "start":
			bad(math.MaxInt64)
			start = v
		case "end":
			bad(math.MaxInt64)
			end = v
		case "queue":
			bad(math.MaxInt16)
			t.Queue[id] = int16(v)
		case "dge":
			bad(math.MaxInt8)
			t.DGE[id] = int8(v)
		case "order":
			bad(math.MaxInt32)
			t.Order[id] = int32(v)
		case "period":
			bad(math.MaxInt64)
			t.SetPeriod(id, v)
		default:
			p.failAt(kpos, "sched: unknown field %q (want start, end, queue, dge, order, period)", key)
		}
		if p.accept(')') {
			break
		}
		if !p.accept(',') {
			p.fail("expected ',' or ')' in sched(...), found %s", p.found())
		}
	}
	if (start < 0) != (end < 0) || end < start {
		p.fail("sched: start=%d, end=%d: want both, end >= start", start, end)
	}
	t.Start[id], t.End[id] = start, end
}

// syncEntry reads the rest of sync(trigger=ENGINE, waits=[[S, V], ...],
// updates=[[S, V], ...]) after the word sync: instruction id's entry in
// its function's synchronization table (created by the first one; sync()
// creates it with no entry). Every part is optional and at most once;
// semaphores are >= 0, values 32-bit.
func (p *parser) syncEntry(id InstID) {
	f := p.f
	if f.Sync == nil {
		f.Sync = NewSync(0)
	}
	f.Sync.Grow(int(id) + 1)
	s := f.Sync
	p.expect('(')
	if p.accept(')') {
		return
	}
	seen := map[string]bool{}
	for {
		p.sp()
		kpos := p.pos
		key := string(p.word())
		if seen[key] {
			p.failAt(kpos, "sync: %s given twice", key)
		}
		seen[key] = true
		p.expect('=')
		switch key {
		case "trigger":
			p.sp()
			s.Trigger[id] = p.engine()
		case "waits", "updates":
			cmds, iters := p.semCmds(key)
			if key == "waits" {
				s.SetWaitsIter(id, cmds, iters)
			} else {
				if iters != nil {
					p.fail("sync: updates: an update adds a constant (want [S, V] with V an integer)")
				}
				s.SetUpdates(id, cmds)
			}
		default:
			p.failAt(kpos, "sync: unknown part %q (want trigger, waits, updates)", key)
		}
		if p.accept(')') {
			return
		}
		if !p.accept(',') {
			p.fail("expected ',' or ')' in sync(...), found %s", p.found())
		}
	}
}

// semCmds reads [[S, V], ...], semaphore commands. V is an integer or,
// for a wait in a loop body, an affine expression over the enclosing
// loops' axes: its constant is the command's value and the rest its
// iteration term (iters is nil when no command has one).
func (p *parser) semCmds(what string) ([]SemCmd, []ExprID) {
	p.expect('[')
	var out []SemCmd
	var iters []ExprID
	if p.accept(']') {
		return out, iters
	}
	for {
		if len(out) >= MaxSemCmds {
			p.fail("sync: %s: more than %d commands", what, MaxSemCmds)
		}
		p.expect('[')
		p.sp()
		spos := p.pos
		sem := p.integer("a semaphore")
		if sem < 0 || sem > math.MaxInt32 {
			p.failAt(spos, "sync: %s: semaphore %d: want 0..%d", what, sem, math.MaxInt32)
		}
		p.expect(',')
		p.sp()
		vpos := p.pos
		e := p.expr(0)
		v := e.Const
		if v < math.MinInt32 || v > math.MaxInt32 {
			p.failAt(vpos, "sync: %s: value %d: want a 32-bit integer", what, v)
		}
		p.sp()
		p.expect(']')
		out = append(out, SemCmd{Sem: int32(sem), Value: int32(v)})
		if !e.IsConst() {
			if iters == nil {
				iters = make([]ExprID, len(out)-1, len(out))
			}
			iters = append(iters, p.m.InternExpr(affine.AddConst(e, -e.Const)))
		} else if iters != nil {
			iters = append(iters, 0)
		}
		if p.accept(']') {
			return out, iters
		}
		if !p.accept(',') {
			p.fail("expected ',' or ']' in a list of semaphore commands, found %s", p.found())
		}
	}
}

// sourcePos reads the rest of loc("FILE":LINE:COL [to ENDLINE:ENDCOL])
// after the word loc and interns it. Positions repeat (every instruction
// unrolled from one kernel statement has the same), so the source text is
// memoized: a known position costs one map lookup and no allocation.
func (p *parser) sourcePos() PosID {
	p.sp()
	start := p.pos
	p.expect('(')
	p.sp()
	if p.peek() != '"' || p.eof() {
		p.fail("expected a source file name (a \"string\"), found %s", p.found())
	}
	file := p.quoted() // p.str: valid until the next quoted string
	p.expect(':')
	line := p.posNumber("a source line", 1)
	p.expect(':')
	col := p.posNumber("a source column", 0)
	var endLine, endCol int32
	if p.acceptWord("to") {
		endLine = p.posNumber("an end line", 0)
		p.expect(':')
		endCol = p.posNumber("an end column", 0)
	}
	p.expect(')')
	key := p.src[start:p.pos]
	if id, ok := p.posMemo[string(key)]; ok {
		return id
	}
	id := p.m.InternPos(Pos{File: string(file), Line: line, Col: col, EndLine: endLine, EndCol: endCol})
	if p.posMemo == nil {
		p.posMemo = map[string]PosID{}
	}
	p.posMemo[string(key)] = id
	return id
}

// posNumber reads a position number in [lo, 2^31).
func (p *parser) posNumber(what string, lo int64) int32 {
	p.sp()
	start := p.pos
	v := p.integer(what)
	if v < lo || v > math.MaxInt32 {
		p.failAt(start, "%s must be in [%d, %d], have %d", what, lo, math.MaxInt32, v)
	}
	return int32(v)
}

// axisAhead reports whether a loop header's axis (a name, an optional #k,
// then "in") stands at the current position, without consuming anything.
func (p *parser) axisAhead() bool {
	c := p.peek()
	if p.eof() {
		return false
	}
	e := p.pos
	switch {
	case c == '"':
		e++
		for e < len(p.src) && p.src[e] != '"' && p.src[e] != '\n' {
			if p.src[e] == '\\' {
				e++
			}
			e++
		}
		e++
	case isIdentStart(c):
		for e < len(p.src) && isIdentByte(p.src[e]) {
			e++
		}
		if isExprKeyword(p.src[p.pos:e]) {
			return false
		}
	default:
		return false
	}
	if e < len(p.src) && p.src[e] == '#' {
		e++
		for e < len(p.src) && isDigit(p.src[e]) {
			e++
		}
	}
	save := p.pos
	p.pos = min(e, len(p.src))
	ok := string(p.peekWord()) == "in"
	p.pos = save
	return ok
}

// bodyOpens reports whether a '{' followed by the end of the line (a loop
// body) stands at the current position.
func (p *parser) bodyOpens() bool {
	if p.peek() != '{' || p.eof() {
		return false
	}
	save := p.pos
	p.pos++
	ok := p.atEOL()
	p.pos = save
	return ok
}

func (p *parser) operand() Operand {
	m := p.m
	var o Operand
	p.sp()
	start := p.pos
	implied := uint8(0)
	switch c := p.peek(); {
	case p.eof():
		p.fail("expected an operand, found end of file")
	case c == '%':
		p.pos++
		dangling := p.pos < len(p.src) && p.src[p.pos] == '?'
		if dangling {
			p.pos++
		}
		p.name = append(p.name[:0], p.nameTok("a location or tensor name")...)
		if p.pos >= len(p.src) || p.src[p.pos] != '[' {
			p.fail("expected '[' right after %%%s (an access pattern), found %s", p.name, p.found())
		}
		p.pos++
		switch string(p.peekWord()) {
		case "block":
			o.Kind = OpdSymAP
			o.Ref = int32(p.tensorNamed(start, dangling))
		case "reg":
			o.Kind = OpdRegAP
			o.Ref = int32(p.tensorNamed(start, dangling))
		default:
			o.Kind = OpdPhysAP
			o.Ref = int32(p.locNamed(start, dangling))
		}
		p.apFields(&o)
	case c == '$':
		p.pos++
		o.Kind = OpdRegister
		o.Ref = int32(p.regNamed())
	case c == '[':
		o.Kind = OpdImmArray
		v := p.value(1)
		o.Ref = int32(m.InternAttrs(AttrSet{{Key: "value_array", Val: v}}))
	case c == '-' || isDigit(c):
		o = p.imm()
		implied = OpdFlagFloat
	default:
		switch string(p.peekWord()) {
		case "nan", "inf":
			o = p.imm()
			implied = OpdFlagFloat
		case "symimm":
			p.word()
			o.Kind = OpdSymImm
			if p.pos >= len(p.src) || p.src[p.pos] != '(' {
				p.fail("expected '(' right after symimm, found %s", p.found())
			}
			p.pos++
			o.Expr = m.InternExpr(p.expr(0))
			p.expect(',')
			if p.peek() == '[' {
				o.Ref = int32(m.InternAttrs(AttrSet{{Key: "value_list", Val: p.value(1)}}))
			} else {
				o.Ref = int32(p.dict())
			}
			p.expect(')')
		case "imm_array":
			p.word()
			o.Kind = OpdImmArray
			o.Ref = int32(p.dict())
		default:
			p.fail("expected an operand (%%loc[...], %%tensor[block=...], %%tensor[reg=...], $reg, a number, [array] or symimm(...)), found %s", p.found())
		}
	}
	o.Dtype = p.dtype()
	if p.acceptWord("flags") {
		p.expect('=')
		pos := p.pos
		v := p.integer("operand flags")
		if v < 0 || v > 255 {
			p.failAt(pos, "operand flags %d are out of range 0..255", v)
		}
		if uint8(v)&implied != 0 {
			p.failAt(pos, "operand flags %d: bit %d (float) is given by the immediate's syntax (write 1.0, not 1)", v, implied)
		}
		o.Flags |= uint8(v)
	}
	if p.acceptWord("extra") {
		p.expect('=')
		o.Extra = p.dict()
	}
	return o
}

func (p *parser) imm() Operand {
	isF, i, fv := p.number()
	if isF {
		return Operand{Kind: OpdImm, Offset: float64bits(fv), Flags: OpdFlagFloat}
	}
	return Operand{Kind: OpdImm, Offset: i}
}

// apFields reads the key=value list of an access pattern up to ']':
// offset and ap for a physical one; block (first), offset (an expression)
// and ap for a symbolic one; reg (first) and ap for a register one.
func (p *parser) apFields(o *Operand) {
	seen := 0
	first := true
	for !p.accept(']') {
		if !first {
			if !p.accept(',') {
				p.fail("expected ',' or ']' in an access pattern, found %s", p.found())
			}
		}
		p.sp()
		pos := p.pos
		key := p.word()
		bit := 0
		switch string(key) {
		case "offset":
			bit = 1
		case "ap":
			bit = 2
		case "block":
			bit = 4
		case "reg":
			bit = 8
		}
		ok := false
		switch o.Kind {
		case OpdPhysAP:
			ok = bit == 1 || bit == 2
		case OpdSymAP:
			ok = bit != 0 && (bit == 4) == first && bit != 8
		case OpdRegAP:
			ok = (bit == 8) == first && (bit == 8 || bit == 2)
		}
		if !ok || seen&bit != 0 {
			if len(key) == 0 {
				p.failAt(pos, "expected a key (offset=, ap=, block=, reg=) in an access pattern, found %s", p.foundAt(pos))
			}
			p.failAt(pos, "unexpected %s= in a %s access pattern (want %s)", key, o.Kind, apKeysHelp(o.Kind))
		}
		seen |= bit
		first = false
		p.expect('=')
		switch bit {
		case 1:
			if o.Kind == OpdPhysAP {
				const help = "an integer element offset (expressions over loop axes need a symbolic access pattern, %%tensor[block=..., offset=...])"
				if c := p.peek(); !(c == '-' || isDigit(c)) || p.eof() {
					p.fail("expected "+help+", found %s", p.found())
				}
				o.Offset = p.integer("an element offset")
				if c := p.peek(); c == '*' || c == '+' || c == '-' {
					p.failAt(pos, "expected "+help)
				}
			} else {
				o.Offset = int64(p.m.InternExpr(p.expr(0)))
			}
		case 2:
			o.Pattern = p.pattern()
		case 4:
			o.Expr = p.m.InternExpr(p.expr(0))
		case 8:
			p.expect('$')
			o.Expr = ExprID(p.regNamed())
		}
	}
}

func apKeysHelp(k OperandKind) string {
	switch k {
	case OpdSymAP:
		return "block= first, then offset= and ap="
	case OpdRegAP:
		return "reg= first, then ap="
	}
	return "offset= and ap="
}

// tensorNamed resolves p.name to a tensor (a removed placeholder when the
// reference is dangling).
func (p *parser) tensorNamed(pos int, dangling bool) TensorID {
	f := p.f
	if dangling {
		if t, ok := p.deadTensors[string(p.name)]; ok {
			return t
		}
		t := p.placeholderTensor()
		f.tensors[t].Name = string(p.name)
		if p.deadTensors == nil {
			p.deadTensors = map[string]TensorID{}
		}
		p.deadTensors[string(p.name)] = t
		return t
	}
	if t, ok := f.tensorByName[string(p.name)]; ok {
		return t
	}
	if _, ok := f.locIndex()[string(p.name)]; ok {
		p.failAt(pos, "unknown tensor %%%s (%%%s is a location: a physical access pattern has no block= or reg=)", p.name, p.name)
	}
	p.failAt(pos, "unknown tensor %%%s", p.name)
	return NoTensor
}

func (p *parser) locNamed(pos int, dangling bool) LocID {
	f := p.f
	if dangling {
		if l, ok := p.deadLocs[string(p.name)]; ok {
			return l
		}
		t := p.tempTensor()
		l, err := f.AddLoc(t, MemLoc{Name: f.tensors[t].Name})
		if err != nil {
			p.failAt(pos, "internal error: %v", err)
		}
		f.RemoveTensor(t)
		f.locs[l].Name = string(p.name)
		f.tensors[t].Name = string(p.name)
		if p.deadLocs == nil {
			p.deadLocs = map[string]LocID{}
		}
		p.deadLocs[string(p.name)] = l
		return l
	}
	if l, ok := f.locIndex()[string(p.name)]; ok {
		return l
	}
	if _, ok := f.tensorByName[string(p.name)]; ok {
		p.failAt(pos, "unknown location %%%s (%%%s is a tensor: a symbolic access pattern starts with block=)", p.name, p.name)
	}
	p.failAt(pos, "unknown location %%%s", p.name)
	return NoLoc
}

// placeholderTensor adds a removed tensor under a temporary unique name.
func (p *parser) placeholderTensor() TensorID {
	t := p.tempTensor()
	p.f.RemoveTensor(t)
	return t
}

// tempTensor adds a live tensor under a name no tensor or location has.
func (p *parser) tempTensor() TensorID {
	f := p.f
	var name string
	for {
		p.tempN++
		name = "\x00removed" + strconv.Itoa(p.tempN)
		_, t := f.tensorByName[name]
		_, l := f.locIndex()[name]
		if !t && !l {
			break
		}
	}
	t, err := f.AddTensor(Tensor{Name: name})
	if err != nil {
		p.fail("internal error: %v", err)
	}
	return t
}

func (p *parser) regNamed() RegID {
	p.sp()
	start := p.pos
	if p.pos < len(p.src) && p.src[p.pos] == '?' {
		p.failAt(start, "dangling register reference $%s: the module referenced a register that does not exist", p.src[p.pos+1:min(p.pos+20, len(p.src))])
	}
	name := p.nameTok("a register name")
	r, ok := p.f.regByName[string(name)]
	if !ok {
		p.failAt(start, "undeclared register $%s (declare it with a line \"reg $%s\" after the tensors)", name, name)
	}
	return r
}

// ---- dependencies ----

func (p *parser) depList(id InstID) {
	p.expect('[')
	if p.accept(']') {
		return
	}
	for {
		p.sp()
		d := pendingDep{inst: id, dep: Dep{CarryAxis: NoAxis}}
		d.dep.Kind = DepKind(p.enum("a dependency kind", "depkind", depKindNames[:], func(s string) (int, bool) {
			k, err := ParseDepKind(s)
			return int(k), err == nil
		}))
		p.sp()
		d.pos = p.pos
		if p.pos < len(p.src) && p.src[p.pos] == '?' {
			d.dangling = true
			p.pos++
		}
		d.name = string(p.nameTok("a dependency target (an instruction name)"))
		if p.pos < len(p.src) && p.src[p.pos] == '#' {
			p.pos++
			k := p.integer("an instruction ordinal")
			if k < 1 || k > math.MaxInt32 {
				p.failAt(d.pos, "dependency target %s#%d: want an ordinal from 1", d.name, k)
			}
			d.k = int(k)
		}
		if p.acceptWord("carry") {
			if p.pos >= len(p.src) || p.src[p.pos] != '(' {
				p.fail("expected '(' right after carry, found %s", p.found())
			}
			p.pos++
			if c := p.peek(); !(c == '-' || isDigit(c)) {
				d.dep.CarryAxis = p.axisRef()
				p.expect(',')
			}
			pos := p.pos
			dist := p.integer("a carry distance")
			if dist < math.MinInt32 || dist > math.MaxInt32 {
				p.failAt(pos, "carry distance %d does not fit in 32 bits", dist)
			}
			d.dep.CarryDist = int32(dist)
			if p.accept(',') {
				p.sp()
				if !p.acceptWord("all") {
					p.fail("expected all after the carry distance, found %s", p.found())
				}
				d.dep.CarryAll = true
			}
			p.expect(')')
		}
		if p.acceptWord("if") {
			p.expect('(')
			d.dep.Pred = p.m.InternPred(p.pred())
			p.expect(')')
		}
		p.pend = append(p.pend, d)
		if p.accept(']') {
			return
		}
		if !p.accept(',') {
			p.fail("expected ',' or ']' in the dependency list, found %s", p.found())
		}
	}
}

// resolveDeps binds the function's dependency targets by name, in program
// order, and adds the dependencies.
func (p *parser) resolveDeps() {
	if len(p.pend) == 0 {
		return
	}
	f, m := p.f, p.m
	want := map[string]*[]InstID{}
	for _, d := range p.pend {
		if !d.dangling {
			if _, ok := want[d.name]; !ok {
				want[d.name] = new([]InstID)
			}
		}
	}
	for i := p.firstInst; i < len(f.insts); i++ {
		if f.insts[i].flags&instDead != 0 {
			continue
		}
		if list, ok := want[string(m.StrBytes(f.insts[i].Name))]; ok {
			*list = append(*list, InstID(i))
		}
	}
	for _, d := range p.pend {
		p.ctxInst = f.insts[d.inst].Name
		var on InstID
		switch {
		case d.dangling:
			if i, ok := p.deadInsts[d.name]; ok {
				on = i
			} else {
				on = f.NewInstSym(OpNoOp, p.sym(d.pos, []byte(d.name)), EngUnassigned, nil, nil, 0)
				f.insts[on].flags |= instDead
				if p.deadInsts == nil {
					p.deadInsts = map[string]InstID{}
				}
				p.deadInsts[d.name] = on
			}
		default:
			list := *want[d.name]
			switch {
			case len(list) == 0:
				p.failAt(d.pos, "dependency on unknown instruction %s", d.name)
			case d.k == 0 && len(list) > 1:
				p.failAt(d.pos, "ambiguous dependency target %s: %d instructions have that name; write %s#1 .. %s#%d (k-th in program order)", d.name, len(list), d.name, d.name, len(list))
			case d.k > len(list):
				p.failAt(d.pos, "dependency target %s#%d: only %d instructions have that name", d.name, d.k, len(list))
			case d.k == 0:
				on = list[0]
			default:
				on = list[d.k-1]
			}
		}
		d.dep.On = on
		f.AddDep(d.inst, d.dep)
	}
	p.pend = p.pend[:0]
}
