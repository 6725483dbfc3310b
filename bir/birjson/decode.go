// Decoding BIR-JSON: the module, function and allocation levels.
//
// The load is the seeds' two-pass createFromJson / createFromJsonPass2
// (seed 003, lowerFromBirJson), done per function:
//
//	pass 1  storages first: every allocation (memory_location_set) and its
//	        memorylocations become Tensors and MemLocs; then the blocks,
//	        loops and instructions, whose operands resolve memref/memsetref
//	        against the storages just built;
//	pass 2  everything that names an instruction: the "deps" extension
//	        (a dependency may point at an instruction later in the file) and
//	        the generated names of loops that carry none.
//
// BIR-JSON gives key order no meaning, so "storages first" cannot rely on
// "allocations" preceding "blocks". The decoder streams in the common order
// (allocations first, the order KLR and narwhal write) and, when a function's
// "blocks" arrives before its "allocations", skips it and parses it once the
// function object is complete. The same trick handles a loop's "blocks" (its
// axis must be in scope first) and an allocation's "memorylocations" (its
// tensor must exist first).
//
// What is kept verbatim (bir-json.md: "keep every field it does not model"):
// unknown top-level keys -> Module.Extra; unknown keys of the module
// "attributes" -> Module.ModuleAttrs; unknown function keys -> Function.Extra;
// unknown allocation / memory-location / block / LoopAxis keys -> the Extra of
// the Tensor / MemLoc / Block / AxisInfo; unknown operand keys -> Operand.Extra
// (an interned AttrID); every opcode-specific instruction key -> the
// instruction's AttrSet in source order. A known key whose value is null where
// the spec allows null but the IR has no "unset" (partition_dim, tensor_id)
// takes its default and the null is kept in Extra; the writer lets an Extra key
// win over the derived one, so the null survives a round trip.
//
// Decisions where the spec is silent (also in docs/bir-json.md):
//   - Required fields are those that identify or size an object: module
//     "functions"; function "name"; allocation "name", "kind", "dtype",
//     "tensor_shape", "memorylocations"; memory location "name", "type",
//     "dims"; block "name"; instruction "opcode" and "name" (loops may omit
//     the name); operand "kind", "dtype" and the fields its kind cannot do
//     without (memref and ap for physical_ap, ...). Flags and enums with an
//     obvious default ("file", "no_spill", "engine", ...) may be omitted.
//     KLR writes every key, so KLR files are unaffected.
//   - "version" defaults to 2 and "arch" to "gen3" (KLR's values).
//   - An unknown opcode is kept (Module.UnknownOpcode) with all its fields; an
//     unknown operand kind, dtype, engine or memory type is an error: the IR
//     has no place for it.
//   - Branch targets (CompareAndBranch on_true/on_false, UnconditionalBranch
//     target) are opcode fields kept verbatim in the attribute set; the
//     loader does not resolve them (a dangling one still loads, so it can
//     be inspected and rewritten). The verifier resolves them against the
//     function's block names (rule "ref").
//   - Duplicate keys in an object the decoder interprets are an error (JSON
//     says names SHOULD be unique; the IR's attribute sets require it).
//     Nested objects inside attribute values keep whatever they hold.
package birjson

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// ---- lookup tables (built once; looked up with m[string(b)], which does not allocate) ----

var opByName = func() map[string]bir.Opcode {
	m := map[string]bir.Opcode{}
	for _, in := range bir.Opcodes() {
		m[in.Name] = in.Op
	}
	return m
}()

var engineByName = func() map[string]bir.Engine {
	m := map[string]bir.Engine{}
	for _, s := range []string{"Unassigned", "Activation", "PE", "DVE", "Pool", "SP", "DMA",
		"Act", "ACT", "Scalar", "scalar", "Tensor", "tensor", "pe", "Vector", "vector", "dve",
		"GpSimd", "gpsimd", "POOL", "pool", "Sync", "sync", "sp", "dma"} {
		if e, err := bir.ParseEngine(s); err == nil {
			m[s] = e
		}
	}
	return m
}()

var dtypeNames = func() (t [bir.NumDtypes]string) {
	for d := bir.Dtype(0); d <= bir.MaxDtype; d++ {
		t[d] = d.String()
	}
	return
}()

var engineNames = func() (t [bir.NumEngines]string) {
	for e := bir.Engine(0); e < bir.NumEngines; e++ {
		t[e] = e.String()
	}
	return
}()

var dtypeByName = func() map[string]bir.Dtype {
	m := map[string]bir.Dtype{}
	add := func(s string) {
		if d, err := bir.ParseDtype(s); err == nil {
			m[s] = d
		}
	}
	for d := bir.Dtype(0); d <= bir.MaxDtype; d++ {
		add(d.String())
		add(d.Short())
	}
	for _, s := range []string{"float8_e5m2", "fp32", "tfloat32"} {
		add(s)
	}
	return m
}()

// ---- the decoder ----

// ctx says which object the decoder is in, for error messages.
type ctx struct {
	kind   string // "allocation", "memory location", "block", "instruction"
	start  int    // offset of the object's '{'
	idx    int    // its position in the enclosing array
	name   []byte // its name, when already read
	parent string // the enclosing object, e.g. "allocation x_set"
	opd    string // "ins", "outs", "deps": the list being read
	opdIdx int
}

// scope is one loop level: its axis and the expressions and predicates
// parsed at that level (affine text resolves axis names innermost first, so
// a parse is only reusable within the same scope).
type scope struct {
	axis  affine.Axis
	name  string
	exprs map[string]bir.ExprID
	preds map[string]bir.PredID
}

// fieldSpan is one object field in the input: key at k, value [v, e).
type fieldSpan struct{ k, v, e int }

// pendingDep is a dependency waiting for pass 2.
type pendingDep struct {
	inst      bir.InstID
	instStart int
	instIdx   int
	depIdx    int
	pos       int
	on        []byte
	dep       bir.Dep
}

type decoder struct {
	scanner
	m *bir.Module
	f *bir.Function

	inFunc  bool
	fnStart int
	fnIdx   int
	fnName  string
	ctx     ctx

	tensors map[string]bir.TensorID
	regs    map[string]bir.RegID

	pendingLocs []pendingLocs // allocations whose locations are not parsed yet

	attrCache  map[string]bir.AttrID
	posMemo    map[string]bir.PosID // "pos" source text -> position (pos.go)
	unknownOps map[string]bir.Opcode

	ins, outs []bir.Operand
	pairs     []bir.APPair
	fields    []fieldSpan
	ofields   []fieldSpan
	keyBuf    []byte

	scopes       []scope
	resolver     affine.Resolver
	pending      []pendingDep
	unnamedLoops []bir.InstID

	// Last-hit and direct-mapped caches in front of the name maps.
	lastDtype  bir.Dtype
	lastEngine bir.Engine
	lastOp     bir.Opcode
	lastOpName string
	locCache   [64]locCacheEntry
	patCache   [64]patCacheEntry

	// Capacity estimation (see reserve).
	fnInsts     int         // instructions read in the current function
	fnInstPos   int         // offset of its first instruction
	fnOpds      int         // operands read
	fnNameBytes int         // name bytes read
	grownBlock  bir.BlockID // the block whose Insts reserve grew, or NoBlock
}

type locCacheEntry struct {
	name string // the location's name
	set  string // its tensor's name (what memsetref must say)
	id   bir.LocID
	ok   bool
}

type patCacheEntry struct {
	pairs [4]bir.APPair
	n     int8
	id    bir.PatternID
	ok    bool
}

// reserveSample is the number of instructions of a function read before
// the decoder estimates the function's size and reserves its tables.
const reserveSample = 4096

// reserve estimates how many more instructions, operands and name bytes the
// current function holds from the bytes per instruction of the first
// reserveSample ones and the input left, and reserves the tables (block b's
// instruction list included), so that a multi-million-instruction load does
// not copy its tables at every growth step. finishFunction trims an
// overshoot (several functions, or instructions getting larger).
func (d *decoder) reserve(b bir.BlockID) {
	// No JSON instruction is shorter than ~26 bytes ({"opcode":"X","name":"y"});
	// the floor keeps a skewed sample (loop bodies are parsed out of file
	// order) from reserving more than the input could hold.
	per := max((d.pos-d.fnInstPos)/d.fnInsts, 32)
	est := (len(d.data) - d.pos) / per
	est += est / 50
	if est < reserveSample {
		return
	}
	opds := int(int64(est) * int64(d.fnOpds) / int64(d.fnInsts))
	d.f.Reserve(est, opds)
	d.m.ReserveSyms(est, int(int64(est)*int64(d.fnNameBytes)/int64(d.fnInsts)))
	blk := d.f.Block(b)
	blk.Insts = slices.Grow(blk.Insts, est)
	d.grownBlock = b
}

// finishFunction releases capacity reserve over-estimated.
func (d *decoder) finishFunction() {
	if d.f.Sched != nil {
		d.f.Sched.Grow(d.f.NumInstSlots())
	}
	if d.f.Sync != nil {
		d.f.Sync.Grow(d.f.NumInstSlots())
	}
	if d.grownBlock == bir.NoBlock {
		return
	}
	d.f.TrimTables()
	blk := d.f.Block(d.grownBlock)
	if cap(blk.Insts)-len(blk.Insts) > len(blk.Insts)/8 {
		blk.Insts = append(make([]bir.InstID, 0, len(blk.Insts)), blk.Insts...)
	}
	d.grownBlock = bir.NoBlock
}

func newDecoder(data []byte, file string) *decoder {
	d := &decoder{
		scanner:    scanner{data: data, file: file},
		m:          bir.NewModule("gen3"),
		attrCache:  map[string]bir.AttrID{},
		unknownOps: map[string]bir.Opcode{},
	}
	d.resolver = d.resolve
	return d
}

// errf returns a semantic error at byte offset pos, with the context.
func (d *decoder) errf(pos int, format string, args ...any) *Error {
	e := d.synErr(pos, format, args...)
	e.Where = d.where()
	return e
}

// where describes the current context ("function main, instruction add_3, ins[1]").
func (d *decoder) where() string {
	var parts []string
	if d.inFunc {
		n := d.fnName
		if n == "" {
			n = d.peekName(d.fnStart)
		}
		if n == "" {
			n = fmt.Sprintf("#%d", d.fnIdx)
		}
		parts = append(parts, "function "+n)
	}
	c := d.ctx
	if c.parent != "" {
		parts = append(parts, c.parent)
	}
	if c.kind != "" {
		n := string(c.name)
		if c.name == nil {
			n = d.peekName(c.start)
		}
		if n == "" {
			n = fmt.Sprintf("#%d", c.idx)
		}
		parts = append(parts, c.kind+" "+n)
	}
	if c.opd != "" {
		parts = append(parts, fmt.Sprintf("%s[%d]", c.opd, c.opdIdx))
	}
	return strings.Join(parts, ", ")
}

// peekName finds the "name" string of the object at start without
// disturbing the decoder (error path only).
func (d *decoder) peekName(start int) string {
	s := scanner{data: d.data, pos: start, file: d.file}
	more, err := s.beginObject("")
	for err == nil && more {
		var k []byte
		if k, _, err = s.key(); err != nil {
			break
		}
		if string(k) == "name" && s.peek() == '"' {
			if v, err := s.str(); err == nil {
				return string(v)
			}
			break
		}
		if err = s.skip(); err != nil {
			break
		}
		more, err = s.nextField()
	}
	return ""
}

// at runs fn with the cursor at pos and restores the cursor afterwards.
func (d *decoder) at(pos int, fn func() error) error {
	savedPos, savedDepth := d.pos, d.depth
	d.pos = pos
	err := fn()
	if err == nil {
		d.pos, d.depth = savedPos, savedDepth
	}
	return err
}

// dupKey reports a repeated key of an interpreted object.
func (d *decoder) dupKey(pos int, key []byte) error {
	return d.errf(pos, "duplicate key %q", key)
}

// nonNegInt reads an integer >= 0 for field key.
func (d *decoder) nonNegInt(key string) (int64, error) {
	d.ws()
	pos := d.pos
	v, err := d.int()
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, d.errf(pos, "%s: want an integer >= 0, have %d", key, v)
	}
	return v, nil
}

// intList reads [int, ...], each >= 0 when nonNeg.
func (d *decoder) intList(key string, nonNeg bool) ([]int64, error) {
	more, err := d.beginArray(key)
	out := []int64{}
	for err == nil && more {
		d.ws()
		pos := d.pos
		var v int64
		if v, err = d.int(); err != nil {
			break
		}
		if nonNeg && v < 0 {
			return nil, d.errf(pos, "%s: want integers >= 0, have %d", key, v)
		}
		out = append(out, v)
		more, err = d.nextElem()
	}
	return out, err
}

// addExtra appends key: value to an Extra set, rejecting duplicates.
func (d *decoder) addExtra(set *bir.AttrSet, kpos int, key []byte) error {
	if set.Has(string(key)) {
		return d.dupKey(kpos, key)
	}
	v, err := d.value()
	if err != nil {
		return err
	}
	*set = append(*set, bir.Field{Key: string(key), Val: v})
	return nil
}

// checkSyms fails before the symbol arena would pass its 4 GiB limit.
func (d *decoder) checkSyms(pos, n int) error {
	if d.m.SymbolBytes()+n+16 >= math.MaxUint32 {
		return d.errf(pos, "names exceed the 4 GiB symbol arena")
	}
	return nil
}

// ---- module ----

func (d *decoder) parseModule() error {
	if len(d.data) >= 3 && string(d.data[:3]) == "\xef\xbb\xbf" {
		d.pos = 3 // a UTF-8 byte-order mark
	}
	d.ws()
	more, err := d.beginObject("module")
	if err != nil {
		return err
	}
	m := d.m
	const (
		kVersion = 1 << iota
		kArch
		kAttributes
		kFunctions
		kConfig
		kArtifactDir
	)
	var seen uint
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		var bit uint
		switch string(key) {
		case "version":
			bit = kVersion
		case "arch":
			bit = kArch
		case "attributes":
			bit = kAttributes
		case "functions":
			bit = kFunctions
		case "config":
			bit = kConfig
		case "artifact_dir":
			bit = kArtifactDir
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.dupKey(kpos, key)
			}
			seen |= bit
		}
		switch bit {
		case kVersion:
			m.Version, err = d.nonNegInt("version")
		case kArch:
			var s []byte
			if s, err = d.str(); err == nil {
				m.Arch = string(s)
			}
		case kAttributes:
			err = d.parseModuleAttrs()
		case kFunctions:
			var more bool
			more, err = d.beginArray("functions")
			for k := 0; err == nil && more; k++ {
				if err = d.parseFunction(k); err != nil {
					break
				}
				more, err = d.nextElem()
			}
		case kConfig:
			err = d.parseConfig()
		case kArtifactDir:
			var s []byte
			if s, err = d.str(); err == nil {
				m.ArtifactDir = string(s)
			}
		default:
			err = d.addExtra(&m.Extra, kpos, key)
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	if seen&kFunctions == 0 {
		return d.errf(0, `module: missing "functions"`)
	}
	d.m.TrimSyms()
	d.ws()
	if d.pos != len(d.data) {
		return d.synErr(d.pos, "unexpected %s after the module object", d.found(d.pos))
	}
	return nil
}

func (d *decoder) parseModuleAttrs() error {
	more, err := d.beginObject("attributes")
	seenCore := false
	for err == nil && more {
		var key []byte
		var kpos int
		if key, kpos, err = d.key(); err != nil {
			return err
		}
		if string(key) == "neuron_core_id" {
			if seenCore {
				return d.dupKey(kpos, key)
			}
			seenCore = true
			if d.isNull() {
				d.m.HasCoreID, d.m.NeuronCoreID = false, 0
			} else {
				var v int64
				if v, err = d.nonNegInt("neuron_core_id"); err != nil {
					return err
				}
				d.m.HasCoreID, d.m.NeuronCoreID = true, v
			}
		} else if err = d.addExtra(&d.m.ModuleAttrs, kpos, key); err != nil {
			return err
		}
		more, err = d.nextField()
	}
	return err
}

func (d *decoder) parseConfig() error {
	more, err := d.beginObject("config")
	var seenLimit, seenOpts bool
	for err == nil && more {
		var key []byte
		var kpos int
		if key, kpos, err = d.key(); err != nil {
			return err
		}
		switch string(key) {
		case "max_instruction_limit":
			if seenLimit {
				return d.dupKey(kpos, key)
			}
			seenLimit = true
			if d.m.Config.MaxInstructionLimit, err = d.nonNegInt("config.max_instruction_limit"); err != nil {
				return err
			}
		case "options":
			if seenOpts {
				return d.dupKey(kpos, key)
			}
			seenOpts = true
			if d.m.Config.Options == nil {
				d.m.Config.Options = map[string]string{}
			}
			var more2 bool
			more2, err = d.beginObject("config.options")
			for err == nil && more2 {
				var k []byte
				if k, kpos, err = d.key(); err != nil {
					return err
				}
				if _, dup := d.m.Config.Options[string(k)]; dup {
					return d.dupKey(kpos, k)
				}
				if d.peek() != '"' {
					return d.errf(d.pos, "config.options.%s: want a string value (gates are spelled \"true\"/\"false\"), found %s", k, d.found(d.pos))
				}
				var v []byte
				if v, err = d.str(); err != nil {
					return err
				}
				d.m.Config.Options[string(k)] = string(v)
				more2, err = d.nextField()
			}
		default:
			return d.errf(kpos, "config: unknown key %q (want max_instruction_limit, options)", key)
		}
		if err != nil {
			return err
		}
		more, err = d.nextField()
	}
	return err
}

// ---- function ----

func (d *decoder) parseFunction(k int) error {
	d.ws()
	start := d.pos
	d.inFunc, d.fnStart, d.fnIdx, d.fnName = true, start, k, ""
	d.ctx = ctx{}
	f, err := d.m.NewFunction(fmt.Sprintf("\x00function #%d", k))
	if err != nil {
		return d.errf(start, "%v", err)
	}
	d.f = f
	d.tensors = map[string]bir.TensorID{}
	d.regs = map[string]bir.RegID{}
	d.pending = d.pending[:0]
	d.unnamedLoops = d.unnamedLoops[:0]
	d.fnInsts, d.fnOpds, d.fnNameBytes, d.grownBlock = 0, 0, 0, bir.NoBlock
	d.locCache = [64]locCacheEntry{}
	d.scopes = append(d.scopes[:0], scope{axis: -1})

	more, err := d.beginObject("function")
	if err != nil {
		return err
	}
	const (
		kName = 1 << iota
		kKind
		kAttributes
		kAllocations
		kBlocks
	)
	var seen uint
	blocksPos := -1
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		var bit uint
		switch string(key) {
		case "name":
			bit = kName
		case "kind":
			bit = kKind
		case "attributes":
			bit = kAttributes
		case "allocations":
			bit = kAllocations
		case "blocks":
			bit = kBlocks
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.dupKey(kpos, key)
			}
			seen |= bit
		}
		switch bit {
		case kName:
			var s []byte
			if s, err = d.str(); err != nil {
				return err
			}
			name := string(s)
			if name == "" {
				return d.errf(kpos, "function name is empty")
			}
			if d.m.Func(name) != nil {
				return d.errf(kpos, "duplicate function name %q", name)
			}
			f.Name, d.fnName = name, name
		case kKind:
			var s []byte
			if s, err = d.str(); err != nil {
				return err
			}
			switch string(s) {
			case "nki":
				f.Kind = bir.FuncNKI
			case "normal":
				f.Kind = bir.FuncNormal
			default:
				return d.errf(kpos, "kind: unknown function kind %q (want \"nki\" or \"normal\")", s)
			}
		case kAttributes:
			var more2 bool
			more2, err = d.beginArray("attributes")
			f.Attributes = []string{}
			for err == nil && more2 {
				var s []byte
				if s, err = d.str(); err != nil {
					break
				}
				f.Attributes = append(f.Attributes, string(s))
				more2, err = d.nextElem()
			}
		case kAllocations:
			var more2 bool
			more2, err = d.beginArray("allocations")
			for i := 0; err == nil && more2; i++ {
				if err = d.parseAllocation(i); err != nil {
					break
				}
				more2, err = d.nextElem()
			}
			if err == nil {
				err = d.parseAllocationLocs()
			}
			d.ctx = ctx{}
		case kBlocks:
			if seen&kAllocations == 0 {
				// Storages first: come back once the allocations are read.
				blocksPos = d.pos
				err = d.skip()
			} else {
				err = d.parseBlocks(bir.NoInst)
			}
		default:
			err = d.addExtra(&f.Extra, kpos, key)
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	if seen&kName == 0 {
		return d.errf(start, `missing "name"`)
	}
	if blocksPos >= 0 {
		if err := d.at(blocksPos, func() error { return d.parseBlocks(bir.NoInst) }); err != nil {
			return err
		}
	}
	if err := d.pass2(); err != nil {
		return err
	}
	d.finishFunction()
	d.inFunc, d.f, d.ctx = false, nil, ctx{}
	return nil
}

// pass2 names unnamed loops and resolves dependencies by instruction name.
func (d *decoder) pass2() error {
	if len(d.pending) == 0 && len(d.unnamedLoops) == 0 {
		return nil
	}
	f, m := d.f, d.m
	const ambiguous = bir.InstID(-2)
	names := make(map[string]bir.InstID, f.NumInstSlots())
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Name == 0 && f.Inst(i).Op.IsLoop() {
			return true // an unnamed loop (Sym 0), named below
		}
		n := m.StrBytes(f.Inst(i).Name)
		if _, dup := names[string(n)]; dup {
			names[string(n)] = ambiguous
		} else {
			names[string(n)] = i
		}
		return true
	})
	for _, id := range d.unnamedLoops {
		base := "loop_" + m.Axis(f.Loop(id).Axis).Name
		name := base
		for k := 1; ; k++ {
			if _, taken := names[name]; !taken {
				break
			}
			name = fmt.Sprintf("%s_%d", base, k)
		}
		names[name] = id
		f.Inst(id).Name = m.NewSym(name)
	}
	for _, p := range d.pending {
		target, ok := names[string(p.on)]
		if !ok || target == ambiguous {
			d.ctx = ctx{kind: "instruction", start: p.instStart, idx: p.instIdx, name: m.StrBytes(f.Inst(p.inst).Name), opd: "deps", opdIdx: p.depIdx}
			if !ok {
				return d.errf(p.pos, "on: %q names no instruction of the function", p.on)
			}
			return d.errf(p.pos, "on: %q names more than one instruction; dependencies need unique instruction names", p.on)
		}
		p.dep.On = target
		f.AddDep(p.inst, p.dep)
	}
	return nil
}

// ---- allocations ----

func (d *decoder) parseAllocation(idx int) error {
	d.ws()
	start := d.pos
	d.ctx = ctx{kind: "allocation", start: start, idx: idx}
	more, err := d.beginObject("allocation")
	if err != nil {
		return err
	}
	const (
		kSkind = 1 << iota
		kName
		kKind
		kClass
		kAddrSpace
		kDtype
		kPartDim
		kShape
		kFile
		kNoSpill
		kVolatile
		kVirtual
		kLocs
		kLocSize
		kIsBlock
		kNumBlocks
		kSplit
		kShrink
		kLiveN
	)
	var seen uint
	t := bir.Tensor{AddrSpace: bir.AddrNone}
	locsPos, locsLen, locSize, locSizePos := -1, 0, int64(-1), 0
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		var bit uint
		switch string(key) {
		case "Skind":
			bit = kSkind
		case "name":
			bit = kName
		case "kind":
			bit = kKind
		case "tensor_class":
			bit = kClass
		case "addr_space":
			bit = kAddrSpace
		case "dtype":
			bit = kDtype
		case "partition_dim":
			bit = kPartDim
		case "tensor_shape":
			bit = kShape
		case "file":
			bit = kFile
		case "no_spill":
			bit = kNoSpill
		case "volatile":
			bit = kVolatile
		case "virtual":
			bit = kVirtual
		case "memorylocations":
			bit = kLocs
		case "tensorId2MemLocSize":
			bit = kLocSize
		case "is_block":
			bit = kIsBlock
		case "num_blocks":
			bit = kNumBlocks
		case "split_shape":
			bit = kSplit
		case "shrink_dim":
			bit = kShrink
		case "live_n":
			bit = kLiveN
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.dupKey(kpos, key)
			}
			seen |= bit
		}
		vpos := d.pos
		var s []byte
		switch bit {
		case kSkind:
			if s, err = d.str(); err == nil && string(s) != "memory_location_set" {
				return d.errf(vpos, "Skind: want \"memory_location_set\", have %q", s)
			}
		case kName:
			if s, err = d.str(); err == nil {
				if len(s) == 0 {
					return d.errf(vpos, "name is empty")
				}
				t.Name = string(s)
				d.ctx.name = s
			}
		case kKind:
			if s, err = d.str(); err == nil {
				if t.Kind, err = bir.ParseTensorKind(string(s)); err != nil {
					return d.errf(vpos, "kind: %v", err)
				}
			}
		case kClass:
			if s, err = d.str(); err == nil {
				if t.Class, err = bir.ParseTensorClass(string(s)); err != nil {
					return d.errf(vpos, "tensor_class: %v", err)
				}
			}
		case kAddrSpace:
			if d.isNull() {
				t.AddrSpace = bir.AddrNone
			} else if s, err = d.str(); err == nil {
				switch string(s) {
				case "Shared":
					t.AddrSpace = bir.AddrShared
				case "Local":
					t.AddrSpace = bir.AddrLocal
				default:
					return d.errf(vpos, "addr_space: unknown address space %q (want Shared, Local or null)", s)
				}
			}
		case kDtype:
			if d.isNull() {
				return d.errf(vpos, "dtype is null: narwhal needs the element type of every tensor")
			}
			t.Dtype, err = d.dtype()
		case kPartDim:
			if d.isNull() {
				t.Extra = append(t.Extra, bir.Field{Key: "partition_dim", Val: bir.Null()})
			} else {
				t.PartitionDim, err = d.nonNegInt("partition_dim")
			}
		case kShape:
			t.Shape, err = d.intList("tensor_shape", true)
		case kFile:
			if s, err = d.str(); err == nil {
				t.File = string(s)
			}
		case kNoSpill:
			t.NoSpill, err = d.bool()
		case kVolatile:
			t.Volatile, err = d.bool()
		case kVirtual:
			t.Virtual, err = d.bool()
		case kLocs:
			locsPos = d.pos
			err = d.skip()
			locsLen = d.pos - locsPos
		case kLocSize:
			locSizePos = d.pos
			locSize, err = d.nonNegInt("tensorId2MemLocSize")
		case kIsBlock:
			t.IsBlock, err = d.bool()
		case kNumBlocks:
			t.NBlocks, err = d.nonNegInt("num_blocks")
		case kSplit:
			var more2 bool
			more2, err = d.beginArray("split_shape")
			t.SplitShape = []bool{}
			for err == nil && more2 {
				var b bool
				if b, err = d.bool(); err != nil {
					break
				}
				t.SplitShape = append(t.SplitShape, b)
				more2, err = d.nextElem()
			}
		case kShrink:
			t.ShrinkDim, err = d.int()
		case kLiveN:
			t.LiveN, err = d.nonNegInt("live_n")
		default:
			err = d.addExtra(&t.Extra, kpos, key)
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	for _, req := range []struct {
		bit  uint
		name string
	}{{kName, "name"}, {kKind, "kind"}, {kDtype, "dtype"}, {kShape, "tensor_shape"}, {kLocs, "memorylocations"}} {
		if seen&req.bit == 0 {
			return d.errf(start, "missing %q", req.name)
		}
	}
	tid, err := d.f.AddTensor(t)
	if err != nil {
		return d.errf(start, "duplicate allocation name %q", t.Name)
	}
	d.tensors[t.Name] = tid
	d.pendingLocs = append(d.pendingLocs, pendingLocs{tid: tid, pos: locsPos, n: locsLen, size: locSize, sizePos: locSizePos, start: start, idx: idx})
	return nil
}

// pendingLocs is an allocation whose memorylocations are parsed once the
// function's whole allocations array is read (parseAllocationLocs).
type pendingLocs struct {
	tid        bir.TensorID
	pos, n     int   // the memorylocations array: offset and length in bytes
	size       int64 // tensorId2MemLocSize, -1 when absent
	sizePos    int
	start, idx int // the allocation object, for error context
}

// parseAllocationLocs parses the memory locations of every allocation read
// so far, in allocation order. It first reserves the location table for
// all of them (a fully unrolled kernel's block tensors have millions),
// from the tensorId2MemLocSize counts that the arrays' sizes make
// plausible (a memory location object is over 16 bytes), so that the
// table is allocated once instead of copied at every growth step.
func (d *decoder) parseAllocationLocs() error {
	total := 0
	for _, p := range d.pendingLocs {
		if p.size > 0 && p.size <= int64(p.n/16) {
			total += int(p.size)
		}
	}
	if total >= 1024 {
		d.f.ReserveTensors(0, total)
	}
	for _, p := range d.pendingLocs {
		name := d.f.Tensor(p.tid).Name
		d.ctx = ctx{kind: "allocation", start: p.start, idx: p.idx, name: []byte(name)}
		parent := "allocation " + name
		err := d.at(p.pos, func() error {
			more, err := d.beginArray("memorylocations")
			for i := 0; err == nil && more; i++ {
				if err = d.parseMemLoc(p.tid, parent, i); err != nil {
					return err
				}
				more, err = d.nextElem()
			}
			return err
		})
		if err != nil {
			return err
		}
		d.ctx = ctx{kind: "allocation", start: p.start, idx: p.idx, name: []byte(name)}
		if n := int64(len(d.f.Tensor(p.tid).Locs)); p.size >= 0 && p.size != n {
			return d.errf(p.sizePos, "tensorId2MemLocSize: want %d (the number of memorylocations), have %d", n, p.size)
		}
	}
	d.pendingLocs = d.pendingLocs[:0]
	return nil
}

func (d *decoder) parseMemLoc(tid bir.TensorID, parent string, idx int) error {
	d.ws()
	start := d.pos
	d.ctx = ctx{kind: "memory location", start: start, idx: idx, parent: parent}
	more, err := d.beginObject("memory location")
	if err != nil {
		return err
	}
	const (
		kSkind = 1 << iota
		kName
		kType
		kDims
		kAddr
		kBank
		kBase
		kAllocated
		kPinned
		kTensorID
		kOutputKind
	)
	var seen uint
	var l bir.MemLoc
	var dims []int64
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return err
		}
		var bit uint
		switch string(key) {
		case "Skind":
			bit = kSkind
		case "name":
			bit = kName
		case "type":
			bit = kType
		case "dims":
			bit = kDims
		case "addr":
			bit = kAddr
		case "bank":
			bit = kBank
		case "base":
			bit = kBase
		case "allocated":
			bit = kAllocated
		case "pinned":
			bit = kPinned
		case "tensor_id":
			bit = kTensorID
		case "output_kind":
			bit = kOutputKind
		}
		if bit != 0 {
			if seen&bit != 0 {
				return d.dupKey(kpos, key)
			}
			seen |= bit
		}
		vpos := d.pos
		var s []byte
		switch bit {
		case kSkind:
			if s, err = d.str(); err == nil && string(s) != "memory_location" {
				return d.errf(vpos, "Skind: want \"memory_location\", have %q", s)
			}
		case kName:
			if s, err = d.str(); err == nil {
				if len(s) == 0 {
					return d.errf(vpos, "name is empty")
				}
				l.Name = string(s)
				d.ctx.name = s
			}
		case kType:
			if s, err = d.str(); err == nil {
				if l.Type, err = bir.ParseMemoryType(string(s)); err != nil {
					return d.errf(vpos, "type: %v", err)
				}
			}
		case kDims:
			dims, err = d.intList("dims", true)
		case kAddr:
			l.Addr, err = d.nonNegInt("addr")
		case kBank:
			l.Bank, err = d.nonNegInt("bank")
		case kBase:
			l.Base, err = d.nonNegInt("base")
		case kAllocated:
			l.Allocated, err = d.bool()
		case kPinned:
			l.Pinned, err = d.bool()
		case kTensorID:
			if d.isNull() {
				l.Extra = append(l.Extra, bir.Field{Key: "tensor_id", Val: bir.Null()})
			} else {
				l.TensorIdx, err = d.nonNegInt("tensor_id")
			}
		case kOutputKind:
			l.OutputKind, err = d.int()
		default:
			err = d.addExtra(&l.Extra, kpos, key)
		}
		if err != nil {
			return err
		}
		if more, err = d.nextField(); err != nil {
			return err
		}
	}
	for _, req := range []struct {
		bit  uint
		name string
	}{{kName, "name"}, {kType, "type"}, {kDims, "dims"}} {
		if seen&req.bit == 0 {
			return d.errf(start, "missing %q", req.name)
		}
	}
	if len(dims) == 2 {
		l.Partitions, l.Bytes = dims[0], dims[1]
	} else {
		// Not [partitions, bytes per partition]: keep the list verbatim and
		// derive the two sizes from the tensor (KLR's rank>2 dims multiply
		// every free dim by the element size, so their product is not the
		// byte count).
		l.RawDims = dims
		if len(dims) > 0 {
			l.Partitions = dims[0]
		}
		t := d.f.Tensor(tid)
		if len(t.Shape) > 0 {
			l.Bytes = t.Dtype.Size()
			for _, x := range t.Shape[1:] {
				l.Bytes = checked.SatMul(l.Bytes, x)
			}
		}
	}
	if _, err := d.f.AddLoc(tid, l); err != nil {
		return d.errf(start, "duplicate memory location name %q", l.Name)
	}
	return nil
}

// sortFields orders spans by their position in the input (source order).
func sortFields(fs []fieldSpan) {
	for i := 1; i < len(fs); i++ {
		if fs[i].k < fs[i-1].k {
			sort.Slice(fs, func(a, b int) bool { return fs[a].k < fs[b].k })
			return
		}
	}
}

// internFields interns the fields fs (spans of the input) as an attribute
// set. Identical raw text costs one map lookup: the cache is keyed by the
// raw bytes of the fields.
func (d *decoder) internFields(fs []fieldSpan) (bir.AttrID, error) {
	if len(fs) == 0 {
		return 0, nil
	}
	sortFields(fs)
	buf := d.keyBuf[:0]
	for _, x := range fs {
		buf = append(buf, d.data[x.k:x.e]...)
		buf = append(buf, 0) // cannot occur in JSON text outside strings
	}
	d.keyBuf = buf
	if id, ok := d.attrCache[string(buf)]; ok {
		return id, nil
	}
	set := make(bir.AttrSet, 0, len(fs))
	for _, x := range fs {
		err := d.at(x.k, func() error {
			k, kpos, err := d.key()
			if err != nil {
				return err
			}
			if set.Has(string(k)) {
				return d.dupKey(kpos, k)
			}
			v, err := d.value()
			if err != nil {
				return err
			}
			set = append(set, bir.Field{Key: string(k), Val: v})
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	id := d.m.InternAttrs(set)
	d.attrCache[string(buf)] = id
	return id, nil
}
