package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/narwhal-compiler/narwhal/batch"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
)

// compileMany is `narwhal compile a b ... --out-dir DIR [-j N]`: every
// input compiled on its own, as `narwhal compile INPUT FLAGS -o
// DIR/NAME.json` would (the same function, so the outputs are the same
// bytes), up to N at once, one summary line each in input order, exit
// status 1 when any fails.
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
	if err := os.MkdirAll(*uf.outDir, 0o755); err != nil {
		return fmt.Errorf("--out-dir: %w", err)
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
		args := append(append([]string{in}, flags...), "-o", out)
		jobs[i] = batch.Job{Name: in, Run: func() (string, error) {
			var res compiled
			var errb bytes.Buffer
			// Each job's messages are its own: nothing reaches the
			// terminal but the summary line.
			if err := compileOne(args, io.Discard, &errb, &res); err != nil {
				return "", err
			}
			return fmt.Sprintf("-> %s (%d passes, %d -> %d instructions)", out, res.passes, res.instsBefore, res.insts), nil
		}}
	}
	failed := 0
	batch.Run(jobs, *uf.jobs, func(r batch.Result) {
		if r.Err != nil {
			failed++
			msg := diag.OneLine(r.Err.Error())
			if code := diag.CodeOf(r.Err); code != "" {
				msg = "error[" + code + "]: " + msg
			}
			fmt.Fprintf(stdout, "FAIL %s  %s\n", r.Name, msg)
			return
		}
		batch.WriteLine(stdout, r)
	})
	if failed > 0 {
		return fmt.Errorf("%d of %d modules failed: %w", failed, len(inputs), errSilent)
	}
	return nil
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
