package nki_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/interp"
	"github.com/narwhal-compiler/narwhal/nki/frontend"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// TestDynamic_RuntimeTripCounts: current/dynamic.py's dynamic_row_copy
// (an nl.dynamic_range(lo, hi, 2) over registers loaded from the bounds
// tensor, each iteration a row copy through register access patterns),
// traced and compiled once, is right for trip counts nothing at compile
// time knows: bounds (0, 64), (3, 17) and (5, 5) (32, 7 and 0 iterations)
// give y[r] = x[r] for r = lo, lo+2, ... < hi and 0 elsewhere, in the
// sequential interpreter and in the concurrent one under random and
// late-dma interleavings, race-free.
func TestDynamic_RuntimeTripCounts(t *testing.T) {
	const rows, free = 64, 8
	specs := []frontend.TensorSpec{{Name: "x", Dtype: bir.Float32, Shape: []int64{rows, free}}, {Name: "bounds", Dtype: bir.Int32, Shape: []int64{1, 2}}}
	m, _ := loadKernel(t, "current/dynamic.py", "dynamic_row_copy", specs, nil, nil, nil)
	if _, err := pipeline.Table.Run(m, pass.Config{VerifyEach: true}); err != nil {
		t.Fatal(err)
	}
	x := make([]byte, 0, rows*free*4)
	for i := range rows * free {
		x = binary.LittleEndian.AppendUint32(x, math.Float32bits(float32(i%97)+0.5))
	}
	for _, b := range [][2]int32{{0, 64}, {3, 17}, {5, 5}} {
		in := func() map[string]*interp.Tensor {
			return map[string]*interp.Tensor{
				"x":      {Name: "x", Dtype: bir.Float32, Shape: []int64{rows, free}, Data: append([]byte(nil), x...)},
				"bounds": {Name: "bounds", Dtype: bir.Int32, Shape: []int64{1, 2}, Data: binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, uint32(b[0])), uint32(b[1]))},
			}
		}
		want := make([]byte, len(x))
		trips := 0
		for r := b[0]; r < b[1]; r += 2 {
			copy(want[int(r)*free*4:int(r+1)*free*4], x[int(r)*free*4:])
			trips++
		}
		seq, err := interp.Run(m, in(), interp.Options{})
		if err != nil {
			t.Fatalf("bounds %v: %v", b, err)
		}
		check := func(what string, outs map[string]*interp.Tensor) {
			if len(outs) != 1 {
				t.Fatalf("bounds %v, %s: %d outputs, want 1", b, what, len(outs))
			}
			for name, o := range outs {
				if string(o.Data) != string(want) {
					t.Errorf("bounds %v (%d iterations), %s: output %s differs from the rows copied", b, trips, what, name)
				}
			}
		}
		check("sequential", seq)
		for _, p := range []interp.Policy{interp.PolicyRandom, interp.PolicyLateDMA} {
			res, err := interp.RunConcurrent(m, in(), interp.ConcurrentOptions{Policy: p, Seed: 3})
			if err != nil {
				t.Fatalf("bounds %v: %v", b, err)
			}
			if !res.OK() {
				t.Fatalf("bounds %v, policy %d: %d races, deadlock %v, late %v, overflows %v", b, p, res.RacesFound, res.Deadlock, res.Late, res.Overflows)
			}
			check("concurrent", res.Outputs)
		}
	}
}
