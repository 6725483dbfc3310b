package main

// narwhal compile FILE --lnc N [-o OUT] [--report]
//
// compiles the N logical cores' programs of one LNC kernel together
// (pipeline.RunCores): core c's program is FILE loaded with neuron core id
// c (a KLR kernel, or a BIR-JSON module with an NKI kernel placeholder,
// selects its body by it; a built-in kernel with a `core` parameter is
// built with core=c, and cores=N when it has that parameter too). The
// default pipeline runs on each, except that after time_aware_scheduler
// the cores' entry functions are scheduled jointly (LncAwareSchedule: the
// cores meet at their CoreBarriers and wait for the shared-HBM data the
// others write), and synchronization follows that schedule. -o OUT writes
// core c's result to OUT with ".coreC" before its extension (out.json:
// out.core0.json, out.core1.json); --report prints each core's pass
// report and the joint schedule.
//
// neuronx-cc calls this flag --lnc (--logical-nc-config). From
// NEURON_CC_FLAGS it is still dropped with a warning: there it sets the
// framework's core configuration, and here it changes what -o writes.

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// maxLNC bounds --lnc (LncAwareSchedule takes up to 255 cores; NKI's
// logical cores are 1 or 2 today).
const maxLNC = 8

// lncFlagsRefused are compile's flags that name one output or one core,
// which --lnc's several modules do not have.
var lncFlagsRefused = []string{"core-id", "print-after", "dump-dir", "memmap", "dump-alloc-problem", "stats", "trace", "streams", "html", "in-place"}

// compileCores is compile --lnc n (see the file comment); cfg is the
// compile's configuration without an arch (each core's module is
// retargeted as compile retargets one).
func compileCores(fs *flag.FlagSet, uf *userFlags, input string, n int, out string, report bool, cfg pass.Config, archName string, gates []string, args []string, stdout, stderr io.Writer) error {
	if n < 1 || n > maxLNC {
		return diag.Errorf(diag.Usage, "--lnc %d: want 1..%d logical cores", n, maxLNC)
	}
	for _, name := range lncFlagsRefused {
		if isSet(fs, name) {
			return diag.Errorf(diag.Usage, "--%s does not apply to --lnc, which compiles %d modules (one per core): compile one core with --core-id C for it", name, n)
		}
	}
	if out == "-" || out == "/dev/stdout" {
		return diag.Errorf(diag.Usage, "-o %s: --lnc writes one file per core; give a file name (OUT.coreC.ext are written)", out)
	}
	mods := make([]*bir.Module, n)
	for c := range n {
		m, err := loadCore(input, c, n)
		if err != nil {
			return err
		}
		if isSynchronized(m) {
			return diag.Errorf(diag.Stage, "%s is a compiled module (it carries its schedule and semaphores: stage synchronized), one core's program: --lnc compiles an LNC kernel's source into its cores' programs; run CORE0 CORE1 --concurrent runs compiled cores together", input)
		}
		for _, g := range gates {
			m.Config.Options[g] = "true"
		}
		mods[c] = m
	}
	opts := cfg.Options
	var err error
	for c, m := range mods {
		o := cloneOptions(opts)
		model, err := retarget(m, archName, o)
		if err != nil {
			return fmt.Errorf("core %d: %w", c, err)
		}
		if c == 0 {
			cfg.Arch, cfg.Options = model, o
		}
	}
	sess, err := uf.setup(input, args, mods[0], &cfg, false, stdout, stderr)
	if err != nil {
		return err
	}
	for _, m := range mods[1:] {
		if err := pipeline.ApplyOptLevel(*uf.optLevel, m, cloneOptions(cfg.Options)); err != nil {
			return err
		}
	}
	reps, lrep, runErr := pipeline.RunCores(mods, cfg)
	var last *pass.Report
	for _, r := range reps {
		if r != nil {
			last = r
		}
	}
	if err := sess.finish(last, runErr); err != nil && runErr == nil {
		return err
	}
	if report {
		for c, r := range reps {
			if r == nil {
				continue
			}
			fmt.Fprintf(stdout, "input: %s, core %d of %d\n", input, c, n)
			if err := r.Write(stdout); err != nil {
				return err
			}
		}
		if lrep != nil {
			fmt.Fprintf(stdout, "LncAwareScheduler (the %d cores scheduled jointly):\n%s", n, lrep)
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", input, runErr)
	}
	if out == "" {
		if !report {
			fmt.Fprintf(stdout, "%s: compiled for %d logical cores; nothing written: -o OUT saves each core's result as OUT.coreC.ext, --report prints the reports\n", input, n)
		}
		return nil
	}
	// A device or FIFO (-o /dev/null) takes every core's module in turn:
	// OUT.coreC names next to a device would be new regular files.
	_, st, err := outfile.Resolve(out)
	inPlace := err == nil && st != nil && !st.Mode().IsRegular() && !st.IsDir()
	for c, m := range mods {
		path := coreOutput(out, c)
		if inPlace {
			path = out
		}
		if err := driver.SaveTo(path, stdout, m); err != nil {
			return err
		}
	}
	return nil
}

// loadCore loads core c's program of input for an n-core compile.
func loadCore(input string, c, n int) (*bir.Module, error) {
	spec, builtin := strings.CutPrefix(input, driver.BuiltinPrefix)
	if !builtin {
		m, err := driver.Load(input)
		if err != nil {
			return nil, err
		}
		m.NeuronCoreID, m.HasCoreID = int64(c), true
		return m, nil
	}
	k, p, err := kernels.ParseSpec(spec)
	if err != nil {
		return nil, diag.Wrap(diag.Builtin, err)
	}
	if _, ok := p["core"]; !ok {
		return nil, diag.Errorf(diag.Usage, "--lnc %d: builtin:%s has no core parameter (one program per core); the kernels that have one: %s", n, k.Name, strings.Join(coreKernels(), ", "))
	}
	p["core"] = strconv.Itoa(c)
	if _, ok := p["cores"]; ok {
		p["cores"] = strconv.Itoa(n)
	}
	return driver.Load(driver.BuiltinPrefix + k.Spec(p))
}

// coreKernels lists the built-in kernels with a core parameter.
func coreKernels() []string {
	var out []string
	for _, k := range kernels.All() {
		for _, p := range k.Params {
			if p.Name == "core" {
				out = append(out, k.Name)
			}
		}
	}
	return out
}

// coreOutput is core c's output file: OUT with ".coreC" before its
// extension.
func coreOutput(out string, c int) string {
	ext := filepath.Ext(out)
	return strings.TrimSuffix(out, ext) + ".core" + strconv.Itoa(c) + ext
}

func cloneOptions(o map[string]map[string]string) map[string]map[string]string {
	out := make(map[string]map[string]string, len(o))
	for k, v := range o {
		m := make(map[string]string, len(v))
		for kk, vv := range v {
			m[kk] = vv
		}
		out[k] = m
	}
	return out
}
