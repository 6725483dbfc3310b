package interp

// The interpreter's resource budgets: memory and executed instructions.
//
// Both are checked before the resource is spent. Every allocation whose
// size a module can drive (a location's storage and written-bitmap, the
// PSUM group table, the per-block region table of a template location,
// the per-access scratch vectors, the input copies and the returned
// outputs) goes through machine.charge, which adds the bytes to the
// running total and fails the run when the total would exceed
// Options.MaxMemory; the allocation happens only after the charge
// succeeded. Executed instructions (each loop iteration counts as one)
// are counted against Options.MaxInstructions.
//
// Zero options take the defaults (DefaultMaxMemory,
// DefaultMaxInstructions), so that no caller gets an unbounded run by
// forgetting a field; a negative option means no limit. The errors are
// *Error of kind ErrLimit and name the option and the narwhal run flag
// that raises it.
//
// Scratch vectors grow to the largest access executed so far and are
// charged by their capacity growth; the garbage the growth leaves is the
// Go collector's and is not counted (it is bounded by the same total).
// chargeScratch reports an exceeded budget by panicking with
// *budgetError, which Run recovers into the ErrLimit error (the scratch
// helpers have no error results; a budget failure is not a bug in
// narwhal).

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// DefaultMaxMemory is the memory budget of a run when Options.MaxMemory is
// zero: 2 GiB of interpreter storage, scratch, inputs and outputs.
const DefaultMaxMemory = 2 << 30

// DefaultMaxInstructions is the executed-instruction limit of a run when
// Options.MaxInstructions is zero: 10,000,000 (each loop iteration counts
// as one), several seconds of small instructions (about 0.65 us each for
// a 512-element copy on the development machine) and far above every
// built-in kernel. A fully unrolled module of up to 25,000,000
// instructions needs a higher limit (narwhal run --max-instructions -1).
const DefaultMaxInstructions = 10_000_000

// Flag names of narwhal run, for the limit messages.
const (
	MaxMemoryFlag       = "--max-memory"
	MaxInstructionsFlag = "--max-instructions"
)

// budgetError is an exceeded memory budget, raised by chargeScratch as a
// panic and recovered by Run.
type budgetError struct{ msg string }

// memLimit and instLimit return the effective limits (0: none).
func (o *Options) memLimit() int64  { return effectiveLimit(o.MaxMemory, DefaultMaxMemory) }
func (o *Options) instLimit() int64 { return effectiveLimit(o.MaxInstructions, DefaultMaxInstructions) }

// effectiveLimit maps an option to its limit: 0 the default, negative
// none (0).
func effectiveLimit(v, def int64) int64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// tryCharge adds n bytes for what to the machine's total, or returns an
// ErrLimit error (and charges nothing) when that would exceed the budget.
func (mc *machine) tryCharge(n int64, what string) error {
	limit := mc.maxMem
	if n < 0 || limit > 0 && (n > limit || mc.mem > limit-n) {
		return errf(ErrLimit, "the interpreter would need %s more for %s, beyond its memory budget of %s (%s in use); raise it with %s (Options.MaxMemory)",
			Bytes(n), what, Bytes(limit), Bytes(mc.mem), MaxMemoryFlag)
	}
	mc.mem += n
	return nil
}

// chargeScratch charges the growth of a scratch vector by grow elements
// of size bytes each, for an access of n elements.
func (mc *machine) chargeScratch(grow, size, n int64) {
	if grow <= 0 {
		return
	}
	if err := mc.tryCharge(grow*size, "a scratch vector"); err != nil {
		panic(&budgetError{msg: fmt.Sprintf("%v (for an access of %d elements)", err, n)})
	}
}

// step counts one executed instruction (or loop iteration) against the
// limit.
func (mc *machine) step() error {
	mc.executed++
	if limit := mc.maxInsts; limit > 0 && mc.executed > limit {
		return errf(ErrLimit, "executed more than %d instructions (loop iterations count as one), the limit; raise it with %s N, or -1 for none (Options.MaxInstructions)", limit, MaxInstructionsFlag)
	}
	return nil
}

// Bytes renders a byte count for messages: "4 TiB", "1.5 GiB", "512 B".
func Bytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, u := float64(n), 0
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if u == 0 {
		return fmt.Sprintf("%d B", n)
	}
	s := fmt.Sprintf("%.1f", v)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + " " + units[u]
}

// storageBytes is what newStorage allocates for rows x rowBytes bytes (the
// data and its written-bitmap), or false when it overflows.
func storageBytes(rows, rowBytes int64) (int64, bool) {
	n, ok := checked.Mul(rows, rowBytes)
	if !ok || rows < 0 || rowBytes < 0 || n > 1<<62 {
		return 0, false
	}
	return n + (n+63)/64*8, true
}

// CheckInputs reports, before a caller draws or reads inputs, whether the
// entry function's inputs alone would exceed the memory budget of opt
// (a run holds them and its own copy); nil when they fit. It lets a
// caller fail before allocating a tensor of 2^40 elements.
func CheckInputs(m *bir.Module, opt Options) error {
	limit := opt.memLimit()
	var total int64
	for _, s := range InputSpecs(m) {
		n, ok := s.Bytes()
		if !ok {
			return &Error{Kind: ErrInput, Msg: fmt.Sprintf("input %s: %s %v has more than 2^62 bytes", s.Name, s.Dtype, s.Shape)}
		}
		total = checked.SatAdd(total, checked.SatMul(n, 2))
		if limit > 0 && total > limit {
			return &Error{Kind: ErrLimit, Msg: fmt.Sprintf("input %s (%s %v, %s) does not fit the interpreter's memory budget of %s with the other inputs and the interpreter's copy of them; raise it with %s (Options.MaxMemory)",
				s.Name, s.Dtype, s.Shape, Bytes(n), Bytes(limit), MaxMemoryFlag)}
		}
	}
	return nil
}

// Bytes returns the size of a tensor of the spec (elements x dtype size)
// and whether it is a valid size below 2^62.
func (s Spec) Bytes() (int64, bool) {
	n, ok := checked.Product(s.Shape...)
	if !ok || n < 0 {
		return 0, false
	}
	b, ok := checked.Mul(n, s.Dtype.Size())
	return b, ok && b < 1<<62
}
