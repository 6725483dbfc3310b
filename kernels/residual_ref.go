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
	return refBinary(in, "out", dt, v[0], v[1], func(x, y float32) float32 {
		a := x * 2
		c := a + y
		d := c * c
		return x + d
	})
}
