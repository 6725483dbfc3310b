package verify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

const (
	f32  = bir.Float32
	bf16 = bir.BFloat16
	i32  = bir.Int32
)

type ruleCase struct {
	name  string
	rule  string // every diagnostic must have this rule (or one of also)
	msg   string // some diagnostic of rule must contain this
	stage Stage
	arch  func() *arch.Model // nil: arch.ForModule
	also  []string
	build func(t *testing.T) *bir.Module
	// instNames sets Options.InstNameTable.
	instNames bool
}

// base returns a trn2 builder with x (DRAM input [128,512] f32) and xs
// (SBUF [128,512] f32).
func base() (*bir.Builder, bir.T, bir.T) {
	_, b := newB("trn2")
	x := b.Input("x", f32, 128, 512)
	xs := b.SBUF("xs", f32, 128, 512)
	return b, x, xs
}

func archWith(name string, set func(*arch.Model)) func() *arch.Model {
	return func() *arch.Model {
		m, err := arch.Lookup(name)
		if err != nil {
			panic(err)
		}
		set(m)
		return m
	}
}

func noAxisDep(on bir.InstID) bir.Dep {
	return bir.Dep{On: on, Kind: bir.DepFlow, CarryAxis: bir.NoAxis}
}

func ruleCases() []ruleCase {
	return []ruleCase{
		// ---- module-arch ----
		{name: "unknown arch", rule: "module-arch", msg: `unknown architecture "gen9"`, build: func(t *testing.T) *bir.Module {
			_, b := newB("gen9")
			x := b.SBUF("x", f32, 128, 4)
			b.Memset("f", bir.EngDVE, x.All(), 0)
			return must(t, b)
		}},

		// ---- ref ----
		{name: "operand location out of range", rule: "ref", msg: "location #99: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			o := xs.All()
			o.Ref = 99
			b.F.SetOperand(i, 0, o)
			return must(t, b)
		}},
		{name: "dangling branch target", rule: "ref", msg: `target: block "NoSuchBlock": want the name of a block of function main, have a name no block has`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			b.Inst(bir.OpUnconditionalBranch, "br", bir.EngUnassigned, nil, nil, bir.Attrs("target", "NoSuchBlock"))
			return must(t, b)
		}},
		{name: "dangling conditional branch target", rule: "ref", msg: `on_false: block "Blk2": want the name of a block`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			b.F.NewBlock("Block2", bir.NoInst)
			b.Inst(bir.OpCompareAndBranch, "cbr", bir.EngUnassigned, nil, nil, bir.Attrs("comp_op", "eq", "on_true", "Block2", "on_false", "Blk2"))
			return must(t, b)
		}},
		{name: "dead location", rule: "ref", msg: "location xs: want a live location, have a dead one", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.All())
			b.F.RemoveLoc(xs.Loc)
			return must(t, b)
		}},
		{name: "dependency on a dead instruction", rule: "ref", msg: "depends on instruction a: want a live instruction, have a dead one", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			a := b.Memset("a", bir.EngDVE, xs.All(), 0)
			c := b.Memset("c", bir.EngDVE, xs.All(), 1)
			b.F.AddDep(c, noAxisDep(a))
			b.F.Remove(a)
			return must(t, b)
		}},
		{name: "dependency target in no block", rule: "ref", msg: "depends on instruction loose: want an instruction in a block, have one in no block", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			c := b.Memset("c", bir.EngDVE, xs.All(), 1)
			loose := b.F.NewInst(bir.OpMemset, "loose", bir.EngDVE, nil, []bir.Operand{xs.All()}, nil)
			b.F.AddDep(c, noAxisDep(loose))
			return must(t, b)
		}},
		{name: "dependency target out of range", rule: "ref", msg: "depends on instruction #500: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			c := b.Memset("c", bir.EngDVE, xs.All(), 1)
			b.F.AddDep(c, noAxisDep(500))
			return must(t, b)
		}},
		{name: "pattern out of range", rule: "ref", msg: "pattern #9999: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			o := xs.All()
			o.Pattern = 9999
			b.F.SetOperand(i, 0, o)
			return must(t, b)
		}},
		{name: "register out of range", rule: "ref", msg: "register #7: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, _ := base()
			b.Inst(bir.OpRegisterMove, "mv", bir.EngAct, []bir.Operand{bir.ImmI(1, i32)}, []bir.Operand{bir.RegOpd(7, i32)}, nil)
			return must(t, b)
		}},
		{name: "attribute set out of range", rule: "ref", msg: "attribute set #9999: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Attrs = 9999
			return must(t, b)
		}},
		{name: "function of another module", rule: "ref", msg: "belongs to another module", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("f", bir.EngDVE, xs.All(), 0)
			m2 := bir.NewModule("trn2")
			b2 := bir.NewBuilder(m2, "stranger")
			b.M.Funcs = append(b.M.Funcs, b2.F)
			return must(t, b)
		}},
		{name: "expression out of range", rule: "ref", msg: "expression #999: want an id <", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			i := b.Load("ld", xs.All(), x.All())
			b.F.SetOperand(i, 0, bir.SymAP(x.ID, f32, 999, 0, b.Pat([2]int64{512, 128}, [2]int64{1, 512})))
			return must(t, b)
		}},
		{name: "name symbol out of range", rule: "ref", msg: "name symbol #99999: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Name = 99999
			return must(t, b)
		}},
		{name: "loop table entry out of range", rule: "ref", msg: "loop table entry #50: want an id <", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.F.Inst(l).Aux = 50
			return must(t, b)
		}},
		{name: "tensor lists a location out of range", rule: "ref", msg: "location #77: want an id < 2", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Locs = append(b.F.Tensor(xs.ID).Locs, 77)
			return must(t, b)
		}},
		{name: "operand table range", rule: "ref", msg: "want a range inside the operand table", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Args = 1 << 20
			return must(t, b)
		}},

		// ---- name-unique ----
		{name: "duplicate instruction names", rule: "name-unique", msg: `instruction name "a" also used`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("a", bir.EngDVE, xs.All(), 0)
			b.Memset("a", bir.EngDVE, xs.All(), 1)
			return must(t, b)
		}},
		{name: "duplicate tensor names", rule: "name-unique", msg: `tensor name "x_set"`, also: []string{"tables"}, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Name = "x_set"
			return must(t, b)
		}},
		{name: "duplicate location names", rule: "name-unique", msg: `location name "x"`, also: []string{"tables"}, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Loc(xs.Loc).Name = "x"
			return must(t, b)
		}},

		// ---- tables: direct writes the name tables and use index miss ----
		{name: "tensor renamed by a field write", rule: "tables", msg: `tensor names: entry "xs_set" maps to tensor #1: want the tensor named "xs_set", have it named "ys_set"`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Name = "ys_set"
			return must(t, b)
		}},
		{name: "location renamed by a field write", rule: "tables", msg: `location names: entry "xs" maps to location #1: want the location named "xs", have it named "ys"`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Loc(xs.Loc).Name = "ys"
			return must(t, b)
		}},
		{name: "register renamed by a field write", rule: "tables", msg: `register names: entry "r0" maps to register #0: want the register named "r0", have it named "r1"`, build: func(t *testing.T) *bir.Module {
			b, _, _ := base()
			b.F.Reg(b.F.RegByName("r0")).Name = "r1"
			return must(t, b)
		}},
		{name: "instruction renamed by a field write", rule: "tables", instNames: true, msg: `instruction names: entry "f" maps to instruction #0: want the instruction named "f", have it named "g"`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			inst(t, b.F, "f") // builds the instruction-name table
			b.F.Inst(i).Name = b.M.NewSym("g")
			return must(t, b)
		}},
		{name: "operand written through Outs", rule: "tables", msg: "use index: location xs: want the use by instruction f operand 0 listed, have it missing", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			ys := b.SBUF("ys", f32, 128, 512)
			i := b.Memset("f", bir.EngDVE, ys.All(), 0)
			b.F.Uses()
			b.F.Outs(i)[0] = xs.All()
			return must(t, b)
		}},
		{name: "duplicate function names", rule: "name-unique", msg: `function name "main"`, build: func(t *testing.T) *bir.Module {
			b, _, _ := base()
			b2 := bir.NewBuilder(b.M, "other")
			b2.F.Name = "main"
			return must(t, b)
		}},
		{name: "duplicate block names", rule: "name-unique", msg: `block name "Block1"`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.F.Block(b.F.Loop(l).Body[0]).Name = "Block1"
			return must(t, b)
		}},

		// ---- block ----
		{name: "instruction listed twice", rule: "block", msg: "listed twice", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			blk := b.F.Block(b.Block())
			blk.Insts = append(blk.Insts, i)
			return must(t, b)
		}},
		{name: "dead instruction listed", rule: "block", msg: "listed in block Block1: want a live instruction, have a dead one", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Remove(i)
			blk := b.F.Block(b.Block())
			blk.Insts = append(blk.Insts, i)
			return must(t, b)
		}},
		{name: "instruction parent link", rule: "block", msg: "parent block #3", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Block = 3
			return must(t, b)
		}},
		{name: "block parent link", rule: "block", msg: "parent none (top level), want loop_i", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.F.Block(b.F.Loop(l).Body[0]).Parent = bir.NoInst
			return must(t, b)
		}},

		// ---- tensor ----
		{name: "partition dim outside shape", rule: "tensor", msg: "partition dim 5", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).PartitionDim = 5
			return must(t, b)
		}},
		{name: "zero dimension", rule: "tensor", msg: "dimension 1 is 0", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Shape = []int64{128, 0}
			return must(t, b)
		}},
		{name: "block tensor without blocks", rule: "tensor", msg: "block tensor with 0 blocks", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).IsBlock = true
			return must(t, b)
		}},
		{name: "split shape length", rule: "tensor", msg: "splitShape has 3 entries", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).SplitShape = []bool{true, false, false}
			return must(t, b)
		}},
		{name: "tensor kind", rule: "tensor", msg: "tensor kind 40", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Kind = 40
			return must(t, b)
		}},

		// ---- loc ----
		{name: "on-chip location without partitions", rule: "loc", msg: "SB location with 0 partitions", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Loc(xs.Loc).Partitions = 0
			return must(t, b)
		}},
		{name: "negative placement", rule: "loc", msg: "placement (addr -4", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Loc(xs.Loc).Addr = -4
			return must(t, b)
		}},
		{name: "tensor id outside blocks", rule: "loc", msg: "tensor id 3 outside", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Loc(xs.Loc).TensorIdx = 3
			return must(t, b)
		}},
		{name: "owner not listing the location", rule: "loc", msg: "names tensor x_set as its owner", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.F.Loc(xs.Loc).Tensor = x.ID
			return must(t, b)
		}},

		// ---- loop ----
		{name: "zero stride", rule: "loop", msg: "stride 0, want > 0", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.M.Axis(b.F.Loop(l).Axis).Stride = 0
			return must(t, b)
		}},
		{name: "lb above ub", rule: "loop", msg: "lb 5 > ub 2", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			ax := b.M.Axis(b.F.Loop(l).Axis)
			ax.Lb, ax.Ub = 5, 2
			return must(t, b)
		}},
		{name: "axis owned by another loop", rule: "loop", msg: "is owned by instruction #12345", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.M.Axis(b.F.Loop(l).Axis).Loop = 12345
			return must(t, b)
		}},
		{name: "nested loop reusing an axis", rule: "loop", msg: "already bound by an enclosing loop", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			var inner bir.InstID
			outer := b.Loop("i", 0, 2, 1, func(affine.Expr) {
				inner = b.Loop("j", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
			})
			b.F.Loop(inner).Axis = b.F.Loop(outer).Axis
			return must(t, b)
		}},

		// ---- sym-axis-unbound ----
		{name: "symbolic AP outside its loop", rule: "sym-axis-unbound", msg: "axis i: want an axis of an enclosing loop", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			var saved affine.Expr
			b.Loop("i", 0, 4, 1, func(i affine.Expr) { saved = i; b.Memset("f", bir.EngDVE, xs.All(), 0) })
			b.Load("ld", xs.All(), x.Sym(affine.Const(0), affine.Scale(saved, 0), [2]int64{512, 128}, [2]int64{1, 512}))
			b.Load("ld2", xs.All(), x.Sym(saved, affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}))
			return must(t, b)
		}},
		{name: "predicate outside its loop", rule: "sym-axis-unbound", msg: "predicate: axis i", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			var saved affine.Expr
			b.Loop("i", 0, 4, 1, func(i affine.Expr) { saved = i })
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.SetPred(i, affine.GE(saved, affine.Const(1)))
			return must(t, b)
		}},
		{name: "carried dependency outside its loop", rule: "sym-axis-unbound", msg: "is carried by axis i", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			l := b.Loop("i", 0, 4, 1, func(affine.Expr) {})
			a := b.Memset("a", bir.EngDVE, xs.All(), 0)
			c := b.Memset("c", bir.EngDVE, xs.All(), 0)
			b.F.AddDep(c, bir.Dep{On: a, CarryAxis: b.F.Loop(l).Axis, CarryDist: 1})
			return must(t, b)
		}},

		// ---- dep ----
		{name: "dependency on a later instruction", rule: "dep", msg: "does not precede it", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			a := b.Memset("a", bir.EngDVE, xs.All(), 0)
			c := b.Memset("c", bir.EngDVE, xs.All(), 0)
			b.F.AddDep(a, noAxisDep(c))
			return must(t, b)
		}},
		{name: "self dependency", rule: "dep", msg: "depends on a, which does not precede", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			a := b.Memset("a", bir.EngDVE, xs.All(), 0)
			b.F.AddDep(a, noAxisDep(a))
			return must(t, b)
		}},
		{name: "carried distance zero", rule: "dep", msg: "distance 0, want >= 1", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Loop("i", 0, 4, 1, func(i affine.Expr) {
				a := b.Memset("a", bir.EngDVE, xs.All(), 0)
				c := b.Memset("c", bir.EngDVE, xs.All(), 0)
				b.F.AddDep(c, bir.Dep{On: a, CarryAxis: i.Terms[0].Atom.Axis, CarryDist: 0})
			})
			return must(t, b)
		}},
		{name: "dependency kind", rule: "dep", msg: "kind 9", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			a := b.Memset("a", bir.EngDVE, xs.All(), 0)
			c := b.Memset("c", bir.EngDVE, xs.All(), 0)
			d := noAxisDep(a)
			d.Kind = 9
			b.F.AddDep(c, d)
			return must(t, b)
		}},

		// ---- opcode, arity, engine, dtype ----
		{name: "unknown opcode number", rule: "opcode", msg: "opcode number 3000", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Op = 3000
			return must(t, b)
		}},
		{name: "too few sources", rule: "arity", msg: "1 sources: want 2", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Inst(bir.OpTensorTensor, "tt", bir.EngDVE, []bir.Operand{xs.All()}, []bir.Operand{xs.All()}, bir.Attrs("op", "add"))
			return must(t, b)
		}},
		{name: "too many destinations", rule: "arity", msg: "2 destinations: want 1", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Inst(bir.OpMemset, "m", bir.EngDVE, nil, []bir.Operand{xs.All(), xs.All()}, bir.Attrs("mode", "Const", "constant", 0))
			return must(t, b)
		}},
		{name: "memset without a value", rule: "attr", msg: "a Const Memset has no value: want constant or constant_bits", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Inst(bir.OpMemset, "m", bir.EngDVE, nil, []bir.Operand{xs.All()}, bir.Attrs("mode", "Const"))
			return must(t, b)
		}},
		{name: "memset mode", rule: "attr", msg: `mode "Sparse": want Const or Random`, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Inst(bir.OpMemset, "m", bir.EngDVE, nil, []bir.Operand{xs.All()}, bir.Attrs("mode", "Sparse", "constant", 0))
			return must(t, b)
		}},
		{name: "engine not allowed", rule: "engine", msg: "engine PE: want one of Unassigned, DVE, Pool", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.TensorTensor("tt", bir.EngPE, "add", xs.All(), xs.All(), xs.All())
			return must(t, b)
		}},
		{name: "engine absent on the generation", rule: "engine", msg: "engine Pool: want an engine inf1 has", build: func(t *testing.T) *bir.Module {
			_, b := newB("inf1")
			io := b.SBUF("io", i32, 128, 16)
			b.Iota("iota", io.All(), 0, 1, [2]int64{1, 16})
			return must(t, b)
		}},
		{name: "engine number", rule: "engine", msg: "engine number 9", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.Inst(i).Engine = 9
			return must(t, b)
		}},
		{name: "operand dtype", rule: "dtype", msg: "dtype 30, want <= 19", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("f", bir.EngDVE, bir.As(xs.All(), 30), 0)
			return must(t, b)
		}},
		{name: "tensor dtype", rule: "dtype", msg: "dtype 25: want <= 19", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.F.Tensor(xs.ID).Dtype = 25
			return must(t, b)
		}},
		{name: "location bytes not a multiple of the dtype", rule: "dtype", msg: "bytes per partition: want a multiple of float32's 4 bytes, have 6", build: func(t *testing.T) *bir.Module {
			b, _, _ := base()
			s := b.SBUF("s", bir.Int8, 128, 6)
			b.Memset("f", bir.EngDVE, bir.PhysAP(s.Loc, f32, 0, b.Pat([2]int64{1, 128}, [2]int64{1, 1})), 0)
			return must(t, b)
		}},

		// ---- ap-shape, ap-bounds ----
		{name: "pattern num zero", rule: "ap-shape", msg: "pair 1: num 0, want >= 1", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("f", bir.EngDVE, xs.AP(0, [2]int64{512, 128}, [2]int64{1, 0}), 0)
			return must(t, b)
		}},
		{name: "pattern overflow", rule: "ap-shape", msg: "want a span < 2^62, have an overflow", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("f", bir.EngDVE, xs.AP(0, [2]int64{512, 128}, [2]int64{1 << 40, 1 << 30}), 0)
			return must(t, b)
		}},
		{name: "six pairs", rule: "ap-shape", msg: "6 [step, num] pairs, want at most 5", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.AP(0, [2]int64{512, 128}, [2]int64{256, 2}, [2]int64{128, 2}, [2]int64{64, 2}, [2]int64{32, 2}, [2]int64{1, 32}))
			return must(t, b)
		}},
		{name: "physical AP past the end", rule: "ap-bounds", msg: "reaches elements [512, 66047]", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.AP(512, [2]int64{512, 128}, [2]int64{1, 512}))
			return must(t, b)
		}},
		{name: "negative step below zero", rule: "ap-bounds", msg: "reaches elements [-65024, 511]", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.AP(0, [2]int64{-512, 128}, [2]int64{1, 512}))
			return must(t, b)
		}},
		{name: "more partitions than the location", rule: "ap-bounds", msg: "pair 0 accesses 128 partitions: want <= 64", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			s := b.SBUF("s", f32, 64, 512)
			b.Load("ld", s.AP(0, [2]int64{8, 128}, [2]int64{1, 8}), x.AP(0, [2]int64{512, 128}, [2]int64{1, 8}))
			return must(t, b)
		}},
		{name: "symbolic block out of range", rule: "ap-bounds", msg: "block index i ranges over [0, 3]", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			bt := b.BlockTensor("bt", bir.MemSB, f32, 2, 128, 512)
			b.Loop("i", 0, 4, 1, func(i affine.Expr) {
				b.Load("ld", bt.Sym(i, affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}), x.All())
			})
			return must(t, b)
		}},
		{name: "symbolic offset out of range", rule: "ap-bounds", msg: "reaches elements [0, 67071]", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Loop("i", 0, 4, 1, func(i affine.Expr) {
				b.Load("ld", xs.All(), x.Sym(affine.Const(0), affine.Scale(i, 512), [2]int64{512, 128}, [2]int64{1, 512}))
			})
			return must(t, b)
		}},
		{name: "symbolic offset wrapping int64", rule: "ap-bounds", msg: "offset 8*i over the enclosing loops' ranges: want values within +-2^62, have an int64 overflow", build: func(t *testing.T) *bir.Module {
			// Two iterations, i = 0 and 2^61: 8*i = 2^64 wraps to 0, which
			// the range used to call in bounds.
			b, x, xs := base()
			b.Loop("i", 0, 1<<62, 1<<61, func(i affine.Expr) {
				b.Load("ld", xs.All(), x.Sym(affine.Const(0), affine.Scale(i, 8), [2]int64{512, 128}, [2]int64{1, 512}))
			})
			return must(t, b)
		}},
		{name: "symbolic block wrapping int64", rule: "ap-bounds", msg: "block index 8*i over the enclosing loops' ranges", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			bt := b.BlockTensor("bt", bir.MemSB, f32, 2, 128, 512)
			b.Loop("i", 0, 1<<62, 1<<61, func(i affine.Expr) {
				b.Load("ld", bt.Sym(affine.Scale(i, 8), affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}), x.All())
			})
			return must(t, b)
		}},
		{name: "quasi-affine offset out of range", rule: "ap-bounds", msg: "reaches elements [0, 66047]", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Loop("i", 0, 8, 1, func(i affine.Expr) {
				// (i mod 4) floordiv 2 * 512: exact range [0, 512].
				off := affine.Scale(affine.FloorDiv(affine.Mod(i, 4), 2), 512)
				b.Load("ld", xs.All(), x.Sym(affine.Const(0), off, [2]int64{512, 128}, [2]int64{1, 512}))
			})
			return must(t, b)
		}},

		// ---- elem-count ----
		{name: "DMA totals differ", rule: "elem-count", msg: "has 32768 elements, destination 0 (xs) has 65536", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.AP(0, [2]int64{512, 64}, [2]int64{1, 512}))
			return must(t, b)
		}},
		{name: "lockstep partitions differ", rule: "elem-count", msg: "source 1 (xs) is [64 partitions x 512]", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			ys := b.SBUF("ys", f32, 128, 512)
			b.TensorTensor("tt", bir.EngDVE, "add", ys.All(), ys.All(), xs.Tile(0, 64, 0, 512))
			return must(t, b)
		}},
		{name: "bias not per-partition", rule: "elem-count", msg: "want [128 partitions x 1]", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			bias := b.SBUF("bias", f32, 128, 2)
			b.Activation("act", "Relu", xs.All(), xs.All(), 1, bias.All())
			return must(t, b)
		}},
		{name: "matmul contraction differs", rule: "elem-count", msg: "has 64 partitions, stationary", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 64, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul destination shape", rule: "elem-count", msg: "want [128 partitions x 512] = [M x N]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", f32, 128, 256)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "PE transpose shape", rule: "elem-count", msg: "a PE transpose maps [P,F] to [F,P]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 64)
			p := b.PSUM("p", f32, 128, 64)
			b.Transpose("tp", bir.EngPE, p.All(), s.All())
			return must(t, b)
		}},
		{name: "DVE transpose blocks", rule: "elem-count", msg: "multiples of 32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 48, 48)
			d := b.SBUF("d", f32, 48, 48)
			b.Transpose("tp", bir.EngDVE, d.All(), s.All())
			return must(t, b)
		}},
		{name: "tensor_reduce kept axes", rule: "elem-count", msg: "has 8 elements per partition: want 4", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 4, 8)
			d := b.SBUF("d", f32, 128, 8)
			b.TensorReduce("red", bir.EngDVE, "add", "X", d.All(), s.All())
			return must(t, b)
		}},
		{name: "iota pattern size", rule: "elem-count", msg: "pattern covers 8 elements per partition", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			io := b.SBUF("io", i32, 128, 16)
			b.Iota("iota", io.All(), 0, 1, [2]int64{1, 8})
			return must(t, b)
		}},

		// ---- attr ----
		{name: "reduce over free and partition axes", rule: "attr", msg: `axis "XYZWC"`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 128, 8)
			d := b.SBUF("d", f32, 128, 1)
			b.TensorReduce("red", bir.EngDVE, "add", "XYZWC", d.All(), s.All())
			return must(t, b)
		}},
		{name: "malformed tile_position", rule: "attr", msg: "want [row, column] integer pairs", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			i := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			b.F.SetAttr(i, "tile_position", bir.String("x"))
			return must(t, b)
		}},
		{name: "malformed semaphore command", rule: "attr", msg: "waits entry 0", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			b.Inst(bir.OpEventSemaphore, "sem", bir.EngSP, nil, nil, bir.Attrs("waits", bir.List(semCmd(-1, 1))))
			return must(t, b)
		}},
		{name: "CCE constants count", rule: "attr", msg: "constants has 3 entries: want one scale per source (2)", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			b.CCECopy("cce", z.All(), []bir.Operand{x.All(), x.All()}, []float64{1, 1, 1})
			return must(t, b)
		}},
		{name: "iota without pattern", rule: "attr", msg: "pattern missing", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			io := b.SBUF("io", i32, 128, 16)
			b.Inst(bir.OpIota, "iota", bir.EngPool, nil, []bir.Operand{io.All()}, nil)
			return must(t, b)
		}},

		// ---- memory placement ----
		{name: "compute operand in DRAM", rule: "onchip-operand", msg: "source 1 (x) is in Input: want SB or PSUM", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.TensorTensor("tt", bir.EngDVE, "add", xs.All(), xs.All(), x.All())
			return must(t, b)
		}},
		{name: "GpSimd instruction reads PSUM", rule: "gpsimd-psum", msg: msgGpSimdInstPSUM, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			ps := b.PSUM("ps", f32, 128, 512)
			b.TensorTensor("tt", bir.EngPool, "add", xs.All(), xs.All(), ps.All())
			return must(t, b)
		}},
		{name: "GpSimd-only opcode writes PSUM", rule: "gpsimd-psum", msg: msgGpSimdPSUM + ": Iota runs only on GpSimd", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			ps := b.PSUM("ps", i32, 128, 16)
			b.Inst(bir.OpIota, "iota", bir.EngUnassigned, nil, []bir.Operand{ps.All()},
				bir.Attrs("pattern", bir.List(bir.Object(bir.Field{Key: "step", Val: bir.Int(1)}, bir.Field{Key: "num", Val: bir.Int(16)}))))
			return must(t, b)
		}},
		{name: "custom op argument in PSUM", rule: "customop-memory", msg: msgCustomOpArgs, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			ps := b.PSUM("ps", f32, 128, 512)
			b.Inst(bir.OpCustomOp, "cop", bir.EngPool, []bir.Operand{ps.All()}, []bir.Operand{xs.All()}, nil)
			return must(t, b)
		}},
		{name: "custom op output in PSUM", rule: "customop-memory", msg: msgCustomOpOuts, build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			ps := b.PSUM("ps", f32, 128, 512)
			b.Inst(bir.OpCustomOp, "cop", bir.EngPool, []bir.Operand{x.All()}, []bir.Operand{ps.All()}, nil)
			return must(t, b)
		}},
		{name: "matmul reads PSUM", rule: "pe-memory", msg: "the Tensor engine reads only SBUF", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.PSUM("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul writes SBUF", rule: "pe-memory", msg: "the Tensor engine writes only PSUM", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			d := b.SBUF("d", f32, 128, 512)
			b.Matmult("mm", d.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "DMA reads PSUM", rule: "dma-psum", msg: "DMA cannot read PSUM", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			z := b.Output("z", f32, 128, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Save("st", z.All(), ps.All())
			return must(t, b)
		}},
		{name: "tensor_tensor inputs both in PSUM", rule: "tt-psum", msg: "both inputs are in PSUM", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			p1 := b.PSUM("p1", f32, 128, 512)
			p2 := b.PSUM("p2", f32, 128, 512)
			b.TensorTensor("tt", bir.EngDVE, "add", xs.All(), p1.All(), p2.All())
			return must(t, b)
		}},

		// ---- engine access patterns ----
		{name: "too many free dimensions", rule: "engine-ap", msg: "3 free dimensions: want at most 2",
			arch: archWith("trn2", func(m *arch.Model) { m.MaxFreeDims = 2 }), build: func(t *testing.T) *bir.Module {
				_, b := newB("trn2")
				s := b.SBUF("s", f32, 128, 2, 2, 2)
				d := b.SBUF("d", f32, 128, 2, 2, 2)
				b.TensorCopy("cp", bir.EngDVE, d.All(), s.All())
				return must(t, b)
			}},
		{name: "free num beyond uint16", rule: "engine-ap", msg: "want free nums <= 65535", also: []string{"free-size"}, stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", bir.Int8, 1, 70000)
			b.Memset("f", bir.EngDVE, s.All(), 0)
			return must(t, b)
		}},
		{name: "free step beyond int16", rule: "engine-ap", msg: "steps in [-32768, 32767]", stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", bir.Int8, 1, 80000)
			b.Memset("f", bir.EngDVE, s.AP(0, [2]int64{80000, 1}, [2]int64{40000, 2}), 0)
			return must(t, b)
		}},
		{name: "partition striding on an engine", rule: "partition-stride", msg: "partition step 1: want 512", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			ys := b.SBUF("ys", f32, 128, 512)
			b.TensorCopy("cp", bir.EngDVE, xs.AP(0, [2]int64{1, 128}, [2]int64{128, 512}), ys.All())
			return must(t, b)
		}},
		{name: "free pattern leaves the partition", rule: "partition-stride", msg: "free pattern reaches elements [500, 531] of its partition", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			b.Memset("f", bir.EngDVE, xs.AP(500, [2]int64{512, 1}, [2]int64{1, 32}), 0)
			return must(t, b)
		}},

		// ---- matmul limits and tiles ----
		{name: "matmul N beyond a bank", rule: "matmul-limits", msg: "N = 1024 (moving free size) with a float32 destination: want <= 512 on trn2", also: []string{"psum-tile"}, stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 1024)
			ps := b.PSUM("ps", f32, 128, 1024)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul fp32 stationary with bf16 moving", rule: "matmul-dtype", msg: "stationary source 0 (st) is float32, moving source 1 (mv) is bfloat16: want fp32/tf32 only with fp32/tf32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", f32, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul bf16 stationary with tf32 moving", rule: "matmul-dtype", msg: "is bfloat16, moving source 1 (mv) is float32r", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bir.Float32R, 128, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "SBUF access beyond 64K elements", rule: "free-size", msg: "destination 0 (s) accesses 66560 elements per partition in SB: want at most 65536", stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", bir.Int8, 1, 1024)
			b.Memset("f", bir.EngDVE, s.AP(0, [2]int64{1024, 1}, [2]int64{2, 260}, [2]int64{1, 256}), 0)
			return must(t, b)
		}},
		{name: "PSUM access beyond 4K elements", rule: "free-size", msg: "accesses 4608 elements per partition in PSUM: want at most 4096", also: []string{"psum-tile"}, stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			p := b.PSUM("p", bf16, 128, 4608)
			b.Memset("f", bir.EngDVE, p.All(), 0)
			return must(t, b)
		}},
		{name: "Activation max reduction on NC-v2", rule: "act-reduce", msg: `reduce_op "max" with acc "ZeroAccumulate": want add, the only reduction of the Activation accumulator on trn1 (NC-v2)`, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn1")
			x := b.SBUF("x", f32, 128, 64)
			y := b.SBUF("y", f32, 128, 64)
			id := b.Activation("act", "Exp", y.All(), x.All(), 1, bir.Operand{})
			b.F.SetAttrs(id, b.F.Attrs(id).With("acc", bir.String("ZeroAccumulate")).With("reduce_op", bir.String("max")))
			return must(t, b)
		}},
		{name: "partition-strided load after legalize_strided_dma", rule: "strided-load", msg: "source 0 (x): access pattern [[1,128],[512,64]] gives a partition more than one run of DRAM", stage: StageStridedLegal, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x := b.Input("x", f32, 64, 512)
			xs := b.SBUF("xs", f32, 128, 64)
			b.Load("ld", xs.All(), x.AP(0, [2]int64{1, 128}, [2]int64{512, 64}))
			return must(t, b)
		}},
		{name: "matmul bf16 destination on trn2", rule: "matmul-limits", msg: "want float32 (what the Tensor engine of trn2 writes), have bfloat16", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 128)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", bf16, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul M beyond the array", rule: "matmul-limits", msg: "M = 256 (stationary free size): want <= 128", also: []string{"tile-partitions"}, stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 128, 256)
			mv := b.SBUF("mv", bf16, 128, 512)
			ps := b.PSUM("ps", f32, 256, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "matmul K beyond the partitions", rule: "matmul-limits", msg: "K = 256 partitions: want <= 128", stage: StageTiled, also: []string{"tile-partitions"}, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 256, 128)
			mv := b.SBUF("mv", bf16, 256, 512)
			ps := b.PSUM("ps", f32, 128, 512)
			b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			return must(t, b)
		}},
		{name: "engine access over 512 partitions", rule: "tile-partitions", msg: "source 0 (xs) accesses 512 partitions: want at most 128 (pmax", stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			xs := b.SBUF("xs", f32, 512, 64)
			ys := b.SBUF("ys", f32, 512, 64)
			b.TensorCopy("cp", bir.EngDVE, ys.All(), xs.All())
			return must(t, b)
		}},
		{name: "PSUM access wider than a bank", rule: "psum-tile", msg: "destination 0 (p) accesses 4096 bytes per partition in PSUM: want at most 2048 (one PSUM bank", stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			p := b.PSUM("p", f32, 128, 1024)
			b.Memset("f", bir.EngDVE, p.All(), 0)
			return must(t, b)
		}},
		{name: "partition broadcast after tiling", rule: "partition-stride", msg: "partition step 0: want 64", stage: StageTiled, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			g := b.SBUF("g", f32, 1, 64)
			xs := b.SBUF("xs", f32, 128, 64)
			b.TensorTensor("mul", bir.EngDVE, "mult", xs.All(), xs.All(), g.AP(0, [2]int64{0, 128}, [2]int64{1, 64}))
			return must(t, b)
		}},
		{name: "invalid tile size", rule: "tile-size", msg: "tile at position 32 with size 64", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 32, 32)
			mv := b.SBUF("mv", bf16, 32, 512)
			ps := b.PSUM("ps", f32, 32, 512)
			i := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			b.F.SetAttr(i, "tile_position", bir.Ints(32, 0))
			b.F.SetAttr(i, "tile_size", bir.Ints(64, 128))
			return must(t, b)
		}},
		{name: "tile position without size", rule: "tile-size", msg: "want both set or both [-1, -1]", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 32, 32)
			mv := b.SBUF("mv", bf16, 32, 512)
			ps := b.PSUM("ps", f32, 32, 512)
			i := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			b.F.SetAttr(i, "tile_position", bir.Ints(0, 0))
			return must(t, b)
		}},
		{name: "operands larger than the tile", rule: "tile-size", msg: "K = 64, M = 32: want K <= 32", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 64, 32)
			mv := b.SBUF("mv", bf16, 64, 512)
			ps := b.PSUM("ps", f32, 32, 512)
			i := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			b.F.SetAttr(i, "tile_position", bir.Ints(0, 0))
			b.F.SetAttr(i, "tile_size", bir.Ints(32, 32))
			return must(t, b)
		}},

		// ---- semaphores ----
		{name: "three waits", rule: "semaphore", msg: msgTooManyWaits + " (" + msgSemaphoreLimit + "): want <= 2, have 3", build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			b.Inst(bir.OpEventSemaphore, "sem", bir.EngSP, nil, nil, bir.Attrs("waits", bir.List(semCmd(0, 1), semCmd(1, 1), semCmd(2, 1))))
			return must(t, b)
		}},
		{name: "two updates", rule: "semaphore", msg: msgTooManyUpdates, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			b.Inst(bir.OpEventSemaphore, "sem", bir.EngSP, nil, nil, bir.Attrs("updates", bir.List(semCmd(0, 1), semCmd(1, 1))))
			return must(t, b)
		}},

		// ---- indirect DMA ----
		{name: "indirect dims versus arguments", rule: "indirect-shape", msg: msgIndirectDims, build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpGenericIndirectLoad, "gl", bir.EngUnassigned, []bir.Operand{x.All(), idx.All()}, []bir.Operand{xs.All()}, bir.Attrs("indirect_dims", bir.Ints(0, 1)))
			return must(t, b)
		}},
		{name: "index AP not flattened", rule: "indirect-shape", msg: msgIndexFlattened, build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpGenericIndirectLoad, "gl", bir.EngUnassigned, []bir.Operand{x.All(), idx.All(), idx.All()}, []bir.Operand{xs.All()}, bir.Attrs("indirect_dims", bir.Ints(0, 1)))
			return must(t, b)
		}},
		{name: "index AP elements per partition", rule: "indirect-shape", msg: msgIndexPerPart + ": want 1, have 2", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			idx := b.SBUF("idx", i32, 128, 2)
			b.Inst(bir.OpGenericIndirectSave, "gs", bir.EngUnassigned, []bir.Operand{xs.All(), idx.All()}, []bir.Operand{x.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
			return must(t, b)
		}},
		{name: "index AP of three pairs", rule: "indirect-shape", msg: msgAddrAP2D + ": the IndexAP source 1 (idx) has 3 [step, num] pairs: want at most 2", build: func(t *testing.T) *bir.Module {
			// One element per partition, so only the pair count is wrong:
			// lower_generic_indirect rejects it (checkIndex).
			b, x, xs := base()
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpGenericIndirectLoad, "gl", bir.EngUnassigned, []bir.Operand{x.All(), idx.AP(0, [2]int64{1, 128}, [2]int64{1, 1}, [2]int64{1, 1})}, []bir.Operand{xs.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
			return must(t, b)
		}},
		// IndirectLoad ins [addr, index, offset?]; IndirectSave ins [src,
		// addr, index?] (interp/indirect.go).
		{name: "IndirectLoad address AP not 2-D", rule: "tensor-indirection", msg: msgAddrAP2D + ": want 2 [step, num] pairs, have 3 in source 0 (addr)", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			addr := b.SBUF("addr", bir.Int64, 128, 1)
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpIndirectLoad, "il", bir.EngUnassigned, []bir.Operand{addr.AP(0, [2]int64{1, 128}, [2]int64{1, 1}, [2]int64{1, 1}), idx.All()}, []bir.Operand{xs.All()}, nil)
			return must(t, b)
		}},
		{name: "IndirectSave address AP not 2-D", rule: "tensor-indirection", msg: msgAddrAP2D + ": want 2 [step, num] pairs, have 3 in source 1 (addr)", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			addr := b.SBUF("addr", bir.Int64, 128, 1)
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpIndirectSave, "is", bir.EngUnassigned, []bir.Operand{xs.All(), addr.AP(0, [2]int64{1, 128}, [2]int64{1, 1}, [2]int64{1, 1}), idx.All()}, []bir.Operand{x.All()}, nil)
			return must(t, b)
		}},
		{name: "IndirectLoad address tensor partition dim", rule: "tensor-indirection", msg: msgAddrPartitionDim + ": source 0 (addr) (the address AP): tensor addr_set has shape [64 2]", build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			addr := b.SBUF("addr", bir.Int64, 128, 1)
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpIndirectLoad, "il", bir.EngUnassigned, []bir.Operand{addr.All(), idx.All()}, []bir.Operand{xs.All()}, nil)
			b.F.Tensor(addr.ID).Shape = []int64{64, 2}
			return must(t, b)
		}},
		{name: "IndirectSave address tensor partition dim", rule: "tensor-indirection", msg: msgAddrPartitionDim + ": source 1 (addr) (the address AP): tensor addr_set has shape [64 2]", build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			addr := b.SBUF("addr", bir.Int64, 128, 1)
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpIndirectSave, "is", bir.EngUnassigned, []bir.Operand{xs.All(), addr.All(), idx.All()}, []bir.Operand{x.All()}, nil)
			b.F.Tensor(addr.ID).Shape = []int64{64, 2}
			return must(t, b)
		}},

		// ---- CCE ----
		{name: "CCE source dtype", rule: "cce-shape", msg: msgCCEDtype + ": source 1 (x): want float32 (the dtype of destination 0 (z)), have int32", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			b.CCECopy("cce", z.All(), []bir.Operand{x.All(), bir.As(x.All(), i32)}, []float64{1, 1})
			return must(t, b)
		}},
		{name: "CCE source shape", rule: "cce-shape", msg: msgCCEShape + ": source 0 (x): want [128 512] (the shape of destination 0 (z)), have [64 1024]", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			b.CCECopy("cce", z.All(), []bir.Operand{x.AP(0, [2]int64{512, 64}, [2]int64{1, 1024}), x.All()}, []float64{1, 1})
			return must(t, b)
		}},

		// ---- stage-gated ----
		{name: "loop after unrolling", rule: "unrolled", msg: "a loop remains", stage: StageUnrolled, build: func(t *testing.T) *bir.Module {
			m, _ := tiledAdd(t)
			return m
		}},
		{name: "symbolic AP after unrolling", rule: "unrolled", msg: "a symbolic access pattern remains", stage: StageUnrolled, build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			b.Load("ld", xs.All(), x.Sym(affine.Const(0), affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}))
			return must(t, b)
		}},
		{name: "predicate after unrolling", rule: "unrolled", msg: "a predicate remains", stage: StageUnrolled, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			i := b.Memset("f", bir.EngDVE, xs.All(), 0)
			b.F.SetPred(i, affine.GE(affine.Const(0), affine.Const(1)))
			return must(t, b)
		}},
		{name: "generic indirect after lowering", rule: "indirect-lowered", msg: "GenericIndirectLoad remains", stage: StageIndirectLowered, build: func(t *testing.T) *bir.Module {
			b, x, xs := base()
			idx := b.SBUF("idx", i32, 128, 1)
			b.Inst(bir.OpGenericIndirectLoad, "gl", bir.EngUnassigned, []bir.Operand{x.All(), idx.All()}, []bir.Operand{xs.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
			return must(t, b)
		}},
		{name: "CCE sources at stage cce-legal", rule: "cce-sources", msg: "17 arguments: want <= MaxCceDmaSource = 16", stage: StageCCELegal, build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			srcs := slices.Repeat([]bir.Operand{x.All()}, 17)
			b.CCECopy("cce", z.All(), srcs, slices.Repeat([]float64{1}, 17))
			return must(t, b)
		}},
		{name: "CCE sources by function attribute", rule: "cce-sources", msg: "function attribute stage_legalize_cce_dma_completed", build: func(t *testing.T) *bir.Module {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			b.CCECopy("cce", z.All(), []bir.Operand{x.All(), x.All(), x.All(), x.All()}, []float64{1, 1, 1, 1})
			b.M.Config.Options["arch.max-cce-dma-source"] = "3"
			b.F.AddAttribute(cceCompletedAttr)
			return must(t, b)
		}},
		{name: "SBUF bytes beyond usable", rule: "sb-fit", msg: "200000 bytes per partition: want <= 180224", stage: StageSBLegal, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn1")
			s := b.SBUF("s", f32, 128, 50000)
			b.Memset("f", bir.EngDVE, s.All(), 0)
			return must(t, b)
		}},
		{name: "PSUM bytes beyond 16 KiB", rule: "sb-fit", msg: "20480 PSUM bytes per partition: want <= 16384", also: []string{"free-size"}, stage: StageSBLegal, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			p := b.PSUM("p", f32, 128, 5120)
			b.Memset("f", bir.EngDVE, p.All(), 0)
			return must(t, b)
		}},
		{name: "partitions beyond the array", rule: "sb-fit", msg: "256 partitions: want <= 128", stage: StageSBLegal, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x := b.Input("x", f32, 256, 4)
			s := b.SBUF("s", f32, 256, 4)
			b.Load("ld", s.All(), x.All())
			return must(t, b)
		}},
		{name: "not allocated", rule: "allocated", msg: "SB location not allocated", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			l, _ := b.F.LocByName("xs")
			b.F.Loc(l).Allocated = false
			return m
		}},
		{name: "SBUF address beyond usable", rule: "allocated", msg: "want within the usable 212992 bytes of trn2", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			l, _ := b.F.LocByName("xs")
			b.F.Loc(l).Addr = 212000
			return m
		}},
		{name: "PSUM bank out of range", rule: "allocated", msg: "PSUM bank 9: want 0..7", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			l, _ := b.F.LocByName("ps")
			b.F.Loc(l).Bank = 9
			return m
		}},
		{name: "PSUM beyond 16 KiB", rule: "allocated", msg: "PSUM bytes [15360, 17408) of each partition", also: []string{"psum-bank"}, stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			l, _ := b.F.LocByName("ps")
			b.F.Loc(l).Bank, b.F.Loc(l).Addr = 7, 1024
			return m
		}},
		{name: "unplaced memory type", rule: "allocated", msg: "memory type Unallocated", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			l, _ := b.F.LocByName("xs")
			b.F.Loc(l).Type = bir.MemUnallocated
			return m
		}},
		{name: "location at an illegal base", rule: "partition-start", msg: "8 partitions placed at base partition 48: want base 0, 32, 64 or 96", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			s := b.SBUF("s", f32, 8, 512)
			alloc(b, s, 48, 0, 0)
			b.Memset("f", bir.EngDVE, s.All(), 0)
			return must(t, b)
		}},
		{name: "access at an illegal start", rule: "partition-start", msg: "invalid access of 8 partitions starting at partition 48: want start 0, 32, 64 or 96", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			b, _, xs := base()
			alloc(b, xs, 0, 0, 0)
			b.Memset("f", bir.EngDVE, xs.Tile(48, 8, 0, 512), 0)
			return must(t, b)
		}},
		{name: "PSUM access across banks", rule: "psum-bank", msg: "bytes [1024, 3071] of each partition span PSUM banks 0..1", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			p := b.PSUM("p", f32, 128, 1024)
			alloc(b, p, 0, 0, 0)
			b.Memset("f", bir.EngDVE, p.AP(256, [2]int64{1024, 128}, [2]int64{1, 512}), 0)
			return must(t, b)
		}},
		{name: "PSUM access wrapping partitions", rule: "psum-bank", msg: "the access wraps across partitions", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			x := b.Input("x", f32, 128, 512)
			p := b.PSUM("p", f32, 128, 512)
			alloc(b, p, 0, 0, 0)
			// A DMA may write PSUM with any pattern; this one runs 520
			// elements into each 512-element partition.
			b.Load("ld", p.AP(0, [2]int64{520, 64}, [2]int64{1, 520}), x.AP(0, [2]int64{520, 64}, [2]int64{1, 520}))
			return must(t, b)
		}},
		{name: "matmul tile position", rule: "tile-position", msg: "starts at partition 0: want tile_position column 64", stage: StageAllocated, build: func(t *testing.T) *bir.Module {
			_, b := newB("trn2")
			st := b.SBUF("st", bf16, 64, 64)
			mv := b.SBUF("mv", bf16, 64, 512)
			ps := b.PSUM("ps", f32, 64, 512)
			alloc(b, st, 0, 0, 0)
			alloc(b, mv, 0, 128, 0)
			alloc(b, ps, 0, 0, 0)
			i := b.Matmult("mm", ps.All(), st.All(), mv.All(), true, true)
			b.F.SetAttr(i, "tile_position", bir.Ints(0, 64))
			b.F.SetAttr(i, "tile_size", bir.Ints(64, 64))
			return must(t, b)
		}},
		{name: "unassigned engine", rule: "engine-assigned", msg: "engine Unassigned: want one of DVE, Pool", stage: StageEnginesAssigned, build: func(t *testing.T) *bir.Module {
			m, b := legal(t)
			b.F.Inst(inst(t, b.F, "add")).Engine = bir.EngUnassigned
			return m
		}},
	}
}

func TestRules(t *testing.T) {
	fired := map[string]bool{}
	for _, tc := range append(append(ruleCases(), scheduleRuleCases()...), isaRuleCases()...) {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			m := tc.build(t)
			opt := Options{Stage: tc.stage, InstNameTable: tc.instNames}
			if tc.arch != nil {
				opt.Arch = tc.arch()
			}
			err := Module(m, opt)
			ds := diags(t, err)
			if len(ds) == 0 {
				t.Fatalf("no diagnostics; want rule %s with %q", tc.rule, tc.msg)
			}
			found := false
			for _, d := range ds {
				if d.Rule != tc.rule && !slices.Contains(tc.also, d.Rule) {
					t.Errorf("unexpected diagnostic: %s", d)
				}
				if d.Rule == tc.rule && strings.Contains(d.Msg, tc.msg) {
					found = true
				}
				checkDiagForm(t, d)
			}
			if !found {
				t.Errorf("no %s diagnostic containing %q; have:", tc.rule, tc.msg)
				for _, d := range ds {
					t.Logf("  %s", d)
				}
			}
			if found {
				fired[tc.rule] = true
			}
		})
	}
	// Every rule of the package comment's table has a case that fires it.
	for _, r := range allRules {
		if !fired[r] {
			t.Errorf("rule %s never fired in TestRules", r)
		}
	}
}

// checkDiagForm checks the form every diagnostic must have: it says what
// was wanted and what was found ("want X, have Y", or "have" stated first),
// and names where: a function and, inside it, an instruction, tensor,
// location or block.
func checkDiagForm(t *testing.T, d Diag) {
	t.Helper()
	if !strings.Contains(d.Msg, "want") {
		t.Errorf("diagnostic does not say what is wanted: %s", d)
	}
	if d.Func == "" {
		return // module-level: the message names the function or arch
	}
	if d.Inst == "" && d.Op == "" && d.Tensor == "" && d.Loc == "" &&
		!strings.HasPrefix(d.Msg, "block ") && !strings.HasPrefix(d.Msg, "top-level block ") &&
		!strings.HasPrefix(d.Msg, "register names: ") {
		t.Errorf("diagnostic names no instruction, tensor, location or block: %s", d)
	}
}

// allRules lists every rule name the verifier emits (the package comment's
// table).
var allRules = []string{
	"module-arch", "ref", "name-unique", "tables", "block", "tensor", "loc", "loop", "sym-axis-unbound", "dep",
	"opcode", "arity", "engine", "dtype", "ap-shape", "ap-bounds", "elem-count", "attr",
	"onchip-operand", "gpsimd-psum", "customop-memory", "pe-memory", "dma-psum", "tt-psum",
	"engine-ap", "partition-stride", "matmul-limits", "tile-size", "semaphore", "indirect-shape",
	"tensor-indirection", "cce-shape", "unrolled", "indirect-lowered", "cce-sources", "sb-fit",
	"allocated", "partition-start", "psum-bank", "tile-position", "engine-assigned",
	"matmul-dtype", "free-size", "act-reduce", "strided-load", "tile-partitions", "psum-tile",
	"schedule", "scheduled", "operand-dtype", "nc-version",
}

// TestCheckCCEDMALegality_CountsArguments: seed 001's checkCCEDMALegality
// asserts "I.num_arguments() <= MaxCceDmaSource": MaxCceDmaSource sources
// with one scale each are legal, one more source is not.
func TestCheckCCEDMALegality_CountsArguments(t *testing.T) {
	for _, tc := range []struct {
		n         int
		withConst bool
		legal     bool
	}{
		{16, false, true},
		{16, true, true}, // 16 arguments + 16 constants
		{17, false, false},
		{17, true, false},
	} {
		t.Run(fmt.Sprint(tc.n, tc.withConst), func(t *testing.T) {
			b, x, _ := base()
			z := b.Output("z", f32, 128, 512)
			srcs := slices.Repeat([]bir.Operand{x.All()}, tc.n)
			if tc.withConst {
				b.CCECopy("cce", z.All(), srcs, slices.Repeat([]float64{0.5}, tc.n))
			} else {
				b.Inst(bir.OpDMACopy, "cce", bir.EngUnassigned, srcs, []bir.Operand{z.All()}, bir.Attrs("mode", "CCE"))
			}
			ds := diags(t, Module(must(t, b), Options{Stage: StageCCELegal}))
			if tc.legal && len(ds) != 0 {
				t.Fatalf("%d sources (constants %v) under MaxCceDmaSource 16: %v", tc.n, tc.withConst, ds)
			}
			if !tc.legal && (len(ds) != 1 || ds[0].Rule != "cce-sources") {
				t.Fatalf("%d sources: want one cce-sources diagnostic, have %v", tc.n, ds)
			}
		})
	}
}

// TestCheckTensorIndirection_AddressOperand: the 2-D rule applies to the
// address operand only, IndirectLoad's source 0 and IndirectSave's source
// 1; a 3-pair AP in any other source position is not reported.
func TestCheckTensorIndirection_AddressOperand(t *testing.T) {
	for _, tc := range []struct {
		op   bir.Opcode
		addr int // the address operand's position among the sources
	}{{bir.OpIndirectLoad, 0}, {bir.OpIndirectSave, 1}} {
		for k := 0; k < 3; k++ {
			b, x, xs := base()
			ap := [3]bir.T{b.SBUF("a0", bir.Int64, 128, 1), b.SBUF("a1", bir.Int64, 128, 1), b.SBUF("a2", bir.Int64, 128, 1)}
			var ins []bir.Operand
			for j, a := range ap {
				if j == k {
					ins = append(ins, a.AP(0, [2]int64{1, 128}, [2]int64{1, 1}, [2]int64{1, 1}))
				} else {
					ins = append(ins, a.All())
				}
			}
			out := xs.All()
			if tc.op == bir.OpIndirectSave {
				out = x.All()
			}
			b.Inst(tc.op, "ind", bir.EngUnassigned, ins, []bir.Operand{out}, nil)
			m := must(t, b)
			var got []Diag
			for _, d := range diags(t, Module(m, Options{})) {
				if d.Rule != "tensor-indirection" {
					t.Errorf("%s, 3-pair source %d: unexpected diagnostic %s", tc.op, k, d)
					continue
				}
				got = append(got, d)
			}
			if want := k == tc.addr; (len(got) > 0) != want {
				t.Errorf("%s, 3-pair source %d: %d tensor-indirection diagnostics %v, want them iff source %d (the address) is the 3-pair one", tc.op, k, len(got), got, tc.addr)
			}
			for _, d := range got {
				if want := fmt.Sprintf("source %d (a%d)", k, k); !strings.Contains(d.Msg, want) {
					t.Errorf("%s: diagnostic %q does not name %s", tc.op, d.Msg, want)
				}
			}
		}
	}
}

// TestCheckIndirectShape_IndexPairs: an IndexAP of one element per
// partition is accepted with one or two [step, num] pairs and rejected
// with three, as lower_generic_indirect's checkIndex does.
func TestCheckIndirectShape_IndexPairs(t *testing.T) {
	for _, tc := range []struct {
		pat  [][2]int64
		want bool // an indirect-shape diagnostic
	}{
		{[][2]int64{{1, 8}}, false},
		{[][2]int64{{1, 8}, {1, 1}}, false},
		{[][2]int64{{1, 8}, {1, 1}, {1, 1}}, true},
	} {
		_, b := newB("trn2")
		tab := b.Input("t", f32, 16, 4)
		it := b.SBUF("it", i32, 8, 1)
		g := b.SBUF("g", f32, 8, 4)
		b.Inst(bir.OpGenericIndirectLoad, "gather", bir.EngUnassigned, []bir.Operand{tab.AP(0, [2]int64{0, 8}, [2]int64{1, 4}), it.AP(0, tc.pat...)}, []bir.Operand{g.All()}, bir.Attrs("indirect_dims", bir.Ints(0)))
		m := must(t, b)
		ds := diags(t, Module(m, Options{}))
		got := false
		for _, d := range ds {
			if d.Rule == "indirect-shape" && strings.Contains(d.Msg, msgAddrAP2D) {
				got = true
			} else {
				t.Errorf("IndexAP %v: unexpected diagnostic %s", tc.pat, d)
			}
		}
		if got != tc.want {
			t.Errorf("IndexAP %v: %q diagnostic %v, want %v", tc.pat, msgAddrAP2D, got, tc.want)
		}
	}
}

// TestBranchTargets: branch targets resolve against every block of the
// function, later ones and loop bodies included; null or absent fields name
// no block. Only the dangling field of an instruction is reported, naming
// the instruction, the field and the missing block.
func TestBranchTargets(t *testing.T) {
	build := func(target, onTrue, onFalse bir.Value) *bir.Module {
		_, b := newB("trn2")
		xs := b.SBUF("xs", f32, 128, 4)
		b.Inst(bir.OpUnconditionalBranch, "br", bir.EngUnassigned, nil, nil, bir.Attrs("target", target))
		b.Inst(bir.OpCompareAndBranch, "cbr", bir.EngUnassigned, nil, nil, bir.Attrs("comp_op", "eq", "on_true", onTrue, "on_false", onFalse))
		b.Loop("i", 0, 2, 1, func(affine.Expr) { b.Memset("f", bir.EngDVE, xs.All(), 0) })
		b.F.NewBlock("Exit", bir.NoInst) // after the branches
		return must(t, b)
	}
	body := func() string { // the loop's body block, named by the builder
		m := build(bir.Null(), bir.Null(), bir.Null())
		f := m.Main()
		for k := 0; k < f.NumBlocks(); k++ {
			if blk := f.Block(bir.BlockID(k)); blk.Parent != bir.NoInst {
				return blk.Name
			}
		}
		t.Fatal("no loop body block")
		return ""
	}()
	s := bir.String
	for _, tc := range []struct {
		name                    string
		target, onTrue, onFalse bir.Value
		want                    string // "" for no diagnostic
	}{
		{"forward and backward", s("Exit"), s("Block1"), s("Exit"), ""},
		{"loop body", s(body), s(body), s("Block1"), ""},
		{"null targets", bir.Null(), bir.Null(), bir.Null(), ""},
		{"dangling target", s("NoSuchBlock"), s("Exit"), s("Exit"), `br (UnconditionalBranch): target: block "NoSuchBlock": want`},
		{"dangling on_true", s("Exit"), s("Exitt"), s("Exit"), `cbr (CompareAndBranch): on_true: block "Exitt": want`},
		{"empty on_false", s("Exit"), s("Exit"), s(""), `cbr (CompareAndBranch): on_false: block "": want`},
		{"non-string target", bir.Int(3), s("Exit"), s("Exit"), `br (UnconditionalBranch): target: want a block name (a string) or null, have 3`},
	} {
		ds := diags(t, Module(build(tc.target, tc.onTrue, tc.onFalse), Options{}))
		if tc.want == "" {
			for _, d := range ds {
				t.Errorf("%s: unexpected diagnostic %s", tc.name, d)
			}
			continue
		}
		if len(ds) != 1 || !strings.Contains(ds[0].String(), tc.want) {
			t.Errorf("%s: diagnostics %v, want one containing %q", tc.name, ds, tc.want)
		}
	}
}

// TestOptions_InstNameTable: the instruction-name table is compared only
// with Options.InstNameTable (it is costly; see the option).
func TestOptions_InstNameTable(t *testing.T) {
	b, _, xs := base()
	i := b.Memset("f", bir.EngDVE, xs.All(), 0)
	inst(t, b.F, "f") // builds the table
	b.F.Inst(i).Name = b.M.NewSym("g")
	m := must(t, b)
	if err := Module(m, Options{}); err != nil {
		t.Errorf("default options: %v, want the instruction-name table unchecked", err)
	}
	ds := diags(t, Module(m, Options{InstNameTable: true}))
	if len(ds) != 1 || ds[0].Rule != "tables" || ds[0].Inst != "g" || !strings.Contains(ds[0].Msg, `entry "f"`) {
		t.Errorf("with InstNameTable: %v, want one tables diagnostic on instruction g naming the stale entry f", ds)
	}
}

// TestPSUMBank_MatmulRowSpansBanks: on NC-v4 (N <= 4096 fp32) a matmul
// destination row of 1024 fp32 spans two PSUM banks legally; an engine
// access of the same bytes does not, nor does the matmul on NC-v3.
func TestPSUMBank_MatmulRowSpansBanks(t *testing.T) {
	build := func(archName string, matmul bool) *bir.Module {
		_, b := newB(archName)
		st := b.SBUF("st", bf16, 128, 128)
		mv := b.SBUF("mv", bf16, 128, 1024)
		p := b.PSUM("p", f32, 128, 1024)
		alloc(b, st, 0, 0, 0)
		alloc(b, mv, 0, 256, 0)
		alloc(b, p, 0, 0, 0)
		if matmul {
			b.Matmult("mm", p.All(), st.All(), mv.All(), true, true)
		} else {
			b.Memset("f", bir.EngDVE, p.All(), 0)
		}
		m := b.M
		if err := b.Err(); err != nil {
			t.Fatal(err)
		}
		return m
	}
	rules := func(m *bir.Module) []string {
		var out []string
		for _, d := range diags(t, Module(m, Options{Stage: StageAllocated | StageTiled})) {
			out = append(out, d.Rule)
		}
		return out
	}
	if got := rules(build("trn3", true)); len(got) != 0 {
		t.Errorf("trn3 matmul row of 2 banks: %v, want no diagnostic", got)
	}
	if got := rules(build("trn3", false)); !slices.Contains(got, "psum-bank") {
		t.Errorf("trn3 Memset across 2 banks: %v, want psum-bank", got)
	}
	if got := rules(build("trn2", true)); !slices.Contains(got, "psum-bank") || !slices.Contains(got, "matmul-limits") {
		t.Errorf("trn2 matmul row of 2 banks: %v, want psum-bank and matmul-limits", got)
	}
}

// sizeRules are the per-instruction size rules that hold only once no
// macro operation remains (StageTiled).
var sizeRules = []string{"tile-partitions", "free-size", "engine-ap", "partition-stride", "matmul-limits", "psum-tile"}

// TestRules_MacroOperationsBeforeTiling: every case of TestRules that a
// StageTiled size rule catches is a macro operation, which the verifier
// accepts before tiling (stage none) and rejects from StageTiled on with
// the message TestRules checks. The cases cover each size rule.
func TestRules_MacroOperationsBeforeTiling(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range ruleCases() {
		if tc.stage != StageTiled {
			continue
		}
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			opt := Options{}
			if tc.arch != nil {
				opt.Arch = tc.arch()
			}
			if err := Module(tc.build(t), opt); err != nil {
				t.Errorf("stage none: %v, want the macro operation accepted", err)
			}
			opt.Stage = StageTiled
			found := false
			for _, d := range diags(t, Module(tc.build(t), opt)) {
				found = found || d.Rule == tc.rule
			}
			if !found {
				t.Errorf("stage tiled: no %s diagnostic", tc.rule)
			}
			covered[tc.rule] = true
		})
	}
	for _, r := range sizeRules {
		if !covered[r] {
			t.Errorf("size rule %s has no StageTiled case", r)
		}
	}
}
