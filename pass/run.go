package pass

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/outfile"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Run runs the selected passes of t on m. The module is modified in
// place. The report is returned even when a pass fails (it covers the
// passes that ran).
func (t *Table) Run(m *bir.Module, cfg Config) (*Report, error) {
	rep := &Report{}
	model := cfg.Arch
	if model == nil {
		var err error
		model, err = arch.ForModule(m)
		if err != nil {
			return rep, err
		}
	}
	rep.Arch = model.Name
	if err := t.checkOptions(cfg.Options); err != nil {
		return rep, err
	}
	run, skipped, err := t.Select(m, &cfg)
	if err != nil {
		return rep, err
	}
	if isSynchronized(m) && !(cfg.Rerun && cfg.Passes != nil) {
		return t.keepCompiled(m, cfg, model, run, rep)
	}
	for _, n := range cfg.PrintAfter {
		if _, ok := t.Lookup(n); !ok && n != "all" {
			return rep, diag.Errorf(diag.PassOption, "--print-after %s: unknown pass (want all or one of %s)", n, strings.Join(t.Names(), ", "))
		}
	}
	printList := cfg.PrintAfter
	if len(printList) == 0 && cfg.DumpDir != "" {
		// --dump-dir alone: a dump after every pass, into the directory only.
		printList, cfg.PrintOut = []string{"all"}, nil
	}
	if cfg.Stats {
		StartPeakSampler()
	}
	start := time.Now()
	var stage verify.Stage
	if !cfg.NoVerify {
		mv := NewMeter()
		err := verify.Module(m, verify.Options{Arch: model, Stage: stage})
		rep.InputVerify = mv.Usage()
		if err != nil {
			return rep, fmt.Errorf("the input does not verify: %w", err)
		}
	}
	obs := cfg.Observer
	if obs != nil {
		obs.Start(m)
	}
	lastRun := -1
	// insts is the module's instruction count after the last pass (-1:
	// not counted yet): counting walks every instruction, and nothing
	// between two passes changes the module.
	insts := int64(-1)
	count := func() int64 {
		if insts < 0 {
			insts = m.NumInsts()
		}
		return insts
	}
	for i := range t.Passes {
		if slices.Contains(run, &t.Passes[i]) {
			lastRun = i
		}
	}
	for i := range t.Passes {
		p := &t.Passes[i]
		if !slices.Contains(run, p) {
			if why, ok := skipped[p.Name]; ok && p.Default {
				rep.Passes = append(rep.Passes, PassResult{Name: p.Name, Order: p.Order, Skipped: why})
			}
			continue
		}
		if missing := p.Requires &^ stage; missing != 0 {
			// No pass of this run established it: the input must.
			if !cfg.NoVerify {
				if err := verify.Module(m, verify.Options{Arch: model, Stage: stage | missing}); err != nil {
					rep.Total = time.Since(start)
					return rep, diag.Errorf(diag.PassOption, "pass %s requires stage %v, which no earlier pass of this run produced and the module does not satisfy: %w", p.Name, missing, err)
				}
			}
			stage |= missing
		}
		res := PassResult{Name: p.Name, Order: p.Order, InstsBefore: count()}
		ctx := &Context{Module: m, Arch: model, Pass: p, opts: cfg.Options[p.Name], table: t, allOpts: cfg.Options, runs: run,
			result: &res, verbose: cfg.Verbose, produced: p.Produces, observer: obs, progress: cfg.Progress}
		if cfg.Progress != nil {
			cfg.Progress.reset()
		}
		if obs != nil {
			obs.PassStart(p, m)
		}
		mp := NewMeter()
		err := runProtected(ctx)
		u := mp.Usage()
		res.Wall, res.CPU, res.Alloc = u.Wall, u.CPU, u.Alloc
		res.PeakLive, res.PeakHeap = u.PeakLive, u.PeakHeap
		insts = m.NumInsts()
		res.InstsAfter = insts
		if err != nil {
			rep.Passes = append(rep.Passes, res)
			rep.Total = time.Since(start)
			if obs != nil {
				obs.PassEnd(p, &rep.Passes[len(rep.Passes)-1], m, err)
			}
			return rep, err
		}
		stage |= ctx.produced
		if cfg.VerifyEach || (i == lastRun && !cfg.NoVerify) {
			// The meter covers the verification alone (its CPU is the
			// process's: with BesideLastVerify, the caller's work beside it
			// is counted too).
			var uv Usage
			check := func() error {
				mv := NewMeter()
				err := verify.Module(m, verify.Options{Arch: model, Stage: stage})
				uv = mv.Usage()
				return err
			}
			var verr error
			if i == lastRun && cfg.BesideLastVerify != nil {
				verr = cfg.BesideLastVerify(check)
			} else {
				verr = check()
			}
			res.VerifyWall, res.VerifyCPU = uv.Wall, uv.CPU
			res.VerifyPeakLive, res.VerifyPeakHeap = uv.PeakLive, uv.PeakHeap
			if verr != nil {
				rep.Passes = append(rep.Passes, res)
				rep.Total = time.Since(start)
				err := &VerifierError{Pass: p.Name, Err: verr}
				if obs != nil {
					obs.PassEnd(p, &rep.Passes[len(rep.Passes)-1], m, err)
				}
				return rep, err
			}
		}
		if cfg.Stats {
			res.LiveHeap = LiveHeap()
		}

		rep.Passes = append(rep.Passes, res)
		if obs != nil {
			obs.PassEnd(p, &rep.Passes[len(rep.Passes)-1], m, nil)
		}
		if p.Checkpoint != "" && cfg.DumpDir != "" && cfg.Checkpointer != nil {
			if err := checkpoint(m, &cfg, p.Checkpoint); err != nil {
				return rep, err
			}
		}
		if printAfter(printList, p.Name) {
			if err := dump(m, &cfg, i, p.Name); err != nil {
				return rep, err
			}
		}
	}
	rep.Total = time.Since(start)
	rep.Insts = count()
	return rep, nil
}

func printAfter(list []string, name string) bool {
	return slices.Contains(list, "all") || slices.Contains(list, name)
}

func dump(m *bir.Module, cfg *Config, idx int, name string) error {
	if cfg.Printer == nil {
		return fmt.Errorf("--print-after: no printer configured")
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// ---- after pass %s ----\n", name)
	if err := cfg.Printer(&buf, m); err != nil {
		return fmt.Errorf("--print-after %s: %w", name, err)
	}
	if cfg.PrintOut != nil {
		if _, err := cfg.PrintOut.Write(buf.Bytes()); err != nil {
			return err
		}
	}
	if cfg.DumpDir != "" {
		if err := os.MkdirAll(cfg.DumpDir, 0o755); err != nil {
			return fmt.Errorf("--dump-dir: %w", err)
		}
		path := filepath.Join(cfg.DumpDir, fmt.Sprintf("%02d-%s.bir", idx, name))
		// A dump reports the run (the one before a failing pass is the
		// reproducer): it appears at once, not only when the command
		// succeeds (internal/outfile Session).
		if err := outfile.WriteBytes(path, outfile.Options{Immediate: true}, buf.Bytes()); err != nil {
			return fmt.Errorf("--dump-dir: %w", err)
		}
	}
	return nil
}

// checkpoint writes the module as BIR-JSON to DumpDir/name.
func checkpoint(m *bir.Module, cfg *Config, name string) error {
	if err := os.MkdirAll(cfg.DumpDir, 0o755); err != nil {
		return fmt.Errorf("--dump-dir: %w", err)
	}
	path := filepath.Join(cfg.DumpDir, name)
	if err := outfile.Write(path, outfile.Options{Immediate: true}, func(w io.Writer) error { return cfg.Checkpointer(w, m) }); err != nil {
		return fmt.Errorf("--dump-dir: checkpoint %s: %w", name, err)
	}
	return nil
}

// runProtected runs a pass, turning a panic into an Error naming the pass
// and the function being processed.
func runProtected(ctx *Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			perr := &Error{Pass: ctx.Pass.Name, Function: ctx.curFunc, Panic: true, Err: fmt.Errorf("%v", r)}
			if os.Getenv("NARWHAL_TRACEBACK") != "" {
				perr.Err = fmt.Errorf("%v\n%s", r, debug.Stack())
			}
			err = perr
		}
	}()
	if e := ctx.Pass.Run(ctx); e != nil {
		perr, ok := e.(*Error)
		if !ok {
			perr = &Error{Pass: ctx.Pass.Name, Function: ctx.curFunc, Err: e}
		}
		if !perr.Pos.IsKnown() && !perr.Panic {
			perr.Pos = errorPos(ctx.Module, perr.Err)
		}
		return perr
	}
	return nil
}

// WriteFileAtomic writes data to path with narwhal's output rules
// (internal/outfile: a temporary file in the same directory and a rename,
// so readers never see a partial file; links followed, FIFOs and devices
// written in place, an existing file's mode kept).
func WriteFileAtomic(path string, data []byte) error {
	return WriteAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomic writes path by streaming: write receives a buffered writer.
// It is the one place that decides how narwhal's output files are created,
// by calling internal/outfile: a regular file gets a temporary file in the
// same directory renamed over path when write and the flush succeed (and
// removed otherwise), so readers never see a partial file and the output
// is never held whole in memory, and an existing file keeps its mode; a
// link is written through to its target, a FIFO or device in place; "-"
// and /dev/stdout are standard output. Encoders only write into w.
func WriteAtomic(path string, write func(w io.Writer) error) error {
	return outfile.Write(path, outfile.Options{}, write)
}

// A compiled input (issue 27 item 4). narwhal's output is a synchronized
// module: every instruction scheduled, placed, and ordered by semaphores.
// Recompiling it used to rerun the pipeline over its synchronization
// instructions and fail inside (NW900). A compiled input is now kept:
// its schedule and semaphores are what the compile produced, and no pass
// of the pipeline can rerun on them without undoing them (the analyzer
// would order the carriers, the scheduler move what the semaphores
// order). So the default run skips every pass ("the input is compiled")
// and verifies the module at every stage the run would have produced,
// with the stages those imply (a forgery fails there, with NW313, as the
// input's fault); the output is the input, unchanged (compile
// OUT.json -o OUT2.json writes the same module). --passes on a compiled
// input is refused: the named passes cannot be run on it either.
// Recompiling from the program (stripping the synchronization and the
// schedule, reallocating) is not done: the compiled module has lost what
// the passes before the scheduler consumed (loops, macro operations,
// block tensors), so its "program" is not the kernel it came from.

// isSynchronized reports whether m carries synchronization (a function
// with semaphore waits, updates or stream endings).
func isSynchronized(m *bir.Module) bool {
	for _, f := range m.Funcs {
		if f.Sync != nil && f.Sync.Len() > 0 {
			return true
		}
	}
	return false
}

// keepCompiled is Run on a compiled input (see above).
func (t *Table) keepCompiled(m *bir.Module, cfg Config, model *arch.Model, run []*Pass, rep *Report) (*Report, error) {
	if cfg.Passes != nil {
		return rep, diag.Errorf(diag.Stage, "the input is a compiled module (it carries its schedule and semaphores: stage synchronized), and --passes would run passes over them: compile the kernel it came from, or verify or run this one")
	}
	start := time.Now()
	var stage verify.Stage
	for _, p := range run {
		stage |= p.Produces
	}
	stage = stage.WithPrerequisites()
	if !cfg.NoVerify {
		mv := NewMeter()
		err := verify.Module(m, verify.Options{Arch: model, Stage: stage})
		rep.InputVerify = mv.Usage()
		if err != nil {
			return rep, diag.Wrap(diag.Stage, fmt.Errorf("the input is a compiled module (it carries its schedule and semaphores) and does not verify at stage %v, which its compile produced: %w", stage, err))
		}
	}
	for i := range t.Passes {
		p := &t.Passes[i]
		if p.Default || slices.Contains(run, p) {
			rep.Passes = append(rep.Passes, PassResult{Name: p.Name, Order: p.Order, Skipped: "the input is compiled (stage synchronized): kept as it is"})
		}
	}
	rep.Total = time.Since(start)
	rep.Insts = m.NumInsts()
	rep.Kept = stage
	return rep, nil
}
