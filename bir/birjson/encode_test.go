package birjson

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// sameModule compares two modules structurally (names, enums, sizes,
// operands, attributes, expressions, predicates, dependencies, loops) and
// reports the first difference.
func sameModule(t *testing.T, a, b *bir.Module) {
	t.Helper()
	if a.Version != b.Version || a.Arch != b.Arch || a.HasCoreID != b.HasCoreID || a.NeuronCoreID != b.NeuronCoreID ||
		a.ArtifactDir != b.ArtifactDir || a.Config.MaxInstructionLimit != b.Config.MaxInstructionLimit ||
		len(a.Config.Options) != len(b.Config.Options) || a.ModuleAttrs.Key() != b.ModuleAttrs.Key() || a.Extra.Key() != b.Extra.Key() {
		t.Fatalf("module headers differ")
	}
	for k, v := range a.Config.Options {
		if b.Config.Options[k] != v {
			t.Fatalf("config option %s: %q vs %q", k, v, b.Config.Options[k])
		}
	}
	if len(a.Funcs) != len(b.Funcs) {
		t.Fatalf("%d vs %d functions", len(a.Funcs), len(b.Funcs))
	}
	for k := range a.Funcs {
		sameFunc(t, a, b, a.Funcs[k], b.Funcs[k])
	}
}

func sameFunc(t *testing.T, ma, mb *bir.Module, fa, fb *bir.Function) {
	t.Helper()
	if fa.Name != fb.Name || fa.Kind != fb.Kind || strings.Join(fa.Attributes, ",") != strings.Join(fb.Attributes, ",") || fa.Extra.Key() != fb.Extra.Key() {
		t.Fatalf("function %s header differs", fa.Name)
	}
	live := func(f *bir.Function) (ts []bir.TensorID) {
		for i := 0; i < f.NumTensors(); i++ {
			if !f.Tensor(bir.TensorID(i)).Dead {
				ts = append(ts, bir.TensorID(i))
			}
		}
		return
	}
	ta, tb := live(fa), live(fb)
	if len(ta) != len(tb) {
		t.Fatalf("function %s: %d vs %d tensors", fa.Name, len(ta), len(tb))
	}
	for k := range ta {
		x, y := *fa.Tensor(ta[k]), *fb.Tensor(tb[k])
		if x.Name != y.Name || x.Kind != y.Kind || x.Class != y.Class || x.AddrSpace != y.AddrSpace || x.Dtype != y.Dtype ||
			x.PartitionDim != y.PartitionDim || !equalInts(x.Shape, y.Shape) || x.File != y.File || x.NoSpill != y.NoSpill ||
			x.Volatile != y.Volatile || x.Virtual != y.Virtual || x.IsBlock != y.IsBlock || x.NBlocks != y.NBlocks ||
			len(x.SplitShape) != len(y.SplitShape) || x.ShrinkDim != y.ShrinkDim || x.LiveN != y.LiveN ||
			x.Extra.Key() != y.Extra.Key() || len(x.Locs) != len(y.Locs) {
			t.Fatalf("tensor %s differs:\n%+v\n%+v", x.Name, x, y)
		}
		for i := range x.Locs {
			la, lb := *fa.Loc(x.Locs[i]), *fb.Loc(y.Locs[i])
			if la.Name != lb.Name || la.Type != lb.Type || la.Partitions != lb.Partitions || la.Bytes != lb.Bytes ||
				!equalInts(la.RawDims, lb.RawDims) || la.Addr != lb.Addr || la.Bank != lb.Bank || la.Base != lb.Base ||
				la.Allocated != lb.Allocated || la.Pinned != lb.Pinned || la.TensorIdx != lb.TensorIdx ||
				la.OutputKind != lb.OutputKind || la.Extra.Key() != lb.Extra.Key() {
				t.Fatalf("location %s differs:\n%+v\n%+v", la.Name, la, lb)
			}
		}
	}
	var ia, ib []bir.InstID
	fa.Walk(func(i bir.InstID) bool { ia = append(ia, i); return true })
	fb.Walk(func(i bir.InstID) bool { ib = append(ib, i); return true })
	if len(ia) != len(ib) {
		t.Fatalf("function %s: %d vs %d instructions", fa.Name, len(ia), len(ib))
	}
	for k := range ia {
		x, y := fa.Inst(ia[k]), fb.Inst(ib[k])
		name := fa.InstName(ia[k])
		if name != fb.InstName(ib[k]) || fa.OpName(ia[k]) != fb.OpName(ib[k]) || x.Engine != y.Engine ||
			fa.Attrs(ia[k]).Key() != fb.Attrs(ib[k]).Key() || ma.Pred(x.Pred).Format(ma.AxisName) != mb.Pred(y.Pred).Format(mb.AxisName) {
			t.Fatalf("instruction %s differs", name)
		}
		oa, ob := fa.Operands(ia[k]), fb.Operands(ib[k])
		if x.NIns != y.NIns || len(oa) != len(ob) {
			t.Fatalf("instruction %s: operand counts differ", name)
		}
		for j := range oa {
			if d := operandText(ma, fa, oa[j]); d != operandText(mb, fb, ob[j]) {
				t.Fatalf("instruction %s operand %d:\n%s\n%s", name, j, d, operandText(mb, fb, ob[j]))
			}
		}
		da, db := fa.Deps(ia[k]), fb.Deps(ib[k])
		if len(da) != len(db) {
			t.Fatalf("instruction %s: %d vs %d deps", name, len(da), len(db))
		}
		for j := range da {
			if fa.InstName(da[j].On) != fb.InstName(db[j].On) || da[j].Kind != db[j].Kind || da[j].CarryDist != db[j].CarryDist ||
				(da[j].CarryAxis == bir.NoAxis) != (db[j].CarryAxis == bir.NoAxis) ||
				ma.Pred(da[j].Pred).Format(ma.AxisName) != mb.Pred(db[j].Pred).Format(mb.AxisName) {
				t.Fatalf("instruction %s dep %d differs: %+v vs %+v", name, j, da[j], db[j])
			}
		}
		if x.Op.IsLoop() {
			xa, xb := ma.Axis(fa.Loop(ia[k]).Axis), mb.Axis(fb.Loop(ib[k]).Axis)
			if xa.Name != xb.Name || xa.Lb != xb.Lb || xa.Ub != xb.Ub || xa.Stride != xb.Stride || xa.Extra.Key() != xb.Extra.Key() ||
				len(fa.Loop(ia[k]).Body) != len(fb.Loop(ib[k]).Body) {
				t.Fatalf("loop %s differs", name)
			}
		}
	}
}

// operandText describes an operand independently of ids.
func operandText(m *bir.Module, f *bir.Function, o bir.Operand) string {
	var b strings.Builder
	b.WriteString(o.Kind.String() + " " + o.Dtype.String())
	switch o.Kind {
	case bir.OpdPhysAP:
		b.WriteString(" " + f.Loc(o.Loc()).Name + " " + bir.Int(o.Offset).JSON())
	case bir.OpdSymAP:
		b.WriteString(" " + f.Tensor(o.TensorRef()).Name + " " + m.Expr(o.BlockExpr()).Format(m.AxisName) + " | " + m.Expr(o.OffsetExpr()).Format(m.AxisName))
	case bir.OpdRegAP:
		b.WriteString(" " + f.Tensor(o.TensorRef()).Name + " " + f.Reg(bir.RegID(o.Expr)).Name)
	case bir.OpdRegister:
		b.WriteString(" " + f.Reg(bir.RegID(o.Ref)).Name)
	case bir.OpdImm:
		if o.Flags&bir.OpdFlagFloat != 0 {
			b.WriteString(" f" + bir.Float(o.ImmFloat()).JSON())
		} else {
			b.WriteString(" i" + bir.Int(o.Offset).JSON())
		}
	case bir.OpdImmArray:
		b.WriteString(" " + m.Attrs(bir.AttrID(o.Ref)).Key())
	case bir.OpdSymImm:
		b.WriteString(" " + m.Attrs(bir.AttrID(o.Ref)).Key() + " " + m.Expr(o.Expr).Format(m.AxisName))
	}
	if o.Kind.IsAP() {
		b.WriteString(" " + bir.Ints(patInts(m.Pattern(o.Pattern))...).JSON())
	}
	b.WriteString(" " + m.Attrs(o.Extra).Key())
	return b.String()
}

func patInts(p bir.Pattern) []int64 {
	var out []int64
	for _, q := range p {
		out = append(out, q.Step, q.Num)
	}
	return out
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// buildRich builds, with the IR's own API, a module that uses every
// feature the codec carries.
func buildRich(t *testing.T) *bir.Module {
	t.Helper()
	m := bir.NewModule("trn2")
	m.HasCoreID, m.NeuronCoreID = true, 3
	m.ArtifactDir = "out/art"
	m.Config.MaxInstructionLimit = 1000
	m.Config.Options = map[string]string{"gen-stride-dma": "true", "b": "1", "a": "2", "z": "x\"y"}
	m.Extra = bir.Attrs("producer", "narwhal-test", "weights", bir.Floats(0.5, 2))
	m.ModuleAttrs = bir.Attrs("lnc", 2)
	b := bir.NewBuilder(m, "main")
	f := b.F
	f.AddAttribute("need_unroll")
	f.Extra = bir.Attrs("origin", bir.Object(bir.Field{Key: "file", Val: bir.String("k.py")}))
	x := b.Input("x", bir.Float32, 512, 512)
	z := b.Output("z", bir.Float32, 512, 512)
	buf := b.BlockTensor("buf", bir.MemSB, bir.BFloat16, 4, 128, 512)
	ts := f.Tensor(buf.ID)
	ts.SplitShape = []bool{false, true}
	ts.ShrinkDim, ts.LiveN = 1, 2
	ts.Extra = bir.Attrs("layout", "NC")
	f.Loc(buf.Loc).OutputKind = 7
	f.Loc(buf.Loc).Extra = bir.Attrs("hint", nil)
	ps := b.PSUM("ps", bir.Float32, 128, 512)
	var ld, mm bir.InstID
	b.Loop("i", 0, 4, 1, func(i affine.Expr) {
		off := affine.Scale(i, 128*512)
		ld = b.Load("ld", buf.Sym(i, affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}), x.Sym(affine.Const(0), off, [2]int64{512, 128}, [2]int64{1, 512}))
		b.Loop("j", 0, 2, 1, func(j affine.Expr) {
			mm = b.Matmult("mm", ps.All(), buf.Sym(i, affine.Scale(j, 64), [2]int64{512, 128}, [2]int64{1, 128}), buf.Sym(i, affine.Add(affine.Scale(j, 64), affine.FloorDiv(i, 2)), [2]int64{512, 128}, [2]int64{1, 512}), true, true)
			f.SetPred(mm, affine.And(affine.GE(i, j), affine.EQ(affine.Mod(i, 2), affine.Const(0))))
			f.AddDep(mm, bir.Dep{On: ld, Kind: bir.DepFlow, CarryAxis: bir.NoAxis})
		})
		st := b.Save("st", z.Sym(affine.Const(0), off, [2]int64{512, 128}, [2]int64{1, 512}), buf.Sym(i, affine.Const(0), [2]int64{512, 128}, [2]int64{1, 512}))
		ax := f.Loop(f.Loopnest(st)[0]).Axis
		f.AddDep(ld, bir.Dep{On: st, Kind: bir.DepAnti, CarryAxis: ax, CarryDist: 1, Pred: m.InternPred(affine.GE(i, affine.Const(1)))})
		r := f.RegByName("r3")
		ins := []bir.Operand{
			bir.ImmI(-5, bir.Int32), bir.ImmF(2.0, bir.Float32), bir.ImmF(math.NaN(), bir.Float32), bir.ImmF(math.Inf(-1), bir.BFloat16),
			{Kind: bir.OpdImmArray, Dtype: bir.Int16, Ref: int32(m.InternAttrs(bir.AttrSet{{Key: "value_array", Val: bir.Ints(1, 2, 3)}}))},
			{Kind: bir.OpdSymImm, Dtype: bir.Int32, Ref: int32(m.InternAttrs(bir.AttrSet{{Key: "value_list", Val: bir.Ints(7)}})), Expr: m.InternExpr(affine.AddConst(i, 3))},
			bir.RegOpd(r, bir.Uint32),
			{Kind: bir.OpdRegAP, Dtype: bir.Float32, Ref: int32(buf.ID), Expr: bir.ExprID(r), Pattern: b.Pat([2]int64{512, 128}, [2]int64{1, 1}),
				Extra: m.InternAttrs(bir.Attrs("reg_ap_offset", "r4"))},
		}
		u := f.NewInst(m.UnknownOpcode("Mystery"), "mystery", bir.EngPool, ins, []bir.Operand{bir.PhysAP(buf.Loc, bir.BFloat16, 64, b.Pat([2]int64{512, 128}, [2]int64{1, 64}))},
			bir.Attrs("nested", bir.Object(bir.Field{Key: "a", Val: bir.List(bir.Null(), bir.Bool(true), bir.Float(1e-9))}), "n", -1))
		f.Append(b.Block(), u)
	})
	b.TensorScalar("ts", bir.EngAct, ps.All(), ps.All(), "mult", 0.5, "add", 1)
	if err := b.Err(); err != nil {
		t.Fatal(err)
	}
	nb := bir.NewBuilder(m, "nki_helper")
	nb.F.Kind = bir.FuncNKI
	nb.F.Block(nb.Block()).Extra = bir.Attrs("weight", 0.25)
	return m
}

func TestWrite_BuilderRoundTrip(t *testing.T) {
	m := buildRich(t)
	out := roundTrip(t, m)
	m2, err := Decode(out, "rich.json")
	if err != nil {
		t.Fatal(err)
	}
	sameModule(t, m, m2)
	f0 := m.Funcs[0]
	for _, want := range []string{
		`"config":{"max_instruction_limit":1000,"options":{"a":"2","b":"1","gen-stride-dma":"true","z":"x\"y"}}`,
		`"artifact_dir":"out/art"`,
		`"attributes":{"neuron_core_id":3,"lnc":2}`,
		`"kind":"nki"`,
		`"is_block":true,"num_blocks":4,"split_shape":[false,true],"shrink_dim":1,"live_n":2`,
		`"output_kind":7`,
		`"predicate":` + strconv.Quote(m.Pred(f0.Inst(mustInst(t, f0, "mm")).Pred).Format(m.AxisName)),
		`"deps":[{"on":"st","kind":"ANTI","carry_axis":"i","carry_distance":1,"predicate":"i - 1 >= 0"}]`,
		`"addrs":["i",` + strconv.Quote(m.Expr(f0.Ins(mustInst(t, f0, "mm"))[1].OffsetExpr()).Format(m.AxisName)) + `]`,
		`{"kind":"imm_value","dtype":"int32","value":-5}`,
		`{"kind":"imm_value","dtype":"float32","value":2.0}`,
		`{"kind":"imm_value","dtype":"float32","value":"nan"}`,
		`{"kind":"imm_value","dtype":"bfloat16","value":"-inf"}`,
		`{"kind":"imm_array","dtype":"int16","value_array":[1,2,3]}`,
		`{"kind":"symbolic_imm_value","dtype":"int32","expr":"i + 3","value_list":[7]}`,
		`{"kind":"register_access","regref":"r3","dtype":"uint32"}`,
		`{"kind":"register_ap","memsetref":"buf_set","regref":"r3","dtype":"float32","ap":[[512,128],[1,1]],"reg_ap_offset":"r4"}`,
		`{"opcode":"Mystery","name":"mystery","engine":"Pool","nested":{"a":[null,true,1e-09]},"n":-1,`,
		`{"opcode":"Loop","name":"loop_i","LoopAxis":{"name":"i","lb":0,"ub":4,"stride":1},"blocks":[`,
		`{"name":"Block1","weight":0.25,"instructions":[]}`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
	if t.Failed() {
		t.Logf("%s", out)
	}
}

func TestWrite_GenStraightLine(t *testing.T) {
	m := bir.GenStraightLine(2000)
	out := roundTrip(t, m)
	m2, err := Decode(out, "gen.json")
	if err != nil {
		t.Fatal(err)
	}
	sameModule(t, m, m2)
	if n := bytes.Count(out, []byte("\n")); n < 2000 {
		t.Errorf("%d lines: want one instruction per line", n)
	}
}

// The same module always writes the same bytes, whatever the map order of
// Config.Options and however many times it is written.
func TestWrite_Deterministic(t *testing.T) {
	m := buildRich(t)
	for k := 0; k < 50; k++ {
		m.Config.Options[string(rune('a'+k%26))+"opt"] = "v"
	}
	first := mustEncode(t, m)
	for k := 0; k < 20; k++ {
		if again := mustEncode(t, m); !bytes.Equal(again, first) {
			t.Fatal("Encode is not deterministic")
		}
	}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), first) {
		t.Error("Write and Encode differ")
	}
	// The text is valid JSON for any consumer.
	jsonTree(t, first)
}

func TestWrite_Errors(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, m *bir.Module)
		want   string
	}{
		{"removed location", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			l, _ := f.LocByName("ps")
			f.RemoveLoc(l)
		}, "function main, instruction mm, outs[0]: physical_ap names memory location #"},
		{"bad dtype", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			i, _ := f.InstByName("ts")
			o := f.Ins(i)[0]
			o.Dtype = 42
			f.SetOperand(i, 0, o)
		}, "function main, instruction ts, ins[0]: invalid dtype 42"},
		{"axis out of scope", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			i, _ := f.InstByName("ts")
			j := f.Loop(mustInst(t, f, "loop_j")).Axis
			f.SetPred(i, affine.GE(affine.Var(j), affine.Const(0)))
		}, "function main, instruction ts, predicate: affine expression uses axis j (#1), which is not the axis of an enclosing loop"},
		{"non-unique dep target", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			f.Rename(mustInst(t, f, "st"), "ld")
		}, `instruction ld: deps[0]: the target's name "ld" is not unique`},
		{"reserved attribute", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			f.SetAttr(mustInst(t, f, "ts"), "ins", bir.Int(1))
		}, `instruction ts: attribute "ins" collides with a key the format reserves`},
		{"reserved extra", func(t *testing.T, m *bir.Module) {
			m.Funcs[0].Extra = bir.Attrs("blocks", 1)
		}, `function main: function extra field "blocks" collides`},
		{"bad axis name", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			m.Axis(f.Loop(mustInst(t, f, "loop_j")).Axis).Name = "j k"
		}, `affine expression uses axis "j k", whose name the affine parser cannot read back`},
		{"shadowed axis", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			m.Axis(f.Loop(mustInst(t, f, "loop_j")).Axis).Name = "i"
		}, "shadowed by an inner loop axis of the same name"},
		{"zero stride", func(t *testing.T, m *bir.Module) {
			f := m.Funcs[0]
			m.Axis(f.Loop(mustInst(t, f, "loop_j")).Axis).Stride = 0
		}, "instruction loop_j: LoopAxis j: stride 0 must be positive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := buildRich(t)
			c.break_(t, m)
			_, err := Encode(m)
			var e *EncodeError
			if !errors.As(err, &e) {
				t.Fatalf("Encode: %v (want an *EncodeError)", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\n  does not contain %q", err, c.want)
			}
		})
	}
}

func mustInst(t *testing.T, f *bir.Function, name string) bir.InstID {
	t.Helper()
	i, ok := f.InstByName(name)
	if !ok {
		t.Fatalf("no instruction %s", name)
	}
	return i
}

// A dependency on a removed instruction constrains nothing and is not
// written; Extra wins over a derived field (that is how nulls survive).
func TestWrite_DeadDepAndOverride(t *testing.T) {
	m := buildRich(t)
	f := m.Funcs[0]
	f.Remove(mustInst(t, f, "st"))
	f.Tensor(0).Extra = bir.Attrs("partition_dim", nil)
	out := roundTrip(t, m)
	if bytes.Contains(out, []byte(`"on":"st"`)) {
		t.Error("dependency on a removed instruction was written")
	}
	var xline string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, `"name":"x_set"`) {
			xline = line
		}
	}
	if !strings.Contains(xline, `"partition_dim":null`) || strings.Contains(xline, `"partition_dim":0`) {
		t.Errorf("Extra did not override partition_dim: %s", xline)
	}
}

func TestWriteFile_Atomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	m := buildRich(t)
	if err := WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, mustEncode(t, m)) {
		t.Error("file content differs from Encode")
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// A module that cannot be written leaves the old file untouched.
	bad := buildRich(t)
	bad.Funcs[0].Extra = bir.Attrs("blocks", 1)
	if err := WriteFile(path, bad); err == nil {
		t.Fatal("WriteFile of an unwritable module succeeded")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, got) {
		t.Error("failed WriteFile changed the existing file")
	}
	// Overwriting keeps the file's mode; no temporary file is left behind.
	m.Arch = "trn3"
	if err := WriteFile(path, m); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("overwritten file mode %v, want 0600 kept", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only out.json", names)
	}
	back, err := ReadFile(path)
	if err != nil || back.Arch != "trn3" {
		t.Errorf("ReadFile after WriteFile: %v", err)
	}
	if err := WriteFile(filepath.Join(dir, "missing-dir", "x.json"), m); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}
