package lower

// Kept loops and the SPMD grid.
//
// A loop the tracer keeps (an nl.affine_range / nl.sequential_range whose
// body traced with a symbolic iterator) is one BIR Loop instruction over a
// fresh axis running 0..trip-1 with stride 1; the Python iterator is
// lb + step*axis (Loop.Iter). Normalising the axis keeps block indices of
// tiles made in the body (iteration numbers) and accumulation-group
// predicates simple affine forms. Axis names are the Python loop targets,
// made unique in the function (the affine text form resolves names to the
// innermost enclosing loop, so a repeated name would be shadowed).
//
// BeginLoop marks the construction state; AbortLoop rolls back everything
// the body built (instructions, tensors, nested loops, accumulation
// members) when the Looper decides to unroll instead, and EndLoop closes
// it. The SPMD grid's program ids are kept loops too (Grid >= 0), the
// outermost ones, opened by BeginGrid.

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

// Loop is a kept loop.
type Loop struct {
	k    *Kernel
	Name string
	// Lb and Step map the axis to the Python iterator; Trip is the number
	// of iterations.
	Lb, Step, Trip int64
	Axis           affine.Axis
	// Grid is the SPMD grid dimension of a program-id loop, else -1.
	Grid int
	Pos  bir.Pos
	// Dynamic marks a runtime loop (DynamicForLoop or DoWhile:
	// register.go): its trip count is unknown at trace time, so tiles made
	// in its body are one block reused by every iteration and Trip is 1.
	Dynamic bool

	inst   bir.InstID
	parent bir.BlockID
	mark   Mark
	open   bool
}

// Iter returns the Python iterator's value.
func (l *Loop) Iter() Index {
	return Index{Sym: affine.AddConst(affine.Scale(affine.Var(l.Axis), l.Step), l.Lb)}
}

// TripCount returns the number of iterations of range(start, stop, step).
func TripCount(start, stop, step int64) int64 {
	switch {
	case step > 0 && stop > start:
		return (stop - start + step - 1) / step
	case step < 0 && stop < start:
		return (start - stop - step - 1) / -step
	}
	return 0
}

// BeginLoop opens a kept loop over range(start, stop, step), named after
// the loop target, and makes its body the current block. The loop must
// have at least one iteration.
func (k *Kernel) BeginLoop(target string, start, stop, step int64) (*Loop, error) {
	return k.beginLoop(target, start, stop, step, -1)
}

// BeginGrid opens the program-id loop of SPMD grid dimension dim (size
// programs).
func (k *Kernel) BeginGrid(dim int, size int64) (*Loop, error) {
	return k.beginLoop(fmt.Sprintf("pid%d", dim), 0, size, 1, dim)
}

func (k *Kernel) beginLoop(target string, start, stop, step int64, grid int) (*Loop, error) {
	if step == 0 {
		return nil, k.Errorf(KindNKI, "loop step must not be zero")
	}
	trip := TripCount(start, stop, step)
	if trip <= 0 {
		return nil, fmt.Errorf("lower: loop over %s has no iteration", target)
	}
	mark := k.Mark()
	name := k.axisNameFor(target)
	f := k.F
	id, ax := f.NewLoop(bir.OpLoop, "loop_"+name, name, 0, trip, 1)
	k.append(id)
	body := f.NewBlock("Block_"+name, id)
	l := &Loop{k: k, Name: target, Lb: start, Step: step, Trip: trip, Axis: ax, Grid: grid, Pos: k.pos,
		inst: id, parent: k.cur, mark: mark, open: true}
	k.loops = append(k.loops, l)
	k.axisLoop[ax] = l
	k.cur = body
	k.onUndo(func() {
		delete(k.axisLoop, ax)
		if l.open {
			l.open = false
			k.loops = k.loops[:len(k.loops)-1]
			k.cur = l.parent
		}
	})
	return l, nil
}

// axisNameFor returns a loop axis name for the Python target, unique among
// the function's loop axes (an identifier: the affine text form's rule).
func (k *Kernel) axisNameFor(target string) string {
	base := ""
	for i, r := range target {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9' {
			base += string(r)
		}
	}
	if base == "" || base == "floordiv" || base == "mod" || base == "and" || base == "true" || base == "false" {
		base = "i"
	}
	taken := map[string]bool{}
	for _, l := range k.axisLoop {
		taken[k.M.Axis(l.Axis).Name] = true
	}
	for _, l := range k.loops {
		taken[k.M.Axis(l.Axis).Name] = true
	}
	name := base
	for n := 1; taken[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	return name
}

// EndLoop closes the innermost kept loop, which must be l.
func (k *Kernel) EndLoop(l *Loop) error {
	if err := k.flushErr(); err != nil {
		return err
	}
	if len(k.loops) == 0 || k.loops[len(k.loops)-1] != l {
		return fmt.Errorf("lower: EndLoop(%s) is not the innermost open loop", l.Name)
	}
	l.open = false
	k.loops = k.loops[:len(k.loops)-1]
	k.cur = l.parent
	k.onUndo(func() {
		// Rolling back past the end of l: l stays closed; its begin's undo
		// (earlier in the trail) removes it.
	})
	return nil
}

// AbortLoop discards loop l and everything its body built: the Looper
// unrolls it instead.
func (k *Kernel) AbortLoop(l *Loop) {
	k.Rollback(l.mark)
}

// Loops returns the open kept loops, outermost first.
func (k *Kernel) Loops() []*Loop { return append([]*Loop(nil), k.loops...) }

// LoopOf returns the kept loop of axis a (nil if a is not one).
func (k *Kernel) LoopOf(a affine.Axis) *Loop { return k.loopOf(a) }

// AxisName names axis a in messages: its loop's Python target.
func (k *Kernel) AxisName(a affine.Axis) string { return k.axisName(a) }
