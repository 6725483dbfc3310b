package main

// The option sweep (issue 27, "Must show"): every machine parameter
// (arch.*) and every pass option at 0, 1, 3, -1, 2^31, 2^63-1 and NaN,
// compiled over three kernels (a hand-tiled kernel with a loop, a macro
// matmul through the tiler and PSUM, a macro softmax through the
// activation and reduction paths). Each compile must end in exit 0, or in
// exit 1 with one stderr line led by its code: never NW900, never a Go
// trace, never more than sweepBound. A value that compiles is a legal
// what-if, and it must compile correctly: the output is run with --check
// (the kernel's Go reference; the output records its arch.* options, so
// the run uses the same machine) and must match.
//
// The default run compiles each (option, value) pair once, the kernel
// chosen in turn (every option and every value covered, each kernel
// meeting a third of them); NARWHAL_SWEEP=full compiles every pair on
// all three kernels (2,247 compiles, 560 of them compiled and checked by
// a run: 84 s on the shared two cores). The cases run in two child processes (this test binary
// in its sweep role, NARWHAL_SWEEP_CHILD=1), each running its share in
// turn through mainExit, under the corpus children's address-space cap:
// a case that brought a child down is reported by name (the child
// announces each case before running it). Path options (alloc.memmap,
// alloc.dump_problem) are left to the hostile corpus: their values are
// file names.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

const (
	sweepChildEnv = "NARWHAL_SWEEP_CHILD"
	// sweepBound is the bound on one compile of the sweep (a
	// hang, not a performance figure).
	sweepBound = 60 * time.Second
)

var sweepKernels = []string{"builtin:tensor_add:rows=256,cols=64", "builtin:macro_matmul", "builtin:macro_softmax"}

var sweepValues = []string{"0", "1", "3", "-1", "2147483648", "9223372036854775807", "NaN"}

// sweepOptions lists every option the sweep sets: arch.NAME and PASS.KEY.
func sweepOptions() []string {
	var out []string
	for _, line := range arch.OptionNames() {
		name, _, _ := strings.Cut(line, ":")
		out = append(out, arch.OptionPrefix+name)
	}
	for _, p := range pipeline.Table.Passes {
		for _, o := range p.Options {
			key := p.Name + "." + o.Name
			if key == "alloc.memmap" || key == "alloc.dump_problem" {
				continue
			}
			out = append(out, key)
		}
	}
	return out
}

// sweepCase is one compile of the sweep; sweepResult its outcome.
type sweepCase struct {
	Args  []string // the compile
	Check []string // the run of its output, when it compiled
}

type sweepResult struct {
	Index       int
	Start       bool // announced before the case runs
	Code        int
	Stderr      string
	Took        time.Duration
	CheckCode   int
	CheckStderr string
}

// sweepChild runs the cases of its standard input (JSON, one a line),
// announcing each before running it and reporting it after.
func sweepChild() int {
	if !raceEnabled {
		lim := syscall.Rlimit{Cur: childASLimit, Max: childASLimit}
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &lim)
	}
	enc := json.NewEncoder(os.Stdout)
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for i := 0; sc.Scan(); i++ {
		var c sweepCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		enc.Encode(sweepResult{Index: i, Start: true})
		var errb bytes.Buffer
		t0 := time.Now()
		code := mainExit(c.Args, io.Discard, &errb)
		r := sweepResult{Index: i, Code: code, Stderr: errb.String(), Took: time.Since(t0)}
		if code == 0 && len(c.Check) > 0 {
			var cerr bytes.Buffer
			r.CheckCode = mainExit(c.Check, io.Discard, &cerr)
			r.CheckStderr = cerr.String()
		}
		enc.Encode(r)
	}
	return 0
}

func TestOptionSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the option sweep compiles hundreds of kernels")
	}
	full := os.Getenv("NARWHAL_SWEEP") == "full"
	const children = 2
	dirs := [children]string{t.TempDir(), t.TempDir()}
	shares := make([][]sweepCase, children)
	n, pair := 0, 0
	for _, opt := range sweepOptions() {
		for _, v := range sweepValues {
			for k, kern := range sweepKernels {
				if !full && k != pair%len(sweepKernels) {
					continue
				}
				w := n % children
				out := dirs[w] + "/case.json"
				shares[w] = append(shares[w], sweepCase{
					Args:  []string{"compile", kern, "--option", opt + "=" + v, "-o", out},
					Check: []string{"run", out, "--check", "--outputs", dirs[w] + "/out"},
				})
				n++
			}
			pair++
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	refused, compiled := 0, 0
	var slowest time.Duration
	for w := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			share := shares[w]
			var in bytes.Buffer
			for _, c := range share {
				line, _ := json.Marshal(c)
				in.Write(append(line, '\n'))
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(share))*sweepBound/4+sweepBound)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), sweepChildEnv+"=1")
			cmd.Stdin = &in
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			runErr := cmd.Run()
			dec := json.NewDecoder(&out)
			running := -1
			done := 0
			for {
				var r sweepResult
				if err := dec.Decode(&r); err != nil {
					break
				}
				if r.Start {
					running = r.Index
					continue
				}
				running = -1
				done++
				c := share[r.Index]
				name := "narwhal " + strings.Join(c.Args, " ")
				mu.Lock()
				slowest = max(slowest, r.Took)
				switch {
				case r.Code == 0:
					compiled++
					if r.CheckCode != 0 {
						t.Errorf("%s compiled, but its output does not run correctly (exit %d): %.400q", name, r.CheckCode, r.CheckStderr)
					}
				case r.Code == 1 && strings.Count(r.Stderr, "\n") == 1 && strings.Contains(r.Stderr, "error[NW") && !strings.Contains(r.Stderr, "NW900"):
					refused++
				default:
					t.Errorf("%s: exit %d, want 0 or 1 with one coded line: %.400q", name, r.Code, r.Stderr)
				}
				if r.Took > sweepBound {
					t.Errorf("%s: took %v, over the sweep's bound of %v", name, r.Took.Round(time.Millisecond), sweepBound)
				}
				mu.Unlock()
			}
			if runErr != nil || done != len(share) {
				what := "after the last case"
				if running >= 0 {
					what = "in narwhal " + strings.Join(share[running].Args, " ")
				}
				t.Errorf("sweep child %d ended %s (%v, %d of %d cases): %.600s", w, what, runErr, done, len(share), errb.String())
			}
		}()
	}
	wg.Wait()
	t.Logf("%d compiles (%d options x %d values, %s): %d compiled and checked by a run, %d refused with a code; slowest %v",
		n, len(sweepOptions()), len(sweepValues), map[bool]string{true: "every kernel", false: "kernels in turn"}[full], compiled, refused, slowest.Round(time.Millisecond))
}
