package unroll

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// Translation validation: every built-in kernel computes bit-identical
// outputs before and after each unroller (passtest verifies before and
// after and runs the interpreter on the same inputs).

func TestUnrollPass_Kernels(t *testing.T) {
	passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
		passtest.CheckPass(t, m, &UnrollPass, passtest.Stage(verify.StageUnrolled))
		if n := countLoops(m); n != 0 {
			t.Errorf("%d loops remain after unroll", n)
		}
	})
}

func TestFullUnrollPass_Kernels(t *testing.T) {
	for _, level := range []int{0, 1, 2} {
		p := FullUnrollPassAt(level)
		t.Run("level"+string(rune('0'+level)), func(t *testing.T) {
			passtest.ForEachKernel(t, func(t *testing.T, name string, m *bir.Module) {
				if level == 1 {
					// Level 1 unrolls what is marked: mark main whole.
					m.Main().AddAttribute("need_unroll")
				}
				passtest.CheckPass(t, m, &p)
				loops := countLoops(m)
				switch level {
				case 0:
					for _, f := range m.Funcs {
						for tid := 0; tid < f.NumTensors(); tid++ {
							ts := f.Tensor(bir.TensorID(tid))
							if !ts.Dead && ts.IsBlock && int64(len(ts.Locs)) != max(ts.NBlocks, 1) {
								t.Errorf("tensor %s: %d locations for %d blocks after level 0", ts.Name, len(ts.Locs), ts.NBlocks)
							}
						}
					}
				case 1, 2:
					if loops != 0 {
						t.Errorf("%d loops remain after level %d", loops, level)
					}
				}
				if level == 2 {
					for _, f := range m.Funcs {
						if f.NumDeps() != 0 {
							t.Errorf("function %s: %d dependencies remain after level 2", f.Name, f.NumDeps())
						}
					}
				}
			})
		})
	}
}

func countLoops(m *bir.Module) int {
	n := 0
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			if f.Inst(i).Op.IsLoop() {
				n++
			}
			return true
		})
	}
	return n
}
