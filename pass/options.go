package pass

// Option values checked against a documented range before any pass runs
// (issue 27, item 5): every option of the table declares its Check (the
// pipeline package sets them from one table, pipeline/options.go), and
// Table.Run refuses a value outside it with NW103, naming the option, the
// range and the reason, instead of letting a pass divide by zero,
// allocate 2^63 slots or silently clamp. A pass may still refuse a value
// the range admits when the machine decides (partition_max_elts above
// the model's pmax), with its own coded error.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// OptionCheck validates one option value; Range documents what it
// accepts ("1..1048576", "true or false", "pack or linear-scan") and Why
// the bound, for the error and `narwhal passes`.
type OptionCheck struct {
	Range string
	Why   string
	check func(v string) bool
}

// Accepts reports whether v is in the range.
func (c OptionCheck) Accepts(v string) bool { return c.check != nil && c.check(v) }

// IntRange accepts integers lo..hi (inclusive).
func IntRange(lo, hi int64, why string) OptionCheck {
	return OptionCheck{Range: fmt.Sprintf("an integer %d..%d", lo, hi), Why: why, check: func(v string) bool {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		return err == nil && n >= lo && n <= hi
	}}
}

// FloatRange accepts finite numbers lo..hi (inclusive; NaN and the
// infinities never).
func FloatRange(lo, hi float64, why string) OptionCheck {
	return OptionCheck{Range: fmt.Sprintf("a number %g..%g", lo, hi), Why: why, check: func(v string) bool {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && f >= lo && f <= hi
	}}
}

// Bool accepts what strconv.ParseBool does (true, false, 1, 0, t, f).
func Bool() OptionCheck {
	return OptionCheck{Range: "true or false", check: func(v string) bool {
		_, err := strconv.ParseBool(v)
		return err == nil
	}}
}

// OneOf accepts exactly one of values.
func OneOf(why string, values ...string) OptionCheck {
	return OptionCheck{Range: "one of " + strings.Join(values, ", "), Why: why, check: func(v string) bool { return slices.Contains(values, v) }}
}

// ListOf accepts a non-empty comma-separated list of distinct values.
func ListOf(why string, values ...string) OptionCheck {
	return OptionCheck{Range: "a comma-separated list of " + strings.Join(values, ", "), Why: why, check: func(v string) bool {
		parts := strings.Split(v, ",")
		seen := map[string]bool{}
		for _, p := range parts {
			p = strings.TrimSpace(p)
			if !slices.Contains(values, p) || seen[p] {
				return false
			}
			seen[p] = true
		}
		return len(parts) > 0
	}}
}

// Either accepts what a or b accepts.
func Either(a, b OptionCheck) OptionCheck {
	why := a.Why
	if b.Why != "" && b.Why != why {
		why = strings.TrimSpace(why + "; " + b.Why)
	}
	return OptionCheck{Range: a.Range + ", or " + b.Range, Why: why, check: func(v string) bool { return a.Accepts(v) || b.Accepts(v) }}
}

// Exactly accepts the one value s (Either(Exactly("auto"), IntRange(...))).
func Exactly(s, meaning string) OptionCheck {
	r := strconv.Quote(s)
	if s == "" {
		r = "empty"
	}
	if meaning != "" {
		r += " (" + meaning + ")"
	}
	return OptionCheck{Range: r, check: func(v string) bool { return v == s }}
}

// AnyText accepts any value (a file name, a list of location names).
func AnyText(what string) OptionCheck {
	return OptionCheck{Range: what, check: func(string) bool { return true }}
}

// checkValue is the error for a value outside o's range.
func (o *Option) checkValue(pass, v string) error {
	if o.Check.check == nil || o.Check.Accepts(v) {
		return nil
	}
	why := ""
	if o.Check.Why != "" {
		why = ": " + o.Check.Why
	}
	return fmt.Errorf("--option %s.%s=%s: want %s%s", pass, o.Name, v, o.Check.Range, why)
}
