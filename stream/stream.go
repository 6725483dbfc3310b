// Package stream is narwhal's model of a synchronized program: the
// scheduled function projected onto its engines' and DMA queues'
// instruction streams (seed 002 §6.6: "per-engine <eng>.bin"), and the
// semantics of the semaphore commands, barriers and DMA triggers that
// order those streams (seed 002 §6.5). One model, used by everything that
// reads synchronization: the pass that writes it (passes/semaphores), the
// verifier's StageSynchronized rules (an exact happens-before check), the
// concurrent interpreter that executes the streams (interp.RunConcurrent),
// the `--streams` listings and the sync-latency simulation.
//
// # Streams
//
// A synchronized function is straight-line code with a schedule
// (bir.Schedule) and a synchronization table (bir.Sync). Its streams:
//
//   - one per engine the generation has (Tensor, Vector, Scalar, GpSimd,
//     Sync): the instructions that run on it (Instruction.Engine), the
//     DMAs it triggers (Sync.Trigger) and every call, in program order;
//   - one per DMA queue a DMA uses: its DMAs (Schedule.Queue), in program
//     order (which is the queue's Order).
//
// An instruction without an engine that is not a DMA or a call (ReadVarAddr,
// a no-op: the scheduler places them on no timeline) runs on the Home
// stream: the Sync engine, "a sequencer mostly used to trigger DMAs"
// (hardware.md), or the first engine the generation has without one.
//
// # Execution (what the concurrent interpreter does, what the
// happens-before check assumes)
//
//   - An engine runs its stream in order, one instruction at a time: it
//     waits until every wait command (S, v) holds (semaphore S >= v),
//     issues the instruction (reads its sources), completes it (writes its
//     destinations, then adds each update command's value to its
//     semaphore) and only then takes the next one.
//   - A DMA in an engine's stream is its trigger: the engine executes the
//     DMA's waits, fires the DMA and goes on without waiting for the
//     transfer. A queue runs its DMAs in order: the head starts once it
//     has been triggered and the previous DMA of the queue has completed;
//     at completion the queue makes the DMA's updates (a DMA's updates are
//     its queue's: "datapath semaphore must be updated by datapath instr",
//     seed 002 §6.5).
//   - Drain on an engine waits until every DMA that engine triggered has
//     completed. Halt ends an engine's stream.
//   - AllEngineBarrier: every engine of the group (the attribute "id"
//     names the group; every engine stream has one member, and the members
//     are adjacent in program order) waits until all engines have reached
//     it and every DMA triggered before it has completed.
//     GroupResetSemaphores (attribute "semaphores": the ids) sets those
//     semaphores to 0; it stands between two barrier groups, so no engine
//     observes a semaphore while it is reset: the rotation of
//     AllocSemaphores::addSemaphoreRotationWait.
//   - A call is in every engine stream: all engines and queues finish what
//     precedes it, every semaphore is reset to 0, the callee's streams run
//     to completion, the semaphores are reset again, and the caller's
//     streams go on (a call is an all-engine barrier on both sides).
//   - CoreBarrier (two-core kernels): the engine holding it waits until
//     every core of its "cores" attribute has reached the CoreBarrier with
//     the same "id".
//   - EventSemaphore has no effect beyond its commands (a carrier of waits
//     or updates for an instruction that needs more than the wire limit).
//
// Semaphore ownership: each semaphore is updated by one stream only (its
// owner), so its value counts that stream's updates in stream order and a
// wait names a fixed completion: the semantics above make happens-before
// a property of the program, the same in every interleaving, which the
// verifier computes exactly (Check) and the concurrent interpreter
// observes.
package stream

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
)

// ID identifies a stream of a function: an engine stream has the engine's
// number (bir.Engine), queue q the number FirstQueue+q.
type ID int32

// FirstQueue is the ID of DMA queue 0's stream.
const FirstQueue = ID(bir.NumEngines)

// None marks "no stream".
const None ID = -1

// Engines are the engines that run instruction streams, in listing order.
var Engines = []bir.Engine{bir.EngPE, bir.EngDVE, bir.EngAct, bir.EngPool, bir.EngSP}

// EngineStream returns the stream of engine e.
func EngineStream(e bir.Engine) ID { return ID(e) }

// QueueStream returns the stream of DMA queue q.
func QueueStream(q int) ID { return FirstQueue + ID(q) }

// IsQueue reports whether s is a DMA queue's stream.
func (s ID) IsQueue() bool { return s >= FirstQueue }

// Queue returns the queue number of a queue stream.
func (s ID) Queue() int { return int(s - FirstQueue) }

// Engine returns the engine of an engine stream.
func (s ID) Engine() bir.Engine { return bir.Engine(s) }

// Name names a stream as the Neuron profiler names its rows: Tensor,
// Vector, Scalar, GpSimd, Sync, "DMA queue 3".
func (s ID) Name() string {
	switch {
	case s == None:
		return "none"
	case s.IsQueue():
		return fmt.Sprintf("DMA queue %d", s.Queue())
	}
	return s.Engine().ProfilerName()
}

// ParseName reads a stream name: an engine as the profiler names it or as
// BIR-JSON spells it (Tensor, PE, Vector, DVE, Scalar, Activation, GpSimd,
// Pool, Sync, SP, any case), or a DMA queue ("queue3", "q3", "DMA queue
// 3", "dma3").
func ParseName(name string) (ID, error) {
	if e, err := bir.ParseEngine(name); err == nil && e != bir.EngUnassigned && e != bir.EngDMA {
		return EngineStream(e), nil
	}
	low := make([]byte, 0, len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c == ' ' || c == '_' || c == '-' {
			continue
		}
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	l := string(low)
	for _, e := range Engines {
		if l == lower(e.ProfilerName()) || l == lower(e.String()) {
			return EngineStream(e), nil
		}
	}
	for _, p := range []string{"dmaqueue", "queue", "dma", "q"} {
		if len(l) > len(p) && l[:len(p)] == p {
			n := 0
			ok := true
			for _, c := range l[len(p):] {
				if c < '0' || c > '9' || n > 1<<20 {
					ok = false
					break
				}
				n = n*10 + int(c-'0')
			}
			if ok {
				return QueueStream(n), nil
			}
		}
	}
	return None, fmt.Errorf("unknown engine or queue %q (want Tensor, Vector, Scalar, GpSimd, Sync, or a DMA queue such as queue3)", name)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Layout is the stream projection of one function.
type Layout struct {
	F *bir.Function
	// NumStreams is FirstQueue + the number of queues (stream IDs are
	// below it).
	NumStreams int
	// Present[s]: the stream exists (an engine of the generation, or a
	// queue some DMA uses).
	Present []bool
	// Insts is the function's instructions in program order; Prog[i] is
	// the program position of instruction i (-1 outside).
	Insts []bir.InstID
	Prog  []int32
	// Eng[i] is the engine stream of instruction i (its engine, a DMA's
	// trigger engine; a call or an instruction without an engine: Home;
	// None: not in the function or NoTriggers), EPos[i] its position
	// there; Q[i] the queue stream of a DMA (None otherwise), QPos[i] its
	// position there. Every instruction is in an engine stream.
	Eng  []ID
	EPos []int32
	Q    []ID
	QPos []int32
	// Len[s] is the length of stream s.
	Len []int32
	// Home is the stream of instructions without an engine and the one a
	// call is recorded in (the Sync engine, else the first present
	// engine); a call is in every engine stream at the positions CallPos
	// gives.
	Home ID
	// Calls lists the calls in program order; CallPos[k][s] is call k's
	// position in engine stream s.
	Calls   []bir.InstID
	CallPos [][]int32
}

// Options configure Build.
type Options struct {
	// Engines present on the generation (nil: those Engines lists).
	HasEngine func(bir.Engine) bool
	// Queues is the number of DMA queues (0: one more than the largest
	// queue a DMA uses).
	Queues int
	// NoTriggers builds the layout of a scheduled function whose DMAs have
	// no trigger engine yet: a DMA is then in no engine stream.
	NoTriggers bool
}

// Build returns the stream layout of f, which must be straight-line and
// scheduled (every DMA with a queue) and, unless NoTriggers, have a
// trigger engine for every DMA (f.Sync).
func Build(f *bir.Function, opt Options) (*Layout, error) {
	n := f.NumInstSlots()
	L := &Layout{F: f, Insts: make([]bir.InstID, 0, n), Prog: make([]int32, n), Eng: make([]ID, n), EPos: make([]int32, n), Q: make([]ID, n), QPos: make([]int32, n)}
	for i := range n {
		L.Prog[i], L.Eng[i], L.EPos[i], L.Q[i], L.QPos[i] = -1, None, -1, None, -1
	}
	tab := f.Sched
	nq := opt.Queues
	var err error
	f.Walk(func(i bir.InstID) bool {
		in := f.Inst(i)
		if in.Op.IsLoop() {
			err = f.Errorf(i, "a loop remains; streams need straight-line code (bir.Expand gives a loop function's instances)")
			return false
		}
		if in.Op.Info().Has(bir.FlagDMA) {
			if tab == nil || int(i) >= tab.Len() || tab.Queue[i] < 0 {
				err = f.Errorf(i, "DMA without a queue (want a scheduled function)")
				return false
			}
			if opt.Queues <= 0 {
				nq = max(nq, int(tab.Queue[i])+1)
			}
		}
		L.Prog[i] = int32(len(L.Insts))
		L.Insts = append(L.Insts, i)
		return true
	})
	if err != nil {
		return nil, err
	}
	L.NumStreams = int(FirstQueue) + nq
	L.Present = make([]bool, L.NumStreams)
	L.Len = make([]int32, L.NumStreams)
	has := opt.HasEngine
	if has == nil {
		has = func(bir.Engine) bool { return true }
	}
	L.Home = None
	for _, e := range Engines {
		if has(e) {
			L.Present[EngineStream(e)] = true
			if L.Home == None {
				L.Home = EngineStream(e)
			}
		}
	}
	if has(bir.EngSP) {
		L.Home = EngineStream(bir.EngSP)
	}
	if L.Home == None {
		return nil, fmt.Errorf("function %s: the generation has no engine", f.Name)
	}
	sy := f.Sync
	for _, i := range L.Insts {
		in := f.Inst(i)
		info := in.Op.Info()
		switch {
		case info.Has(bir.FlagDMA):
			q := int(tab.Queue[i])
			if q >= nq {
				return nil, f.Errorf(i, "DMA queue %d: want 0..%d", q, nq-1)
			}
			s := QueueStream(q)
			L.Present[s] = true
			L.Q[i], L.QPos[i] = s, L.Len[s]
			L.Len[s]++
			if opt.NoTriggers {
				continue
			}
			t := bir.EngUnassigned
			if sy != nil && int(i) < sy.Len() {
				t = sy.Trigger[i]
			}
			if t == bir.EngUnassigned || t == bir.EngDMA || t >= bir.NumEngines || !L.Present[EngineStream(t)] {
				return nil, f.Errorf(i, "DMA without a trigger engine of the generation (have %s; want one of the engines that run streams)", t)
			}
			es := EngineStream(t)
			L.Eng[i], L.EPos[i] = es, L.Len[es]
			L.Len[es]++
		case info.Has(bir.FlagCall):
			pos := make([]int32, L.NumStreams)
			for s := range pos {
				pos[s] = -1
			}
			for _, e := range Engines {
				if s := EngineStream(e); L.Present[s] {
					pos[s] = L.Len[s]
					L.Len[s]++
				}
			}
			L.Eng[i], L.EPos[i] = L.Home, pos[L.Home]
			L.Calls = append(L.Calls, i)
			L.CallPos = append(L.CallPos, pos)
		case in.Engine != bir.EngUnassigned && in.Engine != bir.EngDMA && in.Engine < bir.NumEngines:
			s := EngineStream(in.Engine)
			if !L.Present[s] {
				return nil, f.Errorf(i, "engine %s is not on the generation", in.Engine)
			}
			L.Eng[i], L.EPos[i] = s, L.Len[s]
			L.Len[s]++
		default:
			s := L.Home
			L.Eng[i], L.EPos[i] = s, L.Len[s]
			L.Len[s]++
		}
	}
	return L, nil
}

// IsCall reports whether instruction i is a call (in every engine stream).
func (L *Layout) IsCall(i bir.InstID) bool {
	return L.F.Inst(i).Op.Info().Has(bir.FlagCall)
}

// IsDMA reports whether instruction i is a DMA.
func (L *Layout) IsDMA(i bir.InstID) bool { return L.Q[i] != None }

// Lists returns every stream's instructions in order (a call appears in
// every engine stream).
func (L *Layout) Lists() [][]bir.InstID {
	out := make([][]bir.InstID, L.NumStreams)
	for s := range out {
		out[s] = make([]bir.InstID, 0, L.Len[s])
	}
	for _, i := range L.Insts {
		if L.IsCall(i) {
			for s := range out {
				if L.Present[s] && !ID(s).IsQueue() {
					out[s] = append(out[s], i)
				}
			}
			continue
		}
		if s := L.Eng[i]; s != None {
			out[s] = append(out[s], i)
		}
		if s := L.Q[i]; s != None {
			out[s] = append(out[s], i)
		}
	}
	return out
}

// WaitStream returns the stream that executes instruction i's waits: its
// engine stream (a DMA's trigger engine).
func (L *Layout) WaitStream(i bir.InstID) ID { return L.Eng[i] }

// DoneStream returns the stream on which instruction i completes (and
// makes its updates): a DMA's queue, else its engine stream.
func (L *Layout) DoneStream(i bir.InstID) ID {
	if q := L.Q[i]; q != None {
		return q
	}
	return L.Eng[i]
}

// DonePos returns the position of instruction i in its DoneStream.
func (L *Layout) DonePos(i bir.InstID) int32 {
	if L.Q[i] != None {
		return L.QPos[i]
	}
	return L.EPos[i]
}

// Deps calls fn for every dependency of instruction x on an instruction
// of the layout (dependencies on removed or unknown instructions are
// skipped), in the order the IR lists them.
func (L *Layout) Deps(x bir.InstID, fn func(p bir.InstID, kind bir.DepKind)) {
	f := L.F
	for d := f.Inst(x).Deps; d >= 0; {
		dep, next, ok := f.DepRecord(d)
		if !ok {
			return
		}
		d = next
		if p := dep.On; int(p) >= 0 && int(p) < len(L.Prog) && L.Prog[p] >= 0 {
			fn(p, dep.Kind)
		}
	}
}
