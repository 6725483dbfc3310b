//go:build !unix

package pass

import "time"

// ProcessCPU returns 0: the platform's CPU time is not read here.
func ProcessCPU() time.Duration { return 0 }

// PeakRSS returns 0: the platform's peak resident size is not read here.
func PeakRSS() int64 { return 0 }
