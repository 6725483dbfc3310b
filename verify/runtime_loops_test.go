package verify_test

import (
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
	"github.com/narwhal-compiler/narwhal/verify"
)

// runtimeLoadAddSrc loads x and adds it into acc once per iteration of a
// DynamicForLoop whose upper bound is a register loaded from an input.
const runtimeLoadAddSrc = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 64] kind=Input
    loc %x: Input 128x256
  tensor %n_set: i32[1, 1] kind=Input
    loc %n: Input 1x4
  tensor %b_set: i32[1, 1] class=NeuronSBTensor
    loc %b: SB 1x4
  tensor %xt_set: f32[128, 64] class=NeuronSBTensor
    loc %xt: SB 128x256
  tensor %acc_set: f32[128, 64] class=NeuronSBTensor
    loc %acc: SB 128x256
  tensor %out_set: f32[128, 64] kind=Output
    loc %out: Output 128x256
  reg $hi
Block1:
  ldn = Load %n[ap=[[1,1],[1,1]]] i32 -> %b[ap=[[1,1],[1,1]]] i32
  zero = Memset on DVE -> %acc[ap=[[64,128],[1,64]]] f32 {mode="Const", constant=0.0}
  rhi = TensorLoad %b[ap=[[1,1],[1,1]]] i32 -> $hi i32
  loop_r = DynamicForLoop r in [0, 1) 0 i32, $hi i32, 1 i32 {
  Block_r:
    ldx = Load %x[ap=[[64,128],[1,64]]] f32 -> %xt[ap=[[64,128],[1,64]]] f32
    add = TensorTensor on DVE %acc[ap=[[64,128],[1,64]]] f32, %xt[ap=[[64,128],[1,64]]] f32 -> %acc[ap=[[64,128],[1,64]]] f32 {op="add", acc="Idle"}
  }
  st = Save %acc[ap=[[64,128],[1,64]]] f32 -> %out[ap=[[64,128],[1,64]]] f32
}
`

// TestVerify_RuntimeLoops: a loop whose trip count is known only at run
// time is checked through its windows (0, 1 and 2 iterations) and the
// rules its synchronization relies on. As compiled it verifies at stage
// synchronized; a wait of its body removed is reported on the instance
// it breaks; an instruction of its body moved to another engine breaks
// the one-engine rule; a loop without a period, on the loop form.
func TestVerify_RuntimeLoops(t *testing.T) {
	compile := func(t *testing.T) (*bir.Module, *arch.Model) {
		t.Helper()
		m, err := bir.Parse("runtime.bir", []byte(runtimeLoadAddSrc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
			t.Fatal(err)
		}
		model, err := arch.ForModule(m)
		if err != nil {
			t.Fatal(err)
		}
		return m, model
	}
	byName := func(f *bir.Function, n string) bir.InstID {
		i, ok := f.InstByName(n)
		if !ok {
			t.Fatalf("no %s", n)
		}
		return i
	}
	tests := []struct {
		name  string
		stage verify.Stage
		mut   func(f *bir.Function)
		want  string // "" for none
	}{
		{"as compiled", verify.StageSynchronized, func(*bir.Function) {}, ""},
		{"a wait of the body removed", verify.StageSynchronized, func(f *bir.Function) {
			f.Sync.SetWaits(byName(f, "add"), nil)
		}, "add@r=0 (TensorTensor): depends on ldx@r=0 (FLOW)"},
		{"the body on two engines", verify.StageSynchronized, func(f *bir.Function) {
			f.Inst(byName(f, "loop_r_iv_next")).Engine = bir.EngPool
		}, "of loop loop_r (its trip count is known only at run time) issues on"},
		{"no period", verify.StageScheduled, func(f *bir.Function) { delete(f.Sched.Period, byName(f, "loop_r")) }, "known only at run time without a period"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, model := compile(t)
			tc.mut(m.Main())
			err := verify.Module(m, verify.Options{Arch: model, Stage: tc.stage})
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("verify: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("verify: %v\nwant a diagnostic containing %q", err, tc.want)
			}
		})
	}
}
