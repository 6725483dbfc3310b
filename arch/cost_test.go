package arch

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

// TestCycles_HardwareRows checks each row of hardware.md's cost table.
func TestCycles_HardwareRows(t *testing.T) {
	m, _ := Lookup("trn1")
	tests := []struct {
		row  string
		w    Work
		want int64
	}{
		// matmul: max(min(64, N_stationary), N_moving); x4 for fp32.
		{"matmul bf16 moving-bound", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 512, NStationary: 128}, 512},
		{"matmul bf16 stationary-bound", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 16, NStationary: 128}, 64},
		{"matmul bf16 small stationary", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 16, NStationary: 32}, 32},
		{"matmul fp8", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.Float8E4, N: 100, NStationary: 128}, 100},
		{"matmul tf32 not x4", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.Float32R, N: 100, NStationary: 128}, 100},
		{"matmul fp32 x4", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.Float32, N: 512, NStationary: 128}, 2048},
		// transpose on PE: max(P, min(64, F)).
		{"pe transpose P-bound", Work{Class: ClassPETranspose, Engine: bir.EngPE, P: 128, F: 128}, 128},
		{"pe transpose F-bound", Work{Class: ClassPETranspose, Engine: bir.EngPE, P: 16, F: 128}, 64},
		{"pe transpose small", Work{Class: ClassPETranspose, Engine: bir.EngPE, P: 16, F: 40}, 40},
		// one input on Vector/Scalar: max(MIN_II, N).
		{"activation small", Work{Class: ClassOneInput, Engine: bir.EngAct, N: 10}, 64},
		{"tensor_scalar large", Work{Class: ClassOneInput, Engine: bir.EngDVE, N: 2048}, 2048},
		// tensor_tensor: max(MIN_II, 2N), max(MIN_II, N) fast.
		{"tensor_tensor", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512}, 1024},
		{"tensor_tensor small", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 20}, 64},
		{"tensor_tensor psum input", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512, OneInputInPSUM: true}, 512},
		{"tensor_tensor bf16 fast", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512, FastBF16: true}, 512},
		// tensor_reduce: N (N/2 bf16 add/max).
		{"tensor_reduce", Work{Class: ClassTensorReduce, Engine: bir.EngDVE, N: 512}, 512},
		{"tensor_reduce bf16", Work{Class: ClassTensorReduce, Engine: bir.EngDVE, N: 512, FastBF16: true}, 256},
		{"tensor_reduce bf16 odd", Work{Class: ClassTensorReduce, Engine: bir.EngDVE, N: 7, FastBF16: true}, 4},
		// memset: max(MIN_II, N/2) for a bf16 zero fill, else max(MIN_II, N).
		{"memset", Work{Class: ClassMemset, Engine: bir.EngDVE, N: 1000}, 1000},
		{"memset bf16 zero", Work{Class: ClassMemset, Engine: bir.EngDVE, N: 1000, FastBF16: true}, 500},
		{"memset floor", Work{Class: ClassMemset, Engine: bir.EngDVE, N: 10, FastBF16: true}, 64},
		// iota: 150 + N; any GpSimd: GPSIMD_START + N.
		{"iota", Work{Class: ClassIota, Engine: bir.EngPool, N: 512}, 662},
		{"gpsimd tensor_tensor", Work{Class: ClassTensorTensor, Engine: bir.EngPool, N: 512}, 662},
		{"gpsimd memset", Work{Class: ClassMemset, Engine: bir.EngPool, N: 10}, 160},
		// The rows issue 26 added.
		{"tensor_copy_dynamic: MIN_II_DYNAMIC", Work{Class: ClassDynamicCopy, Engine: bir.EngDVE, N: 128}, 600},
		{"tensor_copy_dynamic large", Work{Class: ClassDynamicCopy, Engine: bir.EngDVE, N: 1000}, 1000},
		{"bn_stats", Work{Class: ClassBNStats, Engine: bir.EngDVE, N: 512}, 512},
		{"bn_stats small", Work{Class: ClassBNStats, Engine: bir.EngDVE, N: 6}, 64},
		{"bn_aggr 13*(N/3)", Work{Class: ClassBNAggr, Engine: bir.EngDVE, N: 48}, 208},
		{"bn_aggr small", Work{Class: ClassBNAggr, Engine: bir.EngDVE, N: 6}, 64},
		{"ActReadAccumulator", Work{Class: ClassReadAccumulator, Engine: bir.EngAct, N: 1}, 64},
		{"tensor_scalar_reduce: + MIN_II", Work{Class: ClassOneInput, Engine: bir.EngDVE, N: 512, Accumulate: true}, 576},
		{"copy_predicated both in SBUF: 2N", Work{Class: ClassCopyPredicated, Engine: bir.EngDVE, N: 512}, 1024},
		{"copy_predicated across memories: N", Work{Class: ClassCopyPredicated, Engine: bir.EngDVE, N: 512, FastBF16: true}, 512},
		{"tensor_tensor_scan", Work{Class: ClassScan, Engine: bir.EngDVE, N: 512}, 1024},
		{"scalar_tensor_tensor", Work{Class: ClassScalarTensorTensor, Engine: bir.EngDVE, N: 512}, 1024},
		{"scalar_tensor_tensor bf16 subtract-multiply", Work{Class: ClassScalarTensorTensor, Engine: bir.EngDVE, N: 512, FastBF16: true}, 512},
		{"reciprocal on Vector (fitted 2N)", Work{Class: ClassReciprocal, Engine: bir.EngDVE, N: 512}, 1024},
		{"reciprocal on Scalar", Work{Class: ClassReciprocal, Engine: bir.EngAct, N: 512}, 512},
		{"stride > 16 bytes: half bandwidth", Work{Class: ClassOneInput, Engine: bir.EngDVE, N: 512, InnerStrideBytes: 20}, 1024},
		{"stride of 16 bytes: no penalty", Work{Class: ClassOneInput, Engine: bir.EngDVE, N: 512, InnerStrideBytes: 16}, 512},
		// The readiness latency is not a row term; clamps.
		{"overheads are a latency", Work{Class: ClassOneInput, Engine: bir.EngAct, N: 10, Overheads: true}, 64},
		{"negative N", Work{Class: ClassTensorReduce, Engine: bir.EngDVE, N: -5}, 0},
		{"dma has no cycles", Work{Class: ClassDMA, Bytes: 1 << 20}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.row, func(t *testing.T) {
			if got := m.Cycles(tc.w); got != tc.want {
				t.Errorf("Cycles = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestEstimate_Clocks(t *testing.T) {
	tests := []struct {
		arch string
		w    Work
		ns   float64
	}{
		{"trn1", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 512, NStationary: 128}, 512 / 2.8},
		{"trn2", Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 512, NStationary: 128}, 512 / 2.4},
		{"trn1", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512}, 1024 / 1.12},
		{"trn2", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512}, 1024 / 0.96},
		{"trn3", Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512}, 1024 / 1.2},
		{"trn1", Work{Class: ClassIota, Engine: bir.EngPool, N: 50}, 200 / 1.4},
		{"trn2", Work{Class: ClassOneInput, Engine: bir.EngAct, N: 1200}, 1200 / 1.2},
	}
	for _, tc := range tests {
		m, _ := Lookup(tc.arch)
		e, err := m.Estimate(tc.w)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.Ns-tc.ns) > 1e-9 || e.Cycles != m.Cycles(tc.w) {
			t.Errorf("%s %s: %+v, want %v ns", tc.arch, tc.w.Class, e, tc.ns)
		}
	}
}

// TestEstimate_DMA: the DMA model (cost.go "The DMA model"): engines by
// partition groups, the efficiency curve, the fixed latencies.
func TestEstimate_DMA(t *testing.T) {
	trn1, _ := Lookup("trn1")
	trn2, _ := Lookup("trn2")
	const e1 = dmaSmallEfficiency
	tests := []struct {
		name        string
		m           *Model
		w           Work
		fixed, xfer float64
		engines     uint64
	}{
		{"empty: the fixed latency only", trn1, Work{Class: ClassDMA}, 600, 0, 0xffff},
		{"128 partitions x 8 KiB: 16 engines, full rate", trn1, Work{Class: ClassDMA, Bytes: 128 * 8192, Partitions: 128, BytesPerPartition: 8192}, 600, 8 * 8192 / 17.0, 0xffff},
		{"[128,512] bf16: 1 KiB rows at the fitted 0.38", trn1, Work{Class: ClassDMA, Bytes: 128 * 1024, Partitions: 128, BytesPerPartition: 1024}, 600, 8 * 1024 / (17 * e1), 0xffff},
		{"256-byte rows: the same rate", trn1, Work{Class: ClassDMA, Bytes: 128 * 256, Partitions: 128, BytesPerPartition: 256}, 600, 8 * 256 / (17 * e1), 0xffff},
		{"2 KiB rows: half way (log) to full", trn2, Work{Class: ClassDMA, Bytes: 128 * 2048, Partitions: 128, BytesPerPartition: 2048}, 600, 8 * 2048 / (23 * (e1 + (1-e1)/2)), 0xffff},
		{"4-byte rows: proportional below 256 B", trn2, Work{Class: ClassDMA, Bytes: 128 * 4, Partitions: 128, BytesPerPartition: 4}, 600, 8 * 4 / (23 * e1 * 4 / 256), 0xffff},
		{"[4,4096] bf16 (perf-anchors row 12): one engine, 32 KiB", trn2, Work{Class: ClassDMA, Bytes: 4 * 8192, Partitions: 4, BytesPerPartition: 8192}, 600, 4 * 8192 / 23.0, 0x1},
		{"partitions 60..67: engines 7 and 8", trn2, Work{Class: ClassDMA, Bytes: 8 * 8192, Partitions: 8, StartPartition: 60, BytesPerPartition: 8192}, 600, 4 * 8192 / 23.0, 0x180},
		{"a short run caps the efficiency", trn1, Work{Class: ClassDMA, Bytes: 128 * 8192, Partitions: 128, BytesPerPartition: 8192, RunBytes: 512}, 600, 8 * 8192 / (17 * e1), 0xffff},
		{"DRAM to DRAM: every engine", trn1, Work{Class: ClassDMA, Bytes: 16 * 17000}, 600, 1000, 0xffff},
		{"hardware DGE on trn2", trn2, Work{Class: ClassDMA, Bytes: 16 * 23000, HWDGE: true}, 600, 1000, 0xffff},
		{"software DGE", trn2, Work{Class: ClassDMA, Bytes: 16 * 23000, SWDGE: true}, 2000, 1000, 0xffff},
	}
	for _, tc := range tests {
		e, err := tc.m.Estimate(tc.w)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.FixedNs-tc.fixed) > 1e-6 || math.Abs(e.XferNs-tc.xfer) > 1e-6 || e.Engines != tc.engines || e.Cycles != 0 || math.Abs(e.Ns-tc.fixed-tc.xfer) > 1e-6 {
			t.Errorf("%s: %+v, want fixed %v ns, transfer %v ns on engines %#x", tc.name, e, tc.fixed, tc.xfer, tc.engines)
		}
		if e.Ps() != e.FixedPs()+e.XferPs() {
			t.Errorf("%s: Ps %d, want FixedPs + XferPs = %d", tc.name, e.Ps(), e.FixedPs()+e.XferPs())
		}
	}
	// The fitted point: the hoisted-load matmul's [128,512] bf16 loads at
	// 16 engines x 17 B/ns x 0.38 = 103.4 GB/s (perf-anchors row 5:
	// 103-105 GB/s).
	if gbs := 16 * 17 * trn1.DMAEfficiency(1024); math.Abs(gbs-103.4) > 0.05 {
		t.Errorf("1 KiB rows at %.2f GB/s, want 103.4", gbs)
	}
}

// TestDMAEfficiency: the curve is continuous and non-decreasing, 1 from
// 4 KiB.
func TestDMAEfficiency(t *testing.T) {
	m, _ := Lookup("trn1")
	prev := 0.0
	for run := int64(1); run <= 16*KiB; run++ {
		e := m.DMAEfficiency(run)
		if e < prev || e > 1 || e-prev > 0.01 {
			t.Fatalf("efficiency(%d) = %v after %v: want a continuous non-decreasing curve in (0, 1]", run, e, prev)
		}
		prev = e
	}
	if m.DMAEfficiency(4*KiB) != 1 || m.DMAEfficiency(0) != 1 {
		t.Error("want full bandwidth from 4 KiB and for an unknown run")
	}
}

// TestEstimate_Latency: the readiness latency is StaticOverhead +
// AccessOverhead on Vector and Scalar, nothing on Tensor and GpSimd.
func TestEstimate_Latency(t *testing.T) {
	m, _ := Lookup("trn1")
	for _, tc := range []struct {
		w  Work
		ns float64
	}{
		{Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512, Overheads: true}, 160 / 1.12},
		{Work{Class: ClassOneInput, Engine: bir.EngAct, N: 1, Overheads: true}, 160 / 1.4},
		{Work{Class: ClassMatmul, Engine: bir.EngPE, N: 512, NStationary: 128}, 0},
		{Work{Class: ClassIota, Engine: bir.EngPool, N: 8}, 0},
	} {
		e, err := m.Estimate(tc.w)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.LatencyNs-tc.ns) > 1e-9 {
			t.Errorf("%s on %s: latency %v ns, want %v", tc.w.Class, tc.w.Engine, e.LatencyNs, tc.ns)
		}
	}
}

// TestCycles_PerfModes: the NC-v3 Vector modes, NC-v4's fp8 and Scalar
// modes; NC-v2 has none.
func TestCycles_PerfModes(t *testing.T) {
	copyBF16 := Work{Class: ClassOneInput, Engine: bir.EngDVE, N: 512, CopyOrScalar: true, Narrow: Narrow16, AllSBUF: true, Contiguous: true}
	strided := copyBF16
	strided.Contiguous = false
	psum := copyBF16
	psum.AllSBUF = false
	fp32 := copyBF16
	fp32.Narrow = NarrowNone
	act := copyBF16
	act.Engine = bir.EngAct
	fp8 := copyBF16
	fp8.Narrow = NarrowFP8
	activation := copyBF16
	activation.CopyOrScalar = false
	tt := Work{Class: ClassTensorTensor, Engine: bir.EngDVE, N: 512, Narrow: Narrow16, AllSBUF: true, Contiguous: true}
	ttPSUM := tt
	ttPSUM.AllSBUF, ttPSUM.OneInputInPSUM = false, true
	tests := []struct {
		name             string
		w                Work
		trn1, trn2, trn3 int64
	}{
		{"tensor_copy bf16 SBUF contiguous: 4x", copyBF16, 512, 128, 128},
		{"tensor_copy bf16 strided: 2x", strided, 512, 256, 256},
		{"tensor_copy bf16 with PSUM: 2x", psum, 512, 256, 256},
		{"tensor_copy fp32: none", fp32, 512, 512, 512},
		{"tensor_copy fp8: NC-v4 only", fp8, 512, 512, 128},
		{"activation: not a mode instruction", activation, 512, 512, 512},
		{"tensor_scalar bf16 on Scalar: 2x on NC-v4", act, 512, 512, 256},
		{"tensor_tensor bf16 SBUF: N", tt, 1024, 512, 512},
		{"tensor_tensor bf16 with PSUM: N (its row)", ttPSUM, 512, 512, 512},
	}
	for _, tc := range tests {
		for k, name := range []string{"trn1", "trn2", "trn3"} {
			m, _ := Lookup(name)
			want := []int64{tc.trn1, tc.trn2, tc.trn3}[k]
			if got := m.Cycles(tc.w); got != want {
				t.Errorf("%s on %s: %d cycles, want %d", tc.name, name, got, want)
			}
		}
	}
}

func TestEstimate_Errors(t *testing.T) {
	inf1, _ := Lookup("inf1")
	if _, err := inf1.Estimate(Work{Class: ClassIota, Engine: bir.EngPool, N: 4}); err == nil || !strings.Contains(err.Error(), "no Pool engine") {
		t.Errorf("inf1 GpSimd: %v", err)
	}
	trn1, _ := Lookup("trn1")
	if _, err := trn1.Estimate(Work{Class: NumClasses}); err == nil {
		t.Error("unknown class accepted")
	}
	trn1.Engines[bir.EngDVE].ClockGHz = 0
	if _, err := trn1.Estimate(Work{Class: ClassMemset, Engine: bir.EngDVE, N: 4}); err == nil || !strings.Contains(err.Error(), "arch.dve-clock-ghz") {
		t.Errorf("unknown clock: %v", err)
	}
}

func TestClassFor(t *testing.T) {
	tests := []struct {
		op   bir.Opcode
		eng  bir.Engine
		want Class
		ok   bool
	}{
		{bir.OpMatmult, bir.EngPE, ClassMatmul, true},
		{bir.OpTranspose, bir.EngPE, ClassPETranspose, true},
		{bir.OpTranspose, bir.EngDVE, ClassOneInput, true},
		{bir.OpActivation, bir.EngAct, ClassOneInput, true},
		{bir.OpTensorCopy, bir.EngDVE, ClassOneInput, true},
		{bir.OpTensorTensor, bir.EngDVE, ClassTensorTensor, true},
		{bir.OpTensorTensor, bir.EngPool, ClassGpSimd, true},
		{bir.OpTensorReduce, bir.EngDVE, ClassTensorReduce, true},
		{bir.OpMemset, bir.EngAct, ClassMemset, true},
		{bir.OpIota, bir.EngPool, ClassIota, true},
		{bir.OpIota, bir.EngUnassigned, ClassIota, true},
		{bir.OpLoad, bir.EngUnassigned, ClassDMA, true},
		{bir.OpDMACopy, bir.EngSP, ClassDMA, true},
		{bir.OpLoop, bir.EngUnassigned, 0, false},
		{bir.OpEventSemaphore, bir.EngAct, 0, false},
	}
	for _, tc := range tests {
		c, ok := ClassFor(tc.op, tc.eng)
		if c != tc.want || ok != tc.ok {
			t.Errorf("ClassFor(%s, %s) = %s, %v; want %s, %v", tc.op, tc.eng, c, ok, tc.want, tc.ok)
		}
	}
	if ClassMatmul.String() != "matmul" || Class(99).String() != "class(99)" {
		t.Error("Class.String")
	}
}

// TestInstructionWork maps built instructions onto the table's rows.
func TestInstructionWork(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 512)
	st := b.SBUF("st", bir.BFloat16, 128, 128)
	mv := b.SBUF("mv", bir.BFloat16, 128, 512)
	ps := b.PSUM("ps", bir.Float32, 128, 512)
	sb := b.SBUF("sb", bir.Float32, 128, 512)
	sb16 := b.SBUF("sb16", bir.Float32, 16, 512)
	hb := b.SBUF("hb", bir.BFloat16, 128, 512)
	mm := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
	tt := b.TensorTensor("tt", bir.EngDVE, "add", sb.All(), ps.All(), sb.All())
	tb := b.TensorTensor("tb", bir.EngDVE, "mult", hb.All(), hb.All(), hb.All())
	tr := b.TensorReduce("tr", bir.EngDVE, "max", "X", sb.Tile(0, 128, 0, 1), hb.All())
	ms := b.Memset("ms", bir.EngDVE, hb.All(), 0)
	gp := b.Memset("gp", bir.EngPool, sb.All(), 1)
	ld := b.Load("ld", sb.All(), x.All())
	l16 := b.Load("l16", sb16.All(), x.Tile(0, 16, 0, 512))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	f := b.F
	tests := []struct {
		name string
		i    bir.InstID
		eng  bir.Engine
		hw   bool
		want Work
	}{
		{"matmul: moving N, stationary free size, no latency", mm, bir.EngPE, false, Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 512, NStationary: 128}},
		{"tensor_tensor with a PSUM input", tt, bir.EngDVE, false, Work{Class: ClassTensorTensor, Engine: bir.EngDVE, Dtype: bir.Float32, N: 512, OneInputInPSUM: true, Contiguous: true, InnerStrideBytes: 4, Overheads: true}},
		{"tensor_tensor all bf16 contiguous mult", tb, bir.EngDVE, false, Work{Class: ClassTensorTensor, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, FastBF16: true, AllSBUF: true, Narrow: Narrow16, Contiguous: true, InnerStrideBytes: 2, Overheads: true}},
		{"tensor_reduce bf16 to fp32: not the fast row", tr, bir.EngDVE, false, Work{Class: ClassTensorReduce, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, AllSBUF: true, Narrow: Narrow16, Contiguous: true, InnerStrideBytes: 2, Overheads: true}},
		{"memset bf16 zero", ms, bir.EngDVE, false, Work{Class: ClassMemset, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, FastBF16: true, AllSBUF: true, Narrow: Narrow16, Contiguous: true, InnerStrideBytes: 2, Overheads: true}},
		{"GpSimd: no latency", gp, bir.EngPool, false, Work{Class: ClassGpSimd, Engine: bir.EngPool, Dtype: bir.Float32, N: 512}},
		{"DMA", ld, bir.EngDMA, true, Work{Class: ClassDMA, Engine: bir.EngDMA, Bytes: 128 * 2048, Partitions: 128, BytesPerPartition: 2048, RunBytes: 2048, HWDGE: true}},
		{"DMA of 16 partitions", l16, bir.EngDMA, false, Work{Class: ClassDMA, Engine: bir.EngDMA, Bytes: 16 * 2048, Partitions: 16, BytesPerPartition: 2048, RunBytes: 2048}},
	}
	for _, tc := range tests {
		w, ok := InstructionWork(f, tc.i, tc.eng, tc.hw)
		if !ok || w != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, w, ok, tc.want)
		}
	}
	if _, ok := InstructionWork(f, mm, bir.EngPE, false); !ok {
		t.Error("matmul not priced")
	}
}

// TestMaxPartitionsPerSDMA: the 32-partition rounding of
// get_max_partitions_per_sdma, and what it does to a DMA's time.
func TestMaxPartitionsPerSDMA(t *testing.T) {
	m, _ := Lookup("trn2")
	for _, tc := range []struct{ p, want int64 }{{0, 0}, {1, 32}, {16, 32}, {32, 32}, {33, 64}, {100, 128}, {128, 128}} {
		if got := m.MaxPartitionsPerSDMA(tc.p); got != tc.want {
			t.Errorf("MaxPartitionsPerSDMA(%d) = %d, want %d", tc.p, got, tc.want)
		}
	}
	// The pricing no longer rounds: 16 partitions x 4 KiB occupy two
	// engines for 8 x 4 KiB each, as 32 partitions occupy four.
	e16, _ := m.Estimate(Work{Class: ClassDMA, Bytes: 16 * 4096, Partitions: 16, BytesPerPartition: 4096})
	e32, _ := m.Estimate(Work{Class: ClassDMA, Bytes: 32 * 4096, Partitions: 32, BytesPerPartition: 4096})
	if e16.XferNs != e32.XferNs || e16.XferNs != 8*4096/23.0 || e16.Engines != 0x3 || e32.Engines != 0xf {
		t.Errorf("16-partition DMA %+v, 32-partition %+v: want both %v ns of transfer, on engines 0x3 and 0xf", e16, e32, 8*4096/23.0)
	}
}

// TestCostModel_SeedSplitDocumented (issue 28 item 4): the file comment
// of cost.go and docs/cost-model.md say how the cost model maps onto seed
// 002's InstructionLatencyModel / KernelLatencyInfo split, naming the
// Estimate fields that carry get_pipeline_ii and get_pipeline_latency,
// and those fields exist.
func TestCostModel_SeedSplitDocumented(t *testing.T) {
	for _, f := range []string{"cost.go", "../docs/cost-model.md"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"InstructionLatencyModel", "KernelLatencyInfo", "get_pipeline_ii", "get_pipeline_latency", "LatencyNs", "`Ns`"} {
			if want == "`Ns`" && f == "cost.go" {
				want = "Ns, the time the"
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("%s does not say %q: the mapping onto the seed's split is missing", f, want)
			}
		}
	}
	e := reflect.TypeOf(Estimate{})
	for _, field := range []string{"Ns", "LatencyNs"} {
		if _, ok := e.FieldByName(field); !ok {
			t.Errorf("Estimate has no field %s, which the mapping names", field)
		}
	}
}
