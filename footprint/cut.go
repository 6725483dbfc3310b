// The geometry of FullUnroll::tensorSplit's cut (seed 000, "The delegated
// clone"; seed 003, getLargestFactorWithThreshold): a marked dim of size n
// is cut into k pieces of n/k, k the largest divisor of n that is at most
// MaxFactor = 16; an access maps onto one piece when every element's index
// stays inside the dims' ranges and inside one piece along every cut dim,
// and otherwise straddles pieces along a cut dim (the unroller then
// splits the instruction, where ElementWise allows it).
package footprint

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
)

// MaxFactor is getLargestFactorWithThreshold's threshold.
const MaxFactor = 16

// GetLargestFactorWithThreshold returns the largest divisor of n that is
// at most maxFactor: the number of pieces a marked dim of size n is cut
// into.
func GetLargestFactorWithThreshold(n, maxFactor int64) (int64, error) {
	if maxFactor <= 0 {
		return 0, fmt.Errorf("MaxFactor > 0: have MaxFactor=%d", maxFactor)
	}
	if n <= 0 {
		return 0, fmt.Errorf("getLargestFactorWithThreshold: dimension %d, want > 0", n)
	}
	for k := min(maxFactor, n); k > 1; k-- {
		if n%k == 0 {
			return k, nil
		}
	}
	return 1, nil
}

// Cut is FullUnroll::tensorSplit's geometry for a tensor shape and a
// splitShape mask: how many pieces each dim is cut into
// (getLargestFactorWithThreshold) and where each element of the tensor
// lands. The unroller performs the cut with it; sb_size_legalization
// plans the cut with it, so it marks only cuts the unroller performs.
type Cut struct {
	Shape, Stride     []int64 // the tensor's shape and row-major strides
	Pieces, PieceSize []int64 // pieces along each dim (1: not cut) and the piece shape
	PieceStride       []int64 // row-major strides of a piece
	PieceRadix        []int64 // row-major strides of the piece index over Pieces
	Total, NumPieces  int64   // elements of the tensor; pieces in all
	Marked            []bool  // dims actually cut (marked with more than one piece)
}

// NewCut returns the cut of a tensor of the given shape under mask (one
// entry per dim), or an error for a malformed shape or mask. The shape is
// copied.
func NewCut(shape []int64, mask []bool) (*Cut, error) {
	n := len(shape)
	if len(mask) != n {
		return nil, fmt.Errorf("splitShape has %d entries for a tensor of %d dims", len(mask), n)
	}
	g := &Cut{Shape: slices.Clone(shape), Stride: make([]int64, n), Pieces: make([]int64, n), PieceSize: make([]int64, n),
		PieceStride: make([]int64, n), PieceRadix: make([]int64, n), Marked: make([]bool, n)}
	shape = g.Shape
	s, ps := int64(1), int64(1)
	for d := n - 1; d >= 0; d-- {
		if shape[d] <= 0 {
			return nil, fmt.Errorf("dim %d has size %d", d, shape[d])
		}
		g.Pieces[d] = 1
		if mask[d] {
			k, err := GetLargestFactorWithThreshold(shape[d], MaxFactor)
			if err != nil {
				return nil, err
			}
			g.Pieces[d] = k
			g.Marked[d] = k > 1
		}
		g.PieceSize[d] = shape[d] / g.Pieces[d]
		g.Stride[d], g.PieceStride[d] = s, ps
		s *= shape[d]
		ps *= g.PieceSize[d]
	}
	g.Total = s
	r := int64(1)
	for d := n - 1; d >= 0; d-- {
		g.PieceRadix[d] = r
		r *= g.Pieces[d]
	}
	g.NumPieces = r
	return g, nil
}

// CutAccess is how the cut sees one access of the whole tensor.
type CutAccess struct {
	// Piece, Off and Pat are the access mapped onto its piece (row-major
	// piece index over Pieces; offset and pattern in the piece's
	// elements), when it stays inside one piece (Straddle -1).
	Piece int64
	Off   int64
	Pat   bir.Pattern
	// Straddle is the first cut dim along which the access reaches more
	// than one piece, -1 when it stays inside one piece.
	Straddle int
	// Pair is the only [step, num] pair moving along Straddle, -1 when
	// several do (the cut then refuses the instruction).
	Pair int
}

// digits decomposes a non-negative linear index over the dims.
func (g *Cut) digits(x int64, out []int64) {
	for d := range g.Shape {
		out[d] = (x / g.Stride[d]) % g.Shape[d]
	}
}

// Map maps an access (offset, pattern) of the whole tensor onto pieces as
// tensorSplit does; the error is the one tensorSplit reports (the access
// does not decompose over the tensor's dims, or leaves the tensor).
func (g *Cut) Map(off int64, pat bir.Pattern) (CutAccess, error) {
	n := len(g.Shape)
	res := CutAccess{Straddle: -1, Pair: -1}
	if off < 0 || off >= g.Total {
		return res, fmt.Errorf("offset %d outside the tensor's %d elements", off, g.Total)
	}
	od := make([]int64, n)
	g.digits(off, od)
	lo := slices.Clone(od)
	hi := slices.Clone(od)
	deltas := make([][]int64, len(pat))
	for i, q := range pat {
		if q.Num <= 1 {
			continue
		}
		a := q.Step
		if a < 0 {
			a = -a
		}
		if a >= g.Total {
			return res, fmt.Errorf("pair %d step %d is not smaller than the tensor's %d elements", i, q.Step, g.Total)
		}
		dl := make([]int64, n)
		g.digits(a, dl)
		if q.Step < 0 {
			for d := range dl {
				dl[d] = -dl[d]
			}
		}
		deltas[i] = dl
		for d := range dl {
			v := dl[d] * (q.Num - 1)
			if v < 0 {
				lo[d] += v
			} else {
				hi[d] += v
			}
		}
	}
	for d := 0; d < n; d++ {
		if lo[d] < 0 || hi[d] >= g.Shape[d] {
			return res, fmt.Errorf("the access does not decompose over the tensor's dims (dim %d would range over [%d, %d] of %d)", d, lo[d], hi[d], g.Shape[d])
		}
	}
	for d := 0; d < n; d++ {
		if !g.Marked[d] {
			continue
		}
		if lo[d]/g.PieceSize[d] != hi[d]/g.PieceSize[d] {
			res.Straddle = d
			for i := range pat {
				if deltas[i] != nil && deltas[i][d] != 0 {
					if res.Pair >= 0 {
						res.Pair = -1
						return res, nil
					}
					res.Pair = i
				}
			}
			return res, nil
		}
	}
	var piece, noff int64
	for d := 0; d < n; d++ {
		j := lo[d] / g.PieceSize[d]
		if !g.Marked[d] {
			j = 0
		}
		piece += j * g.PieceRadix[d]
		noff += (od[d] - j*g.PieceSize[d]) * g.PieceStride[d]
	}
	np := make(bir.Pattern, len(pat))
	for i, q := range pat {
		np[i] = q
		if deltas[i] == nil {
			continue
		}
		var s int64
		for d := 0; d < n; d++ {
			s += deltas[i][d] * g.PieceStride[d]
		}
		np[i].Step = s
	}
	res.Piece, res.Off, res.Pat = piece, noff, np
	return res, nil
}

// Chunks returns the sub-ranges [t0, t1) of pair res.Pair over which the
// access stays in one piece along dim res.Straddle.
func (g *Cut) Chunks(off int64, pat bir.Pattern, res CutAccess) [][2]int64 {
	od := make([]int64, len(g.Shape))
	g.digits(off, od)
	q := pat[res.Pair]
	a := q.Step
	if a < 0 {
		a = -a
	}
	dl := make([]int64, len(g.Shape))
	g.digits(a, dl)
	delta := dl[res.Straddle]
	if q.Step < 0 {
		delta = -delta
	}
	d := res.Straddle
	var out [][2]int64
	start := int64(0)
	cur := od[d] / g.PieceSize[d]
	for t := int64(1); t < q.Num; t++ {
		p := (od[d] + t*delta) / g.PieceSize[d]
		if p != cur {
			out = append(out, [2]int64{start, t})
			start, cur = t, p
		}
	}
	return append(out, [2]int64{start, q.Num})
}
