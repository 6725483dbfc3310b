package kernels

import (
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refTranspose2D is transpose2d's reference: out[c, r] = x[r, c], moving
// each element's bytes. Data movement only, so bit-exact.
func refTranspose2D(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	rows, cols, _, dt, err := transposeParams(p)
	if err != nil {
		return nil, nil, err
	}
	x, err := refTensor(in, "x", dt, rows, cols)
	if err != nil {
		return nil, nil, err
	}
	sz := dt.Size()
	out := &interp.Tensor{Name: "out", Dtype: dt, Shape: []int64{cols, rows}, Data: make([]byte, len(x.Data))}
	for r := int64(0); r < rows; r++ {
		for c := int64(0); c < cols; c++ {
			copy(out.Data[(c*rows+r)*sz:(c*rows+r+1)*sz], x.Data[(r*cols+c)*sz:])
		}
	}
	return map[string]*interp.Tensor{"out": out}, nil, nil
}
