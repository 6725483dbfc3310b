package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/batch"
	"github.com/narwhal-compiler/narwhal/console"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
)

// compileMany is `narwhal compile a b ... --out-dir DIR [-j N]`: every
// input compiled on its own by a child process running `narwhal compile
// INPUT FLAGS -o DIR/NAME.json` (the same binary and flags, so the output
// is the same bytes as compiling that input alone), up to N at once, one
// summary line each in input order, exit status 1 when any fails.
//
// Processes, not goroutines: the jobs share no heap, garbage collector or
// stop-the-world pauses (in one process, the passes' per-phase
// ReadMemStats and the collector stop both jobs, which made -j 2 slower
// than -j 1 on a loaded machine), one module's memory is returned when it
// ends, and a module that brings narwhal down takes only its own job.
func compileMany(fs *flag.FlagSet, uf *userFlags, inputs []string, stdout, stderr io.Writer) error {
	if *uf.outDir == "" {
		return diag.Errorf(diag.ParallelInputs, "%d inputs: give --out-dir DIR for their results", len(inputs))
	}
	if len(inputs) == 0 {
		return diag.Errorf(diag.Usage, "--out-dir: want at least one input")
	}
	for _, name := range []string{"o", "html", "trace", "memmap", "dump-alloc-problem", "stats", "print-after", "dump-dir", "report", "logfile", "in-place"} {
		if isSet(fs, name) {
			return diag.Errorf(diag.ParallelInputs, "-%s names one output and does not apply to several modules; compile them one at a time for it", name)
		}
	}
	if isSet(fs, "j") && *uf.jobs < 1 {
		return diag.Errorf(diag.Usage, "-j %d: want at least 1 module at once (leave -j out for one per core)", *uf.jobs)
	}
	if isSet(fs, "lnc") {
		return diag.Errorf(diag.Usage, "--lnc compiles one kernel's cores together: give one input and -o OUT (OUT.coreC.ext per core)")
	}
	if err := os.MkdirAll(*uf.outDir, 0o755); err != nil {
		return diag.Wrap(diag.Output, fmt.Errorf("--out-dir: %w", err))
	}
	flags := flagArgs(fs, "out-dir", "j")
	outs := map[string]string{}
	jobs := make([]batch.Job, len(inputs))
	for i, in := range inputs {
		out := filepath.Join(*uf.outDir, outputName(in)+".json")
		if prev, dup := outs[out]; dup {
			return diag.Errorf(diag.ParallelInputs, "inputs %s and %s would both write %s", prev, in, out)
		}
		outs[out] = in
		for _, other := range inputs {
			if driver.SameFile(other, out) {
				return diag.Errorf(diag.Output, "input %s would be overwritten by the result of %s (%s): give another --out-dir", other, in, out)
			}
		}
		args := append(append([]string{"compile", in}, flags...), "-o", out)
		jobs[i] = batch.Job{Name: in, Run: func() (string, error) { return compileChild(args, out) }}
	}
	failed, first := 0, ""
	batch.Run(jobs, *uf.jobs, func(r batch.Result) {
		if r.Err != nil {
			if failed == 0 {
				first = r.Name
			}
			failed++
			fmt.Fprintf(stdout, "FAIL %s  %s\n", r.Name, diag.OneLine(r.Err.Error()))
			return
		}
		batch.WriteLine(stdout, r)
	})
	if failed > 0 {
		// The FAIL lines are on standard output with each module's cause;
		// the exit status gets its one coded line here.
		return diag.Errorf(diag.ParallelInputs, "%d of %d modules failed (the FAIL lines above; the first: %s)", failed, len(inputs), first)
	}
	return nil
}

// childCommand makes the command that runs narwhal with args: this
// executable (tests replace it with the test binary in its narwhal role).
var childCommand = func(args []string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, args...)
}

// childError is a failed job: the child's one-line message (led by its
// error code) without the "narwhal compile: " prefix.
type childError struct{ msg string }

func (e *childError) Error() string { return e.msg }

// compileChild runs one compile as a child process and returns its summary:
// the output, its size, the child's CPU time and peak memory.
func compileChild(args []string, out string) (string, error) {
	cmd := childCommand(args)
	// The flags are all on the command line: the child must not add
	// NEURON_CC_FLAGS' again.
	cmd.Env = append(slices.DeleteFunc(append(cmd.Env[:0:0], envOr(cmd.Env)...), func(kv string) bool {
		return strings.HasPrefix(kv, console.EnvFlags+"=")
	}), console.EnvFlags+"=")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	err := cmd.Run()
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		msg = strings.TrimPrefix(msg, "narwhal compile: ")
		if msg == "" {
			msg = err.Error()
		}
		return "", &childError{msg}
	}
	summary := "-> " + out
	if st, err := os.Stat(out); err == nil {
		ps := cmd.ProcessState
		summary += fmt.Sprintf(" (%.1f MB, %.2f s CPU", float64(st.Size())/1e6, (ps.UserTime() + ps.SystemTime()).Seconds())
		if rss := childPeakRSS(ps); rss > 0 {
			summary += fmt.Sprintf(", %d MiB peak", rss>>20)
		}
		summary += ")"
	}
	return summary, nil
}

// envOr is env, or the process's environment when env is nil (what
// exec.Cmd does with a nil Env).
func envOr(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}

// outputName is the result's name for an input: the file's base name
// without extension, or a builtin spec with ':' and ',' turned into '_'.
func outputName(input string) string {
	if spec, ok := strings.CutPrefix(input, driver.BuiltinPrefix); ok {
		return strings.NewReplacer(":", "_", ",", "_", "/", "_").Replace(spec)
	}
	base := filepath.Base(input)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// flagArgs rebuilds the flags set on the command line (repeated flags
// once per value), leaving out the ones named in skip.
func flagArgs(fs *flag.FlagSet, skip ...string) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		for _, s := range skip {
			if f.Name == s {
				return
			}
		}
		if m, ok := f.Value.(*multiFlag); ok {
			for _, v := range *m {
				out = append(out, "-"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "-"+f.Name+"="+f.Value.String())
	})
	return out
}
