//go:build !unix

package footprinttest

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
