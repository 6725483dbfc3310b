package kernels

import (
	"encoding/binary"
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/kernels/ref"
)

// refEmbedding is embedding's reference: out[t, :] = table[indices[t], :],
// copying row bytes. An index outside [0, vocab) is an error naming it, as
// the hardware's default oob mode is (semantics.md §4.3). Bit-exact.
func refEmbedding(p Params, in map[string]*interp.Tensor) (map[string]*interp.Tensor, map[string]ref.Tolerance, error) {
	e, err := embeddingParams(p)
	if err != nil {
		return nil, nil, err
	}
	table, err := refTensor(in, "table", e.dt, e.V, e.D)
	if err != nil {
		return nil, nil, err
	}
	idx, err := refTensor(in, "indices", bir.Int32, e.T)
	if err != nil {
		return nil, nil, err
	}
	row := e.D * e.dt.Size()
	out := &interp.Tensor{Name: "out", Dtype: e.dt, Shape: []int64{e.T, e.D}, Data: make([]byte, e.T*row)}
	for t := int64(0); t < e.T; t++ {
		i := int64(int32(binary.LittleEndian.Uint32(idx.Data[4*t:])))
		if i < 0 || i >= e.V {
			return nil, nil, fmt.Errorf("input indices: element %d is %d, outside the table's %d rows", t, i, e.V)
		}
		copy(out.Data[t*row:(t+1)*row], table.Data[i*row:(i+1)*row])
	}
	return map[string]*interp.Tensor{"out": out}, nil, nil
}
