//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuNow returns the process's user+system CPU time (benchmarks report it
// beside wall time: on a shared machine wall time includes waiting).
func cpuNow() (time.Duration, bool) {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0, false
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano()), true
}
