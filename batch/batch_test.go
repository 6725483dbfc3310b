package batch

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// TestRun: results come back in job order whatever order the jobs finish
// in, at most n run at once, failures are reported.
func TestRun(t *testing.T) {
	var running, peak atomic.Int32
	jobs := make([]Job, 12)
	for i := range jobs {
		jobs[i] = Job{Name: fmt.Sprint(i), Run: func() (string, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(time.Duration(12-i) * time.Millisecond) // later jobs finish first
			running.Add(-1)
			if i == 5 {
				return "", errors.New("job 5 failed")
			}
			return "done " + fmt.Sprint(i), nil
		}}
	}
	var order []string
	res := Run(jobs, 3, func(r Result) { order = append(order, r.Name) })
	for i, name := range order {
		if name != fmt.Sprint(i) {
			t.Fatalf("lines in order %v, want job order", order)
		}
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want 2..3 with n = 3", p)
	}
	if res[5].Err == nil || res[4].Summary != "done 4" {
		t.Errorf("results wrong: %+v", res[4:6])
	}
	if Workers(0) < 1 || Workers(7) != 7 {
		t.Error("Workers")
	}
}
