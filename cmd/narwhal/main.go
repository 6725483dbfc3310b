// Command narwhal is the command-line front of narwhal, an open, fast,
// verifiable NeuronCore compiler backend. It only parses flags and calls
// into the packages (driver, pass, pipeline, verify, ...).
//
//	narwhal compile [FILE] [-o OUT] [--arch A] [--passes a,b] [--option PASS.KEY=VALUE]...
//	                [--GATE] [--report] [--verify-each] [--print-after P] [--dump-dir D] [-v]
//	narwhal print FILE [--format text|json] [--no-verify]
//	narwhal verify FILE [--arch A] [--stage NAME] [--all]
//	narwhal passes
//	narwhal version
//
// FILE is a BIR-JSON file, a text-form file (detected by content), or
// builtin:NAME[:k=v,...]. Exit status: 0 ok, 1 error (a one-line cause on
// stderr), 2 internal error: a recovered panic anywhere (a reader, a pass,
// the interpreter; errors.Is(err, bug.ErrInternal)), reported in one line
// that says it is a bug in narwhal, not in the input.
// A flag error is one line too (the command's flags: narwhal CMD -h).
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
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/interp"
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
	{"verify", "verify FILE [--arch A] [--stage NAME] [--all]: run the verifier (with NAME's stage rules)", runVerify},
	{"passes", "passes: list the pass table", runPasses},
	{"version", "version: print the version", runVersion},
}

// extraCommands are added by other files of this package.
var extraCommands []command

func commands() []command {
	return append(append([]command(nil), baseCommands...), extraCommands...)
}

func main() {
	setGCPercent()
	os.Exit(profiled(func() int { return mainExit(os.Args[1:], os.Stdout, os.Stderr) }))
}

// defaultGCPercent is the collector's target unless the GOGC environment
// variable sets one. A module is nearly all of narwhal's heap and it lives
// from load to save, so Go's default of 100 lets the heap reach twice the
// module before collecting the garbage a pass leaves: 50 measured 22% less
// peak memory for 3% more CPU on a 5M-instruction matmul compile (2.70 ->
// 2.10 GB; 25 gave 1.97 GB for 5%).
const defaultGCPercent = 50

func setGCPercent() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if total := memInfo("MemTotal:"); total > 0 {
			debug.SetMemoryLimit(total / 100 * memoryLimitPercent)
		}
	}
}

// memoryLimitPercent is the Go runtime's soft memory limit, in percent of
// the machine's physical memory (MemTotal), unless the GOMEMLIMIT
// environment variable sets one: 45%, 10.8 GiB on the 24 GiB development
// machine, so that two large compiles fit side by side with the system's
// page cache. It is a complement to the passes' own economy, not a
// replacement: below it the collector paces by defaultGCPercent as
// before; near it, on modules of tens of millions of instructions (the
// live heap of a 25M-instruction compile peaks near 9 GiB), it collects
// more often instead of letting the heap grow to 1.5 times the live heap
// (13-14 GiB there). A module whose live heap alone exceeds it still
// compiles: the limit is soft, and the runtime bounds the collector's
// share of the CPU.
const memoryLimitPercent = 45

// memInfo returns the /proc/meminfo entry key ("MemTotal:",
// "MemAvailable:") in bytes (0 when unknown).
func memInfo(key string) int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if f := strings.Fields(rest); len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
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
	// The command's outputs are one transaction (internal/outfile
	// Session): each output is checked against the command's inputs and
	// its other outputs, and its results appear only when it succeeds.
	outputs := outfile.Begin()
	defer func() {
		if err := outputs.End(code == 0); err != nil && code == 0 {
			name := "narwhal"
			if len(args) > 0 {
				name = args[0]
			}
			code = diag.Report(stderr, name, err, args, "")
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "narwhal: internal error[%s], %s: %v; %s\n", diag.Internal, diag.InternalText, diag.OneLine(fmt.Sprint(r)), diag.InternalHelp(args))
			if os.Getenv("NARWHAL_TRACEBACK") != "" {
				fmt.Fprintf(stderr, "%s", debug.Stack())
			}
			code = 2
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return diag.Report(stderr, "help", diag.Errorf(diag.Usage, "want a command (the list above)"), args, "narwhal help lists the commands")
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
			case isFlagError(err):
				return diag.Report(stderr, c.name, err, args, "narwhal "+c.name+" -h lists the flags")
			}
			// One line, led by the error code; exit 2 for narwhal's own
			// faults (bug.ErrInternal), with how to report them.
			return diag.Report(stderr, c.name, err, args, "")
		}
	}
	return diag.Report(stderr, "help", diag.Errorf(diag.Usage, "unknown command %q", args[0]), args, "narwhal help lists the commands")
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

// parseInterspersed parses flags that may appear before or after the
// positional arguments (Go's flag package stops at the first positional).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &flagError{err}
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

// newFlagSet returns a command's flag set. A parse error is returned as a
// flagError and printed by mainExit in one line; -h prints the flags to
// stderr (exit 0). The flag package prints its error message and then
// calls Usage; flagOutput swallows the message and tells Usage not to
// print the flag list after one.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("narwhal "+name, flag.ContinueOnError)
	out := &flagOutput{w: stderr}
	fs.SetOutput(out)
	fs.Usage = func() {
		if out.failed {
			return
		}
		out.open = true
		defer func() { out.open = false }()
		fmt.Fprintf(out, "usage of narwhal %s (flags may come before or after the arguments):\n", name)
		fs.PrintDefaults()
	}
	return fs
}

// flagOutput passes through what Usage prints and records (and drops)
// what the flag package prints on a parse error.
type flagOutput struct {
	w            io.Writer
	open, failed bool
}

func (o *flagOutput) Write(p []byte) (int, error) {
	if o.open {
		return o.w.Write(p)
	}
	o.failed = true
	return len(p), nil
}

// flagError is a flag parse error.
type flagError struct{ err error }

func (e *flagError) Error() string { return e.err.Error() }
func (e *flagError) Unwrap() error { return e.err }

// ErrorCode is diag.Usage.
func (e *flagError) ErrorCode() string { return diag.Usage }

func isFlagError(err error) bool {
	var fe *flagError
	return errors.As(err, &fe)
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

// byteSize is a flag value holding a size in bytes, written as a plain
// number or with a unit (KiB, MiB, GiB, TiB; K, M, G, T and KB, MB, ...
// mean the same powers of 1024); -1 means no limit. 0 is refused (a
// budget of nothing is a typo).
type byteSize int64

func sizeFlag(fs *flag.FlagSet, name string, def int64, usage string) *byteSize {
	v := byteSize(def)
	fs.Var(&v, name, usage)
	return &v
}

func (b *byteSize) String() string {
	if *b < 0 {
		return "-1"
	}
	return interp.Bytes(int64(*b))
}

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	if t == "-1" {
		*b = -1
		return nil
	}
	mult := int64(1)
	upper := strings.ToUpper(t)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40}, {"B", 1}} {
		if strings.HasSuffix(upper, u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return fmt.Errorf("want a positive size such as 512MiB or 4GiB, or -1 for no limit")
	}
	v, ok := checked.Mul(n, mult)
	if !ok {
		return fmt.Errorf("%s is more than 2^63 bytes", s)
	}
	*b = byteSize(v)
	return nil
}
