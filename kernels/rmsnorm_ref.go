package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refRMSNorm is rmsnorm's reference, in float64 from the inputs' exact
// values: out[r,j] = a[r,j] / sqrt(sum_j a[r,j]^2 / d + eps) * g[j].
//
// Tolerance (relative, per element). The fp32 pipeline rounds each square
// (u = 2^-24), sums d positive terms ((d-1)*u relative for any order),
// multiplies by the fp32 value of 1/d and adds eps (u each, and u for
// rounding 1/d itself), takes rsqrt (half the relative error of its
// argument, plus its own rounding), and multiplies twice (u each); the
// weight broadcast (ones matmul, K = 1) is exact. That is below
// (d/2 + 8)*u; the bound used is (d + 12)*u to leave room for an rsqrt
// implementation that is an ulp off, plus one ulp of the output cast.
func refRMSNorm(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	r, err := rmsnormParams(p)
	if err != nil {
		return nil, nil, err
	}
	return rmsnormReference(r, in)
}

// rmsnormReference is the reference of an rmsnorm of dims r (rmsnorm and
// macro_rmsnorm; r.chunk is not used).
func rmsnormReference(r rmsDims, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	a, err := refInput(in, "a", r.dt, r.rows, r.d)
	if err != nil {
		return nil, nil, err
	}
	g, err := refInput(in, "g", r.dt, r.d)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, len(a))
	for i := int64(0); i < r.rows; i++ {
		row := a[i*r.d : (i+1)*r.d]
		var ss float64
		for _, v := range row {
			ss += float64(v) * float64(v)
		}
		rstd := 1 / math.Sqrt(ss/float64(r.d)+r.eps)
		o := out[i*r.d : (i+1)*r.d]
		for j, v := range row {
			o[j] = float64(v) * rstd * float64(g[j])
		}
	}
	t, err := ref.FromFloats("out", r.dt, []int64{r.rows, r.d}, out)
	if err != nil {
		return nil, nil, err
	}
	tol := outTol(r.dt, 0, float64(r.d+12)*u32, "fp32 squares, sum, rsqrt, two multiplies: (d + 12)*2^-24 relative, plus one ulp of the output cast")
	return map[string]*interp.Tensor{"out": t}, map[string]ref.Tolerance{"out": tol}, nil
}
