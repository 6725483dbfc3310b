package depgraph

import (
	"fmt"
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
)

// Mode selects the address model of the analysis.
type Mode uint8

const (
	// Physical: an allocated SB or PSUM location lives at its placement in
	// the shared SBUF or PSUM (base partition, byte address, PSUM bank), so
	// two locations that share bytes conflict; a location that is not
	// allocated is an address space of its own (as the interpreter gives
	// it private storage). DRAM locations are each their own space.
	Physical Mode = iota
	// Logical: every location is its own address space, whatever its
	// placement: the dependencies of the program with unlimited memory
	// (no reuse). The scheduler's report prices the allocation's reuse
	// against it, and the memory planner's pre-schedule orders by it.
	Logical
)

func (m Mode) String() string {
	if m == Logical {
		return "logical"
	}
	return "physical"
}

// Options configure an analysis.
type Options struct {
	Mode Mode
	// Partitions and PSUMBankBytes are the machine's (arch.Model); 0 takes
	// 128 partitions and 2048-byte banks.
	Partitions    int64
	PSUMBankBytes int64
	// MaxReduceVisits bounds the instructions the transitive reduction
	// visits per instruction (0: DefaultMaxReduceVisits), plus
	// ReduceVisitsPerCandidate for each of its candidate edges. Past the
	// bound the remaining candidate edges are kept: sound, possibly
	// redundant.
	MaxReduceVisits int
	// NoReduce keeps every candidate edge (for the oracle test's
	// comparison and for debugging).
	NoReduce bool
	// KeepExisting adds the dependencies the instructions already have in
	// the IR to the candidates (they must point backwards in program
	// order), so that constraints the input states survive the
	// recomputation. Off, the graph is computed from the accesses alone
	// (what the logical mode needs: the physical edges a previous run
	// wrote must not leak into it).
	KeepExisting bool
	// Log, when set, receives the analyzer's log lines (the seed's
	// "Added ordered dependency from " and "Avoided Dependency Reduction
	// due to too_many_spills attribute"); at most MaxLogLines are sent.
	Log func(line string)
}

// DefaultMaxReduceVisits is the default bound of the transitive reduction.
const DefaultMaxReduceVisits = 512

// ReduceVisitsPerCandidate widens the reduction's bound by this many
// visits per candidate edge of the instruction. An instruction with many
// candidates (the first matmul of an accumulation group that reuses the
// previous group's PSUM bytes follows all of that group's k matmuls) needs
// a search that grows with them: with a fixed bound, groups of more than
// about 170 matmuls (each has three predecessors to visit) kept all k
// candidates. The reduction's work stays linear in the candidates the
// analysis found.
const ReduceVisitsPerCandidate = 8

// MaxLogLines bounds the log lines one analysis emits.
const MaxLogLines = 50

// Graph is the dependence graph of a function: its instructions in
// program order (the top-level blocks in order, each block's instructions
// in order) and, for each, the edges from earlier instructions it depends
// on, transitively reduced. Positions index Insts.
type Graph struct {
	Insts []bir.InstID
	// Pos maps an InstID to its position, -1 for instructions outside the
	// graph (dead slots).
	Pos []int32
	// PredStart, Pred, Kind: the predecessors of position k are
	// Pred[PredStart[k]:PredStart[k+1]] (ascending positions), with the
	// kind of each edge in Kind.
	PredStart []int32
	Pred      []int32
	Kind      []bir.DepKind

	Stats Stats
}

// Preds returns the predecessor positions of position k and their kinds.
func (g *Graph) Preds(k int) ([]int32, []bir.DepKind) {
	a, b := g.PredStart[k], g.PredStart[k+1]
	return g.Pred[a:b], g.Kind[a:b]
}

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return len(g.Pred) }

// Stats count what an analysis did.
type Stats struct {
	Insts      int
	Barriers   int   // instructions ordered with everything (calls, unmodelled opcodes)
	Candidates int64 // distinct (producer, consumer) pairs found by the interval maps
	Redundant  int64 // of those, removed by the transitive reduction
	Unreduced  int64 // instructions whose reduction hit MaxReduceVisits
	NoReduce   int64 // instructions kept unreduced by too_many_spills
	ByKind     [bir.NumDepKinds]int64
	Spaces     int // address spaces used
	// Hazards counts the conflicting (earlier access, access) pairs each
	// memory class's analyzer found, before deduplication and reduction:
	// the seed's AntiDependencyAnalyzer-SB, AntiDependencyAnalyzer-PSUM,
	// narwhal's -DRAM, and the engine state (registers, the Scalar
	// engine's accumulators).
	Hazards [NumClasses]int64
}

// Class is a memory class: the analyzer instances of seed 002 §6.3.
type Class uint8

const (
	ClassSB Class = iota
	ClassPSUM
	ClassDRAM
	ClassState // engine registers and accumulators
	NumClasses
)

var classNames = [NumClasses]string{"SB", "PSUM", "DRAM", "STATE"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return "class?"
}

// Analyze computes the dependence graph of f (see the package comment).
// f must be straight-line (no loops); it is not modified.
func Analyze(f *bir.Function, opt Options) (*Graph, error) {
	a := newAnalyzer(f, opt)
	if err := a.order(); err != nil {
		return nil, err
	}
	if err := a.run(); err != nil {
		return nil, err
	}
	return a.g, nil
}

// Write replaces the dependencies of g's instructions in f by g's edges.
func (g *Graph) Write(f *bir.Function) {
	f.ReserveDeps(len(g.Pred))
	for k, i := range g.Insts {
		f.ClearDeps(i)
		preds, kinds := g.Preds(k)
		for j, p := range preds {
			f.AddDep(i, bir.Dep{On: g.Insts[p], Kind: kinds[j], CarryAxis: bir.NoAxis})
		}
	}
}

// Space kinds: how an access to the space turns into edge kinds.
const (
	kindData     uint8 = iota // FLOW / ANTI / OUTPUT
	kindOrdered               // every edge is ORDERED (accumulation-group state)
	kindInverted              // the dynamic-DRAM pseudo space (see access roles)
	kindLife                  // the allocation's live intervals (lifetime.go)
)

// access is one range of one space an instruction reads or writes.
type access struct {
	key    int32 // space key (see keyLoc, keyFlags, keyReg; fixed spaces are their own key)
	r0, r1 int64 // rows, inclusive
	lo, hi int64 // bytes, half-open
	write  bool
	loc    bir.LocID // the location of a lifetime access (kindLife)
}

type analyzer struct {
	f   *bir.Function
	m   *bir.Module
	opt Options
	g   *Graph

	parts, bankBytes int64
	maxVisits        int

	// Address spaces. Fixed ids first, then per-location and per-register
	// spaces allocated on first use and released after their last use.
	spaces   []space
	freeList []int32
	keySpace []int32 // per space key: its space, -1 none (fixed keys are their space)
	lastUse  []int32 // per space key: the last position using it
	written  []bool  // per space key: some instruction writes it
	noReduce []bool  // per location: too_many_spills
	hasDyn   bool    // some instruction reads DRAM at dynamic addresses

	// Lifetime accesses (lifetime.go): per location, whether a start
	// matmul writes it (bank-rounded), and the last instruction that
	// touched it (one lifetime access per instruction and location).
	bankOwner []bool
	lifeSeen  []int32

	cons []cons

	// Per-instruction scratch.
	accs      []access
	fp        footprint
	stamp     []int32 // by position: the consumer that last collected it
	ckind     []bir.DepKind
	cands     []int32
	visit     []int32
	stack     []int32
	hasSucc   []bool
	newEnts   []entry
	curNoRed  bool
	curClass  Class
	lastBar   int32 // position of the last barrier, -1 none
	barStart  int32 // first position after the last barrier
	logLines  int
	attrCache map[bir.AttrID]attrFacts
	accCache  map[opAttr]bir.Accumulator
}

// Fixed space ids.
const (
	spSB int32 = iota
	spPSUM
	spPSUMFlags
	spActAcc
	spDveAcc // the Vector engine's accumulator registers
	spDynDRAM
	spLifeSB   // the allocation's live intervals (see lifetime.go)
	spLifePSUM // the same in PSUM
	numFixedSpaces
)

// attrFacts caches what the analysis reads from an attribute set.
type attrFacts struct {
	start bool
}

// opAttr keys the accumulator an instruction uses (bir.InstAccumulator
// reads the opcode and the attributes).
type opAttr struct {
	op bir.Opcode
	id bir.AttrID
}

func newAnalyzer(f *bir.Function, opt Options) *analyzer {
	a := &analyzer{f: f, m: f.Module(), opt: opt, g: &Graph{}}
	a.parts = opt.Partitions
	if a.parts <= 0 {
		a.parts = 128
	}
	a.bankBytes = opt.PSUMBankBytes
	if a.bankBytes <= 0 {
		a.bankBytes = 2048
	}
	a.maxVisits = opt.MaxReduceVisits
	if a.maxVisits <= 0 {
		a.maxVisits = DefaultMaxReduceVisits
	}
	a.lastBar, a.barStart = -1, 0
	a.attrCache = map[bir.AttrID]attrFacts{}
	a.accCache = map[opAttr]bir.Accumulator{}
	return a
}

// order lists the instructions in program order.
func (a *analyzer) order() error {
	f := a.f
	g := a.g
	g.Pos = make([]int32, f.NumInstSlots())
	for k := range g.Pos {
		g.Pos[k] = -1
	}
	g.Insts = make([]bir.InstID, 0, f.NumInstSlots())
	var err error
	f.Walk(func(i bir.InstID) bool {
		if f.Inst(i).Op.IsLoop() {
			// Every caller leaves a function with loops alone (HasLoops).
			err = diag.Wrap(diag.Internal, f.Errorf(i, "a %s remains; the dependency analysis needs straight-line code (run full_unroll first)", f.OpName(i)))
			return false
		}
		g.Pos[i] = int32(len(g.Insts))
		g.Insts = append(g.Insts, i)
		return true
	})
	g.Stats.Insts = len(g.Insts)
	return err
}

// Space keys for lastUse / written: fixed spaces, then 2 per location
// (data, flags), then one per register.
func (a *analyzer) keyLoc(l bir.LocID) int32   { return numFixedSpaces + 2*int32(l) }
func (a *analyzer) keyFlags(l bir.LocID) int32 { return numFixedSpaces + 2*int32(l) + 1 }
func (a *analyzer) keyReg(r bir.RegID) int32 {
	return numFixedSpaces + 2*int32(a.f.NumLocs()) + int32(r)
}

func (a *analyzer) attrs(i bir.InstID) attrFacts {
	id := a.f.Inst(i).Attrs
	if x, ok := a.attrCache[id]; ok {
		return x
	}
	set := a.f.Attrs(i)
	x := attrFacts{start: set.Bool("start_tensor_calc", false)}
	a.attrCache[id] = x
	return x
}

// accumulator returns the engine accumulator instruction i uses.
func (a *analyzer) accumulator(i bir.InstID) bir.Accumulator {
	in := a.f.Inst(i)
	k := opAttr{in.Op, in.Attrs}
	if x, ok := a.accCache[k]; ok {
		return x
	}
	x := bir.InstAccumulator(in.Op, a.f.Attrs(i))
	a.accCache[k] = x
	return x
}

// isBarrier reports whether instruction i is ordered with everything
// before and after it: calls, synchronization, control flow and opcodes
// whose memory effects narwhal does not model.
func isBarrier(op bir.Opcode) bool {
	if int(op) < len(barrierOps) {
		return barrierOps[op]
	}
	return true // a module-local unknown opcode
}

// barrierOps caches isBarrier for narwhal's opcodes (looking an opcode up
// is a map access; this runs twice per instruction).
var barrierOps = func() []bool {
	const barrier = bir.FlagCall | bir.FlagSync | bir.FlagCollective | bir.FlagControl | bir.FlagNoSemantics | bir.FlagDescriptor
	t := make([]bool, bir.FirstUnknownOpcode)
	for op := range t {
		o := bir.Opcode(op)
		t[op] = !o.Known() || o.Info().Flags&barrier != 0
	}
	return t
}()

// keyKind returns the space kind of a key.
func (a *analyzer) keyKind(k int32) uint8 {
	switch {
	case k == spPSUMFlags:
		return kindOrdered
	case k == spDynDRAM:
		return kindInverted
	case k == spLifeSB || k == spLifePSUM:
		return kindLife
	case k >= numFixedSpaces && k < numFixedSpaces+2*int32(a.f.NumLocs()) && (k-numFixedSpaces)%2 == 1:
		return kindOrdered
	}
	return kindData
}

func (a *analyzer) run() error {
	f := a.f
	n := len(a.g.Insts)
	nLoc := f.NumLocs()
	nKeys := int(numFixedSpaces) + 2*nLoc + f.NumRegs()
	a.keySpace = make([]int32, nKeys)
	for k := range a.keySpace {
		a.keySpace[k] = -1
		if k < int(numFixedSpaces) {
			a.keySpace[k] = int32(k)
		}
	}
	a.lastUse = make([]int32, nKeys)
	a.written = make([]bool, nKeys)
	a.noReduce = make([]bool, nLoc)
	for l := range nLoc {
		lc := f.Loc(bir.LocID(l))
		if lc.Dead {
			continue
		}
		if truthy(lc.Extra, "too_many_spills") || int(lc.Tensor) < f.NumTensors() && truthy(f.Tensor(lc.Tensor).Extra, "too_many_spills") {
			a.noReduce[l] = true
		}
	}
	a.spaces = make([]space, numFixedSpaces)
	for k := range a.spaces {
		a.spaces[k].reset()
	}
	a.lifeInit()

	// Pass 1: which spaces are written, whether DRAM is read at dynamic
	// addresses, and the last use of each space (so that a per-location
	// space is released after it).
	reads := 0
	for p, i := range a.g.Insts {
		if isBarrier(f.Inst(i).Op) {
			continue
		}
		a.collect(i)
		for _, x := range a.accs {
			a.lastUse[x.key] = int32(p)
			if x.write {
				a.written[x.key] = true
			} else {
				reads++
			}
			if x.key == spDynDRAM {
				a.hasDyn = true
			}
		}
	}

	for k := range a.lifeSeen {
		a.lifeSeen[k] = -1
	}

	// Pass 2: the edges. The readers' lists get one cell per read of a
	// written space at most (a read of several runs or segments adds one
	// per run and segment: the slice grows past the estimate then); the
	// edges, about two per instruction after reduction in the kernels
	// measured, are reserved at that.
	a.cons = make([]cons, 0, reads)
	a.g.Pred = make([]int32, 0, 2*n)
	a.g.Kind = make([]bir.DepKind, 0, 2*n)
	a.stamp = make([]int32, n)
	a.ckind = make([]bir.DepKind, n)
	a.visit = make([]int32, n)
	a.hasSucc = make([]bool, n)
	for k := range a.stamp {
		a.stamp[k], a.visit[k] = -1, -1
	}
	g := a.g
	g.PredStart = make([]int32, 1, n+1)
	for p32, i := range g.Insts {
		p := int32(p32)
		a.cands = a.cands[:0]
		a.curNoRed = false
		if a.opt.KeepExisting {
			if err := a.existing(p, i); err != nil {
				return err
			}
		}
		if a.lastBar >= 0 {
			a.cand(p, a.lastBar, bir.DepOrdered)
		}
		if isBarrier(f.Inst(i).Op) {
			g.Stats.Barriers++
			for q := a.barStart; q < p; q++ {
				if !a.hasSucc[q] {
					a.cand(p, q, bir.DepOrdered)
				}
			}
			a.finish(p)
			a.clearSpaces()
			a.lastBar, a.barStart = p, p+1
			continue
		}
		a.collect(i)
		// Reads before writes, so that an instruction that reads and
		// writes the same bytes sees the earlier writer.
		for _, x := range a.accs {
			if !x.write {
				a.apply(p, x)
			}
		}
		for _, x := range a.accs {
			if x.write {
				a.apply(p, x)
			}
		}
		a.finish(p)
		for _, x := range a.accs {
			a.release(p, x.key)
		}
	}
	return nil
}

func truthy(set bir.AttrSet, key string) bool {
	v, ok := set.Get(key)
	if !ok {
		return false
	}
	if b, ok := v.AsBool(); ok {
		return b
	}
	if i, ok := v.AsInt(); ok {
		return i != 0
	}
	return true
}

// existing adds the instruction's dependencies already in the IR as
// candidates (they are kept as constraints and reduced with the rest).
func (a *analyzer) existing(p int32, i bir.InstID) error {
	f := a.f
	for k := f.Inst(i).Deps; k >= 0; {
		d, next, ok := f.DepRecord(k)
		if !ok {
			break
		}
		k = next
		if int(d.On) < 0 || int(d.On) >= len(a.g.Pos) || a.g.Pos[d.On] < 0 {
			continue
		}
		q := a.g.Pos[d.On]
		if q >= p {
			// The verifier's dep rule holds on the input and after every pass.
			return diag.Wrap(diag.Internal, f.Errorf(i, "depends on %s, which does not precede it in program order", f.InstName(d.On)))
		}
		kind := d.Kind
		if kind >= bir.NumDepKinds {
			kind = bir.DepOrdered
		}
		a.cand(p, q, kind)
	}
	return nil
}

// cand records a candidate edge q -> p of the given kind (merging kinds:
// FLOW over ANTI over OUTPUT over ORDERED).
func (a *analyzer) cand(p, q int32, kind bir.DepKind) {
	if q == p || q < 0 {
		return
	}
	if a.stamp[q] != p {
		a.stamp[q] = p
		a.ckind[q] = kind
		a.cands = append(a.cands, q)
		return
	}
	a.ckind[q] = min(a.ckind[q], kind)
}

// hazard records a conflict found by the current class's analyzer.
func (a *analyzer) hazard(p, q int32, kind bir.DepKind) {
	if q == p {
		return
	}
	a.g.Stats.Hazards[a.curClass]++
	a.cand(p, q, kind)
}

// keyClass returns the memory class of a space key.
func (a *analyzer) keyClass(k int32) Class {
	switch k {
	case spSB, spLifeSB:
		return ClassSB
	case spPSUM, spPSUMFlags, spLifePSUM:
		return ClassPSUM
	case spDynDRAM:
		return ClassDRAM
	case spActAcc, spDveAcc:
		return ClassState
	}
	nl := int32(a.f.NumLocs())
	if k >= numFixedSpaces+2*nl {
		return ClassState
	}
	l := bir.LocID((k - numFixedSpaces) / 2)
	switch t := a.f.Loc(l).Type; {
	case t == bir.MemSB:
		return ClassSB
	case t == bir.MemPSUM:
		return ClassPSUM
	case t.IsDRAM():
		return ClassDRAM
	}
	return ClassState
}

// spaceFor returns the space of key k, allocating one on first use.
func (a *analyzer) spaceFor(k int32) *space {
	id := a.keySpace[k]
	if id < 0 {
		if n := len(a.freeList); n > 0 {
			id = a.freeList[n-1]
			a.freeList = a.freeList[:n-1]
		} else {
			id = int32(len(a.spaces))
			a.spaces = append(a.spaces, space{})
		}
		a.spaces[id].reset()
		a.keySpace[k] = id
		a.g.Stats.Spaces++
	}
	return &a.spaces[id]
}

// release frees the space of a per-location or per-register key after its
// last use.
func (a *analyzer) release(p, k int32) {
	if k < numFixedSpaces || a.lastUse[k] != p {
		return
	}
	if id := a.keySpace[k]; id >= 0 {
		a.spaces[id].reset()
		a.freeList = append(a.freeList, id)
		a.keySpace[k] = -1
	}
}

// clearSpaces forgets every access (after a barrier, which is ordered
// after everything before it and before everything after it).
func (a *analyzer) clearSpaces() {
	for k := range a.keySpace {
		id := a.keySpace[k]
		if id < 0 {
			continue
		}
		a.spaces[id].reset()
		if int32(k) >= numFixedSpaces {
			a.freeList = append(a.freeList, id)
			a.keySpace[k] = -1
		}
	}
}

// apply records access x of the instruction at position p in its space's
// interval maps, collecting the candidate edges it implies.
func (a *analyzer) apply(p int32, x access) {
	kind := a.keyKind(x.key)
	// A space nobody writes creates no edge: do not track its reads.
	if !x.write && !a.written[x.key] && kind != kindInverted && kind != kindLife {
		return
	}
	if x.key == spDynDRAM && !a.hasDyn {
		return
	}
	a.curClass = a.keyClass(x.key)
	s := a.spaceFor(x.key)
	sa, sb := s.segments(x.r0, x.r1)
	for k := sa; k < sb; k++ {
		m := &s.segs[k]
		if kind == kindLife {
			a.life(p, m, x.lo, x.hi, x.loc)
			continue
		}
		if x.write {
			a.write(p, m, x.lo, x.hi, kind)
		} else {
			a.read(p, m, x.lo, x.hi, kind)
		}
	}
}

// edgeKind maps the kind an access implies in a data space to the kind of
// the space.
func edgeKind(space uint8, k bir.DepKind) bir.DepKind {
	switch space {
	case kindOrdered:
		return bir.DepOrdered
	case kindInverted:
		// The dynamic-DRAM pseudo space is written by the dynamic readers
		// and read by the DRAM writers (see collect): swap the roles.
		switch k {
		case bir.DepFlow:
			return bir.DepAnti
		case bir.DepAnti:
			return bir.DepFlow
		}
		return bir.DepOrdered
	}
	return k
}

// read records a read of [lo, hi) by position p.
func (a *analyzer) read(p int32, m *imap, lo, hi int64, sk uint8) {
	i, j := m.splitRange(lo, hi)
	ne := a.newEnts[:0]
	at := lo
	for k := i; k < j; k++ {
		e := m.ents[k]
		if e.lo > at {
			ne = append(ne, entry{lo: at, hi: e.lo, writer: -1, readers: a.push(-1, p), prev: -1})
		}
		if e.writer >= 0 {
			a.hazard(p, e.writer, edgeKind(sk, bir.DepFlow))
		}
		e.readers = a.push(e.readers, p)
		ne = append(ne, e)
		at = e.hi
	}
	if at < hi {
		ne = append(ne, entry{lo: at, hi: hi, writer: -1, readers: a.push(-1, p), prev: -1})
	}
	m.ents = slices.Replace(m.ents, i, j, ne...)
	a.newEnts = ne
}

// write records a write of [lo, hi) by position p.
func (a *analyzer) write(p int32, m *imap, lo, hi int64, sk uint8) {
	i, j := m.splitRange(lo, hi)
	for k := i; k < j; k++ {
		e := &m.ents[k]
		if e.writer >= 0 {
			a.hazard(p, e.writer, edgeKind(sk, bir.DepOutput))
		}
		for r := e.readers; r >= 0; r = a.cons[r].next {
			a.hazard(p, a.cons[r].pos, edgeKind(sk, bir.DepAnti))
		}
	}
	ne := entry{lo: lo, hi: hi, writer: p, readers: -1, prev: -1}
	// Coalesce with a left neighbour written by the same instruction.
	if i > 0 {
		if l := &m.ents[i-1]; l.hi == lo && l.writer == p && l.readers == -1 {
			ne.lo = l.lo
			i--
		}
	}
	m.ents = slices.Replace(m.ents, i, j, ne)
}

// push prepends p to a readers list (unless it is already its head).
func (a *analyzer) push(head, p int32) int32 {
	if head >= 0 && a.cons[head].pos == p {
		return head
	}
	a.cons = append(a.cons, cons{pos: p, next: head})
	return int32(len(a.cons) - 1)
}

// finish reduces the candidates of position p and appends its edges.
func (a *analyzer) finish(p int32) {
	g := a.g
	cands := a.cands
	g.Stats.Candidates += int64(len(cands))
	slices.SortFunc(cands, func(x, y int32) int { return int(y) - int(x) }) // descending
	keep := cands[:0]
	if a.opt.NoReduce || a.curNoRed || len(cands) <= 1 {
		keep = cands
		if a.curNoRed && len(cands) > 1 {
			g.Stats.NoReduce++
			a.logf("Avoided Dependency Reduction due to too_many_spills attribute (instruction %s)", a.f.InstName(g.Insts[p]))
		}
	} else {
		// Candidates in descending position: a candidate already reached
		// from a kept one is redundant. The search walks kept edges
		// backwards, never below the lowest candidate, at most maxVisits
		// instructions; past that the remaining candidates are kept.
		low := cands[len(cands)-1]
		visits := 0
		maxVisits := a.maxVisits + ReduceVisitsPerCandidate*len(cands)
		exhausted := false
		for _, q := range cands {
			if a.visit[q] == p {
				g.Stats.Redundant++
				continue
			}
			keep = append(keep, q)
			if exhausted {
				continue
			}
			st := append(a.stack[:0], q)
			for len(st) > 0 && !exhausted {
				x := st[len(st)-1]
				st = st[:len(st)-1]
				for _, y := range g.Pred[g.PredStart[x]:g.PredStart[x+1]] {
					if y < low || a.visit[y] == p {
						continue
					}
					a.visit[y] = p
					visits++
					if visits > maxVisits {
						exhausted = true
						break
					}
					st = append(st, y)
				}
			}
			a.stack = st
		}
		if exhausted {
			g.Stats.Unreduced++
		}
	}
	slices.Sort(keep)
	for _, q := range keep {
		k := a.ckind[q]
		g.Pred = append(g.Pred, q)
		g.Kind = append(g.Kind, k)
		g.Stats.ByKind[k]++
		a.hasSucc[q] = true
		if k == bir.DepOrdered {
			a.logf("Added ordered dependency from %s to %s", a.f.InstName(g.Insts[q]), a.f.InstName(g.Insts[p]))
		}
	}
	g.PredStart = append(g.PredStart, int32(len(g.Pred)))
}

func (a *analyzer) logf(format string, args ...any) {
	if a.opt.Log == nil || a.logLines >= MaxLogLines {
		return
	}
	a.logLines++
	a.opt.Log(fmt.Sprintf(format, args...))
}

// HasLoops reports whether f has a loop instruction (the analysis needs
// straight-line code).
func HasLoops(f *bir.Function) bool {
	found := false
	f.Walk(func(i bir.InstID) bool {
		found = f.Inst(i).Op.IsLoop()
		return !found
	})
	return found
}

// DRAMAccess is one DRAM range an instruction reads or writes: rows
// [R0, R1] (inclusive) and bytes [Lo, Hi) of location Loc, in the row
// geometry of the location's dims (element e at row e / E, element e % E
// of the row: a bijection with its flat bytes).
type DRAMAccess struct {
	Inst   bir.InstID
	Loc    bir.LocID
	R0, R1 int64
	Lo, Hi int64
	Write  bool
}

// DRAMAccesses calls fn with every DRAM access of f's instructions in
// program order, as the analysis sees them (footprints, operand roles): a
// read at dynamic addresses (IndirectLoad) reads every DRAM location of
// f whole. Barriers are skipped (their DRAM effects, if any, are not
// modelled). The LncAwareScheduler finds the hazards between cores with
// it.
func DRAMAccesses(f *bir.Function, fn func(DRAMAccess)) error {
	a := newAnalyzer(f, Options{})
	if err := a.order(); err != nil {
		return err
	}
	nLoc := f.NumLocs()
	a.keySpace = make([]int32, int(numFixedSpaces)+2*nLoc+f.NumRegs())
	for _, i := range a.g.Insts {
		if isBarrier(f.Inst(i).Op) {
			continue
		}
		a.collect(i)
		for _, x := range a.accs {
			switch {
			case x.key == spDynDRAM && x.write:
				// The dynamic reader (the pseudo space is written by it).
				for l := range nLoc {
					lc := f.Loc(bir.LocID(l))
					if !lc.Dead && lc.Type.IsDRAM() {
						fn(DRAMAccess{Inst: i, Loc: bir.LocID(l), R0: 0, R1: max(lc.Partitions, 1) - 1, Lo: 0, Hi: max(lc.Bytes, 1)})
					}
				}
			case x.key >= numFixedSpaces && x.key < numFixedSpaces+2*int32(nLoc) && (x.key-numFixedSpaces)%2 == 0:
				l := bir.LocID((x.key - numFixedSpaces) / 2)
				if f.Loc(l).Type.IsDRAM() {
					fn(DRAMAccess{Inst: i, Loc: l, R0: x.r0, R1: x.r1, Lo: x.lo, Hi: x.hi, Write: x.write})
				}
			}
		}
	}
	return nil
}
