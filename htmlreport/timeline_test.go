package htmlreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/kernels"
	"github.com/narwhal-compiler/narwhal/pass"
	"github.com/narwhal-compiler/narwhal/pipeline"
)

// compiled is builtin:spec through the default pipeline.
func compiled(t *testing.T, spec string) (*bir.Module, *pass.Report, *Recorder) {
	t.Helper()
	m, err := kernels.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := New("builtin:"+spec, "narwhal compile builtin:"+spec+" --html k.html")
	rep, err := pipeline.Table.Run(m, pass.Config{Printer: bir.Print, Observer: r})
	if err != nil {
		t.Fatal(err)
	}
	return m, rep, r
}

// TestBuildTimeline: the timeline of a scheduled module has a box per
// scheduled instruction at its schedule's times, a lane per engine and
// DMA queue that runs something (engines first, coloured apart from the
// queues), the dependencies between boxes, and no timeline (with the
// reason) for a module without a schedule.
func TestBuildTimeline(t *testing.T) {
	m, _, _ := compiled(t, "tensor_add:rows=256,cols=64")
	tv := buildTimeline(m)
	if tv.Why != "" || tv.JSON == "" {
		t.Fatalf("no timeline: %s", tv.Why)
	}
	var d timelineData
	if err := json.Unmarshal([]byte(tv.JSON), &d); err != nil {
		t.Fatal(err)
	}
	f := m.Main()
	if len(d.Start) != tv.Insts || tv.Insts != int(f.NumInsts()) {
		t.Errorf("%d boxes, %d scheduled, %d instructions: want one box per instruction", len(d.Start), tv.Insts, f.NumInsts())
	}
	for k, name := range d.Name {
		i, ok := f.InstByName(name)
		if !ok || d.Start[k] != f.Sched.Start[i] || d.End[k] != f.Sched.End[i] {
			t.Fatalf("box %d (%s): [%d, %d], want the schedule's times", k, name, d.Start[k], d.End[k])
		}
		lane := d.Lanes[d.Lane[k]]
		if q := f.Sched.Queue[i]; q >= 0 && lane != fmt.Sprintf("queue %d", q) || q < 0 && lane != f.Inst(i).Engine.String() {
			t.Fatalf("box %d (%s) on lane %s", k, name, lane)
		}
	}
	if !slices.Contains(d.Lanes, "DVE") || !slices.Contains(d.Lanes, "queue 0") || slices.Index(d.Lanes, "DVE") > slices.Index(d.Lanes, "queue 0") {
		t.Errorf("lanes %v: want the engines, then the queues", d.Lanes)
	}
	if d.Colors[slices.Index(d.Lanes, "DVE")] == d.Colors[slices.Index(d.Lanes, "queue 0")] {
		t.Error("an engine and a DMA queue share a colour")
	}
	if len(d.Deps) == 0 || len(d.Deps)%2 != 0 {
		t.Errorf("%d dependency entries: want pairs", len(d.Deps))
	}
	unscheduled, err := kernels.Build("tensor_add:rows=256,cols=64")
	if err != nil {
		t.Fatal(err)
	}
	if tv := buildTimeline(unscheduled); tv.JSON != "" || !strings.Contains(tv.Why, "no schedule") {
		t.Errorf("an unscheduled module: timeline %q, why %q", tv.JSON, tv.Why)
	}
}

// TestMemoryMap: a rectangle per placed SBUF and PSUM location, named on
// hover; none (with the reason) before the memory planner.
func TestMemoryMap(t *testing.T) {
	m, _, _ := compiled(t, "matmul:m=128,k=128,n=512")
	svg, why := memoryMap(m)
	if svg == "" {
		t.Fatalf("no memory map: %s", why)
	}
	f := m.Main()
	placed := 0
	for l := 0; l < f.NumLocs(); l++ {
		lc := f.Loc(bir.LocID(l))
		if !lc.Dead && lc.Allocated && (lc.Type == bir.MemSB || lc.Type == bir.MemPSUM) {
			placed++
			if !strings.Contains(string(svg), "<title>"+lc.Name+":") {
				t.Errorf("location %s is not on the map", lc.Name)
			}
		}
	}
	if got := strings.Count(string(svg), "<title>"); got != placed {
		t.Errorf("%d rectangles, %d placed locations", got, placed)
	}
	for _, mem := range []string{">SBUF<", ">PSUM<"} {
		if !strings.Contains(string(svg), mem) {
			t.Errorf("the map has no %s panel", mem)
		}
	}
	raw, _ := kernels.Build("matmul:m=128,k=128,n=512")
	if svg, why := memoryMap(raw); svg != "" || why == "" {
		t.Errorf("an unallocated module: map %d bytes, why %q", len(svg), why)
	}
}

// TestWrite_Pictures: the page carries the timeline's data and script,
// the memory map inline, and an instruction-count bar per pass that ran.
func TestWrite_Pictures(t *testing.T) {
	m, rep, r := compiled(t, "tensor_add:rows=256,cols=64")
	var b bytes.Buffer
	if err := r.Write(&b, rep, m, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"var TIMELINE = {", `id="timeline"`, `id="tlarrows"`, `<svg xmlns="http://www.w3.org/2000/svg" id="memmap"`, `class="ibar"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	ran := 0
	for _, p := range rep.Passes {
		if p.Skipped == "" {
			ran++
		}
	}
	if got := strings.Count(page, `<div class="ibar" `); got != ran {
		t.Errorf("%d instruction bars, %d passes ran", got, ran)
	}
	if strings.Contains(page, "http://") && strings.Count(page, "http://") != strings.Count(page, "http://www.w3.org/") {
		t.Error("the page refers to a network resource")
	}
}
