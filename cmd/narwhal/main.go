// Command narwhal is the command-line front of narwhal, an open, fast,
// verifiable NeuronCore compiler backend. It only parses flags and calls
// into the packages (driver, pass, pipeline, verify, ...).
//
//	narwhal compile [FILE] [-o OUT] [--arch A] [--passes a,b] [--option PASS.KEY=VALUE]...
//	                [--GATE] [--report] [--verify-each] [--print-after P] [--dump-dir D] [-v]
//	narwhal print FILE [--format text|json] [--no-verify]
//	narwhal verify FILE [--arch A]
//	narwhal passes
//	narwhal version
//
// FILE is a BIR-JSON file, a text-form file (detected by content), or
// builtin:NAME[:k=v,...]. Exit status: 0 ok, 1 error (a one-line cause on
// stderr), 2 internal error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
)

type command struct {
	name  string
	usage string
	run   func(args []string, stdout, stderr io.Writer) error
}

// baseCommands are the commands of this file; other files of the package
// append theirs to extraCommands (from an init function or a variable
// initializer: the table is assembled at call time, so init order does not
// matter).
var baseCommands = []command{
	{"compile", "compile [FILE] [-o OUT] [flags]: run the pass pipeline (no FILE: the built-in default kernel, with the report)", runCompile},
	{"print", "print FILE [--format text|json] [--no-verify]: print a module (verified first)", runPrint},
	{"verify", "verify FILE [--arch A]: run the verifier", runVerify},
	{"passes", "passes: list the pass table", runPasses},
	{"version", "version: print the version", runVersion},
}

// extraCommands are added by other files of this package.
var extraCommands []command

func commands() []command {
	return append(append([]command(nil), baseCommands...), extraCommands...)
}

func main() {
	os.Exit(profiled(func() int { return mainExit(os.Args[1:], os.Stdout, os.Stderr) }))
}

// profiled runs run under the profilers the environment asks for:
// NARWHAL_CPUPROFILE=FILE writes a CPU profile of the whole command,
// NARWHAL_MEMPROFILE=FILE a heap profile (allocations and what is live at
// exit; the module is still referenced when a command returns only if it
// leaked). Read them with go tool pprof. They are environment variables,
// not flags, so every command gets them without a flag of its own.
func profiled(run func() int) int {
	if path := os.Getenv("NARWHAL_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "narwhal: NARWHAL_CPUPROFILE: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "narwhal: NARWHAL_CPUPROFILE: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("NARWHAL_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			runtime.GC() // the profile is as of the last completed collection
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "narwhal: NARWHAL_MEMPROFILE: %v\n", err)
			}
		}()
	}
	return run()
}

// errSilent is returned by a command that already printed its outcome
// and only needs the exit status 1.
var errSilent = errors.New("silent failure")

func mainExit(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "narwhal: internal error: %v (please report this; set NARWHAL_TRACEBACK=1 for a trace)\n", r)
			if os.Getenv("NARWHAL_TRACEBACK") != "" {
				fmt.Fprintf(stderr, "%s", debug.Stack())
			}
			code = 2
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 1
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errSilent):
				return 1
			}
			fmt.Fprintf(stderr, "narwhal %s: %s\n", c.name, oneLine(err.Error()))
			return 1
		}
	}
	fmt.Fprintf(stderr, "narwhal: unknown command %q (run 'narwhal help')\n", args[0])
	return 1
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "narwhal: an open, fast, verifiable NeuronCore compiler backend")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: narwhal COMMAND [arguments]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n", c.usage)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "FILE is BIR-JSON, narwhal text form or a KLR kernel (detected by content), or builtin:NAME[:k=v,...].")
}

// oneLine keeps an error message on one line (long verifier reports
// print their first diagnostic and a count).
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		rest := strings.Count(s[i:], "\n")
		return s[:i] + fmt.Sprintf(" (%d more lines; see --verbose)", rest)
	}
	return s
}

// parseInterspersed parses flags that may appear before or after the
// positional arguments (Go's flag package stops at the first positional).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// multiFlag collects a repeated string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("narwhal "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fmt.Fprintln(stdout, versionString())
	return nil
}

// Version is narwhal's release version.
const Version = "0.1.0-dev"

func versionString() string {
	s := "narwhal " + Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		s += " (" + bi.GoVersion
		for _, kv := range bi.Settings {
			if kv.Key == "vcs.revision" && len(kv.Value) >= 12 {
				s += ", " + kv.Value[:12]
			}
		}
		s += ")"
	}
	return s
}
