//go:build !unix

package vnsplit_test

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
