package diag

import (
	"fmt"
	"io"
	"strings"

	"github.com/narwhal-compiler/narwhal/internal/textdiff"
)

// Exit statuses.
const (
	ExitOK       = 0
	ExitError    = 1 // a user error: the message says what to change
	ExitInternal = 2 // narwhal's fault
)

// Report prints err for command cmd ("compile", ...) on w, on one line,
// and returns the exit status. A user error is led by its code and ends
// with hint, or by default a pointer to `narwhal explain`:
//
//	narwhal compile: error[NW306]: kernels.py:28:4: ... (narwhal explain NW306)
//
// An internal error says it is narwhal's fault and how to report it, with
// the command line that reproduces it (argv: the arguments after the
// program name).
func Report(w io.Writer, cmd string, err error, argv []string, hint string) int {
	code := CodeOf(err)
	msg := OneLine(err.Error())
	if code == Internal {
		fmt.Fprintf(w, "narwhal %s: internal error[%s], %s: %s; %s\n", cmd, code, InternalText, msg, InternalHelp(argv))
		return ExitInternal
	}
	if hint == "" && code != "" {
		hint = "narwhal explain " + code
	}
	if hint != "" {
		hint = " (" + hint + ")"
	}
	if code == "" {
		fmt.Fprintf(w, "narwhal %s: %s%s\n", cmd, msg, hint)
		return ExitError
	}
	fmt.Fprintf(w, "narwhal %s: error[%s]: %s%s\n", cmd, code, msg, hint)
	return ExitError
}

// InternalText says whose fault an internal error is.
const InternalText = "a bug in narwhal and not in your input"

// InternalHelp says how to report an internal error with a reproducer
// (one line).
func InternalHelp(argv []string) string {
	return "please report it at " + ReportURL + " with the input file(s) and the command `narwhal " + ShellQuote(argv) +
		"` (NARWHAL_TRACEBACK=1 adds a stack trace; --dump-dir DIR keeps the module after each pass: the dump before the failing pass is the smallest reproducer)"
}

// OneLine keeps a message on one line (a long verifier report prints its
// first diagnostic and a count).
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.Count(s[i:], "\n")
		return s[:i] + fmt.Sprintf(" (%d more lines; see --verbose)", rest)
	}
	return s
}

// ShellQuote joins args for a POSIX shell, quoting those that need it.
func ShellQuote(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' || r == '+' || r == '@' ||
				('0' <= r && r <= '9') || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z'))
		}) < 0 {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// Explain renders entry e as Markdown (docs/errors.md's section, and what
// `narwhal explain` prints). out is the message the Example produces
// ("" to leave it out).
func (e *Entry) Explain(out string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "## %s: %s\n\n%s\n\n", e.Code, e.Title, e.ExplainText)
	if len(e.Example.Args) > 0 {
		writeExample(&sb, "Example", e.Example)
		if out != "" {
			sb.WriteString("```\n" + strings.TrimRight(out, "\n") + "\n```\n\n")
		}
	}
	sb.WriteString("Fix: " + e.FixText + "\n\n")
	if len(e.Fix.Args) > 0 {
		writeFix(&sb, e.Example, e.Fix)
	}
	return sb.String()
}

func writeExample(sb *strings.Builder, what string, ex Example) {
	fmt.Fprintf(sb, "%s: `narwhal %s`\n\n", what, ShellQuote(ex.Args))
	if ex.Note != "" {
		sb.WriteString(ex.Note + "\n\n")
	}
	for _, f := range ex.Files {
		fmt.Fprintf(sb, "`%s`:\n\n```%s\n%s\n```\n\n", f.Name, f.Lang, strings.TrimRight(f.Text, "\n"))
	}
}

// writeFix shows the fixed command when it differs and each fixed file as
// a diff against the example's.
func writeFix(sb *strings.Builder, ex, fix Example) {
	if ShellQuote(ex.Args) != ShellQuote(fix.Args) {
		fmt.Fprintf(sb, "`narwhal %s`\n\n", ShellQuote(fix.Args))
	}
	for _, f := range fix.Files {
		var old string
		for _, g := range ex.Files {
			if g.Name == f.Name {
				old = g.Text
			}
		}
		if f.Built || old == "" {
			fmt.Fprintf(sb, "`%s`:\n\n```%s\n%s\n```\n\n", f.Name, f.Lang, strings.TrimRight(f.Text, "\n"))
			continue
		}
		fmt.Fprintf(sb, "`%s`, changed:\n\n```diff\n%s```\n\n", f.Name, diffText(old, f.Text))
	}
}

// diffText is the unified line diff of a fix, two lines of context.
func diffText(a, b string) string {
	return textdiff.Unified(textdiff.Lines(textdiff.Split(a), textdiff.Split(b)), 2)
}
