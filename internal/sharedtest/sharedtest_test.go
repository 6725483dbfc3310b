package sharedtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recordTB is a testing.TB that records Skipf and Fatalf instead of
// stopping the test, to observe the helpers.
type recordTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recordTB) Helper() {}
func (r *recordTB) Skipf(format string, args ...any) {
	r.skipped, r.msg = true, fmt.Sprintf(format, args...)
}
func (r *recordTB) Fatalf(format string, args ...any) {
	r.failed, r.msg = true, fmt.Sprintf(format, args...)
}

// TestKLRNames_RequireEnv: a missing fixture directory skips, unless
// NARWHAL_REQUIRE_FIXTURES=1 makes it a failure naming the variable.
func TestKLRNames_RequireEnv(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-fixtures")
	for _, c := range []struct {
		env          string
		skip, failed bool
	}{{"", true, false}, {"0", true, false}, {"1", false, true}} {
		t.Setenv(RequireEnv, c.env)
		r := &recordTB{TB: t}
		if names := KLRNames(r, missing); len(names) != 0 {
			t.Errorf("%s=%q: names %v from a missing directory", RequireEnv, c.env, names)
		}
		if r.skipped != c.skip || r.failed != c.failed || !strings.Contains(r.msg, missing) {
			t.Errorf("%s=%q: skipped %v failed %v (%q), want skipped %v failed %v naming %s",
				RequireEnv, c.env, r.skipped, r.failed, r.msg, c.skip, c.failed, missing)
		}
		if c.failed && !strings.Contains(r.msg, RequireEnv+"=1") {
			t.Errorf("failure %q does not name %s=1", r.msg, RequireEnv)
		}
	}
}

func TestKLRNames_Sorted(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.klr", "a.klr", "c.json"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := KLRNames(t, dir); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("KLRNames = %v, want [a b]", got)
	}
}
