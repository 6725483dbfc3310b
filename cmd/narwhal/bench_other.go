//go:build !unix

package main

import (
	"os"
	"runtime"
)

// childPeakRSS returns 0: the platform's peak resident size is not read here.
func childPeakRSS(ps *os.ProcessState) int64 { return 0 }

func numCPU() int { return runtime.NumCPU() }
