//go:build !unix

package shrink_test

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
