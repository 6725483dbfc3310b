// is_legal_tensor: the SBUF-fit predicate SBSizeLegalization pivots on
// (seed 000, "The legality predicate"), and the geometry it compares
// against (the SBModel's partition count, SBModel+0x9c, and per-partition
// byte budget, SBModel+0x98).
//
// The seed's predicate dispatches on the storage discriminator and has
// three cases, with an overloaded second argument:
//
//	MemoryLocationSet            arg2 = requested split-piece count: legal iff partitions >= arg2
//	MemoryLocation, partition dim  legal iff max over its access patterns of bytes per partition <= budget
//	MemoryLocation, free dim       arg2 = element size: legal iff roundup8(elements) * arg2 <= budget
//
// narwhal keeps the three cases and the overloading (Storage.Kind selects
// the case). Decisions where the seed is silent:
//
//   - narwhal's MemLoc has no dim-type field: a location is always
//     [partitions, bytes per partition]. The caller picks the case. A
//     location is legal (LocLegal) when its partition count passes the
//     set case and its elements per partition pass the free-dim case —
//     the declared size, which bounds every access. These two cases are
//     sb_size_legalization's tests: LocLegal on each location, the same
//     two cases on the piece each repair would leave (PieceLegal: a cut's
//     pieces, vn_splitter's groups, shrink_ml's trimmed extent);
//     shrink_ml's final check is LocLegal.
//   - The partition-dim case is kept as the seed states it, over a
//     location's current physical accesses (MaxAccessBytes), but no pass
//     calls it: it cannot tell whether shrink_ml will legalize a tensor.
//     sb_size_legalization decides that before full_unroll, on accesses that
//     are still symbolic (MaxAccessBytes counts those as the whole
//     location); and a maximum per access pattern is not the extent
//     shrink_ml leaves, one window from the lowest to the highest element
//     any access reaches, moved to the start of the partition (counting
//     from element 0, as MaxAccessBytes does, overstates a window that
//     starts late; a per-pattern extent would understate two small
//     accesses far apart). So sb_size_legalization's plan evaluates every
//     access at every iteration, takes that window, and applies the set
//     and free-dim cases to the trimmed piece [partitions, window
//     elements]: exactly what shrink_ml's final LocLegal check will see.
//   - The set case's "split-piece count" is the number of partition rows a
//     piece of the set spans: a set laid out over P partitions is P pieces
//     of one partition each, so "partitions >= N" says the array has room
//     for them. set_splitShape calls it with the partition extent of one
//     piece after its cut.
//   - The budget is per memory: the usable SBUF per partition (physical
//     minus the runtime carve-out, arch.Model.UsableSBUFBytes) for SB, the
//     PSUM banks x bank bytes for PSUM (the seed's SBModel covers SB only;
//     PSUM tensors are held to their own memory, as the verifier's sb-fit
//     rule does). Other memories are always legal.
//   - The free-dim case rounds the element count up to a multiple of 8
//     (the seed's `and 0x7`) before multiplying by the element size, so it
//     is stricter than the verifier's byte compare: a legal location always
//     passes sb-fit.
package footprint

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Geometry is the SBModel the predicate compares against.
type Geometry struct {
	Arch       string
	Partitions int64 // SBModel+0x9c: partitions of SBUF and PSUM
	SBBytes    int64 // SBModel+0x98: usable SBUF bytes per partition
	PSUMBytes  int64 // PSUM bytes per partition (banks x bank bytes)
}

// GeometryFor reads the geometry of a machine model. It fails, naming the
// override options, when the model does not publish the SBUF or PSUM size.
func GeometryFor(m *arch.Model) (Geometry, error) {
	if m == nil {
		return Geometry{}, fmt.Errorf("no machine model")
	}
	sb, err := m.SBUFBudget()
	if err != nil {
		return Geometry{}, err
	}
	ps, err := m.PSUMBudget()
	if err != nil {
		return Geometry{}, err
	}
	if m.Partitions <= 0 {
		return Geometry{}, diag.Errorf(diag.PassOption, "arch %s: %d partitions; set arch.partitions=N", m.Name, m.Partitions)
	}
	return Geometry{Arch: m.Name, Partitions: m.Partitions, SBBytes: sb, PSUMBytes: ps}, nil
}

// Budget returns the bytes per partition a location of memory type t may
// use (0: not an on-chip memory, no limit).
func (g Geometry) Budget(t bir.MemoryType) int64 {
	switch t {
	case bir.MemSB, bir.MemOnChip: // OnChip (placement open) may become SB: the larger budget
		return g.SBBytes
	case bir.MemPSUM:
		return g.PSUMBytes
	}
	return 0
}

// BudgetText names the budget of memory type t for messages.
func (g Geometry) BudgetText(t bir.MemoryType) string {
	if t == bir.MemPSUM {
		return fmt.Sprintf("%d, the PSUM bytes per partition of %s", g.PSUMBytes, g.Arch)
	}
	return fmt.Sprintf("%d, the usable SBUF bytes per partition of %s", g.SBBytes, g.Arch)
}

// StorageKind is the seed's storage discriminator (StorageBase+0xd8) with
// the dim type of a MemoryLocation (+0x110).
type StorageKind uint8

const (
	// StorageSet is a MemoryLocationSet (bir.Tensor); arg2 is the
	// split-piece count.
	StorageSet StorageKind = iota
	// StoragePartitionDim is a MemoryLocation checked on its partition
	// dim: the bytes per partition its access patterns reach
	// (MaxAccessBytes). No pass uses it (see the file comment).
	StoragePartitionDim
	// StorageFreeDim is a MemoryLocation checked on its free dim; arg2 is
	// the element size in bytes.
	StorageFreeDim
)

// Storage names what IsLegalTensor checks.
type Storage struct {
	Kind   StorageKind
	Tensor bir.TensorID // StorageSet
	Loc    bir.LocID    // StoragePartitionDim, StorageFreeDim
}

// SetOf names tensor t as a StorageSet.
func SetOf(t bir.TensorID) Storage { return Storage{Kind: StorageSet, Tensor: t} }

// RoundUp8 rounds x up to a multiple of 8 (the seed's free-dim rounding).
func RoundUp8(x int64) int64 {
	if r := x & 7; r != 0 {
		return x + 8 - r
	}
	return x
}

// IsLegalTensor is is_legal_tensor(storage, arg2): see the file comment
// for the three cases and the meaning of arg2 in each. A storage of
// another memory than SB or PSUM is legal; an id out of range is not.
func (g Geometry) IsLegalTensor(f *bir.Function, s Storage, arg2 int64) bool {
	switch s.Kind {
	case StorageSet:
		if int(s.Tensor) < 0 || int(s.Tensor) >= f.NumTensors() {
			return false
		}
		return g.Partitions >= arg2
	case StoragePartitionDim:
		if int(s.Loc) < 0 || int(s.Loc) >= f.NumLocs() {
			return false
		}
		lc := f.Loc(s.Loc)
		budget := g.Budget(lc.Type)
		if budget == 0 {
			return true
		}
		return MaxAccessBytes(f, s.Loc) <= budget
	case StorageFreeDim:
		if int(s.Loc) < 0 || int(s.Loc) >= f.NumLocs() {
			return false
		}
		lc := f.Loc(s.Loc)
		budget := g.Budget(lc.Type)
		if budget == 0 {
			return true
		}
		return RoundUp8(locElems(f, s.Loc))*arg2 <= budget
	}
	return false
}

// locElems is the location's elements per partition in its tensor's
// dtype (bytes when the dtype is invalid).
func locElems(f *bir.Function, l bir.LocID) int64 {
	lc := f.Loc(l)
	ds := elemSize(f, l)
	return (lc.Bytes + ds - 1) / ds
}

// elemSize is the element size of location l (its tensor's dtype; 1 for
// an invalid dtype, so that sizes stay in bytes).
func elemSize(f *bir.Function, l bir.LocID) int64 {
	t := f.Loc(l).Tensor
	if int(t) >= 0 && int(t) < f.NumTensors() {
		if s := f.Tensor(t).Dtype.Size(); s > 0 {
			return s
		}
	}
	return 1
}

// MaxAccessBytes is the partition-dim measure: the largest number of bytes
// of a partition that one physical access pattern of location l reaches
// (its highest in-partition element + 1, times its element size; the
// seed's per-pattern field at AP-0x10 is not identified, narwhal reads it
// as the bytes from the start of the partition). An access that is not
// partition-contiguous, and any symbolic or register access to l's
// tensor, count as the whole location. It measures the location as it
// stands; it is not what shrink_ml trims the location to
// (sb_size_legalization's plan measures that).
func MaxAccessBytes(f *bir.Function, l bir.LocID) int64 {
	lc := f.Loc(l)
	m := f.Module()
	whole := lc.Bytes
	if len(f.Uses().Tensor(lc.Tensor)) > 0 {
		return whole
	}
	e := locElems(f, l)
	var best int64
	for _, u := range f.Uses().Loc(l) {
		o := f.Operands(u.Inst)[u.Operand]
		ds := o.Dtype.Size()
		if ds == 0 || ds != elemSize(f, l) {
			return whole
		}
		lay := OnChipLayout(o.Offset, m.Pattern(o.Pattern), e)
		if lay.Class != APContiguous {
			return whole
		}
		best = max(best, (lay.ElemHi+1)*ds)
	}
	return best
}

// LocLegal reports whether on-chip location l is legal: its partitions
// pass the set case and its elements per partition the free-dim case.
// why says what fails (empty when legal). Locations of other memories are
// legal.
func (g Geometry) LocLegal(f *bir.Function, l bir.LocID) (ok bool, why string) {
	lc := f.Loc(l)
	if !lc.Type.IsOnChip() {
		return true, ""
	}
	if !g.IsLegalTensor(f, Storage{Kind: StorageSet, Tensor: lc.Tensor}, lc.Partitions) {
		return false, fmt.Sprintf("%d partitions, want <= %d", lc.Partitions, g.Partitions)
	}
	ds := elemSize(f, l)
	if !g.IsLegalTensor(f, Storage{Kind: StorageFreeDim, Loc: l}, ds) {
		return false, fmt.Sprintf("%d bytes per partition (%d elements rounded up to %d, x %d bytes), want <= %s",
			RoundUp8(locElems(f, l))*ds, locElems(f, l), RoundUp8(locElems(f, l)), ds, g.BudgetText(lc.Type))
	}
	return true, ""
}

// IllegalLocation is one on-chip location that fails is_legal_tensor.
type IllegalLocation struct {
	Function string
	Tensor   string
	Loc      string
	Why      string
	LocID    bir.LocID // the location in Function (the error's subject)
}

func (x IllegalLocation) String() string {
	return fmt.Sprintf("function %s, tensor %s, location %s: %s", x.Function, x.Tensor, x.Loc, x.Why)
}

// IllegalLocations lists every live SB and PSUM location of m that fails
// LocLegal, in function and location order.
func (g Geometry) IllegalLocations(m *bir.Module) []IllegalLocation {
	var out []IllegalLocation
	for _, f := range m.Funcs {
		for l := bir.LocID(0); int(l) < f.NumLocs(); l++ {
			lc := f.Loc(l)
			if lc.Dead || !lc.Type.IsOnChip() {
				continue
			}
			// The common case without the message (LocLegal's rule).
			if t := lc.Tensor; int(t) >= 0 && int(t) < f.NumTensors() {
				if ds := f.Tensor(t).Dtype.Size(); ds > 0 && lc.Partitions <= g.Partitions && RoundUp8((lc.Bytes+ds-1)/ds)*ds <= g.Budget(lc.Type) {
					continue
				}
			}
			if ok, why := g.LocLegal(f, l); !ok {
				tn := "?"
				if t := lc.Tensor; int(t) >= 0 && int(t) < f.NumTensors() {
					tn = f.Tensor(t).Name
				}
				out = append(out, IllegalLocation{Function: f.Name, Tensor: tn, Loc: lc.Name, Why: why, LocID: l})
			}
		}
	}
	return out
}
