package kernels

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refOversized is oversized's reference: every case copies x to z bit for
// bit; with dynamic=1, w = y + 1 applied eight times in fp32 (two passes of
// the dynamic loop, four of the inner loop), each addition rounded as the
// interpreter's fp32 pipeline rounds it, so all outputs are bit-exact.
func refOversized(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	parts, _, _, f, err := oversizedGeometry(p)
	if err != nil {
		return nil, nil, err
	}
	inShape, outShape, err := oversizedShapes(p.Str("case"), parts, f)
	if err != nil {
		return nil, nil, err
	}
	x, err := refTensor(in, "x", bir.Float32, inShape...)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]*interp.Tensor{"z": {Name: "z", Dtype: bir.Float32, Shape: outShape, Data: slices.Clone(x.Data)}}
	if dyn, _ := p.Int("dynamic"); dyn == 1 {
		y, err := refInput(in, "y", bir.Float32, 128, 8)
		if err != nil {
			return nil, nil, err
		}
		w := make([]float32, len(y))
		for i, v := range y {
			for range 8 {
				v++
			}
			w[i] = v
		}
		if out["w"], err = ref.FromFloat32s("w", bir.Float32, []int64{128, 8}, w); err != nil {
			return nil, nil, err
		}
	}
	return out, nil, nil
}
