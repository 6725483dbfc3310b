package pass

import (
	"github.com/narwhal-compiler/narwhal/bir"
)

// Source positions of pass errors.
//
// A pass error names the NKI source line it is about. The error carries
// what it is about as data: a position (bir.PosError, or another
// bir.SourcePositioner such as the verifier's error), and the IR entity
// (bir.Subject: the function and the instruction, tensor or location)
// that Function.Errorf, TensorErrorf, LocErrorf and WrapErr attach. The
// manager takes the error's position, else resolves its subject against
// the module after the failure (the instruction's position, or that of the
// first instruction reaching the tensor or location). Nothing is parsed
// back from the message: a name with a comma or a colon in it, or a
// message that names another instruction first, cannot mislead it, and
// an error with neither has no position rather than a guessed one.

// errorPos returns the source position of err: the first known position
// along its chain, else its subject's in m.
func errorPos(m *bir.Module, err error) bir.Pos {
	if p := bir.ErrorPos(err); p.IsKnown() {
		return p
	}
	return bir.SubjectOf(err).PosIn(m)
}
