package kernels

import (
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refResidual is residual's reference: out = x + (2x + y)^2 with the
// kernel's fp32 steps (a = 2x exact, then one fp32 rounding per add and
// multiply) and one cast to the output dtype, emulated with Go's float32
// arithmetic: bit-exact.
func refResidual(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return nil, nil, err
	}
	dt, err := floatDtype(p)
	if err != nil {
		return nil, nil, err
	}
	rows, cols := v[0], v[1]
	x, err := refInput(in, "x", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	y, err := refInput(in, "y", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	o := make([]float32, len(x))
	for i := range o {
		a := x[i] * 2
		c := a + y[i]
		d := c * c
		o[i] = x[i] + d
	}
	out, err := ref.FromFloat32s("out", dt, []int64{rows, cols}, o)
	if err != nil {
		return nil, nil, err
	}
	return map[string]*interp.Tensor{"out": out}, nil, nil
}
