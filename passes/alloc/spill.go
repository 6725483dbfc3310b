// Spills: MaxLiveSpiller (SBUF to HBM) and SpillPSum (PSUM to SBUF), seed
// 002 §4.5: "SpillPSum (spillPSum, preSpillPSum, find_psum_spill_point) +
// MaxLiveSpiller spill a live PSUM tensor to SB/HBM when the 8 banks are
// exhausted"; "GPSIMD live-pressure overflow spills SBUF→HBM via
// MaxLiveSpiller". The seed names the passes, not their policy; narwhal's:
//
//   - When: straight-line code (one block, no loop, no branch) whose
//     allocation does not fit. Each round sweeps the block's positions in
//     order, keeping the live area of SBUF and of PSUM (bytes x quadrants
//     spanned; PSUM locations a Matmult writes as whole banks); at every
//     position where a memory's live area exceeds target x capacity x 4,
//     victims are taken until it does not. Then the allocator runs again;
//     a round that leaves the allocation over capacity lowers the target
//     (the packing needs room) and spills again, up to maxSpillRounds.
//   - Which (find_psum_spill_point): among the locations live at the
//     position and not accessed there, the one whose next access is
//     farthest (Belady's rule), then the larger. A location can be spilled
//     only if it is not a fixed obstacle, its tensor is not NoSpill, and it
//     was written whole (one access pattern covering every byte) before the
//     spill point, so the copy reads no byte that was never written. A
//     PSUM location can be spilled only if every later access reads it (no
//     later write or accumulation: its accumulation groups are closed).
//   - How (MaxLiveSpiller): a Save of the whole location to a new internal
//     DRAM tensor right after its last access before the position, and a
//     Load into a new SBUF location right before its next access; the
//     accesses from there on use the new location. The spill point ends
//     the old location's interval, the reload starts the new one.
//   - How (SpillPSum): a TensorCopy on the Vector engine of the whole PSUM
//     location into a new SBUF location right after its last access before
//     the position; the later readers read the copy (engines read SBUF as
//     well as PSUM), so nothing is reloaded, and the bank is free from the
//     copy on. The copy's SBUF then counts for MaxLiveSpiller.
//   - The new instructions take the source position of the access they
//     serve (the Save and the PSUM copy that of the last access before the
//     spill point, the Load that of the next access): bir's rule for
//     instructions a pass creates.
//   - The victim's tensor, its reload's and its DRAM copy's get the
//     attribute too_many_spills (seed 002 §6.3: "Spilled tensors keep
//     conservative deps: Avoided Dependency Reduction due to
//     too_many_spills attribute"): the dependency analysis keeps every
//     candidate edge of an instruction that touches one (depgraph). The
//     seed does not say when a tensor has "too many" spills; narwhal marks
//     every spilled tensor, one spill being what the planner could not
//     avoid.
//
// Reported: the spills, their bytes per partition (each victim's bytes x
// its quadrants / 4, the unit of max-live) against the lower bound
// max(0, max-live - capacity), and the DMA bytes the spills move. When no
// victim is left and the allocation still does not fit, the error lists
// the live set at the worst instant, the budget and what was tried.
package alloc

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// maxSpillRounds bounds the spill-and-allocate rounds of a function.
const maxSpillRounds = 6

// SpillStats count the spills of a module.
type SpillStats struct {
	SBSpills     int   // MaxLiveSpiller victims
	PSUMSpills   int   // SpillPSum victims
	SBBytes      int64 // bytes per partition spilled from SBUF (area / 4)
	PSUMBytes    int64 // bytes per partition moved out of PSUM
	DMABytes     int64 // bytes the spill Saves and Loads move (both ways)
	SBOutPeak    int64 // most bytes per partition out of SBUF at one instant
	PSUMOutPeak  int64 // the same for PSUM
	SBExcess     int64 // max(0, max-live - capacity) of SBUF before spilling
	PSUMExcess   int64 // the same for PSUM
	Rounds       int
	Instructions int // instructions added
}

// spill is one victim: the location, the position after which it is
// saved (u1) and the position before which it is reloaded (u2).
type spill struct {
	loc    bir.LocID
	mem    int
	u1, u2 int32
}

// spillFunc runs one round of MaxLiveSpiller and SpillPSum on f's single
// block, with the memories over (a target fraction per memory). It returns
// the number of victims.
func spillFunc(f *bir.Function, g [numMems]geometry, target [numMems]float64, st *SpillStats) (int, error) {
	blk := f.Top[0]
	insts := f.Block(blk).Insts
	n := int32(len(insts))
	pr := newPressure(f, g)
	nl := f.NumLocs()
	// Accesses per location, by position: a CSR of positions, and
	// per-location facts.
	start := make([]int32, nl+1)
	for _, i := range insts {
		for _, o := range f.Operands(i) {
			if o.Kind == bir.OpdPhysAP && pr.mem[o.Loc()] >= 0 {
				start[o.Loc()+1]++
			}
		}
	}
	for l := 1; l <= nl; l++ {
		start[l] += start[l-1]
	}
	uses := make([]int32, start[nl])
	write := make([]bool, start[nl]) // the access writes
	whole := make([]bool, start[nl]) // the access writes every byte
	fillAt := append([]int32(nil), start[:nl]...)
	md := &model{f: f}
	for p, i := range insts {
		nIn := int(f.Inst(i).NIns)
		for k, o := range f.Operands(i) {
			l := o.Loc()
			if o.Kind != bir.OpdPhysAP || pr.mem[l] < 0 {
				continue
			}
			j := fillAt[l]
			if j > start[l] && uses[j-1] == int32(p) { // one entry per position
				write[j-1] = write[j-1] || k >= nIn
				whole[j-1] = whole[j-1] || k >= nIn && md.writesWhole(&o, l)
				continue
			}
			uses[j], write[j] = int32(p), k >= nIn
			whole[j] = k >= nIn && md.writesWhole(&o, l)
			fillAt[l]++
		}
	}
	// Per position: locations that become live and die there.
	type ev struct {
		p int32
		l bir.LocID
	}
	var births, deaths []ev
	// l's accesses are uses[start[l]:fillAt[l]] (one entry per position).
	useRange := func(l bir.LocID) []int32 { return uses[start[l]:fillAt[l]] }
	for l := 0; l < nl; l++ {
		u := useRange(bir.LocID(l))
		if len(u) == 0 {
			continue
		}
		births = append(births, ev{u[0], bir.LocID(l)})
		deaths = append(deaths, ev{u[len(u)-1], bir.LocID(l)})
	}
	slices.SortFunc(births, func(a, b ev) int { return int(a.p - b.p) })
	slices.SortFunc(deaths, func(a, b ev) int { return int(a.p - b.p) })
	var limit [numMems]int64
	for k := range limit {
		limit[k] = int64(target[k] * float64(4*g[k].capacity))
	}
	var live [numMems]int64
	active := map[bir.LocID]bool{}
	var out, outPeak [numMems]int64 // area spilled out at the position, and its peak
	spilled := make([]bool, nl)
	var spills []spill
	var back []ev // victims coming back, by position
	bi, di := 0, 0
	for p := int32(0); p < n; p++ {
		for ; bi < len(births) && births[bi].p == p; bi++ {
			l := births[bi].l
			active[l] = true
			live[pr.mem[l]] += pr.area[l]
		}
		for k := 0; k < len(back); {
			if back[k].p == p {
				l := back[k].l
				live[pr.mem[l]] += pr.area[l]
				out[memSB] -= pr.area[l]
				active[l] = true
				back = slices.Delete(back, k, k+1)
				continue
			}
			k++
		}
		for mem := 0; mem < numMems; mem++ {
			for live[mem] > limit[mem] {
				v, ok := chooseVictim(f, pr, mem, p, active, spilled, useRange, write, whole, start)
				if !ok {
					break
				}
				spilled[v.loc] = true
				delete(active, v.loc)
				live[mem] -= pr.area[v.loc]
				out[mem] += pr.area[v.loc]
				outPeak[mem] = max(outPeak[mem], out[mem])
				spills = append(spills, v)
				if mem == memSB {
					back = append(back, ev{v.u2, v.loc})
				}
			}
		}
		for ; di < len(deaths) && deaths[di].p == p; di++ {
			l := deaths[di].l
			if active[l] {
				delete(active, l)
				live[pr.mem[l]] -= pr.area[l]
			}
			if spilled[l] && pr.mem[l] == memPSUM {
				out[memPSUM] -= pr.area[l] // a PSUM victim's readers now read its SBUF copy
			}
		}
	}
	if len(spills) == 0 {
		return 0, nil
	}
	if err := applySpills(f, insts, spills, useRange, st); err != nil {
		// New tensors and locations take unique names: narwhal's fault.
		return 0, diag.Wrap(diag.Internal, err)
	}
	st.SBOutPeak = max(st.SBOutPeak, outPeak[memSB]/4)
	st.PSUMOutPeak = max(st.PSUMOutPeak, outPeak[memPSUM]/4)
	for _, s := range spills {
		a := pr.area[s.loc] / 4
		if s.mem == memSB {
			st.SBSpills++
			st.SBBytes += a
		} else {
			st.PSUMSpills++
			st.PSUMBytes += a
		}
	}
	return len(spills), nil
}

// chooseVictim picks the location to spill at position p (see the file
// comment).
func chooseVictim(f *bir.Function, pr *pressure, mem int, p int32, active map[bir.LocID]bool, spilled []bool,
	useRange func(bir.LocID) []int32, write, whole []bool, start []int32) (spill, bool) {
	best := spill{loc: bir.NoLoc}
	var bestArea int64
	for l := range active {
		if int(pr.mem[l]) != mem || spilled[l] {
			continue
		}
		lc := f.Loc(l)
		if f.Tensor(lc.Tensor).NoSpill {
			continue
		}
		u := useRange(l)
		base := start[l]
		k, found := slices.BinarySearch(u, p)
		if found || k == 0 || k == len(u) {
			continue // accessed at p, not yet live, or no later access
		}
		u1, u2 := u[k-1], u[k]
		// Written whole at or before u1.
		ok := false
		for j := 0; j < k; j++ {
			if whole[base+int32(j)] {
				ok = true
				break
			}
		}
		if !ok {
			continue
		}
		if mem == memPSUM {
			for j := k; j < len(u); j++ {
				if write[base+int32(j)] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
		}
		c := spill{loc: l, mem: mem, u1: u1, u2: u2}
		if best.loc == bir.NoLoc || c.u2 > best.u2 || c.u2 == best.u2 && (pr.area[l] > bestArea || pr.area[l] == bestArea && l < best.loc) {
			best, bestArea = c, pr.area[l]
		}
	}
	return best, best.loc != bir.NoLoc
}

// applySpills inserts the spill code and redirects the later accesses.
func applySpills(f *bir.Function, insts []bir.InstID, spills []spill, useRange func(bir.LocID) []int32, st *SpillStats) error {
	after := map[int32][]bir.InstID{}  // instructions to emit after a position
	before := map[int32][]bir.InstID{} // and before
	type redirect struct {
		from, to bir.LocID
		at       int32 // positions >= at use the new location
	}
	var redirects []redirect
	for _, s := range spills {
		lc := *f.Loc(s.loc)
		// The seed's mark of a spilled tensor (too_many_spills): the
		// dependency analysis keeps its conservative edges ("Avoided
		// Dependency Reduction due to too_many_spills attribute", seed
		// 002 §6.3) on the victim and on the copies the spill makes.
		markSpilled(f, lc.Tensor)
		ts := *f.Tensor(lc.Tensor)
		dt := ts.Dtype
		if dt.Size() <= 0 || lc.Bytes%dt.Size() != 0 {
			dt = bir.Uint8
		}
		e := lc.Bytes / dt.Size()
		pat := f.Module().InternPattern(bir.Pattern{{Step: e, Num: lc.Partitions}, {Step: 1, Num: e}})
		// The new on-chip location: SBUF, in a tensor of its own (named as
		// BIR-JSON names a tensor and its single location).
		shape := []int64{lc.Partitions, lc.Bytes / max(ts.Dtype.Size(), 1)}
		rname := f.UniqueTensorLocName(lc.Name + "_reload")
		nt, err := f.AddTensor(bir.Tensor{Name: rname + "_set", Kind: bir.KindInternal, Class: bir.ClassNeuronSBTensor,
			Dtype: ts.Dtype, Shape: shape, AddrSpace: ts.AddrSpace})
		if err != nil {
			return err
		}
		nl, err := f.AddLoc(nt, bir.MemLoc{Name: rname, Type: bir.MemSB, Partitions: lc.Partitions, Bytes: lc.Bytes})
		if err != nil {
			return err
		}
		markSpilled(f, nt)
		u1i, u2i := insts[s.u1], insts[s.u2]
		if s.mem == memPSUM {
			cp := f.NewInst(bir.OpTensorCopy, uniqueInstName(f, "spill_psum."+lc.Name), bir.EngDVE,
				[]bir.Operand{bir.PhysAP(s.loc, dt, 0, pat)}, []bir.Operand{bir.PhysAP(nl, dt, 0, pat)}, nil)
			f.InheritPos(cp, u1i)
			after[s.u1] = append(after[s.u1], cp)
			redirects = append(redirects, redirect{s.loc, nl, s.u1 + 1})
			st.Instructions++
			continue
		}
		hname := f.UniqueTensorLocName(lc.Name + "_hbm")
		dram, err := f.AddTensor(bir.Tensor{Name: hname + "_set", Kind: bir.KindInternal, Class: bir.ClassTensor,
			Dtype: ts.Dtype, Shape: shape, AddrSpace: ts.AddrSpace})
		if err != nil {
			return err
		}
		dl, err := f.AddLoc(dram, bir.MemLoc{Name: hname, Type: bir.MemDRAM, Partitions: lc.Partitions, Bytes: lc.Bytes})
		if err != nil {
			return err
		}
		markSpilled(f, dram)
		save := f.NewInst(bir.OpSave, uniqueInstName(f, "spill_save."+lc.Name), bir.EngUnassigned,
			[]bir.Operand{bir.PhysAP(s.loc, dt, 0, pat)}, []bir.Operand{bir.PhysAP(dl, dt, 0, pat)}, nil)
		load := f.NewInst(bir.OpLoad, uniqueInstName(f, "spill_load."+lc.Name), bir.EngUnassigned,
			[]bir.Operand{bir.PhysAP(dl, dt, 0, pat)}, []bir.Operand{bir.PhysAP(nl, dt, 0, pat)}, nil)
		f.InheritPos(save, u1i)
		f.InheritPos(load, u2i)
		after[s.u1] = append(after[s.u1], save)
		before[s.u2] = append(before[s.u2], load)
		redirects = append(redirects, redirect{s.loc, nl, s.u2})
		st.Instructions += 2
		st.DMABytes += 2 * lc.Partitions * lc.Bytes
	}
	// Redirect the later accesses.
	for _, r := range redirects {
		for _, p := range useRange(r.from) {
			if p < r.at {
				continue
			}
			i := insts[p]
			for k, o := range f.Operands(i) {
				if o.Kind == bir.OpdPhysAP && o.Loc() == r.from {
					o.Ref = int32(r.to)
					f.SetOperand(i, k, o)
				}
			}
		}
	}
	order := make([]bir.InstID, 0, len(insts)+st.Instructions)
	for p, i := range insts {
		order = append(order, before[int32(p)]...)
		order = append(order, i)
		order = append(order, after[int32(p)]...)
	}
	f.ReplaceBlockInsts(f.Top[0], order)
	return nil
}

// SpilledAttr is the tensor attribute that marks a spilled tensor (seed
// 002 §6.3's too_many_spills).
const SpilledAttr = "too_many_spills"

// markSpilled gives tensor t the too_many_spills attribute.
func markSpilled(f *bir.Function, t bir.TensorID) {
	ts := f.Tensor(t)
	ts.Extra = ts.Extra.With(SpilledAttr, bir.Bool(true))
}

// uniqueInstName returns base, or base with a counter, unused in f.
func uniqueInstName(f *bir.Function, base string) string {
	name := base
	for k := 1; ; k++ {
		if _, taken := f.InstByName(name); !taken {
			return name
		}
		name = fmt.Sprintf("%s.%d", base, k)
	}
}
