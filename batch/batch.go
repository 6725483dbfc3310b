// Package batch runs independent jobs on a bounded number of goroutines
// and reports one line per job, in the order the jobs were given, as soon
// as a job and every job before it are done: `narwhal compile a b ...
// --out-dir DIR -j N` compiles modules this way. Each job is a whole
// compile with its own module, so the jobs share nothing but read-only
// tables (the pass table, the kernel library, the machine models).
package batch

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// Job is one unit of work.
type Job struct {
	Name string // how the summary line names it (the input)
	Run  func() (summary string, err error)
}

// Result is a finished job.
type Result struct {
	Name    string
	Summary string
	Err     error
	Elapsed time.Duration
}

// Workers returns n, or one worker per core (GOMAXPROCS) when n <= 0.
func Workers(n int) int {
	if n <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return n
}

// Run runs jobs on Workers(n) goroutines; line(r) is called for each
// result in job order (on the calling goroutine). It returns the results
// in job order.
func Run(jobs []Job, n int, line func(Result)) []Result {
	n = min(Workers(n), max(len(jobs), 1))
	results := make([]Result, len(jobs))
	done := make([]chan struct{}, len(jobs))
	for i := range done {
		done[i] = make(chan struct{})
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				s, err := jobs[i].Run()
				results[i] = Result{Name: jobs[i].Name, Summary: s, Err: err, Elapsed: time.Since(t0)}
				close(done[i])
			}
		}()
	}
	go func() {
		for i := range jobs {
			next <- i
		}
		close(next)
	}()
	for i := range jobs {
		<-done[i]
		if line != nil {
			line(results[i])
		}
	}
	wg.Wait()
	return results
}

// WriteLine is the default summary line: "ok   NAME  SUMMARY  (1.23 s)"
// or "FAIL NAME  ERROR".
func WriteLine(w io.Writer, r Result) {
	if r.Err != nil {
		fmt.Fprintf(w, "FAIL %s  %s\n", r.Name, r.Err)
		return
	}
	fmt.Fprintf(w, "ok   %s  %s  (%.2f s)\n", r.Name, r.Summary, r.Elapsed.Seconds())
}
