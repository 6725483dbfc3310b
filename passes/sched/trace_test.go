package sched_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/driver"
	"github.com/narwhal-compiler/narwhal/internal/schedtest"
	"github.com/narwhal-compiler/narwhal/internal/sharedtest"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/passes/sched"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

type traceEvent struct {
	Ph   string          `json:"ph"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	ID   int64           `json:"id"`
	Bp   string          `json:"bp"`
	Args json.RawMessage `json:"args"`
}

type sliceArgs struct {
	Opcode   string `json:"opcode"`
	Operands string `json:"operands"`
	Source   string `json:"source"`
	StartPs  int64  `json:"start_ps"`
	EndPs    int64  `json:"end_ps"`
}

// checkTrace parses a trace and checks what the issue asks of it: it
// parses; events on one track never overlap (a DMA engine's transfers
// included: the DMA model's engines are exclusive); every dependency (a
// flow from the producer's slice to the consumer's) has the consumer start
// after the producer ends; there is one flow per dependency of m and one
// slice per instruction, and every DMA's transfer lies within its
// instruction's slice; the tracks carry the profiler's names; the counter
// tracks are there.
func checkTrace(t *testing.T, data []byte, m *bir.Module) (slices_ int, withSource int) {
	t.Helper()
	var doc struct {
		TraceEvents []traceEvent `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the trace does not parse: %v", err)
	}
	type key struct{ pid, tid int }
	type sl struct {
		start, end int64
		name       string
	}
	tracks := map[key][]sl{}
	names := map[key]string{}
	flows := map[int64][2]*traceEvent{}
	counters := map[string]int{}
	type key2 struct {
		pid  int
		name string
	}
	type xfer struct {
		pid        int
		name       string
		start, end int64
	}
	byName := map[key2]sl{}
	var transfers []xfer
	for k := range doc.TraceEvents {
		e := &doc.TraceEvents[k]
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				var a struct{ Name string }
				if err := json.Unmarshal(e.Args, &a); err != nil {
					t.Fatal(err)
				}
				names[key{e.Pid, e.Tid}] = a.Name
			}
		case "X":
			var a sliceArgs
			if err := json.Unmarshal(e.Args, &a); err != nil {
				t.Fatal(err)
			}
			if e.Cat == "dma-transfer" {
				tracks[key{e.Pid, e.Tid}] = append(tracks[key{e.Pid, e.Tid}], sl{a.StartPs, a.EndPs, e.Name})
				transfers = append(transfers, xfer{e.Pid, e.Name, a.StartPs, a.EndPs})
				continue
			}
			byName[key2{e.Pid, e.Name}] = sl{a.StartPs, a.EndPs, e.Name}
			if a.Opcode == "" || a.Operands == "" && a.Opcode != "NoOp" && !syncOpcode(a.Opcode) {
				t.Errorf("slice %s: args %s lack the opcode or operands", e.Name, e.Args)
			}
			if a.Source != "" {
				withSource++
			}
			tracks[key{e.Pid, e.Tid}] = append(tracks[key{e.Pid, e.Tid}], sl{a.StartPs, a.EndPs, e.Name})
			slices_++
		case "s", "f":
			pr := flows[e.ID]
			if e.Ph == "s" {
				pr[0] = e
			} else {
				pr[1] = e
				if e.Bp != "e" {
					t.Errorf("flow %d: finish without bp \"e\"", e.ID)
				}
			}
			flows[e.ID] = pr
		case "C":
			counters[e.Name]++
		}
	}
	for k, list := range tracks {
		if names[k] == "" {
			t.Errorf("track %v has no name", k)
		}
		slices.SortFunc(list, func(a, b sl) int { return int(a.start - b.start) })
		for j := 1; j < len(list); j++ {
			if list[j].start < list[j-1].end {
				t.Errorf("track %s: %s [%d, %d) overlaps %s [%d, %d)", names[k], list[j].name, list[j].start, list[j].end, list[j-1].name, list[j-1].start, list[j-1].end)
			}
		}
	}
	// Find the slice a flow event binds to: the one on its track starting
	// at its timestamp.
	at := func(e *traceEvent) *sl {
		for j, s := range tracks[key{e.Pid, e.Tid}] {
			if float64(s.start)/1e6 == e.Ts {
				return &tracks[key{e.Pid, e.Tid}][j]
			}
		}
		t.Fatalf("flow %d at %v us on track %d: no slice starts there", e.ID, e.Ts, e.Tid)
		return nil
	}
	for id, pr := range flows {
		if pr[0] == nil || pr[1] == nil {
			t.Errorf("flow %d lacks its start or finish", id)
			continue
		}
		p, c := at(pr[0]), at(pr[1])
		if c.start < p.end {
			t.Errorf("dependency %s -> %s: the consumer starts at %d ps, before the producer ends at %d ps", p.name, c.name, c.start, p.end)
		}
	}
	for _, x := range transfers {
		in, ok := byName[key2{x.pid, x.name}]
		if !ok || x.start < in.start || x.end != in.end || x.start > x.end {
			t.Errorf("transfer of %s [%d, %d): want within its instruction's slice [%d, %d), ending with it", x.name, x.start, x.end, in.start, in.end)
		}
	}
	deps, insts := 0, 0
	for _, f := range m.Funcs {
		if f.Sched == nil {
			continue
		}
		f.Walk(func(i bir.InstID) bool {
			insts++
			deps += len(f.Deps(i))
			return true
		})
	}
	if len(flows) != deps || slices_ != insts {
		t.Errorf("%d flows for %d dependencies, %d slices for %d instructions", len(flows), deps, slices_, insts)
	}
	for _, c := range []string{"SBUF bytes in use", "PSUM banks in use"} {
		if counters[c] == 0 {
			t.Errorf("no %q counter", c)
		}
	}
	for _, n := range names {
		if n == "Tensor" || n == "Vector" || n == "Scalar" || n == "GpSimd" || n == "Sync" || len(n) > 10 && (n[:10] == "DMA queue " || n[:11] == "DMA engine ") || n == "calls (every engine)" || n == "no engine" {
			continue
		}
		t.Errorf("track name %q is not the profiler's", n)
	}
	return slices_, withSource
}

// TestWriteTrace_Kernels writes and checks the trace of every kernel's
// default instance (placed with reuse, so PSUM banks are shared).
func TestWriteTrace_Kernels(t *testing.T) {
	model, _ := arch.Lookup("trn2")
	for _, k := range kernels.All() {
		t.Run(k.Name, func(t *testing.T) {
			inst, err := kernels.Instantiate(k.Name)
			if err != nil {
				t.Fatal(err)
			}
			m := inst.Module
			if err := schedtest.Prepare(m, model, "roundrobin", 1); err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Table.Run(m, pass.Config{Passes: ours}); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := sched.WriteTrace(&buf, m, model); err != nil {
				t.Fatal(err)
			}
			n, _ := checkTrace(t, buf.Bytes(), m)
			if n == 0 && m.Main().Sched != nil {
				t.Error("no slices")
			}
		})
	}
}

// TestWriteTrace_SourcePositions: a KLR kernel's instructions carry their
// NKI source positions into the trace's args.
func TestWriteTrace_SourcePositions(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "fixtures", "klr")
	names := sharedtest.KLRNames(t, dir)
	if names == nil {
		return
	}
	for _, name := range names {
		if name == "tensor_add_lnc2" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			m, err := driver.Load(filepath.Join(dir, name+".klr"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pipeline.Table.Run(m, pass.Config{}); err != nil {
				t.Fatal(err)
			}
			model, _ := arch.ForModule(m)
			var buf bytes.Buffer
			if err := sched.WriteTrace(&buf, m, model); err != nil {
				t.Fatal(err)
			}
			n, src := checkTrace(t, buf.Bytes(), m)
			if src == 0 || n == 0 {
				t.Errorf("%d slices, %d with a source position: want positions from the KLR statements", n, src)
			}
		})
	}
}

// syncOpcode reports whether op is a synchronization opcode (semaphores,
// barriers, Drain, Halt: no operands; alloc_semaphores adds them).
func syncOpcode(op string) bool {
	o, ok := bir.LookupOpcode(op)
	return ok && o.Info().Has(bir.FlagSync)
}
