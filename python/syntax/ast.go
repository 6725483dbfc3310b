// Package syntax is narwhal's Python 3 front end: a scanner, an abstract
// syntax tree and a parser for the Python that NKI kernels are written in.
//
// The tree mirrors CPython's ast module (Python 3.11, Lib/ast.py and
// Parser/Python.asdl): every node type and field of CPython's grammar has
// a Go counterpart of the same name, Go-cased (ast.FunctionDef's
// decorator_list is FunctionDef.DecoratorList), so that a canonical dump
// of a tree (Dump) is identical, character for character, to the dump of
// the same source by CPython (see the test that compares them). Positions
// follow CPython exactly: lines are 1-based, columns are 0-based UTF-8 byte
// offsets into the line, and End is one past the node's last byte, as
// lineno/col_offset/end_lineno/end_col_offset are.
//
// The package depends on nothing but the standard library. Its shape
// follows go/ast and go/parser (Starlark-in-Go's syntax package is the
// model of a Python-like front end in Go): a File holds the statements and
// the source, so an error can show the line it is about.
package syntax

import "math/big"

// Pos is a position in a source file: Line is 1-based, Col is the 0-based
// byte offset in the line (CPython's lineno and col_offset). The zero Pos
// is "no position".
type Pos struct {
	Line int32
	Col  int32
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before reports whether p comes strictly before q.
func (p Pos) Before(q Pos) bool { return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col }

// Span is the extent of a node: Start is its first byte, End one past its
// last byte (CPython's end_lineno and end_col_offset).
type Span struct {
	Start Pos
	End   Pos
}

// Node is implemented by every node of the tree.
type Node interface {
	// Span returns the node's extent. Nodes CPython gives no position
	// (Comprehension, Arguments, WithItem, MatchCase, Keyword-less
	// helpers) return the span of their text nonetheless, for error
	// messages; Dump omits it for them as CPython does.
	Extent() Span
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// Pattern is a pattern of a match statement.
type Pattern interface {
	Node
	patternNode()
}

// Extent returns the span itself, so that structs embedding Span satisfy Node.
func (s Span) Extent() Span { return s }

// File is a parsed module: its statements, its name and its source (kept so
// that errors and tracebacks can show the offending line).
type File struct {
	Name string // the file name as given to the parser
	Src  []byte // the source text
	Body []Stmt
}

// Line returns the text of line n (1-based) without its line ending, or ""
// when n is out of range.
func (f *File) Line(n int) string {
	if n < 1 {
		return ""
	}
	src := f.Src
	for i := 1; i < n; i++ {
		j := indexNewline(src)
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	j := indexNewline(src)
	if j >= 0 {
		src = src[:j]
	}
	if len(src) > 0 && src[len(src)-1] == '\r' {
		src = src[:len(src)-1]
	}
	return string(src)
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// ExprContext is CPython's expr_context: how a Name, Attribute, Subscript,
// Starred, List or Tuple is used.
type ExprContext uint8

const (
	Load ExprContext = iota
	Store
	Del
)

func (c ExprContext) String() string {
	switch c {
	case Store:
		return "Store"
	case Del:
		return "Del"
	}
	return "Load"
}

// BoolOpKind is CPython's boolop.
type BoolOpKind uint8

const (
	And BoolOpKind = iota
	Or
)

func (o BoolOpKind) String() string {
	if o == Or {
		return "Or"
	}
	return "And"
}

// Operator is CPython's operator (binary and augmented-assignment operators).
type Operator uint8

const (
	Add Operator = iota
	Sub
	Mult
	MatMult
	Div
	Mod
	Pow
	LShift
	RShift
	BitOr
	BitXor
	BitAnd
	FloorDiv
)

var operatorNames = [...]string{"Add", "Sub", "Mult", "MatMult", "Div", "Mod", "Pow", "LShift", "RShift", "BitOr", "BitXor", "BitAnd", "FloorDiv"}

// operatorSymbols are the operators as written in source ("+", "@", "//").
var operatorSymbols = [...]string{"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"}

func (o Operator) String() string { return operatorNames[o] }

// Symbol returns the operator as written in source.
func (o Operator) Symbol() string { return operatorSymbols[o] }

// UnaryOpKind is CPython's unaryop.
type UnaryOpKind uint8

const (
	Invert UnaryOpKind = iota
	Not
	UAdd
	USub
)

var unaryNames = [...]string{"Invert", "Not", "UAdd", "USub"}
var unarySymbols = [...]string{"~", "not", "+", "-"}

func (o UnaryOpKind) String() string { return unaryNames[o] }

// Symbol returns the operator as written in source.
func (o UnaryOpKind) Symbol() string { return unarySymbols[o] }

// CmpOp is CPython's cmpop.
type CmpOp uint8

const (
	Eq CmpOp = iota
	NotEq
	Lt
	LtE
	Gt
	GtE
	Is
	IsNot
	In
	NotIn
)

var cmpNames = [...]string{"Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn"}
var cmpSymbols = [...]string{"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"}

func (o CmpOp) String() string { return cmpNames[o] }

// Symbol returns the operator as written in source.
func (o CmpOp) Symbol() string { return cmpSymbols[o] }

// ---------------------------------------------------------------------------
// Expressions.

// BoolOp is `a and b and c` (Values has two or more elements).
type BoolOp struct {
	Span
	Op     BoolOpKind
	Values []Expr
}

// NamedExpr is `target := value`.
type NamedExpr struct {
	Span
	Target Expr // a *Name
	Value  Expr
}

// BinOp is `left op right`.
type BinOp struct {
	Span
	Left  Expr
	Op    Operator
	Right Expr
}

// UnaryOp is `op operand`.
type UnaryOp struct {
	Span
	Op      UnaryOpKind
	Operand Expr
}

// Lambda is `lambda args: body`.
type Lambda struct {
	Span
	Args *Arguments
	Body Expr
}

// IfExp is `body if test else orelse`.
type IfExp struct {
	Span
	Test   Expr
	Body   Expr
	OrElse Expr
}

// Dict is `{k: v, **m}`: a nil key stands for a `**m` entry (Values holds m).
type Dict struct {
	Span
	Keys   []Expr
	Values []Expr
}

// Set is `{a, b}`.
type Set struct {
	Span
	Elts []Expr
}

// ListComp is `[elt for ...]`.
type ListComp struct {
	Span
	Elt        Expr
	Generators []*Comprehension
}

// SetComp is `{elt for ...}`.
type SetComp struct {
	Span
	Elt        Expr
	Generators []*Comprehension
}

// DictComp is `{key: value for ...}`.
type DictComp struct {
	Span
	Key        Expr
	Value      Expr
	Generators []*Comprehension
}

// GeneratorExp is `(elt for ...)`.
type GeneratorExp struct {
	Span
	Elt        Expr
	Generators []*Comprehension
}

// Await is `await value`.
type Await struct {
	Span
	Value Expr
}

// Yield is `yield value` (Value nil for a bare yield).
type Yield struct {
	Span
	Value Expr
}

// YieldFrom is `yield from value`.
type YieldFrom struct {
	Span
	Value Expr
}

// Compare is `left op0 c0 op1 c1 ...` (len(Ops) == len(Comparators) >= 1).
type Compare struct {
	Span
	Left        Expr
	Ops         []CmpOp
	Comparators []Expr
}

// Call is `func(args, keywords)`. Positional `*x` arguments are *Starred
// elements of Args; `**m` is a Keyword with an empty Arg.
type Call struct {
	Span
	Func     Expr
	Args     []Expr
	Keywords []*Keyword
}

// FormattedValue is one `{value!conversion:format_spec}` field of an
// f-string. Conversion is -1 (none) or the rune 's', 'r' or 'a';
// FormatSpec is nil or a *JoinedStr.
type FormattedValue struct {
	Span
	Value      Expr
	Conversion int
	FormatSpec Expr
}

// JoinedStr is an f-string: its literal parts are *Constant strings, its
// fields *FormattedValue.
type JoinedStr struct {
	Span
	Values []Expr
}

// ConstKind says which Go type a Constant's Value has.
type ConstKind uint8

const (
	ConstNone     ConstKind = iota // Value nil
	ConstBool                      // bool
	ConstInt                       // *big.Int
	ConstFloat                     // float64
	ConstComplex                   // complex128 (an imaginary literal: real part 0)
	ConstStr                       // string (the decoded text, UTF-8)
	ConstBytes                     // []byte
	ConstEllipsis                  // Value nil
)

// Constant is a literal: a number, a string (adjacent string literals
// already concatenated), bytes, True/False/None or `...`. Kind is "u" for
// a string literal with a u prefix (CPython's kind), else "".
type Constant struct {
	Span
	Kind  ConstKind
	Value any
	UKind string
}

// Int returns the value of an integer constant (nil for other kinds).
func (c *Constant) Int() *big.Int {
	if v, ok := c.Value.(*big.Int); ok {
		return v
	}
	return nil
}

// Attribute is `value.attr`.
type Attribute struct {
	Span
	Value Expr
	Attr  string
	// AttrPos is where the attribute's name starts (for error messages;
	// CPython keeps no position for it).
	AttrPos Pos
	Ctx     ExprContext
}

// Subscript is `value[slice]`; a subscript of several items has a *Tuple
// slice, as in CPython.
type Subscript struct {
	Span
	Value Expr
	Slice Expr
	Ctx   ExprContext
}

// Starred is `*value`.
type Starred struct {
	Span
	Value Expr
	Ctx   ExprContext
}

// Name is an identifier.
type Name struct {
	Span
	ID  string
	Ctx ExprContext
}

// List is `[a, b]`.
type List struct {
	Span
	Elts []Expr
	Ctx  ExprContext
}

// Tuple is `a, b` or `(a, b)`.
type Tuple struct {
	Span
	Elts []Expr
	Ctx  ExprContext
}

// Slice is `lower:upper:step` inside a subscript (each part may be nil).
type Slice struct {
	Span
	Lower Expr
	Upper Expr
	Step  Expr
}

func (*BoolOp) exprNode()         {}
func (*NamedExpr) exprNode()      {}
func (*BinOp) exprNode()          {}
func (*UnaryOp) exprNode()        {}
func (*Lambda) exprNode()         {}
func (*IfExp) exprNode()          {}
func (*Dict) exprNode()           {}
func (*Set) exprNode()            {}
func (*ListComp) exprNode()       {}
func (*SetComp) exprNode()        {}
func (*DictComp) exprNode()       {}
func (*GeneratorExp) exprNode()   {}
func (*Await) exprNode()          {}
func (*Yield) exprNode()          {}
func (*YieldFrom) exprNode()      {}
func (*Compare) exprNode()        {}
func (*Call) exprNode()           {}
func (*FormattedValue) exprNode() {}
func (*JoinedStr) exprNode()      {}
func (*Constant) exprNode()       {}
func (*Attribute) exprNode()      {}
func (*Subscript) exprNode()      {}
func (*Starred) exprNode()        {}
func (*Name) exprNode()           {}
func (*List) exprNode()           {}
func (*Tuple) exprNode()          {}
func (*Slice) exprNode()          {}

// ---------------------------------------------------------------------------
// Helpers without a position of their own in CPython.

// Comprehension is one `for target in iter if ifs...` clause.
type Comprehension struct {
	Span
	Target  Expr
	Iter    Expr
	Ifs     []Expr
	IsAsync bool
}

// Arguments is a parameter list. KwDefaults has one entry per KwOnlyArgs
// entry (nil where the parameter has no default); Defaults belong to the
// last len(Defaults) of PosOnlyArgs followed by Args.
type Arguments struct {
	Span
	PosOnlyArgs []*Arg
	Args        []*Arg
	VarArg      *Arg
	KwOnlyArgs  []*Arg
	KwDefaults  []Expr
	KwArg       *Arg
	Defaults    []Expr
}

// Arg is one parameter.
type Arg struct {
	Span
	Arg        string
	Annotation Expr
}

// Keyword is `arg=value` in a call or class definition; an empty Arg is
// `**value`.
type Keyword struct {
	Span
	Arg   string
	Value Expr
}

// Alias is `name as asname` in an import (AsName "" when absent).
type Alias struct {
	Span
	Name   string
	AsName string
}

// WithItem is `context_expr as optional_vars` (OptionalVars may be nil).
type WithItem struct {
	Span
	ContextExpr  Expr
	OptionalVars Expr
}

// ExceptHandler is `except type as name: body` (Type nil for a bare except,
// Name "" when absent).
type ExceptHandler struct {
	Span
	Type Expr
	Name string
	Body []Stmt
}

// MatchCase is `case pattern if guard: body`.
type MatchCase struct {
	Span
	Pattern Pattern
	Guard   Expr
	Body    []Stmt
}

// ---------------------------------------------------------------------------
// Statements.

// FunctionDef is `def name(args) -> returns: body`, with its decorators.
// Span starts at the `def` keyword (or `async`), as CPython's does, not
// at the first decorator.
type FunctionDef struct {
	Span
	Name          string
	Args          *Arguments
	Body          []Stmt
	DecoratorList []Expr
	Returns       Expr
	IsAsync       bool // AsyncFunctionDef
}

// ClassDef is `class name(bases, keywords): body`, with its decorators.
type ClassDef struct {
	Span
	Name          string
	Bases         []Expr
	Keywords      []*Keyword
	Body          []Stmt
	DecoratorList []Expr
}

// Return is `return value` (Value nil when bare).
type Return struct {
	Span
	Value Expr
}

// Delete is `del targets`.
type Delete struct {
	Span
	Targets []Expr
}

// Assign is `t0 = t1 = ... = value`.
type Assign struct {
	Span
	Targets []Expr
	Value   Expr
}

// AugAssign is `target op= value`.
type AugAssign struct {
	Span
	Target Expr
	Op     Operator
	Value  Expr
}

// AnnAssign is `target: annotation = value` (Value may be nil). Simple is
// true for a plain name target not in parentheses.
type AnnAssign struct {
	Span
	Target     Expr
	Annotation Expr
	Value      Expr
	Simple     bool
}

// For is `for target in iter: body else: orelse`.
type For struct {
	Span
	Target  Expr
	Iter    Expr
	Body    []Stmt
	OrElse  []Stmt
	IsAsync bool // AsyncFor
}

// While is `while test: body else: orelse`.
type While struct {
	Span
	Test   Expr
	Body   []Stmt
	OrElse []Stmt
}

// If is `if test: body else: orelse` (an elif is an If alone in OrElse).
type If struct {
	Span
	Test   Expr
	Body   []Stmt
	OrElse []Stmt
}

// With is `with items: body`.
type With struct {
	Span
	Items   []*WithItem
	Body    []Stmt
	IsAsync bool // AsyncWith
}

// Match is `match subject: cases`.
type Match struct {
	Span
	Subject Expr
	Cases   []*MatchCase
}

// Raise is `raise exc from cause` (either may be nil).
type Raise struct {
	Span
	Exc   Expr
	Cause Expr
}

// Try is `try: body except...: else: finally:`; IsStar marks `except*`
// (TryStar).
type Try struct {
	Span
	Body      []Stmt
	Handlers  []*ExceptHandler
	OrElse    []Stmt
	FinalBody []Stmt
	IsStar    bool
}

// Assert is `assert test, msg` (Msg may be nil).
type Assert struct {
	Span
	Test Expr
	Msg  Expr
}

// Import is `import a.b as c, d`.
type Import struct {
	Span
	Names []*Alias
}

// ImportFrom is `from ..module import names` (Module "" for `from . import x`;
// Level counts the leading dots).
type ImportFrom struct {
	Span
	Module string
	Names  []*Alias
	Level  int
}

// Global is `global names`.
type Global struct {
	Span
	Names []string
}

// Nonlocal is `nonlocal names`.
type Nonlocal struct {
	Span
	Names []string
}

// ExprStmt is an expression used as a statement (CPython's Expr).
type ExprStmt struct {
	Span
	Value Expr
}

// Pass is `pass`.
type Pass struct{ Span }

// Break is `break`.
type Break struct{ Span }

// Continue is `continue`.
type Continue struct{ Span }

func (*FunctionDef) stmtNode() {}
func (*ClassDef) stmtNode()    {}
func (*Return) stmtNode()      {}
func (*Delete) stmtNode()      {}
func (*Assign) stmtNode()      {}
func (*AugAssign) stmtNode()   {}
func (*AnnAssign) stmtNode()   {}
func (*For) stmtNode()         {}
func (*While) stmtNode()       {}
func (*If) stmtNode()          {}
func (*With) stmtNode()        {}
func (*Match) stmtNode()       {}
func (*Raise) stmtNode()       {}
func (*Try) stmtNode()         {}
func (*Assert) stmtNode()      {}
func (*Import) stmtNode()      {}
func (*ImportFrom) stmtNode()  {}
func (*Global) stmtNode()      {}
func (*Nonlocal) stmtNode()    {}
func (*ExprStmt) stmtNode()    {}
func (*Pass) stmtNode()        {}
func (*Break) stmtNode()       {}
func (*Continue) stmtNode()    {}

// ---------------------------------------------------------------------------
// Patterns (match statements).

// MatchValue is a value pattern (`case 1:`, `case Color.RED:`).
type MatchValue struct {
	Span
	Value Expr
}

// MatchSingleton is `case None/True/False:` (Value nil, true or false).
type MatchSingleton struct {
	Span
	Value any
}

// MatchSequence is `case [a, b, *rest]:`.
type MatchSequence struct {
	Span
	Patterns []Pattern
}

// MatchMapping is `case {"k": p, **rest}:` (Rest "" when absent).
type MatchMapping struct {
	Span
	Keys     []Expr
	Patterns []Pattern
	Rest     string
}

// MatchClass is `case Point(x, y=0):`.
type MatchClass struct {
	Span
	Cls         Expr
	Patterns    []Pattern
	KwdAttrs    []string
	KwdPatterns []Pattern
}

// MatchStar is `*name` in a sequence pattern (Name "" for `*_`).
type MatchStar struct {
	Span
	Name string
}

// MatchAs is `pattern as name`, a capture (`case x:`, Pattern nil) or the
// wildcard `_` (Pattern nil, Name "").
type MatchAs struct {
	Span
	Pattern Pattern
	Name    string
}

// MatchOr is `p1 | p2`.
type MatchOr struct {
	Span
	Patterns []Pattern
}

func (*MatchValue) patternNode()     {}
func (*MatchSingleton) patternNode() {}
func (*MatchSequence) patternNode()  {}
func (*MatchMapping) patternNode()   {}
func (*MatchClass) patternNode()     {}
func (*MatchStar) patternNode()      {}
func (*MatchAs) patternNode()        {}
func (*MatchOr) patternNode()        {}

// ---------------------------------------------------------------------------
// The parser's entry points (parser.go implements them).

// Error is a syntax error, as CPython reports it: the file, the line and
// the 1-based column of the offending token (CPython's SyntaxError.offset,
// which is 1-based where col_offset is 0-based), and a message such as
// "invalid syntax", "expected ':'" or "unexpected indent". Error() renders
// it "file:line:col: message".
type Error struct {
	File string
	Line int
	Col  int // 1-based, as SyntaxError.offset
	Msg  string
	// Kind is "SyntaxError", "IndentationError" or "TabError", as CPython
	// would raise.
	Kind string
}
