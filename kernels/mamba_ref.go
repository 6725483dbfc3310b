package kernels

import (
	"math"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refMamba is mamba's reference, in float64 from the inputs' exact values:
// out[c,t] = sum_s C[s,t] * h_s[c,t], h_s[c,t] = exp(delta[c,t]*A[c,s]) *
// h_s[c,t-1] + delta[c,t]*u[c,t]*B[s,t], h_s[c,-1] = 0.
//
// Tolerance (absolute). The kernel rounds in fp32: delta*A once (so exp's
// argument moves by u*|delta*A| <= u, and exp(.) <= 1 by at most 2u with
// its own rounding and an ulp of libm slack), the two products of deltaBu
// (2u relative, |deltaBu| < 1), the scan's multiply and add (2u of |h|
// each step); with the factors at most 1 the scan is a contraction, so
// each step adds at most (4u*Hmax + 2u + 2u*Hmax) and the errors do not
// grow: after seq steps at most seq*(6*Hmax + 2)*u, Hmax the largest |h|.
// scanC and the accumulation over state add state*(Hmax+Ymax)*u. The
// bound is computed over the actual values.
func refMamba(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	ch, seq, st, err := mambaParams(p)
	if err != nil {
		return nil, nil, err
	}
	dt := bir.Float32
	delta, err := refInput(in, "delta", dt, ch, seq)
	if err != nil {
		return nil, nil, err
	}
	u, err := refInput(in, "u", dt, ch, seq)
	if err != nil {
		return nil, nil, err
	}
	A, err := refInput(in, "A", dt, ch, st)
	if err != nil {
		return nil, nil, err
	}
	B, err := refInput(in, "B", dt, st, seq)
	if err != nil {
		return nil, nil, err
	}
	C, err := refInput(in, "C", dt, st, seq)
	if err != nil {
		return nil, nil, err
	}
	out := make([]float64, ch*seq)
	var hMax, yMax float64
	for c := int64(0); c < ch; c++ {
		for s := int64(0); s < st; s++ {
			var h float64
			for t := int64(0); t < seq; t++ {
				d := float64(delta[c*seq+t])
				h = math.Exp(d*float64(A[c*st+s]))*h + d*float64(u[c*seq+t])*float64(B[s*seq+t])
				hMax = max(hMax, math.Abs(h))
				out[c*seq+t] += h * float64(C[s*seq+t])
			}
		}
	}
	for _, y := range out {
		yMax = max(yMax, math.Abs(y))
	}
	tt, err := ref.FromFloats("output", dt, []int64{ch, seq}, out)
	if err != nil {
		return nil, nil, err
	}
	abs := (float64(seq)*(6*hMax+2) + float64(st)*(hMax+yMax)) * u32
	return map[string]*interp.Tensor{"output": tt}, map[string]ref.Tolerance{"output": outTol(dt, abs, 0, "fp32 scan: seq*(6*Hmax+2)*u for the contraction, state*(Hmax+Ymax)*u for the products with C and the sum over state")}, nil
}
