// Block-tensor storage for the unrollers: Unroll's tensorUnroll/tensorSplit
// grid, FullUnroll's reset_and_generate_memlocs (level 0), and
// legalizeGenericAccess (seed 003).
//
// A block tensor (Tensor.IsBlock, NBlocks blocks of one shape) names its
// storage per block: symbolic access patterns pick the block with their
// block-index expression. Before FullUnroll's memloc generation it may have
// a single template location that stands for every block. The two
// unrollers give every block its own storage in two different ways:
//
//   - Unroll (tensorUnroll -> tensorSplit, the [iteration][block] grid): each
//     block b becomes a tensor of its own with one location, a copy of the
//     location that held block b (the template, or the per-block location
//     when they exist), keeping its memory type, sizes, bank, base
//     partition, address and allocation state. The location is named
//     "<tensor>_sub<b>" and its tensor "<tensor>_sub<b>_set"; the original
//     block tensor is removed once every access has been repointed. In the
//     seeds the grid's first index is the iteration instance of the loop
//     that allocates the tensor; narwhal's tensors are function-scoped and
//     the block-index expression already folds the iteration, so the grid
//     is [1][NBlocks]. In re-allocation mode (option realloc) every block
//     location must already be allocated, except for LoopTensor-class
//     tensors (seed: unroll.cpp:928 "mem.isAllocated()").
//   - FullUnroll (memlocsGeneration): the tensor keeps its identity and gets
//     NBlocks locations "<tensor>_sub<b>" with tensor ids 0..NBlocks-1, in
//     place of its template, which is removed (seed: "MemlocSet cannot be
//     empty" when the tensor has no location). Running it on a tensor whose
//     per-block locations already exist is a no-op. A non-block tensor
//     keeps its single location with tensor id 0.
//
// Names that are taken get "_<k>" appended (k = 1, 2, ...) until free.
//
// legalizeGenericAccess: a physical access pattern that names a location
// of a block tensor directly is a "generic" access, not tied to an
// iteration, which the grid cannot repoint. It is rewritten as the
// symbolic access of the block that location holds (its tensor id), with a
// constant block index and element offset, so that every access to a block
// tensor goes through the same repointing.
package unroll

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// blockMap resolves (tensor, block) to the location that holds the block
// after the pass.
type blockMap struct {
	f   *bir.Function
	tab [][]bir.LocID // per tensor by block; nil: resolve with LocForBlock
}

func newBlockMap(f *bir.Function) *blockMap {
	return &blockMap{f: f, tab: make([][]bir.LocID, f.NumTensors())}
}

func (bm *blockMap) locFor(t bir.TensorID, b int64) (bir.LocID, error) {
	f := bm.f
	if int(t) < len(bm.tab) && bm.tab[t] != nil {
		row := bm.tab[t]
		if b < 0 || b >= int64(len(row)) {
			return bir.NoLoc, fmt.Errorf("block index %d of tensor %s: want 0 <= block < %d", b, f.Tensor(t).Name, len(row))
		}
		return row[b], nil
	}
	ts := f.Tensor(t)
	if ts.IsBlock {
		if b < 0 || b >= max(ts.NBlocks, 1) {
			return bir.NoLoc, fmt.Errorf("block index %d of tensor %s: want 0 <= block < %d", b, ts.Name, max(ts.NBlocks, 1))
		}
	} else if b != 0 {
		return bir.NoLoc, fmt.Errorf("block index %d of tensor %s: want 0 (it is not a block tensor)", b, ts.Name)
	}
	l, ok := f.LocForBlock(t, b)
	if !ok {
		return bir.NoLoc, fmt.Errorf("tensor %s has no memory location for block %d", ts.Name, b)
	}
	return l, nil
}

// subName is the seeds' per-block location name: set.name + "_sub" + b.
func subName(set string, b int64) string { return set + "_sub" + strconv.FormatInt(b, 10) }

// isSubName reports whether name == subName(set, b), without building it.
func isSubName(name, set string, b int64) bool {
	rest, ok := strings.CutPrefix(name, set)
	if !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, "_sub"); !ok {
		return false
	}
	var num [20]byte
	return rest == string(strconv.AppendInt(num[:0], b, 10))
}

// tensorUnroll builds Unroll's grid for every live block tensor of f except
// those in inPlace (symbolic or register accesses that survive the pass
// still name them) and those that are not internal (a kernel input's or
// output's name is its interface): these get FullUnroll-style per-block
// locations instead. It returns the tensors to remove once the accesses
// are repointed.
func tensorUnroll(f *bir.Function, bm *blockMap, inPlace []bool, realloc bool) ([]bir.TensorID, error) {
	var remove []bir.TensorID
	n := f.NumTensors()
	for t := bir.TensorID(0); int(t) < n; t++ {
		ts := f.Tensor(t)
		if ts.Dead || !ts.IsBlock {
			continue
		}
		if inPlace[t] || ts.Kind != bir.KindInternal {
			// Kept: still named after the pass, or part of the kernel's
			// interface (an input's or output's name must not change).
			if _, err := resetAndGenerateMemlocs(f, t); err != nil {
				return nil, err
			}
			continue
		}
		row, err := tensorSplitGrid(f, t, realloc)
		if err != nil {
			return nil, err
		}
		bm.tab[t] = row
		remove = append(remove, t)
	}
	return remove, nil
}

// tensorSplitGrid creates the per-block tensors of block tensor t.
func tensorSplitGrid(f *bir.Function, t bir.TensorID, realloc bool) ([]bir.LocID, error) {
	ts := *f.Tensor(t)
	if len(ts.Locs) == 0 {
		return nil, f.TensorErrorf(t, "MemlocSet cannot be empty (a block tensor needs a location)")
	}
	nb := max(ts.NBlocks, 1)
	row := make([]bir.LocID, nb)
	for b := int64(0); b < nb; b++ {
		src, ok := f.LocForBlock(t, b)
		if !ok {
			return nil, f.TensorErrorf(t, "no memory location holds block %d of %d", b, nb)
		}
		sl := *f.Loc(src)
		if realloc && ts.Class != bir.ClassLoopTensor && !sl.Allocated {
			return nil, f.TensorErrorf(t, "block %d (location %s): mem.isAllocated() does not hold: re-allocation mode (option realloc) needs every block location allocated before unrolling",
				b, sl.Name)
		}
		locName := f.UniqueLocName(subName(ts.Name, b))
		nt := bir.Tensor{
			Name: f.UniqueTensorName(locName + "_set"), Kind: ts.Kind, Class: ts.Class, AddrSpace: ts.AddrSpace,
			Dtype: ts.Dtype, PartitionDim: ts.PartitionDim, Shape: append([]int64(nil), ts.Shape...),
			File: ts.File, NoSpill: ts.NoSpill, Volatile: ts.Volatile, Virtual: ts.Virtual,
			SplitShape: append([]bool(nil), ts.SplitShape...), Extra: ts.Extra,
		}
		nid, err := f.AddTensor(nt)
		if err != nil {
			return nil, f.TensorErrorf(t, "block %d: %v", b, err)
		}
		nl := sl
		nl.Name = locName
		nl.TensorIdx = 0
		nl.RawDims = append([]int64(nil), sl.RawDims...)
		nl.Dead = false
		lid, err := f.AddLoc(nid, nl)
		if err != nil {
			return nil, f.TensorErrorf(t, "block %d: %v", b, err)
		}
		row[b] = lid
	}
	return row, nil
}

// resetAndGenerateMemlocs is FullUnroll's reset_and_generate_memlocs for
// one tensor. It returns, for a template it replaced, the template and the
// location that now holds the template's block (so physical accesses to
// the template can be repointed); NoLoc twice otherwise.
func resetAndGenerateMemlocs(f *bir.Function, t bir.TensorID) ([2]bir.LocID, error) {
	none := [2]bir.LocID{bir.NoLoc, bir.NoLoc}
	ts := f.Tensor(t)
	n := len(ts.Locs)
	if n == 0 {
		return none, f.TensorErrorf(t, "MemlocSet cannot be empty")
	}
	if !ts.IsBlock {
		if n != 1 {
			return none, f.TensorErrorf(t, "want exactly 1 memory location for a tensor that is not a block tensor, have %d", n)
		}
		f.Loc(ts.Locs[0]).TensorIdx = 0
		return none, nil
	}
	nb := max(ts.NBlocks, 1)
	if int64(n) == nb {
		done := true
		for k, l := range ts.Locs {
			lc := f.Loc(l)
			if lc.TensorIdx != int64(k) || !isSubName(lc.Name, ts.Name, int64(k)) {
				done = false
				break
			}
		}
		if done {
			return none, nil // already generated
		}
	}
	if n != 1 {
		return none, f.TensorErrorf(t, "want 1 memory location (the template of its %d blocks), have %d", nb, n)
	}
	tmpl := ts.Locs[0]
	src := *f.Loc(tmpl)
	// One call for the nb locations: names <set>_sub<b> made unique as
	// UniqueLocName does, tensor ids 0..nb-1, in block order (AddLocSeries
	// grows the tables once and keeps the names in one string).
	first, err := f.AddLocSeries(t, src, ts.Name+"_sub", nb)
	if err != nil {
		return none, f.TensorErrorf(t, "%v", err)
	}
	// The holder of a physical access to the template: the location of the
	// template's own block, else the last one.
	holder := first + bir.LocID(nb-1)
	if src.TensorIdx >= 0 && src.TensorIdx < nb {
		holder = first + bir.LocID(src.TensorIdx)
	}
	f.RemoveLoc(tmpl)
	return [2]bir.LocID{tmpl, holder}, nil
}

// MaxGeneratedLocations bounds the per-block locations (or per-block
// tensors, for Unroll's grid) that the unrollers create in one function:
// 25,000,000, FullUnroll's instruction ceiling. Within it, a function may
// create as many as its instructions can access after unrolling (each
// access names one block: a block no instruction accesses is dead
// storage), with a floor of minGeneratedLocations for small functions.
// The bound is checked before anything is created: a tensor declaring 2^40
// blocks, or 11.6M blocks of which a two-iteration loop touches two, is
// refused in microseconds instead of exhausting memory on its locations
// (a per-block tensor and location cost a few hundred bytes). The seed
// creates every block's location whatever the accesses.
const MaxGeneratedLocations = MaxTotalCount

// minGeneratedLocations is the floor of the block bound.
const minGeneratedLocations = 1 << 16

// blockAccessBound returns the number of instruction instances f has
// after unrolling every static loop (the projection's upper bound), which
// bounds the blocks it can access; MaxGeneratedLocations when the loop
// nest cannot be analysed (the unroller reports that itself).
func blockAccessBound(f *bir.Function) int64 {
	c := newCloner(f, clonerConfig{expand: func(*bir.Function, bir.InstID) bool { return true }})
	if c.analyze() != nil {
		return MaxGeneratedLocations
	}
	return c.project(nil).upper
}

// checkBlockCount returns the number of per-block locations the
// unrollers would create for f's block tensors (FullUnroll: those with a
// single template location; Unroll's grid, grid true: every one), or an
// error naming the tensor that takes the count past the bound (see
// MaxGeneratedLocations). It is called before anything is created.
func checkBlockCount(f *bir.Function, grid bool) (int64, error) {
	var total int64
	limit := int64(-1) // the projection is made only when blocks need it
	for t := bir.TensorID(0); int(t) < f.NumTensors(); t++ {
		ts := f.Tensor(t)
		if ts.Dead || !ts.IsBlock || !grid && len(ts.Locs) != 1 {
			continue
		}
		total = checked.SatAdd(total, max(ts.NBlocks, 1))
		if total <= minGeneratedLocations {
			continue
		}
		if limit < 0 {
			limit = min(max(blockAccessBound(f), minGeneratedLocations), MaxGeneratedLocations)
		}
		if total > limit {
			return total, f.TensorErrorf(t, "%w", diag.Errorf(diag.TooManyInsts, "%d blocks: unrolling would create one location per block, %d in the function, more than the %d narwhal creates for it (its instructions make at most that many block accesses once unrolled, floor %d, cap %d: a block no instruction accesses is dead storage)",
				ts.NBlocks, total, limit, int64(minGeneratedLocations), int64(MaxGeneratedLocations)))
		}
	}
	return total, nil
}

// memlocsGeneration is FullUnroll level 0 for one function: per-block
// locations for every block tensor, physical accesses to a replaced
// template repointed to the location of the template's block.
func memlocsGeneration(f *bir.Function) (int, error) {
	remap := map[bir.LocID]bir.LocID{}
	generated := 0
	n := f.NumTensors()
	// Bound, then reserve, the location and name tables for every series
	// at once.
	total, err := checkBlockCount(f, false)
	if err != nil {
		return 0, err
	}
	if total > 0 && total <= math.MaxInt32 {
		f.ReserveTensors(0, int(total))
	}
	for t := bir.TensorID(0); int(t) < n; t++ {
		if f.Tensor(t).Dead {
			continue
		}
		r, err := resetAndGenerateMemlocs(f, t)
		if err != nil {
			return 0, err
		}
		if r[0] != bir.NoLoc {
			remap[r[0]] = r[1]
			generated++
		}
	}
	if len(remap) == 0 {
		return generated, nil
	}
	f.Walk(func(i bir.InstID) bool {
		for k, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP {
				continue
			}
			if nl, ok := remap[o.Loc()]; ok {
				o.Ref = int32(nl)
				f.SetOperand(i, k, o)
			}
		}
		return true
	})
	return generated, nil
}

// legalizeGenericAccess rewrites physical accesses to block tensors as
// symbolic accesses of the block their location holds.
func legalizeGenericAccess(f *bir.Function) int {
	m := f.Module()
	zero := m.InternExpr(affine.Const(0))
	rewritten := 0
	f.Walk(func(i bir.InstID) bool {
		for k, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP || o.Ref < 0 || int(o.Ref) >= f.NumLocs() {
				continue
			}
			lc := f.Loc(o.Loc())
			if lc.Dead || int(lc.Tensor) < 0 || int(lc.Tensor) >= f.NumTensors() {
				continue
			}
			ts := f.Tensor(lc.Tensor)
			if !ts.IsBlock {
				continue
			}
			s := bir.SymAP(lc.Tensor, o.Dtype, m.InternExpr(affine.Const(lc.TensorIdx)), zero, o.Pattern)
			if o.Offset != 0 {
				s.Offset = int64(m.InternExpr(affine.Const(o.Offset)))
			}
			s.Extra, s.Flags = o.Extra, o.Flags
			f.SetOperand(i, k, s)
			rewritten++
		}
		return true
	})
	return rewritten
}
