package verify

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// ruleDiags returns the diagnostics of rule in err.
func ruleDiags(t *testing.T, err error, rule string) []Diag {
	t.Helper()
	var out []Diag
	for _, d := range diags(t, err) {
		if d.Rule == rule {
			out = append(out, d)
		}
	}
	return out
}

// TestOverlap_Straight: two SBUF tiles live at once that share bytes are
// reported, naming both; the same tiles one after the other may share.
func TestOverlap_Straight(t *testing.T) {
	tests := []struct {
		name      string
		aAddr     int64
		aBase     int64
		sequenced bool // b's live range starts after a's ends
		want      bool
	}{
		{"same bytes, both live", 0, 0, false, true},
		{"partial overlap, both live", 1024, 0, false, true},
		{"disjoint bytes, both live", 2048, 0, false, false},
		{"same bytes, other quadrants", 0, 64, false, false},
		{"same bytes, one after the other", 0, 0, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := newB("trn2")
			x := b.Input("x", bir.Float32, 64, 512)
			z := b.Output("z", bir.Float32, 64, 512)
			ta := b.SBUF("ta", bir.Float32, 64, 512) // 2048 B
			tb := b.SBUF("tb", bir.Float32, 64, 512)
			alloc(b, ta, tc.aBase, tc.aAddr, 0)
			alloc(b, tb, 0, 0, 0)
			if tc.sequenced {
				b.Load("ld_a", ta.All(), x.All())
				b.Save("st_a", z.All(), ta.All())
				b.Load("ld_b", tb.All(), x.All())
				b.Save("st_b", z.All(), tb.All())
			} else {
				b.Load("ld_a", ta.All(), x.All())
				b.Load("ld_b", tb.All(), x.All())
				b.TensorTensor("add", bir.EngDVE, "add", tb.All(), ta.All(), tb.All())
				b.Save("st", z.All(), tb.All())
			}
			m := must(t, b)
			got := ruleDiags(t, Module(m, Options{Stage: StageAllocated}), "overlap")
			if !tc.want {
				if len(got) != 0 {
					t.Fatalf("unexpected overlap: %v", got[0])
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("%d overlap diagnostics, want 1", len(got))
			}
			msg := got[0].String()
			for _, w := range []string{"ta (SB partitions", "tb (SB partitions", "live ld_a..add", "live ld_b..st"} {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestOverlap_AccumulationGroups: a matmul accumulation group owns its
// whole PSUM bank while open: two groups open at once in one bank are
// rejected even in disjoint bytes; in different banks, or one after the
// other, they are accepted.
func TestOverlap_AccumulationGroups(t *testing.T) {
	tests := []struct {
		name          string
		bankA, addrA  int64
		bankB, addrB  int64
		interleaved   bool
		wantGroupDiag bool
	}{
		{"two open groups in one bank", 0, 0, 0, 512, true, true},
		{"two open groups in two banks", 0, 0, 1, 0, true, false},
		{"groups in one bank one after the other", 0, 0, 0, 512, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, b := newB("trn2")
			w := b.SBUF("w", bir.BFloat16, 128, 128) // 256 B
			mv := b.SBUF("mv", bir.BFloat16, 128, 128)
			o := b.SBUF("o", bir.Float32, 128, 128)
			pa := b.PSUM("pa", bir.Float32, 128, 128) // 512 B
			pb := b.PSUM("pb", bir.Float32, 128, 128)
			alloc(b, w, 0, 0, 0)
			alloc(b, mv, 0, 256, 0)
			alloc(b, o, 0, 512, 0)
			alloc(b, pa, 0, tc.addrA, tc.bankA)
			alloc(b, pb, 0, tc.addrB, tc.bankB)
			b.Memset("fill_w", bir.EngDVE, w.All(), 1)
			b.Memset("fill_mv", bir.EngDVE, mv.All(), 1)
			if tc.interleaved {
				b.Matmult("a_start", pa.All(), w.All(), mv.All(), true, false)
				b.Matmult("b_start", pb.All(), w.All(), mv.All(), true, false)
				b.Matmult("a_stop", pa.All(), w.All(), mv.All(), false, true)
				b.Matmult("b_stop", pb.All(), w.All(), mv.All(), false, true)
				b.TensorTensor("sum", bir.EngDVE, "add", o.All(), pa.All(), o.All())
				b.TensorTensor("sum2", bir.EngDVE, "add", o.All(), pb.All(), o.All())
			} else {
				b.Matmult("a_start", pa.All(), w.All(), mv.All(), true, false)
				b.Matmult("a_stop", pa.All(), w.All(), mv.All(), false, true)
				b.TensorCopy("cp_a", bir.EngDVE, o.All(), pa.All())
				b.Matmult("b_start", pb.All(), w.All(), mv.All(), true, false)
				b.Matmult("b_stop", pb.All(), w.All(), mv.All(), false, true)
				b.TensorTensor("sum", bir.EngDVE, "add", o.All(), pb.All(), o.All())
			}
			m := must(t, b)
			got := ruleDiags(t, Module(m, Options{Stage: StageAllocated}), "overlap")
			if !tc.wantGroupDiag {
				if len(got) != 0 {
					t.Fatalf("unexpected: %v", got[0])
				}
				return
			}
			if len(got) == 0 {
				t.Fatalf("two open accumulation groups in one bank were accepted")
			}
			msg := got[0].String()
			for _, w := range []string{"accumulation group", "pa (PSUM", "pb (PSUM"} {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}

// TestOverlap_Loops: in a loop, a location is local to the loop when its
// first touch in each iteration writes all of it (the stack discipline):
// two locals of sibling loops may share bytes; a location read across the
// loops (written before them) may not share with either.
func TestOverlap_Loops(t *testing.T) {
	for _, shared := range []bool{false, true} {
		_, b := newB("trn2")
		x := b.Input("x", bir.Float32, 512, 512)
		z := b.Output("z", bir.Float32, 512, 512)
		la := b.SBUF("la", bir.Float32, 128, 512)
		lb := b.SBUF("lb", bir.Float32, 128, 512)
		keep := b.SBUF("keep", bir.Float32, 128, 512)
		alloc(b, la, 0, 0, 0)
		alloc(b, lb, 0, 0, 0) // shares with la: both local to their loops
		kaddr := int64(2048)
		if shared {
			kaddr = 0 // shares with the locals while live across both loops
		}
		alloc(b, keep, 0, kaddr, 0)
		tile := func(i affine.Expr) bir.Operand {
			return x.Sym(affine.Const(0), affine.Scale(i, 128*512), [2]int64{512, 128}, [2]int64{1, 512})
		}
		b.Load("ld_keep", keep.All(), x.AP(0, [2]int64{512, 128}, [2]int64{1, 512}))
		b.Loop("i", 0, 4, 1, func(i affine.Expr) {
			b.Load("ld_a", la.All(), tile(i))
			b.TensorTensor("add_a", bir.EngDVE, "add", la.All(), la.All(), keep.All())
			b.Save("st_a", z.Sym(affine.Const(0), affine.Scale(i, 128*512), [2]int64{512, 128}, [2]int64{1, 512}), la.All())
		})
		b.Loop("j", 0, 4, 1, func(j affine.Expr) {
			b.Load("ld_b", lb.All(), tile(j))
			b.TensorTensor("add_b", bir.EngDVE, "add", lb.All(), lb.All(), keep.All())
			b.Save("st_b", z.Sym(affine.Const(0), affine.Scale(j, 128*512), [2]int64{512, 128}, [2]int64{1, 512}), lb.All())
		})
		m := must(t, b)
		got := ruleDiags(t, Module(m, Options{Stage: StageAllocated}), "overlap")
		if shared && len(got) == 0 {
			t.Errorf("keep shares bytes with the loop locals while live: not reported")
		}
		if !shared && len(got) != 0 {
			t.Errorf("two loop locals sharing bytes reported: %v", got[0])
		}
	}
}

// TestOverlap_LoopCarried: a location read before it is written in each
// iteration (an accumulator) is not local to the loop: it may not share
// with a local of the same loop.
func TestOverlap_LoopCarried(t *testing.T) {
	_, b := newB("trn2")
	x := b.Input("x", bir.Float32, 128, 512)
	z := b.Output("z", bir.Float32, 128, 512)
	acc := b.SBUF("acc", bir.Float32, 128, 512)
	tmp := b.SBUF("tmp", bir.Float32, 128, 512)
	alloc(b, acc, 0, 0, 0)
	alloc(b, tmp, 0, 0, 0)
	b.Memset("zero", bir.EngDVE, acc.All(), 0)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		b.TensorTensor("add", bir.EngDVE, "add", acc.All(), acc.All(), acc.All())
		b.Load("ld", tmp.All(), x.All())
		b.TensorTensor("mix", bir.EngDVE, "add", acc.All(), acc.All(), tmp.All())
	})
	b.Save("st", z.All(), acc.All())
	m := must(t, b)
	if got := ruleDiags(t, Module(m, Options{Stage: StageAllocated}), "overlap"); len(got) == 0 {
		t.Fatal("an accumulator sharing bytes with a loop local was accepted")
	}
}

// TestPlacement_AllocatedInput: the placement rules apply to a location
// that arrives allocated, without the allocated stage: a 64-partition
// tile at partition 48 is rejected.
func TestPlacement_AllocatedInput(t *testing.T) {
	_, b := newB("trn2")
	x := b.Input("x", bir.Float32, 64, 512)
	z := b.Output("z", bir.Float32, 64, 512)
	s := b.SBUF("s", bir.Float32, 64, 512)
	alloc(b, s, 48, 0, 0)
	b.Load("ld", s.All(), x.All())
	b.TensorScalar("scale", bir.EngDVE, s.All(), s.All(), "mult", 2, "bypass", 0)
	b.Save("st", z.All(), s.All())
	m := must(t, b)
	got := ruleDiags(t, Module(m, Options{}), "partition-start")
	if len(got) == 0 {
		t.Fatal("a 64-partition tile allocated at partition 48 was accepted at stage none")
	}
	if !strings.Contains(got[0].String(), "48") {
		t.Errorf("diagnostic %q does not name partition 48", got[0])
	}
	alloc(b, s, 64, 0, 0)
	if err := Module(m, Options{}); err != nil {
		t.Fatalf("legal placement rejected: %v", err)
	}
}

// TestOnChip_Rules: an OnChip (placement open) location is accepted by
// the Tensor engine on either side and sized against SBUF, and rejected
// once memory is allocated.
func TestOnChip_Rules(t *testing.T) {
	_, b := newB("trn2")
	w := b.SBUF("w", bir.BFloat16, 128, 128)
	mv := b.SBUF("mv", bir.BFloat16, 128, 512)
	o := b.Tensor("o", bir.MemOnChip, bir.KindInternal, bir.Float32, 128, 512)
	r := b.SBUF("r", bir.Float32, 128, 512)
	b.Memset("fill_w", bir.EngDVE, w.All(), 1)
	b.Memset("fill_mv", bir.EngDVE, mv.All(), 1)
	b.Matmult("mm", o.All(), w.All(), mv.All(), true, true)
	b.TensorCopy("cp", bir.EngDVE, r.All(), o.All())
	m := must(t, b)
	if err := Module(m, Options{Stage: StageSBLegal}); err != nil {
		t.Fatalf("OnChip matmul destination rejected: %v", err)
	}
	got := ruleDiags(t, Module(m, Options{Stage: StageAllocated}), "allocated")
	found := false
	for _, d := range got {
		found = found || strings.Contains(d.Msg, "OnChip")
	}
	if !found {
		t.Fatalf("an OnChip location at the allocated stage was accepted: %v", got)
	}
}
