package semaphores

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/stream"
)

// # insert_core_barrier
//
// What it does (seed 002 §6.5: InsertCoreBarrier, "Insert corebarrier if
// there are raw, war, and waw dependencies cross loopnests", and
// insertCoreBarrierOnIO, "InsertCoreBarrier -- Insert Corebarrier on
// shared HBM tensors"). In a module whose kernel runs on several logical
// cores (bir.OptionLNC > 1: an LNC kernel, each core compiled from its own
// body), the cores share the kernel's HBM tensors (its inputs and
// outputs), and what one core writes there another may read or write: a
// CoreBarrier (every listed core waits until all have reached the barrier
// of the same id; NKI core_barrier) orders them. For every straight-line
// function, walking the program in order and keeping, per shared tensor,
// whether it was read and written since the last barrier:
//
//   - RAW: an instruction that reads a shared tensor written since the
//     last barrier gets a CoreBarrier before it;
//   - WAR: one that writes a shared tensor read since the last barrier;
//   - WAW: one that writes bytes of a shared tensor this core wrote since
//     the last barrier;
//   - insertCoreBarrierOnIO: after the last access, a final CoreBarrier
//     when a shared tensor was written since the last one, so that no core
//     ends before every core's writes to the shared outputs.
//
// A CoreBarrier runs on GpSimd (NKI core_barrier's default engine), lists
// every core (cores = [0 .. LNC-1]), takes the next id (the same sequence
// on every core: the cores run the same structure), and the source
// position of the instruction it precedes. The pass runs before the
// dependency analysis, which orders a barrier after everything before it
// and before everything after it (depgraph's barrier rule), so the
// scheduler times it and alloc_semaphores makes it an all-engine barrier
// of its core: every engine's earlier work completes before it, every
// engine's later work waits for it.
//
// Decisions where the seed is silent. The seed's loop nests do not survive
// FullUnroll level 2 (the default pipeline's), so "cross loopnests"
// becomes "since the last barrier"; a multi-core kernel that keeps loops
// is refused (NW410). The other cores' accesses are not in
// this core's program, so RAW and WAR are decided per tensor (any bytes:
// another core may touch any part), and WAW only where this core rewrites
// its own bytes: in an LNC kernel each core writes its own part of a
// shared output (NKI core_barrier's use case: "two NeuronCores both need
// to write to disjoint portions of a shared HBM tensor"), so disjoint
// writes of one phase need no barrier.
//
// Pre: straight-line code, after allocation. Post: the barriers are in
// place (no dependency yet: anti_dependency_analyzer computes them).

// InsertCoreBarrierPass is the pass table entry.
var InsertCoreBarrierPass = pass.Pass{
	Name:    "insert_core_barrier",
	Default: true,
	Doc:     "CoreBarriers of multi-core kernels: RAW/WAR/WAW on shared HBM tensors, and after the last write to them (seed 002 §6.5 InsertCoreBarrier, insertCoreBarrierOnIO)",
	Run: func(ctx *pass.Context) error {
		n := ctx.Module.LNC()
		if n <= 1 {
			return nil
		}
		var total int64
		id := int64(0)
		for _, f := range ctx.Module.FuncsMainFirst() {
			if hasLoops(f) {
				// The CoreBarriers of a multi-core kernel are placed on
				// straight-line code; a loop's would be per iteration.
				return diag.Errorf(diag.LoopNotHandled, "function %s keeps loops in a %d-core kernel: narwhal places CoreBarriers on straight-line code only (unroll it: --option full_unroll.unrollLevel=2)", f.Name, n)
			}
			k, err := InsertCoreBarrier(f, n, &id)
			if err != nil {
				return err
			}
			total += k
		}
		ctx.Count("core_barriers", total)
		return nil
	},
}

// InsertCoreBarrier inserts f's CoreBarriers for a kernel on lnc cores
// (see the pass comment), numbering them from *id; it returns how many.
func InsertCoreBarrier(f *bir.Function, lnc int, id *int64) (int64, error) {
	shared := sharedTensors(f)
	if len(shared) == 0 {
		return 0, nil
	}
	cores := make([]int64, lnc)
	for c := range cores {
		cores[c] = int64(c)
	}
	type state struct {
		read, written bool
		runs          [][2]int64 // bytes written since the last barrier
	}
	st := map[bir.TensorID]*state{}
	reset := func() { clear(st) }
	var n int64
	taken := takenNames(f)
	newBarrier := func(origin bir.InstID) bir.InstID {
		attrs := bir.AttrSet{}.With(stream.AttrBarrierID, bir.Int(*id)).With(stream.AttrCores, bir.Ints(cores...))
		b := f.NewInst(bir.OpCoreBarrier, taken.unique(fmt.Sprintf("core_barrier%d", *id)), bir.EngPool, nil, nil, attrs)
		f.InheritPos(b, origin)
		*id++
		n++
		return b
	}
	var lastAny bir.InstID = bir.NoInst
	for _, blk := range f.Top {
		old := f.Block(blk).Insts
		list := make([]bir.InstID, 0, len(old)+2)
		for _, x := range old {
			lastAny = x
			nIns := int(f.Inst(x).NIns)
			need := false
			accs := sharedAccesses(f, x, shared, nIns)
			for _, a := range accs {
				s := st[a.t]
				if s == nil {
					continue
				}
				switch {
				case !a.write && s.written:
					need = true // RAW
				case a.write && s.read:
					need = true // WAR
				case a.write && overlaps(s.runs, a.lo, a.hi):
					need = true // WAW on this core's own bytes
				}
			}
			if need {
				list = append(list, newBarrier(x))
				reset()
			}
			for _, a := range accs {
				s := st[a.t]
				if s == nil {
					s = &state{}
					st[a.t] = s
				}
				if a.write {
					s.written = true
					s.runs = append(s.runs, [2]int64{a.lo, a.hi})
				} else {
					s.read = true
				}
			}
			list = append(list, x)
		}
		f.ReplaceBlockInsts(blk, list)
	}
	written := false
	for _, s := range st {
		written = written || s.written
	}
	if written {
		insertCoreBarrierOnIO(f, newBarrier(lastAny))
	}
	return n, nil
}

// insertCoreBarrierOnIO places barrier b after the last instruction of f:
// the shared tensors were written since the last barrier, and no core may
// end before every core's writes to them.
func insertCoreBarrierOnIO(f *bir.Function, b bir.InstID) {
	if len(f.Top) > 0 {
		f.Append(f.Top[len(f.Top)-1], b)
	}
}

func overlaps(runs [][2]int64, lo, hi int64) bool {
	for _, r := range runs {
		if r[0] < hi && lo < r[1] {
			return true
		}
	}
	return false
}

// sharedTensors returns f's tensors in HBM that the cores share: the
// kernel's inputs and outputs.
func sharedTensors(f *bir.Function) map[bir.TensorID]bool {
	out := map[bir.TensorID]bool{}
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		shared := ts.Kind.IsInput() || ts.Kind.IsOutput()
		for _, l := range ts.Locs {
			if ty := f.Loc(l).Type; ty == bir.MemInput || ty == bir.MemOutput {
				shared = true
			}
		}
		if shared {
			out[bir.TensorID(t)] = true
		}
	}
	return out
}

// sharedAccess is one access of an instruction to a shared tensor: the
// byte range of its location it may touch (the whole location for a
// pattern whose extent is unknown).
type sharedAccess struct {
	t      bir.TensorID
	write  bool
	lo, hi int64
}

// sharedAccesses lists instruction x's accesses to shared tensors.
func sharedAccesses(f *bir.Function, x bir.InstID, shared map[bir.TensorID]bool, nIns int) []sharedAccess {
	var out []sharedAccess
	m := f.Module()
	for k, o := range f.Operands(x) {
		if o.Kind != bir.OpdPhysAP || int(o.Loc()) >= f.NumLocs() {
			continue
		}
		loc := f.Loc(o.Loc())
		if !shared[loc.Tensor] {
			continue
		}
		lo, hi := int64(0), loc.TotalBytes()
		ds := o.Dtype.Size()
		if mn, mx, ok := patternExtent(m.Pattern(o.Pattern), o.Offset); ok && ds > 0 {
			lo, hi = mn*ds, (mx+1)*ds
		}
		out = append(out, sharedAccess{t: loc.Tensor, write: k >= nIns, lo: lo, hi: hi})
	}
	return out
}

// patternExtent returns the smallest and largest element index an access
// pattern names.
func patternExtent(p bir.Pattern, offset int64) (mn, mx int64, ok bool) {
	mn, mx = offset, offset
	for _, q := range p {
		if q.Num <= 0 {
			return 0, 0, false
		}
		span := q.Step * (q.Num - 1)
		if span < 0 {
			mn += span
		} else {
			mx += span
		}
	}
	return mn, mx, true
}
