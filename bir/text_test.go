// Tests of the text form (print.go, parse.go): golden files, round trips
// over modules built with the Builder, by hand (every field of the IR) and
// by GenStraightLine, structural equality of the parsed module with the
// printed one, determinism, error messages, a fuzz target, and the 1M
// instruction benchmarks.
//
// Golden files: testdata/text/NAME.bir is parsed and printed; the output
// must equal testdata/text/NAME.golden (regenerate with
// go test ./bir -run Golden -update) and must itself parse and print to
// the same text.
package bir

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// The -update flag rewrites the golden files. It is registered here unless
// another test file of the package already did, and read through the flag
// table, so that two golden-file tests of package bir can share it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files of testdata/")
	}
}

func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// textRoundTrip prints m, parses the text, prints again and checks the texts
// are equal; it returns the text and the parsed module.
func textRoundTrip(t testing.TB, m *Module) (string, *Module) {
	t.Helper()
	s1 := Format(m)
	var buf bytes.Buffer
	if err := Print(&buf, m); err != nil {
		t.Fatalf("Print: %v", err)
	}
	if buf.String() != s1 {
		t.Fatalf("Print and Format differ")
	}
	m2, err := Parse("roundtrip.bir", []byte(s1))
	if err != nil {
		t.Fatalf("Parse of printed module: %v\n%s", err, s1)
	}
	s2 := Format(m2)
	if s1 != s2 {
		t.Fatalf("print(parse(print(m))) != print(m):\n%s", textLineDiff(s1, s2))
	}
	return s1, m2
}

// textLineDiff shows the first differing line of two texts.
func textLineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  want %q\n  have %q", i+1, x, y)
		}
	}
	return "(equal)"
}

// ---- structural comparison ----

// textCmp reports the first difference between two modules' content:
// names instead of ids, axes matched by position (loops) or by content
// (module-level axes).
type textCmp struct {
	a, b *Module
	ax   map[affine.Axis]affine.Axis
	errs []string
}

func (c *textCmp) errorf(format string, args ...any) {
	if len(c.errs) < 20 {
		c.errs = append(c.errs, fmt.Sprintf(format, args...))
	}
}

func textEqualModules(a, b *Module) []string {
	c := &textCmp{a: a, b: b, ax: map[affine.Axis]affine.Axis{}}
	c.module()
	return c.errs
}

func (c *textCmp) module() {
	a, b := c.a, c.b
	if a.Version != b.Version || a.Arch != b.Arch || a.HasCoreID != b.HasCoreID || a.ArtifactDir != b.ArtifactDir {
		c.errorf("module header: %d %q %v %q vs %d %q %v %q", a.Version, a.Arch, a.HasCoreID, a.ArtifactDir, b.Version, b.Arch, b.HasCoreID, b.ArtifactDir)
	}
	if a.HasCoreID && a.NeuronCoreID != b.NeuronCoreID {
		c.errorf("core id %d vs %d", a.NeuronCoreID, b.NeuronCoreID)
	}
	if a.Config.MaxInstructionLimit != b.Config.MaxInstructionLimit || fmt.Sprint(a.Config.Options) != fmt.Sprint(b.Config.Options) {
		c.errorf("config %v vs %v", a.Config, b.Config)
	}
	if a.ModuleAttrs.Key() != b.ModuleAttrs.Key() || a.Extra.Key() != b.Extra.Key() {
		c.errorf("module attrs/extra differ")
	}
	if len(a.Funcs) != len(b.Funcs) {
		c.errorf("%d functions vs %d", len(a.Funcs), len(b.Funcs))
		return
	}
	// Loop axes first (by position), then the other axes by content.
	for k := range a.Funcs {
		c.mapLoops(a.Funcs[k], b.Funcs[k])
	}
	for k := range a.Funcs {
		c.function(a.Funcs[k], b.Funcs[k])
	}
}

func (c *textCmp) mapLoops(fa, fb *Function) {
	var la, lb []affine.Axis
	fa.Walk(func(i InstID) bool {
		if fa.insts[i].Op.IsLoop() && fa.insts[i].Aux >= 0 {
			la = append(la, fa.Loop(i).Axis)
		}
		return true
	})
	fb.Walk(func(i InstID) bool {
		if fb.insts[i].Op.IsLoop() && fb.insts[i].Aux >= 0 {
			lb = append(lb, fb.Loop(i).Axis)
		}
		return true
	})
	if len(la) != len(lb) {
		c.errorf("function %s: %d loops vs %d", fa.Name, len(la), len(lb))
		return
	}
	for k := range la {
		if _, ok := c.ax[la[k]]; !ok {
			c.ax[la[k]] = lb[k]
		}
		c.axisInfo(la[k], lb[k], true)
	}
}

func (c *textCmp) axisInfo(x, y affine.Axis, loop bool) {
	p, q := c.a.Axis(x), c.b.Axis(y)
	if p.Name != q.Name || p.Lb != q.Lb || p.Ub != q.Ub || p.Stride != q.Stride || p.Extra.Key() != q.Extra.Key() {
		c.errorf("axis %s: %+v vs %+v", p.Name, *p, *q)
	}
	if !loop && p.Func != q.Func {
		c.errorf("free axis %s: func %d vs %d", p.Name, p.Func, q.Func)
	}
}

// axis maps an axis of a to b: loops by position, others by content.
func (c *textCmp) axis(x affine.Axis) affine.Axis {
	if y, ok := c.ax[x]; ok {
		return y
	}
	p := c.a.Axis(x)
	for y := 0; y < c.b.NumAxes(); y++ {
		q := c.b.Axis(affine.Axis(y))
		if q.Loop == NoInst && q.Name == p.Name && q.Lb == p.Lb && q.Ub == p.Ub && q.Stride == p.Stride && q.Extra.Key() == p.Extra.Key() {
			c.ax[x] = affine.Axis(y)
			return affine.Axis(y)
		}
	}
	c.errorf("axis %s has no counterpart", p.Name)
	return -1
}

func (c *textCmp) mapExpr(e affine.Expr) affine.Expr {
	acc := affine.Const(e.Const)
	for _, t := range e.Terms {
		var x affine.Expr
		switch t.Atom.Kind {
		case affine.AtomAxis:
			x = affine.Var(c.axis(t.Atom.Axis))
		case affine.AtomFloorDiv:
			x = affine.FloorDiv(c.mapExpr(*t.Atom.Sub), t.Atom.Div)
		default:
			x = affine.Mod(c.mapExpr(*t.Atom.Sub), t.Atom.Div)
		}
		acc = affine.Add(acc, affine.Scale(x, t.Coeff))
	}
	return acc
}

func (c *textCmp) exprEq(where string, x, y ExprID) {
	if !affine.Equal(c.mapExpr(c.a.Expr(x)), c.b.Expr(y)) {
		c.errorf("%s: expression %s vs %s", where, c.a.Expr(x), c.b.Expr(y))
	}
}

func (c *textCmp) predEq(where string, x, y PredID) {
	p := c.a.Pred(x)
	cons := make([]affine.Constraint, len(p.Cons))
	for k, q := range p.Cons {
		cons[k] = affine.Constraint{Expr: c.mapExpr(q.Expr), Op: q.Op}
	}
	mp := affine.And(affine.Pred{Cons: cons, False: p.False})
	if p.False {
		mp = affine.Pred{False: true}
	}
	if mp.Key() != c.b.Pred(y).Key() {
		c.errorf("%s: predicate %s vs %s", where, p, c.b.Pred(y))
	}
}

func textLiveTensors(f *Function) []TensorID {
	var out []TensorID
	for t := range f.tensors {
		if !f.tensors[t].Dead {
			out = append(out, TensorID(t))
		}
	}
	return out
}

func (c *textCmp) function(fa, fb *Function) {
	if fa.Name != fb.Name || fa.Kind != fb.Kind || fmt.Sprint(fa.Attributes) != fmt.Sprint(fb.Attributes) || fa.Extra.Key() != fb.Extra.Key() {
		c.errorf("function %s header differs from %s", fa.Name, fb.Name)
	}
	ta, tb := textLiveTensors(fa), textLiveTensors(fb)
	if len(ta) != len(tb) {
		c.errorf("function %s: %d tensors vs %d", fa.Name, len(ta), len(tb))
		return
	}
	for k := range ta {
		x, y := *fa.Tensor(ta[k]), *fb.Tensor(tb[k])
		xl, yl := x.Locs, y.Locs
		x.Locs, y.Locs = nil, nil
		x.Extra, y.Extra = nil, nil
		if fmt.Sprintf("%+v", x) != fmt.Sprintf("%+v", y) || fa.Tensor(ta[k]).Extra.Key() != fb.Tensor(tb[k]).Extra.Key() {
			c.errorf("tensor %s: %+v vs %+v", x.Name, x, y)
		}
		if len(xl) != len(yl) {
			c.errorf("tensor %s: %d locations vs %d", x.Name, len(xl), len(yl))
			continue
		}
		for j := range xl {
			p, q := *fa.Loc(xl[j]), *fb.Loc(yl[j])
			pe, qe := p.Extra.Key(), q.Extra.Key()
			p.Tensor, q.Tensor, p.Extra, q.Extra = 0, 0, nil, nil
			if fmt.Sprintf("%+v", p) != fmt.Sprintf("%+v", q) || pe != qe {
				c.errorf("location %s: %+v vs %+v", p.Name, p, q)
			}
		}
	}
	if fa.NumRegs() != fb.NumRegs() {
		c.errorf("function %s: %d registers vs %d", fa.Name, fa.NumRegs(), fb.NumRegs())
	}
	for r := 0; r < min(fa.NumRegs(), fb.NumRegs()); r++ {
		if fa.Reg(RegID(r)).Name != fb.Reg(RegID(r)).Name {
			c.errorf("register %d: %q vs %q", r, fa.Reg(RegID(r)).Name, fb.Reg(RegID(r)).Name)
		}
	}
	if len(fa.Top) != len(fb.Top) {
		c.errorf("function %s: %d top blocks vs %d", fa.Name, len(fa.Top), len(fb.Top))
		return
	}
	// Instructions in program order, matched by position.
	var ia, ib []InstID
	fa.Walk(func(i InstID) bool { ia = append(ia, i); return true })
	fb.Walk(func(i InstID) bool { ib = append(ib, i); return true })
	if len(ia) != len(ib) {
		c.errorf("function %s: %d instructions vs %d", fa.Name, len(ia), len(ib))
		return
	}
	posA := map[InstID]int{}
	for k, i := range ia {
		posA[i] = k
	}
	posB := map[InstID]int{}
	for k, i := range ib {
		posB[i] = k
	}
	for k := range ia {
		c.inst(fa, fb, ia[k], ib[k], posA, posB)
	}
	for k := range fa.Top {
		c.block(fa, fb, fa.Top[k], fb.Top[k])
	}
}

func (c *textCmp) block(fa, fb *Function, x, y BlockID) {
	p, q := fa.Block(x), fb.Block(y)
	if p.Name != q.Name || p.Extra.Key() != q.Extra.Key() || len(p.Insts) != len(q.Insts) {
		c.errorf("block %q vs %q", p.Name, q.Name)
		return
	}
	for k := range p.Insts {
		i, j := p.Insts[k], q.Insts[k]
		if fa.insts[i].Op.IsLoop() && fa.insts[i].Aux >= 0 {
			ba, bb := fa.Loop(i).Body, fb.Loop(j).Body
			if len(ba) != len(bb) {
				c.errorf("loop %s: %d body blocks vs %d", fa.InstName(i), len(ba), len(bb))
				continue
			}
			for n := range ba {
				c.block(fa, fb, ba[n], bb[n])
			}
		}
	}
}

func (c *textCmp) inst(fa, fb *Function, i, j InstID, posA, posB map[InstID]int) {
	x, y := fa.Inst(i), fb.Inst(j)
	where := fmt.Sprintf("function %s, instruction %q", fa.Name, fa.InstName(i))
	if fa.InstName(i) != fb.InstName(j) || fa.OpName(i) != fb.OpName(j) || x.Engine != y.Engine {
		c.errorf("%s: %q %s %s vs %q %s %s", where, fa.InstName(i), fa.OpName(i), x.Engine, fb.InstName(j), fb.OpName(j), y.Engine)
	}
	if c.a.Attrs(x.Attrs).Key() != c.b.Attrs(y.Attrs).Key() {
		c.errorf("%s: attrs %s vs %s", where, c.a.Attrs(x.Attrs).Key(), c.b.Attrs(y.Attrs).Key())
	}
	c.predEq(where, x.Pred, y.Pred)
	if x.NIns != y.NIns || x.NOuts != y.NOuts {
		c.errorf("%s: %d/%d operands vs %d/%d", where, x.NIns, x.NOuts, y.NIns, y.NOuts)
		return
	}
	oa, ob := fa.Operands(i), fb.Operands(j)
	for k := range oa {
		c.operand(fmt.Sprintf("%s, operand %d", where, k), fa, fb, &oa[k], &ob[k])
	}
	da, db := fa.Deps(i), fb.Deps(j)
	if len(da) != len(db) {
		c.errorf("%s: %d deps vs %d", where, len(da), len(db))
		return
	}
	for k := range da {
		p, q := da[k], db[k]
		pa, oka := posA[p.On]
		pb, okb := posB[q.On]
		if p.Kind != q.Kind || p.CarryDist != q.CarryDist || oka != okb || pa != pb || fa.InstName(p.On) != fb.InstName(q.On) {
			c.errorf("%s: dep %d: %+v vs %+v", where, k, p, q)
		}
		if (p.CarryAxis == NoAxis) != (q.CarryAxis == NoAxis) || p.CarryAxis != NoAxis && c.axis(p.CarryAxis) != q.CarryAxis {
			c.errorf("%s: dep %d carry axis differs", where, k)
		}
		c.predEq(where, p.Pred, q.Pred)
	}
}

func (c *textCmp) operand(where string, fa, fb *Function, p, q *Operand) {
	if p.Kind != q.Kind || p.Dtype != q.Dtype || p.Flags != q.Flags || c.a.Attrs(p.Extra).Key() != c.b.Attrs(q.Extra).Key() {
		c.errorf("%s: %+v vs %+v", where, *p, *q)
		return
	}
	switch p.Kind {
	case OpdPhysAP:
		if fa.Loc(p.Loc()).Name != fb.Loc(q.Loc()).Name || fa.Loc(p.Loc()).Dead != fb.Loc(q.Loc()).Dead || p.Offset != q.Offset || fmt.Sprint(c.a.Pattern(p.Pattern)) != fmt.Sprint(c.b.Pattern(q.Pattern)) {
			c.errorf("%s: physical AP differs", where)
		}
	case OpdSymAP:
		if fa.Tensor(p.TensorRef()).Name != fb.Tensor(q.TensorRef()).Name || fmt.Sprint(c.a.Pattern(p.Pattern)) != fmt.Sprint(c.b.Pattern(q.Pattern)) {
			c.errorf("%s: symbolic AP differs", where)
		}
		c.exprEq(where+" block", p.Expr, q.Expr)
		c.exprEq(where+" offset", p.OffsetExpr(), q.OffsetExpr())
	case OpdRegAP:
		if fa.Tensor(p.TensorRef()).Name != fb.Tensor(q.TensorRef()).Name || fa.Reg(RegID(p.Expr)).Name != fb.Reg(RegID(q.Expr)).Name || fmt.Sprint(c.a.Pattern(p.Pattern)) != fmt.Sprint(c.b.Pattern(q.Pattern)) {
			c.errorf("%s: register AP differs", where)
		}
	case OpdRegister:
		if fa.Reg(RegID(p.Ref)).Name != fb.Reg(RegID(q.Ref)).Name {
			c.errorf("%s: register differs", where)
		}
	case OpdImm:
		if p.Offset != q.Offset {
			c.errorf("%s: immediate bits %x vs %x", where, p.Offset, q.Offset)
		}
	case OpdImmArray:
		if c.a.Attrs(AttrID(p.Ref)).Key() != c.b.Attrs(AttrID(q.Ref)).Key() {
			c.errorf("%s: immediate array differs", where)
		}
	case OpdSymImm:
		if c.a.Attrs(AttrID(p.Ref)).Key() != c.b.Attrs(AttrID(q.Ref)).Key() {
			c.errorf("%s: symbolic immediate values differ", where)
		}
		c.exprEq(where, p.Expr, q.Expr)
	}
}

// ---- modules ----

// textTensorAddModule is the tensor_add kernel of docs/text-format.md: a loop
// over 4 row tiles of a [512 x 2048] fp32 add through SBUF.
func textTensorAddModule(t testing.TB) *Module {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	x := b.Input("x", Float32, 512, 2048)
	y := b.Input("y", Float32, 512, 2048)
	z := b.Output("z", Float32, 512, 2048)
	xs := b.SBUF("xs", Float32, 128, 2048)
	ys := b.SBUF("ys", Float32, 128, 2048)
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*2048)
		b.Load("ld_x", xs.All(), x.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.Load("ld_y", ys.All(), y.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}))
		b.TensorTensor("add", EngDVE, "add", xs.All(), xs.All(), ys.All())
		b.Save("st", z.Sym(affine.Const(0), off, [2]int64{2048, 128}, [2]int64{1, 2048}), xs.All())
	})
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// textRichModule sets every field of the IR that the text form carries, with
// the awkward values: names that need quoting, NaN payloads, -0.0,
// infinities, out-of-range enums, shadowed axes, dependencies on
// instructions sharing a name, dangling references.
func textRichModule(t testing.TB) *Module {
	m := NewModule("trn2")
	m.Version = 3
	m.HasCoreID, m.NeuronCoreID = true, 1
	m.ArtifactDir = "/tmp/art dir"
	m.Config.MaxInstructionLimit = 25000000
	m.Config.Options["gen-stride-dma"] = "true"
	m.Config.Options["weird key"] = "x\ny\"z"
	payloadNaN := math.Float64frombits(0x7ff8000000000123)
	m.ModuleAttrs = Attrs("foo", 1, "neg", Float(math.Copysign(0, -1)))
	m.Extra = AttrSet{
		{"nan", Float(math.NaN())}, {"s", String("nan")}, {"pnan", Float(payloadNaN)},
		{"inf", Float(math.Inf(1))}, {"ninf", Float(math.Inf(-1))}, {"sinf", String("-inf")},
		{"list", List(Null(), Bool(false), Bool(true), Int(-7), Float(1), Float(1e300), Float(5e-324), String(""))},
		{"obj", Object(Field{"a b", Int(1)}, Field{"", List()}, Field{"nested", Object()})},
		{"utf8", String("λ→\x01\x7f\xff")},
	}
	free := m.NewAxis(AxisInfo{Name: "n", Lb: 0, Ub: 16, Stride: 2, Loop: NoInst, Func: 0, Extra: Attrs("k", "v")})
	m.NewAxis(AxisInfo{Name: "unused free", Lb: -3, Ub: 3, Stride: 1, Loop: NoInst, Func: -1})

	f, _ := m.NewFunction("main")
	f.Kind = FuncNKI
	f.Attributes = []string{"need_unroll", "stage x completed"}
	f.Extra = Attrs("fx", List(Int(1)))

	in, _ := f.AddTensor(Tensor{Name: "in_set", Kind: KindInput, Dtype: Float32, Shape: []int64{512, 2048}})
	inLoc, _ := f.AddLoc(in, MemLoc{Name: "in", Type: MemInput, Partitions: 512, Bytes: 8192})
	blk, _ := f.AddTensor(Tensor{Name: "w set", Kind: KindInternal, Class: ClassNeuronBlockTensor, AddrSpace: AddrLocal,
		Dtype: BFloat16, PartitionDim: 1, Shape: []int64{4, 128, 512}, File: "w.npy", NoSpill: true, Volatile: true, Virtual: true,
		IsBlock: true, NBlocks: 4, SplitShape: []bool{false, true, false}, ShrinkDim: 0, LiveN: 2, Extra: Attrs("e", true)})
	var subs []LocID
	for k := 0; k < 4; k++ {
		l, _ := f.AddLoc(blk, MemLoc{Name: fmt.Sprintf("w_sub%d", k), Type: MemSB, Partitions: 128, Bytes: 1024, TensorIdx: int64(k)})
		subs = append(subs, l)
	}
	*f.Loc(subs[1]) = MemLoc{Name: "w_sub1", Tensor: blk, Type: MemSB, Partitions: 128, Bytes: 1024, RawDims: []int64{128, 512, 2},
		Addr: 4096, Bank: 3, Base: 32, Allocated: true, Pinned: true, TensorIdx: 7, OutputKind: 7, Extra: Attrs("x", nil)}
	odd, _ := f.AddTensor(Tensor{Name: "odd", Kind: TensorKind(40), Class: TensorClass(77), AddrSpace: AddrSpace(9), Dtype: Dtype(30), NBlocks: 3})
	f.AddLoc(odd, MemLoc{Name: "odd", Type: MemoryType(50), Partitions: -1, Bytes: 0, RawDims: []int64{}})
	cst, _ := f.AddTensor(Tensor{Name: "c", Kind: KindConst, Class: ClassConst, AddrSpace: AddrNone, Dtype: Int8, SplitShape: []bool{}, ShrinkDim: 2})
	cLoc, _ := f.AddLoc(cst, MemLoc{Name: "c", Type: MemDRAM, Partitions: 1, Bytes: 16})
	gone, _ := f.AddTensor(Tensor{Name: "gone", Dtype: Float32, Shape: []int64{128, 4}})
	goneLoc, _ := f.AddLoc(gone, MemLoc{Name: "gone", Type: MemSB, Partitions: 128, Bytes: 16})
	r0 := f.RegByName("r0")
	rq := f.RegByName("weird reg")

	pat := m.InternPattern(Pattern{{512, 128}, {1, 512}})
	pat6 := m.InternPattern(Pattern{{1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}, {-1, 2}})
	top := f.NewBlock("Block1", NoInst)
	f.Block(top).Extra = Attrs("blk", 1)

	add := func(b BlockID, op Opcode, name string, eng Engine, ins, outs []Operand, attrs AttrSet) InstID {
		i := f.NewInst(op, name, eng, ins, outs, attrs)
		f.Append(b, i)
		return i
	}
	first := add(top, OpLoad, "ld", EngUnassigned, []Operand{PhysAP(inLoc, Float32, 512, pat)}, []Operand{PhysAP(subs[0], Float32, 0, pat)}, nil)
	li, ai := f.NewLoop(OpLoop, "loop i", "i", 0, 4, 1)
	f.Append(top, li)
	bi := f.NewBlock("Block_i", li)
	bi2 := f.NewBlock("Block_i second", li)
	i := affine.Var(ai)
	// A nested loop that shadows i.
	lj, aj := f.NewLoop(OpLoop, "loop_j", "i", 0, 8, 2)
	f.Append(bi, lj)
	m.Axis(aj).Extra = Attrs("unroll", 2)
	bj := f.NewBlock("Block_j", lj)
	j := affine.Var(aj)
	blockExpr := affine.Add(affine.Mod(affine.AddConst(i, 1), 4), affine.Scale(affine.FloorDiv(j, 2), 3))
	offExpr := affine.Add(affine.Scale(j, 128), affine.Scale(affine.Var(free), -1))
	sym := SymAP(blk, BFloat16, m.InternExpr(blockExpr), m.InternExpr(offExpr), pat)
	regAP := Operand{Kind: OpdRegAP, Ref: int32(blk), Expr: ExprID(rq), Pattern: pat, Dtype: BFloat16, Extra: m.InternAttrs(Attrs("reg_ap_offset", "r0"))}
	arr := Operand{Kind: OpdImmArray, Ref: int32(m.InternAttrs(AttrSet{{"value_array", List(Int(1), Float(2.5), Float(math.NaN()))}})), Dtype: Float32}
	arrOdd := Operand{Kind: OpdImmArray, Ref: int32(m.InternAttrs(Attrs("value_array", 3, "extra", true))), Dtype: Float32}
	symImm := Operand{Kind: OpdSymImm, Ref: int32(m.InternAttrs(AttrSet{{"value_list", List(Object(Field{"value", Int(1)}))}})), Expr: m.InternExpr(affine.AddConst(j, -1)), Dtype: Int32}
	symImmOdd := Operand{Kind: OpdSymImm, Expr: m.InternExpr(affine.Scale(i, math.MinInt64)), Dtype: Int32}
	flagged := PhysAP(subs[2], BFloat16, 0, pat6)
	flagged.Flags = 0x84
	immF := ImmF(payloadNaN, Float32)
	immF.Flags |= 0x10
	ops := []Operand{sym, regAP, RegOpd(r0, Int32), ImmI(-3, Int32), ImmF(math.Inf(-1), Float32), immF, ImmF(math.Copysign(0, -1), Float16),
		arr, arrOdd, symImm, symImmOdd, flagged, PhysAP(cLoc, Dtype(99), 0, 0)}
	act := add(bj, OpActivation, "act", EngAct, ops, []Operand{PhysAP(subs[3], BFloat16, 7, pat)},
		Attrs("func", "Exp", "scale", Float(1), "alpha", Float(math.NaN()), "acc", "Idle"))
	f.SetPred(act, affine.And(affine.GE(i, affine.Const(1)), affine.LT(j, affine.Const(6)), affine.NE(affine.Var(free), affine.Const(3))))
	dup1 := add(bj, OpTensorCopy, "cp", Engine(12), []Operand{PhysAP(subs[3], BFloat16, 0, pat)}, []Operand{PhysAP(subs[2], BFloat16, 0, pat)}, nil)
	dup2 := add(bi2, OpTensorCopy, "cp", EngPool, []Operand{PhysAP(subs[2], BFloat16, 0, pat)}, []Operand{PhysAP(subs[3], BFloat16, 0, pat)}, nil)
	f.SetPred(dup2, affine.Pred{False: true})
	// The outer i, referenced under the shadowing inner loop: needs a label.
	f.AddDep(act, Dep{On: first, Kind: DepFlow, CarryAxis: NoAxis})
	f.AddDep(act, Dep{On: act, Kind: DepAnti, CarryAxis: ai, CarryDist: 1, Pred: m.InternPred(affine.GE(i, affine.Const(1)))})
	f.AddDep(dup1, Dep{On: dup2, Kind: DepOutput, CarryAxis: aj, CarryDist: -2})
	f.AddDep(dup2, Dep{On: dup1, Kind: DepKind(9), CarryAxis: NoAxis, CarryDist: 5})
	f.AddDep(dup2, Dep{On: dup2, Kind: DepOrdered, CarryAxis: NoAxis, Pred: m.InternPred(affine.EQ(affine.Mod(i, 2), affine.Const(0)))})
	// Names that need quoting; an unknown opcode with every value kind.
	unk := add(top, m.UnknownOpcode("Fancy Op"), "", EngDVE, nil, []Operand{PhysAP(cLoc, Int8, 0, 0)}, AttrSet{
		{"null", Null()}, {"t", Bool(true)}, {"i", Int(math.MinInt64)}, {"f", Float(0.1)}, {"nan", Float(math.NaN())},
		{"str", String("a \"q\" \\ \t")}, {"l", List(List(), Object())}, {"o", Object(Field{"k", Float(math.Inf(1))})},
	})
	_ = unk
	add(top, m.UnknownOpcode("MyOp"), "λ name", EngUnassigned, nil, nil, Attrs("n", Float(-1.5e-7)))
	// DynamicForLoop with a register operand and DoWhile with an empty body.
	dl, _ := f.NewLoop(OpDynamicForLoop, "dyn", "k", 0, 100, 3)
	f.SetArgs(dl, []Operand{RegOpd(r0, Int32)}, nil)
	f.Append(top, dl)
	bd := f.NewBlock("Block_k", dl)
	add(bd, OpNoOp, "nop", EngSP, nil, nil, nil)
	dw, _ := f.NewLoop(OpDoWhile, "dw", "on", 0, 1, 1)
	f.Append(top, dw)
	// A loop opcode without a loop table entry.
	add(top, OpLoop, "bare loop", EngUnassigned, nil, nil, nil)
	// Dangling references: a removed tensor and a removed instruction.
	useGone := add(top, OpTensorCopy, "use_gone", EngDVE, []Operand{PhysAP(goneLoc, Float32, 0, pat), SymAP(gone, Float32, 0, 0, 0)}, []Operand{PhysAP(subs[0], Float32, 0, pat)}, nil)
	rm := add(top, OpNoOp, "removed", EngUnassigned, nil, nil, nil)
	f.AddDep(useGone, Dep{On: rm, Kind: DepFlow, CarryAxis: NoAxis})
	f.Remove(rm)
	f.RemoveTensor(gone)

	// A second function: its own loop i, and a reference to main's loop j
	// (an axis used outside its loop: labelled).
	g, _ := m.NewFunction("helper fn")
	gb := g.NewBlock("entry", NoInst)
	gt, _ := g.AddTensor(Tensor{Name: "t", Dtype: Float32, Shape: []int64{8}})
	g.AddLoc(gt, MemLoc{Name: "t", Type: MemDRAM, Partitions: 8, Bytes: 4})
	gl, gi := g.NewLoop(OpLoop, "gl", "i", 0, 2, 1)
	g.Append(gb, gl)
	gbb := g.NewBlock("body", gl)
	x := g.NewInst(OpTensorCopy, "x", EngDVE, []Operand{SymAP(gt, Float32, 0, m.InternExpr(affine.Add(affine.Var(gi), j)), 0)}, []Operand{SymAP(gt, Float32, 0, 0, 0)}, nil)
	g.Append(gbb, x)
	return m
}

func TestText_RoundTripRich(t *testing.T) {
	m := textRichModule(t)
	text, m2 := textRoundTrip(t, m)
	if errs := textEqualModules(m, m2); len(errs) > 0 {
		t.Fatalf("parsed module differs from the printed one:\n%s\n\n%s", strings.Join(errs, "\n"), text)
	}
	for _, want := range []string{
		`i#1`, `nan(0x7ff8000000000123)`, `"Fancy Op"`, `"λ name" = MyOp`, `%?gone[`, `?removed`,
		`on engine(12)`, `depkind(9)`, `kind=tensorkind(40)`, `dtype(30)[]`, `memtype(50)`, `addr_space=9`, `dtype(99)`,
		`cp#1`, `cp#2`, `flags=132`, `flags=16`, `if (false)`, `axis n in [0, 16) step 2 extra={k="v"} func=@main`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("printed text lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
}

func TestText_RoundTripBuilder(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Module
	}{
		{"tensor_add", textTensorAddModule(t)},
		{"empty", NewModule("")},
		{"gen", GenStraightLine(2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m2 := textRoundTrip(t, tc.m)
			if errs := textEqualModules(tc.m, m2); len(errs) > 0 {
				t.Fatalf("parsed module differs:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

func TestText_Builder(t *testing.T) {
	m := NewModule("trn2")
	b := NewBuilder(m, "main")
	x := b.Input("x", Float32, 128, 512)
	w := b.Input("w", BFloat16, 128, 128)
	z := b.Output("z", Float32, 128, 512)
	t0 := b.SBUF("t0", Float32, 128, 512)
	wt := b.SBUF("wt", BFloat16, 128, 128)
	ps := b.PSUM("ps", Float32, 128, 512)
	bias := b.SBUF("bias", Float32, 128, 1)
	b.Load("ld", t0.All(), x.All())
	b.Load("ldw", wt.All(), w.All())
	b.Memset("ms", EngPool, bias.All(), math.Inf(-1))
	b.Matmult("mm", ps.All(), wt.All(), As(t0.All(), BFloat16), true, true)
	b.Activation("act", "Exp", t0.All(), ps.All(), 0.5, bias.All())
	b.TensorScalar("ts", EngDVE, t0.All(), t0.All(), "mult", 2, "add", math.NaN())
	b.TensorReduce("red", EngDVE, "max", "X", bias.All(), t0.All())
	b.Iota("iota", bias.All(), 0, 1, [2]int64{1, 1})
	b.CCECopy("cce", z.All(), []Operand{t0.All(), t0.All()}, []float64{1, -0.5})
	b.Save("st", z.All(), t0.All())
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	text, m2 := textRoundTrip(t, m)
	if errs := textEqualModules(m, m2); len(errs) > 0 {
		t.Fatalf("parsed module differs:\n%s\n%s", strings.Join(errs, "\n"), text)
	}
}

// ---- golden files ----

func TestText_Golden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "text", "*.bir"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no testdata/text/*.bir inputs")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".bir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Parse(in, src)
			if err != nil {
				t.Fatal(err)
			}
			got := Format(m)
			golden := strings.TrimSuffix(in, ".bir") + ".golden"
			if updateGolden() {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./bir -run Golden -update)", err)
			}
			if got != string(want) {
				t.Fatalf("%s: output differs from %s:\n%s", in, golden, textLineDiff(string(want), got))
			}
			textRoundTrip(t, m)
		})
	}
}

// TestAttrSet_KeyDistinguishesSpecialFloats: the text form keeps
// Float(NaN) and String("nan") apart, so interning must too.
func TestAttrSet_KeyDistinguishesSpecialFloats(t *testing.T) {
	sets := []AttrSet{
		Attrs("x", Float(math.NaN())), Attrs("x", "nan"), Attrs("x", Float(math.Float64frombits(0x7ff8000000000002))),
		Attrs("x", Float(math.Inf(1))), Attrs("x", "inf"), Attrs("x", Float(math.Inf(-1))), Attrs("x", "-inf"),
		{{"x", List(Float(math.NaN()))}}, {{"x", List(String("nan"))}}, {{"x", Object(Field{"y", Float(math.Inf(1))})}},
		{{"x", Object(Field{"y", String("inf")})}},
	}
	m := NewModule("")
	seen := map[AttrID]int{}
	for k, a := range sets {
		id := m.InternAttrs(a)
		if j, dup := seen[id]; dup {
			t.Errorf("sets %d (%s) and %d (%s) intern to one id", j, sets[j].Key(), k, a.Key())
		}
		seen[id] = k
	}
	// Sets without special floats keep their JSON text as key.
	if got, want := Attrs("op", "add", "c", Float(1)).Key(), `{"op":"add","c":1.0}`; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}

// TestValue_NumberLiteral: a JSON number no int64 or float64 holds (a
// uint64 hash, 1e400) is a ValNumber kept as its literal, printed and
// parsed back as the same literal, and distinct from the rounded float.
func TestValue_NumberLiteral(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		need bool
	}{
		{"18446744073709551615", true}, {"-9223372036854775809", true}, {"1e400", true}, {"-2.5E+999", true},
		{"9223372036854775807", false}, {"-9223372036854775808", false}, {"0.1", false}, {"1e-400", false},
	} {
		if !IsNumberLiteral(tc.lit) {
			t.Errorf("IsNumberLiteral(%q) = false", tc.lit)
		}
		if got := NeedsNumberLiteral(tc.lit); got != tc.need {
			t.Errorf("NeedsNumberLiteral(%q) = %v, want %v", tc.lit, got, tc.need)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "inf", "0x10"} {
		if IsNumberLiteral(bad) {
			t.Errorf("IsNumberLiteral(%q) = true", bad)
		}
	}
	m := NewModule("trn2")
	m.Extra = AttrSet{{"h", Number("18446744073709551615")}, {"f", Number("1e400")}, {"l", List(Number("-9223372036854775809"), Int(1))}}
	if f, ok := Number("1e400").AsFloat(); !ok || !math.IsInf(f, 1) {
		t.Errorf("Number(1e400).AsFloat() = %v, %v", f, ok)
	}
	if _, ok := Number("18446744073709551615").AsInt(); ok {
		t.Error("Number beyond int64 converts to an int64")
	}
	if Attrs("h", Number("18446744073709551615")).Key() == Attrs("h", Float(18446744073709551615)).Key() {
		t.Error("a kept literal and its rounded float intern alike")
	}
	text := Format(m)
	if !strings.Contains(text, "h=18446744073709551615, f=1e400, l=[-9223372036854775809, 1]") {
		t.Errorf("printed:\n%s", text)
	}
	m2, err := Parse("n.bir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m2.Extra.Get("h"); v.Kind != ValNumber || v.S != "18446744073709551615" {
		t.Errorf("parsed h = %+v", v)
	}
	if again := Format(m2); again != text {
		t.Errorf("round trip:\n%s", textLineDiff(text, again))
	}
}

// TestText_DocExamples: every complete example of docs/text-format.md (a
// ```bir block starting with "module") parses and prints to itself.
func TestText_DocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "text-format.md"))
	if err != nil {
		t.Fatalf("the syntax document: %v", err)
	}
	n := 0
	for _, part := range strings.Split(string(doc), "```bir\n")[1:] {
		block, _, ok := strings.Cut(part, "```")
		if !ok || !strings.HasPrefix(block, "module") {
			continue
		}
		n++
		m, err := Parse("text-format.md", []byte(block))
		if err != nil {
			t.Fatalf("example %d: %v", n, err)
		}
		if got := Format(m); got != block {
			t.Errorf("example %d does not print as written:\n%s", n, textLineDiff(block, got))
		}
	}
	if n < 2 {
		t.Fatalf("found %d complete examples in docs/text-format.md, want at least 2", n)
	}
}

// ---- determinism ----

// TestText_Deterministic builds one module twice, creating axes, patterns,
// expressions, predicates and attribute sets in different orders: the
// texts must be identical.
func TestText_Deterministic(t *testing.T) {
	build := func(reverse bool) *Module {
		m := NewModule("trn2")
		if reverse {
			// Pollute the intern tables in another order first.
			m.InternPattern(Pattern{{1, 7}})
			m.InternAttrs(Attrs("zzz", 1))
			m.NewAxis(AxisInfo{Name: "junk", Loop: 99, Func: -1})
			m.InternExpr(affine.Const(42))
			m.InternPred(affine.GE(affine.Var(0), affine.Const(3)))
		}
		f, _ := m.NewFunction("main")
		tt, _ := f.AddTensor(Tensor{Name: "t", Dtype: Float32, Shape: []int64{128, 64}, IsBlock: true, NBlocks: 4})
		f.AddLoc(tt, MemLoc{Name: "t", Type: MemSB, Partitions: 128, Bytes: 256})
		top := f.NewBlock("Block1", NoInst)
		// Two nested loops whose axes are created in either order.
		var l1, l2 InstID
		var a1, a2 affine.Axis
		if reverse {
			l2, a2 = f.NewLoop(OpLoop, "L2", "b", 0, 4, 1)
			l1, a1 = f.NewLoop(OpLoop, "L1", "a", 0, 4, 1)
		} else {
			l1, a1 = f.NewLoop(OpLoop, "L1", "a", 0, 4, 1)
			l2, a2 = f.NewLoop(OpLoop, "L2", "b", 0, 4, 1)
		}
		f.Append(top, l1)
		b1 := f.NewBlock("B1", l1)
		f.Append(b1, l2)
		b2 := f.NewBlock("B2", l2)
		va, vb := affine.Var(a1), affine.Var(a2)
		e := affine.Add(affine.Add(affine.Scale(va, 3), vb), affine.Mod(affine.Add(va, vb), 5))
		p := affine.And(affine.GE(va, affine.Const(1)), affine.LE(vb, affine.Const(2)), affine.NE(affine.Add(va, vb), affine.Const(3)))
		i := f.NewInst(OpTensorCopy, "cp", EngDVE, []Operand{SymAP(tt, Float32, m.InternExpr(va), m.InternExpr(e), m.InternPattern(Pattern{{64, 128}, {1, 64}}))},
			[]Operand{PhysAP(0, Float32, 0, m.InternPattern(Pattern{{64, 128}, {1, 64}}))}, Attrs("x", 1, "y", 2))
		f.Append(b2, i)
		f.SetPred(i, p)
		return m
	}
	a, b := Format(build(false)), Format(build(true))
	if a != b {
		t.Fatalf("text depends on intern order:\n%s", textLineDiff(a, b))
	}
}

// ---- names, labels, dangling references ----

func TestText_Labels(t *testing.T) {
	m := NewModule("")
	f, _ := m.NewFunction("main")
	tt, _ := f.AddTensor(Tensor{Name: "t", Dtype: Float32, Shape: []int64{64}})
	f.AddLoc(tt, MemLoc{Name: "t", Type: MemDRAM, Partitions: 64, Bytes: 4})
	top := f.NewBlock("B", NoInst)
	// Two sequential loops over i: plain names, no labels.
	var axes []affine.Axis
	for k := 0; k < 2; k++ {
		l, a := f.NewLoop(OpLoop, fmt.Sprintf("L%d", k), "i", 0, 4, 1)
		f.Append(top, l)
		b := f.NewBlock("body", l)
		in := f.NewInst(OpTensorCopy, "cp", EngDVE, []Operand{SymAP(tt, Float32, 0, m.InternExpr(affine.Var(a)), 0)}, []Operand{SymAP(tt, Float32, 0, 0, 0)}, nil)
		f.Append(b, in)
		axes = append(axes, a)
	}
	text, _ := textRoundTrip(t, m)
	if strings.Contains(text, "#") {
		t.Fatalf("sequential loops of one axis name need no label:\n%s", text)
	}
	// Referencing the first loop's axis after it ends needs a label.
	in := f.NewInst(OpTensorCopy, "late", EngDVE, []Operand{SymAP(tt, Float32, 0, m.InternExpr(affine.Var(axes[0])), 0)}, []Operand{SymAP(tt, Float32, 0, 0, 0)}, nil)
	f.Append(top, in)
	text, m2 := textRoundTrip(t, m)
	if !strings.Contains(text, "L0 = Loop i#1 in [0, 4)") || !strings.Contains(text, "late = TensorCopy on DVE %t[block=0, offset=i#1] f32") {
		t.Fatalf("expected i#1 labels:\n%s", text)
	}
	if errs := textEqualModules(m, m2); len(errs) > 0 {
		t.Fatal(strings.Join(errs, "\n"))
	}
}

func TestText_Quoting(t *testing.T) {
	for _, name := range []string{"", "a b", "x\"y", "back\\slash", "tab\t", "nl\n", "λ", "\xff\xfe", "#1", "ok.name-$_9", "%", "}", "//c"} {
		m := NewModule(name)
		f, err := m.NewFunction(name)
		if err != nil {
			t.Fatal(err)
		}
		tt, _ := f.AddTensor(Tensor{Name: name, Dtype: Float32})
		f.AddLoc(tt, MemLoc{Name: name, Type: MemDRAM})
		f.RegByName(name)
		b := f.NewBlock(name, NoInst)
		l, _ := f.NewLoop(OpLoop, name, name, 0, 1, 1)
		f.Append(b, l)
		bb := f.NewBlock(name, l)
		i := f.NewInst(m.UnknownOpcode(name+"op"), name, EngUnassigned, []Operand{PhysAP(0, Float32, 0, 0), RegOpd(0, Int32)}, nil, AttrSet{{name, String(name)}})
		f.Append(bb, i)
		f.AddDep(i, Dep{On: i, CarryAxis: NoAxis})
		m.Config.Options[name] = name
		_, m2 := textRoundTrip(t, m)
		if errs := textEqualModules(m, m2); len(errs) > 0 {
			t.Errorf("name %q: %s", name, strings.Join(errs, "\n"))
		}
	}
}

func TestText_PrintFunction(t *testing.T) {
	m := textRichModule(t)
	var buf bytes.Buffer
	if err := PrintFunction(&buf, m.Funcs[0]); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.HasPrefix(s, "axis n in [0, 16) step 2") || !strings.Contains(s, "func @main kind=nki") || strings.Contains(s, "helper") {
		t.Fatalf("unexpected dump:\n%s", s)
	}
	// A dump without labels reads back on its own.
	m2 := textTensorAddModule(t)
	buf.Reset()
	if err := PrintFunction(&buf, m2.Funcs[0]); err != nil {
		t.Fatal(err)
	}
	m3, err := Parse("dump.bir", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got := Format(m3); !strings.HasSuffix(got, buf.String()) {
		t.Fatalf("dump re-read differs:\n%s", textLineDiff(buf.String(), got))
	}
}

// TestText_BrokenModule prints modules whose ids are out of range: the
// printer must not panic (the parser rejects what it cannot rebuild).
func TestText_BrokenModule(t *testing.T) {
	m := textTensorAddModule(t)
	f := m.Funcs[0]
	var last InstID
	f.Walk(func(i InstID) bool { last = i; return true })
	ops := f.Operands(last)
	ops[0].Ref = 999
	ops[1].Pattern = 12345
	ops[1].Expr = 777
	f.Inst(last).Attrs = 4242
	f.Inst(last).Pred = 99
	f.AddDep(last, Dep{On: 5000, CarryAxis: 321})
	f.SetOperand(last, 0, Operand{Kind: OperandKind(42)})
	f.Inst(last).Name = 1 << 30
	s := Format(m)
	for _, want := range []string{"?operand(42)", "{?}", "if (?)", `?"#5000"`, "a321", `"?" = Save`} {
		if !strings.Contains(s, want) {
			t.Errorf("broken module text lacks %q:\n%s", want, s)
		}
	}
}

// ---- errors ----

func TestText_Errors(t *testing.T) {
	const hdr = "func @main {\n  tensor %ts: f32[4]\n    loc %t: DRAM 4x16\n  reg $r\nB:\n"
	for _, tc := range []struct {
		src, want string
	}{
		{"modul", `e.bir:1:1: expected option, axis or func, found "modul"`},
		{"module arch=trn2 color=red", `e.bir:1:18: unknown module property "color"`},
		{"func @main {\n", `e.bir:2:1: function main: expected '}' closing function @main, found end of file`},
		{hdr + "  x = Load %u[] f32\n}", `e.bir:6:12: function main, instruction x: unknown location %u`},
		{hdr + "  x = Load %ts[] f32\n}", `e.bir:6:12: function main, instruction x: unknown location %ts (%ts is a tensor`},
		{hdr + "  x = Load %t[block=0] f32\n}", `e.bir:6:12: function main, instruction x: unknown tensor %t (%t is a location`},
		{hdr + "  x = Load %t[ap=[[1,2]] f32\n}", `e.bir:6:26: function main, instruction x: expected ',' or ']' in an access pattern, found "f32"`},
		{hdr + "  x = Load %t[] f33\n}", `e.bir:6:17: function main, instruction x: expected a dtype`},
		{hdr + "  x = Load $q i32\n}", `e.bir:6:13: function main, instruction x: undeclared register $q`},
		{hdr + "  x = Load 1 i32 deps [FLOW y]\n}", `e.bir:6:29: function main, instruction x: dependency on unknown instruction y`},
		{hdr + "  x = Load 1 i32\n  x = Load 2 i32 deps [FLOW x]\n}", `e.bir:7:29: function main, instruction x: ambiguous dependency target x: 2 instructions`},
		{hdr + "  x = Load %ts[block=k] f32\n}", `e.bir:6:22: function main, instruction x: unknown axis "k": no enclosing loop or module-level axis line declares it`},
		{hdr + "  x = Load 99999999999999999999 i32\n}", `e.bir:6:12: function main, instruction x: integer 99999999999999999999 is out of range`},
		{hdr + "  x = Load 1.5e999 f32\n}", `e.bir:6:12: function main, instruction x: float 1.5e999 is out of range`},
		{hdr + "  x = Load 1 i32 {a=\"abc}\n}", `e.bir:6:21: function main, instruction x: unterminated string`},
		{hdr + "  x = Load \"abc\" i32\n}", `e.bir:6:12: function main, instruction x: expected end of line, found string "abc"`},
		{hdr + "  x = Load 1 i32 {a=1, a=}\n}", `e.bir:6:26: function main, instruction x: expected a value`},
		{hdr + "  L = Loop i in [0, 4) {\n  C:\n    y = Load %ts[block=0, offset=i*i] f32\n  }\n}", `e.bir:8:35: function main, instruction y: product of two non-constant expressions is not quasi-affine`},
		{hdr + "  L = Loop i in [0, 4) {\n  C:\n    y = Load %ts[block=0, offset=i floordiv 0] f32\n  }\n}", `divisor must be a positive integer constant, found 0`},
		{hdr + "  L = Loop i#2 in [0, 4) {\n  }\n}", `axis label i#2 does not match: this is declaration 1`},
		{hdr + "  y = Load 1 i32 deps [FLOW y carry(q#1, 1)]\n}", `e.bir:6:37: axis q#1 is referenced but only 0 axes named "q" are declared`},
		{hdr + "  y = Load 1 i32 flags=1\n}", `bit 1 (float) is given by the immediate's syntax`},
		{"func @main {\n  y = Load 1 i32\n}", `e.bir:2:3: function main: instruction y is outside a block`},
		{"func @a {\n}\nfunc @a {\n}", `e.bir:3:6: function @a is defined twice`},
		{"axis n in [0, 4) func=@nope\n", `e.bir:1:23: axis n: func=@nope: no such function`},
		{hdr + "  y = Load 1 i32 {a=[[[[[[[[[[" + strings.Repeat("[", 300) + "\n}", `values nested deeper than 256`},
		{hdr + "  y = Load 1 i32 sched(start=1)\n}", `e.bir:6:32: function main, instruction y: sched: start=1, end=-1: want both, end >= start`},
		{hdr + "  y = Load 1 i32 sched(start=9, end=1)\n}", `sched: start=9, end=1: want both, end >= start`},
		{hdr + "  y = Load 1 i32 sched(speed=1)\n}", `e.bir:6:24: function main, instruction y: sched: unknown field "speed"`},
		{hdr + "  y = Load 1 i32 sched(order=1, order=2)\n}", `sched: order given twice`},
		{hdr + "  y = Load 1 i32 sched(queue=40000)\n}", `sched: queue=40000: want 0..32767`},
		{hdr + "  y = Load 1 i32 sync(waits=[[-1, 1]])\n}", `sync: waits: semaphore -1: want 0..2147483647`},
		{hdr + "  y = Load 1 i32 sync(updates=[[1, 4294967296]])\n}", `sync: updates: value 4294967296: want a 32-bit integer`},
		{hdr + "  y = Load 1 i32 sync(trigger=XPU)\n}", `expected an engine`},
		{hdr + "  y = Load 1 i32 sync(color=1)\n}", `sync: unknown part "color"`},
	} {
		_, err := Parse("e.bir", []byte(tc.src))
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tc.src, tc.want)
			continue
		}
		if _, ok := err.(*TextError); !ok {
			t.Errorf("Parse(%q): error of type %T, want *TextError", tc.src, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q):\n  error %q\n  want  %q", tc.src, err, tc.want)
		}
	}
}

// ---- fuzzing ----

// FuzzParse: whatever parses re-prints to text that parses to a module
// that prints identically; nothing panics.
func FuzzParse(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "text", "*.bir"))
	for _, in := range inputs {
		if b, err := os.ReadFile(in); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(Format(textRichModule(f))))
	f.Add([]byte(Format(textTensorAddModule(f))))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("fuzz.bir", src)
		if err != nil {
			if _, ok := err.(*TextError); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		s1 := Format(m)
		m2, err := Parse("fuzz2.bir", []byte(s1))
		if err != nil {
			t.Fatalf("printed text does not parse: %v\n%s", err, s1)
		}
		if s2 := Format(m2); s1 != s2 {
			t.Fatalf("print(parse(print)) differs:\n%s", textLineDiff(s1, s2))
		}
	})
}

// TestText_Mutations applies random line and byte edits to the golden
// inputs (deterministically): the parser must not panic, and whatever
// parses must round-trip.
func TestText_Mutations(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "text", "*.bir"))
	var srcs [][]string
	for _, in := range inputs {
		b, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, strings.Split(string(b), "\n"))
	}
	srcs = append(srcs, strings.Split(Format(textRichModule(t)), "\n"))
	rng := uint64(1)
	next := func(n int) int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng % uint64(n))
	}
	const alphabet = "%$@#?[](){}=,:-> \"\\\n0123456789abcxyzif.deps"
	parsed := 0
	for n := 0; n < 4000; n++ {
		lines := slices.Clone(srcs[next(len(srcs))])
		for e := 0; e <= next(3); e++ {
			k := next(len(lines))
			switch next(5) {
			case 0:
				lines = slices.Delete(lines, k, k+1)
			case 1:
				lines = slices.Insert(lines, k, lines[next(len(lines))])
			case 2:
				if l := lines[k]; len(l) > 0 {
					c := next(len(l))
					lines[k] = l[:c] + l[c+1:]
				}
			case 3:
				l := lines[k]
				c := next(len(l) + 1)
				lines[k] = l[:c] + string(alphabet[next(len(alphabet))]) + l[c:]
			default:
				j := next(len(lines))
				lines[k], lines[j] = lines[j], lines[k]
			}
			if len(lines) == 0 {
				break
			}
		}
		src := strings.Join(lines, "\n")
		m, err := Parse("mut.bir", []byte(src))
		if err != nil {
			if _, ok := err.(*TextError); !ok {
				t.Fatalf("error of type %T", err)
			}
			continue
		}
		parsed++
		s1 := Format(m)
		m2, err := Parse("mut2.bir", []byte(s1))
		if err != nil {
			t.Fatalf("mutant parses but its print does not: %v\nmutant:\n%s\nprint:\n%s", err, src, s1)
		}
		if s2 := Format(m2); s1 != s2 {
			t.Fatalf("mutant does not round-trip:\n%s\nmutant:\n%s", textLineDiff(s1, s2), src)
		}
	}
	if parsed == 0 {
		t.Fatal("no mutant parsed: the test exercises nothing")
	}
	t.Logf("%d of 4000 mutants parsed and round-tripped", parsed)
}

// ---- benchmarks ----

type textCountingWriter struct{ n int64 }

func (w *textCountingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

const textBenchInsts = 1000000

// BenchmarkPrint1M prints the 1,000,000-instruction straight-line module;
// it reports MB/s of text and ns per instruction.
func BenchmarkPrint1M(b *testing.B) {
	m := GenStraightLine(textBenchInsts)
	var w textCountingWriter
	if err := Print(&w, m); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(w.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Print(&textCountingWriter{}, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/textBenchInsts, "ns/inst")
}

// BenchmarkParse1M parses the text of the same module.
func BenchmarkParse1M(b *testing.B) {
	src := []byte(Format(GenStraightLine(textBenchInsts)))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse("bench.bir", src); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/textBenchInsts, "ns/inst")
}

// TestText_PrintAllocs checks that printing does not allocate
// per instruction.
func TestText_PrintAllocs(t *testing.T) {
	small, big := GenStraightLine(1000), GenStraightLine(20000)
	a := testing.AllocsPerRun(3, func() { Print(&textCountingWriter{}, small) })
	c := testing.AllocsPerRun(3, func() { Print(&textCountingWriter{}, big) })
	if c > a+20 {
		t.Fatalf("Print allocates per instruction: %.0f allocations for 1000 instructions, %.0f for 20000", a, c)
	}
}

// TestText_ScheduleAndSync: the text form carries an instruction's
// schedule entry, sched(start, end, queue, dge, order), and its
// synchronization entry, sync(trigger, waits, updates), so that a
// compiled module written as text verifies at stage synchronized and runs
// concurrently as its BIR-JSON would; sched() and sync() keep a table
// with no entry (a kernel that only halts).
func TestText_ScheduleAndSync(t *testing.T) {
	src := `module arch=trn2

func @main {
Block1:
  a = Halt on PE sched(start=5, end=9, queue=3, dge=1, order=2) sync(trigger=SP, waits=[[2, 1], [0, 7]], updates=[[1, 1]])
  b = Halt on DVE sched(order=4) sync(waits=[[3, -2]])
  c = Halt on SP
}

func @quiet {
Block1:
  h = Halt on PE sched() sync()
}
`
	m, err := Parse("s.bir", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	a, _ := f.InstByName("a")
	b, _ := f.InstByName("b")
	c, _ := f.InstByName("c")
	tab, sy := f.Sched, f.Sync
	if tab == nil || sy == nil || tab.Len() != f.NumInstSlots() || sy.Len() != f.NumInstSlots() {
		t.Fatalf("tables %v %v: want both, covering the %d slots", tab, sy, f.NumInstSlots())
	}
	if tab.Start[a] != 5 || tab.End[a] != 9 || tab.Queue[a] != 3 || tab.DGE[a] != 1 || tab.Order[a] != 2 {
		t.Errorf("a's schedule: %d %d %d %d %d", tab.Start[a], tab.End[a], tab.Queue[a], tab.DGE[a], tab.Order[a])
	}
	if tab.Start[b] != -1 || tab.Order[b] != 4 || tab.Has(c) || tab.Order[c] != -1 {
		t.Errorf("b, c: start %d order %d; c has %v", tab.Start[b], tab.Order[b], tab.Has(c))
	}
	if sy.Trigger[a] != EngSP || !slices.Equal(sy.Waits(a), []SemCmd{{2, 1}, {0, 7}}) || !slices.Equal(sy.Updates(a), []SemCmd{{1, 1}}) {
		t.Errorf("a's sync: %v %v %v", sy.Trigger[a], sy.Waits(a), sy.Updates(a))
	}
	if !slices.Equal(sy.Waits(b), []SemCmd{{3, -2}}) || sy.Has(c) {
		t.Errorf("b's waits %v, c has %v", sy.Waits(b), sy.Has(c))
	}
	if q := m.Func("quiet"); q.Sched == nil || q.Sync == nil {
		t.Errorf("sched() and sync() make no table: %v %v", q.Sched, q.Sync)
	}
	if got := Format(m); got != src {
		t.Errorf("does not print as written:\n%s", textLineDiff(src, got))
	}
}
