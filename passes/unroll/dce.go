// Dead-code elimination of FullUnroll (seed 003: "dce(M)" after the unroll
// at levels 1 and 2, and after memloc generation at level 0).
//
// The seed names the step but not its rule; narwhal's is:
//
//	An instruction is dead when it is a pure data instruction and nothing
//	observes what it writes:
//	  - pure: a loop-free, known opcode that moves or computes data
//	    (OpInfo flags MovesData or Computes) and is not a control, sync,
//	    call, collective, register, descriptor or symbolic opcode, nor one
//	    whose semantics narwhal keeps verbatim; it uses no engine
//	    accumulator (bir.InstAccumulator: an accumulating Activation and
//	    every Vector accumulator instruction also update engine state);
//	  - it has at least one destination, and every destination is an access
//	    pattern (physical, symbolic or register) on a tensor that is not
//	    observable: internal kind, not volatile, no location of memory type
//	    Input, Output, RNGSTATE or REG, and no partial-output mark;
//	  - no live instruction reads any of its destination tensors through a
//	    source operand.
//
// Liveness is at tensor granularity (a tensor read anywhere keeps all its
// writers) and flow-insensitive, so the result does not depend on program
// order and is the same before and after unrolling; removal cascades (a
// dead instruction's sources may lose their last reader). Distinct tensors
// are assumed not to alias. Dependencies that pointed to a removed
// instruction are dropped.
//
// Cost: linear in operands; removed instructions leave their blocks by
// rebuilding each affected block once.
package unroll

import (
	"github.com/narwhal-compiler/narwhal/bir"
)

const (
	opUnknown int8 = iota
	opPure
	opImpure
)

// dceInfo classifies instructions and tensors of one function.
type dceInfo struct {
	f          *bir.Function
	opClass    map[bir.Opcode]int8
	observable []bool
	idleAttrs  map[opAttr]bool
}

func newDCEInfo(f *bir.Function) *dceInfo {
	d := &dceInfo{f: f, opClass: map[bir.Opcode]int8{}, idleAttrs: map[opAttr]bool{}}
	n := f.NumTensors()
	d.observable = make([]bool, n)
	for t := 0; t < n; t++ {
		ts := f.Tensor(bir.TensorID(t))
		obs := ts.Kind != bir.KindInternal || ts.Volatile
		for _, l := range ts.Locs {
			lc := f.Loc(l)
			switch lc.Type {
			case bir.MemInput, bir.MemOutput, bir.MemRNGState, bir.MemReg:
				obs = true
			}
			if lc.OutputKind != 0 {
				obs = true
			}
		}
		d.observable[t] = obs
	}
	return d
}

func (d *dceInfo) pureOp(op bir.Opcode) bool {
	c, ok := d.opClass[op]
	if !ok {
		c = opImpure
		if op.Known() && !op.IsLoop() {
			info := op.Info()
			if info.Flags&(bir.FlagMovesData|bir.FlagComputes) != 0 &&
				info.Flags&(bir.FlagControl|bir.FlagSync|bir.FlagCall|bir.FlagCollective|bir.FlagRegister|bir.FlagDescriptor|bir.FlagSymbolic|bir.FlagNoSemantics) == 0 {
				c = opPure
			}
		}
		d.opClass[op] = c
	}
	return c == opPure
}

// opAttr keys idle's cache: whether an instruction uses an engine
// accumulator depends on its opcode and its attributes.
type opAttr struct {
	op bir.Opcode
	id bir.AttrID
}

// idle reports whether an instruction of opcode op with attributes a
// leaves every engine accumulator alone (bir.InstAccumulator): an
// accumulating Activation, and every Vector accumulator instruction even
// with reduce command Idle, updates engine state and is never dead.
func (d *dceInfo) idle(op bir.Opcode, a bir.AttrID) bool {
	k := opAttr{op, a}
	v, ok := d.idleAttrs[k]
	if !ok {
		v = bir.InstAccumulator(op, d.f.Module().Attrs(a)) == bir.NoAccumulator
		d.idleAttrs[k] = v
	}
	return v
}

// tensorOf returns the tensor an AP operand addresses, or -1.
func (d *dceInfo) tensorOf(o bir.Operand) bir.TensorID {
	f := d.f
	switch o.Kind {
	case bir.OpdPhysAP:
		if o.Ref >= 0 && int(o.Ref) < f.NumLocs() {
			return f.Loc(o.Loc()).Tensor
		}
	case bir.OpdSymAP, bir.OpdRegAP:
		if o.Ref >= 0 && int(o.Ref) < f.NumTensors() {
			return o.TensorRef()
		}
	}
	return -1
}

// candidate reports whether instruction i is removable when its
// destinations are unread (the "pure" part of the rule).
func (d *dceInfo) candidate(i bir.InstID) bool {
	f := d.f
	in := f.Inst(i)
	if in.Dead() || !d.pureOp(in.Op) || !d.idle(in.Op, in.Attrs) {
		return false
	}
	outs := f.Outs(i)
	if len(outs) == 0 {
		return false
	}
	for _, o := range outs {
		t := d.tensorOf(o)
		if t < 0 || d.observable[t] {
			return false
		}
	}
	for _, o := range f.Ins(i) {
		if o.Kind == bir.OpdRegister {
			return false
		}
	}
	return true
}

// DCE removes the dead instructions of f (see the file comment) and returns
// how many it removed.
func DCE(f *bir.Function) int {
	d := newDCEInfo(f)
	nt := f.NumTensors()
	readers := make([]int32, nt)
	// Writers in CSR form.
	wstart := make([]int32, nt+1)
	var live []bir.InstID
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsLoop() {
			return true
		}
		live = append(live, i)
		for _, o := range f.Ins(i) {
			if t := d.tensorOf(o); t >= 0 {
				readers[t]++
			}
		}
		for _, o := range f.Outs(i) {
			if t := d.tensorOf(o); t >= 0 {
				wstart[t+1]++
			}
		}
		return true
	})
	for t := 1; t <= nt; t++ {
		wstart[t] += wstart[t-1]
	}
	writers := make([]bir.InstID, wstart[nt])
	fill := append([]int32(nil), wstart[:nt]...)
	for _, i := range live {
		for _, o := range f.Outs(i) {
			if t := d.tensorOf(o); t >= 0 {
				writers[fill[t]] = i
				fill[t]++
			}
		}
	}
	removed := make([]bool, f.NumInstSlots())
	nremoved := 0
	var work []bir.TensorID
	for t := 0; t < nt; t++ {
		if readers[t] == 0 && !d.observable[t] && wstart[t+1] > wstart[t] {
			work = append(work, bir.TensorID(t))
		}
	}
	for len(work) > 0 {
		t := work[len(work)-1]
		work = work[:len(work)-1]
		for _, i := range writers[wstart[t]:wstart[t+1]] {
			if removed[i] || !d.candidate(i) {
				continue
			}
			dead := true
			for _, o := range f.Outs(i) {
				if readers[d.tensorOf(o)] != 0 {
					dead = false
					break
				}
			}
			if !dead {
				continue
			}
			removed[i] = true
			nremoved++
			for _, o := range f.Ins(i) {
				if s := d.tensorOf(o); s >= 0 {
					readers[s]--
					if readers[s] == 0 && !d.observable[s] {
						work = append(work, s)
					}
				}
			}
		}
	}
	if nremoved == 0 {
		return 0
	}
	// Rebuild the blocks that lost instructions.
	var blocks []bir.BlockID
	seen := make([]bool, f.NumBlocks())
	for i, r := range removed {
		if !r {
			continue
		}
		b := f.Inst(bir.InstID(i)).Block
		if !seen[b] {
			seen[b] = true
			blocks = append(blocks, b)
		}
	}
	for _, b := range blocks {
		old := f.Block(b).Insts
		list := make([]bir.InstID, 0, len(old))
		for _, i := range old {
			if !removed[i] {
				list = append(list, i)
			}
		}
		f.ReplaceBlockInsts(b, list)
	}
	// Drop dependencies on removed instructions.
	f.Walk(func(i bir.InstID) bool {
		if !f.HasDeps(i) {
			return true
		}
		stale := false
		for k := f.Inst(i).Deps; k >= 0; {
			dp, next, ok := f.DepRecord(k)
			if !ok {
				break
			}
			if dp.On >= 0 && int(dp.On) < len(removed) && removed[dp.On] {
				stale = true
				break
			}
			k = next
		}
		if stale {
			deps := f.Deps(i)
			f.ClearDeps(i)
			for _, dp := range deps {
				if dp.On < 0 || int(dp.On) >= len(removed) || !removed[dp.On] {
					f.AddDep(i, dp)
				}
			}
		}
		return true
	})
	return nremoved
}

// removableFunc returns the dce-candidate test for projections (an
// instruction that dce may remove is not counted in the lower bound).
func removableFunc(f *bir.Function) func(bir.InstID) bool {
	d := newDCEInfo(f)
	return d.candidate
}
