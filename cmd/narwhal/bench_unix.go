//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"

	"github.com/narwhal-compiler/narwhal/pass"
)

// childPeakRSS returns a finished child's peak resident set size in bytes.
func childPeakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return pass.MaxrssBytes(ru.Maxrss)
	}
	return 0
}

func numCPU() int { return runtime.NumCPU() }
