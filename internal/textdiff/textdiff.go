// Package textdiff computes line differences: which lines of one text
// were removed and which of another were added, as the Go compiler's
// ssa.html marks what a pass changed. Used by the HTML compile report and
// by docs/errors.md's fixes.
//
// The algorithm is Myers' O(ND) greedy diff over line hashes, with the
// common prefix and suffix trimmed first (a pass usually changes a part of
// the module), so the cost is linear when the texts are nearly equal. D is
// bounded by MaxEdits: beyond it the middle is reported as one replaced
// region (correct, not minimal), so a pass that rewrites everything costs
// O(n) rather than O(n^2).
package textdiff

import (
	"hash/maphash"
	"strings"
)

// Op says what happened to a line.
type Op uint8

const (
	Same Op = iota
	Removed
	Added
)

// Line is one line of the unified result.
type Line struct {
	Op   Op
	Text string
}

// MaxEdits bounds the edit distance searched exactly.
const MaxEdits = 1000

// Lines diffs a against b (each split into lines) and returns the merged
// sequence: common lines once, removed lines of a before added lines of b
// at each change.
func Lines(a, b []string) []Line {
	seed := maphash.MakeSeed()
	ha := hashes(seed, a)
	hb := hashes(seed, b)
	pre := 0
	for pre < len(a) && pre < len(b) && ha[pre] == hb[pre] && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && ha[len(a)-1-suf] == hb[len(b)-1-suf] && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]Line, 0, max(len(a), len(b))+8)
	for _, s := range a[:pre] {
		out = append(out, Line{Same, s})
	}
	out = middle(out, a[pre:len(a)-suf], b[pre:len(b)-suf], ha[pre:len(a)-suf], hb[pre:len(b)-suf])
	for _, s := range a[len(a)-suf:] {
		out = append(out, Line{Same, s})
	}
	return out
}

// Split splits text into lines (no trailing empty line for a final "\n").
func Split(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

func hashes(seed maphash.Seed, ls []string) []uint64 {
	h := make([]uint64, len(ls))
	for i, s := range ls {
		h[i] = maphash.String(seed, s)
	}
	return h
}

// middle appends the diff of a and b (no common prefix or suffix).
func middle(out []Line, a, b []string, ha, hb []uint64) []Line {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaced(out, a, b)
	}
	eq := func(i, j int) bool { return ha[i] == hb[j] && a[i] == b[j] }
	maxD := min(n+m, MaxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && eq(x, y) {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
				return backtrack(out, a, b, trace)
			}
		}
		// Only the frontier's diagonals -d-1..d+1 are kept: O(D^2) memory.
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
	}
	return replaced(out, a, b)
}

func replaced(out []Line, a, b []string) []Line {
	for _, s := range a {
		out = append(out, Line{Removed, s})
	}
	for _, s := range b {
		out = append(out, Line{Added, s})
	}
	return out
}

// backtrack walks the saved frontiers from (n, m) back to (0, 0); trace[d]
// holds diagonals -d-1..d+1 of step d (diagonal k at index k+d+1).
func backtrack(out []Line, a, b []string, trace [][]int) []Line {
	x, y := len(a), len(b)
	var rev []Line
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // diagonal k at index k+d
		at := func(k int) int { return prev[k+d] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, Line{Same, a[x]})
		}
		if x == px {
			y--
			rev = append(rev, Line{Added, b[y]})
		} else {
			x--
			rev = append(rev, Line{Removed, a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, Line{Same, a[x]})
	}
	// Within a change, removed lines come before added ones.
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

// Unified renders the diff with "- ", "+ " and "  " prefixes, keeping
// context lines of unchanged text around each change and eliding the
// rest with "...".
func Unified(ls []Line, context int) string {
	var sb strings.Builder
	keep := make([]bool, len(ls))
	for i, l := range ls {
		if l.Op != Same {
			for j := max(0, i-context); j <= min(len(ls)-1, i+context); j++ {
				keep[j] = true
			}
		}
	}
	elided := false
	for i, l := range ls {
		if !keep[i] {
			if !elided {
				sb.WriteString("  ...\n")
				elided = true
			}
			continue
		}
		elided = false
		switch l.Op {
		case Removed:
			sb.WriteString("- ")
		case Added:
			sb.WriteString("+ ")
		default:
			sb.WriteString("  ")
		}
		sb.WriteString(l.Text)
		sb.WriteByte('\n')
	}
	return sb.String()
}
