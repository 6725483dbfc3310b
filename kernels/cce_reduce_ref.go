package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refCCEReduce is cce_reduce's reference: out = sum_s scale_s * x[s] in
// float64, cast once to the dtype.
//
// Tolerance. When every input is a multiple of 1/64 in [-1, 1] (what the
// kernel's Inputs draw), every term is a multiple of 2^-8 of magnitude at
// most 1, and any partial sum of at most 40 of them needs at most 14
// significant bits: fp32 holds it exactly, whatever the order, so the
// result is the exact sum rounded once, as here, and the outputs are held
// bit-exact. On other inputs, the fp32 sum of S terms is within
// gamma_S * sum_s |scale_s x_s| (Higham §4.2), plus one ulp of the cast.
func refCCEReduce(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	c, err := cceParams(p)
	if err != nil {
		return nil, nil, err
	}
	x, err := refInput(in, "x", c.dt, c.S, c.rows, c.cols)
	if err != nil {
		return nil, nil, err
	}
	n := c.rows * c.cols
	out := make([]float64, n)
	abs := make([]float64, n)
	dyadic := true
	for s := int64(0); s < c.S; s++ {
		sc := cceScale(s)
		for k, v := range x[s*n : (s+1)*n] {
			f := float64(v)
			if dyadic && (math.Abs(f) > 1 || f*64 != math.Trunc(f*64)) {
				dyadic = false
			}
			out[k] += sc * f
			abs[k] += math.Abs(sc * f)
		}
	}
	t, err := ref.FromFloats("out", c.dt, []int64{c.rows, c.cols}, out)
	if err != nil {
		return nil, nil, err
	}
	tols := map[string]ref.Tolerance{}
	if !dyadic {
		var maxAbs float64
		for _, a := range abs {
			maxAbs = max(maxAbs, a)
		}
		su := float64(c.S) * u32
		tols["out"] = outTol(c.dt, su/(1-su)*maxAbs, 0, "inputs not multiples of 1/64: fp32 sum of S scaled terms, gamma_S * max sum|scale*x|, plus one ulp of the output cast")
	}
	return map[string]*interp.Tensor{"out": t}, tols, nil
}
