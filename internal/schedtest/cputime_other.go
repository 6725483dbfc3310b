//go:build !unix

package schedtest

import "time"

// CPUTime is not available on this system.
func CPUTime() (time.Duration, bool) { return 0, false }
