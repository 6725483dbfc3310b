package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refAvgPool is average_pool2d's reference, in float64 from the inputs'
// exact values: the mean of each pool x pool window.
//
// Tolerance (absolute). The fp32 sum of n = pool^2 terms is within
// gamma_n * sum|x| <= n*u * n*max|x| of the exact sum (u = 2^-24); scaled
// by 1/n that is n*u*max|x|; the fp32 value of 1/n and the multiply add 2u
// relative. Hence (pool^2 + 2)*u*max|x|, plus one ulp of the output cast.
func refAvgPool(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	d, err := poolParams(p)
	if err != nil {
		return nil, nil, err
	}
	x, err := refInput(in, "in", d.dt, d.C, d.H, d.W)
	if err != nil {
		return nil, nil, err
	}
	Ho, Wo := d.ho(), d.wo()
	out := make([]float64, d.C*Ho*Wo)
	var maxAbs float64
	for _, v := range x {
		maxAbs = max(maxAbs, math.Abs(float64(v)))
	}
	n := float64(d.ps * d.ps)
	for c := int64(0); c < d.C; c++ {
		for y := int64(0); y < Ho; y++ {
			for xo := int64(0); xo < Wo; xo++ {
				var s float64
				for dy := int64(0); dy < d.ps; dy++ {
					for dx := int64(0); dx < d.ps; dx++ {
						s += float64(x[(c*d.H+y*d.ps+dy)*d.W+xo*d.ps+dx])
					}
				}
				out[(c*Ho+y)*Wo+xo] = s / n
			}
		}
	}
	t, err := ref.FromFloats("out", d.dt, []int64{d.C, Ho, Wo}, out)
	if err != nil {
		return nil, nil, err
	}
	tol := outTol(d.dt, (n+2)*u32*maxAbs, 0, "fp32 window sum and scale: (pool^2 + 2)*2^-24*max|x|, plus one ulp of the output cast")
	return map[string]*interp.Tensor{"out": t}, map[string]ref.Tolerance{"out": tol}, nil
}
