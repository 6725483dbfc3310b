// Encoding BIR-JSON.
//
// The writer appends into one []byte (flushed to the io.Writer every 64 KiB
// when streaming) and allocates nothing per instruction: the JSON text of
// every interned access pattern, attribute set and affine expression is
// built once per Encode and copied from then on; names are copied straight
// from the module's symbol arena.
//
// Output is deterministic: the same Module always gives the same bytes, and
// Decode(Encode(m)) re-encodes to identical bytes. Keys come in a fixed
// order: for the keys BIR-JSON defines, the order of bir-json.md §7's
// example; then narwhal's extensions; then the Extra fields in their stored
// order; attribute sets in their stored order; Config.Options sorted by
// key. Layout: one allocation, one memory location and one instruction per
// line, indented by nesting, so that diffs of two modules are readable.
//
// The writer refuses (with an error naming function, instruction and
// operand) a module it could not read back: a reference to a removed or
// out-of-range tensor, location, register, pattern, attribute set or
// expression; an invalid dtype or enum value; a dependency on an instruction
// whose name is not unique; an affine expression over an axis that is not
// an enclosing loop's axis, or whose name is not an identifier the affine
// parser accepts or is shadowed by an inner loop of the same name; an Extra
// or attribute set holding a key the format reserves (an Extra key that
// names one of the object's scalar fields is allowed and wins: that is how
// a null read from the input is written back).
package birjson

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/bug"
)

const flushAt = 64 << 10

// maxWriteDepth bounds the block/loop recursion of the writer, so that a
// corrupted module whose loop body contains the loop fails instead of
// overflowing the stack.
const maxWriteDepth = 1000

type encoder struct {
	m *bir.Module
	f *bir.Function
	b []byte
	w io.Writer

	patText   []string // JSON of each pattern ("[[s,n],...]"); "" until built
	attrText  []string // fields of each attribute set, `"k":v,"k2":v2`
	attrFlags []uint8  // attrDone, attrHasInstKey, attrHasLoopKey
	exprText  []string // affine text of each expression, JSON-quoted
	exprAxes  [][]affine.Axis
	exprDone  []bool
	predText  []string
	posText   []string // `,"pos":{...}` of each source position (pos.go)
	predAxes  [][]affine.Axis
	predDone  []bool

	scope []affine.Axis
	names map[string]int // live instruction name counts (built when a dep is written)
	where string         // function/instruction/operand, for errors
	// emptySync: the function has a synchronization table in which no
	// instruction has an entry (a kernel that only halts); its first
	// instruction gets `"sync":{}` so that the table round-trips.
	emptySync bool
}

func newEncoder(m *bir.Module, w io.Writer) *encoder {
	return &encoder{m: m, w: w, b: make([]byte, 0, flushAt+flushAt/4)}
}

// EncodeError is returned for a module the writer cannot represent.
type EncodeError struct {
	Where string
	Msg   string
	// Internal marks a recovered panic of the encoder (a narwhal bug).
	Internal bool
}

// Is makes a recovered panic an internal error (bug.ErrInternal: exit
// status 2).
func (e *EncodeError) Is(target error) bool { return e.Internal && target == bug.ErrInternal }

func (e *EncodeError) Error() string {
	if e.Where == "" {
		return "birjson: " + e.Msg
	}
	return "birjson: " + e.Where + ": " + e.Msg
}

func (e *encoder) errf(format string, args ...any) error {
	return &EncodeError{Where: e.where, Msg: fmt.Sprintf(format, args...)}
}

// flush writes the buffer to w when it is large enough (or when forced).
func (e *encoder) flush(force bool) error {
	if !force && len(e.b) < flushAt {
		return nil
	}
	_, err := e.w.Write(e.b)
	e.b = e.b[:0]
	return err
}

// ---- small writers ----

func appendStr(b []byte, s string) []byte { return bir.AppendQuoted(b, s) }

// appendStrBytes is AppendQuoted for a byte slice (names in the arena).
func appendStrBytes(b []byte, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i, c := range s {
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, "true"...)
	}
	return append(b, "false"...)
}

func appendInts(b []byte, xs []int64) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, x, 10)
	}
	return append(b, ']')
}

// key appends ,"k": (or "k": first).
func appendKey(b []byte, k string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, k...)
	return append(b, '"', ':')
}

var indents = func() []string {
	out := make([]string, 80)
	for i := range out {
		out[i] = "\n" + strings.Repeat(" ", i)
	}
	return out
}()

func indent(n int) string {
	if n < len(indents) {
		return indents[n]
	}
	return "\n" + strings.Repeat(" ", n)
}

// extra appends the fields of set (each preceded by ','), refusing the keys
// in reserved.
func (e *encoder) extra(set bir.AttrSet, what string, reserved ...string) error {
	for _, fld := range set {
		if slices.Contains(reserved, fld.Key) {
			return e.errf("%s extra field %q collides with a key the format reserves", what, fld.Key)
		}
		e.b = append(e.b, ',')
		e.b = appendStr(e.b, fld.Key)
		e.b = append(e.b, ':')
		e.b = fld.Val.AppendJSON(e.b)
	}
	return nil
}

// ---- module ----

func (e *encoder) module() error {
	m := e.m
	if m == nil {
		return e.errf("nil module")
	}
	b := e.b
	b = append(b, '{')
	first := true
	if !m.Extra.Has("version") {
		b = appendKey(b, "version", first)
		b = strconv.AppendInt(b, m.Version, 10)
		first = false
	}
	if !m.Extra.Has("arch") {
		b = appendKey(b, "arch", first)
		b = appendStr(b, m.Arch)
		first = false
	}
	if !m.Extra.Has("attributes") {
		b = appendKey(b, "attributes", first)
		first = false
		b = append(b, '{')
		f1 := true
		if !m.ModuleAttrs.Has("neuron_core_id") {
			b = appendKey(b, "neuron_core_id", true)
			if m.HasCoreID {
				b = strconv.AppendInt(b, m.NeuronCoreID, 10)
			} else {
				b = append(b, "null"...)
			}
			f1 = false
		}
		for _, fld := range m.ModuleAttrs {
			if !f1 {
				b = append(b, ',')
			}
			f1 = false
			b = appendStr(b, fld.Key)
			b = append(b, ':')
			b = fld.Val.AppendJSON(b)
		}
		b = append(b, '}')
	}
	if (m.Config.MaxInstructionLimit != 0 || len(m.Config.Options) > 0) && !m.Extra.Has("config") {
		b = appendKey(b, "config", first)
		first = false
		b = append(b, '{')
		f1 := true
		if m.Config.MaxInstructionLimit != 0 {
			b = appendKey(b, "max_instruction_limit", true)
			b = strconv.AppendInt(b, m.Config.MaxInstructionLimit, 10)
			f1 = false
		}
		if len(m.Config.Options) > 0 {
			b = appendKey(b, "options", f1)
			b = append(b, '{')
			keys := make([]string, 0, len(m.Config.Options))
			for k := range m.Config.Options {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendStr(b, k)
				b = append(b, ':')
				b = appendStr(b, m.Config.Options[k])
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if m.ArtifactDir != "" && !m.Extra.Has("artifact_dir") {
		b = appendKey(b, "artifact_dir", first)
		b = appendStr(b, m.ArtifactDir)
		first = false
	}
	e.b = b
	if first && len(m.Extra) > 0 {
		// Every scalar key is overridden by Extra: write Extra's first field
		// without the leading comma.
		fld := m.Extra[0]
		if fld.Key == "functions" {
			return e.errf("module extra field \"functions\" collides with a key the format reserves")
		}
		e.b = appendStr(e.b, fld.Key)
		e.b = append(e.b, ':')
		e.b = fld.Val.AppendJSON(e.b)
		if err := e.extra(m.Extra[1:], "module", "functions"); err != nil {
			return err
		}
		first = false
	} else if err := e.extra(m.Extra, "module", "functions"); err != nil {
		return err
	}
	if first {
		e.b = append(e.b, `"functions":[`...)
	} else {
		e.b = append(e.b, ",\n \"functions\":["...)
	}
	for k, f := range m.Funcs {
		if k > 0 {
			e.b = append(e.b, ",\n "...)
		}
		if f == nil {
			return e.errf("function #%d is nil", k)
		}
		if err := e.function(f); err != nil {
			return err
		}
	}
	e.b = append(e.b, "]}\n"...)
	return nil
}

// ---- function ----

func (e *encoder) function(f *bir.Function) error {
	e.f = f
	e.names = nil
	e.scope = e.scope[:0]
	e.emptySync = f.Sync != nil && !hasSyncEntry(f.Sync)
	e.where = "function " + f.Name
	b := append(e.b, `{"name":`...)
	b = appendStr(b, f.Name)
	if f.Kind == bir.FuncNKI {
		b = append(b, `,"kind":"nki"`...)
	} else if f.Kind != bir.FuncNormal {
		return e.errf("unknown function kind %d", f.Kind)
	}
	b = append(b, `,"attributes":[`...)
	for i, a := range f.Attributes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStr(b, a)
	}
	b = append(b, ']')
	e.b = b
	if err := e.extra(f.Extra, "function", "name", "kind", "attributes", "allocations", "blocks"); err != nil {
		return err
	}
	e.b = append(e.b, ",\n  \"allocations\":["...)
	n := 0
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		if n > 0 {
			e.b = append(e.b, ',')
		}
		n++
		e.b = append(e.b, "\n   "...)
		if err := e.tensor(bir.TensorID(t)); err != nil {
			return err
		}
	}
	if n > 0 {
		e.b = append(e.b, "\n  "...)
	}
	e.b = append(e.b, "],\n  \"blocks\":["...)
	for k, blk := range f.Top {
		if k > 0 {
			e.b = append(e.b, ',')
		}
		if err := e.block(blk, 2); err != nil {
			return err
		}
	}
	e.b = append(e.b, "]}"...)
	e.where = ""
	return e.flush(false)
}

// ---- allocations ----

func (e *encoder) tensor(t bir.TensorID) error {
	f := e.f
	ts := f.Tensor(t)
	e.where = "function " + f.Name + ", allocation " + ts.Name
	if ts.Kind >= bir.NumTensorKinds {
		return e.errf("invalid tensor kind %d", ts.Kind)
	}
	if ts.Class >= bir.NumTensorClasses {
		return e.errf("invalid tensor class %d", ts.Class)
	}
	if !ts.Dtype.Valid() {
		return e.errf("invalid dtype %d", ts.Dtype)
	}
	x := ts.Extra
	b := append(e.b, `{"Skind":"memory_location_set","name":`...)
	b = appendStr(b, ts.Name)
	if !x.Has("kind") {
		b = append(b, `,"kind":`...)
		b = appendStr(b, ts.Kind.String())
	}
	if !x.Has("tensor_class") {
		b = append(b, `,"tensor_class":`...)
		b = appendStr(b, ts.Class.String())
	}
	if !x.Has("addr_space") {
		switch ts.AddrSpace {
		case bir.AddrShared:
			b = append(b, `,"addr_space":"Shared"`...)
		case bir.AddrLocal:
			b = append(b, `,"addr_space":"Local"`...)
		case bir.AddrNone:
			b = append(b, `,"addr_space":null`...)
		default:
			return e.errf("invalid address space %d", ts.AddrSpace)
		}
	}
	if !x.Has("dtype") {
		b = append(b, `,"dtype":`...)
		b = appendStr(b, ts.Dtype.String())
	}
	if !x.Has("partition_dim") {
		b = append(b, `,"partition_dim":`...)
		b = strconv.AppendInt(b, ts.PartitionDim, 10)
	}
	if !x.Has("tensor_shape") {
		b = append(b, `,"tensor_shape":`...)
		b = appendInts(b, ts.Shape)
	}
	if !x.Has("file") {
		b = append(b, `,"file":`...)
		b = appendStr(b, ts.File)
	}
	if !x.Has("no_spill") {
		b = appendBool(append(b, `,"no_spill":`...), ts.NoSpill)
	}
	if !x.Has("volatile") {
		b = appendBool(append(b, `,"volatile":`...), ts.Volatile)
	}
	if !x.Has("virtual") {
		b = appendBool(append(b, `,"virtual":`...), ts.Virtual)
	}
	if (ts.IsBlock || ts.NBlocks != 0) && !x.Has("is_block") && !x.Has("num_blocks") {
		b = appendBool(append(b, `,"is_block":`...), ts.IsBlock)
		b = strconv.AppendInt(append(b, `,"num_blocks":`...), ts.NBlocks, 10)
	}
	if ts.SplitShape != nil && !x.Has("split_shape") {
		b = append(b, `,"split_shape":[`...)
		for i, s := range ts.SplitShape {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendBool(b, s)
		}
		b = append(b, ']')
	}
	if ts.LiveN > 0 && !x.Has("shrink_dim") && !x.Has("live_n") {
		b = strconv.AppendInt(append(b, `,"shrink_dim":`...), ts.ShrinkDim, 10)
		b = strconv.AppendInt(append(b, `,"live_n":`...), ts.LiveN, 10)
	}
	if !x.Has("tensorId2MemLocSize") {
		b = strconv.AppendInt(append(b, `,"tensorId2MemLocSize":`...), int64(len(ts.Locs)), 10)
	}
	e.b = b
	if err := e.extra(x, "allocation", "Skind", "name", "memorylocations"); err != nil {
		return err
	}
	e.b = append(e.b, ",\n    \"memorylocations\":["...)
	for k, l := range ts.Locs {
		if int(l) < 0 || int(l) >= f.NumLocs() || f.Loc(l).Dead {
			return e.errf("memory location #%d of the tensor is removed or out of range", l)
		}
		if k > 0 {
			e.b = append(e.b, ",\n     "...)
		}
		if err := e.memloc(l); err != nil {
			return err
		}
	}
	e.b = append(e.b, "]}"...)
	return nil
}

func (e *encoder) memloc(id bir.LocID) error {
	l := e.f.Loc(id)
	if l.Type >= bir.NumMemoryTypes {
		return e.errf("memory location %s: invalid memory type %d", l.Name, l.Type)
	}
	x := l.Extra
	b := append(e.b, `{"Skind":"memory_location","name":`...)
	b = appendStr(b, l.Name)
	if !x.Has("type") {
		b = append(b, `,"type":`...)
		b = appendStr(b, l.Type.String())
	}
	if !x.Has("dims") {
		b = append(b, `,"dims":`...)
		if l.RawDims != nil {
			b = appendInts(b, l.RawDims)
		} else {
			b = append(b, '[')
			b = strconv.AppendInt(b, l.Partitions, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, l.Bytes, 10)
			b = append(b, ']')
		}
	}
	if !x.Has("addr") {
		b = strconv.AppendInt(append(b, `,"addr":`...), l.Addr, 10)
	}
	if !x.Has("bank") {
		b = strconv.AppendInt(append(b, `,"bank":`...), l.Bank, 10)
	}
	if !x.Has("base") {
		b = strconv.AppendInt(append(b, `,"base":`...), l.Base, 10)
	}
	if !x.Has("allocated") {
		b = appendBool(append(b, `,"allocated":`...), l.Allocated)
	}
	if !x.Has("pinned") {
		b = appendBool(append(b, `,"pinned":`...), l.Pinned)
	}
	if !x.Has("tensor_id") {
		b = strconv.AppendInt(append(b, `,"tensor_id":`...), l.TensorIdx, 10)
	}
	if l.OutputKind != 0 && !x.Has("output_kind") {
		b = strconv.AppendInt(append(b, `,"output_kind":`...), l.OutputKind, 10)
	}
	e.b = b
	if len(x) > 0 { // the context string only when there is something to check
		if err := e.extra(x, "memory location "+l.Name, "Skind", "name"); err != nil {
			return err
		}
	}
	e.b = append(e.b, '}')
	return e.flush(false)
}

// ---- blocks and instructions ----

func (e *encoder) block(blk bir.BlockID, depth int) error {
	f := e.f
	if int(blk) < 0 || int(blk) >= f.NumBlocks() {
		return e.errf("block #%d out of range", blk)
	}
	bl := f.Block(blk)
	e.b = append(e.b, `{"name":`...)
	e.b = appendStr(e.b, bl.Name)
	if err := e.extra(bl.Extra, "block "+bl.Name, "name", "instructions"); err != nil {
		return err
	}
	e.b = append(e.b, `,"instructions":[`...)
	in := indent(depth + 1)
	for k, i := range bl.Insts {
		if k > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, in...)
		if err := e.inst(i, depth+1); err != nil {
			return err
		}
	}
	if len(bl.Insts) > 0 {
		e.b = append(e.b, indent(depth)...)
	}
	e.b = append(e.b, "]}"...)
	return nil
}

var engineJSON = func() (t [bir.NumEngines]string) {
	for e := bir.Engine(0); e < bir.NumEngines; e++ {
		t[e] = `,"engine":"` + e.String() + `"`
	}
	return
}()

func (e *encoder) setWhere(i bir.InstID) {
	e.where = "function " + e.f.Name + ", instruction " + e.f.InstName(i)
}

func (e *encoder) inst(i bir.InstID, depth int) error {
	f, m := e.f, e.m
	if int(i) < 0 || int(i) >= f.NumInstSlots() {
		return e.errf("instruction #%d out of range", i)
	}
	in := f.Inst(i)
	if in.Dead() {
		e.setWhere(i)
		return e.errf("removed instruction is still in block")
	}
	isLoop := in.Op.IsLoop()
	if isLoop && (in.Aux < 0 || int(in.Aux) >= f.NumLoops()) {
		e.setWhere(i)
		return e.errf("%s has no loop table entry", m.OpName(in.Op))
	}
	if int(in.Args) < 0 || int(in.Args)+int(in.NIns)+int(in.NOuts) > f.NumOperandSlots() {
		e.setWhere(i)
		return e.errf("operands out of the function's operand table")
	}
	if depth > maxWriteDepth {
		e.setWhere(i)
		return e.errf("loops nest deeper than %d levels (a loop body that contains its own loop?)", maxWriteDepth)
	}
	b := append(e.b, `{"opcode":`...)
	b = appendStr(b, m.OpName(in.Op))
	b = append(b, `,"name":`...)
	b = appendStrBytes(b, m.StrBytes(in.Name))
	if in.Engine >= bir.NumEngines {
		e.setWhere(i)
		return e.errf("invalid engine %d", in.Engine)
	}
	if !isLoop || in.Engine != bir.EngUnassigned {
		b = append(b, engineJSON[in.Engine]...)
	}
	e.b = b
	if in.Attrs != 0 {
		if err := e.attrs(i, in.Attrs, isLoop); err != nil {
			return err
		}
	}
	if in.Pred != 0 {
		if err := e.pred(i, "predicate", in.Pred); err != nil {
			return err
		}
	}
	if f.HasDeps(i) {
		if err := e.deps(i); err != nil {
			return err
		}
	}
	if in.Pos != bir.NoPos {
		t, err := e.posJSON(in.Pos)
		if err != nil {
			e.setWhere(i)
			return err
		}
		e.b = append(e.b, t...)
	}
	if tab := f.Sched; tab != nil && int(i) < tab.Len() {
		e.b = appendSchedule(e.b, tab, i)
	}
	if sy := f.Sync; sy != nil && int(i) < sy.Len() {
		var err error
		if e.b, err = appendSync(e.b, sy, i, e.expr); err != nil {
			e.setWhere(i)
			return err
		}
	}
	if e.emptySync {
		e.b = append(e.b, `,"sync":{}`...)
		e.emptySync = false
	}
	if !isLoop || in.NIns > 0 {
		e.b = append(e.b, `,"ins":[`...)
		for k := range int(in.NIns) {
			if k > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.operand(i, "ins", k, &f.Ins(i)[k]); err != nil {
				return err
			}
		}
		e.b = append(e.b, ']')
	}
	if !isLoop || in.NOuts > 0 {
		e.b = append(e.b, `,"outs":[`...)
		for k := range int(in.NOuts) {
			if k > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.operand(i, "outs", k, &f.Outs(i)[k]); err != nil {
				return err
			}
		}
		e.b = append(e.b, ']')
	}
	if isLoop {
		li := f.Loop(i)
		if int(li.Axis) < 0 || int(li.Axis) >= m.NumAxes() {
			e.setWhere(i)
			return e.errf("loop axis #%d out of range", li.Axis)
		}
		ax := m.Axis(li.Axis)
		if ax.Stride <= 0 {
			e.setWhere(i)
			return e.errf("LoopAxis %s: stride %d must be positive", ax.Name, ax.Stride)
		}
		b := append(e.b, `,"LoopAxis":{"name":`...)
		b = appendStr(b, ax.Name)
		b = strconv.AppendInt(append(b, `,"lb":`...), ax.Lb, 10)
		b = strconv.AppendInt(append(b, `,"ub":`...), ax.Ub, 10)
		b = strconv.AppendInt(append(b, `,"stride":`...), ax.Stride, 10)
		e.b = b
		if err := e.extra(ax.Extra, "LoopAxis "+ax.Name, "name", "lb", "ub", "stride"); err != nil {
			return err
		}
		e.b = append(e.b, `},"blocks":[`...)
		e.scope = append(e.scope, li.Axis)
		for k, blk := range li.Body {
			if k > 0 {
				e.b = append(e.b, ',')
			}
			if err := e.block(blk, depth+1); err != nil {
				return err
			}
		}
		e.scope = e.scope[:len(e.scope)-1]
		e.b = append(e.b, ']')
	}
	e.b = append(e.b, '}')
	return e.flush(false)
}

// instKeys are the instruction keys an attribute set may not hold.
var instKeys = []string{"opcode", "name", "engine", "ins", "outs", "predicate", "deps", "pos", "schedule"}

// attrs appends the attribute set id (built once per Encode).
func (e *encoder) attrs(i bir.InstID, id bir.AttrID, isLoop bool) error {
	t, err := e.attrJSON(id)
	if err != nil {
		e.setWhere(i)
		return err
	}
	if fl := e.attrFlags[id]; fl&attrHasInstKey != 0 || (isLoop && fl&attrHasLoopKey != 0) {
		for _, fld := range e.m.Attrs(id) {
			if slices.Contains(instKeys, fld.Key) || (isLoop && (fld.Key == "LoopAxis" || fld.Key == "blocks")) {
				e.setWhere(i)
				return e.errf("attribute %q collides with a key the format reserves", fld.Key)
			}
		}
	}
	if t != "" {
		e.b = append(e.b, ',')
		e.b = append(e.b, t...)
	}
	return nil
}

// Flags of an attribute set, computed with its text.
const (
	attrDone       = 1 << iota
	attrHasInstKey // holds a key of instKeys
	attrHasLoopKey // holds LoopAxis or blocks
)

// attrJSON returns the cached `"k":v,...` text of attribute set id.
func (e *encoder) attrJSON(id bir.AttrID) (string, error) {
	if int(id) < 0 || int(id) >= e.m.NumAttrSets() {
		return "", e.errf("attribute set #%d out of range", id)
	}
	if int(id) >= len(e.attrFlags) {
		n := e.m.NumAttrSets()
		e.attrText = slices.Grow(e.attrText, n-len(e.attrText))[:n]
		e.attrFlags = slices.Grow(e.attrFlags, n-len(e.attrFlags))[:n]
	}
	if e.attrFlags[id]&attrDone == 0 {
		var b []byte
		fl := uint8(attrDone)
		for k, fld := range e.m.Attrs(id) {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendStr(b, fld.Key)
			b = append(b, ':')
			b = fld.Val.AppendJSON(b)
			if slices.Contains(instKeys, fld.Key) {
				fl |= attrHasInstKey
			}
			if fld.Key == "LoopAxis" || fld.Key == "blocks" {
				fl |= attrHasLoopKey
			}
		}
		e.attrText[id], e.attrFlags[id] = string(b), fl
	}
	return e.attrText[id], nil
}

// ---- affine text ----

// reserved are the words the affine parser does not accept as axis names.
var reservedWords = []string{"floordiv", "mod", "and", "true", "false"}

func validAxisName(s string) bool {
	if s == "" || slices.Contains(reservedWords, s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
		case i > 0 && (c == '.' || (c >= '0' && c <= '9')):
		default:
			return false
		}
	}
	return true
}

// inScope checks that every axis resolves, by name, to itself in the
// current loop nest (innermost binding first). Axes used in affine text
// (text == true) must also have names the affine parser reads back.
func (e *encoder) inScope(axes []affine.Axis, text bool) error {
	m := e.m
	for _, a := range axes {
		if int(a) < 0 || int(a) >= m.NumAxes() {
			return e.errf("affine expression uses axis #%d, which does not exist", a)
		}
		name := m.Axis(a).Name
		if text && !validAxisName(name) {
			return e.errf("affine expression uses axis %q, whose name the affine parser cannot read back", name)
		}
		found := false
		for k := len(e.scope) - 1; k >= 0; k-- {
			if m.Axis(e.scope[k]).Name == name {
				if e.scope[k] != a {
					return e.errf("affine expression uses axis %s (#%d), shadowed by an inner loop axis of the same name", name, a)
				}
				found = true
				break
			}
		}
		if !found {
			return e.errf("affine expression uses axis %s (#%d), which is not the axis of an enclosing loop", name, a)
		}
	}
	return nil
}

// expr returns the quoted affine text of id after checking its axes.
func (e *encoder) expr(id bir.ExprID) (string, error) {
	if int(id) < 0 || int(id) >= e.m.NumExprs() {
		return "", e.errf("affine expression #%d out of range", id)
	}
	if int(id) >= len(e.exprDone) {
		n := e.m.NumExprs()
		e.exprText = slices.Grow(e.exprText, n-len(e.exprText))[:n]
		e.exprAxes = slices.Grow(e.exprAxes, n-len(e.exprAxes))[:n]
		e.exprDone = slices.Grow(e.exprDone, n-len(e.exprDone))[:n]
	}
	if !e.exprDone[id] {
		x := e.m.Expr(id)
		e.exprText[id] = string(appendStr(nil, x.Format(e.m.AxisName)))
		e.exprAxes[id] = x.Axes(nil)
		e.exprDone[id] = true
	}
	if err := e.inScope(e.exprAxes[id], true); err != nil {
		return "", err
	}
	return e.exprText[id], nil
}

// predText returns the quoted predicate text of id after checking its axes.
func (e *encoder) predJSON(id bir.PredID) (string, error) {
	if int(id) < 0 || int(id) >= e.m.NumPreds() {
		return "", e.errf("predicate #%d out of range", id)
	}
	if int(id) >= len(e.predDone) {
		n := e.m.NumPreds()
		e.predText = slices.Grow(e.predText, n-len(e.predText))[:n]
		e.predAxes = slices.Grow(e.predAxes, n-len(e.predAxes))[:n]
		e.predDone = slices.Grow(e.predDone, n-len(e.predDone))[:n]
	}
	if !e.predDone[id] {
		p := e.m.Pred(id)
		e.predText[id] = string(appendStr(nil, p.Format(e.m.AxisName)))
		var axes []affine.Axis
		for _, c := range p.Cons {
			axes = c.Expr.Axes(axes)
		}
		e.predAxes[id] = axes
		e.predDone[id] = true
	}
	if err := e.inScope(e.predAxes[id], true); err != nil {
		return "", err
	}
	return e.predText[id], nil
}

func (e *encoder) pred(i bir.InstID, key string, id bir.PredID) error {
	t, err := e.predJSON(id)
	if err != nil {
		e.setWhere(i)
		e.where += ", " + key
		return &EncodeError{Where: e.where, Msg: err.(*EncodeError).Msg}
	}
	e.b = appendKey(e.b, key, false)
	e.b = append(e.b, t...)
	return nil
}

// ---- dependencies ----

func (e *encoder) deps(i bir.InstID) error {
	f, m := e.f, e.m
	deps := f.Deps(i)
	live := deps[:0]
	for k, dp := range deps {
		if int(dp.On) < 0 || int(dp.On) >= f.NumInstSlots() {
			e.setWhere(i)
			return e.errf("deps[%d]: instruction #%d out of range", k, dp.On)
		}
		if !f.Inst(dp.On).Dead() { // an edge to a removed instruction constrains nothing
			live = append(live, dp)
		}
	}
	if len(live) == 0 {
		return nil
	}
	e.b = append(e.b, `,"deps":[`...)
	for k, dp := range live {
		if dp.Kind >= bir.NumDepKinds {
			e.setWhere(i)
			return e.errf("deps[%d]: invalid dependency kind %d", k, dp.Kind)
		}
		if e.names == nil {
			e.names = make(map[string]int, f.NumInstSlots())
			for j := range f.NumInstSlots() {
				if in := f.Inst(bir.InstID(j)); !in.Dead() && in.Block != bir.NoBlock {
					e.names[f.InstName(bir.InstID(j))]++
				}
			}
		}
		target := m.StrBytes(f.Inst(dp.On).Name)
		if e.names[string(target)] != 1 {
			e.setWhere(i)
			return e.errf("deps[%d]: the target's name %q is not unique in the function (or the target is in no block), so the dependency cannot be written by name", k, target)
		}
		if k > 0 {
			e.b = append(e.b, ',')
		}
		e.b = append(e.b, `{"on":`...)
		e.b = appendStrBytes(e.b, target)
		e.b = append(e.b, `,"kind":"`...)
		e.b = append(e.b, dp.Kind.String()...)
		e.b = append(e.b, '"')
		if dp.CarryAxis != bir.NoAxis {
			if err := e.inScope([]affine.Axis{dp.CarryAxis}, false); err != nil {
				e.setWhere(i)
				return &EncodeError{Where: fmt.Sprintf("%s, deps[%d]", e.where, k), Msg: "carry_axis: " + err.(*EncodeError).Msg}
			}
			e.b = append(e.b, `,"carry_axis":`...)
			e.b = appendStr(e.b, m.Axis(dp.CarryAxis).Name)
			e.b = strconv.AppendInt(append(e.b, `,"carry_distance":`...), int64(dp.CarryDist), 10)
			if dp.CarryAll {
				e.b = append(e.b, `,"carry_all":true`...)
			}
		}
		if dp.Pred != 0 {
			t, err := e.predJSON(dp.Pred)
			if err != nil {
				e.setWhere(i)
				return &EncodeError{Where: fmt.Sprintf("%s, deps[%d]", e.where, k), Msg: "predicate: " + err.(*EncodeError).Msg}
			}
			e.b = append(e.b, `,"predicate":`...)
			e.b = append(e.b, t...)
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ']')
	return nil
}

// ---- operands ----

var dtypeJSON = func() (t [bir.NumDtypes]string) {
	for d := bir.Dtype(0); d <= bir.MaxDtype; d++ {
		t[d] = `,"dtype":"` + d.String() + `"`
	}
	return
}()

// patJSON returns the cached "[[step,num],...]" text of pattern id.
func (e *encoder) patJSON(id bir.PatternID) (string, error) {
	if int(id) < 0 || int(id) >= e.m.NumPatterns() {
		return "", e.errf("access pattern #%d out of range", id)
	}
	if int(id) >= len(e.patText) {
		n := e.m.NumPatterns()
		e.patText = slices.Grow(e.patText, n-len(e.patText))[:n]
	}
	if e.patText[id] == "" {
		b := []byte{'['}
		for k, q := range e.m.Pattern(id) {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, q.Step, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, q.Num, 10)
			b = append(b, ']')
		}
		e.patText[id] = string(append(b, ']'))
	}
	return e.patText[id], nil
}

// operand appends one operand. An Extra key equal to one of the kind's
// fields wins over the derived one ("kind" itself is reserved).
func (e *encoder) operand(i bir.InstID, list string, k int, o *bir.Operand) error {
	fail := func(err error) error {
		e.setWhere(i)
		return &EncodeError{Where: fmt.Sprintf("%s, %s[%d]", e.where, list, k), Msg: err.(*EncodeError).Msg}
	}
	f, m := e.f, e.m
	if !o.Dtype.Valid() {
		return fail(e.errf("invalid dtype %d", o.Dtype))
	}
	var x bir.AttrSet
	if o.Extra != 0 {
		if int(o.Extra) < 0 || int(o.Extra) >= m.NumAttrSets() {
			return fail(e.errf("extra attribute set #%d out of range", o.Extra))
		}
		x = m.Attrs(o.Extra)
		if x.Has("kind") {
			return fail(e.errf("extra field \"kind\" collides with a key the format reserves"))
		}
		// A stub kept from the input stands in for expressions that are 0;
		// once a pass sets real expressions, the stale stub is dropped.
		switch {
		case o.Kind == bir.OpdSymAP && (o.BlockExpr() != 0 || o.OffsetExpr() != 0) && x.Has("addrs"):
			x = x.Without("addrs")
		case o.Kind == bir.OpdSymImm && o.Expr != 0 && x.Has("expr"):
			x = x.Without("expr")
		}
	}
	has := func(key string) bool { return x != nil && x.Has(key) }
	b := e.b
	switch o.Kind {
	case bir.OpdPhysAP:
		l := o.Loc()
		if int(l) < 0 || int(l) >= f.NumLocs() || f.Loc(l).Dead {
			return fail(e.errf("physical_ap names memory location #%d, which is removed or out of range", l))
		}
		loc := f.Loc(l)
		b = append(b, `{"kind":"physical_ap"`...)
		if !has("memref") {
			b = append(b, `,"memref":`...)
			b = appendStr(b, loc.Name)
		}
		if !has("memsetref") {
			if int(loc.Tensor) < 0 || int(loc.Tensor) >= f.NumTensors() {
				return fail(e.errf("memory location %s belongs to no tensor", loc.Name))
			}
			b = append(b, `,"memsetref":`...)
			b = appendStr(b, f.Tensor(loc.Tensor).Name)
		}
		if !has("dtype") {
			b = append(b, dtypeJSON[o.Dtype]...)
		}
		if !has("offset") {
			if o.Offset < 0 {
				return fail(e.errf("offset %d is negative", o.Offset))
			}
			b = strconv.AppendInt(append(b, `,"offset":`...), o.Offset, 10)
		}
		if !has("ap") {
			p, err := e.patJSON(o.Pattern)
			if err != nil {
				return fail(err)
			}
			b = append(append(b, `,"ap":`...), p...)
		}
	case bir.OpdSymAP, bir.OpdRegAP:
		t := o.TensorRef()
		if int(t) < 0 || int(t) >= f.NumTensors() || f.Tensor(t).Dead {
			return fail(e.errf("%s names tensor #%d, which is removed or out of range", o.Kind, t))
		}
		b = append(b, `{"kind":"`...)
		b = append(b, o.Kind.String()...)
		b = append(b, '"')
		if !has("memsetref") {
			b = append(b, `,"memsetref":`...)
			b = appendStr(b, f.Tensor(t).Name)
		}
		if o.Kind == bir.OpdRegAP && !has("regref") {
			r := bir.RegID(o.Expr)
			if int(r) < 0 || int(r) >= f.NumRegs() {
				return fail(e.errf("register_ap names register #%d, which does not exist", r))
			}
			b = append(b, `,"regref":`...)
			b = appendStr(b, f.Reg(r).Name)
		}
		if !has("dtype") {
			b = append(b, dtypeJSON[o.Dtype]...)
		}
		if o.Kind == bir.OpdSymAP {
			if !has("addrs") {
				blk, err := e.expr(o.BlockExpr())
				if err != nil {
					return fail(err)
				}
				off, err := e.expr(o.OffsetExpr())
				if err != nil {
					return fail(err)
				}
				b = append(b, `,"addrs":[`...)
				b = append(b, blk...)
				b = append(b, ',')
				b = append(b, off...)
				b = append(b, ']')
			}
			if !has("access_shape") {
				if int(o.Pattern) < 0 || int(o.Pattern) >= m.NumPatterns() {
					return fail(e.errf("access pattern #%d out of range", o.Pattern))
				}
				b = append(b, `,"access_shape":[`...)
				for k, q := range m.Pattern(o.Pattern) {
					if k > 0 {
						b = append(b, ',')
					}
					b = strconv.AppendInt(b, q.Num, 10)
				}
				b = append(b, ']')
			}
		}
		if !has("ap") {
			p, err := e.patJSON(o.Pattern)
			if err != nil {
				return fail(err)
			}
			b = append(append(b, `,"ap":`...), p...)
		}
	case bir.OpdRegister:
		r := bir.RegID(o.Ref)
		if int(r) < 0 || int(r) >= f.NumRegs() {
			return fail(e.errf("register_access names register #%d, which does not exist", r))
		}
		b = append(b, `{"kind":"register_access"`...)
		if !has("regref") {
			b = append(b, `,"regref":`...)
			b = appendStr(b, f.Reg(r).Name)
		}
		if !has("dtype") {
			b = append(b, dtypeJSON[o.Dtype]...)
		}
	case bir.OpdImm:
		b = append(b, `{"kind":"imm_value"`...)
		if !has("dtype") {
			b = append(b, dtypeJSON[o.Dtype]...)
		}
		if !has("value") {
			b = append(b, `,"value":`...)
			if o.Flags&bir.OpdFlagFloat != 0 {
				b = bir.AppendFloatJSON(b, o.ImmFloat())
			} else {
				b = strconv.AppendInt(b, o.Offset, 10)
			}
		}
	case bir.OpdImmArray, bir.OpdSymImm:
		key := "value_array"
		if o.Kind == bir.OpdSymImm {
			key = "value_list"
		}
		id := bir.AttrID(o.Ref)
		if int(id) < 0 || int(id) >= m.NumAttrSets() {
			return fail(e.errf("%s: attribute set #%d out of range", key, id))
		}
		v, ok := m.Attrs(id).Get(key)
		if !ok && !has(key) {
			return fail(e.errf("%s operand: its attribute set has no %q", o.Kind, key))
		}
		b = append(b, `{"kind":"`...)
		b = append(b, o.Kind.String()...)
		b = append(b, '"')
		if !has("dtype") {
			b = append(b, dtypeJSON[o.Dtype]...)
		}
		if o.Kind == bir.OpdSymImm && !has("expr") {
			t, err := e.expr(o.Expr)
			if err != nil {
				return fail(err)
			}
			b = append(append(b, `,"expr":`...), t...)
		}
		if !has(key) {
			b = appendKey(b, key, false)
			b = v.AppendJSON(b)
		}
	default:
		return fail(e.errf("invalid operand kind %d", o.Kind))
	}
	e.b = b
	if x != nil {
		if err := e.extra(x, "operand"); err != nil {
			return fail(err)
		}
	}
	e.b = append(e.b, '}')
	return nil
}
