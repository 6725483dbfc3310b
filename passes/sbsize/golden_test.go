package sbsize_test

// Golden tests: testdata/golden/*.bir run through the passes their
// "// run:" line names, under translation validation, and compared with
// <name>.golden (see footprinttest.Golden). go test ./passes/sbsize -run
// TestGolden -update rewrites the golden files.

import (
	"flag"
	"testing"

	"github.com/narwhal-compiler/narwhal/passes/sbsize/footprinttest"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden")

func TestGolden(t *testing.T) { footprinttest.Golden(t, "./passes/sbsize", *update) }
