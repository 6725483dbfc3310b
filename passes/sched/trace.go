package sched

import (
	"bufio"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"

	"github.com/narwhal-compiler/narwhal/arch"
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/srcline"
	"github.com/narwhal-compiler/narwhal/stream"
)

// WriteTrace writes the schedule of every scheduled function of m as
// Chrome trace-event JSON, the format Perfetto (ui.perfetto.dev) and
// chrome://tracing open (`narwhal compile --trace FILE.json`):
//
//   - one process per scheduled function ("main (trn2)"), with one track
//     (thread) per engine, named as the Neuron profiler names its rows
//     (hardware.md "Profiler conventions": Tensor, Vector, Scalar, GpSimd,
//     Sync), one per DMA queue that is used ("DMA queue 3"), one per DMA
//     engine that moves bytes ("DMA engine 5": each DMA's transfer, the
//     end of its interval less the cost model's transfer time, on every
//     engine of its partitions; arch/cost.go "The DMA model"), one for
//     calls and one for instructions without an engine;
//   - one complete event (ph "X") per instruction: name = the
//     instruction's name, cat = its opcode, ts/dur in microseconds (the
//     schedule's picoseconds, exact to 1e-6 us), args = opcode, operands,
//     source position (when known), DMA queue and DGE;
//   - one flow (ph "s" at the producer, ph "f" with bp "e" at the
//     consumer, one id per dependency; cat = the dependency's kind) per
//     dependency;
//   - counter tracks (ph "C"): "SBUF bytes in use" (partitions x bytes of
//     the SB locations live at each instant: from the start of their first
//     access to the end of their last, in the schedule) and "PSUM banks in
//     use" (the banks those PSUM locations occupy; allocated locations
//     sharing a bank count it once).
//
// Functions without a schedule table are skipped; a function that keeps
// loops is traced by its instances ("load_x@i=2"). The events of one track
// never overlap and every dependency's consumer starts no earlier than its
// producer ends, as the verifier's StageScheduled rules guarantee (the
// tests check the file itself).
func WriteTrace(w io.Writer, m *bir.Module, model *arch.Model) error {
	// A function that keeps loops is traced as it runs: its instances
	// (bir.Expand: iteration k of a body k periods after iteration 0).
	for _, f := range m.Funcs {
		if bir.HasLoops(f) {
			x, err := bir.Expand(m, bir.ExpandOptions{})
			if err != nil {
				return err
			}
			m = x.M
			break
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	tw := &traceWriter{w: bw, model: model}
	tw.raw(`{"displayTimeUnit":"ns","traceEvents":[`)
	for k, f := range m.Funcs {
		if f.Sched == nil {
			continue
		}
		tw.function(f, k+1)
	}
	tw.raw("\n]}\n")
	if tw.err != nil {
		return tw.err
	}
	return bw.Flush()
}

type traceWriter struct {
	w     *bufio.Writer
	model *arch.Model
	err   error
	first bool
	buf   []byte
	flow  int64
}

func (tw *traceWriter) raw(s string) {
	if tw.err == nil {
		_, tw.err = tw.w.WriteString(s)
	}
}

// event writes one event object (b holds its fields, without braces).
func (tw *traceWriter) event(b []byte) {
	if tw.err != nil {
		return
	}
	if tw.first {
		tw.raw(",")
	}
	tw.first = true
	tw.raw("\n{")
	_, tw.err = tw.w.Write(b)
	tw.raw("}")
}

// usJSON appends ps as microseconds.
func usJSON(b []byte, ps int64) []byte {
	return strconv.AppendFloat(b, float64(ps)/1e6, 'f', -1, 64)
}

// Track ids: engines in profiler order, then calls, no-engine, queues,
// DMA engines.
const (
	tidCalls      = 100
	tidNone       = 101
	tidQueue0     = 1000
	tidDMAEngine0 = 2000
)

var engineTracks = []bir.Engine{bir.EngPE, bir.EngDVE, bir.EngAct, bir.EngPool, bir.EngSP, bir.EngDMA}

func trackOf(f *bir.Function, i bir.InstID) int {
	in := f.Inst(i)
	if q := f.Sched.Queue[i]; q >= 0 && in.Op.Info().Has(bir.FlagDMA) {
		return tidQueue0 + int(q)
	}
	if in.Op.Info().Has(bir.FlagCall) {
		return tidCalls
	}
	if in.Engine == bir.EngUnassigned || in.Engine >= bir.NumEngines {
		return tidNone
	}
	return 1 + slices.Index(engineTracks, in.Engine)
}

func (tw *traceWriter) meta(pid, tid int, what, name string, sort int) {
	b := tw.buf[:0]
	b = append(b, `"ph":"M","pid":`...)
	b = strconv.AppendInt(b, int64(pid), 10)
	if tid >= 0 {
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(tid), 10)
	}
	b = append(b, `,"name":"`...)
	b = append(b, what...)
	b = append(b, `","args":{`...)
	if what == "thread_sort_index" || what == "process_sort_index" {
		b = append(b, `"sort_index":`...)
		b = strconv.AppendInt(b, int64(sort), 10)
	} else {
		b = append(b, `"name":`...)
		b = bir.AppendQuoted(b, name)
	}
	b = append(b, '}')
	tw.buf = b
	tw.event(b)
}

func (tw *traceWriter) function(f *bir.Function, pid int) {
	tab := f.Sched
	m := f.Module()
	tw.meta(pid, -1, "process_name", fmt.Sprintf("%s (%s)", f.Name, tw.model.Name), 0)
	tw.meta(pid, -1, "process_sort_index", "", pid)
	used := map[int]bool{}
	f.Walk(func(i bir.InstID) bool {
		if tab.Has(i) {
			used[trackOf(f, i)] = true
			for m, _ := tw.transfer(f, i); m != 0; m &= m - 1 {
				used[tidDMAEngine0+bits.TrailingZeros64(m)] = true
			}
		}
		return true
	})
	tracks := make([]int, 0, len(used))
	for t := range used {
		tracks = append(tracks, t)
	}
	slices.Sort(tracks)
	for _, t := range tracks {
		name := ""
		switch {
		case t >= tidDMAEngine0:
			name = DMAEngineName(t - tidDMAEngine0)
		case t >= tidQueue0:
			name = fmt.Sprintf("DMA queue %d", t-tidQueue0)
		case t == tidCalls:
			name = "calls (every engine)"
		case t == tidNone:
			name = "no engine"
		default:
			name = EngineName(engineTracks[t-1])
		}
		tw.meta(pid, t, "thread_name", name, 0)
		tw.meta(pid, t, "thread_sort_index", "", t)
	}
	// Instructions.
	f.Walk(func(i bir.InstID) bool {
		if !tab.Has(i) {
			return true
		}
		in := f.Inst(i)
		b := tw.buf[:0]
		b = append(b, `"ph":"X","pid":`...)
		b = strconv.AppendInt(b, int64(pid), 10)
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(trackOf(f, i)), 10)
		b = append(b, `,"ts":`...)
		b = usJSON(b, tab.Start[i])
		b = append(b, `,"dur":`...)
		b = usJSON(b, tab.End[i]-tab.Start[i])
		b = append(b, `,"name":`...)
		b = bir.AppendQuoted(b, f.InstName(i))
		b = append(b, `,"cat":`...)
		b = bir.AppendQuoted(b, f.OpName(i))
		b = append(b, `,"args":{"opcode":`...)
		b = bir.AppendQuoted(b, f.OpName(i))
		b = append(b, `,"operands":`...)
		b = bir.AppendQuoted(b, operandText(f, i))
		if p := m.Pos(in.Pos); p.IsKnown() {
			b = append(b, `,"source":`...)
			b = bir.AppendQuoted(b, p.String())
			if line := srcline.Line(p.File, int(p.Line)); line != "" {
				b = append(b, `,"line":`...)
				b = bir.AppendQuoted(b, line)
			}
		}
		if sy := f.Sync; sy.Has(i) {
			// Synchronization (passes/semaphores): the trigger engine of a
			// DMA and the semaphore commands.
			if tr := sy.Trigger[i]; tr != bir.EngUnassigned {
				b = append(b, `,"trigger":`...)
				b = bir.AppendQuoted(b, tr.ProfilerName())
			}
			if len(sy.Waits(i))+len(sy.Updates(i)) > 0 {
				b = append(b, `,"semaphores":`...)
				b = bir.AppendQuoted(b, stream.Commands(sy, i))
			}
		}
		if q := tab.Queue[i]; q >= 0 {
			b = append(b, `,"queue":`...)
			b = strconv.AppendInt(b, int64(q), 10)
			if d := tab.DGE[i]; d >= 0 {
				b = append(b, `,"dge":"hardware DGE `...)
				b = strconv.AppendInt(b, int64(d), 10)
				b = append(b, '"')
			} else {
				b = append(b, `,"dge":"software DGE"`...)
			}
		}
		b = append(b, `,"start_ps":`...)
		b = strconv.AppendInt(b, tab.Start[i], 10)
		b = append(b, `,"end_ps":`...)
		b = strconv.AppendInt(b, tab.End[i], 10)
		b = append(b, "}"...)
		tw.buf = b
		tw.event(b)
		// The DMA's transfer on each of its engines.
		mask, xfer := tw.transfer(f, i)
		for m := mask; m != 0; m &= m - 1 {
			b := tw.buf[:0]
			b = append(b, `"ph":"X","pid":`...)
			b = strconv.AppendInt(b, int64(pid), 10)
			b = append(b, `,"tid":`...)
			b = strconv.AppendInt(b, int64(tidDMAEngine0+bits.TrailingZeros64(m)), 10)
			b = append(b, `,"ts":`...)
			b = usJSON(b, tab.End[i]-xfer)
			b = append(b, `,"dur":`...)
			b = usJSON(b, xfer)
			b = append(b, `,"name":`...)
			b = bir.AppendQuoted(b, f.InstName(i))
			b = append(b, `,"cat":"dma-transfer","args":{"queue":`...)
			b = strconv.AppendInt(b, int64(tab.Queue[i]), 10)
			b = append(b, `,"start_ps":`...)
			b = strconv.AppendInt(b, tab.End[i]-xfer, 10)
			b = append(b, `,"end_ps":`...)
			b = strconv.AppendInt(b, tab.End[i], 10)
			b = append(b, "}"...)
			tw.buf = b
			tw.event(b)
		}
		return true
	})
	// Dependencies as flows.
	f.Walk(func(i bir.InstID) bool {
		if !tab.Has(i) {
			return true
		}
		for k := f.Inst(i).Deps; k >= 0; {
			d, next, ok := f.DepRecord(k)
			if !ok {
				break
			}
			k = next
			if !tab.Has(d.On) {
				continue
			}
			tw.flow++
			for _, end := range []bool{false, true} {
				b := tw.buf[:0]
				at, tid := d.On, trackOf(f, d.On)
				if end {
					at, tid = i, trackOf(f, i)
					b = append(b, `"ph":"f","bp":"e"`...)
				} else {
					b = append(b, `"ph":"s"`...)
				}
				b = append(b, `,"id":`...)
				b = strconv.AppendInt(b, tw.flow, 10)
				b = append(b, `,"pid":`...)
				b = strconv.AppendInt(b, int64(pid), 10)
				b = append(b, `,"tid":`...)
				b = strconv.AppendInt(b, int64(tid), 10)
				b = append(b, `,"ts":`...)
				b = usJSON(b, tab.Start[at])
				b = append(b, `,"name":"dependency","cat":"`...)
				b = append(b, d.Kind.String()...)
				b = append(b, '"')
				tw.buf = b
				tw.event(b)
			}
		}
		return true
	})
	tw.counters(f, pid)
}

// transfer returns the DMA engines scheduled instruction i's transfer
// occupies and its transfer time in ps (the cost model's; 0, 0 for an
// instruction that is not a DMA or that the model cannot price).
func (tw *traceWriter) transfer(f *bir.Function, i bir.InstID) (uint64, int64) {
	tab := f.Sched
	if !f.Inst(i).Op.Info().Has(bir.FlagDMA) || tab.Queue[i] < 0 {
		return 0, 0
	}
	est, err := tw.model.InstructionCost(f, i, bir.EngDMA, tab.DGE[i] >= 0)
	if err != nil || est.Engines == 0 {
		return 0, 0
	}
	return est.Engines, min(est.XferPs(), tab.End[i]-tab.Start[i])
}

// operandText renders an instruction's operands compactly: sources ->
// destinations, each "location[offset=O, ap=[[step,num],...]] dtype".
func operandText(f *bir.Function, i bir.InstID) string {
	var b []byte
	m := f.Module()
	nin := int(f.Inst(i).NIns)
	for k, o := range f.Operands(i) {
		switch {
		case k == nin:
			if k > 0 {
				b = append(b, ' ')
			}
			b = append(b, "-> "...)
		case k > 0:
			b = append(b, ", "...)
		}
		switch o.Kind {
		case bir.OpdPhysAP:
			if int(o.Loc()) < f.NumLocs() {
				b = append(b, f.Loc(o.Loc()).Name...)
			}
			b = append(b, '[')
			if o.Offset != 0 {
				b = append(b, "offset="...)
				b = strconv.AppendInt(b, o.Offset, 10)
				b = append(b, ", "...)
			}
			b = append(b, "ap=["...)
			for j, q := range m.Pattern(o.Pattern) {
				if j > 0 {
					b = append(b, ',')
				}
				b = append(b, '[')
				b = strconv.AppendInt(b, q.Step, 10)
				b = append(b, ',')
				b = strconv.AppendInt(b, q.Num, 10)
				b = append(b, ']')
			}
			b = append(b, "]] "...)
			b = append(b, o.Dtype.Short()...)
		case bir.OpdImm:
			b = strconv.AppendFloat(b, o.ImmFloat(), 'g', -1, 64)
		case bir.OpdRegister:
			if int(o.Ref) < f.NumRegs() {
				b = append(b, '$')
				b = append(b, f.Reg(bir.RegID(o.Ref)).Name...)
			}
		default:
			b = append(b, o.Kind.String()...)
		}
	}
	return string(b)
}

// counters writes the SBUF-bytes and PSUM-banks counter tracks.
func (tw *traceWriter) counters(f *bir.Function, pid int) {
	tab := f.Sched
	nl := f.NumLocs()
	first := make([]int64, nl)
	last := make([]int64, nl)
	for l := range first {
		first[l], last[l] = -1, -1
	}
	f.Walk(func(i bir.InstID) bool {
		if !tab.Has(i) {
			return true
		}
		for _, o := range f.Operands(i) {
			if o.Kind != bir.OpdPhysAP || int(o.Loc()) >= nl {
				continue
			}
			l := o.Loc()
			if first[l] < 0 || tab.Start[i] < first[l] {
				first[l] = tab.Start[i]
			}
			last[l] = max(last[l], tab.End[i])
		}
		return true
	})
	type change struct {
		t     int64
		loc   bir.LocID
		start bool
	}
	var ch []change
	for l := range nl {
		lc := f.Loc(bir.LocID(l))
		if first[l] < 0 || !lc.Type.IsOnChip() {
			continue
		}
		ch = append(ch, change{first[l], bir.LocID(l), true}, change{last[l], bir.LocID(l), false})
	}
	if len(ch) == 0 {
		return
	}
	// Ends before starts at one instant: a location freed at t and one
	// taken at t are not both in use.
	slices.SortStableFunc(ch, func(a, b change) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		case a.start != b.start:
			if !a.start {
				return -1
			}
			return 1
		}
		return 0
	})
	bb := max(tw.model.PSUMBankBytes, 1)
	var sbBytes, privBanks int64
	bankRef := map[int64]int{}
	emit := func(t int64) {
		for _, c := range []struct {
			name string
			v    int64
		}{{"SBUF bytes in use", sbBytes}, {"PSUM banks in use", privBanks + int64(len(bankRef))}} {
			b := tw.buf[:0]
			b = append(b, `"ph":"C","pid":`...)
			b = strconv.AppendInt(b, int64(pid), 10)
			b = append(b, `,"ts":`...)
			b = usJSON(b, t)
			b = append(b, `,"name":"`...)
			b = append(b, c.name...)
			b = append(b, `","args":{"value":`...)
			b = strconv.AppendInt(b, c.v, 10)
			b = append(b, '}')
			tw.buf = b
			tw.event(b)
		}
	}
	for k, c := range ch {
		lc := f.Loc(c.loc)
		d := int64(1)
		if !c.start {
			d = -1
		}
		if lc.Type == bir.MemSB {
			sbBytes += d * lc.Partitions * lc.Bytes
		} else if lc.Allocated {
			lo := lc.Bank*bb + lc.Addr
			for b := lo / bb; b <= (lo+max(lc.Bytes, 1)-1)/bb; b++ {
				bankRef[b] += int(d)
				if bankRef[b] <= 0 {
					delete(bankRef, b)
				}
			}
		} else {
			privBanks += d * ((lc.Bytes + bb - 1) / bb)
		}
		if k+1 == len(ch) || ch[k+1].t != c.t {
			emit(c.t)
		}
	}
}
