// The checker: module- and function-level structure (tables, names,
// blocks, loops, dependencies) and the per-instruction driver. Operand
// rules are in operands.go, opcode and hardware rules in rules.go.
//
// The checker never indexes a bir table with an id it has not range-checked
// against the table's size (bir/bounds.go gives the sizes), so a
// corrupt function produces diagnostics, not a panic. Scratch tables (visit
// bitsets, axis ranges, name tables, the operand scratch) live on the
// checker, which a sync.Pool recycles across verifications.

package verify

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
	"github.com/narwhal-compiler/narwhal/internal/nameset"
)

// cceCompletedAttr is the function attribute legalize_cce_dma sets
// (seed 001: FunctionAttribute #21).
const cceCompletedAttr = "stage_legalize_cce_dma_completed"

type checker struct {
	m     *bir.Module
	opt   Options
	arch  *arch.Model // nil when unknown
	stage Stage
	errs  Error

	// Module table sizes.
	nPats, nExprs, nPreds, nAttrs, nSyms, nAxes, nUnknownOps int

	// Per function.
	f                                                       *bir.Function
	fname                                                   string
	cceAttr                                                 bool
	nInsts, nLocs, nTensors, nBlocks, nRegs, nLoops, nOpnds int
	nDeps                                                   int
	emptyLoops                                              int
	// instances: the function is the straight-line expansion of one that
	// keeps loops (loops.go), checked for its stage rules.
	instances bool

	scratch

	// Method values, created once per pooled checker.
	box     func(affine.Axis) (int64, int64)
	instEq  func(a, b int32) bool
	blockEq func(a, b int32) bool
	tenEq   func(a, b int32) bool
	locEq   func(a, b int32) bool
	// blockNamed compares a block's name with wantBlock (nameset.Table.Find).
	blockNamed func(id int32) bool
	wantBlock  string
	env        enumEnv

	// opInfos caches bir.Opcode.Info for narwhal's opcodes (index =
	// opcode number), avoiding a map lookup per instruction.
	opInfos [opCacheSize]*bir.OpInfo

	// Source positions of tensor and location diagnostics (pos.go),
	// built for function posFor on its first such diagnostic.
	posFor *bir.Function
	posTen []bir.PosID
	posLoc []bir.PosID
}

// scratch are the tables a verification reuses across functions, and,
// through checkerPool, across verifications (--verify-each verifies after
// every pass; reusing the tables avoids re-allocating tens of megabytes
// per pass on large modules).
type scratch struct {
	pats                                 []patFacts
	visited, blockSeen, usedLoc, usedTen []uint64
	locOwner                             []int32
	axisOn                               []bool
	axisLo, axisHi                       []int64
	names                                nameset.Table
	ops                                  []opnd
	nameKeys                             []uint64
	nameDups                             nameset.Scratch
	dups                                 [][2]int32
	branches                             []bir.InstID // branch instructions whose targets are resolved after the walk
	ovScratch
}

var checkerPool = sync.Pool{New: func() any {
	c := new(checker)
	c.box = c.axisBox
	c.instEq = c.sameInstName
	c.blockEq = c.sameBlockName
	c.tenEq = c.sameTensorName
	c.locEq = c.sameLocName
	c.blockNamed = c.blockHasName
	for _, in := range bir.Opcodes() {
		if in.Op < opCacheSize {
			c.opInfos[in.Op] = in
		}
	}
	return c
}}

// opCacheSize bounds the opcode numbers cached in checker.opInfos; every
// narwhal opcode is below it (unknown opcodes start at 4096).
const opCacheSize = 512

// opInfo returns op's table entry and whether op is a valid opcode
// (narwhal's or registered in the module).
func (c *checker) opInfo(op bir.Opcode) (*bir.OpInfo, bool) {
	if op < opCacheSize {
		if in := c.opInfos[op]; in != nil {
			return in, true
		}
		return op.Info(), false
	}
	return op.Info(), op >= bir.FirstUnknownOpcode && int(op-bir.FirstUnknownOpcode) < c.nUnknownOps
}

func newChecker(m *bir.Module, opt Options) *checker {
	c := checkerPool.Get().(*checker)
	c.m, c.opt, c.stage, c.arch, c.errs = m, opt, opt.Stage, nil, Error{}
	c.f, c.fname, c.posFor, c.instances = nil, "", nil, false
	c.nPats, c.nExprs, c.nPreds = m.NumPatterns(), m.NumExprs(), m.NumPreds()
	c.nAttrs, c.nSyms, c.nAxes = m.NumAttrSets(), m.NumSyms(), m.NumAxes()
	c.nUnknownOps = m.NumUnknownOpcodes()
	c.pats = resize(c.pats, c.nPats)
	c.axisOn = resize(c.axisOn, c.nAxes)
	c.axisLo = resize(c.axisLo, c.nAxes)
	c.axisHi = resize(c.axisHi, c.nAxes)
	return c
}

// release returns c to the pool, dropping its references to the module.
func (c *checker) release() {
	c.m, c.f, c.arch, c.opt = nil, nil, nil, Options{}
	c.errs = Error{}
	if c.scratchBytes() > maxPooledScratch {
		// A pooled checker keeps its tables alive until the collector
		// clears the pool (two cycles): after the verification of a
		// module of millions of instructions that is ~90 bytes per
		// instruction held while the next phase (writing the output)
		// runs. Tables that large are cheap to allocate again next time
		// compared with the verification that fills them.
		c.scratch = scratch{}
	}
	checkerPool.Put(c)
}

// maxPooledScratch bounds the scratch a pooled checker keeps (bytes).
const maxPooledScratch = 16 << 20

// scratchBytes returns the bytes the checker's scratch tables hold.
func (c *checker) scratchBytes() int {
	s := &c.scratch
	n := cap(s.pats)*int(unsafe.Sizeof(patFacts{})) + 8*(cap(s.visited)+cap(s.blockSeen)+cap(s.usedLoc)+cap(s.usedTen)) +
		4*cap(s.locOwner) + cap(s.axisOn) + 8*(cap(s.axisLo)+cap(s.axisHi)) + s.names.Bytes() +
		cap(s.ops)*int(unsafe.Sizeof(opnd{})) + 8*cap(s.nameKeys) + s.nameDups.Bytes() + 8*cap(s.dups) + 4*cap(s.branches)
	return n + s.ovScratch.bytes()
}

// bytes returns the bytes the overlap rule's scratch tables hold.
func (o *ovScratch) bytes() int {
	return 4*(cap(o.ovLo)+cap(o.ovHi)+cap(o.ovFirst)+cap(o.ovLastTch)+cap(o.ovWin)+cap(o.loopLo)+cap(o.loopHi)+cap(o.ovTouch)) +
		4*(cap(o.ovStart)+cap(o.ovOrder)) + (cap(o.ovItems)+cap(o.ovSlots))*int(unsafe.Sizeof(ovItem{})) + 4*(cap(o.ovSeq)+cap(o.ovFree)+cap(o.ovExpiry)+cap(o.ovByAddr[0])+cap(o.ovByAddr[1])) + 8*cap(o.ovBlocks) + cap(o.ovPending)*int(unsafe.Sizeof(ovConflict{}))
}

// resize returns s with length n and every element zero, reusing its
// storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		s = s[:n]
		clear(s)
		return s
	}
	return make([]T, n)
}

func (c *checker) result() error {
	if c.errs.total == 0 {
		return nil
	}
	e := c.errs
	return &e
}

// ---- diagnostics ----

func (c *checker) add(d Diag) {
	c.errs.total++
	if c.opt.MaxDiags > 0 && len(c.errs.diags) >= c.opt.MaxDiags {
		return
	}
	c.errs.diags = append(c.errs.diags, d)
}

func (c *checker) moduleDiag(rule, format string, args ...any) {
	c.add(Diag{Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) funcDiag(rule, format string, args ...any) {
	c.add(Diag{Func: c.fname, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) instName(i bir.InstID) string {
	in := c.f.Inst(i)
	if in.Name < 0 || int(in.Name) >= c.nSyms {
		return "#" + strconv.Itoa(int(i))
	}
	if s := c.m.Str(in.Name); s != "" {
		return s
	}
	return "#" + strconv.Itoa(int(i))
}

func (c *checker) instDiag(i bir.InstID, rule, format string, args ...any) {
	c.add(Diag{Func: c.fname, Inst: c.instName(i), Op: c.m.OpName(c.f.Inst(i).Op), Rule: rule, Msg: fmt.Sprintf(format, args...), Pos: c.instPos(i)})
}

// instLocDiag is an instruction diagnostic that also names a location.
func (c *checker) instLocDiag(i bir.InstID, l bir.LocID, rule, format string, args ...any) {
	d := Diag{Func: c.fname, Inst: c.instName(i), Op: c.m.OpName(c.f.Inst(i).Op), Rule: rule, Msg: fmt.Sprintf(format, args...), Pos: c.instPos(i)}
	if c.validLoc(l) {
		d.Loc = c.f.Loc(l).Name
	}
	c.add(d)
}

func (c *checker) locDiag(l bir.LocID, rule, format string, args ...any) {
	lc := c.f.Loc(l)
	d := Diag{Func: c.fname, Loc: lc.Name, Rule: rule, Msg: fmt.Sprintf(format, args...), Pos: c.locPos(l)}
	if lc.Tensor >= 0 && int(lc.Tensor) < c.nTensors {
		d.Tensor = c.f.Tensor(lc.Tensor).Name
	}
	c.add(d)
}

func (c *checker) tensorDiag(t bir.TensorID, rule, format string, args ...any) {
	c.add(Diag{Func: c.fname, Tensor: c.f.Tensor(t).Name, Rule: rule, Msg: fmt.Sprintf(format, args...), Pos: c.tensorPos(t)})
}

// ---- bitsets ----

func growBits(b []uint64, n int) []uint64 {
	w := (n + 63) / 64
	if cap(b) >= w {
		b = b[:w]
		clear(b)
		return b
	}
	return make([]uint64, w)
}

func bitSet(b []uint64, k int) bool { return b[k>>6]&(1<<(k&63)) != 0 }
func setBit(b []uint64, k int)      { b[k>>6] |= 1 << (k & 63) }

// ---- module ----

func (c *checker) resolveArch() {
	if c.opt.Arch != nil {
		c.arch = c.opt.Arch
		return
	}
	a, err := arch.ForModule(c.m)
	if err != nil {
		c.moduleDiag("module-arch", "%v; rules that need the machine model are skipped (want a known arch, have %q)", err, c.m.Arch)
		return
	}
	c.arch = a
}

func (c *checker) module() {
	c.resolveArch()
	// Function names unique (few functions: a map is fine).
	seen := make(map[string]int, len(c.m.Funcs))
	for k, f := range c.m.Funcs {
		if f == nil {
			c.moduleDiag("ref", "function #%d: want a function, have nil", k)
			continue
		}
		if f.Module() != c.m {
			c.moduleDiag("ref", "function %s (#%d) belongs to another module: want functions of this module only", f.Name, k)
			continue
		}
		if f.Index() != k {
			c.moduleDiag("ref", "function %s: index %d, want its position %d in Module.Funcs", f.Name, f.Index(), k)
		}
		if f.Name == "" {
			c.moduleDiag("name-unique", "function #%d: want a name, have an empty one", k)
		} else if prev, dup := seen[f.Name]; dup {
			c.moduleDiag("name-unique", "function name %q used by functions #%d and #%d: want unique names", f.Name, prev, k)
		} else {
			seen[f.Name] = k
		}
		c.function(f)
	}
}

// ---- function ----

func (c *checker) function(f *bir.Function) {
	c.f = f
	c.fname = f.Name
	if c.fname == "" {
		c.fname = "#" + strconv.Itoa(f.Index())
	}
	c.cceAttr = f.HasAttribute(cceCompletedAttr)
	c.nInsts, c.nLocs, c.nTensors = f.NumInstSlots(), f.NumLocs(), f.NumTensors()
	c.nBlocks, c.nRegs, c.nLoops = f.NumBlocks(), f.NumRegs(), f.NumLoops()
	c.nOpnds, c.nDeps = f.NumOperandSlots(), f.NumDepRecords()
	c.visited = growBits(c.visited, c.nInsts)
	c.blockSeen = growBits(c.blockSeen, c.nBlocks)
	c.usedLoc = growBits(c.usedLoc, c.nLocs)
	c.usedTen = growBits(c.usedTen, c.nTensors)
	c.locOwner = resize(c.locOwner, c.nLocs)
	clear(c.axisOn)
	c.emptyLoops = 0

	c.tensors()
	c.locations()

	// Blocks and instructions in program order; the name table holds
	// block names during the walk (and the branch targets are resolved
	// against them once every block is in) and instruction names after it.
	c.names.Reset(c.nBlocks)
	c.branches = c.branches[:0]
	for _, b := range f.Top {
		c.walkBlock(b, bir.NoInst)
	}
	c.branchTargets()
	c.instNames()
	// A large function's scratch tables are dropped once their rule is
	// done (they would be dropped at release anyway, maxPooledScratch):
	// the name keys of millions of instructions and their sorted copy (16
	// bytes per instruction), then the overlap rule's tables (about 20
	// per location and 8 per instruction), would otherwise meet the
	// synchronization rule's at the verification's peak.
	if 8*cap(c.nameKeys) > maxPooledScratch {
		c.nameKeys, c.nameDups = nil, nameset.Scratch{}
	}
	c.usedLocations()
	c.overlaps()
	if c.ovScratch.bytes() > maxPooledScratch {
		c.ovScratch = ovScratch{}
	}
	c.tables()
	c.schedule()
	c.sync()
}

// tables reports the stale entries of the function's cached name tables
// and use index (rule "tables", bir.Function.CheckTables): what a direct
// write of a name or operand through the pointers and slices bir hands out
// leaves behind.
func (c *checker) tables() {
	set := bir.NameTables | bir.UseIndexTable
	if c.opt.InstNameTable {
		set |= bir.InstNameTable
	}
	for _, e := range c.f.CheckTables(set) {
		d := Diag{Func: c.fname, Rule: "tables", Msg: e.Table + ": " + e.Msg}
		if c.validTensor(e.Tensor) {
			d.Tensor = c.f.Tensor(e.Tensor).Name
		}
		if c.validLoc(e.Loc) {
			d.Loc = c.f.Loc(e.Loc).Name
		}
		if e.Inst >= 0 && int(e.Inst) < c.nInsts {
			d.Inst, d.Op = c.instName(e.Inst), c.m.OpName(c.f.Inst(e.Inst).Op)
		}
		c.add(d)
	}
}

// tensors checks the tensor table (rule "tensor", "name-unique") and
// records each location's owner.
func (c *checker) tensors() {
	f := c.f
	c.names.Reset(c.nTensors)
	for t := 0; t < c.nTensors; t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		id := bir.TensorID(t)
		if ts.Name != "" {
			if o := c.names.Insert(nameset.HashString(ts.Name), int32(t), c.tenEq); o >= 0 {
				c.tensorDiag(id, "name-unique", "tensor name %q used by tensors #%d and #%d: want unique names", ts.Name, o, t)
			}
		}
		if !ts.Dtype.Valid() {
			c.tensorDiag(id, "dtype", "dtype %d: want <= %d", ts.Dtype, bir.MaxDtype)
		}
		if ts.Kind >= bir.NumTensorKinds {
			c.tensorDiag(id, "tensor", "tensor kind %d: want < %d", ts.Kind, bir.NumTensorKinds)
		}
		if ts.Class >= bir.NumTensorClasses {
			c.tensorDiag(id, "tensor", "tensor class %d: want < %d", ts.Class, bir.NumTensorClasses)
		}
		positive := true
		for d, n := range ts.Shape {
			if n < 1 {
				c.tensorDiag(id, "tensor", "shape %v: dimension %d is %d, want >= 1", ts.Shape, d, n)
				positive = false
				break
			}
		}
		if positive && ts.Dtype.Valid() {
			if n, ok := checked.Product(ts.Shape...); !ok || n >= limit/ts.Dtype.Size() {
				c.tensorDiag(id, "tensor", "shape %v of %s: want fewer than 2^62 bytes, have an overflow", ts.Shape, ts.Dtype)
			}
		}
		if len(ts.Shape) > 0 && (ts.PartitionDim < 0 || ts.PartitionDim >= int64(len(ts.Shape))) {
			c.tensorDiag(id, "tensor", "partition dim %d outside shape %v: want 0..%d", ts.PartitionDim, ts.Shape, len(ts.Shape)-1)
		}
		if ts.IsBlock && ts.NBlocks < 1 {
			c.tensorDiag(id, "tensor", "block tensor with %d blocks: want >= 1", ts.NBlocks)
		}
		if !ts.IsBlock && ts.NBlocks > 1 {
			c.tensorDiag(id, "tensor", "NBlocks %d on a tensor that is not a block tensor: want 0 or 1", ts.NBlocks)
		}
		if ts.SplitShape != nil && len(ts.SplitShape) != len(ts.Shape) {
			c.tensorDiag(id, "tensor", "splitShape has %d entries: want one per dimension of shape %v", len(ts.SplitShape), ts.Shape)
		}
		if ts.LiveN != 0 && (ts.LiveN < 0 || ts.ShrinkDim < 0 || ts.ShrinkDim >= int64(len(ts.Shape))) {
			c.tensorDiag(id, "tensor", "shrink record (dim %d, liveN %d): want liveN > 0 and a dim of shape %v", ts.ShrinkDim, ts.LiveN, ts.Shape)
		}
		for _, l := range ts.Locs {
			switch {
			case l < 0 || int(l) >= c.nLocs:
				c.tensorDiag(id, "ref", "location #%d: want an id < %d (the function's locations), have %d", l, c.nLocs, l)
			case f.Loc(l).Dead:
				c.tensorDiag(id, "ref", "lists location %s (#%d): want a live location, have a dead one", f.Loc(l).Name, l)
			case c.locOwner[l] != 0:
				c.tensorDiag(id, "tensor", "location %s: want it listed by one tensor once, have it listed again (first by tensor #%d)", f.Loc(l).Name, c.locOwner[l]-1)
			default:
				c.locOwner[l] = int32(t) + 1
				// A kernel's inputs and outputs live in HBM: the runtime
				// binds them there and the interpreter reads them there
				// (issue 27 item 11: an Input declared OnChip compiled and
				// verified, then run refused it).
				if mt := f.Loc(l).Type; (ts.Kind == bir.KindInput || ts.Kind == bir.KindOutput) && !mt.IsDRAM() {
					c.tensorDiag(id, "tensor", "%s tensor's location %s is in %s: want DRAM (Input, Output or DRAM), where the kernel's inputs and outputs are bound", ts.Kind, f.Loc(l).Name, mt)
				}
			}
		}
	}
}

// locations checks the location table (rule "loc", "name-unique").
func (c *checker) locations() {
	f := c.f
	// The names first, checked bucket by bucket (see instNames); the
	// duplicates are reported as the loop reaches them.
	c.nameKeys = grow(c.nameKeys, c.nLocs)
	keys := c.nameKeys[:0]
	for k := 0; k < c.nLocs; k++ {
		if lc := f.Loc(bir.LocID(k)); !lc.Dead && lc.Name != "" {
			keys = append(keys, nameset.Key(nameset.HashString(lc.Name), int32(k)))
		}
	}
	c.dups = c.nameDups.Duplicates(keys, c.locEq, c.dups[:0])
	slices.SortFunc(c.dups, func(a, b [2]int32) int { return int(a[0]) - int(b[0]) })
	dups := c.dups
	for k := 0; k < c.nLocs; k++ {
		l := bir.LocID(k)
		lc := f.Loc(l)
		if lc.Dead {
			continue
		}
		if len(dups) > 0 && dups[0][0] == int32(k) {
			c.locDiag(l, "name-unique", "location name %q used by locations #%d and #%d: want unique names", lc.Name, dups[0][1], k)
			dups = dups[1:]
		}
		if lc.Type >= bir.NumMemoryTypes {
			c.locDiag(l, "loc", "memory type %d: want < %d", lc.Type, bir.NumMemoryTypes)
		}
		if lc.Partitions < 0 || lc.Bytes < 0 {
			c.locDiag(l, "loc", "dims [%d, %d]: want non-negative partitions and bytes", lc.Partitions, lc.Bytes)
		} else if lc.Type.IsOnChip() && lc.Partitions < 1 {
			c.locDiag(l, "loc", "%s location with %d partitions: want >= 1", lc.Type, lc.Partitions)
		} else if _, ok := mulLimit(lc.Partitions, lc.Bytes); !ok {
			c.locDiag(l, "loc", "dims [%d, %d]: want fewer than 2^62 bytes, have an overflow", lc.Partitions, lc.Bytes)
		}
		if lc.Addr < 0 || lc.Base < 0 || lc.Bank < 0 {
			c.locDiag(l, "loc", "placement (addr %d, base %d, bank %d): want non-negative values", lc.Addr, lc.Base, lc.Bank)
		}
		switch t := lc.Tensor; {
		case t < 0 || int(t) >= c.nTensors:
			c.locDiag(l, "ref", "owner tensor #%d: want an id < %d (the function's tensors), have %d", t, c.nTensors, t)
		case f.Tensor(t).Dead:
			c.locDiag(l, "ref", "owner tensor %s: want a live tensor, have a dead one", f.Tensor(t).Name)
		case c.locOwner[k] != int32(t)+1:
			c.locDiag(l, "loc", "names tensor %s as its owner: want the tensor to list it, have it missing from the tensor's locations", f.Tensor(t).Name)
		default:
			ts := f.Tensor(t)
			if nb := max(ts.NBlocks, 1); lc.TensorIdx < 0 || lc.TensorIdx >= nb {
				c.locDiag(l, "loc", "tensor id %d outside tensor %s's %d blocks: want 0..%d", lc.TensorIdx, ts.Name, nb, nb-1)
			}
		}
	}
}

// instNames checks that the names of the instructions the walk reached
// are unique (rule "name-unique"): the names are hashed once, in
// instruction order (reading the names in place in the symbol arena), and
// nameset.Scratch.Duplicates checks them bucket by bucket (a table over
// millions of names misses the cache on every probe). Duplicates are
// reported in instruction order, independent of the hash seed.
func (c *checker) instNames() {
	f := c.f
	n := 0
	for _, word := range c.visited {
		n += bits.OnesCount64(word)
	}
	c.nameKeys = grow(c.nameKeys, n)
	keys := c.nameKeys[:0]
	for w, word := range c.visited {
		for word != 0 {
			low := word & -word
			word &^= low
			i := w*64 + bits.TrailingZeros64(low)
			s := f.Inst(bir.InstID(i)).Name
			if s < 0 || int(s) >= c.nSyms {
				continue
			}
			if b := c.m.StrBytes(s); len(b) > 0 {
				keys = append(keys, nameset.Key(nameset.HashBytes(b), int32(i)))
			}
		}
	}
	c.dups = c.nameDups.Duplicates(keys, c.instEq, c.dups[:0])
	slices.SortFunc(c.dups, func(a, b [2]int32) int { return int(a[0]) - int(b[0]) })
	for _, d := range c.dups {
		c.instDiag(bir.InstID(d[0]), "name-unique", "instruction name %q also used by instruction #%d: want unique names", c.m.StrBytes(f.Inst(bir.InstID(d[0])).Name), d[1])
	}
}

// grow returns s with length n, reusing its storage when large enough; the
// contents are not cleared (callers overwrite what they read).
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

func (c *checker) sameInstName(a, b int32) bool {
	x, y := c.f.Inst(bir.InstID(a)).Name, c.f.Inst(bir.InstID(b)).Name
	return x == y || string(c.m.StrBytes(x)) == string(c.m.StrBytes(y))
}

func (c *checker) sameBlockName(a, b int32) bool {
	return c.f.Block(bir.BlockID(a)).Name == c.f.Block(bir.BlockID(b)).Name
}

func (c *checker) blockHasName(id int32) bool { return c.f.Block(bir.BlockID(id)).Name == c.wantBlock }

// branchFields are the attributes of the branch opcodes that name a block
// (bir-json.md §4.4: CompareAndBranch on_true/on_false,
// UnconditionalBranch target; each a String or null).
var branchFields = map[bir.Opcode][]string{
	bir.OpCompareAndBranch:    {"on_true", "on_false"},
	bir.OpUnconditionalBranch: {"target"},
}

// branchTargets resolves the block names of the branches the walk
// collected (rule "ref") against the names of the blocks the walk reached:
// a target may name a block later in the function, so this runs after the
// walk, while the name table still holds the block names. A null or absent
// field names no block and is accepted.
func (c *checker) branchTargets() {
	for _, i := range c.branches {
		attrs := c.f.Attrs(i)
		for _, key := range branchFields[c.f.Inst(i).Op] {
			v, has := attrs.Get(key)
			if !has || v.Kind == bir.ValNull {
				continue
			}
			name, ok := v.AsString()
			if !ok {
				c.instDiag(i, "attr", "%s: want a block name (a string) or null, have %s", key, v.JSON())
				continue
			}
			c.wantBlock = name
			if name == "" || c.names.Find(nameset.HashString(name), c.blockNamed) < 0 {
				c.instDiag(i, "ref", "%s: block %q: want the name of a block of function %s, have a name no block has", key, name, c.fname)
			}
		}
	}
	c.wantBlock = ""
}

func (c *checker) sameTensorName(a, b int32) bool {
	return c.f.Tensor(bir.TensorID(a)).Name == c.f.Tensor(bir.TensorID(b)).Name
}

func (c *checker) sameLocName(a, b int32) bool {
	return c.f.Loc(bir.LocID(a)).Name == c.f.Loc(bir.LocID(b)).Name
}

func (c *checker) validLoc(l bir.LocID) bool       { return l >= 0 && int(l) < c.nLocs }
func (c *checker) validTensor(t bir.TensorID) bool { return t >= 0 && int(t) < c.nTensors }

func (c *checker) instRef(i bir.InstID) string {
	if i == bir.NoInst {
		return "none (top level)"
	}
	if i < 0 || int(i) >= c.nInsts {
		return "#" + strconv.Itoa(int(i)) + " (out of range)"
	}
	return c.instName(i)
}

// walkBlock checks block b (rule "block": range, reached once, parent
// link; its name) and visits its instructions, and loop bodies, in program
// order.
func (c *checker) walkBlock(b bir.BlockID, parent bir.InstID) {
	if b < 0 || int(b) >= c.nBlocks {
		if parent == bir.NoInst {
			c.funcDiag("ref", "top-level block #%d: want an id < %d (the function's blocks), have %d", b, c.nBlocks, b)
		} else {
			c.instDiag(parent, "ref", "body block #%d: want an id < %d (the function's blocks), have %d", b, c.nBlocks, b)
		}
		return
	}
	blk := c.f.Block(b)
	if bitSet(c.blockSeen, int(b)) {
		c.funcDiag("block", "block %s (#%d) is reachable twice: want each block in one place", blk.Name, b)
		return
	}
	setBit(c.blockSeen, int(b))
	if blk.Parent != parent {
		c.funcDiag("block", "block %s: parent %s, want %s", blk.Name, c.instRef(blk.Parent), c.instRef(parent))
	}
	if blk.Name != "" {
		if o := c.names.Insert(nameset.HashString(blk.Name), int32(b), c.blockEq); o >= 0 {
			c.funcDiag("name-unique", "block name %q used by blocks #%d and #%d: want unique names", blk.Name, o, b)
		}
	}
	for _, i := range blk.Insts {
		if i < 0 || int(i) >= c.nInsts {
			c.funcDiag("ref", "block %s lists instruction #%d: want an id < %d (the function's instruction slots), have %d", blk.Name, i, c.nInsts, i)
			continue
		}
		if !c.inst(i, b) {
			continue
		}
		if c.f.Inst(i).Op.IsLoop() {
			c.loop(i)
		}
	}
}

// loop checks a loop instruction's table entry and axis (rule "loop"),
// binds the axis and walks the body.
func (c *checker) loop(i bir.InstID) {
	in := c.f.Inst(i)
	if in.Aux < 0 || int(in.Aux) >= c.nLoops {
		c.instDiag(i, "ref", "loop table entry #%d: want an id < %d (the function's loops), have %d", in.Aux, c.nLoops, in.Aux)
		return
	}
	li := c.f.Loop(i)
	ax := li.Axis
	if ax < 0 || int(ax) >= c.nAxes {
		c.instDiag(i, "ref", "loop axis #%d: want an id < %d (the module's axes), have %d", ax, c.nAxes, ax)
		return
	}
	ai := c.m.Axis(ax)
	ok := true
	if ai.Stride <= 0 {
		c.instDiag(i, "loop", "axis %s: stride %d, want > 0", ai.Name, ai.Stride)
		ok = false
	}
	if ai.Lb > ai.Ub {
		c.instDiag(i, "loop", "axis %s: lb %d > ub %d, want lb <= ub", ai.Name, ai.Lb, ai.Ub)
		ok = false
	}
	if ai.Loop != i || int(ai.Func) != c.f.Index() {
		c.instDiag(i, "loop", "axis %s is owned by instruction #%d of function #%d, want this loop (#%d of function #%d)", ai.Name, ai.Loop, ai.Func, i, c.f.Index())
	}
	if c.axisOn[ax] {
		c.instDiag(i, "loop", "axis %s is already bound by an enclosing loop: want one loop per axis", ai.Name)
		return
	}
	trip := ai.TripCount()
	empty := !ok || trip == 0
	c.axisOn[ax] = true
	c.axisLo[ax] = ai.Lb
	if empty {
		c.axisHi[ax] = ai.Lb
		c.emptyLoops++
	} else {
		c.axisHi[ax], _ = checked.Last(ai.Lb, ai.Stride, trip) // in [lb, ub): fits
	}
	for _, bb := range li.Body {
		c.walkBlock(bb, i)
	}
	c.axisOn[ax] = false
	if empty {
		c.emptyLoops--
	}
}

func (c *checker) axisBox(a affine.Axis) (int64, int64) {
	if a >= 0 && int(a) < len(c.axisOn) && c.axisOn[a] {
		return c.axisLo[a], c.axisHi[a]
	}
	return 0, 0
}

// unboundAxis returns an axis of e not bound by an enclosing loop.
func (c *checker) unboundAxis(e *affine.Expr) (affine.Axis, bool) {
	for k := range e.Terms {
		at := &e.Terms[k].Atom
		if at.Kind == affine.AtomAxis {
			if at.Axis < 0 || int(at.Axis) >= len(c.axisOn) || !c.axisOn[at.Axis] {
				return at.Axis, true
			}
		} else if at.Sub != nil {
			if a, ok := c.unboundAxis(at.Sub); ok {
				return a, true
			}
		}
	}
	return 0, false
}

func (c *checker) axisName(a affine.Axis) string {
	if a >= 0 && int(a) < c.nAxes {
		return c.m.Axis(a).Name
	}
	return "#" + strconv.Itoa(int(a))
}

// exprBound checks that every axis of expression id is bound; what names
// the use in the message.
func (c *checker) exprBound(i bir.InstID, id bir.ExprID, what string) bool {
	if id < 0 || int(id) >= c.nExprs {
		c.instDiag(i, "ref", "%s: expression #%d: want an id < %d (the module's expressions), have %d", what, id, c.nExprs, id)
		return false
	}
	e := c.m.Expr(id)
	if a, bad := c.unboundAxis(&e); bad {
		c.instDiag(i, "sym-axis-unbound", "%s: axis %s: want an axis of an enclosing loop, have one no enclosing loop binds", what, c.axisName(a))
		return false
	}
	return true
}

// predBound checks a predicate's range and axes.
func (c *checker) predBound(i bir.InstID, id bir.PredID, what string) {
	if id < 0 || int(id) >= c.nPreds {
		c.instDiag(i, "ref", "%s: predicate #%d: want an id < %d (the module's predicates), have %d", what, id, c.nPreds, id)
		return
	}
	p := c.m.Pred(id)
	for k := range p.Cons {
		if a, bad := c.unboundAxis(&p.Cons[k].Expr); bad {
			c.instDiag(i, "sym-axis-unbound", "%s: axis %s: want an axis of an enclosing loop, have one no enclosing loop binds", what, c.axisName(a))
			return
		}
	}
}

// inst checks one instruction. It returns false when the instruction was
// already visited or is dead (then its body is not walked).
func (c *checker) inst(i bir.InstID, b bir.BlockID) bool {
	f := c.f
	if bitSet(c.visited, int(i)) {
		c.instDiag(i, "block", "listed twice (again in block %s): want each instruction in one place", f.Block(b).Name)
		return false
	}
	setBit(c.visited, int(i))
	in := f.Inst(i)
	if in.Dead() {
		c.instDiag(i, "block", "listed in block %s: want a live instruction, have a dead one", f.Block(b).Name)
		return false
	}
	if in.Block != b {
		c.instDiag(i, "block", "parent block #%d, want %s (#%d), the block that lists it", in.Block, f.Block(b).Name, b)
	}
	if in.Name < 0 || int(in.Name) >= c.nSyms {
		c.instDiag(i, "ref", "name symbol #%d: want an id < %d (the module's symbols), have %d", in.Name, c.nSyms, in.Name)
	}

	op := in.Op
	info, known := c.opInfo(op)
	if !known {
		c.instDiag(i, "opcode", "opcode number %d: want one of narwhal's opcodes or one registered in the module, have neither", op)
	}

	// Engine.
	if in.Engine >= bir.NumEngines {
		c.instDiag(i, "engine", "engine number %d: want < %d", in.Engine, bir.NumEngines)
	} else {
		if !info.Engines.Has(in.Engine) {
			c.instDiag(i, "engine", "engine %s: want one of %s", in.Engine, engineList(info.Engines))
		}
		if in.Engine != bir.EngUnassigned && c.arch != nil && !c.arch.HasEngine(in.Engine) {
			c.instDiag(i, "engine", "engine %s: want an engine %s has, have one it lacks", in.Engine, c.arch.Name)
		}
	}

	attrsOK := true
	if in.Attrs < 0 || int(in.Attrs) >= c.nAttrs {
		c.instDiag(i, "ref", "attribute set #%d: want an id < %d (the module's attribute sets), have %d", in.Attrs, c.nAttrs, in.Attrs)
		attrsOK = false
	}

	if !c.m.ValidPos(in.Pos) {
		c.instDiag(i, "ref", "source position #%d: want an id < %d (the module's positions), have %d", in.Pos, c.m.NumPositions(), in.Pos)
	}
	if in.Pred != 0 {
		c.predBound(i, in.Pred, "predicate")
		if c.stage&StageUnrolled != 0 {
			c.instDiag(i, "unrolled", "a predicate remains after unrolling: want none (FullUnroll evaluates predicates)")
		}
	}
	c.deps(i)

	if op.IsLoop() {
		if c.stage&StageUnrolled != 0 {
			c.instDiag(i, "unrolled", "a loop remains: want no loops after FullUnroll")
		}
	} else if info.Has(bir.FlagSymbolic) && c.stage&StageUnrolled != 0 {
		c.instDiag(i, "unrolled", "a symbolic opcode remains: want none after FullUnroll")
	}

	// Operands.
	nIn, nOut := int(in.NIns), int(in.NOuts)
	if in.Args < 0 || int(in.Args)+nIn+nOut > c.nOpnds {
		c.instDiag(i, "ref", "operands [%d, %d): want a range inside the operand table of %d, have one outside it", in.Args, int(in.Args)+nIn+nOut, c.nOpnds)
		return true
	}
	c.arity(i, info, nIn, nOut)
	if cap(c.ops) < nIn+nOut {
		c.ops = make([]opnd, nIn+nOut)
	}
	ops := c.ops[:nIn+nOut]
	opds := f.Operands(i)
	for k := range opds {
		c.operand(i, &ops[k], &opds[k], k, nIn)
	}
	c.rules(i, info, ops, nIn, attrsOK)
	return true
}

func engineList(m bir.EngineMask) string {
	s := ""
	for e := bir.Engine(0); e < bir.NumEngines; e++ {
		if m.Has(e) {
			if s != "" {
				s += ", "
			}
			s += e.String()
		}
	}
	return s
}

func (c *checker) arity(i bir.InstID, info *bir.OpInfo, nIn, nOut int) {
	if nIn < info.MinIns || (info.MaxIns != bir.Variadic && nIn > info.MaxIns) {
		c.instDiag(i, "arity", "%d sources: want %s", nIn, arityText(info.MinIns, info.MaxIns))
	}
	if nOut < info.MinOuts || (info.MaxOuts != bir.Variadic && nOut > info.MaxOuts) {
		c.instDiag(i, "arity", "%d destinations: want %s", nOut, arityText(info.MinOuts, info.MaxOuts))
	}
}

func arityText(lo, hi int) string {
	switch {
	case hi == bir.Variadic:
		return fmt.Sprintf("at least %d", lo)
	case lo == hi:
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d..%d", lo, hi)
}

// deps checks i's dependency list (rules "ref", "dep", "sym-axis-unbound",
// "unrolled").
func (c *checker) deps(i bir.InstID) {
	f := c.f
	steps := 0
	for k := f.Inst(i).Deps; k >= 0; {
		d, next, ok := f.DepRecord(k)
		if !ok {
			c.instDiag(i, "ref", "dependency record #%d: want an id < %d (the function's dependency records), have %d", k, c.nDeps, k)
			return
		}
		if steps++; steps > c.nDeps {
			c.instDiag(i, "ref", "dependency list: want a finite chain, have a cycle")
			return
		}
		k = next
		if d.On < 0 || int(d.On) >= c.nInsts {
			c.instDiag(i, "ref", "depends on instruction #%d: want an id < %d (the function's instruction slots), have %d", d.On, c.nInsts, d.On)
			continue
		}
		on := f.Inst(d.On)
		switch {
		case on.Dead():
			c.instDiag(i, "ref", "depends on instruction %s: want a live instruction, have a dead one", c.instName(d.On))
			continue
		case on.Block == bir.NoBlock:
			c.instDiag(i, "ref", "depends on instruction %s: want an instruction in a block, have one in no block", c.instName(d.On))
			continue
		}
		if d.Kind >= bir.NumDepKinds {
			c.instDiag(i, "dep", "dependency on %s: kind %d, want FLOW, ANTI, OUTPUT or ORDERED", c.instName(d.On), d.Kind)
		}
		if d.Pred != 0 {
			c.predBound(i, d.Pred, "dependency predicate")
		}
		if d.CarryAxis == bir.NoAxis {
			if d.CarryAll {
				c.instDiag(i, "dep", "dependency on %s spans every inner iteration (carry all) without a carry axis: want carry(AXIS, DIST, all)", c.instName(d.On))
			}
			if d.On == i || !bitSet(c.visited, int(d.On)) {
				c.instDiag(i, "dep", "depends on %s, which does not precede it in program order: want an earlier instruction or a loop-carried dependency", c.instName(d.On))
			}
			continue
		}
		if c.stage&StageUnrolled != 0 {
			c.instDiag(i, "unrolled", "loop-carried dependency on %s remains: want none after FullUnroll", c.instName(d.On))
		}
		if d.CarryAxis < 0 || int(d.CarryAxis) >= c.nAxes {
			c.instDiag(i, "ref", "dependency on %s: carry axis #%d: want an id < %d (the module's axes), have %d", c.instName(d.On), d.CarryAxis, c.nAxes, d.CarryAxis)
			continue
		}
		if !c.axisOn[d.CarryAxis] {
			c.instDiag(i, "sym-axis-unbound", "dependency on %s is carried by axis %s: want an axis of an enclosing loop, have one no enclosing loop binds", c.instName(d.On), c.axisName(d.CarryAxis))
		}
		if d.CarryDist < 1 {
			c.instDiag(i, "dep", "dependency on %s carried by %s: distance %d, want >= 1", c.instName(d.On), c.axisName(d.CarryAxis), d.CarryDist)
		}
	}
}
