package passtest

import (
	"fmt"
	"strings"
)

// LineDiff shows the first (at most ten) differing lines of two texts, for
// golden-file and round-trip test failures.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var sb strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 10; i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			fmt.Fprintf(&sb, "line %d:\n  want %s\n  have %s\n", i+1, a, b)
			shown++
		}
	}
	if shown == 0 && want != got {
		return "(equal lines, different line endings or length)"
	}
	return sb.String()
}
