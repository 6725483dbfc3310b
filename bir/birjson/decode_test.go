package birjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/verify"
)

// ---- helpers ----

func mustRead(t *testing.T, path string) (*bir.Module, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(data, path)
	if err != nil {
		t.Fatalf("Decode(%s): %v", path, err)
	}
	return m, data
}

func mustEncode(t *testing.T, m *bir.Module) []byte {
	t.Helper()
	out, err := Encode(m)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return out
}

// jsonTree parses JSON generically (encoding/json; test only) keeping
// numbers as json.Number.
func jsonTree(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json rejects the text: %v\n%s", err, data)
	}
	return v
}

// diffJSON returns the path of the first difference between two JSON
// trees ("" when equal). Numbers compare by value (1 == 1.0), objects
// ignore key order.
func diffJSON(path string, a, b any) string { return diffJSONTree(path, a, b, false) }

// subsetJSON is diffJSON allowing b to hold object keys a lacks (defaults
// the writer adds): it checks that nothing of a is lost or changed.
func subsetJSON(path string, a, b any) string { return diffJSONTree(path, a, b, true) }

func diffJSONTree(path string, a, b any, added bool) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return path + ": object vs " + fmt.Sprintf("%T", b)
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			xa, okA := x[k]
			yb, okB := y[k]
			if !okA && added {
				continue
			}
			if !okA || !okB {
				return fmt.Sprintf("%s.%s: present %v vs %v", path, k, okA, okB)
			}
			if d := diffJSONTree(path+"."+k, xa, yb, added); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: array %v vs %v", path, a, b)
		}
		for i := range x {
			if d := diffJSONTree(fmt.Sprintf("%s[%d]", path, i), x[i], y[i], added); d != "" {
				return d
			}
		}
		return ""
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: number %v vs %v", path, a, b)
		}
		fa, errA := strconv.ParseFloat(string(x), 64)
		fb, errB := strconv.ParseFloat(string(y), 64)
		if errA != nil || errB != nil || fa != fb {
			return fmt.Sprintf("%s: %s vs %s", path, x, y)
		}
		return ""
	default:
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		return ""
	}
}

// roundTrip checks Encode(Decode(Encode(m))) == Encode(m) and returns the
// first encoding.
func roundTrip(t *testing.T, m *bir.Module) []byte {
	t.Helper()
	out := mustEncode(t, m)
	m2, err := Decode(out, "reencoded.json")
	if err != nil {
		t.Fatalf("Decode of our own output: %v\n%s", err, out)
	}
	out2 := mustEncode(t, m2)
	if !bytes.Equal(out, out2) {
		t.Fatalf("re-encoding differs:\n%s\n----\n%s", out, out2)
	}
	return out
}

func instByName(t *testing.T, f *bir.Function, name string) bir.InstID {
	t.Helper()
	i, ok := f.InstByName(name)
	if !ok {
		t.Fatalf("function %s has no instruction %q", f.Name, name)
	}
	return i
}

// ---- bir-json.md §7 ----

func TestRead_SpecExample(t *testing.T) {
	m, data := mustRead(t, "testdata/spec_example.json")
	if m.Version != 2 || m.Arch != "gen3" || !m.HasCoreID || m.NeuronCoreID != 0 {
		t.Errorf("module header: version %d arch %q core %v/%d", m.Version, m.Arch, m.HasCoreID, m.NeuronCoreID)
	}
	if len(m.Funcs) != 1 || m.Funcs[0].Name != "sg0000" {
		t.Fatalf("functions: %d", len(m.Funcs))
	}
	f := m.Funcs[0]
	if f.NumTensors() != 6 || f.NumLocs() != 6 {
		t.Errorf("tensors %d, locations %d, want 6 and 6", f.NumTensors(), f.NumLocs())
	}
	tz, ok := f.TensorByName("z_sb_set")
	if !ok {
		t.Fatal("no tensor z_sb_set")
	}
	ts := f.Tensor(tz)
	if ts.Kind != bir.KindInternal || ts.Class != bir.ClassNeuronSBTensor || ts.Dtype != bir.Float32 ||
		ts.AddrSpace != bir.AddrShared || len(ts.Shape) != 2 || ts.Shape[0] != 128 || ts.Shape[1] != 512 || len(ts.Locs) != 1 {
		t.Errorf("z_sb_set = %+v", ts)
	}
	l := f.Loc(ts.Locs[0])
	if l.Name != "z_sb" || l.Type != bir.MemSB || l.Partitions != 128 || l.Bytes != 2048 || l.RawDims != nil {
		t.Errorf("z_sb = %+v", l)
	}
	if got := f.NumInsts(); got != 4 {
		t.Fatalf("NumInsts = %d, want 4", got)
	}
	add := instByName(t, f, "add_xy")
	in := f.Inst(add)
	if in.Op != bir.OpTensorTensor || in.Engine != bir.EngDVE {
		t.Errorf("add_xy: op %v engine %v", in.Op, in.Engine)
	}
	if a := f.Attrs(add); a.Str("op", "") != "add" || a.Str("acc", "") != "Idle" || len(a) != 2 {
		t.Errorf("add_xy attrs = %v", a)
	}
	ins, outs := f.Ins(add), f.Outs(add)
	if len(ins) != 2 || len(outs) != 1 {
		t.Fatalf("add_xy operands %d/%d", len(ins), len(outs))
	}
	o := outs[0]
	if o.Kind != bir.OpdPhysAP || f.Loc(o.Loc()).Name != "z_sb" || o.Dtype != bir.Float32 || o.Offset != 0 {
		t.Errorf("add_xy out = %+v", o)
	}
	if p := m.Pattern(o.Pattern); len(p) != 2 || p[0] != (bir.APPair{Step: 512, Num: 128}) || p[1] != (bir.APPair{Step: 1, Num: 512}) {
		t.Errorf("add_xy out pattern = %v", p)
	}
	ld := instByName(t, f, "ld_x")
	if a := f.Attrs(ld); a.Str("dge_type", "") != "None" || !a.Has("queue") || a.Bool("duplicate", true) || len(a) != 4 {
		t.Errorf("ld_x attrs = %v", a)
	}
	if v, _ := f.Attrs(ld).Get("queue"); v.Kind != bir.ValNull {
		t.Errorf("ld_x queue = %v, want null", v)
	}
	// Every field survives a save: the output is the same JSON value.
	out := roundTrip(t, m)
	if d := diffJSON("$", jsonTree(t, data), jsonTree(t, out)); d != "" {
		t.Errorf("saved module differs from the input at %s\n%s", d, out)
	}
}

// ---- unknown fields ----

func TestRead_UnknownFieldsKept(t *testing.T) {
	m, data := mustRead(t, "testdata/unknown_fields.json")
	out := roundTrip(t, m)
	if d := subsetJSON("$", jsonTree(t, data), jsonTree(t, out)); d != "" {
		t.Fatalf("data lost passing through narwhal, first difference at %s\n%s", d, out)
	}
	f := m.Funcs[0]
	checks := []struct {
		what string
		set  bir.AttrSet
		key  string
		want string // JSON of the kept value
	}{
		{"module extra", m.Extra, "compiler_build", `{"git":"abc123","flags":["-O2","--fast"],"nested":{"deep":[1,2.5,null,true,{"x":"nan"}]}}`},
		{"module extra", m.Extra, "trailer", `null`},
		{"module attributes", m.ModuleAttrs, "lnc", `2`},
		{"module attributes", m.ModuleAttrs, "scale", `0.25`},
		{"function extra", f.Extra, "fn_hash", `1234567890123`},
		{"function extra", f.Extra, "fn_meta", `{"source":"kernel.py","line":42,"cols":[1.5,-0.002]}`},
		{"tensor extra", f.Tensor(0).Extra, "quant", `{"scale":"inf","zero_point":-3}`},
		{"tensor extra (null kept)", f.Tensor(0).Extra, "partition_dim", `null`},
		{"location extra", f.Loc(0).Extra, "hint", `{"prefer":"near"}`},
		{"location extra (null kept)", f.Loc(0).Extra, "tensor_id", `null`},
		{"block extra", f.Block(f.Top[0]).Extra, "block_weight", `0.5`},
	}
	for _, c := range checks {
		v, ok := c.set.Get(c.key)
		if !ok {
			t.Errorf("%s: %q missing", c.what, c.key)
			continue
		}
		if got := v.JSON(); got != c.want {
			t.Errorf("%s %q = %s, want %s", c.what, c.key, got, c.want)
		}
	}
	if !m.HasCoreID || m.NeuronCoreID != 1 {
		t.Errorf("neuron_core_id = %v/%d", m.HasCoreID, m.NeuronCoreID)
	}
	if f.Tensor(0).AddrSpace != bir.AddrNone || !f.Tensor(0).NoSpill || f.Tensor(0).File != "weights/x.npy" {
		t.Errorf("x_set = %+v", f.Tensor(0))
	}
	// A dims list that is not [partitions, bytes] is kept; Bytes comes from
	// the tensor (4*64 bf16 elements per partition).
	if l := f.Loc(1); len(l.RawDims) != 3 || l.Partitions != 128 || l.Bytes != 512 {
		t.Errorf("t: RawDims %v, Partitions %d, Bytes %d", l.RawDims, l.Partitions, l.Bytes)
	}
	// Unknown opcodes keep their name and every field.
	fancy := instByName(t, f, "fancy")
	if got := f.OpName(fancy); got != "FancyNewOp" || f.Inst(fancy).Op < bir.FirstUnknownOpcode {
		t.Errorf("fancy opcode = %q (%d)", got, f.Inst(fancy).Op)
	}
	a := f.Attrs(fancy)
	var keys []string
	for _, fld := range a {
		keys = append(keys, fld.Key)
	}
	if got := strings.Join(keys, ","); got != "alpha,beta,gamma,table,mode,big,tiny,neg" {
		t.Errorf("FancyNewOp attribute order = %s", got)
	}
	if v, _ := a.Get("alpha"); v.Kind != bir.ValFloat || v.F != 1 {
		t.Errorf("alpha = %+v, want the float 1.0", v)
	}
	if v, _ := a.Get("neg"); v.Kind != bir.ValInt || v.I != -7 {
		t.Errorf("neg = %+v, want the integer -7", v)
	}
	if a.Float("beta", 0) != math.Inf(-1) || !math.IsNaN(a.Float("gamma", 0)) {
		t.Errorf("beta/gamma = %v/%v", a.Float("beta", 0), a.Float("gamma", 0))
	}
	ins := f.Ins(fancy)
	if ins[0].Flags&bir.OpdFlagFloat == 0 || ins[0].ImmFloat() != 0.5 {
		t.Errorf("imm 0.5 = %+v", ins[0])
	}
	if ins[1].Flags&bir.OpdFlagFloat != 0 || ins[1].ImmInt() != -12 || ins[1].Dtype != bir.Int32 {
		t.Errorf("imm -12 = %+v", ins[1])
	}
	if !math.IsNaN(ins[2].ImmFloat()) {
		t.Errorf("imm nan = %v", ins[2].ImmFloat())
	}
	if ins[3].Kind != bir.OpdImmArray || m.Attrs(bir.AttrID(ins[3].Ref)).Key() != `{"value_array":[1,2.5,"inf"]}` {
		t.Errorf("imm_array = %+v", ins[3])
	}
	if x := m.Attrs(ins[3].Extra); x.Key() != `{"packed":false}` {
		t.Errorf("imm_array extra = %s", x.Key())
	}
	// A key of another operand kind is kept, not interpreted.
	if x := m.Attrs(f.Outs(fancy)[0].Extra); x.Key() != `{"regref":"ignored_here"}` {
		t.Errorf("physical_ap extra = %s", x.Key())
	}
	u2 := instByName(t, f, "u2")
	if a := f.Attrs(u2); !a.Has("blocks") || !a.Has("LoopAxis") {
		t.Errorf("u2 attrs = %v (blocks/LoopAxis of a non-loop are opaque fields)", a)
	}
	tt := instByName(t, f, "tt")
	if r := f.Ins(tt)[1]; r.Kind != bir.OpdRegister || f.Reg(bir.RegID(r.Ref)).Name != "r7" {
		t.Errorf("register_access = %+v", r)
	}
}

// TestRead_HandWrittenVerifiesAndKeepsEverything is the must-show:
// a BIR-JSON file written by hand from bir-json.md (§7's example plus a
// loop, an unknown opcode and unknown keys at every level) loads, passes
// the verifier, and saves with every field, known or not, preserved.
func TestRead_HandWrittenVerifiesAndKeepsEverything(t *testing.T) {
	m, data := mustRead(t, "testdata/handwritten_unknown.json")
	if err := verify.Module(m, verify.Options{}); err != nil {
		t.Fatalf("the hand-written module does not verify: %v", err)
	}
	out := roundTrip(t, m)
	if d := subsetJSON("$", jsonTree(t, data), jsonTree(t, out)); d != "" {
		t.Fatalf("data lost passing through narwhal, first difference at %s\n%s", d, out)
	}
	// The unknown keys are there to be kept: make sure the file has them.
	for _, key := range []string{`"vendor_attr"`, `"compiler_build"`, `"fn_hash"`, `"quant"`, `"hint"`, `"block_weight"`,
		`"debug_loc"`, `"scale_hint"`, `"unroll_hint"`, `"loop_note"`, `"trace_id"`, `"FancyNewOp"`} {
		if !bytes.Contains(data, []byte(key)) || !bytes.Contains(out, []byte(key)) {
			t.Errorf("%s missing from the input or the output", key)
		}
	}
}

// TestRead_DanglingReferencePosition: a memref resolved after the operand
// is read (the two-pass load) is reported at the memref's value, not at
// the start of the file.
func TestRead_DanglingReferencePosition(t *testing.T) {
	src := strings.Replace(base, `"memref":"b"`, `"memref":"nope"`, 1)
	_, err := Decode([]byte(src), "d.json")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	off := strings.Index(src, `"nope"`)
	line := strings.Count(src[:off], "\n") + 1
	col := off - strings.LastIndex(src[:off], "\n")
	if e.Line != line || e.Col != col {
		t.Errorf("dangling memref reported at %d:%d, want %d:%d (%v)", e.Line, e.Col, line, col, err)
	}
}

// TestRead_DanglingBranchTarget: branch targets (bir-json.md §4.4) are
// block names the loader keeps verbatim; one that names no block of the
// function loads, and the verifier reports it (rule "ref") naming the
// instruction, the field and the missing block. With the target fixed the
// same file verifies.
func TestRead_DanglingBranchTarget(t *testing.T) {
	m, data := mustRead(t, "testdata/branch_dangling.json")
	err := verify.Module(m, verify.Options{})
	var ve *verify.Error
	if !errors.As(err, &ve) {
		t.Fatalf("verify = %v, want a *verify.Error for the dangling target", err)
	}
	ds := ve.Diags()
	if len(ds) != 1 {
		t.Fatalf("diagnostics %v, want exactly the dangling target", ds)
	}
	d := ds[0]
	if d.Rule != "ref" || d.Inst != "br" || d.Op != "UnconditionalBranch" || !strings.Contains(d.Msg, `target: block "NoSuchBlock"`) {
		t.Errorf("diagnostic %s: want rule ref on instruction br naming target and block NoSuchBlock", d)
	}
	fixed, err := Decode(bytes.Replace(data, []byte(`"NoSuchBlock"`), []byte(`"Block2"`), 1), "fixed.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := verify.Module(fixed, verify.Options{}); err != nil {
		t.Errorf("with the target fixed: %v", err)
	}
}

// TestRead_BigNumbersKept: integers beyond int64 (a uint64 hash) and
// floats beyond float64 in unmodelled fields are written back as the same
// literals, not rounded (bir.ValNumber).
func TestRead_BigNumbersKept(t *testing.T) {
	src := `{"version":2,"arch":"gen3","attributes":{"neuron_core_id":0,"mask":18446744073709551615},` +
		`"hash":123456789012345678901234567890,"huge":[1e400,-1E+999],"neg":-9223372036854775809,"ok":[9223372036854775807,0.1,1e-400],"functions":[]}`
	m, err := Decode([]byte(src), "big.json")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.ModuleAttrs.Get("mask"); v.Kind != bir.ValNumber || v.S != "18446744073709551615" {
		t.Errorf("mask = %+v, want the literal kept", v)
	}
	if v, _ := m.Extra.Get("ok"); v.L[0].Kind != bir.ValInt || v.L[1].Kind != bir.ValFloat {
		t.Errorf("ok = %+v: representable numbers must stay ints and floats", v)
	}
	out := roundTrip(t, m)
	for _, lit := range []string{"18446744073709551615", "123456789012345678901234567890", "[1e400,-1E+999]", "-9223372036854775809"} {
		if !bytes.Contains(out, []byte(lit)) {
			t.Errorf("saved module lacks %s:\n%s", lit, out)
		}
	}
}

// ---- narwhal's extensions ----

func TestRead_Extensions(t *testing.T) {
	m, _ := mustRead(t, "testdata/extensions.json")
	roundTrip(t, m)
	if m.HasCoreID {
		t.Error("neuron_core_id null: HasCoreID should be false")
	}
	if m.Config.MaxInstructionLimit != 250000 || m.Config.Options["gen-stride-dma"] != "true" || m.Config.Options["enable-vn-split"] != "false" {
		t.Errorf("config = %+v", m.Config)
	}
	if m.ArtifactDir != "/tmp/artifacts" || m.Arch != "trn2" {
		t.Errorf("artifact_dir %q arch %q", m.ArtifactDir, m.Arch)
	}
	if h := m.Func("helper"); h == nil || h.Kind != bir.FuncNKI {
		t.Errorf("helper kind: %+v", h)
	}
	f := m.Func("main")
	if f.Kind != bir.FuncNormal || !f.HasAttribute("need_unroll") {
		t.Errorf("main kind %v attributes %v", f.Kind, f.Attributes)
	}
	buf, _ := f.TensorByName("buf_set")
	ts := f.Tensor(buf)
	if !ts.IsBlock || ts.NBlocks != 4 || len(ts.SplitShape) != 2 || !ts.SplitShape[1] || ts.ShrinkDim != 0 || ts.LiveN != 2 {
		t.Errorf("buf_set annotations = %+v", ts)
	}
	z, _ := f.LocByName("z")
	if f.Loc(z).OutputKind != 7 {
		t.Errorf("z output_kind = %d", f.Loc(z).OutputKind)
	}

	// Loops: named and generated names, axes, bodies.
	li := instByName(t, f, "loop_i")
	ax := m.Axis(f.Loop(li).Axis)
	if ax.Name != "i" || ax.Lb != 0 || ax.Ub != 4 || ax.Stride != 1 || ax.Extra.Key() != `{"unroll_hint":2}` {
		t.Errorf("LoopAxis i = %+v", ax)
	}
	lj := instByName(t, f, "loop_j") // generated from the axis name
	if m.Axis(f.Loop(lj).Axis).Name != "j" {
		t.Errorf("loop_j axis = %q", m.Axis(f.Loop(lj).Axis).Name)
	}
	scale := instByName(t, f, "scale")
	if nest := f.Loopnest(scale); len(nest) != 2 || nest[0] != li || nest[1] != lj {
		t.Errorf("loopnest of scale = %v", nest)
	}
	i, j := f.Loop(li).Axis, f.Loop(lj).Axis

	// Predicate.
	want := affine.And(affine.GE(affine.Var(i), affine.Var(j)), affine.EQ(affine.Mod(affine.Var(j), 2), affine.Const(0)))
	if got := m.Pred(f.Inst(scale).Pred); got.Key() != want.Key() {
		t.Errorf("predicate = %s, want %s", got.Format(m.AxisName), want.Format(m.AxisName))
	}

	// Symbolic APs: addrs resolve against the enclosing loops.
	in := f.Ins(scale)[0]
	if in.Kind != bir.OpdSymAP || f.Tensor(in.TensorRef()).Name != "buf_set" {
		t.Fatalf("scale in = %+v", in)
	}
	if got := m.Expr(in.BlockExpr()); !affine.Equal(got, affine.Var(i)) {
		t.Errorf("block expr = %s", got.Format(m.AxisName))
	}
	if got := m.Expr(in.OffsetExpr()); !affine.Equal(got, affine.Scale(affine.Var(j), 256)) {
		t.Errorf("offset expr = %s", got.Format(m.AxisName))
	}
	if in.Extra != 0 {
		t.Errorf("access_shape equal to the pattern should not be kept: %s", m.Attrs(in.Extra).Key())
	}

	// Dependencies: forward reference, carried edge with predicate.
	ld := instByName(t, f, "ld")
	st := instByName(t, f, "st")
	deps := f.Deps(ld)
	if len(deps) != 1 || deps[0].On != st || deps[0].Kind != bir.DepAnti || deps[0].CarryAxis != i || deps[0].CarryDist != 1 {
		t.Fatalf("ld deps = %+v", deps)
	}
	if got := m.Pred(deps[0].Pred); got.Key() != affine.GE(affine.Var(i), affine.Const(1)).Key() {
		t.Errorf("dep predicate = %s", got.Format(m.AxisName))
	}
	if d := f.Deps(scale); len(d) != 1 || d[0].On != ld || d[0].Kind != bir.DepFlow || d[0].CarryAxis != bir.NoAxis || d[0].Pred != 0 {
		t.Errorf("scale deps = %+v", d)
	}

	// symbolic_imm_value, register_ap and the KLR QAE stub.
	iota := instByName(t, f, "iota")
	ops := f.Ins(iota)
	if ops[0].Kind != bir.OpdSymImm || !affine.Equal(m.Expr(ops[0].Expr), affine.AddConst(affine.Scale(affine.Var(i), 2), 1)) {
		t.Errorf("symbolic_imm_value expr = %s", m.Expr(ops[0].Expr).Format(m.AxisName))
	}
	if got := m.Attrs(bir.AttrID(ops[0].Ref)).Key(); got != `{"value_list":[{"value":1},{"value":3}]}` {
		t.Errorf("value_list (wrapped) = %s", got)
	}
	if ops[1].Expr != 0 || m.Attrs(ops[1].Extra).Key() != `{"expr":{"kind":"AffExprKind"}}` {
		t.Errorf("stub expr: Expr %d Extra %s", ops[1].Expr, m.Attrs(ops[1].Extra).Key())
	}
	if got := m.Attrs(bir.AttrID(ops[1].Ref)).Key(); got != `{"value_list":[5,6]}` {
		t.Errorf("value_list (bare) = %s", got)
	}
	if ops[2].Kind != bir.OpdRegAP || f.Reg(bir.RegID(ops[2].Expr)).Name != "r0" || m.Attrs(ops[2].Extra).Key() != `{"reg_ap_offset":"r1"}` {
		t.Errorf("register_ap = %+v", ops[2])
	}
	if ops[3].BlockExpr() != 0 || ops[3].OffsetExpr() != 0 ||
		m.Attrs(ops[3].Extra).Key() != `{"addrs":[{"kind":"AffExprKind"},{"kind":"AffExprKind"}],"access_shape":[128,2]}` {
		t.Errorf("stub addrs: %+v extra %s", ops[3], m.Attrs(ops[3].Extra).Key())
	}
}

// A file without any extension loads with defaults.
func TestRead_Defaults(t *testing.T) {
	src := `{"functions":[{"name":"f","blocks":[{"name":"B","instructions":[
	  {"opcode":"Loop","LoopAxis":{"name":"k","lb":0,"ub":3,"stride":1},"blocks":[{"name":"Bk","instructions":[]}]},
	  {"opcode":"Loop","LoopAxis":{"name":"k","lb":0,"ub":3,"stride":1},"blocks":[{"name":"Bk2","instructions":[]}]},
	  {"opcode":"NoOp","name":"loop_k"}]}]}]}`
	m, err := Decode([]byte(src), "defaults.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 2 || m.Arch != "gen3" || m.HasCoreID || m.ArtifactDir != "" || m.Config.MaxInstructionLimit != 0 || len(m.Config.Options) != 0 {
		t.Errorf("module defaults: %+v", m)
	}
	f := m.Funcs[0]
	if f.Kind != bir.FuncNormal || f.NumTensors() != 0 {
		t.Errorf("function defaults: kind %v tensors %d", f.Kind, f.NumTensors())
	}
	// Generated loop names avoid every instruction name, including later ones.
	var names []string
	f.Walk(func(i bir.InstID) bool {
		names = append(names, f.InstName(i))
		if f.HasDeps(i) || f.Inst(i).Pred != 0 {
			t.Errorf("%s: no deps/predicate expected", f.InstName(i))
		}
		return true
	})
	if got := strings.Join(names, ","); got != "loop_k_1,loop_k_2,loop_k" {
		t.Errorf("instruction names = %s", got)
	}
	out := roundTrip(t, m)
	for _, absent := range []string{`"config"`, `"artifact_dir"`, `"kind":"nki"`, `"is_block"`, `"live_n"`, `"deps"`, `"predicate"`} {
		if bytes.Contains(out, []byte(absent)) {
			t.Errorf("output has %s although the module does not use it", absent)
		}
	}
	if !bytes.Contains(out, []byte(`"neuron_core_id":null`)) {
		t.Errorf("unset core id should be written as null:\n%s", out)
	}
}

// Key order has no meaning: a file with every object's keys reversed
// decodes to the same module (up to the order of attribute and Extra
// fields, which is the source order by design).
func TestRead_KeyOrder(t *testing.T) {
	for _, file := range []string{"testdata/spec_example.json", "testdata/extensions.json", "testdata/unknown_fields.json"} {
		t.Run(file, func(t *testing.T) {
			m, data := mustRead(t, file)
			want := mustEncode(t, m)
			rev := reverseKeys(t, data)
			m2, err := Decode(rev, "reversed.json")
			if err != nil {
				t.Fatalf("reversed: %v\n%s", err, rev)
			}
			got := roundTrip(t, m2)
			if d := diffJSON("$", jsonTree(t, want), jsonTree(t, got)); d != "" {
				t.Errorf("reversed key order decodes differently at %s:\n%s\n----\n%s", d, got, want)
			}
		})
	}
}

// reverseKeys rewrites JSON with the keys of every object reversed. It works
// on the raw text so numbers keep their spelling.
func reverseKeys(t *testing.T, data []byte) []byte {
	t.Helper()
	s := &scanner{data: data}
	s.ws()
	var out []byte
	var walk func() error
	walk = func() error {
		start := s.pos
		switch s.peek() {
		case '{':
			more, err := s.beginObject("")
			var fields [][]byte
			for err == nil && more {
				kstart := s.pos
				if _, _, err = s.key(); err != nil {
					return err
				}
				saved := out
				out = append([]byte(nil), data[kstart:s.pos]...)
				if err = walk(); err != nil {
					return err
				}
				fields = append(fields, out)
				out = saved
				more, err = s.nextField()
			}
			if err != nil {
				return err
			}
			out = append(out, '{')
			for i := len(fields) - 1; i >= 0; i-- {
				out = append(out, fields[i]...)
				if i > 0 {
					out = append(out, ',')
				}
			}
			out = append(out, '}')
		case '[':
			more, err := s.beginArray("")
			out = append(out, '[')
			for first := true; err == nil && more; first = false {
				if !first {
					out = append(out, ',')
				}
				if err = walk(); err != nil {
					return err
				}
				more, err = s.nextElem()
			}
			if err != nil {
				return err
			}
			out = append(out, ']')
		default:
			if err := s.skip(); err != nil {
				return err
			}
			out = append(out, data[start:s.pos]...)
		}
		return nil
	}
	if err := walk(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ---- dtypes ----

func TestRead_Dtypes(t *testing.T) {
	spec := []string{"bfloat16", "float8e3", "float8e4", "float8e5", "float16", "float32", "float32r", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
	var all []string
	all = append(all, spec...)
	for d := bir.Dtype(0); d <= bir.MaxDtype; d++ {
		all = append(all, d.String())
	}
	for _, name := range all {
		want, err := bir.ParseDtype(name)
		if err != nil {
			t.Fatalf("bir.ParseDtype(%q): %v", name, err)
		}
		m, err := Decode([]byte(dtypeModule(strconv.Quote(name))), "dt.json")
		if err != nil {
			t.Errorf("dtype %q: %v", name, err)
			continue
		}
		f := m.Funcs[0]
		o := f.Outs(0)[0]
		if f.Tensor(0).Dtype != want || o.Dtype != want {
			t.Errorf("dtype %q decoded as %v/%v, want %v", name, f.Tensor(0).Dtype, o.Dtype, want)
		}
		out := roundTrip(t, m)
		if !bytes.Contains(out, []byte(`"dtype":"`+want.String()+`"`)) {
			t.Errorf("dtype %q not written as %q", name, want.String())
		}
	}
	for n := 0; n <= int(bir.MaxDtype); n++ {
		m, err := Decode([]byte(dtypeModule(strconv.Itoa(n))), "dt.json")
		if err != nil {
			t.Errorf("dtype number %d: %v", n, err)
		} else if m.Funcs[0].Outs(0)[0].Dtype != bir.Dtype(n) {
			t.Errorf("dtype number %d decoded as %v", n, m.Funcs[0].Outs(0)[0].Dtype)
		}
	}
	// The spec's names are what the writer uses for the spec's types.
	for _, name := range spec {
		d, _ := bir.ParseDtype(name)
		if d.String() != name {
			t.Errorf("dtype %q is written as %q", name, d.String())
		}
	}
}

func dtypeModule(dt string) string {
	return `{"functions":[{"name":"main","allocations":[
	  {"name":"a_set","kind":"Internal","dtype":` + dt + `,"tensor_shape":[128,64],
	   "memorylocations":[{"name":"a","type":"SB","dims":[128,256]}]}],
	 "blocks":[{"name":"B","instructions":[{"opcode":"Memset","name":"ms","engine":"Pool","mode":"Const","constant":0,"ins":[],
	   "outs":[{"kind":"physical_ap","memref":"a","dtype":` + dt + `,"offset":0,"ap":[[64,128],[1,64]]}]}]}]}]}`
}

// ---- errors ----

// base is a small valid module; the error cases below change one thing.
const base = `{"version":2,"arch":"gen3","attributes":{"neuron_core_id":0},"functions":[{"name":"main","attributes":[],
"allocations":[{"Skind":"memory_location_set","name":"a_set","kind":"Internal","tensor_class":"NeuronSBTensor","dtype":"float32","tensor_shape":[128,64],
  "memorylocations":[{"Skind":"memory_location","name":"a","type":"SB","dims":[128,256]}]},
 {"Skind":"memory_location_set","name":"b_set","kind":"Internal","tensor_class":"NeuronSBTensor","dtype":"float32","tensor_shape":[128,64],
  "memorylocations":[{"Skind":"memory_location","name":"b","type":"SB","dims":[128,256]}]}],
"blocks":[{"name":"Block1","instructions":[
 {"opcode":"TensorTensor","name":"add_3","engine":"DVE","op":"add","acc":"Idle",
  "ins":[{"kind":"physical_ap","memref":"a","memsetref":"a_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]},
         {"kind":"physical_ap","memref":"b","memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]}],
  "outs":[{"kind":"physical_ap","memref":"a","memsetref":"a_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]}]}]}]}]}`

func TestRead_BaseIsValid(t *testing.T) {
	m, err := Decode([]byte(base), "base.json")
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, m)
}

func TestRead_Errors(t *testing.T) {
	rep := func(old, new string) string {
		if !strings.Contains(base, old) {
			panic("test case does not apply: " + old)
		}
		return strings.Replace(base, old, new, 1)
	}
	loop := func(body string) string {
		return rep(`{"opcode":"TensorTensor"`, `{"opcode":"Loop","name":"L","LoopAxis":{"name":"i","lb":0,"ub":4,"stride":1},"blocks":[{"name":"Bi","instructions":[`+body+`]}]},{"opcode":"TensorTensor"`)
	}
	cases := []struct {
		name string
		in   string
		want []string // substrings of the error
	}{
		// Malformed JSON: file:line:col.
		{"empty", ``, []string{"e.json:1:1: module: want an object, found end of input"}},
		{"truncated", `{"version":2,`, []string{"e.json:1:14: want an object key (a string), found end of input"}},
		{"missing colon", `{"version" 2}`, []string{"e.json:1:12: want ':' after object key \"version\""}},
		{"bad separator", "{\n  \"version\": 2;\n}", []string{"e.json:2:15: want ',' or '}' after an object field, found ';'"}},
		{"line and column", "{\n  \"version\": 2,\n  \"arch\": 5\n}", []string{"e.json:3:11: want a string, found a number"}},
		{"unterminated string", `{"arch":"gen3`, []string{"e.json:1:9: unterminated string"}},
		{"control char", "{\"arch\":\"ge\x01n3\"}", []string{"e.json:1:12: control character 0x01"}},
		{"bad escape", `{"arch":"g\qen3"}`, []string{`e.json:1:11: bad escape \q`}},
		{"leading zero", `{"version":01}`, []string{"e.json:1:13: want ',' or '}' after an object field, found a number"}},
		{"bad number", `{"version":1.}`, []string{"malformed number: want a digit after '.'"}},
		{"float where int", `{"version":2.5}`, []string{"e.json:1:12: want an integer, found 2.5"}},
		{"int overflow", `{"version":99999999999999999999}`, []string{"does not fit in 64 bits"}},
		{"trailing data", base + ` x`, []string{"unexpected 'x' after the module object"}},
		{"bad literal", `{"version":2,"x":nul}`, []string{"malformed literal: want null"}},
		{"too deep", `{"x":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `,"functions":[]}`, []string{"nesting deeper than 512 levels"}},

		// Structure.
		{"no functions", `{"version":2}`, []string{`module: missing "functions"`}},
		{"duplicate key", rep(`"arch":"gen3"`, `"arch":"gen3","arch":"gen2"`), []string{`duplicate key "arch"`}},
		{"duplicate attr", rep(`"op":"add"`, `"op":"add","op":"mult"`), []string{"function main, instruction add_3: duplicate key \"op\""}},
		{"missing fn name", rep(`"name":"main",`, ``), []string{"function #0: missing \"name\""}},
		{"duplicate fn", rep(`"functions":[{"name":"main","attributes":[],`, `"functions":[{"name":"main","blocks":[]},{"name":"main","attributes":[],`), []string{`duplicate function name "main"`}},
		{"missing opcode", rep(`"opcode":"TensorTensor",`, ``), []string{"function main, instruction add_3: missing \"opcode\""}},
		{"schedule unknown key", rep(`"op":"add"`, `"op":"add","schedule":{"start":1}`), []string{`schedule: unknown key "start"`}},
		{"schedule half", rep(`"op":"add"`, `"op":"add","schedule":{"start_ps":1}`), []string{"start_ps and end_ps go together"}},
		{"schedule reversed", rep(`"op":"add"`, `"op":"add","schedule":{"start_ps":5,"end_ps":1}`), []string{"end_ps 1 before start_ps 5"}},
		{"schedule negative", rep(`"op":"add"`, `"op":"add","schedule":{"queue":-2}`), []string{"schedule.queue: want an integer >= 0, have -2"}},
		{"schedule queue range", rep(`"op":"add"`, `"op":"add","schedule":{"queue":40000}`), []string{"schedule.queue: 40000 is out of range (at most 32767)"}},
		{"schedule duplicate", rep(`"op":"add"`, `"op":"add","schedule":{"order":1,"order":2}`), []string{`schedule: duplicate key "order"`}},
		{"schedule twice", rep(`"op":"add"`, `"op":"add","schedule":{},"schedule":{}`), []string{`duplicate key "schedule"`}},
		{"sync unknown key", rep(`"op":"add"`, `"op":"add","sync":{"wait":[]}`), []string{`sync: unknown key "wait"`}},
		{"sync trigger engine", rep(`"op":"add"`, `"op":"add","sync":{"trigger":"Nowhere"}`), []string{`engine: unknown engine "Nowhere"`}},
		{"sync pair", rep(`"op":"add"`, `"op":"add","sync":{"waits":[[1,2,3]]}`), []string{`sync.waits: want [semaphore, value] or [semaphore, value, "iteration term"]`}},
		{"sync single", rep(`"op":"add"`, `"op":"add","sync":{"waits":[[1]]}`), []string{"sync.waits: want [semaphore, value] pairs, have a list of 1"}},
		{"sync update term", rep(`"op":"add"`, `"op":"add","sync":{"updates":[[1,2,"i"]]}`), []string{"sync.updates iteration term"}},
		{"sync negative semaphore", rep(`"op":"add"`, `"op":"add","sync":{"updates":[[-1,1]]}`), []string{"sync.updates: [-1, 1]: want a semaphore in 0..2147483647 and a 32-bit value"}},
		{"sync value range", rep(`"op":"add"`, `"op":"add","sync":{"waits":[[0,4294967296]]}`), []string{"want a semaphore in 0..2147483647 and a 32-bit value"}},
		{"sync duplicate", rep(`"op":"add"`, `"op":"add","sync":{"waits":[],"waits":[]}`), []string{`sync: duplicate key "waits"`}},
		{"missing inst name", rep(`"name":"add_3",`, ``), []string{"function main, instruction #0: missing \"name\""}},
		{"empty opcode", rep(`"opcode":"TensorTensor"`, `"opcode":""`), []string{"instruction add_3: opcode is empty"}},
		{"bad engine", rep(`"engine":"DVE"`, `"engine":"GPU"`), []string{`instruction add_3: engine: unknown engine "GPU"`}},
		{"block name", rep(`{"name":"Block1",`, `{`), []string{"function main, block #0: missing \"name\""}},

		// Allocations.
		{"alloc missing dtype", rep(`"dtype":"float32","tensor_shape":[128,64],
  "memorylocations":[{"Skind":"memory_location","name":"a"`, `"tensor_shape":[128,64],
  "memorylocations":[{"Skind":"memory_location","name":"a"`), []string{"function main, allocation a_set: missing \"dtype\""}},
		{"alloc bad dtype", rep(`"kind":"Internal","tensor_class":"NeuronSBTensor","dtype":"float32"`, `"kind":"Internal","tensor_class":"NeuronSBTensor","dtype":"float42"`), []string{`function main, allocation a_set: dtype: unknown dtype "float42"`}},
		{"alloc null dtype", rep(`"kind":"Internal","tensor_class":"NeuronSBTensor","dtype":"float32"`, `"kind":"Internal","tensor_class":"NeuronSBTensor","dtype":null`), []string{"allocation a_set: dtype is null"}},
		{"bad tensor kind", rep(`"kind":"Internal"`, `"kind":"Temporary"`), []string{`allocation a_set: kind: unknown tensor kind "Temporary"`}},
		{"bad class", rep(`"tensor_class":"NeuronSBTensor"`, `"tensor_class":"Blob"`), []string{`allocation a_set: tensor_class: unknown tensor class "Blob"`}},
		{"bad skind", rep(`"Skind":"memory_location_set"`, `"Skind":"register"`), []string{`allocation a_set: Skind: want "memory_location_set", have "register"`}},
		{"bad memtype", rep(`"type":"SB"`, `"type":"L2"`), []string{`allocation a_set, memory location a: type: unknown memory type "L2"`}},
		{"negative dims", rep(`"dims":[128,256]`, `"dims":[128,-4]`), []string{"allocation a_set, memory location a: dims: want integers >= 0, have -4"}},
		{"loc size", rep(`"tensor_shape":[128,64],`, `"tensor_shape":[128,64],"tensorId2MemLocSize":2,`), []string{"allocation a_set: tensorId2MemLocSize: want 1 (the number of memorylocations), have 2"}},
		{"duplicate loc", rep(`"name":"b","type":"SB"`, `"name":"a","type":"SB"`), []string{`allocation b_set, memory location a: duplicate memory location name "a"`}},
		{"duplicate alloc", rep(`"name":"b_set"`, `"name":"a_set"`), []string{`duplicate allocation name "a_set"`}},

		// Operands.
		{"dangling memref", rep(`"memref":"b"`, `"memref":"nope"`), []string{`function main, instruction add_3, ins[1]: memref "nope" names no memory location`}},
		{"memsetref mismatch", rep(`"memref":"b","memsetref":"b_set"`, `"memref":"b","memsetref":"a_set"`), []string{`instruction add_3, ins[1]: memsetref "a_set" does not match memref "b", which belongs to "b_set"`}},
		{"operand bad dtype", rep(`"memsetref":"b_set","dtype":"float32"`, `"memsetref":"b_set","dtype":"f33"`), []string{`instruction add_3, ins[1]: dtype: unknown dtype "f33"`}},
		{"operand dtype number", rep(`"memsetref":"b_set","dtype":"float32"`, `"memsetref":"b_set","dtype":20`), []string{"instruction add_3, ins[1]: dtype: unknown dtype number 20: want 0..19"}},
		{"operand no kind", rep(`{"kind":"physical_ap","memref":"b",`, `{"memref":"b",`), []string{`instruction add_3, ins[1]: operand: missing "kind"`}},
		{"operand bad kind", rep(`{"kind":"physical_ap","memref":"b",`, `{"kind":"virtual_ap","memref":"b",`), []string{`ins[1]: kind: unknown operand kind "virtual_ap"`}},
		{"operand no ap", rep(`"memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]`, `"memsetref":"b_set","dtype":"float32","offset":0`), []string{`ins[1]: physical_ap operand: missing "ap"`}},
		{"negative offset", rep(`"memsetref":"b_set","dtype":"float32","offset":0`, `"memsetref":"b_set","dtype":"float32","offset":-8`), []string{"ins[1]: offset: want an integer >= 0, have -8"}},
		{"bad pair", rep(`"memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]`, `"memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1]]`), []string{"ins[1]: ap: want a [step, num] pair, found a single number"}},
		{"negative num", rep(`"memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]`, `"memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,-64]]`), []string{"ins[1]: ap: num must be >= 0, have -64"}},
		{"bad imm", rep(`{"kind":"physical_ap","memref":"b","memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]}`, `{"kind":"imm_value","dtype":"float32","value":"lots"}`), []string{`ins[1]: value: want a number or "nan", "inf", "-inf", have "lots"`}},
		{"sym dangling", rep(`{"kind":"physical_ap","memref":"b","memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]}`, `{"kind":"symbolic_ap","memsetref":"c_set","dtype":"float32","addrs":["0","0"],"ap":[[64,128],[1,64]]}`), []string{`ins[1]: memsetref "c_set" names no allocation`}},

		// Loops, affine text and dependencies.
		{"unknown axis", rep(`{"kind":"physical_ap","memref":"b","memsetref":"b_set","dtype":"float32","offset":0,"ap":[[64,128],[1,64]]}`, `{"kind":"symbolic_ap","memsetref":"b_set","dtype":"float32","addrs":["0","64*i"],"ap":[[64,128],[1,64]]}`), []string{`instruction add_3, ins[1]: addrs[1]: affine expression "64*i" at offset 3: "i" is not the LoopAxis name of an enclosing loop`}},
		{"addrs count", loop(`{"opcode":"NoOp","name":"n","ins":[{"kind":"symbolic_ap","memsetref":"b_set","dtype":"float32","addrs":["i"],"ap":[[64,128],[1,64]]}]}`), []string{"instruction n, ins[0]: addrs: want 2 affine expressions [block index, element offset], have 1"}},
		{"not quasi-affine", loop(`{"opcode":"NoOp","name":"n","predicate":"i*i >= 0"}`), []string{"instruction n: predicate: affine expression \"i*i >= 0\" at offset 4: product of two non-constant expressions is not quasi-affine"}},
		{"zero stride", rep(`{"opcode":"TensorTensor"`, `{"opcode":"Loop","name":"L","LoopAxis":{"name":"i","lb":0,"ub":4,"stride":0},"blocks":[]},{"opcode":"TensorTensor"`), []string{"instruction L: LoopAxis.stride: want > 0, have 0"}},
		{"loop no axis", rep(`{"opcode":"TensorTensor"`, `{"opcode":"Loop","name":"L","blocks":[]},{"opcode":"TensorTensor"`), []string{`instruction L: Loop: missing "LoopAxis"`}},
		{"loop axis no ub", rep(`{"opcode":"TensorTensor"`, `{"opcode":"Loop","name":"L","LoopAxis":{"name":"i","lb":0,"stride":1},"blocks":[]},{"opcode":"TensorTensor"`), []string{`instruction L: LoopAxis: missing "ub"`}},
		{"dangling dep", rep(`"op":"add"`, `"deps":[{"on":"ghost","kind":"FLOW"}],"op":"add"`), []string{`function main, instruction add_3, deps[0]: on: "ghost" names no instruction of the function`}},
		{"dep kind", rep(`"op":"add"`, `"deps":[{"on":"add_3","kind":"TRUE"}],"op":"add"`), []string{`instruction add_3, deps[0]: kind: unknown dependency kind "TRUE"`}},
		{"dep carry", rep(`"op":"add"`, `"deps":[{"on":"add_3","kind":"FLOW","carry_axis":"i"}],"op":"add"`), []string{`deps[0]: carry_axis: "i" is not the LoopAxis name of an enclosing loop`}},
		{"dep unknown key", rep(`"op":"add"`, `"deps":[{"on":"add_3","kind":"FLOW","why":1}],"op":"add"`), []string{`deps[0]: unknown key "why" in a dependency`}},
		{"dep half carry", loop(`{"opcode":"NoOp","name":"n","deps":[{"on":"n","kind":"FLOW","carry_axis":"i"}]}`), []string{"instruction n, deps[0]: carry_axis and carry_distance go together"}},

		// Config.
		{"config key", rep(`"version":2,`, `"version":2,"config":{"limit":3},`), []string{`config: unknown key "limit"`}},
		{"config option type", rep(`"version":2,`, `"version":2,"config":{"options":{"gen-stride-dma":true}},`), []string{`config.options.gen-stride-dma: want a string value`}},
		{"fn kind", rep(`"name":"main",`, `"name":"main","kind":"weird",`), []string{`function main: kind: unknown function kind "weird"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Decode([]byte(c.in), "e.json")
			if err == nil {
				t.Fatalf("no error; module %v", m)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *birjson.Error: %v", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans several lines: %q", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n  does not contain %q", err, w)
				}
			}
		})
	}
}

// Two instructions with the same name make a dependency on that name
// ambiguous; without dependencies duplicate names are accepted (KLR names
// every instruction "noop_test").
func TestRead_DuplicateNames(t *testing.T) {
	two := `{"functions":[{"name":"main","blocks":[{"name":"B","instructions":[
	  {"opcode":"NoOp","name":"noop_test"},{"opcode":"NoOp","name":"noop_test"}%s]}]}]}`
	m, err := Decode([]byte(fmt.Sprintf(two, "")), "dup.json")
	if err != nil {
		t.Fatalf("duplicate names without dependencies: %v", err)
	}
	roundTrip(t, m)
	_, err = Decode([]byte(fmt.Sprintf(two, `,{"opcode":"NoOp","name":"x","deps":[{"on":"noop_test","kind":"ORDERED"}]}`)), "dup.json")
	if err == nil || !strings.Contains(err.Error(), `instruction x, deps[0]: on: "noop_test" names more than one instruction`) {
		t.Errorf("ambiguous dependency: %v", err)
	}
}

// Shadowing: an inner loop axis of the same name hides the outer one.
func TestRead_AxisShadowing(t *testing.T) {
	src := `{"functions":[{"name":"main","allocations":[
	  {"name":"a_set","kind":"Internal","dtype":"float32","tensor_shape":[128,64],"memorylocations":[{"name":"a","type":"SB","dims":[128,256]}]}],
	 "blocks":[{"name":"B","instructions":[
	  {"opcode":"Loop","name":"outer","LoopAxis":{"name":"i","lb":0,"ub":2,"stride":1},"blocks":[{"name":"B1","instructions":[
	    {"opcode":"Loop","name":"inner","LoopAxis":{"name":"i","lb":0,"ub":8,"stride":1},"blocks":[{"name":"B2","instructions":[
	      {"opcode":"NoOp","name":"n","ins":[{"kind":"symbolic_ap","memsetref":"a_set","dtype":"float32","addrs":["0","i"],"ap":[[64,128],[1,1]]}]}]}]}]}]}]}]}]}`
	m, err := Decode([]byte(src), "shadow.json")
	if err != nil {
		t.Fatal(err)
	}
	f := m.Funcs[0]
	n := instByName(t, f, "n")
	inner := instByName(t, f, "inner")
	if got := m.Expr(f.Ins(n)[0].OffsetExpr()); !affine.Equal(got, affine.Var(f.Loop(inner).Axis)) {
		t.Errorf("i resolved to axis %v, want the inner loop's", got.Axes(nil))
	}
	roundTrip(t, m)
}

// The decoder does not retain the input: a module stays valid after the
// buffer is overwritten.
func TestRead_DoesNotRetainInput(t *testing.T) {
	data, err := os.ReadFile("testdata/unknown_fields.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(data, "x.json")
	if err != nil {
		t.Fatal(err)
	}
	want := mustEncode(t, m)
	for i := range data {
		data[i] = 'X'
	}
	if got := mustEncode(t, m); !bytes.Equal(got, want) {
		t.Error("module changed when the input buffer was overwritten")
	}
}

func TestReadFile_Missing(t *testing.T) {
	if _, err := ReadFile("testdata/does-not-exist.json"); err == nil || !strings.Contains(err.Error(), "does-not-exist.json") {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	m, err := Read(strings.NewReader(base), "reader.json")
	if err != nil || m.Funcs[0].NumInsts() != 1 {
		t.Errorf("Read: %v", err)
	}
}

// Large functions take the reader's reserve-then-trim path (after 4096
// instructions it estimates the function's size from the bytes left, which
// over-estimates the first of two functions); the result must be the same
// module.
func TestRead_LargeFunctions(t *testing.T) {
	m := bir.GenStraightLine(9000)
	src := bir.GenStraightLine(6000)
	if _, err := bir.CopyFunction(m, src.Funcs[0], "second"); err != nil {
		t.Fatal(err)
	}
	out := roundTrip(t, m)
	m2, err := Decode(out, "large.json")
	if err != nil {
		t.Fatal(err)
	}
	sameModule(t, m, m2)
	if got := m2.NumInsts(); got != 15000 {
		t.Errorf("NumInsts = %d, want 15000", got)
	}
}

// TestRead_Sync: a synchronized module (alloc_semaphores' output) keeps
// its synchronization table through a read and a write: triggers on the
// DMAs, waits and updates, carriers and stream endings.
func TestRead_Sync(t *testing.T) {
	m, _ := mustRead(t, "testdata/synchronized.json")
	roundTrip(t, m)
	f := m.Main()
	sy := f.Sync
	if sy == nil || sy.Len() != f.NumInstSlots() {
		t.Fatalf("sync table %v: want one covering the %d instruction slots", sy, f.NumInstSlots())
	}
	var triggers, waits, updates, halts int
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.Info().Has(bir.FlagDMA) {
			if sy.Trigger[i] == bir.EngUnassigned {
				t.Errorf("DMA %s without a trigger engine", f.InstName(i))
			}
			triggers++
		}
		waits += len(sy.Waits(i))
		updates += len(sy.Updates(i))
		if f.Inst(i).Op == bir.OpHalt {
			halts++
		}
		return true
	})
	if triggers == 0 || waits == 0 || updates == 0 || halts == 0 {
		t.Errorf("%d triggers, %d waits, %d updates, %d halts: want each", triggers, waits, updates, halts)
	}
}

// TestRead_EmptySyncTable: a function whose synchronization table has no
// entry (a kernel that does nothing: only its engines' Halts) keeps the
// table through a write and a read, so the module still verifies at stage
// synchronized ("the function has no synchronization table" before).
func TestRead_EmptySyncTable(t *testing.T) {
	m, err := bir.Parse("halts.bir", []byte("module arch=trn2\n\nfunc @main {\nBlock1:\n  h0 = Halt on PE\n  h1 = Halt on DVE\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	f.Sync = bir.NewSync(f.NumInstSlots())
	out := roundTrip(t, m)
	m2, err := Decode(out, "halts.json")
	if err != nil {
		t.Fatal(err)
	}
	if m2.Main().Sync == nil {
		t.Errorf("the empty synchronization table is lost:\n%s", out)
	}
	if n := bytes.Count(out, []byte(`"sync"`)); n != 1 {
		t.Errorf("%d sync fields, want 1 (on the first instruction):\n%s", n, out)
	}
	// A function without a table gets none.
	f.Sync = nil
	if out := mustEncode(t, m); bytes.Contains(out, []byte(`"sync"`)) {
		t.Errorf("a function without a table writes one:\n%s", out)
	}
}
