package bir

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// tablesModule builds a loop module (symbolic DRAM APs in a body block,
// physical SBUF APs) and returns its function with the use index and the
// instruction-name table built, so that CheckTables compares every table.
func tablesModule(t *testing.T) (*Builder, T, T) {
	t.Helper()
	b := NewBuilder(NewModule("trn2"), "main")
	x := b.Input("x", Float32, 512, 2048)
	z := b.Output("z", Float32, 512, 2048)
	xs := b.SBUF("xs", Float32, 128, 2048)
	ys := b.SBUF("ys", Float32, 128, 2048)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*2048)
		b.Load("ld", xs.All(), x.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.TensorTensor("add", EngDVE, "add", ys.All(), xs.All(), xs.All())
		b.Save("st", z.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}), ys.All())
	})
	b.F.RegByName("r0")
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	b.F.Uses()
	b.F.InstByName("add")
	return b, xs, ys
}

func TestFunction_CheckTables(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(t *testing.T, b *Builder, xs, ys T)
		want  []string // substrings of the errors, one per error, in order ("" none)
	}{
		{"built tables agree", func(*testing.T, *Builder, T, T) {}, nil},
		{"RenameTensor, RenameLoc, Rename", func(t *testing.T, b *Builder, xs, _ T) {
			if err := b.F.RenameTensor(xs.ID, "a_set"); err != nil {
				t.Fatal(err)
			}
			if err := b.F.RenameLoc(xs.Loc, "a"); err != nil {
				t.Fatal(err)
			}
			i, _ := b.F.InstByName("add")
			b.F.Rename(i, "add2")
			b.F.Uses()
		}, nil},
		{"SetOperand drops the use index", func(t *testing.T, b *Builder, xs, _ T) {
			i, _ := b.F.InstByName("add")
			b.F.SetOperand(i, 2, xs.All())
		}, nil},
		{"RemoveTensor", func(t *testing.T, b *Builder, _, ys T) {
			b.F.RemoveTensor(ys.ID)
			// A new tensor may take the dead one's name.
			if _, err := b.F.AddTensor(Tensor{Name: "ys_set"}); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"Tensor.Name written", func(t *testing.T, b *Builder, xs, _ T) {
			b.F.Tensor(xs.ID).Name = "a_set"
		}, []string{`tensor names: entry "xs_set" maps to tensor #2: want the tensor named "xs_set", have it named "a_set"`}},
		{"MemLoc.Name written", func(t *testing.T, b *Builder, xs, _ T) {
			b.F.Loc(xs.Loc).Name = "a"
		}, []string{`location names: entry "xs" maps to location #2: want the location named "xs", have it named "a"`}},
		{"Tensor.Dead written", func(t *testing.T, b *Builder, xs, _ T) {
			b.F.Tensor(xs.ID).Dead = true
		}, []string{`tensor names: entry "xs_set" maps to tensor #2: want a live tensor, have a dead one`}},
		{"Register.Name written", func(t *testing.T, b *Builder, _, _ T) {
			b.F.Reg(0).Name = "r9"
		}, []string{`register names: entry "r0" maps to register #0: want the register named "r0", have it named "r9"`}},
		{"Instruction.Name written", func(t *testing.T, b *Builder, _, _ T) {
			i, _ := b.F.InstByName("add")
			b.F.Inst(i).Name = b.M.NewSym("sum")
		}, []string{`instruction names: entry "add" maps to instruction #2: want the instruction named "add", have it named "sum"`}},
		{"Outs element written", func(t *testing.T, b *Builder, xs, _ T) {
			i, _ := b.F.InstByName("add")
			b.F.Outs(i)[0] = xs.All() // ys -> xs, bypassing SetOperand
		}, []string{
			"use index: location xs: want the use by instruction add operand 2 listed, have it missing",
			"use index: location ys: want the use by instruction st operand 0 next, have instruction add operand 2",
		}},
		{"Ins element written on a symbolic AP", func(t *testing.T, b *Builder, _, ys T) {
			i, _ := b.F.InstByName("ld")
			b.F.Ins(i)[0] = ys.All() // x (symbolic) -> ys (physical)
		}, []string{
			"use index: location ys: want the use by instruction ld operand 0 next, have instruction add operand 2",
			"use index: tensor x_set: want 0 uses, have 1 more listed (first: instruction ld operand 0)",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, xs, ys := tablesModule(t)
			tc.write(t, b, xs, ys)
			errs := b.F.CheckTables(AllTables)
			if len(errs) != len(tc.want) {
				t.Fatalf("CheckTables = %v, want %d errors %q", errs, len(tc.want), tc.want)
			}
			for k, e := range errs {
				if !strings.Contains(e.Error(), tc.want[k]) {
					t.Errorf("error %d = %q, want it to contain %q", k, e.Error(), tc.want[k])
				}
			}
		})
	}
}

// TestFunction_CheckTablesGenStraightLine: a large function's freshly built
// use index agrees with its operands, and one operand written directly
// (bypassing SetOperand) is found.
func TestFunction_CheckTablesGenStraightLine(t *testing.T) {
	m := GenStraightLine(4000)
	f := m.Main()
	f.Uses()
	if errs := f.CheckTables(AllTables); errs != nil {
		t.Fatalf("fresh tables: %v", errs)
	}
	i := InstID(2001) // an add: ins [A, B] outs [C], three distinct tiles
	o := f.Ins(i)[0]
	a, bl := LocID(o.Ref), LocID(f.Ins(i)[1].Ref)
	o.Ref = int32(bl)
	f.Ins(i)[0] = o // A -> B, bypassing SetOperand
	errs := f.CheckTables(AllTables)
	// B's list lacks (i, 0) where the walk meets it; A's list still has it.
	if len(errs) != 2 || errs[0].Loc != bl || errs[0].Inst != i || errs[1].Loc != a ||
		!strings.Contains(errs[0].Msg, "want the use by instruction add_2001 operand 0 next, have instruction add_2001 operand 1") {
		t.Fatalf("after a direct operand write: %v, want errors on location %s (missing the use) then %s (listing it)", errs, f.Loc(bl).Name, f.Loc(a).Name)
	}
}

// TestFunction_CheckTablesSelects: CheckTables compares only the tables
// its TableSet names.
func TestFunction_CheckTablesSelects(t *testing.T) {
	b, xs, _ := tablesModule(t)
	b.F.Tensor(xs.ID).Name = "a_set"
	i, _ := b.F.InstByName("add")
	b.F.Inst(i).Name = b.M.NewSym("sum")
	b.F.Outs(i)[0] = xs.All()
	for _, tc := range []struct {
		set  TableSet
		want map[string]int // errors per table
	}{
		{NameTables, map[string]int{"tensor names": 1}},
		{InstNameTable, map[string]int{"instruction names": 1}},
		{UseIndexTable, map[string]int{"use index": 2}},
		{AllTables, map[string]int{"tensor names": 1, "instruction names": 1, "use index": 2}},
	} {
		got := map[string]int{}
		for _, e := range b.F.CheckTables(tc.set) {
			got[e.Table]++
		}
		if len(got) != len(tc.want) {
			t.Errorf("set %b: errors per table %v, want %v", tc.set, got, tc.want)
			continue
		}
		for k, n := range tc.want {
			if got[k] != n {
				t.Errorf("set %b: errors per table %v, want %v", tc.set, got, tc.want)
			}
		}
	}
}

// BenchmarkCheckTables1M reports CheckTables' cost per instruction on
// GenStraightLine(1_000_000) with its use index and instruction-name table
// built, per table set.
func BenchmarkCheckTables1M(b *testing.B) {
	const n = 1_000_000
	m := GenStraightLine(n)
	f := m.Main()
	f.Uses()
	f.InstByName("")
	for _, bc := range []struct {
		name string
		set  TableSet
	}{{"names", NameTables}, {"inst-names", InstNameTable}, {"uses", UseIndexTable}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if errs := f.CheckTables(bc.set); errs != nil {
					b.Fatal(errs)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/inst")
		})
	}
}
