package bir

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// renderFunc renders f with every module-level id resolved, so that two
// functions of different modules can be compared.
func renderFunc(f *Function) string {
	m := f.Module()
	var sb strings.Builder
	fmt.Fprintf(&sb, "func %s kind=%v attrs=%v\n", f.Name, f.Kind, f.Attributes)
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(TensorID(t))
		fmt.Fprintf(&sb, "tensor %d %s %v %v %v %v locs=%v dead=%v\n", t, ts.Name, ts.Kind, ts.Class, ts.Dtype, ts.Shape, ts.Locs, ts.Dead)
	}
	for l := 0; l < f.NumLocs(); l++ {
		lc := f.Loc(LocID(l))
		fmt.Fprintf(&sb, "loc %d %s t=%d %v %dx%d addr=%d base=%d alloc=%v\n", l, lc.Name, lc.Tensor, lc.Type, lc.Partitions, lc.Bytes, lc.Addr, lc.Base, lc.Allocated)
	}
	axisName := func(a affine.Axis) string {
		info := m.Axis(a)
		return fmt.Sprintf("%s[%d,%d,%d]", info.Name, info.Lb, info.Ub, info.Stride)
	}
	f.Walk(func(i InstID) bool {
		in := f.Inst(i)
		fmt.Fprintf(&sb, "inst %d %s %s %v attrs=%s pred=%s block=%d", i, f.InstName(i), m.OpName(in.Op), in.Engine,
			f.Attrs(i).Key(), predString(m.Pred(in.Pred), axisName), in.Block)
		if in.Op.IsLoop() {
			li := f.Loop(i)
			fmt.Fprintf(&sb, " loop %s body=%v", axisName(li.Axis), li.Body)
		}
		for _, o := range f.Operands(i) {
			fmt.Fprintf(&sb, " [%v %v ref=%d pat=%v", o.Kind, o.Dtype, o.Ref, m.Pattern(o.Pattern))
			switch o.Kind {
			case OpdSymAP:
				fmt.Fprintf(&sb, " blk=%s off=%s", m.Expr(o.Expr).Format(axisName), m.Expr(o.OffsetExpr()).Format(axisName))
			case OpdPhysAP:
				fmt.Fprintf(&sb, " off=%d", o.Offset)
			case OpdImm:
				fmt.Fprintf(&sb, " imm=%v", o.ImmFloat())
			}
			fmt.Fprintf(&sb, " extra=%s]", m.Attrs(o.Extra).Key())
		}
		for _, d := range f.Deps(i) {
			ax := "-"
			if d.CarryAxis != NoAxis {
				ax = axisName(d.CarryAxis)
			}
			fmt.Fprintf(&sb, " dep(%d %v %s %d %s)", d.On, d.Kind, ax, d.CarryDist, predString(m.Pred(d.Pred), axisName))
		}
		sb.WriteString("\n")
		return true
	})
	return sb.String()
}

func predString(p affine.Pred, names affine.Names) string {
	if p.False {
		return "false"
	}
	var parts []string
	for _, c := range p.Cons {
		parts = append(parts, fmt.Sprintf("%s op%d", c.Expr.Format(names), c.Op))
	}
	return strings.Join(parts, " && ")
}

func TestCopyFunction(t *testing.T) {
	src := NewModule("trn2")
	b := NewBuilder(src, "kernel")
	x := b.Input("x", Float32, 256, 64)
	z := b.Output("z", Float32, 256, 64)
	s := b.BlockTensor("s", MemSB, Float32, 2, 128, 64)
	tile := [][2]int64{{64, 128}, {1, 64}}
	var load InstID
	b.Loop("i", 0, 2, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*64)
		load = b.Load("ld", s.Sym(i, affine.Const(0), tile...), x.Sym(affine.Const(0), off, tile...))
		add := b.TensorScalar("sc", EngAct, s.Sym(i, affine.Const(0), tile...), s.Sym(i, affine.Const(0), tile...), "mult", 2, "bypass", 0)
		st := b.Save("st", z.Sym(affine.Const(0), affine.FloorDiv(affine.Scale(off, 2), 2), tile...), s.Sym(i, affine.Const(0), tile...))
		b.F.AddDep(add, Dep{On: load, Kind: DepFlow, CarryAxis: NoAxis})
		b.F.AddDep(st, Dep{On: add, Kind: DepFlow, CarryAxis: b.F.Loop(b.F.Block(b.F.Inst(st).Block).Parent).Axis, CarryDist: 1,
			Pred: src.InternPred(affine.GE(i, affine.Const(1)))})
		b.F.SetPred(st, affine.LE(i, affine.Const(1)))
	})
	b.F.Kind = FuncNKI
	b.F.AddAttribute("need_unroll")
	unk := src.UnknownOpcode("FancyOp")
	id := b.F.NewInst(unk, "fancy", EngPool, []Operand{x.All()}, nil, Attrs("k", "v"))
	b.F.Append(b.F.Top[0], id)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}

	// The destination already holds other interned values, so ids differ.
	dst := NewModule("trn2")
	db := NewBuilder(dst, "main")
	db.Input("q", BFloat16, 3, 5)
	dst.InternPattern(Pattern{{7, 7}})
	dst.InternAttrs(Attrs("other", 1))
	dst.NewAxis(AxisInfo{Name: "zz", Ub: 3, Stride: 1})
	dst.UnknownOpcode("OtherOp")

	cp, err := CopyFunction(dst, b.F, "kernel_copy")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(renderFunc(b.F), "func kernel ", "func kernel_copy ", 1)
	if have := renderFunc(cp); have != want {
		t.Errorf("copy differs\nhave:\n%s\nwant:\n%s", have, want)
	}
	if cp.Module() != dst || dst.Func("kernel_copy") != cp {
		t.Error("copy not registered in the destination module")
	}
	if li := cp.Loop(cp.Block(cp.Top[0]).Insts[0]); dst.Axis(li.Axis).Loop != cp.Block(cp.Top[0]).Insts[0] || dst.Axis(li.Axis).Func != int32(cp.Index()) {
		t.Error("copied loop axis does not point at the copy's loop")
	}
	if _, ok := cp.TensorByName("s_set"); !ok {
		t.Error("tensor name table not rebuilt")
	}
	if _, ok := cp.LocByName("x"); !ok {
		t.Error("location name table not rebuilt")
	}
	if _, err := CopyFunction(dst, b.F, "main"); err == nil {
		t.Error("copy onto an existing name succeeded")
	}
}
