package dma

import (
	"os"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// gather describes a test gather: P rows of table t [V, D] picked by the
// int32 input idx [P, 1], the row read with the free pairs free into g
// [P, G] written with the on-chip pattern dst (nil: all of g), saved to z.
type gather struct {
	P, V, D, G int64
	dt         bir.Dtype
	free       [][2]int64
	dst        [][2]int64
	attrs      []any
}

func (g gather) module(t testing.TB) *bir.Module {
	t.Helper()
	if g.G == 0 {
		g.G = g.D
	}
	if g.free == nil {
		g.free = [][2]int64{{1, g.D}}
	}
	m, b := newB(t)
	tab := b.Input("t", g.dt, g.V, g.D)
	ix := b.Input("idx", bir.Int32, g.P, 1)
	z := b.Output("z", g.dt, g.P, g.G)
	it := b.SBUF("it", bir.Int32, g.P, 1)
	gt := b.SBUF("g", g.dt, g.P, g.G)
	b.Load("ld_idx", it.All(), ix.All())
	b.Memset("fill", bir.EngDVE, gt.All(), -1)
	data := tab.AP(0, append([][2]int64{{0, g.P}}, g.free...)...)
	dst := gt.All()
	if g.dst != nil {
		dst = gt.AP(0, g.dst...)
	}
	b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{data, it.All()}, []bir.Operand{dst},
		bir.Attrs(append([]any{"indirect_dims", bir.Ints(0)}, g.attrs...)...))
	b.Save("st", z.All(), gt.All())
	done(t, b)
	return m
}

// indices returns the input idx [P, 1] with idx[p] = (7p + 3) mod V, with
// bad (if >= 0) at row 1.
func indices(P, V, bad int64) map[string]*interp.Tensor {
	return map[string]*interp.Tensor{"idx": tensorOf("idx", bir.Int32, []int64{P, 1}, func(k int64) float64 {
		if k == 1 && bad >= 0 {
			return float64(bad)
		}
		return float64((7*k + 3) % V)
	})}
}

func runIndirect(m *bir.Module) error {
	_, err := LowerGenericIndirect(m, Options{})
	return err
}

func checkIndirect(t *testing.T, m *bir.Module, P, V int64, opts ...passtest.Option) {
	t.Helper()
	opts = append([]passtest.Option{passtest.Inputs(indices(P, V, -1)), passtest.Stage(verify.StageIndirectLowered)}, opts...)
	passtest.Check(t, m, runIndirect, opts...)
	if n := opCount(m, bir.OpGenericIndirectLoad) + opCount(m, bir.OpGenericIndirectSave); n != 0 {
		t.Fatalf("%d generic indirect instructions remain", n)
	}
}

func TestLowerGenericIndirect_Gather(t *testing.T) {
	for _, dt := range []bir.Dtype{bir.Float32, bir.BFloat16, bir.Int8, bir.Int64} {
		t.Run(dt.String(), func(t *testing.T) {
			m := gather{P: 16, V: 11, D: 6, dt: dt}.module(t)
			checkIndirect(t, m, 16, 11)
			want := "ld_idx fill gather_ReadVarAddr gather_TSPAddGenericAddr gather_TSPAddAddr gather_MemsetTileOffset gather_TSPAddOffset gather_IndirectLoad st"
			if got := strings.Join(names(m), " "); got != want {
				t.Fatalf("instructions\n %s\nwant\n %s", got, want)
			}
			f := m.Main()
			i := inst(t, m, "gather_IndirectLoad")
			if f.Inst(i).Op != bir.OpIndirectLoad || f.Attrs(i).Int("entry_step_elements", 0) != 1 {
				t.Fatalf("gather_IndirectLoad is %s %v", f.OpName(i), f.Attrs(i))
			}
			for _, n := range []string{"gather_DstTensor", "gather_ScratchSpaceTensor", "gather_OffsetTensor"} {
				if _, ok := f.LocByName(n); !ok {
					t.Fatalf("no location %s", n)
				}
			}
		})
	}
}

// A row that is not contiguous in DRAM is moved in runs: every other pair
// of columns of a 32-wide table (runs of 2), into a strided destination.
func TestLowerGenericIndirect_Runs(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    gather
		runs int
	}{
		{"pairs of columns", gather{P: 8, V: 5, D: 32, G: 8, free: [][2]int64{{8, 4}, {1, 2}}}, 4},
		{"strided destination", gather{P: 8, V: 5, D: 32, G: 16, free: [][2]int64{{8, 4}, {1, 2}}, dst: [][2]int64{{16, 8}, {2, 8}}}, 4},
		{"single elements", gather{P: 4, V: 3, D: 10, G: 5, free: [][2]int64{{2, 5}}}, 5},
		{"reversed row", gather{P: 4, V: 3, D: 10, G: 4, free: [][2]int64{{-1, 4}}}, 4},
		{"contiguous 2-D row", gather{P: 4, V: 3, D: 12, G: 12, free: [][2]int64{{4, 3}, {1, 4}}}, 1},
		{"destination cut inside a pair", gather{P: 4, V: 3, D: 18, G: 12, free: [][2]int64{{6, 3}, {1, 4}}, dst: [][2]int64{{12, 4}, {6, 2}, {1, 6}}}, 6},
		{"destination forces single elements", gather{P: 4, V: 3, D: 12, G: 6, free: [][2]int64{{4, 3}, {1, 2}}, dst: [][2]int64{{6, 4}, {3, 2}, {1, 3}}}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g
			g.dt = bir.Float32
			if tc.name == "reversed row" {
				// Start at the end of row 0 so the reversed walk stays inside.
				m := g.module(t)
				f := m.Main()
				i := inst(t, m, "gather")
				o := f.Ins(i)[0]
				o.Offset = 9
				f.SetOperand(i, 0, o)
				checkIndirect(t, m, g.P, g.V-1)
				if n := opCount(m, bir.OpIndirectLoad); n != tc.runs {
					t.Fatalf("%d IndirectLoads, want %d", n, tc.runs)
				}
				return
			}
			m := g.module(t)
			checkIndirect(t, m, g.P, g.V)
			if n := opCount(m, bir.OpIndirectLoad); n != tc.runs {
				t.Fatalf("%d IndirectLoads, want %d:\n%s", n, tc.runs, bir.Format(m))
			}
		})
	}
}

// scatter stores the rows of src [P, D] into the output o [V, D]
// (zero-filled first) at the rows idx: GenericIndirectSave in the seed's
// layout (ins [data, index], outs [src]) or the dataflow one.
func scatterModule(t testing.TB, P, V, D int64, dataflow bool, attrs ...any) *bir.Module {
	t.Helper()
	m, b := newB(t)
	src := b.Input("src", bir.Float32, P, D)
	ix := b.Input("idx", bir.Int32, P, 1)
	o := b.Output("o", bir.Float32, V, D)
	zs := b.SBUF("zs", bir.Float32, V, D)
	s := b.SBUF("s", bir.Float32, P, D)
	it := b.SBUF("it", bir.Int32, P, 1)
	b.Memset("zero", bir.EngDVE, zs.All(), 0)
	b.Save("init", o.All(), zs.All())
	b.Load("ls", s.All(), src.All())
	b.Load("li", it.All(), ix.All())
	data := o.AP(0, [2]int64{D, P}, [2]int64{1, D})
	ins, outs := []bir.Operand{data, it.All()}, []bir.Operand{s.All()}
	if dataflow {
		ins, outs = []bir.Operand{s.All(), it.All()}, []bir.Operand{data}
	}
	b.Inst(bir.OpGenericIndirectSave, "scatter", bir.EngUnassigned, ins, outs, bir.Attrs(append([]any{"indirect_dims", bir.Ints(0)}, attrs...)...))
	done(t, b)
	return m
}

func TestLowerGenericIndirect_Scatter(t *testing.T) {
	for _, dataflow := range []bool{false, true} {
		name := "seed layout"
		if dataflow {
			name = "dataflow layout"
		}
		t.Run(name, func(t *testing.T) {
			m := scatterModule(t, 6, 9, 4, dataflow)
			checkIndirect(t, m, 6, 9)
			f := m.Main()
			i := inst(t, m, "scatter_IndirectSave")
			ins := f.Ins(i)
			if f.Inst(i).Op != bir.OpIndirectSave || len(ins) != 3 || f.Loc(ins[0].Loc()).Name != "s" || f.Loc(f.Outs(i)[0].Loc()).Name != "o" {
				t.Fatalf("scatter_IndirectSave: %s ins %d, want IndirectSave [s, addr, offset] -> o", f.OpName(i), len(ins))
			}
		})
	}
	t.Run("add", func(t *testing.T) {
		_, err := LowerGenericIndirect(scatterModule(t, 6, 9, 4, false, "op", "add"), Options{Arch: trn2(t)})
		wantError(t, err, "GenericIndirectSave op \"add\"")
	})
}

// Out-of-bounds rows: with oob_is_err=false both forms skip the row.
func TestLowerGenericIndirect_OutOfBounds(t *testing.T) {
	m := gather{P: 8, V: 5, D: 4, dt: bir.Float32, attrs: []any{"oob_is_err", false}}.module(t)
	passtest.Check(t, m, runIndirect, passtest.Inputs(indices(8, 5, 9)), passtest.Stage(verify.StageIndirectLowered))
	if v := m.Main().Attrs(inst(t, m, "gather_IndirectLoad")).Bool("oob_is_err", true); v {
		t.Fatalf("oob_is_err=false was not carried over")
	}
	// A row in runs cannot be skipped whole by per-run checks.
	m = gather{P: 8, V: 5, D: 32, G: 8, dt: bir.Float32, free: [][2]int64{{8, 4}, {1, 2}}, attrs: []any{"oob_is_err", false}}.module(t)
	_, err := LowerGenericIndirect(m, Options{Arch: trn2(t)})
	wantError(t, err, "oob_is_err=false with a row in 4 runs")
}

// The indexed operand's offset is a loop expression: TSPAddAddr adds it as
// a symbolic immediate.
func TestLowerGenericIndirect_SymbolicOffset(t *testing.T) {
	const P, V, D = 8, 5, 4
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, 2*V, D)
	ix := b.Input("idx", bir.Int32, P, 1)
	z := b.Output("z", bir.Float32, P, 2*D)
	it := b.SBUF("it", bir.Int32, P, 1)
	g := b.SBUF("g", bir.Float32, P, 2*D)
	b.Load("ld_idx", it.All(), ix.All())
	b.Loop("h", 0, 2, 1, func(h affine.Expr) {
		b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned,
			[]bir.Operand{tab.Sym(affine.Const(0), affine.Scale(h, V*D), [2]int64{0, P}, [2]int64{1, D}), it.All()},
			[]bir.Operand{g.Sym(affine.Const(0), affine.Scale(h, D), [2]int64{2 * D, P}, [2]int64{1, D})},
			bir.Attrs("indirect_dims", bir.Ints(0)))
	})
	b.Save("st", z.All(), g.All())
	done(t, b)
	checkIndirect(t, m, P, V)
	f := m.Main()
	if o := f.Ins(inst(t, m, "gather_TSPAddAddr"))[1]; o.Kind != bir.OpdSymImm {
		t.Fatalf("TSPAddAddr's offset is a %s, want a symbolic immediate", o.Kind)
	}
}

// An inner indirect dimension: rows table[2, idx[p], :] of a [3, 5, 4]
// table (R = 4).
func TestLowerGenericIndirect_InnerDim(t *testing.T) {
	const P = 6
	m, b := newB(t)
	tab := b.Input("t", bir.Float32, 3, 5, 4)
	ix := b.Input("idx", bir.Int32, P, 1)
	z := b.Output("z", bir.Float32, P, 4)
	it := b.SBUF("it", bir.Int32, P, 1)
	g := b.SBUF("g", bir.Float32, P, 4)
	b.Load("ld_idx", it.All(), ix.All())
	b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned,
		[]bir.Operand{tab.AP(2*5*4, [2]int64{0, P}, [2]int64{1, 4}), it.All()}, []bir.Operand{g.All()},
		bir.Attrs("indirect_dims", bir.Ints(1)))
	b.Save("st", z.All(), g.All())
	done(t, b)
	checkIndirect(t, m, P, 5)
	f := m.Main()
	if r := f.Ins(inst(t, m, "gather_TSPAddGenericAddr"))[1].ImmInt(); r != 4 {
		t.Fatalf("row multiplier %d, want 4", r)
	}
}

// The seed's input invariants, as errors with its strings.
func TestLowerGenericIndirect_Invariants(t *testing.T) {
	base := func(t *testing.T) (*bir.Module, *bir.Function, bir.InstID) {
		m := gather{P: 8, V: 5, D: 4, dt: bir.Float32}.module(t)
		return m, m.Main(), inst(t, m, "gather")
	}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID)
		want   string
	}{
		{"IndexAP not flattened (two index APs)", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			ins := append([]bir.Operand(nil), f.Ins(i)...)
			f.SetArgs(i, append(ins, ins[1]), f.Outs(i))
			f.SetAttr(i, "indirect_dims", bir.Ints(0, 1))
		}, MsgIndexFlattened + ": want 1 IndexAP, have 2"},
		{"dims vs arguments", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			f.SetAttr(i, "indirect_dims", bir.Ints(0, 1))
		}, MsgIndirectDims},
		{"no indirect_dims", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			f.SetAttrs(i, nil)
		}, MsgIndirectDims},
		{"two indices per partition", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			o := f.Ins(i)[1]
			o.Pattern = m.InternPattern(bir.Pattern{{Step: 1, Num: 4}, {Step: 1, Num: 2}})
			f.SetOperand(i, 1, o)
		}, MsgIndexPerPartition + ": want 1, have 2"},
		{"IndexAP of three pairs", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			o := f.Ins(i)[1]
			o.Pattern = m.InternPattern(bir.Pattern{{Step: 1, Num: 8}, {Step: 1, Num: 1}, {Step: 1, Num: 1}})
			f.SetOperand(i, 1, o)
		}, MsgAddrAP2D},
		{"index tensor shape", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			tid, _ := f.TensorByName("it_set")
			f.Tensor(tid).Shape = []int64{4, 2}
		}, MsgAddrPartitionDim + ": the IndexAP's tensor it_set has shape [4 2] with partition dim 0, its location it has 8 partitions"},
		{"flattened target", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			f.SetAttr(i, "indirect_dims", bir.Ints(2))
		}, MsgTargetFlattened + ": indirect dim 2 is not a dimension of tensor t_set of shape [5 4]"},
		{"dtype mismatch", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			o := f.Outs(i)[0]
			o.Dtype = bir.Int32
			f.SetOperand(i, 2, o)
		}, "the indexed tensor is float32, the on-chip operand int32"},
		{"float index", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			o := f.Ins(i)[1]
			o.Dtype = bir.Float32
			f.SetOperand(i, 1, o)
		}, "the IndexAP (source 1) is float32: want an integer dtype"},
		{"unknown dtype", func(t *testing.T, m *bir.Module, f *bir.Function, i bir.InstID) {
			o := f.Ins(i)[0]
			o.Dtype = bir.Dtype(40)
			f.SetOperand(i, 0, o)
		}, "Unknown dtype"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, f, i := base(t)
			tc.change(t, m, f, i)
			before := bir.Format(m)
			_, err := LowerGenericIndirect(m, Options{Arch: trn2(t)})
			wantError(t, err, "function main, instruction gather (GenericIndirectLoad): "+tc.want)
			if bir.Format(m) != before {
				t.Fatalf("the module changed although the pass failed")
			}
		})
	}
}

// Generated names that an instruction already holds get a suffix; the
// result verifies (unique names).
func TestLowerGenericIndirect_NameCollision(t *testing.T) {
	m := gather{P: 8, V: 5, D: 4, dt: bir.Float32}.module(t)
	f := m.Main()
	f.Rename(inst(t, m, "fill"), "gather_ReadVarAddr")
	checkIndirect(t, m, 8, 5)
	inst(t, m, "gather_ReadVarAddr_1")
}

// Dependencies: the chain inherits the generic instruction's and is
// linked step by step; the final IndirectLoad is the original instruction.
func TestLowerGenericIndirect_Deps(t *testing.T) {
	m := gather{P: 8, V: 5, D: 4, dt: bir.Float32}.module(t)
	f := m.Main()
	g, ld := inst(t, m, "gather"), inst(t, m, "ld_idx")
	st := inst(t, m, "st")
	f.AddDep(g, bir.Dep{On: ld, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	f.AddDep(st, bir.Dep{On: g, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
	checkIndirect(t, m, 8, 5)
	if f.InstName(g) != "gather_IndirectLoad" {
		t.Fatalf("the original instruction is %s, want gather_IndirectLoad", f.InstName(g))
	}
	rva := inst(t, m, "gather_ReadVarAddr")
	if d := f.Deps(rva); len(d) != 1 || d[0].On != ld {
		t.Fatalf("ReadVarAddr deps %v: want the original's", d)
	}
	off := inst(t, m, "gather_TSPAddOffset")
	found := false
	for _, d := range f.Deps(g) {
		found = found || d.On == off
	}
	if !found {
		t.Fatalf("the IndirectLoad does not depend on gather_TSPAddOffset: %v", f.Deps(g))
	}
}

// The assertion strings are the seed's, verbatim: pinned here as literals
// (a typo in a constant fails), and checked against the seed text itself
// when ../shared is present.
func TestLowerGenericIndirect_SeedMessages(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{MsgIndirectDims, "Indirect dimensions must be one less than instruction argument number"},
		{MsgIndexFlattened, "Compiler middle end must have already flattened IndexAP to be only one AP"},
		{MsgIndexPerPartition, "GenericIndirectLoad/Save must have 1 element per partition for IndexAP"},
		{MsgAddrAP2D, "indirect DMA's AddrAP should be 2D"},
		{MsgAddrPartitionDim, "Addr Tensor partition dim must match its tensor shape"},
		{MsgTargetFlattened, "target DRAM tensor is flattened, IndirectDims must be expanded"},
		{msgUnknownDtype, "Unknown dtype"},
	} {
		if tc.got != tc.want {
			t.Errorf("message %q, want the seed's %q", tc.got, tc.want)
		}
	}
	const seed = "../../../shared/seeds/001_43b338797e36cca5.txt"
	text, err := os.ReadFile(seed)
	if err != nil {
		sharedtest.Missing(t, "seed 001 not available (%v): the literals above are checked, not their presence in the seed", err)
	}
	for _, msg := range []string{MsgIndirectDims, MsgIndexFlattened, MsgIndexPerPartition, MsgAddrAP2D, MsgAddrPartitionDim, MsgTargetFlattened, msgUnknownDtype} {
		if !strings.Contains(string(text), msg) {
			t.Errorf("%q does not occur in %s", msg, seed)
		}
	}
}
