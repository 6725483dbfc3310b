// GenStraightLine builds large synthetic modules for benchmarks: the
// "1,000,000-instruction straight-line module" that the BIR-JSON codec, the
// text printer and the verifier measure their per-instruction costs on.
//
// The module is deliberately shaped like post-unroll BIR (design.md: modules
// reach tens of millions of instructions after FullUnroll): one function
// "main" with one block, no loops, no dependencies, a few dozen tensors, and
// a repeating mix of
//
//	Load          DRAM input tile  -> SBUF tile          (2 physical APs)
//	TensorTensor  SBUF op SBUF     -> SBUF  on DVE/Pool  (3 physical APs)
//	TensorTensor  SBUF op SBUF     -> SBUF  on DVE/Pool  (3 physical APs)
//	Save          SBUF tile        -> DRAM output tile   (2 physical APs)
//
// so 2.5 physical access patterns per instruction on average. Offsets vary
// (tiles are picked across the DRAM tensors' rows and columns and across
// half-tiles of the SBUF buffers), so the patterns and offsets are not all
// identical, but the number of distinct interned patterns and attribute sets
// stays small, as in real unrolled code. Instruction names are unique
// ("ld_<k>", "add_<k>", "mul_<k>", "st_<k>" with k the instruction index).
//
// The result is deterministic: the same n always builds the same module.
// Building it allocates nothing per instruction beyond the amortized growth
// of the function's tables and the symbol arena (the tables are reserved up
// front).
package bir

import "strconv"

// Shape of the synthetic module.
const (
	genInputs  = 8    // DRAM input tensors in_<k>  [512, 2048] fp32
	genOutputs = 8    // DRAM output tensors out_<k> [512, 2048] fp32
	genTiles   = 24   // SBUF tiles sb_<k>          [128, 512] fp32
	genRows    = 512  // DRAM rows
	genCols    = 2048 // DRAM columns (elements per row)
	genParts   = 128  // SBUF partitions
	genFree    = 512  // SBUF elements per partition
)

// GenStraightLine returns a module whose function "main" holds n
// instructions in one block: loads, tensor_tensor adds and multiplies and
// saves over a few dozen tensors, with varied offsets and unique names. It is
// meant for benchmarks (BenchmarkRead1M, BenchmarkPrint1M, BenchmarkVerify1M)
// and is well formed: every access pattern stays inside its location.
func GenStraightLine(n int) *Module {
	if n < 0 {
		n = 0
	}
	m := NewModule("gen3")
	f, _ := m.NewFunction("main")
	blk := f.NewBlock("Block1", NoInst)

	mk := func(name string, mt MemoryType, kind TensorKind, class TensorClass, shape []int64, bytes int64) LocID {
		t, err := f.AddTensor(Tensor{Name: name + "_set", Kind: kind, Class: class, Dtype: Float32, Shape: shape})
		if err != nil {
			panic("bir: GenStraightLine: " + err.Error()) // names are generated unique: unreachable
		}
		l, err := f.AddLoc(t, MemLoc{Name: name, Type: mt, Partitions: shape[0], Bytes: bytes})
		if err != nil {
			panic("bir: GenStraightLine: " + err.Error())
		}
		return l
	}
	var ins [genInputs]LocID
	var outs [genOutputs]LocID
	var tiles [genTiles]LocID
	for k := range ins {
		ins[k] = mk("in_"+strconv.Itoa(k), MemInput, KindInput, ClassTensor, []int64{genRows, genCols}, genCols*4)
	}
	for k := range outs {
		outs[k] = mk("out_"+strconv.Itoa(k), MemOutput, KindOutput, ClassTensor, []int64{genRows, genCols}, genCols*4)
	}
	for k := range tiles {
		tiles[k] = mk("sb_"+strconv.Itoa(k), MemSB, KindInternal, ClassNeuronSBTensor, []int64{genParts, genFree}, genFree*4)
	}

	// Access patterns: a [128 x 512] DRAM tile (row stride genCols), a whole
	// SBUF tile, and the two [128 x 256] halves of an SBUF tile.
	dramTile := m.InternPattern(Pattern{{genCols, genParts}, {1, genFree}})
	sbWhole := m.InternPattern(Pattern{{genFree, genParts}, {1, genFree}})
	sbHalf := m.InternPattern(Pattern{{genFree, genParts}, {1, genFree / 2}})

	dmaAttrs := m.InternAttrs(Attrs("queue", nil, "dge_type", "None", "duplicate", false, "can_read_uninit", false))
	addAttrs := m.InternAttrs(Attrs("op", "add", "acc", "Idle"))
	mulAttrs := m.InternAttrs(Attrs("op", "mult", "acc", "Idle"))

	f.Reserve(n, n*5/2+3)
	var name []byte
	var a3 [3]Operand
	for i := 0; i < n; i++ {
		g := i / 4 // group index
		// DRAM tile (row block r, column block c) and the SBUF tiles of the group.
		r, c := int64(g%(genRows/genParts)), int64((g/4)%(genCols/genFree))
		dramOff := r*genParts*genCols + c*genFree
		t0 := tiles[g%genTiles]
		t1 := tiles[(g+7)%genTiles]
		t2 := tiles[(g+13)%genTiles]
		var id InstID
		switch i % 4 {
		case 0:
			name = strconv.AppendInt(append(name[:0], "ld_"...), int64(i), 10)
			a3[0] = PhysAP(ins[g%genInputs], Float32, dramOff, dramTile)
			a3[1] = PhysAP(t0, Float32, 0, sbWhole)
			id = f.NewInstSym(OpLoad, m.NewSymBytes(name), EngUnassigned, a3[0:1], a3[1:2], dmaAttrs)
		case 1, 2:
			op, attrs, eng := "add_", addAttrs, EngDVE
			if i%4 == 2 {
				op, attrs, eng = "mul_", mulAttrs, EngPool
			}
			name = strconv.AppendInt(append(name[:0], op...), int64(i), 10)
			pat, off := sbWhole, int64(0)
			if g%3 == 1 {
				pat, off = sbHalf, int64(genFree/2)*int64(g%2)
			}
			a3[0] = PhysAP(t0, Float32, off, pat)
			a3[1] = PhysAP(t1, Float32, off, pat)
			a3[2] = PhysAP(t2, Float32, off, pat)
			id = f.NewInstSym(OpTensorTensor, m.NewSymBytes(name), eng, a3[0:2], a3[2:3], attrs)
		default:
			name = strconv.AppendInt(append(name[:0], "st_"...), int64(i), 10)
			a3[0] = PhysAP(t2, Float32, 0, sbWhole)
			a3[1] = PhysAP(outs[g%genOutputs], Float32, dramOff, dramTile)
			id = f.NewInstSym(OpSave, m.NewSymBytes(name), EngUnassigned, a3[0:1], a3[1:2], dmaAttrs)
		}
		f.Append(blk, id)
	}
	return m
}
