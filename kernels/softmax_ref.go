package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refSoftmax is softmax's reference, in float64 from the inputs' exact
// values: out[r,c] = exp(x[r,c] - max_r) / sum_c exp(x[r,c] - max_r).
//
// Tolerance (relative, per element). In the kernel's fp32 pipeline the
// bias addition x - max rounds once (relative u = 2^-24 of |x - max|, at
// most 2u*max|x| absolute, which exp turns into the same relative error),
// exp rounds once (u), the sum of cols positive terms is within
// (cols-1)*u relative, the reciprocal and the multiply round once each.
// Summed: (cols + 4 + 2*max|x|)*u relative, plus one ulp of the output
// dtype for the final cast, and 4u of slack for the implementations of exp
// and the reciprocal (semantics.md asks for exact maths; a libm result can
// be off by an ulp). The bound holds for any summation order.
func refSoftmax(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	rows, cols, dt, err := softmaxParams(p)
	if err != nil {
		return nil, nil, err
	}
	return softmaxReference(rows, cols, dt, in)
}

// softmaxReference is the reference of a [rows, cols] softmax of dtype dt
// (softmax and macro_softmax).
func softmaxReference(rows, cols int64, dt bir.Dtype, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	x, err := refInput(in, "x", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, len(x))
	var maxAbs float64
	for r := int64(0); r < rows; r++ {
		row := x[r*cols : (r+1)*cols]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = max(mx, float64(v))
			maxAbs = max(maxAbs, math.Abs(float64(v)))
		}
		o := out[r*cols : (r+1)*cols]
		var s float64
		for c, v := range row {
			o[c] = math.Exp(float64(v) - mx)
			s += o[c]
		}
		for c := range o {
			o[c] /= s
		}
	}
	t, err := ref.FromFloats("out", dt, []int64{rows, cols}, out)
	if err != nil {
		return nil, nil, err
	}
	rel := (float64(cols) + 8 + 2*maxAbs) * u32
	tol := outTol(dt, 0, rel, "fp32 exp/sum/reciprocal: (cols + 8 + 2*max|x|)*2^-24 relative, plus one ulp of the output cast")
	return map[string]*interp.Tensor{"out": t}, map[string]ref.Tolerance{"out": tol}, nil
}
