package pipeline

import (
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/verify"
)

// TestPipeline_EmptyFunctions: functions without instructions compile
// through the default pipeline to the synchronized stage: the entry
// function with no block at all, with one empty block, and an empty callee
// beside a kernel. The entry function's engines still end with Halt (the
// synchronized stage demands it of every engine stream; a kernel that does
// nothing still stops its engines).
func TestPipeline_EmptyFunctions(t *testing.T) {
	const kernel = `  tensor %x_set: f32[128, 512] kind=Input
    loc %x: Input 128x2048
  tensor %out_set: f32[128, 512] kind=Output
    loc %out: Output 128x2048
  tensor %t_set: f32[128, 512] class=NeuronSBTensor
    loc %t: SB 128x2048

Block1:
  ld = Load %x[ap=[[512,128],[1,512]]] f32 -> %t[ap=[[512,128],[1,512]]] f32
  st = Save %t[ap=[[512,128],[1,512]]] f32 -> %out[ap=[[512,128],[1,512]]] f32
`
	for _, tc := range []struct{ name, src string }{
		{"no block", "module arch=trn2\n\nfunc @main {\n}\n"},
		{"empty block", "module arch=trn2\n\nfunc @main {\nBlock1:\n}\n"},
		{"empty callee", "module arch=trn2\n\nfunc @main {\n" + kernel + "}\n\nfunc @helper {\n}\n"},
		{"empty callee first", "module arch=trn2\n\nfunc @helper {\n}\n\nfunc @main {\n" + kernel + "}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := bir.Parse("empty.bir", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Table.Run(m, pass.Config{VerifyEach: true}); err != nil {
				t.Fatalf("compile: %v", err)
			}
			if err := verify.Module(m, verify.Options{Stage: verify.StageSynchronized}); err != nil {
				t.Fatalf("not synchronized: %v", err)
			}
			halts := 0
			f := m.Main()
			f.Walk(func(i bir.InstID) bool {
				if f.Inst(i).Op == bir.OpHalt {
					halts++
				}
				return true
			})
			if halts == 0 {
				t.Errorf("the entry function has no Halt:\n%s", bir.Format(m))
			}
		})
	}
}
