// Benchmarks of the parser: per 1,000 lines of realistic kernel code (a
// synthetic module of NKI-style kernels, reported as ns/line, B/line and
// allocs/line), and per kernel file of the repository's NKI suite
// (kernels/nki/**.py, ns/kernel and ns/line). The cpu-ns metrics count
// the process's CPU time instead of the wall time, which on a shared
// machine includes other processes' turns.

package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernelTemplate is one NKI-style kernel of the shapes kernels have:
// imports aside, a decorated function with defaults, nested affine loops,
// index grids, masks, slicing, arithmetic, f-string asserts and helper
// calls.
const kernelTemplate = `

@nki.jit
def kernel_%[1]d(a_tensor, b_tensor, scale=1.0, *, tile_size=128):
    """Kernel %[1]d: c = (a + b) * scale over row tiles, with a masked tail."""
    rows, cols = a_tensor.shape
    assert a_tensor.shape == b_tensor.shape, f"shapes differ: {a_tensor.shape} vs {b_tensor.shape}"
    c_tensor = nl.ndarray((rows, cols), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    ix = nl.arange(tile_size)[:, None]
    iy = nl.arange(cols)[None, :]
    n_tiles = (rows + tile_size - 1) // tile_size
    for i in nl.affine_range(n_tiles):
        mask = i * tile_size + ix < rows
        a_tile = nl.load(a_tensor[i * tile_size + ix, iy], mask=mask)
        b_tile = nl.load(b_tensor[i * tile_size + ix, iy], mask=mask)
        acc = nl.zeros((tile_size, cols), dtype=nl.float32, buffer=nl.psum)
        for k in nl.sequential_range(4):
            acc += nisa.nc_matmul(a_tile[:, k * 32:(k + 1) * 32], b_tile[k * 32:(k + 1) * 32, :])
        c_tile = nl.multiply(nl.add(a_tile, b_tile), scale) if scale != 1.0 else a_tile + b_tile
        nl.store(c_tensor[i * tile_size + ix, iy], value=c_tile, mask=mask)
    return c_tensor
`

// syntheticKernels returns a module of kernels of about n lines.
func syntheticKernels(n int) ([]byte, int) {
	var b strings.Builder
	b.WriteString("import numpy as np\nimport neuronxcc.nki as nki\nimport neuronxcc.nki.language as nl\nimport neuronxcc.nki.isa as nisa\n")
	for i := 0; strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, kernelTemplate, i)
	}
	s := b.String()
	return []byte(s), strings.Count(s, "\n")
}

func BenchmarkParse_1000Lines(b *testing.B) {
	src, lines := syntheticKernels(1000)
	if _, err := Parse("kernels.py", src); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var ms0, ms1 runtimeMem
	ms0.read()
	cpu0 := processCPUNanos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse("kernels.py", src); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu1 := processCPUNanos()
	ms1.read()
	perLine := float64(b.N) * float64(lines)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/perLine, "ns/line")
	b.ReportMetric(float64(cpu1-cpu0)/perLine, "cpu-ns/line")
	b.ReportMetric(float64(ms1.bytes-ms0.bytes)/perLine, "B/line")
	b.ReportMetric(float64(ms1.allocs-ms0.allocs)/perLine, "allocs/line")
}

func BenchmarkParse_RepoKernels(b *testing.B) {
	root := moduleRoot(b)
	var files [][]byte
	lines := 0
	filepath.WalkDir(filepath.Join(root, "kernels", "nki"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".py") {
			src, err := os.ReadFile(path)
			if err == nil {
				if _, perr := Parse(path, src); perr == nil {
					files = append(files, src)
					lines += strings.Count(string(src), "\n")
				}
			}
		}
		return nil
	})
	if len(files) == 0 {
		b.Skip("no kernel files under kernels/nki")
	}
	b.ReportAllocs()
	cpu0 := processCPUNanos()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, src := range files {
			if _, err := Parse("k.py", src); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	cpu := float64(processCPUNanos() - cpu0)
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/float64(b.N*len(files)), "ns/kernel")
	b.ReportMetric(cpu/float64(b.N*len(files)), "cpu-ns/kernel")
	b.ReportMetric(ns/float64(b.N*lines), "ns/line")
	b.ReportMetric(cpu/float64(b.N*lines), "cpu-ns/line")
	b.ReportMetric(float64(len(files)), "kernels")
}
