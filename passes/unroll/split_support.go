// A read-only view of FullUnroll::tensorSplit's geometry for its client,
// SBSizeLegalization (passes/sbsize, seed 000): set_splitShape must only
// mark dims that the cut in split.go can perform, so it asks the splitter
// itself — the same geom, mapAP and opcode rule — instead of restating
// them. Nothing here changes IR; the cut still lives only in split.go.
//
// Added for passes/sbsize (the smallest extension: exported wrappers, no
// new behaviour).
package unroll

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// CutPlan is the cut a splitShape mask asks for on a tensor shape: the
// pieces per dim (getLargestFactorWithThreshold, MaxFactor) and the piece
// shape.
type CutPlan struct {
	g *geom
}

// PlanCut returns the cut of a tensor of the given shape under mask (one
// entry per dim), or an error for a malformed shape or mask.
func PlanCut(shape []int64, mask []bool) (*CutPlan, error) {
	if len(mask) != len(shape) {
		return nil, fmt.Errorf("splitShape has %d entries for a tensor of %d dims", len(mask), len(shape))
	}
	g, err := newGeom(slices.Clone(shape), mask)
	if err != nil {
		return nil, err
	}
	return &CutPlan{g: g}, nil
}

// NumPieces returns the number of pieces of each location.
func (p *CutPlan) NumPieces() int64 { return p.g.npieces }

// Pieces returns the number of pieces along each dim (1 where the dim is
// not cut).
func (p *CutPlan) Pieces() []int64 { return slices.Clone(p.g.pieces) }

// PieceShape returns the shape of every piece.
func (p *CutPlan) PieceShape() []int64 { return slices.Clone(p.g.psize) }

// CutAccess is how the cut sees one access of the whole tensor.
type CutAccess struct {
	// Straddle is the first cut dim along which the access reaches more
	// than one piece, -1 when it stays inside one piece.
	Straddle int
	// Pair is the only [step, num] pair moving along Straddle, -1 when
	// several do (the cut then refuses the instruction).
	Pair int
}

// Access maps the access (offset, pat) as tensorSplit does; the error is
// the one tensorSplit would report (the access does not decompose over the
// tensor's dims, or leaves the tensor).
func (p *CutPlan) Access(offset int64, pat bir.Pattern) (CutAccess, error) {
	res, err := p.g.mapAP(offset, pat)
	if err != nil {
		return CutAccess{Straddle: -1, Pair: -1}, err
	}
	return CutAccess{Straddle: res.straddle, Pair: res.pair}, nil
}

// SplittableInst reports whether tensorSplit may cut instruction i into
// per-piece parts when one of its accesses straddles pieces (the opcode
// rule of split.go: element-wise opcodes without cross-element effects).
// The cut also needs every access-pattern operand of i to have the same
// nums and exactly one pair moving along the straddled dim.
func SplittableInst(f *bir.Function, i bir.InstID) bool { return splittable(f, i) }
