package pipeline

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/pass"
)

// TestOptionRanges_EveryOption: every option of the pass table has a
// documented range that admits its default, and every range names an
// option of the table.
func TestOptionRanges_EveryOption(t *testing.T) {
	tab := pass.Table{Passes: append([]pass.Pass(nil), Table.Passes...)}
	if err := applyOptionRanges(&tab); err != nil {
		t.Fatal(err)
	}
}

// TestOptionRanges_Refused: values outside the range are refused with
// NW103 before any pass runs; values inside pass the check.
func TestOptionRanges_Refused(t *testing.T) {
	cases := []struct {
		pass, key, value string
		ok               bool
	}{
		{"alloc", "slack", "nan", false},
		{"alloc", "slack", "0.5", true},
		{"alloc", "exact_nodes", "-1", false},
		{"pre_schedule", "target", "NaN", false},
		{"pre_schedule", "target", "0", false},
		{"pre_schedule", "target", "0.0001", true},
		{"time_aware_scheduler", "orders", "", false},
		{"time_aware_scheduler", "orders", "ddg,asap", true},
		{"time_aware_scheduler", "orders", "ddg,ddg", false},
		{"time_aware_scheduler", "reorder-window", "9223372036854775807", false},
		{"time_aware_scheduler", "reorder-window", "3", true},
		{"full_unroll", "unrollLevel", "3", false},
		{"heuristic_unroll", "maxhu", "", true},
		{"alloc", "psum_interleave", "auto", true},
		{"alloc", "psum_interleave", "0", false},
	}
	for _, c := range cases {
		err := Table.CheckOptions(map[string]map[string]string{c.pass: {c.key: c.value}})
		if (err == nil) != c.ok {
			t.Errorf("%s.%s=%q: error %v, want ok=%v", c.pass, c.key, c.value, err, c.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), c.pass+"."+c.key) || !strings.Contains(err.Error(), "want ")) {
			t.Errorf("%s.%s=%q: %v: want the option and its range named", c.pass, c.key, c.value, err)
		}
	}
}
