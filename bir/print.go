// The printer of narwhal's text form of BIR (docs/text-format.md has the
// syntax with a complete example; parse.go reads it back).
//
// What it prints: every field of the in-memory module that carries meaning,
// so that Parse(Print(m)) holds the same module and
// Print(Parse(Print(m))) == Print(m) byte for byte, for every module,
// including broken ones a faulty pass may leave behind (so that
// --print-after dumps always work). Fields at their default value are
// omitted; dead tensors, locations and instructions are not printed.
//
// Decisions taken where nothing else fixes them:
//
//   - Determinism. The text depends only on the module's content, never on
//     intern-table order or ids: affine expressions print their terms
//     sorted by printed atom, predicate constraints sorted by their text,
//     config options sorted by key; tables (tensors, locations, registers,
//     functions, blocks, instructions) print in their order, which is part
//     of the content (it is BIR-JSON's order).
//   - Canonical affine text. Expressions and predicates are re-canonicalized
//     with bir/affine's constructors before printing, so that a hand-built,
//     non-canonical expression prints as the canonical form the parser will
//     rebuild (the round trip is then a fixpoint).
//   - Axis names. An axis reference is the axis' name, resolved lexically:
//     the innermost enclosing loop whose axis has that name, else the
//     module-level "axis" line of that name. Where that resolution would
//     pick another axis (a shadowed outer axis, an axis used outside its
//     loop, two module-level axes of one name), the axis is labelled name#k,
//     k counting the declarations of that name from the top of the text;
//     its declaration and all its references then carry the label. Axes that
//     no printed loop declares (free symbolic variables, and axes referenced
//     although their loop is gone) get a module-level "axis" line: first
//     the referenced ones in order of first reference, then the unreferenced
//     free ones sorted by content.
//   - Dangling references (to a removed tensor, location or instruction, or
//     to one that is not printed) print with a "?" after the sigil (%?x,
//     ?ld_3); an out-of-range id prints as the quoted name "#<id>". The
//     parser turns them into removed placeholders, so the text round-trips
//     and a dump of a broken module still shows what is wrong. Corrupt ids
//     of interned tables (patterns, expressions, attribute sets) print as
//     "?" and do not parse back.
//   - What is not content: the Loop and Func fields of a loop's axis (they
//     are derived from where the loop is), the sharing of one axis by two
//     loops (each loop gets its own axis on reading), a location's presence
//     in its tensor's Locs list when the two disagree (a live location is
//     printed under its tensor), NeuronCoreID when HasCoreID is false, and
//     operand fields that the operand's kind does not use.
//
// Performance: the printer appends into one []byte buffer flushed to the
// writer every 64 KiB; per instruction it allocates nothing (names are
// written from the symbol arena, patterns and attribute sets are formatted
// once per interned id, expressions and predicates once per id).
package bir

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/nameset"
)

// Print writes m in the text form.
func Print(w io.Writer, m *Module) error {
	if m == nil {
		return errors.New("bir: Print: nil module")
	}
	p := newPrinter(m, w)
	p.prepare()
	p.module()
	return p.flush()
}

// Format returns m in the text form.
func Format(m *Module) string {
	if m == nil {
		return ""
	}
	p := newPrinter(m, nil)
	p.prepare()
	p.module()
	return string(p.buf)
}

// PrintFunction writes one function in the text form, preceded by the
// module-level axis lines it references (for --print-after dumps). Axis
// labels (name#k) are numbered over the whole module, so a dump that needs
// them reads back only as part of its module.
func PrintFunction(w io.Writer, f *Function) error {
	if f == nil || f.m == nil {
		return errors.New("bir: PrintFunction: nil function or function without a module")
	}
	p := newPrinter(f.m, w)
	p.prepare()
	for _, a := range p.modAxes {
		if p.ax[a].usedIn[f] {
			p.axisLine(a)
		}
	}
	p.function(f)
	return p.flush()
}

const printFlushSize = 64 << 10

type printer struct {
	m   *Module
	w   io.Writer
	buf []byte
	err error

	ax       map[affine.Axis]*axisText
	modAxes  []affine.Axis // module-level axis lines, in print order
	exprAxes map[ExprID][]affine.Axis
	exprText map[ExprID]string
	predText map[PredID]string
	attrText []string // by AttrID, "" = not formatted yet
	patText  []string // by PatternID, "" = not formatted yet
	posText  []string // by PosID, "" = not formatted yet

	// Per function.
	f       *Function
	onStack []bool // blocks being printed (guards against cyclic bodies)
	declT   []bool // tensors declared by this print
	declL   []bool // locations declared by this print
	printed []bool // instructions printed (only when the function has deps)
	// depOrd is the ordinal (name#k) of each printed instruction whose
	// name several printed instructions share and some dependency
	// targets; empty when names are unique (prepareDeps).
	depOrd map[InstID]int32
	deps   []Dep
	// emptySched, emptySync: the function has a schedule (synchronization)
	// table in which no instruction has an entry; its first printed
	// instruction writes sched() (sync()) so that the table reads back.
	emptySched, emptySync bool
}

// axisText is what the printer knows about one axis.
type axisText struct {
	info     AxisInfo
	name     string // its name ("a<id>" for an unregistered axis)
	ref      string // the reference text: quoted name, plus #k when labelled
	k        int    // ordinal of its first declaration among same-named ones
	label    bool
	loopDecl bool // declared by a printed loop header
	modLevel bool // declared by a module-level axis line
	declared bool // its (first) declaration has been printed
	usedIn   map[*Function]bool
}

func newPrinter(m *Module, w io.Writer) *printer {
	return &printer{
		m: m, w: w,
		ax:       map[affine.Axis]*axisText{},
		exprAxes: map[ExprID][]affine.Axis{},
		exprText: map[ExprID]string{},
		predText: map[PredID]string{},
		attrText: make([]string, len(m.attrs)),
		patText:  make([]string, len(m.patterns)),
	}
}

func (p *printer) flush() error {
	if p.w != nil && p.err == nil && len(p.buf) > 0 {
		_, p.err = p.w.Write(p.buf)
		p.buf = p.buf[:0]
	}
	return p.err
}

func (p *printer) maybeFlush() {
	if p.w != nil && len(p.buf) >= printFlushSize {
		p.flush()
		p.buf = p.buf[:0]
	}
}

func (p *printer) str(s string) { p.buf = append(p.buf, s...) }
func (p *printer) int(v int64)  { p.buf = strconv.AppendInt(p.buf, v, 10) }
func (p *printer) nl()          { p.buf = append(p.buf, '\n') }
func (p *printer) indent(n int) {
	for ; n > 0; n-- {
		p.buf = append(p.buf, ' ')
	}
}

// ---- names and literals (shared with the parser) ----

// isNameByte reports whether c may appear in an unquoted name.
func isNameByte(c byte) bool { return nameByte[c] }

// nameByte is the table of [A-Za-z0-9_.$-].
var nameByte = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
	}
	return t
}()

// isPlainName reports whether s prints without quotes: non-empty, only
// [A-Za-z0-9_.$-].
func isPlainName[S string | []byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return false
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}
func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '.' }

// exprKeywords may not be axis names without quotes.
func isExprKeyword(s []byte) bool {
	switch string(s) {
	case "floordiv", "mod", "and", "true", "false":
		return true
	}
	return false
}

// isPlainIdent reports whether an axis name prints without quotes inside
// affine expressions: [A-Za-z_$][A-Za-z0-9_.$]*, not a keyword.
func isPlainIdent(s string) bool {
	if len(s) == 0 || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isIdentByte(s[i]) {
			return false
		}
	}
	return !isExprKeyword([]byte(s))
}

// appendName writes s bare when it is a plain name, quoted otherwise.
func appendName[S string | []byte](b []byte, s S) []byte {
	if isPlainName(s) {
		return append(b, s...)
	}
	return appendQuotedText(b, s)
}

// appendQuotedText writes s as a double-quoted string: \" \\ \n \t \r, other
// control bytes and bytes that are not valid UTF-8 as \xNN; valid UTF-8
// passes through.
func appendQuotedText[S string | []byte](b []byte, s S) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case c < 0x80:
			b = append(b, c)
		default:
			var r rune
			var n int
			if bs, ok := any(s).([]byte); ok {
				r, n = utf8.DecodeRune(bs[i:])
			} else {
				r, n = utf8.DecodeRuneInString(string(s[i:]))
			}
			if r == utf8.RuneError && n <= 1 {
				b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
				i++
				continue
			}
			b = append(b, s[i:i+n]...)
			i += n
			continue
		}
		i++
	}
	return append(b, '"')
}

// appendFloatText writes f so that it reads back as the same float64 and
// as a float: a '.' or exponent is always present; NaN prints as "nan" (or
// nan(0x<bits>) for any other NaN bit pattern), infinities as inf and -inf.
func appendFloatText(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		bits := math.Float64bits(f)
		if bits == canonicalNaN {
			return append(b, "nan"...)
		}
		b = append(b, "nan(0x"...)
		for s := 60; s >= 0; s -= 4 {
			b = append(b, hexDigits[(bits>>uint(s))&0xf])
		}
		return append(b, ')')
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, ".0"...)
}

// appendValue writes an attribute value: null, true, false, integers,
// floats (appendFloatText), quoted strings, [lists] and {key=value} objects.
func appendValue(b []byte, v Value) []byte {
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
		return appendFloatText(b, v.F)
	case ValString:
		return appendQuotedText(b, v.S)
	case ValNumber:
		return append(b, v.S...)
	case ValList:
		b = append(b, '[')
		for i, e := range v.L {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendValue(b, e)
		}
		return append(b, ']')
	default:
		return appendFields(b, v.O)
	}
}

// appendFields writes {key=value, ...}.
func appendFields(b []byte, fs []Field) []byte {
	b = append(b, '{')
	for i, f := range fs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendName(b, f.Key)
		b = append(b, '=')
		b = appendValue(b, f.Val)
	}
	return append(b, '}')
}

// ---- safe table access (the printer never panics on a broken module) ----

func (p *printer) liveInst(f *Function, i InstID) bool {
	return i >= 0 && int(i) < len(f.insts) && f.insts[i].flags&instDead == 0
}

// loopOf returns the body and axis of a structured loop instruction.
func (p *printer) loopOf(f *Function, i InstID) ([]BlockID, affine.Axis, bool) {
	in := &f.insts[i]
	if !in.Op.IsLoop() || in.Aux < 0 || int(in.Aux) >= len(f.loops) {
		return nil, 0, false
	}
	lp := &f.loops[in.Aux]
	return lp.Body, lp.Axis, true
}

func (p *printer) attrs(id AttrID) (AttrSet, bool) {
	if id < 0 || int(id) >= len(p.m.attrs) {
		return nil, false
	}
	return p.m.attrs[id], true
}

func (p *printer) expr(id ExprID) (affine.Expr, bool) {
	if id < 0 || int(id) >= len(p.m.exprs) {
		return affine.Expr{}, false
	}
	return p.m.exprs[id], true
}

func (p *printer) pred(id PredID) (affine.Pred, bool) {
	if id < 0 || int(id) >= len(p.m.preds) {
		return affine.Pred{}, false
	}
	return p.m.preds[id], true
}

// symBytes returns the text of a name symbol; a symbol outside the arena
// (a corrupt module) reads as "?".
func (p *printer) symBytes(s Sym) []byte {
	if s < 0 || int(s) >= len(p.m.syms.start) {
		return []byte{'?'}
	}
	return p.m.syms.bytes(s)
}

// depChain calls fn for each dependency record of i, newest first, and
// stops after as many records as the table holds (a corrupt chain cannot
// loop forever).
func (p *printer) depChain(f *Function, i InstID, fn func(d *Dep)) {
	n := 0
	for k := f.insts[i].Deps; k >= 0 && int(k) < len(f.deps) && n <= len(f.deps); k = f.deps[k].next {
		fn(&f.deps[k])
		n++
	}
}

// axis returns the printer's record of axis a, creating it on first use.
func (p *printer) axis(a affine.Axis) *axisText {
	if t, ok := p.ax[a]; ok {
		return t
	}
	t := &axisText{usedIn: map[*Function]bool{}}
	if a >= 0 && int(a) < len(p.m.axes) {
		t.info = p.m.axes[a]
		t.name = t.info.Name
	} else {
		t.info = AxisInfo{Loop: NoInst, Func: -1}
		t.name = affine.DefaultNames(a)
		t.info.Name = t.name
	}
	p.ax[a] = t
	return t
}

// ---- canonical affine forms ----

// canonExpr rebuilds e with affine's constructors. It fails on atoms that
// cannot be built (a non-positive divisor, a nil dividend).
func canonExpr(e affine.Expr, depth int) (affine.Expr, bool) {
	if depth > 64 {
		return e, false
	}
	acc := affine.Const(e.Const)
	for _, t := range e.Terms {
		var x affine.Expr
		switch t.Atom.Kind {
		case affine.AtomAxis:
			x = affine.Var(t.Atom.Axis)
		case affine.AtomFloorDiv, affine.AtomMod:
			if t.Atom.Sub == nil || t.Atom.Div <= 0 {
				return e, false
			}
			s, ok := canonExpr(*t.Atom.Sub, depth+1)
			if !ok {
				return e, false
			}
			if t.Atom.Kind == affine.AtomFloorDiv {
				x = affine.FloorDiv(s, t.Atom.Div)
			} else {
				x = affine.Mod(s, t.Atom.Div)
			}
		default:
			return e, false
		}
		acc = affine.Add(acc, affine.Scale(x, t.Coeff))
	}
	return acc, true
}

func canonPred(q affine.Pred) affine.Pred {
	if q.False {
		return affine.Pred{False: true}
	}
	cons := make([]affine.Constraint, 0, len(q.Cons))
	for _, c := range q.Cons {
		e, ok := canonExpr(c.Expr, 0)
		if !ok {
			return q
		}
		cons = append(cons, affine.Constraint{Expr: e, Op: c.Op})
	}
	return affine.And(affine.Pred{Cons: cons})
}

// exprAxesOf returns the axes expression id mentions (cached).
func (p *printer) exprAxesOf(id ExprID) []affine.Axis {
	if id == 0 {
		return nil
	}
	if as, ok := p.exprAxes[id]; ok {
		return as
	}
	var as []affine.Axis
	if e, ok := p.expr(id); ok {
		as = collectAxes(e, as, 0)
	}
	p.exprAxes[id] = as
	return as
}

func collectAxes(e affine.Expr, dst []affine.Axis, depth int) []affine.Axis {
	if depth > 64 {
		return dst
	}
	for _, t := range e.Terms {
		if t.Atom.Kind == affine.AtomAxis {
			if !slices.Contains(dst, t.Atom.Axis) {
				dst = append(dst, t.Atom.Axis)
			}
		} else if t.Atom.Sub != nil {
			dst = collectAxes(*t.Atom.Sub, dst, depth+1)
		}
	}
	return dst
}

// appendExpr writes e in bir/affine's syntax with the printer's axis
// references: terms sorted by printed atom, the constant last.
func (p *printer) appendExpr(b []byte, e affine.Expr, depth int) []byte {
	if len(e.Terms) == 0 {
		return strconv.AppendInt(b, e.Const, 10)
	}
	type part struct {
		atom     string
		coeff    int64
		compound bool
	}
	parts := make([]part, len(e.Terms))
	for i, t := range e.Terms {
		parts[i] = part{p.atomText(t.Atom, depth), t.Coeff, t.Atom.Kind != affine.AtomAxis}
	}
	slices.SortStableFunc(parts, func(x, y part) int { return strings.Compare(x.atom, y.atom) })
	for i, pt := range parts {
		c := pt.coeff
		neg := c < 0
		mag := uint64(c)
		if neg {
			mag = -mag
		}
		if i == 0 {
			if neg {
				b = append(b, '-')
			}
		} else if neg {
			b = append(b, " - "...)
		} else {
			b = append(b, " + "...)
		}
		wrap := pt.compound && (mag != 1 || (i == 0 && neg))
		if mag != 1 {
			b = strconv.AppendUint(b, mag, 10)
			b = append(b, '*')
		}
		if wrap {
			b = append(b, '(')
		}
		b = append(b, pt.atom...)
		if wrap {
			b = append(b, ')')
		}
	}
	if e.Const > 0 {
		b = append(b, " + "...)
		b = strconv.AppendInt(b, e.Const, 10)
	} else if e.Const < 0 {
		b = append(b, " - "...)
		b = strconv.AppendUint(b, -uint64(e.Const), 10)
	}
	return b
}

func (p *printer) atomText(a affine.Atom, depth int) string {
	switch a.Kind {
	case affine.AtomAxis:
		return p.axis(a.Axis).ref
	case affine.AtomFloorDiv, affine.AtomMod:
		var b []byte
		if a.Sub == nil || depth > 64 {
			b = append(b, '?')
		} else {
			s := *a.Sub
			bare := len(s.Terms) == 1 && s.Const == 0 && s.Terms[0].Coeff == 1 && s.Terms[0].Atom.Kind == affine.AtomAxis
			if !bare {
				b = append(b, '(')
			}
			b = p.appendExpr(b, s, depth+1)
			if !bare {
				b = append(b, ')')
			}
		}
		if a.Kind == affine.AtomFloorDiv {
			b = append(b, " floordiv "...)
		} else {
			b = append(b, " mod "...)
		}
		return string(strconv.AppendInt(b, a.Div, 10))
	}
	return "?"
}

// exprString returns the text of expression id (cached).
func (p *printer) exprString(id ExprID) string {
	if s, ok := p.exprText[id]; ok {
		return s
	}
	s := "?"
	if e, ok := p.expr(id); ok {
		if c, ok := canonExpr(e, 0); ok {
			e = c
		}
		s = string(p.appendExpr(nil, e, 0))
	}
	p.exprText[id] = s
	return s
}

// predString returns the text of predicate id: constraints "lhs op rhs"
// with the constant on the right, sorted, joined by " and ".
func (p *printer) predString(id PredID) string {
	if s, ok := p.predText[id]; ok {
		return s
	}
	s := "?"
	if q, ok := p.pred(id); ok {
		s = p.formatPred(canonPred(q))
	}
	p.predText[id] = s
	return s
}

func (p *printer) formatPred(q affine.Pred) string {
	if q.False {
		return "false"
	}
	if len(q.Cons) == 0 {
		return "true"
	}
	parts := make([]string, len(q.Cons))
	for i, c := range q.Cons {
		lhs := affine.Expr{Terms: c.Expr.Terms}
		rhs := -c.Expr.Const
		op := " >= "
		switch c.Op {
		case affine.EQ0:
			op = " == "
		case affine.NE0:
			op = " != "
		}
		text := p.appendExpr(nil, lhs, 0)
		if len(text) > 0 && text[0] == '-' {
			// Lead with a positive term: -i >= -3 reads as i <= 3.
			lhs = affine.Scale(lhs, -1)
			rhs = -rhs
			if c.Op == affine.GE0 {
				op = " <= "
			}
			text = p.appendExpr(text[:0], lhs, 0)
		}
		text = append(text, op...)
		text = strconv.AppendInt(text, rhs, 10)
		parts[i] = string(text)
	}
	slices.Sort(parts)
	return strings.Join(parts, " and ")
}

// ---- preparation: axis declarations, labels and references ----

// visit calls fn for every instruction the printer prints for f, in
// program order, with the axes of the enclosing loops (outermost first).
func (p *printer) visit(f *Function, fn func(i InstID, scope []affine.Axis)) {
	onStack := make([]bool, len(f.blocks))
	var scope []affine.Axis
	var rec func(b BlockID)
	rec = func(b BlockID) {
		if b < 0 || int(b) >= len(f.blocks) || onStack[b] {
			return
		}
		onStack[b] = true
		for _, i := range f.blocks[b].Insts {
			if !p.liveInst(f, i) {
				continue
			}
			fn(i, scope)
			if body, ax, ok := p.loopOf(f, i); ok {
				scope = append(scope, ax)
				for _, bb := range body {
					rec(bb)
				}
				scope = scope[:len(scope)-1]
			}
		}
		onStack[b] = false
	}
	for _, b := range f.Top {
		rec(b)
	}
}

// instAxes calls fn for every axis instruction i references.
func (p *printer) instAxes(f *Function, i InstID, fn func(affine.Axis)) {
	in := &f.insts[i]
	n := int(in.NIns) + int(in.NOuts)
	if in.Args >= 0 && int(in.Args)+n <= len(f.operands) {
		for _, o := range f.operands[in.Args : int(in.Args)+n] {
			switch o.Kind {
			case OpdSymAP:
				for _, a := range p.exprAxesOf(o.Expr) {
					fn(a)
				}
				for _, a := range p.exprAxesOf(ExprID(o.Offset)) {
					fn(a)
				}
			case OpdSymImm:
				for _, a := range p.exprAxesOf(o.Expr) {
					fn(a)
				}
			}
		}
	}
	p.predAxes(in.Pred, fn)
	for _, e := range f.Sync.WaitIters(i) {
		for _, a := range p.exprAxesOf(e) {
			fn(a)
		}
	}
	p.depChain(f, i, func(d *Dep) {
		if d.CarryAxis != NoAxis {
			fn(d.CarryAxis)
		}
		p.predAxes(d.Pred, fn)
	})
}

func (p *printer) predAxes(id PredID, fn func(affine.Axis)) {
	if id == 0 {
		return
	}
	q, ok := p.pred(id)
	if !ok {
		return
	}
	var as []affine.Axis
	for _, c := range q.Cons {
		as = collectAxes(c.Expr, as, 0)
	}
	for _, a := range as {
		fn(a)
	}
}

// prepare decides, for the whole module, which axes are declared where,
// which need a name#k label, and the text of every axis reference.
func (p *printer) prepare() {
	m := p.m
	// 1. Axes declared by printed loop headers, in program order.
	var headers []affine.Axis
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		p.visit(f, func(i InstID, _ []affine.Axis) {
			if _, ax, ok := p.loopOf(f, i); ok {
				headers = append(headers, ax)
				p.axis(ax).loopDecl = true
			}
		})
	}
	// 2. References: module-level axes in order of first reference, and
	// labels where lexical resolution by name would pick another axis.
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		p.visit(f, func(i InstID, scope []affine.Axis) {
			p.instAxes(f, i, func(a affine.Axis) {
				t := p.axis(a)
				t.usedIn[f] = true
				if !t.loopDecl && !t.modLevel {
					t.modLevel = true
					p.modAxes = append(p.modAxes, a)
				}
				for k := len(scope) - 1; k >= 0; k-- {
					if p.axis(scope[k]).name == t.name {
						if scope[k] != a {
							t.label = true
						}
						return
					}
				}
				if t.loopDecl {
					t.label = true // used outside its loop
				}
			})
		})
	}
	// Unreferenced free axes, sorted by content.
	var free []affine.Axis
	for a := range m.axes {
		ax := affine.Axis(a)
		if m.axes[a].Loop != NoInst {
			continue
		}
		t := p.axis(ax)
		if !t.loopDecl && !t.modLevel {
			t.modLevel = true
			free = append(free, ax)
		}
	}
	slices.SortStableFunc(free, func(x, y affine.Axis) int {
		a, b := &p.ax[x].info, &p.ax[y].info
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Lb, b.Lb); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Ub, b.Ub); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Stride, b.Stride); c != 0 {
			return c
		}
		if c := strings.Compare(p.funcName(a.Func), p.funcName(b.Func)); c != 0 {
			return c
		}
		return strings.Compare(a.Extra.Key(), b.Extra.Key())
	})
	p.modAxes = append(p.modAxes, free...)
	// Two module-level axes of one name cannot be told apart by name.
	modNames := map[string]int{}
	for _, a := range p.modAxes {
		modNames[p.ax[a].name]++
	}
	for _, a := range p.modAxes {
		if modNames[p.ax[a].name] > 1 {
			p.ax[a].label = true
		}
	}
	// 3. Declaration ordinals and reference texts.
	count := map[string]int{}
	seen := map[affine.Axis]bool{}
	for _, list := range [][]affine.Axis{p.modAxes, headers} {
		for _, a := range list {
			t := p.ax[a]
			count[t.name]++
			if !seen[a] {
				seen[a] = true
				t.k = count[t.name]
			}
		}
	}
	for _, t := range p.ax {
		t.ref = axisRefText(t.name, t.label, t.k)
	}
}

func axisRefText(name string, label bool, k int) string {
	var b []byte
	if isPlainIdent(name) {
		b = append(b, name...)
	} else {
		b = appendQuotedText(b, name)
	}
	if label {
		b = append(b, '#')
		b = strconv.AppendInt(b, int64(k), 10)
	}
	return string(b)
}

func (p *printer) funcName(idx int32) string {
	if idx >= 0 && int(idx) < len(p.m.Funcs) && p.m.Funcs[idx] != nil {
		return p.m.Funcs[idx].Name
	}
	return ""
}

// ---- module ----

func (p *printer) module() {
	m := p.m
	p.str("module")
	if m.Arch != "" {
		p.str(" arch=")
		p.buf = appendName(p.buf, m.Arch)
	}
	if m.Version != 2 {
		p.str(" version=")
		p.int(m.Version)
	}
	if m.HasCoreID {
		p.str(" core=")
		p.int(m.NeuronCoreID)
	}
	if m.ArtifactDir != "" {
		p.str(" artifact_dir=")
		p.buf = appendQuotedText(p.buf, m.ArtifactDir)
	}
	if m.Config.MaxInstructionLimit != 0 {
		p.str(" max_instruction_limit=")
		p.int(m.Config.MaxInstructionLimit)
	}
	if len(m.ModuleAttrs) > 0 {
		p.str(" attributes=")
		p.buf = appendFields(p.buf, m.ModuleAttrs)
	}
	if len(m.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, m.Extra)
	}
	p.nl()
	keys := make([]string, 0, len(m.Config.Options))
	for k := range m.Config.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		p.str("option ")
		p.buf = appendName(p.buf, k)
		p.str(" = ")
		p.buf = appendQuotedText(p.buf, m.Config.Options[k])
		p.nl()
	}
	for _, a := range p.modAxes {
		p.axisLine(a)
	}
	for _, f := range m.Funcs {
		if f == nil {
			continue
		}
		p.nl()
		p.function(f)
		p.maybeFlush()
	}
}

// axisDecl writes "ref in [lb, ub) step s extra={...}" for a declaration.
func (p *printer) axisDecl(a affine.Axis) {
	t := p.axis(a)
	if t.declared {
		// A second loop sharing this axis: it reads back as its own axis
		// of the same name and bounds.
		p.buf = append(p.buf, axisRefText(t.name, false, 0)...)
	} else {
		t.declared = true
		p.str(t.ref)
	}
	p.str(" in [")
	p.int(t.info.Lb)
	p.str(", ")
	p.int(t.info.Ub)
	p.str(")")
	if t.info.Stride != 1 {
		p.str(" step ")
		p.int(t.info.Stride)
	}
	if len(t.info.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, t.info.Extra)
	}
}

func (p *printer) axisLine(a affine.Axis) {
	p.str("axis ")
	p.axisDecl(a)
	t := p.ax[a]
	if fi := t.info.Func; fi >= 0 && int(fi) < len(p.m.Funcs) && p.m.Funcs[fi] != nil {
		p.str(" func=@")
		p.buf = appendName(p.buf, p.m.Funcs[fi].Name)
	}
	p.nl()
}

// ---- functions ----

func (p *printer) function(f *Function) {
	p.f = f
	p.emptySched = f.Sched != nil && !f.Sched.hasEntry()
	p.emptySync = f.Sync != nil && !f.Sync.hasEntry()
	p.str("func @")
	p.buf = appendName(p.buf, f.Name)
	switch f.Kind {
	case FuncNormal:
	case FuncNKI:
		p.str(" kind=nki")
	default:
		p.str(" kind=")
		p.int(int64(f.Kind))
	}
	if len(f.Attributes) > 0 {
		p.str(" attributes=[")
		for i, a := range f.Attributes {
			if i > 0 {
				p.str(", ")
			}
			p.buf = appendName(p.buf, a)
		}
		p.str("]")
	}
	if len(f.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, f.Extra)
	}
	p.str(" {\n")
	if p.decls(f) && len(f.Top) > 0 {
		p.nl()
	}
	p.prepareDeps(f)
	p.onStack = make([]bool, len(f.blocks))
	for _, b := range f.Top {
		p.block(f, b, 0)
	}
	p.str("}\n")
	p.f = nil
	p.printed, p.depOrd = nil, nil
}

// decls prints the tensors with their locations, then the registers; it
// reports whether it printed anything.
func (p *printer) decls(f *Function) bool {
	printed := false
	p.declT = make([]bool, len(f.tensors))
	p.declL = make([]bool, len(f.locs))
	// Live locations that no live tensor lists are printed under the tensor
	// they point to, after its listed ones.
	listed := make([]bool, len(f.locs))
	for t := range f.tensors {
		if f.tensors[t].Dead {
			continue
		}
		for _, l := range f.tensors[t].Locs {
			if l >= 0 && int(l) < len(f.locs) {
				listed[l] = true
			}
		}
	}
	var unlisted map[TensorID][]LocID
	for l := range f.locs {
		lc := &f.locs[l]
		if !lc.Dead && !listed[l] && lc.Tensor >= 0 && int(lc.Tensor) < len(f.tensors) {
			if unlisted == nil {
				unlisted = map[TensorID][]LocID{}
			}
			unlisted[lc.Tensor] = append(unlisted[lc.Tensor], LocID(l))
		}
	}
	for t := range f.tensors {
		ts := &f.tensors[t]
		if ts.Dead {
			continue
		}
		p.declT[t] = true
		p.tensorLine(ts)
		printed = true
		k := int64(0)
		for _, list := range [][]LocID{ts.Locs, unlisted[TensorID(t)]} {
			for _, l := range list {
				if l < 0 || int(l) >= len(f.locs) || f.locs[l].Dead || p.declL[l] {
					continue
				}
				p.declL[l] = true
				p.locLine(&f.locs[l], k)
				p.maybeFlush() // a block tensor may have millions of locations
				k++
			}
		}
	}
	for r := range f.regs {
		p.str("  reg $")
		p.buf = appendName(p.buf, f.regs[r].Name)
		p.nl()
		printed = true
	}
	return printed
}

func (p *printer) tensorLine(ts *Tensor) {
	p.str("  tensor %")
	p.buf = appendName(p.buf, ts.Name)
	p.str(": ")
	p.str(ts.Dtype.Short())
	p.str("[")
	for i, d := range ts.Shape {
		if i > 0 {
			p.str(", ")
		}
		p.int(d)
	}
	p.str("]")
	if ts.Kind != KindInternal {
		p.str(" kind=")
		p.str(ts.Kind.String())
	}
	if ts.Class != ClassTensor {
		p.str(" class=")
		p.str(ts.Class.String())
	}
	switch ts.AddrSpace {
	case AddrShared:
	case AddrLocal, AddrNone:
		p.str(" addr_space=")
		p.str(ts.AddrSpace.String())
	default:
		p.str(" addr_space=")
		p.int(int64(ts.AddrSpace))
	}
	if ts.PartitionDim != 0 {
		p.str(" partition_dim=")
		p.int(ts.PartitionDim)
	}
	if ts.File != "" {
		p.str(" file=")
		p.buf = appendQuotedText(p.buf, ts.File)
	}
	if ts.NoSpill {
		p.str(" no_spill")
	}
	if ts.Volatile {
		p.str(" volatile")
	}
	if ts.Virtual {
		p.str(" virtual")
	}
	if ts.IsBlock {
		p.str(" blocks=")
		p.int(ts.NBlocks)
	} else if ts.NBlocks != 0 {
		p.str(" nblocks=")
		p.int(ts.NBlocks)
	}
	if ts.SplitShape != nil {
		p.str(" split_shape=[")
		for i, s := range ts.SplitShape {
			if i > 0 {
				p.str(", ")
			}
			if s {
				p.str("true")
			} else {
				p.str("false")
			}
		}
		p.str("]")
	}
	if ts.ShrinkDim != 0 || ts.LiveN != 0 {
		p.str(" shrink_dim=")
		p.int(ts.ShrinkDim)
		p.str(" live_n=")
		p.int(ts.LiveN)
	}
	if len(ts.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, ts.Extra)
	}
	p.nl()
}

func (p *printer) locLine(lc *MemLoc, k int64) {
	p.str("    loc %")
	p.buf = appendName(p.buf, lc.Name)
	p.str(": ")
	p.str(lc.Type.String())
	p.str(" ")
	p.int(lc.Partitions)
	p.str("x")
	p.int(lc.Bytes)
	if lc.RawDims != nil {
		p.str(" dims=[")
		for i, d := range lc.RawDims {
			if i > 0 {
				p.str(", ")
			}
			p.int(d)
		}
		p.str("]")
	}
	if lc.Addr != 0 {
		p.str(" addr=")
		p.int(lc.Addr)
	}
	if lc.Bank != 0 {
		p.str(" bank=")
		p.int(lc.Bank)
	}
	if lc.Base != 0 {
		p.str(" base=")
		p.int(lc.Base)
	}
	if lc.Allocated {
		p.str(" allocated")
	}
	if lc.Pinned {
		p.str(" pinned")
	}
	if lc.TensorIdx != k {
		p.str(" tensor_id=")
		p.int(lc.TensorIdx)
	}
	if lc.OutputKind != 0 {
		p.str(" output_kind=")
		p.int(lc.OutputKind)
	}
	if len(lc.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, lc.Extra)
	}
	p.nl()
}

// prepareDeps computes dependency target names: name#k where several
// printed instructions share the name. The names are compared in place in
// the symbol arena through an open-addressing set of the targets' names
// (nameset: 8 to 16 bytes per target, no string per name); ordinals are
// recorded only for the instructions whose name is shared (none in an
// unrolled module, where names are unique).
func (p *printer) prepareDeps(f *Function) {
	has, n := false, 0
	p.visit(f, func(i InstID, _ []affine.Axis) {
		if f.insts[i].Deps >= 0 {
			has = true
		}
		n++
	})
	p.depOrd = nil
	if !has {
		return
	}
	p.printed = make([]bool, len(f.insts))
	nameOf := func(i int32) []byte { return p.symBytes(f.insts[i].Name) }
	same := func(a, b int32) bool { return a == b || bytes.Equal(nameOf(a), nameOf(b)) }
	// The printed names, checked for duplicates bucket by bucket
	// (nameset.Scratch.Duplicates; a table of millions of targets probed
	// once per dependency missed the cache every time): when every printed
	// name is unique, no target needs a name#k.
	keys := make([]uint64, 0, n)
	p.visit(f, func(i InstID, _ []affine.Axis) {
		p.printed[i] = true
		keys = append(keys, nameset.Key(nameset.HashBytes(nameOf(int32(i))), int32(i)))
	})
	var scratch nameset.Scratch
	dups := scratch.Duplicates(keys, same, nil)
	p.depOrd = map[InstID]int32{}
	if len(dups) == 0 {
		return
	}
	// The distinct names of the printed targets, each by its first
	// target.
	var targets nameset.Table
	targets.Reset(0)
	p.visit(f, func(i InstID, _ []affine.Axis) {
		p.depChain(f, i, func(d *Dep) {
			if on := d.On; on >= 0 && int(on) < len(f.insts) && p.printed[on] {
				targets.Insert(nameset.HashBytes(nameOf(int32(on))), int32(on), same)
			}
		})
	})
	// rep returns the target whose name instruction i has (-1: none).
	rep := func(i InstID) int32 {
		name := nameOf(int32(i))
		return targets.Find(nameset.HashBytes(name), func(id int32) bool { return bytes.Equal(nameOf(id), name) })
	}
	// A target's name is shared when another printed instruction has it.
	var shared map[int32]bool
	p.visit(f, func(i InstID, _ []affine.Axis) {
		if r := rep(i); r >= 0 && r != int32(i) {
			if shared == nil {
				shared = map[int32]bool{}
			}
			shared[r] = true
		}
	})
	if shared == nil {
		return
	}
	seen := map[int32]int32{}
	p.visit(f, func(i InstID, _ []affine.Axis) {
		if r := rep(i); r >= 0 && shared[r] {
			seen[r]++
			p.depOrd[i] = seen[r]
		}
	})
}

// ---- blocks and instructions ----

func (p *printer) block(f *Function, b BlockID, ind int) {
	if b < 0 || int(b) >= len(f.blocks) || p.onStack[b] {
		return
	}
	p.onStack[b] = true
	blk := &f.blocks[b]
	p.indent(ind)
	p.buf = appendName(p.buf, blk.Name)
	p.str(":")
	if len(blk.Extra) > 0 {
		p.str(" extra=")
		p.buf = appendFields(p.buf, blk.Extra)
	}
	p.nl()
	for _, i := range blk.Insts {
		if p.liveInst(f, i) {
			p.inst(f, i, ind+2)
		}
	}
	p.onStack[b] = false
}

func (p *printer) inst(f *Function, i InstID, ind int) {
	in := &f.insts[i]
	p.indent(ind)
	p.buf = appendName(p.buf, p.symBytes(in.Name))
	p.str(" = ")
	p.buf = appendName(p.buf, f.m.OpName(in.Op))
	if in.Engine != EngUnassigned {
		p.str(" on ")
		p.str(in.Engine.String())
	}
	body, ax, isLoop := p.loopOf(f, i)
	if isLoop {
		p.str(" ")
		p.axisDecl(ax)
	}
	n := int(in.NIns) + int(in.NOuts)
	if in.Args < 0 || int(in.Args)+n > len(f.operands) {
		p.str(" ?operands")
	} else {
		ops := f.operands[in.Args : int(in.Args)+n]
		for k := range ops {
			switch {
			case k == int(in.NIns):
				p.str(" -> ")
			case k == 0:
				p.str(" ")
			default:
				p.str(", ")
			}
			p.operand(f, &ops[k])
		}
	}
	if a, ok := p.attrs(in.Attrs); in.Attrs != 0 && (!ok || len(a) > 0) {
		p.str(" ")
		p.str(p.attrString(in.Attrs))
	}
	if in.Pred != 0 {
		if s := p.predString(in.Pred); s != "true" {
			p.str(" if (")
			p.str(s)
			p.str(")")
		}
	}
	if in.Deps >= 0 {
		p.depList(f, i)
	}
	if in.Pos != NoPos {
		p.str(" ")
		p.str(p.posString(in.Pos))
	}
	if t := f.Sched; t != nil && (p.emptySched || t.hasField(i)) {
		p.buf = appendSchedText(p.buf, t, i)
		p.emptySched = false
	}
	if s := f.Sync; s != nil && (p.emptySync || s.Has(i)) {
		p.buf = appendSyncText(p.buf, s, i, p.exprString)
		p.emptySync = false
	}
	if isLoop {
		p.str(" {\n")
		for _, b := range body {
			p.block(f, b, ind)
		}
		p.indent(ind)
		p.str("}")
	}
	p.nl()
	p.maybeFlush()
}

func (p *printer) attrString(id AttrID) string {
	a, ok := p.attrs(id)
	if !ok {
		return "{?}"
	}
	if int(id) >= len(p.attrText) {
		p.attrText = append(p.attrText, make([]string, len(p.m.attrs)-len(p.attrText))...)
	}
	if s := p.attrText[id]; s != "" {
		return s
	}
	p.attrText[id] = string(appendFields(nil, a))
	return p.attrText[id]
}

// posString formats a source position as loc("FILE":LINE:COL) or, with a
// known end, loc("FILE":LINE:COL to ENDLINE:ENDCOL); an id outside the
// table prints as loc(?), which does not read back.
func (p *printer) posString(id PosID) string {
	if !p.m.ValidPos(id) {
		return "loc(?)"
	}
	if int(id) >= len(p.posText) {
		p.posText = append(p.posText, make([]string, len(p.m.poss)-len(p.posText))...)
	}
	if s := p.posText[id]; s != "" {
		return s
	}
	p.posText[id] = string(AppendPosText(nil, p.m.poss[id]))
	return p.posText[id]
}

// AppendPosText appends the text form of a position, loc("FILE":LINE:COL)
// or loc("FILE":LINE:COL to ENDLINE:ENDCOL).
func AppendPosText(b []byte, q Pos) []byte {
	b = append(b, "loc("...)
	b = appendQuotedText(b, q.File)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(q.Line), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(q.Col), 10)
	if q.EndLine != 0 || q.EndCol != 0 {
		b = append(b, " to "...)
		b = strconv.AppendInt(b, int64(q.EndLine), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(q.EndCol), 10)
	}
	return append(b, ')')
}

func (p *printer) patString(id PatternID) string {
	if id < 0 || int(id) >= len(p.m.patterns) {
		return "?"
	}
	if int(id) >= len(p.patText) {
		p.patText = append(p.patText, make([]string, len(p.m.patterns)-len(p.patText))...)
	}
	if s := p.patText[id]; s != "" {
		return s
	}
	b := []byte{'['}
	for k, q := range p.m.patterns[id] {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, q.Step, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, q.Num, 10)
		b = append(b, ']')
	}
	b = append(b, ']')
	p.patText[id] = string(b)
	return p.patText[id]
}

// locRef writes %name, %?name for a location that is not declared, or
// %?"#id" for an out-of-range id.
func (p *printer) locRef(f *Function, l LocID) {
	p.str("%")
	switch {
	case l < 0 || int(l) >= len(f.locs):
		p.str("?")
		p.buf = appendQuotedText(p.buf, "#"+strconv.Itoa(int(l)))
	case !p.declL[l]:
		p.str("?")
		p.buf = appendName(p.buf, f.locs[l].Name)
	default:
		p.buf = appendName(p.buf, f.locs[l].Name)
	}
}

func (p *printer) tensorRef(f *Function, t TensorID) {
	p.str("%")
	switch {
	case t < 0 || int(t) >= len(f.tensors):
		p.str("?")
		p.buf = appendQuotedText(p.buf, "#"+strconv.Itoa(int(t)))
	case !p.declT[t]:
		p.str("?")
		p.buf = appendName(p.buf, f.tensors[t].Name)
	default:
		p.buf = appendName(p.buf, f.tensors[t].Name)
	}
}

func (p *printer) regRef(f *Function, r RegID) {
	p.str("$")
	if r < 0 || int(r) >= len(f.regs) {
		p.str("?")
		p.buf = appendQuotedText(p.buf, "#"+strconv.Itoa(int(r)))
		return
	}
	p.buf = appendName(p.buf, f.regs[r].Name)
}

func (p *printer) operand(f *Function, o *Operand) {
	implied := uint8(0)
	switch o.Kind {
	case OpdPhysAP:
		p.locRef(f, o.Loc())
		p.str("[")
		sep := ""
		if o.Offset != 0 {
			p.str("offset=")
			p.int(o.Offset)
			sep = ", "
		}
		if o.Pattern != 0 {
			p.str(sep)
			p.str("ap=")
			p.str(p.patString(o.Pattern))
		}
		p.str("]")
	case OpdSymAP:
		p.tensorRef(f, o.TensorRef())
		p.str("[block=")
		p.str(p.exprString(o.Expr))
		if o.Offset != 0 {
			p.str(", offset=")
			if o.Offset < 0 || o.Offset >= int64(len(p.m.exprs)) {
				p.str("?")
			} else {
				p.str(p.exprString(ExprID(o.Offset)))
			}
		}
		if o.Pattern != 0 {
			p.str(", ap=")
			p.str(p.patString(o.Pattern))
		}
		p.str("]")
	case OpdRegAP:
		p.tensorRef(f, o.TensorRef())
		p.str("[reg=")
		p.regRef(f, RegID(o.Expr))
		if o.Pattern != 0 {
			p.str(", ap=")
			p.str(p.patString(o.Pattern))
		}
		p.str("]")
	case OpdRegister:
		p.regRef(f, RegID(o.Ref))
	case OpdImm:
		implied = OpdFlagFloat
		if o.Flags&OpdFlagFloat != 0 {
			p.buf = appendFloatText(p.buf, float64frombits(o.Offset))
		} else {
			p.int(o.Offset)
		}
	case OpdImmArray:
		a, ok := p.attrs(AttrID(o.Ref))
		if ok && len(a) == 1 && a[0].Key == "value_array" && a[0].Val.Kind == ValList {
			p.buf = appendValue(p.buf, a[0].Val)
		} else {
			p.str("imm_array")
			p.str(p.attrString(AttrID(o.Ref)))
		}
	case OpdSymImm:
		p.str("symimm(")
		p.str(p.exprString(o.Expr))
		p.str(", ")
		a, ok := p.attrs(AttrID(o.Ref))
		if ok && len(a) == 1 && a[0].Key == "value_list" && a[0].Val.Kind == ValList {
			p.buf = appendValue(p.buf, a[0].Val)
		} else {
			p.str(p.attrString(AttrID(o.Ref)))
		}
		p.str(")")
	default:
		p.str("?operand(")
		p.int(int64(o.Kind))
		p.str(")")
	}
	p.str(" ")
	p.str(o.Dtype.Short())
	if fl := o.Flags &^ implied; fl != 0 {
		p.str(" flags=")
		p.int(int64(fl))
	}
	if a, ok := p.attrs(o.Extra); o.Extra != 0 && (!ok || len(a) > 0) {
		p.str(" extra=")
		p.str(p.attrString(o.Extra))
	}
}

// depList writes " deps [KIND target carry(axis, dist) if (pred), ...]".
func (p *printer) depList(f *Function, i InstID) {
	p.deps = p.deps[:0]
	p.depChain(f, i, func(d *Dep) { p.deps = append(p.deps, *d) })
	slices.Reverse(p.deps)
	p.str(" deps [")
	for k := range p.deps {
		d := &p.deps[k]
		if k > 0 {
			p.str(", ")
		}
		p.str(d.Kind.String())
		p.str(" ")
		p.instRef(f, d.On)
		if d.CarryAxis != NoAxis || d.CarryDist != 0 {
			p.str(" carry(")
			if d.CarryAxis != NoAxis {
				p.str(p.axis(d.CarryAxis).ref)
				p.str(", ")
			}
			p.int(int64(d.CarryDist))
			if d.CarryAll {
				p.str(", all")
			}
			p.str(")")
		}
		if d.Pred != 0 {
			if s := p.predString(d.Pred); s != "true" {
				p.str(" if (")
				p.str(s)
				p.str(")")
			}
		}
	}
	p.str("]")
}

// instRef writes a dependency target: name, name#k when the name is not
// unique among printed instructions, ?name when the target is not printed.
func (p *printer) instRef(f *Function, i InstID) {
	if i < 0 || int(i) >= len(f.insts) {
		p.str("?")
		p.buf = appendQuotedText(p.buf, "#"+strconv.Itoa(int(i)))
		return
	}
	name := p.symBytes(f.insts[i].Name)
	if p.printed == nil || !p.printed[i] {
		p.str("?")
		p.buf = appendName(p.buf, name)
		return
	}
	p.buf = appendName(p.buf, name)
	if k, ok := p.depOrd[i]; ok {
		p.str("#")
		p.int(int64(k))
	}
}

// InstFormatter formats single instructions of one function in the text
// form, one line each, as Print writes them (without indentation and
// newline): for listings of straight-line code such as the per-engine
// streams (package stream). Loops are written without their bodies.
type InstFormatter struct {
	p *printer
	f *Function
	// NoDeps and NoPos leave out the dependency list and the source
	// position.
	NoDeps, NoPos bool
}

// NewInstFormatter returns a formatter for the instructions of f.
func NewInstFormatter(f *Function) *InstFormatter {
	p := newPrinter(f.m, nil)
	p.prepare()
	p.prepareDeps(f)
	// Every live tensor and location counts as declared (the listing
	// names them as the function's text form does).
	p.declT = make([]bool, len(f.tensors))
	for t := range f.tensors {
		p.declT[t] = !f.tensors[t].Dead
	}
	p.declL = make([]bool, len(f.locs))
	for l := range f.locs {
		p.declL[l] = !f.locs[l].Dead
	}
	return &InstFormatter{p: p, f: f}
}

// Append appends instruction i's line to b.
func (x *InstFormatter) Append(b []byte, i InstID) []byte {
	p, f := x.p, x.f
	in := f.insts[i]
	deps, pos := in.Deps, in.Pos
	if x.NoDeps {
		f.insts[i].Deps = -1
	}
	if x.NoPos {
		f.insts[i].Pos = NoPos
	}
	if in.Op.IsLoop() {
		f.insts[i].Aux = -1 // no body
	}
	p.buf = p.buf[:0]
	p.inst(f, i, 0)
	f.insts[i].Deps, f.insts[i].Pos, f.insts[i].Aux = deps, pos, in.Aux
	line := p.buf
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	return append(b, line...)
}
