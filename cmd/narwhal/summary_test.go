package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/pass"
)

// TestCompileSummary: the summary's figures are the owning passes'
// counters (a spilled kernel says how much it spilled; the makespan and
// bound are the scheduler's), and a line whose pass did not run is left
// out.
func TestCompileSummary(t *testing.T) {
	cases := []struct {
		args    []string
		want    []string // regular expressions the output must match
		notWant []string
	}{
		{[]string{"compile"}, []string{
			`summary: 23 instructions \(4 in the input\), 21 passes in `,
			`SBUF: placed up to 98304 of 212992 bytes per partition \(max-live 24576, packed peak 24576\); no spills`,
			`time: makespan [0-9.]+ us, lower bound [0-9.]+ us \(gap [0-9.]+%\), program order [0-9.]+ us; [0-9.]+ us with semaphore latency \(waits [0-9]+, carriers [0-9]+\)`,
		}, nil},
		{[]string{"compile", "builtin:residual:rows=256,cols=16384"}, []string{
			`SBUF: placed up to 196608 of 212992 bytes per partition \(max-live 196608, packed peak 196608\); 2 spills \(131072 bytes to HBM, 0 from PSUM\)`,
		}, nil},
		{[]string{"compile", "builtin:attention", "--report"}, []string{
			`(?s)narwhal pass report.*\nsummary: 40 instructions \(15 in the input\)`,
			`PSUM: 8 banks used, up to 14848 of 16384 bytes per partition \(max-live 2564\)`,
		}, nil},
		{[]string{"compile", "--passes", "translate_nki_ast_to_bir,full_unroll"}, []string{
			`summary: 16 instructions \(4 in the input\), 2 passes in `,
		}, []string{"SBUF:", "time:"}},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if code := mainExit(c.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		for _, w := range c.want {
			if !regexp.MustCompile(w).MatchString(out.String()) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, tail(out.String(), 8))
			}
		}
		for _, w := range c.notWant {
			if strings.Contains(out.String(), w) {
				t.Errorf("%v: output has %q though its pass did not run:\n%s", c.args, w, tail(out.String(), 8))
			}
		}
	}
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// TestCompileSummary_FiguresAreTheCounters: the time line repeats the
// scheduler's and alloc_semaphores' counters of the same report.
func TestCompileSummary_FiguresAreTheCounters(t *testing.T) {
	var out, errb bytes.Buffer
	if code := mainExit([]string{"compile", "--report"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	counter := func(section, name string) string {
		i := strings.Index(text, "\n["+section+"]\n")
		if i < 0 {
			t.Fatalf("no [%s] section", section)
		}
		m := regexp.MustCompile(`\n  ` + name + ` = ([0-9]+)\n`).FindStringSubmatch(text[i:])
		if m == nil {
			t.Fatalf("[%s] has no counter %s", section, name)
		}
		var ns int64
		for _, c := range m[1] {
			ns = ns*10 + int64(c-'0')
		}
		return us(ns)
	}
	want := "time: makespan " + counter("time_aware_scheduler", "makespan_ns") +
		", lower bound " + counter("time_aware_scheduler", "lower_bound_ns")
	if !strings.Contains(text, want) {
		t.Errorf("the summary lacks %q:\n%s", want, tail(text, 5))
	}
	if want := "; " + counter("alloc_semaphores", "makespan_sync_ns") + " with semaphore latency"; !strings.Contains(text, want) {
		t.Errorf("the summary lacks %q:\n%s", want, tail(text, 5))
	}
}

// TestCompileSummary_PackedPeakNotComputed: past the compact placement's
// location limit the packed peak is not computed, and the summary says so
// (and how many locations), instead of "packed peak 0" below max-live.
func TestCompileSummary_PackedPeakNotComputed(t *testing.T) {
	rep := &pass.Report{Passes: []pass.PassResult{{Name: "alloc", Counters: []pass.Counter{
		{Name: "sbuf_peak", Value: 180224}, {Name: "sbuf_budget", Value: 180224}, {Name: "sbuf_max_live", Value: 1280},
		{Name: "sbuf_packed_peak_not_computed", Value: 33000},
	}}}}
	got := compileSummary(rep, 99334)
	want := "(max-live 1280, packed peak not computed: 33000 locations, more than the compact placement's 20000)"
	if !strings.Contains(got, want) || strings.Contains(got, "packed peak 0") {
		t.Errorf("summary:\n%s\nwant %q", got, want)
	}
}
