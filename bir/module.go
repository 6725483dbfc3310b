// Package bir is narwhal's in-memory form of BIR, the backend IR of the
// NeuronCore compiler, following ../shared/docs/design.md and the seeds'
// data model:
//
//   - Module: arch, functions ("main" first), config (instruction limit,
//     gates), neuron core id, artifact directory, and the module-wide intern
//     tables (names, access-pattern shapes, attribute sets, affine
//     expressions and predicates, loop axes).
//   - Function: tensors (the seeds' MemoryLocationSet), memory locations,
//     instructions, operands, dependencies, blocks and loops, each in a dense
//     slice indexed by a small integer id (TensorID, LocID, InstID, ...).
//   - Instruction: opcode, engine, name, a contiguous range of operands
//     (sources then destinations), an interned attribute set holding the
//     opcode-specific fields, an optional affine predicate, dependencies,
//     an interned source position, and for loops an axis and body blocks.
//
// # Source positions
//
// An instruction translated from an NKI kernel carries the kernel's source
// position (file:line:col; Instruction.Pos, a PosID into the module's
// position table, 0 when unknown). The position survives every pass: an
// instruction a pass creates takes the position of the instruction it came
// from. Function.Clone does that by itself; after NewInst, NewInstSym or
// NewLoop write
//
//	f.InheritPos(newInst, origin) // newInst takes origin's source position
//
// Errors about an instruction carry its position (Function.Errorf,
// Function.WrapErr, *PosError); errors about a tensor or location carry
// the position of the first instruction that reaches it
// (Function.TensorErrorf, TensorPos, LocPos). The text form writes a
// position as loc("file":line:col), BIR-JSON as the "pos" extension key.
//
// Performance is a design input (post-unroll modules reach tens of millions
// of instructions): Instruction and Operand are small pointer-free structs
// held in slices, so the garbage collector never scans them; names live in
// one byte arena; repeated access-pattern shapes, attribute sets, affine
// expressions, and source positions are interned once per module. An
// instruction with three physical access patterns costs about 40 + 3*32
// bytes plus its name.
//
// Mutation goes through Function methods that keep the invariants: unique
// tensor and location names (name tables), tensor-id maps (Tensor.Locs),
// block membership and parent links. Use lists are derived on demand
// (Function.Uses) and invalidated by every mutation method.
//
// The accessors Tensor, Loc, Reg, Inst and Block return pointers into the
// tables, and Ins, Outs and Operands slices of the operand table, so that
// passes can read and update plain fields (shapes, placements, engines,
// attributes) without copying. Writing a field some derived table is keyed
// on through them is unsupported: names (Tensor.Name, MemLoc.Name,
// Register.Name, Instruction.Name), liveness (Dead), and operands (an
// element of Ins/Outs/Operands, Instruction.Args/NIns/NOuts). Use
// RenameTensor, RenameLoc, Rename (or DropInstNameIndex first),
// RemoveTensor, RemoveLoc, Remove, SetOperand and SetArgs: a direct write
// leaves TensorByName, LocByName, InstByName or a cached Uses index stale.
// Function.CheckTables detects such stale entries, and the verifier reports
// them (rule "tables").
package bir

import (
	"fmt"
	"math"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// Sym names a string in the module's symbol arena. Sym 0 is "".
type Sym int32

// symbols is an append-only arena of strings addressed by Sym. Interned
// strings are deduplicated through index; other strings (instruction names,
// which are nearly all unique) are appended without a map entry.
type symbols struct {
	data  []byte
	start []uint32
	index map[string]Sym
}

func (s *symbols) init() {
	s.start = []uint32{0}
	s.index = map[string]Sym{"": 0}
}

func (s *symbols) add(str string) Sym {
	if len(s.data)+len(str) > math.MaxUint32 {
		panic("bir: symbol arena exceeds 4 GiB")
	}
	id := Sym(len(s.start))
	s.start = append(s.start, uint32(len(s.data)))
	s.data = append(s.data, str...)
	return id
}

func (s *symbols) bytes(id Sym) []byte {
	a := s.start[id]
	var b uint32
	if int(id)+1 < len(s.start) {
		b = s.start[id+1]
	} else {
		b = uint32(len(s.data))
	}
	return s.data[a:b:b]
}

// Config holds compile options carried by the module.
type Config struct {
	// MaxInstructionLimit is Unroll's configurable budget (seed 003:
	// instCountFitsLimit, M.config[112]); 0 means the default of the pass.
	MaxInstructionLimit int64
	// Options are gates and pass options in the original compiler's
	// spelling, e.g. "gen-stride-dma" -> "true".
	Options map[string]string
}

// AxisInfo describes a loop axis: the LoopAxis of a Loop instruction
// (lb <= v < ub, step stride), or a free symbolic variable.
type AxisInfo struct {
	Name   string
	Lb, Ub int64
	Stride int64
	Loop   InstID // the loop instruction that owns it, or NoInst
	Func   int32  // index of the owning function in Module.Funcs, or -1

	// Extra holds unknown BIR-JSON fields of the LoopAxis object, verbatim.
	Extra AttrSet
}

// TripCount returns the number of iterations of the axis (0 for a
// non-positive stride), exact for every int64 bound: lb 0, ub 2^63-1,
// stride 2^62 is two iterations, not the wrapped ceil((ub-lb)/stride)
// formula's result.
func (a *AxisInfo) TripCount() int64 {
	if a.Stride <= 0 {
		return 0
	}
	return checked.TripCount(a.Lb, a.Ub, a.Stride)
}

// APPair is one [step, num] pair of an access pattern.
type APPair struct {
	Step int64
	Num  int64
}

// Pattern is the list of [step, num] pairs of an access pattern, outermost
// first. For an on-chip location pair 0 walks partitions.
type Pattern []APPair

// NumElements returns the product of the nums, saturating at
// math.MaxInt64 when it overflows (the verifier rejects such a pattern).
func (p Pattern) NumElements() int64 {
	n := int64(1)
	for _, q := range p {
		var ok bool
		if n, ok = checked.Mul(n, q.Num); !ok {
			return math.MaxInt64
		}
	}
	return n
}

// Shape returns the nums.
func (p Pattern) Shape() []int64 {
	s := make([]int64, len(p))
	for i, q := range p {
		s[i] = q.Num
	}
	return s
}

// PatternID names an interned pattern. 0 is the empty pattern.
type PatternID int32

// ExprID names an interned affine expression. 0 is the constant 0.
type ExprID int32

// PredID names an interned affine predicate. 0 is "true".
type PredID int32

const maxInlinePairs = 5

type patKey struct {
	n     int8
	pairs [maxInlinePairs]APPair
}

// Module is a BIR module.
type Module struct {
	Version      int64
	Arch         string // as written in the input ("gen3", "trn2", ...)
	NeuronCoreID int64
	HasCoreID    bool // the neuron_core_id attribute is set (not null)
	ArtifactDir  string
	Config       Config
	// ModuleAttrs are entries of the top-level "attributes" object other
	// than neuron_core_id; Extra are unknown top-level keys. Both verbatim.
	ModuleAttrs AttrSet
	Extra       AttrSet
	// Funcs are the functions, the one named "main" (or the entry) first.
	Funcs []*Function

	syms symbols

	patterns      []Pattern
	patternIndex  map[patKey]PatternID
	patternIndexL map[string]PatternID

	attrs     []AttrSet
	attrIndex map[string]AttrID
	keyBuf    []byte

	exprs     []affine.Expr
	exprIndex map[string]ExprID
	preds     []affine.Pred
	predIndex map[string]PredID

	axes []AxisInfo

	poss     []Pos // source positions; poss[0] is NoPos (nil until the first)
	posIndex map[Pos]PosID

	unknownOps     []string
	unknownOpIndex map[string]Opcode
}

// NewModule returns an empty module for the given arch name.
func NewModule(arch string) *Module {
	m := &Module{Version: 2, Arch: arch, Config: Config{Options: map[string]string{}}}
	m.syms.init()
	m.patterns = []Pattern{nil}
	m.patternIndex = map[patKey]PatternID{{}: 0}
	m.patternIndexL = map[string]PatternID{}
	m.attrs = []AttrSet{nil}
	m.attrIndex = map[string]AttrID{"{}": 0}
	m.exprs = []affine.Expr{{}}
	m.exprIndex = map[string]ExprID{affine.Expr{}.Key(): 0}
	m.preds = []affine.Pred{{}}
	m.predIndex = map[string]PredID{affine.Pred{}.Key(): 0}
	m.unknownOpIndex = map[string]Opcode{}
	return m
}

// Str returns the string of a symbol.
func (m *Module) Str(s Sym) string { return string(m.syms.bytes(s)) }

// StrBytes returns the bytes of a symbol without copying. Do not modify.
func (m *Module) StrBytes(s Sym) []byte { return m.syms.bytes(s) }

// Intern returns the symbol of str, deduplicated.
func (m *Module) Intern(str string) Sym {
	if id, ok := m.syms.index[str]; ok {
		return id
	}
	id := m.syms.add(str)
	m.syms.index[str] = id
	return id
}

// NewSym appends str to the arena without deduplication: the cheap way to
// store names that are nearly all distinct (instruction names).
func (m *Module) NewSym(str string) Sym { return m.syms.add(str) }

// NewSymBytes is NewSym for a byte slice.
func (m *Module) NewSymBytes(b []byte) Sym {
	if len(m.syms.data)+len(b) > math.MaxUint32 {
		panic("bir: symbol arena exceeds 4 GiB")
	}
	id := Sym(len(m.syms.start))
	m.syms.start = append(m.syms.start, uint32(len(m.syms.data)))
	m.syms.data = append(m.syms.data, b...)
	return id
}

// SymbolBytes returns the total size of the symbol arena (for reports).
func (m *Module) SymbolBytes() int { return len(m.syms.data) + 4*len(m.syms.start) }

// InternPattern returns the id of p, adding it if new.
func (m *Module) InternPattern(p Pattern) PatternID {
	if len(p) <= maxInlinePairs {
		var k patKey
		k.n = int8(len(p))
		copy(k.pairs[:], p)
		if id, ok := m.patternIndex[k]; ok {
			return id
		}
		id := PatternID(len(m.patterns))
		m.patterns = append(m.patterns, append(Pattern(nil), p...))
		m.patternIndex[k] = id
		return id
	}
	b := make([]byte, 0, 16*len(p))
	for _, q := range p {
		b = strconv.AppendInt(b, q.Step, 36)
		b = append(b, ',')
		b = strconv.AppendInt(b, q.Num, 36)
		b = append(b, ';')
	}
	if id, ok := m.patternIndexL[string(b)]; ok {
		return id
	}
	id := PatternID(len(m.patterns))
	m.patterns = append(m.patterns, append(Pattern(nil), p...))
	m.patternIndexL[string(b)] = id
	return id
}

// Pattern returns the pattern of id. Do not modify the result.
func (m *Module) Pattern(id PatternID) Pattern { return m.patterns[id] }

// NumPatterns returns the number of interned patterns.
func (m *Module) NumPatterns() int { return len(m.patterns) }

// InternAttrs returns the id of a, adding it if new.
func (m *Module) InternAttrs(a AttrSet) AttrID {
	if len(a) == 0 {
		return 0
	}
	// The key is built in a reused buffer and looked up without
	// converting it to a string (Go does not allocate for m[string(b)]),
	// so interning an already-known set allocates nothing.
	m.keyBuf = appendFieldsKey(m.keyBuf[:0], a)
	if id, ok := m.attrIndex[string(m.keyBuf)]; ok {
		return id
	}
	id := AttrID(len(m.attrs))
	m.attrs = append(m.attrs, a)
	m.attrIndex[string(m.keyBuf)] = id
	return id
}

// LookupAttrKey finds an interned set by its canonical key (AttrSet.Key).
func (m *Module) LookupAttrKey(key string) (AttrID, bool) {
	id, ok := m.attrIndex[key]
	return id, ok
}

// Attrs returns the attribute set of id. Do not modify the result.
func (m *Module) Attrs(id AttrID) AttrSet { return m.attrs[id] }

// NumAttrSets returns the number of interned attribute sets.
func (m *Module) NumAttrSets() int { return len(m.attrs) }

// InternExpr returns the id of e.
func (m *Module) InternExpr(e affine.Expr) ExprID {
	if e.IsConst() && e.Const == 0 {
		return 0
	}
	k := e.Key()
	if id, ok := m.exprIndex[k]; ok {
		return id
	}
	id := ExprID(len(m.exprs))
	m.exprs = append(m.exprs, e)
	m.exprIndex[k] = id
	return id
}

// Expr returns the expression of id.
func (m *Module) Expr(id ExprID) affine.Expr { return m.exprs[id] }

// InternPred returns the id of p.
func (m *Module) InternPred(p affine.Pred) PredID {
	if p.IsTrue() {
		return 0
	}
	k := p.Key()
	if id, ok := m.predIndex[k]; ok {
		return id
	}
	id := PredID(len(m.preds))
	m.preds = append(m.preds, p)
	m.predIndex[k] = id
	return id
}

// Pred returns the predicate of id.
func (m *Module) Pred(id PredID) affine.Pred { return m.preds[id] }

// NewAxis registers a loop axis and returns its id.
func (m *Module) NewAxis(info AxisInfo) affine.Axis {
	m.axes = append(m.axes, info)
	return affine.Axis(len(m.axes) - 1)
}

// Axis returns the info of axis a (a pointer into the table: the loop
// bounds may be updated in place).
func (m *Module) Axis(a affine.Axis) *AxisInfo { return &m.axes[a] }

// NumAxes returns the number of registered axes.
func (m *Module) NumAxes() int { return len(m.axes) }

// AxisName returns the name of axis a, for affine printing.
func (m *Module) AxisName(a affine.Axis) string {
	if int(a) >= 0 && int(a) < len(m.axes) {
		return m.axes[a].Name
	}
	return affine.DefaultNames(a)
}

// UnknownOpcode returns the module-local opcode for an opcode name narwhal
// does not model, registering it on first use.
func (m *Module) UnknownOpcode(name string) Opcode {
	if op, ok := m.unknownOpIndex[name]; ok {
		return op
	}
	op := FirstUnknownOpcode + Opcode(len(m.unknownOps))
	m.unknownOps = append(m.unknownOps, name)
	m.unknownOpIndex[name] = op
	return op
}

// OpName returns the BIR-JSON name of op, including module-local unknown
// opcodes.
func (m *Module) OpName(op Opcode) string {
	if op >= FirstUnknownOpcode && int(op-FirstUnknownOpcode) < len(m.unknownOps) {
		return m.unknownOps[op-FirstUnknownOpcode]
	}
	return op.String()
}

// LookupOpcode resolves a name to a known or already-registered unknown opcode.
func (m *Module) LookupOpcode(name string) (Opcode, bool) {
	if op, ok := LookupOpcode(name); ok {
		return op, true
	}
	op, ok := m.unknownOpIndex[name]
	return op, ok
}

// Func returns the function named name, or nil.
func (m *Module) Func(name string) *Function {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Main returns the entry function: the one named "main", else the first.
func (m *Module) Main() *Function {
	if f := m.Func("main"); f != nil {
		return f
	}
	if len(m.Funcs) > 0 {
		return m.Funcs[0]
	}
	return nil
}

// NewFunction appends a new empty function. It fails if the name is taken.
func (m *Module) NewFunction(name string) (*Function, error) {
	if m.Func(name) != nil {
		return nil, fmt.Errorf("function %q already exists", name)
	}
	f := newFunction(m, name)
	f.index = int32(len(m.Funcs))
	m.Funcs = append(m.Funcs, f)
	return f, nil
}

// RemoveFunction removes f from the module.
func (m *Module) RemoveFunction(f *Function) {
	for i, g := range m.Funcs {
		if g == f {
			m.Funcs = append(m.Funcs[:i], m.Funcs[i+1:]...)
			break
		}
	}
	for i, g := range m.Funcs {
		g.index = int32(i)
	}
}

// NumInsts returns the number of live non-loop instructions in the module.
func (m *Module) NumInsts() int64 {
	var n int64
	for _, f := range m.Funcs {
		n += f.NumInsts()
	}
	return n
}

// FuncsMainFirst returns the module's functions in the seeds' BackendPass
// visiting order: the entry (Main) first, then the others in module
// order. The DMA passes and the unrollers walk functions in this order.
func (m *Module) FuncsMainFirst() []*Function {
	main := m.Main()
	out := make([]*Function, 0, len(m.Funcs))
	if main != nil {
		out = append(out, main)
	}
	for _, f := range m.Funcs {
		if f != main {
			out = append(out, f)
		}
	}
	return out
}

// OptionLNC is the module option that records how many logical neuron
// cores the module's kernel runs on (LNC): translate_nki_ast_to_bir sets
// it for a KLR kernel with several per-core bodies, a two-core built-in
// kernel sets it, and the synchronization passes read it
// (insert_core_barrier, insert_ptcom_flat act only when it is above 1).
const OptionLNC = "narwhal.lnc"

// LNC returns the module's logical core count (OptionLNC), 1 when unset
// or malformed.
func (m *Module) LNC() int {
	v, ok := m.Config.Options[OptionLNC]
	if !ok {
		return 1
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' || n > 1<<16 {
			return 1
		}
		n = n*10 + int(c-'0')
	}
	return max(n, 1)
}
