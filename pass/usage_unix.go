//go:build unix

package pass

import (
	"syscall"
	"time"
)

// ProcessCPU returns the process's user + system CPU time so far.
func ProcessCPU() time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// PeakRSS returns the process's peak resident set size in bytes so far
// (0 where the platform does not report it).
func PeakRSS() int64 {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return MaxrssBytes(r.Maxrss)
}
