package main

// Checks every command applies to its input and its flags before doing
// any work: the input verified (as compile does), an output that is the
// input refused unless --in-place, --core-id in range, a flag given an
// empty value refused rather than read as "not given".

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/verify"
)

// verifyInput runs the verifier on a loaded input, as compile does before
// its first pass, so that every command refuses the modules `narwhal
// verify` rejects (exit 1, the first diagnostic). The flag that skips it
// is named in the message.
func verifyInput(m *bir.Module, src, skipFlag string) error {
	return verifyInputAt(m, src, skipFlag, 0)
}

// verifyInputAt is verifyInput with the rules of stage (and the stages it
// implies) too: run --concurrent executes the synchronized streams, so
// its input is checked at stage synchronized, by the rules the verifier
// and the compiler apply to the compiler's output.
func verifyInputAt(m *bir.Module, src, skipFlag string, stage verify.Stage) error {
	model, err := arch.ForModule(m)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if err := verify.Module(m, verify.Options{Arch: model, Stage: stage.WithPrerequisites()}); err != nil {
		return fmt.Errorf("%s: the input does not verify: %w (%s skips this check)", src, err, skipFlag)
	}
	return nil
}

// checkOutputNotInput refuses an output file that is the input file
// itself (the same file through any path, link or hard link): writing it
// would destroy the input if the command failed midway or produced
// something else. --in-place allows it (the output is still written
// atomically: a failure leaves the input as it was).
func checkOutputNotInput(input, output string, inPlace bool) error {
	if output == "" || inPlace || !driver.SameFile(input, output) {
		return nil
	}
	return diag.Errorf(diag.Output, "-o %s is the input file: refusing to overwrite the input (--in-place allows it)", output)
}

// checkCoreID validates --core-id: -1 (as in the file) or a core id.
func checkCoreID(id int64) error {
	if id < -1 {
		return diag.Errorf(diag.Usage, "--core-id %d: want -1 (the module's own) or a neuron core id >= 0", id)
	}
	return nil
}

// emptyFlags refuses flags that were given an empty value where empty
// would silently mean "not given" (--passes "" would run the whole
// pipeline).
func emptyFlags(fs *flag.FlagSet, names ...string) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		for _, n := range names {
			if f.Name == n && f.Value.String() == "" && err == nil {
				err = diag.Errorf(diag.Usage, "--%s is empty: give a value or leave the flag out", n)
			}
		}
	})
	return err
}

// distinctOutputs refuses two outputs of one command that name the same
// file (after following links; flag and path pairs, empty paths
// skipped), before any work is done. The output writer checks it again
// for every file it writes (internal/outfile Session), including the
// ones named inside directories (--streams, --dump-dir, run --outputs).
func distinctOutputs(outs [][2]string) error {
	seen := map[string]string{}
	for _, o := range outs {
		flagName, path := o[0], o[1]
		if path == "" || outfile.IsStdout(path) {
			continue
		}
		target, st, err := outfile.Resolve(path)
		if err != nil || (st != nil && !st.Mode().IsRegular()) {
			continue // the writer reports it; devices may be named twice
		}
		abs, err := filepath.Abs(target)
		if err != nil {
			abs = target
		}
		if prev, dup := seen[abs]; dup {
			return diag.Errorf(diag.Output, "%s and %s %s name the same file: give each output its own file", prev, flagName, path)
		}
		seen[abs] = flagName + " " + path
	}
	return nil
}

// isSynchronized reports whether m carries synchronization (semaphore
// waits and updates, stream endings): the output of alloc_semaphores,
// the default pipeline's last pass.
func isSynchronized(m *bir.Module) bool {
	for _, f := range m.Funcs {
		if f.Sync != nil && f.Sync.Len() > 0 {
			return true
		}
	}
	return false
}
