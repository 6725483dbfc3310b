// The full-unroll command: the seeds' standalone full_unroll binary
// (seed 003, "The full_unroll standalone binary"), a self-contained driver
// onto the same FullUnroll code as the pass:
//
//	narwhal full-unroll [-unrollLevel=N] [-verbose=N] INPUT -o OUTPUT
//
//	main: parse options; setConsoleLogLevel(verbose); load INPUT;
//	      FullUnroll(unrollLevel).run; save OUTPUT; exit status != 0 on failure
//
// Flags keep the original's names and defaults: -unrollLevel (0: only
// memloc generation, the default when not given; 1: unroll functions marked
// need_unroll and loops marked by heuristic_unroll; 2: unroll everything
// and erase dependencies) and -verbose (the console log level, default 30).
// Either one or two leading dashes work, before or after INPUT.
//
// Decisions: INPUT is BIR-JSON or narwhal's text form (detected by
// content) or builtin:NAME; OUTPUT is written atomically, BIR-JSON when it
// ends in .json and text otherwise. -verbose follows the usual numeric log
// levels (10 debug, 20 info, 30 warning, 40 error): FullUnroll's INFO lines
// ("INFO (FullUnroll) Start unrolling at ...") go to stderr when verbose is
// 20 or lower. A summary line follows them at that level. Failure (the
// unset-level assertion cannot happen here, the level defaulting to 0; a
// bad level, bad input, the 25M ceiling) prints one line to stderr and
// exits with status 1.
package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
)

func init() {
	extraCommands = append(extraCommands, command{
		"full-unroll",
		"full-unroll [-unrollLevel=N] [-verbose=N] INPUT -o OUTPUT: the standalone FullUnroll tool (level 0 memloc generation, 1 unroll marked, 2 unroll all)",
		runFullUnrollCmd,
	})
}

// Log levels of -verbose.
const (
	logInfo = 20
)

func runFullUnrollCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("full-unroll", stderr)
	level := fs.Int("unrollLevel", 0, "`N`: 0 only memloc generation; 1 unroll some (need_unroll functions, heuristic_unroll loops); 2 unroll all")
	verbose := fs.Int("verbose", 30, "console log `level` (10 debug, 20 info, 30 warning, 40 error)")
	out := fs.String("o", "", "output file `name` (BIR-JSON when it ends in .json, text otherwise)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return fmt.Errorf("want an input file (usage: narwhal full-unroll [-unrollLevel=N] [-verbose=N] INPUT -o OUTPUT)")
	case len(pos) > 1:
		return fmt.Errorf("want one input file, have %d (%s)", len(pos), strings.Join(pos, " "))
	case *out == "":
		return fmt.Errorf("want an output file: -o OUTPUT")
	}
	m, err := driver.Load(pos[0])
	if err != nil {
		return err
	}
	var logf func(string, ...any)
	if *verbose <= logInfo {
		logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	st, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: *level, Logf: logf})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if err := driver.Save(*out, m); err != nil {
		return err
	}
	if logf != nil {
		logf("INFO (full_unroll) level %d: %d functions unrolled, %d loops, %d clones, %d dead removed, %d tensors split; total_count=%d; wrote %s",
			*level, st.Functions, st.Loops, st.Clones, st.DeadRemoved, st.TensorsSplit, st.TotalCount, *out)
	}
	return nil
}
