package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refAttention is attention's reference, in float64 from the inputs' exact
// values: S = (Q^T K) / sqrt(d), P = exp(S - rowmax), out = (P V) / rowsum(P).
//
// Tolerance (absolute, per element), following the kernel's fp32 pipeline
// with u = 2^-24:
//
//	dS   = scale * gamma_d * max sum_k |q k|  +  2u * max|S|
//	       (the d-term dot product, the scaling and its rounding)
//	relP = 2*dS + 2u*max|S| + 2u
//	       (S - max is off by 2*dS and rounds once on |S - max| <= 2 max|S|;
//	       exp turns an absolute error of its argument into the same
//	       relative error, and rounds once)
//	out  = sum_j P_j V_j / sum_j P_j, so
//	|err| <= max|V| * (2*relP + uIO + 2*seq*u + 3u)
//	       (P and its sum each carry relP and a seq-term summation; the
//	       transposed probabilities are rounded to the I/O dtype, uIO = half
//	       its ulp; the reciprocal and the final multiply round once each)
//
// plus one ulp of the output cast. The bound is computed from the actual
// inputs and holds for any summation order.
func refAttention(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	a, err := attentionParams(p)
	if err != nil {
		return nil, nil, err
	}
	S, D := a.seq, a.d
	q, err := refInput(in, "q", a.dt, D, S)
	if err != nil {
		return nil, nil, err
	}
	k, err := refInput(in, "k", a.dt, D, S)
	if err != nil {
		return nil, nil, err
	}
	v, err := refInput(in, "v", a.dt, S, D)
	if err != nil {
		return nil, nil, err
	}
	scale := a.scale()
	out := make([]float64, S*D)
	s := make([]float64, S)
	var maxDot, maxS, maxV float64
	for _, x := range v {
		maxV = max(maxV, math.Abs(float64(x)))
	}
	for i := int64(0); i < S; i++ {
		mx := math.Inf(-1)
		for j := int64(0); j < S; j++ {
			var dot, adot float64
			for kk := int64(0); kk < D; kk++ {
				pr := float64(q[kk*S+i]) * float64(k[kk*S+j])
				dot += pr
				adot += math.Abs(pr)
			}
			s[j] = dot * scale
			maxDot = max(maxDot, adot)
			maxS = max(maxS, math.Abs(s[j]))
			mx = max(mx, s[j])
		}
		var sum float64
		o := out[i*D : (i+1)*D]
		for j := int64(0); j < S; j++ {
			pj := math.Exp(s[j] - mx)
			sum += pj
			for e := int64(0); e < D; e++ {
				o[e] += pj * float64(v[j*D+e])
			}
		}
		for e := range o {
			o[e] /= sum
		}
	}
	t, err := ref.FromFloats("out", a.dt, []int64{S, D}, out)
	if err != nil {
		return nil, nil, err
	}
	du := float64(D) * u32
	dS := scale*du/(1-du)*maxDot + 2*u32*maxS
	relP := 2*dS + 2*u32*maxS + 2*u32
	uIO := ref.UnitRoundoff(a.dt) / 2
	abs := maxV * (2*relP + uIO + 2*float64(S)*u32 + 3*u32) * 1.01
	tol := outTol(a.dt, abs, 0, "fp32 scores, exp, sums and the P V product; see refAttention")
	return map[string]*interp.Tensor{"out": t}, map[string]ref.Tolerance{"out": tol}, nil
}
