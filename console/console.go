// Package console is what a compile shows while it runs: log lines in
// neuronx-cc's style at the levels of its --verbose flag, a log file
// (--logfile), and on a terminal a progress line for passes that take
// longer than a second. A *Console is a pass.Observer.
//
// Log lines look like neuronx-cc's:
//
//	2026-03-01T10:00:00Z INFO 4242 [narwhal]: Running full_unroll
//	2026-03-01T10:00:19Z INFO 4242 [narwhal]: full_unroll finished after 19.032 seconds
//
// Levels (neuronx-cc's --verbose names, Python logging numbers): debug 10
// (also each pass's own log lines and counters), info 20 ("Running
// <pass>", "<pass> finished after N seconds", the input and the result),
// warning 30 (the default: flags narwhal ignores), error 40 (the failure,
// in the log file: the terminal gets it as the command's last line),
// critical 50. The terminal shows lines at the --verbose level
// and above; the log file gets every line from debug up.
//
// The progress line is one line rewritten in place ("\r" and erase to the
// end of the line) every 200 ms: the pass, its instructions done of the
// total when the pass reports them (pass.Context.Progress), and the
// elapsed time. It appears only when stderr is a terminal, once a pass has
// run for a second, and is erased when the pass ends or a log line is
// printed. --progress=false turns it off.
package console

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
)

// Level is a log level (Python logging's numbers, as neuronx-cc uses).
type Level int

const (
	Debug    Level = 10
	Info     Level = 20
	Warning  Level = 30
	Error    Level = 40
	Critical Level = 50
)

var levelNames = map[Level]string{Debug: "DEBUG", Info: "INFO", Warning: "WARNING", Error: "ERROR", Critical: "CRITICAL"}

func (l Level) String() string {
	if s, ok := levelNames[l]; ok {
		return s
	}
	return "LEVEL" + strconv.Itoa(int(l))
}

// ParseLevel reads a --verbose value: a name (debug, info, warning or
// warn, error, critical; any case) or a number.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return Debug, nil
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	case "critical", "fatal":
		return Critical, nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 {
		return Level(n), nil
	}
	return 0, diag.Errorf(diag.Usage, "--verbose %q: want debug, info, warning, error, critical or a number", s)
}

// Options configure a Console.
type Options struct {
	Level    Level     // terminal threshold (0: Warning)
	Term     io.Writer // the terminal's stream (stderr)
	LogFile  io.Writer // every line from Debug up; nil: none
	Progress bool      // draw the progress line on Term
	// Threshold and Interval of the progress line (0: 1 s and 200 ms).
	Threshold, Interval time.Duration
	Now                 func() time.Time // for tests; nil: time.Now
}

// Console writes log lines and the progress line.
type Console struct {
	opt  Options
	pid  int
	mu   sync.Mutex
	prog pass.Progress

	// The running pass, for the progress line.
	pass    string
	started time.Time
	drawn   bool
	stop    chan struct{}
	done    sync.WaitGroup
}

// New returns a console.
func New(opt Options) *Console {
	if opt.Level == 0 {
		opt.Level = Warning
	}
	if opt.Threshold == 0 {
		opt.Threshold = time.Second
	}
	if opt.Interval == 0 {
		opt.Interval = 200 * time.Millisecond
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Console{opt: opt, pid: os.Getpid()}
}

// Progress is where passes report their progress: pass.Config.Progress.
func (c *Console) Progress() *pass.Progress { return &c.prog }

// Logf writes a line at level.
func (c *Console) Logf(level Level, format string, args ...any) {
	c.logf(level, true, format, args...)
}

// FileLogf writes a line at level to the log file only (the final error,
// which the command prints on its own line).
func (c *Console) FileLogf(level Level, format string, args ...any) {
	c.logf(level, false, format, args...)
}

func (c *Console) logf(level Level, term bool, format string, args ...any) {
	if (!term || level < c.opt.Level) && c.opt.LogFile == nil {
		return
	}
	line := fmt.Sprintf("%s %s %d [narwhal]: %s\n", c.opt.Now().UTC().Format("2006-01-02T15:04:05Z"), level, c.pid, fmt.Sprintf(format, args...))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opt.LogFile != nil {
		io.WriteString(c.opt.LogFile, line)
	}
	if term && level >= c.opt.Level && c.opt.Term != nil {
		c.clearLocked()
		io.WriteString(c.opt.Term, line)
	}
}

// Start implements pass.Observer.
func (c *Console) Start(m *bir.Module) {
	c.Logf(Info, "Compiling %d function(s), %d instructions, arch %s", len(m.Funcs), m.NumInsts(), m.Arch)
}

// PassStart implements pass.Observer: "Running <pass>", and the progress
// line's clock starts.
func (c *Console) PassStart(p *pass.Pass, m *bir.Module) {
	c.Logf(Info, "Running %s", p.Name)
	if !c.opt.Progress || c.opt.Term == nil {
		return
	}
	c.mu.Lock()
	c.pass, c.started, c.drawn = p.Name, c.opt.Now(), false
	c.stop = make(chan struct{})
	c.mu.Unlock()
	c.done.Add(1)
	go c.ticker(c.stop)
}

// Log implements pass.Observer: a pass's own lines are debug output.
func (c *Console) Log(p *pass.Pass, line string) {
	c.Logf(Debug, "%s: %s", p.Name, line)
}

// PassEnd implements pass.Observer: "<pass> finished after N seconds" (or
// failed), the pass's counters at debug level, and the progress line is
// erased.
func (c *Console) PassEnd(p *pass.Pass, res *pass.PassResult, m *bir.Module, err error) {
	if c.stop != nil {
		close(c.stop)
		c.done.Wait()
		c.stop = nil
		c.mu.Lock()
		c.clearLocked()
		c.mu.Unlock()
	}
	secs := strconv.FormatFloat((res.Wall + res.VerifyWall).Seconds(), 'f', 3, 64)
	if err != nil {
		// The error itself is the command's own last line.
		c.Logf(Info, "%s failed after %s seconds", p.Name, secs)
		return
	}
	c.Logf(Info, "%s finished after %s seconds (%d -> %d instructions)", p.Name, secs, res.InstsBefore, res.InstsAfter)
	for _, k := range res.Counters {
		c.Logf(Debug, "%s: %s = %d", p.Name, k.Name, k.Value)
	}
}

func (c *Console) ticker(stop chan struct{}) {
	defer c.done.Done()
	t := time.NewTicker(c.opt.Interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			c.draw()
		}
	}
}

// draw rewrites the progress line once the pass has run Threshold.
func (c *Console) draw() {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.opt.Now().Sub(c.started)
	if el < c.opt.Threshold {
		return
	}
	done, total := c.prog.Snapshot()
	line := "\r\x1b[K[narwhal] " + c.pass + ": "
	if total > 0 {
		line += fmt.Sprintf("%s of %s instructions (%d%%), ", count(done), count(total), done*100/total)
	}
	line += strconv.FormatFloat(el.Seconds(), 'f', 1, 64) + " s"
	io.WriteString(c.opt.Term, line)
	c.drawn = true
}

func (c *Console) clearLocked() {
	if c.drawn {
		io.WriteString(c.opt.Term, "\r\x1b[K")
		c.drawn = false
	}
}

// count writes n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// IsTerminal reports whether w is a terminal (a character device), the
// condition for drawing the progress line.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
