// Package sharedtest is the tests' access to the shared specification data
// (../shared next to the repository: the KLR fixtures, the MiniMalloc
// benchmarks). That data is external and is not copied into the repository,
// so a test that needs it skips with a message when it is absent; with
// NARWHAL_REQUIRE_FIXTURES=1 (set it where ../shared is known to be checked
// out, so that a moved or renamed directory cannot silently skip every test
// that reads it) the test fails instead.
package sharedtest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// RequireEnv names the environment variable that turns missing shared data
// from a skip into a failure.
const RequireEnv = "NARWHAL_REQUIRE_FIXTURES"

// Missing skips t with the message, or fails it when RequireEnv=1.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf(format+" and %s=1 requires it", append(args, RequireEnv)...)
		return
	}
	t.Skipf(format, args...)
}

// KLRNames returns the names (NAME of NAME.klr) of the KLR files in dir,
// sorted; when there are none it calls Missing and returns nil.
func KLRNames(t testing.TB, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.klr"))
	if err != nil || len(paths) == 0 {
		Missing(t, "KLR fixtures not found in %s (the shared specification checkout is absent)", dir)
		return nil
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".klr"))
	}
	sort.Strings(names)
	return names
}
