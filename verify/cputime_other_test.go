//go:build !unix

package verify

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
