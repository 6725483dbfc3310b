// The fuzz target of the parser: any input parses or fails with a
// *Error, never a panic (Parse turns one into an "internal error", which
// fails the target), an error names a line of the source, and a parsed
// tree dumps and has every positioned node inside the source, starting
// before it ends. Seeded with the grammar corpus, the bad-snippet table
// and a few generated programs; inputs it found are kept under
// testdata/fuzz/FuzzParse.

package syntax

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	// Seeds are kept small (the top-level statements of the corpus files
	// and of a few generated programs, in chunks of at most 2 KB): the
	// fuzzer minimizes every new interesting input, which takes long on
	// large ones.
	corpus, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*.py"))
	for _, path := range corpus {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, chunk := range topLevelChunks(src, 2048) {
			f.Add(chunk)
		}
	}
	for _, tt := range syntaxErrorTests {
		f.Add([]byte(tt.src))
	}
	for _, p := range generatePrograms(8, genSeed+1) {
		for _, chunk := range topLevelChunks([]byte(p), 2048) {
			f.Add(chunk)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkParse(t, src)
	})
}

// checkParse asserts the fuzz target's properties for one input.
func checkParse(t *testing.T, src []byte) {
	file, err := Parse("fuzz.py", src)
	lines := sourceLines(src)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is not a *Error", err)
		}
		if strings.HasPrefix(e.Msg, "internal error") {
			t.Fatalf("%s", e.Msg)
		}
		if e.Line < 1 || e.Line > max(1, len(lines)) {
			t.Fatalf("error %v: line %d outside the source's %d lines", e, e.Line, len(lines))
		}
		if e.Kind != "SyntaxError" && e.Kind != "IndentationError" && e.Kind != "TabError" {
			t.Fatalf("error %v: kind %q", e, e.Kind)
		}
		return
	}
	if DumpFile(file) == "" {
		t.Fatal("empty dump")
	}
	InspectFile(file, func(n Node) bool {
		if n == nil {
			return false
		}
		if _, positioned, _ := nodeFields(n); !positioned {
			return true
		}
		sp := n.Extent()
		if !sp.Start.Before(sp.End) {
			t.Fatalf("%T %v: does not start before it ends", n, sp)
		}
		for _, p := range []Pos{sp.Start, sp.End} {
			if p.Line < 1 || int(p.Line) > len(lines) || p.Col < 0 || int(p.Col) > len(lines[p.Line-1]) {
				t.Fatalf("%T %v: position %v outside the source (%d lines)", n, sp, p, len(lines))
			}
		}
		return true
	})
	// The expression entry point on the same input must not panic either.
	if _, err := ParseExpr("fuzz.py", src); err != nil {
		var e *Error
		if !errors.As(err, &e) || strings.HasPrefix(e.Msg, "internal error") {
			t.Fatalf("ParseExpr: %v", err)
		}
	}
}

// sourceLines splits the normalized source into lines (a final newline
// ends the last line and starts none).
func sourceLines(src []byte) [][]byte {
	src = normalizeNewlines(src)
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	if len(src) == 0 {
		return nil
	}
	src = bytes.TrimSuffix(src, []byte("\n"))
	return bytes.Split(src, []byte("\n"))
}

// topLevelChunks splits a module into runs of whole top-level statements
// (a new chunk starts at a line that begins in column 0 with a name or a
// keyword) of at most max bytes where the statements allow it.
func topLevelChunks(src []byte, max int) [][]byte {
	var chunks [][]byte
	lines := bytes.SplitAfter(src, []byte("\n"))
	var cur []byte
	for _, l := range lines {
		starts := len(l) > 0 && (l[0] >= 'a' && l[0] <= 'z' || l[0] >= 'A' && l[0] <= 'Z' || l[0] == '@')
		if starts && len(cur) > 0 && len(cur)+len(l) > max {
			chunks = append(chunks, cur)
			cur = nil
		}
		cur = append(cur, l...)
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}
