// Dependency remapping (the seeds' remap_dependencies and the deferred
// fixup queue of unroll_function step E, seed 003).
//
// bir stores a dependency on the dependent instruction: "I depends on On"
// (bir.Dep), optionally loop-carried ("I at iteration v of CarryAxis
// depends on On at iteration v - CarryDist") and predicated ("only where
// Pred holds"). After unrolling, each clone of I gets edges to the clones of
// On that the edge means:
//
//   - Iterations. Let E(X) be the expanded loops enclosing X, outermost
//     first, and C the loops of E(On) that also enclose I (a prefix of
//     E(On)). The target instances are the clones of On whose iteration
//     agrees with I's current iteration on C, except on the carry loop,
//     where it is CarryDist iterations earlier (distances count iterations:
//     axis value v - CarryDist*stride); on the loops of E(On) outside C (On
//     sits in a loop that does not enclose I) every iteration is a target,
//     so a consumer placed after an inner loop depends on all instances of
//     its producer in that loop.
//   - Existence. An edge whose carried source iteration precedes the loop's
//     first iteration does not exist; an edge whose predicate is false for
//     I's iteration is dropped (AffinePredicate::eval); an edge to an
//     instance that the predicate of On dropped does not exist.
//   - Kept loops. A dependency carried by a loop that is not unrolled stays
//     carried (renamed to the loop's new axis when the loop was re-created),
//     with its predicate partially evaluated.
//
// The clones of On are found in O(1): by the latest-instance table when the
// edge is the common case (not carried, On precedes I in program order and
// sits in no expanded loop that does not enclose I), otherwise through an
// ordinal table per target instruction (the mixed-radix index of the
// iteration in E(On) -> clone), allocated only for instructions that need
// it. A target instance that does not exist yet when I is cloned (a carried
// dependency on a later instruction of a kept loop's body) is queued and
// added when the function is complete (drainFixups).
package unroll

import (
	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/internal/checked"
)

// Ordinal-table sentinels.
const (
	pendingInst bir.InstID = -1 // not instantiated yet
	dropped     bir.InstID = -2 // the instance's predicate was false
)

type ordTable struct {
	clones []bir.InstID
}

// depPlan is a compiled dependency of an original instruction.
type depPlan struct {
	on     bir.InstID
	kind   bir.DepKind
	drop   bool // the target is unreachable: the edge is dropped
	fast   bool
	pred   *cpred
	predID bir.PredID
	// carry: the carry loop (index into cloner.loops) and distance; -1 when
	// not carried.
	carry     int32
	dist      int64
	keptCarry bool // carried by a loop that is not expanded: stays carried
	all       bool // bir.Dep.CarryAll: every iteration of the common loops inside the carry loop
	carryPos  int  // index of the carry loop in E(On), -1 if not there
	onNest    int32
	nCommon   int
	span      int64
}

type fixup struct {
	from bir.InstID
	on   bir.InstID
	ord  int64
	dep  bir.Dep
}

// encloses reports whether loop l encloses the instruction whose innermost
// loop is inner.
func (c *cloner) encloses(l int32, inner int32) bool {
	for x := inner; x >= 0; x = c.loops[x].parent {
		if x == l {
			return true
		}
	}
	return false
}

// planDeps compiles the dependencies of every reachable instruction and
// allocates the ordinal tables of the targets that need them.
func (c *cloner) planDeps() error {
	f := c.f
	for i := 0; i < c.nslots; i++ {
		if c.pos[i] < 0 || !f.HasDeps(bir.InstID(i)) {
			continue
		}
		id := bir.InstID(i)
		p := c.plans[i]
		for _, d := range f.Deps(id) {
			dp := depPlan{on: d.On, kind: d.Kind, carry: -1, carryPos: -1, predID: d.Pred}
			if d.On < 0 || int(d.On) >= c.nslots || c.pos[d.On] < 0 || f.Inst(d.On).Dead() {
				dp.drop = true
				p.deps = append(p.deps, dp)
				continue
			}
			if d.Pred != 0 {
				if int(d.Pred) >= c.m.NumPreds() {
					return f.Errorf(id, "dependency predicate #%d out of range", d.Pred)
				}
				dp.pred = c.comp.pred(d.Pred)
				fast := true
				if err := c.checkAxes(id, p.loop, dp.pred.axes, "a dependency predicate", &fast); err != nil {
					return err
				}
			}
			onPlan := c.plans[d.On]
			dp.onNest = onPlan.nest
			nest := &c.nests[dp.onNest]
			for _, l := range nest.loops {
				if !c.encloses(l, p.loop) {
					break
				}
				dp.nCommon++
			}
			dp.span = 1
			for _, l := range nest.loops[dp.nCommon:] {
				dp.span = checked.SatMul(dp.span, c.loops[l].trips)
			}
			if d.CarryAxis != bir.NoAxis {
				carry := int32(-1)
				for l := p.loop; l >= 0; l = c.loops[l].parent {
					if c.loops[l].axis == d.CarryAxis {
						carry = l
						break
					}
				}
				if carry < 0 {
					return f.Errorf(id, "dependency on %s is carried by axis %s, which no enclosing loop binds", f.InstName(d.On), c.axisName(d.CarryAxis))
				}
				if d.CarryDist < 1 {
					return f.Errorf(id, "dependency on %s carried by %s: distance %d, want >= 1", f.InstName(d.On), c.axisName(d.CarryAxis), d.CarryDist)
				}
				dp.carry, dp.dist = carry, int64(d.CarryDist)
				dp.keptCarry = !c.loops[carry].expanded
				for k, l := range nest.loops[:dp.nCommon] {
					if l == carry {
						dp.carryPos = k
					}
				}
				dp.all = d.CarryAll
				if d.CarryAll && dp.carryPos >= 0 {
					// Every iteration of the common loops inside the carry
					// loop is a target, as on On's own loops.
					dp.nCommon = dp.carryPos + 1
					dp.span = 1
					for _, l := range nest.loops[dp.nCommon:] {
						dp.span = checked.SatMul(dp.span, c.loops[l].trips)
					}
				}
			}
			dp.fast = dp.carry < 0 && dp.span == 1 && dp.nCommon == len(nest.loops) && c.pos[d.On] < c.pos[id]
			if !dp.fast {
				onPlan.order = true
			}
			p.deps = append(p.deps, dp)
		}
	}
	return nil
}

// allocOrdinals creates the ordinal tables (after the projection check, so
// that an absurd iteration space fails before it is allocated).
func (c *cloner) allocOrdinals(limit int64) error {
	c.ords = make([]*ordTable, c.nslots)
	var total int64 // entries of every table: each is an instance, bounded as the clones are
	for i := 0; i < c.nslots; i++ {
		p := c.plans[i]
		if p == nil || !p.order {
			continue
		}
		size := c.nests[p.nest].size
		if total = checked.SatAdd(total, size); total > limit {
			return c.f.Errorf(bir.InstID(i), "%d instances (with the other dependency targets' %d) exceed the instruction limit %d", size, total-size, limit)
		}
		t := &ordTable{clones: make([]bir.InstID, size)}
		for k := range t.clones {
			t.clones[k] = pendingInst
		}
		c.ords[i] = t
	}
	return nil
}

// remapClone adds to instance inst of orig the edges of orig's
// dependencies for the current iteration.
func (c *cloner) remapClone(orig, inst bir.InstID, p *instPlan) error {
	vals := c.env.vals
	for k := range p.deps {
		dp := &p.deps[k]
		if dp.drop {
			continue
		}
		d := bir.Dep{Kind: dp.kind, CarryAxis: bir.NoAxis}
		if dp.pred != nil {
			if c.env.bound(dp.pred.axes) {
				if !dp.pred.eval(vals) {
					continue
				}
			} else {
				pp := c.env.substPred(c.m.Pred(dp.predID))
				if pp.False {
					continue
				}
				d.Pred = c.m.InternPred(pp)
			}
		}
		if dp.fast {
			if t := c.lastClone[dp.on]; t >= 0 {
				d.On = t
				c.f.AddDep(inst, d)
			}
			continue
		}
		if dp.carry >= 0 {
			lr := &c.loops[dp.carry]
			if dp.keptCarry {
				d.CarryAxis = lr.axis
				if r := c.env.rename[lr.axis]; r >= 0 {
					d.CarryAxis = r
				}
				d.CarryDist = int32(dp.dist)
				d.CarryAll = dp.all
			} else if dp.carryPos < 0 {
				// Carried by a loop that encloses I but not On: the edge
				// exists where the source iteration does.
				if checked.Iteration(vals[lr.axis], lr.lb, lr.stride)-dp.dist < 0 {
					continue
				}
			}
		}
		nest := &c.nests[dp.onNest]
		var base int64
		skip := false
		for j := 0; j < dp.nCommon; j++ {
			lr := &c.loops[nest.loops[j]]
			idx := checked.Iteration(vals[lr.axis], lr.lb, lr.stride)
			if j == dp.carryPos && !dp.keptCarry {
				idx -= dp.dist
				if idx < 0 {
					skip = true
					break
				}
			}
			base += idx * nest.radix[j]
		}
		if skip {
			continue
		}
		tab := c.ords[dp.on]
		for o := base; o < base+dp.span; o++ {
			switch t := tab.clones[o]; t {
			case dropped:
			case pendingInst:
				c.queue = append(c.queue, fixup{from: inst, on: dp.on, ord: o, dep: d})
			default:
				d.On = t
				c.f.AddDep(inst, d)
			}
		}
	}
	return nil
}

// remapInPlace rebuilds the dependencies of an instruction that is kept in
// place.
func (c *cloner) remapInPlace(i bir.InstID, p *instPlan) error {
	if len(p.deps) == 0 {
		return nil
	}
	c.f.ClearDeps(i)
	return c.remapClone(i, i, p)
}

// drainFixups adds the queued edges whose targets now exist.
func (c *cloner) drainFixups() error {
	for _, fx := range c.queue {
		t := c.ords[fx.on].clones[fx.ord]
		if t < 0 {
			continue // never instantiated (dropped)
		}
		d := fx.dep
		d.On = t
		c.f.AddDep(fx.from, d)
	}
	c.queue = nil
	return nil
}
