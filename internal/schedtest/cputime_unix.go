//go:build unix

package schedtest

import (
	"syscall"
	"time"
)

// CPUTime returns the process's user+system CPU time, for benchmarks that
// report CPU per instruction next to wall time (the shared machines they
// run on are often oversubscribed, which inflates wall time, not CPU time).
func CPUTime() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
