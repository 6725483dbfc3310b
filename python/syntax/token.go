// This file defines the tokens the scanner produces and the parser reads.
//
// The token set is CPython 3.11's (Grammar/Tokens): NAME, NUMBER, STRING,
// NEWLINE, INDENT, DEDENT, ENDMARKER and the operators. Unlike CPython,
// keywords are token kinds of their own (the scanner classifies a NAME as
// a keyword once, so the parser compares kinds); the soft keywords
// `match`, `case` and `_` stay NAMEs, as in CPython.

package syntax

type tokKind uint8

const (
	tkError     tokKind = iota // a tokenizer error; the scanner's error explains it
	tkEndMarker                // ENDMARKER
	tkNewline                  // NEWLINE
	tkIndent                   // INDENT
	tkDedent                   // DEDENT
	tkName                     // NAME (not a keyword)
	tkNumber                   // NUMBER
	tkString                   // STRING (one literal, prefix and quotes included)

	// Operators and delimiters.
	tkLpar      // (
	tkRpar      // )
	tkLsqb      // [
	tkRsqb      // ]
	tkLbrace    // {
	tkRbrace    // }
	tkColon     // :
	tkComma     // ,
	tkSemi      // ;
	tkPlus      // +
	tkMinus     // -
	tkStar      // *
	tkSlash     // /
	tkVbar      // |
	tkAmper     // &
	tkLess      // <
	tkGreater   // >
	tkEqual     // =
	tkDot       // .
	tkPercent   // %
	tkTilde     // ~
	tkCircum    // ^
	tkAt        // @
	tkEqEq      // ==
	tkNotEq     // !=
	tkLtGt      // <> (tokenized, never accepted: CPython's Barry-as-FLUFL spelling)
	tkLessEq    // <=
	tkGreaterEq // >=
	tkLshift    // <<
	tkRshift    // >>
	tkDStar     // **
	tkDSlash    // //
	tkArrow     // ->
	tkEllipsis  // ...
	tkWalrus    // :=
	tkPlusEq    // +=
	tkMinusEq   // -=
	tkStarEq    // *=
	tkSlashEq   // /=
	tkPercentEq // %=
	tkAmperEq   // &=
	tkVbarEq    // |=
	tkCircumEq  // ^=
	tkLshiftEq  // <<=
	tkRshiftEq  // >>=
	tkDStarEq   // **=
	tkDSlashEq  // //=
	tkAtEq      // @=
	tkBad       // a character no token starts with ($, ?, `, a lone !): CPython's ERRORTOKEN OP

	// Keywords.
	tkFalse
	tkNone
	tkTrue
	tkAnd
	tkAs
	tkAssert
	tkAsync
	tkAwait
	tkBreak
	tkClass
	tkContinue
	tkDef
	tkDel
	tkElif
	tkElse
	tkExcept
	tkFinally
	tkFor
	tkFrom
	tkGlobal
	tkIf
	tkImport
	tkIn
	tkIs
	tkLambda
	tkNonlocal
	tkNot
	tkOr
	tkPass
	tkRaise
	tkReturn
	tkTry
	tkWhile
	tkWith
	tkYield
)

var keywords = map[string]tokKind{
	"False": tkFalse, "None": tkNone, "True": tkTrue, "and": tkAnd, "as": tkAs,
	"assert": tkAssert, "async": tkAsync, "await": tkAwait, "break": tkBreak,
	"class": tkClass, "continue": tkContinue, "def": tkDef, "del": tkDel,
	"elif": tkElif, "else": tkElse, "except": tkExcept, "finally": tkFinally,
	"for": tkFor, "from": tkFrom, "global": tkGlobal, "if": tkIf,
	"import": tkImport, "in": tkIn, "is": tkIs, "lambda": tkLambda,
	"nonlocal": tkNonlocal, "not": tkNot, "or": tkOr, "pass": tkPass,
	"raise": tkRaise, "return": tkReturn, "try": tkTry, "while": tkWhile,
	"with": tkWith, "yield": tkYield,
}

// augOps maps an augmented-assignment token to its operator.
var augOps = map[tokKind]Operator{
	tkPlusEq: Add, tkMinusEq: Sub, tkStarEq: Mult, tkAtEq: MatMult,
	tkSlashEq: Div, tkPercentEq: Mod, tkAmperEq: BitAnd, tkVbarEq: BitOr,
	tkCircumEq: BitXor, tkLshiftEq: LShift, tkRshiftEq: RShift,
	tkDStarEq: Pow, tkDSlashEq: FloorDiv,
}

// token is one token: its kind, where it starts and ends (line and byte
// column, as CPython's tokens), and its bytes in the source.
type token struct {
	start Pos
	end   Pos
	off   int32 // byte offset of the first byte in the (normalized) source
	eoff  int32 // byte offset one past the last byte
	// errCol is, for INDENT, DEDENT and ENDMARKER (which CPython gives no
	// column), the 1-based SyntaxError offset an error at this token has.
	errCol int32
	// errLine, when nonzero, is the line such an error is reported on
	// (the last line, for tokens at the end of the input).
	errLine int32
	// level is the bracket nesting depth after the token (CPython's
	// tok->level), used by the error heuristics.
	level int16
	kind  tokKind
}
