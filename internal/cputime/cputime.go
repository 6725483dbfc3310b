// Package cputime reads the process's CPU time for benchmarks that report
// it beside wall time: the shared machines narwhal is measured on are
// often oversubscribed, which inflates wall time but not CPU time.
package cputime

import "time"

// Now returns the process's user+system CPU time so far, and false where
// the platform does not give it.
func Now() (time.Duration, bool) { return now() }
