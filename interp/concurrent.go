package interp

// The concurrent interpreter: the race checker of synchronization
// (RunConcurrent, RunCores).
//
// A synchronized module (passes/semaphores; the model is package
// stream's) is executed as its hardware would run it: each engine and each
// DMA queue of each core is its own sequence of instructions; an engine
// issues its next instruction once the instruction's semaphore waits hold
// (blocking otherwise), completes it, and makes its updates; a DMA in an
// engine's stream is fired there and runs on its queue, which completes
// its DMAs in order and makes their updates; Drain, AllEngineBarrier,
// GroupResetSemaphores, calls and CoreBarriers behave as the stream package
// says. Which of the enabled steps (issue, complete, fire, barrier
// release, call, return) happens next is chosen by a policy:
//
//   - random: uniformly among the enabled steps, from a seeded generator;
//   - starve:STREAM: the named engine or queue moves only when nothing
//     else can;
//   - late-dma: a DMA completes only when nothing else can (DMAs finish as
//     late as possible); the other steps are random.
//
// Reads of never-written memory are not errors here (they are races,
// reported when the writer's write lands); an instruction that fails is
// skipped, and the failure is the run's error unless a race is found
// (then it is its likely consequence: ConcurrentResult.Stopped).
//
// Reads happen at issue and writes at completion: an instruction's
// accesses are checked against the shadow memory (race.go) with the
// knowledge its stream had when it issued, and its effect on memory is
// applied when it completes. (The interpreter computes the instruction's
// values at completion; a write that lands on its sources between its
// issue and its completion is unordered with its reads, which the checker
// reports as a race, so every race-free run computes what reading at issue
// would.) The run reports every race (two conflicting accesses that no
// happens-before chain orders, with both instructions and the bytes), a
// deadlock (no step enabled while some stream has not finished: each
// blocked stream and what it waits for), and the outputs.
//
// A module that keeps loops runs as its instances (bir.Expand: every
// stream executes its instructions of each loop body iteration after
// iteration, with the waits' counts of that iteration); races name the
// instances ("load_x@i=2"). A loop whose trip count is known only at run
// time (bir/runtime_loops.go) runs the trip count the program computes:
// the sequential interpreter runs the module on the same inputs first and
// records each such loop's count (Options.OnLoopTrips), and the loop is
// expanded with it. Its control is the register program of one engine
// (the verifier's rule: the body and the writers of the registers its
// control reads issue on the loop's engine, in that stream's order), so
// the stream that iterates reads the count it computed; the race checker
// sees the register accesses and the memory the count was loaded from
// (a register_load reading a tile before its DMA lands is a race). A loop
// entered more than once with different counts (a function called several
// times) is refused.
//
// What the checker does not see: the DRAM an IndirectLoad reads through
// an address computed at run time (its address operands are checked; the
// dependency analysis orders it after every DRAM write), and the PE's
// accumulation-group state, which only one engine touches. The Scalar and
// Vector engines' accumulator registers are checked as one shadow byte
// each (bir.InstAccumulator). An IndirectSave's destination is checked as its
// whole location (the rows land anywhere in it), as the dependency
// analysis reads it.

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/stream"
)

// Policy chooses among the enabled steps of a concurrent run.
type Policy uint8

const (
	PolicyRandom  Policy = iota // uniformly at random (seeded)
	PolicyStarve                // one stream moves only when nothing else can
	PolicyLateDMA               // DMAs complete only when nothing else can
)

// ParsePolicy reads --interleave: "random", "late-dma", "starve:ENGINE"
// (an engine as the profiler names it, or a DMA queue: "queue3").
func ParsePolicy(s string) (Policy, stream.ID, error) {
	switch {
	case s == "" || s == "random":
		return PolicyRandom, stream.None, nil
	case s == "late-dma":
		return PolicyLateDMA, stream.None, nil
	case strings.HasPrefix(s, "starve:"):
		id, err := stream.ParseName(strings.TrimPrefix(s, "starve:"))
		if err != nil {
			return 0, stream.None, fmt.Errorf("--interleave %s: %v", s, err)
		}
		return PolicyStarve, id, nil
	}
	return 0, stream.None, fmt.Errorf("--interleave %q: want random, late-dma or starve:ENGINE", s)
}

// ConcurrentOptions configure a concurrent run.
type ConcurrentOptions struct {
	Options
	Policy Policy
	// Starve is the stream PolicyStarve starves (on every core).
	Starve stream.ID
	// Seed seeds the random choices.
	Seed uint64
	// MaxRaces bounds the races listed (0: 20); all are counted.
	MaxRaces int
}

// Deadlock describes a run that stopped with streams unfinished.
type Deadlock struct {
	// Blocked lists each unfinished stream and what it waits for.
	Blocked []string
}

func (d *Deadlock) String() string {
	return "deadlock: no engine or queue can proceed:\n  " + strings.Join(d.Blocked, "\n  ")
}

// ConcurrentResult is the outcome of a concurrent run.
type ConcurrentResult struct {
	// Outputs are the entry function's outputs (nil after a deadlock).
	Outputs map[string]*Tensor
	// Races lists the first MaxRaces races; RacesFound counts them all.
	Races      []Race
	RacesFound int
	Deadlock   *Deadlock
	// Late lists the DMAs still in flight when every engine of a core had
	// halted (the program ends there: its outputs may be read before
	// those DMAs land).
	Late []string
	// Stopped is set when an instruction failed in a run that found races
	// (a consequence of a race: an index read before it was written, say):
	// the run went on without that instruction's effects. (Without a race
	// the failure is the run's error.)
	Stopped string
	// Steps is the number of steps taken.
	Steps int64
	// Overflows lists the semaphores whose count went past the counter's
	// largest value (arch Sync.SemaphoreBits): the verifier bounds the
	// counts of static trip counts, a loop whose trip count is known only
	// at run time is bounded here, by the run.
	Overflows []string
}

// OK reports whether the run found no race and no deadlock.
func (r *ConcurrentResult) OK() bool {
	return r.RacesFound == 0 && r.Deadlock == nil && len(r.Late) == 0 && len(r.Overflows) == 0
}

// RunConcurrent executes the entry function of synchronized module m
// concurrently (see the file comment) on inputs.
func RunConcurrent(m *bir.Module, inputs map[string]*Tensor, opt ConcurrentOptions) (*ConcurrentResult, error) {
	return RunCores([]*bir.Module{m}, inputs, opt)
}

// RunCores executes several cores' modules concurrently: mods[c] is core
// c's program (each compiled for its neuron core id); their entry
// functions' Input and Output tensors of the same name are one shared
// DRAM tensor (LNC kernels share HBM), CoreBarriers of the same id
// synchronize the cores listed in their "cores" attribute, and a call
// copies out only what its callee wrote (the cores write disjoint parts
// of a shared output). The outputs are the shared output tensors.
func RunCores(mods []*bir.Module, inputs map[string]*Tensor, opt ConcurrentOptions) (res *ConcurrentResult, err error) {
	if len(mods) == 0 {
		return nil, &Error{Kind: ErrInput, Msg: "no module"}
	}
	w := &world{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x5deece66d))}
	if w.opt.MaxRaces <= 0 {
		w.opt.MaxRaces = 20
	}
	// A module that keeps loops runs as its streams execute it: each
	// stream its instances in program order (bir.Expand), so the
	// interleavings, the semaphores and the race checker see every
	// iteration.
	for c, m := range mods {
		if m == nil || !moduleHasLoops(m) {
			continue
		}
		trips, err := runtimeTrips(m, inputs, opt.Options)
		if err != nil {
			return nil, &Error{Kind: ErrInput, Msg: fmt.Sprintf("core %d: %v", c, err)}
		}
		x, err := bir.Expand(m, bir.ExpandOptions{RuntimeTrips: trips})
		if err != nil {
			return nil, &Error{Kind: ErrInput, Msg: fmt.Sprintf("core %d: %v", c, err)}
		}
		if c == 0 {
			mods = slices.Clone(mods)
		}
		mods[c] = x.M
	}
	shared := map[string]*storage{}
	defer func() {
		if p := recover(); p != nil {
			res = nil
			if be, ok := p.(*budgetError); ok && w.cur != nil {
				err = w.cur.mc.limitError(be)
				return
			}
			err = &Error{Kind: ErrInternal, Msg: fmt.Sprintf("internal error (a bug in narwhal's concurrent interpreter, please report it): %v\n%s", p, debug.Stack())}
		}
	}()
	for c, m := range mods {
		if m == nil || m.Main() == nil {
			return nil, &Error{Kind: ErrInput, Msg: fmt.Sprintf("core %d: no module or no entry function", c)}
		}
		model, err := arch.ForModule(m)
		if err != nil {
			return nil, &Error{Kind: ErrInput, Msg: fmt.Sprintf("core %d: %v", c, err)}
		}
		geo, err := geometryFor(m, opt.Options)
		if err != nil {
			return nil, err
		}
		// Reads of never-written memory are allowed: in a concurrent run
		// they are races (the writer comes later), which the checker
		// reports; the sequential run checks the program itself.
		o := opt.Options
		o.AllowUninitReads = true
		mc := newMachine(m, o, geo)
		if len(mods) > 1 {
			mc.sharedIO, mc.copyOutWritten = shared, true
		}
		co := &core{idx: c, mc: mc, model: model}
		w.cores = append(w.cores, co)
		w.ns = max(w.ns, int(stream.FirstQueue)+int(max(model.DMAQueues, 1)))
	}
	if err := checkCoreBarriers(mods); err != nil {
		return nil, err
	}
	w.G = len(w.cores) * w.ns
	w.vc = make([][]int32, w.G)
	for g := range w.vc {
		w.vc[g] = make([]int32, w.G)
	}
	w.sh = newShadow(w.opt.MaxRaces, w.describe)
	for _, co := range w.cores {
		w.cur = co
		f := co.mc.m.Main()
		fr := newFrame(f)
		co.mc.entryFrame = fr
		if err := co.mc.bindInputs(fr, inputs); err != nil {
			return nil, err
		}
		a, err := w.activate(co, fr, nil, bir.NoInst, nil)
		if err != nil {
			return nil, err
		}
		co.acts = []*activation{a}
		co.mc.push(fr)
		if err := checkHalts(a); err != nil {
			return nil, err
		}
	}
	res = &ConcurrentResult{}
	if err := w.run(res); err != nil {
		return nil, err
	}
	if w.failed != nil {
		if w.sh.found == 0 {
			return nil, w.failed
		}
		res.Stopped = w.failed.Error()
	}
	res.Races, res.RacesFound = w.sh.races, w.sh.found
	for _, co := range w.cores {
		res.Overflows = append(res.Overflows, co.overflows...)
	}
	if res.Deadlock == nil && res.Stopped == "" {
		co := w.cores[0]
		w.cur = co
		out, err := co.mc.collectOutputs(co.mc.entryFrame)
		if err != nil {
			return nil, err
		}
		res.Outputs = out
	}
	return res, nil
}

// world is the state of a concurrent run.
type world struct {
	opt   ConcurrentOptions
	rng   *rand.Rand
	cores []*core
	ns    int // stream slots per core
	G     int // global streams: core*ns + stream
	vc    [][]int32
	sh    *shadow
	cur   *core
	evs   []event
	pref  []int
	runs  []run
	// failed is the first instruction failure of the run.
	failed error
}

type core struct {
	idx   int
	mc    *machine
	model *arch.Model
	acts  []*activation
	done  bool
	late  bool // Late noted
	// overflows lists the semaphores that went past the counter's
	// largest value (once each).
	overflows []string
	overflown map[int32]bool
}

// activation is one function being run on one core: the entry function,
// or a callee while its call is in progress.
type activation struct {
	co     *core
	fr     *frame
	L      *stream.Layout
	lists  [][]bir.InstID
	pc     []int32
	busy   []bir.InstID // the stream's in-flight instruction
	parent *activation
	call   bir.InstID // the call of the parent this activation serves
	outs   []ioTensor
	callX  *instCtx

	triggered   []bool    // DMA fired
	trigVC      [][]int32 // DMA -> its trigger's clock
	trigBy      []stream.ID
	outstanding []int32   // engine stream -> DMAs fired and not complete
	drainVC     [][]int32 // engine stream -> join of its DMAs' completions
	sems        map[int32]*csem
}

type csem struct {
	value int64
	vals  []int64
	vcs   [][]int32
}

type evKind uint8

const (
	evIssue    evKind = iota // an engine issues (or executes at once) its next instruction; a queue starts its head DMA
	evComplete               // the in-flight instruction of a stream completes
	evFire                   // an engine fires its next DMA
	evBarrier                // an AllEngineBarrier group is released
	evCall                   // a call starts
	evReturn                 // a callee finished: its call completes
	evCoreBar                // a CoreBarrier of every listed core is released
)

type event struct {
	kind evKind
	co   *core
	a    *activation
	s    stream.ID
	x    bir.InstID
}

// dma reports whether the event completes a DMA (PolicyLateDMA).
func (e event) dmaCompletion() bool { return e.kind == evComplete && e.s.IsQueue() }

func (w *world) g(co *core, s stream.ID) int32 { return int32(co.idx*w.ns) + int32(s) }

func (w *world) activate(co *core, fr *frame, parent *activation, call bir.InstID, outs []ioTensor) (*activation, error) {
	L, err := stream.Build(fr.f, stream.Options{HasEngine: co.model.HasEngine, Queues: w.ns - int(stream.FirstQueue)})
	if err != nil {
		return nil, &Error{Kind: ErrInput, Func: fr.f.Name, Msg: fmt.Sprintf("core %d: %v (the concurrent interpreter runs synchronized modules: compile with the default pipeline)", co.idx, err)}
	}
	n := fr.f.NumInstSlots()
	a := &activation{co: co, fr: fr, L: L, lists: L.Lists(), pc: make([]int32, L.NumStreams), busy: make([]bir.InstID, L.NumStreams),
		parent: parent, call: call, outs: outs,
		triggered: make([]bool, n), trigVC: make([][]int32, n), trigBy: make([]stream.ID, n),
		outstanding: make([]int32, L.NumStreams), drainVC: make([][]int32, L.NumStreams), sems: map[int32]*csem{}}
	for s := range a.busy {
		a.busy[s] = bir.NoInst
	}
	return a, nil
}

func (a *activation) next(s stream.ID) bir.InstID {
	if int(a.pc[s]) < len(a.lists[s]) {
		return a.lists[s][a.pc[s]]
	}
	return bir.NoInst
}

// waitsHold reports whether every wait of x holds.
func (a *activation) waitsHold(x bir.InstID) bool {
	for _, c := range a.fr.f.Sync.Waits(x) {
		if c.Value <= 0 {
			continue
		}
		s := a.sems[c.Sem]
		if s == nil || s.value < int64(c.Value) {
			return false
		}
	}
	return true
}

// acquire joins the knowledge of x's waits into clock vc.
func (a *activation) acquire(x bir.InstID, vc []int32) {
	for _, c := range a.fr.f.Sync.Waits(x) {
		s := a.sems[c.Sem]
		if s == nil || c.Value <= 0 {
			continue
		}
		for k, v := range s.vals {
			if v >= int64(c.Value) {
				join32(vc, s.vcs[k])
				break
			}
		}
	}
}

// release makes x's updates, with clock vc.
func (a *activation) release(x bir.InstID, vc []int32) {
	for _, c := range a.fr.f.Sync.Updates(x) {
		s := a.sems[c.Sem]
		if s == nil {
			s = &csem{}
			a.sems[c.Sem] = s
		}
		s.value += int64(c.Value)
		if mx := a.co.model.MaxSemaphoreValue(); s.value > mx && !a.co.overflown[c.Sem] {
			if a.co.overflown == nil {
				a.co.overflown = map[int32]bool{}
			}
			a.co.overflown[c.Sem] = true
			a.co.overflows = append(a.co.overflows, fmt.Sprintf("function %s: semaphore %d reaches %d at %s, above the counter's largest value %d (%d bits): the hardware's count would wrap (a loop whose trip count is known only at run time ran more iterations than its semaphore counts hold)", a.fr.f.Name, c.Sem, s.value, a.fr.f.InstName(x), mx, a.co.model.Sync.SemaphoreBits))
		}
		s.vals = append(s.vals, s.value)
		s.vcs = append(s.vcs, append([]int32(nil), vc...))
	}
}

func (a *activation) resetSems(ids []int32, all bool) {
	if all {
		a.sems = map[int32]*csem{}
		return
	}
	for _, id := range ids {
		delete(a.sems, id)
	}
}

func join32(dst, src []int32) {
	for i, v := range src {
		if v > dst[i] {
			dst[i] = v
		}
	}
}

// engines returns the engine streams of an activation's core.
func (a *activation) engines() []stream.ID {
	var out []stream.ID
	for _, e := range stream.Engines {
		if s := stream.EngineStream(e); a.L.Present[s] {
			out = append(out, s)
		}
	}
	return out
}

// idle reports whether every DMA fired so far has completed.
func (a *activation) idle() bool {
	for s, n := range a.outstanding {
		if n > 0 || stream.ID(s).IsQueue() && a.busy[s] != bir.NoInst {
			return false
		}
	}
	return true
}

// finished reports whether every stream has run to its end.
func (a *activation) finished() bool {
	for s := range a.lists {
		if a.busy[s] != bir.NoInst || int(a.pc[s]) < len(a.lists[s]) {
			return false
		}
	}
	return true
}

// enabled lists the steps that can happen now.
func (w *world) enabled() []event {
	evs := w.evs[:0]
	for _, co := range w.cores {
		if co.done {
			continue
		}
		a := co.acts[len(co.acts)-1]
		if a.finished() {
			evs = append(evs, event{kind: evReturn, co: co, a: a})
			continue
		}
		f := a.fr.f
		engs := a.engines()
		for s := range a.lists {
			sid := stream.ID(s)
			if !a.L.Present[s] {
				continue
			}
			if a.busy[s] != bir.NoInst {
				evs = append(evs, event{kind: evComplete, co: co, a: a, s: sid, x: a.busy[s]})
				continue
			}
			x := a.next(sid)
			if x == bir.NoInst {
				continue
			}
			if sid.IsQueue() {
				if a.triggered[x] {
					evs = append(evs, event{kind: evIssue, co: co, a: a, s: sid, x: x})
				}
				continue
			}
			in := f.Inst(x)
			switch {
			case a.L.IsCall(x):
				if sid == engs[0] && a.allAt(engs, func(y bir.InstID) bool { return y == x }) && a.idle() {
					evs = append(evs, event{kind: evCall, co: co, a: a, s: sid, x: x})
				}
			case in.Op == bir.OpAllEngineBarrier:
				id := f.Attrs(x).Int(stream.AttrBarrierID, -1)
				if sid == engs[0] && a.allAt(engs, func(y bir.InstID) bool {
					return f.Inst(y).Op == bir.OpAllEngineBarrier && f.Attrs(y).Int(stream.AttrBarrierID, -2) == id
				}) && a.idle() {
					evs = append(evs, event{kind: evBarrier, co: co, a: a, s: sid, x: x})
				}
			case in.Op == bir.OpCoreBarrier:
				if a.waitsHold(x) && w.coreBarrierReady(co, a, x) {
					evs = append(evs, event{kind: evCoreBar, co: co, a: a, s: sid, x: x})
				}
			case in.Op == bir.OpDrain:
				if a.waitsHold(x) && a.outstanding[s] == 0 {
					evs = append(evs, event{kind: evIssue, co: co, a: a, s: sid, x: x})
				}
			case a.L.IsDMA(x):
				if a.waitsHold(x) {
					evs = append(evs, event{kind: evFire, co: co, a: a, s: sid, x: x})
				}
			default:
				if a.waitsHold(x) {
					evs = append(evs, event{kind: evIssue, co: co, a: a, s: sid, x: x})
				}
			}
		}
	}
	w.evs = evs
	return evs
}

// allAt reports whether every engine stream's next entry satisfies ok and
// none is busy.
func (a *activation) allAt(engs []stream.ID, ok func(bir.InstID) bool) bool {
	for _, s := range engs {
		y := a.next(s)
		if a.busy[s] != bir.NoInst || y == bir.NoInst || !ok(y) {
			return false
		}
	}
	return true
}

// coreBarrierReady reports whether every core x's CoreBarrier lists has
// its CoreBarrier of the same id at the head of an engine stream, with
// its waits holding; only the lowest listed core's event is generated.
func (w *world) coreBarrierReady(co *core, a *activation, x bir.InstID) bool {
	f := a.fr.f
	id := f.Attrs(x).Int(stream.AttrBarrierID, -1)
	cores := coreList(f.Attrs(x), len(w.cores))
	if len(cores) == 0 || cores[0] != co.idx {
		return false
	}
	for _, c := range cores[1:] {
		if c < 0 || c >= len(w.cores) || w.coreBarrierAt(w.cores[c], id) == nil {
			return false
		}
	}
	return true
}

// coreBarrierAt returns core co's engine stream whose next entry is the
// CoreBarrier id, its waits holding, or nil.
func (w *world) coreBarrierAt(co *core, id int64) *event {
	if co.done {
		return nil
	}
	a := co.acts[len(co.acts)-1]
	f := a.fr.f
	for _, s := range a.engines() {
		y := a.next(s)
		if a.busy[s] == bir.NoInst && y != bir.NoInst && f.Inst(y).Op == bir.OpCoreBarrier && f.Attrs(y).Int(stream.AttrBarrierID, -2) == id && a.waitsHold(y) {
			return &event{kind: evCoreBar, co: co, a: a, s: s, x: y}
		}
	}
	return nil
}

// coreList reads CoreBarrier's "cores" (absent: every core).
func coreList(attrs bir.AttrSet, n int) []int {
	v, ok := attrs.Get(stream.AttrCores)
	if !ok || v.Kind != bir.ValList {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for _, e := range v.L {
		if k, ok := e.AsInt(); ok {
			out = append(out, int(k))
		}
	}
	return out
}

// pick chooses the next step by the policy.
func (w *world) pick(evs []event) event {
	pref := w.pref[:0]
	switch w.opt.Policy {
	case PolicyStarve:
		for k, e := range evs {
			if e.s != w.opt.Starve || e.kind == evReturn || e.kind == evBarrier || e.kind == evCall || e.kind == evCoreBar {
				pref = append(pref, k)
			}
		}
	case PolicyLateDMA:
		for k, e := range evs {
			if !e.dmaCompletion() {
				pref = append(pref, k)
			}
		}
	}
	w.pref = pref
	if len(pref) > 0 {
		return evs[pref[w.rng.IntN(len(pref))]]
	}
	return evs[w.rng.IntN(len(evs))]
}

// run takes steps until every core has finished or none can move.
func (w *world) run(res *ConcurrentResult) error {
	for {
		evs := w.enabled()
		if len(evs) == 0 {
			if d := w.deadlock(); d != nil {
				res.Deadlock = d
			}
			return nil
		}
		e := w.pick(evs)
		res.Steps++
		w.cur = e.co
		if err := w.step(e); err != nil {
			if w.sh.found > 0 {
				res.Stopped = err.Error()
				return nil
			}
			return err
		}
		w.noteLate(e.co, res)
	}
}

// noteLate records, once per core, the DMAs in flight when every engine of
// the entry function has run its stream to the end.
func (w *world) noteLate(co *core, res *ConcurrentResult) {
	if co.late || len(co.acts) != 1 {
		return
	}
	a := co.acts[0]
	for _, s := range a.engines() {
		if a.busy[s] != bir.NoInst || int(a.pc[s]) < len(a.lists[s]) {
			return
		}
	}
	co.late = true
	f := a.fr.f
	for s := range a.lists {
		sid := stream.ID(s)
		if !sid.IsQueue() {
			continue
		}
		pending := a.lists[s][min(int(a.pc[s]), len(a.lists[s])):]
		if x := a.busy[s]; x != bir.NoInst {
			pending = append([]bir.InstID{x}, pending...)
		}
		for _, x := range pending {
			res.Late = append(res.Late, fmt.Sprintf("function %s: DMA %s on %s is still in flight when every engine has halted: the outputs may be read before it lands (want a Drain, or a wait on its completion, before Halt)", f.Name, f.InstName(x), sid.Name()))
		}
	}
}

// ctx prepares the instruction context of x in activation a (as exec
// does) for the call steps.
func (w *world) ctx(a *activation, x bir.InstID) *instCtx {
	mc := a.co.mc
	f := a.fr.f
	in := f.Inst(x)
	mc.curFrame, mc.curInst = a.fr, x
	attrs := f.Attrs(x)
	mc.allowUninit = mc.opt.AllowUninitReads || attrs.Bool("can_read_uninit", false)
	mc.nIns = int(in.NIns)
	mc.reserve(int(in.NIns) + int(in.NOuts) + 1)
	c := &mc.ctxs[len(mc.stack)]
	*c = instCtx{fr: a.fr, i: x, eng: in.Engine, attrs: attrs, ins: f.Ins(x), outs: f.Outs(x)}
	return c
}

// step performs one step.
func (w *world) step(e event) error {
	a, co := e.a, e.co
	f := a.fr.f
	switch e.kind {
	case evIssue:
		g := w.g(co, e.s)
		vc := w.vc[g]
		if e.s.IsQueue() {
			join32(vc, a.trigVC[e.x])
			a.busy[e.s] = e.x
			a.pc[e.s]++
			return nil
		}
		a.acquire(e.x, vc)
		switch f.Inst(e.x).Op {
		case bir.OpDrain:
			if d := a.drainVC[e.s]; d != nil {
				join32(vc, d)
			}
			return w.complete(a, e.s, e.x, false)
		case bir.OpGroupResetSemaphores:
			ids, all := resetIDs(f.Attrs(e.x))
			a.resetSems(ids, all)
			return w.complete(a, e.s, e.x, false)
		case bir.OpEventSemaphore, bir.OpHalt, bir.OpNoOp:
			return w.complete(a, e.s, e.x, false)
		}
		a.busy[e.s] = e.x
		a.pc[e.s]++
		return nil
	case evComplete:
		a.busy[e.s] = bir.NoInst
		return w.complete(a, e.s, e.x, true)
	case evFire:
		g := w.g(co, e.s)
		vc := w.vc[g]
		a.acquire(e.x, vc)
		vc[g]++
		a.trigVC[e.x] = append([]int32(nil), vc...)
		a.triggered[e.x] = true
		a.trigBy[e.x] = e.s
		a.outstanding[e.s]++
		a.pc[e.s]++
		return nil
	case evBarrier:
		w.barrier(co, a)
		for _, s := range a.engines() {
			a.pc[s]++
		}
		return nil
	case evCoreBar:
		parts := []*event{{kind: evCoreBar, co: co, a: a, s: e.s, x: e.x}}
		for _, c := range coreList(f.Attrs(e.x), len(w.cores))[1:] {
			p := w.coreBarrierAt(w.cores[c], f.Attrs(e.x).Int(stream.AttrBarrierID, -1))
			if p == nil {
				return &Error{Kind: ErrInternal, Func: f.Name, Inst: f.InstName(e.x), Msg: "internal error: a CoreBarrier participant vanished"}
			}
			parts = append(parts, p)
		}
		all := make([]int32, w.G)
		for _, p := range parts {
			p.a.acquire(p.x, w.vc[w.g(p.co, p.s)])
			join32(all, w.vc[w.g(p.co, p.s)])
		}
		for _, p := range parts {
			g := w.g(p.co, p.s)
			copy(w.vc[g], all)
			if err := w.complete(p.a, p.s, p.x, false); err != nil {
				return err
			}
		}
		return nil
	case evCall:
		w.barrier(co, a)
		x := w.ctx(a, e.x)
		w.callAccesses(a, e.x, w.g(co, e.s), true)
		cf, outs, err := co.mc.callEnter(x)
		if err != nil {
			return co.mc.wrap(a.fr, e.x, err)
		}
		child, err := w.activate(co, cf, a, e.x, outs)
		if err != nil {
			return err
		}
		child.callX = x
		co.acts = append(co.acts, child)
		co.mc.push(cf)
		return nil
	case evReturn:
		parent := a.parent
		if parent == nil {
			co.done = true
			return nil
		}
		w.barrierOf(co, a)
		co.mc.pop()
		co.acts = co.acts[:len(co.acts)-1]
		if err := co.mc.callExit(a.callX, a.fr, a.outs); err != nil {
			return co.mc.wrap(parent.fr, a.call, err)
		}
		w.barrier(co, parent)
		parent.resetSems(nil, true)
		w.copyOutAccesses(parent, a, w.g(co, parent.engines()[0]))
		for _, s := range parent.engines() {
			parent.pc[s]++
		}
		return nil
	}
	return nil
}

// barrier joins the clocks of every stream of core co (an all-engine
// synchronization of activation a: every fired DMA has completed).
func (w *world) barrier(co *core, a *activation) {
	w.barrierOf(co, a)
	for _, s := range a.engines() {
		g := w.g(co, s)
		w.vc[g][g]++
	}
}

func (w *world) barrierOf(co *core, a *activation) {
	all := make([]int32, w.G)
	for s := 0; s < w.ns; s++ {
		join32(all, w.vc[w.g(co, stream.ID(s))])
	}
	for s := 0; s < w.ns; s++ {
		g := w.g(co, stream.ID(s))
		own := w.vc[g][g]
		copy(w.vc[g], all)
		w.vc[g][g] = max(own, all[g])
	}
}

// complete finishes instruction x of stream s: its accesses are checked,
// it is executed (exec: every access at once), its stream's epoch
// advances and its updates are made.
func (w *world) complete(a *activation, s stream.ID, x bir.InstID, execute bool) error {
	co := a.co
	g := w.g(co, s)
	vc := w.vc[g]
	if !s.IsQueue() && !execute {
		a.pc[s]++
	}
	run := execute
	if run && a.fr.f.Inst(x).Pred != 0 {
		// A predicated instruction whose predicate is false (an instance
		// of a loop body, bir.Expand) does nothing; its stream still
		// makes its updates.
		if ok, err := co.mc.evalPred(a.fr.f.Inst(x).Pred); err == nil && !ok {
			run = false
		}
	}
	if run {
		rec := w.sh.record(accessRec{inst: int32(x), core: int16(co.idx), fn: int32(a.fr.f.Index()), g: g, epoch: vc[g] + 1})
		if err := w.accesses(a, x, rec, vc); err != nil {
			return err
		}
		if err := co.mc.exec(a.fr, x); err != nil {
			// Possibly the consequence of a race not reported yet (an
			// index read before it was written): go on without the
			// instruction's effects; the run fails with err unless a
			// race turns up (world.run).
			if w.failed == nil {
				w.failed = err
			}
		}
	}
	vc[g]++
	a.release(x, vc)
	// A counter has the machine's width (arch.semaphore-bits): release
	// records every semaphore whose count goes past its largest value in
	// ConcurrentResult.Overflows, which fails the run (issue 27 item 11:
	// the run ignored the width, so a wrap past 65535 passed; a runtime
	// loop's trip count can reach it too).
	if s.IsQueue() {
		t := a.trigBy[x]
		a.outstanding[t]--
		if a.drainVC[t] == nil {
			a.drainVC[t] = make([]int32, w.G)
		}
		join32(a.drainVC[t], vc)
	}
	return nil
}

// accesses checks instruction x's reads and writes against the shadow.
func (w *world) accesses(a *activation, x bir.InstID, rec int32, vc []int32) error {
	mc := a.co.mc
	f := a.fr.f
	in := f.Inst(x)
	op := in.Op
	mc.curFrame, mc.curInst = a.fr, x
	mc.nIns = int(in.NIns)
	mc.allowUninit = true
	nIns := int(in.NIns)
	opds := f.Operands(x)
	mc.reserve(len(opds) + 1)
	g := w.sh.recs[rec].g
	for k := range opds {
		o := &opds[k]
		write := k >= nIns
		if !write && op == bir.OpReadVarAddr {
			continue // takes its source's address only
		}
		switch o.Kind {
		case bir.OpdPhysAP, bir.OpdSymAP:
			if write && (op == bir.OpIndirectSave || op == bir.OpIndirectSaveAccumulate) && o.Kind == bir.OpdPhysAP {
				r, err := mc.region(a.fr, o.Loc(), 0)
				if err != nil {
					return mc.wrap(a.fr, x, err)
				}
				w.regionAccess(r, rec, g, vc)
				continue
			}
			v, err := mc.evalAP(a.fr, k, o)
			if err != nil {
				return mc.wrap(a.fr, x, err)
			}
			w.viewAccess(v, rec, g, write, vc)
		case bir.OpdRegister:
			st := w.regStore(a.fr)
			w.runs = append(w.runs[:0], run{int64(o.Ref), int64(o.Ref) + 1})
			w.sh.access(st, "registers", w.runs, rec, write, vc)
		}
	}
	// An engine accumulator is engine state read and written in program
	// order: one shadow byte per accumulator and core, so two instructions
	// that touch it on different streams without a happens-before chain
	// are a race (on one engine's stream they are ordered).
	if acc := bir.InstAccumulator(op, f.Attrs(x)); acc != bir.NoAccumulator {
		st, name := mc.accShadow(acc)
		w.runs = append(w.runs[:0], run{0, 1})
		w.sh.access(st, name, w.runs, rec, false, vc)
		if op != bir.OpReadActivationAccumulator {
			w.sh.access(st, name, w.runs, rec, true, vc)
		}
	}
	return nil
}

// accShadow is the shadow key of the core's engine accumulator acc.
func (mc *machine) accShadow(acc bir.Accumulator) (*storage, string) {
	if mc.accShadows[acc] == nil {
		mc.accShadows[acc] = &storage{kind: memDRAM, rowBytes: 1}
	}
	if acc == bir.ActAccumulator {
		return mc.accShadows[acc], "the Activation accumulator"
	}
	return mc.accShadows[acc], "the Vector accumulator"
}

// regStore is the shadow key of frame fr's registers.
func (w *world) regStore(fr *frame) *storage {
	if fr.regShadow == nil {
		fr.regShadow = &storage{kind: memDRAM, rowBytes: 1}
	}
	return fr.regShadow
}

// viewAccess records the bytes view v covers, as sorted disjoint runs.
func (w *world) viewAccess(v *view, rec, g int32, write bool, vc []int32) {
	ds := v.ds
	runs := w.runs[:0]
	sorted := true
	for _, off := range v.offs {
		if n := len(runs); n > 0 {
			last := &runs[n-1]
			if off >= last.lo && off+ds <= last.hi {
				continue
			}
			if off == last.hi {
				last.hi = off + ds
				continue
			}
			if off < last.hi {
				sorted = false
			}
		}
		runs = append(runs, run{off, off + ds})
	}
	w.runs = normalize(runs, sorted)
	w.sh.access(v.reg.st, v.reg.name, w.runs, rec, write, vc)
}

// normalize sorts runs (unless sorted) and merges overlapping and
// adjacent ones.
func normalize(runs []run, sorted bool) []run {
	if !sorted {
		slices.SortFunc(runs, func(a, b run) int { return cmp.Compare(a.lo, b.lo) })
	}
	out := runs[:0]
	for _, r := range runs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// regionAccess records a write of every byte of region r.
func (w *world) regionAccess(r *region, rec, g int32, vc []int32) {
	st := r.st
	runs := w.runs[:0]
	if !r.onChip() {
		runs = append(runs, run{r.col0, r.col0 + r.bytes})
	} else {
		for p := int64(0); p < r.parts; p++ {
			base := (r.row0+p)*st.rowBytes + r.col0
			runs = append(runs, run{base, base + r.bytes})
		}
	}
	w.runs = runs
	w.sh.access(st, r.name, runs, rec, true, vc)
}

// callAccesses checks a call's operands: its sources read at copy-in
// (in), its destinations written at copy-out.
func (w *world) callAccesses(a *activation, x bir.InstID, g int32, in bool) {
	co := a.co
	mc := co.mc
	f := a.fr.f
	vc := w.vc[g]
	rec := w.sh.record(accessRec{inst: int32(x), core: int16(co.idx), fn: int32(f.Index()), g: g, epoch: vc[g]})
	nIns := int(f.Inst(x).NIns)
	opds := f.Operands(x)
	mc.reserve(len(opds) + 1)
	for k := range opds {
		o := &opds[k]
		if (k < nIns) != in || (o.Kind != bir.OpdPhysAP && o.Kind != bir.OpdSymAP) {
			continue
		}
		if v, err := mc.evalAP(a.fr, k, o); err == nil {
			w.viewAccess(v, rec, g, !in, vc)
		}
	}
}

// copyOutAccesses checks the writes of call child.call's copy-out in its
// caller a: the bytes of each destination whose callee element was
// written (a multi-core copy-out copies only those; a single-core one
// carries the unwritten state along, which writes no value).
func (w *world) copyOutAccesses(a, child *activation, g int32) {
	co := a.co
	mc := co.mc
	f := a.fr.f
	vc := w.vc[g]
	rec := w.sh.record(accessRec{inst: int32(child.call), core: int16(co.idx), fn: int32(f.Index()), g: g, epoch: vc[g]})
	x := child.callX
	scratch := len(x.ins) + len(x.outs)
	mc.reserve(scratch + 2)
	for k, io := range child.outs {
		r, err := mc.calleeRegion(child.fr, io, "output")
		if err != nil {
			continue
		}
		src, err := mc.wholeView(r, child.fr.f.Tensor(io.tensor).Dtype, scratch)
		if err != nil {
			continue
		}
		dst, err := mc.out(x, k)
		if err != nil || dst.n != src.n {
			continue
		}
		ds := dst.ds
		runs := w.runs[:0]
		sorted := true
		for i, so := range src.offs {
			if !src.st().isInit(so, src.ds) {
				continue
			}
			off := dst.offs[i]
			if n := len(runs); n > 0 && off == runs[n-1].hi {
				runs[n-1].hi = off + ds
				continue
			} else if n > 0 && off < runs[n-1].hi {
				sorted = false
			}
			runs = append(runs, run{off, off + ds})
		}
		w.runs = normalize(runs, sorted)
		w.sh.access(dst.reg.st, dst.reg.name, w.runs, rec, true, vc)
	}
}

// describe names an access record for a race report.
func (w *world) describe(r accessRec) RaceAccess {
	co := w.cores[r.core]
	f := co.mc.m.Funcs[r.fn]
	i := bir.InstID(r.inst)
	s := stream.ID(int(r.g) - co.idx*w.ns)
	return RaceAccess{Core: co.idx, Func: f.Name, Inst: f.InstName(i), Op: f.OpName(i), Stream: s.Name()}
}

// deadlock describes why nothing can move, or returns nil when every core
// has finished.
func (w *world) deadlock() *Deadlock {
	var out []string
	for _, co := range w.cores {
		if co.done {
			continue
		}
		a := co.acts[len(co.acts)-1]
		f := a.fr.f
		prefix := ""
		if len(w.cores) > 1 {
			prefix = fmt.Sprintf("core %d, ", co.idx)
		}
		for s := range a.lists {
			sid := stream.ID(s)
			x := a.next(sid)
			if !a.L.Present[s] || x == bir.NoInst {
				continue
			}
			what := ""
			switch {
			case sid.IsQueue():
				what = "not fired yet by " + a.L.Eng[x].Name()
			case f.Inst(x).Op == bir.OpAllEngineBarrier:
				what = "waits for every engine and every fired DMA (AllEngineBarrier)"
			case a.L.IsCall(x):
				what = "waits for every engine and every fired DMA (a call)"
			case f.Inst(x).Op == bir.OpCoreBarrier && a.waitsHold(x):
				what = "waits for the other cores' CoreBarrier"
			case f.Inst(x).Op == bir.OpDrain && a.waitsHold(x):
				what = fmt.Sprintf("waits for %d fired DMAs (Drain)", a.outstanding[s])
			default:
				var ws []string
				for _, c := range f.Sync.Waits(x) {
					have := int64(0)
					if sm := a.sems[c.Sem]; sm != nil {
						have = sm.value
					}
					if have < int64(c.Value) {
						ws = append(ws, fmt.Sprintf("$S[%d]>=%d (semaphore %d is at %d)", c.Sem, c.Value, c.Sem, have))
					}
				}
				what = "waits for " + strings.Join(ws, ", ")
			}
			out = append(out, fmt.Sprintf("%sfunction %s, %s: instruction %s (%s) %s", prefix, f.Name, sid.Name(), f.InstName(x), f.OpName(x), what))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &Deadlock{Blocked: out}
}

// resetIDs reads GroupResetSemaphores' semaphores (absent: all).
func resetIDs(a bir.AttrSet) ([]int32, bool) {
	v, ok := a.Get(stream.AttrSemaphores)
	if !ok || v.Kind != bir.ValList {
		return nil, true
	}
	var ids []int32
	for _, e := range v.L {
		if k, ok := e.AsInt(); ok {
			ids = append(ids, int32(k))
		}
	}
	return ids, false
}

// checkCoreBarriers refuses CoreBarriers whose participant lists cannot
// meet (issue 27 item 8): on hardware a core whose CoreBarrier lists a
// core that never arrives, or that lists other cores than its partners
// do, waits forever, while the concurrent run would complete the barrier
// from the lowest listed core's list and report "no deadlock". Every
// CoreBarrier's "cores" must be distinct cores of the run including its
// own, and every core a barrier id lists must hold that id with the same
// list.
func checkCoreBarriers(mods []*bir.Module) error {
	type barrier struct {
		cores []int
		inst  string
	}
	byCore := make([]map[int64]barrier, len(mods))
	for c, m := range mods {
		byCore[c] = map[int64]barrier{}
		for _, f := range m.Funcs {
			var bad error
			f.Walk(func(x bir.InstID) bool {
				if bad != nil || f.Inst(x).Op != bir.OpCoreBarrier {
					return bad == nil
				}
				id := f.Attrs(x).Int(stream.AttrBarrierID, -1)
				cores := slices.Clone(coreList(f.Attrs(x), len(mods)))
				slices.Sort(cores)
				name := f.InstName(x)
				switch {
				case len(cores) == 0:
					bad = &Error{Kind: ErrOperand, Func: f.Name, Inst: name, Msg: fmt.Sprintf("core %d's CoreBarrier %d lists no core: want the cores that meet there, this one included", c, id)}
				case cores[0] < 0 || cores[len(cores)-1] >= len(mods) || len(slices.Compact(slices.Clone(cores))) != len(cores):
					bad = &Error{Kind: ErrOperand, Func: f.Name, Inst: name, Msg: fmt.Sprintf("core %d's CoreBarrier %d lists cores %v: want distinct cores of the %d run together (0..%d); a core that never arrives leaves the barrier waiting forever", c, id, cores, len(mods), len(mods)-1)}
				case !slices.Contains(cores, c):
					bad = &Error{Kind: ErrOperand, Func: f.Name, Inst: name, Msg: fmt.Sprintf("core %d's CoreBarrier %d lists cores %v without core %d itself", c, id, cores, c)}
				default:
					if prev, dup := byCore[c][id]; dup && !slices.Equal(prev.cores, cores) {
						bad = &Error{Kind: ErrOperand, Func: f.Name, Inst: name, Msg: fmt.Sprintf("core %d's CoreBarriers %s and %s share id %d but list cores %v and %v", c, prev.inst, name, id, prev.cores, cores)}
					}
					byCore[c][id] = barrier{cores: cores, inst: name}
				}
				return bad == nil
			})
			if bad != nil {
				return bad
			}
		}
	}
	for c := range mods {
		ids := slices.Sorted(maps.Keys(byCore[c]))
		for _, id := range ids {
			b := byCore[c][id]
			for _, o := range b.cores {
				ob, ok := byCore[o][id]
				switch {
				case !ok:
					return &Error{Kind: ErrOperand, Inst: b.inst, Msg: fmt.Sprintf("core %d's CoreBarrier %d (%s) lists core %d, which has no CoreBarrier %d: on hardware core %d waits forever (a deadlock)", c, id, b.inst, o, id, c)}
				case !slices.Equal(ob.cores, b.cores):
					return &Error{Kind: ErrOperand, Inst: b.inst, Msg: fmt.Sprintf("CoreBarrier %d: core %d lists cores %v (%s), core %d lists %v (%s): the cores disagree on who meets, so on hardware one of them waits forever (a deadlock)", id, c, b.cores, b.inst, o, ob.cores, ob.inst)}
				}
			}
		}
	}
	return nil
}

// checkHalts refuses an entry function whose engine streams do not all end
// with Halt, as the verifier's synchronized stage does (issue 27 item 11:
// a module missing its Vector Halt was rejected by verify and accepted
// here): on hardware the engine runs past the end of its stream.
func checkHalts(a *activation) error {
	f := a.fr.f
	for _, e := range stream.Engines {
		s := stream.EngineStream(e)
		if int(s) >= len(a.lists) || !a.L.Present[s] {
			continue
		}
		l := a.lists[s]
		if len(l) == 0 || f.Inst(l[len(l)-1]).Op != bir.OpHalt {
			return &Error{Kind: ErrOperand, Func: f.Name, Msg: fmt.Sprintf("the %s engine's stream does not end with Halt: want every engine stream of the entry function to end with Halt (the engine would run past its stream's end)", s.Name())}
		}
	}
	return nil
}

func moduleHasLoops(m *bir.Module) bool {
	for _, f := range m.Funcs {
		if bir.HasLoops(f) {
			return true
		}
	}
	return false
}

// runtimeTrips returns the trip counts of m's loops whose trip count is
// known only at run time, from a sequential run on inputs (see the file
// comment); nil when m has none.
func runtimeTrips(m *bir.Module, inputs map[string]*Tensor, opt Options) (func(*bir.Function, bir.InstID) (int64, bool), error) {
	has := false
	for _, f := range m.Funcs {
		f.Walk(func(i bir.InstID) bool {
			has = has || f.IsRuntimeLoop(i)
			return !has
		})
	}
	if !has {
		return nil, nil
	}
	type key struct {
		f    string
		loop bir.InstID
	}
	trips := map[key]int64{}
	var clash error
	in := make(map[string]*Tensor, len(inputs))
	for k, t := range inputs {
		c := *t
		c.Data = slices.Clone(t.Data)
		in[k] = &c
	}
	opt.OnLoopTrips = func(f *bir.Function, l bir.InstID, n int64) {
		k := key{f.Name, l}
		if old, ok := trips[k]; ok && old != n && clash == nil {
			clash = fmt.Errorf("function %s, loop %s: its trip count is a run-time value, %d at one entry and %d at another: the concurrent interpreter expands a runtime loop with one trip count per function", f.Name, f.InstName(l), old, n)
		}
		trips[k] = n
	}
	if _, err := Run(m, in, opt); err != nil {
		return nil, fmt.Errorf("the sequential run that computes the runtime loops' trip counts: %v", err)
	}
	if clash != nil {
		return nil, clash
	}
	return func(f *bir.Function, l bir.InstID) (int64, bool) {
		return trips[key{f.Name, l}], true
	}, nil
}
