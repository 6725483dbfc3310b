//go:build !unix

package birjson

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
