package depgraph

import (
	"slices"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
	"github.com/narwhal-compiler/narwhal/diag"
)

// # Functions that keep loops (AnalyzeLoops)
//
// What it does. A function FullUnroll left loops in (levels 0 and 1, an
// NKI kernel's dynamic_range loop) gets its dependencies with loop-carried
// edges (bir.Dep's CarryAxis and CarryDist: "the instruction at iteration
// v of CarryAxis depends on On at iteration v - CarryDist"). The function
// is expanded into its instances (bir.Expand: every iteration of every
// loop, each symbolic access pattern evaluated to the bytes it touches
// there, predicates evaluated), the straight-line analysis (Analyze, with
// every rule of the package comment: physical footprints, the allocation's
// live intervals, accumulation groups, barriers, the transitive
// reduction) runs on the instances, and each instance edge X(p) -> Y(q)
// (p, q the iteration vectors) is folded onto the loop program:
//
//   - C the loops enclosing both X and Y; p and q agree on C: a
//     dependency of Y on X without carry (every iteration of Y depends on
//     X in the same iteration of C; X outside a loop of Y: on X, before
//     it; Y after a loop of X: on X's last instance, which the stream
//     order makes depend on the others);
//   - they first differ on loop c_t of C, by d = q_t - p_t > 0, and agree
//     on the loops of C inside c_t: Y depends on X carried by c_t's axis
//     at distance d;
//   - they also differ inside c_t: Y depends on X carried by c_t at
//     distance d over every iteration of the loops inside c_t (bir.Dep's
//     CarryAll): Y at iteration q depends on every instance of X in
//     iteration q_t - d of c_t, which includes X(p) (a tile of an inner
//     loop that the next outer iteration rewrites from its first inner
//     iteration on, after the previous outer iteration's last). This is a
//     superset of the instance edge (bir.Dep has one carry): X's other
//     instances there precede X(p) or follow it on its own stream.
//
// Every instance edge is implied by the folded dependency at the
// instance's iteration, so the fold is sound: every conflicting pair of
// instances is ordered by the transitive closure of the instance edges
// (Analyze's post-condition), hence of the folded ones. It is not always
// minimal: an edge the reduction kept in one iteration holds in every
// iteration once folded (the first iterations may get a dependency on an
// instance the reduction found implied there), and the third case
// over-approximates. The semaphore pass keeps only the waits some
// iteration needs, so extra dependencies cost no synchronization.
//
// Pre-conditions: the function's loops have static trip counts (a Loop, a
// DynamicForLoop bounded by its axis); a DoWhile or a DynamicForLoop with
// run-time bounds is an error (diag.LoopNotHandled): a windowed analysis that
// holds for any trip count is not implemented. The instances are bounded
// by ExpandOptions' default (bir.DefaultMaxInstances). Cost: that of the
// straight-line analysis on the instances, plus the expansion (a copy of
// the module).

// LoopGraph is the folded dependence graph of a function with loops: for
// each instruction of the function (by InstID), its dependencies.
type LoopGraph struct {
	Deps  [][]bir.Dep
	Stats Stats
	// Carried counts the folded dependencies with a carry; CarryAll those
	// that span the inner loops (the third case above).
	Carried, CarryAll int
	// Instances is the number of instances analyzed.
	Instances int
}

// AnalyzeLoops computes the dependencies of f, which has loops (see
// above). f is not modified.
func AnalyzeLoops(f *bir.Function, opt Options) (*LoopGraph, error) {
	if opt.KeepExisting {
		return nil, diag.Errorf(diag.PassOption, "function %s keeps loops: option keep-existing applies to straight-line functions only", f.Name)
	}
	x, err := bir.Expand(f.Module(), bir.ExpandOptions{Only: f.Name})
	if err != nil {
		return nil, diag.Wrap(diag.LoopNotHandled, err)
	}
	fx := x.Func(f.Name)
	if fx == nil {
		return nil, diag.Wrap(diag.Internal, f.Errorf(bir.NoInst, "no expansion"))
	}
	opt.Log = nil // instance names would flood the log
	g, err := Analyze(fx.F, opt)
	if err != nil {
		return nil, err
	}
	lg := &LoopGraph{Deps: make([][]bir.Dep, f.NumInstSlots()), Stats: g.Stats, Instances: len(g.Insts)}
	nests := map[bir.InstID][]bir.InstID{}
	nest := func(i bir.InstID) []bir.InstID {
		if n, ok := nests[i]; ok {
			return n
		}
		n := f.Loopnest(i)
		nests[i] = n
		return n
	}
	type key struct {
		on   bir.InstID
		axis affine.Axis
		dist int32
		all  bool
	}
	index := make([]map[key]int, f.NumInstSlots())
	for k, yi := range g.Insts {
		Y := fx.Orig[yi]
		q := fx.Iteration(yi)
		preds, kinds := g.Preds(k)
		for j, pp := range preds {
			xi := g.Insts[pp]
			X := fx.Orig[xi]
			p := fx.Iteration(xi)
			nx, ny := nest(X), nest(Y)
			c := 0
			for c < len(nx) && c < len(ny) && nx[c] == ny[c] {
				c++
			}
			kk := key{on: X, axis: bir.NoAxis}
			t := 0
			for t < c && p[t] == q[t] {
				t++
			}
			if t < c {
				kk.axis = f.Loop(nx[t]).Axis
				kk.dist = int32(q[t] - p[t])
				for u := t + 1; u < c; u++ {
					if p[u] != q[u] {
						kk.all = true
						break
					}
				}
			}
			m := index[Y]
			if m == nil {
				m = map[key]int{}
				index[Y] = m
			}
			if at, ok := m[kk]; ok {
				if kinds[j] < lg.Deps[Y][at].Kind {
					lg.Deps[Y][at].Kind = kinds[j]
				}
				continue
			}
			m[kk] = len(lg.Deps[Y])
			lg.Deps[Y] = append(lg.Deps[Y], bir.Dep{On: kk.on, Kind: kinds[j], CarryAxis: kk.axis, CarryDist: kk.dist, CarryAll: kk.all})
			if kk.axis != bir.NoAxis {
				lg.Carried++
			}
			if kk.all {
				lg.CarryAll++
			}
		}
	}
	for _, ds := range lg.Deps {
		slices.SortFunc(ds, func(a, b bir.Dep) int {
			if a.On != b.On {
				return int(a.On - b.On)
			}
			if a.CarryAxis != b.CarryAxis {
				return int(a.CarryAxis - b.CarryAxis)
			}
			return int(a.CarryDist - b.CarryDist)
		})
	}
	return lg, nil
}

// Write replaces the dependencies of f's instructions by lg's.
func (lg *LoopGraph) Write(f *bir.Function) {
	n := 0
	for _, ds := range lg.Deps {
		n += len(ds)
	}
	f.ReserveDeps(n)
	f.Walk(func(i bir.InstID) bool {
		f.ClearDeps(i)
		if int(i) < len(lg.Deps) {
			for _, d := range lg.Deps[i] {
				f.AddDep(i, d)
			}
		}
		return true
	})
}
