// Problem statement, results and input validation for the allocation solver.
//
// The problem (offline dynamic storage allocation, "DSA"): every buffer is
// live over a half-open time interval [Lower, Upper) and needs Size bytes.
// A solution gives each buffer an Offset so that no two buffers whose
// intervals intersect also intersect in [Offset, Offset+Size), every
// Offset+Size stays within the Capacity, and every Offset is a multiple of the
// buffer's Align. A buffer may be pinned (Fixed): its offset is then part of
// the input and the solver allocates around it.
//
// DSA is NP-hard. Its classic lower bound is max-live: the largest total size
// live at one instant. Capacity below max-live is an immediate proof of
// infeasibility; capacity at or above it may still be infeasible (the
// fragmentation is forced), which only an exhausted exact search can prove.
//
// Decisions recorded here:
//   - Zero-size buffers are legal and occupy nothing; they are given offset 0
//     (or their fixed offset) and never conflict with anything.
//   - Empty or reversed intervals (Upper <= Lower) and negative sizes are input
//     errors, reported as *InputError naming the buffer's index and ID; the
//     solver never panics on bad input.
//   - Align 0 and 1 both mean "no alignment".
//   - A fixed offset must be non-negative and respect the buffer's alignment
//     (an input error otherwise); two fixed buffers that collide, or a fixed
//     buffer that sticks out of the capacity, make the problem infeasible (a
//     proof, not an input error: the input is well formed but has no answer).
//   - Results are indexed like Problem.Buffers; IDs are carried but never
//     interpreted (they need not be unique).
package pack

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/narwhal-compiler/narwhal/diag"
)

// Buffer is one allocation request.
type Buffer struct {
	ID    int64 // caller's identifier, carried through untouched
	Lower int64 // first instant the buffer is live (inclusive)
	Upper int64 // first instant it is no longer live (exclusive); Upper > Lower
	Size  int64 // bytes; 0 is allowed and occupies nothing
	Align int64 // the offset must be a multiple of Align; 0 or 1 = none
	// Fixed pins the buffer at *Fixed when non-nil; the solver places the
	// other buffers around it.
	Fixed *int64
}

// Problem is a set of buffers and the capacity they must fit in.
type Problem struct {
	Buffers  []Buffer
	Capacity int64
}

// Status says how conclusive a Solution is.
type Status int

const (
	// StatusFit: every buffer has an offset within the capacity.
	StatusFit Status = iota
	// StatusInfeasible: proven that no placement fits in the capacity.
	StatusInfeasible
	// StatusUnknown: the solver gave up (deadline, cancellation or node
	// budget) before finding a fitting placement or a proof that none exists.
	StatusUnknown
)

func (s Status) String() string {
	switch s {
	case StatusFit:
		return "fit"
	case StatusInfeasible:
		return "infeasible"
	case StatusUnknown:
		return "unknown"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Solution is the solver's answer. Offsets is always a complete, conflict-free
// placement (indexed like Problem.Buffers) when it is non-nil; when Status is
// not StatusFit it is the best (lowest peak) placement found, which then
// exceeds the capacity and can guide spilling.
type Solution struct {
	Status  Status
	Offsets []int64
	// Peak is max(Offset+Size) over Offsets (0 when Offsets is nil).
	Peak int64
	// MaxLive is the largest total size live at one instant: a lower bound
	// on any placement's peak.
	MaxLive int64
	// LowerBound is the best proven lower bound on the peak: MaxLive, or
	// higher when the exact search proved a capacity infeasible.
	LowerBound int64
	// Optimal is set when Peak == LowerBound (the peak cannot be improved).
	Optimal bool
	// Method names the algorithm that produced Offsets: "linear-scan",
	// "best-fit", "greedy-by-size", "exact", or "trivial".
	Method string
	// Reason explains a StatusInfeasible or StatusUnknown answer in one line.
	Reason string
	// Nodes counts exact-search nodes (0 when the search did not run).
	Nodes   int64
	Elapsed time.Duration
}

// ErrInfeasible is matched (errors.Is) by the error Solve returns when it
// proved that the buffers cannot fit in the capacity.
var ErrInfeasible = errors.New("infeasible within capacity")

// ErrGaveUp is matched by the error Solve returns when it stopped (deadline,
// cancellation, node budget) without a fitting placement or a proof.
var ErrGaveUp = errors.New("no placement found before the solver gave up")

// FitError is returned by Solve when the buffers were not fitted. It carries
// the evidence; Solution carries the best placement found, if any.
type FitError struct {
	Proven   bool  // true: infeasibility is proven (errors.Is ErrInfeasible)
	Capacity int64 // the capacity asked for
	MaxLive  int64 // the max-live lower bound
	BestPeak int64 // peak of the best complete placement found (0 if none)
	Reason   string
}

// ErrorCode is diag.DoesNotFit.
func (e *FitError) ErrorCode() string { return diag.DoesNotFit }

func (e *FitError) Error() string {
	kind := "no placement found"
	if e.Proven {
		kind = "infeasible"
	}
	msg := fmt.Sprintf("%s within capacity %d (max-live %d", kind, e.Capacity, e.MaxLive)
	if e.BestPeak > 0 {
		msg += fmt.Sprintf(", best peak %d", e.BestPeak)
	}
	msg += ")"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}

// Is makes errors.Is(err, ErrInfeasible) / errors.Is(err, ErrGaveUp) work.
func (e *FitError) Is(target error) bool {
	if e.Proven {
		return target == ErrInfeasible
	}
	return target == ErrGaveUp
}

// InputError reports a malformed problem: which buffer and what is wrong.
type InputError struct {
	Index int   // index into Problem.Buffers, or -1 for problem-level errors
	ID    int64 // the buffer's ID when Index >= 0
	Msg   string
}

// ErrorCode is diag.BadCSV: the problem's numbers are malformed.
func (e *InputError) ErrorCode() string { return diag.BadCSV }

func (e *InputError) Error() string {
	if e.Index < 0 {
		return "pack: " + e.Msg
	}
	return fmt.Sprintf("pack: buffer %d (id %d): %s", e.Index, e.ID, e.Msg)
}

// maxCoordinate bounds times, sizes, offsets and capacities so that every
// sum the solver forms (offset+size, running totals of sizes) stays far from
// int64 overflow.
const maxCoordinate = int64(1) << 52

// validate checks a problem for malformed input. It does not judge
// feasibility.
func validate(p Problem) error {
	if p.Capacity < 0 || p.Capacity > maxCoordinate {
		return &InputError{Index: -1, Msg: fmt.Sprintf("capacity %d out of range [0, 2^52]", p.Capacity)}
	}
	var totalSize int64
	for i, b := range p.Buffers {
		bad := func(format string, args ...any) error {
			return &InputError{Index: i, ID: b.ID, Msg: fmt.Sprintf(format, args...)}
		}
		switch {
		case b.Upper <= b.Lower:
			return bad("empty live interval [%d, %d): upper must exceed lower", b.Lower, b.Upper)
		case b.Lower < -maxCoordinate || b.Upper > maxCoordinate:
			return bad("live interval [%d, %d) out of range ±2^52", b.Lower, b.Upper)
		case b.Size < 0:
			return bad("negative size %d", b.Size)
		case b.Size > maxCoordinate:
			return bad("size %d out of range (max 2^52)", b.Size)
		case b.Align < 0:
			return bad("negative alignment %d", b.Align)
		case b.Align > maxCoordinate:
			return bad("alignment %d out of range (max 2^52)", b.Align)
		}
		if b.Fixed != nil {
			off := *b.Fixed
			if off < 0 || off > maxCoordinate {
				return bad("fixed offset %d out of range [0, 2^52]", off)
			}
			if b.Align > 1 && off%b.Align != 0 {
				return bad("fixed offset %d is not a multiple of its alignment %d", off, b.Align)
			}
		}
		totalSize += b.Size
		if totalSize > maxCoordinate {
			return bad("total size of all buffers exceeds 2^52")
		}
	}
	return nil
}

// alignOf returns the effective alignment (>= 1).
func alignOf(b Buffer) int64 {
	if b.Align > 1 {
		return b.Align
	}
	return 1
}

// alignUp rounds x up to a multiple of a (a >= 1).
func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	if r := x % a; r != 0 {
		return x + a - r
	}
	return x
}

// MaxLive returns the largest total size of buffers live at one instant.
// Buffers with Upper <= Lower are ignored. O(n log n).
func MaxLive(buffers []Buffer) int64 {
	return maxLiveOf(len(buffers), func(i int) (int64, int64, int64) {
		b := &buffers[i]
		return b.Lower, b.Upper, b.Size
	})
}

// liveEvent is one end of an interval for maxLiveOf.
type liveEvent struct{ t, size int64 }

func compareLiveEvent(a, b liveEvent) int { return cmp.Compare(a.t, b.t) }

// maxLiveOf is MaxLive over the n intervals interval(i) returns ([lower,
// upper) and size; empty intervals and sizes <= 0 are ignored). It sorts
// the starts and the ends apart (pointer-free pairs, a typed sort) and
// merges them, ends first at an equal instant since intervals are
// half-open: the memory planner calls it on every on-chip location of a
// fully unrolled kernel, millions at a time.
func maxLiveOf(n int, interval func(i int) (lower, upper, size int64)) int64 {
	starts := make([]liveEvent, 0, n)
	ends := make([]liveEvent, 0, n)
	for i := 0; i < n; i++ {
		lo, hi, size := interval(i)
		if hi <= lo || size <= 0 {
			continue
		}
		starts = append(starts, liveEvent{lo, size})
		ends = append(ends, liveEvent{hi, size})
	}
	slices.SortFunc(starts, compareLiveEvent)
	slices.SortFunc(ends, compareLiveEvent)
	var live, best int64
	j := 0
	for _, st := range starts {
		for j < len(ends) && ends[j].t <= st.t {
			live -= ends[j].size
			j++
		}
		live += st.size
		best = max(best, live)
	}
	return best
}

// Peak returns max(offset+size) of a placement (sizes of zero count as 0).
func Peak(buffers []Buffer, offsets []int64) int64 {
	var peak int64
	for i, b := range buffers {
		if b.Size > 0 && i < len(offsets) {
			peak = max(peak, offsets[i]+b.Size)
		}
	}
	return peak
}

// Verify checks a placement against a problem: every buffer placed, aligned,
// at its fixed offset when pinned, within the capacity, and no two buffers
// live at the same instant overlapping in bytes. It returns nil when the
// placement is valid, else an error naming the first violation found.
// O(n log n + conflicts checked).
func Verify(p Problem, offsets []int64) error {
	if len(offsets) != len(p.Buffers) {
		return fmt.Errorf("pack: %d offsets for %d buffers", len(offsets), len(p.Buffers))
	}
	for i, b := range p.Buffers {
		off := offsets[i]
		switch {
		case off < 0:
			return fmt.Errorf("pack: buffer %d (id %d): negative offset %d", i, b.ID, off)
		case off%alignOf(b) != 0:
			return fmt.Errorf("pack: buffer %d (id %d): offset %d not a multiple of %d", i, b.ID, off, b.Align)
		case b.Fixed != nil && *b.Fixed != off:
			return fmt.Errorf("pack: buffer %d (id %d): offset %d but fixed at %d", i, b.ID, off, *b.Fixed)
		case b.Size > 0 && off+b.Size > p.Capacity:
			return fmt.Errorf("pack: buffer %d (id %d): [%d, %d) exceeds capacity %d", i, b.ID, off, off+b.Size, p.Capacity)
		}
	}
	// Sweep over time; keep the live buffers ordered by offset and check each
	// newcomer against its neighbours in that order (non-overlapping live
	// ranges stay sorted, so checking the two neighbours suffices).
	order := make([]int, 0, len(p.Buffers))
	for i, b := range p.Buffers {
		if b.Size > 0 && b.Upper > b.Lower {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(x, y int) bool {
		bx, by := p.Buffers[order[x]], p.Buffers[order[y]]
		if bx.Lower != by.Lower {
			return bx.Lower < by.Lower
		}
		return order[x] < order[y]
	})
	live := newOffsetSet()
	ends := &endHeap{}
	for _, i := range order {
		b := p.Buffers[i]
		for ends.Len() > 0 && ends.minUpper() <= b.Lower {
			j := ends.pop()
			live.remove(offsets[j], j)
		}
		lo, hi := offsets[i], offsets[i]+b.Size
		if j, ok := live.floor(lo, i); ok && offsets[j]+p.Buffers[j].Size > lo {
			return conflictError(p, offsets, i, j)
		}
		if j, ok := live.ceil(lo, i); ok && offsets[j] < hi {
			return conflictError(p, offsets, i, j)
		}
		live.insert(offsets[i], i)
		ends.push(i, b.Upper)
	}
	return nil
}

func conflictError(p Problem, offsets []int64, i, j int) error {
	bi, bj := p.Buffers[i], p.Buffers[j]
	return fmt.Errorf("pack: buffers %d (id %d, [%d,%d) at [%d,%d)) and %d (id %d, [%d,%d) at [%d,%d)) overlap",
		i, bi.ID, bi.Lower, bi.Upper, offsets[i], offsets[i]+bi.Size,
		j, bj.ID, bj.Lower, bj.Upper, offsets[j], offsets[j]+bj.Size)
}
