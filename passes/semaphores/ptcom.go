package semaphores

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/stream"
)

// # insert_ptcom_flat
//
// What it does (seed 002 §6.5, InsertPTCOMFlat: "for multi-core (LNC >
// 1), insert a point-to-point completion after the last write to an output
// tensor": insertPTCOMs, extendLastWrites, findCBOnCore0). In a module
// whose kernel runs on several cores (bir.OptionLNC > 1), for every output
// tensor of every straight-line function:
//
//  1. extendLastWrites: the last writes to the output are not one
//     instruction but every write to it that no later write to it depends
//     on (writes to disjoint tiles, on different DMA queues, complete in
//     any order: each may be the last to land);
//  2. insertPTCOMs: an EventSemaphore on the Sync engine (attribute
//     "ptcom" = the output's name) that depends (ORDERED) on each of
//     those writes: once alloc_semaphores has given it its waits, it
//     completes only after every last write has landed: the point-to-point
//     completion of that output;
//  3. findCBOnCore0: the CoreBarrier that closes the kernel (the final one
//     insert_core_barrier's insertCoreBarrierOnIO placed after the last
//     writes; every core has it, with the same id, and on core 0 it is
//     the one the kernel's completion waits for) gets an ORDERED
//     dependency on each PTCOM, and the PTCOMs are placed right before it,
//     so the barrier tells every core that this core's outputs are
//     complete.
//
// Without a closing CoreBarrier (a kernel that writes no shared tensor),
// the PTCOMs go at the end of the function. Each PTCOM takes the source
// position of the output's last write in program order.
//
// Pre: the dependencies of anti_dependency_analyzer (the PTCOM's and the
// barrier's new ones are added to them); before scheduling. Post: one
// PTCOM per written output, ordered after its last writes and before the
// closing barrier.

// PTCOMAttr is the attribute naming the output a PTCOM completes.
const PTCOMAttr = "ptcom"

// InsertPTCOMFlatPass is the pass table entry.
var InsertPTCOMFlatPass = pass.Pass{
	Name:    "insert_ptcom_flat",
	Default: true,
	Doc:     "a point-to-point completion after the last writes of each output of a multi-core kernel (seed 002 §6.5 InsertPTCOMFlat)",
	Run: func(ctx *pass.Context) error {
		if ctx.Module.LNC() <= 1 {
			return nil
		}
		var n int64
		for _, f := range ctx.Module.FuncsMainFirst() {
			if hasLoops(f) {
				continue
			}
			n += InsertPTCOMFlat(f)
		}
		ctx.Count("ptcoms", n)
		return nil
	},
}

// InsertPTCOMFlat inserts f's PTCOMs (see the pass comment) and returns
// how many.
func InsertPTCOMFlat(f *bir.Function) int64 {
	outputs := outputTensors(f)
	if len(outputs) == 0 {
		return 0
	}
	var order []bir.InstID
	pos := make([]int32, f.NumInstSlots())
	f.Walk(func(i bir.InstID) bool {
		pos[i] = int32(len(order))
		order = append(order, i)
		return true
	})
	cb := findCBOnCore0(f, order)
	var lasts [][]bir.InstID
	var outs []bir.TensorID
	for _, t := range outputs {
		if last := extendLastWrites(f, order, t); len(last) > 0 {
			lasts = append(lasts, last)
			outs = append(outs, t)
		}
	}
	return insertPTCOMs(f, outs, lasts, cb, pos)
}

// insertPTCOMs adds one PTCOM per output outs[k], depending on its last
// writes lasts[k], before the closing barrier cb (NoInst: at the end),
// which depends on each; pos gives program positions.
func insertPTCOMs(f *bir.Function, outs []bir.TensorID, lasts [][]bir.InstID, cb bir.InstID, pos []int32) int64 {
	if len(outs) == 0 {
		return 0
	}
	taken := takenNames(f)
	var ptcoms []bir.InstID
	for k, t := range outs {
		last := lasts[k]
		p := f.NewInst(bir.OpEventSemaphore, taken.unique("ptcom_"+f.Tensor(t).Name), bir.EngSP, nil, nil,
			bir.AttrSet{}.With(PTCOMAttr, bir.String(f.Tensor(t).Name)))
		latest := last[0]
		for _, w := range last {
			f.AddDep(p, bir.Dep{On: w, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
			if pos[w] > pos[latest] {
				latest = w
			}
		}
		f.InheritPos(p, latest)
		if cb != bir.NoInst {
			f.AddDep(cb, bir.Dep{On: p, Kind: bir.DepOrdered, CarryAxis: bir.NoAxis})
		}
		ptcoms = append(ptcoms, p)
	}
	// Place the PTCOMs right before the closing barrier, or at the end.
	blk := f.Top[len(f.Top)-1]
	at := len(f.Block(blk).Insts)
	if cb != bir.NoInst {
		blk = f.Inst(cb).Block
		at = slices.Index(f.Block(blk).Insts, cb)
	}
	list := slices.Clone(f.Block(blk).Insts)
	list = slices.Insert(list, at, ptcoms...)
	f.ReplaceBlockInsts(blk, list)
	return int64(len(ptcoms))
}

// outputTensors lists f's output tensors, in declaration order.
func outputTensors(f *bir.Function) []bir.TensorID {
	var out []bir.TensorID
	for t := 0; t < f.NumTensors(); t++ {
		ts := f.Tensor(bir.TensorID(t))
		if ts.Dead {
			continue
		}
		is := ts.Kind.IsOutput()
		for _, l := range ts.Locs {
			if f.Loc(l).Type == bir.MemOutput {
				is = true
			}
		}
		if is {
			out = append(out, bir.TensorID(t))
		}
	}
	return out
}

// extendLastWrites returns the writes to tensor t that no later write to
// t depends on (directly: the dependency analysis links two writes to
// overlapping bytes by an OUTPUT edge, and reads in between by FLOW and
// ANTI edges, which a later write of the same bytes also depends on).
func extendLastWrites(f *bir.Function, order []bir.InstID, t bir.TensorID) []bir.InstID {
	writes := func(i bir.InstID) bool {
		for _, o := range f.Outs(i) {
			if o.Kind == bir.OpdPhysAP && int(o.Loc()) < f.NumLocs() && f.Loc(o.Loc()).Tensor == t {
				return true
			}
		}
		return false
	}
	superseded := map[bir.InstID]bool{}
	var ws []bir.InstID
	for _, i := range order {
		if !writes(i) {
			continue
		}
		ws = append(ws, i)
		for d := f.Inst(i).Deps; d >= 0; {
			dep, next, ok := f.DepRecord(d)
			if !ok {
				break
			}
			d = next
			if writes(dep.On) {
				superseded[dep.On] = true
			}
		}
	}
	var last []bir.InstID
	for _, w := range ws {
		if !superseded[w] {
			last = append(last, w)
		}
	}
	return last
}

// findCBOnCore0 returns the CoreBarrier that closes the kernel: the last
// one in program order, when nothing but synchronization follows it
// (NoInst otherwise).
func findCBOnCore0(f *bir.Function, order []bir.InstID) bir.InstID {
	for k := len(order) - 1; k >= 0; k-- {
		i := order[k]
		in := f.Inst(i)
		if in.Op == bir.OpCoreBarrier {
			if _, ok := f.Attrs(i).Get(stream.AttrBarrierID); ok {
				return i
			}
		}
		if !in.Op.Info().Has(bir.FlagSync) {
			return bir.NoInst
		}
	}
	return bir.NoInst
}
