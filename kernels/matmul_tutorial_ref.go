package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refMatmulTutorial is matmul_tutorial's reference: the exact product in
// float64 (matmulReference), with its fp32-sum tolerance. variant=opt
// accumulates the K blocks' PSUM results in an SBUF tile of the output
// dtype, rounding the running sum once per K block: each rounding moves
// it by at most u (the dtype's unit roundoff) of its magnitude, at most
// max sum_k |a*b|, so K/(128*bk) roundings add that many u times it.
func refMatmulTutorial(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	d, err := tutorialParams(p)
	if err != nil {
		return nil, nil, err
	}
	out, tol, err := matmulReference(d.matmulDims, in)
	if err != nil || d.variant != "opt" {
		return out, tol, err
	}
	a, err := refInput(in, "lhsT", d.dt, d.K, d.M)
	if err != nil {
		return nil, nil, err
	}
	bm, err := refInput(in, "rhs", d.dt, d.K, d.N)
	if err != nil {
		return nil, nil, err
	}
	var maxAbsSum float64
	absRow := make([]float64, d.N)
	for m := int64(0); m < d.M; m++ {
		clear(absRow)
		for k := int64(0); k < d.K; k++ {
			av := math.Abs(float64(a[k*d.M+m]))
			for n, bv := range bm[k*d.N : (k+1)*d.N] {
				absRow[n] += av * math.Abs(float64(bv))
			}
		}
		for _, s := range absRow {
			maxAbsSum = max(maxAbsSum, s)
		}
	}
	nbk := float64(d.K / (pmax * d.BK))
	t := tol["result"]
	t.Abs += nbk * ref.UnitRoundoff(d.dt) * maxAbsSum
	t.Why += "; plus one rounding to the output dtype per K block (result_tiles accumulates in SBUF): K/(128*bk) * u * max sum|a*b|"
	tol["result"] = t
	return out, tol, nil
}
