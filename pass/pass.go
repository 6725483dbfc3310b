// Package pass is narwhal's pass manager, modelled on the Go compiler's
// cmd/compile/internal/ssa (one pass table as the single source of truth, a
// verifier between passes, per-pass timing and dumps) and on
// golang.org/x/tools/go/analysis (passes declare what they require and what
// they produce).
//
// A Pass names itself as the seeds do ("translate_nki_ast_to_bir",
// "lower_generic_indirect", "legalize_strided_dma", ...), carries the
// seeds' execution order number where they give one (2, 10, 18, 19, 24,
// 25), says whether the default pipeline runs it, which gate option enables
// it (legalize_strided_dma runs only under gen-stride-dma), which verifier
// stages it requires and produces, and the options it accepts.
//
// The table itself lives in package pipeline (it imports every pass
// family); this package only defines the types, checks a table's
// consistency (ordering constraints, requires/produces, unique names, option
// declarations) and runs it: optional verification before and after each
// pass, per-pass wall time and statistics for the report, --print-after
// dumps, and a panic inside a pass turned into an error naming the pass and
// the function it was working on.
package pass

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/bug"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Option declares one pass option (set with --option PASS.KEY=VALUE).
type Option struct {
	Name    string
	Default string
	Doc     string
	// Check is the documented range of the option's values (options.go),
	// enforced before any pass runs; Table.Check requires one.
	Check OptionCheck
}

// Pass is one entry of the pass table.
type Pass struct {
	// Name is the seeds' registry string.
	Name string
	// Order is the seeds' execution-order number, 0 when the seeds give none.
	Order int
	// Default says whether the default pipeline runs the pass (subject to
	// its Gate). Passes outside the default pipeline run only when named in
	// Config.Passes.
	Default bool
	// Gate is the module option that must be "true" for the pass to run
	// (e.g. "gen-stride-dma"); empty means ungated.
	Gate string
	// Requires are verifier stages that must hold before the pass runs
	// (established by an earlier pass in the table or by the input). Check
	// proves that the full table establishes them; Run, which may run a
	// subset (Config.Passes), verifies the module at a required stage no
	// pass of the run has produced yet and refuses to run the pass when
	// the module does not satisfy it (under Config.NoVerify the input is
	// assumed to satisfy it).
	Requires verify.Stage
	// Produces are the stages the pass establishes.
	Produces verify.Stage
	// Needs are passes whose result this pass reads and no verifier stage
	// shows (the dependencies anti_dependency_analyzer computes): each
	// must run earlier in the same run, or Run refuses the pass (NW103)
	// rather than let it work on what is not there (issue 27 item 10: the
	// scheduler run without the analyzer reordered conflicting accesses).
	Needs []string
	// Options the pass accepts, with defaults.
	Options []Option
	// Checkpoint, when set, is the file name (the seeds' checkpoint name,
	// e.g. "bir.scheduled.after-ooo.json") under which the pass manager
	// writes the module after the pass into Config.DumpDir, with
	// Config.Checkpointer.
	Checkpoint string
	// Doc is a one-line description for `narwhal passes` and the report.
	Doc string
	// Run performs the pass on ctx.Module.
	Run func(ctx *Context) error
}

// Constraint says pass Before must come before pass After in the table,
// and why (as cmd/compile's passOrder does).
type Constraint struct {
	Before, After string
	Why           string
}

// Table is an ordered pass list plus its ordering constraints.
type Table struct {
	Passes      []Pass
	Constraints []Constraint
}

// Lookup returns the pass named name.
func (t *Table) Lookup(name string) (*Pass, bool) {
	for i := range t.Passes {
		if t.Passes[i].Name == name {
			return &t.Passes[i], true
		}
	}
	return nil, false
}

// Check validates the table: unique names, every constraint names passes
// of the table and holds in its order, execution-order numbers increase
// along the table, and every stage a pass requires is produced by some
// earlier pass. It is called by the pipeline package at init (a broken
// table is a programming error) and by tests.
func (t *Table) Check() error {
	pos := map[string]int{}
	for i, p := range t.Passes {
		if p.Name == "" {
			return fmt.Errorf("pass table: entry %d has no name", i)
		}
		if _, dup := pos[p.Name]; dup {
			return fmt.Errorf("pass table: %q appears twice", p.Name)
		}
		if p.Run == nil {
			return fmt.Errorf("pass table: %q has no Run function", p.Name)
		}
		pos[p.Name] = i
		seen := map[string]bool{}
		for _, o := range p.Options {
			if seen[o.Name] {
				return fmt.Errorf("pass table: %q declares option %q twice", p.Name, o.Name)
			}
			seen[o.Name] = true
			if o.Check.check != nil && !o.Check.Accepts(o.Default) {
				return fmt.Errorf("pass table: option %s.%s: its default %q is outside its range (%s)", p.Name, o.Name, o.Default, o.Check.Range)
			}
		}
	}
	last, lastName := 0, ""
	for _, p := range t.Passes {
		if p.Order == 0 {
			continue
		}
		if p.Order <= last {
			return fmt.Errorf("pass table: %q has execution order %d but follows %q with order %d", p.Name, p.Order, lastName, last)
		}
		last, lastName = p.Order, p.Name
	}
	for _, c := range t.Constraints {
		a, ok1 := pos[c.Before]
		b, ok2 := pos[c.After]
		if !ok1 || !ok2 {
			return fmt.Errorf("pass table: constraint %s < %s names a pass that is not in the table", c.Before, c.After)
		}
		if a >= b {
			return fmt.Errorf("pass table: %s must run before %s (%s)", c.Before, c.After, c.Why)
		}
	}
	for i, p := range t.Passes {
		for _, n := range p.Needs {
			if j, ok := pos[n]; !ok || j >= i {
				return fmt.Errorf("pass table: %q needs %q, which is not an earlier pass of the table", p.Name, n)
			}
		}
	}
	var produced verify.Stage
	for _, p := range t.Passes {
		if missing := p.Requires &^ produced; missing != 0 {
			return fmt.Errorf("pass table: %q requires stage %v that no earlier pass produces", p.Name, missing)
		}
		produced |= p.Produces
	}
	return nil
}

// Config selects and parameterizes a run.
type Config struct {
	// Arch is the machine model; nil means arch.ForModule.
	Arch *arch.Model
	// Passes, when non-nil, runs exactly these passes, in table order,
	// regardless of Default and Gate. Unknown names are an error.
	Passes []string
	// Rerun runs Passes over a compiled (synchronized) module instead of
	// refusing it (Run keeps a compiled input as it is: issue 27 item 4).
	// For tests of a pass run twice over its own output; the CLI never
	// sets it.
	Rerun bool
	// Options are per-pass options: Options[pass][key] = value.
	Options map[string]map[string]string
	// The input is always verified before the first pass and the result
	// after the last one (a compiler that does not check its input turns
	// a user's mistake into a confusing failure deep in a pass).
	// VerifyEach also verifies after every pass; NoVerify turns all
	// verification off (for benchmarks of the passes alone).
	VerifyEach bool
	NoVerify   bool
	// BesideLastVerify, when set, is called with the verification after
	// the last pass instead of Run calling it, and returns its error: the
	// caller runs its own work beside it (compile writes its output on
	// the second core while the module is verified, driver.StartSave).
	// It must return verify's error unchanged, and whatever it runs
	// beside verify must only read the module. Not called under NoVerify.
	BesideLastVerify func(verify func() error) error
	// PrintAfter lists passes after which the module is printed in text
	// form to PrintOut (and to DumpDir when set); "all" prints after every
	// pass. A name that is neither "all" nor a pass of the table is an
	// error.
	PrintAfter []string
	PrintOut   io.Writer
	// DumpDir, when set, receives "NN-<pass>.bir" after each printed pass;
	// with an empty PrintAfter it receives one after every pass that runs
	// (and nothing is printed to PrintOut).
	DumpDir string
	// Verbose receives pass log lines as they are emitted (nil: kept only
	// in the report).
	Verbose io.Writer
	// Printer writes a module in text form (package bir's printer); set
	// by the caller so that this package does not depend on it.
	Printer func(w io.Writer, m *bir.Module) error
	// Observer follows the run (log lines, progress, HTML report); nil:
	// none. Progress, when set, receives each pass's Context.Progress
	// reports (reset at each pass start).
	Observer Observer
	Progress *Progress
	// Checkpointer writes a module as BIR-JSON (package birjson's
	// writer) for the passes' Checkpoint files under DumpDir; nil writes
	// none.
	Checkpointer func(w io.Writer, m *bir.Module) error
	// Stats also records each pass's live heap (PassResult.LiveHeap): a
	// full garbage collection after every pass, outside the pass's
	// measured interval (for narwhal bench and --stats); and the peak heap
	// during each pass (StartPeakSampler).
	Stats bool
}

// PassResult is one line of the report.
type PassResult struct {
	Name       string
	Order      int
	Skipped    string // why the pass did not run ("gate gen-stride-dma off")
	Wall       time.Duration
	VerifyWall time.Duration
	CPU        time.Duration // process CPU (user+sys) over the pass
	VerifyCPU  time.Duration
	Alloc      uint64 // bytes allocated on the Go heap by the pass
	LiveHeap   uint64 // Go heap in use after the pass (Config.Stats only)
	// PeakLive and PeakHeap: the largest live heap and heap in use seen
	// during the pass, and during the verification after it (Config.Stats
	// only: Usage.PeakLive).
	PeakLive, PeakHeap             uint64
	VerifyPeakLive, VerifyPeakHeap uint64
	InstsBefore                    int64
	InstsAfter                     int64
	Counters                       []Counter
	Blocks                         []ReportBlock
	Log                            []string
	LogDropped                     int64 // log lines beyond MaxLogLines, counted, not kept
	FunctionsSeen                  int
}

// Counter is a named metric (e.g. the seeds' backend::ShrunkNodesCount).
type Counter struct {
	Name  string
	Value int64
}

// ReportBlock is a titled text block a pass adds to the report (e.g. the
// "SB Legalization Statistic:" block).
type ReportBlock struct {
	Title string
	Text  string
}

// Report is the outcome of a run.
type Report struct {
	Arch   string
	Passes []PassResult
	Total  time.Duration
	Insts  int64
	// InputVerify is what verifying the input before the first pass cost.
	InputVerify Usage
	// Kept is the stage at which a compiled input was verified and kept
	// as it is (no pass ran: run.go, keepCompiled); 0 otherwise.
	Kept verify.Stage
}

// Context is what a pass's Run receives.
type Context struct {
	Module *bir.Module
	Arch   *arch.Model
	Pass   *Pass

	opts     map[string]string
	table    *Table
	allOpts  map[string]map[string]string
	runs     []*Pass // the passes of this run
	result   *PassResult
	produced verify.Stage
	verbose  io.Writer
	curFunc  string
	observer Observer
	progress *Progress
}

// PeerOption returns the value of option name of pass peer in this run
// (its declared default when unset), for a pass whose plan depends on how
// a later pass is configured (sb_size_legalization leaves tensors to
// vn_splitter and must apply its knobs). ok is false when peer does not
// run in this run (then nothing can be left to it) or declares no option
// name.
func (c *Context) PeerOption(peer, name string) (value string, ok bool) {
	if c.table == nil {
		return "", false
	}
	p, found := c.table.Lookup(peer)
	if !found || !slices.Contains(c.runs, p) {
		return "", false
	}
	for _, o := range p.Options {
		if o.Name == name {
			if v, set := c.allOpts[peer][name]; set {
				return v, true
			}
			return o.Default, true
		}
	}
	return "", false
}

// PeerRuns reports whether pass peer runs in this run.
func (c *Context) PeerRuns(peer string) bool {
	if c.table == nil {
		return false
	}
	p, found := c.table.Lookup(peer)
	return found && slices.Contains(c.runs, p)
}

// Option returns the value of a declared option (its default when unset).
func (c *Context) Option(name string) string {
	if v, ok := c.opts[name]; ok {
		return v
	}
	for _, o := range c.Pass.Options {
		if o.Name == name {
			return o.Default
		}
	}
	panic(fmt.Sprintf("pass %s: option %q is not declared", c.Pass.Name, name))
}

// IntOption parses an integer option.
func (c *Context) IntOption(name string) (int64, error) {
	v := c.Option(name)
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil {
		return 0, diag.Errorf(diag.PassOption, "option %s=%q: want an integer", name, v)
	}
	return n, nil
}

// FloatOption parses a float option.
func (c *Context) FloatOption(name string) (float64, error) {
	v := c.Option(name)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, diag.Errorf(diag.PassOption, "option %s=%q: want a number", name, v)
	}
	return f, nil
}

// BoolOption parses a boolean option.
func (c *Context) BoolOption(name string) (bool, error) {
	v := c.Option(name)
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, diag.Errorf(diag.PassOption, "option %s=%q: want true or false", name, v)
	}
	return b, nil
}

// Logf records a log line (the seeds' INFO lines) in the report and, in
// verbose mode, prints it.
//
// The report keeps a pass's first MaxLogLines lines and counts the rest
// (PassResult.LogDropped): some passes log a line per memory location, as
// the seeds' INFO lines do, and a fully unrolled kernel has millions of
// them. With Config.Verbose every line is still printed as it happens.
func (c *Context) Logf(format string, args ...any) {
	if len(c.result.Log) >= MaxLogLines {
		c.result.LogDropped++
		if c.verbose == nil {
			return
		}
		fmt.Fprintf(c.verbose, "[%s] %s\n", c.Pass.Name, fmt.Sprintf(format, args...))
		return
	}
	line := fmt.Sprintf(format, args...)
	c.result.Log = append(c.result.Log, line)
	if c.verbose != nil {
		fmt.Fprintf(c.verbose, "[%s] %s\n", c.Pass.Name, line)
	}
	if c.observer != nil {
		c.observer.Log(c.Pass, line)
	}
}

// MaxLogLines is how many log lines of a pass the report keeps.
const MaxLogLines = 10000

// Count adds delta to the named counter.
func (c *Context) Count(name string, delta int64) {
	for i := range c.result.Counters {
		if c.result.Counters[i].Name == name {
			c.result.Counters[i].Value += delta
			return
		}
	}
	c.result.Counters = append(c.result.Counters, Counter{name, delta})
}

// AddReport adds a titled text block to the report.
func (c *Context) AddReport(title, text string) {
	c.result.Blocks = append(c.result.Blocks, ReportBlock{title, text})
}

// SetProduced overrides, for this run, the stages the pass establishes
// (for a pass whose options decide what it establishes, such as
// full_unroll's unrollLevel: only level 2 leaves no loops).
func (c *Context) SetProduced(s verify.Stage) { c.produced = s }

// Function records the function the pass is working on, so that a panic
// can be reported against it. ForEachFunction does this for you.
func (c *Context) Function(name string) { c.curFunc = name }

// ForEachFunction calls fn for every function, "main" first (the seeds'
// BackendPass skeleton), recording the current function for diagnostics.
func (c *Context) ForEachFunction(fn func(f *bir.Function) error) error {
	for _, f := range c.Module.FuncsMainFirst() {
		c.curFunc = f.Name
		c.result.FunctionsSeen++
		if err := fn(f); err != nil {
			return err
		}
	}
	c.curFunc = ""
	return nil
}

// Error is a pass failure.
type Error struct {
	Pass     string
	Function string
	Err      error
	Panic    bool
	// Pos is the NKI source position the failure is about (zero when
	// unknown); it leads the message (see pos.go).
	Pos bir.Pos
}

func (e *Error) Error() string {
	var sb strings.Builder
	inner := e.Err
	if pe, ok := inner.(*bir.PosError); ok {
		inner = pe.Err
	}
	if e.Pos.IsKnown() {
		sb.WriteString(e.Pos.String())
		sb.WriteString(": ")
	}
	sb.WriteString("pass ")
	sb.WriteString(e.Pass)
	if e.Function != "" {
		sb.WriteString(", function ")
		sb.WriteString(e.Function)
	}
	if e.Panic {
		sb.WriteString(": internal error (panic): ")
	} else {
		sb.WriteString(": ")
	}
	msg := inner.Error()
	if e.Pos.IsKnown() {
		// A position the inner text carries already is not repeated.
		msg = strings.Replace(msg, e.Pos.String()+": ", "", 1)
	}
	sb.WriteString(msg)
	return sb.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes a recovered panic an internal error (bug.ErrInternal: exit
// status 2).
func (e *Error) Is(target error) bool { return e.Panic && target == bug.ErrInternal }

// VerifierError is a module the verifier rejects after a pass that
// accepted a verified input: the pass broke the IR, which is narwhal's
// fault, not the user's (a mistake in the input is caught before the
// first pass, or by the pass that translates it): an internal error.
type VerifierError struct {
	Pass string
	Err  error // the *verify.Error
}

func (e *VerifierError) Error() string { return "verifier after pass " + e.Pass + ": " + e.Err.Error() }
func (e *VerifierError) Unwrap() error { return e.Err }

// Is marks the error internal (bug.ErrInternal: exit status 2).
func (e *VerifierError) Is(target error) bool { return target == bug.ErrInternal }

// Select returns the passes a config runs, in table order, with the reason
// for each skipped one.
func (t *Table) Select(m *bir.Module, cfg *Config) (run []*Pass, skipped map[string]string, err error) {
	skipped = map[string]string{}
	if cfg.Passes != nil {
		want := map[string]bool{}
		for _, n := range cfg.Passes {
			if _, ok := t.Lookup(n); !ok {
				return nil, nil, diag.Errorf(diag.PassOption, "unknown pass %q (known: %s)", n, strings.Join(t.Names(), ", "))
			}
			want[n] = true
		}
		for i := range t.Passes {
			if want[t.Passes[i].Name] {
				run = append(run, &t.Passes[i])
			}
		}
		if err := checkNeeds(run); err != nil {
			return nil, nil, err
		}
		return run, skipped, nil
	}
	for i := range t.Passes {
		p := &t.Passes[i]
		switch {
		case !p.Default:
			skipped[p.Name] = "not in the default pipeline"
		case p.Gate != "" && m.Config.Options[p.Gate] != "true":
			skipped[p.Name] = "gate " + p.Gate + " is off"
		default:
			run = append(run, p)
		}
	}
	return run, skipped, nil
}

// checkNeeds refuses a selection in which a pass runs without a pass it
// Needs before it.
func checkNeeds(run []*Pass) error {
	for i, p := range run {
		for _, n := range p.Needs {
			if !slices.ContainsFunc(run[:i], func(q *Pass) bool { return q.Name == n }) {
				return diag.Errorf(diag.PassOption, "--passes: pass %s needs %s earlier in the same run (it works on what %s computes, which the module does not record as a stage): add %s to --passes", p.Name, n, n, n)
			}
		}
	}
	return nil
}

// Names returns the table's pass names in order.
func (t *Table) Names() []string {
	out := make([]string, len(t.Passes))
	for i, p := range t.Passes {
		out[i] = p.Name
	}
	return out
}

// checkOptions rejects options for unknown passes or undeclared keys.
// CheckOptions checks per-pass options (Config.Options) as Run does
// before any pass: each names a pass and an option it declares, and each
// value is in the option's documented range.
func (t *Table) CheckOptions(opts map[string]map[string]string) error { return t.checkOptions(opts) }

func (t *Table) checkOptions(opts map[string]map[string]string) error {
	names := make([]string, 0, len(opts))
	for n := range opts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, ok := t.Lookup(n)
		if !ok {
			return diag.Errorf(diag.PassOption, "--option %s.*: unknown pass %q", n, n)
		}
		keys := make([]string, 0, len(opts[n]))
		for k := range opts[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if i := slices.IndexFunc(p.Options, func(o Option) bool { return o.Name == k }); i >= 0 {
				if err := p.Options[i].checkValue(n, opts[n][k]); err != nil {
					return diag.Wrap(diag.PassOption, err)
				}
				continue
			}
			var known []string
			for _, o := range p.Options {
				known = append(known, o.Name)
			}
			if len(known) == 0 {
				return diag.Errorf(diag.PassOption, "--option %s.%s: pass %s takes no options", n, k, n)
			}
			return diag.Errorf(diag.PassOption, "--option %s.%s: pass %s has no option %q (known: %s)", n, k, n, k, strings.Join(known, ", "))
		}
	}
	return nil
}
