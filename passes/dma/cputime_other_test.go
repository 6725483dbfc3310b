//go:build !unix

package dma

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
