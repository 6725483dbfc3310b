// This file is the canonical dump of a tree and the walker over it.
//
// Dump prints a tree in a line-oriented format that testdata/dump.py
// prints for CPython's ast of the same source, so that the two can be
// compared line by line. One node or field per line, indented one space
// per level:
//
//	Module
//	 body: [
//	  Expr 1:0-1:5
//	   value: Call 1:0-1:5
//	    func: Name 1:0-1:1
//	     id: 'f'
//	     ctx: Load
//	    args: []
//	    keywords: []
//	 ]
//
// Node names are CPython's (AsyncFunctionDef, TryStar, Expr, arguments,
// comprehension, ...), fields come in CPython's _fields order without the
// always-empty type_comment, type_ignores and (3.12) type_params, and a
// node CPython gives positions (its _attributes) is followed by
// lineno:col_offset-end_lineno:end_col_offset. Scalars: identifiers and
// str constants in single quotes with characters outside printable ASCII
// (and \ and ') written \u{hex}; bytes as b'...' with \xHH; ints in
// decimal; floats as Python's repr; complex numbers as repr(real)+repr(imag)j;
// None, True, False and ... as themselves; booleans CPython stores as
// ints (simple, is_async) as 0/1.

package syntax

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Dump returns the canonical dump of n (see the file comment).
func Dump(n Node) string {
	var d dumper
	d.value(n, 0, "")
	return d.b.String()
}

// DumpFile returns the canonical dump of a module.
func DumpFile(f *File) string {
	var d dumper
	d.b.WriteString("Module\n")
	body := make([]any, len(f.Body))
	for i, s := range f.Body {
		body[i] = s
	}
	d.value(body, 1, "body: ")
	return d.b.String()
}

type dumper struct{ b strings.Builder }

// symbol is a bare name in a dump (an operator or a context).
type symbol string

// ident is an identifier that CPython stores as None when absent.
type optIdent string

// field is a named child of a node.
type field struct {
	name string
	val  any // Node, nil, []any, string, optIdent, int, symbol, constValue
}

type constValue struct{ c *Constant }

func (d *dumper) indent(depth int) {
	for i := 0; i < depth; i++ {
		d.b.WriteByte(' ')
	}
}

func (d *dumper) value(v any, depth int, prefix string) {
	d.indent(depth)
	d.b.WriteString(prefix)
	switch v := v.(type) {
	case nil:
		d.b.WriteString("None\n")
	case []any:
		if len(v) == 0 {
			d.b.WriteString("[]\n")
			return
		}
		d.b.WriteString("[\n")
		for _, x := range v {
			d.value(x, depth+1, "")
		}
		d.indent(depth)
		d.b.WriteString("]\n")
	case string:
		d.b.WriteString(quoteStr(v))
		d.b.WriteByte('\n')
	case optIdent:
		if v == "" {
			d.b.WriteString("None\n")
		} else {
			d.b.WriteString(quoteStr(string(v)))
			d.b.WriteByte('\n')
		}
	case int:
		d.b.WriteString(strconv.Itoa(v))
		d.b.WriteByte('\n')
	case symbol:
		d.b.WriteString(string(v))
		d.b.WriteByte('\n')
	case constValue:
		d.b.WriteString(constRepr(v.c))
		d.b.WriteByte('\n')
	case Node:
		if isNilNode(v) {
			d.b.WriteString("None\n")
			return
		}
		name, pos, fields := nodeFields(v)
		d.b.WriteString(name)
		if pos {
			sp := v.Extent()
			d.b.WriteByte(' ')
			d.b.WriteString(strconv.Itoa(int(sp.Start.Line)))
			d.b.WriteByte(':')
			d.b.WriteString(strconv.Itoa(int(sp.Start.Col)))
			d.b.WriteByte('-')
			d.b.WriteString(strconv.Itoa(int(sp.End.Line)))
			d.b.WriteByte(':')
			d.b.WriteString(strconv.Itoa(int(sp.End.Col)))
		}
		d.b.WriteByte('\n')
		for _, f := range fields {
			d.value(f.val, depth+1, f.name+": ")
		}
	default:
		d.b.WriteString("?\n")
	}
}

// isNilNode reports whether n is a typed nil pointer.
func isNilNode(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *Name:
		return n == nil
	case *Constant:
		return n == nil
	case *Arguments:
		return n == nil
	case *Arg:
		return n == nil
	case *JoinedStr:
		return n == nil
	}
	return false
}

func exprs(l []Expr) []any {
	out := make([]any, len(l))
	for i, e := range l {
		if e != nil {
			out[i] = e
		}
	}
	return out
}

func stmts(l []Stmt) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func patterns(l []Pattern) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func strs(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func expr(e Expr) any {
	if e == nil {
		return nil
	}
	return e
}

func bool01(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nodeFields returns n's CPython class name, whether CPython gives it a
// position, and its fields in CPython's order.
func nodeFields(n Node) (string, bool, []field) {
	switch n := n.(type) {
	// Statements.
	case *FunctionDef:
		name := "FunctionDef"
		if n.IsAsync {
			name = "AsyncFunctionDef"
		}
		return name, true, []field{{"name", n.Name}, {"args", n.Args}, {"body", stmts(n.Body)},
			{"decorator_list", exprs(n.DecoratorList)}, {"returns", expr(n.Returns)}}
	case *ClassDef:
		kws := make([]any, len(n.Keywords))
		for i, k := range n.Keywords {
			kws[i] = k
		}
		return "ClassDef", true, []field{{"name", n.Name}, {"bases", exprs(n.Bases)}, {"keywords", kws},
			{"body", stmts(n.Body)}, {"decorator_list", exprs(n.DecoratorList)}}
	case *Return:
		return "Return", true, []field{{"value", expr(n.Value)}}
	case *Delete:
		return "Delete", true, []field{{"targets", exprs(n.Targets)}}
	case *Assign:
		return "Assign", true, []field{{"targets", exprs(n.Targets)}, {"value", expr(n.Value)}}
	case *AugAssign:
		return "AugAssign", true, []field{{"target", expr(n.Target)}, {"op", symbol(n.Op.String())}, {"value", expr(n.Value)}}
	case *AnnAssign:
		return "AnnAssign", true, []field{{"target", expr(n.Target)}, {"annotation", expr(n.Annotation)},
			{"value", expr(n.Value)}, {"simple", bool01(n.Simple)}}
	case *For:
		name := "For"
		if n.IsAsync {
			name = "AsyncFor"
		}
		return name, true, []field{{"target", expr(n.Target)}, {"iter", expr(n.Iter)}, {"body", stmts(n.Body)}, {"orelse", stmts(n.OrElse)}}
	case *While:
		return "While", true, []field{{"test", expr(n.Test)}, {"body", stmts(n.Body)}, {"orelse", stmts(n.OrElse)}}
	case *If:
		return "If", true, []field{{"test", expr(n.Test)}, {"body", stmts(n.Body)}, {"orelse", stmts(n.OrElse)}}
	case *With:
		name := "With"
		if n.IsAsync {
			name = "AsyncWith"
		}
		items := make([]any, len(n.Items))
		for i, it := range n.Items {
			items[i] = it
		}
		return name, true, []field{{"items", items}, {"body", stmts(n.Body)}}
	case *Match:
		cases := make([]any, len(n.Cases))
		for i, c := range n.Cases {
			cases[i] = c
		}
		return "Match", true, []field{{"subject", expr(n.Subject)}, {"cases", cases}}
	case *Raise:
		return "Raise", true, []field{{"exc", expr(n.Exc)}, {"cause", expr(n.Cause)}}
	case *Try:
		name := "Try"
		if n.IsStar {
			name = "TryStar"
		}
		hs := make([]any, len(n.Handlers))
		for i, h := range n.Handlers {
			hs[i] = h
		}
		return name, true, []field{{"body", stmts(n.Body)}, {"handlers", hs}, {"orelse", stmts(n.OrElse)}, {"finalbody", stmts(n.FinalBody)}}
	case *Assert:
		return "Assert", true, []field{{"test", expr(n.Test)}, {"msg", expr(n.Msg)}}
	case *Import:
		names := make([]any, len(n.Names))
		for i, a := range n.Names {
			names[i] = a
		}
		return "Import", true, []field{{"names", names}}
	case *ImportFrom:
		names := make([]any, len(n.Names))
		for i, a := range n.Names {
			names[i] = a
		}
		return "ImportFrom", true, []field{{"module", optIdent(n.Module)}, {"names", names}, {"level", n.Level}}
	case *Global:
		return "Global", true, []field{{"names", strs(n.Names)}}
	case *Nonlocal:
		return "Nonlocal", true, []field{{"names", strs(n.Names)}}
	case *ExprStmt:
		return "Expr", true, []field{{"value", expr(n.Value)}}
	case *Pass:
		return "Pass", true, nil
	case *Break:
		return "Break", true, nil
	case *Continue:
		return "Continue", true, nil

	// Expressions.
	case *BoolOp:
		return "BoolOp", true, []field{{"op", symbol(n.Op.String())}, {"values", exprs(n.Values)}}
	case *NamedExpr:
		return "NamedExpr", true, []field{{"target", expr(n.Target)}, {"value", expr(n.Value)}}
	case *BinOp:
		return "BinOp", true, []field{{"left", expr(n.Left)}, {"op", symbol(n.Op.String())}, {"right", expr(n.Right)}}
	case *UnaryOp:
		return "UnaryOp", true, []field{{"op", symbol(n.Op.String())}, {"operand", expr(n.Operand)}}
	case *Lambda:
		return "Lambda", true, []field{{"args", n.Args}, {"body", expr(n.Body)}}
	case *IfExp:
		return "IfExp", true, []field{{"test", expr(n.Test)}, {"body", expr(n.Body)}, {"orelse", expr(n.OrElse)}}
	case *Dict:
		return "Dict", true, []field{{"keys", exprs(n.Keys)}, {"values", exprs(n.Values)}}
	case *Set:
		return "Set", true, []field{{"elts", exprs(n.Elts)}}
	case *ListComp:
		return "ListComp", true, []field{{"elt", expr(n.Elt)}, {"generators", comps(n.Generators)}}
	case *SetComp:
		return "SetComp", true, []field{{"elt", expr(n.Elt)}, {"generators", comps(n.Generators)}}
	case *DictComp:
		return "DictComp", true, []field{{"key", expr(n.Key)}, {"value", expr(n.Value)}, {"generators", comps(n.Generators)}}
	case *GeneratorExp:
		return "GeneratorExp", true, []field{{"elt", expr(n.Elt)}, {"generators", comps(n.Generators)}}
	case *Await:
		return "Await", true, []field{{"value", expr(n.Value)}}
	case *Yield:
		return "Yield", true, []field{{"value", expr(n.Value)}}
	case *YieldFrom:
		return "YieldFrom", true, []field{{"value", expr(n.Value)}}
	case *Compare:
		ops := make([]any, len(n.Ops))
		for i, o := range n.Ops {
			ops[i] = symbol(o.String())
		}
		return "Compare", true, []field{{"left", expr(n.Left)}, {"ops", ops}, {"comparators", exprs(n.Comparators)}}
	case *Call:
		kws := make([]any, len(n.Keywords))
		for i, k := range n.Keywords {
			kws[i] = k
		}
		return "Call", true, []field{{"func", expr(n.Func)}, {"args", exprs(n.Args)}, {"keywords", kws}}
	case *FormattedValue:
		return "FormattedValue", true, []field{{"value", expr(n.Value)}, {"conversion", n.Conversion}, {"format_spec", expr(n.FormatSpec)}}
	case *JoinedStr:
		return "JoinedStr", true, []field{{"values", exprs(n.Values)}}
	case *Constant:
		return "Constant", true, []field{{"value", constValue{n}}, {"kind", optIdent(n.UKind)}}
	case *Attribute:
		return "Attribute", true, []field{{"value", expr(n.Value)}, {"attr", n.Attr}, {"ctx", symbol(n.Ctx.String())}}
	case *Subscript:
		return "Subscript", true, []field{{"value", expr(n.Value)}, {"slice", expr(n.Slice)}, {"ctx", symbol(n.Ctx.String())}}
	case *Starred:
		return "Starred", true, []field{{"value", expr(n.Value)}, {"ctx", symbol(n.Ctx.String())}}
	case *Name:
		return "Name", true, []field{{"id", n.ID}, {"ctx", symbol(n.Ctx.String())}}
	case *List:
		return "List", true, []field{{"elts", exprs(n.Elts)}, {"ctx", symbol(n.Ctx.String())}}
	case *Tuple:
		return "Tuple", true, []field{{"elts", exprs(n.Elts)}, {"ctx", symbol(n.Ctx.String())}}
	case *Slice:
		return "Slice", true, []field{{"lower", expr(n.Lower)}, {"upper", expr(n.Upper)}, {"step", expr(n.Step)}}

	// Helpers.
	case *Comprehension:
		return "comprehension", false, []field{{"target", expr(n.Target)}, {"iter", expr(n.Iter)}, {"ifs", exprs(n.Ifs)}, {"is_async", bool01(n.IsAsync)}}
	case *Arguments:
		args := func(l []*Arg) []any {
			out := make([]any, len(l))
			for i, a := range l {
				out[i] = a
			}
			return out
		}
		var va, ka any
		if n.VarArg != nil {
			va = n.VarArg
		}
		if n.KwArg != nil {
			ka = n.KwArg
		}
		return "arguments", false, []field{{"posonlyargs", args(n.PosOnlyArgs)}, {"args", args(n.Args)}, {"vararg", va},
			{"kwonlyargs", args(n.KwOnlyArgs)}, {"kw_defaults", exprs(n.KwDefaults)}, {"kwarg", ka}, {"defaults", exprs(n.Defaults)}}
	case *Arg:
		return "arg", true, []field{{"arg", n.Arg}, {"annotation", expr(n.Annotation)}}
	case *Keyword:
		return "keyword", true, []field{{"arg", optIdent(n.Arg)}, {"value", expr(n.Value)}}
	case *Alias:
		return "alias", true, []field{{"name", n.Name}, {"asname", optIdent(n.AsName)}}
	case *WithItem:
		return "withitem", false, []field{{"context_expr", expr(n.ContextExpr)}, {"optional_vars", expr(n.OptionalVars)}}
	case *ExceptHandler:
		return "ExceptHandler", true, []field{{"type", expr(n.Type)}, {"name", optIdent(n.Name)}, {"body", stmts(n.Body)}}
	case *MatchCase:
		var pat any
		if n.Pattern != nil {
			pat = n.Pattern
		}
		return "match_case", false, []field{{"pattern", pat}, {"guard", expr(n.Guard)}, {"body", stmts(n.Body)}}

	// Patterns.
	case *MatchValue:
		return "MatchValue", true, []field{{"value", expr(n.Value)}}
	case *MatchSingleton:
		var v any = symbol("None")
		if b, ok := n.Value.(bool); ok {
			v = symbol("False")
			if b {
				v = symbol("True")
			}
		}
		return "MatchSingleton", true, []field{{"value", v}}
	case *MatchSequence:
		return "MatchSequence", true, []field{{"patterns", patterns(n.Patterns)}}
	case *MatchMapping:
		return "MatchMapping", true, []field{{"keys", exprs(n.Keys)}, {"patterns", patterns(n.Patterns)}, {"rest", optIdent(n.Rest)}}
	case *MatchClass:
		return "MatchClass", true, []field{{"cls", expr(n.Cls)}, {"patterns", patterns(n.Patterns)},
			{"kwd_attrs", strs(n.KwdAttrs)}, {"kwd_patterns", patterns(n.KwdPatterns)}}
	case *MatchStar:
		return "MatchStar", true, []field{{"name", optIdent(n.Name)}}
	case *MatchAs:
		var pat any
		if n.Pattern != nil {
			pat = n.Pattern
		}
		return "MatchAs", true, []field{{"pattern", pat}, {"name", optIdent(n.Name)}}
	case *MatchOr:
		return "MatchOr", true, []field{{"patterns", patterns(n.Patterns)}}
	}
	return "?", false, nil
}

func comps(l []*Comprehension) []any {
	out := make([]any, len(l))
	for i, c := range l {
		out[i] = c
	}
	return out
}

// constRepr renders a Constant's value.
func constRepr(c *Constant) string {
	switch c.Kind {
	case ConstNone:
		return "None"
	case ConstEllipsis:
		return "..."
	case ConstBool:
		if c.Value.(bool) {
			return "True"
		}
		return "False"
	case ConstInt:
		return c.Value.(*big.Int).String()
	case ConstFloat:
		return FloatRepr(c.Value.(float64))
	case ConstComplex:
		v := c.Value.(complex128)
		return FloatRepr(real(v)) + "+" + FloatRepr(imag(v)) + "j"
	case ConstStr:
		return quoteStr(c.Value.(string))
	case ConstBytes:
		return quoteBytes(c.Value.([]byte))
	}
	return "?"
}

// quoteStr quotes s for the dump: printable ASCII as is (but \ and '),
// every other character (a WTF-8 surrogate included) as \u{hex}.
func quoteStr(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' && c != '\'' {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := decodeRuneLoose([]byte(s[i:min(len(s), i+4)]))
		b.WriteString(`\u{`)
		b.WriteString(strconv.FormatInt(int64(r), 16))
		b.WriteByte('}')
		i += size
	}
	b.WriteByte('\'')
	return b.String()
}

func quoteBytes(v []byte) string {
	var b strings.Builder
	b.WriteString("b'")
	const hex = "0123456789abcdef"
	for _, c := range v {
		if c >= 0x20 && c < 0x7f && c != '\\' && c != '\'' {
			b.WriteByte(c)
			continue
		}
		b.WriteString(`\x`)
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	b.WriteByte('\'')
	return b.String()
}

// FloatRepr formats f as Python's repr(float) does: the shortest digits
// that round-trip, in positional notation for decimal exponents -4..15
// (with ".0" when integral) and scientific notation otherwise ("1e+16",
// "1e-05"); "inf", "-inf", "nan".
func FloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±XX
	neg := ""
	if s[0] == '-' {
		neg, s = "-", s[1:]
	}
	e := strings.IndexByte(s, 'e')
	mant, exp := s[:e], s[e+1:]
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	decpt := x + 1
	if decpt <= -4 || decpt > 16 {
		out := digits[:1]
		if len(digits) > 1 {
			out += "." + digits[1:]
		}
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		es := strconv.Itoa(x)
		if len(es) < 2 {
			es = "0" + es
		}
		return neg + out + "e" + sign + es
	}
	switch {
	case decpt <= 0:
		return neg + "0." + strings.Repeat("0", -decpt) + digits
	case decpt >= len(digits):
		return neg + digits + strings.Repeat("0", decpt-len(digits)) + ".0"
	}
	return neg + digits[:decpt] + "." + digits[decpt:]
}

// Inspect traverses the tree rooted at n in depth-first order, as
// go/ast.Inspect does: it calls f(n); if f returns true, Inspect visits
// each of n's children (in CPython's field order), then calls f(nil).
func Inspect(n Node, f func(Node) bool) {
	if n == nil || isNilNode(n) {
		return
	}
	if !f(n) {
		return
	}
	_, _, fields := nodeFields(n)
	for _, fl := range fields {
		inspectValue(fl.val, f)
	}
	f(nil)
}

func inspectValue(v any, f func(Node) bool) {
	switch v := v.(type) {
	case Node:
		Inspect(v, f)
	case []any:
		for _, x := range v {
			inspectValue(x, f)
		}
	}
}

// InspectFile calls Inspect on each statement of a module.
func InspectFile(file *File, f func(Node) bool) {
	for _, s := range file.Body {
		Inspect(s, f)
	}
}
