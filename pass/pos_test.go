package pass

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestRun_ErrorPos: a failing pass's error leads with the NKI source line,
// whether the pass attached it (bir.Function.Errorf) or only named the
// instruction, tensor or location in the project's standard form; a
// position is not repeated; a name the function lacks gives none.
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
		{"named instruction", func(f *bir.Function) error {
			return errors.New("function main, instruction ld (Load): want X, have Y")
		}, "k.py:8:2: pass failing, function main: function main, instruction ld (Load): want X, have Y"},
		{"named tensor", func(f *bir.Function) error {
			return errors.New("tensor z_set does not fit: want 1, have 2")
		}, "k.py:9:2: pass failing, function main: tensor z_set does not fit"},
		{"named location", func(f *bir.Function) error {
			return errors.New("location s is too big")
		}, "k.py:8:2: pass failing, function main: location s is too big"},
		{"first subject wins", func(f *bir.Function) error {
			return errors.New("function main, tensor z_set: written by instruction ld")
		}, "k.py:9:2: pass failing"},
		{"unknown name", func(f *bir.Function) error {
			return errors.New("function main, instruction ghost: gone")
		}, "pass failing, function main: function main, instruction ghost: gone"},
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
