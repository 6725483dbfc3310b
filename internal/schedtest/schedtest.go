// Package schedtest holds test helpers shared by the dependency analysis
// and scheduler tests (passes/deps, passes/sched): lowering a built-in
// kernel to the straight-line code those passes see, and placing its
// on-chip locations by hand until a module arrives allocated (tests only;
// the memory planner is passes/alloc's job).
package schedtest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// Before returns the default pipeline's passes that precede pass name
// (ungated ones), in table order, without performance tiling
// (sunda_size_tiling_perf): these tests study the dependency analysis and
// the scheduler on the kernels as written (the pipeline's tests cover the
// split programs).
func Before(name string) []string {
	var out []string
	for _, p := range pipeline.Table.Passes {
		if p.Name == name {
			break
		}
		if p.Default && p.Gate == "" && p.Name != "sunda_size_tiling_perf" {
			out = append(out, p.Name)
		}
	}
	return out
}

// Through runs the default pipeline up to and including pass name.
func Through(m *bir.Module, name string) (*pass.Report, error) {
	return pipeline.Table.Run(m, pass.Config{Passes: append(Before(name), name)})
}

// Lower runs the default pipeline up to (not including) pass name.
func Lower(m *bir.Module, name string) (*pass.Report, error) {
	return pipeline.Table.Run(m, pass.Config{Passes: Before(name)})
}

// BenchSize is the instruction count of the dependency and scheduler
// benchmarks' module: 1M by default, NARWHAL_BENCH_N to change it (the
// issue's 5M figure: NARWHAL_BENCH_N=5000000; run it under flock
// /work/.heavy.lock).
func BenchSize() int {
	if v, err := strconv.Atoi(os.Getenv("NARWHAL_BENCH_N")); err == nil && v > 0 {
		return v
	}
	return 1_000_000
}

// Placements Prepare offers.
var Placements = []string{"planner", "unplaced", "distinct", "roundrobin"}

// Prepare lowers a kernel to the code the dependency analysis sees, with
// its locations placed as placement says: "planner" runs the default
// pipeline up to the analysis (the memory planner's allocation); the
// others stop before the planner (pass alloc) and leave the locations
// unplaced ("unplaced") or place them with Place (Distinct, RoundRobin,
// Random for "distinct", "roundrobin", "random").
func Prepare(m *bir.Module, model *arch.Model, placement string, seed uint64) error {
	if placement == "planner" {
		_, err := Lower(m, "anti_dependency_analyzer")
		return err
	}
	if _, err := Lower(m, "alloc"); err != nil {
		return err
	}
	switch placement {
	case "unplaced":
	case "distinct":
		Place(m, model, Distinct, seed)
	case "roundrobin":
		Place(m, model, RoundRobin, seed)
	case "random":
		Place(m, model, Random, seed)
	default:
		return fmt.Errorf("schedtest: unknown placement %q", placement)
	}
	return nil
}

// Style is how Place lays locations out.
type Style uint8

const (
	// Distinct gives every SB location its own bytes when they all fit
	// (one byte cursor at partition 0; RoundRobin when they do not) and
	// every PSUM location a bank of its own while banks last, then the
	// bank freed longest ago.
	Distinct Style = iota
	// RoundRobin reuses bytes as soon as the program allows: in program
	// order, a location takes the slot (SBUF: a slot of the largest
	// location's size; PSUM: a bank) freed most recently by a location
	// whose last access precedes its first, so the placement is legal
	// (no two locations live at once share bytes) and reuse adds as many
	// WAR/WAW edges as it can.
	RoundRobin
	// Random places each location at a random legal-looking spot inside a
	// small arena, so that many share bytes in irregular ways (for the
	// dependency oracle; every placement is inside the memory).
	Random
)

// Place allocates every unallocated, live SB and PSUM location of m's
// functions (the locations a KLR kernel brings already allocated are
// kept). Placements respect the memory bounds and keep each PSUM location
// inside its banks; they are not checked against the partition-start rule
// beyond what the styles give (Distinct and RoundRobin put locations at
// partition 0).
func Place(m *bir.Module, model *arch.Model, style Style, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	sbCap := model.UsableSBUFBytes()
	bb := model.PSUMBankBytes
	nb := model.PSUMBanks
	for _, f := range m.Funcs {
		var sbs, psums []bir.LocID
		var sbTotal, sbMax int64
		for l := range f.NumLocs() {
			lc := f.Loc(bir.LocID(l))
			if lc.Dead || lc.Allocated {
				continue
			}
			switch lc.Type {
			case bir.MemSB:
				sbs = append(sbs, bir.LocID(l))
				b := align(lc.Bytes)
				sbTotal += b
				sbMax = max(sbMax, b)
			case bir.MemPSUM:
				psums = append(psums, bir.LocID(l))
			}
		}
		// Keep the placement clear of pinned or pre-allocated SB bytes
		// (KLR scratchpads, allocated kernels): start after them.
		var sbFloor int64
		for l := range f.NumLocs() {
			lc := f.Loc(bir.LocID(l))
			if !lc.Dead && lc.Allocated && lc.Type == bir.MemSB {
				sbFloor = max(sbFloor, align(lc.Addr+lc.Bytes))
			}
		}
		st := style
		if st == Distinct && sbFloor+sbTotal > sbCap {
			st = RoundRobin
		}
		cursor := sbFloor
		span := liveSpans(f)
		sbSlots := &slotSet{recent: true}
		psumSlots := &slotSet{recent: style == RoundRobin}
		for _, l := range sbs {
			lc := f.Loc(l)
			lc.Allocated, lc.Base = true, 0
			switch st {
			case Distinct:
				lc.Addr = cursor
				cursor += align(lc.Bytes)
			case RoundRobin:
				lc.Addr = sbFloor + sbSlots.take(span[l])*sbMax
			case Random:
				arena := max(4*sbMax, lc.Bytes)
				if sbFloor+arena > sbCap {
					arena = sbCap - sbFloor
				}
				span := max(arena-lc.Bytes, 0) / 4
				lc.Addr = sbFloor + rng.Int64N(span+1)*4
				if p := lc.Partitions; p <= 32 {
					lc.Base = []int64{0, 32, 64, 96}[rng.IntN(4)]
				} else if p <= 64 {
					lc.Base = []int64{0, 64}[rng.IntN(2)]
				}
			}
		}
		bank := int64(0)
		for _, l := range psums {
			lc := f.Loc(l)
			need := max((lc.Bytes+bb-1)/bb, 1)
			lc.Allocated, lc.Base, lc.Addr = true, 0, 0
			switch {
			case style == Random && need == 1:
				lc.Bank = rng.Int64N(nb)
				lc.Addr = rng.Int64N((bb-lc.Bytes)/4+1) * 4
			case style != Random && need == 1:
				lc.Bank = psumSlots.take(span[l]) % nb
			default:
				if bank+need > nb {
					bank = 0
				}
				lc.Bank = bank
				bank += need
			}
		}
	}
}

func align(b int64) int64 { return (b + 63) / 64 * 64 }

// liveSpans returns each location's first and last access position in
// program order ([-1, -1] when unused).
func liveSpans(f *bir.Function) map[bir.LocID][2]int {
	out := map[bir.LocID][2]int{}
	pos := 0
	f.Walk(func(i bir.InstID) bool {
		for _, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP {
				continue
			}
			sp, ok := out[o.Loc()]
			if !ok {
				sp[0] = pos
			}
			sp[1] = pos
			out[o.Loc()] = sp
		}
		pos++
		return true
	})
	return out
}

// slotSet hands out reusable slots: among the slots whose last occupant's
// last access precedes the new location's first, the one freed most
// recently (recent) or longest ago; else a new one.
type slotSet struct {
	lastEnd []int // per slot: the last access of its latest occupant
	recent  bool
}

func (s *slotSet) take(span [2]int) int64 {
	best := -1
	for k, e := range s.lastEnd {
		if e < span[0] && (best < 0 || s.recent && e > s.lastEnd[best] || !s.recent && e < s.lastEnd[best]) {
			best = k
		}
	}
	if best < 0 {
		best = len(s.lastEnd)
		s.lastEnd = append(s.lastEnd, 0)
	}
	s.lastEnd[best] = span[1]
	return int64(best)
}

// LoopProgram is a program that keeps loops through the default pipeline
// (FullUnroll level 0 or 1, or a DynamicForLoop at the default level):
// the loop tests of depgraph, passes/sched and passes/semaphores share
// them.
type LoopProgram struct {
	Name string
	// Spec is the built-in kernel's spec ("" for LoopPipeline).
	Spec string
	// Trips: LoopPipeline's trip count (Spec == "").
	Trips int64
	// Options are the pipeline's options (full_unroll.unrollLevel,
	// alloc.psum_interleave).
	Options map[string]map[string]string
}

// LoopPrograms are the loop programs the issue names (a level-0 compile
// of tensor_add and matmul, oversized with its DynamicForLoop, a kernel
// with a dynamic loop and ModuloAllocation's multi-buffering) and a few
// more: matmul with a dynamic M loop, attention at level 1 (rotating PSUM
// tiles), LoopPipeline with one PSUM slot.
func LoopPrograms() []LoopProgram {
	level := func(l string) map[string]map[string]string {
		return map[string]map[string]string{"full_unroll": {"unrollLevel": l}}
	}
	return []LoopProgram{
		{Name: "tensor_add level 0", Spec: "tensor_add", Options: level("0")},
		{Name: "matmul level 0", Spec: "matmul", Options: level("0")},
		{Name: "oversized dynamic", Spec: "oversized:case=force,dynamic=1"},
		{Name: "matmul dynamic M", Spec: "matmul:n=1024,dynamic=1"},
		{Name: "attention level 1", Spec: "attention:seq=256,d=32", Options: level("1")},
		{Name: "loop pipeline (2 PSUM slots)", Trips: 4},
		{Name: "loop pipeline (1 PSUM slot)", Trips: 4, Options: map[string]map[string]string{"alloc": {"psum_interleave": "1"}}},
	}
}

// Build returns the program's module (before any pass) and its kernel
// (nil for LoopPipeline).
func (p LoopProgram) Build() (*bir.Module, *kernels.Kernel, error) {
	if p.Spec == "" {
		m, err := kernels.LoopPipeline(p.Trips, "")
		return m, nil, err
	}
	inst, err := kernels.Instantiate(p.Spec)
	if err != nil {
		return nil, nil, err
	}
	return inst.Module, inst.Kernel, nil
}
