//go:build !unix

package sbsize_test

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
