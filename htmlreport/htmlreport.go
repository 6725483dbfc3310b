// Package htmlreport writes `narwhal compile --html FILE`: one
// self-contained HTML page (inline CSS and a few lines of JavaScript, no
// network) describing a compile, in the spirit of the Go compiler's
// ssa.html:
//
//   - the schedule of the result as a timeline (engines and DMA queues as
//     lanes, instructions as boxes coloured by engine, the instruction and
//     its kernel source line on hover, dependency arrows on demand) and
//     its memory map (SBUF and PSUM over time), both drawn from the result
//     itself (timeline.go);
//   - the input: file, arch, functions, instructions, tensors by memory,
//     opcodes and engines, and the same for the result;
//   - the pass table: seed order, time, verifier time, instructions before
//     and after, status (ran, skipped and why, failed), with a bar of each
//     pass's time and of its instruction count;
//   - per pass, collapsible: its counters, report blocks (the "SB
//     Legalization Statistic" block, ...) and log lines, and the text IR
//     before and after it as a line diff with the removed and added lines
//     marked (with the full module after the pass one click further);
//   - attachments other passes produce: the allocation map (an SVG, inline),
//     the schedule timeline (an SVG, inline) and the Perfetto trace (a
//     download link to the JSON the page carries, for ui.perfetto.dev).
//
// A Recorder is a pass.Observer: it prints the module before the first
// pass and after each pass (bir.Print), so the page costs one print per
// pass; beyond MaxInsts instructions a pass's IR is left out (and the page
// says so) to keep the page and the compile time bounded on large modules.
// Attachments are added with AddSVG and AddTrace before Write: the memory
// planner's --memmap and the scheduler's --trace plug in there.
package htmlreport

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/srcline"
	"github.com/narwhal-compiler/narwhal/internal/textdiff"
	"github.com/narwhal-compiler/narwhal/pass"
)

// DefaultMaxInsts is the instruction count above which a pass's IR is not
// put on the page.
const DefaultMaxInsts = 20000

// Recorder collects what the page shows.
type Recorder struct {
	// Input names the compiled file (or builtin: spec); Command is the
	// command line.
	Input, Command string
	// MaxInsts bounds the modules whose text is recorded (0:
	// DefaultMaxInsts; negative: none is).
	MaxInsts int64

	inSummary, outSummary *Summary
	last                  string // the module text after the last recorded step
	lastOK                bool
	passes                []*passRecord
	attachments           []attachment
	started               time.Time
}

type passRecord struct {
	name    string
	err     string
	diff    []textdiff.Line
	after   string
	omitted string // why there is no IR
	changed int
}

type attachment struct {
	Kind  string // "svg" or "trace"
	Title string
	Name  string // file name of a trace
	SVG   template.HTML
	Data  string // base64 JSON of a trace
	Size  int
}

// New returns a recorder.
func New(input, command string) *Recorder {
	return &Recorder{Input: input, Command: command, started: time.Now()}
}

func (r *Recorder) maxInsts() int64 {
	if r.MaxInsts != 0 {
		return r.MaxInsts
	}
	return DefaultMaxInsts
}

// text prints m, or says why it does not.
func (r *Recorder) text(m *bir.Module) (string, string) {
	if n := m.NumInsts(); n > r.maxInsts() {
		return "", fmt.Sprintf("the module has %d instructions, more than the page shows (%d)", n, r.maxInsts())
	}
	var b bytes.Buffer
	if err := bir.Print(&b, m); err != nil {
		return "", "printing the module failed: " + err.Error()
	}
	return b.String(), ""
}

// Start implements pass.Observer.
func (r *Recorder) Start(m *bir.Module) {
	r.inSummary = Summarize(m)
	r.last, _ = r.text(m)
	r.lastOK = r.last != ""
}

// PassStart implements pass.Observer.
func (r *Recorder) PassStart(p *pass.Pass, m *bir.Module) {}

// Log implements pass.Observer (the log lines are in the result).
func (r *Recorder) Log(p *pass.Pass, line string) {}

// PassEnd implements pass.Observer: the module after the pass, diffed
// against the one before.
func (r *Recorder) PassEnd(p *pass.Pass, res *pass.PassResult, m *bir.Module, err error) {
	rec := &passRecord{name: p.Name}
	if err != nil {
		rec.err = err.Error()
	}
	after, why := r.text(m)
	switch {
	case why != "":
		rec.omitted = why
	case !r.lastOK:
		rec.omitted = "the module before the pass was not recorded"
		rec.after = after
	default:
		rec.diff = textdiff.Lines(textdiff.Split(r.last), textdiff.Split(after))
		rec.after = after
		for _, l := range rec.diff {
			if l.Op != textdiff.Same {
				rec.changed++
			}
		}
	}
	r.last, r.lastOK = after, why == ""
	r.passes = append(r.passes, rec)
	r.outSummary = nil
}

// AddSVG attaches an SVG picture (the allocation map, the schedule
// timeline), shown inline.
func (r *Recorder) AddSVG(title string, svg []byte) {
	r.attachments = append(r.attachments, attachment{Kind: "svg", Title: title, SVG: template.HTML(svg), Size: len(svg)})
}

// AddTrace attaches a Chrome trace-event JSON file (the scheduler's
// Perfetto trace): the page offers it for download, to open in
// ui.perfetto.dev.
func (r *Recorder) AddTrace(title, name string, data []byte) {
	r.attachments = append(r.attachments, attachment{Kind: "trace", Title: title, Name: name, Data: base64.StdEncoding.EncodeToString(data), Size: len(data)})
}

// Summary describes a module for the page.
type Summary struct {
	Arch      string
	Functions int
	Insts     int64
	Tensors   []Row // per memory type: count, bytes
	Opcodes   []Row // per opcode: count
	Engines   []Row // per engine: count
	Positions int   // distinct source positions

	lines map[sourceKey]int64 // instructions per source line
}

// sourceKey is one line of a kernel's source.
type sourceKey struct {
	file string
	line int32
}

// SourceRow is one line of the kernel's source on the page: where, its
// text (internal/srcline), and how many instructions of the input and of
// the result it made.
type SourceRow struct {
	Pos, Text string
	In, Out   int64
}

// Row is a name and its numbers.
type Row struct {
	Name  string
	Count int64
	Bytes int64
}

// Summarize counts m's tensors, opcodes and engines.
func Summarize(m *bir.Module) *Summary {
	s := &Summary{Arch: m.Arch, Functions: len(m.Funcs), Insts: m.NumInsts(), Positions: m.NumPositions() - 1, lines: map[sourceKey]int64{}}
	mem := map[string]*Row{}
	ops := map[string]*Row{}
	engs := map[string]*Row{}
	bump := func(t map[string]*Row, k string, bytes int64) {
		r := t[k]
		if r == nil {
			r = &Row{Name: k}
			t[k] = r
		}
		r.Count++
		r.Bytes += bytes
	}
	for _, f := range m.Funcs {
		for l := 0; l < f.NumLocs(); l++ {
			lc := f.Loc(bir.LocID(l))
			if !lc.Dead {
				bump(mem, lc.Type.String(), lc.TotalBytes())
			}
		}
		f.Walk(func(i bir.InstID) bool {
			in := f.Inst(i)
			if in.Op.IsLoop() {
				return true
			}
			bump(ops, f.OpName(i), 0)
			bump(engs, in.Engine.String(), 0)
			if p := m.Pos(in.Pos); p.IsKnown() {
				s.lines[sourceKey{p.File, p.Line}]++
			}
			return true
		})
	}
	s.Tensors, s.Opcodes, s.Engines = rows(mem), rows(ops), rows(engs)
	return s
}

func rows(t map[string]*Row) []Row {
	out := make([]Row, 0, len(t))
	for _, r := range t {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Write renders the page for the run's report rep (which lists skipped
// passes too) and its outcome err; result is the module after the run.
func (r *Recorder) Write(w io.Writer, rep *pass.Report, result *bir.Module, runErr error) error {
	if result != nil && r.outSummary == nil {
		r.outSummary = Summarize(result)
	}
	d := pageData{
		Title:       "narwhal: " + r.Input,
		Input:       r.Input,
		Command:     r.Command,
		Generated:   r.started.UTC().Format(time.RFC3339),
		In:          r.inSummary,
		Out:         r.outSummary,
		Attachments: r.attachments,
	}
	if runErr != nil {
		d.Error = runErr.Error()
	}
	d.Source = sourceRows(r.inSummary, r.outSummary)
	d.Timeline = buildTimeline(result)
	d.MemMap, d.MemMapWhy = memoryMap(result)
	if rep != nil {
		d.Arch = rep.Arch
		d.Total = pass.FormatDuration(rep.Total)
		d.TotalInsts = rep.Insts
	}
	// The recorded passes are the report's passes that ran, in order.
	nextRec := 0
	var maxWall time.Duration
	var maxInsts int64
	if rep != nil {
		for i := range rep.Passes {
			maxWall = max(maxWall, rep.Passes[i].Wall+rep.Passes[i].VerifyWall)
			maxInsts = max(maxInsts, rep.Passes[i].InstsBefore, rep.Passes[i].InstsAfter)
		}
	}
	for i := 0; rep != nil && i < len(rep.Passes); i++ {
		res := &rep.Passes[i]
		var rec *passRecord
		if res.Skipped == "" && nextRec < len(r.passes) && r.passes[nextRec].name == res.Name {
			rec = r.passes[nextRec]
			nextRec++
		}
		pv := passView{Index: i, Name: res.Name, Order: "-", Skipped: res.Skipped, Before: res.InstsBefore, After: res.InstsAfter,
			Counters: res.Counters, Blocks: res.Blocks, Log: res.Log}
		if res.Order != 0 {
			pv.Order = fmt.Sprint(res.Order)
		}
		if res.Skipped == "" {
			pv.Time = pass.FormatDuration(res.Wall)
			if res.VerifyWall > 0 {
				pv.Verify = pass.FormatDuration(res.VerifyWall)
			}
			if maxWall > 0 {
				pv.Bar = int(100 * (res.Wall + res.VerifyWall) / maxWall)
			}
			if maxInsts > 0 {
				pv.InstBar = int(100 * res.InstsAfter / maxInsts)
				pv.InstBarBefore = int(100 * res.InstsBefore / maxInsts)
			}
		}
		if rec != nil {
			pv.Error = rec.err
			pv.Omitted = rec.omitted
			pv.Changed = rec.changed
			if rec.changed > 0 {
				pv.Diff = diffView(rec.diff, 3)
			}
			pv.AfterText = rec.after
			pv.HasIR = rec.diff != nil || rec.after != ""
		} else if res.Skipped == "" {
			pv.Omitted = "not recorded"
		}
		d.Passes = append(d.Passes, pv)
	}
	return page.Execute(w, d)
}

// sourceRows lists the source lines the input's and the result's
// instructions came from, in file and line order.
func sourceRows(in, out *Summary) []SourceRow {
	keys := map[sourceKey]bool{}
	for _, s := range []*Summary{in, out} {
		if s != nil {
			for k := range s.lines {
				keys[k] = true
			}
		}
	}
	var rows []SourceRow
	for k := range keys {
		r := SourceRow{Pos: fmt.Sprintf("%s:%d", k.file, k.line), Text: srcline.Line(k.file, int(k.line))}
		if in != nil {
			r.In = in.lines[k]
		}
		if out != nil {
			r.Out = out.lines[k]
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Pos < rows[j].Pos })
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i].Pos, rows[j].Pos
		ai, bi := strings.LastIndexByte(a, ':'), strings.LastIndexByte(b, ':')
		if a[:ai] != b[:bi] {
			return a[:ai] < b[:bi]
		}
		return len(a) < len(b) || len(a) == len(b) && a < b
	})
	return rows
}

type pageData struct {
	Title, Input, Command, Generated string
	Arch, Total, Error               string
	TotalInsts                       int64
	In, Out                          *Summary
	Passes                           []passView
	Source                           []SourceRow
	Attachments                      []attachment
	Timeline                         *timelineView
	MemMap                           template.HTML
	MemMapWhy                        string
}

type passView struct {
	Index                int
	Name, Order, Skipped string
	Time, Verify, Error  string
	Bar                  int
	InstBar              int // instructions after the pass, % of the most any pass left
	InstBarBefore        int // before it
	Before, After        int64
	Counters             []pass.Counter
	Blocks               []pass.ReportBlock
	Log                  []string
	HasIR                bool
	Omitted              string
	Changed              int
	Diff                 []diffLine
	AfterText            string
}

type diffLine struct {
	Class, Mark, Text string
}

// diffView keeps context lines around the changes and elides the rest.
func diffView(ls []textdiff.Line, context int) []diffLine {
	keep := make([]bool, len(ls))
	for i, l := range ls {
		if l.Op != textdiff.Same {
			for j := max(0, i-context); j <= min(len(ls)-1, i+context); j++ {
				keep[j] = true
			}
		}
	}
	var out []diffLine
	gap := 0
	flush := func() {
		if gap > 0 {
			out = append(out, diffLine{Class: "gap", Mark: " ", Text: fmt.Sprintf("... %d unchanged lines", gap)})
			gap = 0
		}
	}
	for i, l := range ls {
		if !keep[i] {
			gap++
			continue
		}
		flush()
		switch l.Op {
		case textdiff.Removed:
			out = append(out, diffLine{"del", "-", l.Text})
		case textdiff.Added:
			out = append(out, diffLine{"add", "+", l.Text})
		default:
			out = append(out, diffLine{"ctx", " ", l.Text})
		}
	}
	flush()
	return out
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"kib": func(b int64) string {
		if b < 1024 {
			return fmt.Sprintf("%d B", b)
		}
		return fmt.Sprintf("%.1f KiB", float64(b)/1024)
	},
	"top": func(rs []Row, n int) []Row {
		if len(rs) > n {
			return rs[:n]
		}
		return rs
	},
	"lines": func(s string) string { return strings.TrimRight(s, "\n") },
	"summaries": func(in, out *Summary) []struct {
		Label string
		S     *Summary
	} {
		return []struct {
			Label string
			S     *Summary
		}{{"input", in}, {"result", out}}
	},
}).Parse(pageHTML))
