package lower

// Tensors and accesses.
//
// A Tensor is an NKI tensor: an HBM tensor (a kernel parameter, or made by
// nl.ndarray(buffer=nl.shared_hbm/hbm/private_hbm)) or an on-chip tensor
// in SBUF or PSUM. An on-chip tensor's NKI shape is (B..., P, F...): block
// dimensions, the partition dimension (nl.par_dim, else the first) and free
// dimensions; its (P, F...) part is one tile.
//
// In BIR an on-chip tensor is a block tensor of tiles [P, F...] (seed
// 003's machinery, FullUnroll's tensorSplit gives each block its own
// location): one block per logical block (the product of B) times one per
// iteration of every kept loop enclosing the tensor's creation, so that a
// tile made in a loop body is a fresh tile in every iteration, as NKI's
// allocator sees it. The block index of an access is affine in the loop
// iterators: iteration * prod(B) + linear(B index). Without B and outside
// loops it is an ordinary tensor. Memory: SB or PSUM as the buffer says,
// unallocated (the memory planner places it), or fixed placements
// (ncc.sbuf.mod_alloc, ncc.psum.mod_alloc, ncc.*.alloc): one allocated,
// pinned location per logical block, the planner works around them; a
// fixed tile inside a loop reuses the same physical tile in every
// iteration (its blocks are the logical blocks only), as the hardware
// does.
//
// HBM tensors are row-major DRAM tensors. A kernel parameter is a DRAM
// input; written, it becomes an in/out buffer (see Finish). Internal HBM
// tensors made inside kept loops are block tensors over those loops
// (private to the iteration), except shared_hbm under the SPMD grid loops,
// which is one tensor shared by every program, as the NKI documentation
// says ("Visible to all kernel instances in the SPMD grid").
//
// An Access is a tensor region as BIR sees it: the tensor, a block index
// and element offset affine in the loop axes, and one [step, num] pair per
// tile dimension. Each pair remembers the grid axes that walk it, so masks
// (mask.go) find the dimensions they restrict.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// Memory is where a tensor lives.
type Memory uint8

const (
	HBM  Memory = iota // device memory (DRAM)
	SBUF               // state buffer
	PSUM               // partial-sum buffer
)

func (m Memory) String() string {
	switch m {
	case HBM:
		return "hbm"
	case SBUF:
		return "sbuf"
	case PSUM:
		return "psum"
	}
	return fmt.Sprintf("memory(%d)", m)
}

// HBMKind says what an HBM tensor is.
type HBMKind uint8

const (
	HBMParam   HBMKind = iota // a kernel parameter
	HBMShared                 // nl.shared_hbm: one tensor for the whole SPMD grid
	HBMPrivate                // nl.hbm / nl.private_hbm: one per program and loop iteration
)

// Place is a fixed on-chip placement of one logical block: start
// partition and byte address within the partition (SBUF), or PSUM bank,
// start partition and byte address within the bank.
type Place struct {
	Partition, Bank, Byte int64
}

// Tensor is an NKI tensor under construction.
type Tensor struct {
	k      *Kernel
	Name   string
	Mem    Memory
	HBM    HBMKind
	Dtype  bir.Dtype
	Shape  []int64 // the NKI shape
	ParDim int     // on-chip: the partition dimension in Shape; -1 for HBM
	MadeAt bir.Pos

	id        bir.TensorID
	loc       bir.LocID
	blockDims []int64
	tile      []int64 // per-block BIR shape [P, F...] (on-chip) or Shape (HBM)
	strides   []int64 // element strides of Shape's dims within one block (block dims: in blocks)
	rowLen    int64   // elements per partition of one tile (on-chip)
	iters     []*Loop // kept loops whose iterations get their own blocks, outermost first
	scope     []*Loop // kept loops open when the tensor was made
	nblocks   int64
	fixed     bool
	// A fixed placement: physical tile of each logical block (physTable),
	// and physMod when that is the logical block index mod nblocks (so a
	// symbolic block index maps affinely).
	physTable []int64
	physMod   bool

	param    bool
	autoName bool // made without a name: the first variable bound names it
	written  bool
	partial  bool // written in part by a masked instruction
	read     bool
	acc      *psumState // PSUM accumulation groups (accum.go)
}

// IsOnChip reports whether t is in SBUF or PSUM.
func (t *Tensor) IsOnChip() bool { return t.Mem != HBM }

// ID returns the BIR tensor.
func (t *Tensor) ID() bir.TensorID { return t.id }

// TileShape returns the NKI shape of one tile (P, F...) of an on-chip
// tensor, the whole shape of an HBM tensor.
func (t *Tensor) TileShape() []int64 {
	if t.Mem == HBM {
		return slices.Clone(t.Shape)
	}
	return slices.Clone(t.Shape[t.ParDim:])
}

// Describe names the tensor for messages ("tile x", "tensor a").
func (t *Tensor) Describe() string {
	if t.Mem == HBM {
		return "tensor " + t.Name
	}
	return "tile " + t.Name
}

func (k *Kernel) newTensorID(name string, mt bir.MemoryType, kind bir.TensorKind, dt bir.Dtype, nblocks int64, shape []int64) (bir.TensorID, bir.LocID, error) {
	f := k.F
	name = f.UniqueTensorLocName(name)
	class := bir.ClassTensor
	switch mt {
	case bir.MemSB:
		class = bir.ClassNeuronSBTensor
	case bir.MemPSUM:
		class = bir.ClassNeuronPSUMTensor
	}
	ts := bir.Tensor{Name: name + "_set", Kind: kind, Class: class, Dtype: dt, Shape: slices.Clone(shape)}
	if nblocks > 1 {
		ts.IsBlock, ts.NBlocks = true, nblocks
	}
	id, err := f.AddTensor(ts)
	if err != nil {
		return bir.NoTensor, bir.NoLoc, err
	}
	free, ok := checked.Product(shape[1:]...)
	if !ok {
		return bir.NoTensor, bir.NoLoc, errorf(KindNKI, "tensor %s: shape %v is too large", name, shape)
	}
	l, err := f.AddLoc(id, bir.MemLoc{Name: name, Type: mt, Partitions: shape[0], Bytes: free * dt.Size()})
	if err != nil {
		return bir.NoTensor, bir.NoLoc, err
	}
	k.onUndo(func() { f.RemoveTensor(id) })
	return id, l, nil
}

func rowMajorStrides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	st := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = st
		st *= shape[i]
	}
	return s
}

func checkShape(what string, shape []int64) error {
	if len(shape) == 0 {
		return errorf(KindNKI, "%s: a tensor needs at least one dimension", what)
	}
	for _, d := range shape {
		if d <= 0 {
			return errorf(KindNKI, "%s: dimension sizes must be positive, have %v", what, shape)
		}
	}
	if _, ok := checked.Product(shape...); !ok {
		return errorf(KindNKI, "%s: shape %v is too large", what, shape)
	}
	return nil
}

// Param declares a kernel parameter: an HBM tensor the kernel receives
// (a DRAM input of the module's main function, named name).
func (k *Kernel) Param(name string, dt bir.Dtype, shape []int64) (*Tensor, error) {
	if err := checkShape("parameter "+name, shape); err != nil {
		return nil, err
	}
	id, loc, err := k.newTensorID(name, bir.MemInput, bir.KindInput, dt, 1, shape)
	if err != nil {
		return nil, err
	}
	t := &Tensor{k: k, Name: k.F.Loc(loc).Name, Mem: HBM, HBM: HBMParam, Dtype: dt, Shape: slices.Clone(shape), ParDim: -1,
		id: id, loc: loc, tile: slices.Clone(shape), strides: rowMajorStrides(shape), nblocks: 1, param: true}
	k.params = append(k.params, t)
	return t, nil
}

// NewHBM makes an internal HBM tensor (nl.ndarray with an HBM buffer).
func (k *Kernel) NewHBM(name string, kind HBMKind, dt bir.Dtype, shape []int64) (*Tensor, error) {
	k.flush()
	if err := checkShape("nl.ndarray", shape); err != nil {
		return nil, k.at(err)
	}
	var iters []*Loop
	for _, l := range k.loops {
		if kind == HBMShared && l.Grid >= 0 || l.Dynamic {
			continue
		}
		iters = append(iters, l)
	}
	nb := iterCount(iters)
	auto := name == ""
	if auto {
		name = "hbm"
	}
	id, loc, err := k.newTensorID(name, bir.MemDRAM, bir.KindInternal, dt, nb, shape)
	if err != nil {
		return nil, k.at(err)
	}
	t := &Tensor{k: k, Name: k.F.Loc(loc).Name, Mem: HBM, HBM: kind, Dtype: dt, Shape: slices.Clone(shape), ParDim: -1, MadeAt: k.pos,
		id: id, loc: loc, tile: slices.Clone(shape), strides: rowMajorStrides(shape), iters: iters, scope: slices.Clone(k.loops), nblocks: nb, autoName: auto}
	k.tensors = append(k.tensors, t)
	return t, nil
}

// staticLoops returns the open kept loops that are not runtime loops.
func (k *Kernel) staticLoops() []*Loop {
	var out []*Loop
	for _, l := range k.loops {
		if !l.Dynamic {
			out = append(out, l)
		}
	}
	return out
}

func iterCount(ls []*Loop) int64 {
	n := int64(1)
	for _, l := range ls {
		n *= l.Trip
	}
	return n
}

// Limits of the machine the tile rules check (nl.tile_size).
const (
	PMax               = 128
	PSUMFMax           = 512 // fp32 elements of one PSUM bank per partition
	PSUMBankBytes      = 2048
	GemmStationaryFMax = 128
	GemmMovingFMax     = 512
	BNStatsFMax        = 512
)

// NewTile makes an on-chip tensor of NKI shape shape with its partition
// dimension at parDim (nl.par_dim, else 0). places, when not nil, gives the
// fixed placement of every logical block (in row-major order of the block
// dimensions).
func (k *Kernel) NewTile(name string, mem Memory, dt bir.Dtype, shape []int64, parDim int, places []Place) (*Tensor, error) {
	k.flush()
	if mem == HBM {
		return nil, errorf(KindNKI, "NewTile: an HBM buffer is not on chip")
	}
	if err := checkShape("tile "+name, shape); err != nil {
		return nil, k.at(err)
	}
	if parDim < 0 || parDim >= len(shape) {
		return nil, k.at(errorf(KindNKI, "tile %s: partition dimension %d is outside shape %v", name, parDim, shape))
	}
	tile := slices.Clone(shape[parDim:])
	if tile[0] > PMax {
		return nil, k.at(errorf(KindNKI, "partition dimension %d of tile %s exceeds %d (nl.tile_size.pmax)", tile[0], name, PMax))
	}
	if len(tile) == 1 {
		tile = append(tile, 1)
	}
	rowLen, _ := checked.Product(tile[1:]...)
	if mem == PSUM && rowLen*dt.Size() > PSUMBankBytes {
		return nil, k.at(errorf(KindNKI, "tile %s in PSUM has %d bytes per partition, more than one 2 KiB PSUM bank (nl.tile_size.psum_fmax is %d float32 elements)", name, rowLen*dt.Size(), PSUMFMax))
	}
	blockDims := slices.Clone(shape[:parDim])
	nb, _ := checked.Product(blockDims...)
	var iters []*Loop
	if places == nil {
		iters = k.staticLoops()
	} else if int64(len(places)) != nb {
		return nil, k.at(errorf(KindNKI, "tile %s: %d placements for %d logical blocks", name, len(places), nb))
	}
	total, ok := checked.Mul(nb, iterCount(iters))
	if !ok {
		return nil, k.at(errorf(KindNKI, "tile %s: too many blocks", name))
	}
	// A fixed placement: one block per distinct physical tile.
	var physTable []int64
	var physPlaces []Place
	if places != nil {
		seen := map[Place]int64{}
		for _, p := range places {
			id, ok := seen[p]
			if !ok {
				id = int64(len(physPlaces))
				seen[p] = id
				physPlaces = append(physPlaces, p)
			}
			physTable = append(physTable, id)
		}
		total = int64(len(physPlaces))
	}
	mt := bir.MemSB
	if mem == PSUM {
		mt = bir.MemPSUM
	}
	auto := name == ""
	if auto {
		name = "tile"
	}
	id, loc, err := k.newTensorID(name, mt, bir.KindInternal, dt, total, tile)
	if err != nil {
		return nil, k.at(err)
	}
	t := &Tensor{k: k, Name: k.F.Loc(loc).Name, Mem: mem, Dtype: dt, Shape: slices.Clone(shape), ParDim: parDim, MadeAt: k.pos,
		id: id, loc: loc, blockDims: blockDims, tile: tile, rowLen: rowLen, iters: iters, scope: slices.Clone(k.loops), nblocks: total, autoName: auto}
	t.strides = make([]int64, len(shape))
	bs := rowMajorStrides(blockDims)
	copy(t.strides, bs)
	fs := rowMajorStrides(shape[parDim+1:])
	t.strides[parDim] = rowLen
	copy(t.strides[parDim+1:], fs)
	if places != nil {
		t.physTable = physTable
		t.physMod = true
		for b, id := range physTable {
			t.physMod = t.physMod && id == int64(b)%total
		}
		if err := k.place(t, physPlaces); err != nil {
			return nil, k.at(err)
		}
	}
	k.tensors = append(k.tensors, t)
	return t, nil
}

// physBlock maps a logical block index of a fixed-placement tensor to its
// physical tile.
func (t *Tensor) physBlock(b affine.Expr) (affine.Expr, error) {
	if t.physTable == nil {
		return b, nil
	}
	if b.IsConst() {
		if b.Const < 0 || b.Const >= int64(len(t.physTable)) {
			return b, errorf(KindNKI, "index out of bounds: block %d of %s, which has %d", b.Const, t.Describe(), len(t.physTable))
		}
		return affine.Const(t.physTable[b.Const]), nil
	}
	if t.physMod {
		return affine.Mod(b, t.nblocks), nil
	}
	return b, errorf(KindNotSupported, "%s is placed by an allocation function that is not a modulo allocation, and indexed by a loop iterator: narwhal maps loop-indexed blocks to tiles modulo the number of physical tiles", t.Describe())
}

// SetName names a tensor made without a name after the variable it is
// first bound to (a no-op for a named tensor).
func (t *Tensor) SetName(name string) {
	if !t.autoName || name == "" {
		return
	}
	t.autoName = false
	f := t.k.F
	ts := f.Tensor(t.id)
	if ts.Dead {
		return
	}
	base := f.UniqueTensorLocName(name)
	if err := f.RenameTensor(t.id, base+"_set"); err != nil {
		return
	}
	for i, l := range ts.Locs {
		n := base
		if len(ts.Locs) > 1 {
			n = fmt.Sprintf("%s_set_sub%d", base, i)
		}
		if err := f.RenameLoc(l, n); err != nil {
			return
		}
	}
	t.Name = f.Loc(t.loc).Name
}

// place gives every block of t its own allocated, pinned location. The
// placement is checked against the machine where the kernel makes it (so
// that the error names that line): the start partition by the ISA's
// quadrant rule, the partitions within the partition count, an SBUF byte
// range within the generation's usable bytes per partition and aligned to
// the element size, a PSUM range within one of the banks. Overlaps of
// placements live at the same time are the verifier's overlap rule (the
// traced module is verified: a placement overlapping another live one is
// an error naming both).
func (k *Kernel) place(t *Tensor, places []Place) error {
	f := k.F
	t.fixed = true
	tmpl := *f.Loc(t.loc)
	f.RemoveLoc(t.loc)
	bytes := tmpl.Bytes
	desc := "tile " + t.Name
	if t.autoName {
		desc = "the tile"
	}
	usable := int64(0)
	if m, err := arch.Lookup(k.M.Arch); err == nil {
		usable = m.UsableSBUFBytes()
	}
	for b, p := range places {
		parts := t.tile[0]
		if err := checkStartPartition(desc, parts, p.Partition); err != nil {
			return err
		}
		where := fmt.Sprintf("%s (block %d)", desc, b)
		if len(places) == 1 {
			where = desc
		}
		if t.Mem == PSUM {
			if p.Bank < 0 || p.Bank >= 8 || p.Byte < 0 || p.Byte+bytes > PSUMBankBytes {
				return errorf(KindNKI, "%s: PSUM bank %d, byte %d does not hold %d bytes per partition in one of the 8 banks of 2 KiB", where, p.Bank, p.Byte, bytes)
			}
		} else {
			if p.Byte < 0 {
				return errorf(KindNKI, "%s: negative SBUF byte address %d", where, p.Byte)
			}
			if usable > 0 && p.Byte+bytes > usable {
				return errorf(KindNKI, "%s at SBUF byte %d: its %d bytes per partition end at byte %d, beyond the %d usable bytes per partition of %s", where, p.Byte, bytes, p.Byte+bytes, usable, k.M.Arch)
			}
			if sz := t.Dtype.Size(); sz > 0 && p.Byte%sz != 0 {
				return errorf(KindNKI, "%s at SBUF byte %d: the address is not a multiple of the %d-byte %s element", where, p.Byte, sz, t.Dtype)
			}
		}
		l := tmpl
		l.Name = fmt.Sprintf("%s_sub%d", f.Tensor(t.id).Name, b) // FullUnroll's per-block names
		l.Allocated, l.Pinned = true, true
		l.Base, l.Bank, l.Addr = p.Partition, p.Bank, p.Byte
		l.TensorIdx = int64(b)
		id, err := f.AddLoc(t.id, l)
		if err != nil {
			return err
		}
		if b == 0 {
			t.loc = id
		}
	}
	return nil
}

// checkStartPartition applies the ISA's start-partition rule of an
// allocation (the direct allocation guide: 0 for more than 64 partitions,
// 0 or 64 for more than 32, a multiple of 32 otherwise).
func checkStartPartition(desc string, parts, start int64) error {
	ok := false
	switch {
	case parts > 64:
		ok = start == 0
	case parts > 32:
		ok = start == 0 || start == 64
	default:
		ok = start >= 0 && start%32 == 0 && start+parts <= PMax
	}
	if !ok {
		return errorf(KindNKI, "%s of %d partitions cannot start at partition %d (the ISA allows 0 above 64 partitions, 0 or 64 above 32, a multiple of 32 otherwise, within the %d partitions)", desc, parts, start, PMax)
	}
	return nil
}

// Dim is one tile dimension of an access: a [step, num] pair and the grid
// axes that walk it.
type Dim struct {
	Step, Num int64
	Axes      []GridAxis
}

// Access is a region of a tensor: block index and element offset affine
// in the loop axes, and the tile dimensions. For an on-chip tensor Dims[0]
// walks partitions (step = elements per partition of the tile).
type Access struct {
	T      *Tensor
	Block  affine.Expr
	Offset affine.Expr
	Dims   []Dim
	Dtype  bir.Dtype // the element type the access reads (T's unless viewed)
	// Reg, when set, adds a register's run-time value to the (constant)
	// element offset: a register access pattern (RegOffset).
	Reg *Register
}

// Shape returns the access's NKI shape.
func (a Access) Shape() []int64 {
	s := make([]int64, len(a.Dims))
	for i, d := range a.Dims {
		s[i] = d.Num
	}
	return s
}

// Partitions returns the number of partitions an on-chip access spans
// (the first dimension), or 1 for an HBM access without dimensions.
func (a Access) Partitions() int64 {
	if len(a.Dims) == 0 {
		return 1
	}
	return a.Dims[0].Num
}

// FreeElems returns the elements per partition (product of Dims[1:]).
func (a Access) FreeElems() int64 {
	n := int64(1)
	for _, d := range a.Dims[min(1, len(a.Dims)):] {
		n *= d.Num
	}
	return n
}

// Elems returns the number of elements.
func (a Access) Elems() int64 {
	n := int64(1)
	for _, d := range a.Dims {
		n *= d.Num
	}
	return n
}

func (a Access) clone() Access {
	b := a
	b.Dims = make([]Dim, len(a.Dims))
	for i, d := range a.Dims {
		b.Dims[i] = Dim{Step: d.Step, Num: d.Num, Axes: slices.Clone(d.Axes)}
	}
	return b
}

// Describe renders the access for messages.
func (a Access) Describe() string {
	return fmt.Sprintf("%s%v", a.T.Describe(), a.Shape())
}

// Whole returns the access to all of a tensor without block dimensions
// (a tile, or an HBM tensor), in the current iteration.
func (t *Tensor) Whole() (Access, error) {
	elems := make([]Elem, len(t.Shape))
	for i := range elems {
		elems[i] = All()
	}
	return t.Index(elems)
}

// loopBox returns the range of every loop axis of the kernel (for bounds
// checks of symbolic indices).
func (k *Kernel) loopBox(a affine.Axis) (lo, hi int64) {
	if l := k.loopOf(a); l != nil {
		return 0, l.Trip - 1
	}
	return 0, 0
}

// geomDim is one dimension of what a subscript indexes: its size and
// element stride; block marks a block dimension of an on-chip tensor (its
// stride counts blocks), par its partition dimension.
type geomDim struct {
	size, stride int64
	block, par   bool
}

// geom is the indexed thing: a tensor, or a view (an access) of one.
type geom struct {
	t      *Tensor
	dims   []geomDim
	block  affine.Expr // the block index before the subscript's part
	offset affine.Expr // the element offset before the subscript's part
	// iterBlock: add the iteration's block base (indexing a tensor).
	iterBlock bool
}

func (t *Tensor) geom() geom {
	g := geom{t: t, block: affine.Const(0), offset: affine.Const(0), iterBlock: true}
	for d, n := range t.Shape {
		g.dims = append(g.dims, geomDim{size: n, stride: t.strides[d], block: t.IsOnChip() && d < t.ParDim, par: t.IsOnChip() && d == t.ParDim})
	}
	return g
}

func (a Access) geom() geom {
	g := geom{t: a.T, block: a.Block, offset: a.Offset}
	for i, d := range a.Dims {
		g.dims = append(g.dims, geomDim{size: d.Num, stride: d.Step, par: a.T.IsOnChip() && i == 0})
	}
	return g
}

// Index resolves a subscript of t (t[elems...]) into an access. Fewer
// subscripts than dimensions take the rest whole; integer subscripts drop
// their dimension (except the partition dimension of an on-chip tensor,
// which stays as a dimension of 1: a tile always starts with its
// partitions); slices and grids make the tile dimensions, ordered as numpy
// orders them.
func (t *Tensor) Index(elems []Elem) (Access, error) {
	if err := t.k.checkScope(t); err != nil {
		return Access{}, err
	}
	return t.geom().index(elems)
}

// Index resolves a subscript of a view: its dimensions are indexed as a
// tensor's would be (a view of an on-chip tensor keeps its partitions
// first).
func (a Access) Index(elems []Elem) (Access, error) {
	if err := a.T.k.checkScope(a.T); err != nil {
		return Access{}, err
	}
	b, err := a.geom().index(elems)
	if err == nil {
		b.Dtype = a.Dtype
	}
	return b, err
}

func (g geom) describe() string { return g.t.Describe() }

func (g geom) index(elems []Elem) (Access, error) {
	k := g.t.k
	rank := len(g.dims)
	if len(elems) > rank {
		return Access{}, k.at(errorf(KindNKI, "%s has %d dimensions, indexed with %d subscripts", g.describe(), rank, len(elems)))
	}
	for len(elems) < rank {
		elems = append(elems, All())
	}
	idx := make([]Index, rank)
	// Slices become grid axes: numpy's basic indexing puts them in order;
	// mixed with index grids (advanced indexing) a slice takes the position
	// of its dimension among the non-integer subscripts.
	advanced := false
	gridRank, nonScalar, nSlices := 0, 0, 0
	for _, e := range elems {
		if !e.IsSlice && !e.Index.IsScalar() {
			advanced = true
			gridRank = max(gridRank, e.Index.Rank())
		}
		if e.IsSlice || !e.Index.IsScalar() {
			nonScalar++
		}
		if e.IsSlice {
			nSlices++
		}
	}
	sliceRank := nSlices
	if advanced {
		sliceRank = max(gridRank, nonScalar)
	}
	pos := 0
	for d, e := range elems {
		if !e.IsSlice {
			idx[d] = e.Index
			if !e.Index.IsScalar() {
				pos++
			}
			continue
		}
		x, err := g.sliceIndex(d, e, sliceRank, pos)
		if err != nil {
			return Access{}, k.at(err)
		}
		idx[d] = x
		pos++
	}
	return g.resolve(idx)
}

// sliceIndex turns slice e of dimension d into start + step*axis.
func (g geom) sliceIndex(d int, e Elem, rank, pos int) (Index, error) {
	n := g.dims[d].size
	step := e.Step
	if step == 0 {
		step = 1
	}
	if step < 0 {
		return Index{}, errorf(KindNotSupported, "slice with negative step %d in dimension %d of %s", step, d, g.describe())
	}
	start, stop := ConstIndex(0), ConstIndex(n)
	if e.HasStart {
		start = e.Start
	}
	if e.HasStop {
		stop = e.Stop
	}
	if !start.IsScalar() || !stop.IsScalar() {
		return Index{}, errorf(KindNKI, "slice bounds of dimension %d of %s must be scalars, not index grids", d, g.describe())
	}
	// Python's rules for constant bounds: negative counts from the end,
	// both clamp to [0, n].
	if c, ok := start.Const(); ok && !e.Exact {
		if c < 0 {
			c += n
		}
		start = ConstIndex(min(max(c, 0), n))
	}
	if c, ok := stop.Const(); ok && !e.Exact {
		if c < 0 {
			c += n
		}
		stop = ConstIndex(min(max(c, 0), n))
	}
	width := stop.Sub(start)
	w, ok := width.Const()
	if !ok {
		return Index{}, errorf(KindNKI, "slice of dimension %d of %s: its size (%s) must be a constant; use nl.ds(start, size)", d, g.describe(), width)
	}
	size := (w + step - 1) / step
	if size <= 0 {
		return Index{}, errorf(KindNKI, "slice of dimension %d of %s is empty", d, g.describe())
	}
	return Index{Terms: []GridTerm{{Axis: GridAxis{Size: size, Rank: rank, Pos: pos}, Coef: step}}, Sym: start.Sym}, nil
}

// resolve builds the access from one index per dimension.
func (g geom) resolve(idx []Index) (Access, error) {
	t := g.t
	k := t.k
	// The tile dimensions: numpy broadcasting of every grid axis used.
	R := 0
	for _, x := range idx {
		R = max(R, x.Rank())
	}
	sizes := make([]int64, R)
	for i := range sizes {
		sizes[i] = 1
	}
	axes := make([][]GridAxis, R)
	for _, x := range idx {
		for _, term := range x.Terms {
			p := term.Axis.Pos + R - term.Axis.Rank
			if sizes[p] != 1 && term.Axis.Size != 1 && sizes[p] != term.Axis.Size {
				return Access{}, k.at(errorf(KindNKI, "the index grids of %s do not broadcast: sizes %d and %d along tile dimension %d", g.describe(), sizes[p], term.Axis.Size, p))
			}
			sizes[p] = max(sizes[p], term.Axis.Size)
			if !slices.Contains(axes[p], term.Axis) {
				axes[p] = append(axes[p], term.Axis)
			}
		}
	}
	dims := make([]Dim, R)
	for p := range dims {
		dims[p] = Dim{Num: sizes[p], Axes: axes[p]}
	}
	block, offset := g.block, g.offset
	parWalk := -1
	for d, x := range idx {
		gd := g.dims[d]
		if gd.block {
			// Masks do not reach block dimensions: check them here (the
			// rest is checked when the instruction is emitted, after its
			// mask shrank the access).
			if !x.IsScalar() {
				return Access{}, k.at(errorf(KindNotSupported, "indexing block dimension %d of %s with an index grid: narwhal indexes block dimensions with integers and loop iterators", d, g.describe()))
			}
			if err := k.checkBounds(g, d, x); err != nil {
				return Access{}, err
			}
			block = affine.Add(block, affine.Scale(x.Sym, gd.stride))
			continue
		}
		offset = affine.Add(offset, affine.Scale(x.Sym, gd.stride))
		for _, term := range x.Terms {
			p := term.Axis.Pos + R - term.Axis.Rank
			dims[p].Step += term.Coef * gd.stride
			if gd.par {
				if term.Coef != 1 {
					return Access{}, k.at(errorf(KindNKI, "the partition dimension of %s is walked with step %d: on-chip tiles take consecutive partitions (step 1)", g.describe(), term.Coef))
				}
				if parWalk >= 0 && parWalk != p {
					return Access{}, k.at(errorf(KindNKI, "two index grids walk the partition dimension of %s", g.describe()))
				}
				parWalk = p
			}
		}
	}
	if t.IsOnChip() {
		switch {
		case parWalk > 0:
			return Access{}, k.at(errorf(KindNKI, "the partition dimension of %s must be the first dimension of the tile it indexes (it is dimension %d)", g.describe(), parWalk))
		case parWalk < 0:
			// A single partition: keep it as a leading dimension of 1.
			dims = append([]Dim{{Step: t.rowLen, Num: 1}}, dims...)
		}
	}
	if g.iterBlock && len(t.iters) > 0 {
		nb, _ := checked.Product(t.blockDims...)
		block = affine.Add(block, affine.Scale(iterLinear(t.iters), nb))
	}
	if g.iterBlock {
		var err error
		if block, err = t.physBlock(block); err != nil {
			return Access{}, k.at(err)
		}
	}
	return Access{T: t, Block: block, Offset: offset, Dims: dims, Dtype: t.Dtype}, nil
}

// iterLinear is the linear iteration number of the loops (outermost most
// significant): sum k_j * prod(trips of the loops inside j).
func iterLinear(ls []*Loop) affine.Expr {
	e := affine.Const(0)
	mult := int64(1)
	for j := len(ls) - 1; j >= 0; j-- {
		e = affine.Add(e, affine.Scale(affine.Var(ls[j].Axis), mult))
		mult *= ls[j].Trip
	}
	return e
}

// checkBounds rejects an index that reaches outside dimension d for some
// iteration of the loops.
func (k *Kernel) checkBounds(g geom, d int, x Index) error {
	lo, hi, ok := x.Sym.Bounds(k.loopBox)
	if !ok {
		return nil
	}
	for _, term := range x.Terms {
		span := term.Coef * (term.Axis.Size - 1)
		if span > 0 {
			hi += span
		} else {
			lo += span
		}
	}
	if lo < 0 || hi >= g.dims[d].size {
		return k.at(errorf(KindNKI, "index out of bounds: dimension %d of %s (size %d) is indexed from %d to %d (%s)", d, g.describe(), g.dims[d].size, lo, hi, x.Format(k.axisName)))
	}
	return nil
}

// checkScope rejects an access to a tile made in a kept loop that is no
// longer open.
func (k *Kernel) checkScope(t *Tensor) error {
	for i, l := range t.scope {
		if i >= len(k.loops) || k.loops[i] != l {
			return k.at(errorf(KindNKI, "%s (made at %s) is used outside the loop that made it (the loop over %s at %s): a tile made in an nl.affine_range/sequential_range body exists only in its iteration", t.Describe(), t.MadeAt, l.Name, l.Pos))
		}
	}
	return nil
}

// Reshape returns an access with a new NKI shape over the same elements,
// for an access whose elements are contiguous per partition (on-chip) or
// in all (HBM).
func (a Access) Reshape(shape []int64) (Access, error) {
	n, ok := checked.Product(shape...)
	if !ok || n != a.Elems() {
		return Access{}, errorf(KindNKI, "cannot reshape %s of shape %v into %v", a.T.Describe(), a.Shape(), shape)
	}
	if a.T.IsOnChip() {
		if len(shape) == 0 || shape[0] != a.Partitions() {
			return Access{}, errorf(KindNKI, "reshape of %s keeps its %d partitions first, not %v", a.T.Describe(), a.Partitions(), shape)
		}
		if !contiguous(a.Dims[1:]) {
			return Access{}, errorf(KindNotSupported, "reshape of a strided view of %s", a.T.Describe())
		}
		dims := []Dim{{Step: a.Dims[0].Step, Num: shape[0]}}
		st := rowMajorStrides(shape[1:])
		for i, s := range shape[1:] {
			dims = append(dims, Dim{Step: st[i], Num: s})
		}
		b := a
		b.Dims = dims
		return b, nil
	}
	if !contiguous(a.Dims) {
		return Access{}, errorf(KindNotSupported, "reshape of a strided view of %s", a.T.Describe())
	}
	st := rowMajorStrides(shape)
	dims := make([]Dim, len(shape))
	for i, s := range shape {
		dims[i] = Dim{Step: st[i], Num: s}
	}
	b := a
	b.Dims = dims
	return b, nil
}

// contiguous reports whether dims walk consecutive elements row-major.
func contiguous(dims []Dim) bool {
	st := int64(1)
	for i := len(dims) - 1; i >= 0; i-- {
		if dims[i].Num == 1 {
			continue
		}
		if dims[i].Step != st {
			return false
		}
		st *= dims[i].Num
	}
	return true
}

// operand builds the BIR operand of an access.
func (k *Kernel) operand(a Access) bir.Operand {
	m := k.M
	pairs := make(bir.Pattern, 0, len(a.Dims)+1)
	for _, d := range a.Dims {
		pairs = append(pairs, bir.APPair{Step: d.Step, Num: d.Num})
	}
	if a.T.IsOnChip() && len(pairs) == 1 {
		pairs = append(pairs, bir.APPair{Step: 1, Num: 1})
	}
	if len(pairs) == 0 {
		pairs = append(pairs, bir.APPair{Step: 1, Num: 1})
	}
	pat := m.InternPattern(pairs)
	dt := a.Dtype
	if a.Reg != nil {
		return bir.Operand{Kind: bir.OpdRegAP, Ref: int32(a.T.id), Expr: bir.ExprID(a.Reg.ID), Dtype: dt, Offset: a.Offset.Const, Pattern: pat}
	}
	if a.T.nblocks <= 1 && !a.T.fixed && a.Block.IsConst() && a.Offset.IsConst() {
		return bir.PhysAP(a.T.loc, dt, a.Offset.Const, pat)
	}
	return bir.SymAP(a.T.id, dt, m.InternExpr(a.Block), m.InternExpr(a.Offset), pat)
}

// axisName names loop axes in messages (the Python loop target).
func (k *Kernel) axisName(a affine.Axis) string {
	if l := k.loopOf(a); l != nil {
		return l.Name
	}
	return affine.DefaultNames(a)
}

func shapeString(s []int64) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
