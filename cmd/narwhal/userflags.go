package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/console"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/htmlreport"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// userFlags are compile's neuronx-cc-shaped flags (docs/cli.md): --target,
// -O/--optlevel, --verbose, --logfile, NEURON_CC_FLAGS; the page
// (--html), the progress line, and several modules at once (--out-dir,
// -j). runCompile calls these methods at fixed points.
type userFlags struct {
	fs                       *flag.FlagSet
	target, verbose, logfile *string
	html, outDir             *string
	optLevel, jobs           *int
	progress                 *bool
	envDropped               []string
	envLNC                   []string // --lnc words of NEURON_CC_FLAGS, dropped
	logFile                  *outfile.Stream
}

func addUserFlags(fs *flag.FlagSet) *userFlags {
	u := &userFlags{fs: fs}
	u.target = fs.String("target", "", "neuronx-cc's `target`: trn1, trn1n, inf2, trn2 or trn3 (compiles for the matching --arch)")
	u.optLevel = new(int)
	fs.IntVar(u.optLevel, "O", pipeline.DefaultOptLevel, "optimization `level` 1, 2 or 3 (also -O1 .. -O3; docs/cli.md says what each turns on)")
	fs.IntVar(u.optLevel, "optlevel", pipeline.DefaultOptLevel, "the same as -O")
	u.verbose = fs.String("verbose", "", "log `level`: debug, info, warning (default), error or critical")
	u.logfile = fs.String("logfile", "", "also write every log line, debug level included, to `FILE`")
	u.progress = fs.Bool("progress", true, "on a terminal, show a progress line for passes that take longer than a second")
	u.html = fs.String("html", "", "write a self-contained HTML report of the compile to `FILE`")
	u.outDir = fs.String("out-dir", "", "compile every input into `DIR`/NAME.json (several inputs: one summary line each)")
	u.jobs = fs.Int("j", 0, "compile up to `N` modules at once (default: one per core)")
	return u
}

var optShort = regexp.MustCompile(`^--?O([0-9]+)$`)

// expand puts the flags of NEURON_CC_FLAGS before args (the command
// line's own flags win), drops the neuronx-cc flags narwhal has no
// equivalent for, and spells -O1 as -O=1.
func (u *userFlags) expand(args []string) ([]string, error) {
	var env []string
	if s := os.Getenv(console.EnvFlags); strings.TrimSpace(s) != "" {
		words, err := console.SplitFlags(s)
		if err != nil {
			return nil, err
		}
		// --lnc from the variable is the framework's core configuration,
		// dropped as neuronx-cc-only (console.NeuronOnlyFlags): here it
		// would change what -o writes (compile --lnc, lnc.go).
		words = dropEnvLNC(words, &u.envLNC)
		keep, dropped, err := console.FilterFlags(u.fs, rewriteO(words))
		if err != nil {
			return nil, err
		}
		env, u.envDropped = keep, dropped
	}
	return append(env, rewriteO(args)...), nil
}

// dropEnvLNC removes --lnc / --logical-nc-config (with its value) from
// the words of NEURON_CC_FLAGS, recording them in dropped.
func dropEnvLNC(words []string, dropped *[]string) []string {
	var keep []string
	for i := 0; i < len(words); i++ {
		name, _, hasVal := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
		if strings.HasPrefix(words[i], "-") && (name == "lnc" || name == "logical-nc-config") {
			d := words[i]
			if !hasVal && i+1 < len(words) {
				i++
				d += " " + words[i]
			}
			*dropped = append(*dropped, d)
			continue
		}
		keep = append(keep, words[i])
	}
	return keep
}

func rewriteO(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if m := optShort.FindStringSubmatch(a); m != nil {
			a = "-O=" + m[1]
		}
		out[i] = a
	}
	return out
}

// archName maps --target onto the --arch the rest of the command uses.
func (u *userFlags) archName(archName string) (string, error) {
	if *u.target == "" {
		return archName, nil
	}
	return arch.TargetArch(*u.target, archName)
}

// session is one compile's console and HTML recorder.
type session struct {
	u      *userFlags
	con    *console.Console
	rec    *htmlreport.Recorder
	m      *bir.Module
	stdout io.Writer
}

// setup applies -O to m and cfg and attaches the console and the HTML
// recorder to the run.
func (u *userFlags) setup(input string, args []string, m *bir.Module, cfg *pass.Config, debug bool, stdout, stderr io.Writer) (*session, error) {
	if err := pipeline.ApplyOptLevel(*u.optLevel, m, cfg.Options); err != nil {
		return nil, err
	}
	level := console.Warning
	if debug {
		level = console.Debug
	}
	if *u.verbose != "" {
		var err error
		if level, err = console.ParseLevel(*u.verbose); err != nil {
			return nil, err
		}
	}
	opt := console.Options{Level: level, Term: stderr, Progress: *u.progress && console.IsTerminal(stderr)}
	if *u.logfile != "" {
		f, err := outfile.Create(*u.logfile, outfile.Options{Stdout: stdout})
		if err != nil {
			return nil, fmt.Errorf("--logfile: %w", err)
		}
		u.logFile, opt.LogFile = f, f
	}
	s := &session{u: u, con: console.New(opt), m: m, stdout: stdout}
	for _, d := range u.envDropped {
		s.con.Logf(console.Warning, "%s: ignoring %s (neuronx-cc only: narwhal has no equivalent)", console.EnvFlags, d)
	}
	for _, d := range u.envLNC {
		s.con.Logf(console.Warning, "%s: ignoring %s (the framework's core configuration; narwhal compile --lnc N on the command line compiles an LNC kernel's cores together)", console.EnvFlags, d)
	}
	s.con.Logf(console.Info, "narwhal compile %s (-O%d)", diag.ShellQuote(args), *u.optLevel)
	cfg.Observer = s.con
	if *u.html != "" {
		s.rec = htmlreport.New(input, "narwhal compile "+diag.ShellQuote(args))
		cfg.Observer = pass.Observers(s.con, s.rec)
	}
	cfg.Progress = s.con.Progress()
	return s, nil
}

// attachTrace puts the scheduler's Perfetto trace on the page (--trace).
func (s *session) attachTrace(name string, write func(io.Writer) error) {
	if s.rec == nil {
		return
	}
	var b bytes.Buffer
	if err := write(&b); err != nil {
		s.con.Logf(console.Warning, "--html: the trace is not on the page: %v", err)
		return
	}
	s.rec.AddTrace("Schedule timeline (Perfetto trace)", name, b.Bytes())
}

// attachSVGFile puts an SVG the run wrote (the alloc pass's --memmap) on
// the page.
func (s *session) attachSVGFile(title, path string) {
	if s.rec == nil {
		return
	}
	data, err := outfile.ReadOutput(path)
	if err != nil {
		s.con.Logf(console.Warning, "--html: %s is not on the page: %v", path, err)
		return
	}
	s.rec.AddSVG(title, data)
}

// finish logs the outcome, writes the page (--html) and closes the log
// file. The page and the log report the run, failed or not, so they are
// published at once (outfile.Options.Immediate), not only on success. A
// log that could not be written (--logfile /dev/full) is an error.
func (s *session) finish(rep *pass.Report, runErr error) error {
	if runErr != nil {
		s.con.FileLogf(console.Error, "%s", diag.OneLine(runErr.Error()))
	} else if rep != nil {
		s.con.Logf(console.Info, "Compilation finished: %d instructions in %.3f seconds", rep.Insts, rep.Total.Seconds())
	}
	var err error
	if s.rec != nil {
		err = outfile.Write(*s.u.html, outfile.Options{Stdout: s.stdout, Immediate: true}, func(w io.Writer) error { return s.rec.Write(w, rep, s.m, runErr) })
		if err != nil {
			err = fmt.Errorf("--html: %w", err)
		}
	}
	if lerr := s.u.close(); lerr != nil && err == nil {
		err = fmt.Errorf("--logfile: %w", lerr)
	}
	return err
}

func (u *userFlags) close() error {
	if u.logFile == nil {
		return nil
	}
	err := u.logFile.Close()
	u.logFile = nil
	return err
}
