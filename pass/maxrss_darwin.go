package pass

// MaxrssBytes converts getrusage's ru_maxrss, in bytes on Darwin.
func MaxrssBytes(v int64) int64 { return v }
