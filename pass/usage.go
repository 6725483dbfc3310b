package pass

import (
	"runtime"
	"time"
)

// Usage is what an interval of the process cost: wall time, CPU time (user
// + system of the whole process, so the garbage collector's background
// work is included; 0 where the platform does not report it) and bytes
// allocated on the Go heap. Passes run one at a time, so the process's CPU
// over a pass is the pass's.
type Usage struct {
	Wall  time.Duration
	CPU   time.Duration
	Alloc uint64
	// PeakLive and PeakHeap are the largest live heap (as of a garbage
	// collection) and heap in use (live and not yet collected) seen
	// during the interval; 0 unless StartPeakSampler runs (peak.go).
	PeakLive, PeakHeap uint64
}

// Meter marks the start of an interval (NewMeter) for Usage.
type Meter struct {
	t     time.Time
	cpu   time.Duration
	alloc uint64
}

// NewMeter starts an interval. It costs a clock read, a getrusage call
// and a runtime/metrics read: nothing per instruction.
func NewMeter() Meter {
	return Meter{t: time.Now(), cpu: ProcessCPU(), alloc: heapAllocs()}
}

// Usage returns what the process used since m started.
func (m Meter) Usage() Usage {
	u := Usage{Wall: time.Since(m.t), CPU: ProcessCPU() - m.cpu, Alloc: heapAllocs() - m.alloc}
	u.PeakLive, u.PeakHeap = peakSince(m.t)
	return u
}

// heapAllocs returns the bytes allocated on the Go heap since the start.
// ReadMemStats stops the world for a few microseconds but, unlike
// runtime/metrics' counter, includes what the per-processor caches have
// not yet flushed, so small phases are not reported as allocating nothing.
func heapAllocs() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// LiveHeap collects garbage and returns the bytes of the Go heap still in
// use: what the module and everything else live occupies. It costs a full
// collection, so it is taken only when statistics are asked for
// (Config.Stats), outside the intervals it is reported beside.
func LiveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
