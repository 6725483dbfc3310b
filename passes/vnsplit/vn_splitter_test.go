package vnsplit_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/passes/unroll"
	"github.com/narwhal-compiler/narwhal/passes/vnsplit"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Translation validation on every built-in kernel, as built (loops,
// symbolic accesses: mostly rejected) and after full_unroll level 2.
func TestVNSplitterPass_Kernels(t *testing.T) {
	t.Run("as built", func(t *testing.T) {
		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
			passtest.CheckPass(t, m, &vnsplit.VNSplitterPass)
		})
	})
	t.Run("unrolled", func(t *testing.T) {
		passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
			if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: 2}); err != nil {
				t.Fatal(err)
			}
			passtest.CheckPass(t, m, &vnsplit.VNSplitterPass, passtest.StageBefore(verify.StageUnrolled))
		})
	})
}

func trn2(t *testing.T) *arch.Model {
	t.Helper()
	m, err := arch.Lookup("trn2")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// run runs the pass with opt on m and returns the log.
func run(t *testing.T, m *bir.Module, opt vnsplit.Options) (vnsplit.Stats, string) {
	t.Helper()
	var log []string
	opt.Logf = func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }
	st, err := vnsplit.VNSplitter(m, trn2(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	return st, strings.Join(log, "\n")
}

// halves builds a [128, 64] SB tile t written and read in two halves of
// 64 partitions (two groups), and lets extra add instructions.
func halves(t *testing.T, extra func(b *bir.Builder, tt bir.T)) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	tt := b.SBUF("t", bir.Float32, 128, 64)
	b.Load("l0", tt.Tile(0, 64, 0, 64), x.Tile(0, 64, 0, 64))
	b.Load("l1", tt.Tile(64, 64, 0, 64), x.Tile(64, 64, 0, 64))
	b.Save("s0", z.Tile(0, 64, 0, 64), tt.Tile(0, 64, 0, 64))
	b.Save("s1", z.Tile(64, 64, 0, 64), tt.Tile(64, 64, 0, 64))
	if extra != nil {
		extra(b, tt)
	}
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestVNSplitter_Knobs(t *testing.T) {
	def := vnsplit.DefaultOptions()
	m := halves(t, nil)
	st, log := run(t, m, def)
	if st.Split != 1 || st.Pieces != 2 || st.DeadNodes != 1 {
		t.Fatalf("default: %+v\n%s", st, log)
	}
	f := m.Main()
	if _, ok := f.LocByName("t"); ok {
		t.Errorf("the original t survived the split")
	}
	for _, name := range []string{"t_VN_0", "t_VN_1"} {
		l, ok := f.LocByName(name)
		if !ok {
			t.Fatalf("no location %s", name)
		}
		lc := f.Loc(l)
		ts := f.Tensor(lc.Tensor)
		if lc.Partitions != 64 || lc.Bytes != 256 || ts.Name != name+"_set" || ts.Shape[0] != 64 || ts.Shape[1] != 64 {
			t.Errorf("%s: %d x %d bytes, tensor %s %v; want 64 x 256 of tensor %s_set [64 64]", name, lc.Partitions, lc.Bytes, ts.Name, ts.Shape, name)
		}
	}
	for _, c := range []struct {
		name string
		opt  func(o *vnsplit.Options)
		want string
	}{
		{"perSplitLimit", func(o *vnsplit.Options) { o.PerSplitLimit = 1 },
			"Do not split the vn if this would result in any of the splits having to be placed in DRAM (due to perSplitLimit exceeded): 2 pieces, perSplitLimit = 1"},
		{"ratio", func(o *vnsplit.Options) { o.Ratio = 1.5 }, "because elts/partition duplicated (2.00 x) exceeds ratio 1.50"},
		{"vn_limit", func(o *vnsplit.Options) { o.VNLimit = 1 }, "exceed vn limit = 2 v.s. limit=1"},
		{"skip", func(o *vnsplit.Options) { o.Skip = []string{"t"} }, "VNSplitter: Skipping t by user request."},
		{"splitSB", func(o *vnsplit.Options) { o.SplitSB = false }, "Collected all the internal vnodes: 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opt := vnsplit.DefaultOptions()
			c.opt(&opt)
			st, log := run(t, halves(t, nil), opt)
			if st.Split != 0 || !strings.Contains(log, c.want) {
				t.Errorf("split %d, log:\n%s\nwant %q", st.Split, log, c.want)
			}
		})
	}
}

// TestVNSplitter_Rejects covers the reject reasons the golden files do
// not (those need modules the interpreter does not run or a stage).
func TestVNSplitter_Rejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		extra func(b *bir.Builder, tt bir.T)
		want  string
	}{
		{"partial copy", func(b *bir.Builder, tt bir.T) {
			o := b.SBUF("o", bir.Float32, 64, 64)
			b.Inst(bir.OpDMACopy, "rep", bir.EngUnassigned, []bir.Operand{tt.Tile(0, 64, 0, 64)}, []bir.Operand{o.All()}, bir.Attrs("mode", "Replicate"))
		}, "not splitting t due to partial copy (node size = 32768 bytes; instruction rep moves it in mode Replicate, by its byte layout)."},
		{"reinterpret read", func(b *bir.Builder, tt bir.T) {
			o := b.SBUF("o", bir.BFloat16, 64, 128)
			b.TensorCopy("asbf", bir.EngDVE, o.All(), bir.PhysAP(tt.Loc, bir.BFloat16, 0, b.Pat([2]int64{128, 64}, [2]int64{1, 128})))
		}, "not splitting t due to reintepret_cast. (instruction asbf reads it as bfloat16, operand 0)"},
		{"reinterpret write", func(b *bir.Builder, tt bir.T) {
			o := b.SBUF("o", bir.BFloat16, 64, 128)
			b.TensorCopy("frombf", bir.EngDVE, bir.PhysAP(tt.Loc, bir.BFloat16, 0, b.Pat([2]int64{128, 64}, [2]int64{1, 128})), o.All())
		}, "not splitting t due to reintepret_cast. (instruction frombf writes it as bfloat16, operand 1)"},
		{"tensor indirect", func(b *bir.Builder, tt bir.T) {
			// A gather into the first half: ReadVarAddr reads the base
			// addresses of src into ga, IndirectLoad moves the rows idx
			// names.
			src := b.Input("src", bir.Float32, 128, 64)
			ga := b.SBUF("ga", bir.Int64, 64, 1)
			idx := b.SBUF("idx", bir.Int32, 64, 1)
			b.Memset("mi", bir.EngDVE, idx.All(), 0)
			b.Inst(bir.OpReadVarAddr, "addr", bir.EngUnassigned, []bir.Operand{src.All()}, []bir.Operand{ga.All()}, nil)
			b.Inst(bir.OpIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{ga.All(), idx.All()}, []bir.Operand{tt.Tile(0, 64, 0, 64)}, nil)
		}, "not splitting t due to ISA pattern vector assignment needs non-TensorIndirect AP (instruction gather, IndirectLoad: a tensor-indirect DMA, its addresses read from a tensor)"},
		{"collective", func(b *bir.Builder, tt bir.T) {
			b.Inst(bir.OpCollectiveCompute, "cc", bir.EngUnassigned, []bir.Operand{tt.Tile(0, 64, 0, 64)}, nil, nil)
		}, "not splitting t due to CollectiveCompute access or BIRKernel access or indirect access. (instruction cc, CollectiveCompute)"},
		{"allocated", func(b *bir.Builder, tt bir.T) {
			lc := b.F.Loc(tt.Loc)
			lc.Allocated, lc.Addr = true, 1024
		}, "not splitting t due to fixed placement (allocated at partition 0, byte 1024)."},
		{"splitShape mark", func(b *bir.Builder, tt bir.T) {
			b.F.Tensor(tt.ID).SplitShape = []bool{false, true}
		}, "not splitting t due to its splitShape mark [false true] (FullUnroll's cut needs the declared layout; run full_unroll first)."},
		{"symbolic", func(b *bir.Builder, tt bir.T) {
			b.Memset("ms", bir.EngDVE, tt.Sym(affine.Const(0), affine.Const(0), [2]int64{64, 8}, [2]int64{1, 64}), 0)
		}, "not splitting t due to symbolic access (instruction ms reaches tensor t_set through a symbolic_ap; run full_unroll first)."},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := halves(t, c.extra)
			if err := verify.Module(m, verify.Options{}); err != nil {
				t.Fatalf("before: %v", err)
			}
			st, log := run(t, m, vnsplit.DefaultOptions())
			if st.Split != 0 || !strings.Contains(log, c.want) {
				t.Errorf("split %d, log:\n%s\nwant %q", st.Split, log, c.want)
			}
			if err := verify.Module(m, verify.Options{}); err != nil {
				t.Errorf("after: %v", err)
			}
		})
	}
	// Kernel interfaces and block templates.
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	io := b.Tensor("io", bir.MemSB, bir.KindInput, bir.Float32, 128, 4)
	tpl := b.BlockTensor("tpl", bir.MemSB, bir.Float32, 4, 128, 4)
	b.TensorCopy("c", bir.EngDVE, tpl.Tile(0, 64, 0, 4), io.Tile(0, 64, 0, 4))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	_, log := run(t, m, vnsplit.DefaultOptions())
	for _, want := range []string{"not splitting io due to kernel interface (a Input tensor).", "not splitting tpl due to block template (it stands for 4 blocks; run full_unroll first)."} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestVNSplitter_Embedding: indirect DMA keeps its tiles whole.
func TestVNSplitter_Embedding(t *testing.T) {
	k, ok := kernels.Lookup("embedding")
	if !ok {
		t.Fatal("no embedding kernel")
	}
	inst, err := kernels.Instantiate(k.TestSpecs()[0])
	if err != nil {
		t.Fatal(err)
	}
	m := inst.Module
	if _, err := unroll.FullUnroll(m, unroll.FullUnrollOptions{Level: 2}); err != nil {
		t.Fatal(err)
	}
	_, log := run(t, m, vnsplit.DefaultOptions())
	if !strings.Contains(log, "due to CollectiveCompute access or BIRKernel access or indirect access. (instruction gather.0, GenericIndirectLoad)") {
		t.Errorf("log:\n%s", log)
	}
}

// TestVNSplitter_OnFunction: the hook sees every function, main first, in
// the split and then in the fold, and "" after each phase (the pass table
// entry wires it to pass.Context.Function, so that a panic names its
// function); the entry point runs the same without it.
func TestVNSplitter_OnFunction(t *testing.T) {
	twoHalves := func() *bir.Module {
		m := halves(t, nil)
		b := bir.NewBuilder(m, "helper")
		x := b.Input("hx", bir.Float32, 128, 64)
		z := b.Output("hz", bir.Float32, 128, 64)
		tt := b.SBUF("t", bir.Float32, 128, 64)
		b.Load("l0", tt.Tile(0, 64, 0, 64), x.Tile(0, 64, 0, 64))
		b.Save("s0", z.Tile(0, 64, 0, 64), tt.Tile(0, 64, 0, 64))
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, fold := range []bool{true, false} {
		var seen []string
		opt := vnsplit.DefaultOptions()
		opt.FoldIntoPredecessor = fold
		opt.OnFunction = func(n string) { seen = append(seen, n) }
		st, _ := run(t, twoHalves(), opt)
		want := []string{"main", "helper", ""}
		if fold {
			want = append(want, want...)
		}
		if !slices.Equal(seen, want) {
			t.Errorf("foldIntoPredecessor=%t: OnFunction saw %q, want %q", fold, seen, want)
		}
		opt.OnFunction = nil
		if st2, _ := run(t, twoHalves(), opt); st2 != st {
			t.Errorf("foldIntoPredecessor=%t: stats %+v without the hook, %+v with it", fold, st2, st)
		}
	}
}

// TestVNSplitter_IsValidForSBLine: a group that fails isValidForSB is
// logged without a vn-limit count (the count exists only when the pieces
// are made, and the line that checks vn_limit prints the real one).
func TestVNSplitter_IsValidForSBLine(t *testing.T) {
	m := bir.NewModule("trn2")
	b := bir.NewBuilder(m, "main")
	x := b.Input("x", bir.Float32, 128, 64)
	z := b.Output("z", bir.Float32, 128, 64)
	// 256 partitions in two groups; the second group spans 128
	// partitions with stride 1 but starts at 100, so the first is 0..99
	// and the second 100..255: 156 partitions, more than the array.
	tt := b.SBUF("t", bir.Float32, 256, 64)
	b.Load("l0", tt.Tile(0, 100, 0, 64), x.Tile(0, 100, 0, 64))
	b.Load("l1", tt.Tile(100, 128, 0, 64), x.Tile(0, 128, 0, 64))
	b.Load("l2", tt.Tile(228, 28, 0, 64), x.Tile(0, 28, 0, 64))
	b.TensorCopy("c", bir.EngDVE, tt.Tile(200, 56, 0, 64), tt.Tile(100, 56, 0, 64))
	b.Save("s0", z.Tile(0, 100, 0, 64), tt.Tile(0, 100, 0, 64))
	b.Save("s1", z.Tile(0, 128, 0, 64), tt.Tile(100, 128, 0, 64))
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	st, log := run(t, m, vnsplit.DefaultOptions())
	if st.Split != 0 || !strings.Contains(log, "apGroup id 1 : isValidForSB = false\n") || strings.Contains(log, "exceed vn limit") {
		t.Errorf("split %d, log:\n%s", st.Split, log)
	}
}
