package api

import (
	"os"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

func fullyBlockedSrc(t testing.TB) string {
	src, err := os.ReadFile("testdata/fully_blocked_matmul.py")
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func intArg(n int64) tracer.Value { return tracer.MakeInt(n) }

// TestStructure_FullyBlockedMatmul: the fully blocked matmul at the
// tutorial's shape ([4096, 8192] x [8192, 8192] bf16: lhsT [8192, 4096],
// rhs [8192, 8192], blocks of 16 x 2 x 8 tiles) traces with every loop
// kept into fewer than 300 instructions, one accumulation group per output
// tile (a start copy and a stop copy of the matmul in the K-tile loop).
func TestStructure_FullyBlockedMatmul(t *testing.T) {
	m, res := mustTrace(t, fullyBlockedSrc(t), "fully_blocked_matmul", []Binding{
		tensorArg("lhsT", bir.BFloat16, 8192, 4096), tensorArg("rhs", bir.BFloat16, 8192, 8192),
		{Name: "tiles_m", Value: intArg(16)}, {Name: "tiles_n", Value: intArg(2)}, {Name: "tiles_k", Value: intArg(8)},
	}, nil)
	f := kernelFunc(m)
	ops := countOps(f)
	t.Logf("traced: %d instructions %v", res.Instructions, ops)
	if res.Instructions >= 300 {
		t.Errorf("%d instructions traced, want fewer than 300", res.Instructions)
	}
	// bn, block fill, bk, kt (rhs), bm, kt (lhs), j, i, kt (matmul), bm, i, j.
	if ops["Loop"] != 12 {
		t.Errorf("%d loops, want the 12 of the kernel kept", ops["Loop"])
	}
	if ops["Matmult"] != 3 {
		t.Errorf("%d matmul copies, want first, middle and last of the K-tile group", ops["Matmult"])
	}
	if ops["Memset"] != 1 {
		t.Errorf("%d memsets, want only the SBUF partial sums' (the PSUM zero is the start flag)", ops["Memset"])
	}
}

// TestStructure_FullyBlockedMatmulComputes: the same kernel at a small
// shape (2 x 2 x 2 blocks of 1 x 1 x 2 tiles) computes lhsT^T @ rhs
// through the default pipeline.
func TestStructure_FullyBlockedMatmulComputes(t *testing.T) {
	const K, M, N = 512, 256, 1024
	m, _ := mustTrace(t, fullyBlockedSrc(t), "fully_blocked_matmul", []Binding{
		tensorArg("lhsT", bir.Float32, K, M), tensorArg("rhs", bir.Float32, K, N),
		{Name: "tiles_m", Value: intArg(1)}, {Name: "tiles_n", Value: intArg(1)}, {Name: "tiles_k", Value: intArg(2)},
	}, nil)
	in := map[string]*interp.Tensor{
		"lhsT": f32Tensor("lhsT", []int64{K, M}, func(i int64) float32 { return float32(i%5) - 2 }),
		"rhs":  f32Tensor("rhs", []int64{K, N}, func(i int64) float32 { return float32(i%3) - 1 }),
	}
	got := floats(run(t, m, in)["result"])
	closeTo(t, "result", got, refMatmul(floats(in["lhsT"]), floats(in["rhs"]), K, M, N), 0)
	pipelineCheck(t, m, in)
}

// BenchmarkTrace_FullyBlockedMatmul reports the trace time of the fully
// blocked matmul at the tutorial's shape (parse and module top level
// included).
func BenchmarkTrace_FullyBlockedMatmul(b *testing.B) {
	src := fullyBlockedSrc(b)
	args := []Binding{tensorArg("lhsT", bir.BFloat16, 8192, 4096), tensorArg("rhs", bir.BFloat16, 8192, 8192),
		{Name: "tiles_m", Value: intArg(16)}, {Name: "tiles_n", Value: intArg(2)}, {Name: "tiles_k", Value: intArg(8)}}
	var insts int
	for b.Loop() {
		_, res := mustTrace(b, src, "fully_blocked_matmul", args, nil)
		insts = res.Instructions
	}
	b.ReportMetric(float64(insts), "instructions")
}
