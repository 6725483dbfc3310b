package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refMatmul is matmul's reference: result[m,n] = sum_k lhsT[k,m]*rhs[k,n]
// in float64 from the inputs' exact values, cast once to the dtype.
//
// Tolerance. The interpreter forms the products and sums them in fp32
// (semantics.md §4.7), in an order the passes may change (tiling K
// differently reorders the sum). For any order, recursive summation of K
// terms is within gamma_K * sum_k |a_k b_k| of the exact value, gamma_K =
// K*u/(1-K*u), u = 2^-24 (Higham, Accuracy and Stability of Numerical
// Algorithms, §4.2); the products of bf16/fp16 inputs are exact in fp32
// and fp32 products add one more u. The bound is taken over the actual
// inputs (the largest sum_k |a_k b_k| of any output element), plus one ulp
// of the output dtype for the final cast.
func refMatmul(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	d, err := matmulParams(p)
	if err != nil {
		return nil, nil, err
	}
	return matmulReference(d, in)
}

// matmulReference is the reference of a matmul of dims d (matmul and
// macro_matmul; d.TN is not used).
func matmulReference(d matmulDims, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	a, err := refInput(in, "lhsT", d.dt, d.K, d.M)
	if err != nil {
		return nil, nil, err
	}
	bm, err := refInput(in, "rhs", d.dt, d.K, d.N)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, d.M*d.N)
	var maxAbsSum float64
	absRow := make([]float64, d.N)
	for m := int64(0); m < d.M; m++ {
		row := out[m*d.N : (m+1)*d.N]
		clear(absRow)
		for k := int64(0); k < d.K; k++ {
			av := float64(a[k*d.M+m])
			brow := bm[k*d.N : (k+1)*d.N]
			for n, bv := range brow {
				pr := av * float64(bv)
				row[n] += pr
				absRow[n] += math.Abs(pr)
			}
		}
		for _, s := range absRow {
			maxAbsSum = max(maxAbsSum, s)
		}
	}
	t, err := ref.FromFloats("result", d.dt, []int64{d.M, d.N}, out)
	if err != nil {
		return nil, nil, err
	}
	ku := float64(d.K+1) * u32
	gamma := ku / (1 - ku)
	tol := outTol(d.dt, gamma*maxAbsSum, 0, "fp32 sum of K products: gamma_K * max sum|a*b|, plus one ulp of the output cast")
	return map[string]*interp.Tensor{"result": t}, map[string]ref.Tolerance{"result": tol}, nil
}
