package console

import (
	"bytes"
	"errors"
	"flag"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
)

func TestParseLevel(t *testing.T) {
	for in, want := range map[string]Level{"debug": Debug, "INFO": Info, "warn": Warning, "warning": Warning, "error": Error, "critical": Critical, "35": 35} {
		if got, err := ParseLevel(in); err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseLevel("loud"); err == nil {
		t.Error("ParseLevel accepted loud")
	}
}

// syncBuf is a goroutine-safe buffer (the progress line writes from its
// ticker).
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func tinyModule() *bir.Module {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	s := b.SBUF("s", bir.Float32, 128, 64)
	b.Load("ld", s.All(), x.All())
	return m
}

// TestConsole_Levels: "Running <pass>" and "<pass> finished after N
// seconds" at info in neuronx-cc's line format; a pass's own lines at
// debug; the log file gets everything; the terminal only its level.
func TestConsole_Levels(t *testing.T) {
	var term, file bytes.Buffer
	fixed := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	c := New(Options{Level: Info, Term: &term, LogFile: &file, Now: func() time.Time { return fixed }})
	tab := pass.Table{Passes: []pass.Pass{{Name: "p1", Default: true, Run: func(ctx *pass.Context) error {
		ctx.Logf("a detail")
		ctx.Count("things", 3)
		return nil
	}}, {Name: "p2", Default: true, Run: func(ctx *pass.Context) error { return errors.New("p2 broke") }}}}
	_, err := tab.Run(tinyModule(), pass.Config{Observer: c, Progress: c.Progress()})
	if err == nil {
		t.Fatal("p2 did not fail")
	}
	line := regexp.MustCompile(`^2026-03-01T10:00:00Z INFO [0-9]+ \[narwhal\]: Running p1$`)
	first := strings.Split(term.String(), "\n")[1]
	if !line.MatchString(first) {
		t.Errorf("terminal line %q is not in neuronx-cc's form", first)
	}
	for _, want := range []string{"INFO", "Running p1", "p1 finished after 0.", "seconds (1 -> 1 instructions)", "Running p2", "p2 failed after"} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, term.String())
		}
	}
	for _, notWant := range []string{"a detail", "things = 3", "ERROR"} {
		if strings.Contains(term.String(), notWant) {
			t.Errorf("terminal at info shows %q:\n%s", notWant, term.String())
		}
	}
	for _, want := range []string{"DEBUG", "p1: a detail", "p1: things = 3", "Running p2"} {
		if !strings.Contains(file.String(), want) {
			t.Errorf("log file lacks %q:\n%s", want, file.String())
		}
	}
	// At warning (the default) a successful pass prints nothing.
	term.Reset()
	c = New(Options{Term: &term})
	tab.Passes = tab.Passes[:1]
	if _, err := tab.Run(tinyModule(), pass.Config{Observer: c}); err != nil {
		t.Fatal(err)
	}
	if term.Len() != 0 {
		t.Errorf("the default level printed %q", term.String())
	}
}

// TestConsole_Progress: a pass running past the threshold gets one line
// rewritten in place with its reported progress and the elapsed time,
// erased when it ends; a fast pass gets none.
func TestConsole_Progress(t *testing.T) {
	var term syncBuf
	c := New(Options{Term: &term, Progress: true, Threshold: 30 * time.Millisecond, Interval: 10 * time.Millisecond})
	tab := pass.Table{Passes: []pass.Pass{
		{Name: "quick", Default: true, Run: func(ctx *pass.Context) error { return nil }},
		{Name: "slow", Default: true, Run: func(ctx *pass.Context) error {
			for i := int64(1); i <= 10; i++ {
				ctx.Progress(i*1000, 10000)
				time.Sleep(15 * time.Millisecond)
			}
			return nil
		}}}}
	if _, err := tab.Run(tinyModule(), pass.Config{Observer: c, Progress: c.Progress()}); err != nil {
		t.Fatal(err)
	}
	out := term.String()
	if strings.Contains(out, "quick:") {
		t.Errorf("a pass shorter than the threshold got a progress line: %q", out)
	}
	re := regexp.MustCompile(`\r\x1b\[K\[narwhal\] slow: [0-9,]+ of 10,000 instructions \([0-9]+%\), [0-9.]+ s`)
	if !re.MatchString(out) {
		t.Errorf("no progress line for the slow pass: %q", out)
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the progress line is not erased at the end: %q", out)
	}
	// Off: nothing at all.
	var quiet syncBuf
	c = New(Options{Term: &quiet, Progress: false, Threshold: time.Millisecond, Interval: time.Millisecond})
	if _, err := tab.Run(tinyModule(), pass.Config{Observer: c, Progress: c.Progress()}); err != nil {
		t.Fatal(err)
	}
	if quiet.String() != "" {
		t.Errorf("--progress=false printed %q", quiet.String())
	}
}

func TestIsTerminal(t *testing.T) {
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is a terminal")
	}
}

func TestSplitFlags(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  -O1   --target=trn2 ", []string{"-O1", "--target=trn2"}},
		{`--model-type 'a b' "c \"d\"" e\ f`, []string{"--model-type", "a b", `c "d"`, "e f"}},
	} {
		got, err := SplitFlags(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitFlags(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`'open`, `"open`} {
		if _, err := SplitFlags(bad); err == nil {
			t.Errorf("SplitFlags(%q) accepted an unterminated quote", bad)
		}
	}
}

func TestFilterFlags(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.String("target", "", "")
	fs.Bool("report", false, "")
	keep, dropped, err := FilterFlags(fs, []string{"--target", "trn2", "--report", "--model-type", "transformer", "--auto-cast=none",
		"--retry_failed_compilation", "--nope"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--target", "trn2", "--report", "--nope"}; !slices.Equal(keep, want) {
		t.Errorf("kept %q, want %q", keep, want)
	}
	if want := []string{"--model-type transformer", "--auto-cast=none", "--retry_failed_compilation"}; !slices.Equal(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	if _, _, err := FilterFlags(fs, []string{"kernel.json"}); err == nil {
		t.Error("a positional argument in NEURON_CC_FLAGS was accepted")
	}
}
