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

// Report prints err for command cmd ("compile", ...) on w and returns the
// exit status. A user error is one line, led by its code, with a pointer
// to `narwhal explain`:
//
//	narwhal compile: error[NW306]: kernels.py:28:4: ... (narwhal explain NW306)
//
// An internal error says it is narwhal's fault and how to report it, with
// the command line that reproduces it (argv, the arguments after the
// program name).
func Report(w io.Writer, cmd string, err error, argv []string) int {
	code := CodeOf(err)
	msg := OneLine(err.Error())
	if code == Internal {
		fmt.Fprintf(w, "narwhal %s: internal error[%s]: %s\n", cmd, code, msg)
		fmt.Fprint(w, InternalHelp(argv))
		return ExitInternal
	}
	if code == "" {
		fmt.Fprintf(w, "narwhal %s: %s\n", cmd, msg)
		return ExitError
	}
	fmt.Fprintf(w, "narwhal %s: error[%s]: %s (narwhal explain %s)\n", cmd, code, msg, code)
	return ExitError
}

// InternalHelp is what follows an internal error's line: whose fault it
// is and how to report it with a reproducer.
func InternalHelp(argv []string) string {
	var sb strings.Builder
	sb.WriteString("This is a bug in narwhal, not a mistake in your input. Please report it at\n")
	sb.WriteString(ReportURL + " with a reproducer: the input file(s) and this command:\n")
	sb.WriteString("    narwhal " + ShellQuote(argv) + "\n")
	sb.WriteString("NARWHAL_TRACEBACK=1 adds a stack trace; --dump-dir DIR keeps the module after every pass\n")
	sb.WriteString("(the dump before the failing pass is the smallest reproducer).\n")
	return sb.String()
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
	fmt.Fprintf(sb, "%s: `narwhal %s`", what, ShellQuote(ex.Args))
	if len(ex.Files) == 0 {
		sb.WriteString("\n\n")
		return
	}
	sb.WriteString(" with\n\n")
	for _, f := range ex.Files {
		fmt.Fprintf(sb, "```%s\n# %s\n%s\n```\n\n", f.Lang, f.Name, strings.TrimRight(f.Text, "\n"))
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
			fmt.Fprintf(sb, "```%s\n# %s\n%s\n```\n\n", f.Lang, f.Name, strings.TrimRight(f.Text, "\n"))
			continue
		}
		fmt.Fprintf(sb, "```diff\n# %s\n%s```\n\n", f.Name, diffText(old, f.Text))
	}
}

// diffText is the unified line diff of a fix, two lines of context.
func diffText(a, b string) string {
	return textdiff.Unified(textdiff.Lines(textdiff.Split(a), textdiff.Split(b)), 2)
}
