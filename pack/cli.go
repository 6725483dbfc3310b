// The `narwhal alloc` command.
//
//	narwhal alloc FILE.csv --capacity=N [-o OUT.csv] [--timeout=D] [--minimize]
//
// reads a MiniMalloc CSV file (csv.go), solves it, writes the rows back with
// an offset column (to OUT.csv, atomically: a temporary file in the same
// directory renamed over the target; only when the buffers fit, so that no
// over-capacity placement is ever mistaken for a result), and prints one
// summary line: whether it fit, the peak, the max-live lower bound, the
// method and the time.
// Flags may come before or after FILE (the standard flag package stops at
// the first non-flag argument, so the arguments are reordered first).
//
// Exit status: 0 when the buffers fit, 1 otherwise (infeasible, gave up, or
// bad input). Bad input gives one line naming the file and line; nothing
// here panics on input.
package pack

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
)

// Main runs `narwhal alloc` with args (the arguments after "alloc").
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("narwhal alloc", flag.ContinueOnError)
	// The flag package prints a parse error and then the usage; narwhal
	// prints one line for the error, and the usage only for -h.
	fs.SetOutput(io.Discard)
	capacity := fs.Int64("capacity", 0, "capacity in bytes (required unless --minimize)")
	out := fs.String("o", "", "write the placement to this CSV file")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long (0 = never)")
	minimize := fs.Bool("minimize", false, "minimize the peak instead of fitting the capacity")
	if err := fs.Parse(reorderArgs(fs, args)); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "usage: narwhal alloc FILE.csv --capacity=N [-o OUT.csv] [--timeout=D] [--minimize]")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %v (narwhal alloc -h lists the flags)\n", diag.Usage, err)
		return 1
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: want exactly one input file, have %d (usage: narwhal alloc FILE.csv --capacity=N [-o OUT.csv] [--timeout=D] [--minimize])\n", diag.Usage, fs.NArg())
		return 1
	}
	path := fs.Arg(0)
	if !*minimize && *capacity <= 0 {
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: --capacity=N (N > 0) is required unless --minimize is given\n", diag.Usage)
		return 1
	}
	if *capacity < 0 || *capacity > maxCoordinate {
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: capacity %d out of range\n", diag.Usage, *capacity)
		return 1
	}
	table, err := readCSVFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %v (narwhal explain %[1]s)\n", diag.CodeOf(err), err)
		return 1
	}
	p := Problem{Buffers: table.Buffers, Capacity: *capacity}
	sol, err := Solve(p, Options{Timeout: *timeout, Minimize: *minimize})
	if sol == nil {
		var in *InputError
		if errors.As(err, &in) && in.Index >= 0 && in.Index < len(table.Lines) {
			fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %s:%d: %s\n", diag.BadCSV, path, table.Lines[in.Index], in.Msg)
		} else {
			fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %v\n", diag.CodeOf(err), err)
		}
		return 1
	}
	verdict := "fit"
	switch sol.Status {
	case StatusInfeasible:
		verdict = "INFEASIBLE"
	case StatusUnknown:
		verdict = "NOT FITTED (gave up)"
	}
	capText := fmt.Sprint(*capacity)
	if *capacity == 0 {
		capText = "none"
	}
	fmt.Fprintf(stdout, "%s: %s: %d buffers, capacity %s, peak %d, max-live %d, lower bound %d, method %s, %v\n",
		path, verdict, len(p.Buffers), capText, sol.Peak, sol.MaxLive, sol.LowerBound, sol.Method, sol.Elapsed.Round(time.Microsecond))
	if *minimize && sol.Status == StatusFit {
		// Say whether the peak is the best possible, so a user knows if a
		// longer --timeout could help.
		if sol.Optimal {
			fmt.Fprintf(stdout, "%s: optimal: the peak equals the lower bound\n", path)
		} else {
			gap := sol.Peak - sol.LowerBound
			fmt.Fprintf(stdout, "%s: not proven optimal: peak %d is %d bytes (%.2f%%) above the lower bound %d; a longer --timeout may lower it\n",
				path, sol.Peak, gap, 100*float64(gap)/float64(max(sol.LowerBound, 1)), sol.LowerBound)
		}
	}
	if sol.Status != StatusFit && sol.Reason != "" {
		fmt.Fprintf(stdout, "%s: %s\n", path, sol.Reason)
	}
	if *out != "" && sol.Status == StatusFit {
		if err := outfile.Write(*out, outfile.Options{Stdout: stdout}, func(w io.Writer) error { return table.Write(w, sol.Offsets) }); err != nil {
			fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %v\n", diag.Output, err)
			return 1
		}
	}
	if sol.Status != StatusFit {
		// The outcome is on stdout with the figures; the exit status 1
		// gets its one-line cause on stderr, as every failure does.
		why := "the buffers do not fit"
		if sol.Reason != "" {
			why += ": " + sol.Reason
		}
		fmt.Fprintf(stderr, "narwhal alloc: error[%s]: %s: %s (%s)\n", diag.DoesNotFit, path, verdict, why)
		return 1
	}
	return 0
}

func readCSVFile(path string) (*CSVTable, error) {
	outfile.NoteInput(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCSV(f, path)
}

// reorderArgs moves the flags (and their values) in front of the
// positional arguments so that flags after FILE are honoured. "--" ends
// the flags.
func reorderArgs(fs *flag.FlagSet, args []string) []string {
	var flags, positional []string
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			positional = append(positional, args[k+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			continue
		}
		if k+1 < len(args) {
			flags = append(flags, args[k+1])
			k++
		}
	}
	return append(flags, positional...)
}
