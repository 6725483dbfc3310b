package footprint

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
)

func TestOpReach_Classes(t *testing.T) {
	for _, c := range []struct {
		op   bir.Opcode
		want Reach
	}{
		{bir.OpLoad, ReachAddressed},
		{bir.OpTensorTensor, ReachAddressed},
		{bir.OpMatmult, ReachAddressed},
		{bir.OpTranspose, ReachAddressed},
		{bir.OpActivation, ReachAddressed},
		{bir.OpIndirectLoad, ReachTensorIndirect},
		{bir.OpIndirectSave, ReachTensorIndirect},
		{bir.OpIndirectSaveAccumulate, ReachTensorIndirect},
		{bir.OpGenericIndirectLoad, ReachIndirect},
		{bir.OpReadVarAddr, ReachIndirect},
		{bir.OpIndirectCopy, ReachIndirect},
		{bir.OpTensorCopyDynamicSrc, ReachIndirect},
		{bir.OpCollectiveCompute, ReachCollective},
		{bir.OpBIRKernel, ReachCall},
		{bir.OpNKIKernel, ReachCall},
		{bir.OpDMADescriptorTranspose, ReachDescriptor},
		{bir.OpShuffle, ReachVerbatim},
		{bir.FirstUnknownOpcode + 3, ReachVerbatim},
		{bir.Opcode(4000), ReachVerbatim}, // a number no opcode has
	} {
		if got := OpReach(c.op); got != c.want {
			t.Errorf("%v: %v, want %v", c.op, got, c.want)
		}
		if got := OpReach(c.op).Followed(); got != (c.want == ReachAddressed) {
			t.Errorf("%v: followed %t", c.op, got)
		}
	}
}

// TestReachOf_DMACopyModes: the mode decides a DMACopy's class, and the
// same rule decides whether the cut may split it.
func TestReachOf_DMACopyModes(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.SBUF("x", bir.BFloat16, 64, 64)
	y := b.SBUF("y", bir.BFloat16, 64, 64)
	ids := map[string]bir.InstID{}
	for _, mode := range []string{"", "Copy", "CCE", "Transpose", "Transpose/None", "Transpose/WXZY", "Replicate", "Dynamic"} {
		i := b.DMACopy("c_"+mode, y.All(), x.All())
		m, op, _ := strings.Cut(mode, "/")
		if m != "" {
			b.F.SetAttr(i, "mode", bir.String(m))
		}
		if op != "" {
			b.F.SetAttr(i, "transpose_op", bir.String(op))
		}
		ids[mode] = i
	}
	tt := b.TensorTensor("tt", bir.EngDVE, "add", y.All(), x.All(), x.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	for mode, i := range ids {
		want, ew := ReachPartialCopy, false
		switch mode {
		case "", "Copy", "CCE":
			want, ew = ReachAddressed, true
		case "Transpose", "Transpose/None": // the 2-D transpose walks its patterns, not in lockstep
			want = ReachAddressed
		}
		if got := ReachOf(b.F, i); got != want {
			t.Errorf("mode %q: %v, want %v", mode, got, want)
		}
		if got := ElementWise(b.F, i); got != ew {
			t.Errorf("mode %q: element-wise %t, want %t", mode, got, ew)
		}
		if why := ReachOf(b.F, i).Why(b.F, i); (why == "") != (want == ReachAddressed) {
			t.Errorf("mode %q: why %q", mode, why)
		}
	}
	if ReachOf(b.F, tt) != ReachAddressed || !ElementWise(b.F, tt) {
		t.Errorf("TensorTensor: %v, element-wise %t", ReachOf(b.F, tt), ElementWise(b.F, tt))
	}
}

func TestIsMx(t *testing.T) {
	for dt := bir.Dtype(0); dt <= bir.MaxDtype; dt++ {
		want := dt == bir.Float8E5M2x4 || dt == bir.Float8E4M3FNx4 || dt == bir.Float4E2M1FNx4
		if IsMx(dt) != want {
			t.Errorf("%v: IsMx %t", dt, IsMx(dt))
		}
	}
}
