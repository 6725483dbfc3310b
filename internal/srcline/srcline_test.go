package srcline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "k.py")
	long := strings.Repeat("x", MaxLineBytes+10)
	if err := os.WriteFile(py, []byte("import a\r\n    t = nl.load(a)  \n"+long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "k.txt")
	if err := os.WriteFile(other, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file string
		n    int
		want string
	}{
		{py, 1, "import a"},
		{py, 2, "t = nl.load(a)"},
		{py, 3, long[:MaxLineBytes] + "..."},
		{py, 0, ""},
		{py, 99, ""},
		{other, 1, ""},                            // not a .py file
		{filepath.Join(dir, "missing.py"), 1, ""}, // missing
		{dir + "/", 1, ""},
	} {
		if got := Line(c.file, c.n); got != c.want {
			t.Errorf("Line(%s, %d) = %q, want %q", filepath.Base(c.file), c.n, got, c.want)
		}
	}
}
