package pass

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestRun_ErrorPos: a failing pass's error leads with the NKI source line
// its data names - the position it carries, or its subject's (the
// instruction, tensor or location bir.Function.Errorf, TensorErrorf,
// LocErrorf and WrapErr attach) - never a name parsed back from the
// message: a message that only names an instruction gets no position, a
// subject whose name has a comma gets its own; a position is not
// repeated.
// subjectErr is an error type of its own that knows its subject (as the
// allocator's FitError does).
type subjectErr struct{ s *bir.Subject }

func (e subjectErr) Error() string              { return "no room" }
func (e subjectErr) ErrorSubject() *bir.Subject { return e.s }

func TestRun_ErrorPos(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail func(f *bir.Function) error
		want string
	}{
		{"errorf", func(f *bir.Function) error {
			i, _ := f.InstByName("st")
			return f.Errorf(i, "want X, have Y")
		}, "k.py:9:2: pass failing, function main: function main, instruction st (Save): want X, have Y"},
		{"wrapped errorf", func(f *bir.Function) error {
			i, _ := f.InstByName("st")
			return fmt.Errorf("context: %w", f.Errorf(i, "deep"))
		}, "k.py:9:2: pass failing, function main: context: function main, instruction st (Save): deep"},
		{"wrapped subject", func(f *bir.Function) error {
			i, _ := f.InstByName("ld")
			return fmt.Errorf("context: %w", f.WrapErr(i, errors.New("bare")))
		}, "k.py:8:2: pass failing, function main: context: bare"},
		{"tensor subject", func(f *bir.Function) error {
			tz, _ := f.TensorByName("z_set")
			return f.TensorErrorf(tz, "does not fit: want 1, have 2")
		}, "k.py:9:2: pass failing, function main: function main, tensor z_set: does not fit"},
		{"location subject", func(f *bir.Function) error {
			l, _ := f.LocByName("s")
			return f.LocErrorf(l, "is too big")
		}, "k.py:8:2: pass failing, function main: function main, location s: is too big"},
		{"the subject, not the first name in the text", func(f *bir.Function) error {
			i, _ := f.InstByName("st")
			return f.Errorf(i, "after instruction ld")
		}, "k.py:9:2: pass failing"},
		{"a name with a comma", func(f *bir.Function) error {
			i, _ := f.InstByName("st")
			f.Rename(i, "st,0")
			return f.WrapErr(i, fmt.Errorf("function main, instruction st,0: want X"))
		}, "k.py:9:2: pass failing"},
		{"an error type of its own with a subject", func(f *bir.Function) error {
			l, _ := f.LocByName("s")
			return fmt.Errorf("wrapped: %w", subjectErr{&bir.Subject{Func: "main", Inst: bir.NoInst, Tensor: bir.NoTensor, Loc: l}})
		}, "k.py:8:2: pass failing, function main: wrapped: no room"},
		{"a name in the text only", func(f *bir.Function) error {
			return errors.New("function main, instruction ld (Load): want X, have Y")
		}, "pass failing, function main: function main, instruction ld (Load): want X, have Y"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := smallModule(t)
			f := m.Main()
			f.SetPos(0, bir.Pos{File: "k.py", Line: 8, Col: 2})
			f.SetPos(1, bir.Pos{File: "k.py", Line: 9, Col: 2})
			tab := Table{Passes: []Pass{{Name: "failing", Default: true, Run: func(c *Context) error {
				return c.ForEachFunction(tc.fail)
			}}}}
			_, err := tab.Run(m, Config{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %q\n  want prefix %q", err, tc.want)
			}
			if strings.Count(err.Error(), "k.py:") > 1 {
				t.Errorf("the position is repeated: %q", err)
			}
			var perr *Error
			if errors.As(err, &perr) && strings.HasPrefix(tc.want, "k.py") && perr.Pos.String() != strings.SplitN(tc.want, ": ", 2)[0] {
				t.Errorf("Error.Pos = %q", perr.Pos)
			}
		})
	}
}
