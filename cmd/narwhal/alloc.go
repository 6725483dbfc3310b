package main

import (
	"io"

	"github.com/narwhal-compiler/narwhal/pack"
)

// `narwhal alloc FILE.csv --capacity=N [-o OUT.csv] [--timeout=D]
// [--minimize]`: the allocation solver on a MiniMalloc-format file. The
// solver package prints its own outcome and errors; exit 0 when it fits.
var _ = func() bool {
	extraCommands = append(extraCommands, command{
		name:  "alloc",
		usage: "alloc FILE.csv --capacity=N [-o OUT.csv] [--timeout=D] [--minimize]: pack buffers (MiniMalloc CSV) into a capacity",
		run: func(args []string, stdout, stderr io.Writer) error {
			if pack.Main(args, stdout, stderr) != 0 {
				return errSilent
			}
			return nil
		},
	})
	return true
}()
