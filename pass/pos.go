package pass

import (
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
)

// Source positions of pass errors.
//
// A pass error names the NKI source line it is about. A pass that knows
// the instruction or tensor returns a *bir.PosError (Function.Errorf,
// Function.TensorErrorf, Function.WrapErr), and the position leads the
// message. For the rest - errors written in the project's standard form
// "function F, instruction X: ..." (or "tensor T", "location L"), with or
// without a position - the manager resolves the first subject the message
// names against the module after the failure and attaches the position of
// that instruction (or of the first instruction reaching that tensor or
// location). Instruction, tensor and location names are unique within a
// function (KLR-translated instructions get unique names; clones add
// suffixes), so the lookup is exact; an ambiguous or unknown name yields
// no position rather than a wrong one.

// subjectPos returns the source position of what msg is about: the first
// "instruction NAME", "tensor NAME" or "location NAME" it mentions,
// looked up in the function it names ("function F") or, when it names
// none, in fn.
func subjectPos(m *bir.Module, fn, msg string) bir.Pos {
	if name, ok := phrase(msg, "function "); ok {
		fn = name
	}
	f := m.Func(fn)
	if f == nil {
		return bir.Pos{}
	}
	best, bestAt := bir.Pos{}, len(msg)+1
	if name, at, ok := phraseAt(msg, "instruction "); ok && at < bestAt {
		if i, found := f.InstByName(name); found && f.Inst(i).Pos != bir.NoPos {
			best, bestAt = f.InstPos(i), at
		}
	}
	if name, at, ok := phraseAt(msg, "tensor "); ok && at < bestAt {
		if t, found := f.TensorByName(name); found {
			if p := f.TensorPos(t); p.IsKnown() {
				best, bestAt = p, at
			}
		}
	}
	if name, at, ok := phraseAt(msg, "location "); ok && at < bestAt {
		if l, found := f.LocByName(name); found {
			if p := f.LocPos(l); p.IsKnown() {
				best = p
			}
		}
	}
	return best
}

func phrase(msg, word string) (string, bool) {
	name, _, ok := phraseAt(msg, word)
	return name, ok
}

// phraseAt finds word followed by a name (up to a space, ',', ':', ')' or
// the end) at a word boundary, returning the name and its offset.
func phraseAt(msg, word string) (string, int, bool) {
	for from := 0; from < len(msg); {
		k := strings.Index(msg[from:], word)
		if k < 0 {
			return "", 0, false
		}
		at := from + k
		from = at + len(word)
		if at > 0 && msg[at-1] != ' ' && msg[at-1] != '(' && msg[at-1] != ',' {
			continue
		}
		rest := msg[at+len(word):]
		end := strings.IndexAny(rest, " ,:)")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			continue
		}
		return strings.Trim(rest[:end], `"`), at, true
	}
	return "", 0, false
}
