//go:build unix

package footprinttest

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time: the benchmarks
// report it next to wall time because the shared machines they run on are
// often oversubscribed, which inflates wall time but not CPU time.
func cpuTime() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
