// shrink_tensor (seed 000): the set-level footprint record. For every
// on-chip block tensor, count how many of its blocks are live at once
// (footprint.BlockLiveness: the loop structure executed abstractly,
// each block live from its first access to its last) and record
//
//	shrink factor = nBlocks / live     (integer division, the seed's divisor)
//	liveN         = nBlocks / shrink factor
//	setLiveN(liveN); setShrinkDim(dim)
//
// liveN is never below the blocks actually live (nBlocks / floor(nBlocks /
// live) >= live), so the allocator may give the set liveN blocks of
// storage and reuse them modulo liveN. The record changes no location:
// narwhal's FullUnroll gives each block a location of one block's size, so
// a block tensor's locations are as legal before the record as after it;
// what shrinks is the set's footprint (nBlocks x block bytes before, liveN x
// block bytes after), which the allocator sees.
//
// Who reads the record (Tensor.LiveN, Tensor.ShrinkDim; LiveN 0 means no
// record):
//
//   - force_unroll_update (force_unroll.go) reads the shrink dim, as the
//     seed's does ("from = getShrinkDim(...) / current unroll factor"):
//     the loop moving a forced access along it is forced first.
//   - shrink_ml's shrinkTensor rewrites the record after full_unroll and
//     vn_splitter (with the same rules, footprint.LiveNFor and ShrinkDimOf),
//     and its ShrinkDN reads the shrink dim: a trimmed tensor's shape
//     shrinks along it.
//   - The memory planner allocates a block tensor whose loops remain
//     (FullUnroll levels 0 and 1) as LiveN rotating blocks of one block's
//     size each, block b in slot b mod LiveN, stacked along ShrinkDim: by
//     construction no two blocks live at once share a slot. Without a
//     record it must keep every block.
//
// Decisions where the seed is silent:
//
//   - Shrink dim: narwhal's Tensor.Shape is the shape of one block; the
//     blocks of a set stack along the free bytes of its partitions, so the
//     dim recorded is the outermost free dim (the first dim other than the
//     partition dim; the partition dim for a 1-D shape).
//   - A block tensor whose liveness is unknown (a dynamic loop, a register
//     access, a template location named physically, more than
//     max_liveness_steps work) gets no record, and a stale record is
//     cleared: a wrong liveN would let the allocator overlap live blocks.
//   - ShrunkNodesCount counts the block tensors whose liveN is below their
//     block count.
package sbsize

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// shrinkTensor is shrink_tensor for one function.
func (fs *funcState) shrinkTensor() {
	f, lz := fs.f, fs.lz
	live := footprint.BlockLiveness(f, lz.opt.MaxLivenessSteps)
	for t := range live {
		r := live[t]
		if r.NBlocks == 0 {
			continue
		}
		ts := f.Tensor(bir.TensorID(t))
		if !footprint.OnChip(f, ts) {
			continue
		}
		liveN, factor := footprint.LiveNFor(r.NBlocks, r.MaxLive)
		if liveN == 0 {
			if r.Why != "" {
				lz.logf("%s: no liveN record: %s", ts.Name, r.Why)
			}
			ts.LiveN, ts.ShrinkDim = 0, 0
			continue
		}
		dim := footprint.ShrinkDimOf(ts)
		ts.LiveN, ts.ShrinkDim = liveN, dim
		lz.logf("%s tensor shape: %v partition_dim %d dimension_idx %d blocks %d alive ones %d shrink factor %d",
			ts.Name, ts.Shape, ts.PartitionDim, dim, r.NBlocks, r.MaxLive, factor)
		if liveN < r.NBlocks {
			lz.st.Shrunk++
		}
	}
}
