// Support for the loop unrollers (package passes/unroll), which rebuild
// whole functions and create up to tens of millions of instructions: bulk
// block replacement without a per-instruction map, up-front reservation of
// the dependency table (the symbol arena has ReserveSyms), and dropping the lazily built
// instruction-name index so that cloning does not pay a map insertion (and a
// string allocation) per clone.
//
// All additive: nothing here changes the behaviour of existing methods.
package bir

import "slices"

// instKeepMark is a scratch flag used only inside ReplaceBlockInsts.
const instKeepMark uint8 = 1 << 7

// ReplaceBlockInsts sets the instruction list of block b to list in one
// step: instructions of the old list that are not in list are removed
// (marked dead; a removed loop takes its body with it), and every
// instruction of list gets b as its block. The instructions of list must
// not belong to another block. It costs O(len(old) + len(list)) and
// allocates nothing (unlike SetBlockInsts, which builds a map of list).
// The function takes ownership of list.
func (f *Function) ReplaceBlockInsts(b BlockID, list []InstID) {
	for _, i := range list {
		f.insts[i].flags |= instKeepMark
	}
	for _, i := range f.blocks[b].Insts {
		if f.insts[i].flags&instKeepMark == 0 {
			f.kill(i)
		}
	}
	for _, i := range list {
		in := &f.insts[i]
		in.flags &^= instKeepMark
		in.Block = b
	}
	f.blocks[b].Insts = list
	f.touch()
}

// DropInstNameIndex discards the instruction-name index that InstByName
// builds lazily (it is rebuilt on the next InstByName call). A pass that
// creates millions of instructions calls it first, so that NewInstSym and
// Clone do not maintain the index clone by clone.
func (f *Function) DropInstNameIndex() { f.instByName = nil }

// ReserveDeps grows the dependency table to hold n more records without
// reallocation.
func (f *Function) ReserveDeps(n int) {
	if n > 0 {
		f.deps = slices.Grow(f.deps, n)
	}
}
