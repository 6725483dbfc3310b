package pass

import (
	"runtime/metrics"
	"sync"
	"time"
)

// The peak-heap sampler of --stats: a goroutine that reads the Go
// runtime's heap metrics every few milliseconds, so that a phase's Usage
// can report the largest heap seen during it, not only the heap left after
// it. A pass's transient tables (a scheduler's timelines, an analyzer's
// interval maps) live only inside the pass; they decide the process's peak
// memory, and the live heap after the pass never shows them.
//
// Two figures per sample: the live heap as of the last completed garbage
// collection (/gc/heap/live:bytes: what the collector found reachable) and
// the bytes of heap objects in use (/memory/classes/heap/objects:bytes:
// live plus garbage not yet collected, what the process's resident memory
// follows). The sampler runs only when StartPeakSampler was called
// (Config.Stats): nothing is sampled in an ordinary run.

// peakSample is one reading.
type peakSample struct {
	at         time.Time
	live, heap uint64
}

var peaks struct {
	mu      sync.Mutex
	on      bool
	samples []peakSample
}

// PeakSamplePeriod is the sampler's period.
const PeakSamplePeriod = 2 * time.Millisecond

// StartPeakSampler starts the sampler (once per process; later calls do
// nothing). It keeps 24 bytes per sample: 12 KB per second of run.
func StartPeakSampler() {
	peaks.mu.Lock()
	defer peaks.mu.Unlock()
	if peaks.on {
		return
	}
	peaks.on = true
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			r := peakSample{at: time.Now()}
			if s[0].Value.Kind() == metrics.KindUint64 {
				r.live = s[0].Value.Uint64()
			}
			if s[1].Value.Kind() == metrics.KindUint64 {
				r.heap = s[1].Value.Uint64()
			}
			peaks.mu.Lock()
			peaks.samples = append(peaks.samples, r)
			peaks.mu.Unlock()
			time.Sleep(PeakSamplePeriod)
		}
	}()
}

// peakSince returns the largest live heap and heap in use sampled since
// t (0, 0 when the sampler is off).
func peakSince(t time.Time) (live, heap uint64) {
	peaks.mu.Lock()
	defer peaks.mu.Unlock()
	for k := len(peaks.samples) - 1; k >= 0 && !peaks.samples[k].at.Before(t); k-- {
		live = max(live, peaks.samples[k].live)
		heap = max(heap, peaks.samples[k].heap)
	}
	return live, heap
}
