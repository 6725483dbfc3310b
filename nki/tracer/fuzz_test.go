package tracer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// FuzzTrace parses and runs mutated programs with small limits: the
// tracer may refuse them with any Python or NotSupported error, but never
// panics (an InternalError is a recovered panic) and always ends.
func FuzzTrace(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "py", "*.py"))
	for _, p := range files {
		if src, err := os.ReadFile(p); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("x = [i for i in range(3)]\nprint(x)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := syntax.Parse("fuzz.py", src)
		if err != nil {
			return
		}
		th := NewThread(ThreadOptions{MaxSteps: 20_000, MaxDepth: 40, MaxSize: 5_000})
		_, err = ExecFile(th, file, "__main__")
		if e, ok := err.(*Error); ok && e.Kind == "InternalError" {
			t.Fatalf("%v\n%s", e, src)
		}
	})
}
