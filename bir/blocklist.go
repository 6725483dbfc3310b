// Bulk replacement of a block's instruction list, for passes that rebuild
// whole functions (the unrollers create up to tens of millions of
// instructions): one step, no per-instruction map.
package bir

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
