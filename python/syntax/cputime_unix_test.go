//go:build unix

// The process's CPU time, for benchmarks that report CPU cost per item:
// on a loaded machine wall time per item (ns/op) includes the time other
// processes ran; CPU time does not (it does include the garbage
// collector's work on other threads, which belongs to the cost).

package syntax

import "syscall"

func processCPUNanos() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
