package tracer

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narwhal-compiler/narwhal/python/syntax"
)

// kernelLikeProgram returns a Python program of about n lines in the
// shape of a kernel file's Python: helper functions computing tile
// shapes and offsets with loops, arithmetic, lists, dicts, f-strings and
// small classes, called from a top-level "kernel" that loops over tiles.
func kernelLikeProgram(n int) string {
	var b strings.Builder
	b.WriteString("import math\nP = 128\nF = 512\n\n")
	b.WriteString(`class Tile:
    def __init__(self, p, f, name):
        self.p, self.f, self.name = p, f, name
    def numel(self):
        return self.p * self.f
    def __repr__(self):
        return f"Tile({self.p}x{self.f} {self.name})"

`)
	i := 0
	for lines := 12; lines < n-12; lines += 14 {
		fmt.Fprintf(&b, `def helper_%d(m, k, scale=1.0):
    tiles = []
    for t in range(math.ceil(m / P)):
        p = min(P, m - t * P)
        off = t * P * k + %d
        tiles.append(Tile(p, k, f"t{t}_%d"))
    total = sum(x.numel() for x in tiles)
    info = {"n": len(tiles), "total": total, "scale": scale * 2}
    if total > 1 << 20:
        info["big"] = True
    else:
        info["big"] = False
    return info["n"] * (off %% 7) + total // (k or 1)

`, i, i, i)
		i++
	}
	b.WriteString("def kernel():\n    acc = 0\n")
	for j := 0; j < i; j++ {
		fmt.Fprintf(&b, "    acc += helper_%d(%d, %d)\n", j, 300+j, 64+j%5)
	}
	b.WriteString("    return acc\n\nresult = kernel()\n")
	return b.String()
}

func BenchmarkTrace_KernelLike1000Lines(b *testing.B) {
	src := kernelLikeProgram(1000)
	lines := strings.Count(src, "\n")
	f, err := syntax.Parse("bench.py", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	var steps int64
	var elapsed time.Duration
	cpu0 := cpuTime()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		th := NewThread(ThreadOptions{})
		start := time.Now()
		if _, err := ExecFile(th, f, "__main__"); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		steps += th.Steps()
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/float64(lines), "ns/line")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/float64(lines), "cpu-ns/line")
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(steps), "ns/step")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
	b.ReportMetric(float64(lines), "lines")
}

// BenchmarkTrace_Loop is the cost of a tight Python loop (per statement
// executed).
func BenchmarkTrace_Loop(b *testing.B) {
	src := "acc = 0\nfor i in range(100000):\n    acc += i * 3 % 7\n"
	f, err := syntax.Parse("loop.py", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		th := NewThread(ThreadOptions{})
		if _, err := ExecFile(th, f, "__main__"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/iteration")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/100000, "cpu-ns/iteration")
}

// cpuTime is the process's user+system CPU time (the benchmarks report
// it beside wall time: on a shared machine wall time includes waiting).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestKernelLikeProgram_Runs(t *testing.T) {
	src := kernelLikeProgram(1000)
	f, err := syntax.Parse("bench.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	th := NewThread(ThreadOptions{})
	m, err := ExecFile(th, f, "__main__")
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := m.Get("result"); r == nil || r.(Int).Sign() <= 0 {
		t.Errorf("result %v", r)
	}
}

// BenchmarkResolve_1000Lines is the scope analysis alone (part of every
// ExecFile).
func BenchmarkResolve_1000Lines(b *testing.B) {
	src := kernelLikeProgram(1000)
	f, err := syntax.Parse("bench.py", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		if _, err := resolveFile(f); err != nil {
			b.Fatal(err)
		}
	}
}
