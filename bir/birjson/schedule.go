// The "schedule" extension: an instruction's entry in its function's
// schedule side table (bir.Schedule; docs/bir-json.md, "Instruction:
// schedule").
//
//	"schedule": {"start_ps": 0, "end_ps": 46190000, "queue": 3, "dge": 0, "order": 1}
//
// start_ps and end_ps (the simulated interval in picoseconds) come
// together; queue (a DMA's queue), dge (its hardware DGE engine) and order
// (the position in its engine's or queue's stream) are written when set
// (>= 0) and default to -1 (none; a software DGE); period_ps, on a loop
// instruction of a function that keeps loops, is its initiation interval
// (bir.Schedule.Period). The writer writes
// "schedule" after "pos" for every instruction of a function that has a
// table and an entry with any field set; the reader gives a function a
// table as soon as one of its instructions has "schedule", covering every
// instruction slot (the others without a schedule).
package birjson

import (
	"math"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
)

// schedEntry is one decoded "schedule" object.
type schedEntry struct {
	start, end int64
	queue, dge int64
	order      int64
	period     int64 // -1: none
}

// appendSchedule appends `,"schedule":{...}` for instruction i of table t
// when the entry has any field set.
func appendSchedule(b []byte, t *bir.Schedule, i bir.InstID) []byte {
	if len(t.End) != t.Len() || len(t.Queue) != t.Len() || len(t.DGE) != t.Len() || len(t.Order) != t.Len() {
		return b // a malformed table: the verifier's schedule rule reports it
	}
	has := t.Start[i] >= 0
	period, hasPeriod := t.Period[i]
	if !has && t.Queue[i] < 0 && t.DGE[i] < 0 && t.Order[i] < 0 && !hasPeriod {
		return b
	}
	b = append(b, `,"schedule":{`...)
	sep := false
	field := func(key string, v int64) {
		if sep {
			b = append(b, ',')
		}
		sep = true
		b = append(b, '"')
		b = append(b, key...)
		b = append(b, `":`...)
		b = strconv.AppendInt(b, v, 10)
	}
	if has {
		field("start_ps", t.Start[i])
		field("end_ps", t.End[i])
	}
	if t.Queue[i] >= 0 {
		field("queue", int64(t.Queue[i]))
	}
	if t.DGE[i] >= 0 {
		field("dge", int64(t.DGE[i]))
	}
	if t.Order[i] >= 0 {
		field("order", int64(t.Order[i]))
	}
	if hasPeriod {
		field("period_ps", period)
	}
	return append(b, '}')
}

// schedEntry reads a "schedule" object at the cursor.
func (d *decoder) schedEntry() (schedEntry, error) {
	x := schedEntry{start: -1, end: -1, queue: -1, dge: -1, order: -1, period: -1}
	start := d.pos
	more, err := d.beginObject("schedule")
	if err != nil {
		return x, err
	}
	var seen uint8
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return x, err
		}
		var dst *int64
		var bit uint8
		limit := int64(math.MaxInt64)
		switch string(key) {
		case "start_ps":
			dst, bit = &x.start, 1
		case "end_ps":
			dst, bit = &x.end, 2
		case "queue":
			dst, bit, limit = &x.queue, 4, math.MaxInt16
		case "dge":
			dst, bit, limit = &x.dge, 8, math.MaxInt8
		case "order":
			dst, bit, limit = &x.order, 16, math.MaxInt32
		case "period_ps":
			dst, bit = &x.period, 32
		default:
			return x, d.errf(kpos, "schedule: unknown key %q (want start_ps, end_ps, queue, dge, order, period_ps)", key)
		}
		if seen&bit != 0 {
			return x, d.errf(kpos, "schedule: duplicate key %q", key)
		}
		seen |= bit
		v, err := d.nonNegInt("schedule." + string(key))
		if err != nil {
			return x, err
		}
		if v > limit {
			return x, d.errf(kpos, "schedule.%s: %d is out of range (at most %d)", key, v, limit)
		}
		*dst = v
		if more, err = d.nextField(); err != nil {
			return x, err
		}
	}
	if (seen&1 != 0) != (seen&2 != 0) {
		return x, d.errf(start, "schedule: start_ps and end_ps go together")
	}
	if x.end < x.start {
		return x, d.errf(start, "schedule: end_ps %d before start_ps %d", x.end, x.start)
	}
	return x, nil
}

// setSched records x as instruction id's schedule entry.
func (d *decoder) setSched(id bir.InstID, x schedEntry) {
	f := d.f
	if f.Sched == nil {
		f.Sched = bir.NewSchedule(0)
	}
	f.Sched.Grow(int(id) + 1)
	t := f.Sched
	t.Start[id], t.End[id] = x.start, x.end
	t.Queue[id], t.DGE[id], t.Order[id] = int16(x.queue), int8(x.dge), int32(x.order)
	if x.period >= 0 {
		t.SetPeriod(id, x.period)
	}
}
