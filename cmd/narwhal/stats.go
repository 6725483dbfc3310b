package main

import (
	"encoding/json"
	"runtime"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/pass"
)

// The --stats FILE option of compile and full-unroll: what each phase of the
// command cost (load, every pass and its verification, save), written as
// JSON for narwhal bench. Per phase: wall and CPU time, bytes allocated,
// and the Go heap still in use after it (measured with a full collection
// after the phase, outside its interval: --stats slows a command down by
// those collections, so bench takes its totals from a run without it).

// phaseStat is one phase of a command.
type phaseStat struct {
	Name     string `json:"name"`
	WallNS   int64  `json:"wall_ns"`
	CPUNS    int64  `json:"cpu_ns"`
	Alloc    uint64 `json:"alloc_bytes"`
	LiveHeap uint64 `json:"live_heap_bytes"`
	// PeakLive and PeakHeap: the largest live heap (as of a collection)
	// and heap in use (live and garbage) seen during the phase.
	PeakLive uint64 `json:"peak_live_heap_bytes,omitempty"`
	PeakHeap uint64 `json:"peak_heap_in_use_bytes,omitempty"`
	Insts    int64  `json:"insts"` // instructions after the phase
}

// cmdStats is the --stats file of one command.
type cmdStats struct {
	Command string      `json:"command"`
	Input   string      `json:"input"`
	Insts   int64       `json:"insts"`
	PeakRSS int64       `json:"peak_rss_bytes"`
	Phases  []phaseStat `json:"phases"`
	GoMaxP  int         `json:"gomaxprocs"`

	path string
}

// newStats returns the recorder for --stats path, or nil when path is "".
// Every method works on nil (and then only runs the phase).
func newStats(path, command, input string) *cmdStats {
	if path == "" {
		return nil
	}
	pass.StartPeakSampler()
	return &cmdStats{Command: command, Input: input, path: path, GoMaxP: runtime.GOMAXPROCS(0)}
}

// phase runs fn as the phase name; insts reports the instructions after it.
func (s *cmdStats) phase(name string, insts func() int64, fn func() error) error {
	if s == nil {
		return fn()
	}
	mt := pass.NewMeter()
	err := fn()
	u := mt.Usage()
	s.add(name, u, insts())
	return err
}

func (s *cmdStats) add(name string, u pass.Usage, insts int64) {
	s.Phases = append(s.Phases, phaseStat{Name: name, WallNS: int64(u.Wall), CPUNS: int64(u.CPU), Alloc: u.Alloc, LiveHeap: pass.LiveHeap(), PeakLive: u.PeakLive, PeakHeap: u.PeakHeap, Insts: insts})
}

// passes records the pass manager's phases: the input's verification, then
// each pass and the verification after it.
func (s *cmdStats) passes(rep *pass.Report) {
	if s == nil || rep == nil {
		return
	}
	var before int64
	if len(rep.Passes) > 0 {
		before = rep.Passes[0].InstsBefore
	}
	s.Phases = append(s.Phases, phaseStat{Name: "verify input", WallNS: int64(rep.InputVerify.Wall), CPUNS: int64(rep.InputVerify.CPU), Alloc: rep.InputVerify.Alloc, Insts: before})
	for _, p := range rep.Passes {
		if p.Skipped != "" {
			continue
		}
		s.Phases = append(s.Phases, phaseStat{Name: p.Name, WallNS: int64(p.Wall), CPUNS: int64(p.CPU), Alloc: p.Alloc, LiveHeap: p.LiveHeap, PeakLive: p.PeakLive, PeakHeap: p.PeakHeap, Insts: p.InstsAfter})
		if p.VerifyWall > 0 {
			s.Phases = append(s.Phases, phaseStat{Name: "verify " + p.Name, WallNS: int64(p.VerifyWall), CPUNS: int64(p.VerifyCPU), PeakLive: p.VerifyPeakLive, PeakHeap: p.VerifyPeakHeap, Insts: p.InstsAfter})
		}
	}
}

// write saves the file (a no-op on nil).
func (s *cmdStats) write(m *bir.Module) error {
	if s == nil {
		return nil
	}
	if m != nil {
		s.Insts = m.NumInsts()
	}
	s.PeakRSS = pass.PeakRSS()
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return pass.WriteFileAtomic(s.path, append(data, '\n'))
}

// instsOf returns a func reporting *m's instruction count (0 while nil).
func instsOf(m **bir.Module) func() int64 {
	return func() int64 {
		if *m == nil {
			return 0
		}
		return (*m).NumInsts()
	}
}
