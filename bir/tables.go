// CheckTables: the consistency check of a Function's cached tables.
//
// A Function keeps derived tables next to its objects: the name tables
// (tensor, location and register names, and the instruction-name table
// InstByName builds on first use) and the use index (Uses). The mutation
// methods keep them in step: RenameTensor, RenameLoc, Rename, AddTensor,
// AddLoc, RemoveTensor, RemoveLoc, Remove, SetOperand, SetArgs and the
// rest update the name tables or drop the use index. But Tensor, Loc, Reg,
// Inst, Ins, Outs and Operands hand out pointers and slices into the
// tables themselves, so a direct field write bypasses that bookkeeping:
//
//	f.Tensor(t).Name = "y"      // TensorByName("y") fails, ("x") finds t
//	f.Inst(i).Name = sym        // InstByName still finds i by its old name
//	f.Outs(i)[0] = o            // a cached Uses() still lists the old operand
//
// Such writes are unsupported; CheckTables is how the verifier catches
// them (rule "tables"). It compares each cached table with the objects it indexes and
// describes every stale entry. It never panics, whatever the function
// holds (the verifier runs it on corrupt input), and costs:
//
//   - name tables: one pass over each map (O(entries), no allocation), plus
//     a lookup per live object when a table's size disagrees with the
//     number of live objects;
//   - instruction names: only when InstByName has built its table, one pass
//     over it (random accesses: the costly one, hence TableSet);
//   - use index: only when Uses has built one and nothing dropped it since,
//     one guarded walk of the function in program order comparing each
//     access-pattern operand with the index entry the walk expects next
//     (O(operands); it allocates a cursor per location and tensor and a
//     flag per block, not per instruction).

package bir

import (
	"cmp"
	"fmt"
	"slices"
)

// TableError is one stale entry of a Function's cached tables (see
// CheckTables). The ids name the object concerned, when there is one.
type TableError struct {
	// Table is "tensor names", "location names", "register names",
	// "instruction names" or "use index".
	Table  string
	Tensor TensorID // the tensor concerned, or NoTensor
	Loc    LocID    // the location concerned, or NoLoc
	Inst   InstID   // the instruction concerned, or NoInst
	Msg    string   // what disagrees: "want X, have Y"
}

func (e TableError) Error() string { return e.Table + ": " + e.Msg }

// TableSet selects the tables CheckTables compares.
type TableSet uint8

const (
	// NameTables: the tensor, location and register name tables
	// (TensorByName, LocByName, RegByName). O(tensors + locations +
	// registers).
	NameTables TableSet = 1 << iota
	// InstNameTable: the instruction-name table, once InstByName has built
	// it. O(entries), but each entry is a random access into the
	// instructions and the symbol arena: about 200 ns per entry on a
	// million-instruction function (BenchmarkCheckTables1M).
	InstNameTable
	// UseIndexTable: the use index, while Uses has one cached. O(operands), one
	// guarded walk: about 20 ns per instruction (BenchmarkCheckTables1M).
	UseIndexTable

	// AllTables is every table.
	AllTables = NameTables | InstNameTable | UseIndexTable
)

// CheckTables compares the tables of f that which selects (those that are
// built: InstByName's only after its first use, Uses' only while cached)
// with the objects they index, and returns every stale entry found, or
// nil. It allocates nothing when every table agrees and no use index is
// cached. See the file comment for what makes an entry stale.
func (f *Function) CheckTables(which TableSet) []TableError {
	var errs []TableError
	add := func(e TableError) { errs = append(errs, e) }
	if which&NameTables != 0 {
		f.checkTensorNames(add)
		f.checkLocNames(add)
		f.checkRegNames(add)
	}
	if which&InstNameTable != 0 {
		f.checkInstNames(add)
	}
	if which&UseIndexTable != 0 {
		f.checkUses(add)
	}
	return errs
}

func tableErr(table string, format string, args ...any) TableError {
	return TableError{Table: table, Tensor: NoTensor, Loc: NoLoc, Inst: NoInst, Msg: fmt.Sprintf(format, args...)}
}

func (f *Function) checkTensorNames(add func(TableError)) {
	checkNameTable(nameTable[TensorID]{
		table: "tensor names", kind: "tensor", byName: f.tensorByName, n: len(f.tensors),
		name:   func(t TensorID) string { return f.tensors[t].Name },
		dead:   func(t TensorID) bool { return f.tensors[t].Dead },
		rename: "rename tensors with RenameTensor, not by writing Tensor.Name",
		remove: "remove tensors with RemoveTensor",
		set:    func(e *TableError, t TensorID) { e.Tensor = t },
	}, add)
}

func (f *Function) checkLocNames(add func(TableError)) {
	if f.locByName == nil {
		return // not built since the last AddLocSeries: nothing can be stale
	}
	checkNameTable(nameTable[LocID]{
		table: "location names", kind: "location", byName: f.locByName, n: len(f.locs),
		name:   func(l LocID) string { return f.locs[l].Name },
		dead:   func(l LocID) bool { return f.locs[l].Dead },
		rename: "rename locations with RenameLoc, not by writing MemLoc.Name",
		remove: "remove locations with RemoveLoc",
		set:    func(e *TableError, l LocID) { e.Loc = l },
	}, add)
}

func (f *Function) checkRegNames(add func(TableError)) {
	checkNameTable(nameTable[RegID]{
		table: "register names", kind: "register", byName: f.regByName, n: len(f.regs),
		name:   func(r RegID) string { return f.regs[r].Name },
		rename: "registers are named once, by RegByName",
	}, add)
}

// nameTable describes one name table for checkNameTable: the map, the
// objects it indexes (ids 0..n-1), and how to word and attribute errors.
type nameTable[ID ~int32] struct {
	table, kind    string // "tensor names", "tensor"
	byName         map[string]ID
	n              int
	name           func(ID) string
	dead           func(ID) bool // nil: objects of this kind are never removed
	rename, remove string        // the hints naming the right mutator
	set            func(*TableError, ID)
}

// checkNameTable reports the entries of a name table that map to no live
// object of that name, then, when the table's size disagrees with the
// number of live objects, the live objects without their own entry.
func checkNameTable[ID ~int32](nt nameTable[ID], add func(TableError)) {
	isDead := func(id ID) bool { return nt.dead != nil && nt.dead(id) }
	attach := func(e TableError, id ID) TableError {
		if nt.set != nil {
			nt.set(&e, id)
		}
		return e
	}
	live := 0
	for k := 0; k < nt.n; k++ {
		if !isDead(ID(k)) {
			live++
		}
	}
	var bad []TableError
	for name, id := range nt.byName {
		var e TableError
		switch {
		case id < 0 || int(id) >= nt.n:
			e = tableErr(nt.table, "entry %q maps to %s #%d: want an id < %d", name, nt.kind, id, nt.n)
		case isDead(id):
			e = attach(tableErr(nt.table, "entry %q maps to %s #%d: want a live %s, have a dead one (%s)", name, nt.kind, id, nt.kind, nt.remove), id)
		case nt.name(id) != name:
			e = attach(tableErr(nt.table, "entry %q maps to %s #%d: want the %s named %q, have it named %q (%s)", name, nt.kind, id, nt.kind, name, nt.name(id), nt.rename), id)
		default:
			continue
		}
		bad = append(bad, e)
	}
	// Map iteration order is random: sort by id when errors carry one,
	// else by message, so reports are deterministic.
	slices.SortFunc(bad, func(a, b TableError) int {
		if c := cmp.Compare(a.Tensor, b.Tensor); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Loc, b.Loc); c != 0 {
			return c
		}
		return cmp.Compare(a.Msg, b.Msg)
	})
	for _, e := range bad {
		add(e)
	}
	if len(nt.byName) == live {
		return // every entry names its own live object: a bijection
	}
	for k := 0; k < nt.n; k++ {
		id := ID(k)
		if isDead(id) {
			continue
		}
		name := nt.name(id)
		if o, ok := nt.byName[name]; !ok {
			add(attach(tableErr(nt.table, "%s %q (#%d): want an entry for it, have none (%s)", nt.kind, name, k, nt.rename), id))
		} else if o != id && (o < 0 || int(o) >= nt.n || nt.name(o) != name) {
			add(attach(tableErr(nt.table, "%s %q (#%d): want its entry to map to it, have it map to #%d", nt.kind, name, k, o), id))
		}
		// A live object sharing its name with the one the entry maps to
		// is a duplicate name, which is the verifier's name-unique rule.
	}
}

// checkInstNames checks the instruction-name table when InstByName has
// built it: every entry maps to a live instruction of that name. (The
// table is not compared for completeness: instruction names need not be
// unique, and the table holds one of a repeated name's instructions.)
func (f *Function) checkInstNames(add func(TableError)) {
	const table = "instruction names"
	if f.instByName == nil {
		return
	}
	var bad []TableError
	nSyms := len(f.m.syms.start)
	for name, i := range f.instByName {
		var e TableError
		switch {
		case i < 0 || int(i) >= len(f.insts):
			e = tableErr(table, "entry %q maps to instruction #%d: want an id < %d", name, i, len(f.insts))
		case f.insts[i].Dead():
			e = tableErr(table, "entry %q maps to instruction #%d: want a live instruction, have a dead one (remove instructions with Remove or SetBlockInsts)", name, i)
			e.Inst = i
		case f.insts[i].Name < 0 || int(f.insts[i].Name) >= nSyms:
			e = tableErr(table, "entry %q maps to instruction #%d: want the instruction named %q, have its name symbol #%d out of range", name, i, name, f.insts[i].Name)
			e.Inst = i
		case string(f.m.syms.bytes(f.insts[i].Name)) != name:
			e = tableErr(table, "entry %q maps to instruction #%d: want the instruction named %q, have it named %q (rename instructions with Rename, not by writing Instruction.Name)", name, i, name, f.m.syms.bytes(f.insts[i].Name))
			e.Inst = i
		default:
			continue
		}
		bad = append(bad, e)
	}
	sortTableErrs(bad, func(e TableError) int { return int(e.Inst) })
	for _, e := range bad {
		add(e)
	}
}

// sortTableErrs orders errors found by map iteration (random order) by the
// id key returns, then message, so reports are deterministic.
func sortTableErrs(errs []TableError, key func(TableError) int) {
	slices.SortFunc(errs, func(a, b TableError) int {
		if c := cmp.Compare(key(a), key(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.Msg, b.Msg)
	})
}

// checkUses compares a cached use index with the function's operands: a
// guarded copy of Walk (range checks; a block already on the walk's stack
// is not entered again, so a cyclic block structure terminates) visits
// every access-pattern operand in program order, which is the order Uses
// lists them per location and tensor, and compares it with the entry the
// index has next for that location or tensor. A location or tensor is
// reported once, at its first disagreement.
func (f *Function) checkUses(add func(TableError)) {
	u := f.uses
	if u == nil {
		return
	}
	if len(u.locStart) != len(f.locs)+1 || len(u.tenStart) != len(f.tensors)+1 {
		add(tableErr(useTable, "want one entry per location and tensor (%d and %d), have %d and %d", len(f.locs), len(f.tensors), len(u.locStart)-1, len(u.tenStart)-1))
		return
	}
	if !validStarts(u.locStart, len(u.locUses)) || !validStarts(u.tenStart, len(u.tenUses)) {
		add(tableErr(useTable, "want non-decreasing start offsets ending at the number of uses, have a corrupt index"))
		return
	}
	c := usesCheck{
		f: f, u: u,
		locCur:  append([]int32(nil), u.locStart[:len(f.locs)]...),
		tenCur:  append([]int32(nil), u.tenStart[:len(f.tensors)]...),
		onStack: make([]bool, len(f.blocks)),
	}
	for _, b := range f.Top {
		c.walk(b)
	}
	for l, k := range c.locCur {
		if k >= 0 && k < u.locStart[l+1] {
			e := c.stale(false, int32(l))
			e.Inst = u.locUses[k].Inst
			e.Msg += fmt.Sprintf(": want %d uses, have %d more listed (first: %s) that no operand makes (the index is stale: write operands with SetOperand or SetArgs)", k-u.locStart[l], u.locStart[l+1]-k, f.useLabel(u.locUses[k]))
			c.bad = append(c.bad, e)
		}
	}
	for t, k := range c.tenCur {
		if k >= 0 && k < u.tenStart[t+1] {
			e := c.stale(true, int32(t))
			e.Inst = u.tenUses[k].Inst
			e.Msg += fmt.Sprintf(": want %d uses, have %d more listed (first: %s) that no operand makes (the index is stale: write operands with SetOperand or SetArgs)", k-u.tenStart[t], u.tenStart[t+1]-k, f.useLabel(u.tenUses[k]))
			c.bad = append(c.bad, e)
		}
	}
	for _, e := range c.bad {
		add(e)
	}
}

const useTable = "use index"

// usesCheck is checkUses' walk state. locCur[l] / tenCur[t] is the next
// entry of the location's / tensor's list the walk expects, -1 once it has
// been reported.
type usesCheck struct {
	f              *Function
	u              *UseIndex
	locCur, tenCur []int32
	onStack        []bool
	bad            []TableError
}

func (c *usesCheck) walk(b BlockID) {
	f := c.f
	if b < 0 || int(b) >= len(f.blocks) || c.onStack[b] {
		return
	}
	c.onStack[b] = true
	for _, i := range f.blocks[b].Insts {
		if i < 0 || int(i) >= len(f.insts) {
			continue
		}
		in := &f.insts[i]
		nIn, n := int(in.NIns), int(in.NIns)+int(in.NOuts)
		if in.Args >= 0 && int(in.Args)+n <= len(f.operands) {
			ops := f.operands[in.Args : int(in.Args)+n]
			for k := range ops {
				o := &ops[k]
				want := Use{Inst: i, Operand: uint16(k), Out: k >= nIn}
				switch r := o.Ref; o.Kind {
				case OpdPhysAP:
					if r < 0 || int(r) >= len(c.locCur) {
						break
					}
					// The common case inline: the entry the walk expects.
					if x := c.locCur[r]; x >= 0 && x < c.u.locStart[r+1] && c.u.locUses[x] == want {
						c.locCur[r] = x + 1
					} else {
						c.expect(false, r, want)
					}
				case OpdSymAP, OpdRegAP:
					if r < 0 || int(r) >= len(c.tenCur) {
						break
					}
					if x := c.tenCur[r]; x >= 0 && x < c.u.tenStart[r+1] && c.u.tenUses[x] == want {
						c.tenCur[r] = x + 1
					} else {
						c.expect(true, r, want)
					}
				}
			}
		}
		if in.Op.IsLoop() && in.Aux >= 0 && int(in.Aux) < len(f.loops) {
			for _, bb := range f.loops[in.Aux].Body {
				c.walk(bb)
			}
		}
	}
	c.onStack[b] = false
}

// expect compares the next entry of location (or tensor, when ten) r's
// use list with want.
func (c *usesCheck) expect(ten bool, r int32, want Use) {
	cur, start, uses := c.locCur, c.u.locStart, c.u.locUses
	if ten {
		cur, start, uses = c.tenCur, c.u.tenStart, c.u.tenUses
	}
	k := cur[r]
	switch {
	case k < 0:
		return
	case k >= start[r+1]:
		e := c.stale(ten, r)
		e.Inst = want.Inst
		e.Msg += fmt.Sprintf(": want the use by %s listed, have it missing (the index was built before the operand was written; write operands with SetOperand or SetArgs)", c.f.useLabel(want))
		c.bad = append(c.bad, e)
		cur[r] = -1
	case uses[k] != want:
		e := c.stale(ten, r)
		e.Inst = want.Inst
		e.Msg += fmt.Sprintf(": want the use by %s next, have %s (the index is stale: write operands with SetOperand or SetArgs)", c.f.useLabel(want), c.f.useLabel(uses[k]))
		c.bad = append(c.bad, e)
		cur[r] = -1
	default:
		cur[r] = k + 1
	}
}

// stale starts the error about location (or tensor, when ten) r.
func (c *usesCheck) stale(ten bool, r int32) TableError {
	if ten {
		e := tableErr(useTable, "tensor %s", c.f.tensors[r].Name)
		e.Tensor = TensorID(r)
		return e
	}
	e := tableErr(useTable, "location %s", c.f.locs[r].Name)
	e.Loc = LocID(r)
	return e
}

func validStarts(start []int32, n int) bool {
	if len(start) == 0 || start[0] != 0 || int(start[len(start)-1]) != n {
		return false
	}
	for k := 1; k < len(start); k++ {
		if start[k] < start[k-1] {
			return false
		}
	}
	return true
}

// instLabel names instruction i for table errors, tolerating bad ids.
func (f *Function) instLabel(i InstID) string {
	if i < 0 || int(i) >= len(f.insts) {
		return fmt.Sprintf("#%d", i)
	}
	if s := f.insts[i].Name; s > 0 && int(s) < len(f.m.syms.start) {
		return string(f.m.syms.bytes(s))
	}
	return fmt.Sprintf("#%d", i)
}

func (f *Function) useLabel(u Use) string {
	return fmt.Sprintf("instruction %s operand %d", f.instLabel(u.Inst), u.Operand)
}
