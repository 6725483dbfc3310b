//go:build unix && !darwin

package pass

// MaxrssBytes converts getrusage's ru_maxrss, in kilobytes on Linux and the
// BSDs.
func MaxrssBytes(v int64) int64 { return v * 1024 }
