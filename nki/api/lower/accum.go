package lower

// PSUM accumulation groups.
//
// On the machine, matmuls that accumulate into one PSUM tile form an
// accumulation group (semantics.md §4.7): the first carries
// start_tensor_calc (it zeroes the bank region and writes), the others add
// their product, the last carries stop_tensor_calc. Accumulating onto PSUM
// that no matmul of the group wrote is undefined. NKI writes the group as
//
//	res = nl.zeros((128, 512), nl.float32, buffer=nl.psum)
//	for k in nl.affine_range(KT):
//	    res += nl.matmul(a[k], b[k], transpose_x=True)   # or res[...] += nisa.nc_matmul(...)
//
// narwhal lowers it to that group. Every matmul writing a PSUM tile is a
// member ("site") of the tile's current group: an overwrite (a fresh
// result, t[...] = nc_matmul(...)) starts a new group, an accumulation
// (+=) joins the open one. A group's members execute in program order
// within the loops entered since the group began (its base: the loops
// open at the zero or the first write), so over those loops each member
// has a linear iteration number L (iterLinear) running 0..T-1. The first
// member in program order gets start on L == 0, the last gets stop on
// L == T-1, with affine predicates, as kernels/matmul.go writes it:
//
//	first and last, T > 2:  [L == 0: start] [1 <= L <= T-2: neither] [L == T-1: stop]
//	first only:             [L == 0: start] [L >= 1: neither]
//	last only:              [L <= T-2: neither] [L == T-1: stop]
//	neither:                one instruction, no flag
//	T == 1:                 one instruction with its flags
//
// (each copy also keeps the predicate of its mask split). Reading the tile
// between members is fine (it sees the partial sum), so a read does not
// end the group; a write by anything but a member (a copy, an activation,
// a new memset) ends it and a later += is an error (narwhal would have to
// add a matmul to values the Tensor engine did not write).
//
// The zero: nl.zeros on a PSUM tile emits a Memset when it is called. If
// the group's members cover the whole tile and nothing read it between the
// zero and the first member, the Memset is removed at Finish: the first
// member's start flag is the zeroing (exactly what the hardware does; a
// partial cover keeps the Memset, whose zeros outside the covered region
// are still needed, and the start flag still opens the group). Accumulating
// into a PSUM tile that was never written starts the group the same way.
// The flags and copies are set at Finish, when every member is known.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narwhal-compiler/narwhal/bir"
	"github.com/narwhal-compiler/narwhal/bir/affine"
)

type accSite struct {
	insts []bir.InstID
	full  bool    // every copy writes the whole block
	loops []*Loop // the group's accumulation loops around this member
}

// accState is one accumulation group: the matmuls into one region of a
// PSUM tile (its block index, offset and pattern as written, so a loop
// that moves the region, res[n] += ..., makes one group per region, not
// one group across it).
type accState struct {
	block affine.Expr
	base  []*Loop // the loops open where the group began
	zero  *zeroState
	sites []*accSite
}

// zeroState is a Memset of 0 into a whole PSUM tile.
type zeroState struct {
	inst       bir.InstID
	full       bool
	base       []*Loop
	readBefore bool
	groups     []*accState
}

// psumState is a PSUM tile's accumulation bookkeeping.
type psumState struct {
	zero   *zeroState
	groups map[string]*accState
	dirty  string // the last write that is not a group member ("" if none)
}

func (st *psumState) clone() *psumState {
	if st == nil {
		return &psumState{groups: map[string]*accState{}}
	}
	c := *st
	c.groups = make(map[string]*accState, len(st.groups))
	for key, g := range st.groups {
		c.groups[key] = g
	}
	return &c
}

// update replaces t's state by fn's change of a copy (undoable).
func (k *Kernel) updatePSUM(t *Tensor, fn func(st *psumState)) {
	old := t.acc
	st := old.clone()
	fn(st)
	t.acc = st
	k.onUndo(func() { t.acc = old })
}

// noteZero records a Memset of value 0 into a PSUM tile.
func (k *Kernel) noteZero(t *Tensor, id bir.InstID, full bool) {
	z := &zeroState{inst: id, full: full, base: slices.Clone(k.loops)}
	k.updatePSUM(t, func(st *psumState) {
		st.zero, st.groups, st.dirty = z, map[string]*accState{}, ""
	})
	n := len(k.zeros)
	k.zeros = append(k.zeros, z)
	k.onUndo(func() { k.zeros = k.zeros[:n] })
}

// noteWrite records a write of a PSUM tile that is not a matmul.
func (k *Kernel) noteWrite(t *Tensor, what string) {
	k.updatePSUM(t, func(st *psumState) {
		st.zero, st.groups, st.dirty = nil, map[string]*accState{}, what
	})
}

// noteRead records a read of a PSUM tile.
func (k *Kernel) noteRead(t *Tensor) {
	if t.acc == nil || t.acc.zero == nil || len(t.acc.zero.groups) > 0 || t.acc.zero.readBefore {
		return
	}
	z := t.acc.zero
	z.readBefore = true
	k.onUndo(func() { z.readBefore = false })
}

func regionKey(a Access) string {
	var sb strings.Builder
	sb.WriteString(a.Block.Key())
	sb.WriteByte('|')
	sb.WriteString(a.Offset.Key())
	for _, d := range a.Dims {
		fmt.Fprintf(&sb, "|%d,%d", d.Step, d.Num)
	}
	return sb.String()
}

// joinGroup makes a matmul (its emitted copies, writing dst) a member of
// the accumulation group of dst's region: accumulate false starts a new
// group, true joins the open one (or starts it after a zero, or on a tile
// never written).
func (k *Kernel) joinGroup(dst Access, insts []bir.InstID, full, accumulate bool) error {
	t := dst.T
	key := regionKey(dst)
	var g *accState
	var err error
	k.updatePSUM(t, func(st *psumState) {
		g = st.groups[key]
		if accumulate && g != nil {
			return
		}
		if accumulate && st.dirty != "" {
			err = k.Errorf(KindNotSupported, "accumulating a matmul into %s after it was written by %s: narwhal accumulates matmuls into a PSUM tile that nl.zeros or a matmul wrote (a PSUM accumulation group)", t.Describe(), st.dirty)
			return
		}
		for other, o := range st.groups {
			if other != key && affine.Equal(o.block, dst.Block) {
				err = k.Errorf(KindNotSupported, "matmuls accumulate into two different regions of one block of %s: narwhal keeps one accumulation group per PSUM region", t.Describe())
				return
			}
		}
		g = &accState{block: dst.Block, base: slices.Clone(k.loops)}
		if accumulate {
			if st.zero != nil {
				g.zero = st.zero
				g.base = st.zero.base
			} else {
				g.base = slices.Clone(t.scope) // never written: from where the tile was made
			}
		}
		st.groups[key] = g
		st.dirty = ""
	})
	if err != nil {
		return err
	}
	if g.zero != nil && !slices.Contains(g.zero.groups, g) {
		z := g.zero
		z.groups = append(z.groups, g)
		k.onUndo(func() { z.groups = z.groups[:len(z.groups)-1] })
	}
	if len(g.base) > len(k.loops) || !slices.Equal(g.base, k.loops[:len(g.base)]) {
		return k.Errorf(KindNKI, "%s accumulates outside the loop its accumulation began in", t.Describe())
	}
	var loops []*Loop
	for _, l := range k.loops[len(g.base):] {
		if l.Dynamic {
			return k.Errorf(KindNotSupported, "matmuls accumulate into %s across the iterations of the runtime loop over %s: narwhal sets a PSUM accumulation group's start and stop flags at trace time, which needs the trip count", t.Describe(), l.Name)
		}
		// A loop that moves the region makes a group per iteration.
		if !dst.Block.Uses(l.Axis) && !dst.Offset.Uses(l.Axis) {
			loops = append(loops, l)
		}
	}
	site := &accSite{insts: insts, full: full, loops: loops}
	n := len(g.sites)
	g.sites = append(g.sites, site)
	if n == 0 {
		m := len(k.accs)
		k.accs = append(k.accs, g)
		k.onUndo(func() { k.accs = k.accs[:m] })
	}
	k.onUndo(func() { g.sites = g.sites[:n] })
	return nil
}

// finishAccumulation sets the start/stop flags of every group and removes
// the Memsets the start flags replace.
func (k *Kernel) finishAccumulation() error {
	f := k.F
	for _, g := range k.accs {
		for i, s := range g.sites {
			if err := k.expandSite(s, i == 0, i == len(g.sites)-1); err != nil {
				return err
			}
		}
	}
	for _, z := range k.zeros {
		if z.inst == bir.NoInst || !z.full || z.readBefore || len(z.groups) != 1 || f.Inst(z.inst).Dead() {
			continue
		}
		full := len(z.groups[0].sites) > 0
		for _, s := range z.groups[0].sites {
			full = full && s.full
		}
		if full {
			f.Remove(z.inst)
		}
	}
	return nil
}

type flagVariant struct {
	pred        affine.Pred
	start, stop bool
	suffix      string
}

func (k *Kernel) expandSite(s *accSite, first, last bool) error {
	f := k.F
	T := iterCount(s.loops)
	L := iterLinear(s.loops)
	var vs []flagVariant
	switch {
	case T == 1:
		vs = []flagVariant{{affine.True(), first, last, ""}}
	case first && last:
		vs = []flagVariant{{affine.EQ(L, affine.Const(0)), true, false, "_first"}}
		if T > 2 {
			vs = append(vs, flagVariant{affine.And(affine.GE(L, affine.Const(1)), affine.LE(L, affine.Const(T-2))), false, false, ""})
		}
		vs = append(vs, flagVariant{affine.EQ(L, affine.Const(T-1)), false, true, "_last"})
	case first:
		vs = []flagVariant{{affine.EQ(L, affine.Const(0)), true, false, "_first"}, {affine.GE(L, affine.Const(1)), false, false, ""}}
	case last:
		vs = []flagVariant{{affine.LE(L, affine.Const(T-2)), false, false, ""}, {affine.EQ(L, affine.Const(T-1)), false, true, "_last"}}
	default:
		vs = []flagVariant{{affine.True(), false, false, ""}}
	}
	for _, id := range s.insts {
		base := k.M.Pred(f.Inst(id).Pred)
		name := f.InstName(id)
		var live []flagVariant
		for _, v := range vs {
			v.pred = affine.And(base, v.pred)
			if !v.pred.False {
				live = append(live, v)
			}
		}
		if len(live) == 0 {
			f.Remove(id) // the mask split and the group leave no iteration
			continue
		}
		prev := id
		for j, v := range live {
			cur := id
			if j > 0 {
				cur = f.Clone(id, k.M.NewSym(name+v.suffix))
				f.InsertAfter(prev, cur)
			} else if v.suffix != "" {
				f.Rename(cur, name+v.suffix)
			}
			f.SetAttr(cur, "start_tensor_calc", bir.Bool(v.start))
			f.SetAttr(cur, "stop_tensor_calc", bir.Bool(v.stop))
			f.SetPred(cur, v.pred)
			prev = cur
		}
	}
	return nil
}
