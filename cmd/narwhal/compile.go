package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/birjson"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/alloc"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

func runCompile(args []string, stdout, stderr io.Writer) error {
	return compileOne(args, stdout, stderr, nil)
}

// compiled is what a compile of one module reports to compile -j.
type compiled struct {
	input       string
	passes      int
	insts       int64
	instsBefore int64
}

// record fills r (when compile -j asked for it) from the run's report.
func (r *compiled) record(input string, rep *pass.Report, m *bir.Module) {
	if r == nil || rep == nil {
		return
	}
	r.input, r.insts = input, m.NumInsts()
	for _, p := range rep.Passes {
		if p.Skipped == "" {
			if r.passes == 0 {
				r.instsBefore = p.InstsBefore
			}
			r.passes++
		}
	}
}

func compileOne(args []string, stdout, stderr io.Writer, res *compiled) error {
	fs := newFlagSet("compile", stderr)
	out := fs.String("o", "", "write the result to `OUT` (BIR-JSON when it ends in .json, text otherwise)")
	archName := fs.String("arch", "", "target `arch`: inf1, trn1, trn2, trn3 (default: the module's; the module's arch.* options are kept)")
	passes := fs.String("passes", "", "run exactly these passes (comma-separated), in the pass table's order")
	var options multiFlag
	fs.Var(&options, "option", "pass option `PASS.KEY=VALUE`, or machine parameter arch.NAME=VALUE (repeatable; `narwhal passes` lists both)")
	report := fs.Bool("report", false, "print the pass report")
	verifyEach := fs.Bool("verify-each", false, "verify the module before the first pass and after every pass")
	var printAfter multiFlag
	fs.Var(&printAfter, "print-after", "print the module after `PASS` (repeatable; 'all' for every pass)")
	dumpDir := fs.String("dump-dir", "", "also write the --print-after dumps into `DIR` as NN-PASS.bir (without --print-after: a dump after every pass, into DIR only)")
	verbose := fs.Bool("v", false, "print pass log lines as they happen (--verbose=debug)")
	memmap := fs.String("memmap", "", "write the SBUF/PSUM allocation to `FILE`.svg (a picture) or FILE.csv (rows)")
	dumpAlloc := fs.String("dump-alloc-problem", "", "write the allocation problem to `FILE`.csv in the MiniMalloc format narwhal alloc reads (PSUM: FILE-psum.csv)")
	statsPath := fs.String("stats", "", "write what each phase cost (wall, CPU, memory) as JSON to `FILE` (for narwhal bench)")
	coreID := fs.Int64("core-id", -1, "the module's neuron core `id` (selects one core's body of an LNC kernel; -1: as in the file)")
	inPlace := fs.Bool("in-place", false, "allow -o to name the input file (replaced atomically once the compile succeeds)")
	trace := fs.String("trace", "", "write the schedule as Chrome trace-event JSON (Perfetto) to `FILE.json`")
	streams := fs.String("streams", "", "write one listing per engine and DMA queue (waits, instruction, updates) into `DIR`")
	lnc := fs.Int("lnc", 0, "compile the `N` logical cores' programs of an LNC kernel together (the cores scheduled jointly); -o OUT writes OUT.coreC.ext per core")
	uf := addUserFlags(fs)
	nf := addNKIFlags(fs, nil)
	// Gates of the original compiler are flags of the same name.
	gates := map[string]*bool{}
	for _, p := range pipeline.Table.Passes {
		if p.Gate != "" && gates[p.Gate] == nil {
			gates[p.Gate] = fs.Bool(p.Gate, false, "enable gated pass "+p.Name+" (the original compiler's --"+p.Gate+")")
		}
	}
	args, err := uf.expand(args)
	if err != nil {
		return err
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 || *uf.outDir != "" {
		return compileMany(fs, uf, pos, stdout, stderr)
	}
	input := driver.BuiltinPrefix + kernels.DefaultKernel
	if len(pos) == 1 {
		input = pos[0]
	} else {
		*report = true
	}
	if err := emptyFlags(fs, "passes", "o", "dump-dir", "arch", "streams"); err != nil {
		return err
	}
	if err := checkCoreID(*coreID); err != nil {
		return err
	}
	if err := checkOutputNotInput(input, *out, *inPlace); err != nil {
		return err
	}
	psumDump := ""
	if *dumpAlloc != "" {
		psumDump = alloc.PSUMProblemPath(*dumpAlloc)
	}
	if err := distinctOutputs([][2]string{{"-o", *out}, {"--html", *uf.html}, {"--logfile", *uf.logfile}, {"--trace", *trace},
		{"--memmap", *memmap}, {"--dump-alloc-problem", *dumpAlloc}, {"--dump-alloc-problem's PSUM file", psumDump}, {"--stats", *statsPath}}); err != nil {
		return err
	}
	var passList []string
	if *passes != "" {
		passList = strings.Split(*passes, ",")
	}
	opts, err := parseOptions(options)
	if err != nil {
		return err
	}
	if *archName, err = uf.archName(*archName); err != nil {
		return err
	}
	var gatesOn []string
	for g, set := range gates {
		if *set {
			gatesOn = append(gatesOn, g)
		}
	}
	sort.Strings(gatesOn)
	if isSet(fs, "lnc") {
		cfg := pass.Config{VerifyEach: *verifyEach, Printer: bir.Print, Passes: passList, Options: opts}
		return compileCores(fs, uf, input, *lnc, *out, *report, cfg, *archName, gatesOn, args, stdout, stderr)
	}
	st := newStats(*statsPath, "compile", input)
	var m *bir.Module
	if err := st.phase("load", instsOf(&m), func() (err error) {
		m, _, err = loadModule(fs, input, nf, *archName, stdout)
		return err
	}); err != nil {
		return err
	}
	if *coreID >= 0 {
		m.NeuronCoreID, m.HasCoreID = *coreID, true
	}
	cfg := pass.Config{
		VerifyEach:   *verifyEach,
		PrintAfter:   printAfter,
		PrintOut:     stdout,
		DumpDir:      *dumpDir,
		Printer:      bir.Print,
		Checkpointer: birjson.Write,
		Stats:        st != nil,
		Passes:       passList,
		Options:      opts,
	}
	if cfg.Arch, err = retarget(m, *archName, cfg.Options); err != nil {
		return err
	}
	if err := allocOutputs(&cfg, *memmap, *dumpAlloc); err != nil {
		return err
	}
	for _, g := range gatesOn {
		m.Config.Options[g] = "true"
	}
	sess, err := uf.setup(input, args, m, &cfg, *verbose, stdout, stderr)
	if err != nil {
		return err
	}
	// The output is written on the second core while the module is
	// verified after the last pass (the two only read the module), and
	// published only at the save below, once everything before it has
	// succeeded; any earlier return discards it (no file is left). Under
	// --stats the two run one after the other, so that each phase's CPU is
	// its own.
	var saving *driver.PendingSave
	defer func() { saving.Discard() }()
	if *out != "" && st == nil && !outfile.IsStdout(*out) {
		cfg.BesideLastVerify = func(verify func() error) error {
			overlappedSaves.Add(1)
			saving = driver.StartSaveWith(*out, outfile.Options{Stdout: stdout, InPlace: *inPlace}, m)
			defer saving.Written()
			return verify()
		}
	}
	rep, runErr := pipeline.Table.Run(m, cfg)
	st.passes(rep)
	if runErr == nil && *trace != "" {
		sess.attachTrace(filepath.Base(*trace), func(w io.Writer) error { return sched.WriteTrace(w, m, cfg.Arch) })
	}
	if runErr == nil && strings.EqualFold(filepath.Ext(*memmap), ".svg") {
		sess.attachSVGFile("SBUF/PSUM allocation map (--memmap)", *memmap)
	}
	if err := sess.finish(rep, runErr); err != nil && runErr == nil {
		return err
	}
	res.record(input, rep, m)
	if *report && rep != nil {
		fmt.Fprintf(stdout, "input: %s\n", input)
		if err := rep.Write(stdout); err != nil {
			return err
		}
		if runErr == nil {
			fmt.Fprintf(stdout, "\n%s", compileSummary(rep, m.NumInsts()))
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", input, runErr)
	}
	if (*memmap != "" || *dumpAlloc != "") && (rep.Result("alloc") == nil || rep.Result("alloc").Skipped != "") {
		return fmt.Errorf("--memmap and --dump-alloc-problem need the alloc pass, which did not run")
	}
	if *trace != "" {
		if err := writeTrace(*trace, stdout, m, cfg.Arch); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	if *streams != "" {
		if err := writeStreams(*streams, stdout, m, cfg.Arch); err != nil {
			return err
		}
	}
	if *out != "" {
		save := func() error { return driver.SaveWith(*out, outfile.Options{Stdout: stdout, InPlace: *inPlace}, m) }
		if saving != nil {
			save = saving.Commit
		}
		if err := st.phase("save", instsOf(&m), save); err != nil {
			return err
		}
		return st.write(m)
	}
	if !*report && len(printAfter) == 0 && *dumpDir == "" && *trace == "" && *streams == "" {
		// Nothing asked to be shown or written: say what happened.
		ran := 0
		for _, p := range rep.Passes {
			if p.Skipped == "" {
				ran++
			}
		}
		if rep.Kept != 0 {
			fmt.Fprintf(stdout, "%s: a compiled module (%d instructions), verified and kept as it is; nothing written: -o OUT saves it\n", input, m.NumInsts())
		} else {
			fmt.Fprintf(stdout, "%s: compiled (%d passes, %d instructions); nothing written: -o OUT saves the result, --report prints the pass report\n", input, ran, m.NumInsts())
		}
		io.WriteString(stdout, compileSummary(rep, m.NumInsts()))
	}
	return st.write(m)
}

// overlappedSaves counts the compiles whose output was written beside the
// last verification (for the tests to see which path ran).
var overlappedSaves atomic.Int64

// writeTrace writes the Perfetto timeline of a compiled module.
func writeTrace(path string, stdout io.Writer, m *bir.Module, model *arch.Model) error {
	if model == nil {
		var err error
		if model, err = arch.ForModule(m); err != nil {
			return err
		}
	}
	return driver.WriteOutput(path, stdout, func(w io.Writer) error { return sched.WriteTrace(w, m, model) })
}

func runPrint(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("print", stderr)
	format := fs.String("format", "text", "output `format`: text or json")
	noVerify := fs.Bool("no-verify", false, "print the module even when the verifier rejects it (for inspecting a broken module)")
	archName := fs.String("arch", "", "a kernel file's target `arch` (trn1, trn2, ...; default trn2)")
	nf := addNKIFlags(fs, nil)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	var f driver.Format
	switch *format {
	case "text":
		f = driver.FormatText
	case "json":
		f = driver.FormatJSON
	default:
		return diag.Errorf(diag.Usage, "--format %q: want text or json", *format)
	}
	m, err := loadOne(fs, pos, nf, *archName, stderr)
	if err != nil {
		return err
	}
	if !*noVerify {
		// A module narwhal would reject is an error here too (exit 1), so
		// that print, verify and compile agree on bad input.
		model, err := arch.ForModule(m)
		if err != nil {
			return err
		}
		if err := verify.Module(m, verify.Options{Arch: model}); err != nil {
			return fmt.Errorf("%s: %w (--no-verify prints it anyway)", pos[0], err)
		}
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	if err := driver.Write(bw, m, f); err != nil {
		return err
	}
	return bw.Flush()
}

func runVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", stderr)
	archName := fs.String("arch", "", "target `arch` (default: the module's; the module's arch.* options are kept)")
	var options multiFlag
	fs.Var(&options, "option", "machine parameter `arch.NAME=VALUE` (repeatable)")
	all := fs.Bool("all", false, "print every diagnostic, not only the first")
	stageText := fs.String("stage", "", "also check the rules of verifier stage `NAME` and of the stages it implies ("+strings.Join(verify.StageNames(), ", ")+"; several joined by ','; synchronized implies scheduled, which implies allocated and engines-assigned, allocated implies sb-legal, which implies tiled, cce-legal and indirect-lowered)")
	nf := addNKIFlags(fs, nil)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	stage, err := verify.ParseStage(*stageText)
	if err != nil {
		return diag.Wrap(diag.Usage, fmt.Errorf("--stage: %w", err))
	}
	stage = stage.WithPrerequisites()
	m, err := loadOne(fs, pos, nf, *archName, stderr)
	if err != nil {
		return err
	}
	params, err := archOnly(options)
	if err != nil {
		return err
	}
	model, err := arch.Retarget(m, *archName, params)
	if err != nil {
		return err
	}
	if err := verify.Module(m, verify.Options{Arch: model, Stage: stage}); err != nil {
		if ve, ok := err.(*verify.Error); ok && *all {
			// Every diagnostic on standard output; the exit status gets
			// its one coded line on stderr, as every failure does.
			for _, d := range ve.Diags() {
				fmt.Fprintln(stdout, d.String())
			}
		}
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	at := ""
	if stage != 0 {
		at = " at stage " + stage.String()
	}
	funcs := "functions"
	if len(m.Funcs) == 1 {
		funcs = "function"
	}
	fmt.Fprintf(stdout, "%s: ok%s (%d %s, %d instructions)\n", pos[0], at, len(m.Funcs), funcs, m.NumInsts())
	return nil
}

// allocOutputs hands --memmap and --dump-alloc-problem to the alloc pass
// (its options memmap and dump_problem).
func allocOutputs(cfg *pass.Config, memmap, dump string) error {
	if memmap != "" {
		if ext := strings.ToLower(filepath.Ext(memmap)); ext != ".svg" && ext != ".csv" {
			return diag.Errorf(diag.Usage, "--memmap %s: want a .svg or .csv file", memmap)
		}
	}
	for k, v := range map[string]string{"memmap": memmap, "dump_problem": dump} {
		if v == "" {
			continue
		}
		if cfg.Options["alloc"] == nil {
			cfg.Options["alloc"] = map[string]string{}
		}
		cfg.Options["alloc"][k] = v
	}
	return nil
}

// parseOptions splits each --option PASS.KEY=VALUE into opts[PASS][KEY].
func parseOptions(options []string) (map[string]map[string]string, error) {
	opts := map[string]map[string]string{}
	for _, o := range options {
		key, val, ok := strings.Cut(o, "=")
		pname, k, ok2 := strings.Cut(key, ".")
		if !ok || !ok2 || pname == "" || k == "" {
			return nil, diag.Errorf(diag.PassOption, "--option %q: want PASS.KEY=VALUE", o)
		}
		if opts[pname] == nil {
			opts[pname] = map[string]string{}
		}
		opts[pname][k] = val
	}
	return opts, nil
}

// archOnly parses the --option flags of a command that runs no pass:
// only machine parameters arch.NAME=VALUE are accepted.
func archOnly(options []string) (map[string]string, error) {
	opts, err := parseOptions(options)
	if err != nil {
		return nil, err
	}
	arch := strings.TrimSuffix(arch.OptionPrefix, ".")
	for p := range opts {
		if p != arch {
			return nil, diag.Errorf(diag.PassOption, "--option %s.*: this command runs no pass; it accepts machine parameters %sNAME=VALUE only", p, arch+".")
		}
	}
	return opts[arch], nil
}

// retarget applies --arch and the --option arch.NAME=VALUE entries of
// opts (taken out of opts: they are machine parameters, not a pass's) to m
// and returns the machine model (arch.Retarget: the precedence).
func retarget(m *bir.Module, archName string, opts map[string]map[string]string) (*arch.Model, error) {
	params := opts[strings.TrimSuffix(arch.OptionPrefix, ".")]
	delete(opts, strings.TrimSuffix(arch.OptionPrefix, "."))
	return arch.Retarget(m, archName, params)
}

// loadOne loads the single input file of print and verify.
func loadOne(fs *flag.FlagSet, pos []string, nf *nkiFlags, archName string, log io.Writer) (*bir.Module, error) {
	if len(pos) != 1 {
		return nil, diag.Errorf(diag.Usage, "want one input file, have %d", len(pos))
	}
	m, _, err := loadModule(fs, pos[0], nf, archName, log)
	return m, err
}

func runPasses(args []string, stdout, stderr io.Writer) error {
	fmt.Fprintf(stdout, "%-28s %5s %-8s %-16s %s\n", "pass", "order", "default", "gate", "description")
	for _, p := range pipeline.Table.Passes {
		order := "-"
		if p.Order != 0 {
			order = fmt.Sprint(p.Order)
		}
		gate := "-"
		if p.Gate != "" {
			gate = p.Gate
		}
		fmt.Fprintf(stdout, "%-28s %5s %-8v %-16s %s\n", p.Name, order, p.Default, gate, p.Doc)
		for _, o := range p.Options {
			rng := ""
			if o.Check.Range != "" {
				rng = " [" + o.Check.Range + "]"
			}
			fmt.Fprintf(stdout, "    --option %s.%s=%s  %s%s\n", p.Name, o.Name, o.Default, o.Doc, rng)
		}
	}
	fmt.Fprintf(stdout, "machine parameters (--option %sNAME=VALUE, or the module option %sNAME; the command line wins):\n", arch.OptionPrefix, arch.OptionPrefix)
	for _, o := range arch.OptionNames() {
		fmt.Fprintf(stdout, "    --option %s%s\n", arch.OptionPrefix, o)
	}
	for _, c := range pipeline.Table.Constraints {
		fmt.Fprintf(stdout, "constraint: %s before %s: %s\n", c.Before, c.After, c.Why)
	}
	return nil
}

// passTableNames lists the passes the default pipeline runs on the
// default kernel (for tests).
func passTableNames() []string {
	var out []string
	for _, p := range pipeline.Table.Passes {
		if p.Default && p.Gate == "" {
			out = append(out, p.Name)
		}
	}
	return out
}
