// Package srcline reads the text of a kernel's source lines for reports:
// the trace, the memory map, the engine streams and the HTML report show
// the line an instruction came from next to its file:line:col.
//
// Positions come from the module, which may come from anywhere: only a
// regular file of at most MaxFileBytes whose name ends in .py is read (a
// position naming /dev/zero or a huge file gives ""), each file once per
// process, and a missing or unreadable file gives "" (a KLR kernel's
// kernels.py is usually not beside its .klr file).
package srcline

import (
	"bytes"
	"os"
	"strings"
	"sync"
)

// MaxFileBytes bounds the size of a source file read.
const MaxFileBytes = 4 << 20

// MaxLineBytes bounds a returned line (longer lines are cut, with "...").
const MaxLineBytes = 200

var cache sync.Map // file name -> [][]byte (nil when unreadable)

// Line returns line n (1-based) of file without its line ending and
// leading indentation, or "" when it cannot be read.
func Line(file string, n int) string {
	if n < 1 || !strings.HasSuffix(file, ".py") {
		return ""
	}
	v, ok := cache.Load(file)
	if !ok {
		v, _ = cache.LoadOrStore(file, read(file))
	}
	lines, _ := v.([][]byte)
	if n > len(lines) {
		return ""
	}
	l := bytes.TrimSpace(lines[n-1])
	if len(l) > MaxLineBytes {
		return string(l[:MaxLineBytes]) + "..."
	}
	return string(l)
}

func read(file string) [][]byte {
	st, err := os.Stat(file)
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxFileBytes {
		return nil
	}
	data, err := os.ReadFile(file)
	if err != nil || len(data) > MaxFileBytes {
		return nil
	}
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}
