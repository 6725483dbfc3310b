package pipeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passtest"
	"github.com/narwhal-compiler/narwhal/verify"
)

// tilePositionKernel is a bf16 matmul mm, [K=64, M=32] x [64, 512], with
// tile fields tile (tile_position, tile_size), whose moving operand mv
// (mvParts partitions; the matmul reads 64 of them from partition mvRead)
// is live beside another 64-partition tile a. The SBUF holds 20000 usable
// bytes per partition, so the two 12000-byte tiles fit only side by side
// (partitions 0 and 64): the allocator chooses which goes where (a
// 128-partition mv gets room for a above it). more is added after mm (a
// second matmul).
func tilePositionKernel(mvParts, mvRead int, tile, more string) string {
	sbuf := 16384 + 20000 // the carve-out and 20000 usable bytes
	if mvParts > 64 {
		sbuf += 12000 // a 128-partition mv takes every partition: room for a above it
	}
	return fmt.Sprintf(`module arch=trn2
option arch.sbuf-bytes-per-partition = "%[5]d"

func @main {
  tensor %%xa_set: bf16[64, 6000] kind=Input
    loc %%xa: Input 64x12000
  tensor %%xm_set: bf16[%[1]d, 6000] kind=Input
    loc %%xm: Input %[1]dx12000
  tensor %%xs_set: bf16[64, 32] kind=Input
    loc %%xs: Input 64x64
  tensor %%out_set: f32[32, 512] kind=Output
    loc %%out: Output 32x2048
  tensor %%outa_set: bf16[64, 6000] kind=Output
    loc %%outa: Output 64x12000
  tensor %%a_set: bf16[64, 6000] class=NeuronSBTensor
    loc %%a: SB 64x12000
  tensor %%mv_set: bf16[%[1]d, 6000] class=NeuronSBTensor
    loc %%mv: SB %[1]dx12000
  tensor %%st_set: bf16[64, 32] class=NeuronSBTensor
    loc %%st: SB 64x64
  tensor %%ps_set: f32[32, 512]
    loc %%ps: OnChip 32x2048
  tensor %%r_set: f32[32, 512] class=NeuronSBTensor
    loc %%r: SB 32x2048

Block1:
  lda = Load %%xa[ap=[[6000,64],[1,6000]]] bf16 -> %%a[ap=[[6000,64],[1,6000]]] bf16
  ldm = Load %%xm[ap=[[6000,%[1]d],[1,6000]]] bf16 -> %%mv[ap=[[6000,%[1]d],[1,6000]]] bf16
  lds = Load %%xs[ap=[[32,64],[1,32]]] bf16 -> %%st[ap=[[32,64],[1,32]]] bf16
  mm = Matmult on PE %%st[ap=[[32,64],[1,32]]] bf16, %%mv[offset=%[2]d, ap=[[6000,64],[1,512]]] bf16 -> %%ps[ap=[[512,32],[1,512]]] f32 {start_tensor_calc=true, stop_tensor_calc=true, %[3]s}
%[4]s  cp = TensorCopy on DVE %%ps[ap=[[512,32],[1,512]]] f32 -> %%r[ap=[[512,32],[1,512]]] f32
  sv = Save %%r[ap=[[512,32],[1,512]]] f32 -> %%out[ap=[[512,32],[1,512]]] f32
  sva = Save %%a[ap=[[6000,64],[1,6000]]] bf16 -> %%outa[ap=[[6000,64],[1,6000]]] bf16
}
`, mvParts, mvRead*6000, tile, more, sbuf)
}

// TestPipeline_MatmulTilePosition: the allocator places a matmul's moving
// operand at its tile_position row (seed 000 getLegalTilePosition; the
// verifier's tile-position rule, run after every pass, is the oracle),
// through the default pipeline with translation validation. The spread
// placement put mv at partition 64 beside a (an internal error: the
// verifier rejected the allocation). Where the read starts inside mv, the
// location starts that many partitions lower. A position no placement can
// satisfy, or two matmuls asking one location for two starts, is the
// input's mistake (NW308), naming the matmul.
func TestPipeline_MatmulTilePosition(t *testing.T) {
	var stage verify.Stage
	for _, p := range Table.Passes {
		if p.Default && p.Gate == "" {
			stage |= p.Produces
		}
	}
	for _, tc := range []struct {
		name          string
		mvParts, read int
		tile          string
		loc           string
		wantBase      int64
	}{
		{"row 0", 64, 0, "tile_position=[0, 0], tile_size=[64, 64]", "mv", 0},
		{"row 64", 64, 0, "tile_position=[64, 0], tile_size=[64, 64]", "mv", 64},
		{"row 64 read from partition 64 of a 128-partition tile", 128, 64, "tile_position=[64, 0], tile_size=[64, 64]", "mv", 0},
		{"column 32: the PSUM destination", 64, 0, "tile_position=[0, 32], tile_size=[64, 32]", "ps", 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := bir.Parse("tilepos.bir", []byte(tilePositionKernel(tc.mvParts, tc.read, tc.tile, "")))
			if err != nil {
				t.Fatal(err)
			}
			passtest.Check(t, m, func(m *bir.Module) error {
				_, err := Table.Run(m, pass.Config{VerifyEach: true})
				return err
			}, passtest.Stage(stage))
			f := m.Main()
			l, _ := f.LocByName(tc.loc)
			if got := f.Loc(l).Base; got != tc.wantBase {
				t.Errorf("%s at partition %d, want %d", tc.loc, got, tc.wantBase)
			}
		})
	}
	// Two matmuls read mv at rows 0 and 64: no start serves both.
	second := "  mm2 = Matmult on PE %st[ap=[[32,64],[1,32]]] bf16, %mv[ap=[[6000,64],[1,512]]] bf16 -> %ps[ap=[[512,32],[1,512]]] f32 {start_tensor_calc=true, stop_tensor_calc=true, tile_position=[64, 0], tile_size=[64, 64]}\n"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no legal start", tilePositionKernel(128, 0, "tile_position=[64, 0], tile_size=[64, 64]", ""),
			"function main, instruction mm (Matmult): tile_position row 64: the moving source 1 (location mv, 128 partitions, read from its partition 0) must start at partition 64, so its location at partition 64: want a start the partition-start rule allows for 128 partitions (0)"},
		{"two starts", tilePositionKernel(64, 0, "tile_position=[0, 0], tile_size=[64, 64]", second),
			"function main, instruction mm2 (Matmult): tile_position row 64: the moving source 1 puts location mv at partition 64, but instruction mm's tile_position puts it at partition 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := bir.Parse("tilepos.bir", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Table.Run(m, pass.Config{VerifyEach: true})
			if err == nil || diag.CodeOf(err) != diag.MatmulLimit || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v (code %q), want %s and %q", err, diag.CodeOf(err), diag.MatmulLimit, tc.want)
			}
		})
	}
}
