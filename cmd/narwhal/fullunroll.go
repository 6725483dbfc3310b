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
// content) or builtin:NAME; it is checked for structural integrity first
// (the verifier's ref, block, loop and sym-axis-unbound rules: a module
// with dangling ids is refused with the verifier's message, not
// transformed; hardware-legality rules are not applied, as the original
// tool does not apply them); OUTPUT is written atomically, BIR-JSON when it
// ends in .json and text otherwise. -verbose follows the usual numeric log
// levels (10 debug, 20 info, 30 warning, 40 error): FullUnroll's INFO lines
// ("INFO (FullUnroll) Start unrolling at ...") go to stderr when verbose is
// 20 or lower. A summary line follows them at that level. Failure (the
// unset-level assertion cannot happen here, the level defaulting to 0; a
// bad level, bad input, the 25M ceiling) prints one line to stderr and
// exits with status 1.
package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/verify"
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
	out := fs.String("o", "", "output file `name` (BIR-JSON when it ends in .json, text otherwise; - for standard output)")
	inPlace := fs.Bool("in-place", false, "allow -o to name the input file (replaced atomically once the unroll succeeds)")
	noVerify := fs.Bool("no-verify", false, "check only the module's structure (dangling ids, blocks, loops), not every verifier rule, as the original tool does")
	statsPath := fs.String("stats", "", "write what each phase cost (wall, CPU, memory) as JSON to `FILE` (for narwhal bench)")
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
	if err := checkOutputNotInput(pos[0], *out, *inPlace); err != nil {
		return err
	}
	st := newStats(*statsPath, "full-unroll", pos[0])
	var m *bir.Module
	if err := st.phase("load", instsOf(&m), func() (err error) { m, err = driver.Load(pos[0]); return err }); err != nil {
		return err
	}
	if err := st.phase("verify input", instsOf(&m), func() error {
		if err := structurallyValid(m); err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		if !*noVerify {
			return verifyInput(m, pos[0], "--no-verify")
		}
		return nil
	}); err != nil {
		return err
	}
	var logf func(string, ...any)
	if *verbose <= logInfo {
		logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	var ust unroll.Stats
	if err := st.phase("full_unroll", instsOf(&m), func() (err error) {
		ust, err = unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: *level, Logf: logf})
		return err
	}); err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if err := st.phase("save", instsOf(&m), func() error { return driver.SaveWith(*out, outfile.Options{Stdout: stdout, InPlace: *inPlace}, m) }); err != nil {
		return err
	}
	if logf != nil {
		logf("INFO (full_unroll) level %d: %d functions unrolled, %d loops, %d clones, %d dead removed, %d tensors split; total_count=%d; wrote %s",
			*level, ust.Functions, ust.Loops, ust.Clones, ust.DeadRemoved, ust.TensorsSplit, ust.TotalCount, *out)
	}
	return st.write(m)
}

// structuralRules are the verifier rules whose violation makes a module
// unsafe to transform (dangling ids, broken block structure, malformed
// loops, expressions over unbound axes). Hardware-legality rules are not
// checked: the original tool transforms whatever it is given.
var structuralRules = map[string]bool{"ref": true, "block": true, "loop": true, "sym-axis-unbound": true}

// structurallyValid reports the first structural diagnostic of m.
func structurallyValid(m *bir.Module) error {
	err := verify.Module(m, verify.Options{})
	var ve *verify.Error
	if err == nil || !errors.As(err, &ve) {
		return nil
	}
	var bad []verify.Diag
	for _, d := range ve.Diags() {
		if structuralRules[d.Rule] {
			bad = append(bad, d)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	msg := "the module is malformed: " + bad[0].String()
	if len(bad) > 1 {
		msg += fmt.Sprintf(" (and %d more structural diagnostics; see narwhal verify)", len(bad)-1)
	}
	return errors.New(msg)
}
