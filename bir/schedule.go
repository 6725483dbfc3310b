package bir

import "strconv"

// Schedule is the scheduler's result for one function (passes/sched, seed
// 002 §6.4: the TimeAwareScheduler's simulated engine timelines): dense
// side tables indexed by InstID, as design.md asks for results that exist
// per instruction ("start/end time, engine, queue ... live in dense side
// tables indexed by InstID, not in interned attributes").
//
//   - Start[i], End[i]: the simulated interval of instruction i, in
//     picoseconds from the start of the function, End >= Start. Start < 0
//     means i has no schedule (an instruction added after scheduling, a
//     loop, a dead slot).
//   - Queue[i]: the DMA queue (0 .. arch DMAQueues-1) a DMA runs on, -1 for
//     an instruction that runs on its engine (Instruction.Engine).
//   - DGE[i]: the descriptor-generation engine of a DMA: -1 a software DGE
//     (the default), k >= 0 hardware DGE k (seed 001: assign_hwdge_engine).
//   - Order[i]: the position of i in the stream of its engine or queue
//     (0, 1, 2, ... in Start order), -1 without a schedule.
//
// The tables cover the instruction slots that existed when the schedule
// was made (Len); an instruction created later has no entry (Has is
// false). A pass that changes an instruction's operands, engine or order
// after scheduling leaves the table stale: drop it (Function.Sched = nil)
// or reschedule. The verifier's StageScheduled rules check a table against
// the function (verify package comment).
//
// After scheduling, each block's instruction order is the linearized
// schedule (ascending Start, ties in the order the scheduler issued them),
// so a sequential run of the block executes the scheduled order.
type Schedule struct {
	Start []int64
	End   []int64
	Queue []int16
	DGE   []int8
	Order []int32

	// Period holds, for a loop instruction of a function that keeps
	// loops, its initiation interval in ps: the instances of iteration k
	// of its body start and end k*Period after iteration 0's, whose times
	// are their Start and End (an instruction in nested loops adds the
	// period of each enclosing loop times that loop's iteration). The
	// loop's own Start and End span all its iterations. nil when the
	// function has no loop.
	Period map[InstID]int64
}

// SetPeriod records loop instruction i's initiation interval.
func (s *Schedule) SetPeriod(i InstID, ps int64) {
	if s.Period == nil {
		s.Period = map[InstID]int64{}
	}
	s.Period[i] = ps
}

// PeriodOf returns loop instruction i's initiation interval (0 when it
// has none).
func (s *Schedule) PeriodOf(i InstID) int64 {
	if s == nil {
		return 0
	}
	return s.Period[i]
}

// NewSchedule returns a table of n entries, all without a schedule.
func NewSchedule(n int) *Schedule {
	s := &Schedule{
		Start: make([]int64, n),
		End:   make([]int64, n),
		Queue: make([]int16, n),
		DGE:   make([]int8, n),
		Order: make([]int32, n),
	}
	for i := range n {
		s.Start[i], s.End[i], s.Queue[i], s.DGE[i], s.Order[i] = -1, -1, -1, -1, -1
	}
	return s
}

// Len returns the number of instruction slots the table covers.
func (s *Schedule) Len() int { return len(s.Start) }

// Has reports whether instruction i has a schedule entry.
func (s *Schedule) Has(i InstID) bool {
	return s != nil && int(i) >= 0 && int(i) < len(s.Start) && s.Start[i] >= 0
}

// Grow extends the table to n slots (new slots have no schedule). A
// column grows by at least an eighth of its length when it must move, so
// slot-by-slot growth (a pass adding instructions one at a time) is
// amortized without the quarter of slack append leaves on large tables.
func (s *Schedule) Grow(n int) {
	k := n - len(s.Start)
	if k <= 0 {
		return
	}
	s.Start = growFill(s.Start, k, -1)
	s.End = growFill(s.End, k, -1)
	s.Queue = growFill(s.Queue, k, -1)
	s.DGE = growFill(s.DGE, k, -1)
	s.Order = growFill(s.Order, k, -1)
}

// growFill appends k copies of v to s, reallocating (when it must) with
// room for max(k, len/8) more.
func growFill[T any](s []T, k int, v T) []T {
	if cap(s)-len(s) < k {
		t := make([]T, len(s), len(s)+max(k, len(s)/8))
		copy(t, s)
		s = t
	}
	for range k {
		s = append(s, v)
	}
	return s
}

// Makespan returns the largest End of the table (0 when empty).
func (s *Schedule) Makespan() int64 {
	var m int64
	if s == nil {
		return 0
	}
	for _, e := range s.End {
		m = max(m, e)
	}
	return m
}

// hasField reports whether instruction i's entry has any field set (a
// start and end, a queue, a DGE or an order).
func (s *Schedule) hasField(i InstID) bool {
	if int(i) < 0 || int(i) >= len(s.Start) || len(s.End) != len(s.Start) || len(s.Queue) != len(s.Start) || len(s.DGE) != len(s.Start) || len(s.Order) != len(s.Start) {
		return false
	}
	if _, ok := s.Period[i]; ok {
		return true
	}
	return s.Start[i] >= 0 || s.Queue[i] >= 0 || s.DGE[i] >= 0 || s.Order[i] >= 0
}

// hasEntry reports whether some instruction has a field set.
func (s *Schedule) hasEntry() bool {
	for i := range s.Start {
		if s.hasField(InstID(i)) {
			return true
		}
	}
	return false
}

// appendSchedText appends the text form of instruction i's entry,
// " sched(start=S, end=E, queue=Q, dge=D, order=O, period=P)" with the fields that
// are set (start and end together; " sched()" for none).
func appendSchedText(b []byte, s *Schedule, i InstID) []byte {
	b = append(b, " sched("...)
	sep := false
	field := func(key string, v int64) {
		if sep {
			b = append(b, ", "...)
		}
		sep = true
		b = append(b, key...)
		b = append(b, '=')
		b = strconv.AppendInt(b, v, 10)
	}
	if s.hasField(i) {
		if s.Start[i] >= 0 {
			field("start", s.Start[i])
			field("end", s.End[i])
		}
		if s.Queue[i] >= 0 {
			field("queue", int64(s.Queue[i]))
		}
		if s.DGE[i] >= 0 {
			field("dge", int64(s.DGE[i]))
		}
		if s.Order[i] >= 0 {
			field("order", int64(s.Order[i]))
		}
		if v, ok := s.Period[i]; ok {
			field("period", v)
		}
	}
	return append(b, ')')
}
