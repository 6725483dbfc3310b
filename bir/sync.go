package bir

import (
	"slices"
	"strconv"
)

// SemCmd is one semaphore command of an instruction (seed 002 §6.5, §6.6:
// the ".asm $S[k]>0 $S[j]++@complete semaphore conditions"). As a wait it
// holds the instruction until semaphore Sem has reached Value
// (`$S[Sem]>=Value`); as an update it adds Value to semaphore Sem when the
// instruction completes (`$S[Sem]++@complete` for Value 1).
type SemCmd struct {
	Sem   int32
	Value int32
}

// Sync is the synchronization side table of a function (passes/semaphores:
// AllocSemaphores and the trigger-engine assignment, seed 002 §6.5): dense
// columns indexed by InstID, like Schedule, as design.md asks for results
// that exist per instruction ("semaphore waits and updates ... live in
// dense side tables indexed by InstID").
//
//   - Trigger[i]: for a DMA, the engine whose instruction stream issues it
//     (the trigger engine; EngUnassigned: not assigned). The DMA's waits
//     are executed by that engine before it fires the DMA; the DMA's
//     updates are made by the DMA queue when the transfer completes.
//   - Waits(i), Updates(i): the instruction's semaphore commands, in the
//     order they were set. The hardware's wire limit (at most 2 waits and
//     1 update per instruction) is a verifier rule, not a property of the
//     table, so a table read from a file can hold more and be rejected
//     with the seed's message.
//
// The commands live in one pool (Cmds); each instruction names a range of
// it. SetWaits and SetUpdates append a new range (the old one becomes
// garbage, reclaimed by Compact), so setting commands never allocates per
// instruction beyond the pool's growth.
type Sync struct {
	Trigger []Engine
	waitAt  []int32
	updAt   []int32
	nWait   []uint16
	nUpd    []uint16
	Cmds    []SemCmd

	// iters is parallel to Cmds once some command has an iteration term
	// (nil before: straight-line functions never pay for it). See
	// SetWaitsIter.
	iters []ExprID
}

// MaxSemCmds bounds the commands of one kind one instruction may carry in
// the table (far above the hardware's 2 and 1; a reader rejects more).
const MaxSemCmds = 1<<16 - 1

// NewSync returns a table of n entries without commands or triggers.
func NewSync(n int) *Sync {
	s := &Sync{}
	s.Grow(n)
	return s
}

// Len returns the number of instruction slots the table covers.
func (s *Sync) Len() int { return len(s.Trigger) }

// Grow extends the table to n slots (new slots have nothing), as
// Schedule.Grow does (growFill).
func (s *Sync) Grow(n int) {
	k := n - len(s.Trigger)
	if k <= 0 {
		return
	}
	s.Trigger = growFill(s.Trigger, k, EngUnassigned)
	s.waitAt = growFill(s.waitAt, k, 0)
	s.updAt = growFill(s.updAt, k, 0)
	s.nWait = growFill(s.nWait, k, 0)
	s.nUpd = growFill(s.nUpd, k, 0)
}

// Reserve makes room for n more commands in the pool.
func (s *Sync) Reserve(n int) { s.Cmds = slices.Grow(s.Cmds, n) }

// Waits returns the wait commands of instruction i (a view into the pool:
// do not modify or keep it across SetWaits/SetUpdates/Compact).
func (s *Sync) Waits(i InstID) []SemCmd {
	if s == nil || int(i) < 0 || int(i) >= len(s.nWait) || s.nWait[i] == 0 {
		return nil
	}
	a := s.waitAt[i]
	return s.Cmds[a : a+int32(s.nWait[i]) : a+int32(s.nWait[i])]
}

// Updates returns the update commands of instruction i (a view, as Waits).
func (s *Sync) Updates(i InstID) []SemCmd {
	if s == nil || int(i) < 0 || int(i) >= len(s.nUpd) || s.nUpd[i] == 0 {
		return nil
	}
	a := s.updAt[i]
	return s.Cmds[a : a+int32(s.nUpd[i]) : a+int32(s.nUpd[i])]
}

// SetWaits replaces the wait commands of instruction i (at most
// MaxSemCmds; more are dropped by the caller's contract, see the readers).
func (s *Sync) SetWaits(i InstID, cmds []SemCmd) {
	s.Grow(int(i) + 1)
	n := min(len(cmds), MaxSemCmds)
	s.waitAt[i], s.nWait[i] = int32(len(s.Cmds)), uint16(n)
	s.Cmds = append(s.Cmds, cmds[:n]...)
	s.padIters()
}

// SetUpdates replaces the update commands of instruction i.
func (s *Sync) SetUpdates(i InstID, cmds []SemCmd) {
	s.Grow(int(i) + 1)
	n := min(len(cmds), MaxSemCmds)
	s.updAt[i], s.nUpd[i] = int32(len(s.Cmds)), uint16(n)
	s.Cmds = append(s.Cmds, cmds[:n]...)
	s.padIters()
}

// Iteration terms. In a function that keeps loops (passes/semaphores,
// the stream package's loop model), the semaphores count updates across
// iterations, so a wait of an instruction in a loop body names a count
// that advances with the iteration: its value at an iteration is
// Value + the affine expression Iter over the axes of the enclosing loops
// (their values at that iteration; ExprID 0 is no term: the value is
// Value in every iteration). Updates have no terms: an update adds its
// Value each time its instruction completes.

// SetWaitsIter replaces the wait commands of instruction i, with the
// iteration term iters[k] of command k (iters may be shorter: missing
// terms are 0).
func (s *Sync) SetWaitsIter(i InstID, cmds []SemCmd, iters []ExprID) {
	has := false
	for _, e := range iters {
		has = has || e != 0
	}
	if has && s.iters == nil {
		s.iters = make([]ExprID, len(s.Cmds), cap(s.Cmds))
	}
	s.SetWaits(i, cmds)
	if s.iters == nil {
		return
	}
	a := s.waitAt[i]
	for k := range int(s.nWait[i]) {
		var e ExprID
		if k < len(iters) {
			e = iters[k]
		}
		s.iters[int(a)+k] = e
	}
}

// WaitIters returns the iteration terms of instruction i's waits, one per
// wait (a view, as Waits), or nil when none of the function's commands
// has one.
func (s *Sync) WaitIters(i InstID) []ExprID {
	if s == nil || s.iters == nil || int(i) < 0 || int(i) >= len(s.nWait) || s.nWait[i] == 0 {
		return nil
	}
	a, n := s.waitAt[i], int32(s.nWait[i])
	if int(a+n) > len(s.iters) {
		return nil
	}
	return s.iters[a : a+n : a+n]
}

// HasIters reports whether some wait command has an iteration term.
func (s *Sync) HasIters() bool {
	if s == nil {
		return false
	}
	for i := range s.nWait {
		for _, e := range s.WaitIters(InstID(i)) {
			if e != 0 {
				return true
			}
		}
	}
	return false
}

// padIters keeps iters parallel to Cmds after an append.
func (s *Sync) padIters() {
	if s.iters != nil && len(s.iters) < len(s.Cmds) {
		s.iters = append(s.iters, make([]ExprID, len(s.Cmds)-len(s.iters))...)
	}
}

// Has reports whether instruction i has any command or a trigger engine.
func (s *Sync) Has(i InstID) bool {
	return s != nil && int(i) >= 0 && int(i) < len(s.Trigger) && (s.Trigger[i] != EngUnassigned || s.nWait[i] > 0 || s.nUpd[i] > 0)
}

// NumCommands returns the wait and update commands of the table's live
// ranges.
func (s *Sync) NumCommands() (waits, updates int64) {
	if s == nil {
		return 0, 0
	}
	for i := range s.nWait {
		waits += int64(s.nWait[i])
		updates += int64(s.nUpd[i])
	}
	return waits, updates
}

// Compact rewrites the pool so it holds only the live ranges, in
// instruction order.
func (s *Sync) Compact() {
	w, u := s.NumCommands()
	pool := make([]SemCmd, 0, w+u)
	var iters []ExprID
	if s.iters != nil {
		iters = make([]ExprID, 0, w+u)
	}
	for i := range s.nWait {
		if n := s.nWait[i]; n > 0 {
			a := s.waitAt[i]
			s.waitAt[i] = int32(len(pool))
			pool = append(pool, s.Cmds[a:a+int32(n)]...)
			if iters != nil {
				iters = append(iters, s.iters[a:a+int32(n)]...)
			}
		}
		if n := s.nUpd[i]; n > 0 {
			a := s.updAt[i]
			s.updAt[i] = int32(len(pool))
			pool = append(pool, s.Cmds[a:a+int32(n)]...)
			if iters != nil {
				iters = append(iters, make([]ExprID, n)...)
			}
		}
	}
	s.Cmds = pool
	if iters != nil {
		s.iters = iters
	}
}

// Clone returns a deep copy of s.
func (s *Sync) Clone() *Sync {
	if s == nil {
		return nil
	}
	c := &Sync{
		Trigger: append([]Engine(nil), s.Trigger...),
		waitAt:  append([]int32(nil), s.waitAt...),
		updAt:   append([]int32(nil), s.updAt...),
		nWait:   append([]uint16(nil), s.nWait...),
		nUpd:    append([]uint16(nil), s.nUpd...),
		Cmds:    append([]SemCmd(nil), s.Cmds...),
	}
	if s.iters != nil {
		c.iters = append([]ExprID(nil), s.iters...)
	}
	return c
}

// hasEntry reports whether some instruction has a trigger or a command.
func (s *Sync) hasEntry() bool {
	for i := range s.Trigger {
		if s.Has(InstID(i)) {
			return true
		}
	}
	return false
}

// appendSyncText appends the text form of instruction i's entry,
// " sync(trigger=ENGINE, waits=[[S, V], ...], updates=[[S, V]])" with the
// parts it has (" sync()" for none). A wait with an iteration term writes
// it after its value, "[S, V + 4*i]" (iterText formats the term).
func appendSyncText(b []byte, s *Sync, i InstID, iterText func(ExprID) string) []byte {
	b = append(b, " sync("...)
	sep := false
	if s.Has(i) {
		if t := s.Trigger[i]; t != EngUnassigned {
			b = append(b, "trigger="...)
			b = append(b, t.String()...)
			sep = true
		}
		list := func(key string, cmds []SemCmd, iters []ExprID) {
			if len(cmds) == 0 {
				return
			}
			if sep {
				b = append(b, ", "...)
			}
			sep = true
			b = append(b, key...)
			b = append(b, "=["...)
			for k, c := range cmds {
				if k > 0 {
					b = append(b, ", "...)
				}
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(c.Sem), 10)
				b = append(b, ", "...)
				b = strconv.AppendInt(b, int64(c.Value), 10)
				if k < len(iters) && iters[k] != 0 && iterText != nil {
					// The iteration term: " + 4*i", " - 2*j" as the
					// printer writes the affine text after a constant.
					t := iterText(iters[k])
					if len(t) > 0 && t[0] == '-' {
						b = append(b, " - "...)
						b = append(b, t[1:]...)
					} else {
						b = append(b, " + "...)
						b = append(b, t...)
					}
				}
				b = append(b, ']')
			}
			b = append(b, ']')
		}
		list("waits", s.Waits(i), s.WaitIters(i))
		list("updates", s.Updates(i), nil)
	}
	return append(b, ')')
}
