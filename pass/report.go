package pass

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Write prints the report: one line per pass with its seed order, wall
// time, verifier time and instruction counts, then each pass's counters and
// report blocks (e.g. "SB Legalization Statistic:").
func (r *Report) Write(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "narwhal pass report (arch %s)\n", r.Arch)
	fmt.Fprintf(&sb, "  %-28s %5s %12s %12s %14s\n", "pass", "order", "time", "verify", "instructions")
	for _, p := range r.Passes {
		order := "-"
		if p.Order != 0 {
			order = fmt.Sprint(p.Order)
		}
		if p.Skipped != "" {
			fmt.Fprintf(&sb, "  %-28s %5s %12s %12s   skipped: %s\n", p.Name, order, "-", "-", p.Skipped)
			continue
		}
		v := "-"
		if p.VerifyWall > 0 {
			v = FormatDuration(p.VerifyWall)
		}
		fmt.Fprintf(&sb, "  %-28s %5s %12s %12s %6d -> %d\n", p.Name, order, FormatDuration(p.Wall), v, p.InstsBefore, p.InstsAfter)
	}
	fmt.Fprintf(&sb, "  %-28s %5s %12s %12s %14d\n", "total", "", FormatDuration(r.Total), "", r.Insts)
	for _, p := range r.Passes {
		if len(p.Counters) == 0 && len(p.Blocks) == 0 {
			continue
		}
		fmt.Fprintf(&sb, "\n[%s]\n", p.Name)
		for _, c := range p.Counters {
			fmt.Fprintf(&sb, "  %s = %d\n", c.Name, c.Value)
		}
		// A block's title (the seeds' statistic headings, kept verbatim)
		// carries the pass's name, so that a line such as
		// sb_size_legalization's "Total trip count unrolled: 0" cannot be
		// read as the unroller's (issue 19).
		for _, b := range p.Blocks {
			if b.Title != "" {
				fmt.Fprintf(&sb, "%s: %s\n", p.Name, b.Title)
			}
			text := strings.TrimRight(b.Text, "\n")
			if text != "" {
				fmt.Fprintf(&sb, "%s\n", text)
			}
		}
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// Result returns the result of the named pass, or nil.
func (r *Report) Result(name string) *PassResult {
	for i := range r.Passes {
		if r.Passes[i].Name == name {
			return &r.Passes[i]
		}
	}
	return nil
}

// Counter returns the value of a counter of pass name (0 when absent).
func (p *PassResult) Counter(name string) int64 {
	for _, c := range p.Counters {
		if c.Name == name {
			return c.Value
		}
	}
	return 0
}

// FormatDuration writes d as the report does: ns, us, ms or s with the
// precision that fits.
func FormatDuration(d time.Duration) string {
	switch {
	case d < time.Microsecond:
		return fmt.Sprintf("%d ns", d.Nanoseconds())
	case d < time.Millisecond:
		return fmt.Sprintf("%.1f us", float64(d.Nanoseconds())/1e3)
	case d < time.Second:
		return fmt.Sprintf("%.2f ms", float64(d.Nanoseconds())/1e6)
	}
	return fmt.Sprintf("%.3f s", d.Seconds())
}
