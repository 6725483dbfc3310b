package htmlreport

// What the page draws rather than tabulates (issue 27 item 14): the
// schedule as a timeline, the memory map, and the instruction count of
// every pass as bars.
//
//   - The timeline is the result's entry function as the scheduler placed
//     it (bir.Schedule): one lane per engine and per DMA queue that runs
//     something, one box per instruction from its start to its end,
//     coloured by engine (DMAs in one colour). The page's script draws it
//     as SVG from the data embedded in the page (timelineData, JSON);
//     hovering a box shows the instruction, its times and its kernel
//     source line (file:line and the line's text, internal/srcline) and
//     draws its dependencies; a checkbox draws every dependency arrow.
//     At most maxTimelineInsts instructions are drawn (the first in
//     program order; the page says how many there are), so the page stays
//     small and the script fast on any module.
//   - The memory map is drawn in Go as an inline SVG: SBUF and PSUM, one
//     rectangle per placed location from the first to the last instant an
//     instruction touches it (scheduled times; program order when the
//     module has no schedule) and over its bytes per partition (a PSUM
//     location at bank x bank bytes + address), with its name, partitions
//     and bytes on hover. It needs no --memmap: the page computes it from
//     the result (the alloc pass's --memmap picture, when asked for, is
//     still attached below).
//
// Decisions: a function without a schedule (a compile stopped before
// time_aware_scheduler, or one that failed) has no timeline, and the page
// says why; a module with loops draws only its scheduled instructions.

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/srcline"
)

// maxTimelineInsts bounds the boxes of the timeline; maxMapRects the
// rectangles of the memory map.
const (
	maxTimelineInsts = 20000
	maxTimelineDeps  = 50000
	maxMapRects      = 5000
)

// timelineData is what the page's script reads (columnar: index k of
// every array is instruction k of the timeline).
type timelineData struct {
	Lanes  []string `json:"lanes"`  // lane names
	Colors []string `json:"colors"` // a colour per lane
	Span   int64    `json:"span"`   // the last end, ps
	Lane   []int32  `json:"lane"`
	Start  []int64  `json:"start"` // ps
	End    []int64  `json:"end"`
	Name   []string `json:"name"`
	Op     []int32  `json:"op"`  // index into Ops
	Src    []int32  `json:"src"` // index into Srcs, -1 none
	Ops    []string `json:"ops"`
	Srcs   []string `json:"srcs"`
	Deps   []int32  `json:"deps"` // pairs: from, to
}

// timelineView is the timeline section of the page.
type timelineView struct {
	Func        string
	Insts       int // scheduled instructions
	Shown       int
	Lanes       int
	Makespan    string
	JSON        template.JS
	Why         string // no timeline: why
	LaneHeights int    // the SVG's height, for the page's layout before the script runs
}

// engineColors colour the engines' boxes (a colour-blind-safe palette);
// DMA queues share dmaColor.
var engineColors = map[bir.Engine]string{
	bir.EngPE: "#4e79a7", bir.EngDVE: "#59a14f", bir.EngAct: "#f28e2b", bir.EngPool: "#b07aa1", bir.EngSP: "#9c755f",
}

const dmaColor = "#76b7b2"

// laneEngines are the engine lanes in the order the page lists them.
var laneEngines = []bir.Engine{bir.EngPE, bir.EngDVE, bir.EngAct, bir.EngPool, bir.EngSP}

// buildTimeline makes the timeline of m's entry function.
func buildTimeline(m *bir.Module) *timelineView {
	if m == nil || m.Main() == nil {
		return &timelineView{Why: "there is no result module"}
	}
	f := m.Main()
	tv := &timelineView{Func: f.Name}
	s := f.Sched
	if s == nil || s.Len() == 0 {
		tv.Why = "the result has no schedule (time_aware_scheduler did not run)"
		return tv
	}
	type box struct {
		i    bir.InstID
		lane string
		eng  bir.Engine
	}
	var boxes []box
	f.Walk(func(i bir.InstID) bool {
		if !s.Has(i) {
			return true
		}
		tv.Insts++
		if len(boxes) >= maxTimelineInsts {
			return true
		}
		in := f.Inst(i)
		lane := in.Engine.String()
		eng := in.Engine
		if int(i) < len(s.Queue) && s.Queue[i] >= 0 {
			lane, eng = fmt.Sprintf("queue %d", s.Queue[i]), bir.EngDMA
		}
		boxes = append(boxes, box{i, lane, eng})
		return true
	})
	if len(boxes) == 0 {
		tv.Why = "no instruction of " + f.Name + " is scheduled"
		return tv
	}
	// Lanes: the engines in the profiler's order, then the queues by number.
	laneOf := map[string]int32{}
	d := timelineData{Deps: []int32{}, Srcs: []string{}} // [] not null for the script
	addLane := func(name, color string) {
		laneOf[name] = int32(len(d.Lanes))
		d.Lanes = append(d.Lanes, name)
		d.Colors = append(d.Colors, color)
	}
	used := map[string]bool{}
	maxQ := -1
	for _, b := range boxes {
		used[b.lane] = true
		if b.eng == bir.EngDMA && int(b.i) < len(s.Queue) {
			maxQ = max(maxQ, int(s.Queue[b.i]))
		}
	}
	for _, e := range laneEngines {
		if used[e.String()] {
			addLane(e.String(), engineColors[e])
		}
	}
	for _, b := range boxes {
		if _, ok := laneOf[b.lane]; !ok && b.eng != bir.EngDMA {
			addLane(b.lane, "#bab0ac") // an engine outside the usual five
		}
	}
	for q := 0; q <= maxQ; q++ {
		if name := fmt.Sprintf("queue %d", q); used[name] {
			addLane(name, dmaColor)
		}
	}
	ops := map[string]int32{}
	srcs := map[string]int32{}
	index := make(map[bir.InstID]int32, len(boxes))
	for k, b := range boxes {
		i := b.i
		index[i] = int32(k)
		in := f.Inst(i)
		op := in.Op.String()
		oi, ok := ops[op]
		if !ok {
			oi = int32(len(d.Ops))
			ops[op] = oi
			d.Ops = append(d.Ops, op)
		}
		si := int32(-1)
		if p := f.InstPos(i); p.IsKnown() {
			text := p.String()
			if line := srcline.Line(p.File, int(p.Line)); line != "" {
				text += ": " + line
			}
			var ok bool
			if si, ok = srcs[text]; !ok {
				si = int32(len(d.Srcs))
				srcs[text] = si
				d.Srcs = append(d.Srcs, text)
			}
		}
		d.Lane = append(d.Lane, laneOf[b.lane])
		d.Start = append(d.Start, s.Start[i])
		d.End = append(d.End, max(s.End[i], s.Start[i]))
		d.Name = append(d.Name, f.InstName(i))
		d.Op = append(d.Op, oi)
		d.Src = append(d.Src, si)
		d.Span = max(d.Span, s.End[i])
	}
	for k, b := range boxes {
		for _, dep := range f.Deps(b.i) {
			if j, ok := index[dep.On]; ok && len(d.Deps) < 2*maxTimelineDeps {
				d.Deps = append(d.Deps, j, int32(k))
			}
		}
	}
	data, err := json.Marshal(d)
	if err != nil {
		tv.Why = "the timeline could not be encoded: " + err.Error()
		return tv
	}
	tv.JSON = template.JS(data)
	tv.Shown, tv.Lanes = len(boxes), len(d.Lanes)
	tv.Makespan = fmt.Sprintf("%.3f us", float64(d.Span)/1e6)
	tv.LaneHeights = 40 + 22*len(d.Lanes)
	return tv
}

// memoryMap draws the placed SBUF and PSUM locations of m's entry
// function (see the file comment); "" when there are none.
func memoryMap(m *bir.Module) (template.HTML, string) {
	if m == nil || m.Main() == nil {
		return "", "there is no result module"
	}
	f := m.Main()
	model, err := arch.ForModule(m)
	if err != nil {
		return "", err.Error()
	}
	type live struct {
		first, last int64
		seen        bool
	}
	lives := make([]live, f.NumLocs())
	s := f.Sched
	pos := int64(0)
	scheduled := s != nil && s.Len() > 0
	f.Walk(func(i bir.InstID) bool {
		t0, t1 := pos, pos+1
		pos++
		if scheduled {
			if !s.Has(i) {
				return true
			}
			t0, t1 = s.Start[i], max(s.End[i], s.Start[i]+1)
		}
		for _, ops := range [2][]bir.Operand{f.Ins(i), f.Outs(i)} {
			for k := range ops {
				o := &ops[k]
				if o.Kind != bir.OpdPhysAP {
					continue
				}
				l := o.Loc()
				if int(l) < 0 || int(l) >= len(lives) {
					continue
				}
				lv := &lives[l]
				if !lv.seen {
					lv.first, lv.last, lv.seen = t0, t1, true
				}
				lv.first, lv.last = min(lv.first, t0), max(lv.last, t1)
			}
		}
		return true
	})
	type rect struct {
		mem              string
		t0, t1, a0, a1   int64
		name             string
		parts, bytes, bs int64
	}
	var rects []rect
	var span int64
	top := map[string]int64{"SBUF": model.SBUFBytesPerPartition, "PSUM": model.PSUMBytesPerPartition()}
	for l := range lives {
		lc := f.Loc(bir.LocID(l))
		lv := lives[l]
		if lc.Dead || !lc.Allocated || !lv.seen || (lc.Type != bir.MemSB && lc.Type != bir.MemPSUM) {
			continue
		}
		mem, a0 := "SBUF", lc.Addr
		if lc.Type == bir.MemPSUM {
			mem, a0 = "PSUM", model.PSUMAddress(lc.Bank, lc.Addr)
		}
		rects = append(rects, rect{mem, lv.first, lv.last, a0, a0 + lc.Bytes, lc.Name, lc.Partitions, lc.Bytes, lc.Base})
		span = max(span, lv.last)
		if len(rects) >= maxMapRects {
			break
		}
	}
	if len(rects) == 0 {
		return "", "the result places no SBUF or PSUM location (the memory planner did not run, or the kernel needs none)"
	}
	const W, H, left, gap = 1180.0, 200.0, 64.0, 36.0
	var sb strings.Builder
	mems := []string{"SBUF", "PSUM"}
	height := 0.0
	for _, mem := range mems {
		if slices.ContainsFunc(rects, func(r rect) bool { return r.mem == mem }) {
			height += H + gap
		}
	}
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" id="memmap" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="system-ui, sans-serif" font-size="11">`, W+left+10, height+10, W+left+10, height+10)
	y0 := 4.0
	unit := "ps"
	if !scheduled {
		unit = "instructions (program order)"
	}
	for _, mem := range mems {
		var rs []rect
		hi := int64(1)
		for _, r := range rects {
			if r.mem == mem {
				rs = append(rs, r)
				hi = max(hi, r.a1)
			}
		}
		if len(rs) == 0 {
			continue
		}
		if t := top[mem]; t > 0 && hi > t/8 {
			hi = max(hi, t) // near full: show the whole memory
		}
		fmt.Fprintf(&sb, `<text x="0" y="%.0f" font-weight="600">%s</text>`, y0+12, mem)
		fmt.Fprintf(&sb, `<text x="0" y="%.0f" fill="#5d6675">%s</text>`, y0+26, kibText(hi))
		fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="#f6f8fa" stroke="#d9dee6"/>`, left, y0, W, H)
		for k, r := range rs {
			x := left + W*float64(r.t0)/float64(max(span, 1))
			w := math.Max(W*float64(r.t1-r.t0)/float64(max(span, 1)), 1)
			y := y0 + H - H*float64(r.a1)/float64(hi)
			h := math.Max(H*float64(r.a1-r.a0)/float64(hi), 1)
			fmt.Fprintf(&sb, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.8" stroke="#fff" stroke-width="0.5"><title>%s: %s bytes [%d, %d) per partition, partitions [%d, %d), live %d..%d %s</title></rect>`,
				x, y, w, h, mapColor(k), template.HTMLEscapeString(r.name), mem, r.a0, r.a1, r.bs, r.bs+r.parts, r.t0, r.t1, unit)
		}
		y0 += H + gap
		fmt.Fprintf(&sb, `<text x="%.0f" y="%.0f" fill="#5d6675">time (%s) &#8594;, bytes per partition &#8593;</text>`, left, y0-gap/2+4, unit)
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String()), ""
}

// mapColor cycles through a palette so neighbouring locations differ.
func mapColor(k int) string {
	palette := []string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f"}
	return palette[k%len(palette)]
}

func kibText(b int64) string {
	if b >= 1<<10 {
		return fmt.Sprintf("%.0f KiB", float64(b)/1024)
	}
	return fmt.Sprintf("%d B", b)
}
