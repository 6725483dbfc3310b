// What users see of an allocation besides the report lines (alloc.go's
// reportText): the memory map and the allocation problem, written by the
// alloc pass when its options memmap and dump_problem name files (the
// CLI's --memmap and --dump-alloc-problem).
//
//   - memmap FILE.csv: one row per placed location: function, location,
//     tensor, memory, start partition, partitions, PSUM bank, byte address
//     (within the bank for PSUM), bytes per partition as placed, the live
//     interval [lower, upper) in program positions, and the instructions
//     at its ends.
//   - memmap FILE.svg: per function, one panel per SBUF partition quadrant
//     and one for PSUM with its banks as bands: time (program position)
//     across, byte address up, one rectangle per location (its name,
//     placement and live range on hover), the runtime carve-out shaded
//     above the usable SBUF, and the live bytes of the quadrant (or PSUM)
//     over time as a curve with max-live marked. Past maxSVGRects
//     rectangles per function only the curves are drawn.
//   - dump_problem FILE.csv: the last problem handed to the solver in the
//     MiniMalloc CSV format `narwhal alloc` reads (id, lower, upper, size,
//     alignment, offset for locations that arrive placed), SBUF in FILE
//     and PSUM in FILE with "-psum" before the extension; the extra
//     columns memory, partitions and placed (narwhal's offset) ride along,
//     as the reader keeps unknown columns. The 1-D reading is stricter than
//     the 2-D problem (every pair live at once conflicts, whatever their
//     partitions), so a file is a benchmark instance, not the same problem.
package alloc

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/srcline"
	"github.com/narwhal-compiler/narwhal/pass"
)

// maxSVGRects bounds the rectangles drawn per function.
const maxSVGRects = 20000

// mapEntry is one placed location of the memory map.
type mapEntry struct {
	loc         string
	tensor      string
	mem         int
	base, parts int
	off, size   int64 // off: bank * bank bytes + address for PSUM; size as placed
	align       int64
	lo, hi      int32 // positions, inclusive
	first, last string
	source      string // the NKI source position of the first access ("" when unknown)
	sourceLine  string // the text of that line ("" when unknown)
	fixed       bool
}

// fnMap is the map of one function.
type fnMap struct {
	name    string
	n       int32
	entries []mapEntry
	maxLive [numMems]int64
}

// memMap is the memory map of a module.
type memMap struct {
	fns []fnMap
	g   [numMems]geometry
	// sbPhysical is the physical SBUF bytes per partition (the carve-out
	// is drawn above the usable bytes).
	sbPhysical int64
}

// addFunction records f's placed items.
func (mm *memMap) addFunction(md *model, items [numMems][]item, res [numMems]solveResult) {
	f := md.f
	fm := fnMap{name: f.Name, n: md.n}
	for mem := 0; mem < numMems; mem++ {
		fm.maxLive[mem] = res[mem].maxLive
		for _, it := range items[mem] {
			lc := f.Loc(it.loc)
			e := mapEntry{loc: lc.Name, tensor: f.Tensor(lc.Tensor).Name, mem: mem, base: it.base, parts: it.parts,
				off: it.off, size: it.size, align: it.align, lo: it.lo, hi: it.hi, fixed: it.fixed}
			if md.flags[it.loc]&lfUsed != 0 {
				e.first, e.last = f.InstName(md.firstInst[it.loc]), f.InstName(md.lastInst[it.loc])
				p := f.InstPos(md.firstInst[it.loc])
				e.source = p.String()
				e.sourceLine = srcline.Line(p.File, int(p.Line))
			}
			fm.entries = append(fm.entries, e)
		}
	}
	mm.fns = append(mm.fns, fm)
}

// csv renders the memory map as CSV.
func (mm *memMap) csv() ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"function", "location", "tensor", "memory", "start_partition", "partitions", "bank", "addr", "bytes", "lower", "upper", "first", "last", "fixed", "source", "source_line"})
	for _, fm := range mm.fns {
		for _, e := range fm.entries {
			bank, addr := int64(0), e.off
			if b := mm.g[e.mem].bank; b > 0 {
				bank, addr = e.off/b, e.off%b
			}
			w.Write([]string{fm.name, e.loc, e.tensor, memNames[e.mem], itoa(int64(e.base)), itoa(int64(e.parts)), itoa(bank), itoa(addr),
				itoa(e.size), itoa(int64(e.lo)), itoa(int64(e.hi) + 1), e.first, e.last, strconv.FormatBool(e.fixed), e.source, e.sourceLine})
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// problemCSV renders one memory's problem in the MiniMalloc format.
func (mm *memMap) problemCSV(mem int) ([]byte, int, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write([]string{"id", "lower", "upper", "size", "alignment", "offset", "memory", "partitions", "placed"})
	rows := 0
	for _, fm := range mm.fns {
		for _, e := range fm.entries {
			if e.mem != mem {
				continue
			}
			id := e.loc
			if len(mm.fns) > 1 {
				id = fm.name + "." + e.loc
			}
			off := ""
			if e.fixed {
				off = itoa(e.off)
			}
			w.Write([]string{id, itoa(int64(e.lo)), itoa(int64(e.hi) + 1), itoa(e.size), itoa(max(e.align, 1)), off, memNames[mem], itoa(int64(e.parts)), itoa(e.off)})
			rows++
		}
	}
	w.Flush()
	return buf.Bytes(), rows, w.Error()
}

// svg renders the memory map (see the file comment).
func (mm *memMap) svg() []byte {
	const (
		width   = 1200
		panelH  = 180
		left    = 120
		gap     = 36
		titleH  = 28 // the title line
		labelH  = 18 // a panel's label line above it (the later panels' sit in the gap)
		plotW   = width - left - 20
		palette = 12
	)
	colors := [palette]string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d4a6c8"}
	var b strings.Builder
	panels := len(mm.fns) * (numQuadrantsPanels + 1)
	height := titleH + labelH + panels*(panelH+gap) + 20
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="14">narwhal memory map: time (program position) across, byte address up; hover a rectangle for its location</text>`+"\n")
	y0 := titleH + labelH
	for _, fm := range mm.fns {
		n := max(fm.n, 1)
		xOf := func(p int32) float64 { return left + float64(p)*plotW/float64(n) }
		drawn := len(fm.entries) <= maxSVGRects
		for panel := 0; panel <= numQuadrantsPanels; panel++ {
			mem, quad := memSB, panel
			if panel == numQuadrantsPanels {
				mem, quad = memPSUM, -1
			}
			g := mm.g[mem]
			top := g.capacity
			if mem == memSB && mm.sbPhysical > top {
				top = mm.sbPhysical
			}
			top = max(top, 1)
			yOf := func(addr int64) float64 { return float64(y0) + panelH - float64(addr)*panelH/float64(top) }
			title := fmt.Sprintf("function %s: SBUF partitions %d-%d (quadrant %d), max-live %d of %d bytes", fm.name, 32*quad, 32*quad+31, quad, fm.maxLive[memSB], g.capacity)
			if mem == memPSUM {
				title = fmt.Sprintf("function %s: PSUM, %d banks of %d bytes, max-live %d", fm.name, g.banks, g.bank, fm.maxLive[memPSUM])
			}
			fmt.Fprintf(&b, `<g><text x="%d" y="%d">%s</text>`+"\n", left, y0-6, html.EscapeString(title))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="#fafafa" stroke="#999"/>`+"\n", left, y0, plotW, panelH)
			if mem == memSB && mm.sbPhysical > g.capacity {
				fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="%d" height="%.1f" fill="#ddd"><title>runtime carve-out: bytes %d-%d of each partition</title></rect>`+"\n",
					left, yOf(mm.sbPhysical), plotW, yOf(g.capacity)-yOf(mm.sbPhysical), g.capacity, mm.sbPhysical)
			}
			if mem == memPSUM && g.bank > 0 {
				for k := int64(0); k <= g.banks; k++ {
					fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#bbb" stroke-dasharray="3,3"/>`+"\n", left, left+plotW, yOf(k*g.bank), yOf(k*g.bank))
					if k < g.banks {
						fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">bank %d</text>`+"\n", left-4, yOf(k*g.bank)-2, k)
					}
				}
			} else {
				fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%d</text><text x="%d" y="%d" text-anchor="end">0</text>`+"\n", left-4, yOf(g.capacity)+4, g.capacity, left-4, y0+panelH)
			}
			// The live bytes of the panel over time (a step curve).
			delta := make(map[int32]int64)
			for _, e := range fm.entries {
				if e.mem != mem || quad >= 0 && !coversQuadrant(e, quad) {
					continue
				}
				delta[e.lo] += e.size
				delta[e.hi+1] -= e.size
				if !drawn {
					continue
				}
				c := colors[int(hashName(e.tensor))%palette]
				src := ""
				if e.source != "" {
					src = ", first used at " + e.source
					if e.sourceLine != "" {
						src += ": " + e.sourceLine
					}
				}
				fmt.Fprintf(&b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" fill-opacity="0.75" stroke="#333" stroke-width="0.3"><title>%s (tensor %s): partitions %d-%d, bytes %d-%d, live %s..%s [%d, %d]%s</title></rect>`+"\n",
					xOf(e.lo), yOf(e.off+e.size), max(xOf(e.hi+1)-xOf(e.lo), 0.5), max(yOf(e.off)-yOf(e.off+e.size), 0.5), c,
					html.EscapeString(e.loc), html.EscapeString(e.tensor), e.base, e.base+e.parts-1, e.off, e.off+e.size, html.EscapeString(e.first), html.EscapeString(e.last), e.lo, e.hi, html.EscapeString(src))
			}
			var pts strings.Builder
			var cur, peak int64
			keys := make([]int32, 0, len(delta))
			for k := range delta {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			fmt.Fprintf(&pts, "%.1f,%.1f", xOf(0), yOf(0))
			for _, k := range keys {
				fmt.Fprintf(&pts, " %.1f,%.1f", xOf(k), yOf(cur))
				cur += delta[k]
				peak = max(peak, cur)
				fmt.Fprintf(&pts, " %.1f,%.1f", xOf(k), yOf(cur))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#c00" stroke-width="1"><title>live bytes (max %d)</title></polyline>`+"\n", pts.String(), peak)
			if !drawn && panel == 0 {
				fmt.Fprintf(&b, `<text x="%d" y="%d">%d locations: only the live-bytes curves are drawn</text>`+"\n", left+6, y0+14, len(fm.entries))
			}
			b.WriteString("</g>\n")
			y0 += panelH + gap
		}
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// numQuadrantsPanels is the number of SBUF panels (one per quadrant).
const numQuadrantsPanels = 4

func coversQuadrant(e mapEntry, q int) bool {
	return e.base < 32*(q+1) && 32*q < e.base+e.parts
}

func hashName(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// PSUMProblemPath is the PSUM problem's file beside the SBUF problem's
// (dump_problem FILE.csv: FILE-psum.csv).
func PSUMProblemPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-psum" + ext
}

// writeOutputs writes the files the options ask for.
func writeOutputs(mm *memMap, memmapPath, problemPath string) error {
	if memmapPath != "" {
		var data []byte
		switch strings.ToLower(filepath.Ext(memmapPath)) {
		case ".svg":
			data = mm.svg()
		case ".csv":
			var err error
			if data, err = mm.csv(); err != nil {
				return err
			}
		default:
			return diag.Errorf(diag.Usage, "memmap %s: want a .svg or .csv file", memmapPath)
		}
		if err := pass.WriteFileAtomic(memmapPath, data); err != nil {
			return diag.Wrap(diag.Output, fmt.Errorf("memmap: %w", err))
		}
	}
	if problemPath != "" {
		for mem := 0; mem < numMems; mem++ {
			data, rows, err := mm.problemCSV(mem)
			if err != nil {
				return err
			}
			path := problemPath
			if mem == memPSUM {
				if rows == 0 {
					continue
				}
				path = PSUMProblemPath(path)
			}
			if err := pass.WriteFileAtomic(path, data); err != nil {
				return diag.Wrap(diag.Output, fmt.Errorf("dump_problem: %w", err))
			}
		}
	}
	return nil
}

// newMemMap returns an empty map for a.
func newMemMap(a *arch.Model, g [numMems]geometry) *memMap {
	return &memMap{g: g, sbPhysical: a.SBUFBytesPerPartition}
}
