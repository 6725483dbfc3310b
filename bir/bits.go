package bir

import "math"

func float64bits(f float64) int64     { return int64(math.Float64bits(f)) }
func float64frombits(b int64) float64 { return math.Float64frombits(uint64(b)) }
