package arch

import (
	"math"
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
		// memset: N/2 bf16 zero fill, else N.
		{"memset", Work{Class: ClassMemset, Engine: bir.EngDVE, N: 1000}, 1000},
		{"memset bf16 zero", Work{Class: ClassMemset, Engine: bir.EngDVE, N: 1000, FastBF16: true}, 500},
		// iota: 150 + N; any GpSimd: GPSIMD_START + N.
		{"iota", Work{Class: ClassIota, Engine: bir.EngPool, N: 512}, 662},
		{"gpsimd tensor_tensor", Work{Class: ClassTensorTensor, Engine: bir.EngPool, N: 512}, 662},
		{"gpsimd memset", Work{Class: ClassMemset, Engine: bir.EngPool, N: 10}, 160},
		// overheads and clamps.
		{"overheads", Work{Class: ClassOneInput, Engine: bir.EngAct, N: 10, Overheads: true}, 64 + 100 + 60},
		{"negative N", Work{Class: ClassMemset, Engine: bir.EngDVE, N: -5}, 0},
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

func TestEstimate_DMA(t *testing.T) {
	trn1, _ := Lookup("trn1")
	trn2, _ := Lookup("trn2")
	tests := []struct {
		name string
		m    *Model
		w    Work
		ns   float64
	}{
		{"empty", trn1, Work{Class: ClassDMA}, 2000},
		{"full bandwidth", trn1, Work{Class: ClassDMA, Bytes: 128 * 8192, BytesPerPartition: 8192}, 2000 + 128*8192/17.0},
		{"unknown per-partition size", trn1, Work{Class: ClassDMA, Bytes: 17000}, 3000},
		{"half bandwidth", trn2, Work{Class: ClassDMA, Bytes: 128 * 2048, BytesPerPartition: 2048}, 2000 + 128*2048/(23.0*0.5)},
		{"floor", trn2, Work{Class: ClassDMA, Bytes: 128 * 4, BytesPerPartition: 4}, 2000 + 128*4/(23.0/8)},
		{"hwdge trn2", trn2, Work{Class: ClassDMA, Bytes: 23000, HWDGE: true}, 600 + 1000},
		{"hwdge on trn1 falls back", trn1, Work{Class: ClassDMA, Bytes: 17000, HWDGE: true}, 3000},
	}
	for _, tc := range tests {
		e, err := tc.m.Estimate(tc.w)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(e.Ns-tc.ns) > 1e-6 || e.Cycles != 0 {
			t.Errorf("%s: %+v, want %v ns", tc.name, e, tc.ns)
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
		{"matmul: moving N, stationary free size", mm, bir.EngPE, false, Work{Class: ClassMatmul, Engine: bir.EngPE, Dtype: bir.BFloat16, N: 512, NStationary: 128, Overheads: true}},
		{"tensor_tensor with a PSUM input", tt, bir.EngDVE, false, Work{Class: ClassTensorTensor, Engine: bir.EngDVE, Dtype: bir.Float32, N: 512, OneInputInPSUM: true, Overheads: true}},
		{"tensor_tensor all bf16 contiguous mult", tb, bir.EngDVE, false, Work{Class: ClassTensorTensor, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, FastBF16: true, Overheads: true}},
		{"tensor_reduce bf16 max: N of the input", tr, bir.EngDVE, false, Work{Class: ClassTensorReduce, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, FastBF16: true, Overheads: true}},
		{"memset bf16 zero", ms, bir.EngDVE, false, Work{Class: ClassMemset, Engine: bir.EngDVE, Dtype: bir.BFloat16, N: 512, FastBF16: true, Overheads: true}},
		{"GpSimd: no extra overheads", gp, bir.EngPool, false, Work{Class: ClassGpSimd, Engine: bir.EngPool, Dtype: bir.Float32, N: 512}},
		{"DMA", ld, bir.EngDMA, true, Work{Class: ClassDMA, Engine: bir.EngDMA, Bytes: 128 * 2048, Partitions: 128, BytesPerPartition: 2048, HWDGE: true}},
		{"DMA of 16 partitions", l16, bir.EngDMA, false, Work{Class: ClassDMA, Engine: bir.EngDMA, Bytes: 16 * 2048, Partitions: 16, BytesPerPartition: 2048}},
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
	// 16 partitions x 4 KiB are priced as 32 x 4 KiB.
	e16, _ := m.Estimate(Work{Class: ClassDMA, Bytes: 16 * 4096, Partitions: 16, BytesPerPartition: 4096})
	e32, _ := m.Estimate(Work{Class: ClassDMA, Bytes: 32 * 4096, Partitions: 32, BytesPerPartition: 4096})
	if e16.Ns != e32.Ns || e16.Ns != 2000+32*4096/23.0 {
		t.Errorf("16-partition DMA %v ns, 32-partition %v ns: want both %v", e16.Ns, e32.Ns, 2000+32*4096/23.0)
	}
}
