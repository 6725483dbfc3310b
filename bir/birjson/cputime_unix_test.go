//go:build unix

package birjson

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time, so the benchmarks can
// report CPU cost per instruction alongside wall time (on a shared machine
// wall time includes waiting for a core).
func cpuTime() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
