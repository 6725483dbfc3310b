package main

// The footprint passes (sb_size_legalization, full_unroll's cut,
// vn_splitter, shrink_ml) as a user sees them: `narwhal compile --report`
// on a kernel where both kinds of split happen, and the one-line error of
// a kernel that cannot fit.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// footprintKernel holds two oversized SBUF tensors: big (128 partitions x
// 300 KiB, filled slice by slice in a loop) which sb_size_legalization
// must force-unroll and mark and FullUnroll cut into 16 slices, and wide
// (256 partitions, written and read in two disjoint halves) which
// vn_splitter carves into wide_VN_0 and wide_VN_1.
const footprintKernel = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 76800] kind=Input
    loc %x: Input 128x307200
  tensor %z_set: f32[128, 76800] kind=Output
    loc %z: Output 128x307200
  tensor %big_set: f32[128, 16, 4800] class=NeuronSBTensor
    loc %big: SB 128x307200
  tensor %u_set: f32[256, 64] kind=Input
    loc %u: Input 256x256
  tensor %v_set: f32[256, 64] kind=Output
    loc %v: Output 256x256
  tensor %wide_set: f32[256, 64] class=NeuronSBTensor
    loc %wide: SB 256x256

Block1:
  loop_i = Loop i in [0, 16) {
  Block_i:
    ld = Load %x_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32 -> %big_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32
    scale = TensorScalar on DVE %big_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32 -> %big_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32 {op0="mult", const0=2.0, reverse0=false, op1="bypass", const1=0.0, reverse1=false}
    st = Save %big_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32 -> %z_set[block=0, offset=4800*i, ap=[[76800,128],[1,4800]]] f32
  }
  ld0 = Load %u[ap=[[64,128],[1,64]]] f32 -> %wide[ap=[[64,128],[1,64]]] f32
  ld1 = Load %u[offset=8192, ap=[[64,128],[1,64]]] f32 -> %wide[offset=8192, ap=[[64,128],[1,64]]] f32
  s0 = TensorScalar on DVE %wide[ap=[[64,128],[1,64]]] f32 -> %wide[ap=[[64,128],[1,64]]] f32 {op0="add", const0=1.0, reverse0=false, op1="bypass", const1=0.0, reverse1=false}
  s1 = TensorScalar on DVE %wide[offset=8192, ap=[[64,128],[1,64]]] f32 -> %wide[offset=8192, ap=[[64,128],[1,64]]] f32 {op0="mult", const0=3.0, reverse0=false, op1="bypass", const1=0.0, reverse1=false}
  st0 = Save %wide[ap=[[64,128],[1,64]]] f32 -> %v[ap=[[64,128],[1,64]]] f32
  st1 = Save %wide[offset=8192, ap=[[64,128],[1,64]]] f32 -> %v[offset=8192, ap=[[64,128],[1,64]]] f32
}
`

func TestCompile_FootprintReport(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "footprint.bir")
	if err := os.WriteFile(in, []byte(footprintKernel), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.bir")
	code, stdout, stderr := narwhal(t, "compile", in, "--report", "-o", out)
	if code != 0 {
		t.Fatalf("compile: exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"[sb_size_legalization]\n" +
			"  backend::CanSplitSbNodesCount = 1\n" +
			"  backend::ShrunkNodesCount = 0\n" +
			"  backend::TotalSplitSbNodesCount = 1\n" +
			"  sb_size_legalization.force_rounds = 1\n" +
			"  sb_size_legalization.loops_forced = 1\n" +
			"  sb_size_legalization.left_to_vn_splitter = 1\n" +
			"sb_size_legalization: SB Legalization Statistic:\n" +
			" Total trip count unrolled: 16\n" +
			" Number of memory location split: 1\n" +
			" Number of sub memory location created due to unroll: 16\n" +
			" Total size of memory location split (in bytes): 39321600\n" +
			" Total number of illegal memory locations : 0 (0.00% of 2 SB/PSUM memory locations)\n",
		"  backend::VNSplitterDeadNodesCount = 1\n",
		"INFO (VNSplitter): Split 1 nodes (of 17 analyzed) into 2 pieces.\n",
		"(SplitSB) total_sb_nodes = 17, can_sb_nodes = 1, total dead nodes = 1, vn_limit = 1048576, foldIntoPredecessor = true\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	compiled, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(compiled)
	for _, want := range []string{"loc %big_split0: SB 128x19200", "loc %big_split15: SB 128x19200", "loc %wide_VN_0: SB 128x256", "loc %wide_VN_1: SB 128x256"} {
		if !strings.Contains(text, want) {
			t.Errorf("the compiled module lacks %q", want)
		}
	}
	for _, gone := range []string{"loc %big:", "loc %wide:"} {
		if strings.Contains(text, gone) {
			t.Errorf("the compiled module still has %q", gone)
		}
	}
	// The compiled kernel computes what the source does, bit for bit, on
	// the same seeded inputs.
	outs := [2]string{filepath.Join(dir, "before"), filepath.Join(dir, "after")}
	for k, file := range []string{in, out} {
		if code, _, stderr := narwhal(t, "run", file, "--seed", "7", "--outputs", outs[k]); code != 0 {
			t.Fatalf("run %s: exit %d: %s", file, code, stderr)
		}
	}
	for _, name := range []string{"z.npy", "v.npy"} {
		a, err := os.ReadFile(filepath.Join(outs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(outs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs after compilation", name)
		}
	}
}

// TestCompile_FootprintUnfittable: a tensor of 60013 fp32 per partition
// (prime: no cut divides it; one partition group; every element touched)
// fails with exit 1 and a one-line error naming the tensor, its bytes per
// partition and the budget.
func TestCompile_FootprintUnfittable(t *testing.T) {
	const kernel = `module arch=trn2

func @main {
  tensor %x_set: f32[128, 60013] kind=Input
    loc %x: Input 128x240052
  tensor %z_set: f32[128, 60013] kind=Output
    loc %z: Output 128x240052
  tensor %huge_set: f32[128, 60013] class=NeuronSBTensor
    loc %huge: SB 128x240052

Block1:
  ld = Load %x[ap=[[60013,128],[1,60013]]] f32 -> %huge[ap=[[60013,128],[1,60013]]] f32
  st = Save %huge[ap=[[60013,128],[1,60013]]] f32 -> %z[ap=[[60013,128],[1,60013]]] f32
}
`
	in := filepath.Join(t.TempDir(), "huge.bir")
	if err := os.WriteFile(in, []byte(kernel), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := narwhal(t, "compile", in, "--report")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, stderr)
	}
	if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
		t.Errorf("the error is not one line: %q", stderr)
	}
	for _, want := range []string{"pass sb_size_legalization", "tensor huge_set", "240064 bytes per partition", "want <= 212992"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the error lacks %q: %s", want, stderr)
		}
	}
	if !strings.Contains(stdout, " Total number of illegal memory locations : 1 (100.00% of 1 SB/PSUM memory locations)") {
		t.Errorf("the report does not count the illegal location:\n%s", stdout)
	}
}
