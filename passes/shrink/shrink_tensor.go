// shrinkTensor (seed 004 §3.4): the set-level analyzer of shrink_ml. For
// each SB/PSUM block tensor it derives, from the blocks its accesses
// reach (after full_unroll: the tensor id of each per-block location an
// access names; before: the block index of each symbolic access, at every
// iteration of its loops) and the order in which they are reached, how
// many blocks are live at once, and records
//
//	MemoryLocationSet::setShrinkDim(dim); MemoryLocationSet::setLiveN(n)
//
// with the same conventions as SBSizeLegalization's shrink_tensor (seed
// 000; both use footprint.BlockLiveness): liveN = nBlocks / (nBlocks /
// live), never below the blocks actually live; the shrink dim is the
// outermost free dim of the block shape (narwhal's Shape is one block's
// shape, and a set's blocks stack along the free bytes of its
// partitions). The seed does not trace the shrink-dim heuristic (it lives
// in libBIR, [GAP]); this is narwhal's choice, documented in both passes.
//
// Run after vn_splitter, the record reflects the blocks still reached
// through the tensor: a block whose location vn_splitter carved into
// _VN_ pieces belongs to new tensors and no longer counts. A tensor whose
// liveness is unknown loses any stale record.
package shrink

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/footprint"
)

// shrinkTensor is shrinkTensor(bir::Function&). The liveN rule, the shrink
// dim and the on-chip test are shrink_tensor's own (footprint.LiveNFor,
// footprint.ShrinkDimOf, footprint.OnChip), so the two records always agree.
func shrinkTensor(f *bir.Function, maxSteps int64, st *Stats, log func(string, ...any)) {
	live := footprint.BlockLiveness(f, maxSteps)
	for t := range live {
		r := live[t]
		if r.NBlocks == 0 {
			continue
		}
		ts := f.Tensor(bir.TensorID(t))
		if !footprint.OnChip(f, ts) {
			continue
		}
		liveN, _ := footprint.LiveNFor(r.NBlocks, r.MaxLive)
		if liveN == 0 {
			if ts.LiveN != 0 && log != nil {
				why := r.Why
				if why == "" {
					why = "no block is accessed"
				}
				log("shrinkTensor: %s: record dropped: %s", ts.Name, why)
			}
			ts.LiveN, ts.ShrinkDim = 0, 0
			continue
		}
		ts.LiveN = liveN
		ts.ShrinkDim = footprint.ShrinkDimOf(ts)
		st.SetsRecorded++
		if ts.LiveN < r.NBlocks {
			st.SetsShrunk++
		}
		if log != nil {
			log("shrinkTensor: %s: %d blocks, %d live at once: shrinkDim %d, liveN %d", ts.Name, r.NBlocks, r.MaxLive, ts.ShrinkDim, ts.LiveN)
		}
	}
}
