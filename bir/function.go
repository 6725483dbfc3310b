package bir

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Dense ids of a function's objects.
type (
	TensorID int32
	LocID    int32
	InstID   int32
	BlockID  int32
	RegID    int32
)

// Sentinels for "none".
const (
	NoTensor TensorID = -1
	NoLoc    LocID    = -1
	NoInst   InstID   = -1
	NoBlock  BlockID  = -1
)

// NoAxis marks a dependency without a loop carry.
const NoAxis affine.Axis = -1

// Tensor is the seeds' MemoryLocationSet: one logical tensor, its memory
// locations (one per block of a block tensor, addressed by tensor id), and
// the cross-pass annotations.
type Tensor struct {
	Name         string
	Kind         TensorKind
	Class        TensorClass
	AddrSpace    AddrSpace
	Dtype        Dtype
	PartitionDim int64
	Shape        []int64 // logical shape in elements, [partitions, free...]
	File         string
	NoSpill      bool
	Volatile     bool
	Virtual      bool

	// IsBlock and NBlocks: a block tensor has NBlocks equally shaped blocks
	// (one per iteration of the loop that allocates it); symbolic access
	// patterns pick a block per iteration. Before FullUnroll's memloc
	// generation a block tensor may have a single template location that
	// stands for every block.
	IsBlock bool
	NBlocks int64

	// Locs are the memory locations, indexed by their tensor id.
	Locs []LocID

	// SplitShape is SBSizeLegalization's mark (seed 000): which dims
	// FullUnroll::tensorSplit must cut. nil when unmarked.
	SplitShape []bool
	// ShrinkDim and LiveN are shrink_tensor's record (seed 000, seed 004):
	// the dim along which only LiveN blocks are live at once. LiveN == 0
	// means there is no record (ShrinkDim is then meaningless). A block
	// tensor with a record may be stored as LiveN slots of one block each,
	// block b in slot b mod LiveN (no two blocks live at once share a
	// slot); see passes/sbsize/shrink_tensor.go for who writes and reads it.
	ShrinkDim int64
	LiveN     int64

	Extra AttrSet // unknown BIR-JSON fields, verbatim
	Dead  bool
}

// MemLoc is a MemoryLocation: a region of one memory.
//
// The small fields sit together so the struct packs into 128 bytes: a
// fully unrolled kernel has one location per block of every block tensor,
// close to one per instruction.
type MemLoc struct {
	Name      string
	Tensor    TensorID
	Type      MemoryType
	Allocated bool
	Pinned    bool
	Dead      bool
	// Partitions x Bytes (per partition); DRAM locations use Partitions for
	// the leading dim as BIR-JSON's dims do, and are addressed flat.
	Partitions int64
	Bytes      int64
	// RawDims keeps a dims list that is not [partitions, bytes] verbatim.
	RawDims   []int64
	Addr      int64 // byte address within each partition (allocated)
	Bank      int64 // PSUM bank
	Base      int64 // base partition
	TensorIdx int64 // tensor_id: the block index within its tensor
	// OutputKind tags special locations; 7 marks a CCE partial output
	// (seed 001, legalize_cce_dma "+224 = 7").
	OutputKind int64
	Extra      AttrSet
}

// TotalBytes returns Partitions * Bytes.
func (l *MemLoc) TotalBytes() int64 { return l.Partitions * l.Bytes }

// ElemsPerPartition returns the elements per partition for dtype d.
func (l *MemLoc) ElemsPerPartition(d Dtype) int64 {
	if d.Size() == 0 {
		return 0
	}
	return l.Bytes / d.Size()
}

// Register is an engine register referenced by name.
type Register struct {
	Name string
}

// OperandKind is the variant of an operand (bir-json.md §5).
type OperandKind uint8

const (
	OpdPhysAP   OperandKind = iota // physical_ap: location + offset + pattern
	OpdSymAP                       // symbolic_ap: tensor + affine block/offset + pattern
	OpdRegAP                       // register_ap: pattern with a register offset
	OpdRegister                    // register_access
	OpdImm                         // imm_value
	OpdImmArray                    // imm_array
	OpdSymImm                      // symbolic_imm_value
	NumOperandKinds
)

var operandKindNames = [NumOperandKinds]string{"physical_ap", "symbolic_ap", "register_ap", "register_access", "imm_value", "imm_array", "symbolic_imm_value"}

func (k OperandKind) String() string {
	if k < NumOperandKinds {
		return operandKindNames[k]
	}
	return fmt.Sprintf("operandkind(%d)", uint8(k))
}

// IsAP reports whether the operand addresses memory.
func (k OperandKind) IsAP() bool { return k == OpdPhysAP || k == OpdSymAP || k == OpdRegAP }

// Operand flag bits.
const (
	OpdFlagFloat uint8 = 1 << iota // OpdImm holds a float64 (bits in Offset)
)

// Operand is one source or destination of an instruction. It is a compact,
// pointer-free value; its fields are interpreted per Kind:
//
//	OpdPhysAP:   Ref = LocID, Offset = element offset, Pattern.
//	OpdSymAP:    Ref = TensorID, Expr = block-index ExprID, Offset = the
//	             ExprID of the element offset, Pattern.
//	OpdRegAP:    Ref = TensorID, Expr = RegID, Pattern (register offset and
//	             other fields in Extra).
//	OpdRegister: Ref = RegID.
//	OpdImm:      Offset = int64 value, or float64 bits when Flags has
//	             OpdFlagFloat.
//	OpdImmArray: Ref = AttrID of {"value_array": [...]}.
//	OpdSymImm:   Ref = AttrID of {"value_list": [...]}, Expr = ExprID.
//
// Dtype is the operand's element type (an AP's dtype may reinterpret its
// location's). Extra holds unknown BIR-JSON fields verbatim.
type Operand struct {
	Offset  int64
	Ref     int32
	Pattern PatternID
	Expr    ExprID
	Extra   AttrID
	Kind    OperandKind
	Dtype   Dtype
	Flags   uint8
}

// Loc returns the location of a physical AP.
func (o *Operand) Loc() LocID { return LocID(o.Ref) }

// TensorRef returns the tensor of a symbolic or register AP.
func (o *Operand) TensorRef() TensorID { return TensorID(o.Ref) }

// BlockExpr returns the block-index expression of a symbolic AP.
func (o *Operand) BlockExpr() ExprID { return o.Expr }

// OffsetExpr returns the offset expression of a symbolic AP.
func (o *Operand) OffsetExpr() ExprID { return ExprID(o.Offset) }

// ImmFloat returns an immediate as float64.
func (o *Operand) ImmFloat() float64 {
	if o.Flags&OpdFlagFloat != 0 {
		return float64frombits(o.Offset)
	}
	return float64(o.Offset)
}

// ImmInt returns an immediate as int64 (floats truncate).
func (o *Operand) ImmInt() int64 {
	if o.Flags&OpdFlagFloat != 0 {
		return int64(float64frombits(o.Offset))
	}
	return o.Offset
}

// IsZero reports whether o is the zero Operand, the "no operand" value the
// builder's optional arguments take (Activation's bias, TensorScalarPtr's
// second scalar). The zero value's Kind is OpdPhysAP, so Kind.IsAP alone
// cannot tell an absent operand from a physical AP; a real physical AP has
// a non-empty pattern, so the all-zero value is never a meaningful one.
func (o Operand) IsZero() bool { return o == Operand{} }

// PhysAP builds a physical access-pattern operand.
func PhysAP(loc LocID, dt Dtype, offset int64, pat PatternID) Operand {
	return Operand{Kind: OpdPhysAP, Ref: int32(loc), Dtype: dt, Offset: offset, Pattern: pat}
}

// SymAP builds a symbolic access-pattern operand.
func SymAP(t TensorID, dt Dtype, block, offset ExprID, pat PatternID) Operand {
	return Operand{Kind: OpdSymAP, Ref: int32(t), Dtype: dt, Expr: block, Offset: int64(offset), Pattern: pat}
}

// ImmF builds a float immediate.
func ImmF(v float64, dt Dtype) Operand {
	return Operand{Kind: OpdImm, Dtype: dt, Offset: float64bits(v), Flags: OpdFlagFloat}
}

// ImmI builds an integer immediate.
func ImmI(v int64, dt Dtype) Operand { return Operand{Kind: OpdImm, Dtype: dt, Offset: v} }

// RegOpd builds a register operand.
func RegOpd(r RegID, dt Dtype) Operand { return Operand{Kind: OpdRegister, Ref: int32(r), Dtype: dt} }

// Instruction flag bits.
const (
	instDead uint8 = 1 << iota
)

// Instruction is one BIR instruction. Its operands are the range
// [Args, Args+NIns+NOuts) of the function's operand slice: sources first.
type Instruction struct {
	Op     Opcode
	Engine Engine
	flags  uint8
	NIns   uint16
	NOuts  uint16
	Name   Sym
	Args   int32
	Attrs  AttrID
	Pred   PredID // predicate: the instruction runs only where it holds
	Block  BlockID
	Aux    int32 // Loop: index into the function's loop table
	Deps   int32 // head of the dependency list, -1 when none
	Pos    PosID // source position (NoPos when unknown); see InheritPos
}

// Dead reports whether the instruction was removed.
func (in *Instruction) Dead() bool { return in.flags&instDead != 0 }

// Dep is a dependency of an instruction on an earlier one. A loop-carried
// dependency names the axis and distance: the instruction at iteration v of
// CarryAxis depends on On at iteration v - CarryDist, only where Pred holds
// (seed 003: the unroller keeps a carried edge only where its
// AffinePredicate evaluates true). On the loops enclosing both that are
// inside the carry loop, On's instance agrees with the dependent's
// iteration; with CarryAll it is every iteration of those loops (the
// dependent depends on every instance of On in that iteration of the carry
// loop: an inner loop's tile that the next outer iteration rewrites from
// its first inner iteration on, after the previous one's last).
type Dep struct {
	On        InstID
	Kind      DepKind
	CarryAll  bool
	CarryAxis affine.Axis
	CarryDist int32
	Pred      PredID
	next      int32
}

// Block is a sequence of instructions; a loop's body is one or more blocks.
type Block struct {
	Name   string
	Insts  []InstID
	Parent InstID // the loop owning it, or NoInst for a top-level block

	// Extra holds unknown BIR-JSON fields of the block object, verbatim.
	Extra AttrSet
}

// LoopInfo is the loop table entry of a Loop/DynamicForLoop/DoWhile.
type LoopInfo struct {
	Axis affine.Axis
	Body []BlockID
}

// Function is one BIR function.
type Function struct {
	m          *Module
	index      int32
	Name       string
	Kind       FuncKind
	Attributes []string // need_unroll, unrolled, stage_*_completed, ...
	Extra      AttrSet  // unknown BIR-JSON fields, verbatim

	tensors  []Tensor
	locs     []MemLoc
	insts    []Instruction
	operands []Operand
	deps     []Dep
	blocks   []Block
	loops    []LoopInfo
	regs     []Register

	// Top are the function's top-level blocks in order.
	Top []BlockID

	// Sched is the scheduler's side table (schedule.go), nil until a
	// schedule is made.
	Sched *Schedule

	// Sync is the synchronization side table (sync.go: semaphore waits and
	// updates, DMA trigger engines), nil until synchronization.
	Sync *Sync

	tensorByName map[string]TensorID
	locByName    map[string]LocID
	locMapRoom   int // entries locByName was made with room for (ReserveTensors)
	regByName    map[string]RegID
	instByName   map[string]InstID // built lazily

	version uint64
	uses    *UseIndex
}

func newFunction(m *Module, name string) *Function {
	return &Function{
		m: m, Name: name,
		tensorByName: map[string]TensorID{},
		locByName:    map[string]LocID{},
		regByName:    map[string]RegID{},
	}
}

// Module returns the owning module.
func (f *Function) Module() *Module { return f.m }

// Index returns f's position in Module.Funcs.
func (f *Function) Index() int { return int(f.index) }

func (f *Function) touch() {
	f.version++
	f.uses = nil
}

// Version increases on every mutation; passes may use it to cache analyses.
func (f *Function) Version() uint64 { return f.version }

// HasAttribute reports whether the function carries attribute a.
func (f *Function) HasAttribute(a string) bool { return slices.Contains(f.Attributes, a) }

// AddAttribute adds function attribute a if absent.
func (f *Function) AddAttribute(a string) {
	if !f.HasAttribute(a) {
		f.Attributes = append(f.Attributes, a)
	}
}

// RemoveAttribute removes function attribute a.
func (f *Function) RemoveAttribute(a string) {
	f.Attributes = slices.DeleteFunc(f.Attributes, func(s string) bool { return s == a })
}

// ---- tensors and locations ----

// NumTensors returns the size of the tensor table (including dead ones).
func (f *Function) NumTensors() int { return len(f.tensors) }

// Tensor returns tensor t. The pointer is valid until the next AddTensor.
// Do not write Name, Locs or Dead through it: use RenameTensor, AddLoc /
// RemoveLoc and RemoveTensor, which keep TensorByName and the location
// lists in step (a direct write leaves them stale; CheckTables reports it).
func (f *Function) Tensor(t TensorID) *Tensor { return &f.tensors[t] }

// TensorByName finds a live tensor.
func (f *Function) TensorByName(name string) (TensorID, bool) {
	t, ok := f.tensorByName[name]
	return t, ok
}

// AddTensor adds a tensor (its Locs must be empty; add locations with
// AddLoc). Names are unique among live tensors.
func (f *Function) AddTensor(t Tensor) (TensorID, error) {
	if _, dup := f.tensorByName[t.Name]; dup {
		return NoTensor, fmt.Errorf("function %s: tensor %q already exists", f.Name, t.Name)
	}
	if len(t.Locs) != 0 {
		return NoTensor, fmt.Errorf("function %s: tensor %q: add locations with AddLoc", f.Name, t.Name)
	}
	id := TensorID(len(f.tensors))
	f.tensors = append(f.tensors, t)
	f.tensorByName[t.Name] = id
	f.touch()
	return id, nil
}

// RenameTensor changes a tensor's name, keeping the name table.
func (f *Function) RenameTensor(t TensorID, name string) error {
	if o, dup := f.tensorByName[name]; dup && o != t {
		return fmt.Errorf("function %s: tensor %q already exists", f.Name, name)
	}
	delete(f.tensorByName, f.tensors[t].Name)
	f.tensors[t].Name = name
	f.tensorByName[name] = t
	f.touch()
	return nil
}

// RemoveTensor marks a tensor and its locations dead.
func (f *Function) RemoveTensor(t TensorID) {
	ts := &f.tensors[t]
	if ts.Dead {
		return
	}
	for _, l := range ts.Locs {
		f.removeLocName(l)
	}
	ts.Locs = nil
	ts.Dead = true
	delete(f.tensorByName, ts.Name)
	f.touch()
}

// NumLocs returns the size of the location table (including dead ones).
func (f *Function) NumLocs() int { return len(f.locs) }

// Loc returns location l. The pointer is valid until the next AddLoc. Do
// not write Name, Tensor or Dead through it: use RenameLoc and RemoveLoc,
// which keep LocByName and the tensor's location list in step (a direct
// write leaves them stale; CheckTables reports it).
func (f *Function) Loc(l LocID) *MemLoc { return &f.locs[l] }

// LocByName finds a live location.
func (f *Function) LocByName(name string) (LocID, bool) {
	l, ok := f.locIndex()[name]
	return l, ok
}

// LocByNameBytes is LocByName for a name held as bytes (a reader's
// input), without converting it to a string.
func (f *Function) LocByNameBytes(name []byte) (LocID, bool) {
	l, ok := f.locIndex()[string(name)]
	return l, ok
}

// AddLoc adds a location to tensor t at the end of its tensor-id list and
// sets its TensorIdx accordingly unless keepIdx is set in opts.
func (f *Function) AddLoc(t TensorID, l MemLoc) (LocID, error) {
	if int(t) < 0 || int(t) >= len(f.tensors) || f.tensors[t].Dead {
		return NoLoc, fmt.Errorf("function %s: location %q: no tensor #%d", f.Name, l.Name, t)
	}
	idx := f.locIndex()
	if _, dup := idx[l.Name]; dup {
		return NoLoc, fmt.Errorf("function %s: memory location %q already exists", f.Name, l.Name)
	}
	l.Tensor = t
	id := LocID(len(f.locs))
	f.locs = append(f.locs, l)
	idx[l.Name] = id
	f.tensors[t].Locs = append(f.tensors[t].Locs, id)
	f.touch()
	return id, nil
}

// AddLocSeries adds n locations to tensor t at the end of its tensor-id
// list: copies of tmpl (its Name and Tensor are ignored, RawDims is copied
// per location) with TensorIdx 0..n-1, named prefix<k> for k = 0..n-1
// (decimal, no leading zeros), a taken name made unique the way
// UniqueLocName does (name_<j>). It returns the id of the first; the
// others follow it. The result is that of AddLoc in a loop with
// UniqueLocName, without that loop's costs (a fully unrolled kernel has
// millions of locations; this is FullUnroll's per-block location
// generation):
//
//   - the n names are slices of one string, not n allocations;
//   - a long series into a function with fewer than 4n locations does not
//     probe or fill the location-name table: the names prefix<k> are
//     distinct from each other, so only a location that exists before the
//     call can take one, and one pass over those finds them (a name of the
//     form prefix<digits>); the table is then dropped and rebuilt, sized
//     once, by the first call that needs it (LocByName, AddLoc, RenameLoc,
//     UniqueLocName), which a command that only unrolls and writes never
//     makes. At 25M instructions the probes into a table of millions of
//     names were a fifth of FullUnroll's time;
//   - otherwise (a short series, or a function already much larger than
//     the series) each name is probed and entered as AddLoc does.
//
// A caller adding several series reserves the location table for all of
// them first (ReserveTensors), so that it is not copied at every growth.
func (f *Function) AddLocSeries(t TensorID, tmpl MemLoc, prefix string, n int64) (LocID, error) {
	if int(t) < 0 || int(t) >= len(f.tensors) || f.tensors[t].Dead {
		return NoLoc, fmt.Errorf("function %s: locations %s<k>: no tensor #%d", f.Name, prefix, t)
	}
	if n <= 0 {
		return LocID(len(f.locs)), nil
	}
	if int64(len(f.locs))+n > math.MaxInt32 {
		return NoLoc, fmt.Errorf("function %s: locations %s<k>: %d more locations exceed the %d a function can hold", f.Name, prefix, n, math.MaxInt32)
	}
	const longSeries = 1024
	before := int64(len(f.locs))
	probe := f.locByName != nil && (n < longSeries || before > 4*n)
	if !probe && f.locByName == nil && before > 4*n+longSeries {
		f.locIndex()
		probe = true
	}
	var taken map[int64]bool // scan mode: the k whose name an existing location has
	if !probe {
		for i := range f.locs {
			lc := &f.locs[i]
			if lc.Dead {
				continue
			}
			if k, ok := seriesIndex(lc.Name, prefix); ok && k < n {
				if taken == nil {
					taken = map[int64]bool{}
				}
				taken[k] = true
			}
		}
		f.locByName = nil // rebuilt on demand
	}
	f.locs = slices.Grow(f.locs, int(n))
	ts := &f.tensors[t]
	ts.Locs = slices.Grow(ts.Locs, int(n))
	var arena strings.Builder
	arena.Grow(int(n)*len(prefix) + seriesDigits(n))
	var num [20]byte
	for k := int64(0); k < n; k++ {
		arena.WriteString(prefix)
		arena.Write(strconv.AppendInt(num[:0], k, 10))
	}
	names := arena.String()
	first := LocID(len(f.locs))
	off := 0
	tmpl.Tensor = t
	for k := int64(0); k < n; k++ {
		end := off + len(prefix) + digits(k)
		l := tmpl
		l.Name = names[off:end]
		off = end
		if !probe && taken[k] {
			// A collision: from here on, the exact per-name path.
			f.locIndex()
			probe = true
		}
		if probe {
			if _, dup := f.locByName[l.Name]; dup {
				l.Name = f.UniqueLocName(l.Name)
			}
		}
		if tmpl.RawDims != nil {
			l.RawDims = slices.Clone(tmpl.RawDims)
		}
		l.TensorIdx = k
		id := LocID(len(f.locs))
		f.locs = append(f.locs, l)
		if probe {
			f.locByName[l.Name] = id
		}
		ts.Locs = append(ts.Locs, id)
	}
	f.touch()
	return first, nil
}

// seriesIndex reports whether name is prefix followed by the decimal form
// of some k >= 0 (as strconv writes it: no sign, no leading zero), and k.
func seriesIndex(name, prefix string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok || rest == "" || len(rest) > 18 || (rest[0] == '0' && len(rest) > 1) {
		return 0, false
	}
	var k int64
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		k = k*10 + int64(c-'0')
	}
	return k, true
}

// locIndex returns the location-name table, building it (sized once) when
// AddLocSeries left it unbuilt.
func (f *Function) locIndex() map[string]LocID {
	if f.locByName == nil {
		m := make(map[string]LocID, len(f.locs))
		for i := range f.locs {
			if !f.locs[i].Dead {
				m[f.locs[i].Name] = LocID(i)
			}
		}
		f.locByName, f.locMapRoom = m, len(f.locs)
	}
	return f.locByName
}

// digits returns the number of decimal digits of k >= 0.
func digits(k int64) int {
	d := 1
	for k >= 10 {
		k /= 10
		d++
	}
	return d
}

// seriesDigits returns the total decimal digits of 0..n-1.
func seriesDigits(n int64) int {
	total, lo := int64(0), int64(0)
	for d, hi := int64(1), int64(10); lo < n; d, hi = d+1, hi*10 {
		total += d * (min(n, hi) - lo)
		lo = hi
		if hi > math.MaxInt64/10 {
			break
		}
	}
	return int(total)
}

func (f *Function) removeLocName(l LocID) {
	lc := &f.locs[l]
	if lc.Dead {
		return
	}
	lc.Dead = true
	if f.locByName != nil {
		delete(f.locByName, lc.Name)
	}
}

// RemoveLoc marks a location dead and drops it from its tensor's list.
func (f *Function) RemoveLoc(l LocID) {
	lc := &f.locs[l]
	if lc.Dead {
		return
	}
	f.removeLocName(l)
	ts := &f.tensors[lc.Tensor]
	ts.Locs = slices.DeleteFunc(ts.Locs, func(x LocID) bool { return x == l })
	f.touch()
}

// RenameLoc changes a location's name, keeping the name table.
func (f *Function) RenameLoc(l LocID, name string) error {
	idx := f.locIndex()
	if o, dup := idx[name]; dup && o != l {
		return fmt.Errorf("function %s: memory location %q already exists", f.Name, name)
	}
	delete(idx, f.locs[l].Name)
	f.locs[l].Name = name
	idx[name] = l
	f.touch()
	return nil
}

// LocForBlock returns the location holding block b of tensor t: the
// location with tensor id b, or the single template location of a block
// tensor whose per-block locations are not generated yet.
func (f *Function) LocForBlock(t TensorID, b int64) (LocID, bool) {
	ts := &f.tensors[t]
	if b >= 0 && b < int64(len(ts.Locs)) && f.locs[ts.Locs[b]].TensorIdx == b {
		return ts.Locs[b], true
	}
	for _, l := range ts.Locs {
		if f.locs[l].TensorIdx == b {
			return l, true
		}
	}
	if len(ts.Locs) == 1 && b >= 0 && (b < max(ts.NBlocks, 1)) {
		return ts.Locs[0], true
	}
	return NoLoc, false
}

// Reg returns register r. Its Name is fixed when RegByName creates it: do
// not write it (the register-name table would go stale; CheckTables
// reports it).
func (f *Function) Reg(r RegID) *Register { return &f.regs[r] }

// NumRegs returns the number of registers.
func (f *Function) NumRegs() int { return len(f.regs) }

// RegByName returns the register named name, creating it if needed
// (BIR-JSON declares no registers: they are created on first reference).
func (f *Function) RegByName(name string) RegID {
	if r, ok := f.regByName[name]; ok {
		return r
	}
	r := RegID(len(f.regs))
	f.regs = append(f.regs, Register{Name: name})
	f.regByName[name] = r
	return r
}

// ---- blocks ----

// NumBlocks returns the size of the block table.
func (f *Function) NumBlocks() int { return len(f.blocks) }

// Block returns block b. The pointer is valid until the next NewBlock.
func (f *Function) Block(b BlockID) *Block { return &f.blocks[b] }

// NewBlock creates an empty block. A top-level block (parent NoInst) is
// appended to Top; a loop body block is appended to the loop's body.
func (f *Function) NewBlock(name string, parent InstID) BlockID {
	id := BlockID(len(f.blocks))
	f.blocks = append(f.blocks, Block{Name: name, Parent: parent})
	if parent == NoInst {
		f.Top = append(f.Top, id)
	} else {
		li := &f.loops[f.insts[parent].Aux]
		li.Body = append(li.Body, id)
	}
	f.touch()
	return id
}

// ---- instructions ----

// NumInstSlots returns the size of the instruction table (dead included).
func (f *Function) NumInstSlots() int { return len(f.insts) }

// Inst returns instruction i. The pointer is valid until the next NewInst.
// Op, Engine, Attrs, Pred and Pos may be written through it. Do not write Name
// (use Rename, or call DropInstNameIndex before renaming in place), Args,
// NIns or NOuts (use SetArgs), Block (use Append, InsertAt, SetBlockInsts,
// Remove) or Deps (use AddDep, ClearDeps): a direct write leaves
// InstByName or a cached Uses index stale (CheckTables reports it) or block
// membership and dependency lists inconsistent (the verifier's block and
// ref rules report it).
func (f *Function) Inst(i InstID) *Instruction { return &f.insts[i] }

// InstName returns the name of instruction i.
func (f *Function) InstName(i InstID) string { return f.m.Str(f.insts[i].Name) }

// OpName returns the opcode name of instruction i.
func (f *Function) OpName(i InstID) string { return f.m.OpName(f.insts[i].Op) }

// Ins returns the source operands of i (a view into the operand table,
// valid until the next operand allocation). Modify only through SetOperand
// or SetArgs: writing an element of the slice leaves a cached Uses index
// stale (CheckTables reports it). The same holds for Outs and Operands.
func (f *Function) Ins(i InstID) []Operand {
	in := &f.insts[i]
	a := int(in.Args)
	return f.operands[a : a+int(in.NIns) : a+int(in.NIns)]
}

// Outs returns the destination operands of i (a view: modify only through
// SetOperand or SetArgs, see Ins).
func (f *Function) Outs(i InstID) []Operand {
	in := &f.insts[i]
	a := int(in.Args) + int(in.NIns)
	return f.operands[a : a+int(in.NOuts) : a+int(in.NOuts)]
}

// Operands returns sources then destinations of i (a view: modify only
// through SetOperand or SetArgs, see Ins).
func (f *Function) Operands(i InstID) []Operand {
	in := &f.insts[i]
	a := int(in.Args)
	n := int(in.NIns) + int(in.NOuts)
	return f.operands[a : a+n : a+n]
}

// SetOperand replaces operand k (sources then destinations) of i.
func (f *Function) SetOperand(i InstID, k int, o Operand) {
	in := &f.insts[i]
	if k < 0 || k >= int(in.NIns)+int(in.NOuts) {
		panic(fmt.Sprintf("bir: SetOperand: operand %d of %d", k, int(in.NIns)+int(in.NOuts)))
	}
	f.operands[int(in.Args)+k] = o
	f.touch()
}

// SetArgs replaces all operands of i.
func (f *Function) SetArgs(i InstID, ins, outs []Operand) {
	if len(ins) > 0xffff || len(outs) > 0xffff {
		panic("bir: too many operands")
	}
	in := &f.insts[i]
	if len(ins)+len(outs) <= int(in.NIns)+int(in.NOuts) {
		a := int(in.Args)
		copy(f.operands[a:], ins)
		copy(f.operands[a+len(ins):], outs)
	} else {
		in.Args = int32(len(f.operands))
		f.operands = append(f.operands, ins...)
		f.operands = append(f.operands, outs...)
	}
	in.NIns, in.NOuts = uint16(len(ins)), uint16(len(outs))
	f.touch()
}

// Attrs returns the attribute set of i.
func (f *Function) Attrs(i InstID) AttrSet { return f.m.attrs[f.insts[i].Attrs] }

// SetAttrs replaces the attribute set of i.
func (f *Function) SetAttrs(i InstID, a AttrSet) {
	f.insts[i].Attrs = f.m.InternAttrs(a)
	f.touch()
}

// SetAttr sets one attribute of i.
func (f *Function) SetAttr(i InstID, key string, v Value) {
	f.SetAttrs(i, f.Attrs(i).With(key, v))
}

// NewInst creates an instruction that belongs to no block yet (insert it
// with Append or InsertAt).
func (f *Function) NewInst(op Opcode, name string, eng Engine, ins, outs []Operand, attrs AttrSet) InstID {
	return f.NewInstSym(op, f.m.NewSym(name), eng, ins, outs, f.m.InternAttrs(attrs))
}

// NewInstSym is NewInst with an already stored name and interned attributes:
// the allocation-free form for passes that create many instructions.
func (f *Function) NewInstSym(op Opcode, name Sym, eng Engine, ins, outs []Operand, attrs AttrID) InstID {
	if len(ins) > 0xffff || len(outs) > 0xffff {
		panic("bir: too many operands")
	}
	id := InstID(len(f.insts))
	args := int32(len(f.operands))
	f.operands = append(f.operands, ins...)
	f.operands = append(f.operands, outs...)
	f.insts = append(f.insts, Instruction{
		Op: op, Engine: eng, Name: name, Args: args,
		NIns: uint16(len(ins)), NOuts: uint16(len(outs)),
		Attrs: attrs, Block: NoBlock, Aux: -1, Deps: -1,
	})
	if f.instByName != nil {
		f.instByName[f.m.Str(name)] = id
	}
	f.touch()
	return id
}

// Clone creates a copy of instruction i (operands, attributes, predicate,
// engine, source position; not dependencies, not loop bodies) under a new
// name, in no block.
func (f *Function) Clone(i InstID, name Sym) InstID {
	src := f.insts[i]
	if src.Op.IsLoop() {
		panic("bir: Clone of a loop instruction")
	}
	id := InstID(len(f.insts))
	args := int32(len(f.operands))
	n := int(src.NIns) + int(src.NOuts)
	f.operands = append(f.operands, f.operands[src.Args:int(src.Args)+n]...)
	src.Args = args
	src.Name = name
	src.Block = NoBlock
	src.Deps = -1
	src.flags = 0
	f.insts = append(f.insts, src)
	if f.instByName != nil {
		f.instByName[f.m.Str(name)] = id
	}
	f.touch()
	return id
}

// NewLoop creates a structured loop instruction (Loop, DynamicForLoop or
// DoWhile) with a fresh axis and no body blocks, in no block yet.
func (f *Function) NewLoop(op Opcode, name, axisName string, lb, ub, stride int64) (InstID, affine.Axis) {
	id := f.NewInst(op, name, EngUnassigned, nil, nil, nil)
	ax := f.m.NewAxis(AxisInfo{Name: axisName, Lb: lb, Ub: ub, Stride: stride, Loop: id, Func: f.index})
	f.insts[id].Aux = int32(len(f.loops))
	f.loops = append(f.loops, LoopInfo{Axis: ax})
	return id, ax
}

// Loop returns the loop table entry of a loop instruction.
func (f *Function) Loop(i InstID) *LoopInfo {
	in := &f.insts[i]
	if !in.Op.IsLoop() || in.Aux < 0 {
		panic(fmt.Sprintf("bir: %s is not a loop", f.InstName(i)))
	}
	return &f.loops[in.Aux]
}

// Append adds instruction i at the end of block b.
func (f *Function) Append(b BlockID, i InstID) {
	f.detach(i)
	f.blocks[b].Insts = append(f.blocks[b].Insts, i)
	f.insts[i].Block = b
	f.touch()
}

// InsertAt inserts instruction i at position pos of block b.
func (f *Function) InsertAt(b BlockID, pos int, i InstID) {
	f.detach(i)
	f.blocks[b].Insts = slices.Insert(f.blocks[b].Insts, pos, i)
	f.insts[i].Block = b
	f.touch()
}

// InsertBefore inserts i right before instruction before in its block.
func (f *Function) InsertBefore(before, i InstID) {
	b := f.insts[before].Block
	pos := slices.Index(f.blocks[b].Insts, before)
	f.InsertAt(b, pos, i)
}

// InsertAfter inserts i right after instruction after in its block.
func (f *Function) InsertAfter(after, i InstID) {
	b := f.insts[after].Block
	pos := slices.Index(f.blocks[b].Insts, after)
	f.InsertAt(b, pos+1, i)
}

func (f *Function) detach(i InstID) {
	b := f.insts[i].Block
	if b == NoBlock {
		return
	}
	f.blocks[b].Insts = slices.DeleteFunc(f.blocks[b].Insts, func(x InstID) bool { return x == i })
	f.insts[i].Block = NoBlock
}

// SetBlockInsts replaces the instruction list of block b wholesale (the
// cheap way for a pass that rebuilds a block). Instructions dropped from the
// list are marked dead; new ones get b as their parent.
func (f *Function) SetBlockInsts(b BlockID, list []InstID) {
	keep := make(map[InstID]struct{}, len(list))
	for _, i := range list {
		keep[i] = struct{}{}
	}
	for _, i := range f.blocks[b].Insts {
		if _, ok := keep[i]; !ok {
			f.kill(i)
		}
	}
	for _, i := range list {
		if ob := f.insts[i].Block; ob != NoBlock && ob != b {
			f.detach(i)
		}
		f.insts[i].Block = b
	}
	f.blocks[b].Insts = list
	f.touch()
}

// Remove deletes instruction i (and, for a loop, its whole body) from its
// block and marks it dead.
func (f *Function) Remove(i InstID) {
	f.detach(i)
	f.kill(i)
	f.touch()
}

func (f *Function) kill(i InstID) {
	in := &f.insts[i]
	if in.flags&instDead != 0 {
		return
	}
	in.flags |= instDead
	in.Block = NoBlock
	if f.instByName != nil {
		name := f.m.Str(in.Name)
		if f.instByName[name] == i {
			delete(f.instByName, name)
		}
	}
	if in.Op.IsLoop() && in.Aux >= 0 {
		for _, b := range f.loops[in.Aux].Body {
			for _, j := range f.blocks[b].Insts {
				f.kill(j)
			}
			f.blocks[b].Insts = nil
		}
	}
}

// Rename changes the name of instruction i.
func (f *Function) Rename(i InstID, name string) {
	if f.instByName != nil {
		old := f.m.Str(f.insts[i].Name)
		if f.instByName[old] == i {
			delete(f.instByName, old)
		}
		f.instByName[name] = i
	}
	f.insts[i].Name = f.m.NewSym(name)
	f.touch()
}

// InstByName finds a live instruction by name (builds the name table on
// first use and keeps it up to date afterwards).
func (f *Function) InstByName(name string) (InstID, bool) {
	if f.instByName == nil {
		f.instByName = make(map[string]InstID, len(f.insts))
		f.Walk(func(i InstID) bool {
			f.instByName[f.m.Str(f.insts[i].Name)] = i
			return true
		})
	}
	i, ok := f.instByName[name]
	return i, ok
}

// SetPred sets the predicate of i.
func (f *Function) SetPred(i InstID, p affine.Pred) {
	f.insts[i].Pred = f.m.InternPred(p)
	f.touch()
}

// ---- dependencies ----

// AddDep records that i depends on d.On.
func (f *Function) AddDep(i InstID, d Dep) {
	d.next = f.insts[i].Deps
	f.insts[i].Deps = int32(len(f.deps))
	f.deps = append(f.deps, d)
	f.touch()
}

// Deps returns the dependencies of i in the order they were added.
func (f *Function) Deps(i InstID) []Dep {
	var out []Dep
	for k := f.insts[i].Deps; k >= 0; k = f.deps[k].next {
		out = append(out, f.deps[k])
	}
	slices.Reverse(out)
	return out
}

// HasDeps reports whether i has any dependency.
func (f *Function) HasDeps(i InstID) bool { return f.insts[i].Deps >= 0 }

// ClearDeps drops every dependency of i.
func (f *Function) ClearDeps(i InstID) {
	f.insts[i].Deps = -1
	f.touch()
}

// ClearAllDeps drops every dependency in the function (FullUnroll level 2's
// erase_all_dependencies).
func (f *Function) ClearAllDeps() {
	for k := range f.insts {
		f.insts[k].Deps = -1
	}
	f.deps = f.deps[:0]
	f.touch()
}

// NumDeps returns the number of live dependency records.
func (f *Function) NumDeps() int {
	n := 0
	f.Walk(func(i InstID) bool {
		for k := f.insts[i].Deps; k >= 0; k = f.deps[k].next {
			n++
		}
		return true
	})
	return n
}

// ---- walking ----

// Walk calls fn for every live instruction in program order: each block's
// instructions in order, a loop instruction before its body. It stops when
// fn returns false.
func (f *Function) Walk(fn func(InstID) bool) {
	for _, b := range f.Top {
		if !f.walkBlock(b, fn) {
			return
		}
	}
}

// WalkBlock is Walk restricted to block b and the loops inside it.
func (f *Function) WalkBlock(b BlockID, fn func(InstID) bool) { f.walkBlock(b, fn) }

func (f *Function) walkBlock(b BlockID, fn func(InstID) bool) bool {
	for _, i := range f.blocks[b].Insts {
		if !fn(i) {
			return false
		}
		if in := &f.insts[i]; in.Op.IsLoop() && in.Aux >= 0 {
			for _, bb := range f.loops[in.Aux].Body {
				if !f.walkBlock(bb, fn) {
					return false
				}
			}
		}
	}
	return true
}

// NumInsts returns the number of live non-loop instructions reachable from
// the function's blocks (the count the unroll ceilings check).
func (f *Function) NumInsts() int64 {
	var n int64
	f.Walk(func(i InstID) bool {
		if !f.insts[i].Op.IsLoop() {
			n++
		}
		return true
	})
	return n
}

// Loopnest returns the loop instructions enclosing i, outermost first.
func (f *Function) Loopnest(i InstID) []InstID {
	var out []InstID
	for b := f.insts[i].Block; b != NoBlock; {
		p := f.blocks[b].Parent
		if p == NoInst {
			break
		}
		out = append(out, p)
		b = f.insts[p].Block
	}
	slices.Reverse(out)
	return out
}

// Compact drops dead instructions' operands and dependency records by
// rebuilding the operand and dependency tables (ids of instructions, blocks,
// tensors and locations do not change).
func (f *Function) Compact() {
	ops := make([]Operand, 0, len(f.operands))
	deps := make([]Dep, 0, len(f.deps))
	for k := range f.insts {
		in := &f.insts[k]
		if in.flags&instDead != 0 {
			in.Args, in.NIns, in.NOuts, in.Deps = 0, 0, 0, -1
			continue
		}
		n := int(in.NIns) + int(in.NOuts)
		a := len(ops)
		ops = append(ops, f.operands[in.Args:int(in.Args)+n]...)
		in.Args = int32(a)
		var list []Dep
		for d := in.Deps; d >= 0; d = f.deps[d].next {
			list = append(list, f.deps[d])
		}
		in.Deps = -1
		for j := len(list) - 1; j >= 0; j-- {
			d := list[j]
			d.next = in.Deps
			in.Deps = int32(len(deps))
			deps = append(deps, d)
		}
	}
	f.operands = ops
	f.deps = deps
	f.touch()
}

// Stats describes the function's memory footprint.
type Stats struct {
	Insts, InstSlots, Operands, Deps, Tensors, Locs, Blocks int
}

// Stats returns table sizes.
func (f *Function) Stats() Stats {
	return Stats{Insts: int(f.NumInsts()), InstSlots: len(f.insts), Operands: len(f.operands), Deps: len(f.deps), Tensors: len(f.tensors), Locs: len(f.locs), Blocks: len(f.blocks)}
}

// Reserve grows the instruction and operand tables to hold at least n more
// instructions and k more operands without reallocation.
func (f *Function) Reserve(n, k int) {
	f.insts = slices.Grow(f.insts, n)
	f.operands = slices.Grow(f.operands, k)
}
