package kernels

import (
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refTensorAdd is tensor_add's reference: the fp32 pipeline of
// semantics.md §1 (each input converted to fp32, one fp32 addition, one
// cast to the output dtype), emulated with Go's float32 arithmetic. One
// correctly rounded operation per element leaves nothing to disagree
// about, so the outputs are held bit-exact for every dtype.
func refTensorAdd(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	v, err := intParams(p, "rows", "cols")
	if err != nil {
		return nil, nil, err
	}
	dt, err := anyDtype(p)
	if err != nil {
		return nil, nil, err
	}
	return refBinary(in, "z", dt, v[0], v[1], func(x, y float32) float32 { return x + y })
}
