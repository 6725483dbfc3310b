// The two instruction ceilings of seed 003 and the projections that let
// them fail before anything is cloned.
//
//   - FullUnroll's hard ceiling (instruction_limit_check, full_unroll.h):
//     after unrolling and dead-code elimination the compile fails when
//     total_count > 24,999,999 (0x17D783F; the assert is "total_count <
//     25000000", so exactly 25,000,000 fails and 24,999,999 passes), with
//     the seed's diagnostic text. CheckInstructionCeiling is that check.
//   - Unroll's configurable budget (InstProfiler::instCountFitsLimit,
//     unroll.cpp:1151): the post-unroll count must not exceed
//     max_instruction_limit (the pass option, else Module.Config
//     .MaxInstructionLimit, else DefaultMaxInstructionLimit).
//
// Failing fast. A loop nest whose full unroll would create 10^12
// instructions must fail in microseconds, not after exhausting memory. The
// unrollers project the count from the loop nest before cloning:
//
//   - upper = sum over instructions of the product of the trip counts of
//     the unrolled loops enclosing them (predicates ignored);
//   - lower = the same sum over the instructions that are certain to
//     survive: no predicate, and (for FullUnroll, which removes dead code
//     before checking) not a dead-code candidate.
//
// The check fails before cloning when lower already exceeds the limit (the
// post-unroll count can only be larger), and the cloner keeps counting: it
// stops as soon as the instructions certain to survive exceed the limit,
// and, as a guard against memory exhaustion, when everything it created
// (dead-code candidates included) exceeds the limit (FullUnroll's
// maxCreated), or when the loop iterations it expanded plus the clones a
// false predicate dropped exceed four times the limit (maxExpansionWork:
// time, not memory). Loops whose body expands to nothing are not
// iterated. upper sizes the table reservations when it is within the
// limit. Products and sums go through internal/checked (saturating).
//
// Bounds narwhal adds to the seed's: before cloning or creating anything,
// the per-block locations a function needs (MaxGeneratedLocations, the
// ceiling: a block no instruction accesses is dead storage) and, for
// FullUnroll, the ceiling on a dry projection made before memloc
// generation.
package unroll

import (
	"fmt"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/diag"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// MaxTotalCount is FullUnroll's ceiling: total_count must be < 25,000,000.
const MaxTotalCount = 25_000_000

// CeilingMessage is the seed's assertion text (full_unroll.h:0x5C).
const CeilingMessage = `total_count < 25000000 && "Compiler generated too many instructions, this may due to a failure in parallelism extraction by the tensorizer !"`

// DefaultMaxInstructionLimit is Unroll's budget when neither the pass
// option nor Module.Config.MaxInstructionLimit sets one: 5,000,000, the
// threshold neuronx-cc users meet in "Number of instructions (N) is over
// the threshold (5000000)" (aws-neuron-sdk issue 819).
const DefaultMaxInstructionLimit = 5_000_000

// ErrorCode is diag.TooManyInsts.
func (e *CeilingError) ErrorCode() string { return diag.TooManyInsts }

// ErrorCode is diag.TooManyInsts.
func (e *BudgetError) ErrorCode() string { return diag.TooManyInsts }

// CeilingError is the failure of the 25M ceiling.
type CeilingError struct {
	TotalCount int64
	Projected  bool // the count is a lower bound computed before cloning
	Counting   bool // the count was reached while cloning (a lower bound)
	Where      string
}

func (e *CeilingError) Error() string {
	what := "after FullUnroll"
	switch {
	case e.Projected:
		what = "projected before cloning (a lower bound)"
	case e.Counting:
		what = "reached while cloning (instructions certain to survive)"
	}
	s := fmt.Sprintf("%s: total_count=%d instructions %s, want <= 24999999", CeilingMessage, e.TotalCount, what)
	if e.Where != "" {
		s += " (" + e.Where + ")"
	}
	return s
}

// exceedsCeiling reports whether a count of n instructions breaks
// FullUnroll's ceiling: the seed asserts total_count < 25000000, so
// 24,999,999 passes and 25,000,000 fails. It is the only comparison
// against the ceiling: the final check (CheckInstructionCeiling), the
// projection before cloning and the count while cloning all go through it,
// so they cannot disagree on the boundary.
func exceedsCeiling(n int64) bool { return n > MaxTotalCount-1 }

// CheckInstructionCeiling is FullUnroll's instruction_limit_check: nil
// when total <= 24,999,999, the seed's assertion otherwise.
func CheckInstructionCeiling(total int64) error {
	if exceedsCeiling(total) {
		return &CeilingError{TotalCount: total}
	}
	return nil
}

// BudgetError is the failure of Unroll's configurable budget.
type BudgetError struct {
	TotalCount int64
	Limit      int64
	Projected  bool // a lower bound computed before cloning
	Counting   bool // reached while cloning
	Where      string
}

func (e *BudgetError) Error() string {
	what := "after unrolling"
	switch {
	case e.Projected:
		what = "projected before cloning (a lower bound)"
	case e.Counting:
		what = "reached while cloning"
	}
	s := fmt.Sprintf("Too many instructions after unroll: total_count=%d %s exceeds max_instruction_limit=%d (raise it with --option unroll.max_instruction_limit=N or Config.MaxInstructionLimit)",
		e.TotalCount, what, e.Limit)
	if e.Where != "" {
		s += " (" + e.Where + ")"
	}
	return s
}

// InstCountFitsLimit is Unroll's instCountFitsLimit.
func InstCountFitsLimit(total, limit int64) bool { return total <= limit }

// projection is the projected post-unroll instruction count of a function.
// upper - clones + sureClones is what cloning is certain to create, dead
// code included (FullUnroll's maxCreated check).
type projection struct {
	upper, lower int64 // all instructions
	clones       int64 // instructions inside expanded loops (upper bound)
	// sureClones are the clones of instructions that no predicate (of
	// their own or of an enclosing loop) can drop: a lower bound of the
	// clones, dead code included (it is cloned before dce removes it).
	sureClones int64
	// Upper bounds of what the clones add to the function's tables.
	operands, nameBytes, deps int64
}

// reserve sizes the function's tables for the projected clones.
//
// Predicated instructions are counted at a quarter of their upper bound:
// a predicate usually selects a few iterations (matmul's first and last k
// step), and reserving for every iteration made the instruction and
// operand tables of a 1M-instruction matmul 1.7 times what they hold (80
// bytes per instruction never used). A module whose predicates hold more
// often than that grows its tables by append instead.
//
// An estimate past limit reserves nothing: the clones certain to be
// created passed the checks before cloning, so the excess is
// predicated-off clones that are never made, and reserving the whole
// limit would spend GiBs on them (a 10^12-iteration loop around an
// instruction predicated on one iteration reserved 25M slots); the
// tables then grow with what is actually cloned.
func (c *cloner) reserve(p projection, limit int64) {
	if p.clones <= 0 {
		return
	}
	n := checked.SatAdd(p.sureClones, (p.clones-p.sureClones)/4)
	if n > limit {
		return
	}
	scale := func(x int64) int { return int(float64(x) * float64(n) / float64(p.clones)) }
	c.cfg.reserveInsts = int(n)
	c.reserveOperands = scale(p.operands)
	c.reserveNames = scale(p.nameBytes)
	if c.cfg.remapDeps {
		c.reserveDeps = scale(p.deps)
	}
}

// project computes the projection from the analyzed loop nests.
// removable marks instructions that dead-code elimination may remove (nil:
// none).
func (c *cloner) project(removable func(bir.InstID) bool) projection {
	var p projection
	for i := 0; i < c.nslots; i++ {
		if c.pos[i] < 0 {
			continue
		}
		id := bir.InstID(i)
		in := c.f.Inst(id)
		if in.Op.IsLoop() {
			continue
		}
		n := c.nests[c.plans[i].nest].size
		p.upper = checked.SatAdd(p.upper, n)
		if c.plans[i].nest != 0 {
			p.clones = checked.SatAdd(p.clones, n)
			p.operands = checked.SatAdd(p.operands, checked.SatMul(n, int64(in.NIns)+int64(in.NOuts)))
			nameLen := int64(len(c.m.StrBytes(in.Name)))
			for _, li := range c.nests[c.plans[i].nest].loops {
				lr := &c.loops[li]
				nameLen += int64(len(c.sep)) + int64(len(strconv.FormatInt(max(lr.ub-1, lr.lb), 10)))
			}
			p.nameBytes = checked.SatAdd(p.nameBytes, checked.SatMul(n, nameLen))
			p.deps = checked.SatAdd(p.deps, checked.SatMul(n, int64(len(c.plans[i].deps))))
		}
		if in.Pred == 0 && !c.predicatedAncestor(c.plans[i].loop) {
			if c.plans[i].nest != 0 {
				p.sureClones = checked.SatAdd(p.sureClones, n)
			}
			if removable == nil || !removable(id) {
				p.lower = checked.SatAdd(p.lower, n)
			}
		}
	}
	return p
}

// predicatedAncestor reports whether a loop enclosing the instruction
// carries a predicate (then the instruction may not execute at all).
func (c *cloner) predicatedAncestor(loop int32) bool {
	for l := loop; l >= 0; l = c.loops[l].parent {
		if c.f.Inst(c.loops[l].id).Pred != 0 {
			return true
		}
	}
	return false
}
